#!/bin/sh
# test-dptrain-sparse.sh - black-box tests of `dptrain sparse-mean` (Ghazi et al. NeurIPS 2024,
# ../shared/notes/ntk-sparse-seeds-002-004.md 2.2-2.3; run by `make check`).
#
# A usage or input error exits with status exactly 2, prints nothing on
# stdout and one line on stderr starting "dptrain: ".  The epsilon a run
# reports is at most its target.  Reference numbers (note 2.6, L = 1, s = 10,
# n = 1e4): Laplace b = 2 L sqrt(s)/(n eps) = 6.32456e-4 at eps 1; the
# analytic Gaussian sigma at (1, 1e-5) is 7.4613e-4 (3.7306 x 2L/n).
#
# POSIX sh, awk and grep only.

HARNESS_NAME=dptrain-sparse
. "$(dirname "$0")/dptrain-harness.sh"

# jfield KEY [N]: the N-th (default 1st) value of "KEY": in the JSON output
jfield() {
    awk -F': ' -v k="\"$1\"" -v n="${2:-1}" '$1 ~ k"$" { sub(/,$/, "", $2); gsub(/"/, "", $2); c++;
        if (c == n) { print $2; exit } }' "$TMP/out"
}

SYN="--synthetic n=10000,d=200,s=10,seed=3"
SM=sparse-mean

expect_ok "--help" 'compressed' $SM --help
expect_ok "--version" '^dptrain ' $SM --version

# each method on synthetic data, JSON keys and eps <= target
for m in projection compressed dense; do
    run $SM $SYN --method $m --epsilon 1 --delta 1e-5 --json --quiet
    if [ "$status" -ne 0 ]; then fail "$m: runs" "exit $status: $(head -n 1 "$TMP/err")"; continue; fi
    pass "$m: runs"
    missing=""
    for k in command n d s L epsilon_target delta_target repeats methods method mechanism noise_scale \
        sensitivity measurements failure_delta epsilon delta error error_se predicted_error accounting; do
        grep -q "\"$k\":" "$TMP/out" || missing="$missing $k"
    done
    if [ -z "$missing" ]; then pass "$m: JSON keys"; else fail "$m: JSON keys" "missing$missing"; fi
    check "$m: epsilon <= the target 1" 'v1 > 0 && v1 <= 1' "$(jfield epsilon)"
    check "$m: delta <= the target 1e-5" 'v1 >= 0 && v1 <= 1e-5' "$(jfield delta)"
    check "$m: a finite l2 error" 'v1 > 0 && v1 < 10' "$(jfield error)"
done
run $SM $SYN --method projection --delta 1e-5 --json --quiet
check "analytic sigma = 7.4613e-4 (note 2.6)" 'v1 > 7.46125e-4 && v1 < 7.46135e-4' "$(jfield noise_scale)"
run $SM $SYN --method dense --delta 0 --json --quiet
check "Laplace b = 2 L sqrt(s)/(n eps) = 6.32456e-4" 'v1 > 6.324550e-4 && v1 < 6.324560e-4' "$(jfield noise_scale)"
check "Laplace: pure DP" 'v1 == 0' "$(jfield delta)"
run $SM $SYN --method compressed --json --quiet
check "compressed: m = ceil(4 s ln(d/s)) = 120" 'v1 == 120' "$(jfield measurements)"
check "compressed: certified factor above 1, no failure delta" 'v1 > 2e-4 && v2 == 0' \
    "$(jfield sensitivity)" "$(jfield failure_delta)"
run $SM $SYN --method projection --classical --epsilon 0.5 --json --quiet
check "classical at eps 0.5: 2L/n sqrt(2 ln 1.25e5)/0.5 = 1.93792e-3" 'v1 > 1.93791e-3 && v1 < 1.93793e-3' \
    "$(jfield noise_scale)"

