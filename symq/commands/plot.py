r"""``symq plot MODEL KIND [--set ...] [--output FILE.png|.svg|.pdf ...] [--data FILE.csv]``.
The kinds of picture come from the registry in :mod:`symq.presentation.pictures` (one module per
kind): ``graph``, ``load``, ``disciplines``, ``response-time-load``, ``elasticities``, ``split``,
``distribution``, ``clusters`` and the survival pictures take a model (a built-in name or a TOML
file, ``--set`` for its symbols); ``heatmap`` and ``levels`` take a two-queue routing policy (``jsq``,
``asymmetric`` or ``sed``, with the options of ``symq compensation``). Without ``--output`` the
picture is written as PNG to a file named from the model, the kind and every parameter that
changes the picture (the ``--set`` values and the kind's options; a short digest of them when
they would make the name too long), in the current folder (``--dir`` for another); such a file is
never replaced without ``--force``. ``--output`` (PNG, SVG or PDF) may be given more than once.
``--data FILE.csv`` writes the points of every curve drawn
(:func:`symq.presentation.pictures.write_data`): x and y exact where they are exact, with a
decimal column and the curve, model, quantity and discipline on every row.

Examples
--------
``symq plot w graph``

``symq plot w load --set lambda_1=1 --set lambda_2=1 --set lambda_3=1 --set mu_1=2 --set mu_2=2``

``symq plot n distribution --set lambda_1=1/2 --set lambda_2=1/2 --set mu_1=1 --set mu_2=1 --output law.svg``

``symq plot sed heatmap --s 3 --q 2/5 --rho 9/10 --rhos 1/2,7/10``

``symq plot w clusters --set lambda_1=2 --set lambda_2=1/2 --set lambda_3=1 --set mu_1=1 --set mu_2=1``

``symq plot w split --set lambda_1=3/20 --set lambda_2=1/10 --set lambda_3=1/4 --budget "mu_1 + mu_2 = 9/5"``
"""

from __future__ import annotations

import argparse
import os
import re
from typing import Any

from symq.errors import ModelError

__all__ = ["register", "run", "check_graph_size"]

_ROUTING = {
    "rho": "heatmap, levels: load rho = lambda/(mu_1+mu_2) < 1",
    "s": "heatmap, levels: sed: integer speed of server 2; asymmetric: mu_2 with mu_1 = 1",
    "q": "heatmap, levels: probability that a tie joins queue 1 (default 1/2)",
    "lam": "heatmap, levels: asymmetric: arrival rate lambda (instead of --rho)",
    "mu1": "heatmap, levels: asymmetric: rate of server 1 (default 1)",
    "mu2": "heatmap, levels: asymmetric: rate of server 2",
}


def register(subparsers) -> None:
    """Add the ``plot`` subcommand, with the options of every registered picture kind.

    Parameters
    ----------
    subparsers : argparse subparsers action
        Where ``plot`` is added; every kind of :func:`symq.presentation.pictures.kinds` contributes its
        options (``--opt-...`` destinations).

    Examples
    --------
    >>> import argparse
    >>> sub = argparse.ArgumentParser(prog="symq").add_subparsers(dest="command")
    >>> register(sub)
    >>> sorted(sub.choices)
    ['plot']

    Running time: the import of the picture modules.
    """
    from symq.presentation.pictures import SUBJECTS, kinds
    from symq.commands.common import add_format_arguments, add_set_argument

    known = kinds()
    listing = "; ".join(f"{k.name}: {k.summary}" for k in known.values())
    p = subparsers.add_parser(
        "plot", help="draw a picture (graph, load, split, distribution, heatmap, levels, clusters, ...)",
        description="Draw a picture of a model with matplotlib, as PNG, SVG or PDF. Kinds: " + listing
                    + ". MODEL is " + SUBJECTS["model"] + "; for heatmap and levels it is "
                    + SUBJECTS["routing"] + ".")
    p.add_argument("model", metavar="MODEL", help="model name or TOML file; or jsq|asymmetric|sed")
    p.add_argument("kind", metavar="KIND", help="kind of picture: " + ", ".join(known))
    add_set_argument(p)
    p.add_argument("--output", "-o", action="append", default=[], metavar="FILE",
                   help="file to write, ending in .png, .svg or .pdf (repeatable; replaced if it "
                        "exists; default: a PNG named from the model, the kind and the "
                        "parameters, never replaced without --force)")
    p.add_argument("--data", default=None, metavar="FILE.csv",
                   help="also write the exact points of every curve drawn to this CSV file "
                        "(columns model, kind, curve, quantity, discipline, x_name, x, "
                        "x_decimal, y, y_decimal; x and y exact rationals where exact)")
    p.add_argument("--force", action="store_true",
                   help="replace the file of the default name if it exists")
    p.add_argument("--dir", default=".", help="folder of the default file name (default: here)")
    p.add_argument("--quiet", action="store_true", help="no progress bar on the terminal")
    for name, text in _ROUTING.items():
        p.add_argument(f"--{name}", default=None, help=text)
    seen: set[str] = set()
    for kind in known.values():
        for name, options in kind.options.items():
            if name in seen:
                continue
            seen.add(name)
            options = dict(options)
            if options.get("action") is None and "metavar" not in options:
                # the help shows --max-jobs N, not --max-jobs OPT_MAX_JOBS
                options["metavar"] = "N" if options.get("type") is int else name.upper()
            p.add_argument("--" + name.replace("_", "-"), dest=f"opt_{name}", **options)
    from symq.commands.common import add_limit_arguments
    add_limit_arguments(p, "nodes and edges of a graph drawing (split: subset-DP steps of "
                           "its exact gradients)")
    add_format_arguments(p)
    p.set_defaults(handler=run)


