/*
 * test_rdp.c - the RDP accountant: the Poisson-subsampled Gaussian against
 * an MPFR quadrature of its defining integral, other mechanisms against
 * MPFR evaluations of their divergences, conversions against published
 * values and the exact Gaussian.
 */
#include "mpfr_ref.h"
#include "dpacct.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <string.h>

/* An rdp accountant on the given orders (NULL: default grid) with `e` composed. */
static dpa_accountant *rdp_with(const double *orders, size_t n, dpa_relation rel, dpa_event *e)
{
    dpa_options opt;
    dpa_error err = { 0 };
    dpa_options_init(&opt);
    opt.orders = orders;
    opt.num_orders = n;
    opt.relation = rel;
    ck_assert_ptr_nonnull(e);
    dpa_accountant *a = dpa_accountant_new("rdp", &opt, &err);
    ck_assert_msg(a != NULL, "%s", err.message);
    int st = dpa_accountant_compose(a, e, &err);
    ck_assert_msg(st == DPA_OK, "%s", err.message);
    dpa_event_free(e);
    return a;
}

static double rdp_at(const dpa_accountant *a, size_t i)
{
    double orders[128], eps[128];
    size_t n;
    ck_assert_int_eq(dpa_accountant_rdp_curve(a, orders, eps, 128, &n, NULL), DPA_OK);
    ck_assert_uint_lt(i, n);
    return eps[i];
}

/* The acceptance grid: q x sigma x orders (fractional ones too),
 * within 1e-9 of MPFR and never below it.  1.001 is the smallest order the
 * default search over real orders uses (accountants/rdp/rdp.c): the
 * quadrature's cancellation near order 1 must stay inside its pad there. */
START_TEST(poisson_gaussian_matches_mpfr_quadrature)
{
    const double qs[] = { 1e-5, 1e-3, 0.01, 0.1, 0.5, 1.0 };
    const double sigmas[] = { 0.3, 0.5, 1.0, 2.0, 5.0, 20.0, 100.0 };
    const double orders[] = { 1.001, 1.01, 1.25, 1.5, 1.75, 2.0, 2.75, 3.0, 4.5, 7.25, 10.0, 11.0, 32.0, 64.0, 100.5, 256.0, 256.1, 1024.0 };
    const size_t n_orders = sizeof orders / sizeof orders[0];
    double worst = 0.0;
    /* quick (valgrind): the MPFR quadratures are the cost; every (q, sigma)
     * is still composed at every order, a sixth of the points checked */
    size_t stride = test_quick() ? 6 : 1;
    if (stride > 1) printf("rdp: DPACCT_TEST_QUICK: every %zuth point of the MPFR grid\n", stride);
    for (size_t i = 0; i < 6; i++) {
        for (size_t j = 0; j < 7; j++) {
            dpa_error err = { 0 };
            dpa_accountant *a = rdp_with(orders, n_orders, DPA_ADD_REMOVE,
                dpa_event_poisson_sampled(qs[i], dpa_event_gaussian(sigmas[j], &err), &err));
            for (size_t k = (i + j) % stride; k < n_orders; k += stride) {
                double ours = rdp_at(a, k), ref = ref_sgm_rdp(qs[i], sigmas[j], orders[k]);
                double e = rel_err(ours, ref);
                if (e > worst) worst = e;
                ck_assert_msg(e <= 1e-9 && ours >= ref,
                              "q=%g sigma=%g alpha=%g: %.15g vs MPFR %.15g", qs[i], sigmas[j], orders[k], ours, ref);
            }
            dpa_accountant_free(a);
        }
    }
    printf("rdp Poisson-sampled Gaussian vs MPFR quadrature: max rel err %.3g\n", worst);
}
END_TEST

/* q = 0.01, sigma = 2.5, 50 steps, orders 1.5, 2.5, 5, 50, 100:
 * TF Privacy's rdp_accountant_test (test_compute_rdp_sequence) publishes
 * [6.5007e-04, 1.0854e-03, 2.1808e-03, 2.3846e-02, 1.6742e+02] (rtol 1e-4),
 * the exact divergences.  dp_accounting's current test publishes
 * [6.70579741e-04, 1.08548710e-03, 2.18075656e-03, 2.38460375e-02,
 * 1.67416308e+02]: the same at integer orders, and at fractional orders an
 * upper bound that ours (exact, see the MPFR test) must not exceed. */
START_TEST(published_sampled_gaussian_values)
{
    const double orders[] = { 1.5, 2.5, 5.0, 50.0, 100.0 };
    const double tf_privacy[] = { 6.5007e-04, 1.0854e-03, 2.1808e-03, 2.3846e-02, 1.6742e+02 };
    const double dp_accounting[] = { 6.70579741e-04, 1.08548710e-03, 2.18075656e-03, 2.38460375e-02, 1.67416308e02 };
    dpa_error err = { 0 };
    dpa_accountant *a = rdp_with(orders, 5, DPA_ADD_REMOVE, dpa_event_self_composed(
        dpa_event_poisson_sampled(0.01, dpa_event_gaussian(2.5, &err), &err), 50, &err));
    for (size_t i = 0; i < 5; i++) {
        double v = rdp_at(a, i);
        ck_assert_msg(rel_err(v, tf_privacy[i]) < 1e-4, "order %g: %.9g vs %.9g", orders[i], v, tf_privacy[i]);
        ck_assert_double_le(v, dp_accounting[i] * (1 + 1e-8));
        if (orders[i] == floor(orders[i]))
            ck_assert_msg(rel_err(v, dp_accounting[i]) < 1e-8, "order %g: %.9g vs %.9g", orders[i], v, dp_accounting[i]);
    }
    dpa_accountant_free(a);
}
END_TEST

/* Mironov, Talwar & Zhang 2019 account with D_alpha(mu || mu0); the other
 * direction D_alpha(mu0 || mu) must not exceed it, which the accountant
 * relies on.  Checked in MPFR on a grid. */
START_TEST(reverse_divergence_is_smaller)
{
    const double qs[] = { 1e-3, 0.1, 0.5, 0.9 };
    const double sigmas[] = { 0.5, 1.0, 4.0 };
    const double orders[] = { 1.1, 1.5, 2.0, 3.5, 10.0, 40.0 };
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 6; k++) {
                double fwd = ref_sgm_rdp(qs[i], sigmas[j], orders[k]);
                double rev = ref_sgm_rdp_reverse(qs[i], sigmas[j], orders[k]);
                ck_assert_msg(rev <= fwd, "q %g sigma %g alpha %g: reverse %.12g > %.12g",
                              qs[i], sigmas[j], orders[k], rev, fwd);
            }
}
END_TEST

/* Conversions: dp_accounting's test_compute_epsilon_delta_pure_dp: a
 * constant curve 1.1 on orders 2..32 gives eps = 1.32783806176 at 1e-5,
 * optimal order 32 (the edge of that grid); and the delta at that eps is 1e-5. */
START_TEST(published_conversion_values)
{
    double orders[31];
    for (int i = 0; i < 31; i++) orders[i] = 2.0 + i;
    dpa_error err = { 0 };
    dpa_accountant *a = rdp_with(orders, 31, DPA_ADD_REMOVE, dpa_event_zcdp(0.0, 1.1, &err));
    dpa_bound b;
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, &err), DPA_OK);
    ck_assert_double_lt(rel_err(b.upper, 1.32783806176), 1e-10);
    ck_assert_double_ge(b.upper, 1.32783806176 - 1e-11);
    ck_assert_double_eq(b.order, 32.0);
    ck_assert(b.flags & DPA_ORDER_AT_EDGE);
    ck_assert(b.flags & DPA_CONV_CKS);
    ck_assert_int_eq(dpa_accountant_delta(a, 1.32783806176, &b, &err), DPA_OK);
    ck_assert_double_lt(rel_err(b.upper, 1e-5), 1e-9);
    dpa_accountant_free(a);
}
END_TEST

