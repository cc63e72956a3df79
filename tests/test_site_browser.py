"""The leaderboard site in a real browser: headless Debian Chromium driven by Playwright, from file:// with every
other request refused. A weight re-ranks the rows (as `rank_models` does in Python), filters hide rows, raw/scaled
toggles, provenance opens, names stay text, the CSV downloads, and the console stays clean."""
import json, os, shutil
from pathlib import Path
import pytest

pw = pytest.importorskip('playwright.sync_api', reason="pip install playwright (benchnb[dev]) for the browser test")

FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
         '--no-first-run', '--disable-dev-shm-usage']
EVIL = '</script><b>evil<!--'
VALUES = {('a', 'd1'): (0.8, 0.4), ('a', 'd2'): (0.6, 0.5), ('b', 'd1'): (0.5, 0.9), ('b', 'd2'): (0.7, None),
          ('control-random', 'd1'): (0.2, 0.1), ('control-random', 'd2'): (0.2, 0.3),
          ('control-oracle', 'd1'): (1.0, 1.0), ('control-oracle', 'd2'): (0.9, 0.8), (EVIL, 'd1'): (0.3, 0.3)}

def chromium() -> str:
    for c in ('/usr/bin/chromium', shutil.which('chromium') or '', shutil.which('chromium-browser') or ''):
        if c and os.path.exists(c): return c
    pytest.fail("headless Chromium is required for the site test: run `make chromium` (Debian package `chromium`)")

def toy_results(path: Path) -> Path:
    "Two models, one with a hostile name, and the two controls of family `sitetoy` on two datasets."
    from benchnb.resultsdb.db import ResultsDB
    from benchnb.resultsdb.site import register_control, register_metric_groups
    register_control('sitetoy', 'control-random', 'negative'); register_control('sitetoy', 'control-oracle', 'positive')
    register_metric_groups('sitetoy', lambda m, p: 'bio' if m.startswith('b') else 'batch')
    with ResultsDB(path) as db:
        db.begin_run('r1', {'kind': 'sweep', 'benchnb': '0.1.0', 'git': 'abc123', 'packages': {'numpy': '2.0'}})
        for (model, ds), (bio, batch) in VALUES.items():
            u = dict(unit_id=f"{model}-{ds}", family='sitetoy', dataset=ds, model=model, task='t', params={'seed': 0})
            ms = [{'metric': 'bari', 'value': bio}] + ([{'metric': 'ilisi', 'value': batch}] if batch is not None else [])
            obs = [{'metric': 'bari', 'value': bio + i / 10, 'obs_id': f'q{i}'} for i in range(8)]
            db.record_unit('r1', u, ms, obs)
            db.record_resources('r1', u['unit_id'], {'wall_s': 2.0, 'cpu_s': 3.0, 'peak_rss_mb': 100.0})
        db.finish_run('r1', 'done')
    return path

@pytest.fixture(scope='module')
def site(tmp_path_factory):
    from benchnb.resultsdb.site import write_site, slug
    tmp = tmp_path_factory.mktemp('site')
    write_site(toy_results(tmp/'results'), tmp/'site', families=['sitetoy'], n_boot=200)
    return tmp/'site', tmp/'site'/f"{slug('sitetoy', 't')}.html"

@pytest.fixture(scope='module')
def browser():
    with pw.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), args=FLAGS)
        yield b
        b.close()

@pytest.fixture
def page(browser):
    "A page that records console errors and refuses (and records) every request that is not file://."
    ctx = browser.new_context(viewport={'width': 1400, 'height': 1000}, accept_downloads=True)
    pg = ctx.new_page()
    pg.errors, pg.external = [], []
    pg.on('console', lambda m: pg.errors.append(m.text) if m.type == 'error' else None)
    pg.on('pageerror', lambda e: pg.errors.append(str(e)))
    def route(r):
        if r.request.url.startswith('file://'): return r.continue_()
        pg.external.append(r.request.url)
        r.abort()
    ctx.route('**/*', route)
    yield pg
    ctx.close()

def opened(pg, url: Path, renders: int=1):
    pg.goto(url.as_uri())
    pg.wait_for_function(f"Number(document.body.dataset.renders || 0) >= {renders}", timeout=15000)
    pg.wait_for_timeout(100)

def rendered(pg, n: int): pg.wait_for_function(f"Number(document.body.dataset.renders) >= {n}", timeout=15000)

def models_in_table(pg) -> list[str]:
    return pg.eval_on_selector_all('#leaderboard .tabulator-row .tabulator-cell[tabulator-field="model"]',
                                   'cells => cells.map(c => c.textContent)')

def cell(pg, model: str, field: str) -> str:
    return pg.evaluate("""([m, f]) => { const r = [...document.querySelectorAll('#leaderboard .tabulator-row')]
        .find(r => r.querySelector('[tabulator-field="model"]').textContent === m);
        return r ? r.querySelector(`[tabulator-field="${f}"]`).textContent : null; }""", [model, field])

