"""The supermarket decomposition: max-flow vs brute force, the certificate, stability, symbols.

Independent routes: the breakpoint search on exact max-flows (symq.studies.supermarket.decompose) against
stage-wise enumeration of station subsets (brute_force_decomposition), the certificate of
docs/theory-supermarket.md §3.5 on every output, the foundation's max-flow stability check for
w = 1, the worked examples (a) and (b) of docs/supermarket.md and the weighted counterexample of
docs/theory-supermarket.md §3.9.
"""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction

import networkx as nx
import pytest
import sympy
from hypothesis import given, settings, strategies as st

from symq import Model

from symq import model as builtin
from symq.cli import main
from symq.errors import ModelError, VerificationError
from symq.models.stability import stability_report
from symq.studies.supermarket import (Cluster, Decomposition, brute_force_decomposition,
                              certify_decomposition, check_policy, decompose,
                              decomposition_latex, drift_rates, parse_weights)

R = sympy.Rational


# ----------------------------------------------------------------------------- instances
def example_a() -> Model:
    """Example (a) of docs/supermarket.md: stations 1..5, streams a..e."""
    return Model(compatibility={"a": ["1", "2"], "b": ["2", "3"], "c": ["3"], "d": ["4", "5"],
                                "e": ["1", "5"]},
                 arrival_rates={"a": "3/2", "b": 1, "c": 2, "d": "1/2", "e": "1/4"},
                 service_rates={"1": 1, "2": "1/2", "3": 1, "4": 1, "5": "1/3"})


def example_b() -> Model:
    """Example (b) of docs/supermarket.md."""
    return Model(compatibility={"a": ["1"], "b": ["1", "2"], "c": ["2", "3"], "d": ["3", "4"],
                                "e": ["4"]},
                 arrival_rates={"a": 2, "b": 4, "c": "1/2", "d": "1/2", "e": "1/2"},
                 service_rates={"1": 1, "2": 2, "3": 1, "4": 1})


def rationals(high=8, denominators=4):
    return st.builds(Fraction, st.integers(1, high), st.integers(1, denominators))


@st.composite
def supermarket_instances(draw, max_stations=6, max_streams=7, weighted=None):
    """(model, weights): random neighbourhoods covering every station, rational data."""
    count = draw(st.integers(1, max_stations))
    stations = [str(j) for j in range(1, count + 1)]
    neighbourhoods = draw(st.lists(st.sets(st.sampled_from(stations), min_size=1, max_size=count),
                                   min_size=1, max_size=max_streams))
    uncovered = [j for j in stations if not any(j in s for s in neighbourhoods)]
    for j in uncovered:  # every server of a Model serves some class
        neighbourhoods[draw(st.integers(0, len(neighbourhoods) - 1))].add(j)
    classes = {f"s{n}": sorted(s, key=int) for n, s in enumerate(neighbourhoods)}
    model = Model(compatibility=classes,
                  arrival_rates={i: draw(rationals()) for i in classes},
                  service_rates={j: draw(rationals()) for j in stations})
    if weighted is None:
        weighted = draw(st.booleans())
    weights = ({j: draw(rationals(6, 3)) for j in stations} if weighted else {})
    return model, weights


def shape(decomposition):
    return [(c.stations, c.drift) for c in decomposition.clusters]


# ----------------------------------------------------------------------------- known cases
def test_example_a_matches_the_note():
    d = decompose(example_a())
    assert shape(d) == [(("3",), 1), (("1", "2"), R(1, 2)), (("5",), R(-1, 12)),
                        (("4",), R(-1, 2))]
    assert [c.streams for c in d.clusters] == [("c",), ("a", "b"), ("e",), ("d",)]
    # the unique policy of Pi_K: a->1, b->2, c->3, d->4, e->5
    assert {i: [j for j, p in row.items() if p == 1] for i, row in d.policy.items()} == \
        {"a": ["1"], "b": ["2"], "c": ["3"], "d": ["4"], "e": ["5"]}
    assert d.stable is False and d.violating_cluster.stations == ("3",)
    assert [c.bonded for c in d.clusters] == [True, False, True, True]  # {2} alone also gives 1/2
    certify_decomposition(d)


