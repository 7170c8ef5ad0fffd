/*
 * tradeoff.c - the trade-off curve: how well an attacker can tell whether
 * one record was used, as bounds on its true-positive rate at a given
 * false-positive rate, from the accountant's privacy profile delta(eps):
 * each direction's where the accountant keeps the pairs
 * (dpa_accountant_delta_directions: pld; the Gaussian's one pair), else
 * the larger of the two for both (flagged DPA_SYMMETRISED).
 *
 * A test that rejects "the record was not used" with false-positive rate
 * alpha (under the neighbour without the record) and true-positive rate
 * TPR is, for an (eps, delta)-DP mechanism (Kairouz, Oh & Viswanath, ICML
 * 2015, Thm 2.1; Dong, Roth & Su, JRSS-B 2022, Prop 2.12), bounded by
 *
 *   TPR <= e^eps alpha + delta(eps)                       (1)
 *   TPR <= 1 - e^-eps (1 - alpha - delta(eps))            (2)
 *
 * for every eps >= 0, delta in (1) that of the pair with the record
 * against without it, in (2) that of the reverse pair.  The least of the
 * lines over eps IS the curve (it is concave, and the envelope of its
 * tangents; Dong, Roth & Su, Prop 2.12): with each direction's delta, the
 * exact curve; with the larger delta in both, the curve of the pair
 * symmetrised over the two directions, above the true one (so its upper
 * bound holds, and its lower bound is of the symmetrised curve).  A lower
 * bound of delta gives a lower bound of the curve: on eps in [a, b], delta
 * is at least delta(b) (it falls with eps), so
 *
 *   (1) >= e^a alpha + delta_lower(b),
 *   (2) >= 1 - e^-a (1 - alpha) + e^-b delta_lower(b);
 *
 * beyond the last eps E the lines are at least e^E alpha and 1 - e^-E (1 -
 * alpha).  The search splits the interval with the least lower value until
 * the bracket is narrow enough or its queries run out: a count of work,
 * never a clock.  TPR >= alpha always (guessing at random).
 */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* the bracket sought, and the delta queries allowed for it */
#define TRADEOFF_WIDTH 1e-9
#define TRADEOFF_MAX_QUERIES 600
#define TRADEOFF_START_POINTS 17
/* the least upper value is located when the points around it are this
 * close in eps (relative to 1 + eps) */
#define TRADEOFF_EPS_STEP 1e-7

/* delta(eps) brackets of the pair with the record against without it
 * ([0]: line (1)) and of the reverse ([1]: line (2)). */
typedef struct {
    double eps, lower[2], upper[2];
} profile_point;

/* One delta query: DPA_OK (or a bracket too wide, still valid) with the
 * brackets; the flags collected in *flags, and *symmetrised set when the
 * accountant gave the larger delta for both directions. */
static int query(dpa_accountant *a, double eps, int cached, profile_point *p, unsigned *flags, int *symmetrised,
                 dpa_error *err)
{
    dpa_bound b[2];
    int exact;
    int st = dpa_accountant_delta_directions(a, eps, cached, b, &exact, err);
    if (st && st != DPA_EACCURACY) return st;
    if (!exact) *symmetrised = 1;
    p->eps = eps;
    for (int w = 0; w < 2; w++) {
        *flags |= b[w].flags;
        p->upper[w] = fmin(1.0, b[w].upper);
        p->lower[w] = b[w].flags & DPA_NO_LOWER ? 0.0 : fmax(0.0, b[w].lower);
    }
    return DPA_OK;
}

/* The lines (1) and (2) at p, the least of them: an upper bound of TPR;
 * *spread receives how much of it is delta's bracket (the width no finer
 * search in eps can remove). */
static double line_upper(const profile_point *p, double alpha, double *spread)
{
    double one = exp(p->eps) * alpha + p->upper[0];
    double two = 1.0 - exp(-p->eps) * (1.0 - alpha - p->upper[1]);
    *spread = one <= two ? p->upper[0] - p->lower[0] : exp(-p->eps) * (p->upper[1] - p->lower[1]);
    return fmin(one, two);
}

/* Line (1) as g(t) = t alpha + delta, t = e^eps, and line (2) as
 * g(s) = 1 - (1 - alpha) s + s delta, s = e^-eps: each convex in its
 * variable (delta is a supremum of P(S) - t Q(S), affine in t, so convex
 * in t; s delta(1/s) is its perspective, convex in s).  A convex g lies
 * above every secant extended beyond its points: on [x1, x2], above the
 * secant of (x0, x1) continued to the right and that of (x2, x3) continued
 * to the left, with the slopes bounded by the values' brackets. */
