"""The demo leaderboard site in headless Chromium, for benchmarks/RESULTS-site.md: the ranking before and after
changing weights, a control-scaled table, a provenance card, screenshots, and the site's load time and size.

    python benchmarks/site_demo_note.py reports/out/sweep/results reports/out/site  > note.md

Reads the results database (Python side: `rank_models`, `scaled_cells`) and drives the site written from it
(page side), with every request that is not file:// refused; screenshots go to docs/img/site-*.png.
"""
import json, re, sys, time
from pathlib import Path

from playwright.sync_api import sync_playwright

from benchnb.family import load_families
from benchnb.resultsdb.db import ResultsDB
from benchnb.resultsdb.site import RankOptions, control_roles, rank_models, scaled_cells, site_tables, slug

FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
         '--no-first-run']
ROOT = Path(__file__).resolve().parents[1]


def page_data(page: Path) -> dict:
    return json.loads(re.search(r'id="benchnb-data">(.*?)</script>', page.read_text(), re.S).group(1))


def table_md(df) -> str:
    cols = list(df.columns)
    rows = ['| ' + ' | '.join(cols) + ' |', '|' + '---|' * len(cols)]
    rows += ['| ' + ' | '.join('—' if v != v or v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))
                               for v in r) + ' |' for r in df.itertuples(index=False)]
    return '\n'.join(rows)


def main(results: str, site: str):
    load_families()
    site, out = Path(site), []
    with ResultsDB(results, read_only=True) as db: cells, units = site_tables(db, 'cells')
    with ResultsDB(results, read_only=True) as db: tcells, _ = site_tables(db, 'translator')
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path='/usr/bin/chromium', args=FLAGS)
        ctx = b.new_context(viewport={'width': 1400, 'height': 900})
        external, errors = [], []
        ctx.route('**/*', lambda r: r.continue_() if r.request.url.startswith('file://')
                  else (external.append(r.request.url), r.abort()))
        pg = ctx.new_page()
        pg.on('console', lambda m: errors.append(m.text) if m.type == 'error' else None)
        pg.on('pageerror', lambda e: errors.append(str(e)))
        loads = {}
        for f in sorted(site.glob('*.html')):
            t0 = time.perf_counter()
            pg.goto(f.resolve().as_uri())
            if f.name != 'index.html': pg.wait_for_function("Number(document.body.dataset.renders || 0) >= 1")
            else: pg.wait_for_selector('#overview a')
            loads[f.name] = time.perf_counter() - t0
        # 1. cells clustering: the README screenshot
        cl = site/f"{slug('cells', 'clustering')}.html"
        pg.goto(cl.resolve().as_uri()); pg.wait_for_function("Number(document.body.dataset.renders) >= 1")
        pg.screenshot(path=str(ROOT/'docs'/'img'/'site-leaderboard.png'))
        row = pg.locator('#leaderboard .tabulator-row').first
        model = row.locator('[tabulator-field="model"]').text_content()
        row.locator('button.prov').click()
        pg.locator('dialog#provenance').wait_for()
        card = pg.evaluate("() => [...document.querySelectorAll('dialog#provenance dt')]"
                           ".map(dt => dt.textContent + ': ' + dt.nextElementSibling.textContent).join('\\n')")
        pg.screenshot(path=str(ROOT/'docs'/'img'/'site-provenance.png'))
        # 2. translator: weights changed re-rank the targets
        tr = site/f"{slug('translator', 'evaluate')}.html"
        pg.goto(tr.resolve().as_uri()); pg.wait_for_function("Number(document.body.dataset.renders) >= 1")
        before = pg.evaluate('window.benchnbSite.ranking')
        data = page_data(tr)
        groups = sorted({m['group'] for m in data['metrics']})
        n = 1
        for g in groups:
            if g != 'ndcg_at_k':
                pg.fill(f'input[data-group="{g}"]', '0'); n += 1
                pg.wait_for_function(f"Number(document.body.dataset.renders) >= {n}")
        after = pg.evaluate('window.benchnbSite.ranking')
        formula = pg.text_content('#formula')
        pg.screenshot(path=str(ROOT/'docs'/'img'/'site-weights.png'))
        b.close()
    gw = {g: (1 if g == 'ndcg_at_k' else 0) for g in groups}
    tgroups = {m['key']: m['group'] for m in data['metrics']}
    py_before = rank_models(tcells, control_roles('translator'), tgroups)
    py_after = rank_models(tcells, control_roles('translator'), tgroups, RankOptions(group_weights=gw))
    # 3. control-scaled table: cells clustering
    c = cells[cells.task == 'clustering'].reset_index(drop=True)
    roles = control_roles('cells')
    t = c[['model', 'dataset', 'key', 'value']].assign(
        minmax=scaled_cells(c, roles, 'minmax').values, controls=scaled_cells(c, roles, 'controls').values,
        role=[roles.get(m, '') for m in c.model]).rename(columns={'key': 'metric', 'value': 'raw'})
    out += ['## Weights changed re-rank the Translator targets (controls-scaled, missing: exclude)', '',
            'Page ranking with every weight 1: ' + ', '.join(f"{r['rank']}. {r['model']} ({r['aggregate']:.3f})"
                                                           for r in before if r['rank']),
            '', 'After setting every group weight to 0 except `ndcg_at_k` (1): '
            + ', '.join(f"{r['rank']}. {r['model']} ({r['aggregate']:.3f})" for r in after if r['rank']), '',
            'Python `rank_models` on the same database, same choices: before '
            + ', '.join(f"{m} ({a:.3f})" for m, a, k in zip(py_before.model, py_before['aggregate'], py_before['rank']) if k == k)
            + '; after ' + ', '.join(f"{m} ({a:.3f})" for m, a, k in zip(py_after.model, py_after['aggregate'], py_after['rank']) if k == k),
            '', 'The formula the page shows after the change:', '', '```text', formula.strip(), '```', '',
            '## Control-scaled table: cells, clustering (pbmc68k_reduced, labels bulk_labels)', '',
            table_md(t.sort_values(['metric', 'role', 'model'])), '',
            f'## Provenance card ({model}, cells clustering; the dialog\'s text)', '', '```text', card.strip(), '```', '',
            '## Screenshots', '', '- docs/img/site-leaderboard.png (cells clustering page, the README image)',
            '- docs/img/site-provenance.png (its provenance card open)',
            '- docs/img/site-weights.png (translator page, weights changed)', '',
            '## Load and size', '',
            'Time from navigation to the first full render, per page (headless Chromium, file://): '
            + ', '.join(f"{k} {v:.2f} s" for k, v in loads.items()), '',
            f"Site size: {sum(f.stat().st_size for f in site.rglob('*') if f.is_file()) / 1e6:.2f} MB "
            f"({sum(f.stat().st_size for f in (site/'assets').rglob('*') if f.is_file()) / 1e6:.2f} MB of it assets).",
            f"Console errors: {errors or 'none'}; requests that were not file://: {external or 'none'}."]
    print('\n'.join(out))


if __name__ == '__main__': main(*sys.argv[1:3])
