"Benchmark scripts stay runnable: the cells suite on a tiny synthetic set (its JSON report and its values)."
import json, os, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip('scanpy')


def test_cells_suite_smoke(tmp_path):
    out = tmp_path / 'suite.json'
    r = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'cells_suite.py'), '--n', '900', '--tasks', 'embedding,batch_integration',
                        '--reference', '--json', str(out)], capture_output=True, text=True, timeout=600,
                       env={**os.environ, 'BENCHNB_PROGRESS': '0'})
    assert r.returncode == 0, r.stderr[-2000:]
    rows = json.loads(out.read_text())
    assert [x['task'] for x in rows] == ['embedding', 'batch_integration']
    for x in rows:                     # the reference calls (sklearn) give the same values at this size
        assert x['max_abs_diff'] < 1e-9, x
    assert 'TOTAL ours n=900' in r.stdout


def test_scib_parity_smoke(tmp_path):
    "scib_parity.py without the side venv: our table on a tiny synthetic set, checked against naive computations."
    import numpy as np, pandas as pd
    from scipy.spatial.distance import cdist
    from sklearn.metrics import silhouette_score
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    from scib_parity import load
    out = tmp_path / 'parity.json'
    r = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'scib_parity.py'), '--data', 'synthetic', '--n', '600', '--json', str(out)],
                       capture_output=True, text=True, timeout=600, env={**os.environ, 'BENCHNB_PROGRESS': '0'})
    assert r.returncode == 0, r.stderr[-2000:]
    rep = json.loads(out.read_text()); row = rep['ours']['integrated']
    embs, labels, batches, X_pre = load('synthetic', 600); X = embs['integrated']
    assert abs(row['Silhouette label'] - (silhouette_score(X, labels) + 1) / 2) < 1e-9
    def naive_pcr(Y):                       # PCA + per-PC least squares on the one-hot batch, variance-weighted R²
        Yc = Y - Y.mean(0); U, s, _ = np.linalg.svd(Yc, full_matrices=False); pcs = U * s
        oh = pd.get_dummies(batches).to_numpy(float); oh -= oh.mean(0)
        r2 = [1 - ((pcs[:, k] - oh @ np.linalg.lstsq(oh, pcs[:, k], rcond=None)[0]) ** 2).sum() / (pcs[:, k] ** 2).sum() for k in range(pcs.shape[1])]
        return np.dot(r2, s ** 2) / (s ** 2).sum()
    assert abs(row['PCR comparison'] - max(0, (naive_pcr(X_pre) - naive_pcr(X)) / naive_pcr(X_pre))) < 1e-9
    bras = []                               # BRAS: cosine distance, b = mean over all cells of the other batches
    for g in np.unique(labels):
        m = labels == g; D = cdist(X[m], X[m], 'cosine'); bb = batches[m]; s = []
        for i in range(m.sum()):
            own = bb == bb[i]; a = D[i, own].sum() / (own.sum() - 1); b = D[i, ~own].mean(); s.append((b - a) / max(a, b))
        bras.append(np.mean(1 - np.abs(s)))
    assert abs(row['BRAS'] - np.mean(bras)) < 1e-9
    assert abs(row['Total'] - (0.4 * np.mean([row[c] for c in ('BRAS', 'iLISI', 'KBET', 'Graph connectivity', 'PCR comparison')])
                               + 0.6 * np.mean([row[c] for c in ('Isolated labels', 'KMeans NMI', 'KMeans ARI', 'Silhouette label', 'cLISI')]))) < 1e-12
    assert 'ours n=600' in r.stdout


def test_plism_cpu_limit_smoke():
    "The PLISM CPU benchmark runs and finds benchnb's top-k values identical to the plain definition's."
    r = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'plism_cpu_limit.py'), '--slides', '3', '--cases', '460',
                        '--threads', '1', '--cpu-time'], capture_output=True, text=True, timeout=600,
                       env={**os.environ, 'BENCHNB_PROGRESS': '0'})
    assert r.returncode == 0, r.stderr[-2000:]
    assert 'top-k values differing: 0 of 12' in r.stdout, r.stdout


def test_cells_run_overhead_smoke(tmp_path):
    "cells_run_overhead.py splits a real `benchnb cells run` into startup/read/tasks/rest that add up to its wall."
    out = tmp_path / 'overhead.json'
    r = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'cells_run_overhead.py'), '--n', '300', '--repeats', '0',
                        '--tasks', 'embedding,batch_integration', '--json', str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    run = json.loads(out.read_text())['runs'][0]
    assert sorted(run['tasks']) == ['batch_integration/X_model', 'embedding/X_model']
    # three clocks that must nest: the tasks' own timings (2 decimals) inside the command's "results in T s" (1 decimal,
    # from its start to its last line), inside the wall time the parent measured around the process
    assert run['task_sum'] <= run['command'] + 0.06, run
    assert run['command'] <= run['wall'] - run['startup'] + 0.06, run
    assert run['startup'] > 0 and run['read'] > 0 and run['rest'] >= 0, run
    assert 'overhead (warm, best)' in r.stdout


def test_scib_small_n_smoke(tmp_path):
    "scib_small_n.py without the side venv: on 60 cells LISI keeps perplexity 30 (after ≠ before, which used 20)."
    out = tmp_path / 'small.json'
    r = subprocess.run([sys.executable, str(ROOT / 'benchmarks' / 'scib_small_n.py'), '--json', str(out)],
                       capture_output=True, text=True, timeout=600, env={**os.environ, 'BENCHNB_PROGRESS': '0'})
    assert r.returncode == 0, r.stderr[-2000:]
    rows = json.loads(out.read_text())['synthetic']
    assert {x['metric'] for x in rows} == {'iLISI', 'cLISI', 'Batch correction', 'Bio conservation', 'Total'}
    assert max(abs(x['after'] - x['before']) for x in rows) > 0.01
