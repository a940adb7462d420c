"""Command-line runs of issue 29's models (W, N, ring:4, the 5-server nested model) under the
three disciplines: ``symq evaluate MODEL mean-response-time --wrt mu_1 --exact --json`` exits 0
and its exact derivative matches the central difference quotient of the exact values of
``symq.solve`` (an independent route) at a step h = 10^-8, whose error is O(h^2); ``symq derive
--wrt`` and ``symq optimize`` exit 0 on the small models and the optimum's KKT multiplier is the
derivative there."""

from __future__ import annotations

import json
import re
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


N_BOUNDARY = ["optimize", "n", "mean-response-time", "--set", "lambda_1=1/4", "--set",
              "lambda_2=1/4", "--budget", "mu_1 + mu_2 = 2", "--digits", "12"]


def test_optimize_reports_a_rate_driven_to_zero_as_an_unattained_infimum(capsys):
    """Collaborative N: all capacity on the server of both classes; mu_2 -> 0 is an infimum.
    At mu_1 = 2, mu_2 = 0 the system is an M/M/1 queue of rate 2 and load 1/2: T = 1/(2 - 1/2),
    dT/dmu_1 = -1/(3/2)^2 = -4/9; dT/dmu_2 = -124/441 (the N formula's limit), so
    dT/dmu_2 - nu = 8/49 >= 0: moving capacity onto server 2 does not help."""
    assert main(N_BOUNDARY) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "mu_1 = 2.00000000000"
    assert lines[1].startswith("mu_2 -> 0 (at its bound (0)") and "not attained" in lines[1]
    assert lines[2] == "infimum mean-response-time (total) = 0.666666666667 (not attained)"
    assert lines[3].endswith("dQ/dmu_2 - nu = 8/49 = 0.163265306122 >= 0")
    assert "(nu = -0.444444444444); at a bound: mu_2 -> 0; certified" in lines[4]
    assert not re.search(r"\d\.\d+e-\d", "\n".join(lines))  # no meaningless tiny rate
    assert main([*N_BOUNDARY, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["at_lower_limit"] == ["mu_2"] and data["attained"] is False and data["kkt"]
    # the limit values: exact, and equal to the one-sided limit of the engine's exact values
    opt = symq.optimize("n", "mean-response-time", "mu_1 + mu_2 = 2",
                        values={"lambda_1": "1/4", "lambda_2": "1/4"}, digits=12)
    out = {"value": opt.value, "gradient": opt.gradient}
    assert opt.value == Fraction(2, 3) and opt.multiplier == Fraction(-4, 9) and opt.certified
    assert out["gradient"]["mu_2"] == Fraction(-124, 441)
    eps = Fraction(1, 10 ** 9)
    near = symq.gradient("n", "mean-response-time", values={"lambda_1": "1/4", "lambda_2": "1/4",
                         "mu_1": str(2 - eps), "mu_2": str(eps)}, exact=True, labels=["total"])
    assert abs(near.value("total") - out["value"]) < 10 * eps
    assert abs(near.derivative("total", "mu_2") - out["gradient"]["mu_2"]) < 10 * eps


