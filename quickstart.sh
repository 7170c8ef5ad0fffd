#!/bin/sh
# quickstart.sh - from a fresh Debian machine to a working dpacct:
# installs the missing packages, builds, and runs a real example.
#   ./quickstart.sh          install (as root), build, run the DP-SGD example
#   ./quickstart.sh --deps   only install the packages (used by .ci/run)
set -eu
cd "$(dirname "$0")"

PACKAGES="build-essential autoconf automake libtool libtool-bin pkg-config libgsl-dev libfftw3-dev
libmpfr-dev libgmp-dev check zlib1g-dev libsodium-dev libjansson-dev gnuplot-nox libopenblas-dev libglpk-dev dataset-fashion-mnist
python3 python3-pytest locales"

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "quickstart: installing$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update
        apt-get install -y $missing
    else
        echo "quickstart: these packages are missing:$missing"
        echo "quickstart: install them as root, then run me again:"
        echo "    apt-get update && apt-get install -y$missing"
        exit 1
    fi
fi
[ "${1:-}" = "--deps" ] && exit 0

autoreconf -fi
./configure
make -j2

echo
echo "== DP-SGD on 60,000 examples, batch 256, noise multiplier 1.1, 60 epochs, delta = 1e-5 =="
./dpacct compare --dataset-size 60000 --batch-size 256 --sigma 1.1 --epochs 60 --delta 1e-5

echo
echo "== DP-GLMtron on synthetic ReLU regression (n = 550, d = 1024), eps = 0.5, delta = 1/N^1.1 =="
./dptrain dp-glmtron --synthetic n=550,d=1024,decay=2 --epsilon 0.5 --delta auto
