r"""Exact and certified sensitivities: every partial derivative of a normalization quantity with
respect to the rates, by reverse-mode differentiation of the subset DPs themselves ([GR20]_
Thm 3.3 with Props 6.2/6.3 for the collaborative discipline, Thm 3.9 ALIS, Thm 3.10 RAIS).

The DPs of :mod:`symq.engines.normalization` only use $+,-,\times,\div$ on the elements of a
*field* object, so they run unchanged on :class:`TapeField`, whose elements record every
operation on a tape (a Wengert list). One backward sweep over the tape then gives the partial
derivatives of one output with respect to every rate, by the chain rule applied to each recorded
operation, at about three times the cost of the values; ``J + 1`` sweeps give those of the
``J`` per-class values and the total. The two subset transforms of the ALIS and RAIS DPs
(the zeta transform and the idle-order recursion $\widetilde W$ of Thm 3.9) are recorded as one
tape entry each, with their adjoints written out (the transposed, superset-sum transform, and
the recursion run backwards), so that the $2^M M$ additions they make cost no tape entry each. The base arithmetic of the tape is

* ``exact``: rationals (``fmpq``, else ``Fraction``): the derivatives are exact, because each
  step of the sweep is the exact derivative of one exact operation;
* ``ball``: python-flint ``arb`` balls at a working precision raised until every printed value,
  derivative and elasticity is certified. Ball arithmetic encloses the exact result of every
  operation *whatever the signs of the operands*, so the swept adjoints enclose the exact
  derivatives (which do have both signs: the positivity that makes the fixed-point interval
  kernels rigorous is not used here). A ball that does not certify (a derivative that is exactly
  zero, or a rounding tie) falls back to the exact tape.

Examples
--------
>>> from symq import model
>>> out = gradient(model("n"), "mean-response-time", "collaborative",
...                {"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1, "mu_2": 1})
>>> out.value("total"), out.derivative("total", "mu_2")
(Fraction(22, 21), Fraction(-124, 441))

Running time: that of the subset DP of the discipline (O(U J) collaborative for U unions,
O(2^M M + U J) ALIS and RAIS means), times about 3 per output swept; the ball route times the
number of precision raises (usually none).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field as dataclass_field
from fractions import Fraction
from typing import Any, Iterable, Mapping

import sympy

from symq.errors import ModelError, UnsupportedError
from symq.models.model import DISCIPLINES, Model

__all__ = ["TapeField", "Sensitivities", "gradient", "rate_symbols", "rate_order",
           "OUTPUT_QUANTITIES"]

#: the quantities whose gradients this module computes
OUTPUT_QUANTITIES = ("empty-probability", "normalizing-constant", "server-idle-probability",
                     "mean-number", "mean-response-time")

# tape entries: (kind, first parent, second parent, first value, second value); a block of n
# outputs (a whole subset transform) takes n entries: n - 1 (_PART, top) and, on top,
# (_BLOCK, first index, -1, backward, None) whose backward(adj, first, top, zero) adds the
# block's contributions to its inputs' adjoints
_LEAF, _ADD, _SUB, _MUL, _DIV, _SCALE, _NEG, _RDIV, _BLOCK, _PART = range(10)


def _adjoints(adj: list, first: int, top: int, zero: Any) -> list:
    """The adjoints of a block's outputs (``None`` where none reached them; the top's zero
    marker as ``None``)."""
    bars = adj[first:top + 1]
    if bars[-1] is zero:
        bars[-1] = None
    return bars


def _superset_sums(bars: list, size: int) -> list:
    """$\\bar t(Y)=\\sum_{X\\supseteq Y}\\bar T(X)$ over ``2**size`` adjoints, ``None`` an
    adjoint that nothing reached (zero, added without an operation)."""
    n = len(bars)
    for j in range(size):
        bit = 1 << j
        for base in range(0, n, 2 * bit):
            high = base + bit
            bars[base:high] = [a if b is None else b if a is None else a + b
                               for a, b in zip(bars[base:high], bars[high:high + bit])]
    return bars


def _scatter(adj: list, indices: list[int], bars: list) -> None:
    """Add ``bars[x]`` to the adjoint of the tape entry ``indices[x]`` (constants and adjoints
    that nothing reached: skipped)."""
    for i, g in zip(indices, bars):
        if i >= 0 and g is not None:
            p = adj[i]
            adj[i] = g if p is None else p + g


class _Var:
    """One tape element: its value ``v`` and its index ``i`` on the tape (``-1``: a constant).
    Each :class:`TapeField` makes a subclass whose ``_ops`` is its tape and ``_const`` its
    conversion of constants."""

    __slots__ = ("v", "i")
    _ops: list = []
    _blocks: list = []
    _const: Any = None

    def __init__(self, v: Any, i: int = -1) -> None:
        self.v = v
        self.i = i

    def __add__(self, o: Any) -> "_Var":
        cls = self.__class__
        if o.__class__ is not cls:
            o = cls(self._const(o))
        if o.i < 0:
            return cls(self.v + o.v, self.i)
        if self.i < 0:
            return cls(self.v + o.v, o.i)
        ops = self._ops
        ops.append((_ADD, self.i, o.i, None, None))
        return cls(self.v + o.v, len(ops) - 1)

    __radd__ = __add__

    def __sub__(self, o: Any) -> "_Var":
        cls = self.__class__
        if o.__class__ is not cls:
            o = cls(self._const(o))
        if o.i < 0:
            return cls(self.v - o.v, self.i)
        ops = self._ops
        if self.i < 0:
            ops.append((_NEG, o.i, -1, None, None))
        else:
            ops.append((_SUB, self.i, o.i, None, None))
        return cls(self.v - o.v, len(ops) - 1)

    def __rsub__(self, other: Any) -> "_Var":
        return self.__class__(self._const(other)) - self

    def __neg__(self) -> "_Var":
        cls = self.__class__
        if self.i < 0:
            return cls(-self.v)
        ops = self._ops
        ops.append((_NEG, self.i, -1, None, None))
        return cls(-self.v, len(ops) - 1)

    def __mul__(self, o: Any) -> "_Var":
        cls = self.__class__
        if o.__class__ is not cls:
            o = cls(self._const(o))
        ops = self._ops
        if o.i < 0:
            if self.i < 0:
                return cls(self.v * o.v)
            ops.append((_SCALE, self.i, -1, o.v, None))
        elif self.i < 0:
            ops.append((_SCALE, o.i, -1, self.v, None))
        else:
            ops.append((_MUL, self.i, o.i, self.v, o.v))
        return cls(self.v * o.v, len(ops) - 1)

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> "_Var":
        cls = self.__class__
        if o.__class__ is not cls:
            o = cls(self._const(o))
        v = self.v / o.v
        ops = self._ops
        if o.i < 0:
            if self.i < 0:
                return cls(v)
            ops.append((_SCALE, self.i, -1, 1 / o.v, None))
        elif self.i < 0:
            ops.append((_RDIV, o.i, -1, v, o.v))
        else:
            ops.append((_DIV, self.i, o.i, v, o.v))
        return cls(v, len(ops) - 1)

    def __rtruediv__(self, other: Any) -> "_Var":
        return self.__class__(self._const(other)) / self

    def __bool__(self) -> bool:
        return self.i >= 0 or bool(self.v)

    @classmethod
    def _block(cls, values: list, backward: Any) -> list["_Var"]:
        """Record ``values`` (base elements) as one block of tape entries with ``backward``."""
        ops = cls._ops
        first = len(ops)
        top = first + len(values) - 1
        ops.extend([(_PART, top, -1, None, None)] * (len(values) - 1))
        ops.append((_BLOCK, first, -1, backward, None))
        cls._blocks.append(top)
        return [cls(v, first + x) for x, v in enumerate(values)]

    @classmethod
    def zeta_block(cls, table: list, size: int) -> list["_Var"]:
        r"""The subset-sum transform $T(X)=\sum_{Y\subseteq X}t(Y)$ of
        :func:`symq.engines.set_functions.zeta` as one block: the values are transformed in the
        base arithmetic, and the adjoint is the transposed (superset-sum) transform,
        $\bar t(Y)=\sum_{X\supseteq Y}\bar T(X)$. Running time: O(2^M M) base additions each
        way, no tape entry per addition."""
        from symq.engines.set_functions import zeta
        table = [e if e.__class__ is cls else cls(cls._const(e)) for e in table]
        raw = [e.v for e in table]
        indices = [e.i for e in table]
        zeta(raw, size)

        def backward(adj: list, first: int, top: int, zero: Any) -> None:
            _scatter(adj, indices, _superset_sums(_adjoints(adj, first, top, zero), size))
        return cls._block(raw, backward)

    @classmethod
    def idle_order_block(cls, arrivals: list, size: int) -> list["_Var"]:
        r"""$\widetilde W(\emptyset)=1$, $\widetilde W(I)=S(I)/L(I)$ with
        $S(I)=\sum_{s\in I}\widetilde W(I\setminus s)$ (:func:`symq.engines.set_functions.
        idle_order_table`) as one block. Adjoint, sets in decreasing order (a set's adjoint is
        complete once its supersets are done): $\bar S(I)=\bar W(I)/L(I)$,
        $\bar L(I)=-\bar S(I)\,\widetilde W(I)$, $\bar W(I\setminus s)\mathrel{+}=\bar S(I)$.
        Running time: O(2^M M) base operations each way."""
        from symq.engines.set_functions import idle_order_table
        arrivals = [e if e.__class__ is cls else cls(cls._const(e)) for e in arrivals]
        low = [e.v for e in arrivals]
        indices = [e.i for e in arrivals]
        zero, one = cls._const(0), cls._const(1)
        tilde = idle_order_table(low, size, zero, one)
        singles = [1 << j for j in range(size)]

        def backward(adj: list, first: int, top: int, zero: Any) -> None:
            bars = _adjoints(adj, first, top, zero)
            lbars: list = [None] * len(bars)
            for x in range(len(bars) - 1, 0, -1):
                if bars[x] is None:
                    continue
                sbar = bars[x] / low[x]
                lbars[x] = -(sbar * tilde[x])
                for b in singles:
                    if x & b:
                        p = bars[x ^ b]
                        bars[x ^ b] = sbar if p is None else p + sbar
            _scatter(adj, indices, lbars)
        return cls._block(tilde, backward)

    def __repr__(self) -> str:
        return f"_Var({self.v}, {self.i})"


class TapeField:
    """The field interface of the DPs (``value``, ``zero``, ``one``, ``numeric``) on elements
    that record their operations, over a base arithmetic (``"exact"`` rationals or ``"ball"``:
    python-flint ``arb`` at the current working precision).

    Parameters
    ----------
    leaves : mapping
        ``{sympy.Symbol: exact rational}``: the rates to differentiate by and their values.
    base : str
        ``"exact"`` or ``"ball"`` (use inside ``flint.ctx.workprec(bits)``), or ``"dual"``: the
        elements of :mod:`symq.engines.second_order` (dual numbers over balls), whose conversion
        of constants ``const`` gives.
    const : callable, optional
        The conversion of constants of the ``"dual"`` base.

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x", positive=True)
    >>> F = TapeField({x: Fraction(1, 2)})
    >>> y = F.value(x) * F.value(x) / (F.one + F.value(x))
    >>> str(F.derivatives(y)[x])   # d/dx x^2/(1+x) = (2x + x^2)/(1+x)^2 at 1/2
    '5/9'
    """

    numeric = True
    kind = "tape"

    def __init__(self, leaves: Mapping[sympy.Symbol, Any], base: str = "exact",
                 const: Any = None) -> None:
        self.base = base
        if base == "dual" and const is not None:
            self._const = const
        elif base == "exact":
            from symq.arithmetic.exact import flint_module
            flint = flint_module()
            if flint is not None:
                fmpq = flint.fmpq
                self._const = lambda r: fmpq(int(Fraction(r).numerator),
                                             int(Fraction(r).denominator))
            else:  # pragma: no cover - python-flint is a dependency
                self._const = lambda r: Fraction(r)
        elif base == "ball":
            from symq.arithmetic.exact import flint_module
            flint = flint_module()
            if flint is None:  # pragma: no cover - depends on the environment
                raise UnsupportedError("certified derivatives need python-flint; use --exact")
            arb, fmpq = flint.arb, flint.fmpq

            def const(r: Any) -> Any:
                if isinstance(r, arb):
                    return r
                f = Fraction(r)
                return arb(f.numerator) if f.denominator == 1 else \
                    arb(fmpq(f.numerator, f.denominator))
            self._const = const
        else:
            raise ModelError(f"unknown base arithmetic {base!r}; available: exact, ball, dual "
                             "(with const)")
        self.ops: list = []
        self.blocks: list[int] = []  # the top entries of the blocks (subset transforms)
        self.Var = type("Var", (_Var,), {"_ops": self.ops, "_blocks": self.blocks,
                                         "_const": staticmethod(self._const)})
        self.zero = self.Var(self._const(0))
        self.one = self.Var(self._const(1))
        self.leaves: dict[sympy.Symbol, _Var] = {}
        for s, v in leaves.items():
            self.ops.append((_LEAF, -1, -1, None, None))
            self.leaves[s] = self.Var(self._const(_fraction(v)), len(self.ops) - 1)
        self._cache: dict = {}

    def value(self, expr: Any) -> _Var:
        """A rate expression (sympy: sums, products, integer powers of the leaf symbols and
        rationals) as a tape element."""
        expr = sympy.sympify(expr)
        if expr in self._cache:
            return self._cache[expr]
        if expr.is_Rational:
            out = self.Var(self._const(Fraction(int(expr.p), int(expr.q))))
        elif expr.is_Symbol:
            if expr not in self.leaves:
                raise ModelError(f"the rate symbol {expr} has no value; give it one "
                                 f"(--set {expr}=VALUE)")
            out = self.leaves[expr]
        elif expr.is_Add or expr.is_Mul:
            parts = [self.value(a) for a in expr.args]
            out = parts[0]
            for p in parts[1:]:
                out = out + p if expr.is_Add else out * p
        elif expr.is_Pow and expr.exp.is_Integer:
            base, e = self.value(expr.base), int(expr.exp)
            out = self.one
            for _ in range(abs(e)):
                out = out * base
            if e < 0:
                out = self.one / out
        else:
            raise UnsupportedError(f"rate expression {expr} is not a rational function of the "
                                   "rate symbols; derivatives need rational rates")
        self._cache[expr] = out
        return out

    def lift(self, x: Any) -> _Var:
        """A constant (int, Fraction, base element) as a tape element."""
        return x if isinstance(x, _Var) else self.Var(self._const(x))

    def derivatives(self, output: _Var) -> dict[sympy.Symbol, Any]:
        """``{leaf symbol: d output / d leaf}`` by one backward sweep of the tape (exact zero,
        in the base arithmetic, for leaves the output does not reach).

        Running time: O(tape entries up to the output's), three base operations per entry.
        """
        zero = self._const(0)
        out = {s: zero for s in self.leaves}
        if not isinstance(output, _Var) or output.i < 0:
            return out
        ops = self.ops
        zero = self._const(0)
        start = output.i
        if ops[start][0] == _PART:  # an output inside a block: sweep from the block's top
            start = ops[start][1]
        adj: list = [None] * (start + 1)
        adj[output.i] = self._const(1)
        for top in self.blocks:  # every block below the output is visited at its top
            if top <= start and adj[top] is None:
                adj[top] = zero
        for k in range(start, -1, -1):
            g = adj[k]
            if g is None:
                continue
            kind, a, b, x, y = ops[k]
            if kind == _ADD:
                p = adj[a]
                adj[a] = g if p is None else p + g
                p = adj[b]
                adj[b] = g if p is None else p + g
            elif kind == _MUL:
                p = adj[a]
                adj[a] = g * y if p is None else p + g * y
                p = adj[b]
                adj[b] = g * x if p is None else p + g * x
            elif kind == _DIV:
                t = g / y
                p = adj[a]
                adj[a] = t if p is None else p + t
                t = t * x
                p = adj[b]
                adj[b] = -t if p is None else p - t
            elif kind == _SCALE:
                p = adj[a]
                adj[a] = g * x if p is None else p + g * x
            elif kind == _SUB:
                p = adj[a]
                adj[a] = g if p is None else p + g
                p = adj[b]
                adj[b] = -g if p is None else p - g
            elif kind == _NEG:
                p = adj[a]
                adj[a] = -g if p is None else p - g
            elif kind == _RDIV:  # c = k / b: dc/db = -c/b
                t = g * x / y
                p = adj[a]
                adj[a] = -t if p is None else p - t
            elif kind == _BLOCK:  # a whole transform: its adjoint at once (x: its backward)
                x(adj, a, k, zero)
        for s, leaf in self.leaves.items():
            if leaf.i < len(adj) and adj[leaf.i] is not None:
                out[s] = adj[leaf.i]
        return out


def _fraction(v: Any, what: str = "rate value") -> Fraction:
    """A rate value as a Fraction: text through symq's rate grammar, numbers exactly."""
    from symq.arithmetic.exact import to_fraction
    from symq.models.rates import parse_rate
    if isinstance(v, (Fraction, int)) and not isinstance(v, bool):
        return to_fraction(v, what)
    return to_fraction(parse_rate(v, what), what)


def rate_symbols(model: Model, values: Mapping[str, Any] | None = None
                 ) -> tuple[Model, dict[sympy.Symbol, Fraction]]:
    r"""The model with symbolic rates and the point to differentiate at.

    A model with rate symbols keeps them (the derivatives are by its symbols, ``values`` gives
    every symbol a value); a model with numeric rates gets one symbol per rate,
    ``lambda_<class>`` and ``mu_<server>``, at its values.

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates (no abandonment).
    values : mapping, optional
        ``{symbol name: rational}`` for a symbolic model.

    Returns
    -------
    (Model, dict)
        The symbolic model and ``{symbol: Fraction}``.

    Raises
    ------
    ModelError
        A symbol without a value, a value for an unknown name, abandonment rates.

    Examples
    --------
    >>> from symq import example_model
    >>> m, point = rate_symbols(example_model("n"))
    >>> sorted((s.name, str(v)) for s, v in point.items())
    [('lambda_1', '1/4'), ('lambda_2', '1/4'), ('mu_1', '1'), ('mu_2', '1')]

    Running time: O(J + M).
    """
    from symq.models.rates import check_names, positive_symbol, value_names
    if dict(model.abandonment_rates):
        raise ModelError("derivatives of models with abandonment are not available; remove the "
                         "abandonment rates")
    values = value_names(values) if values else {}
    if model.symbols:
        check_names(values, model.symbols, "the model")
        missing = sorted(s.name for s in model.symbols if s.name not in values)
        if missing:
            raise ModelError(f"the rate symbol {missing[0]} has no value; give every rate a "
                             f"value (--set {missing[0]}=VALUE)")
        point = {s: _fraction(values[s.name], f"value of {s.name}") for s in model.symbols}
        return model, point
    if values:
        raise ModelError(f"the model's rates are numbers, so it has no symbol "
                         f"{sorted(values)[0]!r}; the derivatives are by lambda_<class> and "
                         "mu_<server>")
    names = {}
    for c in model.classes:
        names[("lambda", c)] = f"lambda_{c}" if c.isidentifier() or c.isalnum() else None
    for s in model.servers:
        names[("mu", s)] = f"mu_{s}" if s.isidentifier() or s.isalnum() else None
    if any(n is None for n in names.values()):  # odd names: by position
        names = {**{("lambda", c): f"lambda_{k + 1}" for k, c in enumerate(model.classes)},
                 **{("mu", s): f"mu_{k + 1}" for k, s in enumerate(model.servers)}}
    lam = {c: positive_symbol(names["lambda", c]) for c in model.classes}
    mu = {s: positive_symbol(names["mu", s]) for s in model.servers}
    point = {lam[c]: _fraction(model.arrival_rates[c]) for c in model.classes}
    point.update({mu[s]: _fraction(model.service_rates[s]) for s in model.servers})
    symbolic = Model(compatibility=dict(model.compatibility), arrival_rates=lam,
                     service_rates=mu, name=model.name)
    return symbolic, point


@dataclass
class Sensitivities:
    """Values and partial derivatives of one quantity at one point.

    ``values[label]`` and ``derivatives[label][symbol name]`` are exact ``Fraction`` values
    (``arithmetic == "exact"``) or certified :class:`~symq.engines.normalization.certified.Ball`
    objects (``"ball"``); ``labels`` are ``""`` (one value), ``"total"``, ``"class c"`` or
    ``"server s"``; ``point`` the rates; ``bits`` the working precision of the balls."""

    quantity: str
    discipline: str
    arithmetic: str
    labels: list[str]
    wrt: list[str]
    point: dict[str, Fraction]
    values: dict[str, Any]
    derivatives: dict[str, dict[str, Any]]
    elasticities: dict[str, dict[str, Any]] = dataclass_field(default_factory=dict)
    bits: int | None = None
    digits: int | None = None

    def value(self, label: str = "") -> Any:
        """The value of one output (``""`` for a one-value quantity)."""
        return self.values[label]

    def derivative(self, label: str, name: str) -> Any:
        """$\\partial Q_{label}/\\partial x_{name}$."""
        return self.derivatives[label][name]

    def elasticity(self, label: str, name: str) -> Any:
        r"""$\partial\log Q/\partial\log x=(x/Q)\,\partial Q/\partial x$."""
        return self.elasticities[label][name]

    def lines(self, digits: int | None = None) -> list[str]:
        """The lines ``symq evaluate --gradient`` prints: each output's value, then one line
        per rate with the derivative and the elasticity (exact ``p/q = decimal``, or the
        certified digits).

        Parameters
        ----------
        digits : int, optional
            Digits of the exact values' decimals (default those computed with, or 30).

        Returns
        -------
        list of str

        Examples
        --------
        >>> from symq import example_model
        >>> g = gradient(example_model("n"), "empty-probability", wrt=["lambda_1"], digits=6)
        >>> g.lines()
        ['9/14 = 0.642857', '  d/dlambda_1: -45/49 = -0.918367 (elasticity -0.357143)']

        Running time: O(outputs x rates) roundings.
        """
        digits = digits or self.digits or 30
        exact = self.arithmetic == "exact" and not (
            self.values and _is_ball(next(iter(self.values.values()))))
        out = []
        for label in self.labels:
            head = _text(self.values[label], digits, exact)
            out.append(f"{label}: {head}" if label else head)
            for n in self.wrt if label in self.derivatives else ():
                d = _text(self.derivatives[label][n], digits, exact)
                e = _decimal(self.elasticities[label][n], digits, exact)
                out.append(f"  d/d{n}: {d} (elasticity {e})")
        return out

    def as_json(self, digits: int | None = None) -> dict[str, Any]:
        """``{"arithmetic", "wrt", "point", "value": {label: ...}, "gradient": {label: {rate:
        ...}}, "elasticity": {...}}``, each number as ``{"exact": "p/q", "value": digits}`` or,
        certified, ``{"value": digits}`` (the fields of ``symq evaluate --gradient --json``).

        Parameters
        ----------
        digits : int, optional
            Digits of the exact values' decimals.

        Returns
        -------
        dict

        Examples
        --------
        >>> from symq import example_model
        >>> g = gradient(example_model("n"), "empty-probability", wrt=["mu_1"], digits=4)
        >>> g.as_json()["gradient"]
        {'': {'mu_1': {'exact': '27/98', 'value': '0.2755'}}}

        Running time: O(outputs x rates) roundings.
        """
        digits = digits or self.digits or 30

        def leaf(v: Any) -> Any:
            if v is None:
                return None
            if _is_ball(v):
                data = {"value": v.text}
                if v.lower == v.upper:
                    data = {"exact": str(v.lower), **data}
                return data
            return {"exact": str(v), "value": _decimal(v, digits, True)}
        return {"arithmetic": self.arithmetic, "wrt": list(self.wrt),
                "point": {n: str(self.point[n]) for n in sorted(self.point, key=rate_order)},
                "value": {k: leaf(v) for k, v in self.values.items()},
                "gradient": {k: {n: leaf(v) for n, v in d.items()}
                             for k, d in self.derivatives.items()},
                "elasticity": {k: {n: leaf(v) for n, v in d.items()}
                               for k, d in self.elasticities.items()},
                **({"bits": self.bits} if self.bits else {})}

    def _repr_html_(self) -> str:
        """Jupyter: one table row per output and rate (value, derivative, elasticity)."""
        from symq.display import html_table

        def shown(v: Any) -> str:
            return getattr(v, "text", None) or str(v)
        rows = []
        for label in self.labels:
            for name in self.wrt:
                rows.append((label or "value", name, shown(self.derivatives[label][name]),
                             shown(self.elasticities.get(label, {}).get(name, ""))))
        return html_table([(("output", "rate", "derivative", "elasticity"), rows)])


def _is_ball(v: Any) -> bool:
    return hasattr(v, "text") and hasattr(v, "lower")


def _text(v: Any, digits: int, exact: bool) -> str:
    """An exact value as ``p/q = decimal`` (an integer alone), a certified one as its digits."""
    from symq.arithmetic.numeric import exact_string, round_fraction
    if v is None:
        return "undefined"
    if not exact:
        return v.text
    if v == 0:
        return "0"
    if v.denominator == 1:
        return str(v.numerator)
    return f"{exact_string(sympy.Rational(v.numerator, v.denominator))} = {round_fraction(v, digits)}"


def _decimal(v: Any, digits: int, exact: bool) -> str:
    from symq.arithmetic.numeric import round_fraction
    if v is None:
        return "undefined"
    if not exact:
        return v.text
    return "0" if v == 0 else round_fraction(v, digits)


def _alis_total(graph: Any, field: TapeField, quantity: str) -> dict[str, _Var]:
    r"""The total mean number (or response time) of ALIS, which canonical RAIS shares ([GR20]_
    Thm 3.10), without the matching rates: the mean number in service is the mean number of
    busy servers, $\sum_s P(s\text{ busy})=M-\sum_I|I|\,W(I)\hat H(\mathcal M\setminus I)/G$
    (the idle law of Thm 3.9; $\sum_c r_{c,s}/\mu_s=P(s\text{ busy})$), so only the queue part
    needs the per-class sums. About a third of the operations of the per-class route.

    Running time: O(2^M M + U J)."""
    from symq.engines.normalization.collaborative import CollaborativeTables
    from symq.engines.normalization.subsets import IdleTables, zeta
    t = IdleTables(graph)
    coll = CollaborativeTables(graph, False)
    full = graph.full
    w = t.idle_weights()
    omega = list(w)
    zeta(omega, graph.size)
    g = field.zero
    for x, h in coll.weight.items():
        g = g + h * omega[full ^ x]
    h_hat = coll.zeta()
    idle = field.zero  # sum over idle sets I of |I| W(I) H^(M \ I)
    for i in range(1, full + 1):
        idle = idle + (w[i] * h_hat[full ^ i]) * bin(i).count("1")
    v = coll.suffix_weights(lambda x: omega[full ^ x])
    queue = field.zero
    for s in coll.class_sums(v):
        queue = queue + s
    total = (queue - idle) / g + len(graph.servers)
    if quantity == "mean-number":
        return {"total": total}
    lam_total = field.zero
    for lam in graph.lam:
        lam_total = lam_total + lam
    return {"total": total / lam_total}


def _outputs(graph: Any, field: TapeField, quantity: str, discipline: str,
             labels: set | None = None) -> dict[str, _Var]:
    """The outputs of ``quantity`` as tape elements, labelled (``labels == {"total"}``: only
    the total, by the shortest route)."""
    from symq.engines.normalization.alis import alis_values
    from symq.engines.normalization.collaborative import collaborative_values
    from symq.engines.normalization.rais import rais_values
    per_class = quantity in ("mean-number", "mean-response-time")
    idle = quantity == "server-idle-probability"
    if per_class and discipline in ("alis", "rais") and labels == {"total"}:
        return _alis_total(graph, field, quantity)
    if discipline == "collaborative":
        out = collaborative_values(graph, per_class, idle=idle)
    elif discipline == "alis":
        out = alis_values(graph, per_class, idle=idle)
    elif per_class and field.base in ("ball", "dual"):
        # the mean numbers of canonical RAIS equal those of ALIS as functions of the rates
        # (Thm 3.10 with the ALIS-averaged routing), so their derivatives are equal too; the
        # ALIS DP costs O(2^M M + U J) instead of O(J 2^M M)
        out = alis_values(graph, True, idle=False)
    else:
        out = rais_values(graph, per_class, idle=idle)
    if quantity == "empty-probability":
        return {"": field.lift(out["empty"])}
    if quantity == "normalizing-constant":
        return {"": field.lift(out["G"])}
    if quantity == "server-idle-probability":
        return {f"server {s}": field.lift(out["idle"][s]) for s in graph.servers}
    L = {c: field.lift(out["L"][c]) for c in graph.classes}
    total = field.zero
    for c in graph.classes:
        total = total + L[c]
    if quantity == "mean-number":
        return {"total": total, **{f"class {c}": L[c] for c in graph.classes}}
    lam = dict(zip(graph.classes, graph.lam))
    lam_total = field.zero
    for c in graph.classes:
        lam_total = lam_total + lam[c]
    return {"total": total / lam_total, **{f"class {c}": L[c] / lam[c] for c in graph.classes}}


def _sweep(model: Model, point: Mapping[sympy.Symbol, Fraction], quantity: str,
           discipline: str, base: str, labels: Iterable[str] | None
           ) -> tuple[dict[str, Any], dict[str, dict[sympy.Symbol, Any]]]:
    import gc
    from symq.engines.normalization.subsets import SubsetGraph
    collecting = gc.isenabled()
    gc.disable()  # the tape holds millions of tuples: no cyclic garbage, only scanning cost
    try:
        field = TapeField(point, base)
        graph = SubsetGraph(model, field)
        outs = _outputs(graph, field, quantity, discipline,
                        None if labels is None else set(labels))
        wanted = list(outs) if labels is None else [k for k in outs if k in set(labels)]
        unknown = sorted(set(labels or ()) - set(outs))
        if unknown:
            raise ModelError(f"no output {unknown[0]!r}; the outputs are "
                             + ", ".join(repr(k) for k in outs))
        values = {k: outs[k].v for k in outs}
        derivs = {k: field.derivatives(outs[k]) for k in wanted}
    finally:
        if collecting:
            gc.enable()
    return values, derivs


def _elasticity(x: Any, q: Any, d: Any) -> Any:
    return x * d / q


def gradient(model: Model | str, quantity: str, discipline: str = "collaborative",
             values: Mapping[str, Any] | None = None, wrt: Iterable[str] | None = None,
             arithmetic: str = "exact", digits: int = 30, labels: Iterable[str] | None = None,
             max_bits: int | None = None) -> Sensitivities:
    r"""The values, partial derivatives and elasticities $\partial\log Q/\partial\log x$ of a
    normalization quantity at one point, exact or certified.

    Parameters
    ----------
    model : Model or str
        Symbolic rates (then ``values`` gives each symbol a value) or numeric rates (then the
        rates are called ``lambda_<class>`` and ``mu_<server>``, see :func:`rate_symbols`).
    quantity : str
        One of :data:`OUTPUT_QUANTITIES`.
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.
    values : mapping, optional
        ``{symbol name: rational}``.
    wrt : iterable of str, optional
        The rate names to report (default: all).
    arithmetic : str
        ``"exact"`` (rationals) or ``"ball"`` (certified digits, precision raised until every
        value, derivative and elasticity is certified to ``digits`` digits; exact fallback).
    digits : int
        Certified significant digits (``"ball"``).
    labels : iterable of str, optional
        The outputs whose derivatives are wanted (``"total"``, ``"class 1"``, ...; default
        all): one backward sweep each.
    max_bits : int, optional
        The highest working precision of the balls (default 16 times the first).

    Returns
    -------
    Sensitivities

    Raises
    ------
    ModelError
        Unknown quantity, discipline or rate name; a rate without a value.
    UnstableModelError
        The rates make the model unstable.

    Examples
    --------
    >>> from symq import model
    >>> s = gradient(model("w"), "empty-probability", "alis", {"lambda_1": "3/20",
    ...     "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"}, wrt=["mu_2"])
    >>> s.value(""), s.derivative("", "mu_2")
    (Fraction(663, 1216), Fraction(1179375, 5175296))
    >>> s = gradient(model("w"), "empty-probability", "alis", {"lambda_1": "3/20",
    ...     "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"}, wrt=["mu_2"],
    ...     arithmetic="ball", digits=10)
    >>> s.derivative("", "mu_2").text, s.elasticity("", "mu_2").text
    ('0.2278855161', '0.3343695778')

    Running time: the subset DP of the discipline recorded on a tape (O(U J) collaborative,
    O(2^M M + U J) ALIS, O(J 2^M M) RAIS exact), then one backward sweep per output of about
    three times that; balls at O(bits^1.6) per operation, times the precision raises.
    """
    from symq.engines.normalization.entry import check_stability_fast
    from symq.models.catalog import as_model
    model = as_model(model)
    if quantity not in OUTPUT_QUANTITIES:
        raise ModelError(f"no derivatives of {quantity!r}; available: "
                         f"{', '.join(OUTPUT_QUANTITIES)}")
    if discipline not in DISCIPLINES:
        raise ModelError(f"unknown discipline {discipline!r}; available: collaborative, alis, "
                         "rais")
    if model.is_empty:
        raise ModelError("the model has no class; give it at least one class and server")
    symbolic, point = rate_symbols(model, values)
    check_stability_fast(symbolic.substitute({s.name: sympy.Rational(v.numerator, v.denominator)
                                              for s, v in point.items()}))
    by_name = {s.name: s for s in point}
    names = sorted(by_name, key=rate_order)
    if wrt is not None:
        wrt = list(wrt)
        for n in wrt:
            if n not in by_name:
                raise ModelError(f"--wrt {n}: the model has no rate {n!r}; its rates are "
                                 f"{', '.join(names)}")
        names = list(dict.fromkeys(wrt))
    fpoint = {n: point[by_name[n]] for n in by_name}
    if arithmetic == "exact":
        vals, ders = _sweep(symbolic, point, quantity, discipline, "exact", labels)
        out = _exact_result(quantity, discipline, vals, ders, names, by_name, fpoint)
        out.digits = digits
        return out
    if arithmetic != "ball":
        raise ModelError(f"unknown arithmetic {arithmetic!r}; available: exact, ball")
    from symq.arithmetic.exact import flint_module
    flint = flint_module()
    bits = int(digits * math.log2(10)) + 32 + 2 * len(symbolic.servers)
    limit = max_bits or 16 * bits
    while bits <= limit:
        with flint.ctx.workprec(bits):
            vals, ders = _sweep(symbolic, point, quantity, discipline, "ball", labels)
            out = _certify(quantity, discipline, vals, ders, names, by_name, fpoint, digits, bits)
        if out is not None:
            return out
        bits *= 2
    vals, ders = _sweep(symbolic, point, quantity, discipline, "exact", labels)
    exact = _exact_result(quantity, discipline, vals, ders, names, by_name, fpoint)
    return _balls_of_exact(exact, digits)


def rate_order(name: str) -> tuple:
    """The sort key of rate names: ``lambda`` before ``mu``, then by class or server number
    (``mu_2`` before ``mu_10``), then by name.

    Parameters
    ----------
    name : str
        A rate name.

    Returns
    -------
    tuple

    Examples
    --------
    >>> sorted(["mu_10", "lambda_2", "mu_2"], key=rate_order)
    ['lambda_2', 'mu_2', 'mu_10']

    Running time: O(len(name)).
    """
    kind, _, rest = name.partition("_")
    key = (0, int(rest), "") if rest.isdigit() else (1, 0, rest)
    return (0 if kind == "lambda" else 1, *key, name)


def _exact_result(quantity, discipline, vals, ders, names, by_name, fpoint) -> Sensitivities:
    from symq.arithmetic.exact import to_fraction
    values = {k: to_fraction(v) for k, v in vals.items()}
    derivs = {k: {n: to_fraction(d[by_name[n]]) for n in names} for k, d in ders.items()}
    elast = {k: {n: (fpoint[n] * derivs[k][n] / values[k] if values[k] else None)
                 for n in names} for k in derivs}
    return Sensitivities(quantity, discipline, "exact", list(vals), names,
                         {n: fpoint[n] for n in by_name}, values, derivs, elast)


def _certify(quantity, discipline, vals, ders, names, by_name, fpoint, digits, bits
             ) -> Sensitivities | None:
    from flint import arb, fmpq
    from symq.engines.normalization.certified import certify
    values, derivs, elast = {}, {}, {}
    for k, v in vals.items():
        values[k] = certify(v, digits)
        if values[k] is None:
            return None
    for k, d in ders.items():
        derivs[k], elast[k] = {}, {}
        for n in names:
            ball = d[by_name[n]]
            if isinstance(ball, int) or (ball.is_exact() and ball.is_zero()):
                return None  # certify cannot print an exact zero; the exact tape can
            derivs[k][n] = certify(ball, digits)
            x = arb(fmpq(fpoint[n].numerator, fpoint[n].denominator))
            elast[k][n] = certify(x * ball / vals[k], digits)
            if derivs[k][n] is None or elast[k][n] is None:
                return None
    return Sensitivities(quantity, discipline, "ball", list(vals), names, dict(fpoint), values,
                         derivs, elast, bits=bits, digits=digits)


def _balls_of_exact(exact: Sensitivities, digits: int) -> Sensitivities:
    """Exact results in the shape of certified ones (a point ball, its rounded digits)."""
    from symq.arithmetic.numeric import round_fraction
    from symq.engines.normalization.certified import Ball

    def ball(v):
        return None if v is None else Ball("0" if v == 0 else round_fraction(v, digits), v, v)
    out = Sensitivities(exact.quantity, exact.discipline, "exact", exact.labels, exact.wrt,
                        exact.point, {k: ball(v) for k, v in exact.values.items()},
                        {k: {n: ball(v) for n, v in d.items()} for k, d in exact.derivatives.items()},
                        {k: {n: ball(v) for n, v in d.items()} for k, d in exact.elasticities.items()},
                        digits=digits)
    return out
