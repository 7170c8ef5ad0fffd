/*
 * zcdp.c - zero-concentrated DP (Bun & Steinke, TCC 2016) and its
 * approximate form: D_alpha(M(x) || M(x')) <= xi + rho * alpha for all
 * alpha > 1.  Composition adds rho and xi (Lemma 2.3).
 *
 * Conversions to (eps, delta), both valid for every alpha > 1:
 *  - classic: eps = xi + rho + 2 sqrt(rho log(1/delta)) (Prop. 1.3);
 *  - Canonne, Kamath & Steinke 2020, Prop. 12 / Cor. 13 (also Balle et
 *    al. 2020, Thm 21): for tau = xi + alpha rho,
 *      eps(alpha)   = tau + log(1 - 1/alpha) - (log delta + log alpha)/(alpha - 1),
 *      delta(alpha) = exp((alpha - 1)(tau - eps)) (1 - 1/alpha)^alpha / (alpha - 1),
 *    minimised over alpha.  Any alpha gives a valid bound, so an inexact
 *    minimiser only loosens, never breaks, the guarantee.
 * The smaller of the two is reported, with a flag naming it.
 */
#include "gaussian_profile.h"
#include "internal.h"
#include "numerics.h"

#include <float.h>
#include <math.h>

typedef struct {
    dpa_sum rho, xi;
    int only_gaussian; /* every event so far was a Gaussian: the exact profile is known */
} zcdp_state;

/* rho and xi of a leaf (Bun & Steinke 2016 Props 1.4, 1.6; CKS 2020 Thm 4;
 * Cesar & Rogers 2021 Lemma 3.2 for the exponential mechanism). */
static int leaf_rho(const dpa_event *e, double *rho, double *xi, int *gaussian, dpa_error *err)
{
    dpa_event_kind kind = dpa_event_get_kind(e);
    double p0 = dpa_event_param(e, 0), eps;
    *xi = 0.0;
    *gaussian = 0;
    switch (kind) {
    /* every rho below is positive for finite noise: dpa_positive_up keeps
     * one that underflows from claiming exact privacy */
    case DPA_EVENT_GAUSSIAN: *rho = dpa_positive_up(0.5 / p0 / p0); *gaussian = 1; return DPA_OK;
    case DPA_EVENT_GDP: *rho = p0 > 0.0 ? dpa_positive_up(0.5 * p0 * p0) : 0.0; *gaussian = 1; return DPA_OK;
    case DPA_EVENT_NOISY_CGD:                   /* mu-GDP: rho = mu^2 / 2 */
    case DPA_EVENT_SHUFFLED_BATCHES:            /* the inner Gaussian once an epoch */
    case DPA_EVENT_TREE_AGGREGATION: {          /* Gaussian nodes */
        const dpa_event *bad;
        double inv_var;
        if (dpa_event_inverse_variance(e, &inv_var, &bad))
            return dpa_fail(err, DPA_EINVAL, "zcdp: invalid %s event", dpa_event_kind_name(kind));
        *rho = inv_var > 0.0 ? dpa_positive_up(0.5 * inv_var) : 0.0;
        *gaussian = 1;
        return DPA_OK;
    }
    case DPA_EVENT_ZCDP: *rho = p0; *xi = dpa_event_param(e, 1); return DPA_OK;
    case DPA_EVENT_DISCRETE_GAUSSIAN: {
        double d = (double)dpa_event_count(e, 0);
        *rho = dpa_positive_up(0.5 * (d / p0) * (d / p0));
        return DPA_OK;
    }
    case DPA_EVENT_EXPONENTIAL: *rho = p0 > 0.0 ? dpa_positive_up(p0 * p0 / 8.0) : 0.0; return DPA_OK; /* eps-bounded range */
    /* pure eps-DP is eps^2/2-zCDP */
    case DPA_EVENT_LAPLACE:
    case DPA_EVENT_RANDOMIZED_RESPONSE:
    case DPA_EVENT_PERMUTE_AND_FLIP:
    case DPA_EVENT_DISCRETE_LAPLACE: eps = dpa_event_pure_epsilon(e); break;
    case DPA_EVENT_EPSILON_DELTA:
        if (dpa_event_param(e, 1) != 0.0)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "zcdp: an (eps, delta) event with delta > 0 has no zCDP guarantee");
        eps = dpa_event_pure_epsilon(e);
        break;
    case DPA_EVENT_TRUNCATED_LAPLACE:
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "zcdp: truncated Laplace is not zCDP (its Renyi divergence is infinite at every order: the "
                        "two output distributions have different supports); use pld");
    case DPA_EVENT_GSM_FROBENIUS:
    case DPA_EVENT_GSM_SPECTRAL:
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "zcdp: the Gaussian Sampling Mechanism's RDP is not linear in the order (and infinite "
                        "above 1/M); use rdp");
    case DPA_EVENT_POISSON_SAMPLED:
    case DPA_EVENT_SAMPLED_WITHOUT_REPLACEMENT:
    case DPA_EVENT_SAMPLED_WITH_REPLACEMENT:
    case DPA_EVENT_TRUNCATED_POISSON:
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "zcdp: subsampling is not supported (zCDP is not amplified by "
                        "subsampling; use rdp or pld)");
    case DPA_EVENT_RANDOM_ALLOCATION:
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "zcdp: random_allocation events are not supported (zCDP is not amplified by sampling); "
                        "use rdp");
    default:
        return dpa_fail(err, DPA_EUNSUPPORTED, "zcdp: %s events are not supported",
                        dpa_event_kind_name(kind));
    }
    *rho = eps > 0.0 ? dpa_positive_up(0.5 * eps * eps) : 0.0;
    return DPA_OK;
}

