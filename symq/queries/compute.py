r"""The compute functions of the route table's rows (:data:`symq.queries.routes.ROUTES`): each
takes the request and the arithmetic the planner chose and calls its engine directly (the
engines take no route name). Composite work is put together here: the product over the
connected components (each component by its own planned row) and the one precision-raising loop
of every certified row (:func:`certified_loop`). Results come in the quantity's shape (one value,
``{"total", "per_class"}``, ``{"per_server"}``, or the response-time shape): sympy values for
the symbolic and exact arithmetics, :class:`~symq.arithmetic.numeric.Evaluated` values for the
certified ones, a :class:`~symq.engines.formulas.Structured` for ``formulas`` in ``structured``.

Examples
--------
>>> from symq import example_model
>>> from symq.queries.request import Request
>>> nested(Request(example_model("n"), "empty-probability"), "exact")
9/14
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from symq.errors import UnsupportedError
from symq.queries.request import Request

__all__ = ["uninformed", "nested_response_time", "tagged_job", "formulas", "components",
           "redundancy", "nested", "ring", "server_removal", "subset_dp", "derivative_formulas",
           "reverse_mode", "certified_loop", "raise_precision", "row_values"]

_MEANS = ("mean-number", "mean-response-time")

_ROW_SECTIONS = """

Parameters
----------
request : symq.queries.request.Request
    The request (model, quantity, discipline, digits, ...).
arithmetic : str
    The arithmetic the planner chose for this row.

Returns
-------
object
    The result in the quantity's shape (module docstring).
"""


def _row(function):
    """Give a compute function the Parameters and Returns every row's function shares."""
    import inspect
    doc = inspect.cleandoc(function.__doc__ or "")
    summary, sep, rest = doc.partition("\n\nExamples")
    function.__doc__ = summary + _ROW_SECTIONS + "\nExamples" + rest if sep else doc + _ROW_SECTIONS
    return function


def _wants(request: Request) -> tuple[bool, bool]:
    """(per_class, idle): which tables the quantity needs."""
    return request.quantity in _MEANS, request.quantity == "server-idle-probability"


# ------------------------------------------------------------------ closed forms and laws
@_row
def uninformed(request: Request, arithmetic: str) -> Any:
    """Cabral's closed forms (:mod:`symq.studies.uninformed.handlers`).

    Examples
    --------
    >>> import symq
    >>> m = symq.model("uninformed:2").substitute({"lambda": 1, "mu_1": 1, "mu_2": 2})
    >>> uninformed(Request(m, "empty-probability", "rais"), "exact")
    8/17

    Running time: O(N^2) for N servers (numeric), 2^N monomials (symbolic).
    """
    from symq.studies.uninformed import QUANTITY_HANDLERS
    return QUANTITY_HANDLERS[request.quantity][0](request.model)


@_row
def nested_response_time(request: Request, arithmetic: str) -> Any:
    """The laws of :func:`symq.engines.aggregated.response_time_quantity`.

    Examples
    --------
    >>> import symq
    >>> sorted(nested_response_time(Request(symq.model("n"), "response-time"), "symbolic"))
    ['cdf', 'lst', 'mean', 'variance']

    Running time: O(J M) for the nesting tree, plus the laws' partial fractions.
    """
    from symq.engines.aggregated import response_time_quantity
    return response_time_quantity(request.model, request.discipline)


@_row
def tagged_job(request: Request, arithmetic: str) -> Any:
    """The tagged-job laws: exact formulas (:func:`symq.queries.response_time.derive_quantity`),
    the structured transform in ``structured``
    (:func:`symq.engines.response_time.structured.transform_formula`), or on numeric rates what
    ``symq evaluate`` prints (certified survival, percentiles, the serving server).

    Examples
    --------
    >>> import symq
    >>> out = tagged_job(Request(symq.example_model("n"), "response-time", "alis"), "exact")
    >>> out["mean"]["1"]
    68/47

    Running time: that of :mod:`symq.engines.response_time` (one law per class).
    """
    from symq.queries.response_time import derive_quantity, evaluate_request
    if arithmetic == "structured":
        from symq.engines.response_time.structured import transform_formula
        return transform_formula(request.model, request.quantity.split("-")[0],
                                 request.discipline)
    if request.extra.get("evaluate") and request.numeric:
        return evaluate_request(request.model, request.quantity, request.discipline,
                                request.digits, time=request.time, percentile=request.percentile)
    return derive_quantity(request.model, request.quantity, request.discipline)


