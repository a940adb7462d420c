"""Command-line helpers shared by :mod:`symq.cli` and every module of :mod:`symq.commands`.

Argument helpers (``--format``/``--json``, ``--set``), parsing of ``--set`` values, JSON output,
the argument parser whose usage errors are one line, and the one place that turns a
:class:`symq.errors.SymqError` into one line on stderr and exit status 2. Command modules import
from here, never from :mod:`symq.cli`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable, Sequence

from ..errors import ModelError, SymqError
from ..rates import parse_rate

__all__ = ["add_format_arguments", "add_set_argument", "parse_settings", "emit_json",
           "model_with_values", "CommandParser", "run_handler"]


def add_format_arguments(parser: argparse.ArgumentParser) -> None:
    """``--format text|latex|json`` and ``--json``, accepted by every command."""
    parser.add_argument("--format", choices=("text", "latex", "json"), default="text",
                        help="output format (default: text)")
    parser.add_argument("--json", dest="format", action="store_const", const="json",
                        help="short for --format json")


def add_set_argument(parser: argparse.ArgumentParser) -> None:
    """``--set NAME=VALUE`` (repeatable), collected in ``args.settings``."""
    parser.add_argument("--set", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                        help="substitute an exact value (3/10, 2, 0.25 read as 1/4) for a symbol")


def parse_settings(settings: Sequence[str]) -> dict[str, str]:
    """``["lambda_1=3/10", ...]`` to ``{"lambda_1": "3/10"}``, with exact, positive values.

    Parameters
    ----------
    settings
        The ``--set`` arguments, each ``NAME=VALUE``.

    Returns
    -------
    dict
        Symbol name to the exact value as text.

    Raises
    ------
    ModelError
        A setting without ``=``, an empty name, a value that is not exact and positive, a name
        given twice.

    Examples
    --------
    >>> parse_settings(["lambda_1=3/10", "mu_1=0.25"])
    {'lambda_1': '3/10', 'mu_1': '1/4'}

    Running time: linear in the length of the settings.
    """
    values: dict[str, str] = {}
    for item in settings:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ModelError(f"--set {item!r}: write NAME=VALUE, e.g. --set lambda_1=3/10")
        if name in values:
            raise ModelError(f"--set {name} is given twice; give each symbol one value")
        values[name] = str(parse_rate(value, f"--set {name}"))
    return values


def emit_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout, with ``"schema_version"`` first
    (:mod:`symq.schema`; every field is listed on the docs page *JSON output*)."""
    from ..schema import with_schema_version
    print(json.dumps(with_schema_version(data), indent=2))


def model_with_values(args: argparse.Namespace):
    """``(base, model, values)``: the model named by ``args.model``, with ``--set`` applied.

    Raises
    ------
    ModelError
        An unknown model or a bad ``--set`` value.
    """
    from ..catalog import model as load_model

    base = load_model(args.model)
    values = parse_settings(getattr(args, "settings", []))
    return base, (base.substitute(values) if values else base), values


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr with exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"symq: error: {message} (see: {self.prog} --help)\n")


def run_handler(handler: Callable[[argparse.Namespace], Any], args: argparse.Namespace) -> int:
    """Run a command's handler; bad input becomes one line on stderr and exit status 2.

    Returns
    -------
    int
        The handler's exit status; 2 for a :class:`~symq.errors.SymqError` or a recursion too
        deep, 130 on Ctrl-C, 0 when stdout was closed early (``symq ... | head``).
    """
    try:
        return int(handler(args) or 0)
    except SymqError as error:
        print(f"symq: error: {error}", file=sys.stderr)
        return 2
    except RecursionError:
        print("symq: error: the model is too large for this computation", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into a command that stopped reading (e.g. head)
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
