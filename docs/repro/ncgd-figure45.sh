#!/bin/sh
# ncgd-figure45.sh - Figures 4 and 5 (Appendices E.1, E.2) of Koskela,
# "Approximating Two-Layer ReLU Networks for Hidden State Analysis in
# Differential Privacy" (arXiv 2024) on Fashion-MNIST (Debian's
# dataset-fashion-mnist): how well the gated-ReLU convex model approximates
# a ReLU network as its number of gates P grows, trained by SGD without
# noise (Fig. 4) and by DP-SGD at noise multipliers 15 and 5 (Fig. 5): test
# accuracy after every epoch for P in {16, 64, 128} against the ReLU network
# of width 200.  Batch 1000 (Poisson for DP-SGD; the same sampling without
# noise), clip 1, delta 1e-5, replace-one, learning rate 1 for every model
# (not tuned: the figure is about the models), pixels in [0, 1], EPOCHS
# epochs (default 3; the paper's figures run longer, and its P grid goes to
# 256, left out for compute), seed 1.
#
#   sh docs/repro/ncgd-figure45.sh [DPTRAIN] [OUTDIR]
#
# writes OUTDIR/ncgd-figure45.dat (setting, model, epoch, eps, test
# accuracy) and, with gnuplot, OUTDIR/ncgd-figure45.png.
set -eu
DPTRAIN=${1:-./dptrain}
OUT=${2:-docs/repro}
EPOCHS=${EPOCHS:-3}
DIR=${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
HERE=$(dirname "$0")
. "$HERE/tune.sh"
DATA="--data $DIR/train-images-idx3-ubyte.gz --labels $DIR/train-labels-idx1-ubyte.gz
      --test-data $DIR/t10k-images-idx3-ubyte.gz --test-labels $DIR/t10k-labels-idx1-ubyte.gz"
mkdir -p "$OUT"
dat="$OUT/ncgd-figure45.dat"
echo "# setting model epoch eps test_accuracy (batch 1000, learning rate 1, $EPOCHS epochs; eps -1: no noise)" >"$dat"
for setting in nonprivate sigma15 sigma5; do
    case $setting in
        nonprivate) privacy="--no-noise" ;;
        sigma15) privacy="--noise-multiplier 15 --delta 1e-5" ;;
        *) privacy="--noise-multiplier 5 --delta 1e-5" ;;
    esac
    for model in convex-16 convex-64 convex-128 relu-200; do
        echo "ncgd-figure45: $setting, $model" >&2
        case $model in
            convex-*) spec="--model convex --hyperplanes ${model#convex-}" ;;
            *) spec="--model relu --width 200" ;;
        esac
        # shellcheck disable=SC2086
        "$DPTRAIN" sgd $spec $DATA $privacy --batch-size 1000 --learning-rate 1 --epochs "$EPOCHS" --seed 1 \
            --per-epoch --format json |
            per_epoch "$setting $model" >>"$dat"
    done
done
cat "$dat"
if command -v gnuplot >/dev/null 2>&1; then
    gnuplot <<GP
set terminal pngcairo size 1500,500 font ",11"
set output "$OUT/ncgd-figure45.png"
set multiplot layout 1,3 title "Koskela (arXiv 2024), Figs. 4-5 on Fashion-MNIST: the convex model's gates P against a ReLU network (W = 200)"
set xlabel "epoch"
set ylabel "test accuracy"
set key bottom right
do for [s in "nonprivate sigma15 sigma5"] {
    set title (s eq "nonprivate" ? "SGD without noise (Fig. 4)" : sprintf("DP-SGD, noise multiplier %s (Fig. 5)", s[6:]))
    plot for [m in "convex-16 convex-64 convex-128 relu-200"] "$dat" using (strcol(1) eq s && strcol(2) eq m ? \$3 : 1/0):5 \
         with linespoints title m
}
unset multiplot
GP
fi
