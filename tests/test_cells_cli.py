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
    saved = json.loads(out.read_text())                 # -o: the rows with the version and arguments, a table on stdout
    assert set(saved) == {'benchnb_version', 'args', 'results', 'resources'} and saved['args']['seed'] == 42, saved.keys()
    cost = saved['resources']                           # what the run cost, measured by the command itself
    assert cost['wall_s'] > 0 and cost['cpu_s'] >= 0 and cost['peak_rss_mb'] > 0 and cost['gpu_peak_mb'] is None, cost
    rows = saved['results']
    assert r.stdout.split('\n')[0].split() == ['task', 'model', 'metric', 'value'] and '{' not in r.stdout, r.stdout
    assert len(r.stdout.strip().splitlines()) == 1 + len(rows)
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


@pytest.fixture(scope='module')
def h5ad_two(tmp_path_factory):
    pb = sc.datasets.pbmc68k_reduced()
    a = ad.AnnData(obs=pb.obs[['bulk_labels', 'phase']].copy())
    a.obsm['X_pca'] = pb.obsm['X_pca']; a.obsm['X_umap'] = pb.obsm['X_umap']
    p = tmp_path_factory.mktemp('scib') / 'pbmc_emb.h5ad'; a.write_h5ad(p)
    return p, pb


def test_scib_table_and_plot(h5ad_two, tmp_path):
    "`cells scib`: the Benchmarker's CSV layout, values checked against independent computations, a PNG plot."
    import pandas as pd
    from sklearn.metrics import silhouette_score
    p, pb = h5ad_two
    out, png = tmp_path / 'scib.csv', tmp_path / 'scib.png'
    r = _benchnb('cells', 'scib', p, '--embedding', 'X_pca,X_umap', '--labels', 'bulk_labels', '--batch', 'phase',
                 '--pre-integrated', 'X_pca', '--out', out, '--plot', png, '--parity', '0.5')   # values of 0.5.10
    assert r.returncode == 0, r.stderr
    cost = json.loads((tmp_path / 'scib.csv.run.json').read_text())['resources']   # the CSV keeps scib-metrics' layout
    assert cost['wall_s'] > 0 and cost['cpu_s'] >= 0 and cost['peak_rss_mb'] > 0, cost
    df = pd.read_csv(out, index_col=0)
    assert df.index.name == 'Embedding' and list(df.index) == ['X_pca', 'X_umap', 'Metric Type']
    assert list(df.columns) == ['Isolated labels', 'KMeans NMI', 'KMeans ARI', 'Silhouette label', 'cLISI', 'BRAS', 'iLISI',
                                'KBET', 'Graph connectivity', 'PCR comparison', 'Batch correction', 'Bio conservation', 'Total']
    assert df.loc['Metric Type'].tolist() == ['Bio conservation'] * 5 + ['Batch correction'] * 5 + ['Aggregate score'] * 3
    v = df.drop('Metric Type').astype(float)
    for key in ('X_pca', 'X_umap'):
        X = np.asarray(pb.obsm[key], np.float64)
        assert abs(v.loc[key, 'Silhouette label'] - (silhouette_score(X, pb.obs.bulk_labels) + 1) / 2) < 1e-9
        bio, batch = v.loc[key].iloc[:5].mean(), v.loc[key].iloc[5:10].mean()
        assert abs(v.loc[key, 'Total'] - (0.4 * batch + 0.6 * bio)) < 1e-12
    assert v.loc['X_pca', 'PCR comparison'] == 0.0            # pre-integrated = the embedding itself
    assert abs(v.loc['X_pca', 'iLISI'] - 0.2653) < 1e-3        # scib-metrics 0.5.10 on these data (benchmarks/RESULTS-cells.md)
    # scib-metrics 0.5.10's own values (its JAX k-means, seed 0; its KBET given the same exact neighbours)
    assert abs(v.loc['X_pca', 'KMeans NMI'] - 0.6406) < 1e-4 and abs(v.loc['X_pca', 'KMeans ARI'] - 0.4249) < 1e-4
    assert abs(v.loc['X_pca', 'KBET'] - 0.93661) < 1e-5
    assert png.read_bytes()[:4] == b'\x89PNG'
    assert 'Total' in r.stdout


