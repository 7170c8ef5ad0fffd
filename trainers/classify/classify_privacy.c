/*
 * classify_privacy.c - what DP-SGD and NoisyCGD on the classification
 * models spend, as libdpacct events, and the noise (or NoisyCGD's
 * regularisation) that meets a target (eps, delta).  Koskela,
 * "Approximating Two-Layer ReLU Networks for Hidden State Analysis in
 * Differential Privacy" (arXiv 2024) and
 * ../shared/notes/noisycgd-seed-001.md ("the note").
 *
 * DP-SGD (note A4, 2.4): one step is the Poisson-sampled Gaussian, noise
 * sigma C on the sum of gradients clipped at C: noise multiplier sigma
 * under add/remove, sigma / 2 under replace-one (a replaced record moves
 * the sum by 2C; libdpacct's replace-one pair is Lebeda et al.'s, the
 * note's Lemma 2.6), composed over T = ceil(E n / b) steps.
 *
 * NoisyCGD (note A3, 2.3): mu-GDP by Bok, Su & Altschuler (ICML 2024), Thm 4.5
 * (dpa_event_noisy_cgd, the "gdp" accountant) with the note's mapping 2.3(a):
 * noise sigma C / b on the mean of b clipped gradients, whose replace-one
 * sensitivity is 2C / b, so s / sigma_Z = 2 / sigma; strong convexity
 * lambda; smoothness beta + lambda with beta the model's bound on one
 * example's cross-entropy (Koskela's Lemma 3.2 corrected, note 5 item 5).
 * The theorem needs eta < 2 / (beta + lambda); a step outside is refused
 * with the valid range.  beta must bound every record's loss, including a
 * replaced one: computed from the training data (as Koskela and the
 * issue do) it holds for records no larger than those seen; a bound over
 * the data domain (e.g. 1/2 P d for pixels in [0, 1]), given as
 * opt->smoothness, makes the guarantee unconditional.  Caveat kept in the accounting text: the theorem
 * is for the unclipped convex smooth loss; that clipping keeps convexity
 * and smoothness is shown for scalar GLM losses only, not for multi-class
 * cross-entropy (note 5 item 6), an assumption Koskela makes.
 */
#include <config.h>

#include "dpt_cls_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void dpt_cls_defaults(dpt_cls_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->algorithm = DPT_CLS_DP_SGD;
    opt->learning_rate = 0.1;
    opt->schedule = DPT_SCHEDULE_CONSTANT;
    opt->decay = 0.5;
    opt->decay_epochs = 10.0;
    opt->epochs = 1;
    opt->batch_size = 1000;
    opt->clip = 1.0;
    opt->epsilon = 1.0;
    opt->delta = 1e-5;
    opt->relation = DPA_REPLACE_ONE;
    opt->seed = 1;
}

uint64_t cls_sgd_steps(const dpt_cls_options *opt, size_t n)
{
    uint64_t steps = 0;
    /* checked by cls_check before any caller gets here; were it not, 0:
     * the training loop runs this count too, so no step is ever run
     * that is not accounted (a large sentinel would run forever) */
    if (dpt_sampling_steps_param(opt->sampling, n, opt->batch_size, opt->max_batch, opt->epochs, &steps, NULL))
        return 0;
    return steps;
}

