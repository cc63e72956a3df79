"The README's example plan is the one `benchnb sweep example` writes; the overhead benchmark script runs."
import json, subprocess, sys

from benchnb.sweeps.cli import EXAMPLE_PLAN


def test_readme_shows_the_example_plan(repo_root):
    assert EXAMPLE_PLAN in (repo_root/'README.md').read_text(encoding='utf-8')


def test_sweep_overhead_script_smoke(repo_root, tmp_path):
    out = tmp_path/'o.json'
    r = subprocess.run([sys.executable, str(repo_root/'benchmarks'/'sweep_overhead.py'), '--units', '4', '--seconds', '0.05', '--out', str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    d = json.loads(out.read_text())
    assert d['overhead']['units'] == 4 and d['overhead']['sweep_s'] >= 4 * 0.05
    assert [t['workers'] for t in d['throughput']] == [1, 2]
