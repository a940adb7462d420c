r"""Two-queue routing models and their transitions, built from the verbal model.
Poisson arrivals of rate $\lambda$ meet two exponential servers of rates $\mu_1$, $\mu_2$, each with
its own queue; an arrival joins queue 1 if $s(q_1+1)<q_2+1$, queue 2 if $s(q_1+1)>q_2+1$, and
queue 1 with probability $q$ on a tie. With $s=1$ this is JSQ (symmetric for $\mu_1=\mu_2=1$,
$q=\tfrac12$, Adan, Wessels and Zijm [AWZ90]_); with $\mu_1=1$, $\mu_2=s\in\{2,3,\dots\}$ it is SED
(Selen, Adan, Kapodistria and van Leeuwaarden [SAKL16]_, §2). Nothing here uses the compensation
approach: :func:`transitions` is the Markov chain of the verbal model, against which every other
part of :mod:`symq.studies.compensation` is checked. See docs/theory-compensation.md (intro, §1, §4.1).

References
----------
.. [AWZ90] I. J. B. F. Adan, J. Wessels and W. H. M. Zijm, "Analysis of the symmetric shortest queue
   problem", Stochastic Models 6 (1990) 691-713. doi:10.1080/15326349908807169
.. [SAKL16] J. Selen, I. J. B. F. Adan, S. Kapodistria and J. S. H. van Leeuwaarden, "Steady-state
   analysis of shortest expected delay routing", Queueing Systems 84 (2016) 309-354.
   doi:10.1007/s11134-016-9497-6
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from symq.errors import ModelError, UnstableModelError
from symq.models.rates import parse_value
from symq.display import Displayed, Math, QuantityResult

__all__ = ["RoutingModel", "symmetric_jsq", "asymmetric_jsq", "sed", "exact_fraction",
           "transitions", "incoming", "region", "balance_equations", "POLICIES"]

POLICIES = ("jsq", "asymmetric", "sed")


def exact_fraction(value: Any, what: str) -> Fraction:
    """An exact rational from ``"9/10"``, ``"0.9"`` (read as 9/10), an int or a Fraction.

    Parameters
    ----------
    value : str, int, Fraction or sympy.Rational
        The number.
    what : str
        Its name, for the error message.

    Returns
    -------
    Fraction
        The exact value.

    Raises
    ------
    ModelError
        A float (which is not exact), or a string that is not a number.

    Examples
    --------
    >>> exact_fraction("0.9", "rho")
    Fraction(9, 10)
    >>> exact_fraction("9/10", "rho")
    Fraction(9, 10)

    Running time: O(d^2) for a number of d digits (the bounded rate parser).
    """
    if isinstance(value, bool):
        raise ModelError(f"{what} is the boolean {value}; give a number such as 9/10")
    if isinstance(value, float):
        raise ModelError(f"{what} is the float {value!r}, which is not exact; "
                         f"pass the string \"{value}\" or a fraction such as \"9/10\"")
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if isinstance(value, sympy.Rational):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, str):
        # the safe rate parser: bounded digits, so "1e999999999" is refused at once
        number = parse_value(value, what)
        if number.is_Rational:
            return Fraction(int(number.p), int(number.q))
    raise ModelError(f"{what}: {value!r} is not an exact number; use a value such as 9/10 or 0.9")


@dataclass(frozen=True)
class RoutingModel(Displayed):
    r"""Two servers, one Poisson stream, routing on the queue lengths $(q_1, q_2)$.

    Parameters
    ----------
    policy : {"jsq", "asymmetric", "sed"}
        The name the model was built under (used in output only).
    arrival_rate : Fraction
        $\lambda > 0$.
    service_rates : tuple of two Fractions
        $(\mu_1, \mu_2)$.
    s : int
        Routing weight: an arrival compares $s(q_1+1)$ with $q_2+1$. JSQ has $s=1$; SED has
        $\mu_1=1$ and $\mu_2=s$.
    tie_probability : Fraction
        $q$, the probability that an arrival in a tie joins queue 1.

    Raises
    ------
    ModelError
        A non-positive rate, $q$ outside $[0, 1]$, $s$ not a positive integer, or an SED model whose
        rates are not $(1, s)$.
    UnstableModelError
        $\lambda \ge \mu_1 + \mu_2$.
    """

    policy: str
    arrival_rate: Fraction
    service_rates: tuple[Fraction, Fraction]
    s: int
    tie_probability: Fraction

    def __post_init__(self) -> None:
        lam = self.arrival_rate
        mu1, mu2 = self.service_rates
        if self.policy not in POLICIES:
            raise ModelError(f"unknown policy {self.policy!r}; use one of {', '.join(POLICIES)}")
        if not isinstance(self.s, int) or isinstance(self.s, bool) or self.s < 1:
            raise ModelError(f"s = {self.s!r} is not a positive integer; give s = 1, 2, 3, ...")
        if lam <= 0:
            raise ModelError(f"arrival rate lambda = {lam} is not positive; give lambda > 0 "
                             f"(or rho > 0)")
        for k, mu in enumerate(self.service_rates, 1):
            if mu <= 0:
                raise ModelError(f"service rate mu_{k} = {mu} is not positive; give mu_{k} > 0")
        if not 0 <= self.tie_probability <= 1:
            raise ModelError(f"tie probability q = {self.tie_probability} is outside [0, 1]; "
                             f"give 0 <= q <= 1")
        if self.s > 1 and (mu1 != 1 or mu2 != self.s):
            raise ModelError(f"SED with s = {self.s} needs service rates (1, {self.s}), "
                             f"not ({mu1}, {mu2})")
        if lam >= mu1 + mu2:
            raise UnstableModelError(
                f"unstable: rho = lambda/(mu_1+mu_2) = {lam / (mu1 + mu2)} >= 1 "
                f"(lambda = {lam}, mu_1 + mu_2 = {mu1 + mu2}); give rho < 1")
        load = lam / (mu1 + mu2)
        if load < MIN_LOAD or 1 - load < MIN_LOAD_GAP:
            raise ModelError(
                f"rho = lambda/(mu_1+mu_2) is within {'1e-12 of 0' if load < MIN_LOAD else '1e-30 of 1'}; "
                "the compensation solver takes 1e-12 <= rho <= 1 - 1e-30 (its box size and "
                "level count come from floating-point logarithms of rho and 1 - rho)")
        if self.s > MAX_SPEED:
            raise ModelError(f"s = {self.s} is larger than {MAX_SPEED}; the solver takes "
                             f"1 <= s <= {MAX_SPEED} (its box has s N0^2 states)")

    @property
    def load(self) -> Fraction:
        r"""$\rho = \lambda/(\mu_1+\mu_2)$."""
        return self.arrival_rate / (self.service_rates[0] + self.service_rates[1])

    @property
    def total_rate(self) -> Fraction:
        r"""$\sigma = \lambda+\mu_1+\mu_2$."""
        return self.arrival_rate + self.service_rates[0] + self.service_rates[1]

    def _display(self) -> tuple[str, list]:
        """A table of the exact parameters, for Jupyter (:class:`symq.display.Displayed`)."""
        names = {"lambda": "\\lambda", "mu_1": "\\mu_1", "mu_2": "\\mu_2", "s": "s", "q": "q",
                 "rho": "\\rho"}
        rows = [(Math(names[k]), Math(sympy.latex(sympy.Rational(v))))
                for k, v in self.parameters().items()]
        return f"two-queue routing: {self.policy}", [(None, rows)]

    def parameters(self) -> dict[str, str]:
        """The exact parameters as strings, for output."""
        return {"lambda": str(self.arrival_rate), "mu_1": str(self.service_rates[0]),
                "mu_2": str(self.service_rates[1]), "s": str(self.s),
                "q": str(self.tie_probability), "rho": str(self.load)}


def symmetric_jsq(rho: Any) -> RoutingModel:
    r"""Symmetric JSQ: two servers of rate 1, arrival rate $2\rho$, ties split equally ([AWZ90]_).

    Parameters
    ----------
    rho : str, int or Fraction
        The load $0<\rho<1$, exact (as :func:`exact_fraction`).

    Returns
    -------
    RoutingModel
        The model (``policy == "jsq"``).

    Raises
    ------
    ModelError
        ``rho`` not an exact positive number (:class:`~symq.errors.UnstableModelError` for
        $\rho\ge1$).

    Examples
    --------
    >>> symmetric_jsq("9/10").arrival_rate
    Fraction(9, 5)

    Running time: O(1).
    """
    rho = exact_fraction(rho, "rho")
    _check_load(rho)
    return RoutingModel("jsq", 2 * rho, (Fraction(1), Fraction(1)), 1, Fraction(1, 2))


def asymmetric_jsq(arrival_rate: Any, mu1: Any, mu2: Any, q: Any = "1/2") -> RoutingModel:
    r"""Asymmetric JSQ: server rates $\mu_1,\mu_2$, ties to queue 1 with probability $q$ (§3).

    Parameters
    ----------
    arrival_rate, mu1, mu2 : str, int or Fraction
        $\lambda$, $\mu_1$, $\mu_2$, exact (as :func:`exact_fraction`).
    q : str, int or Fraction
        Tie probability to queue 1.

    Returns
    -------
    RoutingModel
        The model with ``policy == "asymmetric"`` and routing weight $s=1$ (plain JSQ, with
        its own tie rule).

    Raises
    ------
    ModelError
        A rate or ``q`` that :func:`exact_fraction` refuses (a float, a boolean, text that is
        not a number).

    Examples
    --------
    >>> m = asymmetric_jsq("1/2", 1, 2)
    >>> m.arrival_rate, m.service_rates, m.tie_probability
    (Fraction(1, 2), (Fraction(1, 1), Fraction(2, 1)), Fraction(1, 2))

    Running time: O(1).
    """
    return RoutingModel("asymmetric", exact_fraction(arrival_rate, "lambda"),
                        (exact_fraction(mu1, "mu_1"), exact_fraction(mu2, "mu_2")), 1,
                        exact_fraction(q, "q"))


def sed(s: Any, q: Any, rho: Any) -> RoutingModel:
    r"""SED routing with server rates 1 and $s$, arrival rate $\lambda=\rho(1+s)$ (§4).

    Parameters
    ----------
    s : int
        Speed of server 2, a positive integer.
    q : str, int or Fraction
        Tie probability to queue 1.
    rho : str, int or Fraction
        The load $0<\rho<1$.

    Returns
    -------
    RoutingModel
        The model (``policy == "sed"``).

    Raises
    ------
    ModelError
        ``s`` not a positive integer, a value that is not exact, or $\rho\le0$
        (:class:`~symq.errors.UnstableModelError` for $\rho\ge1$).

    Examples
    --------
    >>> sed(2, "1/2", "1/2").arrival_rate
    Fraction(3, 2)

    Running time: O(1).
    """
    s_int = _positive_integer(s)
    rho = exact_fraction(rho, "rho")
    _check_load(rho)
    return RoutingModel("sed", rho * (1 + s_int), (Fraction(1), Fraction(s_int)), s_int,
                        exact_fraction(q, "q"))


#: the loads the solver takes: MIN_LOAD <= rho <= 1 - MIN_LOAD_GAP (issue 25: the box size and
#: level count use floating-point logarithms of rho and of 1 - rho)
MIN_LOAD = Fraction(1, 10 ** 12)
MIN_LOAD_GAP = Fraction(1, 10 ** 30)
#: the largest SED speed s (the near-origin box has s N0^2 states)
MAX_SPEED = 1000


def _check_load(rho: Fraction) -> None:
    if rho <= 0:
        raise ModelError(f"rho = {rho} is not positive; give 0 < rho < 1")
    if rho >= 1:
        raise UnstableModelError(f"unstable: rho = {rho} >= 1; give 0 < rho < 1")


def _positive_integer(s: Any) -> int:
    if isinstance(s, int) and not isinstance(s, bool):
        value = Fraction(s)
    else:
        value = exact_fraction(s, "s")
    if value.denominator != 1 or value < 1:
        raise ModelError(f"s = {s} is not a positive integer; give s = 1, 2, 3, ...")
    if value > MAX_SPEED:
        raise ModelError(f"s = {s} is larger than {MAX_SPEED}; the solver takes 1 <= s <= "
                         f"{MAX_SPEED} (its box has s N0^2 states)")
    return int(value)


# ---------------------------------------------------------------------------------------------
# The Markov chain of the verbal model
# ---------------------------------------------------------------------------------------------

def region(state: tuple[int, int], s: int) -> str:
    r"""``"upper"`` ($j>q_1$), ``"lower"`` ($j<q_1$) or ``"boundary"`` ($j=q_1$), $j=\lfloor q_2/s\rfloor$.

    In the upper region every arrival joins queue 1, in the lower region queue 2 (§1).

    Parameters
    ----------
    state : tuple of int
        $(q_1, q_2)$.
    s : int
        1 for JSQ, the server-2 speed for SED.

    Returns
    -------
    str
        The region's name.

    Examples
    --------
    >>> region((1, 3), 1), region((2, 2), 1), region((2, 3), 2)
    ('upper', 'boundary', 'lower')

    Running time: O(1).
    """
    q1, q2 = state
    j = q2 // s
    return "upper" if j > q1 else ("lower" if j < q1 else "boundary")


def transitions(state: tuple[int, int], s: int, lam: Any, mu1: Any, mu2: Any, q: Any):
    r"""The transitions out of ``state`` as a list of ``(target, rate)``.

    Read off the verbal model, with nothing from the compensation approach: an arrival compares
    $s(q_1+1)$ with $q_2+1$; server $k$ completes at rate $\mu_k$ when $q_k\ge1$. The rates may be
    numbers or sympy symbols; zero rates (a tie with $q\in\{0,1\}$) are left out when they are
    numbers.

    Parameters
    ----------
    state, s
        The state $(q_1, q_2)$ left and the routing weight $s$, as for :func:`region`.
    lam, mu1, mu2, q
        Arrival rate, service rates and tie probability (numbers or sympy expressions).

    Returns
    -------
    list of (tuple, rate)
        The target states with their rates.

    Examples
    --------
    >>> from fractions import Fraction
    >>> transitions((0, 0), 1, 1, 1, 1, Fraction(1, 2))   # a tie at the origin
    [((1, 0), Fraction(1, 2)), ((0, 1), Fraction(1, 2))]

    Running time: O(1).
    """
    q1, q2 = state
    out = []
    left, right = s * (q1 + 1), q2 + 1
    if left < right:
        out.append(((q1 + 1, q2), lam))
    elif left > right:
        out.append(((q1, q2 + 1), lam))
    else:
        for target, rate in (((q1 + 1, q2), lam * q), ((q1, q2 + 1), lam * (1 - q))):
            if not (isinstance(rate, (int, Fraction)) and rate == 0):
                out.append((target, rate))
    if q1 > 0:
        out.append(((q1 - 1, q2), mu1))
    if q2 > 0:
        out.append(((q1, q2 - 1), mu2))
    return out


def incoming(state: tuple[int, int], s: int, lam: Any, mu1: Any, mu2: Any, q: Any):
    r"""Column ``state`` of the generator: ``[(source, Q(source, state))]``, the diagonal included.

    The global-balance equation at ``state`` is $\sum_y p(y)\,Q(y,x) = 0$ over this list.

    Parameters
    ----------
    state : tuple of int
        $(q_1, q_2)$.
    s, lam, mu1, mu2, q
        As :func:`transitions`.

    Returns
    -------
    list of (tuple, rate)
        The source states with their rates into ``state``; ``state`` itself with minus its
        total outflow.

    Examples
    --------
    >>> from fractions import Fraction
    >>> incoming((0, 0), 1, 1, 1, 1, Fraction(1, 2))
    [((0, 0), Fraction(-1, 1)), ((1, 0), 1), ((0, 1), 1)]

    Running time: O(1) (five calls of :func:`transitions`).
    """
    q1, q2 = state
    result = []
    total = 0
    for target, rate in transitions(state, s, lam, mu1, mu2, q):
        total = total + rate
    result.append((state, -total))
    for source in ((q1 - 1, q2), (q1, q2 - 1), (q1 + 1, q2), (q1, q2 + 1)):
        if source[0] < 0 or source[1] < 0:
            continue
        rate = 0
        for target, r in transitions(source, s, lam, mu1, mu2, q):
            if target == state:
                rate = rate + r
        if not (isinstance(rate, (int, Fraction)) and rate == 0):
            result.append((source, rate))
    return result


def balance_equations(s: int = 1) -> dict[str, sympy.Eq]:
    r"""The global-balance equation of each kind of state, symbolically, in $(q_1, q_2)$.

    Generated from :func:`incoming` with symbolic rates ``lambda``, ``mu_1``, ``mu_2`` and tie
    probability ``q``, at one representative state per kind, and written with relative offsets, e.g.
    the upper interior gives
    $(\lambda+\mu_1+\mu_2)p(q_1,q_2)=\lambda p(q_1-1,q_2)+\mu_1p(q_1+1,q_2)+\mu_2p(q_1,q_2+1)$.
    These are §3.2 (JSQ) and §4.2 (SED) in the original coordinates.

    Parameters
    ----------
    s : int
        1 for JSQ, the server-2 speed for SED (then $\mu_1=1$, $\mu_2=s$ are substituted).

    Returns
    -------
    dict
        Maps a description of the states (``"upper interior"``, ``"boundary r=0"``, ...) to a
        ``sympy.Eq`` whose left side is the outflow.

    Examples
    --------
    >>> eqs = balance_equations(1)
    >>> print(eqs["origin"])
    Eq(lambda*p(q_1, q_2), mu_1*p(q_1 + 1, q_2) + mu_2*p(q_1, q_2 + 1))

    Running time: O(s) representative states, each O(1) sympy operations.
    """
    lam = sympy.Symbol("lambda", positive=True)
    mu1, mu2 = (sympy.Symbol("mu_1", positive=True), sympy.Symbol("mu_2", positive=True))
    if s > 1:
        mu1, mu2 = sympy.Integer(1), sympy.Integer(s)
    q = sympy.Symbol("q", nonnegative=True)
    q1, q2 = sympy.symbols("q_1 q_2", integer=True, nonnegative=True)
    p = sympy.Function("p")
    m = 4  # representative level, far from the vertical boundaries
    reps: dict[str, tuple[int, int]] = {
        "upper interior": (m, s * (m + 3)),
        "lower interior": (m + 3, s * m),
        "upper next to boundary (n=1)": (m, s * (m + 1)),
        "lower next to boundary (n=-1), r=s-1": (m + 1, s * m + s - 1),
        "upper vertical boundary (q_1=0)": (0, s * 4),
        "lower vertical boundary (q_2=0)": (4, 0),
        "origin": (0, 0),
    }
    for r in range(s):
        reps[f"boundary r={r}"] = (m, s * m + r)
    result = {}
    for name, x in reps.items():
        column = incoming(x, s, lam, mu1, mu2, q)
        outflow = sympy.Integer(0)
        inflow = sympy.Integer(0)
        for y, rate in column:
            term = p(q1 + (y[0] - x[0]), q2 + (y[1] - x[1]))
            if y == x:
                outflow = -rate * term
            else:
                inflow += rate * term
        result[name] = sympy.Eq(sympy.expand(outflow), sympy.expand(inflow))
    return QuantityResult(result)  # a dict that Jupyter shows as a table
