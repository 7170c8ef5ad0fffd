/*
 * test_pld_checkset.c - the pld accountant's check set (issue 20, item 6):
 * Poisson-subsampled Gaussians drawn at random over q in [1e-7, 1], sigma
 * in [0.3, 1000], T in [1, 1e9], delta in [1e-30, 0.1], both relations,
 * plus the edges, each checked against what does not come from pld:
 *  - an answer: DPA_OK and a bracket with lower <= upper, never NaN, never
 *    below 0 (flagged DPA_WIDTH_NOT_MET when wider than asked: counted);
 *  - the rdp accountant's upper bound (another method) is >= our lower;
 *  - q = 1: the exact Gaussian composition (mu-GDP, mu = sqrt(T)/sigma,
 *    by the gdp accountant's closed form) lies inside the bracket;
 *  - monotone in T and delta: eps(T) <= eps(2T) and eps(10 delta) <=
 *    eps(delta), so lower(T) <= upper(2T) and lower(10 delta) <= upper(delta);
 *  - nested across the tolerance: the brackets at 1e-2 and at the default
 *    overlap (both are valid).
 * `make check` runs a sample (DPACCT_CHECKSET unset: 60 configurations with
 * T <= 1e6, about 15 s); DPACCT_CHECKSET=full (`make bench`) runs
 * all 300 and the edges and prints how many missed the default width.
 * DPACCT_CHECKSET_WIDE=1 lists the configurations that missed it, and
 * DPACCT_CHECKSET_TIMES=1 prints every default query's time and width (to
 * compare two builds configuration by configuration).
 *
 * None of those references pins pld's upper delta from below at a point
 * where delta is large: rdp's upper only bounds our lower, and the exact
 * Gaussian covers q = 1 alone.  Hence a second case ("mc"): a Monte-Carlo
 * estimate of delta(eps) of the add/remove subsampled Gaussian, sampled
 * from the two densities without the accountant, with a confidence bound
 * that fails with probability <= 1e-9 per check (empirical Bernstein or
 * Hoeffding), where T N is affordable (T <= 1e3, delta(eps) in [1e-3,
 * 0.1]).  pld's upper must be above the MC lower bound, pld's lower below
 * the MC upper bound, and the MC lower bound at least half pld's lower (so
 * that it is a reference sharp enough to matter).  `make check`: 16
 * configurations, T N <= 2e7 each (about 6 s); the full set 40, T N <= 2e8.
 *
 * The draws (configurations and samples) come from GSL's mt19937 with
 * fixed seeds: the set is the same every run.  Each MC configuration
 * seeds its own sampler, so changing one's N leaves the others alone.
 */
#include "dpacct.h"
#include "testutil.h"

#include <check.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    double q, sigma;
    uint64_t steps;
    double delta;
    dpa_relation relation;
} config;

/* log-uniform on [lo, hi]; gsl_rng_uniform's 32 bits (mt19937) resolve
 * even the 29 decades of delta to a relative step of 1.6e-8. */
static double log_uniform(gsl_rng *r, double lo, double hi)
{
    return exp(log(lo) + gsl_rng_uniform(r) * (log(hi) - log(lo)));
}

static dpa_event *mechanism(const config *c, uint64_t steps)
{
    dpa_error err = { 0 };
    dpa_event *g = dpa_event_gaussian(c->sigma, &err);
    if (c->q < 1.0) g = dpa_event_poisson_sampled(c->q, g, &err);
    return steps > 1 ? dpa_event_self_composed(g, steps, &err) : g;
}

/* eps at delta by `method` with tolerance tol (0: the default); the status
 * in *status. */
static dpa_bound query(const char *method, const config *c, uint64_t steps, double delta, double tol, int *status)
{
    dpa_options opt;
    dpa_options_init(&opt);
    opt.relation = c->relation;
    opt.tolerance = tol;
    dpa_error err = { 0 };
    dpa_bound b = { 0 };
    dpa_accountant *a = dpa_accountant_new(method, &opt, &err);
    dpa_event *e = mechanism(c, steps);
    *status = a && e ? dpa_accountant_compose(a, e, &err) : DPA_ENOMEM;
    if (!*status || *status == DPA_EACCURACY) *status = dpa_accountant_epsilon(a, delta, &b, &err);
    dpa_event_free(e);
    dpa_accountant_free(a);
    return b;
}

