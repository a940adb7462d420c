r"""Derivation documents: everything symq knows about one model, in LaTeX or Markdown.
A report has the model and its compatibility graph, the stability conditions, the nesting tree,
the product form of each discipline with the theorem it comes from, the normalizing constant, idle
probabilities and means (symbolic where that is cheap, always at the example values), response-time
laws for nested models, and the verification summary (:func:`symq.engines.balance.verify`); quantities
that symq cannot compute for the model are listed as such, never silently left out. The sections
are built once as plain data (:class:`Section`) and rendered by :func:`render_latex` or
:func:`render_markdown`; see docs/cli.md.

Examples
--------
>>> from symq import model
>>> from symq.presentation.report import build_report, render_markdown
>>> text = render_markdown(build_report(model("n"), verify_jobs=2), "symq report: n")
>>> print(text.splitlines()[0])
# symq report: n
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import sympy

from symq.errors import SymqError
from symq.display import escape, markdown_latex, markdown_text, name_latex, printable
from symq.presentation.latex import document, math_block, set_latex, tikz_graph
from symq.models.model import Model
from symq.engines.nested import is_nested, nesting_tree
from symq.queries.quantities import DISCIPLINES, QUANTITIES, flatten_result
from symq.models.stability import stability_conditions, stability_report

__all__ = ["Section", "build_report", "render_latex", "render_markdown", "example_values",
           "write_report"]

#: paper sizes of :func:`render_latex`
PAPERS = ("a4", "letter")

#: structured formulas (symq.engines.formulas) are shown for models up to this many servers
SYMBOLIC_SERVER_LIMIT = 6

#: what each quantity is, in LaTeX-ready words (the report's row and paragraph titles)
_TITLES = {
    "empty-probability": r"Probability that the system is empty, $P(\emptyset)$",
    "normalizing-constant": r"Normalizing constant $G$ ($\pi(\text{state})=\text{product-form "
                            r"term}/G$)",
    "server-idle-probability": r"Probability that server $s$ is idle, $\psi_s$",
    "mean-number": r"Mean number of jobs in the system, $L_c$ per class and $L$ in total",
    "mean-response-time": r"Mean time in system, $T_c=L_c/\lambda_c$ per class and $T=L/\lambda$ "
                          r"overall (Little's law)",
    "response-time": r"Response-time distribution per class (LST, mean, variance, CDF)",
    "response-time-survival": r"Response-time survival $P(T_c>t)$",
    "waiting-time": r"Waiting-time distribution per class",
    "waiting-time-survival": r"Waiting-time survival $P(W_c>t)$",
}

_STRUCTURED = ("empty-probability", "normalizing-constant", "server-idle-probability",
               "mean-number", "mean-response-time")

_G_NOTES = {
    "alis": r"Under ALIS, $G_{\mathrm{ALIS}}=1/\pi(\emptyset,\emptyset)$, where "
            r"$\pi(\emptyset,\emptyset)$ is the probability of the state with every server busy "
            r"and no job waiting. The empty system is the set of states with every server idle, "
            r"one for each order of the idle servers, of total probability "
            r"$W_{\mathcal M}\,\pi(\emptyset,\emptyset)$: so $P(\emptyset)="
            r"W_{\mathcal M}/G_{\mathrm{ALIS}}$, and $G_{\mathrm{ALIS}}$ is \emph{not} "
            r"$1/P(\emptyset)$.",
    "rais": r"Under RAIS the state records no idle order, so $G_{\mathrm{RAIS}}=1/P(\emptyset)$.",
    "collaborative": r"In the collaborative model $G=1/\pi(\emptyset)$.",
}

_PRODUCT_FORMS = {
    "collaborative": (
        "Collaborative model (redundancy with cancel-on-completion; the order-independent queue), "
        "[GR20] Theorem 3.3. State: the classes $c_1, \\dots, c_n$ of all jobs in arrival order.",
        r"\pi(c_1,\dots,c_n) = \pi(\emptyset) \prod_{i=1}^{n} "
        r"\frac{\lambda_{c_i}}{\mu(S(\{c_1,\dots,c_i\}))}"),
    "alis": (
        "Noncollaborative FCFS-ALIS, [GR20] Theorem 3.9 (Adan and Weiss [AW14]). State: the classes of "
        "the waiting jobs $c_1,\\dots,c_n$ and the idle servers $s_1,\\dots,s_k$ ($s_1$ idle "
        "longest).",
        r"\pi(\vec c_n, \vec s_k) = \pi(\emptyset) \prod_{i=1}^{n} "
        r"\frac{\lambda_{c_i}}{\mu(S(\{c_1,\dots,c_i\}))} \prod_{j=1}^{k} "
        r"\frac{\mu_{s_j}}{\lambda(C(\{s_1,\dots,s_j\}))}"),
    "rais": (
        "Noncollaborative FCFS-RAIS, [GR20] Theorem 3.10 (Visschers, Adan and Weiss [VAW12]). State: the jobs in arrival order, a "
        "waiting job written by its class and a job in service by its server; "
        "$\\lambda^a_s(B)$ is the activation rate of idle server $s$ when $B$ is busy (canonical "
        "routing unless another is given), $\\mu(\\vec z_i)$ the rate of the busy servers among "
        "$z_1,\\dots,z_i$.",
        r"\pi(z_1,\dots,z_m) = \pi(\emptyset) \prod_{i=1}^{m} "
        r"\frac{\nu_i}{\mu(\vec z_i)}, \quad \nu_i = \lambda_{c} \text{ (waiting class } c),\ "
        r"\nu_i = \lambda^a_{b}(B_{i-1}) \text{ (busy server } b)"),
}


@dataclass
class Section:
    """A titled list of blocks: ``("text", str)`` with inline ``$math$``, ``("math", latex)``,
    ``("table", headers, rows)`` and ``("graph", model)``."""

    title: str
    blocks: list[tuple] = field(default_factory=list)

    def text(self, value: str) -> "Section":
        self.blocks.append(("text", value))
        return self

    def math(self, value: str) -> "Section":
        self.blocks.append(("math", value))
        return self


def example_values(model: Model) -> dict[str, str]:
    r"""The report's example rates: for ``w`` the W example of docs/cli.md and
    docs/howto-python.md, $\lambda=(3/10, 1/5, 1/2)$ and $\mu=(1, 4/5)$ (collaborative
    $P(\emptyset)=21/65$); otherwise rates that differ from class to class and from server to
    server, so that the per-class and per-server rows of a symmetric graph (``ring:4``) show
    different values: class $k$ of $J$ gets $\lambda_k = k/(J(J+1))$ and server $k$ of $M$ gets
    $\mu_k = (M+k-1)/M$. The arrival rates sum to 1/2 and every server rate is at least 1, so the
    rates are stable for every graph.

    Parameters
    ----------
    model : Model
        A model with symbolic rates.

    Returns
    -------
    dict
        ``{symbol name: exact rate string}``.

    Examples
    --------
    >>> from symq import model
    >>> example_values(model("n"))
    {'lambda_1': '1/6', 'lambda_2': '1/3', 'mu_1': '1', 'mu_2': '3/2'}

    Running time: O(J + M).
    """
    from fractions import Fraction

    names = {s.name for s in model.symbols}
    if model.name == "w" and names == {"lambda_1", "lambda_2", "lambda_3", "mu_1", "mu_2"}:
        return {"lambda_1": "3/10", "lambda_2": "1/5", "lambda_3": "1/2", "mu_1": "1",
                "mu_2": "4/5"}
    classes, servers = len(model.classes), len(model.servers)
    values: dict[str, str] = {}
    for k, c in enumerate(model.classes, start=1):
        for s in sorted(model.arrival_rates[c].free_symbols, key=str):
            values.setdefault(s.name, str(Fraction(k, classes * (classes + 1))))
    for k, j in enumerate(model.servers, start=1):
        for s in sorted(model.service_rates[j].free_symbols, key=str):
            values.setdefault(s.name, str(Fraction(servers + k - 1, servers)))
    return values


def _model_section(model: Model) -> Section:
    section = Section("The model")
    section.text(f"{len(model.classes)} job classes and {len(model.servers)} servers. Class $i$ "
                 "arrives as a Poisson process of rate $\\lambda_i$ and can be served by the "
                 "servers $S_i$; server $j$ works at exponential rate $\\mu_j$.")
    rows = [[f"${name_latex(i)}$", f"${sympy.latex(model.arrival_rates[i])}$",
             f"${set_latex(model.compatibility[i])}$"] for i in model.classes]
    section.blocks.append(("table", ["class $i$", "$\\lambda_i$", "$S_i$"], rows))
    rows = [[f"${name_latex(j)}$", f"${sympy.latex(model.service_rates[j])}$",
             f"${set_latex(model.classes_of([j]))}$"] for j in model.servers]
    section.blocks.append(("table", ["server $j$", "$\\mu_j$", "$C_j$"], rows))
    section.blocks.append(("graph", model))
    return section


def _stability_section(model: Model, numeric: Model) -> Section:
    section = Section("Stability")
    section.text("The system is stable if and only if $\\lambda(A) < \\mu(S(A))$ for every "
                 "non-empty set of classes $A$ ([GR20], section 2).")
    if len(model.classes) <= 10 and not model.is_numeric:
        conditions = stability_conditions(model)
        lines = []
        for a, b in conditions:  # symmetric rates make several sets read the same: print once
            line = f"{sympy.latex(model.arrival_rate(a))} < {sympy.latex(model.service_rate(b))}"
            if line not in lines:
                lines.append(line)
        section.text("The distinct conditions (sets that are closed, $A = R(S(A))$, and "
                     "connected; the others are implied):")
        section.math("\\begin{gather*}\n" + " \\\\\n".join(lines) + "\n\\end{gather*}")
    report = stability_report(numeric)
    verdict = "stable" if report.stable else "unstable"
    section.text(f"At the example values the system is {verdict}: the tightest class set "
                 f"${set_latex(report.classes)}$ brings ${sympy.latex(report.load)}$ to servers "
                 f"${set_latex(report.servers)}$ of capacity ${sympy.latex(report.capacity)}$ "
                 "(decided exactly by max-flow).")
    return section


def _nesting_section(model: Model) -> Section:
    section = Section("Nesting")
    if not is_nested(model):
        section.text("The server sets $S_i$ are not a laminar family, so the model is not "
                     "nested; the nested closed forms of [GR20] section 4 do not apply and symq "
                     "uses the server-removal recursions instead.")
        return section
    tree = nesting_tree(model)
    section.text("The server sets $S_i$ form a laminar family (the model is nested). Nesting "
                 "tree, each set with its classes and the sets it contains:")
    rows = [[f"${set_latex(sorted(s, key=model.servers.index))}$",
             ", ".join(f"${name_latex(c)}$" for c in tree.nodes[s]["classes"]),
             ", ".join(f"${set_latex(sorted(t, key=model.servers.index))}$"
                       for t in tree.successors(s)) or "--"]
            for s in sorted(tree.nodes, key=len)]
    section.blocks.append(("table", ["server set", "classes", "contains"], rows))
    return section


def _product_form_section(disciplines: tuple[str, ...]) -> Section:
    section = Section("Product forms")
    for discipline in disciplines:
        text, formula = _PRODUCT_FORMS[discipline]
        section.text(text)
        section.math(formula)
    return section


def _row_name(label: str) -> str:
    """A result label (``per_class 1``, ``per_server 2``, ``total``, ``lst 1``) in words; the
    law of the serving server (``server 3->1``: class 3 served by server 1) as "server 1 serves
    class 3".

    >>> print(_row_name("server 3->1"))
    server $1$ serves class $3$
    """
    if not label:
        return "value"
    key, _, rest = label.partition(" ")
    if key == "server" and "->" in rest:
        job_class, _, server = rest.partition("->")
        return f"server ${name_latex(server)}$ serves class ${name_latex(job_class)}$"
    word = {"per_class": "class", "per_server": "server", "lst": "LST, class",
            "cdf": "CDF, class", "mean": "mean, class", "variance": "variance, class"
            }.get(key, key.replace("_", " "))
    return escape(word) + (f" ${name_latex(rest)}$" if rest else "")


#: ASCII formula fragments of the route descriptions, and their LaTeX
_METHOD_MATH = (
    (r"O\(([A-Za-z])\^(\d+)\)", r"$O(\1^{\2})$"),
    (r"O\(([A-Za-z]) ([A-Za-z])\)", r"$O(\1\2)$"),
    (r"Exp\(mu_(\w+)\)", r"$\\mathrm{Exp}(\\mu_{\1})$"),
    (r"Exp\(mu\)", r"$\\mathrm{Exp}(\\mu)$"),
    (r"prod\(1 - rho_S\)", r"$\\prod_S(1-\\rho_S)$"),
    (r"Phi\(B\) D\(B\)", r"$\\Phi(B)D(B)$"),
    (r"pi\(state\)", r"$\\pi(\\text{state})$"),
    (r"G\(lambda - theta e_i\)/G\(lambda\)", r"$G(\\lambda-\\theta e_i)/G(\\lambda)$"),
    (r"\bmu_(\w+)\b", r"$\\mu_{\1}$"),
    (r"\blambda_(\w+)\b", r"$\\lambda_{\1}$"),
)
#: pointers to documentation files (``docs/quantities.md``, ``theory-subset-dp §2.4``): they mean
#: nothing in a stand-alone document
_FILE_REFERENCE = re.compile(r"\s*\((?:see )?[^()]*(?:docs/|\.md\b|\.py\b|§)[^()]*\)|"
                             r"\s*(?:see )?\S*(?:docs/|\.md\b|\.py\b)\S*|\s*[\w-]+ §[\d.]+")


def _method_text(method: str) -> str:
    """The method name as LaTeX text: its formula fragments set as math, pointers to files left
    out, the rest escaped.

    >>> print(_method_text("ring: arc weights, O(M^3) (docs/quantities.md, Ring models)"))
    ring: arc weights, $O(M^{3})$
    >>> print(_method_text("then Exp(mu_s) service (theory-subset-dp §2.4)"))
    then $\\mathrm{Exp}(\\mu_{s})$ service
    """
    text = _FILE_REFERENCE.sub("", method)
    pieces: list[str] = []

    def keep(match: re.Match, latex: str) -> str:
        pieces.append(match.expand(latex))
        return f"QXMATH{len(pieces) - 1}QX"

    for pattern, latex in _METHOD_MATH:
        text = re.sub(pattern, lambda m, latex=latex: keep(m, latex), text)
    text = escape(text)
    return re.sub(r"QXMATH(\d+)QX", lambda m: pieces[int(m.group(1))], text)


def _no_digits(exact) -> str:
    """The digits cell of a value that has none: a transform or a distribution function, "a
    function of $\\theta$" (of $t$)."""
    names = sorted(getattr(exact, "free_symbols", ()), key=str)
    if not names:
        return "--"
    return "a function of " + ", ".join(f"${sympy.latex(n)}$" for n in names)


