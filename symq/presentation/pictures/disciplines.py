r"""``symq plot MODEL disciplines``: the three service disciplines on one load curve.
Every arrival rate is scaled by one factor $t$ up to the stability limit $t^*$ (exact, see
:func:`symq.presentation.pictures.load.stability_limit`; the stability condition
$\lambda(A)<\mu(S(A))$ for every class set $A$ is the same for the three disciplines, survey
section 3 and the redundancy papers' Theorem 1), and the quantity's total (default the mean
response time, arrival-weighted over the classes) is computed by :func:`symq.solve` under the
collaborative discipline (the order-independent queue), FCFS-ALIS and redundancy (RAIS) at the
same ``--points`` exact loads $t=t^*k/(\text{points}+1)$: one curve per discipline against
$t/t^*$, so that what the discipline changes is read off at a glance. The values are exact
rationals where :func:`symq.solve` gives them (certified digits otherwise).

Examples
--------
>>> from symq import example_model
>>> from symq.presentation.pictures.disciplines import discipline_curves
>>> t_star, xs, curves = discipline_curves(example_model("n"), points=1)
>>> t_star, xs, sorted(curves), curves["collaborative"][0].exact
(Fraction(4, 1), [Fraction(1, 2)], ['alis', 'collaborative', 'rais'], 5/3)
"""

from __future__ import annotations

from typing import Any, Callable

from symq.errors import ModelError
from symq.models.model import DISCIPLINES, Model
from symq.presentation.pictures import (DATA_DIGITS, QUANTITY_OPTION, SHARED_OPTIONS, Curve,
                                        Picture, PictureKind, file_stem, pyplot, quantity_name,
                                        rates_title, register)
from symq.presentation.pictures._drawing import label

__all__ = ["LOAD_QUANTITIES", "one_value", "discipline_curves", "draw"]

#: the quantities with one number per model (their total, or their one value) that the
#: disciplines and elasticities pictures draw
LOAD_QUANTITIES = ("mean-response-time", "mean-number", "empty-probability",
                   "normalizing-constant")


def one_value(result: Any, quantity: str) -> Any:
    """The total of a per-class :class:`~symq.queries.solve.Result`, or its one value.

    Parameters
    ----------
    result : Result
        Of one of :data:`LOAD_QUANTITIES`, numeric rates.
    quantity : str
        Its name, for the message.

    Returns
    -------
    Evaluated
        ``.exact`` the rational (``None`` when certified), ``.value`` its digits.

    Raises
    ------
    ModelError
        A result without one value (a per-server quantity).

    Examples
    --------
    >>> import symq
    >>> one_value(symq.solve("n", "mean-number", values={"lambda_1": "1/4", "lambda_2": "1/4",
    ...                                                 "mu_1": 1, "mu_2": 1}), "mean-number").exact
    11/21

    Running time: O(1).
    """
    leaf = result.total if result.total is not None else result.items
    if leaf is None or isinstance(leaf, dict):  # pragma: no cover - LOAD_QUANTITIES only
        raise ModelError(f"{quantity} has no single value to draw")
    return leaf


def _check_quantity(quantity: str, kind: str) -> None:
    if quantity not in LOAD_QUANTITIES:
        raise ModelError(f"the {kind} picture draws {', '.join(LOAD_QUANTITIES)}, not "
                         f"{quantity!r} (one number per model)")


