"PLISM rank kernel: every available backend against the naive definition, on shapes and data that stress it."
import os

import numpy as np
import pytest

from benchnb.plism.kernel import (hard_slides, make_backend, naive_cosine, naive_twin_ranks, nearest_tiles, tie_tolerance,
                                  topk_from_ranks, twin_ranks, upstream_pair_metrics)

BACKENDS = ['numpy'] + (['torch'] if pytest.importorskip('torch') else [])


def _near_ties(a, b, tol=None):
    "Per query: distractors whose float64 similarity is within `tol` of the twin's but not equal (undecidable in fp32)."
    tol = tol or max(1e-6, 2 * tie_tolerance(a.shape[1]))
    x = np.concatenate([a, b]).astype(np.float64); x /= np.linalg.norm(x, axis=1, keepdims=True)
    s, n = x @ x.T, len(a)
    q, twin = np.arange(2 * n), np.r_[np.arange(n, 2 * n), np.arange(n)]
    others = np.ones_like(s, bool); others[q, q] = others[q, twin] = False
    gap = np.abs(s - s[q, twin][:, None])
    return ((gap < tol) & (gap > 0) & others).sum(1)


def _check(feats, pairs, backend, **kw):
    "Ranks equal the definition exactly, except where a distractor is within fp32 rounding of the twin (then off by at most that many)."
    for (a, b), r in twin_ranks(feats, pairs, backend, **kw):
        na, nb = naive_twin_ranks(feats[a], feats[b])
        diff, slack = np.abs(np.r_[r.rank_a - na, r.rank_b - nb]), _near_ties(feats[a], feats[b])
        assert (diff <= slack).all(), (a, b, np.flatnonzero(diff > slack))
        assert (slack > 0).mean() < 0.05
        assert abs(r.cosine - naive_cosine(feats[a], feats[b])) < 1e-5


@pytest.mark.parametrize('name', BACKENDS)
@pytest.mark.parametrize('n,d', [(1, 3), (2, 1), (3, 2), (17, 5), (64, 33)])
@pytest.mark.parametrize('memory_mb', [1e-4, 256])
def test_random_shapes(name, n, d, memory_mb):
    rng = np.random.default_rng(n * 100 + d)
    feats = {f"s{i}": rng.normal(size=(n, d)) for i in range(3)}
    if d == 1: feats = {k: np.sign(v) + (v == 0) for k, v in feats.items()}     # ±1: every similarity is ±1, all ties
    _check(feats, [('s0', 's1'), ('s0', 's2'), ('s1', 's2')], make_backend(name, memory_mb=memory_mb))


@pytest.mark.parametrize('name', BACKENDS)
@pytest.mark.parametrize('ties', [False, True])
def test_hard_data_threads(name, ties):
    feats = hard_slides(n_slides=5, n=50, d=12, seed=11, ties=ties)
    pairs = [(a, b) for i, a in enumerate(sorted(feats)) for b in sorted(feats)[i + 1:]]
    _check(feats, pairs, make_backend(name, memory_mb=0.005), workers=2)


def test_single_tile_and_full_k():
    feats = {'a': np.array([[1.0, 2.0]]), 'b': np.array([[-3.0, 1.0]])}
    (_, r), = twin_ranks(feats, [('a', 'b')])
    assert r.rank_a.tolist() == [0] and r.rank_b.tolist() == [0]      # a gallery of two: the twin is the only other tile
    rng = np.random.default_rng(3)
    feats = {'a': rng.normal(size=(6, 4)), 'b': rng.normal(size=(6, 4))}
    (_, r), = twin_ranks(feats, [('a', 'b')])
    assert topk_from_ranks(r.rank_a, r.rank_b, [11, 50]) == {11: 1.0, 50: 1.0}   # k >= 2n - 1


def test_scale_invariance_and_upstream_overflow():
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(30, 16)), rng.normal(size=(30, 16))
    b[:15] = a[:15] + 0.3 * rng.normal(size=(15, 16))
    (_, r1), = twin_ranks({'a': a, 'b': b}, [('a', 'b')])
    (_, r2), = twin_ranks({'a': a * 4096, 'b': b * 4096}, [('a', 'b')])   # power of two: normalised rows identical
    np.testing.assert_array_equal(r1.rank_a, r2.rank_a)
    assert r1.cosine == pytest.approx(r2.cosine, abs=1e-7)
    assert np.isnan(upstream_pair_metrics(a * 4096, b * 4096, [1])[0])     # upstream's fp16 path overflows


def test_errors():
    with pytest.raises(Exception, match='zero vector'):
        list(twin_ranks({'a': np.zeros((3, 2)), 'b': np.ones((3, 2))}, [('a', 'b')]))
    with pytest.raises(Exception, match='different numbers of tiles'):
        list(twin_ranks({'a': np.ones((3, 2)), 'b': np.ones((4, 2))}, [('a', 'b')]))
    with pytest.raises(Exception, match='bf16'):
        make_backend('torch', precision='bf16')
    with pytest.raises(Exception, match='k must be between'):
        nearest_tiles(np.ones((2, 2)), np.ones((2, 2)), k=4)


