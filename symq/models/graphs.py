r"""Every small compatibility graph, once each up to relabelling of classes and of servers.
A compatibility graph with $J$ classes and $M$ servers is the list of server sets
$S_1, \dots, S_J \subseteq \{1, \dots, M\}$ ([GR20]_, section 2), and two graphs are the same
model when one becomes the other by renaming classes and renaming servers;
:func:`compatibility_graphs` lists each connected graph with at most $J$ classes and $M$ servers
exactly once, as a :class:`CompatibilityGraph` in canonical form (the smallest sorted tuple of
server bitmasks over all $M!$ renamings of the servers), optionally through the filters of
:data:`FILTERS` (``nested``, ``distinct-servers``, ``distinct-classes``). The canonical form, the
filters and how the counts are checked: see docs/sweeps.md.

Examples
--------
>>> from symq.models.graphs import compatibility_graphs
>>> [g.key for g in compatibility_graphs(2, 2)]
['{1}', '{1,2}', '{1},{1}', '{1},{1,2}', '{1,2},{1,2}']
>>> len(compatibility_graphs(3, 3)), len(compatibility_graphs(3, 3, filters=["nested"]))
(28, 22)
>>> g = compatibility_graphs(3, 2)[-1]
>>> g.key, g.to_model().compatibility["3"]
('{1,2},{1,2},{1,2}', ('1', '2'))

References
----------
.. [GR20] K. Gardner and R. Righter, "Product forms for FCFS queueing models with arbitrary
   server-job compatibilities: an overview", Queueing Systems 96 (2020) 3-51. arXiv:2006.05979.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Iterable, Iterator, Mapping, Sequence

from symq.errors import ModelError
from symq.models.model import Model

__all__ = ["CompatibilityGraph", "compatibility_graphs", "canonical_form", "graph_from_key",
           "graph_of_model", "FILTERS", "is_connected", "passes_filters"]

#: filter names accepted by :func:`compatibility_graphs` and ``symq sweep --filter``
FILTERS = {
    "nested": "the server sets S_i form a laminar family (any two disjoint or nested)",
    "distinct-servers": "no two servers serve the same set of classes",
    "distinct-classes": "no two classes have the same server set",
}

_LIMIT = 7  # 7! renamings and 2^7 - 1 server sets per class are still quick; beyond, refuse


def _bits(mask: int) -> list[int]:
    return [k for k in range(mask.bit_length()) if mask >> k & 1]


@dataclass(frozen=True, order=True)
class CompatibilityGraph:
    """A compatibility graph in canonical form: ``rows[i]`` is the bitmask of $S_{i+1}$.

    ``key`` is a readable, unique name such as ``'{1},{1,2}'`` (the N model): the server sets of
    classes 1, 2, ... in order, servers numbered from 1. :func:`graph_from_key` reads it back.
    """

    class_count: int
    server_count: int
    rows: tuple[int, ...]

    @property
    def key(self) -> str:
        return ",".join("{" + ",".join(str(k + 1) for k in _bits(row)) + "}" for row in self.rows)

    @property
    def compatibility(self) -> dict[str, tuple[str, ...]]:
        """Class name to server names, classes and servers named ``"1"``, ``"2"``, ..."""
        return {str(i + 1): tuple(str(k + 1) for k in _bits(row))
                for i, row in enumerate(self.rows)}

    def to_model(self, arrival_rates: Mapping[str, object] | None = None,
                 service_rates: Mapping[str, object] | None = None, name: str = "") -> Model:
        """The model of this graph; symbolic rates ``lambda_i``, ``mu_j`` unless given."""
        compatibility = self.compatibility
        servers = [str(k + 1) for k in range(self.server_count)]
        arrivals = arrival_rates or {i: f"lambda_{i}" for i in compatibility}
        service = service_rates or {j: f"mu_{j}" for j in servers}
        return Model(compatibility=compatibility, arrival_rates=dict(arrivals),
                     service_rates={j: service[j] for j in servers},
                     name=name or f"graph {self.key}")

    def __str__(self) -> str:
        return self.key


def canonical_form(rows: Sequence[int], server_count: int) -> tuple[int, ...]:
    r"""The smallest sorted tuple of server bitmasks over all renamings of the servers.

    Parameters
    ----------
    rows : sequence of int
        One server bitmask per class.
    server_count : int
        $M$, the number of servers (bits).

    Returns
    -------
    tuple of int
        Equal for two graphs exactly when they are the same up to renaming classes and servers.

    Examples
    --------
    >>> canonical_form([0b10, 0b11], 2)
    (1, 3)

    Running time: O(M! J log J) for J classes (M is at most 7 in sweeps).
    """
    best = None
    for perm in itertools.permutations(range(server_count)):
        image = tuple(sorted(sum(1 << perm[k] for k in _bits(row)) for row in rows))
        if best is None or image < best:
            best = image
    assert best is not None
    return best


def is_connected(rows: Sequence[int]) -> bool:
    r"""True when the bipartite graph of the server bitmasks ``rows`` is connected.

    Parameters
    ----------
    rows : sequence of int
        One server bitmask per class; an empty sequence is not connected.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_connected([0b01, 0b10]), is_connected([0b01, 0b11])
    (False, True)

    Running time: O(J^2) mask operations for J classes.
    """
    if not rows:
        return False
    reached, component = rows[0], {0}
    grew = True
    while grew:
        grew = False
        for i, row in enumerate(rows):
            if i not in component and row & reached:
                component.add(i)
                reached |= row
                grew = True
    return len(component) == len(rows)


def _is_nested(rows: Sequence[int]) -> bool:
    return all(not (a & b) or a & b in (a, b) for a, b in itertools.combinations(set(rows), 2))


def _server_columns(rows: Sequence[int], server_count: int) -> list[int]:
    return [sum(1 << i for i, row in enumerate(rows) if row >> k & 1) for k in range(server_count)]


def passes_filters(rows: Sequence[int], server_count: int, filters: Iterable[str]) -> bool:
    r"""True when the graph with server bitmasks ``rows`` passes every filter of :data:`FILTERS`
    (``nested``, ``distinct-classes``, ``distinct-servers``).

    Parameters
    ----------
    rows : sequence of int
        One server bitmask per class.
    server_count : int
        $M$, needed for the server columns.
    filters : iterable of str
        Filter names, already checked by :func:`check_filters`.

    Returns
    -------
    bool
        True for no filters.

    Examples
    --------
    >>> passes_filters([0b01, 0b11], 2, ["nested"]), passes_filters([0b11, 0b11], 2,
    ...                                                             ["distinct-classes"])
    (True, False)

    Running time: O(J^2 + J M) for J classes.
    """
    for name in filters:
        if name == "nested" and not _is_nested(rows):
            return False
        if name == "distinct-classes" and len(set(rows)) < len(rows):
            return False
        if name == "distinct-servers":
            columns = _server_columns(rows, server_count)
            if len(set(columns)) < len(columns):
                return False
    return True


def check_filters(filters: Iterable[str]) -> tuple[str, ...]:
    """The filter names, checked against :data:`FILTERS`.

    Raises
    ------
    ModelError
        An unknown filter name (the message lists the known ones).
    """
    result = []
    for name in filters:
        if name not in FILTERS:
            raise ModelError(f"unknown filter {name!r}; use one of {', '.join(FILTERS)}")
        if name not in result:
            result.append(name)
    return tuple(result)


def _check_size(value: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"the number of {what} must be an int, not {type(value).__name__}")
    if not 1 <= value <= _LIMIT:
        raise ModelError(f"the number of {what} must be from 1 to {_LIMIT}, not {value}")
    return value


def _graphs_of_size(class_count: int, server_count: int) -> Iterator[tuple[int, ...]]:
    """Canonical forms of the connected graphs with exactly these counts (each once)."""
    full = (1 << server_count) - 1
    seen: set[tuple[int, ...]] = set()
    for rows in itertools.combinations_with_replacement(range(1, full + 1), class_count):
        used = 0
        for row in rows:
            used |= row
        if used != full or not is_connected(rows):
            continue
        form = canonical_form(rows, server_count)
        if form not in seen:
            seen.add(form)
            yield form


def compatibility_graphs(max_classes: int, max_servers: int, filters: Iterable[str] = (),
                         exact_size: bool = False) -> list[CompatibilityGraph]:
    r"""Every connected compatibility graph with at most ``max_classes`` classes and
    ``max_servers`` servers, once each up to renaming classes and servers.

    Parameters
    ----------
    max_classes, max_servers : int
        The largest numbers of classes and servers (1 to 7).
    filters : iterable of str
        Names from :data:`FILTERS`; a graph is kept when it passes all of them.
    exact_size : bool
        Only graphs with exactly ``max_classes`` classes and ``max_servers`` servers.

    Returns
    -------
    list of CompatibilityGraph
        Sorted by number of classes, then servers, then canonical form.

    Raises
    ------
    ModelError
        A size outside 1..7 or an unknown filter.
    TypeError
        A size that is not an int.

    Examples
    --------
    >>> [str(g) for g in compatibility_graphs(2, 2)]
    ['{1}', '{1,2}', '{1},{1}', '{1},{1,2}', '{1,2},{1,2}']

    Running time: O(C(2^M + J, J) M! J) over the multisets of J nonempty server sets, for each
    size up to the maxima (the sweep limit of :mod:`symq.limits` bounds it).
    """
    max_classes = _check_size(max_classes, "classes")
    max_servers = _check_size(max_servers, "servers")
    filters = check_filters(filters)
    result = []
    class_counts = [max_classes] if exact_size else range(1, max_classes + 1)
    server_counts = [max_servers] if exact_size else range(1, max_servers + 1)
    for j in class_counts:
        for m in server_counts:
            for rows in sorted(_graphs_of_size(j, m)):
                if passes_filters(rows, m, filters):
                    result.append(CompatibilityGraph(j, m, rows))
    return result


_KEY = re.compile(r"\{([0-9]+(?:,[0-9]+)*)\}", re.ASCII)


def graph_from_key(key: str) -> CompatibilityGraph:
    r"""The graph named ``key`` (``'{1},{1,2}'``), brought to canonical form.

    Parameters
    ----------
    key : str
        Server sets of the classes in braces, servers numbered 1..M.

    Returns
    -------
    CompatibilityGraph
        Its ``key`` may differ from the argument (canonical renaming).

    Raises
    ------
    ModelError
        A malformed key, or servers that are not numbered 1..M without gaps.

    Examples
    --------
    >>> str(graph_from_key("{2},{1,2}"))
    '{1},{1,2}'

    Running time: O(M! J log J) for the canonical form.
    """
    sets = _KEY.findall(key)
    if not sets or ",".join("{" + s + "}" for s in sets) != key.replace(" ", ""):
        raise ModelError(f"graph key {key!r} is malformed; write server sets like '{{1}},{{1,2}}'")
    numbers = [[int(k) for k in s.split(",")] for s in sets]
    if min(min(s) for s in numbers) < 1:
        raise ModelError(f"graph key {key!r}: number the servers 1..M without gaps")
    rows = [sum(1 << (k - 1) for k in s) for s in numbers]
    used = 0
    for row in rows:
        used |= row
    server_count = used.bit_length()
    if used != (1 << server_count) - 1:
        raise ModelError(f"graph key {key!r}: number the servers 1..M without gaps")
    return CompatibilityGraph(len(rows), server_count, canonical_form(rows, server_count))


def graph_of_model(model: Model) -> CompatibilityGraph:
    r"""The canonical graph of a model (its names and rates forgotten).

    Parameters
    ----------
    model : Model
        Any model; only the compatibility sets are read (classes and servers are renumbered
        in their order).

    Returns
    -------
    CompatibilityGraph
        In canonical form.

    Examples
    --------
    >>> from symq import model
    >>> str(graph_of_model(model("w")))
    '{1},{2},{1,2}'

    Running time: O(M! J log J) for J classes and M servers.
    """
    index = {j: k for k, j in enumerate(model.servers)}
    rows = [sum(1 << index[j] for j in model.compatibility[i]) for i in model.classes]
    return CompatibilityGraph(len(rows), len(index), canonical_form(rows, len(index)))
