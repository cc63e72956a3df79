"""Compare benchnb's TRAPI checks (`translator.validate`) with reasoner-validator's verdicts, offline.

Inputs: the four real agent responses in tests/data/translator-real-responses, and the reference server's answers
(over HTTP) to the first two queries of every shipped benchmark plus a pathfinder query, in TRAPI 1.5 and 2.0 mode.
Verdicts:
  * benchnb: `validate_response` problems by code;
  * reasoner-validator 4.3.1 (TRAPI 1.5) and 7.0.0 (TRAPI 2.0), each in its side venv, run offline by
    benchmarks/translator_validator_rv.py against local schema stand-ins (see that file and RESULTS-translator.md);
  * schema models: reasoner-pydantic 6.0.0 (TRAPI 1.5, this venv) and translator_tom 2.2.0 `v2_0` (TRAPI 2.0, side venv).

    python benchmarks/translator_validator_compare.py [--out benchmarks/translator-validator-compare.json]
"""
import argparse, collections, json, subprocess, sys, tempfile
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT/'tests'/'data'/'translator-real-responses'
VENVS = Path('/work/venvs')
SCHEMAS = VENVS/'reasoner-validator'/'schemas'
RV = {'1.5': VENVS/'reasoner-validator-4'/'bin'/'python', '2.0': VENVS/'reasoner-validator'/'bin'/'python'}
TOM = VENVS/'translator-tom'/'bin'/'python'
TOM_CHECK = """import json, sys
from pydantic import ValidationError
from translator_tom.v2_0.models.response import Response
out = {}
for f in sys.argv[1:]:
    try: Response.model_validate(json.load(open(f))); out[f] = []
    except ValidationError as e: out[f] = sorted({'.'.join(str(x) for x in err['loc'][:4]) + ': ' + err['msg'][:60] for err in e.errors()})[:5]
print(json.dumps(out))"""


def server_responses(tmp: Path) -> dict[str, tuple[str, Path]]:
    "The reference server's answers (1.5 and 2.0 mode), written to `tmp`: name -> (TRAPI version, file)."
    from benchnb.translator.config import load_config
    from benchnb.translator.queries import build_queries
    from benchnb.translator.server import ReferenceServer, demo_kg
    cfg, kg, out = load_config(), demo_kg(), {}
    bodies = {f"{b}[{i}]": q.message for b in cfg.benchmarks for i, q in enumerate(build_queries(cfg, b)[:2])}
    e = kg.edges[0]
    path = lambda v: {'subject': 's', 'object': 'o', 'predicates': ['biolink:related_to'], **({'constraints': []} if v == '1.5' else {})}
    pathfinder = lambda v: {'message': {'query_graph': {'nodes': {'s': {'ids': [e.subject]}, 'o': {'ids': [e.object]}}, 'paths': {'p0': path(v)}}}}
    for v in ('1.5', '2.0'):                          # TRAPI 1.5 requires QPath.constraints (may be empty); 2.0 a non-empty list or none
        with ReferenceServer(kg, trapi_version=v) as srv:
            for name, body in {**bodies, 'pathfinder': pathfinder(v)}.items():
                r = requests.post(srv.url + '/query', json=body, timeout=60); r.raise_for_status()
                p = tmp/f"server-{v}-{name.replace('[', '_').replace(']', '')}.json"; p.write_text(r.text)
                out[f"server {v} {name}"] = (v, p)
    return out


def side(python: Path, *args: str) -> dict:
    r = subprocess.run([str(python), *args], capture_output=True, text=True, timeout=3000)
    if r.returncode: raise SystemExit(f"{python} failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(out: Path):
    from benchnb.translator.validate import validate_response
    from pydantic import ValidationError
    from reasoner_pydantic import Response as Response15
    tmp = Path(tempfile.mkdtemp())
    files = {f"real {p.stem}": ('1.5', p) for p in sorted(REAL.glob('*.json'))}
    files.update(server_responses(tmp))
    rv = {}
    for v in ('1.5', '2.0'):
        paths = [str(p) for ver, p in files.values() if ver == v]
        rv.update(side(RV[v], str(ROOT/'benchmarks'/'translator_validator_rv.py'), str(SCHEMAS), f"{v}.0", *paths))
    tom = side(TOM, '-c', TOM_CHECK, *[str(p) for ver, p in files.values() if ver == '2.0'])
    rows = []
    for name, (v, p) in files.items():
        resp = json.loads(p.read_text())
        ours = dict(collections.Counter(x.code for x in validate_response(resp, name, limit=None)))
        if v == '1.5':
            try: Response15.model_validate(resp); schema = []
            except ValidationError as e: schema = sorted({'.'.join(str(x) for x in err['loc'][:4]) for err in e.errors()})[:5]
        else: schema = tom[str(p)]
        verdict = rv[str(p)]
        rows.append({'file': name, 'trapi': v, 'benchnb': ours, 'schema_model': schema,
                     'rv_critical_error': verdict.get('critical', []) + verdict.get('error', []) + verdict.get('crash', []),
                     'rv_warning': verdict.get('warning', [])})
    out.write_text(json.dumps(rows, indent=1))
    for r in rows:
        kl_ours = 'edge.knowledge_level' in r['benchnb']
        kl_rv = any('knowledge_level.missing' in w for w in r['rv_warning'] + r['rv_critical_error'])
        print(f"| {r['file']} | {r['trapi']} | {', '.join(f'{k} {n}' for k, n in r['benchnb'].items()) or 'clean'} | "
              f"{'valid' if not r['schema_model'] else 'INVALID'} | {', '.join(c.split('.', 1)[1] for c in r['rv_critical_error']) or 'none'} | "
              f"{'agree' if kl_ours == kl_rv else 'DIFFER'} |")


if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--out', type=Path, default=ROOT/'benchmarks'/'translator-validator-compare.json')
    main(ap.parse_args().out)