def _quantity_blocks(section: Section, model: Model, numeric: Model, discipline: str,
                     quantity: str, symbolic: bool, digits: int, shown: set[str],
                     shown_laws: set[str] | None = None) -> None:
    shown_laws = set() if shown_laws is None else shown_laws
    title = _TITLES.get(quantity, escape(QUANTITIES[quantity].capitalize()))
    try:
        from symq.queries.solve import solve
        answer = solve(numeric, quantity, discipline, digits=digits, exact=True, no_limits=True)
        method, value = answer.method, answer.items
        formula = None
        if symbolic:  # the formula printed below, by the route the planner runs for it
            shaped = solve(model, quantity, discipline, method="formulas", no_limits=True)
            formula = shaped.formula
            if formula is not None and shaped.method != method:
                method = f"{shaped.method}; values: {method}"
    except SymqError as error:
        if "--time" in str(error):  # a survival function: its value needs a time t
            law = quantity.removesuffix("-survival")
            section.text(f"{title}: a function of the time $t$, one minus the CDF of the "
                         f"{law} law" + (" above." if law in shown_laws
                                         else " (evaluate it with --time T)."))
        else:
            section.text(f"{title}: not available ({escape(str(error))}).")
        return
    section.text(rf"{title}. \emph{{Method:}} {_method_text(method)}.")
    if quantity == "normalizing-constant":
        section.text(_G_NOTES[discipline])
    if quantity in ("response-time", "waiting-time"):
        shown_laws.add(quantity)
    if formula is not None:
        new = [d for d in formula.definitions if d.name not in shown and d.kind != "inline"]
        names = formula.names
        if not new:
            given = ", ".join(f"${names[n]}$" for _, n in formula.result_names())
            section.text(f"Structured formula: {given}, defined above.")
        elif len(new) < len(formula.definitions):
            section.text("Structured formula (with the quantities defined above):")
        else:
            section.text("Structured formula:")
        if new:
            section.math(formula.latex(skip=shown))
        shown.update(d.name for d in formula.definitions)
    rows = [[_row_name(label), f"${sympy.latex(v.exact)}$" if v.exact is not None
             else "--", v.value or _no_digits(v.exact)] for label, v in flatten_result(value)]
    section.blocks.append(("table", ["", "exact", f"{digits} digits"], rows))


