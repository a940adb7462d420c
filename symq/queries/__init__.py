r"""The queries: a request (model, quantity, discipline, arithmetic) and the one route table that
decides which engine answers it (:mod:`~symq.queries.routes`), the front door
:func:`~symq.queries.solve.solve`, the quantity names (:mod:`~symq.queries.quantities`) and the
work estimates checked before any work (:mod:`~symq.queries.estimates`)."""

from symq._lazy import lazy_submodules

__getattr__ = lazy_submodules(__name__)
