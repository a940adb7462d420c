"""Exact constants, idle probabilities and means against independent routes.

* published exact values (W, N, 3-cycle; tests/REFERENCES.md);
* the truncated CTMC of the verbal model (symq.engines.ctmc) for all three disciplines, within a stated
  truncation bound (hypothesis, small random stable graphs);
* second derivations: Prop 6.2 and corrected Prop 6.3 recursions, the nested closed forms, the
  ALIS and RAIS routes, the redundancy symmetry against the general DP, internal identities.
"""

from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings, strategies as st

import symq
from symq.queries import exact as nz
from symq.engines.normalization.alis import alis_values, matching_rates
from symq.engines.normalization.collaborative import CollaborativeTables, collaborative_values
from symq.engines.normalization.rais import rais_values
from symq.engines.normalization.structured import redundancy_values
from symq.engines.normalization.subsets import IdleTables, SubsetGraph
from symq.engines.aggregated import canonical_assignment
from symq.engines.ctmc import busy_servers, class_counts, empty_mass, truncated_stationary
from symq.errors import ModelError, UnstableModelError
from symq.models.model import Model

from strategies import compatibility_graphs

W_VALUES = {"lambda_1": "3/20", "lambda_2": "1/10", "lambda_3": "1/4", "mu_1": "1", "mu_2": "4/5"}
N_VALUES = {"lambda_1": "3/4", "lambda_2": "1/2", "mu_1": "3/2", "mu_2": "1"}
R = sympy.Rational


def cycle3():
    return Model(compatibility={"a": ["x", "y"], "b": ["y", "z"], "c": ["z", "x"]},
                 arrival_rates={"a": "1/3", "b": "1/2", "c": "1/4"},
                 service_rates={"x": 1, "y": "3/4", "z": "2/3"})


# ---------------------------------------------------------------------------- published values
@pytest.mark.parametrize("discipline", ["alis", "rais"])
def test_w_model_published_values(discipline):
    """docs/theory-subset-dp.md §2.9, W model: P(empty), T_c, P(server busy)."""
    w = symq.model("w").substitute(W_VALUES)
    assert nz.empty_probability(w, discipline) == R(663, 1216)
    t = nz.mean_response_time(w, discipline)["per_class"]
    assert t == {"1": R(44807, 33592), "2": R(92285, 55328), "3": R(23819, 19760)}
    idle = nz.server_idle_probability(w, discipline)["per_server"]
    assert idle == {"1": 1 - R(83, 304), "2": 1 - R(345, 1216)}


def test_w_model_normalizing_constants():
    w = symq.model("w").substitute(W_VALUES)
    assert nz.normalizing_constant(w, "alis") == R(24320, 1547)
    assert nz.normalizing_constant(w, "rais") == R(1216, 663)


@pytest.mark.parametrize("discipline", ["alis", "rais"])
def test_n_model_published_values(discipline):
    n = symq.model("n").substitute(N_VALUES)
    assert nz.empty_probability(n, discipline) == R(21, 71)
    assert nz.mean_response_time(n, discipline)["per_class"] == {"1": R(108, 71), "2": R(78, 71)}


@pytest.mark.parametrize("discipline", ["alis", "rais"])
def test_three_cycle_published_values(discipline):
    """docs/theory-subset-dp.md §2.9, 3-cycle with the canonical routing (per-class T depends on the routing)."""
    m = cycle3()
    assert nz.empty_probability(m, discipline) == R(1000824, 4404029)
    assert nz.mean_response_time(m, discipline)["per_class"] == {
        "a": R(225448587, 171127984), "b": R(1388487357, 775109104), "c": R(118142415, 85563992)}


def test_collaborative_published_means():
    """docs/theory-subset-dp.md §2.6 and §2.9: corrected Prop 6.3 on N and W."""
    n = symq.model("n").substitute(N_VALUES)
    assert nz.mean_number(n)["per_class"] == {"1": R(41, 35), "2": R(2, 5)}
    w = symq.model("w").substitute(W_VALUES)
    assert nz.mean_number(w)["per_class"] == {"1": R(2673, 13702), "2": R(438, 2821),
                                              "3": R(5, 26)}


def test_printed_prop_6_3_is_wrong():
    """As printed (k in S_i) every term vanishes and L_i = lambda_i/(mu - lambda): N gives 3/5."""
    n = symq.model("n").substitute(N_VALUES)
    printed = R(3, 4) / (R(5, 2) - R(5, 4))
    assert printed == R(3, 5)
    assert nz.mean_number(n)["per_class"]["1"] != printed


