/*
 * test_pld_grid.c - the PLD building blocks (issue 4, in progress): a
 * composition of Gaussians, whose exact profile is the analytic Gaussian
 * (MPFR), must lie between the connect-the-dots upper grid and the
 * rounded-down lower grid after composition by FFT, rounding pads included.
 */
#include "mpfr_ref.h"
#include "dpacct.h"
#include "gaussian_profile.h"
#include "numerics.h"
#include "pld_grid.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <stdio.h>

/* log delta(eps) of the Gaussian pair for any real eps: for eps < 0,
 * delta(eps) = 1 - e^eps + e^eps delta(-eps) (the pair is symmetric). */
static double gaussian_log_delta(double eps, void *ctx)
{
    double mu = *(const double *)ctx;
    if (eps >= 0.0) return dpa_gdp_log_delta(mu, eps);
    return log(-expm1(eps) + exp(eps + dpa_gdp_log_delta(mu, -eps)));
}

/* log P(L > x) with L ~ N(mu^2/2, mu^2) under P. */
static double gaussian_log_survival(double x, void *ctx)
{
    double mu = *(const double *)ctx;
    return dpa_log_ndtr((0.5 * mu * mu - x) / mu);
}

/* log Q(L > x) with L ~ N(-mu^2/2, mu^2) under Q. */
static double gaussian_log_q_survival(double x, void *ctx)
{
    double mu = *(const double *)ctx;
    return dpa_log_ndtr((-0.5 * mu * mu - x) / mu);
}

/* The drift-free lower grid: below the truth and, unlike rounding down,
 * within 1e-3 of it after 300 compositions. */
START_TEST(lower_dots_do_not_drift)
{
    const double sigmas[] = { 1.0, 5.0 };
    const uint64_t counts[] = { 1, 10, 300 };
    const double h = 2e-3;
    for (int i = 0; i < 2; i++) {
        double mu = 1.0 / sigmas[i], m = 0.5 * mu * mu;
        int64_t k0 = (int64_t)floor((m - 14.0 * mu) / h), k1 = (int64_t)ceil((m + 14.0 * mu) / h);
        pld_grid lo;
        ck_assert_int_eq(pld_grid_lower_dots(&lo, gaussian_log_delta, gaussian_log_q_survival, &mu, h, k0, k1), DPA_OK);
        for (int j = 0; j < 3; j++) {
            pld_grid lo_t;
            ck_assert_int_eq(pld_grid_self_compose(&lo, counts[j], PLD_LOWER, 1e-14, &lo_t), DPA_OK);
            double mu_t = mu * sqrt((double)counts[j]);
            const double deltas[] = { 1e-3, 1e-5 };
            for (int k = 0; k < 2; k++) {
                double eps = ref_gdp_epsilon(mu_t, deltas[k]);
                double exact = ref_gdp_delta(mu_t, eps);
                double dl = pld_grid_delta_bound(&lo_t, eps, PLD_LOWER);
                ck_assert_msg(dl <= exact, "sigma %g T %llu: lower %.9g above %.9g", sigmas[i],
                              (unsigned long long)counts[j], dl, exact);
                ck_assert_msg(dl >= exact * (1.0 - 1e-3), "sigma %g T %llu delta %g: lower %.9g drifted from %.9g",
                              sigmas[i], (unsigned long long)counts[j], deltas[k], dl, exact);
            }
            pld_grid_free(&lo_t);
        }
        pld_grid_free(&lo);
    }
}
END_TEST

START_TEST(gaussian_compositions_are_bracketed)
{
    const double sigmas[] = { 1.0, 5.0 };
    const uint64_t counts[] = { 1, 10, 300 };
    const double h = 2e-3;
    for (int i = 0; i < 2; i++) {
        double mu = 1.0 / sigmas[i], m = 0.5 * mu * mu;
        int64_t k0 = (int64_t)floor((m - 14.0 * mu) / h), k1 = (int64_t)ceil((m + 14.0 * mu) / h);
        pld_grid up, lo;
        ck_assert_int_eq(pld_grid_connect_dots(&up, gaussian_log_delta, &mu, h, k0, k1), DPA_OK);
        ck_assert_int_eq(pld_grid_round_down(&lo, gaussian_log_survival, &mu, h, k0, k1), DPA_OK);
        for (int j = 0; j < 3; j++) {
            pld_grid up_t, lo_t;
            ck_assert_int_eq(pld_grid_self_compose(&up, counts[j], PLD_UPPER, 1e-14, &up_t), DPA_OK);
            ck_assert_int_eq(pld_grid_self_compose(&lo, counts[j], PLD_LOWER, 1e-14, &lo_t), DPA_OK);
            double mu_t = mu * sqrt((double)counts[j]);
            const double deltas[] = { 1e-3, 1e-5, 1e-8 };
            for (int k = 0; k < 3; k++) {
                double eps = ref_gdp_epsilon(mu_t, deltas[k]);
                double exact = ref_gdp_delta(mu_t, eps);
                double du = pld_grid_delta_bound(&up_t, eps, PLD_UPPER);
                double dl = pld_grid_delta_bound(&lo_t, eps, PLD_LOWER);
                ck_assert_msg(dl <= exact && exact <= du, "sigma %g T %llu delta %g: [%.9g, %.9g] misses %.9g",
                              sigmas[i], (unsigned long long)counts[j], deltas[k], dl, du, exact);
                /* connect-the-dots has no drift: the upper stays close (at
                 * delta = 1e-8 the FFT rounding pad dominates; see
                 * docs/pld-design.md) */
                if (deltas[k] >= 1e-5)
                    ck_assert_msg(du <= exact * (1.0 + 1e-3), "upper too loose: %.9g vs %.9g", du, exact);
            }
            pld_grid_free(&up_t);
            pld_grid_free(&lo_t);
        }
        pld_grid_free(&up);
        pld_grid_free(&lo);
    }
}
END_TEST

/* One step: the upper grid reproduces the exact profile at its nodes and
 * lies above it in between; all masses are non-negative and sum to 1. */
START_TEST(connect_the_dots_single_step)
{
    double mu = 0.7, h = 0.01;
    pld_grid g;
    ck_assert_int_eq(pld_grid_connect_dots(&g, gaussian_log_delta, &mu, h, -800, 900), DPA_OK);
    double total = g.inf_mass;
    for (size_t i = 0; i < g.n; i++) {
        ck_assert_double_ge(g.mass[i], 0.0);
        total += g.mass[i];
    }
    ck_assert_double_lt(fabs(total - 1.0), 1e-12);
    for (double eps = 0.0; eps < 8.0; eps += 0.0137) {
        double exact = ref_gdp_delta(mu, eps), ours = pld_grid_delta_bound(&g, eps, PLD_UPPER);
        ck_assert_msg(ours >= exact, "eps %g: %.15g below %.15g", eps, ours, exact);
        /* the chord's relative error is about h^2 (d log delta / d eps)^2 / 8,
         * below 1e-2 at h = 0.01 out to eps = 8 here */
        ck_assert_msg(ours <= exact * (1.0 + 1e-2) + 1e-15, "eps %g: %.15g far above %.15g", eps, ours, exact);
    }
    pld_grid_free(&g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pld_grid");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, connect_the_dots_single_step);
    tcase_add_test(tc, gaussian_compositions_are_bracketed);
    tcase_add_test(tc, lower_dots_do_not_drift);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
