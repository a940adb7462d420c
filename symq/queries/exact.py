r"""The normalization values of one model by a named algorithm, for code that wants a table of
values rather than a :class:`~symq.queries.solve.Result`: the engines' functions of
:mod:`symq.engines.normalization` with a ``method=`` (``auto``: the model's structure picks the
algorithm, through the same facts as the planner), and the certified tables. Everything here
routes through :mod:`symq.queries.compute`; the engines stay free of route decisions.

Examples
--------
>>> from symq import example_model
>>> structure_route(example_model("n"), "collaborative"), empty_probability(example_model("n"))
('nested', 9/14)
>>> empty_probability(example_model("w"), method="server-removal")
1547/2480
"""

from __future__ import annotations

import sympy

from symq.engines.normalization import *  # noqa: F401,F403 - the engines' names, re-exported
from symq.engines.normalization import DISCIPLINES, components, is_symmetric_redundancy  # noqa: F401
from symq.errors import ModelError, UnsupportedError
from symq.models.model import Model
from symq.queries.compute import _as_expr
from symq.queries.facts import facts_of

METHODS = ("auto", "subset-dp", "server-removal", "redundancy", "nested", "components", "ring")


def structure_route(model: Model, discipline: str) -> str:
    """The algorithm the model's structure picks: ``components``, ``redundancy``, ``nested``
    or ``ring`` (collaborative), else ``subset-dp``.

    Examples
    --------
    >>> from symq import model
    >>> structure_route(model("ring:4"), "collaborative"), structure_route(model("ring:4"), "alis")
    ('ring', 'subset-dp')

    Running time: the structure facts (once per model).
    """
    name = facts_of(model).structure(discipline)
    return "subset-dp" if name == "general" else name


def values(model: Model, discipline: str = "collaborative", per_class: bool = False,
           method: str = "auto", field=None, idle: bool = True):
    """``({"G", "empty", "idle", "L"}, field or None)`` by the algorithm ``method``
    (:data:`METHODS`; ``auto``: :func:`structure_route`).

    Examples
    --------
    >>> from symq import example_model
    >>> values(example_model("w"), "alis")[0]["empty"]
    663/1216

    Running time: that of the algorithm.
    """
    from symq.queries.compute import row_values
    if discipline not in DISCIPLINES:
        raise ModelError(f"unknown discipline {discipline!r}; available: {', '.join(DISCIPLINES)}")
    if method not in METHODS:
        raise ModelError(f"unknown method {method!r}; available: {', '.join(METHODS)}")
    if model.is_empty:
        raise ModelError("the model has no class; give it at least one class and server")
    facts = facts_of(model)
    if method == "auto":
        method = structure_route(model, discipline)
    if method == "components":
        return _component_values(model, discipline, per_class, field, idle)
    checks = {"redundancy": (facts.redundancy, "method 'redundancy' needs a redundancy:K:D "
                             "model (every D-subset of the servers one class, equal rates)"),
              "nested": (discipline == "collaborative" and facts.nested, "method 'nested' needs "
                         "a nested model and the collaborative discipline"),
              "ring": (discipline == "collaborative" and facts.ring, "method 'ring' needs a ring "
                       "(class i compatible with servers i and i+1 mod M) and the collaborative "
                       "discipline")}
    if method in checks and not checks[method][0]:
        raise ModelError(checks[method][1] + "; use method='auto'")
    if method == "server-removal" and discipline != "collaborative":
        raise UnsupportedError("method 'server-removal' is the collaborative recursion of "
                               "Prop 6.2; use method='subset-dp' for ALIS and RAIS")
    from symq.engines.normalization.entry import check_stability_fast
    check_stability_fast(model, method if method in ("redundancy", "nested") else None)
    return row_values(method, model, discipline, per_class, idle, field)


