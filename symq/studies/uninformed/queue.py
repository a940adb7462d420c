r"""Cabral's queue ([Cab]_ section 2) as a value: :class:`UninformedQueue` holds $\lambda$, the
rates $\mu_l$ of $n$ heterogeneous servers and what stands for $\mu^n = \sum_l \mu_l$ in the
geometric tail; :func:`uninformed_queue` builds it from a :class:`~symq.models.model.Model` with one
class compatible with every server (the built-in ``uninformed:N`` under ``rais``) or from $n$,
and :func:`is_uninformed` recognises such models.

References
----------
.. [Cab] F. B. Cabral, "Queues with heterogeneous servers and uninformed customers: who works the
   most?" (see ``docs/uninformed.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Sequence

import sympy

from symq.errors import ModelError, UnstableModelError
from symq.models.model import Model
from symq.models.rates import parse_rate, positive_symbol
from symq.display import Displayed, Math

__all__ = ["State", "UninformedQueue", "is_uninformed", "uninformed_queue", "busy_set"]

#: a state of the chain: the busy set and the queue length
State = tuple[frozenset, int]


@dataclass(frozen=True)
class UninformedQueue(Displayed):
    r"""An M/M/n queue with heterogeneous servers and uniform choice among idle servers ([Cab]_
    section 2).

    Parameters
    ----------
    arrival_rate : sympy expression
        $\lambda$.
    service_rates : mapping of server name to sympy expression
        $\mu_l$, in server order.
    total_rate : sympy expression, optional
        What stands for $\mu^n$ in the geometric tail: by default $\sum_l \mu_l$, and
        $\lambda + \delta$ after :meth:`with_slack`.
    name : str
    slack : sympy.Symbol, optional
        $\delta$ after :meth:`with_slack`.

    Raises
    ------
    ModelError
        No server, or a rate that is not exact and positive.
    UnstableModelError
        Numeric rates with $\lambda \ge \mu^n$.

    Examples
    --------
    >>> q = UninformedQueue(2, {"fast": 3, "slow": 1})
    >>> q.servers, q.size, q.gap
    (('fast', 'slow'), 2, 2)
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

    def _display(self) -> tuple[str, list]:
        """The rates as a table, for Jupyter (:class:`symq.display.Displayed`)."""
        rows = [("arrival rate", Math("\\lambda = " + sympy.latex(self.arrival_rate)))]
        rows += [(f"server {j}", Math("\\mu = " + sympy.latex(r)))
                 for j, r in self.service_rates.items()]
        rows.append(("total rate", Math("\\mu^n = " + sympy.latex(self.total_rate))))
        return f"uninformed M/M/{self.size} queue {self.name}".strip(), [(None, rows)]

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
        substitution of the sign certificates); $\delta$ is a new positive symbol, renamed
        ``delta_1``, ``delta_2``, ... when a rate already uses the name (a rate called
        ``delta`` stays a rate)."""
        if isinstance(slack, str):
            used = {s.name for rate in (self.arrival_rate, *self.service_rates.values())
                    for s in sympy.sympify(rate).free_symbols}
            name, k = slack, 0
            while name in used:
                k += 1
                name = f"{slack}_{k}"
            slack = positive_symbol(name)
        return replace(self, total_rate=self.arrival_rate + slack, slack=slack)


def is_uninformed(model: Model) -> bool:
    """Whether ``model`` is Cabral's queue: one class compatible with every server (under ``rais``).

    Parameters
    ----------
    model : Model
        Any model; only its compatibility graph is read.

    Returns
    -------
    bool
        True for one class whose server set is every server.

    Examples
    --------
    >>> from symq import model
    >>> is_uninformed(model("uninformed:3")), is_uninformed(model("n"))
    (True, False)

    Running time: O(J M) for J classes and M servers.
    """
    return (len(model.classes) == 1
            and set(model.compatibility[model.classes[0]]) == set(model.servers))


def uninformed_queue(source: Model | int, arrival_rate: Any = None,
                     service_rates: Sequence[Any] | Mapping[str, Any] | None = None
                     ) -> UninformedQueue:
    r"""The uninformed queue of a model with one fully flexible class, or of $n$ servers.

    Parameters
    ----------
    source : Model or int
        A model with one class compatible with every server, or the number of servers $n$
        (symbols ``lambda``, ``mu_1`` .. ``mu_n`` unless rates are given).
    arrival_rate, service_rates : optional
        Exact rates for the integer form (a sequence or ``{server: rate}``).

    Returns
    -------
    UninformedQueue
        Frozen; its ``servers`` are ``'1'`` .. ``'n'`` for the integer form.

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

    Running time: O(n) for n servers, plus the stability check of numeric rates.
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


def busy_set(queue: UninformedQueue, busy: Iterable[str]) -> frozenset[str]:
    """``busy`` as a frozenset of server names of ``queue``.

    Parameters
    ----------
    queue : UninformedQueue
        The queue whose servers are allowed.
    busy : iterable
        Server names or numbers (converted with ``str``).

    Returns
    -------
    frozenset of str

    Raises
    ------
    ModelError
        An unknown server.

    Examples
    --------
    >>> sorted(busy_set(uninformed_queue(3), [1, "3"]))
    ['1', '3']

    Running time: O(n) for n servers.
    """
    busy = frozenset(map(str, busy))
    unknown = busy - set(queue.servers)
    if unknown:
        raise ModelError(f"unknown server(s) {', '.join(sorted(unknown))}; servers are "
                         f"{', '.join(queue.servers)}")
    return busy
