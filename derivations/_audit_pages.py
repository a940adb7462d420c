"""Reading the audit tables ``docs/errata-*.md``: their rows, and who checks each row.

Not a derivation itself (no verdict). A row of an audit table is
``| id | where | statement | verdict | script |``; its verdict is ``holds``, ``**fails as
printed**``, ``ambiguous`` or ``not checkable``. Every row with one of the first three verdicts
must name the script whose ``CHECK <id>`` line computes it: the script cell is ```script.py```
and the line is the row's own id. A script cell ```script.py` (`OTHER`)`` borrows the check
line ``OTHER`` of another statement, and a cell ``—`` has no check at all; both are counted, and
the audit test requires both counts to be 0.

``problems(rows, outputs)`` compares the rows with what the scripts print (``outputs``: script
name -> its output): a missing line, a verdict that differs, a failing row whose line does not
give the printed and the true value, or gives the same value for both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CHECKED = ("holds", "fails as printed", "ambiguous")
VERDICT = re.compile(r"\*{0,2}(holds|fails as printed|ambiguous|not checkable)")
SCRIPT = re.compile(r"`([\w.]+\.py)`(?: \(`?([\w.\-']+)`?\))?")
LINE = re.compile(r"^CHECK (\S+): (holds|fails as printed|ambiguous)\b(.*)$")
PRINTED_TRUE = re.compile(r"printed: (.+?); true: (.+?)(?: -- |$)")


@dataclass(frozen=True)
class Row:
    """One statement of an audit table: its id, verdict, and the script and check line named."""

    page: str
    id: str
    verdict: str
    script: str | None
    tag: str | None

    @property
    def checked(self) -> bool:
        return self.verdict in CHECKED


def rows(text: str, page: str = "") -> list[Row]:
    """Every row of the audit tables in ``text`` (the markdown of one page)."""
    found = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 5:
            continue
        verdict = VERDICT.match(cells[-2])
        if not verdict:
            continue
        script = SCRIPT.match(cells[-1])
        found.append(Row(page, cells[0], verdict.group(1), script.group(1) if script else None,
                         (script.group(2) or cells[0]) if script else None))
    return found


def page_rows(name: str) -> list[Row]:
    """The rows of ``docs/<name>``."""
    return rows((DOCS / name).read_text(), name)


def counts(table: list[Row]) -> dict[str, int]:
    """Of the rows with a verdict to check: how many there are, how many name a check line of
    their own, how many name none, how many borrow another's (name a check line that is not the
    row's own id)."""
    checked = [r for r in table if r.checked]
    without = [r for r in checked if r.script is None]
    borrowing = [r for r in checked if r.script and r.tag != r.id]
    return {"rows": len(checked), "own": len(checked) - len(without) - len(borrowing),
            "without": len(without), "borrowing": len(borrowing)}


def check_lines(output: str) -> dict[str, tuple[str, str]]:
    """tag -> (verdict, rest of the line) of every ``CHECK`` line of a script's output."""
    lines = {}
    for line in output.splitlines():
        m = LINE.match(line)
        if m:
            lines[m.group(1)] = (m.group(2), m.group(3))
    return lines


def problems(table: list[Row], outputs: dict[str, str]) -> list[str]:
    """What is wrong between the rows and the scripts' output; [] when every checked row has
    its own line with its verdict, and every failing line shows differing printed and true
    values."""
    found = []
    c = counts(table)
    if c["without"]:
        found += [f"{r.page}: {r.id} has no CHECK line" for r in table
                  if r.checked and r.script is None]
    if c["borrowing"]:
        found += [f"{r.page}: {r.id} borrows CHECK {r.tag}" for r in table
                  if r.checked and r.script and r.tag != r.id]
    parsed = {s: check_lines(o) for s, o in outputs.items()}
    for r in table:
        if not r.checked or r.script is None:
            continue
        line = parsed.get(r.script, {}).get(r.tag)
        if line is None:
            found.append(f"{r.page}: {r.id}: {r.script} prints no CHECK {r.tag} line")
            continue
        if line[0] != r.verdict:
            found.append(f"{r.page}: {r.id} says {r.verdict}, {r.script} prints {line[0]}")
        if r.verdict == "fails as printed" == line[0]:
            values = PRINTED_TRUE.search(line[1])
            if values is None:
                found.append(f"{r.page}: {r.id} fails but its line shows no printed and true value")
            elif values.group(1).strip() == values.group(2).strip():
                found.append(f"{r.page}: {r.id} fails but printed = true = {values.group(1)}")
    return found


def report(name: str, own_claims: set[str] | None = None, script: str | None = None) -> str:
    """The count line an audit script prints for its page. With ``own_claims`` (the tags the
    calling ``script`` has just printed), a row that names that script but whose tag was not
    printed counts as without."""
    table = page_rows(name)
    c = counts(table)
    if own_claims is not None and script is not None:
        missing = [r for r in table if r.checked and r.script == script and r.tag == r.id
                   and r.tag not in own_claims]
        c["own"] -= len(missing)
        c["without"] += len(missing)
    line = (f"AUDIT {name}: {c['rows']} rows with a verdict to check, {c['own']} with a CHECK "
            f"line of their own, {c['without']} without, {c['borrowing']} borrowing another's")
    print(line)
    return line
