"""Benchmark of the certified subset-DP kernels (issue 36): the compiled fixed-point kernels
(numba, symq/engines/normalization/limbs.py) against the Python-integer kernels they replace,
side by side in one run, on seeded random graphs where each class is compatible with 2-4 of the
M servers (M classes, tests/routes.py).

Every row certifies 50 digits the way symq does (start at 3.3 N + 24 + M bits, raise the
precision by what a too-wide interval lacks) and prints, per kernel, the CPU time of the child
process that ran it (``time.process_time``: table building, kernels and certification, not the
imports), its peak resident memory (``ru_maxrss``, which includes the interpreter and numpy,
about 100 MiB), the bits that certified, and the ratio old / new. The old kernel runs under
``--limit`` seconds of wall time (default 240) and 6 GiB of address space (it needs up to 14 GB
at 24 servers); a stopped run prints ``>`` its CPU time so far.
The two kernels' digits are compared wherever both finished (they must be equal: both are
certified), and with the exact rational where the exact DP is cheap (M <= 12).

The compiled kernels are cached by numba (``cache=True``); the first row reports the compile
time of a cold cache (a fresh NUMBA_CACHE_DIR in a child process) and the load time of a warm
one, both paid once per machine or per process, outside the rows' times.

Run: ``python benchmarks/certified_bench.py [--limit 240] [--quick] [--only ALIS]``
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DIGITS = 50
OLD_MEMORY = 6 << 30  # bytes of address space for an old-kernel run

# (label, discipline, per_class, servers, target CPU seconds of the new kernel)
ROWS = [
    ("ALIS mean numbers", "alis", True, 20, 1.0),
    ("collaborative pi(0)", "collaborative", False, 28, 1.0),
    ("collaborative mean numbers", "collaborative", True, 28, 1.0),
    ("collaborative mean numbers", "collaborative", True, 24, None),
    ("ALIS pi(0)", "alis", False, 20, None),
    ("ALIS pi(0)", "alis", False, 24, 30.0),
    ("ALIS mean numbers", "alis", True, 24, 60.0),
    ("RAIS pi(0)", "rais", False, 24, 30.0),
    ("RAIS mean numbers", "rais", True, 24, 60.0),
]
QUICK = [("ALIS mean numbers", "alis", True, 16, None),
         ("collaborative mean numbers", "collaborative", True, 20, None)]


def certify(graph, discipline: str, per_class: bool, kernel: str):
    """The certified digits of pi(0) (or of every mean number) and the bits that certified
    them: the kernel's intervals at rising precision (as symq's certified route)."""
    from symq.arithmetic.interval import certify_interval
    from symq.engines.normalization.interval_collaborative import collaborative_bounds
    from symq.engines.normalization.interval_noncollaborative import noncollaborative_bounds
    bits = int(DIGITS * math.log2(10)) + 24 + graph.size
    while True:
        if discipline == "collaborative":
            out = collaborative_bounds(graph, bits, per_class, kernel=kernel)
        else:
            out = noncollaborative_bounds(graph, bits, per_class, kernel=kernel)
        boxes = {"empty": out["empty"]} if not per_class else dict(out["L"])
        texts = {k: certify_interval(b.lower, b.upper, DIGITS) for k, b in boxes.items()}
        if all(texts.values()):
            return texts, bits
        worst = max((b.upper - b.lower) / b.lower for b in boxes.values())
        bits += max(16, int(math.log2(worst) + DIGITS * math.log2(10) + 12))


def _child(queue, discipline, per_class, servers, seed, kernel):
    from tests.routes import random_stable_model
    from symq.engines.normalization.subsets import SubsetGraph
    if kernel == "python":  # the old kernel holds up to 14 GB at 24 servers: stop it at 6 GiB
        resource.setrlimit(resource.RLIMIT_AS, (OLD_MEMORY, OLD_MEMORY))
    start = time.process_time()
    try:
        start = time.process_time()
        graph = SubsetGraph(random_stable_model(servers, seed))
        texts, bits = certify(graph, discipline, per_class, kernel)
        seconds = time.process_time() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        queue.put((seconds, peak, bits, texts, ""))
    except Exception as error:  # noqa: BLE001 - reported in the table
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        queue.put((time.process_time() - start, peak, 0, {},
                   f"stopped: {type(error).__name__} {error}".rstrip()))


def timed(discipline, per_class, servers, seed, kernel, limit):
    """``(cpu seconds, peak MiB, bits, digits, note)`` of one certification in a child."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    process = ctx.Process(target=_child, args=(queue, discipline, per_class, servers, seed,
                                               kernel))
    process.start()
    pid = process.pid
    try:
        return queue.get(timeout=limit)
    except Exception:  # noqa: BLE001 - queue.Empty: stopped at the limit
        cpu = _cpu_of(pid)
        peak = _peak_of(pid)
        return (cpu, peak, 0, {}, f"stopped after {limit:.0f} s wall")
    finally:
        process.join(timeout=1)
        if process.is_alive():
            process.kill()
            process.join()


