r"""Partially and per-class aggregated laws ([GR20]_ sections 5 and 6), corrected where needed.
The RAIS busy-order weight $\Phi(B)$ and partial law (Thm 5.1), the ALIS partial law (Thm 5.2,
corrected), the collaborative partial law (Prop 5.5, corrected validity condition), the sum over
idle orders (Cor 5.3), the waiting-time law as a mixture over busy orders (Thm 5.4 read
correctly, with the printed conditional form kept for comparison) and the balance function of
Thm 6.1, in the notation of docs/theory-subset-dp.md. Which function implements which statement,
and the corrections: see docs/theory-subset-dp.md §2.8.

Examples
--------
>>> from sympy import latex
>>> from symq import model
>>> from symq.engines.aggregated import rais_partial_law
>>> print(latex(rais_partial_law(model("n"), ("1",), (2,), normalized=False)))
\frac{\lambda_{1}^{2} \left(\lambda_{1} + \lambda_{2}\right)^{2}}{\mu_{1}^{3} \left(\lambda_{1} + 2 \lambda_{2}\right)}
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Any, Iterable, Sequence

import sympy

from symq.engines.distributions import THETA, TIME, ExponentialMixture
from symq.errors import ModelError
from symq.models.model import Model
from symq.engines.normalization import empty_probability
from symq.engines.set_functions import compatible_arrival_rate, required_arrival_rate, service_rate, slack

__all__ = ["rais_busy_weight", "rais_partial_law", "alis_partial_law", "collaborative_partial_law",
           "idle_order_sum", "busy_order_probability", "canonical_assignment", "printed_conditional_waiting_time",
           "waiting_time_law", "waiting_time_lst", "balance_function", "balance_rates",
           "response_time_law", "response_time_quantity", "response_time_applies"]


def _sum(values: Iterable[Any]) -> sympy.Expr:
    return sympy.Add(*values)


class _Sets:
    """The set functions of :mod:`symq.engines.set_functions` for one model, on frozensets of servers."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.servers = frozenset(model.servers)
        self.sets = {c: frozenset(s) for c, s in model.compatibility.items()}

    def mu(self, x) -> sympy.Expr:
        return service_rate(self.model, x)

    def lam_required(self, x) -> sympy.Expr:
        return required_arrival_rate(self.model, x)

    def r(self, x) -> sympy.Expr:
        return slack(self.model, x)

    def alpha(self, x) -> sympy.Expr:
        return self.lam_required(x) / self.mu(x)

    def arrivals(self, idle) -> sympy.Expr:
        return compatible_arrival_rate(self.model, idle)


def _idle_weight_tilde(sets: _Sets):
    @lru_cache(maxsize=None)
    def tilde(idle: frozenset) -> sympy.Expr:
        # theory-subset-dp §1.2: W~(I) = (1/L(I)) sum_s W~(I \ s)
        if not idle:
            return sympy.Integer(1)
        return sympy.cancel(_sum(tilde(idle - {s}) for s in idle) / sets.arrivals(idle))
    return tilde


def rais_busy_weight(model: Model, busy: Iterable[str]) -> sympy.Expr:
    r"""$\Phi(B)=\prod_j\lambda^a_{b_j}(B_{j-1})=\widetilde W(\mathcal M\setminus B)/\widetilde
    W(\mathcal M)$ (theory-subset-dp §1.2: forced for every valid RAIS routing).

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    busy : iterable of str
        The busy set $B$ (its order does not matter).

    Returns
    -------
    sympy.Expr
        $\Phi(B)$, 1 for the empty set.

    Examples
    --------
    >>> from symq import example_model
    >>> rais_busy_weight(example_model("w"), ["1"])
    4/15

    Running time: O(2^M M) for the idle-order weights (cached per model).
    """
    sets = _Sets(model)
    tilde = _idle_weight_tilde(sets)
    busy = frozenset(busy)
    return sympy.factor(tilde(sets.servers - busy) / tilde(sets.servers))


