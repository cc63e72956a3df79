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
