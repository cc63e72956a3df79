"""Time to first result (issue 30): `benchnb plism evaluate` on an empty numba cache vs warm, same run, fresh processes.

Each round runs the command twice with one fresh `NUMBA_CACHE_DIR` (the first run finds it empty: what a new user,
a fresh CI container or a Dask worker image meets; the second finds what the first left), alternating rounds so both
see the same load. Cases: the README's small case, 12 PLISM-format slides × 460 tiles (no kernel: numpy alone), and a
case whose blocks need the numba kernels (4 slides × 2,713 tiles), where `warm` also reports a run after
`benchnb.plism.kernel.warmup()` (what `benchnb warmup` does) on the empty cache.
Goal: cold within 3 s of warm for 12 × 460.

Usage: python benchmarks/plism_first_result.py [--rounds 3] [--cases 460 2713]
"""
from __future__ import annotations
import argparse, os, statistics, subprocess, sys, tempfile, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = {'460': 12, '2713': 4}          # n_tiles -> slides


def run(args: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, '-c', "import sys; from benchnb.cli import entry; entry(sys.argv[1:])", *args],
                   env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def warmup(env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, '-c', "from benchnb.plism.kernel import warmup; warmup()"], env=env, check=True)
    return time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--cases', nargs='+', default=list(CASES))
    a = ap.parse_args(argv)
    sys.path.insert(0, str(HERE))
    import plism_evaluate
    print(f"# load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for n_tiles in a.cases:
            feats = tmp/f'f{n_tiles}'
            plism_evaluate.synthetic_features(feats, CASES[n_tiles], 16278)
            args = ['plism', 'evaluate', '--extractor', 'bench', '--features-dir', str(feats), '--n-tiles', n_tiles,
                    '--overwrite', '--metrics-dir']
            base = {**os.environ, 'BENCHNB_PROGRESS': '0', 'PYTHONPYCACHEPREFIX': str(tmp/'pyc')}
            run(args + [str(tmp/'m')], {**base, 'NUMBA_CACHE_DIR': str(tmp/'nb-first')})   # page cache, bytecode
            cold, warm, after = [], [], []
            for r in range(a.rounds):
                env = {**base, 'NUMBA_CACHE_DIR': tempfile.mkdtemp(dir=tmp)}
                cold.append(run(args + [str(tmp/'m')], env))
                warm.append(run(args + [str(tmp/'m')], env))
                if n_tiles != '460':
                    env = {**base, 'NUMBA_CACHE_DIR': tempfile.mkdtemp(dir=tmp)}
                    w = warmup(env)
                    after.append((w, run(args + [str(tmp/'m')], env)))
            med = statistics.median
            line = (f"{CASES[n_tiles]} slides × {n_tiles} tiles: cold (empty numba cache) median {med(cold):.2f} s "
                    f"{sorted(round(x, 2) for x in cold)}, warm median {med(warm):.2f} s {sorted(round(x, 2) for x in warm)}, "
                    f"cold − warm {med(cold) - med(warm):+.2f} s")
            if after: line += (f"; warmup() {med(w for w, _ in after):.1f} s, then evaluate "
                               f"{med(x for _, x in after):.2f} s")
            print(line, flush=True)
    print(f"# load average after: {os.getloadavg()}")


if __name__ == '__main__':
    main()
