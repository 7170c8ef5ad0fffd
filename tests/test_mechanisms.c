/*
 * test_mechanisms.c - the mechanisms added for Gu et al. (WACV 2025) and Ghazi et al. (NeurIPS 2024), each
 * against values computed here independently of the library:
 *
 *  - truncated Laplace: the bound A makes the missed boundary strip's mass
 *    exactly delta (and A is tight: 1e-9 less and the strip holds more);
 *    pld's delta(eps) brackets a direct quadrature of
 *    int (p - e^eps q)_+ (GSL QAGP), one release and two composed (a
 *    discretised double sum), its mass at +inf is the strip, a smaller
 *    shift is dominated by the full one; rdp, zcdp and gdp refuse it;
 *  - the Gaussian Sampling Mechanism: dpa_gsm_rdp equals a numerical
 *    integral of the Renyi divergence between two centred Gaussians (1-d
 *    and 2-d), the Taylor series near mu = 1, the worst cases dominate
 *    random eigenvalue sets, the eps of the note's worked check (mpmath)
 *    and the largest k;
 *  - failure deltas add to delta and come off the delta of an eps query;
 *  - Liu-Talwar random stopping: 3 eps for a pure base, refused otherwise;
 *    rdp's geometric repetition is Papernot & Steinke's Thm 2, written here;
 *  - permute-and-flip composed against the exact composition of pure DP.
 */
#include "dpacct.h"
#include "testutil.h"

#include <check.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- truncated Laplace ------------------------------------------------------ */

/* The normalised density of TLap(eps, A) in units of the sensitivity,
 * centred at c. */
typedef struct { double eps, A, shift, e_eps; } tlap_pair;

static double tlap_density(double x, double c, double eps, double A)
{
    double z = x - c;
    if (fabs(z) > A) return 0.0;
    return eps / (2.0 * -expm1(-eps * A)) * exp(-eps * fabs(z));
}

static double hockey_integrand(double x, void *ctx)
{
    const tlap_pair *t = ctx;
    double v = tlap_density(x, t->shift, t->eps, t->A) - t->e_eps * tlap_density(x, 0.0, t->eps, t->A);
    return v > 0.0 ? v : 0.0;
}

/* delta(eps) of TLap at `shift` against TLap at 0 by adaptive quadrature,
 * split at every kink of the integrand. */
static double tlap_delta_quadrature(double eps0, double A, double shift, double eps)
{
    tlap_pair t = { eps0, A, shift, exp(eps) };
    /* where p = e^eps q inside (0, shift): eps0 (shift - 2x) ... solved: */
    double cross = 0.5 * (shift - eps / eps0);
    double pts[8];
    size_t n = 0;
    double cand[] = { shift - A, -A, 0.0, cross, shift, A, shift + A };
    pts[n++] = fmin(shift - A, -A);
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        double c = cand[i];
        if (c > pts[0] && c < shift + A) {
            int dup = 0;
            for (size_t j = 0; j < n; j++) dup |= fabs(pts[j] - c) < 1e-14;
            if (!dup) pts[n++] = c;
        }
    }
    pts[n++] = shift + A;
    for (size_t i = 1; i < n; i++)                          /* sort */
        for (size_t j = i; j > 0 && pts[j] < pts[j - 1]; j--) { double s = pts[j]; pts[j] = pts[j - 1]; pts[j - 1] = s; }
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
    gsl_function f = { hockey_integrand, &t };
    double result, abserr;
    int st = gsl_integration_qagp(&f, pts, n, 1e-15, 1e-12, 1000, w, &result, &abserr);
    gsl_integration_workspace_free(w);
    ck_assert_msg(st == GSL_SUCCESS, "quadrature failed: %s", gsl_strerror(st));
    return result;
}

/* The strip [A - 1, A] (units of the sensitivity) holds delta; A is the
 * smallest such bound to 1e-9. */
