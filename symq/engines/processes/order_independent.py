r"""Order-independent (OI) queues: the collaborative model, abandonments and loss.
The state is $\vec c_n = (c_1, \dots, c_n)$, the classes of all jobs in order of arrival
([GR20]_, section 3.1): :class:`OrderIndependentQueue` is the OI queue of Definition 3.1 with a
general rate function $\mu(\vec c_n)$ and the product form
$\pi(\vec c_n) = \pi(\emptyset)\prod_{i=1}^n \lambda_{c_i}/\mu(\vec c_i)$ of Theorem 3.3
(Berezner, Kriel and Krzesinski; Krzesinski), :class:`CollaborativeQueue` the collaborative model
of section 2 as an instance (with abandonments, Corollary 3.5), and :class:`AcceptanceRegion` job
rejection on a region with the truncation property (Definition 3.6, Corollary 3.7; a region
without it is refused with the counts that break it). The rate functions and the truncation
property: see docs/product-forms.md.

References
----------
.. [GR20] K. Gardner and R. Righter, Product forms for FCFS queueing models with arbitrary
   server-job compatibilities: an overview. Queueing Systems 96 (2020) 3-51. arXiv:2006.05979.

Examples
--------
>>> from sympy import latex
>>> from symq import model
>>> from symq.engines.processes import CollaborativeQueue
>>> queue = CollaborativeQueue(model("n"))
>>> print(latex(queue.product_form(("2", "1"))))
\frac{\lambda_{1} \lambda_{2}}{\left(\mu_{1} + \mu_{2}\right)^{2}}
"""

from __future__ import annotations

import itertools
from typing import Callable, Iterable, Mapping, Sequence

import sympy

from symq.errors import ModelError
from symq.models.model import Model
from symq.models.rates import parse_rate
from symq.engines.processes.base import Process, Transition

__all__ = ["OrderIndependentQueue", "CollaborativeQueue", "AcceptanceRegion",
           "check_order_independence"]

ClassState = tuple[str, ...]