@lru_cache(maxsize=4096)
def canonical_assignment(model: Model, job_class: str, idle: frozenset) -> dict[str, sympy.Expr]:
    r"""The canonical RAIS routing (theory-subset-dp §1.3): an arriving ``job_class`` job goes to
    the server that would be the longest idle one under ALIS, the idle order $\omega$ of ``idle`` drawn with
    probability $\prod_j L(\omega_1..\omega_j)^{-1}/\widetilde W(I)$ (Thm 3.9's conditional law).
    Enumerates the orders of ``idle`` (small idle sets); the signature fits
    :func:`symq.engines.ctmc.random_assignment_transitions`.

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    job_class : str
        The arriving class.
    idle : frozenset of str
        The idle servers, at least one in $S_c$.

    Returns
    -------
    dict
        ``{idle server of S_c: probability}``, summing to 1.

    Examples
    --------
    >>> from symq import example_model
    >>> canonical_assignment(example_model("w"), "3", frozenset({"1", "2"}))
    {'1': 7/15, '2': 8/15}

    Running time: O(k! k) for k idle servers (cached).
    """
    sets = _Sets(model)
    need = sets.sets[job_class]
    weights: dict[str, sympy.Expr] = {}
    for order in itertools.permutations(sorted(idle)):
        w = sympy.Integer(1)
        prefix: frozenset = frozenset()
        for s in order:
            prefix = prefix | {s}
            w /= sets.arrivals(prefix)
        first = next(s for s in order if s in need)
        weights[first] = weights.get(first, sympy.Integer(0)) + w
    total = _sum(weights.values())
    return {s: sympy.factor(v / total) for s, v in weights.items()}


def _check_vectors(model: Model, busy_order: Sequence[str], queue: Sequence[int]) -> None:
    if len(set(busy_order)) != len(busy_order) or not set(busy_order) <= set(model.servers):
        raise ModelError(f"busy servers {list(busy_order)} must be distinct servers of the model")
    if len(queue) != len(busy_order) or any(int(n) < 0 for n in queue):
        raise ModelError("give one non-negative queue length per busy server")


def rais_partial_law(model: Model, busy_order: Sequence[str], queue: Sequence[int],
                     normalized: bool = True) -> sympy.Expr:
    r"""$\pi^{\rm RAIS}{}'(\vec b,\vec n)=\pi(\emptyset)\,\Phi(B)\prod_j\alpha(B_j)^{n_j}/\mu(B_j)$
    ([GR20]_ Thm 5.1, correct as printed). ``normalized=False`` drops $\pi(\emptyset)$.

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    busy_order : sequence of str
        $\vec b$, the busy servers in the order they became busy.
    queue : sequence of int
        $\vec n$, the jobs waiting behind each busy server.
    normalized : bool
        Multiply by $\pi(\emptyset)$.

    Returns
    -------
    sympy.Expr
        Exact; a rational function for symbolic rates.

    Raises
    ------
    ModelError
        Vectors of different lengths, unknown or repeated servers, negative counts.

    Examples
    --------
    >>> from symq import example_model
    >>> rais_partial_law(example_model("w"), ["1"], [0])
    221/1520

    Running time: O(l J) for l busy servers, plus $\pi(\emptyset)$ by the subset DP.
    """
    _check_vectors(model, busy_order, queue)
    sets = _Sets(model)
    value = rais_busy_weight(model, busy_order)
    prefix: frozenset = frozenset()
    for b, n in zip(busy_order, queue):
        prefix = prefix | {b}
        value *= sets.alpha(prefix)**int(n) / sets.mu(prefix)
    if normalized:
        value *= empty_probability(model, "rais")
    return sympy.factor(value)


