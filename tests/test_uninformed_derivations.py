"""The Cabral derivation scripts run and print their verdict lines (small n, to stay fast)."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "derivations" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_theorem_derivation_verifies(capsys):
    verdict = _load("cabral_theorem_2_1").main(["--servers", "2"])
    out = capsys.readouterr().out
    assert verdict == "VERIFIED" and out.rstrip().endswith("VERIFIED")
    assert "\\frac{N}{D}" in out


def test_errata_derivation_finds_the_printed_errors(capsys):
    errata = _load("cabral_errata")
    verdict = errata.main(["2"])
    assert verdict.startswith("FAILS AS PRINTED; VERIFIED AFTER CORRECTION:")
    for label in ("E6:", "E8:", "E9:"):
        assert label in verdict
    assert capsys.readouterr().out.rstrip().endswith(verdict)


@pytest.mark.parametrize("n", [2, 3])
def test_errata_checks_can_fail(n):
    """The printed (wrong) forms fail and the corrected ones hold: each check discriminates."""
    errata = _load("cabral_errata")
    from symq.studies.uninformed import uninformed_queue
    queue = uninformed_queue(n)
    assert not errata.check_effective_difference(queue)
    assert errata.check_effective_difference(queue, corrected=True)
    assert not errata.check_final_identity(queue)
    assert errata.check_final_identity(queue, corrected=True)
    assert not errata.check_printed_balance_system(queue)
    assert errata.check_printed_balance_system(queue, corrected=True)
