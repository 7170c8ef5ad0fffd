/*
 * test_privacy_fact.c - privacy in fact: the noise every private trainer
 * actually adds, measured from its output alone, against the noise its own
 * accounting report claims; and the sampling its accounting assumes
 * (Poisson batches, secret shuffles and partitions, the tree's nodes, the
 * bias-reduced SGD's levels and draws) against the sampling it does.
 *
 * Noise.  Each trainer runs on data whose clipped gradients are known
 * (x = 0, or coordinates no row touches), so that the released model is a
 * known linear map of its noise draws.  The law of the release is derived
 * here from the REPORTED quantities (noise multiplier, noise scale, k,
 * truncation bound, step count) and the options the caller set (clip, batch
 * size, learning rate), with the papers' formulas, never from the trainers'
 * internals, and tested exactly:
 *   Gaussian           sum x^2 / var ~ chi2(N), two-sided;
 *   Laplace (scale b)  sum |x| / b ~ Gamma(N, 1), two-sided;
 *   truncated Laplace  sum -ln(1 - F(|x|)) ~ Gamma(N, 1) (F the CDF of
 *                      |x|, truncated at the reported A), and max |x| <= A;
 *   Wishart (GSM)      k v' Ktilde v / v' K v ~ chi2(k), its probability
 *                      integral transform binned and tested for uniformity.
 * Sampling.  With the noise off and one-hot rows, each example's share of
 * the release is identifiable; the test recovers how often (Poisson), where
 * (shuffles, partitions) or whether (without replacement) each example was
 * used, and compares the counts with their exact law by a chi-square.
 *
 * Every check's false-failure probability is ALPHA = 1e-7 (for the
 * chi-square goodness-of-fit and batch-size variance checks, by the usual
 * asymptotic chi-square law, with expected counts >= 50), and no test makes
 * more than 10 checks, so each test fails wrongly with probability below
 * 1e-6; the generators are seeded, so every run is the same run.  The noise
 * checks use N >= 10^4 draws, where the chi-square band is within about
 * +-7.5% of the claimed variance: a halved noise (variance x 1/4) falls far
 * outside, and a noise 10% too small (variance x 0.81) about 8 standard
 * deviations beyond the band.  Each check prints its statistic.
 */
#define _POSIX_C_SOURCE 200809L

#include "dptrain.h"
#include "test_rng_util.h"
#include "testutil.h"

#include <check.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ALPHA 1e-7

/* ---- statistics ---------------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void took(const char *what, double t0)
{
    printf("%s: %.2f s\n", what, now() - t0);
}

/* Gaussian draws of known variance: sum x^2 / var ~ chi2(dof). */
typedef struct {
    double stat, dof;
} gauss_acc;

static void gauss_add(gauss_acc *a, double x, double var)
{
    a->stat += x * x / var;
    a->dof += 1.0;
}

static void gauss_check(const char *what, const gauss_acc *a)
{
    double lo = gsl_cdf_chisq_Pinv(ALPHA / 2, a->dof), hi = gsl_cdf_chisq_Qinv(ALPHA / 2, a->dof);
    printf("%s: measured / claimed variance %.4f over %.0f draws (chi2 %.1f, accepted [%.1f, %.1f] = [%.4f, %.4f])\n",
           what, a->stat / a->dof, a->dof, a->stat, lo, hi, lo / a->dof, hi / a->dof);
    ck_assert_msg(a->stat >= lo && a->stat <= hi,
                  "%s: the noise drawn is not the noise claimed: measured / claimed variance %.4f outside [%.4f, %.4f]",
                  what, a->stat / a->dof, lo / a->dof, hi / a->dof);
}

/* Laplace draws of scale b: |x| / b ~ Exp(1), the sum ~ Gamma(N, 1). */
typedef struct {
    double stat, n;
} exp_acc;

static void laplace_add(exp_acc *a, double x, double b)
{
    a->stat += fabs(x) / b;
    a->n += 1.0;
}

/* Truncated Laplace of scale b on [-A, A]: |x| has the CDF F(t) = (1 -
 * e^(-t/b)) / (1 - e^(-A/b)) on [0, A], so -ln(1 - F(|x|)) ~ Exp(1). */
static void tlaplace_add(exp_acc *a, double x, double b, double A)
{
    double t = fmin(fabs(x), A * (1.0 - 1e-12)), ea = exp(-A / b);
    double surv = (exp(-t / b) - ea) / (1.0 - ea);
    a->stat += -log(surv);
    a->n += 1.0;
}

static void exp_check(const char *what, const exp_acc *a)
{
    double lo = gsl_cdf_gamma_Pinv(ALPHA / 2, a->n, 1.0), hi = gsl_cdf_gamma_Qinv(ALPHA / 2, a->n, 1.0);
    printf("%s: measured / claimed mean |noise| (exponential scale) %.4f over %.0f draws (Gamma sum %.1f, accepted "
           "[%.4f, %.4f])\n",
           what, a->stat / a->n, a->n, a->stat, lo / a->n, hi / a->n);
    ck_assert_msg(a->stat >= lo && a->stat <= hi,
                  "%s: the noise drawn is not the noise claimed: measured / claimed scale %.4f outside [%.4f, %.4f]",
                  what, a->stat / a->n, lo / a->n, hi / a->n);
}

/* Pearson's chi-square of observed counts against probabilities p (k
 * cells, total draws), one-sided at ALPHA on k - 1 degrees of freedom. */
static void multinomial_check(const char *what, const double *obs, const double *p, size_t k)
{
    double total = 0.0, stat = 0.0, least = INFINITY;
    for (size_t c = 0; c < k; c++) total += obs[c];
    for (size_t c = 0; c < k; c++) {
        double e = total * p[c];
        least = fmin(least, e);
        stat += (obs[c] - e) * (obs[c] - e) / e;
    }
    double hi = gsl_cdf_chisq_Qinv(ALPHA, (double)(k - 1));
    printf("%s: chi2 %.1f on %zu dof (accepted <= %.1f; %.0f draws, least expected count %.0f)\n", what, stat, k - 1,
           hi, total, least);
    ck_assert_msg(least >= 50.0, "%s: the test design needs expected counts >= 50 (%.1f)", what, least);
    ck_assert_msg(stat <= hi, "%s: the sampling is not the sampling accounted: chi2 %.1f > %.1f on %zu dof", what, stat,
                  hi, k - 1);
}

/* R statistics S_r, approximately normal with the given mean and variance
 * (sums of many independent terms): sum ((S_r - mean)^2 / var) ~ chi2(R),
 * two-sided.  A fixed batch size makes the spread 0. */
static void spread_check(const char *what, const double *s, size_t R, double mean, double var)
{
    double stat = 0.0;
    for (size_t r = 0; r < R; r++) stat += (s[r] - mean) * (s[r] - mean) / var;
    double lo = gsl_cdf_chisq_Pinv(ALPHA / 2, (double)R), hi = gsl_cdf_chisq_Qinv(ALPHA / 2, (double)R);
    printf("%s: measured / claimed variance %.4f over %zu runs (chi2 %.2f, accepted [%.2f, %.2f])\n", what,
           stat / (double)R, R, stat, lo, hi);
    ck_assert_msg(stat >= lo && stat <= hi, "%s: measured / claimed variance %.4f outside [%.4f, %.4f]", what,
                  stat / (double)R, lo / (double)R, hi / (double)R);
}

/* The nearest integer to v, which must be within 1e-3 of it. */
static long count_of(const char *what, double v)
{
    double r = nearbyint(v);
    ck_assert_msg(fabs(v - r) < 1e-3, "%s: %.9f is not a count", what, v);
    return (long)r;
}

/* ---- data ------------------------------------------------------------------------ */

static dpt_dataset zeros(size_t n, size_t d)
{
    dpt_dataset ds;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_dataset_alloc(&ds, n, d, &err), DPA_OK);
    return ds;
}

/* x_i = e_i (n x n), every label `y`. */
static dpt_dataset one_hot(size_t n, double y)
{
    dpt_dataset ds = zeros(n, n);
    for (size_t i = 0; i < n; i++) {
        ds.x[i * n + i] = 1.0;
        ds.y[i] = y;
    }
    return ds;
}

static dpt_rng *own_rng(uint64_t seed)
{
    dpt_rng *r = NULL;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_rng_new_seeded(seed, &r, &err), DPA_OK);
    return r;
}

/* ---- the GLMtron family and DP-SGD for ReLU regression: noise -------------------- */

static dpt_glm_result glm_run(const dpt_dataset *D, const dpt_glm_options *o)
{
    dpt_glm_result res;
    dpa_error err = { 0 };
    ck_assert_msg(dpt_glm_train(D, o, &res, &err) == DPA_OK, "%s", err.message);
    return res;
}

/* The average of w_0 .. w_{T-1} of w_{t+1} = w_t - eta n_t, w_0 = 0, n_t
 * i.i.d. N(0, s^2): -(eta/T) sum_t (T - 1 - t) n_t, of variance
 * eta^2 s^2 sum_{k<T} k^2 / T^2 = eta^2 s^2 (T - 1)(2T - 1) / (6T). */
static double walk_average_var(double eta, double s, uint64_t T)
{
    double t = (double)T;
    return eta * eta * s * s * (t - 1.0) * (2.0 * t - 1.0) / (6.0 * t);
}

/* The released average of w_0 .. w_{T-1} (d coordinates) of T steps of
 * noise alone, per-step std `step_std` from the report: against the claimed
 * variance walk_average_var (an exact chi-square test of the d values). */
static void walk_check(const char *what, const dpt_glm_result *r, size_t d, double eta, double step_std)
{
    double V = walk_average_var(eta, step_std, r->steps);
    gauss_acc a = { 0 };
    for (size_t j = 0; j < d; j++) gauss_add(&a, r->w[j], V);
    printf("%s: reported multiplier %.4g, per-step std %.6g, %llu steps: claimed variance %.6g\n", what,
           r->noise_multiplier, step_std, (unsigned long long)r->steps, V);
    gauss_check(what, &a);
}

