"""The max-flow stability check against brute-force enumeration of class sets."""

import pytest
import sympy
from hypothesis import example, given

import symq
from symq import Model, UnstableModelError
from symq.models.stability import (_violating_classes, brute_force_stability_report, check_stability, stability_conditions,
                            stability_report)

from strategies import models


@given(models(max_classes=5, max_servers=4))
def test_max_flow_margin_equals_brute_force(model):
    flow, brute = stability_report(model), brute_force_stability_report(model)
    assert flow.margin == brute.margin
    # the class set the max-flow names attains the minimum
    assert model.service_rate(flow.servers) - model.arrival_rate(flow.classes) == flow.margin
    assert flow.stable == (brute.margin > 0)
    # the one-max-flow decision agrees, and names a set that really violates the condition
    assert symq.is_stable(model) == (brute.margin > 0)
    violating = _violating_classes(model)
    if violating is not None:
        assert model.arrival_rate(violating) >= model.service_rate(model.servers_of(violating))


@given(models(max_classes=5, max_servers=4))
def test_boundary_load_equal_to_capacity_is_unstable(model):
    """Raise one rate of the tightest set by the margin: that set is then exactly at capacity."""
    brute = brute_force_stability_report(model)
    if brute.margin <= 0:
        return
    first = brute.classes[0]
    rates = dict(model.arrival_rates)
    rates[first] += brute.margin
    boundary = Model(compatibility=model.compatibility, arrival_rates=rates,
                     service_rates=model.service_rates)
    report = stability_report(boundary)
    assert report.margin == 0 == brute_force_stability_report(boundary).margin
    assert not report.stable and not symq.is_stable(boundary)
    tight = _violating_classes(boundary)
    assert boundary.arrival_rate(tight) == boundary.service_rate(boundary.servers_of(tight))
    with pytest.raises(UnstableModelError, match="unstable: classes"):
        check_stability(boundary)


@pytest.mark.parametrize("values,stable", [
    ({"lambda_1": 1, "lambda_2": 1, "lambda_3": 1, "mu_1": 2, "mu_2": 2}, True),
    ({"lambda_1": 2, "lambda_2": "1/2", "lambda_3": "1/2", "mu_1": 2, "mu_2": 2}, False),
    ({"lambda_1": 1, "lambda_2": 1, "lambda_3": 2, "mu_1": 2, "mu_2": 2}, False),
])
def test_w_examples(values, stable):
    w = symq.model("w").substitute(values)
    assert symq.is_stable(w) is stable


def test_error_names_set_and_both_sides():
    w = symq.model("w").substitute({"lambda_1": 1, "lambda_2": 1, "lambda_3": 3,
                                    "mu_1": 2, "mu_2": 2})
    with pytest.raises(UnstableModelError,
                       match=r"classes \{'1', '2', '3'\} bring 5 but their servers "
                             r"\{'1', '2'\} serve only 4"):
        check_stability(w)


def test_symbolic_conditions_of_n_and_ring():
    lam1, lam2, mu1, mu2 = sympy.symbols("lambda_1 lambda_2 mu_1 mu_2", positive=True)
    assert stability_conditions(symq.model("n")) == [(("1",), ("1",)),
                                                     (("1", "2"), ("1", "2"))]
    ring = stability_conditions(symq.model("ring:3"))
    assert len(ring) == 4 and ring[-1][0] == ("1", "2", "3")


def test_symbolic_conditions_are_exactly_the_needed_ones():
    """Each listed condition can be violated alone: drop it and some stable-looking rates exist.

    Brute force: a set is redundant iff it is implied by the listed ones; check on random
    numeric points that the listed conditions are equivalent to all conditions."""
    import random
    rng = random.Random(1)
    for name in ["w", "n", "nested", "ring:3", "ring:4"]:
        m = symq.model(name)
        listed = stability_conditions(m)
        for _ in range(200):
            values = {s.name: sympy.Rational(rng.randint(1, 12), rng.randint(1, 4))
                      for s in m.symbols}
            numeric = m.substitute(values)
            by_list = all(numeric.arrival_rate(a) < numeric.service_rate(b) for a, b in listed)
            assert by_list == (brute_force_stability_report(numeric).margin > 0)
