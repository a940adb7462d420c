"""Every process of symq.engines.processes against its truncated CTMC at exact rational rates.

The product form of each process, restricted to a truncation with the truncation property
(arrivals that would leave it are rejected) and normalized, must equal the stationary law of the
truncated chain exactly: the truncation error of these conditional laws is zero ([GR20] Cor 3.7).
Where symq.engines.ctmc has its own transition function (collaborative, ALIS, random assignment), that
independent code builds the chain; otherwise the process's own transitions do here, which checks
the product form against the class's chain, and tests/test_verbal_chains.py checks the same
product forms against the chains that symq.engines.ctmc writes from the verbal models.
"""

from fractions import Fraction

import pytest
import sympy

import symq
from symq.engines import ctmc
from symq.errors import ModelError
from symq.models.model import Model
from symq.engines.processes import (AcceptanceRegion, ALISProcess, ClosedTokenNetwork,
                            CollaborativeQueue, DirectedMatching, OrderIndependentQueue,
                            PairedMatching, RandomAssignmentProcess, TokenQueue,
                            check_order_independence)
from symq.engines.processes.tokens import collaborative_token_service

from routes import aggregate, as_fraction, product_form_law

W_RATES = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": "1", "mu_2": "4/5"}
N_RATES = {"lambda_1": "3/4", "lambda_2": "1/2", "mu_1": "3/2", "mu_2": "1"}
RING_RATES = {"lambda_1": "1/3", "lambda_2": "1/2", "lambda_3": "1/4", "mu_1": "1", "mu_2": "3/4",
              "mu_3": "2/3"}


def chain_law(process, max_size) -> dict:
    return ctmc.stationary_distribution(process.truncated_chain(max_size), exact=True)


def assert_same_law(chain, product):
    support = {s for s, p in chain.items() if p}
    assert support == {s for s, p in product.items() if p}
    for s in support:
        assert chain[s] == product[s], s


# ------------------------------------------------------------------ collaborative / OI
@pytest.mark.parametrize("name, rates, cap", [("w", W_RATES, 4), ("n", N_RATES, 5),
                                              ("ring:3", RING_RATES, 3)])
def test_collaborative_product_form_equals_symq_ctmc(name, rates, cap):
    model = symq.model(name).substitute(rates)
    law = ctmc.truncated_stationary(model, "collaborative", cap)
    queue = CollaborativeQueue(model)
    assert_same_law(law, product_form_law(queue, queue.states(cap)))


def test_collaborative_truncated_empty_probability_brackets_the_exact_one():
    """pi_N(0) = pi(0) / P(at most N jobs) decreases to pi(0) (Prop 6.2, another engineer's route)."""
    model = symq.model("w").substitute(W_RATES)
    exact = as_fraction(symq.empty_probability(model))
    previous = Fraction(1)
    for cap in (2, 4, 6):
        queue = CollaborativeQueue(model)
        value = product_form_law(queue, queue.states(cap))[()]
        assert exact < value < previous
        previous = value
    assert previous - exact < Fraction(1, 1000)


def test_loss_region_with_caps_equals_ctmc_with_rejections():
    """Cor 3.7: per-class caps and a total cap; the chain is symq.engines.ctmc's with arrivals rejected."""
    model = symq.model("w").substitute(W_RATES)
    region = AcceptanceRegion(class_caps={"1": 1, "3": 2}, total_cap=4)
    queue = CollaborativeQueue(model, region=region)

    def counts(state):
        return {c: state.count(c) for c in set(state)}
    chain = ctmc.build_chain((), ctmc.collaborative_transitions(model),
                             keep=lambda s: region.contains(counts(s)))
    law = ctmc.stationary_distribution(chain, exact=True)
    assert_same_law(law, product_form_law(queue, queue.states(4)))


def test_region_without_truncation_property_is_refused():
    model = symq.model("w")
    region = AcceptanceRegion(accepts=lambda x: x.get("1", 0) != 1)
    with pytest.raises(ModelError, match=r"truncation property.*\{1: 2\} but not \{1: 1\}"):
        CollaborativeQueue(model, region=region).states(3)
    with pytest.raises(ModelError, match="rejects the empty state"):
        CollaborativeQueue(model, region=AcceptanceRegion(accepts=lambda x: False)).states(2)
    with pytest.raises(ModelError, match="unknown class"):
        CollaborativeQueue(model, region=AcceptanceRegion(class_caps={"9": 1})).states(2)
    with pytest.raises(TypeError):
        AcceptanceRegion(total_cap=1.5)