def alis_partial_law(model: Model, idle_order: Sequence[str], busy_order: Sequence[str],
                     queue: Sequence[int], normalized: bool = True) -> sympy.Expr:
    r"""Corrected Thm 5.2, theory-subset-dp §2.2:
    $\pi^{\rm ALIS}{}'(\vec s,\vec b,\vec n)=\pi(\emptyset,\emptyset)\prod_j\frac{\mu_{b_j}}{\mu(B_j)}
    \alpha(B_j)^{n_j}\prod_j\frac{\mu_{s_j}}{L(s_1..s_j)}$, $s_1$ idle longest.

    ``normalized=False`` drops the constant $\pi(\emptyset,\emptyset)=1/G_{\rm ALIS}$.

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    idle_order : sequence of str
        $\vec s$, the idle servers, idle longest first.
    busy_order, queue : sequences
        $\vec b$ and $\vec n$ as in :func:`rais_partial_law`.
    normalized : bool
        Multiply by $\pi(\emptyset,\emptyset)$.

    Returns
    -------
    sympy.Expr
        The probability of the partially aggregated state.

    Raises
    ------
    ModelError
        Inconsistent vectors (a server both idle and busy, a missing server, bad counts).

    Examples
    --------
    >>> from symq import example_model
    >>> alis_partial_law(example_model("w"), ["2"], ["1"], [0])
    221/1520

    Running time: O(M J), plus $G_{\rm ALIS}$ by the subset DP when normalized.
    """
    _check_vectors(model, busy_order, queue)
    if set(idle_order) | set(busy_order) != set(model.servers) or \
            len(idle_order) + len(busy_order) != len(model.servers):
        raise ModelError("idle and busy servers must together list every server once")
    sets = _Sets(model)
    rates = model.service_rates
    value = sympy.Integer(1)
    prefix: frozenset = frozenset()
    for b, n in zip(busy_order, queue):
        prefix = prefix | {b}
        value *= rates[b] / sets.mu(prefix) * sets.alpha(prefix)**int(n)
    prefix = frozenset()
    for s in idle_order:
        prefix = prefix | {s}
        value *= rates[s] / sets.arrivals(prefix)
    if normalized:
        from symq.engines.normalization import normalizing_constant
        value /= normalizing_constant(model, "alis")
    return sympy.factor(value)


def idle_order_sum(model: Model, busy_order: Sequence[str], queue: Sequence[int]) -> sympy.Expr:
    r"""$\sum_{\vec s}\pi^{\rm ALIS}{}'(\vec s,\vec b,\vec n)$ over all orders of the idle servers;
    Cor 5.3 says it equals :func:`rais_partial_law` (for every valid RAIS routing).

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    busy_order, queue : sequences
        $\vec b$ and $\vec n$; the idle servers are the others.

    Returns
    -------
    sympy.Expr
        Cancelled.

    Examples
    --------
    >>> from symq import example_model
    >>> idle_order_sum(example_model("w"), ["1"], [0])
    221/1520

    Running time: O(k! M J) for k idle servers.
    """
    idle = [s for s in model.servers if s not in busy_order]
    return sympy.factor(_sum(alis_partial_law(model, order, busy_order, queue)
                             for order in itertools.permutations(idle)))


def collaborative_partial_law(model: Model, classes: Sequence[str], queue: Sequence[int],
                              normalized: bool = True) -> sympy.Expr:
    r"""Prop 5.5: $\pi^C{}'(\vec d,\vec n)=\pi^C(\emptyset)\prod_j\frac{\lambda_{d_j}}{\mu(\vec d_j)}
    \alpha(\vec d_j)^{n_j}$ with $\mu(\vec d_j)=\mu(S(d_1..d_j))$; $d_j$ is the class of the
    $j$-th job in service and $n_j$ the jobs after it that need only $S(d_1..d_j)$.

    The state is valid only if $S_{d_i}\not\subseteq S(d_1..d_{i-1})$ (the printed condition
    "$d_i\notin\vec d_{i-1}$" admits states of probability 0, e.g. $\vec d=(3,1)$ in W); invalid
    states get 0.

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    classes : sequence of str
        $\vec d$, the classes of the jobs in service, oldest first.
    queue : sequence of int
        $\vec n$.
    normalized : bool
        Multiply by $\pi^C(\emptyset)$.

    Returns
    -------
    sympy.Expr
        0 for a state that cannot occur.

    Raises
    ------
    ModelError
        Vectors of different lengths, unknown classes, negative counts.

    Examples
    --------
    >>> from symq import example_model
    >>> collaborative_partial_law(example_model("w"), ["3", "1"], [0, 0])
    0

    Running time: O(l J) for l jobs in service.
    """
    if len(queue) != len(classes):
        raise ModelError("give one non-negative queue length per class in service")
    sets = _Sets(model)
    value = sympy.Integer(1)
    union: frozenset = frozenset()
    for d, n in zip(classes, queue):
        if d not in sets.sets:
            raise ModelError(f"unknown class {d!r}")
        if sets.sets[d] <= union:
            return sympy.Integer(0)
        union = union | sets.sets[d]
        value *= model.arrival_rates[d] / sets.mu(union) * sets.alpha(union)**int(n)
    if normalized:
        value *= empty_probability(model, "collaborative")
    return sympy.factor(value)


