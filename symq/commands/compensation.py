r"""``symq compensation jsq|asymmetric|sed``: stationary law of two-queue routing (docs/compensation.md).

Examples
--------
``symq compensation jsq --rho 9/10 --digits 50 --json``

``symq compensation asymmetric --lam 3/2 --mu1 1 --mu2 2 --q 1/2 --state 0,0 --state 2,1``

``symq compensation sed --s 3 --q 2/5 --rho 9/10 --digits 30``

``symq compensation sed --s 3 --q 2/5 --plot-dir pictures`` also writes the heat map and the
levels-needed picture (needs matplotlib: ``pip install "symq[plot]"``).
"""

from __future__ import annotations


import mpmath

from symq.studies.compensation import asymmetric_jsq, sed, solve, symmetric_jsq
from symq.studies.compensation.kernel import kernels_latex
from symq.studies.compensation.models import exact_fraction
from symq.errors import ModelError

__all__ = ["register", "run", "build_model", "parse_state"]


def register(subparsers) -> None:
    """Add the ``compensation`` subcommand.

    Parameters
    ----------
    subparsers : argparse subparsers action
        Where the ``compensation`` subcommand and its policy choices go.

    Examples
    --------
    >>> from symq.cli import build_parser
    >>> args = build_parser("compensation").parse_args(["compensation", "sed", "--rho", "1/2"])
    >>> args.policy, args.rho
    ('sed', '1/2')

    Running time: O(1).
    """
    p = subparsers.add_parser(
        "compensation",
        help="JSQ, asymmetric JSQ and SED routing by the compensation approach",
        description="Stationary queue-length law of two-queue routing (symmetric JSQ, asymmetric "
                    "JSQ, SED) by the compensation approach with an exactly solved near-origin "
                    "box. Numbers are exact: 9/10 and 0.9 both mean nine tenths.")
    p.add_argument("policy", choices=("jsq", "asymmetric", "sed"), help="routing policy")
    p.add_argument("--rho", help="load rho = lambda/(mu_1+mu_2) < 1 (jsq, sed, asymmetric with --s)")
    p.add_argument("--s", default=None,
                   help="sed: integer speed of server 2 (default 2); asymmetric: mu_2 with mu_1 = 1")
    p.add_argument("--q", default=None, help="probability that a tie joins queue 1 (default 1/2)")
    p.add_argument("--lam", help="asymmetric: arrival rate lambda (instead of --rho)")
    p.add_argument("--mu1", help="asymmetric: rate of server 1 (default 1)")
    p.add_argument("--mu2", help="asymmetric: rate of server 2 (default 1, or --s)")
    p.add_argument("--levels", type=_int_arg("levels"), default=None,
                   help="tree levels L (default: as many as the digits need)")
    p.add_argument("--digits", type=_int_arg("digits"), default=30,
                   help="significant digits (default 30)")
    p.add_argument("--box", type=_int_arg("box"), default=None,
                   help="N_0 of the near-origin box solved from the balance equations")
    p.add_argument("--state", action="append", default=[], metavar="Q1,Q2",
                   help="report P(q1, q2) (repeatable)")
    p.add_argument("--plot-dir", default=None,
                   help="also write heat-map and levels-needed PNGs there (needs matplotlib)")
    p.add_argument("--no-limits", action="store_true",
                   help="allow --digits above 1000 and boxes above the limit (docs/security.md)")
    p.add_argument("--format", choices=("text", "latex", "json"), default="text",
                   help="output format (default: text)")
    p.add_argument("--json", dest="format", action="store_const", const="json",
                   help="short for --format json")
    p.set_defaults(handler=run)


def _int_arg(name):
    def parse(text):
        from symq.arithmetic.expressions import check_ascii
        check_ascii(text, f"--{name}")
        try:
            return int(text)
        except ValueError:
            raise ModelError(f"--{name} {text!r} is not an integer; give e.g. 30") from None
    return parse


def _check_limits(args, model) -> None:
    """Refuse --digits and --box past the limits of :mod:`symq.limits` (before any work)."""
    from symq.limits import check
    from symq.queries.estimates import compensation_box_states

    if args.no_limits:
        return
    if args.digits is not None and args.digits >= 1:
        check("compensation-digits", args.digits, f"compensation --digits {args.digits}")
    if args.box is not None and args.box >= 1:
        check("compensation-box", compensation_box_states(args.box, model.s),
              f"compensation --box {args.box} (s = {model.s})")
    elif args.digits is not None and args.digits >= 1:
        # the default box too: s N0^2 states (compensation sed --s 1000: 4.8 GB before)
        from symq.studies.compensation.hybrid import default_box
        box = default_box(model, args.digits)
        check("compensation-box", compensation_box_states(box, model.s),
              f"compensation {args.policy} (s = {model.s}, default --box {box})",
              remedy="give a smaller --s or --box, or pass --no-limits")


