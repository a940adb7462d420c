"""Response-time laws of symq.engines.response_time against independent routes.

* means: Little's law from symq.engines.normalization, exactly;
* survival: the tagged job on the truncated verbal CTMC of symq.engines.ctmc, to its truncation bound;
* nested closed forms of the survey's section 4 where both apply;
* a seeded simulation of a 6-server random graph, within its batch-means confidence interval;
* must-fail checks: a wrong server law, and a discipline where later jobs overtake.
"""

from __future__ import annotations

import json
import statistics
from fractions import Fraction

import pytest
import sympy

from symq import model
from symq.engines.aggregated import response_time_law as aggregated_law, waiting_time_lst
from symq.cli import main
from symq.engines.ctmc import truncated_stationary
from symq.engines.distributions import THETA
from symq.engines.nested import collaborative_response_time
from symq.queries.exact import mean_response_time
from symq.engines.response_time import response_time_law, server_law, waiting_time_law
from symq.engines.response_time import noncollaborative
from symq.engines.response_time.law import from_field_element
from symq.engines.response_time.laws import lst
from symq.engines.response_time.setfunctions import SetFunctions
from symq.engines.response_time.simulation import random_model, simulate_alis
from symq.engines.response_time.tagged_chain import (absorption_transform, ahead_transitions,
                                             tagged_start, tagged_survival)

DISCIPLINES = ("collaborative", "alis", "rais")
W = model("w").substitute({"lambda_1": "1/4", "lambda_2": "1/8", "lambda_3": "1/4",
                           "mu_1": "1", "mu_2": "2"})
N = model("n").substitute({"lambda_1": "1/3", "lambda_2": "1/2", "mu_1": "1", "mu_2": "3/2"})
RING3 = model("ring:3").substitute({"lambda_1": "1/6", "lambda_2": "1/4", "lambda_3": "1/8",
                                    "mu_1": "1", "mu_2": "3/4", "mu_3": "2/3"})
RING4 = model("ring:4").substitute({"lambda_1": "1/3", "lambda_2": "1/4", "lambda_3": "1/2",
                                    "lambda_4": "1/5", "mu_1": "1", "mu_2": "3/4", "mu_3": "2",
                                    "mu_4": "1/2"})
RANDOM5 = random_model(servers=5, classes=4, seed=7)
MODELS = {"w": W, "n": N, "ring:3": RING3, "ring:4": RING4, "random5": RANDOM5}


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("discipline", DISCIPLINES)
def test_means_are_littles_law(name, discipline):
    m = MODELS[name]
    expected = mean_response_time(m, discipline)["per_class"]
    for c in m.classes:
        law = response_time_law(m, c, discipline)
        assert sympy.Rational(law.mean()) == sympy.nsimplify(expected[c]), (name, c)
        # the variance by an independent route: sympy's second derivative of the transform
        f = law.lst_expr()
        second = sympy.diff(f, THETA, 2).subs(THETA, 0)
        assert sympy.Rational(law.variance()) == second - sympy.Rational(law.mean()) ** 2
        assert law.variance() > 0 and law.atom == 0


@pytest.mark.parametrize("m, discipline, job_class, kind, cap", [
    (W, "alis", "1", "response", 5), (W, "alis", "3", "response", 5),
    (W, "rais", "3", "waiting", 5), (W, "collaborative", "1", "response", 5),
    (W, "collaborative", "3", "waiting", 5), (N, "rais", "2", "response", 6),
    (RING3, "alis", "2", "response", 3), (RING3, "collaborative", "1", "response", 3),
])
def test_survival_matches_tagged_job_on_the_ctmc(m, discipline, job_class, kind, cap):
    function = response_time_law if kind == "response" else waiting_time_law
    law = function(m, job_class, discipline)
    for t in (Fraction(1, 2), Fraction(2)):
        value = float(law.survival_value(t, 15))
        chain, bound = tagged_survival(m, discipline, job_class, t, kind, max_jobs=cap)
        assert bound < 0.02
        assert abs(value - chain) <= bound, (value, chain, bound)


def _with_server_law(m, job_class, law):
    """The wait of ``job_class`` followed by Exp(mu_s) with s drawn from ``law`` (independent)."""
    sets = SetFunctions(m)
    service = sets.lift(sets.zero)
    for s, p in law.items():
        mu = sets.lift(sets.mu[sets.index[s]])
        service += sets.lift(Fraction(str(p))) * mu / (mu + sets.theta)
    return from_field_element(noncollaborative.waiting_lst(sets, job_class) * service)


def test_must_fail_wrong_server_law_is_detected():
    right_law = server_law(W, "3", "alis")
    assert right_law == {"1": sympy.Rational(15, 43), "2": sympy.Rational(28, 43)}
    wrong_laws = {"uniform": {"1": Fraction(1, 2), "2": Fraction(1, 2)},
                  "swapped": {"1": right_law["2"], "2": right_law["1"]}}
    for t in (Fraction(1, 2), Fraction(2)):
        chain, bound = tagged_survival(W, "alis", "3", t, "response", max_jobs=5)
        right = float(response_time_law(W, "3", "alis").survival_value(t, 15))
        assert abs(right - chain) <= bound
        for name, law in wrong_laws.items():
            wrong = float(_with_server_law(W, "3", law).survival_value(t, 15))
            assert abs(wrong - chain) > 10 * bound, (name, wrong, chain, bound)


