/*
 * gdp.c - mu-Gaussian differential privacy (Dong, Roth & Su, JRSS-B 2022).
 *
 * Composition of mu_i-GDP is sqrt(sum mu_i^2)-GDP (Corollary 3.3), and
 * mu-GDP is exactly the profile delta(eps) = Phi(-eps/mu + mu/2)
 * - e^eps Phi(-eps/mu - mu/2) (Corollary 2.13), so unsampled Gaussian
 * compositions are exact.  For Poisson-subsampled Gaussians the central
 * limit theorem gives mu = q sqrt(T (e^{1/sigma^2} - 1)) (Bu, Dong, Long &
 * Su 2020, "Deep learning with Gaussian differential privacy", Eq. (5));
 * it is an asymptotic approximation, not a bound, and is flagged so.
 */
#include "gaussian_profile.h"
#include "internal.h"
#include "numerics.h"

#include <float.h>
#include <math.h>

typedef struct {
    dpa_sum mu2;      /* sum of mu_i^2 (times multiplicity) */
    int approximate;  /* some term came from the CLT */
    int rounded_up;   /* some leaf's mu^2 was below DBL_MIN, rounded up
                       * (dpa_positive_up): the sum bounds mu^2 from above
                       * only, however many times the leaf is composed */
} gdp_state;

/* mu^2 of one leaf; *approximate set when it comes from the CLT. */
static int leaf_mu2(const dpa_event *e, const dpa_options *opt, double *mu2, int *approximate,
                    dpa_error *err)
{
    dpa_event_kind kind = dpa_event_get_kind(e);
    if (kind == DPA_EVENT_GAUSSIAN) {
        /* positive for finite noise, also where it underflows */
        double s = dpa_event_param(e, 0);
        *mu2 = dpa_positive_up(1.0 / s / s);
        return DPA_OK;
    }
    if (kind == DPA_EVENT_GDP) {
        double mu = dpa_event_param(e, 0);
        *mu2 = mu > 0.0 ? dpa_positive_up(mu * mu) : 0.0;
        return DPA_OK;
    }
    if (kind == DPA_EVENT_NOISY_CGD || kind == DPA_EVENT_TREE_AGGREGATION || kind == DPA_EVENT_SHUFFLED_BATCHES) {
        /* the hidden-state bound is mu-GDP; tree aggregation is Gaussian;
         * shuffled batches hold a record in one Gaussian step an epoch */
        const dpa_event *bad;
        if (dpa_event_inverse_variance(e, mu2, &bad))
            return dpa_fail(err, DPA_EINVAL, "gdp: invalid %s event", dpa_event_kind_name(kind));
        return DPA_OK;
    }
    if (kind == DPA_EVENT_POISSON_SAMPLED &&
        dpa_event_get_kind(dpa_event_child(e, 0)) == DPA_EVENT_GAUSSIAN) {
        double q = dpa_event_param(e, 0);
        double s = dpa_event_param(dpa_event_child(e, 0), 0);
        if (q == 1.0) { *mu2 = dpa_positive_up(1.0 / s / s); return DPA_OK; }
        if (opt->relation != DPA_ADD_REMOVE)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "gdp: the CLT for Poisson sampling is stated for add/remove neighbours only");
        /* per step: mu_1^2 = q^2 (e^{1/sigma^2} - 1); overflow means no finite mu */
        *mu2 = q * q * expm1(1.0 / (s * s));
        *approximate = 1;
        return DPA_OK;
    }
    if (kind == DPA_EVENT_RANDOM_ALLOCATION)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "gdp: random_allocation events are not supported (no GDP bound or CLT for random allocation "
                        "here); use rdp");
    if (kind == DPA_EVENT_TRUNCATED_LAPLACE)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "gdp: truncated Laplace is not mu-GDP for any mu (its privacy loss is infinite with "
                        "probability delta); use pld");
    return dpa_fail(err, DPA_EUNSUPPORTED,
                    "gdp: %s events are not supported (GDP is exact for Gaussian noise and "
                    "approximates Poisson-sampled Gaussians only)",
                    dpa_event_kind_name(kind));
}

