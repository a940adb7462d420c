r"""``symq optimize MODEL QUANTITY --budget "mu_1 + mu_2 = C"``: the split of a fixed capacity
among the rates named in the budget that minimises a quantity (the total, or a weighted sum of
the per-class values with ``--weight CLASS=W``), within ``--bound NAME=LO:HI``, found by Newton
steps on the exact gradient and certified by the KKT conditions on it; ``--rank servers`` lists
the servers by the gain of a unit of extra speed (docs/sensitivities.md).

Examples
--------
``symq optimize w mean-response-time --set lambda_1=3/20 --set lambda_2=1/10 --set lambda_3=1/4 --budget "mu_1 + mu_2 = 9/5"``

``symq optimize w mean-response-time --set lambda_1=3/20 --set lambda_2=1/10 --set lambda_3=1/4 --set mu_1=1 --set mu_2=4/5 --rank servers``
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import Any

from symq.errors import ModelError
from symq.models.model import DISCIPLINES

__all__ = ["register", "run"]


# ------------------------------------------------------------------------------ optimize
def register(subparsers) -> None:
    """Add the ``optimize`` subcommand.

    Parameters
    ----------
    subparsers : argparse subparsers action
        Where ``optimize`` is added.

    Examples
    --------
    >>> import argparse
    >>> sub = argparse.ArgumentParser(prog="symq").add_subparsers(dest="command")
    >>> register(sub)
    >>> sorted(sub.choices)
    ['optimize']

    Running time: O(1).
    """
    from symq.commands.common import add_format_arguments, add_limit_arguments, add_set_argument
    p = subparsers.add_parser("optimize", help="the capacity split that minimises a quantity "
                              "(certified: global for up to three budget rates, else local), or servers ranked by the gain of "
                              "extra speed")
    p.add_argument("model", help="built-in name or path to a TOML file")
    p.add_argument("quantity", choices=["mean-response-time", "mean-number"],
                   help="the quantity to minimise (its total, or --weight per class)")
    p.add_argument("--discipline", choices=list(DISCIPLINES),
                   default="collaborative")
    add_set_argument(p)
    p.add_argument("--budget", metavar="'mu_1 + mu_2 = C'",
                   help="the rates to split and their fixed sum C")
    p.add_argument("--weight", action="append", default=[], metavar="CLASS=W",
                   help="minimise sum_c W_c Q_c instead of the total (classes not named: 0)")
    p.add_argument("--bound", action="append", default=[], metavar="NAME=LO:HI",
                   help="keep a budget rate in [LO, HI] (either side may be empty)")
    p.add_argument("--rank", choices=["servers"],
                   help="list the servers by the gain of a unit of extra speed, -dQ/dmu_s")
    p.add_argument("--digits", type=int, default=30, help="significant digits (default 30)")
    p.add_argument("--exact", action="store_true",
                   help="exact gradients (at the optimum: its KKT residual) even where large")
    add_limit_arguments(p, "subset-DP steps")
    add_format_arguments(p)
    p.set_defaults(handler=run)


def _parse_pairs(items: list[str], what: str) -> dict[str, str]:
    out = {}
    for item in items:
        if "=" not in item:
            raise ModelError(f"--{what} {item!r}: write NAME=VALUE")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def run(args: argparse.Namespace) -> int:
    """Run ``symq optimize`` (module docstring).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments.

    Returns
    -------
    int
        0 (also when the optimum is not certified: the output says so and why).

    Raises
    ------
    ModelError
        A bad budget, weight or bound; neither ``--budget`` nor ``--rank``.

    Examples
    --------
    >>> from symq.cli import main
    >>> main(["optimize", "w", "mean-response-time", "--set", "lambda_1=3/20", "--set",
    ...       "lambda_2=1/10", "--set", "lambda_3=1/4", "--budget", "mu_1 + mu_2 = 9/5",
    ...       "--digits", "12"])
    mu_1 = 1.00329089869
    mu_2 = 0.796709101314
    minimum mean-response-time (total) = 1.08529396185
    KKT: dQ/dmu equal on the free rates mu_1, mu_2 (nu = -0.795627713504); certified global minimum over the budget set: branch and bound over 35 boxes leaves only the box of radius 9/160 around it, where Krawczyk proves it the only KKT point and the reduced Hessian is positive definite
    gain against the equal split: 1.09665012407 -> 1.08529396185 (0.0113562 less)
    0

    Running time: that of :func:`symq.queries.optimize.optimize` (or one gradient for
    ``--rank``).
    """
    from symq.arithmetic.numeric import round_fraction
    from symq.commands.common import emit_json, model_with_values
    from symq.queries.optimize import optimize
    base, _, values = model_with_values(args)
    if args.rank:
        return _rank(args, base, values)
    if not args.budget:
        raise ModelError("optimize needs --budget 'mu_1 + mu_2 = C' (or --rank servers)")
    weights = _parse_pairs(args.weight, "weight")
    bounds = {}
    for n, text in _parse_pairs(args.bound, "bound").items():
        if ":" not in text:
            raise ModelError(f"--bound {n}={text}: write NAME=LO:HI for a rate of the budget")
        a, b = text.split(":", 1)
        bounds[n] = (a.strip() or None, b.strip() or None)
    out = optimize(base, args.quantity, args.budget, args.discipline, values=values,
                   weights=weights or None, bounds=bounds, digits=args.digits,
                   exact=True if args.exact else None, limits=args)
    reason = out.reason if out.certified or out.reason.startswith("NOT") else \
        f"NOT certified: {out.reason}"
    if args.format == "json":
        emit_json({"model": args.model, "quantity": args.quantity, "discipline": args.discipline,
                   "budget": args.budget, "objective": out.objective,
                   "allocation": dict(out.allocation), "value": out.value_text,
                   "multiplier": out.multiplier_text,
                   "residual": "0" if out.residual == 0 else round_fraction(out.residual, 6),
                   "active": out.active, "kkt": out.kkt, "certified": out.certified,
                   "certificate": reason, "route": out.route, "arithmetic": out.arithmetic,
                   "steps": out.steps,
                   "at_lower_limit": out.limit, "attained": not out.limit,
                   "limit_note": out.limit_note})
        return 0
    limit = out.limit
    for n in out.budget:
        if n in limit:
            print(f"{n} -> 0 (at its bound (0): the infimum is approached as {n} -> 0, "
                  "not attained)")
        else:
            print(f"{n} = {out.allocation[n]}")
    word = "infimum" if limit else "minimum"
    if not out.certified:
        word = f"{word} (NOT certified)"
    tail = " (not attained)" if limit and out.limit_note is None else ""
    print(f"{word} {args.quantity} ({out.objective}) = {out.value_text}{tail}")
    if limit and out.limit_note is not None:
        print(f"KKT at the limit {', '.join(n + ' -> 0' for n in limit)}: not checked: "
              f"{out.limit_note}; NOT certified")
        return 0
    free = [n for n in out.budget if n not in out.active]
    for n in out.active:
        if n not in out.gradient:
            continue
        gap = out.gradient[n] - (out.gradient[free[0]] if len(free) == 1 and free[0] in
                                 out.gradient else out.multiplier)
        where = f"{n} -> 0" if n in limit else f"{n} = {out.allocation[n]}"
        if out.arithmetic == "exact" and len(free) < 2:  # exact at the point fixed by the budget
            text = f"(exact): dQ/d{n} - nu = {_exact_text(gap, args.digits)} " \
                   f"{'>=' if gap >= 0 else '<'} 0"
        else:  # the sign is enclosed over the box; the digits are those of the centre
            proof = "sign proven over the box" if out.kkt else "sign NOT proven"
            text = f"({proof}): dQ/d{n} - nu = {round_fraction(gap, 3)} " \
                   f"{'>' if gap > 0 else '<'} 0"
        print(f"KKT at the bound {where} {text}")
    act = [n + " -> 0" if n in limit else n for n in out.active]
    act_text = f"; at a bound: {', '.join(act)}" if act else ""
    if len(free) >= 2:
        print(f"KKT: dQ/dmu equal on the free rates {', '.join(free)} "
              f"(nu = {out.multiplier_text}){act_text}; {reason}")
    else:
        print(f"KKT: one free rate {', '.join(free) or '(none)'} "
              f"(nu = {out.multiplier_text}){act_text}; {reason}")
    if out.gain_text is not None:
        print(f"gain against the {out.baseline}: {out.baseline_text} -> {out.value_text} "
              f"({out.gain_text} less)")
    return 0


def _exact_text(v: Fraction, digits: int) -> str:
    """A short exact rational as ``p/q = decimal``; a long one as its decimal."""
    from symq.arithmetic.numeric import round_fraction
    dec = round_fraction(v, digits)
    return f"{v} = {dec}" if len(str(v)) <= 40 else dec


def _rank(args: argparse.Namespace, base: Any, values: dict) -> int:
    """``--rank servers``: ``-dQ/dmu_s`` for every server, largest gain first."""
    from symq.commands.common import emit_json
    from symq.engines.sensitivity import rate_symbols
    from symq.queries.gradient import gradient
    symbolic, point = rate_symbols(base, values)
    mu_names = []
    for s in symbolic.servers:
        free = symbolic.service_rates[s].free_symbols
        if len(free) == 1:
            mu_names.append((s, next(iter(free)).name))
    g = gradient(base, args.quantity, args.discipline, values, wrt=[n for _, n in mu_names],
                 digits=args.digits, exact=True if args.exact else None, labels=["total"],
                 limits=args)
    rows = []
    for s, n in mu_names:
        d = g.derivative("total", n)
        if hasattr(d, "text"):
            gain_text, key = (d.text[1:] if d.text.startswith("-") else "-" + d.text), -d.lower
        else:
            from symq.arithmetic.numeric import round_fraction
            gain_text, key = round_fraction(-d, args.digits), -d
        rows.append((key, s, n, gain_text))
    rows.sort(key=lambda r: r[0], reverse=True)
    if args.format == "json":
        emit_json({"model": args.model, "quantity": args.quantity,
                   "discipline": args.discipline, "route": "reverse-mode",
                   "arithmetic": g.arithmetic, "rank": [{"server": s, "rate": n, "gain": t} for _, s, n, t in rows]})
        return 0
    for k, (_, s, n, t) in enumerate(rows, 1):
        print(f"{k}. server {s}: -d{args.quantity}/d{n} = {t}")
    return 0
