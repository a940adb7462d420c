"""The ``symq`` command line (documented in docs/cli.md; JSON fields in docs/json-schema.md).
Core commands live here: ``list``, ``show``, ``derive``, ``evaluate``. Further commands are
modules of :mod:`symq.commands`, discovered at start-up. Bad input of any kind (unknown model,
malformed value, unstable rates) prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from typing import TYPE_CHECKING, Any, Sequence

from symq import commands
from symq.errors import ModelError

if TYPE_CHECKING:
    from symq.models.model import Model

# Start-up: sympy, python-flint, numpy and networkx are imported by the command that uses them,
# not here, so that ``symq --version``, ``symq --help``, ``symq list`` and ``symq routes`` start
# at once (benchmarks/startup_bench.py measures every subcommand; tests/test_startup.py bounds
# those four).
__all__ = ["main", "build_parser", "parse_settings", "add_format_arguments", "emit_json"]


def __getattr__(name: str):
    """The argument helpers re-exported from :mod:`symq.commands.common` (loaded on first use)."""
    if name in ("parse_settings", "add_format_arguments", "emit_json"):
        from symq.commands import common
        return getattr(common, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------------------- shared helpers
# (argument helpers, --set parsing, JSON output and error printing live in symq.commands.common)
def _label(args: argparse.Namespace, model: Model) -> str:
    return model.name or str(args.model)


# ---------------------------------------------------------------------------- list
def _run_list(args: argparse.Namespace) -> int:
    from symq.commands.common import emit_json
    from symq.models.catalog import BUILTIN_DESCRIPTIONS
    if args.format == "json":
        emit_json([{"name": n, "description": d} for n, d in BUILTIN_DESCRIPTIONS.items()])
        return 0
    width = max(map(len, BUILTIN_DESCRIPTIONS))
    for name, description in BUILTIN_DESCRIPTIONS.items():
        print(f"{name:<{width}}  {description}")
    return 0


# ---------------------------------------------------------------------------- show
def _set_text(items: Sequence[str]) -> str:
    return "{" + ", ".join(items) + "}"


def _show_data(model: Model, label: str) -> dict[str, Any]:
    import sympy

    from symq.engines.nested import is_nested, nesting_tree
    from symq.models.stability import never_stable, stability_conditions, stability_report
    data: dict[str, Any] = {
        "model": label,
        "classes": {i: {"arrival_rate": str(model.arrival_rates[i]),
                        "servers": list(model.compatibility[i]),
                        **({"abandonment_rate": str(model.abandonment_rates[i])}
                           if i in model.abandonment_rates else {})}
                    for i in model.classes},
        "servers": {j: {"service_rate": str(model.service_rates[j]),
                        "classes": list(model.classes_of([j]))} for j in model.servers},
        "nested": is_nested(model),
    }
    if data["nested"]:
        tree = nesting_tree(model)
        data["nesting_tree"] = [{"servers": sorted(s), "classes": list(tree.nodes[s]["classes"]),
                                 "contains": [sorted(c) for c in tree.successors(s)]}
                                for s in sorted(tree.nodes, key=lambda s: (len(s), sorted(s)))]
    if model.is_numeric:
        report = stability_report(model)
        data["stable"] = report.stable
        data["stability"] = {"margin": str(report.margin), "tightest_classes": list(report.classes),
                             "servers": list(report.servers), "load": str(report.load),
                             "capacity": str(report.capacity)}
    else:
        data["stability_conditions"] = [
            {"classes": list(a), "servers": list(b),
             "condition": f"{model.arrival_rate(a)} < {model.service_rate(b)}",
             "latex": f"{sympy.latex(model.arrival_rate(a))} < {sympy.latex(model.service_rate(b))}"}
            for a, b in stability_conditions(model)]
        found = never_stable(model)
        if found is not None:
            a, b = found
            data["never_stable"] = {
                "classes": list(a), "servers": list(b),
                "condition": f"{model.arrival_rate(a)} < {model.service_rate(b)}",
                "latex": f"{sympy.latex(model.arrival_rate(a))} < "
                         f"{sympy.latex(model.service_rate(b))}"}
    return data


def _run_show(args: argparse.Namespace) -> int:
    import sympy

    from symq.commands.common import emit_json, model_with_values
    from symq.display import name_latex, printable, set_display
    _, model, _ = model_with_values(args)
    data = _show_data(model, _label(args, model))
    if args.format == "json":
        emit_json(data)
        return 0
    latex = args.format == "latex"
    # names are data: LaTeX gets them through name_latex (no name can issue a command), text
    # through printable (no escape sequence reaches the terminal)
    rate = (lambda e: f"${sympy.latex(e)}$") if latex else str
    name = (lambda n: f"${name_latex(n)}$") if latex else printable
    names = (lambda ns: f"${set_display(ns)}$") if latex else \
        (lambda ns: _set_text([printable(n) for n in ns]))
    print(f"model {name(data['model'])}: {len(model.classes)} classes, {len(model.servers)} servers")
    print("classes:")
    for i in model.classes:
        print(f"  {name(i)}: arrival rate {rate(model.arrival_rates[i])}, servers "
              f"{names(model.compatibility[i])}")
    print("servers:")
    for j in model.servers:
        print(f"  {name(j)}: service rate {rate(model.service_rates[j])}, classes "
              f"{names(model.classes_of([j]))}")
    if data["nested"]:
        print("nested: yes; nesting tree (server set: classes; contained sets):")
        for node in data["nesting_tree"]:
            contains = ", ".join(names(c) for c in node["contains"]) or "-"
            print(f"  {names(node['servers'])}: classes {', '.join(map(name, node['classes']))}; "
                  f"contains {contains}")
    else:
        print("nested: no")
    if "stable" in data:
        s = data["stability"]
        verdict = "stable" if data["stable"] else "UNSTABLE"
        print(f"stability: {verdict}; tightest class set {names(s['tightest_classes'])} brings "
              f"{s['load']} to servers {names(s['servers'])} of capacity {s['capacity']}")
    else:
        print("stability conditions (redundant ones removed):")
        for c in data["stability_conditions"]:
            print(f"  ${c['latex']}$" if latex else f"  {c['condition']}")
        never = data.get("never_stable")
        if never:
            condition = f"${never['latex']}$" if latex else never["condition"]
            print(f"stability: NEVER STABLE; the condition {condition} of classes "
                  f"{names(never['classes'])} holds for no positive values of the rates, so no "
                  "quantity of this model exists")
    return 0


# ---------------------------------------------------------------------------- derive / evaluate
def _request_text(args: argparse.Namespace) -> str:
    """The request as the user wrote it, for the limits' messages."""
    return (f"{args.command} {args.model} {args.quantity}"
            + (f" --discipline {args.discipline}" if args.discipline != "collaborative" else "")
            + (f" --form {args.form}" if getattr(args, "form", "structured") != "structured"
               else ""))


