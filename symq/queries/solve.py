r"""The front door: :func:`solve` answers any request (a model, a quantity, a discipline, values and
digits) through the route table (:mod:`symq.queries.routes`) and returns a :class:`Result` that
says which route ran and in which arithmetic. ``symq evaluate`` and ``symq derive`` are this
call and a print; the per-quantity functions of :mod:`symq.queries.quantities`
(:func:`symq.empty_probability`, :func:`symq.mean_number`, ...) are wrappers of it.

Examples
--------
>>> import symq
>>> r = symq.solve("w", "empty-probability", "alis", values={"lambda_1": "3/20",
...     "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"}, digits=12)
>>> r.value, r.exact, r.route, r.arithmetic
('0.545230263158', 663/1216, 'subset-dp', 'exact')
>>> r = symq.solve(symq.example_model("w"), "mean-number", "alis", digits=12, exact=False)
>>> r.per_class["3"].value, r.route, r.arithmetic in ("interval", "ball")
('0.301353744939', 'subset-dp', True)
>>> symq.solve("w", "empty-probability", "alis").route
'formulas'
"""

from __future__ import annotations

from argparse import Namespace
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import sympy

from symq.arithmetic.numeric import Evaluated, decimal_string
from symq.errors import ModelError, TooLargeError, UnsupportedError
from symq.models.model import Model

__all__ = ["solve", "Result", "flatten_result", "map_leaves", "check_work", "row_label"]


