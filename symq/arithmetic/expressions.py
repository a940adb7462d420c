r"""A reader for rate and formula strings that cannot run any code.
Text from outside (a rate in a TOML model file, a ``--set`` value, a station weight, a formula
given to :func:`symq.evaluate`) becomes a sympy expression through this module only: its own
tokenizer and recursive-descent parser build the expression from :class:`sympy.Integer`,
:class:`sympy.Rational`, positive symbols, ``Add``, ``Mul`` and ``Pow`` (decimals read as the exact
fraction they spell), never through Python's ``eval`` or ``sympy.sympify``/``parse_expr``, and
refuse anything outside the grammar, or past the limits ``MAX_LENGTH``, ``MAX_FORMULA_LENGTH``,
``MAX_DEPTH``, ``MAX_DIGITS``, ``MAX_POWER``, ``MAX_DEGREE`` and ``MAX_SQRT_DIGITS``, with a
:class:`~symq.errors.ModelError` that names the text at fault. Running time: linear in the length
of the text, plus sympy's cost of building the expression. The grammar, the refused names and the
limits: see docs/security.md.

Examples
--------
>>> from symq.arithmetic.expressions import parse_expression
>>> parse_expression("lambda/2")
lambda/2
>>> parse_expression("0.3"), parse_expression("1.5e-3")
(3/10, 3/2000)
>>> parse_expression("2*mu_1 + 1/3")
2*mu_1 + 1/3
>>> parse_expression("mu_1**2").is_positive
True
>>> parse_expression("sqrt.__globals__")
Traceback (most recent call last):
    ...
symq.errors.ModelError: expression: cannot read 'sqrt.__globals__': '.' at position 4 is not allowed (no attribute access); a rate is built from numbers (2, 3/10, 0.25, 1e-3), rate names (lambda_1, mu), + - * /, whole powers (x**2), parentheses and sqrt(...)
"""

from __future__ import annotations

import keyword
import re
from typing import Callable, Mapping

import sympy

from symq.errors import ModelError

__all__ = ["parse_expression", "parse_formula", "as_expression", "positive_symbol",
           "check_ascii", "whole_number_text", "rate_text", "RESERVED_NAMES", "MAX_LENGTH", "MAX_FORMULA_LENGTH", "MAX_DEPTH", "MAX_DIGITS",
           "MAX_POWER", "MAX_DEGREE", "MAX_SQRT_DIGITS"]

MAX_LENGTH = 1000
MAX_FORMULA_LENGTH = 100_000
MAX_DEPTH = 100
MAX_DIGITS = 4000
MAX_POWER = 1000
MAX_DEGREE = 1000
MAX_SQRT_DIGITS = 100

#: the transform and time variables of formulas: equal to symq.engines.distributions.THETA and TIME
_FORMULA_VARIABLES = {"theta": sympy.Symbol("theta", positive=True),
                      "t": sympy.Symbol("t", nonnegative=True)}

#: names refused as rate names: sympy's printer and parser give them another meaning
RESERVED_NAMES = frozenset({"I", "E", "S", "N", "O", "Q", "pi", "oo", "zoo", "nan", "inf",
                            "infinity"})
_NOT_NUMBERS = frozenset({"nan", "inf", "infinity", "oo", "zoo"})

_ALLOWED = ("a rate is built from numbers (2, 3/10, 0.25, 1e-3), rate names (lambda_1, mu), "
            "+ - * /, whole powers (x**2), parentheses and sqrt(...)")

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n]+)
  | (?P<number>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\*\*|[-+*/^(),])
