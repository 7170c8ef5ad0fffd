#!/usr/bin/env python3
"""Reference values for tests/test_allocation.c: the add direction of one
epoch of random allocation of K of T steps with Gaussian noise (each record
in a uniformly random K-subset of the steps; Feldman & Shenfeld 2025,
arXiv:2502.08202), D_alpha(Q || P) = log E_Q[(P/Q)^(1 - alpha)] / (alpha - 1),
with, for x ~ Q = N(0, sigma^2 I_T),

    P/Q(x) = C(T, K)^-1 sum_S exp((sum_{i in S} x_i - K/2) / sigma^2),

S over the K-subsets.  No closed form: a tensor Gauss-Hermite rule in the T
coordinates (x = sigma z, z standard normal), in double precision, at two
numbers of nodes that must agree to 1e-12; the same rule applied to the
remove direction, E_Q[(P/Q)^alpha], must reproduce the exact value from
the enumeration

    E_Q[(P/Q)^alpha] = C(T, K)^-alpha sum_{S_1..S_alpha} exp(sum_{a<b} |S_a n S_b| / sigma^2)

(every alpha-tuple of K-subsets, grouped by the counts vector sum_a 1_{S_a};
mpmath at 40 digits), to 1e-12.  Shares no code with the library, which
has no add-direction value for K > 1 other than its bound.  Not run by the
suites (needs numpy, scipy and mpmath; some four minutes):
    python3 tests/ref/allocation_subsets.py
prints "T K sigma alpha D_alpha(Q||P)" lines.
"""
import itertools
import math
from collections import Counter

import numpy as np
from mpmath import mp, mpf, exp, log
from scipy.special import roots_hermitenorm

mp.dps = 40


def exact_remove(T, K, sigma, alpha):
    """D_alpha(P || Q) by the enumeration of the docstring."""
    subsets = list(itertools.combinations(range(T), K))
    states = Counter({(0,) * T: 1})
    for _ in range(alpha):
        nxt = Counter()
        for v, c in states.items():
            for S in subsets:
                w = list(v)
                for i in S:
                    w[i] += 1
                nxt[tuple(w)] += c
        states = nxt
    y = exp(1 / mpf(sigma) ** 2)
    total = sum(c * y ** sum(x * (x - 1) // 2 for x in v) for v, c in states.items())
    return float(log(total / mpf(len(subsets)) ** alpha) / (alpha - 1))


def quadrature(T, K, sigma, power, nodes):
    """E_Q[(P/Q)^power] by the tensor rule, the first coordinate looped."""
    z, w = roots_hermitenorm(nodes)
    w = w / math.sqrt(2 * math.pi)
    subsets = list(itertools.combinations(range(T), K))
    rest = np.meshgrid(*([z] * (T - 1)), indexing="ij")
    weight = np.ones([nodes] * (T - 1))
    for d in range(T - 1):
        shape = [1] * (T - 1)
        shape[d] = nodes
        weight = weight * w.reshape(shape)
    total = 0.0
    for z0, w0 in zip(z, w):
        coords = [np.full_like(rest[0], z0)] + rest
        terms = np.stack([sum(coords[i] for i in S) / sigma for S in subsets])
        top = terms.max(axis=0)
        log_ratio = top + np.log(np.exp(terms - top).sum(axis=0)) - K / (2 * sigma ** 2) - math.log(len(subsets))
        total += w0 * float((weight * np.exp(power * log_ratio)).sum())
    return total


def main():
    for T, K in ((4, 2), (5, 2)):
        for sigma in (1.0, 2.0):
            for alpha in (2, 3, 4):
                coarse = math.log(quadrature(T, K, sigma, 1 - alpha, 32)) / (alpha - 1)
                fine = math.log(quadrature(T, K, sigma, 1 - alpha, 40)) / (alpha - 1)
                assert abs(coarse - fine) <= 1e-12 * fine, (T, K, sigma, alpha, coarse, fine)
                remove = math.log(quadrature(T, K, sigma, alpha, 40)) / (alpha - 1)
                exact = exact_remove(T, K, sigma, alpha)
                assert abs(remove - exact) <= 1e-12 * exact, (T, K, sigma, alpha, remove, exact)
                print(T, K, sigma, alpha, repr(fine))


if __name__ == "__main__":
    main()
