r"""The tagged job's transform in symbols: a structured formula in the rates for every graph.
The law of :mod:`symq.engines.response_time` is a finite mixture over the state a tagged job
sees on arrival, and the product form makes that mixture a short recursion over server sets.
This module writes the recursion as named definitions, as :mod:`symq.engines.formulas` writes
the normalizing constants: the weights of the product form (the definitions that ``symq derive
MODEL normalizing-constant`` prints: $\widetilde W_I$, $D_B$, $G_{\mathrm{RAIS}}$ for ALIS and
RAIS, $H_X$ and $G$ for the collaborative model), for ALIS and RAIS the law $p_{i\to s}$ of the
server that serves the job, then per class the Laplace-Stieltjes transform as a short rational
function of $\theta$ in those names. Every $\theta$-dependent name is a difference
$\Delta_X(\theta)$ that vanishes at $\theta=0$ and obeys one recursion,

.. math:: (r_X+\theta)\,\Delta_X=\sum_Y (c_Y-e_Y\theta)\,\Delta_Y-\theta\,b_X ,

(the $\Delta_Y$ on smaller sets, $b_X$ free of $\theta$), so that the transform is 1 at
$\theta=0$ by construction, its derivatives at 0 follow by differentiating the recursion
(:meth:`TransformFormula.moments`: the mean and the variance as structured formulas), and its
poles are the $-r_X$ and $-\mu_s$, rational in the rates, so the survival function is a sum of
exponentials whose coefficients are residues, computed through the same definitions in
truncated Laurent series (:meth:`TransformFormula.survival_terms`). The derivations are in
docs/response-times.md (The transform in symbols).

Examples
--------
>>> from symq import model
>>> from symq.engines.response_time.structured import transform_formula
>>> f = transform_formula(model("n"), "response", "collaborative")
>>> for d in f.definitions:
...     print(d.name, "=", f.text(d))
H__1 = lambda_1/(-lambda_1 + mu_1)
H__1_2 = (lambda_2 + lambda_2*H__1)/(-lambda_1 - lambda_2 + mu_1 + mu_2)
G__C = 1 + H__1 + H__1_2
Delta__1__1 = (-theta*H__1 - theta)/(-lambda_1 + mu_1 + theta)
Delta__1__1_2 = (lambda_2*Delta__1__1 - theta*H__1_2)/(-lambda_1 - lambda_2 + mu_1 + mu_2 + theta)
LST__1 = (G__C + Delta__1__1 + Delta__1__1_2)/G__C
Delta__2__1_2 = (-theta*H__1_2 - theta - theta*H__1)/(-lambda_1 - lambda_2 + mu_1 + mu_2 + theta)
LST__2 = (G__C + Delta__2__1_2)/G__C
>>> f.moments().at({"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1, "mu_2": 1})["mean"]["1"]
10/7

Running time: $O(2^M\,M)$ definitions per class and server of the class (ALIS, RAIS; the
server law's idle orders add $O(2^M M)$ per pair), $O(UJ)$ per class (collaborative, $U$
unions); building them is well under a second for 4 servers; the expanded forms cost one
polynomial product per term (python-flint).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

import sympy

from symq.engines.distributions import THETA, TIME
from symq.engines.formulas import Structured
from symq.engines.formulas.build import Builder, Definition, Term
from symq.engines.formulas.render import definition_latex, long_denominator, rate_latex
from symq.engines.normalization.subsets import bits, unions
from symq.errors import ModelError, UnsupportedError
from symq.models.model import DISCIPLINES, Model

__all__ = ["transform_formula", "TransformFormula", "SurvivalTerm", "KINDS"]

#: the two laws: the time in system and the time before service starts
KINDS = ("response", "waiting")


def _grouped(pairs) -> list[Term]:
    """Terms with equal names merged (coefficients added), in first-seen order."""
    order: dict[tuple[str, ...], Any] = {}
    for coef, names in pairs:
        order[names] = sympy.expand(order.get(names, 0) + coef) if names in order else coef
    return [Term(c, n) for n, c in order.items() if c != 0]


class _Recursion:
    r"""One family $\Delta_X$ of the module's recursion: ``sources[X]`` are ``(c, e, Y)``,
    ``base[X]`` the pairs ``(b, names)`` of $b_X$, ``rate[X]`` the slack $r_X$."""

    def __init__(self) -> None:
        self.keys: list[int] = []
        self.sources: dict[int, list[tuple[Any, int, int]]] = {}
        self.base: dict[int, list[tuple[Any, tuple[str, ...]]]] = {}
        self.rate: dict[int, Any] = {}
        self.label: dict[int, str] = {}
        self.names: dict[int, str] = {}


class _Build:
    """Collects the definitions of one formula (a :class:`Builder` names the sets)."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.b = Builder(model)
        self.defs: list[Definition] = []
        self.by_name: dict[str, Definition] = {}
        self.theta: set[str] = set()
        #: denominator label -> (legend name, legend LaTeX) for the slack legend rows
        self.legend: dict[str, tuple[str, str]] = {}
        self.poles: dict[str, list[Any]] = {}

    # names
    def server_json(self, j: int) -> str:
        return self.b.set_json(1 << j)

    def server_latex(self, j: int) -> str:
        return self.b.set_latex(1 << j)

    def add(self, name: str, latex: str, pairs, denom: Any = 1, denom_names=(), label: str = "",
            kind: str = "", theta: bool = False, inline: bool = True, scale: Any = 1,
            once: bool = False):
        """A definition; a value ``(coef, names)``: one free of theta with one term and a
        denominator that is a single rate is inlined (no definition), and so is one free of
        theta with one term used ``once`` (any rate denominator)."""
        terms = _grouped(pairs)
        denom = sympy.sympify(denom)
        if inline and not theta and not denom_names and (once or not denom.is_Add) and \
                len(terms) <= 1:
            if not terms:
                return (sympy.Integer(0), ())
            return (sympy.sympify(terms[0].coef) / denom, terms[0].names)
        d = Definition(name, latex, terms, denom=denom, denom_names=tuple(denom_names),
                       denom_label=label, kind=kind, scale=sympy.sympify(scale))
        if THETA in d.scale.free_symbols:
            theta = True
        if name in self.by_name:
            raise AssertionError(f"duplicate definition {name}")
        self.defs.append(d)
        self.by_name[name] = d
        if theta or any(n in self.theta for t in terms for n in t.names) or \
                THETA in denom.free_symbols or any(THETA in sympy.sympify(t.coef).free_symbols
                                                  for t in terms):
            self.theta.add(name)
        return (sympy.Integer(1), (name,))

    def recursion(self, family: _Recursion, name, latex) -> None:
        """Define $\\Delta_X$ for every key of ``family`` (in increasing order)."""
        for x in family.keys:
            pairs = []
            for c, e, y in family.sources[x]:
                pairs.append((c - e * THETA, (family.names[y],)))
            for coef, names in family.base[x]:
                pairs.append((-THETA * coef, names))
            r = family.rate[x]
            label = family.label[x] + r" + \theta"
            self.legend[label] = (family.label[x], rate_latex(r))
            family.names[x] = self.add(name(x), latex(x), pairs, denom=r + THETA,
                                       label=label, kind="Delta", theta=True)[1][0]

    def derivative_recursion(self, family: _Recursion, name, latex) -> tuple[dict, dict]:
        r"""$\Delta'_X$ and $\Delta''_X$ at $\theta=0$ (differentiate the recursion once and
        twice: $r_X\Delta'_X=\sum_Y c_Y\Delta'_Y-b_X$,
        $r_X\Delta''_X=\sum_Y(c_Y\Delta''_Y-2e_Y\Delta'_Y)-2\Delta'_X$)."""
        first: dict[int, tuple] = {}
        second: dict[int, tuple] = {}
        for x in family.keys:
            pairs = [(c * first[y][0], first[y][1]) for c, _, y in family.sources[x]]
            pairs += [(-coef, names) for coef, names in family.base[x]]
            first[x] = self.add(name(x, 1), latex(x, 1), _scaled(pairs), denom=family.rate[x],
                                label=family.label[x], kind="dDelta")
        for x in family.keys:
            pairs = [(c * second[y][0], second[y][1]) for c, _, y in family.sources[x]]
            pairs += [(-2 * e * first[y][0], first[y][1]) for _, e, y in family.sources[x] if e]
            pairs.append((-2 * first[x][0], first[x][1]))
            second[x] = self.add(name(x, 2), latex(x, 2), _scaled(pairs), denom=family.rate[x],
                                 label=family.label[x], kind="dDelta")
        return first, second


