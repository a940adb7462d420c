r"""``symq plot POLICY heatmap|levels``: two-queue routing pictures (compensation approach).
``POLICY`` is ``jsq``, ``asymmetric`` or ``sed`` with the options of ``symq compensation``;
``heatmap`` draws the joint queue-length law $P(q_1,q_2)$ on a logarithmic colour scale, one panel
per load, and ``levels`` the number of compensation levels the pure series needs per state (see
:func:`symq.studies.compensation.grids.levels_needed`); titles and file names carry the actual
parameters (:func:`parameter_tag`). The options and what each picture shows are in
docs/pictures.md.

Examples
--------
>>> from symq.studies.compensation import asymmetric_jsq
>>> from symq.presentation.pictures.compensation import parameter_tag
>>> parameter_tag(asymmetric_jsq("2", "1", "3", "1/2"))
{'lambda': '2', 'mu1': '1', 'mu2': '3', 'q': '1/2'}
"""

from __future__ import annotations

import os
import re
from fractions import Fraction
from typing import Any, Sequence

from symq.studies.compensation.models import RoutingModel
from symq.presentation.pictures import (Curve, Digits, Picture, PictureKind, agreed_digits,
                                        file_stem, pyplot, register)
from symq.presentation.pictures._drawing import integer_axis

__all__ = ["parameter_tag", "parameter_title", "draw_heatmap", "draw_levels", "with_load",
           "write_pictures"]


def parameter_tag(model: RoutingModel) -> dict[str, str]:
    """The parameters that identify a routing model, for titles and file names.

    Parameters
    ----------
    model : RoutingModel
        JSQ, asymmetric JSQ or SED.

    Returns
    -------
    dict
        ``{name: exact value as text}``.

    Examples
    --------
    >>> from symq.studies.compensation import sed
    >>> parameter_tag(sed(2, "1/2", "1/2"))
    {'s': '2', 'q': '1/2', 'rho': '1/2'}

    Running time: O(1).
    """
    p = model.parameters()
    if model.policy == "jsq":
        return {"rho": p["rho"]}
    if model.policy == "sed":
        return {"s": p["s"], "q": p["q"], "rho": p["rho"]}
    return {"lambda": p["lambda"], "mu1": p["mu_1"], "mu2": p["mu_2"], "q": p["q"]}


def parameter_title(model: RoutingModel) -> str:
    r"""The parameters in mathtext, e.g. ``$s=3,\ q=2/5,\ \rho=9/10$``.

    Parameters
    ----------
    model : RoutingModel
        As for :func:`parameter_tag`, with the service rates shown.

    Returns
    -------
    str
        Mathtext for a matplotlib title.

    Examples
    --------
    >>> from symq.studies.compensation import sed
    >>> print(parameter_title(sed(2, "1/2", "1/2")))
    $s=2,\ q=1/2,\ \mu=(1,2),\ \rho=1/2$

    Running time: O(1).
    """
    p = model.parameters()
    mu = f"\\mu=({p['mu_1']},{p['mu_2']})"
    if model.policy == "sed":
        body = f"s={p['s']},\\ q={p['q']},\\ {mu},\\ \\rho={p['rho']}"
    elif model.policy == "jsq":
        body = f"{mu},\\ \\rho={p['rho']}"
    else:
        body = f"\\lambda={p['lambda']},\\ {mu},\\ q={p['q']},\\ \\rho={p['rho']}"
    return f"${body}$"


def with_load(model: RoutingModel, rho: Any) -> RoutingModel:
    """The same routing model at load ``rho`` (arrival rate $\\rho(\\mu_1+\\mu_2)$).

    Parameters
    ----------
    model : RoutingModel
        Its policy and service rates are kept.
    rho : exact number
        The new load, below 1.

    Returns
    -------
    RoutingModel
        A new model; ``model`` is unchanged.

    Examples
    --------
    >>> from symq.studies.compensation import sed
    >>> parameter_tag(with_load(sed(2, "1/2", "1/2"), "1/4"))["rho"]
    '1/4'

    Running time: O(1).
    """
    mu = model.service_rates
    return RoutingModel(model.policy, Fraction(rho) * (mu[0] + mu[1]), mu, model.s,
                        model.tie_probability)


def _lattice(ax, size: int, height: int) -> None:
    ax.set_xlim(-0.5, size + 0.5)
    ax.set_ylim(-0.5, height + 0.5)
    integer_axis(ax.xaxis)
    integer_axis(ax.yaxis)
    ax.set_xlabel("$q_1$ (jobs at server 1)")
    ax.set_ylabel("$q_2$ (jobs at server 2)")


