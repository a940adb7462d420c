r"""Capacity design: the split of a fixed capacity $\sum_{i\in B}x_i=C$ among the rates $B$ of a
budget that minimises a quantity (its total, or $\sum_cw_cQ_c$), within bounds on each rate,
found by Newton steps on the face and certified by an interval Newton (Krawczyk) test.

The Newton steps use the gradient and the reduced Hessian of one forward-over-reverse sweep of
the subset DP's tape (:mod:`symq.engines.second_order`). At the last iterate $c$ the certificate
takes a box $B$ around $c$ (in the coordinates $y$ of the first $k-1$ free budget rates, the last
free rate being $C-\sum y$), the map $F(y)=(\partial Q/\partial x_i-\partial Q/\partial x_k)_{i<k}$
whose zeros are the KKT points on the face, $F(c)$ exact or in balls, an enclosure $J(B)$ of its
Jacobian (the reduced Hessian) over the whole box by one dual-number sweep per direction, and
$A\approx\operatorname{mid}J^{-1}$; Krawczyk's theorem: if
$$K(B)=c-AF(c)+(I-AJ(B))(B-c)\subset\operatorname{int}B$$
then $F$ has exactly one zero in $B$, and it lies in $K(B)$. If every leading principal minor of
$J(B)$ is positive (interval elimination in balls), the reduced Hessian is positive definite at
every point of $B$, so that zero is a strict local minimum of $Q$ on the face. Active bounds are
certified by the sign of $\partial Q/\partial x_a-\nu$ enclosed over $K(B)$. The printed digits
are those that every point of $K(B)$ rounds to. This is a certified *local* minimum (a KKT point
with positive definite reduced Hessian); a global minimum is not claimed.

Examples
--------
>>> import symq
>>> opt = symq.optimize("w", "mean-response-time", "mu_1 + mu_2 = 9/5", values={
...     "lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4"}, digits=12)
>>> opt.allocation, opt.value_text, opt.certified
({'mu_1': '1.00329089869', 'mu_2': '0.796709101314'}, '1.08529396185', True)
"""

from __future__ import annotations

from dataclasses import dataclass, field as dataclass_field
from fractions import Fraction
from typing import Any, Iterable, Mapping

import sympy

from symq.errors import ModelError, UnstableModelError
from symq.models.model import DISCIPLINES, Model

__all__ = ["Optimum", "optimize", "parse_budget", "krawczyk", "Certificate", "tape_steps"]

QUANTITIES = ("mean-response-time", "mean-number")

#: the largest subset DP (steps) whose F(c) is exact by default (``exact=None``)
EXACT_CENTRE_STEPS = 1000

#: the most budget rates whose global minimum is certified by branch and bound
GLOBAL_RATES = 3

#: the fewest boxes the work limit must allow for the branch and bound to start
MIN_BOXES = 32

#: rates of more bits (numerator and denominator) take the ball F(c) by default
EXACT_RATE_BITS = 256


