"""``symq derive --format latex`` pasted into a paper (issue 27): every block of the formulas
of tests/test_formulas.py's models, as printed, compiles in a plain A4 article whose preamble is
exactly what the output's first comment names, with no overfull box (no line too wide, no
display too tall for a page) and no error; the legend names each kind of definition; symmetric
models name each orbit once, two components give the product of their constants, and the
nested route defines nothing unused; the JSON ``expr`` strings read back by sympy with the
recipe of docs/json-schema.md; the expanded-size estimate accepts the 4-server star and still
refuses ring:4 ALIS mean numbers."""

from __future__ import annotations

import random
import re
import shutil
import subprocess

import pytest
import sympy

import symq
from symq.cli import main
from symq.engines.formulas import monomials, structured
from symq.engines.formulas.paper import PREAMBLE, paper_latex
from symq.models.graphs import graph_from_key
from symq.presentation.formula_output import derive_result

DISCIPLINES = ("collaborative", "alis", "rais")
TWO = "{1,2},{2,3},{1,3},{4},{5},{4,5}"  # ring:3 beside a W: two components
SIX = "{1},{2},{1,2},{3},{4},{3,4},{1,2,3,4,5}"  # the 5-server graph of test_every_line_is_short


def _models():
    return ["n", "w", "nested", "ring:3", "ring:4", "redundancy:4:2",
            graph_from_key(TWO).to_model(), graph_from_key(SIX).to_model()]


def _preamble(text: str) -> list[str]:
    """The preamble lines the output's comment names."""
    line = next(l for l in text.splitlines() if l.startswith("% Preamble:"))
    return re.findall(r"\\(?:usepackage\{[a-z]+\}|allowdisplaybreaks)", line)


def _compile(tmp_path, preamble: list[str], body: str) -> str:
    doc = "\n".join([r"\documentclass[a4paper]{article}", *preamble, r"\begin{document}",
                     body, r"\end{document}", ""])
    (tmp_path / "f.tex").write_text(doc)
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "f.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    log = (tmp_path / "f.log").read_text(errors="replace")
    assert run.returncode == 0, log[-3000:]
    return log


def _overfull(log: str) -> list[str]:
    return [line for line in log.splitlines() if "Overfull" in line]


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_every_block_compiles_in_a_plain_a4_article(tmp_path):
    bodies, preambles = [], set()
    for model in _models():
        for discipline in DISCIPLINES:
            for quantity in ("mean-number", "server-idle-probability", "empty-probability",
                             "normalizing-constant"):
                if quantity != "mean-number" and model not in ("w", "redundancy:4:2"):
                    continue
                text = derive_result(symq.solve(model, quantity, discipline), "structured",
                                     "latex")["latex"]
                preambles.add(tuple(_preamble(text)))
                bodies.append(text)
    assert preambles == {PREAMBLE}
    log = _compile(tmp_path, list(PREAMBLE), "\n\n".join(bodies))
    assert _overfull(log) == []
    pages = int(re.search(r"Output written on f\.pdf \((\d+) page", log).group(1))
    assert pages > 10  # the long blocks broke across pages instead of running off one


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_the_compile_check_catches_a_cut_page_and_a_wide_line(tmp_path):
    """Must-fail: without \\allowdisplaybreaks a long block is one overfull page; a line of the
    old width (17 cm) is too wide for a plain article."""
    text = paper_latex(structured("ring:4", "mean-number", "rais"))
    log = _compile(tmp_path, [r"\usepackage{amsmath}"], text)
    assert any("vbox" in line for line in _overfull(log))
    wide = structured(graph_from_key(SIX).to_model(), "mean-number", "rais").latex()
    log = _compile(tmp_path, list(PREAMBLE), wide)
    assert any("hbox" in line for line in _overfull(log))


def test_the_legend_names_each_kind_and_the_constant():
    text = paper_latex(structured("w", "mean-number", "rais"))
    for kind in (r"$D^c_B", r"$H_X$", r"$W_I$", r"$V_X$", r"$Z_Q$", r"$\Omega_I",
                 r"$\hat H_Y", r"$r_X", r"$\Lambda_I$"):
        assert kind in text, kind
    assert "canonical" in text and "Thm 3.10" in text and "Thm 3.9" in text
    assert r"\noindent\emph{The weights.}" in text and r"\emph{The quantity.}" in text
    alis = paper_latex(structured("w", "empty-probability", "alis"))
    assert r"it is not $1/P(\emptyset)$" in alis
    nested = paper_latex(structured("w", "empty-probability"))
    assert r"$G=1/P(\emptyset)$" in nested and r"\pi(\emptyset)" not in nested.split("where")[0]


