"""symq.optimize on a face: a rate driven to its bound 0 and the optimum of the remaining rates.

The 6-server nested model NESTED6 (laminar server sets {1} < {1,2} < {1,2,3} > {3} and
{4} < {4,5} < {4,5,6}; every set holding server 2 also holds server 1, so under the
collaborative discipline capacity on server 2 is worth less than on server 1) with the budget
mu_1 + mu_2 + mu_3 = 3: the infimum is at mu_2 -> 0. Independent routes:

* the face optimum by bisection on the sign of the exact face derivative
  dT/dmu_1 - dT/dmu_3 at mu_2 = 0, taken from the structured (nested) formula and its derivative
  formula (symq.engines.formulas, not the tape the optimizer differentiates);
* the KKT sign at the bound against exact finite differences on the face: moving capacity eps
  from mu_1 onto mu_2 raises T, at the rate dT/dmu_2 - dT/dmu_1 of the printed gap;
* must-fail: the same face forced onto a model where the bound does not hold (ALIS, whose
  optimum has mu_2 > 0) is refused, and Newton started on the bound releases it.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import pytest

import symq
from symq.cli import main

NESTED6 = """name = "nested6"
[classes.1]
arrival_rate = "1/2"
servers = [1]
[classes.2]
arrival_rate = "1/4"
servers = [1, 2]
[classes.3]
arrival_rate = "2/5"
servers = [3]
[classes.4]
arrival_rate = "1/6"
servers = [1, 2, 3]
[classes.5]
arrival_rate = "1/4"
servers = [4]
[classes.6]
arrival_rate = "1/5"
servers = [4, 5]
[classes.7]
arrival_rate = "1/6"
servers = [4, 5, 6]
[servers.1]
service_rate = 1
[servers.2]
service_rate = 1
[servers.3]
service_rate = 1
[servers.4]
service_rate = 1
[servers.5]
service_rate = 1
[servers.6]
service_rate = 1
"""

BUDGET = "mu_1 + mu_2 + mu_3 = 3"


@pytest.fixture(scope="module")
def nested6(tmp_path_factory):
    path = tmp_path_factory.mktemp("faces") / "nested6.toml"
    path.write_text(NESTED6)
    return path


@pytest.fixture(scope="module")
def face_opt(nested6):
    """The face optimum, certified locally (max_boxes=0: the global search is the subject of
    test_optimize_global.py and of the slow command-line test below)."""
    return symq.optimize(symq.load(nested6), "mean-response-time", BUDGET, digits=15,
                         max_boxes=0)


def _point(path):
    from symq.engines.sensitivity import rate_symbols
    symbolic, point = rate_symbols(symq.load(path))
    return symbolic, {s.name: v for s, v in point.items()}


def _formula_slopes(symbolic, point, discipline="collaborative"):
    """Exact dT/dmu_i at ``point`` from the structured formula's derivative formula."""
    from symq.engines.formulas import structured
    from symq.engines.formulas.derivative import derivative
    formula = structured(symbolic, "mean-response-time", discipline)
    values = derivative(formula, ["mu_1", "mu_2", "mu_3"]).at(
        {k: str(v) for k, v in point.items()})
    return {n: Fraction(str(values[f"total d/d{n}"])) for n in ("mu_1", "mu_2", "mu_3")}


def _bisect_face(symbolic, point, steps=56):
    """The zero of dT/dmu_1 - dT/dmu_3 on the face mu_2 = 0, mu_1 + mu_3 = 3 (bisection)."""
    lo, hi = Fraction(1), Fraction(5, 2)

    def slope(a):
        s = _formula_slopes(symbolic, {**point, "mu_1": a, "mu_2": 0, "mu_3": 3 - a})
        return s["mu_1"] - s["mu_3"]
    assert slope(lo) < 0 < slope(hi)
    for _ in range(steps):
        mid = (lo + hi) / 2
        if slope(mid) < 0:
            lo = mid
        else:
            hi = mid
    return lo, hi


