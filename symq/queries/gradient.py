r"""Gradients of a quantity at one point (:func:`gradient`: :func:`symq.solve` with ``wrt``, which
picks the route ``reverse-mode`` of the route table and its arithmetic: exact rationals where
cheap or asked for, certified balls otherwise), and the text and JSON that ``symq evaluate
--gradient`` / ``--wrt NAME`` print. The engine is :mod:`symq.engines.sensitivity` (reverse-mode
differentiation of the subset DPs); docs/sensitivities.md explains why the printed digits are
right. The lines and JSON that ``symq evaluate --gradient`` prints are
:meth:`~symq.engines.sensitivity.Sensitivities.lines` and
:meth:`~symq.engines.sensitivity.Sensitivities.as_json`.

Examples
--------
>>> import symq
>>> g = symq.gradient("n", "mean-response-time", values={"lambda_1": "1/4",
...     "lambda_2": "1/4", "mu_1": 1, "mu_2": 1}, wrt=["mu_2"], digits=8)
>>> print("\n".join(g.lines()))
total: 22/21 = 1.0476190
  d/dmu_2: -124/441 = -0.28117914 (elasticity -0.26839827)
class 1: 10/7 = 1.4285714
  d/dmu_2: -52/441 = -0.11791383 (elasticity -0.082539683)
class 2: 2/3 = 0.66666667
  d/dmu_2: -4/9 = -0.44444444 (elasticity -0.66666667)
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping


from symq.models.model import Model

__all__ = ["gradient"]


def gradient(model: Model | str, quantity: str, discipline: str = "collaborative",
             values: Mapping[str, Any] | None = None, wrt: Iterable[str] | None = None,
             digits: int = 30, exact: bool | None = None, labels: Iterable[str] | None = None,
             max_work: int | None = None, no_limits: bool = False, limits: Any = None) -> Any:
    r"""Every partial derivative and elasticity $\partial\log Q/\partial\log x$ of a quantity at
    one point, per class (server) and in total, exact or with ``digits`` certified digits.

    Parameters
    ----------
    model : Model, str or Path
        Symbolic rates with ``values`` for every symbol, or numeric rates (then the rates are
        ``lambda_<class>`` and ``mu_<server>``).
    quantity : str
        ``empty-probability``, ``normalizing-constant``, ``server-idle-probability``,
        ``mean-number`` or ``mean-response-time``.
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.
    values : mapping, optional
        ``{symbol name: rational}``.
    wrt : iterable of str, optional
        Rate names (default: every rate).
    digits : int
        Certified significant digits of every decimal.
    exact : bool or None
        Exact rationals (``True``), certified balls (``False``) or exact where cheap (``None``).
    labels : iterable of str, optional
        Only these outputs' derivatives (``"total"``, ``"class 1"``...): one backward sweep each.
    max_work, no_limits, limits : optional
        Raise or lift the ``dp-steps`` / ``certified-steps`` limit (three sweeps' worth of
        subset-DP steps per output; the route table's estimate of ``reverse-mode``).

    Returns
    -------
    Sensitivities
        :class:`symq.engines.sensitivity.Sensitivities` (``Fraction`` values when exact,
        certified ``Ball`` values otherwise).

    Raises
    ------
    ModelError
        Unknown names, a rate without a value.
    TooLargeError
        The estimate is past the limit.

    Examples
    --------
    >>> from symq import example_model
    >>> g = gradient(example_model("w"), "mean-number", "alis", wrt=["mu_1"])
    >>> g.derivative("total", "mu_1"), g.arithmetic
    (Fraction(-88781715, 207867296), 'exact')

    Running time: that of the subset DP (``symq routes``), times about three per output; a
    thin wrapper of ``symq.solve(..., wrt=...).gradient``.
    """
    from symq.engines.sensitivity import rate_symbols
    from symq.models.catalog import as_model
    from symq.queries.solve import solve
    model = as_model(model)
    rate_symbols(model, values)  # every rate has a value, every name is a rate
    result = solve(model, quantity, discipline, values, digits, exact,
                   wrt="all" if wrt is None else list(wrt), of=labels, max_work=max_work,
                   no_limits=no_limits, limits=limits)
    return result.gradient
