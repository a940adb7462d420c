"""The planner's regret: for each request of a corpus of 100 (benchmarks/route_corpus.py: built-in
models and random graphs of 3 to 8 servers, every quantity, the three disciplines, symbolic
structured and expression forms, numeric exact and certified), run the planned (row, arithmetic)
pair and every other applicable pair (each forced, under a CPU cap), in CPU seconds, and print:
the planned pair's time against the fastest pair's, and each pair's predicted seconds against
its measured ones. A few requests also run through the command line (`symq evaluate/derive`, CPU
of the child process) next to the same Python call.

    python benchmarks/route_regret.py [--cap 60] [--count 100]

Times under 20 ms are at the clock's resolution: a ratio between two such times counts as 1.
"""

from __future__ import annotations

import argparse
import math
import resource
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from route_corpus import regret_requests, timed  # noqa: E402

from symq.queries.plan import plan  # noqa: E402
from symq.queries.request import build_request  # noqa: E402

FLOOR = 0.02


def _clear_caches() -> None:
    import symq.engines.formulas as formulas
    cache = getattr(formulas, "_BUILT", None)
    if hasattr(cache, "clear"):
        cache.clear()


def _run(model, q, d, vals, exact, form, route, arithmetic, cap):
    request = build_request(model, q, d, values=vals, exact=exact, form=form)
    request.extra["evaluate"] = True
    plan(request)   # the components' own plans, as the planner makes them before it runs
    _clear_caches()
    try:
        secs, _ = timed(lambda: route.function()(request, arithmetic), cap)
    except Exception as error:  # noqa: BLE001 - a pair that fails is reported, not timed
        return None, f"error: {error}"[:60]
    return secs, None


def _cli_cpu(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "symq.cli", *argv], capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cap", type=float, default=60.0, help="CPU seconds per run")
    parser.add_argument("--count", type=int, default=100)
    args = parser.parse_args(argv)
    ratios, factors, rows = [], [], 0
    for label, model, q, d, vals, exact, form in regret_requests(args.count):
        request = build_request(model, q, d, values=vals, exact=exact, form=form)
        try:
            p = plan(request)
        except Exception as error:  # noqa: BLE001
            print(f"{label:<15} {q:<24} {d:<13} no plan: {error}"[:150])
            continue
        kind = ("numeric " + {None: "default", True: "exact", False: "certified"}[exact]
                if vals else f"symbolic {form}")
        times = {}
        for c in p.candidates:
            if not c.applies or c.work is None:
                continue
            secs, err = _run(model, q, d, vals, exact, form, c.route, c.arithmetic, args.cap)
            times[(c.route.name, c.arithmetic)] = (secs, err, c.seconds)
            if secs is not None and secs >= FLOOR:
                factors.append(max(c.seconds / secs, secs / c.seconds))
        chosen = (p.chosen.route.name, p.chosen.arithmetic)
        ran = {k: v[0] for k, v in times.items() if v[0] is not None}
        planned = times.get(chosen, (None,))[0]
        best_key = min(ran, key=ran.get) if ran else None
        best = ran.get(best_key) if best_key else None
        if planned is None:
            ratio = math.inf
        elif best is None:
            ratio = 1.0
        else:
            ratio = max(planned, FLOOR) / max(best, FLOOR)
        ratios.append(ratio)
        rows += 1
        others = ", ".join(f"{r}/{a} {'cap' if v[0] is None else f'{v[0]:.3f}'}"
                           for (r, a), v in times.items() if (r, a) != chosen)
        print(f"{label:<15} {q:<24} {d:<13} {kind:<19} planned {chosen[0]}/{chosen[1]} "
              f"{'cap' if planned is None else f'{planned:.3f} s'} (predicted "
              f"{p.chosen.seconds:.3f}); best {best_key[0] + '/' + best_key[1] if best_key else '-'}"
              f" {best if best is None else f'{best:.3f}'}; regret {ratio:.2f}  | {others}",
              flush=True)
    within2 = sum(r <= 2 for r in ratios)
    print(f"\nrequests: {rows}; planned within 2x of the fastest: {within2}/{rows} "
          f"({100 * within2 / max(rows, 1):.0f} %); worst regret {max(ratios):.2f}; "
          f"over 10x: {sum(r > 10 for r in ratios)}")
    if factors:
        print(f"predicted vs measured (pairs that ran >= {FLOOR * 1000:.0f} ms): median factor "
              f"{statistics.median(factors):.2f}, worst {max(factors):.1f}, within 10x "
              f"{sum(f <= 10 for f in factors)}/{len(factors)}")
    print("\ncommand line against Python (CPU s; the CLI includes its start-up):")
    import time
    import symq
    for argv in (["derive", "ring:3", "mean-number"], ["derive", "ring:4", "mean-number"],
                 ["derive", "w", "mean-number", "--discipline", "alis"]):
        start = time.process_time()
        getattr(symq, argv[2].replace("-", "_"))(argv[1], *(argv[4:] if len(argv) > 3 else []))
        py = time.process_time() - start
        cli = _cli_cpu([*argv, "--form", "factored"])
        print(f"  {' '.join(argv):<40} python {py:.2f}  cli {cli:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
