/*
 * truncated_poisson.c - the two-part mixture that dominates one step of
 * truncated Poisson sampling, and the binomial tails it needs.
 *
 * The scheme (dp_accounting's TruncatedSubsampledGaussianDpEvent, 2025;
 * arXiv 2508.15089): each of the n records is sampled independently with
 * probability q; when more than B are sampled, a uniformly random B of them
 * are kept; the step releases the sum of the kept records' contributions
 * (norm <= 1) plus Gaussian noise of multiplier sigma.  Add/remove
 * neighbours: D' = D + {x*} has the n records, D the n - 1 others.
 *
 * Let K ~ Bin(n - 1, q) count the OTHER records sampled: the same coins in
 * both worlds, so K has the same law in both.  Reveal whether K < B.  A
 * mixture of pairs with the same weights in both worlds has a hockey-stick
 * divergence at most the weighted sum of theirs (joint convexity), and the
 * revealed pair -- the disjoint union of the branches -- has exactly that
 * weighted sum as its profile and the weighted PLDs as its PLD.
 *
 *  - K < B, probability 1 - p, p = P(Bin(n - 1, q) >= B): nothing is
 *    truncated in either world (at most K + 1 <= B are sampled), so given
 *    the others sampled the pair is ((1 - q) N(c, s^2) + q N(c + x*, s^2),
 *    N(c, s^2)): mixing over the others (joint convexity again) it is at
 *    most the Poisson-subsampled Gaussian pair at rate q and noise sigma.
 *
 *  - K >= B, probability p: in D a uniform B-subset T of the K sampled is
 *    kept.  In D', x* is sampled (probability q) and then kept with
 *    probability B/(K + 1), and a kept x* comes with a uniform (B - 1)-
 *    subset U of the others; otherwise the kept set is a uniform B-subset
 *    of the others, distributed as T.  The sampled set is exchangeable, so
 *    given K the laws of T and of U are those of uniform subsets of all
 *    n - 1 others: they do not depend on K.  Hence, given K, D' is
 *    (1 - r_K) A + r_K B' and D is A, with A = law(sum T + noise),
 *    B' = law(x* + sum U + noise), r_K = q B/(K + 1), and mixing over K
 *    (given K >= B) gives the same form with the mean rate
 *      q' = q E[B/(K + 1) | K >= B].
 *    Writing T = U + {y}, y uniform among the others outside U, A and B'
 *    mix N(c + y) and N(c + x*) with the same weights over (U, y), so by
 *    joint convexity the pair is at most the Poisson-subsampled Gaussian at
 *    rate q' whose shift x* - y has norm <= 2: noise sigma / 2 in units of
 *    the shift.  (dp_accounting bounds this branch by the replace-one pair
 *    at sigma/2; keeping the two orders apart, as here, is tighter.)
 *
 * With C(n - 1, k)/(k + 1) = C(n, k + 1)/n,
 *   q E[B/(K + 1); K >= B] = (B/n) sum_{k >= B} C(n, k + 1) q^{k+1} (1 - q)^{n-1-k}
 *                          = (B/n) P(Bin(n, q) >= B + 1),
 * so q' = (B/n) P(Bin(n, q) >= B + 1) / p.  At B = n, p = 0: the step is
 * Poisson sampling exactly.
 *
 * Rounding.  The profile is linear in the weights (1 - p, p) and increasing
 * in the rate of each part (the Poisson pair's H_alpha is convex in the
 * rate and 0 at rate 0), so q' is rounded up and the weights' relative
 * error is returned, for the accountants to pad with: the pair used is the
 * mixture with the exact weights and the rounded-up rate, which dominates
 * the one above.
 */
#include "internal.h"
#include "numerics.h"

#include <float.h>
#include <math.h>

#define ULP DBL_EPSILON        /* twice the unit roundoff: every bound below is generous */
#define MAX_TERMS 50000000.0   /* the binomial tail sums' terms: about 10 sqrt(n q (1 - q)) */
#define LARGEST_N 9007199254740992.0 /* 2^53: every count below is exact in doubles */

/* Loader (2000), "Fast and accurate computation of binomial probabilities":
 * stirlerr(m) = log m! - log(sqrt(2 pi m) (m/e)^m), m >= 1 a whole number,
 * and *err a bound on its absolute error.  Above 15 the Stirling series to
 * m^-9 (alternating; the next term is 691/360360 m^-11 < 2e-3 m^-11);
 * below, from lgamma (whose few ulps of a value at most 28 are well inside
 * the bound). */