def _evaluated_json(full: bool):
    """The JSON of an :class:`Evaluated`; an exact rational past the digit limit as its digit
    counts ``exact_digits: [numerator, denominator]`` unless ``full`` (``--full-exact``)."""
    from symq.arithmetic.numeric import EXACT_DIGITS, Evaluated, digit_count, exact_string

    def leaf(value: Evaluated) -> dict[str, Any]:
        data: dict[str, Any] = {"value": value.value} if value.value else {}
        exact = value.exact
        if exact is None:
            return data
        if not full and exact.is_Rational and \
                max(digit_count(exact.p), digit_count(exact.q)) > EXACT_DIGITS:
            return {"exact_digits": [digit_count(exact.p), digit_count(exact.q)], **data}
        return {"exact": exact_string(exact, full=True), **data}
    return leaf


def _law_parts(args: argparse.Namespace, model: Model) -> bool:
    """``derive ... response-time --form expanded|factored`` of a model with a closed-form law
    (nested, or small ALIS/RAIS): the law's own parts (LST, mean, variance, CDF), not the
    expansion of the structured transform."""
    if args.form == "structured" or args.quantity != "response-time":
        return False
    from symq.engines.aggregated import response_time_applies
    return response_time_applies(model, args.discipline)


def _run_derive(args: argparse.Namespace) -> int:
    from symq.commands.common import emit_json, model_with_values
    _, model, values = model_with_values(args)
    from symq.arithmetic.numeric import full_int_strings
    from symq.presentation.formula_output import derive_result
    from symq.progress import busy
    from symq.queries.solve import solve
    # a formula is printed in full, however long its numbers (Python's 4300-digit guard is
    # lifted for this output only)
    with full_int_strings(), busy(f"derive {args.quantity}"):
        if args.wrt or args.gradient:  # the chain rule through the definitions
            from symq.commands.gradient import derive_gradient
            result = derive_gradient(args, model)
            if result.gradient is not None:  # numeric rates: the exact derivatives
                if args.format == "json":
                    emit_json({"model": _label(args, model), "parameters": values,
                               **result.as_json()})
                else:
                    print("\n".join(result.gradient.lines()))
                return 0
        else:
            result = solve(model, args.quantity, args.discipline, exact=True,
                           method=args.method, limits=args,
                           form="expression" if _law_parts(args, model) else "structured",
                           what=_request_text(args))
        if result.formula is not None and args.form != "structured":
            from symq.queries.estimates import check_expanded
            check_expanded(model, args.quantity, args.discipline, _request_text(args), args)
        out = derive_result(result, args.form,
                            want={"latex": "latex", "json": "all"}.get(args.format, "text"))
    with full_int_strings():
        if args.format == "json":
            data = {"model": _label(args, model), "quantity": args.quantity,
                    "discipline": args.discipline, "route": result.route,
                    "method": result.method, "arithmetic": result.arithmetic,
                    "parameters": values, "form": out["form"]}
            if out["structured"] is not None:
                data["structured"] = out["structured"].as_json()
            if out["json_result"] is not None:
                data["result"] = out["json_result"]
            emit_json(data)
            return 0
        print(out["latex"] if args.format == "latex" else out["text"])
    return 0


