r"""``symq uninformed theorem|law``: Cabral's M/M/n with uninformed customers.
``symq uninformed theorem --servers 4`` prints the sign certificates that prove Theorem 2.1 of
Cabral for 4 servers (every ordered pair of servers, all three inequalities, with
$\mu^n = \lambda + \delta$; ``--check`` re-verifies each independently, ``--reverse`` searches
the reversed, false inequalities and exits with status 1, as whenever a certificate is missing),
and ``symq uninformed law --servers 3`` prints the closed-form law ($p_0$, $\mathcal P_l$, the
all-busy probability and the mean number in system); see docs/uninformed.md and docs/cli.md.
"""

from __future__ import annotations

import argparse

import sympy
from sympy.polys.fields import field

from symq.commands.common import add_format_arguments, emit_json
from symq.errors import ModelError
from symq.studies.uninformed import (all_busy_probability, busy_probability, check_certificate,
                          theorem_2_1_certificates, theorem_2_1_differences,
                          uninformed_empty_probability, uninformed_mean_number, uninformed_queue)

__all__ = ["register", "run"]

MAX_SERVERS = 7


def _servers(text: str) -> int:
    from symq.arithmetic.expressions import check_ascii
    try:
        check_ascii(text, "--servers")
    except ModelError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--servers {text!r} is not a whole number") from None
    if not 1 <= value <= MAX_SERVERS:
        raise argparse.ArgumentTypeError(f"--servers must be from 1 to {MAX_SERVERS} (symbolic "
                                         f"work grows fast), not {value}")
    return value


def register(subparsers) -> None:
    """Add the ``uninformed`` subcommand.

    Parameters
    ----------
    subparsers : argparse subparsers action
        The ``symq`` subcommands; ``uninformed`` takes ``theorem`` or ``law``.

    Examples
    --------
    >>> import symq.cli
    >>> parsed = symq.cli.build_parser("uninformed").parse_args(["uninformed", "law",
    ...                                                         "--servers", "3"])
    >>> parsed.action, parsed.servers
    ('law', 3)

    Running time: O(1).
    """
    p = subparsers.add_parser(
        "uninformed", help="M/M/n with heterogeneous servers and uninformed customers (Cabral)",
        description="Cabral's M/M/n queue where an arrival picks an idle server uniformly at "
                    "random: the closed-form law, and sign certificates proving Theorem 2.1.")
    p.add_argument("action", choices=("theorem", "law"),
                   help="theorem: certificates of Theorem 2.1; law: closed-form quantities")
    p.add_argument("--servers", type=_servers, required=True, help="number of servers n")
    p.add_argument("--check", action="store_true",
                   help="theorem: re-verify every certificate independently (slower)")
    p.add_argument("--reverse", action="store_true",
                   help="theorem: search certificates for the reversed (false) inequalities")
    add_format_arguments(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``symq uninformed``; 0 when every certificate was found (and checked), else 1.

    Parameters
    ----------
    args : argparse.Namespace
        ``theorem`` or ``law``, ``--servers`` and the flags of :func:`register`.

    Returns
    -------
    int
        1 when a certificate is missing (``theorem``), else 0.

    Examples
    --------
    >>> from symq.cli import build_parser
    >>> args = build_parser("uninformed").parse_args(["uninformed", "law", "--servers", "1"])
    >>> run(args)
    p_0 = -(lambda - mu_1)/mu_1
    P_1 = lambda/mu_1
    P_all_busy = lambda/mu_1
    N = -lambda/(lambda - mu_1)
    0

    Running time: law O(n^2); theorem the certificate search of :mod:`symq.studies.uninformed.theorem`.
    """
    if args.action == "law":
        return _run_law(args)
    return _run_theorem(args)


def _run_theorem(args: argparse.Namespace) -> int:
    n = args.servers
    if n < 2:
        raise ModelError("Theorem 2.1 compares two servers; give --servers 2 or more")
    certificates = theorem_2_1_certificates(n, reverse=args.reverse)
    problems: list[str] = []
    if args.check:
        plain = uninformed_queue(n)
        delta = certificates[0].variables[1]
        relation = {delta: plain.total_rate - plain.arrival_rate}
        domain, *_ = field([plain.arrival_rate, *plain.service_rates.values()], sympy.QQ)
        cache: dict[tuple[str, str], dict] = {}
        for cert in certificates:
            if cert.pair not in cache:
                cache[cert.pair] = theorem_2_1_differences(plain, *cert.pair, by_states=True,
                                                           domain=domain)
            problems += check_certificate(cert, cache[cert.pair][cert.inequality], relation)
    proved = all(c.proved for c in certificates) and not problems
    verdict = ("VERIFIED" if proved else "NOT VERIFIED")
    if args.format == "json":
        emit_json({"servers": n, "reverse": args.reverse, "checked": args.check,
                   "substitution": "mu^n = lambda + delta, delta > 0",
                   "certificates": [c.as_json() for c in certificates],
                   "problems": problems, "proved": proved, "verdict": verdict})
    elif args.format == "latex":
        print(f"% Theorem 2.1 of Cabral, n = {n}; substitution $\\mu^n = \\lambda + \\delta$")
        for c in certificates:
            print("\\[\n" + c.latex() + "\n\\]")
        for problem in problems:
            print(f"% problem: {problem}")
        print(f"% {verdict}")
    else:
        for c in certificates:
            print(c.text())
        for problem in problems:
            print(f"problem: {problem}")
        found = sum(c.proved for c in certificates)
        print(f"{found} of {len(certificates)} certificates found"
              + (", all re-checked" if args.check and not problems else "") + f": {verdict}")
    return 0 if proved else 1


def _run_law(args: argparse.Namespace) -> int:
    queue = uninformed_queue(args.servers)
    rows = [("p_0", uninformed_empty_probability(queue))]
    rows += [(f"P_{j}", busy_probability(queue, j)) for j in queue.servers]
    rows += [("P_all_busy", all_busy_probability(queue)), ("N", uninformed_mean_number(queue))]
    if args.servers <= 3:  # small enough to show as one factored fraction
        rows = [(name, sympy.factor(sympy.cancel(expr))) for name, expr in rows]
    if args.format == "json":
        emit_json({"servers": args.servers,
                   "quantities": {name: {"expr": str(e), "latex": sympy.latex(e)}
                                  for name, e in rows}})
        return 0
    for name, expr in rows:
        print(f"{name} = {sympy.latex(expr) if args.format == 'latex' else expr}")
    return 0
