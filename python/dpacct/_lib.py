"""libdpacct through ctypes: loading, the structures of dpacct.h, and the
prototypes of every function the package calls.

The library is found, on first use, at
  1. $DPACCT_LIBRARY (a path to the shared library; the tests point it at the
     build tree's .libs/libdpacct.so),
  2. beside an installed package: <prefix>/lib/libdpacct.so.0 when this file
     is <prefix>/lib/pythonX.Y/{site,dist}-packages/dpacct/_lib.py,
  3. ctypes.util.find_library("dpacct"), then the soname libdpacct.so.0
     (the dynamic loader's search path).

The structures mirror lib/dpacct.h field for field; tests/python/test_abi.py
compiles a C program that prints their layout and compares it with these.
"""

import ctypes
import ctypes.util
import os
import threading

from .errors import LibraryNotFound, error_for

SONAME = "libdpacct.so.0"
ERROR_MESSAGE_SIZE = 256  # DPA_ERROR_MESSAGE_SIZE


class Error(ctypes.Structure):
    """dpa_error"""
    _fields_ = [("status", ctypes.c_int), ("message", ctypes.c_char * ERROR_MESSAGE_SIZE)]


class CBound(ctypes.Structure):
    """dpa_bound"""
    _fields_ = [
        ("lower", ctypes.c_double),
        ("estimate", ctypes.c_double),
        ("upper", ctypes.c_double),
        ("order", ctypes.c_double),
        ("flags", ctypes.c_uint),
    ]


class Options(ctypes.Structure):
    """dpa_options"""
    _fields_ = [
        ("relation", ctypes.c_int),
        ("tolerance", ctypes.c_double),
        ("orders", ctypes.POINTER(ctypes.c_double)),
        ("num_orders", ctypes.c_size_t),
        ("require_width", ctypes.c_int),
    ]


class CCalibration(ctypes.Structure):
    """dpa_calibration"""
    _fields_ = [
        ("direction", ctypes.c_int),
        ("integer", ctypes.c_int),
        ("lo", ctypes.c_double),
        ("hi", ctypes.c_double),
        ("rel_tol", ctypes.c_double),
        ("limit_lo", ctypes.c_double),
        ("limit_hi", ctypes.c_double),
        ("guess", ctypes.c_double),
        ("guide", ctypes.c_char_p),
        ("name", ctypes.c_char_p),
        ("max_evaluations", ctypes.c_uint),
        ("value", ctypes.c_double),
        ("fails", ctypes.c_double),
        ("epsilon_at_value", ctypes.c_double),
        ("epsilon_at_fails", ctypes.c_double),
        ("evaluations", ctypes.c_uint),
        ("guide_evaluations", ctypes.c_uint),
    ]


class CEventHole(ctypes.Structure):
    """dpa_event_hole"""
    _fields_ = [
        ("kind", ctypes.c_int),
        ("name", ctypes.c_char_p),
        ("is_count", ctypes.c_int),
        ("direction", ctypes.c_int),
        ("limit_lo", ctypes.c_double),
        ("limit_hi", ctypes.c_double),
        ("start", ctypes.c_double),
    ]


class _CEvent(ctypes.Structure):
    """dpa_event (opaque)"""


class _CTemplate(ctypes.Structure):
    """dpa_event_template (opaque)"""


class _CAccountant(ctypes.Structure):
    """dpa_accountant (opaque)"""


EventP = ctypes.POINTER(_CEvent)
TemplateP = ctypes.POINTER(_CTemplate)
AccountantP = ctypes.POINTER(_CAccountant)
ErrorP = ctypes.POINTER(Error)

# dpa_event_family: dpa_event *(*)(double param, void *ctx, dpa_error *err).
# The callback returns the event's address (c_void_p): ctypes cannot return
# a POINTER type from a Python callback.
EventFamily = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_double, ctypes.c_void_p, ErrorP)

