/*
 * montecarlo.c - a Monte-Carlo ESTIMATE (not a guarantee) of balls-in-bins
 * sampling: random allocation of each record to one uniformly random step of
 * an epoch, Gaussian noise, add/remove neighbours.
 *
 * Chua, Ghazi, Harrison, Kamath, Kumar, Leeman, Manurangsi, Sinha & Zhang,
 * "Balls-and-bins sampling for DP-SGD" (ICML 2025) estimate its privacy by
 * Monte Carlo; rdp's certified bound (rdp/rdp_allocation.c) is weak in the
 * add direction over many epochs, and this gives the number it is compared
 * with.  Every answer is flagged DPA_APPROXIMATE: it is a sample mean with a
 * normal-approximation confidence interval, and the interval may miss.
 *
 * The pair, per epoch, in units of the sensitivity (s the noise multiplier):
 *   P = (1/T) sum_i N(e_i, s^2 I_T)   (the record in a uniformly random step),
 *   Q = N(0, s^2 I_T),
 *   L(x) = log(P/Q)(x) = logsumexp_i(x_i / s^2) - log T - 1/(2 s^2),
 * and epochs compose by adding their losses.
 *   remove: delta(eps) = E_{x~P}[(1 - e^{eps - L})_+]; by symmetry the record
 *           is in coordinate 1: x = (1 + s Z_1, s Z_2, .., s Z_T).
 *   add:    delta(eps) = E_{x~Q}[(1 - e^{eps + L})_+]   (the loss is -L).
 * delta is rare (1e-5), so each direction is importance-sampled from a
 * shifted proposal and weighted by the likelihood ratio:
 *   remove: x_1 ~ N(1 + a, s^2) each epoch,
 *           weight prod_e exp(-a (x_{e,1} - 1)/s^2 + a^2/(2 s^2));
 *   add:    every x_i ~ N(-b, s^2),
 *           weight prod_e exp(b sum_i x_{e,i}/s^2 + T b^2/(2 s^2)).
 * Any a, b >= 0 gives an unbiased estimate; they are chosen so that the
 * proposal's mean loss is near the eps queried, which keeps the variance
 * small.  The add direction's shift moves every logsumexp by -b/s^2, so its
 * samples are drawn once (at b = 0) and re-weighted for any b.
 *
 * Deterministic: fixed seeds (gsl_rng mt19937; this is not privacy
 * randomness) and a fixed number of samples, so a query always gives the
 * same numbers; the cost is bounded in normal draws, never in time.
 */
#include "internal.h"
#include "numerics.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#define MC_SAMPLES 4000          /* per direction and tilt */
#define MC_PILOT 128             /* samples of the remove tilt's pilot */
#define MC_Z 2.5758293035489004  /* the two-sided 99% normal quantile */
#define MC_MAX_WORK 2e9          /* epochs * steps * samples: normal draws per set */
#define MC_MAX_STEPS 1e6
#define MC_TILT_STEPS 8          /* bisection steps of the remove tilt */
#define MC_RETILTS 2             /* epsilon: re-tilts at the solution */
#define SEED_REMOVE 20250713ul
#define SEED_PILOT 20250714ul
#define SEED_ADD 20250801ul
#define SEED_ADD_PILOT 20250716ul

typedef struct {
    int have;
    uint64_t T;          /* steps an epoch */
    double inv_var;      /* 1/s^2 of the inner event */
    double epochs;       /* a product of counts */
    /* the add direction's samples at b = 0, drawn at the first query */
    double *add_loss;    /* sum over epochs of -L */
    double *add_zsum;    /* sum over epochs and coordinates of Z */
    double add_pilot;    /* the mean of -L over a separate pilot */
} mc_state;

/* A set of weighted samples of one direction's total loss. */
typedef struct {
    size_t n;
    double *loss, *logw;
} mc_set;

/* ---- support ---------------------------------------------------------------- */

