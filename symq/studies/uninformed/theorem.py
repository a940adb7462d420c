r"""Theorem 2.1 of [Cab]_ proved for a given number of servers $n$: for $0<\lambda<\mu^n$ and
$\mu_l > \mu_m$, $\mathcal P_l < \mathcal P_m$, $\mu_l\mathcal P_l > \mu_m\mathcal P_m$ and
$(\mu_m/\mu_l)\mathcal P_m < \mathcal P_l$ (:data:`INEQUALITIES`); each difference is passed to
the general sign-certificate prover of :mod:`symq.arithmetic.certificates` with the factor $\mu_l - \mu_m$
after the substitution $\mu^n = \lambda + \delta$, $\delta > 0$ being exactly the stability
condition.

References
----------
.. [Cab] F. B. Cabral, "Queues with heterogeneous servers and uninformed customers: who works the
   most?" (see ``docs/uninformed.md``).
"""

from __future__ import annotations

from typing import Any, Iterable

from symq.arithmetic.certificates import SignCertificate, find_sign_certificate, to_field
from symq.arithmetic.exact import fraction_field
from symq.studies.uninformed.law import busy_probability, busy_probability_by_states
from symq.studies.uninformed.queue import UninformedQueue, uninformed_queue

__all__ = ["INEQUALITIES", "theorem_2_1_differences", "theorem_2_1_certificates"]


INEQUALITIES = {
    "busy": (r"P_{l} < P_{m}", "P_l < P_m", -1),
    "work": (r"\mu_{l} P_{l} > \mu_{m} P_{m}", "mu_l P_l > mu_m P_m", +1),
    "lower": (r"\frac{\mu_{m}}{\mu_{l}} P_{m} < P_{l}", "(mu_m/mu_l) P_m < P_l", +1),
}
"""Name -> (LaTeX, text, sign of the difference divided by mu_l - mu_m) of Theorem 2.1's claims.

The differences are ``busy``: P_l - P_m; ``work``: mu_l P_l - mu_m P_m; ``lower``:
P_l - (mu_m/mu_l) P_m. The upper bound of the third bullet is ``busy``."""

def _reverse(inequality: str) -> str:
    """The same inequality with its one comparison reversed (``<`` and ``>`` swapped)."""
    return inequality.replace(" < ", " > ") if " < " in inequality else \
        inequality.replace(" > ", " < ")


def _claim(name: str, l: str, m: str, reverse: bool) -> tuple[str, str, int]:
    """Text, LaTeX and sign of claim ``name`` for servers l, m (reversed: the false inequality)."""
    latex, text, sign = INEQUALITIES[name]
    if reverse:
        latex, text, sign = _reverse(latex), _reverse(text), -sign
    text = text.replace("_l", f"_{l}").replace("_m", f"_{m}")
    latex = latex.replace("{l}", f"{{{l}}}").replace("{m}", f"{{{m}}}")
    return text, latex, sign


def theorem_2_1_differences(queue: UninformedQueue, faster: str, slower: str,
                            by_states: bool = False, domain: Any = None) -> dict[str, Any]:
    r"""The three differences of [Cab]_ Theorem 2.1 for servers ``faster`` = $l$ and ``slower`` =
    $m$: ``busy`` $\mathcal P_l - \mathcal P_m$, ``work``
    $\mu_l\mathcal P_l - \mu_m\mathcal P_m$ and ``lower``
    $\mathcal P_l - (\mu_m/\mu_l)\mathcal P_m$ (:data:`INEQUALITIES`).

    Parameters
    ----------
    queue : UninformedQueue
    faster, slower : str
        $l$ and $m$.
    by_states : bool
        Sum the law state by state (:func:`busy_probability_by_states`) instead of the paper's
        formula.
    domain : FracField, optional
        A field of :func:`symq.arithmetic.exact.fraction_field`: return field elements.

    Returns
    -------
    dict
        Claim name to difference.

    Raises
    ------
    ModelError
        An unknown server.

    Notes
    -----
    Running time: two busy probabilities.

    Examples
    --------
    >>> q = uninformed_queue(3, arrival_rate=2, service_rates=[3, 2, 1])
    >>> theorem_2_1_differences(q, "1", "2")
    {'busy': -2/29, 'work': 4/29, 'lower': 4/87}
    """
    prob = busy_probability_by_states if by_states else busy_probability
    p_l, p_m = prob(queue, faster), prob(queue, slower)
    mu_l, mu_m = queue.rate(faster), queue.rate(slower)
    if domain is not None:
        p_l, p_m, mu_l, mu_m = (to_field(e, domain) for e in (p_l, p_m, mu_l, mu_m))
    return {"busy": p_l - p_m, "work": mu_l * p_l - mu_m * p_m, "lower": p_l - mu_m / mu_l * p_m}