def _check_plot_dir(folder: str) -> None:
    """Create ``--plot-dir`` up front (it is where the pictures go) and check it is writable,
    so that a bad folder is refused before the computation."""
    import os

    try:
        os.makedirs(folder, exist_ok=True)
        probe = os.path.join(folder, ".symq-write-test")
        with open(probe, "w", encoding="utf-8"):
            pass
        os.remove(probe)
    except OSError as error:
        raise ModelError(f"--plot-dir {folder}: cannot write there ({error.strerror or error}); "
                         "give a folder you can write") from None


#: the largest queue length of a --state (its probability is about rho^(q1+q2))
MAX_QUEUE = 10 ** 6


def parse_state(text: str) -> tuple[int, int]:
    """``"2,3"`` to ``(2, 3)``.

    Parameters
    ----------
    text : str
        A ``--state`` argument.

    Returns
    -------
    tuple of int
        $(q_1, q_2)$.

    Raises
    ------
    ModelError
        Not two non-negative integers separated by a comma.

    Examples
    --------
    >>> parse_state("2,3")
    (2, 3)

    Running time: O(length of the text).
    """
    from symq.arithmetic.expressions import check_ascii
    check_ascii(text, "--state")
    parts = text.split(",")
    try:
        state = tuple(int(p) for p in parts)
    except ValueError:
        state = ()
    if len(state) == 2 and max(state) > MAX_QUEUE:
        raise ModelError(f"--state {text!r}: a queue length above {MAX_QUEUE:,}; give "
                         f"states with Q1, Q2 <= {MAX_QUEUE:,}")
    if len(state) != 2 or min(state) < 0:
        raise ModelError(f"--state {text!r} is not Q1,Q2 with non-negative integers; "
                         f"give e.g. --state 2,3")
    return state


def build_model(args):
    """The :class:`~symq.studies.compensation.models.RoutingModel` that the arguments describe.

    Parameters
    ----------
    args : argparse.Namespace
        ``policy`` (``jsq``, ``asymmetric``, ``sed``) and the options ``rho``, ``lam``,
        ``mu1``, ``mu2``, ``s``, ``q`` of ``symq compensation``.

    Returns
    -------
    RoutingModel

    Raises
    ------
    ModelError
        A missing ``--rho`` (or ``--lam``), both ``--lam`` and ``--rho``, a ``--q`` that
        symmetric JSQ does not take, bad rates.

    Examples
    --------
    >>> import argparse
    >>> options = dict(policy="sed", rho="1/2", q=None, s=None, lam=None, mu1=None, mu2=None)
    >>> build_model(argparse.Namespace(**options)).policy
    'sed'

    Running time: O(1).
    """
    q = args.q if args.q is not None else "1/2"
    if args.policy == "jsq":
        if args.rho is None:
            raise ModelError("jsq needs --rho, e.g. --rho 9/10")
        if args.q is not None and exact_fraction(args.q, "q") != exact_fraction("1/2", "q"):
            raise ModelError("symmetric jsq splits ties equally; for another --q use the "
                             "'asymmetric' policy")
        return symmetric_jsq(args.rho)
    if args.policy == "sed":
        if args.rho is None:
            raise ModelError("sed needs --rho, e.g. --rho 9/10")
        return sed(args.s if args.s is not None else 2, q, args.rho)
    mu1 = args.mu1 if args.mu1 is not None else "1"
    if args.lam is not None:
        if args.rho is not None:
            raise ModelError("give either --lam or --rho for asymmetric, not both")
        mu2 = args.mu2 if args.mu2 is not None else (args.s if args.s is not None else "1")
        return asymmetric_jsq(args.lam, mu1, mu2, q)
    if args.rho is None:
        raise ModelError("asymmetric needs --rho (with --s for mu_2) or --lam, --mu1, --mu2")
    mu2 = args.mu2 if args.mu2 is not None else (args.s if args.s is not None else "1")
    mu_sum = exact_fraction(mu1, "mu_1") + exact_fraction(mu2, "mu_2")
    return asymmetric_jsq(exact_fraction(args.rho, "rho") * mu_sum, mu1, mu2, q)


