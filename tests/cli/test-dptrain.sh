#!/bin/sh
# test-dptrain.sh - black-box tests of the dptrain command (run by `make check`).
#
# A usage or input error exits with status exactly 2, prints nothing on
# stdout and one line on stderr starting "dptrain: ".  The epsilon a run
# reports is at most its target, and for a given noise multiplier it is the
# Gaussian-DP value of what a record sees: DP-GLMtron over E epochs is
# sqrt(E)/f-GDP, whose eps at delta = 1e-5 for f = 4, E = 4 (mu = 0.5) is
# 1.9930914044151196 (mpmath, 40 digits, from delta(eps) = Phi(-eps/mu +
# mu/2) - e^eps Phi(-eps/mu - mu/2)); DP-MBGLMtron's closed form (Ding et al. UAI 2025,
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
for alg in dp-glmtron dp-taglmtron dp-mbglmtron dp-relu-sgd dp-ftrl; do
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
# DP-FTRL: 240 training rows in batches of 10, 24 leaves a tree, h = 5; f = 4, 2 epochs: mu = 2 sqrt(10)/4
run dp-ftrl $SYN --noise-multiplier 4 --epochs 2 --batch-size 10 --delta 1e-5 --init-scale 1
check "dp-ftrl, f = 4, batches of 10, 2 epochs: eps of sqrt(10)/2-GDP (7.5112759, mpmath)" \
    'v1 >= 7.511275 && v1 <= 7.511277' "$(awk '$1 == "epsilon" { print $3 }' "$TMP/out")"
expect_ok "dp-ftrl: the accounting names the tree" 'tree aggregation of 24 leaves \(batches of 10\)' \
    dp-ftrl $SYN --noise-multiplier 4 --batch-size 10 --delta 1e-5 --init-scale 1
expect_usage "dp-ftrl: a fixed clip only" "DP-FTRL clips at a fixed C" dp-ftrl $SYN --epsilon 1 --delta auto \
    --threshold public --public-fraction 0.1

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
# ---- classification: dptrain sgd | ncgd (Koskela, arXiv 2024) -----------------
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
# over the sensitivity 2C/b is sigma/2, smoothness beta + lambda (beta the
# bound given, which the rows are scaled to meet)
expect_usage "ncgd: a private run needs --smoothness (not read off the data)" "--smoothness: required" ncgd $CLS \
    --noise-multiplier 4 --delta 1e-5 --learning-rate 0.01 --l2 0.5
run ncgd $CLS --noise-multiplier 4 --delta 1e-5 --epochs 3 --batch-size 24 --learning-rate 0.01 --l2 0.5 \
    --smoothness 50 --format json
