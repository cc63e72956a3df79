"""`benchnb results compare` and `benchnb results diff` end to end (subprocesses) on small databases built here.

The gate (`diff --fail-on-regression`) exits 0 (passed), 4 (a regression) or 5 (a BASE row missing in NEW or untestable,
unless allowed) and always ends with one summary line on stderr. Issue 28's five defects and issue 32's two gate cases
each have a test here (marked `issue 28 §N` / `issue 32`); they fail on the main of 8630b2f."""
import contextlib, io, json, math, os, subprocess, sys, types
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchnb.resultsdb.db import ResultsDB

ROOT = Path(__file__).resolve().parents[1]
BASE = np.linspace(0.2, 0.8, 12)          # 12 units: the exact sign-flip minimum is 2/2^12


def _subprocess(*args):
    "`benchnb ARGS` as a real process (the exit status a CI job sees)."
    env = {**os.environ, 'BENCHNB_PROGRESS': '0', 'PYTHONPATH': str(ROOT)}
    code = 'import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))'
    return subprocess.run([sys.executable, '-c', code, *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=300)


def _benchnb(*args):
    "`benchnb ARGS` in this process (`main` returns the exit status): the same command, without a second start-up."
    from benchnb.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): code = main([str(a) for a in args])
    return types.SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def _db(path, models: dict, run='r1', dataset='bench', family='toy', metric='precision_at_k', task='rank',
        obs_id=lambda i: f'q{i}', params=None):
    "A results database with one unit per model: one observation per unit of repetition."
    with ResultsDB(path) as db:
        db.begin_run(run, {})
        for model, values in models.items():
            p = params if params is not None else {'k': 10}
            u = dict(unit_id=f'{run}-{family}-{dataset}-{model}-{metric}-{json.dumps(p)}', family=family, dataset=dataset,
                     model=model, task=task, status='done')
            obs = [dict(metric=metric, value=None if v != v else v, obs_id=obs_id(i), params=p) for i, v in enumerate(values)]
            db.record_unit(run, u, [dict(metric=metric, value=float(np.nanmean(values)) if np.isfinite(values).any()
                                         else None, params=p)], obs)
        db.finish_run(run, 'done')
    return path


def _seeds(i): return f'seed={i}'


def _summary(stderr: str) -> str:
    last = stderr.strip().splitlines()[-1]
    assert last.startswith('gate: compared '), stderr
    return last


@pytest.fixture
def base(tmp_path):
    return _db(tmp_path/'base', {'m1': BASE, 'm2': BASE[::-1]})


# --- the gate on ordinary cases ---------------------------------------------------------------------------

def test_identical_results_pass_the_gate(base, tmp_path):
    new = _db(tmp_path/'new', {'m1': BASE, 'm2': BASE[::-1]})
    r = _subprocess('results', 'diff', base, new, '--fail-on-regression')
    assert r.returncode == 0, r.stderr
    assert _summary(r.stderr) == 'gate: compared 2, testable 2, regressions 0, untestable 0, missing 0 -> PASS (exit 0)'
    assert r.stdout.count('no significant difference') == 2 and 'worse' not in r.stdout


def test_a_regression_exits_4_with_one_stderr_line_each(base, tmp_path):       # issue 28 §4: not 3
    new = _db(tmp_path/'new', {'m1': BASE - 0.05, 'm2': BASE[::-1] - 0.01})   # both worse on every unit
    r = _subprocess('results', 'diff', base, new, '--fail-on-regression')
    assert r.returncode == 4, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 3 and lines[-1].endswith('-> FAIL (exit 4)'), lines
    assert all(l.startswith('regression: toy m') and 'precision_at_k on bench / rank' in l for l in lines[:2]), lines
    assert 'delta -0.0500' in lines[0] and 'n=12 query' not in lines[0] and 'n=12 unit' in lines[0]
    # without the flag the same regressions are reported but the exit status is 0
    r = _benchnb('results', 'diff', base, new)
    assert r.returncode == 0 and len(r.stderr.strip().splitlines()) == 3


def test_only_the_worse_model_is_a_regression(base, tmp_path):
    new = _db(tmp_path/'new', {'m1': BASE + 0.05, 'm2': BASE[::-1] - 0.02})
    r = _benchnb('results', 'diff', base, new, '--fail-on-regression')
    assert r.returncode == 4
    assert [l.split()[2] for l in r.stderr.strip().splitlines()[:-1]] == ['m2']
    assert 'better' in r.stdout


