"Sweep reliability with real processes: a SIGKILLed worker, a SIGKILLed client, a failing unit, a bad plan."
import os, re, signal, subprocess, sys, time
from pathlib import Path

import pytest

from benchnb.resultsdb.db import ResultsDB

CODE = "import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))"


def start(*args) -> subprocess.Popen:
    "`benchnb ARGS` in its own process group (so that the test can clean up every process it started)."
    env = {**os.environ, 'BENCHNB_PROGRESS': 'lines'}
    return subprocess.Popen([sys.executable, '-c', CODE, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, start_new_session=True)


def finish(p: subprocess.Popen, timeout: float=240) -> tuple[int, str, str]:
    try: out, err = p.communicate(timeout=timeout)
    finally: _killpg(p)
    return p.returncode, out, err


def _killpg(p):
    try: os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError: pass


def wait_for(cond, timeout: float=120, what: str=''):
    t0 = time.time()
    while not cond():
        if time.time() - t0 > timeout: raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def sleep_plan(path: Path, n: int, seconds: float, markers: Path) -> Path:
    path.write_text(f"units:\n  - family: test\n    task: sleep\n    seeds: {list(range(n))}\n"
                    f"    options: {{seconds: {seconds}, marker_dir: '{markers}'}}\n")
    return path


def db_tables(results: Path):
    with ResultsDB(results, read_only=True) as db: return db.units(), db.metrics(), db.runs()


def test_worker_killed_mid_unit_is_retried_and_recorded_once(tmp_path):
    markers = tmp_path/'markers'
    plan = sleep_plan(tmp_path/'plan.yaml', 6, 1.5, markers)
    p = start('sweep', 'run', plan, '--results', tmp_path/'res', '--workers', 2)
    try:
        wait_for(lambda: markers.exists() and any(markers.glob('*.start')), what='a unit to start')
        victim = next(markers.glob('*.start'))
        uid, pid = victim.stem.split('.')
        os.kill(int(pid), signal.SIGKILL)                       # the worker process running unit `uid`
    except BaseException: _killpg(p); raise
    code, out, err = finish(p)
    assert code == 0, err
    units, metrics, _ = db_tables(tmp_path/'res')
    assert len(units) == 6 and units.unit_id.is_unique and set(units.status) == {'done'}
    assert len(metrics) == 12 and not metrics.duplicated(['unit_id', 'metric']).any()
    assert not (markers/f"{uid}.{pid}.end").exists()            # the killed attempt never finished ...
    assert len(list(markers.glob(f"{uid}.*.end"))) == 1         # ... another worker ran the unit, once to the end
    assert units.set_index('unit_id').loc[uid, 'worker'] is not None
    assert '6 done, 0 failed' in out


def test_client_killed_then_rerun_finishes_without_duplicates(tmp_path):
    markers = tmp_path/'markers'
    plan = sleep_plan(tmp_path/'plan.yaml', 8, 1.0, markers)
    p = start('sweep', 'run', plan, '--results', tmp_path/'res', '--workers', 2)
    try:
        wait_for(lambda: markers.exists() and len(list(markers.glob('*.end'))) >= 3, what='three units to finish')
        time.sleep(0.5)                                         # let the client record them
        os.kill(p.pid, signal.SIGKILL)                          # the client (and the scheduler inside it)
        p.wait(30)
    finally: _killpg(p)                                         # orphaned worker processes of that run
    code, out, err = finish(start('sweep', 'run', plan, '--results', tmp_path/'res', '--workers', 2))
    assert code == 0, err
    skipped = int(re.search(r'(\d+) skipped', out).group(1))
    assert 1 <= skipped < 8, out
    units, metrics, runs = db_tables(tmp_path/'res')
    assert len(units) == 8 and units.unit_id.is_unique and set(units.status) == {'done'}
    assert len(metrics) == 16 and not metrics.duplicated(['unit_id', 'metric']).any()
    assert sorted(runs.status) == ['done', 'interrupted']       # the killed run is marked on the next open; the rerun closed
    assert (units.run_id == runs.loc[runs.status == 'done', 'run_id'].item()).sum() == 8 - skipped


def test_failing_unit_is_reported_and_the_rest_complete(tmp_path):
    plan = tmp_path/'plan.yaml'
    plan.write_text("units:\n  - {family: test, task: echo, seeds: [1, 2, 3]}\n"
                    "  - {family: test, task: fail, options: {message: the model file is corrupt}}\n")
    code, out, err = finish(start('sweep', 'run', plan, '--results', tmp_path/'res', '--workers', 2))
    assert code == 3, err
    assert '3 done, 1 failed' in out
    units, metrics, runs = db_tables(tmp_path/'res')
    bad = units[units.status == 'failed']
    assert len(bad) == 1 and bad.error.item() == 'RuntimeError: the model file is corrupt'
    tb = (tmp_path/'res'/'errors'/f"{bad.unit_id.item()}.txt").read_text()
    assert tb.startswith('Traceback') and 'the model file is corrupt' in tb
    assert f"failed {bad.unit_id.item()}: RuntimeError: the model file is corrupt" in err
    assert sorted(metrics[metrics.metric == 'seed'].value) == [1.0, 2.0, 3.0]
    assert runs.status.item() == 'failed'


def test_bad_plan_is_one_clear_line(tmp_path):
    plan = tmp_path/'plan.yaml'
    plan.write_text("units:\n  - family: test\n    task: echo\n    seeds: [1, 2]\n    optoins: {seconds: 1}\n")
    for cmd in (['sweep', 'validate', plan], ['sweep', 'run', plan, '--results', tmp_path/'res']):
        code, out, err = finish(start(*cmd), timeout=120)
        assert code == 1
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert lines[0] == (f"benchnb: error: {plan}:5: field 'units[0].optoins': value 'optoins': unknown field (did you mean 'options'?); "
                            "known: family, dataset, model, task, seeds, options, resources"), lines[0]
    assert not (tmp_path/'res'/'results.duckdb').exists()


def test_ctrl_c_stops_with_130_and_rerun_resumes(tmp_path):
    markers = tmp_path/'markers'
    plan = sleep_plan(tmp_path/'plan.yaml', 6, 1.0, markers)
    p = start('sweep', 'run', plan, '--results', tmp_path/'res', '--workers', 2)
    try:
        wait_for(lambda: markers.exists() and len(list(markers.glob('*.end'))) >= 1, what='a unit to finish')
        time.sleep(0.3)
        os.kill(p.pid, signal.SIGINT)
    except BaseException: _killpg(p); raise
    code, out, err = finish(p, timeout=60)
    assert code == 130, err
    units, _, runs = db_tables(tmp_path/'res')
    assert runs.status.tolist() == ['interrupted'] and len(units) < 6
    code, out, err = finish(start('sweep', 'run', plan, '--results', tmp_path/'res', '--workers', 2))
    assert code == 0, err
    units, metrics, _ = db_tables(tmp_path/'res')
    assert len(units) == 6 and units.unit_id.is_unique and len(metrics) == 12


def test_runs_on_an_existing_scheduler(tmp_path):
    from distributed import LocalCluster
    plan = tmp_path/'plan.yaml'
    plan.write_text("units:\n  - {family: test, task: echo, seeds: [5, 6]}\n")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol='tcp://', dashboard_address=None) as lc:
        code, out, err = finish(start('sweep', 'run', plan, '--results', tmp_path/'res', '--scheduler', lc.scheduler_address))
        assert code == 0, err
        assert '2 done, 0 failed' in out
    units, metrics, runs = db_tables(tmp_path/'res')
    assert sorted(metrics[metrics.metric == 'seed'].value) == [5.0, 6.0]
    assert runs.manifest.item()['scheduler'] == lc.scheduler_address
    assert all(w.startswith('tcp://') for w in units.worker)                 # ran on that cluster's worker