int cls_check(size_t n, const dpt_cls_options *opt, dpa_error *err)
{
    if (!opt) return dpt_fail(err, DPA_EINVAL, "dptrain: options are NULL");
    if ((unsigned)opt->algorithm > (unsigned)DPT_CLS_NOISY_CGD)
        return dpt_fail(err, DPA_EINVAL, "dptrain: unknown algorithm %d", (int)opt->algorithm);
    if (n < 1) return dpt_fail(err, DPA_EINVAL, "dptrain: no training examples");
    if (!(opt->learning_rate > 0.0 && isfinite(opt->learning_rate)))
        return dpt_fail(err, DPA_EINVAL, "dptrain: learning rate must be positive and finite, got %g", opt->learning_rate);
    if ((unsigned)opt->schedule > (unsigned)DPT_SCHEDULE_COSINE)
        return dpt_fail(err, DPA_EINVAL, "dptrain: unknown learning-rate schedule %d", (int)opt->schedule);
    if (opt->schedule == DPT_SCHEDULE_STEP &&
        !(opt->decay > 0.0 && opt->decay <= 1.0 && opt->decay_epochs > 0.0 && isfinite(opt->decay_epochs)))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the step schedule needs 0 < decay <= 1 and decay epochs > 0");
    if (opt->algorithm == DPT_CLS_NOISY_CGD && opt->schedule != DPT_SCHEDULE_CONSTANT)
        return dpt_fail(err, DPA_EINVAL, "dptrain: NoisyCGD's hidden-state bound needs a constant step (no schedule)");
    if (opt->epochs < 1) return dpt_fail(err, DPA_EINVAL, "dptrain: epochs must be at least 1");
    /* the steps (at most E n) must be counted exactly, in uint64_t and in
     * the double of cls_sgd_steps: an overflowed count would account for
     * fewer steps than are run */
    if (opt->epochs > (UINT64_C(1) << 53) / n)
        return dpt_fail(err, DPA_EINVAL, "dptrain: %" PRIu64 " epochs of %zu examples exceed 2^53 steps", opt->epochs, n);
    if (opt->batch_size < 1 || opt->batch_size > n)
        return dpt_fail(err, DPA_EINVAL, "dptrain: the batch size must lie in [1, %zu], got %zu", n, opt->batch_size);
    if (!(opt->clip > 0.0))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the clip must be positive, got %g", opt->clip);
    if (!(opt->l2 >= 0.0 && isfinite(opt->l2)) || !(opt->eta_lambda >= 0.0 && opt->eta_lambda < 1.0))
        return dpt_fail(err, DPA_EINVAL, "dptrain: lambda must be >= 0 and eta lambda in [0, 1), got %g and %g", opt->l2,
                        opt->eta_lambda);
    if (!(opt->smoothness >= 0.0 && isfinite(opt->smoothness)))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the smoothness must be finite and >= 0, got %g", opt->smoothness);
    if (opt->relation != DPA_REPLACE_ONE && opt->relation != DPA_ADD_REMOVE)
        return dpt_fail(err, DPA_EINVAL, "dptrain: unknown neighbouring relation %d", (int)opt->relation);
    if (opt->algorithm == DPT_CLS_NOISY_CGD && (opt->sampling != DPT_SAMPLING_POISSON || opt->max_batch))
        return dpt_fail(err, DPA_EINVAL, "dptrain: NoisyCGD uses its fixed batches; a sampling (%s) is for DP-SGD",
                        dpt_sampling_name(opt->sampling) ? dpt_sampling_name(opt->sampling) : "unknown");
    if (opt->algorithm == DPT_CLS_DP_SGD) {
        uint64_t steps;
        int st = dpt_sampling_steps_param(opt->sampling, n, opt->batch_size, opt->max_batch, opt->epochs, &steps, err);
        if (st) return st;
        if ((opt->sampling == DPT_SAMPLING_TRUNCATED || opt->sampling == DPT_SAMPLING_BALLS_IN_BINS ||
             opt->sampling == DPT_SAMPLING_ALLOCATION) &&
            opt->relation != DPA_ADD_REMOVE)
            return dpt_fail(err, DPA_EINVAL, "dptrain: %s sampling is accounted for add/remove neighbours only "
                            "(relation add-remove)", dpt_sampling_name(opt->sampling));
    }
    if (opt->algorithm == DPT_CLS_NOISY_CGD && opt->relation != DPA_REPLACE_ONE)
        return dpt_fail(err, DPA_EINVAL, "dptrain: NoisyCGD is accounted for replace-one neighbours only (its fixed batches "
                        "change under add/remove, and the bound of Bok, Su & Altschuler ICML 2024 is stated for replace-one)");
    if (opt->noise_off) return DPA_OK;
    if (!(opt->delta > 0.0 && opt->delta < 1.0))
        return dpt_fail(err, DPA_EINVAL, "dptrain: delta must lie in (0, 1), got %g", opt->delta);
    if (!(opt->noise_multiplier >= 0.0 && isfinite(opt->noise_multiplier)))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the noise multiplier must be positive, got %g", opt->noise_multiplier);
    int needs_target = !(opt->noise_multiplier > 0.0) || opt->match_epsilon;
    if (needs_target && !(opt->epsilon > 0.0 && isfinite(opt->epsilon)))
        return dpt_fail(err, DPA_EINVAL, "dptrain: epsilon must be positive and finite, got %g", opt->epsilon);
    if (opt->algorithm == DPT_CLS_NOISY_CGD && opt->match_epsilon && !(opt->noise_multiplier > 0.0))
        return dpt_fail(err, DPA_EINVAL, "dptrain: matching eps through lambda needs the noise multiplier");
    return DPA_OK;
}

