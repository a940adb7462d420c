r"""``symq verify MODEL [--discipline D] [--max-jobs N]``: balance residuals of the product form.
Builds the Markov process of the model under the discipline from its verbal definition
(:mod:`symq.engines.processes`), and checks the product form of [GR20]_ section 3 on every valid state with
at most N jobs by exact global- and partial-balance residuals (:mod:`symq.engines.balance`). Exit status
0 when every residual is zero, 1 when some is not (the failures are listed), 2 for bad input.

Examples
--------
``symq verify w --discipline rais --max-jobs 5 --json``

``symq verify n --discipline rais --routing uniform --max-jobs 2`` (fails: uniform routing breaks
the assignment condition in the N model)

``symq verify w --discipline dbm --server-buffer 2 --max-jobs 4``
"""

from __future__ import annotations

import argparse

from sympy import latex

from symq.display import printable, text_latex

from symq.engines.balance import VERIFY_DISCIPLINES, verify
from symq.models.catalog import model as load_model
from symq.errors import ModelError
from symq.progress import callback

__all__ = ["register", "run"]


#: the largest --max-jobs or --server-buffer read
MAX_COUNT = 10 ** 6


def _count(name: str):
    def parse(text: str) -> int | None:
        if name == "server-buffer" and text.lower() in ("inf", "none", "unbounded"):
            return None
        from symq.arithmetic.expressions import check_ascii
        check_ascii(text, f"--{name}")
        try:
            value = int(text)
        except ValueError:
            raise ModelError(f"--{name} {text!r} is not an integer; give e.g. 4") from None
        if value < 0:
            raise ModelError(f"--{name} is {value}; give an integer >= 0")
        if value > MAX_COUNT:  # past this the state count's estimate alone overflows a float
            raise ModelError(f"--{name} has {len(text.strip().lstrip('+'))} digits; give at most "
                             f"{MAX_COUNT:,} (the states "
                             "with at most N jobs are checked one by one)")
        return value
    return parse


def register(subparsers) -> None:
    """Add the ``verify`` subcommand.

    Parameters
    ----------
    subparsers : argparse subparsers action
        The ``symq`` subcommands, from :func:`symq.cli.build_parser`; ``verify`` also takes
        the limit options of :mod:`symq.limits`.

    Examples
    --------
    >>> from symq.cli import build_parser
    >>> build_parser("verify").parse_args(["verify", "w", "--discipline", "alis"]).discipline
    'alis'

    Running time: O(1) (the parser is built once per command line).
    """
    from symq.commands.common import add_format_arguments, add_limit_arguments, add_set_argument

    p = subparsers.add_parser(
        "verify", help="balance residuals of the product form on all states with <= N jobs",
        description="Check the product form of a model under a discipline against the "
                    "transitions of its verbal model: exact global- and partial-balance residuals "
                    "on every valid state with at most N jobs. Exit status 1 if one is nonzero.")
    p.add_argument("model", help="built-in name or path to a TOML file")
    p.add_argument("--discipline", choices=VERIFY_DISCIPLINES, default="collaborative",
                   help="collaborative (OI queue; abandonments if the model has them), alis, "
                        "rais, dbm (directed bipartite matching), dbma (with abandonments)")
    p.add_argument("--max-jobs", default="4",
                   help="check every state with at most this many jobs (default 4)")
    p.add_argument("--routing", default=None, choices=("canonical", "maxflow", "uniform", "auto"),
                   help="rais: assignment probabilities (default canonical, always valid)")
    p.add_argument("--server-buffer", default="0",
                   help="dbm/dbma: waiting servers allowed, K of DBM(K) (default 0; inf for none)")
    p.add_argument("--global-only", action="store_true",
                   help="check global balance only, not the partial-balance families")
    p.add_argument("--quiet", action="store_true", help="no progress line on the terminal")
    add_set_argument(p)
    add_limit_arguments(p, "states with at most N+1 jobs")
    add_format_arguments(p)
    p.set_defaults(handler=run)


