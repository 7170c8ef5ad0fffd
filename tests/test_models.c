/*
 * test_models.c - the classification models of Koskela, arXiv 2024 (trainers/classify/models.c):
 * the logits follow the parameter layouts of dptrain.h (naive loops here);
 * the gradients match central finite differences of a cross-entropy
 * computed here from the logits; the closed-form per-example norms are the
 * norms of the per-example gradients; clipping bounds every contribution
 * and the batch is the sum of its clipped examples; the convex model is
 * gated-linear (gates recovered here by probing with basis vectors), and
 * its logits, clipped gradient sum and norms are those of plain loops; the
 * smoothness bound dominates a finite-difference Hessian; bad input is
 * refused with a message.
 */
#include "dptrain.h"
#include "testutil.h"

#include <check.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const dpt_model_kind kinds[] = { DPT_MODEL_SOFTMAX, DPT_MODEL_CONVEX, DPT_MODEL_RELU };
static const char *const kind_names[] = { "softmax", "convex", "relu" };

/* n examples x ~ N(0, I_d), labels uniform on 0..K-1. */
static dpt_dataset random_data(size_t n, size_t d, size_t K, unsigned long seed)
{
    dpt_dataset ds;
    ck_assert_int_eq(dpt_dataset_alloc(&ds, n, d, NULL), DPA_OK);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    for (size_t k = 0; k < n * d; k++) ds.x[k] = gsl_ran_gaussian(r, 1.0);
    for (size_t i = 0; i < n; i++) ds.y[i] = (double)gsl_rng_uniform_int(r, K);
    gsl_rng_free(r);
    return ds;
}

/* A model whose parameters are all N(0, scale^2) (the zero start of softmax
 * and convex, and the zero biases, would hide layout mistakes). */
static dpt_model *random_model(dpt_model_kind kind, size_t d, size_t K, size_t P, size_t W, unsigned long seed,
                               double scale)
{
    dpt_model_spec spec = { kind, K, P, W, seed };
    dpt_model *m = NULL;
    dpa_error err = { 0 };
    ck_assert_msg(dpt_model_new(&spec, d, &m, &err) == DPA_OK, "%s", err.message);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed + 1000);
    double *p = dpt_model_params(m);
    for (size_t k = 0; k < dpt_model_size(m); k++) p[k] = gsl_ran_gaussian(r, scale);
    gsl_rng_free(r);
    return m;
}

static double norm2(const double *v, size_t n)
{
    double s = 0.0;
    for (size_t k = 0; k < n; k++) s += v[k] * v[k];
    return sqrt(s);
}

static double diff_norm(const double *a, const double *b, size_t n)
{
    double s = 0.0;
    for (size_t k = 0; k < n; k++) s += (a[k] - b[k]) * (a[k] - b[k]);
    return sqrt(s);
}

/* |a - b| / |b| as vectors. */
static double rel_err(const double *a, const double *b, size_t n) { return diff_norm(a, b, n) / norm2(b, n); }

/* The summed cross-entropy of rows[0..b-1], from dpt_model_logits and a
 * log-sum-exp written here. */
static double ce_rows(const dpt_model *m, const dpt_dataset *D, const size_t *rows, size_t b)
{
    size_t K = dpt_model_get_spec(m)->classes;
    double *x = malloc(b * D->d * sizeof *x), *z = malloc(b * K * sizeof *z), loss = 0.0;
    for (size_t i = 0; i < b; i++) memcpy(x + i * D->d, D->x + rows[i] * D->d, D->d * sizeof *x);
    dpt_model_logits(m, x, b, z);
    for (size_t i = 0; i < b; i++) {
        double mx = -INFINITY, s = 0.0;
        for (size_t c = 0; c < K; c++) mx = fmax(mx, z[i * K + c]);
        for (size_t c = 0; c < K; c++) s += exp(z[i * K + c] - mx);
        loss += mx + log(s) - z[i * K + (size_t)D->y[rows[i]]];
    }
    free(x);
    free(z);
    return loss;
}

/* Central differences of ce_rows in every parameter. */
static void fd_grad(dpt_model *m, const dpt_dataset *D, const size_t *rows, size_t b, double h, double *g)
{
    double *p = dpt_model_params(m);
    for (size_t k = 0; k < dpt_model_size(m); k++) {
        double keep = p[k];
        p[k] = keep + h;
        double up = ce_rows(m, D, rows, b);
        p[k] = keep - h;
        double down = ce_rows(m, D, rows, b);
        p[k] = keep;
        g[k] = (up - down) / (2.0 * h);
    }
}

