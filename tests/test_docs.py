"Build the docs site offline and check, in headless Chromium, that pages render."
import functools, http.server, shutil, subprocess, sys, threading
from pathlib import Path
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'tools'))
import build_docs

def chromium() -> str:
    for c in ['chromium', 'chromium-browser', 'google-chrome']:
        if shutil.which(c): return shutil.which(c)
    pytest.fail("headless Chromium is required for the docs test: run `make chromium` (Debian package `chromium`)")

@pytest.fixture(scope='module')
def site(tmp_path_factory):
    site_dir = build_docs.build(tmp_path_factory.mktemp('site'))
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
