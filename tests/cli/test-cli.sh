#!/bin/sh
# test-cli.sh - black-box tests of the dpacct command (run by `make check`).
#
# Every flag gets at least one valid use and its invalid uses.  A usage
# error must exit with status exactly 2, print nothing on stdout and
# exactly one line on stderr, starting "dpacct: " and naming the flag.
# Library failures and unsupported mechanisms exit with 1.
#
# Numbers are checked against independent references, computed once with
# mpmath at 40 digits from the closed form of mu-GDP / the Gaussian
# mechanism, delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
# (Dong, Roth & Su 2022, Cor. 2.13; Balle & Wang 2018, Thm 8):
#   mu = 1,        delta = 1e-5:  eps   = 4.3771780956812246
#   mu = sqrt(10), eps = 1:       delta = 0.81851781551325016
#   eps = 1, delta = 1e-5:        sigma = 3.7306316348159418 (so with
#                                 sigma = 20 the largest step count is
#                                 floor((20 / 3.73063...)^2) = 28)
#   CLT mu = q sqrt(T (e^{1/sigma^2} - 1)) = 0.57360147039228347 for
#   q = 256/60000, T = 14063, sigma = 1.1 (Bu et al. 2020, Eq. 5), whose
#   eps at delta = 1e-5 is 2.3243616628354374.
#
# POSIX sh, awk and grep only.

DPACCT=${DPACCT:-./dpacct}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/dpacct-cli.XXXXXX") || exit 99
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

passed=0
failed=0

pass() {
    passed=$((passed + 1))
    echo "PASS: $1"
}

fail() {
    failed=$((failed + 1))
    echo "FAIL: $1${2:+ ($2)}"
}

# run ARGS...: run dpacct, keep stdout, stderr and the status.
run() {
    "$DPACCT" "$@" >"$TMP/out" 2>"$TMP/err"
    status=$?
}

first_error() {
    head -n 1 "$TMP/err"
}

# expect_ok NAME ERE ARGS...: status 0, stdout matches ERE, stderr empty.
expect_ok() {
    name=$1
    pattern=$2
    shift 2
    run "$@"
    if [ "$status" -ne 0 ]; then
        fail "$name" "exit status $status: $(first_error)"
    elif ! grep -Eq -- "$pattern" "$TMP/out"; then
        fail "$name" "stdout does not match /$pattern/"
    elif [ -s "$TMP/err" ]; then
        fail "$name" "unexpected stderr: $(first_error)"
    else
        pass "$name"
    fi
}

# stderr_is_one_line: exactly one complete line.
stderr_is_one_line() {
    [ "$(wc -l <"$TMP/err" | tr -d ' ')" -eq 1 ] &&
        [ "$(awk 'END { print NR }' "$TMP/err")" -eq 1 ]
}

# expect_error NAME STATUS TEXT ARGS...: exit STATUS, nothing on stdout,
# one line "dpacct: ..." on stderr that contains TEXT (fixed string).
expect_error() {
    name=$1
    want=$2
    text=$3
    shift 3
    run "$@"
    if [ "$status" -ne "$want" ]; then
        fail "$name" "exit status $status, expected $want: $(first_error)"
    elif ! stderr_is_one_line; then
        fail "$name" "stderr is not exactly one line: $(wc -l <"$TMP/err") lines"
    elif ! grep -q '^dpacct: ' "$TMP/err"; then
        fail "$name" "stderr does not start with 'dpacct: ': $(first_error)"
    elif ! grep -qF -- "$text" "$TMP/err"; then
        fail "$name" "stderr does not name '$text': $(first_error)"
    elif [ -s "$TMP/out" ]; then
        fail "$name" "unexpected stdout"
    else
        pass "$name"
    fi
}

# expect_usage NAME FLAG ARGS...: a usage error (status 2) naming FLAG.
expect_usage() {
    name=$1
    flag=$2
    shift 2
    expect_error "$name" 2 "$flag" "$@"
}

# field KEY: the value after KEY in the key-value table on stdout.
field() {
    awk -v k="$1" '$1 == k { print $2; exit }' "$TMP/out"
}

# check NAME AWK-CONDITION VALUE...: the condition holds for v1, v2, ...
check() {
    name=$1
    cond=$2
    shift 2
    if awk -v v1="${1-}" -v v2="${2-}" -v v3="${3-}" -v v4="${4-}" \
        "BEGIN { if (v1 == \"\") exit 1; exit !($cond) }"; then
        pass "$name"
    else
        fail "$name" "values '$*' fail: $cond"
    fi
}

# is_json FILE: a strict recursive-descent JSON validator in awk.
is_json() {
    awk '
    function skip() { while (pos <= n && index(" \t\r\n", substr(s, pos, 1)) > 0) pos++ }
    function str(   c) {
        if (substr(s, pos, 1) != "\"") return 0
        pos++
        while (pos <= n) {
            c = substr(s, pos, 1)
            if (c == "\"") { pos++; return 1 }
            if (c == "\\") {
                c = substr(s, pos + 1, 1)
                if (index("\"\\/bfnrt", c) > 0) { pos += 2; continue }
                if (c == "u" && substr(s, pos + 2, 4) ~ /^[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]$/) { pos += 6; continue }
                return 0
            }
            if (index(ctrl, c) > 0) return 0
            pos++
        }
        return 0
    }
    function members(endc,   c) {
        pos++
        skip()
        if (substr(s, pos, 1) == endc) { pos++; return 1 }
        for (;;) {
            skip()
            if (endc == "}") {
                if (!str()) return 0
                skip()
                if (substr(s, pos, 1) != ":") return 0
                pos++
            }
            if (!value()) return 0
            skip()
            c = substr(s, pos, 1)
            pos++
            if (c == endc) return 1
            if (c != ",") return 0
        }
    }
    function value(   c, rest) {
        skip()
        c = substr(s, pos, 1)
        if (c == "{") return members("}")
        if (c == "[") return members("]")
        if (c == "\"") return str()
        rest = substr(s, pos)
        if (match(rest, /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/)) { pos += RLENGTH; return 1 }
        if (substr(rest, 1, 4) == "true" || substr(rest, 1, 4) == "null") { pos += 4; return 1 }
        if (substr(rest, 1, 5) == "false") { pos += 5; return 1 }
        return 0
    }
    BEGIN { for (i = 1; i < 32; i++) ctrl = ctrl sprintf("%c", i) }
    { s = s $0 "\n" }
    END {
        n = length(s)
        pos = 1
        ok = value()
        skip()
        exit !(ok && pos == n + 1)
    }' "$1"
}

# References (see the header).
EPS_MU1=4.3771780956812246
DELTA_MU_SQRT10=0.81851781551325016
SIGMA_EPS1=3.7306316348159418
EPS_DPSGD_CLT=2.3243616628354374

# ---- top level -------------------------------------------------------------

expect_ok "--help exits 0" 'Usage: dpacct' --help
expect_ok "-h exits 0" 'Usage: dpacct' -h
expect_ok "--version prints the version" '^dpacct [0-9]+\.[0-9]+\.[0-9]+$' --version
expect_usage "unknown subcommand exits 2" "frobnicate" frobnicate
expect_usage "no subcommand exits 2" "subcommand"
expect_usage "option before the subcommand exits 2" "--sigma" --sigma 1 epsilon

# The accountants the registry reports, from `dpacct --help`.
run --help
ACCOUNTANTS=$(awk '/^Accountants:/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on { exit }' "$TMP/out")
if [ -n "$ACCOUNTANTS" ]; then
    pass "--help lists the accountants"
else
    fail "--help lists the accountants"
fi

for sub in epsilon delta calibrate compare; do
    expect_ok "$sub --help exits 0" "Usage: dpacct $sub" "$sub" --help
    if grep -q 'upper' "$TMP/out" && grep -q 'certified bound to report' "$TMP/out"; then
        pass "$sub --help says upper is the certified bound"
    else
        fail "$sub --help says upper is the certified bound"
    fi
    for opt in --sigma --format --relation --help; do
        if grep -qF -- "$opt" "$TMP/out"; then
            pass "$sub --help lists $opt"
        else
            fail "$sub --help lists $opt"
        fi
    done
    expect_ok "$sub -h exits 0" "Usage: dpacct $sub" "$sub" -h
done

# ---- epsilon, delta: values against the references -------------------------

expect_ok "epsilon --accountant gaussian prints a number" '^upper +[0-9]' \
    epsilon --sigma 1 --delta 1e-5 --accountant gaussian
up=$(field upper)
lo=$(field lower)
check "gaussian epsilon(sigma=1, delta=1e-5) lies between 4.3771 and 4.3773" \
    "v1 >= 4.3771 && v1 <= 4.3773" "$up"
check "gaussian upper >= reference $EPS_MU1" "v1 >= v2" "$up" "$EPS_MU1"
check "gaussian lower <= reference" "v1 <= v2" "$lo" "$EPS_MU1"
check "gaussian bracket is tight (< 1e-8)" "v1 - v2 < 1e-8" "$up" "$lo"
if grep -q '^flags .*exact' "$TMP/out"; then pass "gaussian is flagged exact"; else fail "gaussian is flagged exact"; fi

expect_ok "epsilon --accountant gdp (mu = 1) prints a number" '^upper +[0-9]' \
    epsilon --sigma 1 --delta 1e-5 --accountant gdp
check "1-GDP epsilon at delta 1e-5 lies between 4.3771 and 4.3773" \
    "v1 >= 4.3771 && v1 <= 4.3773 && v1 >= v2" "$(field upper)" "$EPS_MU1"

expect_ok "epsilon --accountant zcdp prints a number and an order" '^order +[0-9]' \
    epsilon --sigma 1 --delta 1e-5 --accountant zcdp
check "zcdp upper is a valid bound (>= the exact epsilon)" "v1 >= v2" "$(field upper)" "$EPS_MU1"

expect_ok "epsilon without --accountant uses gaussian when unsampled" '^method +gaussian$' \
    epsilon --sigma 1 --delta 1e-5
expect_ok "epsilon without --accountant uses rdp when sampled" '^method +rdp$' \
    epsilon --sigma 1 --delta 1e-5 --sampling-rate 0.01 --steps 100
expect_ok "sampled gdp epsilon on request" '^method +gdp$' \
    epsilon --sigma 1 --delta 1e-5 --sampling-rate 0.01 --steps 100 --accountant gdp
if grep -q 'not privacy guarantees' "$TMP/out"; then
    pass "sampled gdp epsilon prints the approximation note"
else
    fail "sampled gdp epsilon prints the approximation note"
fi

expect_ok "delta --steps 10 prints a number" '^upper +0\.[0-9]' \
    delta --sigma 1 --epsilon 1 --steps 10 --accountant gaussian
check "delta(sigma=1, 10 steps, eps=1) brackets $DELTA_MU_SQRT10" "v1 >= v3 && v2 <= v3" \
    "$(field upper)" "$(field lower)" "$DELTA_MU_SQRT10"
expect_ok "delta --epsilon 0 is allowed" '^upper +0\.[0-9]' delta --sigma 1 --epsilon 0

# ---- every mechanism flag, valid uses ----------------------------------------

expect_ok "--sampling-rate is used" 'poisson\(q=0\.01' \
    epsilon --sigma 1 --delta 1e-5 --sampling-rate 0.01 --steps 10
expect_ok "--sampling-rate 1 means no sampling" '^mechanism +gaussian\(sigma=1\)$' \
    epsilon --sigma 1 --delta 1e-5 --sampling-rate 1
expect_ok "--batch-size/--dataset-size give q = B/N" 'poisson\(q=0\.25,' \
    epsilon --sigma 1 --delta 1e-5 --batch-size 25 --dataset-size 100
expect_ok "--steps composes" 'count=10,' epsilon --sigma 1 --delta 1e-5 --steps 10
expect_ok "--epochs without sampling rounds up" 'count=3,' epsilon --sigma 1 --delta 1e-5 --epochs 2.5
expect_ok "--epochs 1 at rate 0.01 is exactly 100 steps" 'count=100,' \
    epsilon --sigma 1 --delta 1e-5 --epochs 1 --sampling-rate 0.01
expect_ok "--epochs with batch/dataset is ceil(E N / B)" 'count=14063,' \
    epsilon --sigma 1.1 --delta 1e-5 --epochs 60 --batch-size 256 --dataset-size 60000
expect_ok "--relation replace-one" '^relation +replace-one$' \
    epsilon --sigma 1 --delta 1e-5 --relation replace-one
expect_ok "--relation add-remove" '^relation +add-remove$' \
    epsilon --sigma 1 --delta 1e-5 --relation add-remove
expect_ok "--sampling poisson is the default" 'poisson\(q=0\.25,' \
    epsilon --sigma 1 --delta 1e-5 --batch-size 25 --dataset-size 100 --sampling poisson
expect_ok "--sampling without-replacement: batches of B out of N" 'without_replacement\(n=100, m=25,' \
    epsilon --sigma 1 --delta 1e-5 --batch-size 25 --dataset-size 100 --sampling without-replacement \
    --relation replace-one
expect_usage "--sampling without-replacement needs the batch and dataset sizes" "--sampling" \
    epsilon --sigma 1 --delta 1e-5 --sampling-rate 0.25 --sampling without-replacement --relation replace-one
expect_usage "--sampling without-replacement needs replace-one" "--sampling" \
    epsilon --sigma 1 --delta 1e-5 --batch-size 25 --dataset-size 100 --sampling without-replacement
expect_usage "--sampling: unknown kind" "--sampling" \
    epsilon --sigma 1 --delta 1e-5 --batch-size 25 --dataset-size 100 --sampling shuffled
# m = n is no sampling: the pld bracket holds the exact eps of mu = 1 (header)
run epsilon --sigma 1 --delta 1e-5 --batch-size 50 --dataset-size 50 --sampling without-replacement \
    --relation replace-one --accountant pld
check "without replacement, m = n: pld brackets the Gaussian's 4.37717809568" \
    'v1 >= 4.3771780956812246 && v2 <= 4.3771780956812246' "$(field upper)" "$(field lower)"
# m < n: pld's upper lies below the RDP bound (Wang, Balle & Kasiviswanathan 2019, Thm 9)
run epsilon --sigma 1.1 --delta 1e-5 --batch-size 256 --dataset-size 60000 --epochs 60 \
    --sampling without-replacement --relation replace-one --accountant pld
pld_upper=$(field upper)
run epsilon --sigma 1.1 --delta 1e-5 --batch-size 256 --dataset-size 60000 --epochs 60 \
    --sampling without-replacement --relation replace-one --accountant rdp
check "without replacement: pld below rdp (WBK 2019)" 'v1 < v2 && v1 > 0' "$pld_upper" "$(field upper)"
# truncated Poisson sampling: 1000 steps at q = 0.01 of n = 1000 records, at
# most 12 kept (mean batch 10), sigma 1.  With max_batch = n it never
# truncates: Poisson sampling's bracket; at 12 pld's bracket lies above it
# (tests/test_truncated.c: [7.8548, 7.8588] against [1.8272, 1.8287]).
run epsilon --mechanism 'self_composed(count=1000, poisson(q=0.01, gaussian(sigma=1)))' --delta 1e-5 --accountant pld
poisson_upper=$(field upper)
poisson_lower=$(field lower)
run epsilon --mechanism 'self_composed(count=1000, truncated_poisson(q=0.01, n=1000, max_batch=1000, gaussian(sigma=1)))' \
    --delta 1e-5 --accountant pld
