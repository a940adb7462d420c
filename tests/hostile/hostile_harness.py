"""The hostile harness of issue 37: pathological values kept as data (corpus.json beside this
file), hypothesis strategies built from them, and drivers that run symq's command line (in
process, or in a subprocess under a CPU cap, ``resource.setrlimit(RLIMIT_CPU)``) and its Python
API, classifying every outcome.

An outcome is right when a command exits 0 with output free of raw control characters, or exits
2 with exactly one printable line ``symq: error: ...`` on stderr; a Python call returns, or
raises a :class:`symq.errors.SymqError`. Anything else (a traceback, exit status 1, a bare
``TypeError``) is a failure. ``COUNTS`` tallies outcomes by entry point and class, for the
issue's closing note.
"""

from __future__ import annotations

import collections
import contextlib
import io
import json
import os
import pathlib
import resource
import subprocess
import sys
import time
from dataclasses import dataclass

from hypothesis import strategies as st

HERE = pathlib.Path(__file__).parent
CORPUS = json.loads((HERE / "corpus.json").read_text(encoding="ascii"))

#: outcomes by (entry point, class): class is "ok", "refused", or "FAIL: ..."
COUNTS: collections.Counter = collections.Counter()

#: valid rates of the model ``n``
N_RATES = ["--set", "lambda_1=1/4", "--set", "lambda_2=1/4", "--set", "mu_1=1", "--set", "mu_2=1"]

#: each subcommand with one slot ``{V}`` where a hostile value goes (the options that read text)
TEMPLATES: dict[str, list[list[str]]] = {
    "show": [["show", "n", "--set", "mu_1={V}"]],
    "derive": [["derive", "n", "empty-probability", "--set", "mu_1={V}"]],
    "evaluate": [["evaluate", "n", "empty-probability", "--set", "lambda_1=1/4", "--set",
                  "lambda_2=1/4", "--set", "mu_2=1", "--set", "mu_1={V}", "--digits", "10"],
                 ["evaluate", "n", "mean-number", *N_RATES, "--digits", "{V}"]],
    "supermarket": [["supermarket", "n", *N_RATES, "--weights", "1={V}"]],
    "compensation": [["compensation", "jsq", "--rho", "{V}", "--digits", "5"]],
    "verify": [["verify", "n", *N_RATES, "--max-jobs", "{V}", "--quiet"]],
    "sweep": [["sweep", "--classes", "{V}", "--servers", "1", "--quiet"]],
    "uninformed": [["uninformed", "law", "--servers", "{V}"]],
    "optimize": [["optimize", "n", "--set", "lambda_1=1/4", "--set", "lambda_2=1/4", "--budget",
                  "mu_1 + mu_2 = {V}", "--digits", "5"]],
    "explain": [["explain", "n", "empty-probability", "--set", "mu_1={V}"]],
    "list": [["list"]],
    "routes": [["routes"]],
}
#: subcommands driven in the slow pass only (files, pictures, documents)
SLOW_TEMPLATES: dict[str, list[list[str]]] = {
    "report": [["report", "n", *N_RATES[:4], "--set", "mu_1={V}", "--set", "mu_2=1",
                "--output", "{TMP}/r.md", "--quiet"]],
    "plot": [["plot", "n", "clusters", *N_RATES, "--weights", "1={V}", "--dir", "{TMP}",
              "--quiet"]],
}


def values(*classes: str, limit: int | None = None) -> list[str]:
    """The corpus values of the given classes (all classes by default), at most ``limit`` of
    each."""
    out = []
    for name, items in CORPUS["values"].items():
        if not classes or name in classes:
            out += items[:limit]
    return out


def value_strategy() -> st.SearchStrategy[str]:
    """Corpus values, and random text mixing ASCII rate characters with every Unicode digit and
    space class and control characters."""
    alphabet = st.one_of(st.sampled_from(list("0123456789+-*/().e_ x")),
                         st.characters(categories=["Nd", "Zs", "Cc", "Cf", "No"]))
    return st.one_of(st.sampled_from(values()), st.text(alphabet, min_size=1, max_size=12))


