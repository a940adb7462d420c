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
from dataclasses import dataclass, field
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
        simple_c = all(_SIMPLE.match(c) for c in self.classes)
        self._class_json = self.classes if simple_c else [str(k + 1) for k in range(len(self.classes))]
        self._class_latex = [_latex_text(c) for c in self.classes]
        used = {s.name for s in model.symbols}
        clash = sorted(n for n in used if "__" in n)
        if clash:
            raise ModelError(f"rate symbol {clash[0]!r} contains '__', which structured formulas "
                             "reserve for their own names; rename the rate (single underscores)")
        latex_used = {sympy.latex(s) for s in model.symbols}
        letters = {"H", "W", "V", "Z", "D", "G", "L", "T", "P", "F"}
        self._decorate = any(t[:1] in letters or t.startswith(("\\Omega", "\\rho", "\\psi",
                                                                 "\\pi", "\\hat", "\\widetilde"))
                             for t in latex_used)
        self._mu_sum: dict[int, Any] = {}
        self._lam_req: dict[int, Any] = {}

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
        return rf"\mathsf{{{text}}}" if self._decorate and text[:1].isalpha() else text

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
        return rf"r_{{{self.set_latex(x)}}}"

    def compatible_label(self, x: int) -> str:
        return rf"\Lambda_{{{self.set_latex(x)}}}"

    def compatible(self, x: int) -> Any:
        return sympy.Add(*(l for l, m in zip(self.lam, self.masks) if m & x))


def _latex_text(name: str) -> str:
    if re.match(r"^[A-Za-z0-9]+$", name):
        return name
    if re.match(r"^[A-Za-z0-9,]+$", name):
        return name.replace(",", "{,}")
    safe = re.sub(r"[^A-Za-z0-9]", lambda m: "\\" + m.group(0) if m.group(0) in "_&%$#" else "-",
                  name)
    return rf"\text{{{safe}}}"


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
        pairs = [(lam, () if h[y] == 1 else (h[y],)) for lam, y in sources[x]]
        name = f"H__{b.set_json(x)}"
        b.add(Definition(name, f"{b.letter('H')}_{{{b.set_latex(x)}}}", _grouped(pairs),
                         denom=b.slack(x), denom_label=b.slack_label(x), kind="H"))
        h[x] = name
    return order, h


def _sum_terms(items: list[Any]) -> list[Term]:
    return _grouped([(1, () if v == 1 else (v,)) for v in items])


