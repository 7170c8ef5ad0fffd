"""from_dp_accounting: dp_accounting's DpEvents by class name and fields.

dp_accounting is not a dependency: the classes below are stand-ins with its
class names and documented fields (dp_accounting/dp_event.py), which is all
that the conversion reads."""

import collections
import dataclasses
import fractions
import math

import pytest

import dpacct
from dpacct import (Accountant, Composed, DiscreteGaussian, DiscreteLaplace, EpsilonDelta, Exponential, Gaussian,
                    Laplace, MixtureOfGaussians, NoOp, PermuteAndFlip, PoissonSampled, RepeatedSelected, SampledWithReplacement,
                    SampledWithoutReplacement, SelfComposed, TreeAggregation, TruncatedPoisson, ZCDP,
                    from_dp_accounting)

GDP1_EPS = 4.3771780956812246   # mu = 1 GDP at delta 1e-5 (mpmath; test_accountant.py)


def dp_class(name, *fields):
    return dataclasses.make_dataclass(name, fields, frozen=True)


NoOpDpEvent = dp_class("NoOpDpEvent")
NonPrivateDpEvent = dp_class("NonPrivateDpEvent")
UnsupportedDpEvent = dp_class("UnsupportedDpEvent")
GaussianDpEvent = dp_class("GaussianDpEvent", "noise_multiplier")
LaplaceDpEvent = dp_class("LaplaceDpEvent", "noise_multiplier")
RandomizedResponseDpEvent = dp_class("RandomizedResponseDpEvent", "noise_parameter", "num_buckets")
EpsilonDeltaDpEvent = dp_class("EpsilonDeltaDpEvent", "epsilon", "delta")
ZCDpEvent = dp_class("ZCDpEvent", "rho", ("xi", float, dataclasses.field(default=0.0)))
ExponentialMechanismDpEvent = dp_class("ExponentialMechanismDpEvent", "epsilon")
PermuteAndFlipDpEvent = dp_class("PermuteAndFlipDpEvent", "epsilon")
DiscreteLaplaceDpEvent = dp_class("DiscreteLaplaceDpEvent", "noise_parameter", "sensitivity")
DiscreteGaussianDpEvent = dp_class("DiscreteGaussianDpEvent", "sigma",
                                   ("sensitivity", float, dataclasses.field(default=1.0)),
                                   ("dimension", object, dataclasses.field(default=None)))
SelfComposedDpEvent = dp_class("SelfComposedDpEvent", "event", "count")
ComposedDpEvent = dp_class("ComposedDpEvent", "events")
PoissonSampledDpEvent = dp_class("PoissonSampledDpEvent", "sampling_probability", "event")
SampledWithReplacementDpEvent = dp_class("SampledWithReplacementDpEvent", "source_dataset_size", "sample_size",
                                         "event")
SampledWithoutReplacementDpEvent = dp_class("SampledWithoutReplacementDpEvent", "source_dataset_size",
                                            "sample_size", "event")
SingleEpochTreeAggregationDpEvent = dp_class("SingleEpochTreeAggregationDpEvent", "noise_multiplier", "step_counts")
RepeatAndSelectDpEvent = dp_class("RepeatAndSelectDpEvent", "event", "mean", "shape")
TruncatedSubsampledGaussianDpEvent = dp_class("TruncatedSubsampledGaussianDpEvent", "dataset_size",
                                              "sampling_probability", "truncated_batch_size", "noise_multiplier")
MixtureOfGaussiansDpEvent = dp_class("MixtureOfGaussiansDpEvent", "standard_deviation", "sensitivities",
                                     "sampling_probs")


def test_the_usual_dpsgd_event():
    e = SelfComposedDpEvent(PoissonSampledDpEvent(0.004, GaussianDpEvent(1.1)), 900)
    assert str(from_dp_accounting(e)) == "self_composed(count=900, poisson(q=0.004, gaussian(sigma=1.1)))"
    # an accountant takes DpEvents as they are
    direct = Accountant("rdp").compose(SelfComposed(PoissonSampled(0.004, Gaussian(1.1)), 900))
    assert Accountant("rdp").compose(e).epsilon(1e-5) == direct.epsilon(1e-5)