struct walk { gdp_state *state; const dpa_options *opt; };

static int check_leaf(const dpa_event *e, double times, void *ctx, dpa_error *err)
{
    (void)times;
    const struct walk *w = ctx;
    double mu2;
    int approximate = 0;
    return leaf_mu2(e, w->opt, &mu2, &approximate, err);
}

static int add_leaf(const dpa_event *e, double times, void *ctx, dpa_error *err)
{
    struct walk *w = ctx;
    double mu2;
    int approximate = 0;
    int st = leaf_mu2(e, w->opt, &mu2, &approximate, err);
    if (st) return st;
    dpa_sum_add(&w->state->mu2, times * mu2);
    w->state->approximate |= approximate;
    if (mu2 > 0.0 && mu2 < DBL_MIN) w->state->rounded_up = 1;
    return DPA_OK;
}

static int gdp_supports(const void *state, const dpa_options *opt, const dpa_event *e,
                        dpa_error *err)
{
    struct walk w = { (gdp_state *)state, opt };
    return dpa_event_visit_leaves(e, check_leaf, &w, err);
}

static int gdp_compose(void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    struct walk w = { state, opt };
    return dpa_event_visit_leaves(e, add_leaf, &w, err);
}

static double total_mu(const gdp_state *s)
{
    return sqrt(dpa_sum_value(&s->mu2));
}

/* No finite mu (the CLT's e^{1/sigma^2} overflowed): no finite epsilon, delta 1. */
static void unbounded(dpa_bound *out, double value, unsigned flags)
{
    out->estimate = out->upper = value;
    out->lower = 0.0;
    out->order = 0.0;
    out->flags = flags | DPA_UNBOUNDED | DPA_NO_LOWER;
}

/* The CLT result is a point value: neither an upper nor a lower bound. */
static void mark_approximate(const gdp_state *s, dpa_bound *out)
{
    if (!s->approximate) return;
    out->upper = out->estimate;
    out->lower = 0.0;
    out->flags = (out->flags & ~(unsigned)DPA_EXACT) | DPA_APPROXIMATE | DPA_NO_LOWER;
}

static int gdp_epsilon(void *state, const dpa_options *opt, double delta, dpa_bound *out,
                       dpa_error *err)
{
    (void)opt;
    gdp_state *s = state;
    double mu = total_mu(s);
    if (!isfinite(mu)) {
        unbounded(out, INFINITY, s->approximate ? DPA_APPROXIMATE : 0);
        return DPA_OK;
    }
    int st = dpa_gdp_epsilon(mu, delta, out, err);
    if (!st) dpa_gdp_drop_uncertain_lower(s->rounded_up ? 0.0 : dpa_sum_value(&s->mu2), out);
    if (!st) mark_approximate(s, out);
    return st;
}

static int gdp_delta(void *state, const dpa_options *opt, double epsilon, dpa_bound *out,
                     dpa_error *err)
{
    (void)opt;
    gdp_state *s = state;
    double mu = total_mu(s);
    if (!isfinite(mu)) {
        unbounded(out, 1.0, s->approximate ? DPA_APPROXIMATE : 0);
        return DPA_OK;
    }
    int st = dpa_gdp_delta(mu, epsilon, out, err);
    if (!st) dpa_gdp_drop_uncertain_lower(s->rounded_up ? 0.0 : dpa_sum_value(&s->mu2), out);
    if (!st) mark_approximate(s, out);
    return st;
}

static double gdp_state_value(const void *state, const char **what)
{
    *what = "mu";
    return total_mu(state);
}

const dpa_accountant_ops dpa_gdp_accountant = {
    .name = "gdp",
    .summary = "mu-Gaussian DP (Dong, Roth & Su): exact for Gaussian noise, CLT (approximate) for Poisson sampling",
    .state_size = sizeof(gdp_state),
    .supports = gdp_supports,
    .compose = gdp_compose,
    .epsilon = gdp_epsilon,
    .delta = gdp_delta,
    .state_value = gdp_state_value,
};
