"""Memory of the reference server under a long burst of async queries and ARS submissions (the job stores are bounded).

    python benchmarks/translator_server_burst.py [--n 3000]

Starts the reference server in this process on the demo KG, sends N asynchronous queries and N ARS submissions
(a `treats` query, callbacks off), and prints the process RSS and the store sizes every N/5 rounds.
"""
import argparse, os, time

import requests


def rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith('VmRSS')) / 1024


def main(n: int):
    from benchnb.translator.config import load_config
    from benchnb.translator.queries import build_queries
    from benchnb.translator.server import ReferenceServer
    body = build_queries(load_config(), 'three_hop')[0].message
    with ReferenceServer(async_callback=False, async_delay=0.0, ars_delay=0.0) as srv, requests.Session() as s:
        print(f"start: RSS {rss_mb():.0f} MB")
        t0 = time.time()
        for i in range(1, n + 1):
            s.post(srv.url + '/asyncquery', json={**body, 'callback': 'http://127.0.0.1:9/cb'}, timeout=30).raise_for_status()
            s.post(srv.url + '/ars/api/submit', json=body, timeout=30).raise_for_status()
            if i % (n // 5) == 0:
                jobs, ars = len(srv.state.jobs), len(srv.state.ars)
                print(f"{i:6d} async + {i} ARS: RSS {rss_mb():.0f} MB, stored jobs {jobs}, ARS messages {ars} ({time.time() - t0:.0f} s)")


if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--n', type=int, default=3000)
    main(ap.parse_args().n)
