r"""The hybrid solution: near-origin box solved from the balance equations, series outside.
The box $\{q_1<N_0,\ q_2<sN_0\}$ is solved exactly from its global-balance equations, fed by the
series values on the ring around it (banded elimination, no pivoting); $N_0$ comes from the
asymptotic contraction ratios of §3.9 and §4.10, the normalisation and the means add the
closed-form tail sums of :mod:`symq.studies.compensation.sums`, and levels are added until the
a-posteriori truncation bound of §6 is below $10^{-(D+2)}$ relative. The method is written out in
docs/theory-compensation.md (§1 steps 5-7, §3.10, §5, §6).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath

from symq.errors import ModelError
from symq.display import Displayed, Math
from symq.studies.compensation.models import RoutingModel, incoming
from symq.studies.compensation.steps import NumericModel
from symq.studies.compensation.sums import tail_sums
from symq.studies.compensation.tree import build_levels

__all__ = ["CompensationResult", "solve", "default_box", "asymptotic_ratio"]

GUARD_DIGITS = 15
SAFETY = 10


def asymptotic_ratio(model: RoutingModel) -> float:
    r"""$r=\max(r_U, r_L)$, the per-unit-of-$N_0$ decay of the ring contraction (§3.9, §4.10).

    Parameters
    ----------
    model : RoutingModel
        From :func:`~symq.studies.compensation.models.symmetric_jsq`, ``asymmetric_jsq`` or ``sed``.

    Returns
    -------
    float
        The ratio $r<1$ (double precision: it only sizes the box).

    Examples
    --------
    >>> from symq.studies.compensation import symmetric_jsq
    >>> round(asymptotic_ratio(symmetric_jsq("1/2")), 6)
    0.145898

    Running time: O(1) (two quadratics).
    """
    lam = float(model.arrival_rate)
    mu1, mu2 = (float(m) for m in model.service_rates)
    sigma = lam + mu1 + mu2
    s = model.s

    def ratio(a, b, c):  # roots of a x^2 - b x + c = 0, small over large
        d = math.sqrt(b * b - 4 * a * c)
        return ((b - d) / (2 * a)) / ((b + d) / (2 * a))

    return max(ratio(lam, sigma, mu1), ratio(mu2, sigma, lam) ** s)


def default_box(model: RoutingModel, digits: int) -> int:
    r"""The box size $N_0$ for ``digits`` digits (see the module docstring).

    Parameters
    ----------
    model : RoutingModel
        The routing model.
    digits : int
        Significant digits wanted.

    Returns
    -------
    int
        $N_0$, between 3 and 60.

    Examples
    --------
    >>> from symq.studies.compensation import symmetric_jsq
    >>> default_box(symmetric_jsq("1/2"), 20)
    11

    Running time: O(1).
    """
    per_level = {1: 6.0, 2: 4.5}.get(model.s, 3.5) if model.policy != "jsq" else 4.0
    target = max(4.0, (digits + GUARD_DIGITS - 5) / per_level)
    r = asymptotic_ratio(model)
    n0 = math.ceil(target / -math.log10(r)) + 2
    return max(3, min(n0, 60))


@dataclass
class CompensationResult(Displayed):
    r"""The stationary law of a two-queue routing model by the compensation approach.

    In a notebook it shows as a table: the model, the kernel equations, the tree and box sizes,
    and each quantity with the digits its error bound leaves correct (as ``symq compensation``
    prints them) and that bound.

    Attributes
    ----------
    model : RoutingModel
    digits : int
        Requested significant digits.
    levels : int
        Levels of the tree used ($L$).
    box : int
        $N_0$ of the near-origin box.
    groups : int
        Number of groups (distinct $\alpha$) in the tree.
    empty_probability, mean_number : mpf
    mean_queue_lengths : tuple of mpf
        $(E[q_1], E[q_2])$.
    probabilities : dict
        ``{(q1, q2): mpf}`` for the requested states.
    error_bounds : dict
        Absolute truncation-error bound per reported quantity.
    truncation_error_bound : mpf
        The largest relative bound over the reported quantities.
    seconds : float
        Wall time of the computation.
    """

    model: RoutingModel
    digits: int
    levels: int
    box: int
    groups: int
    empty_probability: object
    mean_number: object
    mean_queue_lengths: tuple
    probabilities: dict
    error_bounds: dict
    truncation_error_bound: object
    seconds: float
    dps: int = 0
    level_groups: list = field(default_factory=list, repr=False)
    box_values: dict = field(default_factory=dict, repr=False)
    normalizer: object = None

    def probability(self, state):
        """$P(q_1,q_2)$ for any state (series outside the box), at the working precision."""
        state = (int(state[0]), int(state[1]))
        with mpmath.workdps(self.dps):
            if state in self.box_values:
                return self.box_values[state] / self.normalizer
            total = sum((g.value(state, self.model.s) for lvl in self.level_groups for g in lvl), 0)
            return mpmath.re(total) / self.normalizer

    def correct_digits(self, value, bound):
        """Significant digits of ``value`` that an absolute error ``bound`` leaves correct."""
        if value == 0:
            return self.digits
        if bound == 0:
            return self.digits
        with mpmath.workdps(30):
            d = int(mpmath.floor(-mpmath.log10(2 * bound / abs(value)))) - 1
        return max(1, min(self.digits, d))

    def quantities(self) -> list[tuple[str, object, object]]:
        r"""``[(key, value, absolute error bound)]`` of the reported quantities: keys
        ``empty-probability``, ``mean-number``, ``mean-q1``, ``mean-q2`` and the states."""
        rows = [("empty-probability", self.empty_probability), ("mean-number", self.mean_number),
                ("mean-q1", self.mean_queue_lengths[0]), ("mean-q2", self.mean_queue_lengths[1])]
        rows += list(self.probabilities.items())
        return [(key, value, self.error_bounds[key]) for key, value in rows]

    def value_text(self, key) -> str:
        """The quantity ``key`` (see :meth:`quantities`) with the significant digits its error
        bound leaves correct, as ``symq compensation`` prints it."""
        value = dict((k, v) for k, v, _ in self.quantities())[key]
        n = self.correct_digits(value, self.error_bounds[key])
        with mpmath.workdps(self.digits + 10):
            return mpmath.nstr(value, n, min_fixed=-mpmath.inf, max_fixed=mpmath.inf)

    def _display(self) -> tuple[str, list]:
        from symq.studies.compensation.kernel import kernels_latex
        m = self.model
        names = {"empty-probability": "P(0,0)", "mean-number": "E[q_1+q_2]",
                 "mean-q1": "E[q_1]", "mean-q2": "E[q_2]"}
        params = (f"\\lambda = {_frac(m.arrival_rate)},\\ \\mu_1 = {_frac(m.service_rates[0])},"
                  f"\\ \\mu_2 = {_frac(m.service_rates[1])},\\ s = {m.s},\\ "
                  f"q = {_frac(m.tie_probability)},\\ \\rho = {_frac(m.load)}")
        setup = [("policy", m.policy), ("parameters", Math(params))]
        setup += [("kernel", Math(k.strip())) for k in kernels_latex(m.s).split(",\\qquad")]
        setup += [("levels, box, groups", f"L = {self.levels}, N0 = {self.box}, "
                                          f"{self.groups} groups"),
                  ("relative error bound", mpmath.nstr(self.truncation_error_bound, 3))]
        with mpmath.workdps(self.digits + 10):
            rows = [(Math(names.get(key) or f"P({key[0]},{key[1]})"), self.value_text(key),
                     mpmath.nstr(bound, 3)) for key, _, bound in self.quantities()]
        return "compensation approach", [(None, setup),
                                         (("quantity", "value", "error bound"), rows)]


def _frac(x: Fraction) -> str:
    """LaTeX of an exact parameter."""
    return str(x.numerator) if x.denominator == 1 else f"\\frac{{{x.numerator}}}{{{x.denominator}}}"


def _box_states(n0, s):
    return [(q1, q2) for q1 in range(n0) for q2 in range(s * n0)]


def _ring_states(n0, s):
    return [(n0, q2) for q2 in range(s * n0)] + [(q1, s * n0) for q1 in range(n0)]


class _BoxSolver:
    """Banded LU of $Q_{\\mathcal B\\mathcal B}^T$ without pivoting (diagonally dominant columns)."""

    def __init__(self, nm, n0):
        s = nm.s
        self.n0 = n0
        self.states = _box_states(n0, s)
        self.index = {x: i for i, x in enumerate(self.states)}
        n = len(self.states)
        w = s * n0
        self.n, self.w = n, w
        rows = [dict() for _ in range(n)]
        self.ring_coupling = [[] for _ in range(n)]
        box = self.index
        for i, x in enumerate(self.states):
            for y, rate in incoming(x, s, nm.lam, nm.mu1, nm.mu2, nm.q):
                if y in box:
                    rows[i][box[y]] = rows[i].get(box[y], 0) + rate
                else:
                    self.ring_coupling[i].append((y, rate))
        # factorise
        self.rows = rows
        self.mult = [dict() for _ in range(n)]
        for k in range(n):
            piv = rows[k][k]
            rk = rows[k]
            for i in range(k + 1, min(n, k + w + 1)):
                ri = rows[i]
                if k not in ri:
                    continue
                f = ri.pop(k) / piv
                if f == 0:
                    continue
                self.mult[i][k] = f
                for j, v in rk.items():
                    if j > k:
                        ri[j] = ri.get(j, 0) - f * v

    def solve(self, ring_values):
        n = self.n
        rhs = []
        for i in range(n):
            rhs.append(-sum((rate * ring_values[y] for y, rate in self.ring_coupling[i]), 0))
        for i in range(n):
            for k, f in self.mult[i].items():
                rhs[i] -= f * rhs[k]
        x = [0] * n
        for i in range(n - 1, -1, -1):
            total = rhs[i]
            for j, v in self.rows[i].items():
                if j > i:
                    total -= v * x[j]
            x[i] = total / self.rows[i][i]
        return dict(zip(self.states, x))


def solve(model: RoutingModel, digits: int = 30, levels: int | None = None, box: int | None = None,
          states=(), prune: bool = True, max_levels: int = 80, max_groups: int = 20000,
          guard_digits: int = GUARD_DIGITS) -> CompensationResult:
    r"""Stationary probabilities, empty probability and means by the hybrid compensation method.

    Parameters
    ----------
    model : RoutingModel
        From :func:`~symq.studies.compensation.models.symmetric_jsq`, ``asymmetric_jsq`` or ``sed``.
    digits : int
        Significant digits wanted ($D$); the work precision is $D$ + ``guard_digits``.
    levels : int, optional
        Fix the number of tree levels $L\ge2$; by default levels are added until the truncation
        bound is below $10^{-(D+2)}$ relative.
    box : int, optional
        $N_0$ of the near-origin box (default :func:`default_box`).
    states : iterable of (q1, q2)
        States whose probabilities are reported.
    prune : bool
        Prune terms below $10^{-(D+6)}$ of the level-0 size at the ring (§6).

    Returns
    -------
    CompensationResult

    Raises
    ------
    ModelError
        ``digits`` < 1, ``levels`` < 2, ``box`` < 1, or a state with a negative entry.

    Examples
    --------
    >>> from symq.studies.compensation import symmetric_jsq, solve
    >>> r = solve(symmetric_jsq("1/2"), digits=20)
    >>> mpmath.nstr(r.mean_number, 20)
    '1.4263207511672411877'

    Running time: at $P$ = ``digits + guard_digits`` digits, one banded elimination of the
    $n=sN_0^2$ box states with bandwidth about $sN_0$ (O(n s^2 N_0^2) operations), then per
    tree level O(n s N_0) for the box solve and, per group, $s+1$ kernel-root solves and
    O(s N_0) ring evaluations; at most ``max_groups`` groups.
    """
    if not isinstance(digits, int) or digits < 1:
        raise ModelError(f"digits = {digits!r} is not a positive integer; give e.g. 30")
    if levels is not None and (not isinstance(levels, int) or levels < 2):
        raise ModelError(f"levels = {levels!r}: at least 2 levels are needed to bound the "
                         f"truncation error; give 2 or more")
    if box is not None and (not isinstance(box, int) or box < 1):
        raise ModelError(f"box = {box!r} is not a positive integer; give e.g. 8")
    states = [tuple(int(v) for v in x) for x in states]
    for x in states:
        if len(x) != 2 or min(x) < 0:
            raise ModelError(f"state {x} is not a pair of non-negative queue lengths; give Q1,Q2")
    start = time.perf_counter()
    s = model.s
    n0 = box if box is not None else default_box(model, digits)
    dps = digits + guard_digits
    with mpmath.workdps(dps):
        nm = NumericModel(model)
        ring = _ring_states(n0, s)
        boxset = set(_box_states(n0, s))
        outside = [x for x in states if x not in boxset]
        eval_states = ring + [x for x in outside if x not in ring]
        eps = mpmath.mpf(10) ** (-(digits + 6)) if prune else None
        solver = _BoxSolver(nm, n0)
        contributions = []   # per level: (values at eval states, (S0, S1, S2))
        level_groups = []
        target = mpmath.mpf(10) ** (-(digits + 2))
        result = None
        for lvl_groups in build_levels(nm, ring, prune=eps, max_groups=max_groups):
            level_groups.append(lvl_groups)
            values = {x: mpmath.re(sum((g.value(x, s) for g in lvl_groups), 0)) for x in eval_states}
            sums = [mpmath.re(v) for v in
                    _add_all(tail_sums(g, s, n0) for g in lvl_groups)]
            contributions.append((values, sums))
            ell = len(contributions) - 1
            if levels is not None:
                if ell < levels:
                    continue
            elif ell < 2 or not _small_enough(contributions, target) and ell < max_levels:
                continue
            result = _assemble(model, nm, solver, contributions, states, boxset, digits)
            if levels is not None or result[5] <= target or ell >= max_levels:
                break
        if result is None:  # the tree ended (everything pruned) before the requested level
            result = _assemble(model, nm, solver, contributions, states, boxset, digits)
        empty, mean, means, probs, bounds, rel, z, box_values = result
        groups = sum(len(lv) for lv in level_groups)
    return CompensationResult(model, digits, len(contributions) - 1, n0, groups, empty, mean, means,
                              probs, bounds, rel, time.perf_counter() - start, dps, level_groups,
                              box_values, z)


def _add_all(triples):
    total = [0, 0, 0]
    for t in triples:
        for i in range(3):
            total[i] += t[i]
    return total


def _small_enough(contributions, target):
    """Cheap stopping proxy: the geometric tail of the last level's relative contribution."""
    def size(k):
        values, sums = contributions[k]
        return max([abs(v) for v in values.values()] + [abs(sums[0])])

    base = size(0)
    d1, d0 = size(-1) / base, size(-2) / base
    if d0 == 0:
        return d1 == 0
    theta = d1 / d0
    if theta >= 0.5:
        return False
    return SAFETY * d1 * theta / (1 - theta) < target