check "truncated_poisson, max_batch = n: Poisson sampling's bracket" 'v1 == v3 && v2 == v4' \
    "$(field upper)" "$(field lower)" "$poisson_upper" "$poisson_lower"
run epsilon --mechanism 'self_composed(count=1000, truncated_poisson(q=0.01, n=1000, max_batch=12, gaussian(sigma=1)))' \
    --delta 1e-5 --accountant pld
check "truncated_poisson, max_batch 12: pld's bracket above Poisson sampling's" \
    'v2 > v3 && v1 >= v2 && v1 >= 7.8548 && v2 <= 7.8588' "$(field upper)" "$(field lower)" "$poisson_upper"
if grep -q 'lower bound of the dominating pair' "$TMP/out"; then pass "truncated_poisson: the lower bound is the pair's"
else fail "truncated_poisson: the lower bound is the pair's"; fi
expect_error "truncated_poisson: Gaussian noise only" 1 "Gaussian noise only" \
    epsilon --mechanism 'truncated_poisson(q=0.01, n=1000, max_batch=12, laplace(scale=1))' --delta 1e-5 --accountant pld
expect_error "truncated_poisson: not gdp's" 1 "truncated_poisson" \
    epsilon --mechanism 'truncated_poisson(q=0.01, n=1000, max_batch=12, gaussian(sigma=1))' --delta 1e-5 --accountant gdp
expect_usage "truncated_poisson: max_batch above n" "max_batch must be at most the dataset size n" \
    epsilon --mechanism 'truncated_poisson(q=0.01, n=10, max_batch=11, gaussian(sigma=1))' --delta 1e-5
for flag in --sampling --mechanism --batches --step-size --strong-convexity --smoothness --epsilon0 --users \
    --eps-error; do
    expect_ok "epsilon --help lists $flag" "^  $flag " epsilon --help
done
# ---- --tuning-runs (private tuning) ------------------------------------------------
# The profile bound as printed: eps = eps_GDP(mu, delta/m) + m (2 Phi(mu/2) - 1);
# mu = 1 (sigma 1), m = 5, delta = 1e-5, by mpmath at 30 digits:
# eps_GDP(1, 2e-6) = 4.7387260160104834 and TV = 2 Phi(1/2) - 1 =
# 0.38292492254802621, so 6.6533506287506144.
run epsilon --sigma 1 --tuning-runs 5 --delta 1e-5 --accountant tuning
check "tuning: the profile bound at mu 1, m 5" 'v1 >= 6.6533506287 && v1 <= 6.653350630' "$(field upper)"
expect_ok "tuning: compare lists rdp (Papernot-Steinke) and tuning" '^tuning ' \
    compare --sigma 1 --tuning-runs 5 --delta 1e-5
expect_usage "--tuning-runs must be positive" "--tuning-runs" epsilon --sigma 1 --tuning-runs 0 --delta 1e-5
expect_ok "tuning: calibration goes through rdp" '^method +rdp$' calibrate --tuning-runs 5 --epsilon 2 --delta 1e-5

# ---- --failure-delta (an additive failure term) -------------------------------------
# The Gaussian with sigma 1 (mu = 1), by mpmath at 40 digits: delta(3) =
# 0.0015371853694009548 so with a failure term 1e-6 the delta is
# 0.0015381853694009548; eps at delta 1e-5 with a term 5e-6 is eps at 5e-6,
# 4.5362502877391576.  The table prints the upper bound rounded up to 10 digits.
run delta --sigma 1 --epsilon 3 --failure-delta 1e-6
check "--failure-delta adds to delta" 'v1 >= 0.0015381853694 && v1 <= 0.0015381853694 * (1 + 1e-9)' "$(field upper)"
run epsilon --sigma 1 --delta 1e-5 --failure-delta 5e-6
check "--failure-delta comes off the delta of an eps query" 'v1 >= 4.5362502877 && v1 <= 4.5362502877 * (1 + 1e-9)' \
    "$(field upper)"
expect_ok "--failure-delta is named in the report" 'failure delta 5e-06' epsilon --sigma 1 --delta 1e-5 \
    --failure-delta 5e-6
expect_ok "--failure-delta in compare" 'failure delta 1e-06' compare --sigma 1 --steps 10 --delta 1e-5 \
    --failure-delta 1e-6
expect_error "--failure-delta that uses up delta" 1 "failure terms" epsilon --sigma 1 --delta 1e-6 \
    --failure-delta 1e-6
expect_usage "--failure-delta in (0, 1)" "--failure-delta" epsilon --sigma 1 --delta 1e-5 --failure-delta 1
expect_usage "--failure-delta is not calibrate's" "--failure-delta" calibrate --epsilon 1 --delta 1e-5 \
    --failure-delta 1e-6

# ---- --mechanism shuffled ---------------------------------------------------------
SHUF="--mechanism shuffled --epsilon0 1 --users 10000 --relation replace-one"
run compare $SHUF --delta 1e-6
num_shuffle=$(awk '$1 == "shuffle" { print $2 }' "$TMP/out")
num_closed=$(awk '$1 == "closed" && $2 == "form" { print $3 }' "$TMP/out")
num_local=$(awk '$1 == "local" { print $2 }' "$TMP/out")
check "shuffled: numerical < closed form < local (FMT21 Thm 3.1 valid here)" 'v1 > 0 && v1 < v2 && v2 < v3' \
    "$num_shuffle" "$num_closed" "$num_local"
expect_ok "shuffled: the closed form's condition is stated where it fails" 'log\(n / \(16 log\(4/delta\)\)\)' \
    compare --mechanism shuffled --epsilon0 8 --users 1000 --relation replace-one --delta 1e-6
expect_ok "shuffled: delta at eps" '^upper ' delta $SHUF --epsilon 0.05
run shuffle --epsilon0 1 --users 10000 --delta 1e-6
check "shuffle subcommand: the same numerical bound as compare" 'v1 == v2' \
    "$(awk '$1 == "shuffle" { print $2 }' "$TMP/out")" "$num_shuffle"
expect_ok "shuffle subcommand: closed form and local rows" '^local +1 ' shuffle --epsilon0 1 --users 10000 --delta 1e-6
expect_ok "shuffle subcommand: delta at eps" '^shuffle,true' shuffle --epsilon0 1 --users 10000 --epsilon 0.05 --format csv
expect_usage "shuffle subcommand needs --users" "--users" shuffle --epsilon0 1 --delta 1e-6
expect_usage "shuffle subcommand takes no --sigma" "--sigma" shuffle --epsilon0 1 --users 100 --sigma 1 --delta 1e-6
expect_usage "shuffled needs replace-one" "--mechanism" epsilon --mechanism shuffled --epsilon0 1 --users 100 \
    --delta 1e-6
expect_usage "shuffled needs --users" "--users" epsilon --mechanism shuffled --epsilon0 1 --relation replace-one \
    --delta 1e-6
expect_usage "shuffled takes no --sigma" "--sigma" epsilon $SHUF --sigma 1 --delta 1e-6
expect_usage "--epsilon0 only with shuffled" "--epsilon0" epsilon --sigma 1 --epsilon0 1 --delta 1e-6
expect_usage "shuffled: no calibration" "--mechanism" calibrate $SHUF --epsilon 1 --delta 1e-6
expect_error "shuffled: more than 1e9 users is refused (exit 1)" 1 "1e9" \
    epsilon --mechanism shuffled --epsilon0 1 --users 2000000000 --relation replace-one --delta 1e-6
# R rounds: composed through the clones pair (pld), below basic composition of
# the one-round bounds, below the closed form and the local guarantee composed
run shuffle --epsilon0 1 --users 10000 --delta 1e-6 --steps 20
check "shuffle --steps 20: pld < shuffle x R < closed form x R < local x R = 20" \
    'v1 > 0 && v1 < v2 && v2 < v3 && v3 < v4 && v4 == 20' \
    "$(awk '$1 == "pld" { print $2 }' "$TMP/out")" "$(awk '$1 == "shuffle" && $2 == "x" { print $4 }' "$TMP/out")" \
    "$(awk '$1 == "closed" && $3 == "x" { print $5 }' "$TMP/out")" "$(awk '$1 == "local" && $2 == "x" { print $4 }' "$TMP/out")"
check "shuffle --steps 20: more than one round costs more than one" 'v1 > v2' \
    "$(awk '$1 == "pld" { print $2 }' "$TMP/out")" "$num_shuffle"
expect_ok "shuffled rounds: the default accountant is pld" '^method +pld$' \
    epsilon $SHUF --steps 20 --delta 1e-6
# the rounds as an event: read into the same flags, the same table
run shuffle --epsilon0 1 --users 10000 --delta 1e-6 --steps 20
flags_pld=$(awk '$1 == "pld" { print $2 }' "$TMP/out")
run shuffle --mechanism 'self_composed(count=20, shuffled(eps0=1, n=10000))' --delta 1e-6
check "shuffle with an event: the pld row of --steps 20 ($flags_pld)" 'v1 == v2' \
    "$(awk '$1 == "pld" { print $2 }' "$TMP/out")" "$flags_pld"
expect_usage "shuffle with another event" "'shuffle' takes shuffled(...)" \
    shuffle --mechanism 'gaussian(sigma=1)' --delta 1e-6
expect_usage "shuffle with an event and --users" "--users" \
    shuffle --mechanism 'shuffled(eps0=1, n=10000)' --users 5 --delta 1e-6
expect_usage "shuffle with a mechanism name" "'shuffle' takes an event" shuffle --mechanism shuffled --delta 1e-6
run shuffle --epsilon0 1 --users 10000 --delta 1e-6 --randomizer rr
check "shuffle --randomizer rr: the stronger clones give a smaller eps" 'v1 < v2' \
    "$(awk '$1 == "shuffle" { print $2 }' "$TMP/out")" "$num_shuffle"
run shuffle --epsilon0 1 --users 10000 --delta 1e-6 --delta0 1e-13
check "shuffle --delta0 1e-13: a little above the pure randomizers' bound" 'v1 > v2 && v1 < 1.1 * v2' \
    "$(awk '$1 == "shuffle" { print $2 }' "$TMP/out")" "$num_shuffle"
expect_ok "shuffle --delta0 too large for delta: no finite bound" '^shuffle +inf ' \
    shuffle --epsilon0 1 --users 10000 --delta 1e-6 --delta0 1e-9
expect_ok "shuffle --sigma: shuffling wins at n = 550, f = 9.95 (DP-GLMtron)" '^used: shuffled' \
    shuffle --sigma 9.95 --users 550 --delta 9.67e-4
expect_ok "shuffle --sigma: the plain Gaussian wins at n = 2" '^used: plain' shuffle --sigma 3 --users 2 --delta 1e-5
expect_usage "shuffle --sigma: epsilon at --delta only" "--epsilon" shuffle --sigma 3 --users 100 --epsilon 1
# counts in exponent notation when they are whole numbers ("T = 1e4" as papers write it)
expect_ok "--steps 1e4 is 10000" 'count=10000,' epsilon --accountant rdp --sampling-rate 0.01 --sigma 1 --steps 1e4 --delta 1e-5
expect_ok "--steps 2.5e3 is 2500" 'count=2500,' epsilon --accountant rdp --sampling-rate 0.01 --sigma 1 --steps 2.5e3 --delta 1e-5
expect_usage "--steps 1.5 is no whole number" "--steps" epsilon --sampling-rate 0.01 --sigma 1 --steps 1.5 --delta 1e-5
expect_usage "--steps 1e-2 is no whole number" "--steps" epsilon --sampling-rate 0.01 --sigma 1 --steps 1e-2 --delta 1e-5
expect_usage "--steps 1e30 is too many" "--steps" epsilon --sampling-rate 0.01 --sigma 1 --steps 1e30 --delta 1e-5
expect_usage "shuffle --sigma: one round" "--steps" shuffle --sigma 3 --users 100 --delta 1e-5 --steps 2
expect_usage "--randomizer only with shuffled" "--randomizer" epsilon --sigma 1 --randomizer rr --delta 1e-6
expect_usage "--randomizer rr is for pure randomizers" "--delta0" \
    shuffle --epsilon0 1 --users 100 --delta 1e-6 --randomizer rr --delta0 1e-9
expect_usage "--delta0 below 1" "--delta0" shuffle --epsilon0 1 --users 100 --delta 1e-6 --delta0 1
expect_usage "--randomizer: any or rr" "--randomizer" shuffle --epsilon0 1 --users 100 --delta 1e-6 --randomizer x

# ---- --mechanism noisy-cgd (hidden state) ---------------------------------------
# ../shared/notes/noisycgd-seed-001.md 2.6: k = 60, E = 400, eta lambda = 1e-4,
# multiplier 15 in the note's units (2/15 per batch gradient, i.e. 7.5 here):
# eps 1.196 at delta 1e-5; one epoch: mu = 2/15, eps 0.4661.
CGD="--mechanism noisy-cgd --batches 60 --step-size 1e-3 --strong-convexity 0.1"
run epsilon $CGD --sigma 7.5 --epochs 400 --delta 1e-5
check "noisy-cgd: the note's eps 1.196 (eta lambda 1e-4, E 400)" 'v1 >= 1.1955 && v1 < 1.1965' "$(field upper)"
run epsilon $CGD --sigma 7.5 --epochs 1 --delta 1e-5
check "noisy-cgd: one epoch is the Gaussian, eps 0.4661" 'v1 >= 0.46605 && v1 < 0.46615' "$(field upper)"
expect_ok "noisy-cgd: flags its lower bound as the GDP bound's" 'lower bound of the dominating pair' \
    epsilon $CGD --sigma 7.5 --epochs 400 --delta 1e-5
expect_ok "noisy-cgd: compare shows the composition of the same steps" '^composition +14\.33' \
    compare $CGD --sigma 7.5 --epochs 400 --delta 1e-5
run calibrate $CGD --epochs 400 --delta 1e-5 --epsilon 1.196307
check "noisy-cgd: calibrate finds the multiplier back (7.5)" 'v1 >= 7.4999 && v1 <= 7.5001' \
    "$(awk '$1 == "noise" && $2 == "multiplier" { print $3; exit }' "$TMP/out")"
# the note's calibrated eta lambda (E = 400, k = 60, eta = 1e-3): 5.61e-5 for
# eps 1.33 and 5.76e-5 for 1.3257 (multiplier 15 there, 7.5 here), 3.76e-5
# for eps 4.76 (multiplier 5 there, 2.5 here); three digits
for spec in "7.5 1.33 0.0561" "7.5 1.3257 0.0576" "2.5 4.76 0.0376"; do
    set -- $spec
    run calibrate --mechanism noisy-cgd --solve strong-convexity --sigma "$1" --batches 60 --epochs 400 \
        --step-size 1e-3 --epsilon "$2" --delta 1e-5
    check "noisy-cgd: calibrated strong convexity for eps $2 is the note's $3" \
        'v1 >= v2 * 0.99911 && v1 <= v2 * 1.00089' \
        "$(awk '$1 == "strong" && $2 == "convexity" { print $3; exit }' "$TMP/out")" "$3"