@dataclass(eq=False)
class Result:
    """The answer to a request: the values, the model they belong to, and the route that ran.

    ``items`` holds the values in the quantity's shape (one value, ``{"total", "per_class"}``,
    ``{"per_server"}`` or the response-time shape): :class:`~symq.arithmetic.numeric.Evaluated`
    leaves (``.value`` the decimal string with ``digits`` correct digits, ``.exact`` the rational
    or ``None`` when certified) for numeric rates, sympy expressions for symbolic ones (``form=
    "expression"``); ``formula`` the :class:`~symq.engines.formulas.Structured` formula of the
    ``structured`` arithmetic.

    A request for partial derivatives (``wrt=``) names the rates in ``wrt``; with numeric rates
    ``gradient`` is the :class:`~symq.engines.sensitivity.Sensitivities` (every value, partial
    derivative and elasticity, exact or certified; :meth:`derivative`, :meth:`elasticity`) and
    ``items`` the values; with symbolic rates ``formula`` is the derivative formula.
    """

    model: Model
    quantity: str
    discipline: str
    digits: int | None
    route: str
    method: str
    arithmetic: str
    items: Any = None
    formula: Any = None
    notes: list[str] = field(default_factory=list)
    wrt: list[str] | None = None
    gradient: Any = None
    #: the planner's prediction of the CPU seconds of the route that ran
    predicted_seconds: float | None = None
    #: the CPU seconds the request took (planning included)
    seconds: float | None = None

    # ------------------------------------------------------------------ parts
    def _part(self, key: str) -> Any:
        if isinstance(self.items, Mapping) and key in self.items:
            return self.items[key]
        return None

    @property
    def total(self) -> Any:
        """The overall value (``Evaluated``) of a per-class quantity, else ``None``."""
        return self._part("total")

    @property
    def per_class(self) -> Any:
        """``{class: Evaluated}`` of a per-class quantity, else ``None``."""
        return self._part("per_class")

    @property
    def per_server(self) -> Any:
        """``{server: Evaluated}`` of the idle probabilities, else ``None``."""
        return self._part("per_server")

    @property
    def value(self) -> str | None:
        """The decimal string of a one-value result (the total of a per-class one)."""
        leaf = self.total if self.total is not None else self.items
        return leaf.value if isinstance(leaf, Evaluated) else None

    @cached_property
    def exact(self) -> Any:
        """The exact value: a rational or sympy expression for one value, the shape of exact
        values for a mapping (``None`` where certified). For a structured formula, its values
        multiplied out and cancelled into sympy expressions (factored), on first access; a
        derivative formula has none (``None``)."""
        if self.formula is not None:
            if self.gradient is None and self.wrt is not None:
                return None
            from symq.queries.compute import expressions_of
            return expressions_of(self.formula)
        return map_leaves(self.items, lambda leaf: leaf.exact if isinstance(leaf, Evaluated) else leaf)

    def __eq__(self, other: object) -> bool:
        """Two results are equal when they denote the same values: equal exact rationals, or
        symbolic expressions whose difference cancels to zero (the same rational functions of
        the rates); certified values compare by their digits."""
        if not isinstance(other, Result):
            return NotImplemented
        if self.quantity != other.quantity:
            return False
        a, b = _comparable(self), _comparable(other)
        return _same(a, b)

    __hash__ = None  # type: ignore[assignment]

    def __getitem__(self, key: str) -> Any:
        if not isinstance(self.items, Mapping):
            raise KeyError(key)
        return self.items[key]

    def keys(self):
        return self.items.keys() if isinstance(self.items, Mapping) else ()

    def leaves(self) -> list[tuple[str, Any]]:
        """``[(label, leaf)]`` as ``symq evaluate`` prints them."""
        return flatten_result(self.items)

    def derivative(self, output: str, rate: str) -> Any:
        """$\\partial Q_{output}/\\partial x_{rate}$ of a request with ``wrt=`` and numeric rates:
        a ``Fraction`` (exact) or a certified ball (``.text`` its digits); ``output`` is
        ``"total"``, ``"class C"``, ``"server S"`` or ``""`` for a one-value quantity."""
        if self.gradient is None:
            raise ModelError("no derivatives in this result: ask with wrt=[...] (or wrt='all') "
                             "and numeric values")
        return self.gradient.derivative(output, rate)

    def elasticity(self, output: str, rate: str) -> Any:
        """$\\partial\\log Q_{output}/\\partial\\log x_{rate}$ (as :meth:`derivative`)."""
        if self.gradient is None:
            raise ModelError("no derivatives in this result: ask with wrt=[...] (or wrt='all') "
                             "and numeric values")
        return self.gradient.elasticity(output, rate)

    def as_json(self) -> dict[str, Any]:
        """The JSON fields of ``symq evaluate --json`` (``result`` in the quantity's shape; with
        derivatives the fields of :meth:`symq.engines.sensitivity.Sensitivities.as_json` instead)."""
        head = {"quantity": self.quantity, "discipline": self.discipline, "route": self.route,
                "method": self.method, "arithmetic": self.arithmetic, "digits": self.digits}
        if self.gradient is not None:
            return {**head, **self.gradient.as_json(self.digits)}
        return {**head, "result": map_leaves(self.items, _leaf_json)}

    def __str__(self) -> str:
        """A one-value result as its exact value (``663/1216``), else its decimal digits."""
        leaf = self.total if self.total is not None else self.items
        if isinstance(leaf, Evaluated):
            return str(leaf.exact) if leaf.exact is not None else leaf.value
        return repr(self)

    def __float__(self) -> float:
        """The nearest double of a one-value numeric result (its total for a per-class one)."""
        leaf = self.total if self.total is not None else self.items
        if not isinstance(leaf, Evaluated) or not leaf.value:
            raise TypeError(f"{self.quantity} has no single numeric value; use .items")
        return float(leaf.exact) if leaf.exact is not None else float(leaf.value)

    def __repr__(self) -> str:
        shown = self.value if self.value is not None else (
            "structured formula" if self.formula is not None else "...")
        return (f"Result({self.quantity}, {self.discipline}, route={self.route!r}, "
                f"arithmetic={self.arithmetic!r}, value={shown})")

    def _repr_latex_(self) -> str:
        if self.formula is not None:
            return "$" + self.formula.latex().replace("\\begin{align*}", "\\begin{aligned}")\
                .replace("\\end{align*}", "\\end{aligned}") + "$"
        if isinstance(self.items, Evaluated):
            return self.items._repr_latex_()
        from symq.display import text_latex
        rows = " \\\\ ".join(f"{text_latex(label or 'value')} & {_leaf_latex(leaf)}"
                              for label, leaf in self.leaves())
        return f"$\\begin{{array}}{{ll}} {rows} \\end{{array}}$"

    def caption(self) -> str:
        """What a table of this result shows: quantity, discipline, route and arithmetic, and
        for numeric rates the rates (``lambda_1 = 3/10, ...``).

        Returns
        -------
        str

        Examples
        --------
        >>> import symq
        >>> print(symq.solve(symq.example_model("n"), "mean-number", digits=5,
        ...                  method="nested").caption())
        mean-number, collaborative (route nested, exact); rates: class 1 1/4, class 2 1/4; server 1 1, server 2 1

        Running time: O(J + M).
        """
        text = f"{self.quantity}, {self.discipline} (route {self.route}, {self.arithmetic})"
        if self.model.is_numeric:
            from symq.display import printable
            lam = ", ".join(f"class {printable(c)} {r}" for c, r in self.model.arrival_rates.items())
            mu = ", ".join(f"server {printable(s)} {r}" for s, r in self.model.service_rates.items())
            text += f"; rates: {lam}; {mu}"
        return text

    def _formula_latex(self) -> str:
        """The structured formula as one ``aligned`` block (MathJax and LaTeX alike)."""
        latex = getattr(self.formula, "latex", None)
        if latex is None:
            from symq.display import math
            return str(math(self.formula))
        return latex().replace("\\begin{align*}", "\\begin{aligned}")\
            .replace("\\end{align*}", "\\end{aligned}")

    def table_rows(self) -> list[tuple[str, Any, str]]:
        """``[(label, exact value or None, decimal digits)]`` as every table of this result
        shows them: labels ``class 1``, ``server 2``, ``total``; laws of ``theta`` or ``t`` keep
        their exact expression and no digits."""
        rows = []
        for label, leaf in self.leaves():
            if isinstance(leaf, Evaluated):
                rows.append((row_label(label), leaf.exact, leaf.value or ""))
            else:
                rows.append((row_label(label), leaf, ""))
        return rows

    def _repr_html_(self) -> str:
        from html import escape
        from symq.display import Math, html_table, math
        caption = self.caption()
        if self.gradient is not None:  # the derivatives and elasticities, one row each
            return (f"<table><caption class=\"tex2jax_ignore\">{escape(caption)}; derivatives "
                    f"by {escape(', '.join(self.wrt or []))}</caption></table>"
                    + self.gradient._repr_html_())
        if self.formula is not None:
            return (f"<div class=\"symq-result tex2jax_ignore\">{escape(caption)}</div>"
                    f"<div class=\"symq-formula\">$$\n{escape(self._formula_latex())}\n$$</div>")
        header = ("", "exact", "decimal") if self.model.is_numeric else ("", "value")
        rows = []
        for label, exact, digits in self.table_rows():
            cells = [label or "value", None if exact is None else math(exact)]
            if self.model.is_numeric:
                cells.append(digits or None)
            rows.append(cells)
        del Math
        return html_table([(header, rows)], title=caption)

    def to_latex(self) -> str:
        r"""The values as a booktabs table (``\usepackage{booktabs}``) with a caption naming the
        model, quantity, discipline, route and rates; a structured formula as its ``align*``
        block.

        Returns
        -------
        str

        Examples
        --------
        >>> import symq
        >>> print(symq.solve(symq.example_model("n"), "mean-number", digits=5).to_latex())  # doctest: +ELLIPSIS
        \begin{table}[ht]
        \centering
        \caption{...}
        \begin{tabular}{lll}
        \toprule
         & exact & decimal \\
        \midrule
        \text{total} & $\frac{11}{21}$ & 0.52381 \\
        \text{class 1} & $\frac{5}{14}$ & 0.35714 \\
        \text{class 2} & $\frac{1}{6}$ & 0.16667 \\
        \bottomrule
        \end{tabular}
        \end{table}

        Running time: O(size of the values).
        """
        from symq.display import math, text_latex
        caption = text_latex(f"{self.model.name or 'model'}: " + self.caption())
        if self.formula is not None:
            return (f"% {caption}\n% Preamble: \\usepackage{{amsmath}}\n"
                    + self._formula_latex().replace("aligned", "align*"))
        numeric = self.model.is_numeric
        lines = ["\\begin{table}[ht]", "\\centering", f"\\caption{{{caption}}}",
                 "\\begin{tabular}{lll}" if numeric else "\\begin{tabular}{ll}", "\\toprule",
                 " & exact & decimal \\\\" if numeric else " & value \\\\", "\\midrule"]
        for label, exact, digits in self.table_rows():
            cells = [text_latex(label or "value"),
                     "--" if exact is None else f"${math(exact)}$"]
            if numeric:
                cells.append(digits or "--")
            lines.append(" & ".join(cells) + " \\\\")
        lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
        return "\n".join(lines)

    def to_dataframe(self) -> Any:
        """The values as a pandas DataFrame (columns ``label``, ``exact``, ``decimal``;
        ``exact`` holds the sympy rationals or expressions, ``None`` where certified).

        Returns
        -------
        pandas.DataFrame

        Raises
        ------
        UnsupportedError
            pandas is not installed (``pip install pandas``); a structured formula has no
            table (use ``.exact``).

        Running time: O(number of values).
        """
        try:
            import pandas
        except ImportError:
            raise UnsupportedError("to_dataframe needs pandas: pip install 'symq[dataframe]' (or "
                                   "use .table_rows(), a list of (label, exact, decimal))") from None
        if self.formula is not None:
            raise UnsupportedError("a structured formula has no table of values; use .exact "
                                   "or give every rate a value")
        return pandas.DataFrame(self.table_rows(), columns=["label", "exact", "decimal"])


