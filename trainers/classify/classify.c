/*
 * classify.c - DP-SGD and NoisyCGD on the classification models of
 * models.c: the training loops.  The noise, the step check and the
 * accounting come from classify_privacy.c.  Koskela, "Approximating
 * Two-Layer ReLU Networks for Hidden State Analysis in Differential
 * Privacy" (arXiv 2024) and ../shared/notes/noisycgd-seed-001.md,
 * A3 and A4.
 *
 * Both add N(0, (sigma C)^2 I) to the sum of the clipped per-example
 * gradients and divide by b: on the mean that is Koskela's sigma C / b.
 * The regulariser's gradient lambda theta is added afterwards, unclipped
 * and noise-free (note A3).
 */
#include <config.h>

#include "dpt_cls_internal.h"

#include <gsl/gsl_cblas.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const dpt_dataset *data;
    dpt_model *model;
    const dpt_cls_options *opt;
    dpt_cls_result *res;
    double beta;
    double *theta, *grad;
    size_t size;
    size_t *rows;
    dpt_rng *rng;                /* the privacy draws: batches (trainers/sampling.c) and noise */
    double energy, expected;     /* injected noise, for the noise check */
    uint64_t steps, total, next_report;
} cls_run;

/* eta_t at step t of T (t/T of the way through); epochs_done as a real. */
static double step_size(const dpt_cls_options *opt, uint64_t t, uint64_t T, double epochs_done)
{
    switch (opt->schedule) {
    case DPT_SCHEDULE_STEP: return opt->learning_rate * pow(opt->decay, floor(epochs_done / opt->decay_epochs));
    case DPT_SCHEDULE_COSINE: return opt->learning_rate * 0.5 * (1.0 + cos(M_PI * (double)t / (double)T));
    default: return opt->learning_rate;
    }
}

/* One update from the b examples rows[0..count-1]: theta -= eta ((sum of
 * clipped gradients + noise) / b + lambda theta). */
static int update(cls_run *R, const size_t *rows, size_t count, double eta, dpa_error *err)
{
    const dpt_cls_options *opt = R->opt;
    memset(R->grad, 0, R->size * sizeof *R->grad);
    if (count) {
        double loss = dpt_model_clipped_grad_sum(R->model, R->data, rows, count, opt->clip, R->grad, NULL, err);
        if (isnan(loss)) return err && err->status ? err->status : DPA_EINVAL;
    }
    if (!opt->noise_off) {
        double std = R->res->noise_multiplier * opt->clip, s = dpt_scale_up(std);
        for (size_t j = 0; j < R->size; j++) {
            double noisy = dpt_noise_gaussian(R->rng, R->grad[j], s);
            R->energy += (noisy - R->grad[j]) * (noisy - R->grad[j]);
            R->grad[j] = noisy;
        }
        R->expected += (double)R->size * std * std;
    }
    cblas_dscal((int)R->size, 1.0 / (double)opt->batch_size, R->grad, 1);
    if (R->res->l2 > 0.0) cblas_daxpy((int)R->size, R->res->l2, R->theta, 1, R->grad, 1);
    cblas_daxpy((int)R->size, -eta, R->grad, 1, R->theta, 1);
    R->steps++;
    if (opt->progress && (R->steps >= R->next_report || R->steps == R->total)) {
        opt->progress(opt->progress_ctx, R->steps, R->total);
        R->next_report = R->steps + R->total / 100 + 1;
    }
    return DPA_OK;
}

static int epoch_done(cls_run *R, uint64_t epoch, dpa_error *err)
{
    const dpt_cls_options *opt = R->opt;
    if (!opt->epoch_done) return DPA_OK;
    double eps;
    int st = cls_epoch_epsilon(R->data->n, R->beta, opt, R->res, epoch, &eps, err);
    if (!st) opt->epoch_done(opt->epoch_ctx, R->model, epoch, eps);
    return st;
}

/* The epochs finished after step t + 1 of T (E epochs): Poisson-like
 * samplings count passes of the expected batch (floor((t + 1) b / n)),
 * the epoch-based ones whole epochs of T / E steps. */
static uint64_t epochs_after(const dpt_cls_options *opt, size_t n, uint64_t t, uint64_t T)
{
    if (t + 1 == T) return opt->epochs;
    if (opt->sampling == DPT_SAMPLING_SHUFFLE || opt->sampling == DPT_SAMPLING_BALLS_IN_BINS ||
        opt->sampling == DPT_SAMPLING_ALLOCATION)
        return (t + 1) / (T / opt->epochs);
    return (uint64_t)floor((double)(t + 1) * (double)opt->batch_size / (double)n + 1e-9);
}

