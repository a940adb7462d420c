"""Rings in the collaborative discipline (symq.engines.normalization.ring): the O(M^3) arc/transfer
recursion against the general subset DP, exactly, for rings of 3..10 servers with random rational
rates (G, idle probabilities, mean numbers by the adjoint pass), against the truncated CTMC of
the verbal model for ring:3, and must-fail checks with an injected error."""

from __future__ import annotations

import random

import pytest

import symq
from symq import Model
from symq.engines.ctmc import busy_servers, class_counts, empty_mass, truncated_stationary
from symq.queries.exact import empty_probability, mean_number, structure_route
from symq.engines.normalization import ring as ring_module
from symq.engines.normalization.collaborative import collaborative_values
from symq.engines.normalization.ring import is_ring, ring_order, ring_values
from symq.engines.normalization.subsets import SubsetGraph


def random_ring(m: int, seed: int, shuffle: bool = False) -> Model:
    rng = random.Random(seed)
    servers = [f"s{j}" for j in range(m)]
    if shuffle:  # server names out of cyclic order: ring_order must find the cycle
        rng.shuffle(servers)
    comp = {f"c{i}": [servers[i], servers[(i + 1) % m]] for i in range(m)}
    lam = {c: f"{rng.randint(1, 4)}/{rng.randint(6, 11)}" for c in comp}
    mu = {s: f"{rng.randint(2, 6)}/{rng.randint(1, 3)}" for s in servers}
    return Model(compatibility=comp, arrival_rates=lam, service_rates=mu)


@pytest.mark.parametrize("m", range(3, 11))
def test_ring_matches_the_general_subset_dp_exactly(m):
    check_against_the_general_dp(random_ring(m, seed=m, shuffle=m % 2 == 0))


def check_against_the_general_dp(model: Model) -> None:
    """The check of the test above (the must-fail tests below run it with an injected error)."""
    fast = ring_values(model, per_class=True)
    general = collaborative_values(SubsetGraph(model), per_class=True)
    assert fast["G"] == general["G"]
    assert fast["idle"] == general["idle"]
    assert fast["L"] == general["L"]


def test_auto_dispatch_uses_the_ring_route():
    model = random_ring(7, seed=1)
    assert structure_route(model, "collaborative") == "ring"
    assert structure_route(model, "alis") != "ring"  # collaborative only
    assert empty_probability(model) == empty_probability(model, method="subset-dp")
    assert mean_number(model) == mean_number(model, method="subset-dp")


def test_ring3_matches_the_truncated_ctmc():
    model = symq.model("ring:3").substitute({"lambda_1": "1/16", "lambda_2": "1/8",
                                             "lambda_3": "1/16", "mu_1": "1", "mu_2": "3/2",
                                             "mu_3": "1"})
    assert structure_route(model, "collaborative") == "ring"
    law = truncated_stationary(model, "collaborative", 6, exact=False)
    values = ring_values(model, per_class=True)
    tol = 1e-4  # mass beyond 6 jobs at loads <= 1/8 per server
    assert abs(empty_mass(law) - float(values["empty"])) < tol
    for s, p in values["idle"].items():
        assert abs(sum(q for st, q in law.items() if s not in busy_servers(model, st)) - float(p)) < tol
    for c, v in values["L"].items():
        assert abs(sum(q * class_counts(st).get(c, 0) for st, q in law.items()) - float(v)) < 5 * tol


def test_detection():
    assert ring_order(symq.model("ring:5")) == (list("12345"), list("12345"))
    assert not is_ring(symq.model("w")) and not is_ring(symq.model("nested"))
    line = Model(compatibility={"a": ["1", "2"], "b": ["2", "3"], "c": ["3", "4"]},
                 arrival_rates={"a": "1/4", "b": "1/4", "c": "1/4"},
                 service_rates={j: "1" for j in "1234"})
    assert not is_ring(line)
    two_triangles = Model(compatibility={"a": ["1", "2"], "b": ["2", "3"], "c": ["3", "1"],
                                         "d": ["4", "5"], "e": ["5", "6"], "f": ["6", "4"]},
                          arrival_rates={c: "1/4" for c in "abcdef"},
                          service_rates={j: "1" for j in "123456"})
    assert not is_ring(two_triangles)  # two cycles: the components route handles it
    with pytest.raises(ValueError, match="needs a ring"):
        ring_values(line)


def test_an_injected_error_in_the_arc_weights_is_caught(monkeypatch):
    # must fail on purpose: the forward pass with one arrival rate off by 10^-30 (relative):
    # the exact comparison of the test above must see it
    model = random_ring(6, seed=4)
    forward = ring_module._forward

    def wrong(lam, mu, c, ccyc, one, zero):
        lam = list(lam)
        lam[0] = lam[0] * (1 + type(lam[0])(1) / 10 ** 30)
        return forward(lam, mu, c, ccyc, one, zero)
    check_against_the_general_dp(model)
    monkeypatch.setattr(ring_module, "_forward", wrong)
    with pytest.raises(AssertionError):
        check_against_the_general_dp(model)


def test_an_injected_error_in_the_adjoint_is_caught(monkeypatch):
    model = random_ring(5, seed=5)
    adjoint = ring_module._adjoint

    def wrong(*args):
        grad = adjoint(*args)
        return [grad[0] + grad[0] / 10 ** 30] + grad[1:]
    check_against_the_general_dp(model)
    monkeypatch.setattr(ring_module, "_adjoint", wrong)
    with pytest.raises(AssertionError):
        check_against_the_general_dp(model)