/* The model's gradient sum of rows[0..b-1] (into zeros), its loss and norms. */
static double grad_of(const dpt_model *m, const dpt_dataset *D, const size_t *rows, size_t b, double clip, double *g,
                      double *norms)
{
    dpa_error err = { 0 };
    memset(g, 0, dpt_model_size(m) * sizeof *g);
    double loss = dpt_model_clipped_grad_sum(m, D, rows, b, clip, g, norms, &err);
    ck_assert_msg(!isnan(loss), "%s", err.message);
    return loss;
}

/* softmax: W x + b; ReLU: A ReLU(U x + b1) + b2, the layouts of dptrain.h,
 * against dpt_model_logits. */
START_TEST(logits_follow_the_layout)
{
    const size_t d = 5, K = 3, W = 6, n = 200;
    dpt_dataset D = random_data(n, d, K, 11);
    double z[3], *got = malloc(n * K * sizeof *got), worst = 0.0;
    for (int k = 0; k < 2; k++) {
        dpt_model *m = random_model(k ? DPT_MODEL_RELU : DPT_MODEL_SOFTMAX, d, K, 1, W, 5, 0.7);
        const double *p = dpt_model_params(m);
        dpt_model_logits(m, D.x, n, got);
        for (size_t i = 0; i < n; i++) {
            const double *x = D.x + i * d;
            for (size_t c = 0; c < K; c++) {
                if (!k) {
                    z[c] = p[K * d + c];
                    for (size_t j = 0; j < d; j++) z[c] += p[c * d + j] * x[j];
                } else {
                    const double *U = p, *b1 = U + W * d, *A = b1 + W, *b2 = A + K * W;
                    z[c] = b2[c];
                    for (size_t u = 0; u < W; u++) {
                        double pre = b1[u];
                        for (size_t j = 0; j < d; j++) pre += U[u * d + j] * x[j];
                        z[c] += A[c * W + u] * (pre > 0.0 ? pre : 0.0);
                    }
                }
            }
            worst = fmax(worst, rel_err(got + i * K, z, K));
        }
        dpt_model_free(m);
    }
    ck_assert_msg(worst <= 1e-13, "logits differ from the layout by %g", worst);
    free(got);
    dpt_dataset_free(&D);
}
END_TEST

/* With clip = INFINITY the sum is the plain gradient: central differences
 * (h = 1e-5) on one example and on a batch with a repeated row. */
START_TEST(gradient_matches_finite_differences)
{
    const size_t d = 5, K = 3, P = 4, W = 6;
    dpt_dataset D = random_data(12, d, K, 7);
    const size_t one[] = { 4 }, batch[] = { 0, 3, 3, 5, 8, 10, 11 };
    const size_t *sets[] = { one, batch };
    const size_t sizes[] = { 1, sizeof batch / sizeof *batch };
    for (int k = 0; k < 3; k++) {
        dpt_model *m = random_model(kinds[k], d, K, P, W, 3, 0.5);
        size_t n = dpt_model_size(m);
        double *g = malloc(n * sizeof *g), *fd = malloc(n * sizeof *fd);
        for (int s = 0; s < 2; s++) {
            double loss = grad_of(m, &D, sets[s], sizes[s], INFINITY, g, NULL);
            double ref = ce_rows(m, &D, sets[s], sizes[s]);
            ck_assert_msg(fabs(loss - ref) <= 1e-12 * ref, "%s: loss %.17g, reference %.17g", kind_names[k], loss, ref);
            fd_grad(m, &D, sets[s], sizes[s], 1e-5, fd);
            double e = rel_err(g, fd, n);
            printf("finite differences, %s, b = %zu: relative error %.2e\n", kind_names[k], sizes[s], e);
            ck_assert_msg(e <= 1e-6, "%s, b = %zu: relative error %g", kind_names[k], sizes[s], e);
        }
        free(g);
        free(fd);
        dpt_model_free(m);
    }
    dpt_dataset_free(&D);
}
END_TEST

/* The norms the batch call reports are the norms of each example's own
 * gradient (b = 1, no clipping: the gradient the previous test checked). */
