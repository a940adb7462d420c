"""Every result object of the Python API shows in a notebook as an HTML table and/or LaTeX
(``_repr_html_``, ``_repr_latex_``), while its ``repr``/``str`` (what a terminal shows) stay.

For each type: the HTML parses with balanced tags, the LaTeX has balanced braces and
environments (and a document of all of them compiles with pdflatex when it is installed), and the
rows shown are exactly the object's values, spelled out here from its attributes (so a display
that drops a row or shows a wrong value fails; ``test_the_row_check_catches_*`` shows it does).
Names from a model file are escaped: a class called ``<script>`` is text, not markup.
"""

from __future__ import annotations

import html.parser
import json
import re
import shutil
import subprocess
from fractions import Fraction

import mpmath
import pytest
import sympy

import symq
from symq.display import Math, QuantityResult, html_table, latex_table

HOSTILE = """
name = "hostile"
[classes."<script>alert(1)</script>"]
arrival_rate = "1"
servers = ["a&b", "x_%$#{}~^"]
[classes."2"]
arrival_rate = "lambda"
servers = ["a&b"]
[servers."a&b"]
service_rate = "mu"
[servers."x_%$#{}~^"]
service_rate = "2"
"""
SCRIPT = "<script>alert(1)</script>"


# ------------------------------------------------------------------------------ parsing helpers
class _Table(html.parser.HTMLParser):
    """Rows of cell texts of an HTML fragment; fails on unbalanced or unexpected tags."""

    ALLOWED = {"table", "caption", "tr", "td", "th"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.rows: list[list[str]] = []
        self.caption = ""
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        assert tag in self.ALLOWED, f"unexpected tag <{tag}>"
        self.stack.append(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"unbalanced </{tag}> in {self.stack}"
        self.stack.pop()
        if tag in ("td", "th"):
            self.rows[-1].append("".join(self.cell or []))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)
        elif self.stack and self.stack[-1] == "caption":
            self.caption += data
        else:
            assert not data.strip(), f"text outside a cell: {data!r}"


def html_rows(text: str) -> list[tuple[str, ...]]:
    """The rows of a displayed table: math cells without their ``\\(...\\)``, trailing empty
    cells (padding) dropped."""
    parser = _Table()
    parser.feed(text)
    parser.close()
    assert not parser.stack, f"unclosed tags {parser.stack}"
    rows = []
    for row in parser.rows:
        cells = [c[2:-2] if c.startswith("\\(") and c.endswith("\\)") else c for c in row]
        while cells and cells[-1] == "":
            cells.pop()
        rows.append(tuple(cells))
    return rows


def check_latex(text: str) -> None:
    """Balanced braces and environments, inline math delimiters."""
    assert text.startswith("$") and text.endswith("$"), text[:40]
    body = text[1:-1]
    assert "$" not in body.replace("\\$", ""), "a stray $"
    depth = 0
    for i, c in enumerate(body):
        if c in "{}" and (i == 0 or body[i - 1] != "\\" or body[i - 2:i] == "\\\\"):
            depth += 1 if c == "{" else -1
            assert depth >= 0, f"unbalanced }} at {i}: {body[max(0, i - 30):i + 5]}"
    assert depth == 0, "unbalanced {"
    begins = re.findall(r"\\begin\{(\w+\*?)\}", body)
    ends = re.findall(r"\\end\{(\w+\*?)\}", body)
    assert sorted(begins) == sorted(ends), (begins, ends)


def check_display(obj, latex: bool = True, html: bool = True) -> list[tuple[str, ...]]:
    """Both displays valid, repr unchanged by them; the HTML rows."""
    before = repr(obj)
    rows = None
    if html:
        rows = html_rows(obj._repr_html_())
    if latex:
        check_latex(obj._repr_latex_())
    assert repr(obj) == before
    return rows


def m(value) -> str:
    return sympy.latex(value)


# ------------------------------------------------------------------------------ the objects
@pytest.fixture(scope="module")
def hostile():
    return symq.loads(HOSTILE)


@pytest.fixture(scope="module")
def failing_report():
    return symq.verify(symq.model("w"), "rais", max_jobs=2, routing="uniform")


def test_helper_escapes_text_and_math():
    text = html_table([(("<th>", "b"), [(SCRIPT, Math("a < b"))])], title="<i>")
    assert "<script>" not in text and "&lt;script&gt;" in text and "a &lt; b" in text
    assert html_rows(text) == [("<th>", "b"), (SCRIPT, "a < b")]
    # MathJax would typeset $...$ or \\(...\\) in a text cell (and run its macros): text cells
    # are marked for MathJax to skip, math cells are not
    tricky = html_table([(None, [(r"\(\href{javascript:alert(1)}{x}\)", "$y$", Math("z"))])])
    assert tricky.count('<td class="tex2jax_ignore">') == 2 and "<td>\\(z\\)</td>" in tricky
    latex = latex_table([(None, [("a&b_%$#{}~^\\", Math("x"))])], title="50%")
    check_latex(latex)
    assert r"\text{a}\&\text{b}\_\%\$\#\{\}\sim \hat{}\backslash " in latex
    assert r"\textbf{50}\%" in latex


def test_quantity_result_rows(hostile):
    result = symq.mean_number(symq.model("n"))
    assert isinstance(result, QuantityResult)
    rows = check_display(result)
    expected = [("total", m(result["total"]))]
    expected += [(f"class {i}", m(v)) for i, v in result["per_class"].items()]
    assert rows == expected
    latex = result._repr_latex_()
    assert latex.count(r"\\") == len(expected) - 1
    for _, value in expected:
        assert value in latex
    # names from a model file are escaped in both displays
    shown = QuantityResult({"per_class": {i: sympy.Integer(1) for i in hostile.classes}})
    text = shown._repr_html_()
    assert SCRIPT not in text and html_rows(text)[0] == (f"class {SCRIPT}", "1")
    check_latex(shown._repr_latex_())


def test_verify_report_rows(failing_report):
    report = failing_report
    rows = check_display(report)
    assert rows[0] == ("model", "w") and ("verdict", "FAILED") in rows
    assert ("nonzero residuals", str(report.nonzero_residuals)) in rows
    assert ("states checked", str(report.states_checked)) in rows
    header = rows.index(("state", "equation", "residual"))
    shown = rows[header + 1:]
    expected = [(f.state, f.equation, m(f.residual)) for f in report.failures[:20]]
    assert shown == expected and len(report.failures) == len(expected) == 14
    assert str(report).startswith("w (rais), states with at most 2 jobs")
    ok = symq.verify(symq.model("n"), "alis", max_jobs=2)
    rows = check_display(ok)
    assert ("verdict", "OK") in rows and ("state", "equation", "residual") not in rows


def test_verify_report_hostile_names(hostile):
    report = symq.verify(hostile, max_jobs=1)
    text = report._repr_html_()
    assert report.ok and "<script>" not in text
    check_latex(report._repr_latex_())


def test_stability_conditions_are_relations_and_an_aligned_list(hostile):
    conditions = symq.stability_conditions(symq.model("ring:3"))
    assert isinstance(conditions, list)
    assert conditions == [tuple(c) for c in conditions]  # still (classes, servers) pairs
    relations = conditions.relations()
    assert all(isinstance(r, sympy.StrictLessThan) for r in relations)
    w = symq.model("ring:3")
    assert [(r.lhs, r.rhs) for r in relations] == [(w.arrival_rate(a), w.service_rate(b))
                                                    for a, b in conditions]
    latex = conditions._repr_latex_()
    check_latex(latex)
    lines = latex[len(r"$\displaystyle \begin{aligned} "):-len(r" \end{aligned}$")].split(r" \\ ")
    assert [line.split(" && ")[0] for line in lines] == [f"{m(r.lhs)} &< {m(r.rhs)}"
                                                        for r in relations]
    # numeric rates: the relation stays unevaluated, and it is true exactly when stable
    numeric = symq.model("n").substitute({"lambda_1": "1", "lambda_2": "1", "mu_1": "2",
                                          "mu_2": "1"})
    (r1, r2) = symq.stability_conditions(numeric).relations()
    assert isinstance(r1, sympy.StrictLessThan) and bool(r2.doit()) is True
    hostile_latex = symq.stability_conditions(hostile)._repr_latex_()
    check_latex(hostile_latex)
    # text in math, not markup; no LaTeX special character inside \text (MathJax shows it as is)
    assert r"<\text{script}>\text{alert(1)}<\text{/script}>" in hostile_latex
    assert not re.search(r"\\text\{[^}]*[_&%#<>]", hostile_latex)


def test_stability_report_rows():
    numeric = symq.model("n").substitute({"lambda_1": "1", "lambda_2": "1", "mu_1": "2",
                                          "mu_2": "1"})
    report = symq.stability_report(numeric)
    rows = check_display(report)
    assert rows == [("verdict", "stable"), ("tightest class set", r"A = \{1, 2\}"),
                    ("its servers", r"S(A) = \{1, 2\}"), ("load", r"\lambda(A) = 2"),
                    ("capacity", r"\mu(S(A)) = 3"), ("margin", r"\mu(S(A)) - \lambda(A) = 1")]
    assert report.relation() == sympy.StrictLessThan(2, 3, evaluate=False)


def test_compensation_result_matches_the_cli(capsys):
    from symq.cli import main
    from symq.studies.compensation import balance_equations, kernel_polynomials, solve, symmetric_jsq
    model = symmetric_jsq("1/2")
    result = solve(model, digits=12, states=[(0, 0), (1, 1)])
    rows = check_display(result)
    assert main(["compensation", "jsq", "--rho", "1/2", "--digits", "12", "--state", "0,0",
                 "--state", "1,1", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    header = rows.index(("quantity", "value", "error bound"))
    shown = {name: value for name, value, _ in rows[header + 1:]}
    assert shown == {"P(0,0)": cli["probabilities"]["0,0"], "E[q_1+q_2]": cli["mean-number"],
                     "E[q_1]": cli["mean-queue-lengths"]["1"],
                     "E[q_2]": cli["mean-queue-lengths"]["2"], "P(1,1)": cli["probabilities"]["1,1"]}
    # the reference value of the docs, 1.4263207511672411877, to the digits shown
    assert abs(mpmath.mpf(shown["E[q_1+q_2]"]) - mpmath.mpf("1.4263207511672411877")) < 1e-11
    for name, _, bound in rows[header + 1:]:
        assert mpmath.mpf(bound) > 0
    assert ("levels, box, groups", f"L = {result.levels}, N0 = {result.box}, "
                                   f"{result.groups} groups") in rows
    assert [r for r in rows if r[0] == "kernel"][1][1].startswith("K_L(")
    assert check_display(model) == [(r"\lambda", "1"), (r"\mu_1", "1"), (r"\mu_2", "1"),
                                    ("s", "1"), ("q", r"\frac{1}{2}"), (r"\rho", r"\frac{1}{2}")]
    eqs = balance_equations(1)
    assert check_display(eqs) == [(k, m(v)) for k, v in eqs.items()]
    kernels = kernel_polynomials(1)
    assert check_display(kernels) == [("upper", m(kernels["upper"])),
                                      ("lower", m(kernels["lower"]))]


def test_supermarket_results():
    n = symq.model("n").substitute({"lambda_1": 3, "lambda_2": 1, "mu_1": 1, "mu_2": 1})
    d = symq.decompose(n)
    rows = check_display(d)
    clusters = [(str(k), "\\{" + ", ".join(c.stations) + "\\}", m(c.drift),
                 "\\{" + ", ".join(c.streams) + "\\}", str(c.bonded))
                for k, c in enumerate(d.clusters, start=1)]
    assert rows[1:1 + len(clusters)] == clusters
    assert ("stability", "unstable") in rows
    policy = rows[rows.index(("class", "station", "probability")) + 1:]
    assert policy == [(i, j, m(p)) for i, row in d.policy.items() for j, p in row.items()]
    symbolic = symq.decompose(symq.model("redundancy:3:2"))
    rows = check_display(symbolic)
    assert ("validity", r"\frac{\lambda}{3} \ge 0") in rows
    drift = symq.drift_rates(symq.model("n"), {"1": {"1": 1}, "2": {"1": "1/2", "2": "1/2"}})
    assert check_display(drift) == [(j, m(v)) for j, v in drift.items()]
    sim = symq.simulate_jlw(n, horizon=20, replications=2)
    rows = check_display(sim)
    rates = sim.weighted_rates()
    assert rows[1:3] == [(j, "1", f"{rates[j]:.6g}") for j in sim.stations]
    assert ("replications", "2") in rows


def test_uninformed_results():
    from symq.studies.uninformed import stationary_law, uninformed_queue
    queue = uninformed_queue(2, arrival_rate=1, service_rates=[2, 1])
    assert check_display(queue) == [("arrival rate", r"\lambda = 1"), ("server 1", r"\mu = 2"),
                                    ("server 2", r"\mu = 1"), ("total rate", r"\mu^n = 3")]
    law = stationary_law(queue, max_queue=1)
    rows = check_display(law)
    assert rows == [(f"(\\{{{', '.join(sorted(b))}\\}}, {q})", m(p)) for (b, q), p in law.items()]
    assert len(rows) == len(law) == 5


def test_sweep_results():
    from symq.studies.sweep import SweepSummary, Verdict
    verdict = Verdict(False, {"difference": sympy.Rational(1, 3), "note": SCRIPT}, "why")
    assert check_display(verdict) == [("verdict", "counterexample"), ("reason", "why"),
                                      ("difference", r"\frac{1}{3}"), ("note", SCRIPT)]
    assert SCRIPT not in verdict._repr_html_()
    record = {"graph": "{1,2}", "status": "fail",
              "samples": [{"index": 3, "status": "fail", "data": {},
                           "parameters": {"lambda_1": "1/2"}, "toml": ""}]}
    summary = SweepSummary("stability", "random:3", graphs=2, passed=1, failed=1,
                           records=[{"graph": "{1}", "status": "pass", "samples": []}, record,
                                    {"graph": "{2}", "status": "error", "error": "boom"}])
    rows = check_display(summary)
    assert rows[:9] == [("check", "stability"), ("rates", "random:3"), ("graphs", "2"),
                        ("passed", "1"), ("failed", "1"), ("skipped", "0"), ("errors", "0"),
                        ("resumed", "0"), ("verdict", "FAILED")]
    assert rows[9:] == [("counterexample graph", "sample", "rates"),
                        ("{1,2}", "3", "lambda_1 = 1/2"),
                        ("graph with an error", "error"), ("{2}", "boom")]


def test_response_time_law():
    from symq.engines.response_time import response_time_law, server_law
    n = symq.model("n").substitute({"lambda_1": "1/2", "lambda_2": "1/3", "mu_1": "1",
                                    "mu_2": "1"})
    law = response_time_law(n, "2", "alis")
    rows = dict(check_display(law))
    assert rows["mean"] == "E\\,T = " + m(sympy.Rational(law.mean().numerator,
                                                          law.mean().denominator))
    assert rows["transform"] == "\\hat F(\\theta) = " + m(law.lst_expr())
    assert rows["survival"] == "P(T > t) = " + m(law.survival_expr())
    servers = server_law(n, "2", "alis")
    assert check_display(servers) == [(j, m(p)) for j, p in servers.items()]
    assert sum(servers.values()) == 1


def test_sign_certificate_and_exponential_mixture():
    from symq.engines.distributions import ExponentialMixture
    from symq.studies.uninformed import theorem_2_1_certificates
    certificate = theorem_2_1_certificates(2)[0]
    rows = dict(check_display(certificate))
    assert certificate.proved and rows["verdict"] == "proved"
    assert rows["N"] == m(certificate.numerator) and rows["D"] == m(certificate.denominator)
    assert rows["claim"] == certificate.claim_latex
    x = sympy.Symbol("x")
    from symq.arithmetic.certificates import find_sign_certificate
    failed = find_sign_certificate(x - 1, x, 1, (x,), claim="x > 1")
    assert check_display(failed) == [("claim", "x > 1"), ("verdict", "no certificate found"),
                                     ("reason", failed.reason)]
    law = ExponentialMixture.mixture([("1/3", ExponentialMixture.exponential("mu")),
                                      ("2/3", ExponentialMixture.gated("1/2", "nu"))])
    rows = check_display(law)
    assert rows[1:3] == [(m(w), " + ".join(f"B({m(p)})\\,\\mathrm{{Exp}}({m(r)})" for p, r in t))
                         for w, t in law.components]
    assert ("mean", "E\\,T = " + m(law.mean())) in rows


# ------------------------------------------------------------------------------ must-fail checks
def test_the_row_check_catches_a_dropped_row(failing_report):
    text = failing_report._repr_html_()
    expected = html_rows(text)
    dropped = re.sub(r"<tr><td[^>]*>\(2_b\)</td>.*?</tr>", "", text, count=1)
    assert dropped != text and html_rows(dropped) != expected
    wrong = text.replace(">14</td>", ">13</td>", 1)
    assert wrong != text and html_rows(wrong) != expected


def test_the_row_check_catches_a_wrong_value(monkeypatch):
    """The same object and the same expected rows; the display code is made to show one cell
    wrong (the per-class value plus 1/1000): the row comparison must fail."""
    import symq.display as display
    result = QuantityResult({"total": sympy.Rational(14, 15), "per_class": {"1": sympy.Rational(11, 30)}})
    expected = [("total", m(result["total"])), ("class 1", m(result["per_class"]["1"]))]
    assert html_rows(result._repr_html_()) == expected
    real = display.math

    def wrong(value, *args, **kwargs):
        if value == sympy.Rational(11, 30):
            value = value + sympy.Rational(1, 1000)
        return real(value, *args, **kwargs)
    monkeypatch.setattr(display, "math", wrong)
    assert html_rows(result._repr_html_()) != expected


def test_the_markup_checks_catch_broken_markup():
    with pytest.raises(AssertionError):
        html_rows("<table><tr><td>x</tr></table>")
    with pytest.raises(AssertionError):
        html_rows("<table><tr><td><script>x</script></td></tr></table>")
    with pytest.raises(AssertionError):
        check_latex(r"$\begin{array}{l} \text{x} $")
    with pytest.raises(AssertionError):
        check_latex(r"$\text{a{b}$")


# ------------------------------------------------------------------------------ pdflatex
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_latex_displays_compile(tmp_path, failing_report, hostile):
    from symq.studies.compensation import sed, solve, symmetric_jsq
    from symq.engines.response_time import response_time_law
    from symq.studies.sweep import SweepSummary, Verdict
    from symq.studies.uninformed import stationary_law, uninformed_queue
    n = symq.model("n").substitute({"lambda_1": "1/2", "lambda_2": "1/3", "mu_1": "1",
                                    "mu_2": "1"})
    queue = uninformed_queue(2, arrival_rate=1, service_rates=[2, 1])
    summary = SweepSummary("x_<y>", "random:3", graphs=1, failed=1, records=[
        {"graph": "{1}", "status": "fail", "samples": [{"index": 0, "status": "fail",
                                                        "parameters": {"mu_1": "1/2"}}]}])
    shown = {
        "stability": symq.stability_report(n),
        "routing": sed(2, "1/2", "9/10"),
        "jlw": symq.simulate_jlw(n, horizon=10),
        "queue": queue,
        "law": stationary_law(queue, 1),
        "sweep": summary,
        "verdict": Verdict(True, {"a_b": sympy.Rational(1, 2), "t": SCRIPT}),
        "response": response_time_law(n, "1", "alis"),
        "quantity": symq.mean_number(symq.model("n")),
        "verify": failing_report,
        "conditions": symq.stability_conditions(hostile),
        "ring": symq.stability_conditions(symq.model("ring:3")),
        "decomposition": symq.decompose(symq.model("redundancy:3:2")),
        "compensation": solve(symmetric_jsq("1/2"), digits=8),
        "model": hostile,
    }
    body = "\n\n".join(f"% {name}\n\\noindent {obj._repr_latex_()}\n" for name, obj in shown.items())
    (tmp_path / "d.tex").write_text("\\documentclass{article}\\usepackage{amsmath}\n"
                                    "\\usepackage[a3paper,landscape,margin=1cm]{geometry}\n"
                                    "\\begin{document}\n" + body + "\n\\end{document}\n")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "d.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-3000:]
    assert (tmp_path / "d.pdf").exists()


# ------------------------------------------------------------------------------ the public API
def _public_calls(tmp_path):
    """One small call of each public function of ``symq`` (``symq.__all__``)."""
    from symq.studies.compensation import symmetric_jsq
    path = tmp_path / "m.toml"
    path.write_text(HOSTILE)
    n = symq.model("n")
    numeric = symq.example_model("n")
    return {
        "model": lambda: n, "example_model": lambda: numeric, "load": lambda: symq.load(path),
        "loads": lambda: symq.loads(HOSTILE),
        "empty_probability": lambda: symq.empty_probability(n),
        "normalizing_constant": lambda: symq.normalizing_constant(n),
        "server_idle_probability": lambda: symq.server_idle_probability(n),
        "mean_number": lambda: symq.mean_number(numeric, discipline="alis"),
        "mean_response_time": lambda: symq.mean_response_time(numeric),
        "derive": lambda: symq.derive(numeric, "mean-number", "rais"),
        "solve": lambda: symq.solve(numeric, "mean-number", "alis", digits=12),
        "explain": lambda: symq.explain(numeric, "mean-number", "alis", digits=12),
        "gradient": lambda: symq.gradient(numeric, "mean-number", digits=12),
        "optimize": lambda: symq.optimize(numeric, "mean-response-time", "mu_1 + mu_2 = 2",
                                          "alis", digits=8),
        "evaluate": lambda: symq.evaluate(symq.mean_number(numeric), digits=10),
        "verify": lambda: symq.verify(n, max_jobs=1),
        "nested_empty_probability": lambda: symq.nested_empty_probability(n),
        "stability_conditions": lambda: symq.stability_conditions(n),
        "stability_report": lambda: symq.stability_report(numeric),
        "decompose": lambda: symq.decompose(numeric),
        "drift_rates": lambda: symq.drift_rates(n, {"1": {"1": 1}, "2": {"2": 1}}),
        "simulate_jlw": lambda: symq.simulate_jlw(numeric, horizon=5),
        "compensation_solve": lambda: symq.compensation_solve(symmetric_jsq("1/2"), digits=6),
        "symmetric_jsq": lambda: symq.symmetric_jsq("1/2"),
        "asymmetric_jsq": lambda: symq.asymmetric_jsq("1", "1", "2"),
        "sed": lambda: symq.sed(2, "1/2", "1/2"),
    }


#: public functions whose result is a plain Python value (a terminal and Jupyter show it alike)
PLAIN = {"builtin_names": list, "is_nested": bool, "is_stable": bool, "check_stability": type(None)}
#: public functions whose result has no notebook display of symq's, and why
NOT_COVERED = {"nesting_tree": "a networkx DiGraph: the graph library's own type",
               "ROUTES": "the route table, a tuple of rows (not a function); `symq routes` prints it"}


def test_every_public_result_displays(tmp_path):
    import inspect
    functions = {name for name in symq.__all__ if not inspect.isclass(getattr(symq, name))}
    calls = _public_calls(tmp_path)
    missing = functions - set(calls) - set(PLAIN) - set(NOT_COVERED)
    assert not missing, f"public functions without a display case here: {sorted(missing)}"
    for name, call in calls.items():
        result = call()
        if isinstance(result, sympy.Basic):
            continue  # sympy displays it
        has_html, has_latex = hasattr(result, "_repr_html_"), hasattr(result, "_repr_latex_")
        assert has_html or has_latex, f"{name} returns a {type(result).__name__} with no display"
        check_display(result, latex=has_latex, html=has_html)
    for name, kind in PLAIN.items():
        assert name in functions
    assert isinstance(symq.is_stable(symq.example_model("n")), PLAIN["is_stable"])
    classes = [getattr(symq, name) for name in symq.__all__ if inspect.isclass(getattr(symq, name))
               and not issubclass(getattr(symq, name), Exception)]
    for cls in classes:
        assert hasattr(cls, "_repr_latex_") or hasattr(cls, "_repr_html_"), cls
