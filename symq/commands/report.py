"""``symq report MODEL [--discipline D] [--set ...] [--output FILE.tex|FILE.md]``: a derivation
document (LaTeX by default, Markdown for ``--output x.md`` or ``--format text``, JSON sections with
``--json``)."""

from __future__ import annotations

import argparse

from symq.models.catalog import model as load_model
from symq.commands.common import (add_limit_arguments, add_set_argument, check_output_path, emit_json,
                     parse_settings, whole_number, write_text)
from symq.errors import ModelError
from symq.arithmetic.numeric import full_int_strings
from symq.queries.quantities import DISCIPLINES
from symq.presentation.report import build_report, render_latex, render_markdown


def register(subparsers) -> None:
    p = subparsers.add_parser("report", help="a whole derivation document (LaTeX or Markdown)")
    p.add_argument("model", help="built-in name or path to a TOML file")
    p.add_argument("--discipline", choices=DISCIPLINES, default=None,
                   help="one discipline (default: all three)")
    add_set_argument(p)
    p.add_argument("--digits", type=whole_number("--digits", 1, 10000), default=30,
                   help="digits of the numeric values (1 to 10000)")
    p.add_argument("--verify-jobs", type=whole_number("--verify-jobs", 0), default=3,
                   help="truncation of the balance check in the report (0 skips it)")
    p.add_argument("--output", help="write to FILE.tex (LaTeX), FILE.md (Markdown) or FILE.pdf "
                                    "(LaTeX compiled by pdflatex, which must be installed)")
    p.add_argument("--format", choices=("text", "latex", "json"), default="latex",
                   help="latex (default), text (Markdown) or json")
    p.add_argument("--json", dest="format", action="store_const", const="json")
    p.add_argument("--paper", choices=("a4", "letter"), default="a4",
                   help="paper size of the LaTeX and PDF output (default a4)")
    p.add_argument("--quiet", action="store_true", help="no progress line on the terminal")
    add_limit_arguments(p, "subset-DP steps or states of the balance check")
    p.set_defaults(handler=run)


def _check_limits(args: argparse.Namespace, model) -> dict:
    """Refuse a report whose derivations or balance check are past the limits (symq.limits):
    the subset DPs of its values, the states of its balance check, and the sum of what it
    contains (``report-work``: formulas, values, balance check with the RAIS routing, counted
    before the routing is built; :func:`symq.queries.estimates.report_work`). Return the
    processes of the balance check, by discipline (built once, here)."""
    from symq.limits import check, limit_value, number_text
    from symq.queries.estimates import check_subset_dp, estimate_states, report_work

    disciplines = (args.discipline,) if args.discipline else DISCIPLINES
    from symq.presentation.report import SYMBOLIC_SERVER_LIMIT
    from symq.queries.routes import QUANTITIES
    structured = not model.is_numeric and len(model.servers) <= SYMBOLIC_SERVER_LIMIT
    for discipline in disciplines:
        if structured:  # structured formulas (symq.engines.formulas): no rational-function algebra
            continue
        check_subset_dp(model, discipline, f"report {args.model} ({discipline} formulas)", args)
    processes: dict = {}
    limit = limit_value("report-work", args)
    work = report_work(model, disciplines, args.verify_jobs, limit=limit, processes=processes,
                       quantities=len(QUANTITIES))
    what = f"report {args.model}" + (f" --discipline {args.discipline}" if args.discipline
                                     else "")
    parts = ", ".join(f"{name} {number_text(steps)}" for name, steps in work.items()
                      if name != "total" and steps)
    remedy = (f"pass --max-work {work['total']} to go ahead, or --no-limits"
              + (", or --verify-jobs 0 to leave out the balance check" if args.verify_jobs
                 else "")
              + ("" if args.discipline else ", or one --discipline"))
    if args.verify_jobs:  # the verify command's limit first: its message names --verify-jobs
        states_limit = limit_value("states", args)
        for discipline, process in processes.items():
            states, _ = estimate_states(process, args.verify_jobs)
            check("states", states, f"report {args.model} --verify-jobs {args.verify_jobs} "
                  f"({discipline})", states_limit)
    check("report-work", work["total"], f"{what} ({parts})", limit, remedy=remedy)
    return processes


