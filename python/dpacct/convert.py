"""dp_accounting's DpEvents as dpacct events, without importing dp_accounting.

from_dp_accounting(e) reads an event by its class name (type(e).__name__)
and its documented fields, so any object shaped like dp_accounting's classes
converts: the real ones, their named-tuple forms (to_named_tuple(), whose
class name is in a `class_name` field), or test doubles.  It converts only
what maps exactly onto a libdpacct event and refuses the rest by name
(Unsupported), never approximating silently:

  GaussianDpEvent(noise_multiplier)           Gaussian(sigma)
  LaplaceDpEvent(noise_multiplier)            Laplace(scale): both are the
                                              scale over the l1 sensitivity
  EpsilonDeltaDpEvent(epsilon, delta)         EpsilonDelta(eps, delta)
  ZCDpEvent(rho, xi)                          ZCDP(rho, xi)
  ExponentialMechanismDpEvent(epsilon)        Exponential(eps) (eps-DP,
                                              eps-bounded range in both)
  PermuteAndFlipDpEvent(epsilon)              PermuteAndFlip(eps): accounted
                                              as pure eps-DP here, where
                                              dp_accounting uses Laplace's
                                              PLD (a tighter claim)
  DiscreteGaussianDpEvent(sigma, sensitivity, dimension)
                                              DiscreteGaussian, for
                                              dimension 1 and a whole
                                              sensitivity only (the library's
                                              is univariate)
  DiscreteLaplaceDpEvent(noise_parameter a, sensitivity)
                                              DiscreteLaplace(scale=1/a) when
                                              1/a is exact in floating point
  PoissonSampledDpEvent(sampling_probability, event)
                                              PoissonSampled(q, event)
  SampledWithoutReplacementDpEvent(source_dataset_size, sample_size, event)
                                              SampledWithoutReplacement(n, m)
  SampledWithReplacementDpEvent(...)          SampledWithReplacement(n, m)
  TruncatedSubsampledGaussianDpEvent(dataset_size, sampling_probability,
      truncated_batch_size, noise_multiplier)
      TruncatedPoisson(q=sampling_probability, n=dataset_size,
      max_batch=min(truncated_batch_size, dataset_size),
      Gaussian(noise_multiplier)): a cap above the dataset never truncates,
      the same as a cap at it.  Accounted here with the add and remove
      worlds kept apart, where dp_accounting bounds the truncated branch by
      the replace-one pair at sigma/2 (a looser claim).
  SelfComposedDpEvent(event, count)           SelfComposed(event, count)
  ComposedDpEvent(events)                     Composed(events)
  SingleEpochTreeAggregationDpEvent(noise_multiplier, step_counts)
      each record in at most one of the trees: exactly the tree holding it,
      the worst case the largest: TreeAggregation(sigma, max(step_counts)).
      Both are the Gaussian with 1/sigma_eff^2 = depth / sigma^2, depth =
      ceil(log2(T + 1)) = floor(log2 T) + 1 for a tree of T steps.
  RepeatAndSelectDpEvent(event, mean, shape)
      shape = inf: RepeatedSelected(event, "poisson", mean=mean);
      shape = 1 (the geometric distribution, Papernot & Steinke's truncated
      negative binomial with eta = 1): RepeatedSelected(event, "geometric",
      gamma=1/mean), 1/mean rounded down when it is not exact (a mean at
      least the one given: every bound of repeated_selected is an upper
      bound, and it grows with the mean); other shapes (logarithmic,
      truncated negative binomial) need gamma solved from the mean, which is
      not exact: refused -- build RepeatedSelected(event,
      "truncated_negative_binomial", eta=shape, gamma=...) yourself.
  MixtureOfGaussiansDpEvent(standard_deviation, sensitivities, sampling_probs)
                                              MixtureOfGaussians(sigma,
                                              sensitivities, probabilities)
                                              (Choquette-Choo et al., ICLR
                                              2024; the same pair)
  NoOpDpEvent                                 no event: left out of a
                                              composition; NoOp() alone

Events that do nothing are no-ops, as in dp_accounting: a count of 0, an
empty composition, a sampling probability or sample size (or truncated batch
size) of 0, trees of no steps, and any wrapper around a no-op.

Refused: NonPrivateDpEvent (libdpacct has no non-private event),
UnsupportedDpEvent, RandomizedResponseDpEvent (its noise parameter p gives
eps = log(1 + k (1 - p) / p), not exact in floating point: build
RandomizedResponse(eps, k) yourself), and any other class.  Parameters are
passed on as given: the library checks them (a
noise multiplier of 0, which dp_accounting accepts as infinite eps, is
InvalidArgument here).
"""