static dpt_glm_options glm_noise_options(dpt_algorithm alg, uint64_t seed)
{
    dpt_glm_options o;
    dpt_glm_defaults(&o);
    o.algorithm = alg;
    o.clip_rule = DPT_CLIP_FIXED;
    o.clip = 0.5;
    o.noise_multiplier = 3.0;    /* the report must give it back */
    o.learning_rate = 0.1;
    o.rng = test_rng(seed);
    return o;
}

/* DP-GLMtron (seed 000 Alg 1): noise std 2 f gamma per step on the clipped
 * residual, gamma the fixed clip.  With x = 0 every clipped residual is 0,
 * so the average of w_0 .. w_{T-1} is a walk of noise alone. */
START_TEST(glmtron_noise_matches_report)
{
    double t0 = now();
    const size_t n = 4, d = 12000;
    dpt_dataset D = zeros(n, d);
    for (size_t i = 0; i < n; i++) D.y[i] = 1.0;
    dpt_glm_options o = glm_noise_options(DPT_DP_GLMTRON, 101);
    o.epochs = 2;
    dpt_glm_result r = glm_run(&D, &o);
    ck_assert_uint_eq(r.steps, o.epochs * n);
    ck_assert(isfinite(r.epsilon));
    walk_check("DP-GLMtron noise (x = 0)", &r, d, o.learning_rate, 2.0 * r.noise_multiplier * o.clip);
    dpt_glm_result_free(&r);
    dpt_dataset_free(&D);
    took("glmtron_noise_matches_report", t0);
}
END_TEST

/* DP-MBGLMtron (seed 003 Alg 3) with a fixed clip s: noise std 2 f s / b
 * on the batch mean. */
START_TEST(mbglmtron_noise_matches_report)
{
    double t0 = now();
    const size_t n = 12, d = 12000;
    dpt_dataset D = zeros(n, d);
    for (size_t i = 0; i < n; i++) D.y[i] = 1.0;
    dpt_glm_options o = glm_noise_options(DPT_DP_MBGLMTRON, 102);
    o.batch_size = 3;
    o.estimate_size = 0;
    o.epochs = 2;
    dpt_glm_result r = glm_run(&D, &o);
    ck_assert_uint_eq(r.steps, o.epochs * (n / o.batch_size));
    walk_check("DP-MBGLMtron noise (x = 0)", &r, d, o.learning_rate,
               2.0 * r.noise_multiplier * o.clip / (double)o.batch_size);
    dpt_glm_result_free(&r);
    dpt_dataset_free(&D);
    took("mbglmtron_noise_matches_report", t0);
}
END_TEST

/* DP-MBGLMtron's private threshold (Ding et al. UAI 2025, Alg 2 by noisy
 * doubling): at level i the count of the batch's m estimating records with
 * |residual| <= Delta 2^i gets N(0, L f^2) (L = ceil(log2(Upsilon /
 * Delta)) rounds), and the first level whose noisy count reaches m sets the
 * clip s = x_norm Delta 2^i (level L at the latest).  With x = 0 and every
 * y = 1.5 Delta the count is 0 at level 0 and m above, so the level is 0
 * with probability p0 = P[N(0, L f^2) >= m] and i >= 1 with probability
 * (1 - p0) 2^-i (the last level takes the rest): the levels seen through
 * on_clip against that law, f being the reported multiplier.  A count noise
 * half as large gives p0 = 0.004 instead of 0.09. */
typedef struct {
    double base;          /* x_norm Delta: the clip at level 0 */
    double *levels;       /* counts per level, cells 0..6 (6: 6 and above) */
    long seen;
} clip_levels;

static void on_clip_level(void *ctx, uint64_t step, double clip)
{
    (void)step;
    clip_levels *c = ctx;
    double li = log2(clip / c->base);
    long i = count_of("the threshold's level", li);
    ck_assert_msg(i >= 0, "a clip %.6g below the lowest level %.6g", clip, c->base);
    c->levels[i < 6 ? i : 6] += 1.0;
    c->seen++;
}

START_TEST(mbglmtron_threshold_noise_matches_report)
{
    double t0 = now();
    const size_t n = 600, m = 5, b = 1;
    dpt_dataset D = zeros(n, 1);
    dpt_glm_options o = glm_noise_options(DPT_DP_MBGLMTRON, 131);
    for (size_t i = 0; i < n; i++) D.y[i] = 1.5 * o.grid_delta;
    o.clip_rule = DPT_CLIP_PRIVATE;
    o.noise_multiplier = 1.0;
    o.batch_size = b;
    o.estimate_size = m;
    o.epochs = 100;
    double levels[7] = { 0 };
    /* x_norm = sqrt(2 alpha tr H) C2 log^{2a} N, tr H = d = 1, a = 0 */
    clip_levels c = { sqrt(2.0 * o.alpha * 1.0) * o.c2 * o.grid_delta, levels, 0 };
    o.on_clip = on_clip_level;
    o.on_clip_ctx = &c;
    dpt_glm_result r = glm_run(&D, &o);
    unsigned L = (unsigned)ceil(log2(o.upsilon / o.grid_delta));
    ck_assert_uint_eq(L, 14);
    ck_assert_int_eq(c.seen, (long)(o.epochs * (n / (b + m))));
    double sd = sqrt((double)L) * r.noise_multiplier;
    double p0 = gsl_cdf_ugaussian_Q((double)m / sd), p[7];
    p[0] = p0;
    for (int i = 1; i < 6; i++) p[i] = (1.0 - p0) * ldexp(1.0, -i);
    p[6] = (1.0 - p0) * ldexp(1.0, -5);      /* levels 6 .. L: the rest */
    printf("DP-MBGLMtron threshold: reported f %.4g, L %u, count noise sd %.4g, P[level 0] %.4f, seen %.4f\n",
           r.noise_multiplier, L, sd, p0, levels[0] / (double)c.seen);
    multinomial_check("DP-MBGLMtron threshold levels (noisy doubling)", levels, p, 7);
    dpt_glm_result_free(&r);
    dpt_dataset_free(&D);
    took("mbglmtron_threshold_noise_matches_report", t0);
}
END_TEST

/* DP-SGD on the ReLU loss (Abadi et al.): noise std sigma C on the sum of
 * the clipped gradients, divided by the expected batch b.  With x = 0 (and
 * w_0 = 0) every gradient is 0. */
START_TEST(relu_dpsgd_noise_matches_report)
{
    double t0 = now();
    const size_t n = 8, d = 12000;
    dpt_dataset D = zeros(n, d);
    for (size_t i = 0; i < n; i++) D.y[i] = 1.0;
    dpt_glm_options o = glm_noise_options(DPT_DP_SGD, 103);
    o.batch_size = 2;
    o.epochs = 2;
    o.init_scale = 0.0;
    dpt_glm_result r = glm_run(&D, &o);
    ck_assert_uint_eq(r.steps, 8);     /* ceil(E / q), q = b / n = 1/4 */
    walk_check("ReLU DP-SGD noise (x = 0)", &r, d, o.learning_rate,
               r.noise_multiplier * o.clip / (double)o.batch_size);
    dpt_glm_result_free(&r);
    dpt_dataset_free(&D);
    took("relu_dpsgd_noise_matches_report", t0);
}
END_TEST

/* DP-TAGLMtron (seed 000 Alg 3-4): the binary mechanism, one tree per
 * epoch restarted from the epoch's last iterate, node noise f Gamma (Gamma
 * the fixed clip).  Iterate t of an epoch is start - eta (the nodes of t's
 * binary digits): node (j, t >> j) for each set bit j, one independent draw
 * per node, shared by every t with the same t >> j.  With x = 0 the average
 * of w_1 .. w_T is -(eta/T) sum over nodes of (iterates using the node) x
 * (its noise), of variance (eta f Gamma / T)^2 sum_node count^2.  Several
 * (n, E) make that sum differ from what other structures would give (fresh
 * noise per prefix, or per leaf). */
static double tree_average_var(size_t n, uint64_t E, double eta, double node_std)
{
    unsigned levels = 0;
    while (((size_t)1 << levels) <= n) levels++;
    size_t per = (size_t)levels * (n + 1);
    double *count = calloc((size_t)E * per, sizeof *count);
    for (uint64_t e = 0; e < E; e++)
        for (size_t t = 1; t <= n; t++) {
            /* the earlier epochs' final prefix sums, then this tree's */
            for (uint64_t f = 0; f < e; f++)
                for (unsigned j = 0; j < levels; j++)
                    if ((n >> j) & 1u) count[f * per + j * (n + 1) + (n >> j)] += 1.0;
            for (unsigned j = 0; j < levels; j++)
                if ((t >> j) & 1u) count[e * per + j * (n + 1) + (t >> j)] += 1.0;
        }
    double s = 0.0, T = (double)(n * E);
    for (size_t k = 0; k < (size_t)E * per; k++) s += count[k] * count[k];
    free(count);
    return eta * eta * node_std * node_std * s / (T * T);
}