START_TEST(tlap_strip_mass_is_delta)
{
    const double cases[][3] = { { 1.0, 1.0, 1e-5 }, { 3.5, 0.1, 1e-6 }, { 0.2, 4.0, 1e-3 }, { 1.0, 0.5, 0.5 } };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double sens = cases[c][0], eps = cases[c][1], delta = cases[c][2], A;
        dpa_error err = { 0 };
        ck_assert_int_eq(dpa_truncated_laplace_bound(sens, eps, delta, &A, &err), DPA_OK);
        /* mass of [A - sens, A] under the density prop. to e^{-eps |z| / sens} on [-A, A] */
        long double r = (long double)eps / sens;
        long double strip = (expl(-r * (A - sens)) - expl(-r * A)) / (2.0L * (1.0L - expl(-r * A)));
        ck_assert_msg(strip <= delta && strip >= delta * (1.0 - 1e-13), "case %zu: strip %.17Lg, delta %.17g", c,
                      strip, delta);
        long double A2 = A * (1.0L - 1e-9L);
        long double strip2 = (expl(-r * (A2 - sens)) - expl(-r * A2)) / (2.0L * (1.0L - expl(-r * A2)));
        ck_assert_msg(strip2 > delta, "case %zu: A is not tight", c);
    }
    /* bad input: delta above 1/2 (the strip would leave the support), eps <= 0, sensitivity 0 */
    double A;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpa_truncated_laplace_bound(1.0, 1.0, 0.6, &A, &err), DPA_EINVAL);
    ck_assert(strstr(err.message, "1/2") != NULL);
    ck_assert_int_eq(dpa_truncated_laplace_bound(1.0, 0.0, 1e-5, &A, &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_truncated_laplace_bound(0.0, 1.0, 1e-5, &A, &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_truncated_laplace_bound(1.0, NAN, 1e-5, &A, &err), DPA_EINVAL);
    ck_assert_ptr_null(dpa_event_truncated_laplace(1.0, 0.0, &err));
    ck_assert_ptr_null(dpa_event_truncated_laplace(-1.0, 1e-5, &err));
}
END_TEST

/* pld's bracket holds the quadrature's delta(eps) for one release; at and
 * above eps0 it is the strip's delta (the mass at +inf). */
START_TEST(tlap_pld_matches_quadrature)
{
    const double eps0 = 1.0, delta0 = 1e-5;
    double A;
    ck_assert_int_eq(dpa_truncated_laplace_bound(1.0, eps0, delta0, &A, NULL), DPA_OK);
    const double eps[] = { -1.5, -0.5, 0.0, 0.3, 0.7, 0.99, 1.0, 2.0 };
    dpa_accountant *a = accountant_with("pld", dpa_event_truncated_laplace(eps0, delta0, NULL));
    for (size_t i = 0; i < sizeof eps / sizeof eps[0]; i++) {
        if (eps[i] < 0.0) continue;   /* the accountant answers eps >= 0 */
        double q = tlap_delta_quadrature(eps0, A, 1.0, eps[i]);
        dpa_bound b;
        dpa_error err = { 0 };
        ck_assert_msg(dpa_accountant_delta(a, eps[i], &b, &err) == DPA_OK, "%s", err.message);
        ck_assert_msg(b.lower <= q * (1.0 + 1e-9) && q <= b.upper * (1.0 + 1e-9) && b.upper <= q * 1.01 + 1e-12,
                      "eps %g: [%.12g, %.12g] vs quadrature %.12g", eps[i], b.lower, b.upper, q);
        if (eps[i] >= eps0) ck_assert(fabs(q - delta0) <= 1e-9 * delta0);
    }
    /* eps at delta0 is at most eps0 (the calibration), and above the
     * quadrature's delta at 0.99 eps0 (where delta exceeds delta0) */
    dpa_bound b;
    ck_assert_int_eq(dpa_accountant_epsilon(a, delta0 * (1.0 + 1e-6), &b, NULL), DPA_OK);
    ck_assert_msg(b.upper <= eps0 * (1.0 + 1e-3) && b.upper > 0.99, "eps %.9g", b.upper);
    dpa_accountant_free(a);
    (void)eps;
}
END_TEST

/* A query that moves by less than the sensitivity is dominated by the full
 * shift (so the pair at shift 1 is the worst case). */
START_TEST(tlap_full_shift_dominates)
{
    const double eps0 = 0.8, delta0 = 1e-4;
    double A;
    ck_assert_int_eq(dpa_truncated_laplace_bound(1.0, eps0, delta0, &A, NULL), DPA_OK);
    const double shifts[] = { 0.1, 0.25, 0.5, 0.75, 0.9 };
    const double eps[] = { 0.0, 0.2, 0.5, 0.79, 1.5 };
    for (size_t i = 0; i < 5; i++)
        for (size_t j = 0; j < 5; j++) {
            double part = tlap_delta_quadrature(eps0, A, shifts[i], eps[j]);
            double full = tlap_delta_quadrature(eps0, A, 1.0, eps[j]);
            ck_assert_msg(part <= full * (1.0 + 1e-9), "shift %g eps %g: %.12g > %.12g", shifts[i], eps[j], part,
                          full);
        }
}
END_TEST

/* Two composed releases: the privacy loss is discretised independently
 * here (atoms +-eps0 and +inf, the continuous part on 4000 midpoints) and
 * delta(eps) = sum_ij w_i w_j (1 - e^{eps - l_i - l_j})_+ + 1 - (1 - ds)^2. */
START_TEST(tlap_two_compositions)
{
    const double eps0 = 0.5, delta0 = 1e-3;
    double A;
    ck_assert_int_eq(dpa_truncated_laplace_bound(1.0, eps0, delta0, &A, NULL), DPA_OK);
    enum { N = 4000 };
    static double l[N + 2], w[N + 2];
    double z = -expm1(-eps0 * A);
    double ds = (exp(-eps0 * (A - 1.0)) - exp(-eps0 * A)) / (2.0 * z);   /* P-mass with y in (A-1, A] */
    double mp = (1.0 - exp(-eps0 * (A - 1.0))) / (2.0 * z);              /* y in [0, A-1]: loss eps0 */
    l[0] = eps0; w[0] = mp;
    l[1] = -eps0; w[1] = (exp(-eps0) - exp(-eps0 * A)) / (2.0 * z);    /* y in [-A, -1] */
    for (int i = 0; i < N; i++) {                                         /* y in (-1, 0) */
        double y0 = -1.0 + (double)i / N, y1 = -1.0 + (double)(i + 1) / N;
        l[i + 2] = eps0 * (y0 + y1 + 1.0);                                /* eps0 (2 y_mid + 1) */
        w[i + 2] = (exp(eps0 * y1) - exp(eps0 * y0)) / (2.0 * z);
    }
    double total = ds;
    for (int i = 0; i < N + 2; i++) total += w[i];
    ck_assert_msg(fabs(total - 1.0) < 1e-12, "masses sum to %.15g", total);
    dpa_event *e = dpa_event_self_composed(dpa_event_truncated_laplace(eps0, delta0, NULL), 2, NULL);
    dpa_accountant *a = accountant_with("pld", e);
    /* from 2 eps0 = 1 on only the mass at +inf is left: 1 - (1 - ds)^2
     * (pld's lower grid lost most of it before trim() kept `finite`) */
    const double eps[] = { 0.0, 0.4, 0.8, 1.0, 1.2 };
    for (size_t k = 0; k < 5; k++) {
        double d = 1.0 - (1.0 - ds) * (1.0 - ds);
        for (int i = 0; i < N + 2; i++)
            for (int j = 0; j < N + 2; j++) {
                double t = eps[k] - l[i] - l[j];
                if (t < 0.0) d += w[i] * w[j] * -expm1(t);
            }
        dpa_bound b;
        dpa_error err = { 0 };
        ck_assert_msg(dpa_accountant_delta(a, eps[k], &b, &err) == DPA_OK, "%s", err.message);
        /* the midpoint discretisation is within about 1e-6 relative */
        ck_assert_msg(b.lower <= d * (1.0 + 1e-5) && d <= b.upper * (1.0 + 1e-5) && b.upper <= d * 1.01,
                      "eps %g: [%.10g, %.10g] vs %.10g", eps[k], b.lower, b.upper, d);
    }
    dpa_accountant_free(a);
}
END_TEST

START_TEST(tlap_refused_by_renyi_accountants)
{
    const char *methods[] = { "rdp", "zcdp", "gdp" };
    for (size_t i = 0; i < 3; i++) {
        dpa_error err = { 0 };
        dpa_accountant *a = dpa_accountant_new(methods[i], NULL, &err);
        dpa_event *e = dpa_event_truncated_laplace(1.0, 1e-5, &err);
        ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
        ck_assert_msg(strstr(err.message, "infinite") && strstr(err.message, "pld"), "%s: %s", methods[i],
                      err.message);
        dpa_event_free(e);
        dpa_accountant_free(a);
    }
}
END_TEST

/* ---- the Gaussian Sampling Mechanism ------------------------------------------ */

/* c_a(mu) in long double, straight from the formula (used away from mu = 1). */
static long double c_direct(long double a, long double mu)
{
    return (a * logl(mu) - logl(a * mu + 1.0L - a)) / (2.0L * (a - 1.0L));
}

typedef struct { double a, s1, s2; } gauss1;

static double renyi_integrand_1d(double x, void *ctx)
{
    const gauss1 *g = ctx;
    double lp = -0.5 * x * x / g->s1 - 0.5 * log(2.0 * M_PI * g->s1);
    double lq = -0.5 * x * x / g->s2 - 0.5 * log(2.0 * M_PI * g->s2);
    return exp(g->a * lp + (1.0 - g->a) * lq);
}

/* 2-d: Sigma1, Sigma2 2x2 symmetric (a, b; b, c); the integrand over y for fixed x. */
typedef struct { double a, P[3], Q[3], ldP, ldQ, x; } gauss2;

static double renyi_inner(double y, void *ctx)
{
    const gauss2 *g = ctx;
    double x = g->x;
    /* x^T S^-1 x for S = (s0, s1; s1, s2): (s2 x^2 - 2 s1 x y + s0 y^2) / det */
    double qp = (g->P[2] * x * x - 2.0 * g->P[1] * x * y + g->P[0] * y * y) / exp(g->ldP);
    double qq = (g->Q[2] * x * x - 2.0 * g->Q[1] * x * y + g->Q[0] * y * y) / exp(g->ldQ);
    double lp = -0.5 * qp - log(2.0 * M_PI) - 0.5 * g->ldP;
    double lq = -0.5 * qq - log(2.0 * M_PI) - 0.5 * g->ldQ;
    return exp(g->a * lp + (1.0 - g->a) * lq);
}

static double renyi_outer(double x, void *ctx)
{
    gauss2 *g = ctx;
    g->x = x;
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
    gsl_function f = { renyi_inner, g };
    double r, e;
    gsl_integration_qagi(&f, 1e-300, 1e-13, 1000, w, &r, &e);
    gsl_integration_workspace_free(w);
    return r;
}

START_TEST(gsm_rdp_equals_renyi_integral)
{
    gsl_set_error_handler_off();
    const double orders[] = { 1.5, 2.0, 4.0, 8.0 };
    /* 1-d: N(0, 1) against N(0, mu), D_a = (1/(a-1)) ln int p^a q^(1-a) */
    const double mus[] = { 0.8, 0.95, 1.1, 1.6 };
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 4; j++) {
            double a = orders[i], mu = mus[j];
            if (!(a * mu + 1.0 - a > 0.0)) continue;
            gauss1 g = { a, 1.0, mu };
            gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
            gsl_function f = { renyi_integrand_1d, &g };
            double r, e;
            ck_assert_int_eq(gsl_integration_qagi(&f, 1e-300, 1e-13, 1000, w, &r, &e), GSL_SUCCESS);
            gsl_integration_workspace_free(w);
            double want = 3.0 * log(r) / (a - 1.0), got;   /* k = 3 samples */
            ck_assert_int_eq(dpa_gsm_rdp(a, 3, &mu, 1, &got, NULL), DPA_OK);
            ck_assert_msg(got >= want * (1.0 - 1e-10) && got <= want * (1.0 + 1e-9), "a %g mu %g: %.15g vs %.15g", a,
                          mu, got, want);
        }
    /* 2-d: random positive definite pairs; the eigenvalues of
     * S1^-1/2 S2 S1^-1/2 are the roots of det(S2 - mu S1) = 0 */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    for (int t = 0; t < 6; t++) {
        double m1[2][2], m2[2][2];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                m1[i][j] = (i == j ? 1.0 : 0.0) + 0.3 * (gsl_rng_uniform(rng) - 0.5);
                m2[i][j] = m1[i][j] + 0.15 * (gsl_rng_uniform(rng) - 0.5);
            }
        double P[3] = { m1[0][0] * m1[0][0] + m1[0][1] * m1[0][1], m1[0][0] * m1[1][0] + m1[0][1] * m1[1][1],
                        m1[1][0] * m1[1][0] + m1[1][1] * m1[1][1] };
        double Q[3] = { m2[0][0] * m2[0][0] + m2[0][1] * m2[0][1], m2[0][0] * m2[1][0] + m2[0][1] * m2[1][1],
                        m2[1][0] * m2[1][0] + m2[1][1] * m2[1][1] };
        double dP = P[0] * P[2] - P[1] * P[1], dQ = Q[0] * Q[2] - Q[1] * Q[1];
        double bq = -(P[0] * Q[2] + P[2] * Q[0] - 2.0 * P[1] * Q[1]);
        double disc = sqrt(bq * bq - 4.0 * dP * dQ);
        double mu[2] = { (-bq - disc) / (2.0 * dP), (-bq + disc) / (2.0 * dP) };
        double a = orders[t % 4];
        if (!(a * mu[0] + 1.0 - a > 0.0)) continue;
        gauss2 g = { a, { P[0], P[1], P[2] }, { Q[0], Q[1], Q[2] }, log(dP), log(dQ), 0.0 };
        gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
        gsl_function f = { renyi_outer, &g };
        double r, e;
        gsl_integration_qagi(&f, 1e-300, 1e-12, 1000, w, &r, &e);
        gsl_integration_workspace_free(w);
        double want = log(r) / (a - 1.0), got;
        ck_assert_int_eq(dpa_gsm_rdp(a, 1, mu, 2, &got, NULL), DPA_OK);
        ck_assert_msg(fabs(got - want) <= 1e-9 * want + 1e-14, "trial %d a %g: %.15g vs %.15g", t, a, got, want);
    }
    gsl_rng_free(rng);
}
END_TEST

