"""The results database under real processes: a SIGKILLed writer loses nothing it committed, a rerun continues
without duplicates, a second writer gets one clear error, a reader during a write reads a consistent snapshot."""
import os, signal, subprocess, sys, time
from pathlib import Path
import pytest

from benchnb.core import RunError
from benchnb.resultsdb.db import ResultsDB

ROOT = Path(__file__).resolve().parents[1]
N_UNITS, N_METRICS = 400, 7

WRITER = r'''
import sys
from benchnb.resultsdb.db import ResultsDB
path, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
db = ResultsDB(path)
db.begin_run('sweep-1', {'n': n})
done = db.done_unit_ids()
for i in range(n):
    uid = f'u{i:04d}'
    if uid in done: continue
    unit = dict(unit_id=uid, family='cells', dataset='d', model=f'm{i % 5}', task='t', params={'i': i},
                status='done', started_at='2026-11-23T10:00:00+00:00', finished_at='2026-11-23T10:00:01+00:00',
                worker='w')
    if db.record_unit('sweep-1', unit, [dict(metric=f'x{j}', value=i + j / 10, seed=j) for j in range(k)]):
        print(uid, flush=True)   # printed only after the commit returned
db.finish_run('sweep-1', 'done')
print('FINISHED', flush=True)
'''


def _writer(path, n=N_UNITS):
    env = {**os.environ, 'PYTHONPATH': str(ROOT)}
    return subprocess.Popen([sys.executable, '-c', WRITER, str(path), str(n), str(N_METRICS)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def _check_consistent(db):
    "Every unit has all its metrics (no half-written unit), no duplicates."
    u, m = db.units(), db.metrics()
    assert u.unit_id.is_unique
    assert not m.duplicated(['unit_id', 'metric']).any()
    per_unit = m.groupby('unit_id').size()
    assert set(per_unit.index) == set(u.unit_id)
    assert (per_unit == N_METRICS).all()
    return set(u.unit_id)


def test_killed_writer_loses_nothing_and_rerun_continues(tmp_path):
    p = _writer(tmp_path)
    committed = []
    while len(committed) < 60:
        line = p.stdout.readline()
        assert line, p.stderr.read()
        committed.append(line.strip())
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=30)
    assert p.returncode == -signal.SIGKILL
    with ResultsDB(tmp_path) as db:
        have = _check_consistent(db)
        assert set(committed) <= have            # nothing the writer saw committed is lost
        assert len(have) < N_UNITS               # it really was killed mid-run
        assert db.runs().status.tolist() == ['interrupted']   # its client is dead: marked on this open (issue 20 #12)
    p2 = _writer(tmp_path)
    out, err = p2.communicate(timeout=300)
    assert p2.returncode == 0, err
    rerun = out.split()[:-1]
    assert not set(rerun) & have                 # the rerun skipped what was done
    with ResultsDB(tmp_path, read_only=True) as db:
        assert _check_consistent(db) == {f'u{i:04d}' for i in range(N_UNITS)}
        assert len(db.metrics()) == N_UNITS * N_METRICS
        assert db.runs().status.tolist() == ['done']
        m = db.metrics(unit_id='u0123', metric='x3')
        assert m.value.tolist() == [123.3] and m.model.tolist() == ['m3'] and m.seed.tolist() == [3]


def test_second_writer_gets_clear_error_and_reader_reads_a_snapshot(tmp_path):
    p = _writer(tmp_path, n=100_000)
    try:
        seen = [p.stdout.readline().strip() for _ in range(20)]
        assert all(seen), p.stderr.read()
        with pytest.raises(RunError, match='cannot open the results database'): ResultsDB(tmp_path)
        with ResultsDB(tmp_path, read_only=True) as db:     # while the writer holds the file
            assert db.snapshot
            have = _check_consistent(db)
            assert set(seen) <= have
            tmp = db._tmp
        assert not Path(tmp).exists()                        # the private copy is removed on close
    finally:
        p.kill(); p.wait(timeout=30)
    with ResultsDB(tmp_path, read_only=True) as db:
        assert db.snapshot                                   # a reader always reads a copy: it never locks out a writer (issue 32)
        assert _check_consistent(db) >= have