@_row
def formulas(request: Request, arithmetic: str) -> Any:
    """The structured formula (:func:`symq.engines.formulas.structured`); in ``symbolic``
    arithmetic its values multiplied out and cancelled, as sympy expressions.

    Examples
    --------
    >>> import symq
    >>> f = formulas(Request(symq.model("w"), "empty-probability", "alis"), "structured")
    >>> f.definitions[0].name, f.builder
    ('H__1', 'subset-dp')

    Running time: that of :func:`symq.engines.formulas.structured`.
    """
    from symq.engines.formulas import structured
    formula = structured(request.model, request.quantity, request.discipline)
    if arithmetic == "structured":
        return formula
    return expressions_of(formula)


#: above this many terms (:meth:`symq.engines.formulas.Structured.expanded_size`) a formula's
#: values stay composed from its definitions (sympy builds a multiplied-out expression of a
#: million terms in minutes; ``sympy.cancel`` cancels a composed one on demand)
CANCEL_TERMS = 50_000


def expressions_of(formula: Any, cancel_terms: int | None = CANCEL_TERMS) -> Any:
    """The values of a structured formula as sympy expressions, in the result's shape: cancelled
    and factored (flint's factoring) while the multiplied-out result has at most
    ``cancel_terms`` terms, else composed from the definitions without expanding (the same
    rational functions: ``sympy.cancel`` writes them out on demand).

    Parameters
    ----------
    formula : Structured
        A structured formula with symbolic rates.
    cancel_terms : int or None
        The size up to which the values are cancelled (``None``: always).

    Returns
    -------
    sympy.Expr or dict

    Examples
    --------
    >>> from symq.engines.formulas import structured
    >>> expressions_of(structured("n", "empty-probability"))
    (-lambda_1 + mu_1)*(lambda_1 + lambda_2 - mu_1 - mu_2)/(mu_1*(lambda_1 - mu_1 - mu_2))

    Running time: one expansion with cancellation by known factors, or one pass over the
    definitions (``ring:4`` mean numbers, 1.3 million terms: composed in 10 ms).
    """
    from symq.engines.formulas.arith import RF, evaluate_definitions, to_sympy

    shape = formula.shape
    if isinstance(shape, dict) and set(shape) == {"result"}:
        shape = shape["result"]
    if cancel_terms is not None and formula.model.symbols and \
            formula.expanded_size() > cancel_terms:
        env = evaluate_definitions(formula.definitions, lambda symbol: symbol,
                                   lambda r: sympy.Rational(r))

        def named(v: Any) -> Any:
            return {k: named(x) for k, x in v.items()} if isinstance(v, dict) else env[v]
        return named(shape)

    def leaf(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: leaf(x) for k, x in v.items()}
        return to_sympy(v, "factored") if isinstance(v, RF) else v
    values = formula.expanded_values()
    if isinstance(values, dict) and set(values) == {"result"}:
        values = values["result"]
    return leaf(values)


# ------------------------------------------------------------------ tables of values
def row_values(name: str, model: Any, discipline: str, per_class: bool, idle: bool,
               field: Any = None) -> tuple[dict[str, Any], Any]:
    """``({"G", "empty", "idle", "L"}, field or None)`` of ``model`` by the algorithm of the row
    ``name`` (one of :data:`symq.queries.plan.VALUE_ROWS` or ``server-removal``), in ``field``
    (``None``: exact or symbolic sympy values; a ball field: balls where the algorithm takes
    one).

    Parameters
    ----------
    name : str
        The row.
    model : Model
    discipline : str
    per_class, idle : bool
        Also the mean numbers / the idle probabilities.
    field : optional
        The ball field, or ``None``.

    Returns
    -------
    (dict, field or None)

    Examples
    --------
    >>> from symq import example_model
    >>> row_values("nested", example_model("n"), "collaborative", False, False)[0]["empty"]
    9/14

    Running time: that of the algorithm.
    """
    from symq.engines.normalization import entry
    if name == "redundancy":
        from symq.engines.normalization.structured import redundancy_values
        out = redundancy_values(model, discipline, per_class, field)
        return out, out.pop("arith")
    if name == "nested":
        from symq.engines.nested import nested_means
        return nested_means(model), None
    if name == "ring":
        from symq.engines.normalization.ring import ring_values
        out = ring_values(model, per_class, field)
        out.setdefault("idle", None)
        return out, out.pop("arith")
    if name == "server-removal":
        return entry.server_removal_values(model, per_class), None
    return entry.values(model, discipline, per_class, field=field, idle=idle)


def _as_expr(value: Any, arith: Any) -> Any:
    if arith is None:
        value = sympy.sympify(value)
        return sympy.factor(value) if value.free_symbols else value
    return arith.expr(value)