# name: (restype, argtypes)
_PROTOTYPES = {
    "dpa_strerror": (ctypes.c_char_p, [ctypes.c_int]),
    "dpa_version": (ctypes.c_char_p, []),
    "dpa_bound_describe": (ctypes.c_size_t, [ctypes.c_uint, ctypes.c_char_p, ctypes.c_size_t]),
    "dpa_event_parse": (EventP, [ctypes.c_char_p, ErrorP]),
    "dpa_event_free": (None, [EventP]),
    "dpa_event_describe": (ctypes.c_size_t, [EventP, ctypes.c_char_p, ctypes.c_size_t]),
    # a malloc'ed string: its address (c_void_p), released with libc's free
    "dpa_event_to_json": (ctypes.c_void_p, [EventP, ctypes.c_int, ErrorP]),
    "dpa_event_from_json": (EventP, [ctypes.c_char_p, ctypes.c_size_t, ErrorP]),
    "dpa_event_load_json": (EventP, [ctypes.c_char_p, ErrorP]),
    "dpa_event_ledger_append": (ctypes.c_int, [ctypes.c_char_p, EventP, ErrorP]),
    "dpa_event_get_kind": (ctypes.c_int, [EventP]),
    "dpa_event_kind_name": (ctypes.c_char_p, [ctypes.c_int]),
    "dpa_event_param": (ctypes.c_double, [EventP, ctypes.c_uint]),
    "dpa_event_count": (ctypes.c_uint64, [EventP, ctypes.c_uint]),
    "dpa_event_num_children": (ctypes.c_size_t, [EventP]),
    "dpa_event_num_components": (ctypes.c_size_t, [EventP]),
    "dpa_event_component_sensitivity": (ctypes.c_double, [EventP, ctypes.c_size_t]),
    "dpa_event_component_probability": (ctypes.c_double, [EventP, ctypes.c_size_t]),
    "dpa_event_child": (EventP, [EventP, ctypes.c_size_t]),
    "dpa_options_init": (None, [ctypes.POINTER(Options)]),
    "dpa_accountant_names": (ctypes.POINTER(ctypes.c_char_p), []),
    "dpa_accountant_summary": (ctypes.c_char_p, [ctypes.c_char_p]),
    "dpa_accountant_new": (AccountantP, [ctypes.c_char_p, ctypes.POINTER(Options), ErrorP]),
    "dpa_accountant_name": (ctypes.c_char_p, [AccountantP]),
    "dpa_accountant_supports": (ctypes.c_int, [AccountantP, EventP, ErrorP]),
    "dpa_accountant_compose": (ctypes.c_int, [AccountantP, EventP, ErrorP]),
    "dpa_accountant_epsilon": (ctypes.c_int, [AccountantP, ctypes.c_double, ctypes.POINTER(CBound), ErrorP]),
    "dpa_accountant_delta": (ctypes.c_int, [AccountantP, ctypes.c_double, ctypes.POINTER(CBound), ErrorP]),
    "dpa_accountant_state": (ctypes.c_int, [AccountantP, ctypes.POINTER(ctypes.c_double),
                                            ctypes.POINTER(ctypes.c_char_p), ErrorP]),
    "dpa_accountant_rdp_curve": (ctypes.c_int, [AccountantP, ctypes.POINTER(ctypes.c_double),
                                                ctypes.POINTER(ctypes.c_double), ctypes.c_size_t,
                                                ctypes.POINTER(ctypes.c_size_t), ErrorP]),
    "dpa_accountant_add_failure": (ctypes.c_int, [AccountantP, ctypes.c_double, ctypes.c_char_p, ErrorP]),
    "dpa_accountant_num_failures": (ctypes.c_size_t, [AccountantP]),
    "dpa_accountant_failure": (ctypes.c_int, [AccountantP, ctypes.c_size_t, ctypes.POINTER(ctypes.c_double),
                                              ctypes.POINTER(ctypes.c_char_p)]),
    "dpa_accountant_free": (None, [AccountantP]),
    "dpa_accountant_tradeoff": (ctypes.c_int, [AccountantP, ctypes.c_double, ctypes.POINTER(CBound), ErrorP]),
    "dpa_accountant_group_epsilon": (ctypes.c_int, [AccountantP, ctypes.c_uint64, ctypes.c_double,
                                                    ctypes.POINTER(CBound), ctypes.POINTER(ctypes.c_double),
                                                    ctypes.POINTER(ctypes.c_double), ErrorP]),
    "dpa_calibration_init": (None, [ctypes.POINTER(CCalibration), ctypes.c_int]),
    "dpa_event_template_new": (TemplateP, [ctypes.c_char_p, ctypes.c_size_t, ErrorP]),
    "dpa_event_template_free": (None, [TemplateP]),
    "dpa_event_template_hole": (ctypes.c_int, [TemplateP, ctypes.POINTER(CEventHole), ErrorP]),
    "dpa_event_template_calibration": (ctypes.c_int, [TemplateP, ctypes.POINTER(CCalibration), ErrorP]),
    # passed to dpa_calibrate_search as its family (cast to EventFamily)
    "dpa_event_template_family": (EventP, [ctypes.c_double, ctypes.c_void_p, ErrorP]),
    "dpa_calibrate_search": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(Options), EventFamily, ctypes.c_void_p,
                                            ctypes.c_double, ctypes.c_double, ctypes.POINTER(CCalibration),
                                            ErrorP]),
}

