r"""The compensation tree, built level by level, with merging and pruning.
Level 0 is the initial group; each new term of a level-$\ell$ group gets a vertical partner whose
$\alpha'$ starts a group of level $\ell+1$ (§1 step 4, §3.7, §4.8: a binary tree for JSQ, an
$(s+1)$-ary one for SED). Children with equal $\alpha'$ are merged into one group, which collapses
symmetric JSQ to the Adan-Wessels-Zijm chain (§2), and a term below ``prune`` times the level-0
series at the probe states is not expanded. See docs/compensation.md (How it works, step 4).
"""

from __future__ import annotations

import mpmath

from symq.errors import SymqError
from symq.studies.compensation.steps import NumericModel

__all__ = ["build_levels", "TreeTooLargeError"]


class TreeTooLargeError(SymqError):
    """The tree would need more groups than allowed; use a larger box or fewer digits."""


def _key(alpha, digits):
    z = mpmath.mpc(alpha)
    return (mpmath.nstr(z.real, digits), mpmath.nstr(z.imag, digits))


def build_levels(nm: NumericModel, probes, prune=None, merge=True, max_groups=20000):
    r"""Yield the groups of level 0, 1, 2, ... as lists.

    Parameters
    ----------
    nm : NumericModel
        The model at the working precision (call inside the same ``workdps``).
    probes : list of (q1, q2)
        States at which term sizes are measured for pruning (the ring of the hybrid box).
    prune : mpf or None
        Relative pruning threshold $\varepsilon$; ``None`` expands every term.
    merge : bool
        Merge children with equal $\alpha$.
    max_groups : int
        Raise :class:`TreeTooLargeError` beyond this many groups in total.

    Yields
    ------
    list
        The groups of one level (the chain of symmetric JSQ has one per level; asymmetric JSQ
        doubles, SED multiplies by $s+1$, before merging and pruning). The generator ends when
        pruning leaves no new term.

    Raises
    ------
    TreeTooLargeError
        More than ``max_groups`` groups in total.

    Examples
    --------
    >>> import itertools, mpmath
    >>> from symq.studies.compensation import asymmetric_jsq
    >>> with mpmath.workdps(20):
    ...     nm = NumericModel(asymmetric_jsq("1/2", 1, 2))
    ...     [len(level) for level in itertools.islice(build_levels(nm, [(3, 3)]), 4)]
    [1, 2, 4, 8]

    Running time: per group, its vertical steps ($s+1$ terms, a kernel root each) and one
    horizontal step (a linear system of $2s+1$ unknowns); O(G s^3) operations for G groups,
    at most ``max_groups``.
    """
    s = nm.s
    level = [nm.initial_group()]
    reference = max(abs(sum((g.value(x, s) for g in level), 0)) for x in probes) if probes else 1
    total = 1
    while True:
        yield level
        children = {}
        order = []
        for g in level:
            for t in g.new:
                if prune is not None and probes:
                    size = abs(t.coef) * max(abs(t.a) ** x[0] * abs(t.b) ** x[1]
                                             for x in probes if _in_region(x, t.kind, s)) \
                        if any(_in_region(x, t.kind, s) for x in probes) else 0
                    if size < prune * reference:
                        continue
                partner, alpha = nm.vertical_step(t)
                key = _key(alpha, max(15, mpmath.mp.dps - 12)) if merge else len(order)
                if key not in children:
                    children[key] = (alpha, [])
                    order.append(key)
                children[key][1].append(partner)
        if not order:
            return
        total += len(order)
        if total > max_groups:
            raise TreeTooLargeError(f"the compensation tree needs more than {max_groups} groups; "
                                    f"ask for fewer digits or levels, or use a larger box")
        level = [nm.horizontal_step(children[k][0], children[k][1], level[0].level + 1)
                 for k in order]


def _in_region(x, kind, s):
    j = x[1] // s
    return j > x[0] if kind == "upper" else j < x[0]
