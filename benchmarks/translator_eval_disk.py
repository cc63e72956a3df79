"""Speed and memory of evaluating a run directory from disk: 664 queries x 500 results (~80 MB of JSON).

Writes synthetic TRAPI responses for all 664 shipped queries (one JSON file each) into a temporary run directory,
then evaluates all 10 benchmarks from it at k = 20, each variant in a fresh Python process (so peak memory is the
variant's own), `--repeat` times, alternating:

  eager   the previous loader (the baseline): every response of a benchmark parsed into one dict, then evaluated
  stream  `evaluate_results` as shipped: `ResponseFiles` reads and parses each response when the evaluator asks,
          keeping nothing (one response in memory at a time)

Both must give identical hits. Prints best/median wall time, the speed ratio and peak RSS.
Usage: python benchmarks/translator_eval_disk.py [--repeat 5] [--k 20]
"""
import argparse, hashlib, json, os, resource, statistics, subprocess, sys, tempfile, time
from pathlib import Path

def child(variant: str, run: Path, k: int) -> dict:
    from benchnb.translator.config import load_config
    from benchnb.translator.evaluate import evaluate_responses, evaluate_results, make_normalizer, paused_gc
    from benchnb.translator.queries import build_queries, uid_filenames
    cfg = load_config()
    h = hashlib.sha1()
    t0 = time.perf_counter()
    for b in cfg.benchmarks:
        if variant == 'stream': ev = evaluate_results(b, run, 'synthetic', k, cfg)[0]
        else:
            qs = build_queries(cfg, b); names, out = uid_filenames([q.uid for q in qs]), {}
            with paused_gc():                        # exactly the previous load_responses loop
                for q in qs:
                    p = run/names[q.uid]
                    if p.is_file(): out[q.uid] = json.loads(p.read_text(encoding='utf-8'))
            ev = evaluate_responses(b, qs, out, 'synthetic', make_normalizer(qs), k=k)
            del out
        h.update(ev.hits.tobytes())
    wall = time.perf_counter() - t0
    return {'variant': variant, 'wall_s': wall, 'peak_rss_mb': peak_rss_mb(), 'hits_sha1': h.hexdigest()}

def peak_rss_mb() -> float:
    "This process's peak resident memory (VmHWM; unlike ru_maxrss it is not inherited from the parent across exec)."
    try:
        for line in Path('/proc/self/status').read_text().splitlines():
            if line.startswith('VmHWM:'): return int(line.split()[1]) / 1024
    except OSError: pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--repeat', type=int, default=5)
    ap.add_argument('--k', type=int, default=20)
    ap.add_argument('--child', nargs=2, metavar=('VARIANT', 'RUN_DIR'))
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]), args.k))); return
    from benchnb.runs import write_json
    from benchnb.translator.config import load_config
    from benchnb.translator.evaluate import synthetic_responses
    from benchnb.translator.queries import build_queries, uid_filenames
    cfg = load_config()
    qs = [q for b in cfg.benchmarks for q in build_queries(cfg, b)]
    run = Path(tempfile.mkdtemp())/'run'
    resp = synthetic_responses(qs, 500); names = uid_filenames(resp)
    for u, r in resp.items(): write_json(run/names[u], r, indent=None)
    del resp
    mb = sum(p.stat().st_size for p in run.iterdir()) / 2**20
    env = {**os.environ, 'PYTHONPATH': str(Path(__file__).resolve().parents[1]), 'BENCHNB_PROGRESS': '0'}
    res = {'eager': [], 'stream': []}
    for _ in range(args.repeat):
        for v in res:
            p = subprocess.run([sys.executable, __file__, '--k', str(args.k), '--child', v, str(run)], env=env, capture_output=True, text=True, check=True)
            res[v].append(json.loads(p.stdout.strip().splitlines()[-1]))
    assert len({r['hits_sha1'] for rs in res.values() for r in rs}) == 1, 'variants disagree'
    summary = {v: {'best_s': round(min(r['wall_s'] for r in rs), 3), 'median_s': round(statistics.median(r['wall_s'] for r in rs), 3),
                   'peak_rss_mb': round(statistics.median(r['peak_rss_mb'] for r in rs))} for v, rs in res.items()}
    e, s = summary['eager'], summary['stream']
    print(f"evaluate from disk: 664 queries x 500 results ({mb:.0f} MB in {len(names)} files), k={args.k}, {args.repeat} fresh processes per variant")
    for v, r in summary.items(): print(f"  {v:6s}: best {r['best_s']:.2f} s, median {r['median_s']:.2f} s, peak RSS {r['peak_rss_mb']} MB")
    print(f"  speed-up (stream vs eager): best {e['best_s'] / s['best_s']:.2f}x, median {e['median_s'] / s['median_s']:.2f}x; identical hits")
    print(json.dumps(summary))

if __name__ == '__main__':
    main()
