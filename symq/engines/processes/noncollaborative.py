r"""Noncollaborative FCFS: ALIS on (job queue, idle servers) and RAIS on the interleaved state.
In the verbal model of [GR20]_ section 2 a job enters service on one compatible server, jobs are
served in FCFS order, and an arriving job that finds idle compatible servers takes the one idle
longest (ALIS, product form of Theorem 3.9, Adan et al.) or one drawn with routing probabilities
$p_c(s \mid B)$ given the busy set $B$ (RAIS, Theorem 3.10, under the assignment condition on the
activation rates $\lambda^a_s(B) = \sum_c \lambda_c p_c(s\mid B)$); :func:`canonical_routing`,
:func:`maxflow_routing` (Visschers, Adan and Weiss) and :func:`uniform_routing` build routings and
:func:`assignment_condition_violation` checks one exactly. The states, both product forms and the
routings: see docs/product-forms.md.

Examples
--------
>>> from sympy import latex
>>> from symq import model
>>> routing = canonical_routing(model("w"))
>>> print(latex(routing[frozenset()]["3"]["1"]))
\frac{\lambda_{2} + \lambda_{3}}{\lambda_{1} + \lambda_{2} + 2 \lambda_{3}}
>>> alis = ALISProcess(model("n"))
>>> print(latex(alis.product_form((("1",), ()))))
\frac{\lambda_{1}}{\mu_{1}}
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Callable

import sympy

from symq.errors import ModelError
from symq.arithmetic.exact import ExactField, to_fraction, to_sympy
from symq.arithmetic.expressions import as_expression
from symq.models.model import Model
from symq.engines.set_functions import (compatible_arrival_rate, idle_order_weights, service_rate,
                             subsets_by_size)
from symq.engines.processes.base import Process, Transition, classes_beside, prefix_ratios

# idle_order_weights is symq.engines.set_functions.idle_order_weights, re-exported here for the processes
__all__ = ["ALISProcess", "RandomAssignmentProcess", "idle_order_weights", "activation_rates",
           "canonical_routing", "uniform_routing", "maxflow_routing", "induced_activation_rates",
           "assignment_condition_violation", "check_assignment_condition", "routing_table"]

Routing = dict[frozenset, dict[str, dict[str, sympy.Expr]]]


def _weights_in(model: Model, exact: ExactField) -> tuple[dict, dict]:
    r"""$\lambda(C(I))$ and $\widetilde W(I)$ for every server set, as field elements."""
    rates = {idle: exact.value(compatible_arrival_rate(model, idle))
             for idle in subsets_by_size(model.servers)}
    return rates, idle_order_weights(model, exact.value)


def _require_model(model: Any) -> Model:
    if not isinstance(model, Model):
        raise TypeError(f"expected a symq Model, not {type(model).__name__}")
    return model


# ------------------------------------------------------------------------------ routings
def activation_rates(model: Model) -> dict[frozenset, dict[str, sympy.Expr]]:
    r"""The activation rates forced by the assignment condition, $B \mapsto \{s: \lambda^a_s(B)\}$.

    $\lambda^a_s(B) = \widetilde W(I\setminus s)/\widetilde W(I)$, $I$ the idle set (weights
    of :func:`symq.engines.set_functions.idle_order_weights`; Visschers, Adan and Weiss 2012 via [GR20]_
    section 3.2; docs/theory-subset-dp.md §1.2).

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.

    Returns
    -------
    dict
        ``{frozenset(busy): {idle server: rate}}`` for all $2^M$ busy sets.

    Examples
    --------
    >>> from symq import example_model
    >>> activation_rates(example_model("w"))[frozenset()]
    {'1': 4/15, '2': 7/30}

    Running time: O(2^M M) field operations.
    """
    exact = ExactField.for_model(_require_model(model))
    _, weights = _weights_in(model, exact)
    everything = frozenset(model.servers)
    return {busy: {s: exact.expr(weights[everything - busy - {s}] / weights[everything - busy])
                   for s in model.servers if s not in busy}
            for busy in subsets_by_size(model.servers)}


def canonical_routing(model: Model) -> Routing:
    r"""The canonical routing $p^{\rm can}_c(s\mid B)$ (docs/theory-subset-dp.md §1.3).

    An arriving class-$c$ job goes to the server of $S_c \cap I$ that comes first in an idle order
    drawn with weights $\prod_j 1/\lambda(C(s_1..s_j))$ (the stationary ALIS idle order). Valid for
    every graph and rates (the idle order's first compatible server exists whenever one is idle);
    rational in the $\lambda$'s.

    Parameters
    ----------
    model : Model
        Any graph; symbolic rates give rational functions.

    Returns
    -------
    dict
        ``routing[B][c][s]`` for every busy set ``B`` (frozenset), class ``c`` with an idle
        compatible server, and idle ``s`` in $S_c$.

    Examples
    --------
    >>> from symq import example_model
    >>> canonical_routing(example_model("w"))[frozenset()]["3"]
    {'1': 7/15, '2': 8/15}

    Running time: O(3^M J) field operations (a DP over idle sets and their prefixes).
    """
    model = _require_model(model)
    exact = ExactField.for_model(model)
    rates, weights = _weights_in(model, exact)
    everything = frozenset(model.servers)
    routing: Routing = {}
    for busy in subsets_by_size(model.servers):
        idle = everything - busy
        completion = {idle: exact.one}  # U_I(A): weight of completing an order of I
        for prefix in reversed(subsets_by_size(tuple(sorted(idle)))[:-1]):
            total = exact.zero
            for t in idle - prefix:
                total += completion[prefix | {t}] / rates[prefix | {t}]
            completion[prefix] = total
        table: dict[str, dict[str, sympy.Expr]] = {}
        for c in model.classes:
            free = [s for s in model.compatibility[c] if s in idle]
            if not free:
                continue
            others = tuple(sorted(idle - set(model.compatibility[c])))
            split = {}
            for s in free:  # eq. (4): the servers before s in the order avoid S_c
                total = exact.zero
                for before in subsets_by_size(others):
                    total += weights[before] * completion[before | {s}] / rates[before | {s}]
                split[s] = exact.expr(total / weights[idle])
            table[c] = split
        routing[busy] = table
    return routing


def uniform_routing(model: Model) -> Routing:
    r"""Uniform choice among the idle compatible servers (valid iff server sets are equal or
    disjoint, docs/theory-subset-dp.md §1.4).

    Parameters
    ----------
    model : Model
        Any rates (the split does not depend on them).

    Returns
    -------
    dict
        ``routing[B][c][s]`` as :func:`canonical_routing`.

    Examples
    --------
    >>> from symq import model
    >>> uniform_routing(model("n"))[frozenset()]["2"]
    {'1': 1/2, '2': 1/2}

    Running time: O(2^M J M).
    """
    model = _require_model(model)
    routing: Routing = {}
    for busy in subsets_by_size(model.servers):
        table = {}
        for c in model.classes:
            free = [s for s in model.compatibility[c] if s not in busy]
            if free:
                table[c] = {s: sympy.Rational(1, len(free)) for s in free}
        routing[busy] = table
    return routing


def maxflow_routing(model: Model) -> Routing:
    r"""A valid routing by one max-flow per busy set (Visschers, Adan and Weiss;
    docs/theory-subset-dp.md §1.4). Exact rationals only.

    For busy set $B$: source $\to c$ (capacity $\lambda_c$) $\to s \in S_c\cap I$ $\to$ sink
    (capacity $\lambda^a_s(B)$); the flow saturates all $\lambda(C(I))$ and $p_c(s\mid B) =
    f_{cs}/\lambda_c$.

    Parameters
    ----------
    model : Model
        Numeric (exact rational) arrival rates.

    Returns
    -------
    dict
        ``routing[B][c][s]`` as :func:`canonical_routing`; usually a different split.

    Raises
    ------
    ModelError
        Symbolic arrival rates (use :func:`canonical_routing`, which works with symbols).

    Examples
    --------
    >>> from symq import example_model
    >>> sum(maxflow_routing(example_model("w"))[frozenset()]["3"].values())
    1

    Running time: 2^M max-flows on J + M + 2 nodes.
    """
    import networkx as nx
    from networkx.algorithms.flow import edmonds_karp

    model = _require_model(model)
    symbols = set().union(*(sympy.sympify(r).free_symbols for r in model.arrival_rates.values()))
    if symbols:
        names = ", ".join(sorted(s.name for s in symbols))
        raise ModelError(f"max-flow routing needs numeric arrival rates (set {names}); "
                         "use routing='canonical' for symbolic rates")
    rates = activation_rates(model)
    everything = frozenset(model.servers)
    routing: Routing = {}
    for busy, targets in rates.items():
        idle = everything - busy
        graph = nx.DiGraph()
        total = Fraction(0)
        for c in model.classes:
            free = [s for s in model.compatibility[c] if s in idle]
            if not free:
                continue
            lam = to_fraction(model.arrival_rates[c], f"arrival rate of class {c!r}")
            total += lam
            graph.add_edge("source", ("class", c), capacity=lam)
            for s in free:
                graph.add_edge(("class", c), ("server", s))
        for s in idle:
            graph.add_edge(("server", s), "sink", capacity=to_fraction(targets[s], "activation rate"))
        table: dict[str, dict[str, sympy.Expr]] = {}
        if idle and total:
            value, flow = nx.maximum_flow(graph, "source", "sink", flow_func=edmonds_karp)
            if value != total:  # impossible for forced activation rates; a guard, not a branch
                raise ModelError(f"max-flow for busy set {_set_text(busy)} carries {value}, "
                                 f"not lambda(C(I)) = {total}")
            for c in model.classes:
                node = ("class", c)
                if node in flow:
                    lam = to_fraction(model.arrival_rates[c], f"arrival rate of class {c!r}")
                    table[c] = {s: to_sympy(flow[node][("server", s)]) / to_sympy(lam)
                                for s in model.compatibility[c] if s in idle}
        routing[busy] = table
    return routing


def _set_text(servers: frozenset) -> str:
    return "{" + ", ".join(sorted(servers)) + "}"


def routing_table(model: Model, routing: Any) -> tuple[Routing, str]:
    r"""Normalize a routing given by name, table or callable into ``routing[B][c][s]``.

    Parameters
    ----------
    model : Model
        The model the routing is for.
    routing : str, dict or callable
        ``"canonical"``, ``"maxflow"``, ``"uniform"``, ``"auto"`` (uniform when it satisfies the
        assignment condition exactly, else canonical), a table
        ``{frozenset(busy): {class: {server: probability}}}`` or a callable
        ``(model, job_class, idle_servers) -> {server: probability}`` (the signature of
        :func:`symq.engines.ctmc.random_assignment_transitions`).

    Returns
    -------
    tuple
        The table and a name for reports.

    Raises
    ------
    ModelError
        An unknown routing name; a table without an entry that an arrival needs.

    Examples
    --------
    >>> from symq import example_model
    >>> routing_table(example_model("w"), "auto")[1]
    'canonical'

    Running time: that of the named routing; O(2^M J) calls for a callable.
    """
    model = _require_model(model)
    if isinstance(routing, str):
        if routing == "auto":  # uniform where it satisfies the condition, else canonical
            uniform = uniform_routing(model)
            if assignment_condition_violation(model, uniform) is None:
                return uniform, "uniform"
            return canonical_routing(model), "canonical"
        builders = {"canonical": canonical_routing, "maxflow": maxflow_routing,
                    "uniform": uniform_routing}
        if routing not in builders:
            raise ModelError(f"unknown routing {routing!r}; use canonical, maxflow, uniform, "
                             "auto, a table or a callable")
        return builders[routing](model), routing
    everything = frozenset(model.servers)
    table: Routing = {}
    for busy in subsets_by_size(model.servers):
        idle = everything - busy
        row = {}
        for c in model.classes:
            if not idle.intersection(model.compatibility[c]):
                continue
            if callable(routing):
                given = routing(model, c, idle)
            else:
                try:
                    given = routing[busy][c]
                except (KeyError, TypeError):
                    raise ModelError(f"the routing gives no probabilities for class {c!r} when "
                                     f"the busy servers are {_set_text(busy)}") from None
            row[c] = {str(s): as_expression(p, f"routing probability of class {c!r}")
                      for s, p in dict(given).items()}
        table[busy] = row
    return table, "user-given"


def induced_activation_rates(model: Model, routing: Routing) -> dict[frozenset, dict[str, Any]]:
    r"""$\lambda^a_s(B) = \sum_c \lambda_c\, p_c(s\mid B)$ for every busy set and idle server.

    Parameters
    ----------
    model : Model
        The arrival rates $\lambda_c$.
    routing : dict
        ``routing[B][c][s]`` as :func:`routing_table` returns it.

    Returns
    -------
    dict
        ``{frozenset(busy): {idle server: rate}}``.

    Examples
    --------
    >>> from symq import example_model
    >>> w = example_model("w")
    >>> induced = induced_activation_rates(w, canonical_routing(w))
    >>> induced[frozenset()] == activation_rates(w)[frozenset()]
    True

    Running time: O(2^M J M).
    """
    exact = ExactField.for_model(model)
    values = _induced_in(model, routing, exact)
    return {busy: {s: exact.expr(r) for s, r in row.items()} for busy, row in values.items()}


def _induced_in(model: Model, routing: Routing, exact: ExactField) -> dict[frozenset, dict]:
    everything = frozenset(model.servers)
    rates = {}
    for busy in subsets_by_size(model.servers):
        row = {s: exact.zero for s in everything - busy}
        for c, split in routing.get(busy, {}).items():
            lam = exact.value(model.arrival_rates[c])
            for s, p in split.items():
                row[s] = row[s] + lam * exact.value(p)
        rates[busy] = row
    return rates


def assignment_condition_violation(model: Model, routing: Routing) -> str | None:
    r"""Why ``routing`` is not a valid RAIS routing satisfying the assignment condition, or None.

    Checks exactly that each split is a probability vector on the idle compatible servers, then
    the assignment condition in its local form (Visschers, Adan and Weiss 2012): for every busy
    set $B$ and idle $u \ne v$,
    $\lambda^a_u(B)\lambda^a_v(B\cup u) = \lambda^a_v(B)\lambda^a_u(B\cup v)$ (any two orders of a
    set differ by adjacent transpositions; docs/theory-subset-dp.md §1.1).

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates (symbolic equality is decided by cancellation).
    routing : dict
        ``routing[B][c][s]``.

    Returns
    -------
    str or None
        One sentence naming the first failure.

    Examples
    --------
    >>> from symq import example_model
    >>> w = example_model("w")
    >>> assignment_condition_violation(w, uniform_routing(w))
    'busy-server order (1, 2) has activation product 77/800 but (2, 1) has 9/100'

    Running time: O(2^M M^2) products and comparisons.
    """
    everything = frozenset(model.servers)
    exact = ExactField.for_model(model)
    for busy, table in routing.items():
        idle = everything - busy
        for c, split in table.items():
            allowed = idle.intersection(model.compatibility[c])
            for s, p in split.items():
                if s not in allowed:
                    return (f"class {c!r} is routed to server {s!r}, which is not an idle "
                            f"compatible server when the busy servers are {_set_text(busy)}")
                if sympy.sympify(p).is_negative:
                    return f"p_{c}({s} | {_set_text(busy)}) = {p} is negative"
            total = exact.zero
            for p in split.values():
                total += exact.value(p)
            if total != exact.one:
                return (f"the probabilities of class {c!r} with busy servers {_set_text(busy)} "
                        f"add up to {exact.expr(total)}, not 1")
    rates = _induced_in(model, routing, exact)
    for busy in subsets_by_size(model.servers):
        idle = sorted(everything - busy)
        for u, v in itertools.combinations(idle, 2):
            first = rates[busy][u] * rates[busy | {u}][v]
            second = rates[busy][v] * rates[busy | {v}][u]
            if first != second:
                order = ", ".join(sorted(busy))
                prefix = f"{order}, " if order else ""
                return (f"busy-server order ({prefix}{u}, {v}) has activation product "
                        f"{exact.expr(first)} but ({prefix}{v}, {u}) has {exact.expr(second)}")
    return None


def check_assignment_condition(model: Model, routing: Routing) -> None:
    """Raise unless ``routing`` satisfies the assignment condition ([GR20]_ section 3.2).

    Parameters
    ----------
    model, routing
        As :func:`assignment_condition_violation`.

    Raises
    ------
    ModelError
        Naming a busy-server order that breaks the condition (or the invalid probability).

    Examples
    --------
    >>> from symq import example_model
    >>> check_assignment_condition(example_model("w"), canonical_routing(example_model("w")))

    Running time: that of :func:`assignment_condition_violation`.
    """
    problem = assignment_condition_violation(model, routing)
    if problem:
        raise ModelError(f"the RAIS routing breaks the assignment condition: {problem}; use "
                         "routing='canonical' (valid for every graph) or fix the probabilities")


# ------------------------------------------------------------------------------ ALIS
ALISState = tuple[tuple[str, ...], tuple[str, ...]]


class ALISProcess(Process):
    r"""Noncollaborative FCFS-ALIS on $(\vec c_n, \vec s_k)$ ([GR20]_ Theorem 3.9).

    Examples
    --------
    >>> from symq import model
    >>> alis = ALISProcess(model("w"))
    >>> alis.size((("1",), ()))
    3
    >>> [t.event for t in alis.transitions(((), ("2",)))]
    ['class-1 arrival joins the queue', 'class-2 arrival takes idle server 2', 'class-3 arrival takes idle server 2', 'server 1 completes and becomes idle']
    """

    discipline = "alis"

    def __init__(self, model: Model) -> None:
        self.model = _require_model(model)
        self.name = model.name or "model"
        self._servers_of = {c: frozenset(model.compatibility[c]) for c in model.classes}
        self._sums: dict[frozenset, sympy.Expr] = {}

    def _service(self, servers: frozenset) -> sympy.Expr:
        key = ("mu", servers)
        if key not in self._sums:
            self._sums[key] = service_rate(self.model, sorted(servers))
        return self._sums[key]

    def _arrivals(self, servers: frozenset) -> sympy.Expr:
        key = ("lambda", servers)
        if key not in self._sums:
            self._sums[key] = compatible_arrival_rate(self.model, servers)
        return self._sums[key]

    def initial_state(self) -> ALISState:
        return ((), tuple(self.model.servers))

    def size(self, state: ALISState) -> int:
        waiting, idle = state
        return len(waiting) + len(self.model.servers) - len(idle)

    def states(self, max_size: int) -> list[ALISState]:
        result = []
        servers = self.model.servers
        for k in range(len(servers) + 1):
            busy_count = len(servers) - k
            if busy_count > max_size:
                continue
            for idle in itertools.permutations(servers, k):
                allowed = classes_beside(self, idle)
                for n in range(max_size - busy_count + 1):
                    if n and (not allowed or busy_count == 0):
                        break
                    result.extend((waiting, idle)
                                  for waiting in itertools.product(allowed, repeat=n))
        return result

    def transitions(self, state: ALISState) -> list[Transition]:
        waiting, idle = state
        moves = []
        for c in self.model.classes:
            free = [s for s in idle if s in self._servers_of[c]]
            if free:  # ALIS: the longest idle compatible server takes the job
                s = free[0]
                moves.append(Transition((waiting, tuple(x for x in idle if x != s)),
                                        self.model.arrival_rates[c], ("idle",), ("server", s),
                                        f"class-{c} arrival takes idle server {s}"))
            else:
                moves.append(Transition((waiting + (c,), idle), self.model.arrival_rates[c],
                                        ("class", c), ("queue",),
                                        f"class-{c} arrival joins the queue"))
        for b in self.model.servers:
            if b in idle:
                continue
            rate = self.model.service_rates[b]
            p = next((p for p, c in enumerate(waiting) if b in self._servers_of[c]), None)
            if p is not None:  # FCFS: the oldest compatible waiting job enters service
                moves.append(Transition((waiting[:p] + waiting[p + 1:], idle), rate,
                                        ("queue",), ("class", waiting[p]),
                                        f"server {b} completes and takes the class-{waiting[p]} "
                                        f"job in queue position {p + 1}"))
            else:
                moves.append(Transition((waiting, idle + (b,)), rate, ("server", b), ("idle",),
                                        f"server {b} completes and becomes idle"))
        return moves

    def product_form_factors(self, state: ALISState) -> list[sympy.Expr]:
        r"""$\lambda_{c_i}/\mu(\vec c_i)$ and $\mu_{s_j}/\lambda(\vec s_j)$ ([GR20]_ eq. (4))."""
        waiting, idle = state
        return (prefix_ratios(waiting, self.model.arrival_rates, self._servers_of, self._service)
                + prefix_ratios(idle, self.model.service_rates,
                                {s: frozenset([s]) for s in idle}, self._arrivals))


# ------------------------------------------------------------------------------ RAIS
ZState = tuple[tuple[str, str], ...]


class RandomAssignmentProcess(Process):
    r"""Noncollaborative FCFS-RAIS on the interleaved state $\vec z_m$ ([GR20]_ Theorem 3.10).

    Parameters
    ----------
    model : the compatibility model (servers of rate $\mu_s$)
    routing : ``"canonical"`` (default), ``"maxflow"``, ``"uniform"``, ``"auto"`` (uniform where
        it satisfies the assignment condition, else canonical), a table
        ``{frozenset(busy): {class: {server: probability}}}`` or a callable
        ``(model, job_class, idle_servers) -> {server: probability}``
    check : raise when the routing breaks the assignment condition (default); with False the
        process is built anyway (so that :mod:`symq.engines.balance` can show the product form fail) and
        :attr:`assignment_problem` says what is wrong
    service_rate : an OI rate function of the tuple of busy servers (tokens) in order, for the
        token model of Ayesta et al. (:mod:`symq.engines.processes.tokens`); default
        $\mu(\vec b) = \sum_j \mu_{b_j}$

    Raises
    ------
    ModelError
        With ``check=True``: a routing that breaks the assignment condition, naming a busy-server
        order whose two activation products differ.

    Examples
    --------
    >>> from symq import model
    >>> rais = RandomAssignmentProcess(model("w"))
    >>> rais.product_form((("b", "1"), ("c", "1")))
    lambda_1*(lambda_1 + lambda_3)*(lambda_1 + lambda_2 + lambda_3)/(mu_1**2*(lambda_1 + lambda_2 + 2*lambda_3))
    """

    discipline = "rais"

    def __init__(self, model: Model, routing: Any = "canonical", check: bool = True,
                 service_rate: Callable[[tuple[str, ...]], Any] | None = None) -> None:
        self.model = _require_model(model)
        self.name = model.name or "model"
        self.routing, self.routing_name = routing_table(model, routing)
        self.assignment_problem = assignment_condition_violation(model, self.routing)
        if check and self.assignment_problem:
            check_assignment_condition(model, self.routing)
        self.activation = induced_activation_rates(model, self.routing)
        self._servers_of = {c: frozenset(model.compatibility[c]) for c in model.classes}
        self._service_function = service_rate
        self._service_cache: dict[tuple, sympy.Expr] = {}

    def service(self, busy: tuple[str, ...]) -> sympy.Expr:
        r"""$\mu(\vec b)$, the total rate of the busy servers (tokens) in order."""
        if busy not in self._service_cache:
            if self._service_function is None:
                value = sympy.Add(*(self.model.service_rates[s] for s in sorted(busy)))
            else:
                value = sympy.sympify(self._service_function(busy)) if busy else sympy.Integer(0)
            self._service_cache[busy] = value
        return self._service_cache[busy]

    def initial_state(self) -> ZState:
        return ()

    def format_state(self, state: ZState) -> str:
        """The survey's notation: ``(3_b, 1_c, 2_b)`` (server 3 busy, a class-1 job waiting, ...)."""
        return "(" + ", ".join(f"{x}_{kind}" for kind, x in state) + ")"

    def size(self, state: ZState) -> int:
        return len(state)

    @staticmethod
    def busy(state: ZState) -> tuple[str, ...]:
        """The busy servers in the order of their jobs' arrivals, $\\vec b_l$."""
        return tuple(x for kind, x in state if kind == "b")

    def states(self, max_size: int) -> list[ZState]:
        result: list[ZState] = [()]
        layer: list[ZState] = [()]
        for _ in range(max_size):
            nxt = []
            for z in layer:
                busy = set(self.busy(z))
                nxt += [z + (("b", s),) for s in self.model.servers if s not in busy]
                nxt += [z + (("c", c),) for c in self.model.classes if self._servers_of[c] <= busy]
            result += nxt
            layer = nxt
        return result

    def transitions(self, state: ZState) -> list[Transition]:
        busy_order = self.busy(state)
        busy = frozenset(busy_order)
        moves = []
        for c in self.model.classes:
            rate = self.model.arrival_rates[c]
            if self._servers_of[c] - busy:  # an idle compatible server: random assignment
                for s, p in self.routing[busy][c].items():
                    if p != 0:
                        moves.append(Transition(state + (("b", s),), rate * p, ("server", s),
                                                ("departure",),
                                                f"class-{c} arrival assigned to idle server {s}"))
            else:
                moves.append(Transition(state + (("c", c),), rate, ("class", c), ("departure",),
                                        f"class-{c} arrival joins the queue"))
        k = 0
        for i, (kind, b) in enumerate(state):
            if kind != "b":
                continue
            k += 1  # the k-th busy server completes at rate mu(b_1..b_k) - mu(b_1..b_{k-1})
            rate = sympy.expand(self.service(busy_order[:k]) - self.service(busy_order[:k - 1]))
            if rate == 0:
                continue
            rest = state[:i] + state[i + 1:]
            p = next((p for p, (kd, c) in enumerate(rest)
                      if kd == "c" and b in self._servers_of[c]), None)
            if p is not None:  # FCFS: the oldest compatible waiting job takes server b
                target = rest[:p] + (("b", b),) + rest[p + 1:]
                moves.append(Transition(target, rate, ("departure",), ("class", rest[p][1]),
                                        f"server {b} completes and takes the waiting "
                                        f"class-{rest[p][1]} job"))
            else:
                moves.append(Transition(rest, rate, ("departure",), ("server", b),
                                        f"server {b} completes and becomes idle"))
        return moves

    def product_form_factors(self, state: ZState) -> list[sympy.Expr]:
        r"""$\lambda_{z_i}(\vec z_i)/\mu(\vec z_i)$ ([GR20]_ Theorem 3.10)."""
        factors = []
        busy: tuple[str, ...] = ()
        for kind, x in state:
            if kind == "b":
                numerator = self.activation[frozenset(busy)][x]
                busy = busy + (x,)
            else:
                numerator = self.model.arrival_rates[x]
            factors.append(numerator / self.service(busy))
        return factors
