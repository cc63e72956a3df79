"""PLISM evaluate: benchnb's rank kernel vs a naive implementation of upstream plismbench's algorithm, in one run.

Cases (synthetic features, d = 768, registered tiles = shared base + slide effect + noise, row norms ≈ 30 so
upstream's fp16 path does not overflow):
  small  12 slides × 460 tiles  (66 pairs): ours end to end from features.npy on disk vs upstream on every pair
  big    91 slides × 2713 tiles (4,095 pairs): ours end to end from disk; upstream timed on a sample of pairs and
         extrapolated (its fp16 numpy matmul has no BLAS: minutes per pair)
  full   91 slides × 8139 tiles: extrapolated from measured per-slide (load + self term) and per-pair (cross term) costs
GPU: `--device cuda` runs ours end to end at full scale on torch CUDA (not measurable on the 2-core CPU VM).
  torch  ours with the torch backend (all slides resident on the device, many pairs per launch) end to end from
         disk, against plismbench's algorithm redone in torch on the same device (fp16 2n × 2n cosine matrix +
         top-k per row, features already on the device: compute only), every pair or a sample;
         `--torch-case 12 460` sets slides × tiles (full scale on a GPU: 91 8139 from 16,278-row files)

Usage: python benchmarks/plism_evaluate.py [--cases small big full] [--upstream-sample 2] [--device cpu|cuda]
"""
from __future__ import annotations
import argparse, os, platform, shutil, sys, tempfile, time
from pathlib import Path

import numpy as np

from benchnb.plism.data import features_path, official_slide_ids, write_features
from benchnb.plism.evaluate import compute_metrics, load_normalized
from benchnb.plism.kernel import cross_counts, l2_normalize, make_backend, self_counts, upstream_pair_metrics


def synthetic_features(root: Path, n_slides: int, n: int, d: int = 768, seed: int = 0) -> list[str]:
    "Write n_slides features.npy files (extractor 'bench') of n registered tiles; return the slide ids."
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n, d)).astype(np.float32)
    coords = np.stack([np.full(n, 16), np.arange(n) // 100, np.arange(n) % 100], 1).astype(np.float32)
    ids = official_slide_ids()[:n_slides]
    for sid in ids:
        shift = rng.normal(scale=0.3, size=(1, d)).astype(np.float32)
        noise = rng.normal(scale=rng.uniform(0.4, 1.2), size=(n, d)).astype(np.float32)
        write_features(features_path(root, 'bench', sid), coords, base + shift + noise)
    return ids


def load_raw(root: Path, sid: str) -> np.ndarray:
    return np.load(features_path(root, 'bench', sid))[:, 3:]


def time_ours(root: Path, out: Path, device: str, workers: int) -> float:
    t0 = time.perf_counter()
    compute_metrics(root, out, 'bench', n_tiles='all', device=device, workers=workers, overwrite=True)
    return time.perf_counter() - t0


def time_upstream(root: Path, pairs: list[tuple[str, str]]) -> tuple[float, list]:
    "Seconds per pair of the upstream algorithm (features loaded from disk, as upstream does), and its outputs."
    outs, t0 = [], time.perf_counter()
    for a, b in pairs: outs.append(upstream_pair_metrics(load_raw(root, a), load_raw(root, b)))
    return (time.perf_counter() - t0) / len(pairs), outs


def agreement(out: Path, n: int, pairs, ups) -> str:
    import pandas as pd
    m = pd.read_csv(out/f'{n}_tiles'/'bench'/'metrics.csv').set_index(['slide_a', 'slide_b'])
    dc = max(abs(m.loc[p, 'cosine_similarity'] - u[0]) for p, u in zip(pairs, ups))
    dk = max(abs(m.loc[p, f'top_{k}_accuracy'] - v) for p, u in zip(pairs, ups) for k, v in zip((1, 3, 5, 10), u[1]))
    return f"agreement with upstream on {len(pairs)} pair(s): |Δcosine| ≤ {dc:.1e}, |Δtop-k| ≤ {dk:.4f} (= {dk * 2 * n:.0f} of {2 * n} queries)"


def case(name: str, n_slides: int, n: int, sample: int | None, device: str, workers: int, tmp: Path) -> dict:
    root, out = tmp/f'{name}-features', tmp/f'{name}-metrics'
    t0 = time.perf_counter(); ids = synthetic_features(root, n_slides, n); t_gen = time.perf_counter() - t0
    n_pairs = n_slides * (n_slides - 1) // 2
    ours = time_ours(root, out, device, workers)
    all_pairs = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1:]]
    pairs = all_pairs if sample is None else [all_pairs[i] for i in np.linspace(0, n_pairs - 1, sample).astype(int)]
    per_pair, ups = time_upstream(root, pairs)
    upstream = per_pair * n_pairs
    how = 'measured on every pair' if sample is None else f'{per_pair:.1f} s/pair measured on {len(pairs)} pairs × {n_pairs} pairs (extrapolated)'
    print(f"\n[{name}] {n_slides} slides × {n} tiles × 768 dims, {n_pairs} pairs (features written in {t_gen:.1f} s)")
    print(f"  ours (benchnb evaluate, end to end from disk, {device}, workers={workers}): {ours:9.1f} s")
    print(f"  upstream algorithm (fp16 full 2n×2n matrix + argpartition, numpy):     {upstream:9.1f} s  [{how}]")
    print(f"  ratio: {upstream / ours:,.0f}×   (vs upstream with ideal 2-process parallelism: {upstream / 2 / ours:,.0f}×)")
    print("  " + agreement(out, n, pairs, ups))
    shutil.rmtree(root, ignore_errors=True); shutil.rmtree(out, ignore_errors=True)
    return {'ours_s': ours, 'upstream_s': upstream}