/* The random allocation under e and its number of epochs. */
static int epoch_of(const dpa_event *e, const dpa_options *opt, const dpa_event **alloc, double *times,
                    dpa_error *err)
{
    e = dpa_event_strip_counts(e, times);
    if (dpa_event_get_kind(e) != DPA_EVENT_RANDOM_ALLOCATION)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "mc: only random_allocation(selected=1) events (and self_composed counts of them) are "
                        "estimated, not %s", dpa_event_kind_name(dpa_event_get_kind(e)));
    uint64_t T = dpa_event_count(e, 0);
    if (dpa_event_count(e, 1) != 1)
        return dpa_fail(err, DPA_EUNSUPPORTED, "mc: random allocation with selected = %llu: only selected = 1 "
                        "(balls-in-bins) is estimated", (unsigned long long)dpa_event_count(e, 1));
    if (opt->relation != DPA_ADD_REMOVE)
        return dpa_fail(err, DPA_EUNSUPPORTED, "mc: balls-in-bins is estimated for add/remove neighbours only");
    double inv_var;
    const dpa_event *bad;
    if (dpa_event_inverse_variance(dpa_event_child(e, 0), &inv_var, &bad))
        return dpa_fail(err, DPA_EUNSUPPORTED, "mc: the allocated step must be Gaussian noise (one inverse "
                        "variance), not %s", dpa_event_kind_name(dpa_event_get_kind(bad)));
    if (!(inv_var > 0.0) || !isfinite(inv_var))
        return dpa_fail(err, DPA_EUNSUPPORTED, "mc: the noise's inverse variance %g is out of range", inv_var);
    if ((double)T > MC_MAX_STEPS)
        return dpa_fail(err, DPA_EUNSUPPORTED, "mc: %llu steps an epoch is more than the %g estimated",
                        (unsigned long long)T, MC_MAX_STEPS);
    *alloc = e;
    return DPA_OK;
}

/* The work of one sample set, epochs * steps * samples normal draws,
 * refused above MC_MAX_WORK rather than run for hours. */
static int check_work(double epochs, uint64_t T, dpa_error *err)
{
    double work = epochs * (double)T * MC_SAMPLES;
    if (!(work <= MC_MAX_WORK))
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "mc: %g epochs of %llu steps need %.3g normal draws a sample set, more than the limit %g",
                        epochs, (unsigned long long)T, work, MC_MAX_WORK);
    return DPA_OK;
}

static int mc_supports(const void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    const mc_state *s = state;
    const dpa_event *alloc;
    double times;
    int st = epoch_of(e, opt, &alloc, &times, err);
    if (st) return st;
    return check_work(times + (s->have ? s->epochs : 0.0), dpa_event_count(alloc, 0), err);
}

static void drop_add(mc_state *s)
{
    free(s->add_loss);
    free(s->add_zsum);
    s->add_loss = s->add_zsum = NULL;
}

static int mc_compose(void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    mc_state *s = state;
    const dpa_event *alloc;
    double times, inv_var;
    const dpa_event *bad;
    int st = epoch_of(e, opt, &alloc, &times, err);
    if (st) return st;
    dpa_event_inverse_variance(dpa_event_child(alloc, 0), &inv_var, &bad);   /* checked by epoch_of */
    uint64_t T = dpa_event_count(alloc, 0);
    if (s->have && (T != s->T || inv_var != s->inv_var))
        return dpa_fail(err, DPA_EUNSUPPORTED, "mc: epochs of different kinds (steps or noise) are not composed "
                        "here; each accountant holds one kind");
    if ((st = check_work(times + (s->have ? s->epochs : 0.0), T, err))) return st;
    s->epochs = (s->have ? s->epochs : 0.0) + times;
    s->have = 1;
    s->T = T;
    s->inv_var = inv_var;
    drop_add(s);
    return DPA_OK;
}

/* ---- sampling ----------------------------------------------------------------- */

/* One epoch's logsumexp_i(y_i) with y_i = Z_i / s (+ shift for i = 1, the
 * record's coordinate), Z_i standard normal drawn here; *z1 is Z_1 and
 * *zsum the sum of the Z_i.  Online: one pass, no buffer of T values. */
static double epoch_lse(gsl_rng *r, uint64_t T, double root_inv, double shift, double *z1, double *zsum)
{
    double m = -INFINITY, acc = 0.0, sum = 0.0;
    for (uint64_t i = 0; i < T; i++) {
        double z = gsl_ran_gaussian_ziggurat(r, 1.0);
        if (i == 0) *z1 = z;
        sum += z;
        double y = z * root_inv + (i == 0 ? shift : 0.0);
        if (y > m) {
            acc = acc * exp(m - y) + 1.0;
            m = y;
        } else {
            acc += exp(y - m);
        }
    }
    *zsum = sum;
    return m + log(acc);
}

/* log T + 1/(2 s^2): what the loss subtracts from each epoch's logsumexp */
static double loss_offset(const mc_state *s)
{
    return log((double)s->T) + 0.5 * s->inv_var;
}

/* One remove-direction sample from the proposal with shift a: its total
 * loss and log weight over the epochs. */
