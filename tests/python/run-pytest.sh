#!/bin/sh
# run-pytest.sh - the Python package's tests (tests/python/test_*.py) under
# pytest, against the source tree's python/dpacct and the freshly built
# .libs/libdpacct.so (absolute paths, so out-of-tree builds work).  Run by
# `make check`, whose AM_TESTS_ENVIRONMENT gives DPA_SRCDIR, DPA_BUILDDIR,
# PYTHON (configure's, ':' when it found none) and DPA_CC (tests/python/
# test_abi.py compiles a layout probe with it).
#   tests/python/run-pytest.sh [pytest arguments]
# Exits 77 (skipped) without a shared libdpacct (a --disable-shared build) or
# without a Python that has pytest (Debian: apt-get install python3-pytest).
# Writes nothing into the source tree (no cache, no bytecode): distcheck's
# is read-only.  Ends with the plain line "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=${DPA_SRCDIR:-$(cd "$here/../.." && pwd)}
build=${DPA_BUILDDIR:-$(pwd)}
lib=$build/.libs/libdpacct.so
if [ ! -f "$lib" ]; then
    echo "SKIP: no shared library $lib (a --disable-shared build)"
    exit 77
fi
# configure's interpreter first; python3 on the path and Debian's python3
# when that one has no pytest (another python3 may come first on the path)
py=""
for cand in "${PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$cand" ] && [ "$cand" != ":" ] || continue
    if "$cand" -c 'import pytest' >/dev/null 2>&1; then
        py=$cand
        break
    fi
done
if [ -z "$py" ]; then
    echo "SKIP: no python3 with pytest (Debian: apt-get install python3-pytest)"
    exit 77
fi
DPACCT_LIBRARY=$lib
PYTHONPATH=$src/python${PYTHONPATH:+:$PYTHONPATH}
PYTHONDONTWRITEBYTECODE=1
export DPACCT_LIBRARY PYTHONPATH PYTHONDONTWRITEBYTECODE
out=${TMPDIR:-/tmp}/dpacct-pytest.$$
trap 'rm -f "$out"' EXIT
"$py" --version
"$py" -m pytest -p no:cacheprovider -q -rs "$@" "$src/tests/python" >"$out" 2>&1
rc=$?
cat "$out"
# pytest's summary ("3 failed, 40 passed, 1 skipped in 2.1s") as the plain
# line; a run that ended without one (a crash) counts as one failure
tail -n 1 "$out" | awk -v rc=$rc '{
    for (i = 2; i <= NF; i++) {
        w = $i; sub(/,$/, "", w)
        if (w == "passed") p = $(i - 1)
        else if (w == "failed" || w == "error" || w == "errors") f += $(i - 1)
    } }
    END { if (rc != 0 && f == 0) f = 1; printf "%d passed, %d failed\n", p, f }'
# pytest's 5 (no test collected) is a failure here: the tests went missing
[ $rc -eq 0 ] || exit 1
exit 0
