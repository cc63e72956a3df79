"""Speed of `benchnb translator` fetching and evaluation.

1. Fetch all 664 shipped queries (10 benchmarks) from the reference TRAPI target (run as a separate
   `benchnb translator serve` process on loopback) with 0.5 s injected latency per query, at concurrency 5
   (the baseline: upstream's default semaphore) and 32, and at concurrency 1 on a subset (extrapolated to 664:
   at concurrency 1 the wall time is linear in the number of queries). Checks zero lost queries and exactly one
   server hit per query.
2. Evaluate 664 queries x 500 results each (synthetic TRAPI responses) at k = 20 and k = 500, in memory and
   from a run directory on disk (JSON loading included).

Usage: python benchmarks/translator_fetch.py [--latency 0.5] [--subset 5]
"""
import argparse, gc, json, os, socket, subprocess, sys, tempfile, time
from pathlib import Path

import requests

from benchnb.runs import write_json
from benchnb.translator.config import load_config
from benchnb.translator.evaluate import evaluate_responses, evaluate_results, synthetic_responses
from benchnb.translator.fetch import RetryPolicy, fetch_benchmark
from benchnb.translator.queries import build_queries, uid_filenames

def free_port() -> int:
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]

def start_server(latency: float):
    port = free_port()
    env = {**os.environ, 'PYTHONPATH': str(Path(__file__).resolve().parents[1])}
    p = subprocess.Popen([sys.executable, '-c', 'import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))',
                          'translator', 'serve', '--port', str(port), '--latency', str(latency)], env=env, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try: requests.get(url + '/benchnb/stats', timeout=1); return p, url
        except requests.RequestException: time.sleep(0.1)
    p.kill(); raise SystemExit('server did not start')

def fetch_all(url, concurrency, limit=None):
    cfg, root = load_config(), Path(tempfile.mkdtemp())
    hits0 = requests.get(url + '/benchnb/stats', timeout=5).json()['hits']
    t0, ok, failed, n = time.perf_counter(), 0, 0, 0
    for b in cfg.benchmarks:
        s = fetch_benchmark(b, 'reference', root, cfg, url=url + '/query', concurrency=concurrency, limit=limit,
                            policy=RetryPolicy(read_timeout=60), new=True)
        ok += s.counts['ok']; failed += s.counts['failed']; n += s.fetched
    wall = time.perf_counter() - t0
    hits = requests.get(url + '/benchnb/stats', timeout=5).json()['hits'] - hits0
    return {'concurrency': concurrency, 'queries': n, 'ok': ok, 'failed': failed, 'server_hits': hits, 'wall_s': round(wall, 2)}

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--latency', type=float, default=0.5)
    ap.add_argument('--subset', type=int, default=5, help='queries per benchmark for the concurrency-1 run')
    args = ap.parse_args()
    os.environ.setdefault('BENCHNB_PROGRESS', '0')
    proc, url = start_server(args.latency)
    try:
        rows = {c: fetch_all(url, c) for c in (5, 32)}
        one = fetch_all(url, 1, limit=args.subset)
    finally:
        proc.terminate(); proc.wait(10)
    one['extrapolated_wall_s_664'] = round(one['wall_s'] / one['queries'] * 664, 1)
    base = rows[5]['wall_s']
    print(f"fetch: 664 queries, {args.latency} s injected latency per query, reference target in its own process")
    print(f"  concurrency  1: {one['queries']} queries in {one['wall_s']} s -> {one['extrapolated_wall_s_664']} s for 664 (extrapolated)"
          f"  speed vs c=5: {base / one['extrapolated_wall_s_664']:.2f}x")
    for c, r in rows.items():
        lost = 664 - r['ok']
        print(f"  concurrency {c:2d}: {r['wall_s']} s, ok {r['ok']}, failed {r['failed']}, lost {lost}, server hits {r['server_hits']}"
              f"  speed vs c=5: {base / r['wall_s']:.2f}x")
        assert r['ok'] == 664 and r['server_hits'] == 664, r
    # evaluation speed
    cfg = load_config()
    qs = [q for b in cfg.benchmarks for q in build_queries(cfg, b)]
    resp = synthetic_responses(qs, 500)
    ev = {}
    for k in (20, 500):
        gc.collect()   # the first full cyclic-GC pass over ~5M fresh response objects (~1-1.5 s) belongs to whoever made them
        t0 = time.perf_counter(); evaluate_responses('all', qs, resp, k=k); ev[k] = time.perf_counter() - t0
    run = Path(tempfile.mkdtemp())/'run'; names = uid_filenames(resp)   # responses on disk: 664 files, ~60 MB
    for u, r in resp.items(): write_json(run/names[u], r, indent=None)
    del resp; gc.collect()
    t0 = time.perf_counter()
    for b in cfg.benchmarks: evaluate_results(b, run, 'synthetic', 20, cfg)
    disk = time.perf_counter() - t0
    print(f"evaluate: 664 queries x 500 results: k=20 {ev[20]:.2f} s, k=500 {ev[500]:.2f} s (in memory);"
          f" from a run directory incl. JSON loading, k=20: {disk:.2f} s")
    print(json.dumps({'fetch': {**{str(c): r for c, r in rows.items()}, '1': one},
                      'evaluate_s': {'k20': round(ev[20], 3), 'k500': round(ev[500], 3), 'k20_from_disk': round(disk, 3)}}))

if __name__ == '__main__':
    main()
