"""Tests that fail when the new code is wrong (issue 26): each example of an injected error that
stayed green, and the limits of the parser and the estimates, checked by value at the limit.

* response-time laws: moments against sympy's derivatives of the transform, the M/M/1 closed
  forms (mean, variance, survival, percentile) to the last printed digit, percentiles bracketed
  at half a unit of their last digit, stability refused (also exactly at the boundary);
* structured formulas: the LaTeX parsed back (a small reader of the LaTeX that symq writes) and
  evaluated at a rational point, row by row, against the definitions and the exact DP; the
  expanded LaTeX labels and rows; expanded results fully cancelled when every factor is
  proved coprime (low split threshold);
* interval kernels: weights above 2^64 (the packing guard), a model exactly at the boundary;
* the parser at each of its limits (digits, depth, powers) and sqrt of a negative number;
* the limits' check at the limit, the union lower bound, the subset-DP estimate;
* the survival picture by its plotted arrays; progress under a pseudo-terminal with --quiet.
"""

from __future__ import annotations

import os
import re
from argparse import Namespace
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction

import mpmath
import pytest
import sympy

import symq
from symq import model
from symq.errors import ModelError, TooLargeError
from symq.models.model import Model

MM1 = Model(compatibility={"1": ["1"]}, arrival_rates={"1": "1/3"}, service_rates={"1": "1"})
W = model("w").substitute({"lambda_1": "1/4", "lambda_2": "1/8", "lambda_3": "1/4",
                           "mu_1": "1", "mu_2": "2"})
N = model("n").substitute({"lambda_1": "1/3", "lambda_2": "1/2", "mu_1": "1", "mu_2": "3/2"})


def decimal_round(value: mpmath.mpf, digits: int) -> str:
    """``value`` (computed at 60 digits by mpmath) to ``digits`` significant digits, half to even."""
    with localcontext() as ctx:
        ctx.prec = 80
        d = Decimal(mpmath.nstr(value, 60, strip_zeros=False))
        exponent = d.adjusted() - digits + 1
        return str(d.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_EVEN))


# ------------------------------------------------------------------------ response-time laws
@pytest.mark.parametrize("m, discipline, job_class", [
    (W, "alis", "1"), (W, "rais", "3"), (W, "collaborative", "2"), (N, "alis", "2"),
    (N, "collaborative", "1"), (MM1, "rais", "1")])
@pytest.mark.parametrize("kind", ["response", "waiting"])
def test_moments_are_the_derivatives_of_the_transform(m, discipline, job_class, kind):
    from symq.engines.distributions import THETA
    from symq.engines.response_time import response_time_law, waiting_time_law
    law = (response_time_law if kind == "response" else waiting_time_law)(m, job_class, discipline)
    f = law.lst_expr()
    first = -sympy.diff(f, THETA).subs(THETA, 0)
    second = sympy.diff(f, THETA, 2).subs(THETA, 0)
    assert sympy.Rational(law.mean()) == first
    assert sympy.Rational(law.second_moment()) == second
    assert sympy.Rational(law.variance()) == second - first**2


