"""PLISM evaluation: this tree's `compute_metrics` against another commit's, in ONE process, runs interleaved.

The other checkout's `benchnb` package is copied to a temporary folder as `benchnb_old` (its modules import each
other relatively), so both versions run on the same features, in the same process and under the same load; the
metrics files are compared. Process CPU seconds (robust to other load) and wall seconds, best and median.
`--threads 1` limits BLAS and numba threads for both (numba's count is per thread: 95c86ea's pair threads ignored it).

Usage: python benchmarks/plism_versions.py --old /path/to/checkout [--cases 2713 8139] [--slides 4] [--reps 4]
"""
from __future__ import annotations
import argparse, logging, os, shutil, statistics, sys, tempfile, time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load_old(old: Path, tmp: Path):
    "The other checkout's benchnb.plism.evaluate, imported as benchnb_old (its config folder beside it)."
    shutil.copytree(old/'benchnb', tmp/'benchnb_old', ignore=shutil.ignore_patterns('__pycache__'))
    (tmp/'config').symlink_to(old/'config')
    sys.path.insert(0, str(tmp))
    import benchnb_old.plism.evaluate as old_evaluate
    return old_evaluate


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--old', type=Path, required=True)
    ap.add_argument('--cases', type=int, nargs='+', default=[2713, 8139])
    ap.add_argument('--slides', type=int, default=4)
    ap.add_argument('--reps', type=int, default=4)
    ap.add_argument('--threads', type=int, default=None)
    args = ap.parse_args(argv)
    os.environ['BENCHNB_PROGRESS'] = '0'
    if args.threads:
        import numba
        from threadpoolctl import threadpool_limits
        threadpool_limits(args.threads); numba.set_num_threads(args.threads)
    sys.path.insert(0, str(HERE))
    import plism_evaluate
    import benchnb.plism.evaluate as new_evaluate
    logging.getLogger('benchnb').setLevel(logging.ERROR)      # the subset-run warning, once per call
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        versions = {'old': load_old(args.old.resolve(), tmp), 'new': new_evaluate}
        plism_evaluate.synthetic_features(tmp/'features', args.slides, 16278)
        for m in versions.values(): m.compute_metrics(tmp/'features', tmp/'warm', 'bench', n_tiles=460, overwrite=True)
        print(f"# {args.slides} slides, threads {args.threads or 'all'}, reps {args.reps}; load {os.getloadavg()}")
        for n in args.cases:
            res, files = {k: [] for k in versions}, set()
            for r in range(args.reps):
                for k in (list(versions) if r % 2 == 0 else list(versions)[::-1]):
                    c0, w0 = time.process_time(), time.perf_counter()
                    out = versions[k].compute_metrics(tmp/'features', tmp/k, 'bench', n_tiles=n, overwrite=True)
                    res[k].append((time.process_time() - c0, time.perf_counter() - w0))
                    files.add((out/'metrics.csv').read_text())
            for k, v in res.items():
                c, w = sorted(x[0] for x in v), sorted(x[1] for x in v)
                print(f"{n:5d} tiles {k}: CPU best {c[0]:.2f} s median {statistics.median(c):.2f} s | "
                      f"wall best {w[0]:.2f} s median {statistics.median(w):.2f} s  (CPU {[round(x, 2) for x in c]})")
            print(f"      metrics.csv identical in every run: {len(files) == 1}; load {os.getloadavg()}")


if __name__ == '__main__':
    main()
