#!/bin/sh
# test-dptrain-private.sh - every private dptrain subcommand is private in
# fact (run by `make check`):
# - without --seed, two runs of the same command give different models (the
#   privacy draws come from the system's secure generator), and the report
#   does not say "not private";
# - with --seed, two runs are identical and the accounting line says
#   "not private: reproducible noise (--seed)" (text and JSON);
# - the data uses outside the guarantee are refused or named: --threshold
#   public needs data declared public (or an explicit --public-fraction,
#   then named NOT COVERED), --standardize is named NOT COVERED, ncgd needs
#   --smoothness, sparse-erm/-sgd on user data need --sparsity and --norm.
#
# The model's numbers compared are the report's loss fields (ntk: the norm
# of its released coefficients), which differ between two noise draws with
# probability 1 (continuous noise on continuous data) and are equal for
# equal draws.
#
# POSIX sh, awk and grep only.

HARNESS_NAME=dptrain-private
. "$(dirname "$0")/dptrain-harness.sh"

# the report without its timing lines: two runs with the same draws match
model_of() { grep -v -e '"seconds"' -e '^time ' -e 'time s' "$TMP/out"; }

# private_in_fact NAME ARGS...: two unseeded runs differ, two seeded ones agree
private_in_fact() {
    name=$1; shift
    run "$@"
    if [ "$status" -ne 0 ]; then fail "$name: runs" "exit status $status: $(head -n 1 "$TMP/err")"; return; fi
    model_of >"$TMP/a"
    run "$@"
    model_of >"$TMP/b"
    if cmp -s "$TMP/a" "$TMP/b"; then fail "$name: two runs without --seed differ" "identical reports"
    else pass "$name: two runs without --seed differ"; fi
    if grep -q -e 'not private: reproducible' -e '"private": false' "$TMP/a"; then
        fail "$name: without --seed the report does not say 'not private'" "$(grep 'not private' "$TMP/a" | head -n 1)"
    else pass "$name: without --seed the report does not say 'not private'"; fi
    run "$@" --seed 11
    model_of >"$TMP/a"
    run "$@" --seed 11
    model_of >"$TMP/b"
    if cmp -s "$TMP/a" "$TMP/b"; then pass "$name: two runs with --seed 11 are identical"
    else fail "$name: two runs with --seed 11 are identical" "$(diff "$TMP/a" "$TMP/b" | head -n 3)"; fi
    if grep -q 'not private: reproducible noise (--seed)' "$TMP/a"; then pass "$name: with --seed it says not private"
    else fail "$name: with --seed it says not private" "$(grep -i accounting "$TMP/a" | head -n 1)"; fi
}

SYN="--synthetic n=300,d=20,decay=2,noise=0.1,seed=3"
for alg in dp-glmtron dp-taglmtron dp-mbglmtron dp-relu-sgd dp-ftrl; do
    extra=""
    [ "$alg" = dp-mbglmtron ] && extra="--threshold private --batch-size 20"
    [ "$alg" = dp-relu-sgd ] && extra="--init-scale 1"
    [ "$alg" = dp-ftrl ] && extra="--init-scale 1 --batch-size 10"
    # shellcheck disable=SC2086
    private_in_fact "$alg (json)" $alg $SYN --epsilon 1 --delta auto $extra --format json
done
# the table report too
private_in_fact "dp-glmtron (table)" dp-glmtron $SYN --epsilon 1 --delta auto

# classification: 300 rows, 3 features, 3 classes
awk 'BEGIN { srand(7); print "a,b,c,label"; for (i = 0; i < 300; i++) { y = i % 3; line = "";
    for (j = 0; j < 3; j++) { v = 2 * rand() - 1 + (j == y ? 2 : 0); line = line sprintf("%.6f,", v) }
    print line y } }' >"$TMP/cls.csv"
CLS="--data $TMP/cls.csv --test-fraction 0.2 --batch-size 24 --classes 3"
private_in_fact "sgd" sgd $CLS --epsilon 1 --delta 1e-5 --epochs 2 --learning-rate 0.5 --format json
private_in_fact "ncgd" ncgd $CLS --noise-multiplier 4 --delta 1e-5 --epochs 2 --learning-rate 0.01 --l2 0.5 \
    --smoothness 50 --format json
private_in_fact "ntk" ntk --data "$TMP/cls.csv" --quiet --beta 1e-4 --epsilon 4 --delta 1e-5 --json
SP="--synthetic n=2000,d=100,s=5,seed=3 --quiet"
private_in_fact "sparse-mean" sparse-mean --synthetic n=2000,d=100,s=5,seed=3 --quiet --epsilon 1 --delta 1e-5 --json
private_in_fact "sparse-mean (laplace)" sparse-mean --synthetic n=2000,d=100,s=5,seed=3 --quiet --epsilon 1 \
    --delta 0 --method dense --json
# shellcheck disable=SC2086
private_in_fact "sparse-erm" sparse-erm $SP --json
# shellcheck disable=SC2086
private_in_fact "sparse-sgd" sparse-sgd $SP --json --max-steps 2000
# shellcheck disable=SC2086
private_in_fact "sparse-sgd (dense)" sparse-sgd $SP --json --dense --noise 3 --max-steps 2000

