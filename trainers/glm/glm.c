/*
 * glm.c - the GLMtron family and DP-SGD for ReLU regression: the training
 * loops.  The noise comes from glm_privacy.c, which asks libdpacct.
 *
 * References are to ../shared/notes/glmtron-seeds-000-003.md ("the note"),
 * to Ding, Lei, Zhu, Wang, Wang & Xu, "Revisiting Differentially Private
 * ReLU Regression" (NeurIPS 2024; "Ding et al. 2024") and to
 * Ding, Lei, Wang, Zheng, Wang & Xu, "Nearly Optimal Differentially Private
 * ReLU Regression" (UAI 2025; "Ding et al. 2025").  Clipping is
 * v min(1, gamma / |v|) (the papers' max is a typo, note section 1).
 */
#include <config.h>

#include "dpt_glm_internal.h"

#include <gsl/gsl_cblas.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double relu(double v) { return v > 0.0 ? v : 0.0; }

double dpt_relu_loss(const dpt_dataset *data, const double *w)
{
    double s = 0.0;
    for (size_t i = 0; i < data->n; i++) {
        double r = relu(cblas_ddot((int)data->d, data->x + i * data->d, 1, w, 1)) - data->y[i];
        s += r * r;
    }
    return data->n ? 0.5 * s / (double)data->n : 0.0;
}

/* The run's privacy draws (noise, shuffles, Poisson batches) come from
 * rng; the injected noise is N(0, std^2 I_d) added to v by the grid-rounded
 * sampler (dptrain.h), its energy recorded for the noise ratio. */
typedef struct {
    dpt_rng *rng;
    int off;
    double energy, expected;   /* sum of squares drawn, and its expectation */
    double bad_scale;          /* the first noise std outside the samplers' range (0: none); the run then fails */
} noise_source;

static void add_noise(noise_source *ns, double *v, size_t d, double std)
{
    if (ns->off || !(std > 0.0)) return;
    double s = dpt_scale_up(std);
    if (dpt_noise_check_scale(s, "", NULL) != DPA_OK) {
        if (ns->bad_scale == 0.0) ns->bad_scale = s;
        return;
    }
    for (size_t j = 0; j < d; j++) {
        double noisy = dpt_noise_gaussian(ns->rng, v[j], s);
        ns->energy += (noisy - v[j]) * (noisy - v[j]);
        v[j] = noisy;
    }
    ns->expected += (double)d * std * std;
}

/* l = clip_gamma(r x): r x scaled by min(1, gamma / (|r| |x|)). */
static void clipped_residual(const double *x, size_t d, double r, double gamma, double *l)
{
    double norm = fabs(r) * cblas_dnrm2((int)d, x, 1);
    double s = norm > gamma ? gamma / norm : 1.0;
    for (size_t j = 0; j < d; j++) l[j] = s * r * x[j];
}

/* ---- DP-Threshold by noisy doubling (Ding et al. 2025, Alg 2) -------------- */

/* s = Delta 2^i for the first i in 0..L whose (noisy) count of
 * |ReLU(x.w) - y| <= s reaches m; L = ceil(log2(Upsilon / Delta)).  The noise
 * N(0, L f^2) on each count when `noise_std` > 0 (private estimating data).
 * The loop runs at most L + 1 counts (the note, 3.5 item 3: the cost is
 * (L + 1)/(2 L f^2) zCDP, which glm_privacy.c charges). */
static double noisy_doubling(const dpt_dataset *est, size_t first, size_t m, const size_t *idx, const double *w,
                             const dpt_glm_options *opt, double noise_std, noise_source *ns)
{
    unsigned L = glm_threshold_rounds(opt);
    double s = opt->grid_delta;
    for (unsigned i = 0; i <= L; i++) {
        double u = 0.0;
        for (size_t k = 0; k < m; k++) {
            size_t row = idx ? idx[first + k] : first + k;
            double r = relu(cblas_ddot((int)est->d, est->x + row * est->d, 1, w, 1)) - est->y[row];
            if (fabs(r) <= s) u += 1.0;
        }
        if (noise_std > 0.0) add_noise(ns, &u, 1, noise_std);
        if (u >= (double)m || i == L) break;
        s *= 2.0;
    }
    return s;
}

/* ---- the loops -------------------------------------------------------------- */

typedef struct {
    const dpt_dataset *data;
    const dpt_glm_options *opt;
    double f;            /* noise multiplier (0: none) */
    double x_norm;
    size_t d;
    double *w, *avg, *l, *tmp;
    uint64_t averaged;   /* iterates summed into avg */
    uint64_t steps, total, next_report;
    noise_source ns;
    size_t *perm;
    dpt_histogram_params hist;   /* DPT_CLIP_HISTOGRAM */
    double *hist_work;
} run;

