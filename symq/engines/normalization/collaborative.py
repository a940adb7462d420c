r"""The collaborative discipline (redundancy with cancel-on-completion, [GR20]_ Thm 3.3): the
exact-cover subset DP over unions of class server sets (Props 6.2 and 6.3 in their DP form) and,
as an independent second route, the memoized server-removal recursions of Prop 6.2 and of the
corrected Prop 6.3 over class sets (the weights $H(X)$ and their sums are written out in
docs/theory-subset-dp.md, sections 4.5-4.7).

Examples
--------
>>> from symq import example_model
>>> from symq.engines.normalization.collaborative import collaborative_values, server_removal_mean_number
>>> from symq.engines.normalization.subsets import SubsetGraph
>>> n = example_model("n")
>>> str(collaborative_values(SubsetGraph(n), per_class=False)["empty"])
'9/14'
>>> sorted(server_removal_mean_number(n).items())
[('1', 5/14), ('2', 1/6)]
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import sympy

from symq.arithmetic.exact import rational, to_sympy
from symq.models.model import Model
from symq.models.stability import check_stability
from symq.engines.normalization.subsets import SubsetGraph, is_numeric, union_rates, unions, zeta

__all__ = ["CollaborativeTables", "collaborative_values", "collaborative_empty_probability",
           "server_removal_mean_number"]


class CollaborativeTables:
    r"""Exact-cover weights $H$ (and, if ``per_class``, $H_c$) on the unions of class server sets.

    Parameters
    ----------
    graph : SubsetGraph
    per_class : bool
        Also build the per-class weights $H_c$ (O(U J^2) instead of O(U J) for U unions).
    """

    def __init__(self, graph: SubsetGraph, per_class: bool) -> None:
        self.graph = graph
        zero, one = graph.arith.zero, graph.arith.one
        masks, lam = graph.masks, graph.lam
        classes = range(len(masks))
        self.order = unions(masks)
        if graph.scale is not None:  # exact integer set sums, one conversion each
            mus, lams = union_rates(graph, self.order)
            make, scale = graph.arith.make, graph.scale
            self.mu = {x: make(m, scale) for x, m in zip(self.order, mus) if x}
            self.r = {x: make(m - l, scale) for x, m, l in zip(self.order, mus, lams) if x}
        else:
            self.mu, self.r = {}, {}
            for x in self.order[1:]:
                self.mu[x], self.r[x] = graph.mu_and_r(x)
        weight = {x: zero for x in self.order}
        weight[0] = one
        per = {x: [zero] * len(masks) for x in self.order} if per_class else None
        for x in self.order:
            if x:
                r = self.r[x]
                h = weight[x] / r
                weight[x] = h
                if per is not None:
                    vec = per[x]
                    for c in classes:
                        if masks[c] & ~x == 0:
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
        r"""$F(Z)=\frac{\mu(Z)}{r(Z)}\bigl[\text{tail}(Z)+\sum_{c:S_c\not\subseteq Z}\lambda_c
        \frac{F(Z\cup S_c)}{\mu(Z\cup S_c)}\bigr]$ on the unions, decreasing: the weight of all
        continuations of a job sequence whose servers so far are $Z$ (jobs of $R(Z)$ repeat
        geometrically, $1/(1-\alpha(Z))=\mu(Z)/r(Z)$). ``tail(Z)`` weights the final union
        ($\Omega(\mathcal M\setminus Z)$ for ALIS, 1 for the collaborative model)."""
        g = self.graph
        masks, lam = g.masks, g.lam
        out = {}
        per_rate = {}  # F(Y) / mu(Y), once per union
        for x in reversed(self.order):
            acc = g.arith.one if tail is None else tail(x)
            for c, m in enumerate(masks):
                y = x | m
                if y != x:
                    acc += lam[c] * per_rate[y]
            if x:
                per_rate[x] = acc / self.r[x]
                out[x] = per_rate[x] * self.mu[x]
            else:
                out[x] = acc
        self._per_rate = (out, per_rate)
        return out

    def class_sums(self, suffix: dict[int, Any]) -> list[Any]:
        r"""$\sum_Y H(Y)\,\lambda_c\,F(Y\cup S_c)/\mu(Y\cup S_c)$ for every class $c$: each class-$c$
        job of a sequence is counted once, as (prefix, the job, continuation); with $F$ of
        :meth:`suffix_weights` this is $\sum_XH_c(X)\,\text{tail}(X)$ in O(U J)."""
        g = self.graph
        cached = getattr(self, "_per_rate", None)
        if cached is not None and cached[0] is suffix:
            per_rate = cached[1]
        else:
            per_rate = {z: f / self.mu[z] for z, f in suffix.items() if z}
        if getattr(g.arith, "kind", None) == "fmpq":
            fast = _integer_class_sums(self.weight, per_rate, g.masks, g.lam)
            if fast is not None:
                return fast
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
        zeta(table, g.size)
        return table


def _integer_class_sums(weight: dict[int, Any], per_rate: dict[int, Any], masks: list[int],
                        lam: list[Any]) -> list[Any] | None:
    r""":meth:`CollaborativeTables.class_sums` for ``fmpq`` values without a gcd per step: both
    tables are written over their common denominators $D_H$, $D_P$ (the lcm of the
    denominators, about as long as the longest one), so every class sum
    $\sum_YH(Y)P(Y\cup S_c)$ is one integer dot product $\sum_Y(D_HH(Y))(D_PP(Y\cup S_c))$
    of ``fmpz`` values, divided by $D_HD_P$ once; exactly the same rationals. None without
    numpy."""
    try:
        import numpy as np
        from flint import fmpq, fmpz
    except ImportError:  # pragma: no cover - numpy and python-flint are core dependencies
        return None
    ys, hs = list(weight), list(weight.values())
    if not ys or max(ys) >= 1 << 62:  # int64 masks
        return None
    zs = sorted(per_rate)
    h_den = [int(h.q) for h in hs]
    p_den = [int(per_rate[z].q) for z in zs]
    d_h, d_p = math.lcm(*h_den), math.lcm(*p_den)
    scaled_h = np.array([fmpz(int(h.p) * (d_h // q)) for h, q in zip(hs, h_den)], dtype=object)
    scaled_p = np.array([fmpz(int(per_rate[z].p) * (d_p // q)) for z, q in zip(zs, p_den)],
                        dtype=object)
    z_arr, y_arr = np.array(zs, dtype=np.int64), np.array(ys, dtype=np.int64)
    denominator = fmpq(d_h * d_p, 1)
    out = []
    for c, m in enumerate(masks):
        total = (scaled_h * scaled_p[np.searchsorted(z_arr, y_arr | m)]).sum()
        out.append(lam[c] * (fmpq(total, 1) / denominator))
    return out


def collaborative_values(graph: SubsetGraph, per_class: bool, route: str = "suffix",
                         idle: bool = True) -> dict[str, Any]:
    r"""$G$, $\pi(\emptyset)$, per-server idle probabilities and (if ``per_class``) the mean
    numbers $L_c$ of the collaborative model by the exact-cover DP ([GR20]_ Thm 3.3, Props 6.2,
    6.3 corrected).

    Parameters
    ----------
    graph : SubsetGraph
    per_class : bool
        Compute the mean numbers ``"L"``.
    route : ``"suffix"`` or ``"weights"``
        Mean numbers by prefix x job x continuation (O(U J)) or by the per-class weights $H_c$
        (O(U J^2)); two routes for the tests.
    idle : bool
        Compute the idle probabilities (``"idle"`` is ``None`` otherwise; O(U M)).

    Returns
    -------
    dict
        ``{"G", "empty", "idle": {server: p}, "L": {class: L_c}}`` as field elements.

    Examples
    --------
    >>> from symq import example_model
    >>> from symq.engines.normalization.subsets import SubsetGraph
    >>> out = collaborative_values(SubsetGraph(example_model("n")), per_class=True)
    >>> out["G"], out["idle"]["2"], out["L"]
    (14/9, 6/7, {'1': 5/14, '2': 1/6})

    Running time: O(U (M + J)) for U unions of class server sets.
    """
    tables = CollaborativeTables(graph, per_class and route == "weights")
    g = tables.total
    arith = graph.arith
    out = {"G": g, "empty": arith.one / g}
    out["idle"] = None
    if idle:
        items = list(tables.weight.items())
        out["idle"] = {s: sum([h for x, h in items if not x >> j & 1], arith.zero) / g
                       for j, s in enumerate(graph.servers)}
    if per_class and route == "weights":
        sums = [arith.zero] * len(graph.classes)
        for vec in tables.per_class.values():
            for k, v in enumerate(vec):
                sums[k] += v
        out["L"] = {c: sums[k] / g for k, c in enumerate(graph.classes)}
    elif per_class:
        sums = tables.class_sums(tables.suffix_weights())
        out["L"] = {c: sums[k] / g for k, c in enumerate(graph.classes)}
    return out


# ---------------------------------------------------------------------------- server removal
def _server_removal(model: Model):
    """The memoized recursions over class sets (Fractions, or cancelled sympy expressions)."""
    classes = model.classes
    servers_of = {i: frozenset(model.compatibility[i]) for i in classes}
    classes_of = {j: frozenset(model.classes_of([j])) for j in model.servers}
    numeric = is_numeric(model)
    convert = rational if numeric else (lambda x: x)
    lam = {i: convert(model.arrival_rates[i]) for i in classes}
    mu = {j: convert(model.service_rates[j]) for j in model.servers}
    zero = rational(0) if numeric else sympy.Integer(0)
    one = rational(1) if numeric else sympy.Integer(1)
    simplify = (lambda x: x) if numeric else sympy.cancel

    def servers(remaining):
        return frozenset().union(*(servers_of[i] for i in remaining))

    @lru_cache(maxsize=None)
    def parts(remaining: frozenset) -> tuple[frozenset, ...]:
        # the connected components (classes linked by shared servers): the law factors over them
        left, out = set(remaining), []
        while left:
            stack = [left.pop()]
            part = set(stack)
            while stack:
                for j in servers_of[stack.pop()]:
                    for i in classes_of[j]:
                        if i in left:
                            left.discard(i)
                            part.add(i)
                            stack.append(i)
            out.append(frozenset(part))
        return tuple(out)

    def capacity(remaining):
        return sum((mu[j] for j in servers(remaining)), zero) - sum((lam[i] for i in remaining), zero)

    @lru_cache(maxsize=None)
    def inverse_empty(remaining: frozenset) -> Any:
        # 1 / pi(empty) of the system made of the classes `remaining` (Prop 6.2, inverted)
        if not remaining:
            return one
        split = parts(remaining)
        if len(split) > 1:  # pi(0) is the product over components
            product = one
            for part in split:
                product = product * inverse_empty(part)
            return simplify(product)
        total = sum((mu[j] * inverse_empty(remaining - classes_of[j]) for j in servers(remaining)),
                    zero)
        return simplify(total / capacity(remaining))

    @lru_cache(maxsize=None)
    def means(remaining: frozenset) -> dict[str, Any]:
        # corrected Prop 6.3: L_i = (lambda_i + sum_{k not in S_i} mu_k psi_k L_{i|-k}) / (mu - lambda)
        if not remaining:
            return {}
        split = parts(remaining)
        if len(split) > 1:  # each class's mean number is that of its component
            return {i: v for part in split for i, v in means(part).items()}
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
    return inverse_empty, means


def collaborative_empty_probability(model: Model) -> sympy.Expr:
    r"""$\pi(\emptyset)$ of the collaborative model by the server-removal recursion of [GR20]_
    Prop 6.2, $\pi(\emptyset)=(\mu-\lambda)/\sum_k\mu_k/\pi_{\vdash k}(\emptyset)$, memoized over
    the class sets that removals leave. This is the plain route, independent of the subset DP:
    ``empty_probability(model, method="server-removal")`` calls it.

    Parameters
    ----------
    model : Model
        Numeric (rational) or symbolic rates.

    Returns
    -------
    sympy.Expr
        A ``Rational``, or a factored rational function.

    Raises
    ------
    UnstableModelError
        Numeric rates that violate $\lambda(A) < \mu(S(A))$.

    Examples
    --------
    >>> from symq import example_model
    >>> collaborative_empty_probability(example_model("n"))
    9/14

    Running time: O(K M) operations for K class sets reachable by removing servers (up to 2^J).
    """
    check_stability(model)
    if model.is_empty:
        return sympy.Integer(1)
    inverse, _ = _server_removal(model)
    result = inverse(frozenset(model.classes))
    if is_numeric(model):
        return to_sympy(1 / result)
    return sympy.factor(1 / result)


def server_removal_mean_number(model: Model) -> dict[str, sympy.Expr]:
    r"""Per-class mean numbers of the collaborative model by [GR20]_ Prop 6.3 *corrected*,
    $L_i=\bigl(\lambda_i+\sum_{k\notin S_i}\mu_k\psi_kL_{i\vdash k}\bigr)/(\mu-\lambda)$ (the
    printed sum over $k\in S_i$ is wrong: every term vanishes), memoized over class sets; the
    second route of ``mean_number(model, method="server-removal")``.

    Parameters
    ----------
    model : Model
        A model with numeric or symbolic rates.

    Returns
    -------
    dict
        ``{class: L_c}``, exact.

    Raises
    ------
    UnstableModelError
        Numeric rates with $\lambda(A) \ge \mu(S(A))$ for a class set $A$, as for
        :func:`collaborative_empty_probability`.

    Examples
    --------
    >>> import symq
    >>> server_removal_mean_number(symq.example_model("n"))["1"]
    5/14

    Running time: O(K M J) for K reachable class sets.
    """
    check_stability(model)
    _, means = _server_removal(model)
    result = means(frozenset(model.classes))
    if is_numeric(model):
        return {i: to_sympy(v) for i, v in result.items()}
    return {i: sympy.factor(v) for i, v in result.items()}
