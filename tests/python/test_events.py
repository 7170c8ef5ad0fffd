"""Events: their text, its exactness, and the library's checks of it."""

import json
import math

import pytest

import dpacct
from dpacct import (Composed, EpsilonDelta, Event, GDP, GSMFrobenius, GSMSpectral, Gaussian, Laplace, NoisyCGD,
                    NoOp, PoissonSampled, RandomizedResponse, RepeatedSelected, SampledWithReplacement,
                    SampledWithoutReplacement, SelfComposed, ShuffledBatches, Shuffled, TreeAggregation, TruncatedLaplace, ZCDP,
                    DiscreteGaussian, DiscreteLaplace, Exponential, MixtureOfGaussians, PermuteAndFlip, TruncatedPoisson, RandomAllocation)
from dpacct import _lib, events as ev_module


def test_text_in_the_library_syntax():
    e = SelfComposed(PoissonSampled(0.004, Gaussian(1.1)), 900)
    assert str(e) == "self_composed(count=900, poisson(q=0.004, gaussian(sigma=1.1)))"
    assert e.to_text() == str(e)
    # the library's own description of the event built from that text
    assert e.describe() == "self_composed(count=900, poisson(q=0.004, gaussian(sigma=1.1)))"


# Doubles whose shortest text is long, or that sit at the ends of the range.
AWKWARD = [0.1 + 0.2, 1 / 3, 2 / 3, math.pi, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
           1e-300, 123456789.12345679, 0.004, 1.1, 4503599627370497.0, 1e22]


def every_kind(x):
    """One event of every kind, x a positive double where a number goes."""
    small = x if x < 1 else 1 / (1 + x)     # in (0, 1)
    half = small if small <= 0.5 else small / 2  # in (0, 1/2]
    return [
        Gaussian(x), Laplace(x), RandomizedResponse(x, 3), DiscreteGaussian(x, 2), DiscreteLaplace(x, 5),
        Exponential(x), PermuteAndFlip(x), MixtureOfGaussians(x, (0.0, x), (half, 1 - half)),
        EpsilonDelta(x, half), ZCDP(x, x), GDP(x), TreeAggregation(x, 1000, 7),
        NoisyCGD(1.0, 2.0, 0.5, x, x, 10, 3), Shuffled(x, 1000, half), Shuffled(x, 10, randomizer="rr"),
        TruncatedLaplace(x, half), GSMFrobenius(7, small), GSMSpectral(7, 3, small),
        PoissonSampled(small, Gaussian(x)), SampledWithoutReplacement(100, 7, Laplace(x)),
        SampledWithReplacement(100, 7, Gaussian(x)), ShuffledBatches(1000, 64, Gaussian(x)),
        RandomAllocation(2 ** 64 - 1, 3, Gaussian(x)),
        SelfComposed(Gaussian(x), 2 ** 63 + 1),
        Composed([Gaussian(x), Laplace(x), SelfComposed(GDP(x), 3)]),
        RepeatedSelected(Gaussian(x), "poisson", mean=1 + x), RepeatedSelected(Laplace(x), "geometric", gamma=small),
        RepeatedSelected(Gaussian(x), "truncated_negative_binomial", eta=x, gamma=small),
        TruncatedPoisson(small, 2 ** 64 - 1, 2 ** 63 + 1, Gaussian(x)),
    ]


def bits(e):
    """Every number of an event as the hex of its double, in order."""
    out = []
    stack = [e]
    while stack:
        x = stack.pop()
        for field, _name, ftype, _slot in x._spec:
            v = getattr(x, field)
            if ftype == "number" and v is not None:
                out.append(float(v).hex())
            elif ftype == "count":
                out.append(int(v))
            elif ftype == "list":
                out.extend(float(t).hex() for t in v)
            elif ftype == "event":
                stack.append(v)
            elif ftype == "events":
                stack.extend(v)
    return out


@pytest.mark.parametrize("x", AWKWARD)
def test_round_trip_is_exact(x):
    for e in every_kind(x):
        text = str(e)
        back = Event.parse(text)
        assert back == e, text
        assert bits(back) == bits(e), text
        assert str(back) == text
        # the C library's spelling reads back to the same event too
        assert Event.parse(back.describe()) == e


