r"""The compensation steps: initial solution, vertical step, horizontal step.
Terms $c\,a^{q_1}b^{q_2}$ on a region's kernel (:mod:`symq.studies.compensation.kernel`) are grouped by
their $\alpha=ab^s$ with the boundary values $h_r\alpha^{q_1}$; each step solves the boundary
equations of §3.6 (JSQ, 3 unknowns) or §4.4 (SED, $2s+1$ unknowns), evaluated from the
global-balance equations of :func:`symq.studies.compensation.models.incoming` at a few reference states
rather than transcribed from a table. The reference states and the three steps are described in
docs/theory-compensation.md (§4.4).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mpmath

from symq.errors import VerificationError
from symq.studies.compensation.kernel import lower_root, upper_roots
from symq.studies.compensation.models import RoutingModel, incoming, region

__all__ = ["Term", "Group", "NumericModel"]

#: reference level of the horizontal step; far enough from q_1 = 0 that every neighbour is interior
REFERENCE_LEVEL = 3
#: reference distance of the vertical step from the horizontal boundary
VERTICAL_REFERENCE = 4


@dataclass
class Term:
    r"""One product form $c\,a^{q_1}b^{q_2}$ on the ``kind`` region (``"upper"`` or ``"lower"``)."""

    kind: str
    coef: object
    a: object
    b: object
    level: int = 0
    expanded: bool = False

    def value(self, state, s):
        """The term at ``state`` (0 outside its region)."""
        if region(state, s) != self.kind:
            return 0
        return self.coef * self.a ** state[0] * self.b ** state[1]


@dataclass
class Group:
    r"""All terms with one $\alpha$: the known (vertically generated) terms, the new ones, and $h$."""

    alpha: object
    level: int
    known: list = field(default_factory=list)
    new: list = field(default_factory=list)
    h: list = field(default_factory=list)

    @property
    def terms(self):
        return self.known + self.new

    def boundary_value(self, state, s):
        if region(state, s) != "boundary":
            return 0
        return self.h[state[1] % s] * self.alpha ** state[0]

    def value(self, state, s):
        """The group's contribution to the (unnormalised) series at ``state``."""
        total = self.boundary_value(state, s)
        for t in self.terms:
            total += t.value(state, s)
        return total


