r"""The model layer: the :class:`~symq.models.model.Model` (classes, servers, compatibility graph and
exact rates), the rate grammar (:mod:`~symq.models.rates`), built-in models and TOML files
(:mod:`~symq.models.catalog`), every small compatibility graph (:mod:`~symq.models.graphs`) and
stability (:mod:`~symq.models.stability`). It imports only the arithmetics below it."""

from symq._lazy import lazy_submodules

__getattr__ = lazy_submodules(__name__)
