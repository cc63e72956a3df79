"""`cells scib --parity 0.5|0.6` against the two scib-metrics releases' own `Benchmarker`, on the same data.

Runs scib-metrics 0.5.10 (the side venv) and 0.6.1 (its wheel, which declares Python >= 3.12, installed with
`pip install --no-deps --ignore-requires-python --target DIR` and put first on PYTHONPATH of the same venv: its code
runs on 3.11) through `scib_runner.py`, both given benchnb's exact 90-NN (padded to 90 below 90 cells as
pynndescent pads) and an exact diffusion-space search, 0.6.1 with `BatchCorrection(sbee=True)`. benchnb's
`scib_table` runs with parity '0.5' and with '0.6' + sBEE. Printed: every column, |Δ| to the matching release,
and whether the two releases' ten shared columns agree.

Data (no download): pbmc68k_reduced (700 cells; X_pca and X_pca + N(0, 1); labels bulk_labels, batch phase;
pre-integrated X_pca) and the 60-cell synthetic set of `scib_small_n.py` (fewer cells than the 90-NN).

`--d512`: the iLISI/cLISI deviation at high dimension (issue 33, item 4): 600 cells in 512 dimensions, 4 types,
3 batches, values ×10 so that distances are large: scib-metrics' `ilisi_knn`/`clisi_knn` on our exact 90-NN against
ours, and against ours with every row's distances shifted by +c (P is invariant to that in exact arithmetic).

Usage: python benchmarks/scib_versions.py --scib-python /work/venvs/scib/bin/python --scib06 /work/venvs/scib06
"""
from __future__ import annotations
import argparse, json, os, subprocess, sys, tempfile, warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1])); sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.filterwarnings('ignore')
from scib_small_n import Padded, load as load_small


def load_pbmc():
    import scanpy as sc
    a = sc.datasets.pbmc68k_reduced()
    pca = np.asarray(a.obsm['X_pca'], np.float64)
    embs = {'X_pca': pca, 'X_pca_noisy': pca + np.random.default_rng(0).normal(0, 1, pca.shape)}
    return embs, a.obs['bulk_labels'].astype(str).to_numpy(), a.obs['phase'].astype(str).to_numpy(), pca


def run_release(python: str, path: str|None, embs, labels, batches, X_pre, nbrs, sbee: bool) -> dict:
    "The Benchmarker's table of the release on PYTHONPATH `path` (None: the venv's own, 0.5.10)."
    env = {**os.environ, 'PYTHONPATH': path or ''}
    with tempfile.TemporaryDirectory() as d:
        arrays = {'labels': labels.astype('U'), 'batches': batches.astype('U'), 'X_pre': X_pre}
        for k, X in embs.items(): arrays.update({f'emb_{k}': X, f'idx_{k}': nbrs[k].indices, f'dist_{k}': nbrs[k].distances})
        np.savez(f'{d}/data.npz', **arrays)
        cmd = [python, str(Path(__file__).with_name('scib_runner.py')), f'{d}/data.npz', f'{d}/out.json', '--neighbours', 'exact']
        subprocess.run(cmd + (['--sbee'] if sbee else []), check=True, env=env, cwd=str(Path(__file__).parent))
        return json.loads(Path(f'{d}/out.json').read_text())


def versions(a) -> list[dict]:
    from benchnb.cells.neighbors import knn
    from benchnb.cells.scib import scib_table
    rows = []
    for name, (embs, labels, batches, X_pre) in {'pbmc': load_pbmc(), 'synthetic60': load_small('synthetic', 60)}.items():
        nbrs = {k: Padded(knn(X, min(90, len(X)))) for k, X in embs.items()}
        r5 = run_release(a.scib_python, None, embs, labels, batches, X_pre, nbrs, False)
        r6 = run_release(a.scib_python, a.scib06, embs, labels, batches, X_pre, nbrs, True)
        o5 = scib_table(embs, labels, batches, X_pre, parity='0.5')
        o6 = scib_table(embs, labels, batches, X_pre, parity='0.6', add=['sbee'])
        for e in embs:
            for c in o6.columns:
                v5, v6 = r5['table'][e].get(c, np.nan), r6['table'][e].get(c, np.nan)
                rows.append({'data': name, 'embedding': e, 'metric': c, '0.5.10': v5, 'ours 0.5': o5.loc[e].get(c, np.nan),
                             '0.6.1': v6, 'ours 0.6': o6.loc[e, c], '|0.5.10 − 0.6.1|': abs(v5 - v6)})
        print(f"{name}: scib-metrics {r5['version']} and {r6['version']}")
    df = pd.DataFrame(rows)
    df['|Δ| 0.5'] = (df['ours 0.5'] - df['0.5.10']).abs(); df['|Δ| 0.6'] = (df['ours 0.6'] - df['0.6.1']).abs()
    print(df.to_string(index=False, float_format=lambda v: f"{v:.6f}"))
    shared = df[df['metric'] != 'sBEE'].dropna(subset=['0.5.10'])
    shared = shared[~shared['metric'].isin(['Batch correction', 'Total'])]
    print(f"\nreleases agree on the shared columns (max |0.5.10 − 0.6.1|): {shared['|0.5.10 − 0.6.1|'].max():.2e}")
    print(f"max |Δ| ours vs release: 0.5 {df['|Δ| 0.5'].max():.2e}, 0.6 {df['|Δ| 0.6'].max():.2e}")
    return rows


