r"""Built-in models and TOML model files.
The built-in names ``n``, ``w``, ``redundancy:K:D``, ``uninformed:N``, ``nested`` and ``ring:K``
(symbolic rates ``lambda_<class>`` and ``mu_<server>``) and the TOML model format are read here
into a :class:`~symq.models.model.Model`; their graphs: see docs/cli.md.

Examples
--------
>>> from symq import model
>>> model("n")
Model('n', 1->{1}, 2->{1,2})
>>> model("redundancy:3:2").classes
('1,2', '1,3', '2,3')
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import stat
import sys
import tomllib
from pathlib import Path
from typing import Any, Callable, TypeVar

from symq.arithmetic.expressions import check_ascii
from symq.errors import ArgumentTypeError, ModelError, UnknownModelError
from symq.models.model import Model
from symq.models.rates import positive_symbol

__all__ = ["model", "load", "loads", "builtin_names", "BUILTIN_DESCRIPTIONS", "as_model",
           "takes_model", "example_rates", "example_model", "MAX_MODEL_BYTES"]

#: the largest model file read (bytes): a model is kilobytes; 3,000 classes take 180 kB
MAX_MODEL_BYTES = 4 << 20


def _symbolic(name: str, compatibility: dict[str, list[str]], servers: list[str]) -> Model:
    return Model(compatibility=compatibility,
                 arrival_rates={i: positive_symbol(f"lambda_{i}") for i in compatibility},
                 service_rates={j: positive_symbol(f"mu_{j}") for j in servers},
                 name=name)


def _n() -> Model:
    return _symbolic("n", {"1": ["1"], "2": ["1", "2"]}, ["1", "2"])


def _w() -> Model:
    return _symbolic("w", {"1": ["1"], "2": ["2"], "3": ["1", "2"]}, ["1", "2"])


def _nested() -> Model:
    return _symbolic("nested", {"1": ["1"], "2": ["2"], "3": ["1", "2"], "4": ["3"],
                                "5": ["1", "2", "3"]}, ["1", "2", "3"])


def _int_argument(text: str, what: str, name: str, low: int, high: int) -> int:
    check_ascii(text, f"model {name!r}: {what}")
    try:
        value = int(text)
    except ValueError:
        raise UnknownModelError(f"model {name!r}: {what} {text!r} is not an integer") from None
    if not low <= value <= high:
        raise UnknownModelError(f"model {name!r}: {what} must be between {low} and {high}, "
                                f"not {value}")
    return value


def _redundancy(name: str, k: str, d: str) -> Model:
    servers_count = _int_argument(k, "K (number of servers)", name, 1, 200)
    degree = _int_argument(d, "D (servers per class)", name, 1, servers_count)
    from symq.limits import check
    check("model-classes", math.comb(servers_count, degree), f"model {name} (C(K, D) classes)",
          remedy="choose a smaller K or a D nearer 1 or K")
    servers = [str(j) for j in range(1, servers_count + 1)]
    subsets = list(itertools.combinations(servers, degree))
    lam, mu = positive_symbol("lambda"), positive_symbol("mu")
    return Model(compatibility={",".join(s): list(s) for s in subsets},
                 arrival_rates={",".join(s): lam / math.comb(servers_count, degree)
                                for s in subsets},
                 service_rates={j: mu for j in servers}, name=name)


def _uninformed(name: str, n: str) -> Model:
    count = _int_argument(n, "N (number of servers)", name, 1, 30)
    servers = [str(j) for j in range(1, count + 1)]
    return Model(compatibility={"1": servers}, arrival_rates={"1": positive_symbol("lambda")},
                 service_rates={j: positive_symbol(f"mu_{j}") for j in servers}, name=name)


def _ring(name: str, k: str) -> Model:
    count = _int_argument(k, "K (number of classes and servers)", name, 3, 30)
    servers = [str(j) for j in range(1, count + 1)]
    return _symbolic(name, {str(i): [str(i), str(i % count + 1)] for i in range(1, count + 1)},
                     servers)


_FIXED: dict[str, Callable[[], Model]] = {"n": _n, "w": _w, "nested": _nested}
_PARAMETRIC: dict[str, tuple[int, Callable[..., Model]]] = {
    "redundancy": (2, _redundancy), "uninformed": (1, _uninformed), "ring": (1, _ring)}

BUILTIN_DESCRIPTIONS = {
    "n": "N model: 1 -> {1}, 2 -> {1, 2}",
    "w": "W model: 1 -> {1}, 2 -> {2}, 3 -> {1, 2}",
    "nested": "nested 3-server model: 1 -> {1}, 2 -> {2}, 3 -> {1, 2}, 4 -> {3}, 5 -> {1, 2, 3}",
    "redundancy:K:D": "one class per D-subset of K servers, rate lambda/C(K,D); servers rate mu",
    "uninformed:N": "one class of rate lambda, N heterogeneous servers mu_1..mu_N",
    "ring:K": "class i -> {i, i+1 mod K} (non-nested), K >= 3",
}


def builtin_names() -> list[str]:
    """The built-in model names, with their parameters written as K, D, N.

    Returns
    -------
    list of str
        ``["n", "w", "nested", "redundancy:K:D", "uninformed:N", "ring:K"]``.

    Examples
    --------
    >>> builtin_names()[:3]
    ['n', 'w', 'nested']

    Running time: O(1).
    """
    return list(BUILTIN_DESCRIPTIONS)


def model(name: str | Path) -> Model:
    """A built-in model by name (``"w"``, ``"redundancy:3:2"``) or a model read from a TOML file.

    Parameters
    ----------
    name : str or Path
        A built-in name of :func:`builtin_names` with its parameters filled in, or a TOML path.

    Returns
    -------
    Model
        With symbolic rates ``lambda_<class>``, ``mu_<server>`` for the built-ins.

    Raises
    ------
    UnknownModelError
        A name that is neither built in nor an existing file, or a parameter out of range.
    ModelError
        A malformed model file.

    Examples
    --------
    >>> model("ring:3").compatibility["3"]
    ('1', '3')

    Running time: O(J M) for J classes and M servers (plus reading the file).
    """
    if not isinstance(name, (str, Path)):
        raise ArgumentTypeError(f"symq.model(name): name must be a str (a built-in name such as "
                                f"'w' or a .toml path) or a pathlib.Path, not {type(name).__name__}")
    if isinstance(name, Path) or str(name).endswith(".toml"):
        return load(name)
    text = str(name).strip()
    if text in _FIXED:
        return _FIXED[text]()
    head, *args = text.split(":")
    if head in _PARAMETRIC:
        count, build = _PARAMETRIC[head]
        if len(args) != count:
            form = {"redundancy": "redundancy:K:D", "uninformed": "uninformed:N",
                    "ring": "ring:K"}[head]
            raise UnknownModelError(f"model {text!r} needs the form {form}")
        return build(text, *args)
    if Path(text).exists():  # a regular file, or a FIFO or device that load refuses
        return load(text)
    raise UnknownModelError(f"unknown model {text!r}; built-in models: "
                            f"{', '.join(builtin_names())}, or give a path to a .toml file")


# The W example of docs/quantities.md and docs/theory-subset-dp.md (P(empty) = 663/1216 under ALIS).
_W_EXAMPLE = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": "1", "mu_2": "4/5"}


def example_rates(model: Model) -> dict[str, str]:
    r"""The documented example rates of a model's symbols: for ``w`` those of docs/quantities.md,
    $\lambda=(3/20, 1/10, 1/4)$ and $\mu=(1, 4/5)$; otherwise every symbol of an arrival rate is
    $1/(2J)$ for $J$ classes and every symbol of a service rate is 1, which is stable for every
    graph (the load of any class set is at most 1/2 of the capacity of one server).

    Parameters
    ----------
    model : Model
        A model with symbolic rates (symbols already given a value are left out).

    Returns
    -------
    dict
        ``{symbol name: rate}``, rates as exact strings.

    Examples
    --------
    >>> example_rates(model("n"))
    {'lambda_1': '1/4', 'lambda_2': '1/4', 'mu_1': '1', 'mu_2': '1'}

    Running time: O(J + M) for J classes and M servers.
    """
    names = {s.name for s in model.symbols}
    if model.name == "w" and names == set(_W_EXAMPLE):
        return dict(_W_EXAMPLE)
    values: dict[str, str] = {}
    for rate in model.arrival_rates.values():
        values.update((s.name, f"1/{2 * len(model.classes)}") for s in rate.free_symbols)
    for rate in model.service_rates.values():
        for s in rate.free_symbols:
            values.setdefault(s.name, "1")
    return values


def example_model(name: Model | str | Path, rates: dict[str, Any] | None = None) -> Model:
    """A catalog model at its documented example rates (:func:`example_rates`), the one-line
    opening of the doctests; ``rates`` overrides some of them.

    Parameters
    ----------
    name : Model, str or Path
        A built-in name (``"w"``, ``"ring:4"``), a TOML file or a model.
    rates : dict, optional
        ``{symbol name: exact rate}`` that replaces the example rate of those symbols.

    Returns
    -------
    Model
        The model with numeric (rational) rates.

    Raises
    ------
    UnknownModelError
        A name that is neither built in nor an existing file.
    ModelError
        A rate override for a symbol the model does not have, or a bad rate.

    Examples
    --------
    >>> dict(example_model("w").arrival_rates)
    {'1': 3/20, '2': 1/10, '3': 1/4}
    >>> example_model("n", {"lambda_1": 3}).arrival_rates["1"]
    3

    Running time: O(J + M) for J classes and M servers.
    """
    base = as_model(name)
    values = example_rates(base)
    unknown = set(rates or {}) - set(values)
    if unknown:
        raise ModelError(f"example_model({base.name!r}): no rate symbol {', '.join(sorted(unknown))}; "
                         f"its symbols are {', '.join(sorted(values))}")
    return base.substitute({**values, **(rates or {})})


def as_model(value: Model | str | Path, what: str = "model") -> Model:
    """``value`` itself if it is a :class:`Model`, else the built-in model or TOML file it names.

    Parameters
    ----------
    value : Model, str or Path
        The model or its name.
    what : str
        How the error message calls the argument.

    Returns
    -------
    Model
        ``value`` or the model it names.

    Raises
    ------
    TypeError
        A value that is not a Model, a string or a path.
    UnknownModelError, ModelError
        As :func:`model` for names and files.

    Examples
    --------
    >>> as_model("w") == model("w")
    True

    Running time: that of :func:`model` for a name; O(1) for a model.
    """
    if isinstance(value, Model):
        return value
    if isinstance(value, (str, Path)):
        return model(value)
    raise ArgumentTypeError(f"{what} must be a symq.Model, a built-in model name such as 'w' or the path "
                    f"of a TOML model file, not {type(value).__name__}")


_F = TypeVar("_F", bound=Callable[..., Any])


def takes_model(function: _F) -> _F:
    """``function(model, ...)`` that also accepts a built-in name or a path for ``model`` (other
    values are passed on unchanged).

    Parameters
    ----------
    function : callable
        A function whose first argument (or keyword ``model``) is a :class:`Model`.

    Returns
    -------
    callable
        The wrapped function (same name and docstring).

    Raises
    ------
    UnknownModelError, ModelError
        When called with a name or a path that :func:`model` refuses.
    ArgumentTypeError
        When called with anything else that is not a model (nor a process object).

    Examples
    --------
    >>> takes_model(lambda m: m.servers)("w")
    ('1', '2')

    Running time: that of :func:`model` per call with a name, then of ``function``.
    """
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], (str, Path)):
            args = (model(args[0]), *args[1:])
        elif isinstance(kwargs.get("model"), (str, Path)):
            kwargs["model"] = model(kwargs["model"])
        given = args[0] if args else kwargs.get("model")
        if not isinstance(given, Model) and not hasattr(given, "transitions"):
            # a Model, or a process object of the balance checker (it has transitions)
            raise ArgumentTypeError(f"{function.__name__}(model): the model must be a symq.Model, "
                                    "a built-in model name such as 'w' or the path of a TOML "
                                    f"model file, not {type(given).__name__}")
        return function(*args, **kwargs)
    return wrapper  # type: ignore[return-value]


def load(path: str | Path) -> Model:
    """Read a model from a TOML file (format in docs/howto-toml.md).

    Parameters
    ----------
    path : str or Path
        The file; the model's name defaults to the file's stem.

    Returns
    -------
    Model
        Named by the file's stem unless the file has a ``name``.

    Raises
    ------
    UnknownModelError
        The file does not exist.
    ModelError
        Malformed TOML, unknown keys, missing or bad rates, bad compatibility.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "mm1.toml").write_text('''
    ... [classes.1]
    ... arrival_rate = "1/2"
    ... servers = ["a"]
    ... [servers.a]
    ... service_rate = 1
    ... ''')
    >>> load(folder / "mm1.toml").name
    'mm1'

    Running time: O(size of the file).
    """
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise ArgumentTypeError(f"symq.load(path): path must be a str or a pathlib.Path naming a "
                                f".toml file, not {type(path).__name__}")
    if isinstance(path, str) and ("\0" in path or not path.strip()):
        raise ModelError(f"model file {path!r}: not a file name (empty or holding a NUL "
                         "character)")
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise UnknownModelError(f"model file {str(path)!r} does not exist") from None
    except OSError as error:
        raise ModelError(f"cannot read model file {str(path)!r}: {error.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ModelError(f"model file {str(path)!r} is not a regular file (a device, FIFO or "
                         "folder); give the path of a .toml file")
    if info.st_size > MAX_MODEL_BYTES:
        raise ModelError(f"model file {str(path)!r} has {info.st_size:,} bytes, more than the "
                         f"{MAX_MODEL_BYTES:,} a model file may have (a model is kilobytes)")
    try:
        with open(path, "rb") as handle:  # at most the limit, even if the file grew meanwhile
            data = handle.read(MAX_MODEL_BYTES + 1)
        if len(data) > MAX_MODEL_BYTES:
            raise ModelError(f"model file {str(path)!r} has more than {MAX_MODEL_BYTES:,} "
                             "bytes (a model is kilobytes)")
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise UnknownModelError(f"model file {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ModelError(f"cannot read model file {str(path)!r}: {error}") from None
    return loads(text, default_name=path.stem, source=str(path))


def _table(data: dict[str, Any], key: str, source: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict) or not value:
        raise ModelError(f"{source}: needs a non-empty [{key}.NAME] table for each {key[:-1]}"
                         if key != "classes" else
                         f"{source}: needs a non-empty [classes.NAME] table for each class")
    return value


def loads(text: str, default_name: str = "", source: str = "model") -> Model:
    """Read a model from TOML text; see :func:`load`.

    Parameters
    ----------
    text : str
        The TOML document.
    default_name : str
        The name when the document has no ``name`` key.
    source : str
        What the error messages call the document.

    Returns
    -------
    Model
        Rates as written (exact rationals or symbols).

    Raises
    ------
    ModelError
        Malformed TOML, unknown keys, missing or bad rates, bad compatibility.

    Examples
    --------
    >>> loads('''
    ... [classes.1]
    ... arrival_rate = "1/2"
    ... servers = ["a"]
    ... [servers.a]
    ... service_rate = "1"
    ... ''').compatibility["1"]
    ('a',)

    Running time: O(size of the text).
    """
    if not isinstance(text, str):
        raise ArgumentTypeError(f"symq.loads(text): text must be a str holding a TOML document, "
                                f"not {type(text).__name__}"
                                + (" (decode the bytes first: data.decode('utf-8'))"
                                   if isinstance(text, (bytes, bytearray)) else ""))
    if text.startswith("\ufeff"):  # a UTF-8 byte-order mark, as Windows editors save
        text = text[1:]
    if len(text) > MAX_MODEL_BYTES:
        raise ModelError(f"{source}: {len(text):,} characters, more than the {MAX_MODEL_BYTES:,} "
                         "a model may have (a model is kilobytes)")
    limit = sys.get_int_max_str_digits()
    try:  # TOML integers of any length are read exactly (the rates then refuse > 4000 digits)
        sys.set_int_max_str_digits(0)
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ModelError(f"{source}: malformed TOML: {error}") from None
    except RecursionError:
        raise ModelError(f"{source}: the TOML is nested too deep (arrays or tables inside one "
                         "another, hundreds of levels); a model file nests three levels") from None
    finally:
        sys.set_int_max_str_digits(limit)
    unknown = set(data) - {"name", "classes", "servers"}
    if unknown:
        raise ModelError(f"{source}: unknown top-level key(s) {', '.join(sorted(unknown))}; "
                         "allowed: name, classes, servers")
    classes = _table(data, "classes", source)
    servers = _table(data, "servers", source)
    compatibility, arrivals, abandonment, service = {}, {}, {}, {}
    for i, spec in classes.items():
        if not isinstance(spec, dict):
            raise ModelError(f"{source}: class {i!r} must be a table with arrival_rate and servers")
        extra = set(spec) - {"arrival_rate", "servers", "abandonment_rate"}
        if extra:
            raise ModelError(f"{source}: class {i!r} has unknown key(s) {', '.join(sorted(extra))}; "
                             "allowed: arrival_rate, servers, abandonment_rate")
        if "arrival_rate" not in spec:
            raise ModelError(f"{source}: class {i!r} has no arrival_rate; add one")
        if "servers" not in spec:
            raise ModelError(f"class {i!r} has no compatible server; give it a servers list")
        wanted = spec["servers"]
        if not isinstance(wanted, list) or not all(isinstance(j, (str, int)) and
                                                   not isinstance(j, bool) for j in wanted):
            raise ModelError(f"{source}: servers of class {i!r} must be a list of server names")
        compatibility[i] = [str(j) for j in wanted]
        arrivals[i] = _rate_value(spec["arrival_rate"], f"arrival rate of class {i!r}")
        if "abandonment_rate" in spec:
            abandonment[i] = _rate_value(spec["abandonment_rate"], f"abandonment rate of class {i!r}")
    for j, spec in servers.items():
        if not isinstance(spec, dict) or "service_rate" not in spec:
            raise ModelError(f"{source}: server {j!r} needs a table with a service_rate")
        extra = set(spec) - {"service_rate"}
        if extra:
            raise ModelError(f"{source}: server {j!r} has unknown key(s) {', '.join(sorted(extra))}; "
                             "allowed: service_rate")
        service[j] = _rate_value(spec["service_rate"], f"service rate of server {j!r}")
    name = data.get("name", default_name)
    if not isinstance(name, str):
        raise ModelError(f"{source}: name must be a string")
    return Model(compatibility=compatibility, arrival_rates=arrivals, service_rates=service,
                 abandonment_rates=abandonment, name=name)


def _rate_value(value: Any, what: str) -> Any:
    """TOML values allowed as rates: strings, integers of any length (floats are refused by the
    Model); an integer longer than the rates' digit limit is refused here, counted from its bit
    length (its decimal text is never built)."""
    if isinstance(value, int) and not isinstance(value, bool):
        from symq.arithmetic.expressions import MAX_DIGITS
        digits = int(value.bit_length() * math.log10(2)) + 1
        if digits > 1 and abs(value) < 10 ** (digits - 1):
            digits -= 1
        if digits > MAX_DIGITS:
            raise ModelError(f"{what} is an integer with about {digits:,} digits; rates take at "
                             f"most {MAX_DIGITS:,} digits")
        return value
    if isinstance(value, (str, float)) and not isinstance(value, bool):
        return value
    raise ModelError(f"{what} must be a string such as \"3/10\" or \"lambda_1\", not {value!r}")

