/*
 * test_sparse.c - sparse DP mean estimation (trainers/sparse/sparse.c; Ghazi et al. NeurIPS 2024,
 * ../shared/notes/ntk-sparse-seeds-002-004.md section 2):
 *  - the l1-ball projection against a brute force over the faces of the
 *    ball (small d) and the projection's variational inequality;
 *  - basis pursuit: exact recovery of s-sparse vectors from Gaussian
 *    measurements (the truth is known), hand-solved tiny LPs, infeasibility;
 *  - the generator: sparsity, norms, and the coordinate frequencies against
 *    the exact inclusion probabilities of successive weighted sampling,
 *    enumerated here;
 *  - noise calibration against the note's table (2.6) and the closed forms;
 *    ME-2's certified factor between a sampled lower bound on the restricted
 *    norm and ||A||_op from an SVD computed here;
 *  - the projection mechanism's error below the dense mechanism's for s << d;
 *  - bad input refused;
 *  - ME-1's radius chosen by Liu & Talwar's random stopping (STOC 2019, Thm
 *    3.1): the total eps is 3 x the closed-form round eps for several gamma,
 *    the release's Laplace scale and the score's sensitivity by their
 *    formulas; the rounds' mean is 1/gamma within 5 standard errors; at a
 *    negligible noise the chosen radius is the one whose projection of zbar
 *    (brute force here) has the lowest ||zhat - zbar||; the score's
 *    sensitivity bounds the score difference of two neighbours that attain
 *    it.
 */
#include "dptrain.h"
#include "test_rng_util.h"
#include "testutil.h"

#include <check.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- (1) projection ---------------------------------------------------------- */

/* The projection onto the l1 ball of radius r by brute force: the point of
 * the ball nearest to v lies in the relative interior of one face
 * {x : x_j = 0 off S, sgn x_j = t_j on S, sum_S t_j x_j = r} (or is v itself
 * when v is inside); on that face's affine hull the projection is
 * x_S = v_S - ((t . v_S - r)/|S|) t.  Every candidate that lands in its
 * face (t_j x_j >= 0) is a point of the ball, so the nearest feasible
 * candidate is the projection. */
static void brute_projection(const double *v, size_t d, double r, double *p)
{
    double l1 = 0.0;
    for (size_t j = 0; j < d; j++) l1 += fabs(v[j]);
    if (l1 <= r) {
        memcpy(p, v, d * sizeof *p);
        return;
    }
    double best = INFINITY;
    double x[8];
    for (unsigned S = 1; S < (1u << d); S++) {
        size_t k = (size_t)__builtin_popcount(S);
        for (unsigned T = 0; T < (1u << d); T++) {
            if (T & ~S) continue; /* signs only on S: bit set = negative */
            double tv = 0.0;
            for (size_t j = 0; j < d; j++)
                if (S & (1u << j)) tv += ((T >> j) & 1 ? -1.0 : 1.0) * v[j];
            double shift = (tv - r) / (double)k;
            int ok = 1;
            double dist = 0.0;
            for (size_t j = 0; j < d; j++) {
                if (S & (1u << j)) {
                    double t = (T >> j) & 1 ? -1.0 : 1.0;
                    x[j] = v[j] - shift * t;
                    if (t * x[j] < 0.0) ok = 0;
                } else {
                    x[j] = 0.0;
                }
                dist += (x[j] - v[j]) * (x[j] - v[j]);
            }
            if (ok && dist < best) {
                best = dist;
                memcpy(p, x, d * sizeof *p);
            }
        }
    }
}

START_TEST(projection_matches_brute_force)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    for (int trial = 0; trial < 3000; trial++) {
        size_t d = 1 + (size_t)(trial % 5);
        double v[5], p[5], q[5];
        double scale = trial % 3 == 0 ? 0.1 : trial % 3 == 1 ? 1.0 : 10.0;
        for (size_t j = 0; j < d; j++) v[j] = gsl_ran_gaussian(r, scale);
        if (trial % 7 == 0) v[0] = 0.0; /* zeros and ties */
        if (trial % 11 == 0 && d > 1) v[1] = -v[0];
        double rad = 0.2 + 2.0 * gsl_rng_uniform(r);
        dpt_project_l1_ball(v, d, rad, p);
        brute_projection(v, d, rad, q);
        double l1 = 0.0;
        for (size_t j = 0; j < d; j++) {
            ck_assert_msg(fabs(p[j] - q[j]) <= 1e-12 * (1.0 + fabs(q[j])), "trial %d, j %zu: %.17g vs %.17g", trial,
                          j, p[j], q[j]);
            l1 += fabs(p[j]);
        }
        ck_assert(l1 <= rad * (1.0 + 1e-14));
        /* variational inequality <v - p, y - p> <= 0 at every vertex y = +-r e_j
         * (hence on the whole ball, by linearity in y) */
        for (size_t j = 0; j < d; j++)
            for (int sg = -1; sg <= 1; sg += 2) {
                double ip = 0.0;
                for (size_t k = 0; k < d; k++) {
                    double y = k == j ? sg * rad : 0.0;
                    ip += (v[k] - p[k]) * (y - p[k]);
                }
                ck_assert_msg(ip <= 1e-12, "trial %d: <v - p, y - p> = %g", trial, ip);
            }
    }
    gsl_rng_free(r);
}
END_TEST