done
expect_usage "--solve strong-convexity with --strong-convexity" "--strong-convexity" calibrate $CGD --sigma 1 \
    --epochs 2 --solve strong-convexity --epsilon 1 --delta 1e-5
expect_usage "--solve strong-convexity needs noisy-cgd" "--solve" calibrate --sigma 1 --solve strong-convexity \
    --epsilon 1 --delta 1e-5
expect_usage "noisy-cgd needs --batches" "--batches" epsilon --mechanism noisy-cgd --sigma 1 --epochs 2 \
    --step-size 0.1 --strong-convexity 1 --delta 1e-5
expect_usage "noisy-cgd: step size must contract" "--step-size" epsilon $CGD --sigma 1 --epochs 2 \
    --smoothness 3000 --delta 1e-5
expect_usage "noisy-cgd: smoothness below strong convexity" "--smoothness" epsilon $CGD --sigma 1 --epochs 2 \
    --smoothness 0.01 --delta 1e-5
expect_usage "noisy-cgd: whole epochs" "--epochs" epsilon $CGD --sigma 1 --epochs 2.5 --delta 1e-5
expect_usage "noisy-cgd: no Poisson sampling" "--sampling-rate" epsilon $CGD --sigma 1 --epochs 2 \
    --sampling-rate 0.1 --delta 1e-5
expect_usage "noisy-cgd: no --steps" "--steps" epsilon $CGD --sigma 1 --epochs 2 --steps 3 --delta 1e-5
expect_usage "noisy-cgd: --solve steps refused" "--solve" calibrate $CGD --sigma 1 --epochs 2 --solve steps \
    --epsilon 1 --delta 1e-5
expect_usage "--batches only with noisy-cgd" "--batches" epsilon --sigma 1 --batches 3 --delta 1e-5
expect_usage "--mechanism: unknown kind" "--mechanism" epsilon --sigma 1 --mechanism laplace --delta 1e-5
expect_error "replace-one with sampled gdp is unsupported (exit 1)" 1 "gdp" \
    epsilon --sigma 1 --delta 1e-5 --sampling-rate 0.01 --relation replace-one --accountant gdp
expect_error "an accountant that cannot handle the mechanism exits 1" 1 "gaussian" \
    epsilon --sigma 1 --delta 1e-5 --sampling-rate 0.01 --accountant gaussian
for name in $ACCOUNTANTS; do
    if [ "$name" = shuffle ]; then    # accounts for shuffled randomizers only
        expect_ok "--accountant $name" "^method +$name\$" epsilon --mechanism shuffled --epsilon0 1 --users 100 \
            --relation replace-one --delta 1e-5 --accountant "$name"
    elif [ "$name" = batches ]; then  # shuffled fixed-size batches only
        expect_ok "--accountant $name" "^method +$name\$" epsilon --sigma 1 --dataset-size 1000 --batch-size 10 \
            --epochs 2 --sampling shuffle --delta 1e-5 --accountant "$name"
    elif [ "$name" = mc ]; then       # balls-in-bins only (an estimate)
        expect_ok "--accountant $name" "^method +$name\$" epsilon --sigma 1 --dataset-size 1000 --batch-size 100 \
            --epochs 2 --sampling balls-in-bins --delta 1e-5 --accountant "$name"
    elif [ "$name" = tuning ]; then   # and for tuned runs only
        expect_ok "--accountant $name" "^method +$name\$" epsilon --sigma 1 --tuning-runs 5 --delta 1e-5 \
            --accountant "$name"
    else
        expect_ok "--accountant $name" "^method +$name\$" epsilon --sigma 1 --delta 1e-5 --accountant "$name"
    fi
done

# ---- --sampling shuffle: shuffled fixed-size batches (accountants/batches.c) ----
# The README's MNIST run shuffled: the bracket [Chua et al.'s lower bound,
# the Gaussian once an epoch] and the Poisson value often reported.  The
# upper is the Gaussian with mu = sqrt(60)/1.1 (54.04581807 by scipy, as in
# tests/ref/shuffle_lower.py); the lower lies in the sliced pair's bracket
# [10.853325613, 10.865325613] less the lattice drift (test_batches.c); the
# Poisson value is the README's 2.382049069.
expect_ok "shuffle: batches bracket" '^batches +54\.0458180[78] +10\.85[3-9]' \
    compare --dataset-size 60000 --batch-size 256 --sigma 1.1 --epochs 60 --delta 1e-5 --sampling shuffle
expect_ok "shuffle: the Poisson value beside it" '^poisson \(as if\) +2\.382049069 .*approximate' \
    compare --dataset-size 60000 --batch-size 256 --sigma 1.1 --epochs 60 --delta 1e-5 --sampling shuffle
expect_ok "shuffle: other accountants flag the pair's lower bound" '^pld +54\.0458180[78] .*dominating pair' \
    compare --dataset-size 60000 --batch-size 256 --sigma 1.1 --epochs 60 --delta 1e-5 --sampling shuffle
expect_ok "shuffle: the event it accounts" 'self_composed\(count=60, shuffled_batches\(n=60000, m=256, gaussian\(sigma=1\.1\)\)\)' \
    compare --dataset-size 60000 --batch-size 256 --sigma 1.1 --epochs 60 --delta 1e-5 --sampling shuffle
expect_ok "shuffle: default accountant is batches" '^method +batches$' \
    epsilon --dataset-size 60000 --batch-size 256 --sigma 1.1 --epochs 60 --delta 1e-5 --sampling shuffle
# no amplification: sigma = sqrt(60)/mu with mu = 1.666030598 at (8, 1e-5), 4.649354401 (scipy brentq); the
# search's answer is within its 1e-4 relative bracket above that
expect_ok "shuffle: calibrate sigma (no amplification: sigma = sqrt(E)/mu)" '^noise multiplier +4\.649(3[5-9]|4)' \
    calibrate --dataset-size 60000 --batch-size 256 --epochs 60 --epsilon 8 --delta 1e-5 --sampling shuffle
# --sampling balls-in-bins: ceil(N/B) = 235 steps an epoch, random allocation by pld (default) and rdp, the
# Poisson value beside it
expect_ok "balls-in-bins: default accountant is pld" '^method +pld$' \
    epsilon --dataset-size 60000 --batch-size 256 --sigma 1.1 --epochs 60 --delta 1e-5 --sampling balls-in-bins
run compare --dataset-size 60000 --batch-size 256 --sigma 1.1 --epochs 60 --delta 1e-5 --sampling balls-in-bins \
    --format csv
check "balls-in-bins: pld's decomposition below rdp's bound, above the mc estimate" 'v1 < v2 && v1 > v3' \
    "$(awk -F, '$1 == "pld" { print $5 }' "$TMP/out")" "$(awk -F, '$1 == "rdp" { print $5 }' "$TMP/out")" \
    "$(awk -F, '$1 == "mc" { print $5 }' "$TMP/out")"
expect_ok "balls-in-bins: the event it accounts" \
    'self_composed\(count=60, random_allocation\(steps=235, selected=1, gaussian\(sigma=1\.1\)\)\)' \
    compare --dataset-size 60000 --batch-size 256 --sigma 1.1 --epochs 60 --delta 1e-5 --sampling balls-in-bins
expect_ok "balls-in-bins: the Poisson value beside it" '^poisson \(as if\) +2\.382049069 .*approximate' \
    compare --dataset-size 60000 --batch-size 256 --sigma 1.1 --epochs 60 --delta 1e-5 --sampling balls-in-bins
# the mc row: a Monte-Carlo estimate near the Poisson value (Chua et al., ICML 2025), flagged approximate
run compare --dataset-size 60000 --batch-size 256 --sigma 1.1 --epochs 60 --delta 1e-5 --sampling balls-in-bins \
    --format csv
check "balls-in-bins: the mc estimate lies between 1 and 10, flagged approximate" 'v1 > 1 && v1 < 10 && v2 == "true"' \
    "$(awk -F, '$1 == "mc" { print $5 }' "$TMP/out")" "$(awk -F, '$1 == "mc" { print $10 }' "$TMP/out")"
# --sampling allocation --selected K: ceil(K N/B) steps an epoch, each record in K; the same event as its text
expect_ok "allocation: the event it accounts, by pld" \
    'self_composed\(count=60, random_allocation\(steps=469, selected=2, gaussian\(sigma=1\.1\)\)\)' \
    epsilon --dataset-size 60000 --batch-size 256 --sigma 1.1 --epochs 60 --delta 1e-5 --sampling allocation --selected 2
alloc_up=$(field upper)
expect_ok "allocation: an event text of random allocation is pld's by default" '^method +pld$' epsilon --delta 1e-5 \
    --mechanism 'self_composed(count=60, random_allocation(steps=469, selected=2, gaussian(sigma=1.1)))'
check "allocation: --sampling allocation is the event" "v1 == v2" "$alloc_up" "$(field upper)"
# the Poisson value beside it: as many expected uses of a record (K = 2 an epoch, 120 in all), q = B/N: the
# same as 120 epochs of Poisson sampling
run compare --dataset-size 60000 --batch-size 256 --sigma 1.1 --epochs 60 --delta 1e-5 --sampling allocation \
    --selected 2 --format csv
as_if=$(awk -F, '$1 == "poisson (as if)" { print $5 }' "$TMP/out")
expect_ok "allocation: 120 epochs of Poisson sampling" '^upper +[0-9]' epsilon --dataset-size 60000 --batch-size 256 \
    --sigma 1.1 --epochs 120 --delta 1e-5 --accountant pld
check "allocation: the Poisson value counts K uses an epoch" "v1 == v2" "$as_if" "$(field upper)"
expect_usage "allocation: needs --selected" "--selected K" epsilon --sigma 1 --dataset-size 100 --batch-size 10 \
    --epochs 2 --delta 1e-5 --sampling allocation
expect_usage "--selected: with allocation only" "--sampling allocation only" epsilon --sigma 1 --dataset-size 100 \
    --batch-size 10 --epochs 2 --delta 1e-5 --sampling balls-in-bins --selected 2
expect_usage "allocation: add/remove only" "add/remove" epsilon --sigma 1 --dataset-size 100 --batch-size 10 \
    --epochs 2 --delta 1e-5 --sampling allocation --selected 2 --relation replace-one
expect_usage "balls-in-bins: add/remove only" "add/remove" epsilon --sigma 1 --dataset-size 100 --batch-size 10 \
    --epochs 2 --delta 1e-5 --sampling balls-in-bins --relation replace-one
expect_usage "shuffle: needs a batch size" "--sampling" epsilon --sigma 1 --epochs 2 --delta 1e-5 --sampling shuffle
expect_usage "shuffle: whole epochs" "--epochs" \
    epsilon --sigma 1 --dataset-size 100 --batch-size 10 --epochs 1.5 --delta 1e-5 --sampling shuffle
expect_usage "shuffle: no --steps" "--steps" \
    epsilon --sigma 1 --dataset-size 100 --batch-size 10 --steps 10 --delta 1e-5 --sampling shuffle
expect_usage "shuffle: not with --solve batch-size" "--solve" \
    calibrate --dataset-size 100 --batch-size 10 --epochs 2 --epsilon 1 --delta 1e-5 --sampling shuffle \
    --solve batch-size

# ---- --format ----------------------------------------------------------------

expect_ok "--format table" '^upper ' epsilon --sigma 1 --delta 1e-5 --format table
expect_ok "--format json has results" '"results"' epsilon --sigma 1 --delta 1e-5 --format json
if is_json "$TMP/out"; then pass "--format json is valid JSON"; else fail "--format json is valid JSON"; fi
for key in '"mechanism"' '"delta"' '"method"' '"supported"' '"reason"' '"epsilon_upper"' \
    '"epsilon_lower"' '"estimate"' '"flags"' '"approximate"' '"time_ms"'; do
    if grep -qF "$key" "$TMP/out"; then pass "json has $key"; else fail "json has $key"; fi
done
check "json epsilon_upper >= reference" "v1 >= v2" \
    "$(sed -n 's/.*"epsilon_upper": \([0-9.e+-]*\).*/\1/p' "$TMP/out")" "$EPS_MU1"
expect_ok "--format csv has a header with commas" '^method,.*,.*,' \
    epsilon --sigma 1 --delta 1e-5 --format csv
check "csv has a header and one row" "v1 == 2" "$(awk 'END { print NR }' "$TMP/out")"
check "csv rows have as many fields as the header" "v1 == 1" \
    "$(awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { print (NR >= 2 && !bad) ? 1 : 0 }' "$TMP/out")"
expect_ok "delta --format json has results" '"results"' delta --sigma 1 --epsilon 1 --format json
if is_json "$TMP/out"; then pass "delta json is valid JSON"; else fail "delta json is valid JSON"; fi

# ---- calibrate ---------------------------------------------------------------

# upper ARGS...: the certified upper epsilon 'dpacct epsilon ARGS' prints
# (empty on failure): the accountant queried afresh at a calibrated value.
upper() {
    "$DPACCT" epsilon "$@" 2>/dev/null | awk '$1 == "upper" { print $2; exit }'
}

# col NAME: field NAME of the one-row CSV on stdout.
col() {
    awk -F, -v k="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i; next }
        NR == 2 && c { print $c; exit }' "$TMP/out"
}

expect_ok "calibrate finds a noise multiplier" '^noise multiplier +[0-9]' \
    calibrate --epsilon 1 --delta 1e-5 --accountant gaussian
# the default tolerance, 1e-4: the sigma found is at most 1e-4 above the
# exact boundary, and sigma (1 - 2e-4) fails the target
SIG=$(awk '/^noise multiplier/ { print $3 }' "$TMP/out")
check "calibrated sigma meets the target and is within 1e-4 (the default) of $SIGMA_EPS1" \
    "v1 >= v2 && v1 <= v2 * (1 + 1e-4)" "$SIG" "$SIGMA_EPS1"
check "the default tolerance is 1e-4" 'v1 == "0.0001"' "$(awk '$1 == "tolerance" { print $2 }' "$TMP/out")"
check "gaussian: eps at sigma <= 1, at sigma (1 - 2e-4) > 1" "v1 <= 1 && v2 > 1" \
    "$(upper --sigma "$SIG" --delta 1e-5 --accountant gaussian)" \
    "$(upper --sigma "$(awk -v s="$SIG" 'BEGIN { printf "%.10g", s * (1 - 2e-4) }')" --delta 1e-5 --accountant gaussian)"
# the failing value printed is within the tolerance and fails (10 digits
# printed: rounded down, so at most 1e-9 more apart)
FAILS=$(awk '/^fails at/ { print $3 }' "$TMP/out")
check "the failing sigma is within 1e-4 below the one found, and fails" "v2 < v1 && v1 - v2 <= (1e-4 + 1e-9) * v2 && v3 > 1" \
    "$SIG" "$FAILS" "$(upper --sigma "$FAILS" --delta 1e-5 --accountant gaussian)"
