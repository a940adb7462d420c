r"""Markov processes of FCFS compatibility models with their product forms ([GR20]_ section 3).

Each process has its state descriptor, its valid states up to a number of jobs, its transitions
written from the verbal model, and its product form as a sympy expression up to the normalizing
constant. :func:`symq.balance.verify` checks the product form against the transitions.

========================================== ====================================================
process                                    product form
========================================== ====================================================
:class:`OrderIndependentQueue`             Thm 3.3 (general OI rate function)
:class:`CollaborativeQueue`                Thm 3.3, Cor 3.5 (abandonments), Cor 3.7 (loss)
:class:`ALISProcess`                       Thm 3.9
:class:`RandomAssignmentProcess`           Thm 3.10 (assignment condition)
:class:`TokenQueue`                        Thm 3.10 for tokens (Ayesta et al.)
:class:`ClosedTokenNetwork`                closed token network (Comte)
:class:`DirectedMatching`                  DBM, DBM(K) Thm 3.12, DBMA Thm 3.13
:class:`GeneralMatching`                   FCFM matching on a general graph (Moyal, Busic, Mairesse)
:class:`PairedMatching`                    paired bipartite FCFM matching (Adan, Weiss)
========================================== ====================================================
"""

from .base import Process, Transition, format_state
from .matching import DirectedMatching, GeneralMatching, PairedMatching
from .noncollaborative import (ALISProcess, RandomAssignmentProcess, activation_rates,
                               assignment_condition_violation, canonical_routing,
                               check_assignment_condition, idle_order_weights,
                               induced_activation_rates, maxflow_routing, uniform_routing)
from .order_independent import (AcceptanceRegion, CollaborativeQueue, OrderIndependentQueue,
                                check_order_independence)
from .tokens import ClosedTokenNetwork, TokenQueue

__all__ = [
    "Process", "Transition", "format_state",
    "OrderIndependentQueue", "CollaborativeQueue", "AcceptanceRegion", "check_order_independence",
    "ALISProcess", "RandomAssignmentProcess", "activation_rates", "canonical_routing",
    "uniform_routing", "maxflow_routing", "idle_order_weights", "induced_activation_rates",
    "assignment_condition_violation", "check_assignment_condition",
    "TokenQueue", "ClosedTokenNetwork",
    "DirectedMatching", "GeneralMatching", "PairedMatching",
]