/* ---- DP-SGD -------------------------------------------------------------------- */

typedef struct {
    const dpt_cls_options *opt;
    size_t n;
    uint64_t steps;
} sgd_ctx;

static dpa_event *sgd_event(double sigma, void *vctx, dpa_error *err)
{
    const sgd_ctx *c = vctx;
    const dpt_cls_options *o = c->opt;
    double multiplier = o->relation == DPA_REPLACE_ONE ? sigma / 2.0 : sigma;
    return dpt_sampling_event(o->sampling, c->n, o->batch_size, o->max_batch, o->epochs, multiplier, err);
}

static void options_for(const dpt_cls_options *opt, dpa_options *o)
{
    dpa_options_init(o);
    o->relation = opt->relation;
}

/* The certified upper eps of `family(param)` under `method`. */
static int family_epsilon(const char *method, const dpt_cls_options *opt, dpa_event_family family, void *ctx,
                          double param, double *eps, dpa_error *err)
{
    dpa_options o;
    options_for(opt, &o);
    return dpt_event_epsilon(method, &o, family(param, ctx, err), opt->delta, eps, err);
}

static const char *sgd_method(const dpt_cls_options *opt)
{
    return opt->accountant ? opt->accountant : dpt_sampling_accountant(opt->sampling);
}

/* ---- NoisyCGD ------------------------------------------------------------------ */

typedef struct {
    const dpt_cls_options *opt;
    size_t n;
    double beta;        /* of one example's loss, without lambda */
    double lambda;
    double sigma;       /* the noise multiplier (for the family over lambda) */
    uint64_t epochs;
} ncgd_ctx;

static dpa_noisy_cgd_params ncgd_params(const ncgd_ctx *c, double sigma, double lambda)
{
    const dpt_cls_options *o = c->opt;
    double b = (double)o->batch_size;
    dpa_noisy_cgd_params p = {
        .strong_convexity = lambda, .smoothness = c->beta + lambda, .step_size = o->learning_rate,
        .sensitivity = 2.0 * o->clip / b, .sigma = sigma * o->clip / b,
        .batches = c->n / o->batch_size, .epochs = c->epochs,
    };
    return p;
}

static dpa_event *ncgd_sigma_family(double sigma, void *vctx, dpa_error *err)
{
    const ncgd_ctx *c = vctx;
    dpa_noisy_cgd_params p = ncgd_params(c, sigma, c->lambda);
    return dpa_event_noisy_cgd(&p, err);
}

/* lambda as a "noise" parameter: eps decreases in it where c = 1 - eta lambda. */
static dpa_event *ncgd_lambda_family(double lambda, void *vctx, dpa_error *err)
{
    const ncgd_ctx *c = vctx;
    dpa_noisy_cgd_params p = ncgd_params(c, c->sigma, lambda);
    return dpa_event_noisy_cgd(&p, err);
}

