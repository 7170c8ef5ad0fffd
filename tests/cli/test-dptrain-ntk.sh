#!/bin/sh
# test-dptrain-ntk.sh - black-box tests of `dptrain ntk` (private NTK
# regression, Gu et al. WACV 2025; run by `make check`).
#
# A usage or input error exits with status exactly 2, prints nothing on
# stdout and one line on stderr starting "dptrain: ".  A private run reports
# k <= k_max, a total epsilon <= its target and a delta <= its target; the
# paper's threshold k is eps^2 / (8 ln(1/delta) M^2) of the M it reports
# (../shared/notes/ntk-sparse-seeds-002-004.md 1.9), and the truncated
# Laplace bound is A = (sqrt(d) beta / eps) ln(1 + (e^eps - 1)/(2 delta))
# (note 1.2, Lemma G.1's l1 sensitivity sqrt(d) beta).
#
# POSIX sh, awk and grep only; the data set is generated here.

HARNESS_NAME=dptrain-ntk
. "$(dirname "$0")/dptrain-harness.sh"

# json KEY: the value of "KEY" in the JSON report
json() { awk -F': ' -v k="\"$1\"" '$1 == "  "k { v = $2; sub(/,$/, "", v); print v; exit }' "$TMP/out"; }

# 3 classes in R^6, 240 rows: class c centred on 2 e_c, made by awk
awk 'BEGIN { srand(5); print "a,b,c,d,e,f,label"; for (i = 0; i < 240; i++) { y = i % 3; line = "";
    for (j = 0; j < 6; j++) { v = 0.5 * (2 * rand() - 1) + (j == y ? 2 : 0); line = line sprintf("%.6f,", v) }
    print line y } }' >"$TMP/ntk.csv"
D="--data $TMP/ntk.csv --quiet"

expect_ok "--help lists the options" '--train-per-class' ntk --help
expect_ok "--help names the neighbouring relation" 'beta' ntk --help
expect_ok "--version" '^dptrain ' ntk --version

# a private run at the defaults but for beta, JSON
run ntk $D --beta 1e-4 --epsilon 2 --delta 1e-5 --json
if [ "$status" -eq 0 ] && grep -q '^{$' "$TMP/out" && grep -q '^}$' "$TMP/out"; then pass "json: one object"
else fail "json: one object" "status $status: $(head -n 1 "$TMP/err")"; fi
missing=""
for key in n d classes k k_max k_paper M S_H wbar_norm tlap_bound epsilon delta epsilon_gsm epsilon_features \
    train_accuracy test_accuracy seconds accounting; do
    [ -n "$(json $key)" ] || missing="$missing $key"
done
if [ -z "$missing" ]; then pass "json: every key reported"; else fail "json: every key reported" "missing:$missing"; fi
check "json: n = 192 (the 0.8 split of 240), d = 6, 3 classes" 'v1 == 192 && v2 == 6 && v3 == 3' \
    "$(json n)" "$(json d)" "$(json classes)"
check "k <= k_max" 'v1 >= 1 && v1 <= v2' "$(json k)" "$(json k_max)"
check "total epsilon <= the target 2" 'v1 > 0 && v1 <= 2' "$(json epsilon)"
check "total delta <= the target 1e-5" 'v1 > 0 && v1 <= 1e-5' "$(json delta)"
check "GSM epsilon <= its half 1" 'v1 > 0 && v1 <= 1' "$(json epsilon_gsm)"
check "the paper's k is eps^2/(8 ln(1/delta) M^2) at (1, 5e-6)" \
    'v1 > 0 && (v1 - 1 / (8 * log(2e5) * v2 * v2)) ^ 2 <= (1e-8 * v1) ^ 2' "$(json k_paper)" "$(json M)"
check "the TLap bound is (sqrt(d) beta/eps) ln(1 + (e^eps - 1)/(2 delta)) at (1, 5e-6)" \
    'v1 > 0 && (v1 - sqrt(6) * 1e-4 * log(1 + (exp(1) - 1) / 1e-5)) ^ 2 <= (1e-8 * v1) ^ 2' "$(json tlap_bound)"
check "M = S_H / lambda (lambda 1)" '(v1 - v2) ^ 2 <= (1e-9 * v1) ^ 2' "$(json M)" "$(json S_H)"
check "private run learns the clusters (test accuracy > 0.9)" 'v1 > 0.9' "$(json test_accuracy)"
kmax2=$(json k_max)
run ntk $D --beta 1e-4 --epsilon 4 --delta 1e-5 --json
check "k_max grows with the budget (eps 4 vs 2)" 'v1 > v2' "$(json k_max)" "$kmax2"
check "eps 4: total epsilon <= 4" 'v1 > 0 && v1 <= 4' "$(json epsilon)"
run ntk $D --beta 1e-4 --epsilon-gsm 0.5 --epsilon-features 3 --delta-gsm 1e-6 --delta-features 1e-7 --json
check "explicit shares: epsilon <= 3.5, delta <= 1.1e-6" 'v1 > 0 && v1 <= 3.5 && v2 > 0 && v2 <= 1.1e-6' \
    "$(json epsilon)" "$(json delta)"

