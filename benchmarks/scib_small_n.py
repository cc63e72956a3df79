"""scIB on fewer cells than the 90-NN (issue 33, item 1): benchnb's table vs scib-metrics 0.5.10's `Benchmarker`.

Below 90 cells scib-metrics asks pynndescent for 90 neighbours and gets every cell plus empty entries (index −1,
distance inf, weight 0 in LISI), so LISI keeps perplexity ⌊90/3⌋ = 30. benchnb before the fix listed every cell
but used perplexity ⌊n/3⌋ (20 on 60 cells). Data (no download): `synthetic` (60 cells, 3 types, 2 batches, a batch
shift; embeddings 'integrated' = without the shift, 'unintegrated' = with it) and `pbmc` (60 cells of scanpy's
bundled pbmc68k_reduced, X_pca and X_pca + N(0, 1); labels bulk_labels, batch phase).

The Benchmarker runs twice in the side venv (`scib_runner.py`): given benchnb's exact neighbours padded to 90 as
pynndescent pads them (`exact`), and as a user runs it (`pynndescent`). "before" is benchnb's LISI at perplexity
⌊n/3⌋ on the same exact neighbours (what `cells scib` reported before the fix); the other columns come from our
`scib_table` as it is now.

Usage:  python benchmarks/scib_small_n.py --scib-python /work/venvs/scib/bin/python [--n 60] [--json out.json]
"""
from __future__ import annotations
import argparse, json, sys, warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1])); sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.filterwarnings('ignore')
from scib_parity import reference


def load(data: str, n: int):
    "(embeddings {key: X}, labels, batches, X_pre) with `n` cells."
    if data == 'pbmc':
        import scanpy as sc
        a = sc.datasets.pbmc68k_reduced()
        keep = np.sort(np.random.default_rng(0).choice(a.n_obs, n, replace=False))
        pca = np.asarray(a.obsm['X_pca'], np.float64)[keep]
        embs = {'X_pca': pca, 'X_pca_noisy': pca + np.random.default_rng(1).normal(0, 1, pca.shape)}
        return embs, a.obs['bulk_labels'].astype(str).to_numpy()[keep], a.obs['phase'].astype(str).to_numpy()[keep], pca
    r = np.random.default_rng(3)
    t, b = r.choice(['A', 'B', 'C'], n), r.choice(['b1', 'b2'], n)
    X = r.normal(size=(n, 8)) + 3 * np.eye(8)[pd.Categorical(t).codes]
    shifted = X + 2 * np.eye(8)[4 + pd.Categorical(b).codes]
    return {'integrated': X, 'unintegrated': shifted}, t, b, shifted


class Padded:
    "Exact neighbours padded to 90 columns as pynndescent pads a short list (index −1, distance inf)."
    def __init__(self, nb, k=90):
        pad = max(0, k - nb.k)
        self.indices = np.hstack([nb.indices, -np.ones((nb.n, pad), np.int64)])
        self.distances = np.hstack([nb.distances, np.full((nb.n, pad), np.inf)])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--scib-python'); p.add_argument('--n', type=int, default=60); p.add_argument('--json')
    a = p.parse_args(argv)
    from benchnb.cells.neighbors import knn
    from benchnb.cells.lisi import ilisi_clisi
    from benchnb.cells.scib import scib_table, scib_aggregate, SCIB_AGGREGATES
    report = {'n': a.n}
    for data in ('synthetic', 'pbmc'):
        embs, labels, batches, X_pre = load(data, a.n)
        nbrs = {k: knn(X, min(90, a.n)) for k, X in embs.items()}
        ours = scib_table(embs, labels, batches, X_pre, parity='0.5')
        rows = []
        refs = {m: reference(a.scib_python, embs, labels, batches, X_pre, {k: Padded(v) for k, v in nbrs.items()},
                             m, False) for m in ('exact', 'pynndescent')} if a.scib_python else {}
        old = ours[[c for c in ours.columns if c not in SCIB_AGGREGATES]].copy()     # the table before the fix:
        for e in embs: old.loc[e, ['iLISI', 'cLISI']] = ilisi_clisi(nbrs[e], batches, labels, perplexity=a.n // 3)
        before = scib_aggregate(old)                                                  # LISI at perplexity ⌊n/3⌋
        for e in embs:
            for c in ours.columns:
                if c not in ('iLISI', 'cLISI', *SCIB_AGGREGATES) and not refs: continue
                rows.append({'data': data, 'embedding': e, 'metric': c, 'before': float(before.loc[e, c]),
                             'after': float(ours.loc[e, c]), **{f'scib {m}': ref['table'][e][c] for m, ref in refs.items()}})
        df = pd.DataFrame(rows)
        if refs: df['|Δ| after vs exact'] = (df['after'] - df['scib exact']).abs()
        print(f"\n{data}, n = {a.n}" + (f" (scib-metrics {refs['exact']['version']})" if refs else ''))
        print(df.drop(columns="data").to_string(index=False, float_format=lambda v: f"{v:.6f}"))
        report[data] = rows
    if a.json: Path(a.json).write_text(json.dumps(report, indent=1, default=float))


if __name__ == '__main__':
    main()
