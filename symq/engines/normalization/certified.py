r"""Certified decimal digits of the normalization quantities by ball arithmetic: the subset DPs of
this package run unchanged on python-flint's ``arb`` balls (a midpoint and a rigorous radius) at
a working precision chosen from the number of digits asked for and the size of the problem, and
the precision is raised until every ball rounds to one $N$-digit decimal: a value is printed only
when both endpoints of its ball, hence every point of it and the exact value, round (half to
even, as :func:`symq.arithmetic.numeric.round_fraction` rounds exact rationals) to the same $N$ significant
digits. The DPs add and multiply positive numbers and divide by positive slacks $r(X)$, so the
radius stays a few ulps per level; the two places where the formulas subtract (the slacks
$r(X)=\mu(X)-\lambda(R(X))$ and the rates $L(I)=\lambda-\lambda(R(\mathcal M\setminus I))$ of
ALIS and RAIS, and $1-E[\text{busy}]/K$ of ``redundancy:K:D``) are computed exactly in integers
or rewritten as positive sums before any rounding, so no cancellation inflates a ball. Where a
value cannot be certified (the exact value is a rounding tie, say) the exact rational route
answers instead (the route table, :mod:`symq.queries.routes`, falls back to it).

Examples
--------
>>> from symq import example_model
>>> from symq.engines.normalization.certified import certified_quantity
>>> certified_quantity(example_model("w"), "empty-probability", "alis", digits=20)
Evaluated(exact=None, value='0.54523026315789473684')
>>> from sympy import Rational
>>> str(Rational(663, 1216).evalf(21))
'0.545230263157894736842'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from symq.errors import ModelError, UnsupportedError
from symq.arithmetic.exact import HAVE_FLINT, flint_module, to_fraction
from symq.models.model import Model
from symq.arithmetic.numeric import round_fraction
from symq.engines.normalization.entry import DISCIPLINES, structure_route, values
from symq.arithmetic.interval import Interval, certify_interval, merge_components
from symq.engines.normalization.structured import components
from symq.engines.normalization.subsets import SubsetGraph, unions

__all__ = ["BallField", "Ball", "certified_values", "certified_quantity", "certify",
           "ball_endpoints", "exact_is_cheap", "interval_route", "QUANTITIES"]

#: the quantities this module certifies (the names of :mod:`symq.queries.quantities`)
QUANTITIES = ("empty-probability", "normalizing-constant", "server-idle-probability",
              "mean-number", "mean-response-time")


class BallField:
    """The field interface of :mod:`symq.arithmetic.exact` on ``arb`` balls at the current flint precision.

    Only use it inside ``flint.ctx.workprec(prec)`` (see :func:`certified_values`): the
    precision of every operation is the context's.
    """

    numeric = True
    kind = "arb"

    def __init__(self) -> None:
        flint = flint_module()
        if flint is None:  # pragma: no cover - depends on the environment
            raise UnsupportedError("certified digits need python-flint, a core dependency of "
                                   "symq: reinstall symq (pip install -e .)")
        self._arb, self._fmpq = flint.arb, flint.fmpq
        self.zero = self._arb(0)
        self.one = self._arb(1)

    def value(self, expr: Any) -> Any:
        """An exact rational (sympy, ``Fraction``, ``int``) as a ball (radius one rounding)."""
        f = to_fraction(expr, "rate", "; give rates as fractions such as 3/10", UnsupportedError)
        if f.denominator == 1:
            return self._arb(f.numerator)
        return self._arb(self._fmpq(f.numerator, f.denominator))

    def make(self, p: int, q: int) -> Any:
        """The ball of $p/q$ for integers."""
        return self._arb(self._fmpq(p, q)) if q != 1 else self._arb(p)

    def expr(self, value: Any) -> Any:  # the entry point's exact conversions never reach here
        raise UnsupportedError("a ball has no exact value; use certify()")


@dataclass(frozen=True)
class Ball:
    """A certified value: its ``digits`` correct significant digits and the enclosing ball
    ``[lower, upper]`` (exact rationals) that certified them."""

    text: str
    lower: Fraction
    upper: Fraction

    def contains(self, value: Any) -> bool:
        """Whether an exact value lies in the ball."""
        return self.lower <= to_fraction(value) <= self.upper


def ball_endpoints(ball: Any) -> tuple[Fraction, Fraction]:
    """The exact endpoints of an ``arb`` ball (midpoint and radius are exact binary numbers).

    Parameters
    ----------
    ball : flint.arb
        A finite ball.

    Returns
    -------
    tuple of two Fraction
        ``(mid - rad, mid + rad)``, exact.

    Examples
    --------
    >>> from flint import arb
    >>> ball_endpoints(arb(1) / 4)
    (Fraction(1, 4), Fraction(1, 4))

    Running time: O(p) for a p-bit midpoint.
    """
    mid_m, mid_e = ball.mid().man_exp()
    rad_m, rad_e = ball.rad().man_exp()

    def exact(m, e):
        m, e = int(m), int(e)
        return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** -e)
    mid, rad = exact(mid_m, mid_e), exact(rad_m, rad_e)
    return mid - rad, mid + rad


def certify(ball: Any, digits: int) -> Ball | None:
    """The ``digits``-digit decimal that every point of ``ball`` rounds to, or None.

    Rounding to $N$ significant digits is monotone, so it is enough that both endpoints round
    to the same string.

    Parameters
    ----------
    ball : flint.arb
        The enclosure.
    digits : int
        Significant digits wanted.

    Returns
    -------
    Ball or None
        The certified text with the ball's exact endpoints, or ``None`` (an infinite ball or
        endpoints that round differently).

    Examples
    --------
    >>> from flint import arb
    >>> certify(arb(1) / 3, 10).text
    '0.3333333333'
    >>> certify(arb("0.125 +/- 1e-30"), 2) is None   # a rounding tie inside the ball
    True

    Running time: O(digits^2) for the two roundings.
    """
    if not ball.is_finite():
        return None
    lower, upper = ball_endpoints(ball)
    text = certify_interval(lower, upper, digits)
    return None if text is None else Ball(text, lower, upper)


def exact_is_cheap(model: Model, discipline: str) -> bool:
    """The default choice of arithmetic: exact rationals where they are cheap (one class,
    structured models, collaborative models with at most 2000 unions of class server sets or
    components of at most 14 servers, ALIS/RAIS components of at most 10 servers), balls
    otherwise.

    Parameters
    ----------
    model : Model
        The model whose classes, compatibility sets and components are counted.
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"`` (it sets which of the limits above applies).

    Returns
    -------
    bool
        ``True`` for exact rationals, ``False`` for arb balls.

    Examples
    --------
    Model W splits into components small enough for exact ALIS:

    >>> from symq import example_model
    >>> exact_is_cheap(example_model("w"), "alis")
    True

    Running time: O(M J) plus, for collaborative models, at most 2000 unions counted (O(2000 J)).
    """
    if len(model.classes) == 1 or structure_route(model, discipline) in ("redundancy", "nested"):
        return True
    parts = components(model)
    if discipline == "collaborative":
        index = {s: j for j, s in enumerate(model.servers)}
        masks = [sum(1 << index[s] for s in v) for v in model.compatibility.values()]
        return len(parts) == 1 and unions(masks, limit=2000) is not None or \
            max(len(part.servers) for part in parts) <= 14
    return max(len(part.servers) for part in parts) <= 10


def _working_precision(model: Model, digits: int) -> int:
    """Bits for ``digits`` decimal digits plus guard bits that grow with the DP's depth."""
    size = len(model.servers) + len(model.classes)
    return int(digits * math.log2(10)) + 32 + 4 * size


