r"""How results look in Jupyter: a mapping result (per class, per server) is a
:class:`QuantityResult`, a ``dict`` that keeps every dict behaviour (equality, ``json.dumps``,
``isinstance(x, dict)``) and adds ``_repr_latex_`` and ``_repr_html_``; the other result objects
(verify reports, compensation results, stability conditions, decompositions, ...) subclass
:class:`Displayed` and define ``_display()``, a title and sections ``(header, rows)`` of text or
:class:`Math` cells, which :func:`html_table` and :func:`latex_table` render alike, leaving
``repr`` and ``str`` untouched. What each result shows: see docs/howto-python.md.

Examples
--------
>>> import sympy
>>> r = QuantityResult({"total": sympy.Rational(14, 15), "per_class": {"1": sympy.Rational(11, 30)}})
>>> r == {"total": sympy.Rational(14, 15), "per_class": {"1": sympy.Rational(11, 30)}}
True
>>> print(r._repr_latex_())
$\begin{array}{ll} \text{total} & \frac{14}{15} \\ \text{class 1} & \frac{11}{30} \end{array}$
>>> print(html_table([(("class", "rate"), [("<b>", math(sympy.Rational(1, 2)))])]))
<table class="symq-result"><tr><th class="tex2jax_ignore">class</th><th class="tex2jax_ignore">rate</th></tr><tr><td class="tex2jax_ignore">&lt;b&gt;</td><td>\(\frac{1}{2}\)</td></tr></table>
"""

from __future__ import annotations

import html
import re
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["QuantityResult", "as_result", "Math", "math", "text_latex", "name_latex", "escape",
           "printable", "markdown_text", "markdown_latex", "set_display", "html_table",
           "latex_table", "Displayed"]

_LABELS = {"per_class": "class", "per_server": "server"}


_SHORT_ESCAPES = {"\t": r"\t", "\n": r"\n", "\r": r"\r"}
#: a backslash that reads as one of the escapes :func:`printable` writes: text holding one is
#: escaped too (its backslashes doubled), so that it cannot print like a control character
_LOOKS_ESCAPED = re.compile(r"\\[xuUtnr\\]")


def printable(text: Any) -> str:
    r"""``text`` with every character that is not printable written as a Python escape: a
    control character (ESC, BEL, a line break in a name), a format character (a right-to-left
    override), a separator other than the space, an unassigned or private code point. What symq
    prints from names and model files goes through here (text output, and :func:`name_latex`
    and :func:`escape` for LaTeX), so a name can neither move the cursor, retitle the terminal,
    nor end a LaTeX line.

    Parameters
    ----------
    text : Any
        The text (its ``str``).

    Returns
    -------
    str
        ``text`` itself when every character is printable (``str.isprintable``) and no
        backslash in it starts what would read as an escape (``\x``, ``\u``, ``\U``, ``\t``,
        ``\n``, ``\r``, ``\\``); else each other character as ``\t``, ``\n``, ``\r``, ``\xNN``,
        ``\uNNNN`` or ``\UNNNNNNNN``, and each backslash doubled. So distinct texts print
        distinctly: a name holding ESC prints ``\x1b``, a name holding the four characters
        ``\x1b`` prints ``\\x1b``.

    Examples
    --------
    >>> print(printable("a\x1b]0;owned\x07b"))
    a\x1b]0;owned\x07b
    >>> print(printable("a\\x1b]0;owned\\x07b"))
    a\\x1b]0;owned\\x07b
    >>> printable("caf\u00e9 \u03b8")
    'café θ'
    >>> print(printable("\u202eevil\tname"), printable("{\\input{x}}"))
    \u202eevil\tname {\input{x}}

    Running time: O(len(text)).
    """
    text = str(text)
    if text.isprintable() and not _LOOKS_ESCAPED.search(text):
        return text
    out = []
    for c in text:
        if c == "\\":
            out.append("\\\\")
        elif c.isprintable():
            out.append(c)
        elif c in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[c])
        else:
            code = ord(c)
            out.append(f"\\x{code:02x}" if code < 0x100 else
                       f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


class Math(str):
    """A table cell that is LaTeX math (a plain ``str`` cell is text)."""


def math(value: Any) -> Math:
    """``value`` as a :class:`Math` cell: a sympy object (or number) through ``sympy.latex``, a
    LaTeX string (already a :class:`Math`) as it is, an object with ``_repr_latex_`` by it.

    Parameters
    ----------
    value : Any
        A sympy object, a number, a :class:`Math` string or an object with ``_repr_latex_``.

    Returns
    -------
    Math
        The LaTeX math of ``value`` (without ``$`` delimiters).

    Examples
    --------
    >>> import sympy
    >>> print(math(sympy.Rational(1, 2)))
    \\frac{1}{2}
    >>> math(Math("x")) == "x"
    True

    Running time: that of ``sympy.latex`` on ``value`` (linear in its size).
    """
    import sympy
    if isinstance(value, Math):
        return value
    latex = getattr(value, "_repr_latex_", None)
    if latex is not None and not isinstance(value, sympy.Basic):
        return Math(latex().strip("$"))
    try:
        return Math(sympy.latex(value))
    except Exception:  # pragma: no cover - an unusual leaf
        return Math(text_latex(value))


#: characters that are not plain text in LaTeX, written in math mode (valid in LaTeX and in
#: MathJax alike: MathJax shows the inside of ``\text{...}`` literally, so ``\text{a\_b}``
#: would read ``a\_b`` in a notebook)
_MATH_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
                 "}": r"\}", "~": r"\sim ", "^": r"\hat{}", "\\": r"\backslash ", "<": "<",
                 ">": ">", "|": "|"}


