"""Execute notebooks: in place for the docs (outputs saved, then nbdev_clean), or as JupyterLab's "Run All" does.

    python tools/run_nbs.py                     # every notebook in nbs/ except nbs/reports/, outputs saved
    python tools/run_nbs.py nbs/00_core.ipynb
    python tools/run_nbs.py --run-all [NB ...]  # every cell, no nbdev flags, on the `benchnb` Jupyter kernel; nothing saved
"""
import subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Cells skipped as nbdev_test skips them: `#| eval: false`, the test flags of settings.ini (`#| gpu`, `#| slow`), and
# the `nbdev_export()` cell.
CODE = r"""
import re, sys
from pathlib import Path
from execnb.shell import CaptureShell
SKIP = re.compile(r'^\s*#\|\s*(eval:\s*false|gpu|slow)\b', re.M | re.I)
def skip(cell): return cell.cell_type == 'code' and (bool(SKIP.search(cell.source)) or 'nbdev_export(' in cell.source)
nb = Path(sys.argv[1])
CaptureShell(path=nb.parent).execute(nb, nb, exc_stop=True, preproc=skip)
"""

def run(nb: str) -> str:
    "Execute one notebook in its own Python process (a fresh kernel state per notebook)."
    nb = Path(nb).resolve()
    subprocess.run([sys.executable, '-c', CODE, str(nb)], check=True, cwd=nb.parent)
    return nb.name

def run_all(nb: str|Path, kernel: str='benchnb', timeout: int=600):
    """Execute every cell of `nb` on the Jupyter kernel `kernel`, in the notebook's folder, as JupyterLab's Run All
    does: `#| eval: false`, `#| gpu` and `#| slow` are not honoured, the `nbdev_export()` cell runs too. Returns the
    executed notebook (the file is not written); raises `nbclient.exceptions.CellExecutionError` at the first failure."""
    import nbformat
    from nbclient import NotebookClient
    nb = Path(nb).resolve()
    node = nbformat.read(nb, as_version=4)
    from benchnb.report import _ipc_kernel_manager
    NotebookClient(node, kernel_name=kernel, timeout=timeout, resources={'metadata': {'path': str(nb.parent)}},
                   kernel_manager_class=_ipc_kernel_manager()).execute()
    return node

def run_all_cells_need(nb: str|Path) -> bool:
    "Does `nb` hold code cells that behave differently under Run All than under nbdev_test (gpu, slow, eval: false, --help)?"
    import json, re
    cells = json.loads(Path(nb).read_text(encoding='utf-8'))['cells']
    srcs = [c['source'] if isinstance(c['source'], str) else ''.join(c['source']) for c in cells if c['cell_type'] == 'code']
    return any(re.match(r'\s*#\|\s*(gpu|slow|eval:\s*false)\b', s) or "'--help'" in s for s in srcs)

if __name__ == '__main__':
    args = sys.argv[1:]
    if args[:1] == ['--run-all']:
        for nb in args[1:] or sorted((ROOT/'nbs').glob('*.ipynb')):
            t0 = time.time(); run_all(nb); print(f"ran all cells of {Path(nb).name} in {time.time() - t0:.1f} s")
        sys.exit(0)
    nbs = args or [str(p) for p in sorted((ROOT/'nbs').glob('*.ipynb'))]
    with ThreadPoolExecutor(2) as ex:
        for name in ex.map(run, nbs): print('executed', name)
    subprocess.run(['nbdev_clean'], check=True, cwd=ROOT)
