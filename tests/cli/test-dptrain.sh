#!/bin/sh
# test-dptrain.sh - black-box tests of the dptrain command (run by `make check`).
#
# A usage or input error exits with status exactly 2, prints nothing on
# stdout and one line on stderr starting "dptrain: ".  The epsilon a run
# reports is at most its target, and for a given noise multiplier it is the
# Gaussian-DP value of what a record sees: DP-GLMtron over E epochs is
# sqrt(E)/f-GDP, whose eps at delta = 1e-5 for f = 4, E = 4 (mu = 0.5) is
# 1.9930914044151196 (mpmath, 40 digits, from delta(eps) = Phi(-eps/mu +
# mu/2) - e^eps Phi(-eps/mu - mu/2)); DP-MBGLMtron's closed form (seed 003
# Thm 3) at eps 1, delta 1e-5 is 2 sqrt(ln(1e5) + 1) = 7.0747227408486415.
#
# POSIX sh, awk and grep only.

DPACCT=${DPACCT:-./dpacct}
HARNESS_NAME=dptrain-cli
. "$(dirname "$0")/dptrain-harness.sh"

field() { awk -v k="$1" '$1 == k { print $2; exit }' "$TMP/out"; }

SYN="--synthetic n=300,d=20,decay=2,noise=0.1,seed=3"

expect_ok "--help lists the algorithms" 'dp-mbglmtron' --help
expect_ok "--version" '^dptrain ' --version
expect_ok "--version names the CBLAS" '^CBLAS: (OpenBLAS|GSL)' --version
for alg in dp-glmtron dp-taglmtron dp-mbglmtron dp-relu-sgd; do
    run $alg $SYN --epsilon 0.5 --delta auto --format json
    eps=$(awk -F': ' '/"epsilon"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")
    check "$alg: certified epsilon <= the target 0.5" 'v1 > 0 && v1 <= 0.5' "$eps"
done
expect_ok "glmtron: not private" '^epsilon +not private' glmtron $SYN
run dp-glmtron $SYN --noise-multiplier 4 --epochs 4 --delta 1e-5
check "dp-glmtron, f = 4, 4 epochs: eps of 0.5-GDP (1.99309140)" \
    'v1 >= 1.99309 && v1 <= 1.99310' "$(awk '$1 == "epsilon" { print $3 }' "$TMP/out")"
run dp-mbglmtron $SYN --epsilon 1 --delta 1e-5 --threshold private --batch-size 20 --format json
check "dp-mbglmtron: the paper's multiplier 2 sqrt(ln(1/delta) + eps)/eps" \
    'v1 > 7.074722740 && v1 < 7.074722742' "$(awk -F': ' '/"paper_noise_multiplier"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")"
expect_ok "json output is one object" '^\{$' dp-relu-sgd $SYN --epsilon 1 --delta auto --format json
expect_ok "excess risk on synthetic data" '^excess risk ' dp-taglmtron $SYN --epsilon 1 --delta auto

run glmtron $SYN --progress
if [ "$status" -eq 0 ] && grep -q 'steps' "$TMP/err" && grep -q '^algorithm ' "$TMP/out"; then
    pass "--progress: a progress bar on stderr, the report on stdout"
else
    fail "--progress: a progress bar on stderr, the report on stdout" "status $status"
fi
run glmtron $SYN
if [ "$status" -eq 0 ] && [ ! -s "$TMP/err" ]; then pass "no progress bar when stderr is not a terminal"
else fail "no progress bar when stderr is not a terminal" "stderr: $(head -c 80 "$TMP/err")"; fi

# CSV: the target by name
printf 'a,b,y\n1,2,0.5\n2,1,1\n0,0,0\n3,1,2\n1,1,0.7\n' >"$TMP/ok.csv"
expect_ok "CSV with --target" '^examples +4 train, 1 test, 2 features' glmtron --data "$TMP/ok.csv" --target y
printf 'a,b,y\n1,2,0.5\n2,x,1\n' >"$TMP/bad.csv"
expect_usage "a bad CSV field names the line" 'bad.csv:3' glmtron --data "$TMP/bad.csv"
expect_usage "a missing file" 'cannot open' glmtron --data "$TMP/none.csv"
expect_usage "unknown algorithm" "unknown algorithm" dp-nothing $SYN
expect_usage "missing algorithm" "missing algorithm"
expect_usage "--delta required" "--delta" dp-glmtron $SYN --epsilon 1
expect_usage "--epsilon required" "--epsilon" dp-glmtron $SYN --delta auto
expect_usage "--delta in (0, 1)" "--delta" dp-glmtron $SYN --epsilon 1 --delta 1.5
expect_usage "--epsilon positive" "--epsilon" dp-glmtron $SYN --epsilon -1 --delta auto
expect_usage "--epochs a whole number" "--epochs" dp-glmtron $SYN --epsilon 1 --delta auto --epochs 2.5
expect_usage "--threshold choices" "--threshold" dp-glmtron $SYN --epsilon 1 --delta auto --threshold maybe
expect_usage "private threshold is DP-MBGLMtron's" "DP-MBGLMtron" dp-glmtron $SYN --epsilon 1 --delta auto \
    --threshold private
