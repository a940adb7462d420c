"""An independent reference for response times: a brute-force Markov chain with a tagged job,
written from the verbal model only. It does not import symq.

Model (collaborative FCFS, "redundancy with cancel-on-complete"): jobs of class c arrive at
rate lambda_c and queue in order of arrival; each server works on the earliest job in the queue
that it is compatible with; a job leaves when any of its servers completes it (the job's
completion rate is the sum of the rates of the servers working on it).

The chain of the queue (a tuple of classes, oldest first) is truncated at ``cap`` jobs and
solved in floating point (numpy); an arriving tagged job sees the stationary law (PASTA) and
then only the jobs ahead of it matter (a server takes the earliest compatible job, so later
arrivals never delay the tagged one). The mean and second moment of its response time follow
from a recursion over the jobs ahead (every step removes one job).

Running time: O(S^3) for the S states of the truncated chain (S < 2^(cap+1) for two classes).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np


def service(queue: tuple, compatibility: dict, mu: dict) -> list[float]:
    """Completion rate of each job of ``queue`` (oldest first) under collaborative FCFS."""
    taken: set = set()
    rates = []
    for c in queue:
        mine = [s for s in compatibility[c] if s not in taken]
        taken.update(mine)
        rates.append(sum(mu[s] for s in mine))
    return rates


def stationary(compatibility: dict, lam: dict, mu: dict, cap: int) -> dict[tuple, float]:
    """The truncated chain's stationary law (arrivals past ``cap`` jobs are lost)."""
    classes = sorted(lam)
    states = [()]
    k = 0
    while k < len(states):
        if len(states[k]) < cap:
            states += [states[k] + (c,) for c in classes]
        k += 1
    index = {s: i for i, s in enumerate(states)}
    q = np.zeros((len(states), len(states)))
    for s, i in index.items():
        if len(s) < cap:
            for c in classes:
                q[i, index[s + (c,)]] += lam[c]
        for j, rate in enumerate(service(s, compatibility, mu)):
            if rate:
                q[i, index[s[:j] + s[j + 1:]]] += rate
        q[i, i] = -q[i].sum()
    a = q.T.copy()
    a[-1] = 1  # one balance equation replaced by the normalization
    b = np.zeros(len(states))
    b[-1] = 1
    pi = np.linalg.solve(a, b)
    return {s: pi[i] for s, i in index.items()}


def tagged_moments(compatibility: dict, lam: dict, mu: dict, job_class: str, cap: int
                   ) -> tuple[float, float, float]:
    """``(E T, E T^2, mass of the truncation level)`` of a tagged ``job_class`` job."""

    @lru_cache(maxsize=None)
    def moments(ahead: tuple) -> tuple[float, float]:
        queue = ahead + (job_class,)
        rates = service(queue, compatibility, mu)
        total = sum(rates)
        first = 1 / total
        second = 2 / total ** 2
        for j, rate in enumerate(rates[:-1]):
            if rate:
                m1, m2 = moments(ahead[:j] + ahead[j + 1:])
                p = rate / total
                first += p * m1
                second += p * (m2 + 2 * m1 / total)
        return first, second

    law = stationary(compatibility, lam, mu, cap)
    mean = sum(p * moments(s)[0] for s, p in law.items())
    second = sum(p * moments(s)[1] for s, p in law.items())
    top = sum(p for s, p in law.items() if len(s) == cap)
    return mean, second, top