# ---------------------------------------------------------------------------- waiting times
def busy_order_probability(model: Model) -> dict[tuple[str, ...], sympy.Expr]:
    r"""$P(\vec b)=\pi(\emptyset)\Phi(B)\prod_j1/r(B_j)$ for every ordered busy vector
    (theory-subset-dp §2.1); the same under ALIS and every valid RAIS. Enumerates the $\sum_l M!/(M-l)!$ vectors: small
    models only.

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates; keep to a few servers (every ordered vector is
        listed).

    Returns
    -------
    dict
        ``{busy order: probability}``, including the empty order (the probabilities sum
        to 1).

    Examples
    --------
    >>> from symq import example_model
    >>> busy_order_probability(example_model("n"))[("1",)]
    12/47

    Running time: O(e M! J) for the e M! ordered vectors.
    """
    sets = _Sets(model)
    tilde = _idle_weight_tilde(sets)
    top = tilde(sets.servers)
    empty = empty_probability(model, "rais")
    out = {}

    def walk(order: tuple[str, ...], busy: frozenset, weight: sympy.Expr) -> None:
        phi = tilde(sets.servers - busy) / top
        out[order] = sympy.factor(empty * phi * weight)
        for s in model.servers:
            if s not in busy:
                walk(order + (s,), busy | {s}, weight / sets.r(busy | {s}))
    walk((), frozenset(), sympy.Integer(1))
    return out


def printed_conditional_waiting_time(model: Model, job_class: str,
                                     busy_order: Sequence[str]) -> ExponentialMixture:
    r"""Thm 5.4 *as printed*: $T_{iQ}\mid\vec b=I(S_i\subseteq B_l)\sum_{j\ge f}\mathrm{Exp}(r(B_j))$,
    $f=\min\{j:S_i\subseteq B_j\}$. False as a conditional law (theory-subset-dp §2.4); true as the
    mixture over $P(\vec b)$, :func:`waiting_time_law`.

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    job_class : str
        The arriving class $i$.
    busy_order : sequence of str
        $\vec b$ seen on arrival.

    Returns
    -------
    ExponentialMixture
        The printed (wrong) conditional law, kept for the audit.

    Examples
    --------
    >>> from symq import example_model
    >>> printed_conditional_waiting_time(example_model("n"), "2", ("1", "2")).mean()
    2/3

    Running time: O(l J) for l busy servers.
    """
    sets = _Sets(model)
    need = sets.sets[job_class]
    rates = []
    prefix: frozenset = frozenset()
    for b in busy_order:
        prefix = prefix | {b}
        if need <= prefix:
            rates.append(sets.r(prefix))
    return ExponentialMixture.hypoexponential(rates)


def waiting_time_law(model: Model, job_class: str) -> ExponentialMixture:
    r"""Queueing time of ``job_class`` under ALIS or any valid RAIS (Thm 5.4 corrected,
    theory-subset-dp §2.4):
    $W_i\sim\sum_{\vec b}P(\vec b)\,\bigl(\sum_{j\ge f}\mathrm{Exp}(r(B_j))\bigr)$.

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates, a few servers (the mixture enumerates busy orders).
    job_class : str
        A class of the model.

    Returns
    -------
    ExponentialMixture
        With an atom at 0 for the jobs that start at once.

    Raises
    ------
    ModelError
        An unknown class.

    Examples
    --------
    >>> from symq import example_model
    >>> waiting_time_law(example_model("n"), "1").mean()
    21/47

    Running time: that of :func:`busy_order_probability`.
    """
    if job_class not in model.compatibility:
        raise ModelError(f"unknown class {job_class!r}; classes: {', '.join(model.classes)}")
    return ExponentialMixture.mixture([(p, printed_conditional_waiting_time(model, job_class, b))
                                       for b, p in busy_order_probability(model).items()])


