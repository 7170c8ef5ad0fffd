"""dpacct: differential-privacy accounting with libdpacct, from Python.

A pure-Python package over the C library through ctypes (the standard
library only).  Events render themselves in the library's event text, the
library builds and checks them, and accountants answer with certified
brackets:

    >>> import dpacct
    >>> acct = dpacct.Accountant("pld")
    >>> acct.compose(dpacct.PoissonSampled(0.004, dpacct.Gaussian(1.1)), count=900)
    >>> acct.epsilon(1e-5).upper       # the number to report

See docs/python.md.  libdpacct is loaded on first use from $DPACCT_LIBRARY,
else from the system (libdpacct.so.0).
"""

from .errors import (DpacctError, InvalidArgument, OutOfMemory, Unsupported, AccuracyNotReached, NotFound,
                     NoBracket, InternalError, FileError, LibraryNotFound)
from .events import (Event, Gaussian, Laplace, RandomizedResponse, DiscreteGaussian, DiscreteLaplace, Exponential,
                     EpsilonDelta, ZCDP, GDP, TreeAggregation, NoisyCGD, Shuffled, TruncatedLaplace, GSMFrobenius,
                     GSMSpectral, PermuteAndFlip, MixtureOfGaussians, PoissonSampled, SampledWithoutReplacement, SampledWithReplacement,
                     RandomAllocation, SelfComposed, ShuffledBatches, Composed, RepeatedSelected, NoOp, TruncatedPoisson)
from .accountant import (Bound, Accountant, Calibration, calibrate, calibrate_noise_multiplier, accountant_names,
                         accountant_summary, library_version, describe_flags)
from .convert import from_dp_accounting
from .statement import Statement, ExampleLevel, UserLevel, statement

__version__ = "0.1.0"

__all__ = [
    "DpacctError", "InvalidArgument", "OutOfMemory", "Unsupported", "AccuracyNotReached", "NotFound", "NoBracket",
    "InternalError", "FileError", "LibraryNotFound",
    "Event", "Gaussian", "Laplace", "RandomizedResponse", "DiscreteGaussian", "DiscreteLaplace", "Exponential",
    "EpsilonDelta", "ZCDP", "GDP", "TreeAggregation", "NoisyCGD", "Shuffled", "TruncatedLaplace", "GSMFrobenius",
    "GSMSpectral", "PermuteAndFlip", "MixtureOfGaussians", "PoissonSampled", "SampledWithoutReplacement", "SampledWithReplacement",
    "RandomAllocation", "SelfComposed", "ShuffledBatches", "Composed", "RepeatedSelected", "NoOp", "TruncatedPoisson",
    "Bound", "Accountant", "Calibration", "calibrate", "calibrate_noise_multiplier", "accountant_names",
    "accountant_summary", "library_version", "describe_flags",
    "from_dp_accounting",
    "Statement", "ExampleLevel", "UserLevel", "statement",
]
