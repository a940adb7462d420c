r"""The route table: the one place that decides which engine answers a request and in which
arithmetic. A *request* is a model, a quantity, a discipline and an arithmetic; a *route* is one
row of :data:`ROUTES`: its name, the quantities and disciplines it serves, the arithmetics it
computes in, a test ``applies(model, discipline) -> None | reason``, the work estimate checked
before it starts (the limit of :mod:`symq.limits` it counts against) and the engine function that
computes, imported on use. Rows are tried in order; ``method=NAME`` picks one row by name, and a
row that does not apply says why. The command line, :func:`symq.solve`, the report, the pictures
and the per-quantity functions all select through :func:`select`; ``symq routes`` prints the
table.

The arithmetics: ``structured`` (symbolic rates, the named definitions of
:mod:`symq.engines.formulas`), ``symbolic`` (one sympy expression in the rates), ``exact``
(rationals), ``interval`` (certified digits by the fixed-point interval kernels) and ``ball``
(certified digits by the DPs on python-flint balls). :func:`arithmetic_for` chooses one for a
request: symbolic rates give ``structured`` (or ``symbolic`` when one expression is asked for),
numeric rates ``exact`` where it is cheap or asked for, else the certified arithmetics.

Examples
--------
>>> from symq import example_model, model
>>> select(model("w"), "empty-probability", "alis", "structured").name
'formulas'
>>> select(example_model("w"), "mean-number", "alis", "exact").name
'subset-dp'
>>> select(model("uninformed:2"), "empty-probability", "rais", "symbolic").name
'uninformed'
>>> select(model("n"), "mean-number", "alis", "exact", method="ring")
Traceback (most recent call last):
    ...
symq.errors.ModelError: method 'ring' does not apply: it serves the collaborative discipline, not alis
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from symq.errors import ModelError, UnsupportedError
from symq.models.model import DISCIPLINES, Model

__all__ = ["Route", "ROUTES", "DISCIPLINES", "ARITHMETICS", "NORMALIZATION", "RESPONSE_TIME",
           "QUANTITIES", "select", "arithmetic_for", "gradient_arithmetic", "route_named",
           "table_rows"]

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

_RAIS_ROUTING = ("; routing: canonical (arriving jobs go to the server idle longest under ALIS, "
                 "Thm 3.10)")


@dataclass(frozen=True)
class Route:
    """One row of the route table.

    ``applies(model, discipline)`` returns ``None`` when the route serves the model, else the
    reason it does not; ``estimate(model, quantity, discipline, arithmetic, limit_of)`` returns
    ``(limit name, work)`` for :func:`symq.limits.check` (``limit_of(name)`` is the limit in
    force, ``None`` for none; an estimate that counts stops past it and returns ``work=None``); ``compute`` is ``"module:function"``,
    imported on use; ``describe(model, quantity, discipline)`` is the sentence that ``--json``
    prints as ``method``, with the canonical RAIS routing named under ``rais`` unless
    ``canonical_routing`` is false (Cabral's one class is assigned uniformly). ``forced`` rows
    are tried only when ``method=`` names them. ``derivatives`` rows answer requests for partial
    derivatives (``wrt=`` of :func:`symq.solve`, ``--gradient``/``--wrt``) and only those; their
    estimates also take the request's ``outputs`` and ``wrt`` counts.
    """

    name: str
    quantities: tuple[str, ...]
    disciplines: tuple[str, ...]
    arithmetics: tuple[str, ...]
    applies: Callable[[Model, str], str | None]
    estimate: Callable[..., tuple[str, int | None]]
    compute: str
    summary: str
    describe: Callable[[Model, str, str], str] | None = None
    forced: bool = False
    canonical_routing: bool = True
    derivatives: bool = False

    def function(self) -> Callable[..., Any]:
        """The engine function of the route (imported now)."""
        module, _, name = self.compute.partition(":")
        return getattr(importlib.import_module(module), name)

    def method(self, model: Model, quantity: str, discipline: str) -> str:
        """The sentence naming the algorithm and its theorem (the JSON ``method``)."""
        text = self.describe(model, quantity, discipline) if self.describe else self.summary
        return text + (_RAIS_ROUTING if discipline == "rais" and "routing" not in text
                       and self.canonical_routing else "")

    def refusal(self, model: Model, quantity: str, discipline: str, arithmetic: str
                ) -> str | None:
        """Why this route does not serve the request, or ``None``."""
        if quantity not in self.quantities:
            return f"it serves {', '.join(self.quantities)}, not {quantity}"
        if discipline not in self.disciplines:
            return f"it serves the {', '.join(self.disciplines)} discipline, not {discipline}"
        if arithmetic not in self.arithmetics and not (arithmetic == "structured"
                                                       and "symbolic" in self.arithmetics):
            # a request for a structured formula is also served by one symbolic expression
            if not model.is_numeric and not {"structured", "symbolic"} & set(self.arithmetics):
                return ("it needs numeric rates: give every rate a value (--set NAME=VALUE, "
                        "or values= in Python)")
            return f"it computes in {', '.join(self.arithmetics)} arithmetic, not {arithmetic}"
        return self.applies(model, discipline)


# ------------------------------------------------------------------------- applies tests
def _always(model: Model, discipline: str) -> str | None:
    return None


def _structure(model: Model, discipline: str) -> str:
    from symq.engines.normalization.entry import structure_route
    return structure_route(model, discipline)


def _structure_is(name: str, why: str) -> Callable[[Model, str], str | None]:
    def applies(model: Model, discipline: str) -> str | None:
        return None if _structure(model, discipline) == name else why
    applies.__name__ = f"applies_{name.replace('-', '_')}"
    return applies


def _forced_structure(name: str, test: Callable[[Model], bool], why: str
                      ) -> Callable[[Model, str], str | None]:
    """A structural route: by default where the model's structure picks it
    (:func:`symq.engines.normalization.entry.structure_route`), and when forced by ``method=``
    wherever its own test holds."""
    def applies(model: Model, discipline: str) -> str | None:
        return None if test(model) else why
    applies.__name__ = f"applies_{name.replace('-', '_')}"
    return applies


def _uninformed(model: Model, discipline: str) -> str | None:
    from symq.studies.uninformed import is_uninformed
    return None if is_uninformed(model) else ("it needs one class compatible with every server "
                                              "(uninformed:N)")


def _nested_response(model: Model, discipline: str) -> str | None:
    from symq.engines.aggregated import response_time_applies
    if response_time_applies(model, discipline):
        return None
    return ("it needs a nested model (collaborative) or, for ALIS/RAIS, at most 6 servers with "
            "one service rate per class")


def _redundancy(model: Model) -> bool:
    from symq.engines.normalization.structured import is_symmetric_redundancy
    return is_symmetric_redundancy(model)


def _nested(model: Model) -> bool:
    from symq.engines.nested import is_nested
    return is_nested(model)


def _ring(model: Model) -> bool:
    from symq.engines.normalization.ring import is_ring
    return is_ring(model)


def _interval(model: Model, discipline: str) -> str | None:
    from symq.engines.normalization.certified import interval_route
    return None if interval_route(model, discipline, "auto") else (
        "no component is solved by the general subset DP within the kernels' size (62 servers "
        "collaborative, 26 ALIS/RAIS), or a rate is not rational")


def _numeric(model: Model, discipline: str) -> str | None:
    return None if model.is_numeric else "it needs numeric rates"


# ------------------------------------------------------------------------- estimates
def _dp_estimate(model: Model, quantity: str, discipline: str, arithmetic: str,
                 limit_of: Callable[[str], int | None] | None = None, **request: Any
                 ) -> tuple[str, int | None]:
    from symq.queries.estimates import subset_dp_steps
    name = {"exact": "dp-steps", "interval": "certified-steps", "ball": "certified-steps"}.get(
        arithmetic, "symbolic-dp-steps")
    return name, subset_dp_steps(model, discipline, cap=limit_of(name) if limit_of else None)


def _formula_estimate(model: Model, quantity: str, discipline: str, arithmetic: str,
                      limit_of: Callable[[str], int | None] | None = None, **request: Any
                      ) -> tuple[str, int | None]:
    """The structured builder's definitions times their width (it builds the general DP's
    definitions even where a structural route answers numerically)."""
    from symq.queries.estimates import formula_steps
    return "formula-steps", formula_steps(model, quantity, discipline,
                                          cap=limit_of("formula-steps") if limit_of else None)


def _uninformed_estimate(model: Model, quantity: str, discipline: str, arithmetic: str,
                         limit_of: Callable[[str], int | None] | None = None, **request: Any
                         ) -> tuple[str, int | None]:
    """Cabral's closed forms: O(n^2) numerically, the 2^n monomials of the symmetric sums
    symbolically."""
    from symq.queries.estimates import uninformed_steps
    return ("dp-steps" if model.is_numeric else "formula-steps"), uninformed_steps(model,
                                                                                   quantity)


def _closed_form_estimate(model: Model, quantity: str, discipline: str, arithmetic: str,
                          limit_of: Callable[[str], int | None] | None = None, **request: Any
                          ) -> tuple[str, int | None]:
    width = len(model.classes) + len(model.servers)
    return "dp-steps", width * width


def _tagged_estimate(model: Model, quantity: str, discipline: str, arithmetic: str,
                     limit_of: Callable[[str], int | None] | None = None, **request: Any
                     ) -> tuple[str, int | None]:
    """The tagged-job DPs visit every server set once per class (the mixture's size); with
    symbolic rates the structured transform costs as much (``dp-steps``), the laws multiplied
    out the terms of the mean and variance (``expanded-terms``)."""
    width = len(model.classes) + len(model.servers)
    steps = (1 << len(model.servers)) * width * len(model.classes)
    if model.is_numeric or arithmetic == "structured":
        return "dp-steps", steps
    from symq.engines.response_time.structured import transform_formula
    kind = "response" if quantity.startswith("response") else "waiting"
    return "expanded-terms", transform_formula(model, kind, discipline).moments().expanded_size()


def _reverse_mode_estimate(model: Model, quantity: str, discipline: str, arithmetic: str,
                           limit_of: Callable[[str], int | None] | None = None,
                           outputs: int = 1, **request: Any) -> tuple[str, int | None]:
    """The subset DP recorded on the tape, then one backward sweep per output: on balls the
    DP's steps once plus once per output (``certified-steps``, about a microsecond each: a
    random 20-server ALIS graph, 4.2e+07 steps, takes 53 s of CPU for the total's gradient);
    exact, three times the steps per output (``dp-steps``: the rationals grow along the sweep)."""
    from symq.queries.estimates import subset_dp_steps
    name = "dp-steps" if arithmetic == "exact" else "certified-steps"
    per = 3 * max(outputs, 1) if arithmetic == "exact" else 1 + max(outputs, 1)
    cap = limit_of(name) if limit_of else None
    steps = subset_dp_steps(model, discipline, cap=None if cap is None else cap // per + 1)
    return name, None if steps is None else per * steps


def _derivative_formula_estimate(model: Model, quantity: str, discipline: str, arithmetic: str,
                                 limit_of: Callable[[str], int | None] | None = None,
                                 wrt: int = 1, **request: Any) -> tuple[str, int | None]:
    """The quantity's definitions, then a few terms more per definition and rate (the chain
    rule adds one short definition per definition that depends on the rate)."""
    from symq.queries.estimates import formula_steps
    per = 1 + max(wrt, 1)
    cap = limit_of("formula-steps") if limit_of else None
    steps = formula_steps(model, quantity, discipline,
                          cap=None if cap is None else cap // per + 1)
    return "formula-steps", None if steps is None else per * steps


# ------------------------------------------------------------------------- descriptions
def _subset_dp_text(model: Model, quantity: str, discipline: str) -> str:
    if discipline == "collaborative":
        return ("subset DP over unions of class server sets (exact-cover weights H; Prop 6.2, "
                "corrected Prop 6.3)")
    if discipline == "alis":
        return ("subset DP: idle-order weights W and collaborative weights H (Thm 3.9"
                + ("; in-service means from the matching rates)" if quantity.startswith("mean")
                   else ")"))
    return "subset DP: busy-set law Phi(B) D(B) (Thm 3.10)"


def _formulas_text(model: Model, quantity: str, discipline: str) -> str:
    if _redundancy(model):
        return ("structured formulas: redundancy:K:D symmetry, one name per orbit of server sets; "
                "the definitions of the " + _subset_dp_text(model, quantity, discipline))
    if discipline == "collaborative" and _nested(model):
        return ("structured formulas: nested closed form through the nesting tree (Thm 4.5, "
                "prod(1 - rho_S), Little's law)")
    return "structured formulas: the definitions of the " + _subset_dp_text(model, quantity,
                                                                            discipline)


def _uninformed_text(model: Model, quantity: str, discipline: str) -> str:
    from symq.studies.uninformed import QUANTITY_HANDLERS
    return QUANTITY_HANDLERS[quantity][1]


def _tagged_text(model: Model, quantity: str, discipline: str) -> str:
    from symq.queries.response_time import METHODS
    return METHODS[discipline]


def _nested_response_text(model: Model, quantity: str, discipline: str) -> str:
    if discipline == "collaborative":
        return "nested: independent sum of exponentials (Thm 4.5, Cor 4.4)"
    return ("wait: mixture over ordered busy servers of hypoexponentials (Thm 5.4 corrected, "
            "theory-subset-dp §2.4) plus Exp(mu) service (Cor 4.8)"
            + ("; routing: canonical (ALIS-averaged, theory-subset-dp §1.3)"
               if discipline == "rais" else ""))


_EXACT = ("symbolic", "exact")
_ALL = DISCIPLINES
_NZ = "symq.queries.compute"

#: the route table, in priority order (see the module docstring)
ROUTES: tuple[Route, ...] = (
    Route("uninformed", NORMALIZATION, ("rais",), _EXACT, _uninformed, _uninformed_estimate,
          f"{_NZ}:uninformed", "Cabral's closed forms through P(S, k) (one fully flexible class)",
          _uninformed_text, canonical_routing=False),
    Route("nested-response-time", ("response-time",), _ALL, ("symbolic",), _nested_response,
          _closed_form_estimate, f"{_NZ}:nested_response_time",
          "sum or mixture of exponentials (Thm 4.5, Cor 4.4, Cor 4.8)", _nested_response_text),
    Route("tagged-job", RESPONSE_TIME, _ALL, _EXACT + ("structured",), _always, _tagged_estimate,
          f"{_NZ}:tagged_job", "tagged-job laws: exact rational transforms", _tagged_text),
    Route("formulas", NORMALIZATION, _ALL, ("structured",), _always, _formula_estimate,
          f"{_NZ}:formulas", "structured formulas: named definitions, then the quantity",
          _formulas_text),
    Route("components", NORMALIZATION, _ALL, _EXACT,
          _structure_is("components", "the compatibility graph is connected"), _dp_estimate,
          f"{_NZ}:structural", "product over the connected components of the compatibility "
          "graph, each by its own route"),
    Route("redundancy", NORMALIZATION, _ALL, _EXACT,
          _forced_structure("redundancy", _redundancy, "it needs a redundancy:K:D model (every "
                            "D-subset of the servers one class, equal rates)"),
          _closed_form_estimate, f"{_NZ}:structural",
          "redundancy:K:D symmetry: recursion over the number of busy servers"),
    Route("nested", NORMALIZATION, ("collaborative",), _EXACT,
          _forced_structure("nested", _nested, "it needs a nested model (laminar server sets)"),
          _closed_form_estimate, f"{_NZ}:structural",
          "nested closed form through the nesting tree (Thm 4.5, prod(1 - rho_S), Little's law)"),
    Route("ring", NORMALIZATION, ("collaborative",), _EXACT,
          _forced_structure("ring", _ring, "it needs a ring (class i compatible with servers i "
                            "and i+1 mod M)"),
          _closed_form_estimate, f"{_NZ}:structural",
          "ring: arc weights and a transfer sum along the cycle, O(M^3) (docs/quantities.md "
          "Rings; Prop 6.2 for idle, adjoint pass for the mean numbers)"),
    Route("server-removal", NORMALIZATION, ("collaborative",), _EXACT, _always, _dp_estimate,
          f"{_NZ}:structural", "server-removal recursion over class sets (Prop 6.2, corrected "
          "Prop 6.3)", forced=True),
    Route("subset-dp", NORMALIZATION, _ALL, _EXACT, _always, _dp_estimate,
          f"{_NZ}:structural", "subset DP of the discipline", _subset_dp_text),
    Route("interval", NORMALIZATION, _ALL, ("interval",), _interval, _dp_estimate,
          f"{_NZ}:certified", "certified digits: the subset DPs on fixed-point integer "
          "intervals, rounded down and up (structured components by balls)"),
    Route("ball", NORMALIZATION, _ALL, ("ball",), _numeric, _dp_estimate,
          f"{_NZ}:certified", "certified digits: the DPs of the structure on python-flint arb "
          "balls, precision raised until every digit is certified"),
    # partial derivatives (wrt=): symbolic rates get formulas, numeric rates numbers
    Route("derivative-formulas", NORMALIZATION, _ALL, ("structured",), _always,
          _derivative_formula_estimate, f"{_NZ}:derivative_formulas",
          "derivative formulas: the chain rule through the named definitions of the structured "
          "formula, one short definition per definition and rate", derivatives=True),
    Route("reverse-mode", NORMALIZATION, _ALL, ("exact", "ball"), _numeric,
          _reverse_mode_estimate, f"{_NZ}:reverse_mode",
          "reverse-mode differentiation of the subset DP: its operations recorded, one backward "
          "sweep per output, in exact rationals or on arb balls raised until certified",
          derivatives=True),
)


def route_named(name: str) -> Route:
    """The row called ``name``.

    Parameters
    ----------
    name : str
        A route name (``symq routes``).

    Returns
    -------
    Route

    Raises
    ------
    ModelError
        An unknown route, with the names there are.

    Examples
    --------
    >>> route_named("ring").disciplines
    ('collaborative',)

    Running time: O(number of rows).
    """
    for route in ROUTES:
        if route.name == name:
            return route
    raise ModelError(f"unknown method {name!r}; available: auto, "
                     + ", ".join(r.name for r in ROUTES))


def _structural_default(route: Route, model: Model, discipline: str) -> str | None:
    """For the structural rows chosen automatically: does the structure pick this one?"""
    if route.name in ("redundancy", "nested", "ring", "subset-dp"):
        picked = _structure(model, discipline)
        if picked != route.name:
            return f"the model's structure picks {picked!r}"
    return None


def select(model: Model, quantity: str, discipline: str, arithmetic: str,
           method: str = "auto", derivatives: bool = False) -> Route:
    """The route that answers the request: the first row that serves it, or the row named by
    ``method``.

    Parameters
    ----------
    model : Model
        The model (its structure is tested by the rows).
    quantity : str
        A name of :data:`QUANTITIES`.
    discipline : str
        One of :data:`DISCIPLINES`.
    arithmetic : str
        One of :data:`ARITHMETICS` (see :func:`arithmetic_for`).
    method : str
        ``"auto"`` or the name of a row.
    derivatives : bool
        A request for partial derivatives: only the ``derivatives`` rows serve it.

    Returns
    -------
    Route

    Raises
    ------
    ModelError
        An unknown quantity, discipline or method, or a forced method that does not apply
        (the message says why).
    UnsupportedError
        No row serves the request.

    Examples
    --------
    >>> from symq import example_model
    >>> select(example_model("n"), "mean-number", "collaborative", "exact").name
    'nested'
    >>> select(example_model("n"), "mean-number", "collaborative", "exact", "subset-dp").name
    'subset-dp'
    >>> select(example_model("n"), "mean-number", "alis", "ball", derivatives=True).name
    'reverse-mode'

    Running time: the rows' ``applies`` tests, O(J M) each (the structure test counts at most
    a few thousand unions).
    """
    if quantity not in QUANTITIES:
        raise ModelError(f"unknown quantity {quantity!r}; available: {', '.join(QUANTITIES)}")
    if discipline not in DISCIPLINES:
        raise ModelError(f"unknown discipline {discipline!r}; available: {', '.join(DISCIPLINES)}")
    if arithmetic not in ARITHMETICS:
        raise ModelError(f"unknown arithmetic {arithmetic!r}; available: {', '.join(ARITHMETICS)}")
    if method != "auto":
        route = route_named(method)
        why = route.refusal(model, quantity, discipline, arithmetic)
        if route.derivatives != derivatives:
            why = ("it computes partial derivatives (ask with --gradient or --wrt)"
                   if route.derivatives else "it computes values, not partial derivatives")
        if why is None:
            return route
        raise ModelError(f"method {method!r} does not apply: {why}")
    for route in ROUTES:
        if route.forced or route.derivatives != derivatives:
            continue
        why = route.refusal(model, quantity, discipline, arithmetic) or \
            _structural_default(route, model, discipline)
        if why is None:
            return route
    kind = "partial derivatives of " if derivatives else ""
    raise UnsupportedError(f"{kind}{quantity} under discipline {discipline!r} in {arithmetic} "
                           f"arithmetic is not available for model {model.name or 'given'}")


def arithmetic_for(model: Model, quantity: str, discipline: str, exact: bool | None,
                   form: str = "structured") -> str:
    """The arithmetic of a request: ``structured`` or ``symbolic`` (``form="expression"``) for
    symbolic rates; for numeric rates ``exact`` when asked (``exact=True``) or cheap
    (``exact=None``, :func:`symq.engines.normalization.certified.exact_is_cheap`), else
    ``interval`` where the fixed-point kernels serve the model, else ``ball``.

    Parameters
    ----------
    model : Model
        The model (symbolic or numeric rates).
    quantity, discipline : str
        The request.
    exact : bool or None
        Exact (``True``), certified (``False``) or the cheaper (``None``).
    form : str
        ``"structured"`` or ``"expression"`` (symbolic rates only).

    Returns
    -------
    str
        One of :data:`ARITHMETICS`.

    Raises
    ------
    UnsupportedError
        Certified digits (``exact=False``) asked for a symbolic model.

    Examples
    --------
    >>> from symq import example_model, model
    >>> arithmetic_for(model("w"), "mean-number", "alis", None)
    'structured'
    >>> arithmetic_for(example_model("w"), "mean-number", "alis", None)
    'exact'
    >>> arithmetic_for(example_model("w"), "mean-number", "alis", False)
    'interval'

    Running time: that of ``exact_is_cheap`` (at most 2000 unions counted).
    """
    if not model.is_numeric:
        if exact is False:
            raise UnsupportedError("certified digits need numeric rates: give every rate a value")
        if (quantity in NORMALIZATION or quantity in ("response-time", "waiting-time")) and \
                form == "structured":
            return "structured"
        return "symbolic"
    if quantity not in NORMALIZATION or exact is True:
        return "exact"
    from symq.engines.normalization.certified import exact_is_cheap
    if exact is None and exact_is_cheap(model, discipline):
        return "exact"
    return "interval" if _interval(model, discipline) is None else "ball"


def gradient_arithmetic(model: Model, discipline: str, exact: bool | None, outputs: int,
                        dp_limit: int | None) -> str:
    """The arithmetic of a request for partial derivatives: ``structured`` (derivative formulas)
    for symbolic rates; for numeric rates ``exact`` when asked, or when :func:`arithmetic_for`
    picks exact values and the exact sweeps (three times the DP's steps per output) stay within
    ``dp_limit``; else ``ball`` (the derivatives have signs, so the positive fixed-point interval
    kernels do not serve them).

    Parameters
    ----------
    model : Model
        The model (symbolic or numeric rates).
    discipline : str
        The discipline.
    exact : bool or None
        As :func:`arithmetic_for`.
    outputs : int
        The outputs whose derivatives are swept (the total, each class or server).
    dp_limit : int or None
        The ``dp-steps`` limit in force (``None``: none).

    Returns
    -------
    str
        ``"structured"``, ``"exact"`` or ``"ball"``.

    Raises
    ------
    UnsupportedError
        Certified digits (``exact=False``) asked for a symbolic model.

    Examples
    --------
    >>> from symq import example_model, model
    >>> gradient_arithmetic(model("w"), "alis", None, 4, 300000)
    'structured'
    >>> gradient_arithmetic(example_model("w"), "alis", None, 4, 300000)
    'exact'
    >>> gradient_arithmetic(example_model("w"), "alis", False, 4, 300000)
    'ball'

    Running time: that of ``exact_is_cheap`` and one subset-DP count.
    """
    if not model.is_numeric:
        if exact is False:
            raise UnsupportedError("certified digits need numeric rates: give every rate a value")
        return "structured"
    if exact is True:
        return "exact"
    if exact is None and arithmetic_for(model, "mean-number", discipline, None) == "exact":
        from symq.queries.estimates import subset_dp_steps
        steps = subset_dp_steps(model, discipline)
        if steps is None or dp_limit is None or 3 * steps * max(outputs, 1) <= dp_limit:
            return "exact"
    return "ball"


def table_rows() -> list[dict[str, str]]:
    """The table as ``symq routes`` prints it: one dict a row, in priority order.

    Returns
    -------
    list of dict
        ``route``, ``quantities``, ``disciplines``, ``arithmetic``, ``estimate``, ``summary``.

    Examples
    --------
    >>> [row["route"] for row in table_rows()][:3]
    ['uninformed', 'nested-response-time', 'tagged-job']

    Running time: O(number of rows).
    """
    def estimate_name(route: Route) -> str:
        return {"_dp_estimate": "subset-DP steps (dp-steps, certified-steps, symbolic-dp-steps)",
                "_formula_estimate": "definitions x (J + M) (formula-steps)",
                "_uninformed_estimate": "(n + 1)^2 (dp-steps); symbolic: 3 n 2^n, means "
                                        "10 n 2^n (formula-steps)",
                "_closed_form_estimate": "(classes + servers)^2 (dp-steps)",
                "_tagged_estimate": "2^M (J + M) J (dp-steps); symbolic laws: "
                                     "terms of the moments (expanded-terms)",
                "_reverse_mode_estimate": "subset-DP steps x (1 + outputs) (certified-steps); "
                                          "exact: 3 x steps x outputs (dp-steps)",
                "_derivative_formula_estimate": "definitions x (J + M) x (1 + rates) "
                                                "(formula-steps)"}[route.estimate.__name__]
    return [{"route": r.name, "quantities": ", ".join(r.quantities),
             "disciplines": ", ".join(r.disciplines), "arithmetic": ", ".join(r.arithmetics),
             "estimate": estimate_name(r),
             "summary": r.summary + (" (only with --method)" if r.forced else "")
             + (" (derivatives: --gradient, --wrt NAME)" if r.derivatives else "")}
            for r in ROUTES]
