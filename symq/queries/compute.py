r"""The compute functions of the route table's rows (:data:`symq.queries.routes.ROUTES`): each
takes one request and calls its engine. Every function has the signature
``compute(model, quantity, discipline, route, options)`` and returns the result in the shape of
:func:`symq.queries.quantities.flatten_result` (one value, ``{"total", "per_class"}``,
``{"per_server"}``, or the response-time shape ``{"lst", "mean", "variance", "cdf"}``): sympy
values for the symbolic and exact arithmetics, :class:`~symq.arithmetic.numeric.Evaluated` values
for the certified ones, a :class:`~symq.engines.formulas.Structured` for ``formulas``; the
``derivatives`` rows return the derivative formula (``derivative-formulas``) or a
:class:`~symq.engines.sensitivity.Sensitivities` (``reverse-mode``).

Examples
--------
>>> from symq import example_model
>>> from symq.queries.routes import route_named
>>> structural(example_model("n"), "empty-probability", "collaborative", route_named("nested"), {})
9/14
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from symq.models.model import Model

__all__ = ["uninformed", "nested_response_time", "tagged_job", "formulas", "structural",
           "certified", "derivative_formulas", "reverse_mode", "ENGINE_FUNCTIONS"]

_ROW_SECTIONS = """

Parameters
----------
model : Model
    The model (numeric or symbolic rates, as the row's arithmetics allow).
quantity, discipline : str
    The request.
route : symq.queries.routes.Route
    The row that selected this function.
options : dict
    ``digits``, ``time``, ``percentile`` and ``arithmetic`` of the request.

Returns
-------
object
    The result in the quantity's shape (module docstring).
"""


def _row(function: Callable[..., Any]) -> Callable[..., Any]:
    """Give a compute function the Parameters and Returns that every row's function shares
    (inserted after its summary, before its Examples)."""
    doc = inspect.cleandoc(function.__doc__ or "")
    summary, sep, rest = doc.partition("\n\nExamples")
    function.__doc__ = summary + _ROW_SECTIONS + "\nExamples" + rest if sep else doc + _ROW_SECTIONS
    return function


#: quantity -> the function of :mod:`symq.engines.normalization` that computes it
ENGINE_FUNCTIONS = {"empty-probability": "empty_probability",
                    "normalizing-constant": "normalizing_constant",
                    "server-idle-probability": "server_idle_probability",
                    "mean-number": "mean_number", "mean-response-time": "mean_response_time"}


@_row
def uninformed(model: Model, quantity: str, discipline: str, route: Any, options: dict) -> Any:
    """Cabral's closed forms (:mod:`symq.studies.uninformed.handlers`).

    Examples
    --------
    >>> import symq
    >>> from symq.queries.routes import route_named
    >>> m = symq.model("uninformed:2").substitute({"lambda": 1, "mu_1": 1, "mu_2": 2})
    >>> uninformed(m, "empty-probability", "rais", route_named("uninformed"), {})
    8/17

    Running time: that of the closed forms, O(N^2) for N servers.
    """
    from symq.studies.uninformed import QUANTITY_HANDLERS
    return QUANTITY_HANDLERS[quantity][0](model)


@_row
def nested_response_time(model: Model, quantity: str, discipline: str, route: Any,
                         options: dict) -> Any:
    """The laws of :func:`symq.engines.aggregated.response_time_quantity`.

    Examples
    --------
    >>> import symq
    >>> from symq.queries.routes import route_named
    >>> out = nested_response_time(symq.model("n"), "response-time", "collaborative",
    ...                            route_named("nested-response-time"), {})
    >>> sorted(out)
    ['cdf', 'lst', 'mean', 'variance']

    Running time: O(J M) for the nesting tree, plus the laws' partial fractions.
    """
    from symq.engines.aggregated import response_time_quantity
    return response_time_quantity(model, discipline)


@_row
def tagged_job(model: Model, quantity: str, discipline: str, route: Any, options: dict) -> Any:
    """The tagged-job laws: exact formulas (:func:`symq.queries.response_time.derive_quantity`),
    the structured transform for the ``structured`` arithmetic
    (:func:`symq.engines.response_time.structured.transform_formula`), or with
    ``options["digits"]`` on numeric rates what ``symq evaluate`` prints (certified survival,
    percentiles, the serving server).

    Examples
    --------
    >>> import symq
    >>> from symq.queries.routes import route_named
    >>> out = tagged_job(symq.example_model("n"), "response-time", "alis",
    ...                  route_named("tagged-job"), {})
    >>> out["mean"]["1"]
    68/47

    Running time: that of :mod:`symq.engines.response_time` (one law per class).
    """
    from symq.queries.response_time import derive_quantity, evaluate_request
    if options.get("arithmetic") == "structured":
        from symq.engines.response_time.structured import transform_formula
        return transform_formula(model, quantity.split("-")[0], discipline)
    if options.get("digits") is not None and model.is_numeric:
        return evaluate_request(model, quantity, discipline, options["digits"],
                                time=options.get("time"), percentile=options.get("percentile"))
    return derive_quantity(model, quantity, discipline)


@_row
def formulas(model: Model, quantity: str, discipline: str, route: Any, options: dict) -> Any:
    """The structured formula (:func:`symq.engines.formulas.structured`).

    Examples
    --------
    >>> import symq
    >>> from symq.queries.routes import route_named
    >>> f = formulas(symq.model("w"), "empty-probability", "alis", route_named("formulas"), {})
    >>> f.definitions[0].name
    'H__1'

    Running time: that of :func:`symq.engines.formulas.structured`.
    """
    from symq.engines.formulas import structured
    return structured(model, quantity, discipline)


@_row
def structural(model: Model, quantity: str, discipline: str, route: Any, options: dict) -> Any:
    """The exact normalization engines with ``method=route.name``
    (:func:`symq.engines.normalization.entry.values`).

    Examples
    --------
    >>> import symq
    >>> from symq.queries.routes import route_named
    >>> structural(symq.example_model("n"), "mean-number", "alis", route_named("subset-dp"),
    ...            {})["total"]
    88/141

    Running time: that of the engine named by the row (``symq routes``).
    """
    from symq.engines import normalization
    function = getattr(normalization, ENGINE_FUNCTIONS[quantity])
    return function(model, discipline, method=route.name)


@_row
def certified(model: Model, quantity: str, discipline: str, route: Any, options: dict) -> Any:
    """Certified digits (:func:`symq.engines.normalization.certified.certified_quantity`): the
    fixed-point kernels for the ``interval`` row, balls for ``ball``.

    Examples
    --------
    >>> import symq
    >>> from symq.queries.routes import route_named
    >>> certified(symq.example_model("n"), "empty-probability", "alis", route_named("interval"),
    ...           {"digits": 10})
    Evaluated(exact=None, value='0.5744680851')

    Running time: that of :func:`symq.engines.normalization.certified.certified_values`.
    """
    from symq.engines.normalization.certified import certified_quantity
    return certified_quantity(model, quantity, discipline, options.get("digits") or 30,
                              kernels=route.name == "interval")


@_row
def derivative_formulas(model: Model, quantity: str, discipline: str, route: Any,
                        options: dict) -> Any:
    """The partial derivatives by the rates ``options["wrt"]`` (default: every rate symbol) as a
    structured formula: the quantity's structured formula
    (:func:`symq.engines.formulas.structured`) differentiated through its named definitions by
    the chain rule (:func:`symq.engines.formulas.derivative.derivative`).

    Examples
    --------
    >>> import symq
    >>> from symq.queries.routes import route_named
    >>> f = derivative_formulas(symq.model("n"), "empty-probability", "collaborative",
    ...                         route_named("derivative-formulas"), {"wrt": ["mu_2"]})
    >>> f.at({"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1, "mu_2": 1})
    3/49

    Running time: that of the structured formula, plus a few terms per definition and rate.
    """
    from symq.engines.formulas import structured
    from symq.engines.formulas.derivative import derivative
    from symq.engines.sensitivity import rate_order
    names = options.get("wrt") or sorted((s.name for s in model.symbols), key=rate_order)
    return derivative(structured(model, quantity, discipline), names)


@_row
def reverse_mode(model: Model, quantity: str, discipline: str, route: Any, options: dict
                 ) -> Any:
    """Values, partial derivatives and elasticities at one point
    (:func:`symq.engines.sensitivity.gradient`: the subset DP recorded, one backward sweep per
    output), exact or certified on balls (``options["arithmetic"]``). The derivatives are by
    the symbols of ``options["base"]`` at ``options["values"]`` when the request had symbolic
    rates with values, else by ``lambda_<class>`` and ``mu_<server>``; ``options["wrt"]`` and
    ``options["labels"]`` narrow the rates and outputs. Returns a
    :class:`~symq.engines.sensitivity.Sensitivities`.

    Examples
    --------
    >>> import symq
    >>> from symq.queries.routes import route_named
    >>> g = reverse_mode(symq.example_model("n"), "empty-probability", "collaborative",
    ...                  route_named("reverse-mode"), {"arithmetic": "exact", "wrt": ["mu_2"]})
    >>> g.derivative("", "mu_2")
    Fraction(3, 49)

    Running time: about three times the subset DP per output swept (``symq routes``).
    """
    from symq.engines.sensitivity import gradient
    return gradient(options.get("base") or model, quantity, discipline, options.get("values"),
                    options.get("wrt"), options.get("arithmetic") or "exact",
                    options.get("digits") or 30, options.get("labels"))
