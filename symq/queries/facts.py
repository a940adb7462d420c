r"""The structure facts of one model, computed once per request and shared by every row of the
route table (:mod:`symq.queries.routes`), the work estimates and the compute functions: whether
the compatibility graph is connected (and its components), a ``redundancy:K:D`` symmetry, a
nested (laminar) family of server sets ([GR20]_ Def 4.1, Thm 4.5), a ring, one fully flexible
class (Cabral's uninformed queue), the number of unions of class server sets (capped), whether
the rates are numeric and rational, and their size in bits. Nothing below the route table
decides structure: the engines are told which algorithm to run.

Examples
--------
>>> from symq import model
>>> f = facts_of(model("ring:4"))
>>> f.ring, f.nested, f.connected, f.unions()
(True, False, True, 10)
>>> facts_of(model("n")).nested, facts_of(model("w")).connected
(True, True)
"""

from __future__ import annotations

import weakref
from functools import cached_property
from typing import Any

from symq.models.model import Model

__all__ = ["Facts", "facts_of"]

#: past this many unions of class server sets the count stops (``unions()`` returns ``None``)
UNION_CAP = 2_000_000


class Facts:
    """Structure facts of one model, each computed on first use (see the module docstring).

    Parameters
    ----------
    model : Model
        The model (symbolic or numeric rates).
    """

    def __init__(self, model: Model) -> None:
        self.model = model
        self._unions: dict[int | None, int | None] = {}

    @cached_property
    def masks(self) -> list[int]:
        """The class server sets $S_c$ as bit masks over the model's server order."""
        index = {s: j for j, s in enumerate(self.model.servers)}
        return [sum(1 << index[s] for s in self.model.compatibility[c])
                for c in self.model.classes]

    @cached_property
    def components(self) -> list[Model]:
        """The connected components of the compatibility graph, as models."""
        from symq.engines.normalization.structured import components
        return components(self.model)

    @property
    def connected(self) -> bool:
        """One component."""
        return len(self.components) == 1

    @cached_property
    def redundancy(self) -> bool:
        """Every D-subset of the K servers is one class, with equal rates
        (:func:`symq.engines.normalization.structured.is_symmetric_redundancy`)."""
        from symq.engines.normalization.structured import is_symmetric_redundancy
        return is_symmetric_redundancy(self.model)

    @cached_property
    def nested(self) -> bool:
        """The class server sets form a laminar family ([GR20]_ Def 4.1)."""
        from symq.engines.nested import is_nested
        return is_nested(self.model)

    @cached_property
    def ring(self) -> bool:
        """Class i compatible with servers i and i+1 (mod M)."""
        from symq.engines.normalization.ring import is_ring
        return is_ring(self.model)

    @cached_property
    def uninformed(self) -> bool:
        """One class compatible with every server (Cabral's queue)."""
        from symq.studies.uninformed import is_uninformed
        return is_uninformed(self.model)

    @cached_property
    def numeric(self) -> bool:
        """Every rate is a number."""
        return self.model.is_numeric

    @cached_property
    def rational(self) -> bool:
        """Every rate is an exact rational."""
        return self.numeric and all(getattr(r, "is_Rational", False) for r in self.rates)

    @cached_property
    def rates(self) -> list[Any]:
        """Arrival rates, then service rates."""
        return [*self.model.arrival_rates.values(), *self.model.service_rates.values()]

    @cached_property
    def rate_bits(self) -> int:
        """The largest bit size of a numerator or denominator among rational rates (1 for
        symbolic ones): big rationals make every exact step cost more."""
        most = 1
        for r in self.rates:
            if getattr(r, "is_Rational", False):
                most = max(most, abs(int(r.p)).bit_length(), int(r.q).bit_length())
        return most

    def unions(self, cap: int | None = UNION_CAP) -> int | None:
        """The number of unions of class server sets (with the empty set), or ``None`` past
        ``cap`` (cached per cap)."""
        if cap not in self._unions:
            known = [n for c, n in self._unions.items() if n is not None
                     and (cap is None or n <= cap)]
            if known:
                return known[0]
            from symq.queries.estimates import count_unions
            self._unions[cap] = count_unions(self.masks, cap)
        return self._unions[cap]

    @property
    def classes(self) -> int:
        return len(self.model.classes)

    @property
    def servers(self) -> int:
        return len(self.model.servers)

    def structure(self, discipline: str) -> str:
        """The model's own structure under ``discipline``: ``components``, ``redundancy``,
        ``nested`` or ``ring`` (collaborative), else ``general`` (a description, used by the
        explanations; the planner compares costs, it does not follow this)."""
        if not self.connected:
            return "components"
        if self.redundancy:
            return "redundancy"
        if discipline == "collaborative" and self.nested:
            return "nested"
        if discipline == "collaborative" and self.ring:
            return "ring"
        return "general"


_CACHE: "weakref.WeakKeyDictionary[Model, Facts]" = weakref.WeakKeyDictionary()


def facts_of(model: Model) -> Facts:
    """The :class:`Facts` of ``model``, shared by every request on the same model object.

    Parameters
    ----------
    model : Model

    Returns
    -------
    Facts

    Examples
    --------
    >>> from symq import model
    >>> m = model("w")
    >>> facts_of(m) is facts_of(m)
    True

    Running time: O(1); each fact is computed on first use.
    """
    try:
        found = _CACHE.get(model)
    except TypeError:  # an unhashable or unweakrefable model: no sharing
        return Facts(model)
    if found is None:
        found = Facts(model)
        try:
            _CACHE[model] = found
        except TypeError:
            pass
    return found
