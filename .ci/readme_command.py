"""Print the command of README.md that follows a bold label: the first fenced code block after
the line that starts with ``LABEL`` (for example ``**Run the main job**``). CI runs these
commands as written, so README.md and CI cannot drift apart.

Usage: python3 .ci/readme_command.py '**Run the main job**'   (exit status 1 if not found)
"""

import pathlib
import re
import sys


def readme_command(label: str, text: str) -> str:
    """The fenced block after the first line of ``text`` that starts with ``label``."""
    found = re.search(rf"^{re.escape(label)}.*?\n```[a-z]*\n(.*?)\n```", text, re.S | re.M)
    if not found or not found.group(1).strip():
        raise LookupError(f"README.md has no fenced command after a line starting {label!r}")
    return found.group(1)


if __name__ == "__main__":
    readme = pathlib.Path(__file__).resolve().parent.parent / "README.md"
    try:
        print(readme_command(sys.argv[1], readme.read_text(encoding="utf-8")))
    except (IndexError, LookupError) as error:
        sys.exit(f"readme_command: {error}")
