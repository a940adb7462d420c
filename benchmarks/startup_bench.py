"""Start-up of the command line: the CPU time of ``symq --version``, ``symq --help``, ``symq list``,
``symq routes`` and ``symq COMMAND --help`` for every subcommand, each in a fresh interpreter.

CPU time (user + system of the child process, from ``resource.getrusage``), not wall time, so
that a loaded machine does not inflate it; the best of ``--runs`` runs (default 3) is printed,
with the heavy third-party modules each command imported (sympy, python-flint, numpy, networkx,
scipy, matplotlib). A bare interpreter (``python -c pass``) is measured first for comparison.
tests/test_startup.py holds ``--version``, ``--help``, ``list`` and ``routes`` under 0.3 s.

Run: ``python benchmarks/startup_bench.py [--runs 3]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys

HEAVY = ("sympy", "flint", "numpy", "networkx", "scipy", "matplotlib")
# runs symq's main like the installed ``symq`` script, then reports the heavy modules it loaded
PROBE = ("import sys, json\nfrom symq.cli import main\ntry:\n    status = main(sys.argv[1:])\n"
         "except SystemExit as stop:\n    status = stop.code\n"
         f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]), file=sys.stderr)\n")


def cpu_time(arguments: list[str]) -> tuple[float, list[str]]:
    """CPU seconds (user + system) of one fresh interpreter running ``symq ARGUMENTS``, and the
    heavy modules it imported."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run([sys.executable, "-c", PROBE, *arguments], capture_output=True,
                         text=True, timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = run.stderr.strip().splitlines()
    loaded = json.loads(lines[-1]) if lines and lines[-1].startswith("[") else ["?"]
    return seconds, loaded


def best(arguments: list[str], runs: int) -> tuple[float, list[str]]:
    results = [cpu_time(arguments) for _ in range(runs)]
    return min(r[0] for r in results), results[-1][1]


def subcommands() -> list[str]:
    """Every subcommand of ``symq`` (the core ones and the discovered modules)."""
    from symq.cli import _top_parser

    parser = _top_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(action.choices)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per command (best is shown)")
    runs = parser.parse_args().runs
    bare = min(cpu_time_bare() for _ in range(runs))
    print(f"{'python -c pass':<28} {bare:6.3f} s CPU")
    cases = [["--version"], ["--help"], ["list"], ["routes"]]
    cases += [[name, "--help"] for name in subcommands()]
    for arguments in cases:
        seconds, loaded = best(arguments, runs)
        print(f"{'symq ' + ' '.join(arguments):<28} {seconds:6.3f} s CPU   "
              f"imports: {', '.join(loaded) or '-'}")


def cpu_time_bare() -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


if __name__ == "__main__":
    main()
