"""The Test Harness's suites run end to end: the `benchnb translator tests` CLI (a real process) against reference
targets on loopback; verdicts re-derived from the stored responses by a naive reading of the harness's rules."""
import json, re, subprocess
from pathlib import Path
import pytest

from benchnb.translator.acceptance import acceptance_demo_kg, load_suites, plan_suite
from benchnb.translator.queries import uid_filenames
from benchnb.translator.server import Faults, ReferenceServer

SUITES = ['sprint_4_tests', 'pathfinder_tests']

@pytest.fixture(scope='module')
def suites(): return load_suites(ids=SUITES)

@pytest.fixture(scope='module')
def targets(suites):
    "Two reference targets that disagree: graphs built from the suites with different seeds and accuracies."
    with ReferenceServer(acceptance_demo_kg(suites.values(), 0, 0.9)) as a, ReferenceServer(acceptance_demo_kg(suites.values(), 3, 0.5)) as b:
        yield {'good': a.url, 'worse': b.url}

def _cli(exe, *args):
    return subprocess.run([exe, 'translator', 'tests', *map(str, args)], capture_output=True, text=True, timeout=300)

def naive_status(results, out, expected):
    "The harness's table, written out directly: positions (1-based) of results binding `out`."
    at = [i + 1 for i, r in enumerate(results) if any(out in [b['id'] for b in bs] for bs in r['node_bindings'].values())]
    n, half = len(results), len(results) // 2
    if expected == 'TopAnswer': return 'PASSED' if any(p <= 30 for p in at) else 'FAILED'
    if expected == 'Acceptable': return 'PASSED' if any(p <= half for p in at) else 'FAILED'
    if expected == 'BadButForgivable': return 'PASSED' if not at or any(p > half for p in at) else 'FAILED'
    return 'FAILED' if at else 'PASSED'

def naive_pathfinder(message, groups, minimum):
    "PASSED when some path's edges touch at least `minimum` of the expected node groups."
    kg = message['knowledge_graph']['edges']
    for a in message['results'][0]['analyses']:
        for b in a['path_bindings']['p0']:
            ends = {c for e in message['auxiliary_graphs'][b['id']]['edges'] for c in (kg[e]['subject'], kg[e]['object'])}
            if sum(bool(ends & set(g)) for g in groups) >= minimum: return 'PASSED'
    return 'FAILED'

def test_two_suites_two_targets(benchnb_exe, tmp_path, suites, targets):
    r = _cli(benchnb_exe, 'run', 'sprint_4_tests', *(f"{n}={u}/query" for n, u in targets.items()),
                  '--results', tmp_path/'res', '--out', tmp_path/'v4.jsonl', '--matrix', tmp_path/'m.csv')
    assert r.returncode == 0, r.stderr
    r2 = _cli(benchnb_exe, 'run', 'pathfinder_tests', *(f"{n}={u}/query" for n, u in targets.items()),
                   '--results', tmp_path/'res', '--out', tmp_path/'vp.jsonl')
    assert r2.returncode == 0, r2.stderr
    rows = [json.loads(l) for f in ('v4.jsonl', 'vp.jsonl') for l in (tmp_path/f).read_text().splitlines()]
    assert len(rows) == 2 * (106 + 90)
    assert {'suite', 'case_id', 'asset_id', 'agent', 'expected_output', 'status', 'reason', 'rank', 'score'} <= set(rows[0])
    # every verdict re-derived from the stored response
    for suite_id in SUITES:
        plan, queries = plan_suite(suites[suite_id])
        names = uid_filenames(queries)
        for agent in targets:
            run_dir = next((tmp_path/'res'/suite_id/agent).iterdir())
            got = {(v['case_id'], v['asset_id']): v for v in rows if v['suite'] == suite_id and v['agent'] == agent}
            for p in plan:
                msg = json.loads((run_dir/names[p.uid]).read_text())['message']
                if p.asset.pathfinder:
                    want = naive_pathfinder(msg, [pn['ids'] for pn in p.asset.get('path_nodes')], p.asset.get('minimum_required_path_nodes'))
                else: want = naive_status(msg['results'], p.asset.get('output_id'), p.asset.expected_output)
                assert got[p.case.id, p.asset.id]['status'] == want, (suite_id, agent, p.asset.id)
    by = {(v['suite'], v['agent'], v['case_id'], v['asset_id']): v['status'] for v in rows}
    disagree = sum(by[s, 'good', c, a] != by[s, 'worse', c, a] for s, ag, c, a in by if ag == 'good')
    assert disagree > 20
    assert 'sprint_4_tests' in r.stdout and 'TopAnswer' in r.stdout           # the summary table
    head = r2.stdout.splitlines()[0].split()                  # pathfinder assets (all 'TopAnswer') judged by the path rule
    assert 'pathfinder' in head and 'TopAnswer' not in head, r2.stdout        # get their own column (issue 24)
    assert 'benchnb: sprint_4_tests good: 36/36 queries ok, 0 failed' in r.stderr
    assert (tmp_path/'m.csv').read_text().splitlines()[0] == 'suite,case_id,asset_id,expected_output,good,worse'

