r"""The supermarket model: drift rates, the hierarchical minimax decomposition, JLW dynamics.

Stations $j$ (the servers of a :class:`~symq.model.Model`) work at rates $\mu_j$; jobs arrive at
neighbourhoods $S_i$ (the classes) as Poisson($\lambda_i$) streams and each job is routed to one
station of $S_i$. A static policy $\pi$ sends a job of stream $i$ to $j$ with probability
$\pi(i)_j$; the drift of station $j$ is (eq. 1.1 of [SM]_)

.. math:: V(j;\pi) = \sum_i \lambda_i\,\pi(i)_j - \mu_j .

With positive station weights $w_j$, the hierarchical minimax decomposition (eq. 1.2 of [SM]_)
splits the stations into clusters $C_1, C_2, \dots$ with weighted drifts $V_1 > V_2 > \dots$:
$V_k$ is the smallest possible largest weighted drift $w_jV(j;\pi)$ over the stations not yet
assigned, among the policies that already achieve $V_1,\dots,V_{k-1}$, and $C_k$ is the set of
stations that attain it under every such policy. By the characterisation proved in
``notes/supermarket.md`` (section 3.3),

.. math:: V_k = \max_{\emptyset\ne D\subseteq R_k}
          \frac{\lambda(D\cup E_{k-1})-\lambda(E_{k-1})-\mu(D)}{\sum_{j\in D}1/w_j},

where $E_{k-1}=C_1\cup\dots\cup C_{k-1}$, $R_k$ the other stations, $\lambda(X)$ the total rate
of the streams with $S_i\subseteq X$, and $C_k$ is the largest maximiser. symq computes it
exactly, without enumerating subsets, by a breakpoint search over a parametric max-flow on exact
rationals (capacities scaled to integers; section 4.4 of the note), reads a static policy in
$\Pi_K$ off the same flows (section 4.5), and checks any decomposition with the linear-time
certificate of section 3.5 (:func:`certify_decomposition`).

Under join-the-least-weighted-queue (JLW: an arrival of stream $i$ joins
$\arg\min_{j\in S_i} w_jx_j$) the system is stable when $V_1<0$ and unstable (transient, or null
recurrent when $V_1=0$) otherwise; the unreflected random walk $\xi$ has
$w_j\xi_j(t)/t\to V_k$ on $C_k$ ([SM]_, main result), which :func:`simulate_jlw` reproduces.

The printed weighted averaging $|D|^{-1}\sum_{j\in D}w_jV_j$ of the source holds only for
$w\equiv1$; the correct denominator is $H(D)=\sum_{j\in D}1/w_j$ (errata in the note, 3.9).

Examples
--------
>>> from sympy import latex
>>> from symq import loads
>>> from symq.supermarket import decompose
>>> m = loads('''
... [classes.a]
... arrival_rate = "4"
... servers = ["1", "2"]
... [servers.1]
... service_rate = "1"
... [servers.2]
... service_rate = "1"
... ''')
>>> d = decompose(m, {"2": 2})
>>> [(c.stations, c.drift) for c in d.clusters]
[(('1', '2'), 4/3)]
>>> d.policy["a"]
{'1': 7/12, '2': 5/12}
>>> d.stable
False
>>> from symq import model
>>> print(latex(decompose(model("redundancy:3:1")).clusters[0].drift))
\frac{\lambda}{3} - \mu

References
----------
.. [SM] "Dynamics of the supermarket model" (heterogeneous stations, neighbourhoods $S_i$,
   join-the-least-weighted-queue), ``papers/002_8842f953da24ab44.txt``; algorithms and proofs in
   ``notes/supermarket.md``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import networkx as nx
import sympy

from .errors import ModelError, UnsupportedError, VerificationError
from .model import Model
from .rates import parse_value

__all__ = ["Cluster", "Decomposition", "JLWSimulation", "parse_weights", "drift_rates",
           "check_policy", "decompose", "brute_force_decomposition", "certify_decomposition",
           "decomposition_latex", "simulate_jlw", "cluster_tolerance"]

#: Largest cluster for which the symbolic validity conditions (2^|C_k| inequalities) are listed.
MAX_SYMBOLIC_CLUSTER = 14


# ------------------------------------------------------------------------------- inputs
def _fraction(value: sympy.Expr) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def parse_weights(model: Model, weights: Mapping[str, Any] | None = None) -> dict[str, sympy.Rational]:
    """Station weights $w_j$ as exact positive rationals; stations not named get weight 1.

    Parameters
    ----------
    model : the model whose servers are the stations
    weights : mapping of station name to a positive exact number (``2``, ``"3/2"``,
        ``Fraction(3, 2)``, a sympy Rational; the decimal string ``"0.5"`` is read as 1/2)

    Raises
    ------
    ModelError
        An unknown station, a float, a symbol, or a weight that is not positive.
    TypeError
        ``weights`` is not a mapping, or a weight of a type symq cannot read.
    """
    if weights is None:
        weights = {}
    if not isinstance(weights, Mapping):
        raise TypeError(f"weights must be a mapping of station name to weight, not "
                        f"{type(weights).__name__}")
    result = {j: sympy.Integer(1) for j in model.servers}
    for name, value in weights.items():
        station = str(name)
        if station not in result:
            raise ModelError(f"weight given for the unknown station {station!r}; stations are "
                             f"{', '.join(repr(j) for j in model.servers)}")
        what = f"weight of station {station!r}"
        weight = parse_value(value, what)
        if weight.free_symbols:
            raise ModelError(f"{what} is {weight}; weights must be exact positive numbers such as "
                             "2 or 3/2, not symbols")
        if not weight.is_Rational:
            raise ModelError(f"{what} is {weight}, which is not a rational number; give e.g. 3/2")
        if weight <= 0:
            raise ModelError(f"{what} is {weight}; weights must be positive")
        result[station] = weight
    return result


def check_policy(model: Model, policy: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, sympy.Expr]]:
    r"""Validate a static policy $\pi$: for each class, routing probabilities over its stations.

    A valid policy gives every class $i$ probabilities that are non-negative, zero outside $S_i$
    and sum to one on $S_i$. Stations a class does not mention get probability 0.

    Raises
    ------
    ModelError
        A missing or unknown class, an unknown station, a station outside $S_i$ with positive
        probability, a negative probability, or probabilities that do not sum to one.
    """
    result: dict[str, dict[str, sympy.Expr]] = {}
    for i in policy:
        if str(i) not in model.compatibility:
            raise ModelError(f"the policy routes the unknown class {i!r}; classes are "
                             f"{', '.join(model.classes)}")
    for i in model.classes:
        if i not in policy:
            raise ModelError(f"the policy does not route class {i!r}; give its probabilities")
        row = {str(j): parse_value(p, f"probability of routing class {i!r} to station {j!r}")
               for j, p in dict(policy[i]).items()}
        for j, p in row.items():
            if j not in model.service_rates:
                raise ModelError(f"the policy routes class {i!r} to the unknown station {j!r}")
            if j not in model.compatibility[i] and p != 0:
                raise ModelError(f"the policy routes class {i!r} to station {j!r}, which is not "
                                 f"in its neighbourhood {set(model.compatibility[i])}")
            if p.is_negative:
                raise ModelError(f"the policy gives class {i!r} the negative probability {p} "
                                 f"at station {j!r}")
        total = sympy.simplify(sum(row.values(), sympy.Integer(0)))
        if total != 1:
            raise ModelError(f"the routing probabilities of class {i!r} sum to {total}, not 1")
        result[i] = {j: row.get(j, sympy.Integer(0)) for j in model.compatibility[i]}
    return result


def drift_rates(model: Model, policy: Mapping[str, Mapping[str, Any]]) -> dict[str, sympy.Expr]:
    r"""The drift $V(j;\pi)=\sum_i\lambda_i\pi(i)_j-\mu_j$ of every station (eq. 1.1 of [SM]_).

    Exact, and symbolic when the rates are symbols.

    Examples
    --------
    >>> from symq import model
    >>> v = drift_rates(model("n"), {"1": {"1": 1}, "2": {"1": "1/2", "2": "1/2"}})
    >>> v["1"]
    lambda_1 + lambda_2/2 - mu_1

    Raises
    ------
    ModelError
        An invalid policy (see :func:`check_policy`).
    """
    routing = check_policy(model, policy)
    drift = {j: -model.service_rates[j] for j in model.servers}
    for i, row in routing.items():
        for j, p in row.items():
            drift[j] += model.arrival_rates[i] * p
    return drift


# ------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Cluster:
    r"""One cluster $C_k$ of the decomposition.

    Attributes
    ----------
    stations : the stations of $C_k$, in model order
    drift : $V_k$, the common weighted drift $w_jV(j;\pi)$ of its stations under $\Pi_K$
    streams : the classes $T_k=\{i: k(i)=k\}$ whose lowest-drift reachable cluster is $C_k$;
        exactly these feed $C_k$ under every policy of $\Pi_K$
    bonded : whether some policy of $\Pi_K$ links the cluster's stations and streams into one
        connected support graph; ``None`` for a symbolic decomposition
    """

    stations: tuple[str, ...]
    drift: sympy.Expr
    streams: tuple[str, ...]
    bonded: bool | None = None


@dataclass(frozen=True)
class Decomposition:
    r"""The hierarchical minimax decomposition of a supermarket model with weights $w$.

    Attributes
    ----------
    model : the model
    weights : station name to $w_j$
    clusters : $C_1, C_2, \dots$ in decreasing drift order
    policy : a static policy in $\Pi_K$ (class to station to probability) achieving every $V_k$;
        ``None`` for a symbolic decomposition (the policy depends on the values)
    conditions : for a symbolic decomposition, the expressions that must be $\ge 0$ for the
        cluster structure to hold (section 3.10 of the note); each was proved to hold for all
        positive values of the symbols. Empty for a numeric decomposition.
    method : how it was computed
    """

    model: Model
    weights: Mapping[str, sympy.Rational]
    clusters: tuple[Cluster, ...]
    policy: Mapping[str, Mapping[str, sympy.Expr]] | None
    conditions: tuple[sympy.Expr, ...] = ()
    method: str = "parametric max-flow, breakpoint search"

    @property
    def top_drift(self) -> sympy.Expr:
        """$V_1$, the largest weighted drift."""
        return self.clusters[0].drift

    @property
    def stable(self) -> bool | None:
        r"""True when $V_1<0$ (JLW with these weights is stable), False when $V_1\ge0$ (no policy
        is stable), None when the sign of a symbolic $V_1$ depends on the values."""
        v1 = self.top_drift
        if v1.is_negative:
            return True
        if v1.is_nonnegative:
            return False
        if _holds_for_all_positive(-v1, strict=True):
            return True
        if _holds_for_all_positive(v1, strict=False):
            return False
        return None

    @property
    def stability_condition(self) -> sympy.Expr:
        """The condition $V_1 < 0$ as a sympy relation (``True``/``False`` when decided)."""
        return sympy.Lt(self.top_drift, 0)

    @property
    def violating_cluster(self) -> Cluster | None:
        """$C_1$ when the model is not stable, else None."""
        return self.clusters[0] if self.stable is False else None

    def cluster_of(self, station: str) -> Cluster:
        """The cluster that contains ``station``."""
        for cluster in self.clusters:
            if station in cluster.stations:
                return cluster
        raise ModelError(f"unknown station {station!r}; stations are "
                         f"{', '.join(self.model.servers)}")

    def message(self) -> str:
        """One line on stability, naming the violating cluster."""
        c1 = self.clusters[0]
        stations = "{" + ", ".join(repr(j) for j in c1.stations) + "}"
        if self.stable:
            return f"stable under JLW: the largest weighted drift V_1 = {c1.drift} < 0"
        if self.stable is None:
            return f"stable under JLW iff V_1 = {c1.drift} < 0 (cluster {stations})"
        streams = "{" + ", ".join(repr(i) for i in c1.streams) + "}"
        load = self.model.arrival_rate(c1.streams) if c1.streams else sympy.Integer(0)
        return (f"unstable: cluster {stations} has weighted drift V_1 = {c1.drift} >= 0; the classes "
                f"{streams} that can only use it bring {load} but it serves only "
                f"{self.model.service_rate(c1.stations)}")


# ------------------------------------------------------------------------------- max-flow core
@dataclass
class _Instance:
    """Stations 0..N-1 and streams 0..M-1 with exact Fraction data."""

    mu: list[Fraction]
    inverse_weight: list[Fraction]
    rates: list[Fraction]
    neighbourhoods: list[frozenset[int]]
    station_names: tuple[str, ...] = ()
    stream_names: tuple[str, ...] = ()

    @classmethod
    def from_model(cls, model: Model, weights: Mapping[str, sympy.Rational]) -> "_Instance":
        index = {j: n for n, j in enumerate(model.servers)}
        for what, rates in (("arrival rate of class", model.arrival_rates),
                            ("service rate of server", model.service_rates)):
            for name, rate in rates.items():
                if not rate.is_Rational:
                    raise ModelError(f"{what} {name!r} is {rate}; the max-flow decomposition needs "
                                     "exact rational rates: give a value such as 3/10 with --set")
        return cls(mu=[_fraction(model.service_rates[j]) for j in model.servers],
                   inverse_weight=[1 / _fraction(weights[j]) for j in model.servers],
                   rates=[_fraction(model.arrival_rates[i]) for i in model.classes],
                   neighbourhoods=[frozenset(index[j] for j in model.compatibility[i])
                                   for i in model.classes],
                   station_names=model.servers, stream_names=model.classes)


def _residual_flow(instance: _Instance, stations: Sequence[int], streams: Sequence[int],
                   level: Fraction, flow_func: Callable | None):
    r"""One exact max-flow on the network $N(v)$ of section 4.1 of the note, at $v$ = ``level``.

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
    residual = (flow_func or nx.algorithms.flow.boykov_kolmogorov)(network, 0, 1)
    excess = Fraction(supply + negative - residual.graph["flow_value"], scale)
    return residual, scale, excess


