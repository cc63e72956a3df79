"""`benchnb results site` end to end (a subprocess): a database of hostile names becomes a site with an overview and
a page per family × task, its assets and observations beside it; names stay inside the JSON, never as markup; a
missing database or a foreign folder is one line and exit status 1."""
import json, os, re, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVIL = '</script><img src=x onerror=alert(1)><!--'

def _benchnb(*args):
    env = {**os.environ, 'BENCHNB_PROGRESS': '0', 'PYTHONPATH': str(ROOT)}
    code = 'import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))'
    return subprocess.run([sys.executable, '-c', code, *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=300)

def _results(path: Path) -> Path:
    from benchnb.resultsdb.db import ResultsDB
    with ResultsDB(path) as db:
        db.begin_run('r1', {'kind': 'sweep', 'benchnb': '0.1.0', 'git': 'abc'})
        for i, model in enumerate(['m1', EVIL]):
            u = dict(unit_id=f"u{i}", family='fam', dataset=f"ds {EVIL}", model=model, task='t<1>', params={'seed': 0})
            db.record_unit('r1', u, [{'metric': f"acc{EVIL}", 'value': 0.5 + i / 10}],
                           [{'metric': f"acc{EVIL}", 'value': 0.5 + i / 10 + j / 100, 'obs_id': f"q{j}"} for j in range(6)])
            db.record_resources('r1', u['unit_id'], {'wall_s': 1.5, 'cpu_s': 1.0, 'peak_rss_mb': 50.0})
        db.finish_run('r1', 'done')
    return path

def test_site_command_writes_safe_pages(tmp_path):
    r = _benchnb('results', 'site', _results(tmp_path/'res'), '--out', tmp_path/'site', '--n-boot', '200')
    assert r.returncode == 0, r.stderr
    index = Path(r.stdout.strip().splitlines()[-1])
    assert index == tmp_path/'site'/'index.html'
    pages = sorted(p.name for p in (tmp_path/'site').glob('*.html'))
    assert len(pages) == 2 and all(re.fullmatch(r'[A-Za-z0-9_.-]+', p) for p in pages)
    page = next(p for p in (tmp_path/'site').glob('*.html') if p.name != 'index.html').read_text()
    assert '<img' not in page and '<!--' not in page and page.count('</script>') == 5   # 4 scripts + the data
    data = json.loads(re.search(r'id="benchnb-data">(.*?)</script>', page, re.S).group(1))
    assert {m['name'] for m in data['models']} == {'m1', EVIL} and data['task'] == 't<1>'
    assert len(data['intervals']) == 2 and set(data['verdicts']) == {'m1', EVIL}
    assert data['units']['u1']['cost']['wall_s'] == 1.5
    obs = tmp_path/'site'/data['units']['u1']['observations']['file']
    assert obs.exists() and 'q5' in obs.read_text()
    assert (tmp_path/'site'/'assets'/'NOTICE.md').exists() and (tmp_path/'site'/'assets'/'site.js').exists()

def test_site_command_refuses_clearly(tmp_path):
    r = _benchnb('results', 'site', tmp_path/'nothing', '--out', tmp_path/'site')
    assert r.returncode == 1 and 'no results database here' in r.stderr and 'Traceback' not in r.stderr
    (tmp_path/'mine').mkdir(); (tmp_path/'mine'/'thesis.tex').write_text('x')
    r = _benchnb('results', 'site', _results(tmp_path/'res'), '--out', tmp_path/'mine')
    assert r.returncode == 1 and 'not a benchnb site' in r.stderr
    assert (tmp_path/'mine'/'thesis.tex').read_text() == 'x' and len(list((tmp_path/'mine').iterdir())) == 1
