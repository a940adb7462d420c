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

from symq.engines.sensitivity import rate_order
from symq.errors import ModelError
from symq.models.model import DISCIPLINES

__all__ = ["register", "run", "optimize"]


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
                              "(KKT-certified), or servers ranked by the gain of extra speed")
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
    p.add_argument("--exact", action="store_true", help="exact gradients even where large")
    add_limit_arguments(p, "subset-DP steps")
    add_format_arguments(p)
    p.set_defaults(handler=run)


def _parse_budget(text: str, names: list[str]) -> tuple[list[str], Fraction]:
    """``"mu_1 + mu_2 = 2"`` -> (["mu_1", "mu_2"], 2), through symq's grammar."""
    from symq.arithmetic.expressions import parse_expression
    if text is None or text.count("=") != 1:
        raise ModelError(f"--budget {text!r}: write it as 'mu_1 + mu_2 = C' (one '=')")
    left, right = text.split("=")
    total = parse_expression(right.strip())
    if not total.is_Rational or total <= 0:
        raise ModelError(f"--budget: the capacity {right.strip()!r} must be a positive number")
    expr = parse_expression(left.strip())
    terms = expr.args if expr.is_Add else (expr,)
    out = []
    for t in terms:
        if not t.is_Symbol:
            raise ModelError(f"--budget: {t} is not a rate name; write a sum of rate names "
                             "such as 'mu_1 + mu_2 = 3'")
        if t.name not in names:
            raise ModelError(f"--budget: the model has no rate {t.name!r}; its rates are "
                             + ", ".join(names))
        out.append(t.name)
    if len(out) < 2:
        raise ModelError("--budget: name at least two rates to split the capacity between")
    return sorted(out, key=rate_order), Fraction(int(total.p), int(total.q))


def _parse_pairs(items: list[str], what: str) -> dict[str, str]:
    out = {}
    for item in items:
        if "=" not in item:
            raise ModelError(f"--{what} {item!r}: write NAME=VALUE")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _rational(text: str, what: str) -> Fraction:
    from symq.arithmetic.expressions import parse_expression
    v = parse_expression(text)
    if not v.is_Rational:
        raise ModelError(f"{what}: {text!r} is not a rational number")
    return Fraction(int(v.p), int(v.q))


class _Objective:
    """The objective $f(x)=\\sum_c w_cQ_c$ (or the total) and its exact gradient by the tape."""

    def __init__(self, base, quantity, discipline, fixed, budget, weights, exact):
        self.base, self.quantity, self.discipline = base, quantity, discipline
        self.fixed, self.budget, self.weights, self.exact = fixed, budget, weights, exact
        self.evaluations = 0

    def __call__(self, x: list[Fraction]) -> tuple[Fraction, list[Fraction]]:
        from symq.engines.sensitivity import gradient
        values = {**self.fixed, **{n: str(v) for n, v in zip(self.budget, x)}}
        labels = ["total"] if not self.weights else [f"class {c}" for c in self.weights]
        g = gradient(self.base, self.quantity, self.discipline, values, wrt=self.budget,
                     labels=labels)
        self.evaluations += 1
        if not self.weights:
            return g.value("total"), [g.derivative("total", n) for n in self.budget]
        f = sum(w * g.value(f"class {c}") for c, w in self.weights.items())
        grad = [sum(w * g.derivative(f"class {c}", n) for c, w in self.weights.items())
                for n in self.budget]
        return f, grad


def _stable(base, fixed, budget, x) -> bool:
    from symq.errors import UnstableModelError
    from symq.engines.normalization.entry import check_stability_fast
    from symq.engines.sensitivity import rate_symbols
    import sympy
    if any(v <= 0 for v in x):
        return False
    try:
        m, point = rate_symbols(base, {**fixed, **{n: str(v) for n, v in zip(budget, x)}})
        check_stability_fast(m.substitute({s.name: sympy.Rational(v.numerator, v.denominator)
                                           for s, v in point.items()}))
    except UnstableModelError:
        return False
    return all(v > 0 for v in x)