@pytest.mark.parametrize("weights, top, policy_b", [({}, R(3, 2), (R(1, 8), R(7, 8))),
                                                    ({"2": 2}, R(2), (R(1, 4), R(3, 4)))])
def test_example_b_weighted_and_not(weights, top, policy_b):
    d = decompose(example_b(), weights)
    assert shape(d) == [(("1", "2"), top), (("3", "4"), R(-1, 4))]
    assert tuple(d.policy["b"].values()) == policy_b
    assert all(c.bonded for c in d.clusters)
    certify_decomposition(d)


def test_weighted_counterexample_uses_harmonic_weights():
    """docs/theory-supermarket.md §3.9: the |D|-average of the source would give 1/2; the true value is 4/3."""
    m = Model(compatibility={"a": ["1", "2"]}, arrival_rates={"a": 4},
              service_rates={"1": 1, "2": 1})
    d = decompose(m, {"2": 2})
    assert shape(d) == [(("1", "2"), R(4, 3))]
    assert d.policy == {"a": {"1": R(7, 12), "2": R(5, 12)}}
    assert shape(brute_force_decomposition(m, {"2": 2})) == shape(d)


def test_drift_rates_eq_1_1_symbolic():
    v = drift_rates(builtin("w"), {"1": {"1": 1}, "2": {"2": 1}, "3": {"1": "1/3", "2": "2/3"}})
    lam1, lam3, mu1 = (sympy.Symbol(n, positive=True) for n in ("lambda_1", "lambda_3", "mu_1"))
    assert sympy.simplify(v["1"] - (lam1 + lam3 / 3 - mu1)) == 0


# ----------------------------------------------------------------------------- max-flow vs brute force
@settings(max_examples=200, deadline=None)
@given(supermarket_instances())
def test_max_flow_equals_brute_force(instance):
    """Clusters and drifts exactly equal; the certificate accepts the max-flow output."""
    model, weights = instance
    d = decompose(model, weights)
    assert shape(d) == shape(brute_force_decomposition(model, weights))
    assert all(a.drift > b.drift for a, b in zip(d.clusters, d.clusters[1:]))
    certify_decomposition(d)


def _ratio(model, weights, assigned, subset):
    w = parse_weights(model, weights)
    forced = sum((model.arrival_rates[i] for i in model.classes
                  if set(model.compatibility[i]) <= assigned | set(subset)
                  and not set(model.compatibility[i]) <= assigned), sympy.Integer(0))
    return (forced - model.service_rate(subset)) / sum(1 / w[j] for j in subset)


@settings(max_examples=60, deadline=None)
@given(supermarket_instances(max_stations=5))
def test_policy_achieves_every_drift_and_is_valid(instance):
    """w_j V(j; pi) = V_k on every station of C_k; probabilities valid; bonded iff unique maximiser."""
    model, weights = instance
    d = decompose(model, weights)
    w = parse_weights(model, weights)
    for i, row in d.policy.items():
        assert set(row) == set(model.compatibility[i])  # zero outside S_i (absent)
        assert all(p >= 0 for p in row.values())
        assert sum(row.values()) == 1
    drift = drift_rates(model, d.policy)
    assigned: set[str] = set()
    for cluster in d.clusters:
        for j in cluster.stations:
            assert w[j] * drift[j] == cluster.drift
        maximisers = [s for n in range(1, len(cluster.stations) + 1)
                      for s in itertools.combinations(cluster.stations, n)
                      if _ratio(model, weights, assigned, s) == cluster.drift]
        assert cluster.bonded == (maximisers == [cluster.stations])
        assigned |= set(cluster.stations)


@settings(max_examples=40, deadline=None)
@given(supermarket_instances(max_stations=5), st.lists(rationals(12, 5), min_size=1, max_size=4),
       st.booleans())
def test_parametric_identity(instance, levels, negative):
    """docs/theory-supermarket.md §3.6: max_D [lambda(D) - mu(D) - v H(D)] = sum_k H(C_k) (V_k - v)^+ for every v."""
    model, weights = instance
    d = decompose(model, weights)
    w = parse_weights(model, weights)
    for level in levels:
        v = R(-level if negative else level) if level else R(0)
        best = sympy.Integer(0)
        for n in range(1, len(model.servers) + 1):
            for subset in itertools.combinations(model.servers, n):
                value = (model.arrival_rate(model.only_served_by(subset)) if model.only_served_by(subset)
                         else 0) - model.service_rate(subset) - v * sum(1 / w[j] for j in subset)
                best = max(best, value)
        assert best == sum(sum(1 / w[j] for j in c.stations) * max(c.drift - v, 0)
                           for c in d.clusters)