def draw_heatmap(model: RoutingModel, rhos: Sequence[Any] = (), size: int = 12) -> Picture:
    r"""Heat map panels of $P(q_1, q_2)$ at the loads ``rhos`` and the model's own load.

    Parameters
    ----------
    model : RoutingModel
        A JSQ or SED model of :mod:`symq.studies.compensation`.
    rhos : sequence
        Extra loads, exact.
    size : int
        The panel shows $0\le q_1,q_2<$ ``size``.

    Returns
    -------
    Picture

    Examples
    --------
    >>> from symq.studies.compensation import sed
    >>> draw_heatmap(sed(2, "1/2", "1/2"), size=4).stem
    'sed-heatmap-s=2-q=1_2-rho=1_2'

    Running time: one compensation solve per load, then ``size**2`` evaluations.
    """
    from matplotlib.colors import LogNorm
    from symq.studies.compensation.grids import heat_values

    plt = pyplot()
    s = model.s
    height = s * size
    loads = sorted({Fraction(r) for r in rhos} | {model.load})
    fig, axes = plt.subplots(1, len(loads), figsize=(4.4 * len(loads) + 0.8, 4.6), squeeze=False)
    data = {}
    panels = []
    curves = []
    for rho in loads:
        values, result = heat_values(with_load(model, rho), size)
        panels.append(values)
        for q2 in range(height + 1):
            curves.append(Curve(f"rho={rho}, q_2={q2}", "P(q_1, q_2)", model.policy, "q_1",
                                [(q1, _digits(result.probability((q1, q2))))
                                 for q1 in range(size + 1)]))
    # one colour scale for every panel, so that the panels compare
    top = max(max(values.values()) for values in panels)
    low = max(min(v for values in panels for v in values.values() if v > 0), top * 1e-12)
    norm = LogNorm(vmin=low, vmax=top)
    for ax, rho, values in zip(axes[0], loads, panels):
        image = [[values[(q1, q2)] for q1 in range(size + 1)] for q2 in range(height + 1)]
        im = ax.imshow(image, origin="lower", aspect="auto", cmap="viridis", norm=norm,
                       extent=(-0.5, size + 0.5, -0.5, height + 0.5))
        xs = [0, size]
        if model.policy == "sed":  # the SED switching lines
            ax.plot(xs, [s * (x + 1) - 1 for x in xs], "w--", lw=1, label="$s(q_1+1)=q_2+1$")
            ax.plot(xs, [s * x for x in xs], "w:", lw=1, label="$sq_1=q_2$")
        elif model.policy == "jsq":  # ties: both queues equal
            ax.plot(xs, xs, "w:", lw=1, label="$q_1=q_2$ (ties)")
        _lattice(ax, size, height)
        ax.set_title(f"$\\rho={rho}$")
        data[str(rho)] = {"P(0,0)": repr(values[(0, 0)]), "max": repr(max(values.values()))}
    bar = fig.colorbar(im, ax=list(axes[0]), fraction=0.046 / len(loads) ** 0.5, pad=0.02)
    bar.set_label("$P(q_1, q_2)$, log scale (one scale for all panels)")
    if model.policy in ("sed", "jsq"):
        axes[0][0].legend(loc="upper left", fontsize=7)
    shown = parameter_title(model)
    if len(loads) > 1:  # the load is in each panel's title, not in the common one
        shown = re.sub(r",\\ \\rho=[^$,]*", "", shown)
    fig.suptitle(f"{model.policy.upper()}: joint queue-length law, {shown}", fontsize=11)
    extra = "-".join(str(r).replace("/", "_") for r in loads if r != model.load)
    stem = file_stem(model.policy, "heatmap", **parameter_tag(model),
                     **({"panels": extra} if extra else {}))
    return Picture(fig, stem, {"size": size, "loads": [str(r) for r in loads], "panels": data},
                   curves)


def _digits(value: Any) -> Digits:
    """The digits of a probability of the hybrid solution (asked for 12 correct digits, see
    :func:`symq.studies.compensation.grids.heat_values`) that a relative error of
    $10^{-10}$ leaves the same: 8 or 9 significant digits, only correct ones."""
    exact = Fraction(str(value)) if value else Fraction(0)
    if exact == 0:
        return Digits("0")
    slack = abs(exact) / 10 ** 10
    return Digits(agreed_digits(exact - slack, exact + slack, 10))


