r"""The one entry point of the normalization package: it validates the discipline, checks
stability by the cheapest exact route, picks the algorithm for the model's structure (components,
``redundancy:K:D``, nested tree, else the general subset DP of the discipline) or the one named
by ``method=``, and returns exact sympy values. :mod:`symq.queries.quantities` calls these functions
for every built-in quantity, so the structure is inspected here and nowhere else.
Methods: ``"auto"`` (structure first), ``"subset-dp"`` (the general DP of the discipline,
whatever the structure), ``"server-removal"`` (collaborative only: the memoized recursions of
[GR20]_ Props 6.2 and 6.3 over class sets, the plain second route), ``"redundancy"`` and
``"nested"`` (force a structured route; refused where it does not apply), ``"components"``
(factor over the connected components, each by ``"auto"``).

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
>>> empty_probability(w, method="server-removal") == empty_probability(w, method="subset-dp")
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
from symq.engines.normalization.structured import components, is_symmetric_redundancy, redundancy_values
from symq.engines.normalization.subsets import SubsetGraph, is_numeric, unions

__all__ = ["DISCIPLINES", "METHODS", "values", "structure_route", "empty_probability",
           "normalizing_constant", "server_idle_probability", "mean_number", "mean_response_time",
           "check_stability_fast"]

#: the values of ``method=``
METHODS = ("auto", "subset-dp", "server-removal", "redundancy", "nested", "components",
           "ring")
#: above this many unions the stability check uses one max-flow instead
_MAX_UNION_CHECK = 200_000


def _check_discipline(discipline: str) -> None:
    if discipline not in DISCIPLINES:
        raise ModelError(f"unknown discipline {discipline!r}; available: {', '.join(DISCIPLINES)}")


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise ModelError(f"unknown method {method!r}; available: {', '.join(METHODS)}")


def check_stability_fast(model: Model) -> None:
    r"""Stability by the cheapest exact route for the model's structure (no-op when symbolic).

    ``redundancy:K:D``: one set of each size $k$ ($\lambda\binom kD/\binom KD<k\mu$); nested: the
    tree nodes; otherwise the unions of class server sets when there are at most 200,000 of
    them, else one max-flow (:func:`symq.models.stability.check_stability`).

    Parameters
    ----------
    model : Model
        Any rates; symbolic ones are not checked here.

    Raises
    ------
    UnstableModelError
        The message of :mod:`symq.models.stability`, naming classes and servers.

    Examples
    --------
    >>> from symq import example_model
    >>> check_stability_fast(example_model("n", {"lambda_2": 2}))
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
    if is_symmetric_redundancy(model):
        K = len(model.servers)
        D = len(next(iter(model.compatibility.values())))
        rate = next(iter(model.arrival_rates.values()))
        mu = next(iter(model.service_rates.values()))
        for k in range(1, K + 1):
            if not rate * math.comb(k, D) < k * mu:
                check_union_conditions(model, [(1 << k) - 1])
        return
    from symq.engines.nested import is_nested
    if is_nested(model):
        check_union_conditions(model, masks)
        return
    sets = unions(masks, limit=_MAX_UNION_CHECK)
    if sets is None:
        check_stability(model)
        return
    check_union_conditions(model, sets)


def structure_route(model: Model, discipline: str) -> str:
    """The structural route the model's structure picks (the name of a row of
    :data:`symq.queries.routes.ROUTES`): ``components`` for a disconnected graph, then
    ``redundancy``, ``nested`` and ``ring`` (collaborative), else ``subset-dp``. The route table
    calls it for its structural rows; :func:`values` with ``method="auto"`` too, for the
    engines that call each other.

    Parameters
    ----------
    model : Model
        Its structure decides.
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"`` (nested and ring are collaborative only).

    Returns
    -------
    str
        ``"components"``, ``"redundancy"``, ``"nested"``, ``"ring"`` or ``"subset-dp"``.

    Examples
    --------
    >>> from symq import model
    >>> structure_route(model("ring:4"), "collaborative"), structure_route(model("ring:4"), "alis")
    ('ring', 'subset-dp')

    Running time: O(J M) plus the component search.
    """
    if len(components(model)) > 1:
        return "components"
    if is_symmetric_redundancy(model):
        return "redundancy"
    from symq.engines.nested import is_nested
    if discipline == "collaborative" and is_nested(model):
        return "nested"
    from symq.engines.normalization.ring import is_ring
    if discipline == "collaborative" and is_ring(model):
        return "ring"
    return "subset-dp"


