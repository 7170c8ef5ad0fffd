/* test_numerics.c - log-space helpers, log Phi and the root finder against MPFR
 * and closed forms. */
#include "mpfr_ref.h"
#include "numerics.h"
#include "dpacct.h"
#include "testutil.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>

/* Largest relative error of log Phi over a range, printed so that the
 * closing note can quote it. */
static double worst_log_ndtr(double from, double to, int n)
{
    double worst = 0.0;
    for (int i = 0; i <= n; i++) {
        double x = from + (to - from) * i / n;
        double e = rel_err(dpa_log_ndtr(x), ref_log_ndtr(x));
        if (e > worst) worst = e;
    }
    return worst;
}

START_TEST(log_ndtr_matches_mpfr_in_the_body_and_tails)
{
    double w_body = worst_log_ndtr(-20.0, 6.0, 2600);
    double w_tail = worst_log_ndtr(-200.0, -20.0, 1800);
    double w_upper = worst_log_ndtr(6.0, 37.0, 310);
    printf("log_ndtr max rel err: [-20,6] %.3g, [-200,-20] %.3g, [6,37] %.3g\n", w_body, w_tail, w_upper);
    ck_assert_double_lt(w_body, 1e-14);
    ck_assert_double_lt(w_tail, 1e-14);
    ck_assert_double_lt(w_upper, 1e-14);
    /* far tails: -1e4, -1e6; +38 and beyond where log Phi = -Phi(-x) underflows */
    const double far[] = { -40.0, -41.5, -1e3, -1e4, -1e6, -1e100 };
    for (size_t i = 0; i < sizeof far / sizeof far[0]; i++)
        ck_assert_double_lt(rel_err(dpa_log_ndtr(far[i]), ref_log_ndtr(far[i])), 1e-14);
    ck_assert_double_eq(dpa_log_ndtr(0.0), -M_LN2);
    ck_assert_double_le(dpa_log_ndtr(40.0), 0.0);
    ck_assert_double_ge(dpa_log_ndtr(40.0), -1e-300);
    ck_assert(isnan(dpa_log_ndtr(NAN)));
    ck_assert_double_eq(dpa_log_ndtr(-INFINITY), -INFINITY);
    ck_assert_double_eq(dpa_log_ndtr(INFINITY), 0.0);
}
END_TEST

START_TEST(log_mills_matches_mpfr)
{
    double worst = 0.0;
    for (double x = 2.0; x < 1e4; x *= 1.01) {
        double e = rel_err(dpa_log_mills(x), ref_log_mills(x));
        if (e > worst) worst = e;
    }
    printf("log_mills max rel err on [2, 1e4]: %.3g\n", worst);
    ck_assert_double_lt(worst, 1e-14);
    ck_assert(isnan(dpa_log_mills(1.9)));
    ck_assert_double_eq(dpa_log_mills(INFINITY), -INFINITY);
}
END_TEST

START_TEST(log_ndtr_upper_is_the_mirror_image)
{
    const double xs[] = { -3.0, 0.5, 7.0, 25.0, 39.0, 300.0 };
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        ck_assert_double_lt(rel_err(dpa_log_ndtr_upper(xs[i]), ref_log_ndtr(-xs[i])), 1e-14);
}
END_TEST

START_TEST(log1mexp_is_accurate_near_zero_and_far_out)
{
    const double xs[] = { -1e-300, -1e-20, -1e-10, -1e-5, -0.1, -0.6931, -0.6932, -1.0, -5.0, -40.0, -700.0 };
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double e = rel_err(dpa_log1mexp(xs[i]), ref_log1mexp(xs[i]));
        ck_assert_msg(e < 4e-16, "log1mexp(%g): rel err %g", xs[i], e);
    }
    ck_assert_double_eq(dpa_log1mexp(0.0), -INFINITY);
    ck_assert_double_eq(dpa_log1mexp(-INFINITY), 0.0);
    ck_assert(isnan(dpa_log1mexp(1e-300)));
    ck_assert(isnan(dpa_log1mexp(NAN)));
}
END_TEST

