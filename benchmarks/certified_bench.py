"""Benchmark of certified digits at scale (issue 15): ball arithmetic against the exact DP and the
plain memoized recursion, on seeded random graphs where each class is compatible with 2-4 of the
M servers (M classes).

For every target it prints the wall time of each route, its ratio to the plain recursion, the
number U of unions of class server sets (what the collaborative DP's cost grows with; ALIS and
RAIS grow with 2^M), the working precision in bits, and the peak memory of the route. Each route
runs in a child process stopped after ``--limit`` seconds (default 120); a route that was stopped
or took more than half the limit is skipped at the larger sizes of the same series with a printed
note. The certified digits are compared with the exact rational wherever the exact route
finished. Children are forked after numpy is imported: times are those of the library calls, not
of module imports.

Plain routes: collaborative pi(0) by the server-removal recursion of Prop 6.2 (memoized over
class sets, Fractions) and mean numbers by corrected Prop 6.3; ALIS/RAIS pi(0) by
G_ALIS = sum_I W(I) / pi^C_{|-I}(0) (Thm 3.9) with the same memoized recursion for the reduced
collaborative systems; ALIS/RAIS mean numbers have no plain recursion (the exact DP is shown).

ALIS/RAIS certified rows run the fixed-point floor/ceil kernels of
symq/engines/normalization/interval_noncollaborative.py (one route for both disciplines: canonical RAIS
equals ALIS in these quantities); their exact rows run each discipline's own exact DP.

Routes per row: ``plain`` (memoized recursion), ``exact`` (today's exact subset DP in
rationals), ``arb`` (the DP on arb balls; collaborative series only) and ``certified`` (what
``certified_values`` runs: for collaborative models the fixed-point floor/ceil kernels of
symq/engines/normalization/interval_collaborative.py, mean numbers by their adjoint pass).

Run: ``python benchmarks/certified_bench.py [--limit 120] [--quick] [--only ALIS] [--profile 24]``
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import os
import resource
import sys
import time
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import symq
from symq.models.model import Model
from symq.engines.normalization import values
from symq.engines.normalization.certified import certified_values
from symq.engines.normalization.subsets import SubsetGraph, unions
from symq.arithmetic.numeric import round_fraction

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.routes import random_stable_model  # noqa: E402

DIGITS = 50


def random_graph(servers: int, seed: int) -> Model:
    """M classes, each on 2-4 random servers; rates scaled down until stable (the workload of
    tests/test_certified.py, drawn by tests/routes.py)."""
    return random_stable_model(servers, seed)


# ---------------------------------------------------------------------------- plain routes
def _plain_tools(model: Model):
    servers_of = {i: frozenset(model.compatibility[i]) for i in model.classes}
    classes_of = {j: frozenset(model.classes_of([j])) for j in model.servers}
    lam = {i: Fraction(int(r.p), int(r.q)) for i, r in model.arrival_rates.items()}
    mu = {j: Fraction(int(r.p), int(r.q)) for j, r in model.service_rates.items()}

    def servers(remaining):
        return frozenset().union(*(servers_of[i] for i in remaining))

    @lru_cache(maxsize=None)
    def inverse_empty(remaining: frozenset) -> Fraction:  # 1/pi(0), Prop 6.2
        if not remaining:
            return Fraction(1)
        ss = servers(remaining)
        total = sum(mu[j] * inverse_empty(remaining - classes_of[j]) for j in ss)
        return total / (sum(mu[j] for j in ss) - sum(lam[i] for i in remaining))
    return servers_of, classes_of, lam, mu, servers, inverse_empty


def plain_collaborative_empty(model: Model) -> Fraction:
    *_, inverse_empty = _plain_tools(model)
    return 1 / inverse_empty(frozenset(model.classes))


def plain_collaborative_means(model: Model) -> dict:
    from symq.engines.normalization import server_removal_mean_number
    return {c: Fraction(int(v.p), int(v.q)) for c, v in server_removal_mean_number(model).items()}


def plain_alis_empty(model: Model) -> Fraction:
    """pi(0) = W(M) / sum_I W(I) / pi^C_{|-I}(0), W(I) = sum over orders of prod mu/lambda(C)."""
    servers_of, classes_of, lam, mu, _, inverse_empty = _plain_tools(model)
    everything = frozenset(model.classes)

    @lru_cache(maxsize=None)
    def weight(idle: frozenset) -> Fraction:
        if not idle:
            return Fraction(1)
        rate = sum(lam[i] for i in model.classes if servers_of[i] & idle)
        return sum(weight(idle - {s}) * mu[s] for s in idle) / rate
    total = Fraction(0)
    for k in range(len(model.servers) + 1):
        for idle in itertools.combinations(model.servers, k):
            idle = frozenset(idle)
            gone = frozenset().union(*(classes_of[s] for s in idle)) if idle else frozenset()
            total += weight(idle) * inverse_empty(everything - gone)
    return weight(frozenset(model.servers)) / total


# ---------------------------------------------------------------------------- routes
def route(kind: str, model: Model, discipline: str):
    """Run one route; returns (seconds, {name: exact Fraction or certified string}, note)."""
    start = time.perf_counter()
    note = ""
    if kind in ("certified", "arb"):  # arb: the ball route, kept for the comparison
        per_class = discipline.endswith("means")
        disc = discipline.split()[0]
        out, bits = certified_values(model, disc, per_class, DIGITS, idle=False,
                                     kernels=kind == "certified")
        result = {"empty": out["empty"].text} if not per_class else \
            {c: b.text for c, b in out["L"].items()}
        note = f"{bits} bits"
        if kind == "certified" and disc == "collaborative":
            note += ", fixed-point interval kernels"
    elif kind == "exact":
        per_class = discipline.endswith("means")
        disc = discipline.split()[0]
        out, arith = values(model, disc, per_class, idle=False)
        conv = lambda v: Fraction(int(v.p), int(v.q))  # noqa: E731 - fmpq or Fraction
        if per_class:
            result = {c: conv(v) if not isinstance(v, Fraction) else v for c, v in out["L"].items()}
        else:
            v = out["empty"]
            result = {"empty": v if isinstance(v, Fraction) else conv(v)}
        digits = max(len(str(int(v.q if not isinstance(v, Fraction) else v.denominator)))
                     for v in ([out["empty"]] if not per_class else out["L"].values()))
        note = f"{digits}-digit denominators"
    else:  # plain
        if discipline == "collaborative":
            result = {"empty": plain_collaborative_empty(model)}
        elif discipline == "collaborative means":
            result = plain_collaborative_means(model)
        elif discipline in ("alis", "rais"):
            result = {"empty": plain_alis_empty(model)}
        else:
            return None, {}, "no plain recursion for ALIS/RAIS mean numbers"
    return time.perf_counter() - start, result, note


def _child(queue, kind, model, discipline):
    try:
        seconds, result, note = route(kind, model, discipline)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MiB on Linux
        queue.put((seconds, result, note, peak))
    except Exception as error:  # noqa: BLE001 - reported in the table
        queue.put((None, {}, f"error: {error}", 0.0))


def timed_route(kind, model, discipline, limit):
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    process = ctx.Process(target=_child, args=(queue, kind, model, discipline))
    process.start()
    try:
        answer = queue.get(timeout=limit)
    except Exception:  # noqa: BLE001 - queue.Empty: stopped at the limit
        answer = (None, {}, f"stopped after {limit:.0f} s", 0.0)
    process.join(timeout=5)
    if process.is_alive():
        process.kill()
        process.join()
    return answer


SERIES = [
    # (label, discipline key, sizes, target seconds per size)
    ("collaborative pi(0), 50 digits", "collaborative", (16, 20, 24, 28), {24: 2, 28: 30}),
    ("collaborative mean numbers, 50 digits", "collaborative means", (16, 20, 24),
     {20: 3, 24: 30}),
    ("ALIS pi(0), 50 digits", "alis", (12, 16, 20), {16: 3, 20: 60}),
    ("ALIS mean numbers, 50 digits", "alis means", (12, 16, 20), {16: 3, 20: 60}),
    ("RAIS pi(0), 50 digits", "rais", (12, 16, 20), {16: 3, 20: 60}),
    ("RAIS mean numbers, 50 digits", "rais means", (12, 16, 20), {16: 3, 20: 60}),
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=120.0, help="seconds per route")
    parser.add_argument("--quick", action="store_true", help="the two smallest sizes only")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="", help="run the series whose label contains this "
                        "text (for example ALIS, RAIS, collaborative)")
    parser.add_argument("--profile", type=int, default=0, metavar="M",
                        help="also print a short cProfile of certified collaborative pi(0) at M")
    args = parser.parse_args(argv)
    try:  # imported once here, so that no timed child pays for importing numpy
        import numpy  # noqa: F401
    except ImportError:  # pragma: no cover - numpy is in the test extra
        pass
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())} "
          f"({os.cpu_count()} cores)")
    print(f"certified digits benchmark: {DIGITS} digits, seed {args.seed}, limit "
          f"{args.limit:.0f} s per route; times in seconds, ratio = plain / route")
    exact_target = None
    for label, discipline, sizes, targets in SERIES:
        if args.only.lower() not in label.lower():
            continue
        print(f"\n## {label}")
        print(f"{'M':>3} {'U':>8} {'route':>10} {'seconds':>9} {'ratio':>7} {'MiB':>7}  note")
        skip: dict[str, str] = {}
        for m_size in sizes[:2] if args.quick else sizes:
            model = random_graph(m_size, args.seed)
            u = len(unions(SubsetGraph(model).masks))
            rows = {}
            kinds = ("plain", "exact", "arb", "certified") if discipline.startswith(
                "collaborative") else ("plain", "exact", "certified")
            for kind in kinds:
                if kind in skip:
                    print(f"{m_size:>3} {u:>8} {kind:>10} {'-':>9} {'':>7} {'':>7}  skipped: "
                          f"{skip[kind]}")
                    continue
                seconds, result, note, peak = timed_route(kind, model, discipline, args.limit)
                rows[kind] = (seconds, result)
                if seconds is None or seconds > args.limit / 2:
                    skip[kind] = (f"took {seconds:.0f} s at M={m_size}" if seconds is not None
                                  else note) + " (larger M would exceed the limit)"
                if seconds is None and "no plain" in note:
                    skip[kind] = note
                plain = rows.get("plain", (None, None))[0]
                ratio = f"{plain / seconds:.1f}x" if plain and seconds else ""
                target = targets.get(m_size)
                if kind == "certified" and target is not None and seconds is not None:
                    note += f"; target < {target} s: {'met' if seconds < target else 'MISSED'}"
                shown = f"{seconds:.2f}" if seconds is not None else "-"
                print(f"{m_size:>3} {u:>8} {kind:>10} {shown:>9} {ratio:>7} {peak:>7.0f}  {note}")
                sys.stdout.flush()
            exact = rows.get("exact", (None, {}))[1] or rows.get("plain", (None, {}))[1]
            certified = rows.get("certified", (None, {}))[1]
            if exact and certified:
                wrong = [k for k, text in certified.items()
                         if round_fraction(exact[k], DIGITS) != text]
                print(f"    certified digits vs exact rationals: "
                      f"{'all ' + str(len(certified)) + ' agree' if not wrong else 'WRONG ' + str(wrong)}")
            elif certified and rows.get("arb", (None, {}))[1]:  # no exact value: the two
                balls = rows["arb"][1]                           # certified routes must agree
                wrong = [k for k, text in certified.items() if balls.get(k) != text]
                print(f"    certified digits vs the arb ball route (no exact value): "
                      f"{'all ' + str(len(certified)) + ' agree' if not wrong else 'DIFFER ' + str(wrong)}")
            if discipline == "collaborative means" and m_size == 20:
                exact_target = rows.get("exact", (None,))[0]
    print("\n## exact rationals (--exact): collaborative mean numbers at M=20, target < 10 s")
    print(f"   {exact_target:.2f} s: {'met' if exact_target < 10 else 'MISSED'}"
          if exact_target is not None else "   not measured (skipped)")
    if args.profile:
        _profile(args.profile, args.seed)
    _start_up()
    print("\n## LINE comparison")
    print("   benchmarks/line_bench.py (LINE 3.0.8, pip package line-solver, in its own venv: "
          "the N model, a 6-server ring, a 5-server nested model); skipped where LINE is absent")
    print(f"\nload average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 0


START_UP = ["evaluate", "w", "empty-probability", "--set", "lambda_1=3/10", "--set",
            "lambda_2=1/5", "--set", "lambda_3=1/2", "--set", "mu_1=1", "--set", "mu_2=4/5"]


def _start_up(runs: int = 3) -> None:
    """Wall time of one small ``symq evaluate`` command against ``import sympy`` alone (the
    best of ``runs``): the start-up target is 0.5 s."""
    import subprocess

    def best(argv):
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, *argv], check=True, capture_output=True)
            times.append(time.perf_counter() - start)
        return min(times)
    command = best(["-m", "symq.cli", *START_UP])
    sympy_alone = best(["-c", "import sympy"])
    bare = best(["-c", "pass"])
    print("\n## start-up: symq evaluate w empty-probability --set ... (wall, best of "
          f"{runs}), target < 0.5 s")
    print(f"   command {command:.2f} s: {'met' if command < 0.5 else 'MISSED'}; "
          f"python -c 'import sympy' alone {sympy_alone:.2f} s; bare python {bare:.2f} s")


def _profile(m_size: int, seed: int) -> None:
    """Where the time of certified collaborative pi(0) goes (cProfile, top functions)."""
    import cProfile
    import pstats

    model = random_graph(m_size, seed)
    print(f"\n## cProfile: certified collaborative pi(0), {DIGITS} digits, M={m_size}")
    profiler = cProfile.Profile()
    profiler.enable()
    certified_values(model, "collaborative", False, DIGITS, idle=False)
    profiler.disable()
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(8)


if __name__ == "__main__":
    sys.exit(main())