import fractions
import math
import numbers

from .errors import Unsupported, DPA_EUNSUPPORTED
from . import events as ev

__all__ = ["from_dp_accounting"]


def _name(e):
    """The dp_accounting class name of e (its named-tuple form too)."""
    cname = getattr(e, "class_name", None)
    if isinstance(cname, bytes):
        cname = cname.decode()
    if isinstance(cname, str) and hasattr(e, "_fields"):
        return cname
    return type(e).__name__


def _refuse(name, why):
    raise Unsupported("from_dp_accounting: %s %s" % (name, why), DPA_EUNSUPPORTED)


def _field(e, name, field):
    try:
        return getattr(e, field)
    except AttributeError:
        _refuse(name, "has no field %r (not shaped like dp_accounting's %s)" % (field, name))


def _exact_reciprocal(x):
    """1/x when it is exact in floating point, else None."""
    if not isinstance(x, numbers.Real) or isinstance(x, bool) or not math.isfinite(x) or x == 0:
        return None
    r = 1.0 / float(x)
    if math.isfinite(r) and fractions.Fraction(r) * fractions.Fraction(float(x)) == 1:
        return r
    return None


def _reciprocal_down(x):
    """1/x rounded towards 0 (x > 0 finite)."""
    r = 1.0 / x
    if fractions.Fraction(r) * fractions.Fraction(x) > 1:
        r = math.nextafter(r, 0.0)
    return r


