r"""``symq sweep CHECK --classes J --servers M``: check a statement on every small graph.
Runs CHECK (a built-in check of :data:`symq.studies.sweep.CHECKS` or a user check ``module:function``) on
every connected compatibility graph with at most J classes and M servers, once each up to
relabelling, on a local process pool (all cores by default) or on a Dask cluster
(``--scheduler ADDRESS``). Results stream to ``--output`` as JSON lines; a rerun with the same
file resumes. The summary prints each counterexample as a TOML model.

Examples
--------
``symq sweep nested --classes 3 --servers 3 --filter nested``

``symq sweep stability --classes 4 --servers 3 --rates random:5 --output stability.jsonl``

``symq sweep mychecks:below_half --classes 2 --servers 2 --rates random:3``

``symq sweep balance --classes 3 --servers 3 --scheduler tcp://127.0.0.1:8786``

Exit status: 0 when every graph passes or does not apply, 1 when a counterexample or an error
was found, 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from symq.commands.common import add_format_arguments, add_limit_arguments, check_output_path, emit_json
from symq.display import printable
from symq.errors import ModelError
from symq.models.graphs import FILTERS
from symq.studies.sweep import CHECKS, SweepSummary, make_executor, sweep
from symq.models.model import DISCIPLINES

__all__ = ["register", "run"]


def _positive(text: str) -> int:
    from symq.arithmetic.expressions import check_ascii
    try:
        check_ascii(text, "the number")
    except ModelError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def register(subparsers) -> None:
    """Add the ``sweep`` subcommand.

    Parameters
    ----------
    subparsers : argparse subparsers action
        The ``symq`` subcommands; the help lists every check of the registry.

    Examples
    --------
    >>> import symq.cli
    >>> parser = symq.cli.build_parser("sweep")
    >>> options = parser.parse_args(["sweep", "stability", "--classes", "2", "--servers", "2"])
    >>> (options.classes, options.servers)
    (2, 2)

    Running time: O(number of checks).
    """
    checks = "; ".join(f"{c.name}: {c.description}" for c in CHECKS.values())
    p = subparsers.add_parser(
        "sweep", help="run a check on every small compatibility graph (locally or on Dask)",
        description="Run CHECK on every connected compatibility graph with at most J classes and "
                    "M servers, each once up to relabelling. Built-in checks: " + checks + ". A "
                    "user check is module:function or path/to/file.py:function, a function that "
                    "takes a symq Model and returns a symq.studies.sweep.Verdict, a bool, (ok, data) or "
                    "a dict with 'ok'.")
    p.add_argument("check", metavar="CHECK", help="built-in check name or module:function")
    from symq.commands.common import whole_number
    p.add_argument("--classes", type=whole_number("--classes"), required=True, metavar="J",
                   help="largest number of classes (1..7)")
    p.add_argument("--servers", type=whole_number("--servers"), required=True, metavar="M",
                   help="largest number of servers (1..7)")
    p.add_argument("--filter", dest="filters", action="append", default=[],
                   choices=list(FILTERS), help="keep only graphs that pass (repeatable): " +
                   "; ".join(f"{k}: {v}" for k, v in FILTERS.items()))
    p.add_argument("--rates", default=None, metavar="SPEC",
                   help="symbolic, random:N (N seeded stable exact rational rate vectors per "
                        "graph) or light:N (light load); default: the check's own")
    p.add_argument("--seed", type=whole_number("--seed", 0), default=0, help="seed of the random rates (default 0)")
    p.add_argument("--max-jobs", type=_positive, default=None, metavar="N",
                   help="states with at most N jobs (balance, cor-5.3, empty-vs-ctmc)")
    p.add_argument("--discipline", dest="disciplines", action="append", default=[],
                   choices=list(DISCIPLINES),
                   help="disciplines of the balance check (repeatable; default all three)")
    p.add_argument("--workers", type=_positive, default=None, metavar="N",
                   help="local worker processes (default: all cores; 0: run in this process)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run on the Dask distributed cluster at ADDRESS, e.g. "
                        "tcp://10.0.0.5:8786 (needs pip install \"symq[cluster]\")")
    p.add_argument("--output", default=None, metavar="FILE.jsonl",
                   help="stream results here as JSON lines; a rerun skips graphs already in it")
    p.add_argument("--save-counterexamples", default=None, metavar="DIR",
                   help="also write each counterexample as DIR/<n>.toml")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_limit_arguments(p, "graph-enumeration steps")
    add_format_arguments(p)
    p.set_defaults(handler=run)


def _counterexample_files(summary: SweepSummary, folder: str | None) -> list[str]:
    if not folder:
        return []
    path = Path(folder)
    names = []
    try:
        path.mkdir(parents=True, exist_ok=True)
        for number, (_, sample) in enumerate(summary.counterexamples(), 1):
            target = path / f"counterexample-{number}.toml"
            target.write_text(sample["toml"], encoding="utf-8")
            names.append(str(target))
    except OSError as error:
        raise ModelError(f"--save-counterexamples {folder}: cannot write there "
                         f"({error.strerror or error}); give a folder you can write") from None
    return names


def _print_text(summary: SweepSummary, files: list[str], output: str | None) -> None:
    resumed = f", {summary.resumed} of them from {output}" if summary.resumed else ""
    print(f"sweep {summary.check} with {summary.rates} rates: {summary.graphs} graphs{resumed}; "
          f"{summary.passed} pass, {summary.skipped} do not apply, {summary.failed} "
          f"counterexamples, {summary.errors} errors ({summary.seconds:.1f} s)")
    for record in summary.records:
        if record["status"] == "error":
            print(f"error on graph {record['graph']}: {printable(record['error'])}")
    for number, (record, sample) in enumerate(summary.counterexamples(), 1):
        print()
        print(f"counterexample {number}: graph {record['graph']}, sample {sample['index']}")
        for key, value in sample["data"].items():
            shown = json.dumps(value) if not isinstance(value, str) else printable(value)
            print(f"  {key}: {shown}")
        if number <= len(files):
            print(f"  saved as {files[number - 1]}")
        print("  model (TOML; save it and run `symq evaluate FILE.toml QUANTITY`):")
        print("\n".join("    " + line if line else "" for line in sample["toml"].splitlines()))
    if summary.ok:
        print("no counterexample" + (" among the graphs where the check applies"
                                     if summary.skipped else ""))


def run(args: argparse.Namespace) -> int:
    """Run the sweep; exit status 0 when no counterexample or error, 1 otherwise.

    Parameters
    ----------
    args : argparse.Namespace
        The check, the sizes, the rates, workers, the checkpoint and the output format.

    Returns
    -------
    int

    Raises
    ------
    ModelError
        Bad sizes, rates or filters; a work estimate past the limit.

    Examples
    --------
    >>> from symq.cli import build_parser
    >>> args = build_parser("sweep").parse_args(
    ...     ["sweep", "stability", "--classes", "1", "--servers", "1", "--quiet"])
    >>> run(args)  # doctest: +ELLIPSIS
    sweep stability with random:3 rates: 1 graphs; 1 pass, 0 do not apply, 0 counterexamples, 0 errors (... s)
    no counterexample
    0

    Running time: one check per graph and rate sample, on the chosen workers.
    """
    options: dict[str, Any] = {}
    if args.max_jobs is not None:
        options["max_jobs"] = args.max_jobs
    if args.disciplines:
        if args.check != "balance":
            raise ModelError("--discipline applies to the balance check only")
        options["disciplines"] = tuple(dict.fromkeys(args.disciplines))
    from symq.limits import check, limit_value
    from symq.queries.estimates import sweep_check_steps, sweep_work
    if 1 <= args.classes <= 7 and 1 <= args.servers <= 7:  # else the engine says what is allowed
        # the enumeration and the checks of every candidate graph (issue 25: balance on
        # 7 classes and 4 servers ran for hours)
        check("sweep-work", sweep_work(args.classes, args.servers) + sweep_check_steps(
              args.check, args.classes, args.servers, args.max_jobs,
              len(options.get("disciplines", ())) or 3),
              f"sweep {args.check} --classes {args.classes} --servers {args.servers}",
              limit_value("sweep-work", args))
    import os
    cores = os.cpu_count() or 1
    if args.workers is not None and args.workers > cores:
        raise ModelError(f"--workers {args.workers}: more than the {cores} cores of this "
                         f"machine; give at most {cores} (or leave it out: all cores)")
    if args.output:
        check_output_path(args.output)
    if args.save_counterexamples and Path(args.save_counterexamples).exists() and \
            not Path(args.save_counterexamples).is_dir():
        raise ModelError(f"--save-counterexamples {args.save_counterexamples}: is a file; "
                         "give a folder")
    if args.scheduler and args.workers is not None:
        raise ModelError("--workers is for the local pool; with --scheduler the cluster's "
                         "workers run the sweep (drop --workers)")
    with make_executor(args.workers, args.scheduler) as executor:
        summary = sweep(args.check, args.classes, args.servers, filters=args.filters,
                        rates=args.rates, seed=args.seed, options=options, executor=executor,
                        output=args.output, progress=not args.quiet)
    files = _counterexample_files(summary, args.save_counterexamples)
    if args.format == "json":
        data = summary.to_dict()
        data["output"] = args.output
        data["counterexample_files"] = files
        emit_json(data)
    else:
        _print_text(summary, files, args.output)
    return 0 if summary.ok else 1