def test_an_improvement_passes(base, tmp_path):
    new = _db(tmp_path/'new', {'m1': BASE + 0.05, 'm2': BASE[::-1]})
    r = _benchnb('results', 'diff', base, new, '--fail-on-regression')
    assert r.returncode == 0 and _summary(r.stderr).endswith('PASS (exit 0)')


def test_too_few_units_fail_the_gate_unless_allowed(tmp_path):                 # issue 28 §2, §4
    b = _db(tmp_path/'b', {'m1': BASE[:5]})
    n = _db(tmp_path/'n', {'m1': BASE[:5] - 0.3})             # worse on all 5, but 2/2^5 > 0.05: cannot tell
    r = _benchnb('results', 'diff', b, n, '--fail-on-regression')
    assert r.returncode == 5, r.stderr
    assert 'cannot tell' in r.stdout and 'needs ≥ 6 units' in r.stdout
    assert _summary(r.stderr) == 'gate: compared 1, testable 0, regressions 0, untestable 1, missing 0 -> FAIL (exit 5)'
    r = _benchnb('results', 'diff', b, n, '--fail-on-regression', '--allow-untestable')
    assert r.returncode == 0 and _summary(r.stderr).endswith('PASS (exit 0)')


def test_two_runs_of_one_directory(tmp_path):
    db = _db(tmp_path/'db', {'m1': BASE}, run='r1')
    _db(tmp_path/'db', {'m1': BASE - 0.1}, run='r2')
    r = _benchnb('results', 'diff', f'{db}:r1', f'{db}:r2', '--fail-on-regression')
    assert r.returncode == 4 and len(r.stderr.strip().splitlines()) == 2
    r = _benchnb('results', 'diff', f'{db}:r1', f'{db}:r1', '--fail-on-regression')
    assert r.returncode == 0


def test_bad_sources_are_one_line_and_exit_1(base, tmp_path):
    for args, msg in [((base, tmp_path/'nothing'), 'no results database here'),
                      ((f'{base}:nope', base), "no run 'nope'"),
                      ((base, base, '--family', 'plism'), 'no done plism results in the database (it holds: toy)')]:
        r = _benchnb('results', 'diff', *args, '--fail-on-regression')
        assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and msg in r.stderr, r.stderr


def test_compare_prints_every_model_against_the_baseline(tmp_path):
    db = _db(tmp_path/'db', {'base': BASE, 'same': BASE, 'worse': BASE - 0.1, 'better': BASE + 0.02})
    r = _benchnb('results', 'compare', db, '--family', 'toy', '--baseline', 'base', '--csv', tmp_path/'c.csv')
    assert r.returncode == 0, r.stderr
    t = pd.read_csv(tmp_path/'c.csv').set_index('model')
    assert t.verdict.to_dict() == {'better': 'better', 'same': 'no significant difference', 'worse': 'worse'}
    assert t.p['worse'] == 2 / 2**12 and t.p['same'] == 1.0
    # Holm over m = 2 p-values (the identical model's p = 1 is not counted): both 2 × 2/2^12
    assert t.p_holm['worse'] == t.p_holm['better'] == 2 * 2 / 2**12 and t.p_holm['same'] == 1.0
    assert r.stdout.strip().splitlines()[-1] == '3 comparisons: 1 better, 1 worse, 1 no significant difference'


# --- issue 28 §1: pseudo-replication of cells seeds ---------------------------------------------------------

def test_seed_independent_cells_metric_is_one_observation(tmp_path):
    """8 seeds of a deterministic metric (the same value on each): one observation, so 'cannot tell' — not 'worse'
    at p = 2/2^8 with a zero-width interval."""
    kw = dict(family='cells', metric='silhouette_score', task='embedding', obs_id=_seeds, params={})
    db = _db(tmp_path/'db', {'base': [0.62] * 8, 'new': [0.60] * 8}, **kw)
    r = _benchnb('results', 'compare', db, '-f', 'cells', '-b', 'base', '--csv', tmp_path/'c.csv')
    assert r.returncode == 0, r.stderr
    row = pd.read_csv(tmp_path/'c.csv').iloc[0]
    assert (row.verdict, row.unit, row.n_units) == ('cannot tell', 'dataset', 1), row.to_dict()
    assert 'same values on all 8 seeds: one observation' in row.note and 'datasets' in row.note