/* The clip of one GLMtron step: gamma_t = x_norm s_t (Ding et al. 2024,
 * Alg 1 line 5), s_t from the public noisy doubling (Ding et al. 2025,
 * Alg 2) or the private histograms (Ding et al. 2024, Alg 2, Laplace noise
 * from the run's generator unless it is off). */
static double step_clip(run *R)
{
    const dpt_glm_options *opt = R->opt;
    if (opt->clip_rule == DPT_CLIP_FIXED) return opt->clip;
    if (opt->clip_rule == DPT_CLIP_HISTOGRAM)
        return R->x_norm * glm_histogram_threshold(opt->estimating_data, R->w, &R->hist, R->ns.off ? NULL : R->ns.rng,
                                                   R->hist_work);
    const dpt_dataset *pub = opt->public_data;
    return R->x_norm * noisy_doubling(pub, 0, pub->n, NULL, R->w, opt, 0.0, NULL);
}

/* A clip set by a threshold rule, told to the caller's hook. */
static double told_clip(run *R, double clip)
{
    if (R->opt->on_clip && R->opt->clip_rule != DPT_CLIP_FIXED) R->opt->on_clip(R->opt->on_clip_ctx, R->steps, clip);
    return clip;
}

static void step_done(run *R)
{
    R->steps++;
    if (R->opt->progress && (R->steps >= R->next_report || R->steps == R->total)) {
        R->opt->progress(R->opt->progress_ctx, R->steps, R->total);
        R->next_report = R->steps + R->total / 100 + 1;
    }
}

static void average_in(run *R)
{
    cblas_daxpy((int)R->d, 1.0, R->w, 1, R->avg, 1);
    R->averaged++;
}

/* GLMtron and DP-GLMtron (Ding et al. 2024 and 2025, Alg 1): w_{t+1} = w_t - eta (l_t +
 * 2 f gamma_t g_t); the average of w_0 .. w_{T-1}. */
static void glmtron_epochs(run *R)
{
    const dpt_dataset *D = R->data;
    const dpt_glm_options *opt = R->opt;
    int private_run = opt->algorithm == DPT_DP_GLMTRON;
    for (uint64_t e = 0; e < opt->epochs; e++) {
        dpt_rng_shuffle(R->ns.rng, R->perm, D->n);
        for (size_t t = 0; t < D->n; t++) {
            average_in(R);
            const double *x = D->x + R->perm[t] * D->d;
            double r = relu(cblas_ddot((int)D->d, x, 1, R->w, 1)) - D->y[R->perm[t]];
            if (private_run) {
                double gamma = told_clip(R, step_clip(R));
                clipped_residual(x, D->d, r, gamma, R->l);
                add_noise(&R->ns, R->l, D->d, 2.0 * R->f * gamma);
            } else {
                for (size_t j = 0; j < D->d; j++) R->l[j] = r * x[j];
            }
            cblas_daxpy((int)D->d, -opt->learning_rate, R->l, 1, R->w, 1);
            step_done(R);
        }
    }
}

/* The leaf of DP-FTRL's step: the sum of the batch's per-example ReLU
 * regression gradients r 1[x.w > 0] x, each clipped at C. */
static void ftrl_leaf(run *R, const size_t *rows, size_t b, double *leaf)
{
    const dpt_dataset *D = R->data;
    size_t d = D->d;
    memset(leaf, 0, d * sizeof *leaf);
    for (size_t k = 0; k < b; k++) {
        const double *x = D->x + rows[k] * d;
        double z = cblas_ddot((int)d, x, 1, R->w, 1);
        if (!(z > 0.0)) continue;               /* the ReLU's derivative */
        clipped_residual(x, d, z - D->y[rows[k]], R->opt->clip, R->tmp);
        cblas_daxpy((int)d, 1.0, R->tmp, 1, leaf, 1);
    }
}

/* Tree aggregation, one tree per epoch (restarted, with w_start the
 * iterate the epoch began from): w_{t+1} = w_start - (eta / b) (noisy
 * prefix sum of the leaves 1..t) by the binary mechanism.
 * - DP-TAGLMtron (Ding et al. 2024, Alg 3 and 4): b = 1, the leaf is the
 *   clipped GLMtron residual at the step's clip gamma_t, and a node's noise
 *   is N(0, (f Gamma)^2 I) with Gamma the running largest clip, which
 *   covers every leaf under it (the note, 2.5 item 3).
 * - DP-FTRL (Kairouz et al. 2021, Alg 1 with the tree of their Sec. 3 and
 *   no momentum; the FTRL step with regulariser ||w - w_start||^2 / (2 eta')
 *   is this update with eta' = eta / b): floor(N / b) leaves, each the sum
 *   of a batch's gradients clipped at C, node noise N(0, (f C)^2 I).
 * A node is completed when its last leaf arrives; its noise is drawn then;
 * the prefix sum of t uses the nodes of the binary digits of t, the leaf's
 * own node included (the leaf fix, item 3).  The average of w_1 .. w_T. */
