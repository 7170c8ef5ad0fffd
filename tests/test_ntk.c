/*
 * test_ntk.c - private NTK regression (trainers/ntk/ntk.c; Gu et al. WACV 2025 as
 * reconstructed in ../shared/notes/ntk-sparse-seeds-002-004.md, section 1).
 *
 * The references are independent of the code under test:
 *  - the kernel against the Gram matrix of the explicit feature map phi and
 *    against the triple sum (1/m) sum_r <w_r,x><w_r,z><x,z> in long double
 *    (note 1.1, Def. 3.5);
 *  - the deterministic sensitivity S_H = sqrt(8(n+1)) ||Wbar||_op B^3 beta
 *    (note 1.5 [D]) with ||Wbar|| by a power iteration written here, against
 *    ||K - K'||_F for random and for near-worst-case neighbours, and the
 *    two-sided M from the eigenvalues of L^-1 K'_lambda L^-T - I;
 *  - the GSM sampler's mean and Wishart variance (Sigma_ij^2 + Sigma_ii
 *    Sigma_jj)/k (note 1.4) on both of its paths, within 5 standard errors;
 *  - the truncated Laplace sampler's support and its boundary strip's mass
 *    (e^eps - 1)/(2(e^(eps A/Delta) - 1)) = delta (note 1.2 [D]);
 *  - k_max against the RDP of the frobenius worst case k c_a(1 - M)
 *    (note 1.10) with the conversion written here;
 *  - exact fits, the pseudo-inverse path and the refused options.
 */
#include "dptrain.h"
#include "test_rng_util.h"
#include "testutil.h"

#include <check.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gsl_rng *rng(unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    ck_assert_ptr_nonnull(r);
    gsl_rng_set(r, seed);
    return r;
}

/* n rows in R^d, uniform direction, norm uniform in [0.2 B, B] (or exactly B). */
static double *random_rows(gsl_rng *r, size_t n, size_t d, double B, int exact)
{
    double *x = malloc(n * d * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < n; i++) {
        double s = 0.0;
        for (size_t j = 0; j < d; j++) {
            x[i * d + j] = gsl_ran_gaussian(r, 1.0);
            s += x[i * d + j] * x[i * d + j];
        }
        double len = exact ? B : B * (0.2 + 0.8 * gsl_rng_uniform(r));
        for (size_t j = 0; j < d; j++) x[i * d + j] *= len / sqrt(s);
    }
    return x;
}

/* ||Wbar||_op of Wbar = (1/m) W^T W by a power iteration in long double
 * (Wbar is PSD, so its top eigenvalue is its norm), run to convergence of
 * the Rayleigh quotient; and the top eigenvector into v (d values). */
static long double wbar_norm_power(const double *w, size_t m, size_t d, double *v)
{
    long double *wb = calloc(d * d, sizeof *wb), *x = malloc(d * sizeof *x), *y = malloc(d * sizeof *y);
    ck_assert(wb && x && y);
    for (size_t r = 0; r < m; r++)
        for (size_t i = 0; i < d; i++)
            for (size_t j = 0; j < d; j++) wb[i * d + j] += (long double)w[r * d + i] * w[r * d + j] / (long double)m;
    for (size_t i = 0; i < d; i++) x[i] = 1.0L + 0.01L * (long double)i;
    long double lam = 0.0L, prev = -1.0L;
    for (int it = 0; it < 100000 && fabsl(lam - prev) > 1e-19L * lam; it++) {
        long double s = 0.0L;
        for (size_t i = 0; i < d; i++) s += x[i] * x[i];
        s = sqrtl(s);
        for (size_t i = 0; i < d; i++) x[i] /= s;
        for (size_t i = 0; i < d; i++) {
            y[i] = 0.0L;
            for (size_t j = 0; j < d; j++) y[i] += wb[i * d + j] * x[j];
        }
        prev = lam;
        lam = 0.0L;
        for (size_t i = 0; i < d; i++) lam += x[i] * y[i];
        memcpy(x, y, d * sizeof *x);
    }
    long double s = 0.0L;
    for (size_t i = 0; i < d; i++) s += x[i] * x[i];
    for (size_t i = 0; i < d; i++) v[i] = (double)(x[i] / sqrtl(s));
    free(wb);
    free(x);
    free(y);
    return lam;
}

