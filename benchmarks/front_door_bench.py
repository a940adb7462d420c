"""The front door costs nothing: ``symq.solve`` against ``symq evaluate`` on the same request.

A random numeric 20-server model (the certified benchmark's seeded graphs), 50 certified digits of
the mean numbers, once through the Python entry and once through the command line (in-process,
``symq.cli.main``), best of three each; prints both times, their ratio, and checks that the two
print the same digits and name the same route.

Run: ``python benchmarks/front_door_bench.py [--servers 20] [--digits 50]``.
"""

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import symq  # noqa: E402
from symq.cli import main  # noqa: E402

from routes import random_stable_model  # noqa: E402


def best_of(function, runs=3):
    best, out = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        out = function()
        best = min(best, time.perf_counter() - start)
    return best, out


def run(servers: int, digits: int, discipline: str) -> None:
    model = random_stable_model(servers, seed=1)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"m{servers}.toml"
        path.write_text(model.to_toml(), encoding="utf-8")

        def python():
            return symq.solve(symq.load(path), "mean-number", discipline, digits=digits)

        def command():
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                main(["evaluate", str(path), "mean-number", "--discipline", discipline,
                      "--digits", str(digits), "--json"])
            return json.loads(buffer.getvalue())
        t_python, result = best_of(python)
        t_command, data = best_of(command)
    same = data["result"] == result.as_json()["result"] and data["route"] == result.route
    print(f"{servers} servers, {discipline}, {digits} digits of the mean numbers: "
          f"symq.solve {t_python:.2f} s, symq evaluate {t_command:.2f} s, ratio "
          f"{t_python / t_command:.2f}; route {result.route} ({result.arithmetic}); same output: "
          f"{same}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=20)
    parser.add_argument("--digits", type=int, default=50)
    args = parser.parse_args()
    for discipline in ("collaborative", "alis"):
        run(args.servers, args.digits, discipline)
