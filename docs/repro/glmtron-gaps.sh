#!/bin/sh
# glmtron-gaps.sh - the comparisons of glmtron-report.md, from the data
# files of glmtron-synthetic.sh: for each spectrum and eps, at the smallest
# and the largest N, every algorithm's mean +- standard deviation over the
# seeds and the gap between two algorithms in standard errors of their
# difference, (m1 - m2) / sqrt((s1^2 + s2^2) / seeds).  The seeds are shared
# between algorithms (the same data and w*), but the files keep means and
# deviations only, so the gaps are unpaired: conservative, since the
# problems' own spread (a new w* per seed) is in both deviations.  |gap| >= 2
# is read as significant.  Also the change of one algorithm between two
# spectra or two eps at the largest N, in the same units.
#
#   sh docs/repro/glmtron-gaps.sh [DIR] > DIR/synthetic-gaps.md
set -eu
DIR=${1:-docs/repro}
SEEDS=${SEEDS:-5}
echo "Unpaired gaps in standard errors over $SEEDS seeds (negative: the first is lower); from $DIR/synthetic-poly*-eps*.dat"
echo
echo "| spectrum | eps | N | DP-GLMtron | DP-TAGLMtron | DP-SGD | DP-FTRL | TAG - SGD | GLM - SGD | FTRL - SGD | TAG - FTRL | GLM - FTRL |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for decay in 2 3; do
    for eps in 0.05 0.2 0.5; do
        awk -v dec="$decay" -v eps="$eps" -v k="$SEEDS" '
            function gap(i, j) { return sprintf("%+.2f", (m[i] - m[j]) / sqrt((s[i]^2 + s[j]^2) / k)) }
            !/^#/ { rows[++n] = $0 }
            END {
                split(rows[1], first); split(rows[n], last)
                for (r = 1; r <= 2; r++) {
                    line = r == 1 ? rows[1] : rows[n]
                    split(line, v)
                    for (a = 1; a <= 4; a++) { m[a] = v[2 * a]; s[a] = v[2 * a + 1] }
                    printf "| i^-%s | %s | %d | %.3f ± %.3f | %.3f ± %.3f | %.3f ± %.3f | %.3f ± %.3f | %s | %s | %s | %s | %s |\n",
                        dec, eps, v[1], m[1], s[1], m[2], s[2], m[3], s[3], m[4], s[4],
                        gap(2, 3), gap(1, 3), gap(4, 3), gap(2, 4), gap(1, 4)
                }
            }' "$DIR/synthetic-poly$decay-eps$eps.dat"
    done
done
echo
echo "Between settings at the largest N (first minus second, in standard errors):"
echo
echo "| algorithm | comparison | first | second | gap |"
echo "|---|---|---|---|---|"
last() { grep -v '^#' "$DIR/synthetic-poly$1-eps$2.dat" | tail -n 1; }
i=0
for alg in DP-GLMtron DP-TAGLMtron DP-SGD DP-FTRL; do
    i=$((i + 1))
    for pair in "2 0.2 3 0.2" "2 0.5 3 0.5" "2 0.05 2 0.5" "3 0.05 3 0.5" "3 0.2 3 0.5"; do
        # shellcheck disable=SC2086
        set -- $pair
        a=$(last "$1" "$2"); b=$(last "$3" "$4")
        echo "$a|$b" | awk -F'|' -v i="$i" -v k="$SEEDS" -v alg="$alg" -v l1="i^-$1, eps $2" -v l2="i^-$3, eps $4" '{
            split($1, x, " "); split($2, y, " ")
            m1 = x[2 * i]; s1 = x[2 * i + 1]; m2 = y[2 * i]; s2 = y[2 * i + 1]
            printf "| %s | %s vs %s | %.3f ± %.3f | %.3f ± %.3f | %+.2f |\n", alg, l1, l2, m1, s1, m2, s2,
                (m1 - m2) / sqrt((s1^2 + s2^2) / k) }'
    done
done
