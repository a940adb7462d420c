r"""The ALIS and RAIS subset DPs on fixed-point integer intervals: rigorous lower and upper bounds
of $G$, $\pi(\emptyset)$, the idle probabilities and the mean numbers of the noncollaborative
disciplines ([GR20]_ Thm 3.9, 3.10), in Python integers on numpy object arrays, with no ball
arithmetic; one route serves both disciplines, since canonical RAIS equals ALIS in every quantity
here (:mod:`symq.engines.normalization.rais`, $G_{\rm RAIS}=1/\pi(\emptyset)=G_{\rm ALIS}/W(\mathcal M)$),
while the exact routes of :mod:`~symq.engines.normalization.alis` and :mod:`~symq.engines.normalization.rais`
stay independent of each other and of this module (the tests compare all three). A floor run and
a ceil run of the same subtraction-free program bound every value. Cost: O($2^MM$) integer
additions for $M$ servers, memory O($2^M$) integers. What is computed, why the bounds are
rigorous, the implementation and its cost: see docs/howto-digits.md.

Examples
--------
>>> from symq import model
>>> from symq.engines.normalization.subsets import SubsetGraph
>>> w = model("w").substitute({"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4",
...                            "mu_1": "1", "mu_2": "4/5"})
>>> out = noncollaborative_bounds(SubsetGraph(w), 80, per_class=True, idle=True)
>>> out["empty"].certify(12), out["idle"]["1"].certify(12)
('0.545230263158', '0.726973684211')
>>> from fractions import Fraction
>>> out["empty"].contains(Fraction(663, 1216))
True
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

from symq.errors import UnsupportedError
from symq.arithmetic.interval import Interval, interval_sum, merge_components
from symq.engines.normalization.interval_collaborative import exact_cover_bounds, union_edges
from symq.engines.normalization.subsets import SubsetGraph

__all__ = ["noncollaborative_bounds", "idle_weight_bounds"]

#: at most this many servers per component (2^M integers per table)
MAX_SERVERS = 26


def _np():
    import numpy as np
    return np


def _frac(n, e: int) -> Fraction:
    """The exact rational $n\\,2^e$ (``n`` an integer or a Fraction)."""
    return n * (Fraction(1 << e) if e >= 0 else Fraction(1, 1 << -e))


@lru_cache(maxsize=2)
def _layers(size: int):
    """Per popcount $k$, the int64 array of the masks with $k$ bits (increasing), and the
    int64 array of every mask's position inside its layer."""
    np = _np()
    xs = np.arange(1 << size, dtype=np.int64)
    pop = np.zeros(1 << size, dtype=np.int64)
    for j in range(size):
        pop += (xs >> j) & 1
    order = np.argsort(pop, kind="stable")
    cuts = np.searchsorted(pop[order], np.arange(size + 2))
    layers = [order[cuts[k]:cuts[k + 1]] for k in range(size + 1)]
    pos = np.empty(1 << size, dtype=np.int64)
    for idx in layers:
        pos[idx] = np.arange(len(idx))
    return layers, pos


@lru_cache(maxsize=2)
def _neighbours(size: int, forward: bool):
    r"""Per layer $k$: an int array of shape (layer size, degree): for each set $X$ of the
    layer, the positions of $X\setminus j$ ($j\in X$, forward) or $X\cup j$ ($j\notin X$,
    backward) in their layer."""
    np = _np()
    layers, pos = _layers(size)
    out = [None] * (size + 1)
    for k in range(size + 1):
        idx = layers[k]
        degree = k if forward else size - k
        if degree == 0:
            continue
        where = np.empty((len(idx), degree), dtype=np.int64)
        column = np.zeros(len(idx), dtype=np.int64)
        for j in range(size):
            has = ((idx >> j) & 1).astype(bool)
            rows = np.flatnonzero(has if forward else ~has)
            where[rows, column[rows]] = pos[idx[rows] ^ (1 << j)]
            column[rows] += 1
        out[k] = where
    return out


def _arrival_table(graph: SubsetGraph):
    r"""$L_s(I)$ for every mask $I$ as an object array of exact Python integers."""
    np = _np()
    size = graph.size
    lam = graph.lam_int
    if sum(lam) < 2 ** 62:
        table = np.zeros(1 << size, dtype=np.int64)
        xs = np.arange(1 << size, dtype=np.int64)
        for m, rate in zip(graph.masks, lam):
            table += ((xs & m) != 0) * rate
        return table.astype(object)
    table = np.zeros(1 << size, dtype=object)  # pragma: no cover - huge denominators
    xs = np.arange(1 << size, dtype=np.int64)
    for m, rate in zip(graph.masks, lam):
        table = table + ((xs & m) != 0).astype(object) * rate
    return table


