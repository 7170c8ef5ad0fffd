#!/bin/sh
# test-dptrain-sparse-opt.sh - black-box tests of `dptrain sparse-erm` and
# `dptrain sparse-sgd` (Ghazi et al. NeurIPS 2024; run by `make check`).
#
# A usage or input error exits with status exactly 2, prints nothing on
# stdout and one line on stderr starting "dptrain: ".  The epsilon a run
# reports is at most its target.  Reference values: the output-perturbation
# Gaussian at lambda = 0.1, n = 1e4, eps = 1, delta = 1e-5, L = 1 has sigma
# 7.4613e-3 (the note's 2.6 table: analytic Gaussian multiplier 3.7306 times
# the l2 sensitivity 2L/(lambda n) = 2e-3); the Laplace scale is
# Delta_1 / eps with Delta_1 = 2 sqrt(2s) L (H/lambda + 1)/(lambda n),
# H = L^2/4 (computed here with awk); the classical Gaussian at eps 0.5 is
# 2e-3 sqrt(2 ln(1.25e5)) / 0.5.  Each sensitivity also carries the
# solver's slack: the minimiser is computed to ||grad|| <= 1e-10, so within
# 1e-10/lambda of the exact one, and two neighbours' outputs differ by
# 2e-10 (1 + 1e-6)/lambda more (sqrt(d) times that in l1).
#
# POSIX sh, awk and grep only.

HARNESS_NAME=dptrain-sparse-opt
. "$(dirname "$0")/dptrain-harness.sh"

# the value of a JSON key in $TMP/out ("null" as is)
jfield() { awk -F': ' -v k="  \"$1\"" '$1 == k { v = $2; sub(/,$/, "", v); gsub(/"/, "", v); print v; exit }' "$TMP/out"; }

SYN="--synthetic n=2000,d=100,s=5,seed=3"

expect_ok "sparse-erm --help" '^Usage: dptrain sparse-erm' sparse-erm --help
expect_ok "sparse-sgd --help" '^Usage: dptrain sparse-sgd' sparse-sgd --help
expect_ok "sparse-sgd --help names the filter" 'filter' sparse-sgd --help
expect_ok "sparse-erm --version" '^dptrain ' sparse-erm --version

expect_ok "sparse-erm: a small run reports the excess risk" '^excess risk ' sparse-erm $SYN
expect_ok "sparse-sgd: a small run reports the steps" '^steps +[0-9]+' sparse-sgd $SYN
expect_ok "sparse-erm --dense" 'dense output perturbation' sparse-erm $SYN --dense
expect_ok "sparse-sgd --dense" 'dense minibatch' sparse-sgd $SYN --dense --noise 5
expect_ok "sparse-erm --non-private" '^epsilon +not private' sparse-erm $SYN --non-private

# JSON: one object with the keys
run sparse-erm $SYN --json
ok=1
for k in algorithm method mechanism train_examples test_examples features sparsity norm lambda noise sensitivity \
    epsilon delta solver_gradient objective_private objective_optimal excess_risk test_loss test_accuracy accounting \
    seconds; do
    grep -q "\"$k\": " "$TMP/out" || { ok=0; missing=$k; }
done
if [ "$status" -eq 0 ] && [ "$ok" -eq 1 ] && head -n 1 "$TMP/out" | grep -q '^{$' && tail -n 1 "$TMP/out" | grep -q '^}$'
then pass "sparse-erm --json: one object with its keys"
else fail "sparse-erm --json: one object with its keys" "status $status, missing ${missing-}"; fi
check "sparse-erm: certified eps <= 1" 'v1 > 0 && v1 <= 1' "$(jfield epsilon)"
check "sparse-erm: solver gradient <= 1e-10" 'v1 >= 0 && v1 <= 1e-10' "$(jfield solver_gradient)"
check "sparse-erm: excess risk = objective_private - objective_optimal >= 0" \
    'v1 >= 0' "$(jfield excess_risk)"