START_TEST(taglmtron_tree_noise_matches_report)
{
    double t0 = now();
    const size_t d = 3000;
    const size_t ns[] = { 2, 3, 5, 8, 13, 6 };
    const uint64_t es[] = { 1, 1, 1, 1, 1, 2 };
    gauss_acc all = { 0 };
    for (int c = 0; c < 6; c++) {
        dpt_dataset D = zeros(ns[c], d);
        dpt_glm_options o = glm_noise_options(DPT_DP_TAGLMTRON, 110 + (uint64_t)c);
        o.epochs = es[c];
        dpt_glm_result r = glm_run(&D, &o);
        ck_assert_uint_eq(r.steps, ns[c] * es[c]);
        double V = tree_average_var(ns[c], es[c], o.learning_rate, r.noise_multiplier * o.clip);
        /* for comparison: independent noise f Gamma on every prefix sum */
        double fresh = o.learning_rate * o.learning_rate * r.noise_multiplier * r.noise_multiplier * o.clip * o.clip /
                       (double)r.steps;
        gauss_acc a = { 0 };
        for (size_t j = 0; j < d; j++) {
            gauss_add(&a, r.w[j], V);
            gauss_add(&all, r.w[j], V);
        }
        char what[120];
        snprintf(what, sizeof what, "DP-TAGLMtron noise, n = %zu, E = %llu (tree %.4g, fresh prefixes %.4g)", ns[c],
                 (unsigned long long)es[c], V, fresh);
        gauss_check(what, &a);
        dpt_glm_result_free(&r);
        dpt_dataset_free(&D);
    }
    gauss_check("DP-TAGLMtron noise, all six trees", &all);
    took("taglmtron_tree_noise_matches_report", t0);
}
END_TEST

/* DP-FTRL (Kairouz et al. 2021): the same binary mechanism over the
 * floor(n / b) batch leaves of an epoch, node noise f C on the sums, the
 * step eta / b; with x = 0 every gradient is 0 and the average of
 * w_1 .. w_T is tree_average_var's with eta / b over floor(n / b) leaves. */
START_TEST(ftrl_tree_noise_matches_report)
{
    double t0 = now();
    const size_t d = 3000;
    const size_t ns[] = { 13, 16, 40, 9 }, bs[] = { 2, 3, 5, 1 };
    const uint64_t es[] = { 1, 2, 1, 2 };
    gauss_acc all = { 0 };
    for (int c = 0; c < 4; c++) {
        dpt_dataset D = zeros(ns[c], d);
        dpt_glm_options o = glm_noise_options(DPT_DP_FTRL, 140 + (uint64_t)c);
        o.epochs = es[c];
        o.batch_size = bs[c];
        dpt_glm_result r = glm_run(&D, &o);
        size_t leaves = ns[c] / bs[c];
        ck_assert_uint_eq(r.steps, leaves * es[c]);
        double V = tree_average_var(leaves, es[c], o.learning_rate / (double)bs[c], r.noise_multiplier * o.clip);
        gauss_acc a = { 0 };
        for (size_t j = 0; j < d; j++) {
            gauss_add(&a, r.w[j], V);
            gauss_add(&all, r.w[j], V);
        }
        char what[120];
        snprintf(what, sizeof what, "DP-FTRL noise, n = %zu, b = %zu, E = %llu (variance %.4g)", ns[c], bs[c],
                 (unsigned long long)es[c], V);
        gauss_check(what, &a);
        dpt_glm_result_free(&r);
        dpt_dataset_free(&D);
    }
    gauss_check("DP-FTRL noise, all four trees", &all);
    took("ftrl_tree_noise_matches_report", t0);
}
END_TEST

/* ---- the GLMtron family: the secret shuffle and partition ---------------------- */

/* One-hot rows x_i = e_i, y_i = 1, w_0 = 0, one epoch, the noise off (the
 * shuffle is drawn all the same): example i's step is the only one that
 * touches coordinate i, its residual is ReLU(0) - 1 = -1 and (clip 10, no
 * clipping) it adds eta to w_i.  So coordinate i of the average is eta
 * times the share of the averaged iterates after i's step, which gives
 * i's position. */
static void glm_order(dpt_algorithm alg, const dpt_dataset *D, dpt_rng *rng, size_t *pos)
{
    dpt_glm_options o;
    dpt_glm_defaults(&o);
    o.algorithm = alg;
    o.noise_off = 1;
    o.clip_rule = DPT_CLIP_FIXED;
    o.clip = 10.0;
    o.learning_rate = 0.25;
    o.epochs = 1;
    o.rng = rng;
    dpt_glm_result r = glm_run(D, &o);
    size_t n = D->n, T = (size_t)r.steps;
    ck_assert_uint_eq(T, n);
    int seen[16] = { 0 };
    for (size_t i = 0; i < n; i++) {
        long k = count_of("iterates after a step", r.w[i] * (double)T / o.learning_rate);
        /* DP-GLMtron averages w_0 .. w_{T-1}: T - 1 - pos of them follow the
         * step at pos; DP-TAGLMtron averages w_1 .. w_T: T - pos */
        long p = alg == DPT_DP_TAGLMTRON ? (long)T - k : (long)T - 1 - k;
        ck_assert(p >= 0 && p < (long)n && !seen[p]);
        seen[p] = 1;
        pos[i] = (size_t)p;
    }
    dpt_glm_result_free(&r);
}

/* The 24 orders of 4 examples, each with probability 1/24. */
static void shuffle_uniform(dpt_algorithm alg, const char *what, uint64_t seed)
{
    const size_t n = 4, R = 4800;
    dpt_dataset D = one_hot(n, 1.0);
    dpt_rng *rng = own_rng(seed);
    double obs[24] = { 0 }, p[24];
    for (int c = 0; c < 24; c++) p[c] = 1.0 / 24.0;
    for (size_t r = 0; r < R; r++) {
        size_t pos[4], order[4];
        glm_order(alg, &D, rng, pos);
        for (size_t i = 0; i < n; i++) order[pos[i]] = i;
        /* the rank of the order among the 24 (Lehmer code) */
        int code = 0;
        for (size_t a = 0; a < n; a++) {
            int smaller = 0;
            for (size_t b = a + 1; b < n; b++) smaller += order[b] < order[a];
            code = code * (int)(n - a) + smaller;
        }
        obs[code] += 1.0;
    }
    multinomial_check(what, obs, p, 24);
    dpt_rng_free(rng);
    dpt_dataset_free(&D);
}

START_TEST(glmtron_shuffle_is_uniform)
{
    double t0 = now();
    shuffle_uniform(DPT_DP_GLMTRON, "DP-GLMtron: the order of 4 examples over 4800 epochs", 201);
    took("glmtron_shuffle_is_uniform", t0);
}
END_TEST

START_TEST(taglmtron_shuffle_is_uniform)
{
    double t0 = now();
    shuffle_uniform(DPT_DP_TAGLMTRON, "DP-TAGLMtron: the order of 4 examples over 4800 epochs", 202);
    took("taglmtron_shuffle_is_uniform", t0);
}
END_TEST

/* DP-MBGLMtron's random partition into T = n / b batches (b = 2, n = 6,
 * fixed clip, no estimating slice): example i (one-hot, noise off) adds
 * eta / b to w_i in its batch t, which the average of w_0 .. w_{T-1} sees
 * T - 1 - t times.  Each of the 90 ordered partitions has probability 1/90. */
START_TEST(mbglmtron_partition_is_uniform)
{
    double t0 = now();
    const size_t n = 6, b = 2, R = 9000;
    dpt_dataset D = one_hot(n, 1.0);
    dpt_rng *rng = own_rng(203);
    /* the cells: assignments of 6 examples to 3 batches, 2 each */
    int cell_of[729];
    int cells = 0;
    for (int code = 0; code < 729; code++) {
        int c = code, size[3] = { 0 };
        for (size_t i = 0; i < n; i++) {
            size[c % 3]++;
            c /= 3;
        }
        cell_of[code] = size[0] == 2 && size[1] == 2 && size[2] == 2 ? cells++ : -1;
    }
    ck_assert_int_eq(cells, 90);
    double obs[90] = { 0 }, p[90];
    for (int c = 0; c < 90; c++) p[c] = 1.0 / 90.0;
    dpt_glm_options o;
    dpt_glm_defaults(&o);
    o.algorithm = DPT_DP_MBGLMTRON;
    o.noise_off = 1;
    o.clip_rule = DPT_CLIP_FIXED;
    o.clip = 10.0;
    o.batch_size = b;
    o.estimate_size = 0;
    o.learning_rate = 0.25;
    o.rng = rng;
    for (size_t r = 0; r < R; r++) {
        dpt_glm_result res = glm_run(&D, &o);
        size_t T = (size_t)res.steps;
        ck_assert_uint_eq(T, n / b);
        int code = 0;
        for (size_t i = n; i-- > 0;) {
            long k = count_of("iterates after a batch", res.w[i] * (double)(T * b) / o.learning_rate);
            long t = (long)T - 1 - k;
            ck_assert(t >= 0 && t < (long)T);
            code = code * 3 + (int)t;
        }
        ck_assert_int_ge(cell_of[code], 0);
        obs[cell_of[code]] += 1.0;
        dpt_glm_result_free(&res);
    }
    multinomial_check("DP-MBGLMtron: the ordered partition of 6 examples into 3 batches, 9000 epochs", obs, p, 90);
    dpt_rng_free(rng);
    dpt_dataset_free(&D);
    took("mbglmtron_partition_is_uniform", t0);
}
END_TEST

/* ---- ReLU DP-SGD: Poisson sampling --------------------------------------------- */

/* The exact law of W = sum_{k=1}^{T-1} k B_k, B_k i.i.d. Bernoulli(q), on
 * 0 .. T(T-1)/2, into pmf. */
static void weighted_binomial(unsigned T, double q, double *pmf, size_t size)
{
    memset(pmf, 0, size * sizeof *pmf);
    pmf[0] = 1.0;
    size_t top = 0;
    for (unsigned k = 1; k < T; k++) {
        for (size_t w = top + k + 1; w-- > 0;) {
            double keep = w <= top ? pmf[w] * (1.0 - q) : 0.0;
            double add = w >= k && w - k <= top ? pmf[w - k] * q : 0.0;
            pmf[w] = keep + add;
        }
        top += k;
    }
}

