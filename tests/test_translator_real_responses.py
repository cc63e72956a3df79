"""Real Translator responses (tests/data/translator-real-responses, MIT, see PROVENANCE.md): each parses, ranks, is
evaluated and validated with counts worked out here independently, by a few lines of plain JSON code."""
import collections, json, logging
from pathlib import Path

import pytest

from benchnb.core import DataError
from benchnb.translator.evaluate import evaluate_responses, extract_message, load_responses, rank_scored, score_source
from benchnb.translator.queries import Query
from benchnb.translator.validate import validate_response

DATA = Path(__file__).parent/'data'/'translator-real-responses'
FILES = {'coalesced': 'aragorn_coalesced_treats_schizophrenia_trapi1.5.json', 'multinode': 'aragorn_multinodebind_trapi1.4.json',
         'pathfinder': 'arax_pathfinder_trapi1.5.json', 'molepro': 'molepro_kp_melatonin_treats_trapi1.5.json'}


@pytest.fixture(scope='module')
def real():
    return {k: json.loads((DATA/f).read_text()) for k, f in FILES.items()}


def test_provenance_lists_every_file():
    prov = (DATA/'PROVENANCE.md').read_text()
    assert all(f in prov for f in FILES.values()) and 'MIT' in prov


def test_each_parses_with_its_result_count(real):
    assert {k: len(extract_message(d)['results']) for k, d in real.items()} == {'coalesced': 42, 'multinode': 1, 'pathfinder': 97, 'molepro': 105}


def test_score_sources(real):
    src = {k: score_source(extract_message(d)['results']) for k, d in real.items()}
    # independently: which files have any numeric analysis score, any numeric result score
    num = lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)
    for k, d in real.items():
        rs = d['message']['results']
        an = any(num(a.get('score')) for r in rs for a in r.get('analyses') or [])
        res = any(num(r.get('score')) for r in rs)
        assert src[k] == ('analysis' if an else 'result' if res else 'none'), k
    assert src == {'coalesced': 'result', 'multinode': 'none', 'pathfinder': 'none', 'molepro': 'none'}


def test_coalesced_ranks_by_result_score(real):
    rs = real['coalesced']['message']['results']
    scores = [r['score'] for r in rs]
    best = scores.index(max(scores))
    assert best == 3                                              # the observation, recounted
    ranked, src = rank_scored(rs, len(rs))
    assert src == 'result' and ranked[0] is rs[best]
    assert [r['score'] for r in ranked] == sorted(scores, reverse=True)


def _query(uid, message, slots, relevant):
    return Query(uid, 'real', 't', {'message': {'query_graph': message['query_graph']}}, slots, relevant)


def test_coalesced_set_answers_count_through_any_member(real, caplog):
    "qnode b is a set (`set: true`): an answer counts when any id bound to b is relevant."
    m = real['coalesced']['message']
    rs = sorted(m['results'], key=lambda r: -r['score'])           # by result score, stable
    seen = [[b['id'] for b in r['node_bindings']['b']] for r in rs]
    # an id first bound (not first in its binding) by the 3rd answer or later
    first, target = next((i + 1, x) for i, ids in enumerate(seen) if i >= 2 for x in ids[1:] if not any(x in s for s in seen[:i]))
    q = _query('coal', m, ['b'], [(('b', target),)])
    ev = evaluate_responses('real', [q], {'coal': real['coalesced']}, k=10)
    assert first > 2 and ev.per_query()['reciprocal_rank'].tolist() == [1 / first]
    assert ev.options['score_sources'] == {'result': 1} and ev.warnings == []


def test_unscored_file_is_kept_in_file_order_with_a_warning(real, caplog):
    m = real['molepro']['message']
    third = m['results'][2]['node_bindings']['b'][0]['id']
    q = _query('mel', m, ['b'], [(('b', third),)])
    with caplog.at_level(logging.WARNING):
        ev = evaluate_responses('real', [q], {'mel': real['molepro']}, k=5)
    assert ev.per_query()['reciprocal_rank'].tolist() == [1 / 3]
    assert ev.options['score_sources'] == {'none': 1}
    assert 'no score anywhere' in ev.warnings[0] and 'file order' in caplog.text
    assert 'file order' in ev.to_dict(ci=False)['warnings'][0]


def _arax_path_nodes(m, r):
    "Independently: nodes of the auxiliary graphs named by the support_graphs of the result's bound edges."
    E, aux, nodes = m['knowledge_graph']['edges'], m['auxiliary_graphs'], []
    for a in r['analyses']:
        for b in a['edge_bindings'].values():
            for x in b:
                for at in E[x['id']].get('attributes') or []:
                    if at['attribute_type_id'] == 'biolink:support_graphs':
                        for g in at['value']:
                            for e in aux[g]['edges']:
                                nodes += [E[e]['subject'], E[e]['object']]
    return set(nodes)


