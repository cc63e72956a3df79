"""The reference TRAPI server over real HTTP: malformed requests get 400 naming the field (never 5xx), categories are
honoured, a huge query does not stall a small one, bodies are bounded (413), job stores stay bounded."""
import concurrent.futures as cf, json, os, threading

import pytest
import requests

from benchnb.translator.config import load_config
from benchnb.translator.queries import build_queries
from benchnb.translator.server import KGEdge, KnowledgeGraph, ReferenceServer

QG = {'nodes': {'Disease': {'ids': ['MONDO:1'], 'categories': ['biolink:Disease']}, 'Drug': {'categories': ['biolink:SmallMolecule']}},
      'edges': {'e01': {'subject': 'Drug', 'object': 'Disease', 'predicates': ['biolink:treats']}}}


def q(**over):
    "A good query with parts of its query graph replaced."
    qg = json.loads(json.dumps(QG))
    for path, v in over.items():
        d, keys = qg, path.split('__')
        for k in keys[:-1]: d = d[k]
        if v is ...: del d[keys[-1]]
        else: d[keys[-1]] = v
    return {'message': {'query_graph': qg}}


# (endpoint, body, field the 400 must name); body bytes are sent raw
MALFORMED = [
    ('/query', b'not json', 'not JSON'), ('/query', b'[' * 200_000, 'not JSON'), ('/query', b'\xff\xfe', 'not JSON'), ('/query', b'', 'not JSON'),
    ('/benchnb/faults', b'{' * 200_000, 'not JSON'), ('/query', b'[1, 2]', '(body)'), ('/query', b'"x"', '(body)'), ('/query', b'null', '(body)'),
    ('/query', {'msg': {}}, "'message'"), ('/query', {'message': []}, "'message'"), ('/query', {'message': {}}, "'message.query_graph'"),
    ('/query', {'message': {'query_graph': []}}, "'message.query_graph'"),
    ('/query', q(nodes=[]), "'message.query_graph.nodes'"), ('/query', q(nodes='Drug'), "'message.query_graph.nodes'"),
    ('/query', q(nodes={}), "'message.query_graph.nodes'"), ('/query', q(nodes__Drug='x'), "'message.query_graph.nodes.Drug'"),
    ('/query', q(nodes__Drug=None), "'message.query_graph.nodes.Drug'"), ('/query', q(nodes__Drug=[1]), "'message.query_graph.nodes.Drug'"),
    ('/query', q(nodes__Disease__ids='MONDO:1'), "'message.query_graph.nodes.Disease.ids'"),
    ('/query', q(nodes__Disease__ids=[1]), "'message.query_graph.nodes.Disease.ids'"),
    ('/query', q(nodes__Disease__ids={'a': 1}), "'message.query_graph.nodes.Disease.ids'"),
    ('/query', q(nodes__Drug__categories='biolink:Drug'), "'message.query_graph.nodes.Drug.categories'"),
    ('/query', q(nodes__Drug__set_interpretation='SOME'), "'message.query_graph.nodes.Drug.set_interpretation'"),
    ('/query', q(nodes__Drug__member_ids='X:1'), "'message.query_graph.nodes.Drug.member_ids'"),
    ('/query', q(edges=[]), "'message.query_graph.edges'"), ('/query', q(edges='e01'), "'message.query_graph.edges'"),
    ('/query', q(edges__e01='x'), "'message.query_graph.edges.e01'"), ('/query', q(edges__e01=None), "'message.query_graph.edges.e01'"),
    ('/query', q(edges__e01__subject='Nope'), "'message.query_graph.edges.e01.subject'"),
    ('/query', q(edges__e01__object=...), "'message.query_graph.edges.e01.object'"),
    ('/query', q(edges__e01__subject=['Drug']), "'message.query_graph.edges.e01.subject'"),
    ('/query', q(edges__e01__predicates='biolink:treats'), "'message.query_graph.edges.e01.predicates'"),
    ('/query', q(edges__e01__predicate=['biolink:treats']), "'message.query_graph.edges.e01.predicate'"),
    ('/query', q(paths={'p0': {'subject': 'Drug', 'object': 'X'}}), "'message.query_graph.paths.p0.object'"),
    ('/query', {**q(), 'workflow': 'lookup'}, "'workflow'"), ('/query', {**q(), 'workflow': [{'op': 'score'}]}, "'workflow'"),
    ('/query', {**q(), 'workflow': [{'id': 'score'}]}, "'message.results'"),
    ('/query', {'message': {**q()['message'], 'results': {'a': 1}}, 'workflow': [{'id': 'score'}]}, "'message.results'"),
    ('/query', {'message': {**q()['message'], 'results': [[]]}, 'workflow': [{'id': 'score'}]}, "'message.results[0]'"),
    ('/query', {'message': {**q()['message'], 'results': [{'node_bindings': []}]}, 'workflow': [{'id': 'score'}]},
     "'message.results[0].node_bindings'"),
    ('/query', {'message': {**q()['message'], 'results': [{'node_bindings': {}, 'analyses': [1]}]}, 'workflow': [{'id': 'score'}]},
     "'message.results[0].analyses'"),
    ('/query', q(nodes__Disease__ids=...), 'no pinned node'),
    ('/asyncquery', q(), "'callback'"), ('/asyncquery', {**q(), 'callback': 5}, "'callback'"),
    ('/asyncquery', {'message': {}, 'callback': 'http://127.0.0.1:9/cb'}, "'message.query_graph'"),
    ('/ars/api/submit', {'message': {}}, "'message'"), ('/ars/api/submit', q(nodes=[]), "'message.query_graph.nodes'"),
    ('/benchnb/faults', b'[1]', '(body)'), ('/benchnb/faults', b'nope', 'not JSON'), ('/benchnb/faults', {'latncy': 1}, "'latncy'"),
    ('/benchnb/faults', {'latency': 'slow'}, "'latency'"), ('/benchnb/faults', {'error_rate': -0.5}, "'error_rate'"),
    ('/benchnb/faults', {'fail_kind': '404'}, "'fail_kind'"), ('/benchnb/faults', {'fail_first': True}, "'fail_first'"),
]