START_TEST(projection_large_d_and_inside)
{
    /* inside: unchanged bit for bit; in place works */
    double v[6] = { 0.1, -0.2, 0.0, 0.3, -0.05, 0.15 }, p[6];
    dpt_project_l1_ball(v, 6, 1.0, p);
    ck_assert(memcmp(v, p, sizeof v) == 0);
    dpt_project_l1_ball(v, 6, 0.8, v); /* ||v||_1 = 0.8 exactly in doubles? then unchanged */
    double l1 = 0.0;
    for (int j = 0; j < 6; j++) l1 += fabs(v[j]);
    ck_assert(l1 <= 0.8 * (1 + 1e-15));
    /* large d: the variational inequality at every vertex, and the
     * soft-threshold structure p_j = sgn(v_j) max(|v_j| - theta, 0) with one
     * theta checked directly (the l1 norm is exactly the radius) */
    size_t d = 2000;
    double *w = malloc(d * sizeof *w), *q = malloc(d * sizeof *q);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    for (size_t j = 0; j < d; j++) w[j] = gsl_ran_laplace(r, 1.0);
    double rad = 7.0;
    dpt_project_l1_ball(w, d, rad, q);
    double s1 = 0.0, theta = -1.0;
    for (size_t j = 0; j < d; j++) {
        s1 += fabs(q[j]);
        if (q[j] != 0.0) {
            ck_assert(q[j] * w[j] > 0.0);
            double t = fabs(w[j]) - fabs(q[j]);
            if (theta < 0) theta = t;
            ck_assert(fabs(t - theta) <= 1e-12 * (1 + theta));
        }
    }
    ck_assert(fabs(s1 - rad) <= 1e-12 * rad);
    for (size_t j = 0; j < d; j++)
        if (q[j] == 0.0) ck_assert(fabs(w[j]) <= theta + 1e-12);
    double vq = 0.0, pq = 0.0; /* <v - p, p> and max_j |v_j - p_j| */
    for (size_t j = 0; j < d; j++) {
        vq += (w[j] - q[j]) * q[j];
        if (fabs(w[j] - q[j]) > pq) pq = fabs(w[j] - q[j]);
    }
    /* <v - p, +-r e_j - p> = +-r (v_j - p_j) - <v - p, p> <= r max|v - p| - <v - p, p> */
    ck_assert_msg(rad * pq - vq <= 1e-12 * rad * pq + 1e-12, "VI: %g", rad * pq - vq);
    free(w);
    free(q);
    gsl_rng_free(r);
}
END_TEST

/* ---- (2) basis pursuit --------------------------------------------------------- */

START_TEST(basis_pursuit_recovers_sparse_vectors)
{
    const size_t cases[][3] = { { 100, 3, 1 }, { 200, 5, 2 }, { 400, 8, 3 }, { 300, 10, 4 }, { 1000, 10, 5 } };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t d = cases[c][0], s = cases[c][1];
        size_t m = (size_t)ceil(4.0 * (double)s * log((double)d / (double)s));
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(r, 100 + cases[c][2]);
        double *A = malloc(m * d * sizeof *A), *x = calloc(d, sizeof *x), *b = malloc(m * sizeof *b),
               *z = malloc(d * sizeof *z);
        for (size_t k = 0; k < m * d; k++) A[k] = gsl_ran_gaussian(r, 1.0 / sqrt((double)m));
        for (size_t k = 0; k < s;) {
            size_t j = gsl_rng_uniform_int(r, d);
            if (x[j] != 0.0) continue;
            x[j] = gsl_ran_gaussian(r, 1.0) + (gsl_rng_uniform(r) < 0.5 ? -0.5 : 0.5);
            k++;
        }
        for (size_t i = 0; i < m; i++) {
            b[i] = 0.0;
            for (size_t j = 0; j < d; j++) b[i] += A[i * d + j] * x[j];
        }
        dpa_error err = { 0 };
        ck_assert_int_eq(dpt_basis_pursuit(A, m, d, b, z, &err), DPA_OK);
        double worst = 0.0;
        for (size_t j = 0; j < d; j++) worst = fmax(worst, fabs(z[j] - x[j]));
        ck_assert_msg(worst <= 1e-8, "case d=%zu s=%zu m=%zu: max error %g", d, s, m, worst);
        /* scale invariance: the DP mean's b is of order 1/n */
        for (size_t i = 0; i < m; i++) b[i] *= 1e-4;
        ck_assert_int_eq(dpt_basis_pursuit(A, m, d, b, z, &err), DPA_OK);
        worst = 0.0;
        for (size_t j = 0; j < d; j++) worst = fmax(worst, fabs(z[j] - 1e-4 * x[j]));
        ck_assert_msg(worst <= 1e-12, "scaled case d=%zu: max error %g", d, worst);
        free(A); free(x); free(b); free(z);
        gsl_rng_free(r);
    }
}
END_TEST

