"""symq's exact library call against LINE's truncated CTMC (issue 15 item 5).

LINE (the pip package ``line-solver``, 3.0.8; pure Python, no Java) models the collaborative
discipline (FCFS redundancy with cancel-on-completion) as an order-independent "pass-and-swap"
queue (``SchedStrategy.PAS`` with an empty swap graph) whose total service rate for the jobs
present is mu(union of their server sets), the same product form as symq's collaborative model.
Its CTMC solver needs a finite buffer: ``setCap(cap)`` and ``CTMC(model, cutoff=cap)`` truncate
the ordered state space at ``cap`` jobs (a loss system), so its mean numbers carry a truncation
error; symq's answer is exact. For each model the benchmark prints symq's time and exact mean
numbers, LINE's time, mean numbers and largest relative error, and the number of ordered states
LINE's chain has (sum over n <= cap of J^n for J classes: the cap is 12 for the two-class N-model
and smaller for the ring and the nested model, whose chains would otherwise have billions of
states).

Models: the N-model (class 1 -> {1, 2}, class 2 -> {2}; lambda = (1, 1/2), mu = (1, 3/2), exact
L = (1, 3/4)); ring:6 (class i -> {i, i+1 mod 6}, lambda_i = 1/2, mu_j = 1); a 5-server nested
model (classes {1}, {1,2}, {3}, {3,4,5}, {1,...,5}).

Install LINE where you run this (it is not a dependency of symq), preferably in its own virtual
environment next to symq's dependencies: ``pip install line-solver``. Without it the LINE column
is skipped with a message.

Measured here (2 cores shared with other jobs, LINE 3.0.8 in its own environment): N-model,
symq 0.59 s (first call, before the warm-up was added), LINE cap 12 (8,191 states) 263 s with
1.34 % error; ring:6, symq 0.04 s, LINE cap 5 (9,331 states) 1,041 s with 19.2 % error (the cap
truncates the queue hard at 6 classes); the nested model did not finish within the 25 minutes
left to the run.

Run: ``python benchmarks/line_bench.py [--cap 12] [--small-cap 5]``
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from symq import Model, mean_number

from symq import model as load_model


def models() -> list[tuple[str, Model]]:
    n = Model(compatibility={"1": ["1", "2"], "2": ["2"]}, arrival_rates={"1": "1", "2": "1/2"},
              service_rates={"1": "1", "2": "3/2"}, name="N-model")
    ring = load_model("ring:6")
    ring = ring.substitute({**{f"lambda_{i}": "1/2" for i in ring.classes},
                            **{f"mu_{j}": "1" for j in ring.servers}})
    nested = Model(compatibility={"1": ["1"], "2": ["1", "2"], "3": ["3"], "4": ["3", "4", "5"],
                                  "5": ["1", "2", "3", "4", "5"]},
                   arrival_rates={"1": "1/4", "2": "1/4", "3": "1/4", "4": "1/2", "5": "1/2"},
                   service_rates={j: "1" for j in "12345"}, name="nested5")
    return [("N-model", n), ("ring:6", ring), ("nested 5 servers", nested)]


def symq_means(m: Model) -> tuple[float, dict[str, Fraction]]:
    start = time.perf_counter()
    means = mean_number(m)["per_class"]
    elapsed = time.perf_counter() - start
    return elapsed, {c: Fraction(str(v)) for c, v in means.items()}


def line_means(m: Model, cap: int) -> tuple[float, dict[str, float]]:
    import numpy as np
    from line_solver import CTMC, Exp, Network, OpenClass, Queue, SchedStrategy, Sink, Source

    classes = list(m.classes)
    servers = list(m.servers)
    rate = np.array([float(Fraction(str(m.service_rates[j]))) for j in servers])
    compatible = np.array([[j in m.compatibility[c] for c in classes] for j in servers])

    def mu(c):  # total service rate of the jobs present: mu(union of their server sets)
        c = np.asarray(c, dtype=int)
        return float(rate[np.any(compatible[:, c], axis=1)].sum()) if len(c) else 0.0

    start = time.perf_counter()
    net = Network(m.name or "symq")
    source, queue, sink = Source(net, "Source"), Queue(net, "Q", SchedStrategy.PAS), Sink(net, "Sink")
    jobs = [OpenClass(net, f"C{c}") for c in classes]
    for job, c in zip(jobs, classes):
        source.setArrival(job, Exp(float(Fraction(str(m.arrival_rates[c])))))
    queue.setService(mu)
    queue.setSwapGraph(np.zeros((len(classes), len(classes))))
    queue.setNumberOfServers(len(servers))
    queue.setCap(cap)
    routing = net.initRoutingMatrix()
    for job in jobs:
        routing[job] = Network.serialRouting(source, queue, sink)
    net.link(routing)
    table = CTMC(net, cutoff=cap).getAvgTable()
    elapsed = time.perf_counter() - start
    rows = table[table["Station"] == "Q"]
    out = {c: float(rows[rows["JobClass"] == f"C{c}"]["QLen"].iloc[0]) for c in classes}
    return elapsed, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=int, default=12, help="LINE's cap for the N-model")
    parser.add_argument("--small-cap", type=int, default=5,
                        help="LINE's cap for the ring and the nested model")
    args = parser.parse_args()
    try:
        import line_solver  # noqa: F401
        have_line = True
    except ImportError:
        have_line = False
        print("LINE skipped: the package line-solver is not installed here "
              "(pip install line-solver, preferably in its own environment); symq times only")
    symq_means(load_model("w").substitute({"lambda_1": "1/4", "lambda_2": "1/4", "lambda_3": "1/4",
                                           "mu_1": "1", "mu_2": "1"}))  # warm-up: lazy imports
    for name, m in models():
        t_symq, exact = symq_means(m)
        shown = ", ".join(f"L_{c}={v}" for c, v in exact.items())
        print(f"{name}: symq exact mean numbers in {t_symq:.3f} s: {shown}")
        if not have_line:
            continue
        cap = args.cap if len(m.classes) <= 2 else args.small_cap
        states = sum(len(m.classes) ** k for k in range(cap + 1))
        t_line, approx = line_means(m, cap)
        error = max(abs(approx[c] - float(v)) / float(v) for c, v in exact.items())
        shown = ", ".join(f"L_{c}={v:.4f}" for c, v in approx.items())
        print(f"  LINE CTMC cap {cap} ({states} ordered states): {t_line:.2f} s, {shown}; "
              f"largest relative error {100 * error:.2f} %; time ratio LINE/symq "
              f"{t_line / max(t_symq, 1e-9):.0f}")


if __name__ == "__main__":
    main()