@pytest.fixture(scope='module')
def server():
    kg = KnowledgeGraph([KGEdge('t1', 'CHEBI:1', 'biolink:treats', 'MONDO:1', 0.9), KGEdge('t2', 'NCBIGene:2', 'biolink:treats', 'MONDO:1', 0.8)],
                        {'CHEBI:1': ['biolink:SmallMolecule'], 'NCBIGene:2': ['biolink:Gene'], 'MONDO:1': ['biolink:Disease']})
    with ReferenceServer(kg, max_jobs=20, job_ttl=600, async_delay=0.0, ars_delay=0.0, enable_faults=True) as srv: yield srv


@pytest.mark.parametrize('path,body,field', MALFORMED, ids=[f"{i}{p}" for i, (p, _, _) in enumerate(MALFORMED)])
def test_malformed_request_gets_400_naming_the_field(server, path, body, field):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    r = requests.post(server.url + path, data=data, headers={'Content-Type': 'application/json'}, timeout=10)
    assert r.status_code == 400, (r.status_code, r.text[:300])
    assert field in r.json()['detail'], r.json()


def test_well_formed_request_still_answers(server):
    r = requests.post(server.url + '/query', json=q(), timeout=10)
    assert r.status_code == 200
    assert [x['node_bindings']['Drug'][0]['id'] for x in r.json()['message']['results']] == ['CHEBI:1']   # the gene is not a SmallMolecule


def test_qnode_categories_are_honoured(server):
    ask = lambda cat: [x['node_bindings']['Drug'][0]['id'] for x in requests.post(
        server.url + '/query', json=q(nodes__Drug__categories=[cat]), timeout=10).json()['message']['results']]
    assert ask('biolink:Gene') == ['NCBIGene:2']
    assert ask('biolink:ChemicalEntity') == ['CHEBI:1']
    assert ask('biolink:NamedThing') == ['CHEBI:1', 'NCBIGene:2']
    r = requests.post(server.url + '/query', json=q(nodes__Drug__categories=['biolink:Gene']), timeout=10).json()
    assert r['message']['knowledge_graph']['nodes']['NCBIGene:2']['categories'] == ['biolink:Gene']


