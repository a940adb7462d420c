r"""Matching models: DBM, DBM(K), DBMA, general-graph FCFM and paired bipartite matching.
All from [GR20]_ section 3.4, each written from its verbal model: :class:`DirectedMatching` the
directed bipartite matching model of Adan et al. with a server buffer (DBM, DBM(K), Theorem 3.12)
and abandonments (DBMA, Theorem 3.13), :class:`GeneralMatching` FCFM matching on a general graph
in discrete time (Moyal, Busic and Mairesse), summed exactly by a subset recursion, and
:class:`PairedMatching` paired bipartite matching in discrete time (Adan and Weiss). The verbal
models, states and product forms: see docs/product-forms.md.

Examples
--------
>>> from sympy import Rational
>>> diamond = GeneralMatching([(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)],
...                           {0: Rational(20, 62), 1: Rational(21, 62), 2: Rational(11, 62),
...                            3: Rational(10, 62)})
>>> diamond.empty_probability()
40/693
"""

from __future__ import annotations

import itertools
from typing import Any, Iterable, Mapping

from symq._lazy import lazy_module
nx = lazy_module("networkx")  # imported on first use (start-up time)
import sympy

from symq.errors import ModelError, UnstableModelError
from symq.models.model import Model
from symq.models.rates import parse_rate
from symq.engines.processes.base import Process, Transition, classes_beside, prefix_ratios

__all__ = ["DirectedMatching", "GeneralMatching", "PairedMatching"]

PairState = tuple[tuple[str, ...], tuple[str, ...]]


def _require_model(model: Any) -> Model:
    if not isinstance(model, Model):
        raise TypeError(f"expected a symq Model, not {type(model).__name__}")
    return model


