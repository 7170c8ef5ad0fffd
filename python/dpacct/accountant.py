"""Accountants, bounds and calibration over libdpacct."""

import ctypes
import dataclasses
import math
import numbers
import typing

from . import _lib
from .errors import (AccuracyNotReached, InvalidArgument, NoBracket, DPA_EACCURACY, DPA_EINVAL,
                     DPA_ENOBRACKET)
from .events import Event, NoOp, c_event

__all__ = ["Bound", "Accountant", "Calibration", "calibrate", "calibrate_noise_multiplier", "accountant_names",
           "accountant_summary", "library_version", "describe_flags"]

_RELATIONS = {"add-remove": 0, "add_remove": 0, "replace-one": 1, "replace_one": 1}
_RELATION_NAMES = {0: "add-remove", 1: "replace-one"}


def library_version():
    """libdpacct's version, "MAJOR.MINOR.PATCH"."""
    return _lib.text(_lib.lib().dpa_version())


def accountant_names():
    """The names of the library's accountants, in its order of preference."""
    names = _lib.lib().dpa_accountant_names()
    out = []
    i = 0
    while names[i] is not None:
        out.append(_lib.text(names[i]))
        i += 1
    return out


def accountant_summary(name):
    """One line describing an accountant; None for an unknown name."""
    return _lib.text(_lib.lib().dpa_accountant_summary(name.encode("utf-8")))


def _describe(flags):
    return _lib.sized_text(_lib.lib().dpa_bound_describe, flags)


def describe_flags(flags):
    """The words of each flag set in `flags`, in the library's order
    (dpa_bound_describe, one flag at a time)."""
    return tuple(_describe(1 << i) for i in range(32) if flags & (1 << i) and _describe(1 << i))


@dataclasses.dataclass(frozen=True)
class Bound:
    """The answer to a privacy query: the true value lies in [lower, upper];
    `upper` is the number to report (float(bound) gives it).  `order` is the
    Renyi order a conversion used (0: none); `flags` the library's DPA_*
    bits and `flag_words` their meaning in words."""
    lower: float
    estimate: float
    upper: float
    order: float
    flags: int
    flag_words: typing.Tuple[str, ...]

    # the library's flag bits (dpacct.h)
    APPROXIMATE = 1 << 0
    EXACT = 1 << 1
    NO_LOWER = 1 << 2
    UNBOUNDED = 1 << 3
    CONV_CLASSIC = 1 << 4
    CONV_CKS = 1 << 5
    ORDER_AT_EDGE = 1 << 6
    PAIR_LOWER = 1 << 7
    CONV_TV = 1 << 8
    WIDTH_NOT_MET = 1 << 9
    SYMMETRISED = 1 << 10

    @classmethod
    def _from_c(cls, b):
        return cls(b.lower, b.estimate, b.upper, b.order, int(b.flags), describe_flags(int(b.flags)))

    @property
    def approximate(self):
        """True when the bound is an approximation, not a guarantee."""
        return bool(self.flags & self.APPROXIMATE)

    def __float__(self):
        return float(self.upper)


def _options(relation, eps_error, orders, require_width):
    """A dpa_options and the array its `orders` points to (keep both alive)."""
    opt = _lib.Options()
    _lib.lib().dpa_options_init(ctypes.byref(opt))
    if relation not in _RELATIONS:
        raise InvalidArgument("relation must be 'add-remove' or 'replace-one', got %r" % (relation,), DPA_EINVAL)
    opt.relation = _RELATIONS[relation]
    if eps_error is not None:
        opt.tolerance = float(eps_error)
        if not opt.tolerance > 0.0:
            # 0 means "the default" to the library: refuse it rather than ignore it
            raise InvalidArgument("eps_error must be positive, got %r" % (eps_error,), DPA_EINVAL)
    array = None
    if orders is not None:
        orders = [float(a) for a in orders]
        array = (ctypes.c_double * max(len(orders), 1))(*orders)
        opt.orders = array
        opt.num_orders = len(orders)
    opt.require_width = 1 if require_width else 0
    return opt, array


