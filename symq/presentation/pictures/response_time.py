r"""``symq plot MODEL response-time-survival`` (and ``waiting-time-survival``): per-class tails.
One curve per class of $P(T_c>t)$ (or $P(W_c>t)$) for $0\le t\le$ ``--max-time``, on a log
scale, from the exact laws of :mod:`symq.engines.response_time` (rational LSTs; each point is a certified
ball evaluated at 53 bits, far below the drawing resolution). By default the time axis ends at the
largest 99.9th percentile over the classes. ``data`` keeps the exact mean and the 99th
percentile of each class for the JSON output.

Examples
--------
>>> import symq
>>> from symq.presentation.pictures.response_time import draw
>>> picture = draw(symq.example_model("w"), discipline="alis", points=20)
>>> picture.stem, picture.data["mean"]["3"]
('w-response-time-survival-alis', '23819/19760')
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from symq.errors import ModelError
from symq.models.model import Model
from symq.presentation.pictures import (SHARED_OPTIONS, Curve, Picture, PictureKind, ball_digits,
                                        file_stem, pyplot, register)
from symq.presentation.pictures._drawing import distinct, label

__all__ = ["survival_points", "survival_curves", "draw", "draw_waiting"]


def survival_points(model: Model, discipline: str = "collaborative", kind: str = "response",
                    max_time: Any = None, points: int = 200) -> tuple[list[Fraction], dict]:
    """``(times, {class: [P(T_c > t) for t in times]})`` from the exact laws: exact times, and
    at each a ball (``flint.arb`` at 53 bits) holding the survival probability (at $t=0$ the
    exact $1-P(T_c=0)$).

    Parameters
    ----------
    model : Model
        Exact numeric rates (every symbol given a value).
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.
    kind : str
        ``response`` (arrival to departure) or ``waiting`` (arrival to start of service).
    max_time : number, optional
        The right end of the time axis (by default where every curve is small).
    points : int
        Number of times.

    Returns
    -------
    tuple
        The exact times (``Fraction``) and, per class, the survival probabilities.

    Raises
    ------
    ModelError
        Symbolic rates, a bad ``max_time`` or ``points``.

    Examples
    --------
    >>> from symq import example_model
    >>> times, balls = survival_points(example_model("n"), points=3)
    >>> times[0], balls["1"][0], balls["1"][1].contains(0) is False
    (Fraction(0, 1), Fraction(1, 1), True)

    Running time: one exact law per class, then ``points`` ball evaluations of each.
    """
    import flint

    from symq.engines.response_time import response_time_law, waiting_time_law
    if not model.is_numeric:
        missing = ", ".join(sorted(s.name for s in model.symbols))
        raise ModelError(f"the survival picture needs a value for every symbol; missing: "
                         f"{missing} (give each with --set NAME=VALUE)")
    if not 2 <= int(points) <= 5000:
        raise ModelError(f"--points must be from 2 to 5000, not {points}")
    function = response_time_law if kind == "response" else waiting_time_law
    laws = {c: function(model, c, discipline) for c in model.classes}
    if max_time is None:
        end = max(Fraction(law.percentile(Fraction(999, 10), 3)) for law in laws.values())
        end = end if end > 0 else Fraction(1)
    else:
        try:
            end = Fraction(str(max_time))
        except (ValueError, ZeroDivisionError):
            raise ModelError(f"--max-time {max_time!r} is not a number") from None
        if end <= 0:
            raise ModelError(f"--max-time must be positive, not {max_time}")
    times = [end * k / (points - 1) for k in range(points)]
    exact = {}
    for c, law in laws.items():
        # P(T > 0) = 1 - P(T = 0), exact; later times a ball at 53 bits
        exact[c] = [Fraction(1 - law.atom) if t == 0 else law.survival_ball(t) for t in times]
    del flint
    return times, exact


def survival_curves(model: Model, discipline: str = "collaborative", kind: str = "response",
                    max_time: Any = None, points: int = 200) -> tuple[list[float], dict[str, list[float]]]:
    """``(times, {class: [P(T_c > t) for t in times]})`` from the exact laws, as floats.

    Parameters
    ----------
    model, discipline, kind, max_time, points
        As :func:`survival_points`.

    Returns
    -------
    tuple
        The times and, per class, the survival probabilities (the balls' midpoints).

    Examples
    --------
    >>> from symq import example_model
    >>> times, curves = survival_curves(example_model("n"), points=3)
    >>> times[0], curves["1"][0]
    (0.0, 1.0)

    Running time: as :func:`survival_points`.
    """
    times, exact = survival_points(model, discipline, kind, max_time, points)
    return [float(t) for t in times], {
        c: [float(v) if isinstance(v, Fraction) else float(v.mid()) for v in values]
        for c, values in exact.items()}


def _draw(model: Model, discipline: str, kind: str, max_time: Any, points: int) -> Picture:
    from symq.engines.response_time import response_time_law, waiting_time_law
    times_exact, balls = survival_points(model, discipline, kind, max_time, points)
    times = [float(t) for t in times_exact]
    curves = {c: [float(v) if isinstance(v, Fraction) else float(v.mid()) for v in values]
              for c, values in balls.items()}
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    letter = "T" if kind == "response" else "W"
    rows = distinct(list(curves), "class ")
    records = []
    for c, values in curves.items():
        shown = [(t, v) for t, v in zip(times, values) if v > 0]
        ax.plot([t for t, _ in shown], [v for _, v in shown], lw=1.6, label=rows[c])
        records.append(Curve(f"class {c}", f"{kind}-time-survival P({letter}_c > t)", discipline,
                             "time t", [(t, v if isinstance(v, Fraction) else ball_digits(v, 15))
                                        for t, v in zip(times_exact, balls[c])]))
    ax.set_yscale("log")
    ax.set_xlabel("time $t$")
    ax.set_ylabel(f"$P({letter}_c > t)$ (log scale)")
    what = "response time" if kind == "response" else "waiting time"
    ax.set_title(f"{what} tails per class, {label(model)} ({discipline}), exact", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=9)
    function = response_time_law if kind == "response" else waiting_time_law
    laws = {c: function(model, c, discipline) for c in model.classes}
    data = {"discipline": discipline, "mean": {c: str(law.mean()) for c, law in laws.items()},
            "percentile_99": {c: law.percentile(Fraction(99), 6) for c, law in laws.items()}}
    return Picture(fig, file_stem(label(model), f"{kind}-time-survival", discipline), data,
                   records)


def draw(model: Model, discipline: str = "collaborative", max_time: Any = None,
         points: int = 200) -> Picture:
    """Per-class response-time survival functions (see the module docstring).

    Parameters
    ----------
    model, discipline, max_time, points
        As :func:`survival_curves`, with the response-time laws (arrival to end of
        service).

    Returns
    -------
    Picture
        With the exact mean of each class in ``data["mean"]``.

    Examples
    --------
    >>> from symq import example_model
    >>> picture = draw(example_model("n"), points=5)
    >>> picture.stem, sorted(picture.data["mean"])
    ('n-response-time-survival-collaborative', ['1', '2'])

    Running time: that of :func:`survival_curves`, plus matplotlib.
    """
    return _draw(model, discipline, "response", max_time, points)


def draw_waiting(model: Model, discipline: str = "collaborative", max_time: Any = None,
                 points: int = 200) -> Picture:
    """Per-class waiting-time survival functions (see the module docstring).

    Parameters
    ----------
    model, discipline, max_time, points
        As for :func:`draw`, with the waiting-time laws.

    Returns
    -------
    Picture
        Stem ``<model>-waiting-time-survival-<discipline>``.

    Examples
    --------
    >>> from symq import example_model
    >>> draw_waiting(example_model("n"), "alis", points=5).stem
    'n-waiting-time-survival-alis'

    Running time: as :func:`draw`.
    """
    return _draw(model, discipline, "waiting", max_time, points)


_OPTIONS = {"discipline": SHARED_OPTIONS["discipline"],
            "max_time": dict(default=None, help="response-/waiting-time-survival: end of the "
                                                "time axis (default: largest 99.9th percentile)")}

register(PictureKind("response-time-survival",
                     "per-class response-time survival P(T_c > t), log scale (exact laws)", draw,
                     options=_OPTIONS))
register(PictureKind("waiting-time-survival",
                     "per-class waiting-time survival P(W_c > t), log scale (exact laws)",
                     draw_waiting, options=_OPTIONS))
