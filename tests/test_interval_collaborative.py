"""The collaborative DP on fixed-point integer intervals
(symq/engines/normalization/interval_collaborative.py) against the exact rationals of the same model.

* the floor/ceil bounds contain the exact exact-cover weight H(X) of every union, and the
  intervals of G, pi(empty), the idle probabilities and the mean numbers contain the exact values
  (seeded random graphs up to 12 servers, and hypothesis models);
* certified_values (which dispatches collaborative models to these kernels) prints the exact
  rational rounded to the printed digits, also for disconnected graphs and a graph with a ring
  component (ball route for that part);
* the adjoint mean numbers equal the per-class weights route and the server-removal recursion
  exactly (three independent derivations);
* must fail: a perturbed slack, a wrong rounding direction and a too-small precision are caught.
"""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings

import symq
from symq.errors import UnsupportedError
from symq.models.model import Model
from symq.engines.normalization import server_removal_mean_number
from symq.queries.exact import values
from symq.queries.exact import certified_quantity, certified_values
from symq.engines.normalization.collaborative import CollaborativeTables, collaborative_values
from symq.engines.normalization.interval_collaborative import (_forward, adjoint_mean_numbers,
                                                       collaborative_bounds, exact_cover_bounds,
                                                       union_edges)
from symq.engines.normalization.subsets import SubsetGraph
from symq.arithmetic.numeric import round_fraction

from routes import random_stable_model
from strategies import models

pytest.importorskip("numpy")
pytest.importorskip("flint")

DIGITS = 50


def random_graph(servers, seed, load=Fraction(3, 4)):
    """The seeded random graphs of benchmarks/certified_bench.py (M classes on 2-4 servers)."""
    return random_stable_model(servers, seed, load=load)


def frac(v):
    return v if isinstance(v, Fraction) else Fraction(int(v.p), int(v.q))


def exact_values(model):
    out, _ = values(model, "collaborative", True, method="subset-dp")
    return out


def check_bounds_contain_exact(model, bits=120):
    graph = SubsetGraph(model)
    exact = exact_values(model)
    box = collaborative_bounds(graph, bits, per_class=True, idle=True)
    assert box["G"].contains(frac(exact["G"]))
    assert box["empty"].contains(frac(exact["empty"]))
    for s in model.servers:
        assert box["idle"][s].contains(frac(exact["idle"][s]))
    for c in model.classes:
        assert box["L"][c].contains(frac(exact["L"][c]))
    assert box["L_total"].contains(sum(frac(v) for v in exact["L"].values()))
    # every union: low <= 2^bits H(X) <= high
    weights = CollaborativeTables(SubsetGraph(model), False).weight
    order, low, high = exact_cover_bounds(graph, bits)
    assert sorted(order) == sorted(weights)
    for x, lo, hi in zip(order, low, high):
        scaled = frac(weights[x]) * 2 ** bits
        assert lo <= scaled <= hi and hi - lo <= 2 ** 20
    return box


