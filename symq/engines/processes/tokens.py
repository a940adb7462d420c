r"""Token models: the token central queue (Ayesta et al.) and the closed token network (Comte).
[GR20]_ section 3.3: tokens generalize the servers of the noncollaborative model (a job needs a
compatible token to enter service, and a token serves one job at a time); :class:`TokenQueue`
(Ayesta, Bodas, Dorsman and Verloop) is RAIS over tokens with an OI service layer, for which
Theorem 3.10 holds, with :func:`collaborative_token_service` the collaborative token-server layer,
and :class:`ClosedTokenNetwork` (Comte) the loss model with the longest-idle token. The verbal
models, states and product forms: see docs/product-forms.md.

Examples
--------
>>> from sympy import latex
>>> network = ClosedTokenNetwork({"1": ["x"], "2": ["x", "y"]}, {"1": "lambda_1", "2": "lambda_2"},
...                              {"x": ["1"], "y": ["1", "2"]}, {"1": "mu_1", "2": "mu_2"})
>>> print(latex(network.product_form((("x",), ("y",)))))
\frac{1}{\lambda_{2} \mu_{1}}
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Mapping, Sequence

import sympy

from symq.errors import ModelError
from symq.models.model import Model
from symq.models.rates import parse_rate
from symq.engines.processes.base import Process, Transition
from symq.engines.processes.noncollaborative import RandomAssignmentProcess

__all__ = ["TokenQueue", "ClosedTokenNetwork", "collaborative_token_service"]


def collaborative_token_service(token_servers: Mapping[str, Sequence[str]],
                                service_rates: Mapping[str, Any]) -> Callable[[tuple], sympy.Expr]:
    r"""The OI rate function $\mu(\vec b) = \sum_{m \in S(\vec b)}\mu_m$ of a token-server layer.

    Parameters
    ----------
    token_servers : mapping
        Token -> the servers that can work on it.
    service_rates : mapping
        Server -> its rate (exact or symbolic).

    Returns
    -------
    callable
        ``service(busy_tokens)``, the total rate of the servers that reach them.

    Raises
    ------
    ModelError
        A token without a server, or a server of some token that has no rate in
        ``service_rates``.

    Examples
    --------
    >>> service = collaborative_token_service({"1": ["a"], "2": ["a", "b"]}, {"a": 1, "b": 2})
    >>> service(("1", "2")), service(("2",))
    (3, 3)

    Running time: O(T S) to build for T tokens and S servers; O(S) per call.
    """
    servers_of = {}
    for token, servers in token_servers.items():
        servers = [str(m) for m in servers]
        if not servers:
            raise ModelError(f"token {token!r} has no server; give it at least one")
        for m in servers:
            if m not in {str(k) for k in service_rates}:
                raise ModelError(f"server {m!r} of token {token!r} has no service rate; give one")
        servers_of[str(token)] = frozenset(servers)
    rates = {str(m): parse_rate(r, f"service rate of server {m!r}") for m, r in service_rates.items()}

    def service(busy: tuple) -> sympy.Expr:
        reach = frozenset().union(*(servers_of[t] for t in busy))
        return sympy.Add(*(rates[m] for m in sorted(reach)))
    return service


class TokenQueue(RandomAssignmentProcess):
    r"""The token central queue of Ayesta et al. on $\vec z_m$ ([GR20]_ section 3.3).

    Parameters
    ----------
    model : job classes and their compatible tokens (the model's "servers" are the tokens; their
        ``service_rates`` are used only when ``service_rate`` is not given)
    service_rate : OI rate function of the busy tokens in order, e.g.
        :func:`collaborative_token_service`
    routing, check : as for :class:`~symq.engines.processes.noncollaborative.RandomAssignmentProcess`

    Examples
    --------
    >>> from symq import model
    >>> service = collaborative_token_service({"1": ["a"], "2": ["a", "b"]}, {"a": 1, "b": 2})
    >>> queue = TokenQueue(model("n"), service)
    >>> queue.service(("1", "2")), queue.service(("1",))
    (3, 1)
    """

    discipline = "token-rais"

    def __init__(self, model: Model, service_rate: Callable[[tuple], Any] | None = None,
                 routing: Any = "canonical", check: bool = True) -> None:
        super().__init__(model, routing=routing, check=check, service_rate=service_rate)


class ClosedTokenNetwork(Process):
    r"""Comte's closed token network on $(\vec b_l, \vec s_k)$ ([GR20]_ section 3.3).

    Parameters
    ----------
    class_tokens : mapping job class -> the tokens it can use
    arrival_rates : mapping job class -> $\lambda_c$
    token_servers : mapping token -> the servers that serve it (collaborative layer)
    service_rates : mapping server -> $\mu_m$

    Raises
    ------
    ModelError
        A class with no token, a token with no class or no server, a rate that is not exact and
        positive.
    """

    discipline = "closed-token"
    partial_balance = False

    def __init__(self, class_tokens: Mapping[str, Sequence[str]], arrival_rates: Mapping[str, Any],
                 token_servers: Mapping[str, Sequence[str]], service_rates: Mapping[str, Any],
                 name: str = "closed token network") -> None:
        self.tokens = tuple(str(t) for t in token_servers)
        self.classes = tuple(str(c) for c in class_tokens)
        self.tokens_of = {}
        for c, tokens in class_tokens.items():
            tokens = frozenset(str(t) for t in tokens)
            if not tokens:
                raise ModelError(f"class {c!r} has no token; give it at least one")
            unknown = tokens - set(self.tokens)
            if unknown:
                raise ModelError(f"class {c!r} names the unknown token {sorted(unknown)[0]!r}; "
                                 f"tokens are {', '.join(self.tokens)}")
            self.tokens_of[str(c)] = tokens
        for t in self.tokens:
            if not any(t in ts for ts in self.tokens_of.values()):
                raise ModelError(f"token {t!r} serves no job class; give it one or drop it")
        self.arrival_rates = {}
        for c in self.classes:
            if c not in {str(k) for k in arrival_rates}:
                raise ModelError(f"class {c!r} has no arrival rate; give one")
        self.arrival_rates = {str(c): parse_rate(r, f"arrival rate of class {c!r}")
                              for c, r in arrival_rates.items()}
        self.service = collaborative_token_service(token_servers, service_rates)
        self.name = name
        self._cache: dict = {}

    def _class_rate(self, tokens: frozenset) -> sympy.Expr:
        key = ("lambda", tokens)
        if key not in self._cache:
            self._cache[key] = sympy.Add(*(self.arrival_rates[c] for c in self.classes
                                           if self.tokens_of[c] & tokens))
        return self._cache[key]

    def initial_state(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return ((), self.tokens)

    def size(self, state) -> int:
        return len(state[0])

    def states(self, max_size: int) -> list:
        result = []
        for order in itertools.permutations(self.tokens):
            for split in range(min(max_size, len(order)) + 1):
                result.append((order[:split], order[split:]))
        return result

    def transitions(self, state) -> list[Transition]:
        busy, idle = state
        moves = []
        for c in self.classes:  # ALIT: the longest-idle compatible token; else the job is lost
            t = next((t for t in idle if t in self.tokens_of[c]), None)
            if t is not None:
                moves.append(Transition((busy + (t,), tuple(x for x in idle if x != t)),
                                        self.arrival_rates[c], ("network",), ("network",),
                                        f"class-{c} job takes idle token {t}"))
        for k, t in enumerate(busy):  # the (k+1)-th busy token gets the servers left to it
            rate = sympy.expand(self.service(busy[:k + 1]) - self.service(busy[:k]))
            if rate != 0:
                moves.append(Transition((busy[:k] + busy[k + 1:], idle + (t,)), rate,
                                        ("network",), ("network",),
                                        f"token {t} completes and becomes idle"))
        return moves

    def product_form_factors(self, state) -> list[sympy.Expr]:
        r"""$1/\mu(\vec b_i)$ and $1/\lambda(\vec s_i)$ ([GR20]_ section 3.3, Comte)."""
        busy, idle = state
        factors = [1 / self.service(busy[:i + 1]) for i in range(len(busy))]
        factors += [1 / self._class_rate(frozenset(idle[:i + 1])) for i in range(len(idle))]
        return factors