# all: three methods side by side; at delta 0 ME-2 is skipped
run $SM --synthetic n=2000,d=300,s=5 --method all --repeats 3 --json --quiet
check "all: three methods" 'v1 == 3' "$(grep -c '"method":' "$TMP/out")"
check "all: projection error <= dense error" 'v1 <= v2' "$(jfield error 1)" "$(jfield error 3)"
check "all: standard errors reported" 'v1 > 0' "$(jfield error_se 1)"
run $SM --synthetic n=2000,d=300,s=5 --method all --delta 0 --json --quiet
check "all at delta 0: two methods" 'v1 == 2' "$(grep -c '"method":' "$TMP/out")"
expect_ok "table output" '^projection ' $SM --synthetic n=500,d=100,s=5 --method all --quiet
run $SM --synthetic n=500,d=100,s=5 --repeats 4
if grep -q 'steps' "$TMP/err"; then pass "progress bar on stderr"; else fail "progress bar on stderr"; fi
run $SM --synthetic n=500,d=100,s=5 --repeats 4 --quiet
if [ ! -s "$TMP/err" ]; then pass "--quiet: nothing on stderr"; else fail "--quiet: nothing on stderr"; fi

# files: libsvm (target ignored) and CSV
printf '1 1:0.5 3:0.5\n-1 2:0.6 4:0.8\n0 5:1\n1 1:0.6 5:0.8\n' >"$TMP/ok.svm"
expect_ok "libsvm data" '^projection ' $SM --data "$TMP/ok.svm" --input-format libsvm --sparsity 2 --norm 1 --quiet
printf 'a,b,c,y\n0.6,0,0.8,1\n0,1,0,2\n' >"$TMP/ok.csv"
expect_ok "csv data" '^dense ' $SM --data "$TMP/ok.csv" --sparsity 2 --norm 1 --method dense --quiet
expect_usage "a row with too many nonzeros is named" 'row 1 has 2 nonzeros' $SM --data "$TMP/ok.svm" --input-format libsvm \
    --sparsity 1 --norm 1 --quiet
expect_usage "a row above the norm is named" 'row 1' $SM --data "$TMP/ok.csv" --sparsity 2 --norm 0.9 --quiet

# bad input
expect_usage "unknown method" '--method' $SM $SYN --method median
expect_usage "s > d" 's must be' $SM --synthetic n=100,d=5,s=6
expect_usage "--sparsity above d" '--sparsity' $SM --synthetic n=100,d=5,s=2 --sparsity 6
expect_usage "epsilon 0" '--epsilon' $SM $SYN --epsilon 0
expect_usage "epsilon negative" '--epsilon' $SM $SYN --epsilon -1
expect_usage "epsilon nan" '--epsilon' $SM $SYN --epsilon nan
expect_usage "delta 1" '--delta' $SM $SYN --delta 1
expect_usage "compressed with delta 0" 'delta > 0' $SM $SYN --method compressed --delta 0
expect_usage "classical at eps 1" 'epsilon < 1' $SM $SYN --classical --epsilon 1
expect_usage "classical at delta 0" 'delta > 0' $SM $SYN --classical --epsilon 0.5 --delta 0
expect_usage "measurements above d" '--measurements' $SM $SYN --method compressed --measurements 201
expect_usage "RIP route refused with its bound" 'RIP.*e\^' $SM $SYN --method compressed --rip --quiet
expect_usage "data and synthetic exclusive" 'exactly one' $SM $SYN --data "$TMP/ok.csv"
expect_usage "--data needs the bounds" '--sparsity' $SM --data "$TMP/ok.csv"
expect_usage "bad synthetic key" 'unknown key' $SM --synthetic n=100,foo=1
expect_usage "unknown option" 'unknown option' $SM $SYN --frobnicate
expect_usage "repeats 0" '--repeats' $SM $SYN --repeats 0
expect_usage "missing file" 'none.csv' $SM --data "$TMP/none.csv" --sparsity 1 --norm 1
expect_usage "bad input format" '--input-format' $SM --data "$TMP/ok.csv" --input-format idx --sparsity 1 --norm 1

expect_usage "a sensitivity that underflows" "underflows" $SM --synthetic n=100,d=50,s=5,norm=1e-320

# limits and escaped messages (issue 17)
NL='
'
expect_usage_small "--synthetic of 2^64 x 2^64: the overflow said" \
    '--synthetic: n\*d = 18446744073709551615\*18446744073709551615 = .* exceeds the addressable size' \
    $SM --synthetic n=18446744073709551615,d=18446744073709551615,s=1
expect_usage_small "--synthetic of 14.9 GiB: the limit and how to raise it" \
    '--synthetic: 100000 x 20000 doubles \(14.9 GiB\) exceed the 2 GiB data limit \(raise it with --max-data-size\)' \
    $SM --synthetic n=100000,d=20000,s=5
expect_usage "--max-data-size lowers the limit" '--synthetic: 10000 x 200 doubles .* exceed the 1 MiB' \
    $SM $SYN --max-data-size 1M