def text_latex(text: Any, command: str = "text") -> str:
    r"""``text`` as LaTeX math-mode material: its runs of plain characters in
    ``\text{...}`` (or ``\textbf``...), each special character (``_``, ``&``, ``<``, ``\``,
    ``{``, ...) as its math-mode symbol, non-printable characters written out first
    (:func:`printable`), so that pdflatex and MathJax both show the text as it is and no name
    can issue a LaTeX command.

    Parameters
    ----------
    text : Any
        The text (its ``str``).
    command : str
        The LaTeX text command for the plain runs (``"text"``, ``"textbf"``, ...).

    Returns
    -------
    str
        The plain runs, each in ``\command{...}``, with the special characters between them
        (``\text{}`` for empty text).

    Examples
    --------
    >>> print(text_latex("a_b <c>"))
    \text{a}\_\text{b }<\text{c}>

    Running time: O(len(text)).
    """
    parts, run = [], []
    for c in printable(text):
        if c in _MATH_SPECIAL:
            if run:
                parts.append(f"\\{command}{{{''.join(run)}}}")
                run = []
            parts.append(_MATH_SPECIAL[c])
        else:
            run.append(c)
    if run or not parts:
        parts.append(f"\\{command}{{{''.join(run)}}}")
    return "".join(parts)


def name_latex(name: Any) -> str:
    """A class or server name in math mode: digits as they are, anything else as text.

    Parameters
    ----------
    name : str or int
        A class or server name, as in the model.

    Returns
    -------
    str
        The name itself if it is all ASCII digits, else :func:`text_latex` of it (so every
        LaTeX output shows a name the same way, whatever characters it holds).

    Examples
    --------
    >>> name_latex(12)
    '12'
    >>> name_latex("fast") == text_latex("fast")
    True

    Running time: O(len(name)).
    """
    name = str(name)
    return name if name.isascii() and name.isdigit() else text_latex(name)


def set_display(names: Iterable[Any]) -> str:
    r"""A set of names in math mode, ``\{1, 2\}``, each name by :func:`name_latex`.

    Parameters
    ----------
    names : iterable
        Class or server names, in the order to show.

    Returns
    -------
    str
        ``\{``, the names separated by commas, ``\}`` (``\{\}`` for none).

    Examples
    --------
    >>> print(set_display(["1", "fast", "a_b"]))
    \{1, \text{fast}, \text{a}\_\text{b}\}

    Running time: linear in the total length of the names.
    """
    return r"\{" + ", ".join(name_latex(n) for n in names) + r"\}"


Cell = Any  # str (text), Math, None (empty), or anything else (shown as its str)
Section = tuple[Sequence[Cell] | None, Sequence[Sequence[Cell]]]


#: text cells carry this class: MathJax leaves them alone, so that a name such as ``$x$`` or
#: ``\\(...\\)`` from a model file is shown as it is, never typeset (nor its macros run)
_NO_MATH = ' class="tex2jax_ignore"'


def _html_cell(cell: Cell, tag: str) -> str:
    if cell is None:
        return f"<{tag}></{tag}>"
    if isinstance(cell, Math):
        return f"<{tag}>\\({html.escape(cell)}\\)</{tag}>"
    return f"<{tag}{_NO_MATH}>{html.escape(printable(cell))}</{tag}>"


def _latex_cell(cell: Cell) -> str:
    if cell is None or cell == "":
        return ""
    if isinstance(cell, Math):
        return str(cell)
    return text_latex(cell)