static void remove_sample(const mc_state *s, gsl_rng *r, double a, double *loss, double *logw)
{
    double root = sqrt(s->inv_var), c = loss_offset(s), l = 0.0, w = 0.0, z1, zsum;
    uint64_t E = (uint64_t)s->epochs;
    for (uint64_t e = 0; e < E; e++) {
        l += epoch_lse(r, s->T, root, (1.0 + a) * s->inv_var, &z1, &zsum) - c;
        double x1 = 1.0 + a + z1 / root;   /* the record's coordinate */
        w += -a * (x1 - 1.0) * s->inv_var + 0.5 * a * a * s->inv_var;
    }
    *loss = l;
    *logw = w;
}

/* The proposal's mean total loss over a pilot with a fixed seed: the same
 * normals at every a, so it increases with a (L increases with x_1). */
static double remove_pilot_mean(const mc_state *s, gsl_rng *r, double a)
{
    gsl_rng_set(r, SEED_PILOT);
    double sum = 0.0, l, w;
    for (int i = 0; i < MC_PILOT; i++) {
        remove_sample(s, r, a, &l, &w);
        sum += l;
    }
    return sum / MC_PILOT;
}

/* The remove shift a >= 0 whose proposal has mean loss near eps, by a
 * short bisection.  Each epoch's loss is at least (1 + a + s Z_1)/s^2 -
 * log T - 1/(2 s^2), whose mean reaches eps/E at a = s^2 (eps/E + log T) -
 * 1/2: the bracket starts there. */