def test_scib_one_embedding_fails_others_written(h5ad_two, tmp_path):
    "An embedding with an all-zero row costs its own row (NaN, one line naming key and row, exit 3), not the table."
    import pandas as pd
    p, pb = h5ad_two
    a = ad.read_h5ad(p); bad = np.array(a.obsm['X_pca']); bad[17] = 0; a.obsm['X_bad'] = bad
    q = tmp_path / 'bad.h5ad'; a.write_h5ad(q)
    out = tmp_path / 'scib.csv'
    r = _benchnb('cells', 'scib', q, '-e', 'X_pca,X_bad', '-l', 'bulk_labels', '-b', 'phase', '--pre-integrated', 'X_pca',
                 '--skip', 'kbet_per_label', '--out', out)
    assert r.returncode == 3, r.stderr
    assert "failed: embedding 'X_bad': 1 all-zero row(s), first row 17" in r.stderr
    v = pd.read_csv(out, index_col=0).drop('Metric Type').astype(float)
    assert v.loc['X_bad'].isna().all() and v.loc['X_pca'].notna().all()


def test_scib_parity_and_sbee(h5ad_two, tmp_path):
    "`--parity 0.6` (default) and `0.5` agree on the ten columns; `--add sbee` needs 0.6 and joins Batch correction."
    import pandas as pd
    p, _ = h5ad_two
    base = ['cells', 'scib', p, '-e', 'X_pca', '-l', 'bulk_labels', '-b', 'phase', '--pre-integrated', 'X_umap',
            '--skip', 'kbet_per_label,isolated_labels,nmi_ari_cluster_labels_kmeans']
    r = _benchnb(*base, '--add', 'sbee', '--parity', '0.5', '--out', tmp_path / 'x.csv')
    assert r.returncode != 0 and 'use --parity 0.6' in r.stderr and not (tmp_path / 'x.csv').exists()
    r6 = _benchnb(*base, '--add', 'sbee', '--out', tmp_path / 'b6.csv')
    r5 = _benchnb(*base, '--parity', '0.5', '--out', tmp_path / 'b5.csv')
    assert r6.returncode == 0 and r5.returncode == 0, r6.stderr + r5.stderr
    v6 = pd.read_csv(tmp_path / 'b6.csv', index_col=0).drop('Metric Type').astype(float)
    v5 = pd.read_csv(tmp_path / 'b5.csv', index_col=0).drop('Metric Type').astype(float)
    cols = ['Silhouette label', 'cLISI', 'BRAS', 'iLISI', 'Graph connectivity', 'PCR comparison']
    assert np.allclose(v6[cols], v5[cols], atol=1e-12) and 'sBEE' not in v5
    assert abs(v6.loc['X_pca', 'Batch correction'] - v6.loc['X_pca', ['BRAS', 'iLISI', 'Graph connectivity', 'PCR comparison', 'sBEE']].mean()) < 1e-12


def test_scib_skip_weight_n_jobs_and_pcr_note(h5ad_two, tmp_path):
    "`--skip` drops metrics (scib-metrics field or column names), `--batch-weight` sets Total, a PCR of 0 is explained."
    import pandas as pd
    from sklearn.metrics import silhouette_score
    p, pb = h5ad_two
    r = _benchnb('cells', 'scib', p, '-e', 'X_pca,X_umap', '-l', 'bulk_labels', '-b', 'phase', '--pre-integrated', 'X_pca',
                 '--skip', 'kbet_per_label,iLISI', '--batch-weight', '0.5', '--n-jobs', '1', '--out', tmp_path/'s.csv')
    assert r.returncode == 0, r.stderr
    df = pd.read_csv(tmp_path/'s.csv', index_col=0)
    assert list(df.columns) == ['Isolated labels', 'KMeans NMI', 'KMeans ARI', 'Silhouette label', 'cLISI', 'BRAS',
                                'Graph connectivity', 'PCR comparison', 'Batch correction', 'Bio conservation', 'Total']
    v = df.drop('Metric Type').astype(float)
    X = np.asarray(pb.obsm['X_umap'], np.float64)
    assert abs(v.loc['X_umap', 'Silhouette label'] - (silhouette_score(X, pb.obs.bulk_labels) + 1) / 2) < 1e-9
    for key in ('X_pca', 'X_umap'):
        assert abs(v.loc[key, 'Total'] - (0.5 * v.loc[key].iloc[5:8].mean() + 0.5 * v.loc[key].iloc[:5].mean())) < 1e-12
    assert "PCR comparison is 0 for X_pca" in r.stderr and '--pre-integrated X_pca' in r.stderr
    r = _benchnb('cells', 'scib', p, '-e', 'X_pca', '-l', 'bulk_labels', '-b', 'phase', '--skip', 'kbet_global',
                 '--out', tmp_path/'x.csv')
    assert r.returncode == 1 and "unknown scIB metric 'kbet_global'" in r.stderr and not (tmp_path/'x.csv').exists(), r.stderr


