r"""Builders of structured formulas: each quantity as the theory builds it, a list of named
intermediate quantities with short definitions, then the quantity in terms of them: the
collaborative exact-cover weights ([GR20]_ Thm 3.3, Props 6.2 and 6.3 corrected), the nesting
loads of nested graphs (Thm 4.5), and the ALIS (Thm 3.9) and canonical RAIS (Thm 3.10) weights.
Running time: O(U J) definitions for U unions (collaborative), O(2^M M) for ALIS and RAIS,
O(J 2^M M) for RAIS mean numbers; each definition is built once, with no rational-function
arithmetic. The notation and every formula built here: see docs/formulas.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import sympy

from symq.errors import ModelError
from symq.models.model import Model
from symq.engines.normalization.subsets import bits, unions

__all__ = ["Term", "Definition", "Builder", "build"]


@dataclass(frozen=True)
class Term:
    """``coef * prod(names)``: ``coef`` a sympy expression in the rates (or a number)."""

    coef: Any
    names: tuple[str, ...] = ()


@dataclass
class Definition:
    r"""``name = scale * (sum of terms) / (denom * prod(denom_names))``.

    ``latex_name`` is its LaTeX (``H_{12}``); ``kind`` says what it is (for the text)."""

    name: str
    latex_name: str
    terms: list[Term]
    denom: Any = 1
    denom_names: tuple[str, ...] = ()
    scale: Any = 1
    kind: str = ""
    product: bool = False  # the terms are factors (nested: prod(1 - rho_S)), not summands
    denom_label: str = ""  # LaTeX name of ``denom`` (r_{X}, \Lambda_{I}) for long denominators


_SIMPLE = re.compile(r"^[A-Za-z0-9]+$")


class Builder:
    """Collects definitions and the set/class naming of one model."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.servers = list(model.servers)
        self.classes = list(model.classes)
        index = {s: j for j, s in enumerate(self.servers)}
        self.masks = [sum(1 << index[s] for s in model.compatibility[c]) for c in self.classes]
        self.size = len(self.servers)
        self.full = (1 << self.size) - 1
        self.lam = [model.arrival_rates[c] for c in self.classes]
        self.mu = [model.service_rates[s] for s in self.servers]
        self.definitions: list[Definition] = []
        self.by_name: dict[str, Definition] = {}
        simple = all(_SIMPLE.match(s) for s in self.servers)
        self._server_json = self.servers if simple else [str(j + 1) for j in range(self.size)]
        short = all(len(s) == 1 for s in self.servers) and simple
        self._server_latex = [_latex_text(s) for s in self.servers]
        self._sep = "" if short else ","
        self._class_json = _json_names(self.classes)
        self._class_latex = [_latex_text(c) for c in self.classes]
        used = {s.name for s in model.symbols}
        clash = sorted(n for n in used if "__" in n)
        if clash:
            raise ModelError(f"rate symbol {clash[0]!r} contains '__', which structured formulas "
                             "reserve for their own names; rename the rate (single underscores)")
        latex_used = {sympy.latex(s) for s in model.symbols}
        letters = {"H", "W", "V", "Z", "D", "G", "L", "T", "P", "F", "r"}
        self._decorate = any(t[:1] in letters or t.startswith(("\\Omega", "\\rho", "\\psi",
                                                                 "\\Lambda", "\\pi", "\\hat",
                                                                 "\\widetilde"))
                             for t in latex_used)
        self._mu_sum: dict[int, Any] = {}
        self._lam_req: dict[int, Any] = {}
        #: set -> LaTeX label of its slack, for the slacks written by name (nested route)
        self.labels: dict[Any, str] = {}
        #: (json suffix, LaTeX) of the component being built, or None (whole model)
        self.component: tuple[str, str] | None = None
        self.per_class_only = False
        self._orbits = _Orbits(self)

    # ------------------------------------------------------------------ names
    def set_json(self, x: int) -> str:
        return "_".join(self._server_json[j] for j in bits(x))

    def set_latex(self, x: int) -> str:
        if not x:
            return r"\emptyset"
        return self._sep.join(self._server_latex[j] for j in bits(x))

    def class_json(self, k: int) -> str:
        return self._class_json[k]

    def class_latex(self, k: int) -> str:
        return self._class_latex[k]

    def letter(self, text: str) -> str:
        """The LaTeX of a structured name's letter: set in sans serif (Latin) or bold (Greek)
        when some rate's LaTeX could be read as a structured name (a rate ``H_1``, ``rho_12``)."""
        if not self._decorate:
            return text
        if text.startswith("\\"):
            return rf"\boldsymbol{{{text}}}"
        return rf"\mathsf{{{text}}}" if text[:1].isalpha() else text

    def top(self, name: str, base: str, rest: str = "") -> tuple[str, str]:
        r"""``(name, LaTeX)`` of a whole-model name (``G__ALIS``, ``P__empty``), marked with the
        component's servers while one component of several is built (``G__ALIS__1_2``,
        $G^{(12)}_{\mathrm{ALIS}}$)."""
        if self.component is None:
            return name, base + rest
        return f"{name}__{self.component[0]}", f"{base}^{{({self.component[1]})}}{rest}"

    def orbit(self, family: str, key: Any) -> tuple[Any, str | None]:
        """``(orbit key, name already given to the orbit or None)`` of a set (or a
        ``(class, set)`` pair) under the model's symmetries: equal definitions are named once."""
        return self._orbits.lookup(family, key)

    def name_orbit(self, family: str, okey: Any, name: str) -> None:
        self._orbits.seen[(family, okey)] = name

    def once(self, family: str, key: Any, make) -> str:
        """The name of ``make()`` (which adds a definition and returns its name), made once per
        orbit of ``key`` (a class index for families starting ``class``, else a set)."""
        okey, known = self.orbit(family, key)
        if known:
            return known
        name = make()
        self.name_orbit(family, okey, name)
        return name

    def add(self, definition: Definition) -> str:
        if definition.name in self.by_name:
            raise AssertionError(f"duplicate definition {definition.name}")
        self.definitions.append(definition)
        self.by_name[definition.name] = definition
        return definition.name

    # ------------------------------------------------------------------ set functions
    def mu_of(self, x: int) -> Any:
        if x not in self._mu_sum:
            self._mu_sum[x] = sympy.Add(*(self.mu[j] for j in bits(x)))
        return self._mu_sum[x]

    def lam_required(self, x: int) -> Any:
        if x not in self._lam_req:
            self._lam_req[x] = sympy.Add(*(l for l, m in zip(self.lam, self.masks) if m & ~x == 0))
        return self._lam_req[x]

    def slack(self, x: int) -> Any:
        return self.mu_of(x) - self.lam_required(x)

    def slack_label(self, x: int) -> str:
        return rf"{self.letter('r')}_{{{self.set_latex(x)}}}"

    def compatible_label(self, x: int) -> str:
        return rf"{self.letter(chr(92) + 'Lambda')}_{{{self.set_latex(x)}}}"

    def compatible(self, x: int) -> Any:
        return sympy.Add(*(l for l, m in zip(self.lam, self.masks) if m & x))


