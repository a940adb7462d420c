r"""The papers' studies built on the engines: heterogeneous M/M/n with uninformed customers
(:mod:`~symq.studies.uninformed`), the supermarket model (:mod:`~symq.studies.supermarket`),
two-queue routing by the compensation approach (:mod:`~symq.studies.compensation`) and theorem
sweeps over small graphs (:mod:`~symq.studies.sweep`)."""

from symq._lazy import lazy_submodules

__getattr__ = lazy_submodules(__name__)
