"""Execute notebooks in place so that their outputs (tables, plots) are saved for the docs, then nbdev_clean them.

    python tools/run_nbs.py                 # every notebook in nbs/ except nbs/reports/
    python tools/run_nbs.py nbs/00_core.ipynb
"""
import subprocess, sys
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

if __name__ == '__main__':
    nbs = sys.argv[1:] or [str(p) for p in sorted((ROOT/'nbs').glob('*.ipynb'))]
    with ThreadPoolExecutor(2) as ex:
        for name in ex.map(run, nbs): print('executed', name)
    subprocess.run(['nbdev_clean'], check=True, cwd=ROOT)
