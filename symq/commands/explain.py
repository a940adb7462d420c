r"""``symq explain MODEL QUANTITY [--discipline D] [--set NAME=VALUE ...] [--digits N] [--exact]
[--method ROUTE] [--form F] [--gradient | --wrt NAME]``: the plan of one request, like a
database's EXPLAIN: every (route, arithmetic) pair of the route table with whether it applies
(or why not), the work it counts, its predicted CPU seconds, and the one that would run. Nothing
is computed beyond the counts (docs/cli.md).

Examples
--------
``symq explain ring:4 mean-number``

``symq explain w mean-number --discipline alis --set lambda_1=3/10 --set lambda_2=1/5 --set lambda_3=1/2 --set mu_1=1 --set mu_2=4/5``
"""

from __future__ import annotations

import argparse

__all__ = ["register", "run"]


def register(subparsers) -> None:
    """Add the ``explain`` subcommand.

    Parameters
    ----------
    subparsers : argparse subparsers action
        Where ``explain`` is added.

    Examples
    --------
    >>> import argparse
    >>> sub = argparse.ArgumentParser(prog="symq").add_subparsers(dest="command")
    >>> register(sub)
    >>> sorted(sub.choices)
    ['explain']

    Running time: O(1).
    """
    from symq.commands.common import (add_format_arguments, add_limit_arguments,
                                      add_set_argument, whole_number)
    from symq.models.model import DISCIPLINES
    from symq.queries.routes import QUANTITIES
    p = subparsers.add_parser("explain", help="the plan of a request: every route with applies "
                              "or why not, its counted work and predicted seconds, and the one "
                              "that would run")
    p.add_argument("model", help="built-in name or path to a TOML file")
    p.add_argument("quantity", choices=list(QUANTITIES), metavar="QUANTITY",
                   help="one of: " + ", ".join(QUANTITIES))
    p.add_argument("--discipline", choices=list(DISCIPLINES), default="collaborative")
    add_set_argument(p)
    p.add_argument("--method", default="auto", metavar="ROUTE",
                   help="auto (default), a route of `symq routes`, or interval/ball")
    p.add_argument("--digits", type=whole_number("--digits", 1, 10000), default=30,
                   help="significant digits (default 30)")
    p.add_argument("--exact", action="store_true", help="exact rationals only")
    p.add_argument("--form", choices=("structured", "expanded", "factored"),
                   default="structured", help="as derive: structured, or one expression")
    p.add_argument("--gradient", action="store_true", help="plan the partial derivatives")
    p.add_argument("--wrt", action="append", metavar="NAME",
                   help="plan the partial derivative by NAME (repeatable)")
    add_limit_arguments(p, "the unit of the chosen route's limit")
    add_format_arguments(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the plan (``--json``: its fields).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``explain`` arguments.

    Returns
    -------
    int
        0.

    Examples
    --------
    >>> from symq.cli import main
    >>> main(["explain", "n", "mean-number", "--json"])  # doctest: +ELLIPSIS
    {...
    0

    Running time: that of :func:`symq.queries.plan.plan` (counts, no computation).
    """
    from symq.commands.common import emit_json, model_with_values
    from symq.display import printable
    from symq.queries.plan import plan
    from symq.queries.request import build_request
    _, model, values = model_with_values(args)
    wrt = "all" if args.gradient else args.wrt
    request = build_request(model, args.quantity, args.discipline, digits=args.digits,
                            exact=True if args.exact else None, method=args.method,
                            form="structured" if args.form == "structured" else "expression",
                            wrt=wrt, limits=args)
    chosen = plan(request)
    if args.format == "json":
        emit_json({"model": model.name or str(args.model), "parameters": values,
                   **chosen.as_json()})
        return 0
    print("\n".join(printable(line) for line in chosen.lines()))
    return 0