/* DP-SGD with the noise off, C = 1, on rows x_i = s_i e_i with s_i the sign
 * of w_0's coordinate i (read from a run on x = 0 data, which leaves w_0 in
 * place) and y_i = -1: the ReLU gate x_i.w = |w_i| > 0 stays open, the
 * residual |w_i| + 1 > C is clipped to C, so each inclusion moves w_i by
 * exactly -s_i eta C / b and nothing else moves it.  The average of
 * w_0 .. w_{T-1} sees the inclusion at step t (T - 1 - t) times: W_i =
 * sum_t (T - 1 - t) B_{i,t} is read off the release, and under Poisson
 * sampling at q the B_{i,t} are i.i.d. Bernoulli(q): W_i has the law of
 * weighted_binomial, independently over i.  A fixed batch gives W in {0,
 * T(T-1)/2}; shuffled batches put every example once per epoch; and any
 * fixed batch size makes sum_i W_i = b T(T-1)/2 constant over runs, where
 * Poisson gives it variance n q (1 - q) sum k^2. */
START_TEST(relu_dpsgd_sampling_is_poisson)
{
    double t0 = now();
    const size_t n = 1000, b = 250, R = 20;
    dpt_glm_options o;
    dpt_glm_defaults(&o);
    o.algorithm = DPT_DP_SGD;
    o.noise_off = 1;
    o.clip = 1.0;
    o.init_scale = sqrt((double)n);      /* w_0 ~ N(0, I) */
    o.seed = 7;
    /* w_0: one step (q = 1) on x = 0 */
    dpt_dataset Z = zeros(n, n);
    o.batch_size = n;
    o.rng = test_rng(300);
    dpt_glm_result pilot = glm_run(&Z, &o);
    ck_assert_uint_eq(pilot.steps, 1);
    dpt_dataset_free(&Z);
    double *w0 = pilot.w, least = INFINITY;
    dpt_dataset D = zeros(n, n);
    for (size_t i = 0; i < n; i++) {
        least = fmin(least, fabs(w0[i]));
        D.x[i * n + i] = w0[i] > 0.0 ? 1.0 : -1.0;
        D.y[i] = -1.0;
    }
    ck_assert_double_gt(least, 1e-6);
    o.batch_size = b;
    o.epochs = 1;
    o.learning_rate = 1e-9 * (double)b;  /* a move of 1e-9 per inclusion: the gates stay open */
    o.rng = own_rng(301);
    double q = (double)b / (double)n, step = o.learning_rate * o.clip / (double)b;
    double pmf[64], obs[64] = { 0 }, sums[20];
    unsigned T = 0;
    for (size_t r = 0; r < R; r++) {
        dpt_glm_result res = glm_run(&D, &o);
        T = (unsigned)res.steps;
        ck_assert_uint_eq(T, 4);        /* ceil(E / q) */
        sums[r] = 0.0;
        for (size_t i = 0; i < n; i++) {
            double s = D.x[i * n + i];
            long W = count_of("weighted inclusions", s * (w0[i] - res.w[i]) * (double)T / step);
            ck_assert(W >= 0 && W <= (long)(T * (T - 1) / 2));
            obs[W] += 1.0;
            sums[r] += (double)W;
        }
        dpt_glm_result_free(&res);
    }
    size_t top = T * (T - 1) / 2;
    weighted_binomial(T, q, pmf, 64);
    multinomial_check("ReLU DP-SGD: weighted inclusion counts of 1000 examples x 20 runs vs Poisson(q = 1/4)", obs, pmf,
                      top + 1);
    double k1 = 0.0, k2 = 0.0;
    for (unsigned k = 1; k < T; k++) {
        k1 += k;
        k2 += (double)k * k;
    }
    spread_check("ReLU DP-SGD: the total of the weighted batch sizes over runs", sums, R, (double)n * q * k1,
                 (double)n * q * (1.0 - q) * k2);
    dpt_rng_free(o.rng);
    dpt_glm_result_free(&pilot);
    dpt_dataset_free(&D);
    took("relu_dpsgd_sampling_is_poisson", t0);
}
END_TEST

/* ---- classification: DP-SGD and NoisyCGD ---------------------------------------- */

static dpt_model *softmax2(size_t d)
{
    dpt_model_spec spec = { DPT_MODEL_SOFTMAX, 2, 1, 1, 1 };
    dpt_model *m = NULL;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_model_new(&spec, d, &m, &err), DPA_OK);
    return m;
}

static dpt_cls_result cls_run(const dpt_dataset *D, dpt_model *m, const dpt_cls_options *o)
{
    dpt_cls_result res;
    dpa_error err = { 0 };
    ck_assert_msg(dpt_cls_train(D, m, o, &res, &err) == DPA_OK, "%s", err.message);
    return res;
}

/* DP-SGD (seed 001, Abadi et al.): N(0, (sigma C)^2) on the sum of the
 * clipped gradients, divided by b: sigma C / b on the mean.  With x = 0
 * the softmax weights' gradients (p - e_y) x^T are 0 (the biases' are
 * not, so only the 2 d weights are measured), no regulariser: the final
 * weights are -(eta / b) times the sum of T noise draws, variance
 * T (eta sigma C / b)^2. */
START_TEST(cls_dpsgd_noise_matches_report)
{
    double t0 = now();
    const size_t n = 10, d = 5000;
    dpt_dataset D = zeros(n, d);
    dpt_model *m = softmax2(d);
    dpt_cls_options o;
    dpt_cls_defaults(&o);
    o.algorithm = DPT_CLS_DP_SGD;
    o.noise_multiplier = 2.0;
    o.clip = 0.5;
    o.batch_size = 5;
    o.epochs = 2;
    o.learning_rate = 0.1;
    o.rng = test_rng(401);
    dpt_cls_result r = cls_run(&D, m, &o);
    ck_assert_uint_eq(r.steps, 4);       /* ceil(E n / b) */
    double s = o.learning_rate * r.noise_multiplier * o.clip / (double)o.batch_size;
    double V = (double)r.steps * s * s;
    const double *th = dpt_model_params(m);
    gauss_acc a = { 0 };
    for (size_t j = 0; j < 2 * d; j++) gauss_add(&a, th[j], V);
    printf("classification DP-SGD: reported sigma %.4g, C %.3g, b %zu, %llu steps: claimed variance %.6g\n",
           r.noise_multiplier, o.clip, o.batch_size, (unsigned long long)r.steps, V);
    gauss_check("classification DP-SGD noise (x = 0, softmax weights)", &a);
    dpt_model_free(m);
    dpt_dataset_free(&D);
    took("cls_dpsgd_noise_matches_report", t0);
}
END_TEST

/* NoisyCGD (seed 001, Bok et al.): theta <- theta - eta (mean clipped
 * gradient + lambda theta + N(0, (sigma C / b)^2)), a private run with the
 * smoothness given and the rows scaled to it.  With x = 0 the weights see
 * only the regulariser and the noise: after T steps from 0, variance
 * (eta sigma C / b)^2 (1 - rho^(2T)) / (1 - rho^2), rho = 1 - eta lambda,
 * lambda the reported one. */
START_TEST(ncgd_noise_matches_report)
{
    double t0 = now();
    const size_t n = 10, d = 5000;
    dpt_dataset D = zeros(n, d);
    dpt_model *m = softmax2(d);
    dpt_cls_options o;
    dpt_cls_defaults(&o);
    o.algorithm = DPT_CLS_NOISY_CGD;
    o.noise_multiplier = 2.0;
    o.clip = 0.5;
    o.batch_size = 5;
    o.epochs = 2;
    o.learning_rate = 0.5;
    o.l2 = 0.1;
    o.smoothness = 1.0;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_model_bound_smoothness(m, &D, o.smoothness, &err), DPA_OK);
    o.rng = test_rng(402);
    dpt_cls_result r = cls_run(&D, m, &o);
    ck_assert_uint_eq(r.steps, o.epochs * (n / o.batch_size));
    double s = o.learning_rate * r.noise_multiplier * o.clip / (double)o.batch_size, rho = 1.0 - o.learning_rate * r.l2;
    double V = s * s * (1.0 - pow(rho, 2.0 * (double)r.steps)) / (1.0 - rho * rho);
    const double *th = dpt_model_params(m);
    gauss_acc a = { 0 };
    for (size_t j = 0; j < 2 * d; j++) gauss_add(&a, th[j], V);
    printf("NoisyCGD: reported sigma %.4g, lambda %.4g, mu %.4g; C %.3g, b %zu, %llu steps: claimed variance %.6g\n",
           r.noise_multiplier, r.l2, r.mu, o.clip, o.batch_size, (unsigned long long)r.steps, V);
    gauss_check("NoisyCGD noise (x = 0, softmax weights)", &a);
    dpt_model_free(m);
    dpt_dataset_free(&D);
    took("ncgd_noise_matches_report", t0);
}
END_TEST

/* Classification with one-hot rows x_i = e_i, labels 0, two classes, clip
 * C = 1/2, the noise off: example i's clipped gradient has weight (0, i)
 * equal to -C/2 exactly whatever the model (p - e_0 = (-p_1, p_1), the
 * gradient's norm 2 p_1 > C is clipped), and no other example touches
 * weight (0, i): each inclusion adds eta C / (2b) to it (up to the
 * regulariser's shrinking, eta lambda T ~ 1e-12 here).  So the final
 * weight counts example i's inclusions. */
static void cls_counts(const dpt_dataset *D, dpt_cls_options *o, long *counts, uint64_t *steps)
{
    size_t n = D->n;
    dpt_model *m = softmax2(n);
    dpt_cls_result r = cls_run(D, m, o);
    *steps = r.steps;
    const double *th = dpt_model_params(m);
    double step = o->learning_rate * o->clip / (2.0 * (double)o->batch_size);
    for (size_t i = 0; i < n; i++) counts[i] = count_of("inclusions", th[i] / step);
    dpt_model_free(m);
}