/* dp_accounting's test_compute_epsilon_delta_gaussian: sigma = 4.530877117
 * gives (1, 1e-6) through the RDP conversion on orders 1.001 .. 100 by
 * 0.001.  The optimal order of both conversions is 21.985, so the part of
 * that grid within DPA_MAX_ORDERS of it, 15.001 .. 25 (10000 orders, the
 * optimum inside), gives the same minimum. */
START_TEST(dense_grid_gaussian_conversion)
{
    static double orders[10000];
    for (int i = 0; i < 10000; i++) orders[i] = 0.001 * (i + 15001);
    dpa_error err = { 0 };
    dpa_accountant *a = rdp_with(orders, 10000, DPA_ADD_REMOVE, dpa_event_gaussian(4.530877117, &err));
    dpa_bound b;
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-6, &b, &err), DPA_OK);
    ck_assert_double_lt(fabs(b.upper - 1.0), 5e-8);
    ck_assert_int_eq(dpa_accountant_delta(a, 1.0, &b, &err), DPA_OK);
    ck_assert_double_lt(fabs(b.upper - 1e-6), 5e-14);
    dpa_accountant_free(a);
}
END_TEST

/* For Gaussians RDP is a valid (not tight) profile: its eps lies above the
 * exact analytic Gaussian (MPFR) and below the classic closed form
 * rho + 2 sqrt(rho log 1/delta) on a grid fine enough near the optimum. */
START_TEST(gaussian_conversion_brackets)
{
    const double sigmas[] = { 0.8, 2.0, 10.0 };
    const double deltas[] = { 1e-10, 1e-5, 1e-2 };
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            dpa_error err = { 0 };
            dpa_accountant *a = rdp_with(NULL, 0, DPA_ADD_REMOVE,
                                         dpa_event_self_composed(dpa_event_gaussian(sigmas[i], &err), 10, &err));
            dpa_bound b;
            ck_assert_int_eq(dpa_accountant_epsilon(a, deltas[j], &b, &err), DPA_OK);
            double rho = 10.0 / (2.0 * sigmas[i] * sigmas[i]);
            double exact = ref_gdp_epsilon(sqrt(2.0 * rho), deltas[j]);
            ck_assert_msg(b.upper >= exact, "sigma %g delta %g: %g below exact %g", sigmas[i], deltas[j], b.upper, exact);
            ck_assert_double_le(b.upper, rho + 2.0 * sqrt(rho * log(1.0 / deltas[j])) + 1e-3);
            ck_assert(b.flags & DPA_NO_LOWER);
            dpa_accountant_free(a);
        }
    }
}
END_TEST

/* Laplace: the Renyi divergence of Lap(0, b) from Lap(1, b) integrated
 * piecewise in closed form (three exponential pieces), in MPFR:
 *   int p^a q^(1-a) = e^{(a-1)/b}/2 + e^{-a/b}/2 + e^{(a-1)/b} (e^{(1-2a)/b} - 1)/(2 (1-2a)). */
static double ref_laplace(double b, double a)
{
    mpfr_t t, s, u;
    mpfr_inits2(256, t, s, u, (mpfr_ptr)0);
    mpfr_set_d(t, (a - 1.0) / b, MPFR_RNDN);
    mpfr_exp(s, t, MPFR_RNDN);
    mpfr_div_ui(s, s, 2, MPFR_RNDN);
    mpfr_set_d(t, -a / b, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_div_ui(t, t, 2, MPFR_RNDN);
    mpfr_add(s, s, t, MPFR_RNDN);
    mpfr_set_d(t, (1.0 - 2.0 * a) / b, MPFR_RNDN);
    mpfr_expm1(t, t, MPFR_RNDN);
    mpfr_set_d(u, (a - 1.0) / b, MPFR_RNDN);
    mpfr_exp(u, u, MPFR_RNDN);
    mpfr_mul(t, t, u, MPFR_RNDN);
    mpfr_div_d(t, t, 2.0 * (1.0 - 2.0 * a), MPFR_RNDN);
    mpfr_add(s, s, t, MPFR_RNDN);
    mpfr_log(s, s, MPFR_RNDN);
    mpfr_div_d(s, s, a - 1.0, MPFR_RNDN);
    double r = mpfr_get_d(s, MPFR_RNDN);
    mpfr_clears(t, s, u, (mpfr_ptr)0);
    return r;
}

/* k-ary randomized response: sum over the k outputs of p_i^a q_i^(1-a). */
static double ref_rr(double eps, int k, double a)
{
    mpfr_t z, p, q, s, t;
    mpfr_inits2(256, z, p, q, s, t, (mpfr_ptr)0);
    mpfr_set_d(z, eps, MPFR_RNDN);
    mpfr_exp(z, z, MPFR_RNDN);
    mpfr_add_ui(z, z, (unsigned long)(k - 1), MPFR_RNDN);        /* Z = e^eps + k - 1 */
    mpfr_set_d(p, eps, MPFR_RNDN);
    mpfr_exp(p, p, MPFR_RNDN);
    mpfr_div(p, p, z, MPFR_RNDN);                                  /* e^eps / Z */
    mpfr_ui_div(q, 1, z, MPFR_RNDN);                               /* 1 / Z */
    /* outputs x and x': p^a q^(1-a) + q^a p^(1-a); the k-2 others: q */
    mpfr_set_d(t, a, MPFR_RNDN);
    mpfr_pow(s, p, t, MPFR_RNDN);
    mpfr_set_d(t, 1.0 - a, MPFR_RNDN);
    mpfr_pow(t, q, t, MPFR_RNDN);
    mpfr_mul(s, s, t, MPFR_RNDN);
    mpfr_set_d(t, a, MPFR_RNDN);
    mpfr_pow(t, q, t, MPFR_RNDN);
    mpfr_set_d(z, 1.0 - a, MPFR_RNDN);
    mpfr_pow(z, p, z, MPFR_RNDN);
    mpfr_mul(t, t, z, MPFR_RNDN);
    mpfr_add(s, s, t, MPFR_RNDN);
    mpfr_mul_ui(t, q, (unsigned long)(k - 2), MPFR_RNDN);
    mpfr_add(s, s, t, MPFR_RNDN);
    mpfr_log(s, s, MPFR_RNDN);
    mpfr_div_d(s, s, a - 1.0, MPFR_RNDN);
    double r = mpfr_get_d(s, MPFR_RNDN);
    mpfr_clears(z, p, q, s, t, (mpfr_ptr)0);
    return r;
}

START_TEST(laplace_and_randomized_response_match_mpfr)
{
    const double orders[] = { 1.01, 1.5, 2.0, 3.25, 10.0, 64.0, 1024.0 };
    const double scales[] = { 0.1, 1.0, 10.0, 1000.0 };
    for (int i = 0; i < 4; i++) {
        dpa_error err = { 0 };
        dpa_accountant *a = rdp_with(orders, 7, DPA_ADD_REMOVE, dpa_event_laplace(scales[i], &err));
        for (int k = 0; k < 7; k++) {
            double ours = rdp_at(a, k), ref = ref_laplace(scales[i], orders[k]);
            ck_assert_msg(rel_err(ours, ref) < 1e-9 && ours >= ref, "laplace b=%g a=%g: %.15g vs %.15g",
                          scales[i], orders[k], ours, ref);
        }
        dpa_accountant_free(a);
    }
    const double epss[] = { 1e-4, 0.1, 1.0, 5.0 };
    const int ks[] = { 2, 3, 10 };
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 3; j++) {
            dpa_error err = { 0 };
            dpa_accountant *a = rdp_with(orders, 6, DPA_REPLACE_ONE,
                                         dpa_event_randomized_response(epss[i], (uint32_t)ks[j], &err));
            for (int k = 0; k < 6; k++) {
                double ours = rdp_at(a, k), ref = ref_rr(epss[i], ks[j], orders[k]);
                ck_assert_msg(rel_err(ours, ref) < 1e-9 && ours >= ref, "rr eps=%g k=%d a=%g: %.15g vs %.15g",
                              epss[i], ks[j], orders[k], ours, ref);
            }
            dpa_accountant_free(a);
        }
    }
}
END_TEST