@pytest.mark.parametrize("flow_func", [nx.algorithms.flow.preflow_push, nx.algorithms.flow.dinitz,
                                       nx.algorithms.flow.edmonds_karp,
                                       nx.algorithms.flow.shortest_augmenting_path])
def test_every_networkx_flow_algorithm_gives_the_same_decomposition(flow_func):
    rng = random.Random(7)
    for _ in range(15):
        stations = [str(j) for j in range(1, 7)]
        classes = {f"s{n}": rng.sample(stations, rng.randint(1, 3)) for n in range(8)}
        classes["all"] = stations
        m = Model(compatibility=classes,
                  arrival_rates={i: Fraction(rng.randint(1, 8), rng.randint(1, 4)) for i in classes},
                  service_rates={j: Fraction(rng.randint(1, 8), rng.randint(1, 4)) for j in stations})
        weights = {j: Fraction(rng.randint(1, 5), rng.randint(1, 3)) for j in stations}
        d = decompose(m, weights, flow_func=flow_func)
        assert shape(d) == shape(decompose(m, weights))
        certify_decomposition(d)


# ----------------------------------------------------------------------------- the certificate fails
def _mutants(d: Decomposition):
    clusters = list(d.clusters)
    first = clusters[0]
    yield "drift", [Cluster(first.stations, first.drift + R(1, 1000), first.streams)] + clusters[1:]
    if len(clusters) > 1:
        merged = Cluster(clusters[0].stations + clusters[1].stations, clusters[0].drift,
                         clusters[0].streams + clusters[1].streams)
        yield "merge", [merged] + clusters[2:]
        moved = Cluster(clusters[1].stations + clusters[0].stations[:1], clusters[1].drift,
                        clusters[1].streams)
        rest = Cluster(clusters[0].stations[1:], clusters[0].drift, clusters[0].streams)
        yield "move", ([rest] if rest.stations else []) + [moved] + clusters[2:]
    big = max(clusters, key=lambda c: len(c.stations))
    if len(big.stations) > 1:
        k = clusters.index(big)
        halves = [Cluster(big.stations[:1], big.drift, big.streams),
                  Cluster(big.stations[1:], big.drift, ())]
        yield "split", clusters[:k] + halves + clusters[k + 1:]


def test_certificate_rejects_mutated_decompositions():
    """Checkers that can fail: drift +1/1000, merge, move, split, and a perturbed policy."""
    rejected = 0
    for m, weights in [(example_a(), {}), (example_b(), {"2": 2}), (example_b(), {})]:
        d = decompose(m, weights)
        for what, clusters in _mutants(d):
            wrong = Decomposition(d.model, d.weights, tuple(clusters), d.policy)
            with pytest.raises(VerificationError):
                certify_decomposition(wrong)
            rejected += 1
        policy = {i: dict(row) for i, row in d.policy.items()}
        stream = next(i for i, row in policy.items() if len(row) > 1)
        first, second = list(policy[stream])[:2]
        shift = min(R(1, 1000), policy[stream][first]) or -R(1, 1000)
        policy[stream][first] -= shift
        policy[stream][second] += shift
        with pytest.raises(VerificationError):
            certify_decomposition(Decomposition(d.model, d.weights, d.clusters, policy))
        rejected += 1
    assert rejected >= 10


def test_certificate_rejects_invalid_policy():
    d = decompose(example_b())
    policy = {i: dict(row) for i, row in d.policy.items()}
    policy["b"]["1"] = R(-1, 8)
    with pytest.raises(VerificationError, match="not valid"):
        certify_decomposition(Decomposition(d.model, d.weights, d.clusters, policy))


# ----------------------------------------------------------------------------- stability
@settings(max_examples=60, deadline=None)
@given(supermarket_instances(max_stations=7, max_streams=8, weighted=False),
       st.dictionaries(st.sampled_from([str(j) for j in range(1, 8)]), rationals(6, 3)))