""", re.VERBOSE | re.ASCII)
_NUMBER_PARTS = re.compile(r"([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?)([0-9]+))?", re.ASCII)

_WHY = {".": "no attribute access", "[": "no subscripts or lists", "]": "no subscripts or lists",
        "{": "no sets or dictionaries", "}": "no sets or dictionaries", "'": "no strings",
        '"': "no strings", ":": "no slices or lambda expressions", "=": "no assignments",
        "<": "no comparisons", ">": "no comparisons", "!": "no comparisons",
        "%": "no remainders", "@": "no matrix products or decorators", "&": "no bit operations",
        "|": "no bit operations", "~": "no bit operations", ";": "one expression only",
        "#": "no comments", "\\": "no escapes", "`": "no backquotes", "$": "no LaTeX"}


def check_ascii(text: str, what: str) -> None:
    r"""Refuse text that holds a character outside ASCII where symq reads numbers and names:
    Python's ``int`` and ``\d`` read every Unicode digit (``int("1\u06605")`` is 105, and
    U+0660 ARABIC-INDIC DIGIT ZERO looks like a dot), so a digit, space or sign from another
    script would pass as a number it does not show. The message names the text, the character
    (code point and Unicode name) and the fix.

    Parameters
    ----------
    text : str
        The text as the user wrote it.
    what : str
        Names it in the message (``"value of mu_1"``, ``"--servers"``).

    Raises
    ------
    ModelError
        The first non-ASCII character of ``text``.

    Examples
    --------
    >>> check_ascii("3/10", "value of mu_1")
    >>> check_ascii("1\u06605", "value of mu_1")
    Traceback (most recent call last):
        ...
    symq.errors.ModelError: value of mu_1: '1٠5' holds U+0660 ARABIC-INDIC DIGIT ZERO; write ASCII digits 0-9

    Running time: O(len(text)).
    """
    if text.isascii():
        return
    import unicodedata
    char = next(c for c in text if not c.isascii())
    name = unicodedata.name(char, "")
    shown = f"U+{ord(char):04X}" + (f" {name}" if name else "")
    if unicodedata.category(char) == "Nd" or char.isnumeric():
        fix = "write ASCII digits 0-9"
    elif char.isspace() or unicodedata.category(char) in ("Zs", "Cf"):
        fix = "use an ordinary space or none"
    else:
        fix = "write numbers with ASCII digits 0-9 and names with ASCII letters, digits and _"
    raise ModelError(f"{what}: {_shown(text)} holds {shown}; {fix}")


def whole_number_text(text: str, what: str) -> int:
    """A whole number written with ASCII digits (an optional sign, spaces around): ``int()``
    without its Unicode digits and ``_`` separators.

    Parameters
    ----------
    text : str
        The text as the user wrote it.
    what : str
        Names it in the message.

    Returns
    -------
    int

    Raises
    ------
    ModelError
        Non-ASCII characters (:func:`check_ascii`), or text that is not a whole number.

    Examples
    --------
    >>> whole_number_text(" 12", "--servers")
    12

    Running time: O(len(text)).
    """
    check_ascii(text, what)
    stripped = text.strip()
    if not re.fullmatch(r"[+-]?[0-9]{1,4300}", stripped, re.ASCII):
        raise ModelError(f"{what} {_shown(text)} is not a whole number")
    return int(stripped)


def _shown(text: str) -> str:
    return repr(text if len(text) <= 80 else text[:77] + "...")


def _digits(value: int) -> int:
    """The number of decimal digits of ``|value|`` (exact, without converting to a string)."""
    value = abs(value)
    if value < 10:
        return 1
    guess = int(value.bit_length() * 0.30102999566398120)
    return guess + 1 if value >= 10 ** guess else guess


class _Token:
    __slots__ = ("kind", "text", "position")

    def __init__(self, kind: str, text: str, position: int) -> None:
        self.kind, self.text, self.position = kind, text, position

    def __str__(self) -> str:
        return "the end" if self.kind == "end" else f"{self.text!r} at position {self.position}"


class _Parser:
    """Recursive descent over the tokens of one text; each node is ``(expr, degree)``."""

    def __init__(self, text: str, what: str, functions: Mapping[str, tuple[int, int, Callable]],
                 variables: Mapping[str, sympy.Expr]) -> None:
        self.text, self.what = text, what
        self.functions, self.variables = functions, variables
        self.tokens = self._tokenize()
        self.index = 0
        self.depth = 0

    # ----------------------------------------------------------------- errors
    def fail(self, reason: str, allowed: bool = True) -> ModelError:
        tail = f"; {self._allowed()}" if allowed else ""
        return ModelError(f"{self.what}: cannot read {_shown(self.text)}: {reason}{tail}")

    def _allowed(self) -> str:
        extra = [name for name in self.functions if name != "sqrt"]
        return _ALLOWED + "".join(f", {name}(...)" for name in extra if name != "Rational")

    # ----------------------------------------------------------------- tokens
    def _tokenize(self) -> list[_Token]:
        tokens, text, position = [], self.text, 0
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None:
                char = text[position]
                why = _WHY.get(char, "")
                if char == "." and tokens and tokens[-1].kind in ("name", ")"):
                    why = "no attribute access"
                raise self.fail(f"{char!r} at position {position} is not allowed"
                                + (f" ({why})" if why else ""))
            kind = match.lastgroup
            if kind != "space":
                value = match.group()
                tokens.append(_Token(value if kind == "op" else kind, value, position))
            position = match.end()
        tokens.append(_Token("end", "", len(text)))
        return tokens

    def peek(self) -> _Token:
        return self.tokens[self.index]

    def take(self) -> _Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def expect(self, kind: str, context: str) -> _Token:
        token = self.take()
        if token.kind != kind:
            raise self.fail(f"expected {kind!r} {context}, found {token}")
        return token

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} levels deep (parentheses, signs, "
                            "calls); simplify the expression", allowed=False)

    # ----------------------------------------------------------------- checks
    def check_degree(self, degree: int) -> int:
        if degree > MAX_DEGREE:
            raise self.fail(f"its degree exceeds {MAX_DEGREE}; symq reads polynomials and "
                            f"fractions of degree at most {MAX_DEGREE}", allowed=False)
        return degree

    def check_number(self, value: sympy.Expr) -> sympy.Expr:
        if value.is_Rational and max(_digits(value.p), _digits(value.q)) > MAX_DIGITS:
            raise self.fail(f"it has a number with more than {MAX_DIGITS} digits; give rates "
                            f"with at most {MAX_DIGITS} digits", allowed=False)
        return value

    # ----------------------------------------------------------------- grammar
    def parse(self) -> sympy.Expr:
        expr, _ = self.expression()
        token = self.peek()
        if token.kind != "end":
            previous = self.tokens[self.index - 1]
            if token.kind in ("name", "number", "("):
                raise self.fail(f"an operator is missing between {previous.text!r} and {token}")
            raise self.fail(f"unexpected {token}")
        for number in expr.atoms(sympy.Rational):
            self.check_number(number)
        if expr.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            raise self.fail("it is not a finite number (a division by zero?)", allowed=False)
        return expr

    def expression(self) -> tuple[sympy.Expr, int]:
        first, degree = self.term()
        terms = [first]
        while self.peek().kind in ("+", "-"):
            sign = self.take().kind
            term, term_degree = self.term()
            terms.append(term if sign == "+" else -term)
            degree = max(degree, term_degree)
        if len(terms) == 1:
            return first, degree
        return sympy.Add(*terms), degree

    def term(self) -> tuple[sympy.Expr, int]:
        first, degree = self.unary()
        factors = [first]
        while self.peek().kind in ("*", "/"):
            operator = self.take()
            factor, factor_degree = self.unary()
            if operator.kind == "/":
                if factor == 0:
                    raise self.fail(f"division by zero at position {operator.position}",
                                    allowed=False)
                factor = sympy.Pow(factor, -1)
            factors.append(factor)
            degree = self.check_degree(degree + factor_degree)
        if len(factors) == 1:
            return first, degree
        product = sympy.Mul(*factors)
        return (self.check_number(product) if product.is_Rational else product), degree

    def unary(self) -> tuple[sympy.Expr, int]:
        if self.peek().kind in ("+", "-"):
            sign = self.take().kind
            self.enter()
            expr, degree = self.unary()
            self.depth -= 1
            return (expr if sign == "+" else -expr), degree
        return self.power()

    def power(self) -> tuple[sympy.Expr, int]:
        base, degree = self.atom()
        if self.peek().kind not in ("**", "^"):
            return base, degree
        operator = self.take()
        exponent = self.exponent(operator)
        if self.peek().kind in ("**", "^"):
            raise self.fail(f"a power of a power at {self.peek()} is ambiguous; write (x**2)**3")
        if base == 0 and exponent < 0:
            raise self.fail(f"division by zero (0 to a negative power) at position "
                            f"{operator.position}", allowed=False)
        numbers = [base] if base.is_Rational else base.atoms(sympy.Rational)
        largest = max((max(_digits(r.p), _digits(r.q)) for r in numbers), default=0)
        if largest > 1 and largest * abs(exponent) > MAX_DIGITS:
            raise self.fail(f"the power at position {operator.position} would make a number of "
                            f"more than {MAX_DIGITS} digits", allowed=False)
        return sympy.Pow(base, exponent), self.check_degree(degree * abs(exponent))

    def exponent(self, operator: _Token) -> int:
        bracket = self.peek().kind == "("
        if bracket:
            self.take()
        sign = self.take().kind if self.peek().kind in ("+", "-") else "+"
        token = self.take()
        if token.kind != "number" or not token.text.isdigit() or \
                (bracket and self.peek().kind != ")"):
            raise self.fail(f"the exponent after {operator.text!r} at position {operator.position} "
                            f"must be a whole number from -{MAX_POWER} to {MAX_POWER} written out "
                            "(x**2, x**(-1)); use sqrt(...) for square roots")
        if bracket:
            self.take()
        if len(token.text) > 5 or int(token.text) > MAX_POWER:
            raise self.fail(f"the exponent {token.text} at position {token.position} is larger "
                            f"than {MAX_POWER}", allowed=False)
        return int(token.text) * (-1 if sign == "-" else 1)

    def atom(self) -> tuple[sympy.Expr, int]:
        token = self.take()
        if token.kind == "number":
            return self.number(token), 0
        if token.kind == "name":
            if self.peek().kind == "(":
                return self.call(token)
            return self.name(token)
        if token.kind == "(":
            self.enter()
            expr, degree = self.expression()
            self.expect(")", f"to close the '(' at position {token.position}")
            self.depth -= 1
            return expr, degree
        if token.kind == "end":
            raise self.fail("the expression ends where a number, name or '(' is expected")
        raise self.fail(f"expected a number, a name or '(' but found {token}")

    def number(self, token: _Token) -> sympy.Expr:
        whole, fraction, sign, exponent = _NUMBER_PARTS.fullmatch(token.text).groups()
        fraction = fraction or ""
        digits = (whole + fraction).lstrip("0")
        if len(digits) > MAX_DIGITS:
            raise self.fail(f"the number at position {token.position} has more than {MAX_DIGITS} "
                            "digits", allowed=False)
        power = 0
        if exponent is not None:
            if len(exponent.lstrip("0")) > len(str(MAX_DIGITS)) or int(exponent) > MAX_DIGITS:
                raise self.fail(f"the exponent of {token.text[:20]!r} at position {token.position} "
                                f"is beyond {MAX_DIGITS}: symq reads numbers of at most "
                                f"{MAX_DIGITS} digits", allowed=False)
            power = int(exponent) * (-1 if sign == "-" else 1)
        power -= len(fraction)
        mantissa = int(digits) if digits else 0
        if mantissa and _digits(mantissa) + max(power, 0) > MAX_DIGITS:
            raise self.fail(f"the number {token.text[:20]!r} at position {token.position} has more "
                            f"than {MAX_DIGITS} digits", allowed=False)
        if power >= 0:
            return sympy.Integer(mantissa * 10 ** power)
        return self.check_number(sympy.Rational(mantissa, 10 ** -power))

    def name(self, token: _Token) -> tuple[sympy.Expr, int]:
        name = token.text
        if name in self.variables:
            return self.variables[name], 1
        if name in self.functions:
            raise self.fail(f"{name!r} at position {token.position} is a function; write "
                            f"{name}(...)")
        _check_name(name, lambda reason: self.fail(f"{name!r} at position {token.position} "
                                                   f"{reason}"))
        return positive_symbol(name), 1

    def call(self, token: _Token) -> tuple[sympy.Expr, int]:
        name = token.text
        if name not in self.functions:
            known = ", ".join(f"{f}(...)" for f in self.functions)
            raise self.fail(f"{name}(...) at position {token.position} calls a function; the only "
                            f"functions are {known}")
        low, high, build = self.functions[name]
        opening = self.take()
        self.enter()
        arguments = [self.expression()]
        while self.peek().kind == ",":
            self.take()
            arguments.append(self.expression())
        self.expect(")", f"to close {name}( at position {opening.position}")
        self.depth -= 1
        if not low <= len(arguments) <= high:
            count = str(low) if low == high else f"{low} or {high}"
            raise self.fail(f"{name}(...) at position {token.position} takes {count} argument(s), "
                            f"not {len(arguments)}")
        return build(self, [a for a, _ in arguments]), max(d for _, d in arguments)


def positive_symbol(name: str) -> sympy.Symbol:
    """The positive symbol ``name``: every rate symbol symq creates goes through here (also
    exported by :mod:`symq.models.rates`).

    Parameters
    ----------
    name : str
        The symbol's name (``"lambda_1"``).

    Returns
    -------
    sympy.Symbol
        Created with ``positive=True``, so it equals every other rate symbol of that name.

    Examples
    --------
    >>> positive_symbol("mu_1").is_positive
    True

    Running time: O(1) (sympy caches symbols).
    """
    return sympy.Symbol(name, positive=True)


def _check_name(name: str, fail: Callable[[str], ModelError]) -> None:
    if name.startswith("_") or "__" in name:
        raise fail("is not a rate name: names start with a letter and use letters, digits and "
                   "single underscores")
    if keyword.iskeyword(name) and name != "lambda":
        raise fail("is a Python keyword, not a rate name")
    if name.lower() in _NOT_NUMBERS:
        raise fail("is not a finite number; give a finite positive number or a symbol name")
    if name in RESERVED_NAMES:
        raise fail(f"is reserved (sympy reads {name} as one of its constants or functions); "
                   f"choose another rate name such as {name}_1")


def _sqrt(parser: _Parser, arguments: list[sympy.Expr]) -> sympy.Expr:
    (argument,) = arguments
    numbers = [argument] if argument.is_Rational else argument.atoms(sympy.Rational)
    if any(max(_digits(r.p), _digits(r.q)) > MAX_SQRT_DIGITS for r in numbers):
        raise parser.fail(f"sqrt(...) of a number with more than {MAX_SQRT_DIGITS} digits is "
                          "refused (sympy's exact square roots of such numbers are slow)",
                          allowed=False)
    if argument.is_negative:
        raise parser.fail("sqrt(...) of a negative number is not a real rate", allowed=False)
    return sympy.sqrt(argument)


def _rational(parser: _Parser, arguments: list[sympy.Expr]) -> sympy.Expr:
    if not all(a.is_Rational for a in arguments):
        raise parser.fail("Rational(p, q) takes exact numbers p and q")
    numerator = arguments[0]
    denominator = arguments[1] if len(arguments) > 1 else sympy.Integer(1)
    if denominator == 0:
        raise parser.fail("Rational(p, q) with q = 0 divides by zero", allowed=False)
    return parser.check_number(numerator / denominator)


def _exp(parser: _Parser, arguments: list[sympy.Expr]) -> sympy.Expr:
    return sympy.exp(arguments[0])


RATE_FUNCTIONS: dict[str, tuple[int, int, Callable]] = {"sqrt": (1, 1, _sqrt),
                                                        "Rational": (1, 2, _rational)}
FORMULA_FUNCTIONS: dict[str, tuple[int, int, Callable]] = {**RATE_FUNCTIONS, "exp": (1, 1, _exp)}


def parse_expression(text: str, what: str = "expression", *,
                     functions: Mapping[str, tuple[int, int, Callable]] | None = None,
                     variables: Mapping[str, sympy.Expr] | None = None,
                     max_length: int = MAX_LENGTH) -> sympy.Expr:
    """Read a rate expression into an exact sympy expression, without running any code.

    Parameters
    ----------
    text : the expression, e.g. ``"lambda/2"``, ``"3/10"``, ``"2*mu_1 + 1/3"``
    what : what the text is, for error messages (``"arrival rate of class '1'"``)
    functions : the functions allowed (default: ``sqrt`` and ``Rational``)
    variables : names read as given sympy objects instead of positive symbols
    max_length : the longest text read (default :data:`MAX_LENGTH`)

    Returns
    -------
    sympy.Expr
        Built from sympy numbers, positive symbols, ``Add``, ``Mul`` and ``Pow`` only.

    Raises
    ------
    ModelError
        Text outside the grammar of the module docstring, or beyond its limits; the message
        names the offending text and what is allowed.
    TypeError
        ``text`` is not a string.

    Running time: linear in ``len(text)`` plus sympy's cost of building the expression (about
    0.1 s for a rate of the longest length on one core).

    Examples
    --------
    >>> parse_expression("lambda*mu_1 - (mu_2)^2")
    lambda*mu_1 - mu_2**2
    >>> parse_expression("1e5000")
    Traceback (most recent call last):
        ...
    symq.errors.ModelError: expression: cannot read '1e5000': the exponent of '1e5000' at position 0 is beyond 4000: symq reads numbers of at most 4000 digits
    """
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a string, not {type(text).__name__}")
    if len(text) > max_length:
        raise ModelError(f"{what}: the expression has {len(text)} characters; symq reads at most "
                         f"{max_length}")
    if not text.strip():
        raise ModelError(f"{what} is empty; give a symbol name or an exact number such as 3/10")
    check_ascii(text, what)
    parser = _Parser(text, what, RATE_FUNCTIONS if functions is None else functions,
                     variables or {})
    return parser.parse()


def parse_formula(text: str, what: str = "formula") -> sympy.Expr:
    r"""Read a formula as symq prints it (``symq derive`` output) back into sympy.

    The rate grammar plus ``exp(...)``, up to :data:`MAX_FORMULA_LENGTH` characters (reading
    the longest takes seconds); ``theta`` and ``t`` are the transform variable
    :data:`symq.engines.distributions.THETA` and the time :data:`symq.engines.distributions.TIME`.

    Parameters
    ----------
    text : str
        The formula, as ``symq derive`` prints it.
    what : str
        Names it in error messages.

    Returns
    -------
    sympy.Expr
        With ``theta`` and ``t`` as the symbols of :mod:`symq.engines.distributions`.

    Raises
    ------
    ModelError
        As :func:`parse_expression`, or a text longer than :data:`MAX_FORMULA_LENGTH`.

    Examples
    --------
    >>> parse_formula("1 - exp(-t*(mu - lambda))")
    1 - exp(-t*(-lambda + mu))

    Running time: O(length of the text) tokens, plus sympy's construction of the expression.
    """
    if isinstance(text, str) and len(text) > MAX_FORMULA_LENGTH:
        raise ModelError(f"{what}: the formula has {len(text)} characters; symq reads at most "
                         f"{MAX_FORMULA_LENGTH} (pass the sympy expression itself, not its text)")
    return parse_expression(text, what, functions=FORMULA_FUNCTIONS,
                            variables=_FORMULA_VARIABLES, max_length=MAX_FORMULA_LENGTH)


def as_expression(value: object, what: str = "value") -> sympy.Expr:
    """``sympy.sympify`` for values that may come from outside: a string is read by
    :func:`parse_formula` (never by ``eval``); other values by ``sympify(strict=True)``, which
    parses no strings.

    Parameters
    ----------
    value : object
        A string, a number or a sympy expression.
    what : str
        Names the value in error messages.

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ModelError
        A string outside the grammar.
    sympy.SympifyError
        A value sympy cannot convert.

    Examples
    --------
    >>> as_expression("lambda/3"), as_expression(2)
    (lambda/3, 2)

    Running time: that of :func:`parse_formula` for a string; of ``sympify`` otherwise.
    """
    if isinstance(value, str):
        return parse_formula(value, what)
    return sympy.sympify(value, strict=True)


def _written(expr: sympy.Expr) -> tuple[str, int]:
    """``(text, precedence)`` of ``expr`` in the rate grammar: 1 a sum, 2 a product, quotient or
    signed term, 3 a power, 4 an atom; :class:`ValueError` for what the grammar cannot write."""
    if expr.is_Integer:
        return (str(expr), 4) if expr >= 0 else (str(expr), 2)
    if expr.is_Rational:
        return f"{expr.p}/{expr.q}", 2
    if expr.is_Symbol:
        return expr.name, 4
    if expr.is_Add:
        parts = []
        for term in expr.as_ordered_terms():
            text, _ = _written(term)
            if not parts:
                parts.append(text)
            elif text.startswith("-"):
                parts.append(" - " + text[1:])
            else:
                parts.append(" + " + text)
        return "".join(parts), 1
    if expr.is_Mul:
        factors = list(expr.as_ordered_factors())
        sign = ""
        if factors and factors[0] == -1:
            sign, factors = "-", factors[1:]
        pieces = []
        for index, factor in enumerate(factors):
            text, precedence = _written(factor)
            if precedence < 3 and not (index == 0 and factor.is_Rational and factor > 0):
                text = f"({text})"
            pieces.append(text)
        return sign + "*".join(pieces), 2
    if expr.is_Pow:
        base, exponent = expr.args
        if not exponent.is_Rational:
            raise ValueError(f"the power {expr} has an exponent that is not a written number")
        text, precedence = _written(base)
        q = int(exponent.q)
        if q & (q - 1):
            raise ValueError(f"the root in {expr} is not a square root (or a square root of one)")
        while q > 1:
            text, precedence, q = f"sqrt({text})", 4, q // 2
        p = int(exponent.p)
        if p == 1:
            return text, precedence
        if precedence < 4:
            text = f"({text})"
        return (f"{text}**{p}" if p > 0 else f"{text}**({p})"), 3
    raise ValueError(f"{type(expr).__name__} ({expr}) is not part of the rate grammar")


def rate_text(expr: sympy.Expr, what: str = "rate") -> str:
    r"""``expr`` as text that :func:`parse_expression` reads back to ``expr`` (the same value,
    checked; sympy may group the factors of roots differently): what
    :meth:`symq.models.model.Model.to_toml` writes. sympy's ``str`` when that reads back the
    same (``lambda_1/2``), else the grammar's own spelling: a root $x^{p/2^k}$ as nested
    ``sqrt`` (sympy prints ``2**(1/4)``, which the grammar does not read; here
    ``sqrt(sqrt(2))``).

    Parameters
    ----------
    expr : sympy.Expr
        A rate.
    what : str
        Names it in the message.

    Returns
    -------
    str

    Raises
    ------
    ModelError
        ``expr`` cannot be written in the grammar (a cube root, ``exp``, a number past
        :data:`MAX_DIGITS`), or what is written does not read back equal.

    Examples
    --------
    >>> rate_text(sympy.Integer(2) ** sympy.Rational(1, 4))
    'sqrt(sqrt(2))'
    >>> rate_text(positive_symbol("lambda") / 2)
    'lambda/2'

    Running time: that of ``str`` and :func:`parse_expression` on the text (linear in its
    length, which is at most :data:`MAX_LENGTH`).
    """
    import sys
    before = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else None
    if before is not None:
        sys.set_int_max_str_digits(0)
    try:
        candidates = [str(expr)]
        written = None
        try:
            candidates.append(_written(expr)[0])
        except (ValueError, RecursionError) as error:
            written = str(error) if isinstance(error, ValueError) else "it is nested too deep"
    finally:
        if before is not None:
            sys.set_int_max_str_digits(before)
    reason = "it does not read back as the same value"
    for text in candidates:
        try:
            back = parse_expression(text, what)
            # sympy may regroup the product of two roots (3**(3/4)*sqrt(2)): equal values pass
            if back == expr or sympy.simplify(back - expr) == 0:
                return text
        except ModelError as error:
            reason = str(error).removeprefix(f"{what}: ")
    reason = written or reason
    raise ModelError(f"{what} {_shown(candidates[0])} cannot be written as a rate symq reads "
                     f"back ({reason}); use whole powers, square roots and numbers of at most "
                     f"{MAX_DIGITS} digits")
