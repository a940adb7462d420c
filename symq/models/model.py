r"""The :class:`Model`: job classes, servers, their compatibility graph and exact rates.
The notation follows Gardner and Righter [GR20]_, section 2 and Table 1: class $i$ arrives at
rate $\lambda_i$ and can be served by the servers $S_i$, server $j$ works at rate $\mu_j$ and can
serve the classes $C_j$; the set functions $S(A)$, $C(B)$ and $R(B)$: see
docs/theory-subset-dp.md.

References
----------
.. [GR20] K. Gardner and R. Righter, "Product forms for FCFS queueing models with arbitrary
   server-job compatibilities: an overview", Queueing Systems 96 (2020) 3-51. arXiv:2006.05979.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from symq._lazy import lazy_module
nx = lazy_module("networkx")  # imported on first use (start-up time)
import sympy

from symq.errors import ArgumentTypeError, ModelError
from symq.models.rates import check_names, check_rate, parse_rate, value_names

__all__ = ["Model", "DISCIPLINES"]

#: the FCFS disciplines of a compatibility model ([GR20]_ Thm 3.3, 3.9, 3.10): collaborative
#: (redundancy with cancel-on-completion), ALIS and RAIS; every layer above names them from here
DISCIPLINES = ("collaborative", "alis", "rais")


def _names(names: Iterable[Any], kind: str) -> tuple[str, ...]:
    result = []
    seen: set[str] = set()  # a set: thousands of classes are checked in linear time
    for name in names:
        if not isinstance(name, (str, int)) or isinstance(name, bool):
            raise ArgumentTypeError(f"{kind} name {name!r} must be a string (or an int), not "
                                    f"{type(name).__name__}")
        name = str(name)
        if not name.strip():
            raise ModelError(f"a {kind} has an empty name; give every {kind} a non-empty name")
        if name in seen:
            raise ModelError(f"duplicate {kind} name {name!r}; give each {kind} a distinct name")
        seen.add(name)
        result.append(name)
    return tuple(result)


@dataclass(frozen=True, eq=False)
class Model:
    r"""Job classes and servers linked by a compatibility graph, with exact rates.

    Rates may be sympy expressions, ints, Fractions, or strings such as ``"lambda_1"`` or
    ``"3/10"``. Symbols are created ``positive=True``.

    Parameters
    ----------
    compatibility : mapping of class name to the servers that can serve it, $S_i$
    arrival_rates : mapping of class name to a positive rate, $\lambda_i$
    service_rates : mapping of server name to a positive rate, $\mu_j$; its order is the
        server order
    abandonment_rates : optional mapping of class name to a positive rate, $\gamma_i$
    name : optional label

    Raises
    ------
    ModelError
        No class at all; a rate that is a float, NaN, infinite or provably non-positive; a class
        with no server;
        a server that serves no class; an unknown server name; a duplicate name; a rate given for
        an unknown class.
    TypeError
        A rate of a type symq cannot read.

    Examples
    --------
    >>> from symq import model
    >>> w = model("w")
    >>> w.servers_of(["3"])
    ('1', '2')
    >>> w.only_served_by(["1"])
    ('1',)
    >>> print(w.arrival_rate(["1", "3"]))
    lambda_1 + lambda_3
    """

    compatibility: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    arrival_rates: Mapping[str, sympy.Expr] = field(default_factory=dict)
    service_rates: Mapping[str, sympy.Expr] = field(default_factory=dict)
    abandonment_rates: Mapping[str, sympy.Expr] = field(default_factory=dict)
    name: str = ""

    def __post_init__(self) -> None:
        for field_name in ("compatibility", "arrival_rates", "service_rates",
                           "abandonment_rates"):
            given = getattr(self, field_name)
            if not isinstance(given, Mapping):
                raise ArgumentTypeError(
                    f"Model({field_name}=...): {field_name} must be a mapping (a dict "
                    + ("of class name to its servers" if field_name == "compatibility" else
                       "of name to rate") + f"), not {type(given).__name__}")
        if not isinstance(self.name, str) and self.name is not None:
            raise ArgumentTypeError(f"Model(name=...): name must be a str, not "
                                    f"{type(self.name).__name__}")
        if not dict(self.compatibility):
            raise ModelError("a model needs at least one class: give compatibility (class -> its "
                             "servers), arrival_rates and service_rates, e.g. Model(compatibility="
                             "{'1': ['1']}, arrival_rates={'1': '1/2'}, service_rates={'1': 1}), "
                             "or use symq.model(name) for a built-in model")
        raw_service = {str(k): v for k, v in dict(self.service_rates).items()}
        servers = _names(self.service_rates, "server")
        classes = _names(self.compatibility, "class")
        service = {j: parse_rate(raw_service[j], f"service rate of server {j!r}") for j in servers}
        compatibility: dict[str, tuple[str, ...]] = {}
        raw_compat = dict(self.compatibility)
        for key in raw_compat:
            i = str(key)
            wanted = raw_compat[key]
            if isinstance(wanted, (str, int)):
                wanted = [wanted]
            if not isinstance(wanted, (list, tuple, set, frozenset)):
                raise ArgumentTypeError(f"compatibility of class {i!r}: give a list of server "
                                        f"names, not {type(wanted).__name__}")
            wanted = _names(wanted, f"server of class {i!r}")
            if not wanted:
                raise ModelError(f"class {i!r} has no compatible server; give it at least one")
            for j in wanted:
                if j not in service:
                    known = ", ".join(repr(s) for s in servers) or "none"
                    raise ModelError(f"class {i!r} names the unknown server {j!r}; "
                                     f"known servers: {known}")
            compatibility[i] = tuple(j for j in servers if j in wanted)
        arrivals = self._class_rates(self.arrival_rates, classes, "arrival rate", required=True)
        abandon = self._class_rates(self.abandonment_rates, classes, "abandonment rate",
                                    required=False)
        for j in servers:
            if not any(j in s for s in compatibility.values()):
                raise ModelError(f"server {j!r} serves no class; remove it or add it to a class's "
                                 "servers")
        object.__setattr__(self, "compatibility", MappingProxyType(compatibility))
        object.__setattr__(self, "arrival_rates", MappingProxyType(arrivals))
        object.__setattr__(self, "service_rates", MappingProxyType(service))
        object.__setattr__(self, "abandonment_rates", MappingProxyType(abandon))
        object.__setattr__(self, "name", str(self.name or ""))

    @classmethod
    def _empty(cls, name: str = "") -> "Model":
        """The model with no class and no server, what remains after removing everything (only
        the reductions build it; ``Model()`` itself refuses to)."""
        empty = object.__new__(cls)
        for attribute in ("compatibility", "arrival_rates", "service_rates", "abandonment_rates"):
            object.__setattr__(empty, attribute, MappingProxyType({}))
        object.__setattr__(empty, "name", str(name or ""))
        return empty

    @staticmethod
    def _class_rates(rates: Mapping[Any, Any], classes: tuple[str, ...], what: str,
                     required: bool) -> dict[str, sympy.Expr]:
        given = {str(k): v for k, v in dict(rates).items()}
        known = set(classes)
        for i in given:
            if i not in known:
                raise ModelError(f"{what} given for the unknown class {i!r}")
        result = {}
        for i in classes:
            if i in given:
                result[i] = parse_rate(given[i], f"{what} of class {i!r}")
            elif required:
                raise ModelError(f"class {i!r} has no {what}; give one")
        return result

    # ----------------------------------------------------------------- basic views
    @property
    def classes(self) -> tuple[str, ...]:
        """Class names, in the order given."""
        return tuple(self.compatibility)

    @property
    def servers(self) -> tuple[str, ...]:
        """Server names, in the order given."""
        return tuple(self.service_rates)

    def _key(self):
        return (tuple(self.compatibility.items()), tuple(self.arrival_rates.items()),
                tuple(self.service_rates.items()), tuple(self.abandonment_rates.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Model) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        label = f"{self.name!r}, " if self.name else ""
        compat = ", ".join(f"{i}->{{{','.join(s)}}}" for i, s in self.compatibility.items())
        return f"Model({label}{compat})"

    @property
    def is_empty(self) -> bool:
        """True for the model with no class and no server (what remains after removing all)."""
        return not self.compatibility

    @cached_property
    def symbols(self) -> frozenset[sympy.Symbol]:
        """Every symbol that appears in a rate."""
        rates = [*self.arrival_rates.values(), *self.service_rates.values(),
                 *self.abandonment_rates.values()]
        return frozenset().union(*(r.free_symbols for r in rates))

    @property
    def is_numeric(self) -> bool:
        """True when every rate is an exact number (no symbol left)."""
        return not self.symbols

    # ----------------------------------------------------------------- set functions
    def servers_of(self, classes: Iterable[str]) -> tuple[str, ...]:
        """$S(A)$: the servers that can serve at least one class of ``classes``."""
        wanted = set()
        for i in self._known_classes(classes):
            wanted.update(self.compatibility[i])
        return tuple(j for j in self.servers if j in wanted)

    def classes_of(self, servers: Iterable[str]) -> tuple[str, ...]:
        """$C(B)$: the classes that at least one server of ``servers`` can serve."""
        chosen = set(self._known_servers(servers))
        return tuple(i for i, s in self.compatibility.items() if chosen.intersection(s))

    def only_served_by(self, servers: Iterable[str]) -> tuple[str, ...]:
        """$R(B)$: the classes that only servers of ``servers`` can serve ($S_i\\subseteq B$)."""
        chosen = set(self._known_servers(servers))
        return tuple(i for i, s in self.compatibility.items() if chosen.issuperset(s))

    def arrival_rate(self, classes: Iterable[str] | None = None) -> sympy.Expr:
        r"""$\lambda(A)$, the total arrival rate of ``classes`` (all classes by default)."""
        chosen = self.classes if classes is None else self._known_classes(classes)
        return sympy.Add(*(self.arrival_rates[i] for i in chosen))

    def service_rate(self, servers: Iterable[str] | None = None) -> sympy.Expr:
        r"""$\mu(B)$, the total service rate of ``servers`` (all servers by default)."""
        chosen = self.servers if servers is None else self._known_servers(servers)
        return sympy.Add(*(self.service_rates[j] for j in chosen))

    def _known(self, names: Iterable[str] | str, kind: str) -> tuple[str, ...]:
        """``names`` as a tuple of strings, each a class (``kind="class"``) or a server of the model."""
        known, plural = (self.classes, "classes") if kind == "class" else (self.servers, "servers")
        names = (names,) if isinstance(names, str) else tuple(str(x) for x in names)
        for x in names:
            if x not in known:
                raise ModelError(f"unknown {kind} {x!r}; {plural} are {', '.join(known)}")
        return names

    def _known_classes(self, classes: Iterable[str]) -> tuple[str, ...]:
        return self._known(classes, "class")

    def _known_servers(self, servers: Iterable[str]) -> tuple[str, ...]:
        return self._known(servers, "server")

    # ----------------------------------------------------------------- reductions
    def remove_classes(self, classes: Iterable[str]) -> "Model":
        """The model without ``classes``; servers left with no class are dropped too."""
        gone = set(self._known_classes(classes))
        keep = [i for i in self.classes if i not in gone]
        return self._restricted(keep)

    def remove_servers(self, servers: Iterable[str]) -> "Model":
        r"""The reduced system $\vdash B$ of [GR20]_: remove the servers $B$ together with every class
        compatible with one of them, $C(B)$; servers left with no class are dropped too."""
        return self._restricted([i for i in self.classes
                                 if i not in set(self.classes_of(servers))])

    def _restricted(self, keep: list[str]) -> "Model":
        if not keep:
            return Model._empty(self.name)
        used = {j for i in keep for j in self.compatibility[i]}
        return Model(
            compatibility={i: self.compatibility[i] for i in keep},
            arrival_rates={i: self.arrival_rates[i] for i in keep},
            service_rates={j: r for j, r in self.service_rates.items() if j in used},
            abandonment_rates={i: r for i, r in self.abandonment_rates.items() if i in keep},
            name=self.name,
        )

    def substitute(self, values: Mapping[str, Any]) -> "Model":
        """The model with exact values put in for symbols, e.g. ``{"lambda_1": "3/10"}``.

        Raises
        ------
        ModelError
            A name that is not a symbol of the model, or a value that is not exact and positive.
        """
        values = value_names(values)
        check_names(values, self.symbols, "the model")
        if self.is_empty:
            return self
        known = {s.name: s for s in self.symbols}
        mapping = _resolve({known[name]: parse_rate(value, f"value of {name}")
                            for name, value in values.items()})

        def sub(rates: Mapping[str, sympy.Expr], what: str) -> dict[str, sympy.Expr]:
            return {k: check_rate(sympy.simplify(r.xreplace(mapping)) if r.free_symbols else r,
                                  f"{what} {k!r}")
                    for k, r in rates.items()}

        return Model(compatibility=self.compatibility,
                     arrival_rates=sub(self.arrival_rates, "arrival rate of class"),
                     service_rates=sub(self.service_rates, "service rate of server"),
                     abandonment_rates=sub(self.abandonment_rates, "abandonment rate of class"),
                     name=self.name)

    # ----------------------------------------------------------------- graph view
    def graph(self) -> nx.Graph:
        """The compatibility graph as a networkx bipartite graph.

        Nodes are ``("class", i)`` with ``bipartite=0`` and ``("server", j)`` with ``bipartite=1``;
        each node carries its ``rate``.
        """
        g = nx.Graph()
        for i in self.classes:
            g.add_node(("class", i), bipartite=0, rate=self.arrival_rates[i])
        for j in self.servers:
            g.add_node(("server", j), bipartite=1, rate=self.service_rates[j])
        for i, servers in self.compatibility.items():
            g.add_edges_from((("class", i), ("server", j)) for j in servers)
        return g

    def _repr_latex_(self) -> str:
        """Jupyter shows a model as its classes with their rates and server sets (names from a
        model file escaped: they are text)."""
        from symq.display import name_latex, set_display
        rows = " \\\\ ".join(
            f"{name_latex(i)} & {sympy.latex(self.arrival_rates[i])} & "
            f"{set_display(self.compatibility[i])}" for i in self.classes)
        servers = ", ".join(f"{name_latex(j)}{{:}}\\ {sympy.latex(r)}"
                            for j, r in self.service_rates.items())
        return (f"$\\begin{{array}}{{lll}} \\text{{class}} & \\lambda & S \\\\ \\hline {rows}"
                f"\\end{{array}} \\quad \\text{{servers: }} {servers}$")

    def to_toml(self) -> str:
        r"""The model as a TOML file that :func:`symq.load` reads back; names of any characters
        are written as TOML basic strings (``"``, ``\`` and control characters escaped).

        Rates are written by :func:`symq.arithmetic.expressions.rate_text`, in the rate grammar
        (``2**(1/4)`` as ``sqrt(sqrt(2))``), each checked to read back equal.

        Returns
        -------
        str

        Raises
        ------
        ModelError
            A rate the grammar cannot write (a cube root, ``exp``: possible only for rates
            given as sympy expressions in Python).

        Examples
        --------
        >>> import tomllib
        >>> m = Model(compatibility={'a"b': ["s\\1"]}, arrival_rates={'a"b': "1/2"},
        ...           service_rates={"s\\1": 1})
        >>> tomllib.loads(m.to_toml())["classes"]['a"b']["servers"]
        ['s\\1']

        Running time: O(J M).
        """
        from symq.arithmetic.expressions import rate_text
        q = _toml_string

        def rate(value: sympy.Expr, what: str) -> str:
            return q(rate_text(value, what))
        lines = [f"name = {q(self.name)}"] if self.name else []
        for i in self.classes:
            lines += ["", f"[classes.{q(i)}]",
                      f"arrival_rate = {rate(self.arrival_rates[i], f'arrival rate of class {i!r}')}",
                      "servers = [" + ", ".join(q(j) for j in self.compatibility[i]) + "]"]
            if i in self.abandonment_rates:
                lines.append("abandonment_rate = " + rate(self.abandonment_rates[i],
                                                          f"abandonment rate of class {i!r}"))
        for j in self.servers:
            lines += ["", f"[servers.{q(j)}]",
                      f"service_rate = {rate(self.service_rates[j], f'service rate of server {j!r}')}"]
        return "\n".join(lines) + "\n"


def _resolve(mapping: dict[sympy.Symbol, sympy.Expr]) -> dict[sympy.Symbol, sympy.Expr]:
    """Values that name other symbols given values (``mu_1 = 4*lambda_1`` with ``lambda_1 =
    1/2``) with those put in, so that one substitution leaves none of the given symbols; a cycle
    (``a = 2*b``, ``b = a``) is refused. Running time: O(number of values) rounds of ``xreplace``."""
    for _ in range(len(mapping)):
        pending = [s for s, v in mapping.items() if v.free_symbols & mapping.keys()]
        if not pending:
            return mapping
        mapping = {s: v.xreplace(mapping) if v.free_symbols & mapping.keys() else v
                   for s, v in mapping.items()}
    pending = sorted(s.name for s, v in mapping.items() if v.free_symbols & mapping.keys())
    if not pending:
        return mapping
    raise ModelError(f"the values of {', '.join(pending)} refer to each other in a cycle; give "
                     "each one a number or a symbol that has no value")


def _toml_string(value: object) -> str:
    """A TOML basic string holding ``str(value)`` exactly (quote, backslash and every control
    character escaped)."""
    out = []
    for c in str(value):
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04X}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'