/* Near mu = 1 the divergence is a t^2/4 - a (1 + a) t^3 / 6 + O(t^4)
 * (t = mu - 1), where the direct formula cancels. */
START_TEST(gsm_rdp_near_one)
{
    const double ts[] = { 1e-5, -1e-5, 3e-7, -2e-8 };
    const double orders[] = { 1.01, 2.0, 50.0, 500.0 };
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 4; j++) {
            double t = ts[i], a = orders[j], mu = 1.0 + t, got;
            t = mu - 1.0;   /* the representable t */
            /* the series of lib/gsm.c's comment to t^4; the t^5 term,
             * a (1 + a + a^2 + a^3) t^5 / 10, bounds the rest (alternating,
             * shrinking terms: |a t| < 1/100 here), doubled for safety */
            long double a2 = (long double)a * a;
            long double want = a * t * t / 4.0L - a * (1.0L + a) * t * t * t / 6.0L +
                               a * (1.0L + a + a2) * t * t * t * t / 8.0L;
            long double next = 2.0L * a * (1.0L + a + a2 + a2 * a) * fabsl((long double)t * t * t * t * t) / 10.0L;
            ck_assert_int_eq(dpa_gsm_rdp(a, 1, &mu, 1, &got, NULL), DPA_OK);
            /* the library rounds up by a relative 1e-12 (lib/gsm.c) */
            ck_assert_msg(fabsl(got - want) <= fabsl(next) + 3e-12L * want, "t %g a %g: %.17g vs %.17Lg", t, a, got,
                          want);
            ck_assert(got >= want - fabsl(next));
        }
}
END_TEST

