"""Aggregated laws of [GR20]_ sections 5 and 6 against exact truncated chains and identities.

The truncated chains of symq.engines.ctmc (arrivals blocked at N jobs) have the truncation property, so
ratios of their exact (rational, GTH) stationary probabilities equal ratios of the untruncated
laws: every aggregated law is checked *exactly* state by state on small caps.
"""

from collections import defaultdict
from fractions import Fraction

import pytest
import sympy

import symq
from symq.engines import aggregated as ag
from symq.queries import exact as nz
from symq.engines.normalization.rais import rais_values
from symq.engines.normalization.subsets import SubsetGraph
from symq.engines.ctmc import truncated_stationary
from symq.engines.distributions import THETA

W_VALUES = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": "1", "mu_2": "4/5"}
N_VALUES = {"lambda_1": "3/4", "lambda_2": "1/2", "mu_1": "3/2", "mu_2": "1"}
R = sympy.Rational


def _w():
    return symq.model("w").substitute(W_VALUES)


def _n():
    return symq.model("n").substitute(N_VALUES)


def _as_rational(x):
    return sympy.Rational(x.numerator, x.denominator) if isinstance(x, Fraction) else x


def _partial_state(jobs):
    busy, queue = [], []
    for job in jobs:
        if job[0] == "b":
            busy.append(job[1])
            queue.append(0)
        else:
            queue[-1] += 1
    return tuple(busy), tuple(queue)


@pytest.mark.parametrize("make", [_w, _n])
def test_thm_5_1_rais_law_exactly_on_truncated_chain(make):
    model = make()
    law = truncated_stationary(model, "rais", 3, exact=True, assignment=ag.canonical_assignment)
    aggregated = defaultdict(Fraction)
    for (jobs, _), p in law.items():
        aggregated[_partial_state(jobs)] += p
    empty = aggregated[((), ())]
    assert len(aggregated) > 5
    for (busy, queue), p in aggregated.items():
        expected = ag.rais_partial_law(model, busy, queue, normalized=False)
        assert _as_rational(p / empty) == expected, (busy, queue)


def test_thm_5_2_corrected_alis_law_exactly_on_truncated_chain():
    model = _w()
    law = truncated_stationary(model, "alis", 3, exact=True)
    aggregated = defaultdict(Fraction)
    for (jobs, idle), p in law.items():
        busy, queue = _partial_state(jobs)
        aggregated[idle, busy, queue] += p
    reference = (tuple(model.servers), (), ())
    ref = ag.alis_partial_law(model, *reference, normalized=False)
    for (idle, busy, queue), p in aggregated.items():
        expected = ag.alis_partial_law(model, idle, busy, queue, normalized=False) / ref
        assert _as_rational(p / aggregated[reference]) == expected, (idle, busy, queue)


def test_thm_5_2_with_reversed_idle_order_fails():
    """A checker that can fail: reading s_1 as the *most recently* idle server breaks the law."""
    model = _w()
    law = truncated_stationary(model, "alis", 2, exact=True)
    mismatches = 0
    ref_state = (tuple(model.servers), (), ())
    ref = ag.alis_partial_law(model, *ref_state, normalized=False)
    ref_p = sum(p for (jobs, idle), p in law.items() if not jobs and idle == ref_state[0])
    for (jobs, idle), p in law.items():
        if jobs:
            continue
        wrong = ag.alis_partial_law(model, tuple(reversed(idle)), (), (), normalized=False)
        mismatches += _as_rational(p / ref_p) != wrong / ref
    assert mismatches > 0


def test_prop_5_5_collaborative_law_exactly_on_truncated_chain():
    model = _w()
    law = truncated_stationary(model, "collaborative", 4, exact=True)
    aggregated = defaultdict(Fraction)
    sets = {c: frozenset(s) for c, s in model.compatibility.items()}
    for state, p in law.items():
        union, service, queue = frozenset(), [], []
        for c in state:
            if sets[c] <= union:
                queue[-1] += 1
            else:
                union |= sets[c]
                service.append(c)
                queue.append(0)
        aggregated[tuple(service), tuple(queue)] += p
    empty = aggregated[(), ()]
    for (service, queue), p in aggregated.items():
        expected = ag.collaborative_partial_law(model, service, queue, normalized=False)
        assert _as_rational(p / empty) == expected
    # the printed validity condition admits (3, 1) in W, which has probability 0
    assert ag.collaborative_partial_law(model, ("3", "1"), (0, 0)) == 0


@pytest.mark.parametrize("name", ["n", "w"])
def test_cor_5_3_symbolically(name):
    """ALIS summed over idle orders = RAIS, state by state, as rational functions: the ratio of
    the unnormalised laws is the constant G_ALIS / G_RAIS = W(M) for every (b, n)."""
    model = symq.model(name)
    constant = sympy.cancel(nz.normalizing_constant(model, "alis")
                            / nz.normalizing_constant(model, "rais"))
    states = [((), ()), (("1",), (0,)), (("1",), (1,)), (("2",), (0,)), (("1", "2"), (0, 1)),
              (("2", "1"), (1, 0)), (("2", "1"), (0, 2))]
    for busy, queue in states:
        idle = [s for s in model.servers if s not in busy]
        import itertools
        alis = sum(ag.alis_partial_law(model, order, busy, queue, normalized=False)
                   for order in itertools.permutations(idle))
        rais = ag.rais_partial_law(model, busy, queue, normalized=False)
        assert sympy.cancel(alis - constant * rais) == 0, (busy, queue)