START_TEST(basis_pursuit_tiny_lps)
{
    dpa_error err = { 0 };
    /* z1 + 2 z2 = 2: ||z||_1 on the line is |2 - 2t| + |t|, minimal (= 1) at t = 1 */
    double A1[2] = { 1.0, 2.0 }, b1[1] = { 2.0 }, z1[2];
    ck_assert_int_eq(dpt_basis_pursuit(A1, 1, 2, b1, z1, &err), DPA_OK);
    ck_assert(fabs(z1[0]) <= 1e-12 && fabs(z1[1] - 1.0) <= 1e-12);
    /* z1 + z3 = 1, z2 + z3 = 1: z = (1 - t, 1 - t, t), 2|1 - t| + |t| minimal at t = 1 */
    double A2[6] = { 1, 0, 1, 0, 1, 1 }, b2[2] = { 1, 1 }, z2[3];
    ck_assert_int_eq(dpt_basis_pursuit(A2, 2, 3, b2, z2, &err), DPA_OK);
    ck_assert(fabs(z2[0]) <= 1e-12 && fabs(z2[1]) <= 1e-12 && fabs(z2[2] - 1.0) <= 1e-12);
    /* a negative solution: -z1 + z2 = 3, z2 = -1 -> z = (-4, -1) */
    double A3[4] = { -1, 1, 0, 1 }, b3[2] = { 3, -1 }, z3[2];
    ck_assert_int_eq(dpt_basis_pursuit(A3, 2, 2, b3, z3, &err), DPA_OK);
    ck_assert(fabs(z3[0] + 4.0) <= 1e-12 && fabs(z3[1] + 1.0) <= 1e-12);
    /* infeasible: z1 + z2 = 1 and z1 + z2 = 2 */
    double A4[4] = { 1, 1, 1, 1 }, b4[2] = { 1, 2 }, z4[2];
    ck_assert_int_eq(dpt_basis_pursuit(A4, 2, 2, b4, z4, &err), DPA_EINVAL);
    /* b = 0: z = 0 */
    double b5[2] = { 0, 0 };
    ck_assert_int_eq(dpt_basis_pursuit(A2, 2, 3, b5, z2, &err), DPA_OK);
    ck_assert(z2[0] == 0.0 && z2[1] == 0.0 && z2[2] == 0.0);
    /* bad arguments never reach GLPK */
    double bn[1] = { NAN };
    ck_assert_int_eq(dpt_basis_pursuit(A1, 1, 2, bn, z1, &err), DPA_EINVAL);
    double An[2] = { 1.0, INFINITY };
    ck_assert_int_eq(dpt_basis_pursuit(An, 1, 2, b1, z1, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_basis_pursuit(A1, 0, 2, b1, z1, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_basis_pursuit(NULL, 1, 2, b1, z1, &err), DPA_EINVAL);
}
END_TEST

/* ---- (3) generator --------------------------------------------------------------- */

/* Exact inclusion probabilities of s successive draws without replacement
 * with probabilities proportional to the remaining weights, by recursion
 * over the ordered draws (small d only). */
static void inclusion(const double *w, size_t d, size_t s, unsigned used, double prob, double *incl)
{
    if (s == 0) return;
    double tot = 0.0;
    for (size_t j = 0; j < d; j++)
        if (!(used & (1u << j))) tot += w[j];
    for (size_t j = 0; j < d; j++) {
        if (used & (1u << j)) continue;
        double p = prob * w[j] / tot;
        incl[j] += p;
        inclusion(w, d, s - 1, used | (1u << j), p, incl);
    }
}

START_TEST(generator_rows_and_frequencies)
{
    dpt_sparse_spec spec;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_sparse_parse("n=40000,d=8,s=3,norm=2,zipf=1.2,seed=7", &spec, &err), DPA_OK);
    dpt_dataset ds;
    ck_assert_int_eq(dpt_sparse_generate(&spec, &ds, NULL, &err), DPA_OK);
    double w[8], incl[8] = { 0 };
    for (size_t j = 0; j < 8; j++) w[j] = pow((double)(j + 1), -1.2);
    inclusion(w, 8, 3, 0, 1.0, incl);
    double count[8] = { 0 };
    for (size_t i = 0; i < ds.n; i++) {
        size_t nnz = 0;
        double n2 = 0.0;
        for (size_t j = 0; j < 8; j++) {
            double x = ds.x[i * 8 + j];
            if (x != 0.0) {
                nnz++;
                count[j] += 1.0;
                ck_assert(fabs(x - 2.0 / sqrt(3.0)) <= 1e-15);
            }
            n2 += x * x;
        }
        ck_assert_uint_eq(nnz, 3);
        ck_assert(fabs(sqrt(n2) - 2.0) <= 1e-14);
        ck_assert(ds.y[i] == 0.0);
    }
    /* each coordinate's count is Binomial(n, incl_j): within 5 standard deviations,
     * and the chi-square sum over the coordinates below a generous bound */
    double chi = 0.0;
    for (size_t j = 0; j < 8; j++) {
        double e = (double)ds.n * incl[j], sd = sqrt(e * (1.0 - incl[j]));
        ck_assert_msg(fabs(count[j] - e) <= 5.0 * sd, "coordinate %zu: %g vs %g", j, count[j], e);
        chi += (count[j] - e) * (count[j] - e) / (sd * sd);
    }
    ck_assert_msg(chi <= 30.0, "chi-square %g", chi); /* 8 terms of variance-one scale */
    dpt_dataset_free(&ds);

    /* Gaussian values scaled to norm L; logistic labels +-1; w* support and norm */
    ck_assert_int_eq(dpt_sparse_parse("n=500,d=50,s=4,norm=1.5,values=gaussian,logistic=1,wstar_support=6,"
                                      "wstar_norm=3,zipf=0",
                                      &spec, &err),
                     DPA_OK);
    double ws[50];
    ck_assert_int_eq(dpt_sparse_generate(&spec, &ds, ws, &err), DPA_OK);
    for (size_t i = 0; i < ds.n; i++) {
        double n2 = 0.0;
        size_t nnz = 0;
        for (size_t j = 0; j < 50; j++) {
            n2 += ds.x[i * 50 + j] * ds.x[i * 50 + j];
            nnz += ds.x[i * 50 + j] != 0.0;
        }
        ck_assert_uint_eq(nnz, 4);
        ck_assert(fabs(sqrt(n2) - 1.5) <= 1e-14);
        ck_assert(ds.y[i] == 1.0 || ds.y[i] == -1.0);
    }
    size_t wn = 0;
    double wn2 = 0.0;
    for (size_t j = 0; j < 50; j++) {
        wn += ws[j] != 0.0;
        wn2 += ws[j] * ws[j];
    }
    ck_assert_uint_eq(wn, 6);
    ck_assert(fabs(sqrt(wn2) - 3.0) <= 1e-14);
    dpt_dataset_free(&ds);

    /* bad specs */
    ck_assert_int_eq(dpt_sparse_parse("s=20,d=10", &spec, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_sparse_parse("bogus=1", &spec, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_sparse_parse("norm=-1", &spec, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_sparse_parse("norm=nan", &spec, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_sparse_parse("n=0", &spec, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_sparse_parse("values=dense", &spec, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_sparse_parse("n=5,n=6", &spec, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_sparse_parse("n=5,,d=3", &spec, &err), DPA_EINVAL);
}
END_TEST

/* ---- (4) noise calibration ---------------------------------------------------------- */

static dpt_dataset onehot(size_t n, size_t d, size_t s, unsigned long seed)
{
    dpt_sparse_spec spec;
    dpt_sparse_defaults(&spec);
    spec.n = n;
    spec.d = d;
    spec.s = s;
    spec.seed = seed;
    dpt_dataset ds;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_sparse_generate(&spec, &ds, NULL, &err), DPA_OK);
    return ds;
}

START_TEST(noise_matches_the_notes_table)
{
    /* note 2.6 worked values: n = 1e4, eps = 1, delta = 1e-5, L = 1, s = 10 */
    dpt_dataset ds = onehot(10000, 200, 10, 3);
    double *est = malloc(ds.d * sizeof *est);
    dpt_mean_options o;
    dpt_mean_defaults(&o);
    o.sparsity = 10;
    o.norm = 1.0;
    o.epsilon = 1.0;
    dpt_mean_result res;
    dpa_error err = { 0 };
    /* Laplace b = 2 L sqrt(s) / (n eps) = 6.3246e-4 */
    o.delta = 0.0;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_OK);
    ck_assert(fabs(res.noise_scale - 2.0 * sqrt(10.0) / 1e4) <= 1e-15);
    ck_assert(fabs(res.noise_scale - 6.3246e-4) <= 0.5e-8);
    o.method = DPT_MEAN_DENSE;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_OK);
    ck_assert(fabs(res.noise_scale - 6.3246e-4) <= 0.5e-8);
    /* analytic Gaussian: 7.4613e-4 (note's table, 5 digits) */
    o.delta = 1e-5;
    o.method = DPT_MEAN_PROJECTION;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_OK);
    ck_assert_msg(fabs(res.noise_scale - 7.4613e-4) <= 0.5e-8, "sigma %.8g", res.noise_scale);
    /* 2L/n, with the rows' relative 1e-12 norm slack always charged (a
     * bound taken from the rows themselves would be data-dependent) */
    ck_assert(fabs(res.sensitivity - 2e-4 * (1.0 + 1e-12)) <= 1e-18);
    ck_assert(res.epsilon <= 1.0 && res.delta <= 1e-5);
    /* classical at eps = 0.5: 2L/n sqrt(2 ln(1.25e5)) / 0.5; the note: 9.6896 x 2/n */
    o.classical = 1;
    o.epsilon = 0.5;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_OK);
    double cl = 2.0 * (1.0 + 1e-12) / 1e4 * sqrt(2.0 * log(1.25e5)) / 0.5;   /* L with its slack */
    ck_assert(fabs(res.noise_scale - cl) <= 1e-15);
    ck_assert(fabs(res.noise_scale - 9.6896 * 2e-4) <= 0.5e-8);
    /* ... and refused at eps = 1 (not a guarantee there) */
    o.epsilon = 1.0;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    ck_assert(strstr(err.message, "epsilon") != NULL);
    free(est);
    dpt_dataset_free(&ds);
}
END_TEST

START_TEST(certified_factor_is_sandwiched)
{
    size_t n = 500, d = 300, s = 5;
    dpt_dataset ds = onehot(n, d, s, 9);
    double *est = malloc(d * sizeof *est);
    dpt_mean_options o;
    dpt_mean_defaults(&o);
    o.method = DPT_MEAN_COMPRESSED;
    o.sparsity = s;
    o.seed = 42;
    dpt_mean_result res;
    dpa_error err = { 0 };
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_OK);
    size_t m = res.measurements;
    ck_assert_uint_eq(m, (size_t)ceil(4.0 * 5.0 * log(300.0 / 5.0)));
    double factor = res.sensitivity / (2.0 / (double)n);
    /* A as the contract says: the first m*d draws of N(0, 1/m) from mt19937(seed) */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 42);
    gsl_matrix *At = gsl_matrix_alloc(d, m); /* A^T, d >= m for the SVD */
    double *A = malloc(m * d * sizeof *A);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < d; j++) {
            A[i * d + j] = gsl_ran_gaussian(r, 1.0 / sqrt((double)m));
            gsl_matrix_set(At, j, i, A[i * d + j]);
        }
    gsl_matrix *V = gsl_matrix_alloc(m, m);
    gsl_vector *S = gsl_vector_alloc(m), *work = gsl_vector_alloc(m);
    ck_assert_int_eq(gsl_linalg_SV_decomp(At, V, S, work), 0);
    double op = gsl_vector_get(S, 0);
    ck_assert_msg(factor <= op * (1.0 + 1e-9), "factor %.17g > ||A||_op %.17g", factor, op);
    /* lower bound: max ||A v||/||v|| over random 2s-sparse v, and over
     * random 2s-column submatrices their largest singular value (power
     * iteration from below) */
    double lower = 0.0;
    size_t K = 2 * s;
    size_t *supp = malloc(K * sizeof *supp);
    double *v = malloc(K * sizeof *v), *Av = malloc(m * sizeof *Av), *u = malloc(K * sizeof *u);
    for (int t = 0; t < 400; t++) {
        for (size_t k = 0; k < K;) {
            size_t j = gsl_rng_uniform_int(r, d), q = 0;
            while (q < k && supp[q] != j) q++;
            if (q < k) continue;
            supp[k++] = j;
        }
        for (size_t k = 0; k < K; k++) v[k] = gsl_ran_gaussian(r, 1.0);
        for (int it = 0; it < (t % 2 ? 50 : 1); it++) {
            double nv = 0.0;
            for (size_t k = 0; k < K; k++) nv += v[k] * v[k];
            nv = sqrt(nv);
            for (size_t k = 0; k < K; k++) v[k] /= nv;
            double na = 0.0;
            for (size_t i = 0; i < m; i++) {
                Av[i] = 0.0;
                for (size_t k = 0; k < K; k++) Av[i] += A[i * d + supp[k]] * v[k];
                na += Av[i] * Av[i];
            }
            if (sqrt(na) > lower) lower = sqrt(na);
            for (size_t k = 0; k < K; k++) { /* v <- A_S^T A_S v */
                u[k] = 0.0;
                for (size_t i = 0; i < m; i++) u[k] += A[i * d + supp[k]] * Av[i];
            }
            memcpy(v, u, K * sizeof *v);
        }
    }
    ck_assert_msg(factor >= lower, "factor %.17g < sampled restricted norm %.17g", factor, lower);
    ck_assert(lower > 1.0); /* sanity: the sampled bound is non-trivial */
    /* noise = analytic multiplier x sensitivity; the multiplier at (1, 1e-5) is 3.7306 (note 2.6) */
    ck_assert(fabs(res.noise_scale / res.sensitivity - 3.7306) <= 0.5e-4);
    ck_assert(res.failure_delta == 0.0);
    gsl_matrix_free(At); gsl_matrix_free(V); gsl_vector_free(S); gsl_vector_free(work);
    free(A); free(supp); free(v); free(Av); free(u);
    gsl_rng_free(r);

    /* the RIP route: the bound of Baraniuk et al. 2008 (Thm 5.2) written out
     * here, 2 (24 e d / K)^K e^{-(1/64 - 1/384) m}, and refused (>= delta) */
    double lp = log(2.0) + 10.0 * log(24.0 * exp(1.0) * 300.0 / 10.0) - (1.0 / 64 - 1.0 / 384) * (double)m;
    ck_assert(fabs(dpt_rip_failure_log(m, 300, 10) - lp) <= 1e-12 * fabs(lp));
    ck_assert(lp > 0.0);
    o.rip_sensitivity = 1;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    ck_assert(strstr(err.message, "RIP") != NULL);
    /* at s = 1, d = 10^4, m = 4000: ln 2 + 2 ln(12e 10^4) - 4000 (5/384) = -26 */
    ck_assert(dpt_rip_failure_log(4000, 10000, 2) < log(1e-10));
    free(est);
    dpt_dataset_free(&ds);
}
END_TEST