static double stirlerr(double m, double *err)
{
    if (m <= 15.0) {
        double v = lgamma(m + 1.0) - (m + 0.5) * log(m) + m - 0.5 * log(2.0 * M_PI);
        *err = 16.0 * ULP * (lgamma(m + 1.0) + (m + 0.5) * log(m) + m + 1.0);
        return v;
    }
    double m2 = m * m;
    double v = (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - (1.0 / 1680 - 1.0 / (1188 * m2)) / m2) / m2) / m2) / m;
    *err = 8.0 * ULP * v + 2e-3 / (m2 * m2 * m2 * m2 * m2 * m);
    return v;
}

/* Loader's deviance term bd0(x, M) = x log(x/M) + M - x >= 0 (x >= 0,
 * M > 0), without the cancellation near x = M (there the series
 * 2 x sum_j v^(2j+1)/(2j+1), v = (x - M)/(x + M), of the logarithm), and
 * *err a bound on its absolute error. */
static double bd0(double x, double M, double *err)
{
    if (x == 0.0) {
        *err = ULP * M;
        return M;
    }
    if (fabs(x - M) < 0.1 * (x + M)) {
        double v = (x - M) / (x + M), s = (x - M) * v, ej = 2.0 * x * v, v2 = v * v;
        for (int j = 1; j < 1000; j++) {
            ej *= v2;
            double s1 = s + ej / (2 * j + 1);
            if (s1 == s) break;
            s = s1;
        }
        *err = 16.0 * ULP * s;
        return s;
    }
    double v = x * log(x / M) + M - x;
    *err = 8.0 * ULP * (fabs(x * log(x / M)) + M + x);
    return v;
}

/* log P(X = j), X ~ Bin(N, q), 0 < q < 1, and *err a bound on its absolute
 * error (Loader 2000, eq. (2)): log of sqrt(N / (2 pi j (N - j))) times
 * exp(stirlerr(N) - stirlerr(j) - stirlerr(N - j) - bd0(j, N q) -
 * bd0(N - j, N (1 - q))).  The rounding of N q and N (1 - q) (2 ulps each)
 * moves each bd0 by at most that times |M - x| (its derivative in M is
 * 1 - x/M). */
static double log_pmf(double N, double q, double j, double *err)
{
    if (j == 0.0 || j == N) {
        double v = j == 0.0 ? N * log1p(-q) : N * log(q);
        *err = 4.0 * ULP * fabs(v);
        return v;
    }
    double e[5];
    double s = stirlerr(N, &e[0]) - stirlerr(j, &e[1]) - stirlerr(N - j, &e[2]);
    double d = bd0(j, N * q, &e[3]) + bd0(N - j, N * (1.0 - q), &e[4]);
    double h = 0.5 * (log(N) - log(2.0 * M_PI) - log(j) - log(N - j));
    double v = s - d + h;
    *err = e[0] + e[1] + e[2] + e[3] + e[4] + 4.0 * ULP * fabs(j - N * q) +
           8.0 * ULP * (fabs(s) + d + fabs(log(N)) + 2.0 + fabs(log(j)) + fabs(log(N - j)) + fabs(v));
    return v;
}

/* log P(X >= k) and log P(X < k), X ~ Bin(N, q), and a bound on the
 * relative error of either as a probability. */
typedef struct {
    double log_ge, log_lt, relerr;
} tails;

/* The sum of the pmf's terms from j0 outwards (up for the upper tail, down
 * for the lower), relative to the first, until the rest is below 1e-20 of
 * it; the ratios of successive terms fall away from the mode, so once one
 * is r < 1 the rest is at most term / (1 - r).  *relerr: the recursion's
 * roundings (a few ulps a term, compounding), the sum's, and the rest.
 * DPA_EUNSUPPORTED past MAX_TERMS terms. */
static int tail_sum(double N, double q, double j0, int up, double *sum_out, double *relerr)
{
    const double rho = up ? q / (1.0 - q) : (1.0 - q) / q;
    double term = 1.0, sum = 0.0, rest = 0.0, steps = 0.0, j = j0;
    for (;;) {
        sum += term;
        if (up ? j >= N : j <= 0.0) break;
        double r = up ? (N - j) / (j + 1.0) * rho : j / (N - j + 1.0) * rho;
        term *= r;
        j += up ? 1.0 : -1.0;
        steps += 1.0;
        if (r < 1.0 && term / (1.0 - r) <= 1e-20 * sum) {
            rest = term / (1.0 - r);
            break;
        }
        if (steps > MAX_TERMS) return DPA_EUNSUPPORTED;
    }
    *sum_out = sum;
    *relerr = 8.0 * ULP * (steps + 2.0) + rest / sum;
    return DPA_OK;
}

