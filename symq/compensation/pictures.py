r"""Pictures: the joint queue-length law as a heat map and the levels the pure series needs.

Reproduces the kind of pictures of [SAKL16]_ §6 (Figure 8: heat map of the SED equilibrium
distribution for $s=3$, $q=0.4$ and several $\rho$; Figure 9: number of compensation levels needed per
state). matplotlib is optional (``pip install "symq[plot]"``).

Command::

    symq compensation sed --s 3 --q 2/5 --rho 9/10 --plot-dir pictures

writes ``pictures/heatmap_sed_s3.png`` (panels for $\rho\in\{0.5, 0.7, 0.9\}$ and the given $\rho$)
and ``pictures/levels_sed_s3_rho0.9.png``.

*Levels needed*: the smallest $L$ such that the pure series (no box), truncated after level $L$ and
scaled by the hybrid's normalising constant, is within relative $10^{-6}$ of the accurate
probability, up to ``max_levels``; states where that does not happen (slow or divergent series near
the origin, note §3.9, §4.10) are marked with ``max_levels + 1``. The pictures show the lines
$s(q_1+1)=q_2+1$ (equal expected delays) and $sq_1=q_2$ between which the mass concentrates.
"""

from __future__ import annotations

import os
from fractions import Fraction

import mpmath

from ..errors import UnsupportedError
from .hybrid import solve
from .models import RoutingModel
from .tree import build_levels
from .steps import NumericModel

__all__ = ["write_pictures", "levels_needed", "heat_values"]


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise UnsupportedError("pictures need matplotlib; install it with pip install "
                               "\"symq[plot]\"") from None
    return plt


def _with_load(model: RoutingModel, rho: Fraction) -> RoutingModel:
    mu = model.service_rates
    return RoutingModel(model.policy, rho * (mu[0] + mu[1]), mu, model.s, model.tie_probability)


def _grid(model, size):
    return [(q1, q2) for q1 in range(size + 1) for q2 in range(model.s * size + 1)]


def heat_values(model: RoutingModel, size: int = 12, digits: int = 12):
    """``{(q1, q2): float}`` of $P(q_1,q_2)$ on $q_1\\le$ ``size``, $q_2\\le s\\cdot$``size``."""
    from .hybrid import default_box
    # a box that holds the whole grid: every pictured value comes from the balance equations
    result = solve(model, digits=digits, box=max(default_box(model, digits), size + 1))
    return {x: float(result.probability(x)) for x in _grid(model, size)}, result


def levels_needed(model: RoutingModel, size: int = 8, max_levels: int = 4, tolerance=1e-6):
    """``{(q1, q2): L}``: levels the pure series needs at each state (see the module docstring)."""
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


def write_pictures(model: RoutingModel, directory: str, rhos=("1/2", "7/10", "9/10"),
                   size: int = 12) -> dict:
    """Write the heat map and the levels-needed picture; return ``{name: path}``."""
    plt = _pyplot()
    os.makedirs(directory, exist_ok=True)
    s = model.s
    tag = f"{model.policy}_s{s}"
    loads = sorted({Fraction(r) for r in rhos} | {model.load})
    fig, axes = plt.subplots(1, len(loads), figsize=(4.2 * len(loads), 4.4), squeeze=False)
    for ax, rho in zip(axes[0], loads):
        values, _ = heat_values(_with_load(model, rho), size)
        image = [[values[(q1, q2)] for q1 in range(size + 1)] for q2 in range(s * size + 1)]
        im = ax.imshow(image, origin="lower", aspect="auto", cmap="viridis",
                       extent=(-0.5, size + 0.5, -0.5, s * size + 0.5))
        xs = [0, size]
        ax.plot(xs, [s * (x + 1) - 1 for x in xs], "w--", lw=1, label="$s(q_1+1)=q_2+1$")
        ax.plot(xs, [s * x for x in xs], "w:", lw=1, label="$sq_1=q_2$")
        ax.set_xlim(-0.5, size + 0.5)
        ax.set_ylim(-0.5, s * size + 0.5)
        ax.set_title(f"$\\rho={float(rho):g}$")
        ax.set_xlabel("$q_1$")
        ax.set_ylabel("$q_2$")
        fig.colorbar(im, ax=ax, fraction=0.046)
    axes[0][0].legend(loc="upper left", fontsize=7)
    fig.suptitle(f"{model.policy.upper()} joint queue-length law, s={s}, "
                 f"q={model.tie_probability}, $\\mu=({model.service_rates[0]},{model.service_rates[1]})$")
    fig.tight_layout()
    heat_path = os.path.join(directory, f"heatmap_{tag}.png")
    fig.savefig(heat_path, dpi=110)
    plt.close(fig)

    small = 6
    top = 4
    needed = levels_needed(model, size=small, max_levels=top)
    fig, ax = plt.subplots(figsize=(5, 5))
    image = [[needed[(q1, q2)] for q1 in range(small + 1)] for q2 in range(s * small + 1)]
    im = ax.imshow(image, origin="lower", aspect="auto", cmap="magma_r",
                   extent=(-0.5, small + 0.5, -0.5, s * small + 0.5))
    for (q1, q2), v in needed.items():
        ax.text(q1, q2, str(v) if v <= top else f">{top}", ha="center", va="center", fontsize=6,
                color="white" if v >= 3 else "black")
    ax.set_xlabel("$q_1$")
    ax.set_ylabel("$q_2$")
    ax.set_title(f"levels of the pure series for $10^{{-6}}$ relative accuracy\n"
                 f"{model.policy}, s={s}, q={model.tie_probability}, $\\rho={float(model.load):g}$")
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    levels_path = os.path.join(directory, f"levels_{tag}_rho{float(model.load):g}.png")
    fig.savefig(levels_path, dpi=110)
    plt.close(fig)
    return {"heatmap": heat_path, "levels": levels_path}
