"""The privacy statement (dpacct.statement), group privacy
(Accountant.group_epsilon) and calibration through an event template,
against independent values: closed forms and mpmath/numpy scripts."""

import math

import pytest

import dpacct
from dpacct import Accountant, Gaussian, InvalidArgument, calibrate, statement

EPS_MU1 = 4.3771780956812246   # mu = 1 Gaussian at delta 1e-5 (Balle & Wang's closed form; scipy brentq)
EPS_MU2 = 9.997256146434298    # mu = 2
# the lemma's best for mu = 1 at delta 1e-5 (k eps(d*) at k e^((k-1) eps(d*)) d* = delta; mpmath, 40 digits)
GROUP_MU1 = {2: 11.359545255197035, 4: 34.872712732078858}


def test_full_batches_are_a_gaussian():
    # 4 full-batch steps of noise multiplier 2: mu = sqrt(4)/2 = 1 under
    # add-remove, and sigma = 1 (mu = 2) under replace-one (sensitivity 2C)
    s = statement(2.0, 1e-5, sample_rate=1.0, steps=4, max_examples_per_user=2, accountant="gaussian")
    assert s.steps == 4 and s.sampling == "none" and s.method == "gaussian"
    ar, ro = s.add_remove, s.replace_one
    assert ar.bound.lower <= EPS_MU1 <= ar.upper <= EPS_MU1 * (1 + 1e-9)
    assert ro.bound.lower <= EPS_MU2 <= ro.upper <= EPS_MU2 * (1 + 1e-9)
    u = s.user_level
    assert u.max_examples_per_user == 2 and u.relation == "add-remove"
    assert GROUP_MU1[2] <= u.epsilon <= GROUP_MU1[2] * (1 + 1e-5)
    assert 2 * math.exp(u.example_epsilon) * u.example_delta <= 1e-5
    # the paragraph carries the numbers, rounded up to 10 digits
    assert "epsilon = 4.377178096" in s.text and "epsilon = 9.997256147" in s.text
    assert "Vadhan 2017, Lemma 2.2" in s.text and str(s) == s.text


def test_poisson_run_matches_an_accountant():
    s = statement(1.1, 1e-5, batch_size=256, dataset_size=60000, epochs=60)
    assert s.steps == 14063 and s.sampling == "poisson" and s.method == "pld"
    run = dpacct.SelfComposed(dpacct.PoissonSampled(256 / 60000, Gaussian(1.1)), 14063)
    assert s.add_remove.upper == Accountant("pld").compose(run).epsilon(1e-5).upper
    assert s.add_remove.bound.lower <= s.add_remove.upper and s.add_remove.rdp_upper > s.add_remove.upper
    assert s.user_level is None and "User-level" not in s.text


def test_fixed_batches_have_no_add_remove():
    s = statement(1.0, 1e-5, batch_size=100, dataset_size=1000, steps=10, sampling="without-replacement")
    assert s.add_remove is None and "not defined" in s.text
    assert s.replace_one.upper > 0


@pytest.mark.parametrize("kwargs, says", [
    (dict(sample_rate=0.01, batch_size=10, dataset_size=100, steps=1), "sample_rate, or batch_size"),
    (dict(sample_rate=0.01), "steps or epochs"),
    (dict(sample_rate=2.0, steps=1), "sample_rate must lie in (0, 1]"),
    (dict(batch_size=10, steps=1), "dataset_size"),
    (dict(sample_rate=0.01, steps=1, sampling="shuffle"), "sampling is"),
])
def test_statement_refuses_bad_runs(kwargs, says):
    with pytest.raises(InvalidArgument, match=r".*" + says.replace("(", r"\(").replace(")", r"\)")):
        statement(1.0, 1e-5, **kwargs)


def test_group_epsilon():
    a = Accountant("gaussian").compose(Gaussian(1.0))
    b, ee, ed = a.group_epsilon(4, 1e-5)
    assert GROUP_MU1[4] <= b.upper <= GROUP_MU1[4] * (1 + 1e-5)
    assert b.flags & b.NO_LOWER
    assert 4 * math.exp(3 * ee) * ed <= 1e-5
    with pytest.raises(InvalidArgument):
        a.group_epsilon(0, 1e-5)
    with pytest.raises(TypeError):
        a.group_epsilon(2.5, 1e-5)