def upstream_torch_pair(a, b, top_k=(1, 3, 5, 10)) -> tuple[float, list[float]]:
    "plismbench's per-pair algorithm in torch on a, b's device: fp16 2n × 2n cosines, top-k of every row."
    import torch
    x, n = torch.cat([a, b]).half(), len(a)
    norm = x.norm(dim=1, keepdim=True)
    cos = (x @ x.T) / (norm * norm.T)
    nearest = cos.topk(max(top_k) + 1, dim=1).indices[:, 1:]
    own, other = torch.arange(n, device=x.device)[:, None], torch.arange(n, 2 * n, device=x.device)[:, None]
    accs = [((nearest[:n, :k] == other).any(1).float().mean() + (nearest[n:, :k] == own).any(1).float().mean()) / 2
            for k in top_k]
    return cos[:n, n:].diagonal().float().mean(), accs


def torch_case(n_slides: int, n: int, device: str, precision: str, sample: int | None, tmp: Path):
    "Ours (torch backend, end to end from disk) vs plismbench's algorithm in torch, on one device, in one run."
    import torch
    from benchnb.plism.data import N_TILES_PER_SLIDE
    rows = N_TILES_PER_SLIDE if n in (460, 2713, 5426, 8139) and n_slides > 12 else n
    root, out = tmp/'torch-features', tmp/'torch-metrics'
    ids = synthetic_features(root, n_slides, rows)
    sync = torch.cuda.synchronize if device.startswith('cuda') else (lambda: None)
    t0 = time.perf_counter()
    compute_metrics(root, out, 'bench', n_tiles=n if rows != n else 'all', device=device, backend='torch',
                    precision=precision, overwrite=True)
    ours = time.perf_counter() - t0
    from benchnb.plism.data import tile_subset
    sub = tile_subset(n if rows != n else 'all', rows)
    x = {s: torch.as_tensor(np.load(features_path(root, 'bench', s), mmap_mode='r')[sub, 3:].copy()).to(device) for s in ids}
    pairs = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1:]]
    timed = pairs if sample is None else pairs[:sample]
    upstream_torch_pair(x[ids[0]], x[ids[1]]); sync()                      # warm-up
    t0 = time.perf_counter()
    for a, b in timed: upstream_torch_pair(x[a], x[b])
    sync()
    per_pair = (time.perf_counter() - t0) / len(timed)
    up = per_pair * len(pairs)
    how = 'every pair' if sample is None else f'{len(timed)} pairs × {len(pairs)}'
    print(f"\n[torch] {n_slides} slides × {n} tiles × 768 on {device}, {len(pairs)} pairs")
    print(f"  ours (torch backend, {precision}, end to end from disk):            {ours:8.2f} s")
    print(f"  plismbench's algorithm in torch (fp16 2n×2n + top-k, compute only): {up:8.2f} s  "
          f"[{per_pair * 1e3:.1f} ms/pair, {how}]")
    print(f"  ratio: {up / ours:.1f}×")
    shutil.rmtree(root, ignore_errors=True); shutil.rmtree(out, ignore_errors=True)