def _run_evaluate(args: argparse.Namespace) -> int:
    from symq.commands.common import emit_json, model_with_values
    from symq.queries.quantities import flatten_result
    _, model, values = model_with_values(args)
    if not model.is_numeric:
        missing = ", ".join(sorted(s.name for s in model.symbols))
        raise ModelError(f"evaluate needs a value for every symbol; missing: {missing} "
                         "(give each with --set NAME=VALUE)")
    from symq.progress import busy
    from symq.queries.response_time import check_options
    from symq.queries.solve import map_leaves, solve
    check_options(args.quantity, args.time, args.percentile)
    if args.gradient or args.wrt:  # derivatives (docs/sensitivities.md)
        from symq.commands.gradient import evaluate_gradient
        return evaluate_gradient(args, _label(args, model))
    with busy(f"evaluate {args.quantity}"):  # on a terminal: 'working, 0:05 elapsed'
        result = solve(model, args.quantity, args.discipline, digits=args.digits,
                       exact=True if args.exact else None, method=args.method,
                       time=args.time, percentile=args.percentile, limits=args,
                       what=_request_text(args))
    if args.format == "json":
        emit_json({"model": _label(args, model), "quantity": args.quantity,
                   "discipline": args.discipline, "route": result.route,
                   "method": result.method, "arithmetic": result.arithmetic,
                   "parameters": values, "digits": args.digits,
                   "result": map_leaves(result.items, _evaluated_json(args.full_exact))})
        return 0
    from symq.arithmetic.numeric import exact_string
    for label, value in flatten_result(result.items):
        exact = value.exact
        latex = args.format == "latex"
        if not value.value:  # a function of theta or t (an LST, a CDF): exact only
            shown = exact_string(exact, full=True, latex=latex)
        elif latex:
            shown = (f"{exact_string(exact, args.full_exact, latex=True)} \\approx {value.value}"
                     if exact is not None else value.value)
        else:
            shown = f"{exact_string(exact, args.full_exact)} = {value.value}" \
                if exact is not None and not exact.is_Integer else value.value
        if label:  # names are data: escaped for LaTeX, non-printable characters written out
            from symq.display import printable
            from symq.presentation.formula_output import label_latex
            label = label_latex(label) if latex else printable(label)
        print(f"{label}: {shown}" if label else shown)
    return 0


def _run_routes(args: argparse.Namespace) -> int:
    from symq.commands.common import emit_json
    from symq.queries.routes import table_rows
    rows = table_rows()
    if args.format == "json":
        emit_json({"routes": rows})
        return 0
    for k, row in enumerate(rows, 1):
        print(f"{k:2d}. {row['route']}: {row['summary']}")
        print(f"      quantities: {row['quantities']}")
        print(f"      disciplines: {row['disciplines']}; arithmetic: {row['arithmetic']}; "
              f"work estimate: {row['estimate']}")
    return 0