/* Pure eps-DP (Steinke 2024): log(cosh((2a-1) eps/2) / cosh(eps/2)) / (a-1),
 * which is binary randomized response; checked against the MPFR RR sum. */
START_TEST(pure_dp_is_binary_randomized_response)
{
    const double orders[] = { 1.5, 2.0, 8.0, 100.0 };
    dpa_error err = { 0 };
    dpa_accountant *a = rdp_with(orders, 4, DPA_ADD_REMOVE, dpa_event_epsilon_delta(0.7, 0.0, &err));
    for (int k = 0; k < 4; k++)
        ck_assert_double_lt(rel_err(rdp_at(a, k), ref_rr(0.7, 2, orders[k])), 1e-9);
    dpa_accountant_free(a);
    /* exponential mechanism: min(alpha eps^2/8, pure eps) */
    a = rdp_with(orders, 4, DPA_ADD_REMOVE, dpa_event_exponential(0.7, &err));
    for (int k = 0; k < 4; k++)
        ck_assert_double_lt(rel_err(rdp_at(a, k), fmin(orders[k] * 0.49 / 8.0, ref_rr(0.7, 2, orders[k]))), 1e-9);
    dpa_accountant_free(a);
}
END_TEST

/* zCDP, GDP, discrete Gaussian and tree aggregation are lines in alpha. */
START_TEST(linear_curves)
{
    const double orders[] = { 1.5, 4.0, 33.0 };
    dpa_error err = { 0 };
    struct { dpa_event *e; double slope, offset; } cases[] = {
        { dpa_event_zcdp(0.3, 0.1, &err), 0.3, 0.1 },
        { dpa_event_gdp(0.5, &err), 0.125, 0.0 },
        { dpa_event_discrete_gaussian(2.0, 3, &err), 9.0 / 8.0, 0.0 },
        /* 1000 steps, restart every 100: 10 trees, floor(log2 100) + 1 = 7 nodes */
        { dpa_event_tree_aggregation(4.0, 1000, 100, &err), 70.0 / 32.0, 0.0 },
        /* single tree of 1600 leaves: floor(log2 1600) + 1 = 11 */
        { dpa_event_tree_aggregation(2.0, 1600, 0, &err), 11.0 / 8.0, 0.0 },
        /* 1024 leaves: intervals of size 1 .. 1024, 11 of them */
        { dpa_event_tree_aggregation(2.0, 1024, 0, &err), 11.0 / 8.0, 0.0 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        dpa_accountant *a = rdp_with(orders, 3, DPA_ADD_REMOVE, cases[c].e);
        for (int k = 0; k < 3; k++) {
            double want = cases[c].offset + cases[c].slope * orders[k];
            ck_assert_msg(rel_err(rdp_at(a, k), want) < 1e-10 && rdp_at(a, k) >= want,
                          "case %zu order %g: %.15g vs %.15g", c, orders[k], rdp_at(a, k), want);
        }
        dpa_accountant_free(a);
    }
}
END_TEST

/* Kairouz et al. 2021, StackOverflow setting (as in dp_accounting's
 * test_compute_eps_tree): 1600 steps, one tree, delta = 1e-6:
 * sigma 1.13 -> eps < 19.74, sigma 8.83 -> eps < 2.04; and no lower than
 * the exact Gaussian of the same sensitivity. */
START_TEST(published_tree_aggregation)
{
    const double cases[][2] = { { 1.13, 19.74 }, { 8.83, 2.04 } };
    for (int i = 0; i < 2; i++) {
        dpa_error err = { 0 };
        dpa_accountant *a = rdp_with(NULL, 0, DPA_ADD_REMOVE, dpa_event_tree_aggregation(cases[i][0], 1600, 0, &err));
        dpa_bound b;
        ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-6, &b, &err), DPA_OK);
        ck_assert_double_lt(b.upper, cases[i][1]);
        /* floor: the released tree is exactly a Gaussian with sensitivity^2 = 11 */
        ck_assert_double_ge(b.upper, ref_gdp_epsilon(sqrt(11.0) / cases[i][0], 1e-6));
        dpa_accountant_free(a);
    }
}
END_TEST

/* Sampling without replacement (Wang, Balle & Kasiviswanathan 2019, Thm 9)
 * evaluated independently in MPFR at integer orders; fractional orders must
 * lie on or above... below the chord, i.e. between the neighbours. */
