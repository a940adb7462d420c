"""Benchmark of gradients (issue 29): the time of the gradient of the mean response time with
respect to every rate (reverse-mode sweep of the subset DP on certified arb balls, 30 digits)
against the time of the values alone (``symq.solve``, the route the table picks: exact DP,
fixed-point interval kernels or balls), on the seeded random graphs of tests/routes.py (M classes,
each on 2-4 of the M servers).

Each run is a child process stopped after ``--limit`` seconds (default 120), so that a size
that does not finish is reported as such. Targets of issue 29 on 2 cores: 16 servers under 10 s,
24 servers under 60 s.

Run: ``python benchmarks/sensitivity_bench.py [--servers 12,16,24] [--disciplines collaborative,alis,rais] [--limit 120] [--digits 30]``
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import symq  # noqa: E402
from symq.engines.sensitivity import gradient  # noqa: E402
from tests.routes import random_stable_model  # noqa: E402


def _values(servers: int, seed: int, discipline: str, digits: int, out) -> None:
    model = random_stable_model(servers, seed)
    start = time.perf_counter()
    r = symq.solve(model, "mean-response-time", discipline, digits=digits)
    out.put((time.perf_counter() - start, f"{r.route}/{r.arithmetic}", r.value))


def _gradient(servers: int, seed: int, discipline: str, digits: int, out) -> None:
    model = random_stable_model(servers, seed)
    start = time.perf_counter()
    g = gradient(model, "mean-response-time", discipline, arithmetic="ball", digits=digits,
                 labels=["total"])
    elapsed = time.perf_counter() - start
    first = g.wrt[-1]
    out.put((elapsed, f"{g.arithmetic}/{g.bits or '-'} bits",
             f"dT/d{first} = {g.derivative('total', first).text}"))


def _timed(target, args, limit: float):
    queue = multiprocessing.Queue()
    child = multiprocessing.Process(target=target, args=(*args, queue))
    child.start()
    child.join(limit)
    if child.is_alive():
        child.terminate()
        child.join()
        return None
    return queue.get() if not queue.empty() else ("failed", "", "")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", default="8,12,16")
    parser.add_argument("--disciplines", default="collaborative,alis,rais")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--digits", type=int, default=30)
    parser.add_argument("--limit", type=float, default=120)
    args = parser.parse_args(argv)
    print(f"{'M':>3} {'discipline':<14} {'values s':>9} {'gradient s':>11} {'ratio':>6}  "
          "route / arithmetic; one derivative")
    for m in (int(v) for v in args.servers.split(",")):
        for d in args.disciplines.split(","):
            v = _timed(_values, (m, args.seed, d, args.digits), args.limit)
            g = _timed(_gradient, (m, args.seed, d, args.digits), args.limit)
            vt = f"{v[0]:.2f}" if v and isinstance(v[0], float) else "stopped"
            gt = f"{g[0]:.2f}" if g and isinstance(g[0], float) else "stopped"
            ratio = (f"{g[0] / v[0]:.1f}" if v and g and isinstance(v[0], float)
                     and isinstance(g[0], float) else "-")
            note = f"{v[1] if v else ''}; {g[1] if g else ''} {g[2] if g else ''}"
            print(f"{m:>3} {d:<14} {vt:>9} {gt:>11} {ratio:>6}  {note}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
