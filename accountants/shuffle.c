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
 * Every H_c on a window of +-14 standard deviations of C is computed in
 * long double by walking c (see delta_bracket), with tracked error bounds;
 * the weights of C likewise; the tails beyond the window are bounded by
 * Chernoff and count in full above (H does not increase with c: Bin(c + 1,
 * 1/2) is Bin(c, 1/2) plus an independent coin, so (P_c+1, Q_c+1) is a
 * post-processing of (P_c, Q_c)).  What limits n is the log-gamma start of
 * the walks (relative error ~ n log n ulps of long double): up to 1e9.
 *
 * The bound is the one of the clones pair: `lower` bounds that pair's eps,
 * which the shuffled mechanism need not attain (DPA_PAIR_LOWER).
 */
#include "internal.h"
#include "numerics.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#define DEFAULT_EPS_ERROR 1e-3
#define WINDOW_SD 14.0
#define MAX_USERS 1e9            /* the log-gamma start of the walks loses ~1e-8 there */
#define ULD LDBL_EPSILON         /* unit roundoff of long double (2^-63 on x86-64) */

typedef long double ld;

typedef struct {
    int have;
    double eps0;
    uint64_t n;
    /* C ~ Bin(n - 1, e^-eps0) on [lo, hi]: weight[c - lo] (relative error
     * at most weight_relerr), and Chernoff bounds on the two tails */
    uint64_t lo, hi;
    double *weight, weight_relerr;
    double tail_lo, tail_hi;
} shuffle_state;

/* log Bin(N, p)(k) from log-gammas, with a bound on its absolute error:
 * a few ulps of each term's magnitude (glibc's lgammal is good to a few
 * ulps; the terms reach N log N, which is what limits N). */
static ld log_binom(uint64_t N, uint64_t k, ld log_p, ld log_q, ld *abs_err)
{
    ld t[5] = { lgammal((ld)N + 1.0L), -lgammal((ld)k + 1.0L), -lgammal((ld)(N - k) + 1.0L),
                k ? (ld)k * log_p : 0.0L, N - k ? (ld)(N - k) * log_q : 0.0L };
    ld v = 0.0L, mag = 0.0L;
    for (int i = 0; i < 5; i++) { v += t[i]; mag += fabsl(t[i]); }
    *abs_err = 16.0L * ULD * (mag + 1.0L);
    return v;
}

/* Chernoff-Hoeffding: P(Bin(N, p) <= a) or P(Bin(N, p) >= a), by the side
 * of a against N p, <= exp(-N D(a/N || p)). */
static double binom_tail_bound(uint64_t N, double a, double p)
{
    ld x = (ld)a / (ld)N, q = 1.0L - (ld)p;
    ld d = (x > 0.0L ? x * logl(x / (ld)p) : 0.0L) + (x < 1.0L ? (1.0L - x) * logl((1.0L - x) / q) : 0.0L);
    return (double)fminl(1.0L, expl(-(ld)N * d) * (1.0L + 64.0L * ULD));
}

/* ---- the clones pair, walked along c ------------------------------------------ */

/* The start of a walk at (c, k): b = Bin(c, 1/2)(k) from log-gammas and
 * F = Bin(c, 1/2)(<= k) summed downwards, the rest of the sum bounded by the
 * geometric tail of the (decreasing) term ratios; with their errors. */
static void walk_start(uint64_t c, uint64_t k, ld *b, ld *relb, ld *F, ld *absF)
{
    ld lerr, lh = logl(0.5L);
    *b = expl(log_binom(c, k, lh, lh, &lerr));
    *relb = expm1l(lerr) + 4.0L * ULD;
    ld sum = *b, term = *b, rest = 0.0L;
    for (uint64_t j = k; j > 0; j--) {
        ld r = (ld)j / (ld)(c - j + 1);          /* b(j - 1) / b(j), decreasing with j */
        term *= r;
        sum += term;
        if (r < 1.0L && term * r / (1.0L - r) < 1e-30L * sum) {
            rest = term * r / (1.0L - r);
            break;
        }
    }
    *F = sum;
    *absF = rest + sum * (*relb + 4.0L * ULD * (ld)(k + 2));
}