def _solve_kkt(h: list[list[Fraction]], g: list[Fraction]) -> list[Fraction]:
    """Newton step on the face ``sum dx = 0``: [[H, 1], [1^T, 0]] [dx; nu] = [-g; 0]."""
    k = len(g)
    a = [row[:] + [Fraction(1)] for row in h] + [[Fraction(1)] * k + [Fraction(0)]]
    b = [-v for v in g] + [Fraction(0)]
    n = k + 1
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(a[r][col]))
        if a[piv][col] == 0:
            raise ZeroDivisionError
        a[col], a[piv], b[col], b[piv] = a[piv], a[col], b[piv], b[col]
        for r in range(n):
            if r != col and a[r][col]:
                t = a[r][col] / a[col][col]
                a[r] = [u - t * v for u, v in zip(a[r], a[col])]
                b[r] -= t * b[col]
    return [b[i] / a[i][i] for i in range(k)]


def _round(v: Fraction, digits: int) -> Fraction:
    q = 10 ** (digits + 8)
    return Fraction(round(v * q), q)


def optimize(base, quantity, discipline, fixed, budget, total, weights=None, bounds=None,
             digits: int = 30, max_steps: int = 60) -> dict[str, Any]:
    r"""The split of ``total`` among the rates ``budget`` that minimises the objective, by
    Newton steps on the face $\sum x_i=C$ (Hessian from exact gradients at nearby points,
    active bounds fixed), and its KKT certificate on the exact gradient.

    Parameters
    ----------
    base : Model
        Symbolic rates.
    quantity, discipline : str
        ``mean-response-time`` or ``mean-number``; the discipline.
    fixed : dict
        Values of the other symbols.
    budget : list of str
        The rates to split.
    total : Fraction
        Their sum $C$.
    weights : dict, optional
        ``{class: weight}``: minimise $\sum_cw_cQ_c$ (default: the total).
    bounds : dict, optional
        ``{name: (lo or None, hi or None)}``.
    digits : int
        Significant digits of the allocation.
    max_steps : int
        Newton steps at most.

    Returns
    -------
    dict
        ``x`` (name -> Fraction, rounded to ``digits + 8`` decimals), ``value``, ``gradient``,
        ``multiplier`` $\nu$ (the mean gradient over the free rates), ``residual``
        $\max_{\text{free}}|g_i-\nu|$ (exact), ``active`` (names at a bound), ``kkt`` (True
        when the residual is below $10^{-\text{digits}}|\nu|$ and every active bound's
        gradient has the sign of a minimum), ``steps``.

    Raises
    ------
    ModelError
        No stable split within the bounds.

    Examples
    --------
    >>> from symq import model
    >>> out = optimize(model("w"), "mean-response-time", "collaborative",
    ...                {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4"},
    ...                ["mu_1", "mu_2"], Fraction(9, 5), digits=10)
    >>> {n: f"{float(v):.8f}" for n, v in out["x"].items()}, out["kkt"]
    ({'mu_1': '1.00329090', 'mu_2': '0.79670910'}, True)

    Running time: a few Newton steps, each (k + 1) exact gradients for k budget rates.
    """
    bounds = bounds or {}
    k = len(budget)
    lo = [bounds.get(n, (None, None))[0] for n in budget]
    hi = [bounds.get(n, (None, None))[1] for n in budget]
    f = _Objective(base, quantity, discipline, fixed, budget, weights, True)
    x, pinned = [total / k] * k, set()
    for _ in range(k):  # the equal split, projected onto the bounds
        rest = [i for i in range(k) if i not in pinned]
        if not rest:
            break
        share = (total - sum(x[i] for i in pinned)) / len(rest)
        moved = False
        for i in rest:
            x[i] = share
            if lo[i] is not None and share < lo[i]:
                x[i], moved = lo[i], True
                pinned.add(i)
            elif hi[i] is not None and share > hi[i]:
                x[i], moved = hi[i], True
                pinned.add(i)
        if not moved:
            break
    if sum(x) != total or not _stable(base, fixed, budget, x):
        raise ModelError("the equal split of the budget is unstable or outside the bounds; "
                         "raise the budget or loosen the bounds")
    value, g = f(x)
    active: set[int] = set()
    tol = Fraction(1, 10 ** (digits + 4))
    steps = 0
    for steps in range(1, max_steps + 1):
        free = [i for i in range(k) if i not in active]
        h_step = Fraction(1, 10 ** (digits // 2 + 6))
        hess = []
        for j in free:  # Hessian columns by exact gradient differences
            y = list(x)
            y[j] += h_step
            hess.append([(gy - gx) / h_step for gy, gx in zip(f(y)[1], g)])
        hf = [[hess[b][free[a]] for b in range(len(free))] for a in range(len(free))]
        hf = [[(hf[a][b] + hf[b][a]) / 2 for b in range(len(free))] for a in range(len(free))]
        try:
            dx_free = _solve_kkt(hf, [g[i] for i in free])
        except ZeroDivisionError:
            break
        dx = [Fraction(0)] * k
        for a, i in enumerate(free):
            dx[i] = dx_free[a]
        t = Fraction(1)
        for i in free:  # stay inside the bounds: stop at the first one hit
            if dx[i] < 0 and lo[i] is not None and x[i] + t * dx[i] < lo[i]:
                t = (lo[i] - x[i]) / dx[i]
            if dx[i] > 0 and hi[i] is not None and x[i] + t * dx[i] > hi[i]:
                t = (hi[i] - x[i]) / dx[i]
        while True:
            y = [_round(v + t * d, digits) for v, d in zip(x, dx)]
            y[free[-1]] += total - sum(y)
            if _stable(base, fixed, budget, y):
                new_value, new_g = f(y)
                if new_value <= value + tol * abs(value) or t < Fraction(1, 2 ** 20):
                    break
            t /= 2
        x, value, g = y, new_value, new_g
        for i in free:
            if (lo[i] is not None and x[i] == lo[i]) or (hi[i] is not None and x[i] == hi[i]):
                active.add(i)
        free = [i for i in range(k) if i not in active]
        nu = sum(g[i] for i in free) / len(free) if free else Fraction(0)
        # release a bound whose gradient no longer holds the rate there
        for i in sorted(active):
            if (lo[i] is not None and x[i] == lo[i] and g[i] < nu) or \
                    (hi[i] is not None and x[i] == hi[i] and g[i] > nu):
                active.discard(i)
        if max(abs(d) for d in dx) * t < tol and free:
            break
    free = [i for i in range(k) if i not in active]
    nu = sum(g[i] for i in free) / len(free) if free else Fraction(0)
    residual = max((abs(g[i] - nu) for i in free), default=Fraction(0))
    signs = all((g[i] >= nu) if (lo[i] is not None and x[i] == lo[i]) else (g[i] <= nu)
                for i in active)
    kkt = signs and residual <= abs(nu) / 10 ** digits
    out = {"x": dict(zip(budget, x)), "value": value, "gradient": dict(zip(budget, g)),
           "multiplier": nu, "residual": residual, "active": [budget[i] for i in sorted(active)],
           "kkt": kkt, "steps": steps, "evaluations": f.evaluations, "limit": [],
           "limit_note": None}
    # a rate without a positive lower bound that the iteration drove towards 0: the infimum
    # is the limit mu -> 0 (a zero rate is not a model); check the KKT conditions there
    drift = [i for i in free if (lo[i] is None or lo[i] <= 0)
             and x[i] * 10 ** (digits // 2 + 2) < total]
    if drift and len(drift) < len(free):
        out.update(_limit_point(base, quantity, discipline, fixed, budget, total, x, g, drift,
                                [i for i in free if i not in drift], active, lo, weights, digits))
    return out


def _limit_point(base, quantity, discipline, fixed, budget, total, x, g, drift, free, active,
                 lo, weights, digits) -> dict[str, Any]:
    r"""The KKT check at the boundary point where the rates ``drift`` are 0: the quantity and its
    gradient there are the limits of the exact rational functions (the structured formula and its
    derivative formula, :mod:`symq.engines.formulas.derivative`, evaluated exactly at the limit
    point, which the subset DPs cannot take since a zero rate is not a model). Certified when the
    limit point is stable, the free rates' derivatives are equal to a relative
    $10^{-\text{digits}}$ and every rate at 0 has $\partial Q/\partial x_i\ge\nu$ exactly
    (moving capacity onto it does not help)."""
    y = list(x)
    moved = sum(y[i] for i in drift)
    for i in drift:
        y[i] = Fraction(0)
    y[max(free, key=lambda i: y[i])] += moved
    base_out = {"limit": [budget[i] for i in drift], "kkt": False}
    point = {**fixed, **{n: str(v) for n, v in zip(budget, y)}}
    try:
        import sympy
        from symq import solve
        from symq.engines.formulas.derivative import derivative
        from symq.models.stability import stability_conditions
        result = solve(base, quantity, discipline)
        if result.formula is None:
            raise ModelError("no structured formula")
        rels = stability_conditions(result.model).relations()
        names = {s.name: s for r in rels for s in r.free_symbols}
        subs = {names[n]: sympy.Rational(v) for n, v in point.items() if n in names}
        if not all(bool(r.subs(subs)) for r in rels):
            return {**base_out, "limit_note": "the limit point is unstable"}
        values = result.formula.at(point)
        slopes = derivative(result.formula, budget).at(point)
    except (ModelError, ZeroDivisionError, ValueError, TypeError) as exc:
        return {**base_out, "limit_note": f"no exact value at the limit ({exc})"}

    def q(label: str) -> Fraction:
        v = sympy.Rational(values[label] if label in values else values)
        return Fraction(int(v.p), int(v.q))

    def d(label: str, n: str) -> Fraction:
        v = sympy.Rational(slopes[f"{label} d/d{n}"])
        return Fraction(int(v.p), int(v.q))
    if weights:
        value = sum(w * q(f"class {c}") for c, w in weights.items())
        grad = [sum(w * d(f"class {c}", n) for c, w in weights.items()) for n in budget]
    else:
        value, grad = q("total"), [d("total", n) for n in budget]
    nu = sum(grad[i] for i in free) / len(free)
    residual = max((abs(grad[i] - nu) for i in free), default=Fraction(0))
    signs = all(grad[i] >= nu for i in drift) and all(
        (grad[i] >= nu) if (lo[i] is not None and y[i] == lo[i]) else (grad[i] <= nu)
        for i in active)
    kkt = signs and residual <= abs(nu) / 10 ** digits
    return {**base_out, "x": dict(zip(budget, y)), "value": value, "gradient": dict(zip(budget, grad)), "multiplier": nu,
            "residual": residual, "kkt": kkt,
            "limit_note": None if kkt else "the KKT conditions fail at the limit point"}


def run(args: argparse.Namespace) -> int:
    """Run ``symq optimize`` (module docstring).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments.

    Returns
    -------
    int
        0.

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
    KKT: dQ/dmu equal on the free rates to 1e-12 (nu = -0.795627713504); certified
    0

    Running time: that of :func:`optimize` (or one gradient for ``--rank``).
    """
    from symq.arithmetic.numeric import round_fraction
    from symq.commands.common import emit_json, model_with_values
    base, _, values = model_with_values(args)
    if args.rank:
        return _rank(args, base, values)
    if not args.budget:
        raise ModelError("optimize needs --budget 'mu_1 + mu_2 = C' (or --rank servers)")
    from symq.engines.sensitivity import rate_symbols
    names = sorted((s.name for s in base.symbols), key=rate_order) if base.symbols else []
    if not names:
        raise ModelError("optimize needs a model with rate symbols (a built-in model or a TOML "
                         "file whose rates are names); numeric rates have nothing to split")
    budget, total = _parse_budget(args.budget, names)
    fixed = {k: v for k, v in values.items() if k not in budget}
    missing = [n for n in names if n not in budget and n not in fixed]
    if missing:
        raise ModelError(f"optimize: the rate {missing[0]} has no value; give it with --set "
                         f"{missing[0]}=VALUE")
    weights = {c: _rational(w, f"--weight {c}") for c, w in
               _parse_pairs(args.weight, "weight").items()}
    for c in weights:
        if c not in base.classes:
            raise ModelError(f"--weight: the model has no class {c!r}; its classes are "
                             + ", ".join(base.classes))
    bounds = {}
    for n, text in _parse_pairs(args.bound, "bound").items():
        if n not in budget or ":" not in text:
            raise ModelError(f"--bound {n}={text}: write NAME=LO:HI for a rate of the budget")
        a, b = text.split(":", 1)
        bounds[n] = (_rational(a, "--bound") if a.strip() else None,
                     _rational(b, "--bound") if b.strip() else None)
    del rate_symbols
    out = optimize(base, args.quantity, args.discipline, fixed, budget, total, weights or None,
                   bounds, args.digits)
    what = "weighted sum" if weights else "total"
    if args.format == "json":
        emit_json({"model": args.model, "quantity": args.quantity, "discipline": args.discipline,
                   "budget": args.budget, "objective": what,
                   "allocation": {n: round_fraction(v, args.digits) for n, v in out["x"].items()},
                   "value": round_fraction(out["value"], args.digits),
                   "multiplier": round_fraction(out["multiplier"], args.digits),
                   "residual": str(float(out["residual"])), "active": out["active"],
                   "kkt": out["kkt"], "steps": out["steps"],
                   "at_lower_limit": out["limit"], "attained": not out["limit"],
                   "limit_note": out["limit_note"]})
        return 0
    limit = out["limit"]
    for n, v in out["x"].items():
        if n in limit:
            print(f"{n} -> 0 (at its bound (0): the infimum is approached as {n} -> 0, "
                  "not attained)")
        else:
            print(f"{n} = {round_fraction(v, args.digits)}")
    if limit and out["limit_note"] is None:
        print(f"infimum {args.quantity} ({what}) = {round_fraction(out['value'], args.digits)}"
              " (not attained)")
    else:
        print(f"minimum {args.quantity} ({what}) = {round_fraction(out['value'], args.digits)}")
    if limit and out["limit_note"] is not None:
        print(f"KKT at the limit {', '.join(n + ' -> 0' for n in limit)}: not checked: "
              f"{out['limit_note']}; NOT certified")
        return 0
    for n in limit:
        gap = out["gradient"][n] - out["multiplier"]
        print(f"KKT at the bound {n} -> 0 (exact, the formula's limit): dQ/d{n} - nu = "
              f"{_exact_text(gap, args.digits)} {'>=' if gap >= 0 else '<'} 0")
    state = "certified" if out["kkt"] else "NOT certified (raise --digits or check the bounds)"
    bound = f"1e-{args.digits}"
    act = [*out["active"], *(n + " -> 0" for n in limit)]
    act_text = f"; at a bound: {', '.join(act)}" if act else ""
    print(f"KKT: dQ/dmu equal on the free rates to {bound} (nu = "
          f"{round_fraction(out['multiplier'], args.digits)}){act_text}; {state}")
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
                   "discipline": args.discipline, "arithmetic": g.arithmetic,
                   "rank": [{"server": s, "rate": n, "gain": t} for _, s, n, t in rows]})
        return 0
    for k, (_, s, n, t) in enumerate(rows, 1):
        print(f"{k}. server {s}: -d{args.quantity}/d{n} = {t}")
    return 0