check "sparse-erm: test accuracy in [0, 1]" 'v1 >= 0 && v1 <= 1' "$(jfield test_accuracy)"

run sparse-sgd $SYN --json --max-steps 100000
ok=1
for k in algorithm method train_examples features sparsity norm noise sensitivity epsilon delta steps mu_spent \
    reference_lambda objective_private objective_optimal excess_risk test_loss test_accuracy accounting seconds; do
    grep -q "\"$k\": " "$TMP/out" || { ok=0; missing=$k; }
done
if [ "$status" -eq 0 ] && [ "$ok" -eq 1 ]; then pass "sparse-sgd --json: its keys"
else fail "sparse-sgd --json: its keys" "status $status, missing ${missing-}"; fi
check "sparse-sgd: certified eps <= 1" 'v1 > 0 && v1 <= 1' "$(jfield epsilon)"
# mu spent <= the GDP mu of (1, 1e-5) = 0.26805
check "sparse-sgd: mu spent <= 0.268052" 'v1 > 0 && v1 <= 0.268052' "$(jfield mu_spent)"
check "sparse-sgd: the filter stopped it before --max-steps" 'v1 >= 1 && v1 < 100000' "$(jfield steps)"
run sparse-sgd $SYN --json --epsilon 0.5 --delta 1e-6 --dense --noise 3
check "sparse-sgd --dense: certified eps <= 0.5" 'v1 > 0 && v1 <= 0.5' "$(jfield epsilon)"
# dense: mu_t = 2L/(b sigma0) = 2/(64 x 3), constant, so the filter admits
# floor(mu^2 / mu_t^2) steps; mu(0.5, 1e-6) lies in (0.10, 0.13)
check "sparse-sgd --dense: steps = floor(mu^2/mu_t^2) for some mu in (0.10, 0.13)" \
    'v1 >= int((0.10 * 96) ^ 2) && v1 <= int((0.13 * 96) ^ 2)' "$(jfield steps)"
run sparse-sgd $SYN --json --noise 1e6 --max-steps 7
check "sparse-sgd: --max-steps caps the run" 'v1 == 7' "$(jfield steps)"

# the note's 2.6 value: n = 1e4 training rows, lambda 0.1, L = 1
run sparse-erm --synthetic n=10000,d=50,s=10 --test-fraction 0 --lambda 0.1 --json
check "sparse-erm: sigma 7.4613e-3 (the note's table)" \
    'v1 >= 7.46125e-3 && v1 <= 7.46135e-3' "$(jfield noise)"
check "sparse-erm: l2 sensitivity 2L/(lambda n) + 2e-10 (1 + 1e-6)/lambda = 2.000002000002e-3" \
    'v1 > 2.0000019e-3 && v1 < 2.0000021e-3' "$(jfield sensitivity)"
run sparse-erm --synthetic n=10000,d=50,s=10 --test-fraction 0 --lambda 0.1 --json --classical --epsilon 0.5
check "sparse-erm --classical at eps 0.5: 2e-3 sqrt(2 ln(1.25e5)) / 0.5" \
    'v1 > v2 * (1 - 1e-8) && v1 < v2 * (1 + 1e-8)' "$(jfield noise)" \
    "$(awk 'BEGIN { printf "%.12g", (2e-3 + 2e-9 * (1 + 1e-6)) * sqrt(2 * log(1.25e5)) / 0.5 }')"
run sparse-erm --synthetic n=1000,d=50,s=5 --test-fraction 0 --lambda 0.1 --delta 0 --epsilon 2 --json
check "sparse-erm --delta 0: Laplace with b = 2 sqrt(2s) L (H/lambda + 1)/(lambda n eps)" \
    'v1 > v2 * (1 - 1e-8) && v1 < v2 * (1 + 1e-8)' "$(jfield noise)" \
    "$(awk 'BEGIN { printf "%.12g", (2 * sqrt(10) * (0.25 / 0.1 + 1) / (0.1 * 1000) + sqrt(50) * 2e-9 * (1 + 1e-6)) / 2 }')"
