"""The per-quantity Python functions (symq.mean_number, ...) against the same command line
(`symq derive MODEL mean-number --form factored`, CPU of the child after a start-up proxy), on W,
N, ring:3, ring:4, a 6-server nested model and a random 6-server graph.

    python benchmarks/quantity_functions_bench.py
"""
import resource, subprocess, sys, time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from route_corpus import nested6, random_graph
import symq
import tempfile
from pathlib import Path
TMP = Path(tempfile.mkdtemp())
def child_cpu(argv):
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["symq", *argv], capture_output=True)
    a = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime - b.ru_utime + a.ru_stime - b.ru_stime
start = min(child_cpu(["derive", "n", "empty-probability", "--form", "factored"]) for _ in range(2))
n6 = nested6(); open(TMP / "n6.toml", "w").write(n6.to_toml())
r6 = random_graph(6, 6); open(TMP / "r6.toml", "w").write(r6.to_toml())
print(f"start-up proxy (derive n empty-probability): {start:.2f}")
for label, m, path in [("w", "w", "w"), ("n", "n", "n"), ("ring:3", "ring:3", "ring:3"), ("ring:4", "ring:4", "ring:4"), ("nested6", n6, str(TMP / "n6.toml")), ("random6", r6, str(TMP / "r6.toml"))]:
    t = time.process_time(); symq.mean_number(m); py = time.process_time() - t
    cli = child_cpu(["derive", path, "mean-number", "--form", "factored"]) - start
    print(f"{label:<8} python {py:6.2f}  cli (after start-up) {max(cli, 0):6.2f}")
