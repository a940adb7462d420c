"""Shared pieces of the survey derivation scripts (not a derivation itself: no verdict).

Everything is exact (``fractions.Fraction``) unless a name says ``float``:

* rates of a numeric model as Fractions, server sets as frozensets;
* the collaborative product form of Thm 3.3 summed over the states with at most ``n`` jobs,
  normalised with the exact pi(empty) of the server-removal recursion (Prop 6.2,
  :func:`symq.engines.normalization.collaborative_empty_probability`, general graphs: it does not use the
  nested closed form of Thm 4.5), and the
  exact omitted mass (the probability of more than ``n`` jobs);
* a *lumped* noncollaborative chain written from the verbal model (FCFS, ALIS or random
  assignment), on ``(z, idle)`` with ``z`` the jobs in arrival order, ``("b", server)`` in service
  and ``("q", class)`` waiting (the class of a job in service never matters for the dynamics),
  cut at a number of *waiting* jobs (an acceptance region with the truncation property);
* "tagged job" absorption times: a job's wait depends only on the jobs ahead of it (FCFS: a later
  arrival never takes a server from an earlier job), and those evolve on their own, so the LST of
  its time in system (or in queue) given the jobs ahead is the solution of a finite acyclic
  recursion over what is left ahead. Averaging it over a stationary law truncated at ``n`` jobs,
  with the exact omitted mass ``eps``, gives a rigorous interval for the true LST
  (``0 <= LST <= 1`` on the omitted states).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache

import sympy

from symq.engines import ctmc
from symq.engines.normalization import collaborative_empty_probability


def frac(value) -> Fraction:
    """An exact rational (from a sympy number, a string or an int)."""
    value = sympy.nsimplify(sympy.sympify(value), rational=True)
    return Fraction(int(value.p), int(value.q))


class Rates:
    """Fractions of a numeric model: ``lam[c]``, ``mu[s]``, ``sets[c]`` (a frozenset)."""

    def __init__(self, model) -> None:
        self.model = model
        self.lam = {c: frac(r) for c, r in model.arrival_rates.items()}
        self.mu = {s: frac(r) for s, r in model.service_rates.items()}
        self.sets = {c: frozenset(s) for c, s in model.compatibility.items()}
        self.servers = frozenset(model.servers)

    def mu_of(self, servers) -> Fraction:
        return sum((self.mu[s] for s in servers), Fraction(0))

    def reach(self, classes) -> frozenset:
        return frozenset().union(*(self.sets[c] for c in classes)) if classes else frozenset()

    def lam_required(self, servers) -> Fraction:
        return sum((r for c, r in self.lam.items() if self.sets[c] <= servers), Fraction(0))

    def r(self, servers) -> Fraction:
        return self.mu_of(servers) - self.lam_required(servers)

    def lam_compatible(self, servers) -> Fraction:
        return sum((r for c, r in self.lam.items() if self.sets[c] & servers), Fraction(0))


# ---------------------------------------------------------------- collaborative product form
def collaborative_term(rates: Rates, state) -> Fraction:
    """Thm 3.3 term prod_i lambda_{c_i} / mu(S(c_1..c_i)), with pi(empty) = 1."""
    value, seen = Fraction(1), frozenset()
    for c in state:
        seen = seen | rates.sets[c]
        value *= rates.lam[c] / rates.mu_of(seen)
    return value


def collaborative_law(model, n: int):
    """``(law, eps)``: the normalised Thm 3.3 law on every state with at most ``n`` jobs, and the
    exact mass of the states left out."""
    rates = Rates(model)
    empty = frac(collaborative_empty_probability(model))
    law = {}
    for k in range(n + 1):
        for state in itertools.product(model.classes, repeat=k):
            law[state] = empty * collaborative_term(rates, state)
    return law, 1 - sum(law.values())


def collaborative_tagged(rates: Rates, job_class: str, theta: Fraction, until: str):
    """LST of the time a tagged ``job_class`` job spends until ``until``, given the classes of the
    jobs ahead of it, in the collaborative model (verbal dynamics: the job in position p is
    served by the servers of its set not taken by older jobs).

    ``until``: ``"completion"`` (response time), ``"service"`` (the first time a server works on
    it), or ``"first of class"`` (no job of its own class ahead any more).
    """
    need = rates.sets[job_class]

    @lru_cache(maxsize=None)
    def h(ahead: tuple) -> Fraction:
        taken = rates.reach(ahead)
        if until == "service" and not need <= taken:
            return Fraction(1)
        if until == "first of class" and job_class not in ahead:
            return Fraction(1)
        total, flow, used = theta, Fraction(0), frozenset()
        for p, c in enumerate(ahead):
            fresh = rates.sets[c] - used
            used = used | rates.sets[c]
            if fresh:
                rate = rates.mu_of(fresh)
                total += rate
                flow += rate * h(ahead[:p] + ahead[p + 1:])
        if until == "completion":
            rate = rates.mu_of(need - taken)
            total += rate
            flow += rate
        return flow / total
    return h


def interval(law, eps: Fraction, h) -> tuple[Fraction, Fraction]:
    """Rigorous bounds on E h over the full law, from its truncation (0 <= h <= 1)."""
    low = sum((p * h(s) for s, p in law.items()), Fraction(0))
    return low, low + eps


# ---------------------------------------------------------------- noncollaborative chain
def waiting(state) -> int:
    return sum(1 for job in state[0] if job[0] == "q")


def noncollaborative_transitions(model, discipline: str, routing=None):
    """Lumped FCFS chain on ``(z, idle)``; ``discipline`` ``"alis"`` (idle: tuple, longest idle
    first) or ``"rais"`` (idle: frozenset; ``routing(model, class, idle) -> {server: p}``)."""
    rates = Rates(model)

    def transitions(state):
        z, idle = state
        for c in model.classes:
            free = [s for s in idle if s in rates.sets[c]]
            if not free:
                yield (z + (("q", c),), idle), rates.lam[c]
            elif discipline == "alis":
                s = free[0]
                yield (z + (("b", s),), tuple(x for x in idle if x != s)), rates.lam[c]
            else:
                for s, p in routing(model, c, idle).items():
                    p = frac(p)
                    if p:
                        yield (z + (("b", s),), idle - {s}), rates.lam[c] * p
        for k, job in enumerate(z):
            if job[0] != "b":
                continue
            s = job[1]
            rest = z[:k] + z[k + 1:]
            p = next((p for p, x in enumerate(rest) if x[0] == "q" and s in rates.sets[x[1]]), None)
            if p is not None:  # the server takes the oldest compatible waiting job
                yield (rest[:p] + (("b", s),) + rest[p + 1:], idle), rates.mu[s]
            elif discipline == "alis":
                yield (rest, idle + (s,)), rates.mu[s]
            else:
                yield (rest, idle | {s}), rates.mu[s]
    return transitions


def noncollaborative_law(model, discipline: str, cap: int, routing=None, exact: bool = True):
    """Stationary law of the lumped chain with at most ``cap`` waiting jobs."""
    idle = tuple(model.servers) if discipline == "alis" else frozenset(model.servers)
    chain = ctmc.build_chain(((), idle), noncollaborative_transitions(model, discipline, routing),
                             keep=lambda s: waiting(s) <= cap)
    return ctmc.stationary_distribution(chain, exact=exact)


def noncollaborative_tagged(rates: Rates, job_class: str, theta: Fraction):
    """LST of the queueing time of a tagged ``job_class`` job that waits, given the classes
    waiting ahead of it and the busy set (verbal FCFS dynamics of the noncollaborative model: a
    busy server that completes takes the oldest compatible waiting job, else becomes idle; a
    later arrival only takes idle servers, which no job ahead and not the tagged job can use)."""
    need = rates.sets[job_class]

    @lru_cache(maxsize=None)
    def h(ahead: tuple, busy: frozenset) -> Fraction:
        total, flow = theta, Fraction(0)
        for s in busy:
            rate = rates.mu[s]
            total += rate
            p = next((p for p, c in enumerate(ahead) if s in rates.sets[c]), None)
            if p is not None:
                flow += rate * h(ahead[:p] + ahead[p + 1:], busy)
            elif s in need:
                flow += rate  # the tagged job starts service
            else:
                flow += rate * h(ahead, busy - {s})
        return flow / total
    return h


def lst_value(expr, theta: Fraction) -> Fraction:
    """A sympy LST in ``theta`` evaluated exactly."""
    from symq.engines.distributions import THETA
    return frac(sympy.sympify(expr).subs(THETA, sympy.Rational(theta.numerator, theta.denominator)))


def inside(value: Fraction, bounds) -> bool:
    return bounds[0] <= value <= bounds[1]


def show(value) -> str:
    return f"{float(value):.10f}"


# ---------------------------------------------------------------- small example models
FLEXIBLE_RATES = {
    "n": ({"lambda_1": "1/4", "lambda_2": "1/3", "mu_1": 1, "mu_2": "1/2"}, "2"),
    "w": ({"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"},
          "3"),
    "nested": ({"lambda_1": "1/10", "lambda_2": "1/8", "lambda_3": "1/10", "lambda_4": "1/5",
                "lambda_5": "1/5", "mu_1": 1, "mu_2": "3/4", "mu_3": 1}, "5"),
    "ring:3+J": ({"lambda_1": "1/5", "lambda_2": "1/4", "lambda_3": "1/5", "lambda_4": "1/4",
                  "mu_1": 1, "mu_2": "3/4", "mu_3": 1}, "4"),
}


def example(name: str):
    """A built-in model, or ``ring:3+J``: the non-nested ring of 3 classes plus a fully flexible
    class 4 (symbolic rates)."""
    import symq
    if name == "ring:3+J":
        compatibility = {"1": ["1", "2"], "2": ["2", "3"], "3": ["3", "1"], "4": ["1", "2", "3"]}
        return symq.Model(compatibility=compatibility,
                          arrival_rates={c: f"lambda_{c}" for c in compatibility},
                          service_rates={s: f"mu_{s}" for s in "123"}, name="ring:3+J")
    return symq.model(name)


def flexible_examples():
    """``(name, numeric model, fully flexible class)`` for N, W, nested and ring:3+J."""
    for name, (values, flexible) in FLEXIBLE_RATES.items():
        yield name, example(name).substitute(values), flexible


# ---------------------------------------------------------------- partially aggregated states
def routing_function(table):
    """Adapt a symq routing table {busy set: {class: {server: p}}} to ``(model, class, idle)``."""
    def route(model, job_class, idle):
        return table[frozenset(model.servers) - frozenset(idle)][job_class]
    return route


def busy_and_queue(z) -> tuple[tuple, tuple]:
    """``(b, n)``: busy servers in the order of their jobs, waiting jobs after each of them."""
    busy, queue = [], []
    for job in z:
        if job[0] == "b":
            busy.append(job[1])
            queue.append(0)
        else:
            queue[-1] += 1
    return tuple(busy), tuple(queue)


def aggregate(law, key) -> dict:
    out: dict = {}
    for state, p in law.items():
        k = key(state)
        out[k] = out.get(k, Fraction(0)) + p
    return out


def one_ratio(measured: dict, formula) -> bool:
    """Whether ``measured[k] / formula(k)`` is the same constant for every k (and formula(k) != 0)."""
    ratios = set()
    for k, p in measured.items():
        value = formula(k)
        if value == 0:
            return False
        ratios.add(p / value)
    return len(ratios) == 1


def conditional_queue_law(rates: Rates, busy_order, cap: int):
    """Given the ordered busy servers b (Thm 3.10 / 5.1: independent geometric queue lengths
    n_j with parameter alpha(B_j), each waiting job in segment j of class c with probability
    lambda_c / lambda(R(B_j))): ``(law of the waiting classes in order, omitted mass)``, cut at
    ``cap`` waiting jobs in all."""
    segments = []
    prefix = frozenset()
    for b in busy_order:
        prefix = prefix | {b}
        required = {c: r for c, r in rates.lam.items() if rates.sets[c] <= prefix}
        total = sum(required.values(), Fraction(0))
        segments.append((required, total, total / rates.mu_of(prefix)))
    law: dict = {(): Fraction(1)}
    for required, total, alpha in segments:
        grown: dict = {}
        for queue, p in law.items():
            for n in range(cap - len(queue) + 1):
                weight = p * (1 - alpha) * alpha ** n
                for word in itertools.product(sorted(required), repeat=n):
                    q = weight
                    for c in word:
                        q *= required[c] / total
                    key = queue + word
                    grown[key] = grown.get(key, Fraction(0)) + q
        law = grown
    return law, 1 - sum(law.values(), Fraction(0))


def collaborative_in_service_law(rates: Rates, served, cap: int):
    """Given the classes d of the jobs in service (Prop 5.5, corrected validity condition; the
    detailed law of Thm 3.3): independent geometric segment lengths with parameter
    alpha(S(d_1..d_j)), iid waiting classes proportional to lambda on R(S(d_1..d_j)).
    Returns ``(law of the whole job sequence, omitted mass)``, cut at ``cap`` waiting jobs."""
    law: dict = {(): Fraction(1)}
    taken = frozenset()
    for position, d in enumerate(served):
        taken = taken | rates.sets[d]
        required = {c: r for c, r in rates.lam.items() if rates.sets[c] <= taken}
        total = sum(required.values(), Fraction(0))
        alpha = total / rates.mu_of(taken)
        grown: dict = {}
        for jobs, p in law.items():
            waiting_so_far = len(jobs) - position
            for n in range(cap - waiting_so_far + 1):
                weight = p * (1 - alpha) * alpha ** n
                for word in itertools.product(sorted(required), repeat=n):
                    q = weight
                    for c in word:
                        q *= required[c] / total
                    key = jobs + (d,) + word
                    grown[key] = grown.get(key, Fraction(0)) + q
        law = grown
    return law, 1 - sum(law.values(), Fraction(0))


def in_service_probability(rates: Rates, empty: Fraction) -> dict:
    """P(d) = pi(empty) prod_j lambda_{d_j} / r(S(d_1..d_j)) for every valid d (Prop 5.5 summed
    over n)."""
    out = {}

    def walk(served, taken, weight):
        out[served] = empty * weight
        for c in sorted(rates.lam):
            if not rates.sets[c] <= taken:
                grown = taken | rates.sets[c]
                walk(served + (c,), grown, weight * rates.lam[c] / rates.r(grown))
    walk((), frozenset(), Fraction(1))
    return out


# ---------------------------------------------------------------- pi(empty) by direct summation
def direct_empty_probability(rates: Rates, classes=None) -> Fraction:
    """pi^C(empty) = 1/G, G the sum of the Thm 3.3 product form over every state, summed exactly
    (independent of Prop 6.2 and of symq.engines.normalization): the term of a state depends only on the
    chain of unions S(c_1..c_i), so G = F(empty) with
    F(U) = (1 + sum_{c: S_c not in U} lambda_c / mu(U | S_c) F(U | S_c)) / (1 - lambda(R(U))/mu(U)),
    the denominator summing the geometric run of jobs that add no server. ``classes`` restricts
    the model to a subset of classes (the system -A)."""
    classes = sorted(rates.lam) if classes is None else sorted(classes)

    @lru_cache(maxsize=None)
    def f(union: frozenset) -> Fraction:
        grow = Fraction(1)
        stay = Fraction(0)
        for c in classes:
            if rates.sets[c] <= union:
                stay += rates.lam[c]
            else:
                wider = union | rates.sets[c]
                grow += rates.lam[c] / rates.mu_of(wider) * f(wider)
        if not union:
            return grow
        ratio = stay / rates.mu_of(union)
        if ratio >= 1:
            raise ValueError("unstable: lambda(R(U)) >= mu(U)")
        return grow / (1 - ratio)
    return 1 / f(frozenset())


def simplest_between(a: Fraction, b: Fraction) -> Fraction:
    """The fraction of least denominator strictly between ``a < b`` (Stern-Brocot descent)."""
    lo_n, lo_d, hi_n, hi_d = 0, 1, 1, 0  # 0/1 and 1/0
    shift = Fraction(a.numerator // a.denominator)  # work in (a - floor a, b - floor a)
    a, b = a - shift, b - shift
    while True:
        n, d = lo_n + hi_n, lo_d + hi_d
        mid = Fraction(n, d)
        if mid <= a:
            lo_n, lo_d = n, d
        elif mid >= b:
            hi_n, hi_d = n, d
        else:
            return mid + shift


def exact_gap(value: Fraction, bounds) -> str:
    """``value`` against a rigorous interval, in exact rationals: a short fraction separating
    them (the interval bounds themselves have long denominators)."""
    low, high = bounds
    if value < low:
        return f"{value} < {simplest_between(value, low)} < true value (>= {show(low)})"
    if value > high:
        return f"{value} > {simplest_between(high, value)} > true value (<= {show(high)})"
    return f"{value} inside [{show(low)}, {show(high)}]"
