r"""Heterogeneous M/M/n with uninformed customers (Cabral): Poisson($\lambda$) arrivals, $n$ servers
of exponential rates $\mu_l$, one FCFS queue, and an arrival that finds idle servers picks one of
them uniformly at random (in symq the built-in ``uninformed:N`` under ``rais``). The package holds
the queue (:mod:`~symq.studies.uninformed.queue`), its closed-form stationary law and the quantities of
the proof of Theorem 2.1 of [Cab]_ (:mod:`~symq.studies.uninformed.law`), the second routes to the law,
the chain of the verbal model and the FCFS-RAIS product form (:mod:`~symq.studies.uninformed.chain`),
Theorem 2.1 proved by sign certificates for given $n$ (:mod:`~symq.studies.uninformed.theorem`, on the
general prover of :mod:`symq.arithmetic.certificates`), and the ``symq evaluate`` handlers
(:mod:`~symq.studies.uninformed.handlers`); ``docs/uninformed.md`` states the law and the theorem.

Examples
--------
>>> from sympy import latex
>>> from symq.studies.uninformed import uninformed_queue, uninformed_empty_probability, busy_probability
>>> mm2 = uninformed_queue(2)
>>> print(latex(uninformed_empty_probability(mm2)))
\frac{1}{\frac{\lambda^{3}}{2 \mu_{1} \mu_{2} \left(- \lambda + \mu_{1} + \mu_{2}\right)} + \frac{\lambda^{2}}{2 \mu_{1} \mu_{2}} + \frac{\lambda \left(\frac{1}{\mu_{2}} + \frac{1}{\mu_{1}}\right)}{2} + 1}
>>> q = uninformed_queue(3, arrival_rate=2, service_rates=[3, 2, 1])
>>> [busy_probability(q, j) for j in q.servers]
[8/29, 10/29, 14/29]

References
----------
.. [Cab] F. B. Cabral, "Queues with heterogeneous servers and uninformed customers: who works the
   most?".
.. [Cab05] F. B. Cabral, "The slow server problem for uninformed customers", Queueing Systems 50(4)
   (2005) 353-370.
.. [GR20] K. Gardner, R. Righter, "Product forms for FCFS queueing models with arbitrary
   server-job compatibilities: an overview", Queueing Systems 96 (2020); arXiv:2006.05979.
"""

from symq.arithmetic.certificates import (SignCertificate, check_certificate, find_sign_certificate,
                            same_rational_function)
from symq.studies.uninformed.chain import (balance_failures, balance_residuals, rais_aggregated_weight,
                    rais_product_form_weight, uninformed_transitions)
from symq.studies.uninformed.handlers import QUANTITY_HANDLERS
from symq.studies.uninformed.law import (all_busy_probability, busy_idle_probability, busy_probability,
                  busy_probability_by_states, effective_service_rate, idle_probability,
                  number_probability, uninformed_empty_probability, uninformed_mean_number,
                  uninformed_mean_response_time, uninformed_normalizing_constant, state_probability, state_weight, stationary_law)
from symq.studies.uninformed.queue import State, UninformedQueue, is_uninformed, uninformed_queue
from symq.studies.uninformed.theorem import INEQUALITIES, theorem_2_1_certificates, theorem_2_1_differences

# SignCertificate, check_certificate, find_sign_certificate and same_rational_function live in
# symq.arithmetic.certificates (the general prover); they are re-exported here for the Theorem 2.1 callers.
__all__ = [
    "UninformedQueue", "uninformed_queue", "is_uninformed", "State",
    "state_weight", "state_probability", "uninformed_empty_probability",
    "uninformed_normalizing_constant",
    "number_probability", "stationary_law", "busy_probability", "busy_probability_by_states",
    "idle_probability", "busy_idle_probability", "all_busy_probability",
    "effective_service_rate", "uninformed_mean_number", "uninformed_mean_response_time",
    "uninformed_transitions", "balance_residuals", "balance_failures",
    "rais_product_form_weight", "rais_aggregated_weight", "same_rational_function",
    "SignCertificate", "find_sign_certificate", "check_certificate",
    "theorem_2_1_differences", "theorem_2_1_certificates", "INEQUALITIES", "QUANTITY_HANDLERS",
]