def row_label(label: str) -> str:
    """A result's key as a reader's label: ``per_class 1`` reads ``class 1``, ``per_server 2``
    ``server 2``; a response-time part (``mean 1``) and its serving server (``server 1->2``)
    read ``mean, class 1`` and ``server 2 serves class 1``.

    Parameters
    ----------
    label : str
        A label of :func:`flatten_result`.

    Returns
    -------
    str

    Examples
    --------
    >>> row_label("per_class 1"), row_label("total"), row_label("server 1->2")
    ('class 1', 'total', 'server 2 serves class 1')

    Running time: O(len(label)).
    """
    kind, _, name = label.partition(" ")
    if kind == "per_class":
        return f"class {name}"
    if kind == "per_server":
        return f"server {name}"
    if kind == "server" and "->" in name:
        job_class, _, server = name.partition("->")
        return f"server {server} serves class {job_class}"
    if kind in ("lst", "mean", "variance", "cdf", "survival", "percentile") and name:
        return f"{kind}, class {name}"
    return label


def _comparable(result: Result) -> Any:
    if result.formula is not None or not result.model.is_numeric:
        return result.exact
    return map_leaves(result.items, lambda leaf: leaf.exact if isinstance(leaf, Evaluated)
                      and leaf.exact is not None else getattr(leaf, "value", leaf))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        if not (isinstance(a, Mapping) and isinstance(b, Mapping)) or set(a) != set(b):
            return False
        return all(_same(a[k], b[k]) for k in a)
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if a is None or b is None:
        return a is b
    difference = sympy.sympify(a) - sympy.sympify(b)
    return difference == 0 or sympy.cancel(sympy.together(difference)) == 0


