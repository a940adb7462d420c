"""The balance-residual checker: it proves the right product forms and it can fail.

Each wrong input below must make the verifier report ``ok: false`` and name a failing state:
a product form with one factor changed, ALIS with the idle order reversed, and RAIS routings that
break the assignment condition (docs/theory-subset-dp.md §1.1 and §1.4).
"""

import pytest
import sympy

import symq
from symq.engines import balance
from symq.engines.balance import BalanceReport, balance_residuals, build_process, verify
from symq.errors import ModelError, VerificationError
from symq.models.model import Model
from symq.engines.processes import (ALISProcess, CollaborativeQueue, RandomAssignmentProcess,
                            assignment_condition_violation, canonical_routing,
                            check_assignment_condition, uniform_routing)


class OneFactorChanged(CollaborativeQueue):
    """Thm 3.3 with the last factor lambda_c / mu(S(c_1..c_n)) replaced by lambda_c / mu(S(c_n))."""

    def product_form_factors(self, state):
        factors = super().product_form_factors(state)
        if len(state) >= 2:
            c = state[-1]
            factors[-1] = self.arrival_rates[c] / self._servers_rate(self._servers_of[c])
        return factors


def test_product_form_with_one_factor_changed_fails_and_names_states():
    report = verify(OneFactorChanged(symq.model("w")), max_jobs=3)
    assert not report.ok
    assert "(1)" in report.failing_states()
    failure = report.failures[0]
    assert failure.state == "(1)" and "balance" in failure.equation
    assert sympy.simplify(failure.residual) != 0
    assert report.nonzero_residuals == len(report.failures) > 0


def test_alis_with_reversed_idle_order_fails():
    model = symq.model("w")
    process = ALISProcess(model)
    report = verify(model, "alis", max_jobs=3,
                    law=lambda s: process.product_form((s[0], s[1][::-1])))
    assert not report.ok
    assert "( | 1, 2)" in report.failing_states()
    assert verify(model, "alis", max_jobs=3).ok


@pytest.mark.parametrize("name, state", [("w", "(1_b)"), ("n", "(1_b)")])
def test_rais_with_uniform_routing_fails_where_uniform_breaks_the_condition(name, state):
    report = verify(symq.model(name), "rais", max_jobs=3, routing="uniform")
    assert not report.ok
    assert state in report.failing_states()
    assert any("assignment condition fails" in note for note in report.notes)


def test_routing_that_breaks_the_condition_is_refused_with_the_order():
    model = symq.model("n")
    with pytest.raises(ModelError, match=r"busy-server order \(1, 2\)"):
        RandomAssignmentProcess(model, routing="uniform")
    table = canonical_routing(model)
    table[frozenset()]["2"] = {"1": sympy.Rational(1, 3), "2": sympy.Rational(2, 3)}
    with pytest.raises(ModelError, match="busy-server order"):
        check_assignment_condition(model, table)
    table[frozenset()]["2"] = {"1": sympy.Rational(1, 3), "2": sympy.Rational(1, 3)}
    with pytest.raises(ModelError, match="add up to 2/3, not 1"):
        RandomAssignmentProcess(model, routing=table)
    with pytest.raises(ModelError, match="gives no probabilities"):
        RandomAssignmentProcess(model, routing={})


def test_user_routing_as_callable_is_checked():
    model = symq.model("w").substitute({"lambda_1": "1/5", "lambda_2": "1/5", "lambda_3": "1/4"})

    def half(model, job_class, idle):
        free = [s for s in model.compatibility[job_class] if s in idle]
        return {s: sympy.Rational(1, len(free)) for s in free}
    process = RandomAssignmentProcess(model, routing=half)  # uniform is valid: lambda_1 = lambda_2
    assert process.routing_name == "user-given"
    assert verify(process, max_jobs=3).ok


def test_uniform_is_valid_for_pooled_classes():
    """docs/theory-subset-dp.md §1.4: equal-or-disjoint server sets make uniform valid for all
    rates."""
    assert assignment_condition_violation(symq.model("uninformed:3"),
                                          uniform_routing(symq.model("uninformed:3"))) is None
    assert verify(symq.model("uninformed:3"), "rais", max_jobs=4, routing="uniform").ok
    assert assignment_condition_violation(symq.model("w"), uniform_routing(symq.model("w")))


