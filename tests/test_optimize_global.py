"""symq.optimize's certified global minimum (branch and bound over the budget set) against a grid
search of exact values, and a must-fail: a box discarded wrongly makes the grid check fail.

The grid search is the second route: exact objective values (rationals, no balls, no branch and
bound, no Newton steps) at every stable point of a grid of the budget set; a certified global
minimum is at most every one of them (its enclosure's lower end, the printed digits' half-unit
below), and the grid's best point lies within a grid step or two of the certified allocation.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

import symq
from symq.engines.second_order import objective_gradient
from symq.engines.sensitivity import rate_symbols
from symq.queries.optimize import _grid

from test_optimize_faces import NESTED6

W = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4"}
N = {"lambda_1": "1/4", "lambda_2": "1/4"}


def _model(spec, tmp_path):
    if spec == "nested6":
        path = tmp_path / "nested6.toml"
        path.write_text(NESTED6)
        return symq.load(path)
    return symq.example_model(spec) if spec == "ring:4" else spec


def _grid_values(model, values, budget, total, discipline, n):
    """(exact value, point) at every stable grid point of the budget set (step total/n)."""
    if isinstance(model, str):
        symbolic = symq.model(model)
        base = {k: Fraction(v) for k, v in values.items()}
    else:
        symbolic, point = rate_symbols(model)
        base = {s.name: v for s, v in point.items()}
    k = len(budget)
    out = []
    for x in _grid([Fraction(0)] * k, [total] * k, total, n, 10 ** 5):
        if any(v == 0 for v in x):
            continue
        p = {**base, **dict(zip(budget, x))}
        try:
            v, _ = objective_gradient(symbolic, p, "mean-response-time", discipline)
        except (symq.UnstableModelError, ZeroDivisionError):
            continue
        from symq.queries.optimize import _stable
        if _stable(symbolic, p):
            out.append((v, x))
    return out


def _lower(text):
    d = Decimal(text)
    return Fraction(d) - Fraction(1, 2) * Fraction(10) ** d.as_tuple().exponent


CASES = [
    ("w", W, ["mu_1", "mu_2"], Fraction(9, 5)),
    ("n", N, ["mu_1", "mu_2"], Fraction(2)),
    ("ring:4", None, ["mu_1", "mu_2"], Fraction(2)),
    ("ring:4", None, ["mu_1", "mu_2", "mu_3"], Fraction(3)),
    ("nested6", None, ["mu_1", "mu_3"], Fraction(2)),
    ("nested6", None, ["mu_1", "mu_2", "mu_3"], Fraction(3)),
]
SLOW = {("ring:4", 3, "collaborative"), ("nested6", 3, "collaborative"),
        ("nested6", 3, "alis"), ("nested6", 3, "rais")}
#: the ball enclosures of the ALIS/RAIS DP of ring:4 over boxes of width 0.05 are wider than
#: the objective's range, so 4,000 boxes do not finish (the optimum is certified local)
LOCAL_ONLY = {("ring:4", 3, "alis"), ("ring:4", 3, "rais")}


def _params():
    for spec, values, budget, total in CASES:
        for d in ("collaborative", "alis", "rais"):
            key = (spec, len(budget), d)
            if key in LOCAL_ONLY:
                continue
            marks = [pytest.mark.slow] if key in SLOW else []
            yield pytest.param(spec, values, budget, total, d, marks=marks,
                               id=f"{spec}-{len(budget)}-{d}")


@pytest.mark.parametrize("spec, values, budget, total, discipline", list(_params()))
def test_certified_global_minimum_against_a_grid_search(spec, values, budget, total,
                                                        discipline, tmp_path):
    model = _model(spec, tmp_path)
    text = " + ".join(budget) + f" = {total}"
    opt = symq.optimize(model, "mean-response-time", text, discipline, values=values,
                        digits=12)
    assert opt.certified and opt.scope == "global", opt.reason
    assert opt.reason.startswith("certified global minimum over the budget set")
    grid = _grid_values(model, values, budget, total, discipline, 24 if len(budget) == 2 else 12)
    assert len(grid) >= 5
    best, at = min(grid)
    low = _lower(opt.value_text)
    assert low <= best  # no grid point beats the certified minimum
    step = total / (24 if len(budget) == 2 else 12)
    for name, v in zip(budget, at):  # and the grid's best point is near the allocation
        assert abs(opt.x[name] - v) <= 2 * step


def _spy_global(monkeypatch):
    """Run the W optimum with a spy on _global: its arguments, to call it again."""
    import symq.queries.optimize as O
    calls = []
    real = O._global

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)
    monkeypatch.setattr(O, "_global", spy)
    symq.optimize("w", "mean-response-time", "mu_1 + mu_2 = 9/5", values=W, digits=12)
    return real, calls[0][0]


def test_a_box_discarded_wrongly_is_caught(monkeypatch):
    """Must-fail: pretend the minimum is the equal split's value (a point that is not the
    global minimum). The honest branch and bound refuses the claim (it finds a better point);
    with every box discarded wrongly (injected through ``discard``) it claims a global minimum,
    and the grid check of the test above catches the claim."""
    real, args = _spy_global(monkeypatch)
    f, x, free, active, lo, hi, total, value_range, max_boxes = args
    equal, _ = objective_gradient("w", {**W, "mu_1": Fraction(9, 10), "mu_2": Fraction(9, 10)},
                                  "mean-response-time", "collaborative")
    fake = (equal, equal)
    honest = real(f, x, free, active, lo, hi, total, fake, max_boxes)
    assert honest["global"] is False and honest["better"] is not None
    wrong = real(f, x, free, active, lo, hi, total, fake, max_boxes, discard=lambda box: True)
    assert wrong["global"] is True  # the injected error: a claim on a wrong value
    grid = _grid_values("w", W, ["mu_1", "mu_2"], Fraction(9, 5), "collaborative", 24)
    with pytest.raises(AssertionError):
        assert fake[0] <= min(grid)[0]


def test_the_true_minimum_survives_the_honest_search(monkeypatch):
    real, args = _spy_global(monkeypatch)
    found = real(*args)
    assert found["global"] is True and found["better"] is None and found["boxes"] > 10


def test_beyond_three_rates_the_minimum_is_local(tmp_path):
    model = _model("nested6", tmp_path)
    opt = symq.optimize(model, "mean-response-time", "mu_1 + mu_2 + mu_3 + mu_4 = 4",
                        "collaborative", digits=10)
    assert opt.certified and opt.scope == "local" and opt.boxes == 0
    assert opt.reason.startswith("certified local minimum")
