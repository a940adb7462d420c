"""Sweep throughput: graphs per second at J = M = 4, and the enumeration against brute force.

Run ``python benchmarks/sweep_bench.py [--workers N]``. Prints

* the time to list every connected graph with at most 3 classes and 3 servers by canonical forms
  (symq.models.graphs) and by the brute-force route of the tests (every labelled matrix, grouped by
  networkx isomorphism), with the ratio, and the time for J = M = 4 by canonical forms;
* graphs per second for a symbolic check (``nested``: Prop 6.2 against the nested closed form on
  the nested graphs, as rational functions) and a numeric check (``stability`` with
  ``random:3``: max-flow against subset enumeration on three rate vectors per graph) at
  J = M = 4, in this process and on a process pool, with the speed-up.
"""

from __future__ import annotations

import argparse
import itertools
import os
import time

import networkx as nx
from networkx.algorithms.isomorphism import categorical_node_match

from symq.models.graphs import compatibility_graphs
from symq.studies.sweep import InlineExecutor, make_executor, sweep


def brute_force_count(classes: int, servers: int) -> int:
    """Connected graphs up to relabelling, by networkx isomorphism over all labelled matrices."""
    match = categorical_node_match("side", None)
    found = 0
    for j in range(1, classes + 1):
        for m in range(1, servers + 1):
            representatives: list[nx.Graph] = []
            for cells in itertools.product((0, 1), repeat=j * m):
                g = nx.Graph()
                g.add_nodes_from(((("c", i), {"side": 0}) for i in range(j)))
                g.add_nodes_from(((("s", k), {"side": 1}) for k in range(m)))
                g.add_edges_from((("c", i), ("s", k)) for i in range(j) for k in range(m)
                                 if cells[i * m + k])
                if nx.is_connected(g) and not any(nx.is_isomorphic(g, h, node_match=match)
                                                  for h in representatives):
                    representatives.append(g)
            found += len(representatives)
    return found


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    listed, fast = timed(compatibility_graphs, 3, 3)
    brute, slow = timed(brute_force_count, 3, 3)
    assert len(listed) == brute, (len(listed), brute)
    print(f"enumeration J=M=3: {len(listed)} graphs; canonical forms {fast:.3f} s, networkx "
          f"brute force {slow:.3f} s, ratio {slow / fast:.0f}x")
    four, seconds = timed(compatibility_graphs, 4, 4)
    print(f"enumeration J=M=4: {len(four)} graphs in {seconds:.2f} s")

    for check, rates, filters in (("nested", "symbolic", ["nested"]),
                                  ("stability", "random:3", [])):
        inline = sweep(check, 4, 4, filters=filters, rates=rates, executor=InlineExecutor(),
                       progress=False)
        assert inline.ok, inline.to_dict()
        with make_executor(args.workers) as pool:
            pooled = sweep(check, 4, 4, filters=filters, rates=rates, executor=pool,
                           progress=False)
        assert pooled.ok
        label = f"{check} ({rates}{', ' + '+'.join(filters) if filters else ''})"
        print(f"{label:32s} J=M=4: {inline.graphs} graphs; in-process "
              f"{inline.graphs / inline.seconds:7.1f} graphs/s; pool of {args.workers} "
              f"{pooled.graphs / pooled.seconds:7.1f} graphs/s "
              f"(speed-up {inline.seconds / pooled.seconds:.2f}x)")


if __name__ == "__main__":
    main()
