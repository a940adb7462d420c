r"""Second derivatives of a normalization quantity over a box of rates, rigorously: Hessian-vector
products by forward-over-reverse differentiation of the subset DPs ([GR20]_ Thm 3.3 with
Props 6.2/6.3, Thm 3.9, Thm 3.10), for the certificate of a capacity split
(:mod:`symq.queries.optimize`).

The DPs run on the tape of :mod:`symq.engines.sensitivity`, whose elements record every
operation over a base arithmetic. Here the base elements are *dual numbers over balls*,
:class:`Dual` $(a,\dot a)$ with $a,\dot a$ python-flint ``arb`` balls and the rules of
$\mathbb R[\varepsilon]/(\varepsilon^2)$. The leaves are seeded with balls that contain a box of
rates and with tangents $v$ (one direction); the forward run and one backward sweep of the tape
in dual arithmetic give, for every leaf $l$, a dual adjoint whose parts enclose
$\partial Q/\partial x_l$ and $(Hv)_l=\sum_m\partial^2Q/\partial x_l\partial x_m\,v_m$ *at every
point of the box*: at one point of the box the same sequence of operations in exact dual
arithmetic computes these two numbers exactly (the backward sweep is the chain rule, its
tangent the chain rule of the chain rule), and ball arithmetic encloses the exact result of each
operation whatever the signs of the operands, so by induction over the tape each ball contains
the exact value at that point. A ball that is not finite (a division by a ball containing 0)
makes the enclosure useless, never wrong.

Examples
--------
>>> from fractions import Fraction
>>> from symq import model
>>> out = hessian_vectors(model("n"), {"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1,
...                       "mu_2": 1}, "mean-response-time", "collaborative",
...                       [{"mu_1": 1, "mu_2": -1}], bits=80)
>>> from symq.engines.normalization.certified import certify
>>> certify(out.value, 10).text, certify(out.gradient["mu_2"], 10).text   # 22/21, -124/441
('1.047619048', '-0.2811791383')
>>> certify(out.hv[0]["mu_1"], 10).text   # d2T/dmu_1^2 - d2T/dmu_1 dmu_2 = 64/27
'2.370370370'

Running time: that of the subset DP on the tape (O(U J) collaborative, O(2^M M + U J) ALIS and
RAIS totals), about three times the plain ball sweep, once per direction.
"""

from __future__ import annotations

import gc
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from symq.errors import ModelError

__all__ = ["Dual", "SecondOrder", "hessian_vectors", "objective_gradient", "ball_of",
           "precision_bits"]


class Dual:
    r"""A dual number $a+\dot a\,\varepsilon$ ($\varepsilon^2=0$) over ``arb`` balls: the value
    and the tangent (directional derivative) of one intermediate result. Operands that are not
    dual numbers are constants (tangent 0).

    Parameters
    ----------
    a, t : flint.arb
        The value and the tangent.

    Examples
    --------
    >>> from flint import arb
    >>> x = Dual(arb(2), arb(1))        # x = 2, dx = 1
    >>> y = x * x / (1 + x)             # d/dx x^2/(1+x) = (x^2 + 2x)/(1+x)^2 = 8/9
    >>> from symq.engines.normalization.certified import certify
    >>> certify(y.a, 5).text, certify(y.t, 5).text
    ('1.3333', '0.88889')

    Running time: O(1) ball operations per operation.
    """

    __slots__ = ("a", "t")

    def __init__(self, a: Any, t: Any) -> None:
        self.a = a
        self.t = t  # None: an exact zero tangent (a rate off the direction, a constant)

    def __add__(self, o: Any) -> "Dual":
        if o.__class__ is Dual:
            t, u = self.t, o.t
            return Dual(self.a + o.a, t if u is None else u if t is None else t + u)
        return Dual(self.a + o, self.t)

    __radd__ = __add__

    def __sub__(self, o: Any) -> "Dual":
        if o.__class__ is Dual:
            t, u = self.t, o.t
            return Dual(self.a - o.a, t if u is None else -u if t is None else t - u)
        return Dual(self.a - o, self.t)

    def __rsub__(self, o: Any) -> "Dual":
        return Dual(o - self.a, None if self.t is None else -self.t)

    def __neg__(self) -> "Dual":
        return Dual(-self.a, None if self.t is None else -self.t)

    def __mul__(self, o: Any) -> "Dual":
        t = self.t
        if o.__class__ is Dual:
            a, b, u = self.a, o.a, o.t
            if u is None:
                return Dual(a * b, None if t is None else t * b)
            return Dual(a * b, a * u if t is None else a * u + t * b)
        return Dual(self.a * o, None if t is None else t * o)

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> "Dual":
        t = self.t
        if o.__class__ is Dual:
            b, u = o.a, o.t
            q = self.a / b
            if u is None:
                return Dual(q, None if t is None else t / b)
            return Dual(q, -(q * u) / b if t is None else (t - q * u) / b)
        return Dual(self.a / o, None if t is None else t / o)

    def __rtruediv__(self, o: Any) -> "Dual":
        q = o / self.a
        return Dual(q, None if self.t is None else -(q * self.t) / self.a)

    def __bool__(self) -> bool:  # the DPs only test tape elements, never dual values
        return True

    def __repr__(self) -> str:
        return f"Dual({self.a}, {self.t})"


