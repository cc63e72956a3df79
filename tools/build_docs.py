"""Build benchnb's docs site offline from the notebooks, and README.md from nbs/index.ipynb.

Quarto is not needed: nbdev's own notebook processing (`nbdev.serve.proc_nbs`: front matter, show_doc for every
exported name, hidden cells removed) produces `_proc/`; each processed notebook becomes a Markdown page with its
rendered outputs (tables, plots as PNG files); mkdocs-material builds the static site.

    python tools/build_docs.py            # site in _site/
    python tools/build_docs.py --readme   # only regenerate README.md
    python tools/build_docs.py --check-readme   # exit 1 if README.md is not what index.ipynb gives

Besides one page per notebook the site has a generated CLI reference (every command's `--help`), the how-to pages
of `docs/` ("run it on your model", one per family) and a Reports page linking the demo reports (`make demo` first;
the HTML files of `reports/out/` are copied into the site).
"""
from __future__ import annotations
import argparse, ast, base64, configparser, functools, html, os, re, shutil, subprocess, sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
DIRECTIVE = re.compile(r'^\s*#\|\s*([\w-]+)\s*:?\s*(.*)$')
ANSI = re.compile(r'\x1b\[[0-9;]*[A-Za-z]')
# nbdev writes show_doc's source link with Quarto's attribute syntax, which Python-Markdown leaves as literal text
SOURCE_LINK = re.compile(r'\[source\]\(([^)\s]+)\)\{target="_blank"[^}]*\}')

def settings() -> configparser.SectionProxy:
    cfg = configparser.ConfigParser(); cfg.read(ROOT/'settings.ini'); return cfg['DEFAULT']

def page_names() -> dict[str, str]:
    "nbdev's doc page name (`results.html`, what its cross-reference links use) → the page this build writes."
    return {re.sub(r'^\d+[a-z]?_', '', p.stem) + '.html': ('index' if p.stem == 'index' else p.stem) + '.html'
            for p in (ROOT/'nbs').glob('*.ipynb')}

def fix_markup(md: str, pages: dict[str, str]) -> str:
    "Source links as HTML links; cross-reference links to the published site turned into links to this site's pages."
    md = SOURCE_LINK.sub(r'<a class="source-link" href="\1" target="_blank" rel="noopener">source</a>', md)
    md = md.replace('#LNone"', '"')                      # nbdev finds no line for an Enum: link the file
    base = re.escape(settings()['doc_host'].rstrip('/') + settings()['doc_baseurl'].rstrip('/') + '/')
    return re.sub(base + r'([\w.\-]+\.html)', lambda m: pages.get(m[1], m[0]), md)

def full_summary(stem: str) -> str|None:
    "The whole `> summary` of notebook `stem` (nbdev's front matter keeps only its first line)."
    src = ROOT/'nbs'/f'{stem}.ipynb'
    if not src.exists(): return None
    for cell in nbformat.read(src, as_version=4).cells:
        if cell.cell_type == 'markdown' and cell.source.lstrip().startswith('# '):
            lines = cell.source.strip().splitlines()[1:]
            quote = [l.lstrip('>').strip() for l in lines[:next((i for i, l in enumerate(lines) if not l.startswith('>')), len(lines))]]
            return ' '.join(quote) or None
    return None

def page_title(title: str) -> str:
    "Readable titles for the command-line modules (`translator.cli` → `translator command line`)."
    if title.endswith('.cli'): return f"{title.split('.')[0]} command line"
    return 'benchnb command line' if title == 'cli' else title

def split_directives(src: str):
    "Directive dict and the remaining source of a code cell."
    directives, lines = {}, src.splitlines()
    while lines and DIRECTIVE.match(lines[0]):
        k, v = DIRECTIVE.match(lines.pop(0)).groups(); directives[k] = v.strip()
    return directives, '\n'.join(lines).strip('\n')

def front_matter(cell) -> dict:
    m = re.match(r'^---\n(.*?)\n---', cell.source, re.S)
    return yaml.safe_load(m.group(1)) if m else {}

