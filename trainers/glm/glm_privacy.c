/*
 * glm_privacy.c - what the GLMtron family and DP-SGD spend, seen from one
 * record, as libdpacct events; the noise multiplier that meets a target
 * (eps, delta); and the f of each paper's closed-form theorem, for
 * comparison: Ding et al., "Revisiting Differentially Private ReLU
 * Regression" (NeurIPS 2024) and Ding et al., "Nearly Optimal
 * Differentially Private ReLU Regression" (UAI 2025);
 * ../shared/notes/glmtron-seeds-000-003.md, section 4.
 *
 * Replace-one neighbours throughout (the papers' noise 2 f gamma is
 * calibrated for a replaced record: the clipped vectors of two records
 * differ by at most 2 gamma).  Per record:
 * - DP-GLMtron: one Gaussian step of multiplier f per epoch (E epochs: E
 *   Gaussians composed); in one epoch the order is a secret shuffle, and
 *   the shuffled bound of dpa_shuffled_gaussian_epsilon is taken when it is
 *   smaller (the note, 4.1).  Thresholds on public data cost nothing.
 * - DP-TAGLMtron: tree aggregation restarted every epoch; node noise f Gamma
 *   against a replaced leaf's 2 Gamma: dpa_event_tree_aggregation with
 *   multiplier f / 2 (the note, 2.5 item 4: the paper's f is add/remove).
 * - DP-MBGLMtron: a record is in one batch per epoch, either in its
 *   estimating slice (at most L + 1 counts of sensitivity 1 with noise
 *   sqrt(L) f) or in its gradient slice (one Gaussian of multiplier f): the
 *   larger, (L + 1) Gaussians of multiplier sqrt(L) f, per epoch (the note,
 *   summary item 2: the paper composes the two, which overcharges).
 * - DP-SGD: Poisson sampling at q of a Gaussian with noise sigma C on the
 *   sum; a replaced record moves the sum by 2 C: multiplier sigma / 2.
 * - DP-FTRL: a record is in one leaf (one batch) per epoch, and its clipped
 *   gradient moves that leaf by at most 2 C when it is replaced; node noise
 *   f C: dpa_event_tree_aggregation with multiplier f / 2 over floor(N/b)
 *   leaves per tree, a tree per epoch (Kairouz et al. 2021, Sec. 3: a leaf is
 *   in floor(log2 T) + 1 of a tree's nodes; they state it for add/remove,
 *   where the multiplier is f).  The leaves' order is a shuffle, which the
 *   bound does not use.
 */
#include <config.h>

#include "dpt_glm_internal.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void dpt_glm_defaults(dpt_glm_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->algorithm = DPT_DP_GLMTRON;
    opt->learning_rate = 1e-2;
    opt->epochs = 1;
    opt->batch_size = 32;
    opt->estimate_size = 0;          /* max(1, b / 10) */
    opt->epsilon = 1.0;
    opt->delta = 1e-5;
    opt->shuffle_amplification = 1;
    opt->clip_rule = DPT_CLIP_FIXED;
    opt->clip = 1.0;
    opt->alpha = 1.0;
    opt->trace_h = 0.0;              /* d */
    opt->c2 = 1.0;
    opt->a = 0.0;
    opt->upsilon = 10.0;
    opt->grid_delta = 1e-3;
    opt->paper_c3 = 1.0;
    opt->histogram_c1 = 4.0;
    opt->tail_b = exp(-1.0);
    opt->seed = 1;
}

unsigned glm_threshold_rounds(const dpt_glm_options *opt)
{
    double L = ceil(log2(opt->upsilon / opt->grid_delta));
    return L < 1.0 ? 1u : (unsigned)L;
}

double glm_x_norm(const dpt_glm_options *opt, const dpt_dataset *train)
{
    double tr = opt->trace_h > 0.0 ? opt->trace_h : (double)train->d;
    double lg = log((double)train->n);
    return sqrt(2.0 * opt->alpha * tr) * opt->c2 * (opt->a > 0.0 ? pow(lg, 2.0 * opt->a) : 1.0);
}

uint64_t glm_sgd_steps(const dpt_glm_options *opt, size_t n)
{
    uint64_t steps = 0;
    /* checked by glm_check before any caller gets here; were it not, 0:
     * the training loop runs this count too, so no step is ever run
     * that is not accounted (a large sentinel would run forever) */
    if (dpt_sampling_steps_param(opt->sampling, n, opt->batch_size, opt->max_batch, opt->epochs, &steps, NULL))
        return 0;
    return steps;
}