# ---------------------------------------------------------------- collaborative intervals
def interval_route(model: Model, discipline: str, method: str) -> bool:
    """Whether the fixed-point interval kernels of
    :mod:`symq.engines.normalization.interval_collaborative` answer: the collaborative discipline on
    numeric rational rates (numpy installed), the general DP (``auto``, ``subset-dp``,
    ``components``) on at least one component; structured components keep the ball route.
    ALIS and RAIS: the same, by :mod:`symq.engines.normalization.interval_noncollaborative` (at most
    26 servers per component; structured components exact).

    Parameters
    ----------
    model : Model
        Numeric rates.
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.
    method : str
        ``"auto"``, ``"subset-dp"`` or ``"components"``; other methods never take the kernels.

    Returns
    -------
    bool

    Examples
    --------
    >>> from symq import example_model
    >>> interval_route(example_model("w"), "alis", "auto"), interval_route(example_model("n"), "collaborative", "auto")
    (True, False)

    Running time: O(J M) plus the component search.
    """
    if discipline not in DISCIPLINES or method not in ("auto", "subset-dp", "components"):
        return False
    if any(not getattr(r, "is_Rational", False) for r in (*model.arrival_rates.values(),
                                                          *model.service_rates.values())):
        return False
    most = 62 if discipline == "collaborative" else 26
    if method == "subset-dp":
        return len(model.servers) <= most
    return any(structure_route(part, discipline) == "subset-dp" and len(part.servers) <= most
               for part in components(model))


