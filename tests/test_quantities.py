"""The quantities of the command line, for every discipline: format and exact values (against
routes the CLI does not take), published values, methods, response-time laws."""

import functools
import itertools
import json
from fractions import Fraction

import pytest
import sympy

import symq
from symq.queries import exact as nz
from symq.engines.aggregated import busy_order_probability
from symq.cli import main
from symq.engines.normalization import collaborative_empty_probability, server_removal_mean_number
from symq.engines.processes import ALISProcess
from symq.queries.quantities import derive
from symq.queries.plan import arithmetic_for, select

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
    # the values, against a route the CLI does not take (see reference_values)
    expected = reference_values(name, discipline)[quantity]
    assert _exact_leaves(data["result"]) == _flatten(expected)
    for leaf in leaves:
        assert abs(Fraction(leaf["value"]) - Fraction(leaf["exact"])) \
            <= abs(Fraction(leaf["exact"])) * Fraction(1, 10 ** 49)


def _exact_leaves(node, path=()):
    if "exact" in node:
        return {path: Fraction(node["exact"])}
    out = {}
    for key, part in node.items():
        out.update(_exact_leaves(part, path + (key,)))
    return out


def _flatten(node, path=()):
    if not isinstance(node, dict):
        return {path: Fraction(int(sympy.Rational(node).p), int(sympy.Rational(node).q))}
    out = {}
    for key, part in node.items():
        out.update(_flatten(part, path + (key,)))
    return out


def _model(name):
    if name == "toml":
        return symq.loads(TOML)
    return symq.model(name).substitute(SETTINGS[name])


R = sympy.Rational
# Exact values for ALIS and RAIS (canonical routing) on the N, W and triangle settings above,
# obtained outside symq (see tests/REFERENCES.md): P(empty) and the per-class mean response times.
PUBLISHED = {
    "n": {"empty": R(21, 71), "T": {"1": R(108, 71), "2": R(78, 71)}},
    "w": {"empty": R(663, 1216), "T": {"1": R(44807, 33592), "2": R(92285, 55328),
                                       "3": R(23819, 19760)}},
    "toml": {"empty": R(1000824, 4404029),
             "T": {"a": R(225448587, 171127984), "b": R(1388487357, 775109104),
                   "c": R(118142415, 85563992)}},
}


def _reduced(model, server):
    """The system |- server: the classes server ``server`` cannot serve, on their own servers."""
    kept = {c: s for c, s in model.compatibility.items() if server not in s}
    if not kept:
        return None
    servers = sorted({j for s in kept.values() for j in s})
    return symq.Model(compatibility=kept, arrival_rates={c: model.arrival_rates[c] for c in kept},
                      service_rates={j: model.service_rates[j] for j in servers})


def _means(model, per_class_l):
    lam = model.arrival_rates
    total = sum(per_class_l.values())
    return ({"total": total, "per_class": dict(per_class_l)},
            {"total": total / model.arrival_rate(),
             "per_class": {c: per_class_l[c] / lam[c] for c in model.classes}})


