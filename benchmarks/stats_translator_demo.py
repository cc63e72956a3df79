"""Is the Translator demo's difference real? `reference` against `reference-shuffled` (the same answers, scores
shuffled), and two identical runs of `reference`, judged by `benchnb results compare` / `diff`.

Starts the two local reference TRAPI targets (loopback), fetches BENCHMARKS from each — `reference` twice, into two
separate runs — evaluates them at k, imports (1) reference run 1 + shuffled into one results directory and compares
them, (2) reference run 1 and run 2 into two directories and diffs them. Prints both tables (and writes them as CSV
with --out). Usage: python benchmarks/stats_translator_demo.py [--benchmarks treats,three_hop] [--k 20] [--out DIR]
"""
import argparse, tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd


def servers():
    from benchnb.translator.server import KnowledgeGraph, ReferenceServer, demo_kg
    kg = demo_kg()
    scores = np.random.default_rng(0).permutation([e.score for e in kg.edges])   # as the translator report does
    shuffled = KnowledgeGraph([replace(e, score=float(s)) for e, s in zip(kg.edges, scores)], kg.categories)
    return {'reference': ReferenceServer(kg).start(), 'reference-shuffled': ReferenceServer(shuffled).start()}


def fetch_and_evaluate(root: Path, benchmarks, k: int):
    "{(benchmark, target, run): run dir} with output.json written; `reference` is fetched twice."
    from benchnb.translator.config import load_config
    from benchnb.translator.evaluate import evaluate_results
    from benchnb.translator.fetch import RetryPolicy, fetch_benchmark
    cfg, srv, runs = load_config(None), servers(), {}
    try:
        for b in benchmarks:
            for t, n in (('reference', 1), ('reference', 2), ('reference-shuffled', 1)):
                s = fetch_benchmark(b, t, root/f'run{n}', cfg, url=srv[t].url + '/query', concurrency=4,
                                    policy=RetryPolicy(retries=2, backoff=0.5), new=True)
                for ev in evaluate_results(b, s.run_dir, t, k, cfg): ev.save(plots=False)
                runs[b, t, n] = s.run_dir
    finally:
        for x in srv.values(): x.stop()
    return runs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--benchmarks', default='treats,three_hop,DrugCentral_subset')
    ap.add_argument('--k', type=int, default=20)
    ap.add_argument('--out', default=None)
    a = ap.parse_args()
    from benchnb.resultsdb.compare import compare, diff
    from benchnb.resultsdb.db import ResultsDB
    from benchnb.resultsdb.importers import import_runs
    root = Path(a.out or tempfile.mkdtemp())
    runs = fetch_and_evaluate(root/'runs', a.benchmarks.split(','), a.k)
    pick = lambda t, n: [d for (b, tt, nn), d in runs.items() if tt == t and nn == n]
    with ResultsDB(root/'db-compare') as db: import_runs(db, pick('reference', 1) + pick('reference-shuffled', 1))
    with ResultsDB(root/'db-ref1') as db: import_runs(db, pick('reference', 1))
    with ResultsDB(root/'db-ref2') as db: import_runs(db, pick('reference', 2))
    cols = ['model', 'dataset', 'metric', 'n_units', 'base', 'new', 'delta', 'ci_low', 'ci_high', 'p', 'p_holm', 'verdict']
    c = compare(root/'db-compare', 'translator', 'reference')
    d = diff(root/'db-ref1', root/'db-ref2')
    c.to_csv(root/'compare.csv', index=False)
    d.to_csv(root/'diff.csv', index=False)
    with pd.option_context('display.width', 250, 'display.max_columns', 20, 'display.max_rows', 200):
        print("## compare: reference-shuffled against reference (per query)\n")
        print(c[cols].round(4).to_string(index=False))
        print("\n## diff: reference run 1 -> run 2 (identical fetches)\n")
        print(d[cols].round(4).to_string(index=False))
        print("\nverdicts, compare:", c.verdict.value_counts().to_dict(), "| diff:", d.verdict.value_counts().to_dict())
    print(f"\nfiles under {root}")


if __name__ == '__main__': main()
