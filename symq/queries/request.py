r"""A *request*: what one call of :func:`symq.solve` (or one ``symq evaluate``/``derive``/``explain``
command) asks for -- a model (its values already put in), a quantity, a discipline, the
arithmetic it allows (``exact``), the form of a symbolic answer, digits, an optional forced
``method`` and, for partial derivatives, the rates and outputs. Its structure facts
(:class:`symq.queries.facts.Facts`) are computed once and shared by every row of the route
table that looks at it.

Examples
--------
>>> from symq import model
>>> r = Request(model("ring:3"), "mean-number", "collaborative")
>>> r.facts.ring, r.symbolic_arithmetics()
(True, ('structured', 'symbolic'))
"""

from __future__ import annotations

from argparse import Namespace
from dataclasses import dataclass, field
from typing import Any, Mapping

from symq.errors import ModelError

from symq.models.model import Model
from symq.queries.facts import Facts, facts_of

__all__ = ["Request", "build_request", "ARITHMETICS", "NORMALIZATION", "RESPONSE_TIME",
           "QUANTITIES"]

#: the arithmetics a route may compute in (module docstring)
ARITHMETICS = ("structured", "symbolic", "exact", "interval", "ball")
#: the quantities of the normalization engines
NORMALIZATION = ("empty-probability", "normalizing-constant", "server-idle-probability",
                 "mean-number", "mean-response-time")
#: the quantities of the tagged-job laws
RESPONSE_TIME = ("response-time", "response-time-survival", "waiting-time",
                 "waiting-time-survival")
#: every quantity name, with its one-line meaning
QUANTITIES = {
    "empty-probability": "probability that no job is in the system",
    "normalizing-constant": "G with pi(state) = product-form term / G",
    "server-idle-probability": "per server, probability that it is idle",
    "mean-number": "mean number of jobs in the system, per class and total",
    "mean-response-time": "mean time in system, per class and overall (arrival-weighted)",
    "response-time": "distribution of the time in system per class: LST, mean, variance, CDF",
    "response-time-survival": "P(T_c > t) per class (evaluate at --time T)",
    "waiting-time": "distribution of the time before service starts, per class",
    "waiting-time-survival": "P(W_c > t) per class (evaluate at --time T)",
}




@dataclass
class Request:
    """One request (module docstring).

    ``exact``: ``True`` exact rationals only, ``False`` certified digits only, ``None`` either
    (the planner prefers exact where it costs little more); ``form``: ``"structured"`` (named
    definitions) or ``"expression"`` (one sympy expression) for symbolic rates;
    ``derivatives``: partial derivatives by ``wrt`` (``None``: every rate) of ``outputs``
    outputs; ``limits``: the parsed ``--max-work``/``--no-limits`` (or a namespace with them).
    """

    model: Model
    quantity: str
    discipline: str = "collaborative"
    exact: bool | None = None
    form: str = "structured"
    digits: int = 30
    method: str = "auto"
    time: Any = None
    percentile: Any = None
    derivatives: bool = False
    wrt: list[str] | None = None
    outputs: int = 1
    rates: int = 1
    labels: list[str] | None = None
    base: Model | None = None
    values: Mapping[str, Any] | None = None
    limits: Any = None
    what: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def facts(self) -> Facts:
        """The model's structure facts (computed once per model object)."""
        return facts_of(self.model)

    @property
    def numeric(self) -> bool:
        return self.model.is_numeric

    def symbolic_arithmetics(self) -> tuple[str, ...]:
        """The arithmetics that answer this request with symbolic rates, preferred first."""
        if self.form == "expression":
            return ("symbolic",)
        return ("structured", "symbolic")

    def allowed_arithmetics(self) -> tuple[str, ...]:
        """Every arithmetic that may answer: ``structured``/``symbolic`` for symbolic rates;
        ``exact`` and the certified ones (``interval``, ``ball``) for numeric rates, as
        ``exact`` allows."""
        if not self.numeric:
            return self.symbolic_arithmetics()
        out: tuple[str, ...] = ()
        if self.exact is not False:
            out += ("exact",)
        if self.exact is not True:
            out += ("interval", "ball")
        return out

    def limit_of(self, name: str) -> int | None:
        """The limit in force for ``name`` (:mod:`symq.limits`), ``None`` for none."""
        from symq.limits import limit_value
        return limit_value(name, self.limits)


