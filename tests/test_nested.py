"""Nested closed forms (Thm 4.5-4.8) against routes that share no code with symq.engines.nested: the
general subset DP (forced, not the nested shortcut), the truncated CTMC of the verbal model (mean
numbers, sojourn-time law), and hand-computed tree formulas for a 200-server tree."""

from fractions import Fraction

import numpy
import pytest
import sympy
from scipy.linalg import expm

import symq
from symq.queries import exact as nz
from symq.engines.aggregated import busy_order_probability, response_time_law, waiting_time_law
from symq.engines.ctmc import truncated_stationary
from symq.engines.distributions import THETA, TIME
from symq.models.model import Model
from symq.engines.nested import (collaborative_response_time, nested_noncollaborative_response_time,
                         nested_queueing_time_given_busy)

from routes import ctmc_means, general_collaborative_values, truncation_bounds


@pytest.mark.parametrize("name,values", [
    ("n", {}), ("w", {}),
    ("nested", {"lambda_1": "1/10", "lambda_2": "1/5", "lambda_3": "1/7", "lambda_4": "1/4",
                "lambda_5": "1/9", "mu_1": 1, "mu_2": "3/4", "mu_3": "5/4"})])
def test_response_time_means_equal_general_dp_means(name, values):
    """E T_c of the nested law (Thm 4.5) = L_c / lambda_c of the general subset DP (Little)."""
    m = symq.model(name).substitute(values) if values else symq.model(name)
    general = general_collaborative_values(m)["L"]
    for c in m.classes:
        expected = general[c] / m.arrival_rates[c]
        assert sympy.cancel(collaborative_response_time(m, c).mean() - expected) == 0, c
        assert sympy.cancel(nz.mean_response_time(m)["per_class"][c] - expected) == 0, c


FOUR_SERVER_TREE = {"compatibility": {"1": ["1"], "2": ["1", "2"], "3": ["3", "4"],
                                      "4": ["1", "2", "3", "4"]},
                    "service_rates": {"1": 1, "2": "1/2", "3": "2/3", "4": 1}}


@pytest.mark.parametrize("m", [
    symq.model("w").substitute({"lambda_1": "1/40", "lambda_2": "1/40", "lambda_3": "1/20",
                                "mu_1": "1", "mu_2": "4/5"}),
    Model(arrival_rates={"1": "1/40", "2": "1/20", "3": "1/30", "4": "1/24"}, **FOUR_SERVER_TREE)],
    ids=["w", "tree4"])
def test_nested_closed_forms_against_truncated_ctmc(m):
    """P(empty), P(server idle), E T_c of the nested closed forms against the truncated chain of
    the verbal collaborative model, within the M/M/1-domination truncation bound."""
    max_jobs = 5
    prob, mean = truncation_bounds(m, max_jobs)
    chain = ctmc_means(m, "collaborative", max_jobs)
    assert abs(float(symq.nested_empty_probability(m)) - chain["empty"]) <= prob
    assert abs(float(nz.empty_probability(m)) - chain["empty"]) <= prob
    idle = nz.server_idle_probability(m)["per_server"]
    for s in m.servers:
        assert abs(float(idle[s]) - chain["idle"][s]) <= prob, s
    for c in m.classes:
        lam = float(m.arrival_rates[c])
        t = float(collaborative_response_time(m, c).mean())
        assert abs(t - chain["L"][c] / lam) <= mean / lam, c


def test_w_model_laws_of_section_4():
    """[GR20] after Thm 4.5: T_3 ~ Exp(mu - lambda), T_i ~ T_Q(lambda_3, hat mu_3) + Exp(mu_i - lambda_i)."""
    m = symq.model("w")
    lam = [m.arrival_rates[c] for c in m.classes]
    mu = [m.service_rates[s] for s in m.servers]
    t3 = collaborative_response_time(m, "3")
    assert sympy.cancel(t3.lst(THETA) - (sum(mu) - sum(lam)) / (sum(mu) - sum(lam) + THETA)) == 0
    t1 = collaborative_response_time(m, "1")
    mu_hat = sum(mu) - lam[0] - lam[1]
    rho = lam[2] / mu_hat
    expected = (1 - rho + rho * (mu_hat - lam[2]) / (mu_hat - lam[2] + THETA)) \
        * (mu[0] - lam[0]) / (mu[0] - lam[0] + THETA)
    assert sympy.cancel(t1.lst(THETA) - expected) == 0


