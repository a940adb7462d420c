r"""Second routes to the law of Cabral's queue: the chain of [Cab]_ section 2.2 built from the
verbal model (:func:`uninformed_transitions`), whose global balance equations
:func:`balance_residuals` checks exactly for any candidate law, and the FCFS-RAIS product form of
[GR20]_ Theorem 3.10 for one fully flexible class, state by state in the arrival order of the
busy servers and summed over the orders of a busy set (:func:`rais_aggregated_weight`).

References
----------
.. [Cab] F. B. Cabral, "Queues with heterogeneous servers and uninformed customers: who works the
   most?" (see ``docs/uninformed.md``).
.. [GR20] K. Gardner, R. Righter, "Product forms for FCFS queueing models with arbitrary
   server-job compatibilities: an overview", Queueing Systems 96 (2020); arXiv:2006.05979.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Iterable, Iterator, Sequence

import sympy

from symq.arithmetic.certificates import to_field
from symq.errors import ModelError
from symq.arithmetic.exact import fraction_field
from symq.studies.uninformed.law import state_weight
from symq.studies.uninformed.queue import State, UninformedQueue, busy_set, uninformed_queue

__all__ = ["uninformed_transitions", "balance_residuals", "balance_failures",
           "rais_product_form_weight", "rais_aggregated_weight"]


def uninformed_transitions(queue: UninformedQueue
                           ) -> Callable[[State], Iterator[tuple[State, Any]]]:
    r"""The transitions of the chain of [Cab]_ section 2.2, built from the verbal model (no
    product form): the independent route to the law.

    State ``(busy, q)``. An arrival goes to each idle server with rate $\lambda/\#\text{idle}$, or
    waits when all are busy. Server $j$ completes at rate $\mu_j$ and then takes the head of the
    queue or becomes idle. Rates are sympy expressions, so symbolic rates work.

    Parameters
    ----------
    queue : UninformedQueue

    Returns
    -------
    callable
        ``transitions(state)`` yielding ``(target state, rate)``.

    Notes
    -----
    Running time: $O(n)$ transitions per state.

    Examples
    --------
    >>> step = uninformed_transitions(uninformed_queue(2, arrival_rate=1, service_rates=[2, 1]))
    >>> [(sorted(s), q, r) for (s, q), r in step((frozenset(), 0))]
    [(['1'], 0, 1/2), (['2'], 0, 1/2)]
    """
    lam, everyone = queue.arrival_rate, frozenset(queue.servers)

    def transitions(state: State):
        busy, waiting = state
        idle = everyone - busy
        if idle:
            for j in sorted(idle):
                yield (busy | {j}, waiting), lam / len(idle)
        else:
            yield (busy, waiting + 1), lam
        for j in sorted(busy):
            yield ((busy, waiting - 1) if waiting else (busy - {j}, 0)), queue.rate(j)
    return transitions


def balance_residuals(queue: UninformedQueue,
                      probability: Callable[[frozenset, int], sympy.Expr] | None = None,
                      max_queue: int = 2) -> dict[State, sympy.Expr]:
    r"""The global-balance residual (flow in minus flow out) of every state with queue length at
    most ``max_queue``, for the candidate ``probability(busy, q)`` (default :func:`state_weight`).

    Flows come from :func:`uninformed_transitions` over all states with queue length up to
    ``max_queue + 1`` (every predecessor of a checked state is among them). Each residual is
    simplified exactly in a fraction field over QQ (:func:`symq.arithmetic.certificates.to_field`); the
    candidate is right iff all are 0.

    Parameters
    ----------
    queue : UninformedQueue
    probability : callable, optional
        The candidate law ``probability(busy, q)``, unnormalized.
    max_queue : int
        The longest queue checked.

    Returns
    -------
    dict
        State to residual (a sympy expression).

    Notes
    -----
    Running time: $2^n$ + ``max_queue`` states with $O(n)$ transitions each.

    Examples
    --------
    >>> residuals = balance_residuals(uninformed_queue(2))
    >>> len(residuals), set(residuals.values())
    (6, {0})
    """
    weight = probability or (lambda busy, q: state_weight(queue, busy, q))
    transitions = uninformed_transitions(queue)
    everyone = frozenset(queue.servers)
    states = [frozenset(b) for k in range(queue.size + 1)
              for b in itertools.combinations(queue.servers, k)]
    states = [(b, 0) for b in states] + [(everyone, q) for q in range(1, max_queue + 2)]
    inflow: dict[State, list[sympy.Expr]] = {s: [] for s in states}
    outflow: dict[State, list[sympy.Expr]] = {s: [] for s in states}
    values = {s: weight(*s) for s in states}
    for source in states:
        for target, rate in transitions(source):
            outflow[source].append(rate)
            if target in inflow:
                inflow[target].append(rate * values[source])
    # the rates' symbols too: a wrong candidate may lack some of them
    symbols = set().union(*(sympy.sympify(v).free_symbols for v in values.values()),
                          queue.arrival_rate.free_symbols,
                          *(r.free_symbols for r in queue.service_rates.values()))
    if not symbols:  # numeric rates: exact rationals already
        return {s: sympy.nsimplify(sympy.Add(*inflow[s]) - values[s] * sympy.Add(*outflow[s]))
                for s in states if s[1] <= max_queue}
    domain = fraction_field(sorted(symbols, key=str))
    residuals = {}
    for s in states:
        if s[1] <= max_queue:
            residual = to_field(sympy.Add(*inflow[s]), domain) \
                - to_field(values[s] * sympy.Add(*outflow[s]), domain)
            residuals[s] = residual.as_expr() if residual else sympy.Integer(0)
    return residuals


def balance_failures(queue: UninformedQueue,
                     probability: Callable[[frozenset, int], sympy.Expr] | None = None,
                     max_queue: int = 2) -> list[str]:
    r"""Descriptions of the balance equations that fail (empty list: the law is right).

    Parameters
    ----------
    queue, probability, max_queue
        As :func:`balance_residuals`.

    Returns
    -------
    list of str

    Notes
    -----
    Running time: that of :func:`balance_residuals`.

    Examples
    --------
    >>> balance_failures(uninformed_queue(2))
    []
    >>> len(balance_failures(uninformed_queue(2), lambda busy, q: 1)) > 0
    True
    """
    return [f"state (busy={sorted(s[0])}, queue={s[1]}): residual {r}"
            for s, r in balance_residuals(queue, probability, max_queue).items() if r != 0]


# ---------------------------------------------------------------------------- FCFS-RAIS route
def rais_product_form_weight(queue: UninformedQueue, busy_order: Sequence[str],
                             queue_length: int = 0) -> sympy.Expr:
    r"""$\pi(\vec z)/\pi(\emptyset)$ of [GR20]_ Theorem 3.10 (FCFS-RAIS) for one fully flexible
    class: the second route to the law.

    $\vec z$ lists the busy servers $b_1..b_k$ in the arrival order of their jobs, then the
    ``queue_length`` waiting jobs. With uniform assignment the activation rate of an idle server is
    $\lambda^a(\vec b_{i-1}) = \lambda/(n-i+1)$, so

    .. math:: \pi(\vec z) = \pi(\emptyset)\prod_{i=1}^{k}
              \frac{\lambda/(n-i+1)}{\mu_{b_1}+\dots+\mu_{b_i}}
              \Bigl(\frac{\lambda}{\mu^n}\Bigr)^{q}.

    Parameters
    ----------
    queue : UninformedQueue
    busy_order : sequence of server names
        $b_1..b_k$.
    queue_length : int

    Returns
    -------
    sympy expression
        $\pi(\vec z)/\pi(\emptyset)$.

    Raises
    ------
    ModelError
        A repeated or unknown server, or waiting jobs with an idle server.

    Notes
    -----
    Running time: $O(k)$ operations.

    Examples
    --------
    >>> q = uninformed_queue(2, arrival_rate=1, service_rates=[2, 1])
    >>> rais_product_form_weight(q, ["1"]), rais_product_form_weight(q, ["2", "1"])
    (1/4, 1/6)
    """
    n, lam = queue.size, queue.arrival_rate
    order = [str(b) for b in busy_order]
    if len(set(order)) != len(order):
        raise ModelError(f"busy servers {order} repeat a server")
    busy_set(queue, order)
    if queue_length and len(order) < n:
        raise ModelError("jobs wait only when every server is busy")
    weight, served = sympy.Integer(1), sympy.Integer(0)
    for i, server in enumerate(order, start=1):
        served += queue.rate(server)
        weight *= lam / (n - i + 1) / served  # lambda^a_{b_i}(b_1..b_{i-1}) / mu(z_i)
    return weight * (lam / queue.total_rate) ** queue_length


def rais_aggregated_weight(queue: UninformedQueue, busy: Iterable[str],
                           method: str = "orders") -> sympy.Expr:
    r"""The RAIS product form summed over all orders of the busy set (equal to
    :func:`state_weight`).

    ``method="orders"`` adds the $|S|!$ terms of :func:`rais_product_form_weight` one by one.
    ``method="recursion"`` computes the same sum with the distributive law, splitting the
    orders by their last server: $W(S) = \frac{\lambda/(n-|S|+1)}{\mu(S)}\sum_{b\in S}
    W(S - b)$ (every order of $S$ ending in $b$ shares the last factor), over the subsets of $S$
    ($2^{|S|}$ terms instead of $|S|!$; each $W$ is cancelled as it is built).

    Parameters
    ----------
    queue : UninformedQueue
    busy : iterable of server names
    method : {"orders", "recursion"}

    Returns
    -------
    sympy expression
        The sum over the orders, equal to :func:`~symq.studies.uninformed.law.state_weight`.

    Raises
    ------
    ModelError
        An unknown server.
    ValueError
        An unknown method.

    Notes
    -----
    Running time: $|S|!$ products (``orders``) or $2^{|S|}|S|$ cancelled sums (``recursion``).

    Examples
    --------
    >>> q = uninformed_queue(2, arrival_rate=1, service_rates=[2, 1])
    >>> rais_aggregated_weight(q, ["1", "2"]), rais_aggregated_weight(q, ["1", "2"], "recursion")
    (1/4, 1/4)
    """
    busy = sorted(busy_set(queue, busy))
    summation = method  # the caller's choice of summation, not a route
    if summation == "orders":
        return sympy.Add(*[rais_product_form_weight(queue, order)
                           for order in itertools.permutations(busy)])
    if summation != "recursion":
        raise ValueError(f"method must be 'orders' or 'recursion', not {method!r}")
    n, lam = queue.size, queue.arrival_rate
    weights: dict[frozenset, sympy.Expr] = {frozenset(): sympy.Integer(1)}
    for size in range(1, len(busy) + 1):
        for subset in map(frozenset, itertools.combinations(busy, size)):
            served = sympy.Add(*[queue.rate(j) for j in subset])
            total = sympy.Add(*[weights[subset - {b}] for b in subset])
            weights[subset] = sympy.factor(sympy.cancel(lam / (n - size + 1) / served * total))
    return weights[frozenset(busy)]
