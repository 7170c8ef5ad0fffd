/*
 * rdp.c - Renyi differential privacy (Mironov 2017) on a grid of orders.
 *
 * The state is eps(alpha) for each order of the grid; composition adds
 * curves (Mironov 2017, Prop. 1).  A whole event is turned into one curve
 * before anything is added, so a refused or failed event leaves the state
 * as it was.  Conversions to (eps, delta) take the best order of the grid,
 * by the classic bound eps(alpha) + log(1/delta)/(alpha - 1) (Mironov 2017,
 * Prop. 3) or the improved one of Canonne, Kamath & Steinke 2020 (Prop. 12),
 * equivalently Balle et al. 2020 (Thm 21):
 *   eps(alpha) + log((alpha - 1)/alpha) - (log delta + log alpha)/(alpha - 1).
 */
#include "internal.h"
#include "numerics.h"
#include "rdp_curves.h"
#include "shuffle/shuffle_clones.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t n;
    double *orders; /* ascending */
    dpa_sum *eps;   /* accumulated eps(alpha); +inf allowed */
} rdp_state;

/* The default grid: fractional orders near 1 (1.25 .. 10 by 0.25) for large
 * eps and moderate delta, integers 11 .. 64, and 128 .. 1024 for tiny delta
 * or tiny eps. */
static size_t default_orders(double *out)
{
    size_t n = 0;
    for (int i = 5; i <= 40; i++) out[n++] = 0.25 * i;
    for (int a = 11; a <= 64; a++) out[n++] = a;
    for (int a = 128; a <= 1024; a *= 2) out[n++] = a;
    return n;
}
#define DEFAULT_ORDER_COUNT 94
#define RDP_SHUFFLE_MAX_USERS 1e5   /* clones_rdp: one pass over every clone count at 10001 nodes */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int rdp_init(void *state, const dpa_options *opt, dpa_error *err)
{
    rdp_state *s = state;
    size_t n = opt->num_orders ? opt->num_orders : DEFAULT_ORDER_COUNT;
    s->orders = malloc(n * sizeof *s->orders);
    s->eps = calloc(n, sizeof *s->eps);
    if (!s->orders || !s->eps) {
        free(s->orders);
        free(s->eps);
        return dpa_fail(err, DPA_ENOMEM, "rdp: out of memory for %zu orders", n);
    }
    if (opt->num_orders) memcpy(s->orders, opt->orders, n * sizeof *s->orders);
    else default_orders(s->orders);
    qsort(s->orders, n, sizeof *s->orders, compare_doubles);
    s->n = n;
    return DPA_OK;
}

static void rdp_destroy(void *state)
{
    rdp_state *s = state;
    free(s->orders);
    free(s->eps);
}

/* ---- the curve of an event ---------------------------------------------- */

/* 1/sigma^2 of the Gaussian noise a subsampling wrapper holds. */
static int inverse_variance(const dpa_event *e, double *inv_var, dpa_error *err)
{
    const dpa_event *bad = NULL;
    int st = dpa_event_inverse_variance(e, inv_var, &bad);
    if (st == DPA_EUNSUPPORTED)
        return dpa_fail(err, st, "rdp: a subsampled %s is not supported (only Gaussian noise)",
                        dpa_event_kind_name(dpa_event_get_kind(bad)));
    return st ? dpa_fail(err, st, "rdp: invalid event") : DPA_OK;
}

static int curve(const rdp_state *s, const dpa_options *opt, const dpa_event *e, double *out,
                 dpa_error *err);

/* Papernot & Steinke 2022: run the inner mechanism K times, K random, and
 * release the best run.  Poisson(mean mu), Theorem 6:
 *   eps'(l) = eps(l) + mu delta_hat + log(mu)/(l - 1),  delta_hat = delta(eps_hat)
 *   of the inner curve at eps_hat = log(1 + 1/(l - 1));
 * truncated negative binomial (eta, gamma), Theorem 2:
 *   eps'(l) = eps(l) + (1 + eta) min_j [(1 - 1/l_j) eps(l_j) + log(1/gamma)/l_j]
 *             + log(E[K])/(l - 1),
 * then monotonicity in the order (eps' at l is at most eps' at any larger l). */
