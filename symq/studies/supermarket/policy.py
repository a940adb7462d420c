r"""The supermarket model's inputs and drift rates: stations $j$ (the servers of a
:class:`~symq.models.model.Model`) work at rates $\mu_j$, jobs arrive at neighbourhoods $S_i$ (the
classes) as Poisson($\lambda_i$) streams, a static policy $\pi$ routes a job of stream $i$ to
$j$ with probability $\pi(i)_j$ (:func:`check_policy`), the drift of station $j$ is
$V(j;\pi) = \sum_i \lambda_i\pi(i)_j - \mu_j$ (eq. 1.1 of [SM]_, :func:`drift_rates`), and
positive station weights $w_j$ (:func:`parse_weights`) weigh the drifts.

References
----------
.. [SM] "Dynamics of the supermarket model", eq. 1.1, the drift rates; heterogeneous stations,
   neighbourhoods $S_i$, join-the-least-weighted-queue (see ``docs/supermarket.md``).
"""

from __future__ import annotations

from typing import Any, Mapping

import sympy

from symq.errors import ModelError
from symq.models.model import Model
from symq.models.rates import parse_value
from symq.display import QuantityResult

__all__ = ["parse_weight_settings", "parse_weights", "check_policy", "drift_rates"]


def parse_weights(model: Model, weights: Mapping[str, Any] | None = None) -> dict[str, sympy.Rational]:
    """Station weights $w_j$ as exact positive rationals; stations not named get weight 1.

    Parameters
    ----------
    model : the model whose servers are the stations
    weights : mapping of station name to a positive exact number (``2``, ``"3/2"``,
        ``Fraction(3, 2)``, a sympy Rational; the decimal string ``"0.5"`` is read as 1/2)

    Raises
    ------
    ModelError
        An unknown station, a float, a symbol, or a weight that is not positive.
    TypeError
        ``weights`` is not a mapping, or a weight of a type symq cannot read.

    Returns
    -------
    dict
        Station name to $w_j$ (a sympy Rational), for every station.

    Notes
    -----
    Running time: linear in the number of stations.

    Examples
    --------
    >>> from symq import model
    >>> parse_weights(model("n"), {"2": "3/2"})
    {'1': 1, '2': 3/2}
    """
    if weights is None:
        weights = {}
    if not isinstance(weights, Mapping):
        raise TypeError(f"weights must be a mapping of station name to weight, not "
                        f"{type(weights).__name__}")
    result = {j: sympy.Integer(1) for j in model.servers}
    for name, value in weights.items():
        station = str(name)
        if station not in result:
            raise ModelError(f"weight given for the unknown station {station!r}; stations are "
                             f"{', '.join(repr(j) for j in model.servers)}")
        what = f"weight of station {station!r}"
        weight = parse_value(value, what)
        if weight.free_symbols:
            raise ModelError(f"{what} is {weight}; weights must be exact positive numbers such as "
                             "2 or 3/2, not symbols")
        if not weight.is_Rational:
            raise ModelError(f"{what} is {weight}, which is not a rational number; give e.g. 3/2")
        if weight <= 0:
            raise ModelError(f"{what} is {weight}; weights must be positive")
        result[station] = weight
    return result


def check_policy(model: Model, policy: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, sympy.Expr]]:
    r"""Validate a static policy $\pi$: for each class, routing probabilities over its stations.

    A valid policy gives every class $i$ probabilities that are non-negative, zero outside $S_i$
    and sum to one on $S_i$. Stations a class does not mention get probability 0.

    Parameters
    ----------
    model : Model
    policy : mapping
        Class to a mapping of station to probability (exact numbers or expressions).

    Returns
    -------
    dict
        Class to station of $S_i$ to probability (sympy expressions).

    Raises
    ------
    ModelError
        A missing or unknown class, an unknown station, a station outside $S_i$ with positive
        probability, a negative probability, or probabilities that do not sum to one.

    Notes
    -----
    Running time: linear in the number of classes and stations.

    Examples
    --------
    >>> from symq import model
    >>> check_policy(model("n"), {"1": {"1": 1}, "2": {"2": 1}})
    {'1': {'1': 1}, '2': {'1': 0, '2': 1}}
    """
    result: dict[str, dict[str, sympy.Expr]] = {}
    for i in policy:
        if str(i) not in model.compatibility:
            raise ModelError(f"the policy routes the unknown class {i!r}; classes are "
                             f"{', '.join(model.classes)}")
    for i in model.classes:
        if i not in policy:
            raise ModelError(f"the policy does not route class {i!r}; give its probabilities")
        row = {str(j): parse_value(p, f"probability of routing class {i!r} to station {j!r}")
               for j, p in dict(policy[i]).items()}
        for j, p in row.items():
            if j not in model.service_rates:
                raise ModelError(f"the policy routes class {i!r} to the unknown station {j!r}")
            if j not in model.compatibility[i] and p != 0:
                raise ModelError(f"the policy routes class {i!r} to station {j!r}, which is not "
                                 f"in its neighbourhood {set(model.compatibility[i])}")
            if p.is_negative:
                raise ModelError(f"the policy gives class {i!r} the negative probability {p} "
                                 f"at station {j!r}")
        total = sympy.simplify(sum(row.values(), sympy.Integer(0)))
        if total != 1:
            raise ModelError(f"the routing probabilities of class {i!r} sum to {total}, not 1")
        result[i] = {j: row.get(j, sympy.Integer(0)) for j in model.compatibility[i]}
    return result


def drift_rates(model: Model, policy: Mapping[str, Mapping[str, Any]]) -> dict[str, sympy.Expr]:
    r"""The drift $V(j;\pi)=\sum_i\lambda_i\pi(i)_j-\mu_j$ of every station (eq. 1.1 of [SM]_).

    Exact, and symbolic when the rates are symbols.

    Parameters
    ----------
    model : Model
    policy : mapping
        A static policy (see :func:`check_policy`).

    Returns
    -------
    dict
        Station to $V(j;\pi)$.

    Notes
    -----
    Running time: one pass over the validated policy.

    Examples
    --------
    >>> import symq
    >>> v = drift_rates(symq.model("n"), {"1": {"1": 1}, "2": {"1": "1/2", "2": "1/2"}})
    >>> v["1"]
    lambda_1 + lambda_2/2 - mu_1

    Raises
    ------
    ModelError
        An invalid policy (see :func:`check_policy`).
    """
    from symq.models.arguments import check_model
    check_model(model, "drift_rates(model)")
    routing = check_policy(model, policy)
    drift = {j: -model.service_rates[j] for j in model.servers}
    for i, row in routing.items():
        for j, p in row.items():
            drift[j] += model.arrival_rates[i] * p
    return QuantityResult(drift)  # a dict that Jupyter shows as a table


def parse_weight_settings(items: list[str]) -> dict[str, str]:
    """``["1=2", "3=1/2"]`` to ``{"1": "2", "3": "1/2"}``.

    Parameters
    ----------
    items : list of str
        The ``--weights`` arguments.

    Returns
    -------
    dict
        Station name to weight text (checked later, when the decomposition reads it).

    Raises
    ------
    ModelError
        An item without ``=``, an empty name or value, a station given twice.

    Examples
    --------
    >>> parse_weight_settings(["1=2", "3=1/2"])
    {'1': '2', '3': '1/2'}

    Running time: O(number of items).
    """
    weights: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise ModelError(f"--weights {item!r}: write STATION=VALUE, e.g. --weights 1=2")
        if name in weights:
            raise ModelError(f"--weights gives station {name!r} twice; give each station one weight")
        weights[name] = value
    return weights