/* ---- (5) error: projection beats dense for s << d ------------------------------------------- */

static double l2dist(const double *a, const double *b, size_t d)
{
    double s = 0.0;
    for (size_t j = 0; j < d; j++) s += (a[j] - b[j]) * (a[j] - b[j]);
    return sqrt(s);
}

START_TEST(projection_beats_dense)
{
    size_t n = 500, d = 2000, s = 5;
    dpt_dataset ds = onehot(n, d, s, 21);
    double *zbar = calloc(d, sizeof *zbar), *est = malloc(d * sizeof *est);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) zbar[j] += ds.x[i * d + j] / (double)n;
    dpt_mean_options o;
    dpt_mean_defaults(&o);
    o.sparsity = s;
    o.epsilon = 1.0;
    dpt_mean_result res;
    dpa_error err = { 0 };
    for (int pure = 0; pure <= 1; pure++) {
        o.delta = pure ? 0.0 : 1e-5;
        double ep = 0.0, ed = 0.0;
        for (unsigned long seed = 1; seed <= 10; seed++) {
            o.seed = seed;
            o.method = DPT_MEAN_PROJECTION;
            if (!o.rng) o.rng = test_rng(o.seed);
            ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_OK);
            ep += l2dist(est, zbar, d) / 10.0;
            o.method = DPT_MEAN_DENSE;
            if (!o.rng) o.rng = test_rng(o.seed);
            ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_OK);
            ed += l2dist(est, zbar, d) / 10.0;
        }
        /* note 2.2's rates (upper bounds in expectation, up to the constant
         * written there) for the projection and the dense error ~ sigma sqrt(d) */
        double ne = (double)n * o.epsilon;
        double rate = pure ? 2.0 * sqrt(s * (1.0 + log((double)d)) / ne)
                           : 2.0 * sqrt(2.0) * pow(s * log(1.25 / o.delta) * log(2.0 * d), 0.25) / sqrt(ne);
        ck_assert_msg(ep <= rate, "%s: projection error %g above the note's rate %g", pure ? "Laplace" : "Gaussian",
                      ep, rate);
        ck_assert_msg(ep <= 0.5 * ed, "%s: projection %g vs dense %g", pure ? "Laplace" : "Gaussian", ep, ed);
    }
    free(zbar);
    free(est);
    dpt_dataset_free(&ds);
}
END_TEST