def _json_names(names: list[str]) -> list[str]:
    """Names as they appear in text and JSON names (``L__1_2`` for class ``"1,2"``): the name
    itself when it is letters and digits, else its runs of other characters written ``_``;
    the 1-based index when that is empty or two names would coincide."""
    if all(_SIMPLE.match(n) for n in names):
        return list(names)
    out = [re.sub(r"[^A-Za-z0-9]+", "_", n).strip("_") for n in names]
    if any(not o for o in out) or len(set(out)) < len(out):
        return [str(k + 1) for k in range(len(names))]
    return out


class _Orbits:
    """The server permutations that leave the model unchanged (equal service rates, class
    server sets carried to class server sets of the same arrival rate), for up to
    ``MAX_SERVERS`` servers: a set function of the theory takes one value on each orbit, so
    each orbit is defined once (``redundancy:4:2``: one $H$ per size of union)."""

    MAX_SERVERS = 7

    def __init__(self, b: "Builder") -> None:
        from itertools import permutations
        self.seen: dict[tuple, str] = {}
        self.perms: list[tuple[int, ...]] = []
        self.class_maps: list[list[int]] | None = None
        n = b.size
        if n < 2 or n > self.MAX_SERVERS or len(set(map(str, b.mu))) == n:
            return
        pairs = [(m, sympy.sympify(l)) for m, l in zip(b.masks, b.lam)]
        unique = len(set(pairs)) == len(pairs)
        want = sorted((m, str(l)) for m, l in pairs)
        maps = []
        for p in permutations(range(n)):
            if p == tuple(range(n)) or any(b.mu[p[j]] != b.mu[j] for j in range(n)):
                continue
            moved = [(self.apply(p, m), str(l)) for m, l in pairs]
            if sorted(moved) != want:
                continue
            self.perms.append(p)
            if unique:
                where = {(m, str(l)): k for k, (m, l) in enumerate(pairs)}
                maps.append([where[t] for t in moved])
        if unique:
            self.class_maps = maps

    @staticmethod
    def apply(p: tuple[int, ...], x: int) -> int:
        out = 0
        for j in bits(x):
            out |= 1 << p[j]
        return out

    def lookup(self, family: str, key: Any) -> tuple[Any, str | None]:
        if not self.perms:
            return key, None
        if isinstance(key, tuple):  # (class, set)
            if self.class_maps is None:
                return ("id",) + key, None
            k, x = key
            okey = min([(k, x)] + [(cm[k], self.apply(p, x))
                                   for p, cm in zip(self.perms, self.class_maps)])
        elif family.startswith("class"):
            if self.class_maps is None:
                return ("id", key), None
            okey = min([key] + [cm[key] for cm in self.class_maps])
        else:
            okey = min([key] + [self.apply(p, key) for p in self.perms])
        return okey, self.seen.get((family, okey))


