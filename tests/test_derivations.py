"""Every derivation script runs, its verdict is the one recorded in derivations/README.md, and
every "holds" / "fails as printed" row of the audit tables docs/errata-*.md is what its script
prints."""

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
CHECK = re.compile(r"^CHECK (\S+): (holds|fails as printed)\b")
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
    r"""``(page, id, verdict, script)`` of every audit row whose verdict is holds or fails: the
    rows ``| id | location | statement | verdict ... | `script.py` |``; a script cell
    ``\`script.py\` (\`TAG\`)`` names the script's check line when it differs from the id."""
    rows = []
    for page in AUDITS:
        for line in page.read_text().splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not line.startswith("|") or len(cells) < 5:
                continue
            script = re.fullmatch(r"`([\w.]+\.py)`(?: \(`?([\w.\-']+)`?\))?", cells[-1])
            verdict = re.match(r"\*{0,2}(holds|fails as printed)", cells[-2])
            if script and verdict:
                tag = script.group(2) or cells[0]
                rows.append((page.name, tag, verdict.group(1), script.group(1)))
    return rows


def test_every_script_is_in_the_table():
    assert sorted(recorded_verdicts()) == SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_derivation_verdict(script, monkeypatch):
    monkeypatch.chdir(ROOT)
    last = run(script).strip().splitlines()[-1]
    assert VERDICT.match(last), f"last line is not a verdict: {last!r}"
    assert last == recorded_verdicts()[script]


def test_audit_tables_have_rows():
    rows = audit_rows()
    assert {page for page, *_ in rows} == {p.name for p in AUDITS}
    assert len(rows) > 100


@pytest.mark.parametrize("page, tag, verdict, script", audit_rows(),
                         ids=[f"{p}:{t}" for p, t, *_ in audit_rows()])
def test_audit_row(page, tag, verdict, script, monkeypatch):
    """The row's verdict is the script's ``CHECK <tag>`` line; a row without such a line takes
    the script's overall verdict (holds: VERIFIED, fails: FAILS AS PRINTED)."""
    monkeypatch.chdir(ROOT)
    assert script in SCRIPTS, f"{page}: {tag} names a script that does not exist: {script}"
    output = run(script)
    checks = {m.group(1): m.group(2) for m in map(CHECK.match, output.splitlines()) if m}
    if tag in checks:
        assert checks[tag] == verdict, f"{page}: {tag} says {verdict}, {script} prints {checks[tag]}"
        return
    last = output.strip().splitlines()[-1]
    expected = "VERIFIED" if verdict == "holds" else "FAILS AS PRINTED"
    assert last.startswith(expected), f"{page}: {tag} says {verdict}, {script} ends {last!r}"
