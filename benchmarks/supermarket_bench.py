"""Supermarket decomposition: max-flow breakpoint search against brute-force subset enumeration.

Run::

    python benchmarks/supermarket_bench.py

1. Small instances (N = 6..14 stations, 1.5 N random neighbourhoods of 2-4 stations): times the
   max-flow decomposition (``symq.studies.supermarket.decompose``) and the stage-wise enumeration of
   station subsets (``brute_force_decomposition``), checks that clusters and drifts are exactly
   equal, and prints the ratio brute-force time / max-flow time.
2. N = 200 stations with 300 random neighbourhoods (the scale quoted in docs/supermarket.md),
   unweighted and with random rational weights: times the decomposition, certifies every output
   with the linear-time certificate (docs/theory-supermarket.md §3.5, the second route where brute force, 2^200 subsets,
   is impossible) and prints the number of clusters. The brute force is extrapolated from its
   measured cost per subset and printed as an order of magnitude.
"""

from __future__ import annotations

import math
import random
import time
from fractions import Fraction

from symq import Model
from symq.studies.supermarket import brute_force_decomposition, certify_decomposition, decompose


def random_instance(stations: int, streams: int, seed: int, weighted: bool):
    """Neighbourhoods of 2-4 stations covering all; mu = p/q; total load 0.6-1.4 of capacity."""
    rng = random.Random(seed)
    names = [str(j) for j in range(1, stations + 1)]
    neighbourhoods = [rng.sample(names, min(stations, rng.randint(2, 4))) for _ in range(streams)]
    for n, j in enumerate(names):  # every station is in some neighbourhood
        if not any(j in s for s in neighbourhoods):
            neighbourhoods[n % streams].append(j)
    mu = {j: Fraction(rng.randint(1, 8), rng.randint(1, 4)) for j in names}
    load = Fraction(rng.randint(6, 14), 10) * sum(mu.values())
    shares = [rng.randint(1, 10) for _ in range(streams)]
    lam = {f"s{n}": load * Fraction(share, sum(shares)) for n, share in enumerate(shares)}
    model = Model(compatibility={f"s{n}": s for n, s in enumerate(neighbourhoods)},
                  arrival_rates=lam, service_rates=mu)
    weights = ({j: Fraction(rng.randint(1, 6), rng.randint(1, 3)) for j in names}
               if weighted else {})
    return model, weights


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


def main() -> None:
    print("1. max-flow vs brute force (exact equality checked)")
    print(f"{'N':>4} {'M':>4} {'w':>3} {'K':>3} {'max-flow s':>11} {'brute s':>9} {'ratio':>8}")
    per_subset = []
    for stations in (6, 8, 10, 12, 14):
        for weighted in (False, True):
            model, weights = random_instance(stations, (3 * stations) // 2, stations, weighted)
            fast, t_fast = timed(decompose, model, weights)
            slow, t_slow = timed(brute_force_decomposition, model, weights)
            assert [(c.stations, c.drift) for c in fast.clusters] == \
                [(c.stations, c.drift) for c in slow.clusters], "routes disagree"
            certify_decomposition(fast)
            subsets = sum(2 ** (stations - sum(len(c.stations) for c in fast.clusters[:k]))
                          for k in range(len(fast.clusters)))
            per_subset.append(t_slow / subsets)
            print(f"{stations:>4} {len(model.classes):>4} {'p/q' if weighted else '1':>3} "
                  f"{len(fast.clusters):>3} {t_fast:>11.4f} {t_slow:>9.3f} {t_slow / t_fast:>8.1f}")
    cost = sorted(per_subset)[len(per_subset) // 2]

    print("\n2. N = 200 stations, M = 300 neighbourhoods (certified; brute force extrapolated)")
    print(f"{'seed':>4} {'w':>3} {'K':>3} {'max-flow s':>11} {'certify s':>10} "
          f"{'brute force (est.)':>20}")
    for seed in (1, 2, 3):
        for weighted in (False, True):
            model, weights = random_instance(200, 300, 1000 + seed, weighted)
            result, t_fast = timed(decompose, model, weights)
            _, t_cert = timed(certify_decomposition, result)
            remaining, subsets = 200, 0
            for cluster in result.clusters:
                subsets += 2 ** remaining
                remaining -= len(cluster.stations)
            estimate = subsets * cost
            print(f"{seed:>4} {'p/q' if weighted else '1':>3} {len(result.clusters):>3} "
                  f"{t_fast:>11.3f} {t_cert:>10.3f} {'10^%d s' % round(math.log10(estimate)):>20}"
                  f"   ratio ~10^{round(math.log10(estimate / t_fast))}")


if __name__ == "__main__":
    main()