START_TEST(norms_are_the_gradient_norms)
{
    const size_t d = 5, K = 3, n = 150;
    dpt_dataset D = random_data(n, d, K, 8);
    size_t *rows = malloc(n * sizeof *rows);
    for (size_t i = 0; i < n; i++) rows[i] = i;
    for (int k = 0; k < 3; k++) {
        dpt_model *m = random_model(kinds[k], d, K, 4, 6, 9, 0.5);
        size_t np = dpt_model_size(m);
        double *g = malloc(np * sizeof *g), *norms = malloc(n * sizeof *norms), one, worst = 0.0;
        grad_of(m, &D, rows, n, INFINITY, g, norms);
        for (size_t i = 0; i < n; i++) {
            grad_of(m, &D, rows + i, 1, INFINITY, g, &one);
            ck_assert(fabs(one - norms[i]) <= 1e-14 * norms[i]);
            double e = fabs(norm2(g, np) - norms[i]);    /* a convex example with no active gate: 0 */
            ck_assert(e <= 1e-12 * norms[i]);
            if (norms[i] > 0.0) worst = fmax(worst, e / norms[i]);
        }
        printf("closed-form norms, %s: largest relative error %.2e\n", kind_names[k], worst);
        free(g);
        free(norms);
        dpt_model_free(m);
    }
    free(rows);
    dpt_dataset_free(&D);
}
END_TEST

/* Clip C = the median norm: every example alone has norm <= C, is
 * untouched below C and scaled onto the sphere above it; a batch of 350
 * (several blocks, repeated rows) adds the sum of those to what grad held. */
START_TEST(clipping_bounds_each_contribution)
{
    const size_t d = 5, K = 3, n = 300, b = 350;
    dpt_dataset D = random_data(n, d, K, 12);
    size_t *rows = malloc(b * sizeof *rows);
    for (size_t i = 0; i < b; i++) rows[i] = (7 * i) % n;
    for (int k = 0; k < 3; k++) {
        dpt_model *m = random_model(kinds[k], d, K, 4, 6, 13, 0.5);
        size_t np = dpt_model_size(m);
        double *g = malloc(np * sizeof *g), *u = malloc(np * sizeof *u), *sum = calloc(np, sizeof *sum);
        double *norms = malloc(b * sizeof *norms), *base = malloc(np * sizeof *base), loss = 0.0;
        grad_of(m, &D, rows, b, INFINITY, g, norms);
        double *sorted = malloc(b * sizeof *sorted);
        memcpy(sorted, norms, b * sizeof *sorted);
        for (size_t i = 1; i < b; i++)       /* insertion sort: small b */
            for (size_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
                double t = sorted[j];
                sorted[j] = sorted[j - 1];
                sorted[j - 1] = t;
            }
        double C = sorted[b / 2];
        for (size_t i = 0; i < b; i++) {
            loss += grad_of(m, &D, rows + i, 1, C, g, NULL);
            grad_of(m, &D, rows + i, 1, INFINITY, u, NULL);
            double gn = norm2(g, np), un = norm2(u, np);
            ck_assert_msg(gn <= C * (1.0 + 1e-12), "%s: clipped norm %.17g > C = %.17g", kind_names[k], gn, C);
            if (norms[i] < C) {
                ck_assert(diff_norm(g, u, np) <= 1e-15 * un);    /* also a zero gradient (no active gate) */
            } else {
                for (size_t j = 0; j < np; j++) u[j] *= C / un;
                ck_assert(rel_err(g, u, np) <= 1e-12);
            }
            for (size_t j = 0; j < np; j++) sum[j] += g[j];
        }
        for (size_t j = 0; j < np; j++) base[j] = g[j] = 0.1 * (double)j;
        dpa_error err = { 0 };
        double batch_loss = dpt_model_clipped_grad_sum(m, &D, rows, b, C, g, NULL, &err);
        ck_assert(fabs(batch_loss - loss) <= 1e-12 * loss);
        for (size_t j = 0; j < np; j++) g[j] -= base[j];
        double e = rel_err(g, sum, np);
        printf("clipped batch vs sum of clipped examples, %s: relative error %.2e\n", kind_names[k], e);
        ck_assert_msg(e <= 1e-12, "%s: batch differs from the sum by %g", kind_names[k], e);
        free(g);
        free(u);
        free(sum);
        free(norms);
        free(base);
        free(sorted);
        dpt_model_free(m);
    }
    free(rows);
    dpt_dataset_free(&D);
}
END_TEST