# A warning as Python prints it (`/path/to/module.py:12: SomeWarning: text`, then the source line) and the folders a
# notebook run leaves in its outputs (temporary directories, the interpreter's site-packages)
WARNING = re.compile(r'^\S*(\.py|>):\d+: \w*Warning: .*(\n  .*)?$', re.M)
TEMP_DIR = re.compile(r'(/private)?/(tmp|var/folders)/[\w./-]*?(tmp\w+|pytest-\d+/[\w-]+)/')
SITE_PACKAGES = re.compile(r'/\S*/site-packages/')

def clean_text(text: str) -> str:
    "Saved output text without warnings, temporary run directories or interpreter paths (a reader's page)."
    text = WARNING.sub('', ANSI.sub('', text))
    return SITE_PACKAGES.sub('', TEMP_DIR.sub('…/', text))

def as_output(md: str) -> str:
    "Markdown of a cell output inside `<div class='nb-output'>` (md_in_html), so a page tells outputs from code."
    return f'<div class="nb-output" markdown="1">\n\n{md}\n\n</div>'

def output_md(out, page: str, img_dir: Path, counter: list, asis: bool) -> str:
    "Markdown for one cell output; images are written to `img_dir`."
    kind = out.get('output_type')
    if kind == 'stream':
        text = clean_text(out.get('text', '')).strip('\n')
        return as_output(f"```text\n{text}\n```") if text.strip() else ''
    if kind == 'error': return as_output(f"```text\n{ANSI.sub('', chr(10).join(out.get('traceback', [])))}\n```")
    data = out.get('data', {})
    if 'image/png' in data:
        counter[0] += 1; name = f"{page}_{counter[0]}.png"
        img_dir.mkdir(parents=True, exist_ok=True)
        (img_dir/name).write_bytes(base64.b64decode(data['image/png']))
        return f"![]({img_dir.name}/{name})"
    if 'text/markdown' in data: return as_output(clean_text(data['text/markdown']))
    if 'text/html' in data: return f'<div class="nb-output">\n{clean_text(data["text/html"])}\n</div>'
    if 'text/plain' in data: return as_output(f"```text\n{clean_text(data['text/plain'])}\n```")
    return ''

def notebook_md(nb_path: Path, img_dir: Path, with_outputs: bool=True) -> tuple[str, str]:
    "(title, markdown) of a processed notebook."
    nb = nbformat.read(nb_path, as_version=4)
    parts, title, counter = [], nb_path.stem, [0]
    for cell in nb.cells:
        if cell.cell_type == 'raw':
            fm = front_matter(cell)
            if fm:
                title = page_title(fm.get('title', title))
                desc = full_summary(nb_path.stem) or fm.get('description')
                parts.append(f"# {title}\n\n> {desc}" if desc else f"# {title}")
            continue
        if cell.cell_type == 'markdown':
            if 'AUTOGENERATED' in cell.source: continue
            parts.append(cell.source); continue
        d, src = split_directives(cell.source)
        if 'hide' in d or d.get('include') == 'false': continue
        if src and d.get('echo') != 'false' and 'hide_input' not in d: parts.append(f"```python\n{src}\n```")
        if with_outputs and d.get('output') != 'false':
            for out in cell.get('outputs', []):
                md = output_md(out, nb_path.stem.replace('.', '_'), img_dir, counter, d.get('output') == 'asis')
                if md: parts.append(md)
    return title, fix_markup('\n\n'.join(p for p in parts if p.strip()) + '\n', page_names())

