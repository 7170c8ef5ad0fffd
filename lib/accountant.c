/* accountant.c - the generic accountant: registry lookup and dispatch. */
#include "internal.h"
#include "numerics.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dpa_accountant {
    const dpa_accountant_ops *ops;
    dpa_options opt;
    void *state;
    int unattained;     /* an event of dpa_event_bound_unattained was composed */
    /* additive failure deltas (dpa_accountant_add_failure) */
    size_t num_failures;
    double failure_delta[DPA_MAX_FAILURES];
    char failure_what[DPA_MAX_FAILURES][64];
};

void dpa_options_init(dpa_options *opt)
{
    if (!opt) return;
    memset(opt, 0, sizeof *opt);
    opt->relation = DPA_ADD_REMOVE;
}

const char *const *dpa_accountant_names(void)
{
    return dpa_registry_names;
}

static const dpa_accountant_ops *find_ops(const char *method)
{
    if (!method) return NULL;
    for (size_t i = 0; dpa_registry[i]; i++)
        if (strcmp(dpa_registry[i]->name, method) == 0) return dpa_registry[i];
    return NULL;
}

const char *dpa_accountant_summary(const char *method)
{
    const dpa_accountant_ops *ops = find_ops(method);
    return ops ? ops->summary : NULL;
}

static int check_options(const dpa_options *opt, dpa_error *err)
{
    if (opt->relation != DPA_ADD_REMOVE && opt->relation != DPA_REPLACE_ONE)
        return dpa_fail(err, DPA_EINVAL, "options: unknown neighbouring relation %d", (int)opt->relation);
    if (!(opt->tolerance >= 0.0 && opt->tolerance < 1.0))
        return dpa_fail(err, DPA_EINVAL, "options: tolerance must lie in [0, 1), got %g", opt->tolerance);
    if (opt->num_orders > 0 && !opt->orders)
        return dpa_fail(err, DPA_EINVAL, "options: num_orders is %zu but orders is NULL", opt->num_orders);
    /* every order is evaluated for every event composed: see DPA_MAX_ORDERS */
    if (opt->num_orders > DPA_MAX_ORDERS)
        return dpa_fail(err, DPA_EINVAL, "options: orders: at most %d Renyi orders (DPA_MAX_ORDERS), got %zu",
                        DPA_MAX_ORDERS, opt->num_orders);
    for (size_t i = 0; i < opt->num_orders; i++)
        if (!(opt->orders[i] > 1.0 && isfinite(opt->orders[i])))
            return dpa_fail(err, DPA_EINVAL, "options: orders: Renyi order %zu must be finite and > 1, got %g", i,
                            opt->orders[i]);
    return DPA_OK;
}

dpa_accountant *dpa_accountant_new(const char *method, const dpa_options *opt, dpa_error *err)
{
    if (!method) {
        dpa_fail(err, DPA_EINVAL, "accountant_new: method (the accountant's name) is NULL");
        return NULL;
    }
    const dpa_accountant_ops *ops = find_ops(method);
    if (!ops) {
        dpa_fail(err, DPA_ENOTFOUND, "no accountant named '%s'", method);
        return NULL;
    }
    dpa_options o;
    if (opt) o = *opt; else dpa_options_init(&o);
    if (check_options(&o, err)) return NULL;
    dpa_accountant *a = calloc(1, sizeof *a);
    void *state = a ? calloc(1, ops->state_size ? ops->state_size : 1) : NULL;
    if (!state) {
        free(a);
        dpa_fail(err, DPA_ENOMEM, "out of memory creating the %s accountant", method);
        return NULL;
    }
    a->ops = ops;
    a->opt = o;
    a->state = state;
    if (ops->init && ops->init(state, &o, err) != DPA_OK) {
        free(state);
        free(a);
        return NULL;
    }
    return a;
}

const char *dpa_accountant_name(const dpa_accountant *a)
{
    return a ? a->ops->name : NULL;
}

/* The message for a NULL argument names it. */
#define CHECK_ARG(p, fn, name) do { if (!(p)) return dpa_fail(err, DPA_EINVAL, fn ": " name " is NULL"); } while (0)

int dpa_accountant_supports(const dpa_accountant *a, const dpa_event *e, dpa_error *err)
{
    CHECK_ARG(a, "supports", "the accountant (a)");
    CHECK_ARG(e, "supports", "the event (e)");
    return a->ops->supports(a->state, &a->opt, e, err);
}

int dpa_accountant_compose(dpa_accountant *a, const dpa_event *e, dpa_error *err)
{
    CHECK_ARG(a, "compose", "the accountant (a)");
    CHECK_ARG(e, "compose", "the event (e)");
    int st = dpa_accountant_supports(a, e, err);
    if (st) return st;
    st = a->ops->compose(a->state, &a->opt, e, err);
    if (!st && dpa_event_bound_unattained(e)) a->unattained = 1;
    return st;
}