def _cpu_of(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


def _peak_of(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def compile_times() -> tuple[float, float]:
    """CPU seconds of the kernels' first use with a cold numba cache (everything compiled) and
    with the warm cache (machine code loaded), each in a fresh interpreter."""
    code = ("import time, sys; sys.path.insert(0, %r)\n"
            "from tests.routes import random_stable_model\n"
            "from symq.engines.normalization.subsets import SubsetGraph\n"
            "from symq.engines.normalization.interval_noncollaborative import "
            "noncollaborative_bounds\n"
            "from symq.engines.normalization.interval_collaborative import collaborative_bounds\n"
            "g = SubsetGraph(random_stable_model(5, 1))\n"
            "t = time.process_time()\n"
            "noncollaborative_bounds(g, 80, True, True, kernel='compiled')\n"
            "collaborative_bounds(g, 80, True, True, kernel='compiled')\n"
            "print(time.process_time() - t)\n") % str(Path(__file__).resolve().parents[1])
    out = []
    with tempfile.TemporaryDirectory() as cold:
        for env in ({**os.environ, "NUMBA_CACHE_DIR": cold}, dict(os.environ)):
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  env=env, check=True)
            out.append(float(done.stdout.split()[-1]))
    return out[0], out[1]


def _warm_up() -> None:
    """Load the compiled kernels (and the Python ones' imports) in the parent, so that the
    forked children time the work, not the loading (reported apart)."""
    from tests.routes import random_stable_model
    from symq.engines.normalization.subsets import SubsetGraph
    for kernel in ("compiled", "python"):
        graph = SubsetGraph(random_stable_model(5, 1))
        for discipline in ("alis", "collaborative"):
            for per_class in (False, True):
                certify(graph, discipline, per_class, kernel)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=240.0,
                        help="wall seconds for each old-kernel run")
    parser.add_argument("--quick", action="store_true", help="two small rows only")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="", help="rows whose label contains this text")
    args = parser.parse_args(argv)
    import numpy  # noqa: F401 - imported once here, not by every child
    _warm_up()
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())} "
          f"({os.cpu_count()} cores)")
    cold, warm = compile_times()
    print(f"numba kernels, first use in a fresh process: {cold:.2f} s CPU with a cold cache "
          f"(compiling), {warm:.2f} s with the cache (loading); the rows below run after the loading")
    print(f"\ncertified digits, {DIGITS} digits, seed {args.seed}; CPU seconds of the child "
          f"process; MiB = its peak resident memory; ratio = old / new")
    print(f"{'row':<32} {'M':>3} {'new s':>8} {'MiB':>6} {'old s':>9} {'MiB':>6} "
          f"{'ratio':>7} {'bits':>5}  target / notes")
    rows = QUICK if args.quick else ROWS
    for label, discipline, per_class, servers, target in rows:
        if args.only.lower() not in label.lower():
            continue
        new = timed(discipline, per_class, servers, args.seed, "compiled", 3600)
        old = timed(discipline, per_class, servers, args.seed, "python", args.limit)
        notes = []
        if target is not None:
            notes.append(f"< {target:g} s: {'met' if new[4] == '' and new[0] < target else 'MISSED'}")
        if new[4]:
            notes.append("new " + new[4])
        if old[4]:
            notes.append("old " + old[4])
        if new[3] and old[3]:
            notes.append("digits equal" if new[3] == old[3] else "DIGITS DIFFER")
        stopped = bool(old[4]) or not old[3]
        ratio = (">" if stopped else "") + f"{old[0] / new[0]:.1f}x" if new[0] else ""
        old_s = (">" if stopped else "") + f"{old[0]:.2f}"
        print(f"{label:<32} {servers:>3} {new[0]:>8.2f} {new[1]:>6.0f} {old_s:>9} {old[1]:>6.0f} "
              f"{ratio:>7} {new[2]:>5}  {'; '.join(notes)}")
        sys.stdout.flush()
    print("\ngradients (--gradient, certified reverse-mode sweeps): not ported to the compiled "
          "kernels (issue 36 item 3 open)")
    print("tagged-job response-time laws (set-function recursions): not ported (issue 36 item 4 "
          "open)")
    print(f"\nload average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
