r"""The tagged job in the collaborative model (redundancy with cancel-on-completion, the OI queue).

The job in position $p$ is served by the servers of its class not used by an older job
([GR20]_ section 2), so a job's progress depends only on the jobs ahead of it, which evolve on
their own: later arrivals never delay it. Two exact laws follow, both rational in $\theta$.

**Response time** (distributional Little's law). Class-$i$ jobs leave in arrival order: a later
class-$i$ job finds every server of $S_i$ used by the tagged job or by jobs ahead of it, so it
gets no service before the tagged job leaves. Hence the class-$i$ jobs present when the tagged job
leaves are exactly the class-$i$ arrivals during its sojourn, $K\mid T_i\sim
\mathrm{Poisson}(\lambda_iT_i)$, and $K$ has the stationary law of $N_i$ (level crossing and
PASTA). The per-class law of Thm 6.1, $\pi(x)=\pi(\emptyset)\Phi(x)\prod_c\lambda_c^{x_c}$ with
$\Phi$ free of the arrival rates, gives $E z^{N_i}=G(\lambda_1..\lambda_iz..)/G(\lambda)$ with
$G=1/\pi(\emptyset)$. With $\theta=\lambda_i(1-z)$ and analytic continuation:

$$E e^{-\theta T_i}=\frac{G(\lambda-\theta e_i)}{G(\lambda)}
=\frac{\pi(\emptyset)}{\pi(\emptyset)\big|_{\lambda_i\to\lambda_i-\theta}},$$

with $G=\sum_XH(X)$ from the exact-cover weights $H$ (Prop 6.2; $H(X)=\frac1{r(X)}\sum\lambda_c
H(Y)$ over $Y\cup S_c=X$). On a nested graph this is Thm 4.5's independent sum (checked in the
tests); on other graphs the poles are the roots of a polynomial, found in ball arithmetic.

**Waiting time** (time to the first server; Prop 5.5 and Cor 5.7, corrected): with
$K^\theta_i(\emptyset)=1$, pushes $K^\theta_i(X\cup S_c)\mathrel{+}=\lambda_cK^\theta_i(X)$ for
$S_c\not\subseteq X$ and $K^\theta_i(X)\mathrel{/}=r(X)+\theta[S_i\subseteq X]$ before pushing
from $X\neq\emptyset$,

$$E e^{-\theta W^C_i}=\sum_XK^\theta_i(X)\Big/\sum_XH(X).$$

Examples
--------
>>> from symq import model
>>> from symq.response_time.collaborative import response_lst
>>> mm1 = model("uninformed:1").substitute({"lambda": "1/2", "mu_1": "1"})
>>> print(response_lst(mm1, "1").as_expr())
1/(2*theta + 1)

Running time: $O(2^MJ)$ field operations.
"""

from __future__ import annotations

from ..model import Model
from .setfunctions import SetFunctions

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
    >>> from symq.response_time.setfunctions import SetFunctions
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
