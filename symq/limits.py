r"""Named size limits, so that no input makes symq run for hours or eat all memory without being
asked to: the table of limits and the check against it. The estimates that are checked live
beside the routes that do the work (:mod:`symq.queries.estimates`).
Every limit below has a documented default, says what it counts, and names the command-line option
that raises it (``--max-work N`` sets the limit of the command to N, ``--no-limits`` lifts them
all). The command line estimates the work *before* it starts and refuses with a
:class:`~symq.errors.TooLargeError` (one line, exit status 2) that gives the estimate; the Python
API does not apply the work limits (call :func:`check` yourself), except the model-size limit of the
built-in catalogue, which protects every caller.

Examples
--------
>>> from symq.limits import LIMITS
>>> LIMITS["dp-steps"].default
300000
>>> check("states", 10**9, "verify w --max-jobs 50")
Traceback (most recent call last):
...
symq.errors.TooLargeError: too large: verify w --max-jobs 50 needs about 1.0e+09 states with at most N+1 jobs (limit 50,000); pass --max-work 1000000000 to go ahead, or --no-limits

Running time: O(1) per check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from symq.errors import TooLargeError

__all__ = ["Limit", "LIMITS", "TooLargeError", "check", "limit_value"]


@dataclass(frozen=True)
class Limit:
    """One named limit: its default, what it counts, and the option that raises it."""

    name: str
    default: int
    unit: str
    counts: str
    option: str = "--max-work N, --no-limits"


LIMITS: dict[str, Limit] = {limit.name: limit for limit in (
    Limit("dp-steps", 300_000, "subset-DP steps",
          "`evaluate`, `derive`, `report` with numeric rates: server sets the subset DP visits "
          "(unions of class server sets; all 2^M sets for alis and rais) times (classes + servers)"),
    Limit("certified-steps", 50_000_000, "certified DP steps",
          "`evaluate` in certified digits (no --exact): dp-steps' count, fixed-point kernels; "
          "certified gradients: three times that per output swept"),
    Limit("kernel-steps", 1_000_000_000, "compiled certified DP steps",
          "`evaluate` in certified digits on the compiled fixed-point kernels (rates whose "
          "numerators and denominators fit 31 bits): dp-steps' count; a random 24-server ALIS "
          "graph counts 8.1e8 and runs in 20 to 60 s"),
    Limit("symbolic-dp-steps", 200, "symbolic subset-DP steps",
          "the same count for symbolic rates (every step is rational-function algebra)"),
    Limit("formula-steps", 60_000, "formula steps",
          "`derive` with symbolic rates (structured formulas, closed forms): definitions times "
          "(classes + servers), each printed as text and LaTeX (about 0.1 ms per step); "
          "Cabral's closed forms count the 2^n monomials of the symmetric sums"),
    Limit("memory", 4_096, "MiB",
          "certified digits and other large tables: the memory the computation would hold; "
          "the limit is a quarter of the machine's physical memory (4,096 MiB is the value on "
          "a 16 GiB machine)", option="--no-limits"),
    Limit("expanded-terms", 6_000_000, "terms",
          "`derive --form expanded|factored` with symbolic rates: a bound on the terms of the "
          "numerators and denominators of the result (all monomials of their degrees, found by "
          "the same arithmetic on a line; about 5 s per million on one core)"),
    Limit("states", 50_000, "states with at most N+1 jobs",
          "`verify --max-jobs N`, `report --verify-jobs N`: states of the Markov process that the "
          "balance check enumerates (estimated from the growth of the first levels)"),
    Limit("report-work", 50_000, "report steps",
          "`report`: the sum of what it contains, in steps of about 0.1 ms: the formula steps "
          "of its structured formulas, a tenth of a step per subset-DP step of its values, and "
          "its balance check (a step a state with numeric rates, (J+M)^3/40 with symbolic "
          "ones; for RAIS the canonical routing, as routing-work counts it); --verify-jobs 0 "
          "leaves the check out"),
    Limit("routing-work", 100_000, "routing steps",
          "`verify --discipline rais` (canonical routing): the routing built before the balance "
          "check, in steps of about 0.1 ms: 3^M J' field operations for the J' classes not on "
          "every server, times D^3/6 with symbolic rates (D distinct arrival rates L(I) of "
          "server sets), /100 numerically; ring:4 39,366 (3.7 s) runs, ring:5 829,440 (over 5 "
          "minutes) is refused"),
    Limit("graph-drawing", 1_200, "nodes and edges",
          "`plot MODEL graph`: classes + servers + compatible class-server pairs that matplotlib "
          "draws (about 4 ms each: redundancy:9:4, 639 of them, 2.7 s; redundancy:10:5, 1,522, "
          "5.7 s)"),
    Limit("supermarket-work", 200_000, "max-flow arcs",
          "`supermarket`: the arcs of the max-flows of the breakpoint search, all together "
          "(streams + stream-station pairs + stations each, about 30 microseconds an arc with "
          "Dinitz; at most 2N-1 max-flows); the search stops before a max-flow that would pass "
          "it (redundancy:16:8 with equal rates: one max-flow of 115,846 arcs)"),
    Limit("sweep-work", 10_000_000, "graph-enumeration steps",
          "`sweep --classes J --servers M`: candidate class-to-server-set rows times M! "
          "relabellings tried per candidate"),
    Limit("compensation-digits", 1_000, "digits",
          "`compensation --digits`: significant digits (the series needs about one level per few "
          "digits, each level more terms)", option="--no-limits"),
    Limit("compensation-box", 28_800, "box states",
          "`compensation --box N0`: states s N0^2 of the near-origin box solved exactly "
          "(N0 = 120 for s = 2)", option="--no-limits"),
    Limit("model-classes", 20_000, "classes",
          "built-in `redundancy:K:D`: its C(K, D) classes (one per D-subset of servers)",
          option="a smaller K or D (the limit is fixed)"),
    Limit("digits", 10_000, "digits",
          "`evaluate --digits`, `report --digits`: significant digits of a decimal value",
          option="fixed"),
    Limit("exact-digits", 4_300, "digits",
          "`evaluate`: an exact rational whose numerator or denominator has more digits is "
          "summarised by its digit counts (the decimal value is printed in full)",
          option="--full-exact"),
)}


def limit_value(name: str, args: Any = None) -> int | None:
    """The limit ``name`` for a command's parsed ``args`` (``None``: no limit).

    ``args.no_limits`` lifts it, ``args.max_work`` replaces it; otherwise the default.

    Parameters
    ----------
    name : str
        A key of :data:`LIMITS`.
    args : argparse.Namespace, optional
        The command's parsed arguments (``no_limits``, ``max_work``); ``None``: the default.

    Returns
    -------
    int or None
        The limit, or ``None`` for no limit.

    Examples
    --------
    >>> limit_value("states")
    50000
    >>> from argparse import Namespace
    >>> limit_value("states", Namespace(no_limits=False, max_work=10)), limit_value("states", Namespace(no_limits=True))
    (10, None)

    Running time: O(1).
    """
    if args is not None and getattr(args, "no_limits", False):
        return None
    given = getattr(args, "max_work", None) if args is not None else None
    return int(given) if given is not None else LIMITS[name].default


def number_text(value: int) -> str:
    return f"{value:,}" if value < 10**7 else f"{value:.1e}"


def check(name: str, estimate: int, what: str, limit: int | None = -1,
          remedy: str | None = None) -> None:
    """Raise :class:`TooLargeError` when ``estimate`` is past the limit ``name``.

    Parameters
    ----------
    name : a key of :data:`LIMITS`
    estimate : the estimated count (in the limit's unit)
    what : the input, as the user wrote it (``"verify w --max-jobs 50"``)
    limit : the limit to apply; ``-1`` (default) for the documented default, ``None`` for none
    remedy : what to do instead of the default advice (``--max-work N`` or ``--no-limits``)

    Raises
    ------
    TooLargeError
        One line: what is too large, the estimate, the limit and the option that raises it.

    Examples
    --------
    >>> check("states", 100, "verify w --max-jobs 2")   # within the limit: nothing happens
    >>> check("states", 60000, "verify w --max-jobs 50")
    Traceback (most recent call last):
    ...
    symq.errors.TooLargeError: too large: verify w --max-jobs 50 needs about 60,000 states with at most N+1 jobs (limit 50,000); pass --max-work 60000 to go ahead, or --no-limits

    Running time: O(1).
    """
    spec = LIMITS[name]
    if limit == -1:
        limit = spec.default
    if limit is None or estimate <= limit:
        return
    if remedy is None:
        if "--max-work" in spec.option:
            remedy = f"pass --max-work {estimate} to go ahead, or --no-limits"
        else:
            remedy = f"use {spec.option}" if spec.option.startswith("--") else spec.option
    raise TooLargeError(f"too large: {what} needs about {number_text(estimate)} {spec.unit} "
                        f"(limit {number_text(limit)}); {remedy}")
