"""The house is layered (STYLE.md). The shared modules — core, options, the family contract, report, html, runs,
results, stats, the sweep engine, the results database and the root CLI — import no family, at module level or inside
a function (they find families through `benchnb.family`'s registries, which `load_families` fills by importing the
modules each family names). A family imports no other family. Modules import downward through the layers: the shared
base (notebooks 00–08: core, options, family, report, …), the engines (4x: sweeps, results database), the families
(1x–3x, and any NN outside 0x and 4x), the root CLI (09); inside the base and the engines a module imports only lower
notebook numbers (`41_sweeps.plan` → 41), inside a family anything of its own (no cycles: test_import_graph).
Type-only imports under `TYPE_CHECKING` are left out."""
import ast, json, re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT/'benchnb'
# a family's modules are notebooks `NN_family.module` outside 0x (base), 4x (engines) and 09 (root CLI)
FAMILIES = {m[2] for p in (ROOT/'nbs').glob('*.ipynb') if (m := re.match(r'(\d+)[a-z]?_(\w+)\.', p.name))
            and not (int(m[1]) < 10 or 40 <= int(m[1]) < 50)}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def _type_checking(node) -> bool:
    return isinstance(node, ast.If) and 'TYPE_CHECKING' in ast.unparse(node.test)


def imports(path: Path) -> set[str]:
    "benchnb modules `path` imports (relative imports resolved), type-only imports under `if TYPE_CHECKING:` left out."
    me = module_name(path)
    pkg = me if path.name == '__init__.py' else me.rsplit('.', 1)[0]
    tree, out, skip = ast.parse(path.read_text(encoding='utf-8')), set(), set()
    for node in ast.walk(tree):
        if _type_checking(node): skip |= {id(n) for n in ast.walk(node)}
    for node in ast.walk(tree):
        if id(node) in skip: continue
        if isinstance(node, ast.Import): names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                base = '.'.join(pkg.split('.')[:len(pkg.split('.')) - node.level + 1] + ([base] if base else []))
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else: continue
        out |= {n for n in names if n.startswith('benchnb')}
    return out


def graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in PKG.rglob('*.py') if p.name != '_modidx.py'}
    return {m: {i for i in imports(p) if i in files and i != m} for m, p in files.items()}


def family_of(module: str) -> str|None:
    parts = module.split('.')
    return parts[1] if len(parts) > 1 and parts[1] in FAMILIES else None


def notebook_numbers() -> dict[str, float]:
    "module -> its notebook's number (`12a_…` → 12.1), from each notebook's `#| default_exp`."
    out = {}
    for nb in (ROOT/'nbs').glob('*.ipynb'):
        m = re.match(r'(\d+)([a-z]?)_', nb.name)
        if not m: continue
        src = ''.join(json.loads(nb.read_text(encoding='utf-8'))['cells'][0]['source'])
        if d := re.search(r'#\|\s*default_exp\s+(\S+)', src):
            out['benchnb.' + d[1]] = int(m[1]) + (ord(m[2]) - 96) / 10 if m[2] else int(m[1])
    return out


def test_the_families_are_found():
    assert {'translator', 'cells', 'plism'} <= FAMILIES and not FAMILIES & {'sweeps', 'resultsdb', 'core'}


def test_shared_modules_import_no_family():
    bad = {m: sorted(i for i in deps if family_of(i)) for m, deps in graph().items()
           if family_of(m) is None and any(family_of(i) for i in deps)}
    assert bad == {}, bad


def test_a_family_imports_no_other_family():
    bad = {m: sorted(i for i in deps if family_of(i) not in (None, family_of(m)))
           for m, deps in graph().items() if family_of(m)}
    assert {m: v for m, v in bad.items() if v} == {}


def layer(number: float) -> int:
    "0 the shared base, 1 the engines, 2 the families, 3 the root CLI."
    return 3 if number == 9 else 0 if number < 9 else 1 if 40 <= number < 50 else 2


# 48_resultsdb.compare is numbered after two modules that use it (45a site, 47 resultsdb.cli): a numbering slip, not
# a layering one (all three are engines). Renumbering it (44a) removes these two entries.
# Same for 47a_resultsdb.options, used by 45a site and 47 resultsdb.cli.
NUMBERED_LATE = {(f'benchnb.resultsdb.{user}', f'benchnb.resultsdb.{used}')
                 for user in ('site', 'cli') for used in ('compare', 'options')}
KNOWN_UPWARD: set = set()     # no module imports one above it


def test_modules_import_downward():
    num, up = notebook_numbers(), {}
    def allowed(m, i):
        a, b = layer(num[m]), layer(num[i])
        return b < a or (a == b and (family_of(m) is not None or num[i] <= num[m]))
    for m, deps in graph().items():
        if m not in num: continue                     # package __init__ files
        known = NUMBERED_LATE | KNOWN_UPWARD
        if ups := sorted(i for i in deps if i in num and not allowed(m, i) and (m, i) not in known): up[m] = ups
    assert up == {}, up


def test_the_layer_checks_see_a_planted_fault(tmp_path):
    f = tmp_path/'benchnb'/'core.py'; f.parent.mkdir()
    f.write_text("import benchnb.cells.tasks\nif TYPE_CHECKING:\n    from .resultsdb import compare\n"
                 "def g():\n    from .plism import data\n")
    global ROOT
    old, ROOT = ROOT, tmp_path
    try: found = imports(f)
    finally: ROOT = old
    assert found == {'benchnb.cells.tasks', 'benchnb.plism', 'benchnb.plism.data'}
