"""The structured transform of the tagged job (symq.engines.response_time.structured) against a
second route: at random rational rates its transform, server law, mean, variance and survival
terms equal the numeric exact law of symq.engines.response_time.laws (the subset DPs in sympy's
field, no shared code with the structured definitions but the model); on the nested model they
equal the survey's closed forms (symq.engines.aggregated, Thm 4.5); one perturbed weight makes
the comparison fail."""

import json
import random
import time
from fractions import Fraction

import pytest
import sympy

import symq
from symq.engines.response_time.laws import response_time_law, server_law, waiting_time_law
from symq.engines.response_time.structured import transform_formula
from symq.engines.formulas.build import Term
from symq.models.graphs import graph_from_key
from symq.models.stability import stability_report

DISCIPLINES = ("collaborative", "alis", "rais")
KINDS = ("response", "waiting")


def _rates(model, seed):
    rng = random.Random(seed)
    while True:
        values = {s.name: sympy.Rational(rng.randint(1, 9), rng.randint(1, 9))
                  for s in model.symbols}
        values = {k: (v / 8 if k.startswith("lambda") else v) for k, v in values.items()}
        numeric = model.substitute({k: str(v) for k, v in values.items()})
        if stability_report(numeric).stable:
            return values, numeric


def _law(numeric, c, discipline, kind):
    return (response_time_law if kind == "response" else waiting_time_law)(numeric, c, discipline)


def _check(f, values, numeric, discipline, kind, classes=None):
    moments = f.moments().at(values)
    for c in classes or numeric.classes:
        law = _law(numeric, c, discipline, kind)
        for theta in (Fraction(1, 3), Fraction(5, 2)):
            got = f.at(values, theta=theta)["lst"][c]
            want = law.lst_at(theta)
            assert got == sympy.Rational(want.numerator, want.denominator), (c, theta)
        num, den = f.lst_at_rates(values)[c]
        # the whole rational function of theta, exactly: num * D == den * N
        n = sympy.Poly(sympy.sympify(str(num).replace("^", "**")), sympy.Symbol("theta"))
        d = sympy.Poly(sympy.sympify(str(den).replace("^", "**")), sympy.Symbol("theta"))
        big_n = sympy.Poly([sympy.Rational(int(q.p), int(q.q)) for q in
                            reversed(law.numerator.coeffs())], sympy.Symbol("theta"))
        big_d = sympy.Poly([sympy.Rational(int(q.p), int(q.q)) for q in
                            reversed(law.denominator.coeffs())], sympy.Symbol("theta"))
        assert (n * big_d - d * big_n).is_zero, c
        assert moments["mean"][c] == sympy.Rational(law.mean()), c
        assert moments["variance"][c] == sympy.Rational(law.variance()), c


@pytest.mark.parametrize("name, discipline, kind", [
    (name, discipline, kind) for name in ("n", "w") for discipline in DISCIPLINES
    for kind in KINDS] + [("ring:3", "alis", "response"), ("ring:3", "collaborative", "waiting")])
def test_transform_and_moments_equal_the_numeric_law(name, discipline, kind):
    model = symq.model(name)
    values, numeric = _rates(model, seed=len(name) + len(discipline))
    f = transform_formula(model, kind, discipline)
    _check(f, values, numeric, discipline, kind)
    if discipline != "collaborative" and kind == "response":
        at = f.at(values, theta=0)["server"]
        for c in numeric.classes:
            law = server_law(numeric, c, discipline)
            if len(law) == 1:  # one server: the law is 1, not a definition
                assert list(law.values()) == [1] and not any(k.startswith(f"{c}->") for k in at)
                continue
            for s, p in law.items():
                assert at[f"{c}->{s}"] == p


def test_a_random_four_server_graph_in_under_five_seconds():
    rng = random.Random(30)
    sets = []
    while len(sets) < 4:
        k = rng.randint(1, 3)
        s = "{" + ",".join(map(str, sorted(rng.sample(range(1, 5), k)))) + "}"
        if s not in sets:
            sets.append(s)
    model = graph_from_key(",".join(sets)).to_model()
    values, numeric = _rates(model, seed=4)
    for discipline in ("collaborative", "alis"):
        start = time.process_time()
        f = transform_formula(model, "response", discipline)
        assert time.process_time() - start < 5
        _check(f, values, numeric, discipline, "response", classes=numeric.classes[:2])


@pytest.mark.parametrize("name, discipline, kind", [
    ("n", "alis", "response"), ("n", "collaborative", "waiting"), ("w", "alis", "response"),
    ("w", "rais", "waiting"), ("w", "collaborative", "response"),
    ("redundancy:3:2", "collaborative", "response")])
def test_survival_terms_equal_the_partial_fractions_of_the_numeric_law(name, discipline, kind):
    model = symq.model(name)
    values, numeric = _rates(model, seed=7)
    f = transform_formula(model, kind, discipline)
    for c in numeric.classes:
        law = _law(numeric, c, discipline, kind)
        atom, terms = f.survival_terms(c, {k: str(v) for k, v in values.items()})
        mine = {(t.pole, t.order): t.coefficient for t in terms}
        want = {}
        for q, j, p in law.terms:
            assert q.degree() == 1
            r = q.coeffs()[0]
            a = p.coeffs()[0]
            want[(sympy.Rational(int(r.p), int(r.q)), j)] = Fraction(int(a.p), int(a.q))
        assert mine == want
        assert atom == law.atom
    # the symbolic survival at the same rates: the same function of t
    c = numeric.classes[-1]
    expr = f.survival_expr(c)
    t = sympy.Rational(3, 2)
    at = expr.subs({s: values.get(s.name, t) for s in expr.free_symbols})
    want = _law(numeric, c, discipline, kind).survival_expr(Fraction(3, 2))
    assert abs(sympy.N(at - want, 40)) < sympy.Float("1e-30")