/* The most steps (and composition counts) a run may have: 2^53, exact in
 * a double (the accountants' arithmetic) and far from overflowing a
 * uint64_t product with a small factor. */
#define GLM_MAX_STEPS (UINT64_C(1) << 53)

static int is_private(dpt_algorithm a)
{
    return a == DPT_DP_GLMTRON || a == DPT_DP_TAGLMTRON || a == DPT_DP_MBGLMTRON || a == DPT_DP_SGD ||
           a == DPT_DP_FTRL;
}

int glm_is_private(const dpt_glm_options *opt)
{
    return is_private(opt->algorithm) && !opt->noise_off;
}

int glm_check(const dpt_dataset *train, const dpt_glm_options *opt, dpa_error *err)
{
    if (!train || !opt) return dpt_fail(err, DPA_EINVAL, "dptrain: data or options is NULL");
    if (train->n < 2 || train->d < 1 || !train->x || !train->y)
        return dpt_fail(err, DPA_EINVAL, "dptrain: the training data needs at least 2 examples and 1 feature");
    /* CBLAS takes the dimension as an int */
    if (train->d > INT_MAX)
        return dpt_fail(err, DPA_EINVAL, "dptrain: %zu features exceed %d", train->d, INT_MAX);
    if ((unsigned)opt->algorithm > (unsigned)DPT_DP_FTRL)
        return dpt_fail(err, DPA_EINVAL, "dptrain: unknown algorithm %d", (int)opt->algorithm);
    if ((unsigned)opt->clip_rule > (unsigned)DPT_CLIP_HISTOGRAM)
        return dpt_fail(err, DPA_EINVAL, "dptrain: unknown clip rule %d", (int)opt->clip_rule);
    if (!(opt->learning_rate > 0.0 && isfinite(opt->learning_rate)))
        return dpt_fail(err, DPA_EINVAL, "dptrain: learning rate must be positive and finite, got %g", opt->learning_rate);
    if (opt->epochs < 1) return dpt_fail(err, DPA_EINVAL, "dptrain: epochs must be at least 1");
    /* Every step count (epochs n at most, and the events' composition
     * counts) must be exact, in uint64_t and in a double: an overflowed
     * count would account for fewer steps than are run. */
    if (opt->epochs > GLM_MAX_STEPS / train->n)
        return dpt_fail(err, DPA_EINVAL, "dptrain: %" PRIu64 " epochs of %zu examples exceed 2^53 steps", opt->epochs,
                        train->n);
    int mb = opt->algorithm == DPT_DP_MBGLMTRON || opt->algorithm == DPT_MBGLMTRON;
    int sgd = opt->algorithm == DPT_SGD || opt->algorithm == DPT_DP_SGD;
    int ftrl = opt->algorithm == DPT_DP_FTRL;
    if ((mb || sgd || ftrl) && opt->batch_size < 1)
        return dpt_fail(err, DPA_EINVAL, "dptrain: batch size must be at least 1");
    if (ftrl && opt->batch_size > train->n)
        return dpt_fail(err, DPA_EINVAL, "dptrain: DP-FTRL's batch size %zu exceeds the %zu examples", opt->batch_size,
                        train->n);
    if (ftrl && opt->clip_rule != DPT_CLIP_FIXED)
        return dpt_fail(err, DPA_EINVAL, "dptrain: DP-FTRL clips at a fixed C (--clip); the thresholds are the "
                        "GLMtron family's");
    if (mb && (opt->batch_size > train->n || opt->estimate_size > train->n ||
               opt->batch_size + opt->estimate_size > train->n))
        return dpt_fail(err, DPA_EINVAL, "dptrain: a batch (%zu gradient + %zu estimating records) exceeds the %zu examples",
                        opt->batch_size, opt->estimate_size, train->n);
    if (mb && opt->estimate_size < 1 && opt->clip_rule == DPT_CLIP_PRIVATE)
        return dpt_fail(err, DPA_EINVAL, "dptrain: the private threshold needs at least 1 estimating record per batch");
    if (sgd && opt->batch_size > train->n)
        return dpt_fail(err, DPA_EINVAL, "dptrain: batch size %zu exceeds the %zu examples", opt->batch_size, train->n);
    if (!sgd && (opt->sampling != DPT_SAMPLING_POISSON || opt->max_batch))
        return dpt_fail(err, DPA_EINVAL, "dptrain: a sampling (%s) is for relu-sgd and dp-relu-sgd only",
                        dpt_sampling_name(opt->sampling) ? dpt_sampling_name(opt->sampling) : "unknown");
    if (sgd) {
        uint64_t steps;
        int st = dpt_sampling_steps_param(opt->sampling, train->n, opt->batch_size, opt->max_batch, opt->epochs, &steps,
                                          err);
        if (st) return st;
        /* the GLM family is replace-one; truncated Poisson, balls-in-bins and
         * allocation are analysed for add/remove */
        if ((opt->sampling == DPT_SAMPLING_TRUNCATED || opt->sampling == DPT_SAMPLING_BALLS_IN_BINS ||
             opt->sampling == DPT_SAMPLING_ALLOCATION) &&
            opt->algorithm == DPT_DP_SGD)
            return dpt_fail(err, DPA_EINVAL, "dptrain: %s sampling is accounted for add/remove neighbours only, "
                            "and the ReLU regression trainers account replace-one", dpt_sampling_name(opt->sampling));
    }
    if (!(opt->clip > 0.0 && isfinite(opt->clip)) && (opt->clip_rule == DPT_CLIP_FIXED || sgd || ftrl))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the clip must be positive and finite, got %g", opt->clip);
    if (opt->clip_rule == DPT_CLIP_PUBLIC &&
        (!opt->public_data || opt->public_data->n < 1 || opt->public_data->d != train->d))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the public threshold needs public data with the training data's %zu "
                        "features", train->d);
    if (opt->clip_rule == DPT_CLIP_HISTOGRAM) {
        if (opt->algorithm != DPT_DP_GLMTRON && opt->algorithm != DPT_DP_TAGLMTRON)
            return dpt_fail(err, DPA_EINVAL, "dptrain: the histogram threshold (Ding et al. NeurIPS 2024, Alg 2) is DP-GLMtron's and "
                            "DP-TAGLMtron's");
        const dpt_dataset *est = opt->estimating_data;
        if (!est || est->n < 1 || est->d != train->d || !est->x || !est->y)
            return dpt_fail(err, DPA_EINVAL, "dptrain: the histogram threshold needs private estimating data with the "
                            "training data's %zu features", train->d);
        if (!(opt->threshold_epsilon >= 0.0 && isfinite(opt->threshold_epsilon)))
            return dpt_fail(err, DPA_EINVAL, "dptrain: the threshold's eps1 must be positive (or 0: calibrated), got %g",
                            opt->threshold_epsilon);
        if (!(opt->threshold_epsilon > 0.0) && !(opt->epsilon > 0.0 && isfinite(opt->epsilon)))
            return dpt_fail(err, DPA_EINVAL, "dptrain: the histogram threshold needs a target epsilon or its eps1");
        if (!(opt->delta > 0.0 && opt->delta < 1.0))
            return dpt_fail(err, DPA_EINVAL, "dptrain: delta must lie in (0, 1), got %g", opt->delta);
        if (!(opt->histogram_c1 > 0.0 && isfinite(opt->histogram_c1)))
            return dpt_fail(err, DPA_EINVAL, "dptrain: the histogram's C1 must be positive, got %g", opt->histogram_c1);
        if (!(opt->label_noise >= 0.0 && isfinite(opt->label_noise)) || !(opt->tail_b > 0.0 && opt->tail_b < 1.0))
            return dpt_fail(err, DPA_EINVAL, "dptrain: the label noise must be >= 0 and b in (0, 1), got %g and %g",
                            opt->label_noise, opt->tail_b);
    }
    if (opt->clip_rule == DPT_CLIP_PRIVATE && !mb)
        return dpt_fail(err, DPA_EINVAL, "dptrain: a threshold on private estimating data is DP-MBGLMtron's (use a fixed "
                        "clip or public estimating data)");
    if (opt->clip_rule != DPT_CLIP_FIXED &&
        !(opt->upsilon > opt->grid_delta && opt->grid_delta > 0.0 && isfinite(opt->upsilon)))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the threshold needs 0 < Delta < Upsilon, got Delta %g, Upsilon %g",
                        opt->grid_delta, opt->upsilon);
    /* the private threshold's (L + 1) E counts (L <= 2^11 for doubles) */
    if (mb && opt->clip_rule == DPT_CLIP_PRIVATE && opt->epochs > GLM_MAX_STEPS / (glm_threshold_rounds(opt) + 1u))
        return dpt_fail(err, DPA_EINVAL, "dptrain: %" PRIu64 " epochs of %u threshold counts exceed 2^53",
                        opt->epochs, glm_threshold_rounds(opt) + 1u);
    if (!(opt->init_scale >= 0.0 && isfinite(opt->init_scale)))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the initial scale must be finite and >= 0, got %g", opt->init_scale);
    if (!(opt->alpha > 0.0 && opt->c2 > 0.0 && opt->a >= 0.0 && opt->trace_h >= 0.0))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the distribution constants need alpha > 0, C2 > 0, a >= 0, tr H >= 0");
    if (is_private(opt->algorithm) && !opt->noise_off) {
        if (!(opt->delta > 0.0 && opt->delta < 1.0))
            return dpt_fail(err, DPA_EINVAL, "dptrain: delta must lie in (0, 1), got %g", opt->delta);
        if (!(opt->noise_multiplier > 0.0) && !(opt->epsilon > 0.0 && isfinite(opt->epsilon)))
            return dpt_fail(err, DPA_EINVAL, "dptrain: epsilon must be positive and finite, got %g", opt->epsilon);
        if (opt->noise_multiplier < 0.0 || !isfinite(opt->noise_multiplier))
            return dpt_fail(err, DPA_EINVAL, "dptrain: the noise multiplier must be positive, got %g", opt->noise_multiplier);
    }
    return DPA_OK;
}