def _extreme_maximisers(residual: nx.DiGraph, stations: Sequence[int], offset: int
                        ) -> tuple[frozenset[int], frozenset[int]]:
    """Smallest and largest maximisers from one max-flow (Picard and Queyranne; note 4.2)."""
    def usable(u, v):
        arc = residual[u][v]
        return arc["capacity"] - arc["flow"] > 0

    reached, todo = {0}, [0]
    while todo:
        u = todo.pop()
        for v in residual.succ[u]:
            if v not in reached and usable(u, v):
                reached.add(v)
                todo.append(v)
    reaching, todo = {1}, [1]
    while todo:
        v = todo.pop()
        for u in residual.pred[v]:
            if u not in reaching and usable(u, v):
                reaching.add(u)
                todo.append(u)
    smallest = frozenset(j for j in stations if offset + j in reached)
    largest = frozenset(j for j in stations if offset + j not in reaching)
    return smallest, largest


def _record_flows(instance: _Instance, residual: nx.DiGraph, scale: int, streams, inside,
                  routing: dict[int, dict[int, Fraction]]) -> None:
    offset = 2 + len(instance.rates)
    for i in streams:
        lam = instance.rates[i]
        routing[i] = {j: Fraction(residual[2 + i][offset + j]["flow"], scale) / lam
                      for j in sorted(instance.neighbourhoods[i] & inside)}


