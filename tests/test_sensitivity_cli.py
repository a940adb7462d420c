"""Command-line runs of issue 29's models (W, N, ring:4, the 5-server nested model) under the
three disciplines: ``symq evaluate MODEL mean-response-time --wrt mu_1 --exact --json`` exits 0
and its exact derivative matches the central difference quotient of the exact values of
``symq.solve`` (an independent route) at a step h = 10^-8, whose error is O(h^2); ``symq derive
--wrt`` and ``symq optimize`` exit 0 on the small models and the optimum's KKT multiplier is the
derivative there."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import symq
from symq.cli import main
from symq.models.catalog import example_rates

ROOT = Path(__file__).resolve().parent.parent
NESTED5 = str(ROOT / "benchmarks" / "nested5.toml")
W_POINT = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": "1",
           "mu_2": "4/5"}
MODELS = ("w", "n", "ring:4", NESTED5)
DISCIPLINES = ("collaborative", "alis", "rais")


def _point(name: str) -> dict[str, str]:
    return dict(W_POINT) if name == "w" else {k: str(v) for k, v in
                                             example_rates(symq.model(name)).items()}


def _sets(point: dict[str, str]) -> list[str]:
    return [a for k, v in point.items() for a in ("--set", f"{k}={v}")]


def quotient_gap(name: str, discipline: str, rate: str, derivative: Fraction) -> Fraction:
    """|central difference quotient of the exact total - derivative| at h = 10^-8."""
    point, h = _point(name), Fraction(1, 10 ** 8)

    def total(x: Fraction) -> Fraction:
        values = {**point, rate: str(Fraction(point[rate]) + x)}
        r = symq.solve(name, "mean-response-time", discipline, values=values, exact=True)
        return Fraction(str(r.exact["total"]))
    return abs((total(h) - total(-h)) / (2 * h) - derivative)


@pytest.mark.parametrize("discipline", DISCIPLINES)
@pytest.mark.parametrize("name", MODELS)
def test_evaluate_wrt_matches_the_difference_quotient(name, discipline, capsys):
    code = main(["evaluate", name, "mean-response-time", "--discipline", discipline,
                 "--wrt", "mu_1", "--exact", "--json", *_sets(_point(name))])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    d = Fraction(data["gradient"]["total"]["mu_1"]["exact"])
    assert d < 0  # a faster server never slows the system down here
    assert quotient_gap(name, discipline, "mu_1", d) < Fraction(1, 10 ** 12)


def test_the_difference_quotient_check_fails_on_a_wrong_derivative(capsys):
    main(["evaluate", "w", "mean-response-time", "--discipline", "alis", "--wrt", "mu_1",
          "--exact", "--json", *_sets(_point("w"))])
    d = Fraction(json.loads(capsys.readouterr().out)["gradient"]["total"]["mu_1"]["exact"])
    assert quotient_gap("w", "alis", "mu_1", d * (1 + Fraction(1, 10 ** 6))) > Fraction(1, 10 ** 9)


@pytest.mark.parametrize("discipline", DISCIPLINES)
def test_derive_and_optimize_run(discipline, capsys):
    assert main(["derive", "n", "mean-response-time", "--discipline", discipline,
                 "--wrt", "mu_1"]) == 0
    assert capsys.readouterr().out.strip()
    point = {k: v for k, v in _point("w").items() if k.startswith("lambda")}
    assert main(["optimize", "w", "mean-response-time", "--discipline", discipline,
                 *_sets(point), "--budget", "mu_1 + mu_2 = 9/5", "--digits", "10"]) == 0
    out = capsys.readouterr().out
    assert "certified" in out and "NOT certified" not in out
    mu = {line.split(" = ")[0]: Fraction(line.split(" = ")[1]) for line in out.splitlines()
          if line.startswith("mu_")}
    assert abs(mu["mu_1"] + mu["mu_2"] - Fraction(9, 5)) < Fraction(1, 10 ** 9)
    # at the optimum the two partial derivatives are equal (KKT on the budget)
    g = symq.gradient("w", "mean-response-time", discipline,
                      values={**point, **{k: str(v) for k, v in mu.items()}}, exact=True,
                      labels=["total"])
    assert abs(g.derivative("total", "mu_1") - g.derivative("total", "mu_2")) < Fraction(1, 10 ** 6)


@pytest.mark.parametrize("discipline", ("alis", "rais"))
def test_of_total_takes_the_short_route_to_the_same_derivatives(discipline, capsys):
    """``--of total`` (busy servers from the idle law, no matching rates) against every output."""
    runs = []
    for extra in ([], ["--of", "total"]):
        assert main(["evaluate", NESTED5, "mean-response-time", "--discipline", discipline,
                     "--gradient", "--exact", "--json", *_sets(_point(NESTED5)), *extra]) == 0
        runs.append(json.loads(capsys.readouterr().out))
    assert list(runs[1]["gradient"]) == ["total"]
    assert runs[1]["gradient"]["total"] == runs[0]["gradient"]["total"]
    assert runs[1]["value"]["total"] == runs[0]["value"]["total"]
