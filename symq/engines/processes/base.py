r"""The common shape of a Markov process with a candidate product-form law.
A :class:`Process` knows its state descriptor and :meth:`~Process.size`, its valid states
(:meth:`~Process.states`, from the survey's definition of validity), its transitions
(:meth:`~Process.transitions`, written from the verbal model, never from the product form, each
:class:`Transition` naming its partial-balance families ``out_key`` and ``in_key``) and its
product form (:meth:`~Process.product_form`, with $\pi(\emptyset) = 1$, a product of
:meth:`~Process.product_form_factors`); :mod:`symq.engines.balance` checks the law against the
transitions and :mod:`symq.engines.ctmc` solves the truncated chain built from the same transitions. What
each part means: see docs/product-forms.md.
"""

from __future__ import annotations

from functools import reduce
from operator import mul
from typing import Any, Callable, Hashable, Iterable, Mapping, NamedTuple, Sequence

import sympy

__all__ = ["Process", "Transition", "format_state", "prefix_ratios", "classes_beside"]


class Transition(NamedTuple):
    """One transition ``source -> target`` at ``rate`` (a sympy expression).

    ``out_key`` / ``in_key`` name the partial-balance family at the source and at the target, e.g.
    ``("class", "2")`` or ``("departure",)``; ``event`` describes it in words for reports.
    """

    target: Hashable
    rate: Any
    out_key: tuple
    in_key: tuple
    event: str = ""


def format_state(state: Any) -> str:
    """A compact text form: tuples as ``(a, b)``, pairs of tuples as ``(a, b | c)``.

    Parameters
    ----------
    state : object
        A state descriptor of a :class:`Process`.

    Returns
    -------
    str

    Examples
    --------
    >>> format_state((("1", "3"), ("2",))), format_state(("1",))
    ('(1, 3 | 2)', '(1)')

    Running time: O(size of the state).
    """
    if isinstance(state, tuple) and len(state) == 2 and all(isinstance(p, tuple) for p in state):
        return f"({_seq(state[0])} | {_seq(state[1])})"
    if isinstance(state, tuple):
        return f"({_seq(state)})"
    return str(state)


def _seq(items: Sequence[Any]) -> str:
    return ", ".join(_item(x) for x in items)


def _item(x: Any) -> str:
    if isinstance(x, tuple) and len(x) == 2 and x[0] in ("b", "c"):
        return f"{x[1]}_{x[0]}"
    if isinstance(x, tuple):
        return "(" + _seq(x) + ")"
    return str(x)


class Process:
    """Base class: a state descriptor, valid states, verbal transitions and a product form.

    Subclasses set :attr:`name` and :attr:`discipline` and implement :meth:`initial_state`,
    :meth:`size`, :meth:`states`, :meth:`transitions` and :meth:`product_form_factors`.
    ``discrete_time`` processes give one-step probabilities as rates (the stationary law of a
    discrete-time chain solves the same balance equations as the continuous-time chain with these
    rates).
    """

    name: str = ""
    discipline: str = ""
    discrete_time: bool = False
    #: whether the survey's proof uses partial balance for this process
    partial_balance: bool = True

    def initial_state(self) -> Hashable:
        """The empty state."""
        raise NotImplementedError

    def size(self, state: Hashable) -> int:
        """Number of jobs (agents, busy tokens) in ``state``: what a truncation counts."""
        raise NotImplementedError

    def states(self, max_size: int) -> list[Hashable]:
        """All valid states with ``size(state) <= max_size``."""
        raise NotImplementedError

    def transitions(self, state: Hashable) -> list[Transition]:
        """Transitions out of ``state`` (from the verbal model; self-loops omitted)."""
        raise NotImplementedError

    def product_form_factors(self, state: Hashable) -> list[sympy.Expr]:
        """The factors of the product-form term of ``state``."""
        raise NotImplementedError

    def product_form(self, state: Hashable) -> sympy.Expr:
        r"""The product-form term of ``state``, with $\pi(\emptyset) = 1$ (not normalized)."""
        return reduce(mul, self.product_form_factors(state), sympy.Integer(1))

    def symbols(self) -> list[sympy.Symbol]:
        """The free symbols of the rates (for exact rational-function arithmetic)."""
        return []

    def format_state(self, state: Hashable) -> str:
        """The state as text for reports."""
        return format_state(state)

    def describe_key(self, key: tuple) -> str:
        """Words for a partial-balance family (the ``out_key``/``in_key`` of transitions)."""
        kind, *rest = key
        words = {
            "class": "out by class-{0} arrivals = in by class-{0} departures",
            "departure": "out by departures = in by arrivals",
            "server": "out by server {0} becoming busy = in by server {0} becoming idle",
            "idle": "out by idle servers becoming busy = in by servers becoming idle",
            "queue": "out by job-queue departures = in by job-queue arrivals",
            "server type": "out by type-{0} server arrivals = in by type-{0} server departures",
            "server queue": "out by server-queue departures = in by server-queue arrivals",
            "token": "out by token {0} moving = in by token {0} moving",
        }
        if kind in words:
            return words[kind].format(*rest)
        return " ".join(str(k) for k in key)

    def keep(self, state: Hashable, max_size: int) -> bool:
        """Whether ``state`` lies in the truncation ``size <= max_size`` (for symq.engines.ctmc)."""
        return self.size(state) <= max_size

    def truncated_chain(self, max_size: int):
        """The chain of :meth:`transitions` cut at ``max_size``, for :func:`symq.engines.ctmc.build_chain`."""
        from symq.engines.ctmc import build_chain

        return build_chain(self.initial_state(),
                           lambda s: ((t.target, t.rate) for t in self.transitions(s)),
                           keep=lambda s: self.keep(s, max_size))