def discipline_curves(model: Model, quantity: str = "mean-response-time", points: int = 12,
                      progress: Callable[[int, int], None] | None = None, limits: Any = None):
    """``(t_star, xs, {discipline: [Evaluated]})``: the quantity's total at each relative load.

    Parameters
    ----------
    model : Model
        Exact numeric rates (the base load, $t=1$).
    quantity : str
        One of :data:`LOAD_QUANTITIES`.
    points : int
        Relative loads $x=k/(\\text{points}+1)$.
    progress : callable, optional
        ``progress(done, total)`` after each of the ``3 * points`` values.
    limits : argparse.Namespace, optional
        ``--max-work`` and ``--no-limits`` for each :func:`symq.solve` call.

    Returns
    -------
    tuple
        $t^*$, the relative loads (``Fraction``) and per discipline the values
        (``Evaluated``: ``.exact`` the rational, ``.value`` its digits).

    Raises
    ------
    ModelError
        Another quantity, a bad number of points, symbolic rates.

    Examples
    --------
    >>> from symq import example_model
    >>> _, _, c = discipline_curves(example_model("n"), "mean-number", points=1)
    >>> [str(c[d][0].exact) for d in ("collaborative", "alis", "rais")]
    ['5/3', '20/11', '20/11']

    Running time: ``3 * points`` calls of :func:`symq.solve` (each after its work estimate).
    """
    from symq.presentation.pictures.load import load_models
    from symq.queries.solve import solve
    _check_quantity(quantity, "disciplines")
    t_star, rows = load_models(model, points)
    curves = {d: [] for d in DISCIPLINES}
    done = 0
    for d in DISCIPLINES:
        for x, scaled in rows:
            result = solve(scaled, quantity, d, digits=DATA_DIGITS, limits=limits,
                           what=f"plot {model.name or 'model'} disciplines: {quantity} ({d}) "
                                f"at load {x} of the limit")
            curves[d].append(one_value(result, quantity))
            done += 1
            if progress is not None:
                progress(done, 3 * len(rows))
    return t_star, [x for x, _ in rows], curves


def _float(value: Any) -> float:
    return float(value.exact) if value.exact is not None else float(value.value)


def draw(model: Model, quantity: str = "mean-response-time", points: int = 12,
         progress: Callable[[int, int], None] | None = None, limits: Any = None) -> Picture:
    """The picture (see the module docstring).

    Parameters
    ----------
    model, quantity, points, progress, limits
        As :func:`discipline_curves`.

    Returns
    -------
    Picture
        Stem ``<model>-disciplines-<quantity>``; ``data`` and ``curves`` hold the exact points.

    Examples
    --------
    >>> from symq import example_model
    >>> draw(example_model("n"), points=2).stem
    'n-disciplines-mean-response-time'

    Running time: that of :func:`discipline_curves`, plus matplotlib.
    """
    t_star, xs, curves = discipline_curves(model, quantity, points, progress, limits)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    styles = {"collaborative": dict(color="black", lw=2.2, marker="o"),
              "alis": dict(color="#1f77b4", lw=1.6, marker="s", ls="--"),
              "rais": dict(color="#d62728", lw=1.6, marker="^", ls=":")}
    words = {"collaborative": "collaborative", "alis": "FCFS-ALIS", "rais": "redundancy (RAIS)"}
    records = []
    x_name = f"relative load t/t* (t* = {t_star})"
    for d, values in curves.items():
        ax.plot([float(x) for x in xs], [_float(v) for v in values], ms=4, label=words[d],
                **styles[d])
        records.append(Curve(d, quantity, d, x_name, list(zip(xs, values))))
    ax.axvline(1.0, color="0.4", ls="--", lw=1)
    ax.text(1.0, 0.98, " stability limit", transform=ax.get_xaxis_transform(), ha="right",
            va="top", fontsize=8, rotation=90, color="0.3")
    ax.set_xlim(0, 1.02)
    if quantity != "normalizing-constant":
        ax.set_ylim(bottom=0)
    else:
        ax.set_yscale("log")
    ax.set_xlabel(f"relative load $t/t^*$ (all arrival rates times $t$; $t^* = {t_star}$)")
    ax.set_ylabel(quantity_name(quantity) + (" (total)" if quantity.startswith("mean") else ""))
    ax.set_title(f"{quantity_name(quantity)} of {label(model)} under the three disciplines, "
                 f"exact points\nbase rates {rates_title(model)} (at $t = 1$)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    data = {"quantity": quantity, "stability_limit": str(t_star),
            "points": [{"relative_load": str(x),
                        "values": {d: str(v.exact) if v.exact is not None else v.value
                                   for d, v in ((d, curves[d][k]) for d in curves)}}
                       for k, x in enumerate(xs)]}
    return Picture(fig, file_stem(label(model), "disciplines", quantity), data, records)


register(PictureKind(
    "disciplines", "a quantity's total under the collaborative, FCFS-ALIS and redundancy (RAIS) "
                   "disciplines against a scaling of all arrival rates, one curve each, exact "
                   "points", draw,
    options={"quantity": QUANTITY_OPTION, "points": SHARED_OPTIONS["points"]},
    progress=True))
