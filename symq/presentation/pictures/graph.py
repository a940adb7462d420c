r"""``symq plot MODEL graph``: the compatibility graph of a model.
Classes (circles, with their arrival rates $\lambda_i$) on the left, servers (squares, with their
service rates $\mu_j$) on the right, an edge where server $j$ can serve class $i$ ($j\in S_i$).
Symbolic rates are drawn as formulas, so no ``--set`` is needed.

Examples
--------
>>> from symq import model
>>> from symq.presentation.pictures.graph import draw
>>> picture = draw(model("w"))
>>> picture.stem, picture.data["edges"]
('w-graph', 4)
"""

from __future__ import annotations

from symq.models.model import Model
from symq.presentation.pictures import Curve, Picture, PictureKind, pyplot, register, file_stem
from symq.presentation.pictures._drawing import bipartite, label

__all__ = ["draw"]


def draw(model: Model) -> Picture:
    """The compatibility graph of ``model`` as a :class:`~symq.presentation.pictures.Picture`.

    Parameters
    ----------
    model : Model
        Any rates (they label the nodes).

    Returns
    -------
    Picture
        Classes above, servers below.

    Examples
    --------
    >>> from symq import example_model
    >>> draw(example_model("n")).stem
    'n-graph'

    Running time: O(J + M + edges), plus matplotlib.
    """
    plt = pyplot()
    height = max(len(model.classes), len(model.servers))
    fig, ax = plt.subplots(figsize=(5.5, 1.2 + 0.75 * height))
    bipartite(ax, model)
    edges = sum(len(s) for s in model.compatibility.values())
    ax.set_title(f"compatibility graph of {label(model)}: {len(model.classes)} classes, "
                 f"{len(model.servers)} servers, {edges} edges", fontsize=10)
    # --data: the rates on the nodes (a symbolic rate as its formula) and the edges drawn
    curves = [Curve("arrival rates", "arrival rate", "", "class",
                    [(c, _rate(model.arrival_rates[c])) for c in model.classes]),
              Curve("service rates", "service rate", "", "server",
                    [(s, _rate(model.service_rates[s])) for s in model.servers]),
              Curve("edges", "server", "", "class",
                    [(c, s) for c in model.classes for s in model.compatibility[c]])]
    return Picture(fig, file_stem(label(model), "graph"),
                   {"classes": list(model.classes), "servers": list(model.servers),
                    "edges": edges}, curves)


def _rate(value):
    """A rate for ``--data``: a rational as itself, a formula as its text."""
    import sympy
    value = sympy.sympify(value) if not isinstance(value, sympy.Basic) else value
    return value if value.is_Rational else str(value)


register(PictureKind("graph", "the compatibility graph (classes, servers, rates)", draw))
