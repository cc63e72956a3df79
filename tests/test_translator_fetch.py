"Reliability of `benchnb translator fetch` against the reference TRAPI target on loopback."
import json, os, signal, subprocess, sys, time
from pathlib import Path

import pytest

from benchnb.runs import Ledger
from benchnb.translator.fetch import RetryPolicy, fetch_benchmark
from benchnb.translator.server import Faults, ReferenceServer

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, 'PYTHONPATH': str(ROOT), 'BENCHNB_PROGRESS': '0'}
CMD = [sys.executable, '-c', 'import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))']

@pytest.fixture
def server():
    with ReferenceServer(faults=Faults(latency=0.1)) as srv: yield srv

def test_killed_run_resumes_without_loss_or_refetch(server, tmp_path):
    args = ['translator', 'fetch', 'GTRx', 'local', '--results', str(tmp_path), '--url', server.url + '/query',
            '--concurrency', '2', '--run-id', 'r1']
    run_dir = tmp_path/'GTRx'/'local'/'r1'
    p = subprocess.Popen(CMD + args, env=ENV, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t0 = time.time()
    while len(list(run_dir.glob('*%3A*.json'))) < 10:
        assert time.time() - t0 < 60 and p.poll() is None, 'fetch ended before it could be killed'
        time.sleep(0.05)
    p.send_signal(signal.SIGKILL); p.wait()
    stored_at_kill = {f.name for f in run_dir.glob('*%3A*.json')}
    hits_at_kill = server.state.hits
    assert 10 <= len(stored_at_kill) < 50
    assert not list(run_dir.glob('.*.tmp'))                       # atomic writes: no half-written response left
    done = subprocess.run(CMD + args, env=ENV, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(run_dir)
    assert '50/50 ok, 0 failed' in done.stderr
    files = {f.name for f in run_dir.glob('*%3A*.json')}
    assert len(files) == 50                                       # no query lost
    assert Ledger(run_dir/'ledger.jsonl').counts() == {'ok': 50, 'failed': 0}
    # none fetched twice: every response stored before the kill was requested exactly once; only the <= 2
    # requests in flight at the kill (sent, answer never stored) may have been sent again
    by_query = server.state.by_query
    assert len(by_query) == 50
    twice = [k for k, n in by_query.items() if n > 1]
    assert len(twice) <= 2 and max(by_query.values()) <= 2
    assert server.state.hits <= 50 + 2
    assert hits_at_kill - len(stored_at_kill) <= 2
    manifest = json.loads((run_dir/'manifest.json').read_text())
    assert manifest['status'] == 'ok' and manifest['attempts'] == 2

def test_random_faults_lose_nothing(tmp_path):
    faults = Faults(error_rate=0.15, rate_limit_rate=0.1, garbage_rate=0.1, timeout_rate=0.05, retry_after=0.05, hang=3, seed=3)
    policy = RetryPolicy(retries=8, backoff=0.01, max_backoff=0.05, read_timeout=1.5)
    with ReferenceServer(faults=faults) as srv:
        s = fetch_benchmark('OOPD', 'local', tmp_path, url=srv.url + '/query', policy=policy, concurrency=8)
        stats = srv.state.stats()
    assert s.counts == {'ok': 50, 'failed': 0, 'queries': 50}
    assert set(stats['faults']) == {'500', '429', 'garbage', 'timeout'}
    assert stats['hits'] == 50 + sum(stats['faults'].values())    # one retry per injected fault, no more
    attempts = [r['attempts'] for r in Ledger(s.run_dir/'ledger.jsonl').latest().values()]
    assert max(attempts) > 1

@pytest.mark.parametrize('kind', ['413', '501'])
def test_not_retried_and_never_stored(tmp_path, kind):
    with ReferenceServer(faults=Faults(fail_first=99, fail_kind=kind)) as srv:
        p = subprocess.run(CMD + ['translator', 'fetch', 'DrugCentral_subset', 'local', '--results', str(tmp_path), '--url',
                                  srv.url + '/query', '--backoff', '0.01'], env=ENV, cwd=ROOT, capture_output=True, text=True, timeout=60)
        hits = srv.state.hits
    assert p.returncode == 1 and '0/5 ok, 5 failed' in p.stderr       # nothing fetched: an error (issue 11: exit statuses)
    assert p.stderr.splitlines()[-1].endswith('no query fetched: all 5 attempted failed (reasons above; --retry-failed retries them)')
    run_dir = Path(p.stdout.strip())
    assert hits == 5                                              # one attempt each
    assert not list(run_dir.glob('*%3A*.json'))                   # failures are never stored as responses
    recs = Ledger(run_dir/'ledger.jsonl').latest().values()
    assert {(r['status'], r['http_status'], r['attempts']) for r in recs} == {('failed', int(kind), 1)}