# table output
expect_ok "table: k_max line" '^k_max +[0-9]+' ntk $D --beta 1e-4
expect_ok "table: the paper's threshold" '^k paper ' ntk $D --beta 1e-4
expect_ok "table: test accuracy" '^test accuracy +[01]\.[0-9]+' ntk $D --beta 1e-4
expect_ok "--non-private" '^epsilon +not private' ntk $D --non-private
run ntk $D --non-private --json
check "non-private: the clusters are learnt (test accuracy > 0.95)" 'v1 > 0.95' "$(json test_accuracy)"
run ntk $D --beta 1e-4 --samples 5 --json
check "--samples 5 is used (k < n: the pseudo-inverse)" 'v1 == 5' "$(json k)"
check "--samples 5: finite accuracies" 'v1 >= 0 && v1 <= 1 && v2 >= 0 && v2 <= 1' "$(json test_accuracy)" \
    "$(json train_accuracy)"
run ntk $D --beta 1e-4 --train-per-class 20 --test-per-class 10 --json
check "--train-per-class 20, --test-per-class 10: 60 and 30 rows" 'v1 == 60 && v2 == 30' "$(json n)" \
    "$(json test_examples)"
run ntk $D --beta 1e-4 --project 3 --json
check "--project 3: d = 3, features_in = 6" 'v1 == 3 && v2 == 6' "$(json d)" "$(json features_in)"

run ntk --data "$TMP/ntk.csv" --beta 1e-4
if [ "$status" -eq 0 ] && grep -q 'steps' "$TMP/err" && grep -q '^algorithm ' "$TMP/out"; then
    pass "a progress bar on stderr, the report on stdout"
else fail "a progress bar on stderr, the report on stdout" "status $status"; fi
run ntk $D --beta 1e-4
if [ "$status" -eq 0 ] && [ ! -s "$TMP/err" ]; then pass "--quiet: nothing on stderr"
else fail "--quiet: nothing on stderr" "stderr: $(head -c 80 "$TMP/err")"; fi

# bad input: status 2, one line
expect_usage "unknown option" "unknown option" ntk $D --frobnicate
expect_usage "--data required" "--data" ntk --beta 1e-4
expect_usage "a missing file" "cannot open" ntk --data "$TMP/none.csv"
expect_usage "--beta 0" "--beta" ntk $D --beta 0
expect_usage "--beta negative" "--beta" ntk $D --beta -1
expect_usage "--beta not a number" "--beta" ntk $D --beta abc
expect_usage "--beta above 2B" "2B" ntk $D --beta 3
expect_usage "--epsilon 0" "--epsilon" ntk $D --epsilon 0
expect_usage "--delta 1" "--delta" ntk $D --delta 1
expect_usage "--delta-features above 0.5" "--delta-features" ntk $D --delta-features 0.7
expect_usage "--width 0" "--width" ntk $D --width 0
expect_usage "--ridge negative" "--ridge" ntk $D --ridge -2
expect_usage "--samples 2.5" "--samples" ntk $D --samples 2.5
expect_usage "--project above d" "--project" ntk $D --project 7
expect_usage "no k >= 1 admissible: names M" "M = " ntk $D --beta 0.5
expect_usage "--samples above k_max" "k_max|largest admissible" ntk $D --beta 1e-4 --samples 100000000000
expect_usage "--train-per-class above a class's rows" "--train-per-class" ntk $D --train-per-class 1000
expect_usage "IDX without --labels" "--labels" ntk --data x --input-format idx
expect_usage "unexpected argument" "unexpected argument" ntk $D extra
printf 'a,b,label\n1,2,0\n2,1,1.5\n0,1,1\n3,1,0\n1,1,1\n' >"$TMP/badlabel.csv"
expect_usage "a label that is not a class" "label" ntk --data "$TMP/badlabel.csv" --quiet --beta 1e-4
printf 'a,b,label\n1,2,0\n2,1,0\n0,1,0\n3,1,0\n1,1,0\n' >"$TMP/oneclass.csv"
expect_usage "one class only" "two classes" ntk --data "$TMP/oneclass.csv" --quiet --beta 1e-4

# limits and escaped messages (issue 17)
NL='
'
printf '0 1:1\n1 100000000:1\n0 2:1\n1 3:1\n' >"$TMP/huge.svm"
expect_usage_small "libsvm: index 1e8 refused at its line" 'huge.svm:3 \(feature index 100000000 on line 2\).*--max-data-size' \
    ntk --data "$TMP/huge.svm" --input-format libsvm --quiet
expect_usage "--max-data-size lowers the limit" 'ntk.csv:[0-9]+: .* exceed the 1 KiB data limit' ntk $D --max-data-size 1K
expect_usage "--train-per-class above 1e9" "--train-per-class: at most 1000000000" ntk $D --train-per-class 1000000001
expect_usage "--width above 1e6" "--width: at most 1000000" ntk $D --width 1000001
expect_usage "--project above 1e6" "--project: at most 1000000" ntk $D --project 99999999999
expect_usage "--samples above 2^53" "--samples: at most 9007199254740992" ntk $D --samples 9007199254740993
expect_usage "--seed above an unsigned long" "--seed: at most" ntk $D --seed 99999999999999999999
expect_usage "--width with a newline" "--width: expected a whole number >= 1, got '8\\\\nx'" ntk $D --width "8${NL}x"
expect_usage "--input-format with a newline" "--input-format: expected csv, libsvm or idx, got 'c\\\\nsv'" \
    ntk $D --input-format "c${NL}sv"

finish