check "calibrate reports its evaluations" "v1 > 0" "$(field evaluations)"
if grep -q '^tolerance ' "$TMP/out" && grep -q '^fails at ' "$TMP/out" && grep -Eq '^range searched +\[1e-06, 1000000000\]$' "$TMP/out"
then
    pass "calibrate reports the failing value, the range and the tolerance"
else
    fail "calibrate reports the failing value, the range and the tolerance"
fi
expect_ok "calibrate --tolerance 1e-9" '^noise multiplier' \
    calibrate --epsilon 1 --delta 1e-5 --accountant gaussian --tolerance 1e-9
check "--tolerance 1e-9: sigma within 2e-9 of $SIGMA_EPS1 (10 digits printed)" "v1 >= v2 && v1 <= v2 * (1 + 2e-9)" \
    "$(awk '/^noise multiplier/ { print $3 }' "$TMP/out")" "$SIGMA_EPS1"
expect_ok "calibrate --solve sigma explicitly" '^noise multiplier' \
    calibrate --solve sigma --epsilon 1 --delta 1e-5 --steps 10
expect_ok "calibrate --solve steps finds 28 steps for sigma 20" '^steps +28 ' \
    calibrate --solve steps --sigma 20 --epsilon 1 --delta 1e-5
expect_ok "calibrate --format json" '"value"' calibrate --epsilon 1 --delta 1e-5 --format json
if is_json "$TMP/out"; then pass "calibrate json is valid JSON"; else fail "calibrate json is valid JSON"; fi
for key in '"steps"' '"sampling_rate"' '"range"' '"converged": true' '"guide"' '"guide_evaluations"'; do
    if grep -qF "$key" "$TMP/out"; then pass "calibrate json has $key"; else fail "calibrate json has $key"; fi
done
expect_ok "calibrate --format csv" '^method,solve,' calibrate --epsilon 1 --delta 1e-5 --format csv
check "calibrate csv rows have as many fields as the header" "v1 == 1" \
    "$(awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { print (NR == 2 && !bad) ? 1 : 0 }' "$TMP/out")"

# pld, started from rdp's answer: the boundary pinned by pld queried afresh
# (sigma meets, sigma (1 - 2e-4) does not), in a few runs of pld (a count)
SGD="--sampling-rate 0.01 --steps 1000 --delta 1e-5"
# shellcheck disable=SC2086
expect_ok "calibrate pld (q 0.01, T 1000, eps 3)" '^pld,sigma,' calibrate --accountant pld $SGD --epsilon 3 --format csv
SIG=$(col value)
# shellcheck disable=SC2086
check "pld: eps at sigma <= 3, at sigma (1 - 2e-4) > 3" "v1 <= 3 && v2 > 3" \
    "$(upper --accountant pld $SGD --sigma "$SIG")" \
    "$(upper --accountant pld $SGD --sigma "$(awk -v s="$SIG" 'BEGIN { printf "%.10g", s * (1 - 2e-4) }')")"
check "pld: the failing sigma is within 1e-4 and fails" "v2 < v1 && v1 - v2 <= (1e-4 + 1e-9) * v2 && v3 > 3" \
    "$SIG" "$(col fails)" "$(upper --accountant pld $SGD --sigma "$(col fails)")"
check "pld: at most 6 runs of pld, started by rdp" 'v1 <= 6 && v2 == "rdp" && v3 > 0' \
    "$(col evaluations)" "$(col guide)" "$(col guide_evaluations)"

# Issue 20 (item 4): DP-SGD at the issue's scale (q 0.004, T 1e4), eps 8.  The
# value meets at pld's default accuracy and value (1 - 2e-4) does not; at
# value (1 - 1.5e-3) pld's LOWER bound at --eps-error 1e-5 is above 8, so the
# value is within the tolerance plus the method's accuracy (1e-3 of eps, at
# most 1e-3 of sigma here) of the smallest sigma that meets the target at all.
lower() {
    "$DPACCT" epsilon "$@" 2>/dev/null | awk '$1 == "lower" { print $2; exit }'
}
ISSUE="--sampling-rate 0.004 --steps 10000 --delta 1e-5"
# shellcheck disable=SC2086
expect_ok "calibrate pld at q 0.004, T 1e4, eps 8" '^pld,sigma,' calibrate --accountant pld $ISSUE --epsilon 8 \
    --format csv
SIG=$(col value)
# shellcheck disable=SC2086
check "pld (issue scale): eps at sigma <= 8, at sigma (1 - 2e-4) > 8" "v1 <= 8 && v2 > 8" \
    "$(upper --accountant pld $ISSUE --sigma "$SIG")" \
    "$(upper --accountant pld $ISSUE --sigma "$(awk -v s="$SIG" 'BEGIN { printf "%.10g", s * (1 - 2e-4) }')")"
# shellcheck disable=SC2086
check "pld (issue scale): the lower bound at sigma (1 - 1.5e-3) is above 8" "v1 > 8" \
    "$(lower --accountant pld $ISSUE --eps-error 1e-5 \
        --sigma "$(awk -v s="$SIG" 'BEGIN { printf "%.10g", s * (1 - 1.5e-3) }')")"
check "pld (issue scale): at most 6 runs of pld" 'v1 <= 6 && v2 > 0' "$(col evaluations)" "$(col guide_evaluations)"
# out of reach: sigma <= 50 gives eps 0.0212 at best, said in one line
# shellcheck disable=SC2086
expect_error "calibrate pld: an unreachable target names the best reachable epsilon" 1 \
    "at sigma = 50 (the largest searched) the certified epsilon is 0.0212" \
    calibrate --accountant pld $ISSUE --epsilon 0.01 --sigma-max 50

# --solve steps with pld: T meets, T + 1 does not
expect_ok "calibrate --solve steps (pld)" '^pld,steps,' calibrate --solve steps --accountant pld --sigma 1 \
    --sampling-rate 0.01 --delta 1e-5 --epsilon 2 --format csv
T=$(col value)
check "pld steps: eps at T <= 2, at T + 1 > 2" "v1 <= 2 && v2 > 2" \
    "$(upper --accountant pld --sigma 1 --sampling-rate 0.01 --delta 1e-5 --steps "$T")" \
    "$(upper --accountant pld --sigma 1 --sampling-rate 0.01 --delta 1e-5 --steps $((T + 1)))"
check "pld steps: fails at T + 1, tolerance 1 absolute" 'v1 == v2 + 1 && v3 == 1 && v4 == "absolute"' \
    "$(col fails)" "$T" "$(col tolerance)" "$(col tolerance_type)"

# --solve epochs: E meets, E + 1 does not, and T = ceil(E / q) = 250 E
expect_ok "calibrate --solve epochs" '^epochs +[0-9]+ \(the largest' calibrate --solve epochs --sigma 1 \
    --sampling-rate 0.004 --epsilon 3 --delta 1e-5
E=$(field epochs)
check "epochs: the steps are 250 per epoch" "v1 == v2 * 250" "$(field steps)" "$E"
check "epochs: eps at E <= 3, at E + 1 > 3 (rdp)" "v1 <= 3 && v2 > 3" \
    "$(upper --accountant rdp --sigma 1 --sampling-rate 0.004 --delta 1e-5 --epochs "$E")" \
    "$(upper --accountant rdp --sigma 1 --sampling-rate 0.004 --delta 1e-5 --epochs $((E + 1)))"
expect_ok "calibrate --solve epochs without sampling is --solve steps (28 for sigma 20)" '^epochs +28 ' \
    calibrate --solve epochs --sigma 20 --epsilon 1 --delta 1e-5
expect_ok "calibrate --solve epochs --format json" '"solve": "epochs"' calibrate --solve epochs --sigma 1 \
    --sampling-rate 0.004 --epsilon 3 --delta 1e-5 --format json
if is_json "$TMP/out"; then pass "calibrate epochs json is valid JSON"; else fail "calibrate epochs json is valid JSON"; fi
check "epochs json: steps = 250 value" "v1 == v2 * 250" \
    "$(sed -n 's/^  "steps": \([0-9]*\),$/\1/p' "$TMP/out")" "$(sed -n 's/^  "value": \([0-9]*\),$/\1/p' "$TMP/out")"

# --solve batch-size: B meets, B + 1 does not; q = B/N
expect_ok "calibrate --solve batch-size" '^rdp,batch-size,' calibrate --solve batch-size --sigma 1 \
    --dataset-size 60000 --steps 10000 --epsilon 3 --delta 1e-5 --format csv
B=$(col value)
check "batch-size: sampling rate B/60000" "v1 * 60000 > v2 - 1e-6 && v1 * 60000 < v2 + 1e-6" "$(col sampling_rate)" "$B"
check "batch-size: eps at B <= 3, at B + 1 > 3 (rdp)" "v1 <= 3 && v2 > 3" \
    "$(upper --accountant rdp --sigma 1 --steps 10000 --delta 1e-5 --dataset-size 60000 --batch-size "$B")" \
    "$(upper --accountant rdp --sigma 1 --steps 10000 --delta 1e-5 --dataset-size 60000 --batch-size $((B + 1)))"
# sigma 20, 28 steps meet eps 1 even unsampled (floor((20/3.7306)^2) = 28):
# the whole dataset, and nothing fails (pld: rdp is not tight enough there)
expect_ok "calibrate --solve batch-size: the whole dataset meets" '^batch size +100 ' calibrate --solve batch-size \
    --sigma 20 --steps 28 --dataset-size 100 --epsilon 1 --delta 1e-5 --accountant pld
if grep -Eq '^fails at +none' "$TMP/out"; then pass "batch-size: nothing fails"; else fail "batch-size: nothing fails"; fi
expect_ok "calibrate --solve batch-size without replacement" '^batch size +[0-9]' calibrate --solve batch-size \
    --sampling without-replacement --relation replace-one --sigma 1 --dataset-size 60000 --steps 1000 \
    --epsilon 1 --delta 1e-5
B=$(awk '/^batch size/ { print $3 }' "$TMP/out")
check "batch-size without replacement: eps at B <= 1, at B + 1 > 1 (rdp)" "v1 <= 1 && v2 > 1" \
    "$(upper --accountant rdp --sigma 1 --steps 1000 --delta 1e-5 --relation replace-one \
        --sampling without-replacement --dataset-size 60000 --batch-size "$B")" \
    "$(upper --accountant rdp --sigma 1 --steps 1000 --delta 1e-5 --relation replace-one \
        --sampling without-replacement --dataset-size 60000 --batch-size $((B + 1)))"

# --solve sampling-rate: q meets, q (1 + 2e-4) does not
expect_ok "calibrate --solve sampling-rate" '^rdp,sampling-rate,' calibrate --solve sampling-rate --sigma 1 \
    --steps 10000 --epsilon 3 --delta 1e-5 --format csv
Q=$(col value)
check "sampling-rate: eps at q <= 3, at q (1 + 2e-4) > 3 (rdp)" "v1 <= 3 && v2 > 3" \
    "$(upper --accountant rdp --sigma 1 --steps 10000 --delta 1e-5 --sampling-rate "$Q")" \
    "$(upper --accountant rdp --sigma 1 --steps 10000 --delta 1e-5 \
        --sampling-rate "$(awk -v q="$Q" 'BEGIN { printf "%.10g", q * (1 + 2e-4) }')")"
check "sampling-rate: the failing rate is within 1e-4 above and fails" \
    "v2 > v1 && v2 - v1 <= (1e-4 + 1e-9) * v1 && v3 > 3" "$Q" "$(col fails)" \
    "$(upper --accountant rdp --sigma 1 --steps 10000 --delta 1e-5 --sampling-rate "$(col fails)")"
check "sampling-rate: relative tolerance 1e-4" 'v1 == "0.0001" && v2 == "relative"' "$(col tolerance)" \
    "$(col tolerance_type)"
expect_ok "calibrate --solve sampling-rate: q = 1 meets" '^sampling rate +1 ' calibrate --solve sampling-rate \
    --sigma 20 --steps 28 --epsilon 1 --delta 1e-5 --accountant pld

# a target out of reach: one line, status 1, the end of the range and its epsilon
expect_error "calibrate: an unreachable target is an error (rdp, sigma at most 10)" 1 \
    "at sigma = 10 (the largest searched) the certified epsilon is 0.14" \
    calibrate --accountant rdp --sampling-rate 0.004 --steps 10000 --epsilon 0.1 --delta 1e-5 --sigma-max 10
expect_error "calibrate: --sigma-max bounds the search" 1 \
    "for sigma in [1e-06, 100]: at sigma = 100 (the largest searched) the certified epsilon is" \
    calibrate --accountant gaussian --epsilon 0.01 --delta 1e-5 --sigma-max 100
expect_ok "calibrate: --sigma-min bounds the search" '^fails at +none' \
    calibrate --accountant gaussian --epsilon 1 --delta 1e-5 --sigma-min 5
check "--sigma-min: the range's edge is the answer" 'v1 == 5' "$(awk '/^noise multiplier/ { print $3 }' "$TMP/out")"
expect_error "calibrate --solve steps: even one step exceeds" 1 \
    "at steps = 1 (the smallest searched) the certified epsilon is" \
    calibrate --solve steps --sigma 0.5 --epsilon 0.5 --delta 1e-5
expect_error "calibrate --solve epochs: even one epoch exceeds" 1 "at epochs = 1 (the smallest searched)" \
    calibrate --solve epochs --sigma 0.5 --sampling-rate 0.01 --epsilon 0.1 --delta 1e-5
expect_error "calibrate --solve batch-size: even one example exceeds" 1 "at batch-size = 1 (the smallest searched)" \
    calibrate --solve batch-size --sigma 0.5 --dataset-size 100 --steps 100000 --epsilon 0.5 --delta 1e-5
expect_error "calibrate --solve sampling-rate: even q = 1e-9 exceeds" 1 \
    "at sampling-rate = 1e-09 (the smallest searched)" \
    calibrate --solve sampling-rate --sigma 0.5 --steps 100000 --epsilon 0.01 --delta 1e-30

# ---- compare: the DP-SGD example ----------------------------------------------

expect_ok "compare DP-SGD example exits 0" '^mechanism: ' \
    compare --sigma 1.1 --batch-size 256 --dataset-size 60000 --epochs 60 --delta 1e-5
for name in $ACCOUNTANTS gaussian gdp zcdp; do
    if awk -v m="$name" '$1 == m { found = 1 } /^not for this mechanism:/ && index($0, " " m) { found = 1 }
        END { exit !found }' "$TMP/out"; then
        pass "compare lists $name"
    else
        fail "compare lists $name"
    fi
done
if awk '$1 == "gdp" && /approximate/ { found = 1 } END { exit !found }' "$TMP/out"; then
    pass "compare marks gdp approximate"
else
    fail "compare marks gdp approximate"
