r"""Work estimates, checked against :mod:`symq.limits` before any work starts: the steps of the
subset DPs, the terms of an expanded formula, the states of a balance check, the steps of a graph
sweep and the states of a compensation box. Every estimate is cheap by design: at most about the
limit in set operations on Python integers (:func:`count_unions` stops as soon as the count
passes the limit). The route table (:mod:`symq.queries.routes`) names, for each route, the
estimate that guards it.

Examples
--------
>>> from symq import model
>>> subset_dp_steps(model("w"), "collaborative")   # nested: closed form, (3 + 2)^2
25
"""

from __future__ import annotations

import math
from typing import Any

from symq.errors import TooLargeError
from symq.limits import LIMITS, number_text, check, limit_value
from symq.models.model import DISCIPLINES

__all__ = ["count_unions", "subset_dp_steps", "check_subset_dp", "check_expanded",
           "estimate_states", "sweep_work", "compensation_box_states", "formula_steps",
           "uninformed_steps", "state_bound", "memory_limit", "certified_memory", "tape_memory",
           "MEMORY_SHARE", "capped_power", "sweep_check_steps", "check_certified_memory",
           "report_work", "routing_steps", "state_check_steps", "REPORT_FORMULAS"]


# ------------------------------------------------------------------------------ subset DPs
def _masks(model) -> list[int]:
    index = {s: j for j, s in enumerate(model.servers)}
    return sorted({sum(1 << index[s] for s in servers) for servers in model.compatibility.values()})


def count_unions(masks: list[int], cap: int | None = None) -> int | None:
    """The number of unions of the sets ``masks`` (bitmasks), the empty union included.

    Returns ``None`` as soon as the count passes ``cap``: the work is then at most about
    ``cap * len(masks)`` set operations.

    Parameters
    ----------
    masks : list of int
        The class server sets as bit masks.
    cap : int, optional
        Stop counting past this many unions.

    Returns
    -------
    int or None
        The number of unions, or ``None`` past ``cap``.

    Running time: O(J^2) for the independent-family bound, then O(U J) set operations for U
    unions (at most about ``cap * J``).

    Examples
    --------
    >>> count_unions([0b01, 0b10, 0b11])
    4
    >>> count_unions([1 << j for j in range(40)], cap=1000) is None
    True
    """
    if cap is not None and 1 << _independent_family(masks) > cap:
        return None  # at least 2^k unions: refused without counting
    reach = {0}
    for mask in sorted(set(masks), key=lambda m: (-m.bit_count(), m)):  # large sets first:
        # the count grows fastest and passes the cap after the fewest set operations
        reach |= {x | mask for x in reach}
        if cap is not None and len(reach) > cap:
            return None
    return len(reach)


def _independent_family(masks: list[int]) -> int:
    """The size k of a family of the sets ``masks`` (found greedily) in which every member has
    a server that no other member has: the $2^k$ unions of its subfamilies differ, so there are
    at least $2^k$ unions. ``once`` holds the servers in exactly one member, ``more`` those in
    several. Running time: O(J M) set operations (the family has at most M members)."""
    family: list[int] = []
    once = more = 0
    for mask in sorted(set(masks), key=lambda m: (m.bit_count(), m)):
        new_more = more | (once & mask)
        new_once = (once | mask) & ~new_more
        if all(m & new_once for m in (*family, mask)):
            family.append(mask)
            once, more = new_once, new_more
    return len(family)


