r"""``symq plot MODEL response-time-load``: a response-time percentile (or the survival at a
time) per class against the load.
Every arrival rate is scaled by one factor $t$ up to the stability limit $t^*$ (exact, as in the
``load`` picture), and at ``--points`` exact loads $t=t^*k/(\text{points}+1)$ the picture draws,
per class $c$, the ``--percentile`` $P$ of the response time $T_c$ (default the 99th: the
$q$ with $P(T_c\le q)=P/100$), or with ``--time`` $\tau$ the survival $P(T_c>\tau)$: how the tail,
not only the mean, grows with the load. The laws are the exact response-time laws of
:mod:`symq.engines.response_time` (rational Laplace-Stieltjes transforms), through
:func:`symq.solve` (``response-time`` with ``percentile=``, or ``response-time-survival`` with
``time=``); a percentile is the root of $P(T_c\le q)=P/100$ enclosed in certified ball
arithmetic, so its digits are correct but it has no exact value, and a survival at a rational
time is exact only through $e^{-r\tau}$ terms, so both are drawn and exported as certified digits.

Examples
--------
>>> from symq import example_model
>>> from symq.presentation.pictures.response_time_load import tail_curves
>>> t_star, xs, curves = tail_curves(example_model("n"), points=1, percentile=50)
>>> t_star, xs, curves["1"][0].value[:8]
(Fraction(4, 1), [Fraction(1, 2)], '1.740431')
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from symq.errors import ModelError
from symq.models.model import Model
from symq.presentation.pictures import (SHARED_OPTIONS, Curve, Digits, Picture, PictureKind,
                                        file_stem, pyplot, rates_title, register)
from symq.presentation.pictures._drawing import distinct, label

__all__ = ["tail_curves", "draw"]

#: significant digits of each point (certified; far below the drawing's resolution)
DIGITS = 15


def _fraction(text: Any, option: str) -> Fraction:
    """``--percentile``/``--time`` read by symq's rate grammar (exact, ASCII digits only)."""
    from symq.arithmetic.exact import to_fraction
    from symq.models.rates import parse_value
    value = parse_value(str(text), option)
    if not getattr(value, "is_Rational", False):
        raise ModelError(f"{option} {text!r} is not an exact rational number; give e.g. "
                         f"{option} 99 or {option} 1/2")
    return to_fraction(value)


def _percentiles(model: Model, discipline: str, p: Fraction) -> dict:
    """``{class: Evaluated}``: the ``p``-th percentiles from the exact laws
    (:meth:`symq.engines.response_time.law.RationalLaw.percentile`, certified digits)."""
    from symq.arithmetic.numeric import Evaluated
    from symq.engines.response_time import response_time_law
    return {c: Evaluated(None, response_time_law(model, c, discipline).percentile(p, DIGITS))
            for c in model.classes}


def tail_curves(model: Model, discipline: str = "collaborative", points: int = 12,
                percentile: Any = None, time: Any = None,
                progress: Callable[[int, int], None] | None = None, limits: Any = None):
    """``(t_star, xs, {class: [Evaluated]})``: per class the percentile (or survival) at each
    relative load $x$.

    Parameters
    ----------
    model : Model
        Exact numeric rates (the base load, $t=1$).
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.
    points : int
        Relative loads $x=k/(\\text{points}+1)$.
    percentile : number, optional
        $P$ in $(0, 100)$; default 99 when ``time`` is not given.
    time : number, optional
        $\\tau>0$: draw $P(T_c>\\tau)$ instead (not with ``percentile``).
    progress : callable, optional
        ``progress(done, total)`` after each load.
    limits : argparse.Namespace, optional
        ``--max-work``/``--no-limits`` for :func:`symq.solve`.

    Returns
    -------
    tuple
        $t^*$, the relative loads (``Fraction``), per class the values (``Evaluated``:
        ``.value`` the certified digits).

    Raises
    ------
    ModelError
        Both or a bad ``percentile``/``time``, a bad number of points, symbolic rates.

    Examples
    --------
    >>> from symq import example_model
    >>> _, _, c = tail_curves(example_model("n"), points=1, time=1)
    >>> c["1"][0].value[:10]
    '0.68608106'

    Running time: ``points`` calls of :func:`symq.solve` (one law per class, and a root search
    per class for a percentile).
    """
    from symq.presentation.pictures.load import load_models
    from symq.queries.solve import solve
    if percentile is not None and time is not None:
        raise ModelError("give --percentile or --time, not both")
    if time is not None:
        tau = _fraction(time, "--time")
        if tau <= 0:
            raise ModelError(f"--time must be positive, not {time}")
    else:
        p = _fraction(99 if percentile is None else percentile, "--percentile")
        if not 0 < p < 100:
            raise ModelError(f"--percentile must be between 0 and 100, not {percentile}")
    t_star, rows = load_models(model, points)
    curves = {c: [] for c in model.classes}
    for k, (x, scaled) in enumerate(rows, 1):
        what = f"plot {model.name or 'model'} response-time-load ({discipline}) at load {x}"
        if time is not None:
            result = solve(scaled, "response-time-survival", discipline, digits=DIGITS,
                           time=str(tau), limits=limits, what=what)
            values = result.per_class
        else:
            result = solve(scaled, "response-time", discipline, digits=DIGITS,
                           percentile=str(p), limits=limits, what=what)
            if "percentile" in result.keys():  # noqa: SIM118 (a Result, not a dict)
                values = result["percentile"]
            else:  # a route that returns the law without its percentile: the law's own root
                values = _percentiles(scaled, discipline, p)
        for c in model.classes:
            curves[c].append(values[c])
        if progress is not None:
            progress(k, len(rows))
    return t_star, [x for x, _ in rows], curves