fi
for name in gaussian zcdp; do
    if awk -v m="$name" '/^not for this mechanism:/ && (index($0, " " m ",") || index($0, " " m " (")) { found = 1 }
        $1 == m { row = 1 } END { exit !(found && !row) }' "$TMP/out"; then
        pass "compare names $name unsupported in one line, not as a row"
    else
        fail "compare names $name unsupported in one line, not as a row"
    fi
done
if grep -q 'not privacy guarantees' "$TMP/out"; then
    pass "compare prints the approximation footnote"
else
    fail "compare prints the approximation footnote"
fi
check "compare gdp (CLT) epsilon matches the reference $EPS_DPSGD_CLT" \
    "v1 >= v2 && v1 - v2 < 1e-6" "$(awk '$1 == "gdp" { print $2 }' "$TMP/out")" "$EPS_DPSGD_CLT"
expect_ok "compare --format json" '"results"' \
    compare --sigma 1.1 --batch-size 256 --dataset-size 60000 --epochs 60 --delta 1e-5 --format json
if is_json "$TMP/out"; then pass "compare json is valid JSON"; else fail "compare json is valid JSON"; fi
if grep -q '"approximate": true' "$TMP/out" && grep -q '"supported": false' "$TMP/out"; then
    pass "compare json marks approximate and unsupported rows"
else
    fail "compare json marks approximate and unsupported rows"
fi
expect_ok "compare --format csv" '^method,supported,' \
    compare --sigma 1.1 --batch-size 256 --dataset-size 60000 --epochs 60 --delta 1e-5 --format csv
check "compare csv has one row per accountant" "v1 == v2 + 1" \
    "$(awk 'END { print NR }' "$TMP/out")" "$(echo "$ACCOUNTANTS" | awk 'END { print NR }')"
expect_ok "compare --epsilon compares delta" '^method +delta upper' \
    compare --sigma 1 --steps 10 --epsilon 1
expect_ok "compare --relation replace-one" 'replace-one' \
    compare --sigma 1 --delta 1e-5 --relation replace-one

# ---- invalid values of each numeric flag -----------------------------------

# bad_values FLAG "SUBCOMMAND AND OTHER ARGS" VALUE...: each value is refused.
bad_values() {
    flag=$1
    base=$2
    shift 2
    for v in "$@"; do
        # $base is split on purpose: it holds only plain words
        # shellcheck disable=SC2086
        expect_usage "$flag '$v' is refused" "$flag" $base "$flag" "$v"
    done
    # shellcheck disable=SC2086
    expect_usage "$flag without a value is refused" "$flag" $base "$flag"
    # shellcheck disable=SC2086
    expect_usage "$flag= (empty) is refused" "$flag" $base "$flag="
}

COMMON_BAD="nan NaN inf -inf infinity -1 abc 1.5x 1e999 0x"
# shellcheck disable=SC2086
bad_values --sigma "epsilon --delta 1e-5" $COMMON_BAD 0 "" " 1" "1 "
# shellcheck disable=SC2086
bad_values --sampling-rate "epsilon --sigma 1 --delta 1e-5" $COMMON_BAD 0 1.5 1.0000001
# shellcheck disable=SC2086
bad_values --epochs "epsilon --sigma 1 --delta 1e-5" $COMMON_BAD 0
# shellcheck disable=SC2086
bad_values --delta "epsilon --sigma 1" $COMMON_BAD 0 1 1.5
# shellcheck disable=SC2086
bad_values --epsilon "delta --sigma 1" $COMMON_BAD
COUNT_BAD="-1 0 abc 1.5 1e-3 1.25e1 1e 10x +5 0x10 99999999999999999999 1e20 nan"
# shellcheck disable=SC2086
bad_values --steps "epsilon --sigma 1 --delta 1e-5" $COUNT_BAD
# shellcheck disable=SC2086
bad_values --batch-size "epsilon --sigma 1 --delta 1e-5 --dataset-size 1000" $COUNT_BAD
# shellcheck disable=SC2086
bad_values --dataset-size "epsilon --sigma 1 --delta 1e-5 --batch-size 10" $COUNT_BAD
bad_values --relation "epsilon --sigma 1 --delta 1e-5" add_remove replace ADD-REMOVE
bad_values --format "epsilon --sigma 1 --delta 1e-5" xml JSON tables
bad_values --accountant "epsilon --sigma 1 --delta 1e-5" nosuch GAUSSIAN
bad_values --solve "calibrate --epsilon 1 --delta 1e-5" noise delta batch_size rate
# shellcheck disable=SC2086
bad_values --tolerance "calibrate --epsilon 1 --delta 1e-5" $COMMON_BAD 0 1e-13 0.2 1
# shellcheck disable=SC2086
bad_values --sigma-min "calibrate --epsilon 1 --delta 1e-5" $COMMON_BAD 0
# shellcheck disable=SC2086
bad_values --sigma-max "calibrate --epsilon 1 --delta 1e-5" $COMMON_BAD 0
expect_usage "a value with a newline still gives one line" --sigma \
    epsilon --delta 1e-5 --sigma "$(printf '1\n2')"

# ---- unknown flags, conflicts, missing flags ---------------------------------

expect_usage "unknown long flag" --bogus epsilon --sigma 1 --delta 1e-5 --bogus
expect_usage "unknown long flag with a value" --bogus epsilon --sigma 1 --delta 1e-5 --bogus=3
expect_usage "unknown short flag" -x epsilon --sigma 1 --delta 1e-5 -x
expect_usage "ambiguous abbreviation" --s epsilon --s 1 --delta 1e-5
expect_usage "--help takes no value" --help epsilon --help=yes
expect_usage "unexpected argument" extra epsilon --sigma 1 --delta 1e-5 extra
expect_usage "flag given twice" --sigma epsilon --sigma 1 --sigma 2 --delta 1e-5
expect_usage "--steps with --epochs conflict" --epochs \
    epsilon --sigma 1 --delta 1e-5 --steps 10 --epochs 2
expect_usage "--sampling-rate with --batch-size conflict" --sampling-rate \
    epsilon --sigma 1 --delta 1e-5 --sampling-rate 0.1 --batch-size 10 --dataset-size 100
expect_usage "--batch-size without --dataset-size" --batch-size \
    epsilon --sigma 1 --delta 1e-5 --batch-size 10
expect_usage "--dataset-size without --batch-size" --dataset-size \
    epsilon --sigma 1 --delta 1e-5 --dataset-size 100
expect_usage "batch larger than dataset" --batch-size \
    epsilon --sigma 1 --delta 1e-5 --batch-size 300 --dataset-size 200
expect_usage "--epochs giving 2^64 steps or more" --epochs \
    epsilon --sigma 1 --delta 1e-5 --epochs 1e300 --sampling-rate 1e-10
expect_usage "epsilon needs --sigma" --sigma epsilon --delta 1e-5
expect_usage "epsilon needs --delta" --delta epsilon --sigma 1
expect_usage "epsilon refuses --epsilon" --epsilon epsilon --sigma 1 --delta 1e-5 --epsilon 1
expect_usage "epsilon refuses --solve" --solve epsilon --sigma 1 --delta 1e-5 --solve sigma
expect_usage "delta needs --epsilon" --epsilon delta --sigma 1
expect_usage "delta needs --sigma" --sigma delta --epsilon 1
expect_usage "delta refuses --delta" --delta delta --sigma 1 --epsilon 1 --delta 1e-5
expect_usage "compare needs --delta or --epsilon" --delta compare --sigma 1
expect_usage "compare refuses --delta with --epsilon" --epsilon compare --sigma 1 --delta 1e-5 --epsilon 1
expect_usage "compare refuses --accountant" --accountant compare --sigma 1 --delta 1e-5 --accountant gdp
expect_usage "compare needs --sigma" --sigma compare --delta 1e-5
expect_usage "calibrate needs --epsilon" --epsilon calibrate --delta 1e-5
expect_usage "calibrate needs --delta" --delta calibrate --epsilon 1
expect_usage "calibrate refuses a zero target" --epsilon calibrate --epsilon 0 --delta 1e-5
expect_usage "calibrate --solve sigma refuses --sigma" --sigma calibrate --epsilon 1 --delta 1e-5 --sigma 1
expect_usage "calibrate --solve steps needs --sigma" --sigma calibrate --solve steps --epsilon 1 --delta 1e-5
expect_usage "calibrate --solve steps refuses --steps" --steps \
    calibrate --solve steps --sigma 1 --epsilon 1 --delta 1e-5 --steps 10
expect_usage "calibrate --solve steps refuses --epochs" --epochs \
    calibrate --solve steps --sigma 1 --epsilon 1 --delta 1e-5 --epochs 2
expect_usage "calibrate --solve epochs refuses --steps" --steps \
    calibrate --solve epochs --sigma 1 --sampling-rate 0.1 --epsilon 1 --delta 1e-5 --steps 10
expect_usage "calibrate --solve epochs refuses --epochs" --epochs \
    calibrate --solve epochs --sigma 1 --sampling-rate 0.1 --epsilon 1 --delta 1e-5 --epochs 2
expect_usage "calibrate --solve epochs needs --sigma" --sigma calibrate --solve epochs --epsilon 1 --delta 1e-5
expect_usage "calibrate --solve batch-size needs --dataset-size" --dataset-size \
    calibrate --solve batch-size --sigma 1 --steps 10 --epsilon 1 --delta 1e-5
expect_usage "calibrate --solve batch-size refuses --batch-size" --batch-size \
    calibrate --solve batch-size --sigma 1 --steps 10 --epsilon 1 --delta 1e-5 --dataset-size 100 --batch-size 10
expect_usage "calibrate --solve batch-size refuses --sampling-rate" --sampling-rate \
    calibrate --solve batch-size --sigma 1 --steps 10 --epsilon 1 --delta 1e-5 --sampling-rate 0.1
expect_usage "calibrate --solve batch-size refuses --epochs" --epochs \
    calibrate --solve batch-size --sigma 1 --epochs 10 --epsilon 1 --delta 1e-5 --dataset-size 100
expect_usage "calibrate --solve batch-size needs two examples" --dataset-size \
    calibrate --solve batch-size --sigma 1 --steps 10 --epsilon 1 --delta 1e-5 --dataset-size 1
expect_usage "calibrate --solve sampling-rate refuses --sampling-rate" --sampling-rate \
    calibrate --solve sampling-rate --sigma 1 --steps 10 --epsilon 1 --delta 1e-5 --sampling-rate 0.1
expect_usage "calibrate --solve sampling-rate refuses --batch-size" --batch-size \
    calibrate --solve sampling-rate --sigma 1 --steps 10 --epsilon 1 --delta 1e-5 --batch-size 10 --dataset-size 100
expect_usage "calibrate --solve sampling-rate refuses --epochs" --epochs \
    calibrate --solve sampling-rate --sigma 1 --epochs 10 --epsilon 1 --delta 1e-5
expect_usage "calibrate --solve sampling-rate refuses sampling without replacement" --sampling \
    calibrate --solve sampling-rate --sigma 1 --steps 10 --epsilon 1 --delta 1e-5 --sampling without-replacement \
    --relation replace-one
expect_usage "calibrate --solve sampling-rate needs --sigma" --sigma \
    calibrate --solve sampling-rate --steps 10 --epsilon 1 --delta 1e-5
expect_usage "noisy-cgd: --solve epochs refused" --solve calibrate --mechanism noisy-cgd --solve epochs --sigma 1 \
    --batches 10 --epochs 10 --step-size 0.1 --strong-convexity 1 --epsilon 1 --delta 1e-5
expect_usage "--tolerance is not for an integer solve" --tolerance \
    calibrate --solve steps --sigma 1 --epsilon 1 --delta 1e-5 --tolerance 1e-3
expect_usage "--sigma-max only with --solve sigma" --sigma-max \
    calibrate --solve steps --sigma 1 --epsilon 1 --delta 1e-5 --sigma-max 10
expect_usage "--sigma-min only with --solve sigma" --sigma-min \
    calibrate --solve steps --sigma 1 --epsilon 1 --delta 1e-5 --sigma-min 1
expect_usage "--sigma-max must exceed --sigma-min" --sigma-max \
    calibrate --epsilon 1 --delta 1e-5 --sigma-min 2 --sigma-max 1
expect_usage "--tolerance is calibrate's" --tolerance epsilon --sigma 1 --delta 1e-5 --tolerance 1e-3
expect_error "calibrate with an approximate accountant exits 1" 1 "gdp" \
    calibrate --epsilon 1 --delta 1e-5 --sampling-rate 0.01 --sigma 1 --solve steps --accountant gdp
expect_ok "calibrate a sampled mechanism (rdp by default)" '^method +rdp$' \
    calibrate --epsilon 1 --delta 1e-5 --sampling-rate 0.01 --steps 1000

# ---- rdp-curve and --orders --------------------------------------------------
expect_ok "rdp-curve prints one line per order" '^8 +2\.0000000' \
    rdp-curve --sigma 2 --steps 2 --orders 2,8
expect_ok "rdp-curve of a sampled Gaussian" '^2 +0\.2056272' \
    rdp-curve --sigma 1.1 --sampling-rate 0.004 --steps 10000 --orders 1.5,2,8
expect_ok "rdp-curve --format csv has a header" '^order,epsilon$' rdp-curve --sigma 2 --format csv
if [ "$(grep -c '^[0-9]' "$TMP/out")" -eq 94 ]; then pass "rdp-curve default grid has 94 orders"
else fail "rdp-curve default grid has 94 orders"; fi
expect_ok "rdp-curve --format json" '"curve"' rdp-curve --sigma 2 --format json --orders 2,3
expect_ok "epsilon --orders restricts the rdp grid" '^order +3$' \
    epsilon --sigma 1 --delta 1e-5 --accountant rdp --orders 2,3
# Without --orders the best real order: issue 20's row, where dp_accounting
# reports 2.101366525 and Opacus 2.101365272 at order 7.8 (their grids; see
# tests/test_rdp.c) and the grid of 94 gave 2.10143063 at 7.75.  The
# minimum over real orders (mpmath) is 2.1013221312 at 7.78083.
expect_ok "rdp: default orders searched over the reals" '^order +7\.78' \
    epsilon --accountant rdp --sampling-rate 0.01 --sigma 1 --steps 1000 --delta 1e-5
check "rdp row of issue 20: 2.1013221312 <= upper <= Opacus's 2.101365272" "v1 >= 2.1013221312 && v1 <= 2.101365272" \
    "$(field upper)"
expect_ok "rdp: --orders 7.8 alone gives Opacus's number" '^upper +2\.10136527' \
    epsilon --accountant rdp --sampling-rate 0.01 --sigma 1 --steps 1000 --delta 1e-5 --orders 7.8
expect_usage "rdp-curve needs --sigma" --sigma rdp-curve --orders 2
for bad in 1 0.5 nan inf abc "" "2,,3" "2," ",2" " 2" "2x" -3; do
    expect_usage "--orders '$bad' is refused" --orders rdp-curve --sigma 1 --orders "$bad"
done
expect_error "rdp-curve: Poisson sampling under replace-one is unsupported" 1 "add/remove" \
    rdp-curve --sigma 2 --sampling-rate 0.5 --relation replace-one

