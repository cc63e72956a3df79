"""The regression gate on the situations of issue 28 (and issue 32 §4): builds small BASE/NEW results databases and runs
`benchnb results diff BASE NEW --fail-on-regression` on each, printing its exit status and its last stderr lines.

    PYTHONPATH=. python benchmarks/stats_gate_cases.py [--code DIR]   # DIR: another checkout's root (e.g. main)

The databases are written with this checkout's `ResultsDB` (the schema is the same on main@8630b2f); `--code` only
changes which benchnb runs the command."""
import argparse, os, subprocess, sys, tempfile
from pathlib import Path

import numpy as np

from benchnb.resultsdb.db import ResultsDB


def record(path, family, dataset, model, metric, values, task='t', obs=lambda i: f'seed={i}', run='r'):
    with ResultsDB(path) as db:
        db.begin_run(run, {})
        u = dict(unit_id=f'{family}-{dataset}-{model}-{metric}', family=family, dataset=dataset, model=model, task=task,
                 status='done')
        o = [dict(metric=metric, value=None if v != v else float(v), obs_id=obs(i)) for i, v in enumerate(values)]
        finite = [v for v in values if v == v]
        db.record_unit(run, u, [dict(metric=metric, value=float(np.mean(finite)) if finite else None)], o)
        db.finish_run(run, 'done')


def cases(root: Path) -> dict:
    rng = np.random.default_rng(7)
    out = {}
    # 1. a seed-independent cells metric repeated on 8 seeds, 0.02 lower in NEW
    c = root/'1'; record(c/'b', 'cells', 'pbmc', 'scvi', 'silhouette_score', [0.62] * 8)
    record(c/'n', 'cells', 'pbmc', 'scvi', 'silhouette_score', [0.60] * 8)
    out['1 cells: a seed-independent metric on 8 seeds, −0.02'] = c
    # 2. 6 seeds, two models, NMI 0.64 -> 0.24 for both
    c = root/'2'; nmi = np.array([0.64, 0.65, 0.63, 0.64, 0.66, 0.62])
    for m in ('scvi', 'scanvi'):
        record(c/'b', 'cells', 'pbmc', m, 'nmi', nmi); record(c/'n', 'cells', 'pbmc', m, 'nmi', nmi - 0.40)
    out['2 cells: 6 seeds, 2 models, NMI 0.64 -> 0.24'] = c
    # 3. 22 queries, skewed reciprocal ranks, a moderate drop (where main's bootstrap CI and its p disagreed)
    c = root/'3'; q = lambda i: f'q{i}'
    base = rng.choice([1.0, 0.5, 0.33, 0.25, 0.0], size=22)
    new = np.where(rng.uniform(size=22) < 0.3, base * 0.3, base)
    record(c/'b', 'translator', 'treats', 'ranker', 'mean_reciprocal_rank', base, obs=q)
    record(c/'n', 'translator', 'treats', 'ranker', 'mean_reciprocal_rank', new, obs=q)
    out['3 translator: 22 queries, MRR drop on 30 % of them'] = c
    # 4a. ARI 1.0 -> 0.0 on two datasets, one seed each
    c = root/'4a'
    for ds in ('pbmc', 'lung'):
        record(c/'b', 'cells', ds, 'scvi', 'adjusted_rand_index', [1.0])
        record(c/'n', 'cells', ds, 'scvi', 'adjusted_rand_index', [0.0])
    out['4a cells: ARI 1.0 -> 0.0 on two datasets, one seed'] = c
    # 4b. NEW lacks a model BASE has
    c = root/'4b'; v = np.linspace(0.2, 0.8, 12)
    for m in ('m1', 'm2'): record(c/'b', 'translator', 'treats', m, 'hit', v, obs=q)
    record(c/'n', 'translator', 'treats', 'm1', 'hit', v, obs=q)
    out['4b translator: NEW lacks model m2'] = c
    # 4c. a real regression
    c = root/'4c'; record(c/'b', 'translator', 'treats', 'm1', 'hit', v, obs=q)
    record(c/'n', 'translator', 'treats', 'm1', 'hit', v - 0.1, obs=q)
    out['4c translator: 12 queries all 0.1 lower'] = c
    # 5. (issue 32) NEW's metric is NaN on every seed
    c = root/'5'; record(c/'b', 'cells', 'pbmc', 'scvi', 'nmi', [0.6, 0.61, 0.62, 0.6, 0.63, 0.61, 0.6, 0.62])
    record(c/'n', 'cells', 'pbmc', 'scvi', 'nmi', [float('nan')] * 8)
    for d in ('b', 'n'): record(c/d, 'cells', 'pbmc', 'scvi', 'ari', [0.5, 0.52, 0.51, 0.5, 0.53, 0.51, 0.5, 0.52])
    out['5 cells: NMI NaN on every seed in NEW (ARI unchanged)'] = c
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--code', default=str(Path(__file__).resolve().parents[1]))
    a = ap.parse_args()
    env = {**os.environ, 'PYTHONPATH': a.code, 'BENCHNB_PROGRESS': '0'}
    cmd = [sys.executable, '-c', 'import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))']
    for name, c in cases(Path(tempfile.mkdtemp())).items():
        r = subprocess.run(cmd + ['results', 'diff', str(c/'b'), str(c/'n'), '--fail-on-regression'], env=env,
                           capture_output=True, text=True, timeout=300, cwd=a.code)
        err = r.stderr.strip().splitlines()
        print(f"### {name}\nexit {r.returncode}\n```\n{r.stdout.rstrip()}\n```")
        print('stderr: ' + (' | '.join(err[-3:]) if err else '(empty)') + '\n')


if __name__ == '__main__':
    main()