class Accountant:
    """One accountant of the library, fed events and queried any number of times.

        acct = Accountant("pld")
        acct.compose(PoissonSampled(0.004, Gaussian(1.1)), count=14063)
        acct.epsilon(1e-5).upper

    name: "pld", "rdp", "gaussian", "gdp", "zcdp", "shuffle", "tuning"
    (accountant_names()); relation: "add-remove" (the default, as in Opacus
    and dp_accounting) or "replace-one"; eps_error: the relative accuracy of
    eps queries (pld's eps_error; None: the accountant's default); orders:
    the Renyi orders of rdp (None: its default grid and search);
    require_width: a query that cannot reach eps_error raises
    AccuracyNotReached (with the bracket in .bound) instead of answering with
    a bound flagged WIDTH_NOT_MET.

    Events may be dpacct events, event text or JSON, or dp_accounting
    DpEvents (converted by from_dp_accounting).  `events` lists what was composed, so
    that an accountant can be saved as text and rebuilt.  An accountant is not
    safe to share between threads; separate ones are.
    """

    def __init__(self, name="pld", relation="add-remove", eps_error=None, orders=None, require_width=False):
        if not isinstance(name, str):
            raise TypeError("the accountant's name must be a str, got %r" % (name,))
        opt, _array = _options(relation, eps_error, orders, require_width)
        err = _lib.Error()
        p = _lib.lib().dpa_accountant_new(name.encode("utf-8"), ctypes.byref(opt), ctypes.byref(err))
        if not p:
            _lib.raise_error(err.status or DPA_EINVAL, err)
        self._p = p
        self._relation = _RELATION_NAMES[opt.relation]
        self._eps_error = eps_error
        self._orders = None if orders is None else tuple(float(a) for a in orders)
        self._require_width = bool(require_width)
        self._events = []

    # ---- life ---------------------------------------------------------------
    def close(self):
        """Free the C accountant (also done when the object is collected)."""
        p, self._p = getattr(self, "_p", None), None
        if p:
            _lib.lib().dpa_accountant_free(p)

    def __del__(self):
        try:
            self.close()
        except Exception:   # interpreter shutdown
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _ptr(self):
        if not self._p:
            raise InvalidArgument("the accountant is closed", DPA_EINVAL)
        return self._p

    # ---- what it is ---------------------------------------------------------
    @property
    def name(self):
        return _lib.text(_lib.lib().dpa_accountant_name(self._ptr()))

    @property
    def relation(self):
        return self._relation

    @property
    def eps_error(self):
        return self._eps_error

    @property
    def orders(self):
        return self._orders

    @property
    def events(self):
        """The events composed so far, in order (NoOps left out)."""
        return tuple(self._events)

    def __repr__(self):
        return "Accountant(%r, relation=%r, events=%d)" % (self.name if self._p else "closed", self._relation,
                                                            len(self._events))

    # ---- events -------------------------------------------------------------
    @staticmethod
    def _event(event, count=1):
        """A dpacct event (or None for a no-op) from what compose accepts."""
        if isinstance(event, str):
            # JSON (an object, an array or a ledger) or event text
            json = event.lstrip().startswith(("{", "["))
            event = Event.from_json(event) if json else Event.parse(event)
        elif not isinstance(event, Event):
            from .convert import from_dp_accounting
            event = from_dp_accounting(event)
        if isinstance(event, NoOp):
            return None
        if isinstance(count, bool) or not isinstance(count, numbers.Integral):
            raise TypeError("count must be an int, got %r" % (count,))
        if count != 1:
            from .events import SelfComposed
            event = SelfComposed(event, int(count))
        return event

    def supports(self, event):
        """True when the accountant can compose `event`."""
        return self.why_unsupported(event) is None

    def why_unsupported(self, event):
        """None when the accountant can compose `event`, else the library's
        reason (a str)."""
        event = self._event(event)
        if event is None:
            return None
        with c_event(event) as ce:
            err = _lib.Error()
            st = _lib.lib().dpa_accountant_supports(self._ptr(), ce, ctypes.byref(err))
        return None if st == 0 else (_lib.text(err.message) or _lib.text(_lib.lib().dpa_strerror(st)))

    def compose(self, event, count=1):
        """Compose `event` (`count` times) into the accountant; returns self.
        On failure (Unsupported, InvalidArgument, ...) nothing is composed."""
        event = self._event(event, count)
        if event is None:
            return self
        with c_event(event) as ce:
            err = _lib.Error()
            _lib.check(_lib.lib().dpa_accountant_compose(self._ptr(), ce, ctypes.byref(err)), err)
        self._events.append(event)
        return self

    def add_failure(self, delta, what):
        """An additive delta for an event outside the mechanisms (see
        dpa_accountant_add_failure); returns self."""
        err = _lib.Error()
        _lib.check(_lib.lib().dpa_accountant_add_failure(self._ptr(), float(delta), str(what).encode("utf-8"),
                                                         ctypes.byref(err)), err)
        return self

    @property
    def failures(self):
        """The failure terms added: a list of (delta, what)."""
        L = _lib.lib()
        out = []
        for i in range(L.dpa_accountant_num_failures(self._ptr())):
            d = ctypes.c_double()
            w = ctypes.c_char_p()
            if L.dpa_accountant_failure(self._ptr(), i, ctypes.byref(d), ctypes.byref(w)) == 0:
                out.append((d.value, _lib.text(w.value)))
        return out

    # ---- queries ------------------------------------------------------------
    def _query(self, fn, x):
        b = _lib.CBound()
        err = _lib.Error()
        st = fn(self._ptr(), float(x), ctypes.byref(b), ctypes.byref(err))
        if st == DPA_EACCURACY:
            e = AccuracyNotReached(_lib.text(err.message), st)
            e.bound = Bound._from_c(b)
            raise e
        _lib.check(st, err)
        return Bound._from_c(b)

    def epsilon(self, delta):
        """The smallest eps for which the composition is (eps, delta)-DP: a Bound."""
        return self._query(_lib.lib().dpa_accountant_epsilon, delta)

    def delta(self, epsilon):
        """The smallest delta for which the composition is (epsilon, delta)-DP: a Bound."""
        return self._query(_lib.lib().dpa_accountant_delta, epsilon)

    def tradeoff(self, fpr):
        """Bounds on the true-positive rate of the best test of "the record
        was used" at false-positive rate `fpr` in (0, 1]
        (dpa_accountant_tradeoff): a Bound bracketing the exact curve where
        the accountant keeps both directions' pairs (pld, gaussian); else
        (flagged SYMMETRISED) the upper still holds and the lower bounds the
        curve symmetrised over the two directions."""
        return self._query(_lib.lib().dpa_accountant_tradeoff, fpr)

    def group_epsilon(self, k, delta):
        """eps at `delta` for neighbours that differ in k records (a user with
        up to k examples), by group privacy (Vadhan 2017, Lemma 2.2: (eps, d)
        gives (k eps, k e^((k-1) eps) d)), searched over the record-level d
        (dpa_accountant_group_epsilon).  Returns (Bound, example_epsilon,
        example_delta): the bound's upper is k eps (inf when no d gives a
        finite one; no lower bound), and the record-level pair it used."""
        if isinstance(k, bool) or not isinstance(k, numbers.Integral):
            raise TypeError("k must be an int, got %r" % (k,))
        if k < 0:
            raise InvalidArgument("group_epsilon: the group size k must be at least 1, got %d" % k, DPA_EINVAL)
        b = _lib.CBound()
        ee = ctypes.c_double()
        ed = ctypes.c_double()
        err = _lib.Error()
        _lib.check(_lib.lib().dpa_accountant_group_epsilon(self._ptr(), int(k), float(delta), ctypes.byref(b),
                                                          ctypes.byref(ee), ctypes.byref(ed), ctypes.byref(err)),
                   err)
        return Bound._from_c(b), ee.value, ed.value

    def state(self):
        """The scalar summary of the native state, (value, name): sigma_eff
        (gaussian), mu (gdp), rho (zcdp)."""
        v = ctypes.c_double()
        what = ctypes.c_char_p()
        err = _lib.Error()
        _lib.check(_lib.lib().dpa_accountant_state(self._ptr(), ctypes.byref(v), ctypes.byref(what),
                                                   ctypes.byref(err)), err)
        return v.value, _lib.text(what.value)

    def rdp_curve(self):
        """The RDP curve of an accountant that keeps one (rdp): a list of
        (order, eps) with ascending orders (eps may be inf).  Unsupported for
        the others."""
        L = _lib.lib()
        n = ctypes.c_size_t()
        err = _lib.Error()
        _lib.check(L.dpa_accountant_rdp_curve(self._ptr(), None, None, 0, ctypes.byref(n), ctypes.byref(err)), err)
        orders = (ctypes.c_double * max(n.value, 1))()
        eps = (ctypes.c_double * max(n.value, 1))()
        _lib.check(L.dpa_accountant_rdp_curve(self._ptr(), orders, eps, n.value, ctypes.byref(n),
                                              ctypes.byref(err)), err)
        return [(orders[i], eps[i]) for i in range(n.value)]


