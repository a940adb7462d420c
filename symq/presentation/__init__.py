r"""Results as a reader sees them: LaTeX (:mod:`~symq.presentation.latex`), the printed forms of
``symq derive`` (:mod:`~symq.presentation.formula_output`), derivation documents
(:mod:`~symq.presentation.report`) and pictures (:mod:`~symq.presentation.pictures`)."""

from symq._lazy import lazy_submodules

__getattr__ = lazy_submodules(__name__)
