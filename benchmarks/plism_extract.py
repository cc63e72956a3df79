"""PLISM extraction throughput: the data path against the raw h5 read rate, and the model against its own rate.

Generates PLISM-format slides (`make_synthetic_slides`, 224 × 224 tiles) and measures, in one run, with the same
DataLoader workers:
  raw      the workers only read the tiles (h5py's low-level read, the same call as `extract`'s, unchecked, into a
           batch buffer, nothing sent back): the ceiling
  datapath `extract` end to end with the device's work replaced by a no-op: the model, and the preprocessing
           that runs on the device (one loader over all slides, uint8 batches in shared memory, pinned transfer on
           CUDA, features written atomically). On a CPU "device" the preprocessing would compete with the reading
           workers for the same cores, which says nothing about the data path; it is timed separately:
  +prep    the same with the preprocessing kept (on the CPU: the cost of doing the GPU's preprocessing there)
  model    the model alone on on-device input, batch after batch (--model-alone)
  full     `extract` end to end with the model (--full)
and prints the data path's share of the raw rate (goal ≥ 90 % on 2 CPU cores), the full run's share of the model
rate (goal ≥ 70 % on an H100/H200 for a ViT-B/16) and where `extract`'s time goes (read, wait, transfer,
preprocess, forward, fetch, write; `--profile` synchronises CUDA after each stage).

What is compared, so that the comparison is fair: both use the same `--workers` loader processes (2 on the 2-core
VM, where the main process competes with them for the cores), the same batches (64 tiles, in slide order), the
same `prefetch_factor` (2 a worker) and the same read call, so the raw run is the ceiling of these workers. Each
repeat runs raw, then the data path, and the summary takes medians over the repeats, so the other load on the
machine hits both alike. Two rates per run:
  end to end    tiles / the whole call. raw: the loader's start (fork), the reads, its shut-down; the slide
                listing is given to it. data path: all of `extract` (listing the slides' keys, the rings, the
                loader's start, the reads, the writes, the shut-down).
  steady state  tiles after the 8th batch / time from the 8th batch's arrival in the main process to the last's
                (raw: as the loop receives it; data path: as the no-op model gets it): start-up, shut-down and
                the first touch of the batch buffers (each worker's ring of `prefetch` + 1 = 3 buffers has been
                used once by then) left out of both.
and the CPU seconds per tile of the main process and of the workers (joined children), whose ratio does not depend
on the other load: on 2 busy cores the rate is about 2 / (CPU seconds per tile).

Usage: python benchmarks/plism_extract.py [--device cpu|cuda] [--slides 4] [--grid 16 16] [--batch-size 64]
       [--workers 2] [--model vit_base_patch16_224] [--precision auto|fp32|fp16|bf16] [--compile] [--full]
       [--model-alone] [--repeat 3] [--no-prep]
"""
from __future__ import annotations
import argparse, os, tempfile, time
from pathlib import Path

import numpy as np


class RawReads:
    "The reads `extract`'s workers do, and nothing else: batch k → number of tiles read (the buffer stays there)."
    def __init__(self, batches):
        self.batches, self.buf = batches, None
    def __len__(self): return len(self.batches)
    def __getitem__(self, k: int) -> int:
        import h5py
        s, lo = self.batches.index[k]
        ds, f = self.batches.slides[s], self.batches._file(s)
        keys = ds.keys[lo:lo + self.batches.batch_size]
        shape = (self.batches.batch_size,) + f[keys[0]].shape
        if self.buf is None or self.buf.shape != shape: self.buf = np.empty(shape, np.uint8)
        space, buf, fid = h5py.h5s.create_simple(shape[1:]), self.buf, f.id    # `_read_tiles`' loop, less its checks
        open_, whole, uint8 = h5py.h5d.open, h5py.h5s.ALL, h5py.h5t.NATIVE_UINT8
        for i, key in enumerate(keys): open_(fid, key.encode()).read(space, whole, buf[i], uint8)
        return len(keys)


def process_cpu() -> np.ndarray:
    "CPU seconds of (this process, its finished children: the loader's workers, once joined)."
    t = os.times()
    return np.array([t.user + t.system, t.children_user + t.children_system])


STEADY_FROM = 8                                                   # batches: every ring buffer used once before


