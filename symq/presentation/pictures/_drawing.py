"""Drawing helpers shared by the picture modules (not a picture kind itself)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import sympy

from symq.models.model import Model


def math(expr: Any) -> str:
    """``$...$`` matplotlib mathtext of a sympy expression (or of a name)."""
    return f"${sympy.latex(sympy.sympify(expr) if not isinstance(expr, sympy.Basic) else expr)}$" \
        if not isinstance(expr, str) else f"${expr}$"


#: names longer than this are shortened in pictures (a title or node label must fit)
NAME_LIMIT = 40


def plain(text: Any, limit: int = NAME_LIMIT) -> str:
    r"""A name (class, server, model) as matplotlib text: never mathtext (each ``$`` written
    ``\$``, so a name such as ``$x$`` or ``a$b`` neither typesets nor ends the run in a
    mathtext ParseException), non-printable characters written out, and shortened to ``limit``
    characters with an ellipsis.

    Parameters
    ----------
    text : Any
        The name (its ``str``).
    limit : int
        The most characters shown.

    Returns
    -------
    str
        Text for ``ax.text``, titles and legends.

    Examples
    --------
    >>> print(plain("$x$"))
    \$x\$
    >>> plain("a" * 50, limit=10)
    'aaaaaaaaa…'

    Running time: O(len(text)).
    """
    from symq.display import printable
    text = printable(text)
    if len(text) > limit:
        text = text[:limit - 1] + "…"
    return text.replace("$", r"\$")


def label(model: Model, fallback: str = "model") -> str:
    """The model's name for titles and file names, as :func:`plain` text."""
    return plain(model.name or fallback)


def integer_axis(axis) -> None:
    """Ticks on whole numbers only (an integer lattice never shows a tick at 2.5)."""
    from matplotlib.ticker import MaxNLocator
    axis.set_major_locator(MaxNLocator(integer=True))


def bipartite(ax, model: Model, colours: Mapping[str, Any] | None = None,
              class_caption: str = "classes", server_caption: str = "servers") -> None:
    """Draw the compatibility graph: classes on the left, servers on the right, rates as labels.

    ``colours`` maps a server to a colour (default: one colour for all).
    """
    classes: Sequence[str] = model.classes
    servers: Sequence[str] = model.servers
    height = max(len(classes), len(servers), 1)

    def ys(n: int) -> list[float]:
        return [height - 1 - (k + 0.5) * height / n + 0.5 for k in range(n)] if n else []

    yc = dict(zip(classes, ys(len(classes))))
    yj = dict(zip(servers, ys(len(servers))))
    for i in classes:
        for j in model.compatibility[i]:
            ax.plot([0, 1], [yc[i], yj[j]], color="0.55", lw=1.2, zorder=1)
    for i in classes:
        ax.scatter([0], [yc[i]], s=420, color="#4c72b0", zorder=2, edgecolors="black")
        ax.text(0, yc[i], plain(i, 12), ha="center", va="center", color="white", fontsize=9,
                zorder=3)
        ax.annotate(f"$\\lambda={sympy.latex(model.arrival_rates[i])}$", (0, yc[i]),
                    xytext=(-16, 0), textcoords="offset points", ha="right", va="center",
                    fontsize=9)
    for j in servers:
        colour = (colours or {}).get(j, "#dd8452")
        ax.scatter([1], [yj[j]], s=420, marker="s", color=colour, zorder=2, edgecolors="black")
        ax.text(1, yj[j], plain(j, 12), ha="center", va="center", color="white", fontsize=9,
                zorder=3)
        ax.annotate(f"$\\mu={sympy.latex(model.service_rates[j])}$", (1, yj[j]),
                    xytext=(16, 0), textcoords="offset points", ha="left", va="center",
                    fontsize=9)
    ax.text(0, height - 0.1, class_caption, ha="center", va="bottom", fontsize=10, weight="bold")
    ax.text(1, height - 0.1, server_caption, ha="center", va="bottom", fontsize=10, weight="bold")
    ax.set_xlim(-0.75, 1.75)
    ax.set_ylim(-0.7, height + 0.4)
    ax.axis("off")