/* (1) The closed form equals the Gram matrix of phi and the triple sum. */
START_TEST(kernel_is_the_feature_gram_and_the_triple_sum)
{
    const size_t m = 37, d = 9, n1 = 7, n2 = 11;
    gsl_rng *r = rng(11);
    double *w = malloc(m * d * sizeof *w);
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_ntk_neurons(m, d, 0.7, 5, w, &err), DPA_OK);
    double *a = random_rows(r, n1, d, 1.3, 0), *b = random_rows(r, n2, d, 0.8, 0);
    double *k = malloc(n1 * n2 * sizeof *k), *pa = malloc(m * d * sizeof *pa), *pb = malloc(m * d * sizeof *pb);
    ck_assert_int_eq(dpt_ntk_kernel(w, m, d, a, n1, b, n2, k, &err), DPA_OK);
    double worst_gram = 0.0, worst_sum = 0.0;
    for (size_t i = 0; i < n1; i++) {
        dpt_ntk_feature(w, m, d, a + i * d, pa);
        for (size_t j = 0; j < n2; j++) {
            dpt_ntk_feature(w, m, d, b + j * d, pb);
            long double g = 0.0L, t = 0.0L, xz = 0.0L, scale = 0.0L;
            for (size_t q = 0; q < m * d; q++) g += (long double)pa[q] * pb[q];
            for (size_t q = 0; q < d; q++) xz += (long double)a[i * d + q] * b[j * d + q];
            for (size_t rr = 0; rr < m; rr++) {
                long double wx = 0.0L, wz = 0.0L;
                for (size_t q = 0; q < d; q++) {
                    wx += (long double)w[rr * d + q] * a[i * d + q];
                    wz += (long double)w[rr * d + q] * b[j * d + q];
                }
                t += wx * wz * xz;
                scale += fabsl(wx * wz * xz);
            }
            t /= (long double)m;
            scale /= (long double)m;     /* the size of the sum's terms: the rounding scale */
            worst_gram = fmax(worst_gram, (double)(fabsl((long double)k[i * n2 + j] - g) / scale));
            worst_sum = fmax(worst_sum, (double)(fabsl((long double)k[i * n2 + j] - t) / scale));
        }
    }
    printf("kernel: max |K - Phi Phi^T| / scale %.3g, max |K - triple sum| / scale %.3g\n", worst_gram, worst_sum);
    ck_assert_double_le(worst_gram, 1e-12);
    ck_assert_double_le(worst_sum, 1e-12);
    /* the neurons are N(0, 0.7^2): their sample variance within 5 standard errors */
    long double s2 = 0.0L;
    for (size_t q = 0; q < m * d; q++) s2 += (long double)w[q] * w[q];
    double var = (double)(s2 / (long double)(m * d));
    ck_assert_double_le(fabs(var - 0.49), 5.0 * 0.49 * sqrt(2.0 / (double)(m * d)));
    free(w);
    free(a);
    free(b);
    free(k);
    free(pa);
    free(pb);
    gsl_rng_free(r);
}
END_TEST

/* ||A^-1/2 B A^-1/2 - I||_F via the Cholesky factor L of A: L^-1 B L^-T is
 * similar to A^-1/2 B A^-1/2. */
static double frobenius_m(const double *A, const double *Bm, size_t n)
{
    gsl_matrix *L = gsl_matrix_alloc(n, n), *T = gsl_matrix_alloc(n, n);
    gsl_vector *ev = gsl_vector_alloc(n);
    gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc(n);
    memcpy(L->data, A, n * n * sizeof(double));
    memcpy(T->data, Bm, n * n * sizeof(double));
    ck_assert_int_eq(gsl_linalg_cholesky_decomp1(L), GSL_SUCCESS);
    gsl_blas_dtrsm(CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, 1.0, L, T);   /* L^-1 B */
    gsl_blas_dtrsm(CblasRight, CblasLower, CblasTrans, CblasNonUnit, 1.0, L, T);    /* L^-1 B L^-T */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++) {
            double s = 0.5 * (gsl_matrix_get(T, i, j) + gsl_matrix_get(T, j, i));
            gsl_matrix_set(T, i, j, s);
            gsl_matrix_set(T, j, i, s);
        }
    ck_assert_int_eq(gsl_eigen_symm(T, ev, ws), GSL_SUCCESS);
    double f = 0.0;
    for (size_t i = 0; i < n; i++) f += (gsl_vector_get(ev, i) - 1.0) * (gsl_vector_get(ev, i) - 1.0);
    gsl_matrix_free(L);
    gsl_matrix_free(T);
    gsl_vector_free(ev);
    gsl_eigen_symm_free(ws);
    return sqrt(f);
}

