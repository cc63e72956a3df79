"""Cells suite benchmark: wall time and peak memory per task on synthetic embeddings, vs reference implementations.

Synthetic data (documented generator `make_embedding`): n cells × 50 dims, 15 cell types (Gaussian clusters whose
centres are N(0, 0.5²) per dim), 4 batches (each batch shifts every cell by its own N(0, 0.25²) vector), unit noise.

For each task we time our implementation (`benchnb.cells`) and, with `--czbenchmarks-python PYTHON`, cz-benchmarks'
own task (`czbenchmarks_runner.py`, run by that interpreter — cz-benchmarks is not a benchnb dependency — on the
same data saved to a temporary .npz), and print both times, the ratio and the largest |difference| over every
shared metric value.  `--reference` instead times the library calls cz-benchmarks wraps, in this process:
  clustering        scanpy pp.neighbors (pynndescent ≥ 4096 cells) + tl.leiden(igraph, 2 iterations, seed 42), sklearn ARI/NMI
  embedding         sklearn silhouette_score (scib-metrics silhouette_label is the same definition)
  label_prediction  sklearn cross_validate per classifier, sequential (upstream loop)
  batch_integration entropy: sklearn NearestNeighbors(brute) k=200 (upstream uses hnswlib, not installed) ;
                    batch silhouette: sklearn silhouette_samples per cell-type group (scib-metrics definition)
and print the value difference and the time ratio.  Peak memory = max RSS growth during the step (sampled every 20 ms).

Usage:  python benchmarks/cells_suite.py --n 20000 [--czbenchmarks-python /path/to/venv/bin/python] [--reference]
                                         [--tasks ...] [--json out.json]
"""
from __future__ import annotations
import argparse, json, os, sys, threading, time, warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1])); sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.filterwarnings('ignore')


def make_embedding(n: int, d: int = 50, n_labels: int = 15, n_batches: int = 4, seed: int = 0):
    "Synthetic embedding with cell-type clusters and additive batch shifts (see module docstring)."
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_labels, n); batches = rng.integers(0, n_batches, n)
    centres = rng.normal(0, 0.5, (n_labels, d)); shifts = rng.normal(0, 0.25, (n_batches, d))
    X = centres[labels] + shifts[batches] + rng.standard_normal((n, d))
    return X, np.array([f"type{l:02d}" for l in labels]), np.array([f"batch{b}" for b in batches])


from czbenchmarks_runner import measure   # (result, seconds, peak RSS growth in MB); shared with the upstream runner


# --- ours --------------------------------------------------------------------------------------------
def ours(task, ds):
    from benchnb.cells.tasks import make_task
    res = make_task(task, 'cell_type', 'batch', seed=42).run(ds, ['model'])['model']
    return {r.metric if 'classifier' not in r.params else f"{r.metric}[{r.params['classifier']}]": r.value for r in res}


# --- references (what upstream calls) ----------------------------------------------------------------
def ref_clustering(X, labels, batches):
    import anndata as ad, scanpy as sc
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
    a = ad.AnnData(obs=pd.DataFrame(index=np.arange(len(X)).astype(str))); a.obsm['emb'] = X
    sc.pp.neighbors(a, use_rep='emb', random_state=42)
    sc.tl.leiden(a, flavor='igraph', n_iterations=2, random_state=42)
    return {'adjusted_rand_index': adjusted_rand_score(labels, a.obs.leiden), 'normalized_mutual_info': normalized_mutual_info_score(labels, a.obs.leiden)}

def ref_embedding(X, labels, batches):
    from sklearn.metrics import silhouette_score
    return {'silhouette_score': (silhouette_score(X, labels) + 1) / 2}

