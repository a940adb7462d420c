r"""Balance residuals: a proof, on a truncated state space, that a product form is stationary.
For a :class:`~symq.engines.processes.base.Process` and a candidate law $\pi$ (by default its product
form, with $\pi(\emptyset) = 1$) this module evaluates, on every valid state with at most $n$
jobs, the global balance residual and the partial balance residuals used in the survey's proofs
([GR20]_ Thm 3.3, 3.9, 3.10), exactly, in the field of rational functions of the rates (or in
$\mathbb{Q}$ for numeric rates), so a residual is zero exactly when the equation holds
identically; :func:`verify` builds the process of a model and a discipline and returns a
:class:`BalanceReport`, which ``symq verify`` prints (its JSON fields: docs/json-schema.md). The
equations, the enumeration and the arithmetic: see docs/howto-verify.md.

Examples
--------
>>> import symq
>>> from symq.engines.balance import verify
>>> report = verify(symq.model("n"), discipline="alis", max_jobs=3)
>>> report.ok, report.states_checked
(True, 9)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field as dataclass_field
from typing import Any, Callable, Hashable

import sympy
from sympy import QQ

from symq.errors import ModelError, VerificationError
from symq.arithmetic.exact import factor_list, flint_module, fraction_field, rational, to_sympy
from symq.models.model import Model
from symq.engines.normalization.entry import DISCIPLINES
from symq.engines.processes.base import Process
from symq.display import Displayed, math

__all__ = ["BalanceReport", "BalanceFailure", "balance_residuals", "verify", "build_process",
           "VERIFY_DISCIPLINES"]

#: disciplines :func:`verify` and ``symq verify`` accept for a Model: the three of the
#: normalization DPs and the two matching disciplines of :mod:`symq.engines.processes.matching`
VERIFY_DISCIPLINES = DISCIPLINES + ("dbm", "dbma")

_FACTORED_RESIDUALS = 12
#: python-flint for polynomial sums (a core dependency; same results as sympy, much faster)
USE_FLINT = True  # residuals shown factored; later ones are shown as they come


@dataclass
class BalanceFailure:
    """One balance equation that does not hold: the state, the equation and its residual."""

    state: str
    equation: str
    residual: sympy.Expr

    def to_dict(self) -> dict[str, str]:
        return {"state": self.state, "equation": self.equation, "residual": str(self.residual)}


@dataclass
class BalanceReport(Displayed):
    """The outcome of a balance check (``ok`` when every residual is exactly zero).

    In a notebook it shows as a table (counts, verdict, the first failing equations with their
    residuals); ``str`` gives the text that ``symq verify`` prints.
    """

    model: str
    discipline: str
    max_jobs: int
    states_checked: int
    equations_checked: int
    failures: list[BalanceFailure] = dataclass_field(default_factory=list)
    global_equations: int = 0
    partial_equations: int = 0
    seconds: float = 0.0
    notes: list[str] = dataclass_field(default_factory=list)

    @property
    def nonzero_residuals(self) -> int:
        """Number of equations whose residual is not zero."""
        return len(self.failures)

    @property
    def ok(self) -> bool:
        """True when at least one state was checked and every residual is exactly zero."""
        return self.states_checked > 0 and not self.failures

    def failing_states(self) -> list[str]:
        """The states named by the failures, in order, without repeats."""
        return list(dict.fromkeys(f.state for f in self.failures))

    def to_dict(self) -> dict[str, Any]:
        """The JSON object listed in docs/json-schema.md (``symq verify --json``)."""
        return {"model": self.model, "discipline": self.discipline, "max_jobs": self.max_jobs,
                "states_checked": self.states_checked,
                "equations_checked": self.equations_checked,
                "nonzero_residuals": self.nonzero_residuals, "ok": self.ok,
                "failures": [f.to_dict() for f in self.failures]}

    #: failing equations shown in a notebook (and by ``str``)
    SHOWN_FAILURES = 20

    def _display(self) -> tuple[str, list]:
        """Title and table sections for Jupyter (:class:`symq.display.Displayed`)."""
        summary = [("model", self.model), ("discipline", self.discipline),
                   ("states with at most", f"{self.max_jobs} jobs"),
                   ("states checked", str(self.states_checked)),
                   ("equations checked", f"{self.equations_checked} ({self.global_equations} "
                                         f"global, {self.partial_equations} partial)"),
                   ("nonzero residuals", str(self.nonzero_residuals)),
                   ("verdict", "OK" if self.ok else "FAILED")]
        summary += [("note", note) for note in self.notes]
        sections = [(None, summary)]
        if self.failures:
            shown = self.failures[:self.SHOWN_FAILURES]
            rows = [(f.state, f.equation, math(f.residual)) for f in shown]
            if len(self.failures) > len(shown):
                rows.append(("...", f"and {len(self.failures) - len(shown)} more", None))
            sections.append((("state", "equation", "residual"), rows))
        return "balance check", sections

    def __str__(self) -> str:
        lines = [f"{self.model} ({self.discipline}), states with at most {self.max_jobs} jobs: "
                 f"{self.states_checked} states, {self.equations_checked} equations "
                 f"({self.global_equations} global, {self.partial_equations} partial), "
                 f"{self.nonzero_residuals} nonzero residuals: "
                 f"{'OK' if self.ok else 'FAILED'} ({self.seconds:.2f} s)"]
        lines += self.notes
        for f in self.failures[:20]:
            lines.append(f"  state {f.state}: {f.equation}: residual {f.residual}")
        if len(self.failures) > 20:
            lines.append(f"  ... and {len(self.failures) - 20} more")
        return "\n".join(lines)


class _Exact:
    r"""Exact arithmetic on fully factored rational functions, memoized per expression.

    An element is ``(coefficient, {irreducible polynomial: exponent})`` with integer exponents of
    either sign, so the products of the balance equations (product-form terms times rates) are
    additions of exponents and need no gcd. A sum pulls out the smallest power of every factor and
    adds the remaining polynomials in $\mathbb{Q}[\text{symbols}]$; it is zero exactly when that
    polynomial is the zero polynomial.
    """

    def __init__(self, symbols: set[sympy.Symbol]) -> None:
        ordered = sorted(symbols, key=lambda s: s.name)
        self.symbolic = bool(ordered)
        if self.symbolic:
            self.fractions = fraction_field(ordered)
            self.ring = self.fractions.ring
        self.one = (QQ.one, {})
        self._cache: dict[Any, Any] = {}
        self._powers: dict[tuple, Any] = {}
        self._flint = None
        if self.symbolic and USE_FLINT:
            flint = flint_module()
            try:  # python-flint (the "fast" extra) multiplies large polynomials much faster
                if flint is None:
                    raise ImportError("python-flint is not installed")
                self._flint = flint
                self._flint_ring = flint.fmpq_mpoly_ctx.get(tuple(s.name for s in ordered), "lex")
                self._flint_polys: dict[Any, Any] = {}
            except (ImportError, AttributeError):
                self._flint = None

    def __call__(self, expr: Any) -> Any:
        try:
            return self._cache[expr]
        except KeyError:
            pass
        try:
            value = self._convert(sympy.sympify(expr))
        except Exception as error:  # noqa: BLE001 - re-raised with the expression named
            raise ModelError(f"cannot do exact arithmetic with {expr!r}: {error}") from None
        self._cache[expr] = value
        return value

    def _part(self, expr: sympy.Expr) -> Any:
        """:meth:`_convert` of a part of an expression, memoized (errors are named by the caller)."""
        try:
            return self._cache[expr]
        except KeyError:
            value = self._cache[expr] = self._convert(expr)
            return value

    def _convert(self, expr: sympy.Expr) -> Any:
        if not self.symbolic:
            return (QQ.from_sympy(expr), {})
        if expr.is_Mul:  # the product forms and the rates come factored: keep their factors
            value = self.one
            for arg in expr.args:
                value = self.mul(value, self._part(arg))
            return (QQ.zero, {}) if value[0] == 0 else value
        if expr.is_Pow and expr.exp.is_Integer:
            coefficient, exponents = self._part(expr.base)
            e = int(expr.exp)
            if coefficient == 0:
                if e < 0:
                    raise ZeroDivisionError(f"{expr.base} is zero")
                return (QQ.zero, {}) if e else self.one
            return (coefficient ** e, {f: k * e for f, k in exponents.items()})
        frac = self.fractions.from_expr(expr)
        coefficient = QQ.one
        exponents: dict[Any, int] = {}
        for poly, sign in ((frac.numer, 1), (frac.denom, -1)):
            if not poly:
                return (QQ.zero, {})
            c, factors = factor_list(poly)  # python-flint's factoring (sympy's without it)
            coefficient = coefficient * c if sign == 1 else coefficient / c
            for f, e in factors:
                if f.LC < 0:
                    f = -f
                    if e % 2:
                        coefficient = -coefficient
                lc = f.LC
                if lc != 1:
                    f = f.quo_ground(lc)
                    coefficient = coefficient * lc ** e if sign == 1 else coefficient / lc ** e
                exponents[f] = exponents.get(f, 0) + sign * e
        return (coefficient, {f: e for f, e in exponents.items() if e})

    @staticmethod
    def mul(a: Any, b: Any) -> Any:
        exponents = dict(a[1])
        for f, e in b[1].items():
            total = exponents.get(f, 0) + e
            if total:
                exponents[f] = total
            else:
                exponents.pop(f, None)
        return (a[0] * b[0], exponents)

    def _power(self, f: Any, e: int) -> Any:
        key = (f, e)
        if key not in self._powers:
            self._powers[key] = f ** e
        return self._powers[key]

    def total(self, terms: list[tuple[int, Any]]) -> Any:
        """The sum of ``sign * term``: ``None`` when it is exactly zero, else a sympy expression."""
        terms = [(sign, t) for sign, t in terms if t[0] != 0]
        if not terms:
            return None
        if not self.symbolic:
            value = sum((sign * t[0] for sign, t in terms), QQ.zero)
            return None if value == 0 else QQ.to_sympy(value)
        low: dict[Any, int] = {}
        for _, (_, exponents) in terms:
            for f, e in exponents.items():
                if e < low.get(f, 0):
                    low[f] = e
        for _, (_, exponents) in terms:  # factors missing from a term have exponent 0 there
            for f in list(low):
                if f not in exponents and low[f] > 0:
                    low[f] = 0
        common = {f: e for f, e in low.items() if e}
        if self._flint is not None:
            ring = self._flint_ring
            value = self._shifted_total(
                terms, common, lambda c: ring.from_dict({(0,) * ring.nvars(): rational(c)}),
                self._flint_poly, ring.from_dict({}))
            if value.is_zero():
                return None
            expr = sympy.Add(*(to_sympy(c)
                               * sympy.Mul(*(g ** k for g, k in zip(self.ring.symbols, m)))
                               for m, c in value.to_dict().items()))
        else:
            value = self._shifted_total(terms, common, self.ring.ground_new, self._power,
                                        self.ring.zero)
            if not value:
                return None
            expr = value.as_expr()
        for f, e in common.items():
            expr = expr * f.as_expr() ** e
        return expr

    def _flint_poly(self, f: Any, e: int) -> Any:
        key = (f, e)
        if key not in self._flint_polys:
            if e == 1:
                self._flint_polys[key] = self._flint_ring.from_dict(
                    {m: rational(c) for m, c in f.items()})
            else:
                self._flint_polys[key] = self._flint_poly(f, 1) ** e
        return self._flint_polys[key]

    @staticmethod
    def _shifted_total(terms: list, common: dict, constant: Callable[[Any], Any],
                       power: Callable[[Any, int], Any], value: Any) -> Any:
        r"""``value`` plus the sum of the signed terms, each divided by the common factors
        $\prod_f f^{e_f}$, in the ring whose constants are ``constant(c)`` and whose factor
        powers are ``power(f, e)`` (sympy's polynomial ring or python-flint's)."""
        for sign, (coefficient, exponents) in terms:
            poly = constant(coefficient * sign)
            for f, e in exponents.items():
                rest = e - common.get(f, 0)
                if rest:
                    poly = poly * power(f, rest)
            for f, e in common.items():
                if f not in exponents:
                    poly = poly * power(f, -e)
            value += poly
        return value


def _key_text(key: tuple) -> str:
    return " ".join(str(k) for k in key)


def balance_residuals(process: Process, max_jobs: int,
                      law: Callable[[Hashable], Any] | None = None,
                      partial: bool | None = None, global_balance: bool = True,
                      label: str | None = None,
                      progress: Callable[[int, int], None] | None = None) -> BalanceReport:
    r"""Global- and partial-balance residuals of ``law`` for ``process`` on states up to ``max_jobs``.

    Parameters
    ----------
    process : the Markov process (state descriptor, valid states, verbal transitions)
    max_jobs : check every valid state with at most this many jobs
    law : candidate unnormalized law, a callable on states giving a sympy expression; by default
        the process's product form
    partial : check the partial-balance families as well (default: when the process's proof uses
        them)
    global_balance : check global balance
    label : the model name shown in the report
    progress : called as ``progress(done, total)`` while the states are checked

    Returns
    -------
    BalanceReport
        Counts of states and equations, and every failing equation with its exact residual
        (flow out minus flow in, with $\pi(\emptyset) = 1$).

    Raises
    ------
    VerificationError
        A transition leaves the enumerated valid states, or changes the number of jobs by more
        than one (the truncation would then miss part of an equation).

    Examples
    --------
    >>> from symq import model
    >>> report = balance_residuals(build_process(model("n"), "alis"), max_jobs=2)
    >>> report.ok, report.states_checked, report.equations_checked
    (True, 6, 20)

    Running time: O(S T) exact residuals for S states and T transitions a state.
    """
    if isinstance(max_jobs, bool) or not isinstance(max_jobs, int):
        raise TypeError(f"max_jobs must be an int, not {type(max_jobs).__name__}")
    if max_jobs < 0:
        raise ModelError(f"max_jobs is {max_jobs}; give a number of jobs >= 0")
    if partial is None:
        partial = process.partial_balance
    start = time.perf_counter()
    outer_size = max_jobs + 1
    states = process.states(outer_size)
    valid = set(states)
    size = {s: process.size(s) for s in states}
    inner = [s for s in states if size[s] <= max_jobs]

    moves = {}
    incoming: dict[Hashable, list] = {s: [] for s in inner}
    expressions: set = set()
    for source in states:
        out = process.transitions(source)
        moves[source] = out
        for t in out:
            expressions.add(t.rate)
            if t.target in valid:
                step = size[t.target] - size[source]
            else:
                target_size = process.size(t.target)
                if target_size <= outer_size:
                    raise VerificationError(
                        f"{process.name}: the transition '{t.event}' from the valid state "
                        f"{process.format_state(source)} leads to "
                        f"{process.format_state(t.target)}, which is not a valid state")
                step = target_size - size[source]
            if abs(step) > 1:
                raise VerificationError(f"{process.name}: the transition '{t.event}' changes the "
                                        f"number of jobs by {step}; the truncation needs steps of 1")
            if t.target in incoming:
                incoming[t.target].append((source, t))

    if law is None:
        factors = {s: process.product_form_factors(s) for s in states}
        for fs in factors.values():
            expressions.update(fs)
    else:
        values = {s: sympy.sympify(law(s)) for s in states}
        expressions.update(values.values())
    symbols: set = set()
    for e in expressions:
        symbols |= sympy.sympify(e).free_symbols
    exact = _Exact(symbols)
    if law is None:
        pi = {}
        for st, fs in factors.items():
            value = exact.one
            for f in fs:
                value = exact.mul(value, exact(f))
            pi[st] = value
    else:
        pi = {st: exact(v) for st, v in values.items()}

    failures: list[BalanceFailure] = []
    global_count = partial_count = 0
    for done, x in enumerate(inner):
        if progress is not None and done % 25 == 0:
            progress(done, len(inner))
        out_terms: list = []
        out_by_key: dict[tuple, list] = {}
        for t in moves[x]:
            term = (1, exact.mul(pi[x], exact(t.rate)))
            out_terms.append(term)
            out_by_key.setdefault(t.out_key, []).append(term)
        in_terms: list = []
        in_by_key: dict[tuple, list] = {}
        for y, t in incoming[x]:
            term = (-1, exact.mul(pi[y], exact(t.rate)))
            in_terms.append(term)
            in_by_key.setdefault(t.in_key, []).append(term)
        if global_balance:
            global_count += 1
            residual = exact.total(out_terms + in_terms)
            if residual is not None:
                failures.append(BalanceFailure(process.format_state(x), "global balance",
                                               residual))
        if partial:
            for key in sorted(set(out_by_key) | set(in_by_key), key=_key_text):
                partial_count += 1
                residual = exact.total(out_by_key.get(key, []) + in_by_key.get(key, []))
                if residual is not None:
                    failures.append(BalanceFailure(
                        process.format_state(x),
                        f"partial balance [{process.describe_key(key)}]", residual))
    for k, f in enumerate(failures[:_FACTORED_RESIDUALS]):
        f.residual = sympy.factor(f.residual)
    return BalanceReport(model=label or process.name, discipline=process.discipline,
                         max_jobs=max_jobs, states_checked=len(inner),
                         equations_checked=global_count + partial_count, failures=failures,
                         global_equations=global_count, partial_equations=partial_count,
                         seconds=time.perf_counter() - start)


def build_process(model: Model, discipline: str = "collaborative", **options: Any) -> Process:
    """The process of ``model`` under ``discipline`` (see :data:`VERIFY_DISCIPLINES`).

    Options: ``routing`` (rais: ``"canonical"``, ``"maxflow"``, ``"uniform"`` or a mapping),
    ``check_routing`` (rais, default True), ``region`` (collaborative, an AcceptanceRegion),
    ``server_buffer`` (dbm), ``server_patience`` (dbma: mapping server -> rate).

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    discipline : str
        A name of :data:`VERIFY_DISCIPLINES`.
    **options
        The options above, for the disciplines that take them.

    Returns
    -------
    Process
        Its transitions are written from the verbal model (:mod:`symq.engines.processes`).

    Raises
    ------
    ModelError
        An unknown discipline (the message lists the known ones), or a routing that breaks
        the assignment condition when ``check_routing`` is on.

    Examples
    --------
    >>> from symq import model
    >>> type(build_process(model("n"), "alis")).__name__
    'ALISProcess'

    Running time: O(1), plus the routing table for rais (O(2^M J) entries).
    """
    from symq.engines.processes import (ALISProcess, CollaborativeQueue, DirectedMatching,
                            RandomAssignmentProcess)

    if not isinstance(model, Model):
        raise TypeError(f"expected a symq Model, not {type(model).__name__}")
    if discipline == "collaborative":
        return CollaborativeQueue(model, region=options.get("region"))
    if discipline == "alis":
        return ALISProcess(model)
    if discipline == "rais":
        return RandomAssignmentProcess(model, routing=options.get("routing") or "canonical",
                                       check=options.get("check_routing", True))
    if discipline == "dbm":
        return DirectedMatching(model, server_buffer=options.get("server_buffer", 0))
    if discipline == "dbma":
        return DirectedMatching(model, server_buffer=options.get("server_buffer"),
                                job_buffer=options.get("job_buffer"),
                                server_patience=options.get("server_patience"))
    raise ModelError(f"unknown discipline {discipline!r}; "
                     f"use one of {', '.join(VERIFY_DISCIPLINES)}")


def verify(model: Model | Process, discipline: str = "collaborative", max_jobs: int = 4,
           law: Callable[[Hashable], Any] | None = None, partial: bool | None = None,
           progress: Callable[[int, int], None] | None = None, **options: Any) -> BalanceReport:
    r"""Check the product form of ``model`` under ``discipline`` by its balance equations.

    Parameters
    ----------
    model : a :class:`~symq.models.model.Model`, or a :class:`~symq.engines.processes.base.Process` (then
        ``discipline`` is ignored)
    discipline : ``collaborative`` (OI queue, with abandonments when the model has them),
        ``alis``, ``rais``, ``dbm``, ``dbma``
    max_jobs : every valid state with at most this many jobs is checked
    law : an alternative candidate law (callable on states), e.g. to see a wrong one fail
    partial : check the partial-balance families too (default: as in the survey's proof)
    progress : called as ``progress(done, total)`` while the states are checked
    options : passed to :func:`build_process` (``routing=`` for rais, ...); for ``rais`` a
        user-given routing is *not* rejected here, so that its failure shows in the report

    Returns
    -------
    BalanceReport
        ``.ok``, counts, and every failing equation with its residual.

    Examples
    --------
    >>> import symq
    >>> verify(symq.model("w"), "rais", max_jobs=2).ok
    True
    >>> bad = verify(symq.model("w"), "rais", max_jobs=2, routing="uniform")
    >>> bad.ok, bad.failing_states()[0]
    (False, '(1_b)')

    Running time: O(S E) residual evaluations for S states with at most ``max_jobs`` jobs and E
    transitions a state; each residual is exact rational-function arithmetic (python-flint
    polynomials when installed).
    """
    start = time.perf_counter()
    if isinstance(model, Process):
        process = model
        label = process.name
    else:
        if discipline == "rais":
            options.setdefault("check_routing", False)
        process = build_process(model, discipline, **options)
        label = model.name or "model"
    report = balance_residuals(process, max_jobs, law=law, partial=partial, label=label,
                               progress=progress)
    report.seconds = time.perf_counter() - start
    routing = getattr(process, "routing_name", None)
    if routing:
        report.notes.append(f"routing: {routing}")
        problem = getattr(process, "assignment_problem", None)
        if problem:
            report.notes.append(f"assignment condition fails: {problem}")
    return report
