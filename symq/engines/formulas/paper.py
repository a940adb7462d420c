r"""A structured formula as a researcher pastes it into a paper (``symq derive --format latex``):
a LaTeX comment naming the preamble it needs (``\usepackage{amsmath}`` and
``\allowdisplaybreaks``, so that long blocks break across pages), a few ``align*`` blocks with
short headings (the weights, the normalizing constant, the quantity), each line narrow enough
for a plain A4 article, then a "where ..." paragraph naming each kind of definition used with
the theorem and equation of the survey [GR20]_ it comes from, and the conventions (which
normalizing constant, which routing). Running time: linear in the size of the definitions.

Examples
--------
>>> from symq.engines.formulas import structured
>>> text = paper_latex(structured("w", "empty-probability", "alis"))
>>> print(text.splitlines()[1])
% Preamble: \usepackage{amsmath} and \allowdisplaybreaks (long blocks break across pages).
>>> "idle-order weight" in text and text.count(r"\begin{align*}") == 3
True
"""

from __future__ import annotations

__all__ = ["G_TEXT", "PREAMBLE", "PAPER_UNITS", "PAPER_DENOM_UNITS", "paper_latex", "legend"]

#: the preamble lines the pasted output needs
PREAMBLE = (r"\usepackage{amsmath}", r"\allowdisplaybreaks")

#: glyph units of a line in a plain A4 article (text width 345 pt at 10 pt)
PAPER_UNITS = 40
#: widest rate denominator written inline there
PAPER_DENOM_UNITS = 24

# the family of a definition name (its prefix before "__"), its heading group and legend text
_GROUP = {"G": "constant", "P": "quantity", "L": "quantity", "LQ": "quantity",
          "LS": "quantity", "T": "quantity"}

_LEGEND = {
    "H": r"$H_X$ is the collaborative (exact-cover) weight of the union $X$ of class server "
         r"sets, $H_X=\frac{1}{r_X}\sum_{Y\cup S_c=X,\,Y\neq X}\lambda_c H_Y$, $H_\emptyset=1$ "
         r"([GR20] Thm 3.3, eq. (2), summed over the states of each union; Props 6.2--6.3)",
    "F": r"$F_Z$ is the continuation weight of the collaborative mean numbers, "
         r"$F_Z=\frac{1}{r_Z}\bigl(1+\sum_{c:S_c\not\subseteq Z}\lambda_cF_{Z\cup S_c}\bigr)$ "
         r"([GR20] Prop 6.3, corrected)",
    "rho": r"$\rho_S=\lambda_S/\hat\mu_S$ is the load of the node $S$ of the nesting tree, "
           r"$\hat\mu_S=r_S+\lambda_S$ ([GR20] Thm 4.5)",
    "W": r"$W_I$ is the ALIS idle-order weight of the idle set $I$, "
         r"$W_I=\frac{1}{\Lambda_I}\sum_{s\in I}\mu_sW_{I\setminus s}$ ([GR20] Thm 3.9, "
         r"eq. (4), summed over the orders of $I$)",
    "Omega": r"$\Omega_I=\sum_{J\subseteq I}W_J$ ([GR20] Thm 3.9)",
    "Hh": r"$\hat H_Y=\sum_{X\subseteq Y}H_X$ ([GR20] Thm 3.3 and 3.9)",
    "V": r"$V_X$ weighs the jobs in queue in the ALIS mean numbers, "
         r"$V_X=\frac{1}{r_X}\bigl(\Omega_{\mathcal M\setminus X}+\sum_c\lambda_cV_{X\cup S_c}"
         r"\bigr)$ ([GR20] Thm 3.9, eq. (4))",
    "Z": r"$Z_Q$ weighs the jobs that start service on arrival (the matching rates), "
         r"$Z_Q=\frac{1}{\Lambda_Q}\bigl(\hat H_{\mathcal M\setminus Q}+\sum_{t\notin Q}\mu_t"
         r"Z_{Q\cup t}\bigr)$ ([GR20] Thm 3.9, eq. (5))",
    "Wt": r"$\widetilde W_I=\frac{1}{\Lambda_I}\sum_{s\in I}\widetilde W_{I\setminus s}$ is the "
          r"RAIS idle-order weight without the $\mu$ factors ([GR20] Thm 3.10)",
    "D": r"$D_B=\frac{1}{r_B}\sum_{s\in B}D_{B\setminus s}$ is the RAIS busy-set weight "
         r"([GR20] Thm 3.10 summed over the states with busy set $B$; Thm 5.1)",
    "Dc": r"$D^c_B=\frac{1}{r_B}\bigl(\sum_{s\in B}D^c_{B\setminus s}+\lambda_cD_B\bigr)$ "
          r"weighs the class-$c$ jobs in queue when the busy set is $B\supseteq S_c$ "
          r"([GR20] Thm 3.10, Thm 5.1)",
    "r": r"$r_X=\mu(X)-\lambda(R(X))$ is the slack of the server set $X$ ($R(X)$: the classes "
         r"whose servers all lie in $X$)",
    "Lambda": r"$\Lambda_I$ is the arrival rate of the classes that some server of $I$ can serve",
    "psi": r"$\psi_s$ is the probability that server $s$ is idle ([GR20] Prop 6.2)",
    "L": r"$L_c$ and $L$ are the mean numbers of class-$c$ jobs and of all jobs in the system",
    "LQ": r"$L^{\mathrm{q}}_c$ and $L^{\mathrm{s}}_c$ are the class-$c$ jobs in queue and in "
          r"service",
    "T": r"$T_c=L_c/\lambda_c$ and $T=L/\lambda$ are the mean response times (Little's law)",
}

