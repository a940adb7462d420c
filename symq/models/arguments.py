r"""Checkers for the arguments of symq's Python functions: each refuses a wrong type with an
:class:`~symq.errors.ArgumentTypeError` (a ``TypeError`` too) naming the argument, the type
given and the types expected, and a value out of range with a
:class:`~symq.errors.ModelError` naming the argument and the range, before any work starts
(``symq.solve("w", "mean-number", values=[1, 2])`` and ``max_work=float("nan")`` raised bare
``TypeError``/``ValueError`` from deep inside).

Examples
--------
>>> check_count(3, "digits")
3
>>> check_count(float("nan"), "max_work")
Traceback (most recent call last):
    ...
symq.errors.ArgumentTypeError: max_work must be a whole number (an int), not float
>>> check_values([1, 2], "values")
Traceback (most recent call last):
    ...
symq.errors.ArgumentTypeError: values must be a mapping of symbol name to value (e.g. {'lambda_1': '3/10'}), not list
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any, Iterable, Mapping

from symq.errors import ArgumentTypeError, ModelError

__all__ = ["check_count", "check_real", "check_choice", "check_text", "check_values",
           "check_optional_count", "check_model"]


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def check_count(value: Any, what: str, low: int = 1, high: int | None = None) -> int:
    """A whole number from ``low`` to ``high`` (numpy integers pass; bools, floats, strings do
    not).

    Parameters
    ----------
    value : Any
        The argument.
    what : str
        Its name in the message (``"digits"``, ``"symq.solve(max_work=...)"``).
    low, high : int
        The bounds (``high=None``: none).

    Returns
    -------
    int

    Raises
    ------
    ArgumentTypeError
        Not a whole number.
    ModelError
        Out of range.

    Examples
    --------
    >>> check_count(0, "digits")
    Traceback (most recent call last):
        ...
    symq.errors.ModelError: digits must be 1 or more, not 0

    Running time: O(1).
    """
    if _is_bool(value) or not isinstance(value, numbers.Integral):
        raise ArgumentTypeError(f"{what} must be a whole number (an int), not "
                                f"{type(value).__name__}")
    value = int(value)
    if value < low or (high is not None and value > high):
        bounds = f"from {low:,} to {high:,}" if high is not None else f"{low:,} or more"
        raise ModelError(f"{what} must be {bounds}, not {value:,}")
    return value


def check_optional_count(value: Any, what: str, low: int = 1, high: int | None = None) -> int | None:
    """``None`` or :func:`check_count`.

    Parameters
    ----------
    value : Any
        The argument.
    what : str
        Its name in the message.
    low, high : int
        The bounds.

    Returns
    -------
    int or None

    Raises
    ------
    ArgumentTypeError
        Not a whole number.
    ModelError
        Out of range.

    Examples
    --------
    >>> check_optional_count(None, "max_work") is None
    True

    Running time: O(1).
    """
    return None if value is None else check_count(value, what, low, high)


def check_real(value: Any, what: str, positive: bool = False) -> Any:
    """A finite real number (int, Fraction, float, numpy scalar, an exact sympy number);
    ``positive``: above 0.

    Parameters
    ----------
    value : Any
        The argument.
    what : str
        Its name in the message.
    positive : bool
        Refuse 0 and negative values.

    Returns
    -------
    Any
        ``value`` itself.

    Raises
    ------
    ArgumentTypeError
        Not a real number.
    ModelError
        NaN, an infinity, or not positive when asked.

    Examples
    --------
    >>> check_real(1e12, "horizon", positive=True)
    1000000000000.0
    >>> check_real(float("inf"), "horizon")
    Traceback (most recent call last):
        ...
    symq.errors.ModelError: horizon must be a finite number, not inf

    Running time: O(1).
    """
    import sympy
    if _is_bool(value) or isinstance(value, str) or not (
            isinstance(value, (numbers.Real, Fraction))
            or (isinstance(value, sympy.Basic) and value.is_number and value.is_real)):
        raise ArgumentTypeError(f"{what} must be a real number (an int, a Fraction or a "
                                f"float), not {type(value).__name__}")
    try:
        number = float(value)
    except OverflowError:  # an exact number past the floats: finite
        number = 0.0
    if math.isnan(number) or math.isinf(number):
        raise ModelError(f"{what} must be a finite number, not {number}")
    if positive and not value > 0:
        raise ModelError(f"{what} must be positive, not {value}")
    return value


def check_choice(value: Any, what: str, choices: Iterable[str]) -> str:
    """One of ``choices`` (a string).

    Parameters
    ----------
    value : Any
        The argument.
    what : str
        Its name in the message.
    choices : iterable of str
        The values allowed.

    Returns
    -------
    str

    Raises
    ------
    ArgumentTypeError
        Not a string.
    ModelError
        Not one of ``choices``.

    Examples
    --------
    >>> check_choice("alis", "discipline", ["alis", "rais"])
    'alis'
    >>> check_choice(3, "discipline", ["alis", "rais"])
    Traceback (most recent call last):
        ...
    symq.errors.ArgumentTypeError: discipline must be a string, one of alis, rais, not int

    Running time: O(number of choices).
    """
    choices = list(choices)
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{what} must be a string, one of {', '.join(choices)}, not "
                                f"{type(value).__name__}")
    if value not in choices:
        from symq.display import printable
        raise ModelError(f"{what} {printable(value)!r} is unknown; choose one of "
                         f"{', '.join(choices)}")
    return value


def check_text(value: Any, what: str) -> str:
    """A string (a name, a formula).

    Parameters
    ----------
    value : Any
        The argument.
    what : str
        Its name in the message.

    Returns
    -------
    str

    Raises
    ------
    ArgumentTypeError
        Not a string.

    Examples
    --------
    >>> check_text(None, "quantity")
    Traceback (most recent call last):
        ...
    symq.errors.ArgumentTypeError: quantity must be a string, not NoneType

    Running time: O(1).
    """
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{what} must be a string, not {type(value).__name__}")
    return value


def check_values(values: Any, what: str = "values") -> Mapping[Any, Any] | None:
    """``None`` or a mapping of symbol name (a string or a sympy symbol) to value; the values
    themselves are checked where they are read (:func:`symq.models.rates.parse_rate`).

    Parameters
    ----------
    values : Any
        The argument.
    what : str
        Its name in the message.

    Returns
    -------
    mapping or None

    Raises
    ------
    ArgumentTypeError
        Not a mapping, or a key that is not a name.

    Examples
    --------
    >>> check_values({"mu_1": 1})
    {'mu_1': 1}
    >>> check_values({1: 1})
    Traceback (most recent call last):
        ...
    symq.errors.ArgumentTypeError: values are keyed by symbol name (a string such as 'lambda_1'), not int

    Running time: O(number of values).
    """
    if values is None:
        return None
    if not isinstance(values, Mapping):
        raise ArgumentTypeError(f"{what} must be a mapping of symbol name to value (e.g. "
                                f"{{'lambda_1': '3/10'}}), not {type(values).__name__}")
    import sympy
    for key in values:
        if not isinstance(key, (str, sympy.Symbol)):
            raise ArgumentTypeError(f"{what} are keyed by symbol name (a string such as "
                                    f"'lambda_1'), not {type(key).__name__}")
    return values


def check_model(value: Any, what: str) -> Any:
    """A :class:`symq.models.model.Model` (the studies take the model itself, not a name).

    Parameters
    ----------
    value : Any
        The argument.
    what : str
        Its name in the message.

    Returns
    -------
    Model

    Raises
    ------
    ArgumentTypeError
        Not a Model.

    Examples
    --------
    >>> check_model(None, "decompose(model)")
    Traceback (most recent call last):
        ...
    symq.errors.ArgumentTypeError: decompose(model) must be a symq.Model (symq.model(name) reads a built-in name or a file), not NoneType

    Running time: O(1).
    """
    from symq.models.model import Model
    if not isinstance(value, Model):
        raise ArgumentTypeError(f"{what} must be a symq.Model (symq.model(name) reads a built-in "
                                f"name or a file), not {type(value).__name__}")
    return value
