r"""The exact algorithms of the normalization package for one model: the general subset DP of
each discipline (:func:`values`), the server-removal recursion of the collaborative discipline
(:func:`server_removal_values`), and the per-quantity values by the general DP. Which algorithm
answers a request (nested closed form, ring, redundancy symmetry, components, or this DP) is
decided by the route table (:mod:`symq.queries.routes`), never here; the stability check
(:func:`check_stability_fast`) is told the model's structure by its caller.

Examples
--------
>>> from sympy import latex
>>> from symq import model
>>> from symq.engines.normalization import empty_probability
>>> print(latex(empty_probability(model("n"))))
- \frac{\left(\lambda_{1} - \mu_{1}\right) \left(\lambda_{1} + \lambda_{2} - \mu_{1} - \mu_{2}\right)}{\mu_{1} \left(\lambda_{1} - \mu_{1} - \mu_{2}\right)}
>>> w = model("w").substitute({"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4",
...                            "mu_1": "1", "mu_2": "4/5"})
>>> empty_probability(w, "alis"), empty_probability(w, "rais")
(663/1216, 663/1216)
>>> server_removal_values(w, False)["empty"] == empty_probability(w)
True
"""

from __future__ import annotations

import math
from typing import Any

import sympy

from symq.errors import ModelError, UnsupportedError
from symq.arithmetic.exact import to_sympy
from symq.models.model import DISCIPLINES, Model
from symq.models.stability import check_stability, check_union_conditions
from symq.engines.normalization.alis import alis_values
from symq.engines.normalization.collaborative import _server_removal, collaborative_values
from symq.engines.normalization.rais import rais_values
from symq.engines.normalization.subsets import SubsetGraph, is_numeric, unions

__all__ = ["DISCIPLINES", "values", "server_removal_values", "empty_probability",
           "normalizing_constant", "server_idle_probability", "mean_number", "mean_response_time",
           "check_stability_fast"]

#: above this many unions the stability check uses one max-flow instead
_MAX_UNION_CHECK = 200_000


def _check_discipline(discipline: str) -> None:
    if discipline not in DISCIPLINES:
        raise ModelError(f"unknown discipline {discipline!r}; available: {', '.join(DISCIPLINES)}")


def check_stability_fast(model: Model, structure: str | None = None) -> None:
    r"""Stability by the cheapest exact route for the model's structure (no-op when symbolic).

    ``redundancy:K:D``: one set of each size $k$ ($\lambda\binom kD/\binom KD<k\mu$); nested: the
    tree nodes; otherwise the unions of class server sets when there are at most 200,000 of
    them, else one max-flow (:func:`symq.models.stability.check_stability`).

    Parameters
    ----------
    model : Model
        Any rates; symbolic ones are not checked here.
    structure : str, optional
        ``"redundancy"`` or ``"nested"`` when the caller knows the model has that structure
        (:mod:`symq.queries.facts`): the cheap check of that structure; otherwise the unions.

    Raises
    ------
    UnstableModelError
        The message of :mod:`symq.models.stability`, naming classes and servers.

    Examples
    --------
    >>> from symq import example_model
    >>> check_stability_fast(example_model("n", {"lambda_2": 2}), "nested")
    Traceback (most recent call last):
        ...
    symq.errors.UnstableModelError: unstable: classes {'1', '2'} bring 9/4 but their servers {'1', '2'} serve only 2; lower those arrival rates or raise those service rates

    Running time: O(M) for redundancy, O(J M) nested, O(U M) for U unions, else one max-flow.
    """
    if not is_numeric(model):
        return
    if any(not r.is_Rational for r in (*model.arrival_rates.values(),
                                       *model.service_rates.values())):
        check_stability(model)
        return
    index = {s: j for j, s in enumerate(model.servers)}
    masks = sorted({sum(1 << index[s] for s in v) for v in model.compatibility.values()})
    if structure == "redundancy":
        K = len(model.servers)
        D = len(next(iter(model.compatibility.values())))
        rate = next(iter(model.arrival_rates.values()))
        mu = next(iter(model.service_rates.values()))
        for k in range(1, K + 1):
            if not rate * math.comb(k, D) < k * mu:
                check_union_conditions(model, [(1 << k) - 1])
        return
    if structure == "nested":
        check_union_conditions(model, masks)
        return
    sets = unions(masks, limit=_MAX_UNION_CHECK)
    if sets is None:
        check_stability(model)
        return
    check_union_conditions(model, sets)