def test_template_calibration():
    # 100 Laplace(b) releases at delta 1e-5: eps in [4.2203026, 4.2203921] at
    # b = 10 and >= 4.2245587 at b = 9.99 (numpy FFT of the loss rounded down
    # and up, as in tests/cli/test-cli.sh): the smallest b within 4.221 lies
    # in (9.99, 10]
    c = calibrate("self_composed(count=100, laplace(scale=?))", 4.221, 1e-5, rel_tol=1e-4)
    assert 9.99 < c.value <= 10 and c.epsilon <= 4.221 and c.epsilon_at_fails > 4.221
    # T releases of sigma 3 are mu = sqrt(T)/3: the most within EPS_MU1 is 9
    c = calibrate("self_composed(count=?, gaussian(sigma=3))", 4.37717810, 1e-5, accountant="gaussian")
    assert c.value == 9 and isinstance(c.value, int) and c.fails == 10
    # JSON, the '?' a string: gdp(mu=?) within EPS_MU1 is mu = 1
    c = calibrate('{"kind": "gdp", "mu": "?"}', EPS_MU1, 1e-5, accountant="gdp", rel_tol=1e-8)
    assert 1 - 1e-7 < c.value <= 1 + 1e-12


@pytest.mark.parametrize("template, says", [
    ("gaussian(sigma=1)", "no parameter is left open"),
    ("epsilon_delta(eps=1, delta=?)", "position 28: epsilon_delta's delta cannot be left open"),
    ("compose(gaussian(sigma=?), laplace(scale=?))", "a second '?'"),
])
def test_template_mistakes(template, says):
    with pytest.raises(InvalidArgument, match=r".*" + says.replace("(", r"\(").replace("?", r"\?")):
        calibrate(template, 1.0, 1e-5)


def test_template_takes_no_direction():
    with pytest.raises(InvalidArgument, match="direction and integer"):
        calibrate("gaussian(sigma=?)", 1.0, 1e-5, direction="largest")


# mu = 1 Gaussian: TPR = Phi(Phi^-1(alpha) + 1), mpmath at 30 digits
GAUSS_CURVE_MU1 = {1e-3: 0.018298468405656598, 1e-2: 0.092362248073693936, 0.1: 0.38914369164536097}


@pytest.mark.parametrize("alpha", sorted(GAUSS_CURVE_MU1))
def test_tradeoff_of_a_gaussian(alpha):
    b = Accountant("gaussian").compose(Gaussian(1.0)).tradeoff(alpha)
    assert b.lower <= GAUSS_CURVE_MU1[alpha] <= b.upper and b.upper - b.lower <= 1e-8
    assert not b.flags & b.SYMMETRISED      # one pair: its own curve


def test_tradeoff_of_one_poisson_step_is_directional():
    # with the record against without it: TPR = (1 - q) alpha + q Phi(Phi^-1(alpha) + 1/sigma)
    # (Neyman-Pearson; the standard library's NormalDist); rdp keeps only the larger delta
    from statistics import NormalDist
    n = NormalDist()
    q, sigma, alpha = 0.1, 1.0, 0.01
    exact = (1 - q) * alpha + q * n.cdf(n.inv_cdf(alpha) + 1 / sigma)
    b = Accountant("pld").compose(dpacct.PoissonSampled(q, Gaussian(sigma))).tradeoff(alpha)
    assert b.lower <= exact <= b.upper and b.upper - b.lower <= 1e-8 and not b.flags & b.SYMMETRISED
    r = Accountant("rdp").compose(dpacct.PoissonSampled(q, Gaussian(sigma))).tradeoff(alpha)
    assert r.upper >= exact and r.flags & r.SYMMETRISED


def test_tradeoff_refuses_a_rate_outside_the_unit_interval():
    with pytest.raises(InvalidArgument, match="false-positive rate"):
        Accountant("gaussian").compose(Gaussian(1.0)).tradeoff(0.0)