def _formula_notation(section: Section, discipline: str) -> None:
    """The notation of the structured formulas of one discipline."""
    common = (r"Server sets are written by their servers ($H_{12}$ belongs to $\{1,2\}$); "
              r"$r_X=\mu(X)-\lambda(R(X))$ is the slack of $X$ and $\Lambda_I=\lambda(C(I))$ the "
              r"arrival rate of the classes that a server of $I$ can serve. ")
    words = {
        "collaborative": r"$H_X$ are the collaborative (exact-cover) weights on the unions of "
                         r"class server sets ([GR20] Thm 3.3, Props 6.2 and 6.3 corrected), "
                         r"$F_Z$ the continuation weights of the mean numbers; for a nested "
                         r"model, $\rho_S$ is the load of the nesting-tree node $S$ "
                         r"([GR20] Thm 4.5).",
        "alis": r"$W_I$ are the idle-order weights ([GR20] Thm 3.9) and $\Omega_I$ their sums "
                r"over the subsets of $I$; $H_X$ the collaborative weights, $\hat H_Y$ their sums "
                r"over subsets; $V_X$ and $Z_Q$ weight the jobs in queue and the jobs that start "
                r"service on arrival (the matching rates).",
        "rais": r"$\widetilde W_I$ are the idle-order weights without the service-rate factor, "
                r"$D_B$ the busy-set weights ([GR20] Thm 3.10) and $D^c_B$ those of the class-$c$ "
                r"jobs in queue; the mean numbers in service use the ALIS matching rates "
                r"(the canonical routing has the same ones).",
    }
    section.text(common + words[discipline])