def test_cells_verdict_does_not_depend_on_how_many_seeds_repeat_a_value(tmp_path):
    kw = dict(family='cells', metric='silhouette_score', task='embedding', obs_id=_seeds, params={})
    verdicts = set()
    for n in (3, 8, 16):
        db = _db(tmp_path/f'db{n}', {'base': [0.62] * n, 'new': [0.60] * n}, **kw)
        assert _benchnb('results', 'compare', db, '-f', 'cells', '-b', 'base', '--csv', tmp_path/f'c{n}.csv').returncode == 0
        verdicts.add(pd.read_csv(tmp_path/f'c{n}.csv').verdict.item())
    assert verdicts == {'cannot tell'}


def test_six_seeds_two_models_nmi_collapse_is_cannot_tell_not_no_difference(tmp_path):   # issue 28 §1, §2
    kw = dict(family='cells', metric='nmi', task='clustering', obs_id=_seeds, params={})
    nmi = np.array([0.64, 0.65, 0.63, 0.64, 0.66, 0.62])
    db = _db(tmp_path/'db', {'base': nmi, 'collapsed': nmi - 0.4, 'other': nmi - 0.39}, **kw)
    r = _benchnb('results', 'compare', db, '-f', 'cells', '-b', 'base', '--csv', tmp_path/'c.csv')
    t = pd.read_csv(tmp_path/'c.csv')
    assert set(t.verdict) == {'cannot tell'} and set(t.units_needed) == {7}, t[['model', 'verdict', 'note']]
    assert not ((t.ci_high < 0) | (t.ci_low > 0)).any()          # no interval beside it pretends otherwise
    assert 'no difference' not in r.stdout and 'needs ≥ 7 seeds' in r.stdout
    assert '(cannot tell: up to 7 seeds needed)' in r.stdout.strip().splitlines()[-1]


# --- issue 28 §3: the interval and the verdict are one procedure ---------------------------------------------

def test_interval_and_verdict_never_disagree(tmp_path):
    """Skewed per-query differences (reciprocal ranks) at n = 14: on main a bootstrap CI excluding 0 stood beside
    'no difference'. Here the interval is the inverted test at the row's Holm level: it excludes 0 exactly when
    p_holm ≤ 0.05, and 'worse' rows lie below 0."""
    rng = np.random.default_rng(3)
    models = {'base': rng.uniform(0.2, 1, 14)}
    for i in range(6):
        models[f'm{i}'] = np.clip(models['base'] - rng.choice([0.0, 0.0, 0.05, 0.5], 14) * (i + 1) / 4, 0, 1)
    db = _db(tmp_path/'db', models, metric='mean_reciprocal_rank', params={})
    r = _benchnb('results', 'compare', db, '-f', 'toy', '-b', 'base', '--csv', tmp_path/'c.csv')
    assert r.returncode == 0, r.stderr
    t = pd.read_csv(tmp_path/'c.csv')
    excludes = (t.ci_high < 0) | (t.ci_low > 0)
    assert (excludes == (t.p_holm <= 0.05)).all(), t[['model', 'ci_low', 'ci_high', 'p', 'p_holm', 'verdict']]
    assert ((t.verdict == 'worse') == (t.ci_high < 0)).all() and (t.verdict == 'worse').any()
    assert set(t.test) == {'sign-flip permutation'} and (t.level >= 0.95).all()


def test_lower_is_better_metric_is_sign_aware(tmp_path):
    b = _db(tmp_path/'b', {'m': BASE}, metric='failure_rate', params={})
    n = _db(tmp_path/'n', {'m': BASE + 0.1}, metric='failure_rate', params={})
    r = _benchnb('results', 'diff', b, n, '--fail-on-regression', '--csv', tmp_path/'d.csv')
    row = pd.read_csv(tmp_path/'d.csv').iloc[0]
    assert r.returncode == 4 and row.verdict == 'worse' and row.ci_low > 0