def readme_text() -> str:
    "README.md content: nbs/index.ipynb's prose and code (no outputs), without hidden cells."
    nb = nbformat.read(ROOT/'nbs'/'index.ipynb', as_version=4)
    parts = []
    for cell in nb.cells:
        if cell.cell_type == 'markdown': parts.append(cell.source)
        elif cell.cell_type == 'code':
            d, src = split_directives(cell.source)
            if 'hide' in d or not src: continue
            lang = 'bash' if src.startswith('!') else 'python'
            parts.append(f"```{lang}\n{src.lstrip('!') if lang == 'bash' else src}\n```")
    return '<!-- Generated from nbs/index.ipynb by tools/build_docs.py --readme; edit the notebook, not this file. -->\n\n' + '\n\n'.join(parts) + '\n'

def family_names() -> list[str]:
    "The families, in the order of their notebooks (`1x_translator.…` first): the `NN_family.module` names."
    out = []
    for p in sorted((ROOT/'nbs').glob('*.ipynb')):
        prefix, _, module = p.stem.partition('_')
        if '.' in module and prefix[:1] not in '04' and (f := module.split('.')[0]) not in out: out.append(f)
    return out

@functools.cache
def family_titles() -> dict[str, str]:
    "Each family's name in headings (its `Family.title`, 'PLISM'), from the registry."
    from benchnb.core import load_plugins
    from benchnb.family import families
    load_plugins()
    return {n: families[n].title if n in families else n.title() for n in family_names()}

def nav_section(stem: str) -> str:
    "The nav section of a notebook: its family (`1x_translator.…` → Translator, any new family too), else by number."
    if stem == 'index': return ''
    prefix, _, module = stem.partition('_')
    family = module.split('.')[0]
    if '.' in module and prefix[:1] not in '04': return family_titles().get(family, family.title())
    return {'0': 'Core', '9': 'CLI'}.get(prefix[:1], 'More')

def _only_defining_cells(cell):
    "Like nbdev's `_do_eval`, but a test cell that also imports something is not run for the docs (only its saved outputs are shown)."
    from nbdev import processors as P
    if P.cell_lang(cell) != 'python' or not cell.source or 'nbdev_export'+'()' in cell.source: return
    trees = cell.parsed_()
    if cell.cell_type != 'code' or not trees: return
    if cell.directives_.get('eval:', [''])[0].lower() == 'false': return
    if cell.directives_.keys() & {'export', 'exports', 'exporti', 'exec_doc'}: return True
    if P._ast_contains(trees, (ast.Import, ast.ImportFrom)) and not P._ast_contains(trees, (ast.Expr, ast.Assign)): return True
    if P._show_docs(trees): return True

def _patch_name(o):
    "nbdev's `patch_name`, also for fastcore's `patch` imported under another name (`from fastcore.basics import patch as fastcore_patch`)."
    from nbdev import doclinks
    for d in getattr(o, 'decorator_list', []):
        name = d.func if isinstance(d, ast.Call) else d          # `@fastcore_patch` and `@fastcore_patch(as_prop=True)`
        if isinstance(name, ast.Name) and name.id.endswith('_patch'): name.id = 'patch'
    return doclinks._nbdev_patch_name(o)

def _class_heading(md: str, o) -> str:
    "fastcore writes every signature as `def …`: a class as `class …`, an Enum with its bases and members."
    import enum, inspect
    if not inspect.isclass(o): return md
    if issubclass(o, enum.Enum):
        bases = ', '.join(b.__name__ for b in o.__bases__)
        members = ', '.join(f'`{m.name}`' for m in o)
        return re.sub(r'```python\n.*?\n```', lambda _: f'```python\nclass {o.__name__}({bases})\n```\n\nMembers: {members}.',
                      md, count=1, flags=re.S)
    return md.replace('```python\ndef ', '```python\nclass ', 1)

def _patch_show_doc():
    "show_doc's renderer with class headings (in-process: `proc_nbs(n_workers=0)`)."
    from nbdev import showdoc
    R = showdoc.BasicMarkdownRenderer
    if getattr(R, '_benchnb_patched', False): return
    orig = R._repr_markdown_
    R._repr_markdown_ = lambda self: _class_heading(orig(self), self.sym)
    R._benchnb_patched = True

