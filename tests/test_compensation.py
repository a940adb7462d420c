"""Unit and cross-check tests of symq.studies.compensation (issue 5)."""

import argparse
import json
from fractions import Fraction

import mpmath
import pytest
import sympy

from symq.studies.compensation import asymmetric_jsq, sed, solve, symmetric_jsq
from symq.studies.compensation.kernel import kernel_polynomials, product_form_kernels
from symq.studies.compensation.models import balance_equations, incoming, region, RoutingModel
from symq.studies.compensation.steps import NumericModel
from symq.studies.compensation.sums import tail_sums
from symq.studies.compensation.jsq_symmetric import symmetric_mean_number, symmetric_probability
from symq.studies.compensation.tree import build_levels
from symq.commands.compensation import register
from symq.errors import ModelError, UnstableModelError

ASYMMETRIC = [("3/2", 1, 2, "1/2"), ("12/5", 1, 2, "3/10"), (1, 1, 3, 1)]


@pytest.fixture(autouse=True)
def _restore_precision():
    dps = mpmath.mp.dps
    yield
    mpmath.mp.dps = dps


# ------------------------------------------------------------------ symbolic structure
def test_kernels_are_the_notes_kernels():
    """Derived from the balance equations, they equal docs/theory-compensation.md §3.3 (JSQ)
    and §4.3 (SED)."""
    alpha, b = sympy.symbols("alpha b")
    lam = sympy.Symbol("lambda", positive=True)
    mu1, mu2 = sympy.Symbol("mu_1", positive=True), sympy.Symbol("mu_2", positive=True)
    k = kernel_polynomials(1)
    sigma = lam + mu1 + mu2
    assert sympy.expand(k["upper"] - (mu1 * alpha ** 2 + mu2 * alpha * b ** 2 + lam * b ** 2
                                      - sigma * alpha * b)) == 0
    # note's lower kernel is in (alpha, b_note) with b_note = alpha / b
    bn = sympy.Symbol("bn")
    note_lower = mu2 * alpha ** 2 + mu1 * alpha * bn ** 2 + lam * bn ** 2 - sigma * alpha * bn
    assert sympy.simplify(note_lower.subs(bn, alpha / b) * b ** 2 / alpha ** 2 - k["lower"]) == 0
    for s in (2, 3):
        k = kernel_polynomials(s)
        sigma = lam + 1 + s
        assert sympy.expand(k["upper"] - (lam * b ** (2 * s) + s * alpha * b ** (s + 1)
                                          - sigma * alpha * b ** s + alpha ** 2)) == 0
        assert sympy.expand(k["lower"] - (s * b ** (s + 1) - sigma * b ** s
                                              + lam * b ** (s - 1) + alpha)) == 0


def test_product_form_solves_inner_equations_exactly_on_the_kernel():
    """a^q1 b^q2 with (a, b) on the kernel makes the interior balance residual exactly zero."""
    lam, mu1, mu2 = Fraction(3, 2), Fraction(1), Fraction(2)
    a = Fraction(1, 3)
    # upper: lambda/a + mu1 a + mu2 b = sigma  ->  b rational
    b = (lam + mu1 + mu2 - lam / a - mu1 * a) / mu2
    x = (3, 9)
    residual = sum(rate * a ** y[0] * b ** y[1] for y, rate in incoming(x, 1, lam, mu1, mu2, Fraction(1, 2)))
    assert residual == 0
    b = Fraction(2, 5)  # lower: mu1 a + lambda/b + mu2 b = sigma
    a = (lam + mu1 + mu2 - lam / b - mu2 * b) / mu1
    x = (9, 3)
    residual = sum(rate * a ** y[0] * b ** y[1] for y, rate in incoming(x, 1, lam, mu1, mu2, Fraction(1, 2)))
    assert residual == 0


def test_symbolic_balance_equations():
    eqs = balance_equations(1)
    lam, mu1, mu2 = (sympy.Symbol(n, positive=True) for n in ("lambda", "mu_1", "mu_2"))
    q1, q2 = sympy.symbols("q_1 q_2", integer=True, nonnegative=True)
    p = sympy.Function("p")
    assert eqs["upper interior"] == sympy.Eq(
        sympy.expand((lam + mu1 + mu2) * p(q1, q2)),
        lam * p(q1 - 1, q2) + mu1 * p(q1 + 1, q2) + mu2 * p(q1, q2 + 1))
    assert "boundary r=2" in balance_equations(3)
    assert str(product_form_kernels(2)["lower"]) == "a + 2*b - lambda - 3 + lambda/b"