def test_margin_gives_equivalent(tmp_path):
    d = np.array([0.004, -0.003, 0.002, -0.001, 0.003, -0.002] * 2)
    b = _db(tmp_path/'b', {'m': BASE})
    n = _db(tmp_path/'n', {'m': BASE + d})
    r = _benchnb('results', 'diff', b, n, '--margin', '0.02', '--csv', tmp_path/'d.csv')
    assert pd.read_csv(tmp_path/'d.csv').verdict.item() == 'equivalent', r.stdout
    r = _benchnb('results', 'diff', b, n, '--csv', tmp_path/'d.csv')
    row = pd.read_csv(tmp_path/'d.csv').iloc[0]
    assert row.verdict == 'no significant difference' and row.note.startswith('detectable |Δ| ≥ ')


# --- issue 28 §4 and issue 32 §4: the gate never passes blind ---------------------------------------------

def test_ari_collapse_on_two_datasets_of_one_seed_fails_the_gate(tmp_path):
    """ARI 1.0 -> 0.0 on two datasets, one seed each: nothing can be tested, so the gate fails (5) with a summary
    line, and cells gets its '(across datasets)' row."""
    kw = dict(family='cells', metric='adjusted_rand_index', task='clustering', obs_id=_seeds, params={})
    for ds in ('pbmc', 'lung'):
        _db(tmp_path/'b', {'scvi': [1.0]}, dataset=ds, **kw)
        _db(tmp_path/'n', {'scvi': [0.0]}, dataset=ds, **kw)
    r = _benchnb('results', 'diff', tmp_path/'b', tmp_path/'n', '--fail-on-regression', '--csv', tmp_path/'d.csv')
    assert r.returncode == 5, (r.returncode, r.stderr)
    assert _summary(r.stderr) == 'gate: compared 2, testable 0, regressions 0, untestable 2, missing 0 -> FAIL (exit 5)'
    t = pd.read_csv(tmp_path/'d.csv')
    across = t[t.dataset == '(across datasets)']
    assert len(across) == 1 and across.unit.item() == 'dataset' and across.n_units.item() == 2
    assert across.verdict.item() == 'cannot tell' and 'needs ≥ 6 datasets' in across.note.item()


def test_a_model_missing_in_new_fails_the_gate(base, tmp_path):               # issue 28 §4, issue 32 §4
    new = _db(tmp_path/'new', {'m1': BASE})                                    # m2 dropped
    r = _subprocess('results', 'diff', base, new, '--fail-on-regression')
    assert r.returncode == 5, r.stderr
    assert _summary(r.stderr) == 'gate: compared 2, testable 1, regressions 0, untestable 0, missing 1 -> FAIL (exit 5)'
    assert 'missing' in r.stdout and 'not in NEW' in r.stdout
    r = _benchnb('results', 'diff', base, new, '--fail-on-regression', '--allow-missing')
    assert r.returncode == 0, r.stderr


def test_a_metric_nan_on_every_seed_fails_the_gate(tmp_path):                   # issue 32 §4
    kw = dict(family='cells', metric='nmi', task='clustering', obs_id=_seeds, params={})
    b = _db(tmp_path/'b', {'scvi': [0.6, 0.62, 0.61, 0.6, 0.63, 0.6, 0.61, 0.62]}, **kw)
    n = _db(tmp_path/'n', {'scvi': [float('nan')] * 8}, **kw)
    r = _benchnb('results', 'diff', b, n, '--fail-on-regression')
    assert r.returncode == 5, (r.returncode, r.stdout, r.stderr)
    assert 'NaN on every unit in NEW' in r.stdout
    assert _summary(r.stderr).startswith('gate: compared 1, testable 0, regressions 0, untestable 1, missing 0')


def test_formats_for_ci(base, tmp_path):
    new = _db(tmp_path/'new', {'m1': BASE - 0.05})                       # m1 worse, m2 missing
    r = _benchnb('results', 'diff', base, new, '--fail-on-regression', '--format', 'json')
    assert r.returncode == 4
    doc = json.loads(r.stdout)
    assert doc['status'] == 4 and [x['verdict'] for x in doc['rows']] == ['worse', 'missing']
    assert {'unit', 'n_units', 'delta', 'ci_low', 'ci_high', 'p', 'p_holm', 'verdict', 'note'} <= set(doc['rows'][0])
    r = _benchnb('results', 'diff', base, new, '--format', 'junit', '--allow-missing')
    suite = ET.fromstring(r.stdout)
    assert (suite.get('tests'), suite.get('failures'), suite.get('skipped')) == ('2', '1', '1')
    r = _benchnb('results', 'diff', base, new, '--format', 'github')
    lines = r.stdout.strip().splitlines()
    assert lines[0].startswith('::error title=benchnb regression::toy m1 precision_at_k bench rank')
    assert lines[1].startswith('::error title=benchnb missing in NEW::toy m2')
    assert _summary(r.stderr).endswith('FAIL (exit 4)')


