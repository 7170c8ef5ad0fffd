/*
 * calibrate.c - search a one-parameter family of events for the smallest
 * noise (or the largest number of steps or sampling rate) that meets a
 * target (eps, delta), using any accountant's certified upper epsilon.
 *
 * The search assumes eps_upper is monotone in the parameter.  It first
 * widens the interval (by factors of 2) until it brackets the target, then
 * bisects (geometrically for positive reals).  The value returned has been
 * evaluated and meets the target: it is never extrapolated.
 */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

void dpa_calibration_init(dpa_calibration *c, dpa_search direction)
{
    if (!c) return;
    memset(c, 0, sizeof *c);
    c->direction = direction;
    c->lo = direction == DPA_SEARCH_SMALLEST ? 0.1 : 1.0;
    c->hi = direction == DPA_SEARCH_SMALLEST ? 10.0 : 1000.0;
    c->rel_tol = 1e-9;
    c->limit_lo = direction == DPA_SEARCH_SMALLEST ? 1e-6 : 1.0;
    c->limit_hi = direction == DPA_SEARCH_SMALLEST ? 1e9 : 1e15;
}

struct search {
    const char *method;
    const dpa_options *opt;
    dpa_event_family family;
    void *ctx;
    double target, delta;
    dpa_calibration *c;
};

/* eps_upper(param), or a status.  *meets tells whether it is <= target. */
static int evaluate(struct search *s, double param, double *eps, int *meets, dpa_error *err)
{
    dpa_error local = { 0 };
    dpa_event *e = s->family(param, s->ctx, &local);
    if (!e) {
        if (local.status == DPA_OK) dpa_fail(&local, DPA_EINVAL, "calibrate: the event family returned NULL at %g", param);
        if (err) *err = local;
        return local.status;
    }
    dpa_accountant *a = dpa_accountant_new(s->method, s->opt, err);
    int st = a ? DPA_OK : (err ? err->status : DPA_ENOMEM);
    dpa_bound b;
    if (!st) st = dpa_accountant_compose(a, e, err);
    if (!st) {
        st = dpa_accountant_epsilon(a, s->delta, &b, err);
        /* An accountant that could not reach its accuracy still returns a
         * certified upper bound (pld: DPA_EACCURACY with its best bracket);
         * only that upper bound decides whether the target is met, so a
         * loose one can only make the answer more conservative. */
        if (st == DPA_EACCURACY && b.upper > 0.0 && b.upper >= b.lower) {
            st = DPA_OK;
            if (err) *err = (dpa_error){ 0 };
        }
    }
    dpa_accountant_free(a);
    dpa_event_free(e);
    if (st) return st;
    s->c->evaluations++;
    if (b.flags & DPA_APPROXIMATE)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "calibrate: the %s accountant gives only an approximation here, "
                        "which cannot certify a target", s->method);
    if (isnan(b.upper) || b.upper < b.lower)
        return dpa_fail(err, DPA_EACCURACY, "calibrate: the %s accountant returned no valid bound at %g", s->method,
                        param);
    *eps = b.upper;
    *meets = b.upper <= s->target;
    return DPA_OK;
}

static double next_value(const dpa_calibration *c, double good, double bad)
{
    if (c->integer) return floor(0.5 * (good + bad));
    if (good > 0.0 && bad > 0.0) return sqrt(good) * sqrt(bad);
    return 0.5 * (good + bad);
}

static int converged(const dpa_calibration *c, double good, double bad)
{
    if (c->integer) return fabs(good - bad) <= 1.0;
    return fabs(good - bad) <= c->rel_tol * fmin(fabs(good), fabs(bad));
}

