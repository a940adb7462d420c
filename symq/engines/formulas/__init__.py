r"""Structured formulas: each quantity the way the theory builds it, as named intermediate
quantities with short definitions and then the quantity in terms of them ([GR20]_ Thm 3.3 and
Props 6.2/6.3 for the collaborative weights $H$, Thm 4.5 for nested graphs, Thm 3.9 for the ALIS
idle-order weights $W$, Thm 3.10 for the RAIS busy-set weights $D$; the definitions are listed
in :mod:`symq.engines.formulas.build`), in the forms ``structured`` (the default of ``symq derive``),
``expanded`` (one cancelled rational function, from the definitions in python-flint polynomial
arithmetic) and ``factored``. Names of intermediate quantities contain ``__`` (``H__1_2`` is
$H_{12}$), so they never clash with rates. The names, forms and JSON: see docs/formulas.md.

Examples
--------
>>> from symq import model
>>> from symq.engines.formulas import structured
>>> f = structured(model("n"), "empty-probability", "alis")
>>> for d in f.definitions:
...     print(d.name, "=", f.text(d))
H__1 = lambda_1/(-lambda_1 + mu_1)
H__1_2 = (lambda_2 + lambda_2*H__1)/(-lambda_1 - lambda_2 + mu_1 + mu_2)
W__1 = mu_1/(lambda_1 + lambda_2)
W__2 = mu_2/lambda_2
W__1_2 = (mu_1*W__2 + mu_2*W__1)/(lambda_1 + lambda_2)
Omega__2 = 1 + W__2
Omega__1_2 = 1 + W__1 + W__2 + W__1_2
G__ALIS = Omega__1_2 + H__1*Omega__2 + H__1_2
P__empty = W__1_2/G__ALIS
>>> print(f.latex().splitlines()[3])
W_{1} &= \frac{\mu_{1}}{\lambda_{1} + \lambda_{2}} \\
>>> f.at({"lambda_1": "1/4", "lambda_2": "1/4", "mu_1": 1, "mu_2": 1})
27/47
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping

import sympy

from symq.errors import ModelError
from symq.models.model import Model
from symq.engines.formulas.arith import (FactoredFunctions, at_point, evaluate_definitions,
                                         result_degrees, to_sympy, to_text)
from symq.engines.formulas.build import Definition, Term, build
from symq.engines.formulas import render as _render
from symq.engines.formulas.render import (LINE_UNITS, align_block, definition_latex,
                                          definition_text, long_denominator, rate_latex)

__all__ = ["FORMS", "Structured", "structured", "monomials", "Definition", "Term"]

#: the forms of ``symq derive --form``
FORMS = ("structured", "expanded", "factored")

_TITLES = {"H": "collaborative (exact-cover) weights on unions of class server sets",
           "F": "continuation weights of the collaborative mean numbers",
           "W": "idle-order weights",
           "Omega": "sums of idle-order weights over subsets",
           "V": "continuation weights weighted by the idle orders (jobs in queue)",
           "Hh": "sums of collaborative weights over subsets",
           "Z": "weights of the jobs that start service on arrival",
           "D": "busy-set weights", "Dc": "busy-set weights of the class-c jobs in queue",
           "rho": "loads of the nesting-tree nodes"}


@dataclass
class Structured:
    """A structured formula: ``definitions`` in order and the result ``shape`` (a definition
    name, or ``{"total": name, "per_class": {class: name}}`` / ``{"per_server": {...}}``).

    Jupyter displays it as its LaTeX ``align*`` block."""

    model: Model
    quantity: str
    discipline: str
    definitions: list[Definition]
    shape: Any
    #: slack expression -> LaTeX label, for slacks written by name inside sums (nested route)
    labels: dict = field(default_factory=dict)
    #: the construction that made it (:func:`symq.engines.formulas.build.builder_kind`)
    builder: str | None = None

    @property
    def names(self) -> dict[str, str]:
        """LaTeX of every name."""
        return {d.name: d.latex_name for d in self.definitions}

    def text(self, d: Definition) -> str:
        """The definition's right-hand side as a parsable expression string."""
        return definition_text(d)

    def latex(self, star: bool = True, skip: frozenset | set = frozenset(),
              only: set | None = None, limit: float = LINE_UNITS,
              denom_limit: float | None = None, shown_labels: set | None = None) -> str:
        r"""The formula as one ``align*`` block (inline helper names such as $1-\rho_S$ are
        not given lines of their own); definitions named in ``skip`` (shown before, e.g. by
        another quantity of the same report) are left out, and only those in ``only`` are
        written when it is given. ``limit`` and ``denom_limit`` are the widths of a line and
        of an inline denominator (:func:`symq.engines.formulas.render.definition_latex`);
        ``shown_labels`` collects the labels ($r_X$, $\Lambda_I$) already defined by earlier
        blocks. :func:`symq.engines.formulas.paper.paper_latex` writes the headed blocks and
        the legend of ``symq derive --format latex``."""
        names = self.names
        rows = []
        shown: set[str] = set() if shown_labels is None else shown_labels
        saved = dict(_render._LABELS)
        _render._LABELS.clear()
        _render._LABELS.update(self.labels)
        try:
            for d in self.definitions:
                if d.kind == "inline" or d.name in skip or (only is not None and d.name not in only):
                    continue
                wide = long_denominator(d, denom_limit)
                if wide is not None and d.denom_label not in shown:
                    shown.add(d.denom_label)
                    rows.append((d.denom_label, [wide]))
                for t in d.terms:
                    c = sympy.sympify(t.coef)
                    if c.is_Pow and c.exp == -1 and c.base in self.labels:
                        label = self.labels[c.base]
                        if label not in shown:
                            shown.add(label)
                            rows.append((label, [rate_latex(c.base)]))
                rows.append((d.latex_name, definition_latex(d, names, limit, denom_limit)))
        finally:
            _render._LABELS.clear()
            _render._LABELS.update(saved)
        return align_block(rows, star=star)

    def paper_latex(self, title: str | None = None) -> str:
        """The formula as a researcher pastes it: preamble comment, headed blocks, legend
        (:func:`symq.engines.formulas.paper.paper_latex`)."""
        from symq.engines.formulas.paper import paper_latex
        return paper_latex(self, title)

    def _repr_latex_(self) -> str:
        return self.latex()

    def result_names(self) -> list[tuple[str, str]]:
        """``[(label, name)]`` of the result entries (``""``, ``"total"``, ``"class 1"``, ...)."""
        return _labelled(self.shape)

    def as_json(self) -> dict[str, Any]:
        """``{"definitions": [{"name", "latex", "expr"}], "result": shape of names}``."""
        names = self.names
        defs = [{"name": d.name, "latex": d.latex_name, "expr": definition_text(d)}
                for d in self.definitions]
        shape = self.shape["result"] if set(self.shape) == {"result"} else self.shape
        del names
        return {"definitions": defs, "result": shape}

    # ------------------------------------------------------------------ values
    def at(self, values: Mapping[str, Any]) -> Any:
        """Exact values (sympy Rationals) of the result at rational rates ``values`` (by
        symbol name), in the result's shape: the second route of the tests."""
        by_name = {s.name: s for s in self.model.symbols}
        point = {by_name[k]: sympy.Rational(v) for k, v in values.items() if k in by_name}
        env = at_point(self.definitions, point)
        return _reshape(self.shape, lambda n: sympy.Rational(env[n].numerator, env[n].denominator))

    def expanded_values(self) -> Any:
        """The result as cancelled rational functions (:class:`symq.engines.formulas.arith.RF`, or
        sympy Rationals for a numeric model), in the result's shape; computed once.

        Running time: one polynomial product per term of every definition, cancellation by
        exact division by known factors (:class:`symq.engines.formulas.arith.FactoredFunctions`);
        grows with the size of the result (``ring:4`` collaborative mean numbers, 790,000
        terms: about 5 s)."""
        cached = getattr(self, "_expanded", None)
        if cached is not None:
            return cached
        symbols = sorted(self.model.symbols, key=lambda s: s.name)
        if not symbols:
            env = at_point(self.definitions, {})
            out = _reshape(self.shape, lambda n: sympy.Rational(env[n].numerator,
                                                                env[n].denominator))
        else:
            field = FactoredFunctions(symbols)
            env = evaluate_definitions(self.definitions, field.leaf, field.number)
            out = _reshape(self.shape, lambda n: field.finish(env[n]))
        self._expanded = out
        return out

    def expanded_degrees(self, axis: int | None = None) -> list[tuple[int, int]]:
        """``[(numerator degree, denominator degree)]`` of the expanded results, from the
        same arithmetic on the image of the rates on a random line (univariate, so cheap;
        the degrees of the image are those of the rational function unless the line is
        special, when they are lower); with ``axis`` (an index into the symbols sorted by
        name) the degrees in that symbol alone, the others fixed at random integers.

        Running time: one univariate operation per term of every definition (milliseconds
        for 4 servers)."""
        return result_degrees(self.definitions, [name for _, name in self.result_names()],
                              sorted(self.model.symbols, key=lambda s: s.name), axis)

    def expanded_size(self) -> int:
        r"""A bound on the number of terms of the expanded results (numerators and
        denominators together), summed over the results: the monomials whose degree in each
        rate is at most the polynomial's degree in it and whose total degree is at most its
        total degree (exactly that degree when every rate is a linear form in the symbols,
        so that numerator and denominator are homogeneous). The degrees come from the
        definitions evaluated on a random line and along each symbol's axis. The cost of
        the expanded form grows with it (the estimate of the ``expanded-terms`` limit of
        :mod:`symq.limits`); the 4-server star ``{1,2,3,4},{1},{2},{3},{4}`` under ALIS,
        whose empty probability has 120,000 terms, is estimated at about 10^5, not 6.2
        million by total degree alone.

        Running time: one evaluation of the definitions on a line per symbol, plus
        O(n d^2) for the count (n symbols, total degree d)."""
        n = len(self.model.symbols)
        if not n:
            return 0
        rates = [*self.model.arrival_rates.values(), *self.model.service_rates.values()]
        homogeneous = all(_linear_form(r) for r in rates)
        totals = self.expanded_degrees()
        per_axis = [self.expanded_degrees(axis=i) for i in range(n)]
        total = 0
        for k, (dn, dd) in enumerate(totals):
            for side, d in ((0, dn), (1, dd)):
                caps = [per_axis[i][k][side] for i in range(n)]
                total += monomials(caps, d, homogeneous)
        return total

    def expanded(self, form: str = "expanded") -> Any:
        """The result as sympy rational functions of the rates (``form`` ``"expanded"`` or
        ``"factored"``), in the result's shape."""
        return _map(self.expanded_values(),
                    lambda v: v if isinstance(v, sympy.Basic) else to_sympy(v, form))

    def expanded_text(self, form: str = "expanded", latex: bool = False) -> Any:
        """The result as strings (parsable text, or LaTeX), printed from the polynomials."""
        def show(v):
            if isinstance(v, sympy.Basic):
                return sympy.latex(v) if latex else str(v)
            return to_text(v, form, latex)
        return _map(self.expanded_values(), show)


