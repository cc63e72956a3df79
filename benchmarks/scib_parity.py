"""scIB parity: benchnb's `cells.scib` table vs scib-metrics' own `Benchmarker`, values and speed, on the same data.

Data: `--data pbmc` is scanpy's bundled pbmc68k_reduced (700 cells; embeddings X_pca and X_umap, labels
`bulk_labels`, batch `phase`, pre-integrated = `sc.tl.pca` of X as the Benchmarker does); `--data synthetic --n N`
is cells_suite's generator (N × 50, 15 types, 4 batches): the embedding is the cells without their batch shift
("integrated") and the pre-integrated embedding the cells with it.

We compute our table (exact kNN included) in this process, twice (cold: first call in a fresh process; warm).
With `--scib-python PY` (a venv with scib-metrics 0.5.10, e.g. /work/venvs/scib/bin/python) the same data and
**our 90 nearest neighbours** are saved to a temporary .npz and `scib_runner.py` runs the Benchmarker on them in
that interpreter (`--pynndescent`: with its own default neighbour search instead), timing it whole and each
metric alone (warm). Printed: every value with |Δ| and its tolerance (1e-3; k-means 2e-2), the per-metric times
and ratios, the total time ratio, peak memory (max RSS growth, sampled every 20 ms).
Without `--scib-python` only our side runs (what the smoke test in tests/ uses).

Usage:  python benchmarks/scib_parity.py --data synthetic --n 20000 --scib-python /work/venvs/scib/bin/python [--json out.json]
"""
from __future__ import annotations
import argparse, json, os, subprocess, sys, tempfile, warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1])); sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.filterwarnings('ignore')
from czbenchmarks_runner import measure      # (result, seconds, peak RSS growth in MB)
from cells_suite import make_embedding

TOL = {'KMeans NMI': 2e-2, 'KMeans ARI': 2e-2}


def load(data: str, n: int):
    "(embeddings {key: X}, labels, batches, X_pre)."
    if data == 'pbmc':
        import scanpy as sc
        a = sc.datasets.pbmc68k_reduced()
        from benchnb.cells.scib import pre_integrated_pca
        embs = {k: np.asarray(a.obsm[k], np.float64) for k in ('X_pca', 'X_umap')}
        return embs, a.obs['bulk_labels'].astype(str).to_numpy(), a.obs['phase'].astype(str).to_numpy(), pre_integrated_pca(a)
    X, labels, batches = make_embedding(n)
    rng = np.random.default_rng(1); shifts = rng.normal(0, 1.0, (4, X.shape[1]))
    codes = pd.Categorical(batches).codes
    return {'integrated': X}, labels, batches, X + shifts[codes]


def ours(embs, labels, batches, X_pre, nbrs=None):
    from benchnb.cells.scib import scib_table
    return measure(lambda: scib_table(embs, labels, batches, X_pre, neighbors=nbrs))


def reference(python: str, embs, labels, batches, X_pre, nbrs, pynndescent: bool) -> dict:
    with tempfile.TemporaryDirectory() as d:
        arrays = {'labels': labels.astype('U'), 'batches': batches.astype('U'), 'X_pre': X_pre}
        for k, X in embs.items():
            arrays.update({f'emb_{k}': X, f'idx_{k}': nbrs[k].indices, f'dist_{k}': nbrs[k].distances})
        np.savez(f'{d}/data.npz', **arrays)
        cmd = [python, str(Path(__file__).with_name('scib_runner.py')), f'{d}/data.npz', f'{d}/out.json', '--per-metric']
        subprocess.run(cmd + (['--pynndescent'] if pynndescent else []), check=True)
        return json.loads(Path(f'{d}/out.json').read_text())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--data', choices=['pbmc', 'synthetic'], default='synthetic'); p.add_argument('--n', type=int, default=20000)
    p.add_argument('--scib-python'); p.add_argument('--pynndescent', action='store_true'); p.add_argument('--json')
    a = p.parse_args(argv)
    from benchnb.cells.metrics import knn
    embs, labels, batches, X_pre = load(a.data, a.n)
    n = len(labels)
    nbrs = {k: knn(X, min(90, n)) for k, X in embs.items()}
    (cold, t_cold, mb_cold) = ours(embs, labels, batches, X_pre)
    (tab, t_warm, mb_warm) = ours(embs, labels, batches, X_pre)
    secs = {k: {m: round(s, 4) for m, s in v.items()} for k, v in tab.attrs['seconds'].items()}
    report = {'data': a.data, 'n': n, 'ours_cold_s': t_cold, 'ours_warm_s': t_warm, 'ours_peak_mb': max(mb_cold, mb_warm),
              'ours_seconds': secs, 'ours': {e: r.to_dict() for e, r in tab.iterrows()}}
    print(f"ours n={n}: cold {t_cold:.2f} s, warm {t_warm:.2f} s, peak {report['ours_peak_mb']:.0f} MB")
    print(tab.round(4).to_string())
    if a.scib_python:
        ref = reference(a.scib_python, embs, labels, batches, X_pre, nbrs, a.pynndescent)
        report['scib'] = ref
        rows = []
        for e in tab.index:
            for c in tab.columns:
                o, r = float(tab.loc[e, c]), ref['table'][e][c]
                rows.append({'embedding': e, 'metric': c, 'ours': o, 'scib-metrics': r, 'abs_diff': abs(o - r),
                             'tol': TOL.get(c, 1e-3), 'ok': abs(o - r) <= TOL.get(c, 1e-3)})
        diff = pd.DataFrame(rows); report['diff'] = rows
        print(f"\nvalues vs scib-metrics {ref['version']} (neighbours: {ref['neighbours']})")
        print(diff.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
        first = next(iter(embs))
        theirs = dict(ref['per_metric_s']); theirs['iLISI + cLISI'] = theirs.pop('iLISI') + theirs.pop('cLISI')
        ours_metric = {m: secs[first].get(m) for m in theirs}
        sp = pd.DataFrame({'ours (s)': ours_metric, 'scib-metrics warm (s)': theirs})
        sp['ratio'] = sp['scib-metrics warm (s)'] / sp['ours (s)']
        print(f"\nper metric (embedding {first}; ours includes no kNN, theirs given neighbours):\n{sp.round(4).to_string()}")
        print(f"ours kNN (k=90): {secs[first]['kNN']:.3f} s")
        print(f"\nTOTAL n={n}: Benchmarker {ref['benchmarker_s']:.1f} s (peak {ref['benchmarker_peak_mb']:.0f} MB) vs ours "
              f"cold {t_cold:.2f} s / warm {t_warm:.2f} s (peak {report['ours_peak_mb']:.0f} MB): "
              f"x{ref['benchmarker_s'] / t_cold:.1f} (cold) x{ref['benchmarker_s'] / t_warm:.1f} (warm)")
        report['per_metric'] = sp.to_dict()
    if a.json: Path(a.json).write_text(json.dumps(report, indent=1, default=float))


if __name__ == '__main__':
    main()