static double ref_swor(double gamma, double sigma, int alpha)
{
    mpfr_t acc, t, c, g;
    mpfr_inits2(256, acc, t, c, g, (mpfr_ptr)0);
    mpfr_set_d(g, gamma, MPFR_RNDN);
    /* j = 2: gamma^2 C(a,2) min(4 (e^{1/s^2} - 1), 2 e^{1/s^2}) */
    mpfr_set_d(t, 1.0 / (sigma * sigma), MPFR_RNDN);
    mpfr_expm1(c, t, MPFR_RNDN);
    mpfr_mul_ui(c, c, 4, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_mul_ui(t, t, 2, MPFR_RNDN);
    mpfr_min(c, c, t, MPFR_RNDN);
    mpfr_sqr(t, g, MPFR_RNDN);
    mpfr_mul(c, c, t, MPFR_RNDN);
    mpfr_mul_ui(c, c, (unsigned long)alpha * (alpha - 1) / 2, MPFR_RNDN);
    mpfr_add_ui(acc, c, 1, MPFR_RNDN);
    mpfr_set_ui(c, (unsigned long)alpha * (alpha - 1) / 2, MPFR_RNDN);  /* C(a, j), updated */
    for (int j = 3; j <= alpha; j++) {
        mpfr_mul_ui(c, c, (unsigned long)(alpha - j + 1), MPFR_RNDN);
        mpfr_div_ui(c, c, (unsigned long)j, MPFR_RNDN);
        mpfr_set_d(t, (j - 1.0) * j / (2.0 * sigma * sigma), MPFR_RNDN);
        mpfr_exp(t, t, MPFR_RNDN);
        mpfr_mul(t, t, c, MPFR_RNDN);
        mpfr_mul_ui(t, t, 2, MPFR_RNDN);
        mpfr_t gj;
        mpfr_init2(gj, 256);
        mpfr_pow_ui(gj, g, (unsigned long)j, MPFR_RNDN);
        mpfr_mul(t, t, gj, MPFR_RNDN);
        mpfr_clear(gj);
        mpfr_add(acc, acc, t, MPFR_RNDN);
    }
    mpfr_log(acc, acc, MPFR_RNDN);
    mpfr_div_ui(acc, acc, (unsigned long)(alpha - 1), MPFR_RNDN);
    double r = mpfr_get_d(acc, MPFR_RNDN);
    mpfr_clears(acc, t, c, g, (mpfr_ptr)0);
    return r;
}

START_TEST(sampled_without_replacement)
{
    const double orders[] = { 2.0, 2.5, 3.0, 8.0, 32.0 };
    const double sigmas[] = { 0.8, 2.0, 10.0 };
    for (int i = 0; i < 3; i++) {
        dpa_error err = { 0 };
        dpa_accountant *a = rdp_with(orders, 5, DPA_REPLACE_ONE,
            dpa_event_sampled_without_replacement(1000, 10, dpa_event_gaussian(sigmas[i], &err), &err));
        const int integer_idx[] = { 0, 2, 3, 4 };
        for (int k = 0; k < 4; k++) {
            int idx = integer_idx[k];
            double ref = fmin(ref_swor(0.01, sigmas[i], (int)orders[idx]), orders[idx] / (2 * sigmas[i] * sigmas[i]));
            ck_assert_msg(rel_err(rdp_at(a, idx), ref) < 1e-9 && rdp_at(a, idx) >= ref,
                          "sigma %g alpha %g: %.15g vs %.15g", sigmas[i], orders[idx], rdp_at(a, idx), ref);
        }
        /* 2.5: the chord of (a - 1) eps(a) between 2 and 3 */
        double chord = (0.5 * 1.0 * rdp_at(a, 0) + 0.5 * 2.0 * rdp_at(a, 2)) / 1.5;
        ck_assert_double_lt(rel_err(rdp_at(a, 1), fmin(chord, 2.5 / (2 * sigmas[i] * sigmas[i]))), 1e-9);
        dpa_accountant_free(a);
    }
}
END_TEST

/* Papernot & Steinke 2022: repeating a mechanism a random number of times
 * costs more than one run, by at least log(E[K])/(alpha - 1) (Theorems 2, 6). */
START_TEST(repeat_and_select)
{
    const double orders[] = { 2.0, 4.0, 8.0, 16.0, 32.0 };
    dpa_error err = { 0 };
    dpa_accountant *base = rdp_with(orders, 5, DPA_ADD_REMOVE, dpa_event_gaussian(3.0, &err));
    dpa_accountant *pois = rdp_with(orders, 5, DPA_ADD_REMOVE,
        dpa_event_repeated_selected(dpa_event_gaussian(3.0, &err), DPA_REPEAT_POISSON, 10.0, 0.0, &err));
    /* geometric (eta = 1) with gamma = 0.1 has mean 10 */
    dpa_accountant *geo = rdp_with(orders, 5, DPA_ADD_REMOVE,
        dpa_event_repeated_selected(dpa_event_gaussian(3.0, &err), DPA_REPEAT_TRUNCATED_NEGATIVE_BINOMIAL, 1.0, 0.1, &err));
    for (int k = 0; k < 5; k++) {
        double floor_k = rdp_at(base, k) + log(10.0) / (orders[k] - 1.0);
        ck_assert_double_ge(rdp_at(pois, k), floor_k);
        /* Theorem 2 by hand: c = 2 min_j [(1 - 1/l_j) eps_j + log(10)/l_j] */
        double c = INFINITY;
        for (int j = 0; j < 5; j++)
            c = fmin(c, (1.0 - 1.0 / orders[j]) * orders[j] / 18.0 + log(10.0) / orders[j]);
        double want = INFINITY;
        for (int j = k; j < 5; j++) want = fmin(want, orders[j] / 18.0 + 2.0 * c + log(10.0) / (orders[j] - 1.0));
        ck_assert_double_lt(rel_err(rdp_at(geo, k), want), 1e-9);
        ck_assert_double_ge(rdp_at(geo, k), want * (1 - 1e-12));
    }
    dpa_accountant_free(base);
    dpa_accountant_free(pois);
    dpa_accountant_free(geo);
}
END_TEST

/* Theorem 6 against the exact divergence of a tuned mechanism: binary
 * randomized response (P[1] = 3/4 vs 1/4), the best of K ~ Poisson(mu)
 * runs (1 beats 0 beats no run at all, released as "none"): P[A <= y] =
 * f(P[Q <= y]) with f(x) = e^{mu (x - 1)} the generating function of K,
 * so A's three masses are e^{-mu}, f(P[Q = 0]) - e^{-mu}, 1 - f(P[Q = 0]).
 * The curve must lie above the larger divergence of the two directions; a
 * mean below 1 is refused (the formula falls under this very divergence:
 * at mu = 0.5 it is negative at order 1.5). */
static long double tuned_rr_divergence(long double p, long double pp, long double mu, long double l)
{
    long double a[3] = { expl(-mu), expl(mu * -p) - expl(-mu), 1 - expl(mu * -p) };
    long double b[3] = { expl(-mu), expl(mu * -pp) - expl(-mu), 1 - expl(mu * -pp) };
    long double sum = 0;
    for (int i = 0; i < 3; i++) sum += powl(a[i], l) * powl(b[i], 1 - l);
    return logl(sum) / (l - 1);
}

START_TEST(poisson_tuning_exact_divergence)
{
    const double orders[] = { 1.5, 2.0, 4.0, 8.0, 16.0 };
    const double means[] = { 1.0, 2.0, 10.0 };
    dpa_error err = { 0 };
    for (int m = 0; m < 3; m++) {
        dpa_accountant *a = rdp_with(orders, 5, DPA_ADD_REMOVE,
            dpa_event_repeated_selected(dpa_event_randomized_response(log(3.0), 2, &err), DPA_REPEAT_POISSON,
                                        means[m], 0.0, &err));
        for (int k = 0; k < 5; k++) {
            long double exact = fmaxl(tuned_rr_divergence(0.75L, 0.25L, means[m], orders[k]),
                                      tuned_rr_divergence(0.25L, 0.75L, means[m], orders[k]));
            ck_assert_msg((long double)rdp_at(a, k) >= exact, "mean %g order %g: %.10g under the exact %.10Lg",
                          means[m], orders[k], rdp_at(a, k), exact);
        }
        dpa_accountant_free(a);
    }
    dpa_options opt;
    dpa_options_init(&opt);
    opt.orders = orders;
    opt.num_orders = 5;
    dpa_accountant *a = dpa_accountant_new("rdp", &opt, &err);
    ck_assert_ptr_nonnull(a);
    dpa_event *e = dpa_event_repeated_selected(dpa_event_randomized_response(log(3.0), 2, &err), DPA_REPEAT_POISSON,
                                               0.5, 0.0, &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    ck_assert_msg(strstr(err.message, "below 1") != NULL, "%s", err.message);
    dpa_event_free(e);
    dpa_accountant_free(a);
}
END_TEST

START_TEST(relations_and_refusals)
{
    dpa_error err = { 0 };
    dpa_options opt;
    dpa_options_init(&opt);
    opt.relation = DPA_REPLACE_ONE;
    dpa_accountant *a = dpa_accountant_new("rdp", &opt, &err);
    dpa_event *e = dpa_event_poisson_sampled(0.1, dpa_event_gaussian(1.0, &err), &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err.message, "add/remove"));
    dpa_event_free(e);
    dpa_accountant_free(a);
    a = dpa_accountant_new("rdp", NULL, &err);
    e = dpa_event_sampled_without_replacement(100, 10, dpa_event_gaussian(1.0, &err), &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err.message, "replace-one"));
    dpa_event_free(e);
    e = dpa_event_poisson_sampled(0.1, dpa_event_laplace(1.0, &err), &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    dpa_event_free(e);
    e = dpa_event_epsilon_delta(1.0, 1e-6, &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    dpa_event_free(e);
    /* nothing composed: eps = 0, delta = 0 */
    dpa_bound b;
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, &err), DPA_OK);
    ck_assert_double_eq(b.upper, 0.0);
    dpa_accountant_free(a);
    /* bad grids */
    const double bad[] = { 2.0, 1.0 };
    opt.relation = DPA_ADD_REMOVE;
    opt.orders = bad;
    opt.num_orders = 2;
    ck_assert_ptr_null(dpa_accountant_new("rdp", &opt, &err));
    ck_assert_int_eq(err.status, DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "order"));
    opt.orders = NULL;
    ck_assert_ptr_null(dpa_accountant_new("rdp", &opt, &err));
    /* the default grid: 94 orders from 1.25 to 1024 */
    a = dpa_accountant_new("rdp", NULL, &err);
    double o[128], v[128];
    size_t n;
    ck_assert_int_eq(dpa_accountant_rdp_curve(a, o, v, 128, &n, &err), DPA_OK);
    ck_assert_uint_eq(n, 94);
    ck_assert_double_eq(o[0], 1.25);
    ck_assert_double_eq(o[n - 1], 1024.0);
    dpa_accountant_free(a);
    a = dpa_accountant_new("gaussian", NULL, &err);
    ck_assert_int_eq(dpa_accountant_rdp_curve(a, o, v, 128, &n, &err), DPA_EUNSUPPORTED);
    dpa_accountant_free(a);
}
END_TEST

