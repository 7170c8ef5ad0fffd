/*
 * calibrate.c - search a one-parameter family of events for the smallest
 * noise (or the largest number of steps or sampling rate) that meets a
 * target (eps, delta), using any accountant's certified upper epsilon.
 *
 * The search assumes eps_upper is monotone in the parameter and counts its
 * accountant runs (there is no clock anywhere).  It works with x = log of
 * the parameter and y = log(eps_upper / target): in DP-SGD's regimes y is
 * close to linear in x (eps ~ q sqrt(T) / sigma for the Gaussian, to first
 * order), so interpolation needs few runs.
 *
 *  1. A start: the answer of a cheap guide accountant (rdp's closed forms)
 *     with its slope dy/dx, or the caller's guess, or the interval [lo, hi].
 *  2. Until a meeting and a failing value bracket the boundary: a Newton
 *     step with the slope known, overshot by a tenth so that it crosses.
 *     When no meeting value is known, the far end of the range (limit_hi
 *     for the noise) is evaluated next: if it fails too, the target is out
 *     of reach and the search stops there, with that end's epsilon.
 *  3. In the bracket: the secant through the last two runs, else regula
 *     falsi between the ends, else bisection (also whenever the bracket has
 *     not halved in three runs, which bounds the runs by bisection's).
 *     Near the end a run is placed one tolerance inside the bracket from
 *     its closer end, so that the bracket closes from both sides.
 *
 * Every value classified as meeting has its certified upper bound (never
 * the estimate) at or below the target, and the value returned has been
 * evaluated: it is never extrapolated.
 */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* accountant runs allowed when the caller leaves max_evaluations 0: far
 * above what bisection on [1e-300, 1e300] to 1e-15 needs */
#define DEFAULT_MAX_EVALUATIONS 200u
/* the guide's relative tolerance: the guide only places the start */
#define GUIDE_REL_TOL 1e-3
/* the largest first step (in log) of an extrapolation; doubled each time
 * an extrapolation in the same direction falls short, and the step of the
 * walk towards an end whose bound says little */
#define FIRST_MAX_STEP 2.0794415416798357 /* log 8 */
/* run the bisection after this many runs without halving the bracket */
#define RUNS_TO_HALVE 3

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
    c->value = c->fails = c->epsilon_at_value = c->epsilon_at_fails = NAN;
}

/* One parameter value searched. */
typedef struct point {
    double v, x;  /* the value and its log */
    double eps;   /* the certified upper epsilon at v */
    double y;     /* log(eps / target): <= 0 when it meets; +-inf allowed */
    int meets;
    int exact;    /* 0: the accountant could not reach its accuracy there */
} point;

struct search {
    const char *method;
    const dpa_options *opt;
    dpa_event_family family;
    void *ctx;
    double target, delta;
    dpa_calibration *c;
    unsigned max;          /* runs allowed */
    double lim_lo, lim_hi; /* the range (integers when c->integer) */
    double tol_x;          /* a tolerance's width in log, a little under it */
    const char *name;
};

