r"""Performance quantities by name, and their evaluation to exact values and decimals.
The names are those of docs/cli.md (``empty-probability``, ``normalizing-constant``, ...). Each
quantity is computed by a *handler* registered for a discipline; a handler returns either one
sympy expression or a mapping ``{"total": expr, "per_class": {...}}`` / ``{"per_server": {...}}``.
A handler may apply to some models only (say, the single fully flexible class of
``uninformed:N``); the most recently registered handler that applies wins.

Examples
--------
>>> from symq import model
>>> from symq.quantities import derive, evaluate
>>> g = derive(model("n"), "empty-probability")
>>> evaluate(g, {"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": "1", "mu_2": "1"}, digits=10)
Evaluated(exact=9/14, value='0.6428571429')
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import sympy

from .catalog import as_model
from .errors import ModelError, UnsupportedError
from .expressions import as_expression, parse_formula
from .model import Model
from .numeric import decimal_string
from .normalization.entry import DISCIPLINES
from .rates import check_names, parse_rate, value_names
from .stability import check_stability

__all__ = ["QUANTITIES", "DISCIPLINES", "register", "handler_for", "derive", "evaluate",
           "Evaluated", "substitute", "flatten_result", "remember_model", "quantity_function"]

QUANTITIES = {
    "empty-probability": "probability that no job is in the system",
    "normalizing-constant": "G with pi(state) = product-form term / G",
    "server-idle-probability": "per server, probability that it is idle",
    "mean-number": "mean number of jobs in the system, per class and total",
    "mean-response-time": "mean time in system, per class and overall (arrival-weighted)",
    "response-time": "distribution of the time in system per class: LST, mean, variance, CDF",
    "response-time-survival": "P(T_c > t) per class (evaluate at --time T)",
    "waiting-time": "distribution of the time before service starts, per class",
    "waiting-time-survival": "P(W_c > t) per class (evaluate at --time T)",
}
Handler = Callable[[Model], Any]
_HANDLERS: list[tuple[str, str, Callable[[Model], bool], Handler, str]] = []


def register(quantity: str, discipline: str, handler: Handler,
             applies: Callable[[Model], bool] = lambda model: True,
             method: str | Callable[[Model], str] = "") -> None:
    """Register ``handler(model)`` for ``quantity`` under ``discipline`` (where ``applies``);
    ``method`` names the algorithm, or is a function of the model that names it.

    Parameters
    ----------
    quantity : str
        A name of :data:`QUANTITIES`.
    discipline : str
        The discipline the handler serves.
    handler : callable
        ``handler(model)`` returns the exact quantity.
    applies : callable
        ``applies(model)``: whether this handler serves the model (later registrations are
        tried first).
    method : str or callable
        The algorithm's name for reports and JSON.

    Raises
    ------
    ValueError
        An unknown quantity name.

    Examples
    --------
    >>> register("no-such-quantity", "alis", lambda m: 1)
    Traceback (most recent call last):
        ...
    ValueError: unknown quantity 'no-such-quantity'

    Running time: O(1).
    """
    if quantity not in QUANTITIES:
        raise ValueError(f"unknown quantity {quantity!r}")
    _HANDLERS.append((quantity, discipline, applies, handler, method))


def handler_for(model: Model, quantity: str, discipline: str) -> tuple[Handler, str]:
    """The handler and its method name for ``quantity`` of ``model`` under ``discipline``.

    Parameters
    ----------
    model : Model
        The registered ``applies`` tests are run on it.
    quantity : str
        A name of :data:`QUANTITIES`.
    discipline : str
        One of :data:`DISCIPLINES`.

    Returns
    -------
    tuple
        ``(handler, method name)``; the handler takes the model.

    Raises
    ------
    ModelError
        An unknown quantity or discipline.
    UnsupportedError
        A known quantity that symq cannot compute for this model and discipline yet.

    Examples
    --------
    >>> from symq import model
    >>> handler_for(model("w"), "mean-number", "alis")[1].split(":")[0]
    'subset DP'

    Running time: O(number of registered handlers), plus their ``applies`` tests.
    """
    if quantity not in QUANTITIES:
        raise ModelError(f"unknown quantity {quantity!r}; available: {', '.join(QUANTITIES)}")
    if discipline not in DISCIPLINES:
        raise ModelError(f"unknown discipline {discipline!r}; available: {', '.join(DISCIPLINES)}")
    for name, disc, applies, handler, method in reversed(_HANDLERS):
        if name == quantity and disc == discipline and applies(model):
            return handler, method(model) if callable(method) else method
    available = sorted({d for name, d, applies, _, _ in _HANDLERS
                        if name == quantity and applies(model)})
    hint = f"; available for this model: {', '.join(available)}" if available else ""
    raise UnsupportedError(f"{quantity} under discipline {discipline!r} is not available for "
                           f"model {model.name or 'given'}{hint}")


def derive(model: Model | str, quantity: str, discipline: str = "collaborative") -> Any:
    """The exact quantity: a sympy expression, or a mapping of them (per class / per server).

    Parameters
    ----------
    model : Model, str or Path
        A model, a built-in name (``"w"``) or the path of a TOML file; symbolic or numeric.
    quantity : str
        A name of :data:`QUANTITIES` (``"empty-probability"``, ``"mean-number"``, ...).
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.

    Returns
    -------
    sympy.Expr or dict
        Remembered for :func:`evaluate`'s checks.

    Raises
    ------
    ModelError, UnsupportedError
        As :func:`handler_for`; the handler's own errors (an unstable numeric model).

    Examples
    --------
    >>> derive("n", "empty-probability")
    -(lambda_1 - mu_1)*(lambda_1 + lambda_2 - mu_1 - mu_2)/(mu_1*(lambda_1 - mu_1 - mu_2))

    Running time: that of the quantity's algorithm (named by :func:`handler_for`).
    """
    model = as_model(model)
    handler, _ = handler_for(model, quantity, discipline)
    return remember_model(handler(model), model)


def flatten_result(result: Any) -> list[tuple[str, Any]]:
    """``[(label, value)]`` of a quantity: one unlabelled entry, or one per class/server, e.g.
    ``("per_class 1", expr)``.

    Parameters
    ----------
    result : sympy.Expr or mapping
        What :func:`derive` or :func:`evaluate` returned.

    Returns
    -------
    list of (str, object)

    Examples
    --------
    >>> flatten_result({"per_class": {"1": 1, "2": 2}})
    [('per_class 1', 1), ('per_class 2', 2)]

    Running time: O(number of entries).
    """
    if not isinstance(result, Mapping):
        return [("", result)]
    rows = []
    for key, part in result.items():
        if isinstance(part, Mapping):
            rows += [(f"{key} {name}", value) for name, value in part.items()]
        else:
            rows.append((key, part))
    return rows


@dataclass(frozen=True)
class Evaluated:
    """An exact value and its decimal string with the requested significant digits."""

    exact: sympy.Expr | None
    value: str

    def __str__(self) -> str:
        return self.value

    def _repr_latex_(self) -> str:
        """Jupyter shows the exact value and its decimal digits."""
        if self.exact is None:
            return f"${self.value}$"
        return f"${sympy.latex(self.exact)} \\approx {self.value}$"

    def as_json(self) -> dict[str, str]:
        result = {"value": self.value} if self.value else {}
        if self.exact is not None:
            result = {"exact": str(self.exact), **result}
        return result


def substitute(expr: sympy.Expr | str, values: Mapping[str, Any]) -> sympy.Expr:
    """Put exact values in for the symbols of ``expr`` named in ``values`` (others stay).

    ``expr`` may be a formula string as symq prints it; it is read by
    :func:`symq.expressions.parse_formula`, never evaluated as code.

    Parameters
    ----------
    expr : sympy.Expr or str
        The formula.
    values : mapping
        ``{symbol name: exact value}``; names that are not symbols of ``expr`` are ignored.

    Returns
    -------
    sympy.Expr
        Simplified when anything was substituted.

    Raises
    ------
    ModelError
        A malformed formula string, or a value that is not an exact positive rate (a float,
        zero, a negative number).

    Examples
    --------
    >>> substitute("lambda_1 + mu_1", {"mu_1": "1/2"})
    lambda_1 + 1/2

    Running time: sympy's ``simplify`` of the substituted expression.
    """
    expr = _as_formula(expr)
    by_name = {s.name: s for s in expr.free_symbols}
    mapping = {by_name[name]: parse_rate(value, f"value of {name}")
               for name, value in value_names(values).items() if name in by_name}
    return sympy.simplify(expr.xreplace(mapping)) if mapping else expr


def evaluate(result: Any, values: Mapping[str, Any] | None = None, digits: int = 30,
             model: Model | str | None = None) -> Any:
    """Evaluate a derived result at ``values`` to :class:`Evaluated` (mapping results keep their
    shape).

    Parameters
    ----------
    result : a derived quantity (a sympy expression or a mapping of them), or a formula string
        as ``symq derive`` prints it (read by :func:`symq.expressions.parse_formula`)
    values : exact values by symbol name, e.g. ``{"lambda_1": "3/10"}``
    digits : significant digits of the decimal value
    model : the model the result belongs to (a Model, a built-in name or a path); by default
        the model that most recently gave this result through :func:`derive` or a quantity
        function of :mod:`symq` (such as :func:`symq.empty_probability`), if any

    Returns
    -------
    Evaluated or dict
        :class:`Evaluated` for one value; the shape of ``result`` for a mapping.

    Raises
    ------
    UnstableModelError
        The values make the model unstable, so the formula has no meaning there (it may even
        give a negative probability).
    ModelError
        A name in ``values`` that is no symbol of the result (nor of its model), a symbol left
        without a value, a value that is not exact and positive, a malformed formula string.

    Examples
    --------
    >>> import symq
    >>> p0 = symq.empty_probability("n")
    >>> evaluate(p0, {"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1, "mu_2": 1}).exact
    9/14
    >>> evaluate(p0, {"lambda_1": 1, "lambda_2": 1, "mu_1": 1, "mu_2": 1})
    Traceback (most recent call last):
        ...
    symq.errors.UnstableModelError: unstable: classes {'1', '2'} bring 2 but their servers {'1', '2'} serve only 2; lower those arrival rates or raise those service rates

    Running time: one exact substitution and simplification per leaf, plus the decimal digits
    (:func:`symq.numeric.decimal_string`).
    """
    values = value_names(values)
    result = _as_formula(result)
    leaves = list(_leaves(result))
    origin = as_model(model) if model is not None else _origin(leaves)
    symbols = set().union(*(leaf.free_symbols for leaf in leaves))
    if origin is not None:
        check_names(values, symbols | origin.symbols, "the model")
        own = {s.name for s in origin.symbols}
        check_stability(origin.substitute({k: v for k, v in values.items() if k in own}))
    else:
        check_names(values, symbols, "the formula")
    from .results import as_result
    return as_result(_evaluate(result, values, digits))


def _evaluate(result: Any, values: dict[str, Any], digits: int) -> Any:
    if isinstance(result, Mapping):
        return {key: _evaluate(part, values, digits) for key, part in result.items()}
    expr = substitute(result, values)
    if expr.free_symbols and expr.free_symbols <= _FUNCTION_VARIABLES:
        # a function of the transform or time variable (LST, CDF): exact, with no single decimal
        return Evaluated(sympy.factor(expr) if expr.is_rational_function() else expr, "")
    if expr.free_symbols:
        names = ", ".join(sorted(s.name for s in expr.free_symbols))
        raise ModelError(f"no value for the symbol(s) {names}; give each one in the values, "
                         f"e.g. {{{next(iter(sorted(s.name for s in expr.free_symbols)))!r}: "
                         "'1/2'}")
    exact = None if expr.has(sympy.Float) else expr
    return Evaluated(exact, decimal_string(expr, digits))


def _as_formula(result: Any) -> Any:
    """A derived result as sympy: strings are read by the safe parser, never by ``eval``."""
    if isinstance(result, str):
        return parse_formula(result, "formula")
    if isinstance(result, Mapping):
        return {key: _as_formula(part) for key, part in result.items()}
    if isinstance(result, sympy.Basic):
        return result
    return as_expression(result, "formula")


def _leaves(result: Any):
    if isinstance(result, Mapping):
        for part in result.values():
            yield from _leaves(part)
    else:
        yield result


# ------------------------------------------------------- which model gave a derived result
_ORIGINS: OrderedDict[sympy.Expr, Model] = OrderedDict()
_ORIGINS_KEPT = 512


def remember_model(result: Any, model: Model) -> Any:
    """Note that ``model`` gave ``result`` (its symbolic leaves), so that :func:`evaluate` can
    check names and stability against it; keeps the last few hundred results.

    Parameters
    ----------
    result : sympy.Expr or mapping
        A derived quantity.
    model : Model
        The model it came from.

    Returns
    -------
    object
        ``result``, a mapping as a :class:`symq.results.QuantityResult` (a table in Jupyter).

    Examples
    --------
    >>> from symq import model
    >>> remember_model(model("n").arrival_rate(), model("n"))
    lambda_1 + lambda_2

    Running time: O(number of leaves).
    """
    for leaf in _leaves(result):
        if isinstance(leaf, sympy.Basic) and leaf.free_symbols:
            _ORIGINS[leaf] = model
            _ORIGINS.move_to_end(leaf)
    while len(_ORIGINS) > _ORIGINS_KEPT:
        _ORIGINS.popitem(last=False)
    from .results import as_result
    return as_result(result)  # a dict that Jupyter shows as a table (symq.results)


def _origin(leaves: list[Any]) -> Model | None:
    for leaf in leaves:
        if isinstance(leaf, sympy.Basic) and leaf.free_symbols and leaf in _ORIGINS:
            return _ORIGINS[leaf]
    return None


def quantity_function(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function(model, ...)`` of the public API: ``model`` may be a built-in name or a path,
    and the result is remembered for :func:`evaluate`'s stability and name checks.

    Parameters
    ----------
    function : callable
        Takes a :class:`Model` first.

    Returns
    -------
    callable
        The wrapped function, same name and docstring.

    Examples
    --------
    >>> from symq.normalization import empty_probability
    >>> from symq import model
    >>> quantity_function(empty_probability)("n", "alis") == empty_probability(model("n"), "alis")
    True

    Running time: that of ``function``, plus :func:`remember_model`.
    """
    @functools.wraps(function)
    def wrapper(model: Model | str, *args: Any, **kwargs: Any) -> Any:
        model = as_model(model)
        return remember_model(function(model, *args, **kwargs), model)
    return wrapper


def _function_variables() -> frozenset:
    from .distributions import THETA, TIME
    return frozenset({THETA, TIME})


_FUNCTION_VARIABLES = _function_variables()


def _normalization_method(model: Model, quantity: str, discipline: str) -> str:
    from .normalization import method_name
    return method_name(model, discipline, quantity)


def _register_builtin_handlers() -> None:
    from functools import partial

    from . import normalization as nz
    from .aggregated import response_time_applies, response_time_quantity

    functions = {"empty-probability": nz.empty_probability,
                 "normalizing-constant": nz.normalizing_constant,
                 "server-idle-probability": nz.server_idle_probability,
                 "mean-number": nz.mean_number,
                 "mean-response-time": nz.mean_response_time}
    # one handler per (quantity, discipline): the entry point of symq.normalization dispatches
    # on structure (components, redundancy:K:D, nested, general subset DP) and names its method
    for quantity, function in functions.items():
        for discipline in DISCIPLINES:
            register(quantity, discipline, partial(function, discipline=discipline),
                     method=partial(_normalization_method, quantity=quantity,
                                    discipline=discipline))
    for discipline in DISCIPLINES:
        register("response-time", discipline, partial(response_time_quantity, discipline=discipline),
                 applies=partial(response_time_applies, discipline=discipline),
                 method=("nested: independent sum of exponentials (Thm 4.5, Cor 4.4)"
                         if discipline == "collaborative" else
                         "wait: mixture over ordered busy servers of hypoexponentials (Thm 5.4 "
                         "corrected, theory-subset-dp §4.4) plus Exp(mu) service (Cor 4.8)"
                         + ("; routing: canonical (ALIS-averaged, theory-subset-dp §1.3)"
                            if discipline == "rais" else "")))
    # every other graph and discipline: the tagged-job laws of symq.response_time
    from .response_time.quantities import register_handlers as register_response_time
    register_response_time(register)
    # one fully flexible class with uniform assignment (uninformed:N): Cabral's closed forms
    from .uninformed import QUANTITY_HANDLERS as uninformed_handlers, is_uninformed
    for quantity, (handler, method) in uninformed_handlers.items():
        register(quantity, "rais", handler, applies=is_uninformed, method=method)


_register_builtin_handlers()
