r"""The arithmetics of symq: exact rationals and their conversions (:mod:`~symq.arithmetic.exact`),
exact values to decimal strings (:mod:`~symq.arithmetic.numeric`), rigorous fixed-point intervals
(:mod:`~symq.arithmetic.interval`), the safe reader of numbers and formulas
(:mod:`~symq.arithmetic.expressions`), sign certificates of rational functions
(:mod:`~symq.arithmetic.certificates`) and elementary symmetric sums
(:mod:`~symq.arithmetic.elementary_symmetric`). Nothing here knows a queueing model."""

from symq._lazy import lazy_submodules

__getattr__ = lazy_submodules(__name__)