# ---------------------------------------------------------------------------- parser
def _digits(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--digits {text!r} is not a whole number") from None
    if not 1 <= value <= 10000:
        raise argparse.ArgumentTypeError(f"--digits must be from 1 to 10000, not {value}")
    return value


class _VersionAction(argparse.Action):
    """``--version``: the installed version (package metadata), looked up only when asked."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import PackageNotFoundError, version
        try:
            text = version("symq")
        except PackageNotFoundError:
            from symq import __version__ as text
        print(f"symq {text}")
        parser.exit(0)


_CORE_COMMANDS = ("list", "routes", "show", "derive", "evaluate")
_CORE_HELP = {"list": "built-in models",
              "routes": "the route table: which engine answers which request",
              "show": "classes, servers, nesting tree, stability conditions",
              "derive": "the symbolic formula of a quantity",
              "evaluate": "exact value and decimal digits"}
_DESCRIPTION = "Exact, symbolic queueing theory for FCFS models with compatibility graphs."


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line (the first word not starting with '-')."""
    for word in argv:
        if not word.startswith("-"):
            return word
    return None


def _command_modules() -> list[str]:
    """The modules of :mod:`symq.commands`, by name (none is imported)."""
    return sorted(info.name for info in pkgutil.iter_modules(commands.__path__))


_NO_COMMAND = ""  # _literal_help: the module registers no subcommand (a helper module)


def _literal_help(name: str) -> str | None:
    """The ``help=`` text of ``subparsers.add_parser(name, help=...)`` in the source of
    ``symq.commands.<name>`` when it is a string literal, read without importing the module (and
    the sympy, numpy or matplotlib it imports); ``_NO_COMMAND`` for a helper module (no
    ``register`` function); None when the module computes its help."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec(f"{commands.__name__}.{name}")
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    with open(spec.origin, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    if not any(isinstance(node, ast.FunctionDef) and node.name == "register" for node in tree.body):
        return _NO_COMMAND
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "add_parser" and node.args and \
                isinstance(node.args[0], ast.Constant) and node.args[0].value == name:
            for keyword in node.keywords:
                if keyword.arg == "help" and isinstance(keyword.value, ast.Constant) and \
                        isinstance(keyword.value.value, str):
                    return keyword.value.value
    return None


class _TopParser(argparse.ArgumentParser):
    """The parser of ``symq --help`` and ``symq --version``: usage errors as one line (as
    :class:`symq.commands.common.CommandParser`, which this module does not import for them)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"symq: error: {message} (see: {self.prog} --help)\n")


def _top_parser() -> argparse.ArgumentParser:
    """The parser for a command line that names no subcommand (``--help``, ``--version``): every
    subcommand with its one-line help and no arguments. The help of a command module is read from
    its source (:func:`_literal_help`); a module whose help is computed is imported and registered.
    Its help text equals that of :func:`build_parser` (tests/test_startup.py)."""
    parser = _TopParser(prog="symq", description=_DESCRIPTION)
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in _CORE_COMMANDS:
        sub.add_parser(name, help=_CORE_HELP[name])
    for name in _command_modules():
        text = _literal_help(name)
        if text == _NO_COMMAND:
            continue
        if text is not None:
            sub.add_parser(name, help=text)
            continue
        module = importlib.import_module(f"{commands.__name__}.{name}")
        if hasattr(module, "register"):
            module.register(sub)
    return parser


