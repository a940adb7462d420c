r"""One progress display for every long command (``verify``, ``sweep``, ``derive``, ``report``,
``plot``).
A bar on stderr with the percentage done, the count, the time spent and the time left, drawn by
`tqdm <https://tqdm.github.io/>`_. It is shown only when stderr is a terminal (never in a pipe, a
file, a test or CI) and only when the work lasts longer than a second, so short commands print
nothing extra; ``--quiet`` turns it off. Commands and library functions that do long work take a
*progress callback* ``progress(done, total)``; :func:`callback` makes one that drives the bar.

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

Running time: constant per update; tqdm redraws at most ten times a second.
"""

from __future__ import annotations

import sys
from typing import Callable, TextIO

__all__ = ["ProgressBar", "progress_bar", "callback", "busy", "enabled_on", "BAR_FORMAT"]

#: percentage, bar, count, elapsed and remaining time, rate
BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]"

Callback = Callable[[int, int], None]


def enabled_on(stream: TextIO | None = None, quiet: bool = False) -> bool:
    """True when a bar should be drawn on ``stream`` (default stderr): a terminal, not ``quiet``.

    Parameters
    ----------
    stream : text stream, optional
        Where the bar would go; ``sys.stderr`` by default.
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


class ProgressBar:
    """A progress bar of ``total`` steps labelled ``description`` (see the module docstring).

    Parameters
    ----------
    total : int or None
        Number of steps, if known (``None``: a counter without percentage).
    description : str
        What is counted, e.g. ``"verify: states"``.
    enabled : bool or None
        Draw the bar; ``None`` (default) draws it only when ``stream`` is a terminal.
    stream : text stream or None
        Where to draw (default stderr).
    unit : str
        The unit shown in the rate, e.g. ``"state"``.
    delay : float
        Seconds before the bar first appears (short work shows nothing).

    Attributes
    ----------
    done : int
        Steps done so far (also counted when nothing is drawn).
    """

    def __init__(self, total: int | None, description: str, *, enabled: bool | None = None,
                 stream: TextIO | None = None, unit: str = "it", delay: float = 1.0) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled_on(self.stream) if enabled is None else bool(enabled)
        self.total = total
        self.done = 0
        self._bar = None
        if self.enabled:
            from tqdm import tqdm
            self._bar = tqdm(total=total, desc=description, file=self.stream, unit=unit,
                             delay=delay, leave=False, dynamic_ncols=True,
                             bar_format=BAR_FORMAT if total else None)

    def update(self, steps: int = 1) -> None:
        """Advance by ``steps``."""
        self.done += steps
        if self._bar is not None:
            self._bar.update(steps)

    def set(self, done: int, total: int | None = None) -> None:
        """Set the count to ``done`` (of ``total``, if it changed): the callback form."""
        if total is not None and total != self.total:
            self.total = total
            if self._bar is not None:
                self._bar.total = total
                self._bar.bar_format = BAR_FORMAT
        step = done - self.done
        if step:
            self.update(step)

    __call__ = set

    def close(self) -> None:
        """Remove the bar from the terminal (it is never left behind)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def progress_bar(total: int | None, description: str, **options) -> ProgressBar:
    """A :class:`ProgressBar`; use it as a context manager so that it is always removed.

    Parameters
    ----------
    total : int or None
        The number of steps, ``None`` when unknown (a counter without a bar).
    description : str
        Shown in front of the bar.
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
    """A ``progress(done, total)`` callback that draws one bar, created at the first call.

    The bar closes itself when ``done`` reaches ``total``. With ``quiet`` or off a terminal it does
    nothing, so commands can always pass it on.

    Parameters
    ----------
    description : str
        Shown in front of the bar.
    enabled : bool, optional
        Force the bar on or off; by default it is drawn on a terminal only.
    quiet, stream, unit
        As for :func:`enabled_on` and :class:`ProgressBar`.

    Returns
    -------
    callable
        ``progress(done, total)``.

    Examples
    --------
    >>> show = callback("points", enabled=False)
    >>> for k in range(1, 4):
    ...     show(k, 3)

    Running time: O(1) per call.
    """
    state: dict[str, ProgressBar] = {}
    draw = (not quiet) and (enabled_on(stream) if enabled is None else enabled)

    def progress(done: int, total: int) -> None:
        if not draw:
            return
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = ProgressBar(total, description, enabled=True, stream=stream,
                                             unit=unit)
        bar.set(done, total)
        if total and done >= total:
            close()

    def close() -> None:
        bar = state.pop("bar", None)
        if bar is not None:
            bar.close()

    progress.close = close  # type: ignore[attr-defined]
    return progress


class busy:
    """Show ``description: working, <elapsed>`` on a terminal while a step of unknown length runs.

    For work that reports no progress (one symbolic derivation): no percentage can be given, so
    the display says only that the command is working and for how long; it appears after
    ``delay`` seconds and is removed at the end.

    Examples
    --------
    >>> with busy("derive", enabled=False):
    ...     pass
    """

    def __init__(self, description: str, *, enabled: bool | None = None, quiet: bool = False,
                 stream: TextIO | None = None, delay: float = 1.0) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = (not quiet) and (enabled_on(self.stream) if enabled is None else enabled)
        self.description, self.delay = description, delay
        self._stop = None
        self._thread = None

    def __enter__(self) -> "busy":
        if not self.enabled:
            return self
        import threading
        from tqdm import tqdm

        self._stop = threading.Event()
        bar = tqdm(total=None, desc=self.description, file=self.stream, delay=self.delay,
                   leave=False, bar_format="{desc}: working, {elapsed} elapsed")

        def tick() -> None:
            while not self._stop.wait(0.5):
                bar.refresh()
            bar.close()

        self._thread = threading.Thread(target=tick, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
