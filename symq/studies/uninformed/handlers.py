r"""The quantities of ``symq evaluate`` for Cabral's queue: :data:`QUANTITY_HANDLERS` maps a
quantity name to a handler that reads the :class:`~symq.models.model.Model` (one fully flexible class
under ``rais``) as an :class:`~symq.studies.uninformed.UninformedQueue` and returns the closed form of
:mod:`symq.studies.uninformed.law`, as one factored fraction for small symbolic models;
:mod:`symq.queries.quantities` registers them with ``applies=is_uninformed``.
"""

from __future__ import annotations

from typing import Any, Callable

import sympy

from symq.arithmetic.certificates import numerator_denominator
from symq.models.model import Model
from symq.studies.uninformed.law import (idle_probability, uninformed_empty_probability, uninformed_mean_number,
                  uninformed_mean_response_time, uninformed_normalizing_constant)
from symq.studies.uninformed.queue import UninformedQueue, uninformed_queue

__all__ = ["QUANTITY_HANDLERS", "TIDY_SERVERS"]


TIDY_SERVERS = 4
"""Symbolic results for at most this many servers are returned as one factored fraction."""


def _tidy(expr: sympy.Expr, servers: int) -> sympy.Expr:
    """One factored fraction for small symbolic models (exact rationals are left alone)."""
    expr = sympy.sympify(expr)
    symbols = sorted(expr.free_symbols, key=str)
    if not symbols or servers > TIDY_SERVERS:
        return expr
    top, bottom = numerator_denominator(expr, symbols)
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
    "empty-probability": (_scalar(uninformed_empty_probability),
                          "Cabral's closed form through P(S^-n, k) and a geometric tail"),
    "normalizing-constant": (_scalar(uninformed_normalizing_constant),
                             "Cabral's closed form 1/p_0 through P(S^-n, k)"),
    "server-idle-probability": (_server_idle_handler,
                                "1 - P_l with P_l of Cabral, proof of Theorem 2.1"),
    "mean-number": (_per_class(uninformed_mean_number), "sum_k k P_k from Cabral's law"),
    "mean-response-time": (_per_class(uninformed_mean_response_time),
                           "Little's law on Cabral's mean number"),
}
"""Quantity name -> (handler(model), method) for one fully flexible class under ``rais``
(registered by :mod:`symq.queries.quantities` with ``applies=is_uninformed``)."""
