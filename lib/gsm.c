/*
 * gsm.c - the Renyi divergence of the Gaussian Sampling Mechanism (Gu, Liang,
 * Sha, Shi & Song, "Differential Privacy Mechanisms in Neural Tangent Kernel
 * Regression", WACV 2025, Alg. 1; after Alabi, Kothari, Tankala, Venkat &
 * Zhang 2023): k samples g_i ~ N(0, Sigma(D)) released as (1/k) sum g_i g_i^T, a function of the k
 * samples, so its RDP is at most that of the samples themselves.
 *
 * For two centred Gaussians, with mu_j the eigenvalues of
 * Sigma^-1/2 Sigma' Sigma^-1/2 (whitening by Sigma turns the pair into
 * N(0, I) against N(0, diag mu)),
 *
 *   D_a(N(0, Sigma) || N(0, Sigma')) = sum_j c_a(mu_j),
 *   c_a(mu) = [a ln mu - ln(a mu + 1 - a)] / (2 (a - 1)),
 *
 * finite only where a mu_j + 1 - a > 0, and k independent samples add
 * (../shared/notes/ntk-sparse-seeds-002-004.md 1.10, [D]; the closed form
 * is the standard one for D_a between Gaussians, e.g. Gil, Alajaji & Linder
 * 2013).
 *
 * Worst cases.  With t = mu - 1, c_a(1 + t) = t^2 g(t) and g is decreasing
 * on (-min(1, 1/a), inf) (g(t) = a/4 - a (1 + a) t / 6 + O(t^2) near 0;
 * checked with mpmath at 40 digits on a grid of 4000 points for orders 1.001
 * to 1000, see tests/test_mechanisms.c for the check kept in the suite).
 * Hence, when every |t_j| <= M and sum t_j^2 <= M^2 (the Frobenius bound M
 * of Def. 5.1, which bounds both directions),
 *   sum_j c_a(1 + t_j) = sum_j t_j^2 g(t_j) <= g(-M) M^2 = c_a(1 - M),
 * attained by one eigenvalue at 1 - M: the worst case is exactly
 * k c_a(1 - M), finite for a < 1/M.  Under the spectral sandwich
 * (1 - eta) <= mu_j <= (1 + eta) for n eigenvalues it is at most
 * k n max(c_a(1 - eta), c_a(1 + eta)) (= k n c_a(1 - eta) by the same
 * monotonicity).
 */
#include "internal.h"
#include "numerics.h"

#include <float.h>
#include <math.h>

/* c_a(1 + t) in long double.  Near t = 0 the two logarithms cancel: there
 * the series a ln(1 + t) - ln(1 + a t) = sum_{j>=2} (-1)^j (a^j - a) t^j / j,
 * with (a^j - a)/(a - 1) = a (1 + a + ... + a^(j-2)) free of cancellation,
 * is summed instead (|a t| < 1/8: terms shrink by 8 each, 40 of them). */
static long double gsm_c(long double a, long double t)
{
    long double at = a * t;
    if (fabsl(at) < 0.125L) {
        long double sum = 0.0L, tj = t, geo = 1.0L, apow = 1.0L;  /* geo = 1 + a + ... + a^(j-2) */
        for (int j = 2; j <= 42; j++) {
            tj *= t;                                             /* t^j */
            long double term = tj / j * a * geo;
            sum += (j % 2 == 0) ? term : -term;
            apow *= a;
            geo += apow;
        }
        return 0.5L * sum;
    }
    return (a * log1pl(t) - log1pl(at)) / (2.0L * (a - 1.0L));
}

/* c_a(mu) rounded up: +inf where a mu + 1 - a <= 0.  The long double
 * evaluation is within about 1e-15 relative of the exact value (the direct
 * form's cancellation costs at most a factor 20 a/(a - 1) of long double
 * precision when |a t| >= 1/8); 1e-12 up covers it with room. */
static double gsm_c_upper(double a, double mu)
{
    if (!(a * mu + 1.0 - a > 0.0)) return INFINITY;
    long double v = gsm_c((long double)a, (long double)mu - 1.0L);
    if (v < 0.0L) v = 0.0L;              /* a divergence: >= 0 (rounding near mu = 1) */
    return (double)(v * (1.0L + 1e-12L)) + DBL_MIN;
}