def _values(model, rng):
    out = {}
    for s in sorted(model.symbols, key=lambda s: s.name):
        low = s.name.startswith("lambda")
        out[s.name] = sympy.Rational(rng.randint(1, 9), 40) if low else \
            sympy.Rational(rng.randint(10, 30), 10)
    return out


def test_symmetric_models_name_each_orbit_once_and_stay_exact():
    from symq.engines import normalization as nz
    f = structured("redundancy:4:2", "mean-number", "alis")
    h = [d.name for d in f.definitions if d.name.startswith("H__")]
    assert h == ["H__1_2", "H__1_2_3", "H__1_2_3_4"]  # one per size of union, not six H_{ij}
    assert len(set(f.shape["per_class"].values())) == 1
    tex = f.latex()
    assert not re.search(r"\\frac\{[^{}]*\\frac", tex)  # no fraction inside a numerator
    assert r"H_{12} &= \frac{\lambda}{12 \mu - \lambda}" in tex
    rng = random.Random(27)
    for name in ("redundancy:4:2", "redundancy:3:2", "uninformed:3"):
        model = symq.model(name)
        for discipline in DISCIPLINES:
            for quantity in ("empty-probability", "server-idle-probability", "mean-number"):
                values = _values(model, rng)
                got = structured(model, quantity, discipline).at(values)
                m = model.substitute({k: str(v) for k, v in values.items()})
                want = {"empty-probability": nz.empty_probability,
                        "server-idle-probability": nz.server_idle_probability,
                        "mean-number": nz.mean_number}[quantity](m, discipline)
                assert got == want, (name, discipline, quantity)


def test_two_components_are_the_product_of_their_constants():
    from symq.engines import normalization as nz
    model = graph_from_key(TWO).to_model()
    for discipline, g in (("collaborative", "G__C"), ("alis", "G__ALIS"), ("rais", "G__RAIS")):
        f = structured(model, "normalizing-constant", discipline)
        last = f.definitions[-1]
        (term,) = last.terms
        assert last.name == g and len(term.names) == 2 and \
            all(n.startswith(g + "__") for n in term.names)
    f = structured(model, "normalizing-constant", "collaborative")
    # ring:3 has 4 unions (4 H), the nested W its 3 loads: not 19 H over cross-component unions
    assert sum(d.name.startswith("H__") for d in f.definitions) == 4
    rng = random.Random(4)
    for discipline in DISCIPLINES:
        for quantity in ("empty-probability", "normalizing-constant", "mean-number",
                         "server-idle-probability"):
            values = _values(model, rng)
            m = model.substitute({k: str(v) for k, v in values.items()})
            want = {"empty-probability": nz.empty_probability,
                    "normalizing-constant": nz.normalizing_constant,
                    "server-idle-probability": nz.server_idle_probability,
                    "mean-number": nz.mean_number}[quantity](m, discipline)
            assert structured(model, quantity, discipline).at(values) == want


def test_nested_route_defines_only_what_it_uses():
    f = structured("nested", "mean-number")
    names = [d.name for d in f.definitions]
    assert not any(n.startswith("E__") for n in names)
    assert "rho__1" not in names and "rho__1_2" in names
    tex = f.latex()
    assert tex.count(r"\mu_{1} + \mu_{2} + \mu_{3} -") == 2  # r_{123} once, rho_{123} once
    assert r"\frac{\rho_{123}}{r_{123}}" in tex


def test_greek_rate_names_cannot_be_read_as_structured_names():
    from symq.models.model import Model
    from symq.models.rates import positive_symbol
    model = Model(compatibility={"1": ["1"], "2": ["1", "2"]},
                  arrival_rates={"1": positive_symbol("rho_12"), "2": positive_symbol("psi_1")},
                  service_rates={"1": positive_symbol("Omega_2"), "2": positive_symbol("mu_2")})
    tex = structured(model, "mean-number", "collaborative").latex()
    assert r"\boldsymbol{\rho}_{12}" in tex and r"\rho_{12}" in tex
    tex = structured(model, "server-idle-probability", "alis").latex()
    assert r"\boldsymbol{\psi}_{1}" in tex and r"\boldsymbol{\Omega}" in tex


def test_text_names_classes_as_latex_does():
    from symq.models.model import Model
    model = Model(compatibility={"1,2": ["a"], "3": ["a", "b"]},
                  arrival_rates={"1,2": "lambda_1", "3": "lambda_3"},
                  service_rates={"a": "mu_a", "b": "mu_b"})
    f = structured(model, "mean-number")
    assert f.shape["per_class"]["1,2"] == "L__1_2"
    assert f.names["L__1_2"] == r"L_{1{,}2}"


