#!/bin/sh
# test-api-reference.sh - docs/api-reference.md is what
# scripts/api-reference.sh makes of lib/dpacct.h today, and names every
# public function the header declares (one failure per stale or missing
# one).  Regenerate with: scripts/api-reference.sh lib/dpacct.h > docs/api-reference.md
set -u
top=${DPA_SRCDIR:-${srcdir:-.}}
[ -f "$top/lib/dpacct.h" ] || top=$(dirname "$0")/../..
cd "$top" || exit 99
failed=0
fresh=$(sh scripts/api-reference.sh lib/dpacct.h) || { echo "FAIL: scripts/api-reference.sh failed"; exit 1; }
if [ "$fresh" = "$(cat docs/api-reference.md)" ]; then echo "PASS: docs/api-reference.md is up to date"
else
    echo "FAIL: docs/api-reference.md is stale (regenerate: scripts/api-reference.sh lib/dpacct.h > docs/api-reference.md)"
    failed=$((failed + 1))
fi
for f in $(sed -n 's/^[a-z].*[ *]\(dpa_[a-z0-9_]*\)(.*/\1/p' lib/dpacct.h); do
    grep -q "^### \`$f\`" docs/api-reference.md || { echo "FAIL: $f is not in docs/api-reference.md"; failed=$((failed + 1)); }
done
echo "$failed failed"
[ "$failed" -eq 0 ]