def _bracket(text):
    d = Decimal(text)
    half = Fraction(1, 2) * Fraction(10) ** d.as_tuple().exponent
    return Fraction(d) - half, Fraction(d) + half


def test_face_optimum_is_certified_and_matches_a_bisection_on_the_face(nested6, face_opt):
    symbolic, point = _point(nested6)
    opt = face_opt
    assert opt.scope == "local" and "not proven global" in opt.reason
    assert opt.certified and opt.kkt, opt.reason
    assert opt.limit == ["mu_2"] and opt.active == ["mu_2"] and opt.x["mu_2"] == 0
    assert opt.allocation["mu_2"] == "0"
    lo, hi = _bisect_face(symbolic, point)
    b_lo, b_hi = _bracket(opt.allocation["mu_1"])
    assert b_lo <= lo and hi <= b_hi  # the bisection's zero lies in the printed digits
    assert opt.allocation["mu_1"] == "1.81918076747269"
    # the value: the formula at the bisection's point rounds to the printed digits
    from symq.engines.formulas import structured
    value = structured(symbolic, "mean-response-time", "collaborative").at(
        {**{k: str(v) for k, v in point.items()}, "mu_1": str(lo), "mu_2": "0",
         "mu_3": str(3 - lo)})
    v_lo, v_hi = _bracket(opt.value_text)
    assert v_lo <= Fraction(str(value["total"])) <= v_hi


def test_face_kkt_sign_against_exact_finite_differences(nested6, face_opt):
    """dT/dmu_2 - nu > 0 at the bound: moving capacity eps from mu_1 to mu_2 raises T (exact
    values of the formula), at the rate of the printed gap."""
    from symq.engines.formulas import structured
    symbolic, point = _point(nested6)
    opt = face_opt
    formula = structured(symbolic, "mean-response-time", "collaborative")
    x1 = Fraction(Decimal(opt.allocation["mu_1"]))
    base = {**{k: str(v) for k, v in point.items()}, "mu_1": str(x1), "mu_2": "0",
            "mu_3": str(3 - x1)}
    t0 = Fraction(str(formula.at(base)["total"]))
    gap = opt.gradient["mu_2"] - opt.gradient["mu_1"]
    assert gap > Fraction(1, 10)  # the margin is about +0.05; here about +0.15
    for eps in (Fraction(1, 10 ** 4), Fraction(1, 10 ** 6)):
        moved = {**base, "mu_1": str(x1 - eps), "mu_2": str(eps)}
        quotient = (Fraction(str(formula.at(moved)["total"])) - t0) / eps
        assert quotient > 0
        assert abs(quotient - gap) < 1000 * eps + Fraction(1, 10 ** 10)