def _latex_text(name: str) -> str:
    if re.match(r"^[0-9]+$", name):
        return name
    if re.match(r"^[0-9,]+$", name):
        return name.replace(",", "{,}")
    from symq.display import text_latex  # the one LaTeX escaping of names (docs/security.md)
    return text_latex(name)


def _grouped(pairs: list[tuple[Any, tuple[str, ...]]]) -> list[Term]:
    """Terms with equal names merged (coefficients added), in first-seen order."""
    order: dict[tuple[str, ...], Any] = {}
    for coef, names in pairs:
        order[names] = order.get(names, 0) + coef
    return [Term(c, n) for n, c in order.items() if c != 0]


# ------------------------------------------------------------------------ collaborative
def _collaborative_weights(b: Builder) -> tuple[list[int], dict[int, Any]]:
    """``H_X`` on the unions; returns the union order and ``{X: name or 1}``."""
    order = unions(b.masks)
    h: dict[int, Any] = {0: 1}
    sources: dict[int, list] = {x: [] for x in order}
    for x in order:
        for c, m in enumerate(b.masks):
            y = x | m
            if y != x:
                sources[y].append((b.lam[c], x))
    for x in order[1:]:
        okey, known = b.orbit("H", x)
        if known:
            h[x] = known
            continue
        pairs = [(lam, () if h[y] == 1 else (h[y],)) for lam, y in sources[x]]
        name = f"H__{b.set_json(x)}"
        b.add(Definition(name, f"{b.letter('H')}_{{{b.set_latex(x)}}}", _grouped(pairs),
                         denom=b.slack(x), denom_label=b.slack_label(x), kind="H"))
        b.name_orbit("H", okey, name)
        h[x] = name
    return order, h


def _sum_terms(items: list[Any]) -> list[Term]:
    return _grouped([(1, () if v == 1 else (v,)) for v in items])


def _finish(b: Builder, quantity: str, discipline: str, g: str, **known) -> dict[str, Any]:
    if quantity == "normalizing-constant":
        return {"result": g}
    if quantity == "empty-probability":
        name, latex = b.top("P__empty", "P", r"(\emptyset)")
        if discipline == "alis":
            return {"result": b.add(Definition(name, latex, [Term(1, (known["w_full"],))],
                                               denom_names=(g,), kind="P"))}
        return {"result": b.add(Definition(name, latex, [Term(1)], denom_names=(g,), kind="P"))}
    if quantity == "server-idle-probability":
        return {"per_server": {s: b.once("server", 1 << j, lambda j=j: b.add(Definition(
            f"P__idle_{b._server_json[j]}", rf"{b.letter(chr(92) + 'psi')}_{{{b._server_latex[j]}}}",
            known["idle"](j), denom=known.get("idle_denom", 1), denom_names=(g,), kind="psi")))
            for j, s in enumerate(b.servers)}}
    raise AssertionError(quantity)


# ------------------------------------------------------------------------ public entry
def build(model: Model, quantity: str, discipline: str) -> tuple[Builder, dict[str, Any]]:
    """The definitions of ``quantity`` of ``model`` under ``discipline`` and the shape of the
    result (``{"result": name}``, ``{"total": name, "per_class": {...}}`` or
    ``{"per_server": {...}}``), names of definitions.

    Parameters
    ----------
    model : Model
        The model; its classes and servers name the definitions.
    quantity, discipline : str
        The quantity (as :func:`symq.engines.formulas.structured`) and the discipline whose balance
        equations build it: ``"collaborative"``, ``"alis"`` or ``"rais"``.

    Returns
    -------
    tuple of (Builder, dict)
        The builder holding the definitions, and the shape.

    Raises
    ------
    ModelError
        An unknown discipline (or quantity).

    Examples
    --------
    >>> from symq import model
    >>> b, shape = build(model("n"), "empty-probability", "collaborative")
    >>> shape
    {'result': 'P__empty'}

    Running time: as :func:`symq.engines.formulas.structured`: O(U J) definitions (collaborative),
    O(2^M M) (ALIS, RAIS), O(J 2^M M) for RAIS mean numbers.
    """
    if discipline not in _BUILDERS:
        raise ModelError(f"unknown discipline {discipline!r}; available: collaborative, alis, rais")
    b = Builder(model)
    parts = _components(b)
    b.kind = _kind(b, discipline, parts)
    if b.kind == "nested":
        shape = _nested(b, quantity)
    elif b.kind == "components":
        shape = _by_components(b, quantity, discipline, parts)
    else:
        shape = _discipline(b, quantity, discipline)
    _prune(b, shape)
    return b, shape


