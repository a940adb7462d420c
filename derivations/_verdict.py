"""The verdict line that ends every derivation script, and the per-claim audit lines.

Not a derivation itself (no verdict of its own). ``tests/test_derivations.py`` reads the last
line of each script's output (``finish``) and every ``CHECK <id>: <verdict>`` line (``claim``),
and compares them with ``derivations/README.md`` and the audit tables ``docs/errata-*.md``.
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
the start of its ``main``, as the derivations test runs every script in one process)."""


def claim(tag: str, holds: bool, detail: str = "") -> bool:
    """Print one audit line ``CHECK <tag>: holds`` or ``CHECK <tag>: fails as printed``, with an
    optional detail (the numbers), and return ``holds``."""
    holds = bool(holds)
    CLAIMS[tag] = holds
    text = "holds" if holds else "fails as printed"
    print(f"CHECK {tag}: {text}" + (f" -- {detail}" if detail else ""))
    return holds
