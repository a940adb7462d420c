r"""Nested compatibility graphs: the nesting tree and the nested closed forms.
A model is *nested* when its server sets $S_i$ form a laminar family (any two are disjoint or one
contains the other, [GR20]_ section 4), and the distinct sets then form a forest ordered by
inclusion, the *nesting tree*; for a nested collaborative system [GR20]_ Theorem 4.5 gives
$\pi(\emptyset) = \prod (1 - \rho_i)$ with $\rho_i = \lambda_i / \hat\mu_i$ and
$\hat\mu_i = \mu(S_i) - \lambda(R(S_i)) + \lambda_i$, the product over the *distinct* server sets.
Why over the distinct sets (the product over the classes as printed fails when two classes share
a server set): see docs/quantities.md.

Examples
--------
>>> from sympy import latex
>>> from symq import model
>>> from symq.engines.nested import is_nested, nested_empty_probability
>>> is_nested(model("w")), is_nested(model("ring:3"))
(True, False)
>>> print(latex(nested_empty_probability(model("n"))))
\frac{\left(- \lambda_{1} + \mu_{1}\right) \left(- \lambda_{1} - \lambda_{2} + \mu_{1} + \mu_{2}\right)}{\mu_{1} \left(- \lambda_{1} + \mu_{1} + \mu_{2}\right)}
"""

from __future__ import annotations

from symq._lazy import lazy_module
nx = lazy_module("networkx")  # imported on first use (start-up time)
import sympy

from symq.engines.distributions import ExponentialMixture

from symq.errors import ModelError
from symq.models.model import Model

__all__ = ["is_nested", "nesting_tree", "nested_empty_probability", "nested_loads",
           "nested_means", "collaborative_response_time", "nested_queueing_time_given_busy",
           "nested_noncollaborative_response_time"]


def _server_sets(model: Model) -> list[frozenset[str]]:
    return list(dict.fromkeys(frozenset(servers) for servers in model.compatibility.values()))


def is_nested(model: Model) -> bool:
    r"""True when any two server sets $S_i$, $S_k$ are disjoint or one contains the other ([GR20]_
    section 4).

    Sorted by decreasing size, the family is laminar iff each set meets only sets that contain
    it among the larger ones: checked with a per-server record of the smallest set seen so far.

    Parameters
    ----------
    model : Model
        Any compatibility graph (the rates are not read).

    Returns
    -------
    bool
        Whether the server sets form a laminar family.

    Examples
    --------
    >>> from symq import model
    >>> is_nested(model("w")), is_nested(model("ring:3"))
    (True, False)

    Running time: O(J log J + sum of |S_i|) for J classes.
    """
    sets = sorted(_server_sets(model), key=len, reverse=True)
    smallest: dict[str, frozenset[str]] = {}
    for s in sets:
        # every larger set meeting s must contain s: the smallest set seen at any server of s
        # must be the same set for all servers of s and contain s
        owners = {smallest.get(j) for j in s}
        if len(owners) > 1 or (None not in owners and not s <= next(iter(owners))):
            return False
        for j in s:
            smallest[j] = s
    return True


class _Forest:
    """The nesting forest as plain dicts (no networkx: start-up time), with the two DiGraph
    methods the closed forms below use, ``predecessors`` and ``successors``; iteration gives the
    sets by decreasing size (parents before children)."""

    def __init__(self, sets: list[frozenset[str]], members: dict[frozenset[str], list[str]],
                 parent: dict[frozenset[str], frozenset[str] | None]) -> None:
        self.sets, self.members, self.parent = sets, members, parent
        self.children: dict[frozenset[str], list[frozenset[str]]] = {s: [] for s in sets}
        for s in sets:
            if parent[s] is not None:
                self.children[parent[s]].append(s)

    def __iter__(self):
        return iter(self.sets)

    def predecessors(self, node: frozenset[str]) -> list[frozenset[str]]:
        return [] if self.parent[node] is None else [self.parent[node]]

    def successors(self, node: frozenset[str]) -> list[frozenset[str]]:
        return list(self.children[node])


