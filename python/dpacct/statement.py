"""The privacy statement of a DP-SGD run, for a paper: the Python side of
`dpacct statement` (accountants/cli/cli_statement.c), with the same numbers.

    >>> s = dpacct.statement(noise_multiplier=1.1, batch_size=256, dataset_size=60000, epochs=60, delta=1e-5)
    >>> print(s.text)
    >>> s.add_remove.upper        # the example-level epsilon to report

The noise multiplier is the noise's standard deviation over the clipping
norm C (Opacus's convention): sigma = Z under add-or-remove-one (sensitivity
C) and Z/2 under replace-one (sensitivity 2C), the same noise either way.
"""

import dataclasses
import decimal
import math
import typing

from .accountant import Accountant, Bound
from .errors import DPA_EINVAL, InvalidArgument, Unsupported
from .events import Gaussian, PoissonSampled, SampledWithoutReplacement, SelfComposed

__all__ = ["Statement", "ExampleLevel", "UserLevel", "statement"]

_METHOD_WORDS = {
    "pld": "privacy loss distributions composed by FFT with certified discretisation (Koskela, Jalko & Honkela, "
           "AISTATS 2020; Doroshenko, Ghazi, Kamath, Kumar & Manurangsi, PETS 2022)",
    "rdp": "Renyi DP (Mironov, CSF 2017) converted as by Canonne, Kamath & Steinke (NeurIPS 2020)",
    "gaussian": "the analytic Gaussian mechanism (Balle & Wang, ICML 2018), exact",
}


def _rounded(x, up):
    """x to 10 significant digits, rounded up (or down): the CLI's rule for
    bounds, so that a printed upper bound is still one."""
    if not math.isfinite(x) or x == 0:
        return x
    d = decimal.Decimal(x)   # exact
    with decimal.localcontext() as ctx:
        ctx.prec = 10
        ctx.rounding = decimal.ROUND_CEILING if up else decimal.ROUND_FLOOR
        r = +d
    v = float(r)
    # the decimal is exact; its nearest double may fall on the wrong side
    if up and v < x:
        v = math.nextafter(v, math.inf)
    if not up and v > x:
        v = math.nextafter(v, -math.inf)
    return v


def _shown(x, up=True):
    return "%.10g" % _rounded(x, up)


@dataclasses.dataclass(frozen=True)
class ExampleLevel:
    """The example-level guarantee under one relation: the method's bracket
    (`bound`: upper is the number to report) and rdp's upper bound beside it
    (None where rdp has no value)."""
    relation: str
    method: str
    bound: Bound
    rdp_upper: typing.Optional[float]

    @property
    def upper(self):
        return self.bound.upper


@dataclasses.dataclass(frozen=True)
class UserLevel:
    """User-level epsilon by group privacy (Vadhan 2017, Lemma 2.2) from the
    example-level pair (example_epsilon, example_delta); epsilon is inf when
    no pair gives a finite one."""
    relation: str
    max_examples_per_user: int
    epsilon: float
    example_epsilon: float
    example_delta: float


@dataclasses.dataclass(frozen=True)
class Statement:
    """A DP-SGD run's privacy statement: the numbers and the paragraph."""
    steps: int
    epochs: float
    noise_multiplier: float
    sampling: str                 # "poisson", "without-replacement" or "none"
    delta: float
    method: str
    add_remove: typing.Optional[ExampleLevel]   # None for fixed-size batches (not defined)
    replace_one: ExampleLevel
    user_level: typing.Optional[UserLevel]
    text: str

    def __str__(self):
        return self.text


def _steps(epochs, q):
    """ceil(E / q), an integer quotient on paper kept as one (as the CLI)."""
    x = epochs / q
    r = round(x)
    n = r if abs(x - r) <= 8 * 2.220446049250313e-16 * r else math.ceil(x)
    return max(1, int(n))


