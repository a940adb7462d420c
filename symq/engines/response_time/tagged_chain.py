r"""The independent route: a tagged job on the truncated verbal chain of :mod:`symq.engines.ctmc`.
Nothing here uses a product form or a formula of :mod:`symq.engines.response_time`: a tagged class-$i$ job
joins the stationary law of the truncated chain (GTH in :mod:`symq.engines.ctmc`) by the verbal rules of
[GR20]_ section 2, and the jobs then run without further arrivals until it starts service
(``kind="waiting"``) or leaves (``kind="response"``); :func:`tagged_survival` returns the value and
the exact omitted mass $\varepsilon=1-\pi(\emptyset)/\pi_N(\emptyset)$, which bounds the
truncation error ([GR20]_ Cor 3.7). The bound's proof is in docs/response-times.md (How the laws
are checked).

Examples
--------
>>> from fractions import Fraction
>>> from symq import model
>>> from symq.engines.response_time.tagged_chain import tagged_survival
>>> mm1 = model("uninformed:1").substitute({"lambda": "1/2", "mu_1": "1"})
>>> value, bound = tagged_survival(mm1, "alis", "1", Fraction(1), "response", max_jobs=12)
>>> abs(value - 0.6065306597) < bound + 1e-9, bound < 1e-3
(True, True)

Running time: the truncated chain's GTH solve, then one sparse matrix exponential action on the
tagged states.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Iterable

from symq.engines.ctmc import truncated_stationary
from symq.errors import ModelError
from symq.models.model import Model

__all__ = ["tagged_start", "ahead_transitions", "tagged_survival", "absorption_transform",
           "DONE"]

DONE = "done"
TAG = "*"


def _rates(model: Model):
    lam = {c: Fraction(str(r)) for c, r in model.arrival_rates.items()}
    mu = {s: Fraction(str(r)) for s, r in model.service_rates.items()}
    return lam, mu


def _assignment(model: Model, discipline: str):
    if discipline == "rais":
        from symq.engines.aggregated import canonical_assignment
        return lambda m, c, idle: {s: Fraction(str(p)) for s, p in
                                   canonical_assignment(m, c, frozenset(idle)).items()}
    return None


def tagged_start(model: Model, discipline: str, state: Any, job_class: str,
                 assignment: Callable | None = None) -> list[tuple[Any, Fraction]]:
    """The states (with probabilities) right after a tagged ``job_class`` job joins ``state`` of
    the :mod:`symq.engines.ctmc` chain. Collaborative entries are ``(class, tag)``; noncollaborative
    ones ``("q", class, tag)`` or ``("b", server, class, tag)``; the idle servers are kept.

    Parameters
    ----------
    model : Model
        Exact numeric rates (the chain of :mod:`symq.engines.ctmc` it extends).
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.
    state : state
        A state of the untagged chain of :mod:`symq.engines.ctmc` (seen on arrival).
    job_class : str
        The class of the tagged job.
    assignment : callable, optional
        The RAIS routing (uniform by default).

    Returns
    -------
    list
        ``[(tagged state, probability)]`` (several under RAIS).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from symq import example_model
    >>> mm1 = example_model("uninformed:1")  # M/M/1, lambda = 1/2, mu = 1
    >>> tagged_start(example_model("uninformed:1"), "alis", ((), ("1",)), "1")
    [(((('b', '1', '1', '*'),), ()), Fraction(1, 1))]

    Running time: O(M) per start.
    """
    need = model.compatibility[job_class]
    if discipline == "collaborative":
        return [(tuple((c, "") for c in state) + ((job_class, TAG),), Fraction(1))]
    jobs, idle = state
    jobs = tuple(job + ("",) for job in jobs)
    free = [s for s in (idle if discipline == "alis" else model.servers) if s in idle and s in need]
    if not free:
        return [((jobs + (("q", job_class, TAG),), idle), Fraction(1))]
    if discipline == "alis":
        s = free[0]
        return [((jobs + (("b", s, job_class, TAG),), tuple(x for x in idle if x != s)),
                 Fraction(1))]
    choice = (assignment or _assignment(model, discipline))(model, job_class, frozenset(idle))
    return [((jobs + (("b", s, job_class, TAG),), frozenset(idle) - {s}), Fraction(p))
            for s, p in choice.items() if p]


def _done(kind: str, state: Any, discipline: str) -> bool:
    if discipline == "collaborative":
        return False
    jobs = state[0]
    if kind == "waiting":
        return not any(job[-1] == TAG and job[0] == "q" for job in jobs)
    return not any(job[-1] == TAG for job in jobs)


def ahead_transitions(model: Model, discipline: str, kind: str, arrivals: bool = False,
                      max_jobs: int = 0, assignment: Callable | None = None):
    """``state -> [(next, rate)]`` of the system with a tagged job, ``DONE`` once it starts
    service (``waiting``) or leaves (``response``); with ``arrivals`` later jobs keep arriving
    (blocked beyond ``max_jobs`` jobs).

    Parameters
    ----------
    model : Model
        Exact numeric rates; the moves are written from the verbal model.
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.
    kind : str
        ``response`` or ``waiting``.
    arrivals : bool
        Keep later arrivals in the chain.
    max_jobs : int
        Their cap.
    assignment : callable, optional
        The RAIS routing, as in :func:`symq.engines.ctmc.random_assignment_transitions`.

    Returns
    -------
    callable
        ``transitions(state)`` returning ``[(next, rate)]``.

    Examples
    --------
    >>> import symq
    >>> mm1 = symq.example_model("uninformed:1")
    >>> step = ahead_transitions(mm1, "alis", "response")
    >>> step(((("b", "1", "1", "*"),), ()))
    [('done', Fraction(1, 1))]

    Running time: O(n M) per state with n jobs.
    """
    lam, mu = _rates(model)
    compat = model.compatibility
    assign = assignment or _assignment(model, discipline)

    def collaborative(state):
        used: set[str] = set()
        out = []
        for p, (c, tag) in enumerate(state):
            fresh = set(compat[c]) - used
            if fresh:
                rest = state[:p] + state[p + 1:]
                if tag == TAG or (kind == "waiting" and
                                  _is_done_at_start(rest, "collaborative", kind, model)):
                    rest = DONE
                out.append((rest, sum(mu[s] for s in fresh)))
                used |= fresh
        if arrivals and len(state) < max_jobs:
            out += [(state + ((c, ""),), lam[c]) for c in model.classes]
        return out

    def noncollaborative(state):
        jobs, idle = state
        out = []
        for p, job in enumerate(jobs):
            if job[0] != "b":
                continue
            server = job[1]
            rest = jobs[:p] + jobs[p + 1:]
            if job[-1] == TAG:  # kind == "response": the tagged job leaves
                out.append((DONE, mu[server]))
                continue
            for k, other in enumerate(rest):
                if other[0] == "q" and server in compat[other[1]]:
                    if other[-1] == TAG and kind == "waiting":
                        out.append((DONE, mu[server]))
                    else:
                        new = rest[:k] + (("b", server, other[1], other[-1]),) + rest[k + 1:]
                        out.append(((new, idle), mu[server]))
                    break
            else:
                new_idle = idle + (server,) if isinstance(idle, tuple) else idle | {server}
                out.append(((rest, new_idle), mu[server]))
        if arrivals and len(jobs) < max_jobs:
            for c in model.classes:
                free = [s for s in (idle if isinstance(idle, tuple) else model.servers)
                        if s in idle and s in compat[c]]
                if not free:
                    out.append(((jobs + (("q", c, ""),), idle), lam[c]))
                elif isinstance(idle, tuple):
                    s = free[0]
                    out.append(((jobs + (("b", s, c, ""),), tuple(x for x in idle if x != s)),
                                lam[c]))
                else:
                    for s, p in assign(model, c, frozenset(idle)).items():
                        if p:
                            out.append(((jobs + (("b", s, c, ""),), idle - {s}), lam[c] * p))
        return out

    return collaborative if discipline == "collaborative" else noncollaborative


def _is_done_at_start(state, discipline, kind, model) -> bool:
    if discipline == "collaborative":
        if kind != "waiting":
            return False
        used: set[str] = set()
        for c, tag in state:
            fresh = set(model.compatibility[c]) - used
            if tag == TAG:
                return bool(fresh)
            used |= fresh
        return False
    return _done(kind, state, discipline)


def _explore(starts: Iterable[Any], transitions) -> tuple[dict, list[dict]]:
    index: dict[Any, int] = {}
    rows: list[dict] = []
    stack = list(starts)
    for s in stack:
        if s not in index:
            index[s] = len(rows)
            rows.append({})
    k = 0
    order = list(index)
    while k < len(order):
        state = order[k]
        row = rows[index[state]]
        for target, rate in transitions(state):
            if target == state:
                continue
            if target != DONE and target not in index:
                index[target] = len(rows)
                rows.append({})
                order.append(target)
            key = DONE if target == DONE else index[target]
            row[key] = row.get(key, 0) + rate
        k += 1
    return index, rows


def tagged_survival(model: Model, discipline: str, job_class: str, time: Fraction, kind: str,
                    max_jobs: int) -> tuple[float, float]:
    r"""$P(T>t)$ (``kind="response"``) or $P(W>t)$ (``"waiting"``) of a tagged ``job_class`` job
    on the truncated chain, and the truncation bound $\varepsilon$ of the module text.

    Parameters
    ----------
    model : Model
        Exact numeric rates with $\lambda<\min_j\mu_j$ (for the truncation bound).
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.
    job_class : str
        The tagged class.
    time : Fraction
        $t$.
    kind : str
        ``response`` or ``waiting``.
    max_jobs : int
        The truncation of the stationary chain.

    Returns
    -------
    tuple of float
        The value and its bound $\varepsilon$.

    Raises
    ------
    ModelError
        Symbolic rates, or a chain too large for ``max_jobs``.

    Examples
    --------
    >>> from symq import example_model
    >>> value, bound = tagged_survival(example_model("uninformed:1"), "alis", "1", Fraction(1),
    ...                                "response", max_jobs=12)
    >>> abs(value - 0.6065306597) < bound + 1e-9
    True

    Running time: O(S^3) for the S truncated states, plus the uniformized transient solve.
    """
    import numpy
    from scipy.sparse import csr_matrix
    from scipy.sparse.linalg import expm_multiply

    from symq.engines.normalization import empty_probability
    if not model.is_numeric:
        raise ModelError("the truncated chain needs numeric rates")
    assignment = _assignment(model, discipline)
    kwargs = {"assignment": assignment} if assignment else {}
    law = truncated_stationary(model, discipline, max_jobs, exact=False, **kwargs)
    empty_state = [p for state, p in law.items() if not (state if discipline == "collaborative"
                                                        else state[0])]
    exact_empty = float(Fraction(str(empty_probability(model, discipline))))
    epsilon = max(0.0, 1 - exact_empty / sum(empty_state))
    starts: dict[Any, float] = {}
    done_mass = 0.0
    for state, p in law.items():
        for start, q in tagged_start(model, discipline, state, job_class, assignment):
            if _is_done_at_start(start, discipline, kind, model):
                done_mass += p * float(q)
            else:
                starts[start] = starts.get(start, 0.0) + p * float(q)
    transitions = ahead_transitions(model, discipline, kind, assignment=assignment)
    index, rows = _explore(starts, transitions)
    n = len(rows)
    r, c, v = [], [], []
    for i, row in enumerate(rows):
        out = 0.0
        for j, rate in row.items():
            rate = float(rate)
            out += rate
            if j != DONE:
                r.append(j)
                c.append(i)
                v.append(rate)
        r.append(i)
        c.append(i)
        v.append(-out)
    generator_t = csr_matrix((v, (r, c)), shape=(n, n))
    p0 = numpy.zeros(n)
    for state, p in starts.items():
        p0[index[state]] += p
    if float(time) == 0:
        return float(p0.sum()), epsilon
    vector = expm_multiply(generator_t * float(time), p0)
    return float(vector.sum()), epsilon + 1e-10


def absorption_transform(model: Model, discipline: str, kind: str, start: Any, theta: Fraction,
                         arrivals: bool, max_jobs: int = 0) -> Fraction:
    r"""$E_x e^{-\theta T}$ exactly (Fractions) from the tagged state ``start``, with or without
    later arrivals (capped at ``max_jobs`` jobs in the system).

    Parameters
    ----------
    model : Model
        Exact numeric rates; the absorbing chain is solved in Fractions.
    discipline : str
        ``collaborative``, ``alis`` or ``rais`` (uniform assignment).
    kind : str
        ``response`` or ``waiting``.
    start : state
        A tagged state from :func:`tagged_start`.
    theta : Fraction
        The transform argument, at least 0.
    arrivals : bool
        Whether later arrivals are part of the chain.
    max_jobs : int
        The cap on jobs with ``arrivals``.

    Returns
    -------
    Fraction
        Exact; 1 at ``theta = 0``.

    Raises
    ------
    ModelError
        A chain too large to solve exactly (lower ``max_jobs``), for instance with arrivals
        and a high cap.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from symq.models.catalog import example_model
    >>> mm1 = example_model("uninformed:1")
    >>> start = tagged_start(mm1, "alis", ((), ("1",)), "1")[0][0]
    >>> absorption_transform(mm1, "alis", "response", start, Fraction(1), arrivals=False)
    Fraction(1, 2)

    Running time: one exact linear solve over the S transient states, O(S^3).
    """
    transitions = ahead_transitions(model, discipline, kind, arrivals=arrivals, max_jobs=max_jobs)
    if _is_done_at_start(start, discipline, kind, model):
        return Fraction(1)
    index, rows = _explore([start], transitions)
    n = len(rows)
    if n > 600:
        raise ModelError("the tagged chain is too large for the exact solve; lower max_jobs")
    theta = Fraction(theta)
    # (theta + q(x)) u(x) - sum_y q(x, y) u(y) = q(x, done): sparse exact elimination
    rows_eq: list[dict] = []
    for i, row in enumerate(rows):
        equation: dict = {i: theta + sum((Fraction(x) for x in row.values()), Fraction(0)),
                          "rhs": Fraction(0)}
        for j, rate in row.items():
            if j == DONE:
                equation["rhs"] += Fraction(rate)
            else:
                equation[j] = equation.get(j, Fraction(0)) - Fraction(rate)
        rows_eq.append(equation)
    for col in range(n - 1, -1, -1):  # eliminate the last explored states first
        pivot = rows_eq[col]
        lead = pivot.pop(col)
        pivot = {k: v / lead for k, v in pivot.items()}
        rows_eq[col] = pivot
        for r in range(col):
            f = rows_eq[r].pop(col, None)
            if f:
                target = rows_eq[r]
                for k, v in pivot.items():
                    target[k] = target.get(k, Fraction(0)) - f * v
    solution: dict[int, Fraction] = {}
    for col in range(n):
        eq = rows_eq[col]
        solution[col] = eq["rhs"] - sum((v * solution[k] for k, v in eq.items()
                                         if k != "rhs"), Fraction(0))
    return solution[index[start]]
