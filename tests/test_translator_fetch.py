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

# --- a target that is down: one probe, nothing sent, exit 1 with one line naming the target and its URL (issue 19) ---

import http.server, socket, struct, threading

def _free_port() -> int:
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]

class _Resetter:
    "Accepts every connection, reads the request (if any), records its request line, then resets the connection."
    def __init__(self):
        self.sock = socket.create_server(('127.0.0.1', 0))
        self.url, self.requests = f"http://127.0.0.1:{self.sock.getsockname()[1]}/query", []
        threading.Thread(target=self._serve, daemon=True).start()
    def _serve(self):
        while True:
            try: conn, _ = self.sock.accept()
            except OSError: return                                  # closed: stop
            data = conn.recv(65536)
            if data: self.requests.append(' '.join(data.split(b'\r\n', 1)[0].decode().split()[:2]))   # 'GET /query'
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))   # close = RST
            conn.close()
    def close(self): self.sock.close()

class _Answers500(http.server.BaseHTTPRequestHandler):
    def _answer(self):
        self.server.seen.append(f"{self.command} {self.path}")
        self.rfile.read(int(self.headers.get('Content-Length') or 0))
        self.send_response(500); self.send_header('Content-Length', '6'); self.end_headers(); self.wfile.write(b'broken')
    do_GET = do_POST = do_HEAD = _answer
    def log_message(self, *a): pass

@pytest.fixture(params=['nothing-listening', 'accepts-then-resets', 'answers-500'])
def down(request):
    "(kind, URL, the request lines the target received)."
    if request.param == 'nothing-listening':
        yield request.param, f"http://127.0.0.1:{_free_port()}/query", []
    elif request.param == 'accepts-then-resets':
        srv = _Resetter(); yield request.param, srv.url, srv.requests; srv.close()
    else:
        httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Answers500); httpd.seen = []
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        yield request.param, f"http://127.0.0.1:{httpd.server_address[1]}/query", httpd.seen
        httpd.shutdown(); httpd.server_close()

def _error_line(stderr: str) -> str:
    "The one `benchnb: error` line, with no traceback."
    errs = [l for l in stderr.splitlines() if l.startswith(('benchnb: error', 'benchnb: internal'))]
    assert len(errs) == 1 and 'Traceback' not in stderr, stderr
    return errs[0]

COMMANDS = {'fetch': ['translator', 'fetch', 'GTRx', 'dead', '--concurrency', '1'],
            'run': ['translator', 'run', 'GTRx', 'dead', '--no-normalize', '--concurrency', '1'],
            'tests run': ['translator', 'tests', 'run', 'sprint_4_tests', 'dead', '--concurrency', '4']}

@pytest.mark.parametrize('command', list(COMMANDS))
def test_target_down_fails_fast_naming_it(tmp_path, down, command):
    kind, url, seen = down
    out = tmp_path/'verdicts.jsonl'
    args = COMMANDS[command] + ['--url', url, '--results', str(tmp_path/'res'), '--retries', '0']
    if command == 'tests run': args += ['--out', str(out)]
    r = subprocess.run(CMD + args, env=ENV, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, (r.returncode, r.stderr)
    line = _error_line(r.stderr)
    assert url in line and "target 'dead'" in line, line
    if kind != 'answers-500':                                      # unreachable: the probe stops it, nothing sent
        assert 'target is unreachable' in line and 'no query sent' in line, line
        assert not any(s.startswith('POST') for s in seen), seen
        assert seen == ([] if kind == 'nothing-listening' else ['GET /query']), seen     # one probe
        assert not list((tmp_path/'res').rglob('ledger.jsonl')) and not out.exists()
        return
    posts = [s for s in seen if s.startswith('POST')]
    assert seen[0] == 'GET /query'                                # probed once, first; a 500 is an answer
    # fetch and tests run alike stop once the first 5 all blame the target (issue 30: tests run sent all 36)
    assert 'target looks down: the first 5 queries all failed' in line and len(posts) < 10, (line, posts)

def test_sweep_unit_probes_the_target(tmp_path, down):
    "The sweep's translator unit fetches through `fetch_benchmark`: the same probe, the same error naming the target."
    from benchnb.translator.sweep import run_translator_unit
    from benchnb.core import RunError
    kind, url, seen = down
    unit = {'unit_id': 'u1', 'dataset': 'GTRx', 'model': 'dead',
            'options': {'k': 10, 'url': url, 'config': None, 'results': None, 'concurrency': 1}}
    with pytest.raises(RunError) as e: run_translator_unit(unit, str(tmp_path))
    assert url in str(e.value) and "target 'dead'" in str(e.value), str(e.value)
    posts = [s for s in seen if s.startswith('POST')]
    if kind == 'answers-500':        # the unit retries twice: 3 attempts for each of the 5 watched queries (+1 in flight)
        assert 'target looks down' in str(e.value) and len(posts) <= 3 * 6, posts            # not GTRx's 50 × 3
    else: assert 'no query sent' in str(e.value) and not posts and not list(tmp_path.rglob('ledger.jsonl'))
