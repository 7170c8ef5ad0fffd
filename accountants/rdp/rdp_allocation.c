/*
 * rdp_allocation.c - Renyi DP of one epoch of random allocation with
 * Gaussian noise (Feldman & Shenfeld, "Privacy amplification by random
 * allocation", 2025, arXiv:2502.08202): T steps, each record used in one
 * of them, chosen uniformly at random; add/remove neighbours.
 *
 * The pair.  With the record, the epoch's T outputs (the others' sums
 * removed, a post-processing) are P = (1/T) sum_i N(e_i, s^2 I_T); without
 * it, Q = N(0, s^2 I_T).
 *
 * Remove direction, D_alpha(P || Q) (Feldman & Shenfeld, Cor. 6.2, first
 * part).  With x ~ Q and Y_i = exp((x_i - 1/2)/s^2), P/Q = (1/T) sum_i Y_i,
 * the Y_i independent with E[Y^a] = e^{a(a-1)/(2 s^2)}; the multinomial
 * theorem gives, for integer alpha >= 2,
 *   M(alpha) = E_Q[(P/Q)^alpha]
 *            = T^-alpha sum_{a_1 + .. + a_T = alpha} alpha!/prod a_i! prod e^{a_i(a_i-1)/(2 s^2)}
 *            = alpha! T^-alpha [z^alpha] g(z)^T,  g(z) = sum_a e^{a(a-1)/(2 s^2)} z^a / a!,
 * and D_alpha = log M(alpha) / (alpha - 1) exactly.  Below, M(n) = n! [w^n]
 * h(w)^T with h(w) = g(w/T), whose coefficients h_a = a! g_a T^-a =
 * e^{a(a-1)/(2 s^2)} T^-a are the exponential-generating ones: every
 * quantity stays near the answer (g^T's coefficients overflow, and
 * alpha! T^-alpha cancels them).  Two routes, sums of positive terms only:
 * - n <= T + 1: J.C.P. Miller's recurrence for a power of a series (f =
 *   g^T with g_0 = 1: f_n = (1/n) sum_{k=1}^n ((T+1)k - n) g_k f_{n-k})
 *   multiplied through by n!/T^n:
 *     M(n) = sum_{k=1}^n c(n,k) M(n-k),
 *     c(n,k) = ((T+1)k - n)/(n T) C(n,k) T^{1-k} e^{k(k-1)/(2 s^2)},
 *   every c(n,k) >= 0 for n <= T + 1: no cancellation; one pass, O(N^2).
 * - n > T + 1 (then T < N <= RDP_ALLOCATION_MAX_ORDER): h^T by binary
 *   powering of the series truncated at N, each product the exponential
 *   convolution (AB)_n = sum_k C(n,k) A_k B_{n-k}; O(N^2 log T).
 * Both work in log space (log-sum-exp): M(n) overflows for small s.
 *
 * Rounding, against ourselves.  Every log M(j) a step uses is already an
 * upper bound (padded), and M(n) increases with each of them (the
 * coefficients are positive; likewise a product of series with positive
 * coefficients increases with each coefficient), so a step needs to pad
 * only its own rounding.  u = DBL_EPSILON/2; log, log1p and exp are taken
 * to be within 1 ulp (glibc's are).  A term t = log c(n,k) + log M(n-k)
 * (or log C(n,k) + log A_k + log B_{n-k}) is a sum of at most eight
 * computed quantities: the coefficient's log(((T+1)k - n)/T) (see
 * log_coefficient), -log n, three log factorials (compensated sums of
 * logs, within 3u relative), -(k-1) log T, k(k-1)/(2 s^2) and the inputs.
 * With S the sum of their magnitudes, each is within 10u of its magnitude
 * plus 12u absolute (the most: k(k-1)/(2 s^2), whose s reaches here as
 * 1/sqrt(1/s^2) from the event, some ten roundings) and the seven
 * additions add at most 7u S, so t is within 17u S + 12u of the exact sum
 * of the same inputs.  The log-sum-exp m + log(sum e^{t_k - m})
 * (dpa_log_sum_exp) adds at most 2u S for the subtractions, 2u per
 * exponential, (n + 1) u for the sum of n positive terms (a term that
 * underflows to 0 weighs below 2^-1074 of the largest, which is 1), the
 * sum's relative error plus u (log n + 1) for its logarithm and u |L| for
 * the final addition: u (4 S + 2 n + 8) in all, and it is 1-Lipschitz in
 * its arguments (sup norm).  So one step's error is at most
 *   delta(n) = DBL_EPSILON (16 S_max + n + 16)  >= u (21 S_max + 2 n + 20),
 * which is added to its result.  Measured against exact sums
 * (tests/test_allocation.c) the pads come to 4e-13 of log M where it is of
 * order one, and to 4e-10 where it is tiny (log M = 1.7e-4 at T = 1e4,
 * sigma = 1, alpha = 2: terms of size log T pad a sum of size 1/T).
 *
 * Add direction, D_alpha(Q || P): the geometric mean of the Y_i is at most
 * their arithmetic mean, so Q/P = 1/((1/T) sum Y_i) <= exp(-(sum_i x_i -
 * T/2)/(T s^2)), and with sum_i x_i ~ N(0, T s^2) under Q,
 *   E_Q[(Q/P)^(alpha-1)] <= e^{(alpha-1)/(2 s^2)} E[e^{-(alpha-1) sum x_i/(T s^2)}]
 *                         = e^{(alpha-1)/(2 s^2) + (alpha-1)^2/(2 T s^2)},
 *   D_alpha(Q || P) <= 1/(2 s^2) + (alpha - 1)/(2 T s^2)  for every alpha > 1
 * (Feldman & Shenfeld's direct bound for the add direction).  It keeps the
 * whole 1/(2 s^2) of one step: weak when many epochs are composed.
 *
 * Both directions are at most the Gaussian's alpha/(2 s^2): P is a mixture
 * of N(e_i, s^2 I), and E_Q[(P/Q)^alpha] and E_Q[(Q/P)^(alpha-1)] are
 * convex in P (alpha > 1), so at most the average over the components,
 * each the Gaussian's.
 */
