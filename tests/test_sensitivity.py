"""Sensitivities (issue 29): exact gradients of the DPs against second routes — the symbolic
derivative (sympy.diff) of the expanded formula, exact difference quotients at shrinking steps
bounded by the second derivative, certified balls that contain the exact values — and a
must-fail test with a wrong sign in one term of the chain rule."""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

import symq
from symq.engines import sensitivity
from symq.engines.formulas import structured
from symq.engines.sensitivity import gradient, rate_symbols

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.routes import random_stable_model  # noqa: E402

DISCIPLINES = ("collaborative", "alis", "rais")
W_POINT = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": 1, "mu_2": "4/5"}


def _point(model):
    if model.name == "w":
        return dict(W_POINT)
    return symq.example_rates(model) if hasattr(symq, "example_rates") else \
        __import__("symq.models.catalog", fromlist=["x"]).example_rates(model)


def _flat(expanded):
    """``[(label, sympy expr)]`` of an expanded structured result, labelled as the engine."""
    if not hasattr(expanded, "items"):
        return [("", expanded)]
    out = []
    for key, part in expanded.items():
        if hasattr(part, "items"):
            word = "class" if key == "per_class" else "server"
            out += [(f"{word} {k}", v) for k, v in part.items()]
        else:
            out.append((key, part))
    return out


def sympy_mismatches(name, quantity, discipline):
    """Every (label, rate) whose engine derivative differs from sympy.diff of the expanded
    formula at the point (the checker of the second route)."""
    model = symq.model(name)
    point = _point(model)
    subs = {s: sympy.Rational(point[s.name]) for s in model.symbols}
    got = gradient(model, quantity, discipline, point)
    symbols = sorted(model.symbols, key=lambda s: s.name)
    at = [subs[s] for s in symbols]
    bad = []
    for label, expr in _flat(structured(model, quantity, discipline).expanded("expanded")):
        num, den = (sympy.Poly(p, *symbols) for p in sympy.fraction(sympy.together(expr)))
        n0, d0 = num.eval(dict(zip(symbols, at))), den.eval(dict(zip(symbols, at)))
        value = got.value(label)
        assert sympy.Rational(value.numerator, value.denominator) == n0 / d0
        for s in symbols:  # sympy.diff of N/D at the point: (N' D - N D') / D^2
            dn = num.diff(s).eval(dict(zip(symbols, at)))
            dd = den.diff(s).eval(dict(zip(symbols, at)))
            want = (dn * d0 - n0 * dd) / d0 ** 2
            have = got.derivative(label, s.name)
            if sympy.Rational(have.numerator, have.denominator) != want:
                bad.append((label, s.name))
    return bad


@pytest.mark.parametrize("name, discipline", [(n, d) for n in ("n", "w") for d in DISCIPLINES]
                         + [("ring:3", "collaborative")])
def test_mean_response_time_derivatives_equal_sympy(name, discipline):
    """(ring:3 under ALIS/RAIS: its expanded formula takes a minute in sympy; the chain rule
    through its definitions is compared below instead.)"""
    assert sympy_mismatches(name, "mean-response-time", discipline) == []


@pytest.mark.parametrize("quantity", ["empty-probability", "server-idle-probability",
                                      "normalizing-constant", "mean-number"])
@pytest.mark.parametrize("discipline", DISCIPLINES)
def test_other_quantities_equal_sympy_on_w(quantity, discipline):
    assert sympy_mismatches("w", quantity, discipline) == []


def test_wrong_sign_in_one_term_is_caught(monkeypatch):
    """Must fail: the chain rule of a subtraction with the wrong sign (b's adjoint added)."""
    original = sensitivity._Var.__sub__

    def wrong(self, o):
        out = original(self, o)
        ops = self._ops
        if out.i >= 0 and ops[out.i][0] == sensitivity._SUB:
            kind, a, b, x, y = ops[out.i]
            ops[out.i] = (sensitivity._ADD, a, b, x, y)
        return out
    monkeypatch.setattr(sensitivity._Var, "__sub__", wrong)
    assert sympy_mismatches("w", "mean-response-time", "collaborative") != []