# ---- profile and --eps-error -----------------------------------------------------
# delta(1) of mu = 1 is Phi(-0.5) - e Phi(-1.5) = 0.1269367375066439 (python3's
# math.erfc, double precision, independent of the library's log-space code).
expect_ok "profile of one Gaussian at eps = 1 matches the closed form" '^1 +0\.1269367375 +0\.1269367376 +exact$' \
    profile --sigma 1 --eps-max 4 --points 5
if [ "$(grep -c '^[0-9]' "$TMP/out")" -eq 5 ]; then pass "profile prints --points rows"
else fail "profile prints --points rows"; fi
expect_ok "profile --format csv has a header" '^epsilon,delta_lower,delta_upper,flags$' \
    profile --sigma 2 --steps 10 --format csv --points 3
expect_ok "profile --format json" '"profile"' profile --sigma 2 --format json --points 2
# pld: every row a bracket (lower <= upper), delta decreasing in eps
expect_ok "profile with pld" '^epsilon,' profile --sigma 0.8 --sampling-rate 0.01 --steps 1000 \
    --accountant pld --eps-min 1 --eps-max 6 --points 6 --format csv
if awk -F, 'NR > 1 { if ($2 > $3 || (NR > 2 && $3 > prev)) bad = 1; prev = $3 } END { exit bad }' "$TMP/out"; then
    pass "pld profile rows are ordered brackets, decreasing in eps"
else fail "pld profile rows are ordered brackets, decreasing in eps"; fi
# the notes' q = 0.01, sigma = 0.8, T = 1e4 reference eps 10.054 lies in the bracket
expect_ok "pld brackets the reference eps" '^pld,' epsilon --sigma 0.8 --sampling-rate 0.01 --steps 10000 \
    --delta 1e-5 --accountant pld --format csv
if awk -F, 'NR == 2 { exit !($6 <= 10.0545 && $5 >= 10.0535) }' "$TMP/out"; then
    pass "pld bracket contains 10.054"
else fail "pld bracket contains 10.054" "$(tail -n 1 "$TMP/out")"; fi
expect_ok "--eps-error sets the pld width" '^pld,' epsilon --sigma 0.8 --sampling-rate 0.01 --steps 10000 \
    --delta 1e-5 --accountant pld --format csv --eps-error 0.01
if awk -F, 'NR == 2 { exit !($5 - $6 <= 0.01 * $5 && $5 - $6 > 0.001 * $5) }' "$TMP/out"; then
    pass "--eps-error 0.01 gives a bracket within 1% (and wider than the default's)"
else fail "--eps-error 0.01 gives a bracket within 1%" "$(tail -n 1 "$TMP/out")"; fi
for bad in 0 1 -0.1 nan inf abc ""; do
    expect_usage "--eps-error '$bad' is refused" --eps-error epsilon --sigma 1 --delta 1e-5 --eps-error "$bad"
done
expect_usage "--eps-error is not for rdp-curve" --eps-error rdp-curve --sigma 1 --eps-error 0.01
expect_usage "profile needs --sigma" --sigma profile --points 3
expect_usage "profile --points 1 is refused" --points profile --sigma 1 --points 1
expect_usage "profile --points 100001 is refused" --points profile --sigma 1 --points 100001
expect_usage "profile --eps-max below --eps-min is refused" --eps-max profile --sigma 1 --eps-min 3 --eps-max 2
expect_usage "profile --eps-min -1 is refused" --eps-min profile --sigma 1 --eps-min -1
expect_usage "profile --eps-max nan is refused" --eps-max profile --sigma 1 --eps-max nan

# A Gaussian's delta is positive at every eps (Phi(.) - e^eps Phi(.) > 0), so
# an upper bound that underflows must not print 0: it is rounded up to the
# smallest positive double.
for acc in rdp zcdp gaussian; do
    expect_ok "$acc: delta at eps 1e5 (below the double range) is not 0" "^$acc," \
        delta --sigma 0.01 --epsilon 1e5 --accountant $acc --format csv
    if awk -F, 'NR == 2 { exit !($5 > 0) }' "$TMP/out"; then pass "$acc: upper delta > 0"
    else fail "$acc: upper delta > 0" "$(tail -n 1 "$TMP/out")"; fi
done
expect_ok "profile queries the printed epsilon" '^0\.3 ' profile --sigma 1 --eps-max 0.9 --points 4

# ---- issue 17: the extremes that once printed a bound of 0 ------------------
# References (mpmath, 50 digits, from closed forms independent of the code):
#  - one Poisson-sampled Gaussian step, the remove pair P = (1-q) N(0, s^2) +
#    q N(1, s^2) against Q = N(0, s^2): its loss is increasing in x, so
#    delta(eps) = P[x > x*] - e^eps Q[x > x*] with x* = s^2 log((e^eps - 1 + q)/q)
#    + 1/2.  The output of T steps contains the first step's, so one step's
#    eps(delta) and delta(eps) bound T steps' from below:
#      q = 0.5, s = 0.5:     eps(1e-5) = 8.9814567462432401676,
#                            delta(1)  = 0.21049559428487342691;
#      q = 0.004, s = 1e-9:  eps(1e-5) = 5.0000000280703370e17.
#  - the Gaussian, mu = 1: eps(1e-300) = 37.448847912139104941.
#  - q = 0.01, s = 1e-12, 100 steps: the record is sampled at least once with
#    probability 1 - 0.99^100 = 0.63396765872677049507, and then its loss
#    exceeds 1e20, so delta(eps) >= 0.6339676 for eps <= 10.
expect_ok "rdp: an order of 9999999999 gives a bound" '^upper' epsilon --sigma 0.5 --sampling-rate 0.5 \
    --steps 1000 --delta 1e-5 --accountant rdp --orders 2,4,8,16,32,9999999999
check "rdp with order 9999999999: upper >= one step's eps 8.98145674624" "v1 >= v2" "$(field upper)" 8.98145674624
expect_ok "rdp: order 2147483648 alone gives a bound" '^upper' epsilon --sigma 0.5 --sampling-rate 0.5 \
    --steps 1000 --delta 1e-5 --accountant rdp --orders 2147483648
check "rdp with order 2^31: upper >= one step's eps 8.98145674624" "v1 >= v2" "$(field upper)" 8.98145674624
expect_ok "rdp: delta with an order of 1e20 gives a bound" '^upper' delta --sigma 0.5 --sampling-rate 0.5 \
    --steps 1000 --epsilon 1 --accountant rdp --orders 2,1e20
check "rdp with order 1e20: delta upper >= one step's 0.210495594284" "v1 >= v2 && v1 <= 1" "$(field upper)" \
    0.210495594284
expect_ok "rdp: sigma 1e-9 sampled (once a signed overflow)" '^upper' epsilon --sigma 1e-9 \
    --sampling-rate 0.004 --delta 1e-5 --accountant rdp
check "rdp sigma 1e-9: upper >= one step's eps 5.0000000280703370e17" "v1 >= v2" "$(field upper)" \
    5.0000000280703370e17
expect_ok "zcdp: sigma 1e-160 (1/sigma^2 overflows) is not private" '^upper +inf$' epsilon --sigma 1e-160 \
    --delta 1e-5 --accountant zcdp
for acc in gaussian gdp rdp zcdp; do
    expect_ok "$acc: sigma 1e-156 gives eps = inf" '^upper +inf$' epsilon --sigma 1e-156 --delta 1e-5 --accountant $acc
    expect_ok "$acc: sigma 1e-156 gives delta = 1" '^upper +1$' delta --sigma 1e-156 --epsilon 3 --accountant $acc
done
expect_error "pld: sigma 1e-156 is a clear error" 1 "1/sigma^2" epsilon --sigma 1e-156 --delta 1e-5 --accountant pld
expect_ok "rdp-curve at sigma 1e-160 prints inf, never nan" '^1\.25 +inf$' rdp-curve --sigma 1e-160
if grep -qi nan "$TMP/out"; then fail "rdp-curve at sigma 1e-160 has no nan" "$(grep -i nan "$TMP/out" | head -n 1)"
else pass "rdp-curve at sigma 1e-160 has no nan"; fi
expect_ok "pld profile at sigma 1e-12 answers" '^10,' profile --sigma 1e-12 --sampling-rate 0.01 --steps 100 \
    --accountant pld --points 3 --format csv
if awk -F, 'NR > 1 { if (!($3 >= 0.633967658 && $3 <= 1 && $2 <= $3)) bad = 1 } END { exit bad }' "$TMP/out"; then
    pass "pld profile at sigma 1e-12: every delta upper in [0.6339677, 1]"
else fail "pld profile at sigma 1e-12: every delta upper in [0.6339677, 1]" "$(sed -n 2p "$TMP/out")"; fi
expect_ok "pld: sigma 1 at delta 1e-300 is finite" '^upper' epsilon --sigma 1 --delta 1e-300 --accountant pld
check "pld eps(1e-300) brackets 37.4488479121" "v1 >= 37.4488479121 && v2 <= 37.4488479122 && v1 - v2 < 1e-6" \
    "$(field upper)" "$(field lower)"
for acc in pld rdp gdp zcdp gaussian; do
    expect_ok "$acc: profile delta upper never exceeds 1" '^0\.5,' profile --sigma 0.05 --eps-max 0.5 --points 2 \
        --accountant $acc --format csv
    if awk -F, 'NR > 1 && ($3 > 1 || $3 == "inf") { bad = 1 } END { exit bad }' "$TMP/out"; then
        pass "$acc: profile delta <= 1"
    else fail "$acc: profile delta <= 1" "$(sed -n 2p "$TMP/out")"; fi
done

# ---- issue 20: a width that cannot be met is a flagged bracket, exit 0 ------------
# Two queries that cannot meet their width:
#  - delta at eps = 100 of 10 Gaussians of sigma 2 (mu = sqrt(10)/2): the exact
#    delta, Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), is below 1e-800
#    (mpmath), under the smallest positive double, so any valid bracket is
#    [0, u] with u >= 4.9e-324 > 0: relative width 1, never 1e-3;
#  - eps at delta 1e-10 of q = 1e-3, sigma 1, T = 1e4 with --eps-error 1e-6:
#    the certified FFT rounding bound alone is about 2% of eps there
#    (docs/pld-design.md, "Refinement"); its lower bound must not exceed the
#    rdp accountant's certified upper bound, run alongside.
WNM_DELTA="delta --sigma 2 --steps 10 --epsilon 100 --accountant pld"
WNM_EPS="epsilon --sigma 1 --sampling-rate 1e-3 --steps 10000 --delta 1e-10 --accountant pld --eps-error 1e-6"
run epsilon --sigma 1 --sampling-rate 1e-3 --steps 10000 --delta 1e-10 --accountant rdp
wnm_rdp=$(field upper)
expect_ok "width not met: epsilon exits 0 and prints the bracket" '^flags +width not met' $WNM_EPS
check "width not met: lower <= upper, lower <= rdp's upper" "v2 <= v1 && v2 <= v3 && v2 > 0" \
    "$(field upper)" "$(field lower)" "$wnm_rdp"
if grep -Eq '^note: width not met \(width [0-9.]+e-?[0-9]+ of upper, 1e-6 asked\)' "$TMP/out"; then
    pass "width not met: the table says by how much"
else fail "width not met: the table says by how much" "$(grep '^note' "$TMP/out")"; fi
expect_ok "width not met: epsilon --format csv exits 0" '^pld,' $WNM_EPS --format csv
if awk -F, 'NR == 2 { exit !($5 >= $6 && $6 > 0 && $9 ~ /width not met/) }' "$TMP/out"; then
    pass "width not met: the csv row has the bracket and the flag"
else fail "width not met: the csv row has the bracket and the flag" "$(sed -n 2p "$TMP/out")"; fi
expect_ok "width not met: epsilon --format json exits 0" '"epsilon_upper"' $WNM_EPS --format json
if is_json "$TMP/out"; then pass "width not met: json is valid JSON"; else fail "width not met: json is valid JSON"; fi
if tr -d '\n' <"$TMP/out" | grep -q '"flags": \[[^]]*"width not met'; then pass "width not met: json flags array"
else fail "width not met: json flags array" "$(grep flags "$TMP/out")"; fi
expect_ok "width not met: delta exits 0" '^upper +4\.94065645[0-9]*e-324$' $WNM_DELTA
check "width not met: delta lower is 0 (the true delta underflows)" "v1 == 0" "$(field lower)"
if grep -q '^flags .*width not met' "$TMP/out" && grep -q '^note: width not met (width 1e0 of upper, 1e-3 asked)' "$TMP/out"
then pass "width not met: delta table flags and note"
else fail "width not met: delta table flags and note" "$(grep -E '^(flags|note)' "$TMP/out")"; fi
expect_ok "width not met: compare exits 0" '^pld .*width not met' compare --sigma 2 --steps 10 --epsilon 100
if grep -q '^note: pld: width not met (width 1e0 of upper, 1e-3 asked)' "$TMP/out"; then
    pass "width not met: compare notes the pld row"
else fail "width not met: compare notes the pld row" "$(grep '^note' "$TMP/out")"; fi
expect_ok "width not met: compare --format json exits 0" '"method": "pld"' compare --sigma 2 --steps 10 \
    --epsilon 100 --format json
if is_json "$TMP/out" && tr -d '\n' <"$TMP/out" | grep -q '"method": "pld"[^}]*"flags": \[[^]]*"width not met'; then
    pass "width not met: compare json is valid and flags the pld row"
else fail "width not met: compare json is valid and flags the pld row"; fi
expect_ok "width not met: profile exits 0" '^100 +0 +4\.94.*width not met.*\(width 1e0 of upper, 1e-3 asked\)' \
    profile --sigma 2 --steps 10 --accountant pld --eps-min 99 --eps-max 100 --points 2
expect_ok "width not met: profile --format csv" '^100,0,4\.94.*width not met' \
    profile --sigma 2 --steps 10 --accountant pld --eps-min 99 --eps-max 100 --points 2 --format csv
expect_ok "width not met: profile --format json" '"delta_upper": 4\.94' \
    profile --sigma 2 --steps 10 --accountant pld --eps-min 99 --eps-max 100 --points 2 --format json
if is_json "$TMP/out"; then pass "width not met: profile json is valid JSON"
else fail "width not met: profile json is valid JSON"; fi

# --require-width: exit 1, one line on stderr, the bracket still on stdout
# expect_width_error NAME STDOUT-ERE ARGS...
expect_width_error() {
    name=$1
    pattern=$2
    shift 2
    run "$@"
    if [ "$status" -ne 1 ]; then
        fail "$name" "exit status $status, expected 1"
    elif ! stderr_is_one_line || ! grep -q '^dpacct: pld: bracket .* wider than eps_error' "$TMP/err"; then
        fail "$name" "stderr: $(first_error)"
    elif ! grep -Eq -- "$pattern" "$TMP/out"; then
        fail "$name" "stdout does not match /$pattern/"
    else
        pass "$name"
    fi
}
expect_width_error "--require-width: epsilon exits 1, bracket on stdout" '^upper +[0-9]' $WNM_EPS --require-width
check "--require-width: the same bracket" "v2 <= v1 && v2 > 0" "$(field upper)" "$(field lower)"
expect_width_error "--require-width: csv" '^pld,true,"?pld: bracket.*,[0-9.]+,[0-9.]+,.*width not met' \
    $WNM_EPS --require-width --format csv
