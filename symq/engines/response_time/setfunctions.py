r"""Set functions of a model on bitmasks of servers, with rates in a field of rational functions.
The dynamic programmes of :mod:`symq.engines.response_time` run over server sets, as ``int`` bitmasks in
increasing order (a topological order for inclusion), on elements of the exact field
$\mathbb Q(\theta,\text{rate symbols})$ (sympy's sparse :class:`~sympy.polys.fields.FracField`);
:class:`SetFunctions` tabulates $\mu(X)$, $\lambda_R(X)$, $r(X)=\mu(X)-\lambda_R(X)$ and $L(I)$ in
the notation of [GR20]_ section 5, defined in docs/response-times.md.

Examples
--------
>>> from symq import model
>>> from symq.engines.response_time.setfunctions import SetFunctions
>>> sets = SetFunctions(model("n").substitute({"lambda_1": "1/2", "lambda_2": "1/4",
...                                            "mu_1": "1", "mu_2": "1"}))
>>> print(sets.r(0b01), sets.r(0b11), sets.arrivals(0b10))
1/2 5/4 1/4

Running time: $O(2^M J)$ field operations for the tables.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cached_property
from typing import Any

import sympy
from sympy import QQ
from sympy.polys.fields import field

from symq.engines.distributions import THETA
from symq.errors import ModelError
from symq.models.model import Model

__all__ = ["SetFunctions", "MAX_SERVERS"]

MAX_SERVERS = 12
"""The subset DPs cost $2^M$ (and $3^M$ for the idle-order routing); beyond this many servers
they are refused with a clear message."""


def _bits(mask: int):
    m = 0
    while mask:
        if mask & 1:
            yield m
        mask >>= 1
        m += 1


class SetFunctions:
    r"""Rates and set functions of ``model`` in the field $\mathbb Q(\theta,\ldots)$.

    Parameters
    ----------
    model : the model; numeric rates give the field $\mathbb Q(\theta)$, symbols are added as
        further generators.

    Raises
    ------
    ModelError
        More than :data:`MAX_SERVERS` servers, or a model with abandonments (the tagged job of
        :mod:`symq.engines.response_time` has no abandonment).
    """

    def __init__(self, model: Model) -> None:
        if len(model.servers) > MAX_SERVERS:
            raise ModelError(f"response-time laws use subset DPs over the servers; at most "
                             f"{MAX_SERVERS} servers, not {len(model.servers)}")
        if model.abandonment_rates:
            raise ModelError("response-time laws are for models without abandonments")
        self.model = model
        symbols = sorted(model.symbols, key=lambda s: s.name)
        self.field, *generators = field([THETA, *symbols], QQ)
        self.theta = generators[0]
        self.servers = tuple(model.servers)
        self.classes = tuple(model.classes)
        self.index = {s: k for k, s in enumerate(self.servers)}
        self.full = (1 << len(self.servers)) - 1
        # theta-free quantities are Fractions when the rates are numbers (fast), field elements
        # otherwise; lift() puts them into the field where theta appears
        self.numeric = model.is_numeric
        self.mu = [self.convert(model.service_rates[s]) for s in self.servers]
        self.lam = {c: self.convert(model.arrival_rates[c]) for c in self.classes}
        self.need = {c: self.mask(model.compatibility[c]) for c in self.classes}
        self._lifted: dict = {}

    def convert(self, value: Any):
        """A rate (sympy expression) as a scalar: a Fraction, or a field element."""
        if self.numeric:
            return Fraction(str(sympy.sympify(value)))
        return self.field.from_expr(sympy.sympify(value))

    def lift(self, value):
        r"""A scalar as an element of the field $\mathbb Q(\theta,\ldots)$."""
        if not self.numeric:
            return value
        out = self._lifted.get(value)
        if out is None:
            out = self.field.from_expr(sympy.Rational(value.numerator, value.denominator))
            self._lifted[value] = out
        return out

    def mask(self, servers) -> int:
        """The bitmask of a collection of server names."""
        out = 0
        for s in servers:
            out |= 1 << self.index[s]
        return out

    def members(self, mask: int) -> list[int]:
        """Indices of the servers in ``mask``."""
        return list(_bits(mask))

    @property
    def zero(self):
        """The scalar 0."""
        return Fraction(0) if self.numeric else self.field.zero

    @property
    def one(self):
        """The scalar 1."""
        return Fraction(1) if self.numeric else self.field.one

    @cached_property
    def _mu_table(self) -> list:
        table = [self.zero] * (self.full + 1)
        for x in range(1, self.full + 1):
            low = x & -x
            table[x] = table[x ^ low] + self.mu[low.bit_length() - 1]
        return table

    @cached_property
    def _required_table(self) -> list:
        table = [self.zero] * (self.full + 1)
        for x in range(self.full + 1):
            table[x] = sum((self.lam[c] for c in self.classes if self.need[c] & ~x == 0),
                           self.zero)
        return table

    @cached_property
    def _arrival_table(self) -> list:
        return [sum((self.lam[c] for c in self.classes if self.need[c] & x), self.zero)
                for x in range(self.full + 1)]

    def mu_of(self, x: int):
        r"""$\mu(X)$."""
        return self._mu_table[x]

    def required(self, x: int):
        r"""$\lambda_R(X)$: arrival rate of the classes whose servers all lie in $X$."""
        return self._required_table[x]

    def r(self, x: int):
        r"""$r(X)=\mu(X)-\lambda_R(X)$."""
        return self._mu_table[x] - self._required_table[x]

    def arrivals(self, idle: int):
        r"""$L(I)=\lambda(C(I))$."""
        return self._arrival_table[idle]

    @cached_property
    def idle_weight(self) -> list:
        r"""$\widetilde W(I)=\frac1{L(I)}\sum_{s\in I}\widetilde W(I\setminus s)$, $\widetilde
        W(\emptyset)=1$: the sum over orders $\omega$ of $I$ of $\prod_j1/L(\omega_1..\omega_j)$
        (idle-order weights without the $\mu$ numerators)."""
        table = [self.one] + [self.zero] * self.full
        for idle in range(1, self.full + 1):
            total = sum((table[idle & ~(1 << m)] for m in _bits(idle)), self.zero)
            table[idle] = total / self.arrivals(idle)
        return table

    def busy_weight(self, busy: int):
        r"""$\Phi(B)=\widetilde W(\mathcal M\setminus B)/\widetilde W(\mathcal M)$, the product of
        the activation rates along any order of $B$ (Thm 5.1; the same for ALIS and every valid
        RAIS routing)."""
        return self.idle_weight[self.full & ~busy] / self.idle_weight[self.full]

    @cached_property
    def order_weight(self) -> list:
        r"""$D(B)=\frac1{r(B)}\sum_{s\in B}D(B\setminus s)$, $D(\emptyset)=1$: the sum over the
        orders $\vec b$ of $B$ of $\prod_j1/r(B_j)$, so that $P(\vec b)=\pi(\emptyset)\Phi(B)
        \prod_j1/r(B_j)$ (Thm 5.1 summed over the queue lengths)."""
        table = [self.one] + [self.zero] * self.full
        for busy in range(1, self.full + 1):
            total = sum((table[busy & ~(1 << m)] for m in _bits(busy)), self.zero)
            table[busy] = total / self.r(busy)
        return table

    @cached_property
    def noncollaborative_constant(self):
        r"""$G=\sum_B\Phi(B)D(B)=1/\pi(\emptyset)$ under ALIS and RAIS."""
        return sum((self.busy_weight(b) * self.order_weight[b] for b in range(self.full + 1)),
                   self.zero)

    def busy_set_probability(self, busy: int):
        r"""$P(\text{busy set}=B)=\Phi(B)D(B)/G$."""
        return self.busy_weight(busy) * self.order_weight[busy] / self.noncollaborative_constant

    def class_index(self, job_class: str) -> str:
        """Check a class name."""
        if job_class not in self.need:
            raise ModelError(f"unknown class {job_class!r}; classes: {', '.join(self.classes)}")
        return job_class