/* g(t) = c_a(1 + t) / t^2 decreases (lib/gsm.c's worst-case argument), and
 * the worst cases dominate random eigenvalue sets inside their bounds. */
START_TEST(gsm_worst_cases_dominate)
{
    const double orders[] = { 1.1, 2.0, 5.0, 20.0 };
    for (size_t i = 0; i < 4; i++) {
        double a = orders[i], lim = fmin(1.0, 1.0 / a);
        long double prev = INFINITY;
        for (int s = 1; s < 2000; s++) {
            long double t = -lim + 2.0L * lim * s / 2000.0L;
            if (fabsl(t) < 1e-3L) continue;
            long double g = c_direct(a, 1.0L + t) / (t * t);
            ck_assert_msg(g <= prev * (1.0L + 1e-15L), "a %g: g rises at t %Lg", a, t);
            prev = g;
        }
    }
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 11);
    const double M = 0.05;
    double orders_grid[] = { 1.5, 3.0, 10.0, 19.0 };
    dpa_options opt;
    dpa_options_init(&opt);
    opt.orders = orders_grid;
    opt.num_orders = 4;
    dpa_accountant *fro = accountant_with_options("rdp", &opt, dpa_event_gsm_frobenius(5, M, NULL));
    dpa_accountant *spec = accountant_with_options("rdp", &opt, dpa_event_gsm_spectral(5, 8, M, NULL));
    double o[4], worst_f[4], worst_s[4];
    size_t len;
    ck_assert_int_eq(dpa_accountant_rdp_curve(fro, o, worst_f, 4, &len, NULL), DPA_OK);
    ck_assert_uint_eq(len, 4);
    ck_assert_int_eq(dpa_accountant_rdp_curve(spec, o, worst_s, 4, &len, NULL), DPA_OK);
    ck_assert_uint_eq(len, 4);
    for (int k = 0; k < 4; k++) {
        /* the Frobenius worst case is k c_a(1 - M) (lib/gsm.c), computed here directly */
        long double want = 5.0L * c_direct(o[k], 1.0L - M);
        ck_assert_msg(worst_f[k] >= want && worst_f[k] <= want * (1.0L + 1e-11L), "order %g: %.17g vs %.17Lg", o[k],
                      worst_f[k], want);
    }
    for (int t = 0; t < 2000; t++) {
        double mu[8], norm2 = 0.0;
        for (int j = 0; j < 8; j++) {
            mu[j] = 1.0 + M * (2.0 * gsl_rng_uniform(rng) - 1.0);
            norm2 += (mu[j] - 1.0) * (mu[j] - 1.0);
        }
        for (int k = 0; k < 4; k++) {
            double r;
            ck_assert_int_eq(dpa_gsm_rdp(o[k], 5, mu, 8, &r, NULL), DPA_OK);
            ck_assert(r <= worst_s[k]);
            if (norm2 <= M * M) ck_assert(r <= worst_f[k]);
            /* scaled onto the Frobenius sphere it still stays below */
            double sc[8], f = M / sqrt(norm2);
            for (int j = 0; j < 8; j++) sc[j] = 1.0 + (mu[j] - 1.0) * f;
            ck_assert_int_eq(dpa_gsm_rdp(o[k], 5, sc, 8, &r, NULL), DPA_OK);
            ck_assert(r <= worst_f[k]);
        }
    }
    dpa_accountant_free(fro);
    dpa_accountant_free(spec);
    gsl_rng_free(rng);
}
END_TEST

