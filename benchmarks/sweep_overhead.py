"""Sweep engine + results database overhead, and throughput with 1 vs 2 workers.

    python benchmarks/sweep_overhead.py [--units 100] [--seconds 0.2] [--out benchmarks/sweep_overhead.json]

1. Overhead: a sweep of N `test/sleep` units of S seconds each on ONE local worker. The work is N*S seconds;
   everything above that (submitting, scheduling, shipping results back, one DuckDB transaction per unit,
   progress) is the engine's and the database's overhead, reported in % of the work and in ms per unit. The
   cluster start is measured apart (paid once per sweep).
2. Cost per unit of zero-work units (`test/echo`) on one worker: the fixed cost of a unit.
3. The database alone: `record_unit` of N units with 2 metric rows each, ms per unit.
4. Throughput: N `test/spin` units (CPU-bound, S seconds of CPU each) on 1 and on 2 workers; units/s and speed-up.
"""
import argparse, json, os, sys, tempfile, time
from pathlib import Path

from benchnb.resultsdb.db import ResultsDB
from benchnb.sweeps.engine import open_cluster, run_sweep
from benchnb.sweeps.plan import load_plan
import benchnb.sweeps.units  # registers the test kind


def plan_file(d: Path, task: str, n: int, seconds: float) -> Path:
    p = d/f"{task}-{n}-{seconds}.yaml"
    p.write_text(f"units:\n  - family: test\n    task: {task}\n    seeds: {list(range(n))}\n    options: {{seconds: {seconds}}}\n")
    return p


def sweep(d: Path, task: str, n: int, seconds: float, workers: int) -> dict:
    "Run one sweep into a fresh database; wall time of the sweep itself and of the cluster start."
    t0 = time.perf_counter(); info = open_cluster(workers, dashboard=None); start = time.perf_counter() - t0
    try:
        info.client.submit(sum, [1]).result()          # workers up and importable before timing
        res = Path(tempfile.mkdtemp(dir=d))
        with ResultsDB(res) as db:
            s = run_sweep(load_plan(plan_file(d, task, n, seconds)), res, db, info)
            assert s.done == n and not s.failed, s
    finally: info.close()
    return {'task': task, 'units': n, 'seconds_per_unit': seconds, 'workers': workers, 'cluster_start_s': round(start, 2), 'sweep_s': round(s.seconds, 3)}


def db_only(d: Path, n: int) -> float:
    "ms per unit for record_unit alone."
    with ResultsDB(Path(tempfile.mkdtemp(dir=d))) as db:
        db.begin_run('r', {})
        t0 = time.perf_counter()
        for i in range(n):
            db.record_unit('r', {'unit_id': f"u{i}", 'family': 'test', 'dataset': 'd', 'model': 'm', 'task': 't', 'params': {'seed': i},
                                 'status': 'done', 'started_at': '2026-01-01T00:00:00', 'finished_at': '2026-01-01T00:00:01', 'worker': 'w'},
                           [{'metric': 'seed', 'value': float(i), 'seed': i}, {'metric': 'seconds', 'value': 0.0, 'seed': i}])
        return (time.perf_counter() - t0) / n * 1000


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--units', type=int, default=100)
    ap.add_argument('--seconds', type=float, default=0.2)
    ap.add_argument('--out', default=None)
    a = ap.parse_args(argv)
    os.environ.setdefault('BENCHNB_PROGRESS', '0')
    d, load0 = Path(tempfile.mkdtemp(prefix='sweep-bench-')), os.getloadavg()
    n, s = a.units, a.seconds
    over = sweep(d, 'sleep', n, s, 1)
    work = n * s
    over['overhead_pct'] = round(100 * (over['sweep_s'] - work) / work, 2)
    over['overhead_ms_per_unit'] = round(1000 * (over['sweep_s'] - work) / n, 2)
    echo = sweep(d, 'echo', n, 0, 1)
    echo['ms_per_unit'] = round(1000 * echo['sweep_s'] / n, 2)
    t1, t2 = sweep(d, 'spin', n, s, 1), sweep(d, 'spin', n, s, 2)
    for t in (t1, t2): t['units_per_s'] = round(n / t['sweep_s'], 2)
    out = {'cores': os.cpu_count(), 'load_avg_at_start': load0, 'overhead': over, 'zero_work': echo,
           'db_record_unit_ms': round(db_only(d, n), 2), 'throughput': [t1, t2], 'speedup_2_vs_1': round(t1['sweep_s'] / t2['sweep_s'], 2),
           'load_avg_at_end': os.getloadavg()}
    text = json.dumps(out, indent=2)
    if a.out: Path(a.out).write_text(text + '\n')
    print(text)
    return 0


if __name__ == '__main__': sys.exit(main())