static int tree_epochs(run *R)
{
    const dpt_dataset *D = R->data;
    const dpt_glm_options *opt = R->opt;
    int ftrl = opt->algorithm == DPT_DP_FTRL;
    size_t d = D->d, b = ftrl ? opt->batch_size : 1, leaves = D->n / b;
    unsigned levels = 1;
    while (((size_t)1 << levels) <= leaves) levels++;
    double *exact = calloc((size_t)levels * d, sizeof *exact);  /* the completed node of each level */
    double *noisy = calloc((size_t)levels * d, sizeof *noisy);
    double *start = malloc(d * sizeof *start);
    if (!exact || !noisy || !start) {
        free(exact); free(noisy); free(start);
        return DPA_ENOMEM;
    }
    double Gamma = ftrl ? opt->clip : 0.0;
    for (uint64_t e = 0; e < opt->epochs; e++) {
        dpt_rng_shuffle(R->ns.rng, R->perm, D->n);
        memcpy(start, R->w, d * sizeof *start);
        memset(exact, 0, (size_t)levels * d * sizeof *exact);
        memset(noisy, 0, (size_t)levels * d * sizeof *noisy);
        for (size_t t = 1; t <= leaves; t++) {
            if (ftrl) ftrl_leaf(R, R->perm + (t - 1) * b, b, R->l);
            else {
                const double *x = D->x + R->perm[t - 1] * d;
                double r = relu(cblas_ddot((int)d, x, 1, R->w, 1)) - D->y[R->perm[t - 1]];
                double gamma = told_clip(R, step_clip(R));
                if (gamma > Gamma) Gamma = gamma;
                clipped_residual(x, d, r, gamma, R->l);
            }
            /* the node completed at t is at the level of t's lowest set bit:
             * the leaf plus the completed nodes below it */
            unsigned lev = 0;
            while (!((t >> lev) & 1u)) lev++;
            double *node = exact + (size_t)lev * d;
            memcpy(node, R->l, d * sizeof *node);
            for (unsigned j = 0; j < lev; j++) cblas_daxpy((int)d, 1.0, exact + (size_t)j * d, 1, node, 1);
            memcpy(noisy + (size_t)lev * d, node, d * sizeof *node);
            add_noise(&R->ns, noisy + (size_t)lev * d, d, R->f * Gamma);
            /* prefix sum: the nodes of t's binary digits */
            memcpy(R->tmp, start, d * sizeof *R->tmp);
            for (unsigned j = 0; j < levels; j++)
                if ((t >> j) & 1u)
                    cblas_daxpy((int)d, -opt->learning_rate / (double)b, noisy + (size_t)j * d, 1, R->tmp, 1);
            memcpy(R->w, R->tmp, d * sizeof *R->w);
            step_done(R);
            average_in(R);
        }
    }
    free(exact); free(noisy); free(start);
    return DPA_OK;
}

/* DP-MBGLMtron (Ding et al. 2025, Alg 3) and its noise-free counterpart: each epoch a
 * random partition into T = N/(b+m) batches, m estimating then b gradient
 * records; gamma_t from the noisy doubling on the estimating slice, the clip
 * s_t = x_norm gamma_t, w_{t+1} = w_t - eta (mean clipped l + (2 f s_t / b) g);
 * the average of w_0 .. w_{T-1}. */