/* (2) For neighbours (one row moved by <= beta, rows of norm <= B),
 * ||K - K'||_F <= S_H and both directions of M <= S_H / lambda; the bound
 * is nearly attained by rows along Wbar's top eigenvector with the last one
 * pulled in radially; the library's S_H is this S_H. */
START_TEST(sensitivity_bounds_hold_and_are_tight)
{
    const size_t m = 16, d = 6, n = 25;
    const double B = 1.5, beta = 0.02, lambda = 0.3;
    gsl_rng *r = rng(21);
    double *w = malloc(m * d * sizeof *w), *v = malloc(d * sizeof *v);
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_ntk_neurons(m, d, 1.0, 77, w, &err), DPA_OK);
    double wn = (double)wbar_norm_power(w, m, d, v);
    double sh = sqrt(8.0 * (n + 1.0)) * wn * B * B * B * beta;
    double *k = malloc(n * n * sizeof *k), *k2 = malloc(n * n * sizeof *k2);
    double worst_h = 0.0, worst_m = 0.0;
    for (int trial = 0; trial < 300; trial++) {
        double *x = random_rows(r, n, d, B, trial % 2), *x2 = malloc(n * d * sizeof *x2);
        memcpy(x2, x, n * d * sizeof *x);
        double *row = x2 + (n - 1) * d, s = 0.0, len = beta * sqrt(gsl_rng_uniform(r)), nr = 0.0;
        double dir[6];
        for (size_t j = 0; j < d; j++) {
            dir[j] = gsl_ran_gaussian(r, 1.0);
            s += dir[j] * dir[j];
        }
        for (size_t j = 0; j < d; j++) {
            row[j] += len * dir[j] / sqrt(s);
            nr += row[j] * row[j];
        }
        /* back into the ball of radius B: a projection onto a convex set
         * containing x_n, so the move stays <= beta */
        if (sqrt(nr) > B)
            for (size_t j = 0; j < d; j++) row[j] *= B / sqrt(nr);
        ck_assert_int_eq(dpt_ntk_kernel(w, m, d, x, n, x, n, k, &err), DPA_OK);
        ck_assert_int_eq(dpt_ntk_kernel(w, m, d, x2, n, x2, n, k2, &err), DPA_OK);
        double f = 0.0;
        for (size_t i = 0; i < n * n; i++) f += (k[i] - k2[i]) * (k[i] - k2[i]);
        for (size_t i = 0; i < n; i++) {
            k[i * n + i] += lambda;
            k2[i * n + i] += lambda;
        }
        double m1 = frobenius_m(k, k2, n), m2 = frobenius_m(k2, k, n);
        worst_h = fmax(worst_h, sqrt(f) / sh);
        worst_m = fmax(worst_m, fmax(m1, m2) / (sh / lambda));
        free(x);
        free(x2);
    }
    /* near the worst case: every row B v (v Wbar's top eigenvector), the
     * last one moved to (B - beta) v: the changes are lambda_max (B^4 -
     * B^2 (B - beta)^2) ~ 2 lambda_max B^3 beta off the diagonal and
     * lambda_max (B^4 - (B - beta)^4) ~ 4 lambda_max B^3 beta on it */
    double *x = malloc(n * d * sizeof *x), *x2 = malloc(n * d * sizeof *x2);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) x[i * d + j] = x2[i * d + j] = B * v[j];
    for (size_t j = 0; j < d; j++) x2[(n - 1) * d + j] = (B - beta) * v[j];
    ck_assert_int_eq(dpt_ntk_kernel(w, m, d, x, n, x, n, k, &err), DPA_OK);
    ck_assert_int_eq(dpt_ntk_kernel(w, m, d, x2, n, x2, n, k2, &err), DPA_OK);
    double f = 0.0;
    for (size_t i = 0; i < n * n; i++) f += (k[i] - k2[i]) * (k[i] - k2[i]);
    double tight = sqrt(f) / sh;
    for (size_t i = 0; i < n; i++) {
        k[i * n + i] += lambda;
        k2[i * n + i] += lambda;
    }
    double tight_m = fmax(frobenius_m(k, k2, n), frobenius_m(k2, k, n)) / (sh / lambda);
    printf("sensitivity: random pairs max ||dK||_F / S_H %.4f, max M / (S_H/lambda) %.4f; "
           "aligned pair %.6f and %.4f\n", worst_h, worst_m, tight, tight_m);
    ck_assert_double_le(worst_h, 1.0);
    ck_assert_double_le(worst_m, 1.0);
    ck_assert_double_le(tight, 1.0);
    ck_assert_double_le(tight_m, 1.0);
    ck_assert_double_ge(tight, 0.98);           /* the bound is nearly attained: S_H is not loose */

    /* the library's S_H, M and ||Wbar|| for data of these sizes (rows
     * already of norm B, so its scaling changes nothing) */
    dpt_dataset D = { n, d, x, calloc(n, sizeof(double)) };
    for (size_t i = 0; i < n; i++) D.y[i] = (double)(i % 2);
    double *xr = random_rows(r, n, d, B, 1);
    D.x = xr;
    dpt_ntk_options o;
    dpt_ntk_defaults(&o);
    o.width = m;
    o.row_norm = B;
    o.beta = beta;
    o.ridge = lambda;
    o.seed = 77;
    o.private_ = 0;
    dpt_ntk_model *model;
    dpt_ntk_result res;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_msg(dpt_ntk_train(&D, &o, &model, &res, &err) == DPA_OK, "%s", err.message);
    printf("sensitivity: library ||Wbar|| %.15g (power iteration %.15g), S_H %.10g (here %.10g)\n", res.wbar_norm, wn,
           res.sensitivity_h, sh);
    ck_assert_double_ge(res.wbar_norm, wn);                  /* rounded up */
    ck_assert_double_le(res.wbar_norm, wn * (1.0 + 1e-8));
    ck_assert_double_ge(res.sensitivity_h, sh * (1.0 - 1e-12));
    ck_assert_double_le(res.sensitivity_h, sh * (1.0 + 1e-8));
    ck_assert_double_le(fabs(res.sensitivity_m - res.sensitivity_h / lambda), 1e-15 * res.sensitivity_m);
    dpt_ntk_free(model);
    free(D.y);
    free(xr);
    free(x);
    free(x2);
    free(k);
    free(k2);
    free(w);
    free(v);
    gsl_rng_free(r);
}
END_TEST

