#!/usr/bin/python3
"""Reference deltas of Feldman & Shenfeld's decomposition pair for random
allocation with T = 2 steps, one epoch (tests/test_allocation_pld.c).

Poisson sampling at q = 1/2 over the 2 steps, conditioned on the record
being used (probability lambda = 3/4), gives
  P1 = (N(e_1, s^2 I) + N(e_2, s^2 I) + N(e_1 + e_2, s^2 I)) / 3   against   Q = N(0, s^2 I).
With Y_i = exp((x_i - 1/2)/s^2) (independent under Q, log Y ~ N(-1/(2 s^2), 1/s^2)),
  L = P1/Q = ((1 + Y_1)(1 + Y_2) - 1) / 3,
  remove: delta(eps) = E_Q[(L - e^eps)_+],   add: delta(eps) = E_Q[(1 - e^eps L)_+].
Two independent computations:
 1. for each x_1 the region in Y_2 is a half-line, whose integrals against
    the lognormal are closed (E[Y 1{Y > c}] = Phibar(s log c - 1/(2 s)),
    P(Y > c) = Phibar(s log c + 1/(2 s))); the outer integral by quad;
 2. the plain two-dimensional integral by dblquad.
Also the exact random allocation (P = (N(e_1) + N(e_2))/2, L = (Y_1 + Y_2)/2)
by the same one-dimensional route, which the decomposition must not undercut.
"""
import numpy as np
from scipy import integrate, stats

S = 1.0


def lognormal_parts(c, s):
    """P(Y > c), E[Y 1{Y > c}] for log Y ~ N(-1/(2 s^2), 1/s^2)."""
    if c <= 0:
        return 1.0, 1.0
    lc = np.log(c)
    return stats.norm.sf(s * lc + 0.5 / s), stats.norm.sf(s * lc - 0.5 / s)


def half_line_integral(eps, s, direction, coefficients):
    """The profile when L = a + b Y_2 given x_1, (a, b) = coefficients(Y_1)."""
    def inner(x1):
        a, b = coefficients(np.exp((x1 - 0.5) / s**2))
        if direction == "remove":
            c = (np.exp(eps) - a) / b
            pg, eg = lognormal_parts(c, s)
            return a * pg + b * eg - np.exp(eps) * pg
        c = (np.exp(-eps) - a) / b       # L < e^-eps  iff  Y2 < c
        if c <= 0:
            return 0.0
        pg, eg = lognormal_parts(c, s)
        return (1.0 - pg) - np.exp(eps) * (a * (1.0 - pg) + b * (1.0 - eg))
    val, _ = integrate.quad(lambda x: stats.norm.pdf(x, scale=s) * inner(x), -40 * s, 40 * s,
                            epsabs=1e-14, epsrel=1e-12, limit=500)
    return val


def decomposition(eps, s, direction):
    """L = ((1 + Y1)(1 + Y2) - 1)/3 = Y1/3 + ((1 + Y1)/3) Y2."""
    return half_line_integral(eps, s, direction, lambda y1: (y1 / 3.0, (1.0 + y1) / 3.0))


def decomposition_2d(eps, s, direction):
    def f(x2, x1):
        y1, y2 = np.exp((x1 - 0.5) / s**2), np.exp((x2 - 0.5) / s**2)
        L = ((1 + y1) * (1 + y2) - 1) / 3.0
        q = stats.norm.pdf(x1, scale=s) * stats.norm.pdf(x2, scale=s)
        return q * max(L - np.exp(eps), 0.0) if direction == "remove" else q * max(1.0 - np.exp(eps) * L, 0.0)
    val, _ = integrate.dblquad(f, -12 * s, 12 * s, -12 * s, 12 * s, epsabs=1e-11, epsrel=1e-9)
    return val


def allocation(eps, s, direction):
    """L = (Y1 + Y2)/2."""
    return half_line_integral(eps, s, direction, lambda y1: (y1 / 2.0, 0.5))


if __name__ == "__main__":
    for eps in (0.0, 0.5, 1.0, 2.0):
        for d in ("remove", "add"):
            one, two, ex = decomposition(eps, S, d), decomposition_2d(eps, S, d), allocation(eps, S, d)
            print(f"s {S} eps {eps} {d:6s}: decomposition {one:.12g} (2-d {two:.12g}, diff {abs(one - two):.1e});"
                  f" exact allocation {ex:.12g}")