def draw(model: Model, discipline: str = "collaborative", points: int = 12,
         percentile: Any = None, time: Any = None,
         progress: Callable[[int, int], None] | None = None, limits: Any = None) -> Picture:
    """The picture (see the module docstring).

    Parameters
    ----------
    model, discipline, points, percentile, time, progress, limits
        As :func:`tail_curves`.

    Returns
    -------
    Picture
        Stem ``<model>-response-time-load-<discipline>-p=<P>`` (or ``-time=<tau>``);
        ``curves`` holds the points (exact loads, certified values).

    Examples
    --------
    >>> from symq import example_model
    >>> draw(example_model("n"), points=2).stem
    'n-response-time-load-collaborative-p=99'

    Running time: that of :func:`tail_curves`, plus matplotlib.
    """
    t_star, xs, curves = tail_curves(model, discipline, points, percentile, time, progress,
                                     limits)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    rows = distinct(list(curves), "class ")
    if time is not None:
        tau = _fraction(time, "--time")
        what, tag = f"P(T_c > {tau})", {"time": str(tau)}
        ax.set_yscale("log")
        ax.set_ylabel(f"$P(T_c > {tau})$ (log scale)")
    else:
        p = _fraction(99 if percentile is None else percentile, "--percentile")
        what, tag = f"{p}th percentile of T_c", {"p": str(p)}
        ax.set_ylabel(f"{p}th percentile of the response time $T_c$")
    records = []
    x_name = f"relative load t/t* (t* = {t_star})"
    for c, values in curves.items():
        ax.plot([float(x) for x in xs], [float(v.value) for v in values], marker="o", ms=4,
                lw=1.6, label=rows[c])
        records.append(Curve(f"class {c}", f"response time: {what}", discipline, x_name,
                             [(x, Digits(v.value)) for x, v in zip(xs, values)]))
    ax.axvline(1.0, color="0.4", ls="--", lw=1)
    ax.text(1.0, 0.98, " stability limit", transform=ax.get_xaxis_transform(), ha="right",
            va="top", fontsize=8, rotation=90, color="0.3")
    ax.set_xlim(0, 1.02)
    if time is None:
        ax.set_ylim(bottom=0)
    ax.set_xlabel(f"relative load $t/t^*$ (all arrival rates times $t$; $t^* = {t_star}$)")
    ax.set_title(f"response-time tail per class against the load, {label(model)} "
                 f"({discipline})\nbase rates {rates_title(model)} (at $t = 1$)", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    data = {"discipline": discipline, "stability_limit": str(t_star),
            **({"time": str(tau)} if time is not None else {"percentile": str(p)}),
            "points": [{"relative_load": str(x), "values": {c: curves[c][k].value for c in curves}}
                       for k, x in enumerate(xs)]}
    return Picture(fig, file_stem(label(model), "response-time-load", discipline, **tag), data,
                   records)


register(PictureKind(
    "response-time-load", "per-class response-time percentile (--percentile, default 99) or "
                          "survival P(T_c > t) at --time t against a scaling of all arrival "
                          "rates, certified digits at exact loads", draw,
    options={"discipline": SHARED_OPTIONS["discipline"], "points": SHARED_OPTIONS["points"],
             "percentile": dict(default=None, metavar="P",
                                help="response-time-load: the percentile drawn (default 99)"),
             "time": dict(default=None, metavar="T",
                          help="response-time-load: draw P(T_c > T) instead of a percentile")},
    progress=True))