def test_maxflow_routing_needs_numbers_and_verifies():
    with pytest.raises(ModelError, match="numeric arrival rates"):
        build_process(symq.model("w"), "rais", routing="maxflow")
    ring = symq.model("ring:3").substitute({"lambda_1": "1/3", "lambda_2": "1/2", "lambda_3": "1/4"})
    assert verify(ring, "rais", max_jobs=4, routing="maxflow").ok


def test_numeric_rates_use_rational_arithmetic():
    w = symq.model("w").substitute({"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4",
                                    "mu_1": "1", "mu_2": "4/5"})
    for discipline in ("collaborative", "alis", "rais"):
        assert verify(w, discipline, max_jobs=4).ok
    bad = verify(w, "rais", max_jobs=2, routing="uniform")
    assert not bad.ok and bad.failures[0].residual.is_Rational


def test_flint_and_sympy_polynomial_paths_agree(monkeypatch):
    fast = verify(OneFactorChanged(symq.model("n")), max_jobs=3)
    monkeypatch.setattr(balance, "USE_FLINT", False)
    slow = verify(OneFactorChanged(symq.model("n")), max_jobs=3)
    assert fast.failing_states() == slow.failing_states()
    for a, b in zip(fast.failures, slow.failures):
        assert sympy.simplify(a.residual - b.residual) == 0
    assert verify(symq.model("ring:3"), "alis", max_jobs=3).ok


def test_report_fields_are_those_of_the_interface():
    report = verify(symq.model("n"), "collaborative", max_jobs=2)
    assert isinstance(report, BalanceReport)
    assert list(report.to_dict()) == ["model", "discipline", "max_jobs", "states_checked",
                                      "equations_checked", "nonzero_residuals", "ok", "failures"]
    assert report.states_checked == 7  # (), 2 states of 1 job, 4 of 2 jobs
    assert report.equations_checked == report.global_equations + report.partial_equations
    assert "OK" in str(report)


def test_global_only_and_partial_counts():
    both = verify(symq.model("w"), "alis", max_jobs=3)
    only = verify(symq.model("w"), "alis", max_jobs=3, partial=False)
    assert only.partial_equations == 0 and only.global_equations == both.global_equations


class LeakyALIS(ALISProcess):
    """Forgets the states with two idle servers: a transition then leaves the valid states."""

    def states(self, max_size):
        return [s for s in super().states(max_size) if len(s[1]) < 2]


def test_transition_out_of_the_valid_states_is_a_verification_error():
    with pytest.raises(VerificationError, match="not a valid state"):
        balance_residuals(LeakyALIS(symq.model("w")), 2)


def test_bad_arguments():
    with pytest.raises(TypeError):
        verify(symq.model("n"), max_jobs=2.0)
    with pytest.raises(ModelError, match="max_jobs"):
        verify(symq.model("n"), max_jobs=-1)
    with pytest.raises(ModelError, match="unknown discipline 'fifo'"):
        verify(symq.model("n"), "fifo")
    with pytest.raises(TypeError):
        build_process("n", "alis")


def test_abandonment_and_dbma_verify_symbolically():
    lam = {c: f"lambda_{c}" for c in "12"}
    model = Model(compatibility={"1": ["1"], "2": ["1", "2"]}, arrival_rates=lam,
                  service_rates={"1": "mu_1", "2": "mu_2"},
                  abandonment_rates={"1": "gamma_1", "2": "gamma_2"})
    assert verify(model, "collaborative", max_jobs=3).discipline == "collaborative-abandonment"
    assert verify(model, "collaborative", max_jobs=3).ok
    assert verify(model, "dbma", max_jobs=3, server_buffer=2,
                  server_patience={"1": "nu_1", "2": "nu_2"}).ok


def test_auto_routing_is_uniform_where_uniform_is_valid():
    assert RandomAssignmentProcess(symq.model("uninformed:3"), routing="auto").routing_name == \
        "uniform"
    assert RandomAssignmentProcess(symq.model("w"), routing="auto").routing_name == "canonical"
    equal = symq.model("w").substitute({"lambda_1": "1/5", "lambda_2": "1/5"})
    process = RandomAssignmentProcess(equal, routing="auto")
    assert process.routing_name == "uniform" and verify(process, max_jobs=3).ok
    with pytest.raises(ModelError, match="unknown routing 'random'"):
        RandomAssignmentProcess(equal, routing="random")