/* A certified answer: DPA_OK always (a bracket wider than asked is flagged
 * DPA_WIDTH_NOT_MET, not an error). */
static int answered(int status)
{
    return status == DPA_OK;
}

typedef struct {
    size_t configs, wide, failures;
    /* the default query's time per configuration, for the bench's report
     * (printed, never asserted: a speed is measured, not tested) */
    double seconds[512];
    int long_run[512];   /* T > 1e6 */
} tally;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median, 90th percentile and maximum of the default queries' times, and
 * how many of those with T <= 1e6 took over 100 ms. */
static void report_times(const tally *t)
{
    size_t n = t->configs < 512 ? t->configs : 512, slow = 0, short_runs = 0;
    double sorted[512];
    for (size_t i = 0; i < n; i++) {
        sorted[i] = t->seconds[i];
        if (!t->long_run[i]) {
            short_runs++;
            if (t->seconds[i] > 0.1) slow++;
        }
    }
    if (n == 0) return;
    qsort(sorted, n, sizeof sorted[0], by_value);
    printf("checkset: default query (one core): median %.1f ms, 90%% %.1f ms, max %.0f ms; T <= 1e6: %zu of %zu "
           "over 100 ms\n",
           1e3 * sorted[n / 2], 1e3 * sorted[(9 * n) / 10], 1e3 * sorted[n - 1], slow, short_runs);
}

static void report(tally *t, const config *c, const char *what, double x, double y)
{
    t->failures++;
    fprintf(stderr, "checkset: q %.3g sigma %.4g T %llu delta %.3g %s: %s (%.10g, %.10g)\n", c->q, c->sigma,
            (unsigned long long)c->steps, c->delta, c->relation == DPA_REPLACE_ONE ? "replace-one" : "add-remove",
            what, x, y);
}

static void report_mc(config c, double eps, const char *what, double x, double y)
{
    fprintf(stderr,
            "checkset mc: q %.4g sigma %.4g T %llu eps %.6g (pld's lower eps at delta %.3g): %s (%.10g, %.10g)\n", c.q,
            c.sigma, (unsigned long long)c.steps, eps, c.delta, what, x, y);
}

static void check_config(const config *c, tally *t)
{
    int st, st2;
    double start = now();
    dpa_bound b = query("pld", c, c->steps, c->delta, 0.0, &st);
    if (t->configs < 512) {
        t->seconds[t->configs] = now() - start;
        t->long_run[t->configs] = c->steps > UINT64_C(1000000);
    }
    t->configs++;
    if (getenv("DPACCT_CHECKSET_TIMES"))   /* each default query's time, for comparing two builds */
        fprintf(stderr, "checkset time: q %.3g sigma %.4g T %llu delta %.3g %s: %.2f ms, width %.2g\n", c->q,
                c->sigma, (unsigned long long)c->steps, c->delta,
                c->relation == DPA_REPLACE_ONE ? "replace-one" : "add-remove", 1e3 * (now() - start),
                b.upper > 0.0 ? (b.upper - b.lower) / b.upper : 0.0);
    if (!answered(st) || isnan(b.lower) || isnan(b.upper) || !(b.lower >= 0.0) || !(b.lower <= b.upper)) {
        report(t, c, "no valid bracket", b.lower, b.upper);
        return;
    }
    if (b.flags & DPA_WIDTH_NOT_MET) {
        t->wide++;
        if (getenv("DPACCT_CHECKSET_WIDE"))   /* a list for diagnosis, on request */
            fprintf(stderr, "checkset wide: q %.3g sigma %.4g T %llu delta %.3g %s: [%.10g, %.10g] %.2g, %.0f ms\n",
                    c->q, c->sigma, (unsigned long long)c->steps, c->delta,
                    c->relation == DPA_REPLACE_ONE ? "replace-one" : "add-remove", b.lower, b.upper,
                    b.upper > 0.0 ? (b.upper - b.lower) / b.upper : 0.0, 1e3 * (now() - start));
    }
    dpa_bound r = query("rdp", c, c->steps, c->delta, 0.0, &st2);
    if (st2 == DPA_OK && !(b.lower <= r.upper)) report(t, c, "lower above rdp's upper", b.lower, r.upper);
    if (c->q == 1.0) {
        /* two valid brackets of the same eps overlap */
        double mu = sqrt((double)c->steps) / c->sigma;
        dpa_bound g;
        dpa_error err = { 0 };
        if (dpa_gdp_epsilon(mu, c->delta, &g, &err) == DPA_OK && !(b.lower <= g.upper && g.lower <= b.upper))
            report(t, c, "misses the exact Gaussian", g.lower, g.upper);
    }
    if (c->steps <= UINT64_C(500000000)) {
        dpa_bound b2 = query("pld", c, 2 * c->steps, c->delta, 0.0, &st2);
        if (answered(st2) && !(b.lower <= b2.upper)) report(t, c, "lower(T) above upper(2T)", b.lower, b2.upper);
    }
    if (c->delta <= 0.01) {
        dpa_bound b3 = query("pld", c, c->steps, 10.0 * c->delta, 0.0, &st2);
        if (answered(st2) && !(b3.lower <= b.upper)) report(t, c, "lower(10 delta) above upper(delta)", b3.lower, b.upper);
    }
    dpa_bound b4 = query("pld", c, c->steps, c->delta, 1e-2, &st2);
    if (answered(st2) && !(b4.lower <= b.upper && b.lower <= b4.upper))
        report(t, c, "brackets at 1e-2 and the default are disjoint", b4.lower, b4.upper);
}

