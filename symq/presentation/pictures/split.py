r"""``symq plot MODEL split --budget "x_1 + x_2 = C"``: a quantity along a split of capacity.
The two budget rates share a fixed total $C$: $x_2=C-x_1$. The picture draws, at ``--points``
exact points $x_1$ spread evenly over the stable part $(\ell,h)$ of $(0,C)$, the quantity's total
$Q$ (the value of a one-value quantity) on the left axis and its directional derivative along
the split,
$$D(x_1)=\frac{\mathrm d}{\mathrm dx_1}Q(x_1,C-x_1)=\frac{\partial Q}{\partial x_1}-
\frac{\partial Q}{\partial x_2},$$
on the right axis, with its zero line. Every value and derivative is exact: one call of the front
door :func:`symq.solve` with ``wrt=`` the two budget rates (route ``reverse-mode``, exact
rationals) per point. Between two sample points where $D$ changes sign, bisection on the sign of
the exact $D$ narrows the crossing to ``digits`` significant digits; it is a *stationary point*
of $Q$ along the split (a local minimum where $D$ goes from negative to positive), drawn as a
dotted vertical line. No global minimum is claimed.

The stable part is exact: the model is stable iff $\mu(U)>\lambda(A_U)$ for every union $U$ of
class server sets, with $A_U$ the classes whose server sets lie in $U$ (a class set $A$ with
$S(A)=U$ needs no more capacity than $A_U$). Along the split each of these is an affine
inequality $a_U+b_Ux_1>0$ (rates linear in the budget rates), so the stable part is the open
interval $\ell=\max_{b_U>0}(-a_U/b_U)$, $h=\min_{b_U<0}(-a_U/b_U)$ within $(0,C)$.

Examples
--------
>>> import symq
>>> from symq.presentation.pictures.split import split_curve
>>> m = symq.model("w").substitute({"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4"})
>>> curve = split_curve(m, "mu_1 + mu_2 = 9/5", points=3, digits=6)
>>> curve.rates, curve.capacity, curve.stable
(('mu_1', 'mu_2'), Fraction(9, 5), (Fraction(3, 20), Fraction(17, 10)))
>>> curve.stationary[0].text
'1.00329'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import sympy

from symq.arithmetic.exact import to_fraction
from symq.errors import ModelError, TooLargeError, UnstableModelError
from symq.models.model import DISCIPLINES, Model
from symq.presentation.pictures import (QUANTITY_OPTION, SHARED_OPTIONS, Curve, Picture,
                                        PictureKind, file_stem, pyplot, quantity_name,
                                        rates_title, register)
from symq.presentation.pictures._drawing import label, plain

__all__ = ["SPLIT_QUANTITIES", "parse_split_budget", "stable_range", "split_work", "Stationary",
           "SplitCurve", "split_curve", "draw"]

#: the quantities the picture draws (their total, or their one value), and the output label of
#: their derivatives in :meth:`symq.queries.solve.Result.derivative`
SPLIT_QUANTITIES = {"mean-response-time": "total", "mean-number": "total",
                    "empty-probability": "", "normalizing-constant": ""}

#: the most unions of class server sets the stability range enumerates
_MAX_UNIONS = 200_000


def parse_split_budget(text: str, rates: Any) -> tuple[str, str, Fraction]:
    """``"mu_1 + mu_2 = 9/5"`` -> ``("mu_1", "mu_2", Fraction(9, 5))``, read by symq's grammar.

    Parameters
    ----------
    text : str
        Exactly two rate names added, ``=``, a positive rational capacity.
    rates : iterable of str
        The model's rate names (the budget may name only these).

    Returns
    -------
    (str, str, Fraction)
        The two rates in rate order (``lambda`` before ``mu``, then by number) and the capacity;
        the first one is the x axis of the picture.

    Raises
    ------
    ModelError
        No ``=`` or several, a capacity that is not a positive number, a term that is not a rate
        name, an unknown rate, or other than exactly two rates.

    Examples
    --------
    >>> parse_split_budget("mu_2 + mu_1 = 9/5", ["lambda_1", "mu_1", "mu_2"])
    ('mu_1', 'mu_2', Fraction(9, 5))
    >>> parse_split_budget("mu_1 + mu_2 + mu_3 = 3", ["mu_1", "mu_2", "mu_3"])
    Traceback (most recent call last):
    ...
    symq.errors.ModelError: --budget 'mu_1 + mu_2 + mu_3 = 3': the split picture draws exactly two budget rates, not 3 (mu_1, mu_2, mu_3); symq optimize splits a capacity among more

    Running time: O(length of the text).
    """
    from symq.queries.optimize import parse_budget
    if not isinstance(text, str) or not text.strip():
        raise ModelError("the split picture needs --budget \"mu_1 + mu_2 = C\" (the two rates "
                         "that share the capacity C)")
    try:  # symq optimize's reading of a budget, then the picture's own rule: two rates
        names, capacity = parse_budget(text, rates)
    except ModelError as error:
        message = str(error)
        if not message.startswith(f"--budget {text!r}"):
            message = f"--budget {text!r}: {message.removeprefix('--budget: ')}"
        raise ModelError(message) from None
    if len(names) != 2:
        more = "; symq optimize splits a capacity among more" if len(names) > 2 else ""
        raise ModelError(f"--budget {text!r}: the split picture draws exactly two budget rates, "
                         f"not {len(names)} ({', '.join(names)}){more}")
    return names[0], names[1], capacity


def _frame(model: Model, budget: str) -> tuple[Model, dict[str, Fraction], str, str, Fraction]:
    """The symbolic model the derivatives are taken in, the fixed values of its other symbols,
    the two budget rates and the capacity."""
    from symq.engines.sensitivity import rate_symbols
    if dict(model.abandonment_rates):
        raise ModelError("the split picture needs derivatives, which models with abandonment do "
                         "not have; remove the abandonment rates")
    if model.symbols:
        names = sorted(s.name for s in model.symbols)
        rates = set(names)
        for c in model.classes:
            rates.add(f"lambda_{c}")
        for s in model.servers:
            rates.add(f"mu_{s}")
        x1, x2, capacity = parse_split_budget(budget, rates)
        for x in (x1, x2):
            if x not in names:
                raise ModelError(f"--budget names {x}, which has a number already (from --set or "
                                 "the model file); leave it out of --set: the split sets it")
        missing = [n for n in names if n not in (x1, x2)]
        if missing:
            raise ModelError(f"the split picture needs a value for every rate outside the budget; "
                             f"missing: {', '.join(missing)} (give each with --set NAME=VALUE)")
        return model, {}, x1, x2, capacity
    base, point = rate_symbols(model)
    x1, x2, capacity = parse_split_budget(budget, [s.name for s in point])
    fixed = {s.name: v for s, v in point.items() if s.name not in (x1, x2)}
    return base, fixed, x1, x2, capacity


def _affine(expr: sympy.Expr, x: sympy.Symbol, what: str) -> tuple[Fraction, Fraction]:
    expr = sympy.expand(expr)
    if expr.free_symbols - {x}:
        raise ModelError(f"{what} is not a number along the split")  # pragma: no cover
    poly = sympy.Poly(expr, x) if expr.has(x) else None
    if poly is not None and poly.degree() > 1:
        raise ModelError(f"{what} = {expr} is not linear in the budget rates; the split picture "
                         "needs rates linear in them")
    a = expr.subs(x, 0)
    b = poly.coeff_monomial(x) if poly is not None else 0
    return to_fraction(a), to_fraction(b)


def stable_range(model: Model, budget: str) -> tuple[Fraction, Fraction]:
    r"""The exact stable part $(\ell,h)$ of $x_1\in(0,C)$ along the split (module docstring).

    Parameters
    ----------
    model : Model
        Every rate a number, except the budget rates (which may be symbols); with numeric rates
        the budget names ``lambda_<class>`` or ``mu_<server>``.
    budget : str
        ``"x_1 + x_2 = C"`` (:func:`parse_split_budget`).

    Returns
    -------
    (Fraction, Fraction)
        The open interval of stable $x_1$, with $0\le\ell<h\le C$.

    Raises
    ------
    ModelError
        A bad budget, a rate without a value, rates not linear in the budget rates.
    UnstableModelError
        No split of $C$ keeps the model stable (the message names the class sets at fault).
    TooLargeError
        More than 200,000 unions of class server sets.

    Examples
    --------
    >>> import symq
    >>> m = symq.model("w").substitute({"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4"})
    >>> stable_range(m, "mu_1 + mu_2 = 9/5")   # mu_1 > lambda_1, mu_2 > lambda_2
    (Fraction(3, 20), Fraction(17, 10))

    Running time: O(U (J + M)) for U unions of class server sets.
    """
    from symq.engines.normalization.subsets import unions
    base, fixed, x1, x2, capacity = _frame(model, budget)
    x = sympy.Symbol("x")
    by_name = {s.name: s for s in base.symbols}
    subs = {by_name[n]: sympy.Rational(v.numerator, v.denominator) for n, v in fixed.items()}
    subs.update({by_name[x1]: x, by_name[x2]: sympy.Rational(capacity.numerator,
                                                             capacity.denominator) - x})
    servers = {s: _affine(sympy.sympify(base.service_rates[s]).subs(subs), x,
                          f"the service rate of server {s}") for s in base.servers}
    classes = {c: _affine(sympy.sympify(base.arrival_rates[c]).subs(subs), x,
                          f"the arrival rate of class {c}") for c in base.classes}
    index = {s: k for k, s in enumerate(base.servers)}
    masks = {c: sum(1 << index[s] for s in base.compatibility[c]) for c in base.classes}
    found = unions(sorted(set(masks.values())), limit=_MAX_UNIONS)
    if found is None:
        raise TooLargeError(f"too large: the stable range of the split needs more than "
                            f"{_MAX_UNIONS:,} unions of class server sets")
    low, high = (Fraction(0), None), (capacity, None)
    never = None
    for union in found:
        if not union:
            continue
        a = sum((servers[s][0] for s in base.servers if union >> index[s] & 1), Fraction(0))
        b = sum((servers[s][1] for s in base.servers if union >> index[s] & 1), Fraction(0))
        inside = [c for c in base.classes if masks[c] & ~union == 0]
        a -= sum((classes[c][0] for c in inside), Fraction(0))
        b -= sum((classes[c][1] for c in inside), Fraction(0))
        if b == 0:
            if a <= 0 and never is None:
                never = inside
        elif b > 0 and -a / b > low[0]:
            low = (-a / b, inside)
        elif b < 0 and -a / b < high[0]:
            high = (-a / b, inside)
    where = f"--budget {budget!r}"
    if never is not None:
        raise UnstableModelError(f"{where}: no split keeps the model stable: classes "
                                 f"{', '.join(never)} need more than their servers' capacity "
                                 f"whatever {x1} is; lower their arrival rates or raise C")
    if low[0] >= high[0]:
        why = "; ".join(f"classes {', '.join(cs)} need {x1} {op} {v}"
                        for op, (v, cs) in ((">", low), ("<", high)) if cs is not None)
        raise UnstableModelError(f"{where}: no split keeps the model stable ({why}); raise the "
                                 "capacity C")
    return low[0], high[0]


def split_work(model: Model, budget: str, quantity: str = "mean-response-time",
               discipline: str = "collaborative", points: int = 12, digits: int = 20,
               limits: Any = None) -> tuple[str, int | None]:
    r"""The work of :func:`split_curve`: (points + $4\cdot$digits bisection steps) times the
    ``reverse-mode`` route's estimate of one exact gradient, checked against its limit.

    Parameters
    ----------
    model, budget, quantity, discipline, points, digits
        As :func:`split_curve`.
    limits : argparse.Namespace, optional
        ``max_work`` and ``no_limits`` (the command line's); ``None``: the default limits.

    Returns
    -------
    (str, int or None)
        The limit's name (``dp-steps``) and the estimated steps.

    Raises
    ------
    TooLargeError
        Past the limit (the message gives the estimate and ``--max-work N``).
    ModelError
        A bad budget or a rate without a value.

    Examples
    --------
    >>> import symq
    >>> m = symq.model("w").substitute({"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4"})
    >>> name, steps = split_work(m, "mu_1 + mu_2 = 9/5", points=12, digits=20)
    >>> name, steps % (12 + 80) == 0   # (12 + 80) gradients times the route's estimate of one
    ('dp-steps', True)

    Running time: that of the route's estimate (counting the unions of class server sets).
    """
    from symq.limits import check, limit_value
    from symq.queries.routes import route_named
    from argparse import Namespace
    limits = limits if limits is not None else Namespace(max_work=None, no_limits=False)
    base, fixed, x1, x2, capacity = _frame(model, budget)
    middle = base.substitute({**{n: str(v) for n, v in fixed.items()},
                              x1: str(capacity / 2), x2: str(capacity / 2)})
    steps = points + 4 * digits
    route = route_named("reverse-mode")
    name, one = route.estimate(middle, quantity, discipline, "exact",
                               lambda n: limit_value(n, limits), outputs=1)
    limit = limit_value(name, limits)
    what = f"plot {model.name or 'model'} split ({points} points, {digits} digits)"
    if one is None:
        if limit is None:
            return name, None
        raise TooLargeError(f"too large: {what} needs more than {limit:,} subset-DP steps per "
                            "point; pass --max-work N with a larger N, or --no-limits")
    check(name, steps * one, what, limit)
    return name, steps * one


@dataclass
class Stationary:
    """A zero of the directional derivative: $D(a)$ and $D(b)$ of opposite signs (or $a=b$ with
    $D(a)=0$); ``text`` the digits of $x_1$ on which both ends agree; ``kind`` ``"minimum"``
    (D from negative to positive), ``"maximum"`` or ``"stationary"`` (an exact zero)."""

    low: Fraction
    high: Fraction
    sign_low: int
    sign_high: int
    text: str
    kind: str


@dataclass
class SplitCurve:
    """The data of the split picture (:func:`split_curve`): ``rates`` $(x_1,x_2)$, ``capacity``
    $C$, ``stable`` $(\\ell,h)$, ``xs`` the sample points, ``values`` $Q$ and ``derivatives``
    $D=\\partial Q/\\partial x_1-\\partial Q/\\partial x_2$ there (exact), ``stationary`` the
    bracketed zeros of $D$."""

    model: Model
    quantity: str
    discipline: str
    rates: tuple[str, str]
    capacity: Fraction
    stable: tuple[Fraction, Fraction]
    xs: list[Fraction] = field(default_factory=list)
    values: list[Fraction] = field(default_factory=list)
    derivatives: list[Fraction] = field(default_factory=list)
    stationary: list[Stationary] = field(default_factory=list)

    def as_json(self) -> dict:
        """The exact numbers as strings (the ``data`` of ``symq plot --json``)."""
        return {"quantity": self.quantity, "discipline": self.discipline,
                "budget": {"rates": list(self.rates), "capacity": str(self.capacity)},
                "stable_range": [str(v) for v in self.stable],
                "points": [{"x": str(x), "value": str(v), "derivative": str(d)}
                           for x, v, d in zip(self.xs, self.values, self.derivatives)],
                "stationary": [{"bracket": [str(s.low), str(s.high)], "x": s.text,
                                "signs": [s.sign_low, s.sign_high], "kind": s.kind}
                               for s in self.stationary]}


def _sign(v: Fraction) -> int:
    return (v > 0) - (v < 0)


def _agreed_digits(low: Fraction, high: Fraction, digits: int) -> str:
    """The decimal digits (at most ``digits``) that both ends of the bracket round to."""
    from symq.presentation.pictures import agreed_digits
    return agreed_digits(low, high, digits)


def split_curve(model: Model, budget: str, quantity: str = "mean-response-time",
                discipline: str = "collaborative", points: int = 12, digits: int = 20,
                limits: Any = None, progress: Callable[[int, int], None] | None = None
                ) -> SplitCurve:
    r"""The exact points and the stationary points of the split picture (module docstring).

    Parameters
    ----------
    model : Model
        Every rate a number except the budget rates (symbols of the model, or with numeric rates
        the names ``lambda_<class>``, ``mu_<server>``; the budget overrides their values).
    budget : str
        ``"x_1 + x_2 = C"``: exactly two rates; $x_1$ (the first in rate order) is the x axis.
    quantity : str
        A key of :data:`SPLIT_QUANTITIES`.
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.
    points : int
        Sample points $x_1=\ell+(h-\ell)k/(\text{points}+1)$, $k=1..\text{points}$ (2 to 400).
    digits : int
        Each sign change of $D$ between two sample points is bisected until its bracket is
        narrower than $10^{-\text{digits}}$ relative to $x_1$.
    limits : argparse.Namespace, optional
        The command line's ``--max-work``/``--no-limits``: the work (:func:`split_work`) is
        checked up front and each :func:`symq.solve` call is held to it.
    progress : callable, optional
        ``progress(done, total)`` after each sample point.

    Returns
    -------
    SplitCurve

    Raises
    ------
    ModelError
        An unknown quantity or discipline, a bad budget, points out of range, a rate without a
        value.
    UnstableModelError
        No split keeps the model stable.
    TooLargeError
        ``limits`` given and the work past them.

    Examples
    --------
    >>> from symq import example_model
    >>> c = split_curve(example_model("n"), "mu_1 + mu_2 = 2", points=3)
    >>> c.stable, c.xs[0], c.values[0], c.derivatives[0]   # stable iff mu_1 > lambda_1
    ((Fraction(1, 4), Fraction(2, 1)), Fraction(11, 16), Fraction(32, 21), Fraction(-128, 49))
    >>> c.stationary   # T falls all the way to mu_1 -> 2 (collaborative N)
    []
    >>> split_curve(example_model("n"), "mu_1 + mu_2 = 2", discipline="alis",
    ...             points=3).stationary[0].text
    '1.3209282501023321095'

    Running time: (points + about $3.3\cdot$digits per crossing) exact reverse-mode gradients
    (:func:`split_work` estimates it).
    """
    from symq.queries.solve import solve
    if quantity not in SPLIT_QUANTITIES:
        raise ModelError(f"the split picture draws {', '.join(SPLIT_QUANTITIES)}, not "
                         f"{quantity!r} (a quantity with one total and derivatives)")
    if discipline not in DISCIPLINES:
        raise ModelError(f"unknown discipline {discipline!r}; use one of: {', '.join(DISCIPLINES)}")
    if not isinstance(points, int) or not 2 <= points <= 400:
        raise ModelError(f"--points must be from 2 to 400, not {points}")
    if not isinstance(digits, int) or not 1 <= digits <= 100:
        raise ModelError(f"digits must be from 1 to 100, not {digits}")
    if limits is not None:
        split_work(model, budget, quantity, discipline, points, digits, limits)
    base, fixed, x1, x2, capacity = _frame(model, budget)
    lo, hi = stable_range(model, budget)
    output = SPLIT_QUANTITIES[quantity]
    fixed_text = {n: str(v) for n, v in fixed.items()}

    def at(x: Fraction) -> tuple[Fraction, Fraction]:
        result = solve(base, quantity, discipline,
                       values={**fixed_text, x1: str(x), x2: str(capacity - x)},
                       wrt=[x1, x2], of=[output], exact=True, limits=limits)
        value = result.exact[output] if output else result.exact
        return (to_fraction(value),
                result.derivative(output, x1) - result.derivative(output, x2))

    curve = SplitCurve(model, quantity, discipline, (x1, x2), capacity, (lo, hi))
    for k in range(1, points + 1):
        x = lo + (hi - lo) * Fraction(k, points + 1)
        value, slope = at(x)
        curve.xs.append(x)
        curve.values.append(value)
        curve.derivatives.append(slope)
        if progress is not None:
            progress(k, points)
    for k, (x, d) in enumerate(zip(curve.xs, curve.derivatives)):
        if d == 0:
            curve.stationary.append(Stationary(x, x, 0, 0, _agreed_digits(x, x, digits),
                                               "stationary"))
            continue
        if k + 1 == len(curve.xs):
            break
        y, e = curve.xs[k + 1], curve.derivatives[k + 1]
        if _sign(d) * _sign(e) >= 0:
            continue
        a, b, sa, sb = x, y, _sign(d), _sign(e)
        while (b - a) * 10 ** digits > max(abs(a), abs(b)):
            m = (a + b) / 2
            sm = _sign(at(m)[1])
            if sm == 0:
                a = b = m
                break
            if sm == sa:
                a = m
            else:
                b = m
        kind = "minimum" if sa < 0 < sb else "maximum"
        curve.stationary.append(Stationary(a, b, sa, sb, _agreed_digits(a, b, digits), kind))
    return curve


def _central_limits(axis, curve: SplitCurve, ys: list[Fraction], with_zero: bool) -> None:
    """The y range of the points in the middle 60% of the stable range, padded: the curves
    run off near the stability limits (where the quantity tends to infinity) instead of
    flattening the part that matters."""
    lo, hi = curve.stable
    inner = [float(y) for x, y in zip(curve.xs, ys)
             if lo + (hi - lo) / 5 <= x <= hi - (hi - lo) / 5]
    if len(inner) < 2:
        return
    bottom, top = min(inner + ([0.0] if with_zero else [])), max(inner + ([0.0] if with_zero
                                                                          else []))
    pad = 0.15 * (top - bottom) or 0.1 * max(abs(top), 1e-300)
    axis.set_ylim(bottom - pad, top + pad)


def draw(model: Model, budget: str | None = None, quantity: str = "mean-response-time",
         discipline: str = "collaborative", points: int = 12, limits: Any = None,
         progress: Callable[[int, int], None] | None = None) -> Picture:
    """The picture (see the module docstring).

    Parameters
    ----------
    model, budget, quantity, discipline, points, limits, progress
        As :func:`split_curve` (20 digits for the stationary points).

    Returns
    -------
    Picture
        Stem ``<model>-split-<quantity>-<discipline>``; ``data`` holds the exact points, the
        stable range and the brackets of the stationary points (:meth:`SplitCurve.as_json`).

    Raises
    ------
    ModelError
        As :func:`split_curve`; no ``--budget``.

    Examples
    --------
    >>> from symq import example_model
    >>> draw(example_model("n"), "mu_1 + mu_2 = 2", points=3).stem
    'n-split-mean-response-time-collaborative'

    Running time: that of :func:`split_curve`, plus matplotlib.
    """
    curve = split_curve(model, budget, quantity, discipline, points, 20, limits, progress)
    plt = pyplot()
    x1, x2 = (plain(x) for x in curve.rates)  # as text, never mathtext
    symbol = "T" if quantity == "mean-response-time" else "Q"
    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    right = ax.twinx()
    xs = [float(x) for x in curve.xs]
    first = ax.plot(xs, [float(v) for v in curve.values], color="#1f77b4", marker="o", ms=2.5,
                    label=f"{symbol} ({quantity_name(quantity)})")
    second = right.plot(xs, [float(d) for d in curve.derivatives], color="#ff7f0e", marker="o",
                        ms=2.5, label=f"d{symbol}/d{x1} - d{symbol}/d{x2}")
    right.axhline(0.0, color="0.55", lw=0.8)
    handles = first + second
    for point in curve.stationary:
        where = float((point.low + point.high) / 2)
        shown = point.text if len(point.text) <= 14 else f"{where:.10g}"
        handles.append(ax.axvline(where, color="0.35", ls=":", lw=1.4,
                                  label=f"stationary point (d{symbol}/d{x1} = d{symbol}/d{x2}): "
                                        f"{x1} = {shown}"))
    _central_limits(ax, curve, curve.values, with_zero=False)
    _central_limits(right, curve, curve.derivatives, with_zero=True)
    ax.set_xlim(float(curve.stable[0]), float(curve.stable[1]))
    ax.set_xlabel(f"{x1} ({x2} = {curve.capacity} - {x1}); stable for "
                  f"{curve.stable[0]} < {x1} < {curve.stable[1]}")
    ax.set_ylabel(symbol)
    right.set_ylabel("directional derivative")
    ax.set_title(f"{quantity_name(quantity)} of {label(model)} ({discipline}) along "
                 f"{x1} + {x2} = {curve.capacity}, exact points\n{rates_title(model)}",
                 fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(handles=handles, labels=[h.get_label() for h in handles], fontsize=8,
              loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    r1, r2 = curve.rates
    where = f"{r1} ({r2} = {curve.capacity} - {r1})"
    curves = [Curve(f"{symbol} ({quantity_name(quantity)})", quantity, discipline, where,
                    list(zip(curve.xs, curve.values))),
              Curve(f"d{symbol}/d{r1} - d{symbol}/d{r2}", f"directional derivative of {quantity}",
                    discipline, where, list(zip(curve.xs, curve.derivatives)))]
    # the command line's default file name adds the budget (an option) to the stem
    return Picture(fig, file_stem(label(model), "split", quantity, discipline), curve.as_json(),
                   curves)


register(PictureKind(
    "split", "a quantity's total and its directional derivative dQ/dx_1 - dQ/dx_2 along a split "
             "x_1 + x_2 = C of capacity (--budget), exact points, the stationary point bisected",
    draw,
    options={"budget": dict(default=None, metavar="\"X_1 + X_2 = C\"",
                            help="split: the two rates that share the capacity C, e.g. "
                                 "\"mu_1 + mu_2 = 9/5\""),
             "quantity": QUANTITY_OPTION, "discipline": SHARED_OPTIONS["discipline"],
             "points": SHARED_OPTIONS["points"]},
    progress=True))
