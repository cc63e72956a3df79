"""pyflakes over the exported package: no unused imports, no undefined names, no accidental redefinitions.

Two things pyflakes reports are how this codebase is written, and are allowed where they are that:
- `@patch` grows a class one method per cell, so a patched method 'redefines' an earlier patched one of the same
  name on another class (e.g. `_run_task` on two tasks): allowed when the redefining function is `@patch`ed;
- an import done for its side effect (a module that registers tasks or units) says so in a comment on its line
  (`# registers …`).
"""
import ast
from pathlib import Path

from pyflakes import api as pyflakes_api, messages, reporter as flake_reporter   # dev extra: a hard requirement

PKG = Path(__file__).resolve().parents[1] / 'benchnb'


class Collect(flake_reporter.Reporter):
    "Keep pyflakes' messages as objects."
    def __init__(self): self.found = []
    def flake(self, message): self.found.append(message)
    def syntaxError(self, filename, msg, lineno, offset, text): self.found.append(f"{filename}:{lineno}: {msg}")
    def unexpectedError(self, filename, msg): self.found.append(f"{filename}: {msg}")


def patched_lines(src: str) -> set[int]:
    "Line numbers of functions decorated with fastcore's `@patch` (any form)."
    out = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                f = d.func if isinstance(d, ast.Call) else d
                if getattr(f, 'id', getattr(f, 'attr', '')).endswith('patch'):
                    out.add(node.lineno)
                    out.add(d.lineno)
    return out


def problems(path: Path) -> list[str]:
    src = path.read_text()
    rep = Collect()
    pyflakes_api.check(src, str(path), rep)
    lines, patched, out = src.splitlines(), patched_lines(src), []
    for m in rep.found:
        if isinstance(m, str):
            out.append(m)
            continue
        if isinstance(m, messages.RedefinedWhileUnused) and m.lineno in patched: continue
        if isinstance(m, messages.UnusedImport) and '# regist' in lines[m.lineno - 1]: continue
        out.append(f"{path.relative_to(PKG.parent)}:{m.lineno}: {m.message % m.message_args}")
    return out


def test_pyflakes_clean():
    files = [p for p in sorted(PKG.rglob('*.py')) if p.name != '_modidx.py']
    found = [x for p in files for x in problems(p)]
    assert not found, '\n'.join(found)


def test_the_check_can_fail(tmp_path):
    "An unused import, an undefined name and an unpatched redefinition are each caught; a patched one is not."
    bad = tmp_path / 'bad.py'
    bad.write_text("import os\nfrom fastcore.basics import patch\nclass A: pass\n@patch\ndef f(self: A): pass\n"
                   "@patch\ndef f(self: A): pass\ndef g(): return undefined_thing\ndef g(): pass\n")
    global PKG
    old, PKG = PKG, tmp_path
    try: found = problems(bad)
    finally: PKG = old
    assert any("'os' imported but unused" in x for x in found), found
    assert any("undefined name 'undefined_thing'" in x for x in found), found
    assert any("redefinition of unused 'g'" in x for x in found), found
    assert not any("redefinition of unused 'f'" in x for x in found), found


def test_all_names_are_defined():
    "Every name a module lists in `__all__` is a real object (an `@patch` under another alias would export None)."
    import importlib, pkgutil, benchnb
    bad = []
    for m in pkgutil.walk_packages(benchnb.__path__, 'benchnb.'):
        if m.name.endswith('_modidx'): continue
        mod = importlib.import_module(m.name)
        bad += [f"{m.name}.{n}" for n in getattr(mod, '__all__', []) if getattr(mod, n, None) is None]
    assert not bad, bad


NUMBA_KERNEL_CALLS = {'_sil_tile'}   # called inside a numba kernel, where positional calls are the plain form


def long_positional_calls(src: str) -> list[str]:
    "Calls that pass 8 or more positional arguments (a keyword says what each one is)."
    return [f"{n.lineno}: {ast.unparse(n.func)}" for n in ast.walk(ast.parse(src))
            if isinstance(n, ast.Call) and len(n.args) >= 8 and ast.unparse(n.func) not in NUMBA_KERNEL_CALLS]


def test_no_call_passes_eight_positional_arguments():
    assert long_positional_calls("f(1, 2, 3, 4, 5, 6, 7, 8)\ng(1, 2, x=3)") == ['1: f']      # the check can fail
    found = [f"{p.relative_to(PKG)}:{x}" for p in sorted(PKG.rglob('*.py')) if p.name != '_modidx.py'
             for x in long_positional_calls(p.read_text(encoding='utf-8'))]
    assert not found, found


def test_command_functions_share_one_naming_style():
    "Every command of every family is `<name>_cmd` (three styles before the family contract)."
    from typer.main import get_command
    from benchnb.cli import build_app
    def callbacks(cmd, path=()):
        for name, sub in getattr(cmd, 'commands', {}).items():
            if getattr(sub, 'commands', None): yield from callbacks(sub, path + (name,))
            elif sub.callback is not None and not sub.hidden: yield ' '.join(path + (name,)), sub.callback
    bad = [(p, getattr(cb, '__wrapped__', cb).__name__) for p, cb in callbacks(get_command(build_app()))
           if not getattr(getattr(cb, '__wrapped__', cb), '__name__', '').endswith('_cmd')]
    top = {'version', 'report', 'demo'}                     # the root's own commands
    assert not [b for b in bad if b[0] not in top], bad


def long_lines(root: Path = PKG, limit: int = 120) -> list[str]:
    ("`file:line (length)` for each line of the exported package longer than `limit` characters; nbdev's own "
     "`__all__ = [` line is not counted (nbdev 2.4 wraps the names at 120 before adding the prefix).")
    return [f"{p.relative_to(root.parent)}:{i} ({len(line)})" for p in sorted(root.rglob('*.py'))
            if p.name != '_modidx.py' for i, line in enumerate(p.read_text().splitlines(), 1)
            if len(line) > limit and not line.startswith('__all__ = [')]


def test_lines_fit_in_120_columns(tmp_path):
    (tmp_path/'pkg').mkdir()
    (tmp_path/'pkg'/'m.py').write_text('x = 1\n' + 'y = "' + 'a' * 120 + '"\n' + "__all__ = ['" + 'b' * 120 + "']\n")
    assert long_lines(tmp_path/'pkg') == ['pkg/m.py:2 (126)']          # the check can fail
    assert not long_lines(), "edit the notebooks' cells (an option's help may go on in aligned comment lines):\n" + \
        '\n'.join(long_lines())