def _ball_intervals(model: Model, per_class: bool, idle: bool, bits: int) -> dict[str, Any]:
    """The values of a structured component (ring, nested, redundancy) by the ball route at
    ``bits`` bits, as nonnegative :class:`Interval` objects (exact values: points)."""
    flint = flint_module()
    with flint.ctx.workprec(bits):
        field = BallField()
        raw, arith = values(model, "collaborative", per_class, "auto", field=field, idle=idle)

    def conv(v):
        if arith is field:
            if not v.is_finite():
                return Interval(Fraction(0), Fraction(10) ** 9999)
            lower, upper = ball_endpoints(v)
            return Interval(max(lower, Fraction(0)), upper)
        f = v if isinstance(v, Fraction) else to_fraction(sympy.sympify(v))
        return Interval(f, f)
    out = {"G": conv(raw["G"]), "empty": conv(raw["empty"]),
           "idle": None if raw["idle"] is None else {s: conv(v) for s, v in raw["idle"].items()}}
    if per_class:
        out["L"] = {c: conv(v) for c, v in raw["L"].items()}
    return out


def _collaborative_intervals(model: Model, per_class: bool, idle: bool, bits: int, method: str,
                             graphs: dict) -> dict[str, Any]:
    r"""Interval enclosures of the collaborative values at ``bits`` bits: the fixed-point kernels
    on each component that the general DP handles, the ball route on structured ones, combined
    by $G=\prod G_i$, $\pi(\emptyset)=\prod\pi_i(\emptyset)$ (monotone in nonnegative
    intervals); idle probabilities and mean numbers are those of the server's or class's own
    component. ``graphs`` caches the union tables between precision raises."""
    from symq.engines.normalization.interval_collaborative import collaborative_bounds

    parts = [model] if method == "subset-dp" else components(model)
    results = []
    for k, part in enumerate(parts):
        if method == "subset-dp" or structure_route(part, "collaborative") == "subset-dp":
            if k not in graphs:
                graphs[k] = SubsetGraph(part)
            results.append(collaborative_bounds(graphs[k], bits, per_class, idle))
        else:
            results.append(_ball_intervals(part, per_class, idle, bits))
    return merge_components(model, results, per_class, idle)


def _certify_intervals(items: dict[Any, Interval], digits: int, bits: int
                       ) -> tuple[dict[Any, Ball] | None, int]:
    """Every interval as a :class:`Ball` with ``digits`` digits, or ``(None, more_bits)``: the
    bits to add, estimated from the widest relative width (at least 16)."""
    out, grow = {}, 0
    for key, box in items.items():
        text = certify_interval(box.lower, box.upper, digits)
        if text is not None:
            out[key] = Ball(text, box.lower, box.upper)
            continue
        if box.lower <= 0:
            grow = max(grow, bits)
        else:
            width = (box.upper - box.lower) / box.lower
            need = (math.log2(width) if width > 0 else 0) + digits * math.log2(10) + 12
            grow = max(grow, 16, int(math.ceil(need)))
    return (out, 0) if not grow else (None, grow)