/* The note's worked check (1.10): M = 0.01, delta = 1e-5.  The optimum over
 * real orders of k c_a(0.99) + ln((a-1)/a) - (ln delta + ln a)/(a - 1)
 * (mpmath, 40 digits): k = 100: 0.314726892479906 (a = 40.63), k = 600:
 * 0.74454962331135 (a = 21.22).  The accountant's grid can only be above it. */
START_TEST(gsm_epsilon_and_max_samples)
{
    const struct { uint64_t k; double eps; } ref[] = { { 100, 0.314726892479906 }, { 600, 0.74454962331135 } };
    for (size_t i = 0; i < 2; i++) {
        dpa_accountant *a = accountant_with("rdp", dpa_event_gsm_frobenius(ref[i].k, 0.01, NULL));
        dpa_bound b;
        ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, NULL), DPA_OK);
        ck_assert_msg(b.upper >= ref[i].eps && b.upper <= ref[i].eps * 1.01, "k %llu: %.12g vs %.12g",
                      (unsigned long long)ref[i].k, b.upper, ref[i].eps);
        dpa_accountant_free(a);
    }
    /* the largest k at eps 0.745: eps(k) <= 0.745 < eps(k + 1), near 600 */
    uint64_t k;
    dpa_error err = { 0 };
    ck_assert_msg(dpa_gsm_max_samples(0.01, 0, 0.745, 1e-5, NULL, &k, &err) == DPA_OK, "%s", err.message);
    ck_assert_msg(k >= 560 && k <= 601, "k = %llu", (unsigned long long)k);
    for (int side = 0; side < 2; side++) {
        dpa_accountant *a = accountant_with("rdp", dpa_event_gsm_frobenius(k + (uint64_t)side, 0.01, NULL));
        dpa_bound b;
        ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, NULL), DPA_OK);
        ck_assert(side == 0 ? b.upper <= 0.745 : b.upper > 0.745);
        dpa_accountant_free(a);
    }
    /* not even one sample: k = 0; huge budgets saturate at 2^53 */
    ck_assert_int_eq(dpa_gsm_max_samples(0.5, 0, 0.01, 1e-5, NULL, &k, NULL), DPA_OK);
    ck_assert_uint_eq(k, 0);
    ck_assert_int_eq(dpa_gsm_max_samples(1e-12, 0, 50.0, 1e-5, NULL, &k, NULL), DPA_OK);
    ck_assert_uint_eq(k, (uint64_t)1 << 53);
    /* bad input */
    ck_assert_int_eq(dpa_gsm_max_samples(0.01, 0, 1.0, 0.0, NULL, &k, &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_gsm_max_samples(1.5, 0, 1.0, 1e-5, NULL, &k, &err), DPA_EINVAL);
    ck_assert_ptr_null(dpa_event_gsm_frobenius(0, 0.1, &err));
    ck_assert_ptr_null(dpa_event_gsm_spectral(1, 0, 0.1, &err));
    double mu = -1.0, r;
    ck_assert_int_eq(dpa_gsm_rdp(2.0, 1, &mu, 1, &r, &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_gsm_rdp(1.0, 1, &mu, 1, &r, &err), DPA_EINVAL);
    mu = 0.4;   /* 3 * 0.4 + 1 - 3 < 0: infinite at order 3 */
    ck_assert_int_eq(dpa_gsm_rdp(3.0, 1, &mu, 1, &r, NULL), DPA_OK);
    ck_assert(isinf(r));
    /* pld and zcdp send the GSM to rdp */
    dpa_accountant *p = dpa_accountant_new("pld", NULL, NULL);
    dpa_event *e = dpa_event_gsm_frobenius(10, 0.01, NULL);
    ck_assert_int_eq(dpa_accountant_compose(p, e, &err), DPA_EUNSUPPORTED);
    ck_assert(strstr(err.message, "rdp") != NULL);
    dpa_event_free(e);
    dpa_accountant_free(p);
}
END_TEST

/* ---- failure deltas ----------------------------------------------------------- */

/* The Gaussian mechanism's exact delta(eps) (Balle & Wang 2018), written here. */
static double gauss_delta(double sigma, double eps)
{
    double mu = 1.0 / sigma;
    return 0.5 * erfc(-(-eps / mu + mu / 2.0) / M_SQRT2) - exp(eps) * 0.5 * erfc(-(-eps / mu - mu / 2.0) / M_SQRT2);
}

START_TEST(failure_terms_add)
{
    dpa_error err = { 0 };
    dpa_accountant *a = accountant_with("gaussian", dpa_event_gaussian(1.0, NULL));
    ck_assert_int_eq(dpa_accountant_add_failure(a, 2e-6, "random features", &err), DPA_OK);
    ck_assert_int_eq(dpa_accountant_add_failure(a, 3e-6, "RIP of the sensing matrix", &err), DPA_OK);
    ck_assert_uint_eq(dpa_accountant_num_failures(a), 2);
    double d;
    const char *what;
    ck_assert_int_eq(dpa_accountant_failure(a, 1, &d, &what), DPA_OK);
    ck_assert(d == 3e-6 && strcmp(what, "RIP of the sensing matrix") == 0);
    ck_assert_int_eq(dpa_accountant_failure(a, 2, &d, &what), DPA_EINVAL);
    dpa_bound b;
    ck_assert_int_eq(dpa_accountant_delta(a, 3.0, &b, &err), DPA_OK);
    double want = gauss_delta(1.0, 3.0) + 5e-6;
    ck_assert_msg(b.upper >= want && b.upper <= want * (1.0 + 1e-9), "%.15g vs %.15g", b.upper, want);
    ck_assert(b.flags & DPA_NO_LOWER);
    /* eps at delta 1e-5 is the mechanism's eps at 5e-6: delta_gauss(eps) = 5e-6 */
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, &err), DPA_OK);
    ck_assert_msg(fabs(gauss_delta(1.0, b.upper) - 5e-6) <= 1e-9 * 5e-6 + 1e-15 &&
                      gauss_delta(1.0, b.upper) <= 5e-6 * (1.0 + 1e-12),
                  "eps %.15g gives delta %.15g", b.upper, gauss_delta(1.0, b.upper));
    /* a delta the failures already use up is refused */
    ck_assert_int_eq(dpa_accountant_epsilon(a, 5e-6, &b, &err), DPA_EINVAL);
    ck_assert(strstr(err.message, "failure") != NULL);
    ck_assert_int_eq(dpa_accountant_add_failure(a, 1.5, "x", &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_accountant_add_failure(a, NAN, "x", &err), DPA_EINVAL);
    for (int i = 2; i < DPA_MAX_FAILURES; i++) ck_assert_int_eq(dpa_accountant_add_failure(a, 0.0, NULL, NULL), DPA_OK);
    ck_assert_int_eq(dpa_accountant_add_failure(a, 0.0, NULL, &err), DPA_EINVAL);
    dpa_accountant_free(a);
}
END_TEST

