"""`benchnb results compare` and `benchnb results diff` end to end (subprocesses) on small databases built here:
the regression gate's exit status (0, or 3 with --fail-on-regression when some metric is significantly worse), one
stderr line per regression, and identical / improved / too-small results that must not trip it."""
import os, subprocess, sys
from pathlib import Path

import numpy as np
import pytest

from benchnb.resultsdb.db import ResultsDB

ROOT = Path(__file__).resolve().parents[1]
BASE = np.linspace(0.2, 0.8, 12)          # 12 units: the exact sign-flip minimum is 2/2^12


def _benchnb(*args):
    env = {**os.environ, 'BENCHNB_PROGRESS': '0', 'PYTHONPATH': str(ROOT)}
    code = 'import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))'
    return subprocess.run([sys.executable, '-c', code, *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=300)


def _db(path, models: dict, run='r1', dataset='bench'):
    "A results database with one unit per model: one observation per unit of repetition."
    with ResultsDB(path) as db:
        db.begin_run(run, {})
        for model, values in models.items():
            u = dict(unit_id=f'{run}-{dataset}-{model}', family='toy', dataset=dataset, model=model, task='rank',
                     status='done')
            obs = [dict(metric='precision_at_k', value=v, obs_id=f'q{i}', params={'k': 10}) for i, v in enumerate(values)]
            db.record_unit(run, u, [dict(metric='precision_at_k', value=float(np.mean(values)), params={'k': 10})], obs)
        db.finish_run(run, 'done')
    return path


@pytest.fixture
def base(tmp_path):
    return _db(tmp_path/'base', {'m1': BASE, 'm2': BASE[::-1]})


def test_identical_results_pass_the_gate(base, tmp_path):
    new = _db(tmp_path/'new', {'m1': BASE, 'm2': BASE[::-1]})
    r = _benchnb('results', 'diff', base, new, '--fail-on-regression')
    assert (r.returncode, r.stderr) == (0, ''), r.stderr
    assert r.stdout.count('no difference') == 2 and 'worse' not in r.stdout


def test_a_regression_exits_3_with_one_stderr_line_each(base, tmp_path):
    new = _db(tmp_path/'new', {'m1': BASE - 0.05, 'm2': BASE[::-1] - 0.01})   # both worse on every unit
    r = _benchnb('results', 'diff', base, new, '--fail-on-regression')
    assert r.returncode == 3, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 2, lines
    assert all(l.startswith('regression: toy m') and 'precision_at_k on bench / rank' in l for l in lines), lines
    assert 'delta -0.0500' in lines[0] and 'n=12' in lines[0]
    # without the flag the same regressions are reported but the exit status is 0
    r = _benchnb('results', 'diff', base, new)
    assert r.returncode == 0 and len(r.stderr.strip().splitlines()) == 2


def test_only_the_worse_model_is_a_regression(base, tmp_path):
    new = _db(tmp_path/'new', {'m1': BASE + 0.05, 'm2': BASE[::-1] - 0.02})
    r = _benchnb('results', 'diff', base, new, '--fail-on-regression')
    assert r.returncode == 3
    assert [l.split()[2] for l in r.stderr.strip().splitlines()] == ['m2']
    assert 'better' in r.stdout


def test_an_improvement_passes(base, tmp_path):
    new = _db(tmp_path/'new', {'m1': BASE + 0.05, 'm2': BASE[::-1]})
    r = _benchnb('results', 'diff', base, new, '--fail-on-regression')
    assert (r.returncode, r.stderr) == (0, '')


def test_too_few_units_never_fail_the_gate(tmp_path):
    b = _db(tmp_path/'b', {'m1': BASE[:5]})
    n = _db(tmp_path/'n', {'m1': BASE[:5] - 0.3})             # worse on all 5, but 2/2^5 > 0.05
    r = _benchnb('results', 'diff', b, n, '--fail-on-regression')
    assert (r.returncode, r.stderr) == (0, '')
    assert 'too few units (n=5)' in r.stdout


def test_two_runs_of_one_directory(tmp_path):
    db = _db(tmp_path/'db', {'m1': BASE}, run='r1')
    _db(tmp_path/'db', {'m1': BASE - 0.1}, run='r2')
    r = _benchnb('results', 'diff', f'{db}:r1', f'{db}:r2', '--fail-on-regression')
    assert r.returncode == 3 and len(r.stderr.strip().splitlines()) == 1
    r = _benchnb('results', 'diff', f'{db}:r1', f'{db}:r1', '--fail-on-regression')
    assert (r.returncode, r.stderr) == (0, '')


def test_bad_sources_are_one_line_and_exit_1(base, tmp_path):
    for args, msg in [((base, tmp_path/'nothing'), 'no results database here'),
                      ((f'{base}:nope', base), "no run 'nope'"),
                      ((base, base, '--family', 'plism'), 'no unit-level observations')]:
        r = _benchnb('results', 'diff', *args, '--fail-on-regression')
        assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and msg in r.stderr, r.stderr


def test_compare_prints_every_model_against_the_baseline(tmp_path):
    db = _db(tmp_path/'db', {'base': BASE, 'same': BASE, 'worse': BASE - 0.1, 'better': BASE + 0.02})
    r = _benchnb('results', 'compare', db, '--family', 'toy', '--baseline', 'base', '--csv', tmp_path/'c.csv')
    assert r.returncode == 0, r.stderr
    import pandas as pd
    t = pd.read_csv(tmp_path/'c.csv').set_index('model')
    assert t.verdict.to_dict() == {'better': 'better', 'same': 'no difference', 'worse': 'worse'}
    assert t.p['worse'] == 2 / 2**12 and t.p['same'] == 1.0
    # Holm over m = 2 p-values (the identical model's p = 1 is not counted): both 2 × 2/2^12
    assert t.p_holm['worse'] == t.p_holm['better'] == 2 * 2 / 2**12 and t.p_holm['same'] == 1.0
