r"""One progress display for every long command (``verify``, ``sweep``, ``derive``, ``report``,
``plot``).
One line on stderr, redrawn in place a few times a second from a background thread: the
percentage done, a bar, what the command is doing, the time spent and the time left, and notes
such as the counterexamples a sweep has found::

    verify: 42% [########..........] checking states, 12 s spent, about 17 s left

It is shown only when stderr is a terminal (never in a pipe, a file, a test or CI) and only once
the work has lasted half a second, so short commands print nothing extra; ``--quiet`` turns it
off. A command starts it at once (a line ``working`` with the time spent, while it prepares) and
gives it the total work as soon as it knows it: the work estimate its limits already computed
(:mod:`symq.queries.estimates`: states for ``verify``, derivation and check steps for ``report``,
graphs for ``sweep``), so that the percentage and the time left are those of the whole command.
The time left is the time spent times the work left over the work done. At the end the line is
erased (carriage return, then "erase to end of line"), so the next output starts on a clean line.

Commands and library functions that do long work take a *progress callback*
``progress(done, total)``; :func:`callback` makes one that drives the line, and
:meth:`ProgressBar.part` maps the callback of one part of a command onto its share of the total.

Examples
--------
>>> from symq.progress import callback, progress_bar
>>> show = callback("states", enabled=False)   # what a command gets in a pipe: nothing is drawn
>>> show(5, 10)
>>> with progress_bar(3, "points", enabled=False) as bar:
...     for _ in range(3):
...         bar.update()
>>> bar.done
3
>>> bar.render(now=bar.started + 30)
'points: 100% [####################] 30 s spent'

Running time: constant per update; the line is redrawn at most five times a second.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Callable, TextIO

__all__ = ["ProgressBar", "progress_bar", "callback", "busy", "enabled_on", "duration",
           "CLEAR_LINE"]

#: carriage return and ANSI "erase to end of line": what every redraw starts with and the end
#: writes alone, so that no text of the progress line is left behind
CLEAR_LINE = "\r\x1b[K"
_BAR_WIDTH = 20

Callback = Callable[[int, int], None]


def enabled_on(stream: TextIO | None = None, quiet: bool = False) -> bool:
    """True when a progress line should be drawn on ``stream`` (default stderr): a terminal, not
    ``quiet``.

    Parameters
    ----------
    stream : text stream, optional
        Where the line would go; ``sys.stderr`` by default.
    quiet : bool
        ``--quiet`` was given.

    Returns
    -------
    bool

    Examples
    --------
    >>> import io
    >>> enabled_on(io.StringIO())
    False

    Running time: O(1).
    """
    stream = sys.stderr if stream is None else stream
    if quiet:
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


def duration(seconds: float) -> str:
    """A short duration for the progress line: ``"45 s"``, ``"3 min 20 s"``, ``"2 h 05 min"``.

    Parameters
    ----------
    seconds : float
        At least 0.

    Returns
    -------
    str

    Examples
    --------
    >>> duration(4.6), duration(200), duration(7500)
    ('5 s', '3 min 20 s', '2 h 05 min')

    Running time: O(1).
    """
    seconds = int(round(max(seconds, 0)))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class ProgressBar:
    """The progress line of one command (see the module docstring).

    Parameters
    ----------
    total : int or None
        The total work (states, steps, graphs), if known; ``None``: the line says ``working``
        and the time spent until :meth:`set` gives a total.
    description : str
        What the line is about, e.g. ``"verify"``.
    enabled : bool or None
        Draw the line; ``None`` (default) draws it only when ``stream`` is a terminal.
    stream : text stream or None
        Where to draw (default stderr).
    unit : str
        The unit of the work (``"state"``); kept for the callers, not shown.
    delay : float
        Seconds before the line first appears (short work shows nothing).
    interval : float
        Seconds between redraws.

    Attributes
    ----------
    done : float
        Work done so far (also counted when nothing is drawn).
    total : float or None
        The total work.
    stage : str
        What is being done now, shown after the bar.
    notes : str
        Shown at the end of the line (``"2 counterexamples, 0 errors"``).
    started : float
        ``time.monotonic()`` at creation.
    """

    def __init__(self, total: float | None, description: str, *, enabled: bool | None = None,
                 stream: TextIO | None = None, unit: str = "it", delay: float = 0.5,
                 interval: float = 0.2) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled_on(self.stream) if enabled is None else bool(enabled)
        self.description, self.unit = description, unit
        self.total = total
        self.done: float = 0
        self.stage = ""
        self.notes = ""
        self.started = time.monotonic()
        self._first: tuple[float, float] | None = None
        self.delay, self.interval = delay, interval
        self.shown = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="symq-progress", daemon=True)
            self._thread.start()

    # ------------------------------------------------------------------ the work
    def update(self, steps: float = 1) -> None:
        """Advance by ``steps``."""
        self._mark()
        self.done += steps

    def set(self, done: float, total: float | None = None) -> None:
        """Set the work done (and the total, if given): the ``progress(done, total)`` form."""
        if total is not None:
            self.total = total
        self._mark()
        self.done = done

    def _mark(self) -> None:
        """Remember when the counted work began (the first count with a total known, with the
        work done before it), so that the time left comes from the rate of the counted work, not
        from a preparation before it."""
        if self._first is None and self.total:
            self._first = (time.monotonic(), self.done)

    __call__ = set

    def set_stage(self, text: str, total: float | None = None) -> None:
        """Say what the command does now (``"building states"``), and the total if now known."""
        self.stage = text
        if total is not None:
            self.total = total

    def note(self, text: str) -> None:
        """Show ``text`` at the end of the line (e.g. the counterexamples found so far)."""
        self.notes = text

    def part(self, start: float, span: float, stage: str | None = None) -> Callback:
        """A ``progress(done, total)`` callback for one part of the command: it moves the line
        from ``start`` to ``start + span`` of the total work.

        Parameters
        ----------
        start, span : float
            Where the part begins in the total work, and its share.
        stage : str, optional
            Shown while the part runs.

        Returns
        -------
        callable
            ``progress(done, total)`` of the part.

        Examples
        --------
        >>> bar = ProgressBar(100, "report", enabled=False)
        >>> check = bar.part(60, 40, "balance check")
        >>> check(5, 10)
        >>> bar.done, bar.stage
        (80.0, 'balance check')

        Running time: O(1) per call.
        """
        def progress(done: float, total: float) -> None:
            if stage is not None:
                self.stage = stage
            self._mark()
            self.done = start + span * (min(done, total) / total if total else 1.0)
        return progress

    # ------------------------------------------------------------------ the line
    def render(self, now: float | None = None, width: int = 200) -> str:
        """The text of the line at time ``now`` (``time.monotonic()``), at most ``width`` - 1
        characters.

        Examples
        --------
        >>> bar = ProgressBar(None, "derive", enabled=False)
        >>> bar.render(now=bar.started + 75)
        'derive: working, 1 min 15 s spent'
        >>> bar.set(30, 120)
        >>> bar.render(now=bar.started + 10)
        'derive: 25% [#####...............] 10 s spent, about 30 s left'
        """
        now = time.monotonic() if now is None else now
        spent = now - self.started
        stage = f" {self.stage}," if self.stage else ""
        if self.total:
            fraction = min(max(self.done / self.total, 0.0), 1.0)
            filled = int(fraction * _BAR_WIDTH)
            bar = "#" * filled + "." * (_BAR_WIDTH - filled)
            text = f"{self.description}: {int(fraction * 100)}% [{bar}]{stage} " \
                   f"{duration(spent)} spent"
            if 0 < fraction < 1:
                # the rate of the counted work since it began (a preparation before the first
                # count, e.g. building the states, is not work at that rate)
                since, first = self._first if self._first is not None else (self.started, 0)
                rate = (self.done - first) / (now - since) if now > since else 0
                if rate > 0:
                    text += f", about {duration((self.total - self.done) / rate)} left"
        else:
            text = f"{self.description}: working,{stage} {duration(spent)} spent"
        if self.notes:
            text += f"; {self.notes}"
        return text[:max(width - 1, 10)]

    def _width(self) -> int:
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            columns = 0
        return columns if columns > 0 else 100  # a terminal that does not say: assume 100

    def _draw(self) -> None:
        with self._lock:
            if self._stop.is_set():
                return
            try:
                self.stream.write(CLEAR_LINE + self.render(width=self._width()))
                self.stream.flush()
                self.shown = True
            except (OSError, ValueError):  # the terminal went away
                self._stop.set()

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        while not self._stop.is_set():
            self._draw()
            self._stop.wait(self.interval)

    def close(self) -> None:
        """Stop redrawing and erase the line (nothing of it is left behind)."""
        if self._thread is None:
            return
        with self._lock:
            self._stop.set()
            if self.shown:
                try:
                    self.stream.write(CLEAR_LINE)
                    self.stream.flush()
                except (OSError, ValueError):
                    pass
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        self._thread = None

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def progress_bar(total: float | None, description: str, **options) -> ProgressBar:
    """A :class:`ProgressBar`; use it as a context manager so that its line is always erased.

    Parameters
    ----------
    total : int or None
        The total work, ``None`` when not yet known.
    description : str
        Shown in front of the line.
    **options
        Passed to :class:`ProgressBar` (``enabled``, ``stream``, ``unit``, ``delay``).

    Returns
    -------
    ProgressBar

    Examples
    --------
    >>> import io
    >>> with progress_bar(3, "states", stream=io.StringIO()) as bar:
    ...     bar.update(3)

    Running time: O(1) per update; redraws are throttled.
    """
    return ProgressBar(total, description, **options)


def callback(description: str, *, enabled: bool | None = None, quiet: bool = False,
             stream: TextIO | None = None, unit: str = "it") -> Callback:
    """A ``progress(done, total)`` callback that drives one progress line, shown from now on.

    The line starts at once (``working`` and the time spent until the first call gives the
    total), so that it covers the whole command; it is erased when ``done`` reaches ``total`` or
    ``progress.close()`` is called. With ``quiet`` or off a terminal it does nothing, so commands
    can always pass it on. ``progress.bar`` is the :class:`ProgressBar` (``None`` when nothing
    is drawn), for :meth:`ProgressBar.part` and :meth:`ProgressBar.set_stage`.

    Parameters
    ----------
    description : str
        Shown in front of the line.
    enabled : bool, optional
        Force the line on or off; by default it is drawn on a terminal only.
    quiet, stream, unit
        As for :func:`enabled_on` and :class:`ProgressBar`.

    Returns
    -------
    callable
        ``progress(done, total)``, with ``.close()`` and ``.bar``.

    Examples
    --------
    >>> show = callback("points", enabled=False)
    >>> for k in range(1, 4):
    ...     show(k, 3)
    >>> show.bar is None
    True

    Running time: O(1) per call.
    """
    draw = (not quiet) and (enabled_on(stream) if enabled is None else enabled)
    state: dict[str, ProgressBar] = {}
    if draw:
        state["bar"] = ProgressBar(None, description, enabled=True, stream=stream, unit=unit)

    def progress(done: float, total: float) -> None:
        bar = state.get("bar")
        if bar is None:
            return
        bar.set(done, total)
        if total and done >= total:
            close()

    def close() -> None:
        bar = state.pop("bar", None)
        if bar is not None:
            bar.close()

    progress.close = close  # type: ignore[attr-defined]
    progress.bar = state.get("bar")  # type: ignore[attr-defined]
    return progress


class busy:
    """Show ``description: working, <time> spent`` on a terminal while a step of unknown length
    runs (one symbolic derivation: no percentage can be given), from ``delay`` seconds on; the
    line is erased at the end, so the command's output starts on a clean line.

    Parameters
    ----------
    description : str
        Shown in front of the line.
    enabled : bool, optional
        Force the line on or off; by default it is drawn on a terminal only.
    quiet : bool
        ``--quiet`` was given.
    stream : text stream, optional
        Default stderr.
    delay : float
        Seconds before the line appears.

    Examples
    --------
    >>> with busy("derive", enabled=False):
    ...     pass
    """

    def __init__(self, description: str, *, enabled: bool | None = None, quiet: bool = False,
                 stream: TextIO | None = None, delay: float = 0.5) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = (not quiet) and (enabled_on(self.stream) if enabled is None else enabled)
        self.description, self.delay = description, delay
        self.bar: ProgressBar | None = None

    def __enter__(self) -> "busy":
        if self.enabled:
            self.bar = ProgressBar(None, self.description, enabled=True, stream=self.stream,
                                   delay=self.delay)
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