def _interval_bits(model: Model, digits: int) -> int:
    """First fixed-point precision: the digits plus guard bits for the number of unions (the
    floor/ceil runs lose about log2(U) <= M bits on the benchmark's graphs; a wider interval
    raises the precision by what it lacks)."""
    return int(digits * math.log2(10)) + 24 + len(model.servers)


def _discipline_intervals(discipline: str, model: Model, per_class: bool, idle: bool, bits: int,
                          method: str, graphs: dict) -> dict[str, Any]:
    """The interval kernels of the discipline (collaborative, or ALIS/RAIS)."""
    if discipline == "collaborative":
        return _collaborative_intervals(model, per_class, idle, bits, method, graphs)
    from symq.engines.normalization.interval_noncollaborative import noncollaborative_intervals
    return noncollaborative_intervals(model, discipline, per_class, idle, bits, method, graphs)


def _certified_intervals(model: Model, per_class: bool, digits: int, idle: bool, method: str,
                         start_bits: int | None, max_bits: int | None,
                         discipline: str = "collaborative") -> tuple[dict[str, Any], int]:
    """:func:`certified_values` by the collaborative interval kernels (precision raised by the
    width the previous run showed, up to ``max_bits``). Stability: the kernels check
    $r(X)>0$ on every union of their components (the union conditions), the ball route on the
    others."""
    bits = start_bits or _interval_bits(model, digits)
    limit = max_bits or 16 * bits
    graphs: dict = {}
    while bits <= limit:
        raw = _discipline_intervals(discipline, model, per_class, idle, bits, method, graphs)
        flat: dict[Any, Interval] = {("G",): raw["G"], ("empty",): raw["empty"]}
        for s, v in (raw["idle"] or {}).items():
            flat[("idle", s)] = v
        if per_class:
            flat.update({("L", c): v for c, v in raw["L"].items()})
            flat[("L_total",)] = raw["L_total"]
        balls, grow = _certify_intervals(flat, digits, bits)
        if balls is not None:
            out: dict[str, Any] = {"G": balls[("G",)], "empty": balls[("empty",)],
                                   "idle": None if raw["idle"] is None else
                                   {s: balls[("idle", s)] for s in raw["idle"]}}
            if per_class:
                out["L"] = {c: balls[("L", c)] for c in raw["L"]}
                out["L_total"] = balls[("L_total",)]
            return out, bits
        bits += grow
    raise UnsupportedError(f"could not certify {digits} digits up to {limit} bits (a value on a "
                           "rounding tie?); use the exact route (--exact)")


