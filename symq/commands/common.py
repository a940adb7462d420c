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

from symq.arithmetic.expressions import check_ascii
from symq.errors import ModelError, SymqError
from symq.models.rates import RateText

__all__ = ["add_format_arguments", "add_set_argument", "add_limit_arguments", "parse_settings",
           "emit_json", "model_with_values", "CommandParser", "run_handler", "whole_number",
           "check_output_path", "write_text"]


def add_format_arguments(parser: argparse.ArgumentParser) -> None:
    """``--format text|latex|json`` and ``--json``, accepted by every command.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A subcommand's parser; ``args.format`` is set.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_format_arguments(parser)
    >>> parser.parse_args(["--json"]).format
    'json'

    Running time: O(1).
    """
    parser.add_argument("--format", choices=("text", "latex", "json"), default="text",
                        help="output format (default: text)")
    parser.add_argument("--json", dest="format", action="store_const", const="json",
                        help="short for --format json")


def add_set_argument(parser: argparse.ArgumentParser) -> None:
    """``--set NAME=VALUE`` (repeatable), collected in ``args.settings``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser that takes rate values; :func:`parse_settings` reads them later.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_set_argument(parser)
    >>> parser.parse_args(["--set", "mu=2", "--set", "lambda=1"]).settings
    ['mu=2', 'lambda=1']

    Running time: O(1).
    """
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
        Symbol name to the exact value as text (a :class:`~symq.models.rates.RateText`: it
        keeps the parsed value and the text as written, so the value is never read twice).

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
        values[name] = RateText.read(value, f"--set {name}")
    return values