def theorem_2_1_certificates(servers: int, pairs: Iterable[tuple[str, str]] | None = None,
                             claims: Iterable[str] = tuple(INEQUALITIES),
                             reverse: bool = False) -> list[SignCertificate]:
    r"""Sign certificates of [Cab]_ Theorem 2.1 for $n$ = ``servers``, with
    $\mu^n = \lambda + \delta$.

    For every ordered pair $(l, m)$, $l \ne m$ (or the given ``pairs``), each difference of
    :func:`theorem_2_1_differences` is passed to :func:`symq.arithmetic.certificates.find_sign_certificate`
    with the factor $\mu_l - \mu_m$ and the sign of :data:`INEQUALITIES`; $\delta > 0$ is exactly
    the stability condition, so all variables are positive and a certificate proves the claim
    for every stable rate vector.

    Parameters
    ----------
    servers : int
        $n$.
    pairs : iterable of (str, str), optional
        The ordered pairs $(l, m)$ (default all).
    claims : iterable of str
        Keys of :data:`INEQUALITIES`.
    reverse : bool
        Search certificates for the *reversed* inequalities (all false): every search must then
        fail, which shows the search can fail.

    Returns
    -------
    list of SignCertificate

    Raises
    ------
    ModelError
        ``servers < 1``.

    Notes
    -----
    Running time: $n$ busy probabilities in a field of $n+2$ variables, then one division and
    one gcd per certificate; $n = 5$ takes seconds, $n = 6$ minutes.

    Examples
    --------
    >>> certs = theorem_2_1_certificates(2)
    >>> len(certs), all(c.proved for c in certs)
    (6, True)
    >>> any(c.proved for c in theorem_2_1_certificates(2, reverse=True))
    False
    """
    symbolic = uninformed_queue(servers).with_slack("delta")
    lam, delta = symbolic.arrival_rate, symbolic.slack
    variables = (lam, delta, *symbolic.service_rates.values())
    substitution = r"mu^n = lambda + delta, delta > 0"
    if pairs is None:
        pairs = [(l, m) for l in symbolic.servers for m in symbolic.servers if l != m]
    # each P_l once, as an element of the fraction field: differences are then cheap
    domain = fraction_field(variables)
    busy = {j: to_field(busy_probability(symbolic, j), domain) for j in symbolic.servers}
    rate = {j: to_field(symbolic.rate(j), domain) for j in symbolic.servers}
    certificates = []
    for l, m in pairs:
        differences = {"busy": busy[l] - busy[m], "work": rate[l] * busy[l] - rate[m] * busy[m],
                       "lower": busy[l] - rate[m] / rate[l] * busy[m]}
        factor = symbolic.rate(l) - symbolic.rate(m)
        for name in claims:
            text, latex, sign = _claim(name, l, m, reverse)
            certificates.append(find_sign_certificate(
                differences[name], factor, sign, variables, claim=f"n={servers}: {text}",
                claim_latex=latex, substitution=substitution, inequality=name, pair=(l, m)))
    return certificates