/* ---- Liu-Talwar random stopping -------------------------------------------------- */

START_TEST(liu_talwar_three_eps)
{
    dpa_error err = { 0 };
    /* Laplace with b = 2: pure 0.5-DP; random stopping: 1.5-DP whatever gamma */
    const double gammas[] = { 0.01, 0.3, 1.0 };
    for (size_t i = 0; i < 3; i++) {
        dpa_event *e = dpa_event_repeated_selected(dpa_event_laplace(2.0, NULL), DPA_REPEAT_GEOMETRIC, gammas[i],
                                                   0.0, &err);
        ck_assert_ptr_nonnull(e);
        dpa_accountant *a = accountant_with("tuning", e);
        dpa_bound b;
        ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-6, &b, &err), DPA_OK);
        ck_assert_msg(b.upper >= 1.5 && b.upper <= 1.5 * 1.001, "gamma %g: %.12g", gammas[i], b.upper);
        ck_assert_int_eq(dpa_accountant_delta(a, 1.51, &b, &err), DPA_OK);
        ck_assert(b.upper == 0.0);
        dpa_accountant_free(a);
    }
    /* a Gaussian base is not pure DP: refused, pointing to rdp */
    dpa_accountant *a = dpa_accountant_new("tuning", NULL, NULL);
    dpa_event *e = dpa_event_repeated_selected(dpa_event_gaussian(1.0, NULL), DPA_REPEAT_GEOMETRIC, 0.1, 0.0, NULL);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    ck_assert(strstr(err.message, "pure") != NULL);
    dpa_event_free(e);
    dpa_accountant_free(a);
    /* rdp takes the geometric as Papernot & Steinke's truncated negative
     * binomial with eta = 1 (their Thm 2, written here from the paper): with
     * a Gaussian of sigma 2 (eps(l) = l/8), gamma = 0.1 (E[K] = 10),
     *   eps'(l) <= eps(l) + (1 + eta) min_m [(1 - 1/m) eps(m) + ln(1/gamma)/m]
     *              + ln(E[K])/(l - 1),
     * the minimum over the accountant's orders m, and RDP non-decreasing in
     * the order (so a higher order's bound also holds). */
    double grid[] = { 2.0, 4.0, 8.0, 16.0, 32.0, 64.0 };
    dpa_options opt;
    dpa_options_init(&opt);
    opt.orders = grid;
    opt.num_orders = 6;
    dpa_accountant *g = accountant_with_options(
        "rdp", &opt, dpa_event_repeated_selected(dpa_event_gaussian(2.0, NULL), DPA_REPEAT_GEOMETRIC, 0.1, 0.0, NULL));
    double o[6], curve[6], want[6], cmin = INFINITY;
    size_t len;
    ck_assert_int_eq(dpa_accountant_rdp_curve(g, o, curve, 6, &len, NULL), DPA_OK);
    ck_assert_uint_eq(len, 6);
    for (int j = 0; j < 6; j++) cmin = fmin(cmin, (1.0 - 1.0 / grid[j]) * grid[j] / 8.0 + log(10.0) / grid[j]);
    for (int i = 0; i < 6; i++) want[i] = grid[i] / 8.0 + 2.0 * cmin + log(10.0) / (grid[i] - 1.0);
    for (int i = 4; i >= 0; i--) want[i] = fmin(want[i], want[i + 1]);
    /* the accountant rounds its RDP up (a few 1e-12 here), never down */
    for (int i = 0; i < 6; i++)
        ck_assert_msg(curve[i] >= want[i] && curve[i] <= want[i] * (1.0 + 1e-10), "order %g: %.15g vs %.15g", o[i],
                      curve[i], want[i]);
    dpa_accountant_free(g);
    ck_assert_ptr_null(dpa_event_repeated_selected(dpa_event_laplace(1.0, NULL), DPA_REPEAT_GEOMETRIC, 0.0, 0.0, &err));
    ck_assert_ptr_null(dpa_event_repeated_selected(dpa_event_laplace(1.0, NULL), DPA_REPEAT_GEOMETRIC, 1.5, 0.0, &err));
}
END_TEST

