r"""The quantities ``response-time``, ``response-time-survival``, ``waiting-time`` and
``waiting-time-survival`` of the command line, for every graph and discipline.

* :func:`derive_quantity` -- the exact formulas: per class the LST (in ``theta``), mean,
  variance and CDF (in ``t``), or the survival function $P(T_c>t)$. Symbolic rates on any graph
  go through the structured transform of :mod:`symq.engines.response_time.structured` (python-flint
  rational functions; its survival is a sum of exponentials with symbolic coefficients);
  numeric rates for any graph up to 12 servers.
* :func:`evaluate_request` -- what ``symq evaluate`` prints: certified decimals, the survival at
  ``--time T`` and the ``--percentile P`` per class; for ALIS/RAIS also the law of the server
  that serves a job of each class.

Examples
--------
>>> import symq
>>> from symq.queries.response_time import evaluate_request
>>> out = evaluate_request(symq.example_model("w"), "response-time-survival", "alis", 8, time="1")
>>> {c: v.value for c, v in out["per_class"].items()}
{'1': '0.47870121', '2': '0.55841470', '3': '0.44004752'}

Running time: that of :mod:`symq.engines.response_time.laws`, plus one certified evaluation per class.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from symq.engines.distributions import THETA, TIME
from symq.errors import ModelError, UnsupportedError
from symq.models.model import Model
from symq.arithmetic.numeric import decimal_string
from symq.engines.response_time.laws import DISCIPLINES, response_time_law, server_law, waiting_time_law

__all__ = ["derive_quantity", "evaluate_request", "check_options", "METHODS"]

_KIND = {"response-time": "response", "response-time-survival": "response",
         "waiting-time": "waiting", "waiting-time-survival": "waiting"}

METHODS = {
    "collaborative": "tagged job: response LST G(lambda - theta e_i)/G(lambda) (distributional "
                     "Little law on Thm 6.1's per-class law), wait by Prop 5.5/Cor 5.7 DP",
    "alis": "tagged job: wait jointly with the serving server by a three-phase DP over Thm 5.1's "
            "(b, n) law (Thm 5.4 corrected), then Exp(mu_s) service",
    "rais": "tagged job: wait jointly with the serving server by a three-phase DP over Thm 5.1's "
            "(b, n) law (Thm 5.4 corrected), then Exp(mu_s) service; routing: canonical "
            "(ALIS-averaged)",
}


def _symbolic_row(model: Model, job_class: str, discipline: str, kind: str) -> dict:
    """The law in symbols through the structured transform
    (:mod:`symq.engines.response_time.structured`): the transform and the moments as cancelled
    rational functions (python-flint), the survival function from the residues at the poles
    $-r_X$ and $-\\mu_s$ (rational in the rates)."""
    from symq.engines.formulas.arith import to_sympy
    from symq.engines.response_time.structured import transform_formula
    f = transform_formula(model, kind, discipline)
    lst = to_sympy(f.expanded_values()["lst"][job_class], "factored")
    moments = f.moments().expanded_values()
    try:
        survival = f.survival_expr(job_class)
    except UnsupportedError as error:
        raise UnsupportedError(f"the {kind}-time survival in symbols: {error}; evaluate it at "
                               "numeric rates (--set on the command line)") from error
    return {"lst": lst, "mean": to_sympy(moments["mean"][job_class], "factored"),
            "variance": to_sympy(moments["variance"][job_class], "factored"),
            "survival": survival}


def _law(model: Model, job_class: str, discipline: str, kind: str):
    function = response_time_law if kind == "response" else waiting_time_law
    return function(model, job_class, discipline)


def derive_quantity(model: Model, quantity: str, discipline: str = "collaborative") -> dict:
    """The exact result of ``quantity``: ``{"lst", "mean", "variance", "cdf"}`` per class, or
    ``{"per_class": {c: P(T_c > t)}}`` for the survival quantities.

    Parameters
    ----------
    model : Model
        Symbolic rates (small models) or numeric ones.
    quantity : str
        ``response-time``, ``waiting-time`` or their ``-survival`` forms.
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.

    Returns
    -------
    dict

    Raises
    ------
    UnsupportedError
        Symbolic rates on a model too large, or a closed form that does not exist.

    Examples
    --------
    >>> from symq import example_model
    >>> list(derive_quantity(example_model("n"), "response-time"))
    ['lst', 'mean', 'variance', 'cdf']

    Running time: one law per class (:mod:`symq.engines.response_time.laws`), plus partial fractions.
    """
    kind = _KIND[quantity]
    survival = quantity.endswith("-survival")
    out: dict[str, dict[str, Any]] = {}
    for c in model.classes:
        if model.is_numeric:
            law = _law(model, c, discipline, kind)
            row = {"lst": law.lst_expr(THETA), "mean": sympy.Rational(law.mean()),
                   "variance": sympy.Rational(law.variance()), "survival": law.survival_expr(TIME)}
        else:
            row = _symbolic_row(model, c, discipline, kind)
        if survival:
            out.setdefault("per_class", {})[c] = row["survival"]
        else:
            for key in ("lst", "mean", "variance"):
                out.setdefault(key, {})[c] = row[key]
            out.setdefault("cdf", {})[c] = 1 - row["survival"]
    return out


def _evaluated(exact: Any, value: str):
    from symq.arithmetic.numeric import Evaluated
    return Evaluated(exact, value)


def _time(text: Any, option: str = "--time") -> Fraction:
    from symq.models.rates import parse_value  # the safe grammar: outside text is never evaluated
    try:  # a ModelError of the grammar says what is wrong (too many digits, ...)
        value = parse_value(text, option)
    except TypeError:
        value = None
    if value is None or str(text).strip() == "" or not value.is_Rational:
        raise ModelError(f"{option} {text!r} is not an exact number (write 1, 3/2 or 0.5)")
    if value < 0:
        raise ModelError(f"{option} must be non-negative, not {text}")
    return Fraction(int(value.p), int(value.q))


def _percent(text: Any) -> Fraction:
    value = _time(text, "--percentile") if not isinstance(text, Fraction) else text
    if not 0 < value < 100:
        raise ModelError(f"--percentile must lie strictly between 0 and 100, not {text}")
    return value


def check_options(quantity: str, time: Any = None, percentile: Any = None) -> bool:
    """Check ``--time`` and ``--percentile`` against the quantity; whether it is one of the
    response-time or waiting-time quantities.

    Parameters
    ----------
    quantity : str
        The quantity asked for.
    time, percentile : optional
        ``--time`` and ``--percentile`` as given (``None`` when absent).

    Returns
    -------
    bool
        Whether ``quantity`` is a response-time or waiting-time quantity.

    Raises
    ------
    ModelError
        ``--time`` or ``--percentile`` with a quantity that takes none, or a survival
        quantity without ``--time``.

    Examples
    --------
    >>> check_options("mean-number"), check_options("response-time-survival", time="1")
    (False, True)

    Running time: O(1).
    """
    if quantity not in _KIND:
        if time is not None or percentile is not None:
            raise ModelError("--time and --percentile apply to the response-time and waiting-time "
                             "quantities only")
        return False
    kind = _KIND[quantity]
    survival = quantity.endswith("-survival")
    if survival and time is None:
        raise ModelError(f"{quantity} needs --time T (a non-negative exact number)")
    if not survival and time is not None:
        raise ModelError(f"--time applies to {kind}-time-survival; {quantity} gives the whole law")
    if survival and percentile is not None:
        raise ModelError(f"--percentile applies to {kind}-time, not to {quantity}")
    return True


def evaluate_request(model: Model, quantity: str, discipline: str, digits: int,
                     time: Any = None, percentile: Any = None):
    """What ``symq evaluate`` prints for the response/waiting-time quantities: a mapping with
    :class:`~symq.queries.quantities.Evaluated` leaves, or ``None`` when the standard route (the
    registered handler, then :func:`symq.queries.quantities.evaluate`) should be used.

    Parameters
    ----------
    model : Model
        Numeric rates.
    quantity : str
        The quantity asked for.
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.
    digits : int
        Certified significant digits.
    time, percentile : optional
        ``--time`` and ``--percentile`` of the command.

    Returns
    -------
    dict or None

    Raises
    ------
    ModelError
        ``--time`` or ``--percentile`` with a quantity that takes none, a missing ``--time``, or
        bad values.

    Examples
    --------
    >>> from symq import example_model
    >>> evaluate_request(example_model("n"), "mean-number", "collaborative", 5) is None
    True

    Running time: that of the laws, plus one certified evaluation per class.
    """
    if not check_options(quantity, time, percentile):
        return None
    if discipline not in DISCIPLINES:
        raise ModelError(f"unknown discipline {discipline!r}; available: {', '.join(DISCIPLINES)}")
    kind = _KIND[quantity]
    survival = quantity.endswith("-survival")
    if not model.is_numeric:
        names = ", ".join(sorted(s.name for s in model.symbols))
        raise ModelError(f"evaluate needs a value for every symbol; missing: {names} "
                         "(give each with --set NAME=VALUE)")
    laws = {c: _law(model, c, discipline, kind) for c in model.classes}
    if survival:
        t = _time(time)
        out = {}
        for c, law in laws.items():
            exact = law.survival_at(t) if law.is_closed_form else None
            out[c] = _evaluated(exact, law.survival_value(t, digits))
        return {"per_class": out}
    result: dict[str, dict[str, Any]] = {"lst": {}, "mean": {}, "variance": {}, "cdf": {}}
    for c, law in laws.items():
        mean, variance = sympy.Rational(law.mean()), sympy.Rational(law.variance())
        result["lst"][c] = _evaluated(law.lst_expr(THETA), "")
        result["mean"][c] = _evaluated(mean, decimal_string(mean, digits))
        result["variance"][c] = _evaluated(variance, decimal_string(variance, digits))
        result["cdf"][c] = _evaluated(law.cdf_expr(TIME), "")
    if kind == "waiting":
        result["atom"] = {c: _evaluated(sympy.Rational(law.atom), decimal_string(
            sympy.Rational(law.atom), digits)) for c, law in laws.items()}
    if discipline != "collaborative" and kind == "response":
        result["server"] = {}
        for c in model.classes:
            for s, p in server_law(model, c, discipline).items():
                result["server"][f"{c}->{s}"] = _evaluated(p, decimal_string(p, digits))
    if percentile is not None:
        p = _percent(percentile)
        result["percentile"] = {c: _evaluated(None, law.percentile(p, digits))
                                for c, law in laws.items()}
    return result