def test_mm1_closed_forms_to_the_last_digit():
    """M/M/1, lambda = 1/3, mu = 1: T ~ Exp(2/3); P(W > t) = rho exp(-(mu - lambda) t)."""
    from symq.engines.response_time import response_time_law, waiting_time_law
    law = response_time_law(MM1, "1", "alis")
    assert law.mean() == Fraction(3, 2) and law.variance() == Fraction(9, 4) and law.atom == 0
    mpmath.mp.dps = 60
    try:
        for t in (Fraction(1, 3), Fraction(1), Fraction(7, 2)):
            tail = mpmath.exp(-mpmath.mpf(2) / 3 * mpmath.mpf(t.numerator) / t.denominator)
            assert law.survival_value(t, 20) == decimal_round(tail, 20)
            assert sympy.simplify(law.survival_expr(t) - sympy.exp(-sympy.Rational(2, 3) *
                                                                   sympy.Rational(t))) == 0
            wait = waiting_time_law(MM1, "1", "rais")
            assert wait.survival_value(t, 20) == decimal_round(tail / 3, 20)
        for percent, digits in ((95, 12), (50, 15), (99, 7)):
            exact = mpmath.log(mpmath.mpf(100) / (100 - percent)) * 3 / 2
            assert law.percentile(Fraction(percent), digits) == decimal_round(exact, digits)
    finally:
        mpmath.mp.dps = 15
    wait = waiting_time_law(MM1, "1", "alis")
    assert wait.atom == Fraction(2, 3)
    assert wait.survival_value(Fraction(0), 10) == "0.3333333333"  # P(W > 0) = rho
    assert law.survival_value(Fraction(0), 5) == "1.0000"
    # the percentile at the atom: P(W <= 0) = 2/3 reaches exactly 200/3 %
    assert wait.percentile(Fraction(200, 3), 5) == "0.0000"
    assert wait.percentile(Fraction(50), 5) == "0.0000"
    mpmath.mp.dps = 60  # P(W > t) = e^{-2t/3}/3 = 1/5
    try:
        assert wait.percentile(Fraction(80), 12) == decimal_round(
            mpmath.log(mpmath.mpf(1) / 3 / (mpmath.mpf(1) / 5)) * 3 / 2, 12)
    finally:
        mpmath.mp.dps = 15


def test_survival_expression_keeps_every_term():
    """The exact survival function (two poles) against its certified value."""
    from symq.engines.response_time import response_time_law
    for m, c, discipline in ((N, "1", "collaborative"), (W, "3", "alis")):
        law = response_time_law(m, c, discipline)
        assert len(law.terms) >= 2
        for t in (Fraction(1, 2), Fraction(3)):
            value = sympy.N(law.survival_expr(t), 30)
            assert round(Decimal(str(value)), 15) == round(Decimal(law.survival_value(t, 25)), 15)


def test_percentile_is_right_to_half_a_unit_of_its_last_digit():
    import flint
    from symq.engines.response_time import response_time_law
    law = response_time_law(W, "3", "alis")
    for percent, digits in ((95, 12), (60, 9)):
        text = law.percentile(Fraction(percent), digits)
        d = Decimal(text)
        assert len(d.as_tuple().digits) == digits, text
        half = Fraction(1, 2) * Fraction(10) ** (d.adjusted() - digits + 1)
        target = flint.arb(flint.fmpq(100 - percent, 100))
        saved = flint.ctx.prec
        flint.ctx.prec = 300
        try:
            assert law.survival_ball(Fraction(text) - half) - target > 0
            assert law.survival_ball(Fraction(text) + half) - target < 0
        finally:
            flint.ctx.prec = saved


def test_unstable_and_boundary_models_are_refused_by_the_laws():
    from symq.engines.response_time import response_time_law, waiting_time_law
    from symq.engines.response_time.laws import lst
    unstable = model("n").substitute({"lambda_1": "1", "lambda_2": "2", "mu_1": "1",
                                      "mu_2": "3/2"})
    boundary = Model(compatibility={"1": ["1"]}, arrival_rates={"1": "1"},
                     service_rates={"1": "1"})
    for m in (unstable, boundary):
        for call in (lambda: response_time_law(m, "1", "alis"),
                     lambda: waiting_time_law(m, "1", "collaborative"),
                     lambda: lst(m, "1", "rais")):
            with pytest.raises(ModelError, match="unstable"):
                call()


def test_response_time_server_limit_is_exact():
    from symq.engines.response_time.setfunctions import MAX_SERVERS, SetFunctions
    assert MAX_SERVERS == 12
    for m, ok in ((12, True), (13, False)):
        servers = [str(k) for k in range(1, m + 1)]
        big = Model(compatibility={"1": servers}, arrival_rates={"1": "1"},
                    service_rates={s: "1" for s in servers})
        if ok:
            assert SetFunctions(big).full == (1 << 12) - 1
        else:
            with pytest.raises(ModelError, match="at most 12 servers"):
                SetFunctions(big)


