"""Documentation is part of the feature: the docs build without warnings, and every example in
README.md and docs/*.md runs (Python blocks are executed; ``$ symq ...`` console lines are run and,
where the page shows their output, the output must match: in full, or where the page elides parts
with ``...``, in the parts shown)."""

import doctest
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.S | re.M)


def blocks(kind):
    for page in PAGES:
        for match in FENCE.finditer(page.read_text()):
            if match.group(1) == kind:
                line = page.read_text()[:match.start()].count("\n") + 1
                yield pytest.param(match.group(2), id=f"{page.name}:{line}")


def toml_files(page):
    """Model files a page defines: a ```toml block with a ``name.toml`` mentioned just before."""
    text = page.read_text()
    files = {}
    for match in FENCE.finditer(text):
        if match.group(1) == "toml":
            names = re.findall(r"[\w.-]+\.toml", text[max(0, match.start() - 300):match.start()])
            if names:
                files[names[-1]] = match.group(2)
    return files


def console_commands():
    """Every ``$ symq ...`` line with the output shown under it; a command shown twice with the
    same output (and the same model files) runs once."""
    seen = set()
    for page in PAGES:
        files = toml_files(page)
        for match in FENCE.finditer(page.read_text()):
            if match.group(1) != "console":
                continue
            line = page.read_text()[:match.start()].count("\n") + 1
            for chunk in re.split(r"^\$ ", match.group(2), flags=re.M)[1:]:
                command, _, expected = chunk.partition("\n")
                key = (command, expected.strip(),
                       tuple(sorted(files.items())) if ".toml" in command else ())
                if command.startswith("symq ") and key not in seen:
                    seen.add(key)
                    yield pytest.param(command, expected, files,
                                       id=f"{page.name}:{line}:{command[:40]}")


