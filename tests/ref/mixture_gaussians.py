#!/usr/bin/env python3
"""Reference values for tests/test_mixture.c: the mixture of Gaussians
(Choquette-Choo, Ganesh, Steinke & Thakurta, ICLR 2024), computed with
mpmath and numpy independently of the library.

The pair, sigma = 1.3, c = [0, 1, 2.5], p = [0.6, 0.3, 0.1]:
  remove world  P = sum_i p_i N(c_i, sigma^2),  Q = N(0, sigma^2)
  add world     P = N(0, sigma^2),              Q = sum_i p_i N(c_i, sigma^2)

1. One step: delta(eps) = integral of max(0, p(x) - e^eps q(x)) dx by
   mpmath quadrature at 50 digits, the range split where the integrand's
   kink is (the likelihood ratio is monotone in x, so there is one, found
   by bisection at 50 digits).

2. Twenty steps: the loss L(x) = log p(x)/q(x) under P, sliced on a lattice
   of step h: each slice (x_k-1, x_k] between the points where L crosses
   k h holds mass P(x_k-1 < X <= x_k), its loss rounded up to k h (an
   upper bound: delta(eps) = E_P[(1 - e^{eps - L})_+] grows with
   every loss) or down to (k-1) h (a lower bound).  The slices' edges by
   bisection in double on L (log-sum-exp), the masses from normal CDFs.
   The tails outside the lattice: for the upper bound the lower tail
   rounded up onto the lattice and the upper tail's paths counted as
   delta 1; for the lower bound dropped.  The 20-fold convolution by
   numpy's FFT, then
   delta = sum_k mass_k (1 - e^{eps - k h})_+ of each; the FFT's rounding
   (about 1e-16 of the total mass per entry) is far below the widths.

3. Far tails, where quadrature loses its digits: the two-term formula
   delta_R = sum_i p_i Phibar((x - c_i)/s) - e^eps Phibar(x/s) at the root x
   of the loss (mpmath.findroot), at 80 digits, reported as log delta
   (these are far below the doubles).

Run: /usr/bin/python3 tests/ref/mixture_gaussians.py   (prints the values the test records)
"""
import mpmath as mp
import numpy as np
from scipy.special import ndtr

SIGMA = 1.3
C = [0.0, 1.0, 2.5]
P = [0.6, 0.3, 0.1]
STEPS = 20


def mix_pdf(x):
    return sum(mp.mpf(p) * mp.npdf(x, c, SIGMA) for c, p in zip(C, P))


def zero_pdf(x):
    return mp.npdf(x, 0, SIGMA)


def log_ratio(x):
    return mp.log(mix_pdf(x) / zero_pdf(x))


def one_step(eps, world):
    """delta(eps) of one step; world 0 remove (P the mixture), 1 add."""
    mp.mp.dps = 50
    eps = mp.mpf(eps)
    top, bottom = (mix_pdf, zero_pdf) if world == 0 else (zero_pdf, mix_pdf)
    f = lambda x: max(mp.mpf(0), top(x) - mp.exp(eps) * bottom(x))
    # the loss of the world, (-1)^world log_ratio, crosses eps at one x
    g = lambda x: (log_ratio(x) if world == 0 else -log_ratio(x)) - eps
    lo, hi = mp.mpf(-60), mp.mpf(60)
    if g(lo) * g(hi) > 0:   # no crossing: the integrand has one sign throughout
        return mp.quad(f, [-mp.inf, 0, mp.inf])
    for _ in range(400):    # bisection: the kink, to far below the quadrature's accuracy
        mid = (lo + hi) / 2
        if (g(mid) > 0) == (g(hi) > 0):
            hi = mid
        else:
            lo = mid
    x0 = (lo + hi) / 2
    return mp.quad(f, [-mp.inf, x0 - 10, x0, x0 + 10, mp.inf])


def np_loss(x):
    """L(x) = log p(x)/q(x) of the remove world in double (log-sum-exp)."""
    terms = np.array([np.log(p) + (c * x - c * c / 2) / SIGMA ** 2 for c, p in zip(C, P)])
    top = terms.max(axis=0)
    return top + np.log(np.exp(terms - top).sum(axis=0))


def crossing(ts):
    """The x where L(x) = t, for each t (vectorised bisection; L increases
    from log 0.6 to +inf: -200 when t is below its range)."""
    lo, hi = np.full(len(ts), -200.0), np.full(len(ts), 200.0)
    for _ in range(200):
        mid = (lo + hi) / 2
        above = np_loss(mid) > ts
        hi, lo = np.where(above, mid, hi), np.where(above, lo, mid)
    return (lo + hi) / 2


