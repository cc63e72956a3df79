"""Resource accounting of `translator fetch` + `translator evaluate` (issue 29): each records what it cost, measured by
the process itself, and `results import` carries both into the database's `resources` table as the unit's cost."""
import json, os, subprocess, sys
from pathlib import Path

from benchnb.translator.server import ReferenceServer

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, 'PYTHONPATH': str(ROOT), 'BENCHNB_PROGRESS': '0'}
CMD = [sys.executable, '-c', 'import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))']

def _run(*args):
    r = subprocess.run(CMD + [str(a) for a in args], env=ENV, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r

def _plausible(c):
    return c['wall_s'] > 0 and c['cpu_s'] >= 0 and c['peak_rss_mb'] > 0 and c['gpu_peak_mb'] is None

def test_fetch_and_evaluate_costs_reach_the_database(tmp_path):
    with ReferenceServer() as srv:
        _run('translator', 'fetch', 'GTRx', 'local', '--results', tmp_path, '--url', srv.url + '/query', '--run-id', 'r1')
    run_dir = tmp_path/'GTRx'/'local'/'r1'
    _run('translator', 'evaluate', 'GTRx', run_dir, '--k', '10', '--no-normalize')
    fetch = json.loads((run_dir/'manifest.json').read_text())['resources']     # the fetch's run manifest
    ev = json.loads((run_dir/'output.json').read_text())['resources']          # the evaluation, in its output
    assert _plausible(fetch) and _plausible(ev), (fetch, ev)
    _run('results', 'import', tmp_path/'db', run_dir)
    from benchnb.resultsdb.db import ResultsDB
    with ResultsDB(tmp_path/'db', read_only=True) as db: res = db.resources()
    assert len(res) == 1
    r = res.iloc[0]       # the unit's cost: both processes, seconds added, the larger peak
    assert abs(r.wall_s - (fetch['wall_s'] + ev['wall_s'])) < 1e-6 and abs(r.cpu_s - (fetch['cpu_s'] + ev['cpu_s'])) < 1e-6
    assert r.peak_rss_mb == max(fetch['peak_rss_mb'], ev['peak_rss_mb'])
