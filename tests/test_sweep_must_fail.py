"""The balance and numeric Theorem 2.1 sweep checks fail on deliberately wrong input.

Each test hands the check a wrong law (a product form off by 1 % on the one-factor states; busy
probabilities that break one inequality of Cabral's Theorem 2.1) and requires every graph the
check applies to to fail, with the failure named in the record.
"""

import pytest
import sympy

import symq.engines.normalization
from symq.engines.processes import ALISProcess, CollaborativeQueue, RandomAssignmentProcess
from symq.studies.sweep import InlineExecutor, sweep


@pytest.mark.parametrize("discipline, process_class", [
    ("collaborative", CollaborativeQueue), ("alis", ALISProcess),
    ("rais", RandomAssignmentProcess)])
def test_balance_check_reports_a_wrong_product_form(monkeypatch, discipline, process_class):
    real = process_class.product_form_factors

    def wrong(self, state):
        factors = list(real(self, state))
        if len(factors) == 1:
            factors[-1] = factors[-1] * sympy.Rational(101, 100)
        return factors

    monkeypatch.setattr(process_class, "product_form_factors", wrong)
    summary = sweep("balance", 2, 2, options={"disciplines": (discipline,), "max_jobs": 2},
                    executor=InlineExecutor(), progress=False)
    assert summary.failed == summary.graphs == 5
    for record, sample in summary.counterexamples():
        entry = sample["data"][discipline]
        assert entry["nonzero_residuals"] > 0 and "first_failure" in entry, record["graph"]


def test_balance_check_passes_without_the_injection():
    """The same sweep, unpatched, passes (so the failures above come from the wrong law)."""
    summary = sweep("balance", 2, 2, options={"disciplines": ("rais",), "max_jobs": 2},
                    executor=InlineExecutor(), progress=False)
    assert summary.ok and summary.passed == summary.graphs == 5


def _patch_busy(monkeypatch, change):
    """Replace the RAIS busy probabilities the numeric Theorem 2.1 check reads."""
    real = symq.engines.normalization.server_idle_probability

    def patched(model, discipline="collaborative", *args, **kwargs):
        idle = real(model, discipline, *args, **kwargs)["per_server"]
        busy = change(model, {s: 1 - idle[s] for s in idle})
        return {"per_server": {s: 1 - busy[s] for s in busy}}
    monkeypatch.setattr(symq.engines.normalization, "server_idle_probability", patched)


def _numeric_theorem_2_1_records():
    summary = sweep("theorem-2.1", 1, 3, rates="random:2", executor=InlineExecutor(),
                    progress=False)
    applied = [r for r in summary.records if r["status"] != "skip"]
    assert {r["graph"] for r in applied} == {"{1,2}", "{1,2,3}"}
    return summary, applied


def _distinct_rates(sample):
    return len(set(sample["data"]["busy_probability"])) > 1


def test_theorem_2_1_numeric_check_reports_a_fast_server_busy_more(monkeypatch):
    """Busy probabilities reversed in server order: a faster server is busy more often."""
    def reverse(model, busy):
        order = sorted(busy, key=lambda s: model.service_rates[s])
        return {s: busy[t] for s, t in zip(order, reversed(order))}
    _patch_busy(monkeypatch, reverse)
    summary, applied = _numeric_theorem_2_1_records()
    assert summary.failed == len(applied) == 2
    for record in applied:
        for sample in record["samples"]:
            assert any(v.startswith("P_") for v in sample["data"]["violated"]), record


def test_theorem_2_1_numeric_check_reports_a_fast_server_doing_less_work(monkeypatch):
    """P_j scaled by min mu / mu_j: the order of P_j is kept, the work mu_j P_j is reversed."""
    def less_work(model, busy):
        slowest = min(model.service_rates.values())
        return {s: p * slowest / model.service_rates[s] for s, p in busy.items()}
    _patch_busy(monkeypatch, less_work)
    summary, applied = _numeric_theorem_2_1_records()
    assert summary.failed == len(applied) == 2
    for record in applied:
        for sample in record["samples"]:
            violated = sample["data"]["violated"]
            assert violated and all(v.startswith("mu_") for v in violated), record


def test_theorem_2_1_numeric_check_passes_without_the_injection():
    summary, applied = _numeric_theorem_2_1_records()
    assert summary.ok and summary.passed == len(applied) == 2