def test_regions():
    assert region((0, 1), 1) == "upper" and region((1, 0), 1) == "lower"
    assert region((1, 2), 2) == "boundary" and region((1, 3), 2) == "boundary"
    assert region((1, 4), 2) == "upper" and region((2, 3), 2) == "lower"


# ------------------------------------------------------------------ steps and residuals
def _tree(model, dps, depth, box=3):
    with mpmath.workdps(dps):
        nm = NumericModel(model)
        probes = [(box, 0), (0, model.s * box)]
        levels = []
        for lvl in build_levels(nm, probes, prune=None):
            levels.append(lvl)
            if len(levels) > depth:
                break
    return nm, levels


MODELS = [symmetric_jsq("9/10"), asymmetric_jsq("3/2", 1, 2, "1/2"), asymmetric_jsq(1, 1, 3, 1),
          sed(2, "1/2", "1/2"), sed(3, "2/5", "9/10"), sed(3, 0, "1/2")]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: f"{m.policy}-{m.s}-{m.tie_probability}")
def test_every_term_satisfies_the_inner_equations(model):
    """Residual of each product form at interior states, relative to its size, < 10^-(dps-5)."""
    dps = 40
    nm, levels = _tree(model, dps, 3)
    s = model.s
    with mpmath.workdps(dps):
        for lvl in levels:
            for g in lvl:
                for t in g.terms:
                    for x in ((6, s * 10 + s - 1), (6, s * 12)) if t.kind == "upper" else ((12, s * 6), (12, s * 6 + s - 1)):
                        col = incoming(x, s, nm.lam, nm.mu1, nm.mu2, nm.q)
                        res = sum(rate * t.a ** (y[0] - x[0]) * t.b ** (y[1] - x[1]) for y, rate in col)
                        scale = sum(abs(rate * t.a ** (y[0] - x[0]) * t.b ** (y[1] - x[1])) for y, rate in col)
                        assert abs(res) < scale * mpmath.mpf(10) ** (-(dps - 5))


@pytest.mark.parametrize("model", MODELS, ids=lambda m: f"{m.policy}-{m.s}-{m.tie_probability}")
def test_each_step_removes_the_error_on_its_boundary(model):
    """A lone term violates the vertical boundary, the pair does not; a known term violates the
    horizontal boundary, the whole group does not."""
    dps = 40
    nm, levels = _tree(model, dps, 2)
    tiny = mpmath.mpf(10) ** (-(dps - 8))
    with mpmath.workdps(dps):
        for lvl in levels:
            for g in lvl:
                size = max(abs(t.coef) for t in g.terms)
                assert max(abs(r) for r in nm.horizontal_residuals(g)) < tiny * size
                if g.known:
                    before = nm.hs_rhs(g.known)
                    assert max(abs(r) for r in before) > mpmath.mpf(10) ** -8 * size
                for t in g.new:
                    partner, _ = nm.vertical_step(t)
                    alone = nm.vertical_residuals(t, type(t)(t.kind, 0 * t.coef, t.a, t.b))
                    pair = nm.vertical_residuals(t, partner)
                    assert max(abs(r) for r in alone) > mpmath.mpf(10) ** -8 * abs(t.coef)
                    assert max(abs(r) for r in pair) < tiny * abs(t.coef)


def test_kernel_root_selection():
    nm, levels = _tree(sed(3, "1/2", "9/10"), 30, 2)
    with mpmath.workdps(30):
        for lvl in levels:
            for g in lvl:
                ups = [t for t in g.new if t.kind == "upper"]
                lows = [t for t in g.new if t.kind == "lower"]
                assert len(ups) == 3 and len(lows) == 1
                assert all(abs(t.b) ** 3 < abs(g.alpha) for t in ups)
                assert abs(lows[0].b) > 1


