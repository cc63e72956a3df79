"Benchmark scripts stay runnable: the cells suite on a tiny synthetic set (its JSON report and its values)."
import json, os, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip('scanpy')


def test_cells_suite_smoke(tmp_path):
    out = tmp_path / 'suite.json'
    r = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'cells_suite.py'), '--n', '900', '--tasks', 'embedding,batch_integration',
                        '--reference', '--json', str(out)], capture_output=True, text=True, timeout=600,
                       env={**os.environ, 'BENCHNB_PROGRESS': '0'})
    assert r.returncode == 0, r.stderr[-2000:]
    rows = json.loads(out.read_text())
    assert [x['task'] for x in rows] == ['embedding', 'batch_integration']
    for x in rows:                     # the reference calls (sklearn) give the same values at this size
        assert x['max_abs_diff'] < 1e-9, x
    assert 'TOTAL ours n=900' in r.stdout


def test_plism_cpu_limit_smoke():
    "The PLISM CPU benchmark runs and finds benchnb's top-k values identical to the plain definition's."
    r = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'plism_cpu_limit.py'), '--slides', '3', '--cases', '460',
                        '--threads', '1', '--cpu-time'], capture_output=True, text=True, timeout=600,
                       env={**os.environ, 'BENCHNB_PROGRESS': '0'})
    assert r.returncode == 0, r.stderr[-2000:]
    assert 'top-k values differing: 0 of 12' in r.stdout, r.stdout