def _is_zero(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and x == 0


def from_dp_accounting(e):
    """The dpacct event for a dp_accounting DpEvent (see the module's table):
    an Event, or NoOp() for an event without privacy cost.  Unsupported for
    what does not map exactly, naming the class."""
    out = _convert(e)
    return ev.NoOp() if out is None else out


def _convert(e):
    """The event, or None for a no-op."""
    if isinstance(e, ev.Event):
        return None if isinstance(e, ev.NoOp) else e
    name = _name(e)
    f = lambda field: _field(e, name, field)  # noqa: E731

    if name == "NoOpDpEvent":
        return None
    if name == "GaussianDpEvent":
        return ev.Gaussian(f("noise_multiplier"))
    if name == "LaplaceDpEvent":
        return ev.Laplace(f("noise_multiplier"))
    if name == "EpsilonDeltaDpEvent":
        return ev.EpsilonDelta(f("epsilon"), f("delta"))
    if name == "ZCDpEvent":
        return ev.ZCDP(f("rho"), getattr(e, "xi", 0.0))
    if name == "ExponentialMechanismDpEvent":
        return ev.Exponential(f("epsilon"))
    if name == "PermuteAndFlipDpEvent":
        return ev.PermuteAndFlip(f("epsilon"))
    if name == "MixtureOfGaussiansDpEvent":
        return ev.MixtureOfGaussians(f("standard_deviation"), tuple(f("sensitivities")), tuple(f("sampling_probs")))
    if name == "DiscreteGaussianDpEvent":
        dim = getattr(e, "dimension", None)
        sens = getattr(e, "sensitivity", 1.0)
        if dim != 1:
            _refuse(name, "with dimension=%r: libdpacct's discrete Gaussian is univariate (dimension=1); "
                          "the multivariate one is not the same mechanism" % (dim,))
        if not (isinstance(sens, numbers.Real) and float(sens).is_integer()):
            _refuse(name, "with sensitivity=%r: libdpacct's discrete Gaussian takes a whole sensitivity" % (sens,))
        return ev.DiscreteGaussian(f("sigma"), int(sens))
    if name == "DiscreteLaplaceDpEvent":
        a = f("noise_parameter")
        scale = _exact_reciprocal(a)
        if scale is None:
            _refuse(name, "with noise_parameter=%r: libdpacct's discrete Laplace takes scale = 1/a, which is not "
                          "exact in floating point here; build DiscreteLaplace(scale, sensitivity) yourself" % (a,))
        return ev.DiscreteLaplace(scale, f("sensitivity"))

    if name == "PoissonSampledDpEvent":
        q = f("sampling_probability")
        inner = _convert(f("event"))
        return None if inner is None or _is_zero(q) else ev.PoissonSampled(q, inner)
    if name in ("SampledWithoutReplacementDpEvent", "SampledWithReplacementDpEvent"):
        n, m = f("source_dataset_size"), f("sample_size")
        inner = _convert(f("event"))
        if inner is None or _is_zero(m):
            return None
        cls = ev.SampledWithoutReplacement if name.startswith("SampledWithout") else ev.SampledWithReplacement
        return cls(n, m, inner)
    if name == "TruncatedSubsampledGaussianDpEvent":
        n, q, cap = f("dataset_size"), f("sampling_probability"), f("truncated_batch_size")
        sigma = f("noise_multiplier")
        if _is_zero(q) or _is_zero(cap):
            return None
        if isinstance(n, numbers.Integral) and isinstance(cap, numbers.Integral) and cap > n >= 1:
            cap = n    # never truncated: the same mechanism as a cap at n
        return ev.TruncatedPoisson(q, n, cap, ev.Gaussian(sigma))
    if name == "SelfComposedDpEvent":
        count = f("count")
        inner = _convert(f("event"))
        return None if inner is None or _is_zero(count) else ev.SelfComposed(inner, count)
    if name == "ComposedDpEvent":
        kids = [k for k in (_convert(x) for x in f("events")) if k is not None]
        return ev.Composed(kids) if kids else None
    if name == "SingleEpochTreeAggregationDpEvent":
        sigma, steps = f("noise_multiplier"), f("step_counts")
        if isinstance(steps, numbers.Real):
            steps = [steps]
        steps = list(steps)
        if not steps:
            _refuse(name, "with no step_counts (dp_accounting refuses it too)")
        if any(not isinstance(s, numbers.Integral) or s < 0 for s in steps):
            _refuse(name, "with step_counts=%r: each must be a whole number >= 0" % (steps,))
        largest = max(int(s) for s in steps)
        return None if largest == 0 else ev.TreeAggregation(sigma, largest)
    if name == "RepeatAndSelectDpEvent":
        mean, shape = f("mean"), f("shape")
        inner = _convert(f("event"))
        if inner is None:
            return None
        if isinstance(shape, numbers.Real) and shape == math.inf:
            return ev.RepeatedSelected(inner, "poisson", mean=mean)
        if isinstance(shape, numbers.Real) and shape == 1:
            if not (isinstance(mean, numbers.Real) and mean > 0 and math.isfinite(mean)):
                _refuse(name, "with mean=%r: the geometric distribution needs a finite mean > 0" % (mean,))
            return ev.RepeatedSelected(inner, "geometric", gamma=_reciprocal_down(float(mean)))
        _refuse(name, "with shape=%r: only shape=inf (Poisson) and shape=1 (geometric) map exactly onto "
                      "libdpacct's repeated_selected; for a truncated negative binomial build "
                      "RepeatedSelected(event, 'truncated_negative_binomial', eta=shape, gamma=...) yourself"
                % (shape,))

    why = {
        "NonPrivateDpEvent": "is not private: libdpacct has no event for it",
        "UnsupportedDpEvent": "is unsupported by definition",
        "RandomizedResponseDpEvent": "(noise parameter p): its eps = log(1 + k (1 - p) / p) is not exact in "
                                     "floating point; build RandomizedResponse(eps, k) yourself",
    }.get(name, "has no libdpacct event")
    _refuse(name, why)