def ref_batch_integration(X, labels, batches):
    from sklearn.neighbors import NearestNeighbors
    from sklearn.metrics import silhouette_samples
    idx = NearestNeighbors(n_neighbors=min(200, len(X)), algorithm='brute').fit(X).kneighbors(X, return_distance=False)
    cats = np.unique(batches); nb = batches[idx]
    p = np.stack([(nb == c).mean(1) for c in cats], 1)
    with np.errstate(divide='ignore', invalid='ignore'): H = -np.where(p > 0, p * np.log(p), 0).sum(1)
    groups = [np.mean(1 - np.abs(silhouette_samples(X[labels == g], batches[labels == g]))) for g in np.unique(labels)]
    return {'entropy_per_cell': H.mean() / np.log(len(cats)), 'batch_silhouette': float(np.mean(groups))}

def ref_label_prediction(X, labels, batches):
    from sklearn.model_selection import StratifiedKFold, cross_validate
    from sklearn.metrics import make_scorer, accuracy_score, f1_score, precision_score, recall_score, roc_auc_score
    from benchnb.cells.tasks import make_classifiers
    y = pd.Categorical(labels.astype(str)).codes
    sc_ = {'accuracy': make_scorer(accuracy_score), 'f1': make_scorer(f1_score, average='macro'),
           'precision': make_scorer(precision_score, average='macro'), 'recall': make_scorer(recall_score, average='macro'),
           'auroc': make_scorer(roc_auc_score, average='macro', multi_class='ovr', response_method='predict_proba')}
    rows = []
    for name, clf in make_classifiers(42).items():
        cv = cross_validate(clf, X, y, cv=StratifiedKFold(5, shuffle=True, random_state=42), scoring=sc_)
        rows += [{'classifier': name, **{m: cv[f'test_{m}'][f] for m in sc_}} for f in range(5)]
    df = pd.DataFrame(rows)
    return {'mean_fold_accuracy[MEAN(knn,lr,rf)]': df.accuracy.mean(), 'mean_fold_auroc[MEAN(knn,lr,rf)]': df.auroc.mean()}

def run_czbenchmarks(python: str, X, labels, batches, tasks: str, warmup: int) -> dict:
    "cz-benchmarks' own tasks on this data, in `python` (a separate process): {'tasks': {task: {'s', 'peak_MB', 'values'}}, ...}."
    import subprocess, tempfile
    with tempfile.TemporaryDirectory() as d:
        np.savez(f"{d}/data.npz", X=X, labels=labels, batches=batches)
        cmd = [python, str(Path(__file__).with_name('czbenchmarks_runner.py')), f"{d}/data.npz", f"{d}/out.json",
               '--tasks', tasks, '--warmup', str(warmup)]
        subprocess.run(cmd, check=True)
        return json.loads(Path(f"{d}/out.json").read_text())


