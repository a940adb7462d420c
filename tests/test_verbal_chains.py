"""Product forms of symq.engines.processes against chains written from the verbal models in symq.engines.ctmc.

The chains here come from :mod:`symq.engines.ctmc` (abandonments, an OI multiserver queue, the token
queue, the closed token network, DBM / DBM(K) / DBMA, general and paired matching), whose code
shares nothing with the classes' own ``transitions()``. Each chain is cut with the truncation
property (arrivals that would leave the truncation are rejected), so its exact stationary law is
the product form restricted and renormalized ([GR20] Cor 3.7): the comparison is exact.
"""

import pytest
import sympy

import symq
from symq.engines import ctmc
from symq.models.model import Model
from symq.engines.processes import (ClosedTokenNetwork, CollaborativeQueue, DirectedMatching,
                            GeneralMatching, OrderIndependentQueue, PairedMatching, TokenQueue)
from symq.engines.processes.tokens import collaborative_token_service

from routes import aggregate, as_fraction, assert_same_law, product_form_law

W_RATES = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": "1", "mu_2": "4/5"}
RING_RATES = {"lambda_1": "1/3", "lambda_2": "1/2", "lambda_3": "1/4", "mu_1": "1", "mu_2": "3/4",
              "mu_3": "2/3"}


def chain(initial, transitions, keep=lambda state: True):
    return ctmc.stationary_distribution(ctmc.build_chain(initial, transitions, keep), exact=True)


def abandonment_model():
    return Model(compatibility={"1": ["1"], "2": ["2"], "3": ["1", "2"]},
                 arrival_rates={"1": "1/2", "2": "1/3", "3": "1/4"},
                 service_rates={"1": "1", "2": "2/3"},
                 abandonment_rates={"1": "1/5", "2": "1/7", "3": "1/3"})


def test_abandonment_cor_3_5():
    model = abandonment_model()
    queue = CollaborativeQueue(model)
    law = chain((), ctmc.collaborative_abandonment_transitions(model), lambda s: len(s) <= 4)
    assert_same_law(law, product_form_law(queue, queue.states(4)))


@pytest.mark.parametrize("servers, rates", [(2, {"a": "1/2", "b": "1/3"}),
                                            (3, {"a": "1/2", "b": "1/3", "c": "1/5"})])
def test_general_oi_queue_thm_3_3_against_multiserver_fcfs(servers, rates):
    """The OI queue with mu(c_n) = min(n, K) mu is the multiclass M/M/K FCFS queue."""
    queue = OrderIndependentQueue(rates, lambda s: min(len(s), servers) * sympy.Rational(3, 4))
    law = chain((), ctmc.multiserver_transitions(rates, servers, "3/4"), lambda s: len(s) <= 4)
    assert_same_law(law, product_form_law(queue, queue.states(4)))


def _z_key(state):
    jobs, _ = state
    return tuple(("c", j[1]) if j[0] == "q" else ("b", j[1]) for j in jobs)


def _routing(process):
    def assign(model, job_class, idle):
        busy = frozenset(model.servers) - idle
        return {s: as_fraction(p) for s, p in process.routing[busy][job_class].items()}
    return assign


TOKEN_SERVERS = {"1": ["a"], "2": ["a", "b"]}
TOKEN_RATES = {"a": 1, "b": "1/2"}


@pytest.mark.parametrize("routing", ["canonical", "maxflow"])
def test_token_queue_thm_3_10(routing):
    """Ayesta et al.: RAIT with an assignment-condition routing, a collaborative token layer."""
    model = symq.model("w").substitute({"lambda_1": "1/4", "lambda_2": "1/5", "lambda_3": "1/3",
                                        "mu_1": 1, "mu_2": 1})
    queue = TokenQueue(model, collaborative_token_service(TOKEN_SERVERS, TOKEN_RATES),
                       routing=routing)
    transitions = ctmc.token_queue_transitions(model, TOKEN_SERVERS, TOKEN_RATES,
                                               assignment=_routing(queue))
    law = chain(((), frozenset(model.servers)), transitions, lambda s: len(s[0]) <= 4)
    assert_same_law(aggregate(law, _z_key), product_form_law(queue, queue.states(4)))


def test_closed_token_network():
    class_tokens = {"1": ["x"], "2": ["x", "y"], "3": ["y", "z"]}
    arrivals = {"1": "1/2", "2": "1/3", "3": "1/4"}
    token_servers = {"x": ["1"], "y": ["1", "2"], "z": ["2"]}
    rates = {"1": 1, "2": "2/3"}
    network = ClosedTokenNetwork(class_tokens, arrivals, token_servers, rates)
    law = chain(ctmc.closed_token_initial_state(token_servers),
                ctmc.closed_token_network_transitions(class_tokens, arrivals, token_servers, rates))
    assert_same_law(law, product_form_law(network, network.states(3)))


@pytest.mark.parametrize("name, rates, buffer", [("w", W_RATES, 0), ("w", W_RATES, 2),
                                                 ("w", W_RATES, None),
                                                 ("ring:3", RING_RATES, 1)])
def test_dbm_thm_3_12(name, rates, buffer):
    model = symq.model(name).substitute(rates)
    process = DirectedMatching(model, server_buffer=buffer)
    law = chain(((), ()), ctmc.directed_matching_transitions(model, server_buffer=buffer),
                lambda s: len(s[0]) + len(s[1]) <= 4)
    assert_same_law(law, product_form_law(process, process.states(4)))


def test_dbma_thm_3_13():
    model = abandonment_model()
    patience = {"1": "1/6", "2": "1/2"}
    process = DirectedMatching(model, server_buffer=None, job_buffer=3, server_patience=patience)
    transitions = ctmc.directed_matching_transitions(model, server_buffer=None, job_buffer=3,
                                                     server_patience=patience)
    law = chain(((), ()), transitions, lambda s: len(s[0]) + len(s[1]) <= 4)
    assert_same_law(law, product_form_law(process, process.states(4)))


DIAMOND_EDGES = [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)]
DIAMOND_P = {0: sympy.Rational(20, 62), 1: sympy.Rational(21, 62), 2: sympy.Rational(11, 62),
             3: sympy.Rational(10, 62)}


@pytest.mark.parametrize("edges, probabilities", [
    (DIAMOND_EDGES, DIAMOND_P),
    ([(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)],
     {k: sympy.Rational(k + 3, 30) for k in range(5)})], ids=["diamond", "5-cycle"])
def test_general_matching(edges, probabilities):
    matching = GeneralMatching(edges, probabilities)
    law = chain((), ctmc.general_matching_transitions(edges, probabilities),
                lambda s: len(s) <= 4)
    assert_same_law(law, product_form_law(matching, matching.states(4)))


@pytest.mark.parametrize("name, rates", [("ring:3", RING_RATES), ("w", W_RATES)])
def test_paired_matching(name, rates):
    model = symq.model(name).substitute(rates)
    process = PairedMatching(model)
    law = chain(((), ()), ctmc.paired_matching_transitions(model), lambda s: len(s[0]) <= 3)
    assert_same_law(law, product_form_law(process, process.states(3)))