def test_tail_sums_against_brute_force():
    model = sed(2, "1/2", "1/2")
    nm, levels = _tree(model, 30, 1)
    n0, s = 2, 2
    with mpmath.workdps(30):
        for g in levels[1][:2]:
            s0, s1, s2 = tail_sums(g, s, n0)
            b0 = b1 = b2 = 0
            for q1 in range(0, 70):
                for q2 in range(0, 140):
                    if q1 < n0 and q2 < s * n0:
                        continue
                    v = g.value((q1, q2), s)
                    b0 += v; b1 += q1 * v; b2 += q2 * v
            for exact, brute in ((s0, b0), (s1, b1), (s2, b2)):
                assert abs(exact - brute) < mpmath.mpf(10) ** -20 * max(1, abs(exact))


# ------------------------------------------------------------------ whole solutions
def test_symmetric_agrees_with_closed_form_chain():
    """Hybrid tree (merged) against the Adan-Wessels-Zijm chain (docs/theory-compensation.md
    §2), 30 digits."""
    for rho, chain_levels in ((Fraction(1, 2), 90), (Fraction(9, 10), 60)):
        r = solve(symmetric_jsq(rho), digits=32, states=[(0, 0), (2, 3), (7, 4)])
        with mpmath.workdps(45):
            assert abs(r.mean_number - symmetric_mean_number(rho, chain_levels)) < 1e-30 * r.mean_number
            for x, v in r.probabilities.items():
                assert abs(v - symmetric_probability(rho, x, chain_levels)) < 1e-30 * v


def test_notes_reference_values():
    r = solve(symmetric_jsq("9/10"), digits=30)
    with mpmath.workdps(40):
        assert abs(r.mean_number - mpmath.mpf("9.8548430782228688758385874662000")) < 1e-29
        assert abs(r.empty_probability - mpmath.mpf("0.04224576230496681083133064013")) < 5e-30  # note: last digit truncated


CASES_30 = ([symmetric_jsq("1/2"), symmetric_jsq("9/10")]
            + [asymmetric_jsq(*c) for c in ASYMMETRIC]
            + [sed(2, "1/2", "9/10"), sed(2, 0, "1/2"), sed(3, 1, "9/10"), sed(3, "1/2", "1/2")])


@pytest.mark.parametrize("model", CASES_30, ids=lambda m: f"{m.policy}-{m.s}-{m.tie_probability}-{m.load}")
def test_30_digits_against_a_higher_precision_run(model):
    """Two runs with different precision and box size agree to 30 digits."""
    states = [(0, 0), (1, 2), (4, 3), (2, 7)]
    low = solve(model, digits=30, states=states)
    high = solve(model, digits=40, states=states, box=low.box + 2)
    assert low.truncation_error_bound < 1e-31
    with mpmath.workdps(50):
        for a, b in [(low.mean_number, high.mean_number), (low.empty_probability, high.empty_probability)] + \
                [(low.probabilities[x], high.probabilities[x]) for x in states]:
            assert abs(a - b) < mpmath.mpf(10) ** -30 * abs(b)


@pytest.mark.parametrize("model", [asymmetric_jsq(1, 1, 3, 1), sed(2, "1/2", "9/10")],
                         ids=["asym", "sed2"])
def test_global_balance_inside_and_outside_the_box(model):
    """Balance residuals of the final law: at working precision inside the box and off the axes;
    on the axes (where the deepest terms still violate the vertical boundary) and on the ring (where
    the box meets the truncated series) within the reported bound."""
    r = solve(model, digits=25, box=3, levels=8 if model.s == 1 else 4)
    s = model.s
    with mpmath.workdps(r.dps):
        lam, mu1, mu2, q = (mpmath.mpf(v.numerator) / v.denominator for v in
                            (model.arrival_rate, *model.service_rates, model.tie_probability))
        cache = {}

        def p(x):
            if x not in cache:
                cache[x] = r.probability(x)
            return cache[x]

        axis = off_axis = 0
        for q1 in range(0, 7):
            for q2 in range(0, 7 * s):
                x = (q1, q2)
                res = abs(sum(rate * p(y) for y, rate in incoming(x, s, lam, mu1, mu2, q))) / p(x)
                on_ring = q1 == r.box and q2 < s * r.box or q2 == s * r.box and q1 < r.box
                if q1 == 0 or q2 == 0 or on_ring:
                    axis = max(axis, res)
                else:
                    off_axis = max(off_axis, res)
        assert off_axis < mpmath.mpf(10) ** -30
        assert axis < 100 * r.truncation_error_bound