def _sojourn_cdf(model, job_class, max_jobs, times):
    """CDF of a tagged arrival's time in system from the truncated collaborative chain: the
    arrival sees the chain's law on < max_jobs jobs (PASTA), and only the jobs ahead of it
    matter (FCFS; later arrivals never overtake), so its sojourn is the absorption time of the
    acyclic chain 'jobs ahead, then the tagged job' (floats, matrix exponential)."""
    law = truncated_stationary(model, "collaborative", max_jobs, exact=False)
    arrival = {s: p for s, p in law.items() if len(s) < max_jobs}
    total = sum(arrival.values())
    sets = {c: frozenset(v) for c, v in model.compatibility.items()}
    mu = {s: float(v) for s, v in model.service_rates.items()}
    states, index = [], {}

    def visit(state):
        if state in index:
            return
        index[state] = len(states)
        states.append(state)
        for p in range(len(state) - 1):
            visit(state[:p] + state[p + 1:])
    for s in arrival:
        visit(s + ("*",))
    q = numpy.zeros((len(states), len(states)))
    for state, k in index.items():
        used = set()
        for p, c in enumerate(state):
            fresh = (sets[job_class] if c == "*" else sets[c]) - used
            rate = sum(mu[j] for j in fresh)
            used |= fresh
            if rate:
                q[k, k] -= rate
                if c != "*":
                    q[k, index[state[:p] + state[p + 1:]]] += rate
    start = numpy.zeros(len(states))
    for s, p in arrival.items():
        start[index[s + ("*",)]] += p / total
    return [1 - float(start @ expm(q * t) @ numpy.ones(len(states))) for t in times]


def test_w_model_cdf_against_truncated_ctmc_sojourn_law():
    """Truncation: jobs leave at rate >= min mu_j = 4/5 while the system is non-empty; with
    lambda = 1/10 the job count is dominated by an M/M/1 queue of load r = 1/8, so the law an
    arrival sees (conditioned on < max_jobs jobs) moves by at most 2 q/(1 - q), q = r^max_jobs,
    and so does the CDF of its sojourn time."""
    w = symq.model("w").substitute({"lambda_1": "1/40", "lambda_2": "1/40", "lambda_3": "1/20",
                                    "mu_1": "1", "mu_2": "4/5"})
    max_jobs = 5
    times = [0.25, 1.0, 2.0, 5.0]
    q = 0.125 ** max_jobs
    for c in w.classes:
        exact = collaborative_response_time(w, c).cdf(TIME)
        ctmc = _sojourn_cdf(w, c, max_jobs, times)
        for t, value in zip(times, ctmc):
            assert abs(float(exact.subs(TIME, t)) - value) <= 2 * q / (1 - q) + 1e-9, (c, t)


