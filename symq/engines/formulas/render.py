r"""LaTeX and text of structured definitions: one ``align*`` line per definition, long sums
broken over several lines so that each fits a text width of about 17 cm (A4, 2 cm margins).
The width of a piece of LaTeX is estimated in "glyph units" (a letter, a digit or an operator
counts one, a subscript character about two thirds, ``+`` with its spaces two); a line holds
:data:`LINE_UNITS` of them. Running time: linear in the size of the definitions.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable

import sympy

from symq.engines.formulas.build import Definition, Term

__all__ = ["LINE_UNITS", "width", "definition_latex", "definition_text", "align_block",
           "rate_latex"]

#: glyph units on one displayed line after the name and "="
LINE_UNITS = 58


def width(tex: str) -> float:
    """Estimated printed width of ``tex`` in glyph units.

    Parameters
    ----------
    tex : str
        LaTeX math.

    Returns
    -------
    float
        Glyphs, with operators counted twice and sub- and superscripts at 0.65; a fraction
        is as wide as its wider part.

    Examples
    --------
    >>> width("x_{1}"), width(r"\\frac{a+b}{c}")
    (1.65, 4.0)

    Running time: a few regular-expression passes over ``tex`` (linear), once more per
    nested fraction.
    """
    s = re.sub(r"\\(left|right|Bigl|Bigr|bigl|bigr|quad|qquad|,|;)", "", tex)
    s = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}",
               lambda m: "x" * int(max(width(m.group(1)), width(m.group(2)))), s)
    s = re.sub(r"\\(mathrm|mathsf|widetilde|hat|text|operatorname)\b", "", s)
    s = re.sub(r"\\[A-Za-z]+", "x", s)
    sub = sum(len(re.sub(r"[{}\s]", "", m)) for m in re.findall(r"[_^]\{([^{}]*)\}", s))
    s = re.sub(r"[_^]\{[^{}]*\}", "", s)
    s = re.sub(r"[{}_^\s]", "", s)
    ops = len(re.findall(r"[+\-=]", s))
    return len(s) + ops + 0.65 * sub


@lru_cache(maxsize=4096)
def rate_latex(expr: Any) -> str:
    """A sum of rates with the positive terms first (``\\mu_{1} + \\mu_{2} - \\lambda_{1}``)."""
    expr = sympy.sympify(expr)
    if not expr.is_Add:
        return sympy.latex(expr)
    pos = [a for a in expr.args if not a.could_extract_minus_sign()]
    neg = [-a for a in expr.args if a.could_extract_minus_sign()]
    key = lambda a: (0 if str(a).startswith("mu") else 1, sympy.default_sort_key(a))  # noqa: E731
    text = " + ".join(sympy.latex(a) for a in sorted(pos, key=key))
    for a in sorted(neg, key=key):
        text += f" - {sympy.latex(a)}" if not a.is_Add else rf" - \left({sympy.latex(a)}\right)"
    return text.lstrip(" +") if text.startswith(" - ") is False else "-" + text[3:]


#: slack expression -> LaTeX label (r_{S}) of the formula being written (set by the caller)
_LABELS: dict[Any, str] = {}


def _coef_latex(coef: Any) -> tuple[str, bool]:
    """(LaTeX, needs parentheses before a product of names)."""
    coef = sympy.sympify(coef)
    if coef.is_Add:
        return rate_latex(coef), True
    if coef.is_Pow and coef.exp == -1:
        base = _LABELS.get(coef.base) or rate_latex(coef.base)
        return rf"\frac{{1}}{{{base}}}", False
    return sympy.latex(coef), False


def _term_latex(term: Term, names: dict[str, str]) -> str:
    factors = " ".join(names[n] for n in term.names)
    coef = sympy.sympify(term.coef)
    if coef.is_Pow and coef.exp == -1 and coef.base in _LABELS and factors:
        return rf"\frac{{{factors}}}{{{_LABELS[coef.base]}}}"
    if not factors:
        return _coef_latex(coef)[0]
    if coef == 1:
        return factors
    if coef == -1:
        return "-" + factors
    text, paren = _coef_latex(coef)
    return (rf"\left({text}\right) " if paren else text + " ") + factors


def _join(parts: list[str]) -> str:
    out = ""
    for k, p in enumerate(parts):
        if k == 0:
            out = p
        elif p.startswith("-"):
            out += " - " + p[1:]
        else:
            out += " + " + p
    return out


#: a rate denominator wider than this is written by its name (r_X), defined on a line of its own
DENOM_UNITS = 34


def long_denominator(d: Definition, limit: float | None = None) -> str | None:
    """The LaTeX of ``d``'s rate denominator when it is too wide to show inline (wider than
    ``limit``, default :data:`DENOM_UNITS`), else None."""
    denom = sympy.sympify(d.denom)
    if denom == 1 or not d.denom_label:
        return None
    text = rate_latex(denom)
    return text if width(text) > (DENOM_UNITS if limit is None else limit) else None


def _denominator(d: Definition, names: dict[str, str], factor: int = 1,
                 labelled: bool = False) -> str | None:
    parts = [str(factor)] if factor != 1 else []
    denom = sympy.sympify(d.denom)
    if denom != 1 and labelled:
        parts.append(d.denom_label)
    elif denom != 1:
        text = rate_latex(denom)
        many = bool(d.denom_names) or factor != 1
        parts.append(rf"\left({text}\right)" if denom.is_Add and many else text)
    parts += [names[n] for n in d.denom_names]
    return " ".join(parts) if parts else None


def _integer_denominator(e: Any) -> int:
    """The integer ``q`` such that ``q e`` has no rational coefficient (``lambda/6``: 6)."""
    e = sympy.sympify(e)
    if e == 0:
        return 1
    if e.is_Pow and e.exp == -1:
        return 1
    den = sympy.fraction(sympy.together(e))[1]
    c = den.as_coeff_Mul()[0]
    return int(c) if c.is_Integer and c > 0 else 1


def _cleared(d: Definition, labelled: bool) -> tuple[Definition, int]:
    r"""``d`` with numerator and denominator multiplied by the least integer that clears the
    rational coefficients (no fraction inside a fraction: $\frac{\lambda}{12\mu-\lambda}$, not
    $\frac{\lambda/6}{2\mu-\lambda/6}$), and the integer factor left in front of a
    denominator written by its label."""
    from dataclasses import replace
    from math import lcm
    q_t = lcm(1, *(_integer_denominator(t.coef) for t in d.terms))
    q_s = _integer_denominator(d.scale)
    q_d = 1 if labelled else _integer_denominator(d.denom)
    q = lcm(q_t * q_s, q_d)
    if q == 1:
        return d, 1
    scale = sympy.sympify(d.scale)
    into_terms = q if scale == 1 else q_t  # an integer factor goes into the sum when no scale
    terms = [Term(sympy.expand(sympy.sympify(t.coef) * into_terms), t.names) for t in d.terms]
    scale = sympy.expand(scale * (q // into_terms))
    if labelled or sympy.sympify(d.denom) == 1:
        return replace(d, terms=terms, scale=scale), q
    return replace(d, terms=terms, scale=scale, denom=sympy.expand(sympy.sympify(d.denom) * q)), 1


def definition_latex(d: Definition, names: dict[str, str], limit: float = LINE_UNITS,
                     denom_limit: float | None = None) -> list[str]:
    """The right-hand side of ``d`` as one or more ``align`` line pieces (the first follows
    ``&=``; the others are continuation lines).

    Parameters
    ----------
    d : Definition
        The definition.
    names : dict
        LaTeX of each definition name (:attr:`symq.engines.formulas.Structured.names`).
    limit : float
        Line width in the units of :func:`width`.
    denom_limit : float, optional
        Widest rate denominator shown inline (default :data:`DENOM_UNITS`); a wider one is
        written by its label.

    Returns
    -------
    list of str
        The line pieces.

    Examples
    --------
    >>> from symq.engines.formulas import structured
    >>> f = structured("n", "empty-probability")
    >>> print(definition_latex(f.definitions[2], f.names)[0])
    \\frac{\\lambda_{2}}{\\mu_{1} + \\mu_{2} - \\lambda_{1}}

    Running time: linear in the size of ``d`` (the terms and their widths).
    """
    if d.product:
        return [" ".join(names[n] for n in d.terms[0].names) or "1"]
    if d.kind == "P" and len(d.terms) == 1 and d.terms[0].names and not d.denom_names:
        return [" ".join(names[n] for n in d.terms[0].names)]
    labelled = long_denominator(d, denom_limit) is not None
    d, factor = _cleared(d, labelled)
    parts = [_term_latex(t, names) for t in d.terms] or ["0"]
    den = _denominator(d, names, factor, labelled)
    scale = sympy.sympify(d.scale)
    scale_tex = "" if scale == 1 else _coef_latex(scale)[0]
    numerator = _join(parts)
    if width(numerator) + width(scale_tex) <= limit:
        if den is None:
            if not scale_tex:
                return [numerator]
            return [scale_tex + (rf" \left({numerator}\right)" if len(parts) > 1
                                 else " " + numerator)]
        if scale_tex:
            top = scale_tex + (rf" \left({numerator}\right)" if len(parts) > 1 else " " + numerator)
        else:
            top = numerator
        return [rf"\frac{{{top}}}{{{den}}}"]
    # long: prefix (scale/den), then the sum in big brackets over several lines
    if den is not None:
        prefix = rf"\frac{{{scale_tex or 1}}}{{{den}}}"
    else:
        prefix = scale_tex
    lines: list[str] = []
    current = (prefix + r" \Bigl(") if prefix else ""
    used = width(prefix) + 1
    first = True
    for p in parts:
        piece = p if first else (" - " + p[1:] if p.startswith("-") else " + " + p)
        w = width(piece)
        if not first and used + w > limit:
            lines.append(current)
            current = r"\qquad " + piece.lstrip()
            used = 4 + w
        else:
            current += piece
            used += w
        first = False
    current += r" \Bigr)" if prefix else ""
    lines.append(current)
    return lines


def align_block(rows: Iterable[tuple[str, list[str]]], star: bool = True) -> str:
    r"""``\begin{align*} name &= ... \\ &\qquad ... \end{align*}`` of ``(name, lines)`` rows.

    Parameters
    ----------
    rows : iterable of (str, list of str)
        A name's LaTeX and its line pieces (:func:`definition_latex`).
    star : bool
        ``align*`` (unnumbered) or ``align``.

    Returns
    -------
    str
        The LaTeX block.

    Examples
    --------
    >>> print(align_block([("x", ["a + b", "+ c"])]))
    \begin{align*}
    x &= a + b \\
    &+ c
    \end{align*}

    Running time: O(total length of the rows).
    """
    env = "align*" if star else "align"
    out = [rf"\begin{{{env}}}"]
    body = []
    for name, lines in rows:
        body.append(f"{name} &= {lines[0]}")
        body += [f"&{line}" for line in lines[1:]]
    out.append(" \\\\\n".join(body))
    out.append(rf"\end{{{env}}}")
    return "\n".join(out)


# ------------------------------------------------------------------------ text (parsable)
@lru_cache(maxsize=4096)
def _coef_text(coef: Any) -> str:
    return str(sympy.sympify(coef))


def _atom_text(coef: Any) -> str:
    coef = sympy.sympify(coef)
    text = _coef_text(coef)
    return text if coef.is_Symbol or (coef.is_Integer and coef >= 0) else f"({text})"


def definition_text(d: Definition) -> str:
    """The right-hand side of ``d`` as an expression string that
    :func:`symq.arithmetic.expressions.parse_expression` reads (rate symbols and earlier names).

    Parameters
    ----------
    d : Definition
        The definition.

    Returns
    -------
    str
        The expression text.

    Examples
    --------
    >>> from symq.engines.formulas import structured
    >>> f = structured("n", "empty-probability")
    >>> [definition_text(d) for d in f.definitions[2:]]
    ['lambda_2/(-lambda_1 + mu_1 + mu_2)', '1 - rho__1_2', 'E__1*E__1_2']

    Running time: linear in the number of terms of ``d``.
    """
    out = ""
    for k, t in enumerate(d.terms):
        coef = sympy.sympify(t.coef)
        negative = coef.could_extract_minus_sign()
        if negative:
            coef = -coef
        factors = [] if coef == 1 and t.names else [_atom_text(coef)]
        body = "*".join(factors + list(t.names))
        if k == 0:
            out = ("-" if negative else "") + body
        else:
            out += (" - " if negative else " + ") + body
    text = out or "0"
    many = len(d.terms) > 1
    scale = sympy.sympify(d.scale)
    den = [_atom_text(d.denom)] if sympy.sympify(d.denom) != 1 else []
    den += list(d.denom_names)
    if scale != 1:
        text = f"{_atom_text(scale)}*({text})" if many else f"{_atom_text(scale)}*{text}"
        many = False
    if den:
        top = f"({text})" if many else text
        bottom = den[0] if len(den) == 1 else "(" + "*".join(den) + ")"
        text = f"{top}/{bottom}"
    return text