expect_width_error "--require-width: json" '"epsilon_upper": [0-9]' $WNM_EPS --require-width --format json
if is_json "$TMP/out"; then pass "--require-width: json is valid JSON"
else fail "--require-width: json is valid JSON"; fi
expect_width_error "--require-width: delta" '^upper +4\.94' $WNM_DELTA --require-width
expect_width_error "--require-width: compare" '^pld .*width not met' compare --sigma 2 --steps 10 --epsilon 100 \
    --require-width
expect_width_error "--require-width: profile prints every row" '^100 +0 +4\.94' \
    profile --sigma 2 --steps 10 --accountant pld --eps-min 99 --eps-max 100 --points 2 --require-width
expect_ok "--require-width: a width that is met is success" '^flags +-$' epsilon --sigma 0.8 \
    --sampling-rate 0.01 --steps 1000 --delta 1e-5 --accountant pld --require-width
expect_usage "--require-width takes no value" --require-width epsilon --sigma 1 --delta 1e-5 --require-width=1
expect_usage "--require-width is not for calibrate" --require-width calibrate --epsilon 1 --delta 1e-5 \
    --require-width
expect_usage "--require-width is not for rdp-curve" --require-width rdp-curve --sigma 1 --require-width
for cmd in epsilon delta compare profile; do
    expect_ok "$cmd --help lists --require-width" '^  --require-width ' $cmd --help
done

# ---- --mechanism as an event written as text ----------------------------------
# References: EPS_MU1 (mu = 1 GDP, above) for every mechanism below whose
# Gaussian parts add up to mu^2 = 1; Laplace(b = 10) composed 100 times at
# delta = 1e-5 lies in [4.2203026, 4.2203921]: each step's privacy loss
# rounded up and down to a grid of 2e-5, composed by numpy's FFT and
# solved for delta(eps) = E[(1 - e^(eps - L))+] with scipy's brentq (an
# independent script, not dpacct's code).
EPS_LAPLACE100_LO=4.2203026
EPS_LAPLACE100_HI=4.2203921
expect_ok "event text: Laplace composed 100 times" '^upper +4\.22' \
    epsilon --mechanism 'self_composed(count=100, laplace(scale=10))' --delta 1e-5 --accountant pld
up=$(field upper)
lo=$(field lower)
check "event text: 100 Laplace steps, upper >= $EPS_LAPLACE100_LO" "v1 >= v2" "$up" "$EPS_LAPLACE100_LO"
check "event text: 100 Laplace steps, lower <= $EPS_LAPLACE100_HI" "v1 <= v2" "$lo" "$EPS_LAPLACE100_HI"
# tree aggregation over 8 steps, one tree: 4 nodes per record, 1/sigma^2 = 4/4
for spec in 'tree_aggregation(sigma=2, steps=8)|gaussian' \
    'compose(self_composed(count=4, gaussian(sigma=4)), self_composed(count=3, gaussian(sigma=2)))|gaussian' \
    'gdp(mu=1)|gdp'; do
    ev=${spec%|*}
    acct=${spec#*|}
    expect_ok "event text: $ev ($acct)" '^upper +4\.377' epsilon --mechanism "$ev" --delta 1e-5 --accountant "$acct"
    up=$(field upper)
    lo=$(field lower)
    check "event text: $ev brackets $EPS_MU1" "v1 >= v3 && v2 <= v3" "$up" "$lo" "$EPS_MU1"
done
# 0.5-zCDP holds for the sigma = 1 Gaussian (so eps >= EPS_MU1) and converts
# to at most rho + 2 sqrt(rho log(1/delta)) = 5.29852...
expect_ok "event text: zcdp(rho=0.5)" '^upper +[45]\.' epsilon --mechanism 'zcdp(rho=0.5)' --delta 1e-5
up=$(field upper)
check "event text: 0.5-zCDP eps in [$EPS_MU1, 5.2986]" "v1 >= v2 && v1 <= 5.2986" "$up" "$EPS_MU1"
# the mechanism line of a flag-built run is text that reads back to the same run
expect_ok "flags: DP-SGD" '^upper' epsilon --sigma 1.1 --sampling-rate 0.004 --steps 900 --delta 1e-5 --accountant rdp
flag_up=$(field upper)
flag_mech=$(sed -n 's/^mechanism  *//p' "$TMP/out")
expect_ok "event text: the mechanism line read back" '^upper' epsilon --mechanism "$flag_mech" --delta 1e-5 \
    --accountant rdp
check "event text: the same upper as the flags ($flag_up)" "v1 == v2" "$(field upper)" "$flag_up"
expect_ok "event text: compare" '^pld +4\.22' compare --mechanism 'self_composed(count=100, laplace(scale=10))' \
    --delta 1e-5
expect_ok "event text: delta" '^upper +0\.' delta --mechanism 'gdp(mu=1)' --epsilon 1
expect_ok "event text: rdp-curve" '^2 +' rdp-curve --mechanism 'gdp(mu=1)' --orders 2,4
expect_ok "event text: profile" '^0 +' profile --mechanism 'gdp(mu=1)' --eps-max 1 --points 2
expect_ok "event text: json" '"epsilon_upper": 4\.377' epsilon --mechanism 'gdp(mu=1)' --delta 1e-5 --format json
if is_json "$TMP/out"; then pass "event text: json is valid JSON"; else fail "event text: json is valid JSON"; fi
# random allocation (Feldman & Shenfeld 2025): rdp bounds it below the same
# Gaussian steps without amplification (10 steps of sigma = 1, exact from the
# gaussian accountant); every step selected is the plain composition
ALLOC='self_composed(count=10, random_allocation(steps=100, selected=1, gaussian(sigma=1)))'
expect_ok "event text: random allocation (rdp)" '^upper +[0-9]' epsilon --mechanism "$ALLOC" --delta 1e-5 \
    --accountant rdp
alloc_up=$(field upper)
expect_ok "event text: 10 unamplified steps (gaussian)" '^upper +[0-9]' epsilon \
    --mechanism 'self_composed(count=10, gaussian(sigma=1))' --delta 1e-5 --accountant gaussian
check "event text: random allocation below no amplification" "v1 < v2" "$alloc_up" "$(field lower)"
expect_ok "event text: every step selected" '^upper +[0-9]' epsilon --delta 1e-5 --accountant rdp \
    --mechanism 'self_composed(count=3, random_allocation(steps=5, selected=5, gaussian(sigma=4)))'
every_up=$(field upper)
expect_ok "event text: 15 steps composed" '^upper +[0-9]' epsilon --delta 1e-5 --accountant rdp \
    --mechanism 'self_composed(count=15, gaussian(sigma=4))'
check "event text: every step selected is the composition" "v1 == v2" "$every_up" "$(field upper)"
# pld: Feldman & Shenfeld's decomposition, its bracket narrowed by rdp's bound
expect_ok "event text: random allocation (pld)" '^flags +lower bound of the dominating pair' epsilon \
    --mechanism "$ALLOC" --delta 1e-5 --accountant pld
check "event text: pld's random allocation at or below rdp's" "v1 <= v2" "$(field upper)" "$alloc_up"
expect_error "event text: pld refuses random allocation under replace-one (exit 1)" 1 "add/remove" \
    epsilon --mechanism "$ALLOC" --delta 1e-5 --accountant pld --relation replace-one
# 1 < selected < steps: the reduction to 2 rounds of one of 50 steps, below
# 20 unamplified Gaussian steps (exact, gaussian accountant); add/remove only
expect_ok "event text: 2 of 100 steps (rdp)" '^upper +[0-9]' epsilon --delta 1e-5 --accountant rdp \
    --mechanism 'self_composed(count=10, random_allocation(steps=100, selected=2, gaussian(sigma=1)))'
two_up=$(field upper)
expect_ok "event text: 20 unamplified steps (gaussian)" '^upper +[0-9]' epsilon \
    --mechanism 'self_composed(count=20, gaussian(sigma=1))' --delta 1e-5 --accountant gaussian
check "event text: 2 of 100 steps below no amplification" "v1 < v2" "$two_up" "$(field lower)"
expect_error "event text: rdp refuses 2 of 100 steps under replace-one (exit 1)" 1 "add/remove" \
    epsilon --mechanism 'random_allocation(steps=100, selected=2, gaussian(sigma=1))' --delta 1e-5 --accountant rdp \
    --relation replace-one
expect_usage "event text: random allocation names a bad argument" "selected (the steps each record is used in)" \
    epsilon --mechanism 'random_allocation(steps=100, selected=0, gaussian(sigma=1))' --delta 1e-5
expect_usage "event text: a mistake names its position" "position 17: gaussian: expected ',' or ')'" \
    epsilon --mechanism 'gaussian(sigma=1' --delta 1e-5
expect_usage "event text: an unknown event is named" "unknown event 'gauss'" \
    epsilon --mechanism 'gauss(sigma=1)' --delta 1e-5
expect_usage "event text: a constructor's refusal" "position 1: poisson: sampling rate q" \
    epsilon --mechanism 'poisson(q=2, gaussian(sigma=1))' --delta 1e-5
expect_usage "event text: --sigma is refused with it" "--sigma" \
    epsilon --mechanism 'gdp(mu=1)' --sigma 1 --delta 1e-5
expect_usage "event text: --steps is refused with it" "--steps" \
    epsilon --mechanism 'gdp(mu=1)' --steps 10 --delta 1e-5
expect_usage "event text: calibrate needs a '?'" "no parameter is left open" \
    calibrate --mechanism 'gdp(mu=1)' --epsilon 1 --delta 1e-5
expect_usage "event text: a '?' is for calibrate" "sigma is left open" \
    epsilon --mechanism 'gaussian(sigma=?)' --delta 1e-5
expect_usage "event text: epsilon still needs --delta" "--delta" epsilon --mechanism 'gdp(mu=1)'

# ---- --event FILE (JSON), --print-event, ledgers ------------------------------
expect_ok "--print-event writes the flags' mechanism as JSON" '"kind": "self_composed"' \
    epsilon --sigma 1.1 --sampling-rate 0.004 --steps 900 --print-event
if is_json "$TMP/out"; then pass "--print-event: valid JSON"; else fail "--print-event: valid JSON"; fi
cp "$TMP/out" "$TMP/run.json"
expect_ok "--event reads it back: the same upper" '^upper' epsilon --event "$TMP/run.json" --delta 1e-5 \
    --accountant rdp
check "--event: the same upper as the flags ($flag_up)" "v1 == v2" "$(field upper)" "$flag_up"
# a ledger: one line per phase, composed.  Phases of sigma 4 (4 steps) and
# sigma 2 (3 steps) make mu^2 = 1: EPS_MU1 again.
printf '%s\n' '{"kind": "self_composed", "count": 4, "event": {"kind": "gaussian", "sigma": 4}}' \
    '{"kind": "self_composed", "count": 3, "event": {"kind": "gaussian", "sigma": 2}}' >"$TMP/ledger.jsonl"
expect_ok "--event: a ledger composes its phases" '^upper +4\.377' epsilon --event "$TMP/ledger.jsonl" \
    --delta 1e-5 --accountant gaussian
check "--event: the ledger brackets $EPS_MU1" "v1 >= v3 && v2 <= v3" "$(field upper)" "$(field lower)" "$EPS_MU1"
expect_ok "--print-event with --mechanism text" '"kind": "laplace"' \
    epsilon --mechanism 'laplace(scale=10)' --print-event
expect_ok "--print-event for rdp-curve" '"kind": "gaussian"' rdp-curve --sigma 2 --print-event
printf '{"kind": "gaussian",\n "sigma": }\n' >"$TMP/bad.json"
expect_usage "--event: a syntax error names its line and column" "line 2, column 11" \
    epsilon --event "$TMP/bad.json" --delta 1e-5
printf '{"kind": "poisson", "q": 2, "event": {"kind": "gaussian", "sigma": 1}}\n' >"$TMP/bad.json"
expect_usage "--event: a bad value names its place" 'at $: poisson: sampling rate q' \
    epsilon --event "$TMP/bad.json" --delta 1e-5
expect_usage "--event: a missing file" "$TMP/none.json" epsilon --event "$TMP/none.json" --delta 1e-5
expect_usage "--event: not with --mechanism" "--event" \
    epsilon --event "$TMP/run.json" --mechanism gaussian --delta 1e-5
expect_usage "--event: not with --sigma" "--sigma" epsilon --event "$TMP/run.json" --sigma 1 --delta 1e-5
expect_usage "--event: calibrate needs a '?'" "no parameter is left open" \
    calibrate --event "$TMP/run.json" --epsilon 1 --delta 1e-5
expect_usage "--print-event is not for calibrate" "--print-event" \
    calibrate --sigma 1 --epsilon 1 --delta 1e-5 --print-event

# ---- calibrate an event template: one parameter written '?' --------------------
# A Laplace scale: 100 releases of Laplace(b) at delta 1e-5 have eps in
# [4.2203026, 4.2203921] at b = 10 and at least 4.2245587 at b = 9.99
# (the independent numpy script above), so the smallest b within eps 4.221
# lies in (9.99, 10].
expect_ok "template: a Laplace scale" '^scale +9\.99' \
    calibrate --mechanism 'self_composed(count=100, laplace(scale=?))' --epsilon 4.221 --delta 1e-5 --accountant pld
check "template: the Laplace scale lies in (9.99, 10]" "v1 > 9.99 && v1 <= 10" "$(field scale)"
if grep -Eq '^mechanism +self_composed\(count=100, laplace\(scale=9\.99' "$TMP/out"; then
    pass "template: the mechanism line has the scale found"
else fail "template: the mechanism line has the scale found"; fi
# A count: T releases of gaussian(sigma=3) are mu = sqrt(T)/3, so the most
# within eps(mu = 1) = EPS_MU1 (a hair above it) is T = 9.
expect_ok "template: a count" '^count +9 ' \
    calibrate --mechanism 'self_composed(count=?, gaussian(sigma=3))' --epsilon 4.37717810 --delta 1e-5 \
    --accountant gaussian
if grep -Eq '^fails at +10 ' "$TMP/out"; then pass "template: 10 releases fail"; else fail "template: 10 releases fail"; fi
# JSON with the '?' as a string: gdp(mu=?) within EPS_MU1 is mu = 1
printf '{"kind": "gdp", "mu": "?"}\n' >"$TMP/template.json"
expect_ok "template: JSON, gdp mu" '"solve": "mu"' calibrate --event "$TMP/template.json" --epsilon 4.3771781 \
    --delta 1e-5 --accountant gdp --format json --tolerance 1e-7
mu=$(sed -n 's/^ *"value": \([0-9.e+-]*\),*$/\1/p' "$TMP/out")
check "template: JSON gdp mu ($mu) is 1 within 2e-7" "v1 > 1 - 2e-7 && v1 <= 1 + 2e-7" "$mu"
if grep -q '"solve_event": "gdp"' "$TMP/out"; then pass "template: JSON names the event"; else fail "template: JSON names the event"; fi
# the same search as the flags: a batch size of exactly B of 1000
expect_ok "template: a batch size" '^m +' calibrate --mechanism \
    'self_composed(count=100, without_replacement(n=1000, m=?, gaussian(sigma=1)))' --epsilon 1 --delta 1e-5 \
    --relation replace-one --accountant pld
tmpl_m=$(field m)
expect_ok "flags: the same batch size" '^batch size +' calibrate --solve batch-size --sampling without-replacement \
    --dataset-size 1000 --steps 100 --sigma 1 --epsilon 1 --delta 1e-5 --relation replace-one --accountant pld
check "template: batch size $tmpl_m equals the flags'" "v1 == v2" "$tmpl_m" "$(sed -n 's/^batch size  *\([0-9]*\).*/\1/p' "$TMP/out")"
expect_usage "template: two '?'" "a second '?'" \
    calibrate --mechanism 'compose(gaussian(sigma=?), laplace(scale=?))' --epsilon 1 --delta 1e-5
expect_usage "template: a delta cannot be searched" "delta cannot be left open" \
    calibrate --mechanism 'epsilon_delta(eps=1, delta=?)' --epsilon 1 --delta 1e-5
expect_usage "template: not with --solve" "--solve" \
    calibrate --mechanism 'gaussian(sigma=?)' --solve steps --epsilon 1 --delta 1e-5
expect_usage "template: not with --sigma-max" "--sigma-max" \
    calibrate --mechanism 'gaussian(sigma=?)' --sigma-max 10 --epsilon 1 --delta 1e-5
expect_usage "template: a count has no tolerance" "--tolerance" \
    calibrate --mechanism 'self_composed(count=?, gaussian(sigma=1))' --tolerance 0.01 --epsilon 1 --delta 1e-5

# ---- tradeoff: an attacker's TPR at each false-positive rate -----------------
# Four full-batch DP-SGD steps of noise multiplier 2 are the mu = 1 Gaussian,
# whose curve is Phi(Phi^-1(alpha) + 1) (Dong, Roth & Su 2022): mpmath at
# 30 digits gives 0.018298468405656598, 0.092362248073693936 and
# 0.38914369164536097 at alpha = 1e-3, 1e-2, 0.1.  The bracket must hold
# each and be narrower than 1e-6.
expect_ok "tradeoff: DP-SGD, full batches" '^0\.001 ' tradeoff --sigma 2 --steps 4 --fpr 0.001,0.01,0.1
for pair in 0.001:0.018298468405656598 0.01:0.092362248073693936 0.1:0.38914369164536097; do
    fpr=${pair%%:*}
    exact=${pair#*:}
    row=$(awk -v f="$fpr" '$1 == f { print $2, $3 }' "$TMP/out")
    check "tradeoff: TPR at FPR $fpr brackets $exact within 1e-6" "v1 <= v3 && v3 <= v2 && v2 - v1 <= 1e-6" $row "$exact"
done
if grep -q 'symmetrised' "$TMP/out"; then fail "tradeoff: the Gaussian's curve is its own (not symmetrised)"
else pass "tradeoff: the Gaussian's curve is its own (not symmetrised)"; fi
# Poisson-sampled: pld has each direction's pair, rdp only the larger delta
# (its rows say so); pld's bracket lies inside [FPR, rdp's upper]
run tradeoff --sigma 1 --sampling-rate 0.01 --steps 10 --fpr 0.01 --accountant pld --format csv
pld_row=$(sed -n 2p "$TMP/out")
run tradeoff --sigma 1 --sampling-rate 0.01 --steps 10 --fpr 0.01 --accountant rdp --format csv
rdp_row=$(sed -n 2p "$TMP/out")
case "$rdp_row" in *symmetrised*) pass "tradeoff: rdp's rows say symmetrised" ;; *) fail "tradeoff: rdp's rows say symmetrised" ;; esac
case "$pld_row" in *symmetrised*) fail "tradeoff: pld's rows are one direction's" ;; *) pass "tradeoff: pld's rows are one direction's" ;; esac
check "tradeoff: pld's bracket inside [FPR, rdp's upper]" "v1 >= 0.01 && v1 <= v2 && v2 <= v3" \
    "$(echo "$pld_row" | cut -d, -f2)" "$(echo "$pld_row" | cut -d, -f3)" "$(echo "$rdp_row" | cut -d, -f3)"