static double curve_log_delta(const rdp_state *s, const double *eps, double epsilon);

static int repeated_selected(const rdp_state *s, const dpa_options *opt, const dpa_event *e,
                             double *out, dpa_error *err)
{
    double *inner = out ? malloc(s->n * sizeof *inner) : NULL;
    if (out && !inner) return dpa_fail(err, DPA_ENOMEM, "rdp: out of memory");
    int st = curve(s, opt, dpa_event_child(e, 0), inner, err);
    if (st || !out) { free(inner); return st; }
    int dist = (int)dpa_event_count(e, 0);
    double p1 = dpa_event_param(e, 0), p2 = dpa_event_param(e, 1);
    if (dist == DPA_REPEAT_POISSON) {
        for (size_t i = 0; i < s->n; i++) {
            double l = s->orders[i];
            double delta_hat = exp(curve_log_delta(s, inner, log1p(1.0 / (l - 1.0))));
            out[i] = inner[i] + p1 * delta_hat + log(p1) / (l - 1.0);
        }
    } else {
        /* DPA_REPEAT_GEOMETRIC(gamma) is the truncated negative binomial
         * with eta = 1 (P[K = k] = gamma (1 - gamma)^(k-1)); gamma = 1 is
         * a single run */
        double eta = dist == DPA_REPEAT_GEOMETRIC ? 1.0 : p1, gamma = dist == DPA_REPEAT_GEOMETRIC ? p1 : p2;
        if (gamma == 1.0) {
            memcpy(out, inner, s->n * sizeof *out);
            free(inner);
            return DPA_OK;
        }
        double mean = eta == 0.0 ? (1.0 / gamma - 1.0) / log(1.0 / gamma)
                                 : eta * (1.0 - gamma) / (gamma * (1.0 - pow(gamma, eta)));
        double c = INFINITY;
        for (size_t j = 0; j < s->n; j++) {
            double l = s->orders[j];
            c = fmin(c, (1.0 - 1.0 / l) * inner[j] + log(1.0 / gamma) / l);
        }
        c *= 1.0 + eta;
        for (size_t i = 0; i < s->n; i++)
            out[i] = inner[i] + c + log(mean) / (s->orders[i] - 1.0);
        for (size_t i = s->n - 1; i-- > 0;) out[i] = fmin(out[i], out[i + 1]);
    }
    free(inner);
    return DPA_OK;
}

/* Fill out[i] = eps(orders[i]) for one leaf given by a per-order function. */
#define FILL(expr) do { if (out) for (size_t i = 0; i < s->n; i++) { double alpha = s->orders[i]; out[i] = (expr); } } while (0)

