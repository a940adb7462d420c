r"""The result of a supermarket decomposition: the clusters $C_1, C_2, \dots$ with weighted drifts
$V_1 > V_2 > \dots$ (:class:`Cluster`), the decomposition with its policy and, for symbolic
rates, its validity conditions (:class:`Decomposition`), the stability decision of [SM]_ (JLW
with weights $w$ is stable iff $V_1 < 0$) with a message naming the violating cluster, and the
LaTeX table of the clusters (:func:`decomposition_latex`).

References
----------
.. [SM] "Dynamics of the supermarket model", the stability theorem ($V_1 < 0$); heterogeneous stations,
   neighbourhoods $S_i$, join-the-least-weighted-queue (see ``docs/supermarket.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import sympy

from symq.errors import ModelError
from symq.models.model import Model
from symq.display import Displayed, Math, math, name_latex, set_display
from symq.studies.supermarket.signs import holds_for_all_positive

__all__ = ["Cluster", "Decomposition", "decomposition_latex"]


@dataclass(frozen=True)
class Cluster:
    r"""One cluster $C_k$ of the decomposition.

    Attributes
    ----------
    stations : the stations of $C_k$, in model order
    drift : $V_k$, the common weighted drift $w_jV(j;\pi)$ of its stations under $\Pi_K$
    streams : the classes $T_k=\{i: k(i)=k\}$ whose lowest-drift reachable cluster is $C_k$;
        exactly these feed $C_k$ under every policy of $\Pi_K$
    bonded : whether some policy of $\Pi_K$ links the cluster's stations and streams into one
        connected support graph; ``None`` for a symbolic decomposition
    """

    stations: tuple[str, ...]
    drift: sympy.Expr
    streams: tuple[str, ...]
    bonded: bool | None = None


@dataclass(frozen=True)
class Decomposition(Displayed):
    r"""The hierarchical minimax decomposition of a supermarket model with weights $w$.

    In a notebook it shows as a table of the clusters $C_k$, drifts $V_k$ and streams $T_k$,
    the stability verdict, the weights, the validity conditions and the policy.

    Attributes
    ----------
    model : the model
    weights : station name to $w_j$
    clusters : $C_1, C_2, \dots$ in decreasing drift order
    policy : a static policy in $\Pi_K$ (class to station to probability) achieving every $V_k$;
        ``None`` for a symbolic decomposition (the policy depends on the values)
    conditions : for a symbolic decomposition, the expressions that must be $\ge 0$ for the
        cluster structure to hold (the validity conditions of ``docs/supermarket.md``); each
        was proved to hold for all positive values of the symbols. Empty for a numeric decomposition.
    method : how it was computed

    Examples
    --------
    >>> from symq import model
    >>> from symq.studies.supermarket import decompose
    >>> d = decompose(model("n").substitute({"lambda_1": 3, "lambda_2": 1, "mu_1": 1, "mu_2": 1}))
    >>> d.stable, d.violating_cluster.stations
    (False, ('1',))
    >>> print(d.message().replace("; ", ";\n"))
    unstable: cluster {'1'} has weighted drift V_1 = 2 >= 0;
    the classes {'1'} that can only use it bring 3 but it serves only 1
    """

    model: Model
    weights: Mapping[str, sympy.Rational]
    clusters: tuple[Cluster, ...]
    policy: Mapping[str, Mapping[str, sympy.Expr]] | None
    conditions: tuple[sympy.Expr, ...] = ()
    method: str = "parametric max-flow, breakpoint search"

    @property
    def top_drift(self) -> sympy.Expr:
        """$V_1$, the largest weighted drift."""
        return self.clusters[0].drift

    @property
    def stable(self) -> bool | None:
        r"""True when $V_1<0$ (JLW with these weights is stable), False when $V_1\ge0$ (no policy
        is stable), None when the sign of a symbolic $V_1$ depends on the values."""
        v1 = self.top_drift
        if v1.is_negative:
            return True
        if v1.is_nonnegative:
            return False
        if holds_for_all_positive(-v1, strict=True):
            return True
        if holds_for_all_positive(v1, strict=False):
            return False
        return None

    @property
    def stability_condition(self) -> sympy.Expr:
        """The condition $V_1 < 0$ as a sympy relation (``True``/``False`` when decided)."""
        return sympy.Lt(self.top_drift, 0)

    @property
    def violating_cluster(self) -> Cluster | None:
        """$C_1$ when the model is not stable, else None."""
        return self.clusters[0] if self.stable is False else None

    def cluster_of(self, station: str) -> Cluster:
        """The cluster that contains ``station``."""
        for cluster in self.clusters:
            if station in cluster.stations:
                return cluster
        raise ModelError(f"unknown station {station!r}; stations are "
                         f"{', '.join(self.model.servers)}")

    def _display(self) -> tuple[str, list]:
        """Title and table sections for Jupyter (:class:`symq.display.Displayed`)."""
        clusters = [(str(k), Math(set_display(c.stations)), math(c.drift),
                     Math(set_display(c.streams)), "" if c.bonded is None else str(c.bonded))
                    for k, c in enumerate(self.clusters, start=1)]
        verdict = {True: "stable under JLW", False: "unstable",
                   None: "stable iff V_1 < 0 (depends on the values)"}[self.stable]
        rows = [("stability", verdict),
                ("stability condition", Math(f"V_1 = {sympy.latex(self.top_drift)} < 0")),
                ("weights", Math(",\\ ".join(f"w_{{{name_latex(j)}}} = {sympy.latex(w)}"
                                              for j, w in self.weights.items())))]
        rows += [("validity", Math(f"{sympy.latex(c)} \\ge 0")) for c in self.conditions]
        rows.append(("method", self.method))
        sections = [(("k", Math("C_k"), Math("V_k"), Math("T_k"), "bonded"), clusters),
                    (None, rows)]
        if self.policy is not None:
            policy = [(i, j, math(p)) for i, row in self.policy.items() for j, p in row.items()]
            sections.append((("class", "station", "probability"), policy))
        return "supermarket decomposition", sections

    def message(self) -> str:
        """One line on stability, naming the violating cluster."""
        c1 = self.clusters[0]
        stations = "{" + ", ".join(repr(j) for j in c1.stations) + "}"
        if self.stable:
            return f"stable under JLW: the largest weighted drift V_1 = {c1.drift} < 0"
        if self.stable is None:
            return f"stable under JLW iff V_1 = {c1.drift} < 0 (cluster {stations})"
        streams = "{" + ", ".join(repr(i) for i in c1.streams) + "}"
        load = self.model.arrival_rate(c1.streams) if c1.streams else sympy.Integer(0)
        return (f"unstable: cluster {stations} has weighted drift V_1 = {c1.drift} >= 0; the classes "
                f"{streams} that can only use it bring {load} but it serves only "
                f"{self.model.service_rate(c1.stations)}")



def _name_latex(name: str) -> str:
    # ASCII letters and digits as math; anything else through the one LaTeX escaping of names
    return name if name.isascii() and name.isalnum() else name_latex(name)


def _set_latex(names: Sequence[str]) -> str:
    return r"\{" + ", ".join(_name_latex(n) for n in names) + r"\}"


def decomposition_latex(decomposition: Decomposition) -> str:
    r"""A LaTeX ``tabular`` of the clusters $C_k$, their drifts $V_k$ and streams $T_k$.

    Parameters
    ----------
    decomposition : Decomposition

    Returns
    -------
    str
        One row per cluster.

    Examples
    --------
    >>> from symq import model
    >>> from symq.studies.supermarket import decompose
    >>> print(decomposition_latex(decompose(model("redundancy:2:1"))))
    \begin{tabular}{rlll}
    $k$ & $C_k$ & $V_k$ & $T_k$ \\
    \hline
    1 & $\{1, 2\}$ & $\frac{\lambda}{2} - \mu$ & $\{1, 2\}$ \\
    \end{tabular}

    Running time: O(K N) for K clusters and N stations, plus sympy's LaTeX printing of the drifts.
    """
    lines = [r"\begin{tabular}{rlll}", r"$k$ & $C_k$ & $V_k$ & $T_k$ \\", r"\hline"]
    for k, c in enumerate(decomposition.clusters, start=1):
        lines.append(f"{k} & ${_set_latex(c.stations)}$ & ${sympy.latex(c.drift)}$ & "
                     f"${_set_latex(c.streams)}$ \\\\")
    lines.append(r"\end{tabular}")
    return "\n".join(lines)