def _component_values(model, discipline, per_class, field, idle):
    parts = [values(part, discipline, per_class, "auto", field, idle)
             for part in facts_of(model).components]
    if field is not None:
        one = field.one

        def conv(v, arith):
            return v if arith is field else field.value(_as_expr(v, arith))
    else:
        one, conv = sympy.Integer(1), _as_expr
    out = {"G": one, "empty": one, "idle": {}, "L": {}}
    for part, arith in parts:
        out["G"] = out["G"] * conv(part["G"], arith)
        out["empty"] = out["empty"] * conv(part["empty"], arith)
        if part.get("idle") is not None:
            out["idle"].update({s: conv(v, arith) for s, v in part["idle"].items()})
        if per_class:
            out["L"].update({c: conv(v, arith) for c, v in part["L"].items()})
    out["idle"] = {s: out["idle"][s] for s in model.servers} if idle else None
    if per_class:
        out["L"] = {c: out["L"][c] for c in model.classes}
    if field is None and not model.is_numeric:
        out["G"], out["empty"] = sympy.factor(out["G"]), sympy.factor(out["empty"])
    return out, field


def _total(parts, arith):
    return sum(parts, arith.zero) if arith is not None else sympy.Add(*parts)


def empty_probability(model: Model, discipline: str = "collaborative", method: str = "auto"):
    """$P(\\emptyset)$ by ``method`` (as :func:`values`)."""
    out, arith = values(model, discipline, method=method, idle=False)
    return _as_expr(out["empty"], arith)


def normalizing_constant(model: Model, discipline: str = "collaborative", method: str = "auto"):
    """$G$ by ``method`` (as :func:`values`)."""
    out, arith = values(model, discipline, method=method, idle=False)
    return _as_expr(out["G"], arith)


def server_idle_probability(model: Model, discipline: str = "collaborative",
                            method: str = "auto"):
    """``{"per_server": {server: P(idle)}}`` by ``method`` (as :func:`values`)."""
    out, arith = values(model, discipline, method=method)
    return {"per_server": {s: _as_expr(v, arith) for s, v in out["idle"].items()}}


def mean_number(model: Model, discipline: str = "collaborative", method: str = "auto"):
    """``{"total", "per_class"}`` mean numbers by ``method`` (as :func:`values`)."""
    out, arith = values(model, discipline, per_class=True, method=method, idle=False)
    per_class = {c: _as_expr(v, arith) for c, v in out["L"].items()}
    return {"total": _as_expr(_total(out["L"].values(), arith), arith), "per_class": per_class}


def mean_response_time(model: Model, discipline: str = "collaborative", method: str = "auto"):
    """Little's law on :func:`mean_number`."""
    means = mean_number(model, discipline, method)
    lam = model.arrival_rates
    per_class = {c: _as_expr(sympy.sympify(v) / lam[c], None)
                 for c, v in means["per_class"].items()}
    total = _as_expr(sympy.sympify(means["total"]) / model.arrival_rate(), None)
    return {"total": total, "per_class": per_class}


def certified_quantity(model: Model, quantity: str, discipline: str = "collaborative",
                       digits: int = 30, kernels: bool = True):
    """Certified digits of a quantity (:func:`symq.solve` with ``exact=False``, the interval
    kernels or, with ``kernels=False``, balls)."""
    from symq.queries.solve import solve
    method = "interval" if kernels and facts_of(model).rational else "ball"
    try:
        return solve(model, quantity, discipline, digits=digits, exact=False, method=method,
                     no_limits=True).items
    except ModelError:
        return solve(model, quantity, discipline, digits=digits, exact=False, method="ball",
                     no_limits=True).items