def html_table(sections: Iterable[Section], title: str | None = None) -> str:
    """One HTML ``<table>`` of the sections (a header row, if any, then the rows); every text is
    escaped with :func:`html.escape` and marked for MathJax to leave alone; math cells go
    between ``\\(`` and ``\\)`` for MathJax.

    Parameters
    ----------
    sections : iterable of (header, rows)
        Each a header row (or ``None``) and a list of rows of cells (text, :class:`Math`,
        ``None`` for an empty cell).
    title : str, optional
        A caption.

    Returns
    -------
    str
        The HTML table; short rows are padded with empty cells.

    Examples
    --------
    >>> print(html_table([(("class", "rate"), [("1", "<b>")])], title="T"))
    <table class="symq-result"><caption class="tex2jax_ignore">T</caption><tr><th class="tex2jax_ignore">class</th><th class="tex2jax_ignore">rate</th></tr><tr><td class="tex2jax_ignore">1</td><td class="tex2jax_ignore">&lt;b&gt;</td></tr></table>

    Running time: O(total size of the cells).
    """
    sections = list(sections)
    width = max([len(r) for _, rows in sections for r in rows] +
                [len(h) for h, _ in sections if h] + [1])
    parts = ['<table class="symq-result">']
    if title:
        parts.append(f"<caption{_NO_MATH}>{html.escape(printable(title))}</caption>")
    for header, rows in sections:
        for row, tag in ([(header, "th")] if header else []) + [(r, "td") for r in rows]:
            cells = list(row) + [None] * (width - len(row))
            parts.append("<tr>" + "".join(_html_cell(c, tag) for c in cells) + "</tr>")
    parts.append("</table>")
    return "".join(parts)


def latex_table(sections: Iterable[Section], title: str | None = None) -> str:
    r"""The same sections as one ``array`` in inline math (``$...$``, as Jupyter and pdflatex
    take it); a header row is followed by ``\hline``, sections are separated by ``\hline``, a
    title goes above in bold.

    Parameters
    ----------
    sections : iterable of (header, rows)
        As :func:`html_table`.
    title : str, optional
        A bold line above the table.

    Returns
    -------
    str
        ``$\begin{array}...\end{array}$``.

    Examples
    --------
    >>> import sympy
    >>> print(latex_table([(("a", "b"), [("x", math(sympy.Rational(1, 2)))])]))
    $\begin{array}{ll} \text{a} & \text{b} \\ \hline \text{x} & \frac{1}{2} \end{array}$

    Running time: O(total size of the cells).
    """
    sections = list(sections)
    width = max([len(r) for _, rows in sections for r in rows] +
                [len(h) for h, _ in sections if h] + [1])
    lines, rule = [], False
    for n, (header, rows) in enumerate(sections):
        rule = rule or n > 0
        for row, is_header in ([(header, True)] if header else []) + [(r, False) for r in rows]:
            text = " & ".join(_latex_cell(c) for c in row)
            lines.append(("\\hline " if rule else "") + text)
            rule = is_header
    body = " \\\\ ".join(lines)
    table = f"\\begin{{array}}{{{'l' * width}}} {body} \\end{{array}}"
    if title:
        table = f"\\begin{{array}}{{l}} {text_latex(title, 'textbf')} \\\\ {table} \\end{{array}}"
    return f"${table}$"


class Displayed:
    """Mixin of a result class with a table display: define ``_display()`` returning
    ``(title, sections)``; Jupyter then shows the object as an HTML table (``_repr_html_``) or
    LaTeX (``_repr_latex_``), and a terminal keeps the class's own ``repr``/``str``."""

    def _display(self) -> tuple[str | None, list[Section]]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _repr_html_(self) -> str:
        title, sections = self._display()
        return html_table(sections, title)

    def _repr_latex_(self) -> str:
        title, sections = self._display()
        return latex_table(sections, title)


def _rows(result: Mapping[str, Any], label: Any = None) -> list[tuple[Any, Math]]:
    label = label or _key_text
    rows = []
    for key, part in result.items():
        if isinstance(part, Mapping):
            word = _LABELS.get(key, _key_text(key))
            rows += [(f"{word} {name}", math(value)) for name, value in part.items()]
        else:
            rows.append((label(key), math(part)))
    return rows


def _key_text(key: Any) -> str:
    """A key as a label: an identifier such as ``mean_number`` reads ``mean number``; any
    other key (a class name, a description) is shown as it is."""
    key = str(key)
    return key.replace("_", " ") if key.isidentifier() else key


class QuantityResult(dict):
    """A per-class / per-server result: a ``dict`` that Jupyter shows as a table of formulas.

    A subclass may label its rows differently by overriding ``_key_label(key)`` (a text or
    :class:`Math` cell)."""

    def _key_label(self, key: Any) -> Any:
        return _key_text(key)

    def _repr_latex_(self) -> str:
        return latex_table([(None, _rows(self, self._key_label))])

    def _repr_html_(self) -> str:
        return html_table([(None, _rows(self, self._key_label))])