/* ---- (6) bad input ------------------------------------------------------------------------------ */

START_TEST(bad_input_is_refused)
{
    dpt_dataset ds = onehot(50, 20, 3, 1);
    double est[20];
    dpt_mean_options o, base;
    dpt_mean_defaults(&base);
    base.sparsity = 3;
    dpt_mean_result res;
    dpa_error err = { 0 };
    o = base; o.sparsity = 21;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    o = base; o.sparsity = 0;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    o = base; o.epsilon = 0.0;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    o = base; o.epsilon = NAN;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    o = base; o.delta = 1.0;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    o = base; o.delta = -1e-9;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    o = base; o.norm = INFINITY;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    o = base; o.method = DPT_MEAN_COMPRESSED; o.delta = 0.0;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    o = base; o.method = DPT_MEAN_COMPRESSED; o.measurements = 21;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    o = base; o.method = (dpt_mean_method)7;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    o = base; o.classical = 1; o.epsilon = 1.0;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    /* rows: too many nonzeros (s = 2 < 3), the row is named */
    o = base; o.sparsity = 2;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    ck_assert(strstr(err.message, "row 1 ") != NULL);
    /* a norm above L */
    o = base; o.norm = 0.5;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    ck_assert(strstr(err.message, "row 1 ") != NULL);
    /* ... but L with rounding slack accepted; NaN in the data refused, named */
    o = base; o.norm = 1.0 - 1e-14;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_OK);
    for (size_t j = 0; j < 20; j++) ck_assert(isfinite(est[j]));
    ds.x[7 * 20 + 4] = NAN;
    o = base;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(&ds, &o, est, &res, &err), DPA_EINVAL);
    ck_assert(strstr(err.message, "row 8") != NULL);
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_sparse_mean(NULL, &o, est, &res, &err), DPA_EINVAL);
    dpt_dataset_free(&ds);
}
END_TEST

