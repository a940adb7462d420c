"""The progress line (symq.progress) on a real pseudo-terminal: it appears within a second, its
percentage and time left follow the work, it covers the whole command, notes such as a sweep's
counterexamples are shown, and it leaves a clean line: what the terminal shows at the end is the
command's output and nothing of the progress line."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

import pytest

from symq import progress

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def screen(transcript: str) -> list[str]:
    """The lines a terminal shows after ``transcript``: ``\\r`` returns to column 0, ``ESC[K``
    erases to the end of the line, ``\\n`` starts a new line, other characters overwrite."""
    lines, line, col = [], [], 0
    for token in re.findall(r"\x1b\[K|\r\n|.", transcript, re.S):
        if token == "\x1b[K":
            del line[col:]
        elif token == "\r":
            col = 0
        elif token in ("\n", "\r\n"):
            lines.append("".join(line))
            line, col = [], 0
        else:
            if col < len(line):
                line[col] = token
            else:
                line.append(token)
            col += 1
    if line:
        lines.append("".join(line))
    return lines


def test_screen_model_can_see_a_line_left_behind():
    # the checker used below: a line erased with "\r" alone (the old busy line) stays visible
    assert screen("derive: working, 3 s spent\rresult\n") == ["result: working, 3 s spent"]
    assert screen("derive: working, 3 s spent" + progress.CLEAR_LINE + "result\n") == ["result"]


class _Terminal:
    """A pseudo-terminal; ``read`` collects what was written, with the time of each chunk."""

    def __init__(self):
        self.master, slave = pty.openpty()
        # a terminal 120 columns wide, as a user's would be
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.stream = os.fdopen(slave, "w")
        self.chunks: list[tuple[float, str]] = []

    def read(self, wait: float = 0.0) -> str:
        end = time.monotonic() + wait
        while True:
            ready, _, _ = select.select([self.master], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                break
            try:
                data = os.read(self.master, 65536)
            except OSError:
                break
            if not data:
                break
            self.chunks.append((time.monotonic(), data.decode("utf-8", "replace")))
            if time.monotonic() >= end:
                break
        return "".join(text for _, text in self.chunks)

    def close(self):
        self.stream.close()
        os.close(self.master)


@pytest.fixture
def terminal():
    term = _Terminal()
    yield term
    term.close()


def test_line_appears_within_a_second_and_is_erased(terminal):
    start = time.monotonic()
    bar = progress.ProgressBar(None, "verify", stream=terminal.stream)
    assert bar.enabled  # a terminal
    terminal.read(1.0)
    first = min(t for t, text in terminal.chunks if "verify: working" in text)
    assert first - start < 1.0
    bar.set_stage("checking states", total=200)
    bar.set(50)
    text = terminal.read(0.6)
    assert re.search(r"verify: 25% \[#####\.{15}\] checking states, \d+ s spent, about \d+ s "
                     r"left", text)
    bar.close()
    terminal.stream.write("verify: OK\n")
    terminal.stream.flush()
    text = terminal.read(0.3)
    assert text.rstrip("\r\n").endswith(progress.CLEAR_LINE + "verify: OK")
    assert screen(text) == ["verify: OK"]


def test_short_work_prints_nothing(terminal):
    with progress.progress_bar(10, "short", stream=terminal.stream) as bar:
        bar.update(10)
    assert terminal.read(0.3) == ""


def test_time_left_is_spent_times_work_left_over_work_done():
    bar = progress.ProgressBar(400, "sweep", enabled=False)
    bar.set(100)
    line = bar.render(now=bar.started + 60)
    assert line == "sweep: 25% [#####...............] 1 min 00 s spent, about 3 min 00 s left"
    bar.note("2 counterexamples, 0 errors")
    assert bar.render(now=bar.started + 60).endswith("left; 2 counterexamples, 0 errors")
    part = bar.part(200, 200, "balance check")
    part(1, 2)
    assert bar.done == 300 and "75%" in bar.render(now=bar.started + 1)


def test_busy_line_leaves_a_clean_line(terminal):
    with progress.busy("derive mean-number", stream=terminal.stream, delay=0.1):
        time.sleep(0.6)
    terminal.stream.write("L = 3/2\n")
    terminal.stream.flush()
    text = terminal.read(0.3)
    assert "derive mean-number: working" in text
    assert screen(text) == ["L = 3/2"]


def test_sweep_line_shows_the_counterexamples(terminal):
    from symq.studies.sweep.engine import _Progress

    line = _Progress("sweep nested", 4, 0, 0, terminal.stream)
    line.bar.delay = 0
    line.update({"status": "fail"})
    line.update({"status": "pass"})
    terminal.read(0.7)
    text = "".join(t for _, t in terminal.chunks)
    assert re.search(r"sweep nested: 50% .*; 1 counterexamples, 0 errors", text)
    line.update(final=True)
    text = terminal.read(0.3)
    assert screen(text)[-1] == "sweep nested: 2/4 graphs, 1 counterexamples, 0 errors"


def test_verify_command_under_a_terminal(terminal):
    # the whole command on a pseudo-terminal (stdout and stderr both): a progress line that
    # moves from 'working' to percentages, and at the end only the command's output on screen
    command = [sys.executable, "-m", "symq.cli", "verify", "w", "--max-jobs", "7"]
    process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL,
                               stdout=terminal.stream, stderr=terminal.stream)
    deadline = time.monotonic() + 120
    while process.poll() is None and time.monotonic() < deadline:
        terminal.read(0.2)
    terminal.read(0.3)
    assert process.wait(timeout=5) == 0
    text = "".join(t for _, t in terminal.chunks)
    percentages = [int(p) for p in re.findall(r"verify: (\d+)% \[", text)]
    assert percentages and percentages == sorted(percentages), percentages
    assert "verify: working" in text or percentages[0] < 50
    assert "left" in text
    lines = [line for line in screen(text) if line.strip()]
    assert len(lines) == 1 and re.fullmatch(
        r"w \(collaborative\), states with at most 7 jobs: 3280 states, 16399 equations "
        r"\(3280 global, 13119 partial\), 0 nonzero residuals: OK \(\d+\.\d\d s\)", lines[0]), lines


def test_time_left_does_not_count_the_preparation_before_the_first_count():
    bar = progress.ProgressBar(None, "verify", enabled=False)
    bar.started -= 100          # 100 s of preparation (building the process) before any count
    bar.set(0, 100)
    time.sleep(0.2)
    bar.set(50)
    line = bar.render()
    # half the counted work took 0.2 s: the other half takes about as long, not 100 s
    assert re.search(r"50% .* 1 min 4\d s spent, about [0-2] s left$", line), line
