r"""What ``symq derive`` prints for each ``--form`` and ``--format``.
``structured`` (the default for symbolic models and the five normalization quantities) prints the
named definitions then the quantity, as text lines ``NAME = EXPR``, one LaTeX ``align*`` block or
JSON ``"structured": {"definitions": [...], "result": ...}``; ``expanded`` and ``factored`` print
one cancelled rational function per result, multiplied out from the definitions in python-flint
arithmetic; numeric models and the response-time laws have one form, the exact value or law.
Running time: structured well under a second for 6 servers; expanded grows with the size of the
rational function (seconds for 4 servers). The forms and formats: see docs/formulas.md.
"""

from __future__ import annotations

from typing import Any, Mapping

import sympy

from symq.display import printable
from symq.errors import ModelError
from symq.engines.formulas import FORMS

__all__ = ["derive_result", "latex_rows", "label_latex"]


def label_latex(label: str) -> str:
    r"""A result label (``"total"``, ``"per_class 1"``, ``"per_server 2"``, ``"lst 1"``) as a
    LaTeX label, each class or server name through :func:`symq.display.name_latex` (the one
    escaping of names in every LaTeX output).

    Parameters
    ----------
    label : str
        A label of :func:`symq.queries.quantities.flatten_result` (empty for a single value).

    Returns
    -------
    str
        LaTeX math-mode material (empty for an empty label).

    Examples
    --------
    >>> print(label_latex("per_class 1"), label_latex("total"), label_latex("lst a_b"))
    \text{class }1 \text{total} \text{lst}_{\text{a}\_\text{b}}

    Running time: O(len(label)).
    """
    from symq.display import name_latex, text_latex  # names are escaped by name_latex only
    if not label:
        return ""
    parts = label.split(" ", 1)
    key, rest = parts[0], (parts[1] if len(parts) > 1 else "")
    if key == "per_class":
        return r"\text{class }" + name_latex(rest) if rest else r"\text{class}"
    if key == "per_server":
        return r"\text{server }" + name_latex(rest) if rest else r"\text{server}"
    if key == "total":
        return r"\text{total}"
    return text_latex(key.replace("_", " ")) + (f"_{{{name_latex(rest)}}}" if rest else "")


def latex_rows(rows: list[tuple[str, str]]) -> str:
    r"""``[(label LaTeX, formula LaTeX)]`` as valid LaTeX: one formula alone in ``\[...\]``,
    several in one ``align*`` (``label &= formula``); a formula too wide for an A4 line is
    broken over several (:func:`symq.engines.formulas.render.broken_latex`), and the block then
    starts with a comment naming the preamble it needs.

    Parameters
    ----------
    rows : list of (str, str)
        Label LaTeX (may be empty) and formula LaTeX.

    Returns
    -------
    str
        A display-math LaTeX block.

    Examples
    --------
    >>> print(latex_rows([("", "x")]))
    \[
    x
    \]
    >>> print(latex_rows([("L_1", "x"), ("L_2", "y")]))
    \begin{align*}
    L_1 &= x \\
    L_2 &= y
    \end{align*}

    Running time: O(total length of the rows).
    """
    from symq.engines.formulas.paper import PAPER_UNITS
    from symq.engines.formulas.render import broken_latex, width  # long formulas: several lines
    room = PAPER_UNITS - max((width(label) for label, _ in rows), default=0)
    pieces = [(label, broken_latex(tex, max(room, PAPER_UNITS / 2))) for label, tex in rows]
    if len(pieces) == 1 and not pieces[0][0] and len(pieces[0][1]) == 1:
        return "\\[\n" + rows[0][1] + "\n\\]"
    lines = []
    for label, parts in pieces:
        lines.append(f"{label} &= {parts[0]}" if label else f"&{parts[0]}")
        lines += [f"&{part}" for part in parts[1:]]
    block = "\\begin{align*}\n" + " \\\\\n".join(lines) + "\n\\end{align*}"
    if any(len(parts) > 1 for _, parts in pieces):  # a block that may run over a page
        from symq.engines.formulas.paper import PREAMBLE
        block = "% Preamble: " + " and ".join(PREAMBLE) + " (long blocks break across pages).\n" \
            + block
    return block