/* A noisy_cgd event is accounted by its mu-GDP bound, which the final
 * iterate need not attain, and shuffled batches by the Gaussian once an
 * epoch, which the shuffled order need not attain: a lower bound is then
 * one on that bound's eps, not on the mechanism's, and nothing is exact.
 * Said once, here, for every accountant but one whose lower bounds are the
 * mechanism's own (ops->mechanism_lower). */
static void mark_unattained(const dpa_accountant *a, dpa_bound *out)
{
    if (!a->unattained || a->ops->mechanism_lower) return;
    out->flags &= ~(unsigned)DPA_EXACT;
    if (!(out->flags & DPA_NO_LOWER)) out->flags |= DPA_PAIR_LOWER;
}

/* The last line of defence, for every accountant and every answer it
 * gives (also a DPA_EACCURACY bracket, and a DPA_OK one flagged
 * DPA_WIDTH_NOT_MET, which is checked like any other): a bound is never NaN, never
 * negative, never ordered wrongly, and a delta never exceeds 1.  A delta
 * upper above 1 is lowered to 1 (every mechanism is (eps, 1)-DP); anything
 * else inconsistent is a bug, reported as DPA_EINTERNAL with the widest
 * valid answer in its place, never as a number. */
static int check_bound(const dpa_accountant *a, int want_eps, dpa_bound *b, dpa_error *err)
{
    if (!want_eps && b->upper > 1.0) {
        b->upper = 1.0;
        if (b->estimate > 1.0) b->estimate = 1.0;
    }
    if (isnan(b->lower) || isnan(b->upper) || isnan(b->estimate) || b->lower > b->upper || b->lower < 0.0 ||
        (!want_eps && b->lower > 1.0)) {
        double lower = b->lower, upper = b->upper;
        b->lower = 0.0;
        b->estimate = b->upper = want_eps ? INFINITY : 1.0;
        b->order = 0.0;
        b->flags = want_eps ? DPA_UNBOUNDED | DPA_NO_LOWER : DPA_NO_LOWER;
        return dpa_fail(err, DPA_EINTERNAL, "%s: internal error: inconsistent %s bound [%g, %g]", a->ops->name,
                        want_eps ? "epsilon" : "delta", lower, upper);
    }
    return DPA_OK;
}

int dpa_accountant_add_failure(dpa_accountant *a, double delta, const char *what, dpa_error *err)
{
    CHECK_ARG(a, "add_failure", "the accountant (a)");
    if (!(delta >= 0.0 && delta < 1.0))
        return dpa_fail(err, DPA_EINVAL, "add_failure: the failure probability must lie in [0, 1), got %g", delta);
    if (a->num_failures == DPA_MAX_FAILURES)
        return dpa_fail(err, DPA_EINVAL, "add_failure: at most %d failure terms per accountant", DPA_MAX_FAILURES);
    a->failure_delta[a->num_failures] = delta;
    snprintf(a->failure_what[a->num_failures], sizeof a->failure_what[0], "%s", what ? what : "failure event");
    a->num_failures++;
    return DPA_OK;
}

size_t dpa_accountant_num_failures(const dpa_accountant *a)
{
    return a ? a->num_failures : 0;
}

int dpa_accountant_failure(const dpa_accountant *a, size_t i, double *delta, const char **what)
{
    if (!a || i >= a->num_failures) return DPA_EINVAL;
    if (delta) *delta = a->failure_delta[i];
    if (what) *what = a->failure_what[i];
    return DPA_OK;
}

/* The failure terms' sum, rounded up (each addition within an ulp). */
static double failure_total(const dpa_accountant *a)
{
    double t = 0.0;
    for (size_t i = 0; i < a->num_failures; i++) t += a->failure_delta[i];
    return t * (1.0 + 2.0 * (double)a->num_failures * DBL_EPSILON);
}

/* With failure terms the mechanism's own lower bound no longer bounds the
 * whole (the failures are bounded, not known): only the upper is kept. */
static void drop_lower(dpa_bound *out)
{
    out->lower = 0.0;
    out->flags = (out->flags & ~(unsigned)DPA_EXACT & ~(unsigned)DPA_PAIR_LOWER) | DPA_NO_LOWER;
}