check "sparse-erm --delta 0: pure DP" 'v1 == 2' "$(jfield epsilon)"
run sparse-erm --synthetic n=1000,d=50,s=5 --test-fraction 0 --delta 0 --sensitivity-l1 0.3 --json
check "sparse-erm --sensitivity-l1: b = Delta_1 / eps" 'v1 == 0.3' "$(jfield noise)"

# files: libsvm and CSV, labels 0/1 read as -1/+1
printf '1 1:0.5 3:0.2\n0 2:0.9\n1 1:0.1 2:0.3\n0 3:0.7\n1 1:0.6\n0 2:0.4 3:0.4\n' >"$TMP/ok.svm"
expect_ok "sparse-erm: libsvm with labels 0/1" '^examples +5 train, 1 test, 3 features' \
    sparse-erm --data "$TMP/ok.svm" --input-format libsvm --test-fraction 0.2 --sparsity 3 --norm 2
expect_ok "sparse-sgd: libsvm" '^steps ' sparse-sgd --data "$TMP/ok.svm" --input-format libsvm --noise 50 --sparsity 3 \
    --norm 2
printf 'a,b,c,y\n0.5,0,0.2,1\n0,0.9,0,-1\n0.1,0.3,0,1\n0,0,0.7,-1\n' >"$TMP/ok.csv"
expect_ok "sparse-erm: CSV with labels +-1" '^sparsity, norm +s = 2' sparse-erm --data "$TMP/ok.csv" --test-fraction 0 \
    --sparsity 2 --norm 1
expect_usage "--data without the bounds" "--sparsity and --norm" sparse-erm --data "$TMP/ok.csv" --test-fraction 0
expect_ok "--data without the bounds, non-private" '^sparsity, norm +s = 2' sparse-erm --data "$TMP/ok.csv" \
    --test-fraction 0 --non-private

# bad input
expect_usage "unknown option" "unknown option" sparse-erm $SYN --frobnicate
expect_usage "no data" "exactly one of --data and --synthetic" sparse-erm
expect_usage "data and synthetic" "exactly one" sparse-sgd $SYN --data "$TMP/ok.csv"
expect_usage "bad synthetic spec" "." sparse-erm --synthetic n=100,values=foo
expect_usage "--lambda > 0 (erm)" "--lambda" sparse-erm $SYN --lambda 0
expect_usage "--lambda not a number" "--lambda" sparse-erm $SYN --lambda abc
expect_usage "--lambda NaN" "--lambda" sparse-sgd $SYN --lambda nan
expect_usage "a lambda whose sensitivity underflows" "floating-point range" sparse-erm $SYN --lambda 1e308
expect_usage "--epsilon > 0" "--epsilon" sparse-erm $SYN --epsilon 0
expect_usage "--delta < 1" "--delta" sparse-erm $SYN --delta 1
expect_usage "sgd: --delta > 0" "--delta" sparse-sgd $SYN --delta 0
expect_usage "--classical: eps < 1" "epsilon < 1" sparse-erm $SYN --classical --epsilon 1
expect_usage "--classical: delta > 0" "--classical" sparse-erm $SYN --classical --epsilon 0.5 --delta 0
expect_usage "--sensitivity-l1 needs delta 0" "--delta 0" sparse-erm $SYN --sensitivity-l1 0.1
expect_usage "--noise is sparse-sgd's" "--noise" sparse-erm $SYN --noise 3
expect_usage "--classical is sparse-erm's" "--classical" sparse-sgd $SYN --classical
expect_usage "--noise > 0" "--noise" sparse-sgd $SYN --noise 0
expect_usage "--max-steps >= 1" "--max-steps" sparse-sgd $SYN --max-steps 0
expect_usage "--batch-size above n" "batch" sparse-sgd $SYN --dense --batch-size 100000
expect_usage "--test-fraction < 1" "--test-fraction" sparse-erm $SYN --test-fraction 1
expect_usage "a row above --sparsity is refused by name" "row [0-9]+ has 2 nonzero" sparse-erm --data "$TMP/ok.csv" \
    --test-fraction 0 --sparsity 1 --norm 1