/* Mean and variance of each entry of Sigmahat over N draws against Sigma
 * and the Wishart variance (Sigma_ij^2 + Sigma_ii Sigma_jj)/k, within 5
 * standard errors (of the mean: sqrt(V/N); of the sample variance: the
 * sample's sqrt((m4 - s^4)/N)). */
static void gsm_moments(uint64_t k, size_t N)
{
    enum { n = 4 };
    double sigma[n * n], out[n * n];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) sigma[i * n + j] = pow(0.5, fabs((double)i - (double)j)) + (i == j ? 0.5 : 0.0);
    long double *sum = calloc(n * n, sizeof *sum), *sum2 = calloc(n * n, sizeof *sum2), *sum4 = calloc(n * n, sizeof *sum4);
    double *dev = malloc(N * n * n * sizeof *dev);
    ck_assert(sum && sum2 && sum4 && dev);
    dpa_error err = { 0 };
    dpt_rng *rng = test_rng(1000 + k);     /* one stream: the N draws are independent */
    for (size_t t = 0; t < N; t++) {
        ck_assert_int_eq(dpt_gsm_sample(sigma, n, k, rng, out, &err), DPA_OK);
        for (size_t q = 0; q < n * n; q++) {
            dev[t * n * n + q] = out[q] - sigma[q];
            sum[q] += dev[t * n * n + q];
        }
    }
    double worst_mean = 0.0, worst_var = 0.0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++) {
            size_t q = i * n + j;
            double V = (sigma[q] * sigma[q] + sigma[i * n + i] * sigma[j * n + j]) / (double)k;
            long double mean = sum[q] / (long double)N;
            for (size_t t = 0; t < N; t++) {
                long double c = dev[t * n * n + q] - mean;
                sum2[q] += c * c;
                sum4[q] += c * c * c * c;
            }
            double s2 = (double)(sum2[q] / (long double)(N - 1)), m4 = (double)(sum4[q] / (long double)N);
            double se_mean = sqrt(V / (double)N), se_var = sqrt(fmax(m4 - s2 * s2, 0.0) / (double)N);
            worst_mean = fmax(worst_mean, fabs((double)mean) / se_mean);
            worst_var = fmax(worst_var, fabs(s2 - V) / se_var);
            ck_assert_double_le(fabs((double)mean), 5.0 * se_mean);
            ck_assert_double_le(fabs(s2 - V), 5.0 * se_var);
            ck_assert_double_eq(out[i * n + j], out[j * n + i]);
        }
    printf("gsm: k = %llu (%s), %zu draws: max |mean - Sigma| %.2f se, max |var - Wishart| %.2f se\n",
           (unsigned long long)k, k >= n ? "Bartlett" : "explicit", N, worst_mean, worst_var);
    free(sum);
    free(sum2);
    free(sum4);
    free(dev);
}

