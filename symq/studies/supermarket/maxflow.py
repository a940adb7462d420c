r"""The max-flow core of the supermarket decomposition on exact rationals: the parametric network
$N(v)$ whose minimum cuts give the maximisers of
$\psi_v(D) = \lambda(D\cup E)-\lambda(E)-\mu(D) - v\sum_{j\in D}1/w_j$, the smallest and largest
maximiser from one flow (Picard and Queyranne), the divide-and-conquer breakpoint search that
finds every cluster and drift with at most $2K-1$ max-flows and reads a static policy off the
same flows, and the assembly of clusters, streams, bonding and policy into a
:class:`~symq.studies.supermarket.Decomposition` (docs/supermarket.md, "How it is computed").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Mapping, Sequence

from symq._lazy import lazy_module
nx = lazy_module("networkx")  # imported on first use (start-up time)
import sympy

from symq.errors import ModelError
from symq.arithmetic.exact import to_fraction
from symq.models.model import Model
from symq.studies.supermarket.clusters import Cluster, Decomposition

__all__ = ["Instance", "breakpoint_search", "assemble", "flow_arcs"]


@dataclass
class Instance:
    r"""A numeric supermarket model with stations 0..N-1 and streams 0..M-1, as exact Fractions.

    Attributes
    ----------
    mu : list of Fraction
        $\mu_j$.
    inverse_weight : list of Fraction
        $1/w_j$.
    rates : list of Fraction
        $\lambda_i$.
    neighbourhoods : list of frozenset of int
        $S_i$.
    station_names, stream_names : tuple of str
        The model's server and class names.
    """

    mu: list[Fraction]
    inverse_weight: list[Fraction]
    rates: list[Fraction]
    neighbourhoods: list[frozenset[int]]
    station_names: tuple[str, ...] = ()
    stream_names: tuple[str, ...] = ()

    @classmethod
    def from_model(cls, model: Model, weights: Mapping[str, sympy.Rational]) -> "Instance":
        """The instance of a model with numeric rates and weights.

        Raises
        ------
        ModelError
            A rate that is not an exact rational number.

        Examples
        --------
        >>> from symq import model
        >>> m = model("n").substitute({"lambda_1": 1, "lambda_2": "1/2", "mu_1": 2, "mu_2": 3})
        >>> Instance.from_model(m, {"1": 1, "2": 2}).inverse_weight
        [Fraction(1, 1), Fraction(1, 2)]
        """
        index = {j: n for n, j in enumerate(model.servers)}
        hint = "; the max-flow decomposition needs exact rational rates: give a value such as " \
            "3/10 with --set"
        return cls(mu=[to_fraction(model.service_rates[j], f"service rate of server {j!r}", hint)
                       for j in model.servers],
                   inverse_weight=[1 / to_fraction(weights[j]) for j in model.servers],
                   rates=[to_fraction(model.arrival_rates[i], f"arrival rate of class {i!r}", hint)
                          for i in model.classes],
                   neighbourhoods=[frozenset(index[j] for j in model.compatibility[i])
                                   for i in model.classes],
                   station_names=model.servers, stream_names=model.classes)


def _residual_flow(instance: Instance, stations: Sequence[int], streams: Sequence[int],
                   level: Fraction, flow_func: Callable | None):
    r"""One exact max-flow on the network $N(v)$ at $v$ = ``level``.

    Source $0$ $\to$ stream $2+i$ (capacity $\lambda_i$) $\to$ station $2+M+j$ (infinite)
    $\to$ sink $1$ (capacity $c_j=\mu_j+v/w_j$), or source $\to$ station (capacity $-c_j$) when
    $c_j<0$. Integer node labels keep the flow (hence the policy) independent of hash seeds.
    Capacities are scaled by the lcm of their denominators so networkx works on integers.

    Returns the residual network, the scale, and $g(v)=\max_D\psi_v(D)$ as a Fraction.
    """
    offset = 2 + len(instance.rates)
    inside = set(stations)
    caps = {j: instance.mu[j] + level * instance.inverse_weight[j] for j in stations}
    scale = math.lcm(*(instance.rates[i].denominator for i in streams),
                     *(c.denominator for c in caps.values()))
    network = nx.DiGraph()
    network.add_nodes_from((0, 1))
    for i in streams:
        network.add_edge(0, 2 + i, capacity=int(instance.rates[i] * scale))
        for j in instance.neighbourhoods[i] & inside:
            network.add_edge(2 + i, offset + j)  # no capacity attribute: infinite
    negative = 0
    for j in stations:
        network.add_node(offset + j)
        cap = int(caps[j] * scale)
        if cap > 0:
            network.add_edge(offset + j, 1, capacity=cap)
        elif cap < 0:
            network.add_edge(0, offset + j, capacity=-cap)
            negative -= cap
    supply = sum(int(instance.rates[i] * scale) for i in streams)
    # Dinitz: about 3 s for redundancy:16:8 (116,000 arcs), where Boykov-Kolmogorov's orphan
    # adoption took minutes (issue 25); every networkx algorithm gives the same decomposition
    residual = (flow_func or nx.algorithms.flow.dinitz)(network, 0, 1)
    excess = Fraction(supply + negative - residual.graph["flow_value"], scale)
    return residual, scale, excess


def _extreme_maximisers(residual: nx.DiGraph, stations: Sequence[int], offset: int
                        ) -> tuple[frozenset[int], frozenset[int]]:
    """Smallest and largest maximisers from one max-flow (Picard and Queyranne): the stations
    reachable from the source, and those that cannot reach the sink, in the residual network."""
    reached, reaching = _closure(residual, 0, forward=True), _closure(residual, 1, forward=False)
    smallest = frozenset(j for j in stations if offset + j in reached)
    largest = frozenset(j for j in stations if offset + j not in reaching)
    return smallest, largest


def _closure(residual: nx.DiGraph, start: int, forward: bool) -> set[int]:
    """The nodes reachable from ``start`` along arcs with residual capacity (``forward``), or the
    nodes from which ``start`` is reachable so (not ``forward``)."""
    seen, todo = {start}, [start]
    while todo:
        u = todo.pop()
        for v in (residual.succ[u] if forward else residual.pred[u]):
            arc = residual[u][v] if forward else residual[v][u]
            if v not in seen and arc["capacity"] - arc["flow"] > 0:
                seen.add(v)
                todo.append(v)
    return seen


def _record_flows(instance: Instance, residual: nx.DiGraph, scale: int, streams, inside,
                  routing: dict[int, dict[int, Fraction]]) -> None:
    offset = 2 + len(instance.rates)
    for i in streams:
        lam = instance.rates[i]
        routing[i] = {j: Fraction(residual[2 + i][offset + j]["flow"], scale) / lam
                      for j in sorted(instance.neighbourhoods[i] & inside)}


def flow_arcs(instance: Instance, stations=None, streams=None) -> int:
    r"""Arcs of one max-flow network of :func:`breakpoint_search`: a source arc per stream, an
    arc per compatible stream-station pair, a sink (or source) arc per station.

    Parameters
    ----------
    instance : Instance
    stations, streams : iterables of int, optional
        The sub-network (default: all stations and streams).

    Returns
    -------
    int

    Examples
    --------
    >>> from symq import model
    >>> m = model("n").substitute({"lambda_1": 3, "lambda_2": 1, "mu_1": 1, "mu_2": 1})
    >>> flow_arcs(Instance.from_model(m, {"1": 1, "2": 1}))   # 2 + 3 + 2
    7

    Running time: O(arcs).
    """
    inside = set(range(len(instance.mu)) if stations is None else stations)
    streams = range(len(instance.rates)) if streams is None else streams
    return sum(1 + len(instance.neighbourhoods[i] & inside) for i in streams) + len(inside)


def breakpoint_search(instance: Instance, flow_func: Callable | None = None,
                      max_arcs: int | None = None
                      ) -> tuple[list[tuple[Fraction, frozenset[int]]], dict[int, dict[int, Fraction]]]:
    r"""Clusters and drifts by divide and conquer on the breakpoints.

    Invariant: $X=E_b$ and $X\cup U=E_a$ are unions of leading clusters. The drift
    $v=(\lambda_{\mathrm{loc}}-\mu(U))/H(U)$ where their lines cross is tested with one max-flow:
    if $g(v)=0$, $U$ is one cluster with drift $v$; otherwise the smallest and largest maximisers
    $X\cup D_{\min}$, $X\cup D_{\max}$ are new unions of leading clusters, $D_{\max}\setminus
    D_{\min}$ (if non-empty) is the cluster with drift $v$, and both sides are searched further.
    At most $2K-1$ max-flows. The policy comes from the same flows.

    Parameters
    ----------
    instance : Instance
        Integer-scaled rates and weights of the model.
    flow_func : callable, optional
        A networkx max-flow function (default Dinitz).
    max_arcs : int, optional
        The ``supermarket-work`` limit: the arcs of all max-flows together (:func:`flow_arcs`
        each, about 30 microseconds an arc); the search stops before a max-flow that would pass
        it. ``None``: no limit.

    Returns
    -------
    tuple
        ``[(drift, station indices)]`` in decreasing drift, and the routing
        ``{stream: {station: fraction}}``.

    Raises
    ------
    TooLargeError
        The next max-flow would pass ``max_arcs`` (``redundancy:16:8`` needs 115,846 arcs for
        its first one).

    Examples
    --------
    >>> from symq import model
    >>> m = model("n").substitute({"lambda_1": 3, "lambda_2": 1, "mu_1": 1, "mu_2": 1})
    >>> records, routing = breakpoint_search(Instance.from_model(m, {"1": 1, "2": 1}))
    >>> records
    [(Fraction(2, 1), frozenset({0})), (Fraction(0, 1), frozenset({1}))]

    Running time: at most $2K-1$ max-flows on $N+S+2$ nodes for K clusters, N stations and S
    streams (Dinitz: about 3 s for the 115,846 arcs of ``redundancy:16:8``).
    """
    offset = 2 + len(instance.rates)
    active = [i for i, lam in enumerate(instance.rates) if lam > 0]
    records: list[tuple[Fraction, frozenset[int]]] = []
    routing: dict[int, dict[int, Fraction]] = {}
    stack = [(frozenset(), frozenset(range(len(instance.mu))), tuple(active))]
    done, flows = 0, 0
    while stack:
        assigned, stations, streams = stack.pop()
        ordered = sorted(stations)
        arcs = flow_arcs(instance, stations, streams)
        if max_arcs is not None and done + arcs > max_arcs:
            from symq.errors import TooLargeError
            from symq.limits import number_text
            stations_count = len(instance.mu)
            raise TooLargeError(
                f"too large: the supermarket decomposition needs more than "
                f"{number_text(max_arcs)} max-flow arcs (the limit; {flows} max-flows of "
                f"{number_text(done)} arcs done, the next has {number_text(arcs)}; at most "
                f"{2 * stations_count - 1} max-flows of at most "
                f"{number_text(flow_arcs(instance))} arcs each); pass --max-work "
                f"{max(done + arcs, flow_arcs(instance) * (2 * stations_count - 1))} to go "
                "ahead, or --no-limits")
        done, flows = done + arcs, flows + 1
        level = ((sum((instance.rates[i] for i in streams), Fraction(0))
                  - sum(instance.mu[j] for j in ordered))
                 / sum(instance.inverse_weight[j] for j in ordered))
        residual, scale, excess = _residual_flow(instance, ordered, streams, level, flow_func)
        if excess == 0:  # both X and X u U maximise: U is the cluster at this breakpoint
            records.append((level, stations))
            _record_flows(instance, residual, scale, streams, stations, routing)
            continue
        smallest, largest = _extreme_maximisers(residual, ordered, offset)
        assert smallest and largest != stations, "a positive excess has proper maximisers"
        if smallest != largest:
            records.append((level, largest - smallest))
            split = [i for i in streams if instance.neighbourhoods[i] & stations <= largest
                     and not instance.neighbourhoods[i] & stations <= smallest]
            _record_flows(instance, residual, scale, split, largest - smallest, routing)
        if largest != stations:
            upper = assigned | largest
            stack.append((upper, stations - largest,
                          tuple(i for i in streams if not instance.neighbourhoods[i] <= upper)))
        stack.append((assigned, smallest,
                      tuple(i for i in streams if instance.neighbourhoods[i] & stations <= smallest)))
    records.sort(key=lambda record: record[0], reverse=True)
    return records, routing


def assemble(model: Model, weights: Mapping[str, sympy.Rational], instance: Instance,
              records: list[tuple[Fraction, frozenset[int]]],
              routing: dict[int, dict[int, Fraction]] | None, method: str) -> Decomposition:
    r"""Clusters with their streams $T_k$, bonding, and the policy as sympy Rationals.

    Parameters
    ----------
    model : Model
        The supermarket model.
    weights : mapping
        Station weights $w_j$.
    instance : Instance
        Its scaled form.
    records : list
        ``[(drift, station indices)]`` from :func:`breakpoint_search` or brute force.
    routing : dict or None
        The flows' policy; ``None`` leaves bonding and policy unknown.
    method : str
        How the clusters were found, for reports.

    Returns
    -------
    Decomposition

    Examples
    --------
    >>> from symq import model
    >>> m = model("n").substitute({"lambda_1": 3, "lambda_2": 1, "mu_1": 1, "mu_2": 1})
    >>> weights = {"1": 1, "2": 1}
    >>> instance = Instance.from_model(m, weights)
    >>> d = assemble(m, weights, instance, *breakpoint_search(instance), "max-flow")
    >>> [(c.stations, c.drift) for c in d.clusters]
    [(('1',), 2), (('2',), 0)]

    Running time: O(K S + N) plus the bonding test of each cluster.
    """
    position = {}
    for k, (_, stations) in enumerate(records):
        for j in stations:
            position[j] = k
    stream_cluster = [max(position[j] for j in s) for s in instance.neighbourhoods]
    clusters = []
    for k, (level, stations) in enumerate(records):
        members = [i for i, kk in enumerate(stream_cluster) if kk == k]
        bonded = None if routing is None else _is_bonded(instance, stations, members, routing)
        clusters.append(Cluster(stations=tuple(instance.station_names[j] for j in sorted(stations)),
                                drift=sympy.Rational(level.numerator, level.denominator),
                                streams=tuple(instance.stream_names[i] for i in members),
                                bonded=bonded))
    policy = None
    if routing is not None:
        policy = {}
        for i, name in enumerate(instance.stream_names):
            row = routing.get(i)
            if row is None:  # a zero-rate stream: uniform on S_i within C_k(i)
                targets = [j for j in instance.neighbourhoods[i]
                           if position[j] == stream_cluster[i]]
                row = {j: Fraction(1, len(targets)) for j in targets}
            policy[name] = {instance.station_names[j]: sympy.Rational(p.numerator, p.denominator)
                            for j, p in sorted(row.items())}
            for j in sorted(instance.neighbourhoods[i]):
                policy[name].setdefault(instance.station_names[j], sympy.Integer(0))
            policy[name] = {j: policy[name][j] for j in model.compatibility[name]}
    return Decomposition(model=model, weights=dict(weights), clusters=tuple(clusters),
                         policy=policy, method=method)


def _is_bonded(instance: Instance, stations: frozenset[int], members: list[int],
               routing: dict[int, dict[int, Fraction]]) -> bool:
    r"""Whether $C_k$ is bonded: its only maximiser is itself.

    With every cap $c_j=\mu_j+V_k/w_j$ and every stream of $T_k$ saturated by the cluster's
    flow, the minimum cuts are the closed sets of the residual graph (arcs $i\to j$ always,
    $j\to i$ where $f_{ij}>0$). A proper tight set exists iff that graph is not strongly connected.
    """
    graph = nx.DiGraph()
    graph.add_nodes_from(("station", j) for j in stations)
    for i in members:
        if instance.rates[i] == 0:
            continue
        graph.add_node(("stream", i))
        for j in instance.neighbourhoods[i] & stations:
            graph.add_edge(("stream", i), ("station", j))
            if routing[i].get(j, 0) > 0:
                graph.add_edge(("station", j), ("stream", i))
    return nx.is_strongly_connected(graph)