def test_interval_arithmetic_and_certification():
    from symq.arithmetic.interval import Interval, certify_interval
    a, b = Interval(Fraction(1), Fraction(2)), Interval(Fraction(2), Fraction(4))
    assert a / b == Interval(Fraction(1, 4), Fraction(1))
    assert (a * b, a + b) == (Interval(Fraction(2), Fraction(8)), Interval(Fraction(3), Fraction(6)))
    assert a.contains(1) and a.contains(2) and not a.contains(Fraction(5, 2))
    assert certify_interval(Fraction(1, 10), Fraction(2, 10), 3) is None
    assert certify_interval(Fraction(333, 1000), Fraction(3334, 10000), 3) == "0.333"
    assert certify_interval(Fraction(333, 1000), Fraction(3336, 10000), 3) is None
    assert certify_interval(Fraction(-1, 10), Fraction(1, 10), 2) is None
    assert certify_interval(Fraction(0), Fraction(0), 3) == certify_interval(Fraction(0),
                                                                            Fraction(0), 3)


# ------------------------------------------------------------------------ LaTeX read back
_RATE = re.compile(r"\\(lambda|mu)_\{([^{}]*)\}")


class LatexReader:
    """Reads the LaTeX that symq writes (sums, juxtaposed products, ``\\frac``, parentheses,
    ``^{n}`` powers, named quantities) into an exact value at rational rates."""

    def __init__(self, text: str, names: dict[str, Fraction], rates: dict[str, Fraction]):
        self.s = re.sub(r"\\(qquad|quad|,|;)", " ", text)
        self.names = sorted(names.items(), key=lambda kv: -len(kv[0]))
        self.rates = rates
        self.i = 0

    def skip(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \n&":
            self.i += 1

    def at(self, word: str) -> bool:
        self.skip()
        if self.s.startswith(word, self.i):
            self.i += len(word)
            return True
        return False

    def read(self) -> Fraction:
        value = self.expression()
        self.skip()
        assert self.i == len(self.s), f"unread LaTeX: {self.s[self.i:self.i + 40]!r}"
        return value

    def expression(self) -> Fraction:
        total = -self.product() if self.at("-") else self.product()
        while True:
            if self.at("+"):
                total += self.product()
            elif self.at("-"):
                total -= self.product()
            else:
                return total

    def product(self) -> Fraction:
        value = self.power()
        while True:
            self.skip()
            if self.i >= len(self.s) or self.s[self.i] in "+-)}" or \
                    self.s.startswith((r"\right", r"\Bigr"), self.i):
                return value
            value *= self.power()

    def power(self) -> Fraction:
        base = self.factor()
        if self.at("^{"):
            exponent = self.expression()
            assert self.at("}")
            return base ** int(exponent)
        return base

    def group(self) -> Fraction:
        assert self.at("{"), self.s[self.i:self.i + 30]
        value = self.expression()
        assert self.at("}"), self.s[self.i:self.i + 30]
        return value

    def factor(self) -> Fraction:
        self.skip()
        for opening, closing in ((r"\left(", r"\right)"), (r"\Bigl(", r"\Bigr)"), ("(", ")")):
            if self.at(opening):
                value = self.expression()
                assert self.at(closing), self.s[self.i:self.i + 30]
                return value
        if self.at(r"\frac"):
            top = self.group()
            return top / self.group()
        for name, value in self.names:
            if self.s.startswith(name, self.i):
                self.i += len(name)
                return value
        rate = _RATE.match(self.s, self.i)
        if rate:
            self.i = rate.end()
            return self.rates[f"{rate.group(1)}_{rate.group(2)}"]
        number = re.compile(r"\d+").match(self.s, self.i)
        assert number, f"cannot read {self.s[self.i:self.i + 40]!r}"
        self.i = number.end()
        return Fraction(int(number.group()))


def latex_rows(block: str) -> list[tuple[str, str]]:
    """``[(label, right-hand side)]`` of an ``align*`` block (continuation lines joined)."""
    body = block.strip().splitlines()
    body = [line for line in body if not line.startswith((r"\begin", r"\end", "%"))]
    rows: list[tuple[str, str]] = []
    for line in " ".join(body).split(r" \\"):
        line = line.strip()
        if not line:
            continue
        if line.startswith("&"):
            label, rhs = rows.pop()
            rows.append((label, rhs + " " + line[1:]))
        else:
            label, rhs = line.split(" &= ", 1)
            rows.append((label.strip(), rhs))
    return rows


POINT = {"lambda_1": Fraction(1, 5), "lambda_2": Fraction(1, 7), "lambda_3": Fraction(1, 4),
         "lambda_4": Fraction(1, 9), "mu_1": Fraction(3, 2), "mu_2": Fraction(5, 4),
         "mu_3": Fraction(2), "mu_4": Fraction(7, 5)}
FORMULAS = [("w", "mean-number", "alis"), ("w", "mean-number", "rais"),
            ("w", "empty-probability", "alis"), ("n", "mean-number", "collaborative"),
            ("w", "server-idle-probability", "rais"), ("ring:3", "mean-response-time", "alis"),
            ("w", "normalizing-constant", "rais"), ("n", "empty-probability", "collaborative"),
            ("ring:3", "mean-number", "collaborative")]


@pytest.mark.parametrize("name, quantity, discipline", FORMULAS)
def test_structured_latex_read_back_equals_the_definitions(name, quantity, discipline):
    from symq.engines.formulas import structured
    from symq.engines.formulas.arith import at_point
    try:
        m = model(name)
    except ModelError:
        pytest.skip(f"no built-in model {name}")
    f = structured(m, quantity, discipline)
    point = {s: sympy.Rational(POINT[s.name].numerator, POINT[s.name].denominator)
             for s in m.symbols}
    env = at_point(f.definitions, point)
    rows = latex_rows(f.latex())
    known: dict[str, Fraction] = {}
    by_latex = {d.latex_name: d for d in f.definitions}
    for label, rhs in rows:
        value = LatexReader(rhs, known, POINT).read()
        known[label] = value
        if label in by_latex:
            assert value == Fraction(str(env[by_latex[label].name])), (label, rhs)
    shown = {label for label, _ in rows}
    for d in f.definitions:
        assert d.kind == "inline" or d.latex_name in shown, f"{d.name} has no LaTeX row"
    # the parsable text of every definition, read back by symq's grammar, has the same value
    from symq.arithmetic.expressions import parse_expression
    known_text: dict[str, sympy.Expr] = {}
    rates = {k: sympy.Rational(v.numerator, v.denominator) for k, v in POINT.items()}
    for d in f.definitions:
        value = parse_expression(f.text(d), variables={**rates, **known_text},
                                 max_length=10 ** 6)
        known_text[d.name] = value
        assert value == sympy.Rational(str(env[d.name])), (d.name, f.text(d))
    # a definition named in skip is left out
    first = next(d for d in f.definitions if d.kind != "inline")
    assert first.latex_name not in {label for label, _ in latex_rows(f.latex(skip={first.name}))}
    # the result rows against the exact DP at the same rates
    values = {s.name: str(v) for s, v in point.items()}
    exact = symq.solve(m.substitute(values), quantity, discipline, exact=True)
    for label, result in f.result_names():
        row = known[f.names[result]]
        if not label:
            assert row == Fraction(str(exact.exact))
        else:
            word, _, key = label.partition(" ")
            parts = {"class": exact.per_class, "server": exact.per_server}.get(word)
            want = getattr(exact, word) if parts is None else parts[key]
            assert row == Fraction(str(getattr(want, "exact", want))), label


@pytest.mark.parametrize("name, quantity, discipline", [
    ("n", "mean-number", "collaborative"), ("w", "mean-response-time", "alis"),
    ("n", "server-idle-probability", "rais")])
def test_expanded_latex_labels_and_rows(name, quantity, discipline):
    from symq.presentation.formula_output import derive_result
    from symq.engines.formulas import structured
    result = symq.solve(name, quantity, discipline)
    out = derive_result(result, "expanded", "latex")
    f = structured(name, quantity, discipline)
    m = model(name)
    rows = latex_rows(out["latex"])
    labelled = f.result_names()
    assert [label for label, _ in rows] == [f.names[n] for _, n in labelled]
    values = f.at({k: str(v) for k, v in POINT.items() if k in {s.name for s in m.symbols}})
    flat = []

    def walk(v):
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        else:
            flat.append(v)
    walk(values) if isinstance(values, dict) else flat.append(values)
    assert len(flat) == len(rows)
    for (label, rhs), want in zip(rows, flat):
        assert LatexReader(rhs, {}, POINT).read() == Fraction(str(want)), label


def test_expanded_results_are_cancelled_with_a_low_split_threshold(monkeypatch):
    """Every composite factor kept whole must be proved coprime to the numerator, or else
    cancelled by a gcd: no expanded result keeps a common factor."""
    import flint
    from symq.engines.formulas import arith, structured
    real = arith.FactoredFunctions.__init__

    def low(self, *args, **kwargs):
        real(self, *args, **kwargs)
        if not self.line:
            self.split_terms = 2
    monkeypatch.setattr(arith.FactoredFunctions, "__init__", low)
    checked = 0
    for name, quantity, discipline in [("w", "mean-number", "alis"),
                                       ("w", "mean-number", "collaborative"),
                                       ("ring:3", "empty-probability", "alis"),
                                       ("n", "mean-number", "rais"),
                                       ("w", "server-idle-probability", "rais")]:
        f = structured(model(name), quantity, discipline)
        f = type(f)(f.model, f.quantity, f.discipline, f.definitions, f.shape,
                    **({"labels": f.labels} if hasattr(f, "labels") else {}))
        values = f.expanded_values()
        leaves = []

        def walk(v):
            if isinstance(v, dict):
                for x in v.values():
                    walk(x)
            else:
                leaves.append(v)
        walk(values) if isinstance(values, dict) else leaves.append(values)
        for v in leaves:
            g = v.num.gcd(v.den)
            assert g.total_degree() <= 0, (name, quantity, discipline)
            checked += 1
    assert checked >= 12
    del flint


# ------------------------------------------------------------------------ interval kernels
def test_weights_above_2_to_the_64_take_the_wider_packing():
    """Two servers near saturation: H of the single servers is about 2^80 times H(empty), so
    the sums of the next level pass the first packing width; the kernels must widen it (else
    the low half carries into the high half) and still certify every digit."""
    from symq.queries.exact import certified_values, values
    from symq.engines.normalization.interval_collaborative import exact_cover_bounds
    from symq.engines.normalization.subsets import SubsetGraph
    from symq.arithmetic.numeric import round_fraction
    eps = Fraction(1, 2 ** 80)  # H({1}) = H({2}) = 2^80 - 1: past 2^64 below the top level
    m = Model(compatibility={"1": ["1"], "2": ["2"], "3": ["1", "2"]},
              arrival_rates={"1": 1 - eps, "2": 1 - eps, "3": eps / 2},
              service_rates={"1": 1, "2": 1})
    exact, _ = values(m, "collaborative", True)
    graph = SubsetGraph(m)
    order, low, high = exact_cover_bounds(graph, 64)
    g = Fraction(str(exact["G"]))
    assert max(high) > 2 ** 64 * 2 ** 64  # weights past 2^64 (in units of 2^-64)
    total_low, total_high = Fraction(sum(low), 2 ** 64), Fraction(sum(high), 2 ** 64)
    assert total_low <= g <= total_high
    assert total_high - total_low <= g / 2 ** 100  # tight: no carry between the packed halves
    balls, _ = certified_values(m, "collaborative", True, 25)
    for key in ("G", "empty"):
        assert balls[key].text == round_fraction(Fraction(str(exact[key])), 25)
    for c in m.classes:
        assert balls["L"][c].text == round_fraction(Fraction(str(exact["L"][c])), 25)


def test_model_exactly_at_the_boundary_is_refused_not_divided_by_zero():
    from symq.engines.normalization.interval_collaborative import collaborative_bounds
    from symq.engines.normalization.subsets import SubsetGraph
    at_boundary = Model(compatibility={"1": ["1"], "2": ["1", "2"]},
                        arrival_rates={"1": "1/2", "2": "3/2"}, service_rates={"1": 1, "2": 1})
    with pytest.raises(ModelError):
        collaborative_bounds(SubsetGraph(at_boundary), 64)


# ------------------------------------------------------------------------ the parser's limits
def test_parser_limits_are_exact():
    from symq.arithmetic import expressions as ex
    from symq.arithmetic.expressions import parse_expression
    assert (ex.MAX_DEPTH, ex.MAX_DIGITS, ex.MAX_POWER) == (100, 4000, 1000)  # documented
    assert parse_expression("(" * 100 + "1" + ")" * 100) == 1  # exactly at the limit
    with pytest.raises(ModelError, match="nested more than 100"):
        parse_expression("(" * 101 + "1" + ")" * 101)
    assert parse_expression("-" * 100 + "1") == 1
    with pytest.raises(ModelError, match="nested more than 100"):
        parse_expression("-" * 101 + "1")
    assert parse_expression("9" * 4000, max_length=5000) == 10 ** 4000 - 1
    with pytest.raises(ModelError, match="more than 4000 digits"):
        parse_expression("9" * 4001, max_length=5000)
    x = sympy.Symbol("x", positive=True)
    assert parse_expression("x**1000") == x ** 1000
    assert parse_expression("x**(-1000)") == x ** -1000
    with pytest.raises(ModelError, match="larger than 1000"):
        parse_expression("x**1001")
    assert parse_expression("0e4000") == 0
    with pytest.raises(ModelError, match="beyond 4000"):
        parse_expression("0e4001")
    assert parse_expression("1e3999") == 10 ** 3999
    with pytest.raises(ModelError, match="more than 4000 digits"):
        parse_expression("1e4000")
    for text in ("12345**(-1000)", "12345**1000"):  # refused before the power is computed
        with pytest.raises(ModelError, match="the power at position 5 would make a number"):
            parse_expression(text)
    assert parse_expression("2**(-1000)") == sympy.Rational(1, 2 ** 1000)
    for k in (1, 9, 10, 99, 100, 4000):
        assert ex._digits(10 ** k) == k + 1 and ex._digits(10 ** k - 1) == k


def test_parser_refuses_sqrt_of_a_negative_number_and_division_by_zero():
    from symq.arithmetic.expressions import FORMULA_FUNCTIONS, parse_expression
    assert parse_expression("sqrt(4)") == 2
    for text in ("sqrt(-1)", "sqrt(-1/4)", "sqrt(1 - 2)"):
        with pytest.raises(ModelError, match="negative"):
            parse_expression(text)
    for text in ("0**(-1)", "0**(-2)"):
        with pytest.raises(ModelError, match=r"division by zero \(0 to a negative power\)"):
            parse_expression(text)
    with pytest.raises(ModelError, match="q = 0"):
        parse_expression("Rational(1, 0)")
    with pytest.raises(ModelError, match="not a rate name"):
        parse_expression("mu__1")
    with pytest.raises(ModelError, match="more than 100 digits"):
        parse_expression("sqrt(" + "7" * 101 + ")", functions=FORMULA_FUNCTIONS)
    with pytest.raises(ModelError, match="more than 100 digits"):  # any number, not all
        parse_expression("sqrt(" + "7" * 101 + "*x + 1)")
    assert parse_expression("sqrt(" + "7" * 100 + "*x + 1)").has(sympy.sqrt(
        sympy.Integer("7" * 100) * sympy.Symbol("x", positive=True) + 1).args[0])


# ------------------------------------------------------------------------ limits and estimates
def test_limits_check_at_the_limit_and_options():
    from symq.limits import LIMITS, check, limit_value, number_text
    assert LIMITS["states"].default == 50_000 and LIMITS["dp-steps"].default == 300_000
    check("states", 50_000, "verify w")
    with pytest.raises(TooLargeError, match="50,001"):
        check("states", 50_001, "verify w")
    assert limit_value("states", Namespace(no_limits=True, max_work=None)) is None
    assert limit_value("states", Namespace(no_limits=False, max_work=7)) == 7
    assert limit_value("states", Namespace(no_limits=False, max_work=None)) == 50_000
    assert (number_text(9_999_999), number_text(10 ** 7)) == ("9,999,999", "1.0e+07")


def _brute_unions(masks):
    reach = {0}
    for m in masks:
        reach |= {x | m for x in reach}
    return len(reach)


def test_union_count_and_its_lower_bound():
    from symq.queries.estimates import count_unions
    chain = [(1 << k) - 1 for k in range(1, 31)]  # nested sets: 31 unions
    assert count_unions(chain, cap=100) == 31
    singles = [1 << k for k in range(3)]
    assert count_unions(singles, cap=8) == 8 and count_unions(singles, cap=7) is None
    import random
    rng = random.Random(5)
    for _ in range(30):
        masks = [rng.randrange(1, 1 << 8) for _ in range(rng.randrange(1, 9))]
        true = _brute_unions(masks)
        assert count_unions(masks) == true
        assert count_unions(masks, cap=true) == true
        assert count_unions(masks, cap=true - 1) is None


def test_subset_dp_steps_by_hand():
    from symq.queries.estimates import subset_dp_steps
    assert subset_dp_steps(model("w"), "collaborative") == 25  # nested: (3 + 2)^2
    ring = model("ring:5")
    masks = [sum(1 << ring.servers.index(s) for s in ring.compatibility[c]) for c in ring.classes]
    width = len(ring.classes) + len(ring.servers)
    # ring:5 is solved by its own route (structured): width^2
    assert subset_dp_steps(ring, "collaborative") == width * width
    m = symq.solve  # noqa: F841 - keep symq imported for the random model below
    star = Model(compatibility={"1": ["1", "2"], "2": ["2", "3"], "3": ["1", "3"], "4": ["1"]},
                 arrival_rates={c: "1/10" for c in "1234"}, service_rates={s: 1 for s in "123"})
    masks = [0b011, 0b110, 0b101, 0b001]
    assert subset_dp_steps(star, "alis") == (_brute_unions(masks) + 8) * 7
    assert subset_dp_steps(star, "collaborative") == _brute_unions(masks) * 7


# ------------------------------------------------------------------------ pictures, progress
def test_survival_picture_plots_the_survival_function():
    from symq.engines.response_time import response_time_law
    from symq.presentation.pictures.response_time import draw
    picture = draw(N, "alis", max_time="4", points=9)
    lines = picture.figure.axes[0].get_lines()
    assert [ln.get_label() for ln in lines] == ["class 1", "class 2"]
    for line, c in zip(lines, N.classes):
        law = response_time_law(N, c, "alis")
        xs, ys = line.get_xdata(), line.get_ydata()
        assert list(xs) == [k / 2 for k in range(9)]
        for x, y in zip(xs, ys):
            want = 1.0 if x == 0 else float(law.survival_value(Fraction(str(x)), 17))
            assert y == pytest.approx(want, rel=1e-12)
        assert ys[0] == 1.0 and all(a > b for a, b in zip(ys, ys[1:]))


def test_progress_is_silent_with_quiet_on_a_pseudo_terminal(monkeypatch):
    import symq.progress as progress
    master, slave = os.openpty()
    stream = os.fdopen(slave, "w")
    try:
        assert progress.enabled_on(stream) and not progress.enabled_on(stream, quiet=True)
        bar = progress.ProgressBar(4, "work", stream=stream, delay=0)   # a terminal: drawn
        bar.set(2)
        bar.close()
        stream.flush()
        import select
        drawn = b""
        while b"work" not in drawn and select.select([master], [], [], 5)[0]:
            drawn += os.read(master, 4096)
        assert b"work" in drawn
        made = []
        real = progress.ProgressBar
        monkeypatch.setattr(progress, "ProgressBar",
                            lambda *a, **kw: made.append(a[1]) or real(*a, **{**kw, "delay": 0}))
        for quiet_call in (progress.callback("hush", quiet=True, stream=stream),
                           progress.callback("hush", quiet=True, stream=stream, enabled=True)):
            for k in range(1, 5):
                quiet_call(k, 4)
        assert made == []
        loud = progress.callback("loud", stream=stream)
        loud(1, 4)
        loud(4, 4)
        assert made == ["loud"]
    finally:
        stream.close()
        os.close(master)