def test_pathfinder_answers_are_judged_on_the_path(real):
    m = real['pathfinder']['message']
    pinned = {c for n in m['query_graph']['nodes'].values() for c in n['ids']}
    on_path = [_arax_path_nodes(m, r) - pinned for r in m['results']]
    # a node that first appears on the paths of the 6th result or a later one
    first, target = next((i + 1, x) for i in range(5, len(on_path)) for x in sorted(on_path[i]) if not any(x in p for p in on_path[:i]))
    q = _query('pf', m, ['via'], [(('via', target),)])
    ev = evaluate_responses('real', [q], {'pf': real['pathfinder']}, k=50)
    assert first > 5
    assert ev.per_query()['reciprocal_rank'].tolist() == [1 / first]
    assert (ev.hits[0].nonzero()[0] + 1).tolist() == [first]


def test_multinode_binding(real):
    m = real['multinode']['message']
    second = m['results'][0]['node_bindings']['on'][1]['id']
    q = _query('mn', m, ['sn'], [(('sn', m['results'][0]['node_bindings']['sn'][0]['id']),)])
    assert evaluate_responses('real', [q], {'mn': real['multinode']}, k=1).hits.tolist() == [[True]]
    assert second == 'MONDO:0005148'


def test_single_response_file_is_matched_to_its_query(real):
    m = real['molepro']['message']
    good = _query('mel', m, ['b'], [])
    other = Query('other', 'real', 't', {'message': {'query_graph': {'nodes': {'a': {'ids': ['CHEBI:1']}, 'b': {}}}}}, ['b'], [])
    assert list(load_responses(DATA/FILES['molepro'], ['other', 'mel'], [other, good])[0]) == ['mel']
    with pytest.raises(DataError, match="answers none of the benchmark's 1 queries"):
        load_responses(DATA/FILES['molepro'], ['other'], [other])


def _independent_counts(d):
    "Evaluation problems counted with plain loops over the JSON."
    m, c = d['message'], collections.Counter()
    sv = d.get('schema_version')
    old = isinstance(sv, str) and tuple(int(x) for x in sv.split('.')[:2]) < (1, 5)
    E, aux = m['knowledge_graph']['edges'], m.get('auxiliary_graphs') or {}
    qedges = set(m['query_graph'].get('edges') or {}) | set(m['query_graph'].get('paths') or {})
    for e in E.values():
        prim = sum(s.get('resource_role') == 'primary_knowledge_source' for s in e.get('sources') or [])
        c['edge.sources'] += prim != 1
        types = {a.get('attribute_type_id') for a in e.get('attributes') or []}
        if not old:
            c['edge.knowledge_level'] += 'biolink:knowledge_level' not in types
            c['edge.agent_type'] += 'biolink:agent_type' not in types
    for g in aux.values(): c['auxiliary_graph'] += sum(x not in E for x in g['edges']) + (not g['edges'])
    for r in m['results']:
        for a in r['analyses']:
            for q, b in a.get('edge_bindings', {}).items():
                c['edge_binding.qedge'] += q not in qedges
                c['edge_binding.dangling'] += sum(x['id'] not in E for x in b)
    return {k: v for k, v in c.items() if v}


@pytest.mark.parametrize('name', list(FILES))
def test_validation_counts(real, name):
    got = collections.Counter(p.code for p in validate_response(real[name], name, limit=None))
    assert dict(got) == _independent_counts(real[name])


def test_validation_counts_are_the_known_ones(real):
    got = {k: dict(collections.Counter(p.code for p in validate_response(d, k, limit=None))) for k, d in real.items()}
    assert got == {'coalesced': {'edge.knowledge_level': 618, 'edge.agent_type': 618, 'edge_binding.qedge': 345},
                   'multinode': {'edge.knowledge_level': 2, 'edge.agent_type': 2},
                   'pathfinder': {'edge.knowledge_level': 1987, 'edge.agent_type': 1987}, 'molepro': {}}


def test_cli_evaluates_one_response_file_or_refuses(benchnb_exe, tmp_path):
    "`translator evaluate BENCH one-response.json`: matched to its query (the rest missing), or one clear error line."
    import subprocess
    from benchnb.translator.config import load_config
    from benchnb.translator.queries import build_queries
    from benchnb.translator.server import demo_kg, trapi_response
    q = build_queries(load_config(), 'DrugCentral_subset')[1]
    one = tmp_path/'one.json'; one.write_text(json.dumps(trapi_response(demo_kg(), q.message)))
    run = lambda f: subprocess.run([benchnb_exe, 'translator', 'evaluate', 'DrugCentral_subset', str(f), '--no-normalize', '--out', str(tmp_path/'out')],
                                   capture_output=True, text=True, timeout=300)
    r = run(one)
    assert r.returncode == 0, r.stderr
    out = json.loads((tmp_path/'out'/'output.json').read_text())
    assert out['query_status'][q.uid] == 'answered' and out['failures']['answered'] == 1
    assert out['evaluation_options']['score_sources'] == {'analysis': 1}
    r = run(DATA/FILES['molepro'])
    assert r.returncode != 0 and "answers none of the benchmark's 5 queries" in r.stderr, r.stderr
    assert len([line for line in r.stderr.splitlines() if line.strip()]) == 1, r.stderr
