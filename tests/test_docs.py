"Build the docs site offline and check, in headless Chromium, that pages render."
import functools, html, http.server, json, re, shutil, subprocess, sys, threading
from pathlib import Path
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
import build_docs

def chromium() -> str:
    for c in ['chromium', 'chromium-browser', 'google-chrome']:
        if shutil.which(c): return shutil.which(c)
    pytest.fail("headless Chromium is required for the docs test: run `make chromium` (Debian package `chromium`)")

def built_site(site_dir: Path, demo: Path) -> Path:
    """`build_docs.build` in its own interpreter: nbdev runs the notebooks' defining cells in-process (in `__main__`),
    which would re-register families, unit kinds and loggers under `__main__` for every later test of this session."""
    code = "import sys; from pathlib import Path; import build_docs; print(build_docs.build(Path(sys.argv[1]), demo_dir=Path(sys.argv[2])))"
    r = subprocess.run([sys.executable, '-c', code, str(site_dir), str(demo)], capture_output=True, text=True,
                       cwd=Path(build_docs.__file__).parent, timeout=1200)
    assert r.returncode == 0, r.stderr[-3000:]
    return Path(r.stdout.strip().splitlines()[-1])

@pytest.fixture(scope='module')
def site(tmp_path_factory):
    from benchnb.report import run_report
    demo = tmp_path_factory.mktemp('demo')
    run_report('core', {'n_values': 20}, demo)                           # one demo report to link (5 s)
    site_dir = built_site(tmp_path_factory.mktemp('site'), demo)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site_dir))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield site_dir, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()

def browse(url: str, shot: Path) -> str:
    "Rendered DOM of `url` after JavaScript, and a screenshot into `shot`."
    args = [chromium(), '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--hide-scrollbars']
    dom = subprocess.run(args + ['--dump-dom', url], capture_output=True, text=True, timeout=120).stdout
    subprocess.run(args + [f'--screenshot={shot}', '--window-size=1280,900', url], capture_output=True, timeout=120)
    return dom

def not_blank(png: Path) -> bool:
    from PIL import Image
    import numpy as np
    px = np.asarray(Image.open(png).convert('L'), dtype=float)
    return px.std() > 10 and (px < 128).mean() > 0.005     # some dark ink on the page, not a flat colour

def family_page(site_dir: Path) -> str:
    pages = sorted(p.name for p in site_dir.glob('*.html') if p.name[:1] in '123')
    return pages[0] if pages else '00_core.html'

def test_every_notebook_has_a_page(site):
    site_dir, _ = site
    root = Path(build_docs.ROOT)
    for nb in (root/'nbs').glob('*.ipynb'):
        assert (site_dir/('index.html' if nb.stem == 'index' else f'{nb.stem}.html')).exists(), nb.name

@pytest.mark.parametrize('which', ['index', 'family'])
def test_page_renders_in_chromium(site, which, tmp_path):
    site_dir, base = site
    page = 'index.html' if which == 'index' else family_page(site_dir)
    dom = browse(f"{base}/{page}", tmp_path/'shot.png')
    assert 'md-nav--primary' in dom, f"{page}: navigation missing"
    assert '404' not in dom.split('<title>')[1].split('</title>')[0], f"{page}: error page"
    assert 'benchnb' in dom
    assert not_blank(tmp_path/'shot.png'), f"{page}: screenshot is blank"

def test_api_docs_and_hidden_cells(site):
    site_dir, _ = site
    html = (site_dir/'00a_results.html').read_text()
    assert 'MetricResult' in html and 'aggregation_key' in html       # show_doc of an exported class
    assert 'from fastcore.test import' not in html                     # #| hide cells are hidden
    assert 'nbdev_export' not in html
    page = (site_dir/'00a_results.html').read_text()
    assert '<img' in page                                               # plots are rendered as images
    img = page.split('<img', 1)[1].split('src="', 1)[1].split('"', 1)[0]
    assert (site_dir/img).stat().st_size > 1000


def pages(site_dir: Path) -> dict[str, str]:
    "name → HTML of every content page (the search index and 404 page aside)."
    return {p.name: p.read_text(encoding='utf-8') for p in site_dir.glob('*.html') if p.name != '404.html'}

def article(page: str) -> str:
    "The visible text of a page's article (navigation and scripts aside)."
    body = page.split('<article', 1)[-1].split('</article>', 1)[0]
    text = html.unescape(re.sub(r'<[^>]+>', ' ', re.sub(r'<(script|style)\b.*?</\1>', ' ', body, flags=re.S)))
    return re.sub(r'[ \t]+', ' ', text)

