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
 * The draws are a fixed splitmix64 stream: the set is the same every run.
 */
#include "dpacct.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double q, sigma;
    uint64_t steps;
    double delta;
    dpa_relation relation;
} config;

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* log-uniform on [lo, hi] */
static double log_uniform(uint64_t *s, double lo, double hi)
{
    double u = (double)(splitmix64(s) >> 11) * 0x1.0p-53;
    return exp(log(lo) + u * (log(hi) - log(lo)));
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
} tally;

static void report(tally *t, const config *c, const char *what, double x, double y)
{
    t->failures++;
    fprintf(stderr, "checkset: q %.3g sigma %.4g T %llu delta %.3g %s: %s (%.10g, %.10g)\n", c->q, c->sigma,
            (unsigned long long)c->steps, c->delta, c->relation == DPA_REPLACE_ONE ? "replace-one" : "add-remove",
            what, x, y);
}

static void check_config(const config *c, tally *t)
{
    int st, st2;
    t->configs++;
    dpa_bound b = query("pld", c, c->steps, c->delta, 0.0, &st);
    if (!answered(st) || isnan(b.lower) || isnan(b.upper) || !(b.lower >= 0.0) || !(b.lower <= b.upper)) {
        report(t, c, "no valid bracket", b.lower, b.upper);
        return;
    }
    if (b.flags & DPA_WIDTH_NOT_MET) t->wide++;
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
    uint64_t s = UINT64_C(20261125);
    for (size_t i = 0; i < n; i++) {
        config c;
        c.q = splitmix64(&s) % 8 == 0 ? 1.0 : log_uniform(&s, 1e-7, 1.0);
        c.sigma = log_uniform(&s, 0.3, 1000.0);
        c.steps = (uint64_t)llround(log_uniform(&s, 1.0, max_steps));
        c.delta = log_uniform(&s, 1e-30, 0.1);
        c.relation = splitmix64(&s) % 2 ? DPA_REPLACE_ONE : DPA_ADD_REMOVE;
        check_config(&c, t);
    }
}

START_TEST(checkset)
{
    const char *mode = getenv("DPACCT_CHECKSET");
    int full = mode && strcmp(mode, "full") == 0;
    tally t = { 0 };
    if (full) run_set(300, 1e9, 1, &t);
    else run_set(60, 1e6, 0, &t);
    printf("checkset: %zu configurations, %zu missed the default width, %zu check failures\n", t.configs, t.wide,
           t.failures);
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
    return run_suite(s);
}
