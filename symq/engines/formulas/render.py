r"""LaTeX and text of structured definitions: one ``align*`` line per definition, long sums
broken over several lines so that each fits a text width of about 17 cm (A4, 2 cm margins).
The width of a piece of LaTeX is estimated in "glyph units" (a letter, a digit or an operator
counts one, a subscript character about two thirds, ``+`` with its spaces two); a line holds
:data:`LINE_UNITS` of them. Running time: linear in the size of the definitions.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import accumulate
from typing import Any, Iterable

import sympy

from symq.engines.formulas.build import Definition, Term

__all__ = ["LINE_UNITS", "width", "definition_latex", "definition_text", "align_block",
           "rate_latex", "broken_latex"]

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
    s = _W_SIZES.sub("", tex)
    s = _W_FRAC.sub(lambda m: "x" * int(max(width(m.group(1)), width(m.group(2)))), s)
    s = _W_FONTS.sub("", s)
    s = _W_COMMAND.sub("x", s)
    sub = sum(len(_W_MARKUP.sub("", m)) for m in _W_SCRIPT_BODY.findall(s))
    s = _W_SCRIPT.sub("", s)
    s = _W_REST.sub("", s)
    ops = len(_W_OPS.findall(s))
    return len(s) + ops + 0.65 * sub


_W_SIZES = re.compile(r"\\(left|right|Bigl|Bigr|bigl|bigr|quad|qquad|,|;)")
_W_FRAC = re.compile(r"\\frac\{([^{}]*)\}\{([^{}]*)\}")
_W_FONTS = re.compile(r"\\(mathrm|mathsf|widetilde|hat|text|operatorname)\b")
_W_COMMAND = re.compile(r"\\[A-Za-z]+")
_W_MARKUP = re.compile(r"[{}\s]")
_W_SCRIPT_BODY = re.compile(r"[_^]\{([^{}]*)\}")
_W_SCRIPT = re.compile(r"[_^]\{[^{}]*\}")
_W_REST = re.compile(r"[{}_^\s]")
_W_OPS = re.compile(r"[+\-=]")


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


_SUM_CUT = re.compile(r"(?<=\S) (?=[+-] )")
_PRODUCT_CUT = re.compile(r"(?<=[)}]) (?=\\left\(|\\frac)")


def _depth(text: str) -> int:
    """Braces and ``\\left``/``\\right`` opened minus closed in ``text``."""
    return (text.count("{") - text.count("}") + text.count(r"\left") - text.count(r"\left.")
            - text.count(r"\right"))


def _split_top(tex: str, kind: str) -> list[str]:
    """``tex`` cut at its top level (outside braces and ``\\left(...\\right)``): ``"sum"`` before
    each ``"+ "``/``"- "`` (the sign stays with the term that follows), ``"product"`` between
    parenthesised factors (``\\right) \\left(``). Cut everywhere first, then pieces rejoined
    while a bracket is open (linear, with C-speed scans)."""
    chunks = (_SUM_CUT if kind == "sum" else _PRODUCT_CUT).split(tex)
    pieces: list[str] = []
    current: list[str] = []
    depth = 0
    for chunk in chunks:
        current.append(chunk)
        depth += _depth(chunk)
        if depth == 0:
            pieces.append(" ".join(current).strip())
            current = []
    if current:
        pieces.append(" ".join(current).strip())
    return [p for p in pieces if p]


def _fraction(tex: str) -> tuple[str, str, str] | None:
    """``(sign, numerator, denominator)`` of a LaTeX ``[- ]\\frac{N}{D}`` that is one fraction
    at the top level, else None."""
    sign = ""
    if tex.startswith("- "):
        sign, tex = "- ", tex[2:]
    if not tex.startswith(r"\frac{") or not tex.endswith("}"):
        return None
    # N ends at the first "}{" where the braces opened since "\frac{" are all closed
    at, depth = len(r"\frac{"), 1
    while True:
        cut = tex.find("}{", at)
        if cut < 0:
            return None
        depth += tex.count("{", at, cut + 1) - tex.count("}", at, cut + 1)
        at = cut + 1
        if depth == 0:
            numerator, rest = tex[len(r"\frac{"):cut], tex[cut + 1:]
            break
    inner = rest[1:-1]
    if _depth(inner) != 0:
        return None
    braces = _NOT_BRACE.sub("", inner)  # D is one group: no prefix of it closes more than it opens
    if braces and min(accumulate(map(_BRACE_STEP.__getitem__, braces))) < 0:
        return None
    return sign, numerator, inner


_NOT_BRACE = re.compile(r"[^{}]+")
_BRACE_STEP = {"{": 1, "}": -1}


def _wide(tex: str, limit: float) -> bool:
    """``width(tex) > limit``, without measuring a text so long it cannot fit (a LaTeX formula
    shows at least one glyph unit for every 50 characters)."""
    return len(tex) > 50 * limit or width(tex) > limit


_PARENTHESISED = re.compile(r"^\\left\((.*)\\right\)(\^\{\d+\})?$", re.S)


def _inner_sum(piece: str) -> tuple[list[str], str] | None:
    """The terms and the power of a factor ``\\left(S\\right)^{k}`` whose inside ``S`` is a sum
    at its top level, else None."""
    match = _PARENTHESISED.match(piece)
    if match is None or _split_top(match.group(1), "product") != [match.group(1)]:
        return None
    terms = _split_top(match.group(1), "sum")
    return (terms, match.group(2) or "") if len(terms) > 1 else None


def _lines(pieces: list[str], kind: str, limit: float, first_used: float) -> list[str]:
    """The terms (or factors) ``pieces`` on lines of at most ``limit`` glyph units;
    continuation lines start with ``\\qquad``. A factor ``\\left(S\\right)`` too wide for a
    line is itself broken, as ``\\Bigl(S\\Bigr)`` over lines of its own; any other piece wider
    than a line stays whole on its line."""
    lines: list[str] = []
    current, used = "", first_used
    for k, piece in enumerate(pieces):
        if kind == "sum" and k > 0:
            if piece.startswith(("+ ", "- ")):
                text = f" {piece[0]} {piece[2:]}"
            else:
                text = (" - " + piece[1:].lstrip()) if piece.startswith("-") else " + " + piece
        else:
            text = piece if k == 0 else " " + piece
        w = width(text) if len(text) <= 50 * limit else len(text)
        bare = text.strip()
        sign = ""
        if kind == "sum" and bare[:2] in ("+ ", "- "):
            sign, bare = bare[:2], bare[2:]
        inner = _inner_sum(bare) if w > limit else None
        if inner is not None:  # a long parenthesised sum: its terms over lines of their own
            if current.strip():
                lines.append(current)
            terms, power = inner
            sub = _lines(terms, "sum", limit, 6)
            lead = "" if not lines and not current.strip() else r"\qquad "
            sub[0] = lead + sign + r"\Bigl(" + sub[0].removeprefix(r"\qquad ")
            sub[-1] += r" \Bigr)" + power
            lines += sub[:-1]
            current, used = sub[-1], width(sub[-1])
            continue
        if k > 0 and used + w > limit and current.strip():
            lines.append(current)
            current, used = r"\qquad " + text.lstrip(), 4 + w
        else:
            current, used = current + text, used + w
    lines.append(current)
    return lines


def broken_latex(tex: str, limit: float = LINE_UNITS) -> list[str]:
    r"""A long LaTeX formula (a rational function as sympy prints it, an expanded polynomial,
    a product of factors) as ``align*`` line pieces that each fit about ``limit`` glyph units
    (A4 with 2 cm margins): the first follows ``&=``, the others are continuation lines. A
    fraction $N/D$ too wide for one line is written $\frac{1}{D}\Bigl(N\Bigr)$ with $N$'s terms
    over several lines, or, when $D$ is long too, $\Bigl(N\Bigr)\Bigl(D\Bigr)^{-1}$; the value is
    unchanged (tests read it back).

    Parameters
    ----------
    tex : str
        LaTeX math of one formula.
    limit : float
        Line width in the units of :func:`width` (default :data:`LINE_UNITS`).

    Returns
    -------
    list of str
        The line pieces; ``[tex]`` when it fits.

    Examples
    --------
    >>> terms = " + ".join(f"a_{{{k}}} b_{{{k}}}" for k in range(1, 9))
    >>> lines = broken_latex(r"- \frac{" + terms + "}{c + d}", limit=30)
    >>> for line in lines:
    ...     print(line)
    - \frac{1}{c + d} \Bigl(a_{1} b_{1} + a_{2} b_{2} + a_{3} b_{3} + a_{4} b_{4}
    \qquad + a_{5} b_{5} + a_{6} b_{6} + a_{7} b_{7} + a_{8} b_{8} \Bigr)
    >>> broken_latex("x + y")
    ['x + y']

    Running time: linear in the length of ``tex`` (a few passes).
    """
    tex = tex.strip()
    if not _wide(tex, limit):
        return [tex]
    found = _fraction(tex)
    if found is None:
        terms = _split_top(tex, "sum")
        kind = "sum" if len(terms) > 1 else "product"
        return _lines(terms if kind == "sum" else _split_top(tex, "product"), kind, limit, 0)
    sign, numerator, denominator = found

    def group(body: str) -> tuple[list[str], str]:
        terms = _split_top(body, "sum")
        return (terms, "sum") if len(terms) > 1 else (_split_top(body, "product"), "product")

    top, top_kind = group(numerator)
    if not _wide(denominator, limit / 2):
        prefix = rf"{sign}\frac{{1}}{{{denominator}}} \Bigl("
        lines = _lines(top, top_kind, limit, width(prefix))
        lines[0] = prefix + lines[0]
        lines[-1] += r" \Bigr)"
        return lines
    lines = _lines(top, top_kind, limit, 2)
    lines[0] = sign + r"\Bigl(" + lines[0]
    lines[-1] += r" \Bigr)"
    bottom, bottom_kind = group(denominator)
    under = _lines(bottom, bottom_kind, limit, 6)
    under[0] = r"\qquad \Bigl(" + under[0].removeprefix(r"\qquad ")
    under[-1] += r" \Bigr)^{-1}"
    return lines + under


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