# ---------------------------------------------------------------------------- CTMC cross-check
@st.composite
def light_models(draw):
    """Total arrival rate at most 1/4 of the slowest server: ``ratio`` below."""
    compatibility = draw(compatibility_graphs(max_classes=3, max_servers=3))
    servers = sorted({j for s in compatibility.values() for j in s}, key=int)
    mu = {j: Fraction(draw(st.integers(2, 6)), draw(st.integers(1, 2))) for j in servers}
    weights = {i: Fraction(draw(st.integers(1, 4))) for i in compatibility}
    total = min(mu.values()) * Fraction(draw(st.integers(1, 5)), 20)
    norm = sum(weights.values())
    return Model(compatibility=compatibility, arrival_rates={i: total * v / norm
                                                             for i, v in weights.items()},
                 service_rates=mu)


def _bounds(model, max_jobs):
    r"""Truncation bounds. In every discipline the oldest job in the system is in service (a
    noncollaborative job waits only while all its servers hold older jobs), so while the system
    is non-empty jobs leave at rate >= m = min_j mu_j: the job count is dominated by an M/M/1
    queue of load r = lambda/m <= 1/4, P(N > n) <= q = r^(n+1). Blocking at n jobs conditions the
    law on N <= n (truncation property), so a probability moves by at most q/(1-q) and a mean of
    a count X <= N by at most E[N] q/(1-q) + E[N; N > n] <= r/(1-r) q/(1-q) + q (n+1+r/(1-r))."""
    r = Fraction(str(model.arrival_rate())) / min(Fraction(str(v))
                                                  for v in model.service_rates.values())
    q = r ** (max_jobs + 1)
    prob = q / (1 - q)
    mean = r / (1 - r) * prob + q * (max_jobs + 1 + r / (1 - r))
    return float(prob) + 1e-9, float(mean) + 1e-9


MAX_JOBS = 5


@pytest.mark.parametrize("discipline", ["collaborative", "alis", "rais"])
@settings(max_examples=6)
@given(model=light_models())
def test_dp_matches_truncated_ctmc(discipline, model):
    assignment = (lambda m, c, idle: canonical_assignment(m, c, idle))
    law = truncated_stationary(model, discipline, MAX_JOBS, exact=False, assignment=assignment)
    prob_tol, mean_tol = _bounds(model, MAX_JOBS)
    assert abs(empty_mass(law) - float(nz.empty_probability(model, discipline))) <= prob_tol
    idle = nz.server_idle_probability(model, discipline)["per_server"]
    for s, value in idle.items():
        ctmc = sum(p for state, p in law.items() if s not in busy_servers(model, state))
        assert abs(ctmc - float(value)) <= prob_tol, s
    means = nz.mean_number(model, discipline)["per_class"]
    for c, value in means.items():
        ctmc = sum(p * class_counts(state).get(c, 0) for state, p in law.items())
        assert abs(ctmc - float(value)) <= mean_tol, c


# ---------------------------------------------------------------------------- second routes
@pytest.mark.parametrize("name", ["n", "w"])
def test_prop_6_2_6_3_and_nested_forms_agree_symbolically(name):
    """H-DP (general route), server-removal recursions and the nested tree, as rational functions."""
    m = symq.model(name)
    graph = SubsetGraph(m)
    general = collaborative_values(graph, per_class=True)
    nested = nz.mean_number(m)["per_class"]  # nested closed form (auto-detected)
    recursion = nz.server_removal_mean_number(m)
    empty = graph.arith.expr(general["empty"])
    assert sympy.cancel(empty - nz.empty_probability(m, method="server-removal")) == 0
    assert sympy.cancel(empty - symq.nested_empty_probability(m)) == 0
    for c in m.classes:
        dp = graph.arith.expr(general["L"][c])
        assert sympy.cancel(dp - nested[c]) == 0
        assert sympy.cancel(dp - recursion[c]) == 0
    idle = nz.server_idle_probability(m)["per_server"]
    for s in m.servers:
        assert sympy.cancel(graph.arith.expr(general["idle"][s]) - idle[s]) == 0


def test_five_class_nested_model_symbolically():
    """The 3-server ``nested`` model: P(empty) and P(k idle) of the general DP, the Prop 6.2
    recursion and the tree agree as rational functions (means: at exact points below; the
    symbolic per-class DP takes about a minute on 8 symbols)."""
    m = symq.model("nested")
    graph = SubsetGraph(m)
    general = collaborative_values(graph, per_class=False)
    tree = nz.server_idle_probability(m)["per_server"]
    empty = graph.arith.expr(general["empty"])
    assert sympy.cancel(empty - symq.nested_empty_probability(m)) == 0
    assert sympy.cancel(empty - nz.empty_probability(m, method="server-removal")) == 0
    for s in m.servers:
        assert sympy.cancel(graph.arith.expr(general["idle"][s]) - tree[s]) == 0