def _abandonment_model(rates=True) -> Model:
    values = {"1": "1/2", "2": "1/3", "3": "1/4"} if rates else {c: f"lambda_{c}" for c in "123"}
    return Model(compatibility={"1": ["1"], "2": ["2"], "3": ["1", "2"]},
                 arrival_rates=values,
                 service_rates={"1": "1", "2": "2/3"} if rates else {"1": "mu_1", "2": "mu_2"},
                 abandonment_rates={"1": "1/5", "2": "1/7", "3": "1/3"} if rates else
                 {c: f"gamma_{c}" for c in "123"})


def test_abandonment_product_form_equals_truncated_chain():
    """Cor 3.5 against the chain with separate completion and abandonment transitions."""
    queue = CollaborativeQueue(_abandonment_model())
    assert queue.discipline == "collaborative-abandonment"
    assert_same_law(chain_law(queue, 4), product_form_law(queue, queue.states(4)))


def test_abandonment_single_class_is_the_birth_death_law():
    """M/M/1+M: pi(n) = pi(0) prod_i lambda / (mu + i gamma)."""
    lam, mu, gamma = sympy.symbols("lambda mu gamma", positive=True)
    model = Model(compatibility={"1": ["1"]}, arrival_rates={"1": lam}, service_rates={"1": mu},
                  abandonment_rates={"1": gamma})
    queue = CollaborativeQueue(model)
    expected = sympy.prod([lam / (mu + i * gamma) for i in range(1, 4)])
    assert sympy.simplify(queue.product_form(("1",) * 3) - expected) == 0


def test_general_oi_queue_multiclass_two_server_equals_chain():
    """M/M/2 with two classes as an OI queue: mu(c_n) = min(n, 2) mu."""
    queue = OrderIndependentQueue({"a": "1/2", "b": "1/3"}, lambda s: min(len(s), 2),
                                  name="M/M/2")
    check_order_independence(queue, 3)
    assert_same_law(chain_law(queue, 5), product_form_law(queue, queue.states(5)))


def test_rate_function_that_is_not_order_independent_is_named():
    queue = OrderIndependentQueue({"a": 1, "b": 1}, lambda s: 1 if s[0] == "a" else 2)
    with pytest.raises(ModelError, match="not order independent"):
        check_order_independence(queue, 2)
    with pytest.raises(TypeError):
        OrderIndependentQueue({"a": 1}, "not callable")


# ------------------------------------------------------------------ ALIS and RAIS
def _alis_key(state):
    jobs, idle = state
    return (tuple(j[1] for j in jobs if j[0] == "q"), tuple(idle))


@pytest.mark.parametrize("name, rates, cap", [("w", W_RATES, 4), ("n", N_RATES, 5),
                                              ("ring:3", RING_RATES, 4)])
def test_alis_product_form_equals_symq_ctmc(name, rates, cap):
    model = symq.model(name).substitute(rates)
    law = aggregate(ctmc.truncated_stationary(model, "alis", cap), _alis_key)
    process = ALISProcess(model)
    assert_same_law(law, product_form_law(process, process.states(cap)))


def _z_key(state):
    jobs, _ = state
    return tuple(("c", j[1]) if j[0] == "q" else ("b", j[1]) for j in jobs)


def _assignment(process):
    def assign(model, job_class, idle):
        busy = frozenset(model.servers) - idle
        return {s: as_fraction(p) for s, p in process.routing[busy][job_class].items()}
    return assign


@pytest.mark.parametrize("name, rates, cap, routing", [
    ("w", W_RATES, 4, "canonical"), ("n", N_RATES, 5, "canonical"),
    ("ring:3", RING_RATES, 3, "canonical"), ("ring:3", RING_RATES, 3, "maxflow")])
def test_rais_product_form_equals_symq_ctmc(name, rates, cap, routing):
    model = symq.model(name).substitute(rates)
    process = RandomAssignmentProcess(model, routing=routing)
    law = aggregate(ctmc.truncated_stationary(model, "rais", cap,
                                              assignment=_assignment(process)), _z_key)
    assert_same_law(law, product_form_law(process, process.states(cap)))