int dpa_accountant_epsilon(dpa_accountant *a, double delta, dpa_bound *out, dpa_error *err)
{
    CHECK_ARG(a, "epsilon", "the accountant (a)");
    CHECK_ARG(out, "epsilon", "the output (out)");
    int st = dpa_check_delta(delta, err);
    if (st) return st;
    double inner = delta;
    if (a->num_failures) {
        double total = failure_total(a);
        if (!(delta > total))
            return dpa_fail(err, DPA_EINVAL,
                            "epsilon: delta %g does not exceed the failure terms' %g (%zu term%s, first: %s)", delta,
                            total, a->num_failures, a->num_failures == 1 ? "" : "s", a->failure_what[0]);
        inner = (delta - total) * (1.0 - 2.0 * DBL_EPSILON);   /* rounded down: eps decreases in delta */
    }
    st = a->ops->epsilon(a->state, &a->opt, inner, out, err);
    if (!st || st == DPA_EACCURACY) {
        int cst = check_bound(a, 1, out, err);
        if (cst) st = cst;
    }
    if (!st || st == DPA_EACCURACY) {
        mark_unattained(a, out);
        if (a->num_failures) drop_lower(out);
    }
    return st;
}

/* Whether record-level d = e^log_d gives a group delta within `delta`
 * for groups of k: DPA_OK with *fits set and eps(d) in *b (upper +inf
 * when d is within the failure terms, so that no d below it fits either),
 * or the query's error. */
static int group_fits(dpa_accountant *a, double k, double log_d, double delta, int *fits, dpa_bound *b,
                      dpa_error *err)
{
    double d = exp(log_d);
    *fits = 0;
    if (a->num_failures && !(d > failure_total(a))) {
        *b = (dpa_bound){ 0.0, INFINITY, INFINITY, 0.0, DPA_NO_LOWER | DPA_UNBOUNDED };
        return DPA_OK;
    }
    int st = dpa_accountant_epsilon(a, d, b, err);
    if (st && st != DPA_EACCURACY) return st;   /* a bracket too wide still has a valid upper */
    /* k e^((k-1) eps) d <= delta in logs (of the d queried), with a margin
     * of 1e-7 (so that the pair, rounded up to 10 significant digits when
     * printed, still satisfies it) above the rounding of each term */
    double lk = log(k), grow = (k - 1.0) * b->upper, ld = log(d), ldelta = log(delta);
    double margin = 1e-7 + 8.0 * DBL_EPSILON * (fabs(lk) + grow + fabs(ld) + fabs(ldelta));
    *fits = isfinite(b->upper) && lk + grow + ld <= ldelta - margin;
    return DPA_OK;
}

int dpa_accountant_group_epsilon(dpa_accountant *a, uint64_t k, double delta, dpa_bound *out,
                                 double *example_epsilon, double *example_delta, dpa_error *err)
{
    CHECK_ARG(a, "group_epsilon", "the accountant (a)");
    CHECK_ARG(out, "group_epsilon", "the output (out)");
    if (k == 0) return dpa_fail(err, DPA_EINVAL, "group_epsilon: the group size k must be at least 1");
    int st = dpa_check_delta(delta, err);
    if (st) return st;
    if (example_epsilon) *example_epsilon = NAN;
    if (example_delta) *example_delta = NAN;
    const double kk = (double)k;
    double top = log(delta / kk), fits_at = NAN, fails_at = NAN;
    dpa_bound b, best = { 0 };
    int fits = 0;
    /* down by factors of e until a d fits (eps grows as d falls) */
    for (int j = 0; j <= 200 && !fits; j++) {
        if ((st = group_fits(a, kk, top - j, delta, &fits, &b, err))) return st;
        if (fits) fits_at = top - j, best = b;
        else fails_at = top - j;
        if (!fits && !isfinite(b.upper)) break;   /* smaller d only makes eps larger */
    }
    if (!fits) {
        *out = (dpa_bound){ 0.0, INFINITY, INFINITY, 0.0, DPA_NO_LOWER | DPA_UNBOUNDED };
        return DPA_OK;
    }
    /* then between the fitting d and the one above it that did not */
    for (int i = 0; i < 20 && !isnan(fails_at); i++) {
        double mid = 0.5 * (fits_at + fails_at);
        if ((st = group_fits(a, kk, mid, delta, &fits, &b, err))) return st;
        if (fits) fits_at = mid, best = b;
        else fails_at = mid;
    }
    double eps = kk * best.upper * (1.0 + 4.0 * DBL_EPSILON);   /* rounded up */
    *out = (dpa_bound){ 0.0, eps, eps, 0.0, DPA_NO_LOWER | (best.flags & DPA_APPROXIMATE) };
    if (example_epsilon) *example_epsilon = best.upper;
    if (example_delta) *example_delta = exp(fits_at);
    return DPA_OK;
}