def python_value(tag):
    """A Python object from its corpus tag (``{"kind": "numpy.float64", "value": "0.5"}``)."""
    if not isinstance(tag, dict) or "kind" not in tag:
        if isinstance(tag, dict):
            return {k: python_value(v) for k, v in tag.items()}
        if isinstance(tag, list):
            return [python_value(v) for v in tag]
        return tag
    kind, value = tag["kind"], tag.get("value")
    if kind == "none":
        return None
    if kind == "float":
        return float(value)
    if kind in ("bool", "list", "dict", "int"):
        return {"int": int}.get(kind, lambda v: v)(value)
    if kind == "bytes":
        return value.encode()
    if kind == "complex":
        return complex(value)
    if kind == "object":
        return object()
    if kind == "huge_int":
        return 10 ** tag["digits"]
    if kind.startswith("numpy."):
        import numpy
        return getattr(numpy, kind.split(".", 1)[1])(value)
    if kind == "model":
        import symq
        name, _, rates = value.partition(":")
        base = symq.model(name)
        return base.substitute(dict(zip(sorted(s.name for s in base.symbols), rates.split(","))))
    raise ValueError(kind)


@dataclass
class Outcome:
    status: int
    out: str
    err: str
    cpu: float


def run_cli(argv: list[str]) -> Outcome:
    """``symq ARGV`` in this process, its output captured and its CPU time measured."""
    from symq.cli import main
    out, err = io.StringIO(), io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else 1
        except Exception as error:  # a traceback: recorded as a failure
            import traceback
            err.write("".join(traceback.format_exception(error)))
            status = 1
    return Outcome(status, out.getvalue(), err.getvalue(), time.process_time() - start)


def run_capped(argv: list[str], cpu_seconds: int) -> Outcome:
    """``symq ARGV`` in a subprocess whose CPU time is capped at ``cpu_seconds`` (killed past
    it: status -9 or -24, a failure)."""
    def cap():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    start = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    program = "import sys; from symq.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", program, *argv], capture_output=True,
                          preexec_fn=cap, timeout=cpu_seconds * 6 + 30,
                          env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    used = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - start
    return Outcome(done.returncode, done.stdout.decode("utf-8", "replace"),
                   done.stderr.decode("utf-8", "replace"), used)


def _clean(text: str) -> bool:
    return all(c.isprintable() or c in "\n" for c in text)


def classify(outcome: Outcome, cpu_bound: float = 10.0) -> str:
    """``"ok"``, ``"refused"`` or ``"FAIL: why"`` for a command's outcome."""
    if outcome.cpu > cpu_bound:
        return f"FAIL: {outcome.cpu:.1f} s CPU (bound {cpu_bound} s)"
    if outcome.status == 0:
        return "ok" if _clean(outcome.out) else "FAIL: raw control character in the output"
    if outcome.status == 2:
        lines = outcome.err.strip("\n").split("\n")
        if len(lines) != 1:
            return f"FAIL: {len(lines)} lines on stderr"
        if not lines[0].startswith("symq: error: ") or not lines[0].isprintable():
            return f"FAIL: not one clean error line: {lines[0][:120]!r}"
        return "refused"
    return f"FAIL: exit status {outcome.status}: {outcome.err.strip()[-300:]!r}"


def fill(template: list[str], value: str, tmp: str = "/tmp") -> list[str]:
    return [a.replace("{V}", value).replace("{TMP}", tmp) for a in template]


def hostile_model(tmp: pathlib.Path, name: str) -> str:
    """A model file whose model, class and server names are ``name`` (TOML-escaped)."""
    from symq.models.model import _toml_string as q
    path = tmp / f"hostile{abs(hash(name)) % 10**8}.toml"
    path.write_text(f"name = {q(name)}\n[classes.{q(name)}]\narrival_rate = \"1/4\"\n"
                    f"servers = [{q(name)}, \"2\"]\n[classes.\"b\"]\narrival_rate = \"1/4\"\n"
                    f"servers = [\"2\"]\n[servers.{q(name)}]\nservice_rate = \"1\"\n"
                    "[servers.\"2\"]\nservice_rate = \"1\"\n", encoding="utf-8")
    return str(path)
