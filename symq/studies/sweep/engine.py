r"""The sweep engine: it enumerates the compatibility graphs
(:func:`symq.models.graphs.compatibility_graphs`), hands one :class:`GraphTask` per graph to any
:class:`concurrent.futures.Executor` (a local process pool, this process, or the executor of a
Dask ``distributed.Client``: the code path is the same), streams one JSON line per graph to the
results file as graphs finish, resumes from that file (graphs already in it are skipped), shows a
progress line, and totals the records in a :class:`SweepSummary`. What is checked on each graph
is the business of :mod:`symq.studies.sweep.checks` and :mod:`symq.studies.sweep.registry`.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import itertools
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TextIO

from symq.errors import ModelError, SymqError, UnsupportedError
from symq.models.graphs import CompatibilityGraph, check_filters, compatibility_graphs, graph_from_key
from symq.models.model import Model
from symq.display import Displayed
from symq.schema import with_schema_version
from symq.studies.sweep.registry import CHECKS, probe, resolve_check
from symq.studies.sweep.sampling import parse_rates, sample_models
from symq.studies.sweep.verdict import as_verdict, json_ready

__all__ = ["GraphTask", "run_graph", "InlineExecutor", "make_executor", "read_results",
           "SweepSummary", "sweep"]


# ---------------------------------------------------------------------------- one graph
@dataclass(frozen=True)
class GraphTask:
    """Everything a worker needs to check one graph (picklable, small).

    Parameters
    ----------
    check : str
        The check's name (:func:`~symq.studies.sweep.registry.resolve_check`).
    graph : str
        The graph's key (:func:`symq.models.graphs.graph_from_key`).
    rates : str
        ``symbolic``, ``random:N`` or ``light:N``.
    seed : int
        The seed of the random rates.
    options : tuple of (name, value) pairs
        The check options, sorted.
    search_path : tuple of str
        Folders to import user checks from.
    """

    check: str
    graph: str
    rates: str
    seed: int
    options: tuple[tuple[str, Any], ...] = ()
    search_path: tuple[str, ...] = ()


def _rates_of(model: Model) -> dict[str, str]:
    values = {f"lambda_{i}": str(r) for i, r in model.arrival_rates.items()}
    values.update({f"mu_{j}": str(r) for j, r in model.service_rates.items()})
    return values


def run_graph(task: GraphTask) -> dict[str, Any]:
    """Check one graph on each of its sample models; the JSON record of the result.

    Exceptions raised by the check are caught and recorded (``status: "error"``), so that one bad
    graph does not stop a sweep. This is the function the executor runs in a worker.

    Parameters
    ----------
    task : GraphTask

    Returns
    -------
    dict
        ``graph``, ``classes``, ``servers``, ``check``, ``rates``, ``seed``, ``options``,
        ``status`` (``pass``, ``fail``, ``skip`` or ``error``), ``samples`` (per model: ``index``,
        ``status``, ``data``, the rates as ``parameters``, a ``reason``, and the failing model as
        ``toml``), ``error`` and ``seconds``.

    Notes
    -----
    Running time: that of the check on each sample model.

    Examples
    --------
    >>> record = run_graph(GraphTask("nested", "{1,2}", "symbolic", 0))
    >>> record["status"], len(record["samples"])
    ('pass', 1)
    """
    start = time.perf_counter()
    graph = graph_from_key(task.graph)
    record: dict[str, Any] = {"graph": graph.key, "classes": graph.class_count,
                              "servers": graph.server_count, "check": task.check,
                              "rates": task.rates, "seed": task.seed,
                              "options": json_ready(dict(task.options))}
    samples = []
    try:
        check = resolve_check(task.check, task.search_path)
        options = dict(task.options)
        for index, model in enumerate(sample_models(graph, task.rates, task.seed)):
            verdict = as_verdict(check.function(model, options), f"check {task.check!r}")
            sample: dict[str, Any] = {"index": index,
                                      "status": {True: "pass", False: "fail",
                                                 None: "skip"}[verdict.ok],
                                      "data": json_ready(verdict.data)}
            if model.is_numeric:
                sample["parameters"] = _rates_of(model)
            if verdict.reason:
                sample["reason"] = verdict.reason
            if verdict.ok is False:
                sample["toml"] = model.to_toml()
            samples.append(sample)
        statuses = {s["status"] for s in samples}
        record["status"] = ("fail" if "fail" in statuses else
                            "pass" if "pass" in statuses else "skip")
    except (SymqError, ArithmeticError, TypeError, ValueError, KeyError, AssertionError,
            RecursionError) as error:
        record["status"] = "error"
        record["error"] = f"{type(error).__name__}: {error}"
    record["samples"] = samples
    record["seconds"] = round(time.perf_counter() - start, 4)
    return record


# ---------------------------------------------------------------------------- executors
class InlineExecutor(cf.Executor):
    """An executor that runs each task at once in this process (``--workers 0``; for debugging
    and doctests).

    Examples
    --------
    >>> InlineExecutor().submit(sum, [1, 2]).result()
    3
    """

    def submit(self, fn, /, *args, **kwargs):
        future: cf.Future = cf.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:  # noqa: BLE001 - handed to the caller through the future
            future.set_exception(error)
        return future


@contextlib.contextmanager
def make_executor(workers: int | None = None, scheduler: str | None = None
                  ) -> Iterator[cf.Executor]:
    """The executor of a sweep, as a context manager that shuts it down.

    Parameters
    ----------
    workers : int or None
        The size of the local process pool (default: all cores; 0 runs in this process).
    scheduler : str or None
        The address of a Dask scheduler such as ``tcp://10.0.0.5:8786``: the
        :class:`concurrent.futures.Executor` of a ``distributed.Client`` connected to it.

    Yields
    ------
    concurrent.futures.Executor

    Raises
    ------
    UnsupportedError
        ``scheduler`` given but Dask distributed is not installed (``pip install "symq[cluster]"``).
    ModelError
        A negative number of workers, or a scheduler that cannot be reached.

    Examples
    --------
    >>> with make_executor(0) as executor:
    ...     type(executor).__name__
    'InlineExecutor'

    Running time: the start of the worker pool (process spawn or Dask cluster), about a second.
    """
    if scheduler:
        try:
            from distributed import Client
        except ImportError:
            raise UnsupportedError("--scheduler needs Dask distributed: pip install "
                                   "\"symq[cluster]\" (or \"dask[distributed]\")") from None
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as error:
            raise ModelError(f"cannot reach the Dask scheduler {scheduler!r}: {error}") from None
        try:
            yield client.get_executor()
        finally:
            client.close()
        return
    if workers is not None and workers < 0:
        raise ModelError(f"--workers must be 0 or more, not {workers}")
    if workers == 0:
        yield InlineExecutor()
        return
    pool = cf.ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1)
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    else:
        pool.shutdown(wait=True)


# ---------------------------------------------------------------------------- results file
def read_results(path: str | Path) -> list[dict[str, Any]]:
    """The records of a JSON-lines results file; a torn last line (a killed sweep) is dropped.

    Parameters
    ----------
    path : str or Path
        The ``--output`` file; a missing file has no records.

    Returns
    -------
    list of dict
        The records of :func:`run_graph`, in file order.

    Raises
    ------
    ModelError
        A complete line that is not JSON (not a results file of ``symq sweep``).

    Notes
    -----
    Running time: linear in the size of the file.

    Examples
    --------
    >>> read_results("no-such-results.jsonl")
    []
    """
    path = Path(path)
    if not path.exists():
        return []
    records = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.endswith("\n"):
                break  # torn write: the sweep was killed while writing this line
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    raise ModelError(f"{path}:{number} is not a JSON line; give --output a "
                                     "results file of symq sweep or a new file") from None
    return records


def _open_for_append(path: Path) -> TextIO:
    if path.exists():
        data = path.read_bytes()
        cut = data.rfind(b"\n") + 1
        if cut < len(data):  # drop a torn last line before appending
            with path.open("r+b") as handle:
                handle.truncate(cut)
    return path.open("a", encoding="utf-8")


# ---------------------------------------------------------------------------- progress
class _Progress:
    """The sweep's progress: a :mod:`symq.progress` bar on a terminal (percentage, time left,
    counterexamples and errors so far), one summary line at the end on any stream, and the
    ``progress(done, total)`` callback of the caller, if one was given."""

    def __init__(self, label: str, total: int, done: int, found: int, stream: TextIO | None,
                 callback: Callable[[int, int], None] | None = None):
        self.label, self.total, self.done, self.found, self.errors = label, total, done, found, 0
        self.stream = stream
        self.callback = callback
        self.bar = None
        if stream is not None:
            from symq.progress import ProgressBar
            bar = ProgressBar(total, label, stream=stream, unit="graph")
            if bar.enabled:
                self.bar = bar
                bar.set(done)
                bar.note(f"{found} counterexamples, 0 errors")

    def update(self, record: dict[str, Any] | None = None, final: bool = False) -> None:
        if record is not None:
            self.done += 1
            self.found += record["status"] == "fail"
            self.errors += record["status"] == "error"
            if self.callback is not None:
                self.callback(self.done, self.total)
            if self.bar is not None:
                self.bar.note(f"{self.found} counterexamples, {self.errors} errors")
                self.bar.set(self.done)
        if not final or self.stream is None:
            return
        if self.bar is not None:
            self.bar.close()
        self.stream.write(f"{self.label}: {self.done}/{self.total} graphs, {self.found} "
                          f"counterexamples, {self.errors} errors\n")
        self.stream.flush()


# ---------------------------------------------------------------------------- the sweep
@dataclass
class SweepSummary(Displayed):
    """Totals of a sweep (including graphs done by earlier runs on the same output file).

    In a notebook it shows as a table of the totals, the first counterexamples (graph, sample,
    rates) and the first errors.

    Attributes
    ----------
    check, rates : str
        The check and the rates swept.
    graphs : int
        The number of graphs.
    passed, failed, skipped, errors : int
        The graphs by status (``skipped``: the check does not apply).
    resumed : int
        The graphs found in the results file.
    seconds : float
        Wall time of this run.
    records : list of dict
        One record of :func:`run_graph` per graph, in enumeration order.
    """

    check: str
    rates: str
    graphs: int
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    errors: int = 0
    resumed: int = 0
    seconds: float = 0.0
    records: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failed == 0 and self.errors == 0

    def counterexamples(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """``(record, sample)`` for the first failing sample of each failing graph."""
        result = []
        for record in self.records:
            for sample in record.get("samples", []):
                if sample["status"] == "fail":
                    result.append((record, sample))
                    break
        return result

    #: counterexamples and errors shown in a notebook
    SHOWN = 20

    def _display(self) -> tuple[str, list]:
        """Title and table sections for Jupyter (:class:`symq.display.Displayed`)."""
        totals = [("check", self.check), ("rates", self.rates), ("graphs", str(self.graphs)),
                  ("passed", str(self.passed)), ("failed", str(self.failed)),
                  ("skipped", str(self.skipped)), ("errors", str(self.errors)),
                  ("resumed", str(self.resumed)), ("verdict", "OK" if self.ok else "FAILED")]
        sections = [(None, totals)]
        found = self.counterexamples()
        if found:
            rows = [(r["graph"], str(sample["index"]),
                     ", ".join(f"{k} = {v}" for k, v in sample.get("parameters", {}).items()))
                    for r, sample in found[:self.SHOWN]]
            if len(found) > self.SHOWN:
                rows.append(("...", f"and {len(found) - self.SHOWN} more", None))
            sections.append((("counterexample graph", "sample", "rates"), rows))
        errors = [(r["graph"], str(r.get("error", ""))) for r in self.records
                  if r.get("status") == "error"]
        if errors:
            rows = errors[:self.SHOWN]
            if len(errors) > self.SHOWN:
                rows.append(("...", f"and {len(errors) - self.SHOWN} more"))
            sections.append((("graph with an error", "error"), rows))
        return "sweep", sections

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "rates": self.rates, "graphs": self.graphs,
                "passed": self.passed, "failed": self.failed, "skipped": self.skipped,
                "errors": self.errors, "resumed": self.resumed, "ok": self.ok,
                "seconds": round(self.seconds, 3),
                "counterexamples": [{"graph": r["graph"], "sample": s["index"], "data": s["data"],
                                     "toml": s["toml"]} for r, s in self.counterexamples()],
                "failed_with_error": [{"graph": r["graph"], "error": r["error"]}
                                      for r in self.records if r["status"] == "error"]}


def _same_sweep(record: Mapping[str, Any], task: GraphTask, path: Path) -> None:
    for key, value in (("check", task.check), ("rates", task.rates), ("seed", task.seed),
                       ("options", json_ready(dict(task.options)))):
        if record.get(key) != value:
            raise ModelError(f"{path} holds results of a sweep with {key} {record.get(key)!r}, "
                             f"not {value!r}; give --output a new file to start another sweep")


def sweep(check: str, max_classes: int, max_servers: int, filters: Iterable[str] = (),
          rates: str | None = None, seed: int = 0, options: Mapping[str, Any] | None = None,
          executor: cf.Executor | None = None, output: str | Path | None = None,
          progress: bool | TextIO | Callable[[int, int], None] = True,
          graphs: Sequence[CompatibilityGraph] | None = None,
          on_record: Callable[[dict[str, Any]], None] | None = None) -> SweepSummary:
    """Run ``check`` on every graph with at most ``max_classes`` classes and ``max_servers``
    servers (optionally filtered), through ``executor``.

    Tasks are submitted a few per worker at a time; each record is appended to ``output`` as it
    arrives, so a killed sweep loses at most the graphs in flight, and a rerun on the same file
    checks only the rest (it refuses a file of another check, rates, seed or options).

    Parameters
    ----------
    check : a name of :data:`CHECKS` or ``module:function``
    max_classes, max_servers, filters : the graphs (:func:`symq.models.graphs.compatibility_graphs`)
    rates : ``symbolic``, ``random:N`` or ``light:N`` (default: the check's default)
    seed : seed of the random rates
    options : check options (``max_jobs``, ``disciplines``)
    executor : any :class:`concurrent.futures.Executor`; default: a process pool on all cores
    output : JSON-lines file; graphs already in it are skipped (resume), new ones appended
    progress : False, True (stderr), a stream, or a ``progress(done, total)`` callback: a bar on
        a terminal (:mod:`symq.progress`) and one summary line at the end
    graphs : an explicit list of graphs instead of the enumeration
    on_record : called with each new record as it arrives (in the calling process)

    Returns
    -------
    SweepSummary

    Raises
    ------
    ModelError
        Unknown check or filter, bad rates, symbolic rates for a numeric check, an output file of
        another sweep.
    UnsupportedError
        A check whose machinery this symq does not have yet.

    Notes
    -----
    Running time: the sum over the graphs of the check's time, divided among the workers.

    Examples
    --------
    >>> summary = sweep("nested", max_classes=2, max_servers=2, executor=InlineExecutor(),
    ...                 progress=False)
    >>> summary.graphs, summary.passed, summary.failed
    (5, 5, 0)
    """
    search_path = (os.getcwd(),)
    resolved = resolve_check(check, search_path)
    spec = parse_rates(rates or resolved.default_rates)
    if resolved.rates == "numeric" and spec.kind == "symbolic":
        raise ModelError(f"check {check!r} needs numeric rates; use --rates "
                         f"{resolved.default_rates} (or random:N / light:N)")
    if graphs is None:
        graphs = compatibility_graphs(max_classes, max_servers, check_filters(filters))
    option_items = tuple(sorted((options or {}).items()))
    tasks = [GraphTask(check, g.key, str(spec), seed, option_items, search_path) for g in graphs]
    start = time.perf_counter()

    # probe: a check whose module has not landed fails here, once, with a clear message
    if tasks and resolved.name in CHECKS:
        probe(resolved, graphs, spec, seed, dict(option_items))

    path = Path(output) if output else None
    previous = read_results(path) if path else []
    wanted = {t.graph for t in tasks}
    done = {}
    for record in previous:
        if tasks:
            _same_sweep(record, tasks[0], path)
        if record.get("graph") in wanted:
            done[record["graph"]] = record
    pending = [t for t in tasks if t.graph not in done]
    summary = SweepSummary(check, str(spec), len(tasks), resumed=len(done))
    callback = progress if callable(progress) else None
    stream = None if callback else ((sys.stderr if progress is True else progress) if progress
                                    else None)
    bar = _Progress(f"sweep {check}", len(tasks), len(done),
                    sum(r["status"] == "fail" for r in done.values()), stream, callback)
    new_records: dict[str, dict[str, Any]] = {}
    handle = _open_for_append(path) if path else None
    owned = executor is None
    context = make_executor() if owned else contextlib.nullcontext(executor)
    try:
        with context as pool:
            for record in _completed(pool, pending):
                if handle:
                    handle.write(json.dumps(with_schema_version(record), sort_keys=True) + "\n")
                    handle.flush()
                new_records[record["graph"]] = record
                if on_record:
                    on_record(record)
                bar.update(record)
    finally:
        if handle:
            handle.close()
    bar.update(final=True)
    order = {t.graph: n for n, t in enumerate(tasks)}
    records = sorted([*done.values(), *new_records.values()], key=lambda r: order[r["graph"]])
    summary.records = records
    for record in records:
        status = record["status"]
        if status == "pass":
            summary.passed += 1
        elif status == "fail":
            summary.failed += 1
        elif status == "skip":
            summary.skipped += 1
        else:
            summary.errors += 1
    summary.seconds = time.perf_counter() - start
    return summary




def _completed(executor: cf.Executor, tasks: Sequence[GraphTask]) -> Iterator[dict[str, Any]]:
    """Records in the order they finish; at most a few tasks per worker are in flight."""
    window = 4 * max(1, getattr(executor, "_max_workers", None) or 16)
    queue = iter(tasks)
    running: set[cf.Future] = set()
    try:
        for task in itertools.islice(queue, window):
            running.add(executor.submit(run_graph, task))
        while running:
            finished, running = cf.wait(running, return_when=cf.FIRST_COMPLETED)
            for future in finished:
                yield future.result()
                for task in itertools.islice(queue, 1):
                    running.add(executor.submit(run_graph, task))
    finally:
        for future in running:
            future.cancel()