def _forest(model: Model) -> _Forest:
    """The nesting forest of a nested model (see :func:`nesting_tree`) as a :class:`_Forest`."""
    if not is_nested(model):
        for i, a in model.compatibility.items():
            for k, b in model.compatibility.items():
                a_set, b_set = set(a), set(b)
                if a_set & b_set and not (a_set <= b_set or b_set <= a_set):
                    raise ModelError(f"model is not nested: classes {i!r} and {k!r} have overlapping "
                                     f"server sets {sorted(a_set)} and {sorted(b_set)}")
    sets = sorted(_server_sets(model), key=len, reverse=True)
    members: dict[frozenset[str], list[str]] = {s: [] for s in sets}
    for i, v in model.compatibility.items():
        members[frozenset(v)].append(i)
    smallest: dict[str, frozenset[str]] = {}
    parent: dict[frozenset[str], frozenset[str] | None] = {}
    for s in sets:
        parent[s] = smallest.get(next(iter(s)))
        for j in s:
            smallest[j] = s
    return _Forest(sets, members, parent)


def nesting_tree(model: Model) -> nx.DiGraph:
    r"""The nesting forest: one node per distinct server set (a frozenset), an edge from each set
    to the sets it immediately contains; node attribute ``classes`` lists the classes with that set.

    Parameters
    ----------
    model : Model
        A nested model; its forest is built here.

    Returns
    -------
    networkx.DiGraph
        Nodes are frozensets of servers, roots the maximal sets.

    Raises
    ------
    ModelError
        The model is not nested; the message names two overlapping classes.

    Examples
    --------
    >>> from symq import model
    >>> sorted((sorted(a), sorted(b)) for a, b in nesting_tree(model("w")).edges())
    [(['1', '2'], ['1']), (['1', '2'], ['2'])]

    Running time: O(J log J + sum of |S_i|) for J classes.
    """
    forest = _forest(model)
    tree = nx.DiGraph()
    for s in forest:
        tree.add_node(s, classes=tuple(forest.members[s]))
        if forest.parent[s] is not None:
            tree.add_edge(forest.parent[s], s)
    return tree


def nested_loads(model: Model) -> dict[frozenset[str], tuple[sympy.Expr, sympy.Expr]]:
    r"""For each node $S$ of the nesting tree: $(\lambda_S, \hat\mu_S)$ with
    $\hat\mu_S = \mu(S) - \lambda(R(S)) + \lambda_S$ ([GR20]_, Theorem 4.5).

    Parameters
    ----------
    model : Model
        A nested model; each tree node $S$ gets its pair.

    Returns
    -------
    dict
        ``{server set: (lambda_S, hat mu_S)}``.

    Raises
    ------
    ModelError
        Two server sets overlap without one containing the other (the message names
        the two classes).

    Examples
    --------
    >>> from symq import model
    >>> nested_loads(model("n"))[frozenset({"1", "2"})]
    (lambda_2, -lambda_1 + mu_1 + mu_2)

    Running time: O(J M) for J classes and M servers.
    """
    tree = _forest(model)
    lam = model.arrival_rates
    mu = model.service_rates
    own = {s: sympy.Add(*(lam[c] for c in tree.members[s])) for s in tree}
    required: dict[frozenset[str], sympy.Expr] = {}
    for s in reversed(tree.sets):  # children first (a child is strictly smaller)
        required[s] = own[s] + sympy.Add(*(required[child] for child in tree.successors(s)))
    return {s: (own[s], sympy.Add(*(mu[j] for j in s)) - required[s] + own[s]) for s in tree}


def nested_empty_probability(model: Model) -> sympy.Expr:
    r"""$\pi(\emptyset) = \prod_S (1-\rho_S)$, $\rho_S=\lambda_S/\hat\mu_S$, for a nested
    collaborative system ([GR20]_, Thm 4.5).

    Parameters
    ----------
    model : Model
        A nested model (symbolic rates give a product of factors).

    Returns
    -------
    sympy.Expr
        $\prod_S(1-\rho_S)$ over the tree nodes.

    Raises
    ------
    ModelError
        The server sets are not a laminar family.

    Examples
    --------
    >>> from symq import example_model
    >>> nested_empty_probability(example_model("w"))
    1547/2480

    Running time: O(J M) for J classes and M servers.
    """
    if model.is_empty:
        return sympy.Integer(1)
    factors = [(mu_hat - lam_s) / mu_hat for lam_s, mu_hat in nested_loads(model).values()]
    return sympy.Mul(*factors)


