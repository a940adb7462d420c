"""``symq plot MODEL split``: the data of the split picture against independent values.

The quantity at each sample point against ``symq.solve`` without derivatives; the directional
derivative against the derivative formula (``symq.solve(symq.model("w"), ..., wrt=...).formula``)
evaluated exactly, and against central difference quotients whose error shrinks like h^2; the
stable range against the stability check; the stationary point against the sign of the
formula's derivative and the digits ``symq optimize`` prints; bad budgets refused."""

from __future__ import annotations

import json
from argparse import Namespace
from fractions import Fraction

import pytest
import sympy

import symq
from symq.errors import ModelError, TooLargeError, UnstableModelError
from symq.presentation.pictures.split import (parse_split_budget, split_curve, split_work,
                                              stable_range)

LAMBDAS = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4"}
BUDGET = "mu_1 + mu_2 = 9/5"
C = Fraction(9, 5)
#: ``symq optimize w mean-response-time --set lambda_1=3/20 --set lambda_2=1/10
#: --set lambda_3=1/4 --budget "mu_1 + mu_2 = 9/5" --digits 20`` (docs/sensitivities.md)
OPTIMUM_MU_1 = "1.0032908986860739478"


def w_model():
    return symq.model("w").substitute(LAMBDAS)


def fraction(value) -> Fraction:
    value = sympy.sympify(value)
    assert value.is_Rational, value
    return Fraction(int(value.p), int(value.q))


def value_at(quantity, discipline, mu_1, output="total"):
    """The quantity without derivatives (the ordinary route), at mu_1 + mu_2 = 9/5."""
    result = symq.solve("w", quantity, discipline,
                        values={**LAMBDAS, "mu_1": str(mu_1), "mu_2": str(C - mu_1)})
    return fraction(result.exact[output] if output else result.exact)


_FORMULAS = {}


def formula_direction(quantity, discipline, mu_1, output="total"):
    """dQ/dmu_1 - dQ/dmu_2 from the derivative formula, evaluated exactly."""
    key = (quantity, discipline)
    if key not in _FORMULAS:
        _FORMULAS[key] = symq.solve(symq.model("w"), quantity, discipline,
                                    wrt=["mu_1", "mu_2"]).formula
    values = _FORMULAS[key].at({**LAMBDAS, "mu_1": str(mu_1), "mu_2": str(C - mu_1)})
    name = output or "value"
    return fraction(values[f"{name} d/dmu_1"]) - fraction(values[f"{name} d/dmu_2"])


@pytest.fixture(scope="module")
def collaborative():
    return split_curve(w_model(), BUDGET, "mean-response-time", "collaborative", points=6)


def test_budget_is_read_by_the_grammar():
    assert parse_split_budget(" mu_2 + mu_1 = 9/5 ", ["mu_1", "mu_2"]) == ("mu_1", "mu_2", C)
    assert parse_split_budget("lambda_2 + mu_1 = 3", ["lambda_2", "mu_1"]) == \
        ("lambda_2", "mu_1", Fraction(3))


def test_stable_range_is_exact(collaborative):
    # W: mu_1 > lambda_1 = 3/20 and mu_2 = 9/5 - mu_1 > lambda_2 = 1/10
    assert collaborative.stable == (Fraction(3, 20), Fraction(17, 10))
    from symq.models.stability import is_stable
    for mu_1, stable in ((Fraction(3, 20), False), (Fraction(3, 20) + Fraction(1, 10**9), True),
                         (Fraction(17, 10), False), (Fraction(17, 10) - Fraction(1, 10**9), True)):
        m = w_model().substitute({"mu_1": str(mu_1), "mu_2": str(C - mu_1)})
        assert is_stable(m) is stable, mu_1


def test_sample_points_spread_over_the_stable_range(collaborative):
    lo, hi = collaborative.stable
    assert collaborative.xs == [lo + (hi - lo) * Fraction(k, 7) for k in range(1, 7)]


@pytest.mark.parametrize("discipline", ["collaborative", "alis"])
def test_values_and_directional_derivatives_are_exact(discipline, collaborative):
    curve = collaborative if discipline == "collaborative" else \
        split_curve(w_model(), BUDGET, "mean-response-time", discipline, points=6)
    assert len(curve.xs) == len(curve.values) == len(curve.derivatives) == 6
    for x, value, slope in zip(curve.xs, curve.values, curve.derivatives):
        assert value == value_at("mean-response-time", discipline, x)
        assert slope == formula_direction("mean-response-time", discipline, x)


def test_one_value_quantity_under_alis():
    curve = split_curve(w_model(), BUDGET, "empty-probability", "alis", points=3)
    for x, value, slope in zip(curve.xs, curve.values, curve.derivatives):
        assert value == value_at("empty-probability", "alis", x, output="")
        assert slope == formula_direction("empty-probability", "alis", x, output="")


def test_directional_derivative_against_difference_quotients(collaborative):
    # central quotients along the split: error <= h^2/6 max|T'''|, so it drops ~100x per 10x h
    x, slope = collaborative.xs[2], collaborative.derivatives[2]
    errors = []
    for h in (Fraction(1, 10**3), Fraction(1, 10**4)):
        quotient = (value_at("mean-response-time", "collaborative", x + h)
                    - value_at("mean-response-time", "collaborative", x - h)) / (2 * h)
        errors.append(abs(quotient - slope))
    assert 0 < errors[1] < errors[0] / 50
    assert errors[0] < Fraction(1, 10**4)