def test_unit_that_kills_every_worker_is_recorded_failed(tmp_path):
    plan = tmp_path/'plan.yaml'
    seeds = list(range(1, 11))            # enough units queued behind the crashing one to be hit by its worker deaths
    plan.write_text(f"units:\n  - {{family: test, task: echo, seeds: {seeds}}}\n  - {{family: test, task: crash}}\n")
    code, out, err = finish(start('sweep', 'run', plan, '--results', tmp_path/'res', '--workers', 2))
    assert code == 3, err
    assert '10 done, 1 failed' in out, err
    assert not re.search(r"crash.*running it again alone", err)   # the culprit: failed at once, not run again
    units, metrics, _ = db_tables(tmp_path/'res')
    bad = units[units.status == 'failed']
    assert len(bad) == 1 and bad.task.item() == 'crash' and bad.error.item().startswith('KilledWorker')
    assert (tmp_path/'res'/'errors'/f"{bad.unit_id.item()}.txt").exists()
    assert sorted(metrics[metrics.metric == 'seed'].value) == [float(s) for s in seeds]
    starts = (tmp_path/'res'/'work'/'attempts'/bad.unit_id.item()).read_text().splitlines()
    assert len(starts) == 4                          # Dask's allowed-failures (3) + 1: no start more


def test_ctrl_c_during_cluster_start_interrupts_and_spares_workers(tmp_path):
    "A terminal's Ctrl-C (to the whole group) while the local cluster starts: 130 and one line (main: ran all, said 0)."
    markers = tmp_path/'markers'
    plan = sleep_plan(tmp_path/'plan.yaml', 4, 0.1, markers)
    env = {**os.environ, 'BENCHNB_PROGRESS': 'lines', 'BENCHNB_TEST_CTRL_C': 'cluster-start'}
    p = subprocess.Popen([sys.executable, '-c', CODE, 'sweep', 'run', str(plan), '--results', str(tmp_path/'res'),
                          '--workers', '2'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    code, out, err = finish(p, timeout=120)
    assert code == 130, (code, err)
    assert 'benchnb: interrupted' in err and 'Traceback' not in err and 'KeyboardInterrupt' not in err, err
    assert not markers.exists() or not list(markers.glob('*.end'))


def test_ctrl_c_mid_unit_leaves_no_leaked_semaphore(tmp_path):
    "A unit holding a semaphore (a DataLoader's queues) when Ctrl-C stops the sweep: no resource_tracker warning."
    markers = tmp_path/'markers'
    (tmp_path/'plan.yaml').write_text(f"units:\n  - family: test\n    task: hold\n    seeds: [0]\n"
                                      f"    options: {{seconds: 60, marker_dir: '{markers}'}}\n")
    p = subprocess.Popen([sys.executable, '-c', CODE, 'sweep', 'run', str(tmp_path/'plan.yaml'), '--results',
                          str(tmp_path/'res'), '--workers', '1'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env={**os.environ, 'BENCHNB_PROGRESS': 'lines'}, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        wait_for(lambda: markers.exists() and list(markers.glob('*.start')), what='the unit to start')
        os.killpg(p.pid, signal.SIGINT)                          # as a terminal's Ctrl-C: the whole group
    except BaseException: _killpg(p); raise
    code, out, err = finish(p, timeout=120)
    assert code == 130, err
    assert 'leaked semaphore' not in err and 'Traceback' not in err, err
