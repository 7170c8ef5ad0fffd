"""The ctypes declarations against lib/dpacct.h: the structures' layout, read
from a C program compiled against the header, and every function declared.
Needs a C compiler ($DPA_CC, which make check sets, or cc) and the source
tree ($DPA_SRCDIR, or found from this file)."""

import ctypes
import os
import re
import shutil
import subprocess

import pytest

from dpacct import _lib

SRCDIR = os.environ.get("DPA_SRCDIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
HEADER = os.path.join(SRCDIR, "lib", "dpacct.h")

STRUCTS = {
    "dpa_error": _lib.Error,
    "dpa_bound": _lib.CBound,
    "dpa_options": _lib.Options,
    "dpa_calibration": _lib.CCalibration,
    "dpa_event_hole": _lib.CEventHole,
}


def compiler():
    cc = os.environ.get("DPA_CC") or "cc"
    return cc.split() if shutil.which(cc.split()[0]) else None


@pytest.mark.skipif(not os.path.exists(HEADER), reason="no lib/dpacct.h")
def test_functions_are_declared_in_the_header():
    with open(HEADER) as f:
        header = f.read()
    for name in _lib._PROTOTYPES:
        assert re.search(r"\b%s\s*\(" % name, header), name


@pytest.mark.skipif(not os.path.exists(HEADER), reason="no lib/dpacct.h")
def test_struct_layout(tmp_path):
    cc = compiler()
    if cc is None:
        pytest.skip("no C compiler")
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include \"dpacct.h\"", "int main(void) {"]
    for cname, cls in STRUCTS.items():
        lines.append('printf("%s size %%zu\\n", sizeof(%s));' % (cname, cname))
        for field, _type in cls._fields_:
            lines.append('printf("%s %s %%zu %%zu\\n", offsetof(%s, %s), sizeof(((%s *)0)->%s));'
                         % (cname, field, cname, field, cname, field))
    lines += ["return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "layout"
    subprocess.run(cc + ["-I", os.path.dirname(HEADER), str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split("\n")
    c_layout = {tuple(line.split()[:2]): [int(x) for x in line.split()[2:]] for line in out if line}
    for cname, cls in STRUCTS.items():
        assert c_layout[(cname, "size")] == [ctypes.sizeof(cls)], cname
        for field, _type in cls._fields_:
            member = getattr(cls, field)
            assert c_layout[(cname, field)] == [member.offset, member.size], (cname, field)
        # every member of the C structure is declared (none missing at the end)
        last = cls._fields_[-1][0]
        assert getattr(cls, last).offset + getattr(cls, last).size <= ctypes.sizeof(cls)


def test_status_codes_match_the_library():
    from dpacct import errors
    L = _lib.lib()
    # every status the library has (dpa_strerror knows it) has its class
    code = -1
    while _lib.text(L.dpa_strerror(code)) != "unknown status code":
        assert code in errors._BY_STATUS, code
        assert errors.error_for(code, "x").status == code
        code -= 1
    assert code <= -8
    assert errors.error_for(errors.DPA_EUNSUPPORTED, "x").__class__ is errors.Unsupported