def test_every_library_kind_is_covered():
    # the kinds the library knows (dpa_event_kind_name up to "unknown")
    L = _lib.lib()
    names = []
    while True:
        name = _lib.text(L.dpa_event_kind_name(len(names)))
        if name == "unknown":
            break
        names.append(name)
    assert len(names) >= 21
    assert sorted(names) == sorted(ev_module._BY_KIND)
    assert {type(e)._kind for e in every_kind(0.5)} == set(names)


def test_parse_reads_the_library_syntax():
    e = Event.parse("compose( gaussian(sigma=2), self_composed(count=1e6, laplace(scale=0.5)) )")
    assert e == Composed([Gaussian(2.0), SelfComposed(Laplace(0.5), 1000000)])
    assert Event.parse("zcdp(rho=0.5)") == ZCDP(0.5, 0.0)
    assert Event.parse("tree_aggregation(sigma=2, steps=8)") == TreeAggregation(2.0, 8, 0)
    assert Event.parse("shuffled(eps0=1, n=100)") == Shuffled(1.0, 100, 0.0, "any")


def test_library_messages():
    with pytest.raises(dpacct.InvalidArgument) as info:
        Gaussian(-1).describe()
    assert "gaussian: noise multiplier must be positive and finite, got -1" in str(info.value)
    assert info.value.status == -1
    assert isinstance(info.value, ValueError)
    for bad in (Gaussian(math.inf), Gaussian(math.nan), PoissonSampled(1.5, Gaussian(1)),
                SampledWithoutReplacement(10, 11, Gaussian(1)), ShuffledBatches(10, 11, Gaussian(1)),
                ShuffledBatches(10, 2, Laplace(1)), SelfComposed(Gaussian(1), 0),
                SelfComposed(Gaussian(1), 2.5), Composed([]), RepeatedSelected(Gaussian(1), "poisson"),
                RepeatedSelected(Gaussian(1), "geometric", mean=3), RepeatedSelected(Gaussian(1), "often", mean=3),
                Shuffled(1.0, 10, randomizer="some"), SelfComposed(Gaussian(1), -3),
                TruncatedPoisson(0.0, 10, 5, Gaussian(1)), TruncatedPoisson(0.1, 10, 11, Gaussian(1)),
                TruncatedPoisson(0.1, 10, 0, Gaussian(1))):
        with pytest.raises(dpacct.InvalidArgument) as info:
            Event.parse(str(bad))
        assert info.value.message.startswith("event text, position")
    with pytest.raises(dpacct.InvalidArgument, match="position 17"):
        Event.parse("gaussian(sigma=1")
    with pytest.raises(dpacct.InvalidArgument, match="unknown event 'gauss'"):
        Event.parse("gauss(sigma=1)")


def test_types_are_checked_and_nothing_is_smuggled_into_the_text():
    with pytest.raises(TypeError):
        Gaussian("1.1")
    with pytest.raises(TypeError):
        Gaussian(True)
    with pytest.raises(TypeError):
        PoissonSampled(0.1, "gaussian(sigma=1)")
    with pytest.raises(TypeError):
        Composed([Gaussian(1), 3])
    with pytest.raises(dpacct.InvalidArgument):
        RepeatedSelected(Gaussian(1), "poisson, mean=3), gaussian(sigma=1", mean=2)
    with pytest.raises(TypeError):
        Event.parse(b"gaussian(sigma=1)")
    with pytest.raises(dpacct.InvalidArgument):
        Event.parse("gaussian(sigma=1)\0junk")


def test_counts_and_numpy_like_numbers():
    assert str(SelfComposed(Gaussian(2), 10)) == "self_composed(count=10, gaussian(sigma=2.0))"
    assert Event.parse(str(SelfComposed(Gaussian(1), 1e6))).count == 1000000


