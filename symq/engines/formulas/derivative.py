r"""Partial derivatives of structured formulas, as structured formulas: the chain rule through the
named definitions, in order. A definition

$$N=\frac{s\sum_t a_t\prod_{n\in t}n}{d\prod_k m_k}$$

($s$, $a_t$, $d$ rational functions of the rates; $n$, $m_k$ earlier names) gets the new short
definition

$$\partial_xN=\frac{\sum_t\bigl[(s a_t)'\prod_{n\in t}n+s a_t\sum_{n\in t}\partial_xn
\prod_{n'\ne n}n'\bigr]-N\,d'\prod_km_k-N\,d\sum_k\partial_xm_k\prod_{k'\ne k}m_{k'}}
{d\prod_km_k}$$

with the same denominator, so that the derivative of the quantity is as short as the quantity
itself (a few terms more per definition). Derivatives that vanish (a definition that does not
depend on $x$) are left out, with the terms that use them.

Examples
--------
>>> from symq.engines.formulas import structured
>>> f = derivative(structured("n", "empty-probability"), ["mu_2"])
>>> [d.name for d in f.definitions][-3:]
['rho__1_2__dmu_2', 'E__1_2__dmu_2', 'P__empty__dmu_2']
>>> print(f.text(f.definitions[-1]))
E__1*E__1_2__dmu_2
>>> f.at({"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1, "mu_2": 1})
3/49

Running time: one sympy derivative per coefficient and denominator (cached), and O(size of
the definitions) new terms.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import sympy

from symq.errors import ModelError
from symq.engines.formulas.build import Definition, Term

__all__ = ["derivative", "derivative_name"]


def derivative_name(name: str, wrt: str) -> str:
    """The name of $\\partial_x N$: ``N__dx`` (``H__1_2__dmu_1``).

    Parameters
    ----------
    name : str
        A definition's name.
    wrt : str
        A rate symbol's name.

    Returns
    -------
    str

    Examples
    --------
    >>> derivative_name("H__1_2", "mu_1")
    'H__1_2__dmu_1'

    Running time: O(1).
    """
    return f"{name}__d{wrt}"


def _diff(expr: Any, x: sympy.Symbol, cache: dict) -> sympy.Expr:
    key = (expr, x)
    if key not in cache:
        cache[key] = sympy.factor(sympy.diff(sympy.sympify(expr), x)) if \
            sympy.sympify(expr).has(x) else sympy.Integer(0)
    return cache[key]


def _one_variable(definitions: list[Definition], x: sympy.Symbol, latex_x: str, cache: dict
                  ) -> tuple[list[Definition], dict[str, str]]:
    """The derivative definitions by ``x`` and ``{name: its derivative's name}`` (only names
    whose derivative does not vanish)."""
    out: list[Definition] = []
    dname: dict[str, str] = {}
    for d in definitions:
        terms: list[Term] = []
        scale = sympy.sympify(d.scale)
        for t in d.terms:
            a = scale * sympy.sympify(t.coef)
            da = _diff(a, x, cache)
            if da != 0:
                terms.append(Term(da, t.names))
            for k, n in enumerate(t.names):
                if n in dname:
                    terms.append(Term(a, t.names[:k] + (dname[n],) + t.names[k + 1:]))
        denom = sympy.sympify(d.denom)
        dd = _diff(denom, x, cache)
        if dd != 0:
            terms.append(Term(-dd, (d.name,) + tuple(d.denom_names)))
        for k, m in enumerate(d.denom_names):
            if m in dname:
                rest = d.denom_names[:k] + (dname[m],) + d.denom_names[k + 1:]
                terms.append(Term(-denom, (d.name,) + tuple(rest)))
        if not terms:
            continue
        name = derivative_name(d.name, x.name)
        dname[d.name] = name
        out.append(Definition(name, rf"\partial_{{{latex_x}}} {d.latex_name}", terms,
                              denom=d.denom, denom_names=tuple(d.denom_names),
                              kind="derivative", denom_label=d.denom_label))
    return out, dname


def derivative(formula: Any, wrt: Iterable[str]) -> Any:
    r"""The partial derivatives of a structured formula by the rate symbols ``wrt``, as one
    :class:`~symq.engines.formulas.Structured`: the original definitions, then those of the
    derivatives; its result is the derivative of each result entry (several ``wrt``: entries
    labelled ``"<entry> d/d<name>"``).

    Parameters
    ----------
    formula : Structured
        A structured formula (symbolic rates).
    wrt : iterable of str
        Rate symbol names.

    Returns
    -------
    Structured
        The derivative formula; ``.at(values)`` evaluates it exactly, ``.expanded()`` expands it.

    Raises
    ------
    ModelError
        A name that is not a rate symbol of the model.

    Examples
    --------
    >>> from symq.engines.formulas import structured
    >>> f = derivative(structured("w", "mean-number", "alis"), ["lambda_3"])
    >>> f.result_names()[0]
    ('total', 'L__all__dlambda_3')

    Running time: linear in the size of the definitions, plus a sympy derivative of every
    distinct coefficient.
    """
    from symq.engines.formulas import Structured
    wrt = list(dict.fromkeys(wrt))
    symbols = {s.name: s for s in formula.model.symbols}
    for n in wrt:
        if n not in symbols:
            raise ModelError(f"--wrt {n}: the model has no rate symbol {n!r}; its symbols are "
                             + ", ".join(sorted(symbols)))
    if not wrt:
        raise ModelError("give at least one rate to differentiate by (--wrt NAME)")
    definitions = list(formula.definitions)
    cache: dict = {}
    names: dict[str, dict[str, str]] = {}
    for n in wrt:
        new, dname = _one_variable(formula.definitions, symbols[n], sympy.latex(symbols[n]),
                                   cache)
        definitions += new
        names[n] = dname
    zero_names: dict[str, str] = {}

    def leaf_for(n: str):
        def leaf(name: str) -> str:
            if name in names[n]:
                return names[n][name]
            zero = derivative_name(name, n)
            if zero not in zero_names:  # the entry does not depend on n: a definition "0"
                zero_names[zero] = zero
                definitions.append(Definition(zero, rf"\partial_{{{sympy.latex(symbols[n])}}} "
                                              + _latex_of(formula, name), [], kind="derivative"))
            return zero
        return leaf
    if len(wrt) == 1:
        shape = _map_shape(formula.shape, leaf_for(wrt[0]))
    else:
        shape = {}
        for n in wrt:
            leaf = leaf_for(n)
            for label, name in formula.result_names():
                shape[f"{label or 'value'} d/d{n}"] = leaf(name)
    return Structured(formula.model, formula.quantity, formula.discipline, definitions, shape)


def _latex_of(formula: Any, name: str) -> str:
    for d in formula.definitions:
        if d.name == name:
            return d.latex_name
    return name


def _map_shape(shape: Any, leaf) -> Any:
    if isinstance(shape, Mapping):
        return {k: _map_shape(v, leaf) for k, v in shape.items()}
    return leaf(shape)
