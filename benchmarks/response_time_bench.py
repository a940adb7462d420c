"""Benchmark: one response-time survival value on a random 6-server graph, per discipline.

A seeded random model (6 servers, 6 classes, heterogeneous rates, load 1/2 of each class's
servers; ``symq.engines.response_time.simulation.random_model``). For each discipline, times the exact
law of one class (the rational LST by the subset DPs of symq.engines.response_time, from a cold start)
and one certified value P(T > 1) to 15 digits, and prints the law's mean, which must equal
Little's law from symq.engines.normalization (checked here).

Run: ``python benchmarks/response_time_bench.py [SEED]``
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symq.engines.normalization import mean_response_time  # noqa: E402
from symq.engines.response_time.laws import response_time_law  # noqa: E402
from symq.engines.response_time.simulation import random_model  # noqa: E402


def main(seed: int = 3) -> None:
    m = random_model(servers=6, classes=6, seed=seed)
    print(f"model {m.name}: " + ", ".join(f"{c}->{{{','.join(s)}}}" for c, s in
                                          m.compatibility.items()))
    job_class = max(m.classes, key=lambda c: len(m.compatibility[c]))
    for discipline in ("collaborative", "alis", "rais"):
        start = time.perf_counter()
        law = response_time_law(m, job_class, discipline)
        value = law.survival_value(Fraction(1), 15)
        elapsed = time.perf_counter() - start
        little = mean_response_time(m, discipline)["per_class"][job_class]
        assert str(law.mean()) == str(little), (law.mean(), little)
        print(f"{discipline:>13}: class {job_class}, P(T > 1) = {value}  "
              f"(LST degree {law.denominator.degree()}, {elapsed:.2f} s; mean {float(law.mean()):.12g} = "
              "Little's law)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
