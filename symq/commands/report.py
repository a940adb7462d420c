"""``symq report MODEL [--discipline D] [--set ...] [--output FILE.tex|FILE.md]``: a derivation
document (LaTeX by default, Markdown for ``--output x.md`` or ``--format text``, JSON sections with
``--json``)."""

from __future__ import annotations

import argparse

from ..catalog import model as load_model
from .common import add_set_argument, emit_json, parse_settings
from ..quantities import DISCIPLINES
from ..report import build_report, render_latex, render_markdown


def register(subparsers) -> None:
    p = subparsers.add_parser("report", help="a whole derivation document (LaTeX or Markdown)")
    p.add_argument("model", help="built-in name or path to a TOML file")
    p.add_argument("--discipline", choices=DISCIPLINES, default=None,
                   help="one discipline (default: all three)")
    add_set_argument(p)
    p.add_argument("--digits", type=int, default=30, help="digits of the numeric values")
    p.add_argument("--verify-jobs", type=int, default=3,
                   help="truncation of the balance check in the report (0 skips it)")
    p.add_argument("--output", help="write to FILE.tex (LaTeX) or FILE.md (Markdown)")
    p.add_argument("--format", choices=("text", "latex", "json"), default="latex",
                   help="latex (default), text (Markdown) or json")
    p.add_argument("--json", dest="format", action="store_const", const="json")
    p.add_argument("--quiet", action="store_true", help="no progress bar on the terminal")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    values = parse_settings(args.settings) or None
    from ..progress import callback
    progress = callback("report", quiet=args.quiet, unit="step")
    sections = build_report(model, discipline=args.discipline, values=values, digits=args.digits,
                            verify_jobs=args.verify_jobs, progress=progress)
    progress.close()
    label = model.name or args.model
    if args.format == "json":
        emit_json({"model": label, "sections": [
            {"title": s.title, "blocks": [_json_block(b) for b in s.blocks]} for s in sections]})
        return 0
    markdown = args.format == "text" or (args.output or "").endswith(".md")
    text = render_markdown(sections, f"symq report: {label}") if markdown else \
        render_latex(sections, f"symq report: {label}")
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
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