/* The method's certified upper eps at v, or a status. */
static int evaluate(struct search *s, double v, point *p, dpa_error *err)
{
    dpa_error local = { 0 };
    dpa_event *e = s->family(v, s->ctx, &local);
    if (!e) {
        if (local.status == DPA_OK) dpa_fail(&local, DPA_EINVAL, "calibrate: the event family returned NULL at %g", v);
        if (err) *err = local;
        return local.status;
    }
    dpa_accountant *a = dpa_accountant_new(s->method, s->opt, err);
    int st = a ? DPA_OK : (err ? err->status : DPA_ENOMEM);
    dpa_bound b;
    int exact = 1;
    if (!st) st = dpa_accountant_compose(a, e, err);
    if (!st) {
        st = dpa_accountant_epsilon(a, s->delta, &b, err);
        /* An accountant that could not reach its accuracy still returns a
         * certified upper bound (pld: DPA_EACCURACY with its best bracket);
         * only that upper bound decides whether the target is met, so a
         * loose one can only make the answer more conservative. */
        if (st == DPA_EACCURACY && b.upper > 0.0 && b.upper >= b.lower) {
            st = DPA_OK;
            exact = 0;
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
                        v);
    p->v = v;
    p->x = log(v);
    p->eps = b.upper;
    p->y = b.upper > 0.0 ? log(b.upper) - log(s->target) : -INFINITY;
    p->meets = b.upper <= s->target;
    p->exact = exact;
    return DPA_OK;
}

static int converged(const dpa_calibration *c, double good, double bad)
{
    if (c->integer) return fabs(good - bad) <= 1.0;
    return fabs(good - bad) <= c->rel_tol * fmin(fabs(good), fabs(bad));
}

/* exp(x) as a value of the range (an integer when searching integers). */
static double value_at(const struct search *s, double x)
{
    double v = exp(fmin(x, 709.0));
    if (s->c->integer) v = nearbyint(v);
    return fmin(fmax(v, s->lim_lo), s->lim_hi);
}

/* From p, where only one side of the boundary is known, a value across
 * it in direction dir (+1: larger): Newton's step on y with the slope,
 * overshot by a tenth and a tolerance so that it crosses, at most max_step
 * in log; max_step when there is no usable slope.  NaN when p is at the
 * end of the range in that direction. */
static double step_from(const struct search *s, const point *p, double slope, double dir, double max_step)
{
    double d = NAN;
    if (isfinite(slope) && slope != 0.0 && isfinite(p->y)) {
        double newton = -p->y / slope;
        if (newton * dir > 0.0) d = 1.1 * fabs(newton) + s->tol_x;
    }
    if (!(d <= max_step)) d = max_step;
    double v = value_at(s, p->x + dir * d);
    if (s->c->integer && v == p->v) v = fmin(fmax(p->v + dir, s->lim_lo), s->lim_hi);
    return v == p->v ? NAN : v;
}

/* The next value strictly inside the bracket (good, bad); NaN when the
 * doubles between them are exhausted. */
static double inside(const struct search *s, const point *good, const point *bad, const point *last,
                     const point *prev, int have_two, double slope, int bisect)
{
    const double a = good->x, b = bad->x, lo = fmin(a, b), hi = fmax(a, b);
    double r = NAN;
    if (!bisect) {
        /* the secant through the last two runs (inside or outside the bracket) */
        if (have_two && last->x != prev->x && isfinite(last->y) && isfinite(prev->y) && last->y != prev->y)
            r = last->x - last->y * (last->x - prev->x) / (last->y - prev->y);
        /* regula falsi between the ends */
        if (!(r > lo && r < hi) && isfinite(good->y) && isfinite(bad->y) && good->y != bad->y)
            r = a - good->y * (b - a) / (bad->y - good->y);
        /* Newton from an end whose y is finite */
        if (!(r > lo && r < hi) && isfinite(slope) && slope != 0.0) {
            const point *from = isfinite(good->y) ? good : bad;
            if (isfinite(from->y)) r = from->x - from->y / slope;
        }
    }
    if (!(r > lo && r < hi)) r = 0.5 * (lo + hi);

    if (s->c->integer) {
        const double step = bad->v > good->v ? 1.0 : -1.0, rv = exp(r);
        double v = nearbyint(rv);
        if (fabs(rv - good->v) < 1.0) v = good->v + step;
        else if (fabs(rv - bad->v) < 1.0) v = bad->v - step;
        if ((v - good->v) * step < 1.0) v = good->v + step;
        if ((bad->v - v) * step < 1.0) v = bad->v - step;
        return (v - good->v) * step >= 1.0 && (bad->v - v) * step >= 1.0 ? v : NAN;
    }
    /* one tolerance from the closer end: the run then closes the bracket
     * whichever side of the boundary it falls */
    const double t = s->tol_x;
    double x = r;
    if (hi - lo <= 2.0 * t) x = 0.5 * (lo + hi);
    else if (fabs(r - a) < t) x = a + (b > a ? t : -t);
    else if (fabs(r - b) < t) x = b + (a > b ? t : -t);
    const double vlo = fmin(good->v, bad->v), vhi = fmax(good->v, bad->v);
    double v = exp(x);
    if (!(v > vlo && v < vhi)) v = sqrt(vlo) * sqrt(vhi);
    if (!(v > vlo && v < vhi)) v = vlo + 0.5 * (vhi - vlo);
    return v > vlo && v < vhi ? v : NAN;
}

/* An epsilon for a message, rounded up to 6 significant digits: what is
 * printed as exceeding the target does. */
static const char *eps_text(double eps, char *buf, size_t size)
{
    snprintf(buf, size, "%.6g", eps);
    double shown = strtod(buf, NULL);
    if (isfinite(eps) && shown < eps) {
        int e10 = (int)floor(log10(fabs(eps)));
        snprintf(buf, size, "%.6g", shown + pow(10.0, e10 - 5));
    }
    return buf;
}

/* The target is not met at the end of the range where epsilon is
 * smallest (and so, epsilon being monotone, nowhere in the range). */
static int out_of_reach(struct search *s, const point *end, const point *best, dpa_error *err)
{
    dpa_calibration *c = s->c;
    const int smallest = c->direction == DPA_SEARCH_SMALLEST;
    c->value = c->epsilon_at_value = NAN;
    c->fails = end->v;
    c->epsilon_at_fails = end->eps;
    char e[40], b[40], seen[160] = "";
    if (best->eps < end->eps)
        snprintf(seen, sizeof seen, " (the smallest seen is %s at %s = %.10g)", eps_text(best->eps, b, sizeof b),
                 s->name, best->v);
    return dpa_fail(err, DPA_ENOBRACKET,
                    "calibrate: epsilon %g at delta %g is not reached for %s in [%g, %g]: at %s = %.10g "
                    "(the %s searched) the certified epsilon is %s > %g%s",
                    s->target, s->delta, s->name, s->lim_lo, s->lim_hi, s->name, end->v,
                    smallest ? "largest" : "smallest", eps_text(end->eps, e, sizeof e), s->target, seen);
}

/* Start from the guide accountant's answer: its value and the slope dy/dx
 * at it (from its final bracket).  Any failure leaves *start NaN. */
static void run_guide(const char *method, const dpa_options *opt, dpa_event_family f, void *ctx, double target,
                      double delta, dpa_calibration *c, double *start, double *slope)
{
    *start = *slope = NAN;
    if (!c->guide || !strcmp(c->guide, method)) return;
    dpa_calibration g = *c;
    g.guide = NULL;
    g.guess = 0.0;
    g.rel_tol = fmax(c->rel_tol, GUIDE_REL_TOL);
    dpa_error ignored = { 0 };
    int st = dpa_calibrate_search(c->guide, opt, f, ctx, target, delta, &g, &ignored);
    c->guide_evaluations = g.evaluations;
    if (st != DPA_OK) return;
    *start = g.value;
    if (isfinite(g.fails) && g.epsilon_at_value > 0.0 && isfinite(g.epsilon_at_fails) && g.fails != g.value)
        *slope = (log(g.epsilon_at_fails) - log(g.epsilon_at_value)) / (log(g.fails) - log(g.value));
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
    if (!(c->guess >= 0.0 && isfinite(c->guess)))
        return dpa_fail(err, DPA_EINVAL, "calibrate: the guess must be 0 (none) or positive and finite, got %g", c->guess);
    if (!(c->rel_tol > 0.0 && c->rel_tol < 1.0)) c->rel_tol = 1e-9;
    if (c->rel_tol < 4.0 * DBL_EPSILON) c->rel_tol = 4.0 * DBL_EPSILON;

    struct search s = { method, opt, f, ctx, target_epsilon, delta, c,
                        c->max_evaluations ? c->max_evaluations : DEFAULT_MAX_EVALUATIONS,
                        c->integer ? ceil(c->limit_lo) : c->limit_lo, c->integer ? floor(c->limit_hi) : c->limit_hi,
                        c->integer ? 0.0 : 0.9 * log1p(c->rel_tol), c->name ? c->name : "value" };
    if (!(s.lim_lo <= s.lim_hi))
        return dpa_fail(err, DPA_EINVAL, "calibrate: no integer in the limits [%g, %g]", c->limit_lo, c->limit_hi);
    const int smallest = c->direction == DPA_SEARCH_SMALLEST;
    /* dy/dx has this sign: epsilon decreases in the noise, increases in the steps */
    const double sign = smallest ? -1.0 : 1.0, to_fail = sign, to_meet = -sign;
    const double meet_end = smallest ? s.lim_hi : s.lim_lo, fail_end = smallest ? s.lim_lo : s.lim_hi;
    c->evaluations = c->guide_evaluations = 0;
    c->value = c->fails = c->epsilon_at_value = c->epsilon_at_fails = NAN;

    double start = NAN, slope = NAN;
    if (c->guess > 0.0) start = c->guess;
    else run_guide(method, opt, f, ctx, target_epsilon, delta, c, &start, &slope);
    if (!(slope * sign > 0.0)) slope = NAN;

    point good = { 0 }, bad = { 0 }, last = { 0 }, prev = { 0 }, best = { 0 };
    best.eps = INFINITY;
    int have_good = 0, have_bad = 0, have_last = 0, have_prev = 0;
    int tried_other = !isnan(start), tried_meet_step = 0, end_checked = 0;
    double fail_step = FIRST_MAX_STEP;
    point end = { 0 };
    /* bisection's guarantee: the bracket's width (in log) when it last halved */
    double mark = INFINITY;
    unsigned runs_since_halved = 0;

    for (;;) {
        double v;
        int is_end = 0;
        if (have_good && have_bad) {
            if (converged(c, good.v, bad.v)) break;
            double width = fabs(good.x - bad.x);
            if (width <= 0.5 * mark) mark = width, runs_since_halved = 0;
            int bisect = runs_since_halved >= RUNS_TO_HALVE;
            if (bisect) mark = width, runs_since_halved = 0;
            v = inside(&s, &good, &bad, &last, &prev, have_last && have_prev, slope, bisect);
            if (isnan(v)) break; /* no double between them: as narrow as it gets */
            runs_since_halved++;
        } else if (have_good) {
            /* a failing value is needed */
            if (good.v == fail_end) {
                /* the whole range meets the target: its edge */
                c->value = good.v;
                c->epsilon_at_value = good.eps;
                return DPA_OK;
            }
            if (!tried_other && (smallest ? c->lo : c->hi) * to_fail > good.v * to_fail) v = smallest ? c->lo : c->hi;
            else {
                v = step_from(&s, &good, slope, to_fail, fail_step);
                fail_step *= 2.0;
            }
            tried_other = 1;
            if (isnan(v)) v = fail_end;
        } else if (have_bad) {
            /* a meeting value is needed: one Newton step when the slope
             * is known, then the end of the range */
            if (bad.v == meet_end) return out_of_reach(&s, &bad, &best, err);
            if (!tried_meet_step && isfinite(slope) && isfinite(bad.y)) {
                v = step_from(&s, &bad, slope, to_meet, FIRST_MAX_STEP);
                tried_meet_step = 1;
            } else if (!end_checked) {
                v = meet_end;
                is_end = end_checked = 1;
            } else {
                /* walking towards an end whose bound said little */
                v = step_from(&s, &bad, NAN, to_meet, FIRST_MAX_STEP);
                if (isnan(v) || v * to_meet >= meet_end * to_meet) return out_of_reach(&s, &end, &best, err);
            }
            if (isnan(v)) v = meet_end, is_end = end_checked = 1;
        } else {
            v = !isnan(start) ? start : smallest ? c->hi : c->lo;
            v = fmin(fmax(c->integer ? nearbyint(v) : v, s.lim_lo), s.lim_hi);
        }

        if (c->evaluations >= s.max) {
            c->value = have_good ? good.v : NAN;
            c->epsilon_at_value = have_good ? good.eps : NAN;
            c->fails = have_bad ? bad.v : NAN;
            c->epsilon_at_fails = have_bad ? bad.eps : NAN;
            return dpa_fail(err, DPA_EACCURACY,
                            "calibrate: %u evaluations of %s did not narrow the search to the tolerance "
                            "(best bracket: %s meets at %.10g, fails at %.10g)",
                            s.max, method, s.name, c->value, c->fails);
        }
        point p;
        if ((st = evaluate(&s, v, &p, err))) return st;
        if (p.eps < best.eps || best.eps == INFINITY) best = p;
        if (isfinite(p.y)) {
            if (have_last && p.x != last.x) {
                double d = (p.y - last.y) / (p.x - last.x);
                if (d * sign > 0.0) slope = d;
            }
            prev = last;
            have_prev = have_last;
            last = p;
            have_last = 1;
        }
        if (is_end && !p.meets) {
            end = p;
            /* an exact bound at the end no smaller than where it started:
             * nothing in between meets (epsilon is monotone) */
            if (p.exact && !(p.eps > bad.eps)) return out_of_reach(&s, &end, &best, err);
            continue; /* walk towards it from bad */
        }
        if (p.meets) {
            if (!have_good || p.v * to_fail > good.v * to_fail) good = p;
            have_good = 1;
        } else {
            if (!have_bad || p.v * to_meet > bad.v * to_meet) bad = p;
            have_bad = 1;
        }
    }
    c->value = good.v;
    c->epsilon_at_value = good.eps;
    c->fails = bad.v;
    c->epsilon_at_fails = bad.eps;
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
    c.name = "steps";
    if (!steps_out) return dpa_fail(err, DPA_EINVAL, "calibrate: the output (steps_out) is NULL");
    int st = dpa_calibrate_search(method, opt, f, ctx, target_epsilon, delta, &c, err);
    if (!st) *steps_out = (uint64_t)c.value;
    return st;
}
