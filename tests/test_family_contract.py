"""The family contract, tested for every registered family (timm's test_models.py style: a new family gets these
tests without writing any): a sweep unit on a fresh worker process equals the same unit run in this process; a
family's demo runs import into a database whose leaderboard ranks exactly their models; a sweep of every kind's
example, piped, shows progress lines and exits 0; a sweep whose every unit fails exits 1; and a family that lives
outside benchnb (found through the `benchnb.plugins` entry point) works end to end without any edit to benchnb."""
import dataclasses, json, os, pickle, subprocess, sys, textwrap
from pathlib import Path

import cloudpickle
import pytest
import yaml

from benchnb.family import load_families, unit_kinds
from benchnb.resultsdb.db import ResultsDB
from benchnb.sweeps.engine import execute_unit
from benchnb.sweeps.plan import load_plan

CODE = "import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))"
FAMILIES = load_families()
KINDS = [n for n in unit_kinds.names() if unit_kinds[n].example]
WITH_DEMO = [n for n in FAMILIES.names() if FAMILIES[n].demos and FAMILIES[n].leaderboards and FAMILIES[n].importers]


def cli(*args, env=None, timeout=600):
    env = {k: v for k, v in {**os.environ, **(env or {})}.items() if k != 'BENCHNB_PROGRESS'}
    return subprocess.run([sys.executable, '-c', CODE, *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=timeout)


def plan_of(tmp: Path, entries: list[dict], name='plan.yaml') -> Path:
    p = tmp/name
    p.write_text(yaml.safe_dump({'units': entries}))
    return p


def example_entry(kind: str, **change) -> dict:
    return {'family': kind, **unit_kinds[kind].example, **change}


def test_every_benchmark_family_fills_its_contract():
    for name in ('cells', 'plism', 'translator'):
        fam = FAMILIES[name]
        assert fam.cli is not None and fam.unit_kinds and fam.importers and fam.leaderboards and fam.demos, name
        assert fam.reports and all(r.path.exists() for r in fam.reports.values()), name
    assert set(KINDS) >= {'cells', 'plism', 'translator', 'test'}


@pytest.mark.parametrize('kind', KINDS)
def test_unit_on_a_fresh_worker_process_equals_the_unit_here(kind, tmp_path):
    "A fresh interpreter gets the unit's function as Dask ships it (pickled by reference) and nothing imported."
    plan = load_plan(plan_of(tmp_path, [example_entry(kind)]))
    for unit in plan.units:
        spec = {**dataclasses.asdict(unit), 'unit_id': unit.unit_id}
        here = execute_unit(spec, unit_kinds[kind].run, str(tmp_path/'here'))
        (tmp_path/'job.pkl').write_bytes(cloudpickle.dumps((spec, unit_kinds[kind].run, str(tmp_path/'fresh'))))
        code = ("import pickle, sys; from benchnb.sweeps.engine import execute_unit; "
                "spec, run, wd = pickle.load(open(sys.argv[1], 'rb')); "
                "pickle.dump(execute_unit(spec, run, wd), open(sys.argv[2], 'wb'))")
        p = subprocess.run([sys.executable, '-c', code, tmp_path/'job.pkl', tmp_path/'out.pkl'], capture_output=True,
                           text=True, timeout=600)
        assert p.returncode == 0, p.stderr
        fresh = pickle.loads((tmp_path/'out.pkl').read_bytes())
        assert here['status'] == 'done', here['error']
        assert fresh['status'] == 'done', fresh['error']      # e.g. 'unknown task sequential' before the contract
        assert here['metrics'] == fresh['metrics']


@pytest.mark.parametrize('family', WITH_DEMO)
def test_demo_runs_import_and_rank(family, tmp_path):
    "The family's demo files go through its importer (the `results import` command) into its leaderboard."
    demo = FAMILIES[family].demos[family]
    files = demo.make(tmp_path/'runs')
    args = ['--dataset', demo.dataset] if demo.dataset else []
    r = cli('results', 'import', tmp_path/'db', *files, *args)
    assert r.returncode == 0, r.stderr
    with ResultsDB(tmp_path/'db', read_only=True) as db:
        models = set(db.units(family=family).model)
        from benchnb.resultsdb.leaderboard import leaderboard
        board = leaderboard(db, family)
    assert len(models) >= 2
    shown = set(board.index.get_level_values(1)) if board.index.nlevels > 1 else set(board.iloc[:, :3].stack())
    assert models <= shown, (models, board)
    r = cli('results', 'leaderboard', tmp_path/'db', '-f', family, '--csv', tmp_path/'lb.csv')
    assert r.returncode == 0, r.stderr
    assert (tmp_path/'lb.csv').exists() and all(m in r.stdout for m in models)


def test_sweep_of_every_example_piped_shows_progress_and_exits_0(tmp_path):
    plan = plan_of(tmp_path, [example_entry(k) for k in KINDS])
    r = cli('sweep', 'run', plan, '--results', tmp_path/'res', '--workers', 2)
    assert r.returncode == 0, r.stderr[-3000:]
    assert 'benchnb: ' in r.stderr and ' units' in r.stderr, r.stderr[-2000:]   # stage lines, no setting needed
    with ResultsDB(tmp_path/'res', read_only=True) as db: units = db.units()
    assert set(units.family) == {unit_kinds[k].owner or k for k in KINDS} and set(units.status) == {'done'}


FAILING = {'cells': {'model': 'no_such_obsm_key'}, 'plism': {'model': 'vit_micro_random', 'options': {
    'pretrained': False, 'demo_grid': [3, 3], 'demo_tile_size': 32, 'top_k': [50], 'stainings': ['GMH', 'KR'],
    'scanners': ['S60']}}, 'translator': {'model': 'reference', 'options': {'k': 5, 'url': 'http://127.0.0.1:9/query'}},
    'test': {'task': 'fail'}}


@pytest.mark.parametrize('kind', [k for k in KINDS if k in FAILING])
def test_sweep_whose_every_unit_fails_exits_1(kind, tmp_path):
    plan = plan_of(tmp_path, [example_entry(kind, **FAILING[kind])])
    r = cli('sweep', 'run', plan, '--results', tmp_path/'res', '--workers', 1)
    assert r.returncode == 1, (r.returncode, r.stderr[-3000:])


TOY_CLI = '''
from pathlib import Path
import typer
from benchnb.family import register_family
cli = typer.Typer(no_args_is_help=True, help="A toy family.")
@cli.command('hello')
def hello_cmd(): typer.echo("hello from toyfam")
register_family('toyfam', "A toy family that lives outside benchnb.", cli=cli, adapters=('toyfam.adapters',),
                leaderboard_options={'best_only': (bool, "toyfam: only the best model.")}).report(
    'toyfam', str(Path(__file__).parent/'toyfam.ipynb'), "the toy leaderboard on its demo runs",
    demo_parameters={'best_only': False})
'''
TOY_ADAPTERS = '''
import json
from pathlib import Path
from benchnb.family import family_named
from benchnb.resultsdb.importers import file_digest, import_unit_id, run_times
from benchnb.resultsdb.leaderboard import done_metrics

fam = family_named('toyfam')
def run_toy_unit(unit, work_dir):
    return [{'metric': 'score', 'value': len(unit['model']) / 10}]
fam.unit_kind('toy', run_toy_unit, tasks=['score'], example={'model': ['ab', 'abcd'], 'task': 'score'})

def read_toy(path, dataset=None):
    rows, digest = json.loads(Path(path).read_text())['scores'], file_digest(path)
    return [(dict(unit_id=import_unit_id(digest, m), family='toyfam', dataset=dataset or 'toyset', model=m, task='score',
                  status='done', **run_times(path), worker='import', params={}), [dict(metric='score', value=v)])
            for m, v in rows.items()]
fam.importer('toy', read_toy, recognises=lambda p: p.name.endswith('.toy.json'), patterns=('**/*.toy.json',),
             description='toy scores')

def toy_board(db, dataset=None, best_only=None):
    t = done_metrics(db, 'toyfam').groupby(['dataset', 'model']).value.mean().to_frame('score')
    t = t.sort_values('score', ascending=False)
    return t.head(1) if best_only else t
fam.leaderboard(toy_board)

def toy_demo(out):
    out.mkdir(parents=True, exist_ok=True)
    (out/'a.toy.json').write_text(json.dumps({'scores': {'m1': 0.5, 'm2': 0.75}}))
    return [out/'a.toy.json']
fam.demo(toy_demo)
'''
TOY_REPORT = {'cells': [
    {'cell_type': 'code', 'metadata': {'tags': ['parameters']}, 'execution_count': None, 'outputs': [],
     'source': "best_only = False   # only the best model\noutput_dir = None   # where files are written"},
    {'cell_type': 'code', 'metadata': {}, 'execution_count': None, 'outputs': [], 'source': (
        "from pathlib import Path\nfrom benchnb.resultsdb.db import ResultsDB\n"
        "from benchnb.resultsdb.demo import demo_database\nfrom benchnb.resultsdb.leaderboard import leaderboard\n"
        "db = ResultsDB(demo_database(Path(output_dir)/'toy_results', families=['toyfam']), read_only=True)\n"
        "leaderboard(db, 'toyfam', best_only=best_only).to_html()")}],
    'metadata': {'kernelspec': {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'}},
    'nbformat': 4, 'nbformat_minor': 5}


def test_a_family_outside_benchnb_needs_no_edit_of_benchnb(tmp_path):
    "Its own folder and an entry point: CLI group, sweep unit kind, importer, leaderboard (+ option), demo and report."
    site = tmp_path/'site'
    (site/'toyfam').mkdir(parents=True)
    (site/'toyfam'/'__init__.py').write_text('')
    (site/'toyfam'/'cli.py').write_text(TOY_CLI)
    (site/'toyfam'/'adapters.py').write_text(TOY_ADAPTERS)
    (site/'toyfam'/'toyfam.ipynb').write_text(json.dumps(TOY_REPORT))
    dist = site/'toyfam-0.1.dist-info'
    dist.mkdir()
    (dist/'METADATA').write_text("Metadata-Version: 2.1\nName: toyfam\nVersion: 0.1\n")
    (dist/'entry_points.txt').write_text("[benchnb.plugins]\ntoyfam = toyfam.cli\n")
    env = {'PYTHONPATH': os.pathsep.join([str(site), *filter(None, [os.environ.get('PYTHONPATH')])])}
    r = cli('toyfam', 'hello', env=env)
    assert (r.returncode, r.stdout) == (0, 'hello from toyfam\n'), r.stderr
    plan = plan_of(tmp_path, [{'family': 'toy', 'model': ['ab', 'abcd'], 'task': 'score'}])
    r = cli('sweep', 'run', plan, '--results', tmp_path/'res', '--workers', 1, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    r = cli('results', 'leaderboard', tmp_path/'res', '-f', 'toyfam', '--best-only', env=env)
    assert r.returncode == 0, r.stderr
    assert 'abcd' in r.stdout and ' ab ' not in r.stdout and '0.4' in r.stdout
    (tmp_path/'runs').mkdir()
    (tmp_path/'runs'/'x.toy.json').write_text(json.dumps({'scores': {'m9': 0.9}}))
    r = cli('results', 'import', tmp_path/'res', tmp_path/'runs', env=env)
    assert r.returncode == 0 and '1 unit(s) added' in r.stdout, r.stderr
    r = cli('results', 'leaderboard', tmp_path/'res', '-f', 'toyfam', '--dataset', 'toyset', env=env)
    assert r.returncode == 0 and 'm9' in r.stdout, r.stderr
    r = cli('results', 'leaderboard', tmp_path/'res', '-f', 'cells', '--best-only', env=env)
    assert r.returncode == 1 and "not an option of the cells leaderboard" in r.stderr
    r = cli('demo', '--only', 'toyfam', '-o', tmp_path/'reports', env=env)     # its report, on its demo runs
    assert r.returncode == 0, r.stderr[-3000:]
    page = (tmp_path/'reports'/'toyfam.html').read_text(encoding='utf-8')
    assert 'm2' in page and '0.75' in page and 'm1' in page