/* (3) The GSM sampler: both paths, and k up to 2^50 (chi2 with huge degrees
 * of freedom on the diagonal of Bartlett's factor). */
START_TEST(gsm_sampler_has_the_wishart_moments)
{
    gsm_moments(1, 20000);
    gsm_moments(3, 20000);
    gsm_moments(4, 20000);
    gsm_moments(25, 20000);
    gsm_moments(UINT64_C(1) << 50, 20000);
    /* rank min(k, n): k = 2 < n = 4 leaves a singular Sigmahat */
    double sigma[9] = { 2, 0.3, 0.1, 0.3, 1, 0.2, 0.1, 0.2, 1.5 }, out[9];
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_gsm_sample(sigma, 3, 2, test_rng(9), out, &err), DPA_OK);
    double det = out[0] * (out[4] * out[8] - out[5] * out[7]) - out[1] * (out[3] * out[8] - out[5] * out[6]) +
                 out[2] * (out[3] * out[7] - out[4] * out[6]);
    ck_assert_double_le(fabs(det), 1e-12 * out[0] * out[4] * out[8]);
}
END_TEST

/* (4) Truncated Laplace: support [-A, A] and the boundary strip's mass. */
START_TEST(truncated_laplace_strip_mass_is_delta)
{
    const double eps = 1.0, Delta = 0.5, delta = 0.05;
    /* A = (Delta/eps) ln(1 + (e^eps - 1)/(2 delta)) (note 1.2, Geng et al.) */
    double A = (double)((long double)Delta / eps * logl(1.0L + expm1l(eps) / (2.0L * delta)));
    double Alib;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpa_truncated_laplace_bound(Delta, eps, delta, &Alib, &err), DPA_OK);
    ck_assert_double_ge(Alib, A * (1.0 - 1e-15));
    ck_assert_double_le(Alib, A * (1.0 + 1e-12));
    /* the closed form of the strip's mass is delta at this A */
    double strip = expm1(eps) / (2.0 * expm1(eps * A / Delta));
    ck_assert_double_le(fabs(strip - delta), 1e-12 * delta);
    dpt_rng *r = test_rng(31);
    const size_t N = 2000000;
    size_t in_strip = 0, negative = 0, inner = 0;
    double b = Delta / eps, lo = -A, hi = A;
    for (size_t i = 0; i < N; i++) {
        /* the grid-rounded sampler: v + Z rounded to the grid g = 2^(floor(log2 b) - 20) */
        double z = dpt_noise_truncated_laplace(r, 0.0, b, A);
        ck_assert(z >= -A - 0x1p-20 * b && z <= A + 0x1p-20 * b);
        lo = fmin(lo, z);
        hi = fmax(hi, z);
        in_strip += z >= A - Delta;
        negative += z < 0.0;
        inner += fabs(z) <= b;
    }
    double p = (double)in_strip / (double)N, se = sqrt(delta * (1.0 - delta) / (double)N);
    /* P(|Z| <= b) = (1 - e^-1) / (1 - e^(-A/b)) */
    double pin = -expm1(-1.0) / -expm1(-A / b), se_in = sqrt(pin * (1.0 - pin) / (double)N);
    double pi = (double)inner / (double)N;
    printf("tlap: A %.10f, strip mass %.5f (delta %.3f, se %.1e), P(|Z| <= b) %.5f (%.5f), P(Z < 0) %.5f\n", A, p,
           delta, se, pi, pin, (double)negative / (double)N);
    ck_assert_double_le(fabs(p - delta), 5.0 * se);
    ck_assert_double_le(fabs(pi - pin), 5.0 * se_in);
    ck_assert_double_le(fabs((double)negative / (double)N - 0.5), 5.0 * sqrt(0.25 / (double)N));
    /* bad arguments (the callers check them) give NaN, which no model can hide */
    ck_assert(isnan(dpt_noise_truncated_laplace(r, 0.0, -1.0, 1.0)));
    ck_assert(isnan(dpt_noise_truncated_laplace(r, 0.0, NAN, 1.0)));
    ck_assert(isnan(dpt_noise_truncated_laplace(r, 0.0, 1.0, NAN)));
}
END_TEST

