"""Certified digits (ball arithmetic) against the exact rationals of the same DPs.

* on seeded random graphs of 4 to 12 servers, every certified value of every discipline equals
  the exact rational rounded to the printed digits, and its ball contains the exact value;
* must fail: a working precision too small for the digits asked, a ball containing a rounding
  tie, and a perturbed ball are not certified (or are caught by the exact comparison);
* the command line prints certified digits where exact rationals are large and the exact value
  with ``--exact``, with the same digits.
"""

from fractions import Fraction

import pytest

import symq
from symq.cli import main
from symq.errors import UnsupportedError
from symq.models.model import Model
from symq.queries.exact import values
from symq.queries.exact import certified_quantity, certified_values  # noqa: E402
from symq.engines.normalization.certified import (BallField,
                                          certify)
from symq.arithmetic.numeric import round_fraction

from routes import random_stable_model

flint = pytest.importorskip("flint")

DIGITS = 30


def random_graph(servers, seed, load=Fraction(3, 4)):
    """As benchmarks/certified_bench.py: M classes on 2-4 servers each (rates scaled to stable)."""
    return random_stable_model(servers, seed, load=load)


def _fraction(v):
    return v if isinstance(v, Fraction) else Fraction(int(v.p), int(v.q))


def _check(ball, exact):
    exact = _fraction(exact)
    assert ball.lower <= exact <= ball.upper, "the claimed radius must contain the exact value"
    assert ball.text == round_fraction(exact, DIGITS), "printed digits must be correct"


@pytest.mark.parametrize("servers,seed", [(4, 1), (6, 2), (8, 3), (12, 4)])
@pytest.mark.parametrize("discipline", ["collaborative", "alis", "rais"])
def test_certified_digits_equal_rounded_exact_rationals(servers, seed, discipline):
    model = random_graph(servers, seed)
    per_class = servers <= 8 or discipline == "collaborative"
    exact, _ = values(model, discipline, per_class)
    balls, bits = certified_values(model, discipline, per_class, DIGITS)
    assert bits >= DIGITS * 3
    _check(balls["empty"], exact["empty"])
    _check(balls["G"], exact["G"])
    for s in model.servers:
        _check(balls["idle"][s], exact["idle"][s])
    if per_class:
        for c in model.classes:
            _check(balls["L"][c], exact["L"][c])
        _check(balls["L_total"], sum(_fraction(v) for v in exact["L"].values()))


def test_heavy_load_and_redundancy_and_components():
    """Near the stability boundary (small slacks r(X)), the symmetric redundancy route and a
    disconnected graph: still every digit correct."""
    heavy = random_graph(6, 7, load=Fraction(99, 100))
    redundancy = symq.model("redundancy:5:2").substitute({"lambda": "37/10", "mu": "1"})
    w = symq.model("w").substitute({"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4",
                                    "mu_1": "1", "mu_2": "4/5"})
    ring = symq.model("ring:4").substitute({"lambda_1": "1/3", "lambda_2": "1/5", "lambda_3": "1/7",
                                            "lambda_4": "1/4", "mu_1": "1", "mu_2": "1",
                                            "mu_3": "2", "mu_4": "1"})
    both = Model(compatibility={**{f"w{c}": [f"w{s}" for s in v] for c, v in w.compatibility.items()},
                                **ring.compatibility},
                 arrival_rates={**{f"w{c}": r for c, r in w.arrival_rates.items()},
                                **ring.arrival_rates},
                 service_rates={**{f"w{s}": r for s, r in w.service_rates.items()},
                                **ring.service_rates})
    for model in (heavy, redundancy, both):
        for discipline in ("collaborative", "alis", "rais"):
            exact, _ = values(model, discipline, True)
            balls, _ = certified_values(model, discipline, True, DIGITS)
            _check(balls["empty"], exact["empty"])
            for s in model.servers:
                _check(balls["idle"][s], exact["idle"][s])
            for c in model.classes:
                _check(balls["L"][c], exact["L"][c])


# ---------------------------------------------------------------------------- must fail
def test_too_small_precision_does_not_certify():
    model = random_graph(6, 2)
    with pytest.raises(UnsupportedError, match="could not certify"):
        certified_values(model, "alis", True, DIGITS, start_bits=40, max_bits=60)


def test_rounding_tie_and_perturbed_ball_do_not_pass():
    assert certify(flint.arb("0.125 +/- 1e-40"), 2) is None  # both 0.12 and 0.13 inside
    model = random_graph(6, 2)
    exact = _fraction(values(model, "collaborative")[0]["empty"])
    with flint.ctx.workprec(200):
        field = BallField()
        ball = values(model, "collaborative", field=field)[0]["empty"]
        shifted = ball + flint.arb(10) ** (-DIGITS + 2)  # a wrong value with a tiny radius
    good, bad = certify(ball, DIGITS), certify(shifted, DIGITS)
    assert good.text == round_fraction(exact, DIGITS)
    # the wrong ball is narrow, so it certifies: to digits that are not the exact value's,
    # and its enclosure excludes the exact value (the exact comparison catches it)
    assert bad is not None and bad.text != round_fraction(exact, DIGITS)
    assert not bad.lower <= exact <= bad.upper


def test_perturbed_model_is_caught_by_the_exact_comparison():
    model = random_graph(6, 2)
    lam = dict(model.arrival_rates)
    first = model.classes[0]
    lam[first] = lam[first] * Fraction(1000001, 1000000)
    perturbed = Model(compatibility=model.compatibility, arrival_rates=lam,
                      service_rates=model.service_rates)
    balls, _ = certified_values(perturbed, "rais", False, DIGITS)
    exact = _fraction(values(model, "rais")[0]["empty"])
    assert balls["empty"].text != round_fraction(exact, DIGITS)
    assert not balls["empty"].contains(exact)


# ---------------------------------------------------------------------------- library and CLI
def test_certified_quantity_shapes_and_exact_fallback():
    model = random_graph(8, 5)
    certified = certified_quantity(model, "mean-response-time", "alis", 20)
    exact = symq.solve(model, "mean-response-time", "alis", digits=20, exact=True)
    assert certified["total"].exact is None and exact.arithmetic == "exact"
    assert certified["total"].value == exact.value
    for c in model.classes:
        assert exact.per_class[c].exact is not None
        assert certified["per_class"][c].value == exact.per_class[c].value
        assert certified["per_class"][c].value == round_fraction(
            Fraction(str(exact.per_class[c].exact)), 20)


def test_cli_certified_and_exact_print_the_same_digits(tmp_path, capsys):
    model = random_graph(16, 3)
    path = tmp_path / "big.toml"
    path.write_text(model.to_toml())
    assert main(["evaluate", str(path), "empty-probability", "--digits", "40",
                 "--method", "interval"]) == 0
    certified = capsys.readouterr().out.strip()
    assert main(["evaluate", str(path), "empty-probability", "--digits", "40", "--exact"]) == 0
    exact = capsys.readouterr().out.strip()
    assert "/" not in certified and "=" not in certified
    assert exact.endswith(" = " + certified)
