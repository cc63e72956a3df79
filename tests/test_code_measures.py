"The counting script of issue 31 (tools/code_measures.py) counts what it says, on a tree made here."
import importlib.util, json, sys
from pathlib import Path

def _load(repo_root):
    spec = importlib.util.spec_from_file_location('code_measures', repo_root/'tools'/'code_measures.py')
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    return m

def _tree(tmp: Path):
    (tmp/'benchnb'/'cells').mkdir(parents=True)
    for d in ('tests', 'tools', 'benchmarks', 'nbs/reports'): (tmp/d).mkdir(parents=True)
    (tmp/'benchnb'/'core.py').write_text(
        "__all__ = ['Thing', 'used', 'lonely', 'register_family']\n"
        "class Thing: pass\n"
        "@patch\ndef go(self: Thing, a, b): pass\n"
        "@patch\ndef other(self: dict, a): pass\n"
        "def used(a, b, c, d, e, f, g, h): pass\n"
        "def lonely(a, b, c, d, e, f, g, h, i, *args, **kw): pass\n"
        "def register_family(name): pass\n")
    (tmp/'benchnb'/'cells'/'a.py').write_text("def _helper(): pass\nX_ = 1\n")
    (tmp/'benchnb'/'cells'/'b.py').write_text("from .a import _helper\nfrom . import a\na._helper()\n")
    (tmp/'tests'/'test_x.py').write_text("from benchnb.core import used, Thing\n")
    nb = dict(cells=[dict(cell_type='markdown', source=['one two three']),
                     dict(cell_type='code', source=['#| export\n'] + ['x = 1\n']*20),
                     dict(cell_type='code', source=['#| export\n', 'y = 2\n']),
                     dict(cell_type='code', source=['test_eq(1, 1)\n'])])
    (tmp/'nbs'/'00_core.ipynb').write_text(json.dumps(nb))

def test_counts_on_a_made_tree(repo_root, tmp_path):
    cm = _load(repo_root); _tree(tmp_path)
    m = cm.measures(tmp_path)
    assert m['contract_modules'] == 1
    assert (m['funcs_ge8'], m['funcs_ge10']) == (2, 1)     # `used` has 8; `lonely` 11 (*args, **kw counted)
    assert m['patch_own'] == 1                              # `other` patches dict, not a class of ours
    assert (m['public_names'], m['public_unreferenced']) == (4, 2)   # `lonely` and `register_family`
    assert m['cells_private_crossing'] == 1                 # b -> a._helper, once however often it is used
    assert (m['export_cells'], m['export_cells_gt18'], m['prose_words']) == (2, 1, 3)

def test_runs_on_this_repository(repo_root):
    m = _load(repo_root).measures(repo_root)
    assert m['public_names'] > 100 and m['export_cells'] > 100