/* The convex model's gates a[r * P + i] on the rows of D, recovered with
 * v = e_(i, 0, 0): logit 0 is then a_i(x) x_0.  Asserts on the way that
 * every basis vector e_(i, j, c) gives logit c = a_i(x) x_j with the same
 * a_i(x) in {0, 1} for every j and c, and 0 for the other logits. */
static void probe_gates(dpt_model *m, const dpt_dataset *D, size_t P, size_t K, double *a)
{
    size_t d = D->d, n = D->n;
    double *v = dpt_model_params(m), *z = malloc(n * K * sizeof *z);
    memset(v, 0, dpt_model_size(m) * sizeof *v);
    for (size_t i = 0; i < P; i++)
        for (size_t j = 0; j < d; j++)
            for (size_t c = 0; c < K; c++) {
                v[(i * d + j) * K + c] = 1.0;
                dpt_model_logits(m, D->x, n, z);
                v[(i * d + j) * K + c] = 0.0;
                for (size_t r = 0; r < n; r++) {
                    double xj = D->x[r * d + j], ratio = z[r * K + c] / xj;
                    if (j == 0 && c == 0) a[r * P + i] = ratio;
                    ck_assert_msg(ratio == 0.0 || ratio == 1.0, "gate %zu on row %zu: ratio %g", i, r, ratio);
                    ck_assert(ratio == a[r * P + i]);
                    for (size_t o = 0; o < K; o++) ck_assert(o == c || z[r * K + o] == 0.0);
                }
            }
    free(z);
}

/* Gates through the origin: a_i(-x) = 1 - a_i(x) and a_i(2.5 x) = a_i(x);
 * each gate splits the data; the logits are phi(x)^T v for a random v with
 * phi built here from the probed gates; the gates come from the seed. */
START_TEST(convex_logits_are_gated_linear)
{
    const size_t d = 5, K = 3, P = 4, base = 20, n = 3 * base;
    dpt_dataset D = random_data(n, d, K, 21);
    for (size_t r = 0; r < base; r++)
        for (size_t j = 0; j < d; j++) {
            D.x[(base + r) * d + j] = -D.x[r * d + j];
            D.x[(2 * base + r) * d + j] = 2.5 * D.x[r * d + j];
        }
    dpt_model *m = random_model(DPT_MODEL_CONVEX, d, K, P, 1, 4, 1.0);
    double *a = malloc(n * P * sizeof *a);
    probe_gates(m, &D, P, K, a);
    for (size_t i = 0; i < P; i++) {
        double active = 0.0;
        for (size_t r = 0; r < base; r++) {
            ck_assert(a[(base + r) * P + i] == 1.0 - a[r * P + i]);
            ck_assert(a[(2 * base + r) * P + i] == a[r * P + i]);
            active += a[r * P + i];
        }
        ck_assert_msg(active > 0.0 && active < (double)base, "gate %zu is constant on the data", i);
    }
    /* a random v against phi(x)^T v */
    dpt_model *same = random_model(DPT_MODEL_CONVEX, d, K, P, 1, 4, 1.0);
    dpt_model *other = random_model(DPT_MODEL_CONVEX, d, K, P, 1, 5, 1.0);
    memcpy(dpt_model_params(other), dpt_model_params(same), dpt_model_size(same) * sizeof(double));
    const double *v = dpt_model_params(same);
    double *z = malloc(n * K * sizeof *z), *zo = malloc(n * K * sizeof *zo), ref[3], worst = 0.0;
    dpt_model_logits(same, D.x, n, z);
    dpt_model_logits(other, D.x, n, zo);
    for (size_t r = 0; r < n; r++) {
        for (size_t c = 0; c < K; c++) {
            ref[c] = 0.0;
            for (size_t i = 0; i < P; i++)
                for (size_t j = 0; j < d; j++) ref[c] += a[r * P + i] * D.x[r * d + j] * v[(i * d + j) * K + c];
        }
        worst = fmax(worst, rel_err(z + r * K, ref, K));
    }
    ck_assert_msg(worst <= 1e-13, "logits differ from phi(x)^T v by %g", worst);
    ck_assert_msg(rel_err(zo, z, n * K) > 1e-3, "another seed gave the same gates");
    free(z);
    free(zo);
    free(a);
    dpt_model_free(m);
    dpt_model_free(same);
    dpt_model_free(other);
    dpt_dataset_free(&D);
}
END_TEST