/* delta(eps) = sum_c Pr(C = c) H_c(eps), bracketed.  With
 *   A = (1 - e^{eps - eps0}) / (1 + e^-eps0),
 *   beta = (1 - e^{eps - eps0}) / ((1 - e^-eps0)(e^eps + 1)),
 * kappa(c) = ceil(beta (c + 1)) - 1 and F, b the CDF and pmf of Bin(c, 1/2),
 *   H_c = A b(kappa) - (e^eps - 1) F(kappa - 1)
 * (A F(kappa) - B F(kappa - 1) with A - B = 1 - e^eps).  kappa grows by 0
 * or 1 from c to c + 1 (beta < 1/2), and Bin(c + 1, 1/2) = Bin(c, 1/2) plus
 * a fair coin gives the walk
 *   F_{c+1}(k) = F_c(k) - b_c(k)/2,  b_{c+1}(k) = b_c(k) (c + 1) / (2 (c + 1 - k)),
 * so one start (a log-gamma pmf and a downward sum for F) and O(1) long
 * double work per c give every H_c, with tracked error bounds. */
static void delta_bracket(const shuffle_state *s, double eps, double *lower, double *upper)
{
    if (!(eps < s->eps0)) { *lower = *upper = 0.0; return; }   /* the mechanism is eps0-DP */
    ld e0 = (ld)s->eps0, e = (ld)eps;
    ld gap = -expm1l(e - e0);
    ld A = gap / (1.0L + expl(-e0));
    ld beta = gap / (-expm1l(-e0) * (expl(e) + 1.0L));
    ld em1 = expm1l(e);
    uint64_t c = s->lo;
    ld kc = ceill(beta * ((ld)c + 1.0L)) - 1.0L;
    uint64_t k = kc < 0.0L ? 0 : kc > (ld)c ? c : (uint64_t)kc;
    ld b, relb, F, absF;
    walk_start(c, k, &b, &relb, &F, &absF);
    ld start_rel = absF / F;
    dpa_sum up = { 0 }, dn = { 0 };
    double rw = s->weight_relerr;
    for (;;) {
        /* H_c and its error: F(k - 1) = F - b */
        ld f1 = F - b, f1err = absF + b * relb + ULD * F;
        ld t1 = A * b, t2 = f1 > 0.0L ? em1 * f1 : 0.0L;
        ld h = t1 - t2;
        ld herr = t1 * (relb + 8.0L * ULD) + (f1 > 0.0L ? em1 * f1err : 0.0L) + 8.0L * ULD * (t1 + t2);
        double w = s->weight[c - s->lo];
        double hu = (double)fminl(1.0L, h + herr) * (1.0 + 4.0 * DBL_EPSILON);
        double hl = (double)fmaxl(0.0L, h - herr) * (1.0 - 4.0 * DBL_EPSILON);
        dpa_sum_add(&up, w * (1.0 + rw) * hu);
        dpa_sum_add(&dn, w * (1.0 - rw) * hl);
        if (c == s->hi) {
            /* beyond the window H_c <= H_hi (H does not increase with c:
             * (P_c+1, Q_c+1) is (P_c, Q_c) plus a fair coin); below it <= 1 */
            dpa_sum_add(&up, s->tail_hi * hu + s->tail_lo);
            break;
        }
        /* step to c + 1 */
        ld nb = b * (ld)(c + 1) / (2.0L * (ld)(c + 1 - k));
        F -= 0.5L * b;
        absF += 0.5L * b * relb + 2.0L * ULD * (F + b);
        b = nb;
        relb += 4.0L * ULD;
        c++;
        kc = ceill(beta * ((ld)c + 1.0L)) - 1.0L;
        if (kc > (ld)k && k < c) {                /* kappa moved up by one */
            b = b * (ld)(c - k) / (ld)(k + 1);
            k++;
            F += b;
            relb += 4.0L * ULD;
            absF += b * relb + 2.0L * ULD * F;
        }
        /* F_c+1 = F_c - b/2 keeps the absolute error while F shrinks: when
         * its relative error has doubled (plus 1e-15), start afresh here */
        if (absF > (2.0L * start_rel + 1e-15L) * F) {
            walk_start(c, k, &b, &relb, &F, &absF);
            start_rel = absF / F;
        }
    }
    *upper = fmin(1.0, dpa_sum_value(&up) * (1.0 + 1e-13));
    *lower = fmax(0.0, dpa_sum_value(&dn) * (1.0 - 1e-13));
}

