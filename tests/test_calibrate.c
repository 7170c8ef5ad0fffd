/*
 * test_calibrate.c - dpa_calibrate and friends.  Every result is checked
 * against MPFR: the value meets the target and a value 1e-6 (relative, or
 * one step) further does not.
 */
#include "mpfr_ref.h"
#include "dpacct.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <string.h>

struct family { double sigma; uint64_t steps; int fail_at_call; int calls; };

/* sigma -> T-fold Gaussian */
static dpa_event *by_sigma(double sigma, void *ctx, dpa_error *err)
{
    struct family *f = ctx;
    if (f->fail_at_call && ++f->calls >= f->fail_at_call) return dpa_event_gaussian(-1.0, err);
    return dpa_event_self_composed(dpa_event_gaussian(sigma, err), f->steps, err);
}

/* sigma -> Poisson-sampled Gaussian (q = 0.01) */
static dpa_event *sampled_by_sigma(double sigma, void *ctx, dpa_error *err)
{
    (void)ctx;
    return dpa_event_poisson_sampled(0.01, dpa_event_gaussian(sigma, err), err);
}

/* steps -> T-fold Gaussian with fixed sigma */
static dpa_event *by_steps(double steps, void *ctx, dpa_error *err)
{
    struct family *f = ctx;
    return dpa_event_self_composed(dpa_event_gaussian(f->sigma, err), (uint64_t)steps, err);
}

/* T-fold Gaussian with multiplier sigma is mu-GDP with mu = sqrt(T)/sigma. */
static double ref_eps(double sigma, double steps, double delta)
{
    return ref_gdp_epsilon(sqrt(steps) / sigma, delta);
}

START_TEST(smallest_sigma_meets_target_and_is_tight)
{
    const double targets[][3] = { /* eps, delta, steps */
        { 1.0, 1e-5, 1 }, { 0.1, 1e-6, 1 }, { 8.0, 1e-5, 1000 }, { 3.0, 1e-10, 10000 }, { 0.5, 1e-30, 10 } };
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        double eps = targets[i][0], delta = targets[i][1];
        struct family f = { 0, (uint64_t)targets[i][2], 0, 0 };
        double sigma;
        dpa_error err = { 0 };
        ck_assert_int_eq(dpa_calibrate("gaussian", NULL, by_sigma, &f, eps, delta, 0.5, 2.0, &sigma, &err), DPA_OK);
        ck_assert_msg(ref_eps(sigma, f.steps, delta) <= eps, "case %zu: sigma %.12g misses the target", i, sigma);
        ck_assert_msg(ref_eps(sigma * (1 - 1e-6), f.steps, delta) > eps, "case %zu: sigma %.12g not tight", i, sigma);
        /* and agrees with the closed-form calibration of the analytic Gaussian */
        dpa_bound s;
        ck_assert_int_eq(dpa_gaussian_sigma(eps, delta, &s, &err), DPA_OK);
        ck_assert_double_lt(rel_err(sigma, s.upper * sqrt((double)f.steps)), 2e-9);
    }
}
END_TEST

/* zCDP's calibration must need at least the exact Gaussian's sigma and at
 * most the classic conversion's closed form
 * rho = (sqrt(log(1/delta) + eps) - sqrt(log(1/delta)))^2, sigma = sqrt(T/(2 rho)). */
START_TEST(zcdp_sigma_between_exact_and_classic)
{
    double eps = 2.0, delta = 1e-6;
    struct family f = { 0, 100, 0, 0 };
    dpa_calibration c;
    dpa_calibration_init(&c, DPA_SEARCH_SMALLEST);
    dpa_error err = { 0 };
    ck_assert_int_eq(dpa_calibrate_search("zcdp", NULL, by_sigma, &f, eps, delta, &c, &err), DPA_OK);
    double l = log(1.0 / delta), rho = pow(sqrt(l + eps) - sqrt(l), 2.0);
    double classic = sqrt(100.0 / (2.0 * rho));
    ck_assert_double_le(c.value, classic);
    ck_assert_double_gt(ref_eps(c.value, 100, delta), 0.0);
    ck_assert_double_le(ref_eps(c.value, 100, delta), eps);   /* zCDP is valid for a Gaussian */
    ck_assert_double_le(c.epsilon_at_value, eps);
    ck_assert_double_gt(c.epsilon_at_fails, eps);
    ck_assert_double_lt((c.value - c.fails) / c.value, 1e-8);
    ck_assert_uint_gt(c.evaluations, 3);
}
END_TEST

START_TEST(largest_steps_meets_target)
{
    const double cases[][3] = { { 10.0, 1.0, 1e-5 }, { 50.0, 2.0, 1e-6 }, { 1.0, 8.0, 1e-5 } };
    for (size_t i = 0; i < 3; i++) {
        struct family f = { cases[i][0], 0, 0, 0 };
        double eps = cases[i][1], delta = cases[i][2];
        uint64_t steps;
        dpa_error err = { 0 };
        ck_assert_int_eq(dpa_calibrate_steps("gaussian", NULL, by_steps, &f, eps, delta, &steps, &err), DPA_OK);
        ck_assert_double_le(ref_eps(f.sigma, (double)steps, delta), eps);
        ck_assert_double_gt(ref_eps(f.sigma, (double)steps + 1.0, delta), eps);
    }
}
END_TEST

START_TEST(calibration_errors_are_reported)
{
    struct family f = { 1.0, 1, 0, 0 };
    double sigma;
    uint64_t steps;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpa_calibrate("gaussian", NULL, by_sigma, &f, 0.0, 1e-5, 0.5, 2, &sigma, &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_calibrate("gaussian", NULL, by_sigma, &f, NAN, 1e-5, 0.5, 2, &sigma, &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_calibrate("gaussian", NULL, by_sigma, &f, 1.0, 0.0, 0.5, 2, &sigma, &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_calibrate("gaussian", NULL, by_sigma, &f, 1.0, 1e-5, 2, 0.5, &sigma, &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_calibrate("nosuch", NULL, by_sigma, &f, 1.0, 1e-5, 0.5, 2, &sigma, &err), DPA_ENOTFOUND);
    /* the family fails part-way: its error comes back */
    f.fail_at_call = 3;
    ck_assert_int_eq(dpa_calibrate("gaussian", NULL, by_sigma, &f, 1.0, 1e-5, 0.5, 2, &sigma, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "noise multiplier"));
    /* approximate accountants cannot certify a target */
    f.fail_at_call = 0;
    ck_assert_int_eq(dpa_calibrate("gdp", NULL, sampled_by_sigma, &f, 1.0, 1e-5, 0.5, 2, &sigma, &err), DPA_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err.message, "approximation"));
    /* accountant that cannot compose the family */
    ck_assert_int_eq(dpa_calibrate("gaussian", NULL, sampled_by_sigma, &f, 1.0, 1e-5, 0.5, 2, &sigma, &err), DPA_EUNSUPPORTED);
    /* one step already too much */
    f.sigma = 0.1;
    ck_assert_int_eq(dpa_calibrate_steps("gaussian", NULL, by_steps, &f, 0.01, 1e-5, &steps, &err), DPA_ENOBRACKET);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("calibrate");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, smallest_sigma_meets_target_and_is_tight);
    tcase_add_test(tc, zcdp_sigma_between_exact_and_classic);
    tcase_add_test(tc, largest_steps_meets_target);
    tcase_add_test(tc, calibration_errors_are_reported);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
