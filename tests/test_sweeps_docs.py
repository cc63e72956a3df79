"The README points at `benchnb sweep example`, whose plan is every family's example unit; the overhead benchmark script runs."
import json, subprocess, sys

import yaml

from benchnb.family import unit_kinds
from benchnb.sweeps.cli import example_plan


def test_readme_shows_how_to_get_the_example_plan(repo_root):
    assert 'benchnb sweep example' in (repo_root/'README.md').read_text(encoding='utf-8')
    units = yaml.safe_load(example_plan())['units']
    own = [n for n in unit_kinds.names() if unit_kinds[n].example and unit_kinds[n].family == n]
    assert [u['family'] for u in units] == own and {'cells', 'plism', 'translator'} <= set(own)
    assert all(u == {'family': u['family'], **unit_kinds[u['family']].example} for u in units)


def test_sweep_overhead_script_smoke(repo_root, tmp_path):
    out = tmp_path/'o.json'
    r = subprocess.run([sys.executable, str(repo_root/'benchmarks'/'sweep_overhead.py'), '--units', '4', '--seconds', '0.05', '--out', str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    d = json.loads(out.read_text())
    assert d['overhead']['units'] == 4 and d['overhead']['sweep_s'] >= 4 * 0.05
    assert [t['workers'] for t in d['throughput']] == [1, 2]
