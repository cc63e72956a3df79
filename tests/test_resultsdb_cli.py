"""`benchnb results` end to end (subprocesses): runs made by the real single commands (cells run, plism evaluate,
translator evaluate) are imported once, their numbers land unchanged in the database, leaderboards and Parquet
export work, and bad input gets one line and exit status 1."""
import json, os, subprocess, sys
from pathlib import Path
import numpy as np
import pandas as pd
import pytest

sc = pytest.importorskip('scanpy')
ROOT = Path(__file__).resolve().parents[1]


def _benchnb(*args):
    env = {**os.environ, 'BENCHNB_PROGRESS': '0', 'PYTHONPATH': str(ROOT)}
    code = 'import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))'
    return subprocess.run([sys.executable, '-c', code, *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=600)


@pytest.fixture(scope='module')
def runs(tmp_path_factory):
    "Real outputs of the three single commands."
    d = tmp_path_factory.mktemp('runs')
    # cells: 250 cells of pbmc68k_reduced, two embeddings, two seeds
    a = sc.datasets.pbmc68k_reduced()[:250].copy()
    a.write_h5ad(d/'pbmc.h5ad')
    r = _benchnb('cells', 'run', d/'pbmc.h5ad', '-e', 'X_pca,X_umap', '-l', 'bulk_labels',
                 '--tasks', 'clustering,embedding',
                 '--seeds', '0,1', '--out', d/'cells.json')
    assert r.returncode == 0, r.stderr
    # PLISM: synthetic features of two extractors on 2 stainings x 3 scanners
    from benchnb.plism.data import slide_id, write_features
    rng = np.random.default_rng(0); n, dim = 24, 8
    tissue, coords = rng.normal(size=(n, dim)), np.c_[np.zeros(n), np.arange(n) % 6, np.arange(n) // 6]
    for ex, noise in (('good', 0.5), ('bad', 2.0)):
        for st in ('GMH', 'KR'):
            for scn in ('S60', 'AT2', 'P'):
                feats = tissue + noise * rng.normal(size=(n, dim))
                write_features(d/'feats'/ex/slide_id(st, scn)/'features.npy', coords, feats)
        r = _benchnb('plism', 'evaluate', '--extractor', ex, '--features-dir', d/'feats', '--metrics-dir', d/'plism',
                     '--n-tiles', 'all')
        assert r.returncode == 0, r.stderr
    # Translator: synthetic responses evaluated by the CLI into a run dir
    from benchnb.translator.config import load_config
    from benchnb.translator.queries import build_queries
    from benchnb.translator.evaluate import synthetic_responses
    resp = synthetic_responses(build_queries(load_config(None), 'DrugCentral_subset'), n_results=60, n_planted=5)
    (d/'responses.json').write_text(json.dumps(resp))
    r = _benchnb('translator', 'evaluate', 'DrugCentral_subset', d/'responses.json', '--k', '10', '--target', 'synth',
                 '--no-normalize', '--out', d/'translator'/'synth'/'run1')
    assert r.returncode == 0, r.stderr
    return d


def test_import_once_values_unchanged(runs, tmp_path):
    db = tmp_path/'db'
    r = _benchnb('results', 'import', db, runs/'cells.json', runs/'plism', runs/'translator')
    assert r.returncode == 0, r.stderr
    cells = json.loads((runs/'cells.json').read_text())['results']     # `cells run -o` keeps the rows under 'results'
    n_units = len({(x['task'], x['model']) for x in cells}) + 2 + 1
    assert r.stdout.startswith(f"4 source(s): {n_units} unit(s) added, 0 already there")
    r2 = _benchnb('results', 'import', db, runs)          # the same runs again, found by searching their parent
    assert r2.returncode == 0, r2.stderr
    assert f"0 unit(s) added, {n_units} already there, 0 metric row(s) added" in r2.stdout
    from benchnb.resultsdb.db import ResultsDB
    with ResultsDB(db, read_only=True) as rdb:
        m = rdb.metrics()
        u = rdb.units()
    assert u.unit_id.is_unique and len(u) == n_units and set(u.status) == {'done'}
    # cells: every JSON row once, same value and seed
    mc = m[m.family == 'cells']
    assert len(mc) == len(cells)
    got = {(x.task, x.model, x.metric, x.seed): x.value for x in mc.itertuples()}
    assert got == {(x['task'], x['model'], x['metric'], x['seed']): x['value'] for x in cells}
    # PLISM: the per-pair cosine of metrics.csv, exactly
    csv = pd.read_csv(runs/'plism'/'24_tiles'/'good'/'metrics.csv', float_precision='round_trip')
    mp = m[(m.family == 'plism') & (m.model == 'good') & (m.metric == 'cosine_similarity')]
    assert sorted(mp.value) == sorted(csv.cosine_similarity)
    # Translator: recall@10 and MRR of output.json
    out = json.loads((runs/'translator'/'synth'/'run1'/'output.json').read_text())
    mt = m[m.family == 'translator']
    rec = mt[(mt.metric == 'recall_at_k').to_numpy() & np.array([p.get('k') == 10 for p in mt.params])]
    assert rec.value.tolist() == [out['metrics']['recall_at_k'][9]]
    assert mt[mt.metric == 'mean_reciprocal_rank'].value.tolist() == [out['metrics']['mean_reciprocal_rank']]



def _plausible(cost):
    "A `ResourceMeter.read()` as measured by a real command: seconds and a peak, no GPU on this CPU run."
    return (cost['wall_s'] > 0 and cost['cpu_s'] >= 0 and cost['peak_rss_mb'] > 0 and cost['gpu_peak_mb'] is None
            and cost['peak_rss_scope'] in ('unit', 'process'))


def test_resources_recorded_and_imported(runs, tmp_path):
    "Each command records what it cost where it writes; import puts one resources row per unit; the site sees it."
    cells = json.loads((runs/'cells.json').read_text())['resources']                       # cells run -o
    plism = json.loads((runs/'plism'/'24_tiles'/'good'/'manifest.json').read_text())['resources']   # run manifest
    trans = json.loads((runs/'translator'/'synth'/'run1'/'output.json').read_text())['resources']   # output.json
    assert all(map(_plausible, (cells, plism, trans))), (cells, plism, trans)
    db = tmp_path/'db'
    assert _benchnb('results', 'import', db, runs/'cells.json', runs/'plism', runs/'translator').returncode == 0
    from benchnb.resultsdb.db import ResultsDB
    from benchnb.resultsdb.site import site_tables
    with ResultsDB(db, read_only=True) as rdb:
        u, res = rdb.units(), rdb.resources()
        site_units = site_tables(rdb, 'translator')[1]
    assert sorted(res.unit_id) == sorted(u.unit_id)                 # every imported unit has its cost
    assert (res.peak_rss_mb > 0).all() and (res.cpu_s >= 0).all() and (res.wall_s > 0).all()
    fam = dict(zip(u.unit_id, u.family))
    got = {fam[r.unit_id]: r for r in res.itertuples()}
    assert got['translator'].wall_s == trans['wall_s'] and got['translator'].peak_rss_mb == trans['peak_rss_mb']
    assert {r.wall_s for r in res.itertuples() if fam[r.unit_id] == 'cells'} == {cells['wall_s']}   # one run, shared
    assert site_units.peak_rss_mb.tolist() == [trans['peak_rss_mb']]       # the results site's cost columns


def test_leaderboards_and_export(runs, tmp_path):
    db = tmp_path/'db'
    assert _benchnb('results', 'import', db, runs/'cells.json', runs/'plism', runs/'translator').returncode == 0
    r = _benchnb('results', 'leaderboard', db, '--family', 'plism', '--csv', tmp_path/'p.csv')
    assert r.returncode == 0, r.stderr
    from benchnb.plism.evaluate import leaderboard as file_leaderboard
    ref = file_leaderboard(runs/'plism', '24_tiles')
    got = pd.read_csv(tmp_path/'p.csv')
    assert got.extractor.tolist() == ref.extractor.tolist() == ['good', 'bad']
    assert np.allclose(got.leaderboard, ref.leaderboard)
    r = _benchnb('results', 'leaderboard', db, '-f', 'cells', '--csv', tmp_path/'c.csv')
    assert r.returncode == 0, r.stderr
    c = pd.read_csv(tmp_path/'c.csv', header=[0, 1], index_col=[0, 1])
    cells = pd.DataFrame(json.loads((runs/'cells.json').read_text())['results'])
    ari = cells[(cells.model == 'X_pca') & (cells.metric == 'adjusted_rand_index')]
    want = ari.value.mean()   # mean of the two seeds
    assert np.isclose(c.loc[('pbmc', 'X_pca'), ('clustering', 'adjusted_rand_index')], want)   # named after its .h5ad
    r = _benchnb('results', 'leaderboard', db, '-f', 'translator', '--k', '5')
    assert r.returncode == 0 and 'synth' in r.stdout, r.stderr
    assert r.stdout.splitlines()[0] == 'k = 5'                            # which k the table is at
    r = _benchnb('results', 'leaderboard', db, '-f', 'translator')
    assert r.returncode == 0 and r.stdout.splitlines()[0] == "k = 10 (each target's largest)", r.stdout  # evaluated --k 10
    r = _benchnb('results', 'export', db, '--parquet', tmp_path/'pq')
    assert r.returncode == 0, r.stderr
    from benchnb.resultsdb.db import ResultsDB
    with ResultsDB(db, read_only=True) as rdb: n = len(rdb.metrics())
    import duckdb
    assert duckdb.connect().execute(f"SELECT count(*) FROM '{tmp_path/'pq'/'metrics.parquet'}'").fetchone()[0] == n


def test_errors_are_one_line(runs, tmp_path):
    (tmp_path/'junk').mkdir(); (tmp_path/'junk'/'a.txt').write_text('x')
    for args, msg in [(('import', tmp_path/'db', tmp_path/'junk'), 'junk: not a recognised run'),
                      (('import', tmp_path/'db', runs/'cells.json', tmp_path/'nope'), 'nope: no such file'),
                      (('list', tmp_path/'none'), 'no results database here'),
                      (('leaderboard', runs/'cells.json', '-f', 'cells'), 'no results database here')]:
        r = _benchnb('results', *args)
        assert r.returncode == 1, (args, r.stdout, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and msg in r.stderr, r.stderr
    assert not (tmp_path/'db').exists()     # a failed import writes nothing
