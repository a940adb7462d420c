"""``symq report``: the derivation document, and LaTeX that compiles with a real engine."""

import os
import re
import shutil
import subprocess

import pytest
import sympy

import symq
import symq.queries.quantities
from symq.cli import main
from symq.presentation.report import build_report, example_values, render_latex, render_markdown

PDFLATEX = shutil.which("pdflatex")


def test_example_values_are_stable_for_every_builtin():
    for name in ["n", "w", "nested", "ring:4", "redundancy:4:2", "uninformed:3"]:
        m = symq.model(name)
        assert symq.is_stable(m.substitute(example_values(m)))


def test_w_report_contains_the_issue_values():
    text = render_markdown(build_report(symq.model("w"), discipline="collaborative",
                                        verify_jobs=0), "w")
    assert "0.323076923076923076923076923077" in text     # pi(empty) at the report's W example
    assert r"\lambda_{1} \lt  \mu_{1}" in text   # Markdown math: < written as \lt
    assert "Theorem 3.3" in text


def test_unavailable_quantities_are_listed_not_dropped():
    text = render_markdown(build_report(symq.model("ring:3"), discipline="collaborative",
                                        verify_jobs=0))
    assert "not nested" in text
    assert "response time" not in text.lower() or "not available" in text


def test_markdown_output_file(tmp_path, capsys):
    out = tmp_path / "n.md"
    assert main(["report", "n", "--output", str(out), "--verify-jobs", "1"]) == 0
    text = out.read_text()
    assert text.startswith("# symq report: n") and "## Verification" in text


@pytest.mark.parametrize("name", ["n", "w", "nested"])
def test_latex_report_compiles(tmp_path, name):
    if PDFLATEX is None:
        if os.environ.get("CI"):
            pytest.fail("pdflatex is missing in CI: .ci/run must install texlive")
        pytest.skip("pdflatex not installed (apt-get install texlive-latex-base "
                    "texlive-latex-recommended texlive-pictures)")
    tex = tmp_path / f"{name}.tex"
    assert main(["report", name, "--output", str(tex), "--verify-jobs", "1"]) == 0
    result = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", tex.name],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    errors = [line for line in result.stdout.splitlines() if line.startswith("!")]
    assert result.returncode == 0 and not errors, "\n".join(errors) or result.stdout[-2000:]
    assert (tmp_path / f"{name}.pdf").stat().st_size > 10_000


def test_latex_document_structure():
    text = render_latex(build_report(symq.model("n"), discipline="alis", verify_jobs=0), "n")
    assert text.startswith(r"\documentclass") and text.rstrip().endswith(r"\end{document}")
    assert r"\begin{tikzpicture}" in text


# ------------------------------------------------------------------ paper, rates, text, references
def test_a4_by_default_and_letter_on_request(tmp_path, capsys):
    a4, letter = tmp_path / "a4.tex", tmp_path / "letter.tex"
    assert main(["report", "n", "--verify-jobs", "0", "--output", str(a4), "--quiet"]) == 0
    assert main(["report", "n", "--verify-jobs", "0", "--paper", "letter", "--output",
                 str(letter), "--quiet"]) == 0
    assert r"\usepackage[a4paper,margin=2cm]{geometry}" in a4.read_text()
    assert r"\usepackage[letterpaper,margin=2cm]{geometry}" in letter.read_text()
    with pytest.raises(ValueError):
        render_latex([], "A", paper="a5")


def test_example_rates_tell_the_classes_of_a_symmetric_graph_apart():
    m = symq.model("ring:4")
    values = example_values(m)
    assert [values[f"lambda_{k}"] for k in range(1, 5)] == ["1/20", "1/10", "3/20", "1/5"]
    assert [values[f"mu_{k}"] for k in range(1, 5)] == ["1", "5/4", "3/2", "7/4"]
    sections = build_report(m, discipline="collaborative", verify_jobs=0)
    tables = [b for s in sections for b in s.blocks if b[0] == "table" and b[1][1:2] == ["exact"]]
    per_class = [row[1] for table in tables for row in table[2] if row[0].startswith("class")]
    assert len(per_class) >= 8
    for k in range(0, len(per_class), 4):  # the four classes of one quantity differ
        assert len(set(per_class[k:k + 4])) == 4, per_class[k:k + 4]