def test_stability_agrees_with_foundation_max_flow(instance, reweighting):
    """w = 1: V_1 < 0 iff lambda(A) < mu(S(A)) for all A (symq.models.stability); sign independent of w."""
    model, _ = instance
    d = decompose(model)
    assert d.stable == stability_report(model).stable
    weights = {j: w for j, w in reweighting.items() if j in model.servers}
    reweighted = decompose(model, weights)
    assert reweighted.stable == d.stable
    if d.top_drift == 0:  # theory-supermarket §5: C_1 does not depend on w when V_1 = 0
        assert reweighted.clusters[0].stations == d.clusters[0].stations


def test_stable_verdict_names_violating_cluster():
    d = decompose(example_a())
    assert "cluster {'3'}" in d.message() and "bring 2" in d.message()
    stable = decompose(example_a().substitute({}) if False else Model(
        compatibility={"a": ["1", "2"]}, arrival_rates={"a": 1}, service_rates={"1": 1, "2": 1}))
    assert stable.stable is True and stable.violating_cluster is None
    critical = decompose(Model(compatibility={"a": ["1", "2"]}, arrival_rates={"a": 2},
                               service_rates={"1": 1, "2": 1}))
    assert critical.top_drift == 0 and critical.stable is False  # null recurrent: not stable


# ----------------------------------------------------------------------------- symbolic rates
@pytest.mark.parametrize("name, stations", [("redundancy:3:1", 3), ("redundancy:4:2", 4),
                                            ("redundancy:4:3", 4)])
def test_symbolic_drift_when_structure_is_value_free(name, stations):
    d = decompose(builtin(name))
    assert len(d.clusters) == 1 and d.policy is None
    lam, mu = sympy.Symbol("lambda", positive=True), sympy.Symbol("mu", positive=True)
    assert sympy.simplify(d.top_drift - (lam / stations - mu)) == 0
    assert d.stable is None
    for values in [{"lambda": "3", "mu": "2"}, {"lambda": "7/2", "mu": "1/3"}]:
        numeric = decompose(builtin(name).substitute(values))
        assert numeric.top_drift == d.top_drift.subs({lam: R(values["lambda"]),
                                                      mu: R(values["mu"])})


def test_symbolic_two_clusters_and_latex():
    m = Model(compatibility={"a": ["1"], "b": ["1", "2"]}, arrival_rates={"a": "2*mu", "b": "mu"},
              service_rates={"1": "mu", "2": "mu"})
    d = decompose(m)
    mu = sympy.Symbol("mu", positive=True)
    assert shape(d) == [(("1",), mu), (("2",), 0)]
    assert d.stable is False
    table = decomposition_latex(d)
    assert r"1 & $\{1\}$ & $\mu$ & $\{a\}$ \\" in table
    for value in ["1", "5/3"]:
        numeric = decompose(m.substitute({"mu": value}))
        assert shape(numeric) == [(c, v.subs(mu, R(value))) for c, v in shape(d)]


def test_symbolic_structure_that_depends_on_values_asks_for_them():
    with pytest.raises(ModelError, match=r"depend on the values of .*lambda.*--set"):
        decompose(builtin("w"))
    with pytest.raises(ModelError, match=r"lambda_2, mu_1, mu_2"):
        decompose(builtin("n").substitute({"lambda_1": 1}))


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("weights, match", [
    ({"9": 2}, "unknown station '9'"),
    ({"1": 0}, "station '1' is 0"),
    ({"2": -1}, "station '2' is -1"),
    ({"1": 0.5}, "station '1' is the float 0.5"),
    ({"1": "x"}, "station '1' is x.*not symbols"),
    ({"1": "sqrt(2)"}, "station '1'.*not a rational"),
])
def test_bad_weights_name_the_culprit(weights, match):
    with pytest.raises(ModelError, match=match):
        decompose(example_a(), weights)


def test_wrong_types():
    with pytest.raises(TypeError):
        decompose(example_a(), [("1", 2)])
    with pytest.raises(TypeError):
        decompose("w")