def test_difference_quotients_shrink_like_the_second_derivative():
    """(f(x+h) - f(x))/h - f'(x) = h f''(x)/2 + O(h^2): exact quotients at h = 2^-k, with the
    exact f'' of the symbolic formula; the error over h tends to f''/2."""
    model = symq.model("w")
    f = structured(model, "mean-response-time", "alis").expanded("expanded")["total"]
    x = next(s for s in model.symbols if s.name == "mu_2")
    point = dict(W_POINT)
    subs = {s: sympy.Rational(point[s.name]) for s in model.symbols}
    d1 = gradient(model, "mean-response-time", "alis", point, wrt=["mu_2"]).derivative(
        "total", "mu_2")
    second = sympy.diff(f, x, 2).subs(subs)
    base = gradient(model, "mean-response-time", "alis", point, wrt=["mu_2"]).value("total")
    errors = []
    for k in range(6, 14, 2):
        h = Fraction(1, 2 ** k)
        moved = dict(point, mu_2=str(Fraction(point["mu_2"]) + h))
        fh = gradient(model, "mean-response-time", "alis", moved, wrt=["mu_2"]).value("total")
        quotient = (fh - base) / h
        err = (quotient - d1) / h
        errors.append(abs(sympy.Rational(err.numerator, err.denominator) - second / 2))
        # the first-order bound: |quotient - f'| <= h * max|f''| / 2, with max|f''| <= 2|f''(x)|
        assert abs(quotient - d1) <= h * abs(Fraction(str(second))) + h * h * 100
    assert all(b < a / 3 for a, b in zip(errors, errors[1:]))  # O(h): a quarter per step


@pytest.mark.parametrize("discipline", DISCIPLINES)
def test_balls_contain_exact_derivatives(discipline):
    model = symq.model(str(ROOT / "benchmarks" / "nested5.toml"))
    point = __import__("symq.models.catalog", fromlist=["x"]).example_rates(model)
    exact = gradient(model, "mean-response-time", discipline, point)
    ball = gradient(model, "mean-response-time", discipline, point, arithmetic="ball",
                    digits=25)
    assert ball.arithmetic == "ball" and ball.bits
    for label in exact.labels:
        assert ball.value(label).contains(exact.value(label))
        for n in exact.wrt:
            d = ball.derivative(label, n)
            assert d.contains(exact.derivative(label, n))
            assert len(d.text.lstrip("-0.").replace(".", "")) >= 20


@pytest.mark.parametrize("discipline", DISCIPLINES)
def test_random_graph_gradient_ball_vs_exact(discipline):
    model = random_stable_model(7, 3)
    exact = gradient(model, "mean-response-time", discipline, labels=["total"])
    ball = gradient(model, "mean-response-time", discipline, arithmetic="ball", digits=30,
                    labels=["total"])
    for n in exact.wrt:
        assert ball.derivative("total", n).contains(exact.derivative("total", n))
    # the elasticity of T by all service rates together is minus the sum over mu (Euler):
    # T is homogeneous of degree -1 in all rates, so sum of all elasticities is -1
    total = sum(exact.elasticity("total", n) for n in exact.wrt)
    assert total == -1


def test_ring4_rais_euler_identity():
    """Homogeneity: P(empty) is of degree 0 in the rates, so its elasticities sum to 0."""
    model = symq.model("ring:4")
    point = __import__("symq.models.catalog", fromlist=["x"]).example_rates(model)
    g = gradient(model, "empty-probability", "rais", point)
    assert sum(g.elasticity("", n) for n in g.wrt) == 0
    assert all(g.derivative("", n) < 0 for n in g.wrt if n.startswith("lambda"))


def test_rate_symbols_of_numeric_model():
    m, point = rate_symbols(symq.example_model("w"))
    assert {s.name: v for s, v in point.items()} == {
        "lambda_1": Fraction(3, 20), "lambda_2": Fraction(1, 10), "lambda_3": Fraction(1, 4),
        "mu_1": 1, "mu_2": Fraction(4, 5)}


def test_bad_names_are_one_line_errors():
    with pytest.raises(symq.ModelError, match="no rate 'mu_9'"):
        gradient("w", "mean-number", "alis", W_POINT, wrt=["mu_9"])
    with pytest.raises(symq.ModelError, match="lambda_3 has no value"):
        gradient("w", "mean-number", "alis", {k: v for k, v in W_POINT.items()
                                               if k != "lambda_3"})


def _cli(capsys, *argv):
    from symq.cli import main
    status = main(list(argv))
    return status, capsys.readouterr()


def test_cli_evaluate_gradient(capsys):
    sets = [a for k, v in W_POINT.items() for a in ("--set", f"{k}={v}")]
    status, out = _cli(capsys, "evaluate", "w", "mean-response-time", "--discipline", "alis",
                       *sets, "--wrt", "mu_1", "--digits", "10")
    assert status == 0
    g = gradient("w", "mean-response-time", "alis", W_POINT, wrt=["mu_1"])
    d = g.derivative("total", "mu_1")
    assert f"d/dmu_1: {d.numerator}/{d.denominator} = " in out.out
    status, out = _cli(capsys, "evaluate", "w", "mean-response-time", *sets, "--gradient",
                       "--json")
    data = json.loads(out.out)
    assert status == 0 and set(data["gradient"]["total"]) == set(W_POINT)
    status, out = _cli(capsys, "evaluate", "w", "mean-response-time", *sets, "--wrt", "nu")
    assert status == 2 and "no rate 'nu'" in out.err


