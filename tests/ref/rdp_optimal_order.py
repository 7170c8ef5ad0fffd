#!/usr/bin/env python3
"""Reference values for tests/test_rdp.c (search_beats_published_grids,
search_matches_references): the minimum over real orders alpha of the
Canonne-Kamath-Steinke conversion of the RDP curve of a Poisson-sampled
Gaussian composed T times,

    eps(alpha) + log(1 - 1/alpha) - (log delta + log alpha) / (alpha - 1),
    eps(alpha) = T log E_{u ~ N(0,1)}[(1 - q + q e^{(2 sigma u - 1)/(2 sigma^2)})^alpha] / (alpha - 1)

(Mironov, Talwar & Zhang 2019; q = 1 is the Gaussian, T alpha / (2 sigma^2)).
The expectation is integrated by mpmath's tanh-sinh quadrature at 40
digits, split at the integrand's two peaks (u = 0 and u = alpha/sigma), and
the order by golden section in log(alpha - 1) down to 1e-9.  Independent of
the library: no code in common with accountants/rdp/.  Not run by the test
suite (it needs mpmath and takes about ten seconds a row):

    python3 tests/ref/rdp_optimal_order.py Q SIGMA T DELTA ALPHA_LO ALPHA_HI

prints alpha* and eps* for the optimum inside [ALPHA_LO, ALPHA_HI]; the
tests' rows used a bracket of +-15% of (alpha - 1) around the accountant's
order, the optimum well inside it.  The parameters are read as doubles,
as the library receives them.
"""
import sys

import mpmath as mp

mp.mp.dps = 40


def log_moment(q, sigma, alpha):
    q, sigma, alpha = mp.mpf(q), mp.mpf(sigma), mp.mpf(alpha)

    def integrand(u):
        x = q * mp.expm1((2 * sigma * u - 1) / (2 * sigma**2))
        return mp.npdf(u) * mp.exp(alpha * mp.log1p(x))

    peak = alpha / sigma
    cuts = [-mp.inf]
    for p in sorted([mp.mpf(-12), mp.mpf(0), mp.mpf(12), peak - 12, peak, peak + 12]):
        if p > cuts[-1]:
            cuts.append(p)
    cuts.append(mp.inf)
    return mp.log(mp.quad(integrand, cuts))


def rdp(q, sigma, steps, alpha):
    if q == 1:
        return steps * mp.mpf(alpha) / (2 * mp.mpf(sigma) ** 2)
    return steps * log_moment(q, sigma, alpha) / (mp.mpf(alpha) - 1)


def cks(q, sigma, steps, delta, alpha):
    a = mp.mpf(alpha)
    return rdp(q, sigma, steps, a) + mp.log1p(-1 / a) - (mp.log(mp.mpf(delta)) + mp.log(a)) / (a - 1)


def optimum(q, sigma, steps, delta, lo, hi, tol=1e-9):
    """Golden section on log(alpha - 1) over [lo, hi]."""
    g = (mp.sqrt(5) - 1) / 2
    a, b = mp.log(mp.mpf(lo) - 1), mp.log(mp.mpf(hi) - 1)

    def f(t):
        return cks(q, sigma, steps, delta, 1 + mp.exp(t))

    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    while b - a > tol:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    t = (a + b) / 2
    return 1 + mp.exp(t), f(t)


if __name__ == '__main__':
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    q, sigma, steps, delta, lo, hi = map(float, sys.argv[1:])
    alpha, eps = optimum(q, sigma, steps, delta, lo, hi)
    print(f"q={q:g} sigma={sigma:g} T={steps:g} delta={delta:g}: "
          f"alpha*={mp.nstr(alpha, 12)} eps*={mp.nstr(eps, 17)}")
