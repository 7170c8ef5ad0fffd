"""Calibration: what it finds meets the target, and a little less does not."""

import math

import pytest

import dpacct
from dpacct import Accountant, Gaussian, PoissonSampled, SelfComposed, calibrate, calibrate_noise_multiplier

GDP1_EPS = 4.3771780956812246   # mu = 1 GDP at delta 1e-5 (mpmath; test_accountant.py)
DELTA = 1e-5
Q, STEPS = 0.004, 2000


def dpsgd(sigma):
    return SelfComposed(PoissonSampled(Q, Gaussian(sigma)), STEPS)


def eps_upper(name, sigma):
    return Accountant(name).compose(dpsgd(sigma)).epsilon(DELTA).upper


@pytest.mark.parametrize("target", [1.0, 3.0])
def test_rdp_noise_multiplier(target):
    tol = 1e-6
    c = calibrate_noise_multiplier(Q, STEPS, target, DELTA, accountant="rdp", rel_tol=tol)
    sigma = c.value
    assert eps_upper("rdp", sigma) <= target
    assert c.epsilon == eps_upper("rdp", sigma)
    assert eps_upper("rdp", sigma * (1 - 2 * tol)) > target
    assert c.fails < sigma and c.epsilon_at_fails > target


def test_pld_noise_multiplier():
    target = 2.0
    c = calibrate_noise_multiplier(Q, STEPS, target, DELTA)     # pld, guided by rdp
    assert c.epsilon <= target
    assert eps_upper("pld", c.value) <= target
    assert c.epsilon_at_fails > target
    assert 0 < c.value - c.fails <= 1e-8 * c.value
    # pld's certified bound is below rdp's: less noise is needed
    rdp = calibrate_noise_multiplier(Q, STEPS, target, DELTA, accountant="rdp")
    assert c.value < rdp.value
    assert c.evaluations > 0 and rdp.evaluations > 0


def test_gaussian_noise_is_the_closed_form():
    # one Gaussian meets (GDP1_EPS, 1e-5) from sigma = 1 on (mu = 1/sigma)
    c = calibrate(lambda s: Gaussian(s), GDP1_EPS, DELTA, accountant="gaussian")
    assert c.value == pytest.approx(1.0, rel=1e-8)


def test_largest_number_of_steps():
    # Gaussians of sigma 4: mu^2 = T / 16, mu = 1 at T = 16
    c = calibrate(lambda t: SelfComposed(Gaussian(4.0), t), GDP1_EPS * (1 + 1e-9), DELTA, accountant="gaussian",
                  direction="largest", integer=True)
    assert c.value == 16 and isinstance(c.value, int)
    assert c.fails == 17


def test_family_errors():
    def family(s):
        raise KeyError("boom")
    with pytest.raises(KeyError):
        calibrate(family, 1.0, DELTA, accountant="rdp")
    # the library's refusal of the events, or of the target
    with pytest.raises(dpacct.InvalidArgument):
        calibrate(lambda s: PoissonSampled(2.0, Gaussian(s)), 1.0, DELTA, accountant="rdp")
    with pytest.raises(dpacct.NoBracket) as info:
        calibrate(lambda s: Gaussian(s), 1e-3, DELTA, accountant="gaussian", limit_hi=10.0, hi=10.0)
    c = info.value.calibration
    assert c.fails == 10.0 and c.epsilon_at_fails > 1e-3 and math.isnan(c.value)
    with pytest.raises(dpacct.InvalidArgument):
        calibrate(lambda s: Gaussian(s), 1.0, DELTA, direction="upwards")


def test_out_of_evaluations():
    with pytest.raises(dpacct.AccuracyNotReached) as info:
        calibrate_noise_multiplier(Q, STEPS, 1.0, DELTA, accountant="rdp", guide=None, max_evaluations=3)
    c = info.value.calibration
    assert c.evaluations == 3
    # the best bracket so far: what meets the target meets it
    if not math.isnan(c.value):
        assert eps_upper("rdp", c.value) <= 1.0
