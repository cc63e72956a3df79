"A name that would leave its directory is refused before any work (issue 20, item 2); escaping is checked in the report tests."
import pytest

pytest.importorskip('papermill')
from benchnb.core import load_plugins
from benchnb.report import ReportError, run_report

def test_translator_report_refuses_a_target_that_leaves_its_directory(tmp_path):
    load_plugins()
    with pytest.raises(ReportError, match="targets.*must be a plain name|must be a plain name.*targets"):
        run_report('translator', {'benchmarks': ['DrugCentral_subset'], 'targets': ['reference', '../escaped'],
                                  'acceptance_suites': []}, tmp_path/'out', html=False)
    assert not (tmp_path/'escaped').exists() and not list(tmp_path.rglob('DrugCentral_subset'))


HOSTILE = ['x`<script>alert(4)</script>`', '[l](javascript:alert(5))', '<details open ontoggle=alert(6)>', '<iframe src=javascript:alert(7)>']


def test_leaderboard_names_never_become_markup(tmp_path):
    "Issue 32: model and dataset names through every Markdown line of the leaderboard (notes, leader, Friedman blocks)."
    import json, re
    from benchnb.cli import main
    rows = [{'task': 'clustering', 'model': m, 'metric': metric, 'value': 0.1 * i + 0.01 * s + (0.02 if metric == 'NMI' else 0),
             'seed': s} for i, m in enumerate(HOSTILE) for s in range(3) for metric in ('ARI', 'NMI')]
    (tmp_path/'c.json').write_text(json.dumps(rows))
    assert main(['results', 'import', str(tmp_path/'db'), str(tmp_path/'c.json'), '--dataset', '<script>alert(1)</script>']) == 0
    res = run_report('leaderboard', {'results': str(tmp_path/'db'), 'families': ['cells']}, tmp_path/'out', html=True)
    page = res.html.read_text(encoding='utf-8')
    assert not re.search(r'<script[^>]*>\s*alert|<iframe\b|href="javascript:|<[a-z]+\b[^>]*\son[a-z]+=', page)   # no live tag
    for shown in ['&lt;script&gt;alert(1)&lt;/script&gt;', '&lt;details open ontoggle=alert(6)&gt;', '(javascript:alert(5))']:
        assert shown in page, shown                                          # shown as text
