"""Calibration of `benchnb.stats` / `benchnb.resultsdb.compare` by simulation (issue 28): for each family's scheme,
the false-positive rate of `judge` (family-wise over a small table) and of the regression gate under the null (both
models drawn from the same distribution, so that a unit's difference is symmetric about 0), and the power on a
known effect. Also what the procedures of the main of
8630b2f did on the same draws (cluster-bootstrap p for slide pairs; seeds as units for a deterministic cells metric).

    PYTHONPATH=. python benchmarks/stats_calibration.py [--repeats 2000]

Prints a Markdown table (copied into benchmarks/RESULTS-stats.md)."""
import argparse, math, time

import numpy as np

from benchnb.stats import ClusterJackknife, SignFlip, bootstrap_means, judge


def pairs(n_slides):
    return [[a, b] for a in range(n_slides) for b in range(a + 1, n_slides)]


def slide_pairs(rng, n_slides, shift=0.0):
    "Δ per slide pair: a slide effect shared by every pair of that slide, plus pair noise."
    u = rng.normal(size=n_slides)
    return shift + np.array([u[a] + u[b] for a, b in pairs(n_slides)]) + 0.5 * rng.normal(size=len(pairs(n_slides)))


SCHEMES = {   # name -> (make one table of tests from rng and a shift, effect size used for power)
    'Translator: queries, sign flip exact (n=10, 2 models)':
        (lambda rng, s: [SignFlip(s + rng.normal(size=10)) for _ in range(2)], 1.0),
    'Translator: queries, sign flip 4000 draws (n=30, t3 tails, 2 models)':
        (lambda rng, s: [SignFlip(s + rng.standard_t(3, size=30), seed=int(rng.integers(1 << 30))) for _ in range(2)], 0.7),
    'PLISM: slide pairs, slide jackknife (8 slides, 28 pairs)':
        (lambda rng, s: [ClusterJackknife(slide_pairs(rng, 8, s), pairs(8))], 1.0),
    'PLISM: slide pairs, slide jackknife (12 slides, 66 pairs)':
        (lambda rng, s: [ClusterJackknife(slide_pairs(rng, 12, s), pairs(12))], 0.7),
    'cells: datasets, sign flip exact (n=8, skewed per-dataset values)':
        (lambda rng, s: [SignFlip(s + rng.exponential(size=8) - rng.exponential(size=8))], 1.0),
    'cells: seeds of a stochastic metric (n=10 seeds, 2 models)':
        (lambda rng, s: [SignFlip(s + 0.02 * rng.normal(size=10)) for _ in range(2)], 0.02),
}


def rate(make, repeats, shift, rng):
    hits = [judge(make(rng, shift)).verdict.isin(['better', 'worse']).any() for _ in range(repeats)]
    return float(np.mean(hits))


def old_cluster_bootstrap_rate(repeats, n_slides, rng, n_boot=2000):
    "main@8630b2f: p = 2(min(#Δ*≤0, #Δ*≥0) + 1)/(B + 1) of the paired cluster bootstrap, at 0.05."
    hits = 0
    for r in range(repeats):
        b = bootstrap_means(slide_pairs(rng, n_slides), n_boot, r, pairs(n_slides))
        hits += min(1.0, 2 * (min(np.sum(b <= 0), np.sum(b >= 0)) + 1) / (b.size + 1)) <= 0.05
    return hits / repeats


def gate_rate(repeats, rng, shift=0.0):
    "The gate (exit 4) on a null release of 3 models × 2 metrics, 20 queries each; Holm over the whole table."
    from benchnb.resultsdb.compare import _finish, gate
    fired = 0
    for _ in range(repeats):
        rows, tests = [], []
        for m in 'abc':
            for metric in ('hit', 'mrr'):
                d = rng.normal(size=20) - rng.normal(size=20) - (shift if m == 'a' else 0.0)
                rows.append(dict(family='toy', model=m, metric=metric, dataset='d', task='t', subset=None, params='{}',
                                 base=0.5, new=0.5 + d.mean(), delta=d.mean(), unit='query', n_units=20, test='',
                                 note='', identical=False, needs='queries'))
                tests.append(SignFlip(d, n_resamples=1000, seed=int(rng.integers(1 << 30))))
        fired += gate(_finish(rows, tests, 0.05, None, by=None, extra=['family'])) == 4
    return fired / repeats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--repeats', type=int, default=2000)
    a = ap.parse_args()
    rng, R = np.random.default_rng(2026), a.repeats
    tol = 3 * math.sqrt(0.05 * 0.95 / R)
    t0 = time.time()
    print(f"repeats {R} per scheme (power: {R // 4}); tolerance: α + 3 SE = {0.05 + tol:.3f}\n")
    print("| scheme | FPR (α = 0.05, family-wise) | power | effect |\n|---|---:|---:|---|")
    for name, (make, eff) in SCHEMES.items():
        fpr, pw = rate(make, R, 0.0, rng), rate(make, R // 4, eff, rng)
        print(f"| {name} | {fpr:.4f} | {pw:.3f} | shift {eff} |")
    g0, g1 = gate_rate(R // 2, rng), gate_rate(R // 4, rng, 1.0)
    print(f"| gate: 3 models × 2 metrics, 20 queries, Holm over the table (exit 4) | {g0:.4f} | {g1:.3f} | "
          f"one model −1.0 (0.7 SD of Δ) |")
    print("\nThe procedures of main@8630b2f on the same kind of draws:\n")
    print("| scheme | FPR |\n|---|---:|")
    for s in (6, 8, 12):
        print(f"| PLISM cluster-bootstrap p, {s} slides | {old_cluster_bootstrap_rate(R // 2, s, rng):.4f} |")
    # cells: a deterministic metric, one value per dataset (no seed effect), base and new from the same distribution
    calls = 0
    for _ in range(R):
        v = rng.normal(0.6, 0.05, size=2)                       # one dataset's value for base and for new
        d = np.full(8, v[1] - v[0])                             # 8 seeds repeat it
        calls += SignFlip(d).p_at(0) <= 0.05                     # main: seeds as units, p = 2/2^8
    print(f"| cells: a seed-independent metric, 8 seeds taken as units | {calls / R:.4f} |")
    print(f"\n({time.time() - t0:.0f} s)")


if __name__ == '__main__':
    main()
