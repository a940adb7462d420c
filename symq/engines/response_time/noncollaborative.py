r"""The tagged job under noncollaborative FCFS (ALIS and RAIS): waiting time, server, response time.
For a tagged class-$i$ job (ALIS, or symq's canonical RAIS, which give the same laws) it computes
exactly the LST of the waiting time ([GR20]_ Thm 5.4, read as a mixture over the busy vector of
Thm 5.1), the wait jointly with the server that serves the job (new in symq), the immediate-start
law (Thm 3.9's idle order, the corrected Thm 5.2 and Cor 5.3) and the response-time LST
$\sum_{s\in S_i}(P(W_i=0,s)+E[e^{-\theta W_i};s,W_i>0])\,\mu_s/(\mu_s+\theta)$, each by a dynamic
programme over server sets. The derivations and the recursions are in docs/response-times.md.

Examples
--------
>>> from symq import example_model
>>> from symq.engines.response_time.noncollaborative import server_law
>>> {s: str(p) for s, p in server_law(example_model("w"), "3").items()}
{'1': '187/380', '2': '193/380'}

Running time: $O(2^M(M+J))$ field operations per class and server for the wait, plus
$O(3^M)$ for the immediate start.
"""

from __future__ import annotations

from typing import Any

import sympy

from symq.models.model import Model
from symq.engines.response_time.setfunctions import SetFunctions, _bits

__all__ = ["waiting_lst", "joint_waiting_lst", "immediate_start", "response_lst",
           "server_law", "routing_probability"]


def _sets(model_or_sets) -> SetFunctions:
    return model_or_sets if isinstance(model_or_sets, SetFunctions) else SetFunctions(model_or_sets)


def waiting_lst(model: Model | SetFunctions, job_class: str):
    r"""$E e^{-\theta W_i}$ (Thm 5.4 corrected, one DP); a field element in $\theta$.

    Parameters
    ----------
    model : Model or SetFunctions
        The model (or its set functions); ALIS and canonical RAIS agree here.
    job_class : str
        The class whose wait is wanted.

    Returns
    -------
    field element
        With the atom $P(W_i=0)$ as its value at $\theta\to\infty$.

    Examples
    --------
    >>> from symq import example_model
    >>> waiting_lst(example_model("n"), "2")
    (87*theta + 141)/(94*theta + 141)

    Running time: O(2^M (M + J)) field operations.
    """
    sets = _sets(model)
    need = sets.need[sets.class_index(job_class)]
    zero = sets.lift(sets.zero)
    table = [sets.lift(sets.one)] + [zero] * sets.full
    for busy in range(1, sets.full + 1):
        total = sum((table[busy & ~(1 << m)] for m in _bits(busy)), zero)
        rate = sets.lift(sets.r(busy)) + (sets.theta if need & ~busy == 0 else 0)
        table[busy] = total / rate
    top = sum((sets.lift(sets.busy_weight(b)) * table[b] for b in range(sets.full + 1)), zero)
    return top / sets.lift(sets.noncollaborative_constant)


def joint_waiting_lst(model: Model | SetFunctions, job_class: str, server: str):
    r"""$E[e^{-\theta W_i};\,\text{server}=s,\,W_i>0]$ by the three-phase DP of docs/response-times.md.

    Parameters
    ----------
    model : Model or SetFunctions
        ALIS or canonical RAIS; numeric or symbolic rates, the result is a rational
        function of them and of $\theta$.
    job_class : str
        The tagged class $i$ (its servers $S_i$ are the possible servers).
    server : str
        A server $s$ of $S_i$.

    Returns
    -------
    field element
        A rational function of $\theta$; at $\theta=0$ the probability that the job waits and
        is then served by $s$.

    Examples
    --------
    >>> from symq import example_model
    >>> joint_waiting_lst(example_model("w"), "3", "1")
    221/(3040*theta + 3952)

    Running time: O(2^M (M + J)) field operations.
    """
    sets = _sets(model)
    i = sets.class_index(job_class)
    need, lam = sets.need[i], sets.lam[i]
    s = sets.index[server]
    bit = 1 << s
    zero = sets.lift(sets.zero)
    if not need & bit:
        return zero
    d = sets.order_weight
    phase1 = [sets.zero] * (sets.full + 1)  # free of theta: scalars
    phase2 = [zero] * (sets.full + 1)
    for x in range(1, sets.full + 1):
        if not x & bit:
            continue
        total = d[x & ~bit] + sum((phase1[x & ~(1 << m)] for m in _bits(x) if m != s), sets.zero)
        phase1[x] = total / (sets.mu_of(x) - sets.required(x & ~bit))
    for x in range(1, sets.full + 1):
        if need & ~x:
            continue
        total = sum((phase2[x & ~(1 << m)] for m in _bits(x)), zero) + sets.lift(lam * phase1[x])
        phase2[x] = total / (sets.lift(sets.r(x)) + sets.theta)
    top = sum((sets.lift(sets.busy_weight(x)) * phase2[x] for x in range(sets.full + 1)
               if phase2[x]), zero)
    return sets.lift(sets.mu[s] / (lam * sets.noncollaborative_constant)) * top


