"""Hostile input and faults against the CLI, the results database, sweep plans and reports (issue 20 §3, 7, 8, 10–13, 15;
issue 19's report and plan seams). Each test failed on main at 95c86ea.

Faults are injected (a full disk is `os.fsync` or the Parquet writer raising ENOSPC); signals are sent once the command
is known to be at the point under test (synchronised on a file it writes), never after a sleep."""
import contextlib, errno, io, json, os, signal, socket, subprocess, sys, textwrap, time
from pathlib import Path
from unittest import mock

import pytest

import benchnb
from benchnb.cli import main

ROOT = Path(benchnb.__file__).resolve().parents[1]          # the code under test, also in the subprocesses
ENV = {**os.environ, 'PYTHONPATH': str(ROOT), 'BENCHNB_PROGRESS': '0'}
CMD = [sys.executable, '-c', 'import sys; from benchnb.cli import main; sys.exit(main())']


def run_main(*args, env=None):
    "`benchnb ARGS` in this process: (status, stdout, stderr)."
    out, err = io.StringIO(), io.StringIO()
    with mock.patch.dict(os.environ, {'BENCHNB_PROGRESS': '0', **(env or {})}), \
         contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def one_error_line(err: str) -> str:
    "The single `benchnb: error:` line; no internal error, no traceback."
    lines = [l for l in err.splitlines() if l.startswith('benchnb: ')]
    assert len(lines) == 1 and 'Traceback' not in err and 'internal error' not in err, err
    assert lines[0].startswith('benchnb: error: '), err
    return lines[0]


def enospc(*a, **k): raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


# --- results database: export, damaged files, dead clients ------------------------------------------------

@pytest.fixture
def results_db(tmp_path):
    from benchnb.resultsdb.db import ResultsDB
    with ResultsDB(tmp_path/'res') as db:
        db.begin_run('r1', {})
        db.record_unit('r1', {'unit_id': 'u1', 'family': 'cells', 'dataset': 'ds', 'model': 'm', 'task': 't'},
                       [{'metric': 'ari', 'value': 0.5}])
        db.finish_run('r1', 'done')
    return tmp_path/'res'


@pytest.mark.parametrize('name', ["it's", "x'; COPY runs TO 'pwned.parquet' (FORMAT PARQUET); --"])
def test_export_path_is_data_not_sql(results_db, tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main('results', 'export', results_db, '--parquet', tmp_path/name)
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path/name).iterdir()) == ['intervals.parquet', 'metrics.parquet', 'observations.parquet', 'runs.parquet', 'units.parquet']
    assert not list(tmp_path.rglob('pwned.parquet'))


def test_export_writes_all_tables_or_none(results_db, tmp_path):
    import benchnb.resultsdb.db as dbm
    real = dbm._write_table
    def fills_up(con, table, path):
        if table == 'units': enospc()
        real(con, table, path)
    with mock.patch.object(dbm, '_write_table', fills_up):
        code, out, err = run_main('results', 'export', results_db, '--parquet', tmp_path/'pq')
    assert code == 1 and 'no space left on device' in one_error_line(err)
    assert not (tmp_path/'pq').exists()                                # no runs.parquet without the other tables
    assert run_main('results', 'export', results_db, '--parquet', tmp_path/'pq')[0] == 0
    before = {p.name: p.read_bytes() for p in (tmp_path/'pq').iterdir()}
    with mock.patch.object(dbm, '_write_table', fills_up):
        assert run_main('results', 'export', results_db, '--parquet', tmp_path/'pq')[0] == 1
    assert {p.name: p.read_bytes() for p in (tmp_path/'pq').iterdir()} == before   # the earlier export, whole