def check_graph_size(model: Any, what: str, args: Any = None) -> int:
    """Refuse a graph drawing past the ``graph-drawing`` limit of :mod:`symq.limits`: its nodes
    (classes and servers) plus its edges (one a compatible class-server pair), counted from the
    model before matplotlib is asked for anything.

    Parameters
    ----------
    model : Model
        The graph to draw.
    what : str
        The request, for the message.
    args : argparse.Namespace, optional
        ``--max-work N`` and ``--no-limits``.

    Returns
    -------
    int
        The count.

    Raises
    ------
    TooLargeError
        ``plot redundancy:16:8 graph``: 12,886 nodes and 102,960 edges.

    Examples
    --------
    >>> from symq import model
    >>> check_graph_size(model("w"), "plot w graph")   # 5 nodes, 4 edges
    9

    Running time: O(edges).
    """
    from symq.limits import check, limit_value
    count = len(model.classes) + len(model.servers) + sum(
        len(servers) for servers in model.compatibility.values())
    check("graph-drawing", count, what, limit_value("graph-drawing", args))
    return count


def _subject(kind, args: argparse.Namespace) -> tuple[Any, dict[str, str]]:
    """The model (or routing model) the picture is of, and the exact parameters given."""
    if kind.subject == "routing":
        from symq.commands.compensation import build_model
        if args.model not in ("jsq", "asymmetric", "sed"):
            raise ModelError(f"the {kind.name} picture is of a routing policy: give jsq, "
                             f"asymmetric or sed as MODEL, not {args.model!r}")
        if args.settings:
            raise ModelError(f"the {kind.name} picture takes --rho, --s, --q, --lam, --mu1, "
                             "--mu2, not --set")
        namespace = argparse.Namespace(policy=args.model, **{n: getattr(args, n) for n in _ROUTING})
        routing = build_model(namespace)
        return routing, routing.parameters()
    given = [n for n in _ROUTING if getattr(args, n) is not None]
    if given:
        raise ModelError(f"--{given[0]} is for the heatmap and levels pictures; give the rates "
                         "of a model with --set NAME=VALUE")
    from symq.commands.common import model_with_values
    _, model, values = model_with_values(args)
    return model, values


_STEM_LENGTH = 80

#: characters that \includegraphics{...} would read as LaTeX, not as a file name
_LATEX_UNSAFE = re.compile(r"[\\{}%#$&^~]")


def default_stem(stem: str, parameters: dict[str, Any], options: dict[str, Any],
                 defaults: dict[str, Any]) -> str:
    """The default file stem: the picture's ``stem`` plus every parameter that changes it.

    Parameters
    ----------
    stem : str
        The picture's own stem (model, kind and what it already names).
    parameters : dict
        The ``--set`` values (or a routing policy's parameters), exact as text.
    options : dict
        The kind's options as given; those equal to their default are left out.
    defaults : dict
        The kind's defaults, by option name.

    Returns
    -------
    str
        ``stem-name=value-...`` when that is at most 80 characters, else ``stem-`` and the first
        10 hex digits of the SHA-256 of the parameters (the same parameters always give the
        same name, different ones a different name).

    Examples
    --------
    >>> default_stem("w-load", {"mu_1": "2"}, {"points": 3}, {"points": 12})
    'w-load-mu_1=2-points=3'
    >>> default_stem("w-load", {"mu_1": "2"}, {"points": 12}, {"points": 12})
    'w-load-mu_1=2'
    >>> long = {f"lambda_{k}": f"{k}/7" for k in range(9)}
    >>> default_stem("w-load", long, {}, {})
    'w-load-7e4f7d518b'

    Running time: O(total length of the parameters).
    """
    import hashlib

    from symq.presentation.pictures import file_stem

    shown = {k: str(v) for k, v in parameters.items()
             if f"{k}={str(v).replace('/', '_')}" not in stem}
    shown.update({k: str(v) for k, v in options.items()
                  if v is not None and v != defaults.get(k) and k != "progress"
                  and f"{k}={str(v).replace('/', '_')}" not in stem})
    readable = file_stem(stem, **shown)
    if len(readable) <= _STEM_LENGTH:
        return readable
    text = ";".join(f"{k}={v}" for k, v in sorted(shown.items()))
    return f"{stem}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"