def test_cor_5_3_normalized_numeric():
    model = _w()
    assert ag.idle_order_sum(model, ("2",), (1,)) == ag.rais_partial_law(model, ("2",), (1,))


def test_rais_busy_weights_are_products_of_activation_rates():
    """docs/theory-subset-dp.md §2.9: Phi({1}) = 4/15, Phi({2}) = 7/30, Phi({1,2}) = 7/75 for W."""
    w = _w()
    assert [ag.rais_busy_weight(w, b) for b in (["1"], ["2"], ["1", "2"])] == \
        [R(4, 15), R(7, 30), R(7, 75)]
    assert ag.canonical_assignment(w, "3", frozenset({"1", "2"})) == {"1": R(7, 15), "2": R(8, 15)}


# ---------------------------------------------------------------------------- Thm 5.4
def test_thm_5_4_as_printed_is_false_conditionally():
    """N model, class 1, b = (1, 2): the printed conditional mean 32/15 exceeds the hard bound
    E[T | b] <= (1 + E n_1 + E n_2)/mu_1 = 2 (server 1 serves at most the jobs ahead)."""
    n = _n()
    printed = ag.printed_conditional_waiting_time(n, "1", ("1", "2")).mean()
    assert printed == R(32, 15)
    alpha = [ag._Sets(n).alpha(frozenset(x)) for x in (["1"], ["1", "2"])]
    bound = (1 + sum(a / (1 - a) for a in alpha)) / R(3, 2)
    assert bound == 2 and printed > bound


@pytest.mark.parametrize("make,job_class,lst,atom", [
    (_w, "1", R(221, 152) * (100 * THETA**2 + 245 * THETA + 152)
     / ((10 * THETA + 13) * (20 * THETA + 17)), R(221, 304)),
    (_n, "1", R(3, 71) * (152 * THETA**2 + 454 * THETA + 355) / ((4 * THETA + 3) * (4 * THETA + 5)),
     R(57, 142))])
def test_thm_5_4_corrected_waiting_time(make, job_class, lst, atom):
    """docs/theory-subset-dp.md §2.4: the P(b)-mixture, the one-DP LST and the published closed forms agree; the
    mean is L^Q / lambda (Little)."""
    model = make()
    law = ag.waiting_time_law(model, job_class)
    assert sympy.cancel(law.lst(THETA) - lst) == 0
    assert sympy.cancel(ag.waiting_time_lst(model, job_class) - lst) == 0
    assert law.atom() == atom
    graph = SubsetGraph(model)
    queue = rais_values(graph, True)["LQ"][job_class]
    assert law.mean() == graph.arith.expr(queue) / model.arrival_rates[job_class]


def test_busy_order_probabilities_sum_to_one():
    assert sum(ag.busy_order_probability(symq.model("ring:3").substitute(
        {"lambda_1": "1/3", "lambda_2": "1/2", "lambda_3": "1/4",
         "mu_1": 1, "mu_2": "3/4", "mu_3": "2/3"})).values()) == 1


# ---------------------------------------------------------------------------- Thm 6.1
def test_thm_6_1_per_class_law_exactly_on_truncated_chain():
    model = _w()
    law = truncated_stationary(model, "collaborative", 4, exact=True)
    aggregated = defaultdict(Fraction)
    for state, p in law.items():
        aggregated[tuple(state.count(c) for c in model.classes)] += p
    empty = aggregated[(0, 0, 0)]
    for counts, p in aggregated.items():
        x = dict(zip(model.classes, counts))
        expected = ag.balance_function(model, x) * sympy.Mul(
            *(model.arrival_rates[c]**n for c, n in x.items()))
        assert _as_rational(p / empty) == expected, counts


def test_balance_function_is_sum_over_orderings_and_balanced():
    import itertools
    model = symq.model("w")
    x = {"1": 1, "2": 1, "3": 2}
    sets = {c: frozenset(s) for c, s in model.compatibility.items()}
    jobs = [c for c, n in x.items() for _ in range(n)]
    total = 0
    for order in set(itertools.permutations(jobs)):
        union, term = frozenset(), sympy.Integer(1)
        for c in order:
            union |= sets[c]
            term /= sum(model.service_rates[s] for s in union)
        total += term
    assert sympy.cancel(ag.balance_function(model, x) - total) == 0
    rates = ag.balance_rates(model, x)
    assert sympy.cancel(sum(rates.values()) - model.service_rate()) == 0
    fewer = dict(x, **{"1": 0})
    fewer3 = dict(x, **{"3": 1})
    lhs = rates["1"] * ag.balance_rates(model, fewer)["3"]
    rhs = rates["3"] * ag.balance_rates(model, fewer3)["1"]
    assert sympy.cancel(lhs - rhs) == 0
