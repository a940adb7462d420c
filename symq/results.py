r"""How quantity results look in Jupyter: a mapping result (per class, per server) is a
:class:`QuantityResult`, a ``dict`` that also renders as a LaTeX table.

The functions of :mod:`symq` (``mean_number``, ``derive``, ``evaluate``, ...) return either one
value (a sympy expression, which Jupyter already shows as math, or an
:class:`~symq.quantities.Evaluated`) or a mapping such as ``{"total": ..., "per_class": {...}}``.
A plain dict would show in a notebook as its ``repr``: raw strings. :class:`QuantityResult` keeps
every dict behaviour (equality, ``json.dumps``, ``isinstance(x, dict)``) and adds
``_repr_latex_`` and ``_repr_html_``.

Examples
--------
>>> import sympy
>>> r = QuantityResult({"total": sympy.Rational(14, 15), "per_class": {"1": sympy.Rational(11, 30)}})
>>> r == {"total": sympy.Rational(14, 15), "per_class": {"1": sympy.Rational(11, 30)}}
True
>>> print(r._repr_latex_())
$\begin{array}{ll} \text{total} & \frac{14}{15} \\ \text{class 1} & \frac{11}{30} \end{array}$
"""

from __future__ import annotations

import html
from typing import Any, Mapping

__all__ = ["QuantityResult", "as_result"]

_LABELS = {"per_class": "class", "per_server": "server"}


def _cell(value: Any) -> str:
    import sympy
    latex = getattr(value, "_repr_latex_", None)
    if latex is not None and not isinstance(value, sympy.Basic):
        return latex().strip("$")
    try:
        return sympy.latex(value)
    except Exception:  # pragma: no cover - an unusual leaf
        return f"\\text{{{value}}}"


def _rows(result: Mapping[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for key, part in result.items():
        if isinstance(part, Mapping):
            word = _LABELS.get(key, key)
            rows += [(f"{word} {name}", _cell(value)) for name, value in part.items()]
        else:
            rows.append((key, _cell(part)))
    return rows


class QuantityResult(dict):
    """A per-class / per-server result: a ``dict`` that Jupyter shows as a table of formulas."""

    def _repr_latex_(self) -> str:
        body = " \\\\ ".join(f"\\text{{{label.replace('_', ' ')}}} & {cell}"
                             for label, cell in _rows(self))
        return f"$\\begin{{array}}{{ll}} {body} \\end{{array}}$"

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><td>{html.escape(label)}</td><td>\\({html.escape(cell)}\\)</td></tr>"
                       for label, cell in _rows(self))
        return f'<table class="symq-result">{rows}</table>'


def as_result(result: Any) -> Any:
    """``result`` as a :class:`QuantityResult` when it is a plain mapping; otherwise unchanged."""
    if isinstance(result, Mapping) and not isinstance(result, QuantityResult):
        return QuantityResult(result)
    return result