@pytest.mark.parametrize("name", ["n", "w"])
def test_nested_models_equal_the_closed_forms(name):
    from symq.engines.aggregated import response_time_quantity
    model = symq.model(name)
    closed = response_time_quantity(model, "collaborative")
    values, _ = _rates(model, seed=3)
    moments = transform_formula(model, "response", "collaborative").moments().at(values)
    f = transform_formula(model, "response", "collaborative")
    for c in model.classes:
        point = {s: values[s.name] for s in closed["mean"][c].free_symbols}
        assert moments["mean"][c] == closed["mean"][c].subs(point)
        point = {s: values[s.name] for s in closed["variance"][c].free_symbols}
        assert moments["variance"][c] == sympy.cancel(closed["variance"][c].subs(point))
        lst = closed["lst"][c]
        theta = [s for s in lst.free_symbols if s.name == "theta"][0]
        point = {s: values[s.name] for s in lst.free_symbols if s.name != "theta"}
        assert f.at(values, theta="1/2")["lst"][c] == lst.subs(point).subs(theta,
                                                                        sympy.Rational(1, 2))


def test_a_perturbed_weight_fails_the_comparison():
    model = symq.model("w")
    values, numeric = _rates(model, seed=1)
    f = transform_formula(model, "response", "alis")
    _check(f, values, numeric, "alis", "response")
    target = f.definition("D__1_2")
    saved = list(target.terms)
    try:
        target.terms = saved[:-1] + [Term(sympy.Rational(2) * sympy.sympify(saved[-1].coef),
                                          saved[-1].names)]
        with pytest.raises(AssertionError):
            _check(f, values, numeric, "alis", "response")
    finally:
        target.terms = saved


def test_derive_prints_the_structured_transform(capsys):
    from symq.cli import main
    assert main(["derive", "w", "response-time", "--discipline", "alis"]) == 0
    out = capsys.readouterr().out
    assert "LST__3 = " in out and "result server 3->2: p__3__2" in out
    assert main(["derive", "w", "waiting-time", "--discipline", "rais", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    names = [d["name"] for d in data["structured"]["definitions"]]
    assert data["structured"]["result"]["lst"]["3"] == "LST__3" and "G__RAIS" in names
    assert main(["derive", "w", "response-time", "--discipline", "alis", "--format",
                 "latex"]) == 0
    assert r"\hat F_{T_{3}}(\theta)" in capsys.readouterr().out


def test_symbolic_survival_through_derive():
    from symq.queries.quantities import derive
    model = symq.model("n")
    survival = derive(model, "waiting-time-survival", "alis")["per_class"]["2"]
    values, numeric = _rates(model, seed=5)
    t = sympy.Rational(1)
    at = survival.subs({s: values.get(s.name, t) for s in survival.free_symbols})
    want = waiting_time_law(numeric, "2", "alis").survival_expr(Fraction(1))
    assert abs(sympy.N(at - want, 40)) < sympy.Float("1e-30")


@pytest.mark.skipif(__import__("shutil").which("pdflatex") is None,
                    reason="pdflatex is not installed")
@pytest.mark.parametrize("discipline, pages", [("alis", 1), ("rais", 1)])
def test_w_alis_latex_fits_one_a4_page(tmp_path, capsys, discipline, pages):
    """The W transform as printed, in a plain A4 10pt article with exactly the preamble the
    output names: one page, no overfull box; must-fail: the old headed blocks took 3 pages."""
    import re
    import subprocess
    from symq.cli import main

    def compile_pages(body):
        line = next(l for l in body.splitlines() if l.startswith("% Preamble:"))
        preamble = re.findall(r"\\(?:usepackage\{[a-z]+\}|allowdisplaybreaks)", line)
        doc = "\n".join([r"\documentclass[a4paper,10pt]{article}", *preamble,
                         r"\begin{document}", body, r"\end{document}", ""])
        (tmp_path / "f.tex").write_text(doc)
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "f.tex"],
                       cwd=tmp_path, capture_output=True, timeout=120)
        log = (tmp_path / "f.log").read_text(errors="replace")
        assert "Overfull" not in log
        return int(re.search(r"Output written on f\.pdf \((\d+) page", log).group(1))

    assert main(["derive", "w", "response-time", "--discipline", discipline,
                 "--format", "latex"]) == 0
    assert compile_pages(capsys.readouterr().out) == pages
    from symq.engines.response_time.structured import _paper
    f = transform_formula(symq.model("w"), "response", discipline)
    old = _paper(f, None, [("The weights.", ("Wt", "D", "G")), ("The server.", ("R", "A", "Q", "p")),
                           ("The transform.", ("Delta", "J", "LST"))])
    assert compile_pages(old) > 1