def _finish(b: Builder, quantity: str, discipline: str, g: str, **known) -> dict[str, Any]:
    if quantity == "normalizing-constant":
        return {"result": g}
    if quantity == "empty-probability":
        if discipline == "alis":
            return {"result": b.add(Definition("P__empty", r"P(\emptyset)",
                                               [Term(1, (known["w_full"],))], denom_names=(g,)))}
        return {"result": b.add(Definition("P__empty", r"P(\emptyset)", [Term(1)],
                                           denom_names=(g,)))}
    if quantity == "server-idle-probability":
        return {"per_server": {s: b.add(Definition(
            f"P__idle_{b._server_json[j]}", rf"\psi_{{{b._server_latex[j]}}}",
            known["idle"](j), denom=known.get("idle_denom", 1), denom_names=(g,)))
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
    b = Builder(model)
    if discipline == "collaborative":
        from symq.engines.nested import is_nested
        shape = _nested(b, quantity) if is_nested(model) else _collab(b, quantity)
    elif discipline == "alis":
        shape = _alis(b, quantity)
    elif discipline == "rais":
        shape = _rais(b, quantity)
    else:
        raise ModelError(f"unknown discipline {discipline!r}; available: collaborative, alis, rais")
    return b, shape


def _means(b: Builder, quantity: str, per_class: dict[str, str]) -> dict[str, Any]:
    """``mean-number``/``mean-response-time`` results from the per-class mean-number names."""
    names = list(per_class.values())
    total = b.add(Definition("L__all", b.letter("L"), _sum_terms(names), kind="L"))
    if quantity == "mean-number":
        return {"total": total, "per_class": per_class}
    out = {}
    for k, c in enumerate(b.classes):
        out[c] = b.add(Definition(f"T__{b.class_json(k)}", f"{b.letter('T')}_{{{b.class_latex(k)}}}",
                                  [Term(1, (per_class[c],))], denom=b.lam[k], kind="T"))
    t = b.add(Definition("T__all", b.letter("T"), [Term(1, (total,))],
                         denom=sympy.Add(*b.lam), kind="T"))
    return {"total": t, "per_class": out}


def _collab(b: Builder, quantity: str) -> dict[str, Any]:
    order, h = _collaborative_weights(b)
    g = b.add(Definition("G__C", b.letter("G"), _sum_terms([h[x] for x in order]), kind="G"))
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
        per_class[c] = b.add(Definition(f"L__{b.class_json(k)}",
                                        f"{b.letter('L')}_{{{b.class_latex(k)}}}",
                                        _grouped(pairs), scale=b.lam[k], denom_names=(g,),
                                        kind="L"))
    return _means(b, quantity, per_class)


def _continuation(b: Builder, order: list[int], tail) -> dict[int, str]:
    """``F_Z`` (``tail`` None: 1) or ALIS's ``V_X`` (``tail(X)``: the name of
    ``Omega_{M minus X}`` or 1) on the nonempty unions, decreasing."""
    letter = "F" if tail is None else "V"
    out: dict[int, str] = {}
    for x in reversed(order[1:]):
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
        out[x] = name
    return out


# ------------------------------------------------------------------------ nested
def _nested(b: Builder, quantity: str) -> dict[str, Any]:
    nodes = sorted(set(b.masks), key=lambda m: (bin(m).count("1"), m))
    rho = {}
    one_minus = {}
    for s in nodes:
        own = sympy.Add(*(l for l, m in zip(b.lam, b.masks) if m == s))
        rho[s] = b.add(Definition(f"rho__{b.set_json(s)}", rf"\rho_{{{b.set_latex(s)}}}",
                                  [Term(own)], denom=b.slack(s) + own, kind="rho"))
        one_minus[s] = b.add(Definition(f"E__{b.set_json(s)}",
                                        rf"(1-\rho_{{{b.set_latex(s)}}})",
                                        [Term(1), Term(-1, (rho[s],))], kind="inline"))
    # E__S is shown inline as 1 - rho_S (see render); the product lines use it
    if quantity in ("normalizing-constant", "empty-probability"):
        p = b.add(Definition("P__empty", r"\pi(\emptyset)", [Term(1, tuple(one_minus[s] for s in nodes))],
                             kind="P"))
        if quantity == "empty-probability":
            return {"result": p}
        return {"result": b.add(Definition("G__C", b.letter("G"), [Term(1)], denom_names=(p,)))}
    if quantity == "server-idle-probability":
        return {"per_server": {s: b.add(Definition(
            f"P__idle_{b._server_json[j]}", rf"\psi_{{{b._server_latex[j]}}}",
            [Term(1, tuple(one_minus[n] for n in nodes if n >> j & 1))]))
            for j, s in enumerate(b.servers)}}
    per_class = {}
    for k, c in enumerate(b.classes):
        m = b.masks[k]
        terms = [Term(1 / b.slack(m))]
        terms += [Term(1 / b.slack(n), (rho[n],)) for n in nodes if n != m and n & m == m]
        per_class[c] = b.add(Definition(f"L__{b.class_json(k)}",
                                        f"{b.letter('L')}_{{{b.class_latex(k)}}}",
                                        terms, scale=b.lam[k], kind="L"))
    return _means(b, quantity, per_class)


# ------------------------------------------------------------------------ ALIS
def _idle_order(b: Builder, tilde: bool) -> dict[int, Any]:
    """ALIS ``W_I`` (``tilde`` False) or RAIS ``W~_I`` on every nonempty server set."""
    out: dict[int, Any] = {0: 1}
    for x in range(1, b.full + 1):
        pairs = []
        for j in bits(x):
            prev = out[x ^ (1 << j)]
            pairs.append((1 if tilde else b.mu[j], () if prev == 1 else (prev,)))
        name = f"{'Wt' if tilde else 'W'}__{b.set_json(x)}"
        latex = (rf"\widetilde{{{b.letter('W')}}}_{{{b.set_latex(x)}}}" if tilde
                 else f"{b.letter('W')}_{{{b.set_latex(x)}}}")
        b.add(Definition(name, latex, _grouped(pairs), denom=b.compatible(x), denom_label=b.compatible_label(x), kind="W"))
        out[x] = name
    return out


def _subset_sums(b: Builder, letter: str, latex: str, values: dict[int, Any], wanted,
                 restrict=None) -> dict[int, Any]:
    """``letter_I = sum_{J subset I} values[J]`` for the sets ``wanted`` (``I = 0``: 1 when
    ``values[0] == 1``)."""
    out: dict[int, Any] = {}
    for i in sorted(set(wanted)):
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
        out[i] = name
    return out


def _alis_core(b: Builder) -> dict[str, Any]:
    order, h = _collaborative_weights(b)
    w = _idle_order(b, tilde=False)
    omega = _subset_sums(b, "Omega", rf"\Omega", w, [b.full ^ x for x in order])
    pairs = [(1, tuple(v for v in (h[x], omega[b.full ^ x]) if v != 1)) for x in order]
    g = b.add(Definition("G__ALIS", rf"{b.letter('G')}_{{\mathrm{{ALIS}}}}", _grouped(pairs),
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
        pairs = [(1, () if hh[b.full ^ q] == 1 else (hh[b.full ^ q],))]
        for j in bits(b.full ^ q):
            pairs.append((b.mu[j], (z[q | (1 << j)],)))
        name = f"Z__{b.set_json(q)}"
        b.add(Definition(name, f"{b.letter('Z')}_{{{b.set_latex(q)}}}", _grouped(pairs),
                         denom=b.compatible(q), denom_label=b.compatible_label(q), kind="Z"))
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
        per_class[c] = b.add(Definition(f"L__{b.class_json(k)}",
                                        f"{b.letter('L')}_{{{b.class_latex(k)}}}",
                                        _grouped(means[k]), scale=b.lam[k], denom_names=(g,),
                                        kind="L"))
    return _means(b, quantity, per_class)


# ------------------------------------------------------------------------ RAIS
def _rais(b: Builder, quantity: str) -> dict[str, Any]:
    wt = _idle_order(b, tilde=True)
    d: dict[int, Any] = {0: 1}
    for x in range(1, b.full + 1):
        pairs = [(1, () if d[x ^ (1 << j)] == 1 else (d[x ^ (1 << j)],)) for j in bits(x)]
        name = f"D__{b.set_json(x)}"
        b.add(Definition(name, f"{b.letter('D')}_{{{b.set_latex(x)}}}", _grouped(pairs),
                         denom=b.slack(x), denom_label=b.slack_label(x), kind="D"))
        d[x] = name

    def weight(x):  # W~_{M \ B} D_B
        return tuple(v for v in (wt[b.full ^ x], d[x]) if v != 1)
    pairs = [(1, weight(x)) for x in range(b.full + 1)]
    g = b.add(Definition("G__RAIS", rf"{b.letter('G')}_{{\mathrm{{RAIS}}}}", _grouped(pairs),
                         denom_names=(wt[b.full],), kind="G"))
    if quantity == "normalizing-constant":
        return {"result": g}
    if quantity == "empty-probability":
        return _finish(b, quantity, "rais", g)
    if quantity == "server-idle-probability":
        return {"per_server": {s: b.add(Definition(
            f"P__idle_{b._server_json[j]}", rf"\psi_{{{b._server_latex[j]}}}",
            _grouped([(1, weight(x)) for x in range(b.full + 1) if not x >> j & 1]),
            denom_names=(wt[b.full], g)))
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
            pairs = [(1, (dc[x ^ (1 << j)],)) for j in bits(x) if (x ^ (1 << j)) in dc]
            pairs.append((b.lam[k], () if d[x] == 1 else (d[x],)))
            name = f"Dc__{b.class_json(k)}__{b.set_json(x)}"
            b.add(Definition(name, rf"{b.letter('D')}^{{{b.class_latex(k)}}}_{{{b.set_latex(x)}}}",
                             _grouped(pairs), denom=b.slack(x), denom_label=b.slack_label(x), kind="Dc"))
            dc[x] = name
        queue[k] = b.add(Definition(
            f"LQ__{b.class_json(k)}", rf"{b.letter('L')}^{{\mathrm{{q}}}}_{{{b.class_latex(k)}}}",
            _grouped([(1, tuple(v for v in (wt[b.full ^ x], dc[x]) if v != 1))
                      for x in sorted(dc)]),
            denom_names=(wt[b.full], g), kind="LQ"))
    core = _alis_core(b)
    service = _alis_means(b, core, queue_only=None)
    per_class = {}
    for k, c in enumerate(b.classes):
        s_name = b.add(Definition(
            f"LS__{b.class_json(k)}", rf"{b.letter('L')}^{{\mathrm{{s}}}}_{{{b.class_latex(k)}}}",
            _grouped(service[k]), scale=b.lam[k], denom_names=(core["g"],), kind="LS"))
        per_class[c] = b.add(Definition(f"L__{b.class_json(k)}",
                                        f"{b.letter('L')}_{{{b.class_latex(k)}}}",
                                        [Term(1, (queue[k],)), Term(1, (s_name,))], kind="L"))
    return _means(b, quantity, per_class)