# ---- uses of the data outside the guarantee: refused or named --------------
expect_usage "--threshold public needs data declared public" "--public-data" dp-mbglmtron $SYN --epsilon 1 \
    --delta auto --threshold public
run dp-mbglmtron $SYN --epsilon 1 --delta auto --threshold public --public-fraction 0.1 --batch-size 20
if [ "$status" -eq 0 ] && grep -q 'NOT COVERED by the guarantee: .*declared public by --public-fraction' "$TMP/out" &&
    grep -q '^accounting .*not covered by the guarantee' "$TMP/out"; then
    pass "--public-fraction: the rows made public are named NOT COVERED, and the accounting line says so"
else fail "--public-fraction: the rows made public are named NOT COVERED, and the accounting line says so" \
    "$(grep -e 'data use' -e accounting "$TMP/out" | head -n 2)"; fi
awk 'BEGIN { srand(9); line = ""; for (j = 1; j <= 20; j++) line = line "x" j ","; print line "y";
    for (i = 0; i < 100; i++) { line = ""; for (j = 0; j < 20; j++) line = line sprintf("%.5f,", 2 * rand() - 1);
    print line rand() } }' >"$TMP/pub.csv"
awk 'BEGIN { srand(8); line = ""; for (j = 1; j <= 20; j++) line = line "x" j ","; print line "y";
    for (i = 0; i < 300; i++) { line = ""; for (j = 0; j < 20; j++) line = line sprintf("%.5f,", 2 * rand() - 1);
    print line rand() } }' >"$TMP/priv.csv"
run dp-mbglmtron --data "$TMP/priv.csv" --epsilon 1 --delta auto --threshold public --public-data "$TMP/pub.csv" \
    --batch-size 20
if [ "$status" -eq 0 ] && grep -q '100 rows of .*pub.csv, declared public by --public-data' "$TMP/out" &&
    ! grep -q 'not covered' "$TMP/out"; then
    pass "--public-data: the public rows are named, nothing is outside the guarantee"
else fail "--public-data: the public rows are named, nothing is outside the guarantee" \
    "status $status: $(head -n 1 "$TMP/err") $(grep -e 'data use' "$TMP/out" | head -n 1)"; fi
printf 'a,b,y\n1,2,0.5\n2,1,1\n' >"$TMP/ok3.csv"
expect_usage "--public-data with another width" "features" dp-mbglmtron --data "$TMP/priv.csv" --epsilon 1 \
    --delta auto --threshold public --public-data "$TMP/ok3.csv" --batch-size 20
run dp-glmtron --data "$TMP/priv.csv" --epsilon 1 --delta auto
if grep -q 'NOT COVERED' "$TMP/out"; then fail "no standardisation by default" "$(grep 'NOT COVERED' "$TMP/out")"
else pass "no standardisation by default"; fi
run dp-glmtron --data "$TMP/priv.csv" --epsilon 1 --delta auto --standardize
if [ "$status" -eq 0 ] && grep -q 'NOT COVERED by the guarantee: feature statistics computed from the training data' \
    "$TMP/out"; then pass "--standardize is named NOT COVERED"
else fail "--standardize is named NOT COVERED" "$(grep 'data use' "$TMP/out")"; fi
run dp-glmtron --data "$TMP/priv.csv" --epsilon 1 --delta auto --clip-rows 1 --format json
if [ "$status" -eq 0 ] && grep -q '"private": true' "$TMP/out"; then pass "--clip-rows: private, nothing uncovered"
else fail "--clip-rows: private, nothing uncovered" "$(grep -e private -e data_use "$TMP/out")"; fi
run sgd --data "$TMP/cls.csv" --test-fraction 0.2 --epsilon 1 --delta 1e-5 --batch-size 24
if grep -q 'NOT COVERED by the guarantee: the number of classes' "$TMP/out"; then
    pass "sgd without --classes: the class count read off the labels is named"
else fail "sgd without --classes: the class count read off the labels is named" "$(grep 'data use' "$TMP/out")"; fi
expect_usage "ncgd needs --smoothness" "--smoothness: required" ncgd $CLS --noise-multiplier 4 --delta 1e-5 \
    --learning-rate 0.01 --l2 0.5
awk 'BEGIN { print "a,b,c,y"; for (i = 0; i < 200; i++) printf "%d,0,%d,%d\n", i % 2, (i + 1) % 2, (i % 3 ? 1 : -1) }' \
    >"$TMP/sp.csv"
expect_usage "sparse-erm on user data needs --sparsity and --norm" "--sparsity and --norm" sparse-erm \
    --data "$TMP/sp.csv" --quiet

# a noise std outside the samplers' range: no model, one clear line
expect_usage "a noise std outside [1e-250, 1e250] is refused, no model released" "outside \\[1e-250" dp-glmtron $SYN \
    --epsilon 1 --delta auto --clip 1e300

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
