"""``symq plot``: every registered picture kind is produced (PNG and SVG), with file names and
titles from the actual parameters; bad input is one line with exit status 2."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("matplotlib")

from symq.cli import main  # noqa: E402
from symq.presentation.pictures import kinds  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"
W = ["--set", "lambda_1=1", "--set", "lambda_2=1", "--set", "lambda_3=1", "--set", "mu_1=2",
     "--set", "mu_2=2"]
CASES = {
    "graph": ["w", "graph"],
    "load": ["w", "load", *W, "--points", "3"],
    "distribution": ["w", "distribution", *W, "--max-jobs", "6"],
    "clusters": ["w", "clusters", *W, "--weights", "1=2"],
    "heatmap": ["sed", "heatmap", "--s", "2", "--q", "1/2", "--rho", "1/2", "--size", "3"],
    "levels": ["sed", "levels", "--s", "2", "--q", "1/2", "--rho", "1/2", "--size", "1",
               "--max-levels", "2"],
    "response-time-survival": ["w", "response-time-survival", "--discipline", "alis", *W],
    "waiting-time-survival": ["w", "waiting-time-survival", "--discipline", "alis", *W],
}


def _plot(capsys, args):
    assert main(["plot", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_picture_is_written_as_png_and_svg(kind, tmp_path, capsys):
    png, svg = tmp_path / "p.png", tmp_path / "p.svg"
    data = _plot(capsys, [*CASES[kind], "-o", str(png), "-o", str(svg)])
    assert data["kind"] == kind and data["files"] == [str(png), str(svg)]
    assert png.read_bytes()[:8] == PNG and png.stat().st_size > 5000
    assert b"<svg" in svg.read_bytes()[:400]


def test_every_registered_kind_has_a_case():
    # a kind added to symq/pictures without a test here fails this test
    missing = set(kinds()) - set(CASES)
    assert not missing


def test_default_file_name_carries_the_actual_parameters(tmp_path, capsys):
    # the old compensation pictures named `asymmetric --s 3` as s=1; now mu_2 = 3 is in the name
    data = _plot(capsys, ["asymmetric", "heatmap", "--s", "3", "--rho", "1/2", "--size", "1",
                          "--dir", str(tmp_path)])
    (path,) = data["files"]
    assert "mu2=3" in path and "s=1" not in path
    other = _plot(capsys, ["asymmetric", "heatmap", "--s", "2", "--rho", "1/2", "--size", "1",
                           "--dir", str(tmp_path)])
    assert other["files"] != data["files"]  # runs with other parameters do not overwrite


def test_load_points_are_exact_and_below_the_stability_limit(capsys, tmp_path):
    data = _plot(capsys, [*CASES["load"], "--dir", str(tmp_path)])["data"]
    assert data["stability_limit"] == "4/3"  # min over A of mu(S(A))/lambda(A): A = all classes
    xs = [p["relative_load"] for p in data["points"]]
    assert xs == ["1/4", "1/2", "3/4"]
    # the mean response time grows with the load, per class and overall
    for name in data["points"][0]["values"]:
        values = [float(__import__("fractions").Fraction(p["values"][name])) for p in data["points"]]
        assert values == sorted(values)


def test_distribution_agrees_with_the_truncated_chain():
    from fractions import Fraction

    from symq import model
    from symq.engines.ctmc import job_count, truncated_stationary
    from symq.presentation.pictures.distribution import number_law

    m = model("w").substitute({"lambda_1": "1/3", "lambda_2": "1/4", "lambda_3": "1/2",
                               "mu_1": "1", "mu_2": "3/2"})
    law = number_law(m, 3)
    chain = truncated_stationary(m, "collaborative", 3)
    by_n = [sum((p for s, p in chain.items() if job_count(s) == n), Fraction(0)) for n in range(4)]
    total = sum(law)
    assert [Fraction(str(p / total)) for p in law] == by_n  # exact: blocking keeps the product form


def test_distribution_check_fails_on_a_wrong_law():
    # the comparison above must be able to fail: a law with one wrong rate differs
    from symq import model
    from symq.presentation.pictures.distribution import number_law

    values = {"lambda_1": "1/3", "lambda_2": "1/4", "lambda_3": "1/2", "mu_1": "1", "mu_2": "3/2"}
    right = number_law(model("w").substitute(values), 3)
    wrong = number_law(model("w").substitute({**values, "mu_2": "2"}), 3)
    assert right != wrong


@pytest.mark.parametrize("args, match", [
    (["w", "nosuchkind"], "unknown picture"),
    (["w", "load"], "needs a value for every symbol"),
    (["w", "graph", "-o", "picture.jpg"], ".png or .svg"),
    (["w", "heatmap"], "routing policy"),
    (["w", "graph", "--rho", "1/2"], "--set"),
])
def test_bad_input_is_one_line(args, match, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["plot", *args]) == 2
    err = capsys.readouterr().err
    assert match in err and "Traceback" not in err and err.count("\n") == 1