def _tagged_states(m, discipline, job_class, cap):
    assignment = None
    if discipline == "rais":
        from symq.engines.response_time.tagged_chain import _assignment
        assignment = _assignment(m, discipline)
    law = truncated_stationary(m, discipline, cap, exact=False,
                               **({"assignment": assignment} if assignment else {}))
    starts = []
    for state in law:
        for start, _ in tagged_start(m, discipline, state, job_class, assignment):
            starts.append(start)
    return starts


@pytest.mark.parametrize("discipline", DISCIPLINES)
@pytest.mark.parametrize("kind", ["waiting", "response"])
def test_later_arrivals_never_delay_the_tagged_job(discipline, kind):
    starts = _tagged_states(W, discipline, "3", cap=1) + _tagged_states(W, discipline, "1", cap=1)
    assert len(starts) >= 4
    for start in starts:
        jobs = len(start) if discipline == "collaborative" else len(start[0])
        alone = absorption_transform(W, discipline, kind, start, Fraction(1), arrivals=False)
        crowded = absorption_transform(W, discipline, kind, start, Fraction(1), arrivals=True,
                                       max_jobs=jobs + 1)
        assert alone == crowded, start


def test_must_fail_overtaking_arrivals_are_detected(monkeypatch):
    """If later arrivals joined *ahead* of the tagged job, the same comparison must fail."""
    import symq.engines.response_time.tagged_chain as tc
    original = tc.ahead_transitions

    def overtaking(m, discipline, kind, arrivals=False, max_jobs=0, assignment=None):
        inner = original(m, discipline, kind, arrivals=False)

        def transitions(state):
            out = list(inner(state))
            if arrivals and len(state) < max_jobs:
                out += [(((c, ""),) + state, m.arrival_rates[c]) for c in m.classes]
            return out
        return transitions
    monkeypatch.setattr(tc, "ahead_transitions", overtaking)
    start = (("1", ""), ("3", "*"))
    alone = tc.absorption_transform(W, "collaborative", "response", start, Fraction(1), False)
    crowded = tc.absorption_transform(W, "collaborative", "response", start, Fraction(1), True,
                                      max_jobs=4)
    assert alone != crowded


def test_nested_formulas_of_section_4():
    for m in (model("n"), W):
        for c in m.classes:
            ours = lst(m, c, "collaborative", "response")
            assert sympy.cancel(ours - collaborative_response_time(m, c).lst(THETA)) == 0
    same_rates = model("w").substitute({"lambda_1": "1/4", "lambda_2": "1/8",
                                        "lambda_3": "1/4", "mu_1": "1", "mu_2": "1"})
    for discipline in ("alis", "rais"):
        for c in same_rates.classes:
            ours = response_time_law(same_rates, c, discipline).lst_expr()
            theirs = aggregated_law(same_rates, c, discipline).lst(THETA)
            assert sympy.cancel(ours - theirs) == 0
            wait = waiting_time_law(same_rates, c, discipline).lst_expr()
            assert sympy.cancel(wait - waiting_time_lst(same_rates, c)) == 0


def test_wait_is_immediate_start_plus_joint_laws_and_server_law_sums_to_one():
    sets = SetFunctions(RANDOM5)
    for c in RANDOM5.classes:
        wait = noncollaborative.waiting_lst(sets, c)
        start = noncollaborative.immediate_start(sets, c)
        parts = sum((sets.lift(p) + noncollaborative.joint_waiting_lst(sets, c, s)
                     for s, p in start.items()), sets.lift(sets.zero))
        assert wait == parts
        assert sum(server_law(RANDOM5, c, "alis").values()) == 1


def test_percentile_is_certified():
    law = response_time_law(W, "3", "alis")
    text = law.percentile(Fraction(95), 12)
    t = Fraction(text)
    assert len(text.replace(".", "").lstrip("0")) == 12, text
    half_unit = Fraction(1, 2 * 10 ** 11)  # the percentile lies in [1, 10): 12 digits
    assert 1 <= t < 10
    import flint
    saved = flint.ctx.prec
    flint.ctx.prec = 200
    try:
        below = law.survival_ball(t - half_unit) - flint.arb(flint.fmpq(1, 20))
        above = law.survival_ball(t + half_unit) - flint.arb(flint.fmpq(1, 20))
    finally:
        flint.ctx.prec = saved
    assert below > 0 and above < 0
    assert waiting_time_law(W, "2", "alis").percentile(Fraction(10), 5) == "0.0000"