REFS = {'clustering': ref_clustering, 'embedding': ref_embedding, 'label_prediction': ref_label_prediction,
        'batch_integration': ref_batch_integration}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--n', type=int, default=20000)
    ap.add_argument('--tasks', default='batch_integration,embedding,clustering,label_prediction')
    ap.add_argument('--reference', action='store_true', help="also run the reference implementations")
    ap.add_argument('--czbenchmarks-python', default=None, help="a Python with cz-benchmarks installed: run its tasks on the same data")
    ap.add_argument('--czb-warmup', type=int, default=5000, help="cells of cz-benchmarks' warm-up run (JIT), reported separately; 0 = cold")
    ap.add_argument('--json', default=None)
    a = ap.parse_args(argv)
    import anndata as ad, numba
    from benchnb.cells.tasks import CellDataset
    from benchnb.cells import metrics as M
    # warm-up: numba kernels and umap/igraph imports compile once per installation (cached afterwards)
    Xw, lw, bw = make_embedding(600); t0 = time.perf_counter()
    M.knn(Xw, 20); M.silhouette_samples(Xw, lw); M.umap_connectivities(M.knn(Xw, 15)); M.knn(Xw.astype(np.float32), 20, dtype=np.float32)
    M.silhouette_samples(Xw, lw, dtype=np.float32)
    if a.reference:   # the reference's JIT too (pynndescent is used from 4096 cells)
        Xr, lr_, br = make_embedding(5000); ref_clustering(Xr, lr_, br)
    print(f"warm-up (JIT) {time.perf_counter() - t0:.1f} s; numba threads {numba.get_num_threads()}; cpus {os.cpu_count()}", flush=True)
    X, labels, batches = make_embedding(a.n)
    adata = ad.AnnData(obs=pd.DataFrame({'cell_type': labels, 'batch': batches}, index=np.arange(a.n).astype(str)))
    adata.obsm['model'] = X
    ds = CellDataset(adata, f'synthetic{a.n}'); ds.add_embedding('model')
    report = []
    t0 = time.perf_counter()
    for task in a.tasks.split(','):
        vals, t, mem = measure(lambda: ours(task, ds))
        row = {'n': a.n, 'task': task, 'ours_s': round(t, 2), 'ours_peak_MB': round(mem, 1), 'values': vals}
        print(f"[ours] n={a.n} {task}: {t:.1f} s, peak +{mem:.0f} MB, {vals if task != 'label_prediction' else {k: v for k, v in vals.items() if 'MEAN' in k}}", flush=True)
        if a.reference:
            rvals, rt, rmem = measure(lambda: REFS[task](X, labels, batches))
            diff = {k: abs(vals[k] - v) for k, v in rvals.items() if k in vals}
            row.update(ref_s=round(rt, 2), ref_peak_MB=round(rmem, 1), ref_values=rvals, max_abs_diff=max(diff.values()), speedup=round(rt / t, 2))
            print(f"[ref ] n={a.n} {task}: {rt:.1f} s, peak +{rmem:.0f} MB, |diff| {diff}, speed-up ×{rt / t:.2f}", flush=True)
        report.append(row)
    print(f"TOTAL ours n={a.n}: {sum(r['ours_s'] for r in report):.1f} s (wall incl. shared kNN {time.perf_counter() - t0:.1f} s)", flush=True)
    if a.reference:
        print(f"TOTAL reference calls: {sum(r['ref_s'] for r in report):.1f} s, ratio ×{sum(r['ref_s'] for r in report) / sum(r['ours_s'] for r in report):.2f}")
    if a.czbenchmarks_python:
        czb = run_czbenchmarks(a.czbenchmarks_python, X, labels, batches, a.tasks, a.czb_warmup)
        print(f"cz-benchmarks {czb['czbenchmarks_version']}, warm-up (JIT, {a.czb_warmup} cells): {czb.get('warmup_s', 0)} s")
        for row in report:
            c = czb['tasks'][row['task']]; shared = [k for k in c['values'] if k in row['values']]
            diff = {k: abs(row['values'][k] - c['values'][k]) for k in shared}
            row.update(czb_s=c['s'], czb_peak_MB=c['peak_MB'], czb_values=c['values'], czb_max_abs_diff=max(diff.values()),
                       czb_worst=max(diff, key=diff.get), czb_n_values=len(shared), czb_speedup=round(c['s'] / row['ours_s'], 2))
            print(f"[czb ] {row['task']}: cz-benchmarks {c['s']:.1f} s (+{c['peak_MB']:.0f} MB) vs ours {row['ours_s']:.1f} s (+{row['ours_peak_MB']:.0f} MB)"
                  f" → ×{row['czb_speedup']:.2f}; {len(shared)} values, max |Δ| {row['czb_max_abs_diff']:.2e} ({row['czb_worst']})", flush=True)
        tc, to = sum(r['czb_s'] for r in report), sum(r['ours_s'] for r in report)
        print(f"SUITE n={a.n}: cz-benchmarks {tc:.1f} s, ours {to:.1f} s → ×{tc / to:.2f}"
              f" (+ cz-benchmarks' JIT warm-up {czb.get('warmup_s', 0)} s not counted)", flush=True)
    if a.json: Path(a.json).write_text(json.dumps(report, indent=2, default=float))
    return report


if __name__ == '__main__':
    main()
