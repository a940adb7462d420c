"""Matching models: DBM, DBM(K), DBMA, general-graph FCFM (diamond) and paired matching."""

from fractions import Fraction

import networkx as nx
import pytest
import sympy

import symq
from symq.engines import ctmc
from symq.engines.balance import verify
from symq.errors import ModelError, UnstableModelError
from symq.engines.processes import DirectedMatching, GeneralMatching, PairedMatching

DIAMOND_EDGES = [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)]
DIAMOND_P = {0: sympy.Rational(20, 62), 1: sympy.Rational(21, 62), 2: sympy.Rational(11, 62),
             3: sympy.Rational(10, 62)}  # proportional to (2, 2.1, 1.1, 1)


def diamond_by_birth_death():
    """An independent route from the verbal chain, without the product form.

    In the diamond, 1 is adjacent to 0, 2, 3 and 2 to 0, 1, 3; 0 and 3 are adjacent to 1 and 2
    only. So the waiting agents are either all of class 1, all of class 2, or a word over {0, 3}.
    A 1 (2) arriving to a word over {0, 3} takes its oldest agent; a 0 or 3 joins it. The chain is
    therefore three birth-death branches glued at the empty state, with ratios
    rho_1 = p1 / (p0 + p2 + p3), rho_2 = p2 / (p0 + p1 + p3), rho_03 = (p0 + p3) / (p1 + p2), and
    the letters of a {0, 3} word are i.i.d. with P(0) = p0 / (p0 + p3) (appended i.i.d., removed
    oldest first). Cut equations give pi(branch, k) = pi(empty) rho^k.
    """
    p = {k: Fraction(int(v.p), int(v.q)) for k, v in DIAMOND_P.items()}
    rho = {"1": p[1] / (p[0] + p[2] + p[3]), "2": p[2] / (p[0] + p[1] + p[3]),
           "03": (p[0] + p[3]) / (p[1] + p[2])}
    assert all(r < 1 for r in rho.values())
    empty = 1 / (1 + sum(r / (1 - r) for r in rho.values()))
    mean_length = {b: empty * r / (1 - r) ** 2 for b, r in rho.items()}
    share0 = p[0] / (p[0] + p[3])
    means = {"0": mean_length["03"] * share0, "1": mean_length["1"], "2": mean_length["2"],
             "3": mean_length["03"] * (1 - share0)}
    return empty, means


def test_diamond_exact_empty_probability_and_means():
    diamond = GeneralMatching(DIAMOND_EDGES, DIAMOND_P)
    empty, means = diamond_by_birth_death()
    assert diamond.empty_probability() == sympy.Rational(empty.numerator, empty.denominator)
    assert diamond.empty_probability() == sympy.Rational(40, 693)
    result = diamond.mean_queue_lengths()
    for c, value in means.items():
        assert result[c] == sympy.Rational(value.numerator, value.denominator), c
    assert result == {"0": sympy.Rational(6400, 693), "1": sympy.Rational(41, 330),
                      "2": sympy.Rational(17, 840), "3": sympy.Rational(3200, 693)}


def test_diamond_truncated_chain_equals_product_form_and_converges():
    diamond = GeneralMatching(nx.Graph(DIAMOND_EDGES), DIAMOND_P)
    cap = 7
    law = ctmc.stationary_distribution(diamond.truncated_chain(cap), exact=True)
    states = diamond.states(cap)
    weights = {s: Fraction(str(diamond.product_form(s))) for s in states}
    total = sum(weights.values())
    for s in states:
        assert law[s] == weights[s] / total
    exact = Fraction(40, 693)
    # pi_N(empty) = pi(empty) / P(at most N waiting) and P(more than N) <= the geometric tails
    tail = sum((Fraction(r) ** (cap + 1) / (1 - Fraction(r)))
               for r in (Fraction(21, 41), Fraction(11, 51), Fraction(15, 16))) * exact
    assert exact <= law[()] <= exact / (1 - tail)


def test_general_matching_verifies_symbolically():
    probabilities = {k: sympy.Symbol(f"p_{k}", positive=True) for k in range(4)}
    report = verify(GeneralMatching(DIAMOND_EDGES, probabilities), max_jobs=5)
    assert report.ok and report.states_checked > 50
    cycle = GeneralMatching([(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)],
                            {k: sympy.Symbol(f"p_{k}", positive=True) for k in range(5)})
    assert verify(cycle, max_jobs=4).ok


def test_general_matching_errors():
    with pytest.raises(ModelError, match="self-loop"):
        GeneralMatching([(0, 0), (0, 1)], {0: 1, 1: 1})
    with pytest.raises(ModelError, match="no arrival probability"):
        GeneralMatching([(0, 1)], {0: 1})
    with pytest.raises(UnstableModelError, match="unstable"):
        GeneralMatching([(0, 1), (1, 2)], {0: 1, 1: 1, 2: 1}).empty_probability()


@pytest.mark.parametrize("buffer", [0, 1, 3, None])
@pytest.mark.parametrize("name", ["n", "w", "ring:3"])
def test_dbm_k_theorem_3_12(name, buffer):
    process = DirectedMatching(symq.model(name), server_buffer=buffer)
    assert verify(process, max_jobs=3 if name == "ring:3" else 4).ok


def test_dbma_theorem_3_13_with_finite_buffers():
    model = symq.Model(compatibility={"1": ["1"], "2": ["2"], "3": ["1", "2"]},
                       arrival_rates={c: f"lambda_{c}" for c in "123"},
                       service_rates={"1": "mu_1", "2": "mu_2"},
                       abandonment_rates={c: f"gamma_{c}" for c in "123"})
    for servers, jobs in ((None, None), (2, 3), (0, 2)):
        process = DirectedMatching(model, server_buffer=servers, job_buffer=jobs,
                                   server_patience={"1": "nu_1", "2": "nu_2"})
        assert verify(process, max_jobs=4).ok


def test_dbm_without_abandonment_has_the_collaborative_law():
    """DBM = collaborative model sample-path-wise (Adan et al.): same product form."""
    model = symq.model("w")
    dbm = DirectedMatching(model)
    from symq.engines.processes import CollaborativeQueue
    queue = CollaborativeQueue(model)
    for state in queue.states(3):
        assert sympy.simplify(dbm.product_form((state, ())) - queue.product_form(state)) == 0


def test_paired_matching_verifies():
    for name in ("n", "w", "ring:3", "redundancy:3:2"):
        assert verify(PairedMatching(symq.model(name)), max_jobs=3).ok


def test_matching_bad_input():
    with pytest.raises(ModelError, match="unknown server type"):
        DirectedMatching(symq.model("n"), server_patience={"9": 1})
    with pytest.raises(ModelError, match="server_buffer"):
        DirectedMatching(symq.model("n"), server_buffer=-1)
    with pytest.raises(TypeError):
        DirectedMatching(symq.model("n"), server_buffer=1.5)