/* eta < 2 / (beta + lambda), or the message that says which steps are valid. */
static int check_step(const ncgd_ctx *c, double lambda, dpa_error *err)
{
    double eta = c->opt->learning_rate, M = c->beta + lambda;
    if (!(lambda > 0.0))
        return dpt_fail(err, DPA_EINVAL, "dptrain: NoisyCGD needs L2 regularisation lambda > 0 (its bound needs strong "
                        "convexity)");
    if (!(eta * M < 2.0))
        return dpt_fail(err, DPA_EINVAL, "dptrain: step size %g breaks the hidden-state bound's precondition eta < 2/(beta + "
                        "lambda) = %.6g (beta = %.6g for one example's loss, lambda = %g); use a step below %.6g",
                        eta, 2.0 / M, c->beta, lambda, 2.0 / M);
    return DPA_OK;
}

/* The smallest lambda (relative 1e-6) whose eps meets the target, within
 * the range where c = 1 - eta lambda (eta (beta + 2 lambda) <= 2), where
 * eps decreases in lambda: libdpacct's calibration search, kept inside
 * that range. */
static int match_lambda(ncgd_ctx *c, double *lambda, dpa_error *err)
{
    const dpt_cls_options *o = c->opt;
    double eta = o->learning_rate, hi = (2.0 - eta * c->beta) / (2.0 * eta);
    if (!(hi > 0.0))
        return dpt_fail(err, DPA_EINVAL, "dptrain: step size %g breaks the hidden-state bound's precondition for any lambda: "
                        "eta must be below 2/beta = %.6g (beta = %.6g)", eta, 2.0 / c->beta, c->beta);
    double e;
    int st = family_epsilon("gdp", o, ncgd_lambda_family, c, hi, &e, err);
    if (st) return st;
    if (e > o->epsilon)
        return dpt_fail(err, DPA_EINVAL, "dptrain: NoisyCGD cannot meet eps %g with sigma %g and %" PRIu64 " epochs at step "
                        "%g: the most regularisation the bound allows (lambda = %.6g) gives eps %.6g", o->epsilon, c->sigma,
                        c->epochs, eta, hi, e);
    dpa_options opts;
    options_for(o, &opts);
    dpa_calibration cal;
    dpa_calibration_init(&cal, DPA_SEARCH_SMALLEST);
    cal.lo = hi * 1e-3;
    cal.hi = hi;
    cal.limit_lo = hi * 1e-12;
    cal.limit_hi = hi;
    cal.rel_tol = 1e-6;
    if ((st = dpa_calibrate_search("gdp", &opts, ncgd_lambda_family, c, o->epsilon, o->delta, &cal, err))) return st;
    *lambda = cal.value;
    return DPA_OK;
}

/* ---- what the trainer calls ------------------------------------------------------ */

