"""Accountants with Opacus's interface, to stand in for its RDP or PRV
accountant in a training loop, answering with libdpacct's certified bounds.

    from dpacct.opacus import PLDAccountant
    accountant = PLDAccountant()
    for batch in loader:
        ...
        accountant.step(noise_multiplier=1.1, sample_rate=256 / 60000)
    accountant.get_epsilon(delta=1e-5)    # the certified upper bound

The interface is Opacus's IAccountant: step(noise_multiplier=, sample_rate=)
(keyword-only), get_epsilon(delta), history (a list of (noise_multiplier,
sample_rate, num_steps), consecutive equal steps merged), __len__ (the length
of the history, as in Opacus), mechanism(), state_dict() and
load_state_dict(), get_optimizer_hook_fn(sample_rate).  Each step is a
Poisson-sampled Gaussian (DP-SGD), so the history is the event
Composed([SelfComposed(PoissonSampled(q, Gaussian(s)), n), ...]).

RDPAccountant uses the library's rdp accountant, PLDAccountant its pld
accountant (certified brackets; get_epsilon reports the upper end), and
PRVAccountant is PLDAccountant under the name Opacus gives its numerical
accountant ("prv"), so that code that looks an accountant up by mechanism
name (Opacus's make_private_with_epsilon) keeps working.  The relation is
add/remove, as in Opacus.  Opacus itself is not imported.
"""

import collections
import copy

from .accountant import Accountant
from .events import Composed, Gaussian, PoissonSampled, SelfComposed

__all__ = ["OpacusAccountant", "RDPAccountant", "PLDAccountant", "PRVAccountant", "create_accountant"]


class OpacusAccountant:
    """Base class: Opacus's IAccountant over a libdpacct accountant
    (`ACCOUNTANT`), reporting itself as `MECHANISM`."""

    ACCOUNTANT = None
    MECHANISM = None

    def __init__(self, relation="add-remove", eps_error=None, orders=None):
        self.history = []  # (noise_multiplier, sample_rate, num_steps)
        self._relation = relation
        self._eps_error = eps_error
        self._orders = orders
        self._cache = None  # (key, Accountant) of the last query

    @classmethod
    def mechanism(cls):
        return cls.MECHANISM

    def __len__(self):
        return len(self.history)

    def step(self, *, noise_multiplier, sample_rate):
        """One step of DP-SGD: a Poisson-sampled Gaussian.  Equal
        consecutive steps are merged into one history entry, as in Opacus."""
        if self.history:
            last_sigma, last_q, n = self.history[-1]
            if last_sigma == noise_multiplier and last_q == sample_rate:
                self.history[-1] = (last_sigma, last_q, n + 1)
                return
        self.history.append((noise_multiplier, sample_rate, 1))

    def event(self):
        """The history as one dpacct event (None when empty)."""
        if not self.history:
            return None
        return Composed([SelfComposed(PoissonSampled(q, Gaussian(s)), n) for s, q, n in self.history])

    def accountant(self, eps_error=None, orders=None):
        """A libdpacct Accountant holding the history."""
        eps_error = self._eps_error if eps_error is None else eps_error
        orders = self._orders if orders is None else orders
        key = (tuple(self.history), eps_error, None if orders is None else tuple(orders))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        acct = Accountant(self.ACCOUNTANT, relation=self._relation, eps_error=eps_error, orders=orders)
        for s, q, n in self.history:
            acct.compose(SelfComposed(PoissonSampled(q, Gaussian(s)), n))
        self._cache = (key, acct)
        return acct

    def get_bound(self, delta, eps_error=None, orders=None):
        """The whole Bound (lower, upper, flags, ...) of eps at delta."""
        return self.accountant(eps_error, orders).epsilon(delta)

    def get_epsilon(self, delta, **kwargs):
        """The certified upper bound on eps at delta (0 before any step).
        Opacus's keyword arguments are accepted: eps_error (PRV: the
        accuracy of pld), alphas (RDP: the orders to use); delta_error is
        ignored (pld brackets eps itself)."""
        eps_error = kwargs.pop("eps_error", None)
        orders = kwargs.pop("alphas", None)
        kwargs.pop("delta_error", None)
        if kwargs:
            raise TypeError("get_epsilon() got unexpected keyword arguments %s" % ", ".join(sorted(kwargs)))
        if not self.history:
            return 0.0
        return self.get_bound(delta, eps_error, orders).upper

    def get_optimizer_hook_fn(self, sample_rate):
        """Opacus's optimizer hook: one step per optimizer step, at the
        optimizer's noise multiplier and the sample rate times its
        accumulated iterations."""
        def hook_fn(optim):
            self.step(noise_multiplier=optim.noise_multiplier,
                      sample_rate=sample_rate * getattr(optim, "accumulated_iterations", 1))
        return hook_fn

    def state_dict(self, destination=None):
        """{"history": a copy of the history, "mechanism": mechanism()}."""
        if destination is None:
            destination = collections.OrderedDict()
        destination["history"] = copy.deepcopy(self.history)
        destination["mechanism"] = self.mechanism()
        return destination

    def load_state_dict(self, state_dict):
        """Restore the history of a state_dict of the same mechanism (ours,
        or Opacus's, whose "mechanism" is the class's mechanism method)."""
        if not state_dict:
            raise ValueError("state dict is either None or empty.")
        for key in ("history", "mechanism"):
            if key not in state_dict:
                raise ValueError("state_dict does not have the key `%s`. Cannot be loaded into Privacy Accountant."
                                 % key)
        mech = state_dict["mechanism"]
        if callable(mech):
            mech = mech()
        if mech != self.mechanism():
            raise ValueError("state_dict of %s cannot be loaded into Privacy Accountant with mechanism %s"
                             % (mech, self.mechanism()))
        self.history = [tuple(h) for h in state_dict["history"]]
        self._cache = None


class RDPAccountant(OpacusAccountant):
    """Opacus's RDPAccountant over libdpacct's rdp accountant."""
    ACCOUNTANT = "rdp"
    MECHANISM = "rdp"

    def get_privacy_spent(self, *, delta, alphas=None):
        """(eps, the Renyi order used), as Opacus's RDPAccountant."""
        if not self.history:
            return 0.0, 0.0
        b = self.get_bound(delta, orders=alphas)
        return b.upper, b.order


class PLDAccountant(OpacusAccountant):
    """A numerical accountant over libdpacct's pld accountant: certified
    brackets, get_epsilon their upper end."""
    ACCOUNTANT = "pld"
    MECHANISM = "pld"


class PRVAccountant(PLDAccountant):
    """PLDAccountant under Opacus's name for its numerical accountant."""
    MECHANISM = "prv"


def create_accountant(mechanism, **kwargs):
    """The accountant for an Opacus mechanism name: "rdp", "prv" or "pld"."""
    for cls in (RDPAccountant, PRVAccountant, PLDAccountant):
        if cls.MECHANISM == mechanism:
            return cls(**kwargs)
    raise ValueError("Unexpected accounting mechanism: %s (dpacct has rdp, prv and pld)" % (mechanism,))