def links(page: str) -> list[str]:
    "The href/src of every element of `page` (parsed, so a quoted `href=` inside code is not a link)."
    from html.parser import HTMLParser
    found = []
    class P(HTMLParser):
        def handle_starttag(self, tag, attrs): found.extend(v for k, v in attrs if k in ('href', 'src') and v)
    P().feed(page)
    return found

def test_no_raw_markup(site):
    site_dir, _ = site
    for name, page in pages(site_dir).items():
        text = article(page)
        for raw in ['{target=', 'target="_blank"', ':::']:
            assert raw not in text, f"{name}: raw markup {raw!r} shown as text"
        # Pandoc/Quarto attributes such as {.callout-note} or {.unnumbered}; a Python `{...}` in code is fine
        assert not (m := re.search(r'\{\.[A-Za-z]', text)), f"{name}: raw markup {m[0]!r} shown as text"
        assert not re.search(r'(?m)^\s*#\|\s*(export|hide|default_exp|eval|echo|output)\b', text), f"{name}: nbdev directive shown"

def test_no_show_doc_leaks(site):
    site_dir, _ = site
    for name, page in pages(site_dir).items():
        assert 'showdoc.py#L' not in page, f"{name}: links nbdev's own show_doc source"
        assert not re.search(r'<h\d[^>]*>\s*show_doc\b', page), f"{name}: renders nbdev's show_doc docstring"
    ev = pages(site_dir)['13_translator.evaluate.html']
    assert re.search(r'<h3[^>]*>\s*Evaluation\.curves', ev)                    # patched methods under their class