def test_request_fuzz_never_5xx(server):
    "Random mutations of a good query: every answer is 200 or 400, never a server error."
    import random
    rng, good = random.Random(0), q()
    junk = [None, 1, -1.5, True, 'x', '', [], {}, [1], {'a': 1}, ['biolink:Drug']]
    codes = []
    for _ in range(150):
        body = json.loads(json.dumps(good)); d = body
        path = rng.choice([['message'], ['message', 'query_graph'], ['message', 'query_graph', 'nodes'],
                           ['message', 'query_graph', 'nodes', 'Drug'], ['message', 'query_graph', 'edges', 'e01'],
                           ['message', 'query_graph', 'nodes', 'Disease']])
        for k in path[:-1]: d = d[k]
        target = d[path[-1]]
        if isinstance(target, dict) and target and rng.random() < 0.7: target[rng.choice(list(target))] = rng.choice(junk)
        else: d[path[-1]] = rng.choice(junk)
        path = rng.choice(['/query', '/asyncquery', '/ars/api/submit'])
        if path == '/asyncquery': body['callback'] = 'http://127.0.0.1:9/cb'
        codes.append(requests.post(server.url + path, json=body, timeout=10).status_code)
    for _ in range(40):                                             # fault settings: random names and values
        settings = {rng.choice(['latency', 'error_rate', 'fail_first', 'fail_kind', 'seed', 'bogus']): rng.choice(junk) for _ in range(2)}
        codes.append(requests.post(server.url + '/benchnb/faults', json=settings, timeout=10).status_code)
    requests.post(server.url + '/benchnb/faults', json={}, timeout=10)
    assert set(codes) <= {200, 400}, sorted(set(codes))
    assert codes.count(400) > 80


def test_body_limit_413():
    with ReferenceServer(KnowledgeGraph([]), max_body=100_000) as srv:
        big = q(nodes__Disease__ids=[f"MONDO:{i:07d}" for i in range(20_000)])
        r = requests.post(srv.url + '/query', json=big, timeout=30)
        assert r.status_code == 413 and '100000' in r.json()['detail']
        assert requests.post(srv.url + '/query', json=q(), timeout=10).status_code == 200


def _ids_in(body: dict) -> int:
    return sum(len(n.get('ids') or ()) for n in body['message']['query_graph']['nodes'].values())


def test_big_query_does_not_stall_a_small_one(monkeypatch):
    """A big query is parsed and answered off the event loop: while it is held inside each stage (parse, then
    answer), small queries are answered. On the loop, holding it would stall the server and the small query time out."""
    import benchnb.translator.server as server
    stage_started = {k: threading.Event() for k in ('parse', 'answer')}
    release = {k: threading.Event() for k in ('parse', 'answer')}
    def held(stage, f):
        def run(*a):
            big = len(a[0]) > 1_000_000 if stage == 'parse' else _ids_in(a[1]) > 1000
            if big:
                stage_started[stage].set()
                assert release[stage].wait(120), f"the test never released the {stage} stage"
            return f(*a)
        return run
    monkeypatch.setattr(server, '_json', held('parse', server._json))
    monkeypatch.setattr(server, '_answer_bytes', held('answer', server._answer_bytes))
    kg = KnowledgeGraph([KGEdge(f"e{i}", f"CHEBI:{i}", 'biolink:treats', f"MONDO:{i}", 0.5) for i in range(2000)])
    plain = dict(nodes__Disease__categories=..., nodes__Drug__categories=...)
    data = json.dumps(q(nodes__Disease__ids=[f"MONDO:{i}" for i in range(200_000)], **plain)).encode()
    small = q(nodes__Disease__ids=['MONDO:1'], **plain)
    with ReferenceServer(kg, max_results=10) as srv, cf.ThreadPoolExecutor(1) as pool:
        try:
            fut = pool.submit(requests.post, srv.url + '/query', data=data,
                              headers={'Content-Type': 'application/json'}, timeout=120)
            for stage in ('parse', 'answer'):
                assert stage_started[stage].wait(60), f"the big query never reached its {stage} stage"
                r = requests.post(srv.url + '/query', json=small, timeout=30)       # the loop is free meanwhile
                assert r.status_code == 200 and len(r.json()['message']['results']) == 1, r.text[:300]
                assert not fut.done()
                release[stage].set()
            r = fut.result(timeout=120)
        finally:
            for e in release.values(): e.set()
    assert r.status_code == 200 and len(r.json()['message']['results']) == 10