def test_rais_values_of_the_note_for_the_w_model():
    """The W worked example (tests/REFERENCES.md): P(empty) = 663/1216, three pi(z) values, routing."""
    model = symq.model("w").substitute(W_RATES)
    process = RandomAssignmentProcess(model)
    empty = Fraction(663, 1216)
    assert empty * as_fraction(process.product_form((("b", "1"),))) == Fraction(221, 1520)
    assert empty * as_fraction(process.product_form((("b", "1"), ("b", "2")))) == \
        Fraction(1547, 54720)
    z = (("b", "1"), ("c", "1"), ("b", "2"), ("c", "3"))
    assert empty * as_fraction(process.product_form(z)) == Fraction(1547, 2626560)
    assert process.routing[frozenset()]["3"] == {"1": sympy.Rational(7, 15),
                                                 "2": sympy.Rational(8, 15)}


def test_uniform_rais_on_uninformed_customers_is_cabral_law():
    """One flexible class: uniform is the valid routing; pi(B) = lambda^|B| (M-|B|)!/M!/prod mu."""
    model = symq.model("uninformed:3")
    process = RandomAssignmentProcess(model, routing="uniform")
    lam = model.arrival_rates["1"]
    mu = model.service_rates
    term = process.product_form((("b", "2"), ("b", "3")))
    z_sum = term + process.product_form((("b", "3"), ("b", "2")))
    expected = lam ** 2 * sympy.factorial(1) / sympy.factorial(3) / (mu["2"] * mu["3"])
    assert sympy.simplify(z_sum - expected) == 0


# ------------------------------------------------------------------ tokens
def test_token_queue_equals_truncated_chain():
    model = symq.model("w").substitute({"lambda_1": "1/4", "lambda_2": "1/5", "lambda_3": "1/3"})
    service = collaborative_token_service({"1": ["a"], "2": ["a", "b"]}, {"a": 1, "b": "1/2"})
    queue = TokenQueue(model, service)
    assert_same_law(chain_law(queue, 4), product_form_law(queue, queue.states(4)))


def test_closed_token_network_equals_chain():
    network = ClosedTokenNetwork({"1": ["x"], "2": ["x", "y"], "3": ["y", "z"]},
                                 {"1": "1/2", "2": "1/3", "3": "1/4"},
                                 {"x": ["1"], "y": ["1", "2"], "z": ["2"]}, {"1": 1, "2": "2/3"})
    assert_same_law(chain_law(network, 3), product_form_law(network, network.states(3)))
    with pytest.raises(ModelError, match="unknown token"):
        ClosedTokenNetwork({"1": ["q"]}, {"1": 1}, {"x": ["1"]}, {"1": 1})


# ------------------------------------------------------------------ matching
@pytest.mark.parametrize("buffer", [0, 2, None])
def test_dbm_product_form_equals_truncated_chain(buffer):
    model = symq.model("w").substitute(W_RATES)
    process = DirectedMatching(model, server_buffer=buffer)
    assert_same_law(chain_law(process, 4), product_form_law(process, process.states(4)))


def test_dbma_product_form_equals_truncated_chain():
    process = DirectedMatching(_abandonment_model(), server_buffer=None, job_buffer=3,
                               server_patience={"1": "1/6", "2": "1/2"})
    assert process.discipline == "dbma"
    assert_same_law(chain_law(process, 4), product_form_law(process, process.states(4)))


def test_paired_matching_equals_truncated_chain():
    process = PairedMatching(symq.model("ring:3").substitute(RING_RATES))
    assert_same_law(chain_law(process, 3), product_form_law(process, process.states(3)))


def test_states_are_valid_and_closed_under_transitions():
    """Every transition of a valid state lands on a valid state (or beyond the truncation)."""
    processes = [CollaborativeQueue(symq.model("n")), ALISProcess(symq.model("w")),
                 RandomAssignmentProcess(symq.model("w")),
                 DirectedMatching(symq.model("n"), server_buffer=1),
                 PairedMatching(symq.model("w"))]
    for process in processes:
        states = set(process.states(4))
        for s in states:
            for t in process.transitions(s):
                assert t.target in states or process.size(t.target) == 5, (process, s, t)
