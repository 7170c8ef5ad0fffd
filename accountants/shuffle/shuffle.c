/*
 * shuffle.c - amplification by shuffling of n local randomizers
 * (replace-one), one round: the clones pair of Feldman, McMillan & Talwar
 * 2021 ("Hiding among the clones", FOCS; Sec. 4) evaluated exactly
 * (shuffle_clones.c, which also gives the stronger-clones class of FMT
 * 2023, SODA), inverted for eps; with the closed form of FMT21 Thm 3.1 as
 * dpa_shuffle_closed_form.  Several rounds compose in the pld accountant
 * through the same pair.
 *
 * The bound is the one of the clones pair: `lower` bounds that pair's eps,
 * which the shuffled mechanism need not attain (DPA_PAIR_LOWER).  For
 * (eps0, delta0) randomizers, delta0 > 0, the upper bound adds FMT21
 * Thm 3.8's term (e^eps + 1)(1 + e^-eps0 / 2) n delta0
 * (clones_hybrid_delta) to the eps0-DP pair's delta, and `lower` is the
 * pair's without it.
 */
#include "internal.h"
#include "shuffle_clones.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#define DEFAULT_EPS_ERROR 1e-3

typedef struct {
    int have;
    clones_pair pair;
} shuffle_state;

/* ---- the accountant -------------------------------------------------------------- */

static int leaf_check(const dpa_event *e, const dpa_options *opt, dpa_error *err)
{
    if (dpa_event_get_kind(e) != DPA_EVENT_SHUFFLED)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "shuffle: %s events are not supported (only shuffled local randomizers)",
                        dpa_event_kind_name(dpa_event_get_kind(e)));
    if (opt->relation != DPA_REPLACE_ONE)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "shuffle: amplification by shuffling is stated for replace-one neighbours (n users, "
                        "one's data replaced); use the replace-one relation");
    uint64_t n = dpa_event_count(e, 0);
    if ((double)n > CLONES_MAX_USERS)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "shuffle: more than 1e9 users (%llu) is not supported (the log-gamma start of the "
                        "binomial walks loses accuracy beyond); the closed form dpa_shuffle_closed_form applies",
                        (unsigned long long)n);
    return DPA_OK;
}

/* The pair of a checked shuffled leaf. */
static clones_pair pair_of(const dpa_event *leaf)
{
    return clones_pair_make(dpa_event_param(leaf, 0), dpa_event_param(leaf, 1), dpa_event_count(leaf, 0),
                            (int)dpa_event_count(leaf, 1));
}

/* The one shuffled event of e: a leaf, or a composition of one. */
static int the_leaf(const dpa_event *e, const dpa_options *opt, const dpa_event **leaf, dpa_error *err)
{
    while (dpa_event_get_kind(e) == DPA_EVENT_SELF_COMPOSED && dpa_event_count(e, 0) == 1)
        e = dpa_event_child(e, 0);
    if (dpa_event_get_kind(e) == DPA_EVENT_COMPOSED && dpa_event_num_children(e) == 1)
        return the_leaf(dpa_event_child(e, 0), opt, leaf, err);
    if (dpa_event_get_kind(e) == DPA_EVENT_SELF_COMPOSED || dpa_event_get_kind(e) == DPA_EVENT_COMPOSED)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "shuffle: one shuffled round at a time (several rounds compose in the pld "
                        "accountant, through the same clones pair)");
    *leaf = e;
    return leaf_check(e, opt, err);
}

static int shuffle_supports(const void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    const shuffle_state *s = state;
    const dpa_event *leaf;
    int st = the_leaf(e, opt, &leaf, err);
    if (!st && s->have)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "shuffle: one shuffled round per accountant (several rounds compose in the pld "
                        "accountant)");
    return st;
}

static int shuffle_compose(void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    shuffle_state *s = state;
    const dpa_event *leaf;
    int st = the_leaf(e, opt, &leaf, err);
    if (st) return st;
    s->pair = pair_of(leaf);
    s->have = 1;
    return DPA_OK;
}

/* delta at eps, bracketed: the pair's, and with `hybrid` FMT21 Thm 3.8's
 * term on top of the upper bound (delta0 > 0). */
static void delta_bracket(const shuffle_state *s, double eps, int hybrid, double *lower, double *upper)
{
    clones_delta(&s->pair, eps, lower, upper);
    if (hybrid) *upper = fmin(1.0, *upper + clones_hybrid_delta(&s->pair, eps));
}

static int shuffle_delta(void *state, const dpa_options *opt, double epsilon, dpa_bound *out, dpa_error *err)
{
    shuffle_state *s = state;
    double eps_error = opt->tolerance > 0.0 ? opt->tolerance : DEFAULT_EPS_ERROR;
    *out = (dpa_bound){ 0 };
    if (!s->have) { out->flags = DPA_EXACT; return DPA_OK; }
    double lo, up;
    delta_bracket(s, epsilon, 0, &lo, &up);
    out->lower = lo;
    out->upper = fmin(1.0, up + clones_hybrid_delta(&s->pair, epsilon));
    out->estimate = 0.5 * (lo + out->upper);
    out->flags = DPA_PAIR_LOWER;
    /* the accuracy is the pair's bracket's (the Thm 3.8 term is exact) */
    if (!(up - lo <= eps_error * up)) {
        /* the bracket is certified either way: flagged, as pld's (an error
         * only when the caller asks for one) */
        out->flags |= DPA_WIDTH_NOT_MET;
        if (opt->require_width)
            return dpa_fail(err, DPA_EACCURACY, "shuffle: delta bracket [%g, %g] is wider than eps_error %g allows",
                            lo, up, eps_error);
    }
    return DPA_OK;
}