def lattice_masses(world, h, kmin, kmax):
    """P-masses of the loss slices (k-1) h < L <= k h, k in [kmin, kmax],
    and below and above the lattice."""
    ts = np.arange(kmin - 1, kmax + 1) * h
    if world == 0:   # P the mixture, L increasing: L <= t iff X <= x(t)
        xs = crossing(ts)
        cdf = sum(p * ndtr((xs - c) / SIGMA) for c, p in zip(C, P))
    else:            # P = N(0), loss -L(x): -L <= t iff X >= x(-t)
        xs = crossing(-ts)
        cdf = ndtr(-xs / SIGMA)
    return np.maximum(np.diff(cdf), 0.0), cdf[0], 1.0 - cdf[-1]


def compose(masses, steps):
    n = len(masses)
    size = steps * (n - 1) + 1
    f = np.fft.rfft(masses, 1 << (size - 1).bit_length())
    return np.maximum(np.fft.irfft(f ** steps, 1 << (size - 1).bit_length())[:size], 0.0)


def composed_bracket(world, eps_list, h=5e-5):
    lo_loss, hi_loss = (-0.52, 30.0) if world == 0 else (-30.0, 0.52)
    kmin, kmax = int(np.floor(lo_loss / h)), int(np.ceil(hi_loss / h))
    masses, below, above = lattice_masses(world, h, kmin, kmax)
    up_masses = masses.copy()
    up_masses[0] += below          # rounded up onto the lattice
    comp_up, comp_low = compose(up_masses, STEPS), compose(masses, STEPS)
    ks = np.arange(len(comp_up)) + STEPS * kmin
    out = []
    for eps in eps_list:
        # upper: slice k at loss k h, lower: at (k - 1) h
        up = np.sum(comp_up * np.maximum(0.0, -np.expm1(eps - ks * h)))
        low = np.sum(comp_low * np.maximum(0.0, -np.expm1(eps - (ks - STEPS) * h)))
        # a path through the upper tail (mass `above` a step) counts fully
        up += 1.0 - (1.0 - above) ** STEPS
        out.append((low, up))
    return out


def far_tail_log_delta(s, c, p, eps, world):
    """log delta(eps) by the two-term formula at the loss's root, 80 digits."""
    mp.mp.dps = 80
    s, eps = mp.mpf(s), mp.mpf(eps)
    loss = lambda x: mp.log(sum(mp.mpf(pi) * mp.exp((ci * x - mp.mpf(ci) ** 2 / 2) / s ** 2) for ci, pi in zip(c, p)))
    t = eps if world == 0 else -eps
    x = mp.findroot(lambda x: loss(x) - t, s ** 2 * t / max(c) + mp.mpf(max(c)) / 2, tol=mp.mpf(10) ** -70)
    if world == 0:
        d = sum(mp.mpf(pi) * mp.ncdf(-(x - ci) / s) for ci, pi in zip(c, p)) - mp.exp(eps) * mp.ncdf(-x / s)
    else:
        d = mp.ncdf(x / s) - mp.exp(eps) * sum(mp.mpf(pi) * mp.ncdf((x - ci) / s) for ci, pi in zip(c, p))
    return mp.log(d)


FAR = [(5.0, [0.0, 1.0, 2.0], [0.5, 0.3, 0.2], 10.0, 0), (5.0, [0.0, 1.0, 2.0], [0.5, 0.3, 0.2], 40.0, 0),
       (1.0, [0.5, 1.0, 2.0], [0.2, 0.5, 0.3], 20.0, 1), (1.0, [0.5, 1.0, 2.0], [0.2, 0.5, 0.3], 40.0, 1)]


if __name__ == "__main__":
    print("one step, delta(eps) (remove world 0, add world 1):")
    for world, eps_list in ((0, [-0.5, 0.0, 0.5, 1.0, 2.0, 4.0, 8.0]), (1, [-0.5, 0.0, 0.3, 0.5, 0.51, 1.0])):
        for eps in eps_list:
            print("  { %d, %g, %s }," % (world, eps, mp.nstr(one_step(eps, world), 17)))
    print("far tails, log delta(eps):")
    for s_, c, p, eps, world in FAR:
        print("  { %g, %d, %g, %s }," % (s_, world, eps, mp.nstr(far_tail_log_delta(s_, c, p, eps, world), 17)))
    print("twenty steps, [lower, upper] of delta(eps):")
    for world in (0, 1):
        eps_list = [1.0, 2.0, 4.0]
        for eps, (low, up) in zip(eps_list, composed_bracket(world, eps_list)):
            print("  { %d, %g, %.10e, %.10e }," % (world, eps, low, up))
