"""The audit tables docs/errata-*.md: every row with a verdict to check names a CHECK line of its
own (0 without, 0 borrowing), and the counting and the comparison with a script's output catch
what they must (a borrowed line, a missing line, a failing line without printed and true values).

The comparison with the real scripts' output is in tests/test_derivations.py (which runs them);
this file reads the pages only and feeds the checker made-up pages and outputs.
"""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "derivations"))
import _audit_pages as audit

sys.path.remove(str(ROOT / "derivations"))

PAGES = sorted(p.name for p in (ROOT / "docs").glob("errata-*.md"))

HEADER = "| id | where | statement | verdict | script |\n|---|---|---|---|---|\n"


@pytest.mark.parametrize("page", PAGES)
def test_every_row_has_a_check_line_of_its_own(page):
    counts = audit.counts(audit.page_rows(page))
    assert counts["rows"] > 0
    assert (counts["without"], counts["borrowing"]) == (0, 0), counts
    assert counts["own"] == counts["rows"]


@pytest.mark.parametrize("page", PAGES)
def test_headline_counts_match_the_table(page):
    """The bold headline '**N statements checked, F fail as printed**' and the numbers of
    holding, ambiguous and not checkable rows agree with the table."""
    text = (ROOT / "docs" / page).read_text()
    rows = audit.page_rows(page)
    verdicts = [r.verdict for r in rows]
    head = re.search(r"\*\*(\d+) statements checked, (\d+) fails? as printed\*\*", text)
    assert head, page
    assert int(head.group(1)) == len(rows)
    assert int(head.group(2)) == verdicts.count("fails as printed")
    for word, verdict in (("hold", "holds"), ("ambiguous", "ambiguous"),
                          ("not checkable", "not checkable")):
        pattern = r"(\d+)\s+(?:is\s+|are\s+)?" + word.replace(" ", r"\s+") + r"\b"
        found = re.search(pattern, text[head.end():head.end() + 400])
        if verdicts.count(verdict):
            assert found and int(found.group(1)) == verdicts.count(verdict), (page, word)


def test_a_borrowed_line_is_counted_and_reported():
    page = HEADER + ("| A-1 | here | x | holds | `s.py` |\n"
                     "| A-2 | here | y | holds | `s.py` (`A-1`) |\n"
                     "| A-3 | here | z | ambiguous | — |\n"
                     "| A-4 | here | w | not checkable | — |\n")
    rows = audit.rows(page, "made-up.md")
    assert audit.counts(rows) == {"rows": 3, "own": 1, "without": 1, "borrowing": 1}
    found = audit.problems(rows, {"s.py": "CHECK A-1: holds\n"})
    assert "made-up.md: A-2 borrows CHECK A-1" in found
    assert "made-up.md: A-3 has no CHECK line" in found


def test_a_missing_or_different_line_is_reported():
    rows = audit.rows(HEADER + "| B-1 | here | x | holds | `s.py` |\n"
                               "| B-2 | here | y | **fails as printed** | `s.py` |\n", "p.md")
    assert audit.problems(rows, {"s.py": "CHECK B-1: holds\n"}) == [
        "p.md: B-2: s.py prints no CHECK B-2 line"]
    assert audit.problems(rows, {"s.py": "CHECK B-1: fails as printed -- printed: 1; true: 2\n"
                                         "CHECK B-2: holds\n"}) == [
        "p.md: B-1 says holds, s.py prints fails as printed",
        "p.md: B-2 says fails as printed, s.py prints holds"]


def test_a_failing_line_must_show_differing_printed_and_true_values():
    rows = audit.rows(HEADER + "| C-1 | here | x | **fails as printed** | `s.py` |\n", "p.md")
    assert audit.problems(rows, {"s.py": "CHECK C-1: fails as printed -- printed: 1/3; "
                                         "true: 1/2 -- detail\n"}) == []
    assert audit.problems(rows, {"s.py": "CHECK C-1: fails as printed -- 1/3 vs 1/2\n"}) == [
        "p.md: C-1 fails but its line shows no printed and true value"]
    assert audit.problems(rows, {"s.py": "CHECK C-1: fails as printed -- printed: 1/2; "
                                         "true: 1/2\n"}) == ["p.md: C-1 fails but printed = true = 1/2"]


def test_claim_refuses_a_failure_without_values(capsys):
    sys.path.insert(0, str(ROOT / "derivations"))
    try:
        import _verdict
    finally:
        sys.path.remove(str(ROOT / "derivations"))
    with pytest.raises(ValueError, match="printed and true"):
        _verdict.claim("D-1", False, "no numbers")
    assert _verdict.claim("D-2", False, printed="1/3", true="1/2") is False
    assert capsys.readouterr().out == "CHECK D-2: fails as printed -- printed: 1/3; true: 1/2\n"
    assert _verdict.ambiguous("D-3", {"a": True, "b": False}, "a", True) is True
    assert capsys.readouterr().out.startswith("CHECK D-3: ambiguous -- reading a: holds; reading b: fails")