def as_result(result: Any) -> Any:
    """``result`` as a :class:`QuantityResult` when it is a plain mapping; otherwise unchanged.

    Parameters
    ----------
    result : Any
        A result of a :mod:`symq` function.

    Returns
    -------
    Any
        A :class:`QuantityResult` (a ``dict``) for a mapping, else ``result`` itself.

    Examples
    --------
    >>> type(as_result({"total": 1})).__name__, as_result(5)
    ('QuantityResult', 5)

    Running time: O(n) for a mapping of n top-level keys (one shallow copy).
    """
    if isinstance(result, Mapping) and not isinstance(result, QuantityResult):
        return QuantityResult(result)
    return result


#: the same characters in LaTeX's text mode (documents compiled with pdflatex)
_TEXT_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
                 "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                 "\\": r"\textbackslash{}", "<": r"\textless{}", ">": r"\textgreater{}",
                 "|": r"\textbar{}"}


def escape(text: str) -> str:
    r"""Text safe for LaTeX's text mode (names, file names, messages in a document): the text
    counterpart of :func:`text_latex`, with the same characters escaped (the names of a model
    go in math mode through :func:`name_latex`).

    Parameters
    ----------
    text : str
        Any text; non-strings are converted with ``str``.

    Returns
    -------
    str
        Non-printable characters written out first (:func:`printable`), then
        ``& % $ # _ { } ~ ^ \ < > |`` escaped; other characters (letters of any script) stay,
        for a Unicode-aware preamble (:func:`symq.presentation.latex.document`).

    Examples
    --------
    >>> print(escape("a_b & 50%"))
    a\_b \& 50\%
    >>> print(escape("{\\input{/etc/passwd}}"))
    \{\textbackslash{}input\{/etc/passwd\}\}

    Running time: O(length of the text).
    """
    return "".join(_TEXT_SPECIAL.get(c, c) for c in printable(text))


#: ASCII punctuation CommonMark lets a backslash escape: each is written escaped in Markdown
#: prose, so a name can start no emphasis, link, image, heading, table cell or code span
_MARKDOWN_PUNCTUATION = frozenset("!#()*[\\]^_`{|}~$")
_HTML_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
#: characters a name may hold that break Markdown around inline math, and their LaTeX
_MARKDOWN_MATH = {"<": r"\lt ", ">": r"\gt ", "|": r"\vert ", "&": r"\&", "[": "&#91;",
                  "]": "&#93;"}
_MATH_DOLLAR = re.compile(r"(?<!\\)\$")


def markdown_text(text: Any) -> str:
    r"""Text (a model or class name, a title) as Markdown prose that shows it as it is: the
    Markdown escaping point of every printer. Non-printable characters are written out first
    (:func:`printable`), ``<``, ``>`` and ``&`` become HTML entities (so ``<script>`` and
    ``<img onerror=...>`` are text, never live HTML), and each of ``! # ( ) * [ \ ] ^ _ ` { | }
    ~ $`` is backslash-escaped (no emphasis, link, image, table cell or math made from a name).

    Parameters
    ----------
    text : Any
        The text (its ``str``).

    Returns
    -------
    str

    Examples
    --------
    >>> print(markdown_text("<img src=x onerror=alert(1)>"))
    &lt;img src=x onerror=alert\(1\)&gt;
    >>> print(markdown_text("a_b [link](javascript:x)"))
    a\_b \[link\]\(javascript:x\)

    Running time: O(len(text)).
    """
    out = []
    for c in printable(text):
        if c in _HTML_ENTITIES:
            out.append(_HTML_ENTITIES[c])
        elif c in _MARKDOWN_PUNCTUATION:
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


def markdown_latex(text: str) -> str:
    r"""A line of symq's own LaTeX-in-Markdown (words with ``$...$`` math, whose names came
    through :func:`name_latex`) made safe for Markdown renderers that know no math: inside the
    math ``<``, ``>``, ``|`` become ``\lt``, ``\gt``, ``\vert`` (the same symbols for MathJax
    and KaTeX, but no HTML tag nor table cell) and ``[``, ``]`` HTML entities (no link such as
    ``[x](javascript:...)`` made from a name); outside it ``<``, ``>``, ``&`` become HTML
    entities and ``|`` is escaped.

    Parameters
    ----------
    text : str
        LaTeX-in-Markdown built by symq (a table cell, a paragraph, a display formula).

    Returns
    -------
    str

    Examples
    --------
    >>> print(markdown_latex(r"class $\text{a}<\text{script}>$ | x"))
    class $\text{a}\lt \text{script}\gt $ \| x

    Running time: O(len(text)).
    """
    parts = _MATH_DOLLAR.split(text)
    for index, part in enumerate(parts):
        if index % 2:  # inside $...$
            parts[index] = "".join(_MARKDOWN_MATH.get(c, c) for c in part)
        else:
            parts[index] = "".join(_HTML_ENTITIES.get(c, "\\|" if c == "|" else c)
                                   for c in part)
    return "$".join(parts)
