r"""Performance quantities by name, and their evaluation to exact values and decimals.
The names are those of docs/cli.md (``empty-probability``, ``normalizing-constant``, ...); which
engine computes a quantity is decided by the route table (:mod:`symq.queries.routes`), and a
result is one sympy expression or a mapping ``{"total": expr, "per_class": {...}}`` /
``{"per_server": {...}}``.

Examples
--------
>>> from symq import model
>>> from symq.queries.quantities import derive, evaluate
>>> g = derive(model("n"), "empty-probability")
>>> evaluate(g, {"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": "1", "mu_2": "1"}, digits=10)
Evaluated(exact=9/14, value='0.6428571429')
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any, Callable, Mapping

import sympy

from symq.models.catalog import as_model
from symq.errors import ModelError
from symq.arithmetic.expressions import as_expression, parse_formula
from symq.models.model import Model
from symq.arithmetic.numeric import Evaluated, decimal_string
from symq.queries import routes as _routes
from symq.queries.solve import flatten_result
from symq.models.rates import check_names, parse_rate, value_names
from symq.models.stability import check_stability

__all__ = ["QUANTITIES", "DISCIPLINES", "derive", "evaluate",
           "Evaluated", "substitute", "flatten_result", "remember_model", "quantity_function",
           "empty_probability", "normalizing_constant", "server_idle_probability", "mean_number",
           "mean_response_time"]

QUANTITIES = _routes.QUANTITIES
DISCIPLINES = _routes.DISCIPLINES


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
        As :func:`symq.queries.routes.select`; the route's own errors (an unstable numeric
        model).

    Examples
    --------
    >>> derive("n", "empty-probability")
    (-lambda_1 + mu_1)*(lambda_1 + lambda_2 - mu_1 - mu_2)/(mu_1*(lambda_1 - mu_1 - mu_2))

    Running time: that of the route that answers (:func:`symq.queries.solve.solve`, with the
    limits of the command line): the structured formula, multiplied out and cancelled once.
    """
    from symq.queries.solve import solve
    model = as_model(model)
    result = solve(model, quantity, discipline, exact=True, form=_form(quantity))
    return remember_model(_value(result), model)


def _form(quantity: str) -> str:
    """The normalization quantities are built as structured formulas (the command line's
    default), then cancelled; the laws come as expressions."""
    return "structured" if quantity in _routes.NORMALIZATION else "expression"


def _value(result: Any) -> Any:
    return result.exact


def substitute(expr: sympy.Expr | str, values: Mapping[str, Any]) -> sympy.Expr:
    """Put exact values in for the symbols of ``expr`` named in ``values`` (others stay).

    ``expr`` may be a formula string as symq prints it; it is read by
    :func:`symq.arithmetic.expressions.parse_formula`, never evaluated as code.

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
        as ``symq derive`` prints it (read by :func:`symq.arithmetic.expressions.parse_formula`)
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
    (:func:`symq.arithmetic.numeric.decimal_string`).
    """
    from symq.queries.solve import Result
    if isinstance(result, Result):  # already evaluated by symq.solve: its values as they are
        if values:
            raise ModelError("this result has numeric values already; give values to "
                             "symq.solve(..., values=...) or evaluate a symbolic result")
        from symq.display import as_result
        if result.digits is not None and result.digits != digits and result.items is not None:
            from symq.queries.solve import solve  # the same route, at the digits asked for
            result = solve(result.model, result.quantity, result.discipline, digits=digits,
                           exact={"exact": True}.get(result.arithmetic, False),
                           method=result.route, no_limits=True)
        return as_result(result.items)
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
    from symq.display import as_result
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
        ``result``, a mapping as a :class:`symq.display.QuantityResult` (a table in Jupyter).

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
    from symq.display import as_result
    return as_result(result)  # a dict that Jupyter shows as a table (symq.display)


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
    >>> from symq.engines.normalization import empty_probability
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
    from symq.engines.distributions import THETA, TIME
    return frozenset({THETA, TIME})


_FUNCTION_VARIABLES = _function_variables()


# ------------------------------------------------------------------ per-quantity functions
def _quantity(quantity: str, model: Any, discipline: str, method: str, values: Any,
              digits: int, exact: bool | None) -> Any:
    from symq.queries.solve import solve
    model = as_model(model)
    result = solve(model, quantity, discipline, values, digits, exact, method,
                   form=_form(quantity) if method == "auto" else "expression")
    if result.model.is_numeric:
        return result
    return remember_model(_value(result), model)