def cli_reference() -> str:
    "Markdown of every `benchnb` command's help, generated from the Typer app."
    import typer, typer.core
    from benchnb.cli import build_app
    typer.core.HAS_RICH = False                       # click's plain help: complete at any width, no ANSI
    def walk(cmd, path, parent=None):
        settings = {**cmd.context_settings, 'terminal_width': 100, 'max_content_width': 100}   # `-h, --help` as the CLI shows
        ctx = cmd.context_class(cmd, info_name=path[-1], parent=parent, **settings)
        yield path, cmd, ctx
        for name in (cmd.list_commands(ctx) if hasattr(cmd, 'list_commands') else []):
            yield from walk(cmd.get_command(ctx, name), path + [name], ctx)
    parts = ['# Command-line reference', '> Every `benchnb` command and its options, generated from the command itself '
             '(`benchnb … --help` prints the same).']
    for path, cmd, ctx in walk(typer.main.get_command(build_app()), ['benchnb']):
        parts.append(f"{'#' * min(len(path) + 1, 4)} `{' '.join(path)}`\n\n```text\n{cmd.get_help(ctx).rstrip()}\n```")
    return '\n\n'.join(parts) + '\n'

def reports_page(docs: Path, demo_dir: Path) -> str:
    "Markdown of the Reports page; the demo reports found in `demo_dir` are copied beside it and linked."
    from benchnb.core import load_plugins
    from benchnb.report import report_parameters, reports
    load_plugins()
    parts = ['# Reports', '> Parametrised notebooks that run a whole benchmark and export one self-contained HTML page, '
             'opening with a summary: `benchnb report NAME -p key=value`; `make demo` runs them all on demo data.']
    for name in reports.names():
        info, link = reports[name], ''
        if (demo_dir/f'{name}.html').exists():
            (docs/'reports').mkdir(exist_ok=True); shutil.copy(demo_dir/f'{name}.html', docs/'reports'/f'{name}.html')
            link = f"\n\n[The demo report]({'reports/' + name + '.html'}) (run with its demo parameters)."
        cell = lambda t: html.escape(str(t)).replace('|', '\\|')
        rows = '\n'.join(f"| `{k}` | `{str(v['default']).replace('|', '/')}` | {cell(v['help'])} |" for k, v in report_parameters(name).items() if k != 'output_dir')
        parts.append(f"## {name}\n\n{info.description}.{link}\n\n```bash\nbenchnb report {name} -o reports/out\n```\n\n"
                     f"| parameter | default | meaning |\n|---|---|---|\n{rows}")
    if not any((demo_dir/f'{n}.html').exists() for n in reports.names()):
        parts.append('!!! note\n    No demo reports were found in `reports/out/`: run `make demo`, then `make docs`, to link them here.')
    return '\n\n'.join(parts) + '\n'

def page_ids(site_dir: Path) -> dict[Path, set[str]]:
    "The element ids of every page of the built site (the targets an in-page link can name)."
    return {p.resolve(): set(re.findall(r'\sid="([^"]+)"', p.read_text(encoding='utf-8'))) for p in site_dir.rglob('*.html')}

LINK = re.compile(r'<a href="([^"#:]*\.html|)#([^"]+)"([^>]*)>(.*?)</a>', re.S)

def fix_anchors(site_dir: Path) -> int:
    """Links to an anchor a page lacks: nbdev links every backticked name, private helpers included, but only
    documented names get a heading; a method's anchor is `class.method` where the heading's id is `classmethod`.
    Point the link at the heading where one exists, else keep the name as plain code. Returns the links unlinked."""
    ids, dropped = page_ids(site_dir), 0
    for page in site_dir.rglob('*.html'):
        def fix(m):
            nonlocal dropped
            target = (page.parent/m[1]).resolve() if m[1] else page.resolve()
            have = ids.get(target, set())
            if m[2] in have: return m[0]
            if (alt := m[2].replace('.', '')) in have: return f'<a href="{m[1]}#{alt}"{m[3]}>{m[4]}</a>'
            dropped += 1
            return m[4]
        text = page.read_text(encoding='utf-8')
        if (new := LINK.sub(fix, text)) != text: page.write_text(new, encoding='utf-8')
    return dropped