def _shape(request: Request, out: dict[str, Any], arith: Any) -> Any:
    """The quantity's shape from a table of values."""
    q, model = request.quantity, request.model
    if q == "empty-probability":
        return _as_expr(out["empty"], arith)
    if q == "normalizing-constant":
        return _as_expr(out["G"], arith)
    if q == "server-idle-probability":
        return {"per_server": {s: _as_expr(out["idle"][s], arith) for s in model.servers}}
    per = {c: _as_expr(out["L"][c], arith) for c in model.classes}
    total = _as_expr(sum((sympy.sympify(v) for v in per.values()), sympy.Integer(0)), None)
    if q == "mean-number":
        return {"total": total, "per_class": per}
    lam = model.arrival_rates
    return {"total": _as_expr(total / model.arrival_rate(), None),
            "per_class": {c: _as_expr(per[c] / lam[c], None) for c in model.classes}}


def _table_row(name: str):
    def compute(request: Request, arithmetic: str) -> Any:
        if arithmetic in ("interval", "ball"):
            return certified_loop(request, arithmetic, lambda bits: _intervals(
                name, request, arithmetic, bits))
        per_class, idle = _wants(request)
        out, arith = row_values(name, request.model, request.discipline, per_class, idle)
        return _shape(request, out, arith)
    compute.__name__ = name.replace("-", "_")
    compute.__qualname__ = compute.__name__
    model = {"redundancy": "redundancy:4:2", "nested": "n", "ring": "ring:3"}.get(name, "w")
    compute.__doc__ = (f"The ``{name}`` row: its engine's table of values in the quantity's "
                       "shape (exact or symbolic), or certified digits by "
                       ":func:`certified_loop`.\n\nExamples\n--------\n"
                       ">>> from symq import example_model\n"
                       f">>> r = Request(example_model(\"{model}\"), \"empty-probability\")\n"
                       f">>> {compute.__name__}(r, \"exact\") == subset_dp(r, \"exact\")\n"
                       "True\n\n"
                       "Running time: that of the row's engine (``symq routes``).")
    return _row(compute)


redundancy = _table_row("redundancy")
nested = _table_row("nested")
ring = _table_row("ring")
server_removal = _table_row("server-removal")
subset_dp = _table_row("subset-dp")


# ------------------------------------------------------------------ components
@_row
def components(request: Request, arithmetic: str) -> Any:
    """The product over the connected components: each component by the row its own plan chose
    (:func:`symq.queries.plan.component_plans`); $G$ and $\\pi(\\emptyset)$ multiply, idle
    probabilities and mean numbers are each component's ([GR20]_ Thm 3.3: the stationary law
    factors over independent subsystems).

    Examples
    --------
    >>> import symq
    >>> m = symq.Model(compatibility={"1": ["1"], "2": ["2"]}, arrival_rates={"1": "1/2",
    ...                "2": "1/3"}, service_rates={"1": 1, "2": 1})
    >>> from symq.queries.plan import plan
    >>> request = Request(m, "empty-probability")
    >>> components(request, plan(request).chosen.arithmetic)
    1/3

    Running time: the sum of the components' routes.
    """
    plans = request.extra[("component_plans", arithmetic)]   # made by the planner
    if arithmetic in ("interval", "ball"):
        return certified_loop(request, arithmetic,
                              lambda bits: _component_intervals(request, plans, bits))
    per_class, idle = _wants(request)
    out: dict[str, Any] = {"G": sympy.Integer(1), "empty": sympy.Integer(1), "idle": {}, "L": {}}
    for p in plans:
        part, arith = row_values(p.chosen.route.name, p.request.model, request.discipline,
                                 per_class, idle)
        out["G"] *= _as_expr(part["G"], arith)
        out["empty"] *= _as_expr(part["empty"], arith)
        if idle and part.get("idle"):
            out["idle"].update({s: _as_expr(v, arith) for s, v in part["idle"].items()})
        if per_class:
            out["L"].update({c: _as_expr(v, arith) for c, v in part["L"].items()})
    return _shape(request, out, None)


# ------------------------------------------------------------------ certified digits
def _point(value: Any) -> Any:
    from symq.arithmetic.exact import to_fraction
    from symq.arithmetic.interval import Interval
    f = value if isinstance(value, Fraction) else to_fraction(sympy.sympify(value))
    return Interval(f, f)