def _breakpoint_search(instance: _Instance, flow_func: Callable | None = None
                       ) -> tuple[list[tuple[Fraction, frozenset[int]]], dict[int, dict[int, Fraction]]]:
    r"""Clusters and drifts by divide and conquer on the breakpoints (route B, note 4.4).

    Invariant: $X=E_b$ and $X\cup U=E_a$ are unions of leading clusters. The drift
    $v=(\lambda_{\mathrm{loc}}-\mu(U))/H(U)$ where their lines cross is tested with one max-flow:
    if $g(v)=0$, $U$ is one cluster with drift $v$; otherwise the smallest and largest maximisers
    $X\cup D_{\min}$, $X\cup D_{\max}$ are new unions of leading clusters, $D_{\max}\setminus
    D_{\min}$ (if non-empty) is the cluster with drift $v$, and both sides are searched further.
    At most $2K-1$ max-flows. The policy comes from the same flows (note 4.5).
    """
    offset = 2 + len(instance.rates)
    active = [i for i, lam in enumerate(instance.rates) if lam > 0]
    records: list[tuple[Fraction, frozenset[int]]] = []
    routing: dict[int, dict[int, Fraction]] = {}
    stack = [(frozenset(), frozenset(range(len(instance.mu))), tuple(active))]
    while stack:
        assigned, stations, streams = stack.pop()
        ordered = sorted(stations)
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


