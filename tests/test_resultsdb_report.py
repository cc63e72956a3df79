"The leaderboard report under papermill: demo mode (it builds its own database) and on a given database."
import json
from pathlib import Path
import pandas as pd
import pytest

pytest.importorskip('papermill')
from benchnb.core import load_plugins
from benchnb.report import reports, run_report


def test_leaderboard_report_demo_then_on_its_database(tmp_path):
    load_plugins()
    assert 'leaderboard' in reports.names() and reports['leaderboard'].demo_parameters == {'results': None}
    res = run_report('leaderboard', {'demo_families': ['translator', 'plism']}, tmp_path/'a', html=True)
    assert res.status == 'ok' and res.html.exists()
    files = tmp_path/'a'/'leaderboard_files'
    p = pd.read_csv(files/'plism_leaderboard.csv')
    assert p.extractor.tolist() == ['extractor-robust', 'extractor-mid', 'extractor-fragile']
    t = pd.read_csv(files/'translator_leaderboard.csv')
    assert t.target.tolist() == ['ranker-strong', 'ranker-mid', 'ranker-random']
    assert (files/'plism_scatter_30.png').exists() and (files/'translator_curves_DrugCentral_subset.png').exists()
    assert 'no done cells results in this database' in json.dumps(json.loads(res.notebook.read_text()))
    # the same report over an existing database (the one the demo built), Translator at k = 5 only
    db = files/'demo_results'
    params = {'results': str(db), 'families': ['translator'], 'translator_k': 5}
    res2 = run_report('leaderboard', params, tmp_path/'b', html=False)
    assert res2.status == 'ok'
    t5 = pd.read_csv(tmp_path/'b'/'leaderboard_files'/'translator_leaderboard.csv')
    assert t5.target.tolist() == t.target.tolist()
    outputs = [json.loads((db/'runs'/'translator'/x/'output.json').read_text()) for x in t5.target]
    want = [o['metrics']['precision_at_k'][4] for o in outputs]
    assert t5.precision_at_k.tolist() == pytest.approx(want)
    assert not (tmp_path/'b'/'leaderboard_files'/'plism_leaderboard.csv').exists()