def _scaled(pairs):
    return [(c, n) for c, n in pairs if c != 0]


def _value_pairs(value, coef: Any = 1) -> list[tuple[Any, tuple[str, ...]]]:
    c, names = value
    return [(coef * c, names)] if c != 0 else []


# ------------------------------------------------------------------------ the builders
class _Noncollaborative:
    r"""ALIS and canonical RAIS (the same laws): the busy-set product form $\Phi(B)D(B)/G$ of
    [GR20]_ Thm 5.1 with $\Phi(B)=\widetilde W_{\mathcal M\setminus B}/\widetilde W_{\mathcal M}$."""

    def __init__(self, out: _Build, kind: str) -> None:
        self.out, self.kind = out, kind
        b = out.b
        self.b = b
        self.wt: dict[int, tuple] = {0: (sympy.Integer(1), ())}
        for x in range(1, b.full + 1):  # the definitions of normalizing-constant --discipline rais
            pairs = [p for j in bits(x) for p in _value_pairs(self.wt[x ^ (1 << j)])]
            self.wt[x] = out.add(f"Wt__{b.set_json(x)}",
                                 rf"\widetilde{{{b.letter('W')}}}_{{{b.set_latex(x)}}}", pairs,
                                 denom=b.compatible(x), label=b.compatible_label(x), kind="W",
                                 inline=False)
        self.d: dict[int, tuple] = {0: (sympy.Integer(1), ())}
        for x in range(1, b.full + 1):
            pairs = [p for j in bits(x) for p in _value_pairs(self.d[x ^ (1 << j)])]
            self.d[x] = out.add(f"D__{b.set_json(x)}", f"{b.letter('D')}_{{{b.set_latex(x)}}}",
                                pairs, denom=b.slack(x), label=b.slack_label(x), kind="D",
                                inline=False)
        pairs = [(self.wt[b.full ^ x][0] * self.d[x][0], self.wt[b.full ^ x][1] + self.d[x][1])
                 for x in range(b.full + 1)]
        self.g = out.add("G__RAIS", b.letter("G") + r"_{\mathrm{RAIS}}", pairs,
                         denom_names=self.wt[b.full][1], kind="G", inline=False)[1][0]
        self.norm = (self.g,) + self.wt[b.full][1]  # G W~_M = sum_B W~_{M\B} D_B
        self._r: dict[int, dict[int, tuple]] = {}

    def _tagged_weights(self, s: int) -> dict[int, tuple]:
        r"""$R^{(s)}_X$ for $X\ni s$: the busy-set weights with the tagged job's server $s$
        held: $R^{(s)}_X=(D_{X\setminus s}+\sum_{m\in X\setminus s}R^{(s)}_{X\setminus m})/
        (\mu(X)-\lambda_R(X\setminus s))$."""
        if s in self._r:
            return self._r[s]
        out, b = self.out, self.b
        bit = 1 << s
        r: dict[int, tuple] = {}
        for x in range(1, b.full + 1):
            if not x & bit:
                continue
            pairs = _value_pairs(self.d[x & ~bit])
            for m in bits(x & ~bit):
                pairs += _value_pairs(r[x & ~(1 << m)])
            denom = b.mu_of(x) - b.lam_required(x & ~bit)
            sj, sl = self.server_json(s), self.server_latex(s)
            r[x] = out.add(f"R__{sj}__{b.set_json(x)}",
                           rf"{b.letter('R')}^{{{sl}}}_{{{b.set_latex(x)}}}", pairs,
                           denom=denom, label=rf"\bar r^{{{sl}}}_{{{b.set_latex(x)}}}",
                           kind="R")
            if denom.is_Add:
                out.legend.setdefault(rf"\bar r^{{{sl}}}_{{{b.set_latex(x)}}}",
                                      (rf"\bar r^{{{sl}}}_{{{b.set_latex(x)}}}",
                                       rate_latex(denom)))
        self._r[s] = r
        return r

    def server_json(self, j: int) -> str:
        return self.out.server_json(j)

    def server_latex(self, j: int) -> str:
        return self.out.server_latex(j)

    def _immediate(self, k: int, s: int) -> list[tuple[Any, tuple[str, ...]]]:
        r"""$\sum_{I\ni s}D_{\mathcal M\setminus I}A^{(i,s)}_I$: the weight of the arrival
        states where the job starts at once at $s$; $A^{(i,s)}_I$ sums the idle orders of $I$
        whose first server of $S_i$ is $s$ ($\widetilde W_I$ when $I\cap S_i=\{s\}$)."""
        out, b = self.out, self.b
        need = b.masks[k]
        bit = 1 << s
        a: dict[int, tuple] = {}
        for x in range(1, b.full + 1):
            if not x & bit:
                continue
            if x & need == bit:
                a[x] = self.wt[x]
                continue
            pairs = []
            for t in bits(x):
                y = x & ~(1 << t)
                if y & bit:
                    pairs += _value_pairs(a[y])
            a[x] = out.add(f"A__{b.class_json(k)}__{self.server_json(s)}__{b.set_json(x)}",
                           rf"{b.letter('A')}^{{{b.class_latex(k)},{self.server_latex(s)}}}"
                           rf"_{{{b.set_latex(x)}}}", pairs, denom=b.compatible(x),
                           label=b.compatible_label(x), kind="A", once=True)
        pairs = []
        for x, v in a.items():
            dv = self.d[b.full & ~x]
            pairs.append((dv[0] * v[0], dv[1] + v[1]))
        return pairs

    def family(self, k: int, base) -> _Recursion:
        """The supersets of $S_i$, with sources $X\\setminus m\\supseteq S_i$."""
        b = self.b
        need = b.masks[k]
        fam = _Recursion()
        for x in range(1, b.full + 1):
            if x & need != need:
                continue
            fam.keys.append(x)
            fam.sources[x] = [(sympy.Integer(1), 0, x & ~(1 << m)) for m in bits(x & ~need)]
            fam.base[x] = base(x)
            fam.rate[x] = b.slack(x)
            fam.label[x] = b.slack_label(x)
        return fam

    def build(self) -> dict[str, Any]:
        out, b = self.out, self.b
        result: dict[str, dict[str, str]] = {"lst": {}}
        self.parts: dict[int, Any] = {}
        for k, c in enumerate(b.classes):
            cj, cl = b.class_json(k), b.class_latex(k)
            need = b.masks[k]
            single = len(bits(need)) == 1
            if self.kind == "waiting" or single:
                # one server s: T = W + an independent Exp(mu_s) service, so the response
                # transform is mu_s/(mu_s + theta) times the wait's (the server law is 1)
                fam = self.family(k, lambda x: [(sympy.Integer(1), self.d[x][1])])
                out.recursion(fam, lambda x: f"Delta__{cj}__{b.set_json(x)}",
                              lambda x: rf"\Delta^{{{cl}}}_{{{b.set_latex(x)}}}(\theta)")
                pairs = [(sympy.Integer(1), self.norm)]
                pairs += [(self.wt[b.full & ~x][0], self.wt[b.full & ~x][1] + (fam.names[x],))
                          for x in fam.keys]
                mu = b.mu[bits(need)[0]]
                letter = "W" if self.kind == "waiting" else "T"
                scale = 1 if self.kind == "waiting" else mu / (mu + THETA)
                name = out.add(f"LST__{cj}", rf"\hat F_{{{letter}_{{{cl}}}}}(\theta)", pairs,
                               denom_names=self.norm, kind="LST", theta=True,
                               scale=scale)[1][0]
                result["lst"][c] = name
                self.parts[k] = ("waiting" if self.kind == "waiting" else "single", fam)
                out.poles[c] = [fam.rate[x] for x in fam.keys]
                if self.kind != "waiting":
                    out.poles[c].append(mu)
                continue
            servers = {}
            for s in bits(need):
                r = self._tagged_weights(s)
                sj, sl = self.server_json(s), self.server_latex(s)
                q0: dict[int, tuple] = {}
                fam = self.family(k, lambda x: [])
                for x in fam.keys:  # Q0: the wait's weight at theta = 0 (free of theta)
                    pairs = _value_pairs(r[x])
                    for _, _, y in fam.sources[x]:
                        pairs += _value_pairs(q0[y])
                    q0[x] = out.add(f"Q__{cj}__{sj}__{b.set_json(x)}",
                                    rf"{b.letter('Q')}^{{{cl},{sl}}}_{{{b.set_latex(x)}}}",
                                    pairs, denom=fam.rate[x], label=fam.label[x], kind="Q")
                    fam.base[x] = _value_pairs(q0[x])
                mu = b.mu[s]
                pairs = self._immediate(k, s)
                pairs += [(mu * self.wt[b.full & ~x][0] * q0[x][0],
                           self.wt[b.full & ~x][1] + q0[x][1]) for x in fam.keys]
                p = out.add(f"p__{cj}__{sj}", rf"p_{{{cl}\to {sl}}}", pairs,
                            denom_names=self.norm, kind="p", inline=False)[1][0]
                out.recursion(fam, lambda x: f"Delta__{cj}__{sj}__{b.set_json(x)}",
                              lambda x: rf"\Delta^{{{cl},{sl}}}_{{{b.set_latex(x)}}}(\theta)")
                pairs = [(mu * self.wt[b.full & ~x][0], self.wt[b.full & ~x][1] + (fam.names[x],))
                         for x in fam.keys]
                j = out.add(f"J__{cj}__{sj}", rf"J_{{{cl}\to {sl}}}(\theta)", pairs,
                            denom_names=self.norm, kind="J", theta=True, inline=False)[1][0]
                servers[s] = (p, j, fam)
            pairs = []
            for s, (p, j, _) in servers.items():
                mu = b.mu[s]
                pairs += [(mu / (mu + THETA), (p,)), (mu / (mu + THETA), (j,))]
            name = out.add(f"LST__{cj}", rf"\hat F_{{T_{{{cl}}}}}(\theta)", pairs, kind="LST",
                           theta=True)[1][0]
            result["lst"][c] = name
            self.parts[k] = ("response", servers)
            out.poles[c] = [fam.rate[x] for _, _, fam in servers.values() for x in fam.keys] + \
                [b.mu[s] for s in servers]
        result["server"] = {f"{c}->{self.b.servers[s]}": p for k, c in enumerate(b.classes)
                            if self.parts[k][0] == "response"
                            for s, (p, _, _) in self.parts[k][1].items()}
        if not result["server"]:
            del result["server"]
        return result

    def moments(self) -> dict[str, Any]:
        out, b = self.out, self.b
        mean: dict[str, str] = {}
        var: dict[str, str] = {}
        for k, c in enumerate(b.classes):
            cj, cl = b.class_json(k), b.class_latex(k)
            what, data = self.parts[k]
            letter = "W" if what == "waiting" else "T"
            if what in ("waiting", "single"):
                fam = data
                first, second = out.derivative_recursion(
                    fam, lambda x, n: f"{'d' * n}Delta__{cj}__{b.set_json(x)}",
                    lambda x, n: rf"\Delta^{{{cl}{chr(39) * n}}}_{{{b.set_latex(x)}}}")
                m_pairs = [(-self.wt[b.full & ~x][0] * first[x][0],
                            self.wt[b.full & ~x][1] + first[x][1]) for x in fam.keys]
                s_pairs = [(self.wt[b.full & ~x][0] * second[x][0],
                            self.wt[b.full & ~x][1] + second[x][1]) for x in fam.keys]
                if what == "single":  # T = W + S: E T = E W + 1/mu, E T^2 = E W^2 + 2 E W/mu + 2/mu^2
                    mu = b.mu[bits(b.masks[k])[0]]
                    mw = out.add(f"meanW__{cj}", rf"E\,W_{{{cl}}}", m_pairs,
                                 denom_names=self.norm, kind="mean", inline=False)
                    w2 = out.add(f"secondW__{cj}", rf"E\,W_{{{cl}}}^2", s_pairs,
                                 denom_names=self.norm, kind="mean", inline=False)
                    m = out.add(f"mean__{cj}", rf"E\,{letter}_{{{cl}}}",
                                [(1, mw[1]), (1 / mu, ())], kind="mean", inline=False)
                    e2 = out.add(f"second__{cj}", rf"E\,{letter}_{{{cl}}}^2",
                                 [(1, w2[1]), (2 / mu, mw[1]), (2 / mu**2, ())], kind="mean",
                                 inline=False)
                else:
                    m = out.add(f"mean__{cj}", rf"E\,{letter}_{{{cl}}}", m_pairs,
                                denom_names=self.norm, kind="mean", inline=False)
                    e2 = out.add(f"second__{cj}", rf"E\,{letter}_{{{cl}}}^2", s_pairs,
                                 denom_names=self.norm, kind="mean", inline=False)
            else:
                m_pairs, s_pairs = [], []
                for s, (p, j, fam) in data.items():
                    sj, sl = self.server_json(s), self.server_latex(s)
                    mu = b.mu[s]
                    first, second = out.derivative_recursion(
                        fam, lambda x, n: f"{'d' * n}Delta__{cj}__{sj}__{b.set_json(x)}",
                        lambda x, n: rf"\Delta^{{{cl},{sl}{chr(39) * n}}}_{{{b.set_latex(x)}}}")
                    j1 = out.add(f"dJ__{cj}__{sj}", rf"J'_{{{cl}\to {sl}}}",
                                 [(mu * self.wt[b.full & ~x][0] * first[x][0],
                                   self.wt[b.full & ~x][1] + first[x][1]) for x in fam.keys],
                                 denom_names=self.norm, kind="J", inline=False)
                    j2 = out.add(f"ddJ__{cj}__{sj}", rf"J''_{{{cl}\to {sl}}}",
                                 [(mu * self.wt[b.full & ~x][0] * second[x][0],
                                   self.wt[b.full & ~x][1] + second[x][1]) for x in fam.keys],
                                 denom_names=self.norm, kind="J", inline=False)
                    # T = sum_s (p + J) mu/(mu + theta): -T'(0) = sum p/mu - J'(0),
                    # T''(0) = sum J''(0) - 2 J'(0)/mu + 2 p/mu^2
                    m_pairs += [(1 / mu, (p,)), (-1, j1[1])]
                    s_pairs += [(1, j2[1]), (-2 / mu, j1[1]), (2 / mu**2, (p,))]
                m = out.add(f"mean__{cj}", rf"E\,{letter}_{{{cl}}}", m_pairs, kind="mean",
                            inline=False)
                e2 = out.add(f"second__{cj}", rf"E\,{letter}_{{{cl}}}^2", s_pairs,
                             kind="mean", inline=False)
            v = out.add(f"var__{cj}", rf"\operatorname{{Var}}\,{letter}_{{{cl}}}",
                        [(1, e2[1]), (-1, m[1] + m[1])], kind="var", inline=False)
            mean[c], var[c] = m[1][0], v[1][0]
        return {"mean": mean, "variance": var}