/* One sample's worst-case RDP at order a for the Frobenius bound M. */
double dpa_gsm_order_frobenius(double a, double M) { return gsm_c_upper(a, 1.0 - M); }

/* One sample's worst-case RDP at order a for the spectral sandwich over n
 * eigenvalues. */
double dpa_gsm_order_spectral(double a, double n, double eta)
{
    double v = fmax(gsm_c_upper(a, 1.0 - eta), gsm_c_upper(a, 1.0 + eta));
    return v * n * (1.0 + 2.0 * DBL_EPSILON);
}

int dpa_gsm_rdp(double alpha, uint64_t k, const double *mu, size_t n, double *rdp, dpa_error *err)
{
    if (!rdp) return dpa_fail(err, DPA_EINVAL, "gsm_rdp: output pointer is NULL");
    *rdp = NAN;
    if (!(alpha > 1.0 && isfinite(alpha)))
        return dpa_fail(err, DPA_EINVAL, "gsm_rdp: the order must be > 1 and finite, got %g", alpha);
    if (k == 0) return dpa_fail(err, DPA_EINVAL, "gsm_rdp: k must be at least 1");
    if (n == 0) return dpa_fail(err, DPA_EINVAL, "gsm_rdp: needs at least one eigenvalue (n is 0)");
    if (!mu) return dpa_fail(err, DPA_EINVAL, "gsm_rdp: the eigenvalues (mu) are NULL with n = %zu", n);
    for (size_t j = 0; j < n; j++)
        if (!(mu[j] > 0.0 && isfinite(mu[j])))
            return dpa_fail(err, DPA_EINVAL,
                            "gsm_rdp: eigenvalue %zu is %g; the covariances must be positive definite", j, mu[j]);
    dpa_sum s = { 0 };
    for (size_t j = 0; j < n; j++) {
        double c = gsm_c_upper(alpha, mu[j]);
        if (isinf(c)) { *rdp = INFINITY; return DPA_OK; }
        dpa_sum_add(&s, c);
    }
    /* the compensated sum is within an ulp or two; the product by k one more */
    *rdp = dpa_sum_value(&s) * (double)k * (1.0 + 4.0 * DBL_EPSILON);
    return DPA_OK;
}

/* The GSM event with k samples (the family dpa_calibrate_search walks). */
struct gsm_family { double m; uint64_t n; };

static dpa_event *gsm_event(double k, void *ctx, dpa_error *err)
{
    const struct gsm_family *g = ctx;
    uint64_t samples = (uint64_t)k;
    return g->n == 0 ? dpa_event_gsm_frobenius(samples, g->m, err) : dpa_event_gsm_spectral(samples, g->n, g->m, err);
}

int dpa_gsm_max_samples(double M_or_eta, uint64_t n, double epsilon, double delta, const dpa_options *opt,
                        uint64_t *k, dpa_error *err)
{
    if (!k) return dpa_fail(err, DPA_EINVAL, "gsm_max_samples: output pointer is NULL");
    *k = 0;
    int st = dpa_check_epsilon(epsilon, err);
    if (st) return st;
    if ((st = dpa_check_delta(delta, err))) return st;
    if (!(delta > 0.0))
        return dpa_fail(err, DPA_EINVAL, "gsm_max_samples: delta must be positive (the GSM is not pure DP)");
    dpa_options defaults;
    if (!opt) { dpa_options_init(&defaults); opt = &defaults; }
    struct gsm_family g = { M_or_eta, n };
    /* eps grows with k (the RDP curve scales by k): the largest integer k
     * in [1, 2^53] whose certified eps meets the target, by the library's
     * search (doubling, then bisection); none when one sample does not */
    dpa_calibration c;
    dpa_calibration_init(&c, DPA_SEARCH_LARGEST);
    c.integer = 1;
    c.lo = c.limit_lo = 1.0;
    c.hi = 2.0;
    c.limit_hi = 9007199254740992.0;   /* 2^53: every integer below is a double */
    st = dpa_calibrate_search("rdp", opt, gsm_event, &g, epsilon, delta, &c, err);
    if (st == DPA_ENOBRACKET) {                 /* even k = 1 exceeds epsilon */
        if (err) *err = (dpa_error){ 0 };
        return DPA_OK;
    }
    if (st) return st;
    *k = (uint64_t)c.value;
    return DPA_OK;
}