#: the convention of each normalizing constant, in words (text output)
G_TEXT = {
    "G__C": "G__C = 1/P(empty), the collaborative normalizing constant ([GR20] Thm 3.3)",
    "G__ALIS": "G__ALIS = 1/pi(all servers busy, no job waiting) ([GR20] Thm 3.9); it is not "
               "1/P__empty",
    "G__RAIS": "G__RAIS = 1/P(empty) ([GR20] Thm 3.10); RAIS values are those of the canonical "
               "routing",
}

_G_NOTE = {
    "collaborative": r"$G=1/P(\emptyset)$ is the collaborative normalizing constant, "
                     r"$P(\emptyset)$ the probability that the system is empty ([GR20] Thm 3.3)",
    "alis": r"$G_{\mathrm{ALIS}}=1/\pi(\text{all servers busy, no job waiting})$ ([GR20] "
            r"Thm 3.9); it is not $1/P(\emptyset)$: $P(\emptyset)=W_{\mathcal M}/G_{\mathrm{ALIS}}$, "
            r"$\mathcal M$ the set of all servers",
    "rais": r"$G_{\mathrm{RAIS}}=1/P(\emptyset)$, $P(\emptyset)$ the probability that the system "
            r"is empty ([GR20] Thm 3.10); the values are those of the canonical RAIS routing "
            r"(the assignment probabilities that give the ALIS matching rates)",
}


def _family(name: str) -> str:
    head = name.split("__", 1)[0]
    return "P" if head == "P" else head


def _blocks(f) -> list[tuple[str, list]]:
    """``[(heading, definitions)]``: the weights, the normalizing constant(s), the quantity."""
    groups: dict[str, list] = {"weights": [], "constant": [], "quantity": []}
    for d in f.definitions:
        if d.kind == "inline":
            continue
        fam = _family(d.name)
        if fam == "P" and d.name.startswith("P__idle"):
            groups["quantity"].append(d)
        else:
            groups[_GROUP.get(fam, "weights")].append(d)
    if f.quantity == "normalizing-constant" and not groups["quantity"]:
        groups["quantity"], groups["constant"] = groups["constant"][-1:], groups["constant"][:-1]
    titles = {"weights": "The weights.", "constant": "The normalizing constant.",
              "quantity": "The quantity."}
    if groups["weights"] and all(d.name.startswith("rho__") for d in groups["weights"]):
        titles["weights"] = "The loads of the nesting tree."
    return [(titles[k], v) for k, v in groups.items() if v]


