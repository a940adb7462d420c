"""Prop 6.2 (server-removal recursion) against independent routes.

* the truncated CTMC of the verbal collaborative model (symq.engines.ctmc), within a bounded truncation
  error;
* the nested closed form prod(1 - rho_S) (Thm 4.5), exactly and symbolically;
* hand-derived values (M/M/1, independent queues).
"""

from fractions import Fraction

import pytest
import sympy
from hypothesis import given

import symq
from symq.engines.ctmc import empty_mass, truncated_stationary
from symq.engines.nested import nested_empty_probability
from symq.engines.normalization import collaborative_empty_probability

from strategies import models

MAX_JOBS = 6


@given(models(max_classes=4, max_servers=3, light=True))
def test_recursion_matches_truncated_generator(model):
    """The collaborative chain from the verbal model, cut at 6 jobs, solved in floating point.

    Truncation bound: the oldest job is always served by all of its servers, so while the system
    is non-empty jobs leave at rate at least m = min_i mu(S_i); the number of jobs is dominated by
    an M/M/1 queue with load r = lambda/m <= 1/3 (the strategy's ``light``), so P(N > n) <= r^(n+1).
    Blocking arrivals at n jobs conditions the law on N <= n (truncation property, Cor 3.7), so
    0 <= pi_n(empty) - pi(empty) <= r^(n+1) / (1 - r^(n+1)); 1e-10 covers the float solve.
    """
    exact = collaborative_empty_probability(model)
    law = truncated_stationary(model, "collaborative", MAX_JOBS, exact=False)
    smallest = min(model.service_rate(s) for s in model.compatibility.values())
    r = Fraction(str(model.arrival_rate() / smallest))
    bound = float(r ** (MAX_JOBS + 1) / (1 - r ** (MAX_JOBS + 1)))
    difference = empty_mass(law) - float(exact)
    assert -1e-10 <= difference <= bound + 1e-10


def test_truncated_chain_is_exactly_the_conditioned_law():
    """Exact rationals: with blocking at n jobs, pi_n(empty) * P(N <= n) = pi(empty), checked for
    the W model where P(N <= n) is summed from the chain's own exact law at a deeper cut."""
    w = symq.model("w").substitute({"lambda_1": "1/5", "lambda_2": "1/10", "lambda_3": "1/4",
                                    "mu_1": 1, "mu_2": "4/5"})
    deep = truncated_stationary(w, "collaborative", 4, exact=True)
    shallow = truncated_stationary(w, "collaborative", 3, exact=True)
    mass_up_to_3 = sum(p for state, p in deep.items() if len(state) <= 3)
    assert empty_mass(shallow) * mass_up_to_3 == empty_mass(deep)


@given(models(max_classes=4, max_servers=4, nested=True))
def test_recursion_equals_nested_closed_form_on_random_nested_models(model):
    if not symq.is_stable(model):
        return
    assert collaborative_empty_probability(model) == nested_empty_probability(model)


@pytest.mark.parametrize("name", ["n", "w", "nested", "uninformed:3", "redundancy:3:3"])
def test_recursion_equals_nested_closed_form_symbolically(name):
    m = symq.model(name)
    assert symq.is_nested(m)
    difference = collaborative_empty_probability(m) - nested_empty_probability(m)
    assert sympy.cancel(sympy.together(difference)) == 0


def test_classes_sharing_a_server_set():
    """Two classes on one server: an M/M/1 queue with the summed rate (the printed product over
    classes would be wrong here; symq merges the classes)."""
    m = symq.Model(compatibility={"a": ["1"], "b": ["1"]}, arrival_rates={"a": "1/4", "b": "1/4"},
                   service_rates={"1": 1})
    assert collaborative_empty_probability(m) == sympy.Rational(1, 2)
    assert nested_empty_probability(m) == sympy.Rational(1, 2)


def test_independent_queues_multiply():
    m = symq.Model(compatibility={"a": ["1"], "b": ["2"]}, arrival_rates={"a": "1/2", "b": "1/3"},
                   service_rates={"1": 1, "2": 1})
    assert collaborative_empty_probability(m) == sympy.Rational(1, 2) * sympy.Rational(2, 3)


def test_ring_is_not_nested_but_recursion_still_matches_ctmc():
    ring = symq.model("ring:3").substitute({"lambda_1": "1/10", "lambda_2": "1/5",
                                            "lambda_3": "1/10", "mu_1": 1, "mu_2": 1, "mu_3": 1})
    assert not symq.is_nested(ring)
    exact = collaborative_empty_probability(ring)
    law = truncated_stationary(ring, "collaborative", 7, exact=False)
    # lambda / min mu(S_i) = 2/5 / 2 = 1/5: bound (1/5)^8 / (1 - (1/5)^8) < 3e-6
    assert 0 <= empty_mass(law) - float(exact) < 3e-6


def test_issue_example_w_value():
    w = symq.model("w")
    values = {"lambda_1": "3/10", "lambda_2": "1/5", "lambda_3": "1/2", "mu_1": 1, "mu_2": "4/5"}
    assert symq.empty_probability(w.substitute(values)).exact == sympy.Rational(21, 65)
    assert symq.evaluate(symq.empty_probability(w), values, 40).value == \
        "0.3230769230769230769230769230769230769231"