def statement(noise_multiplier, delta, *, sample_rate=None, batch_size=None, dataset_size=None, epochs=None,
              steps=None, sampling="poisson", max_examples_per_user=None, accountant=None, eps_error=None):
    """The privacy statement of DP-SGD with noise multiplier Z (noise std over
    the clipping norm) at `delta`.

    Sampling: sample_rate q (Poisson), or batch_size B of dataset_size N
    (q = B/N; sampling="without-replacement" for batches of exactly B, where
    only replace-one neighbours are defined).  Length: steps, or epochs
    (steps = ceil(E / q)).  max_examples_per_user k > 1 adds the user-level
    epsilon by group privacy.  accountant: the method (default pld where it
    applies, else rdp); eps_error: its accuracy.

    Returns a Statement; its numbers are those of `dpacct statement` and
    `dpacct compare` for the same run.
    """
    z = float(noise_multiplier)
    if not z > 0:
        raise InvalidArgument("statement: noise_multiplier must be positive, got %r" % (noise_multiplier,), DPA_EINVAL)
    if sampling not in ("poisson", "without-replacement"):
        raise InvalidArgument("statement: sampling is 'poisson' or 'without-replacement', got %r" % (sampling,),
                              DPA_EINVAL)
    if (sample_rate is None) == (batch_size is None):
        raise InvalidArgument("statement: give sample_rate, or batch_size with dataset_size", DPA_EINVAL)
    if batch_size is not None:
        if dataset_size is None or not 1 <= int(batch_size) <= int(dataset_size):
            raise InvalidArgument("statement: batch_size needs dataset_size >= batch_size >= 1", DPA_EINVAL)
        batch_size, dataset_size = int(batch_size), int(dataset_size)
        q = batch_size / dataset_size
    else:
        if sampling == "without-replacement":
            raise InvalidArgument("statement: without-replacement sampling needs batch_size and dataset_size",
                                  DPA_EINVAL)
        q = float(sample_rate)
        if not 0 < q <= 1:
            raise InvalidArgument("statement: sample_rate must lie in (0, 1], got %r" % (sample_rate,), DPA_EINVAL)
    if (steps is None) == (epochs is None):
        raise InvalidArgument("statement: give steps or epochs", DPA_EINVAL)
    T = int(steps) if steps is not None else _steps(float(epochs), q)
    if T < 1:
        raise InvalidArgument("statement: steps must be at least 1", DPA_EINVAL)
    fixed = sampling == "without-replacement"

    def run(sigma):
        e = Gaussian(sigma)
        if fixed:
            e = SampledWithoutReplacement(dataset_size, batch_size, e)
        elif q < 1:
            e = PoissonSampled(q, e)
        return SelfComposed(e, T) if T > 1 else e

    sigmas = {"add-remove": z, "replace-one": z / 2}
    method = accountant
    if method is None:
        main_rel = "replace-one" if fixed else "add-remove"
        method = "pld" if Accountant("pld", relation=main_rel).supports(run(sigmas[main_rel])) else "rdp"

    def composed(name, rel):
        return Accountant(name, relation=rel, eps_error=eps_error).compose(run(sigmas[rel]))

    def example(rel):
        if fixed and rel == "add-remove":
            return None
        bound = composed(method, rel).epsilon(delta)
        try:
            rdp = composed("rdp", rel).epsilon(delta).upper
        except Unsupported:
            rdp = None
        return ExampleLevel(rel, method, bound, rdp)

    add_remove, replace_one = example("add-remove"), example("replace-one")
    user = None
    if max_examples_per_user is not None and int(max_examples_per_user) > 1:
        k = int(max_examples_per_user)
        rel = "replace-one" if fixed else "add-remove"
        b, ee, ed = composed(method, rel).group_epsilon(k, delta)
        eps = b.upper
        if math.isfinite(eps):
            # k times the record-level epsilon as printed (rounded up), as the CLI
            eps = max(eps, k * _rounded(ee, True) * (1 + 4 * 2.220446049250313e-16))
        user = UserLevel(rel, k, eps, ee, ed)

    epochs_done = T * q
    if fixed:
        sampling_words = ("batches of exactly %d of the %d examples drawn uniformly without replacement at every "
                          "step, independently of the other steps (the accounting assumes this; shuffling the data "
                          "once per epoch and cutting it into batches is a different sampler, not covered)"
                          % (batch_size, dataset_size))
    elif q < 1:
        sampling_words = ("Poisson sampling: each example joins each batch independently with probability q = %.6g "
                          "(the accounting assumes this; fixed-size or shuffled batches are a different sampler, not "
                          "covered)" % q)
    else:
        sampling_words = "full batches (every example at every step)"
    lines = ["DP-SGD for %d steps (%.4g epochs) with %s. Each step adds Gaussian noise of standard deviation %.6g C "
             "to the sum of the per-example gradients clipped to norm C (noise multiplier %.6g). Every intermediate "
             "model may be released: the guarantee covers all of them, the final model included."
             % (T, epochs_done, sampling_words, z, z), ""]

    def words(ex):
        if ex is None:
            return "not defined (fixed-size batches keep the dataset size: neighbours replace one example)"
        up = _shown(ex.bound.upper)
        rdp = "no value" if ex.rdp_upper is None else _shown(ex.rdp_upper)
        if not ex.bound.flags & Bound.NO_LOWER:
            return ("epsilon = %s (a certified upper bound by %s; the true epsilon lies in [%s, %s]; RDP gives %s)"
                    % (up, ex.method, _shown(ex.bound.lower, False), up, rdp))
        return "epsilon = %s (a certified upper bound by %s; RDP gives %s)" % (up, ex.method, rdp)

    d = "%.10g" % delta
    lines.append("Example-level DP at delta = %s, add-or-remove-one neighbours: %s." % (d, words(add_remove)))
    lines.append("Example-level DP at delta = %s, replace-one neighbours (sensitivity 2C): %s."
                 % (d, words(replace_one)))
    if user is not None:
        if math.isfinite(user.epsilon):
            lines.append("User-level DP (%s, each user contributing at most %d examples): epsilon = %s at delta = %s, "
                         "by group privacy of the example-level guarantee ((eps, d) for one example gives (k eps, "
                         "k e^((k-1) eps) d) for k; Vadhan 2017, Lemma 2.2) at eps = %s, d = %s."
                         % (user.relation, user.max_examples_per_user, _shown(user.epsilon), d,
                            _shown(user.example_epsilon), _shown(user.example_delta)))
        else:
            lines.append("User-level DP (each user contributing at most %d examples): no finite epsilon at delta = "
                         "%s by group privacy." % (user.max_examples_per_user, d))
    from .accountant import library_version
    lines += ["", "Accounting: %s, computed by dpacct %s." % (_METHOD_WORDS.get(method, method), library_version())]
    return Statement(T, epochs_done, z, "without-replacement" if fixed else "poisson" if q < 1 else "none",
                     float(delta), method, add_remove, replace_one, user, "\n".join(lines))