def _kind(b: Builder, discipline: str, parts: list) -> str:
    from symq.engines.nested import is_nested
    if discipline == "collaborative" and is_nested(b.model):
        return "nested"
    if len(parts) > 1:
        return "components"
    return "orbits" if b._orbits.perms else "subset-dp"


def builder_kind(model: Model, discipline: str) -> str:
    """Which construction :func:`build` uses for ``model``: ``nested`` (the closed form
    through the nesting tree, collaborative), ``components`` (a product over the connected
    components), ``orbits`` (the general definitions, one name per orbit of a symmetry of the
    model) or ``subset-dp`` (the general definitions of the discipline's DP).

    Parameters
    ----------
    model : Model
    discipline : str

    Returns
    -------
    str

    Examples
    --------
    >>> from symq import model
    >>> builder_kind(model("redundancy:3:3"), "collaborative"), builder_kind(model("w"), "alis")
    ('nested', 'subset-dp')

    Running time: O(J M), plus the symmetry search of up to 7 servers (7! permutations).
    """
    b = Builder(model)
    return _kind(b, discipline, _components(b))


def _discipline(b: Builder, quantity: str, discipline: str) -> dict[str, Any]:
    if discipline == "collaborative":
        from symq.engines.nested import is_nested
        return _nested(b, quantity) if is_nested(b.model) else _collab(b, quantity)
    return _BUILDERS[discipline](b, quantity)


def _components(b: Builder) -> list[tuple[list[int], int]]:
    """``[(class indices, server mask)]`` of the connected components of the compatibility
    graph, by their first server."""
    comps: list[tuple[list[int], int]] = []
    for k, m in enumerate(b.masks):
        classes, mask = [k], m
        for c in [c for c in comps if c[1] & m]:
            comps.remove(c)
            classes, mask = c[0] + classes, c[1] | mask
        comps.append((sorted(classes), mask))
    if sum(bin(m).count("1") for _, m in comps) != b.size:
        return [(list(range(len(b.classes))), b.full)]
    return sorted(comps, key=lambda c: c[1] & -c[1])


def _by_components(b: Builder, quantity: str, discipline: str,
                   parts: list[tuple[list[int], int]]) -> dict[str, Any]:
    r"""A model of several components as the product of independent systems: each component's
    jobs and servers evolve as a system of their own, so the empty probability and every
    normalizing constant ($G=1/P(\emptyset)$, $G_{\mathrm{ALIS}}=1/\pi(\emptyset,\emptyset)$,
    $G_{\mathrm{RAIS}}$) are products over the components, and idle probabilities and mean
    numbers are those of the component."""
    shapes = []
    for classes, mask in parts:
        servers = [b.servers[j] for j in bits(mask)]
        names = [b.classes[k] for k in classes]
        sub = Model(compatibility={c: list(b.model.compatibility[c]) for c in names},
                    arrival_rates={c: b.model.arrival_rates[c] for c in names},
                    service_rates={s: b.model.service_rates[s] for s in servers})
        sb = Builder(sub)
        sb._server_json = [b._server_json[j] for j in bits(mask)]
        sb._server_latex = [b._server_latex[j] for j in bits(mask)]
        sb._sep = b._sep
        sb._class_json = [b._class_json[k] for k in classes]
        sb._class_latex = [b._class_latex[k] for k in classes]
        sb._decorate = b._decorate
        sb.definitions, sb.by_name, sb.labels = b.definitions, b.by_name, b.labels
        sb.component = (b.set_json(mask), b.set_latex(mask))
        sb.per_class_only = True
        shapes.append(_discipline(sb, quantity, discipline))
    if quantity in ("normalizing-constant", "empty-probability"):
        factors = tuple(s["result"] for s in shapes)
        if quantity == "empty-probability":
            name, latex, kind = "P__empty", r"P(\emptyset)", "P"
        else:
            kind = "G"
            name, latex = {"collaborative": ("G__C", b.letter("G")),
                           "alis": ("G__ALIS", b.letter("G") + r"_{\mathrm{ALIS}}"),
                           "rais": ("G__RAIS", b.letter("G") + r"_{\mathrm{RAIS}}")}[discipline]
        return {"result": b.add(Definition(name, latex, [Term(1, factors)], kind=kind))}
    key = "per_server" if quantity == "server-idle-probability" else "per_class"
    merged = {}
    for s in shapes:
        merged.update(s[key])
    order = b.servers if key == "per_server" else b.classes
    merged = {x: merged[x] for x in order}
    if key == "per_server":
        return {"per_server": merged}
    return _means(b, quantity, merged)


