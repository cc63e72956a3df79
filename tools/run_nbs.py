"""Execute notebooks in place so that their outputs (tables, plots) are saved for the docs, then nbdev_clean them.

    python tools/run_nbs.py                 # every notebook in nbs/ except nbs/reports/
    python tools/run_nbs.py nbs/00_core.ipynb
"""
import subprocess, sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CODE = "import sys; from pathlib import Path; from execnb.shell import CaptureShell; nb = Path(sys.argv[1]); CaptureShell(path=nb.parent).execute(nb, nb, exc_stop=True)"

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
