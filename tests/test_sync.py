"Notebooks are the source: exporting them must reproduce benchnb/ exactly, and they must already be clean."
import filecmp, shutil, subprocess, sys
from pathlib import Path

def _copy(root: Path, dest: Path):
    for name in ['nbs', 'benchnb', 'settings.ini', 'setup.py']:
        src = root/name
        if src.is_dir(): shutil.copytree(src, dest/name, ignore=shutil.ignore_patterns('__pycache__', '.ipynb_checkpoints'))
        else: shutil.copy2(src, dest/name)
    (dest/'.git').mkdir()   # nbdev looks for settings.ini upward; keep the copy self-contained

def _diff(a: Path, b: Path, pattern: str) -> list[str]:
    bad = []
    for f in sorted(a.rglob(pattern)):
        if '__pycache__' in f.parts or '.ipynb_checkpoints' in f.parts: continue
        g = b/f.relative_to(a)
        if not g.exists() or not filecmp.cmp(f, g, shallow=False): bad.append(str(f.relative_to(a)))
    bad += [str(g.relative_to(b)) for g in sorted(b.rglob(pattern)) if '__pycache__' not in g.parts and not (a/g.relative_to(b)).exists()]
    return bad

def test_export_reproduces_package_and_notebooks_are_clean(repo_root, tmp_path):
    _copy(repo_root, tmp_path)
    bin_ = Path(sys.executable).parent
    for cmd in ['nbdev_export', 'nbdev_clean']:
        subprocess.run([str(bin_/cmd)], cwd=tmp_path, check=True, capture_output=True)
    stale = _diff(repo_root/'benchnb', tmp_path/'benchnb', '*.py')
    assert not stale, f"benchnb/ is out of step with nbs/ (run nbdev_export and commit): {stale}"
    unclean = _diff(repo_root/'nbs', tmp_path/'nbs', '*.ipynb')
    assert not unclean, f"notebooks are not clean (run nbdev_clean and commit): {unclean}"

def test_readme_in_step_with_index(repo_root):
    r = subprocess.run([sys.executable, str(repo_root/'tools'/'build_docs.py'), '--check-readme'], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr

def test_report_notebooks_keep_parameters_tag(repo_root):
    import nbformat
    reports = sorted((repo_root/'nbs'/'reports').glob('*.ipynb'))
    assert reports, "no report notebooks"
    for nb_path in reports:
        nb = nbformat.read(nb_path, as_version=4)
        tagged = [c for c in nb.cells if 'parameters' in c.metadata.get('tags', [])]
        assert len(tagged) == 1, f"{nb_path.name}: needs exactly one cell tagged 'parameters'"
        assert 'output_dir' in tagged[0].source, f"{nb_path.name}: the parameters cell must declare output_dir"
        import ast
        from papermill.translators import PythonTranslator
        assigned = {t.id for node in ast.parse(tagged[0].source).body if isinstance(node, ast.Assign) for t in node.targets}
        parsed = {p.name for p in PythonTranslator.inspect(tagged[0])}
        assert assigned <= parsed, f"{nb_path.name}: papermill cannot parse parameters {sorted(assigned - parsed)} (simplify their comments)"