static void mbglmtron_epochs(run *R)
{
    const dpt_dataset *D = R->data;
    const dpt_glm_options *opt = R->opt;
    size_t b = opt->batch_size, m = opt->estimate_size, d = D->d;
    size_t batches = D->n / (b + m);
    int noisy = opt->algorithm == DPT_DP_MBGLMTRON && !opt->noise_off;
    double count_std = noisy ? sqrt((double)glm_threshold_rounds(opt)) * R->f : 0.0;
    for (uint64_t e = 0; e < opt->epochs; e++) {
        dpt_rng_shuffle(R->ns.rng, R->perm, D->n);
        for (size_t t = 0; t < batches; t++) {
            average_in(R);
            size_t base = t * (b + m);
            double s;
            if (opt->clip_rule == DPT_CLIP_FIXED) s = opt->clip;
            else if (opt->clip_rule == DPT_CLIP_PUBLIC) s = step_clip(R);
            else s = R->x_norm * noisy_doubling(D, base, m, R->perm, R->w, opt, count_std, &R->ns);
            told_clip(R, s);
            memset(R->l, 0, d * sizeof *R->l);
            for (size_t i = 0; i < b; i++) {
                size_t row = R->perm[base + m + i];
                const double *x = D->x + row * d;
                double r = relu(cblas_ddot((int)d, x, 1, R->w, 1)) - D->y[row];
                clipped_residual(x, d, r, s, R->tmp);
                cblas_daxpy((int)d, 1.0 / (double)b, R->tmp, 1, R->l, 1);
            }
            if (noisy) add_noise(&R->ns, R->l, d, 2.0 * R->f * s / (double)b);
            cblas_daxpy((int)d, -opt->learning_rate, R->l, 1, R->w, 1);
            step_done(R);
        }
    }
}

/* SGD and DP-SGD on the ReLU loss: T steps on the sampler's batches
 * (trainers/sampling.c; Poisson at q = b/N by default), per-example
 * gradients r 1[x.w > 0] x clipped at C (DP), noise sigma C on the sum, the
 * sum divided by b; the average of w_0 .. w_{T-1}. */
static int sgd_steps(run *R, dpa_error *err)
{
    const dpt_dataset *D = R->data;
    const dpt_glm_options *opt = R->opt;
    size_t d = D->d;
    uint64_t T = glm_sgd_steps(opt, D->n);
    int dp = opt->algorithm == DPT_DP_SGD;
    dpt_sampler *sampler;
    size_t *rows = malloc(D->n * sizeof *rows);
    int st = rows ? dpt_sampler_new(opt->sampling, D->n, opt->batch_size, opt->max_batch, R->ns.rng, &sampler, err)
                  : dpt_fail(err, DPA_ENOMEM, "dptrain: out of memory");
    if (st) {
        free(rows);
        return st;
    }
    for (uint64_t t = 0; t < T; t++) {
        average_in(R);
        memset(R->l, 0, d * sizeof *R->l);
        size_t count = 0;
        dpt_sampler_next(sampler, rows, &count);
        for (size_t k = 0; k < count; k++) {
            const double *x = D->x + rows[k] * d;
            double z = cblas_ddot((int)d, x, 1, R->w, 1);
            if (!(z > 0.0)) continue;               /* the ReLU's derivative */
            double r = z - D->y[rows[k]];
            if (dp) clipped_residual(x, d, r, opt->clip, R->tmp);
            else for (size_t j = 0; j < d; j++) R->tmp[j] = r * x[j];
            cblas_daxpy((int)d, 1.0, R->tmp, 1, R->l, 1);
        }
        if (dp) add_noise(&R->ns, R->l, d, R->f * opt->clip);
        cblas_daxpy((int)d, -opt->learning_rate / (double)opt->batch_size, R->l, 1, R->w, 1);
        step_done(R);
    }
    dpt_sampler_free(sampler);
    free(rows);
    return DPA_OK;
}

void dpt_glm_result_free(dpt_glm_result *r)
{
    if (!r) return;
    free(r->w);
    r->w = NULL;
}

