# dptrain-harness.sh - what the dptrain CLI test scripts share (sourced by
# tests/cli/test-dptrain*.sh with the script's name as $HARNESS_NAME):
# a scratch directory, the PASS/FAIL tally, and the checks.
#
# A usage or input error exits with status exactly 2, prints nothing on
# stdout and one line on stderr starting "dptrain: ", with a message after
# it and no control character in it (a value echoed from the input is
# escaped) (expect_usage; expect_usage_small does the same under a 2 GB
# address-space limit, to show that the refusal comes before a large
# allocation).
#
# POSIX sh, awk and grep only.

DPTRAIN=${DPTRAIN:-./dptrain}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/${HARNESS_NAME:-dptrain-cli}.XXXXXX") || exit 99
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

passed=0
failed=0
# printf, not echo: dash's echo would turn an escaped "\n" in a message
# back into a newline
pass() { passed=$((passed + 1)); printf 'PASS: %s\n' "$1"; }
fail() { failed=$((failed + 1)); printf 'FAIL: %s\n' "$1${2:+ ($2)}"; }

run() {
    "$DPTRAIN" "$@" >"$TMP/out" 2>"$TMP/err"
    status=$?
}

# expect_ok NAME ERE ARGS...
expect_ok() {
    name=$1; pattern=$2; shift 2
    run "$@"
    if [ "$status" -ne 0 ]; then fail "$name" "exit status $status: $(head -n 1 "$TMP/err")"
    elif ! grep -Eq -- "$pattern" "$TMP/out"; then fail "$name" "output does not match $pattern"
    else pass "$name"; fi
}

# control characters other than the newline, for grep
CONTROL=$(printf '[\001-\011\013-\037\177]')

# the checks of expect_usage on the last run
usage_checks() {
    name=$1; pattern=$2
    lines=$(wc -l <"$TMP/err")
    if [ "$status" -ne 2 ]; then fail "$name" "exit status $status, expected 2: $(head -c 200 "$TMP/err")"
    elif [ -s "$TMP/out" ]; then fail "$name" "wrote to stdout"
    elif [ "$lines" -ne 1 ]; then fail "$name" "$lines lines on stderr"
    elif ! grep -Eq -- '^dptrain: [^ ]' "$TMP/err"; then fail "$name" "no message: $(cat "$TMP/err")"
    elif ! grep -Eq -- "^dptrain: .*$pattern" "$TMP/err"; then fail "$name" "stderr: $(cat "$TMP/err")"
    elif grep -q "^dptrain: dptrain:" "$TMP/err"; then fail "$name" "the prefix twice: $(cat "$TMP/err")"
    elif LC_ALL=C grep -q "$CONTROL" "$TMP/err"; then fail "$name" "a control character on stderr"
    else pass "$name"; fi
}

# expect_usage NAME ERE ARGS...: status 2, empty stdout, one stderr line
# "dptrain: ..." matching ERE, without control characters.
expect_usage() {
    name=$1; pattern=$2; shift 2
    run "$@"
    usage_checks "$name" "$pattern"
}

# expect_usage_small NAME ERE ARGS...: expect_usage with the address space
# limited to 2000000 KiB (ulimit -v, where the shell has it): an input
# refused only after a larger allocation fails differently.  Not in the
# sanitizer builds (DPA_SANITIZED=yes), whose shadow memory needs terabytes
# of address space; there ASan itself aborts on an oversized allocation.
expect_usage_small() {
    name=$1; pattern=$2; shift 2
    if [ "${DPA_SANITIZED:-no}" = yes ]; then
        "$DPTRAIN" "$@" >"$TMP/out" 2>"$TMP/err"
    else
        ( ulimit -v 2000000 2>/dev/null; exec "$DPTRAIN" "$@" ) >"$TMP/out" 2>"$TMP/err"
    fi
    status=$?
    usage_checks "$name" "$pattern"
}

# check NAME AWK-CONDITION V1 [V2 [V3]]: the condition on v1, v2, v3 (an
# empty v1 fails)
check() {
    name=$1; cond=$2; shift 2
    if awk -v v1="${1-}" -v v2="${2-}" -v v3="${3-}" -v v4="${4-}" "BEGIN { if (v1 == \"\") exit 1; exit !($cond) }"; then
        pass "$name"
    else fail "$name" "values '$*' fail: $cond"; fi
}

# the summary line and the exit status
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
