r"""A *request*: what one call of :func:`symq.solve` (or one ``symq evaluate``/``derive``/``explain``
command) asks for -- a model (its values already put in), a quantity, a discipline, the
arithmetic it allows (``exact``), the form of a symbolic answer, digits, an optional forced
``method`` and, for partial derivatives, the rates and outputs. Its structure facts
(:class:`symq.queries.facts.Facts`) are computed once and shared by every row of the route
table that looks at it.

Examples
--------
>>> from symq import model
>>> r = Request(model("ring:3"), "mean-number", "collaborative")
>>> r.facts.ring, r.symbolic_arithmetics()
(True, ('structured', 'symbolic'))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from symq.models.model import Model
from symq.queries.facts import Facts, facts_of

__all__ = ["Request"]


@dataclass
class Request:
    """One request (module docstring).

    ``exact``: ``True`` exact rationals only, ``False`` certified digits only, ``None`` either
    (the planner prefers exact where it costs little more); ``form``: ``"structured"`` (named
    definitions) or ``"expression"`` (one sympy expression) for symbolic rates;
    ``derivatives``: partial derivatives by ``wrt`` (``None``: every rate) of ``outputs``
    outputs; ``limits``: the parsed ``--max-work``/``--no-limits`` (or a namespace with them).
    """

    model: Model
    quantity: str
    discipline: str = "collaborative"
    exact: bool | None = None
    form: str = "structured"
    digits: int = 30
    method: str = "auto"
    time: Any = None
    percentile: Any = None
    derivatives: bool = False
    wrt: list[str] | None = None
    outputs: int = 1
    rates: int = 1
    labels: list[str] | None = None
    base: Model | None = None
    values: Mapping[str, Any] | None = None
    limits: Any = None
    what: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def facts(self) -> Facts:
        """The model's structure facts (computed once per model object)."""
        return facts_of(self.model)

    @property
    def numeric(self) -> bool:
        return self.model.is_numeric

    def symbolic_arithmetics(self) -> tuple[str, ...]:
        """The arithmetics that answer this request with symbolic rates, preferred first."""
        if self.form == "expression":
            return ("symbolic",)
        return ("structured", "symbolic")

    def allowed_arithmetics(self) -> tuple[str, ...]:
        """Every arithmetic that may answer: ``structured``/``symbolic`` for symbolic rates;
        ``exact`` and the certified ones (``interval``, ``ball``) for numeric rates, as
        ``exact`` allows."""
        if not self.numeric:
            return self.symbolic_arithmetics()
        out: tuple[str, ...] = ()
        if self.exact is not False:
            out += ("exact",)
        if self.exact is not True:
            out += ("interval", "ball")
        return out

    def limit_of(self, name: str) -> int | None:
        """The limit in force for ``name`` (:mod:`symq.limits`), ``None`` for none."""
        from symq.limits import limit_value
        return limit_value(name, self.limits)
