"Write a TRAPI OpenAPI-style YAML (components.schemas) from pydantic models: argv[1] = 'rp' (reasoner-pydantic, TRAPI 1.5) or 'tom2' (translator_tom v2_0)."
import json, sys, yaml
kind, out = sys.argv[1], sys.argv[2]
if kind == 'rp':
    from reasoner_pydantic import Response, Query, AsyncQuery
    models, version = {'Response': Response, 'Query': Query, 'AsyncQuery': AsyncQuery}, '1.5.0'
else:
    from translator_tom.v2_0.models.response import Response
    from translator_tom.v2_0.models.query import Query
    models, version = {'Response': Response, 'Query': Query}, '2.0.0'
comps = {}
for name, m in models.items():
    s = m.model_json_schema(ref_template='#/components/schemas/{model}', mode='validation')
    comps.update(s.pop('$defs', {})); comps[name] = s
# RV validates components by name (Message, KnowledgeGraph, ...): they are all here now
text = json.dumps(comps)
yaml.safe_dump({'openapi': '3.0.1', 'info': {'title': f'TRAPI {version} generated from pydantic models', 'version': version,
                'x-trapi': {'version': version}}, 'paths': {}, 'components': {'schemas': json.loads(text)}}, open(out, 'w'), sort_keys=False)
print(out, len(comps), sorted(comps)[:50])
