#!/usr/bin/env python3
"""Reference values for tests/test_mechanisms.c (permute_and_flip_is_pure_dp):
the exact privacy profile of k releases of a pure eps-DP mechanism, which is
that of k randomized-response pairs (Kairouz, Oh & Viswanath, ICML 2015,
Thm 3.3): delta(e') = sum_i C(k, i) (e^((k-i) eps) - e^e' e^(i eps))_+ /
(1 + e^eps)^k, and eps at delta by bisection, in mpmath at 40 digits.
Independent of the library.  Not run by the suites (needs mpmath):
    python3 tests/ref/pure_composition.py
prints "k eps delta eps_at_delta delta_at_eps'=2".
"""
from mpmath import mp, mpf, binomial, exp, findroot
mp.dps = 40
def delta(k, eps, e1):
    s = mpf(0)
    for i in range(k + 1):
        v = exp((k - i) * eps) - exp(e1) * exp(i * eps)
        if v > 0: s += binomial(k, i) * v
    return s / (1 + exp(eps)) ** k
def eps_at(k, eps, d):
    lo, hi = mpf(0), mpf(k) * eps
    for _ in range(200):
        m = (lo + hi) / 2
        if delta(k, eps, m) > d: lo = m
        else: hi = m
    return hi
for k, eps, d in ((10, mpf('0.5'), mpf('1e-5')), (100, mpf('0.1'), mpf('1e-5')), (10, mpf('0.5'), mpf('1e-3'))):
    print(k, eps, d, mp.nstr(eps_at(k, eps, d), 20), mp.nstr(delta(k, eps, mpf(2)), 20))