def _limits(max_work: int | None, no_limits: bool, limits: Any) -> Any:
    if limits is not None:
        return limits
    return Namespace(max_work=max_work, no_limits=no_limits)


def build_request(model: Model | str, quantity: str, discipline: str = "collaborative",
                  values: Mapping[str, Any] | None = None, digits: int = 30,
                  exact: bool | None = None, method: str = "auto", form: str = "structured",
                  time: Any = None, percentile: Any = None, max_work: int | None = None,
                  no_limits: bool = False, limits: Any = None, what: str | None = None,
                  wrt: Any = None, of: Any = None) -> Any:
    """The :class:`~symq.queries.request.Request` of a call of :func:`symq.solve`: the model
    loaded and its values put in, the options checked.

    Parameters
    ----------
    model, quantity, discipline, values, digits, exact, method, form, time, percentile
        As :func:`symq.solve`.
    max_work, no_limits, limits, what, wrt, of
        As :func:`symq.solve`.

    Returns
    -------
    Request

    Raises
    ------
    ModelError
        Unknown names, a model without classes, an unknown form, values for names the model
        lacks.

    Examples
    --------
    >>> build_request("w", "mean-number", "alis").facts.connected
    True

    Running time: loading the model and substituting the values.
    """
    from symq.models.arguments import (check_choice, check_count, check_optional_count,
                                       check_text, check_values)
    from symq.models.catalog import as_model
    check_text(quantity, "quantity")
    check_text(discipline, "discipline")
    check_choice(form, "form", ("structured", "expression"))
    values = check_values(values, "values")
    digits = check_count(digits, "digits", 1, 100_000)
    max_work = check_optional_count(max_work, "max_work", 0)
    if exact not in (None, True, False):
        raise ModelError(f"exact must be True, False or None, not {exact!r}")
    base = model = as_model(model)
    if values:
        model = _with_values(model, values)
    if model.is_empty:
        raise ModelError("the model has no class; give it at least one class and server")
    if form not in ("structured", "expression"):
        raise ModelError(f"unknown form {form!r}; available: structured, expression")
    what = what or f"{quantity} of model {model.name or 'given'} ({discipline})"
    request = Request(model, quantity, discipline, exact=exact, form=form, digits=digits,
                      method=method, time=time, percentile=percentile,
                      limits=_limits(max_work, no_limits, limits), what=what,
                      base=base if values else None, values=values)
    if wrt is not None:
        _derivative_request(request, wrt, of)
    return request


def _derivative_request(request: Any, wrt: Any, of: Any) -> None:
    model = request.model
    if request.quantity not in NORMALIZATION:
        raise ModelError(f"no derivatives of {request.quantity}; available: "
                         f"{', '.join(NORMALIZATION)}")
    names = None if wrt in ("all", True) else [wrt] if isinstance(wrt, str) else list(wrt)
    if names is not None and not names:
        raise ModelError("wrt: name at least one rate (or wrt='all')")
    labels = None if of is None else [of] if isinstance(of, str) else list(of)
    per_output = {"server-idle-probability": len(model.servers),
                  "mean-number": len(model.classes) + 1,
                  "mean-response-time": len(model.classes) + 1}.get(request.quantity, 1)
    request.derivatives = True
    request.wrt, request.labels = names, labels
    request.outputs = len(labels) if labels else per_output
    base = request.base or model
    request.rates = len(names) if names is not None else len(base.symbols) or (
        len(model.classes) + len(model.servers))


def _with_values(model: Model, values: Mapping[str, Any]) -> Model:
    from symq.models.rates import check_names, value_names
    values = value_names(values)
    check_names(values, model.symbols, "the model")
    return model.substitute(values)
