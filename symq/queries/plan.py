r"""The planner: for one request, every (row, arithmetic) pair of the route table with whether it
applies (or why not), the work it counts and its predicted CPU seconds
(:mod:`symq.queries.costs`); the cheapest applicable pair runs, the row order breaking ties. With
numeric rates and no choice of arithmetic (``exact=None``) exact rationals are preferred while
they cost at most :data:`EXACT_PREFERENCE` times the cheapest certified pair (plus
:data:`EXACT_SLACK` seconds); with symbolic rates, named definitions (``structured``) are
preferred over one expression by the same rule. A forced ``method=`` picks its row (its cheapest arithmetic); the
limit check always uses the estimate of the pair that runs. ``symq explain`` prints a plan;
:func:`explain` returns it.

Examples
--------
>>> from symq import model
>>> p = explain("ring:3", "mean-number")
>>> p.chosen.route.name, p.chosen.arithmetic
('formulas', 'structured')
>>> p.candidate("ring", "symbolic").why is None
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from symq.errors import ModelError, UnsupportedError
from symq.queries.costs import seconds
from symq.queries.request import Request
from symq.queries import routes as _routes
from symq.queries.routes import (ARITHMETIC_METHODS, DISCIPLINES, KERNEL_SERVERS, QUANTITIES,
                                 Route, route_named)

__all__ = ["Candidate", "Plan", "plan", "explain", "component_plans", "EXACT_PREFERENCE",
           "EXACT_SLACK", "VALUE_ROWS", "select", "arithmetic_for", "gradient_arithmetic"]

#: exact rationals are chosen over certified digits while they cost at most this factor ...
EXACT_PREFERENCE = 2.0
#: ... plus this many seconds
EXACT_SLACK = 0.05
#: the rows that give a component's whole table of values (G, empty, idle, mean numbers)
VALUE_ROWS = ("redundancy", "nested", "ring", "subset-dp")


@dataclass
class Candidate:
    """One (row, arithmetic) pair of a plan: ``why`` is ``None`` when it applies; ``limit`` and
    ``work`` the count checked against :mod:`symq.limits`; ``seconds`` the prediction."""

    route: Route
    arithmetic: str
    why: str | None
    limit: str = ""
    work: int | None = None
    seconds: float = math.inf

    @property
    def applies(self) -> bool:
        return self.why is None

    def as_json(self) -> dict[str, Any]:
        return {"route": self.route.name, "arithmetic": self.arithmetic,
                "applies": self.applies, "why_not": self.why, "limit": self.limit or None,
                "work": self.work, "predicted_seconds": None if math.isinf(self.seconds)
                else round(self.seconds, 6)}


@dataclass
class Plan:
    """Every candidate of a request and the one that runs (``chosen``)."""

    request: Request
    candidates: list[Candidate]
    chosen: Candidate
    reason: str = ""
    parts: list["Plan"] = field(default_factory=list)

    def candidate(self, route: str, arithmetic: str) -> Candidate | None:
        """The candidate of ``route`` in ``arithmetic``, if the plan has it."""
        for c in self.candidates:
            if c.route.name == route and c.arithmetic == arithmetic:
                return c
        return None

    @property
    def predicted_seconds(self) -> float:
        return self.chosen.seconds

    def lines(self) -> list[str]:
        """The plan as ``symq explain`` prints it."""
        r = self.request
        out = [f"request: {r.quantity} of {r.model.name or 'the model'} ({r.discipline}), "
               f"{'numeric' if r.numeric else 'symbolic'} rates"
               + (f", {r.digits} digits" if r.numeric else "")
               + (f", method {r.method}" if r.method != "auto" else "")]
        out.append(f"structure: {r.facts.structure(r.discipline)}; {r.facts.classes} classes, "
                   f"{r.facts.servers} servers")
        out.append("")
        shown = [c for c in self.candidates if c.applies or not _not_for_request(c.why)]
        width = min(28, max(len(f"{c.route.name}/{c.arithmetic}") for c in shown))
        grouped: dict[str, list[str]] = {}
        for c in self.candidates:
            if c.applies or not _not_for_request(c.why):
                continue
            names = grouped.setdefault(c.why or "", [])
            if c.route.name not in names:
                names.append(c.route.name)
        said: set[tuple[str, str]] = set()
        for c in shown:
            mark = "->" if c is self.chosen else "  "
            name = f"{c.route.name}/{c.arithmetic}"
            if not c.applies:
                if (c.route.name, c.why or "") in said:
                    continue
                said.add((c.route.name, c.why or ""))
                same = [d.arithmetic for d in shown if d.route is c.route and d.why == c.why]
                name = f"{c.route.name}/{','.join(same)}" if len(same) > 1 else name
            if c.applies:
                work = "over its limit" if c.work is None else f"{c.work:,} {c.limit}"
                secs = "inf" if math.isinf(c.seconds) else _seconds_text(c.seconds)
                out.append(f"{mark} {name:<{width}}  applies  work {work}; predicted {secs}")
            else:
                out.append(f"{mark} {name:<{width}}  no: {c.why}")
        if grouped:
            out.append("   not for this request:")
            for why, names in grouped.items():
                out.append(f"     {', '.join(names)}: {why}")
        out.append("")
        out.append(f"runs: {self.chosen.route.name} in {self.chosen.arithmetic} arithmetic"
                   + (f" ({self.reason})" if self.reason else ""))
        return out

    def __repr__(self) -> str:
        return (f"Plan({self.request.quantity}, {self.request.discipline}: runs "
                f"{self.chosen.route.name}/{self.chosen.arithmetic}, predicted "
                f"{_seconds_text(self.chosen.seconds)})")

    def _repr_html_(self) -> str:
        """The candidates as a table in a notebook (the chosen pair marked)."""
        from symq.display import html_table
        rows = []
        for c in self.candidates:
            if not c.applies and _not_for_request(c.why):
                continue
            rows.append(("->" if c is self.chosen else "", f"{c.route.name}/{c.arithmetic}",
                         "yes" if c.applies else f"no: {c.why}",
                         "" if c.work is None else f"{c.work:,} {c.limit}",
                         "" if math.isinf(c.seconds) else _seconds_text(c.seconds)))
        header = ("", "route/arithmetic", "applies", "work", "predicted")
        return html_table([(header, rows)], title=repr(self))

    def as_json(self) -> dict[str, Any]:
        r = self.request
        return {"quantity": r.quantity, "discipline": r.discipline,
                "structure": r.facts.structure(r.discipline),
                "route": self.chosen.route.name, "arithmetic": self.chosen.arithmetic,
                "predicted_seconds": self.chosen.as_json()["predicted_seconds"],
                "reason": self.reason, "candidates": [c.as_json() for c in self.candidates]}


def _not_for_request(why: str | None) -> bool:
    """A reason that is about the quantity, discipline or kind of rates, not this model."""
    return bool(why) and (why.startswith("it serves") or why.startswith("it needs numeric")
                          or why.startswith("it needs symbolic")
                          or why.startswith("the rates are numbers")
                          or why.startswith("it computes in"))


def _seconds_text(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:.0f} us"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def _arithmetic_refusal(route: Route, arithmetic: str, request: Request) -> str | None:
    facts = request.facts
    if arithmetic in ("exact", "interval", "ball") and not facts.numeric:
        return "it needs numeric rates"
    if arithmetic in ("structured", "symbolic") and facts.numeric:
        return "the rates are numbers (exact arithmetic answers)"
    if arithmetic == "interval":
        if not facts.rational:
            return "the fixed-point kernels need rational rates"
        if route.name == "subset-dp" and facts.servers > KERNEL_SERVERS[request.discipline]:
            return (f"the kernels take at most {KERNEL_SERVERS[request.discipline]} servers "
                    f"({request.discipline}); this graph has {facts.servers}")
    return None


def _check_request(request: Request) -> None:
    if request.quantity not in QUANTITIES:
        raise ModelError(f"unknown quantity {request.quantity!r}; available: "
                         f"{', '.join(QUANTITIES)}")
    if request.discipline not in DISCIPLINES:
        raise ModelError(f"unknown discipline {request.discipline!r}; available: "
                         f"{', '.join(DISCIPLINES)}")


def plan(request: Request, arithmetics: tuple[str, ...] | None = None,
         rows: tuple[str, ...] | None = None) -> Plan:
    """Every (row, arithmetic) pair for ``request`` and the one that runs.

    Parameters
    ----------
    request : Request
        The request (its ``method`` forces a row, or with ``interval``/``ball`` an arithmetic).
    arithmetics : tuple of str, optional
        Only these arithmetics (default: those the request allows).
    rows : tuple of str, optional
        Only these rows (the components' own plans).

    Returns
    -------
    Plan

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
    >>> plan(Request(example_model("n"), "mean-number")).chosen.route.name
    'nested'

    Running time: the rows' tests and counts (each at most a few thousand set operations past
    its limit) on facts computed once.
    """
    _check_request(request)
    allowed = arithmetics or request.allowed_arithmetics()
    method = request.method or "auto"
    if method in ARITHMETIC_METHODS:
        if not request.numeric:
            raise ModelError(f"method {method!r} does not apply: it needs numeric rates: give "
                             "every rate a value (--set NAME=VALUE, or values= in Python)")
        allowed = (method,)
        method = "auto"
    forced = route_named(method) if method != "auto" else None
    if not request.facts.connected and request.quantity in _routes.NORMALIZATION \
            and not request.derivatives and rows is None:
        for arithmetic in ("symbolic", "exact", "interval", "ball"):
            if arithmetic in allowed:
                component_plans(request, arithmetic)
    candidates: list[Candidate] = []
    for route in _routes.ROUTES:
        if route.derivatives != request.derivatives:
            if forced is route:
                raise ModelError(f"method {method!r} does not apply: " + (
                    "it computes partial derivatives (ask with --gradient or --wrt)"
                    if route.derivatives else "it computes values, not partial derivatives"))
            continue
        if rows is not None and route.name not in rows:
            continue
        if route.forced and forced is not route:
            continue
        for arithmetic in route.arithmetics:
            why = route.refusal(request.model, request.quantity, request.discipline, arithmetic)
            if why is None:
                why = _arithmetic_refusal(route, arithmetic, request)
            if why is None and arithmetic not in allowed:
                why = _not_asked(arithmetic, request)
            c = Candidate(route, arithmetic, why)
            if why is None:
                try:
                    c.limit, c.work = route.work(request, arithmetic)
                except (ModelError, UnsupportedError, ArithmeticError) as error:
                    c.why = str(error) or type(error).__name__   # a count that cannot be made
                    candidates.append(c)
                    continue
                c.seconds = seconds(route.name, arithmetic, c.work, request)
            candidates.append(c)
    if forced is not None:
        mine = [c for c in candidates if c.route is forced]
        usable = [c for c in mine if c.applies]
        if not usable:
            why = _first_reason(forced, mine, request)
            raise ModelError(f"method {method!r} does not apply: {why}")
        chosen, reason = _cheapest(usable, request)
        return Plan(request, candidates, chosen, f"forced by method={method}; " + reason)
    usable = [c for c in candidates if c.applies]
    if not usable:
        kind = "partial derivatives of " if request.derivatives else ""
        raise UnsupportedError(f"{kind}{request.quantity} under discipline "
                               f"{request.discipline!r} in {' or '.join(allowed)} arithmetic is "
                               f"not available for model {request.model.name or 'given'}")
    chosen, reason = _cheapest(usable, request)
    return Plan(request, candidates, chosen, reason)


def _first_reason(route: Route, mine: list[Candidate], request: Request) -> str:
    if not mine:
        return route.refusal(request.model, request.quantity, request.discipline,
                             request.allowed_arithmetics()[0]) or "it does not serve this request"
    for c in mine:  # the arithmetic the request asked for first
        if c.arithmetic in request.allowed_arithmetics():
            return c.why or ""
    return mine[0].why or ""


def _not_asked(arithmetic: str, request: Request) -> str:
    if request.numeric:
        return ("exact rationals were not asked for" if arithmetic == "exact"
                else "certified digits were not asked for (exact=True)")
    return ("one expression was not asked for (form=structured)" if arithmetic == "symbolic"
            else "named definitions were not asked for (form=expression)")


def _within_limit(c: Candidate, request: Request) -> bool:
    limit = request.limit_of(c.limit) if c.limit else None
    return limit is None or (c.work is not None and c.work <= limit)


def _cheapest(usable: list[Candidate], request: Request) -> tuple[Candidate, str]:
    inside = [c for c in usable if _within_limit(c, request)]
    if inside and len(inside) < len(usable):  # a pair past its limit runs only if all are
        usable = inside
    order = {id(c): k for k, c in enumerate(usable)}
    best = min(usable, key=lambda c: (c.seconds, order[id(c)]))
    if math.isinf(best.seconds) and request.numeric and request.exact is None:
        # every count is past its cap: the certified arithmetics have the larger limits
        certified = [c for c in usable if c.arithmetic in ("interval", "ball")]
        if certified:
            return certified[0], "every count past its cap; certified digits have the larger limit"
    if not request.numeric and request.form == "structured" and best.arithmetic != "structured":
        named = [c for c in usable if c.arithmetic == "structured"]
        if named:  # the named definitions the command line prints, while they cost little more
            n = min(named, key=lambda c: (c.seconds, order[id(c)]))
            if n.seconds <= EXACT_PREFERENCE * best.seconds + EXACT_SLACK:
                return n, (f"named definitions preferred: {_seconds_text(n.seconds)} against "
                           f"{_seconds_text(best.seconds)} for one expression")
    if request.numeric and request.exact is None and best.arithmetic != "exact":
        exact = [c for c in usable if c.arithmetic == "exact"]
        if exact:
            e = min(exact, key=lambda c: (c.seconds, order[id(c)]))
            if e.seconds <= EXACT_PREFERENCE * best.seconds + EXACT_SLACK:
                return e, (f"exact rationals preferred: {_seconds_text(e.seconds)} against "
                           f"{_seconds_text(best.seconds)} certified")
    return best, "the cheapest applicable pair"


def component_plans(request: Request, arithmetic: str) -> list[Plan] | None:
    """The plans of each connected component of a disconnected model, each restricted to the
    rows that give a whole table of values (:data:`VALUE_ROWS`) and to ``arithmetic`` (a
    certified composite lets each part use exact rationals too, as points), cached on the
    request.

    Parameters
    ----------
    request : Request
    arithmetic : str

    Returns
    -------
    list of Plan, or None
        ``None`` for a connected graph.

    Examples
    --------
    >>> from symq import example_model
    >>> m = example_model("n").substitute({})
    >>> component_plans(Request(m, "mean-number"), "exact") is None
    True

    Running time: one plan per component.
    """
    facts = request.facts
    if facts.connected:
        return None
    key = ("component_plans", arithmetic)
    if key in request.extra:
        return request.extra[key]
    if arithmetic in ("exact", "interval", "ball") and not request.numeric or \
            arithmetic == "symbolic" and request.numeric:
        request.extra[key] = []
        return []
    allowed = {"interval": ("interval", "ball", "exact"),
               "ball": ("ball", "exact")}.get(arithmetic, (arithmetic,))
    plans = []
    for part in facts.components:
        sub = Request(part, request.quantity, request.discipline, exact=request.exact,
                      form="expression", digits=request.digits, limits=request.limits)
        p = plan(sub, arithmetics=allowed, rows=VALUE_ROWS)
        if arithmetic in ("interval", "ball") and p.chosen.arithmetic == "exact" and \
                p.chosen.seconds > EXACT_PREFERENCE * min(
                    (c.seconds for c in p.candidates if c.applies), default=math.inf) \
                + EXACT_SLACK:
            p = plan(sub, arithmetics=tuple(a for a in allowed if a != "exact"), rows=VALUE_ROWS)
        plans.append(p)
    request.extra[key] = plans
    return plans


def explain(model: Any, quantity: str, discipline: str = "collaborative",
            values: Any = None, digits: int = 30, exact: bool | None = None,
            method: str = "auto", form: str = "structured", wrt: Any = None,
            max_work: int | None = None, no_limits: bool = False) -> Plan:
    """The plan of a request, without running it: every row with applies or why not, its
    counted work and predicted seconds, and the pair that would run (``symq explain``).

    Parameters
    ----------
    model, quantity, discipline, values, digits, exact, method, form, wrt, max_work, no_limits
        As :func:`symq.solve`.

    Returns
    -------
    Plan
        ``.lines()`` as ``symq explain`` prints it, ``.as_json()`` its ``--json``.

    Examples
    --------
    >>> p = explain("w", "mean-number", "alis", values={"lambda_1": "3/10", "lambda_2": "1/5",
    ...             "lambda_3": "1/2", "mu_1": 1, "mu_2": "4/5"})
    >>> p.chosen.route.name, p.chosen.arithmetic
    ('subset-dp', 'exact')

    Running time: that of :func:`plan`.
    """
    from symq.queries.request import build_request
    request = build_request(model, quantity, discipline, values, digits, exact, method, form,
                            wrt=wrt, max_work=max_work, no_limits=no_limits)
    return plan(request)


def select(model: Model, quantity: str, discipline: str, arithmetic: str,
           method: str = "auto", derivatives: bool = False) -> Route:
    """The row the planner runs for a request in one arithmetic (:func:`symq.queries.plan.plan`).

    Parameters
    ----------
    model : Model
    quantity, discipline, arithmetic : str
    method : str
        ``"auto"`` or a row's name.
    derivatives : bool
        A request for partial derivatives.

    Returns
    -------
    Route

    Examples
    --------
    >>> from symq import example_model
    >>> select(example_model("n"), "mean-number", "collaborative", "exact").name
    'nested'

    Running time: that of the plan.
    """
    exact = {"exact": True, "interval": False, "ball": False}.get(arithmetic)
    request = Request(model, quantity, discipline, exact=exact, method=method,
                      form="expression" if arithmetic == "symbolic" else "structured",
                      derivatives=derivatives)
    return plan(request, arithmetics=(arithmetic,)).chosen.route


def arithmetic_for(model: Model, quantity: str, discipline: str, exact: bool | None,
                   form: str = "structured") -> str:
    """The arithmetic the planner picks for a request (:func:`symq.queries.plan.plan`).

    Parameters
    ----------
    model : Model
    quantity, discipline : str
    exact : bool or None
        As :func:`symq.solve`.
    form : str
        ``structured`` or ``expression``.

    Returns
    -------
    str

    Examples
    --------
    >>> from symq import example_model, model
    >>> arithmetic_for(model("w"), "mean-number", "alis", None)
    'structured'
    >>> arithmetic_for(example_model("w"), "mean-number", "alis", None)
    'exact'

    Running time: that of the plan.
    """
    return plan(Request(model, quantity, discipline, exact=exact, form=form)).chosen.arithmetic


def gradient_arithmetic(model: Model, discipline: str, exact: bool | None, outputs: int,
                        dp_limit: int | None = None) -> str:
    """The arithmetic the planner picks for partial derivatives of the mean number.

    Parameters
    ----------
    model : Model
    discipline : str
    exact : bool or None
    outputs : int
        The outputs swept.
    dp_limit : int, optional
        Unused (the request's limits apply); kept for old callers.

    Returns
    -------
    str

    Examples
    --------
    >>> from symq import example_model
    >>> gradient_arithmetic(example_model("w"), "alis", None, 4)
    'exact'

    Running time: that of the plan.
    """
    return plan(Request(model, "mean-number", discipline, exact=exact, derivatives=True,
                        outputs=outputs)).chosen.arithmetic
