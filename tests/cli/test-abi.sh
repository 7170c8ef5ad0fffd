#!/bin/sh
# test-abi.sh - the shared libraries export their public API and nothing
# else (run by `make check`; DESIGN.md: "Only dpa_* and dpt_* are
# exported").
#
# For libdpacct.so (prefix dpa_, header lib/dpacct.h) and libdptrain.so
# (dpt_, trainers/dptrain.h) in the build directory:
#  - every defined dynamic symbol (nm -D --defined-only: functions and data
#    alike) starts with the prefix;
#  - the exported names are exactly the functions (and extern objects)
#    declared in the public header: each name missing on either side is
#    reported.
# The declared names come from the preprocessed header ($CC -E -P), so that
# comments (which name functions, internal ones too) and macros are gone:
# the identifiers with the prefix immediately followed by "(" in every
# declaration except typedefs (a function type "typedef int dpa_f(int)"
# declares no function; a function-pointer typedef "(*dpa_f)(" never
# matches, nor does a parameter "(*dpa_cb)(").
#
# The libraries are compiled with -fvisibility=hidden and the headers push
# default visibility (#pragma GCC visibility): a name declared only in an
# internal header, or a missing pragma, fails here.  Skipped (77) for a
# static-only build (--disable-shared) and when the compiler has no
# -fvisibility (configure warned).
#
# Environment (Makefile.am's AM_TESTS_ENVIRONMENT): DPA_CC the compiler,
# DPA_SRCDIR and DPA_BUILDDIR the top source and build directories,
# DPA_VISIBILITY configure's visibility flag.
#
# POSIX sh, awk, grep and nm only.

CC=${DPA_CC:-${CC:-cc}}
SRCDIR=${DPA_SRCDIR:-${srcdir:-.}}
BUILDDIR=${DPA_BUILDDIR:-.}
NM=${NM:-nm}

if [ ! -e "$BUILDDIR/.libs/libdpacct.so" ] && [ ! -e "$BUILDDIR/.libs/libdptrain.so" ]; then
    echo "SKIP: no shared libraries in $BUILDDIR/.libs (a --disable-shared build)"
    exit 77
fi
if [ "${DPA_VISIBILITY-unset}" = "" ]; then
    echo "SKIP: $CC has no -fvisibility=hidden: the libraries export every extern name"
    exit 77
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/dpacct-abi.XXXXXX") || exit 99
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

passed=0
failed=0
pass() { passed=$((passed + 1)); printf 'PASS: %s\n' "$1"; }
fail() { failed=$((failed + 1)); printf 'FAIL: %s\n' "$1${2:+ ($2)}"; }

# declared HEADER PREFIX: the functions and extern objects HEADER declares
# whose names start with PREFIX, one a line, sorted.
declared() {
    printf '#include <%s>\n' "$1" >"$TMP/decl.c"
    $CC -E -P -I"$SRCDIR/lib" -I"$SRCDIR/trainers" "$TMP/decl.c" >"$TMP/decl.i" || return 1
    # One line; the pragmas (kept by -E) are not declarations.  Split into
    # declarations at ";" and after a brace (struct and enum bodies).
    awk -v p="$2" '
        /^[ \t]*#/ { next }
        { text = text " " $0 }
        END {
            gsub(/[{}]/, ";", text)
            n = split(text, decl, ";")
            for (i = 1; i <= n; i++) {
                d = decl[i]
                if (d ~ /^[ \t]*typedef[ \t]/) continue
                if (d ~ /^[ \t]*extern[ \t]/ && d !~ /\(/) {   # an object
                    sub(/[ \t]*(\[[^]]*\][ \t]*)*$/, "", d)
                    if (match(d, "[A-Za-z0-9_]+$") && substr(d, RSTART, length(p)) == p)
                        print substr(d, RSTART)
                    continue
                }
                while (match(d, "[A-Za-z0-9_]+[ \t]*\\(")) {
                    name = substr(d, RSTART, RLENGTH)
                    d = substr(d, RSTART + RLENGTH)
                    sub(/[ \t]*\($/, "", name)
                    if (substr(name, 1, length(p)) == p) print name
                }
            }
        }' "$TMP/decl.i" | sort -u
}

# exported LIB: "TYPE NAME" of every defined dynamic symbol, sorted by name.
# The linker's own _init, _fini, _edata, _end and __bss_start (exported by
# older binutils) are not the library's.
exported() {
    $NM -D --defined-only "$1" >"$TMP/nm.out" || return 1
    awk 'NF >= 2 { name = $NF; sub(/@.*/, "", name)
                   if (name !~ /^(_init|_fini|_edata|_end|__bss_start)$/) print $(NF - 1), name }' \
        "$TMP/nm.out" | sort -k 2
}

# words FILE: the lines of FILE on one line
words() { tr '\n' ' ' <"$1" | sed 's/ $//'; }

check_library() {
    lib=$1; header=$2; prefix=$3
    so=$BUILDDIR/.libs/$lib
    if [ ! -e "$so" ]; then
        fail "$lib: built" "no $so"
        return
    fi
    if ! exported "$so" >"$TMP/syms"; then
        fail "$lib: nm -D" "$(head -n 1 "$TMP/nm.out")"
        return
    fi
    awk '{ print $2 }' "$TMP/syms" | sort -u >"$TMP/exported"
    if ! declared "$header" "$prefix" >"$TMP/declared"; then
        fail "$header: preprocessed by $CC" "$CC -E -P failed"
        return
    fi
    nexp=$(wc -l <"$TMP/exported" | tr -d ' ')
    ndecl=$(wc -l <"$TMP/declared" | tr -d ' ')
    # Neither list may be empty: a failing nm or a header that no longer
    # preprocesses must not pass as "equal".
    if [ "$nexp" -gt 0 ]; then pass "$lib: exports $nexp names"
    else fail "$lib: exports some names" "nm -D found none"; fi
    if [ "$ndecl" -gt 0 ]; then pass "$header: declares $ndecl $prefix functions"
    else fail "$header: declares some $prefix functions" "none found in the preprocessed header"; fi

    awk -v p="$prefix" 'substr($2, 1, length(p)) != p { print $1 " " $2 }' "$TMP/syms" >"$TMP/foreign"
    if [ ! -s "$TMP/foreign" ]; then pass "$lib: every exported name starts with $prefix"
    else fail "$lib: every exported name starts with $prefix" \
        "$(wc -l <"$TMP/foreign" | tr -d ' ') do not: $(words "$TMP/foreign")"; fi

    comm -23 "$TMP/exported" "$TMP/declared" >"$TMP/extra"
    if [ ! -s "$TMP/extra" ]; then pass "$lib: exports nothing that $header does not declare"
    else fail "$lib: exports nothing that $header does not declare" \
        "$(wc -l <"$TMP/extra" | tr -d ' ') exported but not declared: $(words "$TMP/extra")"; fi

    comm -13 "$TMP/exported" "$TMP/declared" >"$TMP/missing"
    if [ ! -s "$TMP/missing" ]; then pass "$lib: exports every function $header declares"
    else fail "$lib: exports every function $header declares" \
        "$(wc -l <"$TMP/missing" | tr -d ' ') declared but not exported: $(words "$TMP/missing")"; fi
}

check_library libdpacct.so dpacct.h dpa_
check_library libdptrain.so dptrain.h dpt_

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