def test_simulation_of_a_6_server_random_graph():
    m = random_model(servers=6, classes=6, seed=3)
    t = Fraction(1)
    times = simulate_alis(m, jobs=30000, seed=11)
    for c in m.classes:
        law = response_time_law(m, c, "alis")
        exact = float(law.survival_value(t, 10))
        values = times[c]
        size = len(values) // 20
        batches = [sum(1 for v in values[k * size:(k + 1) * size] if v > 1) / size
                   for k in range(20)]
        error = statistics.stdev(batches) / 20 ** 0.5
        assert abs(statistics.fmean(batches) - exact) <= 4 * error + 1e-3, (c, exact)


ISSUE_COMMAND = ["evaluate", "w", "response-time-survival", "--discipline", "alis", "--time",
                 "1", "--set", "lambda_1=1/2", "--set", "lambda_2=1/4", "--set", "lambda_3=1/2",
                 "--set", "mu_1=1", "--set", "mu_2=2", "--digits", "12", "--json"]


def test_cli_survival_json(capsys):
    assert main(ISSUE_COMMAND) == 0
    data = json.loads(capsys.readouterr().out)
    per_class = data["result"]["per_class"]
    assert per_class["3"]["value"] == "0.261708765234"
    assert abs(sympy.N(sympy.sympify(per_class["3"]["exact"]), 30) - sympy.Rational(
        "0.261708765234")) <= sympy.Rational(1, 2 * 10**12)


def test_cli_response_time_percentile_and_errors(capsys):
    args = ISSUE_COMMAND[:2] + ["response-time"] + ISSUE_COMMAND[3:5] + ISSUE_COMMAND[7:]
    assert main(args + ["--percentile", "95"]) == 0
    data = json.loads(capsys.readouterr().out)["result"]
    assert data["mean"]["3"]["exact"] == "800/1057"
    assert set(data["percentile"]) == {"1", "2", "3"}
    assert data["server"]["3->2"]["exact"] == "112/151"
    assert main(ISSUE_COMMAND[:5] + ISSUE_COMMAND[7:]) == 2            # no --time
    assert main(args + ["--percentile", "100"]) == 2
    assert main(args[:2] + ["empty-probability"] + args[3:] + ["--time", "1"]) == 2
    assert "--time" in capsys.readouterr().err


def test_cli_random_5_server_graph_every_discipline(tmp_path, capsys):
    path = tmp_path / "random5.toml"
    path.write_text(RANDOM5.to_toml())
    for discipline in DISCIPLINES:
        assert main(["evaluate", str(path), "waiting-time-survival", "--discipline", discipline,
                     "--time", "1/2", "--digits", "8", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert set(data["result"]["per_class"]) == set(RANDOM5.classes)


def test_symbolic_derive_small_models(tmp_path):
    # symbolic tagged-job laws for one server and two classes, against the numeric law
    from symq import load
    from symq.queries.quantities import derive
    path = tmp_path / "one.toml"
    path.write_text('[classes.1]\narrival_rate = "lambda_1"\nservers = ["1"]\n'
                    '[classes.2]\narrival_rate = "lambda_2"\nservers = ["1"]\n'
                    '[servers.1]\nservice_rate = "mu_1"\n')
    one = load(str(path))
    values = {"lambda_1": "1/3", "lambda_2": "1/2", "mu_1": "3/2"}
    numeric = {k: sympy.Rational(v) for k, v in values.items()}
    result = derive(one, "response-time", "alis")
    for c in one.classes:
        symbolic = result["lst"][c].subs({s: numeric[s.name] for s in result["lst"][c].free_symbols
                                          if s.name in numeric})
        exact = response_time_law(one.substitute(values), c, "alis").lst_expr()
        assert sympy.cancel(symbolic - exact) == 0
    survival = derive(one, "waiting-time-survival", "rais")["per_class"]["1"]
    assert survival.has(sympy.exp)
    # M/M/1: P(W > t) = rho exp(-(mu - lambda) t)
    lam, mu, t = sympy.Rational(5, 6), sympy.Rational(3, 2), sympy.Rational(1)
    at = survival.subs({s: numeric.get(s.name, t) for s in survival.free_symbols})
    assert sympy.simplify(at - lam / mu * sympy.exp(-(mu - lam) * t)) == 0


def test_symbolic_law_of_the_n_model_comes_quickly():
    # was refused (sympy's factor took 227 s); the structured transform gives it in flint (a
    # hang guard on CPU time, not a speed claim)
    import time
    from symq.queries.quantities import derive
    start = time.process_time()
    result = derive(model("n"), "response-time", "alis")
    assert time.process_time() - start < 20
    values = {"lambda_1": "1/3", "lambda_2": "1/4", "mu_1": "1", "mu_2": "3/2"}
    law = response_time_law(model("n").substitute(values), "2", "alis")
    mean = result["mean"]["2"].subs({s: sympy.Rational(values[s.name])
                                     for s in result["mean"]["2"].free_symbols})
    assert mean == sympy.Rational(law.mean())