@pytest.mark.slow
def test_face_optimum_from_the_command_line(nested6, capsys):
    assert main(["optimize", str(nested6), "mean-response-time", "--budget", BUDGET,
                 "--digits", "15"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "mu_1 = 1.81918076747269"
    assert lines[1].startswith("mu_2 -> 0 (at its bound (0)")
    assert lines[3].startswith("infimum mean-response-time (total) = ")
    assert lines[3].endswith("(not attained)")
    kkt = [ln for ln in lines if ln.startswith("KKT: ")]
    assert len(kkt) == 1 and "NOT" not in kkt[0]
    assert "certified global minimum over the budget set" in kkt[0]
    assert main(["optimize", str(nested6), "mean-response-time", "--budget", BUDGET,
                 "--digits", "15", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["certified"] is True and data["at_lower_limit"] == ["mu_2"]
    assert data["certificate"].startswith("certified global minimum")


def test_a_bound_that_does_not_hold_is_refused(nested6):
    """Must-fail: under ALIS the optimum has mu_2 > 0; the face mu_2 = 0 (its best point
    there) is not a minimum, and the KKT sign at the bound says so."""
    from symq.queries.optimize import _Domain, _Objective, _certify, _newton
    from symq.engines.second_order import precision_bits
    symbolic, point = _point(nested6)
    fixed = {k: v for k, v in point.items() if k not in ("mu_1", "mu_2", "mu_3")}
    f = _Objective(symbolic, "mean-response-time", "alis", fixed, ["mu_1", "mu_2", "mu_3"],
                   None, precision_bits(12, 6))
    f.domain = _Domain.build(symbolic, "mean-response-time", fixed, ["mu_1", "mu_2", "mu_3"],
                             None)
    # the face mu_2 = 0: the bound mu_2 <= 0 pins it; its optimum is a KKT point of the face
    out = _newton(f, symbolic, ["mu_1", "mu_2", "mu_3"], Fraction(3),
                  {"mu_2": (None, Fraction(0))}, 12, 60,
                  start=[Fraction(3, 2), Fraction(0), Fraction(3, 2)])
    x, free, active = out["_x"], out["_free"], out["_active_idx"]
    assert x[1] == 0 and active == {1}
    # certified as held at a *lower* bound 0: the sign dT/dmu_2 - nu > 0 must fail
    cert = _certify(f, x, free, active, {}, Fraction(3), 12, "ball", out["_last"])
    assert not cert["certified"] and not cert["kkt"]
    assert "sign of dQ/dx - nu at an active bound" in cert["reason"]
    # and the full optimizer does not stop there: mu_2 is interior under ALIS
    opt = symq.optimize(symq.load(nested6), "mean-response-time", BUDGET, "alis", digits=12,
                        max_boxes=0)
    assert opt.certified and opt.limit == [] and Fraction(Decimal(opt.allocation["mu_2"])) > \
        Fraction(1, 3)


def test_newton_started_on_the_bound_releases_it(nested6):
    """Must-fail for a release on the wrong gradient sign: started with mu_2 = 0 under ALIS,
    where moving capacity onto server 2 lowers T, Newton releases the bound."""
    from symq.queries.optimize import _Domain, _Objective, _newton
    from symq.engines.second_order import precision_bits
    symbolic, point = _point(nested6)
    fixed = {k: v for k, v in point.items() if k not in ("mu_1", "mu_2", "mu_3")}
    budget = ["mu_1", "mu_2", "mu_3"]
    f = _Objective(symbolic, "mean-response-time", "alis", fixed, budget, None,
                   precision_bits(12, 6))
    f.domain = _Domain.build(symbolic, "mean-response-time", fixed, budget, None)
    out = _newton(f, symbolic, budget, Fraction(3), {}, 12, 60,
                  start=[Fraction(3, 2), Fraction(0), Fraction(3, 2)])
    assert out["_active_idx"] == set() and out["_x"][1] > Fraction(1, 3)


def test_the_limit_path_never_certifies_several_free_rates(nested6):
    """The formula's limit point (used where the DP has no value at 0) certifies only a point
    fixed by the budget: with two free rates left it is not certified."""
    from symq.queries.optimize import _limit_point
    symbolic, point = _point(nested6)
    fixed = {k: v for k, v in point.items() if k not in ("mu_1", "mu_2", "mu_3")}
    # at the face optimum (15 digits) the KKT conditions hold to 8 digits: only the number of
    # free rates keeps the limit point from being certified
    x1 = Fraction("1.81918076747269")
    x = [x1, Fraction(1, 10 ** 12), 3 - x1 - Fraction(1, 10 ** 12)]
    out = _limit_point(symbolic, "mean-response-time", "collaborative", fixed,
                       ["mu_1", "mu_2", "mu_3"], Fraction(3), x, [1], [0, 2], set(),
                       [None, None, None], {}, 8)
    assert out["kkt"] is True and out["limit_note"] is None
    assert out["certified"] is False and "several free rates" in out["reason"]
    # with one free rate (mu_3 fixed by a bound) the same check can certify
    out = _limit_point(symbolic, "mean-response-time", "collaborative", fixed,
                       ["mu_1", "mu_2", "mu_3"], Fraction(3), x, [1], [0], {2},
                       [None, None, Fraction(12, 10) - Fraction(1, 10 ** 12)], {}, 12)
    assert out["limit"] == ["mu_2"]
