r"""Rings (class $i$ compatible with servers $i$ and $i+1 \bmod M$, the built-in ``ring:M``) in
the collaborative discipline: $G=1/\pi(\emptyset)$, the idle probabilities ([GR20]_ Prop 6.2,
by removing one server) and the mean numbers (by one reverse, adjoint pass) in $O(M^3)$
operations instead of the general subset DP over the unions of class server sets (whose number
grows like $1.6^M$), from the collaborative product form aggregated over the order of the jobs,
which factors over the arcs of the class set; every term is a product of positive rates divided
by positive slacks, so the recursions are safe in ball arithmetic as well. The derivation: see
docs/quantities.md.

Examples
--------
>>> from symq import example_model
>>> from symq.engines.normalization.ring import ring_order, ring_values
>>> r = example_model("ring:3", {f"lambda_{i}": "1/2" for i in "123"})
>>> ring_order(r)
(['1', '2', '3'], ['1', '2', '3'])
>>> out = ring_values(r, per_class=True)
>>> str(out["empty"]), str(out["L"]["1"])
('3/8', '4/9')
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from symq.arithmetic.exact import ExactField, to_fraction
from symq.models.model import Model

__all__ = ["ring_order", "is_ring", "ring_values"]


def ring_order(model: Model) -> tuple[list[str], list[str]] | None:
    """The cyclic order of a ring model: servers $v_0,\\dots,v_{M-1}$ and classes
    $e_0,\\dots,e_{M-1}$ with $S(e_i)=\\{v_i,v_{i+1 \\bmod M}\\}$; ``None`` when the compatibility
    graph is not one cycle of $M\\ge 3$ servers and $M$ classes of two servers each.

    Parameters
    ----------
    model : Model
        The graph to test; rates are ignored.

    Returns
    -------
    tuple or None
        ``(servers in cycle order, classes in cycle order)``.

    Examples
    --------
    >>> from symq import model
    >>> ring_order(model("ring:4"))
    (['1', '2', '3', '4'], ['1', '2', '3', '4'])
    >>> ring_order(model("w")) is None
    True

    Running time: O(M).
    """
    servers, classes = list(model.servers), list(model.classes)
    m = len(servers)
    if m < 3 or len(classes) != m:
        return None
    sets = {c: tuple(model.compatibility[c]) for c in classes}
    if any(len(set(s)) != 2 for s in sets.values()):
        return None
    at: dict[str, list[str]] = {j: [] for j in servers}
    for c, (a, b) in sets.items():
        at[a].append(c)
        at[b].append(c)
    if any(len(v) != 2 for v in at.values()):
        return None
    order, edges = [servers[0]], []
    previous = None
    while True:
        here = order[-1]
        c = at[here][0] if at[here][0] != previous else at[here][1]
        a, b = sets[c]
        nxt = b if a == here else a
        edges.append(c)
        previous = c
        if nxt == order[0]:
            break
        if nxt in order:
            return None
        order.append(nxt)
    return (order, edges) if len(order) == m else None


def is_ring(model: Model) -> bool:
    """True when :func:`ring_order` finds a ring.

    Parameters
    ----------
    model : Model
        The graph to test.

    Returns
    -------
    bool
        Whether ``model`` is one cycle of servers joined by two-server classes.

    Examples
    --------
    >>> from symq import model
    >>> is_ring(model("ring:5")), is_ring(model("n"))
    (True, False)

    Running time: O(M), that of :func:`ring_order`.
    """
    return ring_order(model) is not None


def _forward(lam: list, mu: list, c: list, ccyc: Any, one: Any, zero: Any):
    m = len(mu)
    F = [[one] + [zero] * (m - 1) for _ in range(m)]  # F[s][k]: arc from server s, k edges
    for k in range(1, m):
        for s in range(m):
            acc = zero
            for j in range(k):
                acc += lam[(s + j) % m] * F[s][j] * F[(s + j + 1) % m][k - 1 - j]
            F[s][k] = acc / c[s][k]
    L = []  # L[a][t]: sum over edge subsets of the line e_a..e_{a+t-1} of prod F(runs)
    for a in range(m):
        row = [one]
        for t in range(1, m):
            b = a + t - 1
            v = row[t - 1]
            for k in range(1, t + 1):
                v += F[(b - k + 1) % m][k] * (row[t - k - 1] if t - k - 1 >= 0 else one)
            row.append(v)
        L.append(row)
    fcyc = sum((lam[i] * F[(i + 1) % m][m - 1] for i in range(m)), zero) / ccyc
    g = fcyc
    for first in range(m):  # first and last missing edge; the run through edge 0 between them
        for last in range(first, m):
            t = last - first - 1
            inner = L[(first + 1) % m][t] if t >= 0 else one
            g += F[(last + 1) % m][m - 1 - last + first] * inner
    return F, L, fcyc, g


def _adjoint(lam, c, ccyc, F, L, fcyc, one, zero):
    """d G / d lambda_e for every edge e (reverse pass over :func:`_forward`)."""
    m = len(lam)
    Fb = [[zero] * m for _ in range(m)]
    Lb = [[zero] * m for _ in range(m)]
    fcyc_b = one
    for first in range(m):
        for last in range(first, m):
            t = last - first - 1
            k = m - 1 - last + first
            s = (last + 1) % m
            if t >= 0:
                a = (first + 1) % m
                Fb[s][k] += L[a][t]
                Lb[a][t] += F[s][k]
            else:
                Fb[s][k] += one
    for a in range(m):
        row, rb = L[a], Lb[a]
        for t in range(m - 1, 0, -1):
            w = rb[t]
            if w == zero:
                continue
            b = a + t - 1
            rb[t - 1] += w
            for k in range(1, t + 1):
                s = (b - k + 1) % m
                if t - k - 1 >= 0:
                    Fb[s][k] += w * row[t - k - 1]
                    rb[t - k - 1] += w * F[s][k]
                else:
                    Fb[s][k] += w
    lam_b = [zero] * m
    # fcyc = (sum_i lam_i F[i+1][m-1]) / ccyc and d ccyc / d lam_e = -1 for every e
    a_cyc = fcyc_b / ccyc
    minus_c = fcyc_b * fcyc / ccyc  # = -(d G / d ccyc) >= 0
    for i in range(m):
        lam_b[i] += a_cyc * F[(i + 1) % m][m - 1] + minus_c
        Fb[(i + 1) % m][m - 1] += a_cyc * lam[i]
    arc_c = [zero] * m  # -(d G / d c) summed into the edges of each arc, by difference arrays
    for k in range(m - 1, 0, -1):
        for s in range(m):
            w = Fb[s][k]
            if w == zero:
                continue
            a_val = w / c[s][k]
            minus_ck = w * F[s][k] / c[s][k]
            for e in range(k):  # the arc's edges e_s..e_{s+k-1}
                arc_c[(s + e) % m] += minus_ck
            for j in range(k):
                left, right = F[s][j], F[(s + j + 1) % m][k - 1 - j]
                lam_b[(s + j) % m] += a_val * left * right
                Fb[s][j] += a_val * lam[(s + j) % m] * right
                Fb[(s + j + 1) % m][k - 1 - j] += a_val * lam[(s + j) % m] * left
    return [lam_b[e] + arc_c[e] for e in range(m)]


def ring_values(model: Model, per_class: bool = False, field: Any = None) -> dict[str, Any]:
    r"""$G$, $\pi(\emptyset)$, the idle probabilities and (if ``per_class``) the mean numbers of a
    collaborative ring (module docstring: arc weights $F$, transfer sum along the cycle, line sums
    for $\vdash k$, adjoint pass for $L_i=\lambda_i\partial_{\lambda_i}\log G$).

    Parameters
    ----------
    model : Model
        A ring (:func:`ring_order` is not ``None``), stable.
    per_class : bool
        Also the mean numbers ``"L"``.
    field : optional
        The arithmetic (default exact: ``fmpq``/``Fraction``, or rational functions for symbolic
        rates); the slacks $c$ are computed exactly first and converted once.

    Returns
    -------
    dict
        ``{"G", "empty", "idle": {server: p}, "L": {class: L_c} or absent, "arith"}``.

    Raises
    ------
    ValueError
        The model is not a ring.

    Examples
    --------
    >>> from symq import example_model
    >>> r = example_model("ring:4", {f"lambda_{i}": "1/3" for i in "1234"})
    >>> str(ring_values(r)["empty"])
    '70/153'

    Running time: O(M^3) field operations (M servers), three times that with ``per_class``.
    """
    found = ring_order(model)
    if found is None:
        raise ValueError("ring_values needs a ring: class i compatible with servers i, i+1 mod M")
    servers, edges = found
    arith = field if field is not None else ExactField.for_model(model)
    m = len(servers)
    raw_lam = [model.arrival_rates[e] for e in edges]
    raw_mu = [model.service_rates[v] for v in servers]
    if model.is_numeric:
        raw_lam = [to_fraction(x) for x in raw_lam]
        raw_mu = [to_fraction(x) for x in raw_mu]
        zero_raw = Fraction(0)
    else:
        zero_raw = 0
    # c(arc from s with k edges) = mu(servers s..s+k) - lambda(edges s..s+k-1), exact first
    c = [[None] * m for _ in range(m)]
    for s in range(m):
        total = raw_mu[s]
        for k in range(1, m):
            total = total + raw_mu[(s + k) % m] - raw_lam[(s + k - 1) % m]
            c[s][k] = arith.value(total)
    ccyc = arith.value(sum(raw_mu, zero_raw) - sum(raw_lam, zero_raw))
    lam = [arith.value(x) for x in raw_lam]
    one, zero = arith.one, arith.zero
    F, L, fcyc, g = _forward(lam, [arith.value(x) for x in raw_mu], c, ccyc, one, zero)
    out: dict[str, Any] = {"G": g, "empty": one / g, "arith": arith}
    # server k removed: the line of the m-2 edges e_{k+1}..e_{k-2}
    out["idle"] = {servers[k]: L[(k + 1) % m][m - 2] / g for k in range(m)}
    if per_class:
        grad = _adjoint(lam, c, ccyc, F, L, fcyc, one, zero)
        out["L"] = {edges[e]: lam[e] * grad[e] / g for e in range(m)}
    return out
