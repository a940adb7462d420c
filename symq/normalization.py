r"""Exact normalizing constants, idle probabilities and mean numbers on arbitrary graphs.

Three disciplines of [GR20]_: ``collaborative`` (redundancy with cancel-on-completion, the OI
queue of Thm 3.3), ``alis`` (noncollaborative FCFS-ALIS, Thm 3.9) and ``rais`` (noncollaborative
FCFS with random assignment to idle servers, Thm 3.10, with the *canonical* routing of
``notes/rais-and-aggregation.md`` section 1.3, which equals ALIS in every quantity here).

Everything is computed by dynamic programs over server subsets held as bitmasks (a strict
subset is a smaller integer, so increasing order is a topological order). All of them use only
$+,\times,\div$, so they run unchanged on exact rationals (python-flint's ``fmpq`` when it is
installed, else :class:`fractions.Fraction`) and on sympy rational-function fields (symbolic
rates). Notation (note section 0): for a server set $X$, $R(X)$ the classes with $S_c\subseteq X$,
$r(X)=\mu(X)-\lambda(R(X))$, $L(I)=\lambda(C(I))$.

* **Collaborative** ([GR20]_ Thm 3.3, Props 6.2, 6.3; note section 4.7): the *exact-cover
  weights* $H(\emptyset)=1$, $H(X)=\frac1{r(X)}\sum_{Y\cup S_c=X,\,Y\ne X}\lambda_cH(Y)$ are
  supported on unions of the sets $S_c$ only, so the push DP visits only those unions;
  $G=1/\pi(\emptyset)=\sum_XH(X)$, $P(k\text{ idle})=\sum_{X\not\ni k}H(X)/G$ (Prop 6.2:
  $\psi_k=\pi(\emptyset)/\pi_{\vdash k}(\emptyset)$), and the per-class weights $H_c$ give the mean
  numbers $L_c=\sum_XH_c(X)/G$ (corrected Prop 6.3).
* **ALIS** (Thm 3.9: with idle set $I$ the job queue is the collaborative system $\vdash I$):
  idle-order weights $W(I)=\sum_{s\in I}W(I\setminus s)\mu_s/L(I)$, $\Omega=\zeta W$,
  $G_{\rm ALIS}=\sum_XH(X)\Omega(\mathcal M\setminus X)=1/\pi^{\rm ALIS}(\emptyset,\emptyset)$,
  $P(\emptyset)=W(\mathcal M)/G_{\rm ALIS}$; mean numbers in queue from $H_c$, in service from the
  matching rates $r^q_{c,s}$, $r^{\rm imm}_{c,s}$ of note section 4.7.
* **RAIS** (Thm 5.1 with the forced activation rates of note Theorem 1):
  $\Phi(B)=\widetilde W(\mathcal M\setminus B)/\widetilde W(\mathcal M)$,
  $D(B)=\frac1{r(B)}\sum_{s\in B}D(B\setminus s)$, $G_{\rm RAIS}=1/P(\emptyset)=\sum_B\Phi(B)D(B)$,
  $P(\text{busy set}=B)=\Phi(B)D(B)/G_{\rm RAIS}$ (an independent route from ALIS's).

Structured models avoid the $2^M$ work, and are detected automatically: nested models through
their nesting tree (:mod:`symq.nested`) for the collaborative discipline, and ``redundancy:K:D``
(every $D$-subset of $K$ equal servers, equal class rates) through its symmetry: every table
above depends only on the size of the set, so it becomes a recursion over the number of busy
servers.

Examples
--------
>>> from sympy import latex
>>> from symq import model
>>> from symq.normalization import empty_probability
>>> print(latex(empty_probability(model("n"))))
- \frac{\left(\lambda_{1} - \mu_{1}\right) \left(\lambda_{1} + \lambda_{2} - \mu_{1} - \mu_{2}\right)}{\mu_{1} \left(\lambda_{1} - \mu_{1} - \mu_{2}\right)}
>>> w = model("w").substitute({"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4",
...                            "mu_1": "1", "mu_2": "4/5"})
>>> empty_probability(w, "alis"), empty_probability(w, "rais")
(663/1216, 663/1216)
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy

from .errors import ModelError, UnstableModelError, UnsupportedError
from .model import Model
from .stability import check_stability

__all__ = ["empty_probability", "collaborative_empty_probability", "normalizing_constant",
           "server_idle_probability", "mean_number", "mean_response_time", "method_name",
           "server_removal_empty_probability", "server_removal_mean_number",
           "is_symmetric_redundancy", "DISCIPLINES", "exact_arithmetic"]

DISCIPLINES = ("collaborative", "alis", "rais")

try:  # optional fast exact rationals (the ``fast`` extra)
    from flint import fmpq as _fmpq
except ImportError:  # pragma: no cover - depends on the environment
    _fmpq = None


# ---------------------------------------------------------------------------- arithmetic
@lru_cache(maxsize=64)
def _is_numeric(model: Model) -> bool:
    """``model.is_numeric``, cached (it scans every rate's free symbols)."""
    return model.is_numeric



class _Arithmetic:
    """Exact arithmetic for one model: rationals for numeric rates, a rational-function field
    over QQ in the model's symbols otherwise. ``value(expr)`` converts in, ``expr(x)`` out."""

    def __init__(self, model: Model) -> None:
        self.numeric = _is_numeric(model)
        if self.numeric:
            self.kind = "fmpq" if _fmpq is not None else "Fraction"
            self._make = _fmpq if _fmpq is not None else Fraction
            self.field = None
        else:
            from sympy import QQ
            from sympy.polys.fields import FracField
            self.kind = "rational functions"
            self.field = FracField(sorted(model.symbols, key=lambda s: s.name), QQ)
        self.zero = self.value(0)
        self.one = self.value(1)

    def value(self, expr: Any) -> Any:
        expr = sympy.sympify(expr)
        if self.numeric:
            if not expr.is_Rational:
                raise UnsupportedError(f"the exact algorithms need rational rates, not {expr}; "
                                       "give rates as fractions such as 3/10")
            return self._make(int(expr.p), int(expr.q))
        return self.field.from_expr(expr)

    def expr(self, value: Any) -> sympy.Expr:
        if self.numeric:
            if isinstance(value, Fraction):
                return sympy.Rational(value.numerator, value.denominator)
            return sympy.Rational(int(value.p), int(value.q))
        return sympy.factor(value.as_expr())


def exact_arithmetic() -> str:
    """The exact rational type used for numeric rates: ``"fmpq"`` (python-flint) or ``"Fraction"``."""
    return "fmpq" if _fmpq is not None else "Fraction"


class _Graph:
    """A model as bitmasks: server ``servers[j]`` is bit ``j``; ``masks[c]`` is $S_c$."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.arith = _Arithmetic(model)
        value = self.arith.value
        self.servers = model.servers
        self.classes = model.classes
        index = {s: j for j, s in enumerate(self.servers)}
        self.size = len(self.servers)
        self.full = (1 << self.size) - 1
        self.masks = [sum(1 << index[s] for s in model.compatibility[c]) for c in self.classes]
        self.lam = [value(model.arrival_rates[c]) for c in self.classes]
        self.mu = [value(model.service_rates[s]) for s in self.servers]
        self.lam_total = sum(self.lam, self.arith.zero)
        self.scale = None
        if self.arith.numeric:  # integer rates over a common denominator: fast set sums
            rates = [*model.arrival_rates.values(), *model.service_rates.values()]
            scale = 1
            for r in rates:
                scale = scale * int(r.q) // math.gcd(scale, int(r.q))
            self.scale = scale
            self.lam_int = [int(r.p) * (scale // int(r.q)) for r in model.arrival_rates.values()]
            self.mu_int = [int(r.p) * (scale // int(r.q)) for r in model.service_rates.values()]

    def mu_and_r(self, x: int) -> tuple[Any, Any]:
        r"""$(\mu(X), r(X))$ for one mask, exactly."""
        if self.scale is None:
            mu = self.mu_of(x)
            return mu, mu - self.lam_required(x)
        mu = sum(self.mu_int[j] for j in _bits(x))
        lam = sum(l for l, m in zip(self.lam_int, self.masks) if m & ~x == 0)
        make = self.arith._make
        return make(mu, self.scale), make(mu - lam, self.scale)

    # set functions for one mask (O(M + J))
    def mu_of(self, x: int) -> Any:
        return sum((self.mu[j] for j in _bits(x)), self.arith.zero)

    def lam_required(self, x: int) -> Any:
        return sum((l for l, m in zip(self.lam, self.masks) if m & ~x == 0), self.arith.zero)

    def r_of(self, x: int) -> Any:
        return self.mu_of(x) - self.lam_required(x)


def _bits(x: int) -> list[int]:
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out


# ---------------------------------------------------------------------------- collaborative
class _CollaborativeTables:
    r"""Exact-cover weights $H$ (and $H_c$) on the unions of the class server sets
    (note section 4.7, building block 1)."""

    def __init__(self, graph: _Graph, per_class: bool) -> None:
        self.graph = graph
        zero, one = graph.arith.zero, graph.arith.one
        masks, lam = graph.masks, graph.lam
        classes = range(len(masks))
        self.order = _unions(masks)
        self.r = {}
        self.mu = {}
        weight = {x: zero for x in self.order}
        weight[0] = one
        per = {x: [zero] * len(masks) for x in self.order} if per_class else None
        for x in self.order:
            if x:
                mu_x, r = graph.mu_and_r(x)
                self.r[x] = r
                self.mu[x] = mu_x
                h = weight[x] / r
                weight[x] = h
                if per is not None:
                    required = [c for c in classes if masks[c] & ~x == 0]
                    vec = per[x]
                    for c in required:
                        vec[c] += lam[c] * h
                    per[x] = [v / r for v in vec]
            h = weight[x]
            for c in classes:
                y = x | masks[c]
                if y != x:
                    weight[y] += lam[c] * h
                    if per is not None:
                        src, dst = per[x], per[y]
                        for k in classes:
                            if src[k]:
                                dst[k] += lam[c] * src[k]
                        dst[c] += lam[c] * h
        self.weight = weight
        self.per_class = per
        self.total = sum(weight.values(), zero)

    def suffix_weights(self, tail=None) -> dict[int, Any]:
        r"""$F(Z)=\frac{\mu(Z)}{r(Z)}\bigl[\Omega(Z)+\sum_{c:S_c\not\subseteq Z}\lambda_c
        \frac{F(Z\cup S_c)}{\mu(Z\cup S_c)}\bigr]$ on the unions, decreasing: the weight of all
        continuations of a job sequence whose servers so far are $Z$ (jobs of $R(Z)$ repeat
        geometrically, $1/(1-\alpha(Z))=\mu(Z)/r(Z)$). ``tail(Z)`` weights the final union
        ($\Omega(\mathcal M\setminus Z)$ for ALIS, 1 for the collaborative model); this is $V$ of
        note 4.7."""
        g = self.graph
        masks, lam = g.masks, g.lam
        out = {}
        for x in reversed(self.order):
            acc = g.arith.one if tail is None else tail(x)
            for c, m in enumerate(masks):
                y = x | m
                if y != x:
                    acc += lam[c] * out[y] / self.mu[y]
            out[x] = acc * self.mu[x] / self.r[x] if x else acc
        return out

    def class_sums(self, suffix: dict[int, Any]) -> list[Any]:
        r"""$\sum_Y H(Y)\,\lambda_c\,F(Y\cup S_c)/\mu(Y\cup S_c)$ for every class $c$: each class-$c$
        job of a sequence is counted once, as (prefix, the job, continuation). With $F$ of
        :meth:`suffix_weights` this is $\sum_XH_c(X)\,\text{tail}(X)$ in $O(|\text{unions}|J)$."""
        g = self.graph
        per_rate = {z: f / self.mu[z] for z, f in suffix.items() if z}
        out = []
        for c, m in enumerate(g.masks):
            acc = g.arith.zero
            for y, h in self.weight.items():
                acc += h * per_rate[y | m]
            out.append(g.lam[c] * acc)
        return out

    def zeta(self) -> list[Any]:
        r"""$\hat H(X)=\sum_{Y\subseteq X}H(Y)=1/\pi^C_{\vdash(\mathcal M\setminus X)}(\emptyset)$."""
        g = self.graph
        table = [g.arith.zero] * (g.full + 1)
        for x, h in self.weight.items():
            table[x] = h
        _zeta(table, g.size)
        return table


def _unions(masks: list[int]) -> list[int]:
    """All unions of the class server sets (with the empty set), increasing."""
    reach = {0}
    frontier = [0]
    while frontier:
        new = []
        for x in frontier:
            for m in masks:
                y = x | m
                if y not in reach:
                    reach.add(y)
                    new.append(y)
        frontier = new
    return sorted(reach)


def _check_unions(model: Model, unions: list[int]) -> None:
    r"""Stability $\lambda(A)<\mu(S(A))$ for all class sets $A$ holds iff $\lambda(R(X))<\mu(X)$ for
    every union $X$ of class server sets (bitmasks; for a nested model the tree nodes suffice, as
    their unions are disjoint): $A\subseteq R(S(A))$ and $S(R(X))=X$. Numeric models only.

    Raises
    ------
    UnstableModelError
        Names the classes $R(X)$ and the servers $X$ of a violated inequality.
    """
    if not _is_numeric(model):
        return
    index = {s: j for j, s in enumerate(model.servers)}
    masks = {c: sum(1 << index[s] for s in v) for c, v in model.compatibility.items()}
    scale = math.lcm(*(int(r.q) for r in (*model.arrival_rates.values(),
                                          *model.service_rates.values())))
    lam = {c: int(r.p) * (scale // int(r.q)) for c, r in model.arrival_rates.items()}
    mu = [int(r.p) * (scale // int(r.q)) for r in model.service_rates.values()]
    for x in unions:
        if not x:
            continue
        if sum(mu[j] for j in _bits(x)) > sum(lam[c] for c, m in masks.items() if m & ~x == 0):
            continue
        required = [c for c, m in masks.items() if m & ~x == 0]
        arriving = Fraction(sum(lam[c] for c in required), scale)
        serving = Fraction(sum(mu[j] for j in _bits(x)), scale)
        if not arriving < serving:
            servers = [model.servers[j] for j in _bits(x)]
            raise UnstableModelError(
                f"unstable: classes {{{', '.join(repr(c) for c in required)}}} bring {arriving} "
                f"but their servers {{{', '.join(repr(s) for s in servers)}}} serve only {serving};"
                " lower those arrival rates or raise those service rates")


def _check_stability_fast(model: Model) -> None:
    """The stability check by the cheapest exact route for the model's structure."""
    if not _is_numeric(model):
        return
    if any(not r.is_Rational for r in (*model.arrival_rates.values(),
                                       *model.service_rates.values())):
        check_stability(model)
        return
    index = {s: j for j, s in enumerate(model.servers)}
    masks = sorted({sum(1 << index[s] for s in v) for v in model.compatibility.values()})
    if is_symmetric_redundancy(model):
        # by symmetry only |X| matters: lambda C(k, D) / C(K, D) < k mu for k = 1..K
        K = len(model.servers)
        D = len(next(iter(model.compatibility.values())))
        rate = next(iter(model.arrival_rates.values()))
        mu = next(iter(model.service_rates.values()))
        for k in range(1, K + 1):
            if not rate * math.comb(k, D) < k * mu:
                _check_unions(model, [(1 << k) - 1])
        return
    from .nested import is_nested
    if is_nested(model):
        _check_unions(model, masks)
        return
    unions = _unions(masks)
    if len(unions) > 200_000:
        check_stability(model)
        return
    _check_unions(model, unions)


def _zeta(table: list[Any], size: int) -> None:
    """In place: ``table[X] = sum(table[Y] for Y subset of X)``."""
    n = len(table)
    for j in range(size):
        bit = 1 << j
        for x in range(n):
            if x & bit:
                table[x] = table[x] + table[x ^ bit]


def _collaborative_values(graph: _Graph, per_class: bool, route: str = "suffix") -> dict[str, Any]:
    tables = _CollaborativeTables(graph, per_class and route == "weights")
    g = tables.total
    arith = graph.arith
    out = {"G": g, "empty": arith.one / g}
    idle = {}
    for j, s in enumerate(graph.servers):
        bit = 1 << j
        idle[s] = sum((h for x, h in tables.weight.items() if not x & bit), arith.zero) / g
    out["idle"] = idle
    if per_class and route == "weights":  # per-class exact-cover weights H_c (O(unions J^2))
        sums = [arith.zero] * len(graph.classes)
        for vec in tables.per_class.values():
            for k, v in enumerate(vec):
                sums[k] += v
        out["L"] = {c: sums[k] / g for k, c in enumerate(graph.classes)}
    elif per_class:  # prefix x job x continuation (O(unions J))
        sums = tables.class_sums(tables.suffix_weights())
        out["L"] = {c: sums[k] / g for k, c in enumerate(graph.classes)}
    return out


# ---------------------------------------------------------------------------- ALIS / RAIS
class _IdleTables:
    r"""Full subset tables for the noncollaborative disciplines (note sections 1.2, 4.7):
    $\lambda(R(X))$, $\mu(X)$, $r(X)$, $L(I)$, $\widetilde W(I)$, $W(I)$, $D(B)$."""

    def __init__(self, graph: _Graph) -> None:
        self.graph = graph
        arith = graph.arith
        zero, one = arith.zero, arith.one
        n = graph.full + 1
        lam_req = [zero] * n
        for c, m in enumerate(graph.masks):
            lam_req[m] = lam_req[m] + graph.lam[c]
        _zeta(lam_req, graph.size)
        mu = [zero] * n
        mu_prod = [one] * n
        for x in range(1, n):
            low = x & -x
            j = low.bit_length() - 1
            mu[x] = mu[x ^ low] + graph.mu[j]
            mu_prod[x] = mu_prod[x ^ low] * graph.mu[j]
        self.lam_req, self.mu, self.mu_prod = lam_req, mu, mu_prod
        self.r = [mu[x] - lam_req[x] for x in range(n)]
        full = graph.full
        # L(I) = lambda(C(I)) = lambda - lambda(R(M \ I))
        self.arrivals = [graph.lam_total - lam_req[full ^ x] for x in range(n)]
        tilde = [zero] * n
        tilde[0] = one
        d = [zero] * n
        d[0] = one
        for x in range(1, n):
            bits = _bits(x)
            tilde[x] = sum((tilde[x ^ (1 << j)] for j in bits), zero) / self.arrivals[x]
            d[x] = sum((d[x ^ (1 << j)] for j in bits), zero) / self.r[x]
        self.tilde = tilde  # note (1): idle-order weight without numerators
        self.d = d
        self.phi = [tilde[full ^ x] / tilde[full] for x in range(n)]  # note (2)

    def idle_weights(self) -> list[Any]:
        """$W(I)=\\mu^\\times(I)\\widetilde W(I)$ (Thm 3.9's idle-order factor summed over orders)."""
        return [p * t for p, t in zip(self.mu_prod, self.tilde)]

    def queue_per_class(self, c: int) -> list[Any]:
        r"""$D_c(B)=\frac1{r(B)}\bigl[\sum_sD_c(B\setminus s)+[c\in R(B)]\lambda_cD(B)\bigr]$."""
        g = self.graph
        zero = g.arith.zero
        mask, lam = g.masks[c], g.lam[c]
        out = [zero] * (g.full + 1)
        for x in range(1, g.full + 1):
            acc = sum((out[x ^ (1 << j)] for j in _bits(x)), zero)
            if mask & ~x == 0:
                acc += lam * self.d[x]
            out[x] = acc / self.r[x]
        return out


def _rais_values(graph: _Graph, per_class: bool) -> dict[str, Any]:
    """RAIS route: busy-set law $\\Phi(B)D(B)/G_{\\rm RAIS}$ (Thm 5.1, note (5))."""
    t = _IdleTables(graph)
    arith = graph.arith
    busy_weight = [p * d for p, d in zip(t.phi, t.d)]
    g = sum(busy_weight, arith.zero)
    out = {"G": g, "empty": arith.one / g}
    out["idle"] = {s: sum((w for x, w in enumerate(busy_weight) if not x >> j & 1), arith.zero) / g
                   for j, s in enumerate(graph.servers)}
    if per_class:
        queue = {}
        for k, c in enumerate(graph.classes):
            dc = t.queue_per_class(k)
            queue[c] = sum((p * v for p, v in zip(t.phi, dc)), arith.zero) / g
        service = _alis_in_service(graph, t, _CollaborativeTables(graph, False))
        out["L"] = {c: queue[c] + service[c] for c in graph.classes}
        out["LQ"] = queue
    return out


def _alis_values(graph: _Graph, per_class: bool) -> dict[str, Any]:
    """ALIS route: $G_{\\rm ALIS}=\\sum_XH(X)\\Omega(\\mathcal M\\setminus X)$ (Thm 3.9)."""
    t = _IdleTables(graph)
    coll = _CollaborativeTables(graph, False)
    arith = graph.arith
    full = graph.full
    w = t.idle_weights()
    omega = list(w)
    _zeta(omega, graph.size)
    g = sum((h * omega[full ^ x] for x, h in coll.weight.items()), arith.zero)
    out = {"G": g, "empty": w[full] / g, "W": w[full]}
    h_hat = coll.zeta()
    idle_law = [w[i] * h_hat[full ^ i] for i in range(full + 1)]
    out["idle"] = {s: sum((v for i, v in enumerate(idle_law) if i >> j & 1), arith.zero) / g
                   for j, s in enumerate(graph.servers)}
    if per_class:
        v = coll.suffix_weights(lambda x: omega[full ^ x])
        sums = coll.class_sums(v)
        queue = {c: sums[k] / g for k, c in enumerate(graph.classes)}
        service = _alis_in_service(graph, t, coll, omega=omega, h_hat=h_hat, g=g, v=v)
        out["L"] = {c: queue[c] + service[c] for c in graph.classes}
        out["LQ"] = queue
    return out


def matching_rates(graph: _Graph, t: _IdleTables, coll: _CollaborativeTables,
                   omega=None, h_hat=None, g=None, v=None) -> dict[tuple[str, str], Any]:
    r"""Matching rates $r_{c,s}=r^q_{c,s}+r^{\rm imm}_{c,s}$ of ALIS (= canonical RAIS), note 4.7.

    $r^q_{c,s}=\frac{\lambda_c\mu_s}{G}\sum_{A\not\ni s}H(A)\frac{V(A\cup S_c)}{\mu(A\cup S_c)}$,
    $V(X)=\frac{\mu(X)}{r(X)}\bigl[\Omega(\mathcal M\setminus X)+\sum_{c'}\lambda_{c'}
    \frac{V(X\cup S_{c'})}{\mu(X\cup S_{c'})}\bigr]$;
    $r^{\rm imm}_{c,s}=\frac{\lambda_c}G\sum_{P\subseteq\mathcal M\setminus S_c}W(P)
    \frac{\mu_sY(P\cup s)}{L(P\cup s)}$, $Y(Q)=\hat H(\mathcal M\setminus Q)+\sum_{t\notin Q}
    \frac{\mu_tY(Q\cup t)}{L(Q\cup t)}$.
    """
    arith = graph.arith
    zero = arith.zero
    full = graph.full
    w = t.idle_weights()
    if omega is None:
        omega = list(w)
        _zeta(omega, graph.size)
    if h_hat is None:
        h_hat = coll.zeta()
    if g is None:
        g = sum((h * omega[full ^ x] for x, h in coll.weight.items()), zero)
    masks, lam, mu = graph.masks, graph.lam, graph.mu
    if v is None:  # V over the unions of class sets, decreasing
        v = coll.suffix_weights(lambda x: omega[full ^ x])
    # Y over all idle sets, decreasing
    y_table = [zero] * (full + 1)
    for q in range(full, -1, -1):
        acc = h_hat[full ^ q]
        rest = full ^ q
        for j in _bits(rest):
            u = q | (1 << j)
            acc += mu[j] * y_table[u] / t.arrivals[u]
        y_table[q] = acc
    rates = {}
    for c, m in enumerate(masks):
        for j in _bits(m):
            s_bit = 1 << j
            queued = sum((h * v[a | m] / t.mu[a | m] for a, h in coll.weight.items()
                          if not a & s_bit), zero)
            queued = lam[c] * mu[j] * queued / g
            immediate = zero
            outside = full & ~m
            p = outside
            while True:  # all P subset of M \ S_c
                u = p | s_bit
                immediate += w[p] * mu[j] * y_table[u] / t.arrivals[u]
                if p == 0:
                    break
                p = (p - 1) & outside
            rates[graph.classes[c], graph.servers[j]] = queued + lam[c] * immediate / g
    return rates


def _alis_in_service(graph, t, coll, **known) -> dict[str, Any]:
    rates = matching_rates(graph, t, coll, **known)
    mu = dict(zip(graph.servers, graph.mu))
    out = {c: graph.arith.zero for c in graph.classes}
    for (c, s), rate in rates.items():
        out[c] += rate / mu[s]
    return out


# ---------------------------------------------------------------------------- redundancy:K:D
def is_symmetric_redundancy(model: Model) -> bool:
    """True for ``redundancy:K:D`` shapes: the classes are exactly the D-subsets of the servers
    (each once), all class rates equal and all server rates equal."""
    servers = model.servers
    sets = {frozenset(s) for s in model.compatibility.values()}
    if len(sets) != len(model.classes):
        return False
    degree = len(next(iter(sets)))
    if any(len(s) != degree for s in sets) or len(sets) != math.comb(len(servers), degree):
        return False
    lam = set(model.arrival_rates.values())
    mu = set(model.service_rates.values())
    return len(lam) == 1 and len(mu) == 1


def _redundancy_values(model: Model, discipline: str, per_class: bool) -> dict[str, Any]:
    r"""Every table of the subset DPs depends only on the size of the set (symmetry).

    With $K$ servers, $N=\binom KD$ classes of rate $\lambda/N$: $\lambda(R(X))=\lambda\binom kD/N$,
    $L(I)=\lambda(1-\binom{K-i}D/N)$; $H$ by sizes: a set $Y$ of size $k'$ is the union of $X$
    (size $k$) and a class set in $\binom{k'}k\binom k{D-(k'-k)}$ ways.
    """
    arith = _Arithmetic(model)
    K, D = len(model.servers), len(next(iter(model.compatibility.values())))
    N = math.comb(K, D)
    lam = arith.value(next(iter(model.arrival_rates.values()))) * N
    mu = arith.value(next(iter(model.service_rates.values())))
    zero, one = arith.zero, arith.one
    lam_req = [lam * math.comb(k, D) / N for k in range(K + 1)]
    r = [k * mu - lam_req[k] for k in range(K + 1)]
    out: dict[str, Any] = {}
    if discipline == "collaborative":
        h = [zero] * (K + 1)
        h_tot = [zero] * (K + 1)
        h[0] = one
        per = lam / N
        for k2 in range(1, K + 1):
            acc = zero
            acc_tot = zero
            for k in range(max(0, k2 - D), k2):
                ways = math.comb(k2, k) * math.comb(k, D - (k2 - k))
                if ways:
                    acc += ways * per * h[k]
                    acc_tot += ways * per * (h_tot[k] + h[k])
            h[k2] = acc / r[k2]
            h_tot[k2] = (acc_tot + lam_req[k2] * h[k2]) / r[k2]
        g = sum((math.comb(K, k) * h[k] for k in range(K + 1)), zero)
        out["G"] = g
        out["empty"] = one / g
        idle = sum((math.comb(K - 1, k) * h[k] for k in range(K)), zero) / g
        total = sum((math.comb(K, k) * h_tot[k] for k in range(K + 1)), zero) / g
    else:
        arrivals = [lam - lam_req[K - i] for i in range(K + 1)]
        tilde = [one] + [zero] * K
        d = [one] + [zero] * K
        d_tot = [zero] * (K + 1)
        for i in range(1, K + 1):
            tilde[i] = i * tilde[i - 1] / arrivals[i]
            d[i] = i * d[i - 1] / r[i]
            d_tot[i] = (i * d_tot[i - 1] + lam_req[i] * d[i]) / r[i]
        phi = [tilde[K - b] / tilde[K] for b in range(K + 1)]
        busy = [math.comb(K, b) * phi[b] * d[b] for b in range(K + 1)]
        g = sum(busy, zero)
        out["G"] = g * mu ** K * tilde[K] if discipline == "alis" else g
        out["empty"] = one / g
        mean_busy = sum((b * busy[b] for b in range(K + 1)), zero) / g
        idle = one - mean_busy / K
        queue = sum((math.comb(K, b) * phi[b] * d_tot[b] for b in range(K + 1)), zero) / g
        total = queue + mean_busy
    out["idle"] = {s: idle for s in model.servers}
    out["L"] = {c: total / N for c in model.classes}
    out["arith"] = arith
    return out


# ---------------------------------------------------------------------------- dispatch
def _check_discipline(discipline: str) -> None:
    if discipline not in DISCIPLINES:
        raise ModelError(f"unknown discipline {discipline!r}; available: {', '.join(DISCIPLINES)}")


def method_name(model: Model, discipline: str, quantity: str = "empty-probability") -> str:
    """The algorithm :func:`_values` uses for ``model`` (named in the CLI output)."""
    _check_discipline(discipline)
    routing = "" if discipline != "rais" else \
        "; RAIS with the canonical (ALIS-averaged) routing of notes/rais-and-aggregation.md 1.3"
    if is_symmetric_redundancy(model) and model.classes:
        return "redundancy:K:D symmetry: recursion over the number of busy servers" + routing
    from .nested import is_nested
    if discipline == "collaborative" and is_nested(model):
        return "nested closed form through the nesting tree (Thm 4.5, prod(1 - rho_S))"
    if discipline == "collaborative":
        return ("subset DP over unions of class server sets (exact-cover weights H, "
                "Prop 6.2 / corrected Prop 6.3, note 4.7)")
    if discipline == "alis":
        return ("subset DP: idle-order weights W and collaborative H (Thm 3.9, note 4.7)"
                + ("; matching rates for jobs in service" if quantity.startswith("mean") else ""))
    return ("subset DP: busy-set law Phi(B) D(B) (Thm 5.1, note Theorem 1 and 4.7)" + routing)


def _values(model: Model, discipline: str, per_class: bool = False) -> tuple[dict, Any]:
    _check_discipline(discipline)
    if model.is_empty:
        raise ModelError("the model has no class; give it at least one class and server")
    _check_stability_fast(model)
    if is_symmetric_redundancy(model):
        out = _redundancy_values(model, discipline, per_class)
        return out, out["arith"]
    from .nested import is_nested
    if discipline == "collaborative" and is_nested(model):
        from .nested import nested_means
        return nested_means(model), None
    graph = _Graph(model)
    if discipline == "collaborative":
        return _collaborative_values(graph, per_class), graph.arith
    if discipline == "alis":
        return _alis_values(graph, per_class), graph.arith
    return _rais_values(graph, per_class), graph.arith


def _as_expr(value: Any, arith) -> sympy.Expr:
    if arith is None:
        value = sympy.sympify(value)
        return sympy.factor(value) if value.free_symbols else value
    return arith.expr(value)


def empty_probability(model: Model, discipline: str = "collaborative") -> sympy.Expr:
    """Probability that no job is in the system, exact (module docstring gives the algorithms).

    Parameters
    ----------
    model : Model
    discipline : ``"collaborative"``, ``"alis"`` or ``"rais"``

    Raises
    ------
    ModelError
        An unknown discipline, a model without classes.
    UnstableModelError
        Numeric rates that violate $\\lambda(A) < \\mu(S(A))$.
    UnsupportedError
        Numeric rates that are not rational.
    """
    values, arith = _values(model, discipline)
    return _as_expr(values["empty"], arith)


def normalizing_constant(model: Model, discipline: str = "collaborative") -> sympy.Expr:
    r"""$G$ with $\pi(\text{state})=\text{product-form term}/G$.

    collaborative (Thm 3.3): $G=1/\pi(\emptyset)$; ALIS (Thm 3.9, states (waiting classes, idle
    order)): $G_{\rm ALIS}=1/\pi(\emptyset,\emptyset)$ (note 4.7, so $P(\emptyset)=W(\mathcal
    M)/G_{\rm ALIS}$); RAIS (Thm 3.10): $G_{\rm RAIS}=1/\pi(\emptyset)$.
    """
    values, arith = _values(model, discipline)
    return _as_expr(values["G"], arith)


def server_idle_probability(model: Model, discipline: str = "collaborative") -> dict[str, Any]:
    """``{"per_server": {server: P(server idle)}}``."""
    values, arith = _values(model, discipline)
    return {"per_server": {s: _as_expr(v, arith) for s, v in values["idle"].items()}}


def mean_number(model: Model, discipline: str = "collaborative") -> dict[str, Any]:
    """Mean number of jobs in the system: ``{"total": L, "per_class": {class: L_c}}``."""
    values, arith = _values(model, discipline, per_class=True)
    per_class = {c: _as_expr(v, arith) for c, v in values["L"].items()}
    total = sum(values["L"].values(), arith.zero) if arith is not None else \
        sum(values["L"].values())
    return {"total": _as_expr(total, arith), "per_class": per_class}


def mean_response_time(model: Model, discipline: str = "collaborative") -> dict[str, Any]:
    """Mean time in system by Little's law: $T_c=L_c/\\lambda_c$, overall $T=L/\\lambda$."""
    values, arith = _values(model, discipline, per_class=True)
    lam = model.arrival_rates
    if arith is None:
        per_class = {c: sympy.factor(sympy.sympify(v) / lam[c]) for c, v in values["L"].items()}
        total = sympy.factor(sum(values["L"].values()) / model.arrival_rate())
        return {"total": total, "per_class": per_class}
    per_class = {c: arith.expr(v / arith.value(lam[c])) for c, v in values["L"].items()}
    total = sum(values["L"].values(), arith.zero) / arith.value(model.arrival_rate())
    return {"total": arith.expr(total), "per_class": per_class}


# ---------------------------------------------------------------------------- second routes
def server_removal_empty_probability(model: Model) -> sympy.Expr:
    r"""$\pi(\emptyset)$ of the collaborative model by the recursion of [GR20]_ Prop 6.2,
    $\pi(\emptyset)=(\mu-\lambda)/\sum_k\mu_k/\pi_{\vdash k}(\emptyset)$, memoized over the class
    sets that removals leave (the plain route; a second route for tests and benchmarks)."""
    return collaborative_empty_probability(model)


def collaborative_empty_probability(model: Model) -> sympy.Expr:
    """$\\pi(\\emptyset)$ of the collaborative model by [GR20]_ Proposition 6.2 (memoized over
    frozensets of classes, on :class:`fractions.Fraction` or cancelled sympy expressions).

    Raises
    ------
    UnstableModelError
        Numeric rates that violate $\\lambda(A) < \\mu(S(A))$.
    """
    check_stability(model)
    if model.is_empty:
        return sympy.Integer(1)
    inverse, _, _ = _server_removal(model, with_means=False)
    result = inverse(frozenset(model.classes))
    if _is_numeric(model):
        return sympy.Rational(result.denominator, result.numerator)
    return sympy.factor(1 / result)


def _server_removal(model: Model, with_means: bool):
    classes = model.classes
    servers_of = {i: frozenset(model.compatibility[i]) for i in classes}
    classes_of = {j: frozenset(model.classes_of([j])) for j in model.servers}
    numeric = _is_numeric(model)

    def convert(x):
        return Fraction(int(x.p), int(x.q)) if numeric else x
    lam = {i: convert(model.arrival_rates[i]) for i in classes}
    mu = {j: convert(model.service_rates[j]) for j in model.servers}
    zero = Fraction(0) if numeric else sympy.Integer(0)
    one = Fraction(1) if numeric else sympy.Integer(1)
    simplify = (lambda x: x) if numeric else sympy.cancel

    def servers(remaining):
        return frozenset().union(*(servers_of[i] for i in remaining))

    def capacity(remaining):
        return sum((mu[j] for j in servers(remaining)), zero) - sum((lam[i] for i in remaining), zero)

    @lru_cache(maxsize=None)
    def inverse_empty(remaining: frozenset) -> Any:
        # 1 / pi(empty) of the system made of the classes `remaining` (Prop 6.2, inverted)
        if not remaining:
            return one
        total = sum((mu[j] * inverse_empty(remaining - classes_of[j]) for j in servers(remaining)),
                    zero)
        return simplify(total / capacity(remaining))

    @lru_cache(maxsize=None)
    def means(remaining: frozenset) -> dict[str, Any]:
        # corrected Prop 6.3: L_i = (lambda_i + sum_{k not in S_i} mu_k psi_k L_{i|-k}) / (mu - lambda)
        if not remaining:
            return {}
        cap = capacity(remaining)
        inv = inverse_empty(remaining)
        out = {}
        for i in remaining:
            acc = lam[i]
            for k in servers(remaining) - servers_of[i]:
                reduced = remaining - classes_of[k]
                psi = inverse_empty(reduced) / inv
                acc += mu[k] * psi * means(reduced).get(i, zero)
            out[i] = simplify(acc / cap)
        return out
    return inverse_empty, means, None


def server_removal_mean_number(model: Model) -> dict[str, sympy.Expr]:
    r"""Per-class mean numbers of the collaborative model by [GR20]_ Prop 6.3 *corrected*:
    $L_i=\bigl(\lambda_i+\sum_{k\notin S_i}\mu_k\psi_kL_{i\vdash k}\bigr)/(\mu-\lambda)$ (the
    printed sum over $k\in S_i$ is wrong: every term vanishes). Memoized over class sets."""
    check_stability(model)
    _, means, _ = _server_removal(model, with_means=True)
    result = means(frozenset(model.classes))
    if _is_numeric(model):
        return {i: sympy.Rational(v.numerator, v.denominator) for i, v in result.items()}
    return {i: sympy.factor(v) for i, v in result.items()}