/* Tiny delta drives the optimum to large orders.  On a list of orders the
 * largest is then reported with the edge flag; the default search goes
 * past the grid's 1024 to the optimum over the reals, which for a Gaussian
 * (eps(alpha) = rho alpha) solves d/d alpha of the CKS conversion = 0:
 *   rho (alpha - 1)^2 = log(1/delta) - log(alpha),
 * and flags the edge only at the end of its range, 65536. */
static double gaussian_cks_optimal_order(double rho, double delta)
{
    double lo = 1.0 + 1e-9, hi = 1e12;   /* the left side grows, the right shrinks */
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (rho * (mid - 1.0) * (mid - 1.0) < -log(delta) - log(mid)) lo = mid; else hi = mid;
    }
    return 0.5 * (lo + hi);
}

START_TEST(edge_of_the_grid_is_reported)
{
    dpa_error err = { 0 };
    double grid[128], v[128];
    size_t n;
    dpa_accountant *a = rdp_with(NULL, 0, DPA_ADD_REMOVE, dpa_event_gaussian(200.0, &err));
    ck_assert_int_eq(dpa_accountant_rdp_curve(a, grid, v, 128, &n, &err), DPA_OK);
    dpa_accountant *listed = rdp_with(grid, n, DPA_ADD_REMOVE, dpa_event_gaussian(200.0, &err));
    dpa_bound b, g;
    ck_assert_int_eq(dpa_accountant_epsilon(listed, 1e-300, &g, &err), DPA_OK);
    ck_assert_double_eq(g.order, 1024.0);
    ck_assert(g.flags & DPA_ORDER_AT_EDGE);
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-300, &b, &err), DPA_OK);
    double want = gaussian_cks_optimal_order(1.0 / (2.0 * 200.0 * 200.0), 1e-300);   /* 7386.7 */
    ck_assert_msg(fabs(b.order - want) <= 1e-4 * want, "order %.10g, optimum %.10g", b.order, want);
    ck_assert(!(b.flags & DPA_ORDER_AT_EDGE));
    ck_assert_double_lt(b.upper, g.upper);
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, &err), DPA_OK);
    ck_assert(!(b.flags & DPA_ORDER_AT_EDGE));
    dpa_accountant_free(a);
    dpa_accountant_free(listed);
    /* sigma 1e4: the optimum, 3.7e5, is past the search's range */
    a = rdp_with(NULL, 0, DPA_ADD_REMOVE, dpa_event_gaussian(1e4, &err));
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-300, &b, &err), DPA_OK);
    ck_assert_double_eq(b.order, 65536.0);
    ck_assert(b.flags & DPA_ORDER_AT_EDGE);
    ck_assert_int_eq(dpa_accountant_delta(a, 1e-3, &b, &err), DPA_OK);
    ck_assert_double_eq(b.order, 65536.0);
    ck_assert(b.flags & DPA_ORDER_AT_EDGE);
    dpa_accountant_free(a);
    /* sigma 0.3, 1e9 steps, delta 0.1: the optimum, 1 + 2e-5, is below the
     * range: 1.001, where the CKS conversion of rho alpha is in closed form */
    a = rdp_with(NULL, 0, DPA_ADD_REMOVE, dpa_event_self_composed(dpa_event_gaussian(0.3, &err), 1000000000, &err));
    ck_assert_int_eq(dpa_accountant_epsilon(a, 0.1, &b, &err), DPA_OK);
    ck_assert_double_eq(b.order, 1.001);
    ck_assert(b.flags & DPA_ORDER_AT_EDGE);
    double rho = 1e9 / (2.0 * 0.3 * 0.3);
    double at_edge = rho * 1.001 + log1p(-1.0 / 1.001) - (log(0.1) + log(1.001)) / 0.001;
    /* rdp_gaussian pads its closed form by 1e-11 (rdp_curves.c) */
    ck_assert_msg(b.upper >= at_edge && rel_err(b.upper, at_edge) < 2e-11, "%.17g vs %.17g", b.upper, at_edge);
    /* dp_accounting and Opacus (their smallest order, 1.1): 6111111130.785966 */
    ck_assert_double_lt(b.upper, 6111111130.785966);
    dpa_accountant_free(a);
}
END_TEST

/* ---- the default search over real orders ----------------------------------- */

/* self_composed(poisson(q, gaussian(sigma)), T), or of gaussian(sigma) when q = 1. */
static dpa_event *sgm(double q, double sigma, double T)
{
    dpa_error err = { 0 };
    dpa_event *g = dpa_event_gaussian(sigma, &err);
    return dpa_event_self_composed(q < 1.0 ? dpa_event_poisson_sampled(q, g, &err) : g, (uint64_t)T, &err);
}

static dpa_bound epsilon_on(const double *orders, size_t n, dpa_event *e, double delta)
{
    dpa_error err = { 0 };
    dpa_accountant *a = rdp_with(orders, n, DPA_ADD_REMOVE, e);
    dpa_bound b;
    ck_assert_msg(dpa_accountant_epsilon(a, delta, &b, &err) == DPA_OK, "%s", err.message);
    dpa_accountant_free(a);
    return b;
}

/* The default grid's 94 orders, as the accountant lists them. */
static size_t default_grid(double *orders)
{
    dpa_error err = { 0 };
    dpa_accountant *a = dpa_accountant_new("rdp", NULL, &err);
    double v[128];
    size_t n;
    ck_assert_int_eq(dpa_accountant_rdp_curve(a, orders, v, 128, &n, &err), DPA_OK);
    dpa_accountant_free(a);
    return n;
}

