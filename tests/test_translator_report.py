"The translator report notebook runs end to end (papermill) with tiny parameters."
import json, re, shutil

import pandas as pd

from benchnb.core import load_plugins, resource_path
from report_html import check_report_html, check_reader_view
from benchnb.report import reports, run_report

HOSTILE = '<img src=x onerror=alert(2)>'      # a target named like markup (issue 20, item 2)

def test_translator_report(tmp_path, monkeypatch):
    from benchnb.translator.server import ReferenceServer, demo_kg
    load_plugins()
    assert reports['translator'].family == 'translator'
    cfg = tmp_path/'config'                                              # the shipped config plus a hostile target name
    shutil.copytree(resource_path('config', 'translator'), cfg)
    server = ReferenceServer(demo_kg()).start()                          # loopback, ephemeral port
    try:
        (cfg/'targets.json').write_text(json.dumps({**json.loads((cfg/'targets.json').read_text()),
                                                    HOSTILE: {'fetch': {'url': server.url + '/query'}}}))
        params = {'benchmarks': ['DrugCentral_subset'], 'targets': ['reference', 'reference-shuffled', HOSTILE], 'k': 5,
                  'latency': 0.01, 'config': 'config'}                     # relative to the user's folder: shown as given
        monkeypatch.chdir(tmp_path)
        res = run_report('translator', params, tmp_path)
    finally: server.stop()
    check_report_html(res.html, tmp_path)        # summary first, code hidden, offline, no noise or paths
    page = res.html.read_text(encoding='utf-8')
    assert not re.search(r'<[a-z]+\b[^>]*\sonerror=', page) and '&lt;img src=x onerror=alert(2)&gt;' in page
    r = check_reader_view(res.html, tmp_path, tmp_path)   # in Chromium: no script ran, no reprs or paths; fits the page
    assert r['scriptsRan'] == 0
    assert res.status == 'ok' and res.html.exists()
    files = tmp_path/'translator_files'
    summary = pd.read_csv(files/'summary.csv')
    assert list(summary['target']) == ['reference', 'reference-shuffled', HOSTILE]
    assert (summary['queries'] == 5).all() and (summary['failed+missing'] == 0).all()
    assert ((summary['MRR'] > 0) & (summary['MRR'] < 1)).all()           # non-trivial, imperfect demo numbers
    assert (files/'metrics_vs_k.png').stat().st_size > 0
    outs = sorted((files/'results'/'DrugCentral_subset').glob('*/*/output.json'))
    assert len(outs) == 3
    o = json.loads(outs[0].read_text())
    assert o['k'] == 5 and o['benchmark']['num_queries'] == 5 and list(o)[:4] == ['k', 'benchmark', 'metrics', 'queries']
    # the Test Harness section: two local targets, two runs, a trend
    acc = pd.read_csv(files/'acceptance_summary.csv')
    assert set(acc['agent']) == {'harness-a', 'harness-b'} and set(acc['suite']) == {'sprint_4_tests', 'pathfinder_tests'}
    assert (acc.set_index(['suite', 'agent'])['all'].xs('harness-a', level='agent') > 0.5).all()
    assert len((files/'acceptance_verdicts.jsonl').read_text().splitlines()) == 2 * (106 + 90)
    assert (files/'acceptance_trend.png').stat().st_size > 0
    assert len(list((files/'results'/'acceptance'/'sprint_4_tests'/'harness-a').glob('*/verdicts.jsonl'))) == 2
