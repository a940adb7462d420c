r"""The data of the compensation pictures: the joint queue-length law on a grid and the levels the
pure series needs. Computes the data of the pictures of [SAKL16]_ §6 (Figure 8: heat map of the SED equilibrium
distribution, e.g. $s=3$, $q=0.4$ and several $\rho$; Figure 9: the number of compensation levels
the pure series needs per state, for relative $10^{-6}$), which
:mod:`symq.presentation.pictures.compensation` draws (``symq compensation sed --plot-dir``,
``symq plot sed heatmap``). The commands, the file
names and the exact definition of "levels needed" are in docs/compensation.md (Pictures).
"""

from __future__ import annotations


import mpmath

from symq.studies.compensation.hybrid import solve
from symq.studies.compensation.models import RoutingModel
from symq.studies.compensation.tree import build_levels
from symq.studies.compensation.steps import NumericModel

__all__ = ["levels_needed", "heat_values"]


def _grid(model, size):
    return [(q1, q2) for q1 in range(size + 1) for q2 in range(model.s * size + 1)]


def heat_values(model: RoutingModel, size: int = 12, digits: int = 12):
    """``{(q1, q2): float}`` of $P(q_1,q_2)$ on $q_1\\le$ ``size``, $q_2\\le s\\cdot$``size``.

    Parameters
    ----------
    model : RoutingModel
        The routing model.
    size : int
        The grid's extent in ``q1``.
    digits : int
        Digits of the hybrid solution (its box holds the whole grid).

    Returns
    -------
    (dict, CompensationResult)
        The probabilities on the grid as floats, and the solution they come from.

    Examples
    --------
    >>> from symq.studies.compensation import symmetric_jsq
    >>> values, result = heat_values(symmetric_jsq("1/2"), size=2, digits=8)
    >>> len(values), round(values[(0, 0)], 6)
    (9, 0.315967)

    Running time: that of :func:`~symq.studies.compensation.hybrid.solve` with a box of at least
    ``size + 1``.
    """
    from symq.studies.compensation.hybrid import default_box
    # a box that holds the whole grid: every pictured value comes from the balance equations
    result = solve(model, digits=digits, box=max(default_box(model, digits), size + 1))
    return {x: float(result.probability(x)) for x in _grid(model, size)}, result


def levels_needed(model: RoutingModel, size: int = 8, max_levels: int = 4, tolerance=1e-6):
    """``{(q1, q2): L}``: levels the pure series needs at each state (see the module docstring).

    Parameters
    ----------
    model, size
        As for :func:`heat_values`: the grid is ``q1 <= size``, ``q2 <= s * size``.
    max_levels : int
        Levels tried; a state still off after them gets ``max_levels + 1``.
    tolerance : float
        Relative agreement with the hybrid value that counts as converged.

    Returns
    -------
    dict
        ``{(q1, q2): levels}``.

    Examples
    --------
    >>> from symq.studies.compensation import symmetric_jsq
    >>> levels_needed(symmetric_jsq("1/2"), size=1, max_levels=2)
    {(0, 0): 3, (0, 1): 3, (1, 0): 3, (1, 1): 3}

    Running time: that of :func:`heat_values`, plus O(T G) term evaluations for T terms of
    the first ``max_levels`` levels and G grid states.
    """
    values, result = heat_values(model, size, digits=15)
    grid = list(values)
    with mpmath.workdps(25):
        nm = NumericModel(model)
        partial = {x: 0j for x in grid}
        needed = {x: None for x in grid}
        z = complex(result.normalizer)
        probes = [(0, 0), (1, 0), (0, model.s)]
        for level, groups in enumerate(build_levels(nm, probes, prune=mpmath.mpf(10) ** -10)):
            terms = []
            for g in groups:
                terms += [(t.kind, complex(t.coef), complex(t.a), complex(t.b)) for t in g.terms]
                terms.append(("boundary", [complex(h) for h in g.h], complex(g.alpha), None))
            for x in grid:
                q1, q2 = x
                j = q2 // model.s
                kind = "upper" if j > q1 else ("lower" if j < q1 else "boundary")
                total = 0j
                for k, c, a, b in terms:
                    if k != kind:
                        continue
                    total += c[q2 % model.s] * a ** q1 if k == "boundary" else c * a ** q1 * b ** q2
                partial[x] += total
                ok = abs(partial[x].real / z - values[x]) <= tolerance * values[x]
                if ok and needed[x] is None:
                    needed[x] = level
                elif not ok:
                    needed[x] = None
            if level >= max_levels:
                break
    return {x: (max_levels + 1 if v is None else v) for x, v in needed.items()}
