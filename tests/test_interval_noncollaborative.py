"""The fixed-point interval kernels of ALIS and RAIS against the exact rationals of the two
independent exact routes (symq.engines.normalization.alis and .rais).

* on seeded random graphs of 3 to 12 servers, the floor/ceil intervals contain the exact G
  (of each discipline), pi(empty), every idle probability and every mean number of both
  disciplines, and the certified digits equal the exact rationals rounded;
* disconnected models factor over their components as the exact route does;
* must fail: a precision too small for the digits, a perturbed model, divisions rounded the
  wrong way and a dropped term (the arrivals that start service at once) are caught.
"""

import random
from fractions import Fraction

import pytest

import symq
from symq.errors import UnsupportedError
from symq.models.model import Model
from symq.engines.normalization import interval_noncollaborative as inc
from symq.queries.exact import values
from symq.queries.exact import certified_quantity, certified_values
from symq.engines.normalization.interval_noncollaborative import noncollaborative_bounds
from symq.queries.exact import noncollaborative_intervals
from symq.engines.normalization.subsets import SubsetGraph
from symq.arithmetic.numeric import round_fraction

pytest.importorskip("numpy")

DIGITS = 30


def random_graph(servers, seed, load=Fraction(3, 4)):
    """As benchmarks/certified_bench.py: M classes on 2-4 servers each (rates scaled to stable)."""
    rng = random.Random(seed)
    names = [str(j) for j in range(1, servers + 1)]
    compatibility = {str(c): sorted(rng.sample(names, rng.randint(2, min(4, servers))), key=int)
                     for c in range(1, servers + 1)}
    for s in names:
        if not any(s in v for v in compatibility.values()):
            compatibility[str(rng.randint(1, servers))].append(s)
    mu = {s: Fraction(rng.randint(2, 6), 4) for s in names}
    lam = {c: Fraction(rng.randint(1, 5), 10) for c in compatibility}
    model = Model(compatibility=compatibility, arrival_rates=lam, service_rates=mu)
    while not symq.is_stable(model):
        lam = {c: v * load for c, v in lam.items()}
        model = Model(compatibility=compatibility, arrival_rates=lam, service_rates=mu)
    return model


def _fraction(v):
    return v if isinstance(v, Fraction) else Fraction(int(v.p), int(v.q))


def _exact(model, discipline):
    out, _ = values(model, discipline, True, method="subset-dp")
    return out


@pytest.mark.parametrize("servers,seed", [(3, 1), (5, 2), (7, 3), (9, 4), (12, 5)])
def test_intervals_contain_both_exact_routes(servers, seed):
    model = random_graph(servers, seed)
    graph = SubsetGraph(model)
    bounds = noncollaborative_bounds(graph, 120, per_class=True, idle=True)
    for discipline, key in (("alis", "G_alis"), ("rais", "G_rais")):
        exact = _exact(model, discipline)
        assert bounds[key].contains(_fraction(exact["G"])), discipline
        assert bounds["empty"].contains(_fraction(exact["empty"])), discipline
        for s, v in exact["idle"].items():
            assert bounds["idle"][s].contains(_fraction(v)), (discipline, s)
        for c, v in exact["L"].items():
            assert bounds["L"][c].contains(_fraction(v)), (discipline, c)
    assert bounds["W"].contains(_fraction(_exact(model, "alis")["W"]))
    # widths: 120 bits leave at least 90 correct bits
    for box in (bounds["empty"], *bounds["L"].values(), *bounds["idle"].values()):
        assert (box.upper - box.lower) < box.lower * Fraction(1, 2 ** 90)


@pytest.mark.parametrize("servers,seed", [(6, 7), (10, 8), (12, 9)])
@pytest.mark.parametrize("discipline", ["alis", "rais"])
def test_certified_digits_equal_rounded_exact_rationals(servers, seed, discipline):
    model = random_graph(servers, seed)
    balls, bits = certified_values(model, discipline, True, DIGITS, idle=True)
    exact = _exact(model, discipline)
    pairs = [(balls["G"], exact["G"]), (balls["empty"], exact["empty"])]
    pairs += [(balls["idle"][s], v) for s, v in exact["idle"].items()]
    pairs += [(balls["L"][c], v) for c, v in exact["L"].items()]
    for ball, value in pairs:
        value = _fraction(value)
        assert ball.lower <= value <= ball.upper
        assert ball.text == round_fraction(value, DIGITS)
    assert bits < 200


