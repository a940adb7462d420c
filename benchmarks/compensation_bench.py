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

from symq.studies.compensation import asymmetric_jsq, sed, solve, symmetric_jsq
from symq.studies.compensation.band_chain import band_chain_law


def truncated_ctmc(model, tail=1e-15):
    """Mean number in system from the banded truncated CTMC (double precision) and its size."""
    s = model.s
    total = math.ceil(math.log(tail) / math.log(float(model.load))) + 10
    n1, width = total // (1 + s) + 10, 20 + 17 * s
    law, mean = band_chain_law(model.arrival_rate, *model.service_rates, s,
                               model.tie_probability, n1, width)
    return mean, len(law)


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