/* The tail that does not hold the mode floor((N + 1) q) is summed: its
 * terms fall away from its first.  The other tail is its complement, whose
 * relative error is the summed tail's absolute error over it (the summed
 * tail lies away from the mode, so it is rarely much above 1/2).  The logs'
 * own rounding adds a few ulps of their magnitude. */
static int binomial_tails(double N, double q, double k, tails *t)
{
    if (k <= 0.0 || q == 1.0) {
        *t = (tails){ k <= N ? 0.0 : -INFINITY, k <= N ? -INFINITY : 0.0, 0.0 };
        return DPA_OK;
    }
    if (k > N) {
        *t = (tails){ -INFINITY, 0.0, 0.0 };
        return DPA_OK;
    }
    const int up = k > floor((N + 1.0) * q);
    const double j0 = up ? k : k - 1.0;
    double lerr, sum, serr;
    double lp = log_pmf(N, q, j0, &lerr);
    int st = tail_sum(N, q, j0, up, &sum, &serr);
    if (st) return st;
    double direct = lp + log(sum);
    double rel = expm1(lerr) * (1.0 + serr) + serr + 4.0 * ULP * (1.0 + fabs(direct));
    double other = direct < 0.0 ? dpa_log1mexp(direct) : -INFINITY;
    double frac = exp(direct);
    double rel_other = frac < 1.0 ? frac * rel / (1.0 - frac) * (1.0 + 1e-6) + 8.0 * ULP * (1.0 + fabs(other))
                                  : INFINITY;
    t->log_ge = up ? direct : other;
    t->log_lt = up ? other : direct;
    t->relerr = fmax(rel, rel_other);
    return DPA_OK;
}

/* q' = (B/n) P(Bin(n, q) >= B + 1) / p rounded up: the computed tails lie
 * within factors (1 +- e_c) and (1 +- e_p) of the true ones, so the true q'
 * is at most the computed one times (1 + e_p)/(1 - e_c), and the logs'
 * rounding (a few ulps of their magnitudes) adds to that; taken twice over.
 * The true q' is at most q B/(B + 1) < q, which is the answer when the
 * tails are not known to a factor 2. */
static double truncated_rate(double q, double N, double B, const tails *all, const tails *others)
{
    double ec = all->relerr, ep = others->relerr;
    if (!(ec < 0.5 && ep < 0.5)) return q;
    double lq2 = log(B) - log(N) + all->log_ge - others->log_ge;
    double e = (1.0 + ep) / (1.0 - ec) - 1.0 +
               8.0 * ULP * (fabs(log(B)) + fabs(log(N)) + fabs(all->log_ge) + fabs(others->log_ge) + 1.0);
    return fmin(q, exp(lq2) * (1.0 + 2.0 * e) * (1.0 + 4.0 * ULP));
}

int dpa_truncated_poisson_mixture(double q, uint64_t n, uint64_t max_batch, dpa_truncated_mixture *out,
                                  dpa_error *err)
{
    if (!out) return dpa_fail(err, DPA_EINVAL, "truncated_poisson: output pointer is NULL");
    if (!(q > 0.0 && q <= 1.0))
        return dpa_fail(err, DPA_EINVAL, "truncated_poisson: sampling rate q must lie in (0, 1], got %g", q);
    if (n < 1 || max_batch < 1 || max_batch > n)
        return dpa_fail(err, DPA_EINVAL, "truncated_poisson: needs 1 <= max_batch <= n, got max_batch = %llu, n = %llu",
                        (unsigned long long)max_batch, (unsigned long long)n);
    if ((double)n > LARGEST_N)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "truncated_poisson: a dataset of more than 2^53 records (n = %llu) is not supported (its "
                        "binomial tails are summed in doubles)", (unsigned long long)n);
    const double N = (double)n, B = (double)max_batch;
    if (max_batch == n) {      /* at most n - 1 others: never truncated */
        *out = (dpa_truncated_mixture){ 0.0, -INFINITY, 0.0, q };
        return DPA_OK;
    }
    tails others, all;
    int st = binomial_tails(N - 1.0, q, B, &others);
    if (!st) st = binomial_tails(N, q, B + 1.0, &all);
    if (st)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "truncated_poisson: n q (1 - q) = %g is too large for the exact binomial tail sums (more than "
                        "%g terms)", N * q * (1.0 - q), MAX_TERMS);
    *out = (dpa_truncated_mixture){ others.log_lt, others.log_ge, others.relerr,
                                    truncated_rate(q, N, B, &all, &others) };
    return DPA_OK;
}