def draw_levels(model: RoutingModel, size: int = 6, max_levels: int = 4) -> Picture:
    r"""Levels of the pure compensation series needed per state (module docstring).

    Parameters
    ----------
    model : RoutingModel
        A JSQ or SED model.
    size : int
        States $0\le q_1,q_2<$ ``size``.
    max_levels : int
        The most levels tried.

    Returns
    -------
    Picture
        One cell per state, coloured by the number of levels.

    Examples
    --------
    >>> from symq.studies.compensation import sed
    >>> picture = draw_levels(sed(2, "1/2", "1/2"), size=3, max_levels=2)
    >>> picture.stem
    'sed-levels-s=2-q=1_2-rho=1_2'

    Running time: ``size**2`` series evaluations of up to ``max_levels`` levels.
    """
    from matplotlib.colors import BoundaryNorm
    from symq.studies.compensation.grids import levels_needed

    plt = pyplot()
    s = model.s
    height = s * size
    needed = levels_needed(model, size=size, max_levels=max_levels)
    fig, ax = plt.subplots(figsize=(5.4, 5))
    image = [[needed[(q1, q2)] for q1 in range(size + 1)] for q2 in range(height + 1)]
    cmap = plt.get_cmap("magma_r", max_levels + 2)
    norm = BoundaryNorm([k - 0.5 for k in range(max_levels + 3)], cmap.N)
    im = ax.imshow(image, origin="lower", aspect="auto", cmap=cmap, norm=norm,
                   extent=(-0.5, size + 0.5, -0.5, height + 0.5))
    for (q1, q2), v in needed.items():
        ax.text(q1, q2, str(v) if v <= max_levels else f">{max_levels}", ha="center",
                va="center", fontsize=max(7, min(11, 60 // max(size, height + 1) + 4)),
                color="white" if v >= (max_levels + 1) / 2 else "black")
    _lattice(ax, size, height)
    ax.set_title(f"levels of the pure series for $10^{{-6}}$ relative accuracy\n"
                 f"{model.policy.upper()}, {parameter_title(model)}", fontsize=10)
    bar = fig.colorbar(im, ax=ax, fraction=0.046, ticks=list(range(max_levels + 2)))
    bar.set_label(f"levels needed ({max_levels + 1}: more than {max_levels})")
    fig.tight_layout()
    stem = file_stem(model.policy, "levels", **parameter_tag(model))
    curves = [Curve(f"q_2={q2}", f"levels needed ({max_levels + 1}: more than {max_levels})",
                    model.policy, "q_1", [(q1, needed[(q1, q2)]) for q1 in range(size + 1)])
              for q2 in range(height + 1)]
    return Picture(fig, stem, {"size": size, "max_levels": max_levels,
                               "levels": {f"{a},{b}": v for (a, b), v in sorted(needed.items())}},
                   curves)


def _heatmap(model: RoutingModel, size: int | None = None, rhos: str | None = None) -> Picture:
    from symq.errors import ModelError
    from symq.studies.compensation.models import exact_fraction
    loads = [exact_fraction(r, "rho") for r in rhos.split(",")] if rhos else []
    for r in loads:
        if not 0 < r < 1:
            raise ModelError(f"--rhos: load {r} is not in (0, 1)")
    size = 12 if size is None else size
    if not 1 <= size <= 60:
        raise ModelError(f"--size must be from 1 to 60, not {size}")
    return draw_heatmap(model, loads, size)


def _levels(model: RoutingModel, size: int | None = None, max_levels: int = 4) -> Picture:
    from symq.errors import ModelError
    size = 6 if size is None else size
    if not 1 <= size <= 20:
        raise ModelError(f"--size must be from 1 to 20 for levels, not {size}")
    if not 1 <= max_levels <= 12:
        raise ModelError(f"--max-levels must be from 1 to 12, not {max_levels}")
    return draw_levels(model, size, max_levels)


register(PictureKind(
    "heatmap", "compensation: joint queue-length law P(q1, q2), log colour scale", _heatmap,
    subject="routing",
    options={"size": dict(type=int, default=None,
                          help="heatmap, levels: largest q1 drawn (default 12; levels 6)"),
             "rhos": dict(default=None, metavar="R1,R2,...",
                          help="heatmap: further loads drawn as panels, e.g. 1/2,7/10")}))
register(PictureKind(
    "levels", "compensation: levels of the pure series needed per state", _levels,
    subject="routing",
    options={"size": dict(type=int, default=None,
                          help="heatmap, levels: largest q1 drawn (default 12; levels 6)"),
             "max_levels": dict(type=int, default=4,
                                help="levels: most tree levels tried (default 4)")}))


def write_pictures(model: RoutingModel, directory: str, rhos=("1/2", "7/10", "9/10"),
                   size: int = 12) -> dict:
    """Write the heat map and the levels-needed picture; return ``{name: path}``.

    The drawing is :mod:`symq.presentation.pictures.compensation` (the ``heatmap`` and ``levels`` kinds of
    ``symq plot``); file names carry the actual parameters, e.g.
    ``sed-heatmap-s=3-q=2_5-rho=9_10-panels=1_2-7_10.png``.

    Parameters
    ----------
    model : RoutingModel
        The routing model.
    directory : str
        Where the PNG files go.
    rhos : tuple of str
        Loads of the heat-map panels.
    size : int
        The heat map's extent in ``q1``.

    Returns
    -------
    dict
        ``{"heatmap": path, "levels": path}``.

    Examples
    --------
    >>> import tempfile
    >>> from symq.studies.compensation import symmetric_jsq
    >>> with tempfile.TemporaryDirectory() as d:
    ...     sorted(write_pictures(symmetric_jsq("1/2"), d, rhos=("1/2",), size=3))
    ['heatmap', 'levels']

    Running time: one :func:`heat_values` per panel and one :func:`levels_needed` (on a
    6-wide grid, 4 levels), then matplotlib's drawing (about a second).
    """
    from symq.presentation.pictures import close, save

    paths = {}
    for name, picture in (("heatmap", draw_heatmap(model, rhos, size)),
                          ("levels", draw_levels(model, size=6, max_levels=4))):
        try:
            paths[name] = save(picture, os.path.join(directory, picture.stem + ".png"))
        finally:
            close(picture)
    return paths