class _Collaborative:
    r"""The collaborative model: the exact-cover weights $H_X$ ([GR20]_ Props 6.2/6.3) and
    $G=\sum_XH_X$; the response transform is $G(\lambda-\theta e_i)/G$ (distributional
    Little's law on Thm 6.1), the wait's the same weights with $r_X+\theta$ on $X\supseteq S_i$
    (Prop 5.5, Cor 5.7 corrected)."""

    def __init__(self, out: _Build, kind: str) -> None:
        self.out, self.kind = out, kind
        b = self.b = out.b
        self.order = unions(b.masks)
        self.h: dict[int, tuple] = {0: (sympy.Integer(1), ())}
        self.pushes: dict[int, list[tuple[int, int]]] = {x: [] for x in self.order}
        for x in self.order:
            for k, m in enumerate(b.masks):
                y = x | m
                if y != x:
                    self.pushes[y].append((k, x))
        for x in self.order[1:]:
            pairs = [p for k, y in self.pushes[x] for p in _value_pairs(self.h[y], b.lam[k])]
            self.h[x] = out.add(f"H__{b.set_json(x)}", f"{b.letter('H')}_{{{b.set_latex(x)}}}",
                                pairs, denom=b.slack(x), label=b.slack_label(x), kind="H",
                                inline=False)
        pairs = [p for x in self.order for p in _value_pairs(self.h[x])]
        self.g = out.add("G__C", b.letter("G"), pairs, kind="G", inline=False)[1][0]
        self.parts: dict[int, _Recursion] = {}

    def build(self) -> dict[str, Any]:
        out, b = self.out, self.b
        result: dict[str, dict[str, str]] = {"lst": {}}
        for k, c in enumerate(b.classes):
            cj, cl = b.class_json(k), b.class_latex(k)
            need = b.masks[k]
            fam = _Recursion()
            for x in self.order:
                if x & need != need:
                    continue
                fam.keys.append(x)
                fam.rate[x] = b.slack(x)
                fam.label[x] = b.slack_label(x)
                fam.sources[x] = []
                base = _value_pairs(self.h[x])
                for kk, y in self.pushes[x]:
                    shifted = self.kind == "response" and kk == k
                    if y & need == need:
                        fam.sources[x].append((b.lam[kk], int(shifted), y))
                    if shifted:
                        base += _value_pairs(self.h[y])
                fam.base[x] = base
            out.recursion(fam, lambda x: f"Delta__{cj}__{b.set_json(x)}",
                          lambda x: rf"\Delta^{{{cl}}}_{{{b.set_latex(x)}}}(\theta)")
            pairs = [(sympy.Integer(1), (self.g,))] + [(sympy.Integer(1), (fam.names[x],))
                                                       for x in fam.keys]
            letter = "T" if self.kind == "response" else "W"
            result["lst"][c] = out.add(f"LST__{cj}", rf"\hat F_{{{letter}_{{{cl}}}}}(\theta)",
                                       pairs, denom_names=(self.g,), kind="LST",
                                       theta=True)[1][0]
            self.parts[k] = fam
            out.poles[c] = [fam.rate[x] for x in fam.keys]
        return result

    def moments(self) -> dict[str, Any]:
        out, b = self.out, self.b
        mean: dict[str, str] = {}
        var: dict[str, str] = {}
        letter = "T" if self.kind == "response" else "W"
        for k, c in enumerate(b.classes):
            cj, cl = b.class_json(k), b.class_latex(k)
            fam = self.parts[k]
            first, second = out.derivative_recursion(
                fam, lambda x, n: f"{'d' * n}Delta__{cj}__{b.set_json(x)}",
                lambda x, n: rf"\Delta^{{{cl}{chr(39) * n}}}_{{{b.set_latex(x)}}}")
            m = out.add(f"mean__{cj}", rf"E\,{letter}_{{{cl}}}",
                        [(-first[x][0], first[x][1]) for x in fam.keys],
                        denom_names=(self.g,), kind="mean", inline=False)
            e2 = out.add(f"second__{cj}", rf"E\,{letter}_{{{cl}}}^2",
                         [(second[x][0], second[x][1]) for x in fam.keys],
                         denom_names=(self.g,), kind="mean", inline=False)
            v = out.add(f"var__{cj}", rf"\operatorname{{Var}}\,{letter}_{{{cl}}}",
                        [(1, e2[1]), (-1, m[1] + m[1])], kind="var", inline=False)
            mean[c], var[c] = m[1][0], v[1][0]
        return {"mean": mean, "variance": var}


