"""Shared test configuration: hypothesis profiles, mpmath precision hygiene, and the ``slow`` mark.

The README's test command deselects the tests marked ``slow`` (``-m "not slow"`` in
pyproject.toml) so that it stays fast; CI (``.ci/run``) runs them next with
``python -m pytest -m slow``. They are the slowest end-to-end cases whose feature a faster test of
the default run also covers, and are marked here by what they run (not by test ids, which carry
line numbers of the docs):

* the LaTeX report of the ``nested`` model compiled by pdflatex (the ``n`` and ``w`` reports
  compile in the default run);
* ``mkdocs build --strict`` in tests/test_docs.py (tests/test_docs_site.py builds the same site
  strictly in the default run);
* the docs' console examples that write pictures with ``--plot-dir`` (the compensation pictures
  are drawn by tests/test_compensation.py in the default run).
"""

import mpmath
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=300, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _restore_mpmath_precision():
    """Library code must scope its precision; this keeps one test's slip from hiding in another."""
    dps = mpmath.mp.dps
    yield
    assert mpmath.mp.dps == dps, "mpmath precision was changed globally"
    mpmath.mp.dps = dps


def _slow(item: pytest.Item) -> bool:
    """Whether ``item`` is one of the slow end-to-end cases of the module docstring."""
    name = getattr(item, "originalname", item.name)
    params = getattr(getattr(item, "callspec", None), "params", {})
    if item.path.name == "test_report.py":
        return name == "test_latex_report_compiles" and params.get("name") == "nested"
    if item.path.name == "test_docs.py":
        return (name == "test_docs_build_strictly"
                or (name == "test_console_examples_run"
                    and "--plot-dir" in str(params.get("command", ""))))
    return False


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _slow(item):
            item.add_marker(pytest.mark.slow)