def test_retry_failed_resumes_the_same_run(benchnb_exe, tmp_path, suites):
    with ReferenceServer(acceptance_demo_kg(suites.values(), 0, 0.9), Faults(fail_first=1, fail_kind='500')) as srv:
        args = ('run', 'sprint_4_tests', 'flaky', '--url', srv.url + '/query', '--results', tmp_path, '--out', tmp_path/'v.jsonl', '--retries', '0')
        r = _cli(benchnb_exe, *args)
        assert r.returncode == 1, r.stderr                          # the first 5 all 500: stopped as fetch stops
        assert 'target looks down: the first 5 queries all failed (HTTP 500' in r.stderr and "target 'flaky'" in r.stderr
        r = _cli(benchnb_exe, *args, '--retry-failed', '--retries', '1')     # resumed: each query's retry is answered
        assert r.returncode == 0 and 'flaky: 36/36 queries ok, 0 failed' in r.stderr, r.stderr
    assert len(list((tmp_path/'sprint_4_tests'/'flaky').iterdir())) == 1       # the same run directory
    assert {json.loads(l)['status'] for l in (tmp_path/'v.jsonl').read_text().splitlines()} <= {'PASSED', 'FAILED'}

def test_ars_agents_and_sugeno(benchnb_exe, tmp_path, suites):
    with ReferenceServer(acceptance_demo_kg(suites.values(), 0, 0.9), ars_delay=0.05) as srv:
        r = _cli(benchnb_exe, 'run', 'sprint_4_tests', 'ars', '--url', srv.url + '/ars/api', '--mode', 'ars', '--poll-interval', '0.05',
                      '--results', tmp_path, '--out', tmp_path/'v.jsonl')
    assert r.returncode == 0, r.stderr
    rows = [json.loads(l) for l in (tmp_path/'v.jsonl').read_text().splitlines()]
    assert {v['agent'] for v in rows} == {'ars', 'benchnb', 'benchnb-reversed'}
    merged = [v for v in rows if v['agent'] == 'ars' and v['found']]
    assert merged and all(isinstance(v['rank'], int) and 0 <= v['score'] <= 1 for v in merged)

def test_bad_asset_named_by_file_and_field(benchnb_exe, tmp_path):
    (tmp_path/'test_suites').mkdir()
    asset = {'id': 'Asset_1', 'input_id': 'MONDO:1', 'input_category': 'biolink:Disease', 'predicate_id': 'biolink:treats',
             'output_id': {'oops': 1}, 'qualifiers': [], 'expected_output': 'TopAnswer'}
    bad = tmp_path/'test_suites'/'broken.json'
    bad.write_text(json.dumps({'id': 'broken', 'test_cases': {'TC_1': {'id': 'TC_1', 'test_assets': [asset]}}}))
    r = _cli(benchnb_exe, 'list', '--tests', tmp_path)
    assert r.returncode != 0
    assert f"{bad}: field 'test_cases.TC_1.test_assets[0].output_id'" in r.stderr and 'must be a string or null' in r.stderr