/* ---- (7) ME-1's radius chosen by random stopping (Liu & Talwar STOC 2019) ---- */

static dpt_mean_options select_opts(const double *cand, size_t k, double gamma, size_t s, dpt_rng *rng)
{
    dpt_mean_options o;
    dpt_mean_defaults(&o);
    o.delta = 0.0;
    o.sparsity = s;
    o.select_radii = cand;
    o.select_count = k;
    o.random_stop = gamma;
    o.rng = rng;
    return o;
}

START_TEST(random_stop_accounting_and_rounds)
{
    size_t n = 400, d = 30, s = 3;
    dpt_dataset ds = onehot(n, d, s, 4);
    double cand[3] = { 0.5, 1.7320508075688772, 1.0 }, est[30];
    double gammas[3] = { 1.0, 0.2, 0.02 }, epss[3] = { 1.0, 0.5, 2.0 }, fracs[3] = { 0.1, 0.3, 0.05 };
    dpa_error err = { 0 };
    dpt_mean_result res;
    for (int k = 0; k < 3; k++) {
        dpt_mean_options o = select_opts(cand, 3, gammas[k], s, test_rng(40 + (uint64_t)k));
        o.epsilon = epss[k];
        o.score_fraction = fracs[k];
        ck_assert_msg(dpt_sparse_mean(&ds, &o, est, &res, &err) == DPA_OK, "%s", err.message);
        double round = epss[k] / 3.0, score = fracs[k] * round, L = 1.0 + 1e-12;   /* the rows' slack */
        printf("gamma %g eps %g: total %.17g (3 x %.17g), rounds %llu, radius %g\n", gammas[k], epss[k], res.epsilon,
               round, (unsigned long long)res.rounds, res.radius);
        ck_assert(fabs(res.round_epsilon - round) <= 1e-15 * round);
        ck_assert(fabs(res.score_epsilon - score) <= 1e-15 * round);
        ck_assert_double_ge(res.epsilon, 3.0 * round);
        ck_assert_double_le(res.epsilon, 3.0 * round * (1.0 + 1e-12));
        ck_assert_double_eq(res.delta, 0.0);
        /* ME-1's Laplace at the release's eps: b = 2 L sqrt(s) / (n (eps_round - eps_score)) */
        double b = 2.0 * L * sqrt((double)s) / (double)n / (round - score);
        ck_assert(fabs(res.noise_scale - b) <= 1e-12 * b);
        /* the score's sensitivity at the release: 2 ||zhat||_2 2L/n; ||zhat||_1 <= the radius */
        double n2 = 0.0, l1 = 0.0;
        for (size_t j = 0; j < d; j++) {
            n2 += est[j] * est[j];
            l1 += fabs(est[j]);
        }
        double df = 4.0 * sqrt(n2) * L / (double)n;
        ck_assert_double_ge(res.score_sensitivity, df);
        ck_assert_double_le(res.score_sensitivity, df * (1.0 + 1e-9));
        ck_assert_double_le(l1, res.radius * (1.0 + 1e-12));
    }
    /* the rounds: Geometric(gamma) on {1, 2, ...}, mean 1/gamma, variance (1 - gamma)/gamma^2 */
    double g = 0.3, sum = 0.0;
    const int runs = 3000;
    dpt_mean_options o = select_opts(cand, 3, g, s, test_rng(50));
    for (int t = 0; t < runs; t++) {
        ck_assert_msg(dpt_sparse_mean(&ds, &o, est, &res, &err) == DPA_OK, "%s", err.message);
        sum += (double)res.rounds;
    }
    double mean = sum / runs, se = sqrt((1.0 - g) / (g * g) / runs);
    printf("gamma %g: mean rounds %.4f, 1/gamma %.4f, %.2f standard errors\n", g, mean, 1.0 / g, (mean - 1.0 / g) / se);
    ck_assert_double_le(fabs(mean - 1.0 / g), 5.0 * se);
    dpt_dataset_free(&ds);
}
END_TEST