def test_scib_bad_key_and_extras_alone(h5ad_two, h5ad, tmp_path):
    p, _ = h5ad_two
    r = _benchnb('cells', 'scib', p, '-e', 'X_scvi', '-l', 'bulk_labels', '-b', 'phase', '--out', tmp_path / 'x.csv')
    assert r.returncode != 0 and 'obsm/X_scvi' in r.stderr and 'Traceback' not in r.stderr
    assert not (tmp_path / 'x.csv').exists()
    r = _benchnb('cells', 'run', h5ad, '-e', 'X_pca', '-l', 'bulk_labels', '--tasks', 'embedding', '--extras')
    assert r.returncode != 0 and '--extras adds the scIB metrics' in r.stderr


def test_scib_device(h5ad_two, tmp_path):
    "`--device torch-cpu` runs the torch path (what `--device cuda` runs): the same table; an unknown device is refused."
    import pandas as pd
    p, _ = h5ad_two
    args = ['cells', 'scib', p, '-e', 'X_pca', '-l', 'bulk_labels', '-b', 'phase', '--pre-integrated', 'X_umap']
    r1 = _benchnb(*args, '--out', tmp_path / 'cpu.csv')
    r2 = _benchnb(*args, '--out', tmp_path / 'torch.csv', '--device', 'torch-cpu')
    assert r1.returncode == 0 and r2.returncode == 0, r1.stderr + r2.stderr
    a, b = (pd.read_csv(tmp_path / f, index_col=0).drop('Metric Type').astype(float) for f in ('cpu.csv', 'torch.csv'))
    assert (a - b).abs().max().max() <= 1e-6
    assert (a[['KMeans NMI', 'KMeans ARI', 'KBET']] == b[['KMeans NMI', 'KMeans ARI', 'KBET']]).all().all()
    r = _benchnb(*args, '--out', tmp_path / 'x.csv', '--device', 'tpu')
    assert r.returncode != 0 and "unknown device 'tpu'" in r.stderr and 'Traceback' not in r.stderr


@pytest.mark.parametrize('args, field', [(['--seed', '-5'], '--seed'), (['--seeds', '1,-2'], '--seeds'),
                                         (['--seed', str(2**33)], '--seed')])
def test_run_bad_seed_is_refused_before_reading(h5ad, args, field):
    "A seed numpy cannot take is a usage fault named on one line (was an internal error after the data was read)."
    r = _benchnb('cells', 'run', h5ad, '-e', 'X_pca', '-l', 'cell_type', '--tasks', 'clustering', *args)
    assert r.returncode == 1 and 'internal error' not in r.stderr, r.stderr
    assert f"field '{field}'" in r.stderr and 'a seed is an integer from 0 to 4294967295' in r.stderr, r.stderr


def test_scib_bad_plot_format_refused_before_any_metric(h5ad_two, tmp_path):
    "An image format matplotlib cannot write fails at once, naming --plot (it used to fail after every metric ran)."
    p, _ = h5ad_two
    r = _benchnb('cells', 'scib', p, '--embedding', 'X_pca', '--labels', 'bulk_labels', '--batch', 'phase',
                 '--out', tmp_path/'s.csv', '--plot', tmp_path/'s.jpgx')
    assert r.returncode == 1 and 'internal error' not in r.stderr, r.stderr
    assert "field '--plot'" in r.stderr and "unknown image format 'jpgx'" in r.stderr, r.stderr
    assert 'scIB metrics' not in r.stderr and not (tmp_path/'s.csv').exists()   # no metric computed, nothing written