static int check_leaf(const dpa_event *e, double times, void *ctx, dpa_error *err)
{
    (void)times; (void)ctx;
    double rho, xi;
    int gaussian;
    return leaf_rho(e, &rho, &xi, &gaussian, err);
}

static int add_leaf(const dpa_event *e, double times, void *ctx, dpa_error *err)
{
    zcdp_state *s = ctx;
    double rho, xi;
    int gaussian;
    int st = leaf_rho(e, &rho, &xi, &gaussian, err);
    if (st) return st;
    dpa_sum_add(&s->rho, times * rho);
    dpa_sum_add(&s->xi, times * xi);
    s->only_gaussian &= gaussian;
    /* a rho below DBL_MIN was rounded up (dpa_positive_up): an upper bound
     * on the true rho only, however many times it is composed, so the
     * Gaussian's profile at it is no lower bound (sigma = 1e300 composed
     * 2.5e18 times: delta(0) >= 2e-153 claimed, the truth 6e-292) */
    if (rho > 0.0 && rho < DBL_MIN) s->only_gaussian = 0;
    return DPA_OK;
}

static int zcdp_init(void *state, const dpa_options *opt, dpa_error *err)
{
    (void)opt; (void)err;
    ((zcdp_state *)state)->only_gaussian = 1;
    return DPA_OK;
}

static int zcdp_supports(const void *state, const dpa_options *opt, const dpa_event *e,
                         dpa_error *err)
{
    (void)state; (void)opt;
    return dpa_event_visit_leaves(e, check_leaf, NULL, err);
}

static int zcdp_compose(void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    (void)opt;
    return dpa_event_visit_leaves(e, add_leaf, state, err);
}

/* CKS eps at alpha = 1 + e^t (t parametrises alpha > 1 without a boundary). */
struct conv { double rho, xi, log_delta, eps; };

/* log(1 - 1/alpha) = -log(1 + e^-t) and log alpha = log(1 + e^t), without
 * the cancellation of t - log(alpha): at t = 34 (alpha ~ 6e14, the optimum
 * for rho ~ 1e-30) that difference is 1.7e-15 with an error of 7e-15, and
 * alpha times it moved log delta by about 4 (delta(0) came out 5.5e-16,
 * below the Gaussian's own 6.4e-16 for that rho). */
static double log_one_minus_inv_alpha(double t)
{
    return -log1p(exp(-t));
}

static double log_alpha(double t)
{
    return t > 0.0 ? t + log1p(exp(-t)) : log1p(exp(t));
}

static double cks_epsilon(double t, const struct conv *c)
{
    double am1 = exp(t), alpha = 1.0 + am1;
    return c->xi + alpha * c->rho + log_one_minus_inv_alpha(t) - (c->log_delta + log_alpha(t)) / am1;
}

static double cks_log_delta(double t, const struct conv *c)
{
    double am1 = exp(t), alpha = 1.0 + am1;
    return am1 * (c->xi + alpha * c->rho - c->eps) + alpha * log_one_minus_inv_alpha(t) - t;
}

/* Minimise f over t in [-40, 40]: a scan, then golden section around the
 * best point.  Returns the minimising t. */
static double minimise(double (*f)(double, const struct conv *), const struct conv *c)
{
    const double lo = -40.0, hi = 40.0;
    const int n = 161;
    double best_t = lo, best = INFINITY, step = (hi - lo) / (n - 1);
    for (int i = 0; i < n; i++) {
        double t = lo + i * step, v = f(t, c);
        if (v < best) { best = v; best_t = t; }
    }
    const double g = 0.5 * (sqrt(5.0) - 1.0);
    double a = best_t - step, b = best_t + step;
    double x1 = b - g * (b - a), x2 = a + g * (b - a), f1 = f(x1, c), f2 = f(x2, c);
    for (int i = 0; i < 80 && b - a > 1e-12; i++) {
        if (f1 < f2) { b = x2; x2 = x1; f2 = f1; x1 = b - g * (b - a); f1 = f(x1, c); }
        else { a = x1; x1 = x2; f1 = f2; x2 = a + g * (b - a); f2 = f(x2, c); }
    }
    double t = f1 < f2 ? x1 : x2;
    return f(t, c) < best ? t : best_t;
}

/* A few ulps of the arithmetic above, rounded against us. */
#define ROUND_PAD (64.0 * DBL_EPSILON)

/* The exact Gaussian profile bounds the truth from below when only Gaussian
 * noise was composed: rho = mu^2 / 2. */