int cls_noise(size_t n, double beta, const dpt_cls_options *opt, dpt_cls_result *out, dpa_error *err)
{
    out->epsilon = INFINITY;
    out->l2 = opt->eta_lambda > 0.0 ? opt->eta_lambda / opt->learning_rate : opt->l2;
    if (opt->algorithm == DPT_CLS_NOISY_CGD) {
        out->unused = n % opt->batch_size;
        ncgd_ctx c = { opt, n, beta, out->l2, opt->noise_multiplier, opt->epochs };
        int st;
        if (opt->noise_off) {
            snprintf(out->accounting, sizeof out->accounting, "noise off: not private");
            return DPA_OK;
        }
        if (opt->match_epsilon && (st = match_lambda(&c, &out->l2, err))) return st;
        c.lambda = out->l2;
        if ((st = check_step(&c, out->l2, err))) return st;
        double sigma = opt->noise_multiplier;
        if (!(sigma > 0.0)) {
            dpa_options o;
            options_for(opt, &o);
            if ((st = dpa_calibrate("gdp", &o, ncgd_sigma_family, &c, opt->epsilon, opt->delta, 0.5, 20.0, &sigma, err)))
                return st;
        }
        dpa_noisy_cgd_params p = ncgd_params(&c, sigma, out->l2);
        if ((st = dpa_noisy_cgd_mu(&p, &out->mu, err))) return st;
        if ((st = family_epsilon("gdp", opt, ncgd_sigma_family, &c, sigma, &out->epsilon, err))) return st;
        out->noise_multiplier = sigma;
        out->smoothness = beta + out->l2;
        snprintf(out->accounting, sizeof out->accounting,
                 "final iterate of %zu fixed batches x %" PRIu64 " epochs: mu = %.6g GDP (Bok, Su & Altschuler ICML 2024, Thm 4.5; beta + lambda "
                 "= %.6g, %s; clipping assumed to keep it), gdp accountant, replace-one, n = %zu",
                 (size_t)(n / opt->batch_size), opt->epochs, out->mu, out->smoothness,
                 opt->smoothness > 0.0 ? "beta as given" : "beta from the training data (a larger record needs --smoothness)",
                 n);
        return DPA_OK;
    }
    if (opt->noise_off) {
        snprintf(out->accounting, sizeof out->accounting, "noise off: not private");
        return DPA_OK;
    }
    sgd_ctx c = { opt, n, cls_sgd_steps(opt, n) };
    double sigma = opt->noise_multiplier;
    int st;
    if (!(sigma > 0.0)) {
        dpa_options o;
        options_for(opt, &o);
        if ((st = dpa_calibrate(sgd_method(opt), &o, sgd_event, &c, opt->epsilon, opt->delta, 0.5, 20.0, &sigma, err)))
            return st;
    }
    if ((st = family_epsilon(sgd_method(opt), opt, sgd_event, &c, sigma, &out->epsilon, err))) return st;
    out->noise_multiplier = sigma;
    char what[240];
    dpt_sampling_describe(opt->sampling, n, opt->batch_size, opt->max_batch, opt->epochs,
                          opt->relation == DPA_REPLACE_ONE ? sigma / 2.0 : sigma, what, sizeof what);
    snprintf(out->accounting, sizeof out->accounting, "%s (%s accountant, %s)", what, sgd_method(opt),
             opt->relation == DPA_REPLACE_ONE ? "replace-one" : "add/remove");
    return DPA_OK;
}

int cls_epoch_epsilon(size_t n, double beta, const dpt_cls_options *opt, const dpt_cls_result *res, uint64_t epoch,
                      double *eps, dpa_error *err)
{
    if (opt->noise_off) {
        *eps = INFINITY;
        return DPA_OK;
    }
    if (opt->algorithm == DPT_CLS_NOISY_CGD) {
        ncgd_ctx c = { opt, n, beta, res->l2, res->noise_multiplier, epoch };
        return family_epsilon("gdp", opt, ncgd_sigma_family, &c, res->noise_multiplier, eps, err);
    }
    dpt_cls_options partial = *opt;
    partial.epochs = epoch;
    sgd_ctx c = { &partial, n, cls_sgd_steps(&partial, n) };
    return family_epsilon(sgd_method(opt), opt, sgd_event, &c, res->noise_multiplier, eps, err);
}

int dpt_cls_account(size_t n, double beta, const dpt_cls_options *opt, dpt_cls_result *out, dpa_error *err)
{
    if (!out) return dpt_fail(err, DPA_EINVAL, "dptrain: result is NULL");
    memset(out, 0, sizeof *out);
    int st = cls_check(n, opt, err);
    if (st) return st;
    if (opt->algorithm == DPT_CLS_NOISY_CGD && !(beta >= 0.0 && isfinite(beta)))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the smoothness must be finite and >= 0, got %g", beta);
    return cls_noise(n, beta, opt, out, err);
}