@functools.lru_cache(maxsize=None)
def reference_values(name, discipline):
    """The five quantities by routes the CLI does not take for this model and discipline.

    * collaborative: the server-removal recursions, Prop 6.2 for P(empty) and corrected Prop 6.3
      for the means (the CLI uses the subset DP or the nested tree or the redundancy symmetry),
      and P(k idle) = pi(empty) / pi_{|-k}(empty), the recursion on the reduced system;
    * ALIS and RAIS: P(empty) and P(k idle) from the ordered busy vectors (Thm 5.1, each
      P(b) / P(empty) = Phi(B) prod_j 1/r(B_j), normalized by their own sum), G_ALIS = W(M) /
      P(empty) with W(M) the sum of the ALIS product form over the idle orders (Thm 3.9,
      symq.engines.processes); the means from PUBLISHED, or for redundancy:4:2 (whose CLI route is the
      symmetry recursion) from the general subset DP.
    """
    model = _model(name)
    if discipline == "collaborative":
        empty = collaborative_empty_probability(model)
        idle = {}
        for k in model.servers:
            reduced = _reduced(model, k)
            idle[k] = empty / (collaborative_empty_probability(reduced) if reduced else 1)
        number, time = _means(model, server_removal_mean_number(model))
        return {"empty-probability": empty, "normalizing-constant": 1 / empty,
                "server-idle-probability": {"per_server": idle},
                "mean-number": number, "mean-response-time": time}
    ratios = busy_order_probability(model)
    empty_term = ratios[()]
    total = sum(ratios.values()) / empty_term
    empty = 1 / total
    idle = {k: sum(p for b, p in ratios.items() if k not in b) / empty_term / total
            for k in model.servers}
    process = ALISProcess(model)
    idle_orders = sum(process.product_form(((), order))
                      for order in itertools.permutations(model.servers))
    constant = idle_orders / empty if discipline == "alis" else 1 / empty
    if name in PUBLISHED:
        assert PUBLISHED[name]["empty"] == empty
        mean_l = {c: t * model.arrival_rates[c] for c, t in PUBLISHED[name]["T"].items()}
    else:
        mean_l = nz.mean_number(model, discipline, method="subset-dp")["per_class"]
        assert nz.empty_probability(model, discipline, method="subset-dp") == empty
    number, time = _means(model, mean_l)
    return {"empty-probability": empty, "normalizing-constant": constant,
            "server-idle-probability": {"per_server": idle},
            "mean-number": number, "mean-response-time": time}


def test_published_value_through_the_cli(capsys):
    data = run_json(capsys, ["evaluate", "w", "empty-probability", "--discipline", "rais",
                             *_sets("w"), "--json"])
    assert data["result"]["exact"] == "663/1216"


@pytest.mark.parametrize("name,discipline,route,word", [
    ("w", "collaborative", "nested", "nested"), ("ring:3", "collaborative", "ring", "ring: arc weights"),
    ("ring:3", "alis", "subset-dp", "subset DP"), ("ring:3", "rais", "subset-dp", "canonical"),
    ("redundancy:4:2", "alis", "redundancy", "symmetry"),
    ("redundancy:4:2", "rais", "redundancy", "canonical")])
def test_method_names_the_algorithm(capsys, name, discipline, route, word):
    values = {"ring:3": ["--set", "lambda_1=1/3", "--set", "lambda_2=1/2", "--set", "lambda_3=1/4",
                         "--set", "mu_1=1", "--set", "mu_2=3/4", "--set", "mu_3=2/3"]}
    data = run_json(capsys, ["derive", name, "empty-probability", "--discipline", discipline,
                             *values.get(name, []), "--method", route, "--json"])
    assert data["route"] == route and word in data["method"]


def test_derive_w_response_time_latex(capsys):
    assert main(["derive", "w", "response-time", "--format", "latex",
                 "--method", "nested-response-time"]) == 0
    out = capsys.readouterr().out
    for part in ("lst", "mean", "variance", "cdf"):
        for c in ("1", "2", "3"):
            assert rf"\text{{{part}}}_{{{c}}} &= " in out  # valid LaTeX: one align* block
    assert r"\begin{align*}" in out and r"\theta" in out and "e^{" in out


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


def test_response_time_in_symbols_under_alis(capsys):
    """ALIS with heterogeneous rates within a class (the wait and the server are dependent): the
    tagged job's transform as a structured formula."""
    assert main(["derive", "w", "response-time", "--discipline", "alis"]) == 0
    out = capsys.readouterr().out
    assert "LST__3 = " in out and "result lst 3: LST__3" in out


def test_unstable_is_exit_2(capsys):
    assert main(["evaluate", "w", "mean-number", "--discipline", "alis",
                 *_sets("w")[:-1], "mu_2=1/100"]) == 2
    assert "unstable" in capsys.readouterr().err


def test_every_discipline_has_every_quantity():
    for discipline in ("collaborative", "alis", "rais"):
        for quantity in QUANTITIES:
            model = symq.model("ring:3")
            select(model, quantity, discipline, arithmetic_for(model, quantity, discipline, None))
