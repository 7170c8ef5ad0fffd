/*
 * test_montecarlo.c - the mc accountant (accountants/montecarlo.c): a
 * Monte-Carlo estimate of balls-in-bins, checked against independent values:
 *  - T = 1 is the Gaussian mechanism with mu = sqrt(E)/s, whose delta is
 *    closed (Balle & Wang 2018), computed here with GSL;
 *  - T = 2, one epoch, sigma = 1: tests/ref/allocation_mc.py (a 1-D
 *    quadrature of the exact pair, cross-checked by a 2-D one);
 *  - rdp's certified bound on the same event lies above the estimate.
 * Each check asks the 99% interval to contain the reference (the seed is
 * fixed, so each is a fixed yes or no, not a flaky one).
 */
#include "dpacct.h"
#include "testutil.h"

#include <check.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static dpa_event *balls(uint64_t T, uint64_t E, double sigma)
{
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_random_allocation(T, 1, dpa_event_gaussian(sigma, &err), &err);
    if (E > 1) e = dpa_event_self_composed(e, E, &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    return e;
}

static dpa_bound mc_delta_at(uint64_t T, uint64_t E, double sigma, double eps)
{
    dpa_accountant *a = accountant_with("mc", balls(T, E, sigma));
    dpa_error err = { 0 };
    dpa_bound b;
    ck_assert_msg(dpa_accountant_delta(a, eps, &b, &err) == DPA_OK, "%s", err.message);
    ck_assert(b.flags & DPA_APPROXIMATE);
    dpa_accountant_free(a);
    return b;
}

/* The Gaussian mechanism's delta (Balle & Wang 2018, Thm 8). */
static double gaussian_delta(double mu, double eps)
{
    return gsl_cdf_ugaussian_P(-eps / mu + mu / 2) - exp(eps) * gsl_cdf_ugaussian_P(-eps / mu - mu / 2);
}

static void check_contains(const dpa_bound *b, double ref, const char *what)
{
    ck_assert_msg(b->lower <= ref && ref <= b->upper, "%s: reference %.9g outside [%.9g, %.9g] (estimate %.9g)",
                  what, ref, b->lower, b->upper, b->estimate);
    ck_assert(b->lower <= b->estimate && b->estimate <= b->upper);
}

START_TEST(one_step_is_the_gaussian)
{
    static const double eps[] = { 0.5, 1.0, 3.0 };
    static const uint64_t epochs[] = { 1, 10 };
    const double sigma = 1.0;
    for (size_t j = 0; j < 2; j++)
        for (size_t i = 0; i < 3; i++) {
            double mu = sqrt((double)epochs[j]) / sigma, ref = gaussian_delta(mu, eps[i]);
            dpa_bound b = mc_delta_at(1, epochs[j], sigma, eps[i]);
            char what[64];
            snprintf(what, sizeof what, "T 1 E %llu eps %g", (unsigned long long)epochs[j], eps[i]);
            check_contains(&b, ref, what);
            /* and the interval is informative: within 15% of the value */
            ck_assert_msg(b.upper - b.lower < 0.15 * ref, "%s: [%g, %g]", what, b.lower, b.upper);
        }
}
END_TEST

/* epsilon at a small delta (the rare regime importance sampling is for):
 * the interval of eps holds the Gaussian's eps */
START_TEST(one_step_epsilon)
{
    const double sigma = 1.0, delta = 1e-5;
    for (uint64_t E = 1; E <= 10; E += 9) {
        dpa_accountant *a = accountant_with("mc", balls(1, E, sigma));
        dpa_error err = { 0 };
        dpa_bound b, g;
        ck_assert_int_eq(dpa_accountant_epsilon(a, delta, &b, &err), DPA_OK);
        ck_assert(b.flags & DPA_APPROXIMATE);
        ck_assert_int_eq(dpa_gdp_epsilon(sqrt((double)E) / sigma, delta, &g, &err), DPA_OK);
        char what[64];
        snprintf(what, sizeof what, "eps(1e-5), T 1 E %llu", (unsigned long long)E);
        check_contains(&b, g.upper, what);
        dpa_accountant_free(a);
    }
}
END_TEST

/* T = 2, one epoch, sigma = 1: the larger of the two directions' deltas
 * by tests/ref/allocation_mc.py (remove 0.149177523136 and add
 * 0.142686965824 at eps 0.5; remove 0.0592065010859 and add 0.0501976623695
 * at eps 1). */
START_TEST(two_steps_reference)
{
    dpa_bound b = mc_delta_at(2, 1, 1.0, 0.5);
    check_contains(&b, 0.149177523136, "T 2 eps 0.5");
    b = mc_delta_at(2, 1, 1.0, 1.0);
    check_contains(&b, 0.0592065010859, "T 2 eps 1");
}
END_TEST

/* The estimate lies below rdp's certified bound on the same event. */
START_TEST(below_rdp)
{
    static const struct { uint64_t T, E; double sigma; } cases[] = { { 20, 10, 1.0 }, { 50, 5, 0.8 }, { 10, 30, 2.0 } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dpa_accountant *m = accountant_with("mc", balls(cases[i].T, cases[i].E, cases[i].sigma));
        dpa_accountant *r = accountant_with("rdp", balls(cases[i].T, cases[i].E, cases[i].sigma));
        dpa_error err = { 0 };
        dpa_bound bm, br;
        ck_assert_int_eq(dpa_accountant_epsilon(m, 1e-5, &bm, &err), DPA_OK);
        ck_assert_int_eq(dpa_accountant_epsilon(r, 1e-5, &br, &err), DPA_OK);
        ck_assert_msg(bm.estimate < br.upper && bm.estimate > 0.0, "T %llu: mc %g, rdp %g",
                      (unsigned long long)cases[i].T, bm.estimate, br.upper);
        dpa_accountant_free(m);
        dpa_accountant_free(r);
    }
}
END_TEST

/* The same query twice gives the same numbers (fixed seeds). */
START_TEST(deterministic)
{
    dpa_accountant *a = accountant_with("mc", balls(30, 4, 1.0));
    dpa_error err = { 0 };
    dpa_bound b1, b2;
    ck_assert_int_eq(dpa_accountant_delta(a, 1.0, &b1, &err), DPA_OK);
    ck_assert_int_eq(dpa_accountant_delta(a, 1.0, &b2, &err), DPA_OK);
    ck_assert(memcmp(&b1.estimate, &b2.estimate, sizeof(double)) == 0 && b1.upper == b2.upper);
    dpa_accountant_free(a);
}
END_TEST

START_TEST(refused)
{
    dpa_error err = { 0 };
    dpa_accountant *a = dpa_accountant_new("mc", NULL, &err);
    ck_assert(a != NULL);
    dpa_event *g = dpa_event_gaussian(1.0, &err);
    ck_assert_int_eq(dpa_accountant_compose(a, g, &err), DPA_EUNSUPPORTED);
    ck_assert(strstr(err.message, "random_allocation") != NULL);
    dpa_event *two = dpa_event_random_allocation(10, 2, dpa_event_gaussian(1.0, &err), &err);
    ck_assert_int_eq(dpa_accountant_compose(a, two, &err), DPA_EUNSUPPORTED);
    ck_assert(strstr(err.message, "selected = 1") != NULL);
    dpa_event *big = balls(100000, 100, 1.0);   /* 4e10 draws */
    ck_assert_int_eq(dpa_accountant_compose(a, big, &err), DPA_EUNSUPPORTED);
    ck_assert(strstr(err.message, "limit") != NULL);
    dpa_event *wide = balls(2000000, 1, 1.0);
    ck_assert_int_eq(dpa_accountant_compose(a, wide, &err), DPA_EUNSUPPORTED);
    dpa_event *e1 = balls(10, 2, 1.0), *e2 = balls(10, 2, 2.0);
    ck_assert_int_eq(dpa_accountant_compose(a, e1, &err), DPA_OK);
    ck_assert_int_eq(dpa_accountant_compose(a, e2, &err), DPA_EUNSUPPORTED);
    dpa_accountant_free(a);
    dpa_options opt;
    dpa_options_init(&opt);
    opt.relation = DPA_REPLACE_ONE;
    a = dpa_accountant_new("mc", &opt, &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e1, &err), DPA_EUNSUPPORTED);
    ck_assert(strstr(err.message, "add/remove") != NULL);
    dpa_accountant_free(a);
    dpa_event_free(g);
    dpa_event_free(two);
    dpa_event_free(big);
    dpa_event_free(wide);
    dpa_event_free(e1);
    dpa_event_free(e2);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("montecarlo");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, one_step_is_the_gaussian);
    tcase_add_test(tc, one_step_epsilon);
    tcase_add_test(tc, two_steps_reference);
    tcase_add_test(tc, below_rdp);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, refused);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