D512 = r'''
import json, sys, numpy as np, scib_metrics
from scib_metrics.nearest_neighbors import NeighborsResults
z = np.load(sys.argv[1])
nb = NeighborsResults(indices=z['idx'], distances=z['dist'])
print(json.dumps({'ilisi': float(scib_metrics.ilisi_knn(nb, z['batches'])), 'clisi': float(scib_metrics.clisi_knn(nb, z['labels'])),
                  'ilisi_shift': float(scib_metrics.ilisi_knn(NeighborsResults(indices=z['idx'], distances=z['dist'] + 5.0), z['batches'])),
                  'clisi_shift': float(scib_metrics.clisi_knn(NeighborsResults(indices=z['idx'], distances=z['dist'] + 5.0), z['labels']))}))
'''


def d512(a) -> dict:
    "iLISI/cLISI at d = 512: scib-metrics (raw and row-shifted distances) vs ours."
    from benchnb.cells.neighbors import knn
    from benchnb.cells.lisi import ilisi_clisi
    r = np.random.default_rng(7); n, d = 600, 512
    t, b = r.choice(list('ABCD'), n), r.choice(['b1', 'b2', 'b3'], n)
    X = 10 * (r.normal(size=(n, d)) + 0.6 * np.eye(d)[pd.Categorical(t).codes] * np.sqrt(d) / 4
              + 0.3 * np.eye(d)[4 + pd.Categorical(b).codes] * np.sqrt(d) / 4)
    nb = knn(X, 90)
    ours = ilisi_clisi(nb, b, t)
    with tempfile.TemporaryDirectory() as tmp:
        np.savez(f'{tmp}/d.npz', idx=nb.indices, dist=nb.distances, labels=t.astype('U'), batches=b.astype('U'))
        theirs = json.loads(subprocess.run([a.scib_python, '-c', D512, f'{tmp}/d.npz'], capture_output=True, text=True,
                                           check=True, env={**os.environ, 'PYTHONPATH': ''}).stdout.strip().splitlines()[-1])
    out = {'median 90-NN distance': float(np.median(nb.distances[:, 1:])), 'ours iLISI': ours[0], 'ours cLISI': ours[1], **theirs}
    out['|Δ| iLISI'], out['|Δ| cLISI'] = abs(ours[0] - theirs['ilisi']), abs(ours[1] - theirs['clisi'])
    print('\nd = 512:', json.dumps(out, indent=1))
    return out


def kbet_self() -> dict:
    "KBET given the same exact 50-NN with the cell's own distance 0 (exact search) or 1e-7 (a float32 GEMM search)."
    from benchnb.cells.neighbors import knn, Neighbors
    from benchnb.cells.scib import kbet_per_label
    embs, labels, batches, _ = load_pbmc()
    out = {}
    for e, X in embs.items():
        nb = knn(X, 50); d = nb.distances.copy(); d[:, 0] = 1e-7
        out[e] = {'self 0': kbet_per_label(nb, batches, labels), 'self 1e-7': kbet_per_label(Neighbors(nb.indices, d), batches, labels)}
        out[e]['|Δ|'] = abs(out[e]['self 0'] - out[e]['self 1e-7'])
    print('\nKBET vs the self distance:', json.dumps(out, indent=1))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--scib-python', required=True); p.add_argument('--scib06', required=True)
    p.add_argument('--d512', action='store_true'); p.add_argument('--json')
    a = p.parse_args(argv)
    report = {'versions': versions(a)}
    if a.d512: report['d512'], report['kbet_self'] = d512(a), kbet_self()
    if a.json: Path(a.json).write_text(json.dumps(report, indent=1, default=float))


if __name__ == '__main__':
    main()