def test_deep_events():
    # DPA_MAX_EVENT_DEPTH = 1000 levels of wrappers: built, read back and
    # written without Python's recursion limit; one more is refused
    e = Gaussian(1.5)
    for _ in range(1000):
        e = SelfComposed(e, 1)
    text = str(e)
    back = Event.parse(text)
    assert str(back) == text
    with pytest.raises(dpacct.InvalidArgument, match="1000"):
        Event.parse(str(SelfComposed(e, 1)))


def test_wide_events():
    e = Composed([Gaussian(1 + i / 7) for i in range(20000)])
    assert Event.parse(str(e)) == e


def test_noop_has_no_text():
    with pytest.raises(dpacct.InvalidArgument, match="no-op"):
        str(Composed([NoOp(), Gaussian(1)]))


def test_json_form():
    e = SelfComposed(PoissonSampled(0.004, Gaussian(1.1)), 900)
    assert json.loads(e.to_json()) == {"kind": "self_composed", "count": 900, "event": {
        "kind": "poisson", "q": 0.004, "event": {"kind": "gaussian", "sigma": 1.1}}}
    assert "\n" not in e.to_json() and "\n" in e.to_json(indent=2)
    assert Event.from_json(e.to_json(indent=2)) == e
    assert Event.from_json(b'[{"kind": "gaussian", "sigma": 2}, {"kind": "laplace", "scale": 3}]') == \
        Composed([Gaussian(2.0), Laplace(3.0)])
    with pytest.raises(dpacct.InvalidArgument, match="noise multiplier must be positive"):
        Event.from_json('{"kind": "gaussian", "sigma": -1}')
    with pytest.raises(dpacct.InvalidArgument):
        Event.from_json('{"kind": "gaussian", "sigma": ')


@pytest.mark.parametrize("x", AWKWARD)
def test_json_round_trip_is_exact(x):
    for e in every_kind(x):
        back = Event.from_json(e.to_json())
        assert back == e and bits(back) == bits(e), str(e)


def test_ledger(tmp_path):
    path = tmp_path / "ledger.jsonl"
    first = SelfComposed(PoissonSampled(0.01, Gaussian(1.0)), 100)
    second = SelfComposed(PoissonSampled(0.02, Gaussian(0.8)), 50)
    first.ledger_append(path)
    second.ledger_append(str(path))
    assert len(path.read_text().splitlines()) == 2
    assert Event.load_json(path) == Composed([first, second])
    with pytest.raises(dpacct.FileError) as info:
        Event.load_json(tmp_path / "missing.json")
    assert isinstance(info.value, OSError) and info.value.status == -8


def test_mixture_of_gaussians_lists():
    e = MixtureOfGaussians(1.3, [0, 1, 2.5], (0.6, 0.3, 0.1))
    assert e.sensitivities == (0, 1, 2.5)       # stored as tuples
    assert str(e) == ("mixture_of_gaussians(sigma=1.3, sensitivities=[0.0, 1.0, 2.5], "
                      "probabilities=[0.6, 0.3, 0.1])")
    assert e.describe() == "mixture_of_gaussians(sigma=1.3, sensitivities=[0, 1, 2.5], probabilities=[0.6, 0.3, 0.1])"
    assert Event.from_json(e.to_json()) == e
    assert json.loads(e.to_json())["probabilities"] == [0.6, 0.3, 0.1]
    with pytest.raises(TypeError, match="sensitivities must be a list"):
        MixtureOfGaussians(1.0, 1.0, (1.0,))
    with pytest.raises(TypeError, match=r"probabilities\[1\] must be a number"):
        MixtureOfGaussians(1.0, (0.0, 1.0), (0.5, "x"))
    for sens, probs, msg in [((), (), "empty list"), ((0.0, 1.0), (1.0,), "2 values but probabilities has 1"),
                             ((0.0, -1.0), (0.5, 0.5), r"sensitivities\[1\] must be finite"),
                             ((0.0, 1.0), (0.5, 0.4), "they sum to 0.9")]:
        with pytest.raises(dpacct.InvalidArgument, match=msg):
            MixtureOfGaussians(1.0, sens, probs).describe()