/* Three clusters around orthogonal directions, rows of norm ~1. */
static dpt_dataset clusters(size_t n, size_t d, unsigned long seed)
{
    gsl_rng *r = rng(seed);
    dpt_dataset D = { n, d, malloc(n * d * sizeof(double)), malloc(n * sizeof(double)) };
    for (size_t i = 0; i < n; i++) {
        size_t c = i % 3;
        D.y[i] = (double)c;
        for (size_t j = 0; j < d; j++) D.x[i * d + j] = (j == c ? 1.0 : 0.0) + gsl_ran_gaussian(r, 0.15);
    }
    gsl_rng_free(r);
    return D;
}

/* (5) Non-private, tiny lambda: the training data are fitted exactly. */
START_TEST(nonprivate_fits_separable_data)
{
    /* n = 60 <= d(d+1)/2 = 78, the rank the degree-4 kernel <x,z> x^T Wbar z
     * can reach, so K is generically invertible and the fit is exact */
    dpt_dataset D = clusters(60, 12, 41), T = clusters(300, 12, 42);
    dpt_ntk_options o;
    dpt_ntk_defaults(&o);
    o.private_ = 0;
    o.ridge = 1e-8;
    o.width = 64;
    dpt_ntk_model *m;
    dpt_ntk_result res;
    dpa_error err = { 0 };
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_msg(dpt_ntk_train(&D, &o, &m, &res, &err) == DPA_OK, "%s", err.message);
    double test = dpt_ntk_accuracy(m, &T);
    printf("non-private: train accuracy %.4f, test %.4f\n", res.train_accuracy, test);
    ck_assert_double_eq(res.train_accuracy, 1.0);
    ck_assert_double_eq(dpt_ntk_accuracy(m, &D), 1.0);
    ck_assert_double_ge(test, 0.95);
    ck_assert(isinf(res.epsilon));
    ck_assert_uint_eq(res.classes, 3);
    /* the scores interpolate the one-hot labels: K_lambda alpha = Y with
     * lambda ~ 0 means f(x_i) = Y_i up to lambda alpha_i */
    double *s = malloc(D.n * 3 * sizeof *s);
    ck_assert_int_eq(dpt_ntk_scores(m, D.x, D.n, s, &err), DPA_OK);
    double worst = 0.0;
    for (size_t i = 0; i < D.n; i++)
        for (size_t c = 0; c < 3; c++) worst = fmax(worst, fabs(s[i * 3 + c] - (D.y[i] == (double)c)));
    printf("non-private: max |f(x_i) - Y_i| %.3g\n", worst);
    ck_assert_double_le(worst, 1e-3);
    /* a label above C - 1 counts as wrong */
    T.y[0] = 7.0;
    ck_assert_double_lt(dpt_ntk_accuracy(m, &T), test);
    free(s);
    dpt_ntk_free(m);
    free(D.x);
    free(D.y);
    free(T.x);
    free(T.y);
}
END_TEST

/* c_a(mu) = [a ln mu - ln(a mu + 1 - a)] / (2 (a - 1)) (note 1.10). */
static long double c_alpha(long double a, long double mu)
{
    long double arg = a * mu + 1.0L - a;
    if (arg <= 0.0L) return INFINITY;
    return (a * logl(mu) - logl(arg)) / (2.0L * (a - 1.0L));
}

/* The eps of k frobenius-worst-case GSM samples at delta: the RDP k c_a(1 -
 * M) with the conversion eps = RDP + ln((a-1)/a) - (ln delta + ln a)/(a-1)
 * (note 1.10), minimised over a fine grid of a in (1, 1/M). */
static double gsm_eps(uint64_t k, double M, double delta)
{
    long double best = INFINITY;
    for (int i = 1; i < 200000; i++) {
        long double a = 1.0L + expl(-12.0L + 24.0L * i / 200000.0L);
        if (a * M >= 1.0L) break;
        long double e = (long double)k * c_alpha(a, 1.0L - M) + logl((a - 1.0L) / a) - (logl(delta) + logl(a)) / (a - 1.0L);
        if (e < best) best = e;
    }
    return (double)best;
}

/* (6) Private: k_max meets the budget (and twice k_max does not), the
 * totals compose, the paper's threshold is its formula; and k < n goes
 * through the pseudo-inverse to a finite predictor. */