/* The convex model's logits, clipped gradient sum, per-example norms and
 * loss against plain loops over the probed gates: z_c = sum_i a_i(x)
 * sum_j x_j V_i[j, c], each example's gradient a_i(x) x_j (p - e_y)_c
 * built entry by entry, its norm summed entry by entry, scaled by
 * min(1, C / norm) and added up.  P = 5, K = 4, a batch of 350 rows (several
 * blocks, repeated rows) and C the median norm, so that about half the rows
 * are clipped; the sum is added to a grad that held something. */
START_TEST(convex_gradient_matches_plain_loops)
{
    const size_t d = 6, K = 4, P = 5, n = 300, b = 350;
    dpt_dataset D = random_data(n, d, K, 31);
    size_t *rows = malloc(b * sizeof *rows);
    for (size_t k = 0; k < b; k++) rows[k] = (11 * k + 3) % n;
    dpt_model *probe = random_model(DPT_MODEL_CONVEX, d, K, P, 1, 6, 1.0);
    dpt_model *m = random_model(DPT_MODEL_CONVEX, d, K, P, 1, 6, 1.0);   /* the same gates and v */
    double *a = malloc(n * P * sizeof *a);
    probe_gates(probe, &D, P, K, a);
    size_t np = dpt_model_size(m);
    ck_assert_uint_eq(np, P * d * K);
    const double *v = dpt_model_params(m);
    double *z = malloc(b * K * sizeof *z), *res = malloc(b * K * sizeof *res), *norms = malloc(b * sizeof *norms);
    double *x = malloc(b * d * sizeof *x), *got_z = malloc(b * K * sizeof *got_z), loss = 0.0;
    for (size_t k = 0; k < b; k++) {
        const double *xr = D.x + rows[k] * d, *ar = a + rows[k] * P;
        memcpy(x + k * d, xr, d * sizeof *x);
        double top = -INFINITY, s = 0.0, sq = 0.0;
        for (size_t c = 0; c < K; c++) {
            z[k * K + c] = 0.0;
            for (size_t i = 0; i < P; i++)
                for (size_t j = 0; j < d; j++) z[k * K + c] += ar[i] * xr[j] * v[(i * d + j) * K + c];
            top = fmax(top, z[k * K + c]);
        }
        for (size_t c = 0; c < K; c++) s += exp(z[k * K + c] - top);
        size_t y = (size_t)D.y[rows[k]];
        loss += top + log(s) - z[k * K + y];
        for (size_t c = 0; c < K; c++) res[k * K + c] = exp(z[k * K + c] - top) / s - (c == y ? 1.0 : 0.0);
        for (size_t i = 0; i < P; i++)
            for (size_t j = 0; j < d; j++)
                for (size_t c = 0; c < K; c++) sq += pow(ar[i] * xr[j] * res[k * K + c], 2);
        norms[k] = sqrt(sq);
    }
    /* the logits of the gathered rows */
    dpt_model_logits(m, x, b, got_z);
    double worst = 0.0;
    for (size_t k = 0; k < b; k++) worst = fmax(worst, rel_err(got_z + k * K, z + k * K, K));
    ck_assert_msg(worst <= 1e-13, "logits differ from the plain loops by %g", worst);
    /* C the median norm; the reference sum */
    double *sorted = malloc(b * sizeof *sorted);
    memcpy(sorted, norms, b * sizeof *sorted);
    for (size_t i = 1; i < b; i++)
        for (size_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            double t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    double C = sorted[b / 2], *ref = calloc(np, sizeof *ref);
    size_t clipped = 0, inactive = 0;
    for (size_t k = 0; k < b; k++) {
        const double *xr = D.x + rows[k] * d, *ar = a + rows[k] * P;
        double f = norms[k] > C ? C / norms[k] : 1.0;
        clipped += f < 1.0;
        for (size_t i = 0; i < P; i++) {
            inactive += ar[i] == 0.0;
            for (size_t j = 0; j < d; j++)
                for (size_t c = 0; c < K; c++) ref[(i * d + j) * K + c] += f * ar[i] * xr[j] * res[k * K + c];
        }
    }
    ck_assert(clipped > b / 4 && clipped < b);
    ck_assert(inactive > b * P / 4 && inactive < 3 * b * P / 4);
    double *g = malloc(np * sizeof *g), *got_norms = malloc(b * sizeof *got_norms);
    for (size_t k = 0; k < np; k++) g[k] = 0.01 * (double)k;
    dpa_error err = { 0 };
    double got_loss = dpt_model_clipped_grad_sum(m, &D, rows, b, C, g, got_norms, &err);
    ck_assert_msg(!isnan(got_loss), "%s", err.message);
    ck_assert_msg(fabs(got_loss - loss) <= 1e-12 * loss, "loss %.17g, plain loops %.17g", got_loss, loss);
    for (size_t k = 0; k < np; k++) g[k] -= 0.01 * (double)k;
    double e = rel_err(g, ref, np), worst_norm = 0.0;
    for (size_t k = 0; k < b; k++) worst_norm = fmax(worst_norm, fabs(got_norms[k] - norms[k]) / norms[k]);
    printf("convex model vs plain loops: %zu of %zu rows clipped, gradient sum relative error %.2e, norms %.2e\n",
           clipped, b, e, worst_norm);
    ck_assert_msg(e <= 1e-12, "the clipped gradient sum differs from the plain loops by %g", e);
    ck_assert_msg(worst_norm <= 1e-12, "a norm differs from the plain loops' by %g", worst_norm);
    free(g);
    free(got_norms);
    free(ref);
    free(sorted);
    free(x);
    free(got_z);
    free(z);
    free(res);
    free(norms);
    free(a);
    free(rows);
    dpt_model_free(probe);
    dpt_model_free(m);
    dpt_dataset_free(&D);
}
END_TEST

/* The largest eigenvalue of the central-difference Hessian (h = 1e-4) of
 * row r's cross-entropy. */
static double fd_hessian_top(dpt_model *m, const dpt_dataset *D, size_t r)
{
    size_t n = dpt_model_size(m);
    const double h = 1e-4;
    double *p = dpt_model_params(m);
    gsl_matrix *H = gsl_matrix_alloc(n, n);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++) {
            double f[4], pi = p[i], pj = p[j];
            const double si[4] = { 1, 1, -1, -1 }, sj[4] = { 1, -1, 1, -1 };
            for (int k = 0; k < 4; k++) {
                p[i] += si[k] * h;
                p[j] += sj[k] * h;
                f[k] = ce_rows(m, D, &r, 1);
                p[i] = pi;
                p[j] = pj;
            }
            double hij = (f[0] - f[1] - f[2] + f[3]) / (4.0 * h * h);
            gsl_matrix_set(H, i, j, hij);
            gsl_matrix_set(H, j, i, hij);
        }
    gsl_vector *ev = gsl_vector_alloc(n);
    gsl_eigen_symm_workspace *w = gsl_eigen_symm_alloc(n);
    gsl_eigen_symm(H, ev, w);
    double top = gsl_vector_max(ev);
    gsl_eigen_symm_free(w);
    gsl_vector_free(ev);
    gsl_matrix_free(H);
    return top;
}

