"""The maintainability measures issue 31 names, counted from the source: `python tools/code_measures.py [--json]`.

Counted over the exported package (`benchnb/`) and the notebooks (`nbs/`):
- `contract_modules`: modules that define one of the family-contract `register_*` functions;
- `funcs_ge8`, `funcs_ge10`: functions (and methods) with at least 8 / 10 parameters (`self`/`cls` not counted,
  `*args`/`**kwargs` counted);
- `patch_own`: `@patch` functions whose first parameter is annotated with a class defined in benchnb;
- `public_names`: names in the modules' `__all__`; `public_unreferenced`: those that no other module of the package,
  no test, report notebook, benchmark or tool mentions;
- `cells_private_crossing`: underscore names defined in one `benchnb.cells` module and used in another;
- `export_cells`, `export_cells_gt18`, `export_cell_median`: `#| export` cells, those over 18 lines, their median;
- `prose_words`: words in the notebooks' Markdown cells.
"""
import argparse, ast, json, re, statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = {'register_family', 'register_report', 'register_unit_kind', 'register_importer',
            'register_leaderboard', 'register_demo'}

def modules(root: Path=ROOT) -> dict[str, ast.Module]:
    "Every module of the package (not `_modidx`), parsed, by dotted name."
    out = {}
    for p in sorted((root/'benchnb').rglob('*.py')):
        if p.name == '_modidx.py': continue
        name = '.'.join(p.relative_to(root).with_suffix('').parts).removesuffix('.__init__')
        out[name] = ast.parse(p.read_text(), str(p))
    return out

def _params(f) -> list[str]:
    a = f.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [x.arg for x in (a.vararg, a.kwarg) if x]
    return [n for n in names if n not in ('self', 'cls')]

def _functions(tree):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

def _all_names(tree) -> list[str]:
    for n in tree.body:
        if isinstance(n, ast.Assign) and any(getattr(t, 'id', None) == '__all__' for t in n.targets):
            return [e.value for e in n.value.elts if isinstance(e, ast.Constant)]
    return []

def _is_patch(d) -> bool:
    return (getattr(d, 'id', None) == 'patch' or getattr(getattr(d, 'func', None), 'id', None) == 'patch')

def _first_annotation(f) -> str|None:
    args = f.args.posonlyargs + f.args.args
    if not args or args[0].annotation is None: return None
    return ast.unparse(args[0].annotation)

def _words(text: str) -> set[str]: return set(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', text))

def _other_texts(root: Path) -> list[Path]:
    paths = [*(root/'tests').rglob('*.py'), *(root/'nbs'/'reports').glob('*.ipynb'),
             *(root/'benchmarks').glob('*.py'), *(root/'tools').glob('*.py')]
    return [p for p in paths if p.resolve() != Path(__file__).resolve()]

def public_unreferenced(mods: dict[str, ast.Module], root: Path=ROOT) -> list[str]:
    "`module.name` for each public name that nothing outside its own module mentions."
    src = {m: ast.unparse(t) for m, t in mods.items()}
    outside = set().union(*(_words(p.read_text(errors='replace')) for p in _other_texts(root)))
    words = {m: _words(s) for m, s in src.items()}
    return [f'{m}.{n}' for m, t in mods.items() for n in _all_names(t)
            if n not in outside and not any(n in w for o, w in words.items() if o != m)]

def cells_private_crossing(mods: dict[str, ast.Module]) -> list[str]:
    "`user -> owner._name` for underscore names of one cells module used in another."
    cells = {m: t for m, t in mods.items() if m.startswith('benchnb.cells.')}
    defined = {m: {n.name for n in t.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} |
                  {t_.id for n in t.body if isinstance(n, ast.Assign) for t_ in n.targets if isinstance(t_, ast.Name)}
               for m, t in cells.items()}
    out = set()
    for m, t in cells.items():
        for node in ast.walk(t):
            if isinstance(node, ast.ImportFrom) and node.module:
                base = m.rsplit('.', node.level)[0] + '.' if node.level else ''
                for a in node.names:
                    if a.name.startswith('_') and not a.name.startswith('__'):
                        out.add(f'{m} -> {base}{node.module}.{a.name}')
            if isinstance(node, ast.Attribute) and node.attr.startswith('_') and not node.attr.startswith('__'):
                owner = [o for o, names in defined.items() if o != m and node.attr in names
                         and isinstance(node.value, ast.Name) and node.value.id == o.rsplit('.', 1)[-1]]
                out.update(f'{m} -> {o}.{node.attr}' for o in owner)
    return sorted(out)

def notebook_measures(root: Path=ROOT) -> dict:
    sizes, words = [], 0
    for p in sorted((root/'nbs').glob('*.ipynb')):
        for c in json.loads(p.read_text())['cells']:
            text = ''.join(c['source'])
            if c['cell_type'] == 'markdown': words += len(text.split())
            elif re.match(r'\s*#\|\s*export\b', text): sizes.append(len(text.strip().splitlines()) - 1)
    return dict(export_cells=len(sizes), export_cells_gt18=sum(s > 18 for s in sizes),
                export_cell_median=statistics.median(sizes) if sizes else 0, prose_words=words)

def measures(root: Path=ROOT) -> dict:
    "All the measures, as one flat dict."
    mods = modules(root)
    own_classes = {n.name for t in mods.values() for n in ast.walk(t) if isinstance(n, ast.ClassDef)}
    funcs = [f for t in mods.values() for f in _functions(t)]
    nparams = [len(_params(f)) for f in funcs]
    patched = [f for f in funcs if any(_is_patch(d) for d in f.decorator_list)]
    own = [f for f in patched if (_first_annotation(f) or '').split('.')[-1].strip("'\"") in own_classes]
    contract = sorted({m for m, t in mods.items() for f in _functions(t) if f.name in CONTRACT})
    return dict(contract_modules=len(contract), funcs_ge8=sum(n >= 8 for n in nparams),
                funcs_ge10=sum(n >= 10 for n in nparams), patch_own=len(own),
                public_names=sum(len(_all_names(t)) for t in mods.values()),
                public_unreferenced=len(public_unreferenced(mods, root)),
                cells_private_crossing=len(cells_private_crossing(mods)), **notebook_measures(root))

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--json', action='store_true', help='print JSON instead of one line per measure')
    ap.add_argument('--list', choices=['public_unreferenced', 'cells_private_crossing'], help='list the names')
    a = ap.parse_args()
    if a.list:
        mods = modules()
        print('\n'.join(public_unreferenced(mods) if a.list == 'public_unreferenced' else cells_private_crossing(mods)))
    else:
        m = measures()
        print(json.dumps(m, indent=1) if a.json else '\n'.join(f'{k:24} {v}' for k, v in m.items()))
