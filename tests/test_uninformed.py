"""Cabral's M/M/n with uninformed customers: the law against the chain built from the verbal model,
the FCFS-RAIS product form and the truncated CTMC of symq.engines.ctmc; quantities and the CLI."""

import itertools
import json
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings, strategies as st

from symq import model
from symq.cli import main
from symq.engines.ctmc import busy_servers, job_count, truncated_stationary
from symq.errors import ModelError, UnstableModelError
from symq.queries.quantities import derive
from symq.studies.uninformed import (all_busy_probability, balance_failures, busy_idle_probability,
                             busy_probability, busy_probability_by_states, effective_service_rate,
                             idle_probability, is_uninformed, uninformed_empty_probability,
                             uninformed_mean_number,
                             number_probability, rais_aggregated_weight,
                             rais_product_form_weight, same_rational_function,
                             state_probability, state_weight,
                             stationary_law, uninformed_queue)

LAM = sympy.Symbol("lambda", positive=True)


def numeric(n, lam, mus):
    return uninformed_queue(n, arrival_rate=lam, service_rates=list(mus))


@st.composite
def stable_rates(draw, min_servers=2, max_servers=4):
    """(n, lambda, [mu_1..mu_n]) exact and stable."""
    n = draw(st.integers(min_servers, max_servers))
    mus = [Fraction(draw(st.integers(1, 9)), draw(st.integers(1, 4))) for _ in range(n)]
    load = Fraction(draw(st.integers(1, 19)), 20)
    return n, load * sum(mus), mus


# ------------------------------------------------------------------ balance equations (symbolic)
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_law_satisfies_balance_equations_symbolically(n):
    """Every global-balance equation of the verbal chain holds exactly with symbolic rates."""
    assert balance_failures(uninformed_queue(n), max_queue=2) == []


def test_balance_checker_reports_a_wrong_law():
    """Double one state's weight: the checker must name that state (and its neighbours)."""
    queue = uninformed_queue(3)

    def wrong(busy, q):
        weight = state_weight(queue, busy, q)
        return 2 * weight if busy == frozenset({"1", "2"}) and q == 0 else weight
    failures = balance_failures(queue, wrong)
    assert any("busy=['1', '2'], queue=0" in f for f in failures)


def test_balance_checker_reports_law_without_uniform_factor():
    """Drop (n-|S|)!/n!: the law of informed (or ALIS-like) routing is not this chain's law."""
    queue = uninformed_queue(2)

    def wrong(busy, q):
        return LAM ** len(busy) / sympy.Mul(*[queue.rate(j) for j in busy]) \
            * (LAM / queue.total_rate) ** q
    assert balance_failures(queue, wrong)


# ------------------------------------------------------------------ RAIS product form (Thm 3.10)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_law_equals_rais_product_form_summed_over_orders(n):
    """Cabral's p(S) and Theorem 3.10 with uniform assignment are equal rational functions."""
    queue = uninformed_queue(n)
    for k in range(n + 1):
        for busy in itertools.combinations(queue.servers, k):
            assert same_rational_function(rais_aggregated_weight(queue, busy),
                                          state_weight(queue, busy))
    everyone = queue.servers
    tail = sum(rais_product_form_weight(queue, order, 1)
               for order in itertools.permutations(everyone))
    assert same_rational_function(tail, state_weight(queue, everyone, 1))
    # the comparison can fail: one order's term left out
    pair = everyone[:2]
    assert not same_rational_function(rais_aggregated_weight(queue, pair)
                                      - rais_product_form_weight(queue, pair),
                                      state_weight(queue, pair))


def test_rais_recursion_is_the_sum_over_orders():
    queue = uninformed_queue(3)
    for busy in (["1"], ["1", "3"], ["1", "2", "3"]):
        assert same_rational_function(rais_aggregated_weight(queue, busy, "recursion"),
                                      rais_aggregated_weight(queue, busy, "orders"))
    with pytest.raises(ValueError, match="method"):
        rais_aggregated_weight(queue, ["1"], "guess")


def test_rais_product_form_matches_ctmc_state_by_state():
    """The ordered z-states of symq.engines.ctmc's random-assignment chain follow Theorem 3.10 exactly
    (the truncated chain is the law conditioned on at most max_jobs jobs)."""
    rates = {"lambda": "2", "mu_1": "3", "mu_2": "2", "mu_3": "1"}
    queue = numeric(3, 2, [3, 2, 1])
    law = truncated_stationary(model("uninformed:3").substitute(rates), "rais", max_jobs=5)
    weights = {}
    for state, _ in law.items():
        jobs, _ = state
        order = [job[1] for job in jobs if job[0] == "b"]
        waiting = sum(job[0] == "q" for job in jobs)
        weights[state] = rais_product_form_weight(queue, order, waiting)
    total = sum(weights.values())
    for state, p in law.items():
        assert sympy.Rational(p.numerator, p.denominator) == weights[state] / total