def test_cupy_is_lazy():
    "The CPU path never imports cupy (upstream imported it at module top, so --device cpu needed it)."
    import subprocess, sys
    code = ("import sys; from benchnb.plism.kernel import twin_ranks, hard_slides; from benchnb.plism import evaluate; "
            "list(twin_ranks(hard_slides(2, 10, 3), [('s0', 's1')])); print('cupy' in sys.modules)")
    assert subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout.strip() == 'False'


def test_evaluate_command_imports(tmp_path):
    "`benchnb plism evaluate` on a small CPU run imports neither pandas, numba, torch, pydantic (typer's coercion) nor"
    " another family (start-up is most of its time)."
    import subprocess, sys
    from benchnb.plism.data import features_path, slide_id, write_features
    coords = np.array([[16, x, y] for x in range(6) for y in range(5)], np.float32)
    ids = [slide_id(st, sc) for st in ('GM', 'GV') for sc in ('P', 'SQ')]
    for sid, f in zip(ids, hard_slides(n_slides=4, n=30, d=8, seed=2).values()):
        write_features(features_path(tmp_path/'f', 'toy', sid), coords, f)
    code = ("import sys; from benchnb.cli import main\n"
            f"code = main(['plism', 'evaluate', '--extractor', 'toy', '--features-dir', {str(tmp_path/'f')!r}, "
            f"'--metrics-dir', {str(tmp_path/'m')!r}, '--n-tiles', 'all', '--top-k', '1', '3', '5', '10'])\n"
            "import benchnb.cli as c; avoid = ('pandas', 'numba', 'torch', 'benchnb.translator', 'benchnb.cells')\n"
            "avoid += ('pydantic',) * (c.RuntimeParam is not None)   # typer 0.29: plain options without pydantic\n"
            "print(code, [m for m in avoid if m in sys.modules])")
    env = {**os.environ, 'BENCHNB_PROGRESS': '0'}
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True, env=env)
    assert r.stdout.strip().splitlines()[-1] == '0 []', r.stdout + r.stderr
    assert (tmp_path/'m'/'30_tiles'/'toy'/'results.csv').exists()


def test_numba_builds_cached_apart(tmp_path):
    "The one-thread and the parallel build of a kernel have their own numba cache entries (on 95c86ea they shared one:"
    " the build compiled first was loaded for both, so the parallel kernel could run on one thread)."
    import subprocess, sys
    code = ("import numpy as np; from benchnb.plism.kernel import _kernels; k = _kernels()\n"
            "g, th = np.zeros((4, 8), np.float32), np.zeros((4, 2), np.float32)\n"
            "for f in (k.self_serial, k.self_parallel): f(g, 0, th, np.empty((4, 2), np.int32))\n"
            "s = k.self_parallel.stats; print(sum(s.cache_misses.values()), sum(s.cache_hits.values()))")
    env = {**os.environ, 'NUMBA_CACHE_DIR': str(tmp_path)}
    run = lambda: subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True, env=env)
    assert run().stdout.split() == ['1', '0']       # a fresh cache: the parallel build is compiled, not loaded
    assert run().stdout.split() == ['0', '1']       # then loaded from its own entry


def _copies(n=60, d=768, seed=0):
    "Random fp32 slides whose tiles 10…19 are ten exact copies of one tile on each slide (blank tiles)."
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, d)).astype(np.float32)
    b = (a + 0.8 * rng.normal(size=(n, d))).astype(np.float32)
    a[10:20], b[10:20] = a[10], b[10]
    return {'a': a, 'b': b}


@pytest.mark.parametrize('name', BACKENDS)
@pytest.mark.parametrize('d', [7, 768])
@pytest.mark.parametrize('memory_mb', [0.01, 256])
def test_copies_of_the_twin_tie(name, d, memory_mb):
    "Issue 33 item 2: an exact copy of the twin ties it, and ties favour the query: ranks equal the fp64 definition"
    " (on main the twin's fp32 rowdot and the gallery's GEMM differed by ulps, and copies ranked above the twin)."
    feats = _copies(d=d, seed=d)
    (_, r), = twin_ranks(feats, [('a', 'b')], make_backend(name, memory_mb=memory_mb))
    na, nb = naive_twin_ranks(feats['a'], feats['b'])
    x = np.concatenate([feats['a'], feats['b']]).astype(np.float64)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    assert x[10] @ x[70] == x[10] @ x[75]           # the definition itself ties the copies (fp64)
    np.testing.assert_array_equal(r.rank_a, na)
    np.testing.assert_array_equal(r.rank_b, nb)
    assert len(set(na[10:20])) == 1 and na[10] >= 9   # A's 9 other copies beat the twin (similarity 1); B's tie it
