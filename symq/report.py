r"""Derivation documents: everything symq knows about one model, in LaTeX or Markdown.

A report has the model and its compatibility graph, the stability conditions, the nesting tree,
the product form of each discipline with the theorem it comes from, the normalizing constant, idle
probabilities and means (symbolic where that is cheap, always at the example values), response-time
laws for nested models, and the verification summary (balance residuals on a truncated state
space, :func:`symq.balance.verify`). Quantities that symq cannot compute for the model are listed
as such, never silently left out.

The sections are built once as plain data (:class:`Section`) and rendered by
:func:`render_latex` or :func:`render_markdown`.

Examples
--------
>>> from symq import model
>>> from symq.report import build_report, render_markdown
>>> text = render_markdown(build_report(model("n"), verify_jobs=2), "symq report: n")
>>> print(text.splitlines()[0])
# symq report: n
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import sympy

from .errors import SymqError
from .latex import document, escape, math_block, set_latex, tikz_graph
from .model import Model
from .nested import is_nested, nesting_tree
from .quantities import DISCIPLINES, QUANTITIES, derive, evaluate, flatten_result, handler_for
from .stability import stability_conditions, stability_report

__all__ = ["Section", "build_report", "render_latex", "render_markdown", "example_values",
           "write_report"]

#: symbolic derivations are attempted for models up to this many servers (cost grows as 2^M)
SYMBOLIC_SERVER_LIMIT = 3

_PRODUCT_FORMS = {
    "collaborative": (
        "Collaborative model (redundancy with cancel-on-completion; the order-independent queue), "
        "[GR20] Theorem 3.3. State: the classes $c_1, \\dots, c_n$ of all jobs in arrival order.",
        r"\pi(c_1,\dots,c_n) = \pi(\emptyset) \prod_{i=1}^{n} "
        r"\frac{\lambda_{c_i}}{\mu(S(\{c_1,\dots,c_i\}))}"),
    "alis": (
        "Noncollaborative FCFS-ALIS, [GR20] Theorem 3.9 (Adan and Weiss). State: the classes of "
        "the waiting jobs $c_1,\\dots,c_n$ and the idle servers $s_1,\\dots,s_k$ ($s_1$ idle "
        "longest).",
        r"\pi(\vec c_n, \vec s_k) = \pi(\emptyset) \prod_{i=1}^{n} "
        r"\frac{\lambda_{c_i}}{\mu(S(\{c_1,\dots,c_i\}))} \prod_{j=1}^{k} "
        r"\frac{\mu_{s_j}}{\lambda(C(\{s_1,\dots,s_j\}))}"),
    "rais": (
        "Noncollaborative FCFS-RAIS, [GR20] Theorem 3.10. State: the jobs in arrival order, a "
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
    r"""Built-in example rates: the W example of docs/quantities.md for ``w``; otherwise every server
    rate 1 and every class rate $1/(2J)$, which is stable for every graph ($\lambda(A) \le 1/2$)."""
    names = {s.name for s in model.symbols}
    if model.name == "w" and names == {"lambda_1", "lambda_2", "lambda_3", "mu_1", "mu_2"}:
        return {"lambda_1": "3/10", "lambda_2": "1/5", "lambda_3": "1/2", "mu_1": "1",
                "mu_2": "4/5"}
    values = {}
    for i, rate in model.arrival_rates.items():
        for s in rate.free_symbols:
            values[s.name] = f"1/{2 * len(model.classes)}"
    for j, rate in model.service_rates.items():
        for s in rate.free_symbols:
            values.setdefault(s.name, "1")
    return values


def _model_section(model: Model) -> Section:
    section = Section("The model")
    section.text(f"{len(model.classes)} job classes and {len(model.servers)} servers. Class $i$ "
                 "arrives as a Poisson process of rate $\\lambda_i$ and can be served by the "
                 "servers $S_i$; server $j$ works at exponential rate $\\mu_j$.")
    rows = [[f"${escape(i)}$", f"${sympy.latex(model.arrival_rates[i])}$",
             f"${set_latex(model.compatibility[i])}$"] for i in model.classes]
    section.blocks.append(("table", ["class $i$", "$\\lambda_i$", "$S_i$"], rows))
    rows = [[f"${escape(j)}$", f"${sympy.latex(model.service_rates[j])}$",
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
        section.text("The distinct conditions (sets that are closed, $A = R(S(A))$, and "
                     "connected; the others are implied):")
        section.math(r" \\ ".join(f"{sympy.latex(model.arrival_rate(a))} < "
                                  f"{sympy.latex(model.service_rate(b))}"
                                  for a, b in conditions).join([r"\begin{gathered}",
                                                                r"\end{gathered}"]))
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
             ", ".join(f"${escape(c)}$" for c in tree.nodes[s]["classes"]),
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


def _quantity_blocks(section: Section, model: Model, numeric: Model, discipline: str,
                     quantity: str, symbolic: bool, digits: int) -> None:
    try:
        _, method = handler_for(model, quantity, discipline)
        value = evaluate(derive(numeric, quantity, discipline), digits=digits)
    except SymqError as error:
        section.text(f"{escape(QUANTITIES[quantity].capitalize())}: not available "
                     f"({escape(str(error))}).")
        return
    section.text(f"{escape(QUANTITIES[quantity].capitalize())} (method: {escape(method)}).")
    if symbolic:
        try:
            formula = derive(model, quantity, discipline)
        except SymqError:
            formula = None
        if formula is not None and not isinstance(formula, Mapping):
            section.math(sympy.latex(formula))
        elif isinstance(formula, Mapping):
            for label, expr in flatten_result(formula):
                section.math(f"\\text{{{escape(label)}}}: \\quad {sympy.latex(expr)}")
    rows = [[escape(label) or "value", f"${sympy.latex(v.exact)}$" if v.exact is not None
             else "--", v.value] for label, v in flatten_result(value)]
    section.blocks.append(("table", ["", "exact", f"{digits} digits"], rows))


def _verification_section(model: Model, disciplines: tuple[str, ...], max_jobs: int) -> Section:
    section = Section("Verification")
    section.text("Each product form is checked against the transitions of the verbal model: every "
                 "global- and partial-balance equation of every state with at most "
                 f"{max_jobs} jobs, with symbolic rates, simplified exactly.")
    try:
        from .balance import verify
    except ImportError:  # pragma: no cover - the verifier is part of symq
        section.text("The balance verifier is not installed.")
        return section
    rows = []
    for discipline in disciplines:
        start = time.perf_counter()
        try:
            report = verify(model, discipline=discipline, max_jobs=max_jobs)
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
                 progress: Callable[[int, int], None] | None = None) -> list[Section]:
    """The sections of the derivation document of ``model``.

    Parameters
    ----------
    discipline : one of ``collaborative``, ``alis``, ``rais``; all three by default.
    values : exact values for the symbols; :func:`example_values` by default.
    verify_jobs : truncation of the balance check (0 skips it).
    progress : called as ``progress(done, total)`` after each quantity and the balance check
        (see :mod:`symq.progress`).
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
    steps = len(disciplines) * len(QUANTITIES) + bool(verify_jobs)
    step = 0
    for d in disciplines:
        section = Section(f"Performance: {d}")
        if values:
            section.text(f"Values at {shown}." + (" Formulas are shown for symbolic rates."
                                                  if symbolic else ""))
        for quantity in QUANTITIES:
            step += 1
            if progress is not None:
                progress(step - 1, steps)
            if quantity == "response-time" and not is_nested(model):
                continue
            formula = symbolic and quantity == "empty-probability" and \
                (d == "collaborative" or len(model.servers) <= 2)
            _quantity_blocks(section, model, numeric, d, quantity, formula, digits)
        sections.append(section)
    if verify_jobs:
        sections.append(_verification_section(model, disciplines, verify_jobs))
    if progress is not None:
        progress(steps, steps)
    references = Section("References")
    references.text("[GR20] K. Gardner and R. Righter, Product forms for FCFS queueing models with "
                    "arbitrary server-job compatibilities: an overview, Queueing Systems 96 (2020) "
                    "3--51, arXiv:2006.05979.")
    sections.append(references)
    return sections