/* DP-SGD samples each example at each of the T steps independently with
 * probability q = b / n: the counts are i.i.d. Binomial(T, q); and their
 * total, the sum of the batch sizes, is Binomial(n T, q), which a fixed
 * batch size makes constant. */
START_TEST(cls_dpsgd_sampling_is_poisson)
{
    double t0 = now();
    const size_t n = 400, b = 40, R = 25;
    dpt_dataset D = one_hot(n, 0.0);
    dpt_cls_options o;
    dpt_cls_defaults(&o);
    o.algorithm = DPT_CLS_DP_SGD;
    o.noise_off = 1;
    o.clip = 0.5;
    o.batch_size = b;
    o.epochs = 2;
    o.learning_rate = 1e-6;
    o.rng = own_rng(403);
    double q = (double)b / (double)n, obs[7] = { 0 }, p[7], sums[25];
    long *c = malloc(n * sizeof *c);
    uint64_t T = 0;
    for (size_t r = 0; r < R; r++) {
        cls_counts(&D, &o, c, &T);
        ck_assert_uint_eq(T, 20);        /* ceil(E n / b) */
        sums[r] = 0.0;
        for (size_t i = 0; i < n; i++) {
            ck_assert(c[i] >= 0 && c[i] <= (long)T);
            obs[c[i] < 6 ? c[i] : 6] += 1.0;
            sums[r] += (double)c[i];
        }
    }
    double tail = 1.0;
    for (int k = 0; k < 6; k++) {
        p[k] = gsl_ran_binomial_pdf((unsigned)k, q, (unsigned)T);
        tail -= p[k];
    }
    p[6] = tail;
    multinomial_check("classification DP-SGD: inclusion counts of 400 examples x 25 runs vs Binomial(20, 1/10)", obs, p,
                      7);
    spread_check("classification DP-SGD: the total batch size over runs", sums, R, (double)(n * T) * q,
                 (double)(n * T) * q * (1.0 - q));
    free(c);
    dpt_rng_free(o.rng);
    dpt_dataset_free(&D);
    took("cls_dpsgd_sampling_is_poisson", t0);
}
END_TEST

/* NoisyCGD's batches are the fixed, disjoint [j b, (j + 1) b), each used
 * once per epoch (the hidden-state bound's cyclic pass): with one-hot rows
 * and the noise off, example i is used E times when i < floor(n/b) b, and
 * never otherwise. */
START_TEST(ncgd_batches_are_fixed)
{
    double t0 = now();
    const size_t n = 23, b = 5;
    dpt_dataset D = one_hot(n, 0.0);
    dpt_cls_options o;
    dpt_cls_defaults(&o);
    o.algorithm = DPT_CLS_NOISY_CGD;
    o.noise_off = 1;
    o.clip = 0.5;
    o.batch_size = b;
    o.epochs = 3;
    o.learning_rate = 1e-6;
    o.l2 = 1e-6;
    o.rng = test_rng(404);
    long c[23];
    uint64_t T;
    cls_counts(&D, &o, c, &T);
    ck_assert_uint_eq(T, 12);
    for (size_t i = 0; i < n; i++) ck_assert_int_eq(c[i], i < 20 ? 3 : 0);
    printf("NoisyCGD: examples 0..19 used 3 times each, 20..22 never\n");
    dpt_dataset_free(&D);
    took("ncgd_batches_are_fixed", t0);
}
END_TEST

/* ---- NTK regression ---------------------------------------------------------------- */

/* One training row x = e_1 in R^p with label 1 (two classes) and an NTK
 * of one neuron (seeded by `seed`), beta 1e-6, its noise from a generator
 * of its own (`rng_seed`; the caller frees o->rng). */
static dpt_dataset ntk_one_row(size_t p, dpt_ntk_options *o, unsigned long seed, uint64_t rng_seed)
{
    dpt_dataset D = zeros(1, p);
    D.x[0] = 1.0;
    D.y[0] = 1.0;
    dpt_ntk_defaults(o);
    o->width = 1;
    o->beta = 1e-6;
    o->seed = seed;
    o->rng = own_rng(rng_seed);
    return D;
}

/* One training row x = e_1 (label 1, two classes), one neuron w: K(a, z) =
 * <a, z> (w.a)(w.z), so the class-1 score of the query e_j is alpha z_j
 * w_j (w.z), z = e_1 + Z the noisy row and alpha = 1/Ktilde.  Dividing by
 * w_j and by the score of e_1 leaves Z_j / (1 + Z_1), i.e. Z_j to a relative
 * A = 12 b ~ 1.2e-4 (|Z_1| <= A), for j = 2..p.  Z is claimed to be truncated
 * Laplace of scale sqrt(p) beta / eps_features (sensitivity over eps, the
 * header's step 3) on [-A, A], A the reported tlap_bound. */
START_TEST(ntk_feature_noise_matches_report)
{
    double t0 = now();
    const size_t p = 101, R = 100;
    dpt_ntk_options o;
    dpt_dataset D = ntk_one_row(p, &o, 5, 501);
    double *w = malloc(p * sizeof *w), *queries = calloc(p * p, sizeof *queries), *scores = malloc(2 * p * sizeof *scores);
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_ntk_neurons(1, p, o.weight_std, o.seed, w, &err), DPA_OK);
    for (size_t j = 0; j < p; j++) queries[j * p + j] = 1.0;
    exp_acc a = { 0 };
    double b = sqrt((double)p) * o.beta / o.epsilon_features, A = 0.0, largest = 0.0;
    for (size_t r = 0; r < R; r++) {
        dpt_ntk_model *model;
        dpt_ntk_result res;
        ck_assert_msg(dpt_ntk_train(&D, &o, &model, &res, &err) == DPA_OK, "%s", err.message);
        A = res.tlap_bound;
        ck_assert_int_eq(dpt_ntk_scores(model, queries, p, scores, &err), DPA_OK);
        double v1 = scores[0 * 2 + 1] / w[0];
        for (size_t j = 1; j < p; j++) {
            double z = scores[j * 2 + 1] / w[j] / v1;
            largest = fmax(largest, fabs(z));
            tlaplace_add(&a, z, b, A);
        }
        dpt_ntk_free(model);
    }
    /* the bound A = b ln(1 + (e^eps - 1) / (2 delta)) (Geng et al. 2020) */
    double want_A = b * log1p(expm1(o.epsilon_features) / (2.0 * o.delta_features));
    printf("NTK features: b = sqrt(p) beta / eps = %.6g, reported A = %.6g (%.6g b; formula %.6g), largest |Z| %.6g\n", b,
           A, A / b, want_A, largest);
    ck_assert_double_le(fabs(A - want_A), 1e-6 * want_A);
    ck_assert_double_le(largest, A * (1.0 + 1e-3));
    exp_check("NTK feature noise, truncated Laplace", &a);
    dpt_rng_free(o.rng);
    free(w);
    free(queries);
    free(scores);
    dpt_dataset_free(&D);
    took("ntk_feature_noise_matches_report", t0);
}
END_TEST

/* A binned probability integral transform: 20 equal cells of [0, 1]. */
typedef struct {
    double cell[20];
} pit;

static void pit_add(pit *h, double u)
{
    int c = (int)floor(u * 20.0);
    h->cell[c < 0 ? 0 : c > 19 ? 19 : c] += 1.0;
}

static void pit_check(const char *what, const pit *h)
{
    double p[20];
    for (int c = 0; c < 20; c++) p[c] = 1.0 / 20.0;
    multinomial_check(what, h->cell, p, 20);
}

/* dpt_gsm_sample draws (1/k) G G^T, the columns of G i.i.d. N(0, Sigma):
 * for any v, k v' S v / v' Sigma v ~ chi2(k) exactly, whose transform by
 * the chi2(k) CDF is uniform.  The v = e_i give E[S_ii] = Sigma_ii and
 * Var(S_ii) = 2 Sigma_ii^2 / k, the v = e_i +- e_j the off-diagonal entries:
 * E[S_ij] = Sigma_ij and Var(S_ij) = (Sigma_ii Sigma_jj + Sigma_ij^2) / k,
 * printed and held to 35% besides (the sample variance of 4000 draws has a
 * relative standard error of 4.0% at k = 2, where S_ij's kurtosis is 7.3,
 * and 2.8% at k = 7: 8.8 and 12 standard errors).  Both samplers:
 * Bartlett's (k >= n) and explicit samples (k < n). */
START_TEST(gsm_sample_is_wishart)
{
    double t0 = now();
    const size_t n = 3, R = 4000;
    const double sigma[9] = { 2.0, 0.5, 0.3, 0.5, 1.0, -0.2, 0.3, -0.2, 1.5 };
    const double vs[4][3] = { { 1, 0, 0 }, { 0, 0, 1 }, { 1, 1, 0 }, { 0, 1, -1 } };
    const uint64_t ks[2] = { 7, 2 };
    dpt_rng *rng = own_rng(502);
    dpa_error err = { 0 };
    for (int kk = 0; kk < 2; kk++) {
        uint64_t k = ks[kk];
        pit h[4];
        memset(h, 0, sizeof h);
        double s01 = 0.0, s01sq = 0.0, out[9];
        for (size_t r = 0; r < R; r++) {
            ck_assert_int_eq(dpt_gsm_sample(sigma, n, k, rng, out, &err), DPA_OK);
            for (int v = 0; v < 4; v++) {
                double num = 0.0, den = 0.0;
                for (size_t i = 0; i < n; i++)
                    for (size_t j = 0; j < n; j++) {
                        num += vs[v][i] * out[i * n + j] * vs[v][j];
                        den += vs[v][i] * sigma[i * n + j] * vs[v][j];
                    }
                pit_add(&h[v], gsl_cdf_chisq_P((double)k * num / den, (double)k));
            }
            s01 += out[1];
            s01sq += out[1] * out[1];
        }
        for (int v = 0; v < 4; v++) {
            char what[120];
            snprintf(what, sizeof what, "GSM k = %llu, v = (%g, %g, %g): k v'S v / v'Sigma v vs chi2(k)",
                     (unsigned long long)k, vs[v][0], vs[v][1], vs[v][2]);
            pit_check(what, &h[v]);
        }
        double mean = s01 / (double)R, var = (s01sq - (double)R * mean * mean) / (double)(R - 1);
        double want = (sigma[0] * sigma[4] + sigma[1] * sigma[1]) / (double)k;
        printf("GSM k = %llu: E[S_01] %.4f (Sigma_01 %.4f), Var(S_01) k / (Sigma_00 Sigma_11 + Sigma_01^2) = %.4f\n",
               (unsigned long long)k, mean, sigma[1], var / want);
        ck_assert_double_le(fabs(var / want - 1.0), 0.35);
    }
    dpt_rng_free(rng);
    took("gsm_sample_is_wishart", t0);
}
END_TEST

