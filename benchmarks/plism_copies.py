"""Copies of the twin (issue 33 item 2): slides whose blank tiles are exact copies of one another, ranked by benchnb's
kernel and by the fp64 definition (`naive_twin_ranks`, the full 2n × 2n matrix in float64), on random fp32 features.

Per case: 4 slides, 6 pairs, d = 768, the first 10 % of the tiles of each slide one repeated vector (blank tiles, the
same blank on every slide, shifted per slide like the rest). Prints the queries whose rank differs from the
definition and the top-5 accuracy difference summed over pairs. Run it with PYTHONPATH set to another checkout to
compare commits. Usage: python benchmarks/plism_copies.py [--n 460 1200]
"""
import argparse, os

import numpy as np


def slides(n: int, d: int=768, seed: int=0) -> dict:
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n, d)).astype(np.float32)
    blank = rng.normal(size=d).astype(np.float32)
    out = {}
    for i in range(4):
        x = base + rng.normal(scale=0.8, size=(n, d)).astype(np.float32) + rng.normal(scale=0.3, size=d).astype(np.float32)
        x[: n // 10] = blank + 0.5 * i                                 # blank tiles: identical within a slide
        out[f"s{i}"] = x.astype(np.float32)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--n', type=int, nargs='+', default=[460, 1200])
    a = ap.parse_args(argv)
    import benchnb
    from benchnb.plism.kernel import naive_twin_ranks, topk_from_ranks, twin_ranks
    print(f"# benchnb from {os.path.dirname(benchnb.__file__)}")
    for n in a.n:
        feats = slides(n)
        pairs = [(x, y) for i, x in enumerate(sorted(feats)) for y in sorted(feats)[i + 1:]]
        differ, top5, worst = 0, 0.0, 0
        for (x, y), r in twin_ranks(feats, pairs):
            na, nb = naive_twin_ranks(feats[x], feats[y])
            diff = np.abs(np.r_[r.rank_a - na, r.rank_b - nb])
            differ, worst = differ + int((diff > 0).sum()), max(worst, int(diff.max()))
            top5 += topk_from_ranks(r.rank_a, r.rank_b, [5])[5] - topk_from_ranks(na, nb, [5])[5]
        print(f"n = {n}: {differ} of {len(pairs) * 2 * n} queries ranked unlike the fp64 definition (at most {worst} "
              f"apart); top-5 accuracy minus the definition's, summed over {len(pairs)} pairs: {top5:+.4f}")


if __name__ == '__main__':
    main()
