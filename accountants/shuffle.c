/*
 * shuffle.c - amplification by shuffling of n eps0-local randomizers
 * (replace-one), by the numerical bound of Feldman, McMillan & Talwar 2021
 * ("Hiding among the clones", FOCS; Sec. 4), with its closed form
 * (their Thm 3.1) as dpa_shuffle_closed_form.
 *
 * The reduction (FMT21, Thm 3.2 and Sec. 4): with p = e^-eps0 and
 * a = e^eps0 / (e^eps0 + 1), let C ~ Bin(n - 1, p) be the number of other
 * users that act as clones of the differing one, and given C = c
 *   P_c = a Bin(c, 1/2) + (1 - a) (Bin(c, 1/2) + 1),
 *   Q_c = (1 - a) Bin(c, 1/2) + a (Bin(c, 1/2) + 1);
 * the shuffled output is a post-processing of (C, K) under P or Q, so
 *   delta(eps) <= sum_c Pr(C = c) H_{e^eps}(P_c || Q_c)
 * (Q_c is P_c reflected, so both directions give the same number).
 *
 * One H_c in closed form: P_c / Q_c decreases in k, and P_c(k) > e^eps Q_c(k)
 * iff k < beta (c + 1), beta = (e^eps0 - e^eps) / ((e^eps0 - 1)(e^eps + 1))
 * (formed divided by e^eps0),
 * so with F the CDF of Bin(c, 1/2) and kappa the largest such k,
 *   H_c = A F(kappa) - B F(kappa - 1),
 *   A = (e^eps0 - e^eps) / (1 + e^eps0),  B = (e^{eps + eps0} - 1) / (1 + e^eps0),
 * and H_c = 0 from eps = eps0 on (the mechanism is eps0-DP anyway).
 *
 * H_c does not increase with c: Bin(c + 1, 1/2) is Bin(c, 1/2) plus an
 * independent coin, so (P_c+1, Q_c+1) is a post-processing of (P_c, Q_c).
 * That makes buckets of c certify both sides: over [c_a, c_b] the bucket's
 * weight times H at c_a bounds from above, times H at c_b from below.  The
 * weights of Bin(n - 1, p) are summed once (positive terms) on a window of
 * +-14 standard deviations; what lies outside counts in full above (and
 * not at all below).  Buckets are refined until the eps bracket meets
 * eps_error.  GSL's binomial CDF and pmf carry a stated error margin (see
 * gsl_relerr), checked against MPFR in tests/test_shuffle.c, which limits n
 * to 1e6 for now.
 *
 * The bound is the one of the clones pair: `lower` bounds that pair's eps,
 * which the shuffled mechanism need not attain (DPA_PAIR_LOWER).
 */
#include "internal.h"
#include "numerics.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#define DEFAULT_EPS_ERROR 1e-3
#define WINDOW_SD 14.0
/* GSL's binomial pmf and CDF lose accuracy with the number of trials c (the
 * log-gamma prefactor): measured against MPFR, relative errors 7.8e-13 at
 * c = 1e3, 2.2e-10 at 1e5, 1.2e-9 at 1e6, 2e-7 at 3.7e7, and NaN at the
 * centre from c = 1e7 on.  The margin 1e-12 + 1e-14 c covers the measured
 * errors 5-14 times over up to c = 1e6, hence the limit on n (tests check
 * the model against MPFR). */
#define MAX_USERS 1000000.0
static double gsl_relerr(double c) { return 1e-12 + 1e-14 * c; }

typedef struct {
    int have;
    double eps0;
    uint64_t n;
    /* C ~ Bin(n - 1, e^-eps0) on [lo, hi]: weight[c - lo], and the tails */
    uint64_t lo, hi;
    double *weight;
    double tail_lo, tail_hi;
} shuffle_state;

/* ---- the clones pair -------------------------------------------------------- */