# ------------------------------------------------------------------------ the formula
class SurvivalTerm:
    r"""One term $c\,t^{j-1}e^{-at}/(j-1)!$ of a density, from the term $c/(\theta+a)^j$ of
    the transform: ``pole`` $a$ (sympy, in the rates), ``order`` $j$, ``coefficient`` $c$
    (a cancelled rational function of the rates, :class:`symq.engines.formulas.arith.RF`,
    or a Fraction at numeric rates)."""

    __slots__ = ("pole", "order", "coefficient")

    def __init__(self, pole: Any, order: int, coefficient: Any) -> None:
        self.pole, self.order, self.coefficient = pole, order, coefficient

    def __repr__(self) -> str:
        return f"SurvivalTerm(pole={self.pole}, order={self.order})"


class TransformFormula(Structured):
    r"""The structured transform of the tagged job's time (``kind`` ``response`` or
    ``waiting``): a :class:`~symq.engines.formulas.Structured` whose definitions may use
    $\theta$ (the symbol ``theta``), with the result ``{"lst": {class: name}}`` and for ALIS
    and RAIS responses ``{"server": {"i->s": name}}`` (the law of the serving server).

    :meth:`moments` gives the mean and variance as a structured formula,
    :meth:`expanded_values` the transform, mean and variance as cancelled rational functions,
    :meth:`survival_terms` the survival function's exponentials, :meth:`at` exact values at
    rational rates (and $\theta$).
    """

    def __init__(self, model: Model, quantity: str, discipline: str, built: _Build, maker,
                 shape: dict) -> None:
        super().__init__(model, quantity, discipline, list(built.defs), shape)
        self.kind = "response" if quantity.startswith("response") else "waiting"
        self._built = built
        self._maker = maker
        self._moments: Structured | None = None
        self._survival: dict = {}

    # ------------------------------------------------------------------ printing
    def latex(self, star: bool = True, skip: frozenset | set = frozenset(), **options) -> str:
        r"""The definitions as ``align*`` (the options of
        :meth:`symq.engines.formulas.Structured.latex`); a slack too wide for a fraction is
        written by its name ($r_X$, $\bar r^{(s)}_X$), defined once on a line of its own."""
        return _legend_rows(lambda: super(TransformFormula, self).latex(star, skip, **options),
                            self._built.legend, options.get("shown_labels"))

    def paper_latex(self, title: str | None = None) -> str:
        """The formula as it is pasted into a paper: one ``align*`` with headings (the weights
        of the product form, the server that serves the job, the transform), short
        definitions several to a line, long slacks by their names $r_X$ (defined once), and a
        legend of the kinds used (the W model under ALIS fits one A4 page)."""
        return _compact_paper(self, title, [
            ("The weights of the product form.", ("Wt", "D", "G", "H")),
            ("The server that serves the job.", ("R", "A", "Q", "p")),
            ("The transform.", ("Delta", "J", "LST"))])

    def result_names(self) -> list[tuple[str, str]]:
        """``[(label, name)]``: ``("lst 1", "LST__1")``, ..., ``("server 1->2", "p__1__2")``."""
        out = []
        for key, part in self.shape.items():
            out += [(f"{key} {k}", v) for k, v in part.items()]
        return out

    # ------------------------------------------------------------------ moments
    def moments(self) -> Structured:
        r"""The mean and the variance per class as a structured formula: the definitions free
        of $\theta$, then the derivatives $\Delta'$, $\Delta''$ at 0 of every
        $\theta$-dependent name (module text), then ``mean__c``, ``second__c`` (the second
        moment) and ``var__c``; result ``{"mean": {c: name}, "variance": {c: name}}``.

        Returns
        -------
        Structured
            Its :meth:`~symq.engines.formulas.Structured.at` and
            :meth:`~symq.engines.formulas.Structured.expanded_values` give exact values and
            rational functions.

        Examples
        --------
        >>> from symq import model
        >>> m = transform_formula(model("w"), "response", "alis").moments()
        >>> m.at({"lambda_1": "1/2", "lambda_2": "1/4", "lambda_3": "1/2", "mu_1": 1,
        ...       "mu_2": 2})["mean"]["3"]
        800/1057

        Running time: linear in the number of definitions (three per $\theta$-dependent one).
        """
        if self._moments is None:
            built = self._built
            start = len(built.defs)
            shape = self._maker.moments()
            free = [d for d in built.defs[:start] if d.name not in built.theta]
            defs = free + built.defs[start:]
            del built.defs[start:]
            for d in defs[len(free):]:
                built.by_name.pop(d.name, None)
            m = _MomentFormula(self.model, self.quantity, self.discipline, defs, shape)
            m._legend = built.legend
            self._moments = m
        return self._moments

    # ------------------------------------------------------------------ values
    def at(self, values: Mapping[str, Any], theta: Any = None) -> Any:
        """Exact values at rational rates ``values`` (by symbol name): the transform at
        rational ``theta`` (required) and the server law, in the result's shape.

        Raises
        ------
        ModelError
            ``theta`` missing.
        """
        if theta is None:
            raise ModelError("the transform's value needs theta (a rational number)")
        from symq.engines.formulas.arith import evaluate_definitions
        point = _point(self.model, values)
        t = Fraction(str(sympy.Rational(theta)))
        env = evaluate_definitions(self.definitions,
                                   lambda s: t if s == THETA else point[s],
                                   lambda r: Fraction(int(r.p), int(r.q)))
        return _shape_map(self.shape, lambda n: sympy.Rational(env[n].numerator,
                                                               env[n].denominator))

    def lst_at_rates(self, values: Mapping[str, Any]) -> dict[str, tuple]:
        """``{class: (numerator, denominator)}``: the transform at rational rates as a
        cancelled quotient of python-flint ``fmpz_mpoly`` polynomials in ``theta`` (exact).

        Running time: one univariate rational-function operation per term of every
        definition."""
        from symq.engines.formulas.arith import RationalFunctions, evaluate_definitions
        point = _point(self.model, values)
        field = RationalFunctions([THETA])
        env = evaluate_definitions(
            self.definitions, lambda s: field.leaf(THETA) if s == THETA else
            field.number(sympy.Rational(point[s].numerator, point[s].denominator)), field.number)
        return {c: (env[n].num, env[n].den) for c, n in self.shape["lst"].items()}

    def expanded_values(self) -> Any:
        """``{"lst": {c: RF}}`` (and ``"server"``): the transforms (and the server law) as
        cancelled rational functions of the rates and ``theta``, from the definitions in
        python-flint arithmetic; computed once. The moments: :meth:`moments`.

        Running time: one polynomial product per term of every definition (the transforms
        of 4-server models: seconds)."""
        cached = getattr(self, "_expanded", None)
        if cached is not None:
            return cached
        from symq.engines.formulas.arith import FactoredFunctions, evaluate_definitions
        symbols = sorted(self.model.symbols, key=lambda s: s.name)
        field = FactoredFunctions(symbols + [THETA])
        env = evaluate_definitions(self.definitions, field.leaf, field.number)
        self._expanded = _shape_map(self.shape, lambda n: field.finish(env[n]))
        return self._expanded

    def definition(self, name: str) -> Definition:
        """The definition called ``name``."""
        for d in self.definitions:
            if d.name == name:
                return d
        raise KeyError(name)

    def expanded_degrees(self) -> list[tuple[int, int]]:
        """``[(numerator degree, denominator degree)]`` of the expanded results (in the rates
        and ``theta`` together), from the definitions on a random line (as
        :meth:`symq.engines.formulas.Structured.expanded_degrees`)."""
        from symq.engines.formulas.arith import result_degrees
        symbols = sorted(self.model.symbols, key=lambda s: s.name)
        return result_degrees(self.definitions, [name for _, name in self.result_names()],
                              symbols + [THETA] if symbols else [])

    def expanded_size(self) -> int:
        r"""A bound on the terms of the expanded transforms and of the expanded moments:
        $\binom{n+d}{n}$ monomials of degree at most $d$ in the $n$ variables (rates and
        $\theta$), summed (the estimate of the ``expanded-terms`` limit)."""
        from math import comb
        n = len(self.model.symbols) + 1
        total = sum(comb(n + d, n) for dn, dd in self.expanded_degrees() for d in (dn, dd))
        return total + self.moments().expanded_size()

    # ------------------------------------------------------------------ survival
    def survival_terms(self, job_class: str, values: Mapping[str, Any] | None = None
                       ) -> tuple[Any, list[SurvivalTerm]]:
        r"""``(atom, terms)`` with transform $=\text{atom}+\sum c/(\theta+a)^j$: the residues
        at every pole $-a$ (a slack $r_X$ or a service rate $\mu_s$, rational in the rates),
        computed through the definitions in truncated Laurent series in $\varepsilon=
        \theta+a$; with ``values`` at those rational rates (Fractions), else cancelled
        rational functions of the rates.

        Raises
        ------
        UnsupportedError
            A rate that is not a rational function of the symbols (then the poles may not
            be rational either): evaluate at numeric rates.

        Running time: one pass over the class's $\theta$-dependent definitions per pole, in
        series of a few terms.
        """
        key = (job_class, tuple(sorted((values or {}).items())))
        if key in self._survival:
            return self._survival[key]
        out = _residues(self, job_class, values)
        self._survival[key] = out
        return out

    def survival_expr(self, job_class: str, t: Any = TIME) -> sympy.Expr:
        r"""$P(T>t)$ as a sum of exponentials with symbolic coefficients (factored)."""
        from symq.engines.formulas.arith import to_sympy
        _, terms = self.survival_terms(job_class)
        parts = []
        for term in terms:
            a, j = term.pole, term.order
            c = to_sympy(term.coefficient, "factored") if not isinstance(
                term.coefficient, Fraction) else sympy.Rational(term.coefficient.numerator,
                                                                 term.coefficient.denominator)
            parts.append(sympy.exp(-a * t) * sympy.Add(*(
                sympy.factor(c / a**(j - i)) * t**i / sympy.factorial(i) for i in range(j))))
        return sympy.Add(*parts)


