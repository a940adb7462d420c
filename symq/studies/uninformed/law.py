r"""The closed-form stationary law of Cabral's queue and the quantities built on it: the state
probabilities $p(S, q)$, $p_0$ through the elementary symmetric sums $P(S^{-n},k)$ of the
reciprocal rates (:mod:`symq.arithmetic.elementary_symmetric`), the number in system, the busy probabilities
$\mathcal P_l$ and $\mathcal P_{l,m}$ of the proof of Theorem 2.1 of [Cab]_ (with a state-by-state
second route), the work rates $\mu_l\mathcal P_l$, and the mean number and response time.

References
----------
.. [Cab] F. B. Cabral, "Queues with heterogeneous servers and uninformed customers: who works the
   most?" (see ``docs/uninformed.md``).
.. [Cab05] F. B. Cabral, "The slow server problem for uninformed customers", Queueing Systems 50(4)
   (2005) 353-370.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Iterable

import sympy

from symq.errors import ModelError
from symq.arithmetic.elementary_symmetric import elementary_symmetric_sum, elementary_symmetric_sums
from symq.display import Math, QuantityResult
from symq.studies.uninformed.queue import State, UninformedQueue, busy_set, uninformed_queue

__all__ = ["state_weight", "uninformed_normalizing_constant", "uninformed_empty_probability",
           "state_probability",
           "number_probability", "stationary_law", "all_busy_probability", "busy_probability",
           "busy_probability_by_states", "idle_probability", "busy_idle_probability",
           "effective_service_rate", "uninformed_mean_number", "uninformed_mean_response_time"]


def state_weight(queue: UninformedQueue, busy: Iterable[str], queue_length: int = 0) -> sympy.Expr:
    r"""$p(S, q)/p_0$, the unnormalized stationary probability of busy set $S$ and queue length $q$.

    .. math:: \frac{p(S, q)}{p_0} = \frac{(n-|S|)!}{n!}\,\frac{\lambda^{|S|}}{\prod_{j\in S}\mu_j}
              \Bigl(\frac{\lambda}{\mu^n}\Bigr)^q

    ([Cab]_ proof of Theorem 2.1; [Cab05]_), with $q > 0$ only when every server is busy.

    Parameters
    ----------
    queue : UninformedQueue
        The queue; symbolic or numeric rates.
    busy : iterable of server names
        $S$.
    queue_length : int
        $q$.

    Returns
    -------
    sympy expression
        $p(S, q)/p_0$, exact (symbolic for symbolic rates).

    Raises
    ------
    ModelError
        A queue with idle servers, a negative queue length, an unknown server.

    Notes
    -----
    Running time: $O(n)$ multiplications.

    Examples
    --------
    >>> state_weight(uninformed_queue(2, arrival_rate=1, service_rates=[2, 1]), ["1"])
    1/4
    """
    busy = busy_set(queue, busy)
    n, k = queue.size, len(busy)
    if queue_length < 0 or (queue_length > 0 and k < n):
        raise ModelError(f"no state with busy set {sorted(busy)} and queue length {queue_length}: "
                         "customers wait only when every server is busy")
    lam = queue.arrival_rate
    weight = sympy.Rational(math.factorial(n - k), math.factorial(n)) * lam ** k \
        / sympy.Mul(*[queue.rate(j) for j in busy])
    return weight * (lam / queue.total_rate) ** queue_length


def _inverse_rates(queue: UninformedQueue, without: Iterable[str] = ()) -> list[sympy.Expr]:
    r"""$S^{-n}$, the reciprocal rates $1/\mu_j$, minus those of the servers ``without``."""
    skip = set(without)
    return [1 / queue.rate(j) for j in queue.servers if j not in skip]


def _all_busy_weight(queue: UninformedQueue) -> sympy.Expr:
    r"""$p(\{1..n\}, 0)/p_0 = \frac{\lambda^n}{n!}P(S^{-n}, n)$."""
    return queue.arrival_rate ** queue.size / math.factorial(queue.size) \
        * sympy.Mul(*_inverse_rates(queue))


def _number_weights(queue: UninformedQueue) -> list[sympy.Expr]:
    r"""$P_k^n/p_0 = \frac{(n-k)!}{n!}\lambda^k P(S^{-n},k)$ for $k = 0..n$."""
    n, lam = queue.size, queue.arrival_rate
    sums = elementary_symmetric_sums(_inverse_rates(queue))
    return [sympy.Rational(math.factorial(n - k), math.factorial(n)) * lam ** k * sums[k]
            for k in range(n + 1)]


def uninformed_normalizing_constant(queue: UninformedQueue) -> sympy.Expr:
    r"""$1/p_0$, the normalizing constant of the law ([Cab]_ proof of Theorem 2.1).

    .. math:: \frac{1}{p_0} = \sum_{k=0}^n \frac{(n-k)!}{n!}\lambda^k P(S^{-n},k) +
              \frac{\lambda^n}{n!}P(S^{-n},n)\frac{\lambda}{\mu^n-\lambda},

    with $P(S^{-n},k)$ the elementary symmetric sums of the reciprocal rates
    (:mod:`symq.arithmetic.elementary_symmetric`).

    Parameters
    ----------
    queue : UninformedQueue
        Symbolic or numeric rates (the tail uses $\mu^n = \lambda + \delta$ after
        :meth:`~UninformedQueue.with_slack`).

    Returns
    -------
    sympy expression
        $1/p_0$.

    Notes
    -----
    Running time: $O(n^2)$ operations for the $n+1$ symmetric sums.

    Examples
    --------
    >>> uninformed_normalizing_constant(uninformed_queue(2, arrival_rate=1, service_rates=[2, 1]))
    17/8
    """
    finite = sympy.Add(*_number_weights(queue))
    return finite + _all_busy_weight(queue) * queue.arrival_rate / queue.gap


def uninformed_empty_probability(queue: UninformedQueue) -> sympy.Expr:
    r"""$p_0$, the probability that the system is empty (closed form through $P(S^{-n},k)$).

    Parameters
    ----------
    queue : UninformedQueue
        From :func:`uninformed_queue`; its rates may be numbers or symbols.

    Returns
    -------
    sympy expression
        $p_0=1/G$, the reciprocal of :func:`uninformed_normalizing_constant`.

    Notes
    -----
    Running time: one :func:`uninformed_normalizing_constant`, $O(n^2)$.

    Examples
    --------
    >>> uninformed_empty_probability(uninformed_queue(2, arrival_rate=1, service_rates=[2, 1]))
    8/17
    """
    return 1 / uninformed_normalizing_constant(queue)


def state_probability(queue: UninformedQueue, busy: Iterable[str],
                      queue_length: int = 0) -> sympy.Expr:
    r"""$p(S, q)$, the stationary probability of busy set ``busy`` and ``queue_length`` waiting.

    Parameters
    ----------
    queue : UninformedQueue
        The queue of the state.
    busy : iterable of server names
    queue_length : int

    Returns
    -------
    sympy expression
        $p(S, q)$.

    Raises
    ------
    ModelError
        As :func:`state_weight`.

    Notes
    -----
    Running time: $O(n^2)$, dominated by $p_0$.

    Examples
    --------
    >>> state_probability(uninformed_queue(2, arrival_rate=1, service_rates=[1, 1]), ["2"])
    1/6
    """
    return state_weight(queue, busy, queue_length) * uninformed_empty_probability(queue)


def number_probability(queue: UninformedQueue, jobs: int) -> sympy.Expr:
    r"""$P_k^n$, the probability of $k$ = ``jobs`` customers in the system.

    $\frac{(n-k)!}{n!}\lambda^k P(S^{-n},k)\,p_0$ for $k\le n$, geometric with ratio
    $\lambda/\mu^n$ beyond ([Cab]_ proof of Theorem 2.1).

    Parameters
    ----------
    queue : UninformedQueue
        The queue, with $n$ servers.
    jobs : int

    Returns
    -------
    sympy expression
        $P_k^n$.

    Raises
    ------
    ModelError
        A negative number of customers.

    Notes
    -----
    Running time: $O(n^2)$ for the symmetric sum and $p_0$.

    Examples
    --------
    >>> number_probability(uninformed_queue(3, arrival_rate=1, service_rates=[3, 2, 1]), 4)
    5/1956
    """
    n, lam = queue.size, queue.arrival_rate
    if jobs < 0:
        raise ModelError(f"the number of customers must be at least 0, not {jobs}")
    if jobs <= n:
        weight = sympy.Rational(math.factorial(n - jobs), math.factorial(n)) * lam ** jobs \
            * elementary_symmetric_sum(_inverse_rates(queue), jobs)
    else:
        weight = _all_busy_weight(queue) * (lam / queue.total_rate) ** (jobs - n)
    return weight * uninformed_empty_probability(queue)


class StationaryLaw(QuantityResult):
    r"""The ``dict`` of :func:`stationary_law`; Jupyter shows it as a table with one row per
    state, labelled $(B, q)$ by its busy set $B$ and queue length $q$."""

    def _key_label(self, key: Any) -> Any:
        from symq.display import set_display
        busy, length = key
        return Math(f"({set_display(sorted(busy))}, {length})")


def stationary_law(queue: UninformedQueue, max_queue: int = 0) -> dict[State, sympy.Expr]:
    r"""The stationary law ``{(busy set, queue length): p}``, queue lengths up to ``max_queue``.

    Parameters
    ----------
    queue : UninformedQueue
        The queue; its law has infinitely many states.
    max_queue : int
        The longest queue listed (the law has infinitely many states).

    Returns
    -------
    dict
        Every busy set with queue length 0, and the full busy set with $1..$ ``max_queue``.

    Notes
    -----
    Running time: $2^n$ + ``max_queue`` states, $O(n)$ each.

    Examples
    --------
    >>> law = stationary_law(uninformed_queue(2, arrival_rate=1, service_rates=[2, 1]))
    >>> sum(law.values())
    16/17
    """
    p0 = uninformed_empty_probability(queue)
    law = {}
    for k in range(queue.size + 1):
        for busy in itertools.combinations(queue.servers, k):
            law[(frozenset(busy), 0)] = state_weight(queue, busy) * p0
    everyone = frozenset(queue.servers)
    for q in range(1, max_queue + 1):
        law[(everyone, q)] = state_weight(queue, everyone, q) * p0
    return StationaryLaw(law)


# ---------------------------------------------------------------------------- who works the most
def all_busy_probability(queue: UninformedQueue) -> sympy.Expr:
    r"""$\mathcal P^n$, the probability that every server is busy (queue included).

    $\frac{\lambda^n}{n!\prod_j\mu_j}\frac{\mu^n}{\mu^n-\lambda}\,p_0$ ([Cab]_ proof of
    Theorem 2.1).

    Parameters
    ----------
    queue : UninformedQueue
        The queue; its tail is geometric with ratio $\lambda/\mu^n$.

    Returns
    -------
    sympy expression
        $\mathcal P^n$.

    Notes
    -----
    Running time: $O(n)$ for the product, $O(n^2)$ for $p_0$.

    Examples
    --------
    >>> all_busy_probability(uninformed_queue(2, arrival_rate=2, service_rates=[2, 1]))
    6/11
    """
    return (_all_busy_weight(queue) * queue.total_rate / queue.gap
            * uninformed_empty_probability(queue))


def busy_probability(queue: UninformedQueue, server: str) -> sympy.Expr:
    r"""$\mathcal P_l$, the probability that server $l$ is busy ([Cab]_ proof of Theorem 2.1).

    .. math:: \mathcal P_l = \frac{\lambda}{\mu_l}\sum_{k=1}^{n-1}\frac{(n-k)!}{n!}\lambda^{k-1}
              P(S^{-n}-\{\mu_l^{-1}\},k-1)\,p_0 + \mathcal P^n.

    Parameters
    ----------
    queue : UninformedQueue
        The queue of server $l$.
    server : str

    Returns
    -------
    sympy expression
        $\mathcal P_l$.

    Raises
    ------
    ModelError
        ``server`` is not a server of ``queue``.

    Notes
    -----
    Running time: $O(n^2)$ operations (:func:`busy_probability_by_states` is the second route).

    Examples
    --------
    >>> q = uninformed_queue(3, arrival_rate=2, service_rates=[3, 2, 1])
    >>> [busy_probability(q, j) for j in q.servers]
    [8/29, 10/29, 14/29]
    """
    server = str(server)
    return _busy_not_all(queue, server, [server]) + all_busy_probability(queue)


def _busy_not_all(queue: UninformedQueue, server: str, without: list[str]) -> sympy.Expr:
    r"""$\frac{\lambda}{\mu_l}\sum_{k=1}^{n-1}\frac{(n-k)!}{n!}\lambda^{k-1}
    P(S^{-n}-W,k-1)\,p_0$ for $l$ = ``server`` and $W$ the reciprocal rates of ``without``: the
    probability that $l$ is busy, the servers of ``without`` other than $l$ are idle, and some
    server is idle ([Cab]_ proof of Theorem 2.1)."""
    n, lam = queue.size, queue.arrival_rate
    sums = elementary_symmetric_sums(_inverse_rates(queue, without=without))
    partial = sympy.Add(*[sympy.Rational(math.factorial(n - k), math.factorial(n))
                          * lam ** (k - 1) * sums[k - 1] for k in range(1, n)])
    return lam / queue.rate(server) * partial * uninformed_empty_probability(queue)


def busy_probability_by_states(queue: UninformedQueue, server: str) -> sympy.Expr:
    r"""$\mathcal P_l$ summed state by state from the law: a second route to
    :func:`busy_probability`.

    Parameters
    ----------
    queue : UninformedQueue
        The queue, summed over its $2^{n-1}$ states with $l$ busy.
    server : str

    Returns
    -------
    sympy expression
        $\mathcal P_l$, equal to :func:`busy_probability`.

    Raises
    ------
    ModelError
        An unknown server name.

    Notes
    -----
    Running time: $2^{n-1}$ state weights, $O(n)$ each.

    Examples
    --------
    >>> q = uninformed_queue(3, arrival_rate=2, service_rates=[3, 2, 1])
    >>> busy_probability_by_states(q, "1")
    8/29
    """
    server = str(server)
    queue.rate(server)
    others = [j for j in queue.servers if j != server]
    total = sympy.Integer(0)
    for k in range(len(others) + 1):
        for rest in itertools.combinations(others, k):
            total += state_weight(queue, (server, *rest))
    tail = _all_busy_weight(queue) * queue.arrival_rate / queue.gap
    return (total + tail) * uninformed_empty_probability(queue)


def idle_probability(queue: UninformedQueue, server: str) -> sympy.Expr:
    r"""$1 - \mathcal P_l$, the probability that server $l$ is idle.

    Parameters
    ----------
    queue : UninformedQueue
        The queue of the idle server.
    server : str

    Returns
    -------
    sympy expression
        $1 - \mathcal P_l$.

    Raises
    ------
    ModelError
        ``server`` is not one of ``queue.servers``.

    Notes
    -----
    Running time: one :func:`busy_probability`.

    Examples
    --------
    >>> idle_probability(uninformed_queue(3, arrival_rate=2, service_rates=[3, 2, 1]), "3")
    15/29
    """
    return 1 - busy_probability(queue, server)


def busy_idle_probability(queue: UninformedQueue, busy_server: str, idle_server: str) -> sympy.Expr:
    r"""$\mathcal P_{l,m}$, the probability that server $l$ is busy and server $m$ idle.

    .. math:: \mathcal P_{l,m} = \frac{\lambda}{\mu_l}\sum_{k=1}^{n-1}\frac{(n-k)!}{n!}
              \lambda^{k-1} P(S^{-n}-\{\mu_l^{-1},\mu_m^{-1}\},k-1)\,p_0

    ([Cab]_ proof of Theorem 2.1).

    Parameters
    ----------
    queue : UninformedQueue
        The queue, with $n \ge 2$ servers.
    busy_server, idle_server : str
        $l$ and $m$.

    Returns
    -------
    sympy expression
        $\mathcal P_{l,m}$.

    Raises
    ------
    ModelError
        ``busy_server == idle_server`` or an unknown server.

    Notes
    -----
    Running time: $O(n^2)$: the symmetric sums without $l$ and $m$, and $p_0$.

    Examples
    --------
    >>> busy_idle_probability(uninformed_queue(2, arrival_rate=1, service_rates=[2, 1]), "1", "2")
    2/17
    """
    l, m = str(busy_server), str(idle_server)
    if l == m:
        raise ModelError(f"server {l!r} cannot be busy and idle at once; give two servers")
    queue.rate(m)
    return _busy_not_all(queue, l, [l, m])


def effective_service_rate(queue: UninformedQueue, server: str) -> sympy.Expr:
    r"""$\mu_l\mathcal P_l$, the rate at which server $l$ completes work (they sum to $\lambda$).

    Parameters
    ----------
    queue : UninformedQueue
        The queue of the working server.
    server : str

    Returns
    -------
    sympy expression
        $\mu_l\mathcal P_l$.

    Raises
    ------
    ModelError
        No server ``server`` in the queue.

    Notes
    -----
    Running time: one :func:`busy_probability` and a product.

    Examples
    --------
    >>> q = uninformed_queue(4, arrival_rate=3, service_rates=[4, 3, 2, 1])
    >>> sum(effective_service_rate(q, j) for j in q.servers)
    3
    """
    return queue.rate(server) * busy_probability(queue, server)


def uninformed_mean_number(queue: UninformedQueue) -> sympy.Expr:
    r"""$N^n = \sum_k k P_k^n$, the mean number of customers in the system.

    .. math:: N^n = p_0\Bigl[\sum_{k=1}^n k\frac{(n-k)!}{n!}\lambda^kP(S^{-n},k)
              + \frac{\lambda^n}{n!}P(S^{-n},n)\Bigl(\frac{n\lambda}{\mu^n-\lambda}
              + \frac{\lambda\mu^n}{(\mu^n-\lambda)^2}\Bigr)\Bigr]

    (from the law of [Cab]_, proof of Theorem 2.1).

    Parameters
    ----------
    queue : UninformedQueue
        The queue; its mean counts the waiting customers too.

    Returns
    -------
    sympy expression
        $N^n$.

    Notes
    -----
    Running time: $O(n^2)$, the $n+1$ symmetric sums and $p_0$.

    Examples
    --------
    >>> uninformed_mean_number(uninformed_queue(2, arrival_rate=1, service_rates=[2, 1]))
    27/34
    """
    n, lam = queue.size, queue.arrival_rate
    finite = sympy.Add(*[k * w for k, w in enumerate(_number_weights(queue)) if k])
    # sum_{q >= 1} (n + q) rho^q with rho = lambda / mu^n
    tail = n * lam / queue.gap + lam * queue.total_rate / queue.gap ** 2
    return (finite + _all_busy_weight(queue) * tail) * uninformed_empty_probability(queue)


def uninformed_mean_response_time(queue: UninformedQueue) -> sympy.Expr:
    r"""$T^n = N^n/\lambda$, the mean response time (Little's law).

    Parameters
    ----------
    queue : UninformedQueue
        The queue; arrivals at rate $\lambda$.

    Returns
    -------
    sympy expression
        $T^n$.

    Notes
    -----
    Running time: one :func:`uninformed_mean_number` and a division.

    Examples
    --------
    >>> uninformed_mean_response_time(uninformed_queue(1, arrival_rate=1, service_rates=[3]))
    1/2
    """
    return uninformed_mean_number(queue) / queue.arrival_rate