/* The RDP curve of `e` on the grid, into out (NULL: only check support). */
static int curve(const rdp_state *s, const dpa_options *opt, const dpa_event *e, double *out,
                 dpa_error *err)
{
    dpa_event_kind kind = dpa_event_get_kind(e);
    double p0 = dpa_event_param(e, 0), p1 = dpa_event_param(e, 1);
    int st = DPA_OK;
    switch (kind) {
    case DPA_EVENT_COMPOSED: {
        double *part = out ? malloc(s->n * sizeof *part) : NULL;
        if (out && !part) return dpa_fail(err, DPA_ENOMEM, "rdp: out of memory");
        if (out) memset(out, 0, s->n * sizeof *out);
        for (size_t c = 0; c < dpa_event_num_children(e) && !st; c++) {
            st = curve(s, opt, dpa_event_child(e, c), part, err);
            if (!st && out) for (size_t i = 0; i < s->n; i++) out[i] += part[i];
        }
        free(part);
        return st;
    }
    case DPA_EVENT_SELF_COMPOSED: {
        st = curve(s, opt, dpa_event_child(e, 0), out, err);
        /* rounded up: the product of a count and a curve value is within an
         * ulp, and nested self-compositions would otherwise round down once
         * per level */
        if (!st && out)
            for (size_t i = 0; i < s->n; i++) out[i] *= (double)dpa_event_count(e, 0) * (1.0 + 2.0 * DBL_EPSILON);
        return st;
    }
    case DPA_EVENT_GAUSSIAN: FILL(rdp_gaussian(p0, alpha)); return DPA_OK;
    case DPA_EVENT_POISSON_SAMPLED: {
        double inv_var;
        if (opt->relation != DPA_ADD_REMOVE)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "rdp: Poisson sampling is accounted for add/remove neighbours only");
        if ((st = inverse_variance(dpa_event_child(e, 0), &inv_var, err))) return st;
        FILL(rdp_poisson_gaussian(p0, 1.0 / sqrt(inv_var), alpha));
        return DPA_OK;
    }
    case DPA_EVENT_SAMPLED_WITHOUT_REPLACEMENT: {
        double inv_var;
        if (opt->relation != DPA_REPLACE_ONE)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "rdp: sampling without replacement is accounted for replace-one neighbours only");
        if ((st = inverse_variance(dpa_event_child(e, 0), &inv_var, err))) return st;
        double gamma = (double)dpa_event_count(e, 1) / (double)dpa_event_count(e, 0);
        FILL(rdp_sampled_without_replacement_gaussian(gamma, 1.0 / sqrt(inv_var), alpha));
        return DPA_OK;
    }
    case DPA_EVENT_LAPLACE: FILL(rdp_laplace(p0, alpha)); return DPA_OK;
    case DPA_EVENT_RANDOMIZED_RESPONSE:
        FILL(rdp_randomized_response(p0, (double)dpa_event_count(e, 0), alpha));
        return DPA_OK;
    case DPA_EVENT_DISCRETE_LAPLACE:  /* pure eps-DP with eps = sensitivity / scale */
        FILL(rdp_pure_dp((double)dpa_event_count(e, 0) / p0, alpha));
        return DPA_OK;
    case DPA_EVENT_EPSILON_DELTA:
        if (p1 != 0.0)
            return dpa_fail(err, DPA_EUNSUPPORTED, "rdp: an (eps, delta) event with delta > 0 has no RDP guarantee");
        FILL(rdp_pure_dp(p0, alpha));
        return DPA_OK;
    case DPA_EVENT_EXPONENTIAL:
        /* eps-bounded range: eps^2/8-zCDP (Cesar & Rogers 2021, Lemma 3.2), and eps-DP */
        FILL(fmin(alpha * p0 * p0 / 8.0 * (1.0 + 1e-15), rdp_pure_dp(p0, alpha)));
        return DPA_OK;
    case DPA_EVENT_DISCRETE_GAUSSIAN: {
        /* Delta^2/(2 sigma^2)-zCDP (Canonne, Kamath & Steinke 2020, Thm 4) */
        double d = (double)dpa_event_count(e, 0) / p0;
        FILL(rdp_gaussian(1.0 / d, alpha));
        return DPA_OK;
    }
    case DPA_EVENT_ZCDP: FILL((p1 + alpha * p0) * (1.0 + 1e-15)); return DPA_OK;
    case DPA_EVENT_GDP: FILL(rdp_gaussian(1.0 / p0, alpha)); return DPA_OK;
    case DPA_EVENT_NOISY_CGD:           /* mu-GDP (Bok, Su & Altschuler 2024, Thm 4.5) */
    case DPA_EVENT_TREE_AGGREGATION: {  /* Gaussian nodes (Kairouz et al. 2021; lib/event.c) */
        double inv_var;
        if ((st = inverse_variance(e, &inv_var, err))) return st;
        FILL(rdp_gaussian(1.0 / sqrt(inv_var), alpha));
        return DPA_OK;
    }
    case DPA_EVENT_REPEATED_SELECTED:
        return repeated_selected(s, opt, e, out, err);
    case DPA_EVENT_GSM_FROBENIUS: {     /* Gu et al. WACV 2025's GSM, lib/gsm.c */
        double k = (double)dpa_event_count(e, 0);
        FILL(k * dpa_gsm_order_frobenius(alpha, p0) * (1.0 + 2.0 * DBL_EPSILON));
        return DPA_OK;
    }
    case DPA_EVENT_GSM_SPECTRAL: {
        double k = (double)dpa_event_count(e, 0), n = (double)dpa_event_count(e, 1);
        FILL(k * dpa_gsm_order_spectral(alpha, n, p0) * (1.0 + 2.0 * DBL_EPSILON));
        return DPA_OK;
    }
    case DPA_EVENT_TRUNCATED_LAPLACE:
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "rdp: truncated Laplace has infinite Renyi divergence at every order (its two output "
                        "distributions have different supports); use pld, which accounts it exactly");
    case DPA_EVENT_SHUFFLED: {
        /* the clones pair of shuffle_clones.c, whose divergence dominates
         * the shuffled outputs' (post-processing); and the local eps0-DP */
        uint64_t users = dpa_event_count(e, 0);
        if (opt->relation != DPA_REPLACE_ONE)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "rdp: shuffled events: amplification by shuffling is stated for replace-one neighbours; "
                            "use the replace-one relation");
        if (p1 > 0.0)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "rdp: shuffled (eps0, delta0) randomizers with delta0 > 0 have no RDP bound here; use the "
                            "shuffle accountant");
        if ((double)users > RDP_SHUFFLE_MAX_USERS)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "rdp: shuffled events with more than 1e5 users (%llu) are not supported (the divergence "
                            "sums over every clone count); use pld", (unsigned long long)users);
        if (!out) return DPA_OK;
        clones_pair cp = clones_pair_make(p0, 0.0, users, (int)dpa_event_count(e, 1));
        if (clones_rdp(&cp, s->orders, s->n, out)) return dpa_fail(err, DPA_ENOMEM, "rdp: out of memory");
        for (size_t i = 0; i < s->n; i++) out[i] = fmin(out[i], rdp_pure_dp(p0, s->orders[i]));
        return DPA_OK;
    }
    default:
        return dpa_fail(err, DPA_EUNSUPPORTED, "rdp: %s events are not supported",
                        dpa_event_kind_name(kind));
    }
}