def _divide(num, den, shift: int, up: bool):
    r"""$\lfloor num\,2^{shift}/den\rfloor$ (or the ceiling), elementwise, exactly one rounding."""
    if shift >= 0:
        num = num << shift
    else:
        den = den << -shift
    return -((-num) // den) if up else num // den


def _shift(values, shift: int, up: bool):
    """``values * 2**shift`` rounded down (or up) when ``shift`` is negative."""
    if shift >= 0:
        return values << shift if shift else values
    return -((-values) >> -shift) if up else values >> -shift


def _layer_dp(graph: SubsetGraph, bits: int, den, forward: bool, source=None):
    r"""The floor run and the ceil run of a layer-by-layer DP over all $2^M$ sets.

    Forward: $T(\emptyset)=1$, $T(X)=\frac1{den(X)}\sum_{j\in X}T(X\setminus j)$. Backward:
    $T(X)=\frac1{den(X)}\bigl[\text{source}(X)+\sum_{j\notin X}T(X\cup j)\bigr]$ for
    $X\ne\emptyset$ (``source`` is ``(low, high, exponent)``, one exponent for the table).

    The sums of a layer run once for both runs on packed integers $t^+2^K+t^-$ ($K$ above
    every lower sum, so the halves never mix); the divisions run apart (floor, ceil) with one
    shift per layer for both, chosen so the largest upper value has about ``bits`` bits.

    Returns ``(low, high, exponent)``: object arrays in mask order with
    ``low[X] * 2**exponent`` $\le T(X)\le$ ``high[X] * 2**exponent``.
    """
    np = _np()
    size = graph.size
    layers, _ = _layers(size)
    links = _neighbours(size, forward)
    los: list[Any] = [None] * (size + 1)
    his: list[Any] = [None] * (size + 1)
    exps = [0] * (size + 1)
    steps = range(1, size + 1) if forward else range(size, 0, -1)
    if forward:
        los[0] = his[0] = np.array([1 << bits], dtype=object)
        exps[0] = -bits
    for k in steps:
        idx = layers[k]
        prev = k - 1 if forward else k + 1
        e_acc = None
        if links[k] is not None:
            degree = links[k].shape[1]
            top = max(int(his[prev].max()), int(los[prev].max()))  # K above every sum
            width = top.bit_length() + degree.bit_length() + 1
            packed = (his[prev] << width) + los[prev]
            acc = packed[links[k]].sum(axis=1)
            lo, hi = acc & ((1 << width) - 1), acc >> width
            e_acc = exps[prev]
        if source is not None:
            src_lo, src_hi, e_src = source
            if e_acc is None:
                lo, hi, e_acc = src_lo[idx], src_hi[idx], e_src
            else:
                low = min(e_acc, e_src)
                lo = _shift(lo, e_acc - low, False) + _shift(src_lo[idx], e_src - low, False)
                hi = _shift(hi, e_acc - low, True) + _shift(src_hi[idx], e_src - low, True)
                e_acc = low
        d = den[idx]
        top = int(hi.max())
        if top == 0:
            los[k], his[k], exps[k] = lo, hi, e_acc
            continue
        shift = bits - (top.bit_length() - int(d.min()).bit_length() + 1)
        los[k] = _divide(lo, d, shift, False)
        his[k] = _divide(hi, d, shift, True)
        exps[k] = e_acc - shift
    used = [k for k in range(size + 1) if forward or k > 0]
    low = min(exps[k] for k in used)
    table_lo = np.zeros(1 << size, dtype=object)
    table_hi = np.zeros(1 << size, dtype=object)
    for k in used:
        table_lo[layers[k]] = _shift(los[k], exps[k] - low, False)
        table_hi[layers[k]] = _shift(his[k], exps[k] - low, True)
    return table_lo, table_hi, low


def _zeta_pair(low, high, size: int):
    """:func:`_zeta` of both runs at once on packed integers (new arrays)."""
    width = max(int(high.max()), int(low.max())).bit_length() + size + 1
    packed = _zeta((high << width) + low, size)
    return packed & ((1 << width) - 1), packed >> width


def _zeta(table, size: int):
    """In place: ``table[X] = sum(table[Y] for Y subset of X)`` on a numpy array (contiguous
    half-block additions, O(2^size size))."""
    for j in range(size):
        view = table.reshape(-1, 2, 1 << j)
        view[:, 1, :] += view[:, 0, :]
    return table


def _service_products(graph: SubsetGraph):
    r"""$P_s(I)=\prod_{j\in I}\mu_js$ for every mask, exact Python integers (O(2^M))."""
    np = _np()
    table = np.zeros(1 << graph.size, dtype=object)
    table[0] = 1
    for j, rate in enumerate(graph.mu_int):  # the sets whose highest bit is j
        table[1 << j:2 << j] = table[:1 << j] * rate
    return table


def idle_weight_bounds(graph: SubsetGraph, bits: int):
    r"""The idle-order weights $W(I)$ of every set $I$ (module docstring), floor and ceil runs:
    ``(low, high, exponent, reduced_low, reduced_high)`` with ``low[I] * 2**exponent``
    $\le W(I)\le$ ``high[I] * 2**exponent`` and the same for
    $\widetilde W_s(I)=W(I)/P_s(I)$: $\widetilde W_s(\emptyset)=1$,
    $\widetilde W_s(I)=\frac1{L_s(I)}\sum_{j\in I}\widetilde W_s(I\setminus j)$ (plain sums: the
    service rates enter once per set, through the exact products $P_s(I)$ of
    :func:`_service_products`).

    Parameters
    ----------
    graph : SubsetGraph
        The model's subset tables with numeric rates.
    bits : int
        Fixed-point working precision.

    Returns
    -------
    tuple
        ``(low, high, exponent, reduced_low, reduced_high)``: integer arrays indexed by the set
        mask $I$ and the common binary exponent.

    Raises
    ------
    UnsupportedError
        A server compatible with no class.

    Examples
    --------
    >>> from symq import example_model
    >>> from symq.engines.normalization.subsets import SubsetGraph
    >>> n = example_model("n")   # the N model, lambda = (1/4, 1/4), mu = (1, 1)
    >>> low, high, e, _, _ = idle_weight_bounds(SubsetGraph(n), 20)
    >>> [float(v) * 2.0 ** e for v in low]    # W(1) = mu_1/(l_1+l_2), W(2) = mu_2/l_2, ...
    [1.0, 2.0, 4.0, 12.0]

    Running time: O(2^M M) operations on integers of about ``bits`` bits.
    """
    arrivals = _arrival_table(graph)
    if graph.size and int(arrivals[1:].min()) <= 0:
        raise UnsupportedError("a server serves no class: ALIS/RAIS need every server compatible "
                               "with some class")
    low, high, e = _layer_dp(graph, bits, arrivals, True)
    products = _service_products(graph)
    return low * products, high * products, e, low, high


def _runs(graph: SubsetGraph, bits: int, h_lo: list[int], h_hi: list[int], per_class: bool,
          idle: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """The floor run and the ceil run: integer sums with their exponents (no quotient yet)."""
    np = _np()
    size, full = graph.size, graph.full
    edges = union_edges(graph)
    xs = np.array(edges.order, dtype=np.int64)
    h_exp = -bits
    w_lo, w_hi, e_w, wr_lo, wr_hi = idle_weight_bounds(graph, bits)
    omegas = _zeta_pair(w_lo, w_hi, size)
    hats = None
    if idle or per_class:
        hat_lo = np.zeros(1 << size, dtype=object)
        hat_hi = np.zeros(1 << size, dtype=object)
        hat_lo[xs] = np.array(h_lo, dtype=object)
        hat_hi[xs] = np.array(h_hi, dtype=object)
        hats = _zeta_pair(hat_lo, hat_hi, size)
    if per_class:  # z(Q) = P_s(Q) Z(Q): backward layer DP with the source H^(M \ Q) P_s(Q)
        products = _service_products(graph)
        z_lo, z_hi, e_z = _layer_dp(graph, bits, _arrival_table(graph), False,
                                    source=(hats[0][::-1] * products, hats[1][::-1] * products,
                                            h_exp))
        direct = _arrival_terms(graph, wr_lo, wr_hi, z_lo, z_hi)
    outs = []
    for side, (h, w, wr, omega) in enumerate(zip((h_lo, h_hi), (w_lo, w_hi), (wr_lo, wr_hi),
                                                 omegas)):
        h_arr = np.array(h, dtype=object)
        g = int((h_arr * omega[full ^ xs]).sum())
        out: dict[str, Any] = {"G": (g, e_w + h_exp), "W": (int(w[full]), e_w)}
        if idle:
            terms = w * hats[side][::-1]  # W(I) H^(M \ I): full ^ I = full - I
            out["idle"] = [(int(terms.reshape(-1, 2, 1 << j)[:, 1, :].sum()), e_w + h_exp)
                           for j in range(size)]
        if per_class:
            out["L"] = _mean_sums(graph, edges, xs, h_arr, h_exp, e_w, omega[full ^ xs],
                                  [(d[side], e_w + e_z) for d in direct], side == 1)
        outs.append(out)
    return outs[0], outs[1]


def _arrival_terms(graph: SubsetGraph, wr_lo, wr_hi, z_lo, z_hi) -> list[tuple[Any, Any]]:
    r"""Per class, the floor and ceil values of $s\sum_{P\subseteq\mathcal M\setminus S_c}
    W(P)\sum_{j\in S_c}Z(P\cup j)$ (the arrivals that start service at once), in units of the
    product of the two tables' exponents, as exact rationals: with
    $W(P)Z(P\cup j)=\widetilde W_s(P)z(P\cup j)/(\mu_js)$ the sum over $j$ is taken with the
    integer weights $\prod_{i\in S_c}(\mu_is)/(\mu_js)$ and the common product divides exactly at
    the end. The weighted sums over $j$ run once for both runs on packed integers."""
    np = _np()
    size, scale = graph.size, graph.scale
    classes = []
    for m in graph.masks:
        servers = [j for j in range(size) if m >> j & 1]
        common = math.prod(graph.mu_int[j] for j in servers)
        classes.append((m, servers, common, [common // graph.mu_int[j] for j in servers]))
    headroom = max(max(w).bit_length() + len(w).bit_length() for *_, w in classes)
    width = max(int(z_hi.max()), int(z_lo.max())).bit_length() + headroom + 1
    shape = (2,) * size  # axis size-1-j is bit j: the sets P of a class are a strided view
    packed = ((z_hi << width) + z_lo).reshape(shape)
    low_w, high_w = wr_lo.reshape(shape), wr_hi.reshape(shape)
    mask = (1 << width) - 1
    out = []
    for m, servers, common, weights in classes:
        outside = [slice(None)] * size
        for j in servers:
            outside[size - 1 - j] = 0  # P inside M \ S_c
        at = None
        for j, weight in zip(servers, weights):
            pick = list(outside)
            pick[size - 1 - j] = 1  # P | j
            term = packed[tuple(pick)]
            term = term * weight if weight != 1 else term
            at = term if at is None else at + term
        low = int(np.sum(low_w[tuple(outside)] * (at & mask)))  # a scalar if S_c = M
        high = int(np.sum(high_w[tuple(outside)] * (at >> width)))
        out.append((Fraction(low * scale, common), Fraction(high * scale, common)))
    return out


def _mean_sums(graph, edges, xs, h_arr, h_exp, e_w, omega_at, direct, up):
    r"""Per class, the bracket of $L_c$ (module docstring) as pairs ``(value, exponent)``: the
    union sums of this run, and ``direct`` (:func:`_arrival_terms` of this run). ``omega_at``
    holds $\Omega(\mathcal M\setminus X)$ for the unions $X$ of ``xs``, in units
    ``2**e_w``."""
    np = _np()
    size, full, scale = graph.size, graph.full, graph.scale
    lam = np.array(edges.lam_int, dtype=object)
    r = np.array(edges.r_int, dtype=object)
    n = len(xs)
    # suffix weights p(Z) on the unions, in units 2**e_w, larger unions first
    src, dst, cls = edges.src, edges.dst, edges.cls
    perm = np.argsort(src, kind="stable")
    s_src, s_dst, s_cls = src[perm], dst[perm], cls[perm]
    size_of = edges.size_of
    starts = np.searchsorted(size_of, np.arange(size + 2))
    e_starts = np.searchsorted(s_src, starts)
    tail = omega_at * scale
    p = np.zeros(n, dtype=object)
    lam_e = lam[s_cls]
    for k in range(size, -1, -1):
        first, stop = int(starts[k]), int(starts[k + 1])
        if first == stop:
            continue
        acc = tail[first:stop].copy()
        a, b = int(e_starts[k]), int(e_starts[k + 1])
        if a < b:
            s = s_src[a:b]
            terms = lam_e[a:b] * p[s_dst[a:b]]
            cut = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
            acc[s[cut] - first] += np.add.reduceat(terms, cut)
        if first == 0:
            p[0] = acc[0]
            if stop > 1:
                p[1:stop] = -((-acc[1:]) // r[1:stop]) if up else acc[1:] // r[1:stop]
        else:
            p[first:stop] = -((-acc) // r[first:stop]) if up else acc // r[first:stop]
    out = []
    for c, m in enumerate(graph.masks):
        # unions: edges A -> A | S_c (count 1 + |S_c \ A|) and unions A containing S_c
        mine = np.flatnonzero(cls == c)
        a_idx, d_idx = src[mine], dst[mine]
        counts = np.zeros(len(mine), dtype=np.int64) + 1
        missing = (xs[a_idx] ^ m) & m
        for j in range(size):
            counts += (missing >> j) & 1
        unions_sum = int((h_arr[a_idx] * p[d_idx] * counts.astype(object)).sum())
        inside = np.flatnonzero((xs & m) == m)
        unions_sum += int((h_arr[inside] * p[inside]).sum())
        out.append(((unions_sum, e_w + h_exp), direct[c]))
    return out


def compiled_route(graph: SubsetGraph) -> bool:
    r"""Whether the compiled limb kernels (:mod:`symq.engines.normalization.limbs`) take this
    graph: numba importable and every multiplier and divisor of the layer DPs (the integer
    service rates $\mu_js$ and arrival sums $L_s(X)\le\sum_c\lambda_cs$) below $2^{31}$.

    >>> from symq import example_model
    >>> compiled_route(SubsetGraph(example_model("n")))
    True
    """
    from symq.engines.normalization import limbs
    return (graph.scale is not None and limbs.available() and graph.size >= 1
            and max(graph.mu_int) < limbs.MAX_FACTOR and sum(graph.lam_int) < limbs.MAX_FACTOR)


def _compiled_run(graph: SubsetGraph, bits: int, h: list[int], up: bool, per_class: bool,
                  idle: bool) -> dict[str, Any]:
    r"""One directed run (floor if ``up`` is false) of the ALIS/RAIS sums on the compiled limb
    kernels: the same quantities as one side of :func:`_runs` (``(value, exponent)`` pairs),
    computed as in docs/howto-digits.md with the service rates as multipliers of the layer
    DPs (no reduced tables): $W$ by :func:`~symq.engines.normalization.limbs.forward_weights`,
    $\Omega=\zeta W$ on a table brought to one exponent by exact shifts (only its values at the
    complements of the unions are kept), $\hat H=\zeta H$, the mean numbers' table
    $Z(Q)=\frac1{L_s(Q)}(\hat H(\mathcal M\setminus Q)+\sum_{t\notin Q}(\mu_ts)Z(Q\cup t))$
    by :func:`~symq.engines.normalization.limbs.backward_weights`; sums across layers are exact
    per layer and combined here with their exponents. Tables are freed as soon as a pass no
    longer needs them (at most three $2^M$ tables at once)."""
    np = _np()
    from symq.engines.normalization import limbs
    size, full = graph.size, graph.full
    edges = union_edges(graph)
    xs = np.array(edges.order, dtype=np.int64)
    n = len(xs)
    h_exp = -bits
    w, we = limbs.forward_weights(size, bits, up, graph.mu_int, graph.masks, graph.lam_int)
    e_w = int(we[size])
    out: dict[str, Any] = {"W": (limbs.from_limbs(w[full])[0], e_w)}
    wide, e_om = limbs.common_table(w, we, size)
    limbs.zeta(wide, size)
    omega_rows = np.ascontiguousarray(wide[full ^ xs])
    del wide
    h_rows = limbs.to_limbs(h, limbs.limbs_for(max(h).bit_length() + size + 2))
    everything = np.arange(n, dtype=np.int64)
    out["G"] = (limbs.dot_rows(h_rows, everything, omega_rows, everything), e_om + h_exp)
    if idle or per_class:
        hat = limbs.place(h_rows, xs, 1 << size)
        limbs.zeta(hat, size)
        if idle:
            sums = limbs.layer_products(w, hat, size)
            out["idle"] = [(sum(_frac(v, int(we[k])) for k, v in enumerate(row)), h_exp)
                           for row in sums]
        if per_class:
            z, ze = limbs.backward_weights(size, bits, up, graph.mu_int, graph.masks,
                                           graph.lam_int, hat, h_exp)
            del hat
            direct = []
            for m in graph.masks:
                per_layer = limbs.class_arrival_sums(w, z, size, m)
                total = sum(_frac(v, int(we[k]) + int(ze[k + 1]))
                            for k, v in enumerate(per_layer) if v)
                direct.append((total * graph.scale, 0))
            del z
            omega_at = np.array(limbs.from_limbs(omega_rows), dtype=object)
            out["L"] = _mean_sums(graph, edges, xs, np.array(h, dtype=object), h_exp, e_om,
                                  omega_at, direct, up)
    return out


def noncollaborative_bounds(graph: SubsetGraph, bits: int, per_class: bool = False,
                            idle: bool = False, kernel: str = "auto") -> dict[str, Any]:
    r"""Rigorous :class:`~symq.arithmetic.interval.Interval` enclosures of the ALIS and RAIS
    quantities of a connected numeric model from one floor run and one ceil run at ``bits``
    bits (module docstring).

    Parameters
    ----------
    graph : SubsetGraph
        A numeric, stable model (its field does not matter) with at most 26 servers.
    bits : int
        Fixed-point bits per layer; widths shrink like $2^{-\text{bits}}$ times the size of the
        problem.
    per_class, idle : bool
        Also the mean numbers ``"L"`` (and ``"L_total"``) / the idle probabilities.
    kernel : ``"auto"``, ``"compiled"`` or ``"python"``
        The compiled limb kernels (:func:`compiled_route` decides under ``"auto"``) or the
        Python-integer kernels (the second route of the tests).

    Returns
    -------
    dict
        ``{"G_alis", "G_rais", "empty", "W", "idle": {server: Interval} or None,
        "L": {class: Interval}, "L_total"}``; the bounds are exact rationals.

    Raises
    ------
    UnsupportedError
        More than 26 servers, a server that serves no class, or rates that are not rational.
    UnstableModelError
        Some set of servers cannot keep up with the classes it alone serves (a union of class
        server sets with $r(X)\le0$).

    Examples
    --------
    >>> from symq import example_model
    >>> from symq.engines.normalization.subsets import SubsetGraph
    >>> out = noncollaborative_bounds(SubsetGraph(example_model("n")), 60, per_class=True)
    >>> out["G_rais"].certify(10), out["L"]["2"].certify(10)
    ('1.740740741', '0.2624113475')

    Running time: O(2^M M + U J + sum_c |S_c| 2^{M-|S_c|}) integer operations per run, two runs.
    """
    if graph.scale is None:
        raise UnsupportedError("the fixed-point ALIS/RAIS route needs numeric rational rates")
    if graph.size > MAX_SERVERS:
        raise UnsupportedError(f"the fixed-point ALIS/RAIS route stops at {MAX_SERVERS} servers "
                               f"per component (2^M tables); this one has {graph.size}")
    _, h_lo, h_hi = exact_cover_bounds(graph, bits)
    if kernel == "compiled" or (kernel == "auto" and compiled_route(graph)):
        lo = _compiled_run(graph, bits, h_lo, False, per_class, idle)
        hi = _compiled_run(graph, bits, h_hi, True, per_class, idle)
    else:
        lo, hi = _runs(graph, bits, h_lo, h_hi, per_class, idle)

    def pair(a, b):
        return _frac(*a), _frac(*b)
    g_lo, g_hi = pair(lo["G"], hi["G"])
    w_lo, w_hi = pair(lo["W"], hi["W"])
    out: dict[str, Any] = {
        "G_alis": Interval(g_lo, g_hi), "W": Interval(w_lo, w_hi),
        "G_rais": Interval(g_lo / w_hi, g_hi / w_lo),
        "empty": Interval(w_lo / g_hi, w_hi / g_lo), "idle": None}
    if idle:
        out["idle"] = {s: Interval(_frac(*a) / g_hi, _frac(*b) / g_lo)
                       for s, a, b in zip(graph.servers, lo["idle"], hi["idle"])}
    if per_class:
        out["L"] = {}
        for c, lam, (qa, da), (qb, db) in zip(graph.classes, graph.lam_int, lo["L"], hi["L"]):
            rate = Fraction(lam, graph.scale)
            out["L"][c] = Interval(rate * (_frac(*qa) + _frac(*da)) / g_hi,
                                   rate * (_frac(*qb) + _frac(*db)) / g_lo)
        out["L_total"] = interval_sum(out["L"].values())
    return out