class _MomentFormula(Structured):
    """The mean and variance as a structured formula (:meth:`TransformFormula.moments`)."""

    _legend: dict = {}

    def latex(self, star: bool = True, skip: frozenset | set = frozenset(), **options) -> str:
        """As :meth:`TransformFormula.latex`."""
        return _legend_rows(lambda: super(_MomentFormula, self).latex(star, skip, **options),
                            self._legend, options.get("shown_labels"))

    def paper_latex(self, title: str | None = None) -> str:
        """Headed blocks (weights, server law, derivatives, moments) and the legend."""
        return _paper(self, title, [
            ("The weights of the product form.", ("Wt", "D", "G", "H")),
            ("The server that serves the job.", ("R", "A", "Q", "p")),
            ("The derivatives at theta = 0.", ("dDelta", "ddDelta", "dJ", "ddJ")),
            ("The mean and the variance.", ("mean", "second", "var"))])

    def result_names(self) -> list[tuple[str, str]]:
        out = []
        for key, part in self.shape.items():
            out += [(f"{key} {k}", v) for k, v in part.items()]
        return out

    def at(self, values: Mapping[str, Any]) -> Any:
        from symq.engines.formulas.arith import at_point
        point = _point(self.model, values)
        env = at_point(self.definitions, {s: sympy.Rational(v.numerator, v.denominator)
                                          for s, v in point.items()})
        return _shape_map(self.shape, lambda n: sympy.Rational(env[n].numerator,
                                                               env[n].denominator))

    def expanded_values(self) -> Any:
        cached = getattr(self, "_expanded", None)
        if cached is not None:
            return cached
        from symq.engines.formulas.arith import FactoredFunctions, evaluate_definitions
        symbols = sorted(self.model.symbols, key=lambda s: s.name)
        if not symbols:
            out = self.at({})
        else:
            field = FactoredFunctions(symbols)
            env = evaluate_definitions(self.definitions, field.leaf, field.number)
            out = _shape_map(self.shape, lambda n: field.finish(env[n]))
        self._expanded = out
        return out


