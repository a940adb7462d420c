r"""Markov processes of FCFS compatibility models with their product forms ([GR20]_ section 3).
Each process has its state descriptor, its valid states up to a number of jobs, its transitions
written from the verbal model, and its product form as a sympy expression up to the normalizing
constant, and :func:`symq.engines.balance.verify` checks the product form against the transitions:
:class:`OrderIndependentQueue` and :class:`CollaborativeQueue` (Thm 3.3, Cor 3.5, Cor 3.7),
:class:`ALISProcess` (Thm 3.9), :class:`RandomAssignmentProcess` (Thm 3.10), :class:`TokenQueue`
and :class:`ClosedTokenNetwork` (section 3.3), :class:`DirectedMatching` (Thm 3.12, 3.13),
:class:`GeneralMatching` and :class:`PairedMatching` (section 3.4). Each process and its
theorem: see docs/product-forms.md.
"""

from symq.engines.processes.base import Process, Transition, format_state
from symq.engines.processes.matching import DirectedMatching, GeneralMatching, PairedMatching
from symq.engines.processes.noncollaborative import (ALISProcess, RandomAssignmentProcess, activation_rates,
                               assignment_condition_violation, canonical_routing,
                               check_assignment_condition, idle_order_weights,
                               induced_activation_rates, maxflow_routing, uniform_routing)
from symq.engines.processes.order_independent import (AcceptanceRegion, CollaborativeQueue, OrderIndependentQueue,
                                check_order_independence)
from symq.engines.processes.tokens import ClosedTokenNetwork, TokenQueue

__all__ = [
    "Process", "Transition", "format_state",
    "OrderIndependentQueue", "CollaborativeQueue", "AcceptanceRegion", "check_order_independence",
    "ALISProcess", "RandomAssignmentProcess", "activation_rates", "canonical_routing",
    "uniform_routing", "maxflow_routing", "idle_order_weights", "induced_activation_rates",
    "assignment_condition_violation", "check_assignment_condition",
    "TokenQueue", "ClosedTokenNetwork",
    "DirectedMatching", "GeneralMatching", "PairedMatching",
]