/* ---- the weights of C ------------------------------------------------------------ */

static int build_weights(shuffle_state *s, dpa_error *err)
{
    uint64_t N = s->n - 1;
    ld e0 = (ld)s->eps0, p = expl(-e0), q = -expm1l(-e0);
    double mean = (double)N * (double)p, sd = sqrt((double)N * (double)p * (double)q);
    double lo = floor(mean - WINDOW_SD * sd) - 1.0, hi = ceil(mean + WINDOW_SD * sd) + 1.0;
    s->lo = lo < 0.0 ? 0 : (uint64_t)lo;
    s->hi = hi > (double)N ? N : (uint64_t)hi;
    size_t m = (size_t)(s->hi - s->lo + 1);
    s->weight = malloc(m * sizeof *s->weight);
    if (!s->weight) return dpa_fail(err, DPA_ENOMEM, "shuffle: out of memory for %zu weights", m);
    /* the start from log-gammas, then w(c + 1) = w(c) (N - c)/(c + 1) p/q */
    ld lerr, w = expl(log_binom(N, s->lo, -e0, logl(q), &lerr)), ratio = p / q;
    for (size_t i = 0; i < m; i++) {
        s->weight[i] = (double)w;
        uint64_t c = s->lo + i;
        if (c < N) w *= (ld)(N - c) / (ld)(c + 1) * ratio;
    }
    s->weight_relerr = (double)(expm1l(lerr) + 4.0L * ULD * (ld)(m + 2)) + DBL_EPSILON;
    s->tail_lo = s->lo > 0 ? binom_tail_bound(N, (double)s->lo - 1.0, (double)p) : 0.0;
    s->tail_hi = s->hi < N ? binom_tail_bound(N, (double)s->hi + 1.0, (double)p) : 0.0;
    return DPA_OK;
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
                        "shuffle: more than 1e9 users (%llu) is not supported (the log-gamma start of the "
                        "binomial walks loses accuracy beyond); the closed form dpa_shuffle_closed_form applies",
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

static int shuffle_delta(void *state, const dpa_options *opt, double epsilon, dpa_bound *out, dpa_error *err)
{
    shuffle_state *s = state;
    double eps_error = opt->tolerance > 0.0 ? opt->tolerance : DEFAULT_EPS_ERROR;
    *out = (dpa_bound){ 0 };
    if (!s->have) { out->flags = DPA_EXACT; return DPA_OK; }
    double lo, up;
    delta_bracket(s, epsilon, &lo, &up);
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
 * bisection on [0, eps0] to a relative 1e-4 of eps_error; only verified
 * endpoints are returned. */
static double invert(const shuffle_state *s, double delta, int upper_side, double eps_error)
{
    double a = 0.0, b = s->eps0;     /* delta(eps0) = 0 <= delta: b always meets */
    double l, u;
    delta_bracket(s, 0.0, &l, &u);
    if ((upper_side ? u : l) <= delta) return 0.0;
    for (int it = 0; it < 200 && b - a > 1e-4 * eps_error * b; it++) {
        double mid = 0.5 * (a + b);
        delta_bracket(s, mid, &l, &u);
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
    double up = invert(s, delta, 1, eps_error), lo = invert(s, delta, 0, eps_error);
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
               "Talwar 2021, computed exactly (binomial walks in long double)",
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
