r"""The route table: the algorithms that answer a request, and for each the arithmetics it computes
in. A *row* is one algorithm: its name, the quantities and disciplines it serves, its arithmetics
(``structured``: named definitions for symbolic rates, ``symbolic``: one sympy expression,
``exact``: rationals, ``interval``: certified digits by the fixed-point interval kernels,
``ball``: certified digits on python-flint arb balls), a test ``applies(facts, discipline) ->
None | reason`` on the model's structure facts (:mod:`symq.queries.facts`), and ``work(request,
arithmetic) -> (limit name, count)``: the work it counts, in the unit of a limit of
:mod:`symq.limits`. The planner (:mod:`symq.queries.plan`) turns each count into predicted CPU
seconds with the row's measured constant (:mod:`symq.queries.costs`), runs the cheapest
applicable (row, arithmetic) pair, and checks the limit of the pair that runs. ``method=NAME``
forces a row (``symq routes`` lists them; ``interval`` and ``ball`` force an arithmetic).
Each row's compute function (:mod:`symq.queries.compute`) calls its engine directly.

Examples
--------
>>> from symq import model
>>> route_named("ring").applies_to(model("ring:4"), "collaborative")
>>> route_named("ring").applies_to(model("w"), "collaborative")
'it needs a ring (class i compatible with servers i and i+1 mod M)'
>>> [row["route"] for row in table_rows()][:4]
['uninformed', 'nested-response-time', 'tagged-job', 'formulas']
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass
from typing import Any, Callable

from symq.errors import ModelError
from symq.models.model import DISCIPLINES, Model

__all__ = ["Route", "ROUTES", "DISCIPLINES", "ARITHMETICS", "NORMALIZATION", "RESPONSE_TIME",
           "QUANTITIES", "route_named", "table_rows", "ARITHMETIC_METHODS", "formulas_text",
           "KERNEL_SERVERS"]

from symq.queries.request import (ARITHMETICS, NORMALIZATION, QUANTITIES,  # noqa: E402
                                  RESPONSE_TIME)

#: names of ``method=`` that force an arithmetic rather than a row
ARITHMETIC_METHODS = ("interval", "ball")

_RAIS_ROUTING = ("; routing: canonical (arriving jobs go to the server idle longest under ALIS, "
                 "Thm 3.10)")
#: the largest component the fixed-point interval kernels take (servers)
KERNEL_SERVERS = {"collaborative": 62, "alis": 26, "rais": 26}


@dataclass(frozen=True)
class Route:
    """One row of the route table (module docstring).

    ``applies(facts, discipline)`` returns ``None`` when the algorithm serves the model, else
    why not; ``work(request, arithmetic)`` returns ``(limit name, count)`` (``count`` ``None``:
    counting stopped past the limit); ``compute`` is ``"module:function"``, imported on use;
    ``describe(request)`` is the sentence that ``--json`` prints as ``method``. ``forced`` rows
    run only when ``method=`` names them. ``derivatives`` rows answer requests for partial
    derivatives (``wrt=``) and only those. ``unit`` says what ``work`` counts (``symq
    routes``).
    """

    name: str
    quantities: tuple[str, ...]
    disciplines: tuple[str, ...]
    arithmetics: tuple[str, ...]
    applies: Callable[[Any, str], str | None]
    work: Callable[[Any, str], tuple[str, int | None]]
    compute: str
    summary: str
    unit: str
    describe: Callable[[Any], str] | None = None
    forced: bool = False
    canonical_routing: bool = True
    derivatives: bool = False

    def function(self) -> Callable[..., Any]:
        """The compute function of the row (imported now)."""
        module, _, name = self.compute.partition(":")
        return getattr(importlib.import_module(module), name)

    def method_text(self, request: Any) -> str:
        """The sentence naming the algorithm and its theorem (the JSON ``method``)."""
        text = self.describe(request) if self.describe else self.summary
        return text + (_RAIS_ROUTING if request.discipline == "rais" and "routing" not in text
                       and self.canonical_routing else "")

    def applies_to(self, model: Model, discipline: str) -> str | None:
        """Why the algorithm does not serve ``model`` under ``discipline``, or ``None``."""
        from symq.queries.facts import facts_of
        if discipline not in self.disciplines:
            return f"it serves the {', '.join(self.disciplines)} discipline, not {discipline}"
        return self.applies(facts_of(model), discipline)

    def refusal(self, model: Model, quantity: str, discipline: str, arithmetic: str
                ) -> str | None:
        """Why this row does not serve the request, or ``None``."""
        if quantity not in self.quantities:
            return f"it serves {', '.join(self.quantities)}, not {quantity}"
        if discipline not in self.disciplines:
            return f"it serves the {', '.join(self.disciplines)} discipline, not {discipline}"
        if arithmetic not in self.arithmetics:
            if model.is_numeric == (arithmetic in ("structured", "symbolic")) or \
                    not set(self.arithmetics) & ({"exact", "interval", "ball"} if model.is_numeric
                                                 else {"structured", "symbolic"}):
                if not model.is_numeric:
                    return ("it needs numeric rates: give every rate a value (--set NAME=VALUE, "
                            "or values= in Python)")
                return "it needs symbolic rates"
            return f"it computes in {', '.join(self.arithmetics)} arithmetic, not {arithmetic}"
        return self.applies_to(model, discipline)

    def estimate(self, model: Model, quantity: str, discipline: str, arithmetic: str,
                 limit_of: Callable[[str], int | None] | None = None, **request: Any
                 ) -> tuple[str, int | None]:
        """``(limit name, work)`` of this row on a request (the planner's count; ``limit_of``
        is accepted for old callers, the request's own limits apply)."""
        from symq.queries.request import Request
        return self.work(Request(model, quantity, discipline, **request), arithmetic)


# ------------------------------------------------------------------------- applies tests
def _always(facts: Any, discipline: str) -> str | None:
    return None


def _needs(test: Callable[[Any], bool], why: str) -> Callable[[Any, str], str | None]:
    def applies(facts: Any, discipline: str) -> str | None:
        return None if test(facts) else why
    return applies


def _uninformed(facts: Any, discipline: str) -> str | None:
    return None if facts.uninformed else ("it needs one class compatible with every server "
                                          "(uninformed:N)")


def _nested_response(facts: Any, discipline: str) -> str | None:
    from symq.engines.aggregated import response_time_applies
    if response_time_applies(facts.model, discipline):
        return None
    return ("it needs a nested model (collaborative) or, for ALIS/RAIS, at most 6 servers with "
            "one service rate per class")


def _components(facts: Any, discipline: str) -> str | None:
    return None if not facts.connected else "the compatibility graph is connected"


# ------------------------------------------------------------------------- work counts
def _width(facts: Any) -> int:
    return facts.classes + facts.servers


def subset_dp_count(facts: Any, discipline: str, quantity: str, cap: int | None = None
                    ) -> int | None:
    r"""Steps of the general subset DP of the discipline: unions of class server sets times
    $(J + M)$, plus all $2^M$ server sets times $(J + M)$ under ALIS and RAIS; RAIS mean numbers
    run one busy-set table per class ($J 2^M M$). ``None`` past ``cap``."""
    width = facts.classes + facts.servers
    extra = 0
    if discipline != "collaborative":
        if facts.servers > 62:
            return None
        extra = (1 << facts.servers) * width
        if quantity in ("mean-number", "mean-response-time") and discipline == "rais":
            extra *= max(1, facts.classes // 2)
    unions = facts.unions(None if cap is None else cap // width + 1)
    if unions is None:
        return None
    return unions * width + extra


def compiled_kernels(facts: Any) -> bool:
    """Whether the compiled fixed-point kernels take the model: numba present and every rate's
    numerator and denominator within 31 bits (larger ones fall back to the Python kernels)."""
    from symq.engines.normalization.limbs import available
    return facts.rational and facts.rate_bits <= 30 and available()


def _subset_dp_work(request: Any, arithmetic: str) -> tuple[str, int | None]:
    name = {"exact": "dp-steps", "interval": "certified-steps", "ball": "certified-steps"}.get(
        arithmetic, "symbolic-dp-steps")
    if arithmetic == "interval" and request.discipline != "collaborative" and \
            compiled_kernels(request.facts):  # measured on ALIS/RAIS: a few ns a step
        name = "kernel-steps"
    cap = request.limit_of(name)
    count = subset_dp_count(request.facts, request.discipline, request.quantity,
                            None if cap is None else cap * 4)
    return name, count


def _closed_form_work(request: Any, arithmetic: str) -> tuple[str, int | None]:
    """Nested tree and redundancy recursion: O((J + M)^2) operations."""
    width = _width(request.facts)
    name = "dp-steps" if request.numeric else "formula-steps"
    return name, width * width


def _ring_work(request: Any, arithmetic: str) -> tuple[str, int | None]:
    r"""The ring's transfer sum: $O(M^3)$ operations on numbers; with symbolic rates every
    operation is on a rational function whose size grows geometrically with $M$ (ring:3 mean
    numbers as one expression: about 30 s)."""
    m = request.facts.servers
    if request.numeric:
        return "dp-steps", m ** 3
    return "formula-steps", int(m ** 3 * 6.0 ** m)


def _server_removal_work(request: Any, arithmetic: str) -> tuple[str, int | None]:
    """The memoized recursion over class sets: every subset of the classes, once per class."""
    j = request.facts.classes
    name = "dp-steps" if request.numeric else "symbolic-dp-steps"
    from symq.queries.estimates import capped_power
    return name, capped_power(2, j) * max(j, 1)


def _uninformed_work(request: Any, arithmetic: str) -> tuple[str, int | None]:
    from symq.queries.estimates import uninformed_steps
    return ("dp-steps" if request.numeric else "formula-steps"), uninformed_steps(
        request.model, request.quantity)


def _formula_work(request: Any, arithmetic: str) -> tuple[str, int | None]:
    """The structured builder's definitions times their width; one expression (``symbolic``)
    also multiplies them out (the terms of the expanded result)."""
    from symq.queries.estimates import formula_steps
    cap = request.limit_of("formula-steps")
    steps = formula_steps(request.model, request.quantity, request.discipline,
                          cap=None if cap is None else 4 * cap)
    if arithmetic == "structured" or steps is None:
        return "formula-steps", steps
    return "formula-steps", steps * (1 + request.facts.servers) ** 2


def _nested_response_work(request: Any, arithmetic: str) -> tuple[str, int | None]:
    r"""The laws as sums (collaborative: the nesting tree's depth $d$ exponentials per class,
    $d^2$ terms of partial fractions) or mixtures over ordered busy servers (ALIS/RAIS: about
    $e\,M!$ orders); with symbolic rates each term is a rational function whose partial
    fractions grow with its degree (``symbolic``: cubed)."""
    facts = request.facts
    if request.discipline == "collaborative":
        from symq.engines.nested import nesting_tree
        import networkx as nx
        tree = nesting_tree(request.model)
        depth = 1 + (nx.dag_longest_path_length(tree) if tree.number_of_nodes() else 0)
        terms = facts.classes * depth * depth
        degree = depth
    else:
        terms = facts.classes * int(math.e * math.factorial(facts.servers))
        degree = facts.servers
    name = "dp-steps" if request.numeric else "formula-steps"
    return name, terms * (1 if request.numeric else 4 * degree ** 3)


def _tagged_work(request: Any, arithmetic: str) -> tuple[str, int | None]:
    """The tagged-job DPs visit every server set once per class; the laws' transforms cost about
    as much (``dp-steps``); with symbolic rates as one expression, the terms of the moments
    multiplied out (``expanded-terms``)."""
    facts = request.facts
    steps = (1 << facts.servers) * _width(facts) * facts.classes
    if request.numeric or arithmetic == "structured":
        return ("dp-steps" if request.numeric else "formula-steps"), steps
    from symq.engines.response_time.structured import transform_formula
    kind = "response" if request.quantity.startswith("response") else "waiting"
    return "expanded-terms", transform_formula(request.model, kind,
                                               request.discipline).moments().expanded_size()


def _components_work(request: Any, arithmetic: str) -> tuple[str, int | None]:
    """The sum of the work of each component's own cheapest route: the components' plans,
    made by the planner before it prices this row (:func:`symq.queries.plan.component_plans`)."""
    plans = request.extra.get(("component_plans", arithmetic))
    if not plans:
        return "dp-steps", None
    total = 0
    for p in plans:
        if p.chosen.work is None:
            return p.chosen.limit, None
        total += p.chosen.work
    return plans[0].chosen.limit, total


def _reverse_mode_work(request: Any, arithmetic: str) -> tuple[str, int | None]:
    """The subset DP recorded on the tape, then one backward sweep per output: on balls the
    DP's steps once plus once per output (``certified-steps``); exact, three times the steps per
    output (``dp-steps``: the rationals grow along the sweep)."""
    name = "dp-steps" if arithmetic == "exact" else "certified-steps"
    per = 3 * max(request.outputs, 1) if arithmetic == "exact" else 1 + max(request.outputs, 1)
    cap = request.limit_of(name)
    steps = subset_dp_count(request.facts, request.discipline, request.quantity,
                            None if cap is None else cap // per + 1)
    return name, None if steps is None else per * steps


def _derivative_formula_work(request: Any, arithmetic: str) -> tuple[str, int | None]:
    """The quantity's definitions, then a few terms more per definition and rate."""
    from symq.queries.estimates import formula_steps
    per = 1 + max(request.rates, 1)
    cap = request.limit_of("formula-steps")
    steps = formula_steps(request.model, request.quantity, request.discipline,
                          cap=None if cap is None else cap // per + 1)
    return "formula-steps", None if steps is None else per * steps


# ------------------------------------------------------------------------- descriptions
def _subset_dp_text(request: Any) -> str:
    quantity, discipline = request.quantity, request.discipline
    if discipline == "collaborative":
        return ("subset DP over unions of class server sets (exact-cover weights H; Prop 6.2, "
                "corrected Prop 6.3)")
    if discipline == "alis":
        return ("subset DP: idle-order weights W and collaborative weights H (Thm 3.9"
                + ("; in-service means from the matching rates)" if quantity.startswith("mean")
                   else ")"))
    return "subset DP: busy-set law Phi(B) D(B) (Thm 3.10)"


def _uninformed_text(request: Any) -> str:
    from symq.studies.uninformed import QUANTITY_HANDLERS
    return QUANTITY_HANDLERS[request.quantity][1]


def _tagged_text(request: Any) -> str:
    from symq.queries.response_time import METHODS
    return METHODS[request.discipline]


def _nested_response_text(request: Any) -> str:
    if request.discipline == "collaborative":
        return "nested: independent sum of exponentials (Thm 4.5, Cor 4.4)"
    return ("wait: mixture over ordered busy servers of hypoexponentials (Thm 5.4 corrected, "
            "theory-subset-dp §2.4) plus Exp(mu) service (Cor 4.8)"
            + ("; routing: canonical (ALIS-averaged, theory-subset-dp §1.3)"
               if request.discipline == "rais" else ""))


def formulas_text(builder: str, request: Any) -> str:
    """The method sentence of a structured formula made by ``builder`` (``nested``,
    ``components``, ``orbits`` or ``subset-dp``: :attr:`symq.engines.formulas.Structured.builder`).

    Parameters
    ----------
    builder : str
    request : Request
        Its quantity and discipline.

    Returns
    -------
    str

    Examples
    --------
    >>> from symq import model
    >>> from symq.queries.request import Request
    >>> formulas_text("nested", Request(model("n"), "mean-number"))[:40]
    'structured formulas: nested closed form '

    Running time: O(1).
    """
    if builder == "nested":
        return ("structured formulas: nested closed form through the nesting tree (Thm 4.5, "
                "prod(1 - rho_S), Little's law)")
    if builder == "components":
        return ("structured formulas: product over the connected components, each by the "
                "definitions of the " + _subset_dp_text(request))
    if builder == "orbits":
        return ("structured formulas: redundancy:K:D symmetry, one name per orbit of server sets; "
                "the definitions of the " + _subset_dp_text(request))
    return "structured formulas: the definitions of the " + _subset_dp_text(request)


def _formulas_describe(request: Any) -> str:
    from symq.engines.formulas.build import builder_kind
    return formulas_text(builder_kind(request.model, request.discipline), request)


_EXACT = ("symbolic", "exact")
_CERTIFIED = ("interval", "ball")
_ALL = DISCIPLINES
_NZ = "symq.queries.compute"

#: the route table (see the module docstring); the order breaks ties of predicted cost
ROUTES: tuple[Route, ...] = (
    Route("uninformed", NORMALIZATION, ("rais",), _EXACT, _uninformed, _uninformed_work,
          f"{_NZ}:uninformed", "Cabral's closed forms through P(S, k) (one fully flexible class)",
          "(n + 1)^2; symbolic: 3 n 2^n, means 10 n 2^n", _uninformed_text,
          canonical_routing=False),
    Route("nested-response-time", ("response-time",), _ALL, ("symbolic",),
          _nested_response, _nested_response_work, f"{_NZ}:nested_response_time",
          "sum or mixture of exponentials (Thm 4.5, Cor 4.4, Cor 4.8)",
          "classes x depth^2 (nested) or classes x e M! (ALIS/RAIS); symbolic: x 4 degree^3",
          _nested_response_text),
    Route("tagged-job", RESPONSE_TIME, _ALL, ("structured", "symbolic", "exact"), _always,
          _tagged_work, f"{_NZ}:tagged_job", "tagged-job laws: exact rational transforms",
          "2^M (J + M) J; symbolic laws: terms of the moments", _tagged_text),
    Route("formulas", NORMALIZATION, _ALL, ("structured", "symbolic"), _always, _formula_work,
          f"{_NZ}:formulas", "structured formulas: named definitions, then the quantity",
          "definitions x (J + M); one expression: x (M + 1)^2", _formulas_describe),
    Route("components", NORMALIZATION, _ALL, _EXACT + _CERTIFIED, _components,
          _components_work, f"{_NZ}:components", "product over the connected components of the "
          "compatibility graph, each by its own cheapest route", "sum over the components"),
    Route("redundancy", NORMALIZATION, _ALL, _EXACT + ("ball",),
          _needs(lambda f: f.redundancy, "it needs a redundancy:K:D model (every D-subset of the "
                 "servers one class, equal rates)"), _closed_form_work, f"{_NZ}:redundancy",
          "redundancy:K:D symmetry: recursion over the number of busy servers", "(J + M)^2"),
    Route("nested", NORMALIZATION, ("collaborative",), _EXACT + ("ball",),
          _needs(lambda f: f.nested, "it needs a nested model (laminar server sets)"),
          _closed_form_work, f"{_NZ}:nested",
          "nested closed form through the nesting tree (Thm 4.5, prod(1 - rho_S), Little's law)",
          "(J + M)^2"),
    Route("ring", NORMALIZATION, ("collaborative",), _EXACT + ("ball",),
          _needs(lambda f: f.ring, "it needs a ring (class i compatible with servers i and "
                 "i+1 mod M)"), _ring_work, f"{_NZ}:ring",
          "ring: arc weights and a transfer sum along the cycle, O(M^3) (docs/quantities.md "
          "Rings; Prop 6.2 for idle, adjoint pass for the mean numbers)",
          "M^3; symbolic: M^3 6^M"),
    Route("server-removal", NORMALIZATION, ("collaborative",), _EXACT, _always,
          _server_removal_work, f"{_NZ}:server_removal", "server-removal recursion over class "
          "sets (Prop 6.2, corrected Prop 6.3)", "2^J J", forced=True),
    Route("subset-dp", NORMALIZATION, _ALL, _EXACT + _CERTIFIED, _always, _subset_dp_work,
          f"{_NZ}:subset_dp", "subset DP of the discipline (certified: fixed-point interval "
          "kernels, or arb balls)", "unions x (J + M), + 2^M (J + M) ALIS/RAIS",
          _subset_dp_text),
    # partial derivatives (wrt=): symbolic rates get formulas, numeric rates numbers
    Route("derivative-formulas", NORMALIZATION, _ALL, ("structured",), _always,
          _derivative_formula_work, f"{_NZ}:derivative_formulas",
          "derivative formulas: the chain rule through the named definitions of the structured "
          "formula, one short definition per definition and rate",
          "definitions x (J + M) x (1 + rates)", derivatives=True),
    Route("reverse-mode", NORMALIZATION, _ALL, ("exact", "ball"),
          _needs(lambda f: f.numeric, "it needs numeric rates: give every rate a value "
                 "(--set NAME=VALUE, or values= in Python)"), _reverse_mode_work,
          f"{_NZ}:reverse_mode",
          "reverse-mode differentiation of the subset DP: its operations recorded, one backward "
          "sweep per output, in exact rationals or on arb balls raised until certified",
          "subset-DP steps x (1 + outputs); exact: 3 x steps x outputs", derivatives=True),
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
    import symq.queries.routes as table  # the table in force (tests may replace a row)
    for route in table.ROUTES:
        if route.name == name:
            return route
    raise ModelError(f"unknown method {name!r}; available: auto, "
                     + ", ".join([r.name for r in ROUTES] + list(ARITHMETIC_METHODS)))


def table_rows() -> list[dict[str, str]]:
    """The table as ``symq routes`` prints it: one dict a row, in tie-break order.

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
    return [{"route": r.name, "quantities": ", ".join(r.quantities),
             "disciplines": ", ".join(r.disciplines), "arithmetic": ", ".join(r.arithmetics),
             "estimate": r.unit + " (x the row's measured seconds per step)",
             "summary": r.summary + (" (only with --method)" if r.forced else "")
             + (" (derivatives: --gradient, --wrt NAME)" if r.derivatives else "")}
            for r in ROUTES]