def empty_probability(model: Model | str, discipline: str = "collaborative",
                      method: str = "auto", values: Mapping[str, Any] | None = None,
                      digits: int = 30, exact: bool | None = None) -> Any:
    r"""Probability that no job is in the system: a sympy expression in the rates for a
    symbolic model, a :class:`~symq.queries.solve.Result` (exact or certified digits) for a numeric one.

    Parameters
    ----------
    model : Model, str or Path
        A model, a built-in name or a TOML path.
    discipline, method, values, digits, exact
        As :func:`symq.queries.solve.solve`.

    Returns
    -------
    sympy.Expr or Result

    Examples
    --------
    >>> import symq
    >>> empty_probability("n")
    (-lambda_1 + mu_1)*(lambda_1 + lambda_2 - mu_1 - mu_2)/(mu_1*(lambda_1 - mu_1 - mu_2))
    >>> empty_probability(symq.example_model("n"), "alis").exact
    27/47

    Running time: that of the route (:func:`symq.queries.solve.solve`).
    """
    return _quantity("empty-probability", model, discipline, method, values, digits, exact)


def normalizing_constant(model: Model | str, discipline: str = "collaborative",
                         method: str = "auto", values: Mapping[str, Any] | None = None,
                         digits: int = 30, exact: bool | None = None) -> Any:
    r"""$G$ with $\pi(\text{state})=\text{product-form term}/G$ (collaborative $G=1/\pi(\emptyset)$,
    ALIS $G_{\rm ALIS}=1/\pi(\emptyset,\emptyset)$, RAIS $G_{\rm RAIS}=1/\pi(\emptyset)$); as
    :func:`empty_probability`.

    Parameters
    ----------
    model : Model, str or Path
        A model, a built-in name or a TOML path.
    discipline, method, values, digits, exact
        As :func:`symq.queries.solve.solve`.

    Returns
    -------
    sympy.Expr, dict or Result
        Exact expressions for symbolic rates; a :class:`~symq.queries.solve.Result` for
        numeric ones.

    Examples
    --------
    >>> import symq
    >>> normalizing_constant(symq.example_model("n")).exact
    14/9

    Running time: that of the route (:func:`symq.queries.solve.solve`).
    """
    return _quantity("normalizing-constant", model, discipline, method, values, digits, exact)


def server_idle_probability(model: Model | str, discipline: str = "collaborative",
                            method: str = "auto", values: Mapping[str, Any] | None = None,
                            digits: int = 30, exact: bool | None = None) -> Any:
    r"""``{"per_server": {server: P(server idle)}}``; as :func:`empty_probability`.

    Parameters
    ----------
    model : Model, str or Path
        A model, a built-in name or a TOML path.
    discipline, method, values, digits, exact
        As :func:`symq.queries.solve.solve`.

    Returns
    -------
    sympy.Expr, dict or Result
        Exact expressions for symbolic rates; a :class:`~symq.queries.solve.Result` for
        numeric ones.

    Examples
    --------
    >>> import symq
    >>> server_idle_probability(symq.example_model("n")).per_server["2"].exact
    6/7

    Running time: that of the route (:func:`symq.queries.solve.solve`).
    """
    return _quantity("server-idle-probability", model, discipline, method, values, digits, exact)


def mean_number(model: Model | str, discipline: str = "collaborative", method: str = "auto",
                values: Mapping[str, Any] | None = None, digits: int = 30,
                exact: bool | None = None) -> Any:
    r"""Mean number of jobs, ``{"total": L, "per_class": {class: L_c}}``; as
    :func:`empty_probability`.

    Parameters
    ----------
    model : Model, str or Path
        A model, a built-in name or a TOML path.
    discipline, method, values, digits, exact
        As :func:`symq.queries.solve.solve`.

    Returns
    -------
    sympy.Expr, dict or Result
        Exact expressions for symbolic rates; a :class:`~symq.queries.solve.Result` for
        numeric ones.

    Examples
    --------
    >>> import symq
    >>> mean_number(symq.example_model("n")).per_class["1"].exact
    5/14

    Running time: that of the route (:func:`symq.queries.solve.solve`).
    """
    return _quantity("mean-number", model, discipline, method, values, digits, exact)


def mean_response_time(model: Model | str, discipline: str = "collaborative",
                       method: str = "auto", values: Mapping[str, Any] | None = None,
                       digits: int = 30, exact: bool | None = None) -> Any:
    r"""Mean time in system by Little's law, ``{"total": T, "per_class": {class: T_c}}``; as
    :func:`empty_probability`.

    Parameters
    ----------
    model : Model, str or Path
        A model, a built-in name or a TOML path.
    discipline, method, values, digits, exact
        As :func:`symq.queries.solve.solve`.

    Returns
    -------
    sympy.Expr, dict or Result
        Exact expressions for symbolic rates; a :class:`~symq.queries.solve.Result` for
        numeric ones.

    Examples
    --------
    >>> import symq
    >>> mean_response_time(symq.example_model("n")).per_class["2"].exact
    2/3

    Running time: that of the route (:func:`symq.queries.solve.solve`).
    """
    return _quantity("mean-response-time", model, discipline, method, values, digits, exact)
