"""User checks for the sweep tests (``symq sweep sweep_user_checks:NAME``, tests/ on the path)."""

import os
import time

import sympy

from symq.engines.normalization import collaborative_empty_probability
from symq.studies.sweep import Verdict


def empty_below_half(model):
    """A deliberately false claim: the collaborative system is empty with probability below 1/2."""
    empty = collaborative_empty_probability(model)
    return Verdict(bool(empty < sympy.Rational(1, 2)), {"empty_probability": empty})


def slow_pass(model):
    """Always true, slowly; appends the graph to $SWEEP_CALL_LOG so tests can count the calls."""
    time.sleep(float(os.environ.get("SWEEP_DELAY", "0")))
    log = os.environ.get("SWEEP_CALL_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(model.name + "\n")
    return True


def plain_bool(model):
    """Returns a bare bool (accepted)."""
    return len(model.classes) < 3


def pair(model):
    """Returns (ok, data)."""
    return True, {"classes": len(model.classes)}


def does_not_apply(model):
    """Returns None: the statement does not apply."""
    return None


def wrong_type(model):
    """Returns something a check may not return."""
    return "yes"