typedef struct {
    double x, lo, hi;   /* abscissa, bracket of g there */
} gpoint;

static gpoint g_at(const profile_point *p, double alpha, int line)
{
    if (line == 1) {
        double t = exp(p->eps);
        return (gpoint){ t, t * alpha + p->lower[0], t * alpha + p->upper[0] };
    }
    double s = exp(-p->eps), base = 1.0 - (1.0 - alpha) * s;
    return (gpoint){ s, base + s * p->lower[1], base + s * p->upper[1] };
}

/* A lower bound of convex g on [b.x, c.x] from the points around it (a and
 * d may be NULL at the ends) and from the monotone bound `floor`.  Each
 * secant extension bounds g on the whole interval, so each one's least
 * value there does, and so does the larger of the two: no intersection of
 * the two lines is computed (it is ill-conditioned when their slopes are
 * close), and the bound still closes as h^2 on an interval of width h
 * around a smooth minimum. */
static double convex_lower(const gpoint *a, const gpoint *b, const gpoint *c, const gpoint *d, double floor)
{
    const double h = c->x - b->x;
    double best = floor;
    if (a && b->x > a->x) {
        /* g(x) >= b.lo + sl (x - b.x) for x >= b.x, sl >= (b.lo - a.hi)/(b.x - a.x) */
        double sl = (b->lo - a->hi) / (b->x - a->x);
        best = fmax(best, b->lo + fmin(0.0, sl) * h);
    }
    if (d && d->x > c->x) {
        /* g(x) >= c.lo + sr (x - c.x) for x <= c.x, sr <= (d.hi - c.lo)/(d.x - c.x) */
        double sr = (d->hi - c->lo) / (d->x - c->x);
        best = fmax(best, c->lo - fmax(0.0, sr) * h);
    }
    return best;
}

/* A lower bound of TPR's curve over eps in [pt[i-1].eps, pt[i].eps]. */
static double interval_lower(const profile_point *pt, size_t n, size_t i, double alpha)
{
    const profile_point *a = &pt[i - 1], *b = &pt[i];
    /* the monotone bounds: delta is at least delta(b) on the interval */
    double mono1 = exp(a->eps) * alpha + b->lower[0];
    double mono2 = 1.0 - exp(-a->eps) * (1.0 - alpha) + exp(-b->eps) * b->lower[1];
    /* line (1) in t (increasing with eps) */
    gpoint p0, p1 = g_at(a, alpha, 1), p2 = g_at(b, alpha, 1), p3;
    if (i >= 2) p0 = g_at(&pt[i - 2], alpha, 1);
    if (i + 1 < n) p3 = g_at(&pt[i + 1], alpha, 1);
    double one = convex_lower(i >= 2 ? &p0 : NULL, &p1, &p2, i + 1 < n ? &p3 : NULL, mono1);
    /* line (2) in s (decreasing with eps: the points in reverse) */
    p1 = g_at(b, alpha, 2);
    p2 = g_at(a, alpha, 2);
    if (i + 1 < n) p0 = g_at(&pt[i + 1], alpha, 2);
    if (i >= 2) p3 = g_at(&pt[i - 2], alpha, 2);
    double two = convex_lower(i + 1 < n ? &p0 : NULL, &p1, &p2, i >= 2 ? &p3 : NULL, mono2);
    return fmin(one, two);
}