def _quantities(model, solver, contributions, upto, states, boxset):
    """Normalised quantities from the levels 0..upto."""
    s = model.s
    ring_and_outside = {}
    sums = [0, 0, 0]
    for values, lsums in contributions[:upto + 1]:
        for x, v in values.items():
            ring_and_outside[x] = ring_and_outside.get(x, 0) + v
        for i in range(3):
            sums[i] += lsums[i]
    pbox = solver.solve(ring_and_outside)
    mass = sum(pbox.values(), 0)
    z = mass + sums[0]
    e1 = (sum((x[0] * v for x, v in pbox.items()), 0) + sums[1]) / z
    e2 = (sum((x[1] * v for x, v in pbox.items()), 0) + sums[2]) / z
    quantities = {"empty-probability": pbox[(0, 0)] / z, "mean-number": e1 + e2,
                  "mean-q1": e1, "mean-q2": e2}
    for x in states:
        quantities[x] = (pbox[x] if x in boxset else ring_and_outside[x]) / z
    return quantities, z, pbox


def _assemble(model, nm, solver, contributions, states, boxset, digits):
    top = len(contributions) - 1
    q_top, z, pbox = _quantities(model, solver, contributions, top, states, boxset)
    q_1 = _quantities(model, solver, contributions, top - 1, states, boxset)[0] if top >= 1 else None
    q_2 = _quantities(model, solver, contributions, top - 2, states, boxset)[0] if top >= 2 else None
    rounding = mpmath.mpf(10) ** (-(mpmath.mp.dps - 5))
    prune_allowance = mpmath.mpf(10) ** (-(digits + 5))
    bounds = {}
    rel = mpmath.mpf(0)
    for key, value in q_top.items():
        bound = rounding * abs(value) + prune_allowance * abs(value)
        if q_1 is not None and q_2 is not None:
            d1 = abs(value - q_1[key])
            d0 = abs(q_1[key] - q_2[key])
            if d1 != 0:
                theta = d1 / d0 if d0 != 0 else mpmath.mpf(1)
                if theta >= mpmath.mpf(1) / 2:
                    bound += SAFETY * d1 * 2  # not yet geometric: a generous allowance
                else:
                    bound += SAFETY * d1 * theta / (1 - theta)
        elif q_1 is not None:
            bound += SAFETY * abs(value - q_1[key])
        bounds[key] = bound
        if value != 0:
            rel = max(rel, bound / abs(value))
    probs = {x: q_top[x] for x in states}
    return (q_top["empty-probability"], q_top["mean-number"], (q_top["mean-q1"], q_top["mean-q2"]),
            probs, bounds, rel, z, pbox)