class NumericModel:
    """A :class:`RoutingModel` with its rates as mpmath numbers at the current precision.

    Create it inside ``mpmath.workdps``: the rates are converted from exact fractions there.
    """

    def __init__(self, model: RoutingModel):
        self.model = model
        self.s = model.s
        self.lam = mpmath.mpf(model.arrival_rate.numerator) / model.arrival_rate.denominator
        self.mu1 = mpmath.mpf(model.service_rates[0].numerator) / model.service_rates[0].denominator
        self.mu2 = mpmath.mpf(model.service_rates[1].numerator) / model.service_rates[1].denominator
        self.q = mpmath.mpf(model.tie_probability.numerator) / model.tie_probability.denominator
        self.complex = self.s > 1
        rho = model.load
        self.alpha0 = (mpmath.mpf(rho.numerator) / rho.denominator) ** (self.s + 1)
        s, m0 = self.s, REFERENCE_LEVEL
        self.hs_states = ([(m0, s * m0 + r) for r in range(s)]
                          + [(m0, s * (m0 + 1) + r) for r in range(s)]
                          + [(m0 + 1, s * m0 + s - 1)])
        self.hs_stencils = [self._stencil(x, (m0, s * m0)) for x in self.hs_states]
        k = VERTICAL_REFERENCE
        self.vs_upper = [self._stencil((0, s * k + r), (0, s * k)) for r in range(s)]
        self.vs_lower = [self._stencil((k, r), (k, 0)) for r in range(s)]

    def _stencil(self, state, center):
        """Column ``state`` of the generator as ``(region, r, d1, d2, rate)`` relative to ``center``."""
        out = []
        for y, rate in incoming(state, self.s, self.lam, self.mu1, self.mu2, self.q):
            out.append((region(y, self.s), y[1] % self.s, y[0] - center[0], y[1] - center[1], rate))
        return out

    # ------------------------------------------------------------------ residual helpers
    @staticmethod
    def _term_residual(stencil, kind, a, b):
        total = 0
        for reg, _, d1, d2, rate in stencil:
            if reg == kind:
                total += rate * a ** d1 * b ** d2
        return total

    @staticmethod
    def _boundary_residual(stencil, alpha, k):
        total = 0
        for reg, r, d1, _, rate in stencil:
            if reg == "boundary" and r == k:
                total += rate * alpha ** d1
        return total

    # ------------------------------------------------------------------ horizontal step
    def new_terms(self, alpha, level):
        """The $s+1$ product forms of the horizontal step at ``alpha`` (coefficients unset)."""
        s = self.s
        terms = [Term("upper", None, alpha / b ** s, b, level)
                 for b in upper_roots(alpha, s, self.lam, self.mu1, self.mu2)]
        b = lower_root(alpha, s, self.lam, self.mu1, self.mu2)
        terms.append(Term("lower", None, alpha / b ** s, b, level))
        return terms

    def hs_matrix(self, alpha, new):
        """Rows: reference states; columns: $h_0..h_{s-1}$ then the new terms."""
        s = self.s
        rows = []
        for st in self.hs_stencils:
            row = [self._boundary_residual(st, alpha, k) for k in range(s)]
            row += [self._term_residual(st, t.kind, t.a, t.b) for t in new]
            rows.append(row)
        return rows

    def hs_rhs(self, known):
        """Minus the residuals of the known terms at the reference states."""
        return [-sum((t.coef * self._term_residual(st, t.kind, t.a, t.b) for t in known), 0)
                for st in self.hs_stencils]

    def horizontal_step(self, alpha, known, level):
        """Compensate the known terms on the horizontal boundary (§3.6, §4.4)."""
        new = self.new_terms(alpha, level)
        matrix = self.hs_matrix(alpha, new)
        rhs = self.hs_rhs(known)
        x = _graded_solve(matrix, rhs, alpha)
        s = self.s
        for t, c in zip(new, x[s:]):
            t.coef = c
        return Group(alpha, level, list(known), new, list(x[:s]))

    def initial_group(self):
        r"""The level-0 group at $\alpha_0=\rho^{s+1}$ with $h_{s-1}=1$ (§3.4, §4.5).

        Raises
        ------
        VerificationError
            If the dropped (lower) equation is not satisfied, i.e. $\alpha_0$ is not a zero of the
            horizontal-step determinant.
        """
        s = self.s
        alpha = self.alpha0
        new = self.new_terms(alpha, 0)
        matrix = self.hs_matrix(alpha, new)
        n = 2 * s + 1
        keep = [j for j in range(n) if j != s - 1]
        sub = [[matrix[i][j] for j in keep] for i in range(n - 1)]
        rhs = [-matrix[i][s - 1] for i in range(n - 1)]
        y = _graded_solve(sub, rhs, alpha)
        x = y[:s - 1] + [mpmath.mpf(1)] + y[s - 1:]
        check = sum(matrix[n - 1][j] * x[j] for j in range(n))
        scale = max(abs(matrix[n - 1][j] * x[j]) for j in range(n))
        if abs(check) > scale * mpmath.mpf(10) ** (-(mpmath.mp.dps - 8)):
            raise VerificationError(f"initial solution: alpha_0 = rho^(s+1) leaves the lower "
                                    f"boundary equation with residual {mpmath.nstr(check, 5)}")
        for t, c in zip(new, x[s:]):
            t.coef = c
        return Group(alpha, 0, [], new, list(x[:s]))

    # ------------------------------------------------------------------ vertical step
    def vertical_step(self, term):
        """The partner of ``term`` that restores the vertical boundary (§3.5, §4.6)."""
        s = self.s
        if term.kind == "upper":
            b = term.b
            alpha = term.a * b ** s
            alpha_new = self.lam * b ** (2 * s) / (self.mu1 * alpha)
            a_new = alpha_new / b ** s
            st = self.vs_upper[0]
            coef = -term.coef * (self._term_residual(st, "upper", term.a, b)
                                 / self._term_residual(st, "upper", a_new, b))
            return Term("upper", coef, a_new, b, term.level + 1), alpha_new
        a = term.a
        b_new = self.lam / (self.mu2 * term.b)
        st = self.vs_lower[0]
        coef = -term.coef * (self._term_residual(st, "lower", a, term.b)
                             / self._term_residual(st, "lower", a, b_new))
        return Term("lower", coef, a, b_new, term.level + 1), a * b_new ** s

    def vertical_residuals(self, term, partner):
        """Balance residuals of ``term + partner`` at the $s$ vertical-boundary reference states."""
        stencils = self.vs_upper if term.kind == "upper" else self.vs_lower
        return [term.coef * self._term_residual(st, term.kind, term.a, term.b)
                + partner.coef * self._term_residual(st, partner.kind, partner.a, partner.b)
                for st in stencils]

    def horizontal_residuals(self, group):
        """Balance residuals of a whole group at the horizontal-step reference states."""
        out = []
        for st in self.hs_stencils:
            total = sum((self._boundary_residual(st, group.alpha, k) * group.h[k]
                         for k in range(self.s)), 0)
            for t in group.terms:
                total += t.coef * self._term_residual(st, t.kind, t.a, t.b)
            out.append(total)
        return out


def _graded_solve(matrix, rhs, alpha):
    """Solve a small graded system: equilibrate rows and columns, add guard digits (§4.7)."""
    n = len(matrix)
    extra = 10 + max(0, int(-mpmath.log10(abs(alpha)))) if alpha != 0 else 10
    with mpmath.extradps(extra):
        cols = []
        for j in range(n):
            m = max(abs(matrix[i][j]) for i in range(n))
            cols.append(1 / m if m != 0 else mpmath.mpf(1))
        a = [[matrix[i][j] * cols[j] for j in range(n)] for i in range(n)]
        rows = []
        for i in range(n):
            m = max(abs(v) for v in a[i])
            rows.append(1 / m if m != 0 else mpmath.mpf(1))
        a = mpmath.matrix([[a[i][j] * rows[i] for j in range(n)] for i in range(n)])
        b = mpmath.matrix([rhs[i] * rows[i] for i in range(n)])
        x = mpmath.lu_solve(a, b)
        result = [x[j] * cols[j] for j in range(n)]
    return [+v for v in result]