@pytest.mark.parametrize("policy, match", [
    ({"1": {"1": 1}, "2": {"2": 1}}, "does not route class '3'"),
    ({"1": {"2": 1}, "2": {"2": 1}, "3": {"1": 1}}, "not in its neighbourhood"),
    ({"1": {"1": 1}, "2": {"2": 1}, "3": {"1": "1/2"}}, "sum to 1/2"),
    ({"1": {"1": 1}, "2": {"2": 1}, "3": {"1": "3/2", "2": "-1/2"}}, "negative"),
    ({"1": {"1": 1}, "2": {"2": 1}, "3": {"1": 1}, "9": {"1": 1}}, "unknown class '9'"),
])
def test_invalid_policies(policy, match):
    with pytest.raises(ModelError, match=match):
        check_policy(builtin("w"), policy)


# ----------------------------------------------------------------------------- command line
def test_cli_json_contract(tmp_path, capsys):
    path = tmp_path / "a.toml"
    path.write_text(example_a().to_toml())
    assert main(["supermarket", str(path), "--weights", "2=2", "1=1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"model", "weights", "clusters", "stable"} <= set(data)
    assert data["weights"]["2"] == "2" and data["stable"] is False
    d = decompose(example_a(), {"2": 2})
    assert [(c["stations"], c["drift"]) for c in data["clusters"]] == \
        [(list(c.stations), str(c.drift)) for c in d.clusters]
    assert data["clusters"][1]["value"] == "0.500000000000000000000000000000"
    assert data["violating_cluster"] == ["2", "3"]


def test_cli_set_text_and_latex(capsys):
    args = ["supermarket", "w", "--set", "lambda_1=2", "--set", "lambda_2=1/2", "--set",
            "lambda_3=1", "--set", "mu_1=1", "--set", "mu_2=1"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "{1}" in out and "unstable" in out and "1/2 = 0.5" in out
    assert main(args + ["--format", "latex"]) == 0
    assert r"\begin{tabular}" in capsys.readouterr().out


@pytest.mark.parametrize("extra, match", [(["--weights", "7=1"], "unknown station '7'"),
                                          (["--weights", "1=0"], "station '1' is 0"),
                                          (["--weights", "1"], "STATION=VALUE"),
                                          ([], "depend on the values")])
def test_cli_bad_input_exit_2(extra, match, capsys):
    assert main(["supermarket", "w"] + extra) == 2
    err = capsys.readouterr().err
    assert err.startswith("symq: error:") and len(err.strip().splitlines()) == 1
    assert pytest.importorskip("re").search(match, err)


# ----------------------------------------------------------------------------- documentation
def test_docs_page_and_module_examples_run():
    """docs/supermarket.md and the docstrings of the symq.studies.supermarket modules are doctests."""
    import doctest
    import importlib
    from pathlib import Path

    import symq.studies.supermarket

    page = Path(__file__).resolve().parents[1] / "docs" / "supermarket.md"
    assert doctest.testfile(str(page), module_relative=False).failed == 0
    for name in ("", ".policy", ".clusters", ".maxflow", ".decomposition", ".signs", ".simulation"):
        module = importlib.import_module("symq.studies.supermarket" + name)
        assert doctest.testmod(module).failed == 0, module.__name__


def test_docs_console_example_is_current(tmp_path, capsys):
    """The text output shown in docs/supermarket.md is what the command prints."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "supermarket.md").read_text()
    path = tmp_path / "example-a.toml"
    path.write_text(page.split("```toml\n", 1)[1].split("```", 1)[0])
    assert main(["supermarket", str(path), "--digits", "6"]) == 0
    shown = page.split("$ symq supermarket example-a.toml --digits 6\n", 1)[1].split("```", 1)[0]
    assert capsys.readouterr().out == shown


def test_symbolic_limits():
    from symq.errors import UnsupportedError

    with pytest.raises(UnsupportedError, match="15 stations"):
        decompose(builtin("redundancy:15:1"))
    irrational = Model(compatibility={"a": ["1"]}, arrival_rates={"a": "sqrt(2)"},
                       service_rates={"1": 2})
    with pytest.raises(ModelError, match="arrival rate of class 'a' is sqrt\\(2\\).*rational"):
        decompose(irrational)