/* H_{e^eps}(P_c || Q_c) and a bound on its rounding error (*err). */
static double clones_delta(double eps0, uint64_t c, double eps, double *err)
{
    *err = 0.0;
    if (!(eps < eps0)) return 0.0;
    /* divided through by e^eps0, so that a large eps0 cannot overflow */
    double gap = -expm1(eps - eps0);                        /* 1 - e^{eps - eps0} > 0 */
    double a = gap / (1.0 + exp(-eps0));
    double beta = gap / (-expm1(-eps0) * (exp(eps) + 1.0));
    double bound = beta * ((double)c + 1.0);
    double kappa = ceil(bound) - 1.0;                       /* largest k < beta (c + 1) */
    if (kappa > (double)c) kappa = (double)c;
    if (kappa < 0.0) kappa = 0.0;                           /* k = 0 is always in the set */
    /* A F(kappa) - B F(kappa - 1) = A b(kappa) - (e^eps - 1) F(kappa - 1),
     * since A - B = 1 - e^eps: two terms much smaller than F, so that the
     * CDF's relative error costs less where they nearly cancel */
    unsigned trials = (unsigned)c;
    double pk = gsl_ran_binomial_pdf((unsigned)kappa, 0.5, trials);
    double f1 = kappa >= 1.0 ? gsl_cdf_binomial_P((unsigned)kappa - 1u, 0.5, trials) : 0.0;
    double t1 = a * pk, t2 = f1 > 0.0 ? expm1(eps) * f1 : 0.0;   /* e^eps may overflow where F = 0 */
    *err = gsl_relerr((double)c) * (t1 + t2) + 4.0 * DBL_EPSILON * (t1 + t2) + 1e-300;
    double h = t1 - t2;
    return h > 0.0 ? h : 0.0;
}

/* ---- the weights of C ------------------------------------------------------------ */

static int build_weights(shuffle_state *s, dpa_error *err)
{
    dpa_gsl_quiet();
    double p = exp(-s->eps0);
    unsigned trials = (unsigned)(s->n - 1);
    double mean = (double)trials * p, sd = sqrt((double)trials * p * (1.0 - p));
    double lo = floor(mean - WINDOW_SD * sd) - 1.0, hi = ceil(mean + WINDOW_SD * sd) + 1.0;
    s->lo = lo < 0.0 ? 0 : (uint64_t)lo;
    s->hi = hi > (double)trials ? trials : (uint64_t)hi;
    size_t m = (size_t)(s->hi - s->lo + 1);
    s->weight = malloc(m * sizeof *s->weight);
    if (!s->weight) return dpa_fail(err, DPA_ENOMEM, "shuffle: out of memory for %zu weights", m);
    for (size_t i = 0; i < m; i++) s->weight[i] = gsl_ran_binomial_pdf((unsigned)(s->lo + i), p, trials);
    s->tail_lo = s->lo > 0 ? gsl_cdf_binomial_P((unsigned)(s->lo - 1), p, trials) : 0.0;
    s->tail_hi = s->hi < trials ? gsl_cdf_binomial_Q((unsigned)s->hi, p, trials) : 0.0;
    return DPA_OK;
}

/* delta(eps) bracketed with buckets of `width` values of c. */
static void delta_bracket(const shuffle_state *s, double eps, uint64_t width, double *lower, double *upper)
{
    dpa_sum up = { 0 }, dn = { 0 };
    double e;
    /* below the window H <= H_0, above it H <= H_hi: counted in full above */
    double h0 = clones_delta(s->eps0, 0, eps, &e);
    dpa_sum_add(&up, s->tail_lo * (1.0 + gsl_relerr((double)(s->n - 1))) * (h0 + e));
    double h_start = clones_delta(s->eps0, s->lo, eps, &e), e_start = e;
    for (uint64_t a = s->lo; a <= s->hi; a += width) {
        uint64_t b = a + width - 1 > s->hi ? s->hi : a + width - 1;
        dpa_sum w = { 0 };
        for (uint64_t c = a; c <= b; c++) dpa_sum_add(&w, s->weight[c - s->lo]);
        double weight = dpa_sum_value(&w);
        double e_end = e_start, h_end = h_start;
        if (b > a) h_end = clones_delta(s->eps0, b, eps, &e_end);
        double rel = gsl_relerr((double)(s->n - 1));         /* the weights' own error */
        dpa_sum_add(&up, weight * (1.0 + rel) * (h_start + e_start));
        dpa_sum_add(&dn, weight * (1.0 - rel) * fmax(0.0, h_end - e_end));
        if (b < s->hi) h_start = clones_delta(s->eps0, b + 1, eps, &e_start);
        else dpa_sum_add(&up, s->tail_hi * (1.0 + gsl_relerr((double)(s->n - 1))) * (h_end + e_end));
    }
    *upper = fmin(1.0, dpa_sum_value(&up) * (1.0 + 1e-13));
    *lower = fmax(0.0, dpa_sum_value(&dn) * (1.0 - 1e-13));
}

/* ---- the accountant -------------------------------------------------------------- */

