r"""The ``--gradient`` / ``--wrt NAME`` branches of ``symq evaluate`` and ``symq derive``:
partial derivatives, elasticities and derivative formulas (docs/sensitivities.md).

Examples
--------
``symq evaluate n empty-probability --set lambda_1=1/4 --set lambda_2=1/4 --set mu_1=1 --set mu_2=1 --wrt mu_2``

``symq derive n empty-probability --wrt lambda_2``
"""

from __future__ import annotations

import argparse
from typing import Any

from symq.errors import ModelError

__all__ = ["evaluate_gradient", "derive_gradient", "gradient_lines"]


def evaluate_gradient(args: argparse.Namespace, label: str) -> int:
    """``symq evaluate ... --gradient`` / ``--wrt NAME``: values, partial derivatives and
    elasticities (text, LaTeX-free text, or JSON).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``evaluate`` arguments.
    label : str
        The model's label for the JSON.

    Returns
    -------
    int
        The exit status (0).

    Raises
    ------
    ModelError
        A quantity without derivatives, an unknown rate name.

    Examples
    --------
    >>> from symq.cli import main
    >>> main(["evaluate", "n", "empty-probability", "--set", "lambda_1=1/4", "--set",
    ...       "lambda_2=1/4", "--set", "mu_1=1", "--set", "mu_2=1", "--wrt", "mu_2",
    ...       "--digits", "5"])
    9/14 = 0.64286
      d/dmu_2: 3/49 = 0.061224 (elasticity 0.095238)
    0

    Running time: that of :func:`symq.solve` with ``wrt`` (route ``reverse-mode``).
    """
    from symq.commands.common import emit_json, model_with_values
    from symq.progress import busy
    from symq.queries.solve import solve
    base, _, values = model_with_values(args)
    with busy(f"gradient of {args.quantity}"):
        result = solve(base, args.quantity, args.discipline, values or None,
                       digits=args.digits, exact=True if args.exact else None,
                       method=getattr(args, "method", "auto"), wrt=args.wrt or "all",
                       of=_labels(getattr(args, "of", None)), limits=args,
                       what=f"evaluate {args.model} {args.quantity}")
    if args.format == "json":
        emit_json({"model": label, "parameters": values, **result.as_json()})
        return 0
    print("\n".join(gradient_lines(result.gradient, args.digits, args.format == "latex")))
    return 0


def gradient_lines(gradient: Any, digits: int | None = None, latex: bool = False) -> list[str]:
    r"""The lines ``evaluate --gradient`` prints, names escaped for the output: in text each
    class or server name through :func:`symq.display.printable` (ESC, BEL, line breaks written
    out), in LaTeX through :func:`symq.display.name_latex` with the values as LaTeX fractions,
    ``\approx`` their decimals, and each derivative as $\partial/\partial x$.

    Parameters
    ----------
    gradient : symq.engines.sensitivity.Sensitivities
        Values, derivatives and elasticities of one quantity.
    digits : int, optional
        Digits of the decimals (default those computed with).
    latex : bool
        LaTeX (``--format latex``) instead of text.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from fractions import Fraction
    >>> from symq.engines.sensitivity import Sensitivities
    >>> g = Sensitivities("mean-number", "alis", "exact", ["class \x1b[2J"], ["mu_1"],
    ...                   {"mu_1": Fraction(1)}, {"class \x1b[2J": Fraction(1, 3)},
    ...                   {"class \x1b[2J": {"mu_1": Fraction(-1, 9)}},
    ...                   {"class \x1b[2J": {"mu_1": Fraction(-1, 3)}})
    >>> print("\n".join(gradient_lines(g, 4)))
    class \x1b[2J: 1/3 = 0.3333
      d/dmu_1: -1/9 = -0.1111 (elasticity -0.3333)
    >>> print("\n".join(gradient_lines(g, 4, latex=True)))
    \text{class }\backslash \text{x1b[2J}: \frac{1}{3} \approx 0.3333
    \quad \frac{\partial}{\partial \mu_{1}}: - \frac{1}{9} \approx -0.1111 \quad (\text{elasticity } -0.3333)

    Running time: O(outputs x rates) roundings.
    """
    import dataclasses

    from symq.display import printable
    if not latex:
        shown = {label: _label_text(label, printable) for label in gradient.labels}
        escaped = dataclasses.replace(
            gradient, labels=[shown[k] for k in gradient.labels],
            values={shown.get(k, k): v for k, v in gradient.values.items()},
            derivatives={shown.get(k, k): v for k, v in gradient.derivatives.items()},
            elasticities={shown.get(k, k): v for k, v in gradient.elasticities.items()})
        return escaped.lines(digits)
    import sympy

    from symq.arithmetic.numeric import round_fraction
    from symq.display import name_latex
    digits = digits or gradient.digits or 30

    def number(v: Any, with_exact: bool = True) -> str:
        if v is None:
            return r"\text{undefined}"
        if hasattr(v, "text") and hasattr(v, "lower"):  # a certified ball: its digits
            return v.text
        exact = sympy.Rational(v.numerator, v.denominator)
        if exact.is_Integer or not with_exact:
            return sympy.latex(exact) if exact.is_Integer else round_fraction(v, digits)
        return f"{sympy.latex(exact)} \\approx {round_fraction(v, digits)}"

    def label_tex(label: str) -> str:
        kind, _, name = label.partition(" ")
        if kind in ("class", "server") and name:
            return f"\\text{{{kind} }}{name_latex(name)}"
        return name_latex(label)

    out = []
    for label in gradient.labels:
        head = number(gradient.values[label])
        out.append(f"{label_tex(label)}: {head}" if label else head)
        for n in gradient.wrt if label in gradient.derivatives else ():
            symbol = sympy.latex(sympy.Symbol(n))
            d = number(gradient.derivatives[label][n])
            e = number(gradient.elasticities.get(label, {}).get(n), with_exact=False)
            out.append(f"\\quad \\frac{{\\partial}}{{\\partial {symbol}}}: {d} \\quad "
                       f"(\\text{{elasticity }} {e})")
    return out


