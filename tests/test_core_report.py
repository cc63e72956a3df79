"`benchnb report` as a reader and a user see it: a clean terminal, a reader-ready HTML, code on request, no silent typos."
import re, subprocess
from report_html import check_report_html, check_reader_view

def run(exe, *args, cwd):
    return subprocess.run([exe, *args], capture_output=True, text=True, cwd=cwd, timeout=300)

def test_report_terminal_and_html(benchnb_exe, tmp_path):
    r = run(benchnb_exe, 'report', 'core', '-o', 'out', '-p', 'n_values=50', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == '', f"noise on stderr of a successful run: {r.stderr!r}"     # no IPKernelApp warning
    text = check_report_html(tmp_path/'out'/'core.html', tmp_path)
    check_reader_view(tmp_path/'out'/'core.html', tmp_path, tmp_path, prints=False)   # no `'every plugin loaded'`, no `499500`
    assert 'n_values 50 values per group' in text and 'n_groups 3 (default)' in text  # effective parameters, once

def test_show_code_keeps_code(benchnb_exe, tmp_path):
    r = run(benchnb_exe, 'report', 'core', '-o', 'out', '--show-code', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    page = (tmp_path/'out'/'core.html').read_text()
    assert re.search(r'class="[^"]*jp-InputArea-editor', page) and 'default_rng' in page
    assert page.count('<summary>Parameters</summary>') == 1 and 'n_groups = 3' not in page

def test_misspelt_parameter_is_an_error(benchnb_exe, tmp_path):
    r = run(benchnb_exe, 'report', 'core', '-o', 'out', '-p', 'n_valuez=5', cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.count('\n') == 1 and "no parameter 'n_valuez'" in r.stderr and "did you mean 'n_values'" in r.stderr
    assert 'n_groups, n_values, seed' in r.stderr
    assert not (tmp_path/'out'/'core.html').exists()                                  # refused before any work

def test_demo_html_is_reader_ready(benchnb_exe, tmp_path):
    "The demo pages a newcomer opens first (core and translator here; cells and PLISM are scanned by their own tests)."
    r = run(benchnb_exe, 'demo', '--only', 'core', '--only', 'translator', '-o', 'out', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert 'IPKernelApp' not in r.stderr and 'Warning' not in r.stderr
    check_report_html(tmp_path/'out'/'core.html', tmp_path)
    text = check_report_html(tmp_path/'out'/'translator.html', tmp_path)
    assert 'Too small to rank: 5 queries' in text                     # DrugCentral_subset has 5 queries