def _intervals(name: str, request: Request, arithmetic: str, bits: int,
               model: Any = None, wants: tuple[bool, bool] | None = None) -> dict[str, Any]:
    """``{"G", "empty", "idle", "L"}`` as nonnegative intervals at ``bits`` bits: the fixed-point
    kernels (``interval``), the row's algorithm on arb balls (``ball``), or exact points
    (``wants``: the tables, per class and idle, if not those of the request's quantity)."""
    from symq.arithmetic.interval import Interval
    model = model if model is not None else request.model
    per_class, idle = wants or _wants(request)
    discipline = request.discipline
    if arithmetic == "interval" and name == "subset-dp":
        cache = request.extra.setdefault("graphs", {})
        key = id(model)
        if key not in cache:
            from symq.engines.normalization.subsets import SubsetGraph
            cache[key] = SubsetGraph(model)
        if discipline == "collaborative":
            from symq.engines.normalization.interval_collaborative import collaborative_bounds
            return collaborative_bounds(cache[key], bits, per_class, idle)
        from symq.engines.normalization.interval_noncollaborative import noncollaborative_bounds
        res = noncollaborative_bounds(cache[key], bits, per_class, idle)
        res["G"] = res["G_alis" if discipline == "alis" else "G_rais"]
        return res
    if arithmetic == "exact":
        cache = request.extra.setdefault("exact_parts", {})
        if id(model) not in cache:
            out, arith = row_values(name, model, discipline, per_class, idle)
            cache[id(model)] = {k: v if k not in ("G", "empty") else _as_expr(v, arith)
                                for k, v in out.items()}, arith
        out, arith = cache[id(model)]
        res = {"G": _point(out["G"]), "empty": _point(out["empty"]),
               "idle": None if not idle or out.get("idle") is None else
               {s: _point(_as_expr(v, arith)) for s, v in out["idle"].items()}}
        if per_class:
            res["L"] = {c: _point(_as_expr(v, arith)) for c, v in out["L"].items()}
        return res
    from symq.engines.normalization.certified import BallField, ball_endpoints, flint_module
    flint = flint_module()
    with flint.ctx.workprec(bits):
        field = BallField()
        raw, arith = row_values(name, model, discipline, per_class, idle, field)

    def conv(v: Any) -> Any:
        if arith is field:
            if not v.is_finite():
                return Interval(Fraction(0), Fraction(10) ** 9999)
            lower, upper = ball_endpoints(v)
            return Interval(max(lower, Fraction(0)), upper)
        return _point(v)
    res = {"G": conv(raw["G"]), "empty": conv(raw["empty"]),
           "idle": None if not idle or raw.get("idle") is None else
           {s: conv(v) for s, v in raw["idle"].items()}}
    if per_class:
        res["L"] = {c: conv(v) for c, v in raw["L"].items()}
    return res


def _component_intervals(request: Request, plans: list, bits: int) -> dict[str, Any]:
    from symq.arithmetic.interval import merge_components
    per_class, idle = _wants(request)
    parts = [_intervals(p.chosen.route.name, request, p.chosen.arithmetic, bits, p.request.model)
             for p in plans]
    return merge_components(request.model, parts, per_class, idle)


def certified_loop(request: Request, arithmetic: str, intervals_at) -> Any:
    """The one precision-raising loop of every certified row: enclosures of the quantity at a
    working precision (``intervals_at(bits)``, nonnegative intervals), certified to
    ``request.digits`` significant digits or the precision raised by what the widest interval
    lacks, up to 16 times the first (docs/howto-digits.md). Mean response times are Little's law
    $T_c=L_c/\\lambda_c$, $T=L/\\lambda$ on the intervals (exact divisions keep them enclosures).

    Parameters
    ----------
    request : Request
        Numeric rational rates; ``digits``.
    arithmetic : str
        ``interval`` or ``ball`` (the first precision).
    intervals_at : callable
        ``bits -> {"G", "empty", "idle", "L"}`` of intervals.

    Returns
    -------
    Evaluated or dict
        The quantity's shape, certified digits (``exact`` is ``None``).

    Raises
    ------
    UnsupportedError
        No precision up to the cap certified every value (a value on a rounding tie).

    Examples
    --------
    >>> from symq import example_model
    >>> subset_dp(Request(example_model("n"), "mean-number", digits=8), "interval")["total"]
    Evaluated(exact=None, value='0.52380952')

    Running time: the enclosures at each precision tried (usually one).
    """
    import math
    from symq.arithmetic.interval import Interval
    from symq.arithmetic.numeric import Evaluated
    from symq.arithmetic.exact import to_fraction
    digits, model, q = request.digits or 30, request.model, request.quantity
    size = len(model.servers) + len(model.classes)
    bits = int(digits * math.log2(10)) + 24 + (len(model.servers) if arithmetic == "interval"
                                                else 8 + 4 * size)
    lam = {c: to_fraction(v) for c, v in model.arrival_rates.items()} if q in _MEANS else {}

    def items_at(bits: int) -> dict:
        raw = intervals_at(bits)
        if q == "empty-probability":
            return {("",): raw["empty"]}
        if q == "normalizing-constant":
            return {("",): raw["G"]}
        if q == "server-idle-probability":
            return {("per_server", s): raw["idle"][s] for s in model.servers}
        per = {c: raw["L"][c] for c in model.classes}
        total = Interval(sum((v.lower for v in per.values()), Fraction(0)),
                         sum((v.upper for v in per.values()), Fraction(0)))
        if q == "mean-response-time":
            lam_total = sum(lam.values(), Fraction(0))
            per = {c: Interval(v.lower / lam[c], v.upper / lam[c]) for c, v in per.items()}
            total = Interval(total.lower / lam_total, total.upper / lam_total)
        return {("total",): total, **{("per_class", c): v for c, v in per.items()}}

    balls, _ = raise_precision(items_at, digits, bits)
    if list(balls) == [("",)]:
        return Evaluated(None, balls[("",)].text)
    out: dict[str, Any] = {}
    for key, ball in balls.items():
        if len(key) == 1:
            out[key[0]] = Evaluated(None, ball.text)
        else:
            out.setdefault(key[0], {})[key[1]] = Evaluated(None, ball.text)
    return out


