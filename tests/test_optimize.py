"""symq.optimize: the certified capacity split against independent routes.

* The printed digits of a two-rate split by the intermediate value theorem: the exact derivative
  along the face, dT/dmu_1 - dT/dmu_2 from the structured formula and its derivative formula
  (symq.engines.formulas.derivative, not the tape), changes sign between the two rationals that
  bracket the printed digits (W under the three disciplines, ring:4).
* A three-rate split against a grid search of exact values.
* Must-fail: Krawczyk refuses a shifted box and a Jacobian enclosure with a wrong sign.
* The dual-number Hessian-vector product against exact difference quotients of exact gradients.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import pytest

import symq
from symq.cli import main
from symq.engines.second_order import ball_of, hessian_vectors, objective_gradient
from symq.queries.optimize import _Objective, krawczyk

W_LAMBDA = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4"}


def _bracket(text: str) -> tuple[Fraction, Fraction]:
    """The rationals half a unit of the last printed digit below and above."""
    d = Decimal(text)
    half = Fraction(1, 2) * Fraction(10) ** d.as_tuple().exponent
    return Fraction(d) - half, Fraction(d) + half


def _face_slope(model, point, discipline, at, first, second):
    """dT/dx_first - dT/dx_second at x_first = at, x_second = C - at, from the formula."""
    from symq.engines.formulas import structured
    from symq.engines.formulas.derivative import derivative
    formula = structured(symq.model(model) if isinstance(model, str) else model,
                         "mean-response-time", discipline)
    values = derivative(formula, [first, second]).at({k: str(v) for k, v in point.items()})
    return Fraction(str(values[f"total d/d{first}"])) - Fraction(str(values[f"total d/d{second}"]))


@pytest.mark.parametrize("discipline", ["collaborative", "alis", "rais"])
def test_w_split_digits_bracket_a_sign_change_of_the_formula_derivative(discipline):
    opt = symq.optimize("w", "mean-response-time", "mu_1 + mu_2 = 9/5", discipline,
                        values=W_LAMBDA, digits=12)
    assert opt.certified and opt.kkt, opt.reason
    lo, hi = _bracket(opt.allocation["mu_1"])
    total = Fraction(9, 5)
    slopes = [_face_slope("w", {**W_LAMBDA, "mu_1": x, "mu_2": total - x}, discipline, x,
                          "mu_1", "mu_2") for x in (lo, hi)]
    assert slopes[0] < 0 < slopes[1]  # T decreasing then increasing along the face: a minimum
    # the two printed allocations sum to the budget within their rounding
    assert abs(sum(Fraction(Decimal(v)) for v in opt.allocation.values()) - total) < \
        Fraction(1, 10 ** 11)
    # the enclosure K(B) lies inside the bracket of the printed digits
    k_lo, k_hi = opt.enclosure["mu_1"]
    assert lo <= k_lo <= k_hi <= hi


def test_ring4_numeric_split_is_certified_and_brackets_the_formula_sign_change():
    from symq.engines.sensitivity import rate_symbols
    model = symq.example_model("ring:4")
    symbolic, point = rate_symbols(model)
    point = {s.name: v for s, v in point.items()}
    total = point["mu_1"] + point["mu_2"]
    opt = symq.optimize(model, "mean-response-time", f"mu_1 + mu_2 = {total}", "alis",
                        digits=12)
    assert opt.certified, opt.reason
    lo, hi = _bracket(opt.allocation["mu_1"])
    slopes = [_face_slope(symbolic, {**point, "mu_1": x, "mu_2": total - x}, "alis", x,
                          "mu_1", "mu_2") for x in (lo, hi)]
    assert slopes[0] < 0 < slopes[1]


def test_three_rate_split_agrees_with_a_grid_search():
    model = symq.example_model("ring:4")
    opt = symq.optimize(model, "mean-response-time", "mu_1 + mu_2 + mu_3 = 3", "collaborative",
                        digits=10)
    assert opt.certified, opt.reason
    assert len(opt.enclosure) == 3
    from symq.engines.sensitivity import rate_symbols
    symbolic, point = rate_symbols(model)
    base = {s.name: v for s, v in point.items()}
    best = None
    step = Fraction(1, 10)
    for a in range(5, 26):
        for b in range(5, 26):
            x1, x2 = a * step, b * step
            x3 = 3 - x1 - x2
            if x3 <= 0:
                continue
            p = {**base, "mu_1": x1, "mu_2": x2, "mu_3": x3}
            try:
                v, _ = objective_gradient(symbolic, p, "mean-response-time", "collaborative")
            except symq.UnstableModelError:
                continue
            if best is None or v < best[0]:
                best = (v, x1, x2)
    assert opt.value <= best[0]
    assert abs(opt.x["mu_1"] - best[1]) <= step and abs(opt.x["mu_2"] - best[2]) <= step


def _w_certificate_data(shift: Fraction = Fraction(0)):
    """F(c) and J(B) of the W split (collaborative) around the optimum shifted by ``shift``."""
    opt = symq.optimize("w", "mean-response-time", "mu_1 + mu_2 = 9/5", values=W_LAMBDA,
                        digits=12)
    c = opt.x["mu_1"] + shift
    r = Fraction(1, 10 ** 6)
    f = _Objective(symq.model("w"), "mean-response-time", "collaborative", {
        k: Fraction(v) for k, v in W_LAMBDA.items()}, ["mu_1", "mu_2"], None, 120)
    _, grad = objective_gradient("w", {**W_LAMBDA, "mu_1": c, "mu_2": Fraction(9, 5) - c},
                                 "mean-response-time", "collaborative")
    _, _, jac, _, _ = f.second([c, Fraction(9, 5) - c], [0, 1], {
        **{k: Fraction(v) for k, v in W_LAMBDA.items()}, "mu_1": (c - r, c + r),
        "mu_2": (Fraction(9, 5) - c - r, Fraction(9, 5) - c + r)}, bits=120)
    return c, r, [grad["mu_1"] - grad["mu_2"]], jac


def test_krawczyk_accepts_the_box_around_the_optimum_and_refuses_a_shifted_one():
    from flint import ctx
    with ctx.workprec(120):
        c, r, f_c, jac = _w_certificate_data()
        good = krawczyk([c], r, f_c, jac)
        assert good.inside and good.positive
        c, r, f_c, jac = _w_certificate_data(Fraction(1, 10 ** 4))  # optimum 100 r away
        bad = krawczyk([c], r, f_c, jac)
        assert not bad.inside and "not inside" in bad.reason


def test_krawczyk_refuses_a_jacobian_with_a_wrong_sign():
    from flint import ctx
    with ctx.workprec(120):
        c, r, f_c, jac = _w_certificate_data()
        flipped = [[-jac[0][0]]]
        cert = krawczyk([c], r, f_c, flipped)
        assert not (cert.inside and cert.positive)
        # the preconditioner of the true Jacobian with a corrupted enclosure: not inside
        from symq.queries.optimize import _inverse, _mid
        a = _inverse([[_mid(jac[0][0])]])
        assert not krawczyk([c], r, f_c, [[jac[0][0] * ball_of(3)]], a).inside  # I - AJ = -2
        assert not krawczyk([c], r, f_c, flipped, a).inside
        assert not krawczyk([c], r, f_c, flipped, a).positive


def test_dual_hessian_vector_matches_difference_quotients_of_exact_gradients():
    point = {"lambda_1": Fraction(1, 4), "lambda_2": Fraction(1, 3), "mu_1": Fraction(1),
             "mu_2": Fraction(3, 4)}
    v = {"mu_1": 1, "mu_2": -1}
    out = hessian_vectors("n", point, "mean-response-time", "alis", [v], bits=100)
    _, g0 = objective_gradient("n", point, "mean-response-time", "alis")
    gaps = []
    for h in (Fraction(1, 10 ** 4), Fraction(1, 10 ** 6)):
        moved = {**point, "mu_1": point["mu_1"] + h, "mu_2": point["mu_2"] - h}
        _, g1 = objective_gradient("n", moved, "mean-response-time", "alis")
        for name in point:
            q = (g1[name] - g0[name]) / h
            from symq.queries.optimize import _mid
            gaps.append((h, abs(q - _mid(out.hv[0][name]))))
            assert out.hv[0][name].rad() < 1e-20
    # the quotients' error is O(h): it shrinks a hundredfold with the step
    for name_gap_big, name_gap_small in zip(gaps[:4], gaps[4:]):
        assert name_gap_small[1] <= name_gap_big[1] / 50 + Fraction(1, 10 ** 15)
        assert name_gap_big[1] < Fraction(1, 10 ** 2)


def test_numeric_model_file_from_the_command_line(tmp_path, capsys):
    (tmp_path / "shop.toml").write_text(SHOP)
    assert main(["optimize", str(tmp_path / "shop.toml"), "mean-response-time", "--budget",
                 "mu_1 + mu_3 = 2", "--discipline", "alis", "--digits", "12", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["certified"] and data["kkt"] and data["arithmetic"] == "exact"
    lo, hi = _bracket(data["allocation"]["mu_1"])
    model = symq.load(tmp_path / "shop.toml")
    from symq.engines.sensitivity import rate_symbols
    symbolic, point = rate_symbols(model)
    point = {s.name: val for s, val in point.items()}
    slopes = [_face_slope(symbolic, {**point, "mu_1": x, "mu_3": 2 - x}, "alis", x, "mu_1",
                          "mu_3") for x in (lo, hi)]
    assert slopes[0] < 0 < slopes[1]
    # the Python API gives the same digits
    opt = symq.optimize(model, "mean-response-time", ({"mu_1", "mu_3"}, 2), "alis", digits=12)
    assert opt.allocation == data["allocation"]


def test_bad_inputs_are_one_line_errors(tmp_path, capsys):
    (tmp_path / "shop.toml").write_text(SHOP)
    assert main(["optimize", str(tmp_path / "shop.toml"), "mean-response-time", "--budget",
                 "mu_1 + mu_9 = 2"]) == 2
    assert "no rate 'mu_9'" in capsys.readouterr().err
    with pytest.raises(symq.ModelError, match="at least two rates"):
        symq.optimize("w", "mean-response-time", "mu_1 = 2", values=W_LAMBDA)
    with pytest.raises(symq.ModelError, match="mean-response-time or mean-number"):
        symq.optimize("w", "empty-probability", "mu_1 + mu_2 = 2", values=W_LAMBDA)


@pytest.mark.slow
@pytest.mark.parametrize("discipline", ["collaborative", "alis", "rais"])
def test_random_16_server_split_is_certified(discipline):
    """The done-when model of issue 29 (times: benchmarks and docs/sensitivities.md, not here)."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent))
    from routes import random_stable_model
    model = random_stable_model(16, 1)
    opt = symq.optimize(model, "mean-response-time", "mu_1 + mu_2 = 5/2", discipline)
    assert opt.certified, opt.reason
    lo, hi = opt.enclosure["mu_1"]  # the printed digits are those of every point of K(B)
    from symq.arithmetic.numeric import round_fraction
    assert round_fraction(lo, 30) == round_fraction(hi, 30) == opt.allocation["mu_1"]


SHOP = """name = "shop"
[classes.a]
arrival_rate = "1/2"
servers = [1, 2]
[classes.b]
arrival_rate = "1/4"
servers = [2, 3]
[classes.c]
arrival_rate = "1/5"
servers = [3]
[servers.1]
service_rate = 1
[servers.2]
service_rate = 1
[servers.3]
service_rate = 1
"""