START_TEST(log_add_and_sub_exp_match_mpfr)
{
    const double pairs[][2] = { { 0.0, 0.0 }, { 1000.0, 999.0 }, { -1000.0, -1000.5 },
                                { 5.0, -40.0 }, { 1e-10, 0.0 }, { 700.0, 700.0 - 1e-12 } };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        double a = pairs[i][0], b = pairs[i][1];
        ck_assert_double_lt(rel_err(dpa_log_add_exp(a, b), ref_log_add_exp(a, b)), 4e-16);
        if (a > b) {
            /* log(e^a - e^b) loses only what b - a's rounding already lost */
            double e = rel_err(dpa_log_sub_exp(a, b), ref_log_sub_exp(a, b));
            ck_assert_msg(e < 1e-15, "log_sub_exp(%g, %g): rel err %g", a, b, e);
        }
    }
    ck_assert_double_eq(dpa_log_add_exp(-INFINITY, -INFINITY), -INFINITY);
    ck_assert_double_eq(dpa_log_add_exp(-INFINITY, 2.0), 2.0);
    ck_assert_double_eq(dpa_log_sub_exp(3.0, 3.0), -INFINITY);
    ck_assert_double_eq(dpa_log_sub_exp(3.0, -INFINITY), 3.0);
    ck_assert(isnan(dpa_log_sub_exp(1.0, 2.0)));
    const double xs[] = { 1.0, 2.0, 3.0, -1e3 };
    ck_assert_double_lt(rel_err(dpa_log_sum_exp(xs, 4),
                                ref_log_add_exp(ref_log_add_exp(1.0, 2.0), ref_log_add_exp(3.0, -1e3))), 4e-16);
    ck_assert_double_eq(dpa_log_sum_exp(xs, 0), -INFINITY);
}
END_TEST

static double minus_two(double x, void *ctx) { (void)ctx; return x * x - 2.0; }
static double exp_minus_three(double x, void *ctx) { (void)ctx; return 3.0 - exp(x); }
static double step(double x, void *ctx) { (void)ctx; return x < 1.0 / 3.0 ? -1.0 : 1.0; }
static double nan_fn(double x, void *ctx) { (void)ctx; return x > 0.5 ? NAN : -1.0; }
static double counted(double x, void *ctx) { ++*(int *)ctx; return step(x, NULL); }

START_TEST(root_finder_brackets_known_roots)
{
    dpa_root r;
    ck_assert_int_eq(dpa_find_root(minus_two, NULL, 0.0, 2.0, 0.0, 4 * DBL_EPSILON, 200, &r), DPA_OK);
    ck_assert(minus_two(r.at_lo_side, NULL) <= 0.0 && minus_two(r.at_hi_side, NULL) >= 0.0);
    ck_assert_double_lt(rel_err(r.at_hi_side, M_SQRT2), 1e-15);
    ck_assert_double_lt(rel_err(r.at_lo_side, M_SQRT2), 1e-15);
    /* decreasing function: signs are reported per side */
    ck_assert_int_eq(dpa_find_root(exp_minus_three, NULL, 0.0, 5.0, 0.0, 4 * DBL_EPSILON, 200, &r), DPA_OK);
    ck_assert_double_ge(exp_minus_three(r.at_lo_side, NULL), 0.0);
    ck_assert_double_le(exp_minus_three(r.at_hi_side, NULL), 0.0);
    ck_assert_double_lt(rel_err(r.at_lo_side, log(3.0)), 1e-15);
    /* a discontinuity is bracketed, not "found" */
    ck_assert_int_eq(dpa_find_root(step, NULL, 0.0, 1.0, 1e-14, 0.0, 200, &r), DPA_OK);
    ck_assert_double_lt(r.at_lo_side, 1.0 / 3.0);
    ck_assert_double_ge(r.at_hi_side, 1.0 / 3.0);
    ck_assert_double_lt(r.at_hi_side - r.at_lo_side, 1e-13);
}
END_TEST

START_TEST(root_finder_reports_failure)
{
    dpa_root r;
    ck_assert_int_eq(dpa_find_root(minus_two, NULL, 2.0, 3.0, 0.0, 1e-12, 200, &r), DPA_ENOBRACKET);
    ck_assert_int_eq(dpa_find_root(nan_fn, NULL, 0.0, 1.0, 0.0, 1e-12, 200, &r), DPA_EACCURACY);
    int calls = 0;
    ck_assert_int_eq(dpa_find_root(counted, &calls, 0.0, 1e6, 0.0, 1e-15, 5, &r), DPA_EACCURACY);
    ck_assert_int_le(calls, 5);
}
END_TEST

START_TEST(compensated_sum_keeps_small_terms)
{
    dpa_sum s = { 0 };
    dpa_sum_add(&s, 1.0);
    for (int i = 0; i < 1000000; i++) dpa_sum_add(&s, 1e-16);
    /* plain summation would return exactly 1.0 */
    ck_assert_double_lt(rel_err(dpa_sum_value(&s), 1.0 + 1e-10), 1e-15);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("numerics");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, log_ndtr_matches_mpfr_in_the_body_and_tails);
    tcase_add_test(tc, log_mills_matches_mpfr);
    tcase_add_test(tc, log_ndtr_upper_is_the_mirror_image);
    tcase_add_test(tc, log1mexp_is_accurate_near_zero_and_far_out);
    tcase_add_test(tc, log_add_and_sub_exp_match_mpfr);
    tcase_add_test(tc, root_finder_brackets_known_roots);
    tcase_add_test(tc, root_finder_reports_failure);
    tcase_add_test(tc, compensated_sum_keeps_small_terms);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
