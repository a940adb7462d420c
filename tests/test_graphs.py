"""Enumeration of compatibility graphs (symq.models.graphs) against brute force.

The independent route: every labelled J x M biadjacency matrix, kept when connected (networkx) and
passing the filters written out again here from their definitions, grouped into isomorphism
classes by networkx's isomorphism test with the bipartite side as node label (classes may only map
to classes). Orbit-stabiliser gives a second count: the labelled graphs of one class number
J! M! / |Aut|, so the labelled total is the sum of J! M! / |Aut| over the listed graphs.
"""

import itertools
import math

import networkx as nx
import pytest
from networkx.algorithms.isomorphism import GraphMatcher, categorical_node_match

from symq.errors import ModelError
from symq.models.graphs import (FILTERS, CompatibilityGraph, compatibility_graphs, graph_from_key,
                         graph_of_model)
import symq

SIDE = categorical_node_match("side", None)


def _graph(matrix, classes, servers):
    g = nx.Graph()
    g.add_nodes_from((("c", i), {"side": "class"}) for i in range(classes))
    g.add_nodes_from((("s", k), {"side": "server"}) for k in range(servers))
    g.add_edges_from((("c", i), ("s", k)) for i in range(classes) for k in range(servers)
                     if matrix[i][k])
    return g


def _passes(matrix, classes, servers, filters):
    server_sets = [frozenset(k for k in range(servers) if matrix[i][k]) for i in range(classes)]
    class_sets = [frozenset(i for i in range(classes) if matrix[i][k]) for k in range(servers)]
    if "nested" in filters and any(a & b and not (a <= b or b <= a)
                                   for a, b in itertools.combinations(server_sets, 2)):
        return False
    if "distinct-classes" in filters and len(set(server_sets)) < classes:
        return False
    if "distinct-servers" in filters and len(set(class_sets)) < servers:
        return False
    return True


def brute_force(classes, servers, filters=()):
    """(isomorphism classes, labelled graphs) of connected graphs with exactly these sizes."""
    representatives, labelled = [], 0
    for cells in itertools.product((0, 1), repeat=classes * servers):
        matrix = [cells[i * servers:(i + 1) * servers] for i in range(classes)]
        g = _graph(matrix, classes, servers)
        if not nx.is_connected(g) or not _passes(matrix, classes, servers, filters):
            continue
        labelled += 1
        if not any(nx.is_isomorphic(g, h, node_match=SIDE) for h in representatives):
            representatives.append(g)
    return len(representatives), labelled


def automorphisms(graph: CompatibilityGraph) -> int:
    g = _graph([[row >> k & 1 for k in range(graph.server_count)] for row in graph.rows],
               graph.class_count, graph.server_count)
    return sum(1 for _ in GraphMatcher(g, g, node_match=SIDE).isomorphisms_iter())


FILTER_SETS = [(), ("nested",), ("distinct-servers",), ("distinct-classes",),
               ("distinct-servers", "distinct-classes"), ("nested", "distinct-servers")]


@pytest.mark.parametrize("filters", FILTER_SETS, ids=lambda f: "+".join(f) or "all")
def test_counts_match_brute_force_for_every_size_up_to_3(filters):
    for classes, servers in itertools.product(range(1, 4), repeat=2):
        listed = compatibility_graphs(classes, servers, filters, exact_size=True)
        expected, labelled = brute_force(classes, servers, filters)
        assert len(listed) == expected, (classes, servers, filters)
        # orbit-stabiliser: each listed graph stands for J! M! / |Aut| labelled ones
        orbits = sum(math.factorial(classes) * math.factorial(servers) // automorphisms(g)
                     for g in listed)
        assert orbits == labelled, (classes, servers, filters)


def test_listed_graphs_are_pairwise_non_isomorphic_at_4_by_3():
    listed = compatibility_graphs(4, 3, exact_size=True)
    graphs = [g.to_model().graph() for g in listed]
    side = categorical_node_match("bipartite", None)
    for a, b in itertools.combinations(range(len(graphs)), 2):
        if sorted(d for _, d in graphs[a].degree()) == sorted(d for _, d in graphs[b].degree()):
            assert not nx.is_isomorphic(graphs[a], graphs[b], node_match=side), \
                (listed[a].key, listed[b].key)


def test_cumulative_lists_are_the_union_of_exact_sizes():
    total = compatibility_graphs(3, 3)
    parts = [g for j in range(1, 4) for m in range(1, 4)
             for g in compatibility_graphs(j, m, exact_size=True)]
    assert sorted(total) == sorted(parts)
    assert len({g.key for g in total}) == len(total)


def test_transposed_sizes_have_equal_counts():
    """Swapping the roles of classes and servers is a bijection of unfiltered graphs."""
    assert len(compatibility_graphs(4, 3, exact_size=True)) == \
        len(compatibility_graphs(3, 4, exact_size=True))


def test_keys_round_trip_and_name_the_catalog_models():
    for g in compatibility_graphs(3, 3):
        assert graph_from_key(g.key) == g
        assert graph_of_model(g.to_model()) == g
    assert graph_of_model(symq.model("n")).key == "{1},{1,2}"
    assert graph_of_model(symq.model("w")).key == "{1},{2},{1,2}"
    assert graph_from_key("{2},{1,2}") == graph_of_model(symq.model("n"))


def test_models_have_symbolic_rates_named_after_classes_and_servers():
    model = graph_from_key("{1},{2},{1,2}").to_model()
    assert sorted(s.name for s in model.symbols) == ["lambda_1", "lambda_2", "lambda_3",
                                                     "mu_1", "mu_2"]


@pytest.mark.parametrize("key", ["", "{}", "{1},{3}", "{0}", "1,2", "{1},,{2}"])
def test_bad_keys_are_rejected(key):
    with pytest.raises(ModelError, match="graph key"):
        graph_from_key(key)


def test_bad_sizes_and_filters_are_rejected():
    with pytest.raises(ModelError, match="unknown filter 'laminar'"):
        compatibility_graphs(2, 2, ["laminar"])
    with pytest.raises(ModelError, match="number of servers must be from 1 to 7, not 0"):
        compatibility_graphs(2, 0)
    with pytest.raises(TypeError, match="number of classes must be an int"):
        compatibility_graphs("2", 2)
    assert set(FILTERS) == {"nested", "distinct-servers", "distinct-classes"}
