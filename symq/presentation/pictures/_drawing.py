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


def distinct(names: Sequence[Any], prefix: str = "", limit: int = NAME_LIMIT) -> dict[Any, str]:
    r"""Legend rows for ``names`` as :func:`plain` text, one row per name and no two alike.

    :func:`plain` alone can show two names the same way: a name holding the character ESC and
    one holding the four characters ``\x1b``, or two long names cut to the same first
    ``limit`` characters. Those rows are shown as Python's ``ascii`` writes the name (ESC as
    ``\x1b``, a backslash as ``\\``) and with the name's end (``AAAA…AAAA1``); any rows still
    alike get their position ``[k]``.

    Parameters
    ----------
    names : sequence
        The names, in the order drawn (their ``str``; distinct).
    prefix : str
        Put before each (``"class "``).
    limit : int
        The most characters of a name shown.

    Returns
    -------
    dict
        ``{name: row}``; the rows are pairwise different.

    Examples
    --------
    >>> rows = distinct(["\x1b", "\\x1b", "ok"], "class ")
    >>> print(rows["\x1b"], rows["\\x1b"], rows["ok"], sep=" | ")
    class \x1b | class \\x1b | class ok
    >>> sorted(distinct(["A" * 50 + "1", "A" * 50 + "2"], limit=10).values())
    ['AAAA…AAAA1', 'AAAA…AAAA2']

    Running time: O(total length of the names).
    """
    from collections import Counter

    def middle(text: str) -> str:
        if len(text) <= limit:
            return text
        head = (limit - 1) // 2
        return text[:head] + "…" + text[len(text) - (limit - 1 - head):]

    shown = {n: plain(n, limit) for n in names}
    counts = Counter(shown.values())
    for n in names:
        if counts[shown[n]] > 1:
            shown[n] = middle(ascii(str(n))[1:-1].replace("\\u2026", "…")).replace("$", r"\$")
    counts = Counter(shown.values())
    for k, n in enumerate(names, 1):
        if counts[shown[n]] > 1:
            shown[n] = f"{shown[n]} [{k}]"
    return {n: prefix + shown[n] for n in names}


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
    from symq.presentation.pictures import short_latex
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
        ax.annotate(f"$\\lambda{short_latex(model.arrival_rates[i], relation=True)}$", (0, yc[i]),
                    xytext=(-16, 0), textcoords="offset points", ha="right", va="center",
                    fontsize=9)
    for j in servers:
        colour = (colours or {}).get(j, "#dd8452")
        ax.scatter([1], [yj[j]], s=420, marker="s", color=colour, zorder=2, edgecolors="black")
        ax.text(1, yj[j], plain(j, 12), ha="center", va="center", color="white", fontsize=9,
                zorder=3)
        ax.annotate(f"$\\mu{short_latex(model.service_rates[j], relation=True)}$", (1, yj[j]),
                    xytext=(16, 0), textcoords="offset points", ha="left", va="center",
                    fontsize=9)
    ax.text(0, height - 0.1, class_caption, ha="center", va="bottom", fontsize=10, weight="bold")
    ax.text(1, height - 0.1, server_caption, ha="center", va="bottom", fontsize=10, weight="bold")
    ax.set_xlim(-0.75, 1.75)
    ax.set_ylim(-0.7, height + 0.4)
    ax.axis("off")
