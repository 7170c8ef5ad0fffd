"""The Opacus-style accountants."""

import collections

import pytest

from dpacct import Accountant, Gaussian, PoissonSampled, SelfComposed
from dpacct.opacus import PLDAccountant, PRVAccountant, RDPAccountant, create_accountant

DELTA = 1e-5


@pytest.mark.parametrize("cls,name", [(RDPAccountant, "rdp"), (PLDAccountant, "pld"), (PRVAccountant, "pld")])
def test_steps_are_the_composed_event(cls, name):
    sigma, q, k = 1.1, 256 / 60000, 700
    acct = cls()
    for _ in range(k):
        acct.step(noise_multiplier=sigma, sample_rate=q)
    assert acct.history == [(sigma, q, k)] and len(acct) == 1
    direct = Accountant(name).compose(SelfComposed(PoissonSampled(q, Gaussian(sigma)), k)).epsilon(DELTA)
    assert acct.get_epsilon(DELTA) == direct.upper
    assert acct.get_epsilon(delta=DELTA) == direct.upper     # cached, same answer
    assert acct.get_bound(DELTA) == direct


def test_history_merges_consecutive_equal_steps():
    acct = RDPAccountant()
    for sigma, q in [(1.0, 0.01)] * 3 + [(1.1, 0.01)] * 2 + [(1.1, 0.02)] + [(1.0, 0.01)]:
        acct.step(noise_multiplier=sigma, sample_rate=q)
    assert acct.history == [(1.0, 0.01, 3), (1.1, 0.01, 2), (1.1, 0.02, 1), (1.0, 0.01, 1)]
    assert len(acct) == 4
    # the history is composed in full
    direct = Accountant("rdp")
    for sigma, q, n in acct.history:
        direct.compose(PoissonSampled(q, Gaussian(sigma)), count=n)
    assert acct.get_epsilon(DELTA) == direct.epsilon(DELTA).upper
    eps, order = acct.get_privacy_spent(delta=DELTA)
    assert eps == direct.epsilon(DELTA).upper and order > 1


def test_state_dict_round_trip():
    a = PLDAccountant()
    for _ in range(50):
        a.step(noise_multiplier=0.9, sample_rate=0.02)
    a.step(noise_multiplier=1.3, sample_rate=0.02)
    state = a.state_dict()
    assert isinstance(state, collections.OrderedDict)
    assert state["mechanism"] == "pld" and state["history"] == a.history
    state["history"].append((5.0, 0.5, 1))          # a copy: a is unchanged
    assert len(a.history) == 2
    b = PLDAccountant()
    b.load_state_dict(a.state_dict())
    assert b.history == a.history
    assert b.get_epsilon(DELTA) == a.get_epsilon(DELTA)
    with pytest.raises(ValueError, match="rdp"):
        RDPAccountant().load_state_dict(a.state_dict())
    with pytest.raises(ValueError):
        b.load_state_dict({})
    with pytest.raises(ValueError, match="history"):
        b.load_state_dict({"mechanism": "pld"})

    # Opacus stores the class's mechanism method itself
    class OpacusRDP:
        @classmethod
        def mechanism(cls):
            return "rdp"
    c = RDPAccountant()
    c.load_state_dict({"history": [(1.0, 0.01, 10)], "mechanism": OpacusRDP.mechanism})
    assert c.history == [(1.0, 0.01, 10)]


def test_opacus_interface():
    assert RDPAccountant.mechanism() == "rdp"
    assert PLDAccountant().mechanism() == "pld"
    assert PRVAccountant.mechanism() == "prv"
    assert isinstance(create_accountant("prv"), PRVAccountant)
    assert isinstance(create_accountant("rdp"), RDPAccountant)
    with pytest.raises(ValueError):
        create_accountant("gdp")
    a = PRVAccountant()
    assert a.get_epsilon(DELTA) == 0.0 and len(a) == 0
    with pytest.raises(TypeError):
        a.step(1.0, 0.01)                     # keyword-only, as in Opacus
    with pytest.raises(TypeError):
        a.get_epsilon(DELTA, alpha=3)

    class Optimizer:
        noise_multiplier = 1.2
        accumulated_iterations = 2
    hook = a.get_optimizer_hook_fn(sample_rate=0.01)
    hook(Optimizer())
    hook(Optimizer())
    assert a.history == [(1.2, 0.02, 2)]
    # PRV's accuracy argument: a looser bracket, still certified
    tight = a.get_bound(DELTA)
    loose = a.get_epsilon(DELTA, eps_error=0.1, delta_error=1e-9)
    assert loose >= tight.lower