def flatten_result(result: Any) -> list[tuple[str, Any]]:
    """``[(label, value)]`` of a quantity: one unlabelled entry, or one per class/server, e.g.
    ``("per_class 1", expr)``.

    Parameters
    ----------
    result : sympy.Expr or mapping
        What :func:`derive` or :func:`evaluate` returned.

    Returns
    -------
    list of (str, object)

    Examples
    --------
    >>> flatten_result({"per_class": {"1": 1, "2": 2}})
    [('per_class 1', 1), ('per_class 2', 2)]

    Running time: O(number of entries).
    """
    if not isinstance(result, Mapping):
        return [("", result)]
    rows = []
    for key, part in result.items():
        if isinstance(part, Mapping):
            rows += [(f"{key} {name}", value) for name, value in part.items()]
        else:
            rows.append((key, part))
    return rows


def _leaf_text(leaf: Any) -> str:
    if isinstance(leaf, Evaluated):
        return leaf.value or str(leaf.exact)
    return str(leaf)


def _leaf_latex(leaf: Any) -> str:
    if isinstance(leaf, Evaluated):
        if leaf.exact is None:
            return leaf.value
        shown = sympy.latex(leaf.exact)
        return f"{shown} \\approx {leaf.value}" if leaf.value and not leaf.exact.is_Integer \
            else shown
    return sympy.latex(leaf)