def _prune(b: Builder, shape: Any) -> None:
    """Drop the definitions the result does not use (the nested route's loads of the nodes
    no mean number needs, the inline $1-\rho_S$ of the mean numbers)."""
    wanted: set[str] = set()
    stack = list(_shape_names(shape))
    while stack:
        n = stack.pop()
        if n in wanted or n not in b.by_name:
            continue
        wanted.add(n)
        d = b.by_name[n]
        stack += [m for t in d.terms for m in t.names] + list(d.denom_names)
    b.definitions[:] = [d for d in b.definitions if d.name in wanted]
    for n in list(b.by_name):
        if n not in wanted:
            del b.by_name[n]


def _shape_names(shape: Any) -> list[str]:
    if isinstance(shape, dict):
        return [n for v in shape.values() for n in _shape_names(v)]
    return [shape]


def _means(b: Builder, quantity: str, per_class: dict[str, str]) -> dict[str, Any]:
    """``mean-number``/``mean-response-time`` results from the per-class mean-number names."""
    if b.per_class_only:  # one component of several: the whole model sums them
        return {"per_class": per_class}
    names = list(per_class.values())
    total = b.add(Definition("L__all", b.letter("L"), _sum_terms(names), kind="L"))
    if quantity == "mean-number":
        return {"total": total, "per_class": per_class}
    out = {}
    for k, c in enumerate(b.classes):
        out[c] = b.once("classT", k, lambda k=k, c=c: b.add(Definition(
            f"T__{b.class_json(k)}", f"{b.letter('T')}_{{{b.class_latex(k)}}}",
            [Term(1, (per_class[c],))], denom=b.lam[k], kind="T")))
    t = b.add(Definition("T__all", b.letter("T"), [Term(1, (total,))],
                         denom=sympy.Add(*b.lam), kind="T"))
    return {"total": t, "per_class": out}


def _collab(b: Builder, quantity: str) -> dict[str, Any]:
    order, h = _collaborative_weights(b)
    g = b.add(Definition(*b.top("G__C", b.letter("G")), _sum_terms([h[x] for x in order]),
                         kind="G"))
    if quantity in ("normalizing-constant", "empty-probability"):
        return _finish(b, quantity, "collaborative", g)
    if quantity == "server-idle-probability":
        return _finish(b, quantity, "collaborative", g,
                       idle=lambda j: _sum_terms([h[x] for x in order if not x >> j & 1]))
    f = _continuation(b, order, tail=None)
    per_class = {}
    for k, c in enumerate(b.classes):
        m = b.masks[k]
        pairs = [(1, tuple(v for v in (h[y],) if v != 1) + (f[y | m],)) for y in order]
        per_class[c] = b.once("classL", k, lambda k=k, pairs=pairs: b.add(Definition(
            f"L__{b.class_json(k)}", f"{b.letter('L')}_{{{b.class_latex(k)}}}",
            _grouped(pairs), scale=b.lam[k], denom_names=(g,), kind="L")))
    return _means(b, quantity, per_class)


def _continuation(b: Builder, order: list[int], tail) -> dict[int, str]:
    """``F_Z`` (``tail`` None: 1) or ALIS's ``V_X`` (``tail(X)``: the name of
    ``Omega_{M minus X}`` or 1) on the nonempty unions, decreasing."""
    letter = "F" if tail is None else "V"
    out: dict[int, str] = {}
    for x in reversed(order[1:]):
        okey, known = b.orbit(letter, x)
        if known:
            out[x] = known
            continue
        pairs = []
        if tail is None:
            pairs.append((1, ()))
        else:
            t = tail(x)
            pairs.append((1, () if t == 1 else (t,)))
        for c, m in enumerate(b.masks):
            y = x | m
            if y != x:
                pairs.append((b.lam[c], (out[y],)))
        name = f"{letter}__{b.set_json(x)}"
        b.add(Definition(name, f"{b.letter(letter)}_{{{b.set_latex(x)}}}", _grouped(pairs),
                         denom=b.slack(x), denom_label=b.slack_label(x), kind=letter))
        b.name_orbit(letter, okey, name)
        out[x] = name
    return out