def python_ranking(**options) -> list[str]:
    from benchnb.resultsdb.site import RankOptions, rank_models, control_roles
    import pandas as pd
    rows = [(m, d, k, v) for (m, d), vs in VALUES.items() for k, v in zip(('bari', 'ilisi'), vs) if v is not None]
    cells = pd.DataFrame(rows, columns=['model', 'dataset', 'key', 'value']).assign(metric=lambda t: t.key)
    r = rank_models(cells, control_roles('sitetoy'), {'bari': 'bio', 'ilisi': 'batch'}, RankOptions(**options))
    return [m for m, k in zip(r.model, r['rank']) if k == k]

def test_overview_links_the_page(site, page):
    root, lb = site
    opened(page, root/'index.html', renders=0)
    page.wait_for_selector('#overview a')
    assert page.eval_on_selector('#overview a', 'a => a.getAttribute("href")') == lb.name
    assert page.errors == [] and page.external == []

def test_weights_filters_scale_provenance_and_download(site, page, tmp_path):
    root, lb = site
    shots = Path(os.environ.get('BENCHNB_SITE_SHOTS') or tmp_path)    # where to keep the screenshots to look at
    shots.mkdir(parents=True, exist_ok=True)
    opened(page, lb)
    ranked = lambda: [m['model'] for m in page.evaluate('window.benchnbSite.ranking') if m['rank']]
    assert ranked() == python_ranking() == ['a']                       # b and the evil name miss a result: excluded
    assert page.locator('#leaderboard b').count() == 0                 # the hostile name is text, not markup
    assert EVIL in models_in_table(page)
    # raw <-> scaled: a's bio column is the mean of its control-scaled scores, then of its raw scores
    assert cell(page, 'a', 'm0') == f"{(0.75 + 0.4 / 0.7) / 2:.3f}"
    page.select_option('#scale', 'raw'); rendered(page, 2)
    assert cell(page, 'a', 'm0') == '0.700'
    page.select_option('#scale', 'controls'); rendered(page, 3)
    # filter a dataset out: b is complete on d1 and leads; a weight on bio re-ranks the rows
    page.locator('#datasets input[value="d2"]').uncheck(); rendered(page, 4)
    assert models_in_table(page)[:2] == ['b', 'a'] and ranked()[:2] == python_ranking(datasets=['d1'])[:2] == ['b', 'a']
    page.fill('input[data-group="bio"]', '5'); rendered(page, 5)
    assert models_in_table(page)[:2] == ['a', 'b']
    assert ranked()[:2] == python_ranking(datasets=['d1'], group_weights={'bio': 5})[:2] == ['a', 'b']
    assert '5·bio' in page.text_content('#formula')
    page.fill('input[data-metric="bari"]', '0'); rendered(page, 6)               # a metric's weight: only ilisi counts
    assert ranked()[:2] == python_ranking(datasets=['d1'], metric_weights={'bari': 0})[:2] == ['b', 'a']
    page.fill('input[data-metric="bari"]', '1'); rendered(page, 7)
    page.locator('#datasets input[value="d2"]').check(); page.select_option('#missing', 'last'); rendered(page, 9)
    assert ranked() == python_ranking(missing='last', group_weights={'bio': 5}) == ['a', 'b', EVIL]  # incomplete last
    page.select_option('#missing', 'exclude'); page.locator('#datasets input[value="d2"]').uncheck(); rendered(page, 11)
    page.screenshot(path=str(shots/'weighted.png'), full_page=True)
    # filters hide rows: a model unticked, then a name typed
    page.locator('#models label[data-name="a"] input').uncheck(); rendered(page, 12)
    assert 'a' not in models_in_table(page)
    page.fill('#model-filter', 'evil'); rendered(page, 13)
    assert [m for m in models_in_table(page) if not m.startswith('control')] == [EVIL]
    page.fill('#model-filter', ''); page.locator('#models label[data-name="a"] input').check(); rendered(page, 15)
    # provenance one click away
    row = page.locator('#leaderboard .tabulator-row').filter(has=page.locator('[tabulator-field="model"]', has_text='b')).first
    row.locator('button.prov').click()
    dialog = page.locator('dialog#provenance')
    assert dialog.is_visible()
    text = dialog.text_content()
    assert 'abc123' in text and '0.1.0' in text and 'numpy' in text and '8 observations (CSV)' in text
    href = dialog.locator('a').first.get_attribute('href')
    assert (root/href).exists() and 'q7' in (root/href).read_text()
    page.screenshot(path=str(shots/'provenance.png'))
    dialog.locator('button.close').click()
    # the CSV of the table shown
    with page.expect_download() as dl: page.click('#download')
    csv = Path(dl.value.path()).read_text()
    assert csv.splitlines()[0].startswith('"rank","model","aggregate"') and '"b"' in csv
    assert page.errors == [] and page.external == [] and page.evaluate('window.benchnbSite.errors') == []