/* beta = 1/2 max (|x|^2 + 1) (softmax) or 1/2 max s(x) |x|^2 (convex, s from
 * the probed gates), and it bounds every example's Hessian; NaN for ReLU. */
START_TEST(smoothness_bounds_the_hessian)
{
    const size_t d = 3, K = 3, P = 2, n = 8;
    dpt_dataset D = random_data(n, d, K, 31);
    double a[8 * 2] = { 0 };   /* the convex model's gates, probed below */
    for (int k = 0; k < 2; k++) {
        dpt_model *m = random_model(kinds[k], d, K, P, 1, 6, 1.0);
        if (kinds[k] == DPT_MODEL_CONVEX) {
            double *keep = malloc(dpt_model_size(m) * sizeof *keep);
            memcpy(keep, dpt_model_params(m), dpt_model_size(m) * sizeof *keep);
            probe_gates(m, &D, P, K, a);
            memcpy(dpt_model_params(m), keep, dpt_model_size(m) * sizeof *keep);
            free(keep);
        }
        double expect = 0.0, ratio = 0.0, beta = dpt_model_smoothness(m, &D);
        for (size_t r = 0; r < n; r++) {
            double x2 = 0.0, s = 0.0;
            for (size_t j = 0; j < d; j++) x2 += D.x[r * d + j] * D.x[r * d + j];
            for (size_t i = 0; i < P; i++) s += a[r * P + i];
            double phi2 = kinds[k] == DPT_MODEL_SOFTMAX ? x2 + 1.0 : s * x2;
            expect = fmax(expect, 0.5 * phi2);
            double top = fd_hessian_top(m, &D, r);
            ck_assert_msg(top <= 0.5 * phi2 * (1.0 + 1e-6) + 1e-6, "%s row %zu: Hessian %g above 1/2 |phi|^2 = %g",
                          kind_names[k], r, top, 0.5 * phi2);
            if (phi2 > 0.0) ratio = fmax(ratio, top / (0.5 * phi2));
        }
        printf("smoothness, %s: beta %.6g, largest Hessian eigenvalue / (1/2 |phi|^2) %.3f\n", kind_names[k], beta,
               ratio);
        ck_assert_msg(fabs(beta - expect) <= 1e-14 * expect, "%s: beta %.17g, expected %.17g", kind_names[k], beta,
                      expect);
        dpt_model_free(m);
    }
    dpt_model *relu = random_model(DPT_MODEL_RELU, d, K, P, 4, 6, 1.0);
    ck_assert(isnan(dpt_model_smoothness(relu, &D)));
    dpt_model_free(relu);
    dpt_dataset_free(&D);
}
END_TEST