/* The edges of the range, then n random configurations (T <= max_steps). */
static void run_set(size_t n, double max_steps, int edges, tally *t)
{
    if (edges) {
        const double qs[] = { 1e-7, 1.0 }, sigmas[] = { 0.3, 1000.0 }, deltas[] = { 1e-30, 0.1 };
        const uint64_t steps[] = { 1, UINT64_C(1000000000) };
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++)
                for (int c = 0; c < 2; c++)
                    for (int d = 0; d < 2; d++) {
                        config cf = { qs[a], sigmas[b], steps[c], deltas[d], DPA_ADD_REMOVE };
                        check_config(&cf, t);
                    }
    }
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    ck_assert_ptr_nonnull(r);
    gsl_rng_set(r, 20261125);
    for (size_t i = 0; i < n; i++) {
        config c;
        c.q = gsl_rng_uniform_int(r, 8) == 0 ? 1.0 : log_uniform(r, 1e-7, 1.0);
        c.sigma = log_uniform(r, 0.3, 1000.0);
        c.steps = (uint64_t)llround(log_uniform(r, 1.0, max_steps));
        c.delta = log_uniform(r, 1e-30, 0.1);
        c.relation = gsl_rng_uniform_int(r, 2) ? DPA_REPLACE_ONE : DPA_ADD_REMOVE;
        check_config(&c, t);
    }
    gsl_rng_free(r);
}

/* ---- a Monte-Carlo lower reference (issue 20, item 6) ---------------------
 *
 * The T-fold Poisson-subsampled Gaussian (noise multiplier s, rate q,
 * sensitivity 1), add/remove relation, has
 *   delta(eps) = max over the two directions of E_P[(1 - e^(eps - L))_+],
 * L the sum of the T per-step privacy losses log(dP/dQ) under P:
 *   remove: P = (1-q) N(0, s^2) + q N(1, s^2) per step, Q = N(0, s^2),
 *           L_step(x) = log(1 - q + q e^z),  z = (2x - 1) / (2 s^2);
 *   add:    P = N(0, s^2), Q = the mixture, L_step(x) = -log(1 - q + q e^z).
 * Each direction's delta is a lower bound on the max.  Nothing here calls
 * the accountant: the reference comes from the densities alone. */

/* log(1 - q + q e^z) without overflow: log1p(q expm1(z)) for z <= 0 (the
 * argument lies in (-q, 0]); z + log(q + (1-q) e^-z) for z > 0, a sum of
 * positive terms in (q, 1], so a large z (a draw far in the tail) neither
 * overflows nor cancels. */
static double log_mix(double q, double z)
{
    if (z <= 0.0) return log1p(q * expm1(z));
    return z + log(q + (1.0 - q) * exp(-z));
}

