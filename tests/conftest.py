"""Shared test configuration: hypothesis profiles and mpmath precision hygiene."""

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