def subset_dp_steps(model, discipline: str = "collaborative", cap: int | None = None) -> int | None:
    r"""Steps of the exact subset DP of :mod:`symq.engines.normalization` for ``model``.

    Unions of class server sets times (classes + servers) for the collaborative discipline, plus all
    $2^M$ server sets times (classes + servers) for ``alis`` and ``rais``. Structured models
    (``redundancy:K:D``, nested models under the collaborative discipline, ``uninformed:N``
    under ``rais``) are solved without the general DP and count (classes + servers) squared.
    Returns ``None`` when the unions alone pass ``cap`` (counting then stops early).

    Parameters
    ----------
    model : Model
        The model.
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.
    cap : int, optional
        Stop counting past about this many steps.

    Returns
    -------
    int or None
        The estimated steps, or ``None`` past ``cap``.

    Running time: that of :func:`count_unions` with cap ``cap / (J + M)``.

    Examples
    --------
    >>> from symq import model
    >>> subset_dp_steps(model("w"), "alis")   # (4 unions + 2^2 server sets) times (3 + 2)
    40
    """
    classes, servers = len(model.classes), len(model.servers)
    width = classes + servers
    if _structured(model, discipline):
        return width * width
    unions = count_unions(_masks(model), None if cap is None else cap // width + 1)
    if unions is None:
        return None
    steps = unions * width
    if discipline != "collaborative":
        steps += (1 << servers) * width
    return steps


def _structured(model, discipline: str) -> bool:
    """True when :mod:`symq.engines.normalization` solves ``model`` without the general subset DP
    (the structure picks nested, ring or ``redundancy:K:D``); also one fully flexible class
    under ``rais`` (``uninformed:N``, closed forms). Components count as the whole graph (an
    overestimate: each may be large)."""
    if discipline == "rais" and len(model.classes) == 1:
        return True
    try:
        from symq.engines.nested import is_nested
        from symq.engines.normalization.ring import is_ring
        from symq.engines.normalization.structured import components, is_symmetric_redundancy
        return len(components(model)) == 1 and (
            is_symmetric_redundancy(model) or discipline == "collaborative"
            and (is_nested(model) or is_ring(model)))
    except Exception:  # noqa: BLE001 - an estimate never fails; the computation reports errors
        return False


def check_subset_dp(model, discipline: str, what: str, args: Any = None,
                    certified: bool = False) -> int:
    """Refuse a subset DP past its limit (numeric, certified or symbolic); return the estimated
    steps. ``certified``: the numeric values come from the fixed-point interval kernels
    (limit ``certified-steps``) instead of exact rationals (``dp-steps``).

    Parameters
    ----------
    model : Model
        The model (numeric rates: ``dp-steps`` or ``certified-steps``; symbolic:
        ``symbolic-dp-steps``).
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.
    what : str
        The request as the user wrote it, for the message.
    args : argparse.Namespace, optional
        ``--max-work N`` and ``--no-limits`` (:func:`symq.limits.limit_value`).
    certified : bool
        The values come from the certified fixed-point kernels.

    Returns
    -------
    int
        The estimated steps (:func:`subset_dp_steps`).

    Raises
    ------
    TooLargeError
        The estimate (or the count so far, when counting stopped early) is past the limit.

    Examples
    --------
    >>> from symq import example_model
    >>> check_subset_dp(example_model("w"), "alis", "evaluate w")   # (4 + 4) * (3 + 2)
    40
    >>> from argparse import Namespace
    >>> check_subset_dp(example_model("w"), "alis", "evaluate w",
    ...                 Namespace(max_work=10, no_limits=False))
    Traceback (most recent call last):
    ...
    symq.errors.TooLargeError: too large: evaluate w needs about 20 subset-DP steps (limit 10); pass --max-work 20 to go ahead, or --no-limits

    Running time: that of :func:`subset_dp_steps`, stopped at the limit.
    """
    name = ("certified-steps" if certified else "dp-steps") if model.is_numeric else \
        "symbolic-dp-steps"
    limit = limit_value(name, args)
    width = len(model.classes) + len(model.servers)
    if discipline != "collaborative" and not _structured(model, discipline):
        check(name, (1 << len(model.servers)) * width, what, limit)  # all 2^M server sets
    steps = subset_dp_steps(model, discipline, cap=limit)
    if steps is None:  # counting stopped past the limit
        spec = LIMITS[name]
        raise TooLargeError(
            f"too large: {what} needs more than {number_text(limit)} {spec.unit} (the limit; "
            f"counting the unions of class server sets stopped there, at most "
            f"{number_text((1 << len(model.servers)) * width)}); pass --max-work N with a larger N "
            "to go ahead, or --no-limits")
    check(name, steps, what, limit)
    return steps


def check_expanded(model, quantity: str, discipline: str, what: str, args: Any = None) -> int:
    """Refuse an expanded (or factored) formula whose size bound is past ``expanded-terms``;
    return the bound.

    The bound (:meth:`symq.engines.formulas.Structured.expanded_size`) counts the monomials of the
    degrees of the result's numerators and denominators; the degrees come from the same
    definitions evaluated on a line (milliseconds), and the cost of the expanded route (its
    products, cancellations and printing) grows with the number of terms.

    Raises
    ------
    TooLargeError
        The bound is past the limit (``ring:4`` ALIS mean numbers: about 2.5e+07 terms).

    Parameters
    ----------
    model : Model
        The model (symbolic rates).
    quantity, discipline : str
        As :func:`symq.engines.formulas.structured`.
    what : str
        The input as the user wrote it, for the error message.
    args : argparse.Namespace, optional
        The command's parsed arguments (``--max-work``, ``--no-limits``).

    Returns
    -------
    int
        The bound on the number of terms, returned only when it is within ``expanded-terms``.

    Examples
    --------
    Model N's collaborative mean number expands to at most 63 terms, well within the limit:

    >>> from symq import model
    >>> check_expanded(model("n"), "mean-number", "collaborative", "derive n --form expanded")
    63

    Running time: that of the structured definitions evaluated on a line (milliseconds for
    the built-in models).
    """
    if quantity in ("response-time", "waiting-time"):  # the structured transform's laws
        from symq.engines.response_time.structured import transform_formula
        estimate = transform_formula(model, quantity.split("-")[0], discipline).expanded_size()
    else:
        from symq.engines.formulas import structured
        estimate = structured(model, quantity, discipline).expanded_size()
    check("expanded-terms", estimate, what, limit_value("expanded-terms", args))
    return estimate


# ------------------------------------------------------------------------------ Markov states
def estimate_states(process, max_jobs: int, sample: int = 3000) -> tuple[int, bool]:
    """The number of valid states with at most ``max_jobs + 1`` jobs (what a balance check with
    ``max_jobs`` enumerates), and whether it is exact.

    Enumerates the first levels while they hold at most ``sample`` states, then extrapolates
    geometrically with the growth ratio of the last two levels (exact for the FCFS class
    sequences, whose levels grow by the number of classes; an overestimate when growth slows).

    Parameters
    ----------
    process
        A process of :func:`symq.engines.balance.build_process`.
    max_jobs : int
        The balance check's ``max_jobs``.
    sample : int
        Enumerate levels while they hold at most this many states.

    Returns
    -------
    tuple of (int, bool)
        The (estimated) number of states and whether it is exact.

    Running time: O(sample) states enumerated (plus the first level past it).

    Examples
    --------
    >>> from symq import model
    >>> from symq.engines.balance import build_process
    >>> estimate_states(build_process(model("w")), 2)   # 1 + 3 + 9 + 27 class sequences
    (40, True)
    >>> estimate_states(build_process(model("w")), 50, sample=100)[0] > 10**20
    True
    """
    target = max_jobs + 1
    previous_total, previous_level = 0, 0
    total = level = 0
    for size in range(target + 1):
        total = len(process.states(size))
        level = total - previous_total
        if size == target:
            return total, True
        if total > sample and size >= 2:
            break
        previous_total, previous_level = total, level
    remaining = target - size
    if not previous_level or level <= previous_level:
        return min(total + level * remaining, _HUGE), False
    # level * r (r^remaining - 1) / (r - 1) with r = level / previous_level, in logarithms
    # first (no float overflow for any max_jobs), exact integers once it is small
    ratio = level / previous_level
    if math.log10(level) + remaining * math.log10(ratio) > 300:
        return _HUGE, False
    extra = level * ratio * (ratio ** remaining - 1) / (ratio - 1)
    return min(total + int(extra), _HUGE), False


#: what the estimates return for "more than any limit" (10^300): an integer, never a float
_HUGE = 10 ** 300


def capped_power(base: int, exponent: int, cap: int = _HUGE) -> int:
    """``min(base ** exponent, cap)`` without building a huge integer (logarithms decide first).

    Parameters
    ----------
    base, exponent : int
        Non-negative integers.
    cap : int
        The largest value returned, $10^{300}$ by default.

    Returns
    -------
    int
        ``base ** exponent`` when it is below ``cap``, else ``cap`` (1 for a zero exponent).

    Examples
    --------
    >>> capped_power(3, 4), capped_power(10, 10**9) == 10**300
    (81, True)

    Running time: O(1) past the cap, else one exponentiation below it.
    """
    if base <= 1 or exponent <= 0:
        return 1 if exponent <= 0 or base == 1 else 0
    if exponent * math.log10(base) > math.log10(cap) + 1:
        return cap
    return min(base ** exponent, cap)


def state_bound(model, discipline: str, max_jobs: int) -> int | None:
    r"""An upper bound on the states with at most ``max_jobs + 1`` jobs of the verbal model that
    ``verify`` enumerates, from the counts alone (the process is not built): the FCFS class
    sequences $\sum_{k\le n+1} J^k$ (exact for ``collaborative``); for ``alis`` and ``rais``
    each sequence also carries the order of the idle servers, at most $M!$ orders with no job
    and $(M-1)!$ with one or more (some server is busy). ``None`` for the matching
    disciplines (their states are counted from the process). Capped at $10^{300}$.

    Parameters
    ----------
    model : Model
    discipline : str
    max_jobs : int

    Returns
    -------
    int or None

    Examples
    --------
    >>> from symq import model
    >>> state_bound(model("w"), "collaborative", 2)   # 1 + 3 + 9 + 27
    40
    >>> state_bound(model("ring:8"), "rais", 2)       # 8! + 7! (8 + 64 + 512)
    2983680
    >>> state_bound(model("w"), "collaborative", 1000) == 10**300
    True

    Running time: O(M) integer products (logarithms first: no huge integer is built).
    """
    if discipline not in DISCIPLINES:
        return None
    classes, servers = len(model.classes), len(model.servers)
    levels = max_jobs + 1
    if classes == 1:
        sequences = levels + 1
    else:  # (J^(n+2) - 1) / (J - 1)
        power = capped_power(classes, levels + 1)
        sequences = _HUGE if power >= _HUGE else (power - 1) // (classes - 1)
    if discipline == "collaborative":
        return min(sequences, _HUGE)
    if math.lgamma(servers + 1) / math.log(10) > 300:
        return _HUGE
    return min(math.factorial(servers) + math.factorial(servers - 1) * (sequences - 1), _HUGE)


# ------------------------------------------------------------------------------ formulas
def formula_steps(model, quantity: str, discipline: str, cap: int | None = None) -> int | None:
    r"""Work of a structured formula (``derive`` with symbolic rates, the ``formulas`` route):
    its definitions times their width (classes + servers), each printed as text and LaTeX.

    The builder of :mod:`symq.engines.formulas` defines one weight per union $U$ of class
    server sets (collaborative; the nested closed form has about $J + M$ definitions), one per
    server set and idle order, $2^M M$, for ALIS and RAIS; the mean numbers add the
    continuation weights ($U$ more, and $J U$ terms) or, under RAIS, $J 2^M M$. Returns
    ``None`` once the count passes ``cap``.

    Parameters
    ----------
    model : Model
    quantity, discipline : str
    cap : int, optional
        Stop counting past this many steps.

    Returns
    -------
    int or None

    Examples
    --------
    >>> from symq import model
    >>> formula_steps(model("ring:12"), "empty-probability", "collaborative")  # 853 unions x 24
    20472
    >>> formula_steps(model("ring:30"), "empty-probability", "collaborative", cap=60000) is None
    True
    >>> formula_steps(model("n"), "mean-number", "collaborative")   # nested: (2 + 2)^2
    16

    Running time: that of :func:`count_unions` with cap ``cap / (J + M)``; O(1) past the cap
    for ALIS and RAIS ($2^M M$ is compared with the cap before counting).
    """
    classes, servers = len(model.classes), len(model.servers)
    width = classes + servers
    mean = quantity in ("mean-number", "mean-response-time")
    if discipline == "collaborative":
        from symq.engines.nested import is_nested
        if is_nested(model):
            return width * width
    extra = 0
    if discipline != "collaborative":
        if cap is not None and servers > 62:
            return None
        extra = (1 << servers) * servers * (classes if mean and discipline == "rais" else 1)
        if cap is not None and extra > cap:
            return None
    unions = count_unions(_masks(model), None if cap is None else cap // width + 1)
    if unions is None:
        return None
    steps = unions * width + extra
    if discipline == "collaborative" and mean:
        steps += unions * width + classes * unions  # the continuation weights and their sums
    elif quantity == "server-idle-probability":
        steps += servers * unions
    return steps if cap is None or steps <= cap else None


def uninformed_steps(model, quantity: str) -> int:
    r"""Work of Cabral's closed forms (the ``uninformed`` route): with numeric rates the
    $n + 1$ elementary symmetric sums cost $O(n^2)$; with symbolic rates each
    $P(S^{-n}, k)$ is expanded into its $\binom{n}{k}$ monomials, $2^n$ in all, and the mean
    numbers take about ten times the work of the empty probability ($n 2^n$ each, measured:
    ``uninformed:13`` 33 s, its mean number 92 s).

    Parameters
    ----------
    model : Model
        An ``uninformed:N`` model (one class compatible with all $n$ servers).
    quantity : str
        The quantity asked for.

    Returns
    -------
    int
        The estimated steps (``formula-steps`` with symbolic rates, ``dp-steps`` with numeric).

    Examples
    --------
    >>> from symq import model, example_model
    >>> uninformed_steps(model("uninformed:4"), "empty-probability")   # 3 * 4 * 2^4
    192
    >>> uninformed_steps(example_model("uninformed:30"), "mean-number")   # 31^2
    961

    Running time: O(1).
    """
    servers = len(model.servers)
    if model.is_numeric:
        return (servers + 1) ** 2
    factor = 10 if quantity in ("mean-number", "mean-response-time") else 3
    return factor * servers * capped_power(2, servers)


# ------------------------------------------------------------------------------ memory
#: the share of the machine's physical memory that one computation may plan to use
MEMORY_SHARE = (1, 4)


def memory_limit(args: Any = None) -> int | None:
    """The ``memory`` limit in MiB: a quarter (:data:`MEMORY_SHARE`) of the machine's physical
    memory (``os.sysconf``; 16 GiB where it cannot be read), ``None`` with ``--no-limits``.

    Parameters
    ----------
    args : argparse.Namespace, optional
        The command's arguments (``no_limits``); ``None``: the default.

    Returns
    -------
    int or None
        MiB, or ``None`` for no limit.

    Examples
    --------
    >>> memory_limit() > 0
    True

    Running time: O(1).
    """
    if args is not None and getattr(args, "no_limits", False):
        return None
    import os
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        total = 16 << 30
    return total * MEMORY_SHARE[0] // MEMORY_SHARE[1] >> 20


def certified_memory(model, discipline: str, digits: int) -> int | None:
    r"""MiB that the certified DPs hold at ``digits`` digits: every stored set (the unions of
    class server sets, plus the $2^M$ server sets for ALIS and RAIS) keeps about four
    fixed-point numbers of $3.33\,d$ bits (the bounds of the weight and of its continuation)
    and 200 bytes of bookkeeping. ``None`` when the sets are too many to count (the step
    limits refuse those first).

    Parameters
    ----------
    model : Model
        The model.
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.
    digits : int
        The significant digits asked for.

    Returns
    -------
    int or None
        MiB (rounded down), or ``None`` past $10^7$ stored sets.

    Examples
    --------
    >>> from symq import example_model
    >>> certified_memory(example_model("w"), "alis", 30)   # 8 sets: far below one MiB
    0

    Running time: that of :func:`count_unions` (capped at $10^7$ sets).
    """
    width = len(model.classes) + len(model.servers)
    steps = subset_dp_steps(model, discipline, cap=10 ** 7 * width)
    if steps is None:
        return None
    sets = steps // width
    return sets * (4 * (digits * 10 // 3 // 8 + 40) + 200) >> 20


def tape_memory(model, discipline: str, digits: int) -> int | None:
    r"""MiB that the recorded tape of a certified gradient holds (route ``reverse-mode`` on
    balls): per subset-DP step about 40 bytes of Python objects and one ball of
    $3.33\,d + 2M + 32$ bits (the subset transforms are recorded as blocks of bare balls;
    measured at 30 digits: a random 16-server ALIS graph, 2.2 million steps, 275 MB peak; a
    20-server one, 42 million steps, 3.0 GB). ``None`` past $10^9$ steps.

    Parameters
    ----------
    model : Model
        The model (numeric rates).
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.
    digits : int
        The significant digits asked for.

    Returns
    -------
    int or None
        MiB (rounded down), or ``None`` past $10^9$ steps.

    Examples
    --------
    >>> from symq import example_model
    >>> tape_memory(example_model("w"), "alis", 30)
    0

    Running time: that of :func:`subset_dp_steps` (capped at $10^9$ steps).
    """
    steps = subset_dp_steps(model, discipline, cap=10 ** 9)
    if steps is None:
        return None
    bits = digits * 10 // 3 + 2 * len(model.servers) + 32
    return steps * (40 + bits // 8 + 16) >> 20


def check_certified_memory(model, discipline: str, digits: int, what: str,
                           args: Any = None, tape: bool = False) -> None:
    """Refuse certified digits whose tables (with ``tape``: the recorded tape of a certified
    gradient, :func:`tape_memory`) would pass the ``memory`` limit (:func:`memory_limit`, a
    quarter of the machine's memory; ``--no-limits`` lifts it).

    Parameters
    ----------
    model : Model
        The model.
    discipline : str
        ``"collaborative"``, ``"alis"`` or ``"rais"``.
    digits : int
        The significant digits asked for.
    what : str
        The request as the user wrote it, for the message.
    args : argparse.Namespace, optional
        ``--no-limits`` lifts the check.
    tape : bool
        Estimate the tape of a certified gradient instead of the DP's tables.

    Returns
    -------
    None

    Raises
    ------
    TooLargeError
        ``evaluate G mean-number --digits 10000`` on a 24-server graph of 470,000 unions
        (about 8 GB).

    Examples
    --------
    >>> from symq import example_model
    >>> check_certified_memory(example_model("w"), "alis", 30, "evaluate w")   # a few kB

    Running time: that of :func:`certified_memory`.
    """
    limit = memory_limit(args)
    if limit is None:
        return
    need = (tape_memory if tape else certified_memory)(model, discipline, digits)
    if need is not None and need > limit:
        raise TooLargeError(
            f"too large: {what} needs about {number_text(need)} MiB of memory at {digits} "
            f"digits (limit {number_text(limit)} MiB, a quarter of this machine's memory); "
            "ask for fewer --digits, or pass --no-limits")


# ------------------------------------------------------------------------------ reports
#: the quantities whose structured formulas a report with symbolic rates prints
REPORT_FORMULAS = ("empty-probability", "normalizing-constant", "server-idle-probability",
                   "mean-number", "mean-response-time")


def state_check_steps(model, states: int) -> int:
    r"""Report steps (about 0.1 ms each, as a formula step) of a balance check of ``states``
    states: one a state with numeric rates; with symbolic rates every equation is simplified as
    a rational function in the $J + M$ rates, about $(J+M)^3/40$ steps a state (measured:
    ``ring:3`` 0.2-0.5 ms, ``ring:6`` 3.4-3.9 ms a state).

    Parameters
    ----------
    model : Model
        The model whose rates the check uses.
    states : int
        The estimated states (:func:`estimate_states`).

    Returns
    -------
    int

    Examples
    --------
    >>> from symq import model, example_model
    >>> state_check_steps(model("ring:6"), 1555), state_check_steps(example_model("w"), 121)
    (66865, 121)

    Running time: O(1).
    """
    if model.is_numeric:
        return states
    width = len(model.classes) + len(model.servers)
    return states * max(1, width ** 3 // 40)


def routing_steps(model) -> int:
    r"""Steps (about 0.1 ms each) of the canonical RAIS routing that the balance check builds
    (:func:`symq.engines.processes.noncollaborative.canonical_routing`): a DP over idle sets
    and their prefixes, $3^M J'$ field operations for the $J'$ classes not compatible with
    every server (a class on every server is routed by the prefix weights alone). With symbolic
    rates every operation is rational-function algebra on products of the $D$ distinct arrival
    rates $L(I)$ of server sets, so $3^M J' D^3/6$ steps; numerically $3^M J'/100$. Measured:
    ``ring:4`` (D = 9) 3.7 s, 39,366 steps; ``redundancy:5:2`` (D = 4) 1.3 s; ``uninformed:7``
    (J' = 0) 2 s; ``ring:5`` (D = 16, 829,440 steps) and the nested 5-server model (D = 16)
    over 5 minutes. Capped at $10^{300}$.

    Parameters
    ----------
    model : Model

    Returns
    -------
    int

    Examples
    --------
    >>> from symq import model
    >>> routing_steps(model("ring:4")), routing_steps(model("ring:5")), routing_steps(model("w"))
    (39366, 829440, 81)
    >>> routing_steps(model("uninformed:7"))
    364

    Running time: O(2^M J) for M <= 16 servers (the distinct rates counted), O(1) beyond.
    """
    m = len(model.servers)
    index = {s: k for k, s in enumerate(model.servers)}
    masks = [sum(1 << index[s] for s in model.compatibility[c]) for c in model.classes]
    partial = max(1, sum(1 for mask in masks if mask != (1 << m) - 1))
    power = capped_power(3, m) * partial
    if model.is_numeric:
        return min(power // 100 + 1, _HUGE)
    if m > 16:
        return _HUGE  # past 16 servers the symbolic routing is out of reach anyway
    rates = [str(model.arrival_rates[c]) for c in model.classes]
    distinct = {tuple(sorted(r for r, mask in zip(rates, masks) if mask & idle))
                for idle in range(1, 1 << m)}
    return min(power * len(distinct) ** 3 // 6, _HUGE)


def report_work(model, disciplines, verify_jobs: int, limit: int | None = None,
                processes: dict | None = None, quantities: int = 5) -> dict[str, int]:
    r"""The work of ``symq report``, the sum of what it contains, in report steps (about
    0.1 ms each): its structured formulas (:func:`formula_steps` of each printed quantity, for
    symbolic rates on at most 6 servers), its values (the subset DP of every quantity at the
    example rates, :func:`subset_dp_steps`, a tenth of a report step each) and its balance
    check at ``verify_jobs`` jobs (:func:`state_check_steps` of :func:`estimate_states`, plus
    :func:`routing_steps` for RAIS, counted *before* the process is built: building it is the
    routing).

    Parameters
    ----------
    model : Model
        The report's model (symbolic or numeric rates).
    disciplines : sequence of str
        The disciplines the report covers.
    verify_jobs : int
        ``--verify-jobs`` (0: no balance check).
    limit : int, optional
        Stop as soon as the total passes it (no process is built past it); ``None``: count all.
    processes : dict, optional
        Filled with the processes of the balance check built here, by discipline, so that the
        report does not build them again; a discipline without a balance check (its process
        raises :class:`~symq.errors.SymqError`, which the report prints) is left out.
    quantities : int
        How many quantities the report evaluates (each one subset DP).

    Returns
    -------
    dict
        ``{"formulas": n, "values": n, "check <discipline>": n, ..., "total": n}``.

    Examples
    --------
    >>> from symq import model
    >>> work = report_work(model("w"), ("collaborative", "alis", "rais"), 3, quantities=9)
    >>> work["formulas"], work["values"], work["check rais"], work["total"]
    (453, 94, 216, 1195)
    >>> report_work(model("ring:6"), ("rais",), 3, limit=50000)["check rais"]   # routing_steps
    16003008

    Running time: that of the estimates, plus building the processes of the balance check
    within the limit.
    """
    from symq.errors import SymqError

    work: dict[str, int] = {"formulas": 0, "values": 0}
    if not model.is_numeric and len(model.servers) <= 6:
        work["formulas"] = sum(formula_steps(model, quantity, d) or 0
                               for d in disciplines for quantity in REPORT_FORMULAS)
    for d in disciplines:
        steps = subset_dp_steps(model, d, cap=_HUGE // 100) or _HUGE
        work["values"] += max(1, steps * quantities // 10)

    def total() -> int:
        return min(sum(work.values()), _HUGE)
    if verify_jobs:
        from symq.engines.balance import build_process
        for d in disciplines:
            if limit is not None and total() > limit:
                break
            key = f"check {d}"
            work[key] = routing_steps(model) if d == "rais" else 0
            if limit is not None and total() > limit:
                break
            try:
                process = build_process(model, d, **({"check_routing": False}
                                                     if d == "rais" else {}))
            except SymqError:  # the report says why this discipline is not checked
                continue
            work[key] += state_check_steps(model, estimate_states(process, verify_jobs)[0])
            if processes is not None:
                processes[d] = process
    work["total"] = total()
    return work


# ------------------------------------------------------------------------------ sweeps
def sweep_work(max_classes: int, max_servers: int) -> int:
    r"""Steps of the graph enumeration of :func:`symq.models.graphs.compatibility_graphs`:
    $\sum_{j\le J,\,m\le M}\binom{2^m+j-2}{j}\,m!$ (candidate rows times relabellings).

    Parameters
    ----------
    max_classes, max_servers : int
        The sweep's ``--classes J`` and ``--servers M``.

    Returns
    -------
    int
        The step count.

    Running time: O(J M) big-integer binomials.

    Examples
    --------
    >>> sweep_work(3, 3)
    755
    >>> sweep_work(7, 7) > 10**14
    True
    """
    return sum(math.comb((1 << m) - 1 + j - 1, j) * math.factorial(m)
               for j in range(1, max_classes + 1) for m in range(1, max_servers + 1))


def sweep_check_steps(check: str, max_classes: int, max_servers: int,
                      max_jobs: int | None = None, disciplines: int = 3) -> int:
    r"""Work of the checks of a sweep: every candidate graph (an overestimate of the graphs up to
    relabelling) times the work of its check: for ``balance`` the states of
    :func:`state_bound` at ``max_jobs`` (default 2) under each discipline, for the other
    checks one subset DP, $2^M (J + M)$.

    Parameters
    ----------
    check : str
        The sweep's check name.
    max_classes, max_servers : int
    max_jobs : int, optional
    disciplines : int
        How many disciplines the balance check runs.

    Returns
    -------
    int

    Examples
    --------
    >>> sweep_check_steps("balance", 2, 2)
    403
    >>> sweep_check_steps("balance", 7, 4) > 10**7
    True

    Running time: O(J M) big-integer binomials.
    """
    jobs = 2 if max_jobs is None else max_jobs
    total = 0
    for m in range(1, max_servers + 1):
        for j in range(1, max_classes + 1):
            graphs = math.comb((1 << m) - 1 + j - 1, j)
            if check == "balance":
                levels = jobs + 1
                sequences = (capped_power(j, levels + 1) - 1) // (j - 1) if j > 1 else levels + 1
                per = sequences + (disciplines - 1) * (math.factorial(m) +
                                                       math.factorial(m - 1) * sequences)
            else:
                per = (1 << m) * (j + m)
            total += graphs * per
    return min(total, _HUGE)


def compensation_box_states(box: int, s: int) -> int:
    """States ``s * box**2`` of the near-origin box of the compensation solver.

    Parameters
    ----------
    box : int
        The box side ``N0``.
    s : int
        The number of servers.

    Returns
    -------
    int
        The number of box states.

    Examples
    --------
    >>> compensation_box_states(120, 2)
    28800

    Running time: O(1).
    """
    return s * box * box
