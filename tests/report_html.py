"What every report HTML must be for a reader: checks shared by the tests/test_*_report.py files."
import re
from pathlib import Path

def text_of(page: str) -> str:
    "The visible text of an HTML page (scripts and styles dropped)."
    body = re.sub(r'<(script|style)\b.*?</\1>', ' ', page, flags=re.S)
    return re.sub(r'\s+', ' ', re.sub(r'<[^>]+>', ' ', body))

def check_report_html(path: Path, *private: str) -> str:
    "Assert the report at `path` is reader-ready: offline, summary first, code hidden, no noise or private paths."
    page = Path(path).read_text(encoding='utf-8'); text = text_of(page)
    assert not re.search(r'<(script|link|img)\b[^>]*(src|href)="(https?:)?//', page), "loads something from the network"
    assert not re.search(r'class="[^"]*jp-InputArea-editor', page), "code cells are shown"
    assert page.count('<summary>Parameters</summary>') == 1, "parameters not shown exactly once"
    heads = re.findall(r'<h([12])[^>]*>(.*?)<', page)
    assert heads[0][0] == '1' and heads[1][1].strip() == 'Summary', f"report does not open with a summary: {heads[:3]}"
    for noise in ['Warning:', 'warnings.warn', 'IPKernelApp', 'Traceback', 'it/s]', 's/it]']:
        assert noise not in text, f"{noise!r} in the report"
    assert not re.search(r'\d+%\|', text), "progress-bar residue in the report"
    for p in private: assert str(p) not in page, f"absolute path {p} in the report"
    return text


# What a reader sees, in headless Chromium: a script added at the end of a copy of the page measures the rendered
# layout and colours and writes its findings into the DOM, which `--dump-dom` returns.
_TRAP = '<script>window.__benchnb_alerts = 0; window.alert = window.confirm = window.prompt = () => { window.__benchnb_alerts++; };</script>'
_PROBE = r"""<script>
(() => {
  const W = document.documentElement.clientWidth, lum = c => {
    const v = c.match(/[\d.]+/g).slice(0, 3).map(x => x / 255).map(x => x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4);
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const contrast = (a, b) => { const [h, l] = [lum(a), lum(b)].sort((x, y) => y - x); return (h + 0.05) / (l + 0.05); };
  // wider than the page and not in a box made to scroll (benchnb.html's tables and figures): cut off for a reader
  const wide = [...document.querySelectorAll('table, img, pre')].filter(e =>
    e.getBoundingClientRect().width > 0 && e.getBoundingClientRect().right > W + 1 && !e.closest('.benchnb-table'))
    .map(e => e.tagName + ': ' + e.textContent.trim().slice(0, 40));
  const coloured = [...document.querySelectorAll('td')].filter(td => getComputedStyle(td).backgroundColor.startsWith('rgb('));
  const worst = Math.min(99, ...coloured.map(td => contrast(getComputedStyle(td).color, getComputedStyle(td).backgroundColor)));
  const figs = [...document.querySelectorAll('img[data-text-px]')].map(i =>
    parseFloat(i.dataset.textPx) * i.getBoundingClientRect().width / parseFloat(i.getAttribute('width')));
  const r = {minFigureTextPx: Math.min(99, ...figs), scriptsRan: window.__benchnb_alerts || 0, pageWidth: W, scrollWidth: document.documentElement.scrollWidth, wide: wide, colouredCells: coloured.length,
             minContrast: worst};
  const out = document.createElement('pre'); out.id = 'benchnb-probe'; out.textContent = JSON.stringify(r);
  document.body.appendChild(out);
})();
</script>"""

def chromium() -> str:
    import shutil, pytest
    for c in ['chromium', 'chromium-browser', 'google-chrome']:
        if shutil.which(c): return shutil.which(c)
    pytest.fail("headless Chromium is required for the report checks: run `make chromium` (Debian package `chromium`)")

CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--hide-scrollbars',
                 '--disable-background-networking', '--no-first-run', '--window-size=1280,900']