int dpa_accountant_delta_directions(dpa_accountant *a, double epsilon, int cached, dpa_bound out[2], int *exact,
                                    dpa_error *err)
{
    dpa_bound dir[2];
    if (cached && a->ops->delta_directions && !a->num_failures) {
        dpa_error local = { 0 };
        int same = 1;
        if (!a->ops->delta_directions(a->state, &a->opt, epsilon, dir, &same, &local) && !same &&
            dir[0].lower >= 0.0 && dir[0].lower <= dir[0].upper && dir[1].lower >= 0.0 && dir[1].lower <= dir[1].upper) {
            out[0] = dir[0];
            out[1] = dir[1];
            *exact = 1;
            return DPA_OK;
        }
    }
    dpa_bound both;
    int st = dpa_accountant_delta(a, epsilon, &both, err);
    if (st && st != DPA_EACCURACY) return st;
    out[0] = out[1] = both;
    *exact = a->ops->symmetric && !a->num_failures;
    if (!a->ops->delta_directions || a->num_failures) return st;
    dpa_error local = { 0 };
    int same = 0;
    if (a->ops->delta_directions(a->state, &a->opt, epsilon, dir, &same, &local)) return st;   /* the larger, then */
    if (same) {
        *exact = 1;
        return st;
    }
    for (int w = 0; w < 2; w++) {
        /* each direction's delta is at most the larger one's upper bound,
         * and its own lower bound is one of it */
        if (!(dir[w].lower >= 0.0 && dir[w].lower <= dir[w].upper)) return st;
        out[w].upper = fmin(dir[w].upper, both.upper);
        out[w].lower = both.flags & DPA_NO_LOWER ? 0.0 : fmin(dir[w].lower, out[w].upper);
        out[w].estimate = 0.5 * (out[w].lower + out[w].upper);
    }
    *exact = 1;
    return st;
}

int dpa_accountant_delta(dpa_accountant *a, double epsilon, dpa_bound *out, dpa_error *err)
{
    CHECK_ARG(a, "delta", "the accountant (a)");
    CHECK_ARG(out, "delta", "the output (out)");
    int st = dpa_check_epsilon(epsilon, err);
    if (!st) {
        st = a->ops->delta(a->state, &a->opt, epsilon, out, err);
        if (!st || st == DPA_EACCURACY) {
            int cst = check_bound(a, 0, out, err);
            if (cst) st = cst;
        }
    }
    if (!st || st == DPA_EACCURACY) {
        mark_unattained(a, out);
        if (a->num_failures) {
            double total = failure_total(a);
            out->upper = fmin(1.0, (out->upper + total) * (1.0 + 2.0 * DBL_EPSILON));
            out->estimate = fmin(1.0, out->estimate + total);
            drop_lower(out);
        }
    }
    return st;
}

int dpa_accountant_state(const dpa_accountant *a, double *value, const char **what,
                         dpa_error *err)
{
    CHECK_ARG(a, "state", "the accountant (a)");
    CHECK_ARG(value, "state", "the output (value)");
    const char *name = NULL;
    *value = a->ops->state_value(a->state, &name);
    if (what) *what = name;
    return DPA_OK;
}

int dpa_accountant_rdp_curve(const dpa_accountant *a, double *orders, double *eps, size_t cap,
                             size_t *n, dpa_error *err)
{
    CHECK_ARG(a, "rdp_curve", "the accountant (a)");
    CHECK_ARG(n, "rdp_curve", "the output length (n)");
    if (cap > 0) {
        CHECK_ARG(orders, "rdp_curve", "orders (with cap > 0)");
        CHECK_ARG(eps, "rdp_curve", "eps (with cap > 0)");
    }
    if (!a->ops->rdp_curve)
        return dpa_fail(err, DPA_EUNSUPPORTED, "%s: this accountant keeps no RDP curve", a->ops->name);
    *n = a->ops->rdp_curve(a->state, orders, eps, cap);
    return DPA_OK;
}

int dpa_accountant_pld(const dpa_accountant *a, int world, int upper, dpa_pld_view *out,
                       dpa_error *err)
{
    CHECK_ARG(a, "pld", "the accountant (a)");
    CHECK_ARG(out, "pld", "the output (out)");
    if (world != 0 && world != 1)
        return dpa_fail(err, DPA_EINVAL, "pld: world must be 0 (remove) or 1 (add), got %d", world);
    if (upper != 0 && upper != 1)
        return dpa_fail(err, DPA_EINVAL, "pld: upper must be 1 (the upper grid) or 0 (the lower), got %d", upper);
    if (!a->ops->pld_view)
        return dpa_fail(err, DPA_EUNSUPPORTED, "%s: this accountant keeps no privacy loss distribution",
                        a->ops->name);
    return a->ops->pld_view(a->state, world, upper, out, err);
}

void dpa_accountant_free(dpa_accountant *a)
{
    if (!a) return;
    if (a->ops->destroy) a->ops->destroy(a->state);
    free(a->state);
    free(a);
}
