r"""The collaborative subset DP on fixed-point integer intervals: rigorous lower and upper
bounds of the exact-cover weights $H$ of [GR20]_ Props 6.2, 6.3 (DP form, see
:mod:`symq.engines.normalization.collaborative`), of $G$, $\pi(\emptyset)$, the idle probabilities and
(by one reverse, adjoint pass) the mean numbers, in Python integers, with no ball arithmetic:
every rate is written over one common denominator, the DP runs on integers scaled by $2^p$ once
with every division rounded down and once rounded up, and monotonicity bounds every value.
Cost: O(E) integer operations per pass for the $E\le UJ$ edges between the $U$ unions. Why the
bounds are rigorous, the adjoint for the mean numbers and the cost: see docs/howto-digits.md.

Examples
--------
>>> from symq import example_model
>>> from symq.engines.normalization.subsets import SubsetGraph
>>> n = example_model("n")   # the N model, lambda = (1/4, 1/4), mu = (1, 1)
>>> order, low, high = exact_cover_bounds(SubsetGraph(n), 40)
>>> order
[0, 1, 3]
>>> from fractions import Fraction
>>> Fraction(sum(low), 2**40) <= Fraction(14, 9) <= Fraction(sum(high), 2**40)
True
>>> b = collaborative_bounds(SubsetGraph(n), 60, per_class=True)
>>> b["empty"].certify(12), b["L"]["1"].certify(12)
('0.642857142857', '0.357142857143')
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from symq.errors import UnstableModelError
from symq.arithmetic.interval import Interval, interval_sum
from symq.engines.normalization.subsets import SubsetGraph

__all__ = ["UnionEdges", "union_edges", "exact_cover_bounds", "collaborative_bounds",
           "adjoint_mean_numbers"]


def _np():
    import numpy as np
    return np


def _integer_rates(graph: SubsetGraph) -> tuple[list[int], list[int], int]:
    """``(lam_int, mu_int, scale)``: the rates times their common denominator, exactly."""
    if getattr(graph, "scale", None) is not None:
        return list(graph.lam_int), list(graph.mu_int), graph.scale
    model = graph.model
    lam = [model.arrival_rates[c] for c in graph.classes]
    mu = [model.service_rates[s] for s in graph.servers]
    scale = math.lcm(*(int(r.q) for r in (*lam, *mu)))
    return ([int(r.p) * (scale // int(r.q)) for r in lam],
            [int(r.p) * (scale // int(r.q)) for r in mu], scale)


def _union_values(masks: list[int], size: int):
    """The unions of subsets of ``masks`` (with 0), increasing, as an int64 array: adding the
    masks one at a time, $S\\leftarrow S\\cup(S\\mid m)$ (a bitmap of $2^M$ bytes up to 26
    servers, sorted merges above).

    Running time: O(J U) (bitmap) or O(J U log U) numpy operations.
    """
    np = _np()
    if size <= 26:
        seen = np.zeros(1 << size, dtype=bool)
        seen[0] = True
        found = np.zeros(1, dtype=np.int64)
        for m in masks:
            ys = found | m
            new = ys[~seen[ys]]
            if len(new):
                seen[new] = True
                found = np.concatenate((found, np.unique(new)))
        return np.flatnonzero(seen).astype(np.int64)
    values = np.zeros(1, dtype=np.int64)
    for m in masks:
        both = np.sort(np.concatenate((values, values | m)))
        values = both[np.r_[True, both[1:] != both[:-1]]]
    return values


def _slacks(xs, masks: list[int], lam_int: list[int], mu_int: list[int]) -> list[int]:
    """Exact $r(X)s=\\mu(X)s-\\lambda(R(X))s$ per union (int64 when the sums fit, else
    Python integers)."""
    np = _np()
    if max(sum(mu_int), sum(lam_int)) < 2 ** 62:
        mus = np.zeros(len(xs), dtype=np.int64)
        lams = np.zeros(len(xs), dtype=np.int64)
        for j, rate in enumerate(mu_int):
            mus += ((xs >> j) & 1) * rate
        for m, rate in zip(masks, lam_int):
            lams += ((xs & m) == m) * rate
        return (mus - lams).tolist()
    mus = np.zeros(len(xs), dtype=object)
    lams = np.zeros(len(xs), dtype=object)
    for j, rate in enumerate(mu_int):
        mus = mus + ((xs >> j) & 1).astype(object) * rate
    for m, rate in zip(masks, lam_int):
        lams = lams + ((xs & m) == m).astype(object) * rate
    return [int(v) for v in mus - lams]


class UnionEdges:
    r"""The unions of the class server sets of a numeric model and the DP's edges, in numpy.

    Attributes
    ----------
    order : list of int
        The unions (bitmasks, server $j$ is bit $j$), by size then value (a topological order:
        every edge goes from a smaller to a larger union). ``order[0] == 0``.
    r_int : list of int
        $r(X)s$ per union (``r_int[0] == 0``), exact; positive under stability.
    lam_int : list of int
        $\lambda_cs$ per class.
    src, dst, cls : numpy int arrays
        The edges $Y\to X=Y\cup S_c$, $X\ne Y$, as union indices and class, sorted by ``dst``.
    levels : list of (int, int, int, int)
        Per union size $k\ge1$: ``(first, stop)`` union indices of that size and ``(a, b)``
        the slice of the edges into them.

    Running time: O(J U log U) numpy work for U unions, J classes; memory O(E) for E edges.
    """

    def __init__(self, graph: SubsetGraph) -> None:
        np = _np()
        if graph.size > 62:
            raise ValueError("at most 62 servers for the numpy union tables")
        self.graph = graph
        self.lam_int, self.mu_int, self.scale = _integer_rates(graph)
        values = _union_values(sorted(set(graph.masks)), graph.size)
        pop = np.zeros(len(values), dtype=np.int64)
        for j in range(graph.size):
            pop += (values >> j) & 1
        perm = np.lexsort((values, pop))  # by size, then value
        xs = values[perm]
        rank = np.empty(len(values), dtype=np.int64)
        rank[perm] = np.arange(len(values))  # value-sorted position -> index in ``order``
        self.order = xs.tolist()
        self.size_of = pop[perm]
        self.r_int = _slacks(xs, graph.masks, self.lam_int, self.mu_int)
        bad = [i for i in range(1, len(xs)) if self.r_int[i] <= 0]
        if bad:  # the union conditions of stability, checked on every union here
            from symq.models.stability import check_union_conditions
            check_union_conditions(graph.model, [self.order[bad[0]]])
            raise UnstableModelError(f"unstable at the server set {self.order[bad[0]]:b}")
        src, dst, cls = [], [], []
        for c, m in enumerate(graph.masks):  # sources in value order: cache-friendly search
            ys = values | m
            sel = np.flatnonzero(ys != values)
            src.append(rank[sel])
            dst.append(rank[np.searchsorted(values, ys[sel])])
            cls.append(np.full(len(sel), c, dtype=np.int64))
        empty = np.zeros(0, dtype=np.int64)
        self._raw = (np.concatenate(src) if src else empty, np.concatenate(dst) if dst else empty,
                     np.concatenate(cls) if cls else empty)
        self._by_dst = None

    def _dst_order(self):
        """``(src, dst, cls, levels)`` sorted by ``dst`` (built on first use)."""
        if self._by_dst is None:
            np = _np()
            src, dst, cls = self._sorted("dst")
            size = self.graph.size
            starts = np.searchsorted(self.size_of, np.arange(1, size + 2))
            edge_starts = np.searchsorted(dst, starts)
            levels = [(int(starts[k]), int(starts[k + 1]), int(edge_starts[k]),
                       int(edge_starts[k + 1])) for k in range(size) if starts[k] < starts[k + 1]]
            self._by_dst = (src, dst, cls, levels)
        return self._by_dst

    # the edges sorted by destination, built on first use
    src = property(lambda self: self._dst_order()[0], doc="source union index of each edge")
    dst = property(lambda self: self._dst_order()[1], doc="destination union index")
    cls = property(lambda self: self._dst_order()[2], doc="class index of each edge")
    levels = property(lambda self: self._dst_order()[3],
                      doc="(first union, stop, first edge, stop) per union size")

    def _sorted(self, key: str):
        """``(src, dst, cls)`` sorted by ``key`` (``"dst"``, ``"src"`` or ``"cls"``), ties by
        the other index: one sort of packed int64 keys (much faster than ``argsort``)."""
        np = _np()
        src, dst, cls = self._raw
        ib = max(1, len(self.order).bit_length())
        cb = max(1, len(self.lam_int).bit_length())
        first, second = {"dst": (dst, src), "src": (src, dst), "cls": (cls, src)}[key]
        third = {"dst": cls, "src": cls, "cls": dst}[key]
        b1 = cb if key == "cls" else ib
        b3 = ib if key == "cls" else cb
        if b1 + ib + b3 > 62:  # pragma: no cover - more than 2^28 unions
            perm = np.lexsort((second, first))
            return src[perm], dst[perm], cls[perm]
        packed = np.sort((first << (ib + b3)) | (second << b3) | third)
        a = packed >> (ib + b3)
        b = (packed >> b3) & ((1 << ib) - 1)
        c = packed & ((1 << b3) - 1)
        return {"dst": (b, a, c), "src": (a, b, c), "cls": (b, c, a)}[key]

    def _sorted_by_rate(self, key: str):
        """``(src, dst, v)`` sorted by ``key`` (``"dst"`` or ``"src"``), then by ``v``, the
        index of the edge's class rate among the distinct values ``rates`` (returned too),
        then by the other end: the edges into (out of) one union come grouped by rate, so the
        kernels add the weights of a group before one multiplication by its rate."""
        np = _np()
        src, dst, cls = self._raw
        rates = sorted(set(self.lam_int))
        where = {v: k for k, v in enumerate(rates)}
        v = np.array([where[x] for x in self.lam_int], dtype=np.int64)[cls]
        ib = max(1, len(self.order).bit_length())
        vb = max(1, len(rates).bit_length())
        first, second = (dst, src) if key == "dst" else (src, dst)
        if 2 * ib + vb > 62:  # pragma: no cover - more than 2^28 unions
            perm = np.lexsort((second, v, first))
            a, b, c = first[perm], second[perm], v[perm]
        else:
            packed = np.sort((first << (ib + vb)) | (v << ib) | second)
            a, c = packed >> (ib + vb), (packed >> ib) & ((1 << vb) - 1)
            b = packed & ((1 << ib) - 1)
        out = (b, a, c) if key == "dst" else (a, b, c)
        return out, rates

    def __len__(self) -> int:
        return len(self.order)

    @property
    def edges(self) -> int:
        """The number E of edges."""
        return len(self._raw[0])


def union_edges(graph: SubsetGraph) -> UnionEdges:
    """The :class:`UnionEdges` of ``graph``, built once per graph (cached on it).

    Parameters
    ----------
    graph : SubsetGraph
        The model's subset tables (at most 62 servers).

    Returns
    -------
    UnionEdges
        The unions of class server sets and the edges between them.

    Examples
    --------
    >>> from symq import example_model
    >>> from symq.engines.normalization.subsets import SubsetGraph
    >>> g = SubsetGraph(example_model("n"))
    >>> edges = union_edges(g)
    >>> len(edges), edges.edges, union_edges(g) is edges
    (3, 3, True)

    Running time: that of :class:`UnionEdges` the first time, O(1) afterwards.
    """
    found = getattr(graph, "_union_edges", None)
    if found is None:
        found = UnionEdges(graph)
        graph._union_edges = found
    return found


def _divide(acc, r, up):
    """Elementwise floor (``up`` false) or ceil (``up`` true) of object arrays of nonnegative
    integers by positive ones; ``up=None``: exact division (rationals)."""
    if up is None:
        return acc / r
    return -((-acc) // r) if up else acc // r


def _forward(edges: UnionEdges, one: Any, up, lam_int=None, r_int=None):
    """The object array of $h^\\mp(X)$ over ``edges.order`` (module docstring), $h(\\emptyset)$
    = ``one`` (``2**bits``, or an exact 1 with ``up=None``)."""
    np = _np()
    lam = np.array(lam_int if lam_int is not None else edges.lam_int, dtype=object)
    r = np.array(r_int if r_int is not None else edges.r_int, dtype=object)
    h = np.zeros(len(edges), dtype=object)
    h[0] = one
    lam_e = lam[edges.cls]
    for first, stop, a, b in edges.levels:
        if a == b:
            continue
        d = edges.dst[a:b]
        terms = lam_e[a:b] * h[edges.src[a:b]]
        cut = np.flatnonzero(np.r_[True, d[1:] != d[:-1]])
        target = d[cut]
        h[target] = _divide(np.add.reduceat(terms, cut), r[target], up)
    return h



def _paired(levels, sources, r, one: int, degree: int, lam_max: int, reverse: bool):
    r"""Floor and ceil runs at once: each value is packed as ``high << K | low``, so one
    multiplication and one addition per edge serve both runs. The low halves never carry into
    the high ones: every low value is at most its high value, and after every level the check
    ``max(high) < 2**K / (lam_max * (degree + 1))`` holds for the values read later, so every
    sum of a level (at most ``degree`` terms, plus $2^p$ in the reverse pass) stays below
    ``2**K``. Only the divisions, once per union, unpack. Returns the packed object array and
    ``K`` (``K`` is doubled and the pass rerun when the check fails).

    ``levels`` lists ``(first, stop, a, b, groups, rates, cut, local)``: the unions
    ``first:stop`` of one size, their edges ``a:b`` grouped by the union they update and by
    rate (group starts ``groups`` relative to ``a``, the group's rate in ``rates``), the starts
    ``cut`` of each union's groups and the unions updated (``local``); ``sources`` are the edge
    ends read. Per level: one gather and one addition per edge, one multiplication per group.
    """
    np = _np()
    grow = lam_max * (degree + 1)
    k_bits = one.bit_length() + 64 + grow.bit_length()
    while True:
        mask = (1 << k_bits) - 1
        limit = (1 << k_bits) // grow
        both = (one << k_bits) | one
        packed = np.zeros(len(r), dtype=object)
        if not reverse:
            packed[0] = both
        ok = True
        for first, stop, a, b, groups, rates, cut, local in (reversed(levels) if reverse
                                                              else levels):
            if a < b:
                terms = rates * np.add.reduceat(packed[sources[a:b]], groups)
                sums = terms if len(cut) == len(terms) else np.add.reduceat(terms, cut)
            if reverse:
                acc = np.full(stop - first, both, dtype=object)
                if a < b:
                    acc[local - first] += sums
                idx = np.arange(first, stop)
            elif a == b:
                continue
            else:
                acc, idx = sums, local
            if reverse and first == 0:  # the empty set keeps its sum 2^p G (no division)
                packed[0] = acc[0]
                continue
            rr = r[idx]
            low, high = (acc & mask) // rr, -((-(acc >> k_bits)) // rr)
            if (high >= limit).any():
                ok = False
                break
            packed[idx] = (high << k_bits) | low
        if ok:
            return packed, k_bits
        k_bits *= 2


def _pair_levels(edges: UnionEdges, reverse: bool):
    """The ``levels`` of :func:`_paired`, its edge ends read and the largest number of edges
    into (forward) or out of (reverse) one union (cached on ``edges``)."""
    np = _np()
    name = "_rev_levels" if reverse else "_fwd_levels"
    found = getattr(edges, name, None)
    if found is not None:
        return found
    (src, dst, v), rates = edges._sorted_by_rate("src" if reverse else "dst")
    key, sources = (src, dst) if reverse else (dst, src)
    size_of = edges.size_of
    starts = np.searchsorted(size_of, np.arange(0, edges.graph.size + 2))
    edge_starts = np.searchsorted(key, starts)
    rate_obj = np.array(rates, dtype=object)
    levels, degree = [], 1
    for k in range(edges.graph.size + 1):
        first, stop = int(starts[k]), int(starts[k + 1])
        a, b = int(edge_starts[k]), int(edge_starts[k + 1])
        if first == stop or (not reverse and k == 0):
            continue
        if a == b:
            levels.append((first, stop, a, b, None, None, None, None))
            continue
        d, w = key[a:b], v[a:b]
        change = d[1:] != d[:-1]
        by_key = np.flatnonzero(np.r_[True, change])
        degree = max(degree, int(np.diff(np.r_[by_key, b - a]).max()))
        groups = np.flatnonzero(np.r_[True, change | (w[1:] != w[:-1])])
        group_key = d[groups]
        cut2 = np.flatnonzero(np.r_[True, group_key[1:] != group_key[:-1]])
        levels.append((first, stop, a, b, groups, rate_obj[w[groups]], cut2, group_key[cut2]))
    found = (levels, sources, degree)
    setattr(edges, name, found)
    return found


def _bound_pair(edges: UnionEdges, one: int, reverse: bool):
    """``(low, high)`` object arrays of the floor and ceil runs (forward: $h^\\mp$; reverse:
    $a^\\mp$) in one packed pass (:func:`_paired`); equal to two separate runs of
    :func:`_forward` / :func:`_reverse` (tested)."""
    np = _np()
    levels, sources, degree = _pair_levels(edges, reverse)
    r = np.array(edges.r_int, dtype=object)
    packed, k_bits = _paired(levels, sources, r, one, degree, max([1, *edges.lam_int]), reverse)
    mask = (1 << k_bits) - 1
    return packed & mask, packed >> k_bits

class CompiledUnions:
    r"""The unions of the class server sets for the compiled kernels, built without edge lists:
    ``order`` (by size then value, as :class:`UnionEdges`), the exact slacks ``r`` (int64),
    the rates ``lam`` and ``nxt[i, c]``, the index of ``order[i] | S_c`` (``-1`` when $S_c$ is
    inside the union): the $E\le UJ$ steps of the DP as a $U\times J$ table. The closure
    runs on a bitmap of $2^M$ bits, the targets by binary search: O(UJ log U) machine
    operations, no sort of the edges.
    """

    def __init__(self, graph: SubsetGraph, lam_int: list[int], mu_int: list[int]) -> None:
        np = _np()
        from symq.engines.normalization import _limbs_jit as jit
        self.graph = graph
        masks = np.array(graph.masks, dtype=np.int64)
        words = np.zeros(max(1, (1 << graph.size) >> 6), dtype=np.uint64)
        values = np.sort(jit.union_closure(masks, graph.size, words))
        pop = np.zeros(len(values), dtype=np.int64)
        for j in range(graph.size):
            pop += (values >> j) & 1
        perm = np.lexsort((values, pop))
        rank = np.empty(len(values), dtype=np.int64)
        rank[perm] = np.arange(len(values))
        self.order = values[perm]
        r = np.array(_slacks(self.order, graph.masks, lam_int, mu_int), dtype=np.int64)
        if len(r) > 1 and int(r[1:].min()) <= 0:
            union_edges(graph)  # raises the stability error, naming the union
        r[0] = 1
        self.r = r
        self.lam = np.array(lam_int, dtype=np.int64)
        self.nxt = np.empty((len(values), len(masks)), dtype=np.int32)
        jit.union_targets(self.order, words, rank, masks, self.nxt)

    def __len__(self) -> int:
        return len(self.order)


def compiled_unions(graph: SubsetGraph) -> CompiledUnions | None:
    r"""The :class:`CompiledUnions` of ``graph`` (cached on it), or ``None`` where the compiled
    kernels do not apply: numba missing, or a multiplier $\lambda_cs$ or slack $r(X)s$ not
    below $2^{31}$. An unstable model (a union with $r(X)\le0$) raises as
    :func:`union_edges` does.

    >>> from symq import example_model
    >>> len(compiled_unions(SubsetGraph(example_model("n"))))
    3
    """
    found = getattr(graph, "_compiled_unions", None)
    if found is not None:
        return found or None
    from symq.engines.normalization import limbs
    lam_int, mu_int, _ = _integer_rates(graph)
    result = False
    if (graph.size <= 62 and limbs.available() and max([1, *lam_int]) < limbs.MAX_FACTOR
            and sum(mu_int) < limbs.MAX_FACTOR):
        result = CompiledUnions(graph, lam_int, mu_int)
    graph._compiled_unions = result
    return result or None


def compiled_route(edges: UnionEdges) -> bool:
    r"""Whether the compiled limb kernels take these unions: numba importable and every
    multiplier $\lambda_cs$ and divisor $r(X)s$ below $2^{31}$
    (:mod:`symq.engines.normalization.limbs`).

    >>> from symq import example_model
    >>> compiled_route(union_edges(SubsetGraph(example_model("n"))))
    True
    """
    return compiled_unions(edges.graph) is not None


def _compiled_pair(tables: CompiledUnions, bits: int, reverse: bool):
    r"""The floor run and the ceil run of the forward pass $h$ or the reverse pass $a$ on the
    compiled limb kernels, together: two ``(U, K)`` limb arrays, ``K`` widened and the runs
    repeated if a value does not fit (the widths are checked, never assumed)."""
    np = _np()
    from symq.engines.normalization import limbs
    from symq.engines.normalization import _limbs_jit as jit
    if isinstance(tables, UnionEdges):
        tables = compiled_unions(tables.graph)
    one = limbs.to_limbs([1 << bits], limbs.limbs_for(bits + 1))[0].astype(np.int64)
    k = limbs.limbs_for(bits + 16)
    while True:
        low = np.zeros((len(tables), k), dtype=np.uint32)
        high = np.zeros((len(tables), k), dtype=np.uint32)
        if reverse:
            code = jit.pull_reverse(tables.nxt, tables.lam, tables.r, one, low, high)
        else:
            acc = np.zeros((len(tables), 2 * (k + 2)), dtype=np.int64)
            code = jit.push_forward(tables.nxt, tables.lam, tables.r, one, low, high, acc)
            del acc
        if code == 0:
            return low, high
        k += 2


def _compiled_rows(tables: CompiledUnions, bits: int, up: bool, reverse: bool):
    """One directed run of :func:`_compiled_pair` (floor if ``up`` is false)."""
    return _compiled_pair(tables, bits, reverse)[1 if up else 0]


def _compiled_sums(tables: CompiledUnions, rows, size: int) -> list[int]:
    """``[sum over the unions without server j of rows] + [sum of all rows]`` (exact)."""
    np = _np()
    from symq.engines.normalization import limbs
    from symq.engines.normalization import _limbs_jit as jit
    width = rows.shape[1] + limbs.limbs_for(len(tables).bit_length() + 2) + 1
    out = np.zeros((size + 1, width), dtype=np.int64)
    jit.union_idle_sums(rows, tables.order, size, out)
    return limbs.from_limbs(out.astype(np.uint32))


def _compiled_class_sums(tables: CompiledUnions, h, a) -> list[int]:
    r"""$T_c$ of :func:`_class_sums` from limb rows, exactly."""
    np = _np()
    from symq.engines.normalization import limbs
    from symq.engines.normalization import _limbs_jit as jit
    width = h.shape[1] + a.shape[1] + limbs.limbs_for((len(tables) + 1).bit_length() + 2) + 2
    out = np.zeros((tables.nxt.shape[1], width), dtype=np.int64)
    jit.step_class_sums(tables.nxt, h, a, out)
    return limbs.from_limbs(out.astype(np.uint32))


def exact_cover_rows(graph: SubsetGraph, bits: int, up: bool):
    """The limb rows of one directed run of :func:`exact_cover_bounds` (compiled kernels), or
    ``None`` where :func:`compiled_route` refuses the graph."""
    tables = compiled_unions(graph)
    if tables is None:
        return None
    return _compiled_rows(tables, bits, up, False)


def exact_cover_bounds(graph: SubsetGraph, bits: int, up_too: bool = True
                       ) -> tuple[list[int], list[int], list[int]]:
    r"""Integer bounds ``low[i] <= 2**bits * H(order[i]) <= high[i]`` of the exact-cover weights
    of the collaborative DP on every union of class server sets (module docstring: floor and
    ceil runs of the same monotone integer recursion).

    This is the forward pass that other certified routes reuse (ALIS weights $H$); its signature
    stays stable.

    Parameters
    ----------
    graph : SubsetGraph
        A numeric model (exact rational rates); its field does not matter.
    bits : int
        Fixed-point bits $p$: ``H(empty)`` is ``2**bits``.
    up_too : bool
        Also the upper run (``high`` is ``low`` otherwise, and not a bound).

    Returns
    -------
    (order, low, high) : three lists
        The unions as bitmasks (by size then value, ``order[0] == 0``) and the integer bounds.

    Raises
    ------
    UnstableModelError
        A union whose slack $r(X)$ is not positive.

    Examples
    --------
    >>> from symq import model
    >>> w = model("w").substitute({"lambda_1": "1/5", "lambda_2": "1/5", "lambda_3": "1/5",
    ...                            "mu_1": "1", "mu_2": "1"})
    >>> order, low, high = exact_cover_bounds(SubsetGraph(w), 10)
    >>> order, low, high
    ([0, 1, 2, 3], [1024, 256, 256, 292], [1024, 256, 256, 293])

    Running time: O(E) operations on ``bits``-bit integers per run, E <= U J edges.
    """
    tables = compiled_unions(graph)
    if tables is not None:
        from symq.engines.normalization.limbs import from_limbs
        pair = _compiled_pair(tables, bits, False)
        low = from_limbs(pair[0])
        high = from_limbs(pair[1]) if up_too else low
        return tables.order.tolist(), low, high
    edges = union_edges(graph)
    if up_too:
        low, high = _bound_pair(edges, 1 << bits, False)
    else:
        low = high = _forward(edges, 1 << bits, False)
    return edges.order, [int(v) for v in low], [int(v) for v in high]


def _reverse(edges: UnionEdges, one: Any, up):
    r"""The object array of $a^\mp(X)$, $2^p\bar H(X)/(r(X)s)$ rounded (``a[0]`` is
    $2^p\bar H(\emptyset)$)."""
    np = _np()
    lam = np.array(edges.lam_int, dtype=object)
    r = np.array(edges.r_int, dtype=object)
    n = len(edges)
    a = np.zeros(n, dtype=object)
    by_src = getattr(edges, "_by_src", None)
    if by_src is None:
        src, dst, cls = edges._sorted("src")
        starts = np.searchsorted(edges.size_of, np.arange(0, edges.graph.size + 2))
        edge_starts = np.searchsorted(src, starts)
        levels = [(int(starts[k]), int(starts[k + 1]), int(edge_starts[k]),
                   int(edge_starts[k + 1])) for k in range(edges.graph.size + 1)
                  if starts[k] < starts[k + 1]]
        by_src = (src, dst, cls, levels)
        edges._by_src = by_src
    src, dst, cls, levels = by_src
    lam_e = lam[cls]
    for first, stop, lo, hi in reversed(levels):
        hbar = np.full(stop - first, one, dtype=object)
        if lo < hi:
            s = src[lo:hi]
            terms = lam_e[lo:hi] * a[dst[lo:hi]]
            cut = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
            hbar[s[cut] - first] += np.add.reduceat(terms, cut)
        if first == 0:  # the empty set: no division, a[0] = 2^p G
            a[0] = hbar[0]
            hbar_rest = hbar[1:]
            if len(hbar_rest):
                a[1:stop] = _divide(hbar_rest, r[1:stop], up)
        else:
            a[first:stop] = _divide(hbar, r[first:stop], up)
    return a


def _class_sums(edges: UnionEdges, h, a, exact: bool = False) -> list[Any]:
    r"""$T_c=\sum_{Y\to X\text{ via }c}h(Y)a(X)+\sum_{X\supseteq S_c}h(X)a(X)$ (integers)."""
    np = _np()
    out = []
    by_cls = getattr(edges, "_by_cls", None)
    if by_cls is None:
        src, dst, cls = edges._sorted("cls")
        bounds = np.searchsorted(cls, np.arange(len(edges.lam_int) + 1))
        xs = np.array(edges.order, dtype=np.int64)
        inside = [np.flatnonzero((xs & m) == m) for m in edges.graph.masks]
        by_cls = (src, dst, bounds, inside)
        edges._by_cls = by_cls
    src, dst, bounds, inside = by_cls
    prod_edge = h[src] * a[dst]
    ha = h * a
    ha[0] = 0
    conv = (lambda v: v) if exact else int
    zero = 0 * h[0]
    for c in range(len(edges.lam_int)):
        total = conv(prod_edge[bounds[c]:bounds[c + 1]].sum()) if bounds[c] < bounds[c + 1] \
            else zero
        sel = inside[c]
        if len(sel):
            total += conv(ha[sel].sum())
        out.append(total)
    return out


def collaborative_bounds(graph: SubsetGraph, bits: int, per_class: bool = False,
                         idle: bool = False, kernel: str = "auto") -> dict[str, Any]:
    r"""Rigorous :class:`~symq.arithmetic.interval.Interval` enclosures of $G$,
    $\pi(\emptyset)$, (if ``idle``) $P(k\text{ idle})$ and (if ``per_class``) the mean numbers
    $L_c$ of the collaborative model, from the fixed-point runs at ``bits`` bits (module
    docstring). Widths shrink like $2^{-\text{bits}}$ times the size of the problem.

    Parameters
    ----------
    graph : SubsetGraph
        A numeric, stable, connected or not model.
    bits : int
        Fixed-point bits.
    per_class, idle : bool
        Also the mean numbers ``"L"`` (and ``"L_total"``) / the idle probabilities ``"idle"``.
    kernel : ``"auto"``, ``"compiled"`` or ``"python"``
        The compiled limb kernels (:func:`compiled_route` decides under ``"auto"``) or the
        Python-integer kernels (the second route of the tests).

    Returns
    -------
    dict
        ``{"G", "empty", "idle": {server: Interval} or None, "L": {class: Interval},
        "L_total"}``; the bounds are exact rationals.

    Raises
    ------
    UnstableModelError
        If the model is unstable: the slack $r(X)$ of some union $X$ is $\le 0$.

    Examples
    --------
    The N model ($\lambda=(1/4,1/4)$, $\mu=(1,1)$) at 80 fixed-point bits:

    >>> from symq import example_model
    >>> out = collaborative_bounds(SubsetGraph(example_model("n")), 80, per_class=True, idle=True)
    >>> out["idle"]["2"].certify(6), out["L_total"].certify(6)
    ('0.857143', '0.523810')

    Running time: O(E) integer operations per pass (2 passes, 4 with ``per_class``), O(U M)
    more for ``idle``.
    """
    np = _np()
    one = 1 << bits
    if kernel != "python":
        tables = compiled_unions(graph)
        if tables is not None:
            return _compiled_bounds(graph, tables, bits, per_class, idle)
        if kernel == "compiled":
            raise ValueError("the compiled kernels need numba and integer rates below 2**31")
    edges = union_edges(graph)
    h_lo, h_hi = _bound_pair(edges, one, False)
    g_lo, g_hi = int(h_lo.sum()), int(h_hi.sum())
    out: dict[str, Any] = {"G": Interval(Fraction(g_lo, one), Fraction(g_hi, one)),
                           "empty": Interval(Fraction(one, g_hi), Fraction(one, g_lo)),
                           "idle": None}
    if idle:
        xs = np.array(edges.order, dtype=np.int64)
        out["idle"] = {}
        for j, s in enumerate(graph.servers):
            sel = np.flatnonzero(((xs >> j) & 1) == 0)
            lo, hi = int(h_lo[sel].sum()), int(h_hi[sel].sum())
            out["idle"][s] = Interval(Fraction(lo, g_hi), Fraction(hi, g_lo))
    if per_class:
        a_lo, a_hi = _bound_pair(edges, one, True)
        t_lo, t_hi = _class_sums(edges, h_lo, a_lo), _class_sums(edges, h_hi, a_hi)
        out["L"] = {c: Interval(Fraction(lam * lo, one * g_hi), Fraction(lam * hi, one * g_lo))
                    for c, lam, lo, hi in zip(graph.classes, edges.lam_int, t_lo, t_hi)}
        out["L_total"] = interval_sum(out["L"].values())
    return out


def _compiled_bounds(graph: SubsetGraph, edges: CompiledUnions, bits: int, per_class: bool,
                     idle: bool) -> dict[str, Any]:
    """:func:`collaborative_bounds` on the compiled limb kernels: the same floor and ceil runs
    (module docstring), the sums over unions exact in limbs."""
    one = 1 << bits
    size = graph.size
    h_lo, h_hi = _compiled_pair(edges, bits, False)
    columns = size if idle else 0  # the idle sums only when asked
    s_lo, s_hi = _compiled_sums(edges, h_lo, columns), _compiled_sums(edges, h_hi, columns)
    g_lo, g_hi = s_lo[columns], s_hi[columns]
    out: dict[str, Any] = {"G": Interval(Fraction(g_lo, one), Fraction(g_hi, one)),
                           "empty": Interval(Fraction(one, g_hi), Fraction(one, g_lo)),
                           "idle": None}
    if idle:
        out["idle"] = {s: Interval(Fraction(s_lo[j], g_hi), Fraction(s_hi[j], g_lo))
                       for j, s in enumerate(graph.servers)}
    if per_class:
        a_lo, a_hi = _compiled_pair(edges, bits, True)
        t_lo = _compiled_class_sums(edges, h_lo, a_lo)
        t_hi = _compiled_class_sums(edges, h_hi, a_hi)
        out["L"] = {c: Interval(Fraction(lam * lo, one * g_hi), Fraction(lam * hi, one * g_lo))
                    for c, lam, lo, hi in zip(graph.classes, edges.lam.tolist(), t_lo, t_hi)}
        out["L_total"] = interval_sum(out["L"].values())
    return out


def adjoint_mean_numbers(graph: SubsetGraph) -> dict[str, Any]:
    r"""Exact mean numbers $L_c$ of the collaborative model by the adjoint pass (module
    docstring) in the graph's exact field (``fmpq`` or ``Fraction``): one forward pass for $H$,
    one reverse pass for $a=\bar H/r$, and the class sums, O(E) exact operations.

    Parameters
    ----------
    graph : SubsetGraph
        Subset tables of a model with numeric rates; their field (``fmpq`` or ``Fraction``)
        must be exact.

    Returns
    -------
    dict
        The mean number in system $L_c$ of each class, keyed by class name, in that field.

    Examples
    --------
    >>> from symq import example_model
    >>> from symq.engines.normalization.subsets import SubsetGraph
    >>> n = example_model("n")   # the N model, lambda = (1/4, 1/4), mu = (1, 1)
    >>> {c: str(v) for c, v in adjoint_mean_numbers(SubsetGraph(n)).items()}
    {'1': '5/14', '2': '1/6'}

    Running time: O(E + U J) exact operations for E edges and U unions, after
    :func:`union_edges`.
    """
    edges = union_edges(graph)
    arith = graph.arith
    one = arith.one
    h = _forward(edges, one, None)
    a = _reverse(edges, one, None)
    sums = _class_sums(edges, h, a, exact=True)
    g = sum(h.tolist(), arith.zero)
    return {c: sums[k] * lam / g for k, (c, lam) in enumerate(zip(graph.classes, edges.lam_int))}
