"""Theorem 2.1 of Cabral: sign certificates (n = 2..4), failing searches, and 50-digit checks."""

import json
from fractions import Fraction

import mpmath
import pytest
import sympy
from sympy.polys.fields import field
from hypothesis import example, given, strategies as st

from symq.cli import main
from symq.arithmetic.numeric import decimal_string
from symq.arithmetic.certificates import SignCertificate, check_certificate, find_sign_certificate
from symq.studies.uninformed import (busy_probability, theorem_2_1_certificates, theorem_2_1_differences,
                             uninformed_queue)


def _relation(n):
    plain = uninformed_queue(n)
    return plain, {sympy.Symbol("delta", positive=True): plain.total_rate - plain.arrival_rate}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_certificate_is_found_and_checks_independently(n):
    """Positivity of every coefficient, and the factorization as an identity against P_l summed
    state by state (not the paper's formula the search used)."""
    certificates = theorem_2_1_certificates(n)
    assert len(certificates) == 3 * n * (n - 1)
    plain, relation = _relation(n)
    domain, *_ = field([plain.arrival_rate, *plain.service_rates.values()], sympy.QQ)
    differences = {}
    for cert in certificates:
        assert cert.proved, cert.text()
        if cert.pair not in differences:
            differences[cert.pair] = theorem_2_1_differences(plain, *cert.pair, by_states=True,
                                                             domain=domain)
        assert check_certificate(cert, differences[cert.pair][cert.inequality], relation) == []


@pytest.mark.parametrize("n", [2, 3])
def test_reversed_inequalities_have_no_certificate(n):
    """The search must fail on false claims (every reversed inequality of Theorem 2.1)."""
    certificates = theorem_2_1_certificates(n, reverse=True)
    assert certificates and not any(c.proved for c in certificates)
    assert all("NO CERTIFICATE FOUND" in c.text() for c in certificates)


def test_search_fails_on_mixed_sign_and_on_wrong_factor():
    lam, mu_1, mu_2 = sympy.symbols("lambda mu_1 mu_2", positive=True)
    gens = (lam, mu_1, mu_2)
    mixed = find_sign_certificate((mu_1 - mu_2) * (lam - mu_1) / (mu_1 + lam), mu_1 - mu_2, 1, gens)
    assert not mixed.proved and "coefficient" in mixed.reason
    wrong_factor = find_sign_certificate((mu_1 + mu_2) * lam, mu_1 - mu_2, 1, gens)
    assert not wrong_factor.proved and "does not divide" in wrong_factor.reason
    right = find_sign_certificate((mu_1 - mu_2) * lam / (mu_1 + lam), mu_1 - mu_2, 1, gens)
    assert right.proved
    assert not find_sign_certificate((mu_1 - mu_2) * lam / (mu_1 + lam), mu_1 - mu_2, -1,
                                     gens).proved


def test_checker_rejects_tampered_certificates():
    """check_certificate must report a changed numerator and a negative coefficient."""
    cert = theorem_2_1_certificates(2, pairs=[("1", "2")], claims=["busy"])[0]
    plain, relation = _relation(2)
    original = theorem_2_1_differences(plain, "1", "2", by_states=True)["busy"]
    assert check_certificate(cert, original, relation) == []
    lam = cert.variables[0]
    fields = {k: getattr(cert, k) for k in SignCertificate.__dataclass_fields__}
    changed = SignCertificate(**{**fields, "numerator": cert.numerator + lam ** 2})
    assert any("not an identity" in p for p in check_certificate(changed, original, relation))
    negative = SignCertificate(**{**fields, "numerator": cert.numerator - lam ** 9})
    assert any("non-positive" in p for p in check_certificate(negative, original, relation))
    # a certificate for the wrong difference is not an identity either
    work = theorem_2_1_differences(plain, "1", "2", by_states=True)["work"]
    assert check_certificate(cert, work, relation)


def test_certificate_output_formats():
    cert = theorem_2_1_certificates(2, pairs=[("1", "2")], claims=["work"])[0]
    assert "PROVED" in cert.text() and "\\frac{N}{D}" in cert.latex()
    data = cert.as_json()
    assert data["proved"] and data["numerator_terms"] > 0
    # "lambda" is a Python keyword, so sympy cannot parse it: rename before parsing
    names = {str(v).replace("lambda", "lam"): v for v in cert.variables}
    parsed = sympy.sympify(data["numerator"].replace("lambda", "lam"), locals=names)
    assert parsed == cert.numerator


def test_cli_theorem(capsys):
    assert main(["uninformed", "theorem", "--servers", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "VERIFIED" and len(data["certificates"]) == 18
    assert main(["uninformed", "theorem", "--servers", "2", "--reverse"]) == 1
    assert "NOT VERIFIED" in capsys.readouterr().out
    assert main(["uninformed", "theorem", "--servers", "2", "--format", "latex", "--check"]) == 0
    assert "\\delta" in capsys.readouterr().out
    assert main(["uninformed", "theorem", "--servers", "1"]) == 2


# ------------------------------------------------------------------ 50-digit hypothesis checks
@st.composite
def distinct_rates(draw):
    n = draw(st.integers(2, 5))
    mus = draw(st.lists(st.fractions(min_value=Fraction(1, 10), max_value=10, max_denominator=50),
                        min_size=n, max_size=n, unique=True))
    load = draw(st.fractions(min_value=Fraction(1, 100), max_value=Fraction(99, 100),
                             max_denominator=100))
    return load * sum(mus), mus


@given(distinct_rates())
@example((Fraction(999, 1000) * Fraction(101, 100), [Fraction(1), Fraction(1, 100)]))  # heavy load
def test_theorem_inequalities_at_50_digits(rates):
    """All three inequalities, evaluated from exact values at 50 significant digits."""
    lam, mus = rates
    queue = uninformed_queue(len(mus), arrival_rate=lam, service_rates=mus)
    busy = {j: busy_probability(queue, j) for j in queue.servers}
    with mpmath.workdps(50):
        value = {j: mpmath.mpf(decimal_string(p, 50)) for j, p in busy.items()}
        rate = {j: mpmath.mpf(decimal_string(queue.rate(j), 50)) for j in queue.servers}
        for l in queue.servers:
            for m in queue.servers:
                if queue.rate(l) > queue.rate(m):
                    assert value[l] < value[m]
                    assert rate[l] * value[l] > rate[m] * value[m]
                    assert rate[m] / rate[l] * value[m] < value[l] < value[m]
    for l in queue.servers:  # the exact values agree with the decimals
        for m in queue.servers:
            if queue.rate(l) > queue.rate(m):
                assert busy[l] < busy[m] and queue.rate(l) * busy[l] > queue.rate(m) * busy[m]
