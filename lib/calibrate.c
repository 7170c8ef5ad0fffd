/*
 * calibrate.c - search a one-parameter family of events for the smallest
 * noise (or the largest number of steps or sampling rate) that meets a
 * target (eps, delta), using any accountant's certified upper epsilon.
 *
 * The search assumes eps is monotone in the parameter and counts its
 * accountant runs (there is no clock anywhere).  It works with x = log of
 * the parameter and y = log(eps / target): in DP-SGD's regimes y is close
 * to linear in x (eps ~ q sqrt(T) / sigma for the Gaussian, to first
 * order; measured on q = 0.004, T = 1e4: dy/dx = -1.330, -2.277, -3.459
 * at eps = 1, 3, 8, constant to 4 digits over +-3% of sigma), so
 * interpolation needs few runs.
 *
 * A value meets the target when the method's certified upper epsilon is
 * at or below it (at any accuracy: an upper bound is an upper bound).  It
 * fails when the method, run at the caller's accuracy (dpa_options as
 * given), certifies an upper epsilon above the target -- or, at any
 * accuracy, a LOWER epsilon above it, since then no accuracy can bring
 * the upper bound down to the target.  The tolerance is the distance
 * between a meeting and a failing value in that sense: the boundary is
 * that of the method at the caller's accuracy (see docs/api.md for how
 * far that lies from the true one).
 *
 *  1. A start: the answer of a cheap guide accountant (rdp's closed forms)
 *     with its slope dy/dx, or the caller's guess, or the interval [lo, hi].
 *  2. With a guide, the start is first refined by runs of the method at a
 *     loose accuracy (eps_error 0.1, then 0.01): each answers with a
 *     certified bracket [lower, upper] of eps, whose middle places the
 *     boundary within about half its width / |dy/dx|, for a fraction of the
 *     cost of a run at the caller's accuracy (pld on the case above: 18 ms
 *     at 0.1, 34 ms at 0.01, 126 ms at the default 1e-3), and whose ends
 *     classify the value when they are decisive (upper <= target: meets;
 *     lower > target: fails).
 *  3. Until a meeting and a failing value bracket the boundary: a Newton
 *     step aimed just past the boundary (with the guide's slope, then the
 *     secant of the runs at the caller's accuracy).  When no meeting value
 *     is known, the far end of the range (limit_hi for the noise) is
 *     evaluated next: if it fails too, the target is out of reach and the
 *     search stops there, with that end's epsilon.
 *  4. In the bracket: the secant through the last two runs, else Newton
 *     from the last one, else regula falsi between the ends, else
 *     bisection (also whenever the bracket has not halved in three runs,
 *     which bounds the runs by bisection's).  A run within a tolerance of
 *     the boundary is followed by one a tolerance from it, on the other
 *     side, so that the bracket closes from both sides.
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
/* The loose runs that place the start (step 2): the first accuracy asked
 * (pld's calibration pass alone answers it), the factor to the next, and
 * at most this many.  They stop once the boundary is placed within
 * LOCATED (in log): from there the guide's slope, off by about 3% for
 * pld against rdp on DP-SGD, puts the next run within a tolerance (1e-4)
 * of the boundary.  No loose run is finer than LOOSE_OVER_CONFIGURED
 * times the caller's accuracy (pld's default 1e-3 when it is left 0):
 * a run that close costs about as much as one at the caller's. */
#define LOOSE_FIRST 0.1
#define LOOSE_RATIO 0.1
#define LOOSE_RUNS 2
#define LOCATED 1.5e-3
#define LOOSE_OVER_CONFIGURED 3.0
#define DEFAULT_ACCURACY 1e-3
/* A Newton step from one side of the boundary aims this many tolerances
 * past it (so that it crosses when the slope is right, and lands within a
 * tolerance when it is nearly right), plus this fraction of the step when
 * the slope is the guide's (another accountant's) rather than the secant
 * of two runs of the method itself.  The step towards a meeting value
 * when none is known yet overshoots more (a tenth and a tolerance): when
 * it falls short the far end of the range is evaluated next. */
#define AIM_PAST 0.5
/* the closing run inside a bracket: this many tolerances past the
 * predicted boundary (see inside) */
#define CLOSE_PAST 0.1
#define GUIDE_SLOPE_DOUBT 0.02
/* how far the guide's slope may be from the method's, relatively, when
 * the loose runs place the boundary from a distance */
#define GUIDE_SLOPE_ERROR 0.03

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
    double yl;    /* log(lower / target); -inf without a lower bound */
    int meets;    /* eps <= target */
    int fails;    /* the target is not met at the caller's accuracy: eps above
                   * it there (configured), or lower above it at any accuracy */
    int configured; /* run at the caller's accuracy, or its bound is exact (no
                     * accuracy would change it): y can enter a secant */
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