def relative_404(site_dir: Path):
    "mkdocs writes 404.html with root-absolute links (`/assets/…`), which break under a sub-path or from a file: relative."
    p = site_dir/'404.html'
    if p.exists(): p.write_text(re.sub(r'((?:href|src)=")/(?!/)', r'\1', p.read_text(encoding='utf-8')), encoding='utf-8')

def family_reports() -> list[str]:
    "The reports the families registered (`fam.report`), in the families' order."
    from benchnb.family import families
    family_titles()                                   # loads the families' cli modules, which register the reports
    return [r for f in family_names() if f in families for r in families[f].reports]

def report_screenshots(demo_dir: Path, names=None, width: int=1280, height: int=1000) -> list[Path]:
    "Screenshot the top of each family's demo report (headless Chromium, 1280 px) into docs/img/report-NAME.png."
    from PIL import Image
    chromium = next(filter(None, map(shutil.which, ['chromium', 'chromium-browser', 'google-chrome'])), None)
    if not chromium: sys.exit("headless Chromium is needed for --screenshots: run `make chromium`")
    out = []
    for name in names or family_reports():
        page, shot = Path(demo_dir)/f'{name}.html', ROOT/'docs'/'img'/f'report-{name}.png'
        if not page.exists(): continue
        shot.parent.mkdir(exist_ok=True)
        subprocess.run([chromium, '--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--no-first-run',
                        '--disable-background-networking', f'--window-size={width},{height}', f'--screenshot={shot}',
                        page.resolve().as_uri()], check=True, capture_output=True, timeout=120)
        im = Image.open(shot).convert('RGB')
        im.resize((width * 3 // 4, height * 3 // 4), Image.LANCZOS).quantize(128).save(shot, optimize=True)
        out.append(shot)
    return out

def howto_pages() -> list[tuple[str, Path]]:
    "Every `docs/howto-*.md` (a family adds its own), labelled by its title after 'Run it on your model: '."
    order = {f: i for i, f in enumerate(family_names())}
    pages = sorted((ROOT/'docs').glob('howto-*.md'), key=lambda p: (order.get(p.stem[6:], 9), p.stem))
    title = lambda p: p.read_text(encoding='utf-8').splitlines()[0].lstrip('# ').split(': ', 1)[-1].split(' (')[0]
    return [(title(p)[:1].upper() + title(p)[1:], p) for p in pages]

def build(site_dir: Path, proc: bool=True, demo_dir: Path|None=None) -> Path:
    from nbdev import doclinks, processors, showdoc
    from nbdev.serve import proc_nbs
    processors._do_eval = _only_defining_cells       # in-process (n_workers=0) so the patch applies
    if not hasattr(doclinks, '_nbdev_patch_name'): doclinks._nbdev_patch_name = doclinks.patch_name
    doclinks.patch_name = showdoc.patch_name = _patch_name
    _patch_show_doc()
    cache = proc_nbs(n_workers=0, force=True, skip_folder_re=r'^(reports|[_.].*)$') if proc else ROOT/'_proc'
    docs = ROOT/'_docs'
    shutil.rmtree(docs, ignore_errors=True); (docs/'assets').mkdir(parents=True)
    nav, sections = [{'Home': 'index.md'}], {}
    for nb in sorted(Path(cache).glob('*.ipynb')):
        title, md = notebook_md(nb, docs/'img')
        page = 'index.md' if nb.stem == 'index' else f"{nb.stem}.md"
        md = md.replace('](docs/img/', '](img/')      # README's repository-relative images: the site copies them to img/
        (docs/page).write_text(md, encoding='utf-8')
        if page != 'index.md': sections.setdefault(nav_section(nb.stem), []).append({title: page})
    (docs/'cli-reference.md').write_text(cli_reference(), encoding='utf-8')
    sections.setdefault('CLI', []).insert(0, {'Command-line reference': 'cli-reference.md'})
    (docs/'reports.md').write_text(reports_page(docs, Path(demo_dir or ROOT/'reports'/'out')), encoding='utf-8')
    howtos = []
    if (ROOT/'docs'/'img').exists():
        (docs/'img').mkdir(exist_ok=True)
        for png in (ROOT/'docs'/'img').glob('*.png'): shutil.copy(png, docs/'img'/png.name)
    for label, page in howto_pages():
        shutil.copy(page, docs/page.name); howtos.append({label: page.name})
    nav += [{'Run it on your model': howtos}, {'Reports': 'reports.md'}]
    known = ['Core', 'CLI'] + [family_titles()[f] for f in family_names()]
    for sec in known + sorted(set(sections) - set(known) - {'More'}) + ['More']:
        if sec in sections: nav.append({sec: sections[sec]})
    (docs/'assets'/'extra.css').write_text(
        '.nb-output{overflow-x:auto;margin:0 0 1em}.nb-output table{font-size:.75rem}\n'
        '.source-link{float:right;font-size:smaller}\n'
        # issue 30: wide tables (the scIB table's Total column) and long commands fit a 1400 px window
        '.md-grid{max-width:min(96vw,100rem)}\n'
        '.md-typeset table:not([class]){display:block;max-width:100%;overflow-x:auto;font-size:.7rem}\n'
        '.md-typeset pre>code{white-space:pre-wrap;overflow-wrap:anywhere}\n', encoding='utf-8')
    cfg = {'site_name': 'benchnb', 'site_description': 'Jupyter-first model benchmarks', 'docs_dir': str(docs),
           'site_dir': str(site_dir), 'use_directory_urls': False, 'nav': nav,
           'theme': {'name': 'material', 'features': ['navigation.sections', 'navigation.top', 'search.highlight'],
                     'palette': {'primary': 'teal'}},
           'plugins': ['search'], 'extra_css': ['assets/extra.css'],
           'markdown_extensions': ['admonition', 'tables', 'md_in_html', 'pymdownx.superfences',
                                   {'toc': {'permalink': True}}, {'pymdownx.highlight': {'use_pygments': True}}]}
    cfg_path = ROOT/'mkdocs.yml'
    cfg_path.write_text('# Generated by tools/build_docs.py\n' + yaml.safe_dump(cfg, sort_keys=False), encoding='utf-8')
    env = {**os.environ, 'NO_MKDOCS_2_WARNING': '1'}
    subprocess.run([sys.executable, '-m', 'mkdocs', 'build', '--quiet', '-f', str(cfg_path)], check=True, cwd=ROOT, env=env)
    fix_anchors(Path(site_dir)); relative_404(Path(site_dir))
    return site_dir

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--site-dir', default=str(ROOT/'_site'))
    ap.add_argument('--readme', action='store_true', help='only regenerate README.md')
    ap.add_argument('--check-readme', action='store_true', help='fail if README.md differs from nbs/index.ipynb')
    ap.add_argument('--demo-dir', default=str(ROOT/'reports'/'out'), help='folder of the demo reports to link (make demo)')
    ap.add_argument('--screenshots', action='store_true', help="only re-shoot docs/img/report-*.png from the demo reports")
    a = ap.parse_args()
    if a.screenshots: print(*report_screenshots(Path(a.demo_dir)), sep='\n'); sys.exit(0)
    if a.check_readme:
        ok = (ROOT/'README.md').read_text(encoding='utf-8') == readme_text()
        print('README.md is in step with nbs/index.ipynb' if ok else 'README.md differs from nbs/index.ipynb: run make readme')
        sys.exit(0 if ok else 1)
    (ROOT/'README.md').write_text(readme_text(), encoding='utf-8')
    if not a.readme: print(build(Path(a.site_dir), demo_dir=Path(a.demo_dir)))
