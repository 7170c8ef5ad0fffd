#!/usr/bin/env python3
"""Reference values for tests/test_allocation.c: the remove direction's
Renyi DP of one epoch of random allocation with Gaussian noise (T steps,
each record in one of them; Feldman & Shenfeld 2025, arXiv:2502.08202,
Cor. 6.2, first part), straight from the multinomial sum

    M(alpha) = T^-alpha sum_{a_1 + .. + a_T = alpha} alpha!/prod a_i!
               * exp(sum_i a_i (a_i - 1) / (2 sigma^2)),
    D_alpha(P || Q) = log M(alpha) / (alpha - 1),

in mpmath at 50 digits, by two enumerations that share no code with the
library (which uses a recurrence on generating functions):
- every composition (a_1, .., a_T) of alpha (small T);
- every partition of alpha into at most T parts, each counted with the
  number of ways to place its parts on the T steps, T!/((T - l)! prod_j m_j!)
  (l parts, m_j of them equal to j): any T, moderate alpha.
Both are computed for the small cases (they must agree), the second alone
for large T.  At fractional orders, for T = 2, a 2-d quadrature of
E_Q[(P/Q)^alpha] (checked against the enumeration at alpha = 3).  Not run
by the suites (needs mpmath; about ten minutes, most of it quadrature):
    python3 tests/ref/allocation_rdp.py
prints "T sigma alpha D_alpha" lines.
"""
from mpmath import mp, mpf, exp, log, factorial, quad, sqrt, pi, inf

mp.dps = 50


def weight(parts, sigma):
    """alpha!/prod a_i! exp(sum a_i (a_i - 1) / (2 sigma^2)) without alpha!."""
    w = mpf(1)
    for a in parts:
        w *= exp(mpf(a * (a - 1)) / (2 * sigma ** 2)) / factorial(a)
    return w


def compositions(alpha, T):
    if T == 1:
        yield (alpha,)
        return
    for a in range(alpha + 1):
        for rest in compositions(alpha - a, T - 1):
            yield (a,) + rest


def partitions(alpha, largest=None):
    largest = alpha if largest is None else largest
    if alpha == 0:
        yield ()
        return
    for a in range(min(alpha, largest), 0, -1):
        for rest in partitions(alpha - a, a):
            yield (a,) + rest


def rdp_by_compositions(T, sigma, alpha):
    s = sum(weight(c, sigma) for c in compositions(alpha, T))
    return log(factorial(alpha) * s / mpf(T) ** alpha) / (alpha - 1)


def rdp_by_partitions(T, sigma, alpha):
    s = mpf(0)
    for p in partitions(alpha):
        if len(p) > T:
            continue
        ways = factorial(T) / factorial(T - len(p))
        for j in set(p):
            ways /= factorial(p.count(j))
        s += ways * weight(p, sigma)
    return log(factorial(alpha) * s / mpf(T) ** alpha) / (alpha - 1)


def rdp_by_quadrature(sigma, alpha):
    """T = 2: E over z1, z2 standard normal of ((Y1 + Y2)/2)^alpha, Y =
    exp(z/sigma - 1/(2 sigma^2)), split where the integrand peaks."""
    phi = lambda z: exp(-z * z / 2) / sqrt(2 * pi)
    y = lambda z: exp(z / sigma - 1 / (2 * sigma ** 2))
    c = alpha / sigma
    pts = [-inf, -5, 0, c / 2, c, c + 6, inf]
    v = quad(lambda z1, z2: phi(z1) * phi(z2) * ((y(z1) + y(z2)) / 2) ** alpha, pts, pts)
    return log(v) / (alpha - 1)


if __name__ == "__main__":
    for T in (2, 3, 5):
        for sigma in (mpf("0.7"), mpf(2)):
            for alpha in range(2, 9):
                c, p = rdp_by_compositions(T, sigma, alpha), rdp_by_partitions(T, sigma, alpha)
                assert abs(c - p) <= mpf(10) ** -40 * abs(c)
                print(T, mp.nstr(sigma, 3), alpha, mp.nstr(c, 20))
    large = ((10000, mpf(1), (2, 3, 8, 16, 32)), (10000, mpf("0.5"), (2, 3, 8, 16, 32)),
             (1000, mpf(2), (2, 3, 8, 16, 32)), (10, mpf("0.5"), (12, 16, 24)), (10, mpf(2), (12, 16, 24)))
    for T, sigma, alphas in large:
        for alpha in alphas:
            print(T, mp.nstr(sigma, 3), alpha, mp.nstr(rdp_by_partitions(T, sigma, alpha), 20))
    mp.dps = 30
    exact = rdp_by_quadrature(mpf("0.7"), 3) - rdp_by_compositions(2, mpf("0.7"), 3)
    assert abs(exact) < mpf(10) ** -20
    for sigma, alpha in (("0.7", "1.5"), ("0.7", "2.5"), ("0.7", "5.5"), ("2", "1.5")):
        print(2, sigma, alpha, mp.nstr(rdp_by_quadrature(mpf(sigma), mpf(alpha)), 20))
