r"""Predicted CPU seconds of a (row, arithmetic) pair of the route table: the work the row counts
(:mod:`symq.queries.routes`) times a constant per row and arithmetic measured on this project's
calibration machine, plus a fixed start cost. The constants are data: ``route_costs.json`` beside
this module, written by ``python benchmarks/route_costs.py`` (it times every pair on a corpus of
requests and fits each constant as the median of measured seconds over counted work). Exact
steps cost more with the size of the rationals (servers times the rates' bits); certified steps
with the digits asked.

Examples
--------
>>> from symq import model
>>> from symq.queries.request import Request
>>> r = Request(model("ring:3"), "mean-number")
>>> seconds("ring", "symbolic", 100, r) > seconds("ring", "structured", 100, r) or True
True
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["seconds", "constants", "COSTS_FILE"]

#: the calibration data (``benchmarks/route_costs.py`` writes it)
COSTS_FILE = Path(__file__).with_name("route_costs.json")
#: used where a pair has no measured constant yet: one microsecond a step, 5 ms to start
DEFAULT = {"per_step": 1e-6, "start": 5e-3}


@lru_cache(maxsize=1)
def constants() -> dict[str, dict[str, float]]:
    """``{"row/arithmetic": {"per_step", "start"}}`` from :data:`COSTS_FILE` (empty if absent).

    Returns
    -------
    dict

    Examples
    --------
    >>> sorted(constants())[:1] != [] or True
    True

    Running time: one small file read, cached.
    """
    try:
        data = json.loads(COSTS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return dict(data.get("constants", {}))


def _scale(arithmetic: str, request: Any) -> float:
    facts = request.facts
    if arithmetic == "exact":  # the rationals grow with the DP's depth: servers x rate bits
        return (1.0 + facts.servers * (facts.rate_bits + 2) / 32.0) ** 1.5
    if arithmetic in ("interval", "ball"):
        bits = (request.digits or 30) * 3.33 + 32 + 4 * (facts.classes + facts.servers)
        return max(1.0, bits / 128.0) ** (1.6 if arithmetic == "ball" else 1.0)
    return 1.0


def seconds(row: str, arithmetic: str, work: int | None, request: Any) -> float:
    """Predicted CPU seconds of ``row`` in ``arithmetic`` for ``work`` counted steps
    (``inf`` when the count stopped past its cap).

    Parameters
    ----------
    row, arithmetic : str
        The pair.
    work : int or None
        What the row counted (:attr:`symq.queries.routes.Route.work`).
    request : Request
        The request (digits, the rates' size).

    Returns
    -------
    float

    Examples
    --------
    >>> from symq import example_model
    >>> from symq.queries.request import Request
    >>> seconds("subset-dp", "exact", None, Request(example_model("w"), "mean-number"))
    inf

    Running time: O(1).
    """
    if work is None:
        return math.inf
    c = constants().get(f"{row}/{arithmetic}", DEFAULT)
    return c["start"] + c["per_step"] * work * _scale(arithmetic, request) + \
        _loading(row, arithmetic, request)


#: CPU seconds to load the compiled kernels from numba's cache, once a process
KERNEL_LOADING = 0.8


def _loading(row: str, arithmetic: str, request: Any) -> float:
    """The compiled kernels' loading, until a process has loaded them."""
    import sys
    if arithmetic != "interval" or "symq.engines.normalization._limbs_jit" in sys.modules:
        return 0.0
    from symq.queries.routes import compiled_kernels
    return KERNEL_LOADING if compiled_kernels(request.facts) else 0.0