static int rdp_supports(const void *state, const dpa_options *opt, const dpa_event *e,
                        dpa_error *err)
{
    return curve(state, opt, e, NULL, err);
}

static int rdp_compose(void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    rdp_state *s = state;
    double *c = malloc(s->n * sizeof *c);
    if (!c) return dpa_fail(err, DPA_ENOMEM, "rdp: out of memory");
    int st = curve(s, opt, e, c, err);
    for (size_t i = 0; !st && i < s->n; i++)
        if (isnan(c[i]) || c[i] < 0.0)
            st = dpa_fail(err, DPA_EACCURACY, "rdp: eps at order %g could not be evaluated to the required accuracy",
                          s->orders[i]);
    for (size_t i = 0; !st && i < s->n; i++) dpa_sum_add(&s->eps[i], c[i]);
    free(c);
    return st;
}

/* ---- conversions ---------------------------------------------------------- */

/* eps(alpha) with its rounding, never below the accumulated value. */
static double accumulated(const rdp_state *s, size_t i)
{
    double v = dpa_sum_value(&s->eps[i]);
    return isfinite(v) ? v * (1.0 + 4.0 * DBL_EPSILON) : v;
}

/* log delta at eps from a curve: the smaller of the classic bound
 * (alpha - 1)(eps(alpha) - eps) and CKS's, which adds
 * alpha log(1 - 1/alpha) - log(alpha - 1), minimised over the grid. */
static double log_delta_at(double alpha, double eps_alpha, double epsilon, int *cks)
{
    double classic = (alpha - 1.0) * (eps_alpha - epsilon);
    double improved = classic + alpha * log1p(-1.0 / alpha) - log(alpha - 1.0);
    *cks = improved < classic;
    return fmin(classic, improved);
}

static double curve_log_delta(const rdp_state *s, const double *eps, double epsilon)
{
    double best = 0.0;
    int cks;
    for (size_t i = 0; i < s->n; i++)
        if (isfinite(eps[i])) best = fmin(best, log_delta_at(s->orders[i], eps[i], epsilon, &cks));
    return best;
}

static void finish(const rdp_state *s, size_t best_i, int cks, dpa_bound *out)
{
    out->lower = 0.0;
    out->order = s->orders[best_i];
    out->flags = DPA_NO_LOWER | (cks ? DPA_CONV_CKS : DPA_CONV_CLASSIC);
    if (s->n > 1 && (best_i == 0 || best_i == s->n - 1)) out->flags |= DPA_ORDER_AT_EDGE;
}