/* Permute-and-flip (McKenna & Sheldon 2020) is eps-DP: k of them compose
 * at most as k releases of the pure eps-DP pair, whose exact profile is
 * Kairouz, Oh & Viswanath's (ICML 2015, Thm 3.3): delta(e') = sum_i C(k, i)
 * (e^((k-i) eps) - e^e' e^(i eps))_+ / (1 + e^eps)^k.  mpmath at 40 digits
 * (tests/ref/pure_composition.py): eps at delta and delta at e' = 2.  pld's
 * bracket must hold them, rdp's and zcdp's upper bounds lie above them,
 * and the exponential mechanism's bound (bounded range) may be smaller. */
START_TEST(permute_and_flip_is_pure_dp)
{
    static const struct { uint64_t k; double eps, delta, eps_at_delta, delta_at_2; } ref[] = {
        { 10, 0.5, 1e-5, 4.9988541204123691183, 0.14546644644111701547 },
        { 100, 0.1, 1e-5, 4.3067913725165067871, 0.020140178428191531843 },
        { 10, 0.5, 1e-3, 4.8783719584638214724, 0.14546644644111701547 },
    };
    dpa_error err = { 0 };
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        dpa_bound b;
        dpa_accountant *a = accountant_with(
            "pld", dpa_event_self_composed(dpa_event_permute_and_flip(ref[i].eps, &err), ref[i].k, &err));
        ck_assert_int_eq(dpa_accountant_epsilon(a, ref[i].delta, &b, &err), DPA_OK);
        ck_assert_msg(b.lower <= ref[i].eps_at_delta && ref[i].eps_at_delta <= b.upper, "pld eps [%.12g, %.12g] vs %.12g",
                      b.lower, b.upper, ref[i].eps_at_delta);
        ck_assert_int_eq(dpa_accountant_delta(a, 2.0, &b, &err), DPA_OK);
        ck_assert_msg(b.lower <= ref[i].delta_at_2 && ref[i].delta_at_2 <= b.upper, "pld delta [%.12g, %.12g] vs %.12g",
                      b.lower, b.upper, ref[i].delta_at_2);
        dpa_accountant_free(a);
        static const char *const others[] = { "rdp", "zcdp" };
        for (size_t j = 0; j < 2; j++) {
            a = accountant_with(others[j], dpa_event_self_composed(dpa_event_permute_and_flip(ref[i].eps, &err),
                                                                   ref[i].k, &err));
            ck_assert_int_eq(dpa_accountant_epsilon(a, ref[i].delta, &b, &err), DPA_OK);
            ck_assert_msg(b.upper >= ref[i].eps_at_delta, "%s %.12g below %.12g", others[j], b.upper,
                          ref[i].eps_at_delta);
            dpa_accountant_free(a);
        }
    }
    ck_assert_ptr_null(dpa_event_permute_and_flip(0.0, &err));
    ck_assert_int_eq(err.status, DPA_EINVAL);
    ck_assert_ptr_null(dpa_event_permute_and_flip(INFINITY, &err));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mechanisms");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, tlap_strip_mass_is_delta);
    tcase_add_test(tc, tlap_pld_matches_quadrature);
    tcase_add_test(tc, tlap_full_shift_dominates);
    tcase_add_test(tc, tlap_two_compositions);
    tcase_add_test(tc, tlap_refused_by_renyi_accountants);
    tcase_add_test(tc, gsm_rdp_equals_renyi_integral);
    tcase_add_test(tc, gsm_rdp_near_one);
    tcase_add_test(tc, gsm_worst_cases_dominate);
    tcase_add_test(tc, gsm_epsilon_and_max_samples);
    tcase_add_test(tc, failure_terms_add);
    tcase_add_test(tc, liu_talwar_three_eps);
    tcase_add_test(tc, permute_and_flip_is_pure_dp);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
