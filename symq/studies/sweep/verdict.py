"""What a sweep check returns and what a sweep stores: the :class:`Verdict` of a check on one model,
the :class:`Check` record that names a check function, the coercion of a user check's return value
into a verdict, and the conversion of verdict data into JSON-ready text. Shared by the built-in
checks (:mod:`symq.studies.sweep.checks`), the registry (:mod:`symq.studies.sweep.registry`) and the engine
(:mod:`symq.studies.sweep.engine`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from symq.models.model import Model
from symq.display import Displayed
from symq.display import math as math_cell

__all__ = ["Verdict", "Check", "as_verdict", "json_ready"]


@dataclass
class Verdict(Displayed):
    """The outcome of a check on one model (in a notebook: a table of the verdict, the reason
    and the data).

    Parameters
    ----------
    ok : bool or None
        True (the statement holds), False (a counterexample) or None (the statement does not
        apply to this model; ``reason`` says why).
    data : dict
        Names to values (sympy expressions, numbers, strings) that explain the verdict; a sweep
        stores them as strings (:func:`json_ready`).
    reason : str
        Why the check does not apply, or any remark.

    Examples
    --------
    >>> Verdict(None, reason="not nested").ok is None
    True
    """

    ok: bool | None
    data: dict[str, Any] = field(default_factory=dict)
    reason: str = ""

    def _display(self) -> tuple[str, list]:
        """Title and table sections for Jupyter (:class:`symq.display.Displayed`)."""
        import sympy
        verdict = {True: "holds", False: "counterexample", None: "does not apply"}[self.ok]
        rows = [("verdict", verdict)] + ([("reason", self.reason)] if self.reason else [])
        rows += [(str(k), math_cell(v) if isinstance(v, (sympy.Basic, int)) else str(v))
                 for k, v in self.data.items()]
        return "check verdict", [(None, rows)]


@dataclass(frozen=True)
class Check:
    """A named check: ``function(model, options) -> Verdict``.

    Parameters
    ----------
    name : str
        The name given to ``symq sweep`` (a key of :data:`symq.studies.sweep.CHECKS`, or
        ``module:function`` for a user check).
    description : str
        One line for ``symq sweep --help``.
    function : callable
        ``function(model, options)`` returning a :class:`Verdict`; ``options`` holds the check
        options (``max_jobs``, ``disciplines``).
    rates : str
        ``"symbolic"`` (works with symbols; random rates allowed too) or ``"numeric"`` (needs
        ``--rates random:N`` or ``light:N``).
    default_rates : str
        The rates used when none are given.

    Examples
    --------
    >>> Check("always", "holds everywhere", lambda model, options: Verdict(True)).rates
    'symbolic'
    """

    name: str
    description: str
    function: Callable[[Model, Mapping[str, Any]], Verdict]
    rates: str = "symbolic"
    default_rates: str = "symbolic"


def as_verdict(result: Any, where: str) -> Verdict:
    """The :class:`Verdict` of whatever a (user) check returned.

    Parameters
    ----------
    result : Verdict, bool, None, pair ``(ok, data)`` or mapping with an ``"ok"`` entry
        The return value of a check; None means "does not apply".
    where : str
        The check, for the error message (``"check 'mod:fn'"``).

    Returns
    -------
    Verdict

    Raises
    ------
    TypeError
        Any other type of return value.

    Notes
    -----
    Running time: linear in the size of the returned data.

    Examples
    --------
    >>> as_verdict((False, {"x": 1}), "check 'demo'")
    Verdict(ok=False, data={'x': 1}, reason='')
    >>> as_verdict({"ok": True, "n": 3}, "check 'demo'").data
    {'n': 3}
    """
    if isinstance(result, Verdict):
        return result
    if result is None:
        return Verdict(None, reason="the check returned None (does not apply)")
    if isinstance(result, bool):
        return Verdict(result)
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], Mapping):
        return Verdict(None if result[0] is None else bool(result[0]), dict(result[1]))
    if isinstance(result, Mapping) and "ok" in result:
        data = {k: v for k, v in result.items() if k != "ok"}
        return Verdict(None if result["ok"] is None else bool(result["ok"]), data)
    raise TypeError(f"{where} returned {type(result).__name__}; return a symq.studies.sweep.Verdict, a "
                    "bool, a pair (ok, data) or a mapping with an 'ok' entry")


def json_ready(value: Any) -> Any:
    """``value`` with sympy objects and Fractions as strings, recursively (for a JSON line).

    Parameters
    ----------
    value : mapping, list, tuple, scalar, or any object with a ``str``
        Mappings and sequences are converted element by element; None, bools, ints and strings
        are kept; floats become their ``repr``; anything else its ``str``.

    Returns
    -------
    A structure of dicts, lists, None, bools, ints and strings.

    Notes
    -----
    Running time: linear in the size of ``value``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> json_ready({"p": Fraction(1, 3), "xs": (1, 0.5)})
    {'p': '1/3', 'xs': [1, '0.5']}
    """
    if isinstance(value, Mapping):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return repr(value)
    return str(value)