def _assemble(model: Model, weights: Mapping[str, sympy.Rational], instance: _Instance,
              records: list[tuple[Fraction, frozenset[int]]],
              routing: dict[int, dict[int, Fraction]] | None, method: str) -> Decomposition:
    """Clusters with their streams $T_k$, bonding, and the policy as sympy Rationals."""
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
            if row is None:  # a zero-rate stream: uniform on S_i within C_k(i) (note, section 1)
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


def _is_bonded(instance: _Instance, stations: frozenset[int], members: list[int],
               routing: dict[int, dict[int, Fraction]]) -> bool:
    r"""Whether $C_k$ is bonded: its only maximiser is itself (note 3.7).

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


# ------------------------------------------------------------------------------- public API
def decompose(model: Model, weights: Mapping[str, Any] | None = None, *,
              flow_func: Callable | None = None) -> Decomposition:
    r"""The hierarchical minimax decomposition: clusters $C_k$, drifts $V_k$, a policy in $\Pi_K$.

    Implements eq. 1.2 and the decomposition theorem of [SM]_ through the characterisation of
    ``notes/supermarket.md`` (3.3), computed by the parametric max-flow breakpoint search of note
    4.4 (at most $2K-1$ exact max-flows, no subset enumeration). For numeric rates the result
    carries a static policy in $\Pi_K$ read off the flows; every result can be checked with
    :func:`certify_decomposition`.

    For symbolic rates the cluster structure is found at one numeric point and then proved valid
    for **all** positive values of the symbols by the linear conditions of note 3.10
    ($V_1>V_2>\dots$ and $\lambda_{E_{k-1}}(D)-\mu(D)\le V_kH(D)$ for every $D\subseteq C_k$);
    the drifts are then exact symbolic expressions. If the structure depends on the values, a
    :class:`~symq.errors.ModelError` asks for them.

    Parameters
    ----------
    model : a :class:`~symq.model.Model`; classes are neighbourhoods (streams), servers are stations
    weights : station name to a positive exact weight $w_j$ (default 1)
    flow_func : a networkx max-flow function (default ``boykov_kolmogorov``); it must return a
        full flow (``preflow_push`` with its default ``value_only=False`` is fine)

    Returns
    -------
    Decomposition

    Raises
    ------
    ModelError
        Bad weights (unknown station, float, symbol, not positive), or symbolic rates for which
        the cluster structure depends on the values.
    UnsupportedError
        Symbolic rates with a cluster too large to list its validity conditions.

    Examples
    --------
    >>> from symq import model
    >>> d = decompose(model("w").substitute({"lambda_1": 2, "lambda_2": "1/2", "lambda_3": 1,
    ...                                      "mu_1": 1, "mu_2": 1}))
    >>> [(c.stations, c.drift) for c in d.clusters], d.stable
    ([(('1',), 1), (('2',), 1/2)], False)
    """
    if not isinstance(model, Model):
        raise TypeError(f"decompose needs a symq Model, not {type(model).__name__}")
    weights = parse_weights(model, weights)
    if not model.is_numeric:
        return _symbolic_decomposition(model, weights, flow_func)
    instance = _Instance.from_model(model, weights)
    records, routing = _breakpoint_search(instance, flow_func)
    return _assemble(model, weights, instance, records, routing,
                     "parametric max-flow, breakpoint search (exact)")


def brute_force_decomposition(model: Model, weights: Mapping[str, Any] | None = None
                              ) -> Decomposition:
    r"""The same decomposition by enumerating station subsets, stage by stage (tests only).

    At stage $k$, $V_k=\max_D r_{E_{k-1}}(D)$ over all non-empty $D\subseteq R_k$ and $C_k$ is the
    union of all maximisers (note 3.3). $O(2^N M)$ per stage; no policy.
    """
    weights = parse_weights(model, weights)
    instance = _Instance.from_model(model, weights)
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
    return _assemble(model, weights, instance, records, None, "brute force over station subsets")


def certify_decomposition(decomposition: Decomposition) -> None:
    r"""Prove a numeric decomposition optimal with the certificate of note 3.5, or raise.

    A partition $C_1,\dots,C_K$, drifts $V_1>\dots>V_K$ and a valid static policy such that
    (i) each class routes only into $C_{k(i)}$, the lowest-drift cluster it reaches, and
    (ii) $w_jV(j;\pi)=V_k$ on $C_k$, **is** the hierarchical minimax decomposition. The check is
    linear in the size of the model and exact.

    Raises
    ------
    VerificationError
        Naming the first property that fails.
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


