#!/bin/sh
# ncgd-figure6.sh - Figure 6 (Appendix F) of Koskela, "Approximating Two-Layer
# ReLU Networks for Hidden State Analysis in Differential Privacy" (arXiv
# 2024), from `dpacct`: DP-SGD with batches drawn without replacement
# (exactly b = 600 of n = 60,000 records, ratio 0.01), noise multiplier 5,
# replace-one neighbours, delta = 1e-5; epsilon against epochs (100 steps
# each) by the two accountings the appendix compares:
# - rdp: the RDP bound of Wang, Balle & Kasiviswanathan (AISTATS 2019,
#   Thm 9), converted to (eps, delta) by Canonne, Kamath & Steinke's
#   conversion (the paper's Lemma F.1);
# - pld: the dominating pair of Zhu, Dong & Wang (AISTATS 2022), composed by
#   FFT (Doroshenko et al. 2022's connect-the-dots discretisation in the
#   paper; dpacct's own certified discretisation here), with the pair's
#   lower bound.
#
#   sh docs/repro/ncgd-figure6.sh [DPACCT] [OUTDIR]
#
# writes OUTDIR/ncgd-figure6.dat and, when gnuplot is there,
# OUTDIR/ncgd-figure6.png.
set -eu
DPACCT=${1:-./dpacct}
OUT=${2:-docs/repro}
mkdir -p "$OUT"
dat="$OUT/ncgd-figure6.dat"
echo "# epochs steps  eps rdp (Wang et al. 2019 Thm 9 + CKS)  eps pld upper  eps pld lower (delta 1e-5)" >"$dat"
for E in 1 2 5 10 20 50 100 200 400; do
    csv=$("$DPACCT" compare --noise-multiplier 5 --sampling without-replacement --batch-size 600 \
          --dataset-size 60000 --relation replace-one --epochs "$E" --delta 1e-5 --format csv)
    rdp=$(echo "$csv" | awk -F, '$1 == "rdp" { print $5 }')
    pld=$(echo "$csv" | awk -F, '$1 == "pld" { print $5, $6 }')
    echo "$E $((E * 100)) $rdp $pld" >>"$dat"
done
cat "$dat"
if command -v gnuplot >/dev/null 2>&1; then
    gnuplot <<GP
set terminal pngcairo size 800,550 font ",11"
set output "$OUT/ncgd-figure6.png"
set title "Koskela (arXiv 2024), Fig. 6: sampling without replacement, ratio 0.01, noise multiplier 5, delta 1e-5"
set xlabel "epochs (100 steps each)"
set ylabel "epsilon"
set logscale x
set key top left
plot "$dat" using 1:3 with linespoints title "RDP (Wang et al. 2019, Thm 9) + CKS conversion", \
     "$dat" using 1:4 with linespoints title "PLD of Zhu et al. 2022's dominating pair (upper)", \
     "$dat" using 1:5 with lines dashtype 2 title "the same pair, lower bound"
GP
fi
