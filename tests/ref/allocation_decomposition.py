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
With --epochs: five epochs of the pair by a numpy lattice composition (part 2).
"""
import sys

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


if __name__ == "__main__" and "--epochs" not in sys.argv:
    for eps in (0.0, 0.5, 1.0, 2.0):
        for d in ("remove", "add"):
            one, two, ex = decomposition(eps, S, d), decomposition_2d(eps, S, d), allocation(eps, S, d)
            print(f"s {S} eps {eps} {d:6s}: decomposition {one:.12g} (2-d {two:.12g}, diff {abs(one - two):.1e});"
                  f" exact allocation {ex:.12g}")


# ---- part 2: five epochs, by a numpy lattice composition ---------------------------
#
# The pair's loss L' = log(P1/Q) and its distribution under P1 (remove) or
# Q (add world: the loss is -log L under Q) from the same half-line
# integrals: P1(L > x) = E_Q[L 1{L > x}] and Q(L < x) = E_Q[1{L < x}].  The
# distributions are put on a lattice of step H with losses rounded up
# (pessimistic) and down (optimistic), composed by FFT, and delta(eps)
# evaluated on each: the two bracket the five-epoch profile of the pair up
# to the tails cut below 1e-13 (the rounding of the FFT is far smaller).

H = 2e-3


def survival_of_ratio(x, s, under):
    """P1(L > x) (under = "P1") or Q(L > x) (under = "Q"), L = P1/Q, T = 2."""
    def inner(x1):
        y1 = np.exp((x1 - 0.5) / s**2)
        a, b = y1 / 3.0, (1.0 + y1) / 3.0
        c = (x - a) / b
        pg, eg = lognormal_parts(c, s)
        return a * pg + b * eg if under == "P1" else pg
    val, _ = integrate.quad(lambda t: stats.norm.pdf(t, scale=s) * inner(t), -40 * s, 40 * s,
                            epsabs=1e-15, epsrel=1e-11, limit=500)
    return val


def lattice(direction, s, lo, hi):
    """Masses of the loss on the lattice k H, k in [lo, hi], rounded up and down."""
    ks = np.arange(lo, hi + 1)
    if direction == "remove":      # loss log L under P1
        surv = np.array([survival_of_ratio(np.exp(k * H), s, "P1") for k in ks])
    else:                          # loss -log L under Q: Q(-log L > x) = Q(L < e^-x) = 1 - Q(L >= e^-x)
        surv = np.array([1.0 - survival_of_ratio(np.exp(-k * H), s, "Q") for k in ks])
    surv = np.clip(surv, 0.0, 1.0)
    # mass in (k H, (k+1) H]: surv[k] - surv[k+1]; below lo: 1 - surv[lo]; above hi: surv[hi]
    inner_mass = np.maximum(surv[:-1] - surv[1:], 0.0)
    up = np.zeros(len(ks) + 1)     # index i: loss (lo + i) H; last: +inf
    down = np.zeros(len(ks) + 1)
    up[1:len(ks)] += inner_mass    # rounded up to (k+1) H
    down[0:len(ks) - 1] += inner_mass
    up[0] += 1.0 - surv[0]         # below lo: rounded up to lo H
    up[-1] += surv[-1]             # above hi: to +inf (upper)
    down[len(ks) - 1] += 0.0       # (dropped below lo and above hi: lower)
    return ks, up, down


def compose(m, times):
    """m: masses at losses lo H .. hi H (finite part), and m_inf; times-fold."""
    finite, inf = m[:-1], m[-1]
    n = len(finite) * times
    size = 1 << int(np.ceil(np.log2(n)))
    f = np.fft.rfft(finite, size)
    out = np.fft.irfft(f ** times, size)[:n]
    total_finite = finite.sum()
    out_inf = 1.0 - (1.0 - inf) ** times if inf > 0 else 0.0
    return np.maximum(out, 0.0), out_inf, total_finite


def delta_of(masses, inf_mass, lo_total, eps):
    losses = (lo_total + np.arange(len(masses))) * H
    w = np.where(losses > eps, 1.0 - np.exp(eps - losses), 0.0)
    return inf_mass + float(np.sum(masses * w))


def five_epochs(s, eps_list, epochs=5):
    out = {}
    for direction, (lo, hi) in (("remove", (-3000, 7000)), ("add", (-4000, 3000))):
        ks, up, down = lattice(direction, s, lo, hi)
        cu, iu, _ = compose(up, epochs)
        cd, _, _ = compose(np.append(down[:-1], 0.0), epochs)
        for eps in eps_list:
            out[(direction, eps)] = (delta_of(cd, 0.0, lo * epochs, eps), delta_of(cu, iu, lo * epochs, eps))
    return out


if __name__ == "__main__":
    if "--epochs" in sys.argv:
        for (d, e), (a, b) in sorted(five_epochs(S, (1.0, 2.0, 3.0)).items()):
            print(f"5 epochs, {d:6s} eps {e}: [{a:.10g}, {b:.10g}]")