def run(args: argparse.Namespace) -> int:
    """Draw, write the files, print their paths; return the exit status.

    Parameters
    ----------
    args : argparse.Namespace
        The subject (model or routing), the kind, ``--dir``/``--output`` and the kind's options.

    Returns
    -------
    int
        0 when every picture was written.

    Raises
    ------
    ModelError
        Bad input (unknown kind, model or value, a file name of another format), or a file of
        the default name that exists already without ``--force``.

    Examples
    --------
    >>> import tempfile
    >>> from symq.cli import build_parser
    >>> folder = tempfile.mkdtemp()
    >>> run(build_parser("plot").parse_args(["plot", "n", "graph", "--dir", folder])) == 0
    ... # doctest: +ELLIPSIS
    wrote .../n-graph.png
    True

    Running time: that of the kind's draw function, plus the file writes.
    """
    from symq.presentation import pictures
    from symq.progress import callback
    from symq.commands.common import check_output_path, emit_json
    from symq.display import printable

    for path in args.output:  # a pipe, a device, a control character: refused before drawing
        check_output_path(path, create_folder=True)
    if args.format == "latex":  # \includegraphics{PATH} is printed: PATH must not be LaTeX
        for option, path in [("--output", p) for p in args.output] or [("--dir", args.dir)]:
            if _LATEX_UNSAFE.search(path):
                raise ModelError(f"{option} {printable(path)!r} with --format latex: LaTeX "
                                 "reads \\, {, }, %, #, $, &, ^ and ~ in a file name as "
                                 "commands; rename the file")
    data_path = getattr(args, "data", None)
    if data_path is not None:
        if not data_path.lower().endswith(".csv"):
            raise ModelError(f"--data {data_path!r}: give a file name ending in .csv")
        check_output_path(data_path, "--data", create_folder=True)
    kind = pictures.get(args.kind)
    subject, parameters = _subject(kind, args)
    if kind.name == "graph":  # matplotlib draws every node and edge: about 4 ms each
        check_graph_size(subject, f"plot {args.model} graph", args)
    options = {name: getattr(args, f"opt_{name}") for name in kind.options}
    if kind.progress:
        options["progress"] = callback(f"plot {kind.name}", quiet=args.quiet, unit="point")
    defaults = {name: spec.get("default") for name, spec in kind.options.items()}
    # a kind whose draw takes ``limits`` checks its own work up front (--max-work, --no-limits)
    import inspect
    extra = {"limits": args} if "limits" in inspect.signature(kind.draw).parameters else {}
    picture = kind.draw(subject, **options, **extra)
    try:
        if args.output:
            paths = args.output
        else:
            # a routing picture's stem names its parameters already (parameter_tag)
            named = {} if kind.subject == "routing" else parameters
            stem = default_stem(picture.stem, named, options, defaults)
            paths = [os.path.join(args.dir, stem + ".png")]
            if os.path.exists(paths[0]) and not getattr(args, "force", False):
                raise ModelError(f"{paths[0]} exists (a picture of the same parameters): give "
                                 "--force to replace it, or --output FILE for another name")
        written = [pictures.save(picture, path) for path in paths]
    finally:
        pictures.close(picture)
    name = getattr(subject, "name", "") or str(args.model)
    if data_path is not None:
        pictures.write_data(picture, data_path, name, kind.name)
    if args.format == "json":
        emit_json({"model": name, "kind": kind.name, "parameters": parameters,
                   "files": written, "data": picture.data})
    elif args.format == "latex":
        for path in written:
            print(f"\\includegraphics{{{path}}}")
    else:
        for path in written + ([data_path] if data_path is not None else []):
            print(f"wrote {printable(path)}")
    return 0