static void gaussian_lower(const zcdp_state *s, double rho, int want_eps, double arg,
                           dpa_bound *out)
{
    dpa_bound g;
    out->flags |= DPA_NO_LOWER;
    out->lower = 0.0;
    if (!s->only_gaussian) return;
    double mu = sqrt(2.0 * rho);
    int st = want_eps ? dpa_gdp_epsilon(mu, arg, &g, NULL) : dpa_gdp_delta(mu, arg, &g, NULL);
    if (st) return;
    out->lower = fmin(g.lower, out->upper);
    out->flags &= ~(unsigned)DPA_NO_LOWER;
    dpa_gdp_drop_uncertain_lower(2.0 * rho, out);
}

static int zcdp_epsilon(void *state, const dpa_options *opt, double delta, dpa_bound *out,
                        dpa_error *err)
{
    (void)opt;
    zcdp_state *s = state;
    struct conv c = { dpa_sum_value(&s->rho), dpa_sum_value(&s->xi), log(delta), 0.0 };
    if (isnan(c.rho) || isnan(c.xi))
        return dpa_fail(err, DPA_EACCURACY, "zcdp: internal error: rho or xi is NaN");
    if (c.rho == INFINITY || c.xi == INFINITY) {
        /* 1/sigma^2 (or a sum of rho) overflowed: no finite eps is known */
        out->lower = 0.0;
        out->estimate = out->upper = INFINITY;
        out->order = 0.0;
        out->flags = DPA_UNBOUNDED | DPA_NO_LOWER;
        return DPA_OK;
    }
    double classic = c.xi + c.rho + 2.0 * sqrt(c.rho * -c.log_delta);
    double t = minimise(cks_epsilon, &c), cks = cks_epsilon(t, &c);
    out->order = 0.0;
    if (c.rho == 0.0) {            /* pure xi: eps = xi by the limit alpha -> inf */
        out->upper = out->estimate = c.xi;
        out->flags = DPA_CONV_CLASSIC;
    } else if (cks < classic) {
        out->upper = out->estimate = cks;
        out->order = 1.0 + exp(t);
        out->flags = DPA_CONV_CKS;
    } else {
        out->upper = out->estimate = classic;
        out->order = 1.0 + sqrt(-c.log_delta / c.rho);
        out->flags = DPA_CONV_CLASSIC;
    }
    /* "x < 0 ? 0 : x" keeps a NaN (which the dispatcher refuses), where
     * fmax(0, NaN) would report 0 */
    out->upper = out->upper * (1.0 + ROUND_PAD) + DBL_MIN;
    if (out->upper < 0.0) out->upper = 0.0;
    if (out->estimate < 0.0) out->estimate = 0.0;
    gaussian_lower(s, c.rho, 1, delta, out);
    return DPA_OK;
}

static int zcdp_delta(void *state, const dpa_options *opt, double epsilon, dpa_bound *out,
                      dpa_error *err)
{
    (void)opt;
    zcdp_state *s = state;
    struct conv c = { dpa_sum_value(&s->rho), dpa_sum_value(&s->xi), 0.0, epsilon };
    if (isnan(c.rho) || isnan(c.xi))
        return dpa_fail(err, DPA_EACCURACY, "zcdp: internal error: rho or xi is NaN");
    if (c.rho == INFINITY || c.xi == INFINITY) {
        out->lower = 0.0;
        out->estimate = out->upper = 1.0;
        out->order = 0.0;
        out->flags = DPA_UNBOUNDED | DPA_NO_LOWER;
        return DPA_OK;
    }
    /* classic: delta = exp(-(eps - rho - xi)^2 / (4 rho)) for eps >= rho + xi */
    double gap = epsilon - c.rho - c.xi;
    double log_classic = gap <= 0.0 ? 0.0 : (c.rho > 0.0 ? -gap * gap / (4.0 * c.rho) : -INFINITY);
    double t = minimise(cks_log_delta, &c), log_cks = cks_log_delta(t, &c);
    double log_best = fmin(0.0, fmin(log_classic, log_cks));
    out->flags = log_cks < log_classic ? DPA_CONV_CKS : DPA_CONV_CLASSIC;
    out->order = log_cks < log_classic ? 1.0 + exp(t) : 0.0;
    out->estimate = exp(log_best);
    out->upper = dpa_exp_upper(log_best + ROUND_PAD * (1.0 + fabs(log_best)));
    gaussian_lower(s, c.rho, 0, epsilon, out);
    return DPA_OK;
}

static double zcdp_state_value(const void *state, const char **what)
{
    *what = "rho";
    return dpa_sum_value(&((const zcdp_state *)state)->rho);
}

const dpa_accountant_ops dpa_zcdp_accountant = {
    .name = "zcdp",
    .summary = "zero-concentrated DP (Bun & Steinke 2016) with the Canonne-Kamath-Steinke conversion",
    .state_size = sizeof(zcdp_state),
    .init = zcdp_init,
    .supports = zcdp_supports,
    .compose = zcdp_compose,
    .epsilon = zcdp_epsilon,
    .delta = zcdp_delta,
    .state_value = zcdp_state_value,
};