# ------------------------------------------------------------------------------- symbolic rates
def _holds_for_all_positive(expr: sympy.Expr, strict: bool) -> bool:
    r"""Whether ``expr`` $\ge0$ (or $>0$) for every positive value of its symbols.

    Exact for expressions linear in the symbols (the case of note 3.10): $c+\sum a_s s\ge0$ on
    the open positive orthant iff $c\ge0$ and every $a_s\ge0$ (and, for $>0$, $c>0$ or some
    $a_s>0$). Otherwise non-negative polynomial coefficients suffice, and sympy's assumptions are
    asked last; anything unproven counts as False.
    """
    expr = sympy.expand(expr)
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    if not symbols:
        return bool(expr > 0) if strict else bool(expr >= 0)
    try:
        poly = sympy.Poly(expr, *symbols)
    except sympy.PolynomialError:
        poly = None
    if poly is not None and all(c.is_Rational for c in poly.coeffs()):
        constant = poly.coeff_monomial(1)
        others = [c for m, c in zip(poly.monoms(), poly.coeffs()) if any(m)]
        if all(c >= 0 for c in others) and constant >= 0:
            return not strict or constant > 0 or any(c > 0 for c in others)
        if poly.total_degree() <= 1:
            return False
    answer = expr.is_positive if strict else expr.is_nonnegative
    return bool(answer)