/* The row of issue 20: q = 0.01, sigma = 1, 1000 steps, delta = 1e-5.
 * dp_accounting (google/differential-privacy b5b0286e,
 * python/dp_accounting/dp_accounting/rdp/rdp_privacy_accountant.py:
 * RdpAccountant() on DEFAULT_RDP_ORDERS = 1.1 .. 10.9 by 0.1, 11 .. 63, 128,
 * 256, 512, 1024; get_epsilon_and_optimal_order(1e-5)) reports
 * 2.101366525420273 at order 7.8, Opacus (pytorch/opacus 4d0ebc84,
 * opacus/accountants/analysis/rdp.py: compute_rdp and get_privacy_spent on
 * RDPAccountant.DEFAULT_ALPHAS = 1.1 .. 10.9 by 0.1, 12 .. 63)
 * 2.1013652716430564 at order 7.8; both run by hand with Debian's numpy
 * 1.24 and scipy 1.10.  The grid alone gave 2.10143063 at order 7.75.  The
 * minimum over real orders of the same bound, by mpmath quadrature
 * (tests/ref/rdp_optimal_order.py): 2.1013221312346264 at 7.7808326897. */
START_TEST(search_beats_published_grids)
{
    dpa_bound b = epsilon_on(NULL, 0, sgm(0.01, 1.0, 1000), 1e-5);
    ck_assert_msg(b.upper <= 2.1013652716430564 && b.upper <= 2.101366525420273, "%.17g", b.upper);
    ck_assert_msg(b.upper >= 2.1013221312346264 && rel_err(b.upper, 2.1013221312346264) < 1e-8, "%.17g", b.upper);
    ck_assert_msg(fabs(b.order - 7.7808326897) <= 1e-3 * 7.7808326897, "order %.10g", b.order);
    ck_assert(b.flags & DPA_CONV_CKS);
    ck_assert(!(b.flags & DPA_ORDER_AT_EDGE));
    /* the order is the optimum to 1e-3: no order around it does better
     * (each a list of one order: no search), but for rounding */
    const double steps[] = { -2e-3, -5e-4, 5e-4, 2e-3 };
    for (int i = 0; i < 4; i++) {
        double o = b.order * (1.0 + steps[i]);
        dpa_bound near = epsilon_on(&o, 1, sgm(0.01, 1.0, 1000), 1e-5);
        ck_assert_msg(near.upper >= b.upper * (1.0 - 1e-12), "order %.10g: %.17g below %.17g at %.10g", o,
                      near.upper, b.upper, b.order);
    }
    /* at their order, 7.8, the same curve gives their number: the gain is
     * the order's, not the curve's */
    double o78 = 7.8;
    dpa_bound at78 = epsilon_on(&o78, 1, sgm(0.01, 1.0, 1000), 1e-5);
    ck_assert_msg(rel_err(at78.upper, 2.1013652716430564) < 1e-9, "%.17g", at78.upper);
}
END_TEST

/* Poisson-sampled Gaussians across the range of issue 20.  dp_accounting's
 * and Opacus's eps on their default orders (as in search_beats_published_grids,
 * run by hand); the minimum over real orders of the same bound (the CKS
 * conversion of the RDP curve) and its order, by mpmath quadrature at 40
 * digits and golden section (tests/ref/rdp_optimal_order.py).  Ours is a
 * certified upper bound: never below that minimum, within 1e-8 of it, at
 * an order within 1e-3 of the optimum, and never above theirs. */
static const struct {
    double q, sigma, steps, delta;
    double dp_accounting, opacus;  /* eps on their default orders */
    double min_eps, min_order;     /* mpmath */
} reference_rows[] = {
    { 0.01, 1.0, 1000, 1e-5, 2.101366525420273, 2.1013652716430564, 2.1013221312346264, 7.7808326897 },
    { 0.01, 1.0, 1e6, 1e-5, 150.91120179481416, 145.16683672363285, 144.77700856323647, 1.35819100962 },
    { 0.001, 0.8, 1e5, 1e-6, 3.1878046637866326, 3.1878044589946253, 3.1873868372516058, 7.44929475371 },
    { 0.1, 5.0, 100, 1e-10, 1.326971011019523, 1.326971011019556, 1.3268807876908058, 28.7076420295 },
    /* MNIST with DP-SGD: q = 256/60000 rounded, sigma 1.1, 60 epochs */
    { 0.004, 1.1, 14063, 1e-5, 2.4170954600986505, 2.4170954558461006, 2.4170795773494424, 8.57428208273 },
    /* dp_accounting's series did not converge at orders 1.1 .. 1.6 here
     * (it logs so and skips them) */
    { 0.5, 0.5, 10, 1e-3, 27.67935721069503, 26.86187654984452, 26.756314072419555, 1.54508849733 },
    { 1.0, 3.0, 1, 1e-5, 1.3862750468052074, 1.3862750468052074, 1.3857438139670286, 13.656116435 },
    { 0.02, 0.3, 50, 1e-5, 35.75983034982656, 35.73241153262659, 35.206866839641001, 1.44123819781 },
    { 1e-5, 10.0, 1e9, 1e-30, 0.3738781067503299, 1.0629872495469774, 0.35412178580944979, 355.636865744 },
    { 0.05, 2.0, 3000, 1e-12, 11.734148273184982, 11.734144465280702, 11.734142994887795, 5.59775210846 },
};

START_TEST(search_matches_references)
{
    for (size_t i = 0; i < sizeof reference_rows / sizeof reference_rows[0]; i++) {
        double q = reference_rows[i].q, sigma = reference_rows[i].sigma, T = reference_rows[i].steps;
        double delta = reference_rows[i].delta, m = reference_rows[i].min_eps, mo = reference_rows[i].min_order;
        dpa_bound b = epsilon_on(NULL, 0, sgm(q, sigma, T), delta);
        ck_assert_msg(b.upper <= reference_rows[i].dp_accounting && b.upper <= reference_rows[i].opacus,
                      "q=%g sigma=%g T=%g delta=%g: %.17g above dp_accounting %.17g or Opacus %.17g", q, sigma, T,
                      delta, b.upper, reference_rows[i].dp_accounting, reference_rows[i].opacus);
        ck_assert_msg(b.upper >= m && rel_err(b.upper, m) < 1e-8, "q=%g sigma=%g T=%g delta=%g: %.17g vs minimum %.17g",
                      q, sigma, T, delta, b.upper, m);
        ck_assert_msg(fabs(b.order - mo) <= 1e-3 * mo, "q=%g sigma=%g T=%g delta=%g: order %.10g vs %.10g", q, sigma, T,
                      delta, b.order, mo);
        ck_assert(!(b.flags & DPA_ORDER_AT_EDGE));
    }
    /* At the edges of the range.  q = 1e-7, sigma = 1000, 1e9 steps,
     * delta = 1e-30: dp_accounting 0.05977182282087502 (order 1024, its
     * largest), Opacus 1.0313290360568101 (order 63, its largest); the
     * optimum is past the search's largest order, 65536. */
    dpa_bound b = epsilon_on(NULL, 0, sgm(1e-7, 1000.0, 1e9), 1e-30);
    ck_assert_msg(b.upper <= 0.05977182282087502, "%.17g", b.upper);
    ck_assert_double_eq(b.order, 65536.0);
    ck_assert(b.flags & DPA_ORDER_AT_EDGE);
    /* q = 0.01, sigma = 2, 10 steps, delta = 0.1: dp_accounting 0 (its total
     * variation bound through the KL divergence), Opacus -0.1039 (below 0:
     * it does not clip) */
    b = epsilon_on(NULL, 0, sgm(0.01, 2.0, 10), 0.1);
    ck_assert_double_eq(b.upper, 0.0);
    ck_assert(b.flags & DPA_CONV_TV);
}
END_TEST

