"""Calibrate the planner: time every applicable (row, arithmetic) pair of the route table on the
corpus of benchmarks/route_corpus.py (each run in CPU seconds, under a CPU cap), and fit, per
pair, a start cost and a cost per counted step; write them to symq/queries/route_costs.json, the
data the planner reads (symq.queries.costs). Run it after a change that makes a route faster or
slower:

    python benchmarks/route_costs.py            # full corpus, cap 20 s a run
    python benchmarks/route_costs.py --cap 5    # quicker

It prints every measurement and the fitted constants.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from route_corpus import calibration_requests, large_numeric_requests, timed  # noqa: E402

from symq.queries.costs import COSTS_FILE, _scale  # noqa: E402
from symq.queries.plan import plan  # noqa: E402
from symq.queries.request import build_request  # noqa: E402


def _clear_caches() -> None:
    import symq.engines.formulas as formulas
    for name in ("_BUILT",):
        cache = getattr(formulas, name, None)
        if hasattr(cache, "clear"):
            cache.clear()


def _load_kernels() -> None:
    """Load the compiled kernels once, before any run is timed (their loading is a cost of its
    own: symq.queries.costs.KERNEL_LOADING)."""
    import symq
    symq.solve(symq.example_model("w"), "mean-number", "alis", exact=False, method="interval")


def measure(cap: float, large_only: bool = False):
    """``[(pair, work x scale, seconds or None)]`` over the corpus."""
    _load_kernels()
    rows = []
    seen = set()
    corpus = large_numeric_requests() if large_only else \
        calibration_requests() + large_numeric_requests()
    for label, model, q, d, vals, exact, form in corpus:
        request = build_request(model, q, d, values=vals, exact=exact, form=form)
        try:
            p = plan(request)
        except Exception as error:  # noqa: BLE001 - a request no row serves
            print(f"skip {label} {q} {d}: {error}")
            continue
        for c in p.candidates:
            if not c.applies or c.work is None:
                continue
            key = (label, q, d, vals is not None, c.route.name, c.arithmetic)
            if key in seen:
                continue
            seen.add(key)
            fresh = build_request(model, q, d, values=vals, exact=exact, form=form)
            fresh.extra["evaluate"] = True
            plan(fresh)   # the components' own plans, as the planner makes them before it runs
            _clear_caches()
            try:
                secs, _ = timed(lambda: c.route.function()(fresh, c.arithmetic), cap)
            except Exception as error:  # noqa: BLE001 - a route that fails here is not timed
                print(f"error {label} {q} {d} {c.route.name}/{c.arithmetic}: {error}")
                continue
            scaled = c.work * _scale(c.arithmetic, fresh)
            pair = f"{c.route.name}/{c.arithmetic}"
            shown = "over cap" if secs is None else f"{secs:.4f} s"
            print(f"{label:<15} {q:<24} {d:<13} {pair:<26} work {scaled:>12.0f}  {shown}",
                  flush=True)
            rows.append((pair, scaled, secs))
    return rows


def read_log(path: str):
    """The measurements printed by an earlier (possibly interrupted) run."""
    import re
    rows = []
    pattern = re.compile(r"^\S+\s+\S+\s+\S+\s+(\S+/\S+)\s+work\s+(\d+)\s+(over cap|[\d.]+ s)$")
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        m = pattern.match(line.strip())
        if m:
            secs = None if m.group(3) == "over cap" else float(m.group(3).split()[0])
            rows.append((m.group(1), float(m.group(2)), secs))
    return rows


def fit(rows, cap: float):
    """Per pair: ``start`` the smallest time seen (2 to 20 ms) and ``per_step`` the median of
    (seconds - start) / work over the runs of at least 20 ms (all runs when none is); runs past
    the cap count as taking the cap."""
    by_pair: dict[str, list] = {}
    for pair, work, secs in rows:
        by_pair.setdefault(pair, []).append((work, cap if secs is None else secs))
    out = {}
    for pair, data in sorted(by_pair.items()):
        works = sorted(w for w, _ in data)
        small = [s for w, s in data if w <= works[len(works) // 4]]
        start = max(0.002, min(0.2, statistics.median(small)))
        timed_runs = [(w, s) for w, s in data if s >= 0.02]   # above the clock's resolution
        if timed_runs:  # the per-step cost from the larger half of the timed runs
            cut = statistics.median(w for w, _ in timed_runs)
            ratios = [max(s - start, 1e-6) / max(w, 1.0) for w, s in timed_runs if w >= cut]
        else:
            ratios = [max(s - start, 1e-6) / max(w, 1.0) for w, s in data]
        out[pair] = {"start": round(start, 6), "per_step": float(f"{statistics.median(ratios):.4g}"),
                     "runs": len(data)}
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cap", type=float, default=20.0, help="CPU seconds per run")
    parser.add_argument("--dry-run", action="store_true", help="print, do not write")
    parser.add_argument("--from-log", metavar="FILE",
                        help="fit the constants from the printed lines of an earlier run")
    parser.add_argument("--large-only", action="store_true",
                        help="only the large numeric requests (to add to a log)")
    args = parser.parse_args(argv)
    rows = read_log(args.from_log) if args.from_log else measure(args.cap, args.large_only)
    constants = fit(rows, args.cap)
    print("\nfitted constants (row/arithmetic: start s, per step s, runs):")
    for pair, c in constants.items():
        print(f"  {pair:<28} {c['start']:.4f}  {c['per_step']:.3e}  {c['runs']}")
    errors = []
    for pair, work, secs in rows:
        if secs is None or secs < 0.01:
            continue
        c = constants[pair]
        predicted = c["start"] + c["per_step"] * work
        errors.append(max(predicted / secs, secs / predicted))
    if errors:
        print(f"\nprediction / measured (runs over 10 ms): median factor "
              f"{statistics.median(errors):.2f}, worst {max(errors):.1f}, "
              f"within 10x: {sum(e <= 10 for e in errors)}/{len(errors)}")
    if not args.dry_run:
        COSTS_FILE.write_text(json.dumps({
            "note": "written by benchmarks/route_costs.py; seconds of CPU on the calibration "
                    "machine (2 cores)", "constants": constants}, indent=1) + "\n",
            encoding="utf-8")
        print(f"wrote {COSTS_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