def _leaf_json(leaf: Any) -> Any:
    if isinstance(leaf, Evaluated):
        return leaf.as_json()
    return {"expr": str(leaf), "latex": sympy.latex(leaf)}


def map_leaves(shape: Any, leaf) -> Any:
    """``shape`` (one value, or nested mappings of values, as :func:`flatten_result` reads
    them) with ``leaf`` applied to every value, keys and nesting kept.

    Parameters
    ----------
    shape : object or mapping
        A result's values.
    leaf : callable
        Applied to each value.

    Returns
    -------
    object or dict

    Examples
    --------
    >>> map_leaves({"total": 1, "per_class": {"1": 2}}, lambda v: 10 * v)
    {'total': 10, 'per_class': {'1': 20}}

    Running time: O(number of values).
    """
    if isinstance(shape, Mapping):
        return {key: map_leaves(part, leaf) for key, part in shape.items()}
    return leaf(shape)


def _evaluated(value: Any, digits: int) -> Evaluated:
    """An exact leaf as :class:`Evaluated` with its digits (functions of theta or t: none)."""
    if isinstance(value, Evaluated):
        return value
    value = sympy.sympify(value)
    if value.free_symbols:
        return Evaluated(value, "")
    return Evaluated(value, decimal_string(value, digits))


def check_work(plan: Any, what: str) -> None:
    """Refuse the plan's chosen pair when its counted work is past its limit
    (:mod:`symq.limits`); the estimate checked is always that of the pair that runs.

    Parameters
    ----------
    plan : symq.queries.plan.Plan
    what : str
        The request as the user wrote it, for the message.

    Raises
    ------
    TooLargeError
        With the estimate and how to go ahead.

    Examples
    --------
    >>> import symq
    >>> from symq.queries.plan import explain
    >>> check_work(explain("w", "mean-number"), "w")

    Running time: O(1).
    """
    from symq.limits import LIMITS, check, number_text
    chosen, request = plan.chosen, plan.request
    limit = request.limit_of(chosen.limit)
    where = f"route {chosen.route.name}, {chosen.arithmetic}"
    if chosen.work is None:  # counting stopped past the cap
        if limit is None:
            return
        raise TooLargeError(f"too large: {what} needs more than {number_text(limit)} "
                            f"{LIMITS[chosen.limit].unit} ({where}); pass --max-work N with a "
                            "larger N to go ahead, or --no-limits")
    check(chosen.limit, chosen.work, f"{what} ({where})", limit)