/* ---- the events -------------------------------------------------------------- */

typedef struct {
    const dpt_glm_options *opt;
    size_t n;
} family_ctx;

/* The event a record sees, for noise multiplier f (shuffling aside). */
static dpa_event *record_event(double f, void *vctx, dpa_error *err)
{
    const family_ctx *c = vctx;
    const dpt_glm_options *opt = c->opt;
    uint64_t E = opt->epochs;
    switch (opt->algorithm) {
    case DPT_DP_GLMTRON: return dpa_event_self_composed(dpa_event_gaussian(f, err), E, err);
    case DPT_DP_TAGLMTRON: return dpa_event_tree_aggregation(f / 2.0, (uint64_t)c->n * E, (uint64_t)c->n, err);
    case DPT_DP_MBGLMTRON:
        if (opt->clip_rule == DPT_CLIP_PRIVATE) {
            unsigned L = glm_threshold_rounds(opt);
            return dpa_event_self_composed(dpa_event_gaussian(sqrt((double)L) * f, err), (uint64_t)(L + 1) * E, err);
        }
        return dpa_event_self_composed(dpa_event_gaussian(f, err), E, err);
    case DPT_DP_SGD:   /* replace-one: a replaced record moves the sum by 2C, so f/2 */
        return dpt_sampling_event(opt->sampling, c->n, opt->batch_size, opt->max_batch, opt->epochs, f / 2.0, err);
    case DPT_DP_FTRL: {   /* replace-one: a replaced record moves its leaf by 2C, so f/2 */
        uint64_t leaves = (uint64_t)(c->n / opt->batch_size);
        return dpa_event_tree_aggregation(f / 2.0, leaves * E, leaves, err);
    }
    default: break;
    }
    if (err) dpt_fail(err, DPA_EINVAL, "dptrain: algorithm %d is not private", (int)opt->algorithm);
    return NULL;
}