def routing_probability(sets: SetFunctions, job_class: str, idle: int) -> dict[int, Any]:
    r"""$p_i(s\mid B)$ for the idle set $I$ (bitmask): the probability that $s$ is the first server
    of $S_i$ in the stationary idle order (ALIS; symq's canonical RAIS routing).

    Parameters
    ----------
    sets : SetFunctions
        The model's set functions.
    job_class : str
        The arriving class $i$.
    idle : int
        The idle set as a bitmask (meeting $S_i$).

    Returns
    -------
    dict
        ``{server bit: probability}``.

    Examples
    --------
    >>> from symq import example_model
    >>> from symq.engines.response_time.setfunctions import SetFunctions
    >>> routing_probability(SetFunctions(example_model("w")), "3", 0b11)
    {0: Fraction(7, 15), 1: Fraction(8, 15)}

    Running time: O(2^{|I|} |I|) field operations.
    """
    need = sets.need[job_class]
    weight = sets.idle_weight
    completion: dict[int, Any] = {idle: sets.one}
    sub = idle
    subsets = []
    while True:  # all subsets of idle, in decreasing order
        subsets.append(sub)
        if sub == 0:
            break
        sub = (sub - 1) & idle
    for a in subsets[1:]:
        completion[a] = sum((completion[a | (1 << t)] / sets.arrivals(a | (1 << t))
                             for t in _bits(idle & ~a)), sets.zero)
    out: dict[int, Any] = {}
    for s in _bits(idle & need):
        total = sets.zero
        for p in subsets:
            if p & need:
                continue
            q = p | (1 << s)
            total += weight[p] * completion[q] / sets.arrivals(q)
        out[s] = total / weight[idle]
    return out


def immediate_start(model: Model | SetFunctions, job_class: str) -> dict[str, Any]:
    r"""$P(W_i=0,\ \text{server}=s)$ for each $s\in S_i$ (field elements, free of $\theta$).

    Parameters
    ----------
    model : Model or SetFunctions
        Symbolic or numeric rates.
    job_class : str
        The tagged class $i$.

    Returns
    -------
    dict
        ``{server: probability}``; the sum is $P(W_i=0)$.

    Examples
    --------
    >>> from symq import example_model
    >>> immediate_start(example_model("w"), "3")
    {'1': Fraction(663, 1520), '2': Fraction(351, 760)}

    Running time: O(3^M) field operations (idle sets and their subsets).
    """
    sets = _sets(model)
    i = sets.class_index(job_class)
    need = sets.need[i]
    out = {sets.servers[s]: sets.zero for s in _bits(need)}
    for busy in range(sets.full + 1):
        if need & ~busy == 0:
            continue
        weight = sets.busy_set_probability(busy)
        for s, p in routing_probability(sets, i, sets.full & ~busy).items():
            out[sets.servers[s]] += weight * p
    return out


def response_lst(model: Model | SetFunctions, job_class: str):
    r"""$E e^{-\theta T_i}$: wait and server jointly, then $\mathrm{Exp}(\mu_s)$ at that server.

    Parameters
    ----------
    model : Model or SetFunctions
        The model; the law is the same under ALIS and canonical RAIS.
    job_class : str
        The class of the tagged job.

    Returns
    -------
    field element
        $\sum_s E[e^{-\theta W_i};s]\,\mu_s/(\mu_s+\theta)$.

    Examples
    --------
    >>> from symq import example_model
    >>> response_lst(example_model("n"), "2")
    (87*theta + 141)/(94*theta**2 + 235*theta + 141)

    Running time: one :func:`joint_waiting_lst` per server of $S_i$, plus
    :func:`immediate_start`.
    """
    sets = _sets(model)
    start = immediate_start(sets, job_class)
    total = sets.lift(sets.zero)
    for server, p in start.items():
        mu = sets.lift(sets.mu[sets.index[server]])
        total += (sets.lift(p) + joint_waiting_lst(sets, job_class, server)) * mu / (mu + sets.theta)
    return total


def server_law(model: Model | SetFunctions, job_class: str) -> dict[str, sympy.Expr]:
    r"""$P(\text{the tagged class-}i\text{ job is served by }s)$ for $s\in S_i$ (sympy values).

    Parameters
    ----------
    model : Model or SetFunctions
        ALIS or canonical RAIS rates (a :class:`SetFunctions` is reused as given).
    job_class : str
        The tagged class; only its own servers get a probability.

    Returns
    -------
    dict
        ``{server: probability}``, summing to 1 (sympy values, cancelled).

    Examples
    --------
    >>> from symq import example_model
    >>> server_law(example_model("w"), "3")
    {'1': 187/380, '2': 193/380}

    Running time: that of :func:`immediate_start` and of the waits at $\theta=0$.
    """
    sets = _sets(model)
    start = immediate_start(sets, job_class)
    out = {}
    for server, p in start.items():
        joint = joint_waiting_lst(sets, job_class, server)
        value = (sets.lift(p) + joint).as_expr().subs(sets.theta.as_expr(), 0)
        out[server] = sympy.factor(value)
    return out