# ------------------------------------------------------------------------------ loss regions
class AcceptanceRegion:
    r"""Which per-class job counts a loss OI queue accepts ([GR20]_, Def 3.6, Cor 3.7).

    Parameters
    ----------
    class_caps : mapping of class to the most jobs of that class allowed in the system
    total_cap : the most jobs allowed in the system
    accepts : a predicate on the per-class counts (a mapping class -> count); it is combined with
        the caps. It sees counts only, so part (i) of Definition 3.6 (permutations) holds by
        construction; part (ii) (removing a job keeps a state in the region) is checked by
        :meth:`check_truncation_property`.

    Examples
    --------
    >>> region = AcceptanceRegion(class_caps={"1": 2}, total_cap=3)
    >>> region.contains({"1": 2, "2": 1}), region.contains({"1": 3})
    (True, False)
    """

    def __init__(self, class_caps: Mapping[str, int] | None = None, total_cap: int | None = None,
                 accepts: Callable[[Mapping[str, int]], bool] | None = None) -> None:
        self.class_caps = {str(c): self._cap(v, f"cap of class {c!r}")
                           for c, v in (class_caps or {}).items()}
        self.total_cap = None if total_cap is None else self._cap(total_cap, "total cap")
        self.accepts = accepts

    @staticmethod
    def _cap(value: int, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{what} must be an int, not {type(value).__name__}")
        if value < 0:
            raise ModelError(f"{what} is {value}; give a cap >= 0")
        return value

    def contains(self, counts: Mapping[str, int]) -> bool:
        """Whether a state with these per-class counts is accepted."""
        if self.total_cap is not None and sum(counts.values()) > self.total_cap:
            return False
        if any(counts.get(c, 0) > cap for c, cap in self.class_caps.items()):
            return False
        return bool(self.accepts(dict(counts))) if self.accepts is not None else True

    def check_truncation_property(self, classes: Sequence[str], max_jobs: int) -> None:
        """Check Definition 3.6 on every count vector with at most ``max_jobs`` jobs.

        Raises
        ------
        ModelError
            The empty state is rejected, or a vector in the region loses a job and leaves it;
            the message names both count vectors and the class of the removed job.
        """
        unknown = set(self.class_caps) - set(classes)
        if unknown:
            raise ModelError(f"acceptance region caps the unknown class {sorted(unknown)[0]!r}; "
                             f"classes are {', '.join(classes)}")
        if not self.contains({}):
            raise ModelError("the acceptance region rejects the empty state; it must contain it "
                             "(truncation property, [GR20] Def 3.6)")
        for total in range(1, max_jobs + 1):
            for combo in itertools.combinations_with_replacement(classes, total):
                counts = {c: combo.count(c) for c in classes if c in combo}
                if not self.contains(counts):
                    continue
                for c in counts:
                    smaller = dict(counts)
                    smaller[c] -= 1
                    if not self.contains(smaller):
                        raise ModelError(
                            f"the acceptance region lacks the truncation property ([GR20] Def "
                            f"3.6): it accepts the counts {_counts_text(counts)} but not "
                            f"{_counts_text(smaller)} (one class-{c!r} job fewer), so the "
                            "product form of Cor 3.7 does not apply; use a coordinate-convex "
                            "region such as per-class caps or a total cap")

    def __repr__(self) -> str:
        parts = []
        if self.class_caps:
            parts.append(f"class_caps={self.class_caps}")
        if self.total_cap is not None:
            parts.append(f"total_cap={self.total_cap}")
        if self.accepts is not None:
            parts.append("accepts=<predicate>")
        return f"AcceptanceRegion({', '.join(parts)})"


def _counts_text(counts: Mapping[str, int]) -> str:
    shown = {c: k for c, k in counts.items() if k}
    return "{" + ", ".join(f"{c}: {k}" for c, k in sorted(shown.items())) + "}"


def _counts(state: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in state:
        counts[c] = counts.get(c, 0) + 1
    return counts


# ------------------------------------------------------------------------------ OI queue
class OrderIndependentQueue(Process):
    r"""The OI queue of [GR20]_ Definition 3.1 with a general rate function (Theorem 3.3).

    Parameters
    ----------
    arrival_rates : mapping of class to its Poisson arrival rate $\lambda_c$
    rate_function : callable on a tuple of classes $\vec c_n$ giving the total departure rate
        $\mu(\vec c_n)$; the job in position $j$ departs at rate $\mu(\vec c_j)-\mu(\vec c_{j-1})$.
        It must be order independent (property (ii)): :func:`check_order_independence` checks it.
    region : an optional :class:`AcceptanceRegion` (loss model, Cor 3.7)
    name : a label for reports

    Raises
    ------
    ModelError
        A rate that is not exact and positive; a region without the truncation property (raised
        by :meth:`states`, which checks it up to the size asked for).

    Examples
    --------
    >>> import sympy
    >>> lam, mu = sympy.symbols("lambda mu", positive=True)
    >>> ps = OrderIndependentQueue({"1": lam}, lambda state: mu if state else 0, name="M/M/1-PS")
    >>> ps.product_form(("1", "1"))
    lambda**2/mu**2
    """

    discipline = "oi"

    def __init__(self, arrival_rates: Mapping[str, object],
                 rate_function: Callable[[ClassState], object],
                 region: AcceptanceRegion | None = None, name: str = "OI queue") -> None:
        if not callable(rate_function):
            raise TypeError("rate_function must be callable on a tuple of classes")
        if not arrival_rates:
            raise ModelError("an OI queue needs at least one class with an arrival rate")
        self.classes = tuple(str(c) for c in arrival_rates)
        self.arrival_rates = {str(c): parse_rate(r, f"arrival rate of class {c!r}")
                              for c, r in arrival_rates.items()}
        self._rate_function = rate_function
        self._rates: dict[ClassState, sympy.Expr] = {}
        if region is not None and not isinstance(region, AcceptanceRegion):
            raise TypeError("region must be an AcceptanceRegion")
        self.region = region
        self.name = name

    # -- the rate function ---------------------------------------------------------------
    def total_rate(self, state: ClassState) -> sympy.Expr:
        r"""$\mu(\vec c_n)$, memoized on the (sorted) class multiset."""
        key = tuple(sorted(state))
        if key not in self._rates:
            self._rates[key] = sympy.sympify(self._rate_function(tuple(state))) if state \
                else sympy.Integer(0)
        return self._rates[key]

    def departure_rate(self, state: ClassState, position: int) -> sympy.Expr:
        r"""$\Delta_{j}(\vec c_n) = \mu(\vec c_j) - \mu(\vec c_{j-1})$ for ``position`` $= j-1$."""
        return sympy.expand(self.total_rate(state[:position + 1]) - self.total_rate(state[:position]))

    # -- Process interface ---------------------------------------------------------------
    def initial_state(self) -> ClassState:
        return ()

    def size(self, state: ClassState) -> int:
        return len(state)

    def accepted(self, state: ClassState) -> bool:
        """Whether ``state`` lies in the acceptance region (always, without one)."""
        return self.region is None or self.region.contains(_counts(state))

    def states(self, max_size: int) -> list[ClassState]:
        if self.region is not None:
            self.region.check_truncation_property(self.classes, max_size)
        result: list[ClassState] = [()]
        layer: list[ClassState] = [()]
        for _ in range(max_size):
            layer = [s + (c,) for s in layer for c in self.classes if self.accepted(s + (c,))]
            result.extend(layer)
        return result

    def _departures(self, state: ClassState) -> Iterable[tuple[int, sympy.Expr, str]]:
        """(position, rate, event) of every way a job can leave (general OI: one per position)."""
        for p in range(len(state)):
            rate = self.departure_rate(state, p)
            if rate != 0:
                yield p, rate, f"departure of the class-{state[p]} job in position {p + 1}"

    def transitions(self, state: ClassState) -> list[Transition]:
        moves = []
        for c in self.classes:  # a class-c arrival joins the end, if accepted
            target = state + (c,)
            if self.accepted(target):
                moves.append(Transition(target, self.arrival_rates[c], ("class", c),
                                        ("departure",), f"class-{c} arrival"))
        for p, rate, event in self._departures(state):
            moves.append(Transition(state[:p] + state[p + 1:], rate, ("departure",),
                                    ("class", state[p]), event))
        return moves

    def product_form_factors(self, state: ClassState) -> list[sympy.Expr]:
        r"""$\lambda_{c_i}/\mu(\vec c_i)$, $i = 1..n$ ([GR20]_ Thm 3.3, eq. (2))."""
        return [self.arrival_rates[c] / self.total_rate(state[:i + 1])
                for i, c in enumerate(state)]


def check_order_independence(queue: OrderIndependentQueue, max_jobs: int) -> None:
    """Check properties (ii) and (iii) of [GR20]_ Definition 3.1 on every state up to ``max_jobs``.

    Parameters
    ----------
    queue : OrderIndependentQueue
        Its rate function is evaluated on every order of every multiset of jobs.
    max_jobs : int
        The largest number of jobs checked.

    Raises
    ------
    ModelError
        Two orders of the same jobs with different total rates (names both), a class whose lone
        job is served at rate 0, or a negative marginal rate.

    Examples
    --------
    >>> import sympy
    >>> mu = sympy.Symbol("mu", positive=True)
    >>> check_order_independence(OrderIndependentQueue({"1": 1}, lambda s: mu if s else 0), 3)

    Running time: O(sum over n of C(n + J - 1, n) n!) rate evaluations for J classes.
    """
    for c in queue.classes:
        if sympy.sympify(queue._rate_function((c,))).is_positive is False:
            raise ModelError(f"a lone class-{c!r} job is served at rate "
                             f"{queue._rate_function((c,))}; OI property (iii) needs mu(c) > 0")
    for n in range(2, max_jobs + 1):
        for combo in itertools.combinations_with_replacement(queue.classes, n):
            rates = {}
            for order in set(itertools.permutations(combo)):
                rates[order] = sympy.sympify(queue._rate_function(order))
            base_order, base = next(iter(rates.items()))
            for order, rate in rates.items():
                if sympy.cancel(rate - base) != 0:
                    raise ModelError(
                        f"the rate function is not order independent (OI property (ii)): "
                        f"mu{base_order} = {base} but mu{order} = {rate}")
                for j in range(1, n + 1):
                    delta = sympy.sympify(queue._rate_function(order[:j])) - (
                        sympy.sympify(queue._rate_function(order[:j - 1])) if j > 1 else 0)
                    if sympy.cancel(delta).is_negative:
                        raise ModelError(f"the job in position {j} of {order} gets the negative "
                                         f"rate {delta}; marginal rates must be >= 0")


# ------------------------------------------------------------------------------ collaborative
class CollaborativeQueue(OrderIndependentQueue):
    r"""The collaborative model of [GR20]_ section 2, an OI queue (Thm 3.3), with optional
    abandonments (Cor 3.5) and loss (Cor 3.7).

    Verbal model: a job of class $c$ in position $p$ is served together by every server of $S_c$
    that is not serving an older job and completes at the sum of their rates; with abandonment
    rates, every job in the system (waiting or in service) also leaves at rate $\gamma_c$.

    Parameters
    ----------
    model : a :class:`~symq.models.model.Model`; its ``abandonment_rates`` switch on Cor 3.5
    region : an optional :class:`AcceptanceRegion` (Cor 3.7)
    abandonment : set False to ignore the model's abandonment rates

    Examples
    --------
    >>> from sympy import latex
    >>> from symq import model
    >>> w = CollaborativeQueue(model("w"))
    >>> print(latex(w.product_form(("1", "3"))))
    \frac{\lambda_{1} \lambda_{3}}{\mu_{1} \left(\mu_{1} + \mu_{2}\right)}
    """

    discipline = "collaborative"

    def __init__(self, model: Model, region: AcceptanceRegion | None = None,
                 abandonment: bool = True) -> None:
        if not isinstance(model, Model):
            raise TypeError(f"expected a symq Model, not {type(model).__name__}")
        self.model = model
        self.abandonment_rates = dict(model.abandonment_rates) if abandonment else {}
        self._servers_of = {c: frozenset(model.compatibility[c]) for c in model.classes}
        self._server_sum: dict[frozenset, sympy.Expr] = {}
        super().__init__(model.arrival_rates, self._collaborative_rate, region,
                         name=model.name or "model")
        if self.abandonment_rates:
            self.discipline = "collaborative-abandonment"

    def _servers_rate(self, servers: frozenset) -> sympy.Expr:
        if servers not in self._server_sum:
            self._server_sum[servers] = sympy.Add(*(self.model.service_rates[j]
                                                    for j in sorted(servers)))
        return self._server_sum[servers]

    def _collaborative_rate(self, state: ClassState) -> sympy.Expr:
        """$\\mu(\\vec c_n) = \\sum_i \\gamma_{c_i} + \\mu(S(\\vec c_n))$ (Cor 3.5)."""
        servers = frozenset().union(*(self._servers_of[c] for c in state))
        patience = sympy.Add(*(self.abandonment_rates.get(c, 0) for c in state))
        return self._servers_rate(servers) + patience

    def _departures(self, state: ClassState) -> Iterable[tuple[int, sympy.Expr, str]]:
        """Verbal model: fresh servers complete the job; every job may abandon."""
        used: frozenset = frozenset()
        for p, c in enumerate(state):
            fresh = self._servers_of[c] - used
            if fresh:
                yield p, self._servers_rate(fresh), (f"completion of the class-{c} job in "
                                                     f"position {p + 1} by servers "
                                                     f"{{{', '.join(sorted(fresh))}}}")
                used = used | fresh
            if c in self.abandonment_rates:
                yield p, self.abandonment_rates[c], (f"abandonment of the class-{c} job in "
                                                     f"position {p + 1}")