def test_stationary_point_is_a_sign_change_at_the_optimizers_digits():
    curve = split_curve(w_model(), BUDGET, "mean-response-time", "collaborative", points=6,
                        digits=20)
    (point,) = curve.stationary
    assert point.kind == "minimum" and (point.sign_low, point.sign_high) == (-1, 1)
    # the sign of the derivative formula at both ends, independently of the picture's route
    assert formula_direction("mean-response-time", "collaborative", point.low) < 0
    assert formula_direction("mean-response-time", "collaborative", point.high) > 0
    assert point.text == OPTIMUM_MU_1
    printed = Fraction(OPTIMUM_MU_1)
    for end in (point.low, point.high):
        assert abs(end - printed) <= Fraction(1, 10**19)
    # the bracket lies between the two sample points around it, where D changes sign
    k = next(k for k, d in enumerate(curve.derivatives) if d > 0)
    assert curve.xs[k - 1] < point.low <= point.high < curve.xs[k]


def test_numeric_rates_are_overridden_by_the_budget():
    # all rates numbers: the budget names lambda_<class> / mu_<server>, its values replace them
    model = symq.model("w").substitute({**LAMBDAS, "mu_1": "1", "mu_2": "4/5"})
    curve = split_curve(model, "lambda_1 + lambda_2 = 1/5", "mean-number", "collaborative",
                        points=3)
    assert curve.rates == ("lambda_1", "lambda_2")
    assert curve.stable == (Fraction(0), Fraction(1, 5))
    for x, value in zip(curve.xs, curve.values):
        expected = symq.solve("w", "mean-number", "collaborative", values={
            "lambda_1": str(x), "lambda_2": str(Fraction(1, 5) - x), "lambda_3": "1/4",
            "mu_1": "1", "mu_2": "4/5"}).exact["total"]
        assert value == fraction(expected)


# ------------------------------------------------------------------ refused
def test_three_budget_rates_are_refused():
    with pytest.raises(ModelError, match="exactly two budget rates, not 3"):
        split_curve(symq.model("ring:3"), "mu_1 + mu_2 + mu_3 = 3")


def test_unknown_rate_is_refused():
    with pytest.raises(ModelError, match="no rate 'mu_3'"):
        split_curve(w_model(), "mu_1 + mu_3 = 2")


def test_unstable_whole_range_is_refused():
    # lambda_1 + lambda_2 + lambda_3 = 1/2: no split of 1/2 serves all classes
    with pytest.raises(UnstableModelError, match="no split keeps the model stable"):
        stable_range(w_model(), "mu_1 + mu_2 = 1/2")


def test_other_bad_input_is_refused():
    for budget, message in (("mu_1 + mu_2", "one '='"), ("mu_1 + mu_2 = -1", "positive"),
                            ("2*mu_1 + mu_2 = 3", "not a rate name"), ("", "needs --budget")):
        with pytest.raises(ModelError, match=message):
            split_curve(w_model(), budget)
    with pytest.raises(ModelError, match="missing: lambda_3"):
        split_curve(symq.model("w").substitute({"lambda_1": 1, "lambda_2": 1}), BUDGET)
    with pytest.raises(ModelError, match="server-idle-probability"):
        split_curve(w_model(), BUDGET, "server-idle-probability")


def test_work_past_the_limit_is_refused_up_front():
    name, work = split_work(w_model(), BUDGET, points=12, digits=20)
    assert name == "dp-steps" and work > 0
    with pytest.raises(TooLargeError, match=f"--max-work {work}"):
        split_curve(w_model(), BUDGET, points=12, limits=Namespace(max_work=work - 1,
                                                                   no_limits=False))


# ------------------------------------------------------------------ command line
def test_command_writes_the_picture_and_its_exact_data(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from symq.cli import main
    path = tmp_path / "split.png"
    status = main(["plot", "w", "split", "--set", "lambda_1=3/20", "--set", "lambda_2=1/10",
                   "--set", "lambda_3=1/4", "--budget", BUDGET, "--discipline", "collaborative",
                   "--points", "6", "-o", str(path), "--json"])
    assert status == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "split" and out["files"] == [str(path)]
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = out["data"]
    assert data["budget"] == {"rates": ["mu_1", "mu_2"], "capacity": "9/5"}
    assert data["stable_range"] == ["3/20", "17/10"]
    for point in data["points"]:
        x = Fraction(point["x"])
        assert Fraction(point["value"]) == value_at("mean-response-time", "collaborative", x)
        assert Fraction(point["derivative"]) == formula_direction("mean-response-time",
                                                                  "collaborative", x)
    (stationary,) = data["stationary"]
    assert stationary["x"] == OPTIMUM_MU_1 and stationary["signs"] == [-1, 1]


def test_command_refuses_bad_budgets_with_status_2(tmp_path, capsys):
    from symq.cli import main
    for budget in ("mu_1 + mu_2 + mu_3 = 3", "mu_1 + mu_9 = 2", "mu_1 + mu_2 = 1/2"):
        status = main(["plot", "w", "split", "--set", "lambda_1=3/20", "--set",
                       "lambda_2=1/10", "--set", "lambda_3=1/4", "--budget", budget,
                       "-o", str(tmp_path / "x.png")])
        err = capsys.readouterr().err
        assert status == 2 and err.startswith("symq: error: --budget") and err.count("\n") == 1
    assert not (tmp_path / "x.png").exists()


def test_without_matplotlib_the_command_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    import sys
    from symq.cli import main
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    status = main(["plot", "w", "split", "--set", "lambda_1=3/20", "--set", "lambda_2=1/10",
                   "--set", "lambda_3=1/4", "--budget", BUDGET, "--points", "2",
                   "-o", str(tmp_path / "x.png")])
    err = capsys.readouterr().err
    assert status == 2 and 'pip install "symq[plot]"' in err and err.count("\n") == 1