@given(st.lists(st.integers(1, 9), min_size=8, max_size=8))
def test_five_class_nested_means_at_exact_points(values):
    names = ["lambda_1", "lambda_2", "lambda_3", "lambda_4", "lambda_5", "mu_1", "mu_2", "mu_3"]
    setting = {n: Fraction(v, 40) if n.startswith("lambda") else Fraction(v, 3)
               for n, v in zip(names, values)}
    m = symq.model("nested").substitute({k: str(v) for k, v in setting.items()})
    if not symq.is_stable(m):
        return
    graph = SubsetGraph(m)
    general = collaborative_values(graph, per_class=True)
    tree = nz.mean_number(m)["per_class"]
    recursion = nz.server_removal_mean_number(m)
    for c in m.classes:
        assert graph.arith.expr(general["L"][c]) == tree[c] == recursion[c]


def test_alis_and_rais_routes_agree_symbolically_on_w():
    """Two DPs: ALIS (W, Omega, H) and RAIS (Phi, D); G_RAIS = G_ALIS / W(M) (Cor 5.3)."""
    w = symq.model("w")
    a, r = nz.empty_probability(w, "alis"), nz.empty_probability(w, "rais")
    assert sympy.cancel(a - r) == 0
    mu1, mu2 = sympy.symbols("mu_1 mu_2", positive=True)
    lam = sympy.symbols("lambda_1:4", positive=True)
    w_top = mu1 * mu2 * (1 / (lam[0] + lam[2]) + 1 / (lam[1] + lam[2])) / sum(lam)
    ratio = nz.normalizing_constant(w, "alis") / nz.normalizing_constant(w, "rais")
    assert sympy.cancel(ratio - w_top) == 0


@pytest.mark.parametrize("model", [cycle3(), symq.model("w").substitute(W_VALUES),
                                   Model(compatibility={"1": ["1", "3"], "2": ["1", "2", "3"],
                                                        "3": ["2", "3"]},
                                         arrival_rates={"1": "1/5", "2": "1/3", "3": "1/4"},
                                         service_rates={"1": 1, "2": "1/2", "3": "3/4"})])
def test_internal_identities(model):
    """docs/theory-subset-dp.md §2.7 built-in checks: sum_s r_cs = lambda_c; sum_c r_cs/mu_s = P(s busy);
    hat H(B) = mu^x(B) D(B); RAIS queue means (D_c) = ALIS queue means (H_c, Omega)."""
    graph = SubsetGraph(model)
    tables = IdleTables(graph)
    coll = CollaborativeTables(graph, False)
    rates = matching_rates(graph, tables, coll)
    for k, c in enumerate(graph.classes):
        assert sum((v for (cc, _), v in rates.items() if cc == c), graph.arith.zero) == graph.lam[k]
    idle = alis_values(graph, False)["idle"]
    for j, s in enumerate(graph.servers):
        busy = sum((v for (_, ss), v in rates.items() if ss == s), graph.arith.zero) / graph.mu[j]
        assert busy == 1 - idle[s]
    h_hat = coll.zeta()
    assert all(h_hat[x] == tables.mu_prod[x] * tables.d[x] for x in range(graph.full + 1))
    alis, rais = alis_values(graph, True), rais_values(graph, True)
    assert alis["LQ"] == rais["LQ"] and alis["empty"] == rais["empty"]


@pytest.mark.parametrize("discipline", ["collaborative", "alis", "rais"])
@pytest.mark.parametrize("shape", ["4:2", "3:2", "4:3"])
def test_redundancy_symmetry_matches_general_dp(discipline, shape):
    m = symq.model(f"redundancy:{shape}").substitute({"lambda": "6/5", "mu": "1"})
    assert nz.is_symmetric_redundancy(m)
    graph = SubsetGraph(m)
    general = {"collaborative": collaborative_values, "alis": alis_values,
               "rais": rais_values}[discipline](graph, True)
    fast = redundancy_values(m, discipline, True)
    for key in ("G", "empty"):
        assert graph.arith.expr(general[key]) == fast["arith"].expr(fast[key]), key
    for c in m.classes:
        assert graph.arith.expr(general["L"][c]) == fast["arith"].expr(fast["L"][c])
    for s in m.servers:
        assert graph.arith.expr(general["idle"][s]) == fast["arith"].expr(fast["idle"][s])


def test_redundancy_symbolic():
    m = symq.model("redundancy:3:2")
    lam, mu = sympy.symbols("lambda mu", positive=True)
    numeric = nz.empty_probability(m.substitute({"lambda": "1", "mu": "1"}), "alis")
    assert nz.empty_probability(m, "alis").subs({lam: 1, mu: 1}) == numeric


def test_method_names_structure():
    def method(name, discipline, route):
        return symq.solve(symq.example_model(name), "empty-probability", discipline,
                          method=route, exact=True).method
    assert "nested" in method("w", "collaborative", "nested")
    assert "symmetry" in method("redundancy:4:2", "alis", "redundancy")
    assert "canonical" in method("ring:3", "rais", "subset-dp")


