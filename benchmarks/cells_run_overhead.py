"""Idle overhead of `benchnb cells run`: its wall time against the sum of the tasks it ran, in one run.

The command is run as a user runs it (a fresh process, `BENCHNB_LOG=INFO`), on synthetic data from
`cells_suite.make_embedding` saved as an .h5ad (n cells × 50 dims, 15 cell types, 4 batches). The parent reads
the child's stderr line by line and stamps each line, so the wall time splits into:
  startup   process start → the first progress line (interpreter, `benchnb`, typer)
  read      → the "N cells; tasks …" line (anndata import, the .h5ad read, option and embedding checks)
  tasks     the sum of the "TASK on MODEL: S s" log lines (each task times itself, kNN and imports included)
  rest      everything else: the gaps between tasks, the JSON written, interpreter exit
overhead = wall − tasks (the issue's goal: ≤ 3 s). Floors measured in the same run: `python -c pass`, and
`import anndata, benchnb.cells.tasks` (what any run must import). The first run also fills numba's cache
(reported as cold); the next `--repeats` runs are warm.

Usage:  python benchmarks/cells_run_overhead.py [--n 5000] [--repeats 2] [--tasks clustering,embedding,...]
        PYTHONPATH=OLD_CHECKOUT python benchmarks/cells_run_overhead.py --via-main   # an older benchnb, for before/after
"""
from __future__ import annotations
import argparse, json, os, re, subprocess, sys, tempfile, time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
TASK_LINE = re.compile(r"benchnb\.cells\.tasks: (\w+) on (\S+): ([\d.]+) s$")
DONE_LINE = re.compile(r"cells run: \d+ results in ([\d.]+) s$")      # the command's own clock, read to done


def write_dataset(path: Path, n: int) -> None:
    "Synthetic .h5ad: obs cell_type/batch, obsm X_model (float32)."
    import anndata as ad, pandas as pd
    from cells_suite import make_embedding
    X, labels, batches = make_embedding(n)
    a = ad.AnnData(obs=pd.DataFrame({'cell_type': labels, 'batch': batches}, index=np.arange(n).astype(str)))
    a.obsm['X_model'] = X.astype(np.float32)
    a.write_h5ad(path)


def benchnb_exe() -> str:
    "The `benchnb` script beside this interpreter."
    exe = Path(sys.executable).with_name('benchnb')
    if not exe.exists(): sys.exit(f"no benchnb command beside {sys.executable}: install benchnb into this venv")
    return str(exe)


def timed_run(cmd: list[str]) -> dict:
    "Run `cmd`; stamp each stderr line; split the wall time into startup / read / tasks / rest."
    env = {**os.environ, 'BENCHNB_LOG': 'INFO', 'BENCHNB_PROGRESS': 'lines'}
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    stamps = [(time.perf_counter() - t0, line.rstrip('\n')) for line in p.stderr]
    if p.wait() != 0: sys.exit(f"benchnb cells run failed ({p.returncode}):\n" + '\n'.join(s for _, s in stamps))
    wall = time.perf_counter() - t0
    tasks = {f"{m[1]}/{m[2]}": float(m[3]) for _, s in stamps if (m := TASK_LINE.search(s))}
    first = stamps[0][0]
    cells_line = next(t for t, s in stamps if 'cells; tasks' in s)
    rest = wall - cells_line - sum(tasks.values())
    command = next(float(m[1]) for _, s in stamps if (m := DONE_LINE.search(s)))
    return dict(wall=wall, startup=first, read=cells_line - first, tasks=tasks, task_sum=sum(tasks.values()),
                rest=rest, overhead=wall - sum(tasks.values()), command=command)


def floor(code: str) -> float:
    "Wall time of `python -c code` (best of 2)."
    times = []
    for _ in range(2):
        t = time.perf_counter()
        subprocess.run([sys.executable, '-c', code], check=True)
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--n', type=int, default=5000)
    ap.add_argument('--repeats', type=int, default=2)
    ap.add_argument('--tasks', default=None, help="comma-separated tasks (default: the command's default)")
    ap.add_argument('--json', default=None, help="also write the figures here")
    ap.add_argument('--via-main', action='store_true',
                    help="run `benchnb.cli.main` through `python -c` instead of the installed script (older checkouts)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / 'cells.h5ad'
        write_dataset(data, a.n)
        exe = [sys.executable, '-c', 'import sys; from benchnb.cli import main; sys.exit(main())'] if a.via_main \
            else [benchnb_exe()]
        cmd = exe + ['cells', 'run', str(data), '-e', 'X_model', '-l', 'cell_type', '-b', 'batch']
        if a.tasks: cmd += ['-t', a.tasks]
        runs = [timed_run(cmd) for _ in range(1 + a.repeats)]
    floors = {'python -c pass': floor('pass'),
              'import anndata, benchnb.cells.tasks': floor('import anndata, benchnb.cells.tasks, benchnb.cli')}
    print(f"benchnb cells run on {a.n} cells × 50 dims, tasks: {a.tasks or 'default'}")
    print(f"{'run':>6} {'wall':>7} {'startup':>8} {'read':>6} {'tasks':>7} {'rest':>6} {'overhead':>9}")
    for i, r in enumerate(runs):
        print(f"{'cold' if i == 0 else f'warm{i}':>6} {r['wall']:7.2f} {r['startup']:8.2f} {r['read']:6.2f} "
              f"{r['task_sum']:7.2f} {r['rest']:6.2f} {r['overhead']:9.2f}")
    for k, v in runs[-1]['tasks'].items(): print(f"  {k}: {v:.2f} s")
    for k, v in floors.items(): print(f"floor  {k}: {v:.2f} s")
    best = min(r['overhead'] for r in runs[1:]) if a.repeats else runs[0]['overhead']
    print(f"overhead (warm, best) = wall − Σ tasks = {best:.2f} s  (goal ≤ 3 s: {'met' if best <= 3 else 'NOT met'})")
    if a.json: Path(a.json).write_text(json.dumps(dict(n=a.n, runs=runs, floors=floors), indent=1))


if __name__ == '__main__':
    main()
