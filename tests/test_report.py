"""``symq report``: the derivation document, and LaTeX that compiles with a real engine."""

import os
import shutil
import subprocess

import pytest

import symq
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
    assert r"\lambda_{1} < \mu_{1}" in text
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