# ---------------------------------------------------------------------------- bad input
def test_unstable_rates_are_an_error():
    w = symq.model("w").substitute({**W_VALUES, "lambda_1": "2"})
    for discipline in ("collaborative", "alis", "rais"):
        with pytest.raises(UnstableModelError):
            nz.empty_probability(w, discipline)


def test_unknown_discipline():
    with pytest.raises(ModelError, match="unknown discipline 'fifo'"):
        nz.empty_probability(symq.model("w"), "fifo")


@pytest.mark.parametrize("discipline", ["collaborative", "alis", "rais"])
def test_three_cycle_matches_truncated_ctmc(discipline):
    """A non-nested graph whose RAIS routing is not unique: the chain uses the canonical routing."""
    base = cycle3()
    model = Model(compatibility=base.compatibility,
                  arrival_rates={c: r / 8 for c, r in base.arrival_rates.items()},
                  service_rates=base.service_rates)
    law = truncated_stationary(model, discipline, MAX_JOBS, exact=False,
                               assignment=canonical_assignment)
    prob_tol, mean_tol = _bounds(model, MAX_JOBS)
    assert abs(empty_mass(law) - float(nz.empty_probability(model, discipline))) <= prob_tol
    for c, value in nz.mean_number(model, discipline)["per_class"].items():
        ctmc = sum(p * class_counts(state).get(c, 0) for state, p in law.items())
        assert abs(ctmc - float(value)) <= mean_tol, c


@settings(max_examples=10)
@given(model=light_models())
def test_two_collaborative_mean_routes_agree(model):
    """Per-class exact-cover weights H_c against prefix x job x continuation sums ."""
    graph = SubsetGraph(model)
    weights = collaborative_values(graph, True, route="weights")["L"]
    suffix = collaborative_values(graph, True, route="suffix")["L"]
    assert weights == suffix


# ---------------------------------------------------------------------------- methods
@settings(max_examples=15, deadline=None)
@given(model=light_models())
def test_server_removal_and_subset_dp_are_two_routes(model):
    """method="server-removal" (Prop 6.2 / corrected 6.3 over class sets) against
    method="subset-dp" (exact-cover weights over unions of server sets): no shared code."""
    for quantity in (nz.empty_probability, nz.normalizing_constant, nz.server_idle_probability,
                     nz.mean_number):
        assert quantity(model, method="server-removal") == quantity(model, method="subset-dp")


def test_server_removal_route_catches_an_injected_error(monkeypatch):
    """Must fail: a 1 % error in one rate of the subset DP's field is seen by the comparison."""
    m = cycle3()
    reference = nz.mean_number(m, method="server-removal")
    from symq.arithmetic.exact import ExactField
    real = ExactField.value

    def wrong(self, expr):
        out = real(self, expr)
        return out * self.make(101, 100) if expr == R(1, 3) else out
    monkeypatch.setattr(ExactField, "value", wrong)
    assert nz.mean_number(m, method="subset-dp") != reference
    assert nz.empty_probability(m, method="subset-dp") != nz.empty_probability(
        m, method="server-removal")


def test_components_factor():
    """A disconnected graph: the product over components equals the general DP on the whole."""
    w = symq.model("w").substitute(W_VALUES)
    c3 = cycle3()
    both = Model(compatibility={**{f"w{c}": [f"w{s}" for s in v] for c, v in w.compatibility.items()},
                                **c3.compatibility},
                 arrival_rates={**{f"w{c}": r for c, r in w.arrival_rates.items()},
                                **c3.arrival_rates},
                 service_rates={**{f"w{s}": r for s, r in w.service_rates.items()},
                                **c3.service_rates})
    assert len(nz.components(both)) == 2
    for discipline in nz.DISCIPLINES:
        assert nz.structure_route(both, discipline) == "components"
        auto = nz.values(both, discipline, per_class=True)[0]
        assert auto["empty"] == nz.empty_probability(w, discipline) * nz.empty_probability(
            c3, discipline)
        for quantity in (nz.empty_probability, nz.server_idle_probability, nz.mean_number):
            assert quantity(both, discipline) == quantity(both, discipline, method="subset-dp")


def test_structured_methods_refuse_other_models():
    with pytest.raises(ModelError, match="method 'nested'"):
        nz.empty_probability(cycle3(), method="nested")
    with pytest.raises(ModelError, match="method 'redundancy'"):
        nz.empty_probability(cycle3(), method="redundancy")
    with pytest.raises(symq.UnsupportedError, match="server-removal"):
        nz.empty_probability(cycle3(), "alis", method="server-removal")
    with pytest.raises(ModelError, match="unknown method"):
        nz.empty_probability(cycle3(), method="fast")
