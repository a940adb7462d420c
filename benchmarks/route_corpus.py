"""The requests that calibrate the planner (benchmarks/route_costs.py) and measure its regret
(benchmarks/route_regret.py): built-in models and random graphs of 3 to 8 servers, every
quantity, the three disciplines, symbolic (structured and one expression) and numeric (exact and
certified) rates. Shared by both scripts; not part of the package.
"""

from __future__ import annotations

import random
import signal
import time
from fractions import Fraction

import symq

NORMALIZATION = ("empty-probability", "normalizing-constant", "server-idle-probability",
                 "mean-number", "mean-response-time")
DISCIPLINES = ("collaborative", "alis", "rais")


class CpuCap(BaseException):
    """Raised by the profiling timer when one run passes its CPU cap."""


def _on_cap(signum, frame):  # pragma: no cover - signal handler
    raise CpuCap()


def timed(function, cap: float):
    """``(seconds, value)`` of ``function()`` in CPU seconds, or ``(None, None)`` past ``cap``."""
    signal.signal(signal.SIGPROF, _on_cap)
    signal.setitimer(signal.ITIMER_PROF, cap)
    start = time.process_time()
    try:
        value = function()
    except CpuCap:
        return None, None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return time.process_time() - start, value


def random_graph(servers: int, seed: int):
    """A random connected-ish compatibility graph with ``servers`` servers and as many classes,
    symbolic rates."""
    rng = random.Random(seed)
    comp = {}
    for c in range(1, servers + 1):
        size = rng.choice([1, 1, 2, 2, 3])
        comp[str(c)] = sorted({str(c), *(str(rng.randint(1, servers)) for _ in range(size - 1))},
                              key=int)
    return symq.Model(compatibility=comp,
                      arrival_rates={c: f"lambda_{c}" for c in comp},
                      service_rates={str(s): f"mu_{s}" for s in range(1, servers + 1)},
                      name=f"random{servers}-{seed}")


def nested6():
    """A 6-server nested model of four levels and six classes."""
    comp = {"1": ["1"], "2": ["1", "2"], "3": ["1", "2", "3", "4"], "4": ["5"],
            "5": ["5", "6"], "6": ["1", "2", "3", "4", "5", "6"]}
    return symq.Model(compatibility=comp, arrival_rates={c: f"lambda_{c}" for c in comp},
                      service_rates={str(s): f"mu_{s}" for s in range(1, 7)}, name="nested6")


def star4():
    comp = {"0": ["1", "2", "3", "4"], "1": ["1"], "2": ["2"], "3": ["3"], "4": ["4"]}
    return symq.Model(compatibility=comp, arrival_rates={c: f"lambda_{c}" for c in comp},
                      service_rates={str(s): f"mu_{s}" for s in range(1, 5)}, name="star4")


def values_for(model, seed: int = 0) -> dict[str, Fraction]:
    """Stable rational values: each class a light share of its servers' capacity."""
    rng = random.Random(seed)
    mu = {s.name: Fraction(rng.randint(2, 6), 4) for s in model.symbols
          if s.name.startswith("mu")}
    values = dict(mu)
    for c, servers in model.compatibility.items():
        rate = model.arrival_rates[c]
        for s in rate.free_symbols:
            if s.name not in values:
                values[s.name] = Fraction(1, 4 * len(model.classes) + rng.randint(0, 3))
    return values


def models():
    """``[(label, symbolic model)]`` of the corpus."""
    out = [("w", symq.model("w")), ("n", symq.model("n")), ("ring:3", symq.model("ring:3")),
           ("ring:4", symq.model("ring:4")), ("redundancy:4:2", symq.model("redundancy:4:2")),
           ("uninformed:3", symq.model("uninformed:3")), ("nested6", nested6()),
           ("star4", star4())]
    out += [(f"random{m}", random_graph(m, seed=m)) for m in (3, 4, 5, 6, 8)]
    return out


def requests():
    """``[(label, model, quantity, discipline, values or None, exact, form)]``: the corpus."""
    out = []
    for label, model in models():
        servers = len(model.servers)
        vals = values_for(model)
        for d in DISCIPLINES:
            for q in NORMALIZATION:
                if servers <= 6 and q in ("empty-probability", "mean-number"):
                    out.append((label, model, q, d, None, None, "structured"))
                if servers <= 4 and q == "mean-number":
                    out.append((label, model, q, d, None, None, "expression"))
                out.append((label, model, q, d, vals, None, "structured"))
                if q in ("empty-probability", "mean-number"):
                    out.append((label, model, q, d, vals, False, "structured"))
                    out.append((label, model, q, d, vals, True, "structured"))
            if servers <= 6:
                out.append((label, model, "response-time", d, None, None, "structured"))
                out.append((label, model, "response-time", d, vals, None, "structured"))
    return out


def large_numeric_requests():
    """Numeric requests on random graphs of 10 to 16 servers: where exact rationals and
    certified digits part ways."""
    out = []
    for m in (10, 12, 14, 16):
        model = random_graph(m, seed=m)
        vals = values_for(model)
        for d in DISCIPLINES:
            if d != "collaborative" and m > 12:
                continue
            for q in ("empty-probability", "mean-number"):
                out.append((f"random{m}", model, q, d, vals, None, "structured"))
    return out


def calibration_requests():
    """The calibration subset: every model and discipline, the empty probability and the mean
    numbers with symbolic and with numeric rates (their plans hold every arithmetic), and the
    response-time law of the models of at most 6 servers."""
    out = []
    for label, model in models():
        vals = values_for(model)
        for d in DISCIPLINES:
            for q in ("empty-probability", "mean-number"):
                if len(model.servers) <= 5:
                    out.append((label, model, q, d, None, None, "structured"))
                out.append((label, model, q, d, vals, None, "structured"))
            if len(model.servers) <= 5:
                out.append((label, model, "response-time", d, None, None, "structured"))
            if len(model.servers) <= 6:
                out.append((label, model, "response-time", d, vals, None, "structured"))
    return out


def regret_requests(count: int = 100):
    """A deterministic sample of ``count`` requests of the corpus (every model, quantity and
    discipline represented)."""
    everything = requests()
    step = max(1, len(everything) // count)
    return everything[::step][:count]