def _shape_map(shape: Mapping, leaf) -> Any:
    from symq.display import as_result
    return as_result({key: as_result({k: leaf(v) for k, v in part.items()})
                      for key, part in shape.items()})


def _point(model: Model, values: Mapping[str, Any]) -> dict:
    by_name = {s.name: s for s in model.symbols}
    out = {}
    for k, v in values.items():
        if k in by_name:
            r = sympy.Rational(v)
            out[by_name[k]] = Fraction(int(r.p), int(r.q))
    missing = sorted(n for n, s in by_name.items() if s not in out)
    if missing:
        raise ModelError(f"a value is needed for {', '.join(missing)}")
    return out


def _legend_rows(make, legend: dict, shown: set | None) -> str:
    """``make()`` (an ``align*`` block) with each slack row labelled ``r_X + \theta`` written
    as ``r_X`` (defined once: later rows of a name already defined are dropped)."""
    if shown is not None:  # a slack defined by an earlier block: its theta row is not needed
        for label, (name, _) in legend.items():
            if name in shown:
                shown.add(label)
    text = make()
    lines = text.split("\n")
    head, body, tail = lines[0], lines[1:-1], lines[-1]
    rows = [line[:-3] if line.endswith(" \\\\") else line for line in body]
    out, seen = [], set()
    for row in rows:
        lhs, sep, rhs = row.partition(" &= ")
        if sep and lhs in legend:
            lhs, rhs = legend[lhs]
        if sep and lhs in {v[0] for v in legend.values()}:
            if lhs in seen:
                continue
            seen.add(lhs)
        out.append(lhs + sep + rhs if sep else row)
    if shown is not None:
        shown |= seen
    return "\n".join([head, " \\\\\n".join(out), tail])


_PAPER_LEGEND = {
    "R": r"$R^{(s)}_X=\bigl(D_{X\setminus s}+\sum_{m\in X\setminus s}R^{(s)}_{X\setminus m}"
         r"\bigr)/\bar r^{(s)}_X$ weighs the busy sets $X\ni s$ whose server $s$ is held for "
         r"the tagged job, $\bar r^{(s)}_X=\mu(X)-\lambda(R(X\setminus s))$",
    "A": r"$A^{(i,s)}_I$ sums the idle orders of $I$ whose first server of $S_i$ is $s$ "
         r"($\widetilde W_I$ when $I\cap S_i=\{s\}$): a class-$i$ job that finds $I$ idle "
         r"starts at once at $s$ with probability $A^{(i,s)}_I/\widetilde W_I$",
    "Q": r"$Q^{(i,s)}_X=\bigl(R^{(s)}_X+\sum_{m\in X\setminus S_i}Q^{(i,s)}_{X\setminus m}"
         r"\bigr)/r_X$ weighs the class-$i$ jobs that wait while the busy set is "
         r"$X\supseteq S_i$ and are then served by $s$",
    "p": r"$p_{i\to s}$ is the probability that a class-$i$ job is served by $s$ (ALIS and the "
         r"canonical RAIS routing give the same law)",
    "Delta": r"$\Delta_X(\theta)$ solves $(r_X+\theta)\Delta_X=\sum_Y(c_Y-e_Y\theta)\Delta_Y-"
             r"\theta b_X$ and vanishes at $\theta=0$; $J_{i\to s}(\theta)=E[e^{-\theta W_i}"
             r"-1;\,s]$",
    "LST": r"$\hat F_{T_i}(\theta)=E\,e^{-\theta T_i}$ and $\hat F_{W_i}(\theta)=E\,"
           r"e^{-\theta W_i}$ are the Laplace--Stieltjes transforms of the response and "
           r"waiting times (the tagged-job method of docs/response-times.md)",
}


def _paper(f, title: str | None, groups: list) -> str:
    """Headed ``align*`` blocks for a plain A4 article and the legend."""
    try:
        from symq.engines.formulas.paper import PAPER_DENOM_UNITS, PAPER_UNITS, PREAMBLE, legend
    except ImportError:  # an older formulas package: one block
        return f.latex()
    first = f"% {title}" if title else (f"% symq: {f.quantity} of {f.model.name or 'the model'}"
                                        f" ({f.discipline})")
    out = [first.replace("\n", " "),
           "% Preamble: " + " and ".join(PREAMBLE) + " (long blocks break across pages)."]
    shown: set[str] = set()
    for heading, families in groups:
        names = {d.name for d in f.definitions if d.name.split("__", 1)[0] in families}
        if not names:
            continue
        out.append(rf"\noindent\emph{{{heading}}}")
        out.append(f.latex(only=names, limit=PAPER_UNITS, denom_limit=PAPER_DENOM_UNITS,
                           shown_labels=shown))
    mine = [text for key, text in _PAPER_LEGEND.items()
            if any(d.name.split("__", 1)[0] == key for d in f.definitions)]
    out.append(legend(f) + ("\n" + ";\n".join(mine) + "." if mine else ""))
    return "\n".join(out)


#: the legend of :func:`_compact_paper`: one short clause per kind of definition used
_SHORT_LEGEND = {
    "Wt": r"$\widetilde W_I=\frac{1}{\Lambda_I}\sum_{s\in I}\widetilde W_{I\setminus s}$, "
          r"$\Lambda_I$ the arrival rate of the classes $I$ serves",
    "D": r"$D_B=\frac{1}{r_B}\sum_{s\in B}D_{B\setminus s}$, $r_X=\mu(X)-\lambda(R(X))$ "
         r"([GR20] Thm 3.10, 5.1); $G_{\mathrm{RAIS}}=1/P(\emptyset)$",
    "H": r"$H_X$ the exact-cover weights ([GR20] Thm 3.3); $G=1/P(\emptyset)$",
    "R": r"$R^{s}_X$ weighs the busy sets $X\ni s$ with $s$ held for the tagged job",
    "A": r"$A^{i,s}_I$ sums the idle orders of $I$ whose first server of $S_i$ is $s$",
    "Q": r"$Q^{i,s}_X=(R^{s}_X+\sum_{m\in X\setminus S_i}Q^{i,s}_{X\setminus m})/r_X$",
    "p": r"$p_{i\to s}=P(\text{$s$ serves a class-$i$ job})$",
    "Delta": r"$(r_X+\theta)\Delta_X=\sum_Y(c_Y-e_Y\theta)\Delta_Y-\theta b_X$",
    "J": r"$J_{i\to s}(\theta)=E[e^{-\theta W_i}-1;\,s]$",
    "LST": r"$\hat F_{T_i}(\theta)=E\,e^{-\theta T_i}$, $\hat F_{W_i}(\theta)=E\,e^{-\theta W_i}$ "
           r"(ALIS and canonical RAIS)",
}

#: glyph units of one packed line (name, sign and right-hand sides; about 345 pt at 10 pt)
_ROW_UNITS = 58
#: a rate denominator wider than this is written by its label ($r_X$), defined once
_DENOM_UNITS = 12