def _ancestors(tree: "_Forest | nx.DiGraph", node: frozenset[str]) -> list[frozenset[str]]:
    out = []
    while True:
        parents = list(tree.predecessors(node))
        if not parents:
            return out
        node = parents[0]
        out.append(node)


def _node_of(model: Model, job_class: str) -> frozenset[str]:
    if job_class not in model.compatibility:
        raise ModelError(f"unknown class {job_class!r}; classes: {', '.join(model.classes)}")
    return frozenset(model.compatibility[job_class])


def collaborative_response_time(model: Model, job_class: str) -> ExponentialMixture:
    r"""Response-time law of ``job_class`` in a nested collaborative system ([GR20]_ Thm 4.5):

    $T_i\sim T^{M/M/1}(\lambda_i,\hat\mu_i)+\sum_{S_j\supsetneq S_i}T^{M/M/1}_Q(\lambda_j,\hat\mu_j)$,
    independent terms, with $T^{M/M/1}(\lambda,\hat\mu)\sim\mathrm{Exp}(\hat\mu-\lambda)$ and
    $T_Q^{M/M/1}$ that exponential with probability $\rho=\lambda/\hat\mu$ (Cor 4.4). Classes
    with the same server set are one node of the tree (their rates add).

    Parameters
    ----------
    model : Model
        A nested model under the collaborative discipline.
    job_class : str
        A class of the model.

    Returns
    -------
    ExponentialMixture
        Exact law, with ``mean()``, ``lst()``, ``survival()`` and ``latex()``.

    Raises
    ------
    ModelError
        The model is not nested (two classes overlap), or ``job_class`` is not one of its
        classes.

    Examples
    --------
    >>> from symq import model
    >>> print(collaborative_response_time(model("n"), "2").latex("T_2"))
    T_2 \sim \mathrm{Exp}\left(- \lambda_{1} - \lambda_{2} + \mu_{1} + \mu_{2}\right)

    Running time: O(J M) to build the tree, then O(depth) terms.
    """
    tree = _forest(model)
    loads = nested_loads(model)
    node = _node_of(model, job_class)
    lam, mu_hat = loads[node]
    law = ExponentialMixture.exponential(mu_hat - lam)
    for parent in _ancestors(tree, node):
        lam_j, mu_j = loads[parent]
        law = law + ExponentialMixture.gated(lam_j / mu_j, mu_j - lam_j)
    return law


def nested_queueing_time_given_busy(model: Model, job_class: str,
                                    busy: frozenset[str] | set[str]) -> ExponentialMixture:
    r"""Queueing time of ``job_class`` in a nested noncollaborative system given the (unordered)
    set of busy servers $B$ seen on arrival ([GR20]_ Thm 4.6, Cor 4.7).

    If $S_i\not\subseteq B$ the job starts at once (0). Else, by Thm 3.9 the queue ahead is the
    stationary collaborative system $\vdash(\mathcal M\setminus B)$, so
    $T_{iQ}\mid B\sim T^{M/M/1}(\lambda_i,\hat\mu_i)+\sum_{S_i\subsetneq S_j\subseteq B}
    T_Q^{M/M/1}(\lambda_j,\hat\mu_j)$. (Given the *ordered* busy servers the analogous law of
    Thm 5.4 is false; see docs/theory-subset-dp.md §2.4.)

    Parameters
    ----------
    model : Model
        A nested model under FCFS-ALIS or RAIS.
    job_class : str
        A class of the model.
    busy : set of str
        The busy servers $B$.

    Returns
    -------
    ExponentialMixture
        Zero when a server of $S_i$ is idle.

    Raises
    ------
    ModelError
        The model is not nested, or the class is unknown.

    Examples
    --------
    >>> from symq import model
    >>> nested_queueing_time_given_busy(model("n"), "1", {"1"}).mean()
    -1/(lambda_1 - mu_1)

    Running time: O(J M) for the reduced tree.
    """
    busy = frozenset(busy)
    node = _node_of(model, job_class)
    if not node <= busy:
        return ExponentialMixture.zero()
    tree = _forest(model)
    loads = nested_loads(model)
    lam, mu_hat = loads[node]
    law = ExponentialMixture.exponential(mu_hat - lam)
    for parent in _ancestors(tree, node):
        if not parent <= busy:
            break
        lam_j, mu_j = loads[parent]
        law = law + ExponentialMixture.gated(lam_j / mu_j, mu_j - lam_j)
    return law


