#!/bin/sh
# glmtron-synthetic.sh - the synthetic experiment of Ding et al.,
# "Revisiting Differentially Private ReLU Regression" (NeurIPS 2024,
# Sec. 6): d = 1024, N = 50..550 in steps of 100 training
# examples, eps in {0.05, 0.2, 0.5}, delta = 1/N^1.1, spectra i^-2 and i^-3
# (x = sqrt(lambda) zeta, zeta Rademacher), one pass, learning rate 1e-2;
# DP-GLMtron, DP-TAGLMtron, DP-SGD and DP-FTRL (Kairouz et al. ICML 2021,
# the paper's other baseline), SEEDS seeds each; the excess risk
# measured on 2000 held-out examples as test loss(w) - test loss(w*).
#
#   sh docs/repro/glmtron-synthetic.sh [DPTRAIN] [OUTDIR]
#
# writes OUTDIR/synthetic-<spectrum>-eps<eps>.dat (N, then mean and standard
# deviation of the excess risk per algorithm), OUTDIR/synthetic-tuned.txt
# (the configurations chosen) and, when gnuplot is there,
# OUTDIR/glmtron-synthetic.png.  Unstated in the paper, chosen here (and
# said in the report): label noise 0.1, w* uniform on the sphere of radius
# sqrt(d / tr H), so that E |w*|_H^2 = 1 (with |w*| = 1 the signal would be
# |w*|_H^2 = tr H / d ~ 0.0016 and w = 0 already near optimal), DP-SGD
# batches of 10 (Poisson) and DP-FTRL batches of 10 (a shuffle cut in
# floor(N/10)), one epoch.  The learning rate is the paper's 1e-2
# for all; the clip (0.3, 1 or 3) and, for DP-SGD, the start (w_0 = 0 or
# N(0, I/d); DP-FTRL always starts there) are tuned per algorithm, spectrum and eps on a validation
# problem at N = 550 with data seed 100 (tune.sh).
set -eu
DPTRAIN=${1:-./dptrain}
OUT=${2:-docs/repro}
SEEDS=${SEEDS:-5}
TEST=2000
HERE=$(dirname "$0")
. "$HERE/tune.sh"
mkdir -p "$OUT"
ALGS="dp-glmtron dp-taglmtron dp-relu-sgd dp-ftrl"
GLM_GRID="--clip:0.3 --clip:1 --clip:3"
SGD_GRID="--clip:0.3 --clip:1 --clip:3 --clip:0.3:--init-scale:1 --clip:1:--init-scale:1 --clip:3:--init-scale:1"
FTRL_GRID="--clip:0.3:--init-scale:1 --clip:1:--init-scale:1 --clip:3:--init-scale:1"
batches() {   # the fixed options of an algorithm
    case $1 in dp-relu-sgd|dp-ftrl) echo "--batch-size 10" ;; *) echo "" ;; esac
}
: >"$OUT/synthetic-tuned.txt"

problem() {   # problem N SEED DECAY EPS: the dptrain arguments of one run
    total=$(($1 + TEST))
    frac=$(awk -v t="$TEST" -v n="$total" 'BEGIN { printf "%.17g", t / n }')
    echo "--synthetic n=$total,d=1024,spectrum=poly,decay=$3,noise=0.1,wstar=$wnorm,seed=$2 --test-fraction $frac
          --seed $2 --epsilon $4 --delta auto --learning-rate 1e-2"
}

for decay in 2 3; do
    wnorm=$(awk -v r="$decay" 'BEGIN { t = 0; for (i = 1; i <= 1024; i++) t += i^-r; printf "%.10g", sqrt(1024 / t) }')
    for eps in 0.05 0.2 0.5; do
        dat="$OUT/synthetic-poly$decay-eps$eps.dat"
        echo "# N  then mean and std of the excess risk for: $ALGS (seeds: $SEEDS)" >"$dat"
        chosen=""
        for alg in $ALGS; do
            case $alg in dp-relu-sgd) grid=$SGD_GRID ;; dp-ftrl) grid=$FTRL_GRID ;; *) grid=$GLM_GRID ;; esac
            # shellcheck disable=SC2046
            best=$(tune excess_risk "$grid" "$DPTRAIN" "$alg" $(problem 550 100 "$decay" "$eps") $(batches "$alg"))
            echo "i^-$decay eps $eps $alg: $(expand "$best")" >>"$OUT/synthetic-tuned.txt"
            chosen="$chosen $best"
        done
        N=50
        while [ "$N" -le 550 ]; do
            echo "glmtron-synthetic: i^-$decay, eps $eps, N = $N" >&2
            line="$N"
            i=0
            for alg in $ALGS; do
                i=$((i + 1))
                cfg=$(echo "$chosen" | awk -v i="$i" '{ print $i }')
                vals=""
                s=1
                while [ "$s" -le "$SEEDS" ]; do
                    # shellcheck disable=SC2046
                    v=$("$DPTRAIN" "$alg" $(problem "$N" "$s" "$decay" "$eps") $(batches "$alg") $(expand "$cfg") --format json |
                        awk -F': ' '/"excess_risk"/ { sub(/,$/, "", $2); print $2 }')
                    vals="$vals $v"
                    s=$((s + 1))
                done
                line="$line $(echo "$vals" | meansd)"
            done
            echo "$line" >>"$dat"
            N=$((N + 100))
        done
    done
done

if command -v gnuplot >/dev/null 2>&1; then
    gnuplot <<GP
set terminal pngcairo size 1500,900 font ",10"
set output "$OUT/glmtron-synthetic.png"
set multiplot layout 2,3 title "Ding et al. (NeurIPS 2024), synthetic experiment: excess risk against N (d = 1024, delta = 1/N^1.1, one pass, $SEEDS seeds)"
set xlabel "training examples N"
set ylabel "excess risk"
set logscale y
set key top right
do for [decay in "2 3"] {
  do for [eps in "0.05 0.2 0.5"] {
    set title sprintf("lambda_i = i^-%s, eps = %s", decay, eps)
    f = sprintf("$OUT/synthetic-poly%s-eps%s.dat", decay, eps)
    plot f using 1:2:3 with yerrorlines title "DP-GLMtron", \
         f using 1:4:5 with yerrorlines title "DP-TAGLMtron", \
         f using 1:6:7 with yerrorlines title "DP-SGD", \
         f using 1:8:9 with yerrorlines title "DP-FTRL"
  }
}
unset multiplot
GP
fi
# the report's comparisons in standard errors, from the data files above
SEEDS=$SEEDS sh "$HERE/glmtron-gaps.sh" "$OUT" >"$OUT/synthetic-gaps.md"
