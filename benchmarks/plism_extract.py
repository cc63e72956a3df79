"""PLISM extraction throughput: tiles/s of `benchnb plism extract` from PLISM-format h5 slides.

Generates PLISM-format slides (224×224 tiles), extracts with a ViT (random weights, no download; default timm
ViT-B/16 = `vit_base_patch16_224`, the size the issue's ≥ 3,000 tiles/s GPU goal refers to) and prints tiles/s
end to end (h5 read + decode in DataLoader workers, uint8 transfer, on-device preprocessing, forward, atomic write).

Usage: python benchmarks/plism_extract.py [--device cpu|cuda] [--model vit_base_patch16_224] [--slides 2] [--grid 16 16]
       [--batch-size 256] [--workers 8]
"""
from __future__ import annotations
import argparse, os, tempfile, time
from pathlib import Path

from benchnb.plism.data import make_synthetic_slides
from benchnb.plism.extract import extract, register_extractor


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--device', default='cpu'); p.add_argument('--model', default='vit_base_patch16_224')
    p.add_argument('--slides', type=int, default=2); p.add_argument('--grid', type=int, nargs=2, default=[8, 8])
    p.add_argument('--batch-size', type=int, default=64); p.add_argument('--workers', type=int, default=2)
    a = p.parse_args(argv)
    os.environ.setdefault('BENCHNB_PROGRESS', '0')
    register_extractor('bench_vit', a.model, timm_kwargs={'num_classes': 0}, replace=True)
    with tempfile.TemporaryDirectory(prefix='plism-extract-') as tmp:
        tmp = Path(tmp)
        make_synthetic_slides(tmp/'h5', ['GMH', 'KR', 'GIV', 'LM'][:max(1, a.slides // 2)], ['S60', 'AT2'][:min(2, a.slides)], grid=tuple(a.grid))
        extract('bench_vit', tmp/'h5', tmp/'warm', a.device, a.batch_size, a.workers, pretrained=False)      # warm-up (allocator, kernels)
        t0 = time.perf_counter()
        s = extract('bench_vit', tmp/'h5', tmp/'feats', a.device, a.batch_size, a.workers, pretrained=False)
        dt = time.perf_counter() - t0
    tiles = int(s.tiles.sum())
    print(f"{a.model} on {a.device}: {tiles} tiles in {dt:.1f} s = {tiles / dt:,.0f} tiles/s end to end "
          f"(batch {a.batch_size}, {a.workers} workers; goal on an H200: ≥ 3,000 tiles/s for a ViT-B/16)")


if __name__ == '__main__':
    main()
