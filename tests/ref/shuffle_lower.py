#!/usr/bin/env python3
"""Reference values for tests/test_batches.c: Chua et al.'s lower bound for
shuffled fixed-size batches (ICML 2024; multi-epoch: NeurIPS 2024), computed
with numpy/scipy independently of the library.

The pair (the record 1 against 0, the others -1; units of the sensitivity):
  P = (1 - rho) MoG(2) + rho N(0, s^2 I),  Q = (1 - rho) MoG(1) + rho N(0, s^2 I),
  MoG(c) = (1/T) sum_t N(c e_t, s^2 I_T),  T = n // m,  rho = (n % m) / n,
post-processed by M = max_t x_t: P(M <= x) = (1-rho) Phi((x-2)/s) Phi(x/s)^(T-1)
+ rho Phi(x/s)^T.  Sliced in x, each slice a pair of masses; E epochs compose
the sliced pair.  Rounding every slice's loss down (floor) or up (ceil) to a
lattice of step h brackets the sliced pair's eps: floor <= true <= ceil.  The
library's lower bound is a lower bound of the same sliced pair, so it must lie
below the ceil value.  Also the one-set ("cube") bound of ICML 2024:
max over C of P(M > C) - e^eps Q(M > C).

Run: python3 tests/ref/shuffle_lower.py   (prints the values the test records)
"""
import math
import numpy as np
from scipy import stats
from scipy.special import log_ndtr


def log_cdf(x, s, T, c, rho):
    lz, lc = log_ndtr(x / s), log_ndtr((x - c) / s)
    mix = np.logaddexp(np.log1p(-rho) + lc, np.log(rho) + lz) if rho > 0 else lc
    return np.minimum(0.0, (T - 1) * lz + mix)


def eps_for(delta_of, delta, lo=0.0, hi=100.0):
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if delta_of(mid) > delta:
            lo = mid
        else:
            hi = mid
    return lo


def cube(s, T, rho, delta, a=2.0, b=1.0):
    xs = np.arange(-5.0, 14.0, 0.0005)
    P = -np.expm1(log_cdf(xs, s, T, a, rho))
    Q = -np.expm1(log_cdf(xs, s, T, b, rho))
    return eps_for(lambda e: np.max(P - np.exp(e) * Q), delta)


def composed(s, T, rho, E, delta, h, rounding, a=2.0, b=1.0):
    lo = s * stats.norm.ppf(math.exp(math.log(1e-30) / T))
    hi = a + s * stats.norm.isf(1e-30 / T)
    inner = np.arange(lo, hi, h * s * s / (a - b))
    lp = np.concatenate(([-np.inf], log_cdf(inner, s, T, a, rho), [0.0]))
    lq = np.concatenate(([-np.inf], log_cdf(inner, s, T, b, rho), [0.0]))
    p = np.exp(lp[1:]) * -np.expm1(lp[:-1] - lp[1:])
    q = np.exp(lq[1:]) * -np.expm1(lq[:-1] - lq[1:])
    ok = (p > 0) & (q > 0)
    loss, mass = np.log(p[ok] / q[ok]), p[ok]
    k = (np.floor if rounding == "floor" else np.ceil)(loss / h).astype(np.int64)
    k0 = k.min()
    g = np.zeros(k.max() - k0 + 1)
    np.add.at(g, k - k0, mass)
    n = (len(g) - 1) * E + 1
    N = 1 << int(math.ceil(math.log2(n)))
    comp = np.maximum(np.fft.irfft(np.fft.rfft(g, N) ** E, N)[:n], 0.0)
    losses = (np.arange(n) + E * k0) * h

    def delta_of(e):
        m = losses > e
        return np.sum(comp[m] * -np.expm1(e - losses[m]))
    return eps_for(delta_of, delta)


if __name__ == "__main__":
    n, m, s, delta = 60000, 256, 1.1, 1e-5
    T, rho = n // m, (n % m) / n
    print(f"n={n} m={m} sigma={s} delta={delta}: T={T} rho={rho}")
    print(f"cube bound, one epoch: {cube(s, T, rho, delta):.9f}")
    for E in (1, 60):
        f = composed(s, T, rho, E, delta, 2e-4, "floor")
        c = composed(s, T, rho, E, delta, 2e-4, "ceil")
        print(f"E={E}: sliced pair eps in [{f:.9f}, {c:.9f}] (h = 2e-4)")