def values(model: Model, discipline: str = "collaborative", per_class: bool = False,
           method: str = "auto", field: Any = None, idle: bool = True
           ) -> tuple[dict[str, Any], Any]:
    r"""All normalization values of ``model`` by one algorithm: the single dispatch on structure.

    Parameters
    ----------
    model : Model
    discipline : ``"collaborative"``, ``"alis"`` or ``"rais"``
    per_class : bool
        Also compute the mean numbers ``"L"``.
    method : str
        One of :data:`METHODS` (module docstring).
    field : optional
        The arithmetic of the subset DPs (default exact; :mod:`symq.engines.normalization.certified`
        passes balls). Routes that have no use for it (nested, server removal) return sympy.
    idle : bool
        Also the idle probabilities (the subset DPs leave ``"idle"`` as ``None`` otherwise).

    Returns
    -------
    (dict, field or None)
        ``{"G", "empty", "idle": {server: p}, "L": {class: L_c}}`` and the field its values live
        in (``None``: sympy expressions).

    Raises
    ------
    ModelError
        An unknown discipline or method, a model without classes, a structured method that does
        not apply.
    UnstableModelError
        Numeric rates that violate $\lambda(A) < \mu(S(A))$.
    UnsupportedError
        Numeric rates that are not rational; ``"server-removal"`` for a noncollaborative
        discipline.

    Examples
    --------
    >>> from symq import example_model
    >>> out, field = values(example_model("w"), "alis")
    >>> out["empty"], field is None
    (663/1216, False)

    Running time: that of the chosen algorithm (see its module).
    """
    _check_discipline(discipline)
    _check_method(method)
    if model.is_empty:
        raise ModelError("the model has no class; give it at least one class and server")
    check_stability_fast(model)
    if method == "auto":
        method = structure_route(model, discipline)
    if method == "components":
        return _component_values(model, discipline, per_class, field, idle)
    if method == "redundancy":
        if not is_symmetric_redundancy(model):
            raise ModelError("method 'redundancy' needs a redundancy:K:D model (every D-subset "
                             "of the servers one class, equal rates); use method='auto'")
        out = redundancy_values(model, discipline, per_class, field)
        return out, out["arith"]
    if method == "nested":
        from symq.engines.nested import is_nested, nested_means
        if discipline != "collaborative" or not is_nested(model):
            raise ModelError("method 'nested' needs a nested model and the collaborative "
                             "discipline; use method='auto'")
        return nested_means(model), None
    if method == "ring":
        from symq.engines.normalization.ring import is_ring, ring_values
        if discipline != "collaborative" or not is_ring(model):
            raise ModelError("method 'ring' needs a ring (class i compatible with servers i and "
                             "i+1 mod M) and the collaborative discipline; use method='auto'")
        out = ring_values(model, per_class, field)
        return out, out["arith"]
    if method == "server-removal":
        if discipline != "collaborative":
            raise UnsupportedError("method 'server-removal' is the collaborative recursion of "
                                   "Prop 6.2; use method='subset-dp' for ALIS and RAIS")
        return _server_removal_values(model, per_class), None
    graph = SubsetGraph(model, field)
    dp = {"collaborative": collaborative_values, "alis": alis_values, "rais": rais_values}
    return dp[discipline](graph, per_class, idle=idle), graph.arith


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


def _component_values(model: Model, discipline: str, per_class: bool, field: Any, idle: bool
                      ) -> tuple[dict[str, Any], Any]:
    parts = [values(part, discipline, per_class, "auto", field, idle)
             for part in components(model)]
    if field is not None:  # keep the caller's field; exact parts (nested) enter it once
        one = field.one

        def conv(v, arith):
            return v if arith is field else field.value(_as_expr(v, arith))
    else:
        one, conv = sympy.Integer(1), _as_expr
    out: dict[str, Any] = {"G": one, "empty": one, "idle": {}, "L": {}}
    for part, arith in parts:
        out["G"] = out["G"] * conv(part["G"], arith)
        out["empty"] = out["empty"] * conv(part["empty"], arith)
        if part["idle"] is not None:
            out["idle"].update({s: conv(v, arith) for s, v in part["idle"].items()})
        if per_class:
            out["L"].update({c: conv(v, arith) for c, v in part["L"].items()})
    out["idle"] = {s: out["idle"][s] for s in model.servers} if idle else None
    if per_class:
        out["L"] = {c: out["L"][c] for c in model.classes}
    if field is None and not is_numeric(model):
        out["G"], out["empty"] = sympy.factor(out["G"]), sympy.factor(out["empty"])
    return out, field