# ------------------------------------------------------------------------ nested
def _nested(b: Builder, quantity: str) -> dict[str, Any]:
    nodes = sorted(set(b.masks), key=lambda m: (bin(m).count("1"), m))
    rho = {}
    one_minus = {}
    greek = b.letter(chr(92) + "rho")
    for s in nodes:
        own = sympy.Add(*(l for l, m in zip(b.lam, b.masks) if m == s))
        rho[s] = b.once("rho", s, lambda s=s, own=own: b.add(Definition(
            f"rho__{b.set_json(s)}", rf"{greek}_{{{b.set_latex(s)}}}",
            [Term(own)], denom=b.slack(s) + own, kind="rho")))
        # E__S = 1 - rho_S, shown inline as (1 - rho_S) in LaTeX (see render)
        one_minus[s] = b.once("E", s, lambda s=s: b.add(Definition(
            f"E__{b.set_json(s)}", rf"(1-{b.by_name[rho[s]].latex_name})",
            [Term(1), Term(-1, (rho[s],))], kind="inline")))
    if quantity in ("normalizing-constant", "empty-probability"):
        p = b.add(Definition(*b.top("P__empty", "P", r"(\emptyset)"),
                             [Term(1, tuple(one_minus[s] for s in nodes))], kind="P"))
        if quantity == "empty-probability":
            return {"result": p}
        return {"result": b.add(Definition(*b.top("G__C", b.letter("G")), [Term(1)],
                                           denom_names=(p,), kind="G"))}
    if quantity == "server-idle-probability":
        return {"per_server": {s: b.once("server", 1 << j, lambda j=j: b.add(Definition(
            f"P__idle_{b._server_json[j]}", rf"{b.letter(chr(92) + 'psi')}_{{{b._server_latex[j]}}}",
            [Term(1, tuple(one_minus[n] for n in nodes if n >> j & 1))], kind="psi")))
            for j, s in enumerate(b.servers)}}
    per_class = {}
    for k, c in enumerate(b.classes):
        m = b.masks[k]
        for n in nodes:
            if n & m == m and sympy.sympify(b.slack(n)).is_Add:
                b.labels[b.slack(n)] = b.slack_label(n)  # written r_S in LaTeX
        terms = [Term(1 / b.slack(m))]
        terms += [Term(1 / b.slack(n), (rho[n],)) for n in nodes if n != m and n & m == m]
        per_class[c] = b.once("classL", k, lambda k=k, terms=terms: b.add(Definition(
            f"L__{b.class_json(k)}", f"{b.letter('L')}_{{{b.class_latex(k)}}}",
            terms, scale=b.lam[k], kind="L")))
    return _means(b, quantity, per_class)


# ------------------------------------------------------------------------ ALIS
def _idle_order(b: Builder, tilde: bool) -> dict[int, Any]:
    """ALIS ``W_I`` (``tilde`` False) or RAIS ``W~_I`` on every nonempty server set."""
    out: dict[int, Any] = {0: 1}
    family = "Wt" if tilde else "W"
    for x in range(1, b.full + 1):
        okey, known = b.orbit(family, x)
        if known:
            out[x] = known
            continue
        pairs = []
        for j in bits(x):
            prev = out[x ^ (1 << j)]
            pairs.append((1 if tilde else b.mu[j], () if prev == 1 else (prev,)))
        name = f"{'Wt' if tilde else 'W'}__{b.set_json(x)}"
        latex = (rf"\widetilde{{{b.letter('W')}}}_{{{b.set_latex(x)}}}" if tilde
                 else f"{b.letter('W')}_{{{b.set_latex(x)}}}")
        b.add(Definition(name, latex, _grouped(pairs), denom=b.compatible(x),
                         denom_label=b.compatible_label(x), kind=family))
        b.name_orbit(family, okey, name)
        out[x] = name
    return out


def _subset_sums(b: Builder, letter: str, latex: str, values: dict[int, Any], wanted,
                 restrict=None) -> dict[int, Any]:
    """``letter_I = sum_{J subset I} values[J]`` for the sets ``wanted`` (``I = 0``: 1 when
    ``values[0] == 1``)."""
    out: dict[int, Any] = {}
    for i in sorted(set(wanted)):
        okey, known = b.orbit(letter, i)
        if known:
            out[i] = known
            continue
        parts = []
        sub = i
        while True:
            if sub in values:
                parts.append(values[sub])
            if sub == 0:
                break
            sub = (sub - 1) & i
        parts.reverse()
        if parts == [1]:
            out[i] = 1
            continue
        name = f"{letter}__{b.set_json(i)}" if i else f"{letter}__0"
        b.add(Definition(name, f"{latex}_{{{b.set_latex(i)}}}", _sum_terms(parts), kind=letter))
        b.name_orbit(letter, okey, name)
        out[i] = name
    return out