int dpa_calibrate_search(const char *method, const dpa_options *opt, dpa_event_family f,
                         void *ctx, double target_epsilon, double delta, dpa_calibration *c,
                         dpa_error *err)
{
    if (!method) return dpa_fail(err, DPA_EINVAL, "calibrate: method (the accountant's name) is NULL");
    if (!f) return dpa_fail(err, DPA_EINVAL, "calibrate: the event family (f) is NULL");
    if (!c) return dpa_fail(err, DPA_EINVAL, "calibrate: the calibration spec (c) is NULL");
    if (c->direction != DPA_SEARCH_SMALLEST && c->direction != DPA_SEARCH_LARGEST)
        return dpa_fail(err, DPA_EINVAL, "calibrate: direction must be DPA_SEARCH_SMALLEST or DPA_SEARCH_LARGEST, got %d",
                        (int)c->direction);
    int st = dpa_check_delta(delta, err);
    if (st) return st;
    if (!(target_epsilon > 0.0 && isfinite(target_epsilon)))
        return dpa_fail(err, DPA_EINVAL, "calibrate: target epsilon must be positive and finite, got %g", target_epsilon);
    if (!(c->lo > 0.0 && c->lo < c->hi && isfinite(c->hi)))
        return dpa_fail(err, DPA_EINVAL, "calibrate: need 0 < lo < hi < inf, got [%g, %g]", c->lo, c->hi);
    if (!(c->limit_lo > 0.0 && c->limit_lo <= c->lo && c->limit_hi >= c->hi && isfinite(c->limit_hi)))
        return dpa_fail(err, DPA_EINVAL, "calibrate: limits [%g, %g] must contain [%g, %g]",
                        c->limit_lo, c->limit_hi, c->lo, c->hi);
    if (!(c->rel_tol > 0.0 && c->rel_tol < 1.0)) c->rel_tol = 1e-9;
    if (c->rel_tol < 4.0 * DBL_EPSILON) c->rel_tol = 4.0 * DBL_EPSILON;

    struct search s = { method, opt, f, ctx, target_epsilon, delta, c };
    const int smallest = c->direction == DPA_SEARCH_SMALLEST;
    c->evaluations = 0;
    double lo = c->integer ? ceil(c->lo) : c->lo, hi = c->integer ? floor(c->hi) : c->hi;
    double eps_lo, eps_hi;
    int meets_lo, meets_hi;
    if ((st = evaluate(&s, lo, &eps_lo, &meets_lo, err)) || (st = evaluate(&s, hi, &eps_hi, &meets_hi, err)))
        return st;
    /* widen until the meeting side is on the right end: noise meets at hi,
     * steps meet at lo; the other end must fail. */
    while (smallest ? !meets_hi : !meets_lo) {
        if (smallest ? hi >= c->limit_hi : lo <= c->limit_lo)
            return dpa_fail(err, DPA_ENOBRACKET,
                            "calibrate: epsilon %g at delta %g is not reached anywhere in [%g, %g] "
                            "(best eps %g)", target_epsilon, delta, c->limit_lo, c->limit_hi,
                            smallest ? eps_hi : eps_lo);
        if (smallest) { lo = hi; eps_lo = eps_hi; meets_lo = 0; hi = fmin(2.0 * hi, c->limit_hi); }
        else { hi = lo; eps_hi = eps_lo; meets_hi = 0; lo = fmax(c->integer ? floor(lo / 2.0) : lo / 2.0, c->limit_lo); }
        if ((st = evaluate(&s, smallest ? hi : lo, smallest ? &eps_hi : &eps_lo,
                           smallest ? &meets_hi : &meets_lo, err)))
            return st;
    }
    while (smallest ? meets_lo : meets_hi) {
        if (smallest ? lo <= c->limit_lo : hi >= c->limit_hi) {
            /* the whole allowed range meets the target: report its edge */
            c->value = smallest ? lo : hi;
            c->epsilon_at_value = smallest ? eps_lo : eps_hi;
            c->fails = NAN;
            c->epsilon_at_fails = NAN;
            return DPA_OK;
        }
        if (smallest) { hi = lo; eps_hi = eps_lo; meets_hi = 1; lo = fmax(lo / 2.0, c->limit_lo); }
        else { lo = hi; eps_lo = eps_hi; meets_lo = 1; hi = fmin(2.0 * hi, c->limit_hi); }
        if ((st = evaluate(&s, smallest ? lo : hi, smallest ? &eps_lo : &eps_hi,
                           smallest ? &meets_lo : &meets_hi, err)))
            return st;
    }
    /* now good (meets) and bad (fails) bracket the boundary */
    double good = smallest ? hi : lo, bad = smallest ? lo : hi;
    double eps_good = smallest ? eps_hi : eps_lo, eps_bad = smallest ? eps_lo : eps_hi;
    for (int iter = 0; !converged(c, good, bad); iter++) {
        if (iter > 400)
            return dpa_fail(err, DPA_EACCURACY, "calibrate: bisection did not converge");
        double mid = next_value(c, good, bad), eps_mid;
        if (mid == good || mid == bad) break;
        int meets_mid;
        if ((st = evaluate(&s, mid, &eps_mid, &meets_mid, err))) return st;
        if (meets_mid) { good = mid; eps_good = eps_mid; }
        else { bad = mid; eps_bad = eps_mid; }
    }
    c->value = good;
    c->fails = bad;
    c->epsilon_at_value = eps_good;
    c->epsilon_at_fails = eps_bad;
    return DPA_OK;
}

int dpa_calibrate(const char *method, const dpa_options *opt, dpa_event_family f, void *ctx,
                  double target_epsilon, double delta, double lo, double hi, double *param_out,
                  dpa_error *err)
{
    dpa_calibration c;
    dpa_calibration_init(&c, DPA_SEARCH_SMALLEST);
    c.lo = lo;
    c.hi = hi;
    if (lo > 0.0 && lo < c.limit_lo) c.limit_lo = lo;
    if (hi > c.limit_hi && isfinite(hi)) c.limit_hi = hi;
    if (!param_out) return dpa_fail(err, DPA_EINVAL, "calibrate: the output (param_out) is NULL");
    int st = dpa_calibrate_search(method, opt, f, ctx, target_epsilon, delta, &c, err);
    if (!st) *param_out = c.value;
    return st;
}

int dpa_calibrate_steps(const char *method, const dpa_options *opt, dpa_event_family f,
                        void *ctx, double target_epsilon, double delta, uint64_t *steps_out,
                        dpa_error *err)
{
    dpa_calibration c;
    dpa_calibration_init(&c, DPA_SEARCH_LARGEST);
    c.integer = 1;
    if (!steps_out) return dpa_fail(err, DPA_EINVAL, "calibrate: the output (steps_out) is NULL");
    int st = dpa_calibrate_search(method, opt, f, ctx, target_epsilon, delta, &c, err);
    if (!st && c.value < 1.0)
        st = dpa_fail(err, DPA_ENOBRACKET, "calibrate: even one step exceeds epsilon %g", target_epsilon);
    if (!st) *steps_out = (uint64_t)c.value;
    return st;
}