def _check_states(args: argparse.Namespace, model, max_jobs: int, options: dict):
    """Build the process once, estimate its states and refuse a check past the limit of
    :mod:`symq.limits`; return ``(process, estimated states)`` (the process is what
    :func:`verify` checks, so it is not built a second time)."""
    from symq.engines.balance import build_process
    from symq.limits import check, limit_value
    from symq.queries.estimates import estimate_states

    from symq.queries.estimates import state_bound

    what = f"verify {args.model} --max-jobs {max_jobs}" + (
        f" --discipline {args.discipline}" if args.discipline != "collaborative" else "")
    limit = limit_value("states", args)
    # first the bound from the counts alone: building the process is itself 2^M work for
    # ALIS and RAIS, and listing the idle orders of M servers M! (issue 25)
    bound = state_bound(model, args.discipline, max_jobs)
    if limit is not None and bound is not None and bound > limit and (
            args.discipline != "collaborative" or bound > 100 * limit):
        check("states", bound, what, limit, remedy=None if bound < 10 ** 15 else
              "choose a smaller --max-jobs, or pass --no-limits")
    if args.discipline == "rais" and options.get("routing") in (None, "canonical", "auto"):
        from symq.queries.estimates import routing_steps
        # the canonical routing is built with the process: counted before it (issue 25)
        check("routing-work", routing_steps(model), f"the canonical routing of {what}",
              limit_value("routing-work", args))
    extra = {"check_routing": False} if args.discipline == "rais" else {}
    process = build_process(model, args.discipline, **options, **extra)
    states, _ = estimate_states(process, max_jobs)
    if limit is not None:
        check("states", states, what, limit)
    return process, states


def run(args: argparse.Namespace) -> int:
    """Check the balance equations; exit status 0 when every residual is zero, 1 otherwise.

    Parameters
    ----------
    args : argparse.Namespace
        The model, discipline, ``--max-jobs``, ``--set`` values and output flags.

    Returns
    -------
    int
        0 when the product form holds on every checked state.

    Examples
    --------
    >>> from symq.cli import build_parser
    >>> run(build_parser("verify").parse_args(["verify", "n", "--max-jobs", "1", "--quiet"]))
    ... # doctest: +ELLIPSIS
    n (collaborative), states with at most 1 jobs: 3 states, 11 equations (3 global, 8 partial), 0 nonzero residuals: OK (... s)
    0

    Running time: that of :func:`symq.engines.balance.verify`.
    """
    import time

    from symq.commands.common import emit_json, parse_settings

    start = time.perf_counter()
    base = load_model(args.model)
    values = parse_settings(args.settings)
    model = base.substitute(values) if values else base
    max_jobs = _count("max-jobs")(args.max_jobs)
    options = {"server_buffer": _count("server-buffer")(args.server_buffer)}
    if args.routing:
        options["routing"] = args.routing
    # the progress line covers the whole command: building the process (for rais, the routing)
    # shows "working"; the checked states give the percentage
    progress = callback("verify", quiet=args.quiet, unit="state")
    bar = progress.bar
    try:
        if bar is not None:
            bar.set_stage(f"building the {args.discipline} process")
        process, states = _check_states(args, model, max_jobs, options)
        if bar is not None:
            bar.set_stage("building the states and transitions", total=states)

        def checking(done: int, total: int) -> None:
            if bar is not None:
                bar.set_stage("checking states")
            progress(done, total)

        report = verify(process, max_jobs=max_jobs, partial=False if args.global_only else None,
                        progress=checking)
    finally:
        progress.close()
    report.seconds = time.perf_counter() - start  # the whole command, as the user waited
    report.model = base.name or str(args.model)
    report.discipline = args.discipline
    if args.format == "json":
        data = report.to_dict()
        data["seconds"] = round(report.seconds, 3)
        data["global_equations"] = report.global_equations
        data["partial_equations"] = report.partial_equations
        if values:
            data["parameters"] = values
        if args.discipline == "rais":
            data["routing"] = args.routing or "canonical"
        emit_json(data)
    elif args.format == "latex":
        verdict = r"\text{verified}" if report.ok else r"\text{fails}"
        print(rf"% {printable(report.model)}, {args.discipline}, states with at most {max_jobs} "
              "jobs")
        print(rf"{verdict}: {report.states_checked}\ \text{{states}},\ "
              rf"{report.equations_checked}\ \text{{equations}},\ "
              rf"{report.nonzero_residuals}\ \text{{nonzero residuals}}")
        for f in report.failures:
            print(rf"{text_latex(f'{f.state}: {f.equation}')}: {latex(f.residual)}")
    else:  # names are data: non-printable characters written out, line by line
        print("\n".join(printable(line) for line in str(report).splitlines()))
    return 0 if report.ok else 1