def tape_steps(model: Model, discipline: str, cap: int | None = None) -> int | None:
    """Steps of the subset DP that the tape of :mod:`symq.engines.second_order` records: the
    general DP always (the structured shortcuts of the normalization routes are not on the
    tape), unions of class server sets times (classes + servers), plus $2^M$ server sets times
    (classes + servers) for ALIS and RAIS; ``None`` past ``cap``.

    Parameters
    ----------
    model : Model
    discipline : str
    cap : int, optional
        Stop counting past about this many steps.

    Returns
    -------
    int or None

    Examples
    --------
    >>> from symq import example_model
    >>> tape_steps(example_model("w"), "alis"), tape_steps(example_model("ring:30"), "alis", 10**6)
    (40, None)

    Running time: that of :func:`symq.queries.estimates.count_unions` up to ``cap``.
    """
    from symq.queries.estimates import count_unions
    index = {s: j for j, s in enumerate(model.servers)}
    masks = sorted({sum(1 << index[s] for s in v) for v in model.compatibility.values()})
    width = len(model.classes) + len(model.servers)
    unions = count_unions(masks, None if cap is None else cap // width + 1)
    if unions is None:
        return None
    steps = unions * width
    if discipline != "collaborative":
        if len(model.servers) > 60:
            return None
        steps += (1 << len(model.servers)) * width
    return None if cap is not None and steps > cap else steps


@dataclass
class Optimum:
    r"""A capacity split and its certificate (:func:`optimize`).

    ``allocation`` holds the printed digits of each budget rate (``"0"`` for a rate whose
    infimum is the limit rate -> 0); ``x`` the exact centre of the enclosure (or the last Newton
    iterate when not certified); ``value``/``multiplier`` the centres and ``value_text``/
    ``multiplier_text`` the digits of the minimum and of the KKT multiplier $\nu$ (the common
    derivative on the free rates); ``gradient`` and ``residual``
    ($\max_{\text{free}}|\partial Q/\partial x_i-\nu|$) at the last iterate, exact when
    ``arithmetic == "exact"``; ``kkt``: a KKT point exists in the enclosure (Krawczyk and the
    strict signs at the active bounds; at a limit point: the exact KKT check there); ``certified``:
    moreover the reduced Hessian is positive definite over the box (a strict local minimum) and
    every printed digit is certified; ``reason`` says why or why not; ``enclosure`` maps each
    free rate to the exact endpoints of $K(B)$."""

    quantity: str
    discipline: str
    budget: list[str]
    total: Fraction
    objective: str
    allocation: dict[str, str]
    x: dict[str, Fraction]
    value: Fraction
    value_text: str
    multiplier: Fraction
    multiplier_text: str
    gradient: dict[str, Fraction]
    residual: Fraction
    kkt: bool
    certified: bool
    reason: str
    active: list[str]
    limit: list[str]
    limit_note: str | None
    arithmetic: str
    steps: int
    evaluations: int
    digits: int
    enclosure: dict[str, tuple[Fraction, Fraction]] = dataclass_field(default_factory=dict)

    #: the route table's row whose gradients the Newton steps and the certificate use
    route: str = "reverse-mode"
    #: ``"global"`` (certified global minimum over the budget set, branch and bound),
    #: ``"local"`` (certified strict local minimum) or ``"none"`` (not certified)
    scope: str = "none"
    #: the boxes the branch and bound looked at (0: not run)
    boxes: int = 0
    #: the objective at the baseline (``baseline``: "current rates" or "equal split"), its
    #: digits, and the gain ``baseline - minimum`` (``None``: no stable baseline)
    baseline: str | None = None
    baseline_text: str | None = None
    gain_text: str | None = None

    #: how the optimum was found and certified
    method: str = ("active-set Newton steps on the face, Krawczyk certificate, branch and bound "
                   "for the global minimum (up to three budget rates)")

    def as_json(self) -> dict[str, Any]:
        """The fields of ``symq optimize --json`` (digits as text, exact centres as ``p/q``).

        Examples
        --------
        >>> import symq
        >>> opt = symq.optimize("n", "mean-response-time", "mu_1 + mu_2 = 2", values={
        ...     "lambda_1": "1/4", "lambda_2": "1/4"}, digits=8)
        >>> d = opt.as_json()
        >>> d["allocation"], d["at_lower_limit"], d["scope"], d["value_exact"]
        ({'mu_1': '2.0000000', 'mu_2': '0'}, ['mu_2'], 'global', '2/3')
        """
        return {"quantity": self.quantity, "discipline": self.discipline,
                "budget": list(self.budget), "total": str(self.total),
                "objective": self.objective, "allocation": dict(self.allocation),
                "x": {n: str(v) for n, v in self.x.items()}, "value": self.value_text,
                # exact only where the point is fixed by the budget and the DP ran exactly
                "value_exact": str(self.value) if self.arithmetic == "exact" and
                len(self.budget) - len(self.active) < 2 and self.kkt else None,
                "multiplier": self.multiplier_text, "active": list(self.active),
                "at_lower_limit": list(self.limit), "attained": not self.limit,
                "kkt": self.kkt, "certified": self.certified, "scope": self.scope,
                "boxes": self.boxes, "certificate": self.reason, "route": self.route,
                "method": self.method, "arithmetic": self.arithmetic, "steps": self.steps,
                "limit_note": self.limit_note, "baseline": self.baseline,
                "baseline_value": self.baseline_text, "gain": self.gain_text,
                "enclosure": {n: [str(a), str(b)] for n, (a, b) in self.enclosure.items()}}

    def _repr_html_(self) -> str:
        """Jupyter: one row per budget rate, then the minimum and the certificate."""
        from symq.display import html_table
        rows = [(n, self.allocation[n]) for n in self.budget]
        rows += [("minimum", self.value_text), ("certificate", self.reason)]
        return html_table([(("rate", "value"), rows)])

    def __repr__(self) -> str:
        """The printed digits, the minimum and whether they are certified (the exact centres,
        gradient and enclosure are attributes)."""
        split = ", ".join(f"{n}={self.allocation[n]}" for n in self.budget)
        state = "certified" if self.certified else "NOT certified"
        return (f"Optimum({self.quantity}, {self.discipline}: {split}; {self.objective} "
                f"{self.value_text}; {state}, route {self.route}, {self.arithmetic})")


# ------------------------------------------------------------------------------ parsing
def _rational(value: Any, what: str) -> Fraction:
    from symq.arithmetic.expressions import parse_expression
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    v = parse_expression(str(value))
    if not v.is_Rational:
        raise ModelError(f"{what}: {value!r} is not a rational number")
    return Fraction(int(v.p), int(v.q))


def parse_budget(budget: Any, names: Iterable[str]) -> tuple[list[str], Fraction]:
    """``"mu_1 + mu_2 = 3"`` (through symq's grammar) or ``({names}, C)`` -> (sorted names, C).

    Parameters
    ----------
    budget : str or (iterable of str, rational)
        The budget.
    names : iterable of str
        The model's rate names.

    Returns
    -------
    (list of str, Fraction)

    Raises
    ------
    ModelError
        Not a sum of at least two rate names equal to a positive number.

    Examples
    --------
    >>> parse_budget("mu_2 + mu_1 = 9/5", ["lambda_1", "mu_1", "mu_2"])
    (['mu_1', 'mu_2'], Fraction(9, 5))
    >>> parse_budget(({"mu_1", "mu_2"}, 2), ["mu_1", "mu_2"])
    (['mu_1', 'mu_2'], Fraction(2, 1))

    Running time: O(length of the text).
    """
    from symq.arithmetic.expressions import parse_expression
    from symq.engines.sensitivity import rate_order
    names = list(names)
    if isinstance(budget, str):
        if budget.count("=") != 1:
            raise ModelError(f"--budget {budget!r}: write it as 'mu_1 + mu_2 = C' (one '=')")
        left, right = budget.split("=")
        total = parse_expression(right.strip())
        if not total.is_Rational or total <= 0:
            raise ModelError(f"--budget: the capacity {right.strip()!r} must be a positive number")
        expr = parse_expression(left.strip())
        terms = expr.args if expr.is_Add else (expr,)
        chosen = []
        for t in terms:
            if not t.is_Symbol:
                raise ModelError(f"--budget: {t} is not a rate name; write a sum of rate names "
                                 "such as 'mu_1 + mu_2 = 3'")
            chosen.append(t.name)
        capacity = Fraction(int(total.p), int(total.q))
    else:
        try:
            chosen, capacity = [str(n) for n in budget[0]], _rational(budget[1], "budget")
        except (TypeError, IndexError):
            raise ModelError("the budget is 'mu_1 + mu_2 = C' or ({'mu_1', 'mu_2'}, C)") from None
        if capacity <= 0:
            raise ModelError(f"budget: the capacity {capacity} must be positive")
    for n in chosen:
        if n not in names:
            raise ModelError(f"--budget: the model has no rate {n!r}; its rates are "
                             + ", ".join(sorted(names, key=rate_order)))
    chosen = sorted(set(chosen), key=rate_order)
    if len(chosen) < 2:
        raise ModelError("--budget: name at least two rates to split the capacity between")
    return chosen, capacity


# ------------------------------------------------------------------------------ objective
def _mid(ball: Any) -> Fraction:
    from symq.engines.normalization.certified import ball_endpoints
    lo, hi = ball_endpoints(ball)
    return (lo + hi) / 2


class _Objective:
    r"""$f(x)=\sum_cw_cQ_c$ (or the total) of the symbolic model at the budget rates ``x``, with
    its gradient and reduced Hessian (balls at ``bits``) by :mod:`symq.engines.second_order`."""

    def __init__(self, symbolic, quantity, discipline, fixed, budget, weights, bits):
        self.symbolic, self.quantity, self.discipline = symbolic, quantity, discipline
        self.fixed, self.budget, self.weights, self.bits = fixed, budget, weights, bits
        self.low = 64 + 2 * len(symbolic.servers)  # early Newton steps, the certificate's box
        self.evaluations = 0
        self.domain: _Domain | None = None

    def point(self, x: list) -> dict[str, Any]:
        return {**self.fixed, **dict(zip(self.budget, x))}

    def directions(self, free: list[int]) -> list[dict[str, int]]:
        last = self.budget[free[-1]]
        return [{self.budget[i]: 1, last: -1} for i in free[:-1]]

    def second(self, x: list, free: list[int], box: Mapping[str, Any] | None = None,
               bits: int | None = None):
        """Balls at ``bits`` (default the full precision): (value, {name: gradient}, reduced
        Hessian rows over the free directions, the Hessian-vector products, bits)."""
        from symq.engines.second_order import hessian_vectors, objective_gradient
        self.evaluations += 1
        point = box if box is not None else self.point(x)
        bits = bits or self.bits
        try:
            if len(free) < 2 and box is None:
                value, grad = objective_gradient(self.symbolic, point, self.quantity,
                                                 self.discipline, self.weights, "ball", bits)
                if not (value.is_finite() and all(v.is_finite() for v in grad.values())):
                    raise _Undefined("not finite")
                return value, grad, [], [], bits
            out = hessian_vectors(self.symbolic, point, self.quantity, self.discipline,
                                  self.directions(free) if len(free) >= 2 else
                                  [{self.budget[0]: 0}], self.weights, bits)
        except ZeroDivisionError as exc:
            raise _Undefined(str(exc)) from None
        if box is None and not (out.value.is_finite() and
                                all(v.is_finite() for v in out.gradient.values())):
            raise _Undefined("not finite")
        if len(free) < 2:
            return out.value, out.gradient, [], out.hv, bits
        last = self.budget[free[-1]]
        jac = [[out.hv[j][self.budget[i]] - out.hv[j][last] for j in range(len(free) - 1)]
               for i in free[:-1]]
        return out.value, out.gradient, jac, out.hv, bits

    def bits_after(self, step: Fraction, total: Fraction) -> int:
        """The precision of the next point: Newton squares the error, so about four times the
        bits of the relative step (the full precision once the next step is the last)."""
        rel = abs(step) / total
        if rel == 0:
            return self.bits
        lost = max(0, rel.denominator.bit_length() - rel.numerator.bit_length())
        return min(self.bits, self.low + 4 * lost)

    def exact(self, x: list) -> tuple[Fraction, dict[str, Fraction]]:
        from symq.engines.second_order import objective_gradient
        self.evaluations += 1
        try:
            return objective_gradient(self.symbolic, self.point(x), self.quantity, self.discipline,
                                      self.weights, "exact")
        except ZeroDivisionError as exc:
            raise _Undefined(str(exc)) from None


class _Domain:
    r"""The budget set in linear terms: each server's rate as an affine form in the budget rates
    (the other rates at their values), and the stability conditions $\lambda(U)<\mu(U)$ over
    the unions $U$ of class server sets ([GR20]_ Thm 2.1: stable iff
    $\lambda(\mathcal I)<\mu(S(\mathcal I))$ for every set of classes), as affine forms
    ``const + a.x > 0``. Zero rates are allowed (a server of rate 0 serves nothing: the limit
    point's stability), and over a box of budget rates each condition gives the lower bound of
    :meth:`comparison`. ``None`` from :meth:`build` where a rate is not affine in the budget
    rates or there are more than :data:`MAX_UNIONS` unions."""

    MAX_UNIONS = 4096

    def __init__(self, k, unions, classes_in, lam, weight_of):
        self.k, self.unions, self.classes_in = k, unions, classes_in
        self.lam, self.weight_of = lam, weight_of

    @classmethod
    def build(cls, symbolic, quantity, fixed, budget, weights) -> "_Domain | None":
        by_name = {s.name: s for s in symbolic.symbols}
        sub = {by_name[n]: sympy.Rational(v.numerator, v.denominator)
               for n, v in fixed.items() if n in by_name}
        syms = [by_name[n] for n in budget]
        forms = {}
        for s, rate in symbolic.service_rates.items():
            e = sympy.expand(sympy.sympify(rate).subs(sub))
            try:
                poly = sympy.Poly(e, *syms)
            except sympy.PolynomialError:
                return None
            if poly.total_degree() > 1:
                return None
            coefs = [poly.coeff_monomial(v) for v in syms]
            const = poly.coeff_monomial(1)
            if not all(c.is_Rational for c in (*coefs, const)):
                return None
            forms[s] = (Fraction(int(const.p), int(const.q)),
                        [Fraction(int(c.p), int(c.q)) for c in coefs])
        lam = {}
        for c, rate in symbolic.arrival_rates.items():
            v = sympy.sympify(rate).subs(sub)
            if not v.is_Rational:
                return None
            lam[c] = Fraction(int(v.p), int(v.q))
        sets = {c: frozenset(v) for c, v in symbolic.compatibility.items()}
        unions: set = set()
        for m in sets.values():
            unions |= {u | m for u in unions} | {m}
            if len(unions) > cls.MAX_UNIONS:
                return None
        rows, classes_in = [], []
        for u in sorted(unions, key=lambda u: (len(u), sorted(u))):
            inside = [c for c, m in sets.items() if m <= u]
            const = sum((forms[s][0] for s in u), Fraction(0)) - sum(lam[c] for c in inside)
            coefs = [sum((forms[s][1][i] for s in u), Fraction(0)) for i in range(len(budget))]
            rows.append((const, coefs))
            classes_in.append(inside)
        if quantity == "mean-number":
            base = {c: Fraction(1) for c in lam}
        else:
            total = sum(lam.values())
            base = {c: 1 / total for c in lam}
        if weights:
            base = {c: Fraction(weights.get(c, 0)) * (1 if quantity == "mean-number"
                                                       else 1 / lam[c]) for c in lam}
        return cls(len(budget), rows, classes_in, lam, base)

    def slack(self, x: list[Fraction]) -> Fraction:
        r"""The smallest $\mu(U)-\lambda(U)$ at the budget rates ``x`` (stable iff $>0$)."""
        return min(c + sum(a * v for a, v in zip(coefs, x)) for c, coefs in self.unions)

    def comparison(self, ranges: list[tuple[Fraction, Fraction]]) -> Fraction | None:
        r"""A lower bound of the objective over a box of budget rates (``None``: every point of
        the box is unstable). For a union $U$ the jobs of the classes inside it are served at
        rate at most $\mu(U)$ whatever the discipline, so their number dominates an M/M/1 queue
        of rates $\lambda(U),\mu(U)$ (a sample-path comparison): $\sum_{c\subseteq U}L_c\ge
        \lambda(U)/(\mu(U)-\lambda(U))$, and $\mu(U)$ is at most its largest value over the box;
        the objective $\sum_cw'_cL_c$ is at least $\min_{c\subseteq U}w'_c$ times that."""
        best = Fraction(0)
        for (const, coefs), inside in zip(self.unions, self.classes_in):
            top = const + sum(a * (hi if a > 0 else lo) for a, (lo, hi) in zip(coefs, ranges))
            if top <= 0:
                return None
            w = min(self.weight_of[c] for c in inside)
            if w > 0:
                best = max(best, w * sum(self.lam[c] for c in inside) / top)
        return best


def _stable(symbolic: Model, point: Mapping[str, Fraction], domain: "_Domain | None" = None,
            x: list | None = None) -> bool:
    """Stable at ``point`` (exact); with ``domain`` and the budget rates ``x``, zero budget
    rates are allowed (the limit point: a server of rate 0 serves nothing)."""
    from symq.engines.normalization.entry import check_stability_fast
    if domain is not None and x is not None:
        return all(v >= 0 for v in x) and domain.slack(x) > 0
    if any(v <= 0 for v in point.values()):
        return False
    try:
        check_stability_fast(symbolic.substitute(
            {n: sympy.Rational(v.numerator, v.denominator) for n, v in point.items()}))
    except UnstableModelError:
        return False
    return True


def _matrix(rows: list[list[Fraction]]) -> Any:
    from flint import fmpq, fmpq_mat
    return fmpq_mat(len(rows), len(rows[0]), [fmpq(v.numerator, v.denominator)
                                              for row in rows for v in row])


def _rows(m: Any) -> list[list[Fraction]]:
    return [[Fraction(int(m[i, j].p), int(m[i, j].q)) for j in range(m.ncols())]
            for i in range(m.nrows())]


def _solve(a: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    """$Ax=b$ over the rationals (python-flint's ``fmpq_mat``; ZeroDivisionError when
    singular)."""
    return [row[0] for row in _rows(_matrix(a).solve(_matrix([[Fraction(v)] for v in b])))]


def _inverse(a: list[list[Fraction]]) -> list[list[Fraction]]:
    """$A^{-1}$ over the rationals (ZeroDivisionError when singular)."""
    return _rows(_matrix(a).inv())


def _round(v: Fraction, digits: int) -> Fraction:
    q = 10 ** (digits + 8)
    return Fraction(round(v * q), q)


# ------------------------------------------------------------------------------ certificate
@dataclass
class Certificate:
    """The outcome of :func:`krawczyk`: ``inside`` ($K(B)\\subset\\operatorname{int}B$),
    ``positive`` (the leading principal minors of $J(B)$ are positive), ``enclosure`` ($K(B)$
    as ``arb`` balls, one per coordinate) and ``reason`` (why not, or ``""``)."""

    inside: bool
    positive: bool
    enclosure: list
    reason: str


def krawczyk(c: list[Fraction], radius: Fraction, f_c: list[Any], jac: list[list[Any]],
             a: list[list[Fraction]] | None = None) -> Certificate:
    r"""Krawczyk's test of a box $B=c+[-r,r]^m$: $K(B)=c-AF(c)+(I-AJ(B))(B-c)\subset
    \operatorname{int}B$ proves that $F$ has exactly one zero in $B$ (and it lies in $K(B)$),
    given an enclosure $J(B)$ of the Jacobian of $F$ over all of $B$; and Sylvester's test on
    $J(B)$: positive leading principal minors (by elimination in balls: every pivot $>0$) at
    every symmetric matrix in $J(B)$.

    Parameters
    ----------
    c : list of Fraction
        The centre.
    radius : Fraction
        $r>0$.
    f_c : list
        $F(c)$: exact rationals or ``arb`` balls.
    jac : list of list
        $J(B)$, ``arb`` balls (row $i$ = $\partial F_i$).
    a : list of list of Fraction, optional
        The preconditioner (default: the inverse of the midpoints of ``jac``).

    Returns
    -------
    Certificate

    Examples
    --------
    $F(y)=y^2-2$ on $B=[1.41, 1.42]$ with $J(B)=2B$:

    >>> from flint import arb
    >>> from symq.engines.second_order import ball_of
    >>> c, r = Fraction(283, 200), Fraction(1, 200)
    >>> cert = krawczyk([c], r, [c * c - 2], [[2 * ball_of(c - r, c + r)]])
    >>> cert.inside, cert.positive, cert.enclosure[0].contains(arb(2).sqrt())
    (True, True, True)
    >>> krawczyk([c + 4 * r], r, [(c + 4 * r) ** 2 - 2],
    ...          [[2 * ball_of(c + 3 * r, c + 5 * r)]]).inside   # no zero in this box
    False

    Running time: O(m^3) ball operations for m coordinates.
    """
    from symq.engines.normalization.certified import ball_endpoints
    from symq.engines.second_order import ball_of
    from flint import arb
    m = len(c)
    if a is None:
        try:
            a = _inverse([[_mid(v) for v in row] for row in jac])
        except ZeroDivisionError:
            return Certificate(False, False, [], "the Jacobian's midpoint is singular")
    if any(not v.is_finite() for row in jac for v in row):
        return Certificate(False, False, [], "the Jacobian enclosure is not finite")
    fb = [v if isinstance(v, arb) else ball_of(Fraction(v)) for v in f_c]
    delta = ball_of(-radius, radius)
    enclosure, inside = [], True
    for i in range(m):
        k = ball_of(c[i])
        for j in range(m):
            k -= ball_of(a[i][j]) * fb[j]
            s = ball_of(int(i == j))
            for t in range(m):
                s -= ball_of(a[i][t]) * jac[t][j]
            k += s * delta
        enclosure.append(k)
        if not k.is_finite():
            inside = False
            continue
        lo, hi = ball_endpoints(k)
        if not (c[i] - radius < lo and hi < c[i] + radius):
            inside = False
    positive = True
    rows = [list(r) for r in jac]  # elimination without pivoting: pivots = D_k / D_{k-1}
    for col in range(m):
        p = rows[col][col]
        if not p > 0:
            positive = False
            break
        for r in range(col + 1, m):
            t = rows[r][col] / p
            rows[r] = [u - t * v for u, v in zip(rows[r], rows[col])]
    reason = "" if inside and positive else (
        "K(B) is not inside the box B (no unique stationary point proven there)"
        if not inside else "the reduced Hessian is not proven positive definite over the box")
    return Certificate(inside, positive, enclosure, reason)


# ------------------------------------------------------------------------------ optimize
def optimize(model: Model | str, quantity: str, budget: Any, discipline: str = "collaborative",
             values: Mapping[str, Any] | None = None, weights: Mapping[str, Any] | None = None,
             bounds: Mapping[str, Any] | None = None, digits: int = 30, exact: bool | None = None,
             max_steps: int = 60, max_work: int | None = None, no_limits: bool = False,
             limits: Any = None, max_boxes: int = 4000) -> Optimum:
    r"""The split of a capacity budget that minimises a quantity, with a certified local minimum.

    Newton steps on the face $\sum_{i\in B}x_i=C$ (gradient and reduced Hessian from one
    dual-number sweep of the DP's tape, :mod:`symq.engines.second_order`), active bounds held,
    then the Krawczyk certificate of the module docstring: a unique KKT point in a box around the
    last iterate, a positive definite reduced Hessian over the box (a strict *local* minimum; a
    global minimum is not claimed), the digits that every point of the enclosure rounds to.
    Where a rate without a positive lower bound is driven to 0 the infimum is not attained; the
    KKT conditions are then checked exactly at the limit (the structured formula and its
    derivative formula).

    Parameters
    ----------
    model : Model, str or Path
        Symbolic rates (``values`` gives every rate outside the budget a value) or numeric rates
        (named ``lambda_<class>`` and ``mu_<server>``; rates outside the budget keep the model's
        values, ``values`` may override them).
    quantity : str
        ``"mean-response-time"`` or ``"mean-number"``.
    budget : str or (iterable of str, rational)
        ``"mu_1 + mu_2 = 3"`` (symq's grammar) or ``({"mu_1", "mu_2"}, 3)``.
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.
    values : mapping, optional
        ``{rate name: rational}``.
    weights : mapping, optional
        ``{class: w}``: minimise $\sum_cw_cQ_c$ (default: the total).
    bounds : mapping, optional
        ``{budget rate: (lo or None, hi or None)}``.
    digits : int
        Significant digits of the allocation and the minimum.
    exact : bool or None
        $F(c)$ and the reported gradient in exact rationals (``True``), in balls (``False``) or
        exact where cheap (``None``: the route table's choice).
    max_steps : int
        Newton steps at most.
    max_work, no_limits, limits : optional
        Raise or lift the ``certified-steps`` limit (subset-DP steps of one sweep).

    Returns
    -------
    Optimum

    Raises
    ------
    ModelError
        A bad budget, weight, bound or value; no stable split within the bounds.
    TooLargeError
        One sweep is past the limit.

    Examples
    --------
    >>> from symq import example_model
    >>> opt = optimize(example_model("w"), "mean-response-time", "mu_1 + mu_2 = 9/5",
    ...                discipline="alis", digits=10)
    >>> opt.allocation, opt.certified
    ({'mu_1': '0.9589285968', 'mu_2': '0.8410714032'}, True)

    Running time: a few Newton steps, each one sweep of the subset DP's tape in dual numbers
    per free direction (about three plain sweeps), and one more for the certificate.
    """
    from argparse import Namespace
    from symq.engines.sensitivity import rate_symbols, rate_order
    from symq.engines.second_order import precision_bits
    from symq.errors import TooLargeError
    from symq.limits import check, limit_value, number_text
    from symq.models.catalog import as_model
    from symq.queries.plan import arithmetic_for
    model = as_model(model)
    if quantity not in QUANTITIES:
        raise ModelError(f"optimize minimises {' or '.join(QUANTITIES)}, not {quantity!r}")
    if discipline not in DISCIPLINES:
        raise ModelError(f"unknown discipline {discipline!r}; available: "
                         + ", ".join(DISCIPLINES))
    if not isinstance(digits, int) or isinstance(digits, bool) or digits < 1:
        raise ModelError(f"digits must be a whole number at least 1, not {digits!r}")
    check("digits", digits, f"optimize --digits {digits}",
          remedy="ask for fewer digits (the limit is fixed)")
    values = {str(k): _rational(v, f"the value of {k}") for k, v in (values or {}).items()}
    if model.symbols:
        symbolic = model
        names = sorted((s.name for s in model.symbols), key=rate_order)
    else:
        symbolic, point = rate_symbols(model)
        names = sorted((s.name for s in point), key=rate_order)
        values = {**{s.name: v for s, v in point.items()}, **values}
    for n in values:
        if n not in names:
            raise ModelError(f"the model has no rate {n!r}; its rates are " + ", ".join(names))
    chosen, total = parse_budget(budget, names)
    for n, v in values.items():
        if n not in chosen and v <= 0:
            raise ModelError(f"the rate {n} = {v} must be positive (remove the class or server "
                             "instead)")
    current = [values.get(n) for n in chosen]
    current = current if None not in current and sum(current) == total else None
    fixed = {n: v for n, v in values.items() if n not in chosen}
    missing = [n for n in names if n not in chosen and n not in fixed]
    if missing:
        raise ModelError(f"optimize: the rate {missing[0]} has no value; give it with --set "
                         f"{missing[0]}=VALUE")
    weights = {str(c): _rational(w, f"weight of class {c}") for c, w in (weights or {}).items()}
    for c, w in weights.items():
        if c not in model.classes:
            raise ModelError(f"--weight: the model has no class {c!r}; its classes are "
                             + ", ".join(model.classes))
        if w < 0:
            raise ModelError(f"--weight {c}={w}: weights must be 0 or more (a negative weight "
                             "rewards jobs of that class, and the objective has no minimum: it "
                             "falls without bound as the split nears instability)")
    if weights and not any(w > 0 for w in weights.values()):
        raise ModelError("--weight: give at least one class a positive weight")
    clean_bounds = {}
    for n, (lo_b, hi_b) in (bounds or {}).items():
        if n not in chosen:
            raise ModelError(f"--bound {n}: {n} is not a rate of the budget "
                             f"({', '.join(chosen)})")
        clean_bounds[n] = (None if lo_b is None else _rational(lo_b, f"--bound {n}"),
                           None if hi_b is None else _rational(hi_b, f"--bound {n}"))
    k = len(chosen)
    equal = {n: total / k for n in chosen}
    numeric = symbolic.substitute({n: sympy.Rational(v.numerator, v.denominator)
                                   for n, v in {**fixed, **equal}.items()})
    # the route table's choice for the values (exact where cheap); the sweeps have no
    # fixed-point kernels, so every certified arithmetic runs on balls
    arithmetic = "exact" if arithmetic_for(numeric, "mean-number", discipline,
                                           exact) == "exact" else "ball"
    limits = limits if limits is not None else Namespace(max_work=max_work, no_limits=no_limits)
    what = f"optimize {quantity} of model {model.name or 'given'} ({discipline})"
    limit = limit_value("certified-steps", limits)
    steps_estimate = tape_steps(numeric, discipline,
                                cap=None if limit is None else limit // 9 + 1)
    rate_bits = max((v.numerator.bit_length() + v.denominator.bit_length()
                     for v in values.values()), default=0)
    if exact is None and (steps_estimate is None or steps_estimate > EXACT_CENTRE_STEPS
                          or rate_bits > EXACT_RATE_BITS):
        # the centre's rates have digits + 8 decimals: exact rationals at such a point grow
        # with every DP step (and with the rates' own size), so only small DPs get the exact
        # F(c)
        arithmetic = "ball"
    bits = precision_bits(digits, len(symbolic.servers))
    if steps_estimate is None:
        raise TooLargeError(f"too large: {what} needs more than {number_text(limit)} "
                            "certified DP steps (the subset DP of its tape alone); pass "
                            "--max-work N with a larger N to go ahead, or --no-limits")
    sweep = 9 * steps_estimate * max(k - 1, 1) * max(1, bits // 400)
    if exact or arithmetic == "exact":
        sweep *= max(1, rate_bits // 64)
    check("certified-steps", sweep, what, limit)
    if limit is not None:  # the branch and bound stays within the same limit
        max_boxes = max(0, min(max_boxes, limit // max(1, 9 * steps_estimate * max(k - 1, 1))))
    f = _Objective(symbolic, quantity, discipline, fixed, chosen, weights or None, bits)
    f.domain = _Domain.build(symbolic, quantity, fixed, chosen, weights or None)
    start = None
    for _restart in range(3):
        out = _newton(f, symbolic, chosen, total, clean_bounds, digits, max_steps, start)
        out.update(quantity=quantity, discipline=discipline, budget=chosen, total=total,
                   objective="weighted sum" if weights else "total", digits=digits,
                   arithmetic=arithmetic)
        x, free, active = out.pop("_x"), out.pop("_free"), out.pop("_active_idx")
        last = out.pop("_last")
        lo, hi = _bounds_lists(f, chosen, clean_bounds)
        drift = [i for i in free if (lo[i] is None or lo[i] <= 0)
                 and x[i] * 10 ** (digits // 2 + 2) < total]
        if drift and len(drift) < len(free):
            # a rate drifts to 0 where the DP has no value at 0: the formula's limit
            out.update(_limit_point(symbolic, quantity, discipline, fixed, chosen, total, x,
                                    drift, [i for i in free if i not in drift], active, lo,
                                    weights, digits))
            out["scope"] = "none"
            return Optimum(**out)
        out.update(_certify(f, x, free, active, clean_bounds, total, digits, arithmetic, last))
        value_range = out.pop("_value_range")
        out.update(_baseline(f, current, total, value_range, digits))
        out["limit"] = [chosen[i] for i in sorted(active) if x[i] == 0]
        out["scope"] = "local" if out["certified"] else "none"
        if not out["certified"] or f.domain is None or len(chosen) > GLOBAL_RATES:
            return Optimum(**out)
        if max_boxes < MIN_BOXES:  # a search this short would not finish: do not start it
            out["reason"] += (" (not proven global: the branch and bound would pass the work "
                              "limit; raise --max-work to try it)" if max_boxes else
                              " (not proven global: no branch and bound, max_boxes=0)")
            return Optimum(**out)
        centre = [out["x"][n] for n in chosen]
        found = _global(f, centre, free, active, lo, hi, total, value_range, max_boxes)
        out["boxes"] = found["boxes"]
        if found["better"] is None:
            if found["global"]:
                out["scope"] = "global"
                out["reason"] = f"certified global minimum over the budget set: {found['note']}"
            else:
                out["reason"] = f"{out['reason']} (not proven global: {found['note']})"
            out["evaluations"] = f.evaluations
            return Optimum(**out)
        start = found["better"]  # a better point: the active-set Newton steps from there
    out["reason"] = f"{out['reason']} (not proven global: better points keep being found)"
    return Optimum(**out)


def _baseline(f: "_Objective", current: list | None, total: Fraction, value_range: tuple,
              digits: int) -> dict[str, Any]:
    """The objective at the current rates of the budget (when they sum to the budget) or at
    the equal split, in certified digits, and the gain of the optimum against it (its enclosure
    minus the minimum's); ``{}`` when that point is unstable or its digits are not certified."""
    from flint import ctx
    from symq.engines.normalization.certified import certify
    from symq.engines.second_order import ball_of
    k = len(f.budget)
    name, x = ("current rates", current) if current is not None else \
        ("equal split", [total / k] * k)
    if any(v <= 0 for v in x) or not _stable(f.symbolic, f.point(x)):
        return {}
    try:
        with ctx.workprec(f.bits):
            v = f.second(x, [0], bits=f.bits)[0]
            gain = v - ball_of(value_range[0], value_range[1])
            v_text, g_text = certify(v, digits), certify(gain, max(1, digits // 2))
    except _Undefined:
        return {}
    if v_text is None:
        return {}
    return {"baseline": name, "baseline_text": v_text.text,
            "gain_text": g_text.text if g_text is not None else None}


class _Undefined(ArithmeticError):
    """The objective has no finite enclosure at a point or over a box (a division by zero of
    the DP at a zero rate, a ball that contains 0 in a denominator)."""


def _bounds_lists(f: "_Objective", budget: list[str], bounds: dict) -> tuple[list, list]:
    """The lower and upper bounds of each budget rate; with a linear domain, a rate without a
    lower bound has the lower bound 0 (the face of a limit point, where the DP is evaluated at
    the rate 0)."""
    lo = [bounds.get(n, (None, None))[0] for n in budget]
    hi = [bounds.get(n, (None, None))[1] for n in budget]
    if f.domain is not None:
        lo = [Fraction(0) if v is None or v < 0 else v for v in lo]
    return lo, hi


def _start(f: "_Objective", symbolic: Model, budget: list[str], total: Fraction, lo: list,
           hi: list) -> list[Fraction]:
    r"""The equal split projected onto the bounds; when it is unstable, the most stable point of
    a grid of the budget set (the largest slack $\min_U\mu(U)-\lambda(U)$, exact), else a
    one-line error that says whether any split can be stable."""
    k = len(budget)
    x, pinned = [total / k] * k, set()
    for _ in range(k):  # the equal split, projected onto the bounds
        rest = [i for i in range(k) if i not in pinned]
        if not rest:
            break
        share = (total - sum(x[i] for i in pinned)) / len(rest)
        moved = False
        for i in rest:
            x[i] = share
            if lo[i] is not None and share < lo[i]:
                x[i], moved = lo[i], True
                pinned.add(i)
            elif hi[i] is not None and share > hi[i]:
                x[i], moved = hi[i], True
                pinned.add(i)
        if not moved:
            break
    inside = sum(x) == total and all((lo[i] is None or x[i] >= lo[i]) and
                                     (hi[i] is None or x[i] <= hi[i]) for i in range(k))
    if inside and all(v > 0 for v in x) and _stable(symbolic, f.point(x)):
        return x
    dom = f.domain
    if dom is None:
        raise ModelError("the equal split of the budget is unstable or outside the bounds "
                         "(and the rates are not linear in the budget, so no other start is "
                         "searched); give bounds that hold a stable split")
    # a grid of the budget set, finer until a stable point is found (k <= 4), else the
    # split in proportion to the load each rate can take
    best, best_slack = None, Fraction(0)
    lo0 = [v if v is not None else Fraction(0) for v in lo]
    hi0 = [v if v is not None else total for v in hi]
    candidates = []
    if k <= 4:
        for n in (8, 24, 64):
            candidates = _grid(lo0, hi0, total, n, 20000)
            for y in candidates:
                if all(v > 0 for v in y):
                    sl = dom.slack(y)
                    if sl > best_slack:
                        best, best_slack = y, sl
            if best is not None:
                return best
    need = max((-const for const, coefs in dom.unions if all(a == 0 for a in coefs)),
               default=Fraction(-1))
    if need >= 0:
        raise ModelError("no split of this budget is stable: some classes are served only by "
                         "servers outside the budget, and those are too slow; raise their rates")
    for (const, coefs), inside in zip(dom.unions, dom.classes_in):
        if const + total * max(coefs) <= 0:  # even all of the budget on this union's servers
            need = sum(dom.lam[c] for c in inside)
            raise ModelError(
                f"no split of the budget {total} is stable: classes {', '.join(inside)} bring "
                f"{need} and their servers can have at most {const + total * max(coefs) + need}"
                f" (stability needs more); raise the budget above {-const / max(coefs)}"
                if max(coefs) > 0 else
                f"no split of the budget {total} is stable: classes {', '.join(inside)} are "
                "served by no budget rate and their servers are too slow")
    raise ModelError("the equal split of the budget is unstable and no stable split was found "
                     "on a grid of the budget set; give --bound ranges around a stable split")


def _grid(lo: list, hi: list, total: Fraction, n: int, cap: int) -> list[list[Fraction]]:
    r"""The points of the budget set $\sum x=C$, ``lo <= x <= hi``, whose first $k-1$
    coordinates are multiples of $C/n$ (at most ``cap`` points)."""
    k = len(lo)
    out: list[list[Fraction]] = []
    step = total / n

    def rec(prefix: list[Fraction], left: Fraction) -> None:
        if len(out) >= cap:
            return
        i = len(prefix)
        if i == k - 1:
            if lo[i] <= left <= hi[i]:
                out.append(prefix + [left])
            return
        for j in range(n + 1):
            v = j * step
            if v > left:
                break
            if lo[i] <= v <= hi[i]:
                rec(prefix + [v], left - v)
    rec([], total)
    return out


def _newton(f: _Objective, symbolic: Model, budget: list[str], total: Fraction,
            bounds: dict, digits: int, max_steps: int, start: list | None = None
            ) -> dict[str, Any]:
    """Newton steps on the face with active bounds (an active-set method: a rate that reaches
    its bound, 0 included where the domain is linear, is held there and the Newton steps go on
    on the face of the remaining free rates; it is released when its gradient no longer holds
    it), from the equal split (or ``start``); stops before a step below
    ``C 10^-(digits/2+4)``."""
    k = len(budget)
    lo, hi = _bounds_lists(f, budget, bounds)
    x = list(start) if start is not None else _start(f, symbolic, budget, total, lo, hi)
    active: set[int] = {i for i in range(k) if (lo[i] is not None and x[i] == lo[i]) or
                        (hi[i] is not None and x[i] == hi[i])}
    free = [i for i in range(k) if i not in active]
    last = f.second(x, free if len(free) >= 2 else list(range(k)), bits=f.low)
    tol = Fraction(1, 10 ** (digits + 4))
    stop = total / 10 ** (digits // 2 + 2)
    steps = 0
    for steps in range(1, max_steps + 1):
        free = [i for i in range(k) if i not in active]
        if len(free) < 2:
            break
        value, grad, jac = _mid(last[0]), {n: _mid(v) for n, v in last[1].items()}, last[2]
        g = [grad[n] for n in budget]
        m = len(free) - 1
        hf = [[_mid(jac[a][b]) for b in range(m)] for a in range(m)]
        rhs = [-(g[free[a]] - g[free[-1]]) for a in range(m)]
        try:
            dy = _solve(hf, rhs)
            if sum(d * r for d, r in zip(dy, rhs)) <= 0:  # not a descent direction
                raise ZeroDivisionError
        except ZeroDivisionError:  # steepest descent on the face, a tenth of the smallest rate
            scale = max(abs(r) for r in rhs) or Fraction(1)
            dy = [r / scale * max(min(x[i] for i in free), total / 10 ** 6) / 10 for r in rhs]
        dx = [Fraction(0)] * k
        for a in range(m):
            dx[free[a]] = dy[a]
        dx[free[-1]] = -sum(dy)
        if max(abs(d) for d in dx) <= stop:
            break
        t = Fraction(1)
        for i in free:  # stay inside the bounds: stop at the first one hit
            if dx[i] < 0 and lo[i] is not None and x[i] + t * dx[i] < lo[i]:
                t = (lo[i] - x[i]) / dx[i]
            if dx[i] > 0 and hi[i] is not None and x[i] + t * dx[i] > hi[i]:
                t = (hi[i] - x[i]) / dx[i]
        trial = None
        while True:
            y = [_round(v + t * d, digits) for v, d in zip(x, dx)]
            for i in free:  # a bound hit stays exactly on the bound
                if lo[i] is not None and abs(y[i] - lo[i]) <= abs(t * dx[i]) / 10 ** 6 and dx[i] < 0:
                    y[i] = lo[i]
                if hi[i] is not None and abs(y[i] - hi[i]) <= abs(t * dx[i]) / 10 ** 6 and dx[i] > 0:
                    y[i] = hi[i]
            movable = [i for i in free if (lo[i] is None or y[i] != lo[i])
                       and (hi[i] is None or y[i] != hi[i])] or free
            y[movable[-1]] += total - sum(y)
            ok = all(lo[i] is None or y[i] >= lo[i] for i in range(k)) and \
                all(hi[i] is None or y[i] <= hi[i] for i in range(k))
            if ok and _stable(symbolic, f.point(y), f.domain, y):
                new_free = [i for i in free if not ((lo[i] is not None and y[i] == lo[i]) or
                                                    (hi[i] is not None and y[i] == hi[i]))]
                try:
                    trial = f.second(y, new_free if len(new_free) >= 2 else free,
                                     bits=f.bits_after(max(abs(d) for d in dx), total))
                except _Undefined:
                    trial = None
                if trial is not None and (_mid(trial[0]) <= value + tol * abs(value)
                                          or t < Fraction(1, 2 ** 20)):
                    break
            if t < Fraction(1, 2 ** 40):
                break
            t /= 2
        if trial is None:  # no acceptable step: the iterate stays
            break
        x, last = y, trial
        g = [_mid(last[1][n]) for n in budget]
        for i in free:
            if (lo[i] is not None and x[i] == lo[i]) or (hi[i] is not None and x[i] == hi[i]):
                active.add(i)
        free = [i for i in range(k) if i not in active]
        nu = sum(g[i] for i in free) / len(free) if free else Fraction(0)
        released = False
        for i in sorted(active):  # release a bound whose gradient no longer holds the rate
            if lo[i] is not None and lo[i] == hi[i]:
                continue  # a fixed rate
            if (lo[i] is not None and x[i] == lo[i] and g[i] < nu) or \
                    (hi[i] is not None and x[i] == hi[i] and g[i] > nu):
                active.discard(i)
                released = True
        new_free = [i for i in range(k) if i not in active]
        if len(new_free) >= 2 and (released or len(new_free) != len(free)
                                   or len(last[2]) != len(new_free) - 1):
            last = f.second(x, new_free, bits=last[4])
    free = [i for i in range(k) if i not in active]
    if len(free) >= 2 and (len(last[2]) != len(free) - 1 or last[4] < f.bits):
        last = f.second(x, free)  # the certificate's F(c): at the full precision
    elif len(free) < 2 and last[4] < f.bits:
        last = f.second(x, free)
    return {"_x": x, "_free": free, "_active_idx": active, "_last": last, "steps": steps,
            "evaluations": f.evaluations, "active": [budget[i] for i in sorted(active)],
            "limit": [], "limit_note": None}


def _certify(f: _Objective, x: list[Fraction], free: list[int], active: set[int],
             bounds: dict, total: Fraction, digits: int, arithmetic: str,
             last: tuple) -> dict[str, Any]:
    """The Krawczyk certificate around the last iterate ``x`` (module docstring); when $K(B)$
    is inside $B$ but too wide for the digits, again around the centre of $K(B)$ (an interval
    Newton step: the width about squares), twice at most."""
    for attempt in range(3):
        out = _certify_at(f, x, free, active, bounds, total, digits, arithmetic, last)
        centre = out.pop("_next")
        if out["certified"] or centre is None or attempt == 2:
            return out
        x = centre
        last = f.second(x, free)
    return out  # pragma: no cover - the loop returns


def _certify_at(f: _Objective, x: list[Fraction], free: list[int], active: set[int],
                bounds: dict, total: Fraction, digits: int, arithmetic: str,
                last: tuple) -> dict[str, Any]:
    """One Krawczyk certificate around ``x`` (``_next``: the rounded centre of $K(B)$ when it
    is inside $B$ but too wide for the digits)."""
    from flint import arb, ctx
    from symq.arithmetic.numeric import round_fraction
    from symq.engines.normalization.certified import ball_endpoints, certify
    from symq.engines.second_order import ball_of
    budget = f.budget
    k = len(budget)
    lo, _ = _bounds_lists(f, budget, bounds)
    if arithmetic == "exact":
        try:
            value_c, grad_c = f.exact(x)
        except _Undefined:
            value_c, grad_c = last[0], last[1]
    else:
        value_c, grad_c = last[0], last[1]
    with ctx.workprec(f.bits):
        value_ball = None
        vb = value_c if isinstance(value_c, arb) else ball_of(value_c)
        gb = {n: (v if isinstance(v, arb) else ball_of(v)) for n, v in grad_c.items()}
        g_mid = {n: _mid(v) if isinstance(v, arb) else v for n, v in grad_c.items()}
        nu_c = sum(g_mid[budget[i]] for i in free) / len(free) if free else Fraction(0)
        residual = max((abs(g_mid[budget[i]] - nu_c) for i in free), default=Fraction(0))
        base = {"gradient": {n: g_mid[n] for n in budget}, "residual": residual}
        reasons = []
        enclosure: dict[str, tuple[Fraction, Fraction]] = {}
        nxt = None
        if len(free) >= 2:
            m = len(free) - 1
            last_free = budget[free[-1]]
            f_c = [gb[budget[i]] - gb[last_free] for i in free[:-1]]
            try:
                a = _inverse([[_mid(v) for v in row] for row in last[2]])
            except ZeroDivisionError:
                a = None
            c = [x[i] for i in free[:-1]]
            radius = Fraction(0)
            if a is not None:
                step = [-sum(a[i][j] * _mid(f_c[j]) for j in range(m)) for i in range(m)]
                radius = 4 * max(abs(s) for s in step)
            floor = total / 10 ** (digits + 6)
            radius = _nice(max(radius, floor))
            cert = None
            for _attempt in range(3):
                box = dict(f.point(x))
                for i in free[:-1]:
                    box[budget[i]] = (x[i] - radius, x[i] + radius)
                box[last_free] = (x[free[-1]] - m * radius, x[free[-1]] + m * radius)
                if min(box[budget[i]][0] for i in free[:-1]) <= 0 or \
                        box[last_free][0] <= 0:
                    cert = Certificate(False, False, [], "the box reaches a zero rate")
                    break
                vB, gB, jac, hvB, _ = f.second(x, free, box, bits=f.low + 32)
                cert = krawczyk(c, radius, f_c, jac, a)
                if cert.inside:
                    break
                radius *= 16
            if cert is not None and cert.inside:
                kb = cert.enclosure
                dk = [kb[j] - ball_of(c[j]) for j in range(m)]
                last_ball = ball_of(total - sum(x[i] for i in active)) - sum(kb, arb(0))
                balls = {**{budget[free[j]]: kb[j] for j in range(m)}, last_free: last_ball}
                value_ball = vb + sum((gB[budget[free[j]]] - gB[last_free]) * dk[j]
                                      for j in range(m))
                nu_ball = gb[last_free] + sum(hvB[j][last_free] * dk[j] for j in range(m))
                signs = True
                for i in active:
                    gap = gb[budget[i]] + sum(hvB[j][budget[i]] * dk[j] for j in range(m)) - nu_ball
                    at_lower = lo[i] is not None and x[i] == lo[i]
                    signs = signs and bool(gap > 0 if at_lower else gap < 0)
                if not signs:
                    reasons.append("the sign of dQ/dx - nu at an active bound is not proven strict")
                enclosure = {n: ball_endpoints(b) for n, b in balls.items()}
                if any(certify(b, digits) is None for b in balls.values()):
                    nxt = list(x)
                    for j in range(m):
                        nxt[free[j]] = _round(_mid(kb[j]), digits)
                    nxt[free[-1]] = total - sum(nxt[i] for i in range(k) if i != free[-1])
            else:
                reasons.append(cert.reason if cert is not None else
                               "the reduced Hessian's midpoint is singular")
                balls, value_ball, nu_ball, signs = {}, None, None, False
            kkt = bool(cert is not None and cert.inside and signs)
            if cert is not None and cert.inside and not cert.positive:
                reasons.append(cert.reason)
            positive = bool(cert is not None and cert.positive)
        else:  # one free rate: fixed by the budget; only the signs at the bounds
            balls = {budget[i]: ball_of(x[i]) for i in free}
            value_ball, nu_ball = vb, gb[budget[free[0]]] if free else ball_of(0)
            signs = True
            for i in active:
                gap = gb[budget[i]] - nu_ball
                at_lower = lo[i] is not None and x[i] == lo[i]
                signs = signs and bool(gap > 0 if at_lower else gap < 0)
            if not signs:
                reasons.append("the sign of dQ/dx - nu at an active bound is not proven strict")
            kkt, positive = signs, True
        allocation, x_out = {}, {}
        for i, n in enumerate(budget):
            if n in balls:
                text = certify(balls[n], digits)
                lo_b, hi_b = ball_endpoints(balls[n])
                x_out[n] = (lo_b + hi_b) / 2
                if text is None:
                    reasons.append(f"the enclosure of {n} is too wide for {digits} digits")
                    allocation[n] = round_fraction(x_out[n], digits)
                else:
                    allocation[n] = text.text
            else:
                x_out[n] = x[i]
                allocation[n] = "0" if x[i] == 0 else round_fraction(x[i], digits)
        texts = {}
        for key, ball, fallback in (("value", value_ball, vb), ("multiplier", nu_ball,
                                                                 ball_of(nu_c))):
            use = ball if ball is not None else fallback
            cert_text = certify(use, digits) if ball is not None else None
            texts[key] = _mid(use)
            if cert_text is None:
                if ball is not None:
                    reasons.append(f"the enclosure of the {key} is too wide for {digits} digits")
                texts[key + "_text"] = round_fraction(_mid(use), digits)
            else:
                texts[key + "_text"] = cert_text.text
    if len(free) < 2 and isinstance(value_c, Fraction):  # the point is fixed: exact values
        texts["value"], texts["multiplier"] = value_c, nu_c
    certified = kkt and positive and not reasons
    reason = ("certified local minimum: Krawczyk proves a unique KKT point in the box and the "
              "reduced Hessian is positive definite over it" if certified and len(free) >= 2
              else "certified: one free rate, the KKT signs at the bounds are strict"
              if certified else "; ".join(dict.fromkeys(reasons)))
    value_range = ball_endpoints(value_ball if value_ball is not None else vb)
    return {**base, "x": x_out, "allocation": allocation, "kkt": kkt, "certified": certified,
            "reason": reason, "enclosure": enclosure, "_next": nxt, "_value_range": value_range,
            **texts}



# ------------------------------------------------------------------------------ global
def _neighbourhood(f: "_Objective", x: list[Fraction], free: list[int], active: set[int],
                   lo: list, hi: list, total: Fraction, r: Fraction) -> list | None:
    r"""A box $N$ of budget rates around the certified point ``x`` (free rates $\pm r$, a rate
    at a bound within $r$ of it, the last free rate $d$ the budget's remainder) on which every
    point of the budget set is at least as good as... no worse than ``x``: ``None`` unless

    * Krawczyk proves one zero of $F$ on the face in $N$ and the reduced Hessian is positive
      definite over $N$ (so ``x`` is the minimum over $N$ on the face: $Q$ is strictly convex
      there), and
    * $\partial Q/\partial x_a-\partial Q/\partial x_d$ has the sign of the bound over all of
      $N$ for every rate $a$ at a bound (so moving $x_a$ onto its bound, $x_d$ taking up the
      difference, never increases $Q$ inside $N$).

    Returns the ranges of the coordinates other than $d$ (``[(lo, hi)]`` in budget order, $d$'s
    entry ``None``)."""
    from flint import ctx
    from symq.engines.normalization.certified import ball_endpoints
    budget, k = f.budget, len(f.budget)
    d = free[-1]
    ranges: list = [None] * k
    for i in range(k):
        if i == d:
            continue
        if i in free:
            ranges[i] = (x[i] - r, x[i] + r)
        elif lo[i] is not None and x[i] == lo[i]:
            ranges[i] = (lo[i], lo[i] + r)
        else:
            ranges[i] = (hi[i] - r, hi[i])
        if i in free and ranges[i][0] <= 0:
            return None
    d_lo = total - sum(ranges[i][1] for i in range(k) if i != d)
    d_hi = total - sum(ranges[i][0] for i in range(k) if i != d)
    if d_lo <= 0:
        return None
    box = dict(f.fixed)
    for i in range(k):
        box[budget[i]] = ranges[i] if i != d else (d_lo, d_hi)
    bits = f.low + 32
    with ctx.workprec(bits):
        vB, gB, jac, hvB, _ = f.second(x, free, box, bits=bits)
        if not all(v.is_finite() for v in gB.values()):
            return None
        if len(free) >= 2:
            try:
                _, g_c, _, _, _ = f.second(x, free, bits=bits)
            except _Undefined:
                return None
            f_c = [g_c[budget[i]] - g_c[budget[d]] for i in free[:-1]]
            cert = krawczyk([x[i] for i in free[:-1]], r, f_c, jac)
            if not (cert.inside and cert.positive):
                return None
        for i in active:
            gap = gB[budget[i]] - gB[budget[d]]
            at_lower = lo[i] is not None and x[i] == lo[i]
            if not (gap > 0 if at_lower else gap < 0):
                return None
    return ranges


def _global(f: "_Objective", x: list[Fraction], free: list[int], active: set[int], lo: list,
            hi: list, total: Fraction, value_range: tuple, max_boxes: int,
            discard: Any = None) -> dict[str, Any]:
    r"""Branch and bound over the budget set (the first coordinates other than the last free
    rate $d$; $x_d$ is the remainder): a box is discarded when a lower bound of $Q$ over it is
    above the upper end $U$ of the certified enclosure of the minimum, or when it lies in the
    neighbourhood $N$ of :func:`_neighbourhood`; the lower bounds are the enclosure of $Q$ over
    the box (one ball sweep of the DP's tape), the mean value form $Q(c)+\sum_i(\partial_iQ-
    \partial_dQ)(B)(y_i-c_i)$ and the queueing comparison of :meth:`_Domain.comparison`. When
    no box is left, every point of the budget set is at least the minimum: a certified global
    minimum. A centre whose value is below the lower end of the minimum's enclosure is returned
    as ``better``. ``discard`` (tests only) is called on each box and may discard it
    wrongly."""
    from flint import ctx
    from symq.engines.normalization.certified import ball_endpoints
    from symq.engines.second_order import ball_of
    budget, k = f.budget, len(f.budget)
    low, up = value_range
    d = free[-1]
    hood, radius = None, None
    spent = 0
    for r in [total / 2 ** e for e in (3, 5, 7, 9, 12, 16, 20, 24)]:
        spent += 2  # a neighbourhood costs about two boxes
        hood = _neighbourhood(f, x, free, active, lo, hi, total, r)
        if hood is not None:
            radius = r
            break
    if hood is None:
        return {"global": False, "better": None, "boxes": 0,
                "note": "no neighbourhood of the minimum is certified for the branch and bound"}
    others = [i for i in range(k) if i != d]
    top = [min(hi[i], total) if hi[i] is not None else total for i in range(k)]
    bottom = [lo[i] if lo[i] is not None else Fraction(0) for i in range(k)]
    stack = [[(bottom[i], top[i]) for i in others]]
    boxes = 0
    bits = f.low
    dom = f.domain
    while stack:
        box = stack.pop()
        start_box = box
        boxes += 1
        if boxes + spent > max_boxes:
            return {"global": False, "better": None, "boxes": boxes,
                    "note": f"the branch and bound stopped after {max_boxes} boxes"}
        if all(hood[i][0] <= a and b <= hood[i][1] for i, (a, b) in zip(others, box)):
            continue
        if discard is not None and discard(box):
            continue
        d_lo = max(total - sum(b for _, b in box), bottom[d])
        d_hi = min(total - sum(a for a, _ in box), top[d])
        if d_lo > d_hi:
            continue
        ranges = [None] * k
        for i, rg in zip(others, box):
            ranges[i] = rg
        ranges[d] = (d_lo, d_hi)
        bound = dom.comparison(ranges)
        if bound is None or bound > up:
            continue
        point = dict(f.fixed)
        for i in range(k):
            point[budget[i]] = ranges[i]
        unclipped = d_lo == total - sum(b for _, b in box) and \
            d_hi == total - sum(a for a, _ in box)
        with ctx.workprec(bits):
            # R(B): the reduced Hessian over the box, directions e_i - e_d (i in others)
            out = f.second(x, others + [d], point, bits=bits)
            value, grad, hess = out[0], out[1], out[2]
            if value.is_finite():
                bound = max(bound, ball_endpoints(value)[0])
            slopes = [grad[budget[i]] - grad[budget[d]] for i in others] \
                if all(v.is_finite() for v in grad.values()) else None
            c = [(a + b) / 2 for a, b in box]
            xc = [Fraction(0)] * k
            for i, v in zip(others, c):
                xc[i] = v
            xc[d] = total - sum(c)
            if all(v > 0 for v in xc) and dom.slack(xc) > 0:
                try:
                    vc, gc_ = f.second(xc, [0], bits=bits)[:2]
                except _Undefined:
                    vc = None
                if vc is not None:
                    vc_lo, vc_hi = ball_endpoints(vc)
                    if vc_hi < low:
                        return {"global": False, "better": xc, "boxes": boxes,
                                "note": "a better point was found"}
                    if unclipped:
                        # Taylor: Q(y) in Q(c) + G(c).h + h' R(B) h / 2, and the slopes
                        # G(B) in G(c) + R(B) h (h = y - c over the box)
                        h = [ball_of(a, b) - ball_of((a + b) / 2) for a, b in box]
                        g_c = [gc_[budget[i]] - gc_[budget[d]] for i in others]
                        m = len(others)
                        taylor = vc + sum((g_c[t] * h[t] for t in range(m)), ball_of(0))
                        if hess and all(v.is_finite() for row in hess for v in row):
                            taylor += sum((hess[t][u] * h[t] * h[u] for t in range(m)
                                           for u in range(m)), ball_of(0)) / 2
                            tight = [g_c[t] + sum((hess[t][u] * h[u] for u in range(m)),
                                                  ball_of(0)) for t in range(m)]
                            slopes = tight if slopes is None else [
                                a_ if a_.rad() < b_.rad() else b_ for a_, b_ in zip(tight, slopes)]
                            if taylor.is_finite():
                                bound = max(bound, ball_endpoints(taylor)[0])
        if bound > up:
            continue
        if unclipped and bottom[d] < d_lo and d_hi < top[d] and slopes is not None:
            # the monotonicity test: where dQ/dy_i keeps one sign over the box, a minimiser
            # in it lies on the box's face in that direction; an inner face is shared with
            # the neighbour box, a face of the budget set keeps the box, flattened onto it
            pinned = False
            for t, sl in enumerate(slopes):
                a, b = box[t]
                if sl > 0:
                    if a > bottom[others[t]]:
                        pinned = True
                        break
                    box = box[:t] + [(a, a)] + box[t + 1:]
                elif sl < 0:
                    if b < top[others[t]]:
                        pinned = True
                        break
                    box = box[:t] + [(b, b)] + box[t + 1:]
            if pinned:
                continue
        j = max(range(len(box)), key=lambda t: box[t][1] - box[t][0])
        if box[j][1] == box[j][0]:
            if box != start_box:  # flattened onto a corner: evaluate the corner itself
                stack.append(box)
                continue
            return {"global": False, "better": None, "boxes": boxes,
                    "note": "a corner of the budget set cannot be bounded"}
        a, b = box[j]
        if b - a < total / 2 ** 40:
            return {"global": False, "better": None, "boxes": boxes,
                    "note": "a box near the stability boundary or a zero rate cannot be bounded"}
        mid = (a + b) / 2
        stack.append(box[:j] + [(a, mid)] + box[j + 1:])
        stack.append(box[:j] + [(mid, b)] + box[j + 1:])
    return {"global": True, "better": None, "boxes": boxes,
            "note": f"branch and bound over {boxes} boxes leaves only the box of radius "
                    f"{radius} around it, where " + (
                        "Krawczyk proves it the only KKT point and the reduced Hessian is "
                        "positive definite" if len(free) >= 2 else
                        "the signs of dQ/dx - nu at the bounds hold throughout")}

def _nice(r: Fraction) -> Fraction:
    """The power of ten at or above ``r > 0`` (a short exact radius)."""
    p = Fraction(1)
    while p / 10 >= r:
        p /= 10
    while p < r:
        p *= 10
    return p


def _limit_point(symbolic, quantity, discipline, fixed, budget, total, x, drift, free, active,
                 lo, weights, digits) -> dict[str, Any]:
    r"""The KKT check at the boundary point where the rates ``drift`` are 0: the quantity and its
    gradient there are the limits of the exact rational functions (the structured formula and its
    derivative formula, :mod:`symq.engines.formulas.derivative`, evaluated exactly at the limit
    point, which the subset DPs cannot take since a zero rate is not a model). Certified when the
    limit point is stable, one free rate is left (the point is then determined by the budget) and
    every rate at 0 (and at a bound) has the strict sign of a minimum exactly; with more free
    rates the free derivatives are equal to a relative $10^{-\text{digits}}$ (KKT) but the digits
    are not certified."""
    from symq.arithmetic.numeric import round_fraction
    y = list(x)
    moved = sum(y[i] for i in drift)
    for i in drift:
        y[i] = Fraction(0)
    y[max(free, key=lambda i: y[i])] += moved
    point = {**fixed, **{n: v for n, v in zip(budget, y)}}
    common = {"limit": [budget[i] for i in drift], "kkt": False, "certified": False,
              "x": dict(zip(budget, y)), "enclosure": {},
              "allocation": {n: ("0" if i in drift else round_fraction(v, digits))
                             for i, (n, v) in enumerate(zip(budget, y))}}

    def fail(note: str) -> dict[str, Any]:
        return {**common, "limit_note": note, "reason": f"NOT certified: {note}",
                "value": Fraction(0), "value_text": "undefined", "multiplier": Fraction(0),
                "multiplier_text": "undefined", "gradient": {}, "residual": Fraction(0)}
    try:
        from symq.engines.formulas.derivative import derivative
        from symq.models.stability import stability_conditions
        from symq.engines.formulas import structured
        formula = structured(symbolic, quantity, discipline)
        rels = stability_conditions(formula.model).relations()
        names = {s.name: s for r in rels for s in r.free_symbols}
        subs = {names[n]: sympy.Rational(v.numerator, v.denominator)
                for n, v in point.items() if n in names}
        if not all(bool(r.subs(subs)) for r in rels):
            return fail("the limit point is unstable")
        text_point = {n: str(v) for n, v in point.items()}
        values = formula.at(text_point)
        slopes = derivative(formula, budget).at(text_point)
    except (ModelError, ZeroDivisionError, ValueError, TypeError) as exc:
        return fail(f"no exact value at the limit ({exc})")

    def q(label: str) -> Fraction:
        v = sympy.Rational(values[label] if label in values else values)
        return Fraction(int(v.p), int(v.q))

    def d(label: str, n: str) -> Fraction:
        v = sympy.Rational(slopes[f"{label} d/d{n}"])
        return Fraction(int(v.p), int(v.q))
    if weights:
        value = sum(w * q(f"class {c}") for c, w in weights.items())
        grad = [sum(w * d(f"class {c}", n) for c, w in weights.items()) for n in budget]
    else:
        value, grad = q("total"), [d("total", n) for n in budget]
    nu = sum(grad[i] for i in free) / len(free)
    residual = max((abs(grad[i] - nu) for i in free), default=Fraction(0))
    strict = all(grad[i] > nu for i in drift) and all(
        (grad[i] > nu) if (lo[i] is not None and y[i] == lo[i]) else (grad[i] < nu)
        for i in active)
    kkt = (all(grad[i] >= nu for i in drift) and residual <= abs(nu) / 10 ** digits and all(
        (grad[i] >= nu) if (lo[i] is not None and y[i] == lo[i]) else (grad[i] <= nu)
        for i in active))
    certified = kkt and strict and len(free) == 1
    note = None if kkt else "the KKT conditions fail at the limit point"
    reason = ("certified: the limit point is fixed by the budget and the KKT signs there are "
              "exact and strict" if certified else
              f"NOT certified: {note}" if note else
              "NOT certified: the digits of several free rates at a limit point are those of "
              "the last Newton iterate")
    return {**common, "x": dict(zip(budget, y)), "value": value,
            "value_text": round_fraction(value, digits),
            "gradient": dict(zip(budget, grad)), "multiplier": nu,
            "multiplier_text": round_fraction(nu, digits), "residual": residual, "kkt": kkt,
            "certified": certified, "reason": reason, "limit_note": note}