def _as_expr(value: Any, arith) -> sympy.Expr:
    if arith is None:
        value = sympy.sympify(value)
        return sympy.factor(value) if value.free_symbols else value
    return arith.expr(value)


def _total(parts, arith) -> Any:
    return sum(parts, arith.zero) if arith is not None else sympy.Add(*parts)


def empty_probability(model: Model, discipline: str = "collaborative", method: str = "auto"
                      ) -> sympy.Expr:
    r"""Probability that no job is in the system, exact.

    Parameters
    ----------
    model : Model
        Rational or symbolic rates.
    discipline : ``"collaborative"``, ``"alis"`` or ``"rais"``
    method : str
        ``"auto"`` (by structure), ``"subset-dp"``, ``"server-removal"`` (collaborative),
        ``"redundancy"``, ``"nested"``, ``"components"`` (module docstring).

    Returns
    -------
    sympy.Expr
        A ``Rational`` for numeric rates, else a factored rational function of the rates.

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
    >>> n = example_model("n")
    >>> empty_probability(n), empty_probability(n, "alis")
    (9/14, 27/47)

    Running time: collaborative O(U (M + J)) for U unions of class server sets; ALIS and RAIS
    O(2^M M) (each component separately when the graph is disconnected).
    """
    out, arith = values(model, discipline, method=method, idle=False)
    return _as_expr(out["empty"], arith)


def normalizing_constant(model: Model, discipline: str = "collaborative", method: str = "auto"
                         ) -> sympy.Expr:
    r"""$G$ with $\pi(\text{state})=\text{product-form term}/G$.

    Collaborative ([GR20]_ Thm 3.3): $G=1/\pi(\emptyset)$; ALIS (Thm 3.9, states (waiting
    classes, idle order)): $G_{\rm ALIS}=1/\pi(\emptyset,\emptyset)$, so that
    $P(\emptyset)=W(\mathcal M)/G_{\rm ALIS}$; RAIS (Thm 3.10): $G_{\rm RAIS}=1/\pi(\emptyset)$.

    Parameters
    ----------
    model, discipline, method
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
    out, arith = values(model, discipline, method=method, idle=False)
    return _as_expr(out["G"], arith)


def server_idle_probability(model: Model, discipline: str = "collaborative", method: str = "auto"
                            ) -> dict[str, Any]:
    r"""``{"per_server": {server: P(server idle)}}`` (collaborative: Prop 6.2's
    $\psi_k=\pi(\emptyset)/\pi_{\vdash k}(\emptyset)$).

    Parameters
    ----------
    model, discipline, method
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
    out, arith = values(model, discipline, method=method)
    return {"per_server": {s: _as_expr(v, arith) for s, v in out["idle"].items()}}


def mean_number(model: Model, discipline: str = "collaborative", method: str = "auto"
                ) -> dict[str, Any]:
    r"""Mean number of jobs in the system, ``{"total": L, "per_class": {class: L_c}}``
    (collaborative: corrected [GR20]_ Prop 6.3; ALIS/RAIS: in queue plus in service by the
    matching rates).

    Parameters
    ----------
    model, discipline, method
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
    out, arith = values(model, discipline, per_class=True, method=method, idle=False)
    per_class = {c: _as_expr(v, arith) for c, v in out["L"].items()}
    return {"total": _as_expr(_total(out["L"].values(), arith), arith), "per_class": per_class}


def mean_response_time(model: Model, discipline: str = "collaborative", method: str = "auto"
                       ) -> dict[str, Any]:
    r"""Mean time in system by Little's law: $T_c=L_c/\lambda_c$, overall $T=L/\lambda$.

    Parameters
    ----------
    model, discipline, method
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
    out, arith = values(model, discipline, per_class=True, method=method, idle=False)
    lam = model.arrival_rates
    if arith is None:
        per_class = {c: _as_expr(sympy.sympify(v) / lam[c], None) for c, v in out["L"].items()}
        total = _as_expr(sympy.Add(*out["L"].values()) / model.arrival_rate(), None)
        return {"total": total, "per_class": per_class}
    per_class = {c: arith.expr(v / arith.value(lam[c])) for c, v in out["L"].items()}
    total = _total(out["L"].values(), arith) / arith.value(model.arrival_rate())
    return {"total": arith.expr(total), "per_class": per_class}
