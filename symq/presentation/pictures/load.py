r"""``symq plot MODEL load``: a quantity against the load, up to the stability limit.
All arrival rates are scaled by one factor $t$, stable exactly for
$t<t^*=\min_{\emptyset\ne A}\mu(S(A))/\lambda(A)$, which :func:`stability_limit` finds exactly by
Dinkelbach's iteration on the max-flow stability check; the picture shows the quantity (default
``mean-response-time``, per class and overall) at ``--points`` exact points against $t/t^*$. The
iteration and the options are in docs/pictures.md (A quantity against the load).

Examples
--------
>>> from symq.models.catalog import example_model
>>> from symq.presentation.pictures import load
>>> load.stability_limit(example_model("w"))
Fraction(18, 5)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

import sympy

from symq.errors import ModelError
from symq.models.model import Model
from symq.queries.quantities import QUANTITIES
from symq.models.stability import stability_report
from symq.presentation.pictures import (QUANTITY_OPTION, SHARED_OPTIONS, Curve, Picture,
                                        PictureKind, file_stem, pyplot, quantity_name,
                                        rates_title, register)
from symq.presentation.pictures._drawing import distinct, label

__all__ = ["stability_limit", "scaled", "load_models", "curve", "draw"]


def scaled(model: Model, factor: Any) -> Model:
    """The model with every arrival rate multiplied by ``factor``.

    Parameters
    ----------
    model : Model
        Numeric or symbolic rates.
    factor : number or sympy.Expr
        The load multiplier $t$ (read exactly).

    Returns
    -------
    Model
        Same classes, servers and service rates.

    Examples
    --------
    >>> from symq import example_model
    >>> scaled(example_model("n"), 2).arrival_rates["1"]
    1/2

    Running time: O(J).
    """
    if isinstance(factor, str):  # read by symq's rate grammar, never sympify
        from symq.models.rates import parse_value
        factor = parse_value(factor, "the load factor")
    elif not isinstance(factor, sympy.Basic):
        from symq.arithmetic.exact import rational, to_sympy
        factor = to_sympy(rational(factor, "the load factor"))
    return Model(compatibility=model.compatibility,
                 arrival_rates={i: factor * r for i, r in model.arrival_rates.items()},
                 service_rates=dict(model.service_rates),
                 abandonment_rates=dict(model.abandonment_rates), name=model.name)


def _rational(value: Fraction) -> sympy.Rational:
    return sympy.Rational(value.numerator, value.denominator)


def stability_limit(model: Model) -> Fraction:
    r"""$t^* = \min_A \mu(S(A))/\lambda(A)$ for a numeric model (see the module docstring).

    Parameters
    ----------
    model : Model
        Exact numeric rates at the base load $t=1$.

    Returns
    -------
    Fraction
        The factor at which the scaled model stops being stable.

    Raises
    ------
    ModelError
        A rate that is not an exact number (give every symbol with ``--set``).

    Examples
    --------
    >>> from symq import example_model
    >>> stability_limit(example_model("n"))
    Fraction(4, 1)

    Running time: a few max-flows (Dinkelbach's iteration converges in finitely many steps,
    usually two or three).
    """
    if not model.is_numeric:
        missing = ", ".join(sorted(s.name for s in model.symbols))
        raise ModelError(f"the load picture needs a value for every symbol; missing: {missing} "
                         "(give each with --set NAME=VALUE)")
    lam = model.arrival_rate()
    t = Fraction(str(model.service_rate() / lam))
    for _ in range(10 * len(model.classes) + 10):
        report = stability_report(scaled(model, _rational(t)))
        if report.margin >= 0:
            return t
        load = model.arrival_rate(report.classes)  # unscaled lambda(A)
        t = Fraction(str(report.capacity / load))
    raise ModelError("the stability limit was not found; report this model")  # pragma: no cover


def load_models(model: Model, points: int) -> tuple[Fraction, list[tuple[Fraction, Model]]]:
    r"""The stability limit $t^*$ and, at the relative loads $x=k/(\text{points}+1)$,
    $k=1..\text{points}$, the model with every arrival rate times $x\,t^*$.

    Parameters
    ----------
    model : Model
        Exact numeric rates (the base load $t=1$).
    points : int
        From 1 to 200.

    Returns
    -------
    tuple
        ``(t_star, [(x, scaled model)])``.

    Raises
    ------
    ModelError
        A bad number of points, symbolic rates.

    Examples
    --------
    >>> from symq import example_model
    >>> t_star, rows = load_models(example_model("n"), 3)
    >>> t_star, rows[1][0], rows[1][1].arrival_rates["1"]
    (Fraction(4, 1), Fraction(1, 2), 1/2)

    Running time: that of :func:`stability_limit`, plus O(points J).
    """
    if isinstance(points, bool) or not isinstance(points, int) or not 1 <= points <= 200:
        raise ModelError(f"--points must be from 1 to 200, not {points}")
    t_star = stability_limit(model)
    return t_star, [(Fraction(k, points + 1), scaled(model, _rational(Fraction(k, points + 1) * t_star)))
                    for k in range(1, points + 1)]


def curve(model: Model, quantity: str = "mean-response-time", discipline: str = "collaborative",
          points: int = 12, progress: Callable[[int, int], None] | None = None):
    """``(t_star, [(x, {label: exact value})])`` with ``x = t/t*`` at ``points`` exact points.

    Parameters
    ----------
    model : Model
        Exact numeric rates (the base load, $t=1$).
    quantity : str
        A name of :data:`symq.queries.quantities.QUANTITIES`.
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.
    points : int
        Loads $x = k/(\text{points}+1)$ of the stability limit.
    progress : callable, optional
        ``progress(done, total)`` after each point.

    Returns
    -------
    tuple
        The stability limit $t^*$ and one row per point.

    Raises
    ------
    ModelError
        An unknown quantity, a bad number of points, symbolic rates.

    Examples
    --------
    >>> from symq import example_model
    >>> t_star, rows = curve(example_model("n"), points=2)
    >>> t_star, rows[0][1]["total"]
    (Fraction(4, 1), 6/5)

    Running time: ``points`` exact evaluations of the quantity.
    """
    from symq.arithmetic.numeric import Evaluated
    from symq.queries.solve import solve
    if quantity not in QUANTITIES:
        raise ModelError(f"unknown quantity {quantity!r}; use one of: {', '.join(QUANTITIES)}")
    if not 1 <= points <= 200:
        raise ModelError(f"--points must be from 1 to 200, not {points}")
    t_star = stability_limit(model)
    rows = []
    for k in range(1, points + 1):
        x = Fraction(k, points + 1)
        result = solve(scaled(model, _rational(x * t_star)), quantity, discipline, exact=True,
                       what=f"plot {model.name or 'model'} load: {quantity} ({discipline}) at "
                            f"load {x} of the limit")
        values = {}
        for name, leaf in result.leaves():
            value = leaf.exact if isinstance(leaf, Evaluated) else leaf
            value = sympy.sympify(value) if not isinstance(value, sympy.Basic) else value
            if value.free_symbols or not value.is_Rational:
                raise ModelError(f"{quantity} is a function, not a number; the load picture "
                                 "draws numbers (e.g. mean-number, mean-response-time)")
            values[name or quantity] = value
        rows.append((x, values))
        if progress is not None:
            progress(k, points)
    return t_star, rows


def draw(model: Model, quantity: str = "mean-response-time", discipline: str = "collaborative",
         points: int = 12, progress: Callable[[int, int], None] | None = None) -> Picture:
    """The picture (see the module docstring).

    Parameters
    ----------
    model, quantity, discipline, points, progress
        As :func:`curve`.

    Returns
    -------
    Picture
        Stem ``<model>-load-<quantity>-<discipline>``; ``data`` holds the exact points and
        the stability limit.

    Examples
    --------
    >>> from symq import example_model
    >>> draw(example_model("n"), points=2).stem
    'n-load-mean-response-time-collaborative'

    Running time: that of :func:`curve`, plus matplotlib.
    """
    t_star, rows = curve(model, quantity, discipline, points, progress)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    names = list(rows[0][1])
    xs = [float(x) for x, _ in rows]
    words = {name: _curve_name(name) for name in names}
    rows_shown = distinct([words[name] for name in names])
    curves = []
    for name in names:
        style = dict(lw=2.2, color="black") if name in ("total", "overall", quantity) else {}
        ax.plot(xs, [float(v[name]) for _, v in rows], marker="o", ms=4,
                label=rows_shown[words[name]], **style)
        curves.append(Curve(words[name], quantity, discipline, f"relative load t/t* (t* = {t_star})",
                            [(x, v[name]) for x, v in rows]))
    ax.axvline(1.0, color="0.4", ls="--", lw=1)
    ax.text(1.0, 0.98, " stability limit", transform=ax.get_xaxis_transform(), ha="right",
            va="top", fontsize=8, rotation=90, color="0.3")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(bottom=0)
    ax.set_xlabel(f"relative load $t/t^*$ (all arrival rates times $t$; $t^* = {t_star}$)")
    ax.set_ylabel(quantity_name(quantity))
    ax.set_title(f"{quantity_name(quantity)} of {label(model)} ({discipline}), exact points\n"
                 f"base rates {rates_title(model)} (at $t = 1$)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    data = {"quantity": quantity, "discipline": discipline, "stability_limit": str(t_star),
            "points": [{"relative_load": str(x), "values": {k: str(v) for k, v in vals.items()}}
                       for x, vals in rows]}
    return Picture(fig, file_stem(label(model), "load", quantity, discipline), data, curves)


def _curve_name(name: str) -> str:
    """``per_class 1`` -> ``class 1``, ``per_server 2`` -> ``server 2`` (names as printed)."""
    for part, word in (("per_class ", "class "), ("per_server ", "server ")):
        if name.startswith(part):
            return word + name[len(part):]
    return name


register(PictureKind(
    "load", "a quantity (default mean-response-time) against a scaling of all arrival rates, "
            "up to the stability limit, exact points", draw,
    options={"quantity": QUANTITY_OPTION,
             "discipline": SHARED_OPTIONS["discipline"], "points": SHARED_OPTIONS["points"]},
    progress=True))