/* Through the trainer: one row x = e_1, one neuron w, the feature noise off
 * (so the model's row is x itself): the class-1 score of x is K(x, x) /
 * Ktilde, K(x, x) = w_1^2 computed here, so Ktilde is read off the
 * release, and k Ktilde / K_lambda ~ chi2(k) for the reported k, K_lambda =
 * w_1^2 + lambda. */
START_TEST(ntk_gsm_matches_reported_k)
{
    double t0 = now();
    const size_t p = 5, R = 1000;
    dpt_ntk_options o;
    dpt_dataset D = ntk_one_row(p, &o, 6, 503);
    o.samples = 4;
    o.features_noise_off = 1;
    double w[5], scores[2];
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_ntk_neurons(1, p, o.weight_std, o.seed, w, &err), DPA_OK);
    double K = w[0] * w[0], Kl = K + o.ridge;
    pit h;
    memset(&h, 0, sizeof h);
    uint64_t k = 0;
    for (size_t r = 0; r < R; r++) {
        dpt_ntk_model *model;
        dpt_ntk_result res;
        ck_assert_msg(dpt_ntk_train(&D, &o, &model, &res, &err) == DPA_OK, "%s", err.message);
        k = res.samples;
        ck_assert_int_eq(dpt_ntk_scores(model, D.x, 1, scores, &err), DPA_OK);
        double Ktilde = K / scores[1];
        pit_add(&h, gsl_cdf_chisq_P((double)k * Ktilde / Kl, (double)k));
        dpt_ntk_free(model);
    }
    ck_assert_uint_eq(k, o.samples);
    pit_check("NTK trainer: k Ktilde / K_lambda vs chi2(reported k = 4)", &h);
    dpt_rng_free(o.rng);
    dpt_dataset_free(&D);
    took("ntk_gsm_matches_reported_k", t0);
}
END_TEST

/* ---- sparse mean ------------------------------------------------------------------- */

static double Phi(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

/* delta(eps) of the Gaussian mechanism of sensitivity Delta and std sigma
 * (Balle & Wang 2018, Thm 8). */
static double gauss_delta(double Delta, double sigma, double eps)
{
    double s = sigma / Delta;
    return Phi(0.5 / s - eps * s) - exp(eps) * Phi(-0.5 / s - eps * s);
}

static dpt_mean_result mean_run(const dpt_dataset *D, const dpt_mean_options *o, double *est)
{
    dpt_mean_result res;
    dpa_error err = { 0 };
    ck_assert_msg(dpt_sparse_mean(D, o, est, &res, &err) == DPA_OK, "%s", err.message);
    return res;
}

/* n identical rows z (1 nonzero, norm L): the mean is z (computed here as
 * the trainer does, a sum then a division, so exactly).  Dense baseline:
 * the estimate minus z is the noise, Laplace of the reported scale b for
 * delta = 0 (b = 2 L sqrt(s) / (n eps)), Gaussian of the reported sigma
 * otherwise (sensitivity 2L/n, and sigma must meet (eps, delta)).  ME-1
 * (projection): zero rows and eps large enough that the noisy mean stays
 * inside the l1 ball of radius L sqrt(s), where the projection is the
 * identity (checked), so the estimate is the noise itself. */
START_TEST(sparse_mean_noise_matches_report)
{
    double t0 = now();
    const size_t n = 100, d = 10000, s = 5;
    const double L = 1.0;
    dpt_dataset Z = zeros(n, d), D = zeros(n, d);
    for (size_t i = 0; i < n; i++) D.x[i * d + 17] = L;
    double zbar = 0.0;
    for (size_t i = 0; i < n; i++) zbar += L;
    zbar /= (double)n;
    double *est = malloc(d * sizeof *est);
    for (int method = 0; method < 2; method++)
        for (int gaussian = 0; gaussian < 2; gaussian++) {
            dpt_mean_options o;
            dpt_mean_defaults(&o);
            o.method = method ? DPT_MEAN_PROJECTION : DPT_MEAN_DENSE;
            o.sparsity = s;
            o.norm = L;
            o.epsilon = method ? 20000.0 : 1.0;
            o.delta = gaussian ? 1e-5 : 0.0;
            o.rng = test_rng(600 + (uint64_t)(2 * method + gaussian));
            const dpt_dataset *data = method ? &Z : &D;
            dpt_mean_result r = mean_run(data, &o, est);
            double l1 = 0.0;
            for (size_t j = 0; j < d; j++) l1 += fabs(est[j]);
            if (method) ck_assert_double_lt(l1, L * sqrt((double)s));   /* the projection did nothing */
            double Lr = L * (1.0 + 1e-12);                            /* the trainer's slack on L */
            char what[160];
            if (!gaussian) {
                /* at least the formula's b (a slack may only add noise) */
                double want = 2.0 * Lr * sqrt((double)s) / (double)n / o.epsilon;
                ck_assert_double_ge(r.noise_scale, want * (1.0 - 1e-12));
                ck_assert_double_le(r.noise_scale, want * (1.0 + 1e-6));
                exp_acc a = { 0 };
                for (size_t j = 0; j < d; j++) laplace_add(&a, est[j] - (j == 17 && !method ? zbar : 0.0), r.noise_scale);
                snprintf(what, sizeof what, "sparse mean %s, Laplace b = %.4g (reported)", method ? "ME-1" : "dense",
                         r.noise_scale);
                exp_check(what, &a);
            } else {
                double Delta = 2.0 * Lr / (double)n;
                if (!method) {
                    double dl = gauss_delta(Delta, r.noise_scale, o.epsilon);
                    printf("sparse mean dense: sigma %.6g for Delta %.6g meets delta(eps) = %.4g <= %.1g\n",
                           r.noise_scale, Delta, dl, o.delta);
                    ck_assert_double_le(dl, o.delta * (1.0 + 1e-9));
                }
                ck_assert_double_ge(r.sensitivity, Delta * (1.0 - 1e-12));
                ck_assert_double_le(r.sensitivity, Delta * (1.0 + 1e-6));
                gauss_acc a = { 0 };
                for (size_t j = 0; j < d; j++)
                    gauss_add(&a, est[j] - (j == 17 && !method ? zbar : 0.0), r.noise_scale * r.noise_scale);
                snprintf(what, sizeof what, "sparse mean %s, Gaussian sigma = %.4g (reported)", method ? "ME-1" : "dense",
                         r.noise_scale);
                gauss_check(what, &a);
            }
        }
    free(est);
    dpt_dataset_free(&Z);
    dpt_dataset_free(&D);
    took("sparse_mean_noise_matches_report", t0);
}
END_TEST

/* ME-2: b = A zbar + N(0, sigma^2 I_m), then basis pursuit, whose solution
 * satisfies A zhat = b: with A regenerated here as the header documents
 * (m d draws of gsl_ran_gaussian(mt19937 seeded with the seed, 1/sqrt m),
 * row-major), A zhat - A zbar is the noise of the m measurements.  Identical
 * rows z (2 nonzeros, norm L); sigma the reported one. */
START_TEST(sparse_mean_compressed_noise_matches_report)
{
    double t0 = now();
    const size_t n = 20, d = 90, s = 2, m = 60, R = 170;
    const double L = 1.0;
    dpt_dataset D = zeros(n, d);
    for (size_t i = 0; i < n; i++) {
        D.x[i * d + 3] = 0.6 * L;
        D.x[i * d + 50] = -0.8 * L;
    }
    double *zbar = calloc(d, sizeof *zbar), *A = malloc(m * d * sizeof *A), *est = malloc(d * sizeof *est);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) zbar[j] += D.x[i * d + j];
    for (size_t j = 0; j < d; j++) zbar[j] /= (double)n;
    dpt_mean_options o;
    dpt_mean_defaults(&o);
    o.method = DPT_MEAN_COMPRESSED;
    o.sparsity = s;
    o.norm = L;
    o.epsilon = 1.0;
    o.delta = 1e-5;
    o.measurements = m;
    o.seed = 9;
    o.rng = own_rng(610);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, o.seed);
    for (size_t k = 0; k < m * d; k++) A[k] = gsl_ran_gaussian(g, 1.0 / sqrt((double)m));
    gsl_rng_free(g);
    gauss_acc a = { 0 };
    double sigma = 0.0;
    for (size_t r = 0; r < R; r++) {
        dpt_mean_result res = mean_run(&D, &o, est);
        ck_assert_uint_eq(res.measurements, m);
        sigma = res.noise_scale;
        for (size_t i = 0; i < m; i++) {
            double az = 0.0, ae = 0.0;
            for (size_t j = 0; j < d; j++) {
                az += A[i * d + j] * zbar[j];
                ae += A[i * d + j] * est[j];
            }
            gauss_add(&a, ae - az, sigma * sigma);
        }
    }
    printf("ME-2: reported sigma %.6g, m = %zu\n", sigma, m);
    gauss_check("sparse mean ME-2, Gaussian on the measurements", &a);
    dpt_rng_free(o.rng);
    free(zbar);
    free(A);
    free(est);
    dpt_dataset_free(&D);
    took("sparse_mean_compressed_noise_matches_report", t0);
}
END_TEST

