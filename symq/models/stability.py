r"""Stability of FCFS compatibility models.
The collaborative and noncollaborative FCFS models are stable if and only if
$\lambda(A) < \mu(S(A))$ for every non-empty set of classes $A$ ([GR20]_, section 2); symq decides
this exactly, without enumerating the $2^J$ class sets, by one minimum cut per class on exact
rationals scaled to integers (load equal to capacity is unstable). The cut network and why it
gives the minimum slack: see docs/quantities.md.

Examples
--------
>>> from symq import model
>>> from symq.models.stability import stability_conditions
>>> for classes, servers in stability_conditions(model("w")):
...     print(classes, servers)
('1',) ('1',)
('2',) ('2',)
('1', '2', '3') ('1', '2')
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Iterable
from fractions import Fraction

from symq._lazy import lazy_module
nx = lazy_module("networkx")  # imported on first use (start-up time)
import sympy

from symq.errors import ModelError, UnstableModelError
from symq.models.arguments import check_model
from symq.arithmetic.exact import to_fraction
from symq.models.model import Model
from symq.display import Displayed, Math, set_display, text_latex

__all__ = ["StabilityReport", "StabilityConditions", "stability_report", "check_stability", "is_stable",
           "stability_conditions", "brute_force_stability_report", "check_union_conditions",
           "never_stable", "never_stable_message"]


@dataclass(frozen=True)
class StabilityReport(Displayed):
    r"""The tightest class set: the minimum of $\mu(S(A)) - \lambda(A)$ over non-empty $A$.

    In a notebook it shows as a table: the verdict, the tightest sets and the relation
    $\lambda(A) < \mu(S(A))$ at the values (:meth:`relation`).
    """

    margin: sympy.Rational
    classes: tuple[str, ...]
    servers: tuple[str, ...]
    load: sympy.Rational
    capacity: sympy.Rational

    @property
    def stable(self) -> bool:
        return bool(self.margin > 0)

    def relation(self) -> sympy.Rel:
        r"""$\lambda(A) < \mu(S(A))$ for the tightest set $A$, as an unevaluated sympy
        ``StrictLessThan`` (``bool(report.relation().doit())`` is :attr:`stable`)."""
        return sympy.StrictLessThan(self.load, self.capacity, evaluate=False)

    def _display(self) -> tuple[str, list]:
        rows = [("verdict", "stable" if self.stable else "unstable"),
                ("tightest class set", Math("A = " + set_display(self.classes))),
                ("its servers", Math("S(A) = " + set_display(self.servers))),
                ("load", Math("\\lambda(A) = " + sympy.latex(self.load))),
                ("capacity", Math("\\mu(S(A)) = " + sympy.latex(self.capacity))),
                ("margin", Math("\\mu(S(A)) - \\lambda(A) = " + sympy.latex(self.margin)))]
        return "stability", [(None, rows)]

    def message(self) -> str:
        classes = "{" + ", ".join(repr(i) for i in self.classes) + "}"
        servers = "{" + ", ".join(repr(j) for j in self.servers) + "}"
        return (f"unstable: classes {classes} bring {self.load} but their servers {servers} "
                f"serve only {self.capacity}; lower those arrival rates or raise those service rates")


def _fraction(value: sympy.Expr, what: str) -> Fraction:
    return to_fraction(value, what, "; stability is decided for exact numeric rates only: "
                       "set every symbol with --set NAME=VALUE")


def stability_report(model: Model) -> StabilityReport:
    """The minimum stability margin and a class set that attains it, by one max-flow per class.

    Parameters
    ----------
    model : Model
        Exact numeric rates.

    Returns
    -------
    StabilityReport
        ``margin`` $=\\min_A(\\mu(S(A))-\\lambda(A))$, with its ``classes``, ``servers``, ``load``
        and ``capacity``.

    Raises
    ------
    ModelError
        A rate that is not an exact number (substitute values first).

    Examples
    --------
    >>> from symq import example_model
    >>> stability_report(example_model("w")).margin
    7/10

    Running time: J max-flows on J + M + 2 nodes.
    """
    check_model(model, "stability_report(model)")
    lam = {i: _fraction(r, f"arrival rate of class {i!r}") for i, r in model.arrival_rates.items()}
    mu = {j: _fraction(r, f"service rate of server {j!r}") for j, r in model.service_rates.items()}
    scale = math.lcm(*(x.denominator for x in [*lam.values(), *mu.values()]))
    total = sum(lam.values())
    # classes with the same server set are one class for the minimum: adding a class to A
    # without new servers only lowers mu(S(A)) - lambda(A) (3,000 classes on one server: one
    # flow, not 3,000)
    groups: dict[tuple[str, ...], list[str]] = {}
    for i, servers in model.compatibility.items():
        groups.setdefault(servers, []).append(i)
    glam = {k: sum(lam[i] for i in members) for k, members in enumerate(groups.values())}
    gsets = dict(enumerate(groups))
    servers_count = len(model.servers)
    if len(groups) > 64 and servers_count <= 22 and \
            (1 << servers_count) * servers_count < 4 * len(groups) ** 2:
        margin, chosen_groups = _tightest_by_server_sets(model, gsets, glam, mu, scale)
    else:
        margin, chosen_groups = _tightest_by_flows(model, gsets, glam, mu, scale, total)
    chosen = frozenset(i for k in chosen_groups for i in groups[gsets[k]])
    classes = tuple(i for i in model.classes if i in chosen)
    servers = model.servers_of(classes)
    load = sympy.Rational(sum(lam[i] for i in classes))
    capacity = sympy.Rational(sum(mu[j] for j in servers))
    return StabilityReport(sympy.Rational(margin), classes, servers, load, capacity)


def _tightest_by_flows(model: Model, gsets, glam, mu, scale, total):
    """One max-flow per class group forced into A (infinite capacity); the minimum cut gives
    the tightest A containing it."""
    best: tuple[Fraction, frozenset[int]] | None = None
    for forced in gsets:
        network = nx.DiGraph()
        for k, servers in gsets.items():
            if k != forced:
                network.add_edge("source", ("class", k), capacity=int(glam[k] * scale))
            else:
                network.add_edge("source", ("class", k))  # no capacity: infinite
            for j in servers:
                network.add_edge(("class", k), ("server", j))
        for j in model.servers:
            network.add_edge(("server", j), "sink", capacity=int(mu[j] * scale))
        cut, (source_side, _) = nx.minimum_cut(network, "source", "sink")
        margin = Fraction(cut, scale) - total
        classes = frozenset(node[1] for node in source_side
                            if isinstance(node, tuple) and node[0] == "class")
        if best is None or margin < best[0]:
            best = (margin, classes)
    assert best is not None, "a model has at least one class"
    return best


def _tightest_by_server_sets(model: Model, gsets, glam, mu, scale):
    r"""Many class groups on few servers: the minimum over A equals the minimum over server
    sets T of $\mu(T) - \lambda(\{i: S_i \subseteq T\})$ (A within T only lowers it, and
    T = S(A) gives A's value or less), the loads of all T by one subset-sum pass,
    $O(2^M M)$ integer additions."""
    index = {j: b for b, j in enumerate(model.servers)}
    size = 1 << len(model.servers)
    load = [0] * size
    count = [0] * size
    for k, servers in gsets.items():
        mask = sum(1 << index[j] for j in servers)
        load[mask] += int(glam[k] * scale)
        count[mask] += 1
    for b in range(len(model.servers)):
        bit = 1 << b
        for mask in range(size):
            if mask & bit:
                load[mask] += load[mask ^ bit]
                count[mask] += count[mask ^ bit]
    rate = [0] * size
    for b, j in enumerate(model.servers):
        rate[1 << b] = int(mu[j] * scale)
    best_value, best_mask = None, 0
    for mask in range(1, size):
        low = mask & -mask
        rate[mask] = rate[low] + rate[mask ^ low] if mask != low else rate[mask]
        if count[mask]:
            value = rate[mask] - load[mask]
            if best_value is None or value < best_value:
                best_value, best_mask = value, mask
    chosen = frozenset(k for k, servers in gsets.items()
                       if sum(1 << index[j] for j in servers) & ~best_mask == 0)
    return Fraction(best_value, scale), chosen


def brute_force_stability_report(model: Model) -> StabilityReport:
    """The same minimum by enumerating every non-empty class set (for tests and tiny models).

    Parameters
    ----------
    model : Model
        Exact numeric rates, a handful of classes.

    Returns
    -------
    StabilityReport
        Equal in margin to :func:`stability_report`.

    Examples
    --------
    >>> from symq import example_model
    >>> brute_force_stability_report(example_model("w")).classes
    ('2',)

    Running time: O(2^J (J + M)).
    """
    best = None
    for size in range(1, len(model.classes) + 1):
        for classes in itertools.combinations(model.classes, size):
            servers = model.servers_of(classes)
            load, capacity = model.arrival_rate(classes), model.service_rate(servers)
            margin = capacity - load
            if best is None or margin < best.margin:
                best = StabilityReport(margin, classes, servers, load, capacity)
    assert best is not None
    return best


def _violating_classes(model: Model) -> tuple[str, ...] | None:
    r"""A class set $A$ with $\lambda(A) \ge \mu(S(A))$, or None when the model is stable.

    One max-flow decides it: if the flow does not carry every arrival, the source side of a
    minimum cut is a set with $\lambda(A) > \mu(S(A))$. Otherwise every class and server that
    cannot reach the sink in the residual network forms a set with $\lambda(A) = \mu(S(A))$
    exactly (its servers are saturated and fed by it alone), and if every class reaches the sink
    no set is tight: forcing any class to the source side lets more flow through.
    """
    lam = {i: _fraction(r, f"arrival rate of class {i!r}") for i, r in model.arrival_rates.items()}
    mu = {j: _fraction(r, f"service rate of server {j!r}") for j, r in model.service_rates.items()}
    scale = math.lcm(*(x.denominator for x in [*lam.values(), *mu.values()]))
    network = nx.DiGraph()
    for i, servers in model.compatibility.items():
        network.add_edge("source", ("class", i), capacity=int(lam[i] * scale))
        for j in servers:
            network.add_edge(("class", i), ("server", j))
    for j in model.servers:
        network.add_edge(("server", j), "sink", capacity=int(mu[j] * scale))
    residual = nx.algorithms.flow.preflow_push(network, "source", "sink")
    if residual.graph["flow_value"] < sum(lam.values()) * scale:
        _, (source_side, _) = nx.minimum_cut(network, "source", "sink")
        chosen = {node[1] for node in source_side if isinstance(node, tuple) and node[0] == "class"}
        return tuple(i for i in model.classes if i in chosen)
    open_arcs = nx.DiGraph((u, v) for u, v, d in residual.edges(data=True)
                           if d["capacity"] - d["flow"] > 0)
    open_arcs.add_node("sink")
    reach = nx.ancestors(open_arcs, "sink")
    tight = tuple(i for i in model.classes if ("class", i) not in reach)
    return tight or None


def is_stable(model: Model) -> bool:
    """True when $\\lambda(A) < \\mu(S(A))$ for every non-empty class set $A$ (numeric rates).

    Decided exactly by one max-flow (see :func:`_violating_classes`); a tight set (load equal to
    capacity) is unstable.

    Parameters
    ----------
    model : Model
        Numeric (exact) rates.

    Returns
    -------
    bool

    Examples
    --------
    >>> from symq import example_model
    >>> is_stable(example_model("w")), is_stable(example_model("w", {"lambda_3": 2}))
    (True, False)

    Running time: one max-flow on J + M + 2 nodes, plus a residual search.
    """
    check_model(model, "is_stable(model)")
    return model.is_empty or _violating_classes(model) is None


def check_stability(model: Model) -> None:
    """Raise :class:`UnstableModelError` naming a violating class set; for symbolic rates, only
    when no values of the symbols can make the model stable (:func:`never_stable`).

    Parameters
    ----------
    model : Model
        Numeric rates are checked exactly; a model with symbolic rates passes unless one of its
        conditions can never hold (its conditions are :func:`stability_conditions`).

    Raises
    ------
    UnstableModelError
        Some class set brings at least as much work as its servers can do (for symbolic rates:
        whatever positive values the symbols take).

    Examples
    --------
    >>> from symq import example_model, model
    >>> check_stability(example_model("n"))
    >>> check_stability(model("n"))

    Running time: that of :func:`is_stable`; for symbolic rates that of :func:`never_stable`.
    """
    check_model(model, "check_stability(model)")
    if model.is_empty:
        return
    if not model.is_numeric:
        found = never_stable(model)
        if found is not None:
            raise UnstableModelError(never_stable_message(model, found))
        return
    classes = _violating_classes(model)
    if classes is not None:
        servers = model.servers_of(classes)
        load, capacity = model.arrival_rate(classes), model.service_rate(servers)
        raise UnstableModelError(StabilityReport(capacity - load, classes, servers, load,
                                                 capacity).message())


def check_union_conditions(model: Model, unions: Iterable[int]) -> None:
    r"""Raise :class:`UnstableModelError` unless $\lambda(R(X))<\mu(X)$ for the given server sets.

    The second stability engine, for the subset DPs, which enumerate these sets anyway. Stability
    ($\lambda(A)<\mu(S(A))$ for every non-empty class set $A$) holds iff $\lambda(R(X))<\mu(X)$
    for every non-empty union $X$ of class server sets, as $A\subseteq R(S(A))$ and $S(R(X))=X$
    ([GR20]_ section 2); for a nested model the tree nodes suffice, and for ``redundancy:K:D``
    one set of each size. The caller chooses the sets; the verdict on them is exact.

    Parameters
    ----------
    model : Model
        Numeric rational rates (symbolic models are accepted and not checked).
    unions : iterable of int
        Server sets as bitmasks over ``model.servers`` (bit $j$ is ``model.servers[j]``).

    Raises
    ------
    UnstableModelError
        Names the classes $R(X)$ and the servers $X$ of a violated inequality (the same message
        as :func:`check_stability`).

    Examples
    --------
    >>> from symq import model
    >>> n = model("n").substitute({"lambda_1": "1", "lambda_2": "1", "mu_1": "1", "mu_2": "1"})
    >>> check_union_conditions(n, [0b01, 0b11])
    Traceback (most recent call last):
    ...
    symq.errors.UnstableModelError: unstable: classes {'1'} bring 1 but their servers {'1'} serve only 1; lower those arrival rates or raise those service rates

    Running time: O(|unions| (M + J)) integer operations.
    """
    if model.is_empty or not model.is_numeric:
        return
    index = {s: j for j, s in enumerate(model.servers)}
    masks = {c: sum(1 << index[s] for s in v) for c, v in model.compatibility.items()}
    lam = {i: _fraction(r, f"arrival rate of class {i!r}") for i, r in model.arrival_rates.items()}
    mu = {j: _fraction(r, f"service rate of server {j!r}") for j, r in model.service_rates.items()}
    scale = math.lcm(*(x.denominator for x in [*lam.values(), *mu.values()]))
    lam_int = {c: int(lam[c] * scale) for c in lam}
    mu_int = [int(mu[s] * scale) for s in model.servers]
    unions = _violations(list(unions), mu_int, [(masks[c], lam_int[c]) for c in model.classes])
    for x in unions:
        if not x:
            continue
        serving = sum(mu_int[j] for j in range(len(mu_int)) if x >> j & 1)
        required = [c for c in model.classes if masks[c] & ~x == 0]
        arriving = sum(lam_int[c] for c in required)
        if arriving >= serving:
            servers = tuple(s for j, s in enumerate(model.servers) if x >> j & 1)
            load = sympy.Rational(arriving, scale)
            capacity = sympy.Rational(serving, scale)
            raise UnstableModelError(StabilityReport(capacity - load, tuple(required), servers,
                                                     load, capacity).message())


def _violations(unions: list[int], mu_int: list[int], classes: list[tuple[int, int]]
                ) -> list[int]:
    """The sets among ``unions`` that may violate stability (all of them without numpy): numpy
    compares the integer sums in C when they fit in 62 bits; the caller decides exactly. Short
    lists are returned as they are: importing numpy costs more than checking them (start-up)."""
    if len(unions) < 4096:
        return unions
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a core dependency
        return unions
    if len(mu_int) > 62 or max(sum(mu_int), sum(r for _, r in classes)) >= 2 ** 62:
        return unions
    xs = np.array(unions, dtype=np.int64)
    serving = np.zeros(len(unions), dtype=np.int64)
    for j, rate in enumerate(mu_int):
        serving += ((xs >> j) & 1) * rate
    arriving = np.zeros(len(unions), dtype=np.int64)
    for m, rate in classes:
        arriving += ((xs & m) == m) * rate
    return [int(x) for x in xs[(arriving >= serving) & (xs != 0)]]


def _connected(model: Model, classes: tuple[str, ...]) -> bool:
    graph = model.graph().subgraph([("class", i) for i in classes] +
                                   [("server", j) for j in model.servers_of(classes)])
    return nx.is_connected(graph)


class StabilityConditions(list):
    r"""The list of :func:`stability_conditions`: ``(classes, servers)`` pairs, one per condition
    $\lambda(A) < \mu(S(A))$, that also gives the conditions as sympy relations and shows them
    in a notebook as an aligned LaTeX list (a ``list``: equality, iteration and ``repr`` as
    before).

    Examples
    --------
    >>> from symq import model
    >>> conditions = stability_conditions(model("n"))
    >>> conditions.relations()
    [lambda_1 < mu_1, lambda_1 + lambda_2 < mu_1 + mu_2]
    >>> print(conditions._repr_latex_())
    $\displaystyle \begin{aligned} \lambda_{1} &< \mu_{1} && A = \{1\} \\ \lambda_{1} + \lambda_{2} &< \mu_{1} + \mu_{2} && A = \{1, 2\} \end{aligned}$
    """

    def __init__(self, conditions: Iterable = (), model: Model | None = None) -> None:
        super().__init__(conditions)
        self.model = model

    def relations(self) -> list[sympy.Rel]:
        r"""One unevaluated sympy ``StrictLessThan`` $\lambda(A) < \mu(S(A))$ per condition,
        in order (identical relations of different sets are kept: one per set)."""
        if self.model is None:
            raise ModelError("these stability conditions do not know their model; "
                             "get them from stability_conditions(model)")
        return [sympy.StrictLessThan(self.model.arrival_rate(a), self.model.service_rate(b),
                                     evaluate=False) for a, b in self]

    def _repr_latex_(self) -> str:
        if self.model is None or not self:
            return f"${text_latex('no conditions' if not self else list(self))}$"
        rows = [f"{sympy.latex(r.lhs)} &< {sympy.latex(r.rhs)} && A = {set_display(a)}"
                for r, (a, _) in zip(self.relations(), self)]
        return "$\\displaystyle \\begin{aligned} " + " \\\\ ".join(rows) + " \\end{aligned}$"


def stability_conditions(model: Model, max_classes: int = 12) -> StabilityConditions:
    r"""The distinct conditions $\lambda(A) < \mu(S(A))$, redundant ones removed.

    A set $A$ is kept only if it is *closed*, $A = R(S(A))$ (adding the classes that only $S(A)$
    serves makes the condition stronger with the same right-hand side), and *connected* in the
    compatibility graph (otherwise the condition is the sum of those of its components, whose
    server sets are disjoint). Enumerates class sets, so it is for small models only.

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    max_classes : int
        Refuse larger models (the enumeration has $2^J$ sets).

    Returns
    -------
    StabilityConditions
        A list of ``(classes, servers)`` pairs; ``.relations()`` gives them as sympy relations.

    Raises
    ------
    ModelError
        More than ``max_classes`` classes.

    Examples
    --------
    >>> from symq import model
    >>> stability_conditions(model("n")).relations()
    [lambda_1 < mu_1, lambda_1 + lambda_2 < mu_1 + mu_2]

    Running time: O(2^J (J + M)) for J classes.
    """
    check_model(model, "stability_conditions(model)")
    if len(model.classes) > max_classes:
        raise ModelError(f"listing symbolic stability conditions enumerates 2^{len(model.classes)} "
                         f"class sets; this is limited to {max_classes} classes. Set numeric rates "
                         "to decide stability by max-flow instead")
    conditions = []
    for size in range(1, len(model.classes) + 1):
        for classes in itertools.combinations(model.classes, size):
            servers = model.servers_of(classes)
            if set(model.only_served_by(servers)) != set(classes):
                continue
            if _connected(model, classes):
                conditions.append((classes, servers))
    return StabilityConditions(conditions, model)


# ------------------------------------------------------------------ never stable (symbolic rates)
#: at most this many unions of class server sets are checked by :func:`never_stable`; past it,
#: the closures of the single classes and the whole model
NEVER_STABLE_UNIONS = 4096


def _linear(expr: sympy.Expr) -> dict | None:
    """``expr`` as ``{symbol or 1: Fraction}`` when it is a linear form with rational
    coefficients (the usual rates: ``lambda_1``, ``x/2``, ``3*mu + 1``), else None."""
    if expr.is_Rational:
        return {1: Fraction(int(expr.p), int(expr.q))}
    form: dict = {}
    for term, coefficient in expr.as_coefficients_dict().items():
        if not coefficient.is_Rational or not (term == 1 or term.is_Symbol):
            return None
        form[term] = form.get(term, 0) + Fraction(int(coefficient.p), int(coefficient.q))
    return form


def _never_positive(capacity: sympy.Expr, load: sympy.Expr, forms: tuple | None) -> bool:
    r"""True when $\mu - \lambda > 0$ holds for no positive values of the symbols (decided
    exactly for linear forms: every coefficient and the constant of $\lambda - \mu$ are
    $\ge 0$; otherwise by sympy's sign rules on the difference, which may not decide)."""
    if forms is not None:
        cap, lam = forms
        keys = set(cap) | set(lam)
        return all(lam.get(k, 0) - cap.get(k, 0) >= 0 for k in keys)
    gap = load - capacity
    for candidate in (gap, sympy.expand(gap), sympy.factor(gap)):
        if candidate.is_nonnegative:
            return True
    return False


def _candidate_sets(masks: list[int]) -> list[tuple[int, list[int]]]:
    """``(X, R(X))`` for the unions ``X`` of the class server sets ``masks`` (bitmasks), ``R(X)``
    the classes served only by ``X``; past :data:`NEVER_STABLE_UNIONS` unions (or about 2*10^5
    steps), each class with its own server set and all classes with all servers."""
    found, steps = {0}, 0
    for m in masks:
        found |= {x | m for x in found}
        steps += len(found)
        if len(found) > NEVER_STABLE_UNIONS or steps + len(found) * len(masks) > 2 * 10 ** 5:
            everything = 0
            for mask in masks:
                everything |= mask
            return ([(m, [k]) for k, m in enumerate(masks)]
                    + [(everything, list(range(len(masks))))])
    found.discard(0)
    return [(x, [k for k, m in enumerate(masks) if m & ~x == 0])
            for x in sorted(found, key=lambda x: (bin(x).count("1"), x))]


def never_stable(model: Model) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    r"""A stability condition $\lambda(A) < \mu(S(A))$ that no positive values of the symbols can
    satisfy, as ``(classes, servers)``, or None when none was found: ``x < x/2``,
    ``lambda_1 < lambda_1``, ``a + b < a``; such a model has no stationary law whatever its rates,
    so every quantity refuses it.

    The sets checked are the unions $X$ of class server sets with $A = R(X)$ (every condition is
    implied by one of them), at most :data:`NEVER_STABLE_UNIONS` of them, else each class alone
    and the whole model. A condition whose rates are linear forms with rational
    coefficients is decided exactly (it never holds iff every coefficient and the constant of
    $\lambda(A) - \mu(S(A))$ are $\ge 0$); other rates are decided by sympy's sign rules, which
    may leave a never-stable condition undetected (never a stable one reported).

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates (numeric ones: see :func:`check_stability`).

    Returns
    -------
    tuple or None
        ``(classes, servers)`` of a condition that never holds.

    Examples
    --------
    >>> from symq import Model, model
    >>> m = Model(compatibility={"1": ["1"]}, arrival_rates={"1": "x"}, service_rates={"1": "x/2"})
    >>> never_stable(m)
    (('1',), ('1',))
    >>> never_stable(model("n")) is None
    True

    Running time: O(U (J + M)) for U unions (at most :data:`NEVER_STABLE_UNIONS`, else
    U = J + 1), plus sympy's sign rules on each condition whose rates are not linear forms.
    """
    if model.is_empty:
        return None
    all_classes, all_servers = model.classes, model.servers
    index = {s: j for j, s in enumerate(all_servers)}
    masks = [sum(1 << index[s] for s in model.compatibility[c]) for c in all_classes]
    seen: dict = {}  # one linear form per distinct rate (redundancy:K:D: one for all classes)
    lam_forms = [seen[r] if r in seen else seen.setdefault(r, _linear(r))
                 for r in (model.arrival_rates[c] for c in all_classes)]
    mu_forms = [seen[r] if r in seen else seen.setdefault(r, _linear(r))
                for r in (model.service_rates[s] for s in all_servers)]
    linear = all(f is not None for f in lam_forms + mu_forms)
    if linear:  # whole numbers over one common denominator: integer sums below
        scale = math.lcm(*(v.denominator for f in {id(f): f for f in lam_forms + mu_forms}.values()
                           for v in f.values()))
        scaled: dict = {}
        lam_forms = [scaled.setdefault(id(f), {k: int(v * scale) for k, v in f.items()})
                     for f in lam_forms]
        mu_forms = [scaled.setdefault(id(f), {k: int(v * scale) for k, v in f.items()})
                    for f in mu_forms]
    for x, required in _candidate_sets(masks):
        servers = [j for j in range(len(all_servers)) if x >> j & 1]
        forms = None
        if linear:
            load: dict = {}
            for k in required:
                for key, value in lam_forms[k].items():
                    load[key] = load.get(key, 0) + value
            capacity: dict = {}
            for j in servers:
                for key, value in mu_forms[j].items():
                    capacity[key] = capacity.get(key, 0) + value
            forms = (capacity, load)
        classes = tuple(all_classes[k] for k in required)
        names = tuple(all_servers[j] for j in servers)
        if _never_positive(model.service_rate(names) if forms is None else None,
                           model.arrival_rate(classes) if forms is None else None, forms):
            return classes, names
    return None


def never_stable_message(model: Model, found: tuple[tuple[str, ...], tuple[str, ...]]) -> str:
    r"""The one-line refusal for a condition that no rates can satisfy.

    Parameters
    ----------
    model : Model
        The model.
    found : tuple
        ``(classes, servers)`` from :func:`never_stable`.

    Returns
    -------
    str
        Names the classes, the servers, the condition and what to change.

    Examples
    --------
    >>> from symq import Model
    >>> m = Model(compatibility={"1": ["1"]}, arrival_rates={"1": "x"}, service_rates={"1": "x/2"})
    >>> print(never_stable_message(m, never_stable(m)))
    never stable: the condition x < x/2 of classes {'1'} and their servers {'1'} holds for no positive values of the rates, so no stationary law exists; change those arrival or service rates

    Running time: O(J + M).
    """
    from symq.display import printable
    classes, servers = found
    condition = f"{model.arrival_rate(classes)} < {model.service_rate(servers)}"
    names = "{" + ", ".join(printable(repr(i)) for i in classes) + "}"
    serving = "{" + ", ".join(printable(repr(j)) for j in servers) + "}"
    return (f"never stable: the condition {condition} of classes {names} and their servers "
            f"{serving} holds for no positive values of the rates, so no stationary law exists; "
            "change those arrival or service rates")