/* Mean cross-entropy and the share of first-argmax hits, recomputed here. */
START_TEST(evaluate_matches_logits)
{
    const size_t d = 4, K = 5, n = 300;
    dpt_dataset D = random_data(n, d, K, 41);
    for (int k = 0; k < 3; k++) {
        dpt_model *m = random_model(kinds[k], d, K, 3, 7, 2, 1.0);
        double *z = malloc(n * K * sizeof *z), loss = 0.0, hits = 0.0, got_loss, got_acc;
        size_t *rows = malloc(n * sizeof *rows);
        for (size_t i = 0; i < n; i++) rows[i] = i;
        loss = ce_rows(m, &D, rows, n) / (double)n;
        dpt_model_logits(m, D.x, n, z);
        for (size_t i = 0; i < n; i++) {
            size_t top = 0;
            for (size_t c = 1; c < K; c++)
                if (z[i * K + c] > z[i * K + top]) top = c;
            hits += top == (size_t)D.y[i];
        }
        dpt_model_evaluate(m, &D, &got_loss, &got_acc);
        ck_assert(fabs(got_loss - loss) <= 1e-12 * loss);
        ck_assert(got_acc == hits / (double)n);
        free(z);
        free(rows);
        dpt_model_free(m);
    }
    dpt_dataset_free(&D);
}
END_TEST

/* Sample variance of v[0..n-1] about 0. */
static double mean_square(const double *v, size_t n)
{
    double s = 0.0;
    for (size_t k = 0; k < n; k++) s += v[k] * v[k];
    return s / (double)n;
}

/* Sizes; softmax and convex start at 0; ReLU U ~ N(0, 2/d), A ~ N(0, 1/W),
 * biases 0, reproducible from the seed. */
START_TEST(initialisation)
{
    const size_t d = 200, K = 10, P = 3, W = 500;
    dpt_model_spec spec = { DPT_MODEL_SOFTMAX, K, P, W, 17 };
    const size_t sizes[] = { K * (d + 1), P * d * K, W * d + W + K * W + K };
    dpt_model *m[2];
    for (int k = 0; k < 3; k++) {
        spec.kind = kinds[k];
        for (int t = 0; t < 2; t++) ck_assert_int_eq(dpt_model_new(&spec, d, &m[t], NULL), DPA_OK);
        ck_assert_uint_eq(dpt_model_size(m[0]), sizes[k]);
        ck_assert(dpt_model_get_spec(m[0])->kind == kinds[k] && dpt_model_get_spec(m[0])->classes == K);
        const double *p = dpt_model_params(m[0]);
        ck_assert(memcmp(p, dpt_model_params(m[1]), sizes[k] * sizeof *p) == 0);
        if (kinds[k] != DPT_MODEL_RELU) {
            ck_assert(mean_square(p, sizes[k]) == 0.0);
        } else {
            double u = mean_square(p, W * d), a = mean_square(p + W * d + W, K * W);
            printf("initialisation: var U %.4g (2/d = %.4g), var A %.4g (1/W = %.4g)\n", u, 2.0 / d, a, 1.0 / W);
            ck_assert(fabs(u / (2.0 / d) - 1.0) < 0.03);
            ck_assert(fabs(a / (1.0 / W) - 1.0) < 0.1);
            ck_assert(mean_square(p + W * d, W) == 0.0 && mean_square(p + W * d + W + K * W, K) == 0.0);
        }
        for (int t = 0; t < 2; t++) dpt_model_free(m[t]);
    }
}
END_TEST