@pytest.mark.parametrize("servers,seed", [(4, 1), (6, 2), (8, 3), (10, 5), (12, 4)])
def test_intervals_contain_exact_values_and_certify(servers, seed):
    model = random_graph(servers, seed)
    check_bounds_contain_exact(model)
    exact = exact_values(model)
    balls, bits = certified_values(model, "collaborative", True, DIGITS)
    assert bits >= DIGITS * 3
    for key in ("G", "empty"):
        assert balls[key].text == round_fraction(frac(exact[key]), DIGITS)
        assert balls[key].contains(frac(exact[key]))
    for s in model.servers:
        assert balls["idle"][s].text == round_fraction(frac(exact["idle"][s]), DIGITS)
    for c in model.classes:
        assert balls["L"][c].text == round_fraction(frac(exact["L"][c]), DIGITS)
        assert balls["L"][c].contains(frac(exact["L"][c]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models(max_classes=5, max_servers=4))
def test_hypothesis_models_bounds_contain_exact(model):
    assume(symq.is_stable(model))
    check_bounds_contain_exact(model, bits=64)
    adjoint = adjoint_mean_numbers(SubsetGraph(model))
    removal = server_removal_mean_number(model)
    for c in model.classes:
        assert frac(adjoint[c]) == Fraction(int(removal[c].p), int(removal[c].q))


def test_edges_go_up_in_the_order():
    edges = union_edges(SubsetGraph(random_graph(10, 3)))
    assert edges.order[0] == 0
    assert all(int(s) < int(d) for s, d in zip(edges.src, edges.dst))
    order = edges.order
    for s, d, c in zip(edges.src, edges.dst, edges.cls):
        assert order[int(s)] | edges.graph.masks[int(c)] == order[int(d)] != order[int(s)]


@pytest.mark.parametrize("servers,seed", [(6, 2), (9, 7), (11, 8)])
def test_adjoint_mean_numbers_equal_the_other_exact_routes(servers, seed):
    model = random_graph(servers, seed)
    adjoint = adjoint_mean_numbers(SubsetGraph(model))
    weights = collaborative_values(SubsetGraph(model), True, route="weights", idle=False)["L"]
    suffix = collaborative_values(SubsetGraph(model), True, route="suffix", idle=False)["L"]
    removal = server_removal_mean_number(model)
    for c in model.classes:
        assert frac(adjoint[c]) == frac(weights[c]) == frac(suffix[c])
        assert frac(adjoint[c]) == Fraction(int(removal[c].p), int(removal[c].q))


def test_heavy_load_disconnected_and_ring_component():
    """Near the stability boundary; two random components (pi(0) is the product); a random
    component beside a ring (kernels for one part, balls for the other): every digit right."""
    heavy = random_graph(7, 7, load=Fraction(99, 100))
    a, b = random_graph(6, 2), random_graph(5, 3)
    ring = symq.model("ring:4").substitute({"lambda_1": "1/3", "lambda_2": "1/5", "lambda_3": "1/7",
                                            "lambda_4": "1/4", "mu_1": "1", "mu_2": "1",
                                            "mu_3": "2", "mu_4": "1"})

    def glue(m1, m2):
        return Model(
            compatibility={**{f"a{c}": [f"a{s}" for s in v] for c, v in m1.compatibility.items()},
                           **{f"b{c}": [f"b{s}" for s in v] for c, v in m2.compatibility.items()}},
            arrival_rates={**{f"a{c}": r for c, r in m1.arrival_rates.items()},
                           **{f"b{c}": r for c, r in m2.arrival_rates.items()}},
            service_rates={**{f"a{s}": r for s, r in m1.service_rates.items()},
                           **{f"b{s}": r for s, r in m2.service_rates.items()}})
    for model in (heavy, glue(a, b), glue(a, ring)):
        exact, _ = values(model, "collaborative", True)
        balls, _ = certified_values(model, "collaborative", True, DIGITS)
        for key in ("G", "empty"):
            assert balls[key].text == round_fraction(frac(exact[key]), DIGITS)
        for s in model.servers:
            assert balls["idle"][s].text == round_fraction(frac(exact["idle"][s]), DIGITS)
            assert balls["idle"][s].contains(frac(exact["idle"][s]))
        for c in model.classes:
            assert balls["L"][c].text == round_fraction(frac(exact["L"][c]), DIGITS)
    rt_exact = symq.solve(heavy, "mean-response-time", digits=30, exact=True)
    rt = certified_quantity(heavy, "mean-response-time", digits=30)
    assert rt["total"].exact is None and rt["total"].value == rt_exact.value
    for c in heavy.classes:
        assert rt["per_class"][c].value == rt_exact.per_class[c].value
        assert rt["per_class"][c].value == round_fraction(
            Fraction(str(rt_exact.per_class[c].exact)), 30)


# ---------------------------------------------------------------------------- must fail
def test_an_error_in_the_slacks_is_caught(monkeypatch):
    """The slack code made wrong (r(X) of the first nonempty union off by one unit of the common
    denominator): the kernels' interval of G then misses the exact G."""
    import symq.engines.normalization.interval_collaborative as ic
    model = random_graph(8, 3)
    exact = frac(exact_values(model)["G"])
    assert collaborative_bounds(SubsetGraph(model), 200)["G"].contains(exact)
    real = ic._slacks

    def wrong(*args):
        r = list(real(*args))
        r[1] += 1  # the first nonempty union
        return r
    monkeypatch.setattr(ic, "_slacks", wrong)
    assert not collaborative_bounds(SubsetGraph(model), 200)["G"].contains(exact)


def test_wrong_rounding_direction_is_caught(monkeypatch):
    """The division code made to round the upper run down as well: its 'upper bound' falls
    below the exact value, so the containment check fails."""
    import symq.engines.normalization.interval_collaborative as ic
    model = random_graph(8, 3)
    edges = union_edges(SubsetGraph(model))
    exact = frac(exact_values(model)["G"]) * 2 ** 100
    assert sum(_forward(edges, 1 << 100, False)) < exact < sum(_forward(edges, 1 << 100, True))
    monkeypatch.setattr(ic, "_divide", lambda acc, r, up: acc / r if up is None else acc // r)
    assert not exact <= sum(ic._forward(edges, 1 << 100, True))


def test_too_small_precision_does_not_certify():
    model = random_graph(8, 3)
    box = collaborative_bounds(SubsetGraph(model), 60, per_class=True)
    assert box["empty"].certify(DIGITS) is None
    assert all(v.certify(DIGITS) is None for v in box["L"].values())
    with pytest.raises(UnsupportedError, match="could not certify"):
        certified_values(model, "collaborative", True, DIGITS, start_bits=40, max_bits=100)
    balls, bits = certified_values(model, "collaborative", True, DIGITS, start_bits=40)
    assert bits > 160  # raised until it certified
    assert balls["empty"].text == round_fraction(frac(exact_values(model)["empty"]), DIGITS)


def test_packed_pass_equals_two_separate_runs():
    """The floor and ceil runs packed into one integer per union give the same integers as the
    two runs done separately (forward weights and reverse adjoint values)."""
    from symq.engines.normalization.interval_collaborative import _bound_pair, _reverse

    for model in (random_graph(9, 6), random_graph(7, 7, load=Fraction(99, 100))):
        edges = union_edges(SubsetGraph(model))
        for bits in (30, 120):
            one = 1 << bits
            low, high = _bound_pair(edges, one, False)
            assert list(low) == list(_forward(edges, one, False))
            assert list(high) == list(_forward(edges, one, True))
            low, high = _bound_pair(edges, one, True)
            assert list(low) == list(_reverse(edges, one, False))
            assert list(high) == list(_reverse(edges, one, True))


def test_unstable_model_is_refused_with_the_stability_message():
    from symq.errors import UnstableModelError

    model = random_graph(8, 3)
    fast = Model(compatibility=model.compatibility,
                 arrival_rates={c: r * 40 for c, r in model.arrival_rates.items()},
                 service_rates=model.service_rates)
    with pytest.raises(UnstableModelError, match="unstable: classes .* bring"):
        certified_values(fast, "collaborative", True, DIGITS)


def test_kernels_and_ball_route_print_the_same_digits():
    """certified_values(kernels=False) keeps the arb route: two certified routes, one answer."""
    model = random_graph(10, 5)
    fixed, fixed_bits = certified_values(model, "collaborative", True, DIGITS)
    balls, ball_bits = certified_values(model, "collaborative", True, DIGITS, kernels=False)
    assert fixed_bits < ball_bits
    for key in ("G", "empty"):
        assert fixed[key].text == balls[key].text
    for s in model.servers:
        assert fixed["idle"][s].text == balls["idle"][s].text
    for c in model.classes:
        assert fixed["L"][c].text == balls["L"][c].text