/* eps' in [0, eps0] with delta_side(eps') <= delta (upper side) or > delta
 * (lower side), by bisection to a relative 1e-4 of eps_error; only verified
 * endpoints are returned, +inf when even eps0 does not meet delta (possible
 * with delta0 > 0).  The upper side's delta need not be monotone (the
 * Thm 3.8 term grows with eps): any verified point is a valid bound. */
static double invert(const shuffle_state *s, double delta, int upper_side, int hybrid, double eps_error);

/* ---- Gaussian local randomizers ------------------------------------------------ */

/* The shuffled bound with the Gaussian's split (eps0, delta0(eps0)): the
 * certified eps at delta (+inf when that split cannot reach it). */
static double gaussian_split_epsilon(double mu, uint64_t n, double eps0, double delta, double *delta0)
{
    dpa_bound b;
    dpa_error ignored = { 0 };
    if (dpa_gdp_delta(mu, eps0, &b, &ignored) != DPA_OK || !(b.upper < delta)) return INFINITY;
    *delta0 = b.upper;
    shuffle_state s = { 1, clones_pair_make(eps0, b.upper, n, DPA_LOCAL_ANY) };
    return invert(&s, delta, 1, 1, 1e-3);
}

int dpa_shuffled_gaussian_epsilon(double noise_multiplier, uint64_t n, double delta, dpa_shuffled_gaussian *out,
                                  dpa_error *err)
{
    if (!out) return dpa_fail(err, DPA_EINVAL, "shuffled gaussian: output is NULL");
    if (!(noise_multiplier > 0.0 && isfinite(noise_multiplier)))
        return dpa_fail(err, DPA_EINVAL, "shuffled gaussian: noise multiplier must be positive and finite, got %g",
                        noise_multiplier);
    if (n < 1) return dpa_fail(err, DPA_EINVAL, "shuffled gaussian: n must be at least 1");
    if ((double)n > CLONES_MAX_USERS)
        return dpa_fail(err, DPA_EUNSUPPORTED, "shuffled gaussian: more than 1e9 records (%llu) is not supported",
                        (unsigned long long)n);
    int st = dpa_check_delta(delta, err);
    if (st) return st;
    *out = (dpa_shuffled_gaussian){ 0 };
    double mu = 1.0 / noise_multiplier;
    dpa_bound plain;
    st = dpa_gdp_epsilon(mu, delta, &plain, err);
    if (st) return st;
    out->plain_epsilon = plain.upper;
    /* Every split gives a valid bound, so the search decides tightness
     * only: a log grid of eps0 over [1e-3, 30], then golden sections
     * around the best point. */
    const int grid = 48;
    double best = INFINITY, best_e0 = NAN, best_d0 = NAN;
    double e0s[48];
    for (int i = 0; i < grid; i++) {
        e0s[i] = 1e-3 * pow(3e4, (double)i / (double)(grid - 1));
        double d0, e = gaussian_split_epsilon(mu, n, e0s[i], delta, &d0);
        if (e < best) { best = e; best_e0 = e0s[i]; best_d0 = d0; }
    }
    if (isfinite(best)) {
        int i = 0;
        while (e0s[i] != best_e0) i++;
        double a = e0s[i > 0 ? i - 1 : 0], b = e0s[i + 1 < grid ? i + 1 : grid - 1];
        const double g = 0.5 * (3.0 - sqrt(5.0));
        double x1 = a + g * (b - a), x2 = b - g * (b - a), d1, d2;
        double f1 = gaussian_split_epsilon(mu, n, x1, delta, &d1), f2 = gaussian_split_epsilon(mu, n, x2, delta, &d2);
        for (int it = 0; it < 24; it++) {
            if (f1 < best) { best = f1; best_e0 = x1; best_d0 = d1; }
            if (f2 < best) { best = f2; best_e0 = x2; best_d0 = d2; }
            if (f1 <= f2) { b = x2; x2 = x1; f2 = f1; d2 = d1; x1 = a + g * (b - a); f1 = gaussian_split_epsilon(mu, n, x1, delta, &d1); }
            else { a = x1; x1 = x2; f1 = f2; d1 = d2; x2 = b - g * (b - a); f2 = gaussian_split_epsilon(mu, n, x2, delta, &d2); }
        }
        if (f1 < best) { best = f1; best_e0 = x1; best_d0 = d1; }
        if (f2 < best) { best = f2; best_e0 = x2; best_d0 = d2; }
    }
    out->shuffled_epsilon = best;
    out->epsilon0 = best_e0;
    out->delta0 = best_d0;
    out->amplified = best < out->plain_epsilon;
    out->epsilon = out->amplified ? best : out->plain_epsilon;
    return DPA_OK;
}