def steady_rate(arrivals: list, skip: int = STEADY_FROM) -> float:
    "tiles/s from the arrival of batch `skip` to the last's: [(time, tiles), ...] → tiles after it / seconds."
    skip = min(skip, len(arrivals) // 2)
    return sum(n for _, n in arrivals[skip + 1:]) / (arrivals[-1][0] - arrivals[skip][0])


def raw_rate(batches, workers: int) -> float:
    return _raw_rate(batches, workers)[0]


def _raw_rate(batches, workers: int) -> tuple[float, float, np.ndarray]:
    "(tiles/s end to end, tiles/s steady, CPU seconds per tile of (main process, workers)) of the raw reads."
    import torch
    loader = torch.utils.data.DataLoader(RawReads(batches), batch_size=None, num_workers=workers,
                                         **(dict(prefetch_factor=2) if workers else {}))
    t0, c0, arrivals = time.perf_counter(), process_cpu(), []
    for k in loader: arrivals.append((time.perf_counter(), k))
    del loader
    n = sum(k for _, k in arrivals)
    return n / (time.perf_counter() - t0), steady_rate(arrivals), (process_cpu() - c0) / n


ARRIVALS = []                                                     # (time, tiles) of each batch the no-op model gets


def noop_build(dim: int = 8):
    def build(pretrained: bool = False):
        import torch
        class NoOp(torch.nn.Module):                              # costs next to nothing: no tensor made per batch
            def __init__(self):
                super().__init__()
                self.register_buffer("out", torch.zeros((1024, dim)))     # moves with the model
            def forward(self, x):
                ARRIVALS.append((time.perf_counter(), len(x)))
                return self.out[:len(x)]
        return NoOp()
    return build


def extract_rate(name: str, h5: Path, out: Path, a, device_noop: bool = False, **kw) -> tuple[float, dict]:
    "tiles/s of `extract` end to end, and its seconds per stage; `device_noop`: preprocessing replaced by a no-op too."
    from unittest import mock
    from benchnb.plism import extract as ex
    noop = mock.patch.object(ex, 'preprocess', lambda tiles, spec: tiles) if device_noop else mock.MagicMock()
    with noop: return _extract_rate(name, h5, out, a, **kw)


def _extract_rate(name: str, h5: Path, out: Path, a, **kw) -> tuple[float, dict]:
    from benchnb.plism.extract import extract
    ARRIVALS.clear()
    t0 = time.perf_counter()
    s = extract(name, h5, out, device=a.device, batch_size=a.batch_size, workers=a.workers, overwrite=True,
                pretrained=False, precision=a.precision, compile=a.compile, profile=a.profile, **kw)
    return int(s.tiles.sum()) / (time.perf_counter() - t0), s.attrs['seconds']


def model_rate(name: str, a, n_batches: int = 10) -> float:
    import torch
    from benchnb.plism.extract import _precision_context, build_model, extractors, run_precision
    spec = extractors[name]
    model = build_model(spec, pretrained=False).to(a.device)
    if a.device.startswith('cuda'): model = model.to(memory_format=torch.channels_last)
    x = torch.randn(a.batch_size, 3, 224, 224, device=a.device)
    with torch.inference_mode(), _precision_context(a.device, run_precision(spec, a.device, a.precision)):
        model(x)
        if a.device.startswith('cuda'): torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n_batches): model(x)
        if a.device.startswith('cuda'): torch.cuda.synchronize()
    return n_batches * a.batch_size / (time.perf_counter() - t0)