def test_summaries_whole_and_titles_readable(site):
    site_dir, _ = site
    root = Path(build_docs.ROOT)
    for nb in (root/'nbs').glob('*.ipynb'):
        page = pages(site_dir)['index.html' if nb.stem == 'index' else f'{nb.stem}.html']
        title = re.search(r'<h1[^>]*>(.*?)<', page, re.S)[1].strip()
        assert not title.endswith(('.plugin', '.cli')), f"{nb.name}: page titled {title!r}"
        cells = json.loads(nb.read_text(encoding='utf-8'))['cells']
        head = next((''.join(c['source']) for c in cells if c['cell_type'] == 'markdown' and ''.join(c['source']).startswith('# ')), '')
        quote = ' '.join(l.lstrip('>').strip() for l in head.splitlines()[1:] if l.startswith('>'))
        if not quote: continue
        shown = re.search(r'<blockquote>(.*?)</blockquote>', page, re.S)
        assert shown, f"{nb.name}: no summary"
        text = re.sub(r'\s+', ' ', html.unescape(re.sub(r'<[^>]+>', '', shown[1]))).strip()
        plain = re.sub(r'[`*]', '', re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', quote))      # as rendered: no link targets
        assert text.rstrip('.)').endswith(plain.rstrip('.)')[-25:]), f"{nb.name}: summary cut: {text!r}"

def dead_targets(site_dir: Path) -> list[tuple[str, str]]:
    "(page, link) for every href/src of every page (404 and copied reports included) whose file or #anchor is missing."
    from html.parser import HTMLParser
    from urllib.parse import unquote
    ids, found = {}, {}
    class P(HTMLParser):
        def __init__(self): super().__init__(); self.ids, self.links = set(), []
        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if a.get('id'): self.ids.add(a['id'])
            if tag == 'a' and a.get('name'): self.ids.add(a['name'])
            self.links += [v for k, v in attrs if k in ('href', 'src') and v]
    for f in site_dir.rglob('*.html'):
        p = P(); p.feed(f.read_text(encoding='utf-8')); ids[f.resolve()], found[f] = p.ids, p.links
    dead = []
    for f, hrefs in found.items():
        for href in hrefs:
            if re.match(r'^(https?:|mailto:|data:|javascript:)', href): continue
            path, _, frag = href.partition('#')
            target = (f.parent/unquote(path.split('?')[0])).resolve() if path else f.resolve()
            if not target.exists() or (frag and target.suffix == '.html' and not {frag, unquote(frag)} & ids[target]):
                dead.append((str(f.relative_to(site_dir)), href))
    return dead

def test_links_resolve(site):
    "A crawl of the built site: every link and anchor resolves (109 dead anchors and 47 root-absolute links in 404.html before)."
    site_dir, _ = site
    for name, page in pages(site_dir).items():
        assert not any('benchnb.github.io/benchnb/' in l for l in links(page)), f"{name}: links the unpublished site"
    dead = dead_targets(site_dir)
    assert not dead, f"{len(dead)} dead links, e.g. {dead[:5]}"

def test_crawl_sees_a_dead_anchor(tmp_path):
    (tmp_path/'a.html').write_text('<h2 id="x">x</h2><a href="#x">ok</a><a href="b.html#y">no</a><a href="c.html">no</a>')
    (tmp_path/'b.html').write_text('<h2 id="z">z</h2>')
    assert dead_targets(tmp_path) == [('a.html', 'b.html#y'), ('a.html', 'c.html')]

def outputs_text(page: str) -> str:
    "The text of a page's saved cell outputs (`<div class=\"nb-output\">`, written by build_docs), not its code."
    from html.parser import HTMLParser
    class P(HTMLParser):
        depth, parts = 0, []
        def handle_starttag(self, tag, attrs):
            if tag == 'div' and (self.depth or 'nb-output' in (dict(attrs).get('class') or '')): self.depth += 1
        def handle_endtag(self, tag):
            if tag == 'div' and self.depth: self.depth -= 1
        def handle_data(self, data):
            if self.depth: self.parts.append(data)
    p = P(); p.parts = []; p.feed(page)
    return ' '.join(p.parts)

def test_saved_outputs_are_clean(site):
    "No warning, interpreter path or temporary run directory in what a page shows from a saved output."
    site_dir, _ = site
    assert 'FutureWarning' not in outputs_text('<div class="highlight">FutureWarning</div><div class="nb-output"><p>ok</p></div>')
    for name, page in pages(site_dir).items():
        text = outputs_text(page)
        for bad in [r'\w+Warning: ', r'site-packages', r'/tmp/', r'pytest-of-', r'/private/var/folders']:
            assert not (m := re.search(bad, text)), f"{name}: {text[max(0, m.start() - 80):m.end() + 40]!r}"

def test_user_text_has_no_internal_jargon(site):
    site_dir, _ = site
    for name, page in pages(site_dir).items():
        for jargon in ['spec §', 'our seed', 'our specs', 'the seed:', '§7.']:
            assert jargon not in article(page), f"{name}: {jargon!r}"

def test_api_headings_and_tables_read_right(site):
    site_dir, _ = site
    tasks = re.sub(r'\s+', '', article(pages(site_dir)['21_cells.tasks.html']))          # highlighted code: tokens apart
    assert 'classDataType(str,Enum)' in tasks and 'defDataType(' not in tasks and 'EMBEDDING' in tasks
    assert 'classCellDataset(' in tasks
    rep = pages(site_dir)['reports.html']
    assert not re.search(r'<th[^>]*>\s*</th>', rep), "an unlabelled column in the Reports page's parameter tables"
    ref = article(pages(site_dir)['cli-reference.html'])
    assert '-h, --help' in ref and not re.search(r'(?m)^\s+--help\s', ref), "the CLI shows -h, --help"

def test_howtos_show_their_report(site):
    site_dir, _ = site
    for fam in ['translator', 'cells', 'plism']:
        page = pages(site_dir)[f'howto-{fam}.html']
        img = re.search(rf'<img[^>]*src="(img/report-{fam}.png)"', page)
        assert img and (site_dir/img[1]).stat().st_size > 10_000, f"howto-{fam}: no picture of the report"

def test_cli_reference_has_every_command(site):
    import typer
    from benchnb.cli import build_app
    site_dir, _ = site
    ref = article(pages(site_dir)['cli-reference.html'])
    def names(cmd, path):
        yield ' '.join(path)
        ctx = cmd.context_class(cmd, info_name=path[-1])
        for n in (cmd.list_commands(ctx) if hasattr(cmd, 'list_commands') else []): yield from names(cmd.get_command(ctx, n), path + [n])
    cmds = list(names(typer.main.get_command(build_app()), ['benchnb']))
    assert len(cmds) > 15
    for c in cmds: assert f'Usage: {c} ' in ref, f"{c} missing from the CLI reference"

def test_howtos_and_demo_reports_linked(site):
    site_dir, _ = site
    for fam in ['translator', 'cells', 'plism']:
        text = article(pages(site_dir)[f'howto-{fam}.html'])
        assert f'benchnb report {fam}' in text and 'Run it on your model' in text
    rep = pages(site_dir)['reports.html']
    assert 'href="reports/core.html"' in rep and (site_dir/'reports'/'core.html').exists()
    for name in ['core', 'translator', 'cells', 'plism']: assert f'benchnb report {name}' in article(rep)

def test_cells_pages_show_a_plot(site):
    site_dir, _ = site
    assert any('<img' in p for n, p in pages(site_dir).items() if n.startswith('2') and 'cells' in n)


def test_wide_tables_and_long_commands_fit_the_page(site):
    "Wide tables scroll inside the page and code blocks wrap instead of being cut at the content width (issue 30)."
    site_dir, _ = site
    css = (site_dir/'assets'/'extra.css').read_text()
    assert 'table:not([class]){display:block;max-width:100%;overflow-x:auto' in css
    assert 'pre>code{white-space:pre-wrap' in css and '.md-grid{max-width:min(96vw,100rem)}' in css
