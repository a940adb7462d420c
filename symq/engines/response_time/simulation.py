r"""A seeded discrete-event simulation of noncollaborative FCFS-ALIS, and seeded random models.
A third, statistical route for the tests and the benchmark: jobs arrive in Poisson streams, an
arrival takes the longest-idle compatible server or joins the queue, a server that completes
takes the oldest compatible waiting job or joins the end of the idle queue (the verbal model of
[GR20]_ section 2). Nothing here uses a formula of :mod:`symq.engines.response_time`.

Examples
--------
>>> from symq.engines.response_time.simulation import random_model, simulate_alis
>>> m = random_model(servers=4, classes=3, seed=1)
>>> len(m.servers), len(m.classes)
(4, 3)
>>> times = simulate_alis(m, jobs=2000, seed=2)
>>> sorted(times) == sorted(m.classes)
True

Running time: $O(\text{jobs}\cdot(M+\text{queue length}))$.
"""

from __future__ import annotations

import heapq
import random
from fractions import Fraction

from symq.models.model import Model

__all__ = ["random_model", "simulate_alis"]


def random_model(servers: int, classes: int, seed: int, load: Fraction = Fraction(1, 2)) -> Model:
    """A connected-enough random model: each class gets a random nonempty server set (every
    server serves some class), heterogeneous rates $\\mu_m\\in\\{1/2,1,3/2,2\\}$, and arrival
    rates scaled so that the total load is ``load`` times the total service rate (then checked
    for stability by the callers' laws).

    Parameters
    ----------
    servers, classes : int
        The sizes $M$ and $J$.
    seed : int
        Of :class:`random.Random`.
    load : Fraction
        The share of each class set's capacity that its arrivals use at most.

    Returns
    -------
    Model
        Named ``random:MxJ:seedS``.

    Examples
    --------
    >>> random_model(3, 3, seed=1)
    Model('random:3x3:seed1', 1->{2,3}, 2->{1}, 3->{1,2})

    Running time: O(J M) per draw; redrawn until every server is used.
    """
    rng = random.Random(seed)
    names = [str(m + 1) for m in range(servers)]
    while True:
        compat = {str(c + 1): sorted(rng.sample(names, rng.randint(1, min(3, servers))))
                  for c in range(classes)}
        if set().union(*compat.values()) == set(names):
            break
    mu = {s: Fraction(rng.choice([1, 2, 3, 4]), 2) for s in names}
    weights = {c: Fraction(rng.randint(1, 4)) for c in compat}
    # never more than `load` of the capacity of a class's own servers
    lam = {}
    for c, servers_of in compat.items():
        capacity = sum(mu[s] for s in servers_of)
        lam[c] = load * capacity * weights[c] / sum(weights[k] for k in compat
                                                    if set(compat[k]) & set(servers_of))
    return Model(compatibility=compat, arrival_rates={c: str(v) for c, v in lam.items()},
                 service_rates={s: str(v) for s, v in mu.items()},
                 name=f"random:{servers}x{classes}:seed{seed}")


def simulate_alis(model: Model, jobs: int, seed: int, warmup: int = 1000,
                  waiting: bool = False) -> dict[str, list[float]]:
    """Response times (or waiting times) of ``jobs`` jobs after ``warmup``, by class.

    Parameters
    ----------
    model : Model
        Exact numeric rates (run in floats).
    jobs : int
        Jobs recorded after the warm-up.
    seed : int
        Of :class:`random.Random`; equal seeds give equal runs.
    warmup : int
        Jobs discarded first.
    waiting : bool
        Record the waits instead of the response times.

    Returns
    -------
    dict
        ``{class: [times]}``.

    Examples
    --------
    >>> from symq import example_model
    >>> times = simulate_alis(example_model("n"), 200, seed=1, warmup=10)
    >>> sum(len(v) for v in times.values())
    200

    Running time: O((jobs + warmup) (M + J) log) events.
    """
    rng = random.Random(seed)
    lam = {c: float(Fraction(str(r))) for c, r in model.arrival_rates.items()}
    mu = {s: float(Fraction(str(r))) for s, r in model.service_rates.items()}
    compat = {c: set(v) for c, v in model.compatibility.items()}
    total = sum(lam.values())
    classes = list(lam)
    cum = [lam[c] / total for c in classes]
    idle = list(model.servers)
    queue: list[tuple[str, float, int]] = []
    events: list[tuple[float, str, str]] = [(rng.expovariate(total), "arrival", "")]
    serving: dict[str, tuple[str, float, int, float]] = {}
    out: dict[str, list[float]] = {c: [] for c in classes}
    count = 0
    done = 0
    while done < jobs + warmup:
        now, kind, server = heapq.heappop(events)
        if kind == "arrival":
            heapq.heappush(events, (now + rng.expovariate(total), "arrival", ""))
            c = rng.choices(classes, cum)[0]
            count += 1
            free = next((s for s in idle if s in compat[c]), None)
            if free is None:
                queue.append((c, now, count))
            else:
                idle.remove(free)
                serving[free] = (c, now, count, now)
                heapq.heappush(events, (now + rng.expovariate(mu[free]), "done", free))
            continue
        c, arrived, number, started = serving.pop(server)
        done += 1
        if done > warmup:
            out[c].append(started - arrived if waiting else now - arrived)
        for k, (qc, qt, qn) in enumerate(queue):
            if server in compat[qc]:
                del queue[k]
                serving[server] = (qc, qt, qn, now)
                heapq.heappush(events, (now + rng.expovariate(mu[server]), "done", server))
                break
        else:
            idle.append(server)
    return out
