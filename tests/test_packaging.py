"""Packaging: every third-party module that symq/ imports is a declared dependency (core, or an
extra imported only inside the feature that needs it), and the version, licence and citation
agree. The bare install itself (a venv with only ``pip install -e .`` running every command) is
checked by ``.ci/bare_install_check.sh`` in CI, since a test venv has every extra.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
#: import name -> distribution name, where they differ
DISTRIBUTION = {"flint": "python-flint", "distributed": "dask"}
#: extras whose modules symq/ may import, only inside a function
EXTRAS = {"plot", "cluster", "dataframe"}



def _load(path: Path, name: str):
    """The module of the script ``path`` (CI scripts and the docs hooks are not packages)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


third_party_imports = _load(ROOT / ".ci" / "bare_imports.py", "ci_bare_imports").third_party_imports
readme_command = _load(ROOT / ".ci" / "readme_command.py", "ci_readme_command").readme_command


def _names(requirements: list[str]) -> set[str]:
    return {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in requirements}


def _module_level_imports(path: Path) -> set[str]:
    """Top-level names imported at module level of ``path`` (not inside a function or class)."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Try):  # try: import x / except ImportError
            names |= {alias.name.split(".")[0] for stmt in node.body
                      if isinstance(stmt, ast.Import) for alias in stmt.names}
    return names


def test_every_import_is_a_core_dependency_or_an_extra():
    core = _names(PYPROJECT["dependencies"])
    extras = {name: _names(reqs) for name, reqs in PYPROJECT["optional-dependencies"].items()}
    imports = third_party_imports(ROOT / "symq")
    assert {"sympy", "flint", "numpy"} <= set(imports)  # the scan sees the known imports
    for module, files in imports.items():
        distribution = DISTRIBUTION.get(module, module).lower()
        if distribution in core:
            continue
        where = [extra for extra in EXTRAS if distribution in extras.get(extra, set())]
        assert where, (f"{module} (imported by {sorted(set(files))}) is neither a core dependency "
                       f"nor in the extras {sorted(EXTRAS)} of pyproject.toml")
        for file in set(files):
            assert module not in _module_level_imports(ROOT / file), (
                f"{file} imports {module} (extra {where[0]}) at module level: a bare install "
                f"cannot import it")


#: core dependencies that symq does not import itself: another dependency uses them
ACCELERATORS = {"gmpy2": "mpmath's GMP backend"}


def test_every_core_dependency_is_imported():
    imported = {DISTRIBUTION.get(m, m).lower() for m in third_party_imports(ROOT / "symq")}
    unused = _names(PYPROJECT["dependencies"]) - imported - set(ACCELERATORS)
    assert not unused, f"core dependencies that symq/ never imports: {sorted(unused)}"


def test_mpmath_runs_on_its_gmp_backend():
    """gmpy2 is a core dependency only for mpmath's backend: mpmath must actually use it."""
    import mpmath.libmp
    assert mpmath.libmp.BACKEND == "gmpy"


def test_the_extras_are_plot_cluster_docs_and_test():
    assert set(PYPROJECT["optional-dependencies"]) == {"plot", "cluster", "dataframe", "docs", "test"}
    core = _names(PYPROJECT["dependencies"])
    assert {"python-flint", "numpy", "scipy"} <= core
    test = _names(PYPROJECT["optional-dependencies"]["test"])
    assert "pytest-xdist" in test


def test_the_scan_sees_an_undeclared_import(tmp_path):
    # must fail on purpose: an import the project does not declare is reported
    package = tmp_path / "symq"
    package.mkdir()
    (package / "x.py").write_text("import os\n\ndef f():\n    import pandas.io\n    from . import y\n")
    assert third_party_imports(package) == {"pandas": ["symq/x.py"]}


def test_version_licence_and_citation_agree():
    import symq
    version = PYPROJECT["version"]
    assert symq.__version__ == version
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(rf"^version: {re.escape(version)}$", citation, re.M)
    assert re.search(r"^cff-version: 1\.2\.0$", citation, re.M)
    assert re.search(r"^license: MIT$", citation, re.M) and PYPROJECT["license"]["text"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert f"## [{version}]" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_the_docs_site_shows_the_version():
    hooks = _load(ROOT / "docs" / "_site" / "hooks.py", "docs_site_hooks")
    config = hooks.on_config({"config_file_path": str(ROOT / "mkdocs.yml"), "extra": {}})
    assert f"symq {PYPROJECT['version']}" in config["copyright"]  # the footer of every page


@pytest.mark.parametrize("label", ["**Run the main job**", "**Run the tests:**"])
def test_ci_reads_the_readme_commands(label):
    command = readme_command(label, (ROOT / "README.md").read_text(encoding="utf-8"))
    assert command.startswith("python -m pip install -e ")


def test_the_readme_command_reader_can_fail():
    # must fail on purpose: a label without a fenced block after it
    with pytest.raises(LookupError):
        readme_command("**Run the main job**", "**Run the main job**\n\nno block\n")