static double remove_tilt(const mc_state *s, gsl_rng *r, double eps)
{
    if (remove_pilot_mean(s, r, 0.0) >= eps) return 0.0;
    double lo = 0.0, hi = fmax(1.0, (eps / s->epochs + log((double)s->T)) / s->inv_var);
    for (int k = 0; k < 20 && remove_pilot_mean(s, r, hi) < eps; k++) lo = hi, hi *= 2.0;
    for (int k = 0; k < MC_TILT_STEPS; k++) {
        double mid = 0.5 * (lo + hi);
        if (remove_pilot_mean(s, r, mid) < eps) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

static int set_alloc(mc_set *set, size_t n)
{
    set->n = n;
    set->loss = malloc(n * sizeof *set->loss);
    set->logw = malloc(n * sizeof *set->logw);
    return set->loss && set->logw ? DPA_OK : DPA_ENOMEM;
}

static void set_free(mc_set *set)
{
    free(set->loss);
    free(set->logw);
    set->loss = set->logw = NULL;
}

/* The remove direction's sample set for eps: tilted there, then drawn. */
static void remove_set(const mc_state *s, gsl_rng *r, double eps, mc_set *set)
{
    double a = remove_tilt(s, r, eps);
    gsl_rng_set(r, SEED_REMOVE);
    for (size_t i = 0; i < set->n; i++) remove_sample(s, r, a, &set->loss[i], &set->logw[i]);
}

/* One add-direction sample at b = 0: -L summed over the epochs, and the
 * sum of all its normals (which the weight of any b needs). */
static void add_sample(const mc_state *s, gsl_rng *r, double *loss, double *zsum)
{
    double root = sqrt(s->inv_var), c = loss_offset(s), l = 0.0, zs = 0.0, z1, zsum_e;
    uint64_t E = (uint64_t)s->epochs;
    for (uint64_t e = 0; e < E; e++) {
        l += c - epoch_lse(r, s->T, root, 0.0, &z1, &zsum_e);
        zs += zsum_e;
    }
    *loss = l;
    *zsum = zs;
}

/* The add direction's samples, drawn once after a composition. */
static int draw_add(mc_state *s, gsl_rng *r)
{
    if (s->add_loss) return DPA_OK;
    s->add_loss = malloc(MC_SAMPLES * sizeof *s->add_loss);
    s->add_zsum = malloc(MC_SAMPLES * sizeof *s->add_zsum);
    if (!s->add_loss || !s->add_zsum) {
        drop_add(s);
        return DPA_ENOMEM;
    }
    double l, z, sum = 0.0;
    gsl_rng_set(r, SEED_ADD_PILOT);
    for (int i = 0; i < MC_PILOT; i++) {
        add_sample(s, r, &l, &z);
        sum += l;
    }
    s->add_pilot = sum / MC_PILOT;
    gsl_rng_set(r, SEED_ADD);
    for (size_t i = 0; i < MC_SAMPLES; i++) add_sample(s, r, &s->add_loss[i], &s->add_zsum[i]);
    return DPA_OK;
}

/* The add direction's set for eps: the shift b raises each epoch's loss by
 * b/s^2 exactly, so b = (eps - pilot mean) s^2 / E centres it at eps.  With
 * x = -b + s Z, the weight exp(b sum x/s^2 + E T b^2/(2 s^2)) is
 * exp(b sum Z/s - E T b^2/(2 s^2)). */
static void add_set(const mc_state *s, double eps, mc_set *set)
{
    double b = fmax(0.0, (eps - s->add_pilot) / (s->inv_var * s->epochs)), root = sqrt(s->inv_var);
    double shift = s->epochs * b * s->inv_var;
    double norm = 0.5 * s->epochs * (double)s->T * b * b * s->inv_var;
    for (size_t i = 0; i < set->n; i++) {
        set->loss[i] = s->add_loss[i] + shift;
        set->logw[i] = b * s->add_zsum[i] * root - norm;
    }
}

/* ---- estimates ----------------------------------------------------------------- */

/* A direction's delta at eps: the weighted mean of (1 - e^{eps - L})_+ and
 * its standard error (Welford's running variance). */
static void set_delta(const mc_set *set, double eps, double *mean, double *se)
{
    double m = 0.0, m2 = 0.0;
    for (size_t i = 0; i < set->n; i++) {
        double h = set->loss[i] > eps ? -expm1(eps - set->loss[i]) : 0.0;
        double v = h > 0.0 ? exp(set->logw[i]) * h : 0.0;
        double d = v - m;
        m += d / (double)(i + 1);
        m2 += d * (v - m);
    }
    *mean = m;
    *se = sqrt(m2 / (double)(set->n - 1) / (double)set->n);
}

/* The two directions' delta at eps, as a bound: each direction's interval
 * mean +- z SE clamped to [0, 1], the larger of the two at each end.
 * which: 0 the estimate, +1 the upper end, -1 the lower end. */
static double pair_delta(const mc_set sets[2], double eps, int which)
{
    double best = 0.0;
    for (int d = 0; d < 2; d++) {
        double mean, se;
        set_delta(&sets[d], eps, &mean, &se);
        best = fmax(best, fmin(1.0, fmax(0.0, mean + which * MC_Z * se)));
    }
    return best;
}

/* Both directions' sets tilted for eps. */
static int draw_sets(mc_state *s, gsl_rng *r, double eps, mc_set sets[2])
{
    if (draw_add(s, r)) return DPA_ENOMEM;
    remove_set(s, r, eps, &sets[0]);
    add_set(s, eps, &sets[1]);
    return DPA_OK;
}

static int bad_numbers(dpa_error *err)
{
    return dpa_fail(err, DPA_EACCURACY, "mc: the importance weights overflowed: no estimate");
}

/* The query's setup: its sets and generator. */
static int begin(mc_state *s, gsl_rng **r, mc_set sets[2], dpa_error *err)
{
    if (!s->have) return dpa_fail(err, DPA_EINVAL, "mc: nothing composed yet");
    *r = gsl_rng_alloc(gsl_rng_mt19937);
    int st = *r ? set_alloc(&sets[0], MC_SAMPLES) : DPA_ENOMEM;
    if (!st) st = set_alloc(&sets[1], MC_SAMPLES);
    if (st) return dpa_fail(err, DPA_ENOMEM, "mc: out of memory");
    return DPA_OK;
}

static void end(gsl_rng *r, mc_set sets[2])
{
    if (r) gsl_rng_free(r);
    set_free(&sets[0]);
    set_free(&sets[1]);
}

static int mc_delta(void *state, const dpa_options *opt, double epsilon, dpa_bound *out, dpa_error *err)
{
    (void)opt;
    mc_state *s = state;
    gsl_rng *r = NULL;
    mc_set sets[2] = { { 0 }, { 0 } };
    int st = begin(s, &r, sets, err);
    if (!st && draw_sets(s, r, epsilon, sets)) st = dpa_fail(err, DPA_ENOMEM, "mc: out of memory");
    if (!st) {
        *out = (dpa_bound){ .lower = pair_delta(sets, epsilon, -1), .estimate = pair_delta(sets, epsilon, 0),
                            .upper = pair_delta(sets, epsilon, 1), .flags = DPA_APPROXIMATE };
        if (!isfinite(out->upper) || !isfinite(out->lower) || !isfinite(out->estimate)) {
            *out = (dpa_bound){ 0.0, 1.0, 1.0, 0.0, DPA_APPROXIMATE | DPA_NO_LOWER };
            st = bad_numbers(err);
        }
    }
    end(r, sets);
    return st;
}

/* The eps at which the curve `which` of pair_delta crosses delta: the
 * largest eps of a grid over [0, the largest loss] (above it every term is
 * 0) at which the curve exceeds delta, refined by bisection to the next
 * grid point.  The interval's ends need not be monotone in eps (far from
 * the tilt the standard error is large and the lower end drops to 0), so
 * the crossing taken is the one nearest the tail, where the set is tilted. */
#define MC_GRID 256
static double crossing(const mc_set sets[2], double delta, int which)
{
    double top = 0.0;
    for (int d = 0; d < 2; d++)
        for (size_t i = 0; i < sets[d].n; i++) top = fmax(top, sets[d].loss[i]);
    int k = MC_GRID;
    while (k > 0 && !(pair_delta(sets, top * k / MC_GRID, which) > delta)) k--;
    if (k == 0 && !(pair_delta(sets, 0.0, which) > delta)) return 0.0;
    double lo = top * k / MC_GRID, hi = top * (k + 1) / MC_GRID;
    for (int j = 0; j < 60 && hi - lo > 1e-10 * hi; j++) {
        double mid = 0.5 * (lo + hi);
        if (pair_delta(sets, mid, which) > delta) lo = mid;
        else hi = mid;
    }
    return hi;
}

/* A first guess at eps for the first tilt: the GDP eps of the smaller of
 * the Gaussian's mu = sqrt(E)/s and the CLT's mu for Poisson sampling at
 * 1/T (Bu et al.), sqrt(E (e^{1/s^2} - 1)/T).  Only the variance depends
 * on it. */
static double first_guess(const mc_state *s, double delta)
{
    double mu = fmin(sqrt(s->epochs * s->inv_var), sqrt(s->epochs * expm1(s->inv_var) / (double)s->T));
    dpa_bound b;
    dpa_error local = { 0 };
    if (dpa_gdp_epsilon(mu, delta, &b, &local) || !isfinite(b.upper)) return 1.0;
    return b.upper;
}

static int mc_epsilon(void *state, const dpa_options *opt, double delta, dpa_bound *out, dpa_error *err)
{
    (void)opt;
    mc_state *s = state;
    gsl_rng *r = NULL;
    mc_set sets[2] = { { 0 }, { 0 } };
    int st = begin(s, &r, sets, err);
    double guess = st ? 0.0 : first_guess(s, delta), eps = guess;
    /* tilt at the guess, solve, re-tilt at the solution while it moves */
    for (int k = 0; !st && k <= MC_RETILTS; k++) {
        if (draw_sets(s, r, guess, sets)) st = dpa_fail(err, DPA_ENOMEM, "mc: out of memory");
        if (st) break;
        eps = crossing(sets, delta, 0);
        if (k > 0 && fabs(eps - guess) <= 0.02 * fmax(guess, 0.1)) break;
        if (k < MC_RETILTS) guess = eps;
    }
    if (!st) {
        double lower = crossing(sets, delta, -1), upper = crossing(sets, delta, 1);
        /* the interval's ends need not be monotone in eps: keep the order */
        *out = (dpa_bound){ .lower = fmin(lower, eps), .estimate = eps, .upper = fmax(upper, eps),
                            .flags = DPA_APPROXIMATE };
        if (!isfinite(out->upper) || !isfinite(out->estimate)) {
            *out = (dpa_bound){ 0.0, INFINITY, INFINITY, 0.0, DPA_APPROXIMATE | DPA_NO_LOWER | DPA_UNBOUNDED };
            st = bad_numbers(err);
        }
    }
    end(r, sets);
    return st;
}

static void mc_destroy(void *state)
{
    drop_add(state);
}

static double mc_state_value(const void *state, const char **what)
{
    const mc_state *s = state;
    *what = "epochs";
    return s->epochs;
}

const dpa_accountant_ops dpa_mc_accountant = {
    .name = "mc",
    .summary = "balls-in-bins (random allocation, one step per record): a Monte-Carlo estimate, not a guarantee "
               "(importance sampling, 99% normal-approximation interval; Chua et al., ICML 2025)",
    .state_size = sizeof(mc_state),
    .destroy = mc_destroy,
    .supports = mc_supports,
    .compose = mc_compose,
    .epsilon = mc_epsilon,
    .delta = mc_delta,
    .state_value = mc_state_value,
};
