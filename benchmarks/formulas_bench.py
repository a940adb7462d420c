"""Benchmark of the symbolic formulas (issue 14): every discipline x quantity x model, the
structured form (symq.engines.formulas: definitions plus their LaTeX), the expanded form (one cancelled
rational function from the definitions in python-flint arithmetic with factored denominators,
printed as text, what ``symq derive --form expanded`` prints) and the old expanded derivation
(``symq.derive`` of an untouched checkout, sympy FracField subset DPs).

Run from the repository root::

    .venv/bin/python benchmarks/formulas_bench.py [--baseline /work/baseline] [--timeout 30]

Columns: ``defs`` definitions of the structured form; ``structured`` its time (in this
process, imports warm); ``expanded`` the time of the expanded form including printing it as
text, ``MB`` the size of that text; ``bound`` the estimate of the ``expanded-terms`` limit of
``symq derive`` (a ``*`` marks a cell that the command line refuses by default, limit
6,000,000); ``old`` the old derivation.

The expanded and old columns run in child processes, one per (model, discipline, route), the
quantities in order of cost; a quantity past the time limit prints ``>T s`` and the child is
stopped; the quantities after it in that row print ``skip`` (each needs at least as much work:
the idle probabilities and mean numbers build on the tables of the empty probability; see
their bound). Models with more than 4 servers get a shorter limit (``--timeout-large``,
default 10 s: the 30 s target of the expanded form is for at most 4 servers) so that the
whole run stays near 15 minutes on a loaded 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NESTED5 = str(ROOT / "benchmarks" / "nested5.toml")
NESTED6 = "graph:{1},{2},{1,2},{3},{4},{3,4,5,6}"
RANDOM6 = "graph:{5},{2,3,6},{1,2,6},{1,4},{4,5},{1,2,4,5,6}"
MODELS = {"n": "n", "w": "w", "nested": "nested", "ring:3": "ring:3", "ring:4": "ring:4",
          "redundancy:4:2": "redundancy:4:2", "nested5": NESTED5, "nested6": NESTED6,
          "random6": RANDOM6}
DISCIPLINES = ("collaborative", "alis", "rais")
QUANTITIES = ("empty-probability", "normalizing-constant", "server-idle-probability",
              "mean-number", "mean-response-time")

WORKER = r"""
import sys, time, json
spec, discipline, route = sys.argv[1], sys.argv[2], sys.argv[3]
quantities = sys.argv[4:]
import symq
if spec.startswith("graph:"):
    from symq.models.graphs import graph_from_key
    model = graph_from_key(spec[6:]).to_model()
else:
    model = symq.model(spec) if ":" in spec or "/" not in spec else symq.models.catalog.load(spec)
for q in quantities:
    start = time.perf_counter()
    if route == "new":
        from symq.engines.formulas import structured
        f = structured(model, q, discipline)
        text = f.expanded_text()
        size = sum(len(t) for t in (text.values() if isinstance(text, dict) else [text])
                   for t in (t.values() if isinstance(t, dict) else [t]))
    else:
        size = len(str(symq.derive(model, q, discipline)))
    print(json.dumps([q, time.perf_counter() - start, size]), flush=True)
"""


def servers_of(spec: str) -> int:
    import symq
    from symq.models.graphs import graph_from_key
    if spec.startswith("graph:"):
        return len(graph_from_key(spec[6:]).to_model().servers)
    model = symq.model(spec) if not spec.endswith(".toml") else symq.models.catalog.load(spec)
    return len(model.servers)


def load(spec: str):
    import symq
    from symq.models.graphs import graph_from_key
    if spec.startswith("graph:"):
        return graph_from_key(spec[6:]).to_model()
    return symq.model(spec) if not spec.endswith(".toml") else symq.models.catalog.load(spec)


def run_row(spec: str, discipline: str, route: str, limit: float, baseline: str | None
            ) -> dict[str, str]:
    """Times of every quantity of one (model, discipline) by one route, in a child process."""
    env = dict(os.environ)
    if route == "old":
        env["PYTHONPATH"] = baseline
    else:
        env["PYTHONPATH"] = str(ROOT)
    cmd = [sys.executable, "-c", WORKER, spec, discipline, route, *QUANTITIES]
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env, cwd="/tmp")
    out: dict[str, str] = {}
    pending = list(QUANTITIES)
    deadline = time.monotonic() + limit + 5  # the first cell includes the imports (1-3 s)
    buffer = ""
    try:
        while pending:
            wait = deadline - time.monotonic()
            if wait <= 0:
                break
            ready, _, _ = select.select([child.stdout], [], [], wait)
            if not ready:
                break
            line = child.stdout.readline()
            if not line:
                break
            q, seconds, size = json.loads(line)
            out[q] = f"{seconds:.2f} s"
            out[q + " size"] = f"{size / 1e6:.2f}"
            pending.remove(q)
            deadline = time.monotonic() + limit
        if pending:
            err = ""
            if child.poll() is not None:
                err = child.stderr.read().strip().splitlines()[-1:] or [""]
                out[pending[0]] = "error: " + err[0][:40]
            else:
                out[pending[0]] = f">{limit:g} s"
            for q in pending[1:]:
                out[q] = "skip"
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        del buffer
    return out


def structured_time(model, quantity: str, discipline: str) -> tuple[str, int, str]:
    """The structured form's time, its number of definitions and the expanded-terms bound."""
    from symq.engines.formulas import _BUILT, structured
    from symq.limits import LIMITS
    _BUILT.clear()
    start = time.perf_counter()
    f = structured(model, quantity, discipline)
    f.latex()
    seconds = time.perf_counter() - start
    bound = f.expanded_size()
    mark = "*" if bound > LIMITS["expanded-terms"].default else " "
    return f"{seconds:.2f} s", len(f.definitions), f"{bound:.1e}{mark}"


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="/work/baseline")
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--timeout-large", type=float, default=10)
    parser.add_argument("--models", nargs="*", default=list(MODELS))
    parser.add_argument("--no-old", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    started = time.perf_counter()
    print(f"load average at start: {load_average()}")
    header = f"{'model':15} {'discipline':13} {'quantity':24} {'defs':>5} {'structured':>10} " \
             f"{'expanded':>10} {'MB':>7} {'bound':>9} {'old':>10}"
    print(header)
    print("-" * len(header))
    for name in args.models:
        spec = MODELS[name]
        model = load(spec)
        limit = args.timeout if len(model.servers) <= 4 else args.timeout_large
        for discipline in DISCIPLINES:
            new = run_row(spec, discipline, "new", limit, None)
            old = {} if args.no_old else run_row(spec, discipline, "old", limit, args.baseline)
            for q in QUANTITIES:
                t, defs, bound = structured_time(model, q, discipline)
                print(f"{name:15} {discipline:13} {q:24} {defs:5d} {t:>10} {new[q]:>10} "
                      f"{new.get(q + ' size', '-'):>7} {bound:>9} {old.get(q, '-'):>10}",
                      flush=True)
    print(f"total {time.perf_counter() - started:.0f} s; load average at end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