def run(args) -> int:
    """Compute and print; return the exit status.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed by the parser of :func:`register`.

    Returns
    -------
    int
        0 (bad input raises instead).

    Raises
    ------
    ModelError
        Bad rates, a state outside the box, a size limit (with ``--max-work``).

    Examples
    --------
    >>> import contextlib, io
    >>> from symq.cli import build_parser
    >>> args = build_parser("compensation").parse_args(
    ...     ["compensation", "jsq", "--rho", "1/2", "--digits", "5"])
    >>> with contextlib.redirect_stdout(io.StringIO()) as out:
    ...     status = run(args)
    >>> status, "P(0,0) = 0.31597" in out.getvalue()
    (0, True)

    Running time: that of the compensation solve (:mod:`symq.studies.compensation`).
    """
    model = build_model(args)
    _check_limits(args, model)
    if args.plot_dir:
        _check_plot_dir(args.plot_dir)
    states = [parse_state(t) for t in args.state]
    if not states:
        states = [(0, 0), (0, 1), (1, 0), (1, 1)]
    result = solve(model, digits=args.digits, levels=args.levels, box=args.box, states=states)
    digits = args.digits

    def fmt(value, key):
        n = result.correct_digits(value, result.error_bounds[key])
        with mpmath.workdps(digits + 10):
            # fixed notation down to 1e-60; smaller values (far states) in exponent form
            return mpmath.nstr(value, n, min_fixed=-60, max_fixed=mpmath.inf)

    with mpmath.workdps(digits + 10):
        data = {
            "policy": args.policy,
            "rho": str(model.load),
            "s": str(model.s) if model.s > 1 else str(model.service_rates[1] / model.service_rates[0]),
            "q": str(model.tie_probability),
            "levels": result.levels,
            "digits": digits,
            "empty-probability": fmt(result.empty_probability, "empty-probability"),
            "mean-number": fmt(result.mean_number, "mean-number"),
            "truncation-error-bound": mpmath.nstr(result.truncation_error_bound, 3),
            "probabilities": {f"{x[0]},{x[1]}": fmt(result.probabilities[x], x) for x in states},
            "parameters": model.parameters(),
            "mean-queue-lengths": {"1": fmt(result.mean_queue_lengths[0], "mean-q1"),
                                   "2": fmt(result.mean_queue_lengths[1], "mean-q2")},
            "box": result.box,
            "groups": result.groups,
            "seconds": round(result.seconds, 3),
        }
    if args.plot_dir:
        from symq.presentation.pictures.compensation import write_pictures
        try:
            data["pictures"] = write_pictures(model, args.plot_dir)
        except OSError as error:
            raise ModelError(f"--plot-dir {args.plot_dir}: cannot write the pictures "
                             f"({error.strerror or error}); give a folder you can write") from None
    if args.format == "json":
        from symq.commands.common import emit_json
        emit_json(data)
    elif args.format == "latex":
        print(_latex(data, model))
    else:
        print(_text(data))
    return 0


def _text(data) -> str:
    p = data["parameters"]
    lines = [f"{data['policy']}: lambda = {p['lambda']}, mu = ({p['mu_1']}, {p['mu_2']}), "
             f"q = {p['q']}, rho = {p['rho']}",
             f"levels {data['levels']}, box N0 = {data['box']}, {data['groups']} groups, "
             f"{data['seconds']} s",
             f"empty probability      {data['empty-probability']}",
             f"mean number in system  {data['mean-number']}",
             f"mean queue lengths     {data['mean-queue-lengths']['1']}, "
             f"{data['mean-queue-lengths']['2']}",
             f"truncation error bound {data['truncation-error-bound']} (relative)"]
    for state, value in data["probabilities"].items():
        lines.append(f"P({state}) = {value}")
    for name, path in data.get("pictures", {}).items():
        lines.append(f"wrote {path}")
    return "\n".join(lines)


def _latex(data, model) -> str:
    lines = ["\\begin{align*}",
             kernels_latex(model.s).replace(",\\qquad", " \\\\\n") + " \\\\",
             f"P(0,0) &= {data['empty-probability']} \\\\",
             f"E[q_1+q_2] &= {data['mean-number']} \\\\"]
    for state, value in data["probabilities"].items():
        lines.append(f"P({state}) &= {value} \\\\")
    lines.append(f"\\text{{truncation error}} &\\le {data['truncation-error-bound']}")
    lines.append("\\end{align*}")
    return "\n".join(lines)