def _add_quantity_commands(sub) -> None:
    """The arguments of ``derive`` and ``evaluate``."""
    from symq.commands.common import add_format_arguments, add_limit_arguments, add_set_argument
    from symq.queries.quantities import DISCIPLINES, QUANTITIES

    for name, handler in (("derive", _run_derive), ("evaluate", _run_evaluate)):
        p = sub.add_parser(name, help=_CORE_HELP[name])
        p.add_argument("model", help="built-in name or path to a TOML file")
        p.add_argument("quantity", choices=list(QUANTITIES), metavar="QUANTITY",
                       help="one of: " + ", ".join(QUANTITIES))
        p.add_argument("--discipline", choices=DISCIPLINES, default="collaborative")
        add_set_argument(p)
        p.add_argument("--method", default="auto", metavar="ROUTE",
                       help="auto (default) or the name of a route of `symq routes`")
        if name == "derive":
            p.add_argument("--form", choices=("structured", "expanded", "factored"),
                           default="structured",
                           help="structured (named intermediate quantities, then the quantity; "
                                "default), expanded (one cancelled rational function) or "
                                "factored (its numerator and denominator factored)")
        if name == "evaluate":
            p.add_argument("--digits", type=_digits, default=30,
                           help="significant digits of the decimal value (default 30)")
            p.add_argument("--exact", action="store_true",
                           help="exact rationals even where they are large (default: exact where "
                                "cheap, else certified ball arithmetic; both print only correct "
                                "digits)")
            p.add_argument("--time", metavar="T",
                           help="time T of response-time-survival and waiting-time-survival "
                                "(exact: 1, 3/2, 0.5)")
            p.add_argument("--percentile", metavar="P",
                           help="with response-time or waiting-time: the P-th percentile per "
                                "class, 0 < P < 100")
        p.add_argument("--gradient", action="store_true",
                       help="every partial derivative by the rates (evaluate: and the "
                            "elasticity d log Q / d log x; docs/sensitivities.md)")
        p.add_argument("--wrt", action="append", metavar="NAME",
                       help="the partial derivative by the rate NAME (repeatable; "
                            "docs/sensitivities.md)")
        if name == "evaluate":
            p.add_argument("--of", action="append", metavar="OUTPUT",
                           help="with --gradient/--wrt: only the derivatives of this output "
                                "(total, class:C or server:S; repeatable)")
            p.add_argument("--full-exact", action="store_true",
                           help="print exact rationals in full even beyond 4300 digits (default: "
                                "their digit counts; the decimal value is always printed)")
        add_limit_arguments(p, "subset-DP steps")
        add_format_arguments(p)
        p.set_defaults(handler=handler)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser, with the discovered subcommands of :mod:`symq.commands`.

    With ``command`` one of the core commands (list, routes, show, derive, evaluate) no module of
    :mod:`symq.commands` is imported (start-up time), and ``derive``/``evaluate`` get their
    arguments (and the quantity registry they list) only when named; with the name of a module
    there, only that module; otherwise (``None``, an unknown word) all of them.

    Parameters
    ----------
    command : str, optional
        The first word of the command line.

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> "evaluate" in build_parser("evaluate").format_help()
    True

    Running time: the imports of the command modules it loads.
    """
    from symq.commands.common import CommandParser, add_format_arguments, add_set_argument

    parser = CommandParser(prog="symq", description=_DESCRIPTION)
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("list", help=_CORE_HELP["list"])
    add_format_arguments(p)
    p.set_defaults(handler=_run_list)

    p = sub.add_parser("routes", help=_CORE_HELP["routes"])
    add_format_arguments(p)
    p.set_defaults(handler=_run_routes)

    p = sub.add_parser("show", help=_CORE_HELP["show"])
    p.add_argument("model", help="built-in name or path to a TOML file")
    add_set_argument(p)
    add_format_arguments(p)
    p.set_defaults(handler=_run_show)

    if command in ("list", "routes", "show"):  # derive and evaluate are named, not built
        sub.add_parser("derive", help=_CORE_HELP["derive"])
        sub.add_parser("evaluate", help=_CORE_HELP["evaluate"])
    else:
        _add_quantity_commands(sub)

    names = _command_modules()
    if command in _CORE_COMMANDS:
        names = []
    elif command in names:
        names = [command]
    for name in names:
        module = importlib.import_module(f"{commands.__name__}.{name}")
        if hasattr(module, "register"):  # helper modules such as commands.common register nothing
            module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (2 for bad input).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after ``symq`` (``sys.argv[1:]`` by default).

    Returns
    -------
    int
        0 on success, 1 for a failed check (``verify``), 2 for bad input or a symq error.

    Examples
    --------
    >>> main(["evaluate", "n", "empty-probability", "--set", "lambda_1=1/4", "--set",
    ...       "lambda_2=1/4", "--set", "mu_1=1", "--set", "mu_2=1", "--digits", "5"])
    9/14 = 0.64286
    0

    Running time: that of the command.
    """
    words = list(sys.argv[1:] if argv is None else argv)
    command = _command_of(words)
    if command is None and {"-h", "--help", "--version"} & set(words):
        parser = _top_parser()  # no subcommand: only the names and help lines of all of them
    else:
        parser = build_parser(command)
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return int(stop.code or 0)
    from symq.commands.common import run_handler
    return run_handler(args.handler, args)


if __name__ == "__main__":
    sys.exit(main())