def test_leaves_and_wrappers():
    g = GaussianDpEvent(2.0)
    cases = [
        (g, Gaussian(2.0)),
        (LaplaceDpEvent(3.0), Laplace(3.0)),
        (EpsilonDeltaDpEvent(1.0, 1e-6), EpsilonDelta(1.0, 1e-6)),
        (ZCDpEvent(0.5), ZCDP(0.5, 0.0)),
        (ZCDpEvent(0.5, 0.25), ZCDP(0.5, 0.25)),
        (ExponentialMechanismDpEvent(0.7), Exponential(0.7)),
        (PermuteAndFlipDpEvent(0.7), PermuteAndFlip(0.7)),
        (DiscreteLaplaceDpEvent(0.5, 3), DiscreteLaplace(2.0, 3)),
        (DiscreteGaussianDpEvent(4.0, 2.0, 1), DiscreteGaussian(4.0, 2)),
        (PoissonSampledDpEvent(0.25, g), PoissonSampled(0.25, Gaussian(2.0))),
        (SampledWithoutReplacementDpEvent(1000, 10, g), SampledWithoutReplacement(1000, 10, Gaussian(2.0))),
        (SampledWithReplacementDpEvent(1000, 10, g), SampledWithReplacement(1000, 10, Gaussian(2.0))),
        (ComposedDpEvent([g, LaplaceDpEvent(1.0)]), Composed([Gaussian(2.0), Laplace(1.0)])),
        (SingleEpochTreeAggregationDpEvent(2.0, 8), TreeAggregation(2.0, 8)),
        (SingleEpochTreeAggregationDpEvent(2.0, [3, 8, 5]), TreeAggregation(2.0, 8)),
        (RepeatAndSelectDpEvent(g, 5.0, math.inf), RepeatedSelected(Gaussian(2.0), "poisson", mean=5.0)),
        (RepeatAndSelectDpEvent(g, 4.0, 1), RepeatedSelected(Gaussian(2.0), "geometric", gamma=0.25)),
        (TruncatedSubsampledGaussianDpEvent(1000, 0.01, 12, 2.0), TruncatedPoisson(0.01, 1000, 12, Gaussian(2.0))),
        (MixtureOfGaussiansDpEvent(1.3, [0.0, 1.0, 2.5], [0.6, 0.3, 0.1]),
         MixtureOfGaussians(1.3, (0.0, 1.0, 2.5), (0.6, 0.3, 0.1))),
    ]
    for dp, ours in cases:
        assert from_dp_accounting(dp) == ours, dp
        str(ours) and ours.describe()         # the library builds each


def test_truncated_subsampled_gaussian():
    # its noise_multiplier is the Gaussian child's sigma; a cap at or above
    # the dataset never truncates: Poisson sampling's bound exactly
    e = from_dp_accounting(TruncatedSubsampledGaussianDpEvent(1000, 0.01, 5000, 1.0))
    assert e == TruncatedPoisson(0.01, 1000, 1000, Gaussian(1.0))
    steps = lambda ev: SelfComposed(ev, 1000)  # noqa: E731
    poisson = Accountant("pld").compose(steps(PoissonSampled(0.01, Gaussian(1.0)))).epsilon(1e-5)
    capped = Accountant("pld").compose(steps(e)).epsilon(1e-5)
    assert (capped.lower, capped.upper) == (poisson.lower, poisson.upper)
    # a cap of 12 (mean batch 10): above Poisson sampling, by pld and by rdp
    tight = SelfComposedDpEvent(TruncatedSubsampledGaussianDpEvent(1000, 0.01, 12, 1.0), 1000)
    for method in ("pld", "rdp"):
        assert Accountant(method).compose(tight).epsilon(1e-5).upper > poisson.upper
    for noop in (TruncatedSubsampledGaussianDpEvent(1000, 0.0, 12, 1.0),
                 TruncatedSubsampledGaussianDpEvent(1000, 0.01, 0, 1.0)):
        assert isinstance(from_dp_accounting(noop), NoOp)
    with pytest.raises(dpacct.InvalidArgument, match="dataset size n"):
        Accountant("pld").compose(TruncatedSubsampledGaussianDpEvent(0, 0.01, 12, 1.0))


def test_named_tuple_form():
    Wrapper = collections.namedtuple("_GaussianDpEventNamedTupleWrapper",
                                     ["module_name", "class_name", "noise_multiplier"])
    assert from_dp_accounting(Wrapper("dp_accounting.dp_event", "GaussianDpEvent", 1.5)) == Gaussian(1.5)


def test_laplace_noise_multiplier_is_the_scale():
    # dp_accounting: density exp(-|x|/s)/(2s), noise_multiplier = s / C, so
    # eps = 1/noise_multiplier: delta(eps) = 1 - exp((eps - 1/s)/2) below it, 0 from it
    acct = Accountant("pld").compose(LaplaceDpEvent(4.0))
    assert acct.delta(0.25).upper < 1e-15
    d = acct.delta(0.1)
    assert d.lower <= 1 - math.exp((0.1 - 0.25) / 2) <= d.upper