/* Running mean and (unbiased) variance, Welford's update: the N values
 * are in [0, 1] and N <= 1e6, so nothing is lost to cancellation. */
typedef struct {
    size_t n;
    double mean, m2;
} moments;

static void moments_add(moments *m, double y)
{
    m->n++;
    double d = y - m->mean;
    m->mean += d / (double)m->n;
    m->m2 += d * (y - m->mean);
}

/* The half-width of a one-sided confidence bound, holding with probability
 * >= 1 - a, on the mean of i.i.d. values in [0, 1]: the smaller of
 * Hoeffding's, sqrt(ln(1/a) / (2N)), and the empirical Bernstein bound of
 * Maurer and Pontil (2009, "Empirical Bernstein bounds and sample variance
 * penalization", Theorem 4), sqrt(2 V ln(2/a) / N) + 7 ln(2/a) / (3 (N-1)),
 * V the unbiased sample variance.  Taking the smaller is paid for by a
 * union bound: each is asked at a/2.  The theorem bounds E Z - mean; the
 * same applied to 1 - Z (same V) bounds mean - E Z.  Bernstein wins
 * whenever V is well below 1/4, i.e. always here (V <= delta <= 0.1):
 * Hoeffding's width is 0.011 at N = 1e5, the size of the deltas
 * themselves. */
static double confidence_width(const moments *m, double a)
{
    double n = (double)m->n;
    if (m->n < 2) return 1.0;
    double v = m->m2 / (n - 1.0);
    double hoeffding = sqrt(log(2.0 / a) / (2.0 * n));
    double bernstein = sqrt(2.0 * v * log(4.0 / a) / n) + 7.0 * log(4.0 / a) / (3.0 * (n - 1.0));
    return fmin(hoeffding, bernstein);
}

typedef struct {
    moments remove, add;
    double lower, upper; /* the confidence bounds on max(delta_remove, delta_add) */
} mc_estimate;

/* N samples of the T-step loss in both directions.  The lower bound is
 * the larger of the two directions' lower bounds, each at alpha/2 (a
 * union bound: the chance that it exceeds the true delta(eps) is at most
 * alpha); the upper bound the larger of their upper bounds, likewise at
 * alpha/2 each (the max is below it unless one of them fails).
 * The two directions share the Gaussian noise n ~ N(0, s^2): the add
 * direction's step is x = n, the remove direction's x = n + B, B ~
 * Bernoulli(q), the mixture.  Each direction's N samples are still i.i.d.
 * (the bounds need no more), and a step with B = 0 -- most of them when q
 * is small -- costs one log_mix for both.  The noise comes from GSL's
 * ziggurat sampler, about twice as fast as gsl_ran_gaussian's polar
 * method (measured: 37 against 67 ns a step), hence twice the samples in
 * the same time. */
static mc_estimate mc_lower_delta(double q, double sigma, uint64_t steps, double eps, size_t n, double alpha,
                                  gsl_rng *r)
{
    mc_estimate e = { { 0 }, { 0 }, 0.0, 1.0 };
    const double s = sigma;
    const double inv2s2 = 1.0 / (2.0 * s * s), shift = 1.0 / (s * s); /* z(x + 1) = z(x) + 1/s^2 */
    for (size_t i = 0; i < n; i++) {
        double loss_remove = 0.0, loss_add = 0.0;
        for (uint64_t t = 0; t < steps; t++) {
            double z = (2.0 * gsl_ran_gaussian_ziggurat(r, s) - 1.0) * inv2s2;
            double l0 = log_mix(q, z);
            loss_add -= l0;
            loss_remove += (q == 1.0 || gsl_rng_uniform(r) < q) ? log_mix(q, z + shift) : l0;
        }
        /* (1 - e^(eps - L))_+ in [0, 1]; -expm1 keeps it accurate when L is
         * just above eps */
        moments_add(&e.remove, loss_remove > eps ? -expm1(eps - loss_remove) : 0.0);
        moments_add(&e.add, loss_add > eps ? -expm1(eps - loss_add) : 0.0);
    }
    const moments *d[2] = { &e.remove, &e.add };
    e.lower = 0.0;
    e.upper = 0.0;
    for (int k = 0; k < 2; k++) {
        double w = confidence_width(d[k], alpha / 2.0);
        e.lower = fmax(e.lower, d[k]->mean - w);
        e.upper = fmax(e.upper, fmin(d[k]->mean + w, 1.0));
    }
    return e;
}