/* Nothing private happened: every eps(alpha) is 0.  The conversions are
 * not tight there (they would report log(1/delta)/(alpha_max - 1)). */
static int curve_is_zero(const rdp_state *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (dpa_sum_value(&s->eps[i]) != 0.0) return 0;
    return 1;
}

static void exactly_zero(dpa_bound *out)
{
    out->lower = out->estimate = out->upper = 0.0;
    out->order = 0.0;
    out->flags = DPA_EXACT;
}

static int rdp_epsilon(void *state, const dpa_options *opt, double delta, dpa_bound *out,
                       dpa_error *err)
{
    (void)opt; (void)err;
    const rdp_state *s = state;
    if (curve_is_zero(s)) { exactly_zero(out); return DPA_OK; }
    double best = INFINITY, log_delta = log(delta);
    size_t best_i = 0;
    int best_cks = 0;
    for (size_t i = 0; i < s->n; i++) {
        double a = s->orders[i], e = accumulated(s, i);
        if (!isfinite(e)) continue;
        double classic = e - log_delta / (a - 1.0);
        double improved = e + log1p(-1.0 / a) - (log_delta + log(a)) / (a - 1.0);
        double v = fmin(classic, improved);
        if (v < best) { best = v; best_i = i; best_cks = improved < classic; }
    }
    if (best == INFINITY) {
        out->lower = 0.0;
        out->estimate = out->upper = INFINITY;
        out->order = 0.0;
        out->flags = DPA_UNBOUNDED | DPA_NO_LOWER;
        return DPA_OK;
    }
    /* the conversion's own arithmetic: a few ulps of its largest term */
    double slack = 16.0 * DBL_EPSILON * (fabs(best) + fabs(log_delta));
    /* the conversion may go below 0 at a huge order; "x < 0 ? 0 : x" would
     * keep a NaN for the dispatcher to refuse */
    out->estimate = best < 0.0 ? 0.0 : best;
    out->upper = best + slack < 0.0 ? 0.0 : best + slack;
    finish(s, best_i, best_cks, out);
    return DPA_OK;
}

static int rdp_delta(void *state, const dpa_options *opt, double epsilon, dpa_bound *out,
                     dpa_error *err)
{
    (void)opt; (void)err;
    const rdp_state *s = state;
    if (curve_is_zero(s)) { exactly_zero(out); return DPA_OK; }
    double best = 0.0;
    size_t best_i = 0;
    int best_cks = 0, cks;
    for (size_t i = 0; i < s->n; i++) {
        double e = accumulated(s, i);
        if (!isfinite(e)) continue;
        double v = log_delta_at(s->orders[i], e, epsilon, &cks);
        if (v < best) { best = v; best_i = i; best_cks = cks; }
    }
    out->estimate = exp(best);
    out->upper = dpa_exp_upper(best + 16.0 * DBL_EPSILON * (1.0 + fabs(best)));
    finish(s, best_i, best_cks, out);
    if (best == 0.0) { out->order = 0.0; out->flags &= ~(unsigned)DPA_ORDER_AT_EDGE; }
    return DPA_OK;
}

static double rdp_state_value(const void *state, const char **what)
{
    const rdp_state *s = state;
    *what = "eps(alpha_max)";
    return dpa_sum_value(&s->eps[s->n - 1]);
}

static size_t rdp_curve_copy(const void *state, double *orders, double *eps, size_t cap)
{
    const rdp_state *s = state;
    for (size_t i = 0; i < s->n && i < cap; i++) {
        orders[i] = s->orders[i];
        eps[i] = accumulated(s, i);
    }
    return s->n;
}

const dpa_accountant_ops dpa_rdp_accountant = {
    .name = "rdp",
    .summary = "Renyi DP on a grid of orders (Mironov 2017) with the Canonne-Kamath-Steinke conversion",
    .state_size = sizeof(rdp_state),
    .init = rdp_init,
    .destroy = rdp_destroy,
    .supports = rdp_supports,
    .compose = rdp_compose,
    .epsilon = rdp_epsilon,
    .delta = rdp_delta,
    .state_value = rdp_state_value,
    .rdp_curve = rdp_curve_copy,
};
