"""The quantities of INTERFACE.md through the command line, for every discipline."""

import json

import pytest
import sympy

import symq
from symq.cli import main
from symq.quantities import derive, handler_for

from routes import general_collaborative_values

SETTINGS = {
    "n": {"lambda_1": "3/4", "lambda_2": "1/2", "mu_1": "3/2", "mu_2": "1"},
    "w": {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": "1", "mu_2": "4/5"},
    "redundancy:4:2": {"lambda": "3/2", "mu": "1"},
}
TOML = """
name = "triangle"
[classes.a]
arrival_rate = "1/3"
servers = ["x", "y"]
[classes.b]
arrival_rate = "1/2"
servers = ["y", "z"]
[classes.c]
arrival_rate = "1/4"
servers = ["z", "x"]
[servers.x]
service_rate = "1"
[servers.y]
service_rate = "3/4"
[servers.z]
service_rate = "2/3"
"""
QUANTITIES = ["empty-probability", "normalizing-constant", "server-idle-probability",
              "mean-number", "mean-response-time"]


def run_json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _sets(name):
    return [arg for k, v in SETTINGS[name].items() for arg in ("--set", f"{k}={v}")]


@pytest.mark.parametrize("discipline", ["collaborative", "alis", "rais"])
@pytest.mark.parametrize("quantity", QUANTITIES)
@pytest.mark.parametrize("name", ["n", "w", "redundancy:4:2", "toml"])
def test_evaluate_every_quantity(capsys, tmp_path, name, quantity, discipline):
    if name == "toml":
        path = tmp_path / "triangle.toml"
        path.write_text(TOML)
        argv = ["evaluate", str(path), quantity, "--discipline", discipline]
    else:
        argv = ["evaluate", name, quantity, "--discipline", discipline, *_sets(name)]
    data = run_json(capsys, argv + ["--digits", "50", "--json"])
    assert data["discipline"] == discipline and data["digits"] == 50
    leaves = []

    def collect(node):
        if "value" in node:
            leaves.append(node)
        else:
            for part in node.values():
                collect(part)
    collect(data["result"])
    assert leaves
    for leaf in leaves:
        assert sympy.sympify(leaf["exact"]).is_Rational
        digits = leaf["value"].replace("-", "").replace(".", "").lstrip("0")
        assert len(digits.split("e")[0]) == 50


def test_published_value_through_the_cli(capsys):
    data = run_json(capsys, ["evaluate", "w", "empty-probability", "--discipline", "rais",
                             *_sets("w"), "--json"])
    assert data["result"]["exact"] == "663/1216"


@pytest.mark.parametrize("name,discipline,word", [
    ("w", "collaborative", "nested"), ("ring:3", "collaborative", "subset DP"),
    ("ring:3", "rais", "canonical"), ("redundancy:4:2", "alis", "symmetry"),
    ("redundancy:4:2", "rais", "canonical")])
def test_method_names_the_algorithm(capsys, name, discipline, word):
    values = {"ring:3": ["--set", "lambda_1=1/3", "--set", "lambda_2=1/2", "--set", "lambda_3=1/4",
                         "--set", "mu_1=1", "--set", "mu_2=3/4", "--set", "mu_3=2/3"]}
    data = run_json(capsys, ["derive", name, "empty-probability", "--discipline", discipline,
                             *values.get(name, []), "--json"])
    assert word in data["method"]


def test_derive_w_response_time_latex(capsys):
    assert main(["derive", "w", "response-time", "--format", "latex"]) == 0
    out = capsys.readouterr().out
    for part in ("lst", "mean", "variance", "cdf"):
        for c in ("1", "2", "3"):
            assert f"{part} {c}: " in out
    assert r"\theta" in out and "e^{" in out


@pytest.mark.parametrize("name,discipline,values", [
    ("w", "collaborative", None), ("n", "collaborative", None),
    ("redundancy:3:2", "alis", {"lambda": "1", "mu": "1"}),
    ("redundancy:3:2", "rais", {"lambda": "1", "mu": "1"}),
    ("w", "alis", {"lambda_1": "1/5", "lambda_2": "1/10", "lambda_3": "3/10", "mu_1": "1",
                   "mu_2": "1"})])
def test_response_time_means_match_mean_response_time(name, discipline, values):
    m = symq.model(name)
    if values:
        m = m.substitute(values)
    laws = derive(m, "response-time", discipline)
    means = derive(m, "mean-response-time", discipline)["per_class"]
    for c in m.classes:
        assert sympy.cancel(laws["mean"][c] - means[c]) == 0
    if discipline == "collaborative":
        # nested models: both quantities above come from the nesting tree; the general subset
        # DP shares no code with it
        general = general_collaborative_values(m)["L"]
        for c in m.classes:
            assert sympy.cancel(laws["mean"][c] - general[c] / m.arrival_rates[c]) == 0, c


def test_response_time_unavailable_is_a_clear_error(capsys):
    """ALIS with heterogeneous rates within a class: the wait and the server are dependent."""
    assert main(["derive", "w", "response-time", "--discipline", "alis"]) == 2
    assert "not available" in capsys.readouterr().err


def test_unstable_is_exit_2(capsys):
    assert main(["evaluate", "w", "mean-number", "--discipline", "alis",
                 *_sets("w")[:-1], "mu_2=1/100"]) == 2
    assert "unstable" in capsys.readouterr().err


def test_every_discipline_has_every_quantity():
    for discipline in ("collaborative", "alis", "rais"):
        for quantity in QUANTITIES:
            handler_for(symq.model("ring:3"), quantity, discipline)