expect_ok "tradeoff: JSON" '"tradeoff": \[' tradeoff --sigma 1 --fpr 0.1 --format json
if is_json "$TMP/out"; then pass "tradeoff: valid JSON"; else fail "tradeoff: valid JSON"; fi
expect_ok "tradeoff: an event" '^0\.3 ' tradeoff --mechanism 'laplace(scale=1)' --fpr 0.3 --accountant pld
expect_ok "tradeoff --plot" '^FPR' tradeoff --sigma 1 --plot "$TMP/tradeoff.svg"
if grep -q '<svg' "$TMP/tradeoff.svg" 2>/dev/null; then pass "tradeoff --plot: an SVG"; else fail "tradeoff --plot: an SVG"; fi
expect_usage "tradeoff: --fpr in (0, 1]" "--fpr" tradeoff --sigma 1 --fpr 0
expect_usage "tradeoff: --fpr increasing" "must increase" tradeoff --sigma 1 --fpr 0.1,0.01
expect_usage "tradeoff: --fpr is tradeoff's" "--fpr" epsilon --sigma 1 --delta 1e-5 --fpr 0.1
expect_ok "tradeoff --help" '^Usage: dpacct tradeoff' tradeoff --help

# ---- --noise-multiplier: the noise as trainers add it (std / C) ---------------
# Under replace-one the sensitivity is 2C, so Z = 1 is sigma = 1/2, a
# Gaussian of mu = 2: eps at delta 1e-5 is 9.997256146434298 (scipy's brentq
# on the closed form above, an independent script).
EPS_MU2=9.997256146434298
expect_ok "--noise-multiplier under replace-one is sigma Z/2" '^mechanism +gaussian\(sigma=0\.5\)$' \
    epsilon --noise-multiplier 1 --relation replace-one --delta 1e-5 --accountant gaussian
check "--noise-multiplier 1, replace-one: eps brackets $EPS_MU2" "v1 >= v3 && v2 <= v3" "$(field upper)" \
    "$(field lower)" "$EPS_MU2"
if grep -Eq '^sigma is +noise std / 2C' "$TMP/out"; then pass "replace-one output says sigma is over 2C"
else fail "replace-one output says sigma is over 2C"; fi
expect_ok "--noise-multiplier under add-remove is sigma Z" '^mechanism +gaussian\(sigma=1\)$' \
    epsilon --noise-multiplier 1 --delta 1e-5 --accountant gaussian
check "--noise-multiplier 1, add-remove: eps brackets $EPS_MU1" "v1 >= v3 && v2 <= v3" "$(field upper)" \
    "$(field lower)" "$EPS_MU1"
if grep -Eq '^sigma is +noise std / C ' "$TMP/out"; then pass "add-remove output says sigma is over C"
else fail "add-remove output says sigma is over C"; fi
expect_ok "json says what sigma is" '"sigma_is": "noise std / 2C' epsilon --sigma 1 --relation replace-one \
    --delta 1e-5 --format json
expect_usage "--noise-multiplier with --sigma" "--noise-multiplier" epsilon --noise-multiplier 1 --sigma 1 --delta 1e-5
expect_usage "--noise-multiplier with --solve sigma" "--noise-multiplier: cannot be combined with --solve sigma" \
    calibrate --noise-multiplier 1 --epsilon 1 --delta 1e-5
expect_usage "--noise-multiplier must be positive" "--noise-multiplier" epsilon --noise-multiplier 0 --delta 1e-5
expect_usage "--noise-multiplier not with an event" "--noise-multiplier" \
    epsilon --mechanism 'gdp(mu=1)' --noise-multiplier 1 --delta 1e-5

# ---- statement: the paragraph for a paper, with compare's numbers --------------
STMT="--batch-size 256 --dataset-size 60000 --epochs 60 --delta 1e-5"
expect_ok "compare: the DP-SGD run, add-remove" '^pld ' compare --sigma 1.1 $STMT
cmp_ar=$(awk '$1 == "pld" { print $2 }' "$TMP/out")
expect_ok "compare: the same run, replace-one (sigma 0.55: the same noise over 2C)" '^pld ' \
    compare --sigma 0.55 --relation replace-one $STMT
cmp_ro=$(awk '$1 == "pld" { print $2 }' "$TMP/out")
expect_ok "statement prints the paragraph" '^Example-level DP at delta = 1e-05, add-or-remove-one' \
    statement --noise-multiplier 1.1 $STMT --max-examples-per-user 4
st_ar=$(sed -n 's/.*add-or-remove-one neighbours: epsilon = \([0-9.]*\) .*/\1/p' "$TMP/out")
st_ro=$(sed -n 's/.*replace-one neighbours (sensitivity 2C): epsilon = \([0-9.]*\) .*/\1/p' "$TMP/out")
check "statement: add-remove epsilon is compare's ($cmp_ar)" "v1 == v2 && v1 != \"\"" "$st_ar" "$cmp_ar"
check "statement: replace-one epsilon is compare's ($cmp_ro)" "v1 == v2 && v1 != \"\"" "$st_ro" "$cmp_ro"
if grep -q 'Poisson sampling' "$TMP/out" && grep -q 'group privacy' "$TMP/out"; then
    pass "statement names the sampling assumed and how user-level is derived"
else fail "statement names the sampling assumed and how user-level is derived"; fi
expect_ok "statement --sigma under replace-one is the same run" 'epsilon = '"$cmp_ar" \
    statement --sigma 0.55 --relation replace-one $STMT
expect_ok "statement --format json" '"add-remove"' statement --noise-multiplier 1.1 $STMT --format json \
    --max-examples-per-user 4
if is_json "$TMP/out"; then pass "statement json is valid JSON"; else fail "statement json is valid JSON"; fi
# group privacy: k e^((k-1) eps) d <= delta at the example-level (eps, d) reported
ue=$(awk -F': ' '/"epsilon_upper"/ { v = $2 } END { sub(/,$/, "", v); print v }' "$TMP/out")
ee=$(awk -F': ' '/"example_epsilon"/ { v = $2 } END { sub(/,$/, "", v); print v }' "$TMP/out")
ed=$(awk -F': ' '/"example_delta"/ { v = $2 } END { sub(/,$/, "", v); print v }' "$TMP/out")
check "statement: the user-level group condition holds (4 e^(3 eps) d <= 1e-5)" \
    "4 * exp(3 * v1) * v2 <= 1e-5 && v3 >= 4 * v1" "$ee" "$ed" "$ue"
expect_usage "statement needs --delta" "--delta" statement --sigma 1 --epochs 1 --sampling-rate 0.01
expect_usage "statement needs epochs or steps" "--epochs" statement --sigma 1 --sampling-rate 0.01 --delta 1e-5
expect_usage "statement: --max-examples-per-user 0" "--max-examples-per-user" \
    statement --sigma 1 --sampling-rate 0.01 --epochs 1 --delta 1e-5 --max-examples-per-user 0
expect_usage "--max-examples-per-user is statement's" "--max-examples-per-user" \
    epsilon --sigma 1 --delta 1e-5 --max-examples-per-user 2

# ---- sweeps (--epochs A:B[:S]) and figures (--plot, through gnuplot) -----------
# sigma 2, no sampling: E epochs are E Gaussian steps, mu^2 = E/4; at E = 4
# that is mu = 1 (EPS_MU1).
expect_ok "--epochs 1:4: one row per epoch count" '^4 +4 +4\.377' \
    epsilon --sigma 2 --epochs 1:4 --delta 1e-5 --accountant gaussian
check "sweep: 4 epochs brackets $EPS_MU1" "v1 >= v3 && v2 <= v3" \
    "$(awk '$1 == 4 { print $3 }' "$TMP/out")" "$(awk '$1 == 4 { print $4 }' "$TMP/out")" "$EPS_MU1"
if [ "$(grep -Ec '^[0-9]+ +[0-9]+ ' "$TMP/out")" -eq 4 ]; then pass "sweep: 4 rows"; else fail "sweep: 4 rows"; fi
expect_ok "--epochs A:B:S with sampling: steps ceil(E/q)" '^10 +1000 ' \
    epsilon --sigma 1 --sampling-rate 0.01 --epochs 1:10:3 --delta 1e-5 --accountant rdp
single_rdp() { run epsilon --sigma 1 --sampling-rate 0.01 --steps "$1" --delta 1e-5 --accountant rdp; field upper; }
sweep_700=$(awk '$1 == 7 { print $3 }' "$TMP/out")
check "sweep: the 7-epoch row is the 700-step query" "v1 == v2" "$sweep_700" "$(single_rdp 700)"
expect_ok "sweep --format json" '"sweep": \[' epsilon --sigma 2 --epochs 1:3 --delta 1e-5 --format json
if is_json "$TMP/out"; then pass "sweep json is valid JSON"; else fail "sweep json is valid JSON"; fi
expect_ok "sweep --format csv" '^epochs,steps,delta_upper' delta --sigma 2 --epochs 1:3 --epsilon 1 --format csv
expect_ok "sweep --plot writes an SVG" '^3 ' epsilon --sigma 2 --epochs 1:3 --delta 1e-5 --plot "$TMP/sweep.svg"
if head -c 400 "$TMP/sweep.svg" | grep -q '<svg'; then pass "sweep figure is SVG"; else fail "sweep figure is SVG"; fi
expect_ok "profile --plot writes a PNG" '^1 ' profile --sigma 1 --steps 10 --eps-max 1 --points 3 --plot "$TMP/p.png"
if [ "$(head -c 4 "$TMP/p.png" | od -An -c | tr -d ' ')" = '211PNG' ]; then pass "profile figure is PNG"
else fail "profile figure is PNG"; fi
expect_ok "profile --plot writes a PDF" '^1 ' profile --sigma 1 --steps 10 --eps-max 1 --points 3 --plot "$TMP/p.pdf"
if head -c 5 "$TMP/p.pdf" | grep -q '%PDF-'; then pass "profile figure is PDF"; else fail "profile figure is PDF"; fi
expect_usage "--plot needs a known extension" "--plot" profile --sigma 1 --plot "$TMP/p.jpg"
expect_usage "--plot is for profile and sweeps" "--plot" epsilon --sigma 1 --delta 1e-5 --plot "$TMP/x.png"
expect_usage "--epochs range: start after end" "--epochs" epsilon --sigma 1 --epochs 5:1 --delta 1e-5
expect_usage "--epochs range: malformed" "--epochs" epsilon --sigma 1 --epochs 1:x --delta 1e-5
expect_usage "--epochs range: too many points" "--epochs" epsilon --sigma 1 --epochs 1:100000 --delta 1e-5
expect_usage "--epochs range: not for compare" "--epochs" compare --sigma 1 --epochs 1:3 --delta 1e-5

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
