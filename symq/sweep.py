r"""Theorem sweeps: run one check on every small compatibility graph, locally or on a cluster.

A *check* takes a :class:`~symq.model.Model` and returns a :class:`Verdict`: ``ok`` (True, False,
or None when the statement does not apply to this graph) and ``data``, a mapping of names to values
that explain the verdict. :func:`sweep` runs a check on each graph of
:func:`symq.graphs.compatibility_graphs`, with symbolic rates or with ``N`` seeded random exact
rational rate vectors per graph, through any :class:`concurrent.futures.Executor`: a local
:class:`~concurrent.futures.ProcessPoolExecutor`, or the executor of a Dask ``distributed.Client``
(``client.get_executor()``). The code path is the same; only the executor differs.

Results stream to a JSON-lines file, one line per graph, as graphs finish. A rerun with the same
file skips the graphs already in it, so an interrupted sweep resumes where it stopped. Each failing
graph carries its counterexample as a TOML model (:meth:`Model.to_toml`) that ``symq evaluate``
and ``symq verify`` read directly.

Built-in checks (:data:`CHECKS`):

``stability``
    the max-flow verdict and margin of :func:`symq.stability.stability_report` equal the subset
    enumeration of :func:`~symq.stability.brute_force_stability_report` ([GR20]_, section 2), at the
    given rates, at the exact boundary $\lambda(A) = \mu(S(A))$ and beyond it (numeric rates).
``nested``
    the server-removal recursion ([GR20]_ Prop 6.2) equals the nested closed form
    $\prod_S (1 - \rho_S)$ ([GR20]_ Thm 4.5) as rational functions (nested graphs only).
``empty-vs-ctmc``
    Prop 6.2 against the truncated collaborative CTMC built from the verbal model, within the
    truncation bound $r^{n+1}/(1-r^{n+1})$, $r = \lambda / \min_i \mu(S_i)$ (light numeric rates).
``balance``
    the balance residuals of the product form of each discipline (collaborative, ALIS, RAIS) vanish
    on every state with at most ``max_jobs`` jobs ([GR20]_ Thm 3.3, 3.9, 3.10; :mod:`symq.balance`).
``cor-5.3``
    ALIS summed over idle orders equals RAIS ([GR20]_ Cor 5.3; :mod:`symq.aggregated`) on every
    ordered busy vector and queue vector with at most ``max_jobs`` (default 1) waiting jobs: one
    constant ratio of the unnormalized sides, equal to $G_{\rm ALIS}\pi_{\rm RAIS}(\emptyset)$
    for numeric rates.
``theorem-2.1``
    for one class served by all servers (the uninformed model of [Cab]_): with $\mu_l > \mu_m$,
    $P_l < P_m$ and $\mu_l P_l > \mu_m P_m$, for the busy probabilities $P_l$: sign certificates
    of :mod:`symq.uninformed` for symbolic rates, exact comparison on the RAIS law of
    :mod:`symq.normalization` for numeric rates.

A user check is ``"module:function"`` or ``"path/to/file.py:function"``; the function returns a
:class:`Verdict`, a bool, a pair ``(ok, data)``, a mapping with an ``"ok"`` entry, or None (does
not apply).

Examples
--------
>>> from symq.sweep import sweep, InlineExecutor
>>> summary = sweep("nested", max_classes=2, max_servers=2, executor=InlineExecutor(),
...                 progress=False)
>>> summary.graphs, summary.passed, summary.failed
(5, 5, 0)

References
----------
.. [GR20] K. Gardner and R. Righter, "Product forms for FCFS queueing models with arbitrary
   server-job compatibilities: an overview", Queueing Systems 96 (2020) 3-51. arXiv:2006.05979.
.. [Cab] F. B. Cabral, "The slow server problem for uninformed customers", Queueing Systems 50
   (2005) 353-370.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import importlib
import importlib.util
import itertools
import json
import os
import random
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TextIO

import sympy

from .errors import ModelError, SymqError, UnsupportedError
from .graphs import CompatibilityGraph, check_filters, compatibility_graphs, graph_from_key
from .model import Model

__all__ = ["Verdict", "Check", "CHECKS", "RateSpec", "parse_rates", "resolve_check",
           "sample_models", "run_graph", "sweep", "SweepSummary", "InlineExecutor",
           "make_executor", "read_results", "utilization", "with_arrival_scale"]


# ---------------------------------------------------------------------------- verdicts and checks
@dataclass
class Verdict:
    """The outcome of a check on one model.

    ``ok`` is True (holds), False (a counterexample) or None (the statement does not apply to this
    model; ``reason`` says why). ``data`` maps names to values (sympy expressions, numbers,
    strings) that explain the verdict; they are stored as strings.
    """

    ok: bool | None
    data: dict[str, Any] = field(default_factory=dict)
    reason: str = ""


@dataclass(frozen=True)
class Check:
    """A named check: ``function(model, options) -> Verdict``.

    ``rates`` is ``"symbolic"`` (works with symbols; random rates allowed too) or ``"numeric"``
    (needs ``--rates random:N`` or ``light:N``); ``default_rates`` is used when none is given.
    """

    name: str
    description: str
    function: Callable[[Model, Mapping[str, Any]], Verdict]
    rates: str = "symbolic"
    default_rates: str = "symbolic"


def _as_verdict(result: Any, where: str) -> Verdict:
    if isinstance(result, Verdict):
        return result
    if result is None:
        return Verdict(None, reason="the check returned None (does not apply)")
    if isinstance(result, bool):
        return Verdict(result)
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], Mapping):
        return Verdict(None if result[0] is None else bool(result[0]), dict(result[1]))
    if isinstance(result, Mapping) and "ok" in result:
        data = {k: v for k, v in result.items() if k != "ok"}
        return Verdict(None if result["ok"] is None else bool(result["ok"]), data)
    raise TypeError(f"{where} returned {type(result).__name__}; return a symq.sweep.Verdict, a "
                    "bool, a pair (ok, data) or a mapping with an 'ok' entry")


def _text(value: Any) -> Any:
    """JSON-ready: strings for sympy objects and Fractions, recursively."""
    if isinstance(value, Mapping):
        return {str(k): _text(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_text(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return repr(value)
    return str(value)


# ---------------------------------------------------------------------------- rates
@dataclass(frozen=True)
class RateSpec:
    """``symbolic``, ``random:N`` (stable, seeded exact rationals) or ``light:N`` (light load)."""

    kind: str
    count: int = 1

    def __str__(self) -> str:
        return self.kind if self.kind == "symbolic" else f"{self.kind}:{self.count}"


def parse_rates(text: str) -> RateSpec:
    """Read ``symbolic``, ``random:N`` or ``light:N``.

    Raises
    ------
    ModelError
        Any other text, or N outside 1..10000.
    """
    text = str(text).strip()
    if text == "symbolic":
        return RateSpec("symbolic")
    kind, sep, count = text.partition(":")
    if kind in ("random", "light") and sep:
        try:
            n = int(count)
        except ValueError:
            n = 0
        if 1 <= n <= 10000:
            return RateSpec(kind, n)
    raise ModelError(f"--rates {text!r}: use symbolic, random:N or light:N with N from 1 to 10000 "
                     "(N seeded random exact rational rate vectors per graph)")


def utilization(model: Model) -> Fraction:
    r"""$\max_A \lambda(A)/\mu(S(A))$ over non-empty class sets (subset enumeration; the model is
    stable iff this is below 1)."""
    lam = {i: _fraction(r) for i, r in model.arrival_rates.items()}
    mu = {j: _fraction(r) for j, r in model.service_rates.items()}
    best = Fraction(0)
    for size in range(1, len(model.classes) + 1):
        for chosen in itertools.combinations(model.classes, size):
            load = sum(lam[i] for i in chosen)
            capacity = sum(mu[j] for j in model.servers_of(chosen))
            best = max(best, load / capacity)
    return best


def _fraction(value: sympy.Expr) -> Fraction:
    if not value.is_Rational:
        raise ModelError(f"rate {value} is not an exact number; this check needs numeric rates "
                         "(--rates random:N)")
    return Fraction(int(value.p), int(value.q))


def with_arrival_scale(model: Model, factor: Fraction) -> Model:
    """The model with every arrival rate multiplied by ``factor``."""
    return Model(compatibility=model.compatibility,
                 arrival_rates={i: sympy.Rational(_fraction(r) * factor)
                                for i, r in model.arrival_rates.items()},
                 service_rates=model.service_rates, name=model.name)


def _random_rates(graph: CompatibilityGraph, kind: str, rng: random.Random
                  ) -> tuple[dict[str, Fraction], dict[str, Fraction]]:
    mu = {str(k + 1): Fraction(rng.randint(1, 9), rng.randint(1, 4))
          for k in range(graph.server_count)}
    weights = {str(i + 1): Fraction(rng.randint(1, 9)) for i in range(graph.class_count)}
    model = graph.to_model(weights, mu)
    if kind == "light":
        # total arrival rate r * min_i mu(S_i) with r in {1/30, ..., 10/30} <= 1/3
        smallest = min(_fraction(model.service_rate(s)) for s in model.compatibility.values())
        total = smallest * Fraction(rng.randint(1, 10), 30)
        factor = total / sum(weights.values())
    else:
        # utilization max_A lambda(A)/mu(S(A)) drawn from {1/20, ..., 19/20}: always stable
        factor = Fraction(rng.randint(1, 19), 20) / utilization(model)
    return {i: w * factor for i, w in weights.items()}, mu


def sample_models(graph: CompatibilityGraph, rates: RateSpec | str = "symbolic", seed: int = 0
                  ) -> list[Model]:
    r"""The models of one graph a sweep checks: one symbolic model, or ``N`` with random rates.

    Random rates are exact rationals drawn from a generator seeded by ``(seed, graph key, index)``,
    so every worker draws the same rates for the same graph, whatever the order of work.
    ``random``: service rates a/b (a in 1..9, b in 1..4), arrival rates scaled so that the
    utilization $\max_A \lambda(A)/\mu(S(A))$ is one of 1/20, ..., 19/20 (stable).
    ``light``: the total arrival rate is at most 1/3 of the smallest $\mu(S_i)$.
    """
    spec = parse_rates(rates) if isinstance(rates, str) else rates
    if spec.kind == "symbolic":
        return [graph.to_model()]
    models = []
    for index in range(spec.count):
        rng = random.Random(f"symq-sweep:{seed}:{graph.key}:{spec.kind}:{index}")
        lam, mu = _random_rates(graph, spec.kind, rng)
        models.append(graph.to_model(lam, mu, name=f"graph {graph.key} sample {index}"))
    return models


# ---------------------------------------------------------------------------- built-in checks
def _stability_check(model: Model, options: Mapping[str, Any]) -> Verdict:
    from .stability import brute_force_stability_report, stability_report

    rho = utilization(model)
    data: dict[str, Any] = {"utilization": rho}
    ok = True
    # the given rates, the exact boundary lambda(A) = mu(S(A)) of the tightest set, and twice it
    for label, factor in (("given", Fraction(1)), ("boundary", 1 / rho), ("double", 2 / rho)):
        scaled = model if factor == 1 else with_arrival_scale(model, factor)
        flow, brute = stability_report(scaled), brute_force_stability_report(scaled)
        attained = (scaled.service_rate(flow.servers) - scaled.arrival_rate(flow.classes)
                    == flow.margin and flow.servers == scaled.servers_of(flow.classes))
        expected = {"given": rho < 1, "boundary": False, "double": False}[label]
        agree = (flow.margin == brute.margin and flow.stable == brute.stable == expected
                 and attained and (label != "boundary" or flow.margin == 0))
        data[label] = {"max_flow_margin": flow.margin, "subset_margin": brute.margin,
                       "stable": flow.stable, "tightest_classes": list(flow.classes)}
        ok = ok and agree
    return Verdict(ok, data)


def _nested_check(model: Model, options: Mapping[str, Any]) -> Verdict:
    from .nested import is_nested, nested_empty_probability
    from .normalization import collaborative_empty_probability

    if not is_nested(model):
        return Verdict(None, reason="not nested")
    recursion = collaborative_empty_probability(model)
    closed = nested_empty_probability(model)
    difference = sympy.cancel(sympy.together(recursion - closed))
    data: dict[str, Any] = {"empty_probability": recursion}
    if difference != 0:
        data.update(nested_closed_form=closed, difference=difference)
    return Verdict(difference == 0, data)


def _ctmc_depth(classes: int) -> int:
    depth = 6
    while depth > 2 and sum(classes ** k for k in range(depth + 1)) > 20000:
        depth -= 1
    return depth


def _empty_vs_ctmc_check(model: Model, options: Mapping[str, Any]) -> Verdict:
    from .ctmc import empty_mass, truncated_stationary
    from .normalization import collaborative_empty_probability

    smallest = min(_fraction(model.service_rate(s)) for s in model.compatibility.values())
    r = _fraction(model.arrival_rate()) / smallest
    if r >= 1:
        return Verdict(None, {"r": r}, reason="the truncation bound needs lambda < min_i mu(S_i); "
                       "use --rates light:N")
    depth = int(options.get("max_jobs") or _ctmc_depth(len(model.classes)))
    exact = collaborative_empty_probability(model)
    law = truncated_stationary(model, "collaborative", depth, exact=False)
    # the oldest job is served by all of S_i, so N is dominated by an M/M/1 queue of load r, and
    # blocking at n jobs conditions on N <= n (Cor 3.7): 0 <= pi_n(0) - pi(0) <= r^(n+1)/(1-r^(n+1))
    bound = r ** (depth + 1) / (1 - r ** (depth + 1))
    difference = empty_mass(law) - float(exact)
    ok = -1e-10 <= difference <= float(bound) + 1e-10
    return Verdict(ok, {"recursion": exact, "ctmc": repr(empty_mass(law)), "max_jobs": depth,
                        "states": len(law), "difference": repr(difference),
                        "bound": f"{float(bound):.3e}"})


def _balance_check(model: Model, options: Mapping[str, Any]) -> Verdict:
    try:
        from .balance import verify
    except ImportError as error:
        raise UnsupportedError("check 'balance' needs symq.balance.verify(model, discipline, "
                               f"max_jobs), which this symq does not have yet ({error})") from None
    disciplines = options.get("disciplines") or ("collaborative", "alis", "rais")
    max_jobs = int(options.get("max_jobs") or 2)
    data: dict[str, Any] = {"max_jobs": max_jobs}
    ok = True
    for discipline in disciplines:
        report = verify(model, discipline=discipline, max_jobs=max_jobs)
        entry: dict[str, Any] = {"states": report.states_checked,
                                 "equations": report.equations_checked,
                                 "nonzero_residuals": report.nonzero_residuals}
        if not report.ok:
            entry["first_failure"] = report.failures[0].to_dict()
        data[discipline] = entry
        ok = ok and report.ok
    return Verdict(ok, data)


def _cor_5_3_check(model: Model, options: Mapping[str, Any]) -> Verdict:
    try:
        from .aggregated import alis_partial_law, rais_partial_law
    except ImportError as error:
        raise UnsupportedError("check 'cor-5.3' needs symq.aggregated.alis_partial_law and "
                               "rais_partial_law (ALIS summed over idle orders vs RAIS, [GR20] "
                               f"Cor 5.3), which this symq does not have yet ({error})") from None
    max_jobs = int(options.get("max_jobs") if options.get("max_jobs") is not None else 1)
    # [GR20] Cor 5.3: sum over the orders s of the idle servers of pi_ALIS'(s, b, n) equals
    # pi_RAIS'(b, n), for every ordered busy vector b and queue lengths n. Unnormalized, the
    # ratio of the two sides must be one constant c; normalized, c = G_ALIS * pi_RAIS(0), which
    # is checked exactly for numeric rates (symbolic constants are costly beyond 2 servers, and
    # two probability laws proportional on every state are equal).
    ratio = None
    checked = 0
    for size in range(len(model.servers) + 1):
        for busy in itertools.permutations(model.servers, size):
            idle = [s for s in model.servers if s not in busy]
            for queue in _queue_vectors(size, max_jobs):
                alis = sympy.Add(*(alis_partial_law(model, order, busy, queue, normalized=False)
                                   for order in itertools.permutations(idle)))
                rais = rais_partial_law(model, busy, queue, normalized=False)
                checked += 1
                if ratio is None:
                    ratio = sympy.cancel(alis / rais)
                    continue
                difference = sympy.cancel(sympy.together(alis - ratio * rais))
                if difference != 0:
                    return Verdict(False, {"busy_order": list(busy), "queue": list(queue),
                                           "alis_summed": alis, "rais": rais, "ratio": ratio,
                                           "difference": difference, "states_checked": checked})
    data: dict[str, Any] = {"states_checked": checked, "max_jobs": max_jobs, "ratio": ratio}
    if model.is_numeric:
        from .normalization import empty_probability, normalizing_constant

        expected = normalizing_constant(model, "alis") * empty_probability(model, "rais")
        data["normalized_ratio"] = expected
        if sympy.nsimplify(ratio - expected) != 0:
            return Verdict(False, data)
    return Verdict(True, data)


def _queue_vectors(length: int, total: int) -> Iterator[tuple[int, ...]]:
    """Every vector of ``length`` non-negative integers with sum at most ``total``."""
    if length == 0:
        yield ()
        return
    for first in range(total + 1):
        for rest in _queue_vectors(length - 1, total - first):
            yield (first, *rest)


def _theorem_2_1_check(model: Model, options: Mapping[str, Any]) -> Verdict:
    if len(model.classes) != 1 or len(model.servers) < 2:
        return Verdict(None, reason="Theorem 2.1 is about one class served by at least 2 servers")
    if not model.is_numeric:
        try:
            from .uninformed import theorem_2_1_certificates
        except ImportError as error:
            raise UnsupportedError("check 'theorem-2.1' with symbolic rates needs "
                                   "symq.uninformed.theorem_2_1_certificates, which this symq "
                                   f"does not have yet ({error}); use --rates random:N") from None
        # sign certificates for the symbolic n-server queue (mu^n = lambda + delta)
        certificates = theorem_2_1_certificates(len(model.servers))
        unproved = [c.text() for c in certificates if not c.proved]
        data: dict[str, Any] = {"certificates": len(certificates),
                                "proved": len(certificates) - len(unproved)}
        if unproved:
            data["unproved"] = unproved
        return Verdict(not unproved, data)
    from .normalization import server_idle_probability

    # independent of symq.uninformed: the RAIS law by the subset dynamic program
    idle = server_idle_probability(model, "rais")["per_server"]
    busy = {j: 1 - sympy.nsimplify(idle[j]) for j in model.servers}
    mu = model.service_rates
    failures = []
    for fast, slow in itertools.permutations(model.servers, 2):
        if mu[fast] > mu[slow]:
            # [Cab] Theorem 2.1: P_l < P_m and mu_l P_l > mu_m P_m (equivalently
            # (mu_m/mu_l) P_m < P_l) when mu_l > mu_m
            if not busy[fast] < busy[slow]:
                failures.append(f"P_{fast} >= P_{slow}")
            if not mu[fast] * busy[fast] > mu[slow] * busy[slow]:
                failures.append(f"mu_{fast} P_{fast} <= mu_{slow} P_{slow}")
    data = {"busy_probability": busy}
    if failures:
        data["violated"] = failures
    return Verdict(not failures, data)


#: the built-in checks, by name
CHECKS: dict[str, Check] = {c.name: c for c in [
    Check("stability", "max-flow stability verdict and margin vs enumeration of class sets",
          _stability_check, rates="numeric", default_rates="random:3"),
    Check("nested", "Prop 6.2 recursion vs nested closed form prod(1 - rho_S) (nested graphs)",
          _nested_check),
    Check("empty-vs-ctmc", "Prop 6.2 vs the truncated collaborative CTMC, within its bound",
          _empty_vs_ctmc_check, rates="numeric", default_rates="light:2"),
    Check("balance", "balance residuals of the collaborative, ALIS and RAIS product forms",
          _balance_check),
    Check("cor-5.3", "ALIS summed over idle orders equals RAIS (Cor 5.3)", _cor_5_3_check),
    Check("theorem-2.1", "uninformed model: faster servers are busy less but work more",
          _theorem_2_1_check),
]}


# ---------------------------------------------------------------------------- user checks
def _load_user_function(reference: str, search_path: Sequence[str] = ()) -> Callable:
    target, sep, name = reference.rpartition(":")
    if not sep or not target or not name.isidentifier():
        raise ModelError(f"check {reference!r}: give a built-in check ({', '.join(CHECKS)}) or "
                         "module:function / path/to/file.py:function")
    for entry in search_path:
        if entry not in sys.path:
            sys.path.append(entry)
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise ModelError(f"check {reference!r}: the file {target!r} does not exist")
        module_name = "symq_user_check_" + path.stem
        module = sys.modules.get(module_name)
        if module is None:
            spec = importlib.util.spec_from_file_location(module_name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as error:
            raise ModelError(f"check {reference!r}: cannot import module {target!r} ({error}); "
                             "put it on PYTHONPATH or give path/to/file.py:function") from None
    function = getattr(module, name, None)
    if not callable(function):
        raise ModelError(f"check {reference!r}: module {target!r} has no function {name!r}")
    return function


def resolve_check(reference: str, search_path: Sequence[str] = ()) -> Check:
    """The :class:`Check` named ``reference``: a built-in name or ``module:function``.

    Raises
    ------
    ModelError
        An unknown name, a module that cannot be imported, a missing function.
    """
    if reference in CHECKS:
        return CHECKS[reference]
    if ":" not in reference:
        raise ModelError(f"unknown check {reference!r}; built-in checks: {', '.join(CHECKS)}; "
                         "or give a user check as module:function")
    user = _load_user_function(reference, search_path)

    def call(model: Model, options: Mapping[str, Any]) -> Verdict:
        return _as_verdict(user(model), f"check {reference!r}")

    return Check(reference, (user.__doc__ or "").strip().split("\n")[0], call)


# ---------------------------------------------------------------------------- one graph
@dataclass(frozen=True)
class GraphTask:
    """Everything a worker needs to check one graph (picklable, small)."""

    check: str
    graph: str
    rates: str
    seed: int
    options: tuple[tuple[str, Any], ...] = ()
    search_path: tuple[str, ...] = ()


def _rates_of(model: Model) -> dict[str, str]:
    values = {f"lambda_{i}": str(r) for i, r in model.arrival_rates.items()}
    values.update({f"mu_{j}": str(r) for j, r in model.service_rates.items()})
    return values


def run_graph(task: GraphTask) -> dict[str, Any]:
    """Check one graph on each of its sample models; the JSON record of the result.

    Exceptions raised by the check are caught and recorded (``status: "error"``), so that one bad
    graph does not stop a sweep.
    """
    start = time.perf_counter()
    graph = graph_from_key(task.graph)
    record: dict[str, Any] = {"graph": graph.key, "classes": graph.class_count,
                              "servers": graph.server_count, "check": task.check,
                              "rates": task.rates, "seed": task.seed,
                              "options": _text(dict(task.options))}
    samples = []
    try:
        check = resolve_check(task.check, task.search_path)
        options = dict(task.options)
        for index, model in enumerate(sample_models(graph, task.rates, task.seed)):
            verdict = _as_verdict(check.function(model, options), f"check {task.check!r}")
            sample: dict[str, Any] = {"index": index,
                                      "status": {True: "pass", False: "fail",
                                                 None: "skip"}[verdict.ok],
                                      "data": _text(verdict.data)}
            if model.is_numeric:
                sample["parameters"] = _rates_of(model)
            if verdict.reason:
                sample["reason"] = verdict.reason
            if verdict.ok is False:
                sample["toml"] = model.to_toml()
            samples.append(sample)
        statuses = {s["status"] for s in samples}
        record["status"] = ("fail" if "fail" in statuses else
                            "pass" if "pass" in statuses else "skip")
    except (SymqError, ArithmeticError, TypeError, ValueError, KeyError, AssertionError,
            RecursionError) as error:
        record["status"] = "error"
        record["error"] = f"{type(error).__name__}: {error}"
    record["samples"] = samples
    record["seconds"] = round(time.perf_counter() - start, 4)
    return record


# ---------------------------------------------------------------------------- executors
class InlineExecutor(cf.Executor):
    """Runs each task at once in this process (``--workers 0``; handy for debugging)."""

    def submit(self, fn, /, *args, **kwargs):
        future: cf.Future = cf.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:  # noqa: BLE001 - handed to the caller through the future
            future.set_exception(error)
        return future


@contextlib.contextmanager
def make_executor(workers: int | None = None, scheduler: str | None = None
                  ) -> Iterator[cf.Executor]:
    """The executor of a sweep: a process pool of ``workers`` (default: all cores; 0 runs in this
    process), or, when ``scheduler`` is an address such as ``tcp://10.0.0.5:8786``, the
    :class:`concurrent.futures.Executor` of a Dask ``distributed.Client`` connected to it.

    Raises
    ------
    UnsupportedError
        ``scheduler`` given but Dask distributed is not installed (``pip install "symq[cluster]"``).
    ModelError
        A negative number of workers, or a scheduler that cannot be reached.
    """
    if scheduler:
        try:
            from distributed import Client
        except ImportError:
            raise UnsupportedError("--scheduler needs Dask distributed: pip install "
                                   "\"symq[cluster]\" (or \"dask[distributed]\")") from None
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as error:
            raise ModelError(f"cannot reach the Dask scheduler {scheduler!r}: {error}") from None
        try:
            yield client.get_executor()
        finally:
            client.close()
        return
    if workers is not None and workers < 0:
        raise ModelError(f"--workers must be 0 or more, not {workers}")
    if workers == 0:
        yield InlineExecutor()
        return
    pool = cf.ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1)
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    else:
        pool.shutdown(wait=True)


# ---------------------------------------------------------------------------- results file
def read_results(path: str | Path) -> list[dict[str, Any]]:
    """The records of a JSON-lines results file; a torn last line (a killed sweep) is dropped."""
    path = Path(path)
    if not path.exists():
        return []
    records = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.endswith("\n"):
                break  # torn write: the sweep was killed while writing this line
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    raise ModelError(f"{path}:{number} is not a JSON line; give --output a "
                                     "results file of symq sweep or a new file") from None
    return records


def _open_for_append(path: Path) -> TextIO:
    if path.exists():
        data = path.read_bytes()
        cut = data.rfind(b"\n") + 1
        if cut < len(data):  # drop a torn last line before appending
            with path.open("r+b") as handle:
                handle.truncate(cut)
    return path.open("a", encoding="utf-8")


# ---------------------------------------------------------------------------- progress
class _Progress:
    def __init__(self, label: str, total: int, done: int, found: int, stream: TextIO | None):
        self.label, self.total, self.done, self.found, self.errors = label, total, done, found, 0
        self.stream = stream
        self.tty = bool(stream and hasattr(stream, "isatty") and stream.isatty())
        self.last = 0.0

    def update(self, record: dict[str, Any] | None = None, final: bool = False) -> None:
        if record is not None:
            self.done += 1
            self.found += record["status"] == "fail"
            self.errors += record["status"] == "error"
        if self.stream is None:
            return
        now = time.monotonic()
        shown = (self.done, self.found, self.errors)
        if final and shown == getattr(self, "shown", None) and not self.tty:
            return
        if not (final or self.tty or now - self.last >= 2 or self.done == self.total):
            return
        self.last, self.shown = now, shown
        width = 24
        filled = width * self.done // max(self.total, 1)
        bar = "#" * filled + "-" * (width - filled)
        text = (f"{self.label} [{bar}] {self.done}/{self.total} graphs, "
                f"{self.found} counterexamples, {self.errors} errors")
        end = "\n" if final or not self.tty else ""
        self.stream.write(("\r" if self.tty else "") + text + end)
        self.stream.flush()


# ---------------------------------------------------------------------------- the sweep
@dataclass
class SweepSummary:
    """Totals of a sweep (including graphs done by earlier runs on the same output file)."""

    check: str
    rates: str
    graphs: int
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    errors: int = 0
    resumed: int = 0
    seconds: float = 0.0
    records: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failed == 0 and self.errors == 0

    def counterexamples(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """``(record, sample)`` for the first failing sample of each failing graph."""
        result = []
        for record in self.records:
            for sample in record.get("samples", []):
                if sample["status"] == "fail":
                    result.append((record, sample))
                    break
        return result

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "rates": self.rates, "graphs": self.graphs,
                "passed": self.passed, "failed": self.failed, "skipped": self.skipped,
                "errors": self.errors, "resumed": self.resumed, "ok": self.ok,
                "seconds": round(self.seconds, 3),
                "counterexamples": [{"graph": r["graph"], "sample": s["index"], "data": s["data"],
                                     "toml": s["toml"]} for r, s in self.counterexamples()],
                "failed_with_error": [{"graph": r["graph"], "error": r["error"]}
                                      for r in self.records if r["status"] == "error"]}


def _same_sweep(record: Mapping[str, Any], task: GraphTask, path: Path) -> None:
    for key, value in (("check", task.check), ("rates", task.rates), ("seed", task.seed),
                       ("options", _text(dict(task.options)))):
        if record.get(key) != value:
            raise ModelError(f"{path} holds results of a sweep with {key} {record.get(key)!r}, "
                             f"not {value!r}; give --output a new file to start another sweep")


def sweep(check: str, max_classes: int, max_servers: int, filters: Iterable[str] = (),
          rates: str | None = None, seed: int = 0, options: Mapping[str, Any] | None = None,
          executor: cf.Executor | None = None, output: str | Path | None = None,
          progress: bool | TextIO = True, graphs: Sequence[CompatibilityGraph] | None = None,
          on_record: Callable[[dict[str, Any]], None] | None = None) -> SweepSummary:
    """Run ``check`` on every graph with at most ``max_classes`` classes and ``max_servers``
    servers (optionally filtered), through ``executor``.

    Parameters
    ----------
    check : a name of :data:`CHECKS` or ``module:function``
    max_classes, max_servers, filters : the graphs (:func:`symq.graphs.compatibility_graphs`)
    rates : ``symbolic``, ``random:N`` or ``light:N`` (default: the check's default)
    seed : seed of the random rates
    options : check options (``max_jobs``, ``disciplines``)
    executor : any :class:`concurrent.futures.Executor`; default: a process pool on all cores
    output : JSON-lines file; graphs already in it are skipped (resume), new ones appended
    progress : False, True (stderr) or a stream for the progress line
    graphs : an explicit list of graphs instead of the enumeration
    on_record : called with each new record as it arrives (in the calling process)

    Returns
    -------
    SweepSummary

    Raises
    ------
    ModelError
        Unknown check or filter, bad rates, symbolic rates for a numeric check, an output file of
        another sweep.
    UnsupportedError
        A check whose machinery this symq does not have yet.
    """
    search_path = (os.getcwd(),)
    resolved = resolve_check(check, search_path)
    spec = parse_rates(rates or resolved.default_rates)
    if resolved.rates == "numeric" and spec.kind == "symbolic":
        raise ModelError(f"check {check!r} needs numeric rates; use --rates "
                         f"{resolved.default_rates} (or random:N / light:N)")
    if graphs is None:
        graphs = compatibility_graphs(max_classes, max_servers, check_filters(filters))
    option_items = tuple(sorted((options or {}).items()))
    tasks = [GraphTask(check, g.key, str(spec), seed, option_items, search_path) for g in graphs]
    start = time.perf_counter()

    # probe: a check whose module has not landed fails here, once, with a clear message
    if tasks and resolved.name in CHECKS:
        _probe(resolved, graphs, spec, seed, dict(option_items))

    path = Path(output) if output else None
    previous = read_results(path) if path else []
    wanted = {t.graph for t in tasks}
    done = {}
    for record in previous:
        if tasks:
            _same_sweep(record, tasks[0], path)
        if record.get("graph") in wanted:
            done[record["graph"]] = record
    pending = [t for t in tasks if t.graph not in done]
    summary = SweepSummary(check, str(spec), len(tasks), resumed=len(done))
    stream = (sys.stderr if progress is True else progress) if progress else None
    bar = _Progress(f"sweep {check}", len(tasks), len(done),
                    sum(r["status"] == "fail" for r in done.values()), stream)
    new_records: dict[str, dict[str, Any]] = {}
    handle = _open_for_append(path) if path else None
    owned = executor is None
    context = make_executor() if owned else contextlib.nullcontext(executor)
    try:
        with context as pool:
            for record in _completed(pool, pending):
                if handle:
                    handle.write(json.dumps(record, sort_keys=True) + "\n")
                    handle.flush()
                new_records[record["graph"]] = record
                if on_record:
                    on_record(record)
                bar.update(record)
    finally:
        if handle:
            handle.close()
    bar.update(final=True)
    order = {t.graph: n for n, t in enumerate(tasks)}
    records = sorted([*done.values(), *new_records.values()], key=lambda r: order[r["graph"]])
    summary.records = records
    for record in records:
        status = record["status"]
        if status == "pass":
            summary.passed += 1
        elif status == "fail":
            summary.failed += 1
        elif status == "skip":
            summary.skipped += 1
        else:
            summary.errors += 1
    summary.seconds = time.perf_counter() - start
    return summary


def _probe(check: Check, graphs: Sequence[CompatibilityGraph], spec: RateSpec, seed: int,
           options: Mapping[str, Any]) -> None:
    """Raise UnsupportedError now if the check's machinery is missing (lazy imports)."""
    if check.name in ("balance", "cor-5.3"):
        smallest = min(graphs, key=lambda g: (g.class_count + g.server_count, g.rows))
        model = sample_models(smallest, spec, seed)[0]
        check.function(model, {**options, "max_jobs": 0} if check.name == "balance" else
                       {**options, "max_jobs": 1})
    elif check.name == "theorem-2.1" and spec.kind == "symbolic":
        check.function(CompatibilityGraph(1, 2, (3,)).to_model(), options)


def _completed(executor: cf.Executor, tasks: Sequence[GraphTask]) -> Iterator[dict[str, Any]]:
    """Records in the order they finish; at most a few tasks per worker are in flight."""
    window = 4 * max(1, getattr(executor, "_max_workers", None) or 16)
    queue = iter(tasks)
    running: set[cf.Future] = set()
    try:
        for task in itertools.islice(queue, window):
            running.add(executor.submit(run_graph, task))
        while running:
            finished, running = cf.wait(running, return_when=cf.FIRST_COMPLETED)
            for future in finished:
                yield future.result()
                for task in itertools.islice(queue, 1):
                    running.add(executor.submit(run_graph, task))
    finally:
        for future in running:
            future.cancel()
