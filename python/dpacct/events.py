"""Events: what happened to the data, in the shape dp_accounting users know.

Each event is an immutable (frozen) dataclass that renders itself in the
library's event text syntax (lib/event_text.c; docs/api.md, "Events as
text"):

    >>> str(SelfComposed(PoissonSampled(0.004, Gaussian(1.1)), 900))
    'self_composed(count=900, poisson(q=0.004, gaussian(sigma=1.1)))'

and libdpacct builds the C event from that text with dpa_event_parse, so the
library alone checks the parameters and words their errors.  Numbers are
written with repr(), the shortest text that reads back to the same double,
and counts as integers, so the text is exact: the C event has every
parameter bit for bit.  Event.parse(text) is the inverse: the library parses
the text and the package reads the C event back field by field.  The JSON
form is the library's too: event.to_json(), Event.from_json(document),
Event.load_json(path) and event.ledger_append(path).

The Python field names are the text's parameter names, except NoisyCGD,
whose fields are those of dpa_noisy_cgd_params (the text calls them m, M,
eta, ...).  The types of the fields are checked at construction (a number,
a count, a word, an event); their values only by the library.
"""

import contextlib
import ctypes
import dataclasses
import numbers
import os
import re
import typing

from . import _lib
from .errors import InvalidArgument, DPA_EINVAL

__all__ = [
    "Event", "Gaussian", "Laplace", "RandomizedResponse", "DiscreteGaussian", "DiscreteLaplace",
    "Exponential", "PermuteAndFlip", "MixtureOfGaussians", "EpsilonDelta", "ZCDP", "GDP", "TreeAggregation", "NoisyCGD", "Shuffled",
    "TruncatedLaplace", "GSMFrobenius", "GSMSpectral", "PoissonSampled", "SampledWithoutReplacement",
    "SampledWithReplacement", "RandomAllocation", "SelfComposed", "Composed", "RepeatedSelected", "NoOp",
    "TruncatedPoisson",
]

# Field types of the specs below (a list: a tuple of numbers, written
# [x, y, ...]; its C slot 0 is the components' sensitivities, 1 their
# probabilities).
_NUM, _COUNT, _WORD, _CHILD, _CHILDREN, _LIST = "number", "count", "word", "event", "events", "list"

# A word of the text syntax (repeated_selected's distribution, shuffled's
# randomizer): checked for its characters only, so that no text can be
# smuggled into the event; the library checks that it is one it knows.
_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# Words stored in integer slots of the C event (event_text.c's tables).
_DISTRIBUTIONS = ("poisson", "truncated_negative_binomial", "geometric")
_RANDOMIZERS = ("any", "rr")