def test_tree_aggregation_depth():
    # dp_accounting: depth ceil(log2(T + 1)) = 4 for T = 8, noise 2: mu = 1;
    # a record in one tree only: the deepest counts
    for steps in (8, [8], [1, 8, 3]):
        b = Accountant("gaussian").compose(SingleEpochTreeAggregationDpEvent(2.0, steps)).epsilon(1e-5)
        assert b.lower <= GDP1_EPS <= b.upper
    assert isinstance(from_dp_accounting(SingleEpochTreeAggregationDpEvent(2.0, [0, 0])), NoOp)
    with pytest.raises(dpacct.Unsupported, match="step_counts"):
        from_dp_accounting(SingleEpochTreeAggregationDpEvent(2.0, []))


def test_geometric_gamma_never_shortens_the_mean():
    for mean in (3.0, 7.0, 10.0, 1 / 0.3):
        e = from_dp_accounting(RepeatAndSelectDpEvent(GaussianDpEvent(1.0), mean, 1.0))
        assert e.distribution == "geometric"
        assert fractions.Fraction(1) / fractions.Fraction(e.gamma) >= fractions.Fraction(mean)
        assert e.gamma == pytest.approx(1 / mean, rel=1e-15)


def test_noops():
    g = GaussianDpEvent(1.0)
    for noop in (NoOpDpEvent(), SelfComposedDpEvent(g, 0), SelfComposedDpEvent(NoOpDpEvent(), 10),
                 ComposedDpEvent([]), ComposedDpEvent([NoOpDpEvent(), NoOpDpEvent()]),
                 PoissonSampledDpEvent(0.0, g), PoissonSampledDpEvent(0.5, NoOpDpEvent()),
                 SampledWithoutReplacementDpEvent(10, 0, g), RepeatAndSelectDpEvent(NoOpDpEvent(), 3.0, 1)):
        assert isinstance(from_dp_accounting(noop), NoOp), noop
    assert from_dp_accounting(ComposedDpEvent([NoOpDpEvent(), g])) == Composed([Gaussian(1.0)])
    acct = Accountant("gaussian").compose(NoOpDpEvent())
    assert acct.events == ()
    assert acct.epsilon(1e-5).upper == 0.0


def test_refused_by_name():
    for e, name in [(NonPrivateDpEvent(), "NonPrivateDpEvent"),
                    (UnsupportedDpEvent(), "UnsupportedDpEvent"),
                    (RandomizedResponseDpEvent(0.5, 4), "RandomizedResponseDpEvent"),
                    (dp_class("FancyNewDpEvent", "x")(1.0), "FancyNewDpEvent"),
                    (ComposedDpEvent([GaussianDpEvent(1.0), dp_class("FancyNewDpEvent", "x")(1.0)]),
                     "FancyNewDpEvent"),
                    (RepeatAndSelectDpEvent(GaussianDpEvent(1.0), 5.0, 0.5), "RepeatAndSelectDpEvent"),
                    (RepeatAndSelectDpEvent(GaussianDpEvent(1.0), 5.0, 0), "shape=0"),
                    (DiscreteGaussianDpEvent(4.0), "dimension=None"),
                    (DiscreteGaussianDpEvent(4.0, 1.5, 1), "sensitivity=1.5"),
                    (DiscreteLaplaceDpEvent(0.3, 1), "noise_parameter=0.3"),
                    (GaussianDpEvent, "type"),
                    (dp_class("GaussianDpEvent", "sigma")(1.0), "noise_multiplier")]:
        with pytest.raises(dpacct.Unsupported) as info:
            from_dp_accounting(e)
        assert name in str(info.value)
    with pytest.raises(dpacct.Unsupported, match="FancyNewDpEvent"):
        Accountant("pld").compose(dp_class("FancyNewDpEvent")())


def test_parameters_are_the_library_s_to_check():
    with pytest.raises(dpacct.InvalidArgument, match="noise multiplier must be positive"):
        Accountant("rdp").compose(GaussianDpEvent(0.0))


def test_mixture_of_gaussians():
    # Poisson sampling of a Gaussian as a mixture: the same bracket as the
    # poisson event (the library maps {0: 1 - q, 1: q} onto the same pair)
    mix = from_dp_accounting(SelfComposedDpEvent(MixtureOfGaussiansDpEvent(0.8, [0.0, 1.0], [0.99, 0.01]), 50))
    poisson = SelfComposed(PoissonSampled(0.01, Gaussian(0.8)), 50)
    a, b = Accountant("pld").compose(mix).epsilon(1e-5), Accountant("pld").compose(poisson).epsilon(1e-5)
    assert (a.lower, a.upper) == (b.lower, b.upper)
    # one step of the three-component mixture of tests/test_mixture.c (mpmath quadrature)
    d = Accountant("pld").compose(MixtureOfGaussiansDpEvent(1.3, [0.0, 1.0, 2.5], [0.6, 0.3, 0.1])).delta(1.0)
    assert d.lower <= 0.032712290222869139 <= d.upper
