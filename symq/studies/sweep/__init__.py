r"""Theorem sweeps: run one check of a statement of the theory on every small compatibility graph,
with symbolic rates or with seeded random exact rational rates, locally or on a Dask cluster,
streaming one JSON line per graph so that an interrupted sweep resumes where it stopped, each
counterexample kept as a TOML model that ``symq evaluate`` and ``symq verify`` read. The package
has one module per role: :mod:`~symq.studies.sweep.engine` (enumeration, executors, results file,
resume, progress), :mod:`~symq.studies.sweep.checks` (the built-in checks), :mod:`~symq.studies.sweep.registry`
(:data:`CHECKS` and user checks ``module:function``), :mod:`~symq.studies.sweep.sampling` (the rates) and
:mod:`~symq.studies.sweep.verdict` (what a check returns); ``docs/sweeps.md`` lists the checks and the
theorems behind them.

Examples
--------
>>> from symq.studies.sweep import sweep, InlineExecutor
>>> summary = sweep("nested", max_classes=2, max_servers=2, executor=InlineExecutor(),
...                 progress=False)
>>> summary.graphs, summary.passed, summary.failed
(5, 5, 0)
"""

from symq.studies.sweep.checks import (balance_check, cor_5_3_check, empty_vs_ctmc_check, nested_check,
                     stability_check, theorem_2_1_check)
from symq.studies.sweep.engine import (GraphTask, InlineExecutor, SweepSummary, make_executor, read_results,
                     run_graph, sweep)
from symq.studies.sweep.registry import CHECKS, load_user_function, probe, resolve_check
from symq.studies.sweep.sampling import (RateSpec, exact_rate, parse_rates, sample_models, utilization,
                       with_arrival_scale)
from symq.studies.sweep.verdict import Check, Verdict, as_verdict, json_ready

__all__ = ["Verdict", "Check", "CHECKS", "RateSpec", "parse_rates", "resolve_check",
           "sample_models", "run_graph", "sweep", "SweepSummary", "InlineExecutor",
           "make_executor", "read_results", "utilization", "with_arrival_scale",
           "GraphTask", "as_verdict", "json_ready", "exact_rate", "load_user_function", "probe",
           "stability_check", "nested_check", "empty_vs_ctmc_check", "balance_check",
           "cor_5_3_check", "theorem_2_1_check"]