# ------------------------------------------------------------------------------ rendering
def _latex_table(headers: list[str], rows: list[list[str]]) -> str:
    spec = "l" * len(headers)
    lines = [r"\begin{center}", rf"\begin{{tabular}}{{{spec}}}", r"\hline",
             " & ".join(headers) + r" \\", r"\hline"]
    lines += [" & ".join(row) + r" \\" for row in rows]
    lines += [r"\hline", r"\end{tabular}", r"\end{center}"]
    return "\n".join(lines)


def render_latex(sections: list[Section], title: str) -> str:
    """A complete LaTeX document (compiles with pdflatex)."""
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
    return document(title, "\n".join(body))


def render_markdown(sections: list[Section], title: str | None = None) -> str:
    """The same document in Markdown with ``$...$`` math."""
    lines = [f"# {title or 'symq report'}", ""]
    for section in sections:
        lines += [f"## {section.title}", ""]
        for block in section.blocks:
            kind = block[0]
            if kind == "text":
                lines += [block[1], ""]
            elif kind == "math":
                lines += ["$$", block[1], "$$", ""]
            elif kind == "table":
                lines.append("| " + " | ".join(block[1]) + " |")
                lines.append("|" + "---|" * len(block[1]))
                lines += ["| " + " | ".join(row) + " |" for row in block[2]]
                lines.append("")
            elif kind == "graph":
                m = block[1]
                lines += ["Compatibility graph (class -- servers): " + "; ".join(
                    f"{i} -- {{{', '.join(m.compatibility[i])}}}" for i in m.classes), ""]
    return "\n".join(lines)


def write_report(model: Model, label: str, output: str | None = None, markdown: bool = False,
                 **options: Any) -> str:
    """Build and render the report; write it to ``output`` when given; return the text."""
    if output and output.endswith(".md"):
        markdown = True
    sections = build_report(model, **options)
    title = f"symq report: {label}"
    text = render_markdown(sections, title) if markdown else render_latex(sections, title)
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    return text
