#!/bin/sh
# sparse-opt.sh - the optimisation side of Ghazi, Guzman, Kamath, Kumar &
# Manurangsi ("Differentially Private Optimization with Sparse Gradients",
# NeurIPS 2024) on synthetic sparse logistic
# regression (d = 1000, s = 10 one-hot features of norm L = 1, uniform
# supports, a dense w* of norm 60, 20% held out; lambda = 0.01; eps = 1,
# delta = 1e-5): the excess regularised empirical risk
# F(w_released) - min F, mean of 3 seeds, against the training size n, for
# - output perturbation with the l1 projection and without it
#   (the dense baseline), analytic Gaussian calibration;
# - the bias-reduced DP-SGD under the GDP filter (sigma0 = 30,
#   learning rate 0.01) and the dense noisy minibatch SGD under the same
#   filter (batch 64, sigma0 = 1, learning rate 0.01) -- the settings a
#   small grid on n = 10000 picked (docs/repro/ntk-sparse-report.md);
# - releasing w = 0, whose excess risk is ln 2 - min F.
#
#   sh docs/repro/sparse-opt.sh [DPTRAIN] [OUTDIR]
#
# writes OUTDIR/sparse-opt.dat and, with gnuplot, OUTDIR/sparse-opt.png.
set -eu
DPTRAIN=${1:-./dptrain}
OUT=${2:-docs/repro}
mkdir -p "$OUT"
field() { awk -F'[:,]' -v k="\"$1\"" '$1 ~ k { gsub(/ /, "", $2); print $2 + 0; exit }'; }
dat="$OUT/sparse-opt.dat"
echo "# n_train  erm_projected  erm_dense  sgd_bias_reduced  sgd_dense  w=0  (excess regularised risk, mean of 3 seeds)  sgd_steps_br  sgd_steps_dense" >"$dat"
for N in 1250 2500 6250 12500 62500; do
    spec="n=$N,d=1000,s=10,zipf=0,wstar_support=1000,wstar_norm=60"
    sums="0 0 0 0 0 0 0"
    for seed in 1 2 3; do
        S="--synthetic $spec,seed=$seed --seed $seed --lambda 0.01 --json --quiet"
        $DPTRAIN sparse-erm $S >"$OUT/.so.json"
        ep=$(field excess_risk <"$OUT/.so.json"); opt=$(field objective_optimal <"$OUT/.so.json")
        ed=$($DPTRAIN sparse-erm $S --dense | field excess_risk)
        $DPTRAIN sparse-sgd $S --noise 30 --learning-rate 0.01 >"$OUT/.so.json"
        sb=$(field excess_risk <"$OUT/.so.json"); nb=$(field steps <"$OUT/.so.json")
        $DPTRAIN sparse-sgd $S --dense --noise 1 --learning-rate 0.01 >"$OUT/.so.json"
        sd=$(field excess_risk <"$OUT/.so.json"); nd=$(field steps <"$OUT/.so.json")
        sums=$(echo "$sums" | awk -v a="$ep" -v b="$ed" -v c="$sb" -v d="$sd" -v o="$opt" -v e="$nb" -v f="$nd" \
            '{ printf "%.17g %.17g %.17g %.17g %.17g %.17g %.17g", $1 + a, $2 + b, $3 + c, $4 + d, $5 + log(2) - o,
                      $6 + e, $7 + f }')
    done
    echo "$((N * 4 / 5)) $sums" | awk '{ printf "%s %.6g %.6g %.6g %.6g %.6g %.4g %.4g\n", $1, $2/3, $3/3, $4/3, $5/3, $6/3,
                                          $7/3, $8/3 }' >>"$dat"
done
rm -f "$OUT/.so.json"
if command -v gnuplot >/dev/null 2>&1; then
    gnuplot <<GP
set terminal pngcairo size 900,600 font ",11"
set output "$OUT/sparse-opt.png"
set title "Ghazi et al. (NeurIPS 2024): sparse logistic regression, d = 1000, s = 10, lambda = 0.01, eps = 1, delta = 1e-5"
set logscale xy
set xlabel "training examples n"
set ylabel "excess regularised empirical risk (mean of 3 seeds)"
set key bottom left
plot "$dat" using 1:2 with linespoints lw 2 title "output perturbation + l1 projection", \
     "" using 1:3 with linespoints lw 2 title "output perturbation, dense", \
     "" using 1:4 with linespoints lw 2 title "bias-reduced DP-SGD (GDP filter)", \
     "" using 1:5 with linespoints lw 2 title "dense noisy SGD (GDP filter)", \
     "" using 1:6 with lines dt 2 lw 2 title "release w = 0"
GP
fi
cat "$dat"
