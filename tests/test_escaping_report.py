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
