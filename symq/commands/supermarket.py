r"""``symq supermarket MODEL [--weights NAME=VALUE ...] [--set ...]``: JLW clusters and drifts.
The model file is the one of compatibility models: classes are the neighbourhoods (arrival
streams), servers are the stations. Prints the hierarchical minimax decomposition (clusters
$C_k$ in decreasing drift order, drifts $V_k$, the streams $T_k$ feeding each cluster), the
stability verdict of JLW with these weights, and a static policy in $\Pi_K$ (numeric rates).

Examples
--------
``symq supermarket w --set lambda_1=2 --set lambda_2=1/2 --set lambda_3=1 --set mu_1=1 --set mu_2=1``

``symq supermarket model.toml --weights 1=2 3=1/2 --json``

``symq supermarket redundancy:4:2 --format latex``  (symbolic drifts)
"""

from __future__ import annotations

import argparse
from typing import Any

import sympy

from symq.models.catalog import model as load_model
from symq.commands.common import add_format_arguments, add_set_argument, emit_json, parse_settings
from symq.studies.supermarket.policy import parse_weight_settings
from symq.display import printable
from symq.errors import ModelError
from symq.arithmetic.numeric import decimal_string
from symq.studies.supermarket import Decomposition, certify_decomposition, decompose, decomposition_latex

__all__ = ["register", "run"]


def register(subparsers) -> None:
    """Add the ``supermarket`` subcommand.

    Parameters
    ----------
    subparsers : argparse subparsers action
        Where ``supermarket`` goes (with ``--set``, ``--weights``, ``--digits`` and the
        format options).

    Examples
    --------
    >>> from symq.cli import build_parser
    >>> build_parser("supermarket").parse_args(["supermarket", "n", "--weights", "1=2"]).weights
    ['1=2']

    Running time: O(1).
    """
    p = subparsers.add_parser(
        "supermarket", help="clusters and drifts of the JLW (supermarket) decomposition",
        description="Hierarchical minimax decomposition of the supermarket model with "
                    "join-the-least-weighted-queue routing: clusters C_k, weighted drifts V_k "
                    "(exact, by parametric max-flow), a static policy achieving them, and the "
                    "stability verdict (stable iff V_1 < 0). Classes are neighbourhoods, servers "
                    "are stations.")
    p.add_argument("model", help="built-in name or path to a TOML file")
    p.add_argument("--weights", action="extend", nargs="+", default=[], metavar="NAME=VALUE",
                   help="station weights w_j (exact positive numbers; default 1), e.g. "
                        "--weights 1=2 2=3/2")
    add_set_argument(p)
    from symq.commands.common import whole_number
    p.add_argument("--digits", type=whole_number("--digits"), default=30,
                   help="significant digits of the decimal drift values (default 30)")
    from symq.commands.common import add_limit_arguments
    add_limit_arguments(p, "arcs of the max-flows")
    add_format_arguments(p)
    p.set_defaults(handler=run)


def _json(decomposition: Decomposition, label: str, parameters: dict[str, str],
          digits: int) -> dict[str, Any]:
    numeric = decomposition.policy is not None
    clusters = []
    for c in decomposition.clusters:
        entry: dict[str, Any] = {"stations": list(c.stations), "drift": str(c.drift)}
        if not c.drift.free_symbols:
            entry["value"] = decimal_string(c.drift, digits)
        entry["latex"] = sympy.latex(c.drift)
        entry["streams"] = list(c.streams)
        if c.bonded is not None:
            entry["bonded"] = c.bonded
        clusters.append(entry)
    data: dict[str, Any] = {
        "model": label,
        "weights": {j: str(w) for j, w in decomposition.weights.items()},
        "clusters": clusters,
        "stable": decomposition.stable,
        "parameters": parameters,
        "message": decomposition.message(),
        "method": decomposition.method,
    }
    if decomposition.stable is None:
        data["stability_condition"] = f"{decomposition.top_drift} < 0"
    if decomposition.stable is False:
        data["violating_cluster"] = list(decomposition.clusters[0].stations)
    if numeric:
        data["policy"] = {i: {j: str(p) for j, p in row.items()}
                          for i, row in decomposition.policy.items()}
        data["certified"] = True
    else:
        data["validity_conditions"] = [f"{c} >= 0" for c in decomposition.conditions]
    return data


def run(args: argparse.Namespace) -> int:
    """Compute and print the decomposition; return the exit status.

    Parameters
    ----------
    args : argparse.Namespace
        The model, ``--set`` values, ``--weights`` and the output format.

    Returns
    -------
    int
        0, also for an unstable model (the verdict is printed).

    Raises
    ------
    ModelError
        ``--digits`` out of range, bad weights or rates.

    Examples
    --------
    >>> from symq.cli import build_parser
    >>> args = build_parser("supermarket").parse_args(
    ...     ["supermarket", "n", "--set", "lambda_1=3", "--set", "lambda_2=1", "--set", "mu_1=1",
    ...      "--set", "mu_2=1", "--json"])
    >>> import contextlib, io, json
    >>> with contextlib.redirect_stdout(io.StringIO()) as out:
    ...     status = run(args)
    >>> status, json.loads(out.getvalue())["stable"]
    (0, False)

    Running time: that of :func:`symq.studies.supermarket.decompose`.
    """
    if not 1 <= args.digits <= 10000:
        raise ModelError(f"--digits must be from 1 to 10000, not {args.digits}")
    base = load_model(args.model)
    values = parse_settings(args.settings)
    model = base.substitute(values) if values else base
    from symq.limits import limit_value
    decomposition = decompose(model, parse_weight_settings(args.weights),
                              max_arcs=limit_value("supermarket-work", args))
    if decomposition.policy is not None:
        certify_decomposition(decomposition)  # a second route to every printed number (docs/theory-supermarket.md §3.5)
    label = model.name or str(args.model)
    if args.format == "json":
        emit_json(_json(decomposition, label, values, args.digits))
        return 0
    if args.format == "latex":
        print(decomposition_latex(decomposition))
        print(f"% {printable(decomposition.message())}")
        return 0
    weights = ", ".join(f"{printable(j)}={w}" for j, w in decomposition.weights.items())
    print(f"model {printable(label)}: {len(model.servers)} stations, {len(model.classes)} neighbourhoods; "
          f"weights {weights}")
    width = max(len("{" + ", ".join(map(printable, c.stations)) + "}")
                for c in decomposition.clusters)
    print(f"{'k':>3}  {'cluster':<{width}}  drift")
    for k, c in enumerate(decomposition.clusters, start=1):
        stations = "{" + ", ".join(map(printable, c.stations)) + "}"
        shown = str(c.drift)
        if not c.drift.free_symbols and not c.drift.is_Integer:
            shown += f" = {decimal_string(c.drift, args.digits)}"
        print(f"{k:>3}  {stations:<{width}}  {shown}")
    print(printable(decomposition.message()))
    if decomposition.policy is not None:
        print("static policy in Pi_K (certified):")
        for i, row in decomposition.policy.items():
            print(f"  {printable(i)}: "
                  + ", ".join(f"{printable(j)}: {p}" for j, p in row.items()))
    return 0
