#!/usr/bin/env python3
"""Reference values for tests/cli/test-cli.sh and tests/python/test_statement.py
(Laplace composed 100 times; the calibration of its scale): eps at delta of
T releases of Laplace(b) (sensitivity 1), from the privacy loss of one
release, L(x) = (|x - 1| - |x|)/b under x ~ Laplace(0, b) (an atom 1/b of
mass 1/2, an atom -1/b of mass e^(-1/b)/2, and (1 - 2x)/b between),
rounded down (a lower bound on delta(eps), hence on eps) and up (an upper
bound) to a grid of h, composed T times by numpy's FFT, and solved for
delta(eps) = E[(1 - e^(eps - L))+] = delta with scipy's brentq.  Independent
of the library.  Not run by the suites (needs numpy and scipy; a few
seconds):
    python3 tests/ref/laplace_composition.py
prints "b eps_lower eps_upper" for b = 10 and 9.99.
"""
import numpy as np
from scipy.optimize import brentq
from scipy import stats
def pld(b, h, up):
    # loss on grid k*h ; Laplace(0,b) vs Laplace(1,b): L(x) = (|x-1|-|x|)/b
    # masses: x<=0 -> L=1/b ; x>=1 -> L=-1/b ; 0<x<1: L=(1-2x)/b, x=(1-bL)/2
    K = int(np.ceil(1/b/h))+2
    grid = np.arange(-K, K+1)
    p = np.zeros(len(grid))
    def idx(L):
        k = np.ceil(L/h - 1e-12) if up else np.floor(L/h + 1e-12)
        return int(k)+K
    p[idx(1/b)] += 0.5
    p[idx(-1/b)] += 0.5*np.exp(-1/b)
    # continuous part: split L in [-1/b,1/b] into cells of the grid
    edges = np.arange(-K, K+1)*h
    edges = np.clip(edges, -1/b, 1/b)
    # P(L in [a,c]) = P(x in [(1-bc)/2,(1-ba)/2]) with x in (0,1)
    cdf = lambda x: stats.laplace.cdf(x, 0, b)
    for j in range(len(edges)-1):
        a, c = edges[j], edges[j+1]
        if c <= a: continue
        m = cdf((1-b*a)/2) - cdf((1-b*c)/2)
        p[(j+1) if up else j] += m  # cell [grid j, grid j+1]: up -> j+1, down -> j
    return p, K
def eps_at(b, T, delta, h, up):
    p, K = pld(b, h, up)
    n = len(p)*T
    N = 1<<int(np.ceil(np.log2(n)))
    f = np.fft.rfft(p, N)**T
    q = np.fft.irfft(f, N)[:n]
    q = np.maximum(q, 0)
    L = (np.arange(n) - K*T)*h
    def d(e):
        m = L > e
        return np.sum(q[m]*(1-np.exp(e-L[m])))
    return brentq(lambda e: d(e)-delta, 0, 50, xtol=1e-12)
for b in (10.0, 9.99):
    print(b, eps_at(b, 100, 1e-5, 2e-5, False), eps_at(b, 100, 1e-5, 2e-5, True))