static void expect_refused(const dpt_model_spec *spec, size_t d, const char *word)
{
    dpt_model *m = NULL;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_model_new(spec, d, &m, &err), DPA_EINVAL);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(err.status, DPA_EINVAL);
    ck_assert_msg(strstr(err.message, word) != NULL, "message '%s' does not name '%s'", err.message, word);
}

static void expect_batch_refused(const dpt_model *m, const dpt_dataset *D, const size_t *rows, size_t b, double clip,
                                 const char *word)
{
    size_t np = dpt_model_size(m);
    double *g = malloc(np * sizeof *g);
    for (size_t j = 0; j < np; j++) g[j] = (double)j;
    dpa_error err = { 0 };
    ck_assert(isnan(dpt_model_clipped_grad_sum(m, D, rows, b, clip, g, NULL, &err)));
    ck_assert_int_eq(err.status, DPA_EINVAL);
    ck_assert_msg(strstr(err.message, word) != NULL, "message '%s' does not name '%s'", err.message, word);
    for (size_t j = 0; j < np; j++) ck_assert(g[j] == (double)j);    /* untouched */
    free(g);
}

START_TEST(bad_input)
{
    dpt_model_spec spec = { DPT_MODEL_SOFTMAX, 1, 4, 6, 1 };
    expect_refused(&spec, 5, "classes");
    spec.classes = 3;
    expect_refused(&spec, 0, "dimension");
    spec.kind = DPT_MODEL_CONVEX;
    spec.hyperplanes = 0;
    expect_refused(&spec, 5, "hyperplanes");
    spec.kind = DPT_MODEL_RELU;
    spec.width = 0;
    expect_refused(&spec, 5, "width");
    spec.kind = (dpt_model_kind)9;
    expect_refused(&spec, 5, "kind");
    dpt_model_spec huge = { DPT_MODEL_CONVEX, (size_t)1 << 22, (size_t)1 << 22, 1, 1 };
    expect_refused(&huge, (size_t)1 << 22, "overflows");

    const size_t d = 5, K = 3, rows[] = { 0, 1, 2, 3 };
    dpt_dataset D = random_data(4, d, K, 1);
    dpt_model *m = random_model(DPT_MODEL_RELU, d, K, 4, 6, 1, 0.5);
    const double bad[] = { 3.5, -1.0, 3.0, NAN };
    for (int k = 0; k < 4; k++) {
        D.y[2] = bad[k];
        expect_batch_refused(m, &D, rows, 4, 1.0, "row 2");
        double loss = 0.0, acc = 0.0;
        dpt_model_evaluate(m, &D, &loss, &acc);
        ck_assert(isnan(loss) && isnan(acc));
    }
    D.y[2] = 1.0;
    const size_t outside[] = { 0, 4 };
    expect_batch_refused(m, &D, outside, 2, 1.0, "rows[1]");
    expect_batch_refused(m, &D, rows, 4, 0.0, "clip");
    expect_batch_refused(m, &D, rows, 4, NAN, "clip");
    dpt_dataset narrow = random_data(4, d - 1, K, 1);
    expect_batch_refused(m, &narrow, rows, 4, 1.0, "d = 4");
    dpt_model *soft = random_model(DPT_MODEL_SOFTMAX, d, K, 1, 1, 1, 0.5);
    ck_assert(isnan(dpt_model_smoothness(soft, &narrow)));
    dpt_model_free(soft);
    dpt_dataset_free(&narrow);
    dpt_model_free(m);
    dpt_dataset_free(&D);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("models");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, logits_follow_the_layout);
    tcase_add_test(tc, gradient_matches_finite_differences);
    tcase_add_test(tc, norms_are_the_gradient_norms);
    tcase_add_test(tc, clipping_bounds_each_contribution);
    tcase_add_test(tc, convex_logits_are_gated_linear);
    tcase_add_test(tc, convex_gradient_matches_plain_loops);
    tcase_add_test(tc, smoothness_bounds_the_hessian);
    tcase_add_test(tc, evaluate_matches_logits);
    tcase_add_test(tc, initialisation);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
