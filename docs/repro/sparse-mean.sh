#!/bin/sh
# sparse-mean.sh - the DP mean estimation with s-sparse rows of Ghazi,
# Guzman, Kamath, Kumar & Manurangsi ("Differentially Private Optimization
# with Sparse Gradients", NeurIPS 2024): the
# l2 error of ME-1 (projection onto the l1 ball), ME-2 (compressed sensing,
# basis pursuit by GLPK, the certified sensitivity factor) and the dense
# Gaussian mechanism, against n, s and d (eps = 1, delta = 1e-5, analytic
# Gaussian calibration, L = 1, one-hot rows whose supports follow a Zipf
# law of exponent 2, so that the mean itself is close to sparse; 3 noise
# draws per point, mean and standard error).
#
#   sh docs/repro/sparse-mean.sh [DPTRAIN] [OUTDIR]
#
# writes OUTDIR/sparse-mean-{n,s,d}.dat and, when gnuplot is there,
# OUTDIR/sparse-mean.png.
set -eu
DPTRAIN=${1:-./dptrain}
OUT=${2:-docs/repro}
mkdir -p "$OUT"

# run SPEC: one line "proj proj_se comp comp_se dense dense_se" (errors)
run() {
    "$DPTRAIN" sparse-mean --synthetic "$1,zipf=2" --method all --epsilon 1 --delta 1e-5 --repeats 3 --json --quiet |
        awk -F'[:,]' '/"method"/ { gsub(/[" ]/, "", $2); m = $2 }
                      /"error":/ { e[m] = $2 + 0 }
                      /"error_se"/ { se[m] = $2 + 0 }
                      END { printf "%.6g %.3g %.6g %.3g %.6g %.3g\n", e["projection"], se["projection"],
                                   e["compressed"], se["compressed"], e["dense"], se["dense"] }'
}

header="projection  se  compressed  se  dense  se (l2 error of the mean)"
echo "sparse-mean: n, s and d varied" >&2
f="$OUT/sparse-mean-n.dat"
echo "# n  $header; d = 1000, s = 10" >"$f"
for n in 1000 3000 10000 30000 100000; do echo "$n $(run n=$n,d=1000,s=10)" >>"$f"; done
f="$OUT/sparse-mean-s.dat"
echo "# s  $header; n = 10000, d = 1000" >"$f"
for s in 2 5 10 20 40; do echo "$s $(run n=10000,d=1000,s=$s)" >>"$f"; done
f="$OUT/sparse-mean-d.dat"
echo "# d  $header; n = 10000, s = 10" >"$f"
for d in 250 500 1000 2000; do echo "$d $(run n=10000,d=$d,s=10)" >>"$f"; done

if command -v gnuplot >/dev/null 2>&1; then
    gnuplot <<GP
set terminal pngcairo size 1500,480 font ",10"
set output "$OUT/sparse-mean.png"
set multiplot layout 1,3 title "Ghazi et al. (NeurIPS 2024): DP mean of s-sparse rows (eps = 1, delta = 1e-5, L = 1, 3 draws per point)"
set logscale xy
set ylabel "l2 error"
set key bottom left
set xlabel "n (d = 1000, s = 10)"
plot "$OUT/sparse-mean-n.dat" using 1:2:3 with yerrorlines lw 2 title "ME-1 projection", \
     "" using 1:4:5 with yerrorlines lw 2 title "ME-2 compressed sensing", \
     "" using 1:6:7 with yerrorlines lw 2 title "dense Gaussian"
set xlabel "s (n = 10000, d = 1000)"
plot "$OUT/sparse-mean-s.dat" using 1:2:3 with yerrorlines lw 2 title "ME-1 projection", \
     "" using 1:4:5 with yerrorlines lw 2 title "ME-2 compressed sensing", \
     "" using 1:6:7 with yerrorlines lw 2 title "dense Gaussian"
set xlabel "d (n = 10000, s = 10)"
plot "$OUT/sparse-mean-d.dat" using 1:2:3 with yerrorlines lw 2 title "ME-1 projection", \
     "" using 1:4:5 with yerrorlines lw 2 title "ME-2 compressed sensing", \
     "" using 1:6:7 with yerrorlines lw 2 title "dense Gaussian"
unset multiplot
GP
fi
cat "$OUT"/sparse-mean-n.dat
