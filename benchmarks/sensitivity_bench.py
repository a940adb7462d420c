"""Benchmark of gradients (issue 29): the time of the gradient of the mean response time with
respect to every rate (reverse-mode sweep of the subset DP on certified arb balls, 30 digits)
against the time of the values alone at the same certified digits (``symq.solve(...,
exact=False)``: fixed-point interval kernels or balls), both through the front door (the gradient is
``symq.solve(..., wrt="all", of=["total"])``, route ``reverse-mode``), on the seeded random graphs
of tests/routes.py (M classes, each on 2-4 of the M servers). A size that symq's work limits
refuse up front is printed as refused, with the estimate (``--no-limits`` runs it anyway).

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
from tests.routes import random_stable_model  # noqa: E402


def _values(servers: int, seed: int, discipline: str, digits: int, no_limits: bool,
            out) -> None:
    model = random_stable_model(servers, seed)
    start = time.perf_counter()
    try:
        r = symq.solve(model, "mean-response-time", discipline, digits=digits, exact=False,
                       no_limits=no_limits)
    except symq.SymqError as error:  # refused up front by a limit, with its estimate
        out.put(("refused", str(error).split(";")[0], ""))
        return
    out.put((time.perf_counter() - start, f"{r.route}/{r.arithmetic}", r.value))


def _gradient(servers: int, seed: int, discipline: str, digits: int, no_limits: bool,
              out) -> None:
    model = random_stable_model(servers, seed)
    start = time.perf_counter()
    try:  # through the front door, as symq evaluate --gradient --of total runs it
        r = symq.solve(model, "mean-response-time", discipline, digits=digits, wrt="all",
                       of=["total"], exact=False, no_limits=no_limits)
    except symq.SymqError as error:
        out.put(("refused", str(error).split(";")[0], ""))
        return
    elapsed = time.perf_counter() - start
    g = r.gradient
    first = g.wrt[-1]
    out.put((elapsed, f"{r.route}/{g.arithmetic}/{g.bits or '-'} bits",
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
    parser.add_argument("--no-limits", action="store_true",
                        help="run what symq's work limits refuse (default: print the refusal)")
    args = parser.parse_args(argv)
    print(f"{'M':>3} {'discipline':<14} {'values s':>9} {'gradient s':>11} {'ratio':>6}  "
          "route / arithmetic; one derivative")
    for m in (int(v) for v in args.servers.split(",")):
        for d in args.disciplines.split(","):
            v = _timed(_values, (m, args.seed, d, args.digits, args.no_limits), args.limit)
            g = _timed(_gradient, (m, args.seed, d, args.digits, args.no_limits), args.limit)
            vt = f"{v[0]:.2f}" if v and isinstance(v[0], float) else v[0] if v else "stopped"
            gt = f"{g[0]:.2f}" if g and isinstance(g[0], float) else g[0] if g else "stopped"
            ratio = (f"{g[0] / v[0]:.1f}" if v and g and isinstance(v[0], float)
                     and isinstance(g[0], float) else "-")
            note = f"{v[1] if v else ''}; {g[1] if g else ''} {g[2] if g else ''}"
            print(f"{m:>3} {d:<14} {vt:>9} {gt:>11} {ratio:>6}  {note}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
