"The installed `benchnb` command, as a user runs it."
import json, subprocess

def run(exe, *args):
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=300)

def test_help_and_version(benchnb_exe):
    import benchnb
    r = run(benchnb_exe, '--help'); assert r.returncode == 0
    for cmd in ['report', 'demo', 'version']: assert cmd in r.stdout
    r = run(benchnb_exe, 'version'); assert (r.returncode, r.stdout.strip()) == (0, f"benchnb {benchnb.__version__}")

def test_every_command_has_help():
    "Every command and sub-command answers --help (in-process: one import of the plugins)."
    import contextlib, io
    import typer.main
    from benchnb.cli import build_app, main
    def walk(cmd, path):
        yield path
        for name, sub in getattr(cmd, 'commands', {}).items(): yield from walk(sub, path + [name])
    paths = list(walk(typer.main.get_command(build_app()), []))
    assert len(paths) >= 4
    for p in paths:
        out = io.StringIO()
        with contextlib.redirect_stdout(out): code = main([*p, '--help'])
        assert code == 0 and 'Usage' in out.getvalue(), p

def test_errors_are_one_line_without_traceback(benchnb_exe):
    r = run(benchnb_exe, 'report', 'not-a-report')
    assert r.returncode == 1
    assert r.stderr.startswith('benchnb: error: ') and r.stderr.count('\n') == 1 and 'Traceback' not in r.stderr

def test_report_writes_notebook_and_html(benchnb_exe, tmp_path):
    r = run(benchnb_exe, 'report', 'core', '-p', 'n_values=40', '-p', 'n_groups=2', '-o', str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert (tmp_path/'core.ipynb').exists() and (tmp_path/'core.html').exists()
    assert 'data:image/png;base64' in (tmp_path/'core.html').read_text()

def _commands():
    "(path, click command) of every command of the `benchnb` app."
    import typer.main
    from benchnb.cli import build_app
    def walk(cmd, path):
        yield path, cmd
        for name, sub in getattr(cmd, 'commands', {}).items(): yield from walk(sub, path + [name])
    return list(walk(typer.main.get_command(build_app()), []))

OWN = ('version', 'report', 'demo', 'translator', 'cells', 'plism')   # families whose help this branch wrote (others: their own tests)
NOT_OWN = (['translator', 'tests'], ['cells', 'scib'])                 # sub-groups other branches add

def _own(path): return bool(path) and path[0] in OWN and not any(path[:len(n)] == n for n in NOT_OWN)

def test_help_complete_at_80_columns_when_piped(benchnb_exe, monkeypatch):
    "Piped `--help` at 80 columns names every option in full (rich's table cut them: `--connect-timeo…`)."
    import contextlib, io, os
    from benchnb.cli import main
    env = {**os.environ, 'COLUMNS': '80', 'TERM': 'dumb'}
    r = subprocess.run([benchnb_exe, 'translator', 'fetch', '--help'], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0 and '--connect-timeout <float>' in r.stdout and '--run-id, --resume <str>' in r.stdout, r.stdout
    monkeypatch.setenv('COLUMNS', '80')
    for path, cmd in _commands():                                    # the rest in-process (stdout is no terminal either)
        if not _own(path): continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out): assert main([*path, '--help']) == 0, path
        assert '…' not in out.getvalue() and '─' not in out.getvalue(), (path, out.getvalue())   # no cut names, no boxes
        for p in cmd.params:
            for name in p.opts + p.secondary_opts:
                if name.startswith('-'): assert name in out.getvalue(), (path, name)

def test_every_command_has_an_example_and_every_option_help():
    for path, cmd in _commands():
        if not _own(path): continue
        if hasattr(cmd, 'commands') or cmd.hidden: continue                     # groups list their commands; aliases
        assert 'Example' in (cmd.epilog or ''), ' '.join(path)
        for p in cmd.params:
            if p.param_type_name == 'option' and p.name != 'help': assert getattr(p, 'help', None), (' '.join(path), p.name)
        assert '--no-no-' not in ' '.join(o for p in cmd.params for o in p.opts + p.secondary_opts), path


RESUMABLE = {'sweep run', 'translator fetch', 'translator run', 'translator tests run',
             'plism download', 'plism extract', 'plism evaluate'}

def test_only_commands_that_keep_work_promise_a_resume(tmp_path, monkeypatch):
    "Ctrl-C on a command that keeps nothing (cells scib/run) says 'interrupted', not 'rerun the same command to resume'."
    import contextlib, io
    import anndata
    from benchnb.cli import main
    marked = {' '.join(p) for p, c in _commands() if getattr(c.callback, 'resumable', False)}
    assert marked == RESUMABLE
    def ctrl_c(*a, **k): raise KeyboardInterrupt
    monkeypatch.setattr(anndata, 'read_h5ad', ctrl_c)                  # Ctrl-C while the data is read
    (tmp_path/'a.h5ad').write_bytes(b'')
    for args in (['cells', 'scib', tmp_path/'a.h5ad', '-e', 'X_pca', '-l', 'ct', '-b', 'b', '-o', tmp_path/'s.csv'],
                 ['cells', 'run', tmp_path/'a.h5ad', '-e', 'X_pca', '-l', 'ct']):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()): code = main(list(map(str, args)))
        assert (code, err.getvalue().splitlines()[-1]) == (130, 'benchnb: interrupted'), (args, err.getvalue())


