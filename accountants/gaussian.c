/*
 * gaussian.c - the analytic Gaussian mechanism (Balle & Wang, ICML 2018).
 *
 * The composition of Gaussian mechanisms with noise multipliers sigma_i is
 * a Gaussian mechanism with 1/sigma^2 = sum_i 1/sigma_i^2 (its privacy loss
 * is N(mu^2/2, mu^2) with mu^2 the sum), so the state is one number and the
 * profile is exact: delta(eps) = Phi(-eps sigma + 1/(2 sigma))
 * - e^eps Phi(-eps sigma - 1/(2 sigma))  (Balle & Wang 2018, Theorem 8).
 * A mu-GDP event is the same pair of distributions with sigma = 1/mu.
 */
#include "gaussian_profile.h"
#include "internal.h"
#include "numerics.h"

#include <math.h>

typedef struct {
    dpa_sum inv_var; /* sum of times / sigma_i^2 */
} gaussian_state;

/* The whole event's 1/sigma^2, or EUNSUPPORTED naming what is not Gaussian. */
static int event_inv_var(const dpa_event *e, double *inv_var, dpa_error *err)
{
    const dpa_event *bad = NULL;
    int st = dpa_event_inverse_variance(e, inv_var, &bad);
    if (st == DPA_EUNSUPPORTED && dpa_event_get_kind(bad) == DPA_EVENT_RANDOM_ALLOCATION)
        return dpa_fail(err, st,
                        "gaussian: random_allocation events are not supported (the analytic Gaussian is exact only "
                        "for compositions of unsampled Gaussian noise); use rdp");
    if (st == DPA_EUNSUPPORTED)
        return dpa_fail(err, st,
                        "gaussian: %s events are not supported (the analytic Gaussian is exact "
                        "only for compositions of unsampled Gaussian noise; try gdp, rdp or pld)",
                        dpa_event_kind_name(dpa_event_get_kind(bad)));
    return st ? dpa_fail(err, st, "gaussian: invalid event") : DPA_OK;
}

static int gaussian_supports(const void *state, const dpa_options *opt, const dpa_event *e,
                             dpa_error *err)
{
    (void)state; (void)opt;
    double v;
    return event_inv_var(e, &v, err);
}

static int gaussian_compose(void *state, const dpa_options *opt, const dpa_event *e,
                            dpa_error *err)
{
    (void)opt;
    double v;
    int st = event_inv_var(e, &v, err);
    if (!st) dpa_sum_add(&((gaussian_state *)state)->inv_var, v);
    return st;
}

static double total_mu(const gaussian_state *s)
{
    return sqrt(dpa_sum_value(&s->inv_var));
}

static int gaussian_epsilon(void *state, const dpa_options *opt, double delta, dpa_bound *out,
                            dpa_error *err)
{
    (void)opt;
    int st = dpa_gdp_epsilon(total_mu(state), delta, out, err);
    if (!st) dpa_gdp_drop_uncertain_lower(dpa_sum_value(&((gaussian_state *)state)->inv_var), out);
    return st;
}

static int gaussian_delta(void *state, const dpa_options *opt, double epsilon, dpa_bound *out,
                          dpa_error *err)
{
    (void)opt;
    int st = dpa_gdp_delta(total_mu(state), epsilon, out, err);
    if (!st) dpa_gdp_drop_uncertain_lower(dpa_sum_value(&((gaussian_state *)state)->inv_var), out);
    return st;
}

static double gaussian_state_value(const void *state, const char **what)
{
    *what = "sigma_eff";
    return 1.0 / total_mu(state);
}

const dpa_accountant_ops dpa_gaussian_accountant = {
    .name = "gaussian",
    .summary = "analytic Gaussian mechanism (Balle & Wang 2018): exact for unsampled Gaussian noise",
    .state_size = sizeof(gaussian_state),
    .supports = gaussian_supports,
    .compose = gaussian_compose,
    .epsilon = gaussian_epsilon,
    .delta = gaussian_delta,
    .state_value = gaussian_state_value,
    .symmetric = 1,
};
