"""Benchmark of the exact normalizing-constant and mean-number algorithms (issue 8).

Prints wall times and ratios against two brute-force routes:

* the plain memoized recursion of Prop 6.2 on Python Fractions over frozensets of classes
  (``empty_probability(model, method="server-removal")``), and
* the truncated CTMC of ``symq.engines.ctmc`` at a cap where its truncation error is below 1e-4 (the
  CTMC cannot reach the DP's exactness at all; "equal accuracy" is the CTMC's best here).

Targets (measured here, never asserted in tests): random 20 servers x 20 classes exact
empty-probability < 5 s and mean-number < 15 s; nested 200 servers < 1 s; redundancy K = 100
< 1 s; symbolic empty-probability of w, n and a 4-server nested model < 1 s each.

Run: ``python benchmarks/normalization_bench.py [--plain-up-to 20] [--quick]``
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from fractions import Fraction
from pathlib import Path

import symq
from symq.engines import normalization as nz
from symq.engines.ctmc import empty_mass, truncated_stationary
from symq.models.graphs import graph_from_key
from symq.models.model import Model

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.routes import random_stable_model  # noqa: E402


def timed(function, *args, **options):
    start = time.perf_counter()
    value = function(*args, **options)
    return value, time.perf_counter() - start


def random_model(servers: int, classes: int, edge: float, seed: int) -> Model:
    """Each class picks each server with probability ``edge`` (at least one); loads stable."""
    return random_stable_model(servers, seed, load=Fraction(1, 2), classes=classes, edge=edge,
                               arrival_denominator=40)


def nested_model(leaves: int) -> Model:
    """A binary nesting tree over ``leaves`` servers: one class per tree node."""
    servers = [str(j) for j in range(1, leaves + 1)]
    compatibility = {}

    def build(lo: int, hi: int) -> None:
        compatibility[f"{lo}-{hi}"] = servers[lo:hi]
        if hi - lo > 1:
            mid = (lo + hi) // 2
            build(lo, mid)
            build(mid, hi)
    build(0, leaves)
    depth = math.ceil(math.log2(leaves)) + 1
    lam = {c: Fraction(len(v), 4 * depth) for c, v in compatibility.items()}
    return Model(compatibility=compatibility, arrival_rates=lam,
                 service_rates={s: 1 for s in servers})


def redundancy_model(k: int, d: int, load: Fraction) -> Model:
    servers = [str(j) for j in range(1, k + 1)]
    subsets = list(itertools.combinations(servers, d))
    rate = load * k / len(subsets)
    return Model(compatibility={",".join(s): list(s) for s in subsets},
                 arrival_rates={",".join(s): rate for s in subsets},
                 service_rates={s: 1 for s in servers})


def four_server_nested() -> Model:
    """Classes {1}, {2}, {1,2}, {3,4}, {1,2,3,4} with symbolic rates lambda_i, mu_j."""
    return graph_from_key("{1},{2},{1,2},{3,4},{1,2,3,4}").to_model()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plain-up-to", type=int, default=18,
                        help="largest M for the plain Fraction recursion (20 takes minutes)")
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    args = parser.parse_args(argv)
    print(f"exact rationals: {nz.exact_arithmetic()}")

    print("\n== random graphs, collaborative, exact rationals ==")
    print(f"{'M x J':>8} {'P(empty) s':>11} {'means s':>9} {'plain s':>9} {'plain/DP':>9} digits")
    for size in ([12, 16] if args.quick else [12, 16, 18, 20]):
        model = random_model(size, size, 0.15, seed=size)
        p0, t_dp = timed(nz.empty_probability, model)
        _, t_means = timed(nz.mean_number, model)
        if size <= args.plain_up_to:
            plain, t_plain = timed(nz.empty_probability, model, method="server-removal")
            assert plain == p0, "the two routes disagree"
            ratio = f"{t_plain / t_dp:9.1f}"
            plain_text = f"{t_plain:9.2f}"
        else:
            ratio, plain_text = f"{'-':>9}", f"{'-':>9}"
        print(f"{size:>3} x {size:<3} {t_dp:11.3f} {t_means:9.3f} {plain_text} {ratio} "
              f"{len(str(p0.q))}")

    print("\n== random graphs, ALIS / RAIS, exact rationals ==")
    for size in ([8, 10] if args.quick else [8, 10, 12, 14]):
        model = random_model(size, size, 0.25, seed=size)
        _, t_alis = timed(nz.empty_probability, model, "alis")
        _, t_rais = timed(nz.empty_probability, model, "rais")
        _, t_means = timed(nz.mean_number, model, "alis")
        print(f"{size:>3} x {size:<3} alis P(empty) {t_alis:7.3f} s, rais P(empty) {t_rais:7.3f} s,"
              f" alis mean-number {t_means:7.3f} s")

    print("\n== against the truncated CTMC (error < 1e-4), same model ==")
    for name, values in (("w", {"lambda_1": "1/10", "lambda_2": "1/10", "lambda_3": "1/10",
                                "mu_1": 1, "mu_2": 1}),
                         ("ring:3", {"lambda_1": "1/10", "lambda_2": "1/10", "lambda_3": "1/10",
                                     "mu_1": 1, "mu_2": 1, "mu_3": 1})):
        model = symq.model(name).substitute(values)
        for discipline in ("collaborative", "alis"):
            exact, t_dp = timed(nz.empty_probability, model, discipline)
            cap = 4
            while True:
                law, t_ctmc = timed(truncated_stationary, model, discipline, cap, False)
                if abs(empty_mass(law) - float(exact)) < 1e-4:
                    break
                cap += 1
            print(f"{name:>7} {discipline:>13}: DP {t_dp:.4f} s exact; CTMC cap {cap} "
                  f"({len(law)} states) {t_ctmc:.3f} s; CTMC/DP {t_ctmc / t_dp:.0f}")

    print("\n== structured models (detected automatically) ==")
    model = nested_model(200)
    for quantity in ("empty-probability", "mean-number", "server-idle-probability"):
        handler, method = symq.queries.quantities.handler_for(model, quantity, "collaborative")
        _, t = timed(handler, model)
        print(f"nested 200 servers, {len(model.classes)} classes, {quantity}: {t:.3f} s [{method}]")
    k = 60 if args.quick else 100
    model, t_build = timed(redundancy_model, k, 2, Fraction(1, 2))
    print(f"redundancy:{k}:2 model built in {t_build:.2f} s ({len(model.classes)} classes)")
    for discipline in ("collaborative", "alis", "rais"):
        for quantity in ("empty-probability", "mean-number"):
            handler, method = symq.queries.quantities.handler_for(model, quantity, discipline)
            _, t = timed(handler, model)
            print(f"redundancy:{k}:2 {discipline} {quantity}: {t:.3f} s [{method}]")

    print("\n== symbolic empty-probability ==")
    for label, model in (("w", symq.model("w")), ("n", symq.model("n")),
                         ("nested4", four_server_nested())):
        for discipline in ("collaborative", "alis", "rais"):
            _, t = timed(nz.empty_probability, model, discipline)
            print(f"{label:>8} {discipline:>13}: {t:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