def _alis_core(b: Builder) -> dict[str, Any]:
    order, h = _collaborative_weights(b)
    w = _idle_order(b, tilde=False)
    omega = _subset_sums(b, "Omega", b.letter(chr(92) + "Omega"), w, [b.full ^ x for x in order])
    pairs = [(1, tuple(v for v in (h[x], omega[b.full ^ x]) if v != 1)) for x in order]
    g = b.add(Definition(*b.top("G__ALIS", b.letter("G"), r"_{\mathrm{ALIS}}"), _grouped(pairs),
                         kind="G"))
    return {"order": order, "h": h, "w": w, "omega": omega, "g": g}


def _h_hat(b: Builder, core: dict[str, Any], wanted) -> dict[int, Any]:
    h = core["h"]
    return _subset_sums(b, "Hh", rf"\hat{{{b.letter('H')}}}", {x: h[x] for x in core["order"]},
                        wanted)


def _alis_service_terms(b: Builder, core: dict[str, Any], k: int, hh: dict[int, Any],
                        z: dict[int, str]) -> list:
    """The in-service pairs of class ``k`` (without the common factor lambda_c / G_ALIS)."""
    m = b.masks[k]
    pairs = []
    outside = b.full & ~m
    for j in bits(m):
        p = outside
        while True:
            wp = core["w"][p]
            pairs.append((1, tuple(v for v in (wp,) if v != 1) + (z[p | (1 << j)],)))
            if p == 0:
                break
            p = (p - 1) & outside
    return pairs


def _z_table(b: Builder, hh: dict[int, Any]) -> dict[int, str]:
    z: dict[int, str] = {}
    for q in range(b.full, 0, -1):
        okey, known = b.orbit("Z", q)
        if known:
            z[q] = known
            continue
        pairs = [(1, () if hh[b.full ^ q] == 1 else (hh[b.full ^ q],))]
        for j in bits(b.full ^ q):
            pairs.append((b.mu[j], (z[q | (1 << j)],)))
        name = f"Z__{b.set_json(q)}"
        b.add(Definition(name, f"{b.letter('Z')}_{{{b.set_latex(q)}}}", _grouped(pairs),
                         denom=b.compatible(q), denom_label=b.compatible_label(q), kind="Z"))
        b.name_orbit("Z", okey, name)
        z[q] = name
    return z


def _alis_means(b: Builder, core: dict[str, Any], queue_only: bool = False,
                g_name: str | None = None) -> dict[int, list]:
    """Per class ``k``: the pairs of ``L_c G_ALIS / lambda_c`` (queue and service), or of
    the service part only (``queue_only`` False and used by RAIS: service only)."""
    order, h, omega = core["order"], core["h"], core["omega"]
    v = _continuation(b, order, tail=lambda x: omega[b.full ^ x])
    hh = _h_hat(b, core, [b.full ^ q for q in range(1, b.full + 1)])
    z = _z_table(b, hh)
    out = {}
    for k in range(len(b.classes)):
        m = b.masks[k]
        pairs = []
        for y in order:
            extra = bin(m & ~y).count("1")
            pairs.append((extra if queue_only is None else 1 + extra,
                          tuple(n for n in (h[y],) if n != 1) + (v[y | m],)))
        if queue_only is None:
            pairs = [p for p in pairs if p[0]]
        pairs += _alis_service_terms(b, core, k, hh, z)
        out[k] = pairs
    return out


def _alis(b: Builder, quantity: str) -> dict[str, Any]:
    core = _alis_core(b)
    g = core["g"]
    if quantity == "normalizing-constant":
        return {"result": g}
    if quantity == "empty-probability":
        return _finish(b, quantity, "alis", g, w_full=core["w"][b.full])
    if quantity == "server-idle-probability":
        hh = _h_hat(b, core, [b.full ^ i for i in range(1, b.full + 1)])

        def idle(j):
            pairs = []
            for i in range(1, b.full + 1):
                if i >> j & 1:
                    pairs.append((1, tuple(v for v in (core["w"][i], hh[b.full ^ i]) if v != 1)))
            return _grouped(pairs)
        return _finish(b, quantity, "alis", g, idle=idle)
    means = _alis_means(b, core)
    per_class = {}
    for k, c in enumerate(b.classes):
        per_class[c] = b.once("classL", k, lambda k=k: b.add(Definition(
            f"L__{b.class_json(k)}", f"{b.letter('L')}_{{{b.class_latex(k)}}}",
            _grouped(means[k]), scale=b.lam[k], denom_names=(g,), kind="L")))
    return _means(b, quantity, per_class)