def test_more_levels_reduce_the_error():
    model = asymmetric_jsq("3/2", 1, 2, "1/2")
    exact = solve(model, digits=30).mean_number
    errors = [abs(solve(model, digits=30, box=3, levels=L).mean_number - exact) for L in (3, 5, 7)]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 1e-12


# ------------------------------------------------------------------ bad input and CLI
@pytest.mark.parametrize("call,match", [
    (lambda: symmetric_jsq("1"), "unstable"),
    (lambda: symmetric_jsq("11/10"), "rho = 11/10"),
    (lambda: sed(3, "1/2", "1"), "unstable"),
])
def test_unstable(call, match):
    with pytest.raises(UnstableModelError, match=match):
        call()


@pytest.mark.parametrize("call,match", [
    (lambda: symmetric_jsq(0.9), "float"),
    (lambda: symmetric_jsq("nine"), "not an exact number"),
    (lambda: sed("5/2", "1/2", "1/2"), "not a positive integer"),
    (lambda: sed(0, "1/2", "1/2"), "not a positive integer"),
    (lambda: sed(2, "3/2", "1/2"), r"outside \[0, 1\]"),
    (lambda: asymmetric_jsq(1, -1, 2), "mu_1"),
    (lambda: solve(symmetric_jsq("1/2"), levels=1), "levels"),
    (lambda: solve(symmetric_jsq("1/2"), states=[(-1, 0)]), "state"),
])
def test_bad_values(call, match):
    with pytest.raises(ModelError, match=match):
        call()


def _cli(argv):
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    register(sub)
    args = parser.parse_args(argv)
    return args.handler(args)


def test_cli_json_contract(capsys):
    assert _cli(["compensation", "jsq", "--rho", "9/10", "--digits", "50", "--json",
                 "--state", "0,0", "--state", "3,1"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("policy", "rho", "s", "q", "levels", "digits", "empty-probability", "mean-number",
                "truncation-error-bound", "probabilities"):
        assert key in data
    assert data["rho"] == "9/10" and data["digits"] == 50
    assert data["mean-number"] == "9.8548430782228688758385874662000247677341294837514"
    assert set(data["probabilities"]) == {"0,0", "3,1"}
    assert len(data["empty-probability"].replace("0.", "", 1).lstrip("0")) == 50


def test_cli_decimal_is_read_exactly(capsys):
    _cli(["compensation", "jsq", "--rho", "0.9", "--digits", "30", "--json"])
    a = json.loads(capsys.readouterr().out)
    _cli(["compensation", "jsq", "--rho", "9/10", "--digits", "30", "--json"])
    b = json.loads(capsys.readouterr().out)
    assert a["mean-number"] == b["mean-number"]


def test_cli_text_and_latex(capsys):
    _cli(["compensation", "sed", "--s", "2", "--q", "0", "--rho", "1/2", "--digits", "15"])
    out = capsys.readouterr().out
    assert "mean number in system" in out
    _cli(["compensation", "asymmetric", "--lam", "3/2", "--mu1", "1", "--mu2", "2",
          "--format", "latex", "--digits", "15"])
    assert "K_U" in capsys.readouterr().out


@pytest.mark.parametrize("argv,match", [
    (["compensation", "jsq", "--rho", "1"], "unstable"),
    (["compensation", "sed", "--s", "2.5", "--rho", "1/2"], "positive integer"),
    (["compensation", "sed", "--s", "2", "--q", "2", "--rho", "1/2"], "outside"),
    (["compensation", "jsq", "--rho", "x9"], "not an exact number"),
    (["compensation", "jsq", "--rho", "1/2", "--state", "1;2"], "Q1,Q2"),
])
def test_cli_bad_input_exit_status_2(argv, match, capsys):
    import symq.cli as cli
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert match in err and "Traceback" not in err


def test_pictures_are_written(tmp_path):
    pytest.importorskip("matplotlib")
    from symq.studies.compensation.grids import levels_needed
    from symq.presentation.pictures.compensation import write_pictures
    model = sed(2, "1/2", "1/2")
    needed = levels_needed(model, size=3, max_levels=3)
    # far from the origin one level suffices; the origin needs the most (distance rule,
    # docs/theory-compensation.md §4.10)
    assert needed[(3, 6)] <= needed[(0, 0)]
    paths = write_pictures(model, str(tmp_path), rhos=("1/2",), size=5)
    for path in paths.values():
        with open(path, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
