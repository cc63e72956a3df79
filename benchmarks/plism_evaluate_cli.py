"""`benchnb plism evaluate` from the command line, a fresh process per run: wall and CPU seconds (best, median).

The small case of issue 22: 12 PLISM-format features files of 16,278 rows x 768 (`plism_evaluate.synthetic_features`),
`--n-tiles 460 --overwrite`. With `--old TREE` (a checkout of another commit) the same command is also run with
PYTHONPATH=TREE, alternating with this tree's runs, so both see the same load. CPU = user + sys of the child (and of
its children: git). With `--plain`, the plain numpy definition (`plain_pair`: per pair S = G Gᵀ over the 2n tiles,
fp32, then counts; issue 15's yardstick) runs too, as a fresh process reading the same files, numpy only, on one
BLAS thread (on a shared machine, BLAS threads on small products cost it more than they give).

The command runs as the `benchnb` console script runs it (`benchnb.cli.entry`: `main`, then `os._exit`, no interpreter
teardown). Sections of RESULTS-plism.md before 2026-11-26 13:00 ran `sys.exit(main(...))`, which also paid the
teardown (~0.2 CPU-s at 12 × 460) and compiled benchnb's sources on every run (below).

Every child gets its own `PYTHONPYCACHEPREFIX` (bytecode written once, outside the trees, as an installed package has
it) and no `PYTHONDONTWRITEBYTECODE`: with that variable set (as in this environment), every run compiled benchnb's
sources again, ~0.1 CPU-s that a user does not pay.

Usage: python benchmarks/plism_evaluate_cli.py [--runs 7] [--old /path/to/old/checkout] [--features-dir DIR] [--plain]
"""
from __future__ import annotations
import argparse, os, resource, statistics, subprocess, sys, tempfile, time
from pathlib import Path

HERE = Path(__file__).resolve().parent

PLAIN = r'''
import sys, numpy as np
rows, files = np.load(sys.argv[1]), sys.argv[2:]
feats = [np.load(f, mmap_mode='r')[rows, 3:].astype(np.float32) for f in files]
from plism_plain import plain_pair     # numpy only; this folder is the child's working directory
out = [list(plain_pair(feats[i], feats[j]).values()) for i in range(len(feats)) for j in range(i + 1, len(feats))]
print(len(out), sum(map(sum, out)))
'''


def child_env(tree: Path|None, pycache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONDONTWRITEBYTECODE'}
    env.update(BENCHNB_PROGRESS='0', PYTHONPYCACHEPREFIX=str(pycache))
    if tree is not None: env['PYTHONPATH'] = str(tree)
    return env


def timed(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    "(wall, CPU) seconds of one child process."
    before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True, cwd=cwd)
    wall, after = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def one_run(tree: Path, features: Path, metrics: Path, n_tiles: str, pycache: Path) -> tuple[float, float]:
    "(wall, CPU) seconds of one `benchnb plism evaluate` in a fresh interpreter importing benchnb from `tree`."
    code = "import sys; from benchnb.cli import entry; entry(sys.argv[1:])"     # what the `benchnb` script runs
    args = ['plism', 'evaluate', '--extractor', 'bench', '--features-dir', str(features), '--metrics-dir', str(metrics),
            '--n-tiles', n_tiles, '--overwrite']
    return timed([sys.executable, '-c', code, *args], child_env(tree, pycache), tree)


def plain_run(rows: Path, features: Path, pycache: Path) -> tuple[float, float]:
    "(wall, CPU) seconds of the plain numpy definition over every pair of the slides in `features`/bench."
    files = sorted(str(p) for p in (features/'bench').glob('*/features.npy'))
    env = {**child_env(None, pycache), 'OPENBLAS_NUM_THREADS': '1', 'OMP_NUM_THREADS': '1', 'MKL_NUM_THREADS': '1'}
    return timed([sys.executable, '-c', PLAIN, str(rows), *files], env, HERE)


def summary(v: list[tuple[float, float]]) -> str:
    w, c = sorted(x[0] for x in v), sorted(x[1] for x in v)
    return (f"wall best {w[0]:.2f} s median {statistics.median(w):.2f} s | "
            f"CPU best {c[0]:.2f} s median {statistics.median(c):.2f} s")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--runs', type=int, default=7)
    ap.add_argument('--old', type=Path, default=None, help='another checkout to compare with, runs interleaved')
    ap.add_argument('--features-dir', type=Path, default=None, help='reuse features (<dir>/bench/<slide>/features.npy)')
    ap.add_argument('--n-tiles', default='460')
    ap.add_argument('--plain', action='store_true', help='also time the plain numpy definition (fresh processes)')
    args = ap.parse_args(argv)
    trees = {'this': HERE.parent, **({'old': args.old.resolve()} if args.old else {})}
    print(f"# load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp, features = Path(tmp), args.features_dir
        pycache = tmp/'pycache'
        if features is None:
            sys.path.insert(0, str(HERE))
            import plism_evaluate
            features = tmp/'features'
            plism_evaluate.synthetic_features(features, 12, 16278)
        if args.plain:
            sys.path.insert(0, str(HERE.parent))
            import numpy as np
            from benchnb.plism.data import tile_subset
            np.save(tmp/'rows.npy', tile_subset(args.n_tiles, 16278))
            trees['plain'] = None
        for k, tree in trees.items():                                 # warm the page cache and the bytecode
            if tree is None: plain_run(tmp/'rows.npy', features, pycache)
            else: one_run(tree, features, tmp/'m', args.n_tiles, pycache)
        res = {k: [] for k in trees}
        for i in range(args.runs):
            for k in (list(trees) if i % 2 == 0 else list(trees)[::-1]):
                res[k].append(plain_run(tmp/'rows.npy', features, pycache) if trees[k] is None else
                              one_run(trees[k], features, tmp/f'm-{k}', args.n_tiles, pycache))
    print(f"# {args.runs} runs each, load average after: {os.getloadavg()}")
    for k, v in res.items(): print(f"{k:5s} ({trees[k] or 'numpy only, 1 BLAS thread'}): {summary(v)}")
    if args.plain:
        med = lambda k, i: statistics.median(x[i] for x in res[k])
        print(f"plain / this, medians: wall ×{med('plain', 0) / med('this', 0):.2f}, "
              f"CPU ×{med('plain', 1) / med('this', 1):.2f}")


if __name__ == '__main__':
    main()
