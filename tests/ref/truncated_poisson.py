#!/usr/bin/env python3
"""Reference values for tests/test_pld_profiles.c (truncated_poisson_*):
one step of truncated Poisson sampling of a Gaussian (dp_accounting's
TruncatedSubsampledGaussianDpEvent; arXiv 2508.15089), analysed as the
mixture of lib/truncated_poisson.c, computed here from the definitions in
mpmath at 40 digits, independently of the library:

  p  = P(K >= B), K ~ Bin(n - 1, q): the sum of the binomial terms;
  q' = q E[B/(K + 1) | K >= B]: the sum of the terms times B/(k + 1)
       (not the library's closed form (B/n) P(Bin(n, q) >= B + 1) / p);
  the hockey-stick divergence of each part by numerical integration
  (mpmath.quad) of (P(x) - e^eps Q(x))_+ over the real line, split where
  the likelihood ratio crosses e^eps (found by bisection):
    part 1, shift 1:  P = (1 - q) N(0, S^2) + q N(1, S^2),   Q = N(0, S^2)
    part 2, shift 2:  P = (1 - q') N(0, S^2) + q' N(2, S^2), Q = N(0, S^2)
  (shift 2 at noise S: the library's sigma/2 at shift 1, scaled), for the
  remove world (P against Q) and the add world (Q against P);
  delta = (1 - p) delta_1 + p delta_2 in each world.  (The add world's
  losses are at most -log(1 - rate): its delta is 0 above that.)

Not run by the suites (needs mpmath):
    python3 tests/ref/truncated_poisson.py
prints "n q B S p q' eps delta_remove delta_add".
"""
from mpmath import mp, mpf, binomial, exp, log, sqrt, pi, quad, inf

mp.dps = 40


def weights(n, q, B):
    """p = P(Bin(n-1, q) >= B) and q' = q E[B/(K+1) | K >= B]."""
    p = mpf(0)
    m = mpf(0)
    for k in range(B, n):
        t = binomial(n - 1, k) * q ** k * (1 - q) ** (n - 1 - k)
        p += t
        m += t * mpf(B) / (k + 1)
    return p, (q * m / p if p > 0 else mpf(0))


def normal(x, mu, s):
    return exp(-(x - mu) ** 2 / (2 * s * s)) / (s * sqrt(2 * pi))


def hockey(eps, s, r, d, world):
    """H_{e^eps} of ((1-r) N(0,s^2) + r N(d,s^2), N(0,s^2)) (remove) or of
    the reverse (add), by quadrature from the crossing point."""
    mix = lambda x: (1 - r) * normal(x, 0, s) + r * normal(x, d, s)
    base = lambda x: normal(x, 0, s)
    if world == "remove":
        f = lambda x: mix(x) - exp(eps) * base(x)
    else:
        f = lambda x: base(x) - exp(eps) * mix(x)
    # the likelihood ratio mix/base is increasing in x: f changes sign once
    lo, hi = mpf(-200) * s - 10, mpf(200) * s + 10
    if f(lo) > 0 and f(hi) > 0:
        return quad(f, [-inf, 0, inf])
    if f(lo) <= 0 and f(hi) <= 0:
        return mpf(0)
    for _ in range(300):
        mid = (lo + hi) / 2
        if (f(mid) > 0) == (f(hi) > 0):
            hi = mid
        else:
            lo = mid
    x = (lo + hi) / 2
    if world == "remove":   # f > 0 right of x
        return quad(f, [x, x + s, x + 5 * s, x + 20 * s, inf])
    return quad(f, [-inf, x - 20 * s, x - 5 * s, x - s, x])


CASES = [
    # n, q, B, S, eps values
    (1000, mpf("0.01"), 12, mpf(1), (mpf("0.005"), mpf("0.5"), mpf(1), mpf(2))),
    (1000, mpf("0.01"), 15, mpf(1), (mpf("0.005"), mpf("0.5"), mpf(1), mpf(2))),
    (1000, mpf("0.01"), 30, mpf(1), (mpf(1),)),
    (100, mpf(1), 10, mpf(2), (mpf("0.05"), mpf("0.5"), mpf(1))),
]

if __name__ == "__main__":
    for n, q, B, S, epss in CASES:
        p, q2 = weights(n, q, B)
        for eps in epss:
            d = {}
            for w in ("remove", "add"):
                d1 = hockey(eps, S, q, 1, w)
                d2 = hockey(eps, S, q2, 2, w)
                d[w] = (1 - p) * d1 + p * d2
            print(n, q, B, S, mp.nstr(p, 20), mp.nstr(q2, 20), eps, mp.nstr(d["remove"], 20),
                  mp.nstr(d["add"], 20))
