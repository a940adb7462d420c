"""The compiled fixed-point kernels (symq/engines/normalization/limbs.py) against two other routes:
the exact rationals of the exact subset DP (symq.engines.normalization.values, each discipline's
own program) and the Python-integer floor/ceil kernels they replace.

* every connected compatibility graph with at most 3 classes and 3 servers (and seeded random
  graphs up to 10 servers; more under ``slow``): the intervals of G, pi(empty), every idle
  probability and every mean number contain the exact rationals, for ALIS, RAIS and the
  collaborative discipline;
* the compiled and the Python-integer kernels agree to their widths;
* the limb arithmetic round-trips and its exact sums equal Python's;
* must fail: a floor run in place of the ceil run (a wrong rounding direction) is caught.
"""

import itertools
import random
from fractions import Fraction

import pytest

import symq
from symq.models.model import Model
from symq.queries.exact import values
from symq.engines.normalization import limbs
from symq.engines.normalization import interval_noncollaborative as inc
from symq.engines.normalization import interval_collaborative as ico
from symq.engines.normalization.subsets import SubsetGraph
from symq.arithmetic.exact import to_fraction

from tests.routes import random_stable_model

pytest.importorskip("numba")

RATES = [Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(2, 3), Fraction(5, 4)]


def _connected(compat: dict, servers: list) -> bool:
    seen, todo = set(), [servers[0]]
    while todo:
        s = todo.pop()
        if s in seen:
            continue
        seen.add(s)
        for group in compat.values():
            if s in group:
                todo.extend(group)
    return seen == set(servers)


def small_graphs():
    """Every connected graph with 1-3 classes on 1-3 servers (classes as a multiset of server
    sets, every server used), with seeded rates scaled down until stable."""
    out = []
    for m in range(1, 4):
        servers = [str(j) for j in range(1, m + 1)]
        subsets = [tuple(c) for k in range(1, m + 1) for c in itertools.combinations(servers, k)]
        for j in range(1, 4):
            for sets in itertools.combinations_with_replacement(subsets, j):
                compat = {str(c + 1): list(s) for c, s in enumerate(sets)}
                if set().union(*map(set, sets)) != set(servers) or not _connected(compat,
                                                                                   servers):
                    continue
                rng = random.Random(len(out))
                lam = {c: rng.choice(RATES) for c in compat}
                mu = {s: rng.choice(RATES) for s in servers}
                model = Model(compatibility=compat, arrival_rates=lam, service_rates=mu)
                while not symq.is_stable(model):
                    lam = {c: v * Fraction(3, 4) for c, v in lam.items()}
                    model = Model(compatibility=compat, arrival_rates=lam, service_rates=mu)
                out.append(model)
    return out


SMALL = small_graphs()


def _exact(model, discipline):
    raw, _ = values(model, discipline, True, idle=True)
    return {"empty": to_fraction(raw["empty"]),
            "idle": {s: to_fraction(v) for s, v in raw["idle"].items()},
            "L": {c: to_fraction(v) for c, v in raw["L"].items()}}


def _boxes(out):
    yield "empty", out["empty"]
    for s, box in (out["idle"] or {}).items():
        yield ("idle", s), box
    for c, box in out["L"].items():
        yield ("L", c), box


def _value(exact, key):
    return exact["empty"] if key == "empty" else exact[key[0]][key[1]]


def _check_contains(model, bits=64):
    graph = SubsetGraph(model)
    alis, rais = _exact(model, "alis"), _exact(model, "rais")
    assert alis["empty"] == rais["empty"]  # canonical RAIS equals ALIS here (two exact DPs)
    new = inc.noncollaborative_bounds(graph, bits, per_class=True, idle=True, kernel="compiled")
    for key, box in _boxes(new):
        for exact in (alis, rais):
            assert box.lower <= _value(exact, key) <= box.upper, (model.compatibility, key)
    return graph, new


def test_small_graphs_count():
    assert len(SMALL) == 68  # connected; labelled servers, classes as a multiset


@pytest.mark.parametrize("index", range(0, len(SMALL), 3))
def test_every_small_graph_contains_exact(index):
    _check_contains(SMALL[index])


@pytest.mark.slow
@pytest.mark.parametrize("index", [i for i in range(len(SMALL)) if i % 3])
def test_every_small_graph_contains_exact_rest(index):
    _check_contains(SMALL[index])


def _agree(new, old):
    for (key, a), (_, b) in zip(_boxes(new), _boxes(old)):
        assert a.lower <= b.upper and b.lower <= a.upper, key
        mid_a, mid_b = (a.lower + a.upper) / 2, (b.lower + b.upper) / 2
        assert abs(mid_a - mid_b) <= (a.upper - a.lower) + (b.upper - b.lower), key


@pytest.mark.parametrize("servers,seed", [(4, 1), (6, 2), (8, 3), (10, 4)])
def test_random_graphs_contain_exact_and_agree_with_python_kernel(servers, seed):
    model = random_stable_model(servers, seed)
    graph, new = _check_contains(model, bits=80)
    old = inc.noncollaborative_bounds(graph, 80, per_class=True, idle=True, kernel="python")
    _agree(new, old)
    for key, box in _boxes(new):  # the compiled kernel is about as narrow as the old one
        assert box.upper - box.lower < box.lower / 2 ** 60, key


@pytest.mark.slow
@pytest.mark.parametrize("servers,seed", [(s, seed) for s in (5, 7, 9, 10) for seed in (5, 6, 7)])
def test_random_graphs_contain_exact_slow(servers, seed):
    test_random_graphs_contain_exact_and_agree_with_python_kernel(servers, seed)


