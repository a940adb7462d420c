r"""The built-in sweep checks: each takes one :class:`~symq.models.model.Model` and its options and returns
a :class:`~symq.studies.sweep.verdict.Verdict` by comparing two independent routes to one statement of
the theory (max-flow stability against subset enumeration, [GR20]_ Prop 6.2 against the nested
closed form of Thm 4.5 and against the truncated CTMC, the balance equations of the product forms
of Thm 3.3, 3.9 and 3.10, Cor 5.3, and Theorem 2.1 of [Cab]_); :data:`symq.studies.sweep.CHECKS`
(:mod:`symq.studies.sweep.registry`) names them. The machinery each check tests is imported inside the
check, so a test can replace it and a missing piece fails with a clear message.

References
----------
.. [GR20] K. Gardner and R. Righter, "Product forms for FCFS queueing models with arbitrary
   server-job compatibilities: an overview", Queueing Systems 96 (2020) 3-51. arXiv:2006.05979.
.. [Cab] F. B. Cabral, "Queues with heterogeneous servers and uninformed customers: who works the
   most?" (the uninformed model; see ``docs/uninformed.md``).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Iterator, Mapping

import sympy

from symq.errors import UnsupportedError
from symq.models.model import DISCIPLINES, Model
from symq.studies.sweep.sampling import exact_rate, utilization, with_arrival_scale
from symq.studies.sweep.verdict import Verdict

__all__ = ["stability_check", "nested_check", "empty_vs_ctmc_check", "balance_check",
           "cor_5_3_check", "theorem_2_1_check"]


def stability_check(model: Model, options: Mapping[str, Any]) -> Verdict:
    r"""The max-flow stability verdict and margin against the enumeration of class sets.

    At the given rates, at the exact boundary $\lambda(A) = \mu(S(A))$ of the tightest class set
    (arrivals scaled by $1/\rho$, $\rho$ the :func:`~symq.studies.sweep.sampling.utilization`) and at
    twice that load, :func:`symq.models.stability.stability_report` must give the same margin
    $\min_A \mu(S(A)) - \lambda(A)$ and verdict as
    :func:`~symq.models.stability.brute_force_stability_report` (the stability condition of [GR20]_
    section 2): stable exactly when $\rho < 1$, margin 0 at the boundary, and a tightest set
    that attains the margin.

    Parameters
    ----------
    model : Model
        Numeric (exact rational) rates.
    options : mapping
        Unused.

    Returns
    -------
    Verdict
        ``data`` holds the utilization and, per load, both margins and the tightest classes.

    Raises
    ------
    ModelError
        Symbolic rates (the utilization needs numbers).

    Notes
    -----
    Running time: three max-flows and three enumerations, $O(2^I (I + J))$ for $I$ classes and
    $J$ servers.

    Examples
    --------
    >>> from symq import model
    >>> stability_check(model("n").substitute({"lambda_1": 1, "lambda_2": 1, "mu_1": 2,
    ...                                        "mu_2": 3}), {}).ok
    True
    """
    from symq.models.stability import brute_force_stability_report, stability_report

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


def nested_check(model: Model, options: Mapping[str, Any]) -> Verdict:
    r"""The server-removal recursion against the nested closed form, as rational functions.

    For a nested model (the server sets form a laminar family), the probability of the empty
    system by the recursion of [GR20]_ Prop 6.2
    (:func:`symq.engines.normalization.collaborative_empty_probability`) must equal the closed form
    $\prod_S (1 - \rho_S)$ of [GR20]_ Thm 4.5 (:func:`symq.engines.nested.nested_empty_probability`).

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    options : mapping
        Unused.

    Returns
    -------
    Verdict
        None (does not apply) for a graph that is not nested; else ``data`` holds the empty
        probability, and the closed form and the difference when they differ.

    Notes
    -----
    Running time: that of the two formulas (the recursion visits the $2^J$ server sets) and one
    ``cancel`` of their difference.

    Examples
    --------
    >>> from symq import model
    >>> nested_check(model("n"), {}).ok, nested_check(model("ring:3"), {}).ok
    (True, None)
    """
    from symq.engines.nested import is_nested, nested_empty_probability
    from symq.engines.normalization import collaborative_empty_probability

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
    """The truncation depth for ``classes`` classes: 6, lowered (to 2 at least) while the chain
    would have more than about 20000 states."""
    depth = 6
    while depth > 2 and sum(classes ** k for k in range(depth + 1)) > 20000:
        depth -= 1
    return depth


def empty_vs_ctmc_check(model: Model, options: Mapping[str, Any]) -> Verdict:
    r"""[GR20]_ Prop 6.2 against the truncated collaborative CTMC, within the truncation bound.

    With $r = \lambda / \min_i \mu(S_i) < 1$: the oldest job is served by all of $S_i$, so the
    number of jobs is dominated by an M/M/1 queue of load $r$, and blocking at $n$ jobs conditions
    on $N \le n$ ([GR20]_ Cor 3.7), so $0 \le \pi_n(\emptyset) - \pi(\emptyset) \le
    r^{n+1}/(1-r^{n+1})$. The chain is built from the verbal model by :mod:`symq.engines.ctmc`,
    independently of the product form.

    Parameters
    ----------
    model : Model
        Numeric (exact rational) rates, light load (``--rates light:N``).
    options : mapping
        ``max_jobs``: the truncation $n$ (default 6, lowered to keep about 20000 states).

    Returns
    -------
    Verdict
        None (does not apply) when $r \ge 1$; else ``data`` holds both values, their difference
        and the bound.

    Raises
    ------
    ModelError
        Symbolic rates (the chain is solved in floating point).

    Notes
    -----
    Running time: one sparse solve of the truncated chain ($O(I^n)$ states) and the recursion.

    Examples
    --------
    >>> from symq import model
    >>> light = model("n").substitute({"lambda_1": "1/10", "lambda_2": "1/10", "mu_1": 1,
    ...                                "mu_2": 1})
    >>> empty_vs_ctmc_check(light, {"max_jobs": 4}).ok
    True
    """
    from symq.engines.ctmc import empty_mass, truncated_stationary
    from symq.engines.normalization import collaborative_empty_probability

    smallest = min(exact_rate(model.service_rate(s)) for s in model.compatibility.values())
    r = exact_rate(model.arrival_rate()) / smallest
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


def balance_check(model: Model, options: Mapping[str, Any]) -> Verdict:
    r"""The balance residuals of the product forms vanish on every small state.

    For each discipline (collaborative, ALIS, RAIS: the product forms of [GR20]_ Thm 3.3, 3.9 and
    3.10), :func:`symq.engines.balance.verify` puts the product form into the global balance equation of
    every state with at most ``max_jobs`` jobs; every residual must be 0.

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    options : mapping
        ``disciplines`` (default all three) and ``max_jobs`` (default 2).

    Returns
    -------
    Verdict
        ``data`` holds, per discipline, the states and equations checked, the number of nonzero
        residuals and the first failure.

    Raises
    ------
    UnsupportedError
        A symq without :func:`symq.engines.balance.verify`.

    Notes
    -----
    Running time: one exact residual per state; the ordered states with at most $m$ jobs number
    about $J!\binom{m+J}{J}$.

    Examples
    --------
    >>> from symq import model
    >>> balance_check(model("n"), {"max_jobs": 1}).ok
    True
    """
    try:
        from symq.engines.balance import verify
    except ImportError as error:
        raise UnsupportedError("check 'balance' needs symq.engines.balance.verify(model, discipline, "
                               f"max_jobs), which this symq does not have yet ({error})") from None
    disciplines = options.get("disciplines") or DISCIPLINES
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


def cor_5_3_check(model: Model, options: Mapping[str, Any]) -> Verdict:
    r"""ALIS summed over the idle orders equals RAIS ([GR20]_ Cor 5.3).

    On every ordered busy vector $\vec b$ and queue vector $\vec n$ with at most ``max_jobs``
    waiting jobs, the unnormalized ALIS law summed over the orders of the idle servers
    (:func:`symq.engines.aggregated.alis_partial_law`) must be one constant multiple $c$ of the
    unnormalized RAIS law (:func:`~symq.engines.aggregated.rais_partial_law`); for numeric rates $c$ must
    be exactly $G_{\rm ALIS}\,\pi_{\rm RAIS}(\emptyset)$ (two probability laws proportional on
    every state are equal).

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    options : mapping
        ``max_jobs``: the largest total queue length (default 1).

    Returns
    -------
    Verdict
        ``data`` holds the number of states checked and the ratio; a failure names the state and
        the difference.

    Raises
    ------
    UnsupportedError
        A symq without :mod:`symq.engines.aggregated`.

    Notes
    -----
    Running time: about $J!\,\binom{m+J}{J}$ states for $m$ = ``max_jobs``, each summing up to
    $J!$ ALIS terms; symbolic rates beyond 3 servers are slow.

    Examples
    --------
    >>> from symq import model
    >>> cor_5_3_check(model("n"), {}).ok
    True
    """
    try:
        from symq.engines.aggregated import alis_partial_law, rais_partial_law
    except ImportError as error:
        raise UnsupportedError("check 'cor-5.3' needs symq.engines.aggregated.alis_partial_law and "
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
        from symq.engines.normalization import empty_probability, normalizing_constant

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


def theorem_2_1_check(model: Model, options: Mapping[str, Any]) -> Verdict:
    r"""[Cab]_ Theorem 2.1 for one class served by every server: faster servers are busy less of
    the time but do more work.

    With $\mu_l > \mu_m$: $P_l < P_m$ and $\mu_l P_l > \mu_m P_m$ for the busy probabilities
    $P_l$. For symbolic rates every sign certificate of
    :func:`symq.studies.uninformed.theorem_2_1_certificates` must be found; for numeric rates the
    inequalities are checked exactly on the RAIS law of the subset dynamic program
    (:func:`symq.engines.normalization.server_idle_probability`), independent of :mod:`symq.studies.uninformed`.

    Parameters
    ----------
    model : Model
        One class compatible with at least 2 servers; symbolic or numeric rates.
    options : mapping
        Unused.

    Returns
    -------
    Verdict
        None (does not apply) for other graphs; else ``data`` holds the number of certificates
        proved, or the busy probabilities and the violated inequalities.

    Raises
    ------
    UnsupportedError
        Symbolic rates and a symq without :mod:`symq.studies.uninformed`.

    Notes
    -----
    Running time: symbolic, $3n(n-1)$ certificate searches on rational functions of $n+2$
    variables; numeric, one RAIS law by the subset dynamic program ($2^n$ server sets).

    Examples
    --------
    >>> from symq import model
    >>> theorem_2_1_check(model("uninformed:2").substitute({"lambda": 1, "mu_1": 2,
    ...                                                    "mu_2": 1}), {}).ok
    True
    """
    if len(model.classes) != 1 or len(model.servers) < 2:
        return Verdict(None, reason="Theorem 2.1 is about one class served by at least 2 servers")
    if not model.is_numeric:
        try:
            from symq.studies.uninformed import theorem_2_1_certificates
        except ImportError as error:
            raise UnsupportedError("check 'theorem-2.1' with symbolic rates needs "
                                   "symq.studies.uninformed.theorem_2_1_certificates, which this symq "
                                   f"does not have yet ({error}); use --rates random:N") from None
        # sign certificates for the symbolic n-server queue (mu^n = lambda + delta)
        certificates = theorem_2_1_certificates(len(model.servers))
        unproved = [c.text() for c in certificates if not c.proved]
        data: dict[str, Any] = {"certificates": len(certificates),
                                "proved": len(certificates) - len(unproved)}
        if unproved:
            data["unproved"] = unproved
        return Verdict(not unproved, data)
    from symq.engines.normalization import server_idle_probability

    # independent of symq.studies.uninformed: the RAIS law by the subset dynamic program
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
