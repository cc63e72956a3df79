"""Run scib-metrics' own `Benchmarker` on a saved dataset and report its table, per-metric times and peak memory.

This file runs inside the side venv that has `scib-metrics` (0.5.10, JAX on the CPU); it is not a benchnb
dependency. `scib_parity.py` writes the data, then calls

    /work/sidevenv/scib/bin/python scib_runner.py DATA.npz OUT.json --neighbours {exact,pynndescent} [--per-metric] [--sbee]

(0.6.1, which declares Python >= 3.12, runs on 3.11 from `pip install --no-deps --ignore-requires-python --target
DIR` put first on PYTHONPATH: `scib_versions.py` does that.)

DATA.npz holds `emb_<key>` arrays (n × d), `X_pre` (the pre-integrated embedding), `labels`, `batches` (strings) and,
per embedding, `idx_<key>` / `dist_<key>`: the exact 90 nearest neighbours (self first, fp64 distances) that
benchnb computes.

* `--neighbours pynndescent`: the Benchmarker as a user runs it (`bm.prepare()`: pynndescent 90-NN, and
  pynndescent again inside KBET's diffusion-neighbour search).
* `--neighbours exact`: `bm.prepare(neighbor_computer=…)` hands it those exact neighbours, **and** KBET's inner
  search in the diffusion-map space (`scib_metrics.utils._diffusion_nn`, pynndescent there) is replaced by an exact
  brute-force search (scikit-learn, self first; a short list padded with −1 as pynndescent pads it), so that no
  approximate neighbour is left on either side.

Each metric is also timed alone, warm (after one call on the same data), with `--per-metric`.
"""
from __future__ import annotations
import argparse, json, logging, sys, warnings

import numpy as np
import pandas as pd



from czbenchmarks_runner import measure   # (result, seconds, peak RSS growth in MB); one copy for both runners


def exact_diffusion_search():
    "Replace pynndescent inside scib-metrics' `diffusion_nn` with an exact search (same output contract)."
    import scib_metrics.utils._diffusion_nn as dnn
    from scib_metrics.nearest_neighbors import NeighborsResults
    from sklearn.neighbors import NearestNeighbors
    def exact(X, n_neighbors):
        m = min(n_neighbors, len(X))
        d, i = NearestNeighbors(n_neighbors=m, algorithm='brute').fit(X).kneighbors(X)
        if m < n_neighbors:                       # pynndescent returns -1 / inf for the missing ones
            pad = n_neighbors - m
            i = np.hstack([i, -np.ones((len(X), pad), i.dtype)]); d = np.hstack([d, np.full((len(X), pad), np.inf)])
        return NeighborsResults(indices=i, distances=d)
    dnn.nearest_neighbors.pynndescent = exact


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument('data'); p.add_argument('out')
    p.add_argument('--neighbours', choices=['exact', 'pynndescent'], default='exact')
    p.add_argument('--per-metric', action='store_true', help="also time every metric alone, warm")
    p.add_argument('--sbee', action='store_true', help="BatchCorrection(sbee=True) (scib-metrics >= 0.6)")
    a = p.parse_args(argv)
    import anndata as ad
    import scib_metrics
    from scib_metrics.benchmark import Benchmarker
    from scib_metrics.nearest_neighbors import NeighborsResults
    if a.neighbours == 'exact': exact_diffusion_search()
    z = np.load(a.data, allow_pickle=False)
    keys = [k[4:] for k in z.files if k.startswith('emb_')]
    labels, batches = z['labels'].astype(str), z['batches'].astype(str)
    n = len(labels)
    adata = ad.AnnData(obs=pd.DataFrame({'labels': labels, 'batch': batches}, index=np.arange(n).astype(str)))
    for k in keys: adata.obsm[k] = z[f'emb_{k}']
    adata.obsm['X_pre'] = z['X_pre']
    nbrs = {k: NeighborsResults(indices=z[f'idx_{k}'], distances=z[f'dist_{k}']) for k in keys}
    def computer(X, k):
        for key in keys:
            if X.shape == adata.obsm[key].shape and np.array_equal(X, adata.obsm[key]): return nbrs[key].subset_neighbors(k)
        raise RuntimeError("no neighbours stored for this embedding")
    def bench():
        extra = {}
        if a.sbee:
            from scib_metrics.benchmark import BatchCorrection
            extra['batch_correction_metrics'] = BatchCorrection(sbee=True)
        bm = Benchmarker(adata, batch_key='batch', label_key='labels', embedding_obsm_keys=keys,
                         pre_integrated_embedding_obsm_key='X_pre', n_jobs=-1, progress_bar=False, **extra)
        bm.prepare(neighbor_computer=computer if a.neighbours == 'exact' else None); bm.benchmark()
        return bm
    bm, secs, mb = measure(bench)
    res = bm.get_results(min_max_scale=False)
    table = res.drop('Metric Type').astype(float)
    out = {'version': scib_metrics.__version__, 'n': n, 'benchmarker_s': secs, 'benchmarker_peak_mb': mb,
           'neighbours': a.neighbours,
           'table': {e: {c: float(v) for c, v in r.items()} for e, r in table.iterrows()},
           'table_minmax': {e: {c: float(v) for c, v in r.items()}
                            for e, r in bm.get_results(min_max_scale=True).drop('Metric Type').astype(float).iterrows()},
           'metric_type': {c: str(v) for c, v in res.loc['Metric Type'].items()}}
    if a.per_metric:
        k = keys[0]; X = adata.obsm[k]; nb = nbrs[k]
        calls = {'Isolated labels': lambda: scib_metrics.isolated_labels(X, labels, batches),
                 'KMeans NMI/ARI': lambda: scib_metrics.nmi_ari_cluster_labels_kmeans(X, labels),
                 'Silhouette label': lambda: scib_metrics.silhouette_label(X, labels),
                 'cLISI': lambda: scib_metrics.clisi_knn(nb.subset_neighbors(90), labels),
                 'BRAS': lambda: scib_metrics.bras(X, labels, batches),
                 'iLISI': lambda: scib_metrics.ilisi_knn(nb.subset_neighbors(90), batches),
                 'KBET': lambda: scib_metrics.kbet_per_label(nb.subset_neighbors(50), batches, labels),
                 'Graph connectivity': lambda: scib_metrics.graph_connectivity(nb.subset_neighbors(15), labels),
                 'PCR comparison': lambda: scib_metrics.pcr_comparison(adata.obsm['X_pre'], X, batches, categorical=True)}
        out['per_metric_s'] = {}
        for name, f in calls.items():
            f()                                   # warm: JIT compiled, caches filled
            _, s, m = measure(f); out['per_metric_s'][name] = s
    with open(a.out, 'w') as f: json.dump(out, f, indent=1)


if __name__ == '__main__':
    warnings.filterwarnings('ignore'); logging.disable(logging.WARNING)   # the script's own output only
    sys.exit(main())
