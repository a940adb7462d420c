"""Foundation benchmark: symq's exact routes against the brute-force routes, in one run.

1. Stability: one max-flow per class (symq.models.stability) against enumerating all 2^J class sets.
2. pi(empty) of the collaborative model: the server-removal recursion (Prop 6.2, exact) against the
   truncated CTMC of the verbal model (floating point, cut at n jobs), which reaches only about
   1e-5 where the recursion is exact.

Run: ``python benchmarks/foundation_bench.py``; prints times and ratios.
"""

import random
import time
from fractions import Fraction

from symq import Model
from symq.engines.ctmc import empty_mass, truncated_stationary
from symq.engines.normalization import collaborative_empty_probability
from symq.models.stability import brute_force_stability_report, stability_report


def random_model(rng: random.Random, classes: int, servers: int, load: Fraction) -> Model:
    names = [str(j) for j in range(1, servers + 1)]
    compatibility = {}
    for i in range(classes):
        compatibility[f"c{i}"] = rng.sample(names, rng.randint(1, min(3, servers)))
    for j in names:  # every server serves some class
        if not any(j in s for s in compatibility.values()):
            compatibility[f"c{rng.randrange(classes)}"].append(j)
    mu = {j: Fraction(rng.randint(1, 4)) for j in names}
    smallest = min(sum(mu[j] for j in s) for s in compatibility.values())
    lam = {i: smallest * load / classes for i in compatibility}
    return Model(compatibility=compatibility, arrival_rates=lam, service_rates=mu)


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - start


def main() -> None:
    rng = random.Random(7)
    print("stability: max-flow vs enumeration of class sets (exact, same margin)")
    print(f"{'J':>4} {'M':>4} {'max-flow s':>11} {'brute s':>9} {'ratio':>7}")
    for classes, servers in [(8, 4), (12, 6), (14, 8), (16, 8)]:
        m = random_model(rng, classes, servers, Fraction(1, 2))
        flow, t_flow = timed(stability_report, m)
        brute, t_brute = timed(brute_force_stability_report, m)
        assert flow.margin == brute.margin
        print(f"{classes:>4} {servers:>4} {t_flow:>11.4f} {t_brute:>9.3f} {t_brute / t_flow:>7.1f}")
    print()
    print("pi(empty), collaborative: Prop 6.2 recursion (exact) vs truncated CTMC (floats)")
    print(f"{'J':>3} {'M':>3} {'cut':>4} {'states':>7} {'recursion s':>12} {'CTMC s':>8} "
          f"{'ratio':>7} {'CTMC error':>11}")
    for classes, servers, cut in [(3, 2, 7), (4, 3, 6), (4, 4, 6)]:
        m = random_model(rng, classes, servers, Fraction(1, 3))
        exact, t_rec = timed(collaborative_empty_probability, m)
        law, t_ctmc = timed(truncated_stationary, m, "collaborative", cut, exact=False)
        error = abs(empty_mass(law) - float(exact))
        print(f"{classes:>3} {servers:>3} {cut:>4} {len(law):>7} {t_rec:>12.4f} {t_ctmc:>8.3f} "
              f"{t_ctmc / t_rec:>7.0f} {error:>11.1e}")


if __name__ == "__main__":
    main()
