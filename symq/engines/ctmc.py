r"""The independent numerical route: truncated Markov chains built from the verbal model.
Nothing here uses a product form: a chain is explored breadth-first from an initial state through
a *transition function* ``state -> [(next_state, rate), ...]`` written from the verbal definitions
of [GR20]_ sections 2 and 3 (collaborative, FCFS-ALIS, random assignment, abandonment, OI and
token queues, matching models), states rejected by ``keep`` are cut off, and the stationary law
is computed by the GTH algorithm (Grassmann, Taksar and Heyman, Operations Research 33 (1985)
1107-1116) on exact :class:`~fractions.Fraction` rates or on floats. The states of each
transition function and what truncating at ``max_jobs`` gives ([GR20]_ Cor 3.7): see
docs/howto-verify.md.

Examples
--------
>>> from symq import model
>>> from symq.engines.ctmc import truncated_stationary, empty_mass
>>> mm1 = model("uninformed:1").substitute({"lambda": "1/2", "mu_1": "1"})
>>> law = truncated_stationary(mm1, "collaborative", max_jobs=3)
>>> empty_mass(law)
Fraction(8, 15)
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Hashable, Iterable, Mapping

import sympy

from symq.errors import ModelError
from symq.models.model import Model

__all__ = ["MarkovChain", "build_chain", "stationary_distribution", "collaborative_transitions",
           "alis_transitions", "random_assignment_transitions", "uniform_assignment",
           "truncated_stationary", "empty_mass", "job_count", "class_counts", "busy_servers",
           "initial_state", "collaborative_abandonment_transitions", "multiserver_transitions",
           "token_queue_transitions", "closed_token_network_transitions",
           "closed_token_initial_state", "directed_matching_transitions",
           "general_matching_transitions", "paired_matching_transitions"]

State = Hashable
Transitions = Callable[[State], Iterable[tuple[State, Any]]]


@dataclass
class MarkovChain:
    """States in exploration order (``states[0]`` is the initial one) and off-diagonal rates."""

    states: list[State]
    rates: list[dict[int, Any]]

    def __len__(self) -> int:
        return len(self.states)


def build_chain(initial: State, transitions: Transitions,
                keep: Callable[[State], bool] = lambda state: True,
                max_states: int = 2_000_000) -> MarkovChain:
    r"""Explore the chain reachable from ``initial``; transitions into states not kept are cut.

    Parameters
    ----------
    initial : hashable
        The first state.
    transitions : callable
        ``transitions(state)`` yields ``(target, rate)`` pairs; self-loops are dropped.
    keep : callable
        The truncation: ``keep(state)`` is False for states left out.
    max_states : int
        A guard against a truncation that is too loose.

    Returns
    -------
    MarkovChain
        States in breadth-first order and the summed off-diagonal rates.

    Raises
    ------
    ModelError
        More than ``max_states`` states (tighten the truncation).

    Examples
    --------
    >>> from symq import example_model
    >>> chain = build_chain((), collaborative_transitions(example_model("n")),
    ...                     keep=lambda state: len(state) <= 1)
    >>> chain.states
    [(), ('1',), ('2',)]

    Running time: O(S T) for S states kept and T transitions a state.
    """
    index = {initial: 0}
    states = [initial]
    rates: list[dict[int, Any]] = [{}]
    queue = deque([initial])
    while queue:
        state = queue.popleft()
        row = rates[index[state]]
        for target, rate in transitions(state):
            if target == state or not keep(target):
                continue
            if target not in index:
                if len(states) >= max_states:
                    raise ModelError(f"the truncated chain has more than {max_states} states; "
                                     "lower max_jobs")
                index[target] = len(states)
                states.append(target)
                rates.append({})
                queue.append(target)
            k = index[target]
            row[k] = row.get(k, 0) + rate
    return MarkovChain(states, rates)


def stationary_distribution(chain: MarkovChain, exact: bool = True) -> dict[State, Any]:
    r"""The stationary law of an irreducible finite chain.

    ``exact=True``: GTH state reduction on Fractions (rates must be exact; for chains up to a few
    hundred states). ``exact=False``: floats, by a sparse LU solve of the balance equations with
    scipy (a core dependency), else by GTH on floats.

    Parameters
    ----------
    chain : MarkovChain
        From :func:`build_chain`.
    exact : bool
        Fractions (GTH) or floats.

    Returns
    -------
    dict
        ``{state: probability}``, summing to 1.

    Examples
    --------
    >>> from symq import example_model
    >>> chain = build_chain((), collaborative_transitions(example_model("n")),
    ...                     keep=lambda state: len(state) <= 1)
    >>> stationary_distribution(chain)[()]
    Fraction(8, 11)

    Running time: O(S^3) exact operations for GTH on S states; a sparse LU solve for floats.
    """
    if not exact:
        try:
            return _sparse_float_solve(chain)
        except ImportError:
            pass
    return _gth(chain, exact)


def _sparse_float_solve(chain: MarkovChain) -> dict[State, float]:
    import numpy
    from scipy.sparse import coo_matrix
    from scipy.sparse.linalg import spsolve

    n = len(chain)
    rows, cols, values = [], [], []
    for i, row in enumerate(chain.rates):
        out = 0.0
        for j, r in row.items():
            r = float(r)
            rows.append(j)  # transposed generator: equation j collects the flow into j
            cols.append(i)
            values.append(r)
            out += r
        rows.append(i)
        cols.append(i)
        values.append(-out)
    # replace the balance equation of state 0 by the normalization sum(pi) = 1
    keep = [k for k, r in enumerate(rows) if r != 0]
    rows = [rows[k] for k in keep] + [0] * n
    cols = [cols[k] for k in keep] + list(range(n))
    values = [values[k] for k in keep] + [1.0] * n
    matrix = coo_matrix((values, (rows, cols)), shape=(n, n)).tocsc()
    rhs = numpy.zeros(n)
    rhs[0] = 1.0
    solution = spsolve(matrix, rhs)
    return {state: float(p) for state, p in zip(chain.states, solution)}


def _gth(chain: MarkovChain, exact: bool) -> dict[State, Any]:
    """Grassmann-Taksar-Heyman state reduction (no subtractions: stable in floating point)."""
    convert = _fraction if exact else float
    n = len(chain)
    out = [{j: convert(r) for j, r in row.items()} for row in chain.rates]
    into: list[dict[int, Any]] = [{} for _ in range(n)]
    for i, row in enumerate(out):
        for j, r in row.items():
            into[j][i] = r
    saved: list[tuple[dict[int, Any], Any]] = [({}, 1)] * n
    for k in range(n - 1, 0, -1):
        row_k = out[k]
        total = sum(row_k.values())
        if not total:
            raise ModelError("the truncated chain is not irreducible (a state has no way back)")
        incoming = into[k]
        saved[k] = (incoming, total)
        for j in row_k:
            del into[j][k]
        for i, a in incoming.items():
            row_i = out[i]
            del row_i[k]
            factor = a / total
            for j, b in row_k.items():
                if j != i:
                    value = row_i.get(j, 0) + factor * b
                    row_i[j] = value
                    into[j][i] = value
        out[k] = {}
        into[k] = {}
    weights = [convert(1)] + [convert(0)] * (n - 1)
    for k in range(1, n):
        incoming, total = saved[k]
        weights[k] = sum(weights[i] * a for i, a in incoming.items()) / total
    norm = sum(weights)
    return {state: w / norm for state, w in zip(chain.states, weights)}


def _fraction(value: Any) -> Fraction:
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    value = sympy.sympify(value)
    if not value.is_Rational:
        raise ModelError(f"the exact solver needs rational rates, not {value}")
    return Fraction(int(value.p), int(value.q))


def _rates(model: Model) -> tuple[dict[str, Fraction], dict[str, Fraction]]:
    if not model.is_numeric:
        names = ", ".join(sorted(s.name for s in model.symbols))
        raise ModelError(f"the truncated chain needs numeric rates; set {names}")
    lam = {i: _fraction(r) for i, r in model.arrival_rates.items()}
    mu = {j: _fraction(r) for j, r in model.service_rates.items()}
    return lam, mu


# ------------------------------------------------------------------ collaborative model
def collaborative_transitions(model: Model) -> Transitions:
    r"""Transitions of the collaborative model on the state (c_1, ..., c_n) (classes, oldest first),
    from the verbal model: each server works on the oldest job it can serve, and a job's service
    rate is the total rate of the servers on it ([GR20]_ section 3.1).

    Parameters
    ----------
    model : Model
        Exact rational rates; the chain is written from its compatibility sets.

    Returns
    -------
    callable
        ``transitions(state)`` yielding ``(target, rate)``.

    Examples
    --------
    >>> from symq import example_model
    >>> list(collaborative_transitions(example_model("n"))(("1",)))[-1]
    ((), Fraction(1, 1))

    Running time: O(n M) per state with n jobs and M servers.
    """
    lam, mu = _rates(model)
    servers_of = {i: frozenset(s) for i, s in model.compatibility.items()}

    def transitions(state: tuple[str, ...]):
        for i in model.classes:
            yield state + (i,), lam[i]
        used: set[str] = set()
        for p, c in enumerate(state):
            fresh = servers_of[c] - used
            if fresh:
                yield state[:p] + state[p + 1:], sum(mu[j] for j in fresh)
                used |= fresh
    return transitions


# ------------------------------------------------------------------ noncollaborative models
def _complete(model: Model, jobs: tuple, server: str) -> tuple[tuple, bool]:
    """Server ``server`` finished its job: it takes the oldest compatible waiting job, if any.

    Returns the new job tuple and whether the server stays busy."""
    position = next(p for p, job in enumerate(jobs) if job[0] == "b" and job[1] == server)
    jobs = jobs[:position] + jobs[position + 1:]
    for p, job in enumerate(jobs):
        if job[0] == "q" and server in model.compatibility[job[1]]:
            return jobs[:p] + (("b", server, job[1]),) + jobs[p + 1:], True
    return jobs, False


def alis_transitions(model: Model) -> Transitions:
    r"""Transitions of noncollaborative FCFS-ALIS on (jobs, idle servers in idle order): an arrival
    takes the compatible server idle longest, a server that completes takes the oldest waiting
    compatible job or joins the end of the idle queue ([GR20]_ section 3.2).

    Parameters
    ----------
    model : Model
        Exact rational rates; a server that finishes and finds no compatible job joins
        the end of the idle queue.

    Returns
    -------
    callable
        ``transitions(state)``; jobs are ``("q", class)`` while they wait and
        ``("b", server, class)`` in service.

    Examples
    --------
    >>> from symq import example_model
    >>> len(list(alis_transitions(example_model("n"))(((), ("1", "2")))))
    2

    Running time: O(n M + J M) per state.
    """
    lam, mu = _rates(model)

    def transitions(state: tuple[tuple, tuple[str, ...]]):
        jobs, idle = state
        for i in model.classes:
            free = [j for j in idle if j in model.compatibility[i]]
            if free:  # assign the longest idle compatible server
                j = free[0]
                yield (jobs + (("b", j, i),), tuple(s for s in idle if s != j)), lam[i]
            else:
                yield (jobs + (("q", i),), idle), lam[i]
        for job in jobs:
            if job[0] == "b":
                server = job[1]
                new_jobs, busy = _complete(model, jobs, server)
                yield (new_jobs, idle if busy else idle + (server,)), mu[server]
    return transitions


def uniform_assignment(model: Model, job_class: str, idle: frozenset[str]) -> dict[str, Fraction]:
    r"""Uniform choice among the idle servers compatible with ``job_class``.

    Parameters
    ----------
    model : Model
        The compatibility sets.
    job_class : str
        The arriving class.
    idle : frozenset of str
        The idle servers (at least one compatible).

    Returns
    -------
    dict
        ``{server: Fraction}``.

    Examples
    --------
    >>> from symq import model
    >>> uniform_assignment(model("n"), "2", frozenset({"1", "2"}))
    {'1': Fraction(1, 2), '2': Fraction(1, 2)}

    Running time: O(M).
    """
    free = [j for j in model.servers if j in idle and j in model.compatibility[job_class]]
    return {j: Fraction(1, len(free)) for j in free}


def _assigned_arrivals(model: Model, lam: Mapping[str, Any],
                       assignment: Callable[[Model, str, frozenset[str]], Mapping[str, Any]],
                       jobs: tuple, idle: frozenset[str]):
    """Arrivals on (jobs, idle servers): a job that finds idle compatible servers goes to one of
    them with the ``assignment`` probabilities (``("b", server, class)``), else it waits
    (``("q", class)``)."""
    for i in model.classes:
        if idle.intersection(model.compatibility[i]):
            for j, p in assignment(model, i, idle).items():
                if p:
                    yield (jobs + (("b", j, i),), idle - {j}), lam[i] * _fraction(p)
        else:
            yield (jobs + (("q", i),), idle), lam[i]


def random_assignment_transitions(
        model: Model,
        assignment: Callable[[Model, str, frozenset[str]], Mapping[str, Any]] = uniform_assignment,
) -> Transitions:
    r"""Transitions of noncollaborative FCFS with random assignment to idle servers.

    ``assignment(model, job_class, idle_servers)`` gives the probability that an arriving job of
    ``job_class`` goes to each idle compatible server (it is called only when there is one).

    Parameters
    ----------
    model : Model
        Exact rational rates (the routing gives the rest).
    assignment : callable
        The routing, :func:`uniform_assignment` by default.

    Returns
    -------
    callable
        ``transitions(state)`` on (jobs, frozenset of idle servers).

    Examples
    --------
    >>> from symq import example_model
    >>> moves = random_assignment_transitions(example_model("n"))(((), frozenset({"1", "2"})))
    >>> sum(rate for _, rate in moves)
    Fraction(1, 2)

    Running time: O(J M + n M) per state, plus the ``assignment`` calls.
    """
    lam, mu = _rates(model)

    def transitions(state: tuple[tuple, frozenset[str]]):
        jobs, idle = state
        yield from _assigned_arrivals(model, lam, assignment, jobs, idle)
        for job in jobs:
            if job[0] == "b":
                server = job[1]
                new_jobs, busy = _complete(model, jobs, server)
                yield (new_jobs, idle if busy else idle | {server}), mu[server]
    return transitions


# ------------------------------------------------------------------ convenience
def initial_state(model: Model, discipline: str) -> State:
    r"""The empty state of the chain for ``discipline``.

    Parameters
    ----------
    model : Model
        Its servers are all idle.
    discipline : str
        ``collaborative``, ``alis``, or ``rais``/``random``.

    Returns
    -------
    tuple
        ``()`` for collaborative; (no jobs, idle servers) otherwise.

    Raises
    ------
    ModelError
        Another discipline name.

    Examples
    --------
    >>> from symq import model
    >>> initial_state(model("n"), "alis")
    ((), ('1', '2'))

    Running time: O(M).
    """
    if discipline == "collaborative":
        return ()
    if discipline == "alis":
        return ((), tuple(model.servers))
    if discipline in ("rais", "random"):
        return ((), frozenset(model.servers))
    raise ModelError(f"unknown discipline {discipline!r}; use collaborative, alis or rais")


def _jobs(state: State) -> tuple:
    """The jobs of a state: the collaborative state is its job tuple, the others are pairs."""
    collaborative = not state or isinstance(state[0], str)
    return state if collaborative else state[0]


def job_count(state: State) -> int:
    r"""Number of jobs in a state of any of the chains above.

    Parameters
    ----------
    state : tuple
        A collaborative job tuple or a (jobs, idle) pair.

    Returns
    -------
    int

    Examples
    --------
    >>> job_count((("1", "2"), ()))
    2

    Running time: O(1).
    """
    return len(_jobs(state))


def class_counts(state: State) -> dict[str, int]:
    r"""Number of jobs of each class in a state of any of the chains above.

    Parameters
    ----------
    state : tuple
        A collaborative job tuple, or a pair whose jobs are ``("q", c)`` or ``("b", s, c)``.

    Returns
    -------
    dict
        ``{class: count}`` for the classes present.

    Examples
    --------
    >>> class_counts((("1", "2", "1"), ()))
    {'1': 2, '2': 1}

    Running time: O(n) for n jobs.
    """
    counts: dict[str, int] = {}
    for job in _jobs(state):
        c = job if isinstance(job, str) else job[-1]
        counts[c] = counts.get(c, 0) + 1
    return counts


def busy_servers(model: Model, state: State) -> frozenset[str]:
    r"""The servers working in a state of any of the chains above.

    Parameters
    ----------
    model : Model
        Needed for the collaborative state, where the busy servers follow from the jobs.
    state : tuple
        A state of one of the chains.

    Returns
    -------
    frozenset of str

    Examples
    --------
    >>> from symq import model
    >>> busy_servers(model("n"), ((("b", "1", "1"),), frozenset({"2"})))
    frozenset({'1'})

    Running time: O(n M) for n jobs and M servers.
    """
    jobs = _jobs(state)
    if jobs is state:
        return frozenset(model.servers_of(set(jobs)))
    return frozenset(job[1] for job in jobs if job[0] == "b")


def truncated_stationary(model: Model, discipline: str, max_jobs: int, exact: bool = True,
                         assignment=uniform_assignment) -> dict[State, Any]:
    r"""Stationary law of the chain of ``discipline`` with arrivals blocked beyond ``max_jobs``.

    Parameters
    ----------
    model : Model
        Exact rational rates, no symbols.
    discipline : str
        ``collaborative``, ``alis`` or ``rais`` (random assignment, uniform unless
        ``assignment`` is given).
    max_jobs : int
        The truncation level $N$.
    exact : bool
        Fractions (GTH) or floats (sparse solve).
    assignment : callable
        The RAIS routing, as :func:`random_assignment_transitions`.

    Returns
    -------
    dict
        ``{state: probability}``.

    Raises
    ------
    ModelError
        An unknown discipline, or a chain past the state limit of :func:`build_chain`.

    Examples
    --------
    >>> from symq import model
    >>> mm1 = model("uninformed:1").substitute({"lambda": "1/2", "mu_1": "1"})
    >>> empty_mass(truncated_stationary(mm1, "collaborative", max_jobs=3))
    Fraction(8, 15)

    Running time: O(S^3) for the S states with at most ``max_jobs`` jobs (exact).
    """
    if discipline == "collaborative":
        transitions = collaborative_transitions(model)
    elif discipline == "alis":
        transitions = alis_transitions(model)
    elif discipline in ("rais", "random"):
        transitions = random_assignment_transitions(model, assignment)
    else:
        raise ModelError(f"unknown discipline {discipline!r}; use collaborative, alis or rais")
    chain = build_chain(initial_state(model, discipline), transitions,
                        keep=lambda state: job_count(state) <= max_jobs)
    return stationary_distribution(chain, exact=exact)


def empty_mass(law: Mapping[State, Any]) -> Any:
    r"""Probability of the states with no job.

    Parameters
    ----------
    law : mapping
        ``{state: probability}`` of one of the chains.

    Returns
    -------
    Fraction or float
        Of the type of the probabilities.

    Examples
    --------
    >>> empty_mass({(): Fraction(1, 3), ("1",): Fraction(2, 3)})
    Fraction(1, 3)

    Running time: O(number of states).
    """
    return sum((p for state, p in law.items() if job_count(state) == 0), Fraction(0))


# ------------------------------------------------------------------ other models of [GR20]_ section 3
# Written from the verbal models only (who arrives, who serves or matches whom), independently of
# symq.engines.processes, so that the product forms there can be tested against them.
def _rate_map(rates: Mapping[Any, Any], what: str) -> dict[str, Fraction]:
    out = {}
    for key, value in rates.items():
        value = _fraction(value)
        if value <= 0:
            raise ModelError(f"the {what} of {key!r} is {value}; give a positive rational rate")
        out[str(key)] = value
    return out


def collaborative_abandonment_transitions(model: Model) -> Transitions:
    r"""The collaborative model with abandonments ([GR20]_ Cor 3.5) on (c_1, ..., c_n).

    Every job in the system, waiting or in service, leaves on its own at rate ``gamma_c``
    (``model.abandonment_rates``; classes without one never abandon); service is as in
    :func:`collaborative_transitions`.

    Parameters
    ----------
    model : Model
        Numeric rates, with ``abandonment_rates``.

    Returns
    -------
    callable
        ``transitions(state)``: service moves, then one abandonment per job.

    Examples
    --------
    >>> from symq.models.model import Model
    >>> m = Model(compatibility={"1": ["1"]}, arrival_rates={"1": "1/2"}, service_rates={"1": 1},
    ...           abandonment_rates={"1": "1/3"})
    >>> list(collaborative_abandonment_transitions(m)(("1",)))[-1]
    ((), Fraction(1, 3))

    Running time: O(n M) per state.
    """
    served = collaborative_transitions(model)
    patience = {c: _fraction(r) for c, r in model.abandonment_rates.items()}

    def transitions(state: tuple[str, ...]):
        yield from served(state)
        for p, c in enumerate(state):
            if c in patience:
                yield state[:p] + state[p + 1:], patience[c]
    return transitions


def multiserver_transitions(arrival_rates: Mapping[str, Any], servers: int,
                            rate: Any) -> Transitions:
    r"""Multiclass M/M/``servers`` FCFS on (c_1, ..., c_n): the ``servers`` oldest jobs are in
    service, each at ``rate`` (an OI queue with mu(c_n) = min(n, servers) rate).

    Parameters
    ----------
    arrival_rates : mapping
        Class -> exact arrival rate.
    servers : int
        The number of identical servers.
    rate : exact rational
        The rate of each server.

    Returns
    -------
    callable
        ``transitions(state)``: one arrival per class, one completion per job in service.

    Examples
    --------
    >>> moves = list(multiserver_transitions({"a": "1/2"}, 2, 1)(("a", "a", "a")))
    >>> [len(target) for target, _ in moves]
    [4, 2, 2]

    Running time: O(J + servers) per state.
    """
    lam = _rate_map(arrival_rates, "arrival rate")
    mu = _fraction(rate)

    def transitions(state: tuple[str, ...]):
        for c, r in lam.items():
            yield state + (c,), r
        for p in range(min(servers, len(state))):
            yield state[:p] + state[p + 1:], mu
    return transitions


def _collaborative_layer(token_servers: Mapping[str, Any], service_rates: Mapping[str, Any]):
    """Rates at which busy tokens (oldest first) complete when every server works on the oldest
    busy token it serves, together with the other servers on that token."""
    mu = _rate_map(service_rates, "service rate")
    servers_of = {str(t): frozenset(str(m) for m in s) for t, s in token_servers.items()}

    def completion_rates(busy: tuple[str, ...]) -> list[Fraction]:
        taken: set[str] = set()
        out = []
        for token in busy:
            mine = servers_of[token] - taken
            taken |= mine
            out.append(sum((mu[m] for m in mine), Fraction(0)))
        return out
    return completion_rates


def token_queue_transitions(model: Model, token_servers: Mapping[str, Any],
                            service_rates: Mapping[str, Any],
                            assignment: Callable[[Model, str, frozenset[str]], Mapping[str, Any]]
                            = uniform_assignment) -> Transitions:
    r"""The token central queue of Ayesta et al. ([GR20]_ section 3.3) on (jobs, idle tokens).

    The model's servers are the tokens. A job needs a compatible token: an arriving job that
    finds idle compatible tokens takes one of them with the probabilities ``assignment(model,
    class, idle)``, else it waits in FCFS order. Busy tokens are served by a collaborative layer
    of servers (``token_servers``: token -> servers, ``service_rates``: server -> rate): each
    server works on the oldest busy token it serves. When a token's job completes, the token
    takes the oldest waiting compatible job or becomes idle. Jobs are ``("q", class)`` or
    ``("b", token, class)`` as in :func:`random_assignment_transitions`.

    Parameters
    ----------
    model : Model
        Classes and their compatible tokens, exact arrival rates.
    token_servers : mapping
        Token -> the servers of the layer that work on it.
    service_rates : mapping
        Server of the layer -> exact rate.
    assignment : callable
        The token choice of an arrival, uniform by default.

    Returns
    -------
    callable
        ``transitions(state)`` on (jobs, frozenset of idle tokens); a job in service names
        its token.

    Examples
    --------
    >>> from symq import example_model
    >>> moves = token_queue_transitions(example_model("n"), {"1": ["a"], "2": ["a", "b"]},
    ...                                 {"a": 1, "b": 2})(((), frozenset({"1", "2"})))
    >>> len(list(moves))
    3

    Running time: O(J T + n S) per state for T tokens and S layer servers.
    """
    lam, _ = _rates(model)
    completion_rates = _collaborative_layer(token_servers, service_rates)

    def transitions(state: tuple[tuple, frozenset[str]]):
        jobs, idle = state
        yield from _assigned_arrivals(model, lam, assignment, jobs, idle)
        busy = tuple(job[1] for job in jobs if job[0] == "b")
        for token, rate in zip(busy, completion_rates(busy)):
            if rate:
                new_jobs, still_busy = _complete(model, jobs, token)
                yield (new_jobs, idle if still_busy else idle | {token}), rate
    return transitions


def closed_token_network_transitions(class_tokens: Mapping[str, Any],
                                     arrival_rates: Mapping[str, Any],
                                     token_servers: Mapping[str, Any],
                                     service_rates: Mapping[str, Any]) -> Transitions:
    r"""Comte's closed token network ([GR20]_ section 3.3) on (busy tokens, idle tokens).

    Busy tokens are listed in the order of their jobs' arrivals, idle tokens in the order they
    became idle. An arriving job takes the compatible token idle the longest, or is lost if none
    is idle; busy tokens are served by the collaborative layer of servers (each server on the
    oldest busy token it serves); a token whose job completes joins the end of the idle queue.

    Parameters
    ----------
    class_tokens : mapping
        Class -> its compatible tokens.
    arrival_rates : mapping
        Class -> exact arrival rate.
    token_servers : mapping
        Token -> the servers that work on it.
    service_rates : mapping
        Server -> exact rate.

    Returns
    -------
    callable
        ``transitions(state)``; see :func:`closed_token_initial_state` for the first state.

    Examples
    --------
    >>> step = closed_token_network_transitions({"1": ["x"], "2": ["x", "y"]}, {"1": 1, "2": 2},
    ...                                         {"x": ["a"], "y": ["b"]}, {"a": 1, "b": 2})
    >>> sorted(set(target for target, _ in step(((), ("x", "y")))))
    [(('x',), ('y',))]

    Running time: O(J T + T S) per state.
    """
    lam = _rate_map(arrival_rates, "arrival rate")
    tokens_of = {str(c): frozenset(str(t) for t in ts) for c, ts in class_tokens.items()}
    completion_rates = _collaborative_layer(token_servers, service_rates)

    def transitions(state: tuple[tuple[str, ...], tuple[str, ...]]):
        busy, idle = state
        for c, r in lam.items():
            for token in idle:
                if token in tokens_of[c]:
                    yield (busy + (token,), tuple(t for t in idle if t != token)), r
                    break
        for k, rate in enumerate(completion_rates(busy)):
            if rate:
                yield (busy[:k] + busy[k + 1:], idle + (busy[k],)), rate
    return transitions


def closed_token_initial_state(token_servers: Mapping[str, Any]) -> tuple[tuple, tuple[str, ...]]:
    r"""All tokens idle, in the order ``token_servers`` lists them.

    Parameters
    ----------
    token_servers : mapping
        Token -> servers; only the keys are read.

    Returns
    -------
    tuple
        ``((), idle tokens)``.

    Examples
    --------
    >>> closed_token_initial_state({"x": ["a"], "y": ["b"]})
    ((), ('x', 'y'))

    Running time: O(T) for T tokens.
    """
    return ((), tuple(str(t) for t in token_servers))


def directed_matching_transitions(model: Model, server_buffer: int | None = 0,
                                  job_buffer: int | None = None,
                                  server_patience: Mapping[str, Any] | None = None,
                                  abandonment: bool = True) -> Transitions:
    r"""Directed bipartite matching DBM, DBM(K), DBMA ([GR20]_ section 3.4) on (jobs, servers).

    Jobs of class c arrive at rate lambda_c, servers of type m at rate mu_m (the model's service
    rates). An arriving server takes the oldest waiting compatible job and both leave; if there
    is none it waits, unless ``server_buffer`` servers already wait (then it leaves). An arriving
    job takes the compatible server that has waited longest and both leave; else it waits, unless
    ``job_buffer`` jobs already wait (then it is lost). With ``abandonment``, a waiting job of
    class c leaves at rate gamma_c (``model.abandonment_rates``) and a waiting server of type m at
    rate ``server_patience[m]``.

    Parameters
    ----------
    model : Model
        Classes, server types and their exact rates.
    server_buffer : int or None
        How many servers may wait (0: DBM; None: no bound).
    job_buffer : int or None
        How many jobs may wait (None: no bound).
    server_patience : mapping, optional
        Server type -> abandonment rate.
    abandonment : bool
        Use the abandonment rates (DBMA).

    Returns
    -------
    callable
        ``transitions(state)`` on (waiting jobs, waiting servers).

    Examples
    --------
    >>> from symq import example_model
    >>> list(directed_matching_transitions(example_model("n"))(((), ())))
    [((('1',), ()), Fraction(1, 4)), ((('2',), ()), Fraction(1, 4))]

    Running time: O((J + M)(n + k)) per state with n jobs and k servers waiting.
    """
    lam, mu = _rates(model)
    gamma = {c: _fraction(r) for c, r in model.abandonment_rates.items()} if abandonment else {}
    nu = _rate_map(server_patience or {}, "patience of server type")

    def transitions(state: tuple[tuple[str, ...], tuple[str, ...]]):
        jobs, servers = state
        for c in model.classes:
            match = next((k for k, m in enumerate(servers) if m in model.compatibility[c]), None)
            if match is not None:
                yield (jobs, servers[:match] + servers[match + 1:]), lam[c]
            elif job_buffer is None or len(jobs) < job_buffer:
                yield (jobs + (c,), servers), lam[c]
        for m in model.servers:
            match = next((k for k, c in enumerate(jobs) if m in model.compatibility[c]), None)
            if match is not None:
                yield (jobs[:match] + jobs[match + 1:], servers), mu[m]
            elif server_buffer is None or len(servers) < server_buffer:
                yield (jobs, servers + (m,)), mu[m]
        for k, c in enumerate(jobs):
            if c in gamma:
                yield (jobs[:k] + jobs[k + 1:], servers), gamma[c]
        for k, m in enumerate(servers):
            if m in nu:
                yield (jobs, servers[:k] + servers[k + 1:]), nu[m]
    return transitions


def general_matching_transitions(edges: Iterable[tuple[Any, Any]],
                                 probabilities: Mapping[Any, Any]) -> Transitions:
    r"""FCFM matching on a general graph (Moyal, Busic and Mairesse; [GR20]_ section 3.4).

    Discrete time: each step one agent arrives, of class c with probability p_c (given as rates:
    only ratios matter). It leaves with the oldest waiting agent of a neighbouring class, if any,
    else it waits. State: the waiting agents' classes in arrival order.

    Parameters
    ----------
    edges : iterable of pairs
        The compatibility graph of the agent classes.
    probabilities : mapping
        Class -> exact weight $p_c$.

    Returns
    -------
    callable
        ``transitions(state)`` of the embedded chain.

    Examples
    --------
    >>> list(general_matching_transitions([("a", "b")], {"a": 1, "b": 2})(()))
    [(('a',), Fraction(1, 1)), (('b',), Fraction(2, 1))]

    Running time: O(C n) per state for C classes and n waiting agents.
    """
    p = _rate_map(probabilities, "arrival probability")
    neighbours: dict[str, set[str]] = {c: set() for c in p}
    for u, v in edges:
        neighbours[str(u)].add(str(v))
        neighbours[str(v)].add(str(u))

    def transitions(state: tuple[str, ...]):
        for c, r in p.items():
            match = next((k for k, x in enumerate(state) if x in neighbours[c]), None)
            if match is None:
                yield state + (c,), r
            else:
                yield state[:match] + state[match + 1:], r
    return transitions


def paired_matching_transitions(model: Model) -> Transitions:
    r"""Paired bipartite matching (Adan and Weiss; [GR20]_ section 3.4) on (jobs, servers).

    Discrete time: each step a job of class c and a server of type s arrive together, with
    probability proportional to lambda_c mu_s. The job takes the first compatible waiting server
    and the server the first compatible waiting job; if neither finds a partner and the two are
    compatible they match each other; whoever is unmatched waits at the end of its queue.

    Parameters
    ----------
    model : Model
        Exact rates $\lambda_c$, $\mu_s$ (only products matter).

    Returns
    -------
    callable
        ``transitions(state)`` of the embedded chain, one move per (class, type) pair with
        weight $\lambda_c\mu_s$.

    Examples
    --------
    >>> from symq import example_model
    >>> list(paired_matching_transitions(example_model("n"))(((), ())))
    [((('1',), ('2',)), Fraction(1, 4))]

    Running time: O(J M (n + k)) per state.
    """
    lam, mu = _rates(model)

    def transitions(state: tuple[tuple[str, ...], tuple[str, ...]]):
        jobs, servers = state
        for c in model.classes:
            for s in model.servers:
                for_job = next((k for k, m in enumerate(servers)
                                if m in model.compatibility[c]), None)
                for_server = next((k for k, x in enumerate(jobs)
                                   if s in model.compatibility[x]), None)
                if for_job is None and for_server is None and s in model.compatibility[c]:
                    continue  # they match each other: no change
                new_jobs = jobs if for_server is None else \
                    jobs[:for_server] + jobs[for_server + 1:]
                new_servers = servers if for_job is None else \
                    servers[:for_job] + servers[for_job + 1:]
                if for_job is None:
                    new_jobs = new_jobs + (c,)
                if for_server is None:
                    new_servers = new_servers + (s,)
                yield (new_jobs, new_servers), lam[c] * mu[s]
    return transitions
