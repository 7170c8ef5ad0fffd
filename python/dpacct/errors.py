"""The exceptions of the dpacct package: one class per libdpacct status code.

Every error the C library reports arrives as an instance of the class of its
status (``DPA_EINVAL`` -> :class:`InvalidArgument`, ...), carrying the
library's own sentence as its message.  All of them derive from
:class:`DpacctError`; the ones with a natural Python counterpart derive from
it too (``InvalidArgument`` is a ``ValueError``, ``NotFound`` a
``LookupError``, ``OutOfMemory`` a ``MemoryError``), so that generic handlers
keep working.
"""

# The status codes of lib/dpacct.h (part of its ABI).
DPA_OK = 0
DPA_EINVAL = -1
DPA_ENOMEM = -2
DPA_EUNSUPPORTED = -3
DPA_EACCURACY = -4
DPA_ENOTFOUND = -5
DPA_ENOBRACKET = -6
DPA_EINTERNAL = -7
DPA_EIO = -8


class DpacctError(Exception):
    """An error reported by libdpacct (or found before calling it).

    ``status`` is the library's status code (a negative ``DPA_E*``), and
    ``message`` the sentence that names the argument at fault.
    """

    status = None

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class InvalidArgument(DpacctError, ValueError):
    """DPA_EINVAL: an argument is out of its domain."""
    status = DPA_EINVAL


class OutOfMemory(DpacctError, MemoryError):
    """DPA_ENOMEM: memory exhausted."""
    status = DPA_ENOMEM


class Unsupported(DpacctError):
    """DPA_EUNSUPPORTED: the accountant cannot account for the event
    (the message says why), or the event cannot be converted."""
    status = DPA_EUNSUPPORTED


class AccuracyNotReached(DpacctError):
    """DPA_EACCURACY: the accuracy asked for cannot be reached within the
    limits.  ``bound`` (a query asked with ``require_width``) or
    ``calibration`` (a search out of evaluations) holds the best valid
    answer found, when there is one."""
    status = DPA_EACCURACY
    bound = None
    calibration = None


class NotFound(DpacctError, LookupError):
    """DPA_ENOTFOUND: no accountant of that name."""
    status = DPA_ENOTFOUND


class NoBracket(DpacctError):
    """DPA_ENOBRACKET: a search interval holds no solution (a target that no
    value in the range meets).  ``calibration`` holds what was searched."""
    status = DPA_ENOBRACKET
    calibration = None


class InternalError(DpacctError):
    """DPA_EINTERNAL: a result failed the library's consistency check (a bug)."""
    status = DPA_EINTERNAL


class FileError(DpacctError, OSError):
    """DPA_EIO: a file could not be read or written (event files, ledgers)."""
    status = DPA_EIO


class LibraryNotFound(DpacctError, OSError):
    """libdpacct could not be loaded (the message lists where it looked)."""


_BY_STATUS = {
    DPA_EINVAL: InvalidArgument,
    DPA_ENOMEM: OutOfMemory,
    DPA_EUNSUPPORTED: Unsupported,
    DPA_EACCURACY: AccuracyNotReached,
    DPA_ENOTFOUND: NotFound,
    DPA_ENOBRACKET: NoBracket,
    DPA_EINTERNAL: InternalError,
    DPA_EIO: FileError,
}


def error_for(status, message):
    """The exception for a library status code and its message."""
    cls = _BY_STATUS.get(status, DpacctError)
    return cls(message, status)