def _damage(db_file: Path, how: str):
    data = bytearray(db_file.read_bytes())
    if how == 'cut': data = data[:len(data) // 10]
    if how == 'checksum': data[4096:8192] = bytes(b ^ 0xff for b in data[4096:8192])
    db_file.write_bytes(bytes(data))


@pytest.mark.parametrize('how', ['cut', 'checksum'])
def test_damaged_database_is_named(tmp_path, how):
    from benchnb.resultsdb.db import ResultsDB
    with ResultsDB(tmp_path/'res') as db:
        db.con.execute("INSERT INTO units (unit_id, family, status) SELECT 'u' || i, 'cells', 'done' FROM range(100000) t(i)")
    _damage(tmp_path/'res'/'results.duckdb', how)
    code, out, err = run_main('results', 'list', tmp_path/'res')
    assert code == 1 and str(tmp_path/'res'/'results.duckdb') in one_error_line(err)


def test_run_of_a_dead_client_is_marked_interrupted(tmp_path):
    from benchnb.resultsdb.db import ResultsDB
    gone = subprocess.Popen([sys.executable, '-c', 'pass']); gone.wait()
    with ResultsDB(tmp_path/'res') as db:
        db.con.execute("INSERT INTO runs VALUES ('killed', now(), NULL, 'running', ?)",
                       [json.dumps({'client': {'host': socket.gethostname(), 'pid': gone.pid}})])
    with ResultsDB(tmp_path/'res') as db:                              # the next open
        assert db.runs().status.tolist() == ['interrupted']


# --- one line for an OSError ------------------------------------------------------------------------------

def test_full_disk_is_one_line_naming_the_file(tmp_path):
    with mock.patch('os.fsync', enospc):
        code, out, err = run_main('sweep', 'example', '-o', tmp_path/'plan.yaml')
    assert code == 1
    assert one_error_line(err) == f"benchnb: error: no space left on device writing {tmp_path/'plan.yaml'}"
    assert os.listdir(tmp_path) == []                                  # no temp file left


# --- sweep plans --------------------------------------------------------------------------------------------

def _plan(tmp_path, body: str) -> Path:
    p = tmp_path/'plan.yaml'
    p.write_text(textwrap.dedent(body))
    return p


@pytest.mark.parametrize('seed', [10**29, 2**32, -5])
def test_validate_refuses_seeds_numpy_refuses(tmp_path, seed):
    p = _plan(tmp_path, f"""\
        units:
          - {{family: cells, dataset: pbmc68k_reduced, model: X_pca, task: clustering, seeds: [0, {seed}], options: {{labels: bulk_labels}}}}
        """)
    code, out, err = run_main('sweep', 'validate', p)
    assert code == 1 and f"value {seed}" in err and 'a seed is an integer from 0 to 4294967295' in err, err


def test_validate_names_a_plan_that_is_not_text_or_a_folder(tmp_path):
    (tmp_path/'latin1.yaml').write_bytes('name: caf\xe9\n'.encode('latin-1'))
    code, out, err = run_main('sweep', 'validate', tmp_path/'latin1.yaml')
    assert code == 1 and f"{tmp_path/'latin1.yaml'}: not UTF-8 text" in one_error_line(err)
    code, out, err = run_main('sweep', 'validate', tmp_path)
    assert code == 1 and f"{tmp_path}: is a folder, not a plan file" in one_error_line(err)


def test_plan_size_limits(tmp_path):
    bomb = "x0: &x0 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n" + ''.join(
        f"x{i}: &x{i} [{', '.join([f'*x{i-1}'] * 10)}]\n" for i in range(1, 4))
    p = _plan(tmp_path, "")
    p.write_text(bomb + "units:\n  - {family: cells, dataset: pbmc68k_reduced, model: X_pca, task: clustering, seeds: *x3, options: {labels: bulk_labels}}\n")
    code, out, err = run_main('sweep', 'validate', p, env={'BENCHNB_MAX_PLAN_NODES': '1000'})
    assert code == 1 and 'anchors and aliases expand to' in one_error_line(err)
    p = _plan(tmp_path, """\
        units:
          - {family: cells, dataset: pbmc68k_reduced, model: [X_pca, X_umap], task: clustering, seeds: [0, 1, 2], options: {labels: bulk_labels}}
        """)
    code, out, err = run_main('sweep', 'validate', p, env={'BENCHNB_MAX_UNITS': '5'})
    assert code == 1 and 'the plan expands to 6 units, more than the limit of 5' in err, err
    assert run_main('sweep', 'validate', p, env={'BENCHNB_MAX_UNITS': '6'})[0] == 0


def test_duplicate_plan_entries_are_named(tmp_path, caplog):
    p = _plan(tmp_path, """\
        units:
          - {family: cells, dataset: pbmc68k_reduced, model: [X_pca, X_umap], task: clustering, options: {labels: bulk_labels}}
          - {family: cells, dataset: pbmc68k_reduced, model: X_umap, task: clustering, options: {labels: bulk_labels}}
        """)
    import logging
    lg = logging.getLogger('benchnb')
    lg.addHandler(caplog.handler)                # whatever an earlier test did to propagation or filters
    try: code, out, err = run_main('sweep', 'validate', p)
    finally: lg.removeHandler(caplog.handler)
    assert code == 0 and '2 units' in out
    warned = [r.getMessage() for r in caplog.records if r.levelname == 'WARNING']
    assert any("field 'units[1]': repeats 1 unit(s) of units[0]" in w for w in warned), warned


def test_sweep_datasets_keep_the_plan_s_name(tmp_path):
    import benchnb.sweeps.units  # noqa: F401  (registers the unit kinds)
    from benchnb.sweeps.plan import load_plan, unit_record
    import anndata as ad, numpy as np, pandas as pd
    (tmp_path/'data').mkdir()
    a = ad.AnnData(np.zeros((3, 2), np.float32), obs=pd.DataFrame({'bulk_labels': list('abc')}, index=list('xyz')))
    a.obsm['X_pca'] = np.zeros((3, 2), np.float32)     # validate checks the model is an obsm key
    a.write_h5ad(tmp_path/'data'/'dsB.h5ad')          # validate reads its obs columns
    p = _plan(tmp_path, "units:\n  - {family: cells, dataset: data/dsB.h5ad, model: X_pca, task: clustering, options: {labels: bulk_labels}}\n")
    u = load_plan(p).units[0]
    assert u.dataset == str((tmp_path/'data'/'dsB.h5ad').resolve())   # the worker gets the resolved path ...
    assert unit_record(u)['dataset'] == 'data/dsB.h5ad'                # ... the results, the plan's name


# --- reports ----------------------------------------------------------------------------------------------

@pytest.fixture
def toy_report(tmp_path):
    "A registered report reading the file `data` names and failing when `fail` is true."
    import nbformat
    from benchnb.family import Report as ReportInfo, reports
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("data = 'in.txt'  # a file to read\nfail = False\nn = 3", metadata={'tags': ['parameters']}),
        nbformat.v4.new_code_cell("print(open(data).read() * n)"),
        nbformat.v4.new_code_cell("if fail: raise ValueError('asked to fail')")])
    nb.metadata['kernelspec'] = {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'}
    nbformat.write(nb, tmp_path/'toy.ipynb')
    with mock.patch.object(ReportInfo, 'path', property(lambda self: tmp_path/self.notebook)):
        reports.register('toy', ReportInfo('toy', 'toy.ipynb'), replace=True)
        try: yield tmp_path
        finally: reports._entries.pop('toy', None)


def test_report_pair_survives_a_failed_rerun(toy_report, tmp_path, monkeypatch):
    from benchnb.report import ReportError, run_report
    monkeypatch.chdir(tmp_path)
    (tmp_path/'sub').mkdir(); (tmp_path/'sub'/'in.txt').write_text('hi')
    old = os.umask(0o022)
    try: ok = run_report('toy', {'data': 'sub/in.txt'}, tmp_path/'out')      # a relative -p path: the caller's
    finally: os.umask(old)
    assert 'hihihi' in ok.notebook.read_text()
    assert oct(ok.notebook.stat().st_mode & 0o777) == '0o644'                # the umask's mode, not 0600
    pair = {p: p.read_bytes() for p in (ok.notebook, ok.html)}
    with pytest.raises(ReportError, match='asked to fail'):
        run_report('toy', {'data': 'sub/in.txt', 'fail': True}, tmp_path/'out')
    assert {p: p.read_bytes() for p in pair} == pair                         # the previous pair, untouched
    assert sorted(p.name for p in (tmp_path/'out').iterdir()) == ['toy.failed.ipynb', 'toy.html', 'toy.ipynb', 'toy_files']


def test_report_parameter_of_the_wrong_type_fails_first(toy_report):
    code, out, err = run_main('report', 'toy', '-p', 'n=abc', '-o', toy_report/'out')
    assert code == 1 and "expects int for 'n'" in one_error_line(err)
    assert not (toy_report/'out').exists()                                   # refused before anything ran


def test_report_sigterm_is_like_ctrl_c(tmp_path):
    p = subprocess.Popen(CMD + ['report', 'core', '-o', str(tmp_path/'out')], env=ENV, cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while not list((tmp_path/'out').glob('.core.*.ipynb')):               # the report is running
            assert p.poll() is None, p.communicate()
            time.sleep(0.05)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=120)
    finally: p.kill()
    assert p.returncode == 143, err
    assert err.strip().splitlines()[-1].startswith('benchnb: terminated (SIGTERM)'), err
    assert 'Traceback' not in err, err
    assert not [f.name for f in (tmp_path/'out').iterdir() if f.name.startswith('.')]   # no stray temp notebook


# --- translator evaluate --------------------------------------------------------------------------------------

@pytest.mark.parametrize('response, status, says', [
    ({'message': {'results': 'abc'}}, 'failed', "message.results is str 'abc', not a list"),
    ({'message': {'results': [{'node_bindings': {'Drug': [{'id': 'A'}]}, 'analyses': [{'score': 'high'}]}]}},
     'answered', "message.results[0].analyses[0].score is 'high'"),
    ({'message': {'results': [{'node_bindings': {'Drug': [{'id': 'A'}]}, 'analyses': [{'score': float('nan')}]}]}},
     'answered', 'message.results[0].analyses[0].score is nan'),
    ({'message': {'results': [{'node_bindings': {'Drug': [{'id': 'A'}]}, 'score': float('inf')}]}},
     'answered', 'message.results[0].score is inf')])
def test_evaluate_flags_malformed_responses(response, status, says):
    from benchnb.translator.evaluate import evaluate_responses
    from benchnb.translator.queries import Query
    q = Query('Q1', 's', 't', {}, ['Drug'], [(('Drug', 'A'),)])
    ev = evaluate_responses('b', [q], {'Q1': response}, k=2)
    assert ev.status == [status]
    assert any(says in w and 'Q1' in w for w in ev.warnings), ev.warnings


# --- sweeps: signals to the whole process group, progress off a terminal ---------------------------------------

@pytest.mark.parametrize('sig, code, said', [(signal.SIGINT, 130, 'benchnb: interrupted;'),
                                             (signal.SIGTERM, 143, 'benchnb: terminated (SIGTERM);')])
def test_sweep_stopped_by_a_signal_to_its_group_says_one_line(tmp_path, sig, code, said):
    "As a terminal's Ctrl-C (or a container stop) does: every process of the group gets the signal, workers too."
    from test_sweeps_reliability import db_tables, finish, sleep_plan, wait_for
    markers = tmp_path/'markers'
    plan = sleep_plan(tmp_path/'plan.yaml', 6, 2.0, markers)
    env = {k: v for k, v in ENV.items() if k != 'BENCHNB_PROGRESS'}         # no setting: progress as a user gets it
    p = subprocess.Popen(CMD + ['sweep', 'run', str(plan), '--results', str(tmp_path/'res'), '--workers', '2'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try: wait_for(lambda: markers.exists() and list(markers.glob('*.end')), what='a unit to finish')
    except BaseException: finish(p, timeout=5); raise
    os.killpg(p.pid, sig)
    rc, out, err = finish(p, timeout=120)
    assert rc == code, err
    assert 'Traceback' not in err and 'KeyboardInterrupt' not in err, err
    assert 'benchnb: units: 0/6 unit' in err, err                           # progress lines off a terminal
    assert err.strip().splitlines()[-1].startswith(said), err
    assert db_tables(tmp_path/'res')[2].status.tolist() == ['interrupted']


def test_full_disk_during_results_import_is_one_line(tmp_path):
    "DuckDB's own write failure (its WAL cannot grow: RLIMIT_FSIZE stands in for a full disk) is one line naming the database."
    import resource
    from benchnb.family import family_named, load_families
    load_families()
    files = family_named('translator').demos['translator'].make(tmp_path/'runs')
    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (50_000, 50_000))
    r = subprocess.run([*CMD, 'results', 'import', str(tmp_path/'db'), *map(str, files)], preexec_fn=small_files,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert 'cannot write the results database (' in r.stderr and 'results.duckdb' in r.stderr, r.stderr
    assert 'internal error' not in r.stderr and 'rollback' not in r.stderr
    r = subprocess.run([*CMD, 'results', 'import', str(tmp_path/'db'), *map(str, files)], capture_output=True, text=True,
                       timeout=300)                     # space again: the same command completes what is missing
    assert r.returncode == 0, r.stderr
    from benchnb.resultsdb.db import ResultsDB
    with ResultsDB(tmp_path/'db', read_only=True) as db: assert len(db.units(status='done')) == 3


# --- issue 32: names are data, every failure is one line ---------------------------------------------------------

CELLS_ROW = {'task': 'clustering', 'model': 'm', 'metric': 'ARI', 'value': 0.5, 'seed': 0}
BAD_IMPORTS = {'value_abc': ({'value': 'abc'}, "field 'ARI.value': value 'abc'"), 'value_list': ({'value': [1]}, "field 'ARI.value'"),
               'value_dict': ({'value': {}}, "field 'ARI.value'"), 'seed_1e30': ({'seed': 1e30}, "field 'ARI.seed'"),
               'seed_x': ({'seed': 'x'}, "field 'ARI.seed': value 'x'"), 'task_dict': ({'task': {'a': 1}}, 'malformed cells results'),
               'model_list': ({'model': ['a']}, 'malformed cells results'), 'model_null': ({'model': None}, "field 'model'"),
               'metric_null': ({'metric': None}, "field 'metrics[0].metric'")}


@pytest.mark.parametrize('case', sorted(BAD_IMPORTS))
def test_malformed_import_file_is_one_line_naming_it(tmp_path, case):
    change, says = BAD_IMPORTS[case]
    f = tmp_path/f'{case}.json'
    f.write_text(json.dumps([{**CELLS_ROW, **change}]))
    code, out, err = run_main('results', 'import', tmp_path/'db', f)
    line = one_error_line(err)
    assert code == 1 and f.name in line and says in line, line


def test_import_of_100000_deep_json_is_one_line(tmp_path):
    f = tmp_path/'deep.json'
    f.write_text('[' * 100_000 + ']' * 100_000)
    code, out, err = run_main('results', 'import', tmp_path/'db', f)
    assert code == 1 and 'deep.json: nested too deep' in one_error_line(err)


def test_translator_output_with_list_metrics_is_one_line(tmp_path):
    f = tmp_path/'treats'/'x'/'run1'/'output.json'
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps({'benchmark': 'treats', 'target': 'x', 'metrics': [], 'queries': 'x'}))
    code, out, err = run_main('results', 'import', tmp_path/'db', f)
    assert code == 1 and 'output.json' in one_error_line(err)


def test_fetch_target_that_leaves_the_results_folder_is_refused(tmp_path):
    "`translator fetch treats ../../x --results r` wrote its run outside r/ (main)."
    code, out, err = run_main('translator', 'fetch', 'treats', '../../x', '--url', 'http://127.0.0.1:9/query',
                              '--results', tmp_path/'deep'/'r', '--limit', '1')
    assert code == 1 and "field 'target': value '../../x'" in one_error_line(err)
    assert sorted(p.name for p in tmp_path.rglob('*')) == [], list(tmp_path.rglob('*'))


def _plan(tmp_path, text: str) -> Path:
    p = tmp_path/'plan.yaml'
    p.write_text(textwrap.dedent(text))
    return p


@pytest.mark.parametrize('entry, field', [
    ("{family: plism, dataset: demo, model: ../../../x, task: evaluate}", "units[0].model"),
    ("{family: test, task: echo, seeds: []}", "units[0].seeds"),
    ("{family: test, task: sleep, options: {seconds: -5}}", "units[0].options.seconds")])
def test_validate_refuses_names_paths_and_empty_axes(tmp_path, entry, field):
    code, out, err = run_main('sweep', 'validate', _plan(tmp_path, f"units:\n  - {entry}\n"))
    assert code == 1 and f"field '{field}'" in out + err, (out, err)


def test_validate_dev_zero_and_a_deep_plan_are_one_line(tmp_path):
    "`sweep validate /dev/zero` under a 4 GB address-space limit (main: read until MemoryError); a 20,000-deep plan."
    import resource
    limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    r = subprocess.run([*CMD, 'sweep', 'validate', '/dev/zero'], env=ENV, preexec_fn=limit, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 1 and '/dev/zero: is not a regular file' in one_error_line(r.stderr), r.stderr[-500:]
    deep = tmp_path/'deep.yaml'
    deep.write_text('units: ' + '[' * 20_000 + ']' * 20_000 + '\n')
    code, out, err = run_main('sweep', 'validate', deep)
    assert code == 1 and 'deep.yaml: nested too deep' in one_error_line(err)


def test_sweep_refuses_a_symlinked_errors_folder(tmp_path):
    plan = _plan(tmp_path, "units:\n  - {family: test, task: fail, seeds: [1]}\n")
    (tmp_path/'res').mkdir(); (tmp_path/'elsewhere').mkdir()
    (tmp_path/'res'/'errors').symlink_to(tmp_path/'elsewhere')
    code, out, err = run_main('sweep', 'run', plan, '--results', tmp_path/'res', '--workers', '1')
    assert code == 1 and 'errors: is a symbolic link' in one_error_line(err)
    assert list((tmp_path/'elsewhere').iterdir()) == []


def test_resume_on_a_broken_manifest_or_ledger_is_one_line(tmp_path):
    from benchnb.translator.server import ReferenceServer
    run = tmp_path/'r'/'treats'/'ref'/'run1'
    with ReferenceServer() as srv:
        args = ('translator', 'fetch', 'treats', 'ref', '--url', srv.url + '/query', '--results', tmp_path/'r', '--run-id', 'run1')
        assert run_main(*args, '--limit', '1')[0] == 0
        for text, says in (('{"kind": "translator-fe', 'not a JSON manifest'), ('[1, 2]', 'not a run manifest')):
            (run/'manifest.json').write_text(text)
            code, out, err = run_main(*args)
            assert code == 1 and 'manifest.json' in one_error_line(err) and says in err, err
        (run/'manifest.json').unlink()
        with open(run/'ledger.jsonl', 'a') as f: f.write('{"unit": "q", "status": "pending"}\n')
        code, out, err = run_main(*args)
        assert code == 1 and "value 'pending'" in one_error_line(err), err


def test_evaluate_counts_a_list_message_as_failed_and_reads_no_deep_file(tmp_path):
    from benchnb.translator.evaluate import ResponseFiles, evaluate_responses
    from benchnb.translator.queries import Query
    q = Query('Q1', 's', 't', {}, ['Drug'], [(('Drug', 'A'),)])
    ev = evaluate_responses('b', [q], {'Q1': {'message': []}}, k=2)      # main: an empty answer
    assert ev.status == ['failed'], ev.status
    (tmp_path/'Q1.json').write_text('[' * 100_000 + ']' * 100_000)
    assert ResponseFiles(tmp_path, ['Q1']).get('Q1') is None             # unreadable: logged, not a RecursionError


def test_translator_config_nested_too_deep_is_named(tmp_path):
    from benchnb.translator.config import read_json
    f = tmp_path/'benchmarks.json'
    f.write_text('{"a": ' * 100_000 + '1' + '}' * 100_000)
    with pytest.raises(benchnb.core.BenchnbError, match='benchmarks.json: JSON nested too deep'): read_json(f)


def test_plism_evaluate_extractor_is_a_name(tmp_path):
    code, out, err = run_main('plism', 'evaluate', '--extractor', '../../x', '--features-dir', tmp_path, '--metrics-dir', tmp_path/'m')
    assert code == 1 and "field '--extractor': value '../../x'" in one_error_line(err)
    assert not (tmp_path/'m').exists()


def test_report_label_key_with_a_slash_stays_a_name():
    from benchnb.core import load_plugins
    from benchnb.report import path_parameters, resolve_user_paths
    load_plugins()
    assert 'label_key' not in path_parameters('cells') and 'extractor' not in path_parameters('plism')
    assert resolve_user_paths({'label_key': 'cell/type', 'h5ad': 'a.h5ad'}, '/w', path_parameters('cells')) == \
        {'label_key': 'cell/type', 'h5ad': '/w/a.h5ad'}


def test_planted_journal_moves_nothing_and_symlinked_files_folder_is_refused(toy_report, tmp_path):
    from benchnb.report import ReportError, run_report
    (tmp_path/'in.txt').write_text('hi')
    out = tmp_path/'out'; out.mkdir()
    victim = tmp_path/'victim.txt'; victim.write_text('keep me')
    (out/'.toy.install.json').write_text(json.dumps({'notebook': str(victim), 'html': None}))   # main: victim moved over toy.ipynb
    ok = run_report('toy', {'data': str(tmp_path/'in.txt')}, out, html=False)
    assert victim.read_text() == 'keep me' and 'hihihi' in ok.notebook.read_text()
    (tmp_path/'other').mkdir()
    os.rename(out/'toy_files', tmp_path/'gone'); (out/'toy_files').symlink_to(tmp_path/'other')
    with pytest.raises(ReportError, match='toy_files: is a symbolic link'):
        run_report('toy', {'data': str(tmp_path/'in.txt')}, out, html=False)


def test_a_reader_never_locks_out_a_writer(tmp_path):
    "A read-only ResultsDB held open here (a long `report leaderboard`): `results import` in another process still writes."
    from benchnb.resultsdb.db import ResultsDB
    f = tmp_path/'c.json'; f.write_text(json.dumps([CELLS_ROW]))
    assert run_main('results', 'import', tmp_path/'db', f)[0] == 0
    g = tmp_path/'d.json'; g.write_text(json.dumps([{**CELLS_ROW, 'model': 'm2'}]))
    with ResultsDB(tmp_path/'db', read_only=True) as reader:
        r = subprocess.run([*CMD, 'results', 'import', str(tmp_path/'db'), str(g)], env=ENV, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr                                 # main: "Could not set lock on file"
        assert len(reader.units()) == 1                                   # the reader's snapshot is what it opened
    with ResultsDB(tmp_path/'db', read_only=True) as db: assert len(db.units()) == 2