@pytest.mark.parametrize("index", range(0, len(SMALL), 7))
def test_collaborative_small_graphs_contain_exact(index):
    model = SMALL[index]
    exact = _exact_collaborative(model)
    out = ico.collaborative_bounds(SubsetGraph(model), 64, per_class=True, idle=True)
    for key, box in _boxes(out):
        assert box.lower <= _value(exact, key) <= box.upper, key


def _exact_collaborative(model):
    raw, _ = values(model, "collaborative", True, idle=True)
    return {"empty": to_fraction(raw["empty"]),
            "idle": {s: to_fraction(v) for s, v in raw["idle"].items()},
            "L": {c: to_fraction(v) for c, v in raw["L"].items()}}


def test_limbs_round_trip_and_exact_sums():
    rng = random.Random(3)
    values_ = [rng.getrandbits(rng.randint(0, 200)) for _ in range(50)]
    rows = limbs.to_limbs(values_, limbs.limbs_for(200))
    assert limbs.from_limbs(rows) == values_
    other = [rng.getrandbits(150) for _ in range(50)]
    rows2 = limbs.to_limbs(other, limbs.limbs_for(150))
    idx = list(range(50))
    assert limbs.dot_rows(rows, idx, rows2, idx) == sum(a * b for a, b in zip(values_, other))
    with pytest.raises(ValueError):
        limbs.to_limbs([1 << 62], 2)


def test_zeta_is_exact():
    rng = random.Random(5)
    size = 6
    table = [rng.getrandbits(100) for _ in range(1 << size)]
    rows = limbs.to_limbs(table, limbs.limbs_for(100 + size + 1))
    limbs.zeta(rows, size)
    expected = [sum(table[y] for y in range(1 << size) if y & x == y) for x in range(1 << size)]
    assert limbs.from_limbs(rows) == expected


def test_layer_weights_bracket_exact_recursion():
    model = random_stable_model(7, 9)
    g = SubsetGraph(model)
    exact = [Fraction(0)] * (1 << g.size)
    exact[0] = Fraction(1)
    for x in range(1, 1 << g.size):
        rate = sum(lam for m, lam in zip(g.masks, g.lam_int) if x & m)
        exact[x] = sum(g.mu_int[j] * exact[x ^ (1 << j)]
                       for j in range(g.size) if x >> j & 1) / rate
    low, e_low = limbs.forward_weights(g.size, 40, False, g.mu_int, g.masks, g.lam_int)
    high, e_high = limbs.forward_weights(g.size, 40, True, g.mu_int, g.masks, g.lam_int)
    low, high = limbs.from_limbs(low), limbs.from_limbs(high)
    for x in range(1 << g.size):
        k = bin(x).count("1")
        lo = Fraction(low[x]) * Fraction(2) ** int(e_low[k])
        hi = Fraction(high[x]) * Fraction(2) ** int(e_high[k])
        assert lo <= exact[x] <= hi
        assert hi - lo <= exact[x] / 2 ** 30


def test_must_fail_wrong_rounding_direction(monkeypatch):
    """A floor run where the ceil run belongs: some interval misses the exact value."""
    model = random_stable_model(6, 11)
    exact = _exact(model, "alis")
    real = limbs.forward_weights

    def floor_only(size, bits, up, *args):
        return real(size, bits, False, *args)
    monkeypatch.setattr(limbs, "forward_weights", floor_only)
    out = inc.noncollaborative_bounds(SubsetGraph(model), 24, per_class=True, idle=True,
                                      kernel="compiled")
    missed = [key for key, box in _boxes(out)
              if not box.lower <= _value(exact, key) <= box.upper]
    assert missed


def test_kernel_memory_prediction_is_positive_and_grows():
    small = limbs.kernel_memory_bytes(16, 16, 1796, "alis", 206, True)
    large = limbs.kernel_memory_bytes(24, 24, 63703, "alis", 214, True)
    assert 0 < small < large < 4 * 2 ** 30


@pytest.mark.parametrize("servers,seed", [(4, 1), (7, 2), (10, 3)])
def test_collaborative_random_graphs_contain_exact_and_agree(servers, seed):
    model = random_stable_model(servers, seed)
    exact = _exact_collaborative(model)
    graph = SubsetGraph(model)
    new = ico.collaborative_bounds(graph, 80, per_class=True, idle=True, kernel="compiled")
    old = ico.collaborative_bounds(graph, 80, per_class=True, idle=True, kernel="python")
    for key, box in _boxes(new):
        assert box.lower <= _value(exact, key) <= box.upper, key
        assert box.upper - box.lower < box.lower / 2 ** 60, key
    _agree(new, old)
    order, low, high = ico.exact_cover_bounds(graph, 80)
    edges = ico.union_edges(graph)
    assert (low, high) == (limbs.from_limbs(ico._compiled_rows(edges, 80, False, False)),
                           limbs.from_limbs(ico._compiled_rows(edges, 80, True, False)))
    old_low, old_high = ico._bound_pair(edges, 1 << 80, False)
    assert [int(v) for v in old_low] == low and [int(v) for v in old_high] == high


def test_collaborative_must_fail_wrong_rounding_direction(monkeypatch):
    """The reverse pass floored where the ceil run belongs: a mean number is missed."""
    model = random_stable_model(7, 12)
    exact = _exact_collaborative(model)
    real = ico._compiled_pair

    def floor_reverse(tables, bits, reverse):
        low, high = real(tables, bits, reverse)
        return (low, low) if reverse else (low, high)
    monkeypatch.setattr(ico, "_compiled_pair", floor_reverse)
    out = ico.collaborative_bounds(SubsetGraph(model), 20, per_class=True, kernel="compiled")
    assert [c for c, box in out["L"].items() if not box.lower <= exact["L"][c] <= box.upper]
