"""The Model value: set functions, reductions, substitution, graph view."""

from fractions import Fraction

import networkx as nx
import pytest
import sympy

import symq
from symq import Model
from symq.models.rates import positive_symbol

lam = {i: positive_symbol(f"lambda_{i}") for i in "123"}
mu = {j: positive_symbol(f"mu_{j}") for j in "12"}


def test_w_set_functions():
    w = symq.model("w")
    assert w.classes == ("1", "2", "3") and w.servers == ("1", "2")
    assert w.servers_of(["1"]) == ("1",)
    assert w.servers_of(["1", "2"]) == ("1", "2")
    assert w.classes_of(["1"]) == ("1", "3")
    assert w.only_served_by(["1"]) == ("1",)
    assert w.only_served_by(["1", "2"]) == ("1", "2", "3")
    assert w.arrival_rate(["1", "3"]) == lam["1"] + lam["3"]
    assert w.service_rate() == mu["1"] + mu["2"]
    assert all(s.is_positive for s in w.symbols)


def test_remove_servers_is_the_reduced_system():
    w = symq.model("w")
    reduced = w.remove_servers(["1"])
    assert reduced.classes == ("2",) and reduced.servers == ("2",)
    assert w.remove_servers(["1", "2"]).is_empty


def test_remove_classes_drops_idle_servers():
    w = symq.model("w")
    left = w.remove_classes(["2", "3"])
    assert left.classes == ("1",) and left.servers == ("1",)


def test_substitute_makes_numeric_model():
    w = symq.model("w").substitute({"lambda_1": "3/10", "mu_1": "0.5"})
    assert w.arrival_rates["1"] == sympy.Rational(3, 10)
    assert w.service_rates["1"] == sympy.Rational(1, 2)
    assert not w.is_numeric
    assert {s.name for s in w.symbols} == {"lambda_2", "lambda_3", "mu_2"}


def test_graph_view_is_bipartite():
    g = symq.model("ring:3").graph()
    assert nx.is_bipartite(g)
    assert g.number_of_edges() == 6
    assert g.nodes[("class", "1")]["bipartite"] == 0


def test_model_is_a_frozen_hashable_value():
    a, b = symq.model("n"), symq.model("n")
    assert a == b and hash(a) == hash(b)
    with pytest.raises(Exception):
        a.name = "other"


def test_toml_round_trip(tmp_path):
    w = symq.model("w").substitute({"lambda_1": "3/10"})
    path = tmp_path / "w.toml"
    path.write_text(w.to_toml())
    assert symq.load(path) == w


def test_rates_accept_int_fraction_string_and_sympy():
    m = Model(compatibility={"a": ["x"]}, arrival_rates={"a": Fraction(1, 3)},
              service_rates={"x": 2})
    assert m.arrival_rates["a"] == sympy.Rational(1, 3)
    # a symbol given without positivity is rebuilt as a positive symbol
    m = Model(compatibility={"a": ["x"]}, arrival_rates={"a": sympy.Symbol("l")},
              service_rates={"x": "m + 1"})
    assert m.arrival_rates["a"].is_positive


@pytest.mark.parametrize("name,classes", [("n", 2), ("w", 3), ("nested", 5),
                                          ("redundancy:4:2", 6), ("uninformed:3", 1),
                                          ("ring:4", 4)])
def test_builtins(name, classes):
    assert len(symq.model(name).classes) == classes


def test_redundancy_rates():
    r = symq.model("redundancy:4:2")
    assert r.arrival_rates["1,2"] == positive_symbol("lambda") / 6
    assert r.servers_of(["1,2"]) == ("1", "2")


def test_jupyter_latex_display():
    text = symq.model("w")._repr_latex_()
    assert text.startswith("$") and r"\lambda_{3}" in text and r"\{1, 2\}" in text
    value = symq.evaluate(sympy.Rational(9, 14), digits=5)
    assert value._repr_latex_() == r"$\frac{9}{14} \approx 0.64286$"
