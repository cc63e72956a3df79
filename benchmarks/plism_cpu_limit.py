"""PLISM on the CPU at its limit: benchnb's `compute_metrics` vs a plain numpy fp32 implementation of the definition.

The plain version (issue 15's yardstick) does, per pair: normalise A and B in fp32, G = [A; B], S = G Gᵀ (2n × 2n),
rank of the twin = #{j ∉ {i, twin(i)} : S[i, j] > S[i, twin(i)]}. benchnb computes each slide's self term once
for all partners and counts without sorting. Both read the same features.npy files from disk, in one run, and
every value is compared (they must be identical: same fp32 similarities, same strict '>').

Also measured: the GEMM floor (the fp32 products both must compute at least once: one n × n self product per slide
and one n × n cross product per pair) on this machine, and the full-scale 91 × 8139 × 768 figure extrapolated from
measured per-slide and per-pair costs.

Usage: python benchmarks/plism_cpu_limit.py [--cases 460 2713 8139] [--slides 12] [--full]
"""
from __future__ import annotations
import argparse, platform, tempfile, time
from pathlib import Path

import numpy as np
import pandas as pd

import plism_evaluate      # the same synthetic PLISM features as the evaluate benchmark (this folder)
from plism_plain import plain_pair   # the definition in numpy only (this folder)

from benchnb.plism.data import N_TILES_PER_SLIDE, features_path, tile_subset
from benchnb.plism.evaluate import compute_metrics
from benchnb.plism.kernel import cross_counts, hard_slides, l2_normalize, make_backend, self_counts, twin_ranks


def synthetic_features(root: Path, n_slides: int, n: int = N_TILES_PER_SLIDE) -> list[str]:
    "n_slides PLISM-format features.npy files (extractor 'bench') of n registered tiles (all 16,278 by default)."
    return plism_evaluate.synthetic_features(root, n_slides, n)


CPU_TIME = False


def warm_numba_kernels():
    "Compile (or load from numba's cache) all four counting kernels: small runs no longer touch numba, large do."
    from benchnb.plism.kernel import _kernels
    k = _kernels()
    g, th, t = np.zeros((4, 8), np.float32), np.zeros((4, 2), np.float32), np.zeros(8, np.float32)
    for f in (k.self_serial, k.self_parallel): f(g, 0, th, np.empty((4, 2), np.int32))
    for f in (k.cross_serial, k.cross_parallel): f(g, 0, t, np.empty(4, np.int32), np.zeros((1, 8), np.int32))

def clock() -> float:
    "Seconds of CPU used by this process (all threads): robust to other processes loading the machine."
    return time.process_time() if CPU_TIME else time.perf_counter()


def time_plain(root: Path, ids: list[str], n: int) -> tuple[float, pd.DataFrame]:
    t0, rows, sub = clock(), [], tile_subset(n)
    feats = {s: np.load(features_path(root, 'bench', s), mmap_mode='r')[sub, 3:].astype(np.float32) for s in ids}
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            rows.append({'slide_a': a, 'slide_b': b, **plain_pair(feats[a], feats[b])})
    return clock() - t0, pd.DataFrame(rows).set_index(['slide_a', 'slide_b'])


def time_ours(root: Path, out: Path, n: int) -> tuple[float, pd.DataFrame]:
    t0 = clock()
    compute_metrics(root, out, 'bench', n_tiles=n, overwrite=True)
    dt = clock() - t0
    return dt, pd.read_csv(out/f'{n}_tiles'/'bench'/'metrics.csv').set_index(['slide_a', 'slide_b'])


def gemm_floor(x: np.ndarray, reps: int = 2) -> float:
    "Seconds of one n × n fp32 product x xᵀ (best of reps)."
    best = np.inf
    y = x.copy()                     # x @ x.T would take BLAS's symmetric (half-cost) path
    for _ in range(reps):
        t0 = clock(); x @ y.T; best = min(best, clock() - t0)
    return best


def kernel_parts(root: Path, ids: list[str], n: int, partners: int = 90) -> dict:
    "Measured per-slide (load + normalise + self term for `partners` thresholds) and per-pair (cross term) seconds."
    be = make_backend('numpy')
    sub = tile_subset(n)
    x = [l2_normalize(np.load(features_path(root, 'bench', s))[sub, 3:]) for s in ids[:3]]
    th = np.repeat((x[0] * x[1]).sum(1, keepdims=True), partners, 1) + np.linspace(-.05, .05, partners, dtype=np.float32)
    t0 = clock(); self_counts(be, x[0], th); t_self = clock() - t0
    t0 = clock(); cross_counts(be, x[0], x[1], (x[0] * x[1]).sum(1)); t_cross = clock() - t0
    t0 = clock(); l2_normalize(np.load(features_path(root, 'bench', ids[2]))[sub, 3:]); t_load = clock() - t0
    return dict(n=n, self=t_self, cross=t_cross, load=t_load, gemm=gemm_floor(x[0]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--cases', nargs='+', type=int, default=[460, 2713, 8139])
    ap.add_argument('--slides', type=int, default=12)
    ap.add_argument('--full', action='store_true', help='extrapolate 91 × 8139 × 768 from measured parts')
    ap.add_argument('--threads', type=int, default=None,
                    help='BLAS and numba threads for both sides (1 gives fair ratios on a machine loaded by others)')
    ap.add_argument('--cpu-time', action='store_true', help='report process CPU seconds instead of wall seconds')
    args = ap.parse_args(argv)
    global CPU_TIME
    CPU_TIME = args.cpu_time
    if args.threads:
        import numba
        from threadpoolctl import threadpool_limits
        threadpool_limits(args.threads); numba.set_num_threads(args.threads)
    print(f"# {platform.node()} {platform.processor() or platform.machine()}, numpy {np.__version__}, "
          f"{'CPU' if CPU_TIME else 'wall'} seconds, threads {args.threads or 'all'}")
    t0 = time.perf_counter()
    list(twin_ranks(hard_slides(), [('s0', 's1')]))
    warm_numba_kernels()
    print(f"warm-up (numba kernels compiled, or loaded from their cache): {time.perf_counter() - t0:.2f} s")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)/'features'
        ids = synthetic_features(root, args.slides)
        for n in args.cases:
            t_plain, plain = time_plain(root, ids, n)
            t_ours, ours = time_ours(root, Path(tmp)/f'm{n}', n)
            acc = [c for c in plain.columns if c.startswith('top_')]
            n_diff = int((ours.loc[plain.index, acc] != plain[acc]).to_numpy().sum())
            d_cos = (ours.loc[plain.index, 'cosine_similarity'] - plain['cosine_similarity']).abs().max()
            print(f"{args.slides} slides × {n} tiles ({len(plain)} pairs): plain {t_plain:.2f} s, benchnb {t_ours:.2f} s "
                  f"→ ×{t_plain / t_ours:.2f}; top-k values differing: {n_diff} of {len(plain) * len(acc)}; "
                  f"max |Δcosine| = {d_cos:.1e}")
            if args.full and n == max(args.cases):
                p = kernel_parts(root, ids, n)
                floor = 91 * p['gemm'] + 4095 * p['gemm']
                est = 91 * (p['load'] + p['self']) + 4095 * p['cross']
                print(f"full scale 91 × {n} (extrapolated): self {p['self']:.2f} s/slide, cross {p['cross']:.2f} s/pair, "
                      f"load {p['load']:.2f} s/slide → {est / 3600:.2f} h; GEMM floor {floor / 3600:.2f} h "
                      f"({p['gemm']:.2f} s per n × n product) → ×{est / floor:.2f} of the floor")


if __name__ == '__main__':
    main()
