"""``symq plot ... --data FILE.csv`` and the new pictures (disciplines, elasticities,
response-time-load): the CSV is read back and its values compared with ``symq.solve`` at the same
points, with a second route where one exists (difference quotients for elasticities, the exact
CDF at a percentile, ``optimize --rank servers`` for the derivatives, the lines drawn)."""

from __future__ import annotations

import csv
import json
from fractions import Fraction

import pytest
import sympy

pytest.importorskip("matplotlib")

import symq  # noqa: E402
from symq.cli import main  # noqa: E402
from symq.presentation.pictures import DATA_COLUMNS, close, get  # noqa: E402

W = {"lambda_1": "1", "lambda_2": "1/2", "lambda_3": "1", "mu_1": "2", "mu_2": "3/2"}
SET = [a for k, v in W.items() for a in ("--set", f"{k}={v}")]


def w_model(values=W):
    return symq.model("w").substitute(values)


def read(tmp_path, args):
    data = tmp_path / "points.csv"
    assert main(["plot", *args, "-o", str(tmp_path / "p.png"), "--data", str(data)]) == 0
    with open(data, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        assert tuple(next(reader)) == DATA_COLUMNS
        rows = [dict(zip(DATA_COLUMNS, row)) for row in reader]
    assert rows
    for row in rows:  # the decimal column is the exact value rounded, where there is one
        for axis in ("x", "y"):
            if row[f"{axis}_decimal"] and row[axis]:
                exact = Fraction(row[axis])
                assert abs(Fraction(row[f"{axis}_decimal"]) - exact) <= abs(exact) / 10 ** 19
    return rows


def curve(rows, name):
    return {Fraction(r["x"]): r for r in rows if r["curve"] == name}


def scaled_values(x, t_star):
    return {k: str(Fraction(v) * x * t_star) if k.startswith("lambda") else v
            for k, v in W.items()}


def test_load_csv_equals_solve(tmp_path, capsys):
    rows = read(tmp_path, ["w", "load", *SET, "--points", "3", "--discipline", "alis"])
    capsys.readouterr()
    assert {r["model"] for r in rows} == {"w"} and {r["discipline"] for r in rows} == {"alis"}
    assert {r["curve"] for r in rows} == {"total", "class 1", "class 2", "class 3"}
    t_star = Fraction(18, 11)  # min over A of mu(S(A)) / lambda(A): A = {1, 3}... checked below
    from symq.presentation.pictures.load import stability_limit
    t_star = stability_limit(w_model())
    for x, row in curve(rows, "class 2").items():
        expected = symq.solve("w", "mean-response-time", "alis",
                              values=scaled_values(x, t_star)).exact["per_class"]["2"]
        assert Fraction(row["y"]) == Fraction(str(expected))
        assert row["quantity"] == "mean-response-time"


def test_disciplines_picture_and_csv_equal_solve(tmp_path, capsys):
    rows = read(tmp_path, ["w", "disciplines", *SET, "--points", "3"])
    capsys.readouterr()
    from symq.presentation.pictures.load import stability_limit
    t_star = stability_limit(w_model())
    assert {r["curve"] for r in rows} == {"collaborative", "alis", "rais"}
    for d in ("collaborative", "alis", "rais"):
        points = curve(rows, d)
        assert sorted(points) == [Fraction(1, 4), Fraction(1, 2), Fraction(3, 4)]
        for x, row in points.items():
            expected = symq.solve("w", "mean-response-time", d,
                                  values=scaled_values(x, t_star)).exact["total"]
            assert Fraction(row["y"]) == Fraction(str(expected)) and row["discipline"] == d
    # the lines drawn are these points
    picture = get("disciplines").draw(w_model(), points=3)
    lines = {line.get_label(): line for line in picture.figure.axes[0].lines}
    ys = lines["FCFS-ALIS"].get_ydata()
    assert list(ys) == [float(Fraction(curve(rows, "alis")[x]["y"])) for x in
                        (Fraction(1, 4), Fraction(1, 2), Fraction(3, 4))]
    close(picture)
    # the three disciplines differ on W (else the picture would show one curve)
    mid = [curve(rows, d)[Fraction(1, 2)]["y"] for d in ("collaborative", "alis", "rais")]
    assert len(set(mid)) >= 2


def test_elasticities_equal_solve_and_difference_quotients(tmp_path, capsys):
    rows = read(tmp_path, ["w", "elasticities", *SET, "--discipline", "alis"])
    capsys.readouterr()
    result = symq.solve(w_model(), "mean-response-time", "alis", wrt="all")
    elasticity = {r["x"]: Fraction(r["y"]) for r in rows if r["curve"].startswith("elasticity")}
    derivative = {r["x"]: Fraction(r["y"]) for r in rows if r["curve"].startswith("derivative")}
    assert sorted(elasticity) == ["1", "2"]
    for s in ("1", "2"):
        assert elasticity[s] == result.elasticity("total", f"mu_{s}")
        assert derivative[s] == result.derivative("total", f"mu_{s}")
        # second route: central difference quotients of the values, error O(h^2)
        h = Fraction(1, 10**5)
        mu = Fraction(W[f"mu_{s}"])

        def value(m):
            return Fraction(str(symq.solve("w", "mean-response-time", "alis",
                                           values={**W, f"mu_{s}": str(m)}).exact["total"]))
        quotient = (value(mu + h) - value(mu - h)) / (2 * h)
        assert abs(quotient - derivative[s]) < Fraction(1, 10**8)
        assert abs(quotient * mu / value(mu) - elasticity[s]) < Fraction(1, 10**8)
    # most negative elasticity first, as drawn
    order = [r["x"] for r in rows if r["curve"].startswith("elasticity")]
    assert order == sorted(order, key=lambda s: elasticity[s])
    # optimize --rank servers: its gains are -dT/dmu_s
    assert main(["optimize", "w", "mean-response-time", "--discipline", "alis", *SET,
                 "--rank", "servers", "--exact", "--json"]) == 0
    rank = json.loads(capsys.readouterr().out)["rank"]
    for entry in rank:
        gain = entry["gain"].split(" = ")[0]
        assert abs(Fraction(gain) + derivative[entry["server"]]) < Fraction(1, 10**15)


def test_response_time_load_percentile_is_the_cdf_root(tmp_path, capsys):
    rows = read(tmp_path, ["w", "response-time-load", *SET, "--points", "2", "--discipline",
                           "alis", "--percentile", "90"])
    capsys.readouterr()
    from symq.presentation.pictures.load import stability_limit
    t_star = stability_limit(w_model())
    for x, row in curve(rows, "class 1").items():
        assert row["y"] == ""  # a percentile has no exact value: digits only
        q = Fraction(row["y_decimal"])
        law = symq.solve("w", "response-time", "alis", values=scaled_values(x, t_star),
                         percentile=90, digits=15)
        assert abs(q - Fraction(law["percentile"]["1"].value)) <= q / 10**13
        cdf = sympy.sympify(law.exact["cdf"]["1"])  # the exact law: F(q) = 9/10
        (t,) = cdf.free_symbols
        assert abs(sympy.N(cdf.subs(t, sympy.Rational(q.numerator, q.denominator)), 30)
                   - sympy.Rational(9, 10)) < sympy.Rational(1, 10**12)


def test_response_time_load_survival_at_a_time(tmp_path, capsys):
    rows = read(tmp_path, ["w", "response-time-load", *SET, "--points", "2", "--time", "1"])
    capsys.readouterr()
    from symq.presentation.pictures.load import stability_limit
    t_star = stability_limit(w_model())
    for x, row in curve(rows, "class 3").items():
        expected = symq.solve("w", "response-time-survival", "collaborative",
                              values=scaled_values(x, t_star), time=1, digits=15)
        assert abs(Fraction(row["y_decimal"]) - Fraction(expected.per_class["3"].value)) \
            < Fraction(1, 10**13)


def test_distribution_csv(tmp_path, capsys):
    rows = read(tmp_path, ["w", "distribution", *SET, "--max-jobs", "4"])
    capsys.readouterr()
    empty = symq.solve("w", "empty-probability", "collaborative", values=W).exact
    assert Fraction(curve(rows, "P(N = n)")[0]["y"]) == Fraction(str(empty))
    assert len(rows) == 5 and sum(Fraction(r["y"]) for r in rows) < 1


@pytest.mark.slow  # the split's bisection: about 80 exact gradients
def test_split_csv(tmp_path, capsys):
    rows = read(tmp_path, ["w", "split", "--set", "lambda_1=3/20", "--set", "lambda_2=1/10",
                           "--set", "lambda_3=1/4", "--budget", "mu_1 + mu_2 = 9/5",
                           "--points", "3"])
    values = [r for r in rows if r["curve"].startswith("T ")]
    assert len(values) == 3
    for row in values:
        x = Fraction(row["x"])
        expected = symq.solve("w", "mean-response-time", values={
            "lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": str(x),
            "mu_2": str(Fraction(9, 5) - x)}).exact["total"]
        assert Fraction(row["y"]) == Fraction(str(expected))
    capsys.readouterr()


def test_survival_csv(tmp_path, capsys):
    rows = read(tmp_path, ["w", "response-time-survival", *SET, "--discipline", "alis",
                           "--points", "5", "--max-time", "2"])
    capsys.readouterr()
    for row in (r for r in rows if r["curve"] == "class 2" and r["x"] != "0"):
        expected = symq.solve("w", "response-time-survival", "alis", values=W,
                              time=row["x"], digits=15).per_class["2"].value
        assert abs(Fraction(row["y_decimal"]) - Fraction(expected)) < Fraction(1, 10**13)


def test_graph_csv_holds_the_rates_and_edges(tmp_path, capsys):
    rows = read(tmp_path, ["w", "graph"])
    capsys.readouterr()
    assert [(r["x"], r["y"]) for r in rows if r["curve"] == "edges"] == \
        [("1", "1"), ("2", "2"), ("3", "1"), ("3", "2")]
    assert {r["x"]: r["y"] for r in rows if r["curve"] == "arrival rates"}["1"] == "lambda_1"


def test_bad_data_file_is_one_line(tmp_path, capsys):
    assert main(["plot", "w", "graph", "-o", str(tmp_path / "p.png"), "--data",
                 str(tmp_path / "points.txt")]) == 2
    err = capsys.readouterr().err
    assert "--data" in err and ".csv" in err and err.count("\n") == 1
    assert not (tmp_path / "p.png").exists()


@pytest.mark.parametrize("args, match", [
    (["w", "disciplines", *SET, "--quantity", "server-idle-probability"], "one number per model"),
    (["w", "elasticities"], "needs a value for every symbol"),
    (["w", "response-time-load", *SET, "--percentile", "100"], "between 0 and 100"),
    (["w", "response-time-load", *SET, "--percentile", "90", "--time", "1"], "not both"),
    (["w", "response-time-load", *SET, "--time", "x"], "--time"),
])
def test_new_pictures_refuse_bad_input_in_one_line(args, match, tmp_path, capsys):
    assert main(["plot", *args, "-o", str(tmp_path / "p.png")]) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1


@pytest.mark.slow  # the compensation solves behind the heat map
def test_heatmap_and_levels_csv(tmp_path, capsys):
    from symq.studies.compensation import sed
    from symq.studies.compensation.grids import levels_needed
    from symq.studies.compensation.hybrid import solve
    rows = read(tmp_path, ["sed", "heatmap", "--s", "2", "--q", "1/2", "--rho", "1/2",
                           "--size", "2"])
    assert {r["curve"] for r in rows} == {f"rho=1/2, q_2={k}" for k in range(5)}
    reference = solve(sed(2, "1/2", "1/2"), digits=20, box=12)  # more digits, a larger box
    for row in rows:
        assert row["y"] == "" and row["discipline"] == "sed"
        q2 = int(row["curve"].rsplit("=", 1)[1])
        text = row["y_decimal"]
        assert "e" not in text  # these probabilities are above 1e-6
        shown = Fraction(text)
        true = Fraction(str(reference.probability((int(row["x"]), q2))))
        # every digit shown is correct: off by less than one unit in the last place
        unit = Fraction(1, 10 ** (len(text.split(".")[1]))) if "." in text else Fraction(1)
        assert abs(shown - true) < unit, (row, true)
        assert len(text.split(".")[1].lstrip("0")) >= 8  # 8 or more significant digits
    rows = read(tmp_path, ["sed", "levels", "--s", "2", "--q", "1/2", "--rho", "1/2",
                           "--size", "1", "--max-levels", "2"])
    capsys.readouterr()
    needed = levels_needed(sed(2, "1/2", "1/2"), size=1, max_levels=2)
    assert {(int(r["x"]), int(r["curve"].split("=")[1])): int(r["y"]) for r in rows} == needed


def test_bars_and_lines_drawn_are_the_exported_points():
    from symq.presentation.pictures import data_rows
    picture = get("elasticities").draw(w_model(), discipline="rais")
    try:
        bars = [patch.get_width() for patch in picture.figure.axes[0].patches]
        rows = [r for r in data_rows(picture, "w", "elasticities") if r[2].startswith("elast")]
        assert bars == [float(Fraction(r[8])) for r in rows]
        result = symq.solve(w_model(), "mean-response-time", "rais", wrt="all")
        assert [Fraction(r[8]) for r in rows] == sorted(
            result.elasticity("total", f"mu_{s}") for s in ("1", "2"))
    finally:
        close(picture)
    picture = get("response-time-load").draw(w_model(), points=2, time="1/2")
    try:
        lines = {line.get_label(): list(line.get_ydata()) for line in picture.figure.axes[0].lines
                 if line.get_label().startswith("class")}
        rows = data_rows(picture, "w", "response-time-load")
        for label, ys in lines.items():
            assert ys == [float(r[9]) for r in rows if r[2] == label]
    finally:
        close(picture)
