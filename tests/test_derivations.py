"""Every derivation script runs, and its verdict is the one recorded in derivations/README.md."""

import contextlib
import io
import re
import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "derivations"
VERDICT = re.compile(r"^(VERIFIED|NOT VERIFIED|FAILS AS PRINTED; VERIFIED AFTER CORRECTION: .+)$")


def recorded_verdicts() -> dict[str, str]:
    """script name -> verdict, from the table rows ``| result | `script.py` | verdict |``."""
    table = {}
    for line in (FOLDER / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        scripts = [c for c in cells if re.fullmatch(r"`[\w.]+\.py`", c)]
        if line.startswith("|") and scripts:
            table[scripts[0].strip("`")] = cells[-1]
    return table


SCRIPTS = sorted(p.name for p in FOLDER.glob("*.py") if not p.name.startswith("_"))


def test_every_script_is_in_the_table():
    assert sorted(recorded_verdicts()) == SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_derivation_verdict(script, monkeypatch):
    """Run the script as ``python derivations/SCRIPT`` would, in this process (saves the start-up
    of a new interpreter per script)."""
    monkeypatch.syspath_prepend(str(FOLDER))
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "argv", [str(FOLDER / script)])
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        runpy.run_path(str(FOLDER / script), run_name="__main__")
    last = output.getvalue().strip().splitlines()[-1]
    assert VERDICT.match(last), f"last line is not a verdict: {last!r}"
    assert last == recorded_verdicts()[script]