def solve(model: Model | str, quantity: str, discipline: str = "collaborative",
          values: Mapping[str, Any] | None = None, digits: int = 30, exact: bool | None = None,
          method: str = "auto", form: str = "structured", time: Any = None,
          percentile: Any = None, max_work: int | None = None, no_limits: bool = False,
          limits: Any = None, what: str | None = None, wrt: Any = None,
          of: Any = None) -> Result:
    """Answer a request through the route table: the planner (:mod:`symq.queries.plan`) prices
    every applicable (row, arithmetic) pair and runs the cheapest.

    Parameters
    ----------
    model : Model, str or Path
        A model, a built-in name (``"w"``, ``"ring:4"``) or the path of a TOML file.
    quantity : str
        A name of :data:`symq.queries.routes.QUANTITIES` (``"mean-number"``, ...).
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.
    values : mapping, optional
        Exact values of rate names (``{"lambda_1": "3/10"}``); names not in the model are an
        error.
    digits : int
        Correct significant digits of every decimal value.
    exact : bool or None
        Exact rationals (``True``), certified digits only (``False``), or exact where cheap and
        certified otherwise (``None``).
    method : str
        ``"auto"``, the name of a route (``symq routes`` lists them), or ``"interval"`` /
        ``"ball"`` to force a certified arithmetic.
    form : str
        With symbolic rates: ``"structured"`` (named definitions, the default) or
        ``"expression"`` (one sympy expression per value).
    time, percentile : optional
        ``--time`` of the survival quantities, ``--percentile`` of the response-time laws.
    max_work, no_limits, limits : optional
        Raise or lift the work limits of :mod:`symq.limits` (``limits``: the command line's
        parsed arguments).
    what : str, optional
        The request as the user wrote it, for error messages.
    wrt : str, iterable of str or None
        Partial derivatives by these rates (``"all"``: every rate): symbolic rates give the
        derivative formula (route ``derivative-formulas``), numeric rates or symbolic rates with
        ``values`` for all of them every derivative and elasticity, exact or certified (route
        ``reverse-mode``; the rates of a numeric model are ``lambda_<class>`` and
        ``mu_<server>``). Quantities: the normalization ones (``empty-probability`` ...
        ``mean-response-time``).
    of : iterable of str, optional
        With ``wrt``: only the derivatives of these outputs (``"total"``, ``"class C"``,
        ``"server S"``), one backward sweep each.

    Returns
    -------
    Result
        With ``.route`` and ``.arithmetic`` naming what ran, ``.predicted_seconds`` the
        planner's estimate and ``.seconds`` the CPU seconds it took.

    Raises
    ------
    ModelError
        Unknown names, a forced method that does not apply, values for names the model lacks.
    UnstableModelError
        Numeric rates that make the model unstable, or symbolic rates that no values can make
        stable (:func:`symq.models.stability.never_stable`).
    TooLargeError
        The route's work estimate is past its limit.
    UnsupportedError
        No route serves the request.

    Examples
    --------
    >>> r = solve("n", "mean-number", values={"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1,
    ...                                       "mu_2": 1}, digits=8)
    >>> r.per_class["1"], r.route
    (Evaluated(exact=5/14, value='0.35714286'), 'nested')
    >>> g = solve("n", "mean-response-time", values={"lambda_1": "1/4", "lambda_2": "1/4",
    ...           "mu_1": 1, "mu_2": 1}, wrt=["mu_2"])
    >>> g.derivative("total", "mu_2"), g.route, g.arithmetic
    (Fraction(-124, 441), 'reverse-mode', 'exact')
    >>> solve("n", "empty-probability", wrt=["mu_2"]).formula.at(
    ...     {"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1, "mu_2": 1})
    3/49

    Running time: that of the route (``symq explain`` prints its prediction), after its estimate.
    """
    import time as _time
    from symq.queries.plan import plan
    from symq.queries.request import build_request
    started = _time.process_time()
    request = build_request(model, quantity, discipline, values, digits, exact, method, form,
                            time, percentile, max_work, no_limits, limits, what, wrt, of)
    request.extra["evaluate"] = True
    if not request.numeric:  # a model no rates can make stable has no formula to price
        _check_stability(request)
    chosen_plan = plan(request)
    what = request.what if not request.derivatives else f"the derivatives of {request.what}"
    check_work(chosen_plan, what)
    chosen = chosen_plan.chosen
    model = request.model
    if chosen.arithmetic in ("interval", "ball"):  # memory: the stored sets at these digits
        _check_certified_memory(chosen_plan, what)
    if request.numeric:  # numeric rates after the limits (the union check can be large)
        _check_stability(request)
    notes: list[str] = []
    route, arithmetic = chosen.route, chosen.arithmetic
    try:
        raw = route.function()(request, arithmetic)
    except UnsupportedError as error:
        if arithmetic not in ("interval", "ball") or request.derivatives:
            raise
        notes.append(f"certified digits failed ({error}); the exact route answered")
        request.exact = True
        chosen_plan = plan(request)
        check_work(chosen_plan, f"{what} (exact, after certified digits failed: {error})")
        route, arithmetic = chosen_plan.chosen.route, chosen_plan.chosen.arithmetic
        raw = route.function()(request, arithmetic)
    result = Result(model, quantity, discipline, digits if model.is_numeric else None,
                    route.name, route.method_text(request), arithmetic, notes=notes,
                    predicted_seconds=chosen_plan.chosen.seconds)
    if request.derivatives:
        _fill_derivatives(result, raw, request)
    elif arithmetic == "structured":
        result.formula = raw
        if getattr(raw, "builder", None) is not None:
            from symq.queries.routes import formulas_text
            if route.name == "formulas":
                result.method = formulas_text(raw.builder, request)
    elif model.is_numeric:
        result.items = _in_model_order(map_leaves(raw, lambda leaf: _evaluated(leaf, digits)), model)
    else:
        result.items = _in_model_order(raw, model)
    result.seconds = _time.process_time() - started
    return result