def certified_values(model: Model, discipline: str, per_class: bool, digits: int,
                     method: str = "auto", max_bits=None, start_bits=None, idle: bool = True,
                     kernels: bool = True):
    """``({"G", "empty", "idle", "L", "L_total"} of Ball, bits)``: every value certified to
    ``digits`` digits by one precision loop (kernels on the general DP's components, balls on
    the others; ``method="subset-dp"`` the kernels on the whole model)."""
    import math
    from fractions import Fraction
    from symq.arithmetic.interval import Interval, merge_components
    from symq.queries.compute import _intervals, raise_precision
    from symq.queries.request import Request
    if not model.is_numeric:
        raise UnsupportedError("certified digits need numeric rates: set every symbol")
    request = Request(model, "mean-number" if per_class else
                      "server-idle-probability" if idle else "empty-probability", discipline,
                      digits=digits)
    rational = facts_of(model).rational

    def part_run(part, bits):
        name = structure_route(part, discipline) if method != "subset-dp" else "subset-dp"
        arithmetic = "interval" if kernels and rational and name == "subset-dp" else "ball"
        sub = Request(part, request.quantity, discipline, digits=digits, extra=request.extra)
        return _intervals(name, sub, arithmetic, bits, part, (per_class, idle))

    parts = [model] if method == "subset-dp" else facts_of(model).components
    kernel = kernels and rational
    bits = start_bits or (int(digits * math.log2(10)) + 24 + len(model.servers) if kernel else
                          int(digits * math.log2(10)) + 32 + 4 * (len(model.classes)
                                                                   + len(model.servers)))
    shape: dict = {}

    def items_at(bits: int) -> dict:
        results = [part_run(p, bits) for p in parts]
        raw = results[0] if len(results) == 1 else merge_components(model, results, per_class,
                                                                    idle)
        shape["raw"] = raw
        flat = {("G",): raw["G"], ("empty",): raw["empty"]}
        for s, v in (raw.get("idle") or {}).items():
            flat[("idle", s)] = v
        if per_class:
            flat.update({("L", c): v for c, v in raw["L"].items()})
            flat[("L_total",)] = raw.get("L_total") or Interval(
                sum((v.lower for v in raw["L"].values()), Fraction(0)),
                sum((v.upper for v in raw["L"].values()), Fraction(0)))
        return flat

    balls, bits = raise_precision(items_at, digits, bits, max_bits)
    raw = shape["raw"]
    out = {"G": balls[("G",)], "empty": balls[("empty",)],
           "idle": None if not raw.get("idle") else {s: balls[("idle", s)] for s in raw["idle"]}}
    if per_class:
        out["L"] = {c: balls[("L", c)] for c in raw["L"]}
        out["L_total"] = balls[("L_total",)]
    return out, bits


def exact_is_cheap(model: Model, discipline: str) -> bool:
    """Whether the planner answers ``mean-number`` of ``model`` in exact rationals by default."""
    from symq.queries.plan import arithmetic_for
    return arithmetic_for(model, "mean-number", discipline, None) == "exact"


def interval_route(model: Model, discipline: str, method: str = "auto") -> bool:
    """Whether the fixed-point interval kernels answer a certified request on ``model``."""
    from symq.queries.routes import KERNEL_SERVERS
    f = facts_of(model)
    if not f.rational or method not in ("auto", "subset-dp", "components"):
        return False
    most = KERNEL_SERVERS[discipline]
    if method == "subset-dp":
        return f.servers <= most
    return any(structure_route(p, discipline) == "subset-dp" and len(p.servers) <= most
               for p in f.components)


def noncollaborative_intervals(model: Model, discipline: str, per_class: bool, idle: bool,
                               bits: int) -> dict:
    """Interval enclosures of the ALIS/RAIS values at ``bits`` bits: the fixed-point kernels on
    each component the general DP solves, the exact route (points) on structured ones, merged
    over the components (products of $G$ and $\\pi(\\emptyset)$).

    Parameters
    ----------
    model : Model
        Rational rates.
    discipline : str
        ``"alis"`` or ``"rais"``.
    per_class, idle : bool
        Also the mean numbers / the idle probabilities.
    bits : int
        Fixed-point bits.

    Returns
    -------
    dict
        ``{"G", "empty", "idle", "L"}`` of intervals (``"L_total"`` with ``per_class``).

    Examples
    --------
    >>> from symq import example_model
    >>> noncollaborative_intervals(example_model("w"), "rais", True, False, 80)["L"]["3"].certify(12)
    '0.301353744939'

    Running time: that of the kernels on the largest component.
    """
    from symq.arithmetic.interval import merge_components
    from symq.queries.compute import _intervals
    from symq.queries.request import Request
    request = Request(model, "mean-number", discipline)
    parts = []
    for part in facts_of(model).components:
        name = structure_route(part, discipline)
        arithmetic = "interval" if name == "subset-dp" else "exact"
        parts.append(_intervals(name, request, arithmetic, bits, part, (per_class, idle)))
    return merge_components(model, parts, per_class, idle)
