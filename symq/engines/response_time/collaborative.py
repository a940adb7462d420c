r"""The tagged job in the collaborative model (redundancy with cancel-on-completion, the OI queue).
The job in position $p$ is served by the servers of its class not used by an older job
([GR20]_ section 2), so later arrivals never delay it, and this module computes two exact laws,
both rational in $\theta$: the response time by the distributional Little's law,
$E e^{-\theta T_i}=G(\lambda-\theta e_i)/G(\lambda)$ with $G=1/\pi(\emptyset)$ from Thm 6.1 and the
exact-cover weights of Prop 6.2, and the waiting time by the corrected Prop 5.5 and Cor 5.7. The
derivations and the waiting-time programme are in docs/response-times.md.

Examples
--------
>>> from symq import model
>>> from symq.engines.response_time.collaborative import response_lst
>>> mm1 = model("uninformed:1").substitute({"lambda": "1/2", "mu_1": "1"})
>>> print(response_lst(mm1, "1").as_expr())
1/(2*theta + 1)

Running time: $O(2^MJ)$ field operations.
"""

from __future__ import annotations

from symq.models.model import Model
from symq.engines.response_time.setfunctions import SetFunctions

__all__ = ["cover_weights", "response_lst", "waiting_lst"]


def cover_weights(sets: SetFunctions, job_class: str | None = None, shift=None,
                  waiting: bool = False) -> list:
    r"""The pushes of $H$ (``waiting=False``) or $K^\theta_i$ (``waiting=True``).

    ``shift`` replaces $\lambda_i$ by $\lambda_i-\text{shift}$ (for the response time).

    Parameters
    ----------
    sets : SetFunctions
        The model's set functions in its field.
    job_class : str, optional
        The tagged class $i$ (needed with ``shift`` or ``waiting``).
    shift : field element, optional
        Usually $\theta$.
    waiting : bool
        The waiting-time weights $K^\theta_i$ instead of $H$.

    Returns
    -------
    list
        One weight per bitmask of the unions of class server sets (zero elsewhere).

    Examples
    --------
    >>> from symq import example_model
    >>> from symq.engines.response_time.setfunctions import SetFunctions
    >>> len(cover_weights(SetFunctions(example_model("n"))))
    4

    Running time: O(U J) field operations for U unions.
    """
    with_theta = shift is not None or waiting
    lift = sets.lift if with_theta else (lambda v: v)
    lam = {c: lift(v) for c, v in sets.lam.items()}
    if shift is not None:
        lam[job_class] = lam[job_class] - shift
    need = sets.need[job_class] if job_class is not None else None
    table = [lift(sets.zero)] * (sets.full + 1)
    table[0] = lift(sets.one)
    for x in range(sets.full + 1):
        if x:
            if not table[x]:
                continue
            rate = lift(sets.r(x))
            if with_theta and need & ~x == 0:  # class i needs only x: lambda_i -> lambda_i - theta
                rate = rate + sets.theta
            table[x] = table[x] / rate
        for c in sets.classes:
            if sets.need[c] & ~x:
                table[x | sets.need[c]] += lam[c] * table[x]
    return table


def response_lst(model: Model | SetFunctions, job_class: str):
    r"""$E e^{-\theta T_i}=G(\lambda-\theta e_i)/G(\lambda)$ (module text).

    Parameters
    ----------
    model : Model or SetFunctions
        Collaborative, symbolic or numeric rates.
    job_class : str
        The tagged class $i$.

    Returns
    -------
    field element
        A rational function of $\theta$.

    Examples
    --------
    >>> from symq import example_model
    >>> response_lst(example_model("n"), "1")
    (36*theta + 63)/(56*theta**2 + 126*theta + 63)

    Running time: two cover-weight passes, O(U J) field operations.
    """
    sets = model if isinstance(model, SetFunctions) else SetFunctions(model)
    i = sets.class_index(job_class)
    shifted = sum(cover_weights(sets, i, shift=sets.theta), sets.lift(sets.zero))
    return shifted / sets.lift(sum(cover_weights(sets), sets.zero))


def waiting_lst(model: Model | SetFunctions, job_class: str):
    r"""$E e^{-\theta W^C_i}$, the time until the job first holds a server (module text).

    Parameters
    ----------
    model : Model or SetFunctions
        Collaborative rates.
    job_class : str
        The class whose wait is wanted.

    Returns
    -------
    field element
        1 at $\theta=0$.

    Examples
    --------
    >>> from symq import example_model
    >>> waiting_lst(example_model("n"), "2")
    (12*theta + 21)/(14*theta + 21)

    Running time: O(U J) field operations.
    """
    sets = model if isinstance(model, SetFunctions) else SetFunctions(model)
    i = sets.class_index(job_class)
    total = sum(cover_weights(sets, i, waiting=True), sets.lift(sets.zero))
    return total / sets.lift(sum(cover_weights(sets), sets.zero))
