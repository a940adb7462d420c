r"""Nested compatibility graphs: the nesting tree and the nested closed forms.

A model is *nested* when its server sets $S_i$ form a laminar family: any two are disjoint or one
contains the other ([GR20]_, section 4). The distinct sets $S_i$ then form a forest ordered by
inclusion, the *nesting tree*.

For a nested collaborative system, [GR20]_ Theorem 4.5 gives
$\pi(\emptyset) = \prod_i (1 - \rho_i)$ with $\rho_i = \lambda_i / \hat\mu_i$ and
$\hat\mu_i = \mu(S_i) - \lambda(R(S_i)) + \lambda_i$. The product runs over the *distinct* server
sets: classes with the same $S_i$ are one class for the collaborative model, with the sum of their
arrival rates (the product over the classes as printed is wrong when two classes share $S_i$:
for two classes on one server it gives $(1-\lambda_1/(\mu-\lambda_2))(1-\lambda_2/(\mu-\lambda_1))$
instead of $1-(\lambda_1+\lambda_2)/\mu$).

Examples
--------
>>> from sympy import latex
>>> from symq import model
>>> from symq.nested import is_nested, nested_empty_probability
>>> is_nested(model("w")), is_nested(model("ring:3"))
(True, False)
>>> print(latex(nested_empty_probability(model("n"))))
\frac{\left(- \lambda_{1} + \mu_{1}\right) \left(- \lambda_{1} - \lambda_{2} + \mu_{1} + \mu_{2}\right)}{\mu_{1} \left(- \lambda_{1} + \mu_{1} + \mu_{2}\right)}
"""

from __future__ import annotations

import networkx as nx
import sympy

from .errors import ModelError
from .model import Model

__all__ = ["is_nested", "nesting_tree", "nested_empty_probability", "nested_loads"]


def _server_sets(model: Model) -> list[frozenset[str]]:
    seen: list[frozenset[str]] = []
    for servers in model.compatibility.values():
        s = frozenset(servers)
        if s not in seen:
            seen.append(s)
    return seen


def is_nested(model: Model) -> bool:
    """True when any two server sets $S_i$, $S_k$ are disjoint or one contains the other."""
    sets = _server_sets(model)
    return all(not (a & b) or a <= b or b <= a for n, a in enumerate(sets) for b in sets[n + 1:])


def nesting_tree(model: Model) -> nx.DiGraph:
    """The nesting forest: one node per distinct server set (a frozenset), an edge from each set
    to the sets it immediately contains; node attribute ``classes`` lists the classes with that set.

    Raises
    ------
    ModelError
        The model is not nested; the message names two overlapping classes.
    """
    if not is_nested(model):
        for i, a in model.compatibility.items():
            for k, b in model.compatibility.items():
                a_set, b_set = set(a), set(b)
                if a_set & b_set and not (a_set <= b_set or b_set <= a_set):
                    raise ModelError(f"model is not nested: classes {i!r} and {k!r} have overlapping "
                                     f"server sets {sorted(a_set)} and {sorted(b_set)}")
    tree = nx.DiGraph()
    sets = _server_sets(model)
    for s in sets:
        tree.add_node(s, classes=tuple(i for i, v in model.compatibility.items()
                                       if frozenset(v) == s))
    for s in sets:
        parents = [t for t in sets if s < t]
        if parents:
            tree.add_edge(min(parents, key=len), s)
    return tree


def nested_loads(model: Model) -> dict[frozenset[str], tuple[sympy.Expr, sympy.Expr]]:
    r"""For each node $S$ of the nesting tree: $(\lambda_S, \hat\mu_S)$ with
    $\hat\mu_S = \mu(S) - \lambda(R(S)) + \lambda_S$ ([GR20]_, Theorem 4.5)."""
    result = {}
    for s, data in nesting_tree(model).nodes(data=True):
        lam_s = model.arrival_rate(data["classes"])
        result[s] = (lam_s, model.service_rate(s) - model.arrival_rate(model.only_served_by(s)) + lam_s)
    return result


def nested_empty_probability(model: Model) -> sympy.Expr:
    r"""$\pi(\emptyset) = \prod_S (1-\rho_S)$ for a nested collaborative system ([GR20]_, Thm 4.5).

    Raises
    ------
    ModelError
        The model is not nested.
    """
    if model.is_empty:
        return sympy.Integer(1)
    factors = [(mu_hat - lam_s) / mu_hat for lam_s, mu_hat in nested_loads(model).values()]
    return sympy.Mul(*factors)
