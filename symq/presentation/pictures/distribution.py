r"""``symq plot MODEL distribution``: the stationary law of the number of jobs in system.
For the collaborative discipline (the order-independent queue of the survey's section 3, whose
product form depends on a prefix only through its set of classes) :func:`number_law` computes
$P(N=n)$ exactly as $\pi(\emptyset)\sum_A g_n(A)$ by a recursion over class sets, in
$O(n\,2^{|I|}|I|)$ exact operations, and the picture shows it on a log scale with the tail mass
left. The recursion is written out in docs/pictures.md (Law of the number in system).

Examples
--------
>>> import symq
>>> law = symq.presentation.pictures.distribution.number_law(symq.example_model("w"), 2)
>>> law[0], law[1]
(1547/2480, 230503/892800)
"""

from __future__ import annotations

import itertools

import sympy

from symq.errors import ModelError, UnsupportedError
from symq.models.model import Model
from symq.presentation.pictures import (SHARED_OPTIONS, Curve, Picture, PictureKind, file_stem,
                                        pyplot, rates_title, register, scientific)
from symq.presentation.pictures._drawing import integer_axis, label

__all__ = ["number_law", "draw"]


def number_law(model: Model, max_jobs: int) -> list[sympy.Rational]:
    r"""$[P(N=0), \dots, P(N=\text{max\_jobs})]$, exact, collaborative discipline.

    Parameters
    ----------
    model : Model
        Exact numeric rates, no abandonment.
    max_jobs : int
        From 0 to 500.

    Returns
    -------
    list of sympy.Rational

    Raises
    ------
    ModelError
        A symbol without a value, or ``max_jobs`` outside 0..500.
    UnsupportedError
        A model with abandonments.

    Examples
    --------
    >>> from symq import example_model
    >>> number_law(example_model("n"), 1)
    [9/14, 27/112]

    Running time: O(2^J J max_jobs) exact operations for J classes.
    """
    if not model.is_numeric:
        missing = ", ".join(sorted(s.name for s in model.symbols))
        raise ModelError(f"the distribution picture needs a value for every symbol; missing: "
                         f"{missing} (give each with --set NAME=VALUE)")
    if not 0 <= max_jobs <= 500:
        raise ModelError(f"--max-jobs must be from 0 to 500, not {max_jobs}")
    if model.abandonment_rates:
        raise UnsupportedError("the distribution picture covers models without abandonment")
    classes = model.classes
    lam = model.arrival_rates
    sets = [frozenset(c) for r in range(len(classes) + 1) for c in itertools.combinations(classes, r)]
    lam_of = {A: model.arrival_rate(A) for A in sets}
    mu_of = {A: model.service_rate(model.servers_of(A)) for A in sets if A}
    from symq.queries.solve import solve
    empty = sympy.sympify(solve(model, "empty-probability", "collaborative", exact=True).exact)
    g = {frozenset(): sympy.Integer(1)}
    law = [empty]
    for _ in range(max_jobs):
        nxt = {}
        for A in sets:
            if not A:
                continue
            total = lam_of[A] * g.get(A, 0) + sum(lam[i] * g.get(A - {i}, 0) for i in A)
            if total:
                nxt[A] = total / mu_of[A]
        g = nxt
        law.append(empty * sum(g.values(), sympy.Integer(0)))
    return law


def draw(model: Model, max_jobs: int = 20, discipline: str = "collaborative") -> Picture:
    """The picture (see the module docstring).

    Parameters
    ----------
    model : Model
        As :func:`number_law`.
    max_jobs : int
        The largest number of jobs shown.
    discipline : str
        ``collaborative`` only.

    Returns
    -------
    Picture
        A bar chart of $P(N=n)$ for $n$ up to ``max_jobs``, with the exact values in
        ``data``.

    Raises
    ------
    UnsupportedError
        Another discipline.

    Examples
    --------
    >>> from symq import example_model
    >>> picture = draw(example_model("n"), max_jobs=3)
    >>> picture.stem
    'n-distribution-n=3'

    Running time: that of :func:`number_law`, plus matplotlib.
    """
    if discipline != "collaborative":
        raise UnsupportedError(f"the distribution picture is exact for the collaborative "
                               f"discipline only, not {discipline!r}; use --discipline "
                               "collaborative")
    law = number_law(model, max_jobs)
    tail = 1 - sum(law)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ax.bar(range(len(law)), [float(p) for p in law], color="#4c72b0")
    ax.set_yscale("log")
    integer_axis(ax.xaxis)
    ax.set_xlabel("number of jobs in system $n$")
    ax.set_ylabel("$P(N = n)$ (log scale)")
    ax.set_title(f"stationary law of the number in system, {label(model)} (collaborative)\n"
                 f"{rates_title(model)}:  $P(N > {max_jobs}) = $ {scientific(float(tail))}",
                 fontsize=10)
    ax.grid(alpha=0.3, axis="y")
    data = {"discipline": discipline, "law": [str(p) for p in law], "tail": str(tail)}
    curves = [Curve("P(N = n)", "number-in-system law", discipline, "number of jobs n",
                    list(enumerate(law)))]
    return Picture(fig, file_stem(label(model), "distribution", n=max_jobs), data, curves)


register(PictureKind(
    "distribution", "stationary law of the number of jobs in system (exact, collaborative)", draw,
    options={"max_jobs": dict(type=int, default=20,
                              help="distribution: largest number of jobs drawn (default 20)"),
             "discipline": SHARED_OPTIONS["discipline"]}))