static int leaf_check(const dpa_event *e, const dpa_options *opt, dpa_error *err)
{
    if (dpa_event_get_kind(e) != DPA_EVENT_SHUFFLED)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "shuffle: %s events are not supported (only shuffled eps0-local randomizers)",
                        dpa_event_kind_name(dpa_event_get_kind(e)));
    if (opt->relation != DPA_REPLACE_ONE)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "shuffle: amplification by shuffling is stated for replace-one neighbours (n users, "
                        "one's data replaced); use the replace-one relation");
    double eps0 = dpa_event_param(e, 0);
    uint64_t n = dpa_event_count(e, 0);
    if (!(eps0 > 0.0 && isfinite(eps0)))
        return dpa_fail(err, DPA_EINVAL, "shuffle: eps0 must be positive and finite, got %g", eps0);
    if (n < 1) return dpa_fail(err, DPA_EINVAL, "shuffle: n must be at least 1");
    if ((double)n > MAX_USERS)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "shuffle: more than 1e6 users (%llu) is not supported yet (the binomial probabilities "
                        "of GSL lose accuracy beyond); the closed form dpa_shuffle_closed_form applies",
                        (unsigned long long)n);
    return DPA_OK;
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
                        "shuffle: one shuffled round at a time (several rounds compose through their privacy "
                        "loss distributions, not yet supported)");
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
                        "shuffle: one shuffled round per accountant (composition of rounds is not yet supported)");
    return st;
}

static int shuffle_compose(void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    shuffle_state *s = state;
    const dpa_event *leaf;
    int st = the_leaf(e, opt, &leaf, err);
    if (st) return st;
    s->eps0 = dpa_event_param(leaf, 0);
    s->n = dpa_event_count(leaf, 0);
    st = build_weights(s, err);
    if (!st) s->have = 1;
    return st;
}

static void shuffle_destroy(void *state)
{
    free(((shuffle_state *)state)->weight);
}

/* The bucket widths tried: from about a thirty-second of a standard
 * deviation (at most 4096 buckets) down by 4 to single values. */
static uint64_t first_width(const shuffle_state *s)
{
    uint64_t span = s->hi - s->lo + 1, w = span / 1024;
    return w < 1 ? 1 : w;
}

static int shuffle_delta(void *state, const dpa_options *opt, double epsilon, dpa_bound *out, dpa_error *err)
{
    shuffle_state *s = state;
    double eps_error = opt->tolerance > 0.0 ? opt->tolerance : DEFAULT_EPS_ERROR;
    *out = (dpa_bound){ 0 };
    if (!s->have) { out->flags = DPA_EXACT; return DPA_OK; }
    double lo = 0.0, up = 1.0;
    for (uint64_t w = first_width(s);; w = w / 4 ? w / 4 : 1) {
        delta_bracket(s, epsilon, w, &lo, &up);
        if (up - lo <= eps_error * up || w == 1) break;
    }
    out->lower = lo;
    out->upper = up;
    out->estimate = 0.5 * (lo + up);
    out->flags = DPA_PAIR_LOWER;
    if (!(up - lo <= eps_error * up))
        return dpa_fail(err, DPA_EACCURACY, "shuffle: delta bracket [%g, %g] is wider than eps_error %g allows",
                        lo, up, eps_error);
    return DPA_OK;
}

/* eps' with delta_side(eps') <= delta (upper) or > delta (lower), by
 * bisection on [0, eps0]; only verified endpoints are returned. */
static double invert(const shuffle_state *s, uint64_t width, double delta, int upper_side)
{
    double a = 0.0, b = s->eps0;     /* delta(eps0) = 0 <= delta: b always meets */
    double l, u;
    delta_bracket(s, 0.0, width, &l, &u);
    if ((upper_side ? u : l) <= delta) return 0.0;
    for (int it = 0; it < 60 && b - a > 1e-9 * b; it++) {
        double mid = 0.5 * (a + b);
        delta_bracket(s, mid, width, &l, &u);
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
    double lo = 0.0, up = s->eps0;
    for (uint64_t w = first_width(s);; w = w / 4 ? w / 4 : 1) {
        up = invert(s, w, delta, 1);
        lo = invert(s, w, delta, 0);
        if (up - lo <= eps_error * up || w == 1) break;
    }
    out->lower = fmin(lo, up);
    out->upper = up;
    out->estimate = 0.5 * (out->lower + up);
    out->flags = DPA_PAIR_LOWER;
    if (!(up - out->lower <= eps_error * up))
        return dpa_fail(err, DPA_EACCURACY, "shuffle: eps bracket [%g, %g] is wider than eps_error %g allows",
                        out->lower, up, eps_error);
    return DPA_OK;
}

static double shuffle_state_value(const void *state, const char **what)
{
    *what = "eps0";
    return ((const shuffle_state *)state)->eps0;
}

const dpa_accountant_ops dpa_shuffle_accountant = {
    .name = "shuffle",
    .summary = "amplification by shuffling of eps0-local randomizers: the clones bound of Feldman, McMillan & "
               "Talwar 2021, computed exactly in buckets",
    .state_size = sizeof(shuffle_state),
    .destroy = shuffle_destroy,
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