/* The method's certified bracket of eps at v, run at accuracy eps_error
 * (dpa_options.tolerance) when that is positive, else with the caller's
 * options as given; or a status. */
static int evaluate(struct search *s, double v, double eps_error, point *p, dpa_error *err)
{
    dpa_error local = { 0 };
    dpa_event *e = s->family(v, s->ctx, &local);
    if (!e) {
        if (local.status == DPA_OK) dpa_fail(&local, DPA_EINVAL, "calibrate: the event family returned NULL at %g", v);
        if (err) *err = local;
        return local.status;
    }
    dpa_options loose;
    const dpa_options *opt = s->opt;
    if (eps_error > 0.0) {
        if (s->opt) loose = *s->opt;
        else dpa_options_init(&loose);
        loose.tolerance = eps_error;
        opt = &loose;
    }
    dpa_accountant *a = dpa_accountant_new(s->method, opt, err);
    int st = a ? DPA_OK : (err ? err->status : DPA_ENOMEM);
    dpa_bound b;
    int exact = 1;
    if (!st) st = dpa_accountant_compose(a, e, err);
    if (!st) {
        st = dpa_accountant_epsilon(a, s->delta, &b, err);
        /* An accountant that could not reach its accuracy still returns a
         * certified upper bound (pld under require_width: DPA_EACCURACY
         * with its best bracket); only that upper bound decides whether
         * the target is met, so a loose one can only make the answer more
         * conservative. */
        if (st == DPA_EACCURACY && b.upper > 0.0 && b.upper >= b.lower) {
            st = DPA_OK;
            exact = 0;
            if (err) *err = (dpa_error){ 0 };
        }
        /* the same bracket answered DPA_OK, flagged (pld's default) */
        if (!st && (b.flags & DPA_WIDTH_NOT_MET)) exact = 0;
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
    /* A lower bound (of the mechanism, or of the dominating pair the
     * method analyses: DPA_PAIR_LOWER) above the target means that no
     * accuracy brings the method's upper bound down to it. */
    const int has_lower = !(b.flags & DPA_NO_LOWER) && b.lower > 0.0 && !isnan(b.lower);
    p->v = v;
    p->x = log(v);
    p->eps = b.upper;
    p->y = b.upper > 0.0 ? log(b.upper) - log(s->target) : -INFINITY;
    p->yl = has_lower ? log(b.lower) - log(s->target) : -INFINITY;
    p->configured = !(eps_error > 0.0) || (b.flags & DPA_EXACT) || b.lower == b.upper;
    p->meets = b.upper <= s->target;
    p->fails = !p->meets && (p->configured || (has_lower && b.lower > s->target));
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
 * lengthened by `doubt` of itself and `past` (in log) so that it crosses,
 * at most max_step in log; max_step when there is no usable slope.  NaN
 * when p is at the end of the range in that direction. */
static double step_from(const struct search *s, const point *p, double slope, double dir, double max_step,
                        double doubt, double past)
{
    double d = NAN;
    if (isfinite(slope) && slope != 0.0 && isfinite(p->y)) {
        double newton = -p->y / slope;
        if (newton * dir > 0.0) d = (1.0 + doubt) * fabs(newton) + past;
    }
    if (!(d <= max_step)) d = max_step;
    double v = value_at(s, p->x + dir * d);
    if (s->c->integer && v == p->v) v = fmin(fmax(p->v + dir, s->lim_lo), s->lim_hi);
    return v == p->v ? NAN : v;
}

/* The next value strictly inside the bracket (good, bad); NaN when the
 * doubles between them are exhausted.  last and prev are the last two
 * runs at the caller's accuracy (have_last, have_prev say which exist). */
static double inside(const struct search *s, const point *good, const point *bad, const point *last,
                     const point *prev, int have_last, int have_prev, double slope, int bisect)
{
    const double a = good->x, b = bad->x, lo = fmin(a, b), hi = fmax(a, b);
    double r = NAN;
    if (!bisect) {
        /* the secant through the last two runs (inside or outside the bracket) */
        if (have_last && have_prev && last->x != prev->x && isfinite(last->y) && isfinite(prev->y) &&
            last->y != prev->y)
            r = last->x - last->y * (last->x - prev->x) / (last->y - prev->y);
        /* Newton from the last run: near the boundary the slope (the
         * guide's, or an earlier secant) places it better than a chord to
         * an end placed by a loose run */
        if (!(r > lo && r < hi) && have_last && isfinite(last->y) && isfinite(slope) && slope != 0.0)
            r = last->x - last->y / slope;
        /* regula falsi between the ends */
        if (!(r > lo && r < hi) && isfinite(good->y) && isfinite(bad->y) && good->y != bad->y)
            r = a - good->y * (b - a) / (bad->y - good->y);
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
    /* The predicted boundary r within a tolerance of an end: the run goes
     * a little past r, away from that end, so that it closes the bracket
     * when r is right, and lands close to the boundary (the value
     * returned is the meeting end, so the nearer the better); never more
     * than one tolerance from the end, where it closes the bracket
     * whichever side of the boundary it falls. */
    const double t = s->tol_x;
    double x = r;
    if (hi - lo <= 2.0 * t) x = 0.5 * (lo + hi);
    else {
        const double end = fabs(r - a) <= fabs(r - b) ? a : b, far = end == a ? b : a;
        const double away = far > end ? 1.0 : -1.0, past = r + away * CLOSE_PAST * t;
        if (fabs(r - end) < t) x = fabs(past - end) <= t ? past : end + away * t;
    }
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

/* The runs so far: the meeting value nearest the boundary (good), the
 * failing one (bad), the last two runs at the caller's accuracy (for the
 * secant) and the slope dy/dx (the guide's until two runs give their own). */
typedef struct runs {
    point good, bad, last, prev, best;
    int have_good, have_bad, have_last, have_prev;
    double slope, sign;
    int slope_own; /* the slope is a secant of the method's own runs */
} runs;

/* Files a run; with classify, as a meeting or failing value when it is
 * one (a loose run may be neither: its bracket straddles the target). */
static void record(runs *r, const point *p, int classify)
{
    if (p->eps < r->best.eps || r->best.eps == INFINITY) r->best = *p;
    if (p->configured && isfinite(p->y)) {
        if (r->have_last && p->x != r->last.x) {
            double d = (p->y - r->last.y) / (p->x - r->last.x);
            if (d * r->sign > 0.0) r->slope = d, r->slope_own = 1;
        }
        r->prev = r->last;
        r->have_prev = r->have_last;
        r->last = *p;
        r->have_last = 1;
    }
    if (!classify) return;
    /* to_fail = sign: failing values lie that way */
    if (p->meets) {
        if (!r->have_good || (p->v - r->good.v) * r->sign > 0.0) r->good = *p;
        r->have_good = 1;
        /* A failing value beyond a meeting one would contradict the
         * monotone epsilon; it can only be an upper bound at the caller's
         * accuracy looser than another run's: the certified meeting value
         * stands. */
        if (r->have_bad && (r->bad.v - r->good.v) * r->sign <= 0.0) r->have_bad = 0;
    } else if (p->fails) {
        if (r->have_good && (p->v - r->good.v) * r->sign <= 0.0) return;
        if (!r->have_bad || (p->v - r->bad.v) * r->sign < 0.0) r->bad = *p;
        r->have_bad = 1;
    }
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

    runs r = { .slope = slope, .sign = sign };
    r.best.eps = INFINITY;
    int tried_other = !isnan(start), tried_meet_step = 0, end_checked = 0, start_pending = !isnan(start);
    double fail_step = FIRST_MAX_STEP;
    point end = { 0 };
    /* bisection's guarantee: the bracket's width (in log) when it last halved */
    double mark = INFINITY;
    unsigned runs_since_halved = 0;

    /* 2. the loose runs that place the start (only with the guide's start
     * and slope, for a method that answers with a bracket) */
    if (!isnan(start) && isfinite(slope) && c->guess <= 0.0) {
        const double configured = opt && opt->tolerance > 0.0 ? opt->tolerance : DEFAULT_ACCURACY;
        double tau = LOOSE_FIRST, v = value_at(&s, log(start));
        for (int k = 0; k < LOOSE_RUNS && tau >= LOOSE_OVER_CONFIGURED * configured && c->evaluations < s.max;
             k++, tau *= LOOSE_RATIO) {
            point p;
            if ((st = evaluate(&s, v, tau, &p, err))) return st;
            record(&r, &p, 1);
            if (p.configured) {     /* an exact bound: a run like any other, the start evaluated */
                start_pending = 0;
                break;
            }
            if (!isfinite(p.yl) || !isfinite(p.y)) break;   /* no bracket to place the boundary with */
            /* The boundary where the bracket's middle (in log) puts it,
             * within half the bracket's width and the guide slope's error
             * over the distance.  The start (run at the caller's accuracy)
             * goes half that accuracy's relative width (in eps) towards
             * meeting: the boundary searched is that of the upper bound at
             * that accuracy, which lies above the truth by up to its width. */
            const double as = fabs(r.slope), xb = p.x - 0.5 * (p.yl + p.y) / r.slope;
            const double placed = 0.5 * (p.y - p.yl) / as + GUIDE_SLOPE_ERROR * fabs(p.x - xb);
            start = value_at(&s, xb + to_meet * 0.5 * configured / as);
            if (placed <= LOCATED) break;
            double next = value_at(&s, xb);
            if (next == p.v) break;
            v = next;
        }
    }

    for (;;) {
        double v = NAN;
        int is_end = 0;
        if (start_pending) {
            start_pending = 0;
            v = value_at(&s, log(start));
            /* strictly inside the bracket the loose runs left, if any */
            if (r.have_good && r.have_bad && !((v - r.good.v) * (v - r.bad.v) < 0.0)) v = NAN;
            if ((r.have_good && v == r.good.v) || (r.have_bad && v == r.bad.v)) v = NAN;
        }
        if (!isnan(v)) {
            /* the start */
        } else if (r.have_good && r.have_bad) {
            if (converged(c, r.good.v, r.bad.v)) break;
            double width = fabs(r.good.x - r.bad.x);
            if (width <= 0.5 * mark) mark = width, runs_since_halved = 0;
            int bisect = runs_since_halved >= RUNS_TO_HALVE;
            if (bisect) mark = width, runs_since_halved = 0;
            v = inside(&s, &r.good, &r.bad, &r.last, &r.prev, r.have_last, r.have_prev, r.slope, bisect);
            if (isnan(v)) break; /* no double between them: as narrow as it gets */
            runs_since_halved++;
        } else if (r.have_good) {
            /* a failing value is needed */
            if (r.good.v == fail_end) {
                /* the whole range meets the target: its edge */
                c->value = r.good.v;
                c->epsilon_at_value = r.good.eps;
                return DPA_OK;
            }
            if (!tried_other && (smallest ? c->lo : c->hi) * to_fail > r.good.v * to_fail) v = smallest ? c->lo : c->hi;
            else {
                /* aimed just past the boundary: when the slope is right
                 * the run lands within a tolerance of it on the far side,
                 * and the bracket closes at the next run */
                const double doubt = c->integer ? 0.1 : r.slope_own ? 0.0 : GUIDE_SLOPE_DOUBT;
                v = step_from(&s, &r.good, r.slope, to_fail, fail_step, doubt, AIM_PAST * s.tol_x);
                fail_step *= 2.0;
            }
            tried_other = 1;
            if (isnan(v)) v = fail_end;
        } else if (r.have_bad) {
            /* a meeting value is needed: one Newton step when the slope
             * is known, then the end of the range */
            if (r.bad.v == meet_end) return out_of_reach(&s, &r.bad, &r.best, err);
            if (!tried_meet_step && isfinite(r.slope) && isfinite(r.bad.y)) {
                v = step_from(&s, &r.bad, r.slope, to_meet, FIRST_MAX_STEP, 0.1, s.tol_x);
                tried_meet_step = 1;
            } else if (!end_checked) {
                v = meet_end;
                is_end = end_checked = 1;
            } else {
                /* walking towards an end whose bound said little */
                v = step_from(&s, &r.bad, NAN, to_meet, FIRST_MAX_STEP, 0.0, 0.0);
                if (isnan(v) || v * to_meet >= meet_end * to_meet) return out_of_reach(&s, &end, &r.best, err);
            }
            if (isnan(v)) v = meet_end, is_end = end_checked = 1;
        } else {
            v = !isnan(start) ? start : smallest ? c->hi : c->lo;
            v = fmin(fmax(c->integer ? nearbyint(v) : v, s.lim_lo), s.lim_hi);
        }

        if (c->evaluations >= s.max) {
            c->value = r.have_good ? r.good.v : NAN;
            c->epsilon_at_value = r.have_good ? r.good.eps : NAN;
            c->fails = r.have_bad ? r.bad.v : NAN;
            c->epsilon_at_fails = r.have_bad ? r.bad.eps : NAN;
            return dpa_fail(err, DPA_EACCURACY,
                            "calibrate: %u evaluations of %s did not narrow the search to the tolerance "
                            "(best bracket: %s meets at %.10g, fails at %.10g)",
                            s.max, method, s.name, c->value, c->fails);
        }
        point p;
        if ((st = evaluate(&s, v, 0.0, &p, err))) return st;
        if (is_end && !p.meets) {
            record(&r, &p, 0);
            end = p;
            /* an exact bound at the end no smaller than where it started:
             * nothing in between meets (epsilon is monotone) */
            if (p.exact && !(p.eps > r.bad.eps)) return out_of_reach(&s, &end, &r.best, err);
            continue; /* walk towards it from bad */
        }
        record(&r, &p, 1);
    }
    c->value = r.good.v;
    c->epsilon_at_value = r.good.eps;
    c->fails = r.bad.v;
    c->epsilon_at_fails = r.bad.eps;
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