def raise_precision(items_at, digits: int, bits: int, limit: int | None = None
                    ) -> tuple[dict, int]:
    """The precision-raising loop: ``items_at(bits)`` (nonnegative intervals by key) until every
    interval certifies ``digits`` digits, raising the bits by what the widest lacks, up to
    ``limit`` (default 16 times the first).

    Parameters
    ----------
    items_at : callable
        ``bits -> {key: Interval}``.
    digits, bits : int
        Digits wanted; first working precision.
    limit : int, optional
        The largest precision tried.

    Returns
    -------
    (dict, int)
        ``{key: Ball}`` and the bits that certified them.

    Raises
    ------
    UnsupportedError
        No precision up to ``limit`` certified every value (a value on a rounding tie).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from symq.arithmetic.interval import Interval
    >>> raise_precision(lambda b: {"x": Interval(F(1, 3), F(1, 3))}, 5, 64)[0]["x"].text
    '0.33333'

    Running time: the enclosures at each precision tried (usually one).
    """
    from symq.engines.normalization.certified import certify_intervals
    limit = limit or 16 * bits
    while bits <= limit:
        balls, grow = certify_intervals(items_at(bits), digits, bits)
        if balls is not None:
            return balls, bits
        bits += grow
    raise UnsupportedError(f"could not certify {digits} digits up to {limit} bits (a value on a "
                           "rounding tie?); use the exact route (--exact)")


# ------------------------------------------------------------------ derivatives
@_row
def derivative_formulas(request: Request, arithmetic: str) -> Any:
    """The partial derivatives by the rates ``request.wrt`` (default: every rate symbol) as a
    structured formula: the quantity's structured formula differentiated through its named
    definitions by the chain rule (:func:`symq.engines.formulas.derivative.derivative`).

    Examples
    --------
    >>> import symq
    >>> f = derivative_formulas(Request(symq.model("n"), "empty-probability", wrt=["mu_2"],
    ...                                 derivatives=True), "structured")
    >>> f.at({"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1, "mu_2": 1})
    3/49

    Running time: that of the structured formula, plus a few terms per definition and rate.
    """
    from symq.engines.formulas import structured
    from symq.engines.formulas.derivative import derivative
    from symq.engines.sensitivity import rate_order
    names = request.wrt or sorted((s.name for s in request.model.symbols), key=rate_order)
    return derivative(structured(request.model, request.quantity, request.discipline), names)


@_row
def reverse_mode(request: Request, arithmetic: str) -> Any:
    """Values, partial derivatives and elasticities at one point
    (:func:`symq.engines.sensitivity.gradient`: the subset DP recorded, one backward sweep per
    output), exact or certified on balls. Returns a
    :class:`~symq.engines.sensitivity.Sensitivities`.

    Examples
    --------
    >>> import symq
    >>> g = reverse_mode(Request(symq.example_model("n"), "empty-probability", wrt=["mu_2"],
    ...                          derivatives=True), "exact")
    >>> g.derivative("", "mu_2")
    Fraction(3, 49)

    Running time: about three times the subset DP per output swept (``symq routes``).
    """
    from symq.engines.sensitivity import gradient
    return gradient(request.base or request.model, request.quantity, request.discipline,
                    request.values, request.wrt, arithmetic, request.digits or 30,
                    request.labels)
