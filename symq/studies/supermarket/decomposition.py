r"""The hierarchical minimax decomposition of [SM]_ (eq. 1.2) and its checks: :func:`decompose`
computes it by the exact parametric max-flow of :mod:`symq.studies.supermarket.maxflow` (for symbolic
rates: the structure at one point, then proved valid for all positive values),
:func:`brute_force_decomposition` by enumerating station subsets (the independent route of the
tests), and :func:`certify_decomposition` proves a numeric result optimal by a linear-time
certificate. With $E_{k-1} = C_1\cup\dots\cup C_{k-1}$ and $R_k$ the other stations,
$V_k = \max_{\emptyset\ne D\subseteq R_k} (\lambda(D\cup E_{k-1})-\lambda(E_{k-1})-\mu(D))/H(D)$,
$H(D)=\sum_{j\in D}1/w_j$, and $C_k$ is the largest maximiser (docs/supermarket.md).

References
----------
.. [SM] "Dynamics of the supermarket model", eq. 1.2 and the decomposition theorem; heterogeneous stations,
   neighbourhoods $S_i$, join-the-least-weighted-queue (see ``docs/supermarket.md``).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Callable, Mapping

import sympy

from symq.errors import ModelError, UnsupportedError, VerificationError
from symq.models.model import Model
from symq.studies.supermarket.clusters import Cluster, Decomposition
from symq.studies.supermarket.maxflow import Instance, assemble, breakpoint_search
from symq.studies.supermarket.policy import drift_rates, parse_weights
from symq.studies.supermarket.signs import holds_for_all_positive

__all__ = ["decompose", "brute_force_decomposition", "certify_decomposition",
           "MAX_SYMBOLIC_CLUSTER"]

#: Largest cluster for which the symbolic validity conditions (2^|C_k| inequalities) are listed.
MAX_SYMBOLIC_CLUSTER = 14


def decompose(model: Model, weights: Mapping[str, Any] | None = None, *,
              flow_func: Callable | None = None, max_arcs: int | None = None) -> Decomposition:
    r"""The hierarchical minimax decomposition: clusters $C_k$, drifts $V_k$, a policy in $\Pi_K$.

    Implements eq. 1.2 and the decomposition theorem of [SM]_ through the characterisation of
    :mod:`symq.studies.supermarket.decomposition`, computed by the parametric max-flow breakpoint search
    of :func:`symq.studies.supermarket.maxflow.breakpoint_search` (at most $2K-1$ exact max-flows, no
    subset enumeration). For numeric rates the result
    carries a static policy in $\Pi_K$ read off the flows; every result can be checked with
    :func:`certify_decomposition`.

    For symbolic rates the cluster structure is found at one numeric point and then proved valid
    for **all** positive values of the symbols by the linear conditions
    ($V_1>V_2>\dots$ and $\lambda_{E_{k-1}}(D)-\mu(D)\le V_kH(D)$ for every $D\subseteq C_k$);
    the drifts are then exact symbolic expressions. If the structure depends on the values, a
    :class:`~symq.errors.ModelError` asks for them.

    Parameters
    ----------
    model : a :class:`~symq.models.model.Model`; classes are neighbourhoods (streams), servers are stations
    weights : station name to a positive exact weight $w_j$ (default 1)
    flow_func : a networkx max-flow function (default ``dinitz``); it must return a
        full flow (``preflow_push`` with its default ``value_only=False`` is fine)
    max_arcs : the ``supermarket-work`` limit on the arcs of all max-flows together (numeric
        rates; :func:`symq.studies.supermarket.maxflow.breakpoint_search`); ``None``: none

    Returns
    -------
    Decomposition

    Raises
    ------
    ModelError
        Bad weights (unknown station, float, symbol, not positive), or symbolic rates for which
        the cluster structure depends on the values.
    TooLargeError
        The max-flows would pass ``max_arcs``.
    UnsupportedError
        Symbolic rates with a cluster too large to list its validity conditions.

    Examples
    --------
    >>> from symq import model
    >>> d = decompose(model("w").substitute({"lambda_1": 2, "lambda_2": "1/2", "lambda_3": 1,
    ...                                      "mu_1": 1, "mu_2": 1}))
    >>> [(c.stations, c.drift) for c in d.clusters], d.stable
    ([(('1',), 1), (('2',), 1/2)], False)

    Notes
    -----
    Running time: at most $2K-1$ exact max-flows for $K$ clusters (numeric rates); for symbolic
    rates one numeric decomposition and $2^{|C_k|}$ linear conditions per cluster.
    """
    from symq.models.arguments import check_model
    check_model(model, "decompose(model)")
    if not isinstance(model, Model):
        raise TypeError(f"decompose needs a symq Model, not {type(model).__name__}")
    weights = parse_weights(model, weights)
    if not model.is_numeric:
        return _symbolic_decomposition(model, weights, flow_func)
    instance = Instance.from_model(model, weights)
    records, routing = breakpoint_search(instance, flow_func, max_arcs=max_arcs)
    return assemble(model, weights, instance, records, routing,
                     "parametric max-flow, breakpoint search (exact)")


def brute_force_decomposition(model: Model, weights: Mapping[str, Any] | None = None
                              ) -> Decomposition:
    r"""The same decomposition by enumerating station subsets, stage by stage (tests only).

    At stage $k$, $V_k=\max_D r_{E_{k-1}}(D)$ over all non-empty $D\subseteq R_k$, with
    $r_E(D) = (\lambda(D\cup E)-\lambda(E)-\mu(D))/H(D)$, and $C_k$ is the union of all
    maximisers: the definition itself, independent of the max-flow, so the tests compare the two.

    Parameters
    ----------
    model : Model
        Numeric (exact rational) rates.
    weights : mapping, optional
        Station weights (default 1).

    Returns
    -------
    Decomposition
        Without a policy.

    Raises
    ------
    ModelError
        Bad weights or rates that are not exact numbers.

    Notes
    -----
    Running time: $O(2^N M)$ per stage for $N$ stations and $M$ streams.

    Examples
    --------
    >>> from symq import model
    >>> m = model("w").substitute({"lambda_1": 2, "lambda_2": "1/2", "lambda_3": 1, "mu_1": 1,
    ...                            "mu_2": 1})
    >>> [(c.stations, c.drift) for c in brute_force_decomposition(m).clusters]
    [(('1',), 1), (('2',), 1/2)]
    """
    weights = parse_weights(model, weights)
    instance = Instance.from_model(model, weights)
    assigned: frozenset[int] = frozenset()
    remaining = list(range(len(instance.mu)))
    records = []
    while remaining:
        best, union = None, frozenset()
        for size in range(1, len(remaining) + 1):
            for subset in itertools.combinations(remaining, size):
                chosen = assigned | frozenset(subset)
                forced = sum((lam for lam, s in zip(instance.rates, instance.neighbourhoods)
                              if s <= chosen and not s <= assigned), Fraction(0))
                ratio = ((forced - sum(instance.mu[j] for j in subset))
                         / sum(instance.inverse_weight[j] for j in subset))
                if best is None or ratio > best:
                    best, union = ratio, frozenset(subset)
                elif ratio == best:
                    union |= frozenset(subset)
        records.append((best, union))
        assigned |= union
        remaining = [j for j in remaining if j not in union]
    return assemble(model, weights, instance, records, None, "brute force over station subsets")


def certify_decomposition(decomposition: Decomposition) -> None:
    r"""Prove a numeric decomposition optimal by a certificate, or raise.

    A partition $C_1,\dots,C_K$, drifts $V_1>\dots>V_K$ and a valid static policy such that
    (i) each class routes only into $C_{k(i)}$, the lowest-drift cluster it reaches, and
    (ii) $w_jV(j;\pi)=V_k$ on $C_k$, **is** the hierarchical minimax decomposition. The check is
    linear in the size of the model and exact.

    Parameters
    ----------
    decomposition : Decomposition
        With a policy (numeric rates).

    Raises
    ------
    VerificationError
        Naming the first property that fails, or a decomposition without a policy.

    Notes
    -----
    Running time: $O(N + M + \sum_i |S_i|)$ exact comparisons.

    Examples
    --------
    >>> from symq import model
    >>> m = model("n").substitute({"lambda_1": 1, "lambda_2": 1, "mu_1": 1, "mu_2": 1})
    >>> certify_decomposition(decompose(m))
    """
    model = decomposition.model
    if decomposition.policy is None:
        raise VerificationError("the decomposition has no policy to certify (symbolic rates)")
    clusters = decomposition.clusters
    seen: list[str] = [j for c in clusters for j in c.stations]
    if sorted(seen) != sorted(model.servers) or len(set(seen)) != len(seen):
        raise VerificationError(f"the clusters {[c.stations for c in clusters]} do not partition "
                                f"the stations {model.servers}")
    if any(not c.stations for c in clusters):
        raise VerificationError("a cluster is empty")
    for upper, lower in zip(clusters, clusters[1:]):
        if not upper.drift > lower.drift:
            raise VerificationError(f"drifts are not strictly decreasing: cluster {upper.stations} "
                                    f"has {upper.drift}, the next {lower.stations} has {lower.drift}")
    try:
        drift = drift_rates(model, decomposition.policy)
    except ModelError as error:
        raise VerificationError(f"the policy is not valid: {error}") from None
    index = {j: k for k, c in enumerate(clusters) for j in c.stations}
    for i, row in decomposition.policy.items():
        lowest = max(index[j] for j in model.compatibility[i])
        for j, p in row.items():
            if p != 0 and index[j] != lowest:
                raise VerificationError(f"class {i!r} sends {p} to station {j!r} in cluster "
                                        f"{clusters[index[j]].stations}, not only to its lowest-drift "
                                        f"cluster {clusters[lowest].stations}")
    for k, cluster in enumerate(clusters):
        if cluster.streams != tuple(i for i in model.classes
                                    if max(index[j] for j in model.compatibility[i]) == k):
            raise VerificationError(f"cluster {cluster.stations} lists the wrong streams "
                                    f"{cluster.streams}")
        for j in cluster.stations:
            weighted = decomposition.weights[j] * drift[j]
            if weighted != cluster.drift:
                raise VerificationError(f"station {j!r} of cluster {cluster.stations} has weighted "
                                        f"drift {weighted} under the policy, not {cluster.drift}")



def _culprits(expr: sympy.Expr, fallback: str) -> str:
    names = sorted(s.name for s in expr.free_symbols)
    return ", ".join(names) if names else fallback


def _symbolic_decomposition(model: Model, weights: Mapping[str, sympy.Rational],
                            flow_func: Callable | None) -> Decomposition:
    """Structure at one point, then proved valid for all positive values ."""
    point = {s.name: 1 for s in model.symbols}
    try:
        numeric = decompose(model.substitute(point), weights, flow_func=flow_func)
    except ModelError as error:
        raise ModelError(f"cannot find the cluster structure of symbolic rates ({error}); give "
                         "the symbols values with --set NAME=VALUE") from None
    names = ", ".join(sorted(point))
    conditions: list[sympy.Expr] = []
    assigned: list[str] = []
    drifts: list[sympy.Expr] = []
    inverse = {j: 1 / weights[j] for j in model.servers}
    for cluster in numeric.clusters:
        if len(cluster.stations) > MAX_SYMBOLIC_CLUSTER:
            raise UnsupportedError(
                f"cluster {cluster.stations} has {len(cluster.stations)} stations; proving its "
                f"structure for symbolic rates lists 2^{len(cluster.stations)} conditions (limit "
                f"2^{MAX_SYMBOLIC_CLUSTER}); give the symbols {names} values with --set")
        load = model.arrival_rate([i for i in model.classes
                                   if set(model.compatibility[i]) <= set(assigned) | set(cluster.stations)
                                   and not set(model.compatibility[i]) <= set(assigned)])
        drift = sympy.simplify((load - model.service_rate(cluster.stations))
                               / sum(inverse[j] for j in cluster.stations))
        drifts.append(drift)
        for size in range(1, len(cluster.stations)):
            for subset in itertools.combinations(cluster.stations, size):
                chosen = set(assigned) | set(subset)
                forced = model.arrival_rate([i for i in model.classes
                                             if set(model.compatibility[i]) <= chosen
                                             and not set(model.compatibility[i]) <= set(assigned)])
                # validity condition 2: lambda_E(D) - mu(D) <= V_k H(D)
                slack = drift * sum(inverse[j] for j in subset) - forced + model.service_rate(subset)
                slack = sympy.expand(slack)
                if not holds_for_all_positive(slack, strict=False):
                    raise ModelError(
                        f"the clusters depend on the values of {_culprits(slack, names)}: stations "
                        f"{subset} split from cluster {cluster.stations} when {slack} < 0; give "
                        "them values with --set NAME=VALUE")
                if slack not in conditions and slack.free_symbols:
                    conditions.append(slack)
        assigned += cluster.stations
    for k in range(len(drifts) - 1):
        gap = sympy.expand(drifts[k] - drifts[k + 1])
        # validity condition 1: V_1 > V_2 > ...
        if not holds_for_all_positive(gap, strict=True):
            raise ModelError(
                f"the clusters depend on the values of {_culprits(gap, names)}: clusters "
                f"{numeric.clusters[k].stations} and {numeric.clusters[k + 1].stations} merge or "
                f"swap when {gap} <= 0; give them values with --set NAME=VALUE")
        if gap not in conditions and gap.free_symbols:
            conditions.append(gap)
    clusters = tuple(Cluster(stations=c.stations, drift=v, streams=c.streams, bonded=None)
                     for c, v in zip(numeric.clusters, drifts))
    return Decomposition(model=model, weights=dict(weights), clusters=clusters, policy=None,
                         conditions=tuple(conditions),
                         method="parametric max-flow at one point, structure proved for all "
                                "positive values (exact)")
