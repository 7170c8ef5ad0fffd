# tune.sh - sourced by the reproduction scripts: the choice
# of hyperparameters the papers leave open, made the same way for every
# algorithm.  A "config" is a list of dptrain options with ':' for spaces,
# e.g. "--clip:1:--learning-rate:1e-2".  Each config is run once on a
# validation problem (its own data seed, never one of the reported seeds)
# and the one with the smallest value of the chosen JSON field wins; ties
# keep the first; FIELD with a leading '-' (e.g. -test_accuracy) picks the
# largest instead.  A run that fails or diverges to a non-number counts as
# +infinity.  The tuning runs are not themselves accounted (as in the
# papers); dpacct's private-selection accountant (Papernot-Steinke
# repetition, `dpacct --tuning-runs M`) would say what accounting them costs.
#
#   best=$(tune FIELD "CONFIG CONFIG ..." DPTRAIN ALG ARGS...)
#   flags=$(expand "$best")

expand() {
    echo "$1" | tr ':' ' '
}

tune() {
    field=$1; configs=$2; shift 2
    sign=1
    case $field in -*) sign=-1; field=${field#-} ;; esac
    best=""; bestv=""
    for cfg in $configs; do
        # shellcheck disable=SC2046
        v=$("$@" $(expand "$cfg") --format json 2>/dev/null |
            awk -F': ' -v f="\"$field\"" -v s="$sign" '$1 ~ f { sub(/,$/, "", $2)
                if ($2 ~ /^(null|-?nan|-?inf)$/) print "bad"; else print s * $2; exit }')
        case $v in ''|bad) v=1e308 ;; esac
        if [ -z "$bestv" ] || awk -v a="$v" -v b="$bestv" 'BEGIN { exit !(a + 0 < b + 0) }'; then
            best=$cfg; bestv=$v
        fi
    done
    echo "$best"
}

# per_epoch LABEL: "LABEL epoch eps accuracy" for each entry of the per_epoch
# list of a dptrain JSON report on stdin (one field a line); an eps of "inf"
# (a run without noise) is written -1
per_epoch() {
    awk -v m="$1" '/"per_epoch"/ { on = 1 } on && /"epoch":/ { e = $2; sub(/,/, "", e) }
        on && /"epsilon":/ { p = $2; sub(/,/, "", p); gsub(/"/, "", p); if (p == "inf") p = -1 }
        on && /"test_accuracy":/ { a = $2; sub(/,/, "", a); print m, e, p, a }'
}

# meansd: "mean standard-deviation" (%.6g, the sample deviation, 0 for one
# value) of the numbers on stdin, on one line or several
meansd() {
    tr '\n' ' ' | awk '{ m = 0; for (i = 1; i <= NF; i++) m += $i; m /= NF; q = 0
        for (i = 1; i <= NF; i++) q += ($i - m)^2; printf "%.6g %.6g", m, sqrt(q / (NF > 1 ? NF - 1 : 1)) }'
}