def test_results_leaderboard_names_the_datasets_it_has(tmp_path):
    "`results leaderboard --dataset lung` with results for lung.h5ad: one line naming the datasets and the closest."
    import contextlib, io
    from benchnb.cli import main
    from benchnb.resultsdb.db import ResultsDB
    with ResultsDB(tmp_path/'db') as db:
        db.begin_run('r1', {})
        for ds in ('lung.h5ad', 'pbmc.h5ad'):
            db.record_unit('r1', {'unit_id': f'u-{ds}', 'family': 'cells', 'dataset': ds, 'model': 'X_pca', 'task': 'clustering'},
                           [{'metric': 'adjusted_rand_index', 'value': 0.5}])
        db.finish_run('r1', 'done')
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(['results', 'leaderboard', str(tmp_path/'db'), '-f', 'cells', '--dataset', 'lung'])
    assert code == 1, err.getvalue()
    assert "datasets: lung.h5ad, pbmc.h5ad" in err.getvalue() and "did you mean 'lung.h5ad'?" in err.getvalue(), err.getvalue()
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        assert main(['results', 'leaderboard', str(tmp_path/'db'), '-f', 'cells', '--dataset', 'lung.h5ad']) == 0


def test_make_install_compiles_the_kernels_ahead():
    "The install recipe runs `benchnb warmup` before it stamps the venv installed."
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1]/'Makefile').read_text()
    recipe = text.split('$(STAMP): settings.ini setup.py', 1)[1].split('\ninstall:', 1)[0]
    assert recipe.index('$(BIN)/benchnb warmup') < recipe.index('touch $(STAMP)')


def test_offline_normalizer_error_is_whole(tmp_path):
    "No reply from Node Normalizer: the error names the host and the whole cause (not cut mid-exception) and the way out."
    import pytest
    from benchnb.core import RunError
    from benchnb.translator.client import NodeNormClient, RetryPolicy
    c = NodeNormClient(url='http://127.0.0.1:9/get_normalized_nodes', cache_dir=tmp_path, policy=RetryPolicy(retries=1, sleep=lambda s: None))
    with pytest.raises(RunError) as e: c.get(['CHEBI:15365'])
    msg = str(e.value)
    assert '127.0.0.1:9' in msg and 'Connection refused' in msg and ' object at 0x' not in msg, msg
    assert msg.endswith("(use --no-normalize or --normalizer FILE to evaluate offline)"), msg


def test_tests_list_leaves_out_empty_suites(benchnb_exe):
    "`translator tests list` lists suites that have cases; an empty one (DrugCentral_subset ships empty) is named on stderr."
    r = run(benchnb_exe, 'translator', 'tests', 'list')
    assert r.returncode == 0, r.stderr
    rows = [l.split() for l in r.stdout.splitlines()[1:]]
    assert rows and all(int(x[1]) > 0 for x in rows), r.stdout
    assert 'DrugCentral_subset' not in r.stdout and 'without test cases not listed: DrugCentral_subset' in r.stderr


def test_sweep_validate_catches_a_missing_obsm_key_and_suggests_task_names(tmp_path):
    "`sweep validate`: a model that is no obsm key of its dataset, and a misspelt task with the closest name."
    import contextlib, io
    from benchnb.cli import main
    p = tmp_path/'plan.yaml'
    p.write_text("units:\n  - family: cells\n    dataset: pbmc68k_reduced\n    model: X_scvi\n    task: clusterin\n"
                 "    options: {labels: bulk_labels}\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): code = main(['sweep', 'validate', str(p)])
    text = out.getvalue() + err.getvalue()
    assert code != 0, text
    assert "no such obsm key in pbmc68k_reduced (has: X_pca, X_umap)" in text and "did you mean 'clustering'?" in text, text


def test_translator_report_takes_name_url_targets_and_runs_the_suites_on_them(tmp_path, monkeypatch):
    "The Translator report: `NAME=URL` targets as every command takes them, and the acceptance suites against them."
    import pandas as pd
    from benchnb.core import load_plugins
    from benchnb.report import run_report
    from benchnb.translator.acceptance import acceptance_demo_kg, load_suites
    from benchnb.translator.server import ReferenceServer, demo_kg
    load_plugins()
    fetch_srv = ReferenceServer(demo_kg()).start()
    suite_srv = ReferenceServer(acceptance_demo_kg(load_suites(ids=['sprint_4_tests']).values(), 0, 0.9)).start()
    try:
        params = {'benchmarks': ['DrugCentral_subset'], 'targets': [f"mine={fetch_srv.url}/query"], 'k': 5, 'serve_local': False,
                  'acceptance_suites': ['sprint_4_tests'], 'acceptance_targets': [f"mysuite={suite_srv.url}/query"],
                  'acceptance_runs': 1}
        monkeypatch.chdir(tmp_path)
        res = run_report('translator', params, tmp_path)
    finally:
        fetch_srv.stop(); suite_srv.stop()
    assert res.status == 'ok', res
    files = tmp_path/'translator_files'
    assert list(pd.read_csv(files/'summary.csv')['target']) == ['mine']
    verdicts = [json.loads(l) for l in (files/'acceptance_verdicts.jsonl').read_text().splitlines()]
    assert verdicts and {v['target'] for v in verdicts} == {'mysuite'}