def nested_noncollaborative_response_time(model: Model, job_class: str,
                                          busy_probabilities: dict) -> ExponentialMixture:
    r"""Response time of ``job_class`` in a nested noncollaborative system whose servers in
    $S_i$ share one rate $\mu$ ([GR20]_ Cor 4.8, mixed over the busy set by PASTA):
    $T_i\sim\mathrm{Exp}(\mu)+\sum_BP(B)\,(T_{iQ}\mid B)$.

    Parameters
    ----------
    model : Model
        A nested model under FCFS-ALIS or RAIS, as for the queueing time.
    job_class : str
        A class whose servers share one rate.
    busy_probabilities : dict
        ``{frozenset of busy servers: stationary probability}``.

    Returns
    -------
    ExponentialMixture
        Service plus the busy-set mixture of queueing times.

    Raises
    ------
    ModelError
        Servers of the class with different rates (the service time then depends on the
        server, and the wait and the server are dependent), a model that is not nested.

    Examples
    --------
    >>> from symq import example_model
    >>> busy = {frozenset(): "1/2", frozenset({"1"}): "1/4", frozenset({"2"}): "1/8",
    ...         frozenset({"1", "2"}): "1/8"}
    >>> nested_noncollaborative_response_time(example_model("n"), "2", busy).mean()
    13/12

    Running time: O(2^M J M) for the $2^M$ busy sets.
    """
    node = _node_of(model, job_class)
    rates = {model.service_rates[s] for s in node}
    if len(rates) != 1:
        raise ModelError(f"class {job_class!r}: its servers {sorted(node)} have different rates; "
                         "Cor 4.8 needs one rate per class")
    wait = ExponentialMixture.mixture([(p, nested_queueing_time_given_busy(model, job_class, b))
                                       for b, p in busy_probabilities.items()])
    return wait + ExponentialMixture.exponential(rates.pop())


def nested_means(model: Model) -> dict[str, object]:
    r"""Closed forms of a nested collaborative system from its tree (Thm 4.5):
    ``G`` $=1/\pi(\emptyset)$, ``empty`` $=\prod_S(1-\rho_S)$, ``idle`` $P(k\text{ idle})=
    \prod_{S\ni k}(1-\rho_S)$ (the reduced system $\vdash k$ keeps the other nodes unchanged),
    and ``L`` $L_i=\lambda_iE T_i$ with $E T_i=\frac1{r(S_i)}+\sum_{S_j\supsetneq S_i}
    \frac{\rho_j}{\hat\mu_j-\lambda_j}$ (Little's law).

    Parameters
    ----------
    model : Model
        A nested model at any rates.

    Returns
    -------
    dict
        ``{"G", "empty", "idle": {server: value}, "L": {class: value}}``.

    Raises
    ------
    ModelError
        The model is not nested (:func:`is_nested` is false).

    Examples
    --------
    >>> from symq import example_model
    >>> nested_means(example_model("n"))["L"]
    {'1': 5/14, '2': 1/6}

    Running time: O(J M + M depth) for J classes, M servers and a tree of that depth.
    """
    tree = _forest(model)
    loads = nested_loads(model)
    one_minus = {s: (mu_hat - lam) / mu_hat for s, (lam, mu_hat) in loads.items()}
    empty = sympy.Mul(*one_minus.values())
    idle = {k: sympy.Mul(*(v for s, v in one_minus.items() if k in s)) for k in model.servers}
    wait = {}
    for s, (lam, mu_hat) in loads.items():
        wait[s] = (lam / mu_hat) / (mu_hat - lam)
    means = {}
    for i in model.classes:
        node = frozenset(model.compatibility[i])
        lam, mu_hat = loads[node]
        t = 1 / (mu_hat - lam) + sympy.Add(*(wait[p] for p in _ancestors(tree, node)))
        means[i] = model.arrival_rates[i] * t
    return {"G": 1 / empty, "empty": empty, "idle": idle, "L": means}