def _pdflatex() -> str:
    import shutil

    path = shutil.which("pdflatex")
    if path is None:
        raise ModelError("--output FILE.pdf needs pdflatex, which is not installed (not on PATH); "
                         "write FILE.tex and compile it yourself, or install a TeX distribution")
    return path


def _write_pdf(latex: str, output: str, timeout: float = 120) -> None:
    """Compile ``latex`` with pdflatex in a temporary folder and copy the PDF to ``output``."""
    import os
    import shutil
    import subprocess
    import tempfile

    pdflatex = _pdflatex()
    with tempfile.TemporaryDirectory(prefix="symq-report-") as folder:
        source = os.path.join(folder, "report.tex")
        with open(source, "w", encoding="utf-8") as handle:
            handle.write(latex)
        try:
            done = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error",
                                   "-no-shell-escape", "report.tex"], cwd=folder,
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ModelError(f"--output {output}: pdflatex did not finish within {timeout:.0f} s; "
                             "write FILE.tex and compile it yourself") from None
        pdf = os.path.join(folder, "report.pdf")
        if done.returncode != 0 or not os.path.exists(pdf):
            lines = [line for line in done.stdout.decode("utf-8", "replace").splitlines()
                     if line.startswith("!")]
            reason = lines[0] if lines else f"exit status {done.returncode}"
            raise ModelError(f"--output {output}: pdflatex failed ({reason}); write FILE.tex "
                             "to see the LaTeX")
        try:
            shutil.copyfile(pdf, output)
        except OSError as error:
            raise ModelError(f"--output {output}: cannot write ({error.strerror or error}); "
                             "write to a folder you can write") from None


def run(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    values = parse_settings(args.settings) or None
    pdf = bool(args.output) and args.output.lower().endswith(".pdf")
    if args.output:
        check_output_path(args.output)
        if pdf:
            _pdflatex()
    from symq.progress import callback
    # one line for the whole command: "working" while the processes of the balance check are
    # built (for rais, the routing), then the share of the derivation steps and checked states
    progress = callback("report", quiet=args.quiet, unit="step")
    try:
        if progress.bar is not None:
            progress.bar.set_stage("preparing the balance check" if args.verify_jobs
                                   else "preparing")
        processes = _check_limits(args, model)
        with full_int_strings():
            sections = build_report(model, discipline=args.discipline, values=values,
                                    digits=args.digits, verify_jobs=args.verify_jobs,
                                    progress=progress, processes=processes)
    finally:
        progress.close()
    label = model.name or args.model
    if args.format == "json":
        emit_json({"model": label, "sections": [
            {"title": s.title, "blocks": [_json_block(b) for b in s.blocks]} for s in sections]})
        return 0
    markdown = not pdf and (args.format == "text" or (args.output or "").endswith(".md"))
    with full_int_strings():  # a document prints its exact values in full
        text = render_markdown(sections, f"symq report: {label}") if markdown else \
            render_latex(sections, f"symq report: {label}", paper=args.paper)
    if pdf:
        _write_pdf(text, args.output)
        print(f"wrote {args.output}")
    elif args.output:
        write_text(args.output, text)
        print(f"wrote {args.output}")
    else:
        print(text)
    return 0


def _json_block(block: tuple) -> dict:
    kind = block[0]
    if kind == "graph":
        return {"kind": "graph", "compatibility": dict(block[1].compatibility)}
    if kind == "table":
        return {"kind": "table", "headers": block[1], "rows": block[2]}
    return {"kind": kind, "content": block[1]}


