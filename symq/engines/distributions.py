r"""Sums and mixtures of independent exponentials: the response-time laws of [GR20]_ section 4.
A :class:`ExponentialMixture` is a finite mixture whose components are sums of independent
*gated exponentials* (a term $(p, r)$ is $0$ with probability $1-p$ and $\mathrm{Exp}(r)$ with
probability $p$), which covers the M/M/1 response and queueing times of [GR20]_ Cor 4.4, the
nested laws of Thm 4.5, 4.6, Cor 4.7, 4.8 and the unconditional queueing time of Thm 5.4 /
Cor 5.6 read as a mixture over the busy servers; everything is exact (the Laplace-Stieltjes
transform, mean and variance are rational functions of the rates, the CDF and density come from
the partial fractions of the LST). Which laws it holds and how: see docs/quantities.md.

Examples
--------
>>> import sympy
>>> from sympy import latex
>>> from symq.engines.distributions import ExponentialMixture
>>> lam, mu = sympy.symbols("lambda mu", positive=True)
>>> mm1 = ExponentialMixture.exponential(mu - lam)
>>> print(latex(mm1.mean()))
- \frac{1}{\lambda - \mu}
>>> wait = ExponentialMixture.gated(lam / mu, mu - lam)
>>> t = sympy.Symbol("t", nonnegative=True)
>>> print(sympy.simplify(wait.cdf(t)))
(-lambda*exp(t*(lambda - mu)) + mu)/mu
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import sympy

from symq.arithmetic.expressions import as_expression
from symq.display import Displayed, Math

__all__ = ["ExponentialMixture", "THETA", "TIME"]

THETA = sympy.Symbol("theta", positive=True)
TIME = sympy.Symbol("t", nonnegative=True)

Term = tuple[sympy.Expr, sympy.Expr]  # (probability, rate)


def _s(x: Any) -> sympy.Expr:
    return as_expression(x, "probability or rate")


@dataclass(frozen=True)
class ExponentialMixture(Displayed):
    r"""$\sum_k w_k\,\bigl(\sum_j B(p_{kj})\,\mathrm{Exp}(r_{kj})\bigr)$, all terms independent.

    Parameters
    ----------
    components : sequence of ``(weight, ((probability, rate), ...))``; weights sum to 1
    """

    components: tuple[tuple[sympy.Expr, tuple[Term, ...]], ...]

    # ------------------------------------------------------------------ constructors
    @classmethod
    def exponential(cls, rate: Any) -> "ExponentialMixture":
        """$\\mathrm{Exp}(\\text{rate})$."""
        return cls(((sympy.Integer(1), ((sympy.Integer(1), _s(rate)),)),))

    @classmethod
    def gated(cls, probability: Any, rate: Any) -> "ExponentialMixture":
        """0 with probability $1-p$, else $\\mathrm{Exp}(\\text{rate})$ (an M/M/1 queueing time)."""
        return cls(((sympy.Integer(1), ((_s(probability), _s(rate)),)),))

    @classmethod
    def zero(cls) -> "ExponentialMixture":
        """The point mass at 0."""
        return cls(((sympy.Integer(1), ()),))

    @classmethod
    def hypoexponential(cls, rates: Iterable[Any]) -> "ExponentialMixture":
        """Sum of independent exponentials with the given rates."""
        return cls(((sympy.Integer(1), tuple((sympy.Integer(1), _s(r)) for r in rates)),))

    @classmethod
    def mixture(cls, parts: Sequence[tuple[Any, "ExponentialMixture"]]) -> "ExponentialMixture":
        """The mixture taking law ``parts[k][1]`` with probability ``parts[k][0]``; components
        with the same terms are merged."""
        merged: dict[tuple[Term, ...], sympy.Expr] = {}
        for weight, law in parts:
            for w, terms in law.components:
                key = tuple(sorted(terms, key=sympy.default_sort_key))
                merged[key] = merged.get(key, sympy.Integer(0)) + _s(weight) * w
        return cls(tuple((sympy.factor(w), terms) for terms, w in merged.items()))

    def __add__(self, other: "ExponentialMixture") -> "ExponentialMixture":
        """Independent sum."""
        return ExponentialMixture(tuple((w1 * w2, t1 + t2) for w1, t1 in self.components
                                        for w2, t2 in other.components))

    def _display(self) -> tuple[str, list]:
        """Components, LST and mean, for Jupyter (:class:`symq.display.Displayed`)."""
        def law(terms) -> str:
            parts = [f"B({sympy.latex(p)})\\,\\mathrm{{Exp}}({sympy.latex(r)})" for p, r in terms]
            return " + ".join(parts) or "0"
        rows = [(Math(sympy.latex(w)), Math(law(terms))) for w, terms in self.components]
        about = [("transform", Math("E\\,e^{-\\theta T} = " + sympy.latex(self.lst()))),
                 ("mean", Math("E\\,T = " + sympy.latex(self.mean())))]
        return "mixture of sums of exponentials", [(("weight", "law"), rows), (None, about)]

    # ------------------------------------------------------------------ moments and transforms
    def lst(self, theta: sympy.Symbol = THETA) -> sympy.Expr:
        r"""$E e^{-\theta T}=\sum_kw_k\prod_j\bigl(1-p_{kj}+p_{kj}\frac{r_{kj}}{r_{kj}+\theta}\bigr)$."""
        return sympy.Add(*(w * sympy.Mul(*(1 - p + p * r / (r + theta) for p, r in terms))
                           for w, terms in self.components))

    def mean(self) -> sympy.Expr:
        """$E T=\\sum_kw_k\\sum_jp_{kj}/r_{kj}$."""
        return sympy.factor(sympy.together(sympy.Add(*(w * sympy.Add(*(p / r for p, r in terms))
                                                       for w, terms in self.components))))

    def second_moment(self) -> sympy.Expr:
        """$E T^2$: per component, variance $\\sum p(2-p)/r^2$ plus squared mean."""
        total = []
        for w, terms in self.components:
            m = sympy.Add(*(p / r for p, r in terms))
            v = sympy.Add(*(p * (2 - p) / r**2 for p, r in terms))
            total.append(w * (v + m**2))
        return sympy.Add(*total)

    def variance(self) -> sympy.Expr:
        """$\\operatorname{Var}T=E T^2-(E T)^2$ (one component: $\\sum_jp_j(2-p_j)/r_j^2$)."""
        if len(self.components) == 1:
            w, terms = self.components[0]
            return sympy.factor(sympy.together(sympy.Add(*(p * (2 - p) / r**2 for p, r in terms))))
        value = sympy.together(self.second_moment() - self.mean()**2)
        return sympy.cancel(value) if not value.free_symbols else value

    def atom(self) -> sympy.Expr:
        """$P(T=0)=\\sum_kw_k\\prod_j(1-p_{kj})$."""
        return sympy.factor(sympy.Add(*(w * sympy.Mul(*(1 - p for p, _ in terms))
                                        for w, terms in self.components)))

    # ------------------------------------------------------------------ CDF and density
    def partial_fractions(self) -> tuple[sympy.Expr, list[tuple[sympy.Expr, int, sympy.Expr]]]:
        r"""The LST as $c+\sum A/(\theta+r)^j$: returns ``(c, [(r, j, A), ...])`` with $c=P(T=0)$."""
        theta = sympy.Dummy("theta")
        constant = sympy.Integer(0)
        coefficients: dict[tuple[sympy.Expr, int], sympy.Expr] = {}
        for w, terms in self.components:
            groups: list[list[Any]] = []  # [rate, multiplicity]
            for p, r in terms:
                for group in groups:
                    if sympy.cancel(group[0] - r) == 0:
                        group[1] += 1
                        break
                else:
                    groups.append([r, 1])
            lst = w * sympy.Mul(*((r + (1 - p) * theta) / (r + theta) for p, r in terms))
            constant += w * sympy.Mul(*(1 - p for p, _ in terms))
            if all(m == 1 for _, m in groups):
                # simple poles: A_k = w p_k r_k prod_{j != k} (r_j - (1 - p_j) r_k) / (r_j - r_k)
                for k, (p, r) in enumerate(terms):
                    value = w * p * r * sympy.Mul(*((rj - (1 - pj) * r) / (rj - r)
                                                    for j, (pj, rj) in enumerate(terms) if j != k))
                    key = next(((q, jj) for q, jj in coefficients
                                if jj == 1 and sympy.cancel(q - r) == 0), (r, 1))
                    coefficients[key] = coefficients.get(key, sympy.Integer(0)) + value
                continue
            for rate, m in groups:
                core = sympy.cancel(lst * (theta + rate)**m)
                for j in range(m, 0, -1):
                    order = m - j
                    value = sympy.diff(core, theta, order).subs(theta, -rate) / sympy.factorial(order)
                    value = sympy.cancel(value)
                    key = next(((q, jj) for q, jj in coefficients
                                if jj == j and sympy.cancel(q - rate) == 0), (rate, j))
                    coefficients[key] = coefficients.get(key, sympy.Integer(0)) + value
        items = []
        for (r, j), a in coefficients.items():
            a = sympy.cancel(a)
            if a != 0:
                items.append((r, j, sympy.factor(a)))
        return sympy.factor(constant), items

    def density(self, t: sympy.Symbol = TIME) -> sympy.Expr:
        """Density of the continuous part, $\\sum A\\,t^{j-1}e^{-rt}/(j-1)!$ (plus the atom at 0)."""
        _, items = self.partial_fractions()
        return sympy.Add(*(a * t**(j - 1) * sympy.exp(-r * t) / sympy.factorial(j - 1)
                           for r, j, a in items))

    def survival(self, t: sympy.Symbol = TIME) -> sympy.Expr:
        r"""$P(T>t)=\sum A\,e^{-rt}\sum_{i<j}t^i/(i!\,r^{j-i})$."""
        _, items = self.partial_fractions()
        return sympy.Add(*(a * sympy.exp(-r * t) * sympy.Add(*(t**i / (sympy.factorial(i) * r**(j - i))
                                                                for i in range(j)))
                           for r, j, a in items))

    def cdf(self, t: sympy.Symbol = TIME) -> sympy.Expr:
        """$P(T\\le t)=1-P(T>t)$ for $t\\ge0$."""
        return 1 - self.survival(t)

    # ------------------------------------------------------------------ display
    def latex(self, name: str = "T") -> str:
        r"""The law in words, e.g. ``T \sim \mathrm{Exp}\left(\mu - \lambda\right)``."""
        def part(terms):
            if not terms:
                return "0"
            out = []
            for p, r in terms:
                e = rf"\mathrm{{Exp}}\left({sympy.latex(r)}\right)"
                out.append(e if p == 1 else rf"B\left({sympy.latex(p)}\right)\,{e}")
            return " + ".join(out)
        if len(self.components) == 1:
            return rf"{name} \sim {part(self.components[0][1])}"
        rows = [rf"{sympy.latex(w)}\colon\ {part(terms)}" for w, terms in self.components]
        return rf"{name} \sim \text{{mixture}}\left\{{{'; '.join(rows)}\right\}}"