static double invert(const shuffle_state *s, double delta, int upper_side, int hybrid, double eps_error)
{
    double a = 0.0, b = s->pair.eps0;
    double l, u;
    delta_bracket(s, b, hybrid, &l, &u);
    if (!((upper_side ? u : l) <= delta)) return INFINITY;
    delta_bracket(s, 0.0, hybrid, &l, &u);
    if ((upper_side ? u : l) <= delta) return 0.0;
    for (int it = 0; it < 200 && b - a > 1e-4 * eps_error * b; it++) {
        double mid = 0.5 * (a + b);
        delta_bracket(s, mid, hybrid, &l, &u);
        if ((upper_side ? u : l) <= delta) b = mid;
        else a = mid;
    }
    return upper_side ? b : a;
}

static int shuffle_epsilon(void *state, const dpa_options *opt, double delta, dpa_bound *out, dpa_error *err)
{
    shuffle_state *s = state;
    double eps_error = opt->tolerance > 0.0 ? opt->tolerance : DEFAULT_EPS_ERROR;
    *out = (dpa_bound){ 0 };
    if (!s->have) { out->flags = DPA_EXACT; return DPA_OK; }
    double lo = invert(s, delta, 0, 0, eps_error), up_pair = invert(s, delta, 1, 0, eps_error);
    double up = s->pair.delta0 > 0.0 ? invert(s, delta, 1, 1, eps_error) : up_pair;
    out->lower = fmin(lo, up);
    out->upper = up;
    out->flags = DPA_PAIR_LOWER;
    if (up == INFINITY) {
        /* delta is below what this bound reaches (the Thm 3.8 term) */
        out->flags |= DPA_UNBOUNDED;
        out->estimate = INFINITY;
        return DPA_OK;
    }
    out->estimate = 0.5 * (out->lower + up);
    /* the accuracy is the pair's bracket's (the Thm 3.8 term is exact) */
    if (!(up_pair - fmin(lo, up_pair) <= eps_error * up_pair)) {
        out->flags |= DPA_WIDTH_NOT_MET;
        if (opt->require_width)
            return dpa_fail(err, DPA_EACCURACY, "shuffle: eps bracket [%g, %g] is wider than eps_error %g allows",
                            fmin(lo, up_pair), up_pair, eps_error);
    }
    return DPA_OK;
}

static double shuffle_state_value(const void *state, const char **what)
{
    *what = "eps0";
    return ((const shuffle_state *)state)->pair.eps0;
}

const dpa_accountant_ops dpa_shuffle_accountant = {
    .name = "shuffle",
    .summary = "amplification by shuffling of local randomizers, one round: the clones bound of Feldman, "
               "McMillan & Talwar (FOCS 2021; SODA 2023 for the randomized-response class), computed exactly",
    .state_size = sizeof(shuffle_state),
    .supports = shuffle_supports,
    .compose = shuffle_compose,
    .epsilon = shuffle_epsilon,
    .delta = shuffle_delta,
    .state_value = shuffle_state_value,
};

/* ---- the closed form ----------------------------------------------------------------- */

/* FMT21 Thm 3.1, valid for eps0 <= log(n / (16 log(4/delta))): with
 * a = 8 sqrt(e^eps0 log(4/delta) / n), c = 8 e^eps0 / n,
 *   eps = log(1 + (1 - e^-eps0) / (1 + e^{-eps0 - e1}) (a + c)),  e1 = log(1 + a + c)
 * (the form of the authors' published computation; at e1 = 0 it is the
 * (e^eps0 - 1)/(e^eps0 + 1) factor of the statement, and it is never
 * smaller, so it is the safe one of the two). */
int dpa_shuffle_closed_form(double epsilon0, uint64_t n, double delta, double *epsilon, dpa_error *err)
{
    if (!epsilon) return dpa_fail(err, DPA_EINVAL, "shuffle: output is NULL");
    if (!(epsilon0 > 0.0 && isfinite(epsilon0)))
        return dpa_fail(err, DPA_EINVAL, "shuffle: eps0 must be positive and finite, got %g", epsilon0);
    if (n < 1) return dpa_fail(err, DPA_EINVAL, "shuffle: n must be at least 1");
    int st = dpa_check_delta(delta, err);
    if (st) return st;
    double limit = log((double)n / (16.0 * log(4.0 / delta)));
    if (!(epsilon0 <= limit))
        return dpa_fail(err, DPA_EINVAL,
                        "shuffle: the closed form needs eps0 <= log(n / (16 log(4/delta))) = %g, got eps0 = %g",
                        limit, epsilon0);
    double a = 8.0 * sqrt(exp(epsilon0) * log(4.0 / delta) / (double)n), c = 8.0 * exp(epsilon0) / (double)n;
    double e1 = log1p(a + c);
    double factor = -expm1(-epsilon0) / (1.0 + exp(-epsilon0 - e1));
    *epsilon = log1p(factor * (a + c)) * (1.0 + 1e-14);
    return DPA_OK;
}