eps=$(awk -F': ' '/"epsilon"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")
beta=$(awk -F': ' '/"smoothness"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")
ref=$("$DPACCT" epsilon --mechanism noisy-cgd --sigma 2 --batches 10 --epochs 3 --step-size 0.01 --strong-convexity 0.5 \
      --smoothness "$beta" --relation replace-one --delta 1e-5 --accountant gdp --format csv | awk -F, 'NR == 2 { print $5 }')
check "ncgd: eps is dpacct's noisy-cgd value (relative 1e-8: the two round sigma/sensitivity apart)" \
    'v1 > 0 && (v1 - v2) ^ 2 <= (1e-8 * v2) ^ 2' "$eps" "$ref"
expect_usage "ncgd: a step above 2/(beta + lambda) is refused" "use a step below" ncgd $CLS --noise-multiplier 4 \
    --delta 1e-5 --learning-rate 10 --l2 0.5 --smoothness 50
expect_usage "ncgd: the ReLU network is not convex" "not convex" ncgd $CLS --model relu --noise-multiplier 4 \
    --delta 1e-5 --learning-rate 0.01 --l2 0.5 --smoothness 50
expect_usage "ncgd: lambda > 0 needed" "lambda > 0" ncgd $CLS --noise-multiplier 4 --delta 1e-5 --learning-rate 0.01 \
    --smoothness 50
# --sampling: the run's eps is dpacct's for the same sampling (240 training rows, batches of 24, 3 epochs,
# multiplier 4 under replace-one), so the sampler and the accounting name one mechanism
run sgd $CLS --noise-multiplier 4 --delta 1e-5 --epochs 3 --learning-rate 0.5 --sampling shuffle --format json
eps=$(awk -F': ' '/"epsilon"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")
ref=$("$DPACCT" epsilon --noise-multiplier 4 --relation replace-one --dataset-size 240 --batch-size 24 --epochs 3 \
      --sampling shuffle --delta 1e-5 --format csv | awk -F, 'NR == 2 { print $5 }')
check "sgd --sampling shuffle: eps is dpacct's shuffled-batches bound" 'v1 > 0 && v1 == v2' "$eps" "$ref"
expect_ok "sgd --sampling shuffle: the accounting says how" 'shuffled batches of exactly 24' sgd $CLS \
    --noise-multiplier 4 --delta 1e-5 --epochs 1 --sampling shuffle
# truncated: 30 steps of Poisson at q = 24/240 capped at 30, n = 241 (a neighbour may add a record), add/remove
run sgd $CLS --noise-multiplier 3 --delta 1e-5 --epochs 3 --learning-rate 0.5 --sampling truncated --max-batch 30 \
    --relation add-remove --format json
eps=$(awk -F': ' '/"epsilon"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")
ref=$("$DPACCT" epsilon --mechanism 'self_composed(count=30, truncated_poisson(q=0.1, n=241, max_batch=30, gaussian(sigma=3)))' \
      --delta 1e-5 --accountant pld --format csv | awk -F, 'NR == 2 { print $5 }')
check "sgd --sampling truncated: eps is dpacct's truncated_poisson bound" 'v1 > 0 && v1 == v2' "$eps" "$ref"
expect_usage "sgd: truncated sampling is add/remove" "add/remove" sgd $CLS --epsilon 1 --delta 1e-5 \
    --sampling truncated --max-batch 30
# balls-in-bins: 10 batches an epoch (ceil(240/24)), random allocation by pld (the decomposition), add/remove
run sgd $CLS --noise-multiplier 3 --delta 1e-5 --epochs 3 --learning-rate 0.5 --sampling balls-in-bins \
    --relation add-remove --format json
eps=$(awk -F': ' '/"epsilon"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")
ref=$("$DPACCT" epsilon --sigma 3 --dataset-size 240 --batch-size 24 --epochs 3 --sampling balls-in-bins \
      --delta 1e-5 --accountant pld --format csv | awk -F, 'NR == 2 { print $5 }')
check "sgd --sampling balls-in-bins: eps is dpacct's random-allocation bound" 'v1 > 0 && v1 == v2' "$eps" "$ref"
expect_usage "sgd: balls-in-bins is add/remove" "add/remove" sgd $CLS --epsilon 1 --delta 1e-5 --sampling balls-in-bins
# allocation: each record in 2 of ceil(2 240/24) = 20 batches an epoch, random allocation by pld, add/remove
run sgd $CLS --noise-multiplier 3 --delta 1e-5 --epochs 3 --learning-rate 0.5 --sampling allocation --selected 2 \
    --relation add-remove --format json
eps=$(awk -F': ' '/"epsilon"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")
ref=$("$DPACCT" epsilon --mechanism 'self_composed(count=3, random_allocation(steps=20, selected=2, gaussian(sigma=3)))' \
      --delta 1e-5 --accountant pld --format csv | awk -F, 'NR == 2 { print $5 }')
check "sgd --sampling allocation: eps is dpacct's random-allocation bound" 'v1 > 0 && v1 == v2' "$eps" "$ref"
expect_ok "sgd --sampling allocation: the accounting says how" \
    '20 an epoch, each record in a uniformly random 2 of them.*pld' sgd $CLS --noise-multiplier 3 --delta 1e-5 \
    --sampling allocation --selected 2 --relation add-remove
expect_usage "sgd: allocation is add/remove" "add/remove" sgd $CLS --epsilon 1 --delta 1e-5 --sampling allocation \
    --selected 2
expect_usage "sgd: allocation needs --selected" "--selected K" sgd $CLS --epsilon 1 --delta 1e-5 \
    --relation add-remove --sampling allocation
expect_usage "sgd: --selected only with allocation" "--selected: .*allocation only \(sampling poisson\)" sgd $CLS \
    --epsilon 1 --delta 1e-5 --selected 2
expect_usage "sgd: --selected 0 is refused" "--selected" sgd $CLS --epsilon 1 --delta 1e-5 --relation add-remove \
    --sampling allocation --selected 0
expect_usage "sgd: --max-batch is not allocation's" "--max-batch: a maximum batch" sgd $CLS --epsilon 1 --delta 1e-5 \
    --relation add-remove --sampling allocation --selected 2 --max-batch 5
expect_usage "sgd: --selected is not truncated's" "--selected" sgd $CLS --epsilon 1 --delta 1e-5 \
    --relation add-remove --sampling truncated --max-batch 30 --selected 2
# --validation-fraction: 60 of the 240 training rows held out (not trained on: 180 rows, ceil(3 x 180 / 24) = 23
# Poisson steps instead of 30), their accuracy reported and named NOT COVERED
run sgd $CLS --noise-multiplier 3 --delta 1e-5 --epochs 3 --learning-rate 0.5 --validation-fraction 0.25 --format json
check "sgd --validation-fraction 0.25: 180 training rows, 60 validation rows, 23 steps" \
    'v1 == 180 && v2 == 60 && v3 == 23 && v4 >= 0 && v4 <= 1' \
    "$(awk -F': ' '/"train_examples"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")" \
    "$(awk -F': ' '/"validation_examples"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")" \
    "$(awk -F': ' '/"steps"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")" \
    "$(awk -F': ' '/"validation_accuracy"/ { sub(/,$/, "", $2); print $2 }' "$TMP/out")"
expect_ok "sgd --validation-fraction: named as not covered" 'NOT COVERED.*60 training rows held out as a validation set' \
    sgd $CLS --noise-multiplier 3 --delta 1e-5 --learning-rate 0.5 --validation-fraction 0.25
expect_usage "sgd: --validation-fraction in (0, 1)" "--validation-fraction" sgd $CLS --epsilon 1 --delta 1e-5 \
    --validation-fraction 1
expect_usage "sgd: --validation-fraction not with --standardize" "--validation-fraction: not with --standardize" sgd \
    $CLS --epsilon 1 --delta 1e-5 --validation-fraction 0.1 --standardize
expect_usage "sgd: --sampling choices" "--sampling" sgd $CLS --epsilon 1 --delta 1e-5 --sampling sometimes
expect_usage "sgd: truncated needs --max-batch" "maximum batch" sgd $CLS --epsilon 1 --delta 1e-5 --sampling truncated
expect_usage "sgd: --max-batch only with truncated" "maximum batch" sgd $CLS --epsilon 1 --delta 1e-5 --max-batch 5
expect_usage "ncgd: no --sampling" "fixed batches" ncgd $CLS --noise-multiplier 4 --delta 1e-5 --learning-rate 0.01 \
    --l2 0.5 --smoothness 50 --sampling shuffle
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
expect_ok "dp-relu-sgd --sampling shuffle: accounted as shuffled batches" 'shuffled batches.*batches accountant' \
    dp-relu-sgd $SYN --epsilon 1 --delta auto --sampling shuffle
expect_usage "--sampling is for the SGD algorithms" "relu-sgd" dp-glmtron $SYN --epsilon 1 --delta auto \
    --sampling shuffle
expect_ok "relu-sgd --sampling allocation: 2 epochs of ceil(3 240/32) = 23 batches" '^steps +46$' relu-sgd $SYN --sampling allocation \
    --selected 3 --epochs 2
expect_usage "dp-relu-sgd: allocation is add/remove" "add/remove" dp-relu-sgd $SYN --epsilon 1 --delta auto \
    --sampling allocation --selected 2

# ---- limits and escaped messages (issue 17) ----------------------------------
# Each refusal is one line naming the option or the file, exit status 2; the
# ones that used to allocate run under a 2 GB address-space limit.
NL='
'
expect_usage_small "--synthetic n = d = 2^64-1: the overflow said, not an empty line" \
    '--synthetic: n\*d = 18446744073709551615\*18446744073709551615 = [0-9.e+]+ doubles exceeds the addressable size' \
    dp-glmtron --synthetic n=18446744073709551615,d=18446744073709551615 --epsilon 0.5 --delta auto
expect_usage_small "--synthetic n = 1, d = 2^61 - 1: above the data limit, before w* is allocated" \
    '--synthetic: 1 x 2305843009213693951 doubles .* exceed the 2 GiB data limit' \
    dp-glmtron --synthetic n=1,d=2305843009213693951 --epsilon 0.5 --delta auto
expect_usage_small "--synthetic of 745 GiB: the limit and how to raise it" \
    '--synthetic: 1000000 x 100000 doubles \(745 GiB\) exceed the 2 GiB data limit \(raise it with --max-data-size\)' \
    glmtron --synthetic n=1000000,d=100000
expect_usage "--max-data-size lowers the limit" '--synthetic: 300 x 20 doubles \(46.9 KiB\) exceed the 1 KiB' \
    glmtron $SYN --max-data-size 1K
expect_ok "--max-data-size raises it" '^examples +240 train' glmtron $SYN --max-data-size 47k
expect_usage "--max-data-size 0" '--max-data-size: expected a size' glmtron $SYN --max-data-size 0
expect_usage "--max-data-size with a bad suffix" '--max-data-size: expected' glmtron $SYN --max-data-size 2P
expect_usage "--max-data-size above 1024T" '--max-data-size: at most 1024T' glmtron $SYN --max-data-size 1025T
printf '1 1:1\n0 100000000:1\n1 2:1\n0 3:1\n' >"$TMP/huge.svm"    # 32 bytes, 10^8 features
expect_usage_small "libsvm: index 1e8 refused at its line, no 3.2 GB allocation" \
    'huge.svm:3 \(feature index 100000000 on line 2\): 3 x 100000000 doubles \(2.24 GiB\) exceed the 2 GiB data limit' \
    glmtron --data "$TMP/huge.svm" --input-format libsvm
expect_usage_small "sgd: the same libsvm file" 'huge.svm:3 .*--max-data-size' sgd --data "$TMP/huge.svm" \
    --input-format libsvm --no-noise
printf '1 1:1\n0 1000:1\n1 2:1\n' >"$TMP/wide.svm"
expect_usage "libsvm: a lowered limit, at the line" 'wide.svm:2: feature index 1000: 2 x 1000 doubles' \
    glmtron --data "$TMP/wide.svm" --input-format libsvm --max-data-size 10K

expect_usage "--epochs 10^12: above the limit" "--epochs: at most 1000000, got '1000000000000'" \
    glmtron $SYN --epochs 1000000000000
expect_usage "--epochs beyond 64 bits" "--epochs: at most 1000000" glmtron $SYN --epochs 99999999999999999999999
expect_usage "--epochs x examples above 1e10" \
    '--epochs: 1000000 epochs of 16000 training examples are 1.6e\+10 gradient evaluations, above the limit of 1e\+10' \
    glmtron --synthetic n=20000,d=2 --epochs 1000000
expect_usage "sgd --epochs above the limit" "--epochs: at most 1000000" sgd $CLS --no-noise --epochs 1000001
expect_usage "--batch-size above 1e9" "--batch-size: at most 1000000000" dp-relu-sgd $SYN --epsilon 1 --delta auto \
    --batch-size 10000000000
expect_usage "--estimate-size above 1e9" "--estimate-size: at most 1000000000" dp-mbglmtron $SYN --epsilon 1 \
    --delta auto --estimate-size 18446744073709551615
expect_usage "--seed above an unsigned long" "--seed: at most" glmtron $SYN --seed 18446744073709551616
expect_usage "--seed with a sign" "--seed: expected a whole number" glmtron $SYN --seed -1
expect_usage "sgd --hyperplanes above 1e6" "--hyperplanes: at most 1000000" sgd $CLS --no-noise --model convex \
    --hyperplanes 1000001
expect_usage "sgd --classes above 1e6" "--classes: at most 1000000" sgd $CLS --no-noise --classes 10000000
expect_usage_small "sgd: a model of 3e9 parameters is refused before allocation" "parameters exceed 2147483647" \
    sgd $CLS --no-noise --model convex --hyperplanes 1000000 --classes 1000
printf 'a,label\n1,0\n2,1e20\n' >"$TMP/hugelabel.csv"
expect_usage "sgd: a label of 1e20 is no class" "largest label 1e\+20" sgd --data "$TMP/hugelabel.csv" \
    --test-fraction 0 --no-noise --batch-size 1
expect_usage "a missing option value" "--epochs: needs a value" glmtron $SYN --epochs

# values with a newline or control bytes come back escaped, on one line
expect_usage "--epsilon with a newline" "--epsilon: expected a number in \(0, inf\), got '1\\\\n2'" \
    dp-glmtron $SYN --epsilon "1${NL}2" --delta auto
expect_usage "--epochs with a newline" "--epochs: expected a whole number >= 1, got '5\\\\nX'" \
    glmtron $SYN --epochs "5${NL}X"
expect_usage "--threshold with a newline" "--threshold: expected .*got 'a\\\\nb'" glmtron $SYN --threshold "a${NL}b"
expect_usage "--accountant with a newline" "--accountant: expected one of .*pld.*got 'x\\\\ny'" \
    dp-relu-sgd $SYN --epsilon 1 --delta auto --accountant "x${NL}y"
expect_usage "an unknown option with a newline" "unknown option --a\\\\nb" glmtron $SYN "--a${NL}b"
expect_usage "an algorithm with a newline" "unknown algorithm 'a\\\\nb'" "a${NL}b" $SYN
expect_usage "--synthetic with a newline" "--synthetic: bad value '1\\\\n00' for key 'n'" glmtron --synthetic "n=1${NL}00"
expect_usage "a path with a newline" "new\\\\nline.csv: cannot open" glmtron --data "$TMP/new${NL}line.csv"
expect_usage "--target with a newline" "no column named 'y\\\\nz'" glmtron --data "$TMP/ok.csv" --target "y${NL}z"
printf 'a,b,y\n1,\033[31m,2\n' >"$TMP/esc.csv"
expect_usage "a CSV field with an escape sequence" "esc.csv:2: field 2 \('\\\\x1b\[31m'\)" glmtron --data "$TMP/esc.csv"
long=$(awk 'BEGIN { while (i++ < 500) printf "9" }')
run dp-glmtron $SYN --epsilon "x$long" --delta auto
check "a long value is cut with '...' (a line below 200 characters)" 'v1 == 2 && v2 < 200 && v3 > 0' "$status" \
    "$(awk '{ print length($0) }' "$TMP/err")" "$(grep -c "x999.*\.\.\.'" "$TMP/err")"

finish