def _width(tex: str) -> float:
    """The printed width of ``tex`` in the glyph units of
    :func:`symq.engines.formulas.render.width`, with sub- and superscripts (``x_{12}``) and
    fractions whose parts hold them measured inside out."""
    import math
    import re
    from symq.engines.formulas.render import width
    s = re.sub(r"\\(left|right|Bigl|Bigr|bigl|bigr|cdot|mathrm|widetilde|hat)\b", "", tex)
    s = re.sub(r"\\(lambda|mu|theta|Delta|Lambda|to)\b", "x", s)
    while True:
        t = re.sub(r"[_^]\{([^{}]*)\}", lambda m: "y" * math.ceil(0.65 * len(
            re.sub(r"[\s{}]", "", m.group(1)))), s)
        t = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}",
                   lambda m: "x" * math.ceil(max(width(m.group(1)), width(m.group(2)))), t)
        t = re.sub(r"\{([^{}]*)\}", lambda m: m.group(1), t) if t == s else t
        if t == s:
            return width(s)
        s = t


def _compact_rows(f, names: set, shown: set) -> list[tuple[str, list[str], bool, str]]:
    """``(lhs, pieces, short)`` per definition of ``names`` (in order), with a row defining
    each long slack label before its first use; a scaled definition is written
    ``scale \\cdot fraction``, a sum whose terms share a coefficient groups them."""
    from dataclasses import replace
    from symq.engines.formulas.paper import PAPER_UNITS
    width = _width
    tex = f.names
    legend = f._built.legend
    rows: list[tuple[str, list[str], bool]] = []
    for d in f.definitions:
        if d.name not in names:
            continue
        wide = long_denominator(d, _DENOM_UNITS)
        if wide is not None:
            label, text = legend.get(d.denom_label, (d.denom_label, wide))
            if label not in shown:
                shown.add(label)
                rows.append((label, [text], True, _block(d.name)))
        scale = sympy.sympify(d.scale)
        if d.denom == 1 and not d.denom_names and scale == 1 and len(d.terms) > 1:
            pieces = _grouped_sum(d, tex)
        else:
            body = definition_latex(replace(d, scale=1), tex, PAPER_UNITS - (
                0 if scale == 1 else 8), _DENOM_UNITS)
            if scale != 1:
                lead = sympy.latex(scale) + r"\cdot "
                body = [lead + body[0]] + body[1:] if len(body) == 1 else \
                    [lead + r"\Bigl(" + body[0]] + body[1:-1] + [body[-1] + r"\Bigr)"]
            pieces = body
        short = len(pieces) == 1 and width(pieces[0]) <= PAPER_UNITS
        rows.append((d.latex_name, pieces, short, _block(d.name)))
    return rows


def _block(name: str) -> str:
    """Rows of one block share a line: a weight family, a server's chain, a class's
    transform."""
    parts = name.split("__")
    if parts[0] in ("Wt", "D", "G", "H"):
        return "Wt" if parts[0] == "Wt" else "weights"
    if parts[0] == "R":
        return "s" + parts[1]
    if parts[0] in ("Q", "A", "p"):
        return "s" + parts[2]
    return "c" + parts[1] if len(parts) > 1 else parts[0]


def _grouped_sum(d, tex: dict) -> list[str]:
    r"""``c_1(a + b) + c_2(e + f)``: the terms of ``d`` with equal coefficients together,
    broken into lines of the paper width."""
    from symq.engines.formulas.paper import PAPER_UNITS
    width = _width
    groups: dict[Any, list[str]] = {}
    for t in d.terms:
        groups.setdefault(sympy.sympify(t.coef), []).append(
            " ".join(tex[n] for n in t.names) or "1")   # a constant term is its coefficient
    parts = []
    for coef, members in groups.items():
        inner = " + ".join(members)
        if coef == 1:
            parts.append(inner)
        elif members == ["1"]:
            parts.append(sympy.latex(coef))
        else:
            c = sympy.latex(coef)
            parts.append(c + (rf"\bigl({inner}\bigr)" if len(members) > 1 else " " + inner))
    lines, current = [], ""
    for part in parts:
        piece = part if not current else " + " + part
        if current and width(current + piece) > PAPER_UNITS:
            lines.append(current)
            current = r"\qquad + " + part
        else:
            current += piece
    lines.append(current)
    return lines


def _compact_paper(f, title: str | None, groups: list) -> str:
    """One ``align*``: ``\\intertext`` headings, short definitions packed several to a row
    (separated by ``\\qquad``), then the legend of the kinds used."""
    from symq.engines.formulas.paper import PREAMBLE
    width = _width
    first = f"% {title}" if title else (f"% symq: {f.quantity} of {f.model.name or 'the model'}"
                                        f" ({f.discipline})")
    out = [first.replace("\n", " "),
           "% Preamble: " + " and ".join(PREAMBLE) + " (long blocks break across pages).",
           r"\begin{align*}"]
    body: list[str] = []
    shown: set[str] = set()
    for heading, families in groups:
        names = {d.name for d in f.definitions if d.name.split("__", 1)[0] in families}
        if not names:
            continue
        body.append(rf"\intertext{{\emph{{{heading}}}}}")
        row, used, last = "", 0.0, None
        for lhs, pieces, short, block in _compact_rows(f, names, shown):
            cost = width(lhs) + 2 + width(pieces[0]) + (4 if row else 0)
            same, last = block == last, block
            if short and row and same and used + cost <= _ROW_UNITS:
                row += rf", \qquad {lhs} = {pieces[0]}"
                used += cost
                continue
            if row:
                body.append(row + r" \\")
                row, used = "", 0.0
            if short:
                row, used = f"{lhs} &= {pieces[0]}", cost
                continue
            body.append(f"{lhs} &= {pieces[0]}" + "".join(rf" \\ &{p}" for p in pieces[1:])
                        + r" \\")
        if row:
            body.append(row + r" \\")
    if body and body[-1].endswith(r" \\"):
        body[-1] = body[-1][:-3]
    out += body
    out.append(r"\end{align*}")
    used = [k for k in _SHORT_LEGEND
            if any(d.name.split("__", 1)[0] == k for d in f.definitions)]
    out.append(r"\noindent where " + ";\n".join(_SHORT_LEGEND[k] for k in used) + ".")
    return "\n".join(out)


# ------------------------------------------------------------------------ residues
class _Series:
    """A truncated Laurent series ``eps^val * sum(coeffs[j] eps^j) + O(eps^(val+len))``."""

    __slots__ = ("val", "co", "zero")

    def __init__(self, val: int, co: list, zero) -> None:
        self.val, self.co, self.zero = val, co, zero
        while self.co and _is_zero(self.co[0]):
            self.co = self.co[1:]
            self.val += 1

    @property
    def prec(self) -> int:
        return self.val + len(self.co)

    def __add__(self, other: "_Series") -> "_Series":
        val = min(self.val, other.val)
        prec = min(self.prec, other.prec)
        co = []
        for e in range(val, prec):
            a = self.co[e - self.val] if 0 <= e - self.val < len(self.co) else None
            b = other.co[e - other.val] if 0 <= e - other.val < len(other.co) else None
            co.append(a if b is None else b if a is None else a + b)
        co = [self.zero if c is None else c for c in co]
        return _Series(val, co, self.zero)

    def __neg__(self) -> "_Series":
        return _Series(self.val, [-c for c in self.co], self.zero)

    def __sub__(self, other: "_Series") -> "_Series":
        return self + (-other)

    def __mul__(self, other: "_Series") -> "_Series":
        n = min(len(self.co), len(other.co))
        co = []
        for e in range(n):
            acc = None
            for i in range(e + 1):
                term = self.co[i] * other.co[e - i]
                acc = term if acc is None else acc + term
            co.append(acc)
        return _Series(self.val + other.val, co, self.zero)

    def __truediv__(self, other: "_Series") -> "_Series":
        if not other.co:
            raise ZeroDivisionError("division by a series of unknown leading term")
        n = min(len(self.co), len(other.co))
        lead = other.co[0]
        inv: list = []
        for e in range(n):
            if e == 0:
                inv.append(_one_like(lead) / lead)
                continue
            acc = None
            for i in range(1, e + 1):
                term = other.co[i] * inv[e - i]
                acc = term if acc is None else acc + term
            inv.append(-acc / lead)
        co = []
        for e in range(n):
            acc = None
            for i in range(e + 1):
                term = self.co[i] * inv[e - i]
                acc = term if acc is None else acc + term
            co.append(acc)
        return _Series(self.val - other.val, co, self.zero)

    def __pow__(self, e: int) -> "_Series":
        out = self
        for _ in range(e - 1):
            out = out * self
        return out