def shares(seconds: dict, wall: float, workers: int) -> str:
    main = ', '.join(f"{k} {v / wall:.0%}" for k, v in seconds.items() if k != 'read')
    return f"main process: {main}; workers busy reading {seconds['read'] / (wall * max(workers, 1)):.0%} of their time"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--device', default='cpu'); p.add_argument('--model', default='vit_base_patch16_224')
    p.add_argument('--slides', type=int, default=4); p.add_argument('--grid', type=int, nargs=2, default=[16, 16])
    p.add_argument('--batch-size', type=int, default=64); p.add_argument('--workers', type=int, default=2)
    p.add_argument('--precision', default='auto'); p.add_argument('--compile', action='store_true')
    p.add_argument('--profile', action='store_true'); p.add_argument('--full', action='store_true')
    p.add_argument('--model-alone', action='store_true'); p.add_argument('--repeat', type=int, default=3)
    p.add_argument('--no-prep', action='store_true', help="skip the +prep runs (slow on a CPU device)")
    a = p.parse_args(argv)
    os.environ.setdefault('BENCHNB_PROGRESS', '0')
    from benchnb.plism.data import PlismTiles, find_h5_slides, make_synthetic_slides
    from benchnb.plism.extract import SlideBatches, register_extractor
    register_extractor('bench_vit', a.model, timm_kwargs={'num_classes': 0}, precision='fp16', replace=True)
    register_extractor('bench_noop', build=noop_build(), dim=8, replace=True)
    with tempfile.TemporaryDirectory(prefix='plism-extract-', dir='.') as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        stainings = ['GMH', 'KR', 'GIV', 'LM', 'MY', 'HR', 'GV', 'GM'][:max(1, a.slides // 2)]
        make_synthetic_slides(tmp/'h5', stainings, ['S60', 'AT2'][:min(2, a.slides)], grid=tuple(a.grid))
        h5 = find_h5_slides(tmp/'h5')
        n = sum(len(PlismTiles(p)) for p in h5.values())
        print(f"{len(h5)} slides, {n} tiles of 224 × 224 written in {time.perf_counter() - t0:.1f} s; device {a.device}, "
              f"batch {a.batch_size}, {a.workers} workers, {os.cpu_count()} CPUs")
        batches = SlideBatches([PlismTiles(h5[s]) for s in sorted(h5)], a.batch_size)
        raw_rate(batches, a.workers)                                          # warm the page cache
        extract_rate('bench_noop', tmp/'h5', tmp/'noop', a, device_noop=True)
        ratios, steady, cpu_ratios, cpus = [], [], [], []
        for r in range(a.repeat):                                             # alternate, so load hits both alike
            raw, raw_steady, raw_cpu = _raw_rate(batches, a.workers)
            c0 = process_cpu()
            dp, sec = extract_rate('bench_noop', tmp/'h5', tmp/'noop', a, device_noop=True)
            dp_cpu, dp_steady = (process_cpu() - c0) / n, steady_rate(ARRIVALS)
            ratios.append(dp / raw); steady.append(dp_steady / raw_steady)
            cpu_ratios.append(raw_cpu.sum() / dp_cpu.sum()); cpus.append(np.r_[raw_cpu, dp_cpu] * 1e6)
            line = (f"  raw {raw:6,.0f} tiles/s (steady {raw_steady:6,.0f}) | data path {dp:6,.0f} (steady "
                    f"{dp_steady:6,.0f}) = {ratios[-1]:4.0%} of raw (steady {steady[-1]:4.0%}) | CPU µs/tile main + "
                    f"workers: raw {cpus[-1][0]:.0f} + {cpus[-1][1]:.0f}, data path {cpus[-1][2]:.0f} + "
                    f"{cpus[-1][3]:.0f}: raw/data path {cpu_ratios[-1]:4.0%} | load {os.getloadavg()[0]:.1f}")
            if not a.no_prep:
                pp, psec = extract_rate('bench_noop', tmp/'h5', tmp/'prep', a)
                line += f" | + preprocessing on {a.device} {pp:7,.0f} tiles/s = {pp / raw:.0%}"
            print(line, flush=True)
        summary = lambda v: (f"median {np.median(v):.0%} (best {max(v):.0%}, worst {min(v):.0%}, "
                             f"≥ 90 % in {sum(x >= 0.9 for x in v)} of {len(v)})")
        print(f"  data path / raw reads over {len(ratios)} repeats (goal ≥ 90 %):\n"
              f"    end to end    {summary(ratios)}\n    steady state  {summary(steady)}\n"
              f"    CPU s per tile, raw / data path: {summary(cpu_ratios)}; medians µs/tile main + workers: raw "
              f"{np.median(cpus, 0)[0]:.0f} + {np.median(cpus, 0)[1]:.0f}, data path {np.median(cpus, 0)[2]:.0f} + "
              f"{np.median(cpus, 0)[3]:.0f}")
        print(f"  data path profile: {shares(sec, n / dp, a.workers)}")
        if not a.no_prep: print(f"  + preprocessing profile: {shares(psec, n / pp, a.workers)}")
        if a.model_alone:
            alone = model_rate('bench_vit', a)
            print(f"  {a.model} alone on {a.device}-resident input: {alone:,.0f} img/s")
        if a.full:
            full, sec = extract_rate('bench_vit', tmp/'h5', tmp/'full', a)
            rel = f" = {full / alone:.0%} of the model alone" if a.model_alone else ''
            print(f"  {a.model} end to end: {full:,.0f} tiles/s{rel}")
            print(f"  profile: {shares(sec, n / full, a.workers)}")


if __name__ == '__main__':
    main()