/* The pld accountant holding the T-fold mechanism (add/remove, default
 * tolerance), or NULL. */
static dpa_accountant *pld_of(double q, double sigma, uint64_t steps)
{
    config c = { q, sigma, steps, 0.0, DPA_ADD_REMOVE };
    dpa_options opt;
    dpa_options_init(&opt);
    opt.relation = DPA_ADD_REMOVE;
    dpa_error err = { 0 };
    dpa_accountant *a = dpa_accountant_new("pld", &opt, &err);
    dpa_event *e = mechanism(&c, steps);
    int st = a && e ? dpa_accountant_compose(a, e, &err) : DPA_ENOMEM;
    dpa_event_free(e);
    if (st != DPA_OK && st != DPA_EACCURACY) {
        dpa_accountant_free(a);
        return NULL;
    }
    return a;
}

typedef struct {
    size_t configs, redrawn, failures;
    double min_ratio, sum_ratio, max_over_upper;
} mc_tally;

/* n configurations where sampling is affordable: T log-uniform on
 * [1, 1e3], N = min(n_max, budget / T) samples (T N <= budget), q
 * log-uniform on [max(1e-2, 2/T), 1] (q T >= 2: with fewer expected
 * participations delta <= 1 - (1-q)^T is too small for a sampled
 * reference) or q = 1 (one in four), and sigma from the central limit's
 * mu = q sqrt(T (e^(1/s^2) - 1)) drawn log-uniform on [0.5, 4], so that
 * delta is neither 0 nor 1 at moderate eps.  The point: eps = pld's lower
 * eps at a delta drawn log-uniform on [max(1e-3, 2000/N), 0.1] (N delta >=
 * 2000 puts the bound within about 15% of the mean: the Bernstein width
 * is about sqrt(2 delta ln(8/alpha) / N)); then delta(eps) >= that delta.
 * pld only picks the point; the reference is the sample.  A draw whose
 * lower eps is 0 (delta(0) below the drawn delta, rare) is redrawn.
 * Checks, at alpha = 1e-9 each:
 *  - pld's upper delta(eps) >= the MC lower bound (the certified side);
 *  - pld's lower delta(eps) <= the MC upper bound (the other side of the
 *    bracket, by the same sample);
 *  - the MC lower bound >= 0.5 pld's lower delta(eps): the reference is
 *    sharp enough to catch an upper that is too low by a factor of two,
 *    and a sampler drawing from the wrong distribution fails one side or
 *    the other. */