def _buffer(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int or None, not {type(value).__name__}")
    if value < 0:
        raise ModelError(f"{what} is {value}; give a size >= 0 (or None for no limit)")
    return value


class DirectedMatching(Process):
    r"""DBM, DBM(K) ([GR20]_ Thm 3.12) and DBMA ([GR20]_ Thm 3.13) on $(\vec c_n, \vec s_k)$.

    Parameters
    ----------
    model : job classes (rate $\lambda_c$, optional patience $\gamma_c$) and server types (arrival
        rate $\mu_m$) with their compatibility
    server_buffer : at most this many waiting servers ($K$; 0: DBM; None: unbounded)
    job_buffer : at most this many waiting jobs (None: unbounded)
    server_patience : mapping server type -> abandonment rate $\nu_m$ of a waiting server

    Examples
    --------
    >>> from sympy import latex
    >>> from symq import model
    >>> dbm = DirectedMatching(model("n"), server_buffer=1)
    >>> print(latex(dbm.product_form((("1",), ()))))
    \frac{\lambda_{1}}{\mu_{1}}
    >>> print(latex(dbm.product_form(((), ("2",)))))
    \frac{\mu_{2}}{\lambda_{2}}
    """

    def __init__(self, model: Model, server_buffer: int | None = 0, job_buffer: int | None = None,
                 server_patience: Mapping[str, Any] | None = None,
                 abandonment: bool = True) -> None:
        self.model = _require_model(model)
        self.name = model.name or "model"
        self.server_buffer = _buffer(server_buffer, "server_buffer")
        self.job_buffer = _buffer(job_buffer, "job_buffer")
        self.job_patience = dict(model.abandonment_rates) if abandonment else {}
        self.server_patience = {}
        for m, rate in (server_patience or {}).items():
            if str(m) not in model.servers:
                raise ModelError(f"server_patience names the unknown server type {m!r}; server "
                                 f"types are {', '.join(model.servers)}")
            self.server_patience[str(m)] = parse_rate(rate, f"patience of server type {m!r}")
        self._servers_of = {c: frozenset(model.compatibility[c]) for c in model.classes}
        self._classes_of = {m: frozenset(model.classes_of([m])) for m in model.servers}
        if self.job_patience or self.server_patience:
            self.discipline = "dbma"
        elif self.server_buffer == 0:
            self.discipline = "dbm"
        else:
            self.discipline = f"dbm({'inf' if self.server_buffer is None else self.server_buffer})"

    def initial_state(self) -> PairState:
        return ((), ())

    def size(self, state: PairState) -> int:
        return len(state[0]) + len(state[1])

    def states(self, max_size: int) -> list[PairState]:
        result = []
        for k in range(max_size + 1):
            if self.server_buffer is not None and k > self.server_buffer:
                break
            for waiting_servers in itertools.product(self.model.servers, repeat=k):
                allowed = classes_beside(self, waiting_servers)
                for n in range(max_size - k + 1):
                    if self.job_buffer is not None and n > self.job_buffer:
                        break
                    if n and not allowed:
                        break
                    for jobs in itertools.product(allowed, repeat=n):
                        result.append((jobs, waiting_servers))
        return result

    def transitions(self, state: PairState) -> list[Transition]:
        jobs, servers = state
        moves = []
        for c in self.model.classes:
            rate = self.model.arrival_rates[c]
            j = next((j for j, m in enumerate(servers) if m in self._servers_of[c]), None)
            if j is not None:  # matched with the longest-waiting compatible server
                moves.append(Transition((jobs, servers[:j] + servers[j + 1:]), rate,
                                        ("server queue",), ("server type", servers[j]),
                                        f"class-{c} job arrives and takes the waiting type-"
                                        f"{servers[j]} server"))
            elif self.job_buffer is None or len(jobs) < self.job_buffer:
                moves.append(Transition((jobs + (c,), servers), rate, ("class", c), ("queue",),
                                        f"class-{c} job arrives and waits"))
        for m in self.model.servers:
            rate = self.model.service_rates[m]
            p = next((p for p, c in enumerate(jobs) if m in self._servers_of[c]), None)
            if p is not None:  # matched with the oldest compatible waiting job
                moves.append(Transition((jobs[:p] + jobs[p + 1:], servers), rate, ("queue",),
                                        ("class", jobs[p]), f"type-{m} server arrives and takes "
                                        f"the class-{jobs[p]} job in position {p + 1}"))
            elif self.server_buffer is None or len(servers) < self.server_buffer:
                moves.append(Transition((jobs, servers + (m,)), rate, ("server type", m),
                                        ("server queue",), f"type-{m} server arrives and waits"))
        for p, c in enumerate(jobs):
            if c in self.job_patience:
                moves.append(Transition((jobs[:p] + jobs[p + 1:], servers), self.job_patience[c],
                                        ("queue",), ("class", c),
                                        f"waiting class-{c} job in position {p + 1} abandons"))
        for j, m in enumerate(servers):
            if m in self.server_patience:
                moves.append(Transition((jobs, servers[:j] + servers[j + 1:]),
                                        self.server_patience[m], ("server queue",),
                                        ("server type", m),
                                        f"waiting type-{m} server in position {j + 1} leaves"))
        return moves

    def product_form_factors(self, state: PairState) -> list[sympy.Expr]:
        r"""$\lambda_{c_i}/\mu(\vec c_i)$ and $\mu_{s_j}/\lambda(\vec s_j)$ (Thm 3.12, 3.13)."""
        return _pair_factors(self, state, self.job_patience, self.server_patience)


class GeneralMatching(Process):
    r"""FCFM matching on a general graph, discrete time (Moyal, Busic and Mairesse; [GR20]_ 3.4).

    Parameters
    ----------
    graph : a :class:`networkx.Graph` or an iterable of edges; nodes are the agent classes (no
        self-loops)
    arrival_probabilities : mapping class -> probability $p_c$ that the next agent has class $c$
        (exact; they need not be normalized: only ratios matter)

    Raises
    ------
    ModelError
        A self-loop, a class without a probability, a probability that is not exact and positive.
    """

    discipline = "fcfm"
    discrete_time = True

    def __init__(self, graph: nx.Graph | Iterable[tuple[Any, Any]],
                 arrival_probabilities: Mapping[Any, Any], name: str = "general matching") -> None:
        g = graph if isinstance(graph, nx.Graph) else nx.Graph(list(graph))
        for u, v in g.edges:
            if u == v:
                raise ModelError(f"class {u!r} has a self-loop; general FCFM matching here needs a "
                                 "simple graph")
        probabilities = {str(k): v for k, v in arrival_probabilities.items()}
        self.classes = tuple(sorted((str(n) for n in g.nodes), key=_natural))
        for c in self.classes:
            if c not in probabilities:
                raise ModelError(f"class {c!r} has no arrival probability; give one")
        extra = set(probabilities) - set(self.classes)
        if extra:
            g.add_nodes_from(extra)
            self.classes = tuple(sorted(set(self.classes) | extra, key=_natural))
        self.probabilities = {c: parse_rate(probabilities[c], f"arrival probability of class {c!r}")
                              for c in self.classes}
        self.neighbours = {c: frozenset(str(n) for n in g.neighbors(_original(g, c)))
                           for c in self.classes}
        self.name = name
        self._sums: dict[frozenset, sympy.Expr] = {}

    def _p(self, classes: frozenset) -> sympy.Expr:
        if classes not in self._sums:
            self._sums[classes] = sympy.Add(*(self.probabilities[c] for c in sorted(classes)))
        return self._sums[classes]

    def initial_state(self) -> tuple[str, ...]:
        return ()

    def size(self, state: tuple[str, ...]) -> int:
        return len(state)

    def states(self, max_size: int) -> list[tuple[str, ...]]:
        result: list[tuple[str, ...]] = [()]
        layer: list[tuple[str, ...]] = [()]
        for _ in range(max_size):
            layer = [s + (c,) for s in layer for c in self.classes
                     if not any(c in self.neighbours[x] for x in s)]
            result += layer
        return result

    def transitions(self, state: tuple[str, ...]) -> list[Transition]:
        moves = []
        for c in self.classes:
            p = next((p for p, x in enumerate(state) if x in self.neighbours[c]), None)
            if p is not None:  # matched with the oldest waiting neighbour
                moves.append(Transition(state[:p] + state[p + 1:], self.probabilities[c],
                                        ("departure",), ("class", state[p]),
                                        f"class-{c} agent matches the class-{state[p]} agent in "
                                        f"position {p + 1}"))
            else:
                moves.append(Transition(state + (c,), self.probabilities[c], ("class", c),
                                        ("departure",), f"class-{c} agent arrives and waits"))
        return moves

    def product_form_factors(self, state: tuple[str, ...]) -> list[sympy.Expr]:
        r"""$p_{c_i}/p(\Gamma(c_1..c_i))$ ([GR20]_ section 3.4, Moyal, Busic and Mairesse)."""
        factors = []
        reach: frozenset = frozenset()
        for c in state:
            reach = reach | self.neighbours[c]
            factors.append(self.probabilities[c] / self._p(reach))
        return factors

    # -- exact sums of the product form --------------------------------------------------
    def _independent_sets(self) -> list[frozenset]:
        sets = []
        for r in range(len(self.classes) + 1):
            for combo in itertools.combinations(self.classes, r):
                chosen = frozenset(combo)
                if not any(self.neighbours[c] & chosen for c in chosen):
                    sets.append(chosen)
        return sets

    def _word_sums(self) -> tuple[dict[frozenset, sympy.Expr], dict[str, dict]]:
        r"""$F(A)$ and $F_c(A)$: sums of the product form (weighted by the number of class-$c$
        agents) over the states whose set of classes is exactly the independent set $A$.

        Split a state by its last agent $d$: the rest has class set $A$ or $A\setminus d$, so
        $F(A)\,(p(\Gamma(A)) - p(A)) = \sum_{d\in A} p_d F(A\setminus d)$, and
        $F_c(A)\,(p(\Gamma(A)) - p(A)) = \sum_{d\in A} p_d F_c(A\setminus d) + p_c(F(A) +
        F(A\setminus c))$ for $c \in A$.

        Raises
        ------
        UnstableModelError
            $p(A) \ge p(\Gamma(A))$ for an independent set $A$ (the stability condition of Moyal,
            Busic and Mairesse fails), naming $A$.
        """
        total: dict[frozenset, sympy.Expr] = {frozenset(): sympy.Integer(1)}
        per_class: dict[str, dict[frozenset, sympy.Expr]] = {
            c: {frozenset(): sympy.Integer(0)} for c in self.classes}
        for chosen in self._independent_sets()[1:]:
            reach = frozenset().union(*(self.neighbours[c] for c in chosen))
            gap = sympy.cancel(self._p(reach) - self._p(chosen))
            if gap.is_positive is False or gap == 0:
                raise UnstableModelError(
                    f"unstable: the classes {{{', '.join(sorted(chosen))}}} arrive with "
                    f"probability {self._p(chosen)} but their neighbours only with "
                    f"{self._p(reach)}; FCFM matching needs p(A) < p(neighbours of A)")
            total[chosen] = sympy.cancel(sympy.Add(*(self.probabilities[d] * total[chosen - {d}]
                                                     for d in chosen)) / gap)
            for c in self.classes:
                value = sympy.Add(*(self.probabilities[d] * per_class[c][chosen - {d}]
                                    for d in chosen))
                if c in chosen:
                    value += self.probabilities[c] * (total[chosen] + total[chosen - {c}])
                per_class[c][chosen] = sympy.cancel(value / gap)
        return total, per_class

    def normalizing_constant(self) -> sympy.Expr:
        """$G = \\sum_{\\vec c_n}\\prod_i p_{c_i}/p(\\Gamma(\\vec c_i))$, so $\\pi(\\emptyset) = 1/G$."""
        total, _ = self._word_sums()
        return sympy.cancel(sympy.Add(*total.values()))

    def empty_probability(self) -> sympy.Expr:
        """Stationary probability that no agent waits."""
        return sympy.cancel(1 / self.normalizing_constant())

    def mean_queue_lengths(self) -> dict[str, sympy.Expr]:
        """Stationary mean number of waiting agents of each class."""
        total, per_class = self._word_sums()
        norm = sympy.Add(*total.values())
        return {c: sympy.cancel(sympy.Add(*per_class[c].values()) / norm) for c in self.classes}


def _natural(name: str) -> tuple:
    return (0, int(name), "") if name.lstrip("-").isdigit() else (1, 0, name)


def _original(graph: nx.Graph, name: str) -> Any:
    for node in graph.nodes:
        if str(node) == name:
            return node
    return name


class PairedMatching(Process):
    r"""Paired bipartite FCFM matching (Adan and Weiss), discrete time, on $(\vec c_n, \vec s_n)$.

    Rates are $\lambda_c\mu_s$, proportional to the pair probabilities
    $(\lambda_c/\lambda)(\mu_s/\mu)$ (the stationary law only depends on ratios).

    Examples
    --------
    >>> from sympy import latex
    >>> from symq import model
    >>> pbm = PairedMatching(model("n"))
    >>> print(latex(pbm.product_form((("1",), ("2",)))))
    \frac{\lambda_{1} \mu_{2}}{\lambda_{2} \mu_{1}}
    """

    discipline = "pbm"
    discrete_time = True
    partial_balance = False

    def __init__(self, model: Model) -> None:
        self.model = _require_model(model)
        self.name = model.name or "model"
        self._servers_of = {c: frozenset(model.compatibility[c]) for c in model.classes}
        self._classes_of = {m: frozenset(model.classes_of([m])) for m in model.servers}

    def initial_state(self) -> PairState:
        return ((), ())

    def size(self, state: PairState) -> int:
        return len(state[0])

    def states(self, max_size: int) -> list[PairState]:
        result = [((), ())]
        for n in range(1, max_size + 1):
            for servers in itertools.product(self.model.servers, repeat=n):
                result.extend((jobs, servers) for jobs in
                              itertools.product(classes_beside(self, servers), repeat=n))
        return result

    def transitions(self, state: PairState) -> list[Transition]:
        jobs, servers = state
        moves = []
        for c in self.model.classes:
            j = next((j for j, m in enumerate(servers) if m in self._servers_of[c]), None)
            for s in self.model.servers:
                rate = self.model.arrival_rates[c] * self.model.service_rates[s]
                i = next((i for i, x in enumerate(jobs) if s in self._servers_of[x]), None)
                new_jobs = jobs if i is None else jobs[:i] + jobs[i + 1:]
                new_servers = servers if j is None else servers[:j] + servers[j + 1:]
                if i is None and j is None and s in self._servers_of[c]:
                    continue  # the pair matches itself: the state does not change
                if j is None:
                    new_jobs = new_jobs + (c,)
                if i is None:
                    new_servers = new_servers + (s,)
                moves.append(Transition((new_jobs, new_servers), rate, ("pair",), ("pair",),
                                        f"pair (job {c}, server {s}) arrives"))
        return moves

    def product_form_factors(self, state: PairState) -> list[sympy.Expr]:
        r"""$\frac{\lambda_{c_i}}{\mu(S(\vec c_i))}\frac{\mu_{s_i}}{\lambda(C(\vec s_i))}$."""
        return _pair_factors(self, state)


def _pair_factors(process: Any, state: PairState, job_patience: Mapping[str, Any] | None = None,
                  server_patience: Mapping[str, Any] | None = None) -> list[sympy.Expr]:
    """The factors of waiting jobs, then of waiting servers, of a bipartite matching state."""
    model = process.model
    jobs, servers = state
    return (prefix_ratios(jobs, model.arrival_rates, process._servers_of,
                          lambda reach: sympy.Add(*(model.service_rates[m] for m in sorted(reach))),
                          job_patience)
            + prefix_ratios(servers, model.service_rates, process._classes_of,
                            lambda reach: sympy.Add(*(model.arrival_rates[c]
                                                      for c in sorted(reach))),
                            server_patience))
