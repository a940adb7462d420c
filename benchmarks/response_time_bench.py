"""Benchmark: one response-time survival value on a random 6-server graph, per discipline.

A seeded random model (6 servers, 6 classes, heterogeneous rates, load 1/2 of each class's
servers; ``symq.engines.response_time.simulation.random_model``). For each discipline, times the exact
law of one class (the rational LST by the subset DPs of symq.engines.response_time, from a cold start)
and one certified value P(T > 1) to 15 digits, and prints the law's mean, which must equal
Little's law from symq.engines.normalization (checked here).

Then (issue 30) the symbolic laws: for every discipline x model (n, w, nested, ring:3, ring:4,
redundancy:3:2 and two random 4-server graphs), the time of the structured transform
(``symq derive MODEL response-time``: symq.engines.response_time.structured, targets under 5 s)
and of the mean and variance as cancelled rational functions of the rates (python-flint,
target under 30 s), each in a child process stopped at ``--timeout`` seconds.

Run: ``python benchmarks/response_time_bench.py [SEED] [--symbolic-only] [--timeout 60]``
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


SYMBOLIC_MODELS = ("n", "w", "nested", "ring:3", "ring:4", "redundancy:3:2",
                   "graph:{1},{2,3},{1,4},{3,4}", "graph:{1,2},{2,3,4},{1,3},{4}")

_WORKER = r"""
import sys, time
spec, discipline, kind = sys.argv[1:4]
import symq
from symq.models.graphs import graph_from_key
from symq.engines.response_time.structured import transform_formula
model = graph_from_key(spec[6:]).to_model() if spec.startswith("graph:") else symq.model(spec)
start = time.perf_counter()
f = transform_formula(model, kind, discipline)
f.latex()
mid = time.perf_counter()
print(f"{len(f.definitions)} {mid - start:.2f}", flush=True)
m = f.moments().expanded_values()
end = time.perf_counter()
terms = sum(len(v.num) + len(v.den) for part in m.values() for v in part.values())
print(f"{end - mid:.2f} {terms}", flush=True)
"""


def symbolic(timeout: float = 60.0) -> None:
    """Print the time of the structured transform and of the expanded mean and variance for
    every discipline x model (child processes, stopped after ``timeout`` seconds)."""
    import subprocess
    print(f"\n== symbolic response times (structured transform; mean and variance expanded; "
          f"limit {timeout:.0f} s) ==")
    print(f"{'model':<32} {'discipline':<14} {'defs':>5} {'structured':>11} "
          f"{'mean+var':>10} {'terms':>9}")
    for spec in SYMBOLIC_MODELS:
        for discipline in ("collaborative", "alis", "rais"):
            try:
                done = subprocess.run([sys.executable, "-c", _WORKER, spec, discipline,
                                       "response"], capture_output=True, text=True,
                                      timeout=timeout, cwd=str(Path(__file__).resolve().parents[1]))
                lines = done.stdout.split("\n")
            except subprocess.TimeoutExpired as stopped:
                out = stopped.stdout or ""
                lines = (out.decode() if isinstance(out, bytes) else out).split("\n")
                lines = [line for line in lines if line][:1] + [f">{timeout:.0f} -"]
            first = lines[0].split() if lines and lines[0] else ["-", "-"]
            second = lines[1].split() if len(lines) > 1 and lines[1] else ["-", "-"]
            print(f"{spec:<32} {discipline:<14} {first[0]:>5} {first[1] + ' s':>11} "
                  f"{second[0] + ' s':>10} {second[1]:>9}", flush=True)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    limit = 60.0
    if "--timeout" in sys.argv:
        limit = float(sys.argv[sys.argv.index("--timeout") + 1])
        args = [a for a in args if a != sys.argv[sys.argv.index("--timeout") + 1]]
    if "--symbolic-only" not in sys.argv:
        main(int(args[0]) if args else 3)
    symbolic(limit)
