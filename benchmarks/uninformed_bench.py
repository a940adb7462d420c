"""Benchmark: Cabral's closed form against the truncated random-assignment CTMC of symq.engines.ctmc.

For n = 2..6 servers with fixed rational rates (load 3/10), computes p_0 and every server's idle
probability (a) exactly from the closed form of symq.studies.uninformed and (b) from the random-assignment
chain of symq.engines.ctmc truncated at n + 12 jobs, solved in floating point. Prints both times, their
ratio, the chain size, and the largest difference, which must stay below the truncation bound
rho^(N-n+1) plus float noise.

Run: ``python benchmarks/uninformed_bench.py``
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symq import model  # noqa: E402
from symq.engines.ctmc import busy_servers, empty_mass, truncated_stationary  # noqa: E402
from symq.studies.uninformed import (idle_probability, uninformed_empty_probability,  # noqa: E402
                             uninformed_queue)

LOAD = Fraction(3, 10)
EXTRA_JOBS = 12


def rates(n: int) -> tuple[Fraction, list[Fraction]]:
    mus = [Fraction(k + 2, k + 1) ** 2 for k in range(n)]  # distinct, decreasing-ish speeds
    return LOAD * sum(mus), mus


def main() -> None:
    print(f"{'n':>2} {'states':>7} {'closed form s':>14} {'CTMC s':>10} {'ratio':>8} "
          f"{'max |diff|':>11} {'bound':>9}")
    uninformed_queue(2)  # warm up sympy and scipy before timing
    truncated_stationary(model("uninformed:1").substitute({"lambda": "1/2", "mu_1": "1"}), "rais",
                         max_jobs=2, exact=False)
    for n in range(2, 7):
        lam, mus = rates(n)
        start = time.perf_counter()
        queue = uninformed_queue(n, arrival_rate=lam, service_rates=mus)
        exact = {"p0": uninformed_empty_probability(queue)}
        exact.update({j: idle_probability(queue, j) for j in queue.servers})
        closed = time.perf_counter() - start

        values = {"lambda": str(lam), **{f"mu_{j + 1}": str(m) for j, m in enumerate(mus)}}
        m = model(f"uninformed:{n}").substitute(values)
        max_jobs = n + EXTRA_JOBS
        start = time.perf_counter()
        law = truncated_stationary(m, "rais", max_jobs=max_jobs, exact=False)
        approx = {"p0": empty_mass(law)}
        for j in queue.servers:
            approx[j] = sum(p for s, p in law.items() if j not in busy_servers(m, s))
        brute = time.perf_counter() - start

        diff = max(abs(float(exact[key]) - approx[key]) for key in exact)
        bound = float(LOAD) ** (max_jobs - n + 1)
        print(f"{n:>2} {len(law):>7} {closed:>14.4f} {brute:>10.4f} {brute / closed:>8.1f} "
              f"{diff:>11.2e} {bound:>9.1e}")
        assert diff <= bound + 1e-12, f"n={n}: closed form and CTMC disagree by {diff}"
    print("closed form and truncated CTMC agree within the truncation bound")


if __name__ == "__main__":
    main()