def test_json_expressions_read_back_with_the_documented_sympy_recipe():
    """docs/json-schema.md: replace the whole word ``lambda`` (a Python keyword) by ``lamda``
    and pass ``locals={"lamda": Symbol("lambda")}``; the values then match."""
    def read(expr, env):
        text = re.sub(r"\blambda\b", "lamda", expr)
        return sympy.sympify(text, locals={"lamda": sympy.Symbol("lambda"), **env})

    for name, discipline in (("redundancy:3:2", "alis"), ("uninformed:2", "rais")):
        f = structured(name, "mean-number", discipline)
        env: dict = {}
        for d in f.as_json()["definitions"]:
            env[d["name"]] = read(d["expr"], env)
        point = {"lambda": sympy.Rational(1, 3), "mu": 2, "mu_1": 2, "mu_2": 3}
        got = env[f.shape["total"]].subs({sympy.Symbol(k): v for k, v in point.items()})
        want = f.at(point)["total"]
        assert got == want
        with pytest.raises(sympy.SympifyError):  # the plain call fails: the recipe is needed
            sympy.sympify(f.as_json()["definitions"][0]["expr"])


def test_expanded_size_is_tight_enough(capsys):
    assert monomials([1, 1], 2, False) == 4 and monomials([2, 2, 2], 2, True) == 6
    star = graph_from_key("{1,2,3,4},{1},{2},{3},{4}").to_model()
    f = structured(star, "empty-probability", "alis")
    assert f.expanded_size() < 2_000_000  # was 6,216,210 (total degree only): refused
    assert structured("ring:4", "mean-number", "alis").expanded_size() > 6_000_000
    assert main(["derive", "ring:4", "mean-number", "--form", "expanded", "--discipline",
                 "alis"]) == 2
    assert "terms (limit 6,000,000)" in capsys.readouterr().err


# ------------------------------------------------------------------ long one-piece formulas
#: (command line) of `symq derive ... --format latex` outputs that were once far too wide: the
#: README's example (the structured transform), and the expanded and factored forms, one rational
#: function each (the W model's response-time law was 2,503 pt too wide on A4)
WIDE = [["derive", "w", "response-time", "--format", "latex"],
        ["derive", "w", "response-time", "--form", "expanded", "--format", "latex"],
        ["derive", "w", "response-time", "--form", "factored", "--format", "latex"],
        ["derive", "w", "mean-number", "--form", "expanded", "--format", "latex"],
        ["derive", "nested", "waiting-time", "--form", "factored", "--format", "latex"],
        ["derive", "ring:3", "mean-number", "--form", "expanded", "--format", "latex"]]


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_long_formulas_break_into_lines_that_fit_a4(tmp_path, capsys):
    bodies = []
    for argv in WIDE:
        assert main(argv) == 0
        text = capsys.readouterr().out
        assert _preamble(text) == list(PREAMBLE), argv  # the comment names what it needs
        bodies.append(text)
    log = _compile(tmp_path, list(PREAMBLE), "\n\n".join(bodies))
    assert not [line for line in log.splitlines() if "Overfull \\hbox" in line], _overfull(log)
    # the same forms printed on one line each (the old printer) run off the page
    f = structured("w", "mean-number")
    old = "\n".join(r"\[" + t + r"\]" for t in
                    f.expanded_text("expanded", latex=True)["per_class"].values())
    log = _compile(tmp_path, list(PREAMBLE), old)
    assert any("Overfull \\hbox" in line for line in log.splitlines())


def test_broken_lines_read_back_to_the_same_rational_function():
    # each line piece of a broken formula, joined and read back, has the value of the formula
    from fractions import Fraction

    from symq.engines.formulas.render import broken_latex
    from test_mutation_targets import LatexReader, latex_rows as read_rows

    point = {"lambda_1": Fraction(1, 5), "lambda_2": Fraction(1, 7), "lambda_3": Fraction(1, 4),
             "mu_1": Fraction(3, 2), "mu_2": Fraction(5, 4)}
    f = structured("w", "mean-number")
    values = f.at({k: str(v) for k, v in point.items()})["per_class"]
    texts = f.expanded_text("expanded", latex=True)["per_class"]
    broken = 0
    for key, tex in texts.items():
        lines = broken_latex(tex, 40)
        broken += len(lines) > 1
        block = "\\begin{align*}\nx &= " + " \\\\\n&".join(lines) + "\n\\end{align*}"
        ((label, rhs),) = read_rows(block)
        assert LatexReader(rhs, {}, point).read() == Fraction(str(values[key])), key
    assert broken == 2  # classes 1 and 2 are long fractions, and were broken (class 3 fits)