def _label_text(label: str, printable: Any) -> str:
    """``class NAME`` / ``server NAME`` with the name through ``printable``."""
    kind, sep, name = label.partition(" ")
    return f"{kind}{sep}{printable(name)}" if sep else printable(label)


def _labels(of: list[str] | None) -> list[str] | None:
    """``--of total``, ``--of class:C``, ``--of server:S`` as the engine's output labels."""
    if not of:
        return None
    out = []
    for text in of:
        kind, sep, name = text.strip().replace(" ", ":", 1).partition(":")
        if kind == "total" and not sep:
            out.append("total")
        elif kind in ("class", "server") and name:
            out.append(f"{kind} {name}")
        else:
            raise ModelError(f"--of {text}: name an output as total, class:C or server:S")
    return out


def derive_gradient(args: argparse.Namespace, model: Any) -> Any:
    """``symq derive ... --wrt NAME`` / ``--gradient``: the partial derivatives as a structured
    formula (:func:`symq.solve` with ``wrt``, route ``derivative-formulas``); for numeric rates,
    as ``derive`` prints exact values there, the exact derivatives (route ``reverse-mode``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``derive`` arguments (``wrt``, ``gradient``, ``method``).
    model : Model
        The model with ``--set`` applied (symbolic rates).

    Returns
    -------
    Result
        Its ``formula`` the derivative formula, printed by ``derive`` like any structured
        formula (numeric rates: its ``gradient``, printed as ``evaluate --wrt`` prints it).

    Raises
    ------
    ModelError
        A quantity without derivative formulas, an unknown rate name.

    Examples
    --------
    >>> from symq.cli import main
    >>> main(["derive", "n", "empty-probability", "--wrt", "lambda_2", "--form", "factored"])
    -(lambda_1 - mu_1)/(mu_1*(lambda_1 - mu_1 - mu_2))
    0

    Running time: that of :func:`symq.engines.formulas.derivative.derivative`.
    """
    from symq.queries.routes import NORMALIZATION
    from symq.queries.solve import solve
    if args.quantity not in NORMALIZATION:
        raise ModelError(f"derive --wrt: {args.quantity} has no derivative formula; "
                         f"available: {', '.join(NORMALIZATION)}")
    return solve(model, args.quantity, args.discipline, exact=True,
                 method=getattr(args, "method", "auto"), wrt=args.wrt or "all", limits=args,
                 what=f"derive {args.model} {args.quantity}")