def _is_number(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


class Event:
    """Base class of the events.  Subclasses declare ``_kind`` (the text
    name) and ``_spec``: (field, text name, type, C slot) in text order."""

    _kind = None
    _spec = ()

    def __post_init__(self):
        for field, _name, ftype, _slot in self._spec:
            value = getattr(self, field)
            if ftype == _CHILDREN:
                value = tuple(value)
                object.__setattr__(self, field, value)
                for i, v in enumerate(value):
                    if not isinstance(v, Event):
                        raise TypeError("%s: %s[%d] must be a dpacct event, got %r" % (self._kind, field, i, v))
            elif ftype == _LIST:
                if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                    raise TypeError("%s: %s must be a list of numbers, got %r" % (self._kind, field, value))
                value = tuple(value)
                object.__setattr__(self, field, value)
                for i, v in enumerate(value):
                    if not _is_number(v):
                        raise TypeError("%s: %s[%d] must be a number, got %r" % (self._kind, field, i, v))
            elif value is None and self._optional(field):
                continue
            elif ftype == _CHILD and not isinstance(value, Event):
                raise TypeError("%s: %s must be a dpacct event, got %r" % (self._kind, field, value))
            elif ftype in (_NUM, _COUNT) and not _is_number(value):
                raise TypeError("%s: %s must be a number, got %r" % (self._kind, field, value))
            elif ftype == _WORD and not (isinstance(value, str) and _WORD_RE.match(value)):
                raise InvalidArgument("%s: %s must be a word (letters, digits, _), got %r" % (self._kind, field, value),
                                      DPA_EINVAL)

    @classmethod
    def _optional(cls, field):
        return False

    # ---- text ---------------------------------------------------------------
    def _items(self):
        """The name=value items of this event (its children apart)."""
        items = []
        for field, name, ftype, _slot in self._spec:
            value = getattr(self, field)
            if value is None or ftype in (_CHILD, _CHILDREN):
                continue
            if ftype == _NUM:
                items.append("%s=%s" % (name, repr(float(value))))
            elif ftype == _LIST:
                items.append("%s=[%s]" % (name, ", ".join(repr(float(v)) for v in value)))
            elif ftype == _COUNT:
                # an integral value as an integer; any other number as
                # written, for the library to accept (1e6) or refuse (2.5)
                if isinstance(value, numbers.Integral):
                    items.append("%s=%d" % (name, int(value)))
                else:
                    items.append("%s=%s" % (name, repr(float(value))))
            else:
                items.append("%s=%s" % (name, value))
        return items

    def _children(self):
        kids = []
        for field, _name, ftype, _slot in self._spec:
            if ftype == _CHILD:
                kids.append(getattr(self, field))
            elif ftype == _CHILDREN:
                kids.extend(getattr(self, field))
        return kids

    def to_text(self):
        """The event in the library's text syntax (exact: see the module)."""
        # Iterative, so that events nested up to DPA_MAX_EVENT_DEPTH (1000)
        # levels do not meet Python's recursion limit.
        out = []
        stack = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
                continue
            if isinstance(item, NoOp):
                raise InvalidArgument("noop: a no-op has no text form (libdpacct has no such event): leave it out "
                                      "of the event; Accountant.compose skips a NoOp given alone", DPA_EINVAL)
            parts = item._items()
            seq = [", ".join(parts)] if parts else []
            for kid in item._children():
                if seq:
                    seq.append(", ")
                seq.append(kid)
            seq.append(")")
            out.append(item._kind + "(")
            stack.extend(reversed(seq))
        return "".join(out)

    def __str__(self):
        return self.to_text()

    def describe(self):
        """The library's own text for the event (dpa_event_describe): the same
        event, numbers written the C way."""
        with c_event(self) as p:
            return describe_c(p)

    def to_json(self, indent=0):
        """The event as JSON, written by the library (dpa_event_to_json): an
        object with "kind", the parameters by the text's names, the inner
        event as "event" or the list as "events"; numbers exact.  indent:
        spaces per level (0: one line)."""
        with c_event(self) as p:
            return json_c(p, indent)

    @staticmethod
    def from_json(document):
        """The event of a JSON document (str or bytes), read by the library
        (dpa_event_from_json): one event, an array of events or several
        events one after the other (a ledger), the latter two composed."""
        if isinstance(document, str):
            document = document.encode("utf-8")
        if not isinstance(document, bytes):
            raise TypeError("a JSON document must be a str or bytes, got %r" % (document,))
        err = _lib.Error()
        p = _lib.lib().dpa_event_from_json(document, len(document), ctypes.byref(err))
        return _owned(p, err)

    @staticmethod
    def load_json(path):
        """The event of a JSON file or ledger (dpa_event_load_json);
        FileError when it cannot be read."""
        err = _lib.Error()
        p = _lib.lib().dpa_event_load_json(os.fsencode(path), ctypes.byref(err))
        return _owned(p, err)

    def ledger_append(self, path):
        """Append the event to a ledger file as one line of JSON, creating
        the file (dpa_event_ledger_append); Event.load_json(path) is then the
        composition of the events appended."""
        with c_event(self) as p:
            err = _lib.Error()
            _lib.check(_lib.lib().dpa_event_ledger_append(os.fsencode(path), p, ctypes.byref(err)), err)

    @staticmethod
    def parse(text):
        """The event that `text` (the library's syntax) describes, read by
        the library (dpa_event_parse: its checks, its messages)."""
        return _owned(parse_c(text), None)

    # ---- from the C event ---------------------------------------------------
    @classmethod
    def _from_c(cls, param, count, kids, lists=None):
        """The event from the C event's slots (param(i), count(i), lists(i):
        the components' sensitivities or probabilities) and its children,
        already read."""
        kwargs = {}
        kids = list(kids)
        for field, _name, ftype, slot in cls._spec:
            if ftype == _NUM:
                kwargs[field] = param(slot)
            elif ftype == _LIST:
                kwargs[field] = lists(slot)
            elif ftype == _COUNT:
                kwargs[field] = count(slot)
            elif ftype == _CHILD:
                kwargs[field] = kids.pop(0)
            elif ftype == _CHILDREN:
                kwargs[field] = tuple(kids)
        return cls(**kwargs)


def _event(kind, *spec):
    """Class decorator: a frozen dataclass event of the kind with the spec."""
    def wrap(cls):
        cls._kind = kind
        cls._spec = spec
        return dataclasses.dataclass(frozen=True)(cls)
    return wrap


# ---- leaves -----------------------------------------------------------------

@_event("gaussian", ("sigma", "sigma", _NUM, 0))
class Gaussian(Event):
    """The Gaussian mechanism with noise multiplier sigma (std / sensitivity)."""
    sigma: float


@_event("laplace", ("scale", "scale", _NUM, 0))
class Laplace(Event):
    """The Laplace mechanism with scale in units of the (l1) sensitivity:
    dp_accounting's LaplaceDpEvent(noise_multiplier=scale); eps = 1/scale."""
    scale: float


@_event("randomized_response", ("eps", "eps", _NUM, 0), ("k", "k", _COUNT, 0))
class RandomizedResponse(Event):
    """k-ary randomized response, truthful w.p. e^eps / (e^eps + k - 1)."""
    eps: float
    k: int


@_event("discrete_gaussian", ("sigma", "sigma", _NUM, 0), ("sensitivity", "sensitivity", _COUNT, 0))
class DiscreteGaussian(Event):
    """The (univariate) discrete Gaussian N_Z(0, sigma^2) on an integer query."""
    sigma: float
    sensitivity: int = 1


@_event("discrete_laplace", ("scale", "scale", _NUM, 0), ("sensitivity", "sensitivity", _COUNT, 0))
class DiscreteLaplace(Event):
    """Discrete Laplace, P(x) proportional to e^(-|x|/scale), on an integer query."""
    scale: float
    sensitivity: int = 1


@_event("exponential", ("eps", "eps", _NUM, 0))
class Exponential(Event):
    """The exponential mechanism, eps-DP and eps-bounded range."""
    eps: float


@_event("permute_and_flip", ("eps", "eps", _NUM, 0))
class PermuteAndFlip(Event):
    """Permute-and-flip (McKenna & Sheldon, NeurIPS 2020), eps-DP."""
    eps: float


@_event("mixture_of_gaussians", ("sigma", "sigma", _NUM, 0), ("sensitivities", "sensitivities", _LIST, 0),
        ("probabilities", "probabilities", _LIST, 1))
class MixtureOfGaussians(Event):
    """The mixture of Gaussians (Choquette-Choo, Ganesh, Steinke & Thakurta,
    ICLR 2024): N(0, sigma^2) on one dataset, sum_i probabilities[i]
    N(sensitivities[i], sigma^2) on its neighbour (tuples; a sensitivity 0
    is the record left out: Poisson sampling is {0: 1 - q, 1: q})."""
    sigma: float
    sensitivities: tuple
    probabilities: tuple


@_event("epsilon_delta", ("eps", "eps", _NUM, 0), ("delta", "delta", _NUM, 1))
class EpsilonDelta(Event):
    """A black box known only to be (eps, delta)-DP."""
    eps: float
    delta: float


@_event("zcdp", ("rho", "rho", _NUM, 0), ("xi", "xi", _NUM, 1))
class ZCDP(Event):
    """(xi, rho)-approximate zCDP: D_alpha <= xi + rho alpha."""
    rho: float
    xi: float = 0.0


@_event("gdp", ("mu", "mu", _NUM, 0))
class GDP(Event):
    """mu-Gaussian DP."""
    mu: float


@_event("tree_aggregation", ("sigma", "sigma", _NUM, 0), ("steps", "steps", _COUNT, 0),
        ("restart_every", "restart_every", _COUNT, 1))
class TreeAggregation(Event):
    """Tree aggregation (DP-FTRL) over `steps` leaves, restarted every
    `restart_every` steps (0: one tree), each record in one leaf per tree."""
    sigma: float
    steps: int
    restart_every: int = 0


@_event("noisy_cgd", ("strong_convexity", "m", _NUM, 0), ("smoothness", "M", _NUM, 1),
        ("step_size", "eta", _NUM, 2), ("sensitivity", "sensitivity", _NUM, 3), ("sigma", "sigma", _NUM, 4),
        ("batches", "batches", _COUNT, 0), ("epochs", "epochs", _COUNT, 1))
class NoisyCGD(Event):
    """The final iterate of noisy cyclic gradient descent (dpa_noisy_cgd_params)."""
    strong_convexity: float
    smoothness: float
    step_size: float
    sensitivity: float
    sigma: float
    batches: int
    epochs: int


@_event("shuffled", ("eps0", "eps0", _NUM, 0), ("delta0", "delta0", _NUM, 1), ("n", "n", _COUNT, 0),
        ("randomizer", "randomizer", _WORD, 1))
class Shuffled(Event):
    """n users each applying an (eps0, delta0)-local randomizer, outputs
    shuffled; randomizer "any" or "rr" (the randomized-response class)."""
    eps0: float
    n: int
    delta0: float = 0.0
    randomizer: str = "any"

    @classmethod
    def _from_c(cls, param, count, kids, lists=None):
        r = count(1)
        return cls(eps0=param(0), n=count(0), delta0=param(1),
                   randomizer=_RANDOMIZERS[r] if r < len(_RANDOMIZERS) else str(r))


@_event("truncated_laplace", ("eps", "eps", _NUM, 0), ("delta", "delta", _NUM, 1))
class TruncatedLaplace(Event):
    """Truncated Laplace calibrated to (eps, delta), sensitivity 1."""
    eps: float
    delta: float


@_event("gsm_frobenius", ("M", "M", _NUM, 0), ("k", "k", _COUNT, 0))
class GSMFrobenius(Event):
    """The Gaussian Sampling Mechanism, k samples, Frobenius bound M."""
    k: int
    M: float


@_event("gsm_spectral", ("eta", "eta", _NUM, 0), ("k", "k", _COUNT, 0), ("n", "n", _COUNT, 1))
class GSMSpectral(Event):
    """The Gaussian Sampling Mechanism, k samples, n x n, spectral bound eta."""
    k: int
    n: int
    eta: float


# ---- wrappers ---------------------------------------------------------------

@_event("poisson", ("q", "q", _NUM, 0), ("event", None, _CHILD, None))
class PoissonSampled(Event):
    """Each record in the sample independently with probability q."""
    q: float
    event: Event


@_event("truncated_poisson", ("q", "q", _NUM, 0), ("n", "n", _COUNT, 0), ("max_batch", "max_batch", _COUNT, 1),
        ("event", None, _CHILD, None))
class TruncatedPoisson(Event):
    """Poisson sampling at rate q of n records, keeping a uniformly random
    max_batch of them when more are sampled (dp_accounting's
    TruncatedSubsampledGaussianDpEvent, 2025; arXiv 2508.15089).  Add/remove;
    n counts the larger dataset.  pld and rdp account it, for Gaussian
    noise."""
    q: float
    n: int
    max_batch: int
    event: Event


@_event("without_replacement", ("n", "n", _COUNT, 0), ("m", "m", _COUNT, 1), ("event", None, _CHILD, None))
class SampledWithoutReplacement(Event):
    """A uniformly random sample of m of the n records (replace-one)."""
    n: int
    m: int
    event: Event


@_event("with_replacement", ("n", "n", _COUNT, 0), ("m", "m", _COUNT, 1), ("event", None, _CHILD, None))
class SampledWithReplacement(Event):
    """m records drawn with replacement from n."""
    n: int
    m: int
    event: Event


@_event("shuffled_batches", ("n", "n", _COUNT, 0), ("m", "m", _COUNT, 1), ("event", None, _CHILD, None))
class ShuffledBatches(Event):
    """One epoch: the n records shuffled and cut into n // m batches of exactly m."""
    n: int
    m: int
    event: Event


@_event("random_allocation", ("steps", "steps", _COUNT, 0), ("selected", "selected", _COUNT, 1),
        ("event", None, _CHILD, None))
class RandomAllocation(Event):
    """One epoch of `steps` steps running `event`, each record used in exactly
    `selected` of them, chosen uniformly at random (Feldman & Shenfeld 2025,
    "Privacy amplification by random allocation"; balls-in-bins).  rdp and
    pld: selected = steps is the composition, selected = 1 a certified bound
    for Gaussian noise (add/remove), 1 < selected < steps the reduction to
    `selected` rounds of one of floor(steps/selected) steps."""
    steps: int
    selected: int
    event: Event


@_event("self_composed", ("count", "count", _COUNT, 0), ("event", None, _CHILD, None))
class SelfComposed(Event):
    """`event` run `count` times (adaptively)."""
    event: Event
    count: int


@_event("composed", ("events", None, _CHILDREN, None))
class Composed(Event):
    """The events run one after the other (adaptively); a list of one or more."""
    events: typing.Tuple[Event, ...]


@_event("repeated_selected", ("distribution", "distribution", _WORD, 0), ("mean", "mean", _NUM, 0),
        ("eta", "eta", _NUM, 0), ("gamma", "gamma", _NUM, 1), ("event", None, _CHILD, None))
class RepeatedSelected(Event):
    """Private tuning: `event` run a random number of times, the best released.

    distribution "poisson" (mean=), "geometric" (gamma=, the stopping
    probability of each round) or "truncated_negative_binomial" (eta=,
    gamma=), as in Papernot & Steinke (ICLR 2022).  Only the parameters
    given are written; the library says which are missing or extra."""
    event: Event
    distribution: str = "poisson"
    mean: typing.Optional[float] = None
    eta: typing.Optional[float] = None
    gamma: typing.Optional[float] = None

    @classmethod
    def _optional(cls, field):
        return field in ("mean", "eta", "gamma")

    @classmethod
    def _from_c(cls, param, count, kids, lists=None):
        d = count(0)
        name = _DISTRIBUTIONS[d] if d < len(_DISTRIBUTIONS) else str(d)
        if name == "poisson":
            return cls(kids[0], name, mean=param(0))
        if name == "geometric":
            return cls(kids[0], name, gamma=param(0))
        return cls(kids[0], name, eta=param(0), gamma=param(1))


@dataclasses.dataclass(frozen=True)
class NoOp(Event):
    """An operation with no privacy cost (dp_accounting's NoOpDpEvent).

    libdpacct has no such event: Accountant.compose skips a NoOp given alone,
    and from_dp_accounting leaves them out of what it converts.  It has no
    text form."""
    _kind = "noop"


# ---- the library's side -----------------------------------------------------

_BY_KIND = {cls._kind: cls for cls in (
    Gaussian, Laplace, RandomizedResponse, DiscreteGaussian, DiscreteLaplace, Exponential, PermuteAndFlip,
    MixtureOfGaussians, EpsilonDelta, ZCDP, GDP, TreeAggregation, NoisyCGD, Shuffled, TruncatedLaplace, GSMFrobenius, GSMSpectral,
    PoissonSampled, SampledWithoutReplacement, SampledWithReplacement, ShuffledBatches, RandomAllocation, SelfComposed,
    Composed, RepeatedSelected, TruncatedPoisson)}


def parse_c(text):
    """A C event (dpa_event *) from text; the caller frees it."""
    if not isinstance(text, str):
        raise TypeError("event text must be a str, got %r" % (text,))
    if "\0" in text:
        raise InvalidArgument("event text contains a NUL character", DPA_EINVAL)
    err = _lib.Error()
    p = _lib.lib().dpa_event_parse(text.encode("utf-8"), ctypes.byref(err))
    if not p:
        _lib.raise_error(err.status or DPA_EINVAL, err)
    return p


@contextlib.contextmanager
def c_event(event):
    """The C event of a dpacct event (or of event text), freed on exit."""
    p = parse_c(event if isinstance(event, str) else event.to_text())
    try:
        yield p
    finally:
        _lib.lib().dpa_event_free(p)


def _owned(p, err):
    """The dpacct event of a C event the library just built (freed here),
    or the library's error."""
    if not p:
        _lib.raise_error(err.status or DPA_EINVAL, err)
    try:
        return from_c(p)
    finally:
        _lib.lib().dpa_event_free(p)


def json_c(p, indent=0):
    """dpa_event_to_json of a C event, as str."""
    err = _lib.Error()
    address = _lib.lib().dpa_event_to_json(p, int(indent), ctypes.byref(err))
    if not address:
        _lib.raise_error(err.status or DPA_EINVAL, err)
    try:
        return ctypes.string_at(address).decode("utf-8")
    finally:
        _lib.free(address)


def describe_c(p):
    """dpa_event_describe of a C event."""
    return _lib.sized_text(_lib.lib().dpa_event_describe, p)


def _components(L, p, which):
    """The components' sensitivities (which = 0) or probabilities (1) of a C event."""
    get = L.dpa_event_component_sensitivity if which == 0 else L.dpa_event_component_probability
    return tuple(get(p, i) for i in range(L.dpa_event_num_components(p)))


def from_c(root):
    """The dpacct event of a C event, read field by field (iteratively)."""
    L = _lib.lib()
    built = []
    stack = [(root, False)]
    while stack:
        p, expanded = stack.pop()
        n = L.dpa_event_num_children(p)
        if not expanded:
            stack.append((p, True))
            stack.extend((L.dpa_event_child(p, i), False) for i in reversed(range(n)))
            continue
        kids = built[len(built) - n:] if n else []
        if n:
            del built[len(built) - n:]
        kind = _lib.text(L.dpa_event_kind_name(L.dpa_event_get_kind(p)))
        cls = _BY_KIND.get(kind)
        if cls is None:
            raise InvalidArgument("the library returned an event of kind %r, unknown to this package" % kind,
                                  DPA_EINVAL)
        built.append(cls._from_c(lambda i, p=p: L.dpa_event_param(p, i),
                                 lambda i, p=p: int(L.dpa_event_count(p, i)), kids,
                                 lambda i, p=p: _components(L, p, i)))
    return built[0]