def _culprits(expr: sympy.Expr, fallback: str) -> str:
    names = sorted(s.name for s in expr.free_symbols)
    return ", ".join(names) if names else fallback


def _symbolic_decomposition(model: Model, weights: Mapping[str, sympy.Rational],
                            flow_func: Callable | None) -> Decomposition:
    """Structure at one point, then proved valid for all positive values (note 3.10)."""
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
                # note 3.10, condition 2: lambda_E(D) - mu(D) <= V_k H(D)
                slack = drift * sum(inverse[j] for j in subset) - forced + model.service_rate(subset)
                slack = sympy.expand(slack)
                if not _holds_for_all_positive(slack, strict=False):
                    raise ModelError(
                        f"the clusters depend on the values of {_culprits(slack, names)}: stations "
                        f"{subset} split from cluster {cluster.stations} when {slack} < 0; give "
                        "them values with --set NAME=VALUE")
                if slack not in conditions and slack.free_symbols:
                    conditions.append(slack)
        assigned += cluster.stations
    for k in range(len(drifts) - 1):
        gap = sympy.expand(drifts[k] - drifts[k + 1])
        # note 3.10, condition 1: V_1 > V_2 > ...
        if not _holds_for_all_positive(gap, strict=True):
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


# ------------------------------------------------------------------------------- output
def _set_latex(names: Sequence[str]) -> str:
    def text(name: str) -> str:
        return name if name.isalnum() else r"\text{" + name.replace("_", r"\_") + "}"
    return r"\{" + ", ".join(text(n) for n in names) + r"\}"


