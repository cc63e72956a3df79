"Issue 31: a notebook's `> summary` line becomes its module's docstring; a summary wrapped over two lines was cut."
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

def test_plism_module_docstrings_are_whole_sentences():
    for p in sorted((ROOT/'benchnb'/'plism').glob('*.py')):
        if p.name == '__init__.py': continue
        doc = ast.get_docstring(ast.parse(p.read_text())) or ''
        assert doc.rstrip().endswith(('.', ')', '`')), f"{p.name}: docstring cut off: {doc!r}"
