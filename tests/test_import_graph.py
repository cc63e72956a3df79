"The benchnb modules import each other without cycles (module-level and function-level imports alike)."
import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1]/'benchnb'


def module_name(path: Path) -> str:
    parts = path.relative_to(PKG.parent).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def imports_of(path: Path) -> set[str]:
    "benchnb modules imported anywhere in `path` (relative imports resolved)."
    me, out = module_name(path), set()
    pkg = me if path.name == '__init__.py' else me.rsplit('.', 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
        if isinstance(node, ast.Import): names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                up = pkg.split('.')[:len(pkg.split('.')) - node.level + 1]
                base = '.'.join(up + ([base] if base else []))
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else: continue
        out |= {n for n in names if n.startswith('benchnb')}
    return out


def graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in PKG.rglob('*.py') if p.name != '_modidx.py'}
    return {m: {i for i in imports_of(p) if i in files and i != m} for m, p in files.items()}


def find_cycle(g: dict[str, set[str]]) -> list[str] | None:
    "One cycle of `g` as a list of modules, or None (plain DFS with colours)."
    colour, stack = {}, []
    def visit(m):
        colour[m] = 'grey'; stack.append(m)
        for n in sorted(g.get(m, ())):
            if colour.get(n) == 'grey': return stack[stack.index(n):] + [n]
            if n not in colour and (c := visit(n)): return c
        colour[m] = 'black'; stack.pop()
        return None
    for m in sorted(g):
        if m not in colour and (c := visit(m)): return c
    return None


def test_find_cycle_sees_a_planted_cycle():
    assert find_cycle({'a': {'b'}, 'b': {'c'}, 'c': {'a'}}) == ['a', 'b', 'c', 'a']
    assert find_cycle({'a': {'b'}, 'b': {'c'}, 'c': set()}) is None


def test_translator_fetch_and_evaluate_do_not_import_each_other():
    g = graph()
    assert 'benchnb.translator.client' in g['benchnb.translator.fetch']
    assert 'benchnb.translator.client' in g['benchnb.translator.evaluate']
    assert 'benchnb.translator.evaluate' not in g['benchnb.translator.fetch']
    assert 'benchnb.translator.fetch' not in g['benchnb.translator.evaluate']


def test_no_import_cycle_among_benchnb_modules():
    assert find_cycle(graph()) is None