static const char *method_of(const dpt_glm_options *opt)
{
    if (opt->accountant) return opt->accountant;
    return opt->algorithm == DPT_DP_SGD ? dpt_sampling_accountant(opt->sampling) : "gaussian";
}

static void replace_one(dpa_options *o)
{
    dpa_options_init(o);
    o->relation = DPA_REPLACE_ONE;
}

/* The certified eps of the record's event at delta. */
static int event_epsilon(const dpt_glm_options *opt, size_t n, double f, double *eps, dpa_error *err)
{
    family_ctx c = { opt, n };
    dpa_options o;
    replace_one(&o);
    return dpt_event_epsilon(method_of(opt), &o, record_event(f, &c, err), opt->delta, eps, err);
}

/* DP-GLMtron in one epoch: the shuffled bound or the plain one, whichever
 * is smaller (dpa_shuffled_gaussian_epsilon says which). */
static int shuffled_epsilon(const dpt_glm_options *opt, size_t n, double f, double *eps, int *amplified,
                            dpa_error *err)
{
    dpa_shuffled_gaussian g;
    int st = dpa_shuffled_gaussian_epsilon(f, n, opt->delta, &g, err);
    if (!st) {
        *eps = g.epsilon;
        *amplified = g.amplified;
    }
    return st;
}