def derive_result(result: Any, form: str, want: str = "all") -> dict[str, Any]:
    """``{"form", "structured" (or None), "result" (sympy shape or None), "text",
    "latex"}`` for ``symq derive``; ``want`` ``"text"`` or ``"latex"`` prints the expanded
    and factored forms only that way (the other entry is None: printing tens of megabytes
    twice costs seconds), ``"all"`` both (JSON).

    Parameters
    ----------
    result : symq.queries.solve.Result
        What :func:`symq.solve` answered: a structured formula, or exact values.
    form : str
        One of :data:`symq.engines.formulas.FORMS`.
    want : str
        ``"all"``, ``"text"`` or ``"latex"``.

    Returns
    -------
    dict
        The entries above (and ``"json_result"``, the result's shape for JSON).

    Raises
    ------
    ModelError
        An unknown form.

    Examples
    --------
    >>> import symq
    >>> out = derive_result(symq.solve("n", "empty-probability"), "factored")
    >>> out["form"], out["text"]
    ('factored', '-(lambda_1 - mu_1)*(lambda_1 + lambda_2 - mu_1 - mu_2)/(mu_1*(lambda_1 - mu_1 - mu_2))')

    Running time: that of :func:`symq.engines.formulas.structured`, plus for the expanded and factored
    forms that of :meth:`symq.engines.formulas.Structured.expanded_values` and the printing (linear
    in the size of the result).
    """
    if form not in FORMS:
        raise ModelError(f"unknown form {form!r}; available: {', '.join(FORMS)}")
    if result.formula is None:
        from symq.queries.solve import flatten_result, map_leaves
        exact = result.exact
        rows = flatten_result(exact)
        text = "\n".join(f"{printable(label)}: {expr}" if label else str(expr)
                         for label, expr in rows)
        tex = latex_rows([(label_latex(label), sympy.latex(expr)) for label, expr in rows])
        return {"form": "expanded" if form == "structured" else form, "structured": None,
                "result": exact, "text": text, "latex": tex,
                "json_result": map_leaves(exact, lambda e: {"expr": str(e),
                                                            "latex": sympy.latex(e)})}
    f = result.formula
    names = f.names
    if form == "structured":
        lines = [f"{d.name} = {f.text(d)}" for d in f.definitions]
        results = f.result_names()
        if len(results) == 1 and not results[0][0]:
            lines.append(f"result: {results[0][1]}")
        else:
            lines += [f"result {printable(label)}: {name}" for label, name in results]
        from symq.engines.formulas.paper import G_TEXT
        lines += [f"# {G_TEXT[g]}" for g in G_TEXT
                  if any(d.name == g or d.name.startswith(g + "__") for d in f.definitions)]
        return {"form": form, "structured": f, "result": None, "text": "\n".join(lines),
                "latex": f.paper_latex(), "json_result": None}
    texts = f.expanded_text(form) if want != "latex" else None
    lates = f.expanded_text(form, latex=True) if want != "text" else None
    labelled = f.result_names()
    text = tex = json_result = None
    if texts is not None:
        text = "\n".join(f"{printable(label)}: {t}" if label else t
                         for (label, _), t in zip(labelled, _flat(texts)))
    if lates is not None:
        tex = latex_rows([(names[name] if label else "", t)
                          for (label, name), t in zip(labelled, _flat(lates))])
    if texts is not None and lates is not None:
        json_result = _zip_shape(texts, lates)
    return {"form": form, "structured": f, "result": None, "text": text, "latex": tex,
            "json_result": json_result}


def _flat(shape: Any) -> list[Any]:
    if isinstance(shape, Mapping):
        out = []
        for v in shape.values():
            out += _flat(v)
        return out
    return [shape]


def _zip_shape(texts: Any, lates: Any) -> Any:
    if isinstance(texts, Mapping):
        return {k: _zip_shape(texts[k], lates[k]) for k in texts}
    return {"expr": texts, "latex": lates}
