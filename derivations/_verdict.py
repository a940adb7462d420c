"""The verdict line that ends every derivation script, and the per-claim audit lines.

Not a derivation itself (no verdict of its own). ``tests/test_derivations.py`` reads the last
line of each script's output (``finish``) and every ``CHECK <id>: <verdict>`` line (``claim``,
``ambiguous``), and compares them with ``derivations/README.md`` and the audit tables
``docs/errata-*.md``; ``_audit_pages`` counts the rows of those tables that have a ``CHECK`` line
of their own.

The line formats (the test parses them):

* ``CHECK <id>: holds -- <detail>``;
* ``CHECK <id>: fails as printed -- printed: <value>; true: <value> -- <detail>``: a failing claim
  always shows the printed and the true value side by side (``claim`` refuses a failing claim
  without them);
* ``CHECK <id>: ambiguous -- reading <name>: holds; reading <name>: fails; ... -- intended:
  <statement> (holds)``: every natural reading of a garbled or underdetermined statement, each
  with its own verdict, and the most likely intended one.
"""

from __future__ import annotations


def finish(verified: bool, correction: str | None = None, corrected: bool = False) -> str:
    """Print and return the verdict line.

    ``VERIFIED`` when ``verified``; else ``FAILS AS PRINTED; VERIFIED AFTER CORRECTION: ...``
    when a ``correction`` is given and ``corrected`` holds; else ``NOT VERIFIED``.
    """
    if verified:
        line = "VERIFIED"
    elif correction is not None and corrected:
        line = f"FAILS AS PRINTED; VERIFIED AFTER CORRECTION: {correction}"
    else:
        line = "NOT VERIFIED"
    print(line)
    return line


CLAIMS: dict[str, bool] = {}
"""tag -> holds, of the claims printed since the last ``CLAIMS.clear()`` (a script clears it at
the start of its ``main``, as the derivations test runs every script in one process). An
ambiguous claim is stored as whether its intended reading holds."""


def claim(tag: str, holds: bool, detail: str = "", *, printed=None, true=None) -> bool:
    """Print one audit line ``CHECK <tag>: holds`` or ``CHECK <tag>: fails as printed``, with
    the printed and the true value (required when the claim fails) and an optional detail, and
    return ``holds``."""
    holds = bool(holds)
    if not holds and (printed is None or true is None):
        raise ValueError(f"CHECK {tag} fails: give its printed and true values (printed=, true=)")
    CLAIMS[tag] = holds
    text = "holds" if holds else "fails as printed"
    parts = []
    if printed is not None or true is not None:
        parts.append(f"printed: {printed}; true: {true}")
    if detail:
        parts.append(detail)
    print(f"CHECK {tag}: {text}" + "".join(f" -- {p}" for p in parts))
    return holds


def ambiguous(tag: str, readings: dict[str, bool], intended: str, intended_holds: bool,
              detail: str = "") -> bool:
    """Print one audit line ``CHECK <tag>: ambiguous`` with the verdict of every reading tested
    and the most likely intended statement with its own verdict; return that verdict."""
    if len(readings) < 1:
        raise ValueError(f"CHECK {tag} is ambiguous: name the readings tested")
    CLAIMS[tag] = bool(intended_holds)
    tested = "; ".join(f"reading {name}: {'holds' if ok else 'fails'}"
                       for name, ok in readings.items())
    said = f"intended: {intended} ({'holds' if intended_holds else 'fails'})"
    print(f"CHECK {tag}: ambiguous -- {tested} -- {said}" + (f" -- {detail}" if detail else ""))
    return bool(intended_holds)