static int uses_shuffle(const dpt_glm_options *opt)
{
    return opt->algorithm == DPT_DP_GLMTRON && opt->epochs == 1 && opt->shuffle_amplification;
}

/* The smallest f (relative 1e-4: any f that meets the target is valid, the
 * tolerance only decides how tight) whose certified eps meets the target, by
 * bisection on log f over the shuffled bound (monotone in f). */
static int calibrate_shuffled(const dpt_glm_options *opt, size_t n, double *f, dpa_error *err)
{
    double lo = 1e-3, hi = 1.0, e;
    int amp, st;
    for (;;) {        /* widen until hi meets the target */
        if ((st = shuffled_epsilon(opt, n, hi, &e, &amp, err))) return st;
        if (e <= opt->epsilon) break;
        lo = hi;
        hi *= 4.0;
        if (hi > 1e8) return dpt_fail(err, DPA_EINVAL, "dptrain: no noise multiplier up to 1e8 meets eps %g", opt->epsilon);
    }
    while (hi / lo > 1.0 + 1e-4) {
        double mid = sqrt(lo * hi);
        if ((st = shuffled_epsilon(opt, n, mid, &e, &amp, err))) return st;
        if (e <= opt->epsilon) hi = mid;
        else lo = mid;
    }
    *f = hi;
    return DPA_OK;
}

/* ---- the histogram threshold's budget (Ding et al. NeurIPS 2024, Alg 2) ------ */

typedef struct {
    double delta1;
    uint64_t histograms;
} histogram_ctx;

/* The 3 N E histograms as (eps1, delta1) events, param = 1/eps1 (a noise:
 * eps decreases in it).  KOV's four-point pair dominates any (eps1,
 * delta1)-DP mechanism, adaptively, and pld composes it exactly (bracketed
 * against the closed form in test_pld). */
static dpa_event *histogram_family(double inv_eps1, void *vctx, dpa_error *err)
{
    const histogram_ctx *c = vctx;
    return dpa_event_self_composed(dpa_event_epsilon_delta(1.0 / inv_eps1, c->delta1, err), c->histograms, err);
}

int glm_histogram_budget(const dpt_glm_options *opt, size_t n, dpt_histogram_params *p, dpt_glm_result *out,
                         dpa_error *err)
{
    double calls = (double)n * (double)opt->epochs;      /* one threshold per step */
    histogram_ctx c = { opt->delta / (6.0 * calls), (uint64_t)(3.0 * calls) };
    dpa_options o;
    replace_one(&o);
    /* The atoms +-eps1 fall between grid nodes, and over thousands of
     * compositions pld's bracket cannot reach its default relative width
     * 1e-3 (N = 1000 at eps 0.2 fails).  Its upper end is certified at any
     * width; 1e-2 costs at most 1% of the thresholds' eps. */
    o.tolerance = 1e-2;
    int st = DPA_OK;
    double inv;
    if (opt->threshold_epsilon > 0.0) inv = 1.0 / opt->threshold_epsilon;
    else if ((st = dpa_calibrate("pld", &o, histogram_family, &c, opt->epsilon, opt->delta, 1.0, 100.0, &inv, err)))
        return st;
    double spent;
    if ((st = dpt_event_epsilon("pld", &o, histogram_family(inv, &c, err), opt->delta, &spent, err))) return st;
    p->epsilon1 = 1.0 / inv;
    p->delta1 = c.delta1;
    double K = ceil(opt->histogram_c1 * log((double)n / c.delta1) / p->epsilon1);
    if (!(K <= 1e15)) return dpt_fail(err, DPA_EINVAL, "dptrain: the histogram threshold needs K = %g groups", K);
    p->groups = (size_t)K;
    p->lo = opt->grid_delta;
    p->hi = opt->upsilon;
    p->noise_floor = opt->label_noise * opt->label_noise *
                     (opt->a > 0.0 ? pow(log(1.0 / opt->tail_b), 2.0 * opt->a) : 1.0);
    out->threshold_epsilon1 = p->epsilon1;
    out->threshold_delta1 = p->delta1;
    out->threshold_groups = p->groups;
    out->threshold_spent = spent;
    if (opt->epsilon > 0.0) out->paper_threshold_epsilon1 = opt->epsilon / sqrt(8.0 * calls * log(2.0 / opt->delta));
    return DPA_OK;
}