def legend(f) -> str:
    r"""The "where ..." paragraph of ``f``: each kind of definition used, with the theorem and
    equation of [GR20] it comes from, and the conventions of this output.

    Parameters
    ----------
    f : Structured
        A structured formula.

    Returns
    -------
    str
        LaTeX text (a paragraph).

    Examples
    --------
    >>> from symq.engines.formulas import structured
    >>> legend(structured("n", "normalizing-constant", "rais")).startswith(
    ...     r"\noindent where $\widetilde W_I")
    True

    Running time: linear in the number of definitions.
    """
    used = []
    for d in f.definitions:
        fam = _family(d.name)
        if fam == "P" and d.name.startswith("P__idle"):
            fam = "psi"
        if fam == "LS":
            fam = "LQ"
        if fam in _LEGEND and fam not in used:
            used.append(fam)
    if {"H", "F", "V", "D", "Dc", "rho"} & set(used) or f.labels:
        used.append("r")
    if {"W", "Wt", "Z"} & set(used):
        used.append("Lambda")
    parts = [_LEGEND[k] for k in used]
    gs = {d.name.split("__")[1] for d in f.definitions if d.name.startswith("G__")}
    if "ALIS" in gs:
        parts.append(_G_NOTE["alis"])
    if "RAIS" in gs:
        parts.append(_G_NOTE["rais"])
    if "C" in gs or (f.discipline == "collaborative" and f.quantity == "empty-probability"):
        parts.append(_G_NOTE["collaborative"])
    notes = []
    if "ALIS" in gs and "RAIS" in gs:
        notes.append(r"The in-queue parts $L^{\mathrm{q}}_c$ are normalized by "
                     r"$G_{\mathrm{RAIS}}$ and the in-service parts $L^{\mathrm{s}}_c$ by "
                     r"$G_{\mathrm{ALIS}}$: under the canonical routing the jobs in service "
                     r"have the ALIS matching rates, so their weights ($H$, $W$, $\Omega$, "
                     r"$\hat H$, $Z$) are the ALIS ones.")
    if any("^{(" in d.latex_name for d in f.definitions):
        notes.append(r"The servers form several components that evolve independently: a "
                     r"superscript $(X)$ marks the constant of the component with servers "
                     r"$X$, and the model's empty probability and normalizing constant are "
                     r"the products over the components.")
    if _aliased(f):
        notes.append(r"The model is symmetric: sets (and classes) that a permutation of "
                     r"equal servers carries into each other have equal weights, so each is "
                     r"written once, for the first set of its orbit.")
    out = r"\noindent where " + ";\n".join(parts) + "."
    if notes:
        out += "\n" + " ".join(notes)
    return out


def _aliased(f) -> bool:
    from symq.engines.formulas.build import Builder
    return bool(Builder(f.model)._orbits.perms)


def paper_latex(f, title: str | None = None) -> str:
    r"""``f`` as LaTeX to paste into a paper: the preamble comment, the headed ``align*``
    blocks (lines for a plain A4 article) and the legend.

    Parameters
    ----------
    f : Structured
        A structured formula.
    title : str, optional
        A first comment line (the command that made it).

    Returns
    -------
    str
        LaTeX for the body of a document whose preamble has :data:`PREAMBLE`.

    Examples
    --------
    >>> from symq.engines.formulas import structured
    >>> out = paper_latex(structured("n", "empty-probability"))
    >>> out.count(r"\begin{align*}"), out.splitlines()[-1].startswith(r"\noindent where")
    (2, False)

    Running time: linear in the size of the definitions.
    """
    first = f"% {title}" if title else (f"% symq: {f.quantity} of {f.model.name or 'the model'}"
                                        f" ({f.discipline})")
    out = [first.replace("\n", " "),
           "% Preamble: " + " and ".join(PREAMBLE) + " (long blocks break across pages)."]
    shown: set[str] = set()
    blocks = _blocks(f)
    for heading, defs in blocks:
        if len(blocks) > 1:
            out.append(rf"\noindent\emph{{{heading}}}")
        out.append(f.latex(only={d.name for d in defs}, limit=PAPER_UNITS,
                           denom_limit=PAPER_DENOM_UNITS, shown_labels=shown))
    out.append(legend(f))
    return "\n".join(out)