# ---- calibration ------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Calibration:
    """The result of a calibration.  `value` meets the target: the method's
    certified upper eps there, `epsilon`, is at most the target.  `fails`
    (within rel_tol, or one step for integers) does not: its certified eps,
    `epsilon_at_fails`, is above the target; NaN when the whole range meets
    it.  `evaluations` and `guide_evaluations` count the accountant runs."""
    value: float
    epsilon: float
    fails: float
    epsilon_at_fails: float
    evaluations: int
    guide_evaluations: int

    def __float__(self):
        return float(self.value)


_DIRECTIONS = {"smallest": 0, "largest": 1}


def calibrate(family, target_epsilon, delta, *, accountant="pld", relation="add-remove", eps_error=None,
              orders=None, direction=None, integer=None, lo=None, hi=None, limit_lo=None, limit_hi=None,
              rel_tol=None, guess=None, guide="rdp", name=None, max_evaluations=None):
    """Search the parameter of an event family for a target (eps, delta)
    (dpa_calibrate_search): `family(value)` returns the event for a
    parameter value (an int when `integer`).

    `family` may instead be an event template: event text or JSON with the
    value to find written "?" ("self_composed(count=100, laplace(scale=?))",
    or the JSON string "?").  The library then says which way to search
    (the smallest noise scale; the largest count, rate or privacy
    parameter), whether it is an integer, its range and its name
    (dpa_event_template_calibration); direction and integer are not given.

    direction "smallest": eps decreases in the parameter (noise); the
    smallest value whose certified upper eps <= target_epsilon at delta.
    "largest": eps increases in it (steps, rate); the largest such value.
    accountant, relation, eps_error, orders: as for Accountant.  lo, hi:
    the starting interval; limit_lo, limit_hi: the range searched (the
    library's defaults: 1e-6 .. 1e9 for noise, 1 .. 1e15 for counts);
    rel_tol: the relative width of the final bracket (default 1e-9); guess:
    a value near the answer; guide: a cheaper accountant calibrated first for
    the start (None: none; ignored where it fails); name: the parameter's name
    in messages; max_evaluations: runs allowed (default 200).

    Returns a Calibration.  NoBracket when no value in the range meets the
    target and AccuracyNotReached when the runs allowed are used up (both
    with the search so far in .calibration).
    """
    L = _lib.lib()
    opt, _array = _options(relation, eps_error, orders, False)
    # converted before a template is made, so that nothing below can raise
    # while the library holds one
    overrides = {field: float(value) for field, value in (("lo", lo), ("hi", hi), ("limit_lo", limit_lo),
                                                           ("limit_hi", limit_hi), ("rel_tol", rel_tol),
                                                           ("guess", guess)) if value is not None}
    max_evaluations = None if max_evaluations is None else int(max_evaluations)
    guide_b = None if guide is None else str(guide).encode("utf-8")
    name_b = None if name is None else str(name).encode("utf-8")
    c = _lib.CCalibration()
    template = None
    if isinstance(family, str):
        if direction is not None or integer is not None:
            raise InvalidArgument("calibrate: direction and integer follow from the template's '?'; do not give "
                                  "them", DPA_EINVAL)
        err = _lib.Error()
        b = family.encode("utf-8")
        template = L.dpa_event_template_new(b, len(b), ctypes.byref(err))
        if not template:
            _lib.raise_error(err.status, err)
        try:
            _lib.check(L.dpa_event_template_calibration(template, ctypes.byref(c), ctypes.byref(err)), err)
        except BaseException:
            L.dpa_event_template_free(template)
            raise
        integer = bool(c.integer)
    else:
        direction = "smallest" if direction is None else direction
        if direction not in _DIRECTIONS:
            raise InvalidArgument("direction must be 'smallest' or 'largest', got %r" % (direction,), DPA_EINVAL)
        L.dpa_calibration_init(ctypes.byref(c), _DIRECTIONS[direction])
        integer = bool(integer)
        c.integer = 1 if integer else 0
    for field, value in overrides.items():
        setattr(c, field, value)
    if max_evaluations is not None:
        c.max_evaluations = max_evaluations
    c.guide = guide_b
    if name_b is not None or template is None:
        c.name = name_b
    raised = []

    def call(param, _ctx, err):
        # The library frees what it is given.  A Python exception stops the
        # search (reported as DPA_EINVAL to the library) and is re-raised.
        try:
            x = int(round(param)) if integer else param
            event = family(x)
            if not isinstance(event, (Event, str)):
                from .convert import from_dp_accounting
                event = from_dp_accounting(event)
            text = event if isinstance(event, str) else event.to_text()
            p = L.dpa_event_parse(text.encode("utf-8"), err)
            return ctypes.cast(p, ctypes.c_void_p).value if p else None
        except BaseException as e:  # noqa: B902 -- re-raised below
            raised.append(e)
            msg = ("calibrate: the event family raised %s" % type(e).__name__).encode("utf-8")
            err.contents.status = DPA_EINVAL
            err.contents.message = msg[:_lib.ERROR_MESSAGE_SIZE - 1]
            return None

    err = _lib.Error()
    if template is None:
        cb, ctx = _lib.EventFamily(call), None
    else:
        # the library's own family, the template its context
        cb, ctx = ctypes.cast(L.dpa_event_template_family, _lib.EventFamily), ctypes.cast(template, ctypes.c_void_p)
    try:
        st = L.dpa_calibrate_search(accountant.encode("utf-8"), ctypes.byref(opt), cb, ctx, float(target_epsilon),
                                    float(delta), ctypes.byref(c), ctypes.byref(err))
    finally:
        if template is not None:
            L.dpa_event_template_free(template)
    if raised:
        raise raised[0]
    result = Calibration(c.value, c.epsilon_at_value, c.fails, c.epsilon_at_fails, c.evaluations,
                         c.guide_evaluations)
    if st in (DPA_ENOBRACKET, DPA_EACCURACY):
        e = (NoBracket if st == DPA_ENOBRACKET else AccuracyNotReached)(_lib.text(err.message), st)
        e.calibration = result
        raise e
    _lib.check(st, err)
    if integer:
        result = dataclasses.replace(result, value=int(result.value),
                                     fails=result.fails if math.isnan(result.fails) else int(result.fails))
    return result


def calibrate_noise_multiplier(sample_rate, steps, target_epsilon, delta, **kwargs):
    """The smallest noise multiplier sigma for which `steps` Poisson-sampled
    Gaussians (DP-SGD: SelfComposed(PoissonSampled(sample_rate,
    Gaussian(sigma)), steps)) meet (target_epsilon, delta) on the
    accountant's certified upper bound.  Keyword arguments as calibrate's
    (accountant="pld" by default, guided by "rdp").  Returns a Calibration:
    .value is sigma, .epsilon its certified eps."""
    from .events import Gaussian, PoissonSampled, SelfComposed
    kwargs.setdefault("name", "sigma")
    return calibrate(lambda s: SelfComposed(PoissonSampled(sample_rate, Gaussian(s)), steps), target_epsilon, delta,
                     direction="smallest", **kwargs)