START_TEST(private_accounting_and_pseudo_inverse)
{
    dpt_dataset D = clusters(60, 12, 51), T = clusters(300, 12, 52);
    dpt_ntk_options o;
    dpt_ntk_defaults(&o);
    o.width = 64;
    o.beta = 1e-4;
    o.ridge = 0.5;
    o.epsilon_gsm = 1.0;
    o.delta_gsm = 1e-5;
    o.epsilon_features = 2.0;
    o.delta_features = 1e-6;
    dpt_ntk_model *m;
    dpt_ntk_result res;
    dpa_error err = { 0 };
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_msg(dpt_ntk_train(&D, &o, &m, &res, &err) == DPA_OK, "%s", err.message);
    double M = res.sensitivity_m;
    double e_kmax = gsm_eps(res.samples_max, M, o.delta_gsm), e_2k = gsm_eps(2 * res.samples_max, M, o.delta_gsm);
    double paper = o.epsilon_gsm * o.epsilon_gsm / (8.0 * log(1.0 / o.delta_gsm) * M * M);
    double A = (double)(sqrtl(12.0L) * o.beta / o.epsilon_features *
                        logl(1.0L + expm1l(o.epsilon_features) / (2.0L * o.delta_features)));
    printf("private: M %.6g, k = k_max %llu (paper %.1f), eps at k_max %.5f (here), %.5f (library), at 2 k_max %.5f;"
           " A %.6g (here %.6g); eps %.5f, delta %.3g; train %.3f test %.3f\n",
           M, (unsigned long long)res.samples_max, res.samples_paper, e_kmax, res.epsilon_gsm, e_2k, res.tlap_bound, A,
           res.epsilon, res.delta, res.train_accuracy, dpt_ntk_accuracy(m, &T));
    ck_assert_uint_eq(res.samples, res.samples_max);
    ck_assert_uint_ge(res.samples_max, 1);
    ck_assert_double_le(res.epsilon_gsm, o.epsilon_gsm);
    ck_assert_double_le(e_kmax, o.epsilon_gsm * (1.0 + 1e-6));
    ck_assert_double_gt(e_2k, o.epsilon_gsm);
    ck_assert_double_le(fabs(res.samples_paper - paper), 1e-12 * paper);
    ck_assert_double_ge(res.tlap_bound, A * (1.0 - 1e-15));
    ck_assert_double_le(res.tlap_bound, A * (1.0 + 1e-12));
    ck_assert_double_eq(res.epsilon, res.epsilon_gsm + o.epsilon_features);
    ck_assert_double_eq(res.delta, o.delta_gsm + o.delta_features);
    ck_assert_double_le(res.epsilon, o.epsilon_gsm + o.epsilon_features);
    ck_assert_ptr_nonnull(strstr(res.accounting, "labels public"));
    ck_assert_double_ge(dpt_ntk_accuracy(m, &T), 0.9);     /* k_max >> n: nearly the exact fit */
    dpt_ntk_free(m);

    /* k = 5 < n = 60: rank-5 Ktilde, the pseudo-inverse; finite scores */
    o.samples = 5;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_msg(dpt_ntk_train(&D, &o, &m, &res, &err) == DPA_OK, "%s", err.message);
    ck_assert_uint_eq(res.samples, 5);
    double *s = malloc(T.n * 3 * sizeof *s);
    ck_assert_int_eq(dpt_ntk_scores(m, T.x, T.n, s, &err), DPA_OK);
    double mx = 0.0;
    for (size_t i = 0; i < T.n * 3; i++) {
        ck_assert(isfinite(s[i]));
        mx = fmax(mx, fabs(s[i]));
    }
    double acc = dpt_ntk_accuracy(m, &T);
    printf("pseudo-inverse: k = 5 < n = 60: max |score| %.4g, test accuracy %.3f, eps_gsm %.4g\n", mx, acc,
           res.epsilon_gsm);
    ck_assert(acc >= 0.0 && acc <= 1.0);
    ck_assert_double_lt(res.epsilon_gsm, o.epsilon_gsm);
    dpt_ntk_free(m);
    free(s);

    /* the ablation without feature noise is not private */
    o.samples = 0;
    o.features_noise_off = 1;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_msg(dpt_ntk_train(&D, &o, &m, &res, &err) == DPA_OK, "%s", err.message);
    ck_assert(isinf(res.epsilon));
    ck_assert_ptr_nonnull(strstr(res.accounting, "not private"));
    dpt_ntk_free(m);
    free(D.x);
    free(D.y);
    free(T.x);
    free(T.y);
}
END_TEST

static void refused(const dpt_dataset *D, const dpt_ntk_options *o, const char *word)
{
    dpt_ntk_model *m = (dpt_ntk_model *)1;
    dpt_ntk_result res;
    dpa_error err = { 0 };
    dpt_ntk_options given = *o;
    if (!given.rng) given.rng = test_rng(1);
    ck_assert_int_eq(dpt_ntk_train(D, &given, &m, &res, &err), DPA_EINVAL);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(err.message, word) != NULL, "'%s' does not name '%s'", err.message, word);
}