@pytest.mark.parametrize("code", list(blocks("python")))
def test_python_examples_run(code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if code.lstrip().startswith(">>>"):  # an interactive session: its output must match too
        import doctest
        test = doctest.DocTestParser().get_doctest(code, {"__name__": "__docs__"}, "docs",
                                                   None, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        runner.run(test)
        assert runner.failures == 0, f"{runner.failures} docs example(s) failed; see output above"
    else:
        exec(compile(code, "<docs example>", "exec"), {"__name__": "__docs__"})


@pytest.mark.parametrize("command,expected,files", list(console_commands()))
def test_console_examples_run(command, expected, files, tmp_path):
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    argv = shlex.split(command, comments=True)
    result = subprocess.run([sys.executable, "-m", "symq.cli", *argv[1:]], capture_output=True,
                            text=True, cwd=tmp_path, timeout=300)
    expects_error = expected.lstrip().startswith("symq: error")
    assert result.returncode == (2 if expects_error else 0), result.stderr
    shown = [line for line in expected.strip().splitlines()]
    if shown and not any("..." in line for line in shown) and not expects_error:
        assert result.stdout.strip().splitlines() == shown
    elif shown and not expects_error:
        assert_shown_parts_match(expected, result.stdout)
    if expects_error:
        assert result.stderr.strip() == expected.strip()


TIMING = re.compile(r"\(\d+(?:\.\d+)? s\)")


def shown_json(expected):
    """The JSON a page shows with its ``...`` elisions removed (and the brackets of a listing cut
    off after ``...`` closed), or None when it is not JSON."""
    text = re.sub(r"^\s*\.\.\.\s*$", "", expected, flags=re.M)
    text = re.sub(r"([{\[,])\s*\.\.\.\s*,", r"\1", text)
    text = re.sub(r",\s*\.\.\.\s*([}\]])", r"\1", text)
    text = re.sub(r"([{\[])\s*\.\.\.\s*([}\]])", r"\1\2", text)
    text = text.rstrip().rstrip(",")
    opened = []
    for token in re.sub(r'"(?:[^"\\]|\\.)*"', '""', text):
        if token in "{[":
            opened.append("}" if token == "{" else "]")
        elif token in "}]" and opened:
            opened.pop()
    text = re.sub(r",(\s*[}\]])", r"\1", text + "".join(reversed(opened)))
    try:
        return json.loads(text)
    except ValueError:
        return None


def _inline(line):
    return ".*?".join(re.escape(piece) for piece in line.split("..."))


def elided_text_regex(shown):
    r"""A regex for shown text with elisions: a line ``...`` stands for any number of lines
    (none included), ``...`` inside a line for any text within that line."""
    tokens = []
    for line in shown.split("\n"):
        gap = line.strip() == "..."
        if not (gap and tokens and tokens[-1] is None):
            tokens.append(None if gap else _inline(line))
    pattern = ""
    for k, token in enumerate(tokens):
        if token is None:
            if k == 0:
                pattern += r"(?:[^\n]*\n)*?"
            elif k == len(tokens) - 1:
                pattern += r"(?:\n[^\n]*)*"
            else:
                pattern += r"\n(?:[^\n]*\n)*?"
        else:
            if k > 0 and tokens[k - 1] is not None:
                pattern += r"\n"
            pattern += token
    return re.compile(pattern)


def _ellipsis_match(want, got):
    return elided_text_regex(want).fullmatch(got) is not None


def assert_json_contains(shown, actual, path="$"):
    """Every key the page shows is in the output with the value shown (``...`` inside a string
    value matches any text)."""
    if isinstance(shown, dict):
        assert isinstance(actual, dict), f"{path}: the page shows an object, the output has {actual!r}"
        for key, value in shown.items():
            assert key in actual, f"{path}: the page shows key {key!r}, the output lacks it"
            assert_json_contains(value, actual[key], f"{path}.{key}")
    elif isinstance(shown, str) and "..." in shown:
        assert isinstance(actual, str) and _ellipsis_match(shown, actual), \
            f"{path}: the page shows {shown!r}, the output has {actual!r}"
    else:
        assert shown == actual, f"{path}: the page shows {shown!r}, the output has {actual!r}"


def assert_shown_parts_match(expected, stdout):
    """Output shown with ``...`` elisions: for JSON, the keys and values shown must be in the
    output; otherwise the shown text must match, a line ``...`` standing for any lines and
    ``...`` inside a line for any text (the shown lines and fragments appear in order, and
    consecutive shown lines are consecutive output lines). Timings like ``(4.4 s)`` are compared
    as ``(... s)``."""
    shown = shown_json(expected)
    if shown is not None:
        try:
            actual = json.loads(stdout)
        except ValueError:
            raise AssertionError(f"the page shows JSON, the output is not JSON:\n{stdout}")
        assert_json_contains(shown, actual)
        return
    want = TIMING.sub("(... s)", expected.strip())
    got = TIMING.sub("(0 s)", stdout.strip())
    assert _ellipsis_match(want, got), f"shown:\n{want}\noutput:\n{got}"


@pytest.mark.parametrize("expected, stdout, ok", [
    ('{ ..., "result": {"exact": "21/65", "value": "0.32..."} }',
     '{"model": "w", "result": {"exact": "21/65", "value": "0.3230"}}', True),
    ('{ ..., "result": {"exact": "21/65"} }', '{"result": {"exact": "22/65"}}', False),
    ('{ ..., "result": {"exact": "21/65"} }', '{"model": "w"}', False),
    ('{\n  "a": 1,\n  ...\n  "c": 3\n}', '{"a": 1, "b": 2, "c": 3}', True),
    ('first\n...\nlast (4.4 s)', 'first\nmiddle\nlast (1.2 s)', True),
    ('first\n...\nlast', 'first\nmiddle\nlats', False),
    ('first\nsecond\n...', 'first\nsecond', True),
    ('first\nsecond\n...', 'first\nsecnd\nthird', False),
    ('lst 1: \\frac{x ...\n...\ncdf 3: y', 'lst 1: \\frac{x + 1}\nmean\ncdf 3: y', True),
    ('lst 1: \\frac{x ...\n...\ncdf 3: y', 'lst 1: \\frac{z + 1}\nmean\ncdf 3: y', False),
    ('{\n  "p": {\n    "0,0": "0.04",\n    ...', '{"p": {"0,0": "0.05", "0,1": "0.1"}}', False),
    ('{\n  "p": {\n    "0,0": "0.04",\n    ...', '{"v": 1, "p": {"0,0": "0.04", "0,1": "0.1"}}',
     True),
    ('a\nb\n...\nd', 'a\nx\nb\nd', False),
    ('...\nb\nc', 'a\nb\nc', True)])
def test_elided_output_comparison_can_fail(expected, stdout, ok):
    if ok:
        assert_shown_parts_match(expected, stdout)
    else:
        with pytest.raises(AssertionError):
            assert_shown_parts_match(expected, stdout)


def test_docs_build_strictly(tmp_path):
    pytest.importorskip("mkdocs")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d",
                             str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                            timeout=300, env={**os.environ, "NO_COLOR": "1"})
    assert result.returncode == 0, result.stdout + result.stderr