def read_in_browser(path: Path, tmp: Path, screenshot: bool=True) -> dict:
    "Open the report at `path` in headless Chromium at 1280 px: layout/colour findings, visible text, a screenshot."
    import json, subprocess
    page = Path(path).read_text(encoding='utf-8')
    probe = Path(tmp)/f'probe_{Path(path).name}'
    head = re.search(r'<head[^>]*>', page)
    probe.write_text(page[:head.end()] + _TRAP + page[head.end():].replace('</body>', _PROBE + '</body>', 1), encoding='utf-8')
    args = [chromium(), *CHROMIUM_ARGS, f'--user-data-dir={Path(tmp)/"chromium-profile"}']
    dom = subprocess.run(args + ['--dump-dom', probe.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    found = re.search(r'<pre id="benchnb-probe">(.*?)</pre>', dom, re.S)
    assert found, f"{path}: the layout probe did not run in Chromium"
    import html as html_
    r = json.loads(html_.unescape(found[1]))
    if screenshot:
        shot = Path(tmp)/f'{Path(path).stem}.png'
        subprocess.run(args + [f'--screenshot={shot}', probe.as_uri()], capture_output=True, timeout=120)
        r['screenshot'] = shot
    # the runner's Parameters block echoes the values given (an absolute --config path, say): benchnb.report's, not
    # the report's own output, so it is left out of what the checks below read
    r['text'] = text_of(re.sub(r'<details>\s*<summary>Parameters</summary>.*?</details>', ' ', dom.replace(found[0], ''), flags=re.S))
    return r

RAW_REPR = re.compile(r'jp-OutputArea-executeResult" data-mime-type="text/plain"[^>]*>\s*<pre>')   # a cell's value shown as its repr
PRINTED = re.compile(r'jp-OutputArea-output" data-mime-type="text/plain"[^>]*>\s*<pre>')            # print() lines
ABSOLUTE = re.compile(r'(?<![\w.:/-])/(?:tmp|home|root|work|usr|var|opt|private|Users)/')
TEMP = re.compile(r'/tmp/|pytest-of-|tmp[a-z0-9_]{8}')

def check_reader_view(path: Path, tmp: Path, *private: str, prints: bool=True) -> dict:
    "What a reader sees at 1280 px: no raw reprs (nor print lines unless `prints`), no absolute or temp paths, nothing wider than the page, readable heat-table numbers."
    page = Path(path).read_text(encoding='utf-8')
    if not prints and (m := PRINTED.search(page)): raise AssertionError(f"{path.name}: a printed line: {page[m.end():m.end() + 80]!r}")
    assert not re.search(r'<script[^>]*>\s*alert|<[a-z]+\b[^>]*\son[a-z]+=', page), f"{path.name}: markup from a name runs as script"
    for m in RAW_REPR.finditer(page):
        tail = page[m.end():m.end() + 80]
        raise AssertionError(f"{path.name}: a raw Python repr as an output line: {tail!r}")
    r = read_in_browser(path, tmp)
    assert r['scriptsRan'] == 0, f"{path.name}: a script from a name ran in the browser"
    assert not (m := ABSOLUTE.search(r['text'])), f"{path.name}: absolute path shown: {r['text'][m.start() - 40:m.end() + 40]!r}"
    assert not (m := TEMP.search(r['text'])), f"{path.name}: temp path shown: {r['text'][m.start() - 40:m.end() + 40]!r}"
    for p in private: assert str(p) not in r['text'], f"{path.name}: {p} shown"
    assert r['scrollWidth'] <= r['pageWidth'] + 1, f"{path.name}: the page scrolls sideways ({r['scrollWidth']} > {r['pageWidth']} px)"
    assert not r['wide'], f"{path.name}: wider than the page and not in a scrolling box: {r['wide']}"
    assert r['minFigureTextPx'] >= 10, f"{path.name}: text in a figure {r['minFigureTextPx']:.1f} px high"
    assert r['minContrast'] >= 4.5, f"{path.name}: heat-table text contrast {r['minContrast']:.2f} < 4.5 (WCAG AA)"
    return r
