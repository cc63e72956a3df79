"""`benchnb plism evaluate` from the command line, a fresh process per run: wall and CPU seconds (best, median).

The small case of issue 22: 12 PLISM-format features files of 16,278 rows x 768 (`plism_evaluate.synthetic_features`),
`--n-tiles 460 --overwrite`. With `--old TREE` (a checkout of another commit) the same command is also run with
PYTHONPATH=TREE, alternating with this tree's runs, so both see the same load. CPU = user + sys of the child.

Usage: python benchmarks/plism_evaluate_cli.py [--runs 7] [--old /path/to/old/checkout] [--features-dir DIR]
"""
from __future__ import annotations
import argparse, os, resource, statistics, subprocess, sys, tempfile, time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def one_run(tree: Path, features: Path, metrics: Path, n_tiles: str) -> tuple[float, float]:
    "(wall, CPU) seconds of one `benchnb plism evaluate` in a fresh interpreter importing benchnb from `tree`."
    env = {**os.environ, 'PYTHONPATH': str(tree), 'BENCHNB_PROGRESS': '0'}
    code = "import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))"
    args = ['plism', 'evaluate', '--extractor', 'bench', '--features-dir', str(features), '--metrics-dir', str(metrics),
            '--n-tiles', n_tiles, '--overwrite']
    before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([sys.executable, '-c', code, *args], env=env, check=True, capture_output=True, cwd=tree)  # not ours
    wall, after = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--runs', type=int, default=7)
    ap.add_argument('--old', type=Path, default=None, help='another checkout to compare with, runs interleaved')
    ap.add_argument('--features-dir', type=Path, default=None, help='reuse features (<dir>/bench/<slide>/features.npy)')
    ap.add_argument('--n-tiles', default='460')
    args = ap.parse_args(argv)
    trees = {'this': HERE.parent, **({'old': args.old.resolve()} if args.old else {})}
    with tempfile.TemporaryDirectory() as tmp:
        features = args.features_dir
        if features is None:
            sys.path.insert(0, str(HERE))
            import plism_evaluate
            features = Path(tmp)/'features'
            plism_evaluate.synthetic_features(features, 12, 16278)
        for tree in trees.values(): one_run(tree, features, Path(tmp)/'m', args.n_tiles)     # warm the page cache
        res = {k: [] for k in trees}
        for i in range(args.runs):
            for k in (list(trees) if i % 2 == 0 else list(trees)[::-1]):
                res[k].append(one_run(trees[k], features, Path(tmp)/f'm-{k}', args.n_tiles))
    print(f"# {args.runs} runs each, load average before/after: {os.getloadavg()}")
    for k, v in res.items():
        w, c = sorted(x[0] for x in v), sorted(x[1] for x in v)
        print(f"{k:5s} ({trees[k]}): wall best {w[0]:.2f} s median {statistics.median(w):.2f} s | "
              f"CPU best {c[0]:.2f} s median {statistics.median(c):.2f} s")


if __name__ == '__main__':
    main()