START_TEST(random_stop_picks_the_best_radius)
{
    /* eps 1e9: the noise (b ~ 1e-11) is negligible against the gaps between
     * the candidates' errors; zhat_r = the projection of zbar onto the l1
     * ball of radius r (brute force), error ||zhat_r - zbar||^2 */
    size_t n = 300, d = 6, s = 2;
    dpt_dataset ds = onehot(n, d, s, 9);
    double zbar[6] = { 0 }, a = 0.0, est[6];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) zbar[j] += ds.x[i * d + j] / (double)n;
    for (size_t j = 0; j < d; j++) a += fabs(zbar[j]);
    double cand[4] = { 0.5 * a, 1.2 * a, 0.3 * a, 0.8 * a }, f[4];
    size_t best = 0;
    for (int k = 0; k < 4; k++) {
        double p[6];
        brute_projection(zbar, d, cand[k], p);
        f[k] = 0.0;
        for (size_t j = 0; j < d; j++) f[k] += p[j] * p[j] - 2.0 * p[j] * zbar[j];
        if (f[k] < f[best]) best = (size_t)k;
    }
    ck_assert(best != 0 && best != 3);
    dpt_mean_options o = select_opts(cand, 4, 0.002, s, test_rng(60));
    o.epsilon = 1e9;
    dpt_mean_result res;
    dpa_error err = { 0 };
    ck_assert_msg(dpt_sparse_mean(&ds, &o, est, &res, &err) == DPA_OK, "%s", err.message);
    printf("radii %g %g %g %g: f %.9g %.9g %.9g %.9g; chosen %g after %llu rounds, score %.9g\n", cand[0], cand[1],
           cand[2], cand[3], f[0], f[1], f[2], f[3], res.radius, (unsigned long long)res.rounds, res.score);
    ck_assert_double_eq(res.radius, cand[best]);
    ck_assert(fabs(res.score - f[best]) < 1e-6);
    dpt_dataset_free(&ds);
}
END_TEST