def monomials(caps: list[int], degree: int, exact: bool) -> int:
    """The number of monomials with exponent at most ``caps[i]`` in variable ``i`` and total
    degree at most ``degree`` (exactly ``degree`` when ``exact``).

    Parameters
    ----------
    caps : list of int
        The largest exponent of each variable.
    degree : int
        The total degree.
    exact : bool
        Count only the monomials of total degree ``degree``.

    Returns
    -------
    int

    Examples
    --------
    >>> monomials([1, 1], 2, False), monomials([2, 2, 2], 2, True)
    (4, 6)

    Running time: O(len(caps) * degree * max(caps)).
    """
    ways = [1] + [0] * degree
    for c in caps:
        new = [0] * (degree + 1)
        for k, w in enumerate(ways):
            if w:
                for e in range(min(c, degree - k) + 1):
                    new[k + e] += w
        ways = new
    return ways[degree] if exact else sum(ways)


def _linear_form(rate: Any) -> bool:
    rate = sympy.sympify(rate)
    if not rate.free_symbols:
        return False
    try:
        poly = sympy.Poly(rate, *sorted(rate.free_symbols, key=lambda s: s.name))
    except sympy.PolynomialError:
        return False
    return poly.is_homogeneous and poly.total_degree() == 1


def _map(shape: Any, leaf) -> Any:
    from symq.display import as_result
    if isinstance(shape, Mapping):
        return as_result({k: _map(v, leaf) for k, v in shape.items()})
    return leaf(shape)