@pytest.mark.parametrize("discipline", DISCIPLINES)
@pytest.mark.parametrize("name", ["n", "w", "ring:3"])
def test_structured_derivative_equals_the_tape(name, discipline):
    """The chain rule through the named definitions (derive --wrt) against the DP's tape."""
    from symq.engines.formulas.derivative import derivative
    model = symq.model(name)
    point = _point(model)
    f = structured(model, "mean-response-time", discipline)
    names = sorted(s.name for s in model.symbols)
    d = derivative(f, names)
    got = gradient(model, "mean-response-time", discipline, point)
    values = d.at(point)
    for label, _ in f.result_names():
        for n in names:
            want = got.derivative(label, n)
            assert values[f"{label} d/d{n}"] == sympy.Rational(want.numerator, want.denominator)


def test_structured_derivative_expanded_equals_sympy_diff():
    from symq.engines.formulas.derivative import derivative
    f = structured("n", "mean-number", "collaborative")
    x = next(s for s in f.model.symbols if s.name == "mu_1")
    d = derivative(f, ["mu_1"]).expanded("expanded")
    e = f.expanded("expanded")
    subs = {s: sympy.Rational(v) for s, v in zip(sorted(f.model.symbols, key=lambda s: s.name),
                                                  ("1/5", "1/3", "3/2", "5/4"))}
    for a, b in ((d["total"], e["total"]), (d["per_class"]["2"], e["per_class"]["2"])):
        assert a.subs(subs) == sympy.diff(b, x).subs(subs)


def test_cli_derive_wrt(capsys):
    status, out = _cli(capsys, "derive", "n", "empty-probability", "--wrt", "lambda_2",
                       "--form", "factored")
    assert status == 0
    assert out.out.strip() == "-(lambda_1 - mu_1)/(mu_1*(lambda_1 - mu_1 - mu_2))"
    status, out = _cli(capsys, "derive", "n", "empty-probability", "--wrt", "mu_9")
    assert status == 2 and "no rate symbol 'mu_9'" in out.err


@pytest.mark.parametrize("discipline", ["collaborative", "alis"])
def test_optimum_beats_a_grid_search(discipline):
    """The KKT-certified optimum of a capacity split against a grid of exact values."""
    fixed = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4"}
    opt = symq.optimize("w", "mean-response-time", "mu_1 + mu_2 = 9/5", discipline,
                        values=fixed, digits=12)
    assert opt.kkt and opt.certified
    out = {"value": opt.value, "x": opt.x}
    grid = []
    for k in range(30, 151, 4):  # mu_1 = k/100, mu_2 = 9/5 - mu_1
        point = dict(fixed, mu_1=f"{k}/100", mu_2=str(Fraction(9, 5) - Fraction(k, 100)))
        try:
            value = gradient("w", "mean-response-time", discipline, point, wrt=["mu_1"],
                             labels=["total"]).value("total")
        except symq.UnstableModelError:
            continue
        grid.append((value, Fraction(k, 100)))
    best, at = min(grid)
    assert out["value"] <= best
    assert abs(out["x"]["mu_1"] - at) <= Fraction(4, 100)


def test_optimize_cli_and_rank(capsys):
    status, out = _cli(capsys, "optimize", "w", "mean-response-time", "--set", "lambda_1=3/20",
                       "--set", "lambda_2=1/10", "--set", "lambda_3=1/4", "--budget",
                       "mu_1 + mu_2 = 9/5", "--bound", "mu_2=1:2", "--digits", "10")
    assert status == 0 and "mu_2 = 1.000000000" in out.out and "certified" in out.out
    status, out = _cli(capsys, "optimize", "w", "mean-response-time", *[
        a for k, v in W_POINT.items() for a in ("--set", f"{k}={v}")], "--rank", "servers",
        "--digits", "8")
    g = gradient("w", "mean-response-time", "collaborative", W_POINT, labels=["total"])
    first = max(("1", "2"), key=lambda s: -g.derivative("total", f"mu_{s}"))
    assert status == 0 and out.out.splitlines()[0].startswith(f"1. server {first}:")
    status, out = _cli(capsys, "optimize", "w", "mean-response-time", "--budget", "mu_1 = 2")
    assert status == 2 and "at least two rates" in out.err