expect_usage "a row above --norm is refused by name" "row [0-9]+ has norm" sparse-sgd --data "$TMP/ok.csv" \
    --test-fraction 0 --norm 0.5 --sparsity 2
printf 'a,b,y\n1,0,1\n0,1,2\n' >"$TMP/badlabel.csv"
expect_usage "a label that is not +-1 or 0/1" "label 2" sparse-erm --data "$TMP/badlabel.csv" --sparsity 2 --norm 1
expect_usage "a missing file" "none.csv" sparse-erm --data "$TMP/none.csv"
expect_usage "--input-format choices" "--input-format" sparse-erm --data "$TMP/ok.csv" --input-format idx
expect_usage "unexpected argument" "unexpected argument" sparse-sgd $SYN extra

# limits and escaped messages (issue 17)
NL='
'
expect_usage_small "--synthetic of 14.9 GiB: the limit and how to raise it" \
    '--synthetic: 100000 x 20000 doubles \(14.9 GiB\) exceed the 2 GiB data limit \(raise it with --max-data-size\)' \
    sparse-erm --synthetic n=100000,d=20000,s=5
expect_usage "--max-data-size lowers the limit" '--synthetic: 2000 x 100 doubles .* exceed the 100 KiB' \
    sparse-sgd $SYN --max-data-size 100K
printf '1 1:1\n-1 100000000:1\n1 2:1\n-1 3:1\n' >"$TMP/huge.svm"
expect_usage_small "libsvm: index 1e8 refused at its line" 'huge.svm:3 \(feature index 100000000 on line 2\)' \
    sparse-erm --data "$TMP/huge.svm" --input-format libsvm --sparsity 1 --norm 1
expect_usage "--max-steps above 1e8" "--max-steps: at most 100000000, got '1000000000'" sparse-sgd $SYN \
    --max-steps 1000000000
expect_usage "--batch-size above 1e9" "--batch-size: at most 1000000000" sparse-sgd $SYN --dense \
    --batch-size 18446744073709551615
expect_usage "--sparsity above 1e9" "--sparsity: at most 1000000000" sparse-erm $SYN --sparsity 4294967297
expect_usage "--seed above an unsigned long" "--seed: at most" sparse-erm $SYN --seed 18446744073709551616
expect_usage "--lambda with a newline" "--lambda: expected .*got '1\\\\n'" sparse-erm $SYN --lambda "1${NL}"
expect_usage "a path with a control byte" "a\\\\x1bb.csv: cannot open" sparse-erm --data "$TMP/a$(printf '\033')b.csv"

# lambda chosen by Liu & Talwar's random stopping (STOC 2019, Thm 3.1): the
# total eps is 3 x the round's eps = the --epsilon given, the round eps/3
# (closed forms), the chosen lambda one of the candidates
jsel() { awk -F': ' -v k="    \"$1\"" '$1 == k { v = $2; sub(/,$/, "", v); gsub(/"/, "", v); print v; exit }' "$TMP/out"; }
RS="$SYN --delta 0 --random-stop 0.3 --select-lambda 0.05,0.2,1"
expect_ok "sparse-erm --help names --random-stop" '--random-stop GAMMA' sparse-erm --help
expect_ok "random stopping: the text names the chosen lambda" '^selection .*lambda [0-9.e+-]+ chosen' \
    sparse-erm $RS --seed 5
expect_ok "random stopping: the text gives the rounds (seeded run)" '^rounds +[0-9]+' sparse-erm $RS --seed 5
expect_ok "random stopping: a private run says the rounds are outside the guarantee" \
    '^rounds +[0-9]+ +\(outside the guarantee' sparse-erm $RS
expect_ok "random stopping: the round epsilon and the total" '^round epsilon +0.33333333.* total 3 x 0.333333' \
    sparse-erm $RS --seed 5
