"The installed `benchnb` command, as a user runs it."
import subprocess

def run(exe, *args):
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=300)

def test_help_and_version(benchnb_exe):
    import benchnb
    r = run(benchnb_exe, '--help'); assert r.returncode == 0
    for cmd in ['report', 'demo', 'version']: assert cmd in r.stdout
    r = run(benchnb_exe, 'version'); assert (r.returncode, r.stdout.strip()) == (0, f"benchnb {benchnb.__version__}")

def test_every_command_has_help():
    "Every command and sub-command answers --help (in-process: one import of the plugins)."
    import contextlib, io
    import typer.main
    from benchnb.cli import build_app, main
    def walk(cmd, path):
        yield path
        for name, sub in getattr(cmd, 'commands', {}).items(): yield from walk(sub, path + [name])
    paths = list(walk(typer.main.get_command(build_app()), []))
    assert len(paths) >= 4
    for p in paths:
        out = io.StringIO()
        with contextlib.redirect_stdout(out): code = main([*p, '--help'])
        assert code == 0 and 'Usage' in out.getvalue(), p

def test_errors_are_one_line_without_traceback(benchnb_exe):
    r = run(benchnb_exe, 'report', 'not-a-report')
    assert r.returncode == 1
    assert r.stderr.startswith('benchnb: error: ') and r.stderr.count('\n') == 1 and 'Traceback' not in r.stderr

def test_report_writes_notebook_and_html(benchnb_exe, tmp_path):
    r = run(benchnb_exe, 'report', 'core', '-p', 'n_values=40', '-p', 'n_groups=2', '-o', str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert (tmp_path/'core.ipynb').exists() and (tmp_path/'core.html').exists()
    assert 'data:image/png;base64' in (tmp_path/'core.html').read_text()