int dpa_accountant_tradeoff(dpa_accountant *a, double fpr, dpa_bound *out, dpa_error *err)
{
    if (!a) return dpa_fail(err, DPA_EINVAL, "tradeoff: the accountant (a) is NULL");
    if (!out) return dpa_fail(err, DPA_EINVAL, "tradeoff: the output (out) is NULL");
    if (!(fpr > 0.0 && fpr <= 1.0))
        return dpa_fail(err, DPA_EINVAL, "tradeoff: the false-positive rate must lie in (0, 1], got %g", fpr);
    if (fpr == 1.0) {
        *out = (dpa_bound){ 1.0, 1.0, 1.0, 0.0, DPA_EXACT };
        return DPA_OK;
    }
    /* beyond E the lines exceed the bound (1) gives at eps = 0 or reach 1:
     * e^E alpha >= 1, and 1 - e^-E (1 - alpha) within 1e-12 of 1 */
    const double top = fmax(log(1.0 / fpr), log((1.0 - fpr) / 1e-12));
    const size_t cap = TRADEOFF_MAX_QUERIES + TRADEOFF_START_POINTS;
    profile_point *pt = malloc(cap * sizeof *pt);
    if (!pt) return dpa_fail(err, DPA_ENOMEM, "tradeoff: out of memory");
    unsigned flags = 0;
    int symmetrised = 0;
    size_t n = 0;
    int st = DPA_OK;
    double upper = 1.0, spread = 0.0, at_spread;
    for (; n < TRADEOFF_START_POINTS; n++) {
        /* denser near 0, where the optimum of a small alpha lies */
        double x = (double)n / (TRADEOFF_START_POINTS - 1);
        /* the first a query, the rest from what it built where the
         * accountant keeps that (pld's grids) */
        if ((st = query(a, top * x * x, n > 0, &pt[n], &flags, &symmetrised, err))) goto done;
        double u = line_upper(&pt[n], fpr, &at_spread);
        if (u < upper) upper = u, spread = at_spread;
    }
    double lower = fpr;
    int met = 0;
    for (unsigned round = 0;; round++) {
        /* the least lower value over the intervals and the tail, and the
         * interval to split: the one with the least lower value among those
         * a split can still narrow (an interval is settled when its lower
         * value is within delta's brackets of its ends' upper values) */
        size_t worst = 0, best_point = 0;
        double least = fmin(exp(top) * fpr, 1.0 - exp(-top) * (1.0 - fpr)), open = INFINITY, best_up = INFINITY;
        for (size_t i = 0; i < n; i++) {
            double sp, u = line_upper(&pt[i], fpr, &sp);
            if (u < best_up) best_up = u, best_point = i;
            if (i == 0) continue;
            double v = interval_lower(pt, n, i, fpr), sp0, u0 = line_upper(&pt[i - 1], fpr, &sp0);
            least = fmin(least, v);
            int settled = fmin(u, u0) - v <= TRADEOFF_WIDTH + 2.0 * fmax(sp, sp0);
            if (!settled && v < open) open = v, worst = i;
        }
        lower = fmax(fpr, least);
        if ((met = upper - lower <= TRADEOFF_WIDTH) || n == cap) break;
        /* every other split narrows the search for the least upper value
         * (the lines are unimodal in eps): the wider neighbour of its point,
         * until both neighbours are within TRADEOFF_EPS_STEP of it */
        size_t k = best_point;
        size_t w = k == 0 ? 1 : k + 1 >= n ? k : pt[k + 1].eps - pt[k].eps > pt[k].eps - pt[k - 1].eps ? k + 1 : k;
        int located = w < 1 || w >= n || pt[w].eps - pt[w - 1].eps <= TRADEOFF_EPS_STEP * (1.0 + pt[w].eps);
        if ((round % 2 == 1 || worst == 0) && !located) worst = w;
        /* everything settled and the least upper value located: what is
         * left is delta's own bracket (within twice what it puts into the
         * best line: a finer eps cannot remove it) */
        if (worst == 0) {
            met = upper - lower <= TRADEOFF_WIDTH + 2.0 * spread;
            break;
        }
        /* split it: the points stay sorted by eps */
        double mid = 0.5 * (pt[worst - 1].eps + pt[worst].eps);
        if (!(mid > pt[worst - 1].eps && mid < pt[worst].eps)) break;   /* as fine as doubles go */
        for (size_t j = n; j > worst; j--) pt[j] = pt[j - 1];
        if ((st = query(a, mid, 1, &pt[worst], &flags, &symmetrised, err))) goto done;
        n++;
        double u = line_upper(&pt[worst], fpr, &at_spread);
        if (u < upper) {
            /* a new best point: queried afresh, so that the grids are the
             * ones built for it and the points around it are tight */
            if ((st = query(a, mid, 0, &pt[worst], &flags, &symmetrised, err))) goto done;
            u = line_upper(&pt[worst], fpr, &at_spread);
            if (u < upper) upper = u, spread = at_spread;
        }
    }
    /* outward by the rounding of the few operations above */
    upper = fmin(1.0, upper + 8.0 * DBL_EPSILON);
    lower = fmax(fpr, lower - 8.0 * DBL_EPSILON);
    if (!(upper >= lower)) {   /* guessing at random reaches fpr: a profile that says less is wrong */
        st = dpa_fail(err, DPA_EINTERNAL, "tradeoff: the profile bounds the true-positive rate at %g by %g, below "
                                          "the false-positive rate or the lower bound %g", fpr, upper, lower);
        goto done;
    }
    *out = (dpa_bound){ lower, 0.5 * (lower + upper), upper, 0.0,
                        (symmetrised ? (unsigned)DPA_SYMMETRISED : 0u) | (flags & (DPA_APPROXIMATE | DPA_PAIR_LOWER)) |
                            (met ? 0u : DPA_WIDTH_NOT_MET) };
done:
    free(pt);
    return st;
}
