"The `benchnb translator` command line, run as a subprocess (what other tools see)."
import json, os, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, 'PYTHONPATH': str(ROOT), 'BENCHNB_PROGRESS': '0'}

def benchnb(*args, check=True):
    p = subprocess.run([sys.executable, '-c', 'import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))', *map(str, args)],
                       capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=120)
    if check: assert p.returncode == 0, p.stderr
    return p

EXPECTED = {'ameliorates': 22, 'treats': 22, 'DrugCentral_subset': 5, 'DrugCentral_creative': 50, 'three_hop': 67,
            'drug_treats_rare_disease': 70, 'CPIC': 278, 'GTRx': 50, 'OOPD': 50, 'RareDisease': 50}

def test_queries_all_664():
    total = 0
    for bench, n in EXPECTED.items():
        recs = [json.loads(l) for l in benchnb('translator', 'queries', bench).stdout.splitlines()]
        assert len(recs) == n, bench
        assert len({r['uid'] for r in recs}) == n
        for r in recs:
            assert set(r) == {'uid', 'query', 'relevant'}
            assert r['relevant'] and all(a == sorted(a) for a in r['relevant'])
            assert 'query_graph' in r['query']['message']
        total += n
    assert total == 664

def test_queries_three_hop_multi_slot():
    recs = [json.loads(l) for l in benchnb('translator', 'queries', 'three_hop').stdout.splitlines()]
    first = recs[0]
    assert first['uid'] == 'DrugMechDB.three_hop.MESH:D000865.MESH:D012223'
    assert first['relevant'] == [[['BiologicalProcess', 'GO:0034776'], ['Protein', 'UniProt:P35367']]]
    nodes = first['query']['message']['query_graph']['nodes']
    assert nodes['Drug']['ids'] == ['MESH:D000865'] and nodes['Disease']['ids'] == ['MESH:D012223']
    assert 'ids' not in nodes['Protein']

def test_queries_bad_config_is_one_line_error(tmp_path):
    (tmp_path/'benchmarks.json').write_text('{"b": [{"source": "nope", "templates": ["t"]}]}')
    p = benchnb('translator', 'queries', 'b', '--config', tmp_path, check=False)
    assert p.returncode == 1 and p.stdout == ''
    assert p.stderr.startswith('benchnb: error: ') and "field 'b[0].source'" in p.stderr and len(p.stderr.splitlines()) == 1

def test_serve_command_answers_on_loopback():
    import socket, time, requests
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]
    p = subprocess.Popen([sys.executable, '-c', 'import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))',
                          'translator', 'serve', '--port', str(port), '--fail-first', '1', '--fail-kind', '429', '--retry-after', '3',
                          '--trapi-version', '2.0', '--min-timeout', '30', '--max-body', '4000'],
                         env=ENV, cwd=ROOT, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try: mkg = requests.get(url + '/meta_knowledge_graph', timeout=2).json(); break
            except requests.RequestException: time.sleep(0.1)
        else: raise AssertionError('serve did not start')
        assert 'biolink:treats' in {e['predicate'] for e in mkg['edges']}
        q = json.loads(benchnb('translator', 'queries', 'DrugCentral_subset').stdout.splitlines()[0])['query']
        first, second = (requests.post(url + '/query', json=q, timeout=10) for _ in range(2))
        assert (first.status_code, first.headers['Retry-After']) == (429, '3')
        assert second.status_code == 200 and second.json()['message']['results']
        assert set(next(iter(second.json()['message']['results'][0]['node_bindings'].values()))) == {'ids'}   # TRAPI 2.0 shape
        short = requests.post(url + '/query', json={**q, 'parameters': {'timeout': 10}}, timeout=10)
        assert short.status_code == 409 and 'cannot answer within 10 s' in short.text
        big = requests.post(url + '/query', json={**q, 'padding': 'x' * 4000}, timeout=10)
        assert big.status_code == 413 and "over the server's limit of 4000 bytes" in big.text
    finally:
        p.terminate(); p.wait(10)
