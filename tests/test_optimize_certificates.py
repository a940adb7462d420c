"""Tests that a certificate of symq.optimize cannot pass wrongly (issue 39, item 2).

* Krawczyk's test on boxes known to hold no zero, two zeros, or a saddle must refuse; its
  Sylvester test (elimination in balls) must refuse an indefinite Jacobian whose first pivot is
  positive (an elimination sign flipped would accept it).
* The budget grammar's boundaries: zero, negative, exactly unstable capacities are refused;
  the smallest stable ones are accepted.
* Negative weights, digits past the limit, work past the limit: refused with one line.
* Property (hypothesis): random small models and budgets; the certified minimum is at most
  every exact value on a grid of the budget set (the second route).
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import symq
from symq.engines.second_order import ball_of, objective_gradient
from symq.queries.optimize import _grid, _stable, krawczyk, parse_budget


def _in_prec(fn):
    from flint import ctx
    with ctx.workprec(128):
        return fn()


# ------------------------------------------------------------------------------ Krawczyk
def test_krawczyk_refuses_a_box_without_a_zero():
    # F(y) = y^2 - 2 on [1.5, 1.6]: no zero (sqrt 2 = 1.414...)
    c, r = Fraction(31, 20), Fraction(1, 20)
    cert = _in_prec(lambda: krawczyk([c], r, [c * c - 2], [[2 * ball_of(c - r, c + r)]]))
    assert cert.inside is False


def test_krawczyk_refuses_a_box_with_two_zeros():
    # F(y) = y^2 - 1 on [-2, 2]: zeros -1 and 1; J(B) = 2B holds 0
    c, r = Fraction(0), Fraction(2)
    cert = _in_prec(lambda: krawczyk([c], r, [c * c - 1], [[2 * ball_of(-2, 2)]]))
    assert cert.inside is False
    # a box holding only the zero 1 is accepted (the test can pass)
    c, r = Fraction(1), Fraction(1, 10)
    cert = _in_prec(lambda: krawczyk([c], r, [c * c - 1], [[2 * ball_of(c - r, c + r)]]))
    assert cert.inside and cert.positive


def test_krawczyk_refuses_a_saddle():
    # F = grad(y1^2 - y2^2) = (2 y1, -2 y2): one zero at 0, but a saddle: not positive
    cert = _in_prec(lambda: krawczyk(
        [Fraction(0), Fraction(0)], Fraction(1, 10), [Fraction(0), Fraction(0)],
        [[ball_of(2), ball_of(0)], [ball_of(0), ball_of(-2)]]))
    assert cert.inside is True and cert.positive is False
    assert "not proven positive definite" in cert.reason


@pytest.mark.parametrize("jac, positive", [
    ([[1, 2], [2, 3]], False),   # det -1: the second pivot 3 - 4 < 0 (3 + 4 if flipped)
    ([[2, 1], [1, 2]], True),    # det 3: pivots 2, 3/2
    ([[1, 1], [1, 1]], False),   # singular: the second pivot is 0
])
def test_sylvester_pivots_by_elimination(jac, positive):
    a = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]
    cert = _in_prec(lambda: krawczyk([Fraction(0), Fraction(0)], Fraction(1, 1000),
                                     [Fraction(0), Fraction(0)],
                                     [[ball_of(v) for v in row] for row in jac], a))
    assert cert.positive is positive


def test_krawczyk_uses_the_preconditioner_with_the_right_sign():
    """K(B) = c - A F(c) + (I - A J) (B - c): with F(c) = 1/100, J = 1 the zero is at
    c - 1/100; a box of radius 1/50 around c holds it, one of radius 1/200 does not."""
    c = Fraction(1)
    ok = _in_prec(lambda: krawczyk([c], Fraction(1, 50), [Fraction(1, 100)], [[ball_of(1)]]))
    assert ok.inside
    from symq.engines.normalization.certified import ball_endpoints
    lo, hi = ball_endpoints(ok.enclosure[0])
    assert lo <= Fraction(99, 100) <= hi and hi - lo < Fraction(1, 10 ** 15)
    bad = _in_prec(lambda: krawczyk([c], Fraction(1, 200), [Fraction(1, 100)], [[ball_of(1)]]))
    assert not bad.inside


# ------------------------------------------------------------------------------ budgets
@pytest.mark.parametrize("text", ["mu_1 + mu_2 = 0", "mu_1 + mu_2 = -1", "mu_1 + mu_2 = 0/3",
                                  "mu_1 + mu_2 = -1/2"])
def test_budget_grammar_refuses_zero_and_negative_capacities(text):
    with pytest.raises(symq.ModelError, match="must be a positive number"):
        parse_budget(text, ["mu_1", "mu_2"])


@pytest.mark.parametrize("capacity", [0, -1, Fraction(0)])
def test_budget_pair_refuses_zero_and_negative_capacities(capacity):
    with pytest.raises(symq.ModelError, match="must be positive"):
        parse_budget(({"mu_1", "mu_2"}, capacity), ["mu_1", "mu_2"])


W_HEAVY = {"lambda_1": "1", "lambda_2": "1/10", "lambda_3": "1/10"}


def test_an_exactly_unstable_budget_is_refused_with_the_capacity_needed():
    # the three classes bring 6/5; all servers together must have more than 6/5
    with pytest.raises(symq.ModelError, match=r"no split of the budget 6/5 is stable.*"
                       r"raise the budget above 6/5"):
        symq.optimize("w", "mean-number", "mu_1 + mu_2 = 6/5", values=W_HEAVY)


def test_an_unstable_equal_split_is_not_a_reason_to_raise_the_budget():
    """mu_1 = mu_2 = 3/4 is unstable (class 1 brings 1 to server 1), but mu_1 = 13/10 is
    stable: the optimizer starts from a stable split and certifies the minimum."""
    opt = symq.optimize("w", "mean-number", "mu_1 + mu_2 = 3/2", values=W_HEAVY, digits=10)
    assert opt.certified, opt.reason
    assert Fraction(Decimal(opt.allocation["mu_1"])) > 1
    # the smallest budgets just above the threshold are accepted too
    opt = symq.optimize("w", "mean-number", "mu_1 + mu_2 = 121/100", values=W_HEAVY,
                        digits=8, max_boxes=0)
    assert opt.certified, opt.reason


def test_negative_and_zero_weights_are_refused():
    with pytest.raises(symq.ModelError, match=r"weights must be 0 or more"):
        symq.optimize("w", "mean-response-time", "mu_1 + mu_2 = 9/5",
                      values={"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4"},
                      weights={"1": -1})
    with pytest.raises(symq.ModelError, match=r"at least one class a positive weight"):
        symq.optimize("w", "mean-response-time", "mu_1 + mu_2 = 9/5",
                      values={"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4"},
                      weights={"1": 0})


@pytest.mark.slow
def test_work_is_counted_up_front(capsys):
    import resource
    from symq.cli import main
    start = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    assert main(["optimize", "w", "mean-response-time", "--set", "lambda_1=3/20", "--set",
                 "lambda_2=1/10", "--set", "lambda_3=1/4", "--budget", "mu_1 + mu_2 = 9/5",
                 "--digits", "1000000000"]) == 2
    err = capsys.readouterr().err
    assert "1.0e+09 digits (limit 10,000)" in err and len(err.strip().splitlines()) == 1
    sets = [f"lambda_{i}=1/4" for i in range(1, 31)] + [f"mu_{i}=1" for i in range(3, 31)]
    argv = ["optimize", "ring:30", "mean-response-time", "--budget", "mu_1 + mu_2 = 2"]
    for s in sets:
        argv += ["--set", s]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "too large" in err and "certified DP steps" in err
    assert resource.getrusage(resource.RUSAGE_SELF).ru_utime - start < 10


# ------------------------------------------------------------------------------ property
@st.composite
def small_models(draw):
    """2-3 servers, 2-3 classes with random server sets, rates in small rationals."""
    servers = draw(st.integers(2, 3))
    classes = draw(st.integers(2, 3))
    sets = [draw(st.sets(st.integers(1, servers), min_size=1)) for _ in range(classes)]
    for s in range(1, servers + 1):  # every server serves someone
        if not any(s in c for c in sets):
            sets[0].add(s)
    lam = [Fraction(draw(st.integers(1, 6)), 20) for _ in range(classes)]
    compat = {str(i + 1): sorted(str(s) for s in c) for i, c in enumerate(sets)}
    model = symq.Model(compatibility=compat,
                       arrival_rates={str(i + 1): lam[i] for i in range(classes)},
                       service_rates={str(s): 1 for s in range(1, servers + 1)})
    discipline = draw(st.sampled_from(["collaborative", "alis"]))
    return model, servers, discipline


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(small_models())
def test_property_certified_minimum_beats_every_grid_point(case):
    from symq.engines.sensitivity import rate_symbols
    model, servers, discipline = case
    budget = ["mu_1", "mu_2"]
    total = Fraction(2)
    try:
        opt = symq.optimize(model, "mean-number", "mu_1 + mu_2 = 2", discipline, digits=8)
    except symq.ModelError:
        return  # no stable split of this budget
    if not opt.certified:
        return
    symbolic, point = rate_symbols(model)
    base = {s.name: v for s, v in point.items()}
    d = Decimal(opt.value_text)
    low = Fraction(d) - Fraction(1, 2) * Fraction(10) ** d.as_tuple().exponent
    for x in _grid([Fraction(0)] * 2, [total] * 2, total, 16, 100):
        if 0 in x:
            continue
        p = {**base, **dict(zip(budget, x))}
        if not _stable(symbolic, p):
            continue
        v, _ = objective_gradient(symbolic, p, "mean-number", discipline)
        assert low <= v


def test_as_json_says_exact_only_for_an_exact_value():
    """value_exact: the exact rational where the point is fixed by the budget (N: 2/3 at the
    limit mu_2 -> 0, the M/M/1 queue of rate 2 and load 1/2), else None (W: certified digits)."""
    n = symq.optimize("n", "mean-response-time", "mu_1 + mu_2 = 2",
                      values={"lambda_1": "1/4", "lambda_2": "1/4"}, digits=8, max_boxes=0)
    assert n.as_json()["value_exact"] == "2/3" and n.value == Fraction(2, 3)
    w = symq.optimize("w", "mean-response-time", "mu_1 + mu_2 = 9/5",
                      values={"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4"},
                      digits=8, max_boxes=0)
    data = w.as_json()
    assert data["value_exact"] is None and data["value"] == w.value_text
    assert data["scope"] == "local" and data["method"] == w.method and data["route"] == w.route