def certified_values(model: Model, discipline: str, per_class: bool, digits: int,
                     method: str = "auto", max_bits: int | None = None,
                     start_bits: int | None = None, idle: bool = True, kernels: bool = True
                     ) -> tuple[dict[str, Any], int]:
    r"""The values of :func:`symq.engines.normalization.entry.values` as :class:`Ball` objects, each
    with ``digits`` certified digits, and the working precision (bits) that certified them.

    Parameters
    ----------
    model : Model
        Exact rational rates.
    discipline, method
        As :func:`~symq.engines.normalization.entry.values`.
    per_class : bool
        Also the mean numbers.
    digits : int
        Correct significant digits wanted.
    max_bits : int, optional
        Give up above this precision (default 16 times the first working precision).
    start_bits : int, optional
        First working precision (default from ``digits`` and the size of the model).
    idle : bool
        Also the idle probabilities (``"idle"`` is ``None`` otherwise).
    kernels : bool
        Collaborative models with rational rates run on the fixed-point interval kernels of
        :mod:`symq.engines.normalization.interval_collaborative` (floor and ceil runs of the same integer
        DP, mean numbers by its adjoint); ``False`` keeps the ball route (for comparisons).

    Returns
    -------
    (dict, int)
        ``{"G", "empty", "idle": {server: Ball}, "L": {class: Ball}}`` and the bits used; values
        that the route computes exactly (nested trees) are certified from the exact rational.

    Raises
    ------
    UnsupportedError
        python-flint missing, symbolic rates, or no precision up to ``max_bits`` certified every
        value (a rounding tie: use the exact route).

    Examples
    --------
    >>> from symq import example_model
    >>> n = example_model("n")   # the N model, lambda = (1/4, 1/4), mu = (1, 1)
    >>> out, bits = certified_values(n, "collaborative", True, 12)
    >>> out["empty"].text, out["L"]["1"].text
    ('0.642857142857', '0.357142857143')

    Running time: that of the DP (module docstring of each discipline) times the number of
    precision raises (usually none), at O(bits^1.6) per ball operation; collaborative models on
    the kernels: O(E) integer operations for E <= U J steps between U unions (mean numbers:
    O(E + U J)).
    """
    if not HAVE_FLINT:  # pragma: no cover - depends on the environment
        raise UnsupportedError("certified digits need python-flint; use exact rationals")
    if not model.is_numeric:
        raise UnsupportedError("certified digits need numeric rates: set every symbol")
    if kernels and interval_route(model, discipline, method):
        return _certified_intervals(model, per_class, digits, idle, method, start_bits, max_bits,
                                    discipline)
    flint = flint_module()
    bits = start_bits or _working_precision(model, digits)
    limit = max_bits or 16 * bits
    while bits <= limit:
        with flint.ctx.workprec(bits):
            field = BallField()
            raw, arith = values(model, discipline, per_class, method, field=field, idle=idle)
            if per_class:  # every ball operation inside the scoped precision
                raw["L_total"] = sum(raw["L"].values(), field.zero) if arith is field else \
                    sum(to_fraction(sympy.sympify(v)) for v in raw["L"].values())
        out = _certify_all(raw, arith, field, digits, per_class)
        if out is not None:
            return out, bits
        bits *= 2
    raise UnsupportedError(f"could not certify {digits} digits up to {limit} bits (a value on a "
                           "rounding tie?); use the exact route (--exact)")


def _certify_all(raw: dict, arith: Any, field: BallField, digits: int, per_class: bool
                 ) -> dict[str, Any] | None:
    def one(v):
        if arith is field:
            return certify(v, digits)
        exact = to_fraction(sympy.sympify(v) if not isinstance(v, Fraction) else v)
        return Ball(round_fraction(exact, digits), exact, exact)
    out: dict[str, Any] = {}
    for key in ("G", "empty"):
        out[key] = one(raw[key])
        if out[key] is None:
            return None
    out["idle"] = {} if raw["idle"] is not None else None
    for s, v in (raw["idle"] or {}).items():
        out["idle"][s] = one(v)
        if out["idle"][s] is None:
            return None
    if per_class:
        out["L"] = {}
        for c, v in raw["L"].items():
            out["L"][c] = one(v)
            if out["L"][c] is None:
                return None
        total = raw["L_total"]
        out["L_total"] = one(total) if arith is field else Ball(round_fraction(total, digits),
                                                                 total, total)
        if out["L_total"] is None:
            return None
    return out


