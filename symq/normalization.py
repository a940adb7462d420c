r"""Exact normalizing constants and idle probabilities.

Collaborative (order-independent) model: the server-removal recursion of Bonald and Comte, as
stated in [GR20]_, Proposition 6.2,

.. math:: \pi(\emptyset) = \frac{\mu - \lambda}{\sum_{k} \mu_k / \pi_{-k}(\emptyset)},

where $\pi_{-k}$ is the reduced system $\vdash\{k\}$: server $k$ and every class it can serve
removed (servers left without a class drop out). The recursion runs over the class sets that
removals can leave, memoized, so it costs $O(2^M M)$ exact operations at most.

Examples
--------
>>> from sympy import latex
>>> from symq import model
>>> from symq.normalization import empty_probability
>>> print(latex(empty_probability(model("n"))))
\frac{\left(\lambda_{1} - \mu_{1}\right) \left(\lambda_{1} + \lambda_{2} - \mu_{1} - \mu_{2}\right)}{\mu_{1} \left(\lambda_{1} - \mu_{1} - \mu_{2}\right)}
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import sympy

from .errors import UnsupportedError
from .model import Model
from .stability import check_stability

__all__ = ["empty_probability", "collaborative_empty_probability", "DISCIPLINES"]

DISCIPLINES = ("collaborative", "alis", "rais")


def _to_fraction(value: sympy.Expr) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def collaborative_empty_probability(model: Model) -> sympy.Expr:
    """$\\pi(\\emptyset)$ of the collaborative model by [GR20]_ Proposition 6.2 (see module doc).

    Exact: with numeric rates the recursion runs on :class:`fractions.Fraction` and returns a
    sympy Rational; with symbolic rates every step is a cancelled rational function.

    Raises
    ------
    UnstableModelError
        Numeric rates that violate $\\lambda(A) < \\mu(S(A))$ (the recursion would return a
        meaningless number).
    """
    check_stability(model)
    if model.is_empty:
        return sympy.Integer(1)
    classes = model.classes
    servers_of = {i: frozenset(model.compatibility[i]) for i in classes}
    classes_of = {j: frozenset(model.classes_of([j])) for j in model.servers}
    numeric = model.is_numeric
    convert = _to_fraction if numeric else (lambda x: x)
    lam = {i: convert(model.arrival_rates[i]) for i in classes}
    mu = {j: convert(model.service_rates[j]) for j in model.servers}
    zero = Fraction(0) if numeric else sympy.Integer(0)
    simplify = (lambda x: x) if numeric else sympy.cancel

    @lru_cache(maxsize=None)
    def inverse_empty(remaining: frozenset[str]) -> object:
        # 1 / pi(empty) of the system made of the classes `remaining` (Prop 6.2, inverted)
        if not remaining:
            return Fraction(1) if numeric else sympy.Integer(1)
        servers = frozenset().union(*(servers_of[i] for i in remaining))
        total = sum((mu[j] * inverse_empty(remaining - classes_of[j]) for j in servers), zero)
        capacity = sum((mu[j] for j in servers), zero) - sum((lam[i] for i in remaining), zero)
        return simplify(total / capacity)

    result = inverse_empty(frozenset(classes))
    if numeric:
        return sympy.Rational(result.denominator, result.numerator)
    return sympy.factor(1 / result)


def empty_probability(model: Model, discipline: str = "collaborative") -> sympy.Expr:
    """Probability that no job is in the system, exact.

    Parameters
    ----------
    model : Model
    discipline : ``"collaborative"`` (redundancy with cancel-on-completion, the OI queue).

    Raises
    ------
    UnsupportedError
        A discipline symq cannot compute yet.
    UnstableModelError
        Numeric rates violating the stability condition.
    """
    if discipline == "collaborative":
        return collaborative_empty_probability(model)
    raise UnsupportedError(f"empty-probability for discipline {discipline!r} is not available yet; "
                           "available: collaborative")