def _prose(latex: str) -> str:
    """The text of a LaTeX document outside math, tables of math and the preamble."""
    body = latex.split(r"\begin{document}", 1)[1]
    body = re.sub(r"\$[^$]*\$|\\\[.*?\\\]|\\begin\{(align|gather|tikzpicture)\*?\}.*?"
                  r"\\end\{\1\*?\}", " ", body, flags=re.S)
    return body


RAW = re.compile(r"O\([A-Z]\^|Exp\(|\bmu_|\blambda_|docs/|\.md\b|\.py\b|§|\^|--[a-z]")


def test_no_raw_ascii_formulas_or_file_names_in_the_document():
    for name, discipline in (("w", None), ("ring:4", "collaborative"), ("nested", "alis")):
        text = render_latex(build_report(symq.model(name), discipline=discipline,
                                         verify_jobs=0), name)
        found = RAW.findall(_prose(text))
        assert not found, (name, found[:5])
    # the check sees the raw text of the old route descriptions
    assert RAW.findall(_prose(r"\begin{document} then Exp(mu\_s) service, O(M^3) "
                              r"(docs/quantities.md), needs --time T")) == [
        "Exp(", "O(M^", "docs/", ".md", "--t"]


def test_method_text_sets_formulas_as_math():
    from symq.presentation.report import _method_text

    assert _method_text("ring: arc weights, O(M^3) (docs/quantities.md, Ring models)") == \
        "ring: arc weights, $O(M^{3})$"
    assert _method_text("then Exp(mu_s) service") == r"then $\mathrm{Exp}(\mu_{s})$ service"


def test_references_have_authors_and_year_for_every_key_cited():
    sections = build_report(symq.model("w"), verify_jobs=0)
    references = sections[-1]
    assert references.title == "References"
    entries = [b[1] for b in references.blocks]
    keys = [re.match(r"\[(\w+)\] ", e).group(1) for e in entries]
    for entry in entries:
        assert re.match(r"\[\w+\] [A-Z]\. .+ \((19|20)\d\d\)\. \\emph\{.+\}\. .+\.$", entry), entry
    cited = set()
    for s in sections[:-1]:
        for b in s.blocks:
            if b[0] == "text":
                cited |= set(re.findall(r"\[([A-Z][A-Za-z]*\d\d)\]", b[1]))
    assert cited and cited <= set(keys) and {"GR20", "AW14", "VAW12"} <= set(keys)


def test_report_progress_counts_the_balance_check_and_ends_at_the_total():
    calls = []
    build_report(symq.model("n"), verify_jobs=2, progress=lambda d, t: calls.append((d, t)))
    totals = {t for _, t in calls}
    assert len(totals) == 1
    (total,) = totals
    done = [d for d, _ in calls]
    assert done == sorted(done) and done[-1] == total
    quantities = 3 * len(symq.queries.quantities.QUANTITIES)
    assert total > quantities  # the states of the check are part of the work
    assert sum(d > quantities for d in done) >= 2  # and reported while it runs


def test_table_labels_and_author_say_what_they_are():
    # the serving-server law reads "server s serves class c" (it read "server 3- > 1"), each row
    # the value of that pair; a law's row says in its digits cell what it is a function of (the
    # cell was empty); the author line names symq and its version (it was "symq")
    m = symq.model("w")
    text = render_latex(build_report(m, discipline="alis", verify_jobs=0), "w")
    assert rf"\author{{generated by symq {symq.__version__}}}" in text
    rows = dict(re.findall(r"^(server \$\w+\$ serves class \$\w+\$) & \$([^$]*)\$ &", text, re.M))
    law = symq.solve(m.substitute(example_values(m)), "response-time", "alis", exact=True)
    pairs = law.items["server"]
    assert len(rows) == len(pairs) == 4
    for key, value in pairs.items():
        job_class, server = key.split("->")
        shown = rows[f"server ${server}$ serves class ${job_class}$"]
        assert shown == sympy.latex(value.exact), key
    # class 3 is served by server 1 or 2: its two probabilities add up to one
    assert sum(pairs[k].exact for k in ("3->1", "3->2")) == 1
    lst = re.findall(r"^LST, class \$\w+\$ & .* & (.*) \\\\$", text, re.M)
    cdf = re.findall(r"^CDF, class \$\w+\$ & .* & (.*) \\\\$", text, re.M)
    assert lst and set(lst) == {r"a function of $\theta$"}
    assert cdf and set(cdf) == {"a function of $t$"}
    assert "- >" not in text
