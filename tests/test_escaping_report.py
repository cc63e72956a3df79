"Names from users, files and responses reach the reports' HTML as text (issue 20, item 2), and a name cannot leave its directory."
import json, re, shutil
from pathlib import Path
import pytest

pytest.importorskip('papermill')
from benchnb.core import load_plugins, resource_path
from benchnb.report import ReportError, run_report
from report_html import check_reader_view

HOSTILE = ['<script>alert(1)</script>', '<img src=x onerror=alert(2)>']

def raw_markup(page: str) -> list[str]:
    "Markup from a hostile name that a browser would run: a <script> with our payload, an on… attribute on any element."
    return re.findall(r'<script[^>]*>\s*alert\(|<[a-z]+\b[^>]*\sonerror=', page)

def test_translator_report_escapes_a_target_name(tmp_path):
    from benchnb.translator.server import ReferenceServer, demo_kg
    load_plugins()
    cfg = tmp_path/'config'
    shutil.copytree(resource_path('config', 'translator'), cfg)
    server = ReferenceServer(demo_kg()).start()                                  # loopback, ephemeral port
    try:
        targets = json.loads((cfg/'targets.json').read_text())
        targets[HOSTILE[1]] = {'fetch': {'url': server.url + '/query'}}
        (cfg/'targets.json').write_text(json.dumps(targets))
        params = {'benchmarks': ['DrugCentral_subset'], 'targets': ['reference', HOSTILE[1]], 'k': 5,
                  'acceptance_suites': [], 'config': str(cfg)}
        res = run_report('translator', params, tmp_path/'out')
    finally: server.stop()
    page = res.html.read_text(encoding='utf-8')
    assert res.status == 'ok' and not raw_markup(page)
    assert '&lt;img src=x onerror=alert(2)&gt;' in page                        # shown, as text
    check_reader_view(res.html, tmp_path, tmp_path)

@pytest.mark.parametrize('bad', ['../escaped', 'a/b', '..'])
def test_translator_report_refuses_a_target_that_leaves_its_directory(tmp_path, bad):
    load_plugins()
    with pytest.raises(ReportError, match='targets'):
        run_report('translator', {'benchmarks': ['DrugCentral_subset'], 'targets': ['reference', bad],
                                  'acceptance_suites': []}, tmp_path/'out')
    assert not (tmp_path/'escaped').exists() and not list(tmp_path.rglob('*/DrugCentral_subset/*'))