/* DP-SGD: T steps, each on a batch of the sampler (trainers/sampling.c). */
static int dp_sgd(cls_run *R, dpa_error *err)
{
    const dpt_cls_options *opt = R->opt;
    size_t n = R->data->n;
    double q = (double)opt->batch_size / (double)n;
    uint64_t T = R->total, epoch = 0;
    dpt_sampler *sampler;
    int st = dpt_sampler_new(opt->sampling, n, opt->batch_size, opt->max_batch, R->rng, &sampler, err);
    if (st) return st;
    for (uint64_t t = 0; t < T && !st; t++) {
        size_t count = 0;
        if ((st = dpt_sampler_next(sampler, R->rows, &count))) break;
        double done = (double)t * q;
        if ((st = update(R, R->rows, count, step_size(opt, t, T, done), err))) break;
        uint64_t now = epochs_after(opt, n, t, T);
        while (!st && epoch < now && epoch < opt->epochs) st = epoch_done(R, ++epoch, err);
    }
    dpt_sampler_free(sampler);
    return st;
}

/* NoisyCGD: the k = floor(n / b) batches rows [j b, (j + 1) b), in order,
 * every epoch (a data-independent partition: the data's own order). */
static int noisy_cgd(cls_run *R, dpa_error *err)
{
    const dpt_cls_options *opt = R->opt;
    size_t b = opt->batch_size, k = R->data->n / b;
    for (size_t i = 0; i < R->data->n; i++) R->rows[i] = i;
    for (uint64_t e = 1; e <= opt->epochs; e++) {
        for (size_t j = 0; j < k; j++) {
            int st = update(R, R->rows + j * b, b, opt->learning_rate, err);
            if (st) return st;
        }
        int st = epoch_done(R, e, err);
        if (st) return st;
    }
    return DPA_OK;
}

int dpt_cls_train(const dpt_dataset *train, dpt_model *model, const dpt_cls_options *opt, dpt_cls_result *out,
                  dpa_error *err)
{
    if (!out) return dpt_fail(err, DPA_EINVAL, "dptrain: result is NULL");
    memset(out, 0, sizeof *out);
    if (!train || !model || !train->x || !train->y)
        return dpt_fail(err, DPA_EINVAL, "dptrain: training data or model is NULL");
    int st = cls_check(train->n, opt, err);
    if (!st) st = dpt_model_check_labels(model, train, err);
    if (st) return st;
    if (!opt->noise_off && !isfinite(opt->clip))
        return dpt_fail(err, DPA_EINVAL, "dptrain: a private run needs a finite clip");
    double beta = 0.0;
    if (opt->algorithm == DPT_CLS_NOISY_CGD) {
        double data_beta = dpt_model_smoothness(model, train);
        if (!isfinite(data_beta))
            return dpt_fail(err, DPA_EINVAL, "dptrain: NoisyCGD needs a convex model (softmax or convex); the ReLU network "
                            "is not convex, so its hidden-state bound does not apply");
        /* A private run takes beta from the caller, never from the data (a
         * statistic of the private rows outside the accounting); the rows
         * must meet it, which dpt_model_bound_smoothness ensures. */
        if (!opt->noise_off && !(opt->smoothness > 0.0))
            return dpt_fail(err, DPA_EINVAL, "dptrain: a private NoisyCGD run needs the smoothness bound beta given "
                            "(the data's own value is a statistic of the private rows); scale the rows to it with "
                            "dpt_model_bound_smoothness");
        if (opt->smoothness > 0.0 && data_beta > opt->smoothness)
            return dpt_fail(err, DPA_EINVAL, "dptrain: a row's loss is %.6g-smooth, above the smoothness bound %.6g; "
                            "scale the rows to the bound first (dpt_model_bound_smoothness)", data_beta,
                            opt->smoothness);
        beta = opt->smoothness > 0.0 ? opt->smoothness : data_beta;
    }
    if ((st = cls_noise(train->n, beta, opt, out, err))) return st;
    if (!opt->noise_off &&
        (st = dpt_noise_check_scale(dpt_scale_up(out->noise_multiplier * opt->clip), "dptrain: the noise std sigma C",
                                    err)))
        return st;

    cls_run R = { .data = train, .model = model, .opt = opt, .res = out, .beta = beta };
    R.size = dpt_model_size(model);
    R.theta = dpt_model_params(model);
    R.total = opt->algorithm == DPT_CLS_DP_SGD ? cls_sgd_steps(opt, train->n)
                                               : opt->epochs * (uint64_t)(train->n / opt->batch_size);
    R.grad = malloc(R.size * sizeof *R.grad);
    R.rows = malloc(train->n * sizeof *R.rows);
    if (!R.grad || !R.rows) st = dpt_fail(err, DPA_ENOMEM, "dptrain: out of memory");
    dpt_rng *owned = NULL;
    if (!st) st = dpt_run_rng(opt->rng, !opt->noise_off, opt->seed, "dptrain", &R.rng, &owned, err);
    if (!st) st = opt->algorithm == DPT_CLS_DP_SGD ? dp_sgd(&R, err) : noisy_cgd(&R, err);
    out->steps = R.steps;
    out->noise_ratio = R.expected > 0.0 ? R.energy / R.expected : NAN;
    free(R.grad);
    free(R.rows);
    dpt_rng_free(owned);
    if (!st) dpt_accounting_note(out->accounting, sizeof out->accounting, dpt_rng_privacy_note(R.rng));
    return st;
}