_lock = threading.Lock()
_lib = None


def _candidates():
    env = os.environ.get("DPACCT_LIBRARY")
    if env:
        return [env], True
    found = []
    # <prefix>/lib/pythonX.Y/site-packages/dpacct/_lib.py -> <prefix>/lib
    here = os.path.dirname(os.path.abspath(__file__))
    libdir = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    beside = os.path.join(libdir, SONAME)
    if os.path.exists(beside):
        found.append(beside)
    name = ctypes.util.find_library("dpacct")
    if name:
        found.append(name)
    found.append(SONAME)
    return found, False


def _load():
    tried = []
    paths, from_env = _candidates()
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        for name, (restype, argtypes) in _PROTOTYPES.items():
            try:
                fn = getattr(lib, name)
            except AttributeError:
                raise LibraryNotFound("%s has no function %s: a libdpacct older than this package" % (path, name))
            fn.restype = restype
            fn.argtypes = argtypes
        return lib
    where = "DPACCT_LIBRARY=%s" % paths[0] if from_env else "the system (set DPACCT_LIBRARY to its path)"
    raise LibraryNotFound("libdpacct not found in %s; tried: %s" % (where, "; ".join(tried)))


def lib():
    """The loaded library, its prototypes declared (loaded on first use)."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                _lib = _load()
    return _lib


_libc_free = None


def free(address):
    """free() a string the library allocated (it links the C library's malloc)."""
    global _libc_free
    if _libc_free is None:
        fn = ctypes.CDLL(None).free
        fn.restype = None
        fn.argtypes = [ctypes.c_void_p]
        _libc_free = fn
    _libc_free(address)


def sized_text(fn, *args):
    """The text a library writer gives (fn(*args, buf, size) returning the
    length it needs, as dpa_event_describe and dpa_bound_describe do):
    asked for its length, then written."""
    n = fn(*args, None, 0)
    buf = ctypes.create_string_buffer(n + 1)
    fn(*args, buf, n + 1)
    return text(buf.value)


def text(b):
    """A C string from the library as str (NULL as None)."""
    return None if b is None else b.decode("utf-8", "replace")


def raise_error(status, err):
    """Raise the exception for a failed call, with the library's message."""
    message = text(err.message) or text(lib().dpa_strerror(status))
    raise error_for(status, message)


def check(status, err):
    """Raise for a nonzero status; return it otherwise."""
    if status != 0:
        raise_error(status, err)
    return status