def test_list_counts(benchnb_exe):
    r = _cli(benchnb_exe, 'list')
    assert r.returncode == 0, r.stderr
    rows = {l.split()[0]: l.split()[1:] for l in r.stdout.splitlines()[1:]}
    assert len(rows) == 18                 # 19 shipped suites, DrugCentral_subset has no cases (named on stderr)
    assert rows['sprint_4_tests'][:2] == ['36', '106'] and rows['pathfinder_tests'][:2] == ['18', '90']

REAL = Path(__file__).parent/'data'/'translator-real-responses'

def test_real_arax_pathfinder_is_a_test_error_as_in_the_harness():
    """ARAX's 1.5.2 pathfinder answer binds its paths through edge_bindings, not path_bindings: the harness's plain
    `analysis['path_bindings']` fails on it, so the asset is FAILED with a Test Error, never silently passed."""
    from benchnb.translator.acceptance import agent_verdict, check_asset
    resp = json.loads((REAL/'arax_pathfinder_trapi1.5.json').read_text())
    asset = check_asset({'id': 'A', 'expected_output': 'TopAnswer', 'source_input_id': 'MONDO:0005101', 'target_input_id': 'UNII:FYS6T7F842',
                         'minimum_required_path_nodes': 1, 'path_nodes': [{'ids': ['UNII:B72HH48FLU']}]}, 'f', 'a')
    v = agent_verdict(resp, 'ok', asset)
    assert v['status'] == 'FAILED' and v['reason'] == "Test Error: KeyError: 'path_bindings'"

def test_real_coalesced_bindings_rank():
    "ARAGORN's answer-coalesced results bind 10-39 ids per qnode: any of them is found, at its result's position."
    from benchnb.translator.acceptance import agent_verdict, check_asset
    resp = json.loads((REAL/'aragorn_coalesced_treats_schizophrenia_trapi1.5.json').read_text())
    results = resp['message']['results']
    ids = lambda r: [b['id'] for bs in r['node_bindings'].values() for b in bs]
    target = ids(results[9])[-1]                                    # a member deep in the 10th result's binding
    want = max(i + 1 for i, r in enumerate(results) if target in ids(r))      # the last result holding it (harness)
    asset = check_asset({'id': 'A', 'expected_output': 'Acceptable', 'input_id': 'MONDO:0005090', 'input_category': 'biolink:Disease',
                         'predicate_id': 'biolink:treats', 'output_id': target, 'qualifiers': []}, 'f', 'a')
    v = agent_verdict(resp, 'ok', asset)
    assert v['rank'] == want and v['status'] == ('PASSED' if want <= len(results) // 2 else 'FAILED')

def test_async_target(benchnb_exe, tmp_path, suites):
    "The TRAPI asynchronous protocol (submit, poll, fetch the response) gives the same verdicts as the sync one."
    kg = acceptance_demo_kg(suites.values(), 0, 0.9)
    with ReferenceServer(kg) as srv:
        for mode in ('sync', 'async'):
            r = _cli(benchnb_exe, 'run', 'pathfinder_tests', mode, '--url', srv.url + '/query', '--mode', mode, '--poll-interval', '0.05',
                     '--results', tmp_path, '--out', tmp_path/f"{mode}.jsonl")
            assert r.returncode == 0, r.stderr
    got = {m: [(v['asset_id'], v['status'], v['rank']) for v in map(json.loads, (tmp_path/f"{m}.jsonl").read_text().splitlines())] for m in ('sync', 'async')}
    assert got['sync'] == got['async'] and len(got['sync']) == 90

def test_docs_pair_the_suites_with_tests_serve():
    "Each local target a `tests run` example of the README or the how-to sends to is started by `tests serve` (issue 19)."
    root = Path(__file__).resolve().parents[1]
    for doc in (root/'README.md', root/'docs'/'howto-translator.md'):
        text = doc.read_text(encoding='utf-8')
        served = set(re.findall(r'benchnb translator tests serve [^\n]*--port (\d+)', text))
        local = re.findall(r'benchnb translator tests run [^\n]*127\.0\.0\.1:(\d+)', text)
        assert local and set(local) <= served, (doc.name, local, served)   # not `translator serve`: it answers none
