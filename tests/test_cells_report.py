"Run the cells report notebook with tiny parameters (papermill) and check what it writes."
import json
import pandas as pd
import pytest

pytest.importorskip('scanpy'); pytest.importorskip('papermill')

from benchnb.core import load_plugins
from report_html import check_report_html, check_reader_view
from benchnb.report import run_report


def test_cells_report_tiny(tmp_path):
    load_plugins()
    params = {'n_cells': 300, 'tasks': ['clustering', 'embedding', 'batch_integration'], 'extras': False,
              'seeds': [1, 2], 'perturbation': True}
    out = run_report('cells', params, tmp_path, timeout=600)
    check_report_html(out.html, tmp_path)        # summary first, code hidden, offline, no noise or paths
    r = check_reader_view(out.html, tmp_path, tmp_path)    # in Chromium: no reprs or paths, fits the page, scIB values >= 10 px
    assert 10 <= r['minFigureTextPx'] < 99
    assert out.status == 'ok' and out.html.exists()
    files = tmp_path / 'cells_files'
    rows = json.loads((files / 'metrics.json').read_text())
    assert {r['model'] for r in rows} == {'X_pca', 'baseline_pca', 'random'}
    assert {r['seed'] for r in rows} == {1, 2}
    agg = pd.read_csv(files / 'metrics_aggregated.csv')
    assert set(agg.metric) == {'adjusted_rand_index', 'normalized_mutual_info', 'silhouette_score', 'entropy_per_cell', 'batch_silhouette'}
    assert (agg.n == 2).all()
    ari = agg[agg.metric == 'adjusted_rand_index'].set_index('model')['mean']
    assert ari['X_pca'] > 0.2 > ari['random']          # the negative control cannot recover cell types
    pert = pd.read_csv(files / 'perturbation.csv')
    r = pert[(pert.metric == 'PEARSON_CORRELATION') & (pert.subset == 'all')].groupby('model').value.mean()
    assert r['oracle'] > r['noisy'] > r['baseline_median']
    for f in ('metrics.png', 'umap.png'): assert (files / f).stat().st_size > 1000
    scib = pd.read_csv(files / 'scib.csv', index_col=0)                  # the scIB section (Benchmarker layout)
    assert list(scib.index) == ['X_pca', 'random', 'Metric Type'] and scib.columns[-1] == 'Total'
    v = scib.drop('Metric Type').astype(float)
    assert v.loc['X_pca', 'Bio conservation'] > v.loc['random', 'Bio conservation'] + 0.2
    assert (files / 'scib.png').stat().st_size > 1000