def _verification_section(model: Model, disciplines: tuple[str, ...], max_jobs: int,
                          processes: Mapping[str, Any] | None = None,
                          progress: Callable[[str], Callable[[int, int], None] | None]
                          = lambda d: None) -> Section:
    section = Section("Verification")
    section.text("Each product form is checked against the transitions of the verbal model: every "
                 "global- and partial-balance equation of every state with at most "
                 f"{max_jobs} jobs, with symbolic rates, simplified exactly.")
    try:
        from symq.engines.balance import verify
    except ImportError:  # pragma: no cover - the verifier is part of symq
        section.text("The balance verifier is not installed.")
        return section
    rows = []
    for discipline in disciplines:
        start = time.perf_counter()
        try:
            process = (processes or {}).get(discipline)
            if process is not None:  # built once, by the caller
                report = verify(process, max_jobs=max_jobs, progress=progress(discipline))
            else:
                report = verify(model, discipline=discipline, max_jobs=max_jobs,
                                progress=progress(discipline))
        except SymqError as error:
            rows.append([discipline, "--", "--", f"not checked: {escape(str(error))}"])
            continue
        verdict = "all residuals 0" if report.ok else f"{len(report.failures)} FAILING"
        rows.append([discipline, str(report.states_checked), str(report.equations_checked),
                     f"{verdict} ({time.perf_counter() - start:.1f} s)"])
    section.blocks.append(("table", ["discipline", "states", "equations", "verdict"], rows))
    return section


