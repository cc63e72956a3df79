"PLISM report: runs end to end (generated slides → random ViT → evaluation) with tiny parameters."
import json
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip('papermill'); pytest.importorskip('timm'); pytest.importorskip('h5py')
from benchnb.core import load_plugins
from report_html import check_report_html, check_reader_view
from benchnb.report import reports, run_report


def test_plism_report_runs(tmp_path):
    load_plugins()
    assert 'plism' in reports.names()
    params = {'extractor': 'vit_micro_random', 'demo_stainings': ['GMH', 'KR'], 'demo_scanners': ['S60', 'AT2'],
              'demo_grid': [4, 3], 'demo_tile_size': 64, 'top_k': [1, 3, 10]}
    res = run_report('plism', params, tmp_path, html=True)
    check_report_html(res.html, tmp_path)        # summary first, code hidden, offline, no noise or paths
    check_reader_view(res.html, tmp_path, tmp_path, prints=False)   # in Chromium: no reprs, prints or paths; fits the page
    assert res.status == 'ok' and res.html.exists()
    files = tmp_path/'plism_files'
    out = files/'metrics'/'12_tiles'/'vit_micro_random'
    m = pd.read_csv(out/'metrics.csv')
    assert len(m) == 6 and list(m.columns[-3:]) == ['top_1_accuracy', 'top_3_accuracy', 'top_10_accuracy']
    r = pd.read_csv(out/'results.csv', index_col=0)
    assert list(r.index) == ['inter-scanner', 'inter-staining', 'inter-scanner, inter-staining', 'all']
    assert (files/'distributions.png').exists() and (files/'slide_heatmap.png').exists()
    nb = json.loads(res.notebook.read_text())
    text = json.dumps(nb)
    assert 'leaderboard' in text and 'inter-scanner, inter-staining' in text