# ------------------------------------------------------------------ against symq.engines.ctmc (exact)
@given(stable_rates(max_servers=3))
def test_closed_form_equals_truncated_ctmc_exactly(rates):
    """Aggregate the random-assignment chain to (busy set, queue length): the truncated law is the
    closed form conditioned on at most max_jobs jobs, exactly."""
    n, lam, mus = rates
    queue = numeric(n, lam, mus)
    values = {"lambda": lam, **{f"mu_{j + 1}": m for j, m in enumerate(mus)}}
    m = model(f"uninformed:{n}").substitute({k: str(v) for k, v in values.items()})
    max_jobs = n + 2
    law = truncated_stationary(m, "rais", max_jobs=max_jobs)
    aggregated = {}
    for state, p in law.items():
        busy = busy_servers(m, state)
        key = (busy, job_count(state) - len(busy))
        aggregated[key] = aggregated.get(key, 0) + p
    closed = stationary_law(queue, max_queue=max_jobs - n)
    mass = sum(closed.values())
    assert set(aggregated) == set(closed)
    for key, p in closed.items():
        assert sympy.Rational(aggregated[key].numerator, aggregated[key].denominator) == p / mass


def test_mean_number_against_long_truncated_ctmc():
    """N from the closed form against the truncated chain with 40 jobs (rho = 1/3: the truncation
    changes the mean by less than 40^2 3^-37 < 1e-14)."""
    rates = {"lambda": "2", "mu_1": "3", "mu_2": "2", "mu_3": "1"}
    m = model("uninformed:3").substitute(rates)
    law = truncated_stationary(m, "rais", max_jobs=40)
    truncated_mean = sum(job_count(s) * p for s, p in law.items())
    exact = uninformed_mean_number(numeric(3, 2, [3, 2, 1]))
    assert exact == sympy.Rational(67, 58)
    assert abs(Fraction(67, 58) - truncated_mean) < Fraction(1, 10 ** 14)


# ------------------------------------------------------------------ quantities: two routes each
@pytest.mark.parametrize("n", [2, 3, 4])
def test_busy_probabilities_two_routes_and_identities(n):
    queue = uninformed_queue(n)
    lam = queue.arrival_rate
    for l in queue.servers:
        assert same_rational_function(busy_probability(queue, l),
                                      busy_probability_by_states(queue, l))
    l, m = queue.servers[0], queue.servers[-1]
    by_states = sum(state_weight(queue, busy) for k in range(1, n)
                    for busy in itertools.combinations(queue.servers, k)
                    if l in busy and m not in busy) * uninformed_empty_probability(queue)
    assert same_rational_function(busy_idle_probability(queue, l, m), by_states)
    # P_l - P_m = P_{l,m} - P_{m,l}
    assert same_rational_function(busy_probability(queue, l) - busy_probability(queue, m),
                                  busy_idle_probability(queue, l, m)
                                  - busy_idle_probability(queue, m, l))
    # throughput: sum of effective rates is lambda
    assert same_rational_function(sum(effective_service_rate(queue, j) for j in queue.servers),
                                  lam)


@given(stable_rates(max_servers=5))
def test_numeric_identities(rates):
    n, lam, mus = rates
    queue = numeric(n, lam, mus)
    law = stationary_law(queue, max_queue=0)
    everyone = frozenset(queue.servers)
    # probabilities over all states: finite part plus the geometric tail sum to one
    rho = sympy.Rational(lam) / sum(mus)
    assert sum(law.values()) + law[(everyone, 0)] * rho / (1 - rho) == 1
    assert sum(number_probability(queue, k) for k in range(n + 1)) \
        + all_busy_probability(queue) - law[(everyone, 0)] == 1
    assert all_busy_probability(queue) == law[(everyone, 0)] / (1 - rho)
    assert state_probability(queue, ()) == uninformed_empty_probability(queue)
    for j in queue.servers:
        assert idle_probability(queue, j) == 1 - busy_probability_by_states(queue, j)


def test_issue_example_server_idle_probabilities_and_ctmc():
    """The issue's command: exact rationals, checked against the truncated CTMC with the bound
    |P_N - P| <= rho^(N-n+1) (the truncated chain is the law conditioned on at most N jobs)."""
    rates = {"lambda": "2", "mu_1": "3", "mu_2": "2", "mu_3": "1"}
    m = model("uninformed:3").substitute(rates)
    idle = derive(m, "server-idle-probability", "rais")["per_server"]
    assert idle == {"1": sympy.Rational(21, 29), "2": sympy.Rational(19, 29),
                    "3": sympy.Rational(15, 29)}
    max_jobs = 12
    law = truncated_stationary(m, "rais", max_jobs=max_jobs)
    bound = Fraction(1, 3) ** (max_jobs - 3 + 1)
    for j, exact in idle.items():
        ctmc = sum(p for s, p in law.items() if j not in busy_servers(m, s))
        assert abs(ctmc - Fraction(exact.p, exact.q)) <= bound
    assert derive(m, "empty-probability", "rais") == sympy.Rational(9, 29)
    assert derive(m, "mean-number", "rais")["total"] == sympy.Rational(67, 58)
    assert derive(m, "normalizing-constant", "rais") == sympy.Rational(29, 9)
    assert derive(m, "mean-response-time", "rais")["per_class"]["1"] == sympy.Rational(67, 116)