def decomposition_latex(decomposition: Decomposition) -> str:
    r"""A LaTeX ``tabular`` of the clusters $C_k$, their drifts $V_k$ and streams $T_k$.

    Examples
    --------
    >>> from symq import model
    >>> print(decomposition_latex(decompose(model("redundancy:2:1"))))
    \begin{tabular}{rlll}
    $k$ & $C_k$ & $V_k$ & $T_k$ \\
    \hline
    1 & $\{1, 2\}$ & $\frac{\lambda}{2} - \mu$ & $\{1, 2\}$ \\
    \end{tabular}
    """
    lines = [r"\begin{tabular}{rlll}", r"$k$ & $C_k$ & $V_k$ & $T_k$ \\", r"\hline"]
    for k, c in enumerate(decomposition.clusters, start=1):
        lines.append(f"{k} & ${_set_latex(c.stations)}$ & ${sympy.latex(c.drift)}$ & "
                     f"${_set_latex(c.streams)}$ \\\\")
    lines.append(r"\end{tabular}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------- JLW dynamics
@dataclass(frozen=True)
class JLWSimulation:
    r"""Final states of seeded runs of the unreflected JLW random walk $\xi$.

    Attributes
    ----------
    stations : station names, the column order of ``final``
    weights : $w_j$ as Fractions
    horizon : $T$
    final : one tuple $\xi(T)$ per replication (integers; may be negative)
    seed : the seed used
    """

    stations: tuple[str, ...]
    weights: tuple[Fraction, ...]
    horizon: float
    final: tuple[tuple[int, ...], ...]
    seed: int

    def weighted_rates(self) -> dict[str, float]:
        r"""$\overline{w_j\xi_j(T)/T}$ per station, averaged over replications."""
        count = len(self.final)
        return {j: float(self.weights[n]) * sum(x[n] for x in self.final) / (count * self.horizon)
                for n, j in enumerate(self.stations)}

    def cluster_rate(self, stations: Sequence[str]) -> float:
        r"""The cluster statistic $\bar Z=\overline{\sum_{j\in C}\xi_j(T)}/(T\,H(C))$ (note 9)."""
        index = [self.stations.index(j) for j in stations]
        harmonic = float(sum(1 / self.weights[n] for n in index))
        total = sum(x[n] for x in self.final for n in index)
        return total / (len(self.final) * self.horizon * harmonic)


def cluster_tolerance(decomposition: Decomposition, cluster: Cluster, horizon: float,
                      replications: int, sigmas: float = 5) -> float:
    r"""Tolerance for $|\bar Z_k-V_k|$: ``sigmas`` standard errors plus the transient bias.

    After an $O(1)$ transient only the streams $T_k$ feed $C_k$, so $\sum_{C_k}\xi_j(T)$ is a
    difference of Poisson counts with variance $T\sum_{C_k}(a_j+\mu_j)$, $a_j=\mu_j+V_k/w_j$:
    $\operatorname{sd}(Z_k)=\sigma_k/\sqrt{T}$ with
    $\sigma_k^2=\sum_{C_k}(2\mu_j+V_k/w_j)/H(C_k)^2$. The transient (arrivals routed outside
    $C_{k(i)}$, measured at about 5 in note 9) biases $Z_k$ by at most about $5/(TH(C_k))$; twice
    that is allowed.
    """
    model = decomposition.model
    harmonic = sum(Fraction(1) / _fraction(decomposition.weights[j]) for j in cluster.stations)
    drift = _fraction(cluster.drift)
    variance = sum(2 * _fraction(model.service_rates[j]) + drift / _fraction(decomposition.weights[j])
                   for j in cluster.stations) / harmonic ** 2
    return (sigmas * math.sqrt(variance / (horizon * replications))
            + 10 / (horizon * float(harmonic)))


def simulate_jlw(model: Model, weights: Mapping[str, Any] | None = None, *, horizon: float = 1000,
                 replications: int = 1, seed: int = 0) -> JLWSimulation:
    r"""Simulate the unreflected random walk $\xi$ under JLW with weights $w$ (seeded).

    The model of [SM]_: one Poisson($\Lambda$) arrival process with i.i.d. stream labels;
    station $j$ loses jobs at the epochs of a Poisson($\mu_j$) process whatever its state (no
    reflection at 0, so $\xi_j$ may be negative); an arrival of stream $i$ joins
    $\arg\min_{j\in S_i}w_j\xi_j$ with a uniform tie-break. Weights are scaled to integers so
    ties are exact. Its rates $w_j\xi_j(T)/T$ approach $V_k$ on $C_k$ ([SM]_, main result).

    Parameters
    ----------
    model : numeric rates
    weights : station weights (default 1)
    horizon : $T$
    replications : independent runs
    seed : seed of the numpy generator; equal seeds give equal results

    Raises
    ------
    ModelError
        Symbolic rates, bad weights, a horizon or replication count that is not positive.
    """
    import numpy

    if not model.is_numeric:
        missing = ", ".join(sorted(s.name for s in model.symbols))
        raise ModelError(f"simulation needs numeric rates; set {missing} with --set NAME=VALUE")
    if not horizon > 0:
        raise ModelError(f"the horizon must be positive, not {horizon!r}")
    if not isinstance(replications, int) or replications < 1:
        raise ModelError(f"replications must be a positive integer, not {replications!r}")
    weights = parse_weights(model, weights)
    instance = _Instance.from_model(model, weights)
    fractions = [_fraction(weights[j]) for j in model.servers]
    scale = math.lcm(*(w.denominator for w in fractions))
    integer_weights = [int(w * scale) for w in fractions]
    rates = [float(lam) for lam in instance.rates]
    total = sum(rates)
    probabilities = numpy.array(rates) / total
    neighbourhoods = [sorted(s) for s in instance.neighbourhoods]
    rng = numpy.random.default_rng(seed)
    finals = []
    for _ in range(replications):
        count = int(rng.poisson(total * horizon))
        times = numpy.sort(rng.uniform(0, horizon, count))
        labels = rng.choice(len(rates), size=count, p=probabilities).tolist()
        ties = rng.random(count).tolist()
        departed_by, departed = [], []
        for mu in instance.mu:
            epochs = numpy.sort(rng.uniform(0, horizon, int(rng.poisson(float(mu) * horizon))))
            departed_by.append(numpy.searchsorted(epochs, times).tolist())
            departed.append(len(epochs))
        joined = [0] * len(instance.mu)
        for n in range(count):
            best, tied = None, []
            for j in neighbourhoods[labels[n]]:
                value = integer_weights[j] * (joined[j] - departed_by[j][n])
                if best is None or value < best:
                    best, tied = value, [j]
                elif value == best:
                    tied.append(j)
            joined[tied[int(ties[n] * len(tied))] if len(tied) > 1 else tied[0]] += 1
        finals.append(tuple(a - d for a, d in zip(joined, departed)))
    return JLWSimulation(stations=model.servers, weights=tuple(fractions), horizon=horizon,
                         final=tuple(finals), seed=seed)
