#!/bin/sh
# ntk-fmnist.sh - the experiment of Gu, Liang, Sha, Shi & Song ("Differential
# Privacy Mechanisms in Neural Tangent Kernel Regression", WACV 2025; private
# NTK regression) on
# Fashion-MNIST from Debian's dataset-fashion-mnist: the paper's CIFAR-10
# ResNet-18 features cannot be obtained here.  100 images per class for
# training and 100 per class for testing (class-balanced, seeded), rows
# scaled to norm 1, m = 256 neurons, lambda = 1, delta = 1e-5 split evenly
# between the GSM and the truncated-Laplace feature noise, epsilon split
# evenly too.  For each total epsilon and adjacency radius beta: the test
# accuracy (mean over 3 seeds: neurons, subsets and noise), the largest k
# the GSM's exact RDP admits, and the k of the paper's threshold
# k < eps^2 / (8 ln(1/delta) M^2) (its Eq. (1), reconstructed) at the same M.
#
#   sh docs/repro/ntk-fmnist.sh [DPTRAIN] [OUTDIR]
#
# writes OUTDIR/ntk-fmnist.dat and, with gnuplot, OUTDIR/ntk-fmnist.png.
set -eu
DPTRAIN=${1:-./dptrain}
OUT=${2:-docs/repro}
D=${FMNIST:-/usr/share/datasets/fashion-mnist}
mkdir -p "$OUT"
data="--data $D/train-images-idx3-ubyte.gz --labels $D/train-labels-idx1-ubyte.gz"
data="$data --test-data $D/t10k-images-idx3-ubyte.gz --test-labels $D/t10k-labels-idx1-ubyte.gz"
data="$data --train-per-class 100 --test-per-class 100"
field() { awk -F'[:,]' -v k="\"$1\"" '$1 ~ k { gsub(/ /, "", $2); print $2 + 0; exit }'; }

. "$(dirname "$0")/tune.sh"     # meansd

dat="$OUT/ntk-fmnist.dat"
base=""
for seed in 1 2 3; do
    base="$base $($DPTRAIN ntk $data --non-private --seed "$seed" --json --quiet | field test_accuracy)"
done
basemean=$(echo "$base" | meansd | awk '{ print $1 }')
echo "# non-private NTK test accuracy (mean and standard deviation of 3 seeds): $(echo "$base" | meansd)" >"$dat"
echo "# beta  eps  test_accuracy(mean of 3)  k_max(exact RDP)  k_paper  M  test_accuracy(std of 3)" >>"$dat"
for beta in 1e-5 1e-4; do
    for eps in 0.5 1 2 4 8; do
        echo "ntk-fmnist: beta $beta, eps $eps" >&2
        accs=""; kmax=0; kpaper=0; M=0; ok=1
        for seed in 1 2 3; do
            if ! $DPTRAIN ntk $data --beta "$beta" --epsilon "$eps" --seed "$seed" --json --quiet >"$OUT/.ntk.json" 2>/dev/null; then
                ok=0; break       # no k >= 1 admissible at this budget
            fi
            accs="$accs $(field test_accuracy <"$OUT/.ntk.json")"
            kmax=$(field k_max <"$OUT/.ntk.json"); kpaper=$(field k_paper <"$OUT/.ntk.json"); M=$(field M <"$OUT/.ntk.json")
        done
        if [ "$ok" -eq 1 ]; then
            set -- $(echo "$accs" | meansd)
            echo "$beta $eps $1 $kmax $kpaper $M $2" >>"$dat"
        else echo "$beta $eps NaN 0 NaN NaN NaN" >>"$dat"; fi
    done
    echo >>"$dat"; echo >>"$dat"
done
rm -f "$OUT/.ntk.json"
if command -v gnuplot >/dev/null 2>&1; then
    gnuplot <<GP
set terminal pngcairo size 1200,480 font ",10"
set output "$OUT/ntk-fmnist.png"
set multiplot layout 1,2 title "Gu et al. (WACV 2025), private NTK regression on Fashion-MNIST (n = 1000, m = 256, lambda = 1, delta = 1e-5)"
set logscale x
set xlabel "total epsilon"
set ylabel "test accuracy"
set yrange [0:1]
set key bottom right
plot "$dat" index 0 using 2:3 with linespoints lw 2 title "private, beta = 1e-5", \
     "$dat" index 1 using 2:3 with linespoints lw 2 title "private, beta = 1e-4", \
     $basemean with lines dt 2 lw 2 title "non-private NTK"
set ylabel "GSM samples k"
set logscale y
set yrange [*:*]
set key top left
plot "$dat" index 0 using 2:4 with linespoints lw 2 title "largest k, exact RDP, beta = 1e-5", \
     "$dat" index 0 using 2:5 with linespoints lw 2 title "paper's threshold, beta = 1e-5", \
     "$dat" index 1 using 2:4 with linespoints lw 2 title "largest k, exact RDP, beta = 1e-4", \
     "$dat" index 1 using 2:5 with linespoints lw 2 title "paper's threshold, beta = 1e-4", \
     1000 with lines dt 2 title "n"
unset multiplot
GP
fi
cat "$dat"