def _first_result():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'benchmarks'))
    import first_result
    return first_result


def test_first_result_benchmark_logic(tmp_path):
    "benchmarks/first_result.py: cold and warm runs share one fresh cache folder; its table and its section in RESULTS."
    fr = _first_result()
    r = fr.cold_warm([sys.executable, '-c', 'import os, pathlib; assert not any(pathlib.Path(os.environ["NUMBA_CACHE_DIR"]).iterdir())'], tmp_path)
    assert set(r) == {'cold', 'warm'} and r['cold']['wall'] > 0 and r['warm']['cpu'] >= 0
    md = fr.markdown({'x': {'cold': {'wall': 5.0, 'cpu': 4.0}, 'warm': {'wall': 1.0, 'cpu': 1.0}},
                      'y': {'cold': {'wall': 3.0, 'cpu': 2.0}, 'warm': {'wall': 1.5, 'cpu': 1.0}}}, '1.00 1.00 1.00')
    assert '| `x` | 5.0 | 1.0 | +4.0 | 4.0 | 1.0 | +3.0 | missed |' in md and '| `y` | 3.0 | 1.5 | +1.5 | 2.0 | 1.0 | +1.0 | met |' in md
    busy = fr.markdown({'x': {'cold': {'wall': 9.0, 'cpu': 4.0}, 'warm': {'wall': 1.0, 'cpu': 2.0}}}, '16.0 15.0 14.0', cores=2)
    assert 'goal judged on CPU s' in busy and '| +8.0 | 4.0 | 2.0 | +2.0 | met |' in busy     # 16 > 2 cores: CPU gap
    p = tmp_path / 'RESULTS.md'; p.write_text('# results\n')
    fr.write_section('first table', p); fr.write_section('second table', p)
    text = p.read_text()
    assert text.count(fr.BEGIN) == 1 and 'second table' in text and 'first table' not in text and text.startswith('# results')


def test_first_run_compiles_nothing_on_small_inputs(h5ad, tmp_path):
    "On an empty numba cache, `cells run` and `cells scib` on 700 cells compile (and so cache) no benchnb kernel."
    cache = tmp_path / 'numba-cache'; cache.mkdir()
    env = {**os.environ, 'NUMBA_CACHE_DIR': str(cache), 'BENCHNB_PROGRESS': '0', 'PYTHONPATH': str(Path(__file__).resolve().parents[1])}
    main = 'import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))'
    for args in (['cells', 'run', h5ad, '-e', 'X_pca', '-l', 'bulk_labels', '-b', 'phase', '-t', 'clustering,embedding,batch_integration'],
                 ['cells', 'scib', h5ad, '-e', 'X_pca', '-l', 'bulk_labels', '-b', 'phase', '-o', tmp_path / 'scib.csv']):
        r = subprocess.run([sys.executable, '-c', main, *map(str, args)], capture_output=True, text=True, env=env, timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]
    compiled = [p.name for p in cache.rglob('*.nbi') if 'benchnb' in str(p)]
    assert compiled == [], compiled


def test_run_pca_baseline_from_raw_on_scanpys_own_file(tmp_path):
    "scanpy's pbmc68k_reduced as shipped (X scaled, counts only in .raw as log1p): --use-raw gives the PCA baseline."
    p = tmp_path / 'pbmc68k_reduced.h5ad'; sc.datasets.pbmc68k_reduced().write_h5ad(p)
    args = ['cells', 'run', p, '-e', 'X_pca', '-l', 'bulk_labels', '-t', 'embedding', '--baseline', 'pca']
    r = _benchnb(*args)
    assert r.returncode == 1 and 'raw non-negative counts; give --use-raw or --layer' in r.stderr, r.stderr
    r = _benchnb(*args, '--use-raw')
    assert r.returncode == 0, r.stderr[-2000:]
    rows = json.loads(r.stdout)
    assert {x['model'] for x in rows} == {'X_pca', 'baseline_pca'} and all(0 <= x['value'] <= 1 for x in rows)
