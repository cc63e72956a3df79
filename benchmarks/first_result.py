"""Time to first result: `cells run` and `cells scib` on scanpy's pbmc68k_reduced (700 cells), cold vs warm.

Cold = a fresh, empty numba cache folder (NUMBA_CACHE_DIR), as in a fresh install, CI container or Dask worker image;
warm = the same command again, same folder, same minute. Goal (issue 30): cold within 3 s of warm.
Writes its table into benchmarks/RESULTS-cells.md between the `first_result` markers.

    python benchmarks/first_result.py            # ~1-2 min on 2 idle cores
"""
from __future__ import annotations
import os, re, resource, subprocess, sys, tempfile, time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent/'RESULTS-cells.md'
BEGIN, END = '<!-- first_result: begin -->', '<!-- first_result: end -->'


def timed_run(cmd: list[str], env: dict) -> dict:
    "Run `cmd` (must succeed); its wall seconds and CPU seconds (user + system of the child)."
    before, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall, after = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {'wall': wall, 'cpu': cpu}


def cold_warm(cmd: list[str], cache_root: Path) -> dict:
    "`cmd` run twice on one fresh, empty numba cache folder: {'cold': …, 'warm': …}."
    cache = Path(tempfile.mkdtemp(prefix='numba-cache-', dir=cache_root))
    env = {**os.environ, 'NUMBA_CACHE_DIR': str(cache), 'BENCHNB_PROGRESS': '0'}
    return {'cold': timed_run(cmd, env), 'warm': timed_run(cmd, env)}


def markdown(rows: dict[str, dict], load: str, cores: int|None=None) -> str:
    ("The results table: per command, cold and warm wall/CPU seconds and their gaps. The goal (gap ≤ 3 s) is judged "
     "on wall time, or on CPU time when the 1-minute load exceeds the cores (wall time then measures the neighbours).")
    busy = cores is not None and float(load.split()[0]) > cores
    lines = [f"Load average at the start (1/5/15 min): {load}{' — busier than the cores: goal judged on CPU s' if busy else ''}.",
             '', '| command | cold wall s | warm wall s | cold − warm wall s | cold CPU s | warm CPU s | cold − warm CPU s '
             '| goal (≤ 3 s) |', '|---|---:|---:|---:|---:|---:|---:|---|']
    for name, r in rows.items():
        gap, cgap = r['cold']['wall'] - r['warm']['wall'], r['cold']['cpu'] - r['warm']['cpu']
        lines.append(f"| `{name}` | {r['cold']['wall']:.1f} | {r['warm']['wall']:.1f} | {gap:+.1f} | "
                     f"{r['cold']['cpu']:.1f} | {r['warm']['cpu']:.1f} | {cgap:+.1f} | "
                     f"{'met' if (cgap if busy else gap) <= 3 else 'missed'} |")
    return '\n'.join(lines)


def write_section(text: str, path: Path=RESULTS, title: str='## Time to first result (issue 30)') -> None:
    "Put `text` between the markers in `path` (appending the section the first time)."
    old = path.read_text() if path.exists() else ''
    block = f"{BEGIN}\n{text}\n{END}"
    if BEGIN in old: new = re.sub(re.escape(BEGIN) + '.*?' + re.escape(END), lambda m: block, old, flags=re.S)
    else: new = old.rstrip('\n') + f"\n\n{title}\n\n{block}\n"
    path.write_text(new)


def pbmc(folder: Path) -> Path:
    "pbmc68k_reduced (bundled with scanpy) with a second embedding (X_pca + noise) for the scIB table."
    import anndata, numpy as np, scanpy as sc
    a = sc.datasets.pbmc68k_reduced()
    a.obsm['X_noisy'] = a.obsm['X_pca'] + np.random.default_rng(0).normal(0, 1, a.obsm['X_pca'].shape)
    p = folder/'pbmc68k_reduced.h5ad'
    a.write_h5ad(p)
    return p


def commands(h5ad: Path, out: Path) -> dict[str, list[str]]:
    exe = [sys.executable, '-c', 'import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))']
    return {'cells run (clustering, embedding, batch_integration)':
                [*exe, 'cells', 'run', str(h5ad), '-e', 'X_pca', '-l', 'bulk_labels', '-b', 'phase',
                 '-t', 'clustering,embedding,batch_integration', '-o', str(out/'run.json')],
            'cells scib (2 embeddings)':
                [*exe, 'cells', 'scib', str(h5ad), '-e', 'X_pca,X_noisy', '-l', 'bulk_labels', '-b', 'phase',
                 '-o', str(out/'scib.csv')]}


if __name__ == '__main__':
    tmp = Path(tempfile.mkdtemp(prefix='first-result-'))
    load = ' '.join(f"{x:.2f}" for x in os.getloadavg())
    rows = {name: cold_warm(cmd, tmp) for name, cmd in commands(pbmc(tmp), tmp).items()}
    text = markdown(rows, load, os.cpu_count()) + f"\n\n{os.cpu_count()} cores; `python benchmarks/first_result.py`."
    print(text)
    write_section(text)
