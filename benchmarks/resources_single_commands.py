"""What each single command records of its own cost (issue 29, resource accounting), on the small demo inputs the
tests use: translator fetch + evaluate (reference server on loopback, GTRx), plism extract + evaluate (synthetic
slides, vit_micro_random), cells run + scib (pbmc68k_reduced, 250 cells); then `results import` and the resources
table. Prints a Markdown table for benchmarks/RESULTS-site.md. Run: python benchmarks/resources_single_commands.py"""
import json, os, subprocess, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, 'PYTHONPATH': str(ROOT), 'BENCHNB_PROGRESS': '0'}
CMD = [sys.executable, '-c', 'import sys; from benchnb.cli import main; sys.exit(main(sys.argv[1:]))']

def run(*args):
    r = subprocess.run(CMD + [str(a) for a in args], env=ENV, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr

def main():
    import scanpy as sc
    from benchnb.plism.data import make_synthetic_slides
    from benchnb.translator.server import ReferenceServer
    from benchnb.resultsdb.db import ResultsDB
    t, rows = Path(tempfile.mkdtemp()), []
    with ReferenceServer() as srv:
        run('translator', 'fetch', 'GTRx', 'local', '--results', t/'tr', '--url', srv.url + '/query', '--run-id', 'r1')
    rd = t/'tr'/'GTRx'/'local'/'r1'
    run('translator', 'evaluate', 'GTRx', rd, '--k', '10', '--no-normalize')
    rows += [('translator fetch', 'manifest.json', json.loads((rd/'manifest.json').read_text())['resources']),
             ('translator evaluate', 'output.json', json.loads((rd/'output.json').read_text())['resources'])]
    make_synthetic_slides(t/'h5', ('GMH', 'KR'), ('S60', 'AT2'), grid=(3, 3), tile_size=48)
    run('plism', 'extract', '--extractor', 'vit_micro_random', '--download-dir', t/'h5', '--export-dir', t/'x',
        '--workers', '0', '--random-weights')
    run('plism', 'evaluate', '--extractor', 'vit_micro_random', '--features-dir', t/'x', '--metrics-dir', t/'m',
        '--n-tiles', 'all', '--top-k', '1', '3')
    rows += [('plism extract', 'manifest.json', json.loads((t/'x'/'vit_micro_random'/'manifest.json').read_text())['resources']),
             ('plism evaluate', 'manifest.json',
              json.loads((t/'m'/'9_tiles'/'vit_micro_random'/'manifest.json').read_text())['resources'])]
    a = sc.datasets.pbmc68k_reduced()[:250].copy(); a.write_h5ad(t/'pbmc.h5ad')
    run('cells', 'run', t/'pbmc.h5ad', '-e', 'X_pca,X_umap', '-l', 'bulk_labels', '--tasks', 'clustering,embedding',
        '--out', t/'cells.json')
    run('cells', 'scib', t/'pbmc.h5ad', '-e', 'X_pca', '-l', 'bulk_labels', '-b', 'phase', '--out', t/'scib.csv')
    rows += [('cells run', '-o JSON', json.loads((t/'cells.json').read_text())['resources']),
             ('cells scib', 'OUT.run.json', json.loads((t/'scib.csv.run.json').read_text())['resources'])]
    print('| command | recorded in | wall s | CPU s | peak RSS MiB | GPU peak MiB |\n|---|---|---|---|---|---|')
    for c, where, r in rows:
        print(f"| {c} | {where} | {r['wall_s']} | {r['cpu_s']} | {r['peak_rss_mb']} | {r['gpu_peak_mb'] or '–'} |")
    run('results', 'import', t/'db', rd, t/'m', t/'cells.json')
    with ResultsDB(t/'db', read_only=True) as db:
        res, u = db.resources(), db.units()
    fam = res.merge(u[['unit_id', 'family']], on='unit_id').groupby('family').size().to_dict()
    print(f"\nresources rows after `results import`: {fam} (units: {u.groupby('family').size().to_dict()})")

if __name__ == '__main__': main()
