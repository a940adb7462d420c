r"""The engines: the algorithms that compute. Normalizing constants and means by subset DPs, exact,
in balls or in fixed-point intervals (:mod:`~symq.engines.normalization`); structured formulas
(:mod:`~symq.engines.formulas`); response-time laws of a tagged job
(:mod:`~symq.engines.response_time`); product forms and their balance proofs
(:mod:`~symq.engines.processes`, :mod:`~symq.engines.balance`); the truncated verbal chains
(:mod:`~symq.engines.ctmc`); nested closed forms and aggregated laws. Engines know models and
arithmetics; which engine answers a request is decided by :mod:`symq.queries.routes` alone."""

from symq._lazy import lazy_submodules

__getattr__ = lazy_submodules(__name__)
