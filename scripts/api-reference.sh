#!/bin/sh
# api-reference.sh HEADER - the reference of every public function of a
# header, from its declarations and the comments above them, as Markdown
# on stdout: docs/api-reference.md is `scripts/api-reference.sh
# lib/dpacct.h` (tests/cli/test-api-reference.sh checks it is up to date).
# A function is a declaration at the start of a line that names dpa_*( and
# ends with ';'; its comment is the block comment just above it (or the
# one above a group of declarations).  POSIX sh and awk only.
set -eu
header=${1:?usage: api-reference.sh HEADER}
awk -v header="$header" '
function flush_decl(   name) {
    name = decl
    sub(/\(.*/, "", name)
    sub(/.*[ *]/, "", name)
    gsub(/[ \t]+/, " ", decl)
    printf "### `%s`\n\n```c\n%s\n```\n\n", name, decl
    if (comment != "") printf "%s\n\n", comment
    count++
}
BEGIN {
    print "# libdpacct: every public function"
    print ""
    print "Generated from `" header "` by `scripts/api-reference.sh` (the comments"
    print "above each declaration); the conventions are in `docs/api.md`."
    print ""
}
/^\/\* ---- / {                       # a section rule: its title
    title = $0
    sub(/^\/\* -+ */, "", title); sub(/ *-+ *\*\/.*$/, "", title)
    if (title != "") printf "## %s\n\n", title
    comment = ""; next
}
/^\/\*/ { incomment = 1; text = ""; }
incomment {
    line = $0
    sub(/^ *\/\* ?/, "", line); sub(/^ *\* ?/, "", line); sub(/ *\*\/ *$/, "", line)
    text = text (text == "" ? "" : "\n") line
    if ($0 ~ /\*\//) { incomment = 0; comment = text }
    next
}
indecl {
    decl = decl " " $0
    if ($0 ~ /;/) { indecl = 0; flush_decl() }
    next
}
/^[a-z].*[ *]dpa_[a-z0-9_]*\(/ && !/^typedef/ {
    decl = $0
    if ($0 ~ /;/) flush_decl(); else indecl = 1
    next
}
/^typedef (struct|enum).*\{/ { saved = comment; next }   # a type a function below uses:
/^\}/ { comment = saved; next }                          # its comment serves them both
/^$/ { comment = "" }
END { printf "%d functions.\n", count }
' "$header"
