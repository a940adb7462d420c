"""Start-up time: ``import symq`` and a core command load no heavy module they do not need.

networkx, numpy, scipy, matplotlib and dask each cost 0.1-0.8 s of start-up on this project's
machines; sympy is the one unavoidable cost. These tests run a fresh interpreter and read
``sys.modules``, so that a new top-level import anywhere on the path cannot silently bring the
cost back (issue 15 item 4).
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("networkx", "numpy", "scipy", "matplotlib", "dask")
# symq packages that the core commands (list, show, derive, evaluate) never need
OPTIONAL = ("symq.studies.compensation", "symq.studies.supermarket", "symq.studies.sweep", "symq.engines.balance",
            "symq.engines.processes", "symq.presentation.report", "symq.presentation.pictures", "symq.commands.sweep",
            "symq.commands.compensation", "symq.commands.plot", "symq.commands.verify")


def loaded_after(code: str, watched: tuple[str, ...]) -> list[str]:
    """The modules of ``watched`` present in ``sys.modules`` after running ``code`` in a fresh
    interpreter."""
    probe = (f"import sys, json\n{code}\n"
             f"print(json.dumps([m for m in {list(watched)!r} if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_symq_loads_no_heavy_module():
    assert loaded_after("import symq", HEAVY + OPTIONAL) == []


def test_public_names_still_resolve_lazily():
    code = ("import symq, symq.models.model, symq.engines.normalization\n"
            "assert callable(symq.model) and symq.model('w').name == 'w'\n"
            "assert symq.Model is symq.model('w').__class__\n"
            "names = {}\nexec('from symq import *', names)\n"
            "missing = [n for n in symq.__all__ if n not in names]\n"
            "assert not missing, missing\n"
            "assert symq.empty_probability is symq.empty_probability\n"
            "assert symq.models.stability.check_stability is not None")
    loaded_after(code, HEAVY)  # raises CalledProcessError when an assertion fails


def test_evaluate_command_loads_no_optional_package():
    code = ("from symq.cli import main\n"
            "main(['evaluate', 'w', 'empty-probability', '--set', 'lambda_1=3/10', '--set',"
            " 'lambda_2=1/5', '--set', 'lambda_3=1/2', '--set', 'mu_1=1', '--set', 'mu_2=4/5'])")
    watched = HEAVY + OPTIONAL
    assert loaded_after(code, watched) == []


def test_the_probe_sees_a_heavy_import():
    # must fail on purpose: the checker has to notice a module that is imported
    assert loaded_after("import symq, networkx", HEAVY) == ["networkx"]
