"""Run reasoner-validator OFFLINE on TRAPI response files and print {file: {level: [codes]}} as JSON.

Runs inside a side virtualenv holding reasoner-validator (never benchnb's), e.g.

    /work/venvs/reasoner-validator-4/bin/python benchmarks/translator_validator_rv.py SCHEMAS 1.5.0 FILE...   # RV 4.3.1, TRAPI 1.5
    /work/venvs/reasoner-validator/bin/python   benchmarks/translator_validator_rv.py SCHEMAS 2.0.0 FILE...   # RV 7.0.0, TRAPI 2.0

reasoner-validator fetches the TRAPI schema from GitHub, the Biolink model (and bmt's predicate map) from GitHub and
pings standards.ncats.io; none is reachable here. SCHEMAS is a folder with local stand-ins (see
benchmarks/RESULTS-translator.md for how they are made):
  trapi_1.5.0.yaml, trapi_2.0.0.yaml   TRAPI OpenAPI components, generated from reasoner-pydantic 6.0.0 (TRAPI 1.5) and
                                       translator_tom 2.2.0 (`translator_tom.v2_0`, TRAPI 2.0.0) pydantic models
  predicate_mapping.yaml               the Biolink predicate map bundled in translator_tom 2.2.0 (Biolink 4.4.4)
The Biolink model itself is the `biolink-model` 4.4.6 package installed beside reasoner-validator, whatever version
a response declares.
"""
import json, sys, types
from pathlib import Path


def patch_offline(schemas: Path):
    import reasoner_validator.trapi as RT
    import reasoner_validator.biolink as RB
    from bmt import Toolkit
    from importlib.resources import files
    RT.TRAPISchemaValidator._validation_metadata_checked = True          # no ping to standards.ncats.io
    load = RT._load_schema
    RT.load_schema = lambda target: load(str(schemas/f"trapi_{target.lstrip('v')[:3]}.0.yaml"))
    biolink = str(files('biolink_model.schema').joinpath('biolink_model.yaml'))
    pmap = str(schemas/'predicate_mapping.yaml')
    import bmt, bmt.toolkit
    if getattr(bmt.toolkit, '_load_predicate_map', None) is None:         # bmt 1.4 always GETs the map: serve the local one
        text = Path(pmap).read_text()
        bmt.toolkit.requests = types.SimpleNamespace(get=lambda *a, **k: types.SimpleNamespace(text=text))
    tk = Toolkit(biolink, predicate_map=pmap)
    for mod in [m for name, m in sys.modules.items() if name.startswith('reasoner_validator')]:
        if hasattr(mod, 'get_biolink_model_toolkit'): mod.get_biolink_model_toolkit = lambda biolink_version=None, **kw: tk
    if hasattr(RB, 'get_biolink_schema'):
        schema = RB.get_biolink_schema.__wrapped__(None) if hasattr(RB.get_biolink_schema, '__wrapped__') else None
        if schema is not None: RB.get_biolink_schema = lambda biolink_version=None: schema


def codes(messages) -> dict[str, list[str]]:
    "{level: sorted codes} from reasoner-validator's nested message catalogue."
    out = {}
    def walk(d):
        for k, v in d.items():
            if k in ('critical', 'error', 'warning', 'info', 'skipped'): out.setdefault(k, []).extend(v if isinstance(v, list) else list(v))
            elif isinstance(v, dict): walk(v)
    walk(messages)
    return {k: sorted(v) for k, v in out.items()}


def main(schemas: str, version: str, *files: str):
    patch_offline(Path(schemas))
    from reasoner_validator.validator import TRAPIResponseValidator
    out = {}
    for f in files:
        v = TRAPIResponseValidator(trapi_version=version)
        v.trapi_version, v.default_trapi = version, False
        if hasattr(v, 'default_biolink'): v.default_biolink = False
        try:
            v.check_compliance_of_trapi_response(response=json.loads(Path(f).read_text()))
            out[f] = codes(v.get_all_messages())
        except Exception as e:                                            # a crash of the validator is a verdict too
            out[f] = {'crash': [f"{type(e).__name__}: {str(e)[:200]}"]}
    print(json.dumps(out))


if __name__ == '__main__': main(*sys.argv[1:])