static void run_mc(size_t n, double budget, size_t n_max, int verbose, mc_tally *t)
{
    const double alpha = 1e-9;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937), *sampler = gsl_rng_alloc(gsl_rng_mt19937);
    ck_assert(r && sampler);
    gsl_rng_set(r, 20261126);
    t->min_ratio = INFINITY;
    for (size_t i = 0; t->configs < n; i++) {
        /* a bounded number of redraws: the set must not spin when pld
         * (wrongly) answers eps = 0 everywhere */
        ck_assert_msg(t->redrawn <= n, "%zu of the MC draws redrawn: pld's lower eps is 0 at every one", t->redrawn);
        uint64_t steps = (uint64_t)llround(log_uniform(r, 1.0, 1e3));
        double q_min = fmin(1.0, fmax(1e-2, 2.0 / (double)steps));
        double q = gsl_rng_uniform_int(r, 4) == 0 ? 1.0 : log_uniform(r, q_min, 1.0);
        double mu = log_uniform(r, 0.5, 4.0);
        double sigma = 1.0 / sqrt(log1p(mu * mu / (q * q * (double)steps)));
        size_t samples = (size_t)fmin((double)n_max, floor(budget / (double)steps));
        double target = log_uniform(r, fmax(1e-3, 2000.0 / (double)samples), 0.1);
        config c = { q, sigma, steps, target, DPA_ADD_REMOVE };

        dpa_accountant *a = pld_of(q, sigma, steps);
        dpa_bound be = { 0 }, bd = { 0 };
        dpa_error err = { 0 };
        int st = a ? dpa_accountant_epsilon(a, target, &be, &err) : DPA_ENOMEM;
        if (st == DPA_OK && !(be.lower > 0.0)) {
            t->redrawn++;
            dpa_accountant_free(a);
            continue;
        }
        double eps = be.lower;
        if (st == DPA_OK) st = dpa_accountant_delta(a, eps, &bd, &err);
        dpa_accountant_free(a);
        t->configs++;
        if (st != DPA_OK || !(bd.lower >= 0.0 && bd.lower <= bd.upper)) {
            t->failures++;
            report_mc(c, eps, "no valid pld answer", bd.lower, bd.upper);
            continue;
        }
        /* its own stream per configuration: each check reproducible alone,
         * whatever N the others use */
        gsl_rng_set(sampler, 1000 + i);
        mc_estimate m = mc_lower_delta(q, sigma, steps, eps, samples, alpha, sampler);
        double ratio = m.lower / bd.lower;
        if (verbose)
            printf("checkset mc: q %.4g sigma %.4g T %llu N %zu eps %.6g: pld [%.6g, %.6g], MC means remove %.6g add "
                   "%.6g, MC [%.6g, %.6g] (lower %.3f of pld lower)\n",
                   q, sigma, (unsigned long long)steps, samples, eps, bd.lower, bd.upper, m.remove.mean, m.add.mean,
                   m.lower, m.upper, ratio);
        if (!(m.lower <= bd.upper)) {
            t->failures++;
            report_mc(c, eps, "MC lower bound above pld's upper delta", m.lower, bd.upper);
        }
        if (!(bd.lower <= m.upper)) {
            t->failures++;
            report_mc(c, eps, "pld's lower delta above the MC upper bound", bd.lower, m.upper);
        }
        if (!(ratio >= 0.5)) {
            t->failures++;
            report_mc(c, eps, "MC lower bound below half pld's lower delta", m.lower, bd.lower);
        }
        t->min_ratio = fmin(t->min_ratio, ratio);
        t->sum_ratio += ratio;
        t->max_over_upper = fmax(t->max_over_upper, m.lower / bd.upper);
    }
    gsl_rng_free(sampler);
    gsl_rng_free(r);
}

START_TEST(mc_reference)
{
    const char *mode = getenv("DPACCT_CHECKSET");
    int full = mode && strcmp(mode, "full") == 0;
    mc_tally t = { 0 };
    /* make check: T N <= 2e7 a configuration; the full set ten times that */
    if (full) run_mc(40, 2e8, 1000000, 1, &t);
    else run_mc(16, 2e7, 100000, 1, &t);
    printf("checkset mc: %zu configurations (%zu redrawn), MC lower / pld lower: min %.3f mean %.3f; "
           "max MC lower / pld upper %.4f; %zu check failures\n",
           t.configs, t.redrawn, t.min_ratio, t.sum_ratio / (double)t.configs, t.max_over_upper, t.failures);
    ck_assert_msg(t.failures == 0, "%zu Monte-Carlo checks failed (see stderr)", t.failures);
}
END_TEST

START_TEST(checkset)
{
    const char *mode = getenv("DPACCT_CHECKSET");
    int full = mode && strcmp(mode, "full") == 0;
    tally t = { 0 };
    if (full) run_set(300, 1e9, 1, &t);
    else run_set(60, 1e6, 0, &t);
    printf("checkset: %zu configurations, %zu missed the default width, %zu check failures\n", t.configs, t.wide,
           t.failures);
    if (full) report_times(&t);
    ck_assert_msg(t.failures == 0, "%zu checks failed (see stderr)", t.failures);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pld_checkset");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 3600);
    tcase_add_test(tc, checkset);
    suite_add_tcase(s, tc);
    /* its own case, so that CK_RUN_CASE=mc runs it alone */
    TCase *mc = tcase_create("mc");
    tcase_set_timeout(mc, 3600);
    tcase_add_test(mc, mc_reference);
    suite_add_tcase(s, mc);
    return run_suite(s);
}