def _check_certified_memory(chosen_plan: Any, what: str) -> None:
    """The memory of the certified pair that runs, before any work: the compiled kernels'
    own prediction (:func:`symq.engines.normalization.limbs.kernel_memory_bytes`, measured
    10 to 19 % above the peak) for ``subset-dp`` on them, else the stored sets of the DP
    (:func:`symq.queries.estimates.check_certified_memory`)."""
    import math
    from symq.queries.estimates import check_certified_memory, memory_limit
    from symq.queries.routes import compiled_kernels
    request, chosen = chosen_plan.request, chosen_plan.chosen
    facts = request.facts
    if chosen.route.name == "subset-dp" and chosen.arithmetic == "interval" and \
            compiled_kernels(facts):
        limit = memory_limit(request.limits)
        unions = facts.unions(10 ** 8)
        if limit is None or unions is None:
            return
        from symq.engines.normalization.limbs import kernel_memory_bytes
        bits = int(request.digits * math.log2(10)) + 24 + facts.servers
        need = (kernel_memory_bytes(facts.servers, facts.classes, unions, request.discipline,
                                    bits, request.quantity in ("mean-number",
                                                               "mean-response-time"),
                                    request.quantity == "server-idle-probability")
                >> 20) + 150
        if need > limit:
            from symq.errors import TooLargeError
            raise TooLargeError(f"too large: {what} needs about {need:,} MiB for the compiled "
                                f"kernels' tables; the memory limit is {limit:,} MiB "
                                "(--no-limits lifts it)")
        return
    check_certified_memory(request.model, request.discipline, request.digits, what,
                           request.limits, tape=request.derivatives)


def _check_stability(request: Any) -> None:
    model = request.model
    if model.is_numeric:
        from symq.engines.normalization.entry import check_stability_fast
        facts = request.facts
        structure = "redundancy" if facts.redundancy else "nested" if facts.nested else None
        check_stability_fast(model, structure)
    else:  # symbolic: refuse a model that no rates can make stable (x < x/2)
        from symq.models.stability import check_stability
        check_stability(model)


def _fill_derivatives(result: Result, raw: Any, request: Any) -> None:
    """A request with ``wrt``: the derivative formula (symbolic rates) or the
    :class:`~symq.engines.sensitivity.Sensitivities` and its values (numeric rates)."""
    if result.arithmetic == "structured":
        from symq.engines.sensitivity import rate_order
        result.formula = raw
        result.wrt = request.wrt or sorted((s.name for s in request.model.symbols),
                                           key=rate_order)
        return
    result.gradient, result.wrt = raw, list(raw.wrt)
    result.arithmetic = raw.arithmetic  # an exact fallback of the balls says so
    result.items = _gradient_items(raw, result.digits or 30)


def _gradient_items(g: Any, digits: int) -> Any:
    """The values of a :class:`~symq.engines.sensitivity.Sensitivities` in the quantity's shape
    (``""`` one value, ``total``, ``class C``, ``server S``) as :class:`Evaluated` leaves."""
    from fractions import Fraction

    def leaf(v: Any) -> Evaluated:
        if isinstance(v, Fraction):
            return _evaluated(sympy.Rational(v.numerator, v.denominator), digits)
        exact = v.lower if v.lower == v.upper else None
        return Evaluated(None if exact is None else sympy.Rational(exact), v.text)
    if list(g.values) == [""]:
        return leaf(g.values[""])
    out: dict[str, Any] = {}
    for label, v in g.values.items():
        kind, _, name = label.partition(" ")
        if kind == "total":
            out["total"] = leaf(v)
        else:
            out.setdefault("per_class" if kind == "class" else "per_server", {})[name] = leaf(v)
    return out


def _in_model_order(items: Any, model: Model) -> Any:
    """Per-class and per-server parts in the model's class and server order (every route
    prints the same rows in the same order)."""
    if not isinstance(items, Mapping):
        return items
    out = dict(items)
    for key, order in (("per_class", model.classes), ("per_server", model.servers)):
        part = out.get(key)
        if isinstance(part, Mapping) and set(part) == set(order):
            out[key] = {name: part[name] for name in order}
    return out
