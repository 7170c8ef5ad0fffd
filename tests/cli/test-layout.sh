#!/bin/sh
# test-layout.sh - the include rules of README's "Layout" map, read off the
# sources:
#   lib/                 includes nothing from accountants/ or trainers/
#   lib/cli/             (the command-line toolkit) only dpacct.h and itself
#   accountants/cli/     (the dpacct command) only dpacct.h, the toolkit and itself
#   trainers/            only the public dpacct.h of libdpacct (and the toolkit
#                        in trainers/cli/), never lib/'s private headers
#   no two source files include each other's headers (a.c includes b.h and
#   b.c includes a.h): one of them is the lower layer.
# Each rule is one check; a violation names the file and the include.
set -u
top=${srcdir:-.}
[ -d "$top/lib" ] || top=$(dirname "$0")/../..
cd "$top" || exit 99
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1: $2"; }

# includes FILE...: "FILE HEADER" for each #include "HEADER" (quoted: the
# project's own headers; <...> are system and library headers).
includes() {
    for f in "$@"; do
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" | sed "s|^|$f |"
    done
}

# headers_of DIR...: the basenames of the headers under DIR.
headers_of() {
    find "$@" -name '*.h' -exec basename {} \; | sort -u
}

# check_only NAME FILES ALLOWED: every quoted include of FILES is one of the
# basenames in ALLOWED (a newline-separated list), else NAME fails.
check_only() {
    name=$1
    files=$2
    allowed=$3
    bad=$(includes $files | while read -r f h; do
        b=$(basename "$h")
        printf '%s\n' "$allowed" | grep -qxF "$b" || echo "$f includes \"$h\""
    done)
    if [ -z "$bad" ]; then pass "$name"; else fail "$name" "$(echo "$bad" | head -n 5 | tr '\n' ';')"; fi
}

lib_files=$(find lib -maxdepth 1 -name '*.[ch]')
cli_files=$(find lib/cli -name '*.[ch]')
dpacct_cli_files=$(find accountants/cli -name '*.[ch]')
trainer_files=$(find trainers -name '*.[ch]')
[ -n "$lib_files" ] && [ -n "$cli_files" ] && [ -n "$dpacct_cli_files" ] && [ -n "$trainer_files" ] ||
    { echo "test-layout: the source folders are missing"; exit 99; }

check_only "lib/ includes only lib/'s headers" "$lib_files" "$(headers_of lib -maxdepth 1)"
check_only "lib/cli/ includes only dpacct.h and its own headers" "$cli_files" "$(printf 'dpacct.h\n'; headers_of lib/cli)"
check_only "accountants/cli/ includes only dpacct.h, the toolkit and its own headers" "$dpacct_cli_files" \
    "$(printf 'dpacct.h\ncli_toolkit.h\n'; headers_of accountants/cli)"
check_only "trainers/ includes only dpacct.h, the toolkit and trainers' headers" "$trainer_files" \
    "$(printf 'dpacct.h\ncli_toolkit.h\n'; headers_of trainers)"
check_only "only trainers/cli/ includes the toolkit" "$(find trainers -path trainers/cli -prune -o -name '*.[ch]' -print)" \
    "$(printf 'dpacct.h\n'; headers_of trainers)"
check_only "accountants/ (but its cli/) never includes trainers' or the command's headers" \
    "$(find accountants -path accountants/cli -prune -o -name '*.[ch]' -print)" \
    "$(headers_of lib -maxdepth 1; find accountants -path accountants/cli -prune -o -name '*.h' -print | sed 's|.*/||')"

# No two files include each other's headers: for a.c -> b.h and b.c -> a.h
# (the stems a and b, by basename), one of the two must be the lower layer.
pairs=$(includes $(find lib accountants trainers -name '*.c') | while read -r f h; do
    a=$(basename "$f" .c)
    b=$(basename "$h" .h)
    # the libraries' public headers belong to no one source file
    [ "$a" != "$b" ] && [ "$h" != dpacct.h ] && [ "$h" != dptrain.h ] && echo "$a $b"
done | sort -u)
cycles=$(printf '%s\n' "$pairs" | while read -r a b; do
    [ -n "$a" ] && printf '%s\n' "$pairs" | grep -qxF "$b $a" && echo "$a <-> $b"
done | sort -u)
if [ -z "$cycles" ]; then pass "no two modules include each other's headers"
else fail "no two modules include each other's headers" "$(echo "$cycles" | tr '\n' ';')"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
