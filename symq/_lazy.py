"""Lazy imports of heavy third-party modules, so that ``import symq`` and a short command stay fast.
``nx = lazy_module("networkx")`` binds a stand-in that imports networkx on the first attribute
access (``nx.Graph``, ``nx.maximum_flow_value``) and then forwards to the real module. A command
that never touches the graph library never pays for importing it (about 0.3-0.8 s for networkx on
this project's machines); tests/test_startup.py checks that ``import symq`` imports none of
networkx, numpy, scipy, matplotlib and dask.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__all__ = ["lazy_module", "lazy_submodules"]


class _LazyModule:
    """Stand-in for a module: imports it on the first attribute access, then forwards."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def _load(self) -> ModuleType:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return self._module

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._load(), attr)

    def __repr__(self) -> str:
        state = "loaded" if self._module is not None else "not loaded yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_module(name: str) -> Any:
    """A stand-in for module ``name`` that imports it on first use.

    Parameters
    ----------
    name : str
        Absolute module name, for example ``"networkx"``.

    Returns
    -------
    object
        An object whose attributes are those of the module, imported on the first access.

    Examples
    --------
    >>> import sys
    >>> m = lazy_module("colorsys")
    >>> m.rgb_to_hsv(1.0, 0.0, 0.0)
    (0.0, 1.0, 1.0)
    >>> "colorsys" in sys.modules
    True

    Running time: nothing until first use, then one import.
    """
    return _LazyModule(name)


def lazy_submodules(package: str):
    """A module ``__getattr__`` (PEP 562) for ``package`` that imports a submodule on first
    access, so that ``symq.engines.normalization`` works after ``import symq`` alone.

    Parameters
    ----------
    package : str
        The package's ``__name__``.

    Returns
    -------
    callable
        ``__getattr__(name)`` for the package.

    Raises
    ------
    AttributeError
        (from the returned function) a name that is no submodule of the package.

    Examples
    --------
    >>> import symq.arithmetic
    >>> symq.arithmetic.numeric.__name__
    'symq.arithmetic.numeric'

    Running time: one import on first access.
    """
    def __getattr__(name: str) -> Any:
        if not name.startswith("_"):
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as error:
                if error.name != f"{package}.{name}":
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    return __getattr__
