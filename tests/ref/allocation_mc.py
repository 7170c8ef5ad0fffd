#!/usr/bin/python3
"""Reference deltas of balls-in-bins with T = 2 steps, one epoch (tests/test_montecarlo.c).

The pair (add/remove, units of the sensitivity, noise s):
  P = (N(e_1, s^2 I) + N(e_2, s^2 I)) / 2,   Q = N(0, s^2 I)  in R^2.
remove: delta(eps) = int (p - e^eps q)_+ ;  add: delta(eps) = int (q - e^eps p)_+.

Two independent computations:
 1. one-dimensional: with x = s z, u = (z1 + z2)/sqrt 2, v = (z1 - z2)/sqrt 2
    (independent N(0, 1) under Q), k = 1/(s sqrt 2),
      p/q = exp(k u - 1/(2 s^2)) cosh(k v),
    so for each v the region p/q > e^eps is u > c(v) = (eps + 1/(2 s^2) - log cosh(k v))/k,
    and int_c^inf e^{k u} phi(u) du = e^{k^2/2} Q(c - k): the inner integral is
    closed; the outer one (over v) by scipy's quad.
 2. the plain two-dimensional integral of the positive part by scipy's dblquad.
The two agree to ~1e-6 (printed; dblquad is the coarser); the test takes the first.
"""
import numpy as np
from scipy import integrate, stats

S = 1.0


def one_dim(eps, s, direction):
    k = 1.0 / (s * np.sqrt(2.0))
    half = 0.5 / s**2

    def inner(v):
        lc = np.log(np.cosh(k * v))
        if direction == "remove":
            c = (eps + half - lc) / k
            return np.exp(k * k / 2 - half) * np.cosh(k * v) * stats.norm.sf(c - k) - np.exp(eps) * stats.norm.sf(c)
        d = (-eps + half - lc) / k
        return stats.norm.cdf(d) - np.exp(eps) * np.exp(k * k / 2 - half) * np.cosh(k * v) * stats.norm.cdf(d - k)

    val, _ = integrate.quad(lambda v: stats.norm.pdf(v) * inner(v), -40, 40, epsabs=1e-13, epsrel=1e-12, limit=400)
    return val


def two_dim(eps, s, direction):
    def dens(x1, x2):
        q = stats.norm.pdf(x1, 0, s) * stats.norm.pdf(x2, 0, s)
        p = 0.5 * (stats.norm.pdf(x1, 1, s) * stats.norm.pdf(x2, 0, s) + stats.norm.pdf(x1, 0, s) * stats.norm.pdf(x2, 1, s))
        return max(p - np.exp(eps) * q, 0.0) if direction == "remove" else max(q - np.exp(eps) * p, 0.0)

    lim = 12 * s
    val, _ = integrate.dblquad(lambda y, x: dens(x, y), -lim, lim + 1, -lim, lim + 1, epsabs=1e-8, epsrel=1e-7)
    return val


if __name__ == "__main__":
    for eps in (0.5, 1.0):
        for direction in ("remove", "add"):
            a, b = one_dim(eps, S, direction), two_dim(eps, S, direction)
            print(f"sigma {S} eps {eps} {direction}: {a:.12g} (2-D: {b:.12g}, diff {abs(a - b):.2g})")