def _is_zero(x) -> bool:
    if isinstance(x, Fraction):
        return x == 0
    return x.num.is_zero()


def _one_like(x):
    if isinstance(x, Fraction):
        return Fraction(1)
    return x.field.number(sympy.Integer(1))


def _residues(formula: TransformFormula, job_class: str, values) -> tuple[Any, list]:
    from symq.engines.formulas.arith import FactoredFunctions, evaluate_definitions
    if job_class not in formula.shape["lst"]:
        raise ModelError(f"unknown class {job_class!r}; classes: "
                         f"{', '.join(formula.shape['lst'])}")
    built = formula._built
    target = formula.shape["lst"][job_class]
    needed = _needed(formula.definitions, target)
    theta_defs = [d for d in formula.definitions if d.name in needed and d.name in built.theta]
    free_defs = [d for d in formula.definitions if d.name in needed and d.name not in built.theta]
    if values is not None:
        point = _point(formula.model, values)
        leaf = lambda s: point[s]  # noqa: E731
        number = lambda r: Fraction(int(r.p), int(r.q))  # noqa: E731
        zero = Fraction(0)
    else:
        symbols = sorted(formula.model.symbols, key=lambda s: s.name)
        field = FactoredFunctions(symbols)
        leaf, number = field.leaf, field.number
        zero = number(sympy.Integer(0))
    env = evaluate_definitions(free_defs, leaf, number)
    poles: dict[Any, Any] = {}
    for a in built.poles[job_class]:
        key = sympy.expand(a)
        if values is not None:
            key = sympy.Rational(sympy.sympify(a).subs({s: sympy.Rational(v.numerator, v.denominator)
                                                        for s, v in point.items()}))
        poles.setdefault(key, a)
    count = len(poles)
    terms: list[SurvivalTerm] = []
    for key, a in poles.items():
        a_value = _convert(a, leaf, number)
        precision = count + 3
        while True:
            series = _laurent_lst(theta_defs, env, target, a_value, leaf, number, zero, precision)
            if series.prec >= 0 or precision > 4 * count + 12:
                break
            precision *= 2
        if series.prec < 0:
            raise UnsupportedError("internal: the residues did not converge")
        for e in range(series.val, 0):
            c = series.co[e - series.val]
            if not _is_zero(c):
                terms.append(SurvivalTerm(key if values is not None else a, -e, c))
    # the atom: the transform at 0 is 1, so atom = 1 - sum c / a^j
    one = number(sympy.Integer(1))
    total = one
    for term in terms:
        a_value = _convert(term.pole, leaf, number)
        total = total - term.coefficient / (a_value ** term.order)
    if values is None:
        terms = [SurvivalTerm(t.pole, t.order, field.finish(t.coefficient)) for t in terms]
        total = field.finish(total)
    return total, terms


def _needed(definitions, target: str) -> set[str]:
    by_name = {d.name: d for d in definitions}
    need, stack = set(), [target]
    while stack:
        n = stack.pop()
        if n in need:
            continue
        need.add(n)
        d = by_name[n]
        stack += [m for t in d.terms for m in t.names] + list(d.denom_names)
    return need


def _convert(expr: Any, leaf, number):
    """A rate expression in the domain of ``leaf`` and ``number``."""
    from symq.engines.formulas.arith import evaluate_definitions
    return evaluate_definitions([Definition("value__", "", [Term(expr)])], leaf, number)["value__"]


def _laurent_lst(theta_defs, env, target, a_value, leaf, number, zero, precision) -> _Series:
    """The transform near $\\theta=-a$ as a Laurent series in $\\varepsilon=\\theta+a$: the
    names free of theta enter as constants (one placeholder symbol each)."""
    from symq.engines.formulas.arith import evaluate_definitions

    def const(v) -> _Series:
        return _Series(0, [v] + [zero] * (precision - 1), zero)

    theta = _Series(0, [-a_value, number(sympy.Integer(1))] + [zero] * (precision - 2), zero)
    used = {n for d in theta_defs for t in d.terms for n in t.names} | \
        {n for d in theta_defs for n in d.denom_names}
    free = sorted(n for n in used if n in env)
    holders = {n: sympy.Symbol(n) for n in free}
    constants = {holders[n]: const(env[n]) for n in free}
    defs = [Definition(n, "", [Term(holders[n])]) for n in free] + list(theta_defs)

    def lift_leaf(s):
        if s == THETA:
            return theta
        value = constants.get(s)
        return value if value is not None else const(leaf(s))

    return evaluate_definitions(defs, lift_leaf, lambda r: const(number(r)))[target]


# ------------------------------------------------------------------------ entry point
_BUILT: dict[tuple, TransformFormula] = {}


def transform_formula(model: Model | str, kind: str = "response",
                      discipline: str = "collaborative") -> TransformFormula:
    r"""The structured transform $E\,e^{-\theta T_i}$ (``kind="response"``) or
    $E\,e^{-\theta W_i}$ (``"waiting"``) of every class of ``model`` under ``discipline``.

    Parameters
    ----------
    model : Model or str
        Symbolic or numeric rates (a built-in name is read by :func:`symq.model`).
    kind : str
        ``response`` or ``waiting``.
    discipline : str
        ``collaborative``, ``alis`` or ``rais`` (ALIS and canonical RAIS give the same laws,
        and the same formula).

    Returns
    -------
    TransformFormula
        The definitions (module text) and ``shape`` ``{"lst": {class: name}}`` (and
        ``"server"`` for ALIS/RAIS responses).

    Raises
    ------
    ModelError
        An unknown kind or discipline, a model with abandonments, a rate symbol whose name
        contains ``__``.

    Examples
    --------
    >>> from symq import model
    >>> f = transform_formula(model("w"), "response", "alis")
    >>> f.text(f.definition("LST__3"))
    '(mu_1/(mu_1 + theta))*p__3__1 + (mu_1/(mu_1 + theta))*J__3__1 + (mu_2/(mu_2 + theta))*p__3__2 + (mu_2/(mu_2 + theta))*J__3__2'
    >>> f.at({"lambda_1": "1/2", "lambda_2": "1/4", "lambda_3": "1/2", "mu_1": 1,
    ...       "mu_2": 2}, theta=0)["server"]["3->2"]
    112/151

    Running time: $O(\sum_i|S_i|\,2^M M)$ definitions (ALIS, RAIS), $O(UJ)$ collaborative;
    building them takes well under a second for 4 servers.
    """
    from symq.models.catalog import as_model
    model = as_model(model)
    if kind not in KINDS:
        raise ModelError(f"unknown kind {kind!r}; use response or waiting")
    if discipline not in DISCIPLINES:
        raise ModelError(f"unknown discipline {discipline!r}; available: "
                         f"{', '.join(DISCIPLINES)}")
    if model.abandonment_rates:
        raise ModelError("response-time laws are for models without abandonments")
    if model.is_empty:
        raise ModelError("the model has no class; give it at least one class and server")
    key = (model, kind, discipline)
    if key not in _BUILT:
        built = _Build(model)
        maker = (_Collaborative if discipline == "collaborative" else _Noncollaborative)(built, kind)
        shape = maker.build()
        quantity = "response-time" if kind == "response" else "waiting-time"
        if len(_BUILT) > 32:
            _BUILT.pop(next(iter(_BUILT)))
        _BUILT[key] = TransformFormula(model, quantity, discipline, built, maker, shape)
    return _BUILT[key]
