/*
 * test_batches.c - shuffled fixed-size batches (accountants/batches.c and
 * the shuffled_batches event).
 *
 * The upper bound is the Gaussian once an epoch: checked against the
 * closed form of Balle & Wang (2018) evaluated here with GSL.  The lower
 * bound (Chua et al., ICML 2024 and NeurIPS 2024) is checked against
 *   - one batch an epoch (n = m): the instance is then the Gaussian itself,
 *     so the lower bound must meet the upper within its lattice drift;
 *   - the one-set bound of ICML 2024, max_C P(M > C) - e^eps Q(M > C),
 *     computed here with GSL (the sliced pair refines that set);
 *   - tests/ref/shuffle_lower.py (numpy): the sliced pair's eps bracketed by
 *     rounding its losses down and up on a finer lattice; a lower bound of
 *     that pair must lie below the upper end.
 */
#include "dpacct.h"
#include "testutil.h"

#include <check.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>

static dpa_event *epochs_of(uint64_t epochs, uint64_t n, uint64_t m, double sigma)
{
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_shuffled_batches(n, m, dpa_event_gaussian(sigma, &err), &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    if (epochs > 1) e = dpa_event_self_composed(e, epochs, &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    return e;
}

/* (takes e, as accountant_with does) */
static dpa_bound epsilon_of(const char *method, dpa_relation relation, dpa_event *e, double delta)
{
    dpa_options opt;
    dpa_options_init(&opt);
    opt.relation = relation;
    dpa_accountant *a = accountant_with_options(method, &opt, e);
    dpa_bound b;
    dpa_error err = { 0 };
    ck_assert_msg(dpa_accountant_epsilon(a, delta, &b, &err) == DPA_OK, "%s", err.message);
    dpa_accountant_free(a);
    return b;
}

/* delta of the Gaussian with parameter mu at eps (Balle & Wang 2018, Thm 8) */
static double gaussian_delta(double mu, double eps)
{
    return gsl_cdf_ugaussian_P(-eps / mu + mu / 2.0) - exp(eps) * gsl_cdf_ugaussian_P(-eps / mu - mu / 2.0);
}

static double bisect_eps(double (*delta_of)(double, const void *), const void *ctx, double delta)
{
    double lo = 0.0, hi = 200.0;
    for (int i = 0; i < 100; i++) {
        double mid = 0.5 * (lo + hi);
        if (delta_of(mid, ctx) > delta) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

static double gaussian_delta_ctx(double eps, const void *mu)
{
    return gaussian_delta(*(const double *)mu, eps);
}

/* The upper bound is the Gaussian with mu^2 = E / sigma^2. */
START_TEST(upper_is_gaussian_once_an_epoch)
{
    for (uint64_t epochs = 1; epochs <= 60; epochs += 59) {
        dpa_event *e = epochs_of(epochs, 60000, 256, 1.1);
        dpa_bound b = epsilon_of("batches", DPA_ADD_REMOVE, e, 1e-5);
        double mu = sqrt((double)epochs) / 1.1;
        double ref = bisect_eps(gaussian_delta_ctx, &mu, 1e-5);
        ck_assert_msg(b.upper >= ref && b.upper <= ref * (1.0 + 1e-8), "E = %llu: upper %.12g, closed form %.12g",
                      (unsigned long long)epochs, b.upper, ref);
        ck_assert_msg(b.lower <= b.upper && !(b.flags & (DPA_PAIR_LOWER | DPA_NO_LOWER | DPA_EXACT)),
                      "flags %#x", b.flags);
    }
}
END_TEST

/* One batch an epoch (n = m): the record is always in it, the instance is
 * N(a) against N(b), a - b = 1: the Gaussian itself.  The lower bound
 * must reach the upper within the lattice's drift (0.01), for both
 * relations (whose instances differ: (2, 1) and (1, 0)). */
START_TEST(one_batch_lower_meets_upper)
{
    for (int r = 0; r < 2; r++) {
        dpa_relation rel = r ? DPA_REPLACE_ONE : DPA_ADD_REMOVE;
        for (uint64_t epochs = 1; epochs <= 20; epochs += 19) {
            dpa_event *e = epochs_of(epochs, 500, 500, 0.8);
            dpa_bound b = epsilon_of("batches", rel, e, 1e-6);
            ck_assert_msg(b.lower <= b.upper && b.lower >= b.upper - 0.011,
                          "relation %d, E = %llu: [%.9g, %.9g]", r, (unsigned long long)epochs, b.lower, b.upper);
        }
    }
}
END_TEST

/* log P(M <= x) of the max statistic under the pair's first (c = 2) or
 * second (c = 1) law, with the record sitting out w.p. rho. */
typedef struct { double s, rho, T; } law;

static double log_phi(double x)
{
    return x > 0.0 ? log1p(-gsl_cdf_ugaussian_Q(x)) : log(gsl_cdf_ugaussian_P(x));
}

static double log_cdf_max(const law *L, double c, double x)
{
    double mix = (1.0 - L->rho) * gsl_cdf_ugaussian_P((x - c) / L->s) + L->rho * gsl_cdf_ugaussian_P(x / L->s);
    return (L->T - 1.0) * log_phi(x / L->s) + log(mix);
}

static double cube_delta(double eps, const void *ctx)
{
    const law *L = ctx;
    double best = 0.0;
    for (double x = -3.0; x < 12.0; x += 5e-4) {
        double p = -expm1(fmin(0.0, log_cdf_max(L, 2.0, x))), q = -expm1(fmin(0.0, log_cdf_max(L, 1.0, x)));
        best = fmax(best, p - exp(eps) * q);
    }
    return best;
}

/* The README's MNIST run shuffled: n = 60000, m = 256 (T = 234, 96 records
 * sit each epoch out), sigma = 1.1, delta = 1e-5. */
START_TEST(mnist_lower_bound)
{
    law L = { 1.1, 96.0 / 60000.0, 234.0 };
    double cube = bisect_eps(cube_delta, &L, 1e-5);   /* 2.979324864 in shuffle_lower.py */
    ck_assert_msg(fabs(cube - 2.979324864) < 1e-5, "cube bound %.9g", cube);
    dpa_event *e = epochs_of(1, 60000, 256, 1.1);
    dpa_bound b = epsilon_of("batches", DPA_ADD_REMOVE, e, 1e-5);
    /* one epoch: the lattice step is 1e-3 (LOSS_DRIFT / 1 capped), the
     * sliced pair's eps lies in [2.979224346, 2.979424346] (shuffle_lower.py) */
    ck_assert_msg(b.lower <= 2.979424346 && b.lower >= cube - 1.1e-3, "one epoch: lower %.9g, cube %.9g", b.lower,
                  cube);
    /* 60 epochs: [10.853325613, 10.865325613] (shuffle_lower.py, h = 2e-4) */
    e = epochs_of(60, 60000, 256, 1.1);
    b = epsilon_of("batches", DPA_ADD_REMOVE, e, 1e-5);
    ck_assert_msg(b.lower <= 10.865325613 && b.lower >= 10.853325613 - 0.011, "60 epochs: lower %.9g", b.lower);
    /* and far below the no-amplification upper bound, far above Poisson's 2.38 */
    ck_assert(b.upper > 54.0 && b.upper < 54.1);
}
END_TEST

/* delta queries bracket the same way: the lower delta at the upper eps is
 * below the target, at the lower eps above it. */
START_TEST(delta_bracket)
{
    dpa_event *e = epochs_of(10, 10000, 100, 1.0);
    dpa_accountant *a = accountant_with("batches", e);
    dpa_bound be, bd;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &be, &err), DPA_OK);
    ck_assert_int_eq(dpa_accountant_delta(a, be.lower, &bd, &err), DPA_OK);
    ck_assert_msg(bd.lower >= 1e-5 * (1.0 - 1e-9) && bd.upper >= bd.lower, "delta at eps lower: [%g, %g]", bd.lower,
                  bd.upper);
    ck_assert_int_eq(dpa_accountant_delta(a, be.upper, &bd, &err), DPA_OK);
    ck_assert_msg(bd.lower <= 1e-5 && bd.upper <= 1e-5 * (1.0 + 1e-9), "delta at eps upper: [%g, %g]", bd.lower,
                  bd.upper);
    dpa_accountant_free(a);
}
END_TEST

/* The other accountants give the Gaussian bound, flagged: their lower
 * bound is that bound's, not the shuffled mechanism's. */
START_TEST(other_accountants_flag_pair_lower)
{
    const char *methods[] = { "gaussian", "pld", "zcdp", "gdp" };
    for (size_t i = 0; i < sizeof methods / sizeof *methods; i++) {
        dpa_bound b = epsilon_of(methods[i], DPA_ADD_REMOVE, epochs_of(5, 1000, 10, 2.0), 1e-5);
        ck_assert_msg(b.flags & DPA_PAIR_LOWER, "%s: flags %#x", methods[i], b.flags);
        ck_assert_msg(!(b.flags & DPA_EXACT), "%s: exact", methods[i]);
    }
    dpa_bound r = epsilon_of("rdp", DPA_ADD_REMOVE, epochs_of(5, 1000, 10, 2.0), 1e-5);
    double mu = sqrt(5.0) / 2.0;
    ck_assert(r.upper >= bisect_eps(gaussian_delta_ctx, &mu, 1e-5));
}
END_TEST

START_TEST(bad_input)
{
    dpa_error err = { 0 };
    ck_assert_ptr_null(dpa_event_shuffled_batches(10, 0, dpa_event_gaussian(1.0, &err), &err));
    ck_assert(strstr(err.message, "m must lie in [1, n]") != NULL);
    err = (dpa_error){ 0 };
    ck_assert_ptr_null(dpa_event_shuffled_batches(10, 11, dpa_event_gaussian(1.0, &err), &err));
    ck_assert_ptr_null(dpa_event_shuffled_batches(0, 1, dpa_event_gaussian(1.0, &err), &err));
    err = (dpa_error){ 0 };
    ck_assert_ptr_null(dpa_event_shuffled_batches(10, 2, dpa_event_laplace(1.0, &err), &err));
    ck_assert_msg(strstr(err.message, "must be Gaussian noise") && strstr(err.message, "laplace"), "%s",
                  err.message);
    /* the batches accountant takes shuffled batches only, of one kind */
    dpa_accountant *a = dpa_accountant_new("batches", NULL, &err);
    ck_assert_ptr_nonnull(a);
    dpa_event *p = dpa_event_poisson_sampled(0.01, dpa_event_gaussian(1.0, &err), &err);
    err = (dpa_error){ 0 };
    ck_assert_int_eq(dpa_accountant_compose(a, p, &err), DPA_EUNSUPPORTED);
    ck_assert(strstr(err.message, "batches") != NULL);
    dpa_event *e1 = epochs_of(1, 100, 10, 1.0), *e2 = epochs_of(1, 100, 20, 1.0);
    ck_assert_int_eq(dpa_accountant_compose(a, e1, &err), DPA_OK);
    err = (dpa_error){ 0 };
    ck_assert_int_eq(dpa_accountant_compose(a, e2, &err), DPA_EUNSUPPORTED);
    dpa_bound b;
    ck_assert_int_eq(dpa_accountant_epsilon(a, 0.0, &b, &err), DPA_EINVAL);
    dpa_event_free(p);
    dpa_event_free(e1);
    dpa_event_free(e2);
    dpa_accountant_free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("batches");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, upper_is_gaussian_once_an_epoch);
    tcase_add_test(tc, one_batch_lower_meets_upper);
    tcase_add_test(tc, mnist_lower_bound);
    tcase_add_test(tc, delta_bracket);
    tcase_add_test(tc, other_accountants_flag_pair_lower);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