START_TEST(random_stop_score_sensitivity)
{
    /* zhat = r e_1 (||zhat||_2 = ||zhat||_1 = r, the projection's largest);
     * S: every row -L e_1; S': the first row +L e_1, so zbar' - zbar = 2L/n
     * e_1 and f(S') - f(S) = -2 <zhat, zbar' - zbar> = -4 r L / n: the bound
     * attained */
    size_t n = 1000, d = 5;
    double Ls[3] = { 1.0, 0.3, 7.0 }, rs[3] = { 1.0, 2.23606797749979, 40.0 };
    for (int k = 0; k < 3; k++) {
        double L = Ls[k], r = rs[k], zhat[5] = { r, 0, 0, 0, 0 };
        double zbar[5] = { 0 }, zbar2[5] = { 0 };
        for (size_t i = 0; i < n; i++) {
            zbar[0] += -L / (double)n;
            zbar2[0] += (i == 0 ? L : -L) / (double)n;
        }
        double f1 = 0.0, f2 = 0.0;
        for (size_t j = 0; j < d; j++) {
            f1 += zhat[j] * zhat[j] - 2.0 * zhat[j] * zbar[j];
            f2 += zhat[j] * zhat[j] - 2.0 * zhat[j] * zbar2[j];
        }
        double bound = dpt_mean_score_sensitivity(zhat, d, L, n);
        printf("L %g, r %g: score difference %.12g, bound %.12g (4 r L / n = %.12g)\n", L, r, fabs(f2 - f1), bound,
               4.0 * r * L / (double)n);
        ck_assert_double_le(fabs(f2 - f1), bound);
        ck_assert_double_ge(fabs(f2 - f1), bound * (1.0 - 1e-9));
    }
}
END_TEST

START_TEST(random_stop_bad_input)
{
    dpt_dataset ds = onehot(50, 20, 3, 1);
    double est[20], cand[2] = { 0.5, 1.0 }, badc[2] = { 1.0, 0.0 };
    dpa_error err = { 0 };
    dpt_mean_result res;
    dpt_mean_options o = select_opts(cand, 2, 0.5, 3, test_rng(70));
    ck_assert_msg(dpt_sparse_mean(&ds, &o, est, &res, &err) == DPA_OK, "%s", err.message);
    dpt_mean_options b = o;
    b.delta = 1e-5;
    ck_assert_int_eq(dpt_sparse_mean(&ds, &b, est, &res, &err), DPA_EINVAL);
    ck_assert(strstr(err.message, "pure") != NULL);
    b = o;
    b.method = DPT_MEAN_DENSE;
    ck_assert_int_eq(dpt_sparse_mean(&ds, &b, est, &res, &err), DPA_EINVAL);
    b = o;
    b.random_stop = 0.0;            /* candidates without stopping */
    ck_assert_int_eq(dpt_sparse_mean(&ds, &b, est, &res, &err), DPA_EINVAL);
    b = o;
    b.random_stop = 2.0;
    ck_assert_int_eq(dpt_sparse_mean(&ds, &b, est, &res, &err), DPA_EINVAL);
    b = o;
    b.select_radii = badc;
    ck_assert_int_eq(dpt_sparse_mean(&ds, &b, est, &res, &err), DPA_EINVAL);
    ck_assert(strstr(err.message, "candidate 2") != NULL);
    b = o;
    b.score_fraction = 0.0;
    ck_assert_int_eq(dpt_sparse_mean(&ds, &b, est, &res, &err), DPA_EINVAL);
    dpt_dataset_free(&ds);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sparse");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, projection_matches_brute_force);
    tcase_add_test(tc, projection_large_d_and_inside);
    tcase_add_test(tc, basis_pursuit_recovers_sparse_vectors);
    tcase_add_test(tc, basis_pursuit_tiny_lps);
    tcase_add_test(tc, generator_rows_and_frequencies);
    tcase_add_test(tc, noise_matches_the_notes_table);
    tcase_add_test(tc, certified_factor_is_sandwiched);
    tcase_add_test(tc, projection_beats_dense);
    tcase_add_test(tc, bad_input_is_refused);
    tcase_add_test(tc, random_stop_accounting_and_rounds);
    tcase_add_test(tc, random_stop_picks_the_best_radius);
    tcase_add_test(tc, random_stop_score_sensitivity);
    tcase_add_test(tc, random_stop_bad_input);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