/* The total variation conversion against the exact total variation: one
 * Poisson-sampled Gaussian step is q N(1, sigma^2) + (1 - q) N(0, sigma^2)
 * against N(0, sigma^2), whose total variation -- delta at eps = 0 -- is
 * q (2 Phi(1/(2 sigma)) - 1) exactly.  delta(0) is never below it, never
 * above the Bretagnolle-Huber bound sqrt(1 - e^-KL) with KL at most the
 * MPFR curve at 1.001, and equal to that bound when it is what the
 * accountant used (the CKS conversion at a large order can do better for
 * small curves). */
START_TEST(total_variation_conversion)
{
    const double qs[] = { 0.01, 0.2, 0.5 };
    const double sigmas[] = { 1.0, 2.0, 20.0 };
    int used = 0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double q = qs[i], sigma = sigmas[j];
            dpa_error err = { 0 };
            dpa_accountant *a = rdp_with(NULL, 0, DPA_ADD_REMOVE, sgm(q, sigma, 1));
            dpa_bound b;
            ck_assert_int_eq(dpa_accountant_delta(a, 0.0, &b, &err), DPA_OK);
            double tv = q * erf(0.5 / sigma / sqrt(2.0));     /* 2 Phi(x) - 1 = erf(x / sqrt 2) */
            double bh = sqrt(-expm1(-ref_sgm_rdp(q, sigma, 1.001)));
            ck_assert_msg(b.upper >= tv && b.upper <= bh * (1.0 + 1e-9),
                          "q=%g sigma=%g: delta(0) %.17g, TV %.17g, Bretagnolle-Huber %.17g", q, sigma, b.upper, tv, bh);
            if (b.flags & DPA_CONV_TV) {
                used++;
                ck_assert_msg(b.upper >= bh && rel_err(b.upper, bh) < 1e-9, "q=%g sigma=%g: %.17g vs %.17g", q,
                              sigma, b.upper, bh);
                ck_assert_double_eq(b.order, 1.001);
                /* eps = 0 just above that delta, and not by this bound just below */
                ck_assert_int_eq(dpa_accountant_epsilon(a, bh * (1.0 + 1e-9), &b, &err), DPA_OK);
                ck_assert_double_eq(b.upper, 0.0);
                ck_assert(b.flags & DPA_CONV_TV);
                ck_assert_int_eq(dpa_accountant_epsilon(a, bh * (1.0 - 1e-9), &b, &err), DPA_OK);
                ck_assert(!(b.flags & DPA_CONV_TV));
                ck_assert_double_gt(b.upper, 0.0);
            }
            dpa_accountant_free(a);
        }
    }
    ck_assert_int_ge(used, 3);
}
END_TEST

/* The search only adds orders: over the range of issue 20 (and for other
 * mechanisms), eps and delta are never above the default grid's, computed
 * on the same 94 orders given as a list (no search); with a list the order
 * reported is one of the list's. */
static void never_above_grid(dpa_event *(*make)(void *), void *ctx, const char *what, double delta, double eps)
{
    double grid[128];
    size_t n = default_grid(grid);
    dpa_error err = { 0 };
    dpa_accountant *a = rdp_with(NULL, 0, DPA_ADD_REMOVE, make(ctx));
    dpa_accountant *g = rdp_with(grid, n, DPA_ADD_REMOVE, make(ctx));
    dpa_bound b, bg;
    ck_assert_int_eq(dpa_accountant_epsilon(a, delta, &b, &err), DPA_OK);
    ck_assert_int_eq(dpa_accountant_epsilon(g, delta, &bg, &err), DPA_OK);
    ck_assert_msg(b.upper <= bg.upper, "%s, delta %g: eps %.17g above the grid's %.17g", what, delta, b.upper, bg.upper);
    int listed = bg.order == 0.0;
    for (size_t i = 0; i < n; i++) listed |= bg.order == grid[i];
    ck_assert_msg(listed, "%s: order %.17g is not on the list", what, bg.order);
    ck_assert_int_eq(dpa_accountant_delta(a, eps, &b, &err), DPA_OK);
    ck_assert_int_eq(dpa_accountant_delta(g, eps, &bg, &err), DPA_OK);
    ck_assert_msg(b.upper <= bg.upper, "%s, eps %g: delta %.17g above the grid's %.17g", what, eps, b.upper, bg.upper);
    dpa_accountant_free(a);
    dpa_accountant_free(g);
}

static dpa_event *make_sgm(void *ctx)
{
    const double *p = ctx;
    return sgm(p[0], p[1], p[2]);
}

static dpa_event *make_mixture(void *ctx)
{
    (void)ctx;
    dpa_error err = { 0 };
    dpa_event *parts[] = {
        sgm(0.01, 1.1, 500),
        dpa_event_self_composed(dpa_event_laplace(20.0, &err), 3, &err),
        dpa_event_randomized_response(0.5, 4, &err),
        dpa_event_zcdp(0.01, 0.001, &err),
        dpa_event_repeated_selected(sgm(0.02, 2.0, 100), DPA_REPEAT_POISSON, 5.0, 0.0, &err),
        dpa_event_gsm_frobenius(3, 0.01, &err),
    };
    return dpa_event_composed(parts, sizeof parts / sizeof parts[0], &err);
}

START_TEST(search_never_above_grid)
{
    const double qs[] = { 1e-7, 1e-4, 0.01, 0.3, 1.0 };
    const double sigmas[] = { 0.3, 0.7, 2.0, 30.0, 1000.0 };
    const double steps[] = { 1, 1e3, 1e6, 1e9 };
    const double deltas[] = { 1e-30, 1e-10, 1e-5, 0.1 };
    /* quick (valgrind): a quarter of the (q, sigma, T) cells */
    int stride = test_quick() ? 4 : 1, cell = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            for (int k = 0; k < 4; k++) {
                if (cell++ % stride) continue;
                double p[3] = { qs[i], sigmas[j], steps[k] };
                char what[96];
                snprintf(what, sizeof what, "q=%g sigma=%g T=%g", qs[i], sigmas[j], steps[k]);
                for (int d = 0; d < 4; d++) never_above_grid(make_sgm, p, what, deltas[d], d + 0.5);
            }
    never_above_grid(make_mixture, NULL, "a composition of six kinds", 1e-6, 1.0);
    never_above_grid(make_mixture, NULL, "a composition of six kinds", 1e-2, 3.0);
}
END_TEST

/* The search keeps the distinct mechanisms composed; past 1024 of them, or
 * with a shuffled event (its curve costs a pass over every clone count per
 * call), it gives the list up and answers on the grid, the same number as
 * the default grid given as a list.  Composing one mechanism again adds to
 * its count: 100 steps composed one by one answer as the 100-fold
 * composition. */
