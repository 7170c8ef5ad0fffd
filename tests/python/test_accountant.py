"""Accountants against independent values: closed forms evaluated here or
with mpmath (the constants), exact sums, and bounds computed elsewhere."""

import math

import pytest

import dpacct
from dpacct import (Accountant, Bound, Composed, EpsilonDelta, GDP, Gaussian, Laplace, PoissonSampled,
                    RandomizedResponse, SelfComposed, TreeAggregation)

# eps(delta = 1e-5) of mu-GDP with mu = 1, the root of
# delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), by mpmath at 50 digits.
GDP1_EPS = 4.3771780956812246
DELTA = 1e-5

# Every event here is mu = 1 GDP: sum of 1/sigma^2 = 1.
MU1_EVENTS = [
    Gaussian(1.0),
    GDP(1.0),
    Composed([SelfComposed(Gaussian(4.0), 4), SelfComposed(Gaussian(2.0), 3)]),   # 4/16 + 3/4
    TreeAggregation(2.0, 8),          # floor(log2 8) + 1 = 4 nodes per record: 4/4
]


@pytest.mark.parametrize("event", MU1_EVENTS, ids=str)
@pytest.mark.parametrize("name", ["gaussian", "gdp"])
def test_gaussian_closed_form(name, event):
    b = Accountant(name).compose(event).epsilon(DELTA)
    assert b.lower <= GDP1_EPS <= b.upper
    assert b.upper - GDP1_EPS <= 1e-9 * GDP1_EPS
    assert "exact" in b.flag_words and b.flags & Bound.EXACT
    assert float(b) == b.upper
    d = Accountant(name).compose(event).delta(GDP1_EPS)
    assert d.lower <= DELTA <= d.upper
    assert d.upper - DELTA <= 1e-8 * DELTA


@pytest.mark.parametrize("event", MU1_EVENTS, ids=str)
def test_pld_brackets_the_closed_form(event):
    b = Accountant("pld").compose(event).epsilon(DELTA)
    assert b.lower <= GDP1_EPS <= b.upper
    assert b.upper - b.lower <= 2e-3 * GDP1_EPS


def test_gdp_state_is_the_composed_mu():
    value, what = Accountant("gdp").compose(MU1_EVENTS[2]).state()
    assert what == "mu"
    assert value == pytest.approx(1.0, rel=1e-14)


def test_laplace_composition():
    # Laplace(scale=10) composed 100 times at delta 1e-5: eps in
    # [4.2203026, 4.2203921] by an independent numerical computation
    b = Accountant("pld").compose(Laplace(10.0), count=100).epsilon(DELTA)
    assert b.upper >= 4.2203026
    assert b.lower <= 4.2203921


@pytest.mark.parametrize("eps", [0.0, 0.1, 0.3, 0.49])
def test_laplace_profile(eps):
    # one Laplace of scale b: delta(eps) = 1 - exp((eps - 1/b) / 2) for eps <= 1/b
    b = 2.0
    exact = 1.0 - math.exp((eps - 1.0 / b) / 2.0)
    d = Accountant("pld").compose(Laplace(b)).delta(eps)
    assert d.lower <= exact <= d.upper


def test_laplace_is_pure_at_one_over_scale():
    # and 0 from eps = 1/b on: the scale is in units of the sensitivity
    d = Accountant("pld").compose(Laplace(2.0)).delta(0.5)
    assert d.upper < 1e-15


def randomized_response_delta(eps0, n, eps):
    """delta(eps) of n binary randomized responses with parameter eps0:
    the loss is eps0 (2j - n) with j ~ Bin(n, p), p = e^eps0 / (1 + e^eps0)."""
    p = math.exp(eps0) / (1.0 + math.exp(eps0))
    terms = []
    for j in range(n + 1):
        if eps0 * (2 * j - n) > eps:
            P = math.comb(n, j) * p ** j * (1 - p) ** (n - j)
            Q = math.comb(n, j) * (1 - p) ** j * p ** (n - j)
            terms.append(P - math.exp(eps) * Q)
    return math.fsum(terms)