def _rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith('VmRSS')) / 1024


def test_job_stores_stay_bounded_under_a_burst(server):
    sess, body = requests.Session(), {**q(), 'callback': 'http://127.0.0.1:9/cb'}
    server.state.async_callback = False
    rss = []
    for rnd in range(4):
        for _ in range(150):
            assert sess.post(server.url + '/asyncquery', json=body, timeout=10).status_code == 200
            assert sess.post(server.url + '/ars/api/submit', json=q(), timeout=10).status_code == 200
        rss.append(_rss_mb())
        stats = sess.get(server.url + '/benchnb/stats', timeout=10).json()
        assert stats['jobs'] <= 20 and stats['ars_messages'] <= 80, stats
    assert rss[-1] - rss[1] < 15, rss                     # flat after warm-up (1,200 submissions)


@pytest.mark.parametrize('version', ['1.5', '2.0'])
def test_answers_to_every_benchmark_pass_the_checks(version):
    "The server's answers to each benchmark's first queries pass benchnb's checks in the version's own shapes."
    from benchnb.translator.server import demo_kg
    from benchnb.translator.validate import validate_response
    cfg = load_config()
    with ReferenceServer(demo_kg(), trapi_version=version) as srv:
        for b in cfg.benchmarks:
            for q in build_queries(cfg, b)[:2]:
                r = requests.post(srv.url + '/query', json=q.message, timeout=30).json()
                assert validate_response(r, q.uid, q.slots, limit=None) == [], (b, q.uid)
                res = r['message']['results'][0]
                eb = next(iter(res['analyses'][0]['edge_bindings'].values()))
                assert isinstance(eb, dict) == (version == '2.0') and isinstance(res['node_bindings'][q.slots[0]], dict) == (version == '2.0')
                assert (len(r['logs']) > 0) == (version == '2.0')
                edge = next(iter(r['message']['knowledge_graph']['edges'].values()))
                assert ('knowledge_level' in edge) == (version == '2.0')


def test_burst_benchmark_script_runs():
    "benchmarks/translator_server_burst.py stays runnable (tiny burst)."
    import subprocess, sys
    from pathlib import Path
    script = Path(__file__).resolve().parents[1]/'benchmarks'/'translator_server_burst.py'
    r = subprocess.run([sys.executable, str(script), '--n', '25'], capture_output=True, text=True, timeout=300,
                       env={**os.environ, 'BENCHNB_PROGRESS': '0'})
    assert r.returncode == 0, r.stderr[-2000:]
    assert '25 async + 25 ARS' in r.stdout and 'stored jobs 25, ARS messages 100' in r.stdout, r.stdout


def test_validator_compare_helpers():
    "The reasoner-validator runner's message flattening (the side-venv part itself needs reasoner-validator)."
    import importlib.util
    from pathlib import Path
    p = Path(__file__).resolve().parents[1]/'benchmarks'/'translator_validator_rv.py'
    spec = importlib.util.spec_from_file_location('rv', p); rv = importlib.util.module_from_spec(spec); spec.loader.exec_module(rv)
    msgs = {'TRAPI Validation': {'Standards Test': {'error': {'error.a': {}, 'error.b': {}}, 'warning': {'warning.c': {}}, 'critical': {}}}}
    assert rv.codes(msgs) == {'error': ['error.a', 'error.b'], 'warning': ['warning.c'], 'critical': []}
