"""Cross-check benchnb.stats' exact tests against scipy, in a side venv that has scipy (not benchnb's deps):
/work/sidevenv/scib/bin/python benchmarks/stats_scipy_crosscheck.py benchnb/stats.py
The pure functions are read from the file (no benchnb import), run on 300 random cases, and the largest absolute
difference of each p-value from scipy's is printed."""
import ast, math, sys
from statistics import NormalDist
import numpy as np, scipy.stats as st
src = open(sys.argv[1]).read()
tree = ast.parse(src)
want = {'min_p', 'midranks', '_signed_rank_null', 'wilcoxon', 'chi2_sf', 'sign_flip_test'}
ns = {'np': np, 'math': math, 'NormalDist': NormalDist, 'DataError': ValueError, 'Sequence': list}
code = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in want]
exec(compile(ast.Module(body=code, type_ignores=[]), 'stats', 'exec'), ns)
rng = np.random.default_rng(0)
worst = {'wilcoxon exact': 0, 'wilcoxon normal': 0, 'chi2': 0, 'sign flip': 0}
for trial in range(300):
    n = int(rng.integers(6, 30))
    d = np.round(rng.normal(0.3, 1, n), 1)              # rounding makes ties
    d = d[d != 0]
    if d.size < 2: continue
    t, p, m = ns['wilcoxon'](d)
    ref = st.wilcoxon(d, method='exact' if len(np.unique(np.abs(d))) == d.size else 'approx', correction=True)
    if len(np.unique(np.abs(d))) == d.size: worst['wilcoxon exact'] = max(worst['wilcoxon exact'], abs(p - ref.pvalue))
    _, pn, _ = ns['wilcoxon'](d, exact_max=0)
    refn = st.wilcoxon(d, method='approx', correction=True)
    worst['wilcoxon normal'] = max(worst['wilcoxon normal'], abs(pn - refn.pvalue))
    x, df = float(rng.uniform(0, 30)), int(rng.integers(1, 12))
    worst['chi2'] = max(worst['chi2'], abs(ns['chi2_sf'](x, df) - st.chi2.sf(x, df)))
    dd = rng.normal(0.2, 1, int(rng.integers(3, 12)))
    ref = st.permutation_test((dd,), lambda x, axis: np.mean(x, axis=axis), permutation_type='samples',
                              n_resamples=np.inf, alternative='two-sided').pvalue
    worst['sign flip'] = max(worst['sign flip'], abs(ns['sign_flip_test'](dd) - ref))
print({k: float(f"{v:.2e}") for k, v in worst.items()})
