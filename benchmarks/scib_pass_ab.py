"""Before/after of our scIB side at one size: the exact 90-NN + label-silhouette pass, and optionally the whole table.

`--ref COMMIT` is the "before": that commit's `benchnb/` is `git archive`d into a temporary directory (its own numba
cache) and the two versions run in alternating fresh interpreters, `--reps` times each, after a small warm-up
call in the same interpreter (so the figures are warm: numba's disk cache filled, nothing recompiled). Printed per
run: wall and CPU seconds, the load (`uptime`) before and after; at the end, whether the neighbours (indices and
distances) are identical and the largest per-cell silhouette difference. `--table` also times `scib_table` (one
embedding, per-step seconds from its `attrs['seconds']`) and checks the two tables' values are equal.
Not run by CI (minutes at 100,000 cells).

Usage:  python benchmarks/scib_pass_ab.py --ref e8e5cd5 --n 100000 [--reps 1] [--table]
"""
from __future__ import annotations
import argparse, json, os, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r'''
import json, os, subprocess, sys, time, warnings
import numpy as np
warnings.filterwarnings('ignore')
sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2])
from benchnb.cells.silhouette import knn_and_silhouette           # first: scib_parity puts this checkout on the path
from benchnb.cells.scib import scib_table
import benchnb
assert benchnb.__file__.startswith(sys.argv[1]), benchnb.__file__
from scib_parity import load
n, out, table = int(sys.argv[3]), sys.argv[4], sys.argv[5] == '1'
embs, labels, batches, X_pre = load('synthetic', n)
X = embs['integrated']
for dt in (np.float32, np.float64):                                               # warm-up (numba cache), both
    knn_and_silhouette(X[:3000], 90, labels[:3000], dtype=dt)                     # tile types
up = lambda: subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip().split('load average: ')[-1]
rec = {'load_before': up()}
c, w = time.process_time(), time.perf_counter()
nb, s = knn_and_silhouette(X, 90, labels)
rec.update(pass_wall=time.perf_counter() - w, pass_cpu=time.process_time() - c)
if table:
    e2, l2, b2, p2 = load('synthetic', 2000); scib_table(e2, l2, b2, p2)            # warm-up
    c, w = time.process_time(), time.perf_counter()
    t = scib_table(embs, labels, batches, X_pre)
    rec.update(table_wall=time.perf_counter() - w, table_cpu=time.process_time() - c,
               steps=t.attrs['seconds']['integrated'], values=t.iloc[0].astype(float).to_dict())
rec['load_after'] = up()
np.savez(out + '.npz', I=nb.indices, D=nb.distances, s=s)
json.dump(rec, open(out + '.json', 'w'))
'''


def run(code_dir: str, n: int, out: str, table: bool) -> dict:
    env = {**os.environ, 'PYTHONPATH': code_dir, 'BENCHNB_PROGRESS': '0'}
    subprocess.run([sys.executable, '-c', CHILD, code_dir, str(ROOT / 'benchmarks'), str(n), out, '1' if table else '0'],
                   check=True, env=env, cwd=code_dir)
    return json.loads(Path(out + '.json').read_text())


def main(argv=None):
    import numpy as np
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--ref', required=True); p.add_argument('--n', type=int, default=20000)
    p.add_argument('--reps', type=int, default=1); p.add_argument('--table', action='store_true')
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        before = f'{d}/before'; os.makedirs(before)
        arch = subprocess.run(['git', '-C', str(ROOT), 'archive', a.ref, 'benchnb'], check=True, capture_output=True).stdout
        subprocess.run(['tar', '-x', '-C', before], input=arch, check=True)
        res = {'before': [], 'after': []}
        for r in range(a.reps):
            for name, code in (('before', before), ('after', str(ROOT))):
                rec = run(code, a.n, f'{d}/{name}{r}', a.table)
                res[name].append(rec)
                print(f"{name:6s} pass {rec['pass_wall']:7.2f} s wall {rec['pass_cpu']:7.2f} CPU-s"
                      + (f" | table {rec['table_wall']:7.2f} s wall {rec['table_cpu']:7.2f} CPU-s" if a.table else '')
                      + f" | load {rec['load_before']} -> {rec['load_after']}", flush=True)
                if a.table: print('       steps', {k: round(v, 2) for k, v in rec['steps'].items()})
        x, y = np.load(f'{d}/before0.npz'), np.load(f'{d}/after0.npz')
        print('neighbours identical:', bool((x['I'] == y['I']).all() and (x['D'] == y['D']).all()),
              '| max |Δ silhouette|:', float(np.abs(x['s'] - y['s']).max()))
        if a.table:
            vb, va = res['before'][0]['values'], res['after'][0]['values']
            print('table max |Δ|:', max(abs(vb[k] - va[k]) for k in vb if vb[k] == vb[k]))


if __name__ == '__main__': main()
