"""Second routes shared by several test files (not a test module).

* :func:`general_collaborative_values` forces the general subset DP of the collaborative model
  (``method="subset-dp"``), bypassing the structured shortcuts (nested closed form, redundancy
  symmetry), so that a test compares a shortcut with an algorithm that shares none of its code.
* :func:`ctmc_means` solves the truncated chain of the verbal model (symq.engines.ctmc) and returns
  P(empty), P(server idle) and per-class mean numbers, with the truncation bound of
  :func:`truncation_bounds`.
* :func:`random_stable_model` draws the seeded random graphs of the certified and normalization
  benchmarks (which import it from here, so that a benchmark and a test share one workload).
"""

import random
from fractions import Fraction

import sympy

import symq

from symq.engines import ctmc
from symq.queries import exact as nz
from symq.models.model import Model


def general_collaborative_values(model):
    """``{"empty", "idle", "L"}`` of the collaborative model by the general subset DP, forced
    with ``method="subset-dp"`` (the automatic choice would take the nested tree or the
    redundancy symmetry)."""
    return {"empty": nz.empty_probability(model, method="subset-dp"),
            "idle": nz.server_idle_probability(model, method="subset-dp")["per_server"],
            "L": nz.mean_number(model, method="subset-dp")["per_class"]}


def truncation_bounds(model, max_jobs):
    r"""Bounds on how far the law truncated at ``max_jobs`` moves a probability and a mean count.

    In every discipline the oldest job is in service, so while the system is non-empty jobs
    leave at rate >= m = min_j mu_j and the job count N is dominated by an M/M/1 queue of load
    r = lambda/m: P(N > n) <= q = r^(n+1). Blocking at n jobs conditions the law on N <= n, so a
    probability moves by at most q/(1-q) and the mean of a count X <= N by at most
    E[N] q/(1-q) + E[N; N > n] <= r/(1-r) q/(1-q) + q (n+1+r/(1-r)).
    """
    r = Fraction(str(model.arrival_rate())) / min(Fraction(str(v))
                                                  for v in model.service_rates.values())
    assert r < 1, "the truncation bound needs lambda < min mu_j"
    q = r ** (max_jobs + 1)
    prob = q / (1 - q)
    mean = r / (1 - r) * prob + q * (max_jobs + 1 + r / (1 - r))
    return float(prob) + 1e-9, float(mean) + 1e-9


def ctmc_means(model, discipline, max_jobs, **options):
    """P(empty), P(server idle) and per-class mean numbers of the truncated verbal chain."""
    law = ctmc.truncated_stationary(model, discipline, max_jobs, exact=False, **options)
    empty = float(ctmc.empty_mass(law))
    idle = {s: 0.0 for s in model.servers}
    means = {c: 0.0 for c in model.classes}
    for state, p in law.items():
        busy = ctmc.busy_servers(model, state)
        for s in model.servers:
            if s not in busy:
                idle[s] += p
        for c, k in ctmc.class_counts(state).items():
            means[c] += k * p
    return {"empty": empty, "idle": idle, "L": means}


def as_fraction(value) -> Fraction:
    value = getattr(value, "exact", value)  # a symq.solve Result of a numeric model
    value = sympy.sympify(value)
    assert value.is_Rational, value
    return Fraction(int(value.p), int(value.q))


def product_form_law(process, states) -> dict:
    """The product form of ``process`` on ``states``, normalized there (exact)."""
    weights = {s: as_fraction(process.product_form(s)) for s in states}
    total = sum(weights.values())
    return {s: w / total for s, w in weights.items()}


def aggregate(law, key) -> dict:
    """The image law of ``law`` under ``key``."""
    result: dict = {}
    for state, p in law.items():
        k = key(state)
        result[k] = result.get(k, Fraction(0)) + p
    return result


def assert_same_law(chain, product):
    """Same support and the same exact probabilities."""
    support = {s for s, p in chain.items() if p}
    assert support == {s for s, p in product.items() if p}
    for s in support:
        assert chain[s] == product[s], s


def random_stable_model(servers, seed, load=Fraction(3, 4), classes=None, edge=None,
                        arrival_denominator=10):
    """A seeded random model with exact rates: ``classes`` classes (default ``servers``), each
    compatible with 2-4 random servers, or with each server with probability ``edge`` (at least
    one); every server serves some class; mu_s = randint(2, 6)/4, lambda_c = randint(1, 5) /
    ``arrival_denominator``, all arrival rates multiplied by ``load`` until the model is stable."""
    rng = random.Random(seed)
    names = [str(j) for j in range(1, servers + 1)]
    classes = servers if classes is None else classes
    compatibility = {}
    for c in range(1, classes + 1):
        if edge is None:
            chosen = sorted(rng.sample(names, rng.randint(2, min(4, servers))), key=int)
        else:
            chosen = [s for s in names if rng.random() < edge] or [rng.choice(names)]
        compatibility[str(c)] = chosen
    for s in names:  # every server serves some class
        if not any(s in v for v in compatibility.values()):
            compatibility[str(rng.randint(1, classes))].append(s)
    mu = {s: Fraction(rng.randint(2, 6), 4) for s in names}
    lam = {c: Fraction(rng.randint(1, 5), arrival_denominator) for c in compatibility}
    model = Model(compatibility=compatibility, arrival_rates=lam, service_rates=mu)
    while not symq.is_stable(model):
        lam = {c: v * load for c, v in lam.items()}
        model = Model(compatibility=compatibility, arrival_rates=lam, service_rates=mu)
    return model
