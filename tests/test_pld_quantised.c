/*
 * test_pld_quantised.c - the quantised lower bound (accountants/pld/
 * pld_quantised.c, issue 20): below the exact delta of one step (MPFR,
 * through the Poisson identity delta(eps) = q delta_G(eps')), below an
 * independent method's upper bound for long runs (the pld accountant's
 * connect-the-dots grids), and not vacuous (close to both).
 */
#include "mpfr_ref.h"
#include "dpacct.h"
#include "pld/pld_grid.h"
#include "pld/pld_quantised.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <stdio.h>

/* One step, remove world: delta(eps) = q delta_G(eps') with
 * e^{eps'} = (e^eps - 1 + q) / q (Balle, Barthe & Gaboardi 2018, Thm 8),
 * delta_G the Gaussian's with mu = 1/sigma, at 256 bits. */
static double one_step_delta(double q, double sigma, double eps)
{
    long double e = logl((expm1l((long double)eps) + (long double)q) / (long double)q);
    return q * ref_gdp_delta(1.0 / sigma, (double)e);
}

START_TEST(single_steps_lie_below_the_exact_delta)
{
    const struct { double q, sigma, eps; } cases[] = {
        { 0.01, 1.0, 0.005 }, { 0.01, 1.0, 0.01 }, { 0.01, 0.5, 0.02 }, { 1e-3, 0.5, 1e-3 }, { 0.1, 0.8, 0.2 },
    };
    pld_fft_cache *fft = pld_fft_cache_new();
    ck_assert_ptr_nonnull(fft);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double lower, exact = one_step_delta(cases[i].q, cases[i].sigma, cases[i].eps);
        ck_assert_int_eq(pld_quantised_lower(cases[i].q, cases[i].sigma, 1, 0, cases[i].eps, fft, &lower), DPA_OK);
        printf("quantised: q=%g sigma=%g eps=%g: lower %.10g, exact %.10g\n", cases[i].q, cases[i].sigma, cases[i].eps,
               lower, exact);
        ck_assert_msg(lower <= exact, "above the exact delta: %.17g > %.17g", lower, exact);
        /* the bulk (all but 10% of Q) merged costs at most a few percent here */
        ck_assert_msg(lower >= 0.85 * exact, "vacuous: %.17g against %.17g", lower, exact);
    }
    pld_fft_cache_free(fft);
}
END_TEST

/* Long runs against the pld accountant's grids (connect-the-dots and its
 * lower construction, an independent method): eps(delta) below the
 * grids' upper bound, and within a few percent of their lower one. */
START_TEST(long_runs_lie_below_the_grids)
{
    const struct { double q, sigma; uint64_t steps; double delta, within; } cases[] = {
        { 1e-3, 0.5, 10000, 1e-5, 0.05 },
        { 1e-3, 0.6, 10000, 1e-6, 0.05 },
        { 1e-4, 0.6, 100000, 1e-6, 0.05 },
    };
    pld_fft_cache *fft = pld_fft_cache_new();
    ck_assert_ptr_nonnull(fft);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dpa_error err = { 0 };
        dpa_options opt;
        dpa_options_init(&opt);
        opt.tolerance = 1e-4;
        dpa_accountant *a = dpa_accountant_new("pld", &opt, &err);
        dpa_event *e = dpa_event_self_composed(
            dpa_event_poisson_sampled(cases[i].q, dpa_event_gaussian(cases[i].sigma, &err), &err), cases[i].steps, &err);
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_nonnull(e);
        ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_OK);
        dpa_bound b;
        ck_assert_int_eq(dpa_accountant_epsilon(a, cases[i].delta, &b, &err), DPA_OK);
        double lower;
        ck_assert_int_eq(pld_quantised_lower(cases[i].q, cases[i].sigma, cases[i].steps, 1, cases[i].delta, fft, &lower),
                         DPA_OK);
        printf("quantised: q=%g sigma=%g T=%llu delta=%g: eps >= %.10g; grids [%.10g, %.10g]\n", cases[i].q,
               cases[i].sigma, (unsigned long long)cases[i].steps, cases[i].delta, lower, b.lower, b.upper);
        ck_assert_msg(lower <= b.upper, "above the grids' upper bound: %.17g > %.17g", lower, b.upper);
        ck_assert_msg(lower >= (1.0 - cases[i].within) * b.lower, "vacuous: %.17g against %.17g", lower, b.lower);
        dpa_event_free(e);
        dpa_accountant_free(a);
    }
    pld_fft_cache_free(fft);
}
END_TEST

START_TEST(bad_arguments_and_out_of_range)
{
    double lower = 1.0;
    ck_assert_int_eq(pld_quantised_lower(0.0, 1.0, 10, 1, 1e-5, NULL, &lower), DPA_EINVAL);
    ck_assert_double_eq(lower, 0.0);
    ck_assert_int_eq(pld_quantised_lower(0.5, NAN, 10, 1, 1e-5, NULL, &lower), DPA_EINVAL);
    ck_assert_int_eq(pld_quantised_lower(0.5, 1.0, 0, 1, 1e-5, NULL, &lower), DPA_EINVAL);
    /* T q above 100: not tried, no bound */
    lower = 1.0;
    ck_assert_int_eq(pld_quantised_lower(0.01, 1.0, 100000, 1, 1e-5, NULL, &lower), DPA_OK);
    ck_assert_double_eq(lower, 0.0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pld_quantised");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, single_steps_lie_below_the_exact_delta);
    tcase_add_test(tc, long_runs_lie_below_the_grids);
    tcase_add_test(tc, bad_arguments_and_out_of_range);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