START_TEST(search_keeps_distinct_mechanisms)
{
    double grid[128];
    size_t n = default_grid(grid);
    dpa_error err = { 0 };
    dpa_options opt;
    dpa_options_init(&opt);
    opt.orders = grid;
    opt.num_orders = n;
    dpa_accountant *a = dpa_accountant_new("rdp", NULL, &err), *g = dpa_accountant_new("rdp", &opt, &err);
    dpa_bound b, bg;
    for (int i = 0; i < 1025; i++) {
        dpa_event *e = dpa_event_gaussian(30.0 + 1e-3 * i, &err);
        ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_OK);
        ck_assert_int_eq(dpa_accountant_compose(g, e, &err), DPA_OK);
        dpa_event_free(e);
        if (i == 1023) {
            ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, &err), DPA_OK);
            ck_assert_int_eq(dpa_accountant_epsilon(g, 1e-5, &bg, &err), DPA_OK);
            ck_assert_double_lt(b.upper, bg.upper);
        }
    }
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, &err), DPA_OK);
    ck_assert_int_eq(dpa_accountant_epsilon(g, 1e-5, &bg, &err), DPA_OK);
    ck_assert_double_eq(b.upper, bg.upper);
    ck_assert_double_eq(b.order, bg.order);
    dpa_accountant_free(a);
    dpa_accountant_free(g);
    dpa_event *parts[] = { dpa_event_gaussian(3.0, &err), dpa_event_self_composed(dpa_event_shuffled(1.0, 100, &err), 5, &err) };
    dpa_event *mixed = dpa_event_composed(parts, 2, &err);
    a = rdp_with(NULL, 0, DPA_REPLACE_ONE, dpa_event_copy(mixed, &err));
    g = rdp_with(grid, n, DPA_REPLACE_ONE, mixed);
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-6, &b, &err), DPA_OK);
    ck_assert_int_eq(dpa_accountant_epsilon(g, 1e-6, &bg, &err), DPA_OK);
    ck_assert_double_eq(b.upper, bg.upper);
    ck_assert_double_eq(b.order, bg.order);
    dpa_accountant_free(a);
    dpa_accountant_free(g);
    a = dpa_accountant_new("rdp", NULL, &err);
    dpa_event *step = dpa_event_poisson_sampled(0.01, dpa_event_gaussian(1.0, &err), &err);
    for (int i = 0; i < 100; i++) ck_assert_int_eq(dpa_accountant_compose(a, step, &err), DPA_OK);
    dpa_event_free(step);
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, &err), DPA_OK);
    bg = epsilon_on(NULL, 0, sgm(0.01, 1.0, 100), 1e-5);
    ck_assert_msg(rel_err(b.upper, bg.upper) < 1e-12 && rel_err(b.order, bg.order) < 1e-9, "%.17g at %.10g vs %.17g at %.10g",
                  b.upper, b.order, bg.upper, bg.order);
    ck_assert_double_lt(bg.order, floor(bg.order) + 0.99);   /* off the grid: the search's */
    dpa_accountant_free(a);
}
END_TEST

/* delta at the eps reported for a delta is that delta again, at the same
 * order: both directions search the same bound (at the order of the eps
 * the delta conversion gives back delta exactly, and no order does better,
 * else eps would not be the minimum).  Each search stops within 1e-4 of
 * its optimum in log(alpha - 1), a relative 1e-9 in delta here. */
/* A shuffled randomizer with eps0 > 700: the clones pair holds e^eps0,
 * which overflowed into eps = 0 for one user (randomized response with
 * eps0 = 1000, eps ~ 1000; tests/test_property.c at 10 times its cases).
 * Refused by name; at 700 the bound holds eps ~ 700. */
START_TEST(huge_eps0_is_refused)
{
    dpa_error err = { 0 };
    dpa_options opt;
    dpa_options_init(&opt);
    opt.relation = DPA_REPLACE_ONE;
    dpa_accountant *a = dpa_accountant_new("rdp", &opt, &err);
    dpa_event *e = dpa_event_shuffled(1000.0, 1, &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err.message, "eps0"));
    dpa_event_free(e);
    e = dpa_event_shuffled(700.0, 1, &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_OK);
    dpa_bound b;
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-6, &b, &err), DPA_OK);
    ck_assert_double_ge(b.upper, 699.99);
    dpa_event_free(e);
    dpa_accountant_free(a);
}
END_TEST

START_TEST(search_round_trip)
{
    const double deltas[] = { 1e-12, 1e-5, 1e-2 };
    for (int i = 0; i < 3; i++) {
        dpa_error err = { 0 };
        dpa_accountant *a = rdp_with(NULL, 0, DPA_ADD_REMOVE, sgm(0.004, 1.1, 14063));
        dpa_bound e, d;
        ck_assert_int_eq(dpa_accountant_epsilon(a, deltas[i], &e, &err), DPA_OK);
        ck_assert_int_eq(dpa_accountant_delta(a, e.upper, &d, &err), DPA_OK);
        ck_assert_msg(d.upper <= deltas[i] * (1.0 + 1e-7) && d.upper >= deltas[i] * (1.0 - 1e-7),
                      "delta %g: eps %.17g gives back %.17g", deltas[i], e.upper, d.upper);
        ck_assert_msg(fabs(d.order - e.order) <= 1e-3 * e.order, "orders %.10g and %.10g", e.order, d.order);
        dpa_accountant_free(a);
    }
}
END_TEST

/* Extreme parameters: nothing NaN, the curve non-negative and
 * non-decreasing in the order (a property of Renyi divergences), and a
 * conversion that is finite or says it is unbounded. */
START_TEST(extreme_parameters_stay_sane)
{
    const double sigmas[] = { 1e-3, 0.05, 1e3, 1e8 };
    const double qs[] = { 1e-12, 0.5, 1.0 - 1e-12 };
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 3; j++) {
            dpa_error err = { 0 };
            dpa_accountant *a = rdp_with(NULL, 0, DPA_ADD_REMOVE, dpa_event_self_composed(
                dpa_event_poisson_sampled(qs[j], dpa_event_gaussian(sigmas[i], &err), &err), 1000, &err));
            double o[128], v[128];
            size_t n;
            ck_assert_int_eq(dpa_accountant_rdp_curve(a, o, v, 128, &n, &err), DPA_OK);
            for (size_t k = 0; k < n; k++) {
                ck_assert_msg(!isnan(v[k]) && v[k] >= 0.0, "sigma %g q %g order %g: %g", sigmas[i], qs[j], o[k], v[k]);
                if (k) ck_assert_msg(v[k] >= v[k - 1] * (1 - 1e-9), "not monotone at sigma %g q %g order %g",
                                     sigmas[i], qs[j], o[k]);
            }
            dpa_bound b;
            ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, &err), DPA_OK);
            ck_assert(!isnan(b.upper) && (isfinite(b.upper) || (b.flags & DPA_UNBOUNDED)));
            ck_assert_int_eq(dpa_accountant_delta(a, 1.0, &b, &err), DPA_OK);
            ck_assert(b.upper >= 0.0 && b.upper <= 1.0);
            dpa_accountant_free(a);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rdp");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, poisson_gaussian_matches_mpfr_quadrature);
    tcase_add_test(tc, published_sampled_gaussian_values);
    tcase_add_test(tc, reverse_divergence_is_smaller);
    tcase_add_test(tc, published_conversion_values);
    tcase_add_test(tc, dense_grid_gaussian_conversion);
    tcase_add_test(tc, gaussian_conversion_brackets);
    tcase_add_test(tc, laplace_and_randomized_response_match_mpfr);
    tcase_add_test(tc, pure_dp_is_binary_randomized_response);
    tcase_add_test(tc, linear_curves);
    tcase_add_test(tc, published_tree_aggregation);
    tcase_add_test(tc, sampled_without_replacement);
    tcase_add_test(tc, repeat_and_select);
    tcase_add_test(tc, poisson_tuning_exact_divergence);
    tcase_add_test(tc, relations_and_refusals);
    tcase_add_test(tc, edge_of_the_grid_is_reported);
    tcase_add_test(tc, extreme_parameters_stay_sane);
    tcase_add_test(tc, search_beats_published_grids);
    tcase_add_test(tc, search_matches_references);
    tcase_add_test(tc, total_variation_conversion);
    tcase_add_test(tc, search_never_above_grid);
    tcase_add_test(tc, search_keeps_distinct_mechanisms);
    tcase_add_test(tc, search_round_trip);
    tcase_add_test(tc, huge_eps0_is_refused);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