def waiting_time_lst(model: Model, job_class: str, theta: Any = THETA) -> sympy.Expr:
    r"""$E e^{-\theta W_i}=\sum_B\Phi(B)D^\theta_i(B)/\sum_B\Phi(B)D(B)$ with
    $D^\theta_i(B)=\frac1{r(B)+\theta[S_i\subseteq B]}\sum_{s\in B}D^\theta_i(B\setminus s)$
    (theory-subset-dp §2.4, one DP, no sum over orders).

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    job_class : str
        The tagged class $i$.
    theta : sympy.Expr or number
        The transform variable (the symbol ``theta`` by default).

    Returns
    -------
    sympy.Expr
        A rational function of ``theta``; 1 at ``theta = 0``.

    Examples
    --------
    >>> from symq import example_model
    >>> waiting_time_lst(example_model("n"), "1", 0)
    1

    Running time: O(2^M M) field operations (one DP).
    """
    sets = _Sets(model)
    tilde = _idle_weight_tilde(sets)
    need = sets.sets[job_class]

    @lru_cache(maxsize=None)
    def d(busy: frozenset, with_theta: bool) -> sympy.Expr:
        if not busy:
            return sympy.Integer(1)
        rate = sets.r(busy) + (theta if with_theta and need <= busy else 0)
        return sympy.cancel(_sum(d(busy - {s}, with_theta) for s in busy) / rate)
    subsets = [frozenset(c) for k in range(len(model.servers) + 1)
               for c in itertools.combinations(model.servers, k)]
    num = _sum(tilde(sets.servers - b) * d(b, True) for b in subsets)
    den = _sum(tilde(sets.servers - b) * d(b, False) for b in subsets)
    return sympy.factor(sympy.cancel(num / den))


# ---------------------------------------------------------------------------- section 6
def balance_function(model: Model, counts: dict[str, int]) -> sympy.Expr:
    r"""Thm 6.1: $\Phi(x)=\frac1{\mu(S(x))}\sum_{i:x_i>0}\Phi(x-e_i)$, $\Phi(0)=1$; the per-class
    law is $\pi(x)=\pi(\emptyset)\,\Phi(x)\prod_i\lambda_i^{x_i}$.

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    counts : dict
        $x$, ``{class: number of jobs}``.

    Returns
    -------
    sympy.Expr
        $\Phi(x)$.

    Raises
    ------
    ModelError
        An unknown class or a negative count.

    Examples
    --------
    >>> from symq import example_model
    >>> balance_function(example_model("n"), {"1": 1, "2": 1})
    3/4

    Running time: O(prod (x_i + 1) J) memoized values.
    """
    classes = model.classes
    sets = _Sets(model)
    for c, n in counts.items():
        if c not in sets.sets or int(n) < 0:
            raise ModelError(f"counts: {c!r} must be a class with a non-negative count")

    @lru_cache(maxsize=None)
    def phi(x: tuple[int, ...]) -> sympy.Expr:
        if not any(x):
            return sympy.Integer(1)
        union = frozenset().union(*(sets.sets[c] for c, n in zip(classes, x) if n))
        total = _sum(phi(x[:k] + (x[k] - 1,) + x[k + 1:]) for k in range(len(x)) if x[k])
        return sympy.cancel(total / sets.mu(union))
    return sympy.factor(phi(tuple(int(counts.get(c, 0)) for c in classes)))