def _reshape(shape: Any, leaf) -> Any:
    """The result's shape with ``leaf`` applied; mappings are shown by Jupyter as tables
    (:class:`symq.display.QuantityResult`)."""
    from symq.display import as_result
    if isinstance(shape, Mapping):
        if set(shape) == {"result"}:
            return leaf(shape["result"])
        return as_result({k: _reshape(v, leaf) for k, v in shape.items()})
    return leaf(shape)


def _labelled(shape: Any) -> list[tuple[str, str]]:
    if set(shape) == {"result"}:
        return [("", shape["result"])]
    out = []
    for key, part in shape.items():
        if isinstance(part, Mapping):
            word = "class" if key == "per_class" else "server"
            out += [(f"{word} {k}", v) for k, v in part.items()]
        else:
            out.append((key, part))
    return out


_BUILT: dict[tuple, Structured] = {}


def structured(model: Model | str, quantity: str, discipline: str = "collaborative") -> Structured:
    """The structured formula of ``quantity`` (``empty-probability``, ``normalizing-constant``,
    ``server-idle-probability``, ``mean-number``, ``mean-response-time``) of ``model`` under
    ``discipline``.

    Parameters
    ----------
    model : Model or str
        A model, or a built-in model's name (``"w"``, ``"ring:4"``, ...).
    quantity : str
        One of the quantities above.
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.

    Returns
    -------
    Structured
        The named definitions, each after those it uses, and the result's shape.

    Raises
    ------
    ModelError
        An unknown quantity or discipline, a model without classes, a rate symbol whose name
        contains ``__``.

    Running time: O(U J) definitions (collaborative, U unions of class server sets), O(2^M M)
    (ALIS, RAIS), O(J 2^M M) for RAIS mean numbers; well under a second for 6 servers.

    Examples
    --------
    >>> f = structured("w", "empty-probability", "alis")
    >>> [d.name for d in f.definitions][:4]
    ['H__1', 'H__2', 'H__1_2', 'W__1']
    """
    from symq.models.catalog import as_model
    model = as_model(model)
    if quantity not in _QUANTITIES:
        raise ModelError(f"no structured formula for {quantity!r}; available: "
                         f"{', '.join(_QUANTITIES)}")
    if model.is_empty:
        raise ModelError("the model has no class; give it at least one class and server")
    key = (model, quantity, discipline)
    if key not in _BUILT:
        b, shape = build(model, quantity, discipline)
        if len(_BUILT) > 32:
            _BUILT.pop(next(iter(_BUILT)))
        _BUILT[key] = Structured(model, quantity, discipline, b.definitions, shape, b.labels,
                                 getattr(b, "kind", None))
    return _BUILT[key]


_QUANTITIES = ("empty-probability", "normalizing-constant", "server-idle-probability",
               "mean-number", "mean-response-time")