int dpt_glm_train(const dpt_dataset *train, const dpt_glm_options *options, dpt_glm_result *out, dpa_error *err)
{
    if (!out) return dpt_fail(err, DPA_EINVAL, "dptrain: result is NULL");
    memset(out, 0, sizeof *out);
    if (!options) return dpt_fail(err, DPA_EINVAL, "dptrain: options is NULL");
    /* the defaults that depend on other options */
    dpt_glm_options resolved = *options;
    const dpt_glm_options *opt = &resolved;
    if ((opt->algorithm == DPT_DP_MBGLMTRON || opt->algorithm == DPT_MBGLMTRON) && opt->estimate_size == 0 &&
        opt->clip_rule == DPT_CLIP_PRIVATE)
        resolved.estimate_size = opt->batch_size / 10 > 1 ? opt->batch_size / 10 : 1;
    int st = glm_check(train, opt, err);
    if (st) return st;
    dpt_histogram_params hist = { 0 };
    if (opt->clip_rule == DPT_CLIP_HISTOGRAM) {
        size_t m = opt->estimating_data->n;
        if ((st = glm_histogram_budget(opt, train->n, &hist, out, err))) return st;
        if (hist.groups > m)
            return dpt_fail(err, DPA_EINVAL, "dptrain: the histogram threshold needs at least K = %zu estimating records "
                            "(K = ceil(C1 ln(N/delta1)/eps1), eps1 = %.3g, C1 = %g), got %zu", hist.groups,
                            hist.epsilon1, opt->histogram_c1, m);
        if ((st = glm_histogram_check(&hist, m, err))) return st;
    }
    st = glm_noise(train, opt, out, err);          /* f, eps, the paper's f, the accounting */
    if (st) return st;
    if (opt->clip_rule == DPT_CLIP_HISTOGRAM) {     /* parallel composition: the larger part */
        out->training_epsilon = out->epsilon;
        if (out->threshold_spent > out->epsilon) out->epsilon = out->threshold_spent;
    }
    size_t d = train->d;
    run R = { .data = train, .opt = opt, .f = out->noise_multiplier, .d = d, .hist = hist };
    R.x_norm = glm_x_norm(opt, train);
    R.w = calloc(d, sizeof *R.w);
    R.avg = calloc(d, sizeof *R.avg);
    R.l = calloc(d, sizeof *R.l);
    R.tmp = calloc(d, sizeof *R.tmp);
    R.perm = malloc(train->n * sizeof *R.perm);
    R.ns.off = opt->noise_off;
    if (opt->clip_rule == DPT_CLIP_HISTOGRAM)
        R.hist_work = malloc(glm_histogram_work(&hist, opt->estimating_data->n) * sizeof *R.hist_work);
    if (!R.w || !R.avg || !R.l || !R.tmp || !R.perm || (opt->clip_rule == DPT_CLIP_HISTOGRAM && !R.hist_work))
        st = dpt_fail(err, DPA_ENOMEM, "dptrain: out of memory");
    dpt_rng *owned = NULL;
    if (!st) st = dpt_run_rng(opt->rng, glm_is_private(opt), opt->seed, "dptrain", &R.ns.rng, &owned, err);
    if (!st && opt->init_scale > 0.0) {     /* w0 is data-independent: the seeded generator */
        gsl_rng *init = dpt_rng_new(opt->seed, err);
        if (!init) st = DPA_ENOMEM;
        else {
            for (size_t j = 0; j < d; j++) R.w[j] = gsl_ran_gaussian(init, opt->init_scale / sqrt((double)d));
            gsl_rng_free(init);
        }
    }
    if (!st) {
        for (size_t i = 0; i < train->n; i++) R.perm[i] = i;
        switch (opt->algorithm) {
        case DPT_DP_MBGLMTRON:
        case DPT_MBGLMTRON: R.total = opt->epochs * (train->n / (opt->batch_size + opt->estimate_size)); break;
        case DPT_SGD:
        case DPT_DP_SGD: R.total = glm_sgd_steps(opt, train->n); break;
        case DPT_DP_FTRL: R.total = opt->epochs * (train->n / opt->batch_size); break;
        default: R.total = opt->epochs * train->n; break;
        }
        switch (opt->algorithm) {
        case DPT_GLMTRON:
        case DPT_DP_GLMTRON: glmtron_epochs(&R); break;
        case DPT_DP_TAGLMTRON:
        case DPT_DP_FTRL:
            if (tree_epochs(&R)) st = dpt_fail(err, DPA_ENOMEM, "dptrain: out of memory");
            break;
        case DPT_DP_MBGLMTRON:
        case DPT_MBGLMTRON: mbglmtron_epochs(&R); break;
        case DPT_SGD:
        case DPT_DP_SGD: st = sgd_steps(&R, err); break;
        }
    }
    if (!st && R.ns.bad_scale != 0.0)
        st = dpt_fail(err, DPA_EINVAL, "dptrain: a step's noise std %.6g is outside [%g, %g] (the clip or the noise "
                      "multiplier is out of range); no model is released", R.ns.bad_scale, DPT_NOISE_MIN_SCALE,
                      DPT_NOISE_MAX_SCALE);
    if (!st) {
        if (R.averaged) cblas_dscal((int)d, 1.0 / (double)R.averaged, R.avg, 1);
        out->w = R.avg;
        R.avg = NULL;
        out->d = d;
        out->steps = R.steps;
        out->noise_ratio = R.ns.expected > 0.0 ? R.ns.energy / R.ns.expected : NAN;
    }
    free(R.w); free(R.avg); free(R.l); free(R.tmp); free(R.perm); free(R.hist_work);
    dpt_rng_free(owned);
    if (!st) dpt_accounting_note(out->accounting, sizeof out->accounting, dpt_rng_privacy_note(R.ns.rng));
    return st;
}