def full_scale(device: str, tmp: Path, n: int = 8139, n_slides: int = 91, d: int = 768) -> float:
    "Extrapolate 91 × 8139 × 768 from measured costs: per slide (read 16,278-row file, subset, normalise, self term) and per pair (cross term)."
    from benchnb.plism.data import N_TILES_PER_SLIDE
    root = tmp/'full-features'
    rng = np.random.default_rng(1)
    base = rng.normal(size=(N_TILES_PER_SLIDE, d)).astype(np.float32)
    coords = np.stack([np.full(N_TILES_PER_SLIDE, 16), np.arange(N_TILES_PER_SLIDE) // 128, np.arange(N_TILES_PER_SLIDE) % 128], 1).astype(np.float32)
    ids = official_slide_ids()[:3]
    for sid in ids: write_features(features_path(root, 'bench', sid), coords, base + rng.normal(size=base.shape).astype(np.float32))
    from benchnb.plism.data import find_feature_files
    files = find_feature_files(root, 'bench')
    be = make_backend('auto', device)
    t0 = time.perf_counter(); feats = load_normalized(files, ids, n, ids[0]); t_load = (time.perf_counter() - t0) / len(ids)
    x = {s: be.put(f) for s, f in feats.items()}
    t0 = time.perf_counter(); th = be.rowdot(x[ids[0]], x[ids[1]]); t_th = time.perf_counter() - t0
    thresholds = be.stack_cols([th] * (n_slides - 1))
    t0 = time.perf_counter(); self_counts(be, x[ids[0]], thresholds); t_self = time.perf_counter() - t0
    t0 = time.perf_counter()
    for a, b in [(0, 1), (0, 2), (1, 2)]: cross_counts(be, x[ids[a]], x[ids[b]], th)
    t_cross = (time.perf_counter() - t0) / 3
    n_pairs = n_slides * (n_slides - 1) // 2
    total = n_slides * (t_load + t_self) + n_pairs * (t_cross + t_th)
    print(f"\n[full] {n_slides} slides × {n} tiles × {d} dims, {n_pairs} pairs — extrapolated from measured parts ({device}):")
    print(f"  per slide: load + subset + normalise {t_load:.2f} s, self term vs 90 partners {t_self:.2f} s")
    print(f"  per pair:  thresholds {t_th * 1e3:.1f} ms, cross term {t_cross:.2f} s")
    print(f"  total ≈ {total:,.0f} s = {total / 3600:.2f} h   (goal ≤ 3 h on 2 CPU cores; ≤ 20 s on an H200)")
    shutil.rmtree(root, ignore_errors=True)
    return total


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--cases', nargs='+', default=['small', 'big', 'full'],
                   choices=['small', 'big', 'full', 'gpu-full', 'torch'])
    p.add_argument('--torch-case', type=int, nargs=2, default=[12, 460], help="slides, tiles of the torch case")
    p.add_argument('--precision', default='fp32'); p.add_argument('--torch-sample', type=int, default=None)
    p.add_argument('--upstream-sample', type=int, default=2, help="pairs timed for upstream in the big case")
    p.add_argument('--device', default='cpu'); p.add_argument('--workers', type=int, default=1)
    a = p.parse_args(argv)
    os.environ.setdefault('BENCHNB_PROGRESS', '0')
    print(f"benchnb PLISM evaluate benchmark — {time.strftime('%Y-%m-%d %H:%M')} — {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs, numpy {np.__version__}, python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix='plism-bench-') as tmp:
        tmp = Path(tmp)
        if 'small' in a.cases: case('small', 12, 460, None, a.device, a.workers, tmp)
        if 'big' in a.cases: case('big', 91, 2713, a.upstream_sample, a.device, a.workers, tmp)
        if 'full' in a.cases: full_scale(a.device, tmp)
        if 'torch' in a.cases: torch_case(*a.torch_case, a.device, a.precision, a.torch_sample, tmp)
        if 'gpu-full' in a.cases:
            # end to end at full scale on CUDA: 91 files of 16,278 × 771 float32 (4.6 GB) then evaluate with the upstream 8139 subset
            root = tmp/'gpu-features'; synthetic_features(root, 91, 16278)
            t0 = time.perf_counter(); compute_metrics(root, tmp/'gpu-metrics', 'bench', n_tiles=8139, device='cuda', precision='tf32')
            print(f"\n[gpu-full] 91 × 8139 × 768 end to end from disk on CUDA (tf32): {time.perf_counter() - t0:.1f} s (goal ≤ 20 s)")


if __name__ == '__main__':
    main()
