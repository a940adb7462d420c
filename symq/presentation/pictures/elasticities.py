r"""``symq plot MODEL elasticities``: what a little more speed at each server buys.
For each server $s$ the elasticity of the quantity's total $Q$ (default the mean response time)
with respect to its service rate,
$$E_s=\frac{\partial\log Q}{\partial\log\mu_s}=\frac{\mu_s}{Q}\frac{\partial Q}{\partial\mu_s},$$
the relative change of $Q$ per relative change of $\mu_s$ ($E_s=-1.2$: one percent more speed at
$s$ lowers $Q$ by about 1.2 percent), drawn as one bar per server, most negative first. The
elasticities come from one exact reverse-mode gradient, :func:`symq.solve` with ``wrt="all"``
(:meth:`symq.queries.solve.Result.elasticity`), exact rationals (certified digits where the route
certifies). It is ``symq optimize MODEL QUANTITY --rank servers`` as a picture: the bar labels
also give the gain $-\partial Q/\partial\mu_s$ of one unit of extra speed that ``--rank servers``
orders by.

Examples
--------
>>> from symq import example_model
>>> from symq.presentation.pictures.elasticities import server_elasticities
>>> rows, value = server_elasticities(example_model("n"))
>>> value, [(s, str(e), str(d)) for s, e, d in rows]
(Fraction(22, 21), [('1', '-86/77', '-172/147'), ('2', '-62/231', '-124/441')])
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from symq.errors import ModelError
from symq.models.model import Model
from symq.presentation.pictures import (DATA_DIGITS, QUANTITY_OPTION, SHARED_OPTIONS, Curve, Digits,
                                        Picture, PictureKind, file_stem, pyplot, quantity_name,
                                        rates_title, register)
from symq.presentation.pictures._drawing import distinct, label

__all__ = ["server_elasticities", "draw"]


def _number(value: Any) -> tuple[Any, float]:
    """An exact ``Fraction`` as itself, a certified ball as its :class:`Digits`; and a float."""
    if isinstance(value, Fraction):
        return value, float(value)
    return Digits(value.text), float(value.text)


def server_elasticities(model: Model, quantity: str = "mean-response-time",
                        discipline: str = "collaborative", limits: Any = None):
    """``([(server, elasticity, derivative)], value)``: $E_s$ and $\\partial Q/\\partial\\mu_s$
    per server, most negative elasticity first, and $Q$.

    Parameters
    ----------
    model : Model
        Exact numeric rates.
    quantity : str
        One of :data:`symq.presentation.pictures.disciplines.LOAD_QUANTITIES`.
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.
    limits : argparse.Namespace, optional
        ``--max-work``/``--no-limits`` for :func:`symq.solve`.

    Returns
    -------
    tuple
        The rows (exact ``Fraction`` values, or certified balls with ``.text``) and the value
        of $Q$.

    Raises
    ------
    ModelError
        Another quantity, a symbol without a value.

    Examples
    --------
    >>> from symq import example_model
    >>> rows, _ = server_elasticities(example_model("n"), "empty-probability", "alis")
    >>> [(s, str(e)) for s, e, _ in rows]
    [('2', '25/141'), ('1', '21/47')]

    Running time: one :func:`symq.solve` with ``wrt="all"`` (a subset DP on a tape and one
    backward sweep).
    """
    from symq.presentation.pictures.disciplines import LOAD_QUANTITIES, _check_quantity
    from symq.queries.solve import solve
    _check_quantity(quantity, "elasticities")
    if not model.is_numeric:
        missing = ", ".join(sorted(s.name for s in model.symbols))
        raise ModelError(f"the elasticities picture needs a value for every symbol; missing: "
                         f"{missing} (give each with --set NAME=VALUE)")
    if dict(model.abandonment_rates):
        raise ModelError("the elasticities picture needs derivatives, which models with "
                         "abandonment do not have; remove the abandonment rates")
    from symq.engines.sensitivity import rate_symbols
    output = "total" if quantity in LOAD_QUANTITIES[:2] else ""
    # the rate names of a numeric model (mu_<server>, or by position for other server names)
    symbolic, _ = rate_symbols(model)
    rates = [next(iter(symbolic.service_rates[s].free_symbols)).name for s in model.servers]
    result = solve(model, quantity, discipline, digits=DATA_DIGITS, wrt=rates, of=[output],
                   limits=limits, what=f"plot {model.name or 'model'} elasticities "
                                       f"({quantity}, {discipline})")
    rows = [(s, result.elasticity(output, r), result.derivative(output, r))
            for s, r in zip(model.servers, rates)]
    rows.sort(key=lambda row: _number(row[1])[1])
    return rows, result.gradient.value(output)


def draw(model: Model, quantity: str = "mean-response-time", discipline: str = "collaborative",
         limits: Any = None) -> Picture:
    """The picture (see the module docstring).

    Parameters
    ----------
    model, quantity, discipline, limits
        As :func:`server_elasticities`.

    Returns
    -------
    Picture
        Stem ``<model>-elasticities-<quantity>-<discipline>``; ``curves`` holds the exact
        elasticities and derivatives per server.

    Examples
    --------
    >>> from symq import example_model
    >>> draw(example_model("n")).stem
    'n-elasticities-mean-response-time-collaborative'

    Running time: that of :func:`server_elasticities`, plus matplotlib.
    """
    rows, value = server_elasticities(model, quantity, discipline, limits)
    plt = pyplot()
    servers = [s for s, _, _ in rows]
    shown = distinct(servers, "server ")
    fig, ax = plt.subplots(figsize=(6.4, 1.6 + 0.45 * len(rows)))
    numbers = [_number(e) for _, e, _ in rows]
    gains = [_number(-d if isinstance(d, Fraction) else d) for _, _, d in rows]
    floats = [f for _, f in numbers]
    colours = ["#2a9d8f" if f < 0 else "#e76f51" for f in floats]
    ax.barh(range(len(rows)), floats, color=colours)
    ax.axvline(0, color="black", lw=1)
    symbol = "T" if quantity == "mean-response-time" else "Q"
    for k, ((e, f), (g, _)) in enumerate(zip(numbers, gains)):
        gain = g if isinstance(g, Digits) else f"{float(g):.4g}"
        if isinstance(gains[k][0], Digits):  # a ball's gain: -d is not a ball; show -(dQ)
            gain = str(g)[1:] if str(g).startswith("-") else "-" + str(g)
        text = f" {float(e):.4g} (gain {gain}) " if isinstance(e, Fraction) else f" {e} "
        ax.text(f, k, text, va="center", ha="left" if f >= 0 else "right", fontsize=8)
    ax.set_yticks(range(len(rows)), [shown[s] for s in servers])
    ax.invert_yaxis()
    lo, hi = min(floats + [0.0]), max(floats + [0.0])
    pad = 0.45 * (hi - lo or 1)
    ax.set_xlim(lo - (pad if lo < 0 else 0.05 * pad), hi + (pad if hi > 0 else 0.05 * pad))
    ax.set_xlabel(f"elasticity $\\partial \\log {symbol} / \\partial \\log \\mu_s$ "
                  f"(gain: $-\\partial {symbol}/\\partial \\mu_s$)")
    ax.set_title(f"{quantity_name(quantity)} of {label(model)} ({discipline}): elasticity by "
                 f"each server's rate\n{rates_title(model)}, ${symbol} = {float(value):.6g}$",
                 fontsize=10)
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    curves = [Curve(f"elasticity d log {symbol} / d log mu_s", quantity, discipline, "server",
                    [(s, e) for s, e, _ in rows]),
              Curve(f"derivative d{symbol}/dmu_s", quantity, discipline, "server",
                    [(s, d if isinstance(d, Fraction) else Digits(d.text)) for s, _, d in rows])]
    data = {"quantity": quantity, "discipline": discipline, "value": str(value),
            "servers": [{"server": s, "elasticity": str(_number(e)[0]),
                         "derivative": str(_number(d)[0])} for s, e, d in rows]}
    return Picture(fig, file_stem(label(model), "elasticities", quantity, discipline), data,
                   curves)


register(PictureKind(
    "elasticities", "elasticity of a quantity's total by each server's rate, one bar per server "
                    "(optimize --rank servers as a picture), from one exact gradient", draw,
    options={"quantity": QUANTITY_OPTION, "discipline": SHARED_OPTIONS["discipline"]}))