# ------------------------------------------------------------------------ RAIS
def _rais(b: Builder, quantity: str) -> dict[str, Any]:
    wt = _idle_order(b, tilde=True)
    d: dict[int, Any] = {0: 1}
    for x in range(1, b.full + 1):
        okey, known = b.orbit("D", x)
        if known:
            d[x] = known
            continue
        pairs = [(1, () if d[x ^ (1 << j)] == 1 else (d[x ^ (1 << j)],)) for j in bits(x)]
        name = f"D__{b.set_json(x)}"
        b.add(Definition(name, f"{b.letter('D')}_{{{b.set_latex(x)}}}", _grouped(pairs),
                         denom=b.slack(x), denom_label=b.slack_label(x), kind="D"))
        b.name_orbit("D", okey, name)
        d[x] = name

    def weight(x):  # W~_{M \ B} D_B
        return tuple(v for v in (wt[b.full ^ x], d[x]) if v != 1)
    pairs = [(1, weight(x)) for x in range(b.full + 1)]
    g = b.add(Definition(*b.top("G__RAIS", b.letter("G"), r"_{\mathrm{RAIS}}"), _grouped(pairs),
                         denom_names=(wt[b.full],), kind="G"))
    if quantity == "normalizing-constant":
        return {"result": g}
    if quantity == "empty-probability":
        return _finish(b, quantity, "rais", g)
    if quantity == "server-idle-probability":
        return {"per_server": {s: b.once("server", 1 << j, lambda j=j: b.add(Definition(
            f"P__idle_{b._server_json[j]}", rf"{b.letter(chr(92) + 'psi')}_{{{b._server_latex[j]}}}",
            _grouped([(1, weight(x)) for x in range(b.full + 1) if not x >> j & 1]),
            denom_names=(wt[b.full], g), kind="psi")))
            for j, s in enumerate(b.servers)}}
    # in queue: D^c on B containing S_c
    queue = {}
    for k, c in enumerate(b.classes):
        m = b.masks[k]
        dc: dict[int, str] = {}
        rest = b.full & ~m
        sub_sets = []
        p = rest
        while True:
            sub_sets.append(p | m)
            if p == 0:
                break
            p = (p - 1) & rest
        for x in sorted(sub_sets):
            okey, known = b.orbit("Dc", (k, x))
            if known:
                dc[x] = known
                continue
            pairs = [(1, (dc[x ^ (1 << j)],)) for j in bits(x) if (x ^ (1 << j)) in dc]
            pairs.append((b.lam[k], () if d[x] == 1 else (d[x],)))
            name = f"Dc__{b.class_json(k)}__{b.set_json(x)}"
            b.add(Definition(name, rf"{b.letter('D')}^{{{b.class_latex(k)}}}_{{{b.set_latex(x)}}}",
                             _grouped(pairs), denom=b.slack(x), denom_label=b.slack_label(x),
                             kind="Dc"))
            b.name_orbit("Dc", okey, name)
            dc[x] = name
        queue[k] = b.once("classLQ", k, lambda k=k, dc=dc: b.add(Definition(
            f"LQ__{b.class_json(k)}", rf"{b.letter('L')}^{{\mathrm{{q}}}}_{{{b.class_latex(k)}}}",
            _grouped([(1, tuple(v for v in (wt[b.full ^ x], dc[x]) if v != 1))
                      for x in sorted(dc)]),
            denom_names=(wt[b.full], g), kind="LQ")))
    core = _alis_core(b)
    service = _alis_means(b, core, queue_only=None)
    per_class = {}
    for k, c in enumerate(b.classes):
        s_name = b.once("classLS", k, lambda k=k: b.add(Definition(
            f"LS__{b.class_json(k)}", rf"{b.letter('L')}^{{\mathrm{{s}}}}_{{{b.class_latex(k)}}}",
            _grouped(service[k]), scale=b.lam[k], denom_names=(core["g"],), kind="LS")))
        per_class[c] = b.once("classL", k, lambda k=k, s_name=s_name: b.add(Definition(
            f"L__{b.class_json(k)}", f"{b.letter('L')}_{{{b.class_latex(k)}}}",
            [Term(1, (queue[k],)), Term(1, (s_name,))], kind="L")))
    return _means(b, quantity, per_class)


_BUILDERS = {"collaborative": _collab, "alis": _alis, "rais": _rais}
