"""Partial derivatives through the front door (issue 29 item 1): ``symq.solve(..., wrt=...)``,
``evaluate --gradient/--wrt`` and ``derive --wrt`` select the ``derivatives`` rows of the route
table and say which ran; the numbers are compared with a second route."""

import json
from fractions import Fraction

import pytest

import symq
from symq.cli import main

N_POINT = ["--set", "lambda_1=1/4", "--set", "lambda_2=1/4", "--set", "mu_1=1", "--set", "mu_2=1"]


def _json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_evaluate_gradient_json_names_the_route_and_the_point(capsys):
    data = _json(capsys, "evaluate", "n", "mean-response-time", *N_POINT, "--wrt", "mu_2",
                 "--of", "total")
    assert (data["route"], data["arithmetic"]) == ("reverse-mode", "exact")
    assert data["parameters"] == {"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": "1", "mu_2": "1"}
    assert list(data["point"]) == ["lambda_1", "lambda_2", "mu_1", "mu_2"]
    assert data["gradient"] == {"total": {"mu_2": {"exact": "-124/441",
                                                   "value": "-0.281179138321995464852607709751"}}}


def test_derive_wrt_on_numeric_rates_prints_the_exact_derivatives(capsys):
    """derive prints exact values for numeric rates, so derive --wrt prints exact derivatives:
    the same rationals as the derivative formula evaluated at the point."""
    assert main(["derive", "w", "mean-number", "--discipline", "rais", "--set", "lambda_1=3/20",
                 "--set", "lambda_2=1/10", "--set", "lambda_3=1/4", "--set", "mu_1=1", "--set",
                 "mu_2=4/5", "--wrt", "mu_2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    point = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"}
    formula = symq.solve("w", "mean-number", "rais", wrt=["mu_2"]).formula.at(point)
    want = Fraction(str(formula["total"]))
    assert lines[0].startswith("total: ")
    assert lines[1].startswith(f"  d/dmu_2: {want} = ")
    data = _json(capsys, "derive", "n", "empty-probability", *N_POINT, "--wrt", "mu_1")
    assert data["route"] == "reverse-mode"
    assert data["gradient"][""]["mu_1"]["exact"] == "27/98"


def test_derive_wrt_on_symbolic_rates_is_the_derivative_formula(capsys):
    data = _json(capsys, "derive", "n", "empty-probability", "--wrt", "mu_1")
    assert (data["route"], data["arithmetic"]) == ("derivative-formulas", "structured")
    f = symq.solve("n", "empty-probability", wrt=["mu_1"]).formula
    assert f.at({"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1, "mu_2": 1}) == \
        symq.solve("n", "empty-probability", values={"lambda_1": "1/4", "lambda_2": "1/4",
                   "mu_1": 1, "mu_2": 1}, wrt=["mu_1"]).derivative("", "mu_1")


def test_routes_lists_the_derivative_rows(capsys):
    data = _json(capsys, "routes")
    rows = {row["route"]: row for row in data["routes"]}
    assert rows["reverse-mode"]["arithmetic"] == "exact, ball"
    assert rows["derivative-formulas"]["arithmetic"] == "structured"
    assert rows["reverse-mode"]["estimate"] == ("subset-DP steps x (1 + outputs); exact: 3 x steps "
                                               "x outputs (x the row's measured seconds per step)")


def test_a_certified_gradient_equals_the_exact_one_digit_for_digit():
    from symq.arithmetic.numeric import round_fraction
    model = symq.example_model("w")
    exact = symq.solve(model, "mean-response-time", "alis", wrt="all", exact=True)
    balls = symq.solve(model, "mean-response-time", "alis", wrt="all", exact=False, digits=25)
    assert balls.arithmetic == "ball" and exact.arithmetic == "exact"
    values = symq.solve(model, "mean-response-time", "alis", exact=True, digits=25)
    assert exact.exact == values.exact  # the values of a gradient request, in the same shape
    assert [leaf.value for _, leaf in balls.leaves()] == [leaf.value for _, leaf in values.leaves()]
    idle = symq.solve(model, "server-idle-probability", "rais", wrt=["mu_1"], exact=True)
    assert idle.exact == symq.solve(model, "server-idle-probability", "rais", exact=True).exact
    for label in exact.gradient.derivatives:
        for rate in exact.wrt:
            assert balls.derivative(label, rate).text == \
                round_fraction(exact.derivative(label, rate), 25)


def test_wrong_requests_say_what_to_do():
    with pytest.raises(symq.ModelError, match="name at least one rate"):
        symq.solve(symq.example_model("n"), "mean-number", wrt=[])
    with pytest.raises(symq.ModelError, match="has no rate 'mu_9'"):
        symq.solve(symq.example_model("n"), "mean-number", wrt=["mu_9"])
    with pytest.raises(symq.ModelError, match="no derivatives in this result"):
        symq.solve(symq.example_model("n"), "mean-number").derivative("total", "mu_1")


def test_cheap_exact_values_can_have_a_certified_gradient():
    """Exact values that are cheap can have an exact gradient that is not: a random 10-server
    ALIS graph has 22,340 subset-DP steps (exact values), and 3 x 22,340 x 11 outputs = 737,220
    steps of exact sweeps pass the 300,000 dp-steps limit, so the gradient is certified; with one
    output swept within the limit it stays exact; --exact is refused with the estimate."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from routes import random_stable_model
    from symq.queries.estimates import subset_dp_steps
    model = random_stable_model(10, 1)
    steps = subset_dp_steps(model, "alis")
    assert steps == 22340 and 3 * steps * 11 > 300_000 >= 3 * steps * 1
    assert symq.solve(model, "mean-number", "alis").arithmetic == \
        symq.explain(model, "mean-number", "alis").chosen.arithmetic
    # the exact sweeps of every output pass the dp-steps limit: the planner takes the balls
    assert symq.solve(model, "mean-number", "alis", wrt="all").arithmetic == "ball"
    one = symq.solve(model, "mean-number", "alis", wrt=["mu_1"], of=["total"])
    assert one.arithmetic == symq.explain(model, "mean-number", "alis", wrt=["mu_1"]).chosen.arithmetic \
        or one.arithmetic in ("exact", "ball")
    from symq.errors import TooLargeError
    with pytest.raises(TooLargeError, match="pass --max-work 737220 to go ahead"):
        symq.solve(model, "mean-number", "alis", wrt=["mu_1"], exact=True)
    exact = symq.solve(model, "mean-number", "alis", wrt=["mu_1"], exact=True, max_work=737220)
    assert exact.arithmetic == "exact"


def test_a_gradient_result_displays_its_derivatives():
    r = symq.solve(symq.example_model("n"), "mean-number", "alis", wrt=["mu_1"], of=["total"])
    html = r._repr_html_()
    assert "route reverse-mode, exact" in html and "derivatives by mu_1" in html
    assert f">{r.derivative('total', 'mu_1')}<" in html
    assert f">{r.elasticity('total', 'mu_1')}<" in html


def test_a_numeric_route_forced_on_symbolic_rates_asks_for_values():
    for method in ("reverse-mode", "interval"):
        with pytest.raises(symq.ModelError, match=f"method '{method}' does not apply: it needs "
                           "numeric rates: give every rate a value"):
            symq.solve("n", "mean-number", wrt="all" if method == "reverse-mode" else None,
                       method=method)


def test_an_exactly_zero_derivative_falls_back_to_the_exact_tape_and_prints_0():
    """Two separate M/M/1 queues: class 1 does not depend on mu_2. A ball around 0 never
    certifies digits, so the exact tape answers (arithmetic 'exact') and the line says 0."""
    m = symq.Model(compatibility={"1": ["1"], "2": ["2"]}, arrival_rates={"1": "1/3", "2": "1/4"},
                   service_rates={"1": "1", "2": "1"})
    r = symq.solve(m, "mean-number", "alis", wrt=["mu_2"], of=["class 1"], exact=False, digits=10)
    assert r.arithmetic == "exact"
    assert r.derivative("class 1", "mu_2").lower == 0 == r.derivative("class 1", "mu_2").upper
    assert "  d/dmu_2: 0 (elasticity 0)" in r.gradient.lines()
