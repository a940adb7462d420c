r"""LaTeX building blocks: formulas, the compatibility-graph figure, and a whole document.
Everything here returns strings; nothing is computed. :mod:`symq.presentation.report` decides what goes in.

Examples
--------
>>> from symq import model
>>> from symq.presentation.latex import set_latex, tikz_graph
>>> print(set_latex(["1", "2"]))
\{1, 2\}
>>> print(tikz_graph(model("n")).splitlines()[0])
\begin{tikzpicture}[x=1.6cm, y=1.8cm]
"""

from __future__ import annotations

from typing import Iterable

import sympy

from symq.display import escape, name_latex
from symq.models.model import Model

__all__ = ["set_latex", "tikz_graph", "document", "math_block", "unicode_preamble"]

def set_latex(items: Iterable[str]) -> str:
    r"""A set of names in math mode: ``\{1, 2\}``, each through :func:`symq.display.name_latex`.

    Parameters
    ----------
    items : iterable of str
        Class or server names.

    Returns
    -------
    str
        The names between ``\{`` and ``\}`` (the same as :func:`symq.display.set_display`).

    Examples
    --------
    >>> print(set_latex(["1", "a_b"]))
    \{1, \text{a}\_\text{b}\}

    Running time: O(total length of the names).
    """
    return r"\{" + ", ".join(_math_name(i) for i in items) + r"\}"


def _math_name(name: str) -> str:
    return name_latex(name)


def math_block(expr: sympy.Expr | str, lhs: str = "") -> str:
    r"""A displayed equation; one longer than 300 characters goes in a ``multline*``, broken at
    top-level plus signs, so that it fits the page with amsmath alone.

    Parameters
    ----------
    expr : sympy.Expr or str
        The right-hand side, or LaTeX already (an ``align*``/``gather*`` display is kept as is).
    lhs : str
        LaTeX of the left-hand side, if any.

    Returns
    -------
    str

    Examples
    --------
    >>> import sympy
    >>> print(math_block(sympy.Symbol("x") / 2, "P"))
    \[
    P = \frac{x}{2}
    \]

    Running time: sympy's LaTeX printing of ``expr``, plus O(length) for the line breaks.
    """
    body = expr if isinstance(expr, str) else sympy.latex(expr)
    if body.startswith((r"\begin{align", r"\begin{gather")):  # a display of its own, one row
        # per line: never broken inside a row
        return body
    prefix = f"{lhs} = " if lhs else ""
    if len(body) > 300:
        return "\\begin{multline*}\n" + prefix + _wrap(body) + "\n\\end{multline*}"
    return "\\[\n" + prefix + body + "\n\\]"


def _wrap(body: str, width: int = 250) -> str:
    """Break a very long formula at top-level + signs so the page does not overflow."""
    pieces, depth, start = [], 0, 0
    for k, c in enumerate(body):
        depth += c in "{(" and 1 or (c in "})" and -1 or 0)
        if c == "+" and depth == 0 and k - start > width:
            pieces.append(body[start:k])
            start = k
    pieces.append(body[start:])
    return " \\\\\n".join(pieces)


def tikz_graph(model: Model) -> str:
    r"""The compatibility graph: classes on top, servers below, an edge per compatible pair; each
    node is labelled with its rate.

    Parameters
    ----------
    model : Model
        Any model.

    Returns
    -------
    str
        A ``tikzpicture`` (needs the ``positioning`` library).

    Examples
    --------
    >>> from symq import model
    >>> tikz_graph(model("n")).count(r"\draw")
    3

    Running time: O(J + M + edges) lines for J classes and M servers.
    """
    lines = [r"\begin{tikzpicture}[x=1.6cm, y=1.8cm]"]
    width = max(len(model.classes), len(model.servers))

    def position(k: int, count: int) -> float:
        return (width - count) / 2 + k

    for k, i in enumerate(model.classes):
        lines.append(rf"\node[draw, circle, minimum size=7mm] (c{k}) at "
                     rf"({position(k, len(model.classes)):.2f}, 1) {{${_math_name(i)}$}};")
        lines.append(rf"\node[above=1mm of c{k}] {{$\scriptstyle "
                     rf"{sympy.latex(model.arrival_rates[i])}$}};")
    for k, j in enumerate(model.servers):
        lines.append(rf"\node[draw, rectangle, minimum size=7mm] (s{k}) at "
                     rf"({position(k, len(model.servers)):.2f}, 0) {{${_math_name(j)}$}};")
        lines.append(rf"\node[below=1mm of s{k}] {{$\scriptstyle "
                     rf"{sympy.latex(model.service_rates[j])}$}};")
    for k, i in enumerate(model.classes):
        for j in model.compatibility[i]:
            lines.append(rf"\draw (c{k}) -- (s{model.servers.index(j)});")
    lines.append(r"\end{tikzpicture}")
    return "\n".join(lines)


def unicode_preamble(text: str) -> list[str]:
    r"""Preamble lines that let pdflatex typeset every character of ``text``: T1 fonts and UTF-8
    input, and for each character beyond ASCII a fallback ``[U+XXXX]`` box that LaTeX uses only
    where it has no glyph of its own (``é`` stays ``é``; a Chinese or emoji class name comes out
    as its code point instead of ending the run with "Unicode character not set up").

    Parameters
    ----------
    text : str
        The document (title and body) as it will be compiled.

    Returns
    -------
    list of str
        Lines for the preamble, after ``\documentclass``.

    Examples
    --------
    >>> lines = unicode_preamble("caf\u00e9 \u6f22")
    >>> lines[:2]
    ['\\usepackage[T1]{fontenc}', '\\usepackage[utf8]{inputenc}']
    >>> len(lines)
    6

    Running time: O(len(text)).
    """
    lines = [r"\usepackage[T1]{fontenc}", r"\usepackage[utf8]{inputenc}",
             r"\newcommand{\symqchar}[1]{\mbox{\footnotesize\ttfamily[U+#1]}}",
             # declare the fallback only where LaTeX knows no definition (\detokenize gives the
             # bytes LaTeX names the character by)
             r"\newcommand{\symqunicode}[2]{\ifcsname u8:\detokenize{#1}\endcsname\else"
             r"\DeclareUnicodeCharacter{#2}{\symqchar{#2}}\fi}"]
    for c in sorted({c for c in text if ord(c) > 127}):
        lines.append(f"\\symqunicode{{{c}}}{{{ord(c):04X}}}")
    return lines


def document(title: str, body: str) -> str:
    r"""A complete article that compiles with pdflatex (amsmath, amssymb, tikz, geometry), with
    a preamble for the non-ASCII characters of names (:func:`unicode_preamble`).

    Parameters
    ----------
    title : str
        Plain text; escaped here.
    body : str
        LaTeX between ``\maketitle`` and ``\end{document}``.

    Returns
    -------
    str

    Examples
    --------
    >>> document("W model", "Hello.").count(r"\begin{document}")
    1

    Running time: O(length of the body).
    """
    return "\n".join([
        r"\documentclass[11pt]{article}",
        *unicode_preamble(title + body),
        r"\usepackage[margin=2cm]{geometry}",
        r"\usepackage{amsmath,amssymb}",
        r"\usepackage{graphicx}",
        r"\usepackage{tikz}",
        r"\usetikzlibrary{positioning}",
        r"\allowdisplaybreaks",
        rf"\title{{{escape(title)}}}",
        r"\author{symq}",
        r"\date{}",
        r"\begin{document}",
        r"\maketitle",
        body,
        r"\end{document}",
        "",
    ])
