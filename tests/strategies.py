"""Hypothesis strategies for small compatibility models with exact rates."""

from fractions import Fraction

from hypothesis import strategies as st

from symq.models.model import Model


@st.composite
def compatibility_graphs(draw, max_classes=4, max_servers=3, nested=False):
    """A mapping class -> non-empty server list in which every server serves some class."""
    servers_count = draw(st.integers(1, max_servers))
    servers = [str(j) for j in range(1, servers_count + 1)]
    subsets = [frozenset(s for k, s in enumerate(servers) if mask >> k & 1)
               for mask in range(1, 2 ** servers_count)]
    classes_count = draw(st.integers(1, max_classes))
    chosen = draw(st.lists(st.sampled_from(subsets), min_size=classes_count,
                           max_size=classes_count))
    if nested:
        laminar = []
        for s in chosen:
            if all(not (s & t) or s <= t or t <= s for t in laminar):
                laminar.append(s)
        chosen = laminar
    used = sorted(set().union(*chosen), key=int)
    return {str(i + 1): [j for j in used if j in s] for i, s in enumerate(chosen)}


@st.composite
def models(draw, max_classes=4, max_servers=3, nested=False, light=False):
    """A numeric model. ``light=True``: total arrival rate at most 1/3 of the smallest $\\mu(S_i)$."""
    compatibility = draw(compatibility_graphs(max_classes, max_servers, nested))
    servers = sorted({j for s in compatibility.values() for j in s}, key=int)
    mu = {j: Fraction(draw(st.integers(1, 6)), draw(st.integers(1, 3))) for j in servers}
    weights = {i: Fraction(draw(st.integers(1, 5))) for i in compatibility}
    if light:
        smallest = min(sum(mu[j] for j in s) for s in compatibility.values())
        total = smallest * Fraction(draw(st.integers(1, 10)), 30)
    else:
        total = sum(mu.values()) * Fraction(draw(st.integers(1, 20)), 20)
    norm = sum(weights.values())
    lam = {i: total * w / norm for i, w in weights.items()}
    return Model(compatibility=compatibility, arrival_rates=lam, service_rates=mu)