@settings(max_examples=5)
@given(stable_rates(max_servers=3))
def test_agrees_with_general_rais_subset_dp(rates):
    """A third route: the general FCFS-RAIS subset DP of symq.engines.normalization."""
    import symq.queries.exact as normalization
    n, lam, mus = rates
    values = {"lambda": str(lam), **{f"mu_{j + 1}": str(m) for j, m in enumerate(mus)}}
    m = model(f"uninformed:{n}").substitute(values)
    queue = uninformed_queue(m)
    general = normalization.server_idle_probability(m, discipline="rais")["per_server"]
    for j in queue.servers:
        assert sympy.simplify(general[j] - idle_probability(queue, j)) == 0
    assert sympy.simplify(normalization.empty_probability(m, discipline="rais")
                          - uninformed_empty_probability(queue)) == 0


# ------------------------------------------------------------------ CLI and handlers
def test_cli_evaluate_prints_exact_rationals(capsys):
    status = main(["evaluate", "uninformed:3", "server-idle-probability", "--discipline", "rais",
                   "--set", "lambda=2", "--set", "mu_1=3", "--set", "mu_2=2", "--set", "mu_3=1",
                   "--json"])
    assert status == 0
    data = json.loads(capsys.readouterr().out)
    assert {j: v["exact"] for j, v in data["result"]["per_server"].items()} == \
        {"1": "21/29", "2": "19/29", "3": "15/29"}


def test_cli_unstable_is_one_line_error(capsys):
    status = main(["evaluate", "uninformed:2", "mean-number", "--discipline", "rais",
                   "--set", "lambda=3", "--set", "mu_1=2", "--set", "mu_2=1"])
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unstable" in err


def test_cli_uninformed_law(capsys):
    assert main(["uninformed", "law", "--servers", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["quantities"]) >= {"p_0", "P_1", "P_2", "N"}


# ------------------------------------------------------------------ bad input
def test_unstable_rates_are_an_error():
    with pytest.raises(UnstableModelError, match="lambda = 6 is not below"):
        numeric(2, 6, [2, 4])


def test_not_an_uninformed_model():
    assert not is_uninformed(model("n"))
    assert is_uninformed(model("uninformed:4"))
    with pytest.raises(ModelError, match="exactly one class"):
        uninformed_queue(model("w"))


def test_bad_arguments():
    queue = uninformed_queue(2)
    with pytest.raises(ModelError, match="unknown server"):
        busy_probability(queue, "7")
    with pytest.raises(ModelError, match="busy and idle"):
        busy_idle_probability(queue, "1", "1")
    with pytest.raises(ModelError, match="every server is busy"):
        state_weight(queue, ["1"], 2)
    with pytest.raises(TypeError):
        uninformed_queue("3")
    with pytest.raises(ModelError, match="float"):
        numeric(2, 0.5, [1, 1])


def test_handlers_apply_to_any_single_flexible_class_model():
    """Names are not assumed: a model with class 'a' and servers 'x', 'y' uses the closed form,
    which agrees with the truncated CTMC exactly up to the conditioning on at most N jobs."""
    from symq.models.model import Model
    m = Model(compatibility={"a": ["x", "y"]}, arrival_rates={"a": "1"},
              service_rates={"x": 2, "y": 1})
    idle = derive(m, "server-idle-probability", "rais")["per_server"]
    queue = uninformed_queue(m)
    assert set(idle) == {"x", "y"} and idle["x"] == idle_probability(queue, "x")
    assert idle["x"] > idle["y"]  # the faster server idles more (Theorem 2.1)
    law = truncated_stationary(m, "rais", max_jobs=8)
    mass = sum(stationary_law(queue, max_queue=6).values())
    empty = sum(p for s, p in law.items() if job_count(s) == 0)
    assert (sympy.Rational(empty.numerator, empty.denominator)
            == uninformed_empty_probability(queue) / mass)
    assert derive(m, "mean-number", "rais")["per_class"]["a"] == uninformed_mean_number(queue)


def test_the_slack_symbol_never_captures_a_rate_of_the_same_name():
    """with_slack writes mu^n = lambda + delta with a new symbol; a queue whose own rate is
    called delta keeps it as a rate (the slack becomes delta_1), so substituting values gives
    the same total rate as before."""
    import sympy
    delta = sympy.Symbol("delta", positive=True)
    queue = uninformed_queue(2, arrival_rate=delta, service_rates=[2, 1])
    slack = queue.with_slack()
    assert slack.slack.name == "delta_1"
    values = {delta: sympy.Rational(1, 2), slack.slack: sympy.Rational(5, 2)}
    assert slack.total_rate.subs(values) == queue.total_rate.subs({delta: sympy.Rational(1, 2)})
    assert uninformed_queue(2).with_slack().slack.name == "delta"
