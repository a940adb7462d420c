"""Result's exports read back: the booktabs table, the DataFrame and the notebook table hold the
values of the result (compared as values, with the exact rationals of a second route), and the
labels read "class 1", "server 2"."""

import re

import pytest
import sympy

import symq
from symq.queries.exact import mean_number as dp_mean_number


def _n():
    return symq.example_model("n")


def test_to_latex_holds_every_value_and_its_exact_fraction():
    r = symq.solve(_n(), "mean-number", digits=8)
    text = r.to_latex()
    assert text.startswith("\\begin{table}") and "\\toprule" in text and "\\bottomrule" in text
    rows = re.findall(r"\\text\{([^}]*)\} & \$\\frac\{(\d+)\}\{(\d+)\}\$ & ([\d.]+) \\\\", text)
    reference = dp_mean_number(_n(), method="subset-dp")   # a second route
    want = {"total": reference["total"], **{f"class {c}": v
                                            for c, v in reference["per_class"].items()}}
    got = {label: sympy.Rational(int(p), int(q)) for label, p, q, _ in rows}
    assert got == want
    for label, p, q, decimal in rows:
        assert abs(sympy.Rational(int(p), int(q)) - sympy.Rational(decimal)) < sympy.Rational(1, 10**7)
    assert "rates: class 1 1/4" in text


def test_to_dataframe_holds_the_values():
    pandas = pytest.importorskip("pandas")
    r = symq.solve(_n(), "server-idle-probability", digits=8)
    frame = r.to_dataframe()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame["label"]) == ["server 1", "server 2"]
    assert list(frame["exact"]) == [sympy.Rational(9, 14), sympy.Rational(6, 7)]


def test_to_dataframe_without_pandas_says_how(monkeypatch):
    import builtins
    real = builtins.__import__

    def no_pandas(name, *args, **kwargs):
        if name == "pandas":
            raise ImportError("no pandas")
        return real(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_pandas)
    with pytest.raises(symq.UnsupportedError, match=r"symq\[dataframe\]"):
        symq.solve(_n(), "mean-number").to_dataframe()


def test_the_notebook_table_shows_exact_beside_decimals():
    r = symq.solve(_n(), "mean-number", digits=6)
    html = r._repr_html_()
    cells = re.findall(r"<td[^>]*>(.*?)</td>", html)
    assert cells[:3] == ["total", r"\(\frac{11}{21}\)", "0.523810"]
    assert cells[3] == "class 1" and cells[4] == r"\(\frac{5}{14}\)"


def test_a_symbolic_formula_shows_as_one_aligned_block():
    html = symq.solve("w", "empty-probability", "alis")._repr_html_()
    assert "$$" in html and "\\begin{aligned}" in html and "<pre>" not in html
    assert "H_{1} &amp;= \\frac{\\lambda_{1}}{\\mu_{1} - \\lambda_{1}}" in html