def emit_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout, with ``"schema_version"`` first
    (:mod:`symq.schema`; every field is listed on the docs page *JSON output*).

    Parameters
    ----------
    data : object
        JSON-serialisable.

    Examples
    --------
    >>> emit_json({"ok": True})
    {
      "schema_version": 1,
      "ok": true
    }

    Running time: O(size of ``data``).
    """
    from symq.schema import with_schema_version
    print(json.dumps(with_schema_version(data), indent=2))


def model_with_values(args: argparse.Namespace):
    """``(base, model, values)``: the model named by ``args.model``, with ``--set`` applied.

    Parameters
    ----------
    args : argparse.Namespace
        With ``model`` and, optionally, ``settings``.

    Returns
    -------
    tuple
        The catalog model, the substituted model and the parsed values.

    Raises
    ------
    ModelError
        An unknown model or a bad ``--set`` value.

    Examples
    --------
    >>> import argparse
    >>> base, m, values = model_with_values(argparse.Namespace(model="n", settings=["mu_1=2"]))
    >>> values, m.service_rates["1"]
    ({'mu_1': '2'}, 2)

    Running time: that of :func:`symq.models.catalog.model` and one substitution.
    """
    from symq.models.catalog import model as load_model

    base = load_model(args.model)
    values = parse_settings(getattr(args, "settings", []))
    return base, (base.substitute(values) if values else base), values


#: the longest integer a command prints (Python's own guard is 4,300 digits)
MAX_PRINTED_DIGITS = 100_000


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr with exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"symq: error: {message} (see: {self.prog} --help)\n")


def run_handler(handler: Callable[[argparse.Namespace], Any], args: argparse.Namespace) -> int:
    """Run a command's handler; bad input becomes one line on stderr and exit status 2.

    Parameters
    ----------
    handler : callable
        ``handler(args)`` returns an exit status or None.
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The handler's exit status; 2 for a :class:`~symq.errors.SymqError`, a recursion too
        deep or an integer past :data:`MAX_PRINTED_DIGITS` digits, 130 on Ctrl-C, 0 when stdout
        was closed early (``symq ... | head``).

    Raises
    ------
    Exception
        Any other exception of the handler (a bug: its traceback is shown).

    Examples
    --------
    >>> from symq.errors import ModelError
    >>> def refuse(args):
    ...     raise ModelError("bad rate")
    >>> run_handler(refuse, None)
    2

    Running time: that of ``handler``.
    """
    before = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else None
    try:
        if before is not None and 0 < before < MAX_PRINTED_DIGITS:
            # exact results of rates within the grammar's 4,000 digits (a sum of two such
            # rates has 8,000) print in full; Python's guard stays on past that
            sys.set_int_max_str_digits(MAX_PRINTED_DIGITS)
        return int(handler(args) or 0)
    except SymqError as error:
        from symq.display import printable  # a name in a message cannot drive the terminal
        print(f"symq: error: {printable(error)}", file=sys.stderr)
        return 2
    except ValueError as error:
        if "integer string conversion" not in str(error):
            raise
        print(f"symq: error: a number of the result has more than {MAX_PRINTED_DIGITS:,} "
              "digits, more than symq prints; give rates with fewer digits", file=sys.stderr)
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
    finally:
        if before is not None:
            sys.set_int_max_str_digits(before)


def add_limit_arguments(parser: argparse.ArgumentParser, unit: str) -> None:
    """``--max-work N`` and ``--no-limits``: raise or lift the size limits of :mod:`symq.limits`.

    ``unit`` says what N counts for this command (its limit in docs/security.md).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of a command that can be slow.
    unit : str
        Words for what ``--max-work`` counts there.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_limit_arguments(parser, "states")
    >>> parser.parse_args(["--max-work", "10"]).max_work
    10

    Running time: O(1).
    """
    parser.add_argument("--max-work", type=_whole("--max-work"), default=None, metavar="N",
                        help=f"refuse only past N {unit} (default: the documented limit; "
                             "see docs/security.md)")
    parser.add_argument("--no-limits", action="store_true",
                        help="no size limits: go ahead however long the estimate")


def _whole(option: str, low: int = 1, high: int | None = None):
    """An argparse type: a whole number from ``low`` to ``high``, one-line error otherwise.

    Parameters
    ----------
    option : str
        The option's name, for the message.
    low, high : int
        The bounds (``high=None``: none).

    Returns
    -------
    callable
        ``parse(text) -> int``.

    Raises
    ------
    argparse.ArgumentTypeError
        From ``parse``, for a word that is not a whole number in range.

    Examples
    --------
    >>> _whole("--points", 1, 200)("12")
    12

    Running time: O(length of the text).
    """
    def parse(text: str) -> int:
        try:
            check_ascii(text, option)
        except ModelError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{option} {text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            bounds = f"from {low} to {high}" if high is not None else f"{low} or more"
            raise argparse.ArgumentTypeError(f"{option} must be {bounds}, not {value}")
        return value
    return parse


whole_number = _whole


def check_output_path(path: str, option: str = "--output", create_folder: bool = False) -> None:
    """Refuse an output file that cannot be written, before any work is done: the output must be
    a regular file or a new path, named without control characters.

    Parameters
    ----------
    path : str
        The file to be written (probed, and removed again if it did not exist).
    option : str
        The option that named it, for the message.
    create_folder : bool
        The command creates a missing folder (``plot``): a path in a folder that does not exist
        yet passes the name check only.

    Raises
    ------
    ModelError
        A control or other non-printable character in the name; the path exists and is not a
        regular file (a named pipe, a device, a socket: writing would hang or go elsewhere); the
        folder does not exist, is not a folder, or is not writable; the path is a folder; the
        operating system refuses to create the file (``/proc``, read-only mounts).

    Examples
    --------
    >>> check_output_path("/no/such/folder/report.tex")
    Traceback (most recent call last):
        ...
    symq.errors.ModelError: --output /no/such/folder/report.tex: the folder /no/such/folder does not exist; create it first or write elsewhere
    >>> check_output_path("/dev/null")
    Traceback (most recent call last):
        ...
    symq.errors.ModelError: --output /dev/null: not a regular file (a character device); give the name of a new or regular file

    Running time: a few file-system calls.
    """
    import os
    import stat

    from symq.display import printable

    shown = printable(path)
    if not path or shown != path:
        raise ModelError(f"{option} {shown}: the file name holds a control or other "
                         "non-printable character; give a plain file name")
    if os.path.isdir(path):
        raise ModelError(f"{option} {path}: is a folder; give a file name")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise ModelError(f"{option} {path}: cannot use ({error.strerror or error}); "
                         "write to a folder you can write") from None
    if mode is not None and not stat.S_ISREG(mode):
        kind = ("a named pipe" if stat.S_ISFIFO(mode) else "a character device"
                if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode) else
                "a socket" if stat.S_ISSOCK(mode) else "not a file")
        raise ModelError(f"{option} {path}: not a regular file ({kind}); give the name of a new "
                         "or regular file")
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if create_folder and not os.path.exists(folder):
        return
    if not os.path.isdir(folder):
        raise ModelError(f"{option} {path}: the folder {folder} does not exist; create it first "
                         "or write elsewhere")
    if not os.access(folder, os.W_OK) or (mode is not None and not os.access(path, os.W_OK)):
        raise ModelError(f"{option} {path}: not writable here; write to a folder you can write")
    try:  # a probe: some places (/proc, read-only mounts) refuse only at open; O_NONBLOCK so
        # that a pipe made meanwhile cannot block
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o666)
    except OSError as error:
        raise ModelError(f"{option} {path}: cannot write ({error.strerror or error}); "
                         "write to a folder you can write") from None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise ModelError(f"{option} {path}: not a regular file; give the name of a new or "
                             "regular file")
    finally:
        os.close(descriptor)
    if mode is None:
        os.remove(path)


def write_text(path: str, text: str, option: str = "--output") -> None:
    """Write ``text`` to ``path``; an operating-system error becomes one line (exit status 2).

    Parameters
    ----------
    path : str
        Overwritten if it exists.
    text : str
        Written as UTF-8.
    option : str
        The option that named the path, for the message.

    Raises
    ------
    ModelError
        The operating system refused the write.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> write_text(path, "hello")
    >>> open(path).read()
    'hello'

    Running time: O(length of the text).
    """
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise ModelError(f"{option} {path}: cannot write ({error.strerror or error}); "
                         "write to a folder you can write") from None
