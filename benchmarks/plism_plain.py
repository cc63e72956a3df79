"""PLISM's definition, plainly, in numpy only (issue 15's yardstick), shared by plism_cpu_limit.py and the numpy-only
child process of plism_evaluate_cli.py: fp32 normalise, G = [A; B], S = G Gᵀ (2n × 2n), rank of the twin =
#{j ∉ {i, twin(i)} : S[i, j] > S[i, twin(i)]}."""
import numpy as np


def plain_pair(a: np.ndarray, b: np.ndarray, top_k=(1, 3, 5, 10)) -> dict:
    "The definition, plainly: fp32 normalise, S = G Gᵀ, count entries above the twin's similarity."
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    g, n = np.concatenate([a, b]), len(a)
    s = g @ g.T
    q = np.arange(2 * n)
    twin = np.r_[q[n:], q[:n]]
    t = s[q, twin].copy()
    s[q, q] = -np.inf
    s[q, twin] = -np.inf
    rank = (s > t[:, None]).sum(1)
    out = {'cosine_similarity': float(t[:n].astype(np.float64).mean())}
    out.update({f'top_{k}_accuracy': float((rank < k).mean()) for k in top_k})
    return out