/* (7) Bad options and data are refused with a message naming them. */
START_TEST(bad_options_are_refused)
{
    dpt_dataset D = clusters(30, 5, 61);
    dpt_ntk_options o;
#define BAD(field, value, word)      \
    do {                             \
        dpt_ntk_defaults(&o);        \
        o.beta = 1e-5;               \
        o.field = value;             \
        refused(&D, &o, word);       \
    } while (0)
    BAD(width, 0, "width");
    BAD(weight_std, 0.0, "weight-std");
    BAD(weight_std, NAN, "weight-std");
    BAD(ridge, -1.0, "ridge");
    BAD(ridge, INFINITY, "ridge");
    BAD(row_norm, 0.0, "row-norm");
    BAD(beta, 0.0, "beta");
    BAD(beta, NAN, "beta");
    BAD(beta, 2.5, "beta");                 /* > 2B */
    BAD(epsilon_gsm, 0.0, "epsilon-gsm");
    BAD(delta_gsm, 1.0, "delta-gsm");
    BAD(delta_gsm, NAN, "delta-gsm");
    BAD(epsilon_features, INFINITY, "epsilon-features");
    BAD(delta_features, 0.6, "delta-features");
    BAD(project, 6, "project");             /* above d = 5 */
    BAD(samples, UINT64_C(1) << 60, "samples");
    /* no k >= 1 admissible: the message gives M and the budget */
    BAD(beta, 1.0, "M = ");
    dpt_ntk_defaults(&o);
    o.beta = 1e-3;
    o.samples = 1000000000000ull;
    refused(&D, &o, "samples");
    /* labels: integers 0..C-1, C >= 2 */
    dpt_ntk_defaults(&o);
    o.beta = 1e-5;
    D.y[3] = 1.5;
    refused(&D, &o, "label");
    D.y[3] = -1.0;
    refused(&D, &o, "label");
    D.y[3] = NAN;
    refused(&D, &o, "label");
    D.y[3] = 0.0;
    double *y = malloc(D.n * sizeof *y);
    memcpy(y, D.y, D.n * sizeof *y);
    for (size_t i = 0; i < D.n; i++) D.y[i] = 0.0;
    refused(&D, &o, "two classes");
    memcpy(D.y, y, D.n * sizeof *y);
    D.x[7] = NAN;
    refused(&D, &o, "non-finite");
    D.x[7] = 0.0;
    /* NULLs and the pieces */
    dpt_ntk_model *m;
    dpt_ntk_result res;
    dpa_error err = { 0 };
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_ntk_train(NULL, &o, &m, &res, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_ntk_train(&D, NULL, &m, &res, &err), DPA_EINVAL);
    double w[10], sig[4] = { 1, 2, 2, 1 }, out[4];
    ck_assert_int_eq(dpt_ntk_neurons(0, 5, 1.0, 1, w, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_ntk_neurons(2, 5, -1.0, 1, w, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_gsm_sample(sig, 2, 5, test_rng(1), out, &err), DPA_EINVAL);   /* not positive definite */
    ck_assert_ptr_nonnull(strstr(err.message, "positive definite"));
    sig[1] = sig[2] = 0.5;
    ck_assert_int_eq(dpt_gsm_sample(sig, 2, 0, test_rng(1), out, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_gsm_sample(sig, 2, (UINT64_C(1) << 53) + 1, test_rng(1), out, &err), DPA_EINVAL);
    sig[0] = NAN;
    ck_assert_int_eq(dpt_gsm_sample(sig, 2, 5, test_rng(1), out, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_ntk_kernel(w, 2, 5, NULL, 1, w, 1, out, &err), DPA_EINVAL);
    free(y);
    free(D.x);
    free(D.y);
#undef BAD
}
END_TEST

int main(void)
{
    gsl_set_error_handler_off();
    Suite *s = suite_create("ntk");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, kernel_is_the_feature_gram_and_the_triple_sum);
    tcase_add_test(tc, sensitivity_bounds_hold_and_are_tight);
    tcase_add_test(tc, gsm_sampler_has_the_wishart_moments);
    tcase_add_test(tc, truncated_laplace_strip_mass_is_delta);
    tcase_add_test(tc, nonprivate_fits_separable_data);
    tcase_add_test(tc, private_accounting_and_pseudo_inverse);
    tcase_add_test(tc, bad_options_are_refused);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
