"""Run cz-benchmarks' own tasks on a saved synthetic dataset and report values, wall time and peak memory per task.

This file runs inside whatever Python has `cz-benchmarks` installed (it is not a benchnb dependency: it pulls in
boto3, docker, hydra, JAX ...).  `cells_suite.py --czbenchmarks-python PATH` calls it on the very data it times
benchnb on, so both columns of the comparison come from one benchmark run:

    python czbenchmarks_runner.py DATA.npz OUT.json --tasks clustering,embedding,...

DATA.npz holds X (n × d float), labels and batches (strings).  Each task is run as a user of cz-benchmarks 0.15
runs it: `Task(random_seed=42).run(X, TaskInput(...))`, in a fresh process, so JIT compilation (numba for scanpy's
neighbours, JAX for scib-metrics) is part of the time, exactly as a user meets it.  A warm-up on 5,000 cells is
timed separately and reported as `warmup_s`, so both views (cold and warm) are available.
"""
from __future__ import annotations
import argparse, json, logging, os, sys, threading, time, warnings

import numpy as np
import pandas as pd



def _rss() -> int:
    with open('/proc/self/statm') as f: return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')


def measure(fn):
    "(result, seconds, peak RSS growth in MB) of fn()."
    base, peak, stop = _rss(), [0], threading.Event()
    def watch():
        while not stop.is_set(): peak[0] = max(peak[0], _rss() - base); time.sleep(0.02)
    t = threading.Thread(target=watch, daemon=True); t.start()
    t0 = time.perf_counter()
    try: res = fn()
    finally: stop.set(); t.join()
    return res, time.perf_counter() - t0, max(peak[0], _rss() - base) / 2**20


def run_task(task: str, X, labels, batches):
    "cz-benchmarks' results for one task as {metric[classifier]: value}."
    from czbenchmarks.tasks import (ClusteringTask, ClusteringTaskInput, EmbeddingTask, EmbeddingTaskInput,
                                    BatchIntegrationTask, BatchIntegrationTaskInput, MetadataLabelPredictionTask,
                                    MetadataLabelPredictionTaskInput)
    obs = pd.DataFrame({'cell_type': labels, 'batch': batches}, index=np.arange(len(X)).astype(str))
    lab = pd.Series(labels, index=obs.index)
    if task == 'clustering':
        res = ClusteringTask(random_seed=42).run(X, ClusteringTaskInput(obs=obs, input_labels=lab))
    elif task == 'embedding':
        res = EmbeddingTask(random_seed=42).run(X, EmbeddingTaskInput(input_labels=lab))
    elif task == 'batch_integration':
        res = BatchIntegrationTask(random_seed=42).run(X, BatchIntegrationTaskInput(batch_labels=batches, labels=labels))
    elif task == 'label_prediction':
        res = MetadataLabelPredictionTask(random_seed=42).run(X, MetadataLabelPredictionTaskInput(labels=lab))
    else: raise SystemExit(f"unknown task {task!r}")
    out = {}
    for r in res:
        name = getattr(r.metric_type, 'value', str(r.metric_type))
        clf = (r.params or {}).get('classifier')
        out[f"{name}[{clf}]" if clf else name] = float(r.value)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('data'); ap.add_argument('out')
    ap.add_argument('--tasks', default='batch_integration,embedding,clustering,label_prediction')
    ap.add_argument('--warmup', type=int, default=5000, help="cells in the untimed-for-the-task warm-up run (0: none)")
    a = ap.parse_args(argv)
    import czbenchmarks
    d = np.load(a.data, allow_pickle=False)
    X, labels, batches = d['X'], d['labels'].astype(str), d['batches'].astype(str)
    from importlib.metadata import version
    report = {'czbenchmarks_version': version('cz-benchmarks'), 'n': len(X), 'tasks': {}}
    tasks = a.tasks.split(',')
    if a.warmup:
        n = min(a.warmup, len(X)); t0 = time.perf_counter()
        for task in tasks:
            if task != 'label_prediction': run_task(task, X[:n], labels[:n], batches[:n])
        report['warmup_s'] = round(time.perf_counter() - t0, 2)
        print(f"[czb ] warm-up on {n} cells: {report['warmup_s']} s", flush=True)
    for task in tasks:
        vals, t, mem = measure(lambda: run_task(task, X, labels, batches))
        report['tasks'][task] = {'s': round(t, 2), 'peak_MB': round(mem, 1), 'values': vals}
        print(f"[czb ] n={len(X)} {task}: {t:.1f} s, peak +{mem:.0f} MB", flush=True)
    with open(a.out, 'w') as f: json.dump(report, f, indent=2)


if __name__ == '__main__':
    warnings.filterwarnings('ignore'); logging.disable(logging.WARNING)   # the script's own output only
    main()
