"""Synthetic PLISM slides: the vectorised `make_synthetic_slides` against the tile-by-tile renderer it replaced.

"Before" is the old algorithm, rebuilt from the functions still in benchnb.plism.data: `_tissue` per grid cell
(PIL ellipses + blurs) and `render_tile` per tile and slide (Beer–Lambert stain, PIL blur, gamma, fresh Gaussian
noise), one h5 dataset per tile. "After" is `make_synthetic_slides`. Both write the same slides (same ids, grid,
tile size) to disk in the same run; the ratio is per tile and slide. `--full` also times one real-size slide
(126 × 130 = 16,380 tiles of 224 × 224) and, with `--png DIR`, saves a before and an after tile strip to look at.

Usage: python benchmarks/plism_synth.py [--grid 16 16] [--stainings GMH KR] [--scanners S60 AT2] [--full] [--png DIR]
       [--cpu-time]
"""
from __future__ import annotations
import argparse, os, tempfile, time, zlib
from pathlib import Path

import numpy as np

from benchnb.plism.data import _tissue, make_synthetic_slides, render_tile, slide_id


def old_synthetic_slides(out_dir: Path, stainings, scanners, grid, tile_size=224, level=16, seed=0):
    "The tile-by-tile algorithm (as in benchnb before the vectorised renderer)."
    import h5py
    out_dir.mkdir(parents=True, exist_ok=True)
    cells = [(x, y) for x in range(grid[0]) for y in range(grid[1])]
    tissue = {c: _tissue(np.random.default_rng([seed, *c]), tile_size) for c in cells}
    for st in stainings:
        for sc in scanners:
            sid = slide_id(st, sc)
            with h5py.File(out_dir/f"{sid}.h5", 'w') as f:
                for (x, y), (h, e) in tissue.items():
                    rng = np.random.default_rng([seed, zlib.crc32(sid.encode()), x, y])
                    f.create_dataset(f"tile_{level}_{x}_{y}", data=render_tile(h, e, st, sc, rng, seed))


CLOCK = time.perf_counter


def timed(fn, *args, **kw) -> float:
    "Seconds of `fn(*args, **kw)`: wall, or with --cpu-time this process's CPU (both renderers use one core)."
    t0 = CLOCK()
    fn(*args, **kw)
    return CLOCK() - t0


def save_strip(path: Path, h5: Path, n: int = 6):
    import h5py
    from PIL import Image
    with h5py.File(h5) as f: tiles = [f[k][()] for k in list(f)[:n]]
    Image.fromarray(np.concatenate(tiles, 1)).save(path)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--grid', type=int, nargs=2, default=[16, 16])
    p.add_argument('--stainings', nargs='+', default=['GMH', 'KR'])
    p.add_argument('--scanners', nargs='+', default=['S60', 'AT2'])
    p.add_argument('--full', action='store_true'); p.add_argument('--png', type=Path, default=None)
    p.add_argument('--cpu-time', action='store_true', help="process CPU seconds (robust to other load)")
    a = p.parse_args(argv)
    global CLOCK
    if a.cpu_time: CLOCK = time.process_time
    os.environ.setdefault('BENCHNB_PROGRESS', '0')
    n = a.grid[0] * a.grid[1] * len(a.stainings) * len(a.scanners)
    with tempfile.TemporaryDirectory(prefix='plism-synth-', dir='.') as tmp:
        tmp = Path(tmp)
        make_synthetic_slides(tmp/'warm', a.stainings[:1], a.scanners[:1], (1, 1))      # imports (h5py, PIL) done
        old_synthetic_slides(tmp/'warm-old', a.stainings[:1], a.scanners[:1], (1, 1))
        new = timed(make_synthetic_slides, tmp/'new', a.stainings, a.scanners, tuple(a.grid))
        old = timed(old_synthetic_slides, tmp/'old', a.stainings, a.scanners, tuple(a.grid))
        unit = 'CPU s' if a.cpu_time else 's'
        print(f"{n} tiles ({len(a.stainings) * len(a.scanners)} slides of {a.grid[0]} × {a.grid[1]}), {unit}: "
              f"before {old:.1f} s ({old / n * 1e3:.1f} ms/tile), after {new:.1f} s ({new / n * 1e3:.2f} ms/tile): "
              f"×{old / new:.1f}")
        if a.png:
            a.png.mkdir(parents=True, exist_ok=True)
            sid = slide_id(a.stainings[0], a.scanners[-1])
            save_strip(a.png/'synthetic-before.png', tmp/'old'/f"{sid}.h5")
            save_strip(a.png/'synthetic-after.png', tmp/'new'/f"{sid}.h5")
        if a.full:
            full = timed(make_synthetic_slides, tmp/'full', a.stainings[:1], a.scanners[:1], (126, 130))
            size = (tmp/'full'/f"{slide_id(a.stainings[0], a.scanners[0])}.h5").stat().st_size
            print(f"one real-size slide, 16,380 tiles of 224 × 224 ({size / 1e9:.2f} GB): {full:.1f} s "
                  f"(before, extrapolated per tile: {old / n * 16380:.0f} s)")


if __name__ == '__main__':
    main()