#include "rdp_allocation.h"
#include "rdp_curves.h"
#include "numerics.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* log n! for n = 0..N, compensated sums of logs (within 3u relative). */
static double *log_factorials(size_t N)
{
    double *lf = malloc((N + 1) * sizeof *lf);
    if (!lf) return NULL;
    dpa_sum s = { 0 };
    lf[0] = 0.0;
    for (size_t k = 1; k <= N; k++) {
        dpa_sum_add(&s, log((double)k));
        lf[k] = dpa_sum_value(&s);
    }
    return lf;
}

/* The pad added by one log-sum-exp over terms whose components sum to at
 * most s_max in magnitude, n terms (the file's comment). */
static double lse_pad(double s_max, double n)
{
    return DBL_EPSILON * (16.0 * s_max + n + 16.0);
}

/* log(((T+1)k - n)/T) for 1 <= k <= n <= T + 1, and its magnitude for
 * the pad.  For T < 2n the numerator is an exact integer in doubles and
 * two logarithms are taken; otherwise (k - n)/T lies in (-1/2, 0], so the
 * argument k + (k-n)/T >= k - 1/2 carries at most 3u relative error, and
 * for k = 1 log1p keeps it exact near 0 (huge T). */
static double log_coefficient(double T, double log_T, double n, double k, double *mag)
{
    double v;
    if (T < 2.0 * n) {
        double num = log((T + 1.0) * k - n);
        *mag = fabs(num) + fabs(log_T);
        return num - log_T;
    }
    v = k == 1.0 ? log1p((1.0 - n) / T) : log(k + (k - n) / T);
    *mag = fabs(v);
    return v;
}

/* Miller's route: out[n] = log M(n) + its pad for n <= N <= T + 1.  t is
 * at least N + 1 doubles of work space. */
static void moments_miller(double T, double inv2s2, size_t N, const double *lf, double *t, double *out)
{
    const double log_T = log(T);
    out[0] = out[1] = 0.0;   /* M(0) = M(1) = 1 exactly */
    for (size_t n = 2; n <= N; n++) {
        const double dn = (double)n, c_n = lf[n] - log(dn), mag_n = lf[n] + log(dn);
        double s_max = 0.0;
        for (size_t k = 1; k <= n; k++) {
            const double dk = (double)k, q = dk * (dk - 1.0) * inv2s2, L = out[n - k];
            double mag, a = log_coefficient(T, log_T, dn, dk, &mag);
            if (a == -INFINITY) {
                t[k] = a;           /* c(T+1, 1) = 0: no term, nothing to pad */
                continue;
            }
            if (k == 1) {
                t[k] = a + L;       /* c(n,1) = ((T+1) - n)/T exactly: C(n,1)/n = 1 */
            } else {
                t[k] = a + c_n - lf[k] - lf[n - k] - (dk - 1.0) * log_T + q + L;
                mag += mag_n + lf[k] + lf[n - k] + (dk - 1.0) * fabs(log_T) + q;
            }
            s_max = fmax(s_max, mag + fabs(L));
        }
        out[n] = dpa_log_sum_exp(t + 1, n) + lse_pad(s_max, dn);
    }
}

/* out = the exponential convolution of a and b (log coefficients, -inf for
 * a zero one; out must not be a or b), each entry an upper bound when a's
 * and b's are (the file's comment).  t: N + 1 doubles of work space. */
