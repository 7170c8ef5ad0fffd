#!/usr/bin/env python3
"""Reference values for tests/test_gaussian.c (group_privacy_matches_the_lemma)
and tests/python/test_statement.py: the best group-privacy bound that
Vadhan's Lemma 2.2 ("The Complexity of Differential Privacy", 2017) gives
for the mu-Gaussian at delta: k eps(d*) at the d* where
k e^((k-1) eps(d*)) d* = delta, eps(d) inverting the closed form of Balle &
Wang (ICML 2018), delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2),
by bisection in mpmath at 40 digits; beside it the exact eps of mu = k.
Independent of the library.  Not run by the suites (needs mpmath):
    python3 tests/ref/group_privacy.py
prints "k group_eps example_eps example_delta exact_eps_of_mu_k".
"""
from mpmath import mp, mpf, ncdf, exp, log, findroot
mp.dps = 40
def delta_of(eps, mu):
    return ncdf(-eps/mu + mu/2) - exp(eps)*ncdf(-eps/mu - mu/2)
def eps_of(d, mu):
    lo, hi = mpf(0), mpf(200)
    for _ in range(300):
        m = (lo+hi)/2
        if delta_of(m, mu) > d: lo = m
        else: hi = m
    return hi
def group(k, delta, mu):
    # boundary: log k + (k-1) eps(d) + log d = log delta, solved in log d
    f = lambda ld: log(k) + (k-1)*eps_of(exp(ld), mu) + ld - log(delta)
    lo, hi = log(delta/k) - 200, log(delta/k)
    for _ in range(200):
        m = (lo+hi)/2
        if f(m) > 0: hi = m
        else: lo = m
    d = exp(lo)
    return k*eps_of(d, mu), eps_of(d, mu), d
for k in (2, 4, 10):
    g, e, d = group(k, mpf('1e-5'), mpf(1))
    print(k, mp.nstr(g, 17), mp.nstr(e, 17), mp.nstr(d, 17), mp.nstr(eps_of(mpf('1e-5'), mpf(k)), 17))