def product(factors: Iterable[Any]) -> Any:
    """The product of ``factors`` (1 when empty)."""
    return reduce(mul, factors, sympy.Integer(1))


def prefix_ratios(items: Sequence[Any], rate: Mapping[Any, Any], reach_of: Mapping[Any, frozenset],
                  capacity: Callable[[frozenset], Any],
                  patience: Mapping[Any, Any] | None = None) -> list[Any]:
    r"""The product-form factors of an ordered queue: for each position $i$ of ``items``,
    ``rate[x_i]`` over the capacity of the union of ``reach_of[x_1]``, ..., ``reach_of[x_i]``
    plus the patience rates of $x_1, \dots, x_i$ ([GR20]_ eq. (4); Thm 3.12-3.13 with
    abandonments).

    Parameters
    ----------
    items : sequence
        The queue in order, oldest first (job classes or server names).
    rate : mapping
        The rate of each item's type ($\lambda_c$ or $\mu_s$).
    reach_of : mapping
        The set each item type reaches (its compatible servers or classes, or itself).
    capacity : callable
        ``capacity(reach)``: the total rate of a reached set.
    patience : mapping, optional
        Abandonment rate of each item type (0 where missing).

    Returns
    -------
    list
        One factor per position.

    Examples
    --------
    >>> prefix_ratios(["a", "b"], {"a": 1, "b": 2}, {"a": frozenset("x"), "b": frozenset("y")},
    ...               lambda reach: sympy.Integer(len(reach) * 3))
    [1/3, 1/3]

    Running time: O(n) set unions and ``capacity`` calls for n items.
    """
    factors = []
    reach: frozenset = frozenset()
    waiting = sympy.Integer(0)
    for x in items:
        reach = reach | reach_of[x]
        waiting += (patience or {}).get(x, 0)
        factors.append(rate[x] / (waiting + capacity(reach)))
    return factors


def classes_beside(process: Any, servers: Iterable[str]) -> list[str]:
    """The job classes that can wait while ``servers`` wait or are idle: those compatible with
    none of them (a compatible job would be matched at once).

    Parameters
    ----------
    process : Process
        A process with ``model`` and ``_servers_of`` (class -> frozenset of servers).
    servers : iterable of str
        The waiting or idle servers.

    Returns
    -------
    list of str
        The classes in model order.

    Examples
    --------
    >>> from symq import model
    >>> from symq.engines.processes.matching import PairedMatching
    >>> classes_beside(PairedMatching(model("n")), ["2"])
    ['1']

    Running time: O(J) set intersections for J classes.
    """
    blocked = frozenset(servers)
    return [c for c in process.model.classes if not process._servers_of[c] & blocked]