@pytest.mark.parametrize("event", [RandomizedResponse(0.5, 2), EpsilonDelta(0.5, 0.0)], ids=str)
@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
def test_randomized_response_composition(event, relation):
    # pure 0.5-DP composed 50 times: the binary randomized response is its
    # worst case (Kairouz, Oh & Viswanath), whose delta is the exact sum
    exact = randomized_response_delta(0.5, 50, 3.0)
    d = Accountant("pld", relation=relation).compose(event, count=50).delta(3.0)
    assert d.lower <= exact <= d.upper
    assert d.upper - exact <= 1e-6 * exact


def subsampled_gaussian_rdp(q, sigma, alpha):
    """RDP of the Poisson-subsampled Gaussian at an integer order alpha
    (add/remove; Mironov, Talwar & Zhang 2019, Eq. (3)):
    log(sum_k C(alpha, k) (1-q)^(alpha-k) q^k e^((k^2 - k)/(2 sigma^2))) / (alpha - 1)."""
    terms = [math.comb(alpha, k) * (1 - q) ** (alpha - k) * q ** k * math.exp((k * k - k) / (2 * sigma * sigma))
             for k in range(alpha + 1)]
    return math.log(math.fsum(terms)) / (alpha - 1)


def test_rdp_curve_of_dpsgd():
    q, sigma, steps = 0.01, 1.1, 1000
    orders = list(range(2, 33))
    acct = Accountant("rdp", orders=orders).compose(PoissonSampled(q, Gaussian(sigma)), count=steps)
    curve = acct.rdp_curve()
    assert [a for a, _ in curve] == orders
    for alpha, eps in curve:
        exact = steps * subsampled_gaussian_rdp(q, sigma, int(alpha))
        assert exact <= eps <= exact * (1 + 1e-10), alpha
    # the classic conversion is a valid upper bound: the library's may only be below it
    classic = min(eps + math.log(1 / DELTA) / (a - 1) for a, eps in curve)
    b = acct.epsilon(DELTA)
    assert 0 < b.upper <= classic
    assert b.flags & Bound.NO_LOWER and "no lower bound" in b.flag_words
    assert 2 <= b.order <= 32
    # and no certified lower bound is above it
    pld = Accountant("pld").compose(PoissonSampled(q, Gaussian(sigma)), count=steps).epsilon(DELTA)
    assert pld.lower <= b.upper


def test_rdp_curve_is_rdp_only():
    with pytest.raises(dpacct.Unsupported):
        Accountant("pld").compose(Gaussian(1.0)).rdp_curve()


def test_relation():
    e = PoissonSampled(0.01, Gaussian(1.0))
    add = Accountant("pld", relation="add-remove").compose(e, count=100).epsilon(DELTA)
    rep = Accountant("pld", relation="replace-one").compose(e, count=100).epsilon(DELTA)
    assert Accountant("pld", relation="replace-one").relation == "replace-one"
    # the relation changes the answer (the multiplier is relative to the
    # sensitivity under each relation): disjoint brackets
    assert rep.upper < add.lower or rep.lower > add.upper
    with pytest.raises(dpacct.InvalidArgument, match="relation"):
        Accountant("pld", relation="substitution")


def test_errors_carry_the_library_message():
    with pytest.raises(dpacct.NotFound, match="no accountant named 'nope'"):
        Accountant("nope")
    with pytest.raises(dpacct.InvalidArgument, match="noise multiplier must be positive"):
        Accountant("rdp").compose(Gaussian(0.0))
    acct = Accountant("gaussian")
    with pytest.raises(dpacct.Unsupported) as info:
        acct.compose(Laplace(1.0))
    assert info.value.status == -3 and "laplace" in info.value.message.lower()
    assert acct.events == ()          # nothing composed on failure
    assert not acct.supports(Laplace(1.0))
    assert acct.why_unsupported(Laplace(1.0)) == info.value.message
    assert acct.supports(Gaussian(1.0))
    acct.compose(Gaussian(1.0))
    with pytest.raises(dpacct.InvalidArgument, match="delta"):
        acct.epsilon(1.5)
    with pytest.raises(dpacct.InvalidArgument):
        Accountant("pld", eps_error=0)