static void egf_product(const double *a, const double *b, size_t N, const double *lf, double *t, double *out)
{
    for (size_t n = 0; n <= N; n++) {
        double s_max = 0.0;
        for (size_t k = 0; k <= n; k++) {
            const double x = a[k], y = b[n - k];
            t[k] = lf[n] - lf[k] - lf[n - k] + x + y;
            if (x > -INFINITY && y > -INFINITY)
                s_max = fmax(s_max, lf[n] + lf[k] + lf[n - k] + fabs(x) + fabs(y));
        }
        const double v = dpa_log_sum_exp(t, n + 1);
        out[n] = v > -INFINITY ? v + lse_pad(s_max, (double)n + 1.0) : v;
    }
}

/* The powering route, for low = T + 1 < N (so T < RDP_ALLOCATION_MAX_ORDER,
 * an exact integer): out[n] for low < n <= N from h^T's coefficients (the
 * lower ones are Miller's, tighter: the pads of log2 T squarings add up).
 * t: 2 (N + 1) doubles of work space.  -1 when out of memory. */
static int moments_powering(double T, double inv2s2, size_t N, size_t low, const double *lf, double *t, double *out)
{
    double *base = malloc((N + 1) * sizeof *base), *next = malloc((N + 1) * sizeof *next);
    if (!base || !next) {
        free(base);
        free(next);
        return -1;
    }
    const double log_T = log(T);
    double *power = t + N + 1;   /* h^T so far */
    for (size_t a = 0; a <= N; a++) {
        /* log h_a = a(a-1)/(2 s^2) - a log T, rounded up by its own error
         * (within 10u of q, 4u of a |log T| and u a) */
        const double da = (double)a, q = da * (da - 1.0) * inv2s2, scale = q + da * fabs(log_T);
        base[a] = q - da * log_T + DBL_EPSILON * (8.0 * scale + da + 1.0);
        power[a] = a == 0 ? 0.0 : -INFINITY;        /* the series 1 */
    }
    for (unsigned long long e = (unsigned long long)T;; ) {
        if (e & 1) {
            egf_product(power, base, N, lf, t, next);
            memcpy(power, next, (N + 1) * sizeof *power);
        }
        if (!(e >>= 1)) break;
        egf_product(base, base, N, lf, t, next);
        memcpy(base, next, (N + 1) * sizeof *base);
    }
    memcpy(out + low + 1, power + low + 1, (N - low) * sizeof *out);
    free(base);
    free(next);
    return 0;
}

int rdp_allocation_log_moments(double steps, double sigma, size_t N, double *out)
{
    const double inv2s2 = 0.5 / sigma / sigma;
    for (size_t n = 0; n <= N && n < 2; n++) out[n] = 0.0;
    if (N < 2) return 0;
    if (!isfinite(inv2s2)) {
        /* no noise: no finite moment of order 2 or more */
        for (size_t n = 2; n <= N; n++) out[n] = INFINITY;
        return 0;
    }
    /* Miller's recurrence up to T + 1, the powering route above */
    const size_t low = (double)N <= steps + 1.0 ? N : (size_t)steps + 1;
    double *lf = log_factorials(N), *t = malloc(2 * (N + 1) * sizeof *t);
    int st = lf && t ? 0 : -1;
    if (!st) moments_miller(steps, inv2s2, low, lf, t, out);
    if (!st && low < N) st = moments_powering(steps, inv2s2, N, low, lf, t, out);
    free(lf);
    free(t);
    return st;
}

double rdp_allocation_remove(const double *log_moments, size_t N, double alpha)
{
    if (!(alpha <= (double)N)) return INFINITY;
    const double lo = floor(alpha), hi = ceil(alpha);
    /* (alpha - 1) D_alpha = log M(alpha) is convex in alpha (a cumulant
     * generating function) and 0 at alpha = 1, so the chord between the
     * neighbouring integers bounds it in between (below 2: D_alpha <= D_2);
     * a division or a chord is within 5u, covered by the 8 eps */
    double v = lo == hi ? log_moments[(size_t)lo] / (alpha - 1.0)
                        : rdp_chord(alpha, log_moments[(size_t)lo], log_moments[(size_t)hi]);
    return v * (1.0 + 8.0 * DBL_EPSILON);
}

double rdp_allocation_add(double steps, double sigma, double alpha)
{
    /* 1/(2 s^2) + (alpha - 1)/(2 T s^2): five roundings of positive terms */
    double v = 0.5 / sigma / sigma * (1.0 + (alpha - 1.0) / steps) * (1.0 + 8.0 * DBL_EPSILON);
    return isfinite(sigma) ? dpa_positive_up(v) : v;
}

double rdp_allocation(double steps, double sigma, const double *log_moments, size_t N, double alpha)
{
    const double gaussian = rdp_gaussian(sigma, alpha);
    return fmax(fmin(rdp_allocation_remove(log_moments, N, alpha), gaussian),
                fmin(rdp_allocation_add(steps, sigma, alpha), gaussian));
}