/* The paper's closed-form f for the same target (0 where there is none):
 * NeurIPS 2024 Thm 4.1 (c3 log(N/delta)/(eps sqrt N), c3 unspecified: a
 * flag), NeurIPS 2024 Thm 5.1 (sqrt(2 ceil(lg(N+1)) ln(1/delta))/eps), UAI
 * 2025 Thm 3
 * (2 sqrt(ln(1/delta) + eps)/eps). */
static double paper_f(const dpt_glm_options *opt, size_t n)
{
    double eps = opt->epsilon, dl = log(1.0 / opt->delta), N = (double)n;
    switch (opt->algorithm) {
    case DPT_DP_GLMTRON: return opt->paper_c3 * log(N / opt->delta) / (eps * sqrt(N));
    case DPT_DP_TAGLMTRON: return sqrt(2.0 * ceil(log2(N + 1.0)) * dl) / eps;
    case DPT_DP_MBGLMTRON: return 2.0 * sqrt(dl + eps) / eps;
    default: return 0.0;
    }
}

static void describe(const dpt_glm_options *opt, size_t n, dpt_glm_result *out)
{
    const char *what = "";
    char detail[240];
    switch (opt->algorithm) {
    case DPT_DP_GLMTRON:
        what = uses_shuffle(opt) ? (out->amplified ? "one Gaussian step per record, amplified by the secret shuffle"
                                                   : "one Gaussian step per record (plain; shuffling did not help)")
                                 : "one Gaussian step per record per epoch, composed";
        break;
    case DPT_DP_TAGLMTRON: what = "tree aggregation, one tree per epoch, replace-one leaves"; break;
    case DPT_DP_FTRL:
        snprintf(detail, sizeof detail, "tree aggregation of %zu leaves (batches of %zu), one tree per epoch, "
                 "replace-one leaves", n / opt->batch_size, opt->batch_size);
        what = detail;
        break;
    case DPT_DP_MBGLMTRON:
        what = opt->clip_rule == DPT_CLIP_PRIVATE ? "per epoch the larger of a record's two roles: L+1 noisy counts"
                                                  : "one Gaussian step per record per epoch";
        break;
    case DPT_DP_SGD:   /* the event of dp_event's DPT_DP_SGD case: multiplier f/2 (replace-one) */
        dpt_sampling_describe(opt->sampling, n, opt->batch_size, opt->max_batch, opt->epochs,
                              out->noise_multiplier / 2.0, detail, sizeof detail);
        what = detail;
        break;
    default: what = "not private"; break;
    }
    int len = snprintf(out->accounting, sizeof out->accounting, "%s (%s accountant, replace-one, n = %zu)", what,
                       uses_shuffle(opt) ? "shuffle" : method_of(opt), n);
    if (opt->clip_rule == DPT_CLIP_HISTOGRAM && len > 0 && (size_t)len < sizeof out->accounting)
        snprintf(out->accounting + len, sizeof out->accounting - (size_t)len,
                 "; thresholds: 3 x %" PRIu64 " stability histograms on %zu other records, (eps1, delta1) each, pld; "
                 "eps is the larger part's", (uint64_t)n * opt->epochs, opt->estimating_data->n);
}

int glm_noise(const dpt_dataset *train, const dpt_glm_options *opt, dpt_glm_result *out, dpa_error *err)
{
    size_t n = train->n;
    out->epsilon = INFINITY;
    if (!is_private(opt->algorithm) || opt->noise_off) {
        snprintf(out->accounting, sizeof out->accounting, "%s",
                 opt->noise_off ? "noise off: not private" : "not private");
        return DPA_OK;
    }
    int st = DPA_OK;
    double f = opt->noise_multiplier;
    if (!(f > 0.0)) {
        if (uses_shuffle(opt)) st = calibrate_shuffled(opt, n, &f, err);
        else {
            family_ctx c = { opt, n };
            dpa_options o;
            replace_one(&o);
            st = dpa_calibrate(method_of(opt), &o, record_event, &c, opt->epsilon, opt->delta, 0.1, 10.0, &f, err);
        }
        if (st) return st;
    }
    out->noise_multiplier = f;
    if (uses_shuffle(opt)) st = shuffled_epsilon(opt, n, f, &out->epsilon, &out->amplified, err);
    else st = event_epsilon(opt, n, f, &out->epsilon, err);
    if (st) return st;
    if (opt->epsilon > 0.0) out->paper_noise_multiplier = paper_f(opt, n);
    describe(opt, n, out);
    return DPA_OK;
}