HSYN="--synthetic n=10000,d=5,decay=2,noise=0.1,seed=3 --test-fraction 0.1"
run dp-glmtron $HSYN --epsilon 2 --delta 1e-5 --threshold histogram --estimate-size 8800 --format json
eps=$(awk -F': ' '/"epsilon"/ { sub(/,$/, "", $2); print $2; exit }' "$TMP/out")
check "histogram threshold: certified epsilon <= the target 2" 'v1 > 0 && v1 <= 2' "$eps"
if grep -q '"groups"' "$TMP/out" && grep -q '"train_examples": 200,' "$TMP/out"; then
    pass "histogram threshold: its records split off, the thresholds reported"
else fail "histogram threshold: its records split off, the thresholds reported" "$(head -c 200 "$TMP/out")"; fi
expect_usage "histogram threshold needs --estimate-size" "--estimate-size" dp-taglmtron $HSYN --epsilon 2 \
    --delta 1e-5 --threshold histogram
expect_usage "histogram threshold: too few estimating records" "needs at least K" dp-glmtron $HSYN --epsilon 2 \
    --delta 1e-5 --threshold histogram --estimate-size 100
expect_usage "histogram threshold is not DP-MBGLMtron's" "histogram" dp-mbglmtron $HSYN --epsilon 2 \
    --delta 1e-5 --threshold histogram --estimate-size 100
expect_usage "--tail-b in (0, 1)" "--tail-b" dp-glmtron $HSYN --epsilon 2 --delta 1e-5 --tail-b 1
# ---- classification: dptrain sgd | ncgd (seed 001) ----------------------------
# 300 rows, 3 features, 3 classes: feature (label) shifted by 2, made by awk
awk 'BEGIN { srand(7); print "a,b,c,label"; for (i = 0; i < 300; i++) { y = i % 3; line = "";
    for (j = 0; j < 3; j++) { v = 2 * rand() - 1 + (j == y ? 2 : 0); line = line sprintf("%.6f,", v) }
    print line y } }' >"$TMP/cls.csv"
CLS="--data $TMP/cls.csv --test-fraction 0.2 --batch-size 24"
expect_ok "sgd --help" 'NoisyCGD' sgd --help
run sgd $CLS --epsilon 1 --delta 1e-5 --epochs 3 --batch-size 24 --learning-rate 0.5 --format json
eps=$(awk -F': ' '/"epsilon"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")
acc=$(awk -F': ' '/"test_accuracy"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")
check "sgd: certified epsilon <= the target 1" 'v1 > 0 && v1 <= 1' "$eps"
check "sgd: softmax learns the blobs (test accuracy > 0.6)" 'v1 > 0.6' "$acc"
# ncgd's eps is dpacct's noisy-cgd value for the same parameters: sigma C/b
# over the sensitivity 2C/b is sigma/2, smoothness beta + lambda
run ncgd $CLS --noise-multiplier 4 --delta 1e-5 --epochs 3 --batch-size 24 --learning-rate 0.01 --l2 0.5 --format json
eps=$(awk -F': ' '/"epsilon"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")
beta=$(awk -F': ' '/"smoothness"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")
ref=$("$DPACCT" epsilon --mechanism noisy-cgd --sigma 2 --batches 10 --epochs 3 --step-size 0.01 --strong-convexity 0.5 \
      --smoothness "$beta" --relation replace-one --delta 1e-5 --accountant gdp --format csv | awk -F, 'NR == 2 { print $5 }')
check "ncgd: eps is dpacct's noisy-cgd value (relative 1e-8: the two round sigma/sensitivity apart)" \
    'v1 > 0 && (v1 - v2) ^ 2 <= (1e-8 * v2) ^ 2' "$eps" "$ref"
expect_usage "ncgd: a step above 2/(beta + lambda) is refused" "use a step below" ncgd $CLS --noise-multiplier 4 \
    --delta 1e-5 --learning-rate 10 --l2 0.5
expect_usage "ncgd: the ReLU network is not convex" "not convex" ncgd $CLS --model relu --noise-multiplier 4 \
    --delta 1e-5 --learning-rate 0.01 --l2 0.5
expect_usage "ncgd: lambda > 0 needed" "lambda > 0" ncgd $CLS --noise-multiplier 4 --delta 1e-5 --learning-rate 0.01
expect_usage "sgd: --relation choices" "--relation" sgd $CLS --epsilon 1 --delta 1e-5 --relation maybe
expect_usage "sgd: --model choices" "--model" sgd $CLS --epsilon 1 --delta 1e-5 --model deep
printf 'a,label\n1,0\n2,1.5\n3,1\n' >"$TMP/badlabel.csv"
expect_usage "sgd: a label that is not a class" "row" sgd --data "$TMP/badlabel.csv" --test-fraction 0 --no-noise \
    --batch-size 1
printf 'a,b,c,label\n1,0,0,0\n2,0,0,7.5\n' >"$TMP/badtest.csv"
expect_usage "sgd: a test label that is not a class" "not a class" sgd --data "$TMP/cls.csv" \
    --test-data "$TMP/badtest.csv" --no-noise --batch-size 10
expect_usage "data and synthetic exclusive" "exactly one" glmtron $SYN --data "$TMP/ok.csv"
expect_usage "bad synthetic spec" "zeta" glmtron --synthetic n=100,zeta=foo
expect_usage "unknown option" "unknown option" glmtron $SYN --frobnicate
expect_usage "idx needs --labels" "--labels" glmtron --data x --input-format idx
expect_usage "batch larger than the data" "batch" dp-relu-sgd $SYN --epsilon 1 --delta auto --batch-size 100000

finish
