"""Every derivation script runs, its verdict is the one recorded in derivations/README.md, and
every holds / fails as printed / ambiguous row of the audit tables docs/errata-*.md has a
``CHECK`` line of its own in the script it names, with that verdict (a failing one showing its
printed and true values)."""

import contextlib
import io
import re
import runpy
import sys
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "derivations"
VERDICT = re.compile(r"^(VERIFIED|NOT VERIFIED|FAILS AS PRINTED; VERIFIED AFTER CORRECTION: .+)$")
AUDITS = sorted((ROOT / "docs").glob("errata-*.md"))


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


@lru_cache(maxsize=None)
def run(script: str) -> str:
    """The output of ``python derivations/SCRIPT``, run in this process (saves the start-up of a
    new interpreter per script); cached, so the audit rows reuse it."""
    saved_path, saved_argv = list(sys.path), list(sys.argv)
    sys.path.insert(0, str(FOLDER))
    sys.argv = [str(FOLDER / script)]
    output = io.StringIO()
    try:
        with contextlib.redirect_stdout(output):
            runpy.run_path(str(FOLDER / script), run_name="__main__")
    finally:
        sys.path[:], sys.argv[:] = saved_path, saved_argv
    return output.getvalue()


def audit_rows():
    """Every row of the audit tables docs/errata-*.md with a verdict to check (holds, fails as
    printed, ambiguous), read by derivations/_audit_pages.py."""
    sys.path.insert(0, str(FOLDER))
    try:
        import _audit_pages
    finally:
        sys.path.remove(str(FOLDER))
    return _audit_pages, [r for page in AUDITS for r in _audit_pages.page_rows(page.name)
                          if r.checked]


def test_every_script_is_in_the_table():
    assert sorted(recorded_verdicts()) == SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_derivation_verdict(script, monkeypatch):
    monkeypatch.chdir(ROOT)
    last = run(script).strip().splitlines()[-1]
    assert VERDICT.match(last), f"last line is not a verdict: {last!r}"
    assert last == recorded_verdicts()[script]


def test_audit_tables_have_rows():
    _, rows = audit_rows()
    assert {r.page for r in rows} == {p.name for p in AUDITS}
    assert len(rows) > 150


@pytest.mark.parametrize("row", audit_rows()[1], ids=[f"{r.page}:{r.id}" for r in audit_rows()[1]])
def test_audit_row(row, monkeypatch):
    """The row names a script whose own ``CHECK <id>`` line prints the row's verdict (no
    borrowed line, no fallback to the script's overall verdict), and a failing row's line shows
    its printed and true values, which differ."""
    monkeypatch.chdir(ROOT)
    pages, _ = audit_rows()
    assert row.script in SCRIPTS, f"{row.page}: {row.id} names no existing script: {row.script}"
    assert pages.problems([row], {row.script: run(row.script)}) == []