def balance_rates(model: Model, counts: dict[str, int]) -> dict[str, sympy.Expr]:
    r"""$\phi_i(x)=\Phi(x-e_i)/\Phi(x)$ for the classes present in $x$ (the balanced-fairness
    rates: $\sum_i\phi_i(x)=\mu(S(x))$ and $\phi_i(x)\phi_j(x-e_i)=\phi_j(x)\phi_i(x-e_j)$).

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    counts : dict
        $x$; classes with no job get no rate.

    Returns
    -------
    dict
        ``{class present: phi_i(x)}``.

    Raises
    ------
    ModelError
        As :func:`balance_function`: a name that is not a class, or a negative number of
        jobs.

    Examples
    --------
    >>> from symq import example_model
    >>> balance_rates(example_model("n"), {"1": 1, "2": 1})
    {'1': 2/3, '2': 4/3}

    Running time: that of :func:`balance_function`, once per class present.
    """
    base = balance_function(model, counts)
    out = {}
    for c, n in counts.items():
        if n:
            fewer = dict(counts)
            fewer[c] = n - 1
            out[c] = sympy.factor(balance_function(model, fewer) / base)
    return out


# ---------------------------------------------------------------------------- response times
def _class_rate(model: Model, job_class: str):
    rates = {model.service_rates[s] for s in model.compatibility[job_class]}
    return rates.pop() if len(rates) == 1 else None


def response_time_applies(model: Model, discipline: str) -> bool:
    r"""Where :func:`response_time_law` has an exact law: nested collaborative models; ALIS/RAIS
    models of at most 6 servers whose classes each see one service rate.

    Parameters
    ----------
    model : Model
        Any model.
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.

    Returns
    -------
    bool

    Examples
    --------
    >>> from symq import model
    >>> response_time_applies(model("ring:3"), "collaborative")
    False

    Running time: O(J M).
    """
    from symq.engines.nested import is_nested
    if discipline == "collaborative":
        return is_nested(model)
    return len(model.servers) <= 6 and all(_class_rate(model, c) is not None
                                           for c in model.classes)


def response_time_law(model: Model, job_class: str,
                      discipline: str = "collaborative") -> ExponentialMixture:
    r"""Per-class response-time law: nested collaborative (Thm 4.5) or, under ALIS/RAIS, the
    waiting-time mixture (theory-subset-dp §2.4) plus the independent $\mathrm{Exp}(\mu)$ service
    of a class whose servers share the rate $\mu$ (Cor 4.8 generalised to any graph).

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates.
    job_class : str
        The class whose response time is wanted.
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.

    Returns
    -------
    ExponentialMixture

    Raises
    ------
    ModelError
        A model or class outside these cases (names the class or the reason).

    Examples
    --------
    >>> from symq import example_model
    >>> response_time_law(example_model("n"), "1", "alis").mean()
    68/47

    Running time: that of :func:`waiting_time_law` (ALIS/RAIS) or of the nesting tree.
    """
    if discipline == "collaborative":
        from symq.engines.nested import collaborative_response_time
        return collaborative_response_time(model, job_class)
    rate = _class_rate(model, job_class)
    if rate is None:
        raise ModelError(f"class {job_class!r}: its servers have different rates, so its wait and "
                         "its server are dependent; only the waiting time (waiting_time_law) is exact")
    return waiting_time_law(model, job_class) + ExponentialMixture.exponential(rate)


def response_time_quantity(model: Model, discipline: str = "collaborative") -> dict[str, Any]:
    r"""The ``response-time`` quantity: per class LST (in ``theta``), mean, variance and CDF (in
    ``t``).

    Parameters
    ----------
    model : Model
        Symbolic or numeric rates where :func:`response_time_applies`.
    discipline : str
        ``collaborative``, ``alis`` or ``rais``.

    Returns
    -------
    dict
        ``{"lst", "mean", "variance", "cdf"}``, each ``{class: expression}``.

    Raises
    ------
    ModelError
        As :func:`response_time_law`.

    Examples
    --------
    >>> from symq import example_model
    >>> response_time_quantity(example_model("n"))["mean"]["2"]
    2/3

    Running time: one :func:`response_time_law` per class, plus sympy's partial fractions.
    """
    laws = {c: response_time_law(model, c, discipline) for c in model.classes}
    return {"lst": {c: sympy.factor(law.lst(THETA)) for c, law in laws.items()},
            "mean": {c: law.mean() for c, law in laws.items()},
            "variance": {c: law.variance() for c, law in laws.items()},
            "cdf": {c: law.cdf(TIME) for c, law in laws.items()}}