def certified_quantity(model: Model, quantity: str, discipline: str = "collaborative",
                       digits: int = 30, kernels: bool = True) -> Any:
    """A quantity of :data:`QUANTITIES` as certified digits: :class:`~symq.arithmetic.numeric.Evaluated`
    values with ``exact=None``, in the shape of :func:`symq.queries.quantities.derive`. Which
    arithmetic answers a request (exact, these kernels, balls) is decided by the route table
    (:mod:`symq.queries.routes`); this function computes.

    Parameters
    ----------
    model : Model
        Exact rational rates.
    quantity : str
        One of :data:`QUANTITIES`.
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.
    digits : int
        Significant digits wanted.
    kernels : bool
        The fixed-point interval kernels where they serve the model (``True``), else the ball
        route.

    Returns
    -------
    Evaluated or dict
        The shape of :func:`symq.queries.quantities.derive`.

    Raises
    ------
    ModelError
        An unknown quantity or discipline.
    UnsupportedError
        As :func:`certified_values` (a value on a rounding tie: the exact route answers).

    Examples
    --------
    >>> from symq import example_model
    >>> n = example_model("n")   # the N model, lambda = (1/4, 1/4), mu = (1, 1)
    >>> certified_quantity(n, "mean-number", digits=8)["per_class"]["2"]
    Evaluated(exact=None, value='0.16666667')

    Running time: that of :func:`certified_values`.
    """
    from symq.arithmetic.numeric import Evaluated

    if quantity not in QUANTITIES:
        raise ModelError(f"certified digits exist for {', '.join(QUANTITIES)}, not {quantity!r}")
    if discipline not in DISCIPLINES:
        raise ModelError(f"unknown discipline {discipline!r}; available: {', '.join(DISCIPLINES)}")
    if quantity == "mean-response-time":  # Little's law on the mean numbers' intervals
        return _response_times(model, discipline, digits, kernels)
    out, _ = certified_values(model, discipline, quantity == "mean-number", digits,
                              idle=quantity == "server-idle-probability", kernels=kernels)

    def ev(ball: Ball) -> Any:
        return Evaluated(None, ball.text)
    if quantity == "empty-probability":
        return ev(out["empty"])
    if quantity == "normalizing-constant":
        return ev(out["G"])
    if quantity == "server-idle-probability":
        return {"per_server": {s: ev(b) for s, b in out["idle"].items()}}
    return {"total": ev(out["L_total"]),  # mean-number
            "per_class": {c: ev(b) for c, b in out["L"].items()}}


def _response_times(model: Model, discipline: str, digits: int, kernels: bool = True) -> Any:
    """Little's law $T_c=L_c/\\lambda_c$, $T=L/\\lambda$ on the balls, certified again."""
    from symq.arithmetic.numeric import Evaluated

    if kernels and interval_route(model, discipline, "auto"):
        lam = {c: to_fraction(v) for c, v in model.arrival_rates.items()}
        lam_total = sum(lam.values(), Fraction(0))
        bits, graphs = _interval_bits(model, digits), {}
        for _ in range(8):
            raw = _discipline_intervals(discipline, model, True, False, bits, "auto", graphs)
            items = {c: Interval(v.lower / lam[c], v.upper / lam[c]) for c, v in raw["L"].items()}
            items[None] = Interval(raw["L_total"].lower / lam_total,
                                   raw["L_total"].upper / lam_total)
            balls, grow = _certify_intervals(items, digits, bits)
            if balls is not None:
                return {"total": Evaluated(None, balls.pop(None).text),
                        "per_class": {c: Evaluated(None, b.text) for c, b in balls.items()}}
            bits += grow
        raise UnsupportedError(f"could not certify {digits} digits; use the exact route (--exact)")
    flint = flint_module()
    bits = _working_precision(model, digits)
    for _ in range(5):
        with flint.ctx.workprec(bits):
            field = BallField()
            raw, arith = values(model, discipline, True, field=field, idle=False)
            lam = model.arrival_rates

            def ball(v):
                return v if arith is field else field.value(sympy.sympify(v))
            per = {c: ball(v) / field.value(lam[c]) for c, v in raw["L"].items()}
            total = sum((ball(v) for v in raw["L"].values()), field.zero) / field.value(
                model.arrival_rate())
        shown = {c: certify(v, digits) for c, v in per.items()}
        overall = certify(total, digits)
        if overall is not None and all(b is not None for b in shown.values()):
            return {"total": Evaluated(None, overall.text),
                    "per_class": {c: Evaluated(None, b.text) for c, b in shown.items()}}
        bits *= 2
    raise UnsupportedError(f"could not certify {digits} digits; use the exact route (--exact)")
