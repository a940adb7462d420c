"""Time-to-accuracy: the compensation approach against the truncated-CTMC route (issue 5, item 8).

Run::

    python benchmarks/compensation_bench.py

1. Times ``symq compensation jsq --rho 9/10 --digits 50`` (the library call behind it).
2. For several models, times the compensation method and a truncated CTMC (scipy sparse LU in
   double precision) at *equal accuracy*: the CTMC's own accuracy, about 1e-13 relative (the best a
   double-precision solve delivers at these loads), and prints the ratio CTMC time / compensation
   time. The compensation method is then also timed at 30 and 50 digits, which the CTMC cannot
   reach at all in double precision.

scipy and numpy are needed for the CTMC route (``pip install -e ".[test]"``).
"""

from __future__ import annotations

import math
import time

import mpmath

from symq.compensation import asymmetric_jsq, sed, solve, symmetric_jsq


def truncated_ctmc(model, tail=1e-15):
    """Mean number in system from a banded truncated CTMC solved with scipy (double precision)."""
    import numpy as np
    from scipy import sparse
    from scipy.sparse import linalg

    lam, mu1, mu2, q = (float(v) for v in (model.arrival_rate, *model.service_rates,
                                           model.tie_probability))
    s = model.s
    total = math.ceil(math.log(tail) / math.log(float(model.load))) + 10
    n1, width = total // (1 + s) + 10, 20 + 17 * s
    n2 = s * n1 + width
    a, b = np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), indexing="ij")
    valid = np.abs(b - s * a) <= width
    a, b = a[valid], b[valid]
    n = len(a)
    index = -np.ones((n1 + 2, n2 + 2), dtype=np.int64)
    index[a, b] = np.arange(n)
    src, dst, rate = [], [], []

    def add(mask, da, db, r):
        if r <= 0:
            return
        i = np.nonzero(mask)[0]
        j = index[np.clip(a[i] + da, 0, n1 + 1), np.clip(b[i] + db, 0, n2 + 1)]
        ok = (j >= 0) & (a[i] + da >= 0) & (b[i] + db >= 0)
        src.append(i[ok]); dst.append(j[ok]); rate.append(np.full(int(ok.sum()), r))

    left, right = s * (a + 1), b + 1
    add(left < right, 1, 0, lam)
    add(left > right, 0, 1, lam)
    add(left == right, 1, 0, lam * q)
    add(left == right, 0, 1, lam * (1 - q))
    add(a > 0, -1, 0, mu1)
    add(b > 0, 0, -1, mu2)
    src, dst, rate = np.concatenate(src), np.concatenate(dst), np.concatenate(rate)
    out = np.bincount(src, weights=rate, minlength=n)
    rows = np.concatenate([dst, np.arange(n)])
    cols = np.concatenate([src, np.arange(n)])
    vals = np.concatenate([rate, -out])
    keep = rows != 0
    rows = np.concatenate([rows[keep], np.zeros(n, dtype=np.int64)])
    cols = np.concatenate([cols[keep], np.arange(n)])
    vals = np.concatenate([vals[keep], np.ones(n)])
    mat = sparse.csc_matrix((vals, (rows, cols)), shape=(n, n))
    rhs = np.zeros(n)
    rhs[0] = 1.0
    lu = linalg.splu(mat)
    x = lu.solve(rhs)
    x += lu.solve(rhs - mat @ x)
    return float(np.sum(x * (a + b))), n


def timed(f, repeat=3):
    best = math.inf
    for _ in range(repeat):
        t = time.perf_counter()
        value = f()
        best = min(best, time.perf_counter() - t)
    return best, value


def main():
    t, r = timed(lambda: solve(symmetric_jsq("9/10"), digits=50), repeat=3)
    print(f"jsq --rho 9/10 --digits 50: {t:.3f} s, E[N] = {mpmath.nstr(r.mean_number, 50)}, "
          f"levels {r.levels}, box {r.box}, bound {mpmath.nstr(r.truncation_error_bound, 2)}")
    print()
    print(f"{'model':34s} {'CTMC s':>8s} {'states':>7s} {'comp(15) s':>10s} {'ratio':>7s} "
          f"{'rel.diff':>9s} {'comp(30) s':>10s} {'comp(50) s':>10s}")
    cases = [("jsq rho=0.9", symmetric_jsq("9/10")),
             ("jsq rho=0.5", symmetric_jsq("1/2")),
             ("asym lam=3/2 mu=(1,2) q=1/2", asymmetric_jsq("3/2", 1, 2, "1/2")),
             ("asym lam=12/5 mu=(1,2) q=3/10", asymmetric_jsq("12/5", 1, 2, "3/10")),
             ("sed s=2 q=1/2 rho=0.9", sed(2, "1/2", "9/10")),
             ("sed s=3 q=2/5 rho=0.9", sed(3, "2/5", "9/10"))]
    for name, model in cases:
        tc, (mean_ctmc, states) = timed(lambda: truncated_ctmc(model), repeat=2)
        t15, r15 = timed(lambda: solve(model, digits=15), repeat=2)
        t30, _ = timed(lambda: solve(model, digits=30), repeat=1)
        t50, _ = timed(lambda: solve(model, digits=50), repeat=1)
        diff = abs(float(r15.mean_number) - mean_ctmc) / mean_ctmc
        print(f"{name:34s} {tc:8.3f} {states:7d} {t15:10.3f} {tc / t15:7.2f} {diff:9.1e} "
              f"{t30:10.3f} {t50:10.3f}")
    print()
    print("ratio = CTMC time / compensation time at equal (double-precision) accuracy; "
          "rel.diff = |E[N] compensation - E[N] CTMC| / E[N]")


if __name__ == "__main__":
    main()