def test_nested_200_servers_closed_forms_match_tree_formulas():
    servers = [str(j) for j in range(1, 201)]
    compatibility = {f"leaf{j}": [j] for j in servers}
    compatibility.update({f"pair{k}": servers[2 * k:2 * k + 2] for k in range(100)})
    compatibility["all"] = servers
    m = Model(compatibility=compatibility,
              arrival_rates={c: Fraction(1, 10) if c.startswith("leaf") else Fraction(1, 20)
                             for c in compatibility}, service_rates={s: 1 for s in servers})
    # hat mu_S = mu(S) - lambda(R(S)) + lambda_S, by hand: a leaf 1; a pair 2 - 2/10; the root
    # 200 - 200/10 - 100/20 (its own 1/20 cancels)
    lam_all = Fraction(1, 20)
    rho_leaf = Fraction(1, 10)
    rho_pair = Fraction(1, 20) / (2 - Fraction(2, 10))
    rho_all = lam_all / (200 - 20 - 5)
    p0 = (1 - rho_leaf) ** 200 * (1 - rho_pair) ** 100 * (1 - rho_all)
    assert nz.empty_probability(m) == p0
    assert symq.nested_empty_probability(m) == p0
    idle = nz.server_idle_probability(m)["per_server"]["1"]
    # P(1 idle) = (1 - rho_leaf)(1 - rho_pair)(1 - rho_all)
    assert idle == (1 - rho_leaf) * (1 - rho_pair) * (1 - rho_all)
    # E T_leaf = 1/(hat mu - lambda) + the M/M/1 waits of the ancestors, rho/(hat mu - lambda)
    wait_pair = rho_pair / (Fraction(18, 10) - Fraction(1, 20))
    wait_all = rho_all / (175 - lam_all)
    t_leaf = 1 / (1 - rho_leaf) + wait_pair + wait_all
    assert nz.mean_response_time(m)["per_class"]["leaf1"] == t_leaf
    assert collaborative_response_time(m, "leaf1").mean() == t_leaf


def test_nested_tree_of_the_200_server_shape_against_general_dp():
    """The same shape with 6 servers (leaves, pairs, root): nested route = general subset DP."""
    servers = [str(j) for j in range(1, 7)]
    compatibility = {f"leaf{j}": [j] for j in servers}
    compatibility.update({f"pair{k}": servers[2 * k:2 * k + 2] for k in range(3)})
    compatibility["all"] = servers
    m = Model(compatibility=compatibility,
              arrival_rates={c: Fraction(1, 10) if c.startswith("leaf") else Fraction(1, 20)
                             for c in compatibility},
              service_rates={s: Fraction(j + 2, 4) for j, s in enumerate(servers)})
    general = general_collaborative_values(m)
    assert nz.empty_probability(m) == general["empty"]
    assert symq.nested_empty_probability(m) == general["empty"]
    assert nz.server_idle_probability(m)["per_server"] == general["idle"]
    assert nz.mean_number(m)["per_class"] == general["L"]
    for c in m.classes:
        assert collaborative_response_time(m, c).mean() == general["L"][c] / m.arrival_rates[c]


def test_nested_general_dp_agrees_on_a_4_server_tree():
    m = symq.loads('''
[classes.1]
arrival_rate = "1/10"
servers = ["1"]
[classes.2]
arrival_rate = "1/5"
servers = ["1", "2"]
[classes.3]
arrival_rate = "1/7"
servers = ["3", "4"]
[classes.4]
arrival_rate = "1/3"
servers = ["1", "2", "3", "4"]
[servers.1]
service_rate = "1"
[servers.2]
service_rate = "1/2"
[servers.3]
service_rate = "2/3"
[servers.4]
service_rate = "1"
''')
    general = general_collaborative_values(m)
    assert nz.structure_route(m, "collaborative") == "nested"
    assert general["empty"] == nz.empty_probability(m)
    assert general["L"] == nz.mean_number(m)["per_class"]


def test_cor_4_7_and_4_8_mixture_equals_thm_5_4_corrected():
    """Nested noncollaborative, equal rates: the busy-set mixture of the Cor 4.7 laws (given
    the unordered busy set) equals the ordered-busy mixture of docs/theory-subset-dp.md §2.4, and its mean plus the
    service mean is the mean response time."""
    m = symq.model("w").substitute({"lambda_1": "1/5", "lambda_2": "1/10", "lambda_3": "3/10",
                                    "mu_1": "1", "mu_2": "1"})
    by_set = {}
    for order, p in busy_order_probability(m).items():
        by_set[frozenset(order)] = by_set.get(frozenset(order), 0) + p
    means = nz.mean_response_time(m, "alis")["per_class"]
    for c in m.classes:
        law = nested_noncollaborative_response_time(m, c, by_set)
        general = response_time_law(m, c, "alis")
        assert sympy.cancel(law.lst(THETA) - general.lst(THETA)) == 0
        assert law.mean() == means[c]
    assert nested_queueing_time_given_busy(m, "1", {"2"}).atom() == 1
