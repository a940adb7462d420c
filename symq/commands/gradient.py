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

__all__ = ["evaluate_gradient", "derive_gradient"]


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
    print("\n".join(result.gradient.lines(args.digits)))
    return 0


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
