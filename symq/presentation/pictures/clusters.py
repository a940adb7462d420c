r"""``symq plot MODEL clusters``: the supermarket decomposition into clusters.
Left: the neighbourhoods (the model's classes, with arrival rates $\lambda_i$) and the stations
(its servers, with rates $\mu_j$), each station coloured by its cluster $C_k$. Right: the weighted
drifts $V_1 > V_2 > \dots$ of the clusters, exact, with $V=0$ marked: JLW routing with these
weights is stable iff $V_1<0$. Weights are given as ``--weights 1=2 2=3/2`` (default 1). See the
supermarket topic page and the theory page of the decomposition.

Examples
--------
>>> from symq import example_model
>>> from symq.presentation.pictures.clusters import draw
>>> draw(example_model("w", {"lambda_1": 2})).data["clusters"][0]
{'stations': ['1'], 'drift': '1'}
"""

from __future__ import annotations

from typing import Sequence

from symq.models.model import Model
from symq.presentation.pictures import (Curve, Picture, PictureKind, file_stem, pyplot,
                                        rates_title, register, short_latex)
from symq.presentation.pictures._drawing import bipartite, label, plain

__all__ = ["draw"]


def draw(model: Model, weights: Sequence[str] = ()) -> Picture:
    """The picture (see the module docstring).

    Parameters
    ----------
    model : Model
        Exact numeric rates of the supermarket streams and stations.
    weights : sequence of str
        ``STATION=WEIGHT`` settings, as ``--weights`` takes them.

    Returns
    -------
    Picture
        The stations coloured by cluster, with the drifts.

    Examples
    --------
    >>> from symq import example_model
    >>> draw(example_model("w", {"lambda_1": 2})).stem
    'w-clusters'

    Running time: that of :func:`symq.studies.supermarket.decompose`, plus matplotlib.
    """
    import sympy
    from symq.studies.supermarket.policy import parse_weight_settings
    from symq.studies.supermarket import decompose

    weight_map = parse_weight_settings(list(weights or ()))
    d = decompose(model, weight_map)
    plt = pyplot()
    palette = plt.get_cmap("tab10")
    colours = {j: palette(k % 10) for k, c in enumerate(d.clusters) for j in c.stations}
    height = max(len(model.classes), len(model.servers))
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 1.6 + 0.75 * height),
                                      gridspec_kw={"width_ratios": [1.3, 1]})
    bipartite(left, model, colours, "neighbourhoods", "stations")
    names = [f"$C_{k}$" for k in range(1, len(d.clusters) + 1)]
    numeric = all(not c.drift.free_symbols for c in d.clusters)
    # a drift past the float range (a weight of 4,000 digits) is written, not drawn as a bar
    if numeric and all(abs(c.drift) < sympy.Float("1e300") for c in d.clusters):
        values = [float(c.drift) for c in d.clusters]
        right.barh(range(len(values)), values, color=[palette(k % 10) for k in range(len(values))])
        right.axvline(0, color="black", lw=1)
        for k, (c, v) in enumerate(zip(d.clusters, values)):
            right.text(v, k, f" {_short(c.drift)} ", va="center",
                       ha="left" if v >= 0 else "right", fontsize=9)
        right.set_yticks(range(len(values)), names)
        right.invert_yaxis()
        right.set_xlabel("weighted drift $V_k$ (stable iff $V_1 < 0$)")
        lo, hi = min(values + [0]), max(values + [0])
        pad = 0.25 * (hi - lo or 1)
        right.set_xlim(lo - pad, hi + pad)
        from matplotlib.ticker import MaxNLocator
        right.xaxis.set_major_locator(MaxNLocator(nbins=5))  # labels never collide
    else:
        right.axis("off")
        for k, c in enumerate(d.clusters):
            drift = short_latex(c.drift, relation=True)
            right.text(0, 1 - 0.12 * (k + 1), f"{names[k]}: $V_{k + 1}{drift}$",
                       transform=right.transAxes, fontsize=10, color=palette(k % 10))
    for k, c in enumerate(d.clusters):
        left.scatter([], [], marker="s", color=palette(k % 10),
                     label=f"{names[k]} = {{{', '.join(map(plain, c.stations))}}}")
    left.legend(loc="lower center", fontsize=8, ncol=min(3, len(d.clusters)),
                bbox_to_anchor=(0.5, -0.12))
    verdict = {True: "stable", False: "unstable", None: "stability depends on the rates"}[d.stable]
    fig.suptitle(f"supermarket decomposition of {label(model)} under JLW: {verdict}\n"
                 f"{rates_title(model)}", fontsize=11)
    fig.tight_layout()
    tag = {f"w{j}": str(w) for j, w in d.weights.items() if w != 1}
    data = {"clusters": [{"stations": list(c.stations), "drift": str(c.drift)} for c in d.clusters],
            "stable": d.stable}
    def exact(value):
        return value if value.is_Rational else str(value)
    curves = [Curve("drift V_k", "weighted drift", "jlw", "cluster k",
                    [(k, exact(sympy.sympify(c.drift))) for k, c in enumerate(d.clusters, 1)]),
              Curve("cluster of station", "cluster k", "jlw", "station",
                    [(j, k) for k, c in enumerate(d.clusters, 1) for j in c.stations])]
    return Picture(fig, file_stem(label(model), "clusters", **tag), data, curves)


def _short(value) -> str:
    """A drift as mathtext: exact when short, else 6 correct significant digits."""
    from symq.presentation.pictures import short_latex
    return f"${short_latex(value)}$"


register(PictureKind(
    "clusters", "supermarket: clusters of the JLW decomposition and their drifts", draw,
    options={"weights": dict(nargs="+", default=[], metavar="STATION=VALUE",
                             help="clusters: station weights, e.g. --weights 1=2 2=3/2 "
                                  "(default 1)")}))
