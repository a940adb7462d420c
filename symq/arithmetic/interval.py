r"""Rigorous enclosures by directed rounding in fixed-point integers, the fast route to
certified digits: every DP of this package on a numeric model adds and multiplies nonnegative
numbers and divides by positive slacks, so running it twice on integers scaled by $2^p$, once
rounding every division down and once up, gives a lower and an upper bound of every value (each
step is monotone in its inputs). The slacks themselves are exact integers (rates over a common
denominator, see :class:`~symq.engines.normalization.subsets.SubsetGraph`), so nothing is subtracted
after rounding. The bounds are exact rationals; a decimal is printed only when both round to it.

Examples
--------
>>> from fractions import Fraction
>>> third = Interval(Fraction(333, 1000), Fraction(334, 1000))
>>> certify_interval(third.lower, third.upper, 2)
'0.33'
>>> certify_interval(third.lower, third.upper, 3) is None
True
>>> (third * third).upper
Fraction(27889, 250000)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from symq.arithmetic.numeric import round_fraction

__all__ = ["Interval", "certify_interval", "interval_sum", "merge_components"]


@dataclass(frozen=True)
class Interval:
    """A closed interval ``[lower, upper]`` of exact rationals enclosing one nonnegative value.

    Arithmetic is for nonnegative intervals (what the DPs produce); division needs a positive
    divisor.
    """

    lower: Fraction
    upper: Fraction

    def __post_init__(self) -> None:
        if self.lower > self.upper:
            raise ValueError(f"empty interval [{self.lower}, {self.upper}]")

    def __add__(self, other: "Interval") -> "Interval":
        return Interval(self.lower + other.lower, self.upper + other.upper)

    def __mul__(self, other: "Interval") -> "Interval":
        return Interval(self.lower * other.lower, self.upper * other.upper)

    def __truediv__(self, other: "Interval") -> "Interval":
        if other.lower <= 0:
            raise ZeroDivisionError("the divisor interval reaches 0")
        return Interval(self.lower / other.upper, self.upper / other.lower)

    def contains(self, value: Fraction) -> bool:
        """Whether an exact value lies in the interval."""
        return self.lower <= Fraction(value) <= self.upper

    def certify(self, digits: int) -> str | None:
        """The ``digits``-digit decimal of every point, or None (see :func:`certify_interval`)."""
        return certify_interval(self.lower, self.upper, digits)


def interval_sum(values: Any) -> Interval:
    """The sum of nonnegative intervals (the enclosure of a total such as $L=\\sum_cL_c$).

    Parameters
    ----------
    values : iterable of Interval

    Returns
    -------
    Interval
        ``[sum of lower ends, sum of upper ends]``; ``[0, 0]`` for no values.

    Examples
    --------
    >>> interval_sum([Interval(Fraction(1, 3), Fraction(1, 2))] * 2).upper
    Fraction(1, 1)

    Running time: O(len(values)) rational additions.
    """
    total = Interval(Fraction(0), Fraction(0))
    for value in values:
        total = total + value
    return total


def certify_interval(lower: Fraction, upper: Fraction, digits: int) -> str | None:
    """The decimal with ``digits`` significant digits (half to even, as
    :func:`symq.arithmetic.numeric.round_fraction`) that both ends of ``[lower, upper]`` round to, hence
    every point between them; None when they round differently or the interval holds 0 and
    another value.

    Rounding to $N$ significant digits is monotone, so the two ends decide.

    Parameters
    ----------
    lower, upper : Fraction
        The ends of the interval.
    digits : int
        Significant digits wanted.

    Returns
    -------
    str or None
        The certified decimal text, or ``None``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> eps = Fraction(1, 10**9)
    >>> certify_interval(Fraction(1, 3) - eps, Fraction(1, 3) + eps, 5)
    '0.33333'
    >>> certify_interval(Fraction(1, 10), Fraction(2, 10), 3) is None
    True

    Running time: O(digits^2) for the two roundings.
    """
    if lower <= 0 <= upper and lower != upper:
        return None
    low_text = round_fraction(lower, digits)
    return low_text if low_text == round_fraction(upper, digits) else None


def merge_components(model: Any, results: list[dict[str, Any]], per_class: bool,
                     idle: bool) -> dict[str, Any]:
    """The intervals of a model from those of its connected components: $G$ and
    $\\pi(\\emptyset)$ are products over the components (the stationary law factors), the
    idle probabilities and mean numbers are each component's, and ``"L_total"`` (when
    ``per_class``) is their sum.

    Parameters
    ----------
    model : Model
        The whole model (its server and class order is kept).
    results : list of dict
        Per component: ``{"G", "empty", "idle": {server: Interval} or None, "L": {class:
        Interval}}`` (``"L"`` only when ``per_class``).
    per_class, idle : bool
        Which values the components carry.

    Returns
    -------
    dict
        The same keys for the whole model.

    Examples
    --------
    >>> from symq import example_model
    >>> half = Interval(Fraction(1, 2), Fraction(1, 2))
    >>> merge_components(example_model("w"), [{"G": half, "empty": half, "idle": None}] * 2,
    ...                  False, False)["empty"].upper
    Fraction(1, 4)

    Running time: O(M + J) interval operations.
    """
    if len(results) == 1:
        out = dict(results[0])
    else:
        one = Interval(Fraction(1), Fraction(1))
        out = {"G": one, "empty": one, "idle": {} if idle else None}
        merged: dict[str, Interval] = {}
        for res in results:
            out["G"] = out["G"] * res["G"]
            out["empty"] = out["empty"] * res["empty"]
            if idle:
                out["idle"].update(res["idle"])
            if per_class:
                merged.update(res["L"])
        if idle:
            out["idle"] = {s: out["idle"][s] for s in model.servers}
        if per_class:
            out["L"] = {c: merged[c] for c in model.classes}
    if per_class and "L_total" not in out:  # the kernels give it; ball-route parts do not
        out["L_total"] = interval_sum(out["L"].values())
    return out
