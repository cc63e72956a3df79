"The `benchnb cells` console command end to end (subprocess): JSON contract and a one-line error."
import json, os, subprocess, sys
from pathlib import Path
import numpy as np
import pytest

sc = pytest.importorskip('scanpy'); ad = pytest.importorskip('anndata')


def _benchnb(*args):
    env = {**os.environ, 'BENCHNB_PROGRESS': '0', 'PYTHONPATH': str(Path(__file__).resolve().parents[1])}
    return subprocess.run([sys.executable, '-c', 'import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))', *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=600)


@pytest.fixture(scope='module')
def h5ad(tmp_path_factory):
    pb = sc.datasets.pbmc68k_reduced()
    a = ad.AnnData(np.expm1(pb.raw.X.toarray()), obs=pb.obs[['bulk_labels', 'phase']].copy(), var=pb.raw.var.copy())
    a.obsm['X_pca'] = pb.obsm['X_pca']
    a.obs['stage'] = np.digitize(pb.obsm['X_pca'][:, 0], np.quantile(pb.obsm['X_pca'][:, 0], [0.2, 0.4, 0.6, 0.8]))   # a 'time' along PC 1
    p = tmp_path_factory.mktemp('cells') / 'pbmc.h5ad'; a.write_h5ad(p)
    return p


def test_run_contract(h5ad, tmp_path):
    out = tmp_path / 'res.json'
    r = _benchnb('cells', 'run', h5ad, '--embedding', 'X_pca', '--labels', 'bulk_labels', '--batch', 'phase',
                 '--tasks', 'embedding,batch_integration', '--baseline', 'pca', '--seed', '42', '--out', out)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert rows == json.loads(out.read_text())
    assert all(set(x) == {'task', 'model', 'metric', 'value', 'params'} for x in rows)
    assert [(x['model'], x['metric']) for x in rows] == [
        ('X_pca', 'silhouette_score'), ('baseline_pca', 'silhouette_score'),
        ('X_pca', 'entropy_per_cell'), ('X_pca', 'batch_silhouette'),
        ('baseline_pca', 'entropy_per_cell'), ('baseline_pca', 'batch_silhouette')]
    assert all(0 <= x['value'] <= 1 for x in rows)


def test_run_sequential_and_knn_option(h5ad):
    r = _benchnb('cells', 'run', h5ad, '--embedding', 'X_pca', '--labels', 'stage', '--tasks', 'sequential')
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [x['metric'] for x in rows] == ['silhouette_score', 'sequential_alignment']
    assert rows[1]['value'] > 0.5            # the stages follow PC 1, so PCA neighbours share them
    r = _benchnb('cells', 'run', h5ad, '--embedding', 'X_pca', '--labels', 'bulk_labels', '--knn', 'hnsw')
    assert r.returncode == 1 and "unknown kNN method 'hnsw'" in r.stderr


def test_run_bad_column(h5ad):
    r = _benchnb('cells', 'run', h5ad, '--embedding', 'X_pca', '--labels', 'celltype')
    assert r.returncode == 1 and r.stdout == ''
    assert r.stderr.startswith("benchnb: error: field 'obs/celltype'") and r.stderr.count('\n') == 1


def test_list_tasks_includes_newer_tasks():
    r = _benchnb('cells', 'list', 'tasks')
    assert r.returncode == 0, r.stderr
    names = [l.split('\t')[0] for l in r.stdout.splitlines()]
    assert {'sequential', 'cross_species_label_prediction', 'perturbation_expression'} <= set(names)
