"The leaderboard report under papermill: demo mode (it builds its own database) and on a given database."
import json, re
import pandas as pd
import pytest

pytest.importorskip('papermill')
from benchnb.core import load_plugins
from benchnb.report import reports, run_report
from report_html import check_report_html, check_reader_view


def test_leaderboard_report_demo_then_on_its_database(tmp_path):
    load_plugins()
    assert 'leaderboard' in reports.names() and reports['leaderboard'].demo_parameters == {'results': None}
    res = run_report('leaderboard', {'demo_families': ['translator', 'plism']}, tmp_path/'a', html=True)
    assert res.status == 'ok' and res.html.exists()
    check_report_html(res.html, tmp_path)
    r = check_reader_view(res.html, tmp_path, tmp_path, prints=False)     # no `database: /…`, no reprs, no print lines
    assert 'Database demo_results/results.duckdb' in r['text']
    files = tmp_path/'a'/'leaderboard_files'
    p = pd.read_csv(files/'plism_leaderboard.csv')
    assert p.extractor.tolist() == ['extractor-robust', 'extractor-mid', 'extractor-fragile']
    t = pd.read_csv(files/'translator_leaderboard.csv')
    assert t.target.tolist() == ['ranker-strong', 'ranker-mid', 'ranker-random']
    assert (files/'plism_scatter_30.png').exists() and (files/'translator_curves_DrugCentral_subset.png').exists()
    assert 'No done cells results in this database' in json.dumps(json.loads(res.notebook.read_text()))
    # the same report over an existing database (the one the demo built), Translator at k = 5 only
    db = files/'demo_results'
    params = {'results': str(db), 'families': ['translator'], 'options': {'k': 5}}
    res2 = run_report('leaderboard', params, tmp_path/'b', html=False)
    assert res2.status == 'ok'
    t5 = pd.read_csv(tmp_path/'b'/'leaderboard_files'/'translator_leaderboard.csv')
    assert t5.target.tolist() == t.target.tolist()
    outputs = [json.loads((db/'runs'/'translator'/x/'output.json').read_text()) for x in t5.target]
    want = [o['metrics']['precision_at_k'][4] for o in outputs]
    assert t5.precision_at_k.tolist() == pytest.approx(want)
    assert not (tmp_path/'b'/'leaderboard_files'/'plism_leaderboard.csv').exists()

    # the same database with a model, a target and a benchmark named like markup, and a failed unit's error likewise
    import duckdb, shutil
    hostile = tmp_path/'hostile'
    shutil.copytree(db, hostile)
    con = duckdb.connect(str(hostile/'results.duckdb'))
    for table in ['units', 'metrics']:
        con.execute(f"UPDATE {table} SET model = '<script>alert(1)</script>' WHERE model = 'extractor-mid'")
        con.execute(f"UPDATE {table} SET model = '<img src=x onerror=alert(2)>' WHERE model = 'ranker-mid'")
        con.execute(f"UPDATE {table} SET dataset = '../../<b>bench</b>' WHERE family = 'translator'")
    con.execute("UPDATE units SET status = 'failed', error = '<img src=y onerror=alert(3)>' WHERE model = 'ranker-random'")
    run_id = con.execute("SELECT run_id FROM runs LIMIT 1").fetchone()[0]      # two cells models, close and far apart
    for i, (model, values) in enumerate({'<i>m1</i>': (0.61, 0.90, 0.50), 'm2': (0.60, 0.10, 0.45)}.items()):
        con.execute("INSERT INTO units VALUES (?, 'cells', 'pbmc', ?, 'clustering', '{}', 'done', NULL, now(), now(), 'w', ?)",
                    [f'c{i}', model, run_id])
        for metric, v in zip(['ARI', 'NMI', 'silhouette'], values):
            con.execute("INSERT INTO metrics VALUES (?, ?, 'cells', 'pbmc', ?, 'clustering', ?, ?, '{}', 0)",
                        [run_id, f'c{i}', model, metric, v])
    con.close()
    res3 = run_report('leaderboard', {'results': str(hostile)}, tmp_path/'c', html=True)
    page = res3.html.read_text(encoding='utf-8')
    assert res3.status == 'ok'
    assert not re.findall(r'<script[^>]*>\s*alert\(|<[a-z]+\b[^>]*\sonerror=|<b>bench', page)   # issue 20, item 2
    for shown in ['&lt;script&gt;alert(1)&lt;/script&gt;', '&lt;img src=x onerror=alert(2)&gt;', 'onerror=alert(3)']:
        assert shown in page
    r = check_reader_view(res3.html, tmp_path, tmp_path, prints=False)   # heat-table numbers at WCAG AA contrast or better
    assert r['scriptsRan'] == 0 and r['colouredCells'] == 6 and r['minContrast'] >= 4.5
    heat = re.findall(r'#T_\w+_row\d+_col\d+ \{\s*background-color: (#[0-9a-f]{6})', page)
    assert len(set(heat)) == 6          # one absolute scale: 0.61 and 0.60 differ a little, not as the two ends of a min–max
    curves = list(tmp_path.rglob('translator_curves_*'))
    assert curves and all(p.parent.name == 'leaderboard_files' for p in curves)     # a `/` in the name stays inside


def test_summary_leader_is_the_leader_every_model_is_compared_with(tmp_path):
    """Issue 28 §5: the Summary's cells leader (best mean scaled metric) is the model 'Every model against the leader'
    compares with — on main the second section took the best ARI instead, another model here."""
    from benchnb.resultsdb.db import ResultsDB
    load_plugins()
    scores = {'A': {'adjusted_rand_index': 0.50, 'nmi': 0.90, 'silhouette_score': 0.90},     # best mean scaled
              'B': {'adjusted_rand_index': 0.60, 'nmi': 0.10, 'silhouette_score': 0.10},     # best ARI
              'C': {'adjusted_rand_index': 0.20, 'nmi': 0.50, 'silhouette_score': 0.50}}
    with ResultsDB(tmp_path/'db') as db:
        db.begin_run('r', {})
        for model, ms in scores.items():
            for seed in range(3):
                u = dict(unit_id=f'{model}-{seed}', family='cells', dataset='pbmc', model=model, task='clustering',
                         status='done')
                rows = [dict(metric=m, value=v + 0.01 * seed, seed=seed) for m, v in ms.items()]
                db.record_unit('r', u, rows, [dict(metric=m, value=v + 0.01 * seed, obs_id=f'seed={seed}')
                                              for m, v in ms.items()])
        db.finish_run('r', 'done')
    res = run_report('leaderboard', {'results': str(tmp_path/'db'), 'families': ['cells']}, tmp_path/'r', html=False)
    assert res.status == 'ok'
    text = json.dumps(json.loads(res.notebook.read_text()))
    summary = re.findall(r'\*\*Cells\*\* \([^)]*\): (?:<code>|`)([^<`]+)(?:</code>|`)', text)
    against = re.findall(r'every model against (?:<code>|`)([^<`]+)(?:</code>|`)', text)
    assert summary == ['A'] and against == ['A'], (summary, against)