/* ---- sparse ERM ---------------------------------------------------------------------- */

/* Output perturbation: the noise-off run gives the exact minimiser w*, the
 * private dense run (project 0) on the same data releases w* + noise:
 * Laplace of the reported b for delta = 0, Gaussian of the reported sigma
 * otherwise (sigma must meet (eps, delta) for the l2 sensitivity
 * 2L/(lambda n); b = Delta_1 / eps for the note's Delta_1 = 2 sqrt(2s) L
 * (H/lambda + 1) / (lambda n), H = L^2/4). */
START_TEST(sparse_erm_noise_matches_report)
{
    double t0 = now();
    const size_t n = 40, d = 10000, s = 3;
    const double L = 1.0;
    dpt_dataset D = zeros(n, d);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 11);
    for (size_t i = 0; i < n; i++) {
        double ss = 0.0;
        for (size_t k = 0; k < s; k++) {
            size_t j = (size_t)gsl_rng_uniform_int(g, 50);
            D.x[i * d + j] = gsl_ran_gaussian(g, 1.0);
        }
        for (size_t j = 0; j < d; j++) ss += D.x[i * d + j] * D.x[i * d + j];
        for (size_t j = 0; j < d; j++) D.x[i * d + j] *= L / sqrt(ss) * (1.0 - 1e-15);
        D.y[i] = gsl_rng_uniform(g) < 0.5 ? 1.0 : -1.0;
    }
    gsl_rng_free(g);
    dpt_sparse_erm_options o;
    dpt_sparse_erm_defaults(&o);
    o.lambda = 0.1;
    o.sparsity = s;
    o.norm = L;
    o.project = 0;
    o.noise_off = 1;
    double *wopt = malloc(d * sizeof *wopt), *w = malloc(d * sizeof *w);
    dpt_sparse_erm_result r;
    dpa_error err = { 0 };
    ck_assert_msg(dpt_sparse_erm(&D, &o, wopt, &r, &err) == DPA_OK, "%s", err.message);
    o.noise_off = 0;
    for (int gaussian = 0; gaussian < 2; gaussian++) {
        o.delta = gaussian ? 1e-5 : 0.0;
        o.epsilon = 1.0;
        o.rng = test_rng(700 + (uint64_t)gaussian);
        ck_assert_msg(dpt_sparse_erm(&D, &o, w, &r, &err) == DPA_OK, "%s", err.message);
        char what[160];
        if (!gaussian) {
            double H = L * L / 4.0;
            double want = 2.0 * sqrt(2.0 * (double)s) * L * (H / o.lambda + 1.0) / (o.lambda * (double)n) / o.epsilon;
            /* at least the note's b (a solver slack may only add noise) */
            ck_assert_double_ge(r.noise_scale, want * (1.0 - 1e-12));
            ck_assert_double_le(r.noise_scale, want * (1.0 + 1e-6));
            exp_acc a = { 0 };
            for (size_t j = 0; j < d; j++) laplace_add(&a, w[j] - wopt[j], r.noise_scale);
            snprintf(what, sizeof what, "sparse ERM output perturbation, Laplace b = %.4g (reported)", r.noise_scale);
            exp_check(what, &a);
        } else {
            double Delta = 2.0 * L / (o.lambda * (double)n), dl = gauss_delta(Delta, r.noise_scale, o.epsilon);
            printf("sparse ERM: sigma %.6g for Delta %.6g meets delta(eps) = %.4g <= %.1g\n", r.noise_scale, Delta, dl,
                   o.delta);
            ck_assert_double_le(dl, o.delta * (1.0 + 1e-9));
            gauss_acc a = { 0 };
            for (size_t j = 0; j < d; j++) gauss_add(&a, w[j] - wopt[j], r.noise_scale * r.noise_scale);
            snprintf(what, sizeof what, "sparse ERM output perturbation, Gaussian sigma = %.4g (reported)",
                     r.noise_scale);
            gauss_check(what, &a);
        }
    }
    free(wopt);
    free(w);
    dpt_dataset_free(&D);
    took("sparse_erm_noise_matches_report", t0);
}
END_TEST

/* ---- sparse SGD ---------------------------------------------------------------------- */

/* Rows x = L e_0, labels +-1: every gradient is a multiple of e_0, so the
 * coordinates 1..d-1 of any gradient mean are 0 and only noise reaches
 * them.  s = d makes the l1 ball of radius L sqrt(d) of the bias-reduced
 * estimator's projections so large (sigma0 sqrt(2/pi) d << L sqrt(d)) that
 * no projection is active. */
static dpt_dataset e0_rows(size_t n, size_t d, double L)
{
    dpt_dataset D = zeros(n, d);
    for (size_t i = 0; i < n; i++) {
        D.x[i * d] = L;
        D.y[i] = i % 2 ? 1.0 : -1.0;
    }
    return D;
}

/* dpt_sparse_sgd_oracle_mean: D draws of the noisy gradient oracle; the
 * per-coordinate sample variance over the draws is sigma^2 chi2(D - 1) /
 * (D - 1), independently over the coordinates 1..d-1, with
 *   dense:          sigma^2 = sigma0^2 (opt.noise on the batch mean);
 *   bias-reduced:   G = (G_B - (G_O + G_E)/2) / p_N + G_i, each G_* with
 *                   its own N(0, sigma0^2): sigma^2 = sigma0^2 (1.5 / p_N^2
 *                   + 1); with n = 2 there is one level, p_0 = 1, so 2.5
 *                   sigma0^2.
 * The means are N(0, sigma^2 / D) there too. */
START_TEST(sparse_sgd_oracle_noise_matches_the_claim)
{
    double t0 = now();
    const size_t d = 2000;
    const uint64_t draws = 6;
    double *w = calloc(d, sizeof *w), *mean = malloc(d * sizeof *mean), *sd = malloc(d * sizeof *sd);
    for (int dense = 0; dense < 2; dense++) {
        size_t n = dense ? 16 : 2;
        dpt_dataset D = e0_rows(n, d, 1.0);
        dpt_sparse_sgd_options o;
        dpt_sparse_sgd_defaults(&o);
        o.dense = dense;
        o.batch_size = 4;
        o.sparsity = d;
        o.norm = 1.0;
        o.noise = dense ? 0.5 : 0.002;
        o.rng = test_rng(800 + (uint64_t)dense);
        dpa_error err = { 0 };
        ck_assert_msg(dpt_sparse_sgd_oracle_mean(&D, &o, w, draws, mean, sd, &err) == DPA_OK, "%s", err.message);
        double var = o.noise * o.noise * (dense ? 1.0 : 2.5);
        gauss_acc a = { 0 }, b = { 0 };
        for (size_t j = 1; j < d; j++) {
            a.stat += (double)(draws - 1) * sd[j] * sd[j] / var;
            a.dof += (double)(draws - 1);
            gauss_add(&b, mean[j], var / (double)draws);
        }
        char what[160];
        snprintf(what, sizeof what, "sparse SGD oracle (%s), per-coordinate variance over %llu draws vs %s",
                 dense ? "dense" : "bias-reduced, one level", (unsigned long long)draws,
                 dense ? "sigma0^2" : "2.5 sigma0^2");
        gauss_check(what, &a);
        snprintf(what, sizeof what, "sparse SGD oracle (%s), the means", dense ? "dense" : "bias-reduced, one level");
        gauss_check(what, &b);
        dpt_dataset_free(&D);
    }
    free(w);
    free(mean);
    free(sd);
    took("sparse_sgd_oracle_noise_matches_the_claim", t0);
}
END_TEST

typedef struct {
    size_t count, refused;
    unsigned level[64];
    double mu[64];
    double freq[16];
} steps_seen;

static void seen_step(void *ctx, uint64_t t, unsigned level, double mu_t, int admitted)
{
    steps_seen *s = ctx;
    ck_assert_uint_eq(t, s->count + s->refused + 1);
    if (!admitted) {
        s->refused++;
        return;
    }
    if (s->count < 64) {
        s->level[s->count] = level;
        s->mu[s->count] = mu_t;
    }
    if (level < 16) s->freq[level] += 1.0;
    s->count++;
}

/* The trainer itself: rows L e_0, lambda 0, no radius, w_0 = 0, T admitted
 * steps: the release is the average of w_1 .. w_T, w_t = -eta sum_{u<=t}
 * G_u, so coordinate j >= 1 is -(eta / T) sum_u (T - u + 1) G_{u,j}, and
 * given the levels N_u reported by on_step, G_{u,j} ~ N(0, sigma0^2 (1.5 /
 * p_{N_u}^2 + 1)) with p_k = 2^-k / sum_{i<K} 2^-i, K = log2 of the
 * largest power of 2 <= n (dense: N(0, sigma0^2)): an exact chi2(d - 1)
 * given the levels.  The reported mu_t must be the header's for the level
 * (mu_t^2 = mu_{2^(N+1)}^2 + mu_{2^N}^2 + mu_1^2, mu_b = 2L / (b sigma0);
 * dense 2L / (b sigma0)), and mu_spent their root sum of squares.  eps is
 * huge because the projections must stay inactive (sigma0 << L / sqrt d). */