# --- issue 28 §5: tables a reader can use -----------------------------------------------------------------

def test_label_prediction_classifier_is_a_column(tmp_path):
    kw = dict(family='cells', task='label_prediction', obs_id=_seeds)
    for clf in ('lr', 'knn', 'rf', 'MEAN(knn,lr,rf)'):
        _db(tmp_path/'db', {'a': BASE, 'b': BASE - 0.05}, metric='mean_fold_f1_score', params={'classifier': clf}, **kw)
    r = _benchnb('results', 'compare', tmp_path/'db', '-f', 'cells', '-b', 'a', '--csv', tmp_path/'c.csv')
    assert r.returncode == 0, r.stderr
    t = pd.read_csv(tmp_path/'c.csv')
    assert sorted(t.classifier) == sorted(['lr', 'knn', 'rf', 'MEAN(knn,lr,rf)'])
    header = r.stdout.splitlines()[0].split()
    assert 'classifier' in header and 'unit' in header and 'test' in header
    assert set(t.unit) == {'seed'} and set(t.test) == {'sign-flip permutation'}


def test_a_single_seed_run_is_diagnosed_not_reported_as_missing_observations(tmp_path):
    """A `cells run -o` file of one seed: imported under the .h5ad's name, one observation per metric, and
    `compare` says 'cannot tell' with what it would need — not 'no unit-level observations … import them again'."""
    rows = [{'task': 'clustering', 'model': m, 'metric': 'nmi', 'value': v, 'params': {}}
            for m, v in (('X_pca', 0.6), ('X_scvi', 0.7))]
    f = tmp_path/'results.json'
    f.write_text(json.dumps({'benchnb_version': '0', 'args': {'adata': '/data/pbmc3k.h5ad', 'seed': 42},
                             'results': rows}))
    r = _benchnb('results', 'import', tmp_path/'db', f)
    assert r.returncode == 0, r.stderr
    r = _benchnb('results', 'compare', tmp_path/'db', '-f', 'cells', '-b', 'X_pca', '--csv', tmp_path/'c.csv')
    assert r.returncode == 0, r.stderr
    row = pd.read_csv(tmp_path/'c.csv').iloc[0]
    assert (row.dataset, row.verdict, row.n_units) == ('pbmc3k', 'cannot tell', 1)
    assert 'no unit-level observations' not in r.stdout + r.stderr


def test_an_absent_family_is_named(base):
    r = _benchnb('results', 'compare', base, '-f', 'cells', '-b', 'x')
    assert r.returncode == 1 and 'no done cells results in the database (it holds: toy)' in r.stderr, r.stderr


# --- calibration of the gate: false positives under the null ----------------------------------------------

def test_gate_false_positive_rate_under_the_null():
    """200 null 'releases' (3 models × 2 metrics, 20 queries each, the same distribution in BASE and NEW): the gate
    calls a regression in at most α = 5 % of them, within 3 binomial standard errors; on a 0.7-SD drop of one model
    it fires in most."""
    from benchnb.resultsdb.compare import _finish, gate
    from benchnb.stats import SignFlip
    rng = np.random.default_rng(11)
    def release(shift=0.0):
        rows, tests = [], []
        for m in ('a', 'b', 'c'):
            for metric in ('hit', 'mrr'):
                d = rng.normal(size=20) - rng.normal(size=20) - (shift if m == 'a' else 0.0)
                rows.append(dict(family='toy', model=m, metric=metric, dataset='d', task='t', subset=None, params='{}',
                                 base=0.5, new=0.5 + d.mean(), delta=d.mean(), unit='query', n_units=20,
                                 test='sign flip', note='', identical=False, needs='queries'))
                tests.append(SignFlip(d, n_resamples=500, seed=int(rng.integers(1 << 30))))
        return gate(_finish(rows, tests, 0.05, None, by=None, extra=['family']))
    fired = np.mean([release() == 4 for _ in range(200)])
    assert fired <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 200), fired
    power = np.mean([release(shift=1.0) == 4 for _ in range(30)])
    assert power >= 0.5, power