def ball_of(lo: Any, hi: Any | None = None) -> Any:
    """The ``arb`` ball of an exact rational, or one that contains ``[lo, hi]`` (at the current
    working precision: the conversions round outwards).

    Parameters
    ----------
    lo, hi : Fraction, int or str
        Exact rationals, ``lo <= hi`` (``hi`` default ``lo``).

    Returns
    -------
    flint.arb

    Examples
    --------
    >>> from flint import fmpq
    >>> b = ball_of(Fraction(1, 3), Fraction(1, 2))
    >>> b.contains(fmpq(1, 3)) and b.contains(fmpq(1, 2)), b.contains(fmpq(2, 3))
    (True, False)

    Running time: O(1) at the working precision.
    """
    from flint import arb, fmpq
    lo = Fraction(lo)

    def one(f: Fraction) -> Any:
        return arb(f.numerator) if f.denominator == 1 else arb(fmpq(f.numerator, f.denominator))
    if hi is None or Fraction(hi) == lo:
        return one(lo)
    return one(lo).union(one(Fraction(hi)))


@dataclass
class SecondOrder:
    r"""Enclosures over a box: ``value`` of the objective, ``gradient[name]``
    ($\partial Q/\partial x$) and ``hv[j][name]`` ($(Hv_j)_x$ for the ``j``-th direction), all
    ``arb`` balls that hold at every point of the box; ``bits`` the working precision."""

    value: Any
    gradient: dict[str, Any]
    hv: list[dict[str, Any]]
    bits: int


def _tape_output(model: Any, field: Any, quantity: str, discipline: str,
                 weights: Mapping[str, Any] | None) -> Any:
    """The objective on the tape: the total, or $\\sum_cw_cQ_c$ (one output, one sweep)."""
    from symq.engines.normalization.subsets import SubsetGraph
    from symq.engines.sensitivity import _outputs
    graph = SubsetGraph(model, field)
    outs = _outputs(graph, field, quantity, discipline, None if weights else {"total"})
    if not weights:
        return outs["total"]
    total = field.zero
    for c, w in weights.items():
        if f"class {c}" not in outs:
            raise ModelError(f"no class {c!r}; the classes are {', '.join(model.classes)}")
        total = total + outs[f"class {c}"] * field.lift(Fraction(w))
    return total


def _symbolic(model: Any, values: Mapping[str, Any]) -> tuple[Any, dict]:
    """The symbolic model and ``{rate name: symbol}``; ``values`` must name every rate."""
    from symq.engines.sensitivity import rate_symbols
    from symq.models.catalog import as_model
    model = as_model(model)
    symbolic, point = rate_symbols(model, values if model.symbols else None)
    by_name = {s.name: s for s in point}
    unknown = sorted(set(values) - set(by_name))
    missing = sorted(set(by_name) - set(values))
    if unknown or missing:
        raise ModelError(f"the rate {(unknown or missing)[0]!r} is "
                         f"{'not a rate of the model' if unknown else 'without a value'}; "
                         f"the rates are {', '.join(sorted(by_name))}")
    return symbolic, by_name


