"""Documentation is part of the feature: the docs build without warnings, and every example in
README.md and docs/*.md runs (Python blocks are executed; ``$ symq ...`` console lines are run and,
where the page shows their output, the output must match)."""

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
    for page in PAGES:
        files = toml_files(page)
        for match in FENCE.finditer(page.read_text()):
            if match.group(1) != "console":
                continue
            line = page.read_text()[:match.start()].count("\n") + 1
            for chunk in re.split(r"^\$ ", match.group(2), flags=re.M)[1:]:
                command, _, expected = chunk.partition("\n")
                if command.startswith("symq "):
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
    if expects_error:
        assert result.stderr.strip() == expected.strip()


def test_docs_build_strictly(tmp_path):
    pytest.importorskip("mkdocs")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d",
                             str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                            timeout=300, env={**os.environ, "NO_COLOR": "1"})
    assert result.returncode == 0, result.stdout + result.stderr
