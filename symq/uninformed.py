r"""Heterogeneous M/M/n with uninformed customers (Cabral): the stationary law and Theorem 2.1.

Model ([Cab]_ section 2): Poisson arrivals of rate $\lambda$, $n$ servers, server $l$ serves at
exponential rate $\mu_l$, one FCFS queue. An arrival that finds idle servers picks one of them
uniformly at random (the customers do not know who is fast); otherwise it waits. In symq this is
the built-in ``uninformed:N`` under the ``rais`` discipline (uniform random assignment satisfies
the assignment condition for one fully flexible class).

State: the busy set $S$ and the queue length $q$ ($q > 0$ only when all servers are busy).

Stationary law ([Cab]_ proof of Theorem 2.1, from [Cab05]_), with $\mu^n = \sum_l \mu_l$:

.. math::

    p(S, 0) = \frac{(n-|S|)!}{n!}\,\frac{\lambda^{|S|}}{\prod_{j\in S}\mu_j}\,p_0, \qquad
    p(\{1..n\}, q) = p(\{1..n\}, 0)\Bigl(\frac{\lambda}{\mu^n}\Bigr)^q,

    p_0^{-1} = \sum_{k=0}^{n}\frac{(n-k)!}{n!}\lambda^k P(S^{-n},k)
             + \frac{\lambda^{n}}{n!\prod_j\mu_j}\,\frac{\lambda}{\mu^n-\lambda},

where $P(S^{-n},k)$ is the elementary symmetric sum of the reciprocal rates
(:mod:`symq.symmetric`). The chain is reversible: adding server $j$ to $S$ happens at rate
$\lambda/(n-|S|)$ and removing it at rate $\mu_j$, and the law above is the detailed-balance
solution. :func:`balance_failures` checks the global balance equations of the chain built from the
verbal model (:func:`uninformed_transitions`) exactly, and :func:`rais_product_form_weight` is the
independent FCFS-RAIS product form of [GR20]_ Theorem 3.10.

Theorem 2.1 of [Cab]_: for $0<\lambda<\mu^n$ and $\mu_l > \mu_m$: $\mathcal P_l < \mathcal P_m$,
$\mu_l\mathcal P_l > \mu_m\mathcal P_m$, and $(\mu_m/\mu_l)\mathcal P_m < \mathcal P_l <
\mathcal P_m$. :func:`theorem_2_1_certificates` proves it for given $n$ by *sign certificates*:
each difference is $(\mu_l-\mu_m)$ times $\pm N/D$, where $N$ and $D$ are polynomials with only
positive coefficients in $\lambda$, $\delta$ and the $\mu_j$ after the substitution
$\mu^n = \lambda + \delta$ ($\delta > 0$ is exactly the stability condition). Since every variable
is positive, so are $N$ and $D$, which fixes the sign.

Examples
--------
>>> from sympy import latex
>>> from symq.uninformed import uninformed_queue, empty_probability, busy_probability
>>> mm2 = uninformed_queue(2)
>>> print(latex(empty_probability(mm2)))
\frac{1}{\frac{\lambda^{3}}{2 \mu_{1} \mu_{2} \left(- \lambda + \mu_{1} + \mu_{2}\right)} + \frac{\lambda^{2}}{2 \mu_{1} \mu_{2}} + \frac{\lambda \left(\frac{1}{\mu_{2}} + \frac{1}{\mu_{1}}\right)}{2} + 1}
>>> q = uninformed_queue(3, arrival_rate=2, service_rates=[3, 2, 1])
>>> [busy_probability(q, j) for j in q.servers]
[8/29, 10/29, 14/29]

References
----------
.. [Cab] F. B. Cabral, *Queues with heterogeneous servers and uninformed customers: who works the
   most?* (symq/papers 001).
.. [Cab05] F. B. Cabral, *The slow server problem for uninformed customers*, Queueing Systems 50(4)
   (2005) 353-370.
.. [GR20] K. Gardner, R. Righter, *Product forms for FCFS queueing models with arbitrary
   server-job compatibilities: an overview*, Queueing Systems 96 (2020); arXiv:2006.05979.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import sympy

from .errors import ModelError, UnstableModelError
from .model import Model
from .rates import parse_rate, positive_symbol
from .symmetric import elementary_symmetric_sum, elementary_symmetric_sums

__all__ = [
    "UninformedQueue", "uninformed_queue", "is_uninformed",
    "state_weight", "state_probability", "empty_probability", "normalizing_constant",
    "number_probability", "stationary_law", "busy_probability", "busy_probability_by_states",
    "idle_probability", "busy_idle_probability", "all_busy_probability",
    "effective_service_rate", "mean_number", "mean_response_time",
    "uninformed_transitions", "balance_residuals", "balance_failures",
    "rais_product_form_weight", "rais_aggregated_weight", "same_rational_function",
    "SignCertificate", "find_sign_certificate", "check_certificate",
    "theorem_2_1_differences", "theorem_2_1_certificates", "INEQUALITIES", "QUANTITY_HANDLERS",
]

State = tuple[frozenset, int]


# ---------------------------------------------------------------------------- the queue
@dataclass(frozen=True)
class UninformedQueue:
    r"""An M/M/n queue with heterogeneous servers and uniform choice among idle servers.

    Parameters
    ----------
    arrival_rate : sympy expression, $\lambda$
    service_rates : mapping of server name to sympy expression, $\mu_l$ (in server order)
    total_rate : sympy expression standing for $\mu^n$ in the geometric tail; by default
        $\sum_l \mu_l$, and $\lambda + \delta$ after :meth:`with_slack`.
    name : str

    Raises
    ------
    ModelError
        No server, or a rate that is not exact and positive.
    UnstableModelError
        Numeric rates with $\lambda \ge \mu^n$.
    """

    arrival_rate: sympy.Expr
    service_rates: Mapping[str, sympy.Expr]
    total_rate: sympy.Expr | None = None
    name: str = ""
    slack: sympy.Symbol | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not self.service_rates:
            raise ModelError("an uninformed queue needs at least one server")
        lam = parse_rate(self.arrival_rate, "arrival rate lambda")
        mus = {str(j): parse_rate(r, f"service rate of server {j!r}")
               for j, r in self.service_rates.items()}
        object.__setattr__(self, "arrival_rate", lam)
        object.__setattr__(self, "service_rates", dict(mus))
        if self.total_rate is None:
            object.__setattr__(self, "total_rate", sympy.Add(*mus.values()))
        total = sympy.Add(*mus.values())
        if lam.is_number and total.is_number and not lam < total:
            rates = " + ".join(str(r) for r in mus.values())
            raise UnstableModelError(
                f"unstable: arrival rate lambda = {lam} is not below the total service rate "
                f"{rates} = {total}; lower lambda or speed up a server")

    @property
    def servers(self) -> tuple[str, ...]:
        return tuple(self.service_rates)

    @property
    def size(self) -> int:
        """The number of servers $n$."""
        return len(self.service_rates)

    def rate(self, server: str) -> sympy.Expr:
        """$\\mu_l$ of server ``server``.

        Raises
        ------
        ModelError
            An unknown server name.
        """
        try:
            return self.service_rates[str(server)]
        except KeyError:
            raise ModelError(f"unknown server {server!r}; servers are "
                             f"{', '.join(self.servers)}") from None

    @property
    def gap(self) -> sympy.Expr:
        r"""$\mu^n - \lambda$ as used in the tail ($\delta$ after :meth:`with_slack`)."""
        return self.total_rate - self.arrival_rate

    def with_slack(self, slack: sympy.Symbol | str = "delta") -> "UninformedQueue":
        r"""The same queue with $\mu^n$ written $\lambda + \delta$ wherever it appears (the
        substitution of the sign certificates); $\delta$ is a new positive symbol."""
        delta = positive_symbol(slack) if isinstance(slack, str) else slack
        return replace(self, total_rate=self.arrival_rate + delta, slack=delta)


def is_uninformed(model: Model) -> bool:
    """True for one class compatible with every server (Cabral's model under ``rais``)."""
    return (len(model.classes) == 1
            and set(model.compatibility[model.classes[0]]) == set(model.servers))


def uninformed_queue(source: Model | int, arrival_rate: Any = None,
                     service_rates: Sequence[Any] | Mapping[str, Any] | None = None
                     ) -> UninformedQueue:
    r"""The uninformed queue of a model with one fully flexible class, or of $n$ servers.

    Parameters
    ----------
    source : a :class:`~symq.model.Model` with one class compatible with every server, or the
        number of servers $n$ (symbols ``lambda``, ``mu_1`` .. ``mu_n`` unless rates are given)
    arrival_rate, service_rates : optional exact rates for the integer form

    Raises
    ------
    TypeError
        ``source`` is neither a Model nor an int.
    ModelError
        A model with several classes or a class that cannot use every server; ``n < 1``.
    UnstableModelError
        Numeric rates with $\lambda \ge \sum_l \mu_l$.

    Examples
    --------
    >>> uninformed_queue(2).servers
    ('1', '2')
    """
    if isinstance(source, Model):
        if not is_uninformed(source):
            raise ModelError(f"model {source.name or 'given'} is not an uninformed queue: it needs "
                             "exactly one class, compatible with every server")
        (job_class,) = source.classes
        return UninformedQueue(source.arrival_rates[job_class],
                               {j: source.service_rates[j] for j in source.servers},
                               name=source.name)
    if isinstance(source, bool) or not isinstance(source, int):
        raise TypeError(f"uninformed_queue takes a Model or a number of servers, not {source!r}")
    if source < 1:
        raise ModelError(f"the number of servers must be at least 1, not {source}")
    names = [str(j) for j in range(1, source + 1)]
    lam = positive_symbol("lambda") if arrival_rate is None else arrival_rate
    if service_rates is None:
        mus = {j: positive_symbol(f"mu_{j}") for j in names}
    elif isinstance(service_rates, Mapping):
        mus = dict(service_rates)
    else:
        if len(service_rates) != source:
            raise ModelError(f"{len(service_rates)} service rates given for {source} servers")
        mus = dict(zip(names, service_rates))
    return UninformedQueue(lam, mus, name=f"uninformed:{source}")


def _busy(queue: UninformedQueue, busy: Iterable[str]) -> frozenset[str]:
    busy = frozenset(map(str, busy))
    unknown = busy - set(queue.servers)
    if unknown:
        raise ModelError(f"unknown server(s) {', '.join(sorted(unknown))}; servers are "
                         f"{', '.join(queue.servers)}")
    return busy


# ---------------------------------------------------------------------------- the law
def state_weight(queue: UninformedQueue, busy: Iterable[str], queue_length: int = 0) -> sympy.Expr:
    r"""$p(S, q)/p_0$: $\frac{(n-|S|)!}{n!}\lambda^{|S|}/\prod_{j\in S}\mu_j$, times
    $(\lambda/\mu^n)^q$ for the queue ([Cab]_ proof of Theorem 2.1; [Cab05]_).

    Raises
    ------
    ModelError
        A queue with idle servers, a negative queue length, an unknown server.
    """
    busy = _busy(queue, busy)
    n, k = queue.size, len(busy)
    if queue_length < 0 or (queue_length > 0 and k < n):
        raise ModelError(f"no state with busy set {sorted(busy)} and queue length {queue_length}: "
                         "customers wait only when every server is busy")
    lam = queue.arrival_rate
    weight = sympy.Rational(math.factorial(n - k), math.factorial(n)) * lam ** k \
        / sympy.Mul(*[queue.rate(j) for j in busy])
    return weight * (lam / queue.total_rate) ** queue_length


def _inverse_rates(queue: UninformedQueue, without: Iterable[str] = ()) -> list[sympy.Expr]:
    """$S^{-n}$ minus the reciprocals of the servers ``without``."""
    skip = set(without)
    return [1 / queue.rate(j) for j in queue.servers if j not in skip]


def _all_busy_weight(queue: UninformedQueue) -> sympy.Expr:
    r"""$p(\{1..n\}, 0)/p_0 = \frac{\lambda^n}{n!}P(S^{-n}, n)$."""
    return queue.arrival_rate ** queue.size / math.factorial(queue.size) \
        * sympy.Mul(*_inverse_rates(queue))


def normalizing_constant(queue: UninformedQueue) -> sympy.Expr:
    r"""$1/p_0 = \sum_{k=0}^n \frac{(n-k)!}{n!}\lambda^k P(S^{-n},k) +
    \frac{\lambda^n}{n!}P(S^{-n},n)\frac{\lambda}{\mu^n-\lambda}$."""
    n, lam = queue.size, queue.arrival_rate
    sums = elementary_symmetric_sums(_inverse_rates(queue))
    finite = sympy.Add(*[sympy.Rational(math.factorial(n - k), math.factorial(n)) * lam ** k
                         * sums[k] for k in range(n + 1)])
    return finite + _all_busy_weight(queue) * lam / queue.gap


def empty_probability(queue: UninformedQueue) -> sympy.Expr:
    r"""$p_0$, the probability that the system is empty (closed form through $P(S^{-n},k)$)."""
    return 1 / normalizing_constant(queue)


def state_probability(queue: UninformedQueue, busy: Iterable[str],
                      queue_length: int = 0) -> sympy.Expr:
    """$p(S, q)$, the stationary probability of busy set ``busy`` and ``queue_length`` waiting."""
    return state_weight(queue, busy, queue_length) * empty_probability(queue)


def number_probability(queue: UninformedQueue, jobs: int) -> sympy.Expr:
    r"""$P_k^n$: probability of ``jobs`` customers in the system,
    $\frac{(n-k)!}{n!}\lambda^k P(S^{-n},k)p_0$ for $k\le n$, geometric beyond."""
    n, lam = queue.size, queue.arrival_rate
    if jobs < 0:
        raise ModelError(f"the number of customers must be at least 0, not {jobs}")
    if jobs <= n:
        weight = sympy.Rational(math.factorial(n - jobs), math.factorial(n)) * lam ** jobs \
            * elementary_symmetric_sum(_inverse_rates(queue), jobs)
    else:
        weight = _all_busy_weight(queue) * (lam / queue.total_rate) ** (jobs - n)
    return weight * empty_probability(queue)


def stationary_law(queue: UninformedQueue, max_queue: int = 0) -> dict[State, sympy.Expr]:
    """``{(busy set, queue length): p}`` for every busy set, queue lengths up to ``max_queue``."""
    p0 = empty_probability(queue)
    law = {}
    for k in range(queue.size + 1):
        for busy in itertools.combinations(queue.servers, k):
            law[(frozenset(busy), 0)] = state_weight(queue, busy) * p0
    everyone = frozenset(queue.servers)
    for q in range(1, max_queue + 1):
        law[(everyone, q)] = state_weight(queue, everyone, q) * p0
    return law


# ---------------------------------------------------------------------------- who works the most
def all_busy_probability(queue: UninformedQueue) -> sympy.Expr:
    r"""$\mathcal P^n$, all servers busy (queue included):
    $\frac{\lambda^n}{n!\prod\mu_j}\frac{\mu^n}{\mu^n-\lambda}p_0$."""
    return _all_busy_weight(queue) * queue.total_rate / queue.gap * empty_probability(queue)


def busy_probability(queue: UninformedQueue, server: str) -> sympy.Expr:
    r"""$\mathcal P_l$, the probability that server $l$ is busy ([Cab]_, proof of Thm 2.1):

    .. math:: \mathcal P_l = \frac{\lambda}{\mu_l}\sum_{k=1}^{n-1}\frac{(n-k)!}{n!}\lambda^{k-1}
              P(S^{-n}-\{\mu_l^{-1}\},k-1)\,p_0 + \mathcal P^n.
    """
    n, lam = queue.size, queue.arrival_rate
    sums = elementary_symmetric_sums(_inverse_rates(queue, without=[str(server)]))
    partial = sympy.Add(*[sympy.Rational(math.factorial(n - k), math.factorial(n))
                          * lam ** (k - 1) * sums[k - 1] for k in range(1, n)])
    return lam / queue.rate(server) * partial * empty_probability(queue) \
        + all_busy_probability(queue)


def busy_probability_by_states(queue: UninformedQueue, server: str) -> sympy.Expr:
    r"""$\mathcal P_l$ summed state by state from the law (a second route to
    :func:`busy_probability`; $2^{n-1}$ terms)."""
    server = str(server)
    queue.rate(server)
    others = [j for j in queue.servers if j != server]
    total = sympy.Integer(0)
    for k in range(len(others) + 1):
        for rest in itertools.combinations(others, k):
            total += state_weight(queue, (server, *rest))
    tail = _all_busy_weight(queue) * queue.arrival_rate / queue.gap
    return (total + tail) * empty_probability(queue)


def idle_probability(queue: UninformedQueue, server: str) -> sympy.Expr:
    r"""$1 - \mathcal P_l$, the probability that server $l$ is idle."""
    return 1 - busy_probability(queue, server)


def busy_idle_probability(queue: UninformedQueue, busy_server: str, idle_server: str) -> sympy.Expr:
    r"""$\mathcal P_{l,m}$: server $l$ busy and server $m$ idle ([Cab]_, proof of Thm 2.1):
    $\frac{\lambda}{\mu_l}\sum_{k=1}^{n-1}\frac{(n-k)!}{n!}\lambda^{k-1}
    P(S^{-n}-\{\mu_l^{-1},\mu_m^{-1}\},k-1)\,p_0$.

    Raises
    ------
    ModelError
        ``busy_server == idle_server`` or an unknown server.
    """
    l, m = str(busy_server), str(idle_server)
    if l == m:
        raise ModelError(f"server {l!r} cannot be busy and idle at once; give two servers")
    queue.rate(m)
    n, lam = queue.size, queue.arrival_rate
    sums = elementary_symmetric_sums(_inverse_rates(queue, without=[l, m]))
    partial = sympy.Add(*[sympy.Rational(math.factorial(n - k), math.factorial(n))
                          * lam ** (k - 1) * sums[k - 1] for k in range(1, n)])
    return lam / queue.rate(l) * partial * empty_probability(queue)


def effective_service_rate(queue: UninformedQueue, server: str) -> sympy.Expr:
    r"""$\mu_l\mathcal P_l$, the rate at which server $l$ completes work (they sum to $\lambda$)."""
    return queue.rate(server) * busy_probability(queue, server)


def mean_number(queue: UninformedQueue) -> sympy.Expr:
    r"""$N^n = \sum_k k P_k^n$: $p_0\bigl[\sum_{k=1}^n k\frac{(n-k)!}{n!}\lambda^kP(S^{-n},k)
    + \frac{\lambda^n}{n!}P(S^{-n},n)\bigl(\frac{n\lambda}{\mu^n-\lambda}
    + \frac{\lambda\mu^n}{(\mu^n-\lambda)^2}\bigr)\bigr]$."""
    n, lam = queue.size, queue.arrival_rate
    sums = elementary_symmetric_sums(_inverse_rates(queue))
    finite = sympy.Add(*[k * sympy.Rational(math.factorial(n - k), math.factorial(n)) * lam ** k
                         * sums[k] for k in range(1, n + 1)])
    # sum_{q >= 1} (n + q) rho^q with rho = lambda / mu^n
    tail = n * lam / queue.gap + lam * queue.total_rate / queue.gap ** 2
    return (finite + _all_busy_weight(queue) * tail) * empty_probability(queue)


def mean_response_time(queue: UninformedQueue) -> sympy.Expr:
    r"""$T^n = N^n/\lambda$ (Little's law)."""
    return mean_number(queue) / queue.arrival_rate


# ---------------------------------------------------------------------------- balance equations
def uninformed_transitions(queue: UninformedQueue
                           ) -> Callable[[State], Iterator[tuple[State, Any]]]:
    r"""Transitions of the chain of [Cab]_ section 2.2, from the verbal model (no product form).

    State ``(busy, q)``. An arrival goes to each idle server with rate $\lambda/\#\text{idle}$, or
    waits when all are busy. Server $j$ completes at rate $\mu_j$ and then takes the head of the
    queue or becomes idle. Rates are sympy expressions, so symbolic rates work.
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
    r"""Global-balance residual (flow in minus flow out) of every state with queue length at most
    ``max_queue``, for the candidate ``probability(busy, q)`` (default :func:`state_weight`).

    Flows come from :func:`uninformed_transitions` over all states with queue length up to
    ``max_queue + 1`` (every predecessor of a checked state is among them). Each residual is
    simplified exactly in a fraction field over QQ; the candidate is right iff all are 0.
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
    symbols = set().union(*(sympy.sympify(v).free_symbols for v in values.values()),
                          queue.arrival_rate.free_symbols)
    if not symbols:  # numeric rates: exact rationals already
        return {s: sympy.nsimplify(sympy.Add(*inflow[s]) - values[s] * sympy.Add(*outflow[s]))
                for s in states if s[1] <= max_queue}
    domain = _fraction_field(sorted(symbols, key=str))
    residuals = {}
    for s in states:
        if s[1] <= max_queue:
            residual = _to_field(sympy.Add(*inflow[s]), domain) \
                - _to_field(values[s] * sympy.Add(*outflow[s]), domain)
            residuals[s] = residual.as_expr() if residual else sympy.Integer(0)
    return residuals


def balance_failures(queue: UninformedQueue,
                     probability: Callable[[frozenset, int], sympy.Expr] | None = None,
                     max_queue: int = 2) -> list[str]:
    """Descriptions of the balance equations that fail (empty list: the law is right)."""
    return [f"state (busy={sorted(s[0])}, queue={s[1]}): residual {r}"
            for s, r in balance_residuals(queue, probability, max_queue).items() if r != 0]


# ---------------------------------------------------------------------------- FCFS-RAIS route
def rais_product_form_weight(queue: UninformedQueue, busy_order: Sequence[str],
                             queue_length: int = 0) -> sympy.Expr:
    r"""$\pi(\vec z)/\pi(\emptyset)$ of [GR20]_ Theorem 3.10 for one fully flexible class.

    $\vec z$ lists the busy servers $b_1..b_k$ in the arrival order of their jobs, then the
    ``queue_length`` waiting jobs. With uniform assignment the activation rate of an idle server is
    $\lambda^a(\vec b_{i-1}) = \lambda/(n-i+1)$, so

    .. math:: \pi(\vec z) = \pi(\emptyset)\prod_{i=1}^{k}
              \frac{\lambda/(n-i+1)}{\mu_{b_1}+\dots+\mu_{b_i}}
              \Bigl(\frac{\lambda}{\mu^n}\Bigr)^{q}.
    """
    n, lam = queue.size, queue.arrival_rate
    order = [str(b) for b in busy_order]
    if len(set(order)) != len(order):
        raise ModelError(f"busy servers {order} repeat a server")
    _busy(queue, order)
    if queue_length and len(order) < n:
        raise ModelError("jobs wait only when every server is busy")
    weight, served = sympy.Integer(1), sympy.Integer(0)
    for i, server in enumerate(order, start=1):
        served += queue.rate(server)
        weight *= lam / (n - i + 1) / served  # lambda^a_{b_i}(b_1..b_{i-1}) / mu(z_i)
    return weight * (lam / queue.total_rate) ** queue_length


def rais_aggregated_weight(queue: UninformedQueue, busy: Iterable[str],
                           method: str = "orders") -> sympy.Expr:
    r"""The RAIS product form summed over all orders of the busy set (see :func:`state_weight`).

    ``method="orders"`` adds the $|S|!$ terms of :func:`rais_product_form_weight` one by one.
    ``method="recursion"`` computes the same sum with the distributive law, splitting the
    orders by their last server: $W(S) = \frac{\lambda/(n-|S|+1)}{\mu(S)}\sum_{b\in S}
    W(S - b)$ (every order of $S$ ending in $b$ shares the last factor), over the subsets of $S$
    ($2^{|S|}$ terms instead of $|S|!$; each $W$ is cancelled as it is built).
    """
    busy = sorted(_busy(queue, busy))
    if method == "orders":
        return sympy.Add(*[rais_product_form_weight(queue, order)
                           for order in itertools.permutations(busy)])
    if method != "recursion":
        raise ValueError(f"method must be 'orders' or 'recursion', not {method!r}")
    n, lam = queue.size, queue.arrival_rate
    weights: dict[frozenset, sympy.Expr] = {frozenset(): sympy.Integer(1)}
    for size in range(1, len(busy) + 1):
        for subset in map(frozenset, itertools.combinations(busy, size)):
            served = sympy.Add(*[queue.rate(j) for j in subset])
            total = sympy.Add(*[weights[subset - {b}] for b in subset])
            weights[subset] = sympy.factor(sympy.cancel(lam / (n - size + 1) / served * total))
    return weights[frozenset(busy)]


def _to_field(expr: sympy.Expr, domain: Any) -> Any:
    """``expr`` as an element of the fraction field ``domain``, built term by term (much faster
    than ``together``/``cancel`` on nested sums of fractions)."""
    if expr.is_Add:
        return sum((_to_field(a, domain) for a in expr.args), domain.zero)
    if expr.is_Mul:
        result = domain.one
        for a in expr.args:
            result *= _to_field(a, domain)
        return result
    if expr.is_Pow and expr.exp.is_Integer:
        return _to_field(expr.base, domain) ** int(expr.exp)
    return domain.from_expr(expr)


def _fraction_field(symbols: Iterable[sympy.Symbol]) -> Any:
    from sympy.polys.fields import field

    domain, *_ = field(tuple(symbols), sympy.QQ)
    return domain


def _numerator_denominator(expr: sympy.Expr, gens: Sequence[sympy.Symbol]
                           ) -> tuple[sympy.Poly, sympy.Poly]:
    """Coprime numerator and denominator of a rational function as Polys in ``gens``."""
    missing = sympy.sympify(expr).free_symbols - set(gens)
    if missing:
        raise ModelError(f"the expression has symbols {sorted(map(str, missing))} outside the "
                         f"variables {[str(g) for g in gens]}")
    value = _to_field(sympy.sympify(expr), _fraction_field(gens))
    return (sympy.Poly.from_dict(dict(value.numer), *gens, domain=sympy.QQ),
            sympy.Poly.from_dict(dict(value.denom), *gens, domain=sympy.QQ))


def same_rational_function(left: sympy.Expr, right: sympy.Expr) -> bool:
    """Whether two expressions are the same rational function of their symbols (exact, in a
    sympy fraction field over QQ)."""
    left, right = sympy.sympify(left), sympy.sympify(right)
    symbols = sorted(left.free_symbols | right.free_symbols, key=str)
    if not symbols:
        return sympy.simplify(left - right) == 0
    domain = _fraction_field(symbols)
    return _to_field(left, domain) == _to_field(right, domain)


# ---------------------------------------------------------------------------- Theorem 2.1
INEQUALITIES = {
    "busy": (r"P_{l} < P_{m}", "P_l < P_m", -1),
    "work": (r"\mu_{l} P_{l} > \mu_{m} P_{m}", "mu_l P_l > mu_m P_m", +1),
    "lower": (r"\frac{\mu_{m}}{\mu_{l}} P_{m} < P_{l}", "(mu_m/mu_l) P_m < P_l", +1),
}
"""Name -> (LaTeX, text, sign of the difference divided by mu_l - mu_m) of Theorem 2.1's claims.

The differences are ``busy``: P_l - P_m; ``work``: mu_l P_l - mu_m P_m; ``lower``:
P_l - (mu_m/mu_l) P_m. The upper bound of the third bullet is ``busy``."""

def _reverse(inequality: str) -> str:
    """The same inequality with its one comparison reversed (``<`` and ``>`` swapped)."""
    return inequality.replace(" < ", " > ") if " < " in inequality else \
        inequality.replace(" > ", " < ")


def _claim(name: str, l: str, m: str, reverse: bool) -> tuple[str, str, int]:
    """Text, LaTeX and sign of claim ``name`` for servers l, m (reversed: the false inequality)."""
    latex, text, sign = INEQUALITIES[name]
    if reverse:
        latex, text, sign = _reverse(latex), _reverse(text), -sign
    text = text.replace("_l", f"_{l}").replace("_m", f"_{m}")
    latex = latex.replace("{l}", f"{{{l}}}").replace("{m}", f"{{{m}}}")
    return text, latex, sign


def theorem_2_1_differences(queue: UninformedQueue, faster: str, slower: str,
                            by_states: bool = False, domain: Any = None) -> dict[str, Any]:
    """The three differences of Theorem 2.1 for servers ``faster`` = l and ``slower`` = m.

    ``by_states=True`` sums the law state by state instead of using the paper's formula;
    ``domain`` (a fraction field from ``sympy.polys.fields.field``) returns field elements."""
    prob = busy_probability_by_states if by_states else busy_probability
    p_l, p_m = prob(queue, faster), prob(queue, slower)
    mu_l, mu_m = queue.rate(faster), queue.rate(slower)
    if domain is not None:
        p_l, p_m, mu_l, mu_m = (_to_field(e, domain) for e in (p_l, p_m, mu_l, mu_m))
    return {"busy": p_l - p_m, "work": mu_l * p_l - mu_m * p_m, "lower": p_l - mu_m / mu_l * p_m}


@dataclass(frozen=True)
class SignCertificate:
    r"""A proof (or a failed search for one) that ``difference`` has the sign of ``sign * factor``.

    When ``proved``: ``difference == factor * sign * numerator / denominator`` as rational
    functions of ``variables`` (with the substitution stated), and ``numerator`` and
    ``denominator`` have only positive coefficients, so they are positive for positive variables.
    """

    claim: str
    claim_latex: str
    difference: sympy.Expr
    factor: sympy.Expr
    sign: int
    variables: tuple[sympy.Symbol, ...]
    substitution: str
    proved: bool
    numerator: sympy.Expr | None = None
    denominator: sympy.Expr | None = None
    reason: str = ""
    inequality: str = ""
    pair: tuple[str, str] = ()

    def text(self) -> str:
        """A plain-text account of the certificate."""
        if not self.proved:
            return f"{self.claim}: NO CERTIFICATE FOUND ({self.reason})"
        sign = "" if self.sign > 0 else "-"
        return (f"{self.claim}: difference = {sign}({sympy.sstr(self.factor, order='none')}) * N/D "
                f"with {self.substitution};"
                f"\n  N = {self.numerator}\n  D = {self.denominator}\n"
                f"  N and D have only positive coefficients in "
                f"{', '.join(map(str, self.variables))}: PROVED")

    def latex(self) -> str:
        """The certificate as a LaTeX display."""
        if not self.proved:
            return (f"\\text{{{self.claim}: no certificate found ({self.reason})}}")
        sign = "" if self.sign > 0 else "-"
        return (f"{self.claim_latex}:\\quad \\text{{difference}} = "
                f"{sign}\\left({sympy.latex(self.factor, order='none')}\\right)"
                f"\\frac{{N}}{{D}},\\\\\n"
                f"N = {sympy.latex(self.numerator)},\\\\\n"
                f"D = {sympy.latex(self.denominator)}")

    def as_json(self) -> dict[str, Any]:
        """JSON-ready fields (expressions as sympy-parsable strings)."""
        data = {"claim": self.claim, "proved": self.proved, "factor": str(self.factor),
                "sign": self.sign, "substitution": self.substitution,
                "variables": [str(v) for v in self.variables]}
        if self.proved:
            data.update(numerator=str(self.numerator), denominator=str(self.denominator),
                        numerator_terms=len(sympy.Poly(self.numerator, *self.variables).terms()),
                        denominator_terms=len(sympy.Poly(self.denominator,
                                                         *self.variables).terms()))
        else:
            data["reason"] = self.reason
        return data


def _positive_coefficients(poly: sympy.Poly) -> bool:
    return all(c > 0 for c in poly.coeffs())


def find_sign_certificate(difference: sympy.Expr, factor: sympy.Expr, sign: int,
                          variables: Sequence[sympy.Symbol], claim: str = "",
                          claim_latex: str = "", substitution: str = "",
                          inequality: str = "", pair: tuple[str, str] = ()) -> SignCertificate:
    r"""Search a certificate that ``difference / factor`` has the sign ``sign`` (+1 or -1).

    ``difference`` is a sympy expression, or an element of a sympy fraction field over QQ in
    exactly ``variables``. Divides the numerator of ``difference`` by ``factor`` (it must divide
    exactly), cancels, and
    accepts when $\mathrm{sign}\cdot$numerator and the denominator (after making the latter's
    coefficients positive, if they are all negative) have only positive coefficients as
    polynomials in ``variables``. Anything else (a remainder, a mixed-sign polynomial, the wrong
    sign) returns ``proved=False`` with the reason: the search never claims what it did not show.
    """
    if sign not in (1, -1):
        raise ValueError(f"sign must be +1 or -1, not {sign!r}")
    gens = tuple(variables)
    result = dict(claim=claim, claim_latex=claim_latex or claim, difference=difference,
                  factor=factor, sign=sign, variables=gens, substitution=substitution,
                  inequality=inequality, pair=tuple(pair))
    if hasattr(difference, "numer"):  # already an element of a fraction field over gens
        num_poly, den_poly = (sympy.Poly.from_dict(dict(part), *gens, domain=sympy.QQ)
                              for part in (difference.numer, difference.denom))
        result["difference"] = num_poly.as_expr() / den_poly.as_expr()
    else:
        num_poly, den_poly = _numerator_denominator(difference, gens)
    quotient, remainder = num_poly.div(sympy.Poly(factor, *gens))
    if not remainder.is_zero:
        return SignCertificate(proved=False, reason=f"{factor} does not divide the numerator",
                               **result)
    common = quotient.gcd(den_poly)
    quotient, den_poly = quotient.exquo(common), den_poly.exquo(common)
    if all(c < 0 for c in den_poly.coeffs()):
        quotient, den_poly = -quotient, -den_poly
    numerator = quotient * sign
    for poly, what in ((den_poly, "denominator"), (numerator, "numerator")):
        if not _positive_coefficients(poly):
            bad = next((m, c) for m, c in poly.terms() if c <= 0)
            monomial = sympy.Mul(*[g ** e for g, e in zip(gens, bad[0])])
            return SignCertificate(
                proved=False, reason=f"the {what} has the coefficient {bad[1]} at {monomial}, "
                "so no sign follows from this representation", **result)
    return SignCertificate(proved=True, numerator=numerator.as_expr(),
                           denominator=den_poly.as_expr(), **result)


def check_certificate(certificate: SignCertificate, original: sympy.Expr,
                      relation: Mapping[sympy.Symbol, sympy.Expr]) -> list[str]:
    """Independent check of a proved certificate: positivity of every coefficient, and
    ``original == factor * sign * N / D`` after ``relation`` (e.g. delta -> mu_1 + ... - lambda).
    ``original`` is a sympy expression or an element of a sympy fraction field.

    Returns the problems found (empty list: the certificate is valid)."""
    if not certificate.proved:
        return [f"{certificate.claim}: not proved ({certificate.reason})"]
    problems = []
    for expr, what in ((certificate.numerator, "N"), (certificate.denominator, "D")):
        poly = sympy.Poly(expr, *certificate.variables)
        if not poly.coeffs() or not _positive_coefficients(poly):
            problems.append(f"{certificate.claim}: {what} has a non-positive coefficient")
    # original == factor * sign * N / D  <=>  A * D' - sign * factor * N' * B == 0 as polynomials,
    # with original = A / B and N', D' the certificate's polynomials after the relation
    relation = dict(relation)
    if hasattr(original, "numer"):  # an element of a fraction field: use its generators
        gens = list(original.field.symbols)
        top, bottom = (sympy.Poly.from_dict(dict(part), *gens, domain=sympy.QQ)
                       for part in (original.numer, original.denom))
    else:
        gens = sorted(sympy.sympify(original).free_symbols | certificate.factor.free_symbols
                      | {s for e in relation.values() for s in sympy.sympify(e).free_symbols},
                      key=str)
        top, bottom = _numerator_denominator(original, gens)
    num, den = (sympy.Poly(e.xreplace(relation), *gens)
                for e in (certificate.numerator, certificate.denominator))
    residual = top * den - bottom * num * sympy.Poly(certificate.sign * certificate.factor, *gens)
    if not residual.is_zero:
        problems.append(f"{certificate.claim}: factorization is not an identity "
                        f"(residual has {len(residual.terms())} terms)")
    return problems


def theorem_2_1_certificates(servers: int, pairs: Iterable[tuple[str, str]] | None = None,
                             claims: Iterable[str] = tuple(INEQUALITIES),
                             reverse: bool = False) -> list[SignCertificate]:
    r"""Sign certificates of Theorem 2.1 for $n$ = ``servers``, for every ordered pair $(l, m)$,
    $l \ne m$ (or the given ``pairs``), with $\mu^n = \lambda + \delta$.

    ``reverse=True`` searches certificates for the *reversed* inequalities (all false): every
    search must then fail, which shows the search can fail.
    """
    symbolic = uninformed_queue(servers).with_slack("delta")
    lam, delta = symbolic.arrival_rate, symbolic.slack
    variables = (lam, delta, *symbolic.service_rates.values())
    substitution = r"mu^n = lambda + delta, delta > 0"
    if pairs is None:
        pairs = [(l, m) for l in symbolic.servers for m in symbolic.servers if l != m]
    # each P_l once, as an element of the fraction field: differences are then cheap
    domain = _fraction_field(variables)
    busy = {j: _to_field(busy_probability(symbolic, j), domain) for j in symbolic.servers}
    rate = {j: _to_field(symbolic.rate(j), domain) for j in symbolic.servers}
    certificates = []
    for l, m in pairs:
        differences = {"busy": busy[l] - busy[m], "work": rate[l] * busy[l] - rate[m] * busy[m],
                       "lower": busy[l] - rate[m] / rate[l] * busy[m]}
        factor = symbolic.rate(l) - symbolic.rate(m)
        for name in claims:
            text, latex, sign = _claim(name, l, m, reverse)
            certificates.append(find_sign_certificate(
                differences[name], factor, sign, variables, claim=f"n={servers}: {text}",
                claim_latex=latex, substitution=substitution, inequality=name, pair=(l, m)))
    return certificates


# ---------------------------------------------------------------------------- quantity handlers
TIDY_SERVERS = 4
"""Symbolic results for at most this many servers are returned as one factored fraction."""


def _tidy(expr: sympy.Expr, servers: int) -> sympy.Expr:
    """One factored fraction for small symbolic models (exact rationals are left alone)."""
    expr = sympy.sympify(expr)
    symbols = sorted(expr.free_symbols, key=str)
    if not symbols or servers > TIDY_SERVERS:
        return expr
    top, bottom = _numerator_denominator(expr, symbols)
    return sympy.factor(top.as_expr()) / sympy.factor(bottom.as_expr())


def _server_idle_handler(model: Model) -> dict[str, dict[str, sympy.Expr]]:
    queue = uninformed_queue(model)
    return {"per_server": {j: _tidy(idle_probability(queue, j), queue.size)
                           for j in queue.servers}}


def _scalar(function: Callable[[UninformedQueue], sympy.Expr]) -> Callable[[Model], sympy.Expr]:
    def handler(model: Model) -> sympy.Expr:
        queue = uninformed_queue(model)
        return _tidy(function(queue), queue.size)
    return handler


def _per_class(function: Callable[[UninformedQueue], sympy.Expr]) -> Callable[[Model], Any]:
    def handler(model: Model) -> dict[str, Any]:
        queue = uninformed_queue(model)
        value = _tidy(function(queue), queue.size)
        return {"total": value, "per_class": {model.classes[0]: value}}
    return handler


QUANTITY_HANDLERS: dict[str, tuple[Callable[[Model], Any], str]] = {
    "empty-probability": (_scalar(empty_probability),
                          "Cabral's closed form through P(S^-n, k) and a geometric tail"),
    "normalizing-constant": (_scalar(normalizing_constant),
                             "Cabral's closed form 1/p_0 through P(S^-n, k)"),
    "server-idle-probability": (_server_idle_handler,
                                "1 - P_l with P_l of Cabral, proof of Theorem 2.1"),
    "mean-number": (_per_class(mean_number), "sum_k k P_k from Cabral's law"),
    "mean-response-time": (_per_class(mean_response_time),
                           "Little's law on Cabral's mean number"),
}
"""Quantity name -> (handler(model), method) for one fully flexible class under ``rais``
(registered by :mod:`symq.quantities` with ``applies=is_uninformed``)."""