def hessian_vectors(model: Any, box: Mapping[str, Any], quantity: str, discipline: str,
                    directions: Sequence[Mapping[str, Any]], weights: Mapping[str, Any] | None = None,
                    bits: int = 128) -> SecondOrder:
    r"""Enclosures of the objective, its gradient and the Hessian-vector products $Hv_j$ over a
    box of rates, by one forward-over-reverse sweep of the tape per direction (module docstring).

    Parameters
    ----------
    model : Model or str
        Symbolic rates (``box`` names every symbol) or numeric ones (named ``lambda_<class>``,
        ``mu_<server>``, :func:`symq.engines.sensitivity.rate_symbols`).
    box : mapping
        ``{rate name: value}`` or ``{rate name: (lo, hi)}``: exact rationals; a pair is an
        interval of the box.
    quantity : str
        ``mean-number`` or ``mean-response-time`` (or another of
        :data:`symq.engines.sensitivity.OUTPUT_QUANTITIES` with one output).
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.
    directions : sequence of mapping
        ``{rate name: rational}`` per direction $v_j$ (rates not named: 0); at least one.
    weights : mapping, optional
        ``{class: w}``: the objective $\sum_cw_cQ_c$ (default: the total).
    bits : int
        Working precision of the balls.

    Returns
    -------
    SecondOrder

    Raises
    ------
    ModelError
        Unknown rate or class names, a rate without a value.

    Examples
    --------
    >>> from symq import model
    >>> out = hessian_vectors(model("n"), {"lambda_1": "1/4", "lambda_2": "1/4",
    ...     "mu_1": (Fraction(99, 100), Fraction(101, 100)), "mu_2": 1}, "mean-response-time",
    ...     "collaborative", [{"mu_1": 1}], bits=64)
    >>> from flint import fmpq
    >>> _, g = objective_gradient(model("n"), {"lambda_1": "1/4", "lambda_2": "1/4",
    ...     "mu_1": 1, "mu_2": 1}, "mean-response-time", "collaborative")
    >>> g["mu_1"]                        # exact dT/dmu_1 at mu_1 = 1, inside the box's ball
    Fraction(-172, 147)
    >>> out.gradient["mu_1"].contains(fmpq(-172, 147))
    True

    Running time: that of the subset DP on the tape, about three times a plain ball sweep, per
    direction.
    """
    from flint import arb, ctx
    from symq.engines.sensitivity import TapeField
    if not directions:
        raise ModelError("hessian_vectors needs at least one direction")
    intervals = {n: (v if isinstance(v, tuple) else (v, v)) for n, v in box.items()}
    symbolic, by_name = _symbolic(model, {n: lo for n, (lo, _) in intervals.items()})
    for d in directions:
        for n in d:
            if n not in by_name:
                raise ModelError(f"no rate {n!r}; the rates are {', '.join(sorted(by_name))}")
    hv: list[dict[str, Any]] = []
    value, grad = None, {}
    collecting = gc.isenabled()
    with ctx.workprec(bits):
        zero = arb(0)

        def const(r: Any) -> Dual:
            if isinstance(r, Dual):
                return r
            return Dual(r if isinstance(r, arb) else ball_of(Fraction(r)), None)
        balls = {n: ball_of(Fraction(lo), Fraction(hi)) for n, (lo, hi) in intervals.items()}
        gc.disable()
        try:
            for d in directions:
                field = TapeField({s: Fraction(intervals[n][0]) for n, s in by_name.items()},
                                  "dual", const)
                for n, s in by_name.items():
                    field.leaves[s].v = Dual(balls[n], ball_of(Fraction(d[n])) if d.get(n)
                                             else None)
                out = _tape_output(symbolic, field, quantity, discipline, weights)
                adjoints = field.derivatives(out)
                value = field.lift(out).v.a
                grad = {n: const(adjoints[s]).a for n, s in by_name.items()}
                hv.append({n: zero if const(adjoints[s]).t is None else const(adjoints[s]).t
                           for n, s in by_name.items()})
        finally:
            if collecting:
                gc.enable()
    return SecondOrder(value, grad, hv, bits)


def objective_gradient(model: Any, point: Mapping[str, Any], quantity: str, discipline: str,
                       weights: Mapping[str, Any] | None = None, arithmetic: str = "exact",
                       bits: int = 128) -> tuple[Any, dict[str, Any]]:
    r"""The objective (the total, or $\sum_cw_cQ_c$) and its gradient at one point by one
    backward sweep of the tape: exact rationals (``Fraction``) or ``arb`` balls.

    Parameters
    ----------
    model : Model or str
        As :func:`hessian_vectors`.
    point : mapping
        ``{rate name: rational}`` for every rate.
    quantity, discipline : str
        As :func:`hessian_vectors`.
    weights : mapping, optional
        ``{class: w}``.
    arithmetic : str
        ``"exact"`` or ``"ball"``.
    bits : int
        Working precision (``"ball"``).

    Returns
    -------
    (value, dict)
        The objective and ``{rate name: derivative}``.

    Raises
    ------
    ModelError
        Unknown names, a rate without a value.

    Examples
    --------
    >>> from symq import model
    >>> objective_gradient(model("n"), {"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1,
    ...                    "mu_2": 1}, "mean-response-time", "collaborative")[1]["mu_2"]
    Fraction(-124, 441)

    Running time: that of the subset DP on the tape, times about three.
    """
    from symq.engines.sensitivity import TapeField
    from symq.arithmetic.exact import flint_module, to_fraction
    symbolic, by_name = _symbolic(model, point)
    flint = flint_module()
    collecting = gc.isenabled()

    def run() -> tuple[Any, dict[str, Any]]:
        field = TapeField({s: Fraction(point[n]) for n, s in by_name.items()}, arithmetic)
        out = _tape_output(symbolic, field, quantity, discipline, weights)
        adj = field.derivatives(out)
        return field.lift(out).v, {n: adj[s] for n, s in by_name.items()}
    gc.disable()
    try:
        if arithmetic == "exact":
            value, grad = run()
            return to_fraction(value), {n: to_fraction(v) for n, v in grad.items()}
        with flint.ctx.workprec(bits):
            return run()
    finally:
        if collecting:
            gc.enable()


def precision_bits(digits: int, servers: int) -> int:
    """The working precision for ``digits`` certified digits with headroom for the certificate
    (``digits + 20`` decimal digits and two bits a server for the DP's cancellations).

    Parameters
    ----------
    digits : int
    servers : int

    Returns
    -------
    int

    Examples
    --------
    >>> precision_bits(30, 2)
    171

    Running time: O(1).
    """
    return int((digits + 20) * math.log2(10)) + 2 * servers + 1