def values(model: Model, discipline: str = "collaborative", per_class: bool = False,
           field: Any = None, idle: bool = True, *, method: str = "subset-dp"
           ) -> tuple[dict[str, Any], Any]:
    r"""All normalization values of ``model`` by the general subset DP of the discipline
    ([GR20]_ Thm 3.3 collaborative, Thm 3.9 ALIS, Thm 3.10 RAIS), whatever the model's
    structure (the route table runs the structural algorithms where they are cheaper).

    Parameters
    ----------
    model : Model
    discipline : ``"collaborative"``, ``"alis"`` or ``"rais"``
    per_class : bool
        Also compute the mean numbers ``"L"``.
    field : optional
        The arithmetic of the DP (default exact; the certified route passes balls).
    idle : bool
        Also the idle probabilities (``"idle"`` is ``None`` otherwise).
    method : str
        ``"subset-dp"`` only (the one algorithm here; other routes: ``symq.solve(method=...)``).

    Returns
    -------
    (dict, field or None)
        ``{"G", "empty", "idle": {server: p}, "L": {class: L_c}}`` and the field its values live
        in (``None``: sympy expressions).

    Raises
    ------
    ModelError
        An unknown discipline or method, a model without classes.
    UnstableModelError
        Numeric rates that violate $\lambda(A) < \mu(S(A))$.
    UnsupportedError
        Numeric rates that are not rational.

    Examples
    --------
    >>> from symq import example_model
    >>> out, field = values(example_model("w"), "alis")
    >>> out["empty"], field is None
    (663/1216, False)

    Running time: collaborative O(U (M + J)) for U unions of class server sets; ALIS and RAIS
    O(2^M M) (RAIS mean numbers O(J 2^M M)).
    """
    _check_discipline(discipline)
    if method != "subset-dp":
        raise ModelError(f"method {method!r}: the engines run the general subset DP only; choose "
                         "a route with symq.solve(..., method=NAME) (symq routes lists them)")
    if model.is_empty:
        raise ModelError("the model has no class; give it at least one class and server")
    check_stability_fast(model)
    graph = SubsetGraph(model, field)
    dp = {"collaborative": collaborative_values, "alis": alis_values, "rais": rais_values}
    return dp[discipline](graph, per_class, idle=idle), graph.arith


def server_removal_values(model: Model, per_class: bool) -> dict[str, Any]:
    r"""The collaborative values by the server-removal recursion over class sets ([GR20]_
    Prop 6.2, corrected Prop 6.3): the plain second route of the subset DP.

    Parameters
    ----------
    model : Model
    per_class : bool
        Also the mean numbers.

    Returns
    -------
    dict
        ``{"G", "empty", "idle", "L"}`` (sympy values).

    Examples
    --------
    >>> from symq import example_model
    >>> server_removal_values(example_model("n"), True)["L"]["1"]
    5/14

    Running time: O(2^J J) memoized class sets.
    """
    check_stability_fast(model)
    return _server_removal_values(model, per_class)


def _server_removal_values(model: Model, per_class: bool) -> dict[str, Any]:
    inverse, means = _server_removal(model)
    everything = frozenset(model.classes)
    g = inverse(everything)
    to = to_sympy if is_numeric(model) else sympy.sympify
    out = {"G": to(g), "empty": to(1 / g)}
    out["idle"] = {k: to(inverse(everything - frozenset(model.classes_of([k]))) / g)
                   for k in model.servers}  # Prop 6.2: psi_k = pi(0) / pi_{|-k}(0)
    if per_class:
        out["L"] = {c: to(v) for c, v in means(everything).items()}
    return out


def _as_expr(value: Any, arith) -> sympy.Expr:
    if arith is None:
        value = sympy.sympify(value)
        return sympy.factor(value) if value.free_symbols else value
    return arith.expr(value)


def _total(parts, arith) -> Any:
    return sum(parts, arith.zero) if arith is not None else sympy.Add(*parts)


def empty_probability(model: Model, discipline: str = "collaborative"
                      ) -> sympy.Expr:
    r"""Probability that no job is in the system, exact.

    Parameters
    ----------
    model : Model
        Rational or symbolic rates.
    discipline : ``"collaborative"``, ``"alis"`` or ``"rais"``

    Returns
    -------
    sympy.Expr
        A ``Rational`` for numeric rates, else a factored rational function of the rates.

    Raises
    ------
    ModelError
        An unknown discipline, a model without classes.
    UnstableModelError
        Numeric rates that violate $\lambda(A) < \mu(S(A))$.
    UnsupportedError
        Numeric rates that are not rational.

    Examples
    --------
    >>> from symq import example_model
    >>> n = example_model("n")
    >>> empty_probability(n), empty_probability(n, "alis")
    (9/14, 27/47)

    Running time: collaborative O(U (M + J)) for U unions of class server sets; ALIS and RAIS
    O(2^M M) (each component separately when the graph is disconnected).
    """
    out, arith = values(model, discipline, idle=False)
    return _as_expr(out["empty"], arith)