def test_components_and_structured_parts_factor_as_the_exact_route():
    left, right = random_graph(4, 11), random_graph(5, 12)
    rename = {s: str(int(s) + 4) for s in right.servers}
    compatibility = {**{f"a{c}": list(v) for c, v in left.compatibility.items()},
                     **{f"b{c}": [rename[s] for s in v] for c, v in right.compatibility.items()},
                     "r1": ["10", "11"], "r2": ["11", "12"], "r3": ["10", "12"]}
    lam = {**{f"a{c}": v for c, v in left.arrival_rates.items()},
           **{f"b{c}": v for c, v in right.arrival_rates.items()},
           "r1": Fraction(1, 3), "r2": Fraction(1, 3), "r3": Fraction(1, 3)}
    mu = {**dict(left.service_rates), **{rename[s]: v for s, v in right.service_rates.items()},
          "10": 1, "11": 1, "12": 1}  # a redundancy:3:2 component (exact route)
    model = Model(compatibility=compatibility, arrival_rates=lam, service_rates=mu)
    from symq.queries.exact import structure_route
    from symq.engines.normalization.structured import components
    assert sorted(structure_route(p, "alis") for p in components(model)) == \
        ["redundancy", "subset-dp", "subset-dp"]
    for discipline in ("alis", "rais"):
        exact, _ = values(model, discipline, True)
        boxes = noncollaborative_intervals(model, discipline, True, True, 100)
        for key in ("G", "empty"):
            assert boxes[key].contains(_fraction(symq.arithmetic.exact.to_fraction(exact[key])))
        for c, v in exact["L"].items():
            assert boxes["L"][c].contains(symq.arithmetic.exact.to_fraction(v)), c
        for s, v in exact["idle"].items():
            assert boxes["idle"][s].contains(symq.arithmetic.exact.to_fraction(v)), s


def test_too_small_precision_does_not_certify():
    model = random_graph(8, 13)
    bounds = noncollaborative_bounds(SubsetGraph(model), 40)
    assert bounds["empty"].certify(DIGITS) is None
    with pytest.raises(UnsupportedError, match="could not certify"):
        certified_values(model, "rais", True, DIGITS, start_bits=40, max_bits=60)


def test_an_error_in_the_arrival_sums_is_caught(monkeypatch):
    """The code made wrong (the arrival rate of one idle set off by one unit of the common
    denominator): the intervals then miss the exact values and the digits differ."""
    model = random_graph(7, 14)
    exact = _exact(model, "alis")
    first = model.classes[0]
    right = noncollaborative_bounds(SubsetGraph(model), 120, per_class=True)
    assert right["empty"].contains(_fraction(exact["empty"]))
    assert right["L"][first].contains(_fraction(exact["L"][first]))
    real = inc._arrival_table

    def wrong(graph):
        table = real(graph).copy()
        table[1] += 1
        return table
    monkeypatch.setattr(inc, "_arrival_table", wrong)
    bounds = noncollaborative_bounds(SubsetGraph(model), 120, per_class=True, kernel="python")
    assert not bounds["empty"].contains(_fraction(exact["empty"]))
    assert not all(bounds["L"][c].contains(_fraction(exact["L"][c])) for c in model.classes)
    text = bounds["empty"].certify(DIGITS)
    assert text != round_fraction(_fraction(exact["empty"]), DIGITS)


def test_divisions_rounded_the_wrong_way_are_caught(monkeypatch):
    model = random_graph(6, 15)
    exact = _exact(model, "rais")
    real = inc._divide
    monkeypatch.setattr(inc, "_divide", lambda num, den, shift, up: real(num, den, shift, not up))
    try:
        bounds = noncollaborative_bounds(SubsetGraph(model), 60, per_class=True, kernel="python")
    except ValueError:  # an empty interval: lower bound above the upper bound
        return
    assert not all(box.contains(_fraction(v)) for box, v in
                   [(bounds["empty"], exact["empty"]),
                    *[(bounds["L"][c], exact["L"][c]) for c in model.classes]])


def test_dropping_the_arrivals_that_start_service_at_once_is_caught(monkeypatch):
    model = random_graph(6, 16)
    exact = _exact(model, "alis")
    monkeypatch.setattr(inc, "_arrival_terms", lambda graph, *tables: [
        (Fraction(0), Fraction(0))] * len(graph.masks))
    bounds = noncollaborative_bounds(SubsetGraph(model), 100, per_class=True, kernel="python")
    assert all(bounds["L"][c].upper < _fraction(exact["L"][c]) for c in model.classes)
    assert bounds["empty"].contains(_fraction(exact["empty"]))  # pi(empty) does not use it


def test_certified_quantity_uses_the_kernels_for_both_disciplines(monkeypatch):
    model = random_graph(11, 17)
    calls = []
    real = inc.noncollaborative_bounds
    monkeypatch.setattr(inc, "noncollaborative_bounds",
                        lambda *args, **kw: calls.append(1) or real(*args, **kw))
    for discipline in ("alis", "rais"):
        shown = certified_quantity(model, "mean-response-time", discipline, 20)
        exact = symq.solve(model, "mean-response-time", discipline, digits=20, exact=True)
        assert shown["total"].value == exact.value
        assert {c: v.value for c, v in shown["per_class"].items()} == \
            {c: v.value for c, v in exact.per_class.items()}
    assert len(calls) == 2  # per discipline: one kernel run gives the means and Little's law