printf '1 1:1\n0 100000000:1\n1 2:1\n0 3:1\n' >"$TMP/huge.svm"
expect_usage_small "libsvm: index 1e8 refused at its line" 'huge.svm:3 \(feature index 100000000 on line 2\)' \
    $SM --data "$TMP/huge.svm" --input-format libsvm --sparsity 1 --norm 1
expect_usage "--sparsity above 1e9" "--sparsity: at most 1000000000" $SM $SYN --sparsity 1099511627776
expect_usage "--measurements above 1e9" "--measurements: at most 1000000000" $SM $SYN --method compressed \
    --measurements 1000000001
expect_usage "--repeats above 1e6" "--repeats: at most 1000000" $SM $SYN --repeats 1000001
expect_usage "--method with a newline" "--method: expected .*got 'a\\\\nb'" $SM $SYN --method "a${NL}b"
expect_usage "a spec key with a control byte" "unknown key '\\\\x07'" $SM --synthetic "n=100,$(printf '\a')=1"

# ME-1's radius chosen by Liu & Talwar's random stopping (STOC 2019, Thm
# 3.1): total eps = 3 x round eps = the --epsilon given (closed forms)
RS="$SYN --delta 0 --random-stop 0.4 --select-radius 0.5,1,3.1622776601683795"
expect_ok "--help names --random-stop" '--random-stop GAMMA' $SM --help
expect_ok "random stopping: the text gives the rounds and the chosen radius" '^rounds +[0-9]+ in all' $SM $RS --seed 2
expect_ok "random stopping: the chosen radii" '^chosen radius +0.5 x [0-9]+, 1 x [0-9]+, 3.16228 x [0-9]+' \
    $SM $RS --seed 2 --repeats 5
run $SM $RS --seed 2 --repeats 7 --json
check "random stopping: exit 0" 'v1 == 0' "$status"
check "random stopping: total eps in [1, 1 + 1e-9]" 'v1 >= 1 && v1 <= 1 + 1e-9' "$(jfield epsilon)"
check "random stopping: round eps = 1/3" 'v1 >= (1 - 1e-9) / 3 && v1 <= (1 + 1e-9) / 3' "$(jfield round_epsilon)"
check "random stopping: total = 3 x round" 'v1 >= 3 * v2 && v1 <= 3 * v2 * (1 + 1e-9)' "$(jfield epsilon)" \
    "$(jfield round_epsilon)"
check "random stopping: the chosen radius a candidate" 'v1 == 0.5 || v1 == 1 || v1 == 3.16227766' \
    "$(jfield chosen_radius)"
check "random stopping: rounds >= the 7 draws" 'v1 >= 7 && v1 == int(v1)' "$(jfield rounds)"
counts=$(awk '/"chosen_counts"/ { f = 1; next } f && /\]/ { exit } f { gsub(/[ ,]/, ""); s += $0; k++ }
    END { print s, k }' "$TMP/out")
check "random stopping: the chosen counts of the 3 radii sum to the 7 draws" 'v1 == 7 && v2 == 3' $counts
check "random stopping: the Laplace scale 2 L sqrt(s) / (n 0.9 eps/3) = 2.10819e-3" \
    'v1 > 2.108184e-3 && v1 < 2.108190e-3' "$(jfield noise_scale)"
expect_usage "--random-stop with delta > 0" "--random-stop: .*pure eps-DP rounds: needs --delta 0" \
    $SM $SYN --random-stop 0.5
expect_usage "--random-stop with --method all" "--random-stop: chooses ME-1's projection radius" $SM $RS --method all
expect_usage "--random-stop with --method dense" "--random-stop: chooses ME-1's projection radius" $SM $RS --method dense
expect_usage "--random-stop 0" "--random-stop: expected a number in \(0, 1\]" $SM $RS --random-stop 0
expect_usage "--select-radius with 0" "--select-radius: expected a comma-separated list" $SM $RS --select-radius 0,1
expect_usage "--select-radius empty" "--select-radius: expected" $SM $RS --select-radius ''
expect_usage "--select-radius without --random-stop" "--select-radius: needs --random-stop" \
    $SM $SYN --delta 0 --select-radius 1,2
expect_usage "--score-fraction 0" "--score-fraction: expected a number in \(0, 1\)" $SM $RS --score-fraction 0

finish
