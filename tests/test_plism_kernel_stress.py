"""PLISM numba kernels on an empty numba cache, first used from many threads at once in several processes (issue 30).

Each child process gets a fresh NUMBA_CACHE_DIR, imports the kernel module and, from 8 threads released together,
runs every kernel family (parallel and one-thread self and cross blocks) through the public block primitives,
checking the counts against numpy. `BENCHNB_STRESS_ROUNDS=20 BENCHNB_STRESS_PROCS=3 pytest tests/test_plism_kernel_stress.py` repeats it.
"""
import os, subprocess, sys, tempfile, textwrap

import pytest

CHILD = textwrap.dedent("""
    import sys, threading
    import numpy as np
    from benchnb.plism import kernel as K
    be = K.NumpyBackend()
    rng = np.random.default_rng(int(sys.argv[1]))
    n_par, n_ser = 1100, 600                   # block sizes: > _SERIAL (parallel kernels) and in (_NUMPY_MAX, _SERIAL)
    assert n_par * n_par >= K._SERIAL and K._NUMPY_MAX < n_ser * n_ser < K._SERIAL
    def job(n, seed, out, i):
        r = np.random.default_rng(seed)
        c = r.random((n, n), dtype=np.float32); th = r.random((n, 3), dtype=np.float32); t = th[:, 0].copy()
        want_self = K.Backend.self_block(be, c.copy(), 0, th)
        want_cross = K.Backend.cross_block(be, c.copy(), 0, t)
        got_self = be.self_block(c.copy(), 0, th)
        got_cross = be.cross_block(c.copy(), 0, t)
        out[i] = (np.array_equal(want_self, got_self) and np.array_equal(want_cross[0], got_cross[0])
                  and np.array_equal(want_cross[1], got_cross[1]))
    barrier, out, errors = threading.Barrier(8), [None] * 8, []
    def run(i):
        try:
            barrier.wait()
            job(n_par if i % 2 else n_ser, i, out, i)
        except BaseException as e: errors.append(repr(e))
    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for t in threads: t.start()
    for t in threads: t.join()
    assert not errors, errors
    assert all(out), out
    print('ok')
""")


def _round(tmp, n_procs):
    env = {**os.environ, 'NUMBA_CACHE_DIR': tempfile.mkdtemp(dir=tmp), 'NUMBA_NUM_THREADS': '2'}
    procs = [subprocess.Popen([sys.executable, '-c', CHILD, str(i)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(n_procs)]
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0 and out.strip() == 'ok', err[-2000:]


def test_kernels_from_threads_and_processes_on_empty_cache(tmp_path):
    "Once in CI (2 processes, ~1 min: compiling is the cost); BENCHNB_STRESS_ROUNDS / _PROCS to repeat or widen it."
    for _ in range(int(os.environ.get('BENCHNB_STRESS_ROUNDS', '1'))):
        _round(tmp_path, int(os.environ.get('BENCHNB_STRESS_PROCS', '2')))