def build_report(model: Model, discipline: str | None = None,
                 values: Mapping[str, str] | None = None, digits: int = 30,
                 verify_jobs: int = 3,
                 progress: Callable[[int, int], None] | None = None,
                 processes: Mapping[str, Any] | None = None) -> list[Section]:
    """The sections of the derivation document of ``model``.

    Parameters
    ----------
    model : Model
        Symbolic rates (formulas and values at ``values``) or numeric ones (values only).
    discipline : str, optional
        One of ``collaborative``, ``alis``, ``rais``; all three by default.
    values : mapping, optional
        Exact values for the symbols; :func:`example_values` by default.
    digits : int
        Significant digits of the decimal values.
    verify_jobs : int
        Truncation of the balance check (0 skips it).
    progress : callable, optional
        Called as ``progress(done, total)`` as the report is built (see :mod:`symq.progress`):
        the work is one unit a quantity and discipline plus one a state of the balance check
        (the estimate of :func:`symq.queries.estimates.estimate_states`), so that the
        percentage and the time left include the check, usually the longest part.
    processes : mapping, optional
        The processes of the balance check by discipline, when the caller built them already
        (for its limit check); built here otherwise.

    Returns
    -------
    list of Section
        The model, stability, nesting, product forms, one section a discipline, references.

    Examples
    --------
    >>> from symq import model
    >>> sections = build_report(model("n"), "collaborative", verify_jobs=0)
    >>> [s.title for s in sections][:3]
    ['The model', 'Stability', 'Nesting']

    Running time: one derivation and evaluation per quantity and discipline, plus the balance
    check of :func:`symq.engines.balance.verify` at ``verify_jobs``.
    """
    disciplines = (discipline,) if discipline else DISCIPLINES
    values = dict(values) if values else example_values(model)
    numeric = model.substitute({k: v for k, v in values.items()
                                if k in {s.name for s in model.symbols}})
    symbolic = not model.is_numeric and len(model.servers) <= SYMBOLIC_SERVER_LIMIT
    sections = [_model_section(model), _stability_section(model, numeric), _nesting_section(model),
                _product_form_section(disciplines)]
    shown = ", ".join(f"${sympy.latex(sympy.Symbol(k))} = {sympy.latex(sympy.Rational(v))}$"
                      for k, v in values.items())
    steps = len(disciplines) * len(QUANTITIES)
    check_work: dict[str, int] = {}
    if verify_jobs and progress is not None:
        check_work = _check_work(model, disciplines, verify_jobs, processes)
    total = steps + sum(check_work.values())
    step = 0
    for d in disciplines:
        section = Section(f"Performance: {d}")
        if values:
            section.text(f"Values at {shown}." + (" Each quantity is given by a structured "
                                                  "formula for symbolic rates (named "
                                                  "intermediate quantities, then the quantity), "
                                                  "and its value at these rates."
                                                  if symbolic else ""))
        if symbolic:
            _formula_notation(section, d)
        defined: set[str] = set()
        laws: set[str] = set()
        for quantity in QUANTITIES:
            if getattr(progress, "bar", None) is not None:  # a symq.progress line: say what runs
                progress.bar.set_stage(f"{d}: {quantity}")
            if progress is not None:
                progress(step, total)
            step += 1
            formula = symbolic and quantity in _STRUCTURED
            _quantity_blocks(section, model, numeric, d, quantity, formula, digits, defined, laws)
        sections.append(section)
    if verify_jobs:
        offsets, at = {}, steps
        for d in disciplines:
            offsets[d] = at
            at += check_work.get(d, 0)

        def part(d: str):
            if progress is None or not check_work.get(d):
                return None
            if getattr(progress, "bar", None) is not None:
                progress.bar.set_stage(f"balance check ({d})")
            start, span = offsets[d], check_work[d]
            return lambda done, count: progress(
                start + (span * min(done, count)) // max(count, 1), total)

        sections.append(_verification_section(model, disciplines, verify_jobs, processes, part))
    if progress is not None:
        progress(total, total)
    sections.append(_references(sections))
    return sections


#: the works a report cites: key -> (authors, year, title, where)
BIBLIOGRAPHY = {
    "GR20": ("K. Gardner and R. Righter", 2020, "Product forms for FCFS queueing models with "
             "arbitrary server-job compatibilities: an overview",
             "Queueing Systems 96, 3--51, arXiv:2006.05979"),
    "AW14": ("I. Adan and G. Weiss", 2014, "A skill based parallel service system under "
             "FCFS-ALIS: steady state, overloads, and abandonments", "Stochastic Systems 4"),
    "VAW12": ("J. Visschers, I. Adan and G. Weiss", 2012, "A product form solution to a system "
              "with multi-type jobs and multi-type servers", "Queueing Systems 70"),
}


def _references(sections: list[Section]) -> Section:
    """The works cited in ``sections``, each with its authors, year, title and journal."""
    text = " ".join(str(block[1]) for s in sections for block in s.blocks
                    if block[0] in ("text", "math"))
    section = Section("References")
    for key, (authors, year, title, where) in BIBLIOGRAPHY.items():
        if f"[{key}]" in text or key == "GR20":
            section.text(f"[{key}] {authors} ({year}). \\emph{{{title}}}. {where}.")
    return section


def _check_work(model: Model, disciplines: tuple[str, ...], max_jobs: int,
                processes: Mapping[str, Any] | None) -> dict[str, int]:
    """The estimated states of the balance check, by discipline (the progress weights)."""
    from symq.engines.balance import build_process
    from symq.queries.estimates import estimate_states

    work = {}
    for d in disciplines:
        try:
            process = (processes or {}).get(d) or build_process(
                model, d, **({"check_routing": False} if d == "rais" else {}))
            work[d] = estimate_states(process, max_jobs)[0]
        except SymqError:
            work[d] = 0
    return work


# ------------------------------------------------------------------------------ rendering
def _latex_table(headers: list[str], rows: list[list[str]]) -> str:
    spec = "l" * len(headers)
    lines = [r"\begin{center}", r"\renewcommand{\arraystretch}{2.2}",
             # a table wider than the text (long exact laws) is scaled down to fit
             r"\resizebox{\ifdim\width>\textwidth\textwidth\else\width\fi}{!}{%",
             rf"\begin{{tabular}}{{{spec}}}", r"\hline",
             " & ".join(headers) + r" \\", r"\hline"]
    lines += [" & ".join(row) + r" \\" for row in rows]
    lines += [r"\hline", r"\end{tabular}}", r"\end{center}"]
    return "\n".join(lines)


def render_latex(sections: list[Section], title: str, paper: str = "a4") -> str:
    """A complete LaTeX document (compiles with pdflatex).

    Parameters
    ----------
    sections : list of Section
        From :func:`build_report`.
    title : str
        Plain text.
    paper : str
        ``"a4"`` (default) or ``"letter"``: the paper size, with 2 cm margins.

    Raises
    ------
    ValueError
        Another paper size.

    Returns
    -------
    str

    Examples
    --------
    >>> print(render_latex([Section("Intro").text("Hello.")], "A").splitlines()[0])
    \\documentclass[11pt]{article}
    >>> r"a4paper" in render_latex([], "A"), r"letterpaper" in render_latex([], "A", "letter")
    (True, True)

    Running time: O(size of the sections).
    """
    if paper not in PAPERS:
        raise ValueError(f"paper {paper!r}: give one of {', '.join(PAPERS)}")
    body = []
    for section in sections:
        body.append(rf"\section{{{escape(section.title)}}}")
        for block in section.blocks:
            kind = block[0]
            if kind == "text":
                body.append(block[1] + "\n")
            elif kind == "math":
                body.append(math_block(block[1]))
            elif kind == "table":
                body.append(_latex_table(block[1], block[2]))
            elif kind == "graph":
                body.append("\\begin{center}\n" + tikz_graph(block[1]) + "\n\\end{center}")
    text = document(title, "\n".join(body))
    from symq import __version__
    text = text.replace(r"\author{symq}", rf"\author{{generated by symq {__version__}}}", 1)
    return text.replace(r"\usepackage[margin=2cm]{geometry}",
                        rf"\usepackage[{paper}paper,margin=2cm]{{geometry}}", 1)


def render_markdown(sections: list[Section], title: str | None = None) -> str:
    """The same document in Markdown with ``$...$`` math.

    Parameters
    ----------
    sections : list of Section
        From :func:`build_report`.
    title : str, optional
        The level-1 heading.

    Returns
    -------
    str

    Examples
    --------
    >>> print(render_markdown([Section("Intro").text("Hello.")], "A"))
    # A
    <BLANKLINE>
    ## Intro
    <BLANKLINE>
    Hello.
    <BLANKLINE>

    Running time: O(size of the sections).
    """
    # names are data: the title and the graph line through markdown_text, the LaTeX cells and
    # paragraphs (names from name_latex) through markdown_latex: no live HTML from a name
    lines = [f"# {markdown_text(title or 'symq report')}", ""]
    for section in sections:
        lines += [f"## {section.title}", ""]
        for block in section.blocks:
            kind = block[0]
            if kind == "text":
                lines += [markdown_latex(block[1]), ""]
            elif kind == "math":
                lines += ["$$", markdown_latex(f"${block[1]}$")[1:-1], "$$", ""]
            elif kind == "table":
                lines.append("| " + " | ".join(map(markdown_latex, block[1])) + " |")
                lines.append("|" + "---|" * len(block[1]))
                lines += ["| " + " | ".join(map(markdown_latex, row)) + " |" for row in block[2]]
                lines.append("")
            elif kind == "graph":
                m = block[1]
                lines += ["Compatibility graph (class -- servers): " + "; ".join(
                    f"{markdown_text(i)} -- {{{', '.join(map(markdown_text, m.compatibility[i]))}}}"
                    for i in m.classes), ""]
    return "\n".join(lines)


def write_report(model: Model, label: str, output: str | None = None, markdown: bool = False,
                 **options: Any) -> str:
    """Build and render the report; write it to ``output`` when given; return the text.

    Parameters
    ----------
    model : Model
        As :func:`build_report`.
    label : str
        The model's name in the title.
    output : str, optional
        A file path; ``.md`` or ``markdown=True`` writes Markdown, else LaTeX.
    markdown : bool
        Markdown instead of LaTeX.
    **options
        Passed to :func:`build_report`.

    Returns
    -------
    str
        The rendered document.

    Examples
    --------
    >>> from symq import model
    >>> text = write_report(model("n"), "n", markdown=True, discipline="collaborative",
    ...                     verify_jobs=0)
    >>> text.splitlines()[0]
    '# symq report: n'

    Running time: that of :func:`build_report`, plus the rendering.
    """
    if output and output.endswith(".md"):
        markdown = True
    sections = build_report(model, **options)
    title = f"symq report: {label}"
    text = render_markdown(sections, title) if markdown else render_latex(sections, title)
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    return text