def normalizing_constant(model: Model, discipline: str = "collaborative"
                         ) -> sympy.Expr:
    r"""$G$ with $\pi(\text{state})=\text{product-form term}/G$.

    Collaborative ([GR20]_ Thm 3.3): $G=1/\pi(\emptyset)$; ALIS (Thm 3.9, states (waiting
    classes, idle order)): $G_{\rm ALIS}=1/\pi(\emptyset,\emptyset)$, so that
    $P(\emptyset)=W(\mathcal M)/G_{\rm ALIS}$; RAIS (Thm 3.10): $G_{\rm RAIS}=1/\pi(\emptyset)$.

    Parameters
    ----------
    model, discipline
        As :func:`empty_probability`; ``discipline`` also picks which $G$ (above).

    Returns
    -------
    sympy.Expr
        Exact, factored for symbolic rates.

    Raises
    ------
    ModelError, UnstableModelError, UnsupportedError
        As :func:`empty_probability`.

    Examples
    --------
    >>> from symq import example_model
    >>> normalizing_constant(example_model("n"))
    14/9

    Running time: as :func:`empty_probability`.
    """
    out, arith = values(model, discipline, idle=False)
    return _as_expr(out["G"], arith)


def server_idle_probability(model: Model, discipline: str = "collaborative"
                            ) -> dict[str, Any]:
    r"""``{"per_server": {server: P(server idle)}}`` (collaborative: Prop 6.2's
    $\psi_k=\pi(\emptyset)/\pi_{\vdash k}(\emptyset)$).

    Parameters
    ----------
    model, discipline
        As :func:`empty_probability` (the server-removal route gives Prop 6.2 itself).

    Returns
    -------
    dict
        ``{"per_server": {server: probability}}``, in the model's server order.

    Raises
    ------
    ModelError, UnstableModelError, UnsupportedError
        As for the empty probability.

    Examples
    --------
    >>> import symq
    >>> server_idle_probability(symq.example_model("n"))
    {'per_server': {'1': 9/14, '2': 6/7}}

    Running time: as :func:`empty_probability`, with the idle tables of the DP (O(2^M M) for
    ALIS/RAIS).
    """
    out, arith = values(model, discipline)
    return {"per_server": {s: _as_expr(v, arith) for s, v in out["idle"].items()}}


def mean_number(model: Model, discipline: str = "collaborative"
                ) -> dict[str, Any]:
    r"""Mean number of jobs in the system, ``{"total": L, "per_class": {class: L_c}}``
    (collaborative: corrected [GR20]_ Prop 6.3; ALIS/RAIS: in queue plus in service by the
    matching rates).

    Parameters
    ----------
    model, discipline
        As :func:`empty_probability`; ``"nested"`` uses the closed forms of Thm 4.5.

    Returns
    -------
    dict
        ``{"total": L, "per_class": {class: L_c}}``, exact.

    Raises
    ------
    ModelError, UnstableModelError, UnsupportedError
        The errors of :func:`empty_probability` (the same checks run first).

    Examples
    --------
    >>> from symq import example_model
    >>> n = example_model("n")
    >>> mean_number(n)
    {'total': 11/21, 'per_class': {'1': 5/14, '2': 1/6}}

    Running time: collaborative O(U J); ALIS O(2^M M + U J); RAIS O(J 2^M M).
    """
    out, arith = values(model, discipline, per_class=True, idle=False)
    per_class = {c: _as_expr(v, arith) for c, v in out["L"].items()}
    return {"total": _as_expr(_total(out["L"].values(), arith), arith), "per_class": per_class}


def mean_response_time(model: Model, discipline: str = "collaborative"
                       ) -> dict[str, Any]:
    r"""Mean time in system by Little's law: $T_c=L_c/\lambda_c$, overall $T=L/\lambda$.

    Parameters
    ----------
    model, discipline
        As for :func:`mean_number`, whose values are divided by the arrival rates.

    Returns
    -------
    dict
        ``{"total": T, "per_class": {class: T_c}}``.

    Raises
    ------
    ModelError, UnstableModelError, UnsupportedError
        Those of :func:`mean_number`.

    Examples
    --------
    >>> from symq import example_model
    >>> mean_response_time(example_model("n"))["per_class"]
    {'1': 10/7, '2': 2/3}

    Running time: that of :func:`mean_number`, plus J divisions.
    """
    out, arith = values(model, discipline, per_class=True, idle=False)
    lam = model.arrival_rates
    if arith is None:
        per_class = {c: _as_expr(sympy.sympify(v) / lam[c], None) for c, v in out["L"].items()}
        total = _as_expr(sympy.Add(*out["L"].values()) / model.arrival_rate(), None)
        return {"total": total, "per_class": per_class}
    per_class = {c: arith.expr(v / arith.value(lam[c])) for c, v in out["L"].items()}
    total = _total(out["L"].values(), arith) / arith.value(model.arrival_rate())
    return {"total": arith.expr(total), "per_class": per_class}