def test_compose_forms_and_ledger():
    a = Accountant("gaussian")
    assert a.compose(Gaussian(2.0), count=3) is a
    a.compose("gaussian(sigma=4)")
    a.compose(' {"kind": "gaussian", "sigma": 4}')
    a.compose(dpacct.NoOp())
    a.compose(Gaussian(4.0), count=2)
    assert [str(e) for e in a.events] == ["self_composed(count=3, gaussian(sigma=2.0))", "gaussian(sigma=4.0)",
                                          "gaussian(sigma=4.0)", "self_composed(count=2, gaussian(sigma=4.0))"]
    # 3 Gaussians of sigma 2 and 4 of sigma 4: mu^2 = 3/4 + 4/16 = 1
    assert a.epsilon(DELTA).lower <= GDP1_EPS <= a.epsilon(DELTA).upper
    # the ledger rebuilds it
    b = Accountant("gaussian")
    for e in a.events:
        b.compose(str(e))
    assert b.epsilon(DELTA) == a.epsilon(DELTA)
    a.close()
    with pytest.raises(dpacct.InvalidArgument, match="closed"):
        a.epsilon(DELTA)


def test_failure_terms():
    a = Accountant("gaussian").compose(Gaussian(1.0))
    plain = a.delta(GDP1_EPS).upper
    a.add_failure(1e-6, "features fail to concentrate")
    assert a.failures == [(1e-6, "features fail to concentrate")]
    assert a.delta(GDP1_EPS).upper >= plain + 1e-6


def test_names_and_flags():
    names = dpacct.accountant_names()
    assert {"pld", "rdp", "gaussian", "gdp", "zcdp"} <= set(names)
    assert dpacct.accountant_summary("pld")
    assert dpacct.accountant_summary("nope") is None
    assert dpacct.library_version().count(".") == 2
    words = dpacct.describe_flags(Bound.APPROXIMATE | Bound.WIDTH_NOT_MET)
    assert words[0] == "approximate (not a guarantee)" and words[1].startswith("width not met")
    assert dpacct.describe_flags(0) == ()


def test_dp_accounting_published_values():
    # dp_accounting's rdp_privacy_accountant_test.py: noise multiplier
    # 4.530877117 "is chosen to obtain exactly (1, 1e-6)-DP" under RDP with
    # its conversion (orders 1.000 .. 99.999), to 7 places
    rdp = Accountant("rdp").compose(Gaussian(4.530877117))
    assert rdp.epsilon(1e-6).upper == pytest.approx(1.0, abs=1e-7)
    assert rdp.delta(1.0).upper == pytest.approx(1e-6, rel=1e-6)
    # the exact Gaussian profile is below RDP's conversion
    assert Accountant("gaussian").compose(Gaussian(4.530877117)).epsilon(1e-6).upper < 0.93
    # ... and a constant RDP curve of 1.1 on the orders 2..32 (here the
    # (xi = 1.1, rho = 0)-zCDP event) is eps = 1.32783806176 at delta 1e-5,
    # at order 32 ("computed by hand")
    b = Accountant("rdp", orders=range(2, 33)).compose(dpacct.ZCDP(0.0, 1.1)).epsilon(1e-5)
    assert b.upper == pytest.approx(1.32783806176, abs=1e-10)
    assert b.order == 32 and b.flags & Bound.ORDER_AT_EDGE


def test_random_allocation_decomposition():
    """pld's random allocation (Feldman & Shenfeld's decomposition) at T = 2,
    sigma = 1, one epoch: the remove world's delta(0.5) of the pair is
    0.225964323852 by quadrature (tests/ref/allocation_decomposition.py),
    above the allocation's own 0.149177523136; the bound is the pair's."""
    from dpacct import RandomAllocation
    b = Accountant("pld").compose(RandomAllocation(2, 1, Gaussian(1.0))).delta(0.5)
    assert b.lower <= 0.225964323852 <= b.upper
    assert b.upper - b.lower <= 1e-3 * b.upper
    assert b.flags & Bound.PAIR_LOWER