for E in 1 0.6 2.5; do
    run sparse-erm $RS --seed 5 --epsilon $E --json
    check "random stopping, eps $E: exit 0" 'v1 == 0' "$status"
    check "random stopping, eps $E: total eps in [$E, $E (1 + 1e-9)]" 'v1 >= v2 && v1 <= v2 * (1 + 1e-9)' \
        "$(jfield epsilon)" "$E"
    check "random stopping, eps $E: round eps = $E/3" 'v1 >= v2 / 3 * (1 - 1e-9) && v1 <= v2 / 3 * (1 + 1e-9)' \
        "$(jsel round_epsilon)" "$E"
    check "random stopping, eps $E: total = 3 x round" 'v1 >= 3 * v2 && v1 <= 3 * v2 * (1 + 1e-9)' \
        "$(jfield epsilon)" "$(jsel round_epsilon)"
    check "random stopping, eps $E: score eps = 0.1 x round" 'v1 >= 0.1 * v2 * (1 - 1e-9) && v1 <= 0.1 * v2 * (1 + 1e-9)' \
        "$(jsel score_epsilon)" "$(jsel round_epsilon)"
done
check "random stopping: the chosen lambda is a candidate and the reported lambda" \
    '(v1 == 0.05 || v1 == 0.2 || v1 == 1) && v1 == v2' "$(jsel chosen_lambda)" "$(jfield lambda)"
check "random stopping: at least one round" 'v1 >= 1 && v1 == int(v1)' "$(jsel rounds)"
check "random stopping: delta 0" 'v1 == 0' "$(jfield delta)"
run sparse-erm $RS --seed 5 --json --score-fraction 0.25
check "--score-fraction 0.25: score eps = round / 4" 'v1 >= 0.25 * v2 * (1 - 1e-9) && v1 <= 0.25 * v2 * (1 + 1e-9)' \
    "$(jsel score_epsilon)" "$(jsel round_epsilon)"
expect_usage "--random-stop 0" "--random-stop: expected a number in \(0, 1\]" sparse-erm $RS --random-stop 0
expect_usage "--random-stop 1.5" "--random-stop: expected a number in \(0, 1\]" sparse-erm $RS --random-stop 1.5
expect_usage "--random-stop x" "--random-stop: expected" sparse-erm $RS --random-stop x
expect_usage "--random-stop with delta > 0" "--random-stop: .*pure eps-DP rounds: needs --delta 0" \
    sparse-erm $SYN --random-stop 0.5
expect_usage "--random-stop on sparse-sgd" "--random-stop: .*pure eps-DP rounds; sparse-sgd's GDP filter" \
    sparse-sgd $SYN --random-stop 0.5
expect_usage "--select-lambda empty" "--select-lambda: expected a comma-separated list" sparse-erm $RS --select-lambda ''
expect_usage "--select-lambda with a negative" "--select-lambda: expected a comma-separated list" \
    sparse-erm $RS --select-lambda 0.1,-1
expect_usage "--select-lambda with an empty item" "--select-lambda: expected" sparse-erm $RS --select-lambda 0.1,,1
expect_usage "--select-lambda without --random-stop" "--select-lambda: needs --random-stop" \
    sparse-erm $SYN --delta 0 --select-lambda 0.1,1
expect_usage "--select-lambda and --lambda" "--select-lambda: give it or --lambda, not both" sparse-erm $RS --lambda 0.1
expect_usage "--score-fraction 1" "--score-fraction: expected a number in \(0, 1\)" sparse-erm $RS --score-fraction 1
expect_usage "--score-fraction without --random-stop" "--score-fraction: needs --random-stop" \
    sparse-erm $SYN --delta 0 --score-fraction 0.2
expect_usage "--sensitivity-l1 with --random-stop" "--sensitivity-l1: holds for one lambda" \
    sparse-erm $RS --sensitivity-l1 0.1

finish