START_TEST(sparse_sgd_noise_given_levels)
{
    double t0 = now();
    const size_t n = 16, d = 10000;
    const unsigned K = 4;
    const double L = 1.0;
    dpt_dataset D = e0_rows(n, d, L);
    double *w = malloc(d * sizeof *w);
    for (int dense = 0; dense < 2; dense++) {
        dpt_sparse_sgd_options o;
        dpt_sparse_sgd_defaults(&o);
        o.dense = dense;
        o.batch_size = 4;
        o.sparsity = d;
        o.norm = L;
        o.noise = 0.002;
        o.epsilon = 1e8;
        o.delta = 1e-5;
        o.learning_rate = 1.0;
        o.max_steps = 12;
        o.rng = test_rng(810 + (uint64_t)dense);
        steps_seen seen;
        memset(&seen, 0, sizeof seen);
        o.on_step = seen_step;
        o.on_step_ctx = &seen;
        memset(w, 0, d * sizeof *w);
        dpt_sparse_sgd_result res;
        dpa_error err = { 0 };
        ck_assert_msg(dpt_sparse_sgd(&D, &o, w, &res, &err) == DPA_OK, "%s", err.message);
        ck_assert_uint_eq(res.steps, o.max_steps);
        ck_assert_uint_eq(seen.count, res.steps);
        double z = 0.0, T = (double)res.steps, sum = 0.0, mu2 = 0.0;
        for (unsigned k = 0; k < K; k++) z += pow(2.0, -(double)k);
        for (size_t u = 0; u < seen.count; u++) {
            unsigned N = seen.level[u];
            double c, mu;
            if (dense) {
                ck_assert_uint_eq(N, 0);
                c = 1.0;
                mu = 2.0 * L / ((double)o.batch_size * o.noise);
            } else {
                ck_assert_uint_lt(N, K);
                double pN = pow(2.0, -(double)N) / z, m1 = 2.0 * L / o.noise;
                c = 1.5 / (pN * pN) + 1.0;
                mu = sqrt(pow(m1 / pow(2.0, N + 1.0), 2.0) + pow(m1 / pow(2.0, N), 2.0) + m1 * m1);
            }
            ck_assert_msg(fabs(seen.mu[u] - mu) <= 1e-12 * mu, "step %zu: mu_t %.17g, the level's %.17g", u + 1,
                          seen.mu[u], mu);
            mu2 += mu * mu;
            double wt = (T - (double)u) / T;   /* step u + 1 reaches T - u of the averaged iterates */
            sum += wt * wt * c;
        }
        ck_assert_double_le(fabs(res.mu_spent - sqrt(mu2)), 1e-9 * sqrt(mu2));
        double V = o.learning_rate * o.learning_rate * o.noise * o.noise * sum;
        gauss_acc a = { 0 };
        for (size_t j = 1; j < d; j++) gauss_add(&a, w[j], V);
        char what[160];
        snprintf(what, sizeof what, "sparse SGD (%s), the release given the reported levels",
                 dense ? "dense" : "bias-reduced");
        gauss_check(what, &a);
    }
    free(w);
    dpt_dataset_free(&D);
    took("sparse_sgd_noise_given_levels", t0);
}
END_TEST

/* The levels the bias-reduced SGD reports through on_step (and charges,
 * and draws its batch size from): P[N = k] = 2^-k / sum_{i<K} 2^-i on
 * k = 0..K-1, K = 6 for n = 64. */
START_TEST(sparse_sgd_levels_are_truncated_geometric)
{
    double t0 = now();
    const size_t n = 64, d = 2;
    const unsigned K = 6;
    dpt_dataset D = e0_rows(n, d, 1.0);
    dpt_sparse_sgd_options o;
    dpt_sparse_sgd_defaults(&o);
    o.sparsity = 1;
    o.norm = 1.0;
    o.noise = 2000.0;        /* mu_t ~ 1e-3: the filter admits ~60000 steps at eps 1 */
    o.epsilon = 1.0;
    o.max_steps = 20000;
    o.rng = test_rng(820);
    steps_seen seen;
    memset(&seen, 0, sizeof seen);
    o.on_step = seen_step;
    o.on_step_ctx = &seen;
    double w[2] = { 0, 0 };
    dpt_sparse_sgd_result res;
    dpa_error err = { 0 };
    ck_assert_msg(dpt_sparse_sgd(&D, &o, w, &res, &err) == DPA_OK, "%s", err.message);
    ck_assert_uint_eq(res.steps, o.max_steps);
    double p[6], z = 0.0, total = 0.0;
    for (unsigned k = 0; k < K; k++) z += pow(2.0, -(double)k);
    for (unsigned k = 0; k < K; k++) p[k] = pow(2.0, -(double)k) / z;
    for (unsigned k = 0; k < 16; k++) total += seen.freq[k];
    ck_assert_double_eq(total, (double)res.steps);
    for (unsigned k = K; k < 16; k++) ck_assert_double_eq(seen.freq[k], 0.0);
    multinomial_check("sparse SGD: the levels of 20000 steps vs P[N = k] prop. to 2^-k, k < 6", seen.freq, p, K);
    dpt_dataset_free(&D);
    took("sparse_sgd_levels_are_truncated_geometric", t0);
}
END_TEST

/* The draws the bias-reduced and dense SGD make, seen with the noise off
 * on one-hot rows x_r = e_r (labels 1, w_0 = 0, one step, eta 1): the step
 * is -eta G with G the mean of the sampled rows' gradients, each
 * -sigma(0) x_r = -e_r / 2.
 *   dense: the batch of b rows without replacement: every row's weight is
 *   0 or 1/(2b), b of them are 1/(2b), and over runs each row is in with
 *   probability b / n (the batch indicators of a run have covariance
 *   q (1 - q) n/(n-1) (I - 11'/n), so the standardised counts are
 *   chi2(n - 1));
 *   bias-reduced: with the noise off the batch terms cancel (G_B is the
 *   mean of G_O and G_E) and G = G_i: the single index i, uniform on [n]. */
START_TEST(sparse_sgd_draws_are_uniform)
{
    double t0 = now();
    const size_t n = 32, b = 8, R = 4000;
    dpt_dataset D = one_hot(n, 1.0);
    double w[32], dense_in[32] = { 0 }, single[32] = { 0 }, p[32];
    dpt_rng *rng = own_rng(830);
    for (int dense = 0; dense < 2; dense++)
        for (size_t r = 0; r < R; r++) {
            dpt_sparse_sgd_options o;
            dpt_sparse_sgd_defaults(&o);
            o.dense = dense;
            o.batch_size = b;
            o.noise_off = 1;
            o.learning_rate = 1.0;
            o.max_steps = 1;
            o.rng = rng;
            memset(w, 0, sizeof w);
            dpt_sparse_sgd_result res;
            dpa_error err = { 0 };
            ck_assert_msg(dpt_sparse_sgd(&D, &o, w, &res, &err) == DPA_OK, "%s", err.message);
            ck_assert_uint_eq(res.steps, 1);
            long total = 0;
            for (size_t j = 0; j < n; j++) {
                long c = count_of("draws of a row", w[j] * 2.0 * (dense ? (double)b : 1.0));
                ck_assert_msg(c == 0 || c == 1, "row %zu drawn %ld times in one step", j, c);
                total += c;
                if (dense) dense_in[j] += (double)c;
                else single[j] += (double)c;
            }
            ck_assert_int_eq(total, dense ? (long)b : 1);
        }
    for (size_t j = 0; j < n; j++) p[j] = 1.0 / (double)n;
    multinomial_check("sparse SGD bias-reduced: the single index i over 4000 steps vs uniform on 32 rows", single, p, n);
    double q = (double)b / (double)n, stat = 0.0;
    for (size_t j = 0; j < n; j++)
        stat += (dense_in[j] - (double)R * q) * (dense_in[j] - (double)R * q) / ((double)R * q * (1.0 - q));
    stat *= (double)(n - 1) / (double)n;
    double hi = gsl_cdf_chisq_Qinv(ALPHA, (double)(n - 1));
    printf("sparse SGD dense: batch membership over 4000 steps: chi2 %.1f on %zu dof (accepted <= %.1f)\n", stat, n - 1,
           hi);
    ck_assert_double_le(stat, hi);
    dpt_rng_free(rng);
    dpt_dataset_free(&D);
    took("sparse_sgd_draws_are_uniform", t0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("privacy_fact");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, glmtron_noise_matches_report);
    tcase_add_test(tc, mbglmtron_noise_matches_report);
    tcase_add_test(tc, mbglmtron_threshold_noise_matches_report);
    tcase_add_test(tc, relu_dpsgd_noise_matches_report);
    tcase_add_test(tc, taglmtron_tree_noise_matches_report);
    tcase_add_test(tc, ftrl_tree_noise_matches_report);
    tcase_add_test(tc, glmtron_shuffle_is_uniform);
    tcase_add_test(tc, taglmtron_shuffle_is_uniform);
    tcase_add_test(tc, mbglmtron_partition_is_uniform);
    tcase_add_test(tc, relu_dpsgd_sampling_is_poisson);
    tcase_add_test(tc, cls_dpsgd_noise_matches_report);
    tcase_add_test(tc, ncgd_noise_matches_report);
    tcase_add_test(tc, cls_dpsgd_sampling_is_poisson);
    tcase_add_test(tc, ncgd_batches_are_fixed);
    tcase_add_test(tc, ntk_feature_noise_matches_report);
    tcase_add_test(tc, gsm_sample_is_wishart);
    tcase_add_test(tc, ntk_gsm_matches_reported_k);
    tcase_add_test(tc, sparse_mean_noise_matches_report);
    tcase_add_test(tc, sparse_mean_compressed_noise_matches_report);
    tcase_add_test(tc, sparse_erm_noise_matches_report);
    tcase_add_test(tc, sparse_sgd_oracle_noise_matches_the_claim);
    tcase_add_test(tc, sparse_sgd_noise_given_levels);
    tcase_add_test(tc, sparse_sgd_levels_are_truncated_geometric);
    tcase_add_test(tc, sparse_sgd_draws_are_uniform);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
