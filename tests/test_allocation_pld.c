/*
 * test_allocation_pld.c - random allocation in the pld accountant
 * (accountants/pld/pld_allocation.c): Feldman & Shenfeld's decomposition
 * pair, (P1, Q) and (Q, P1), P1 the T-fold Poisson-sampled Gaussian at
 * q = 1/T conditioned on using the record, composed over epochs.
 *
 * References: the pair's deltas at T = 2 by one- and two-dimensional
 * quadrature, and over five epochs by a numpy lattice composition
 * (tests/ref/allocation_decomposition.py), the exact random
 * allocation's at T = 2 (the same script, and tests/ref/allocation_mc.py),
 * and, at T = 235, the pld accountant's own Poisson composition queried
 * through the public API at the transformed eps' and mapped by the
 * decomposition's formulas (computed here in long double): a second path
 * to the same numbers, independent of the nested grids, the transforms and
 * the discretisation of the pair.
 */
#include <config.h>

#include "dpacct.h"
#include "internal.h"   /* dpa_accountant_delta_directions */
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dpa_event *allocation_event(uint64_t steps, uint64_t selected, double sigma, uint64_t epochs)
{
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_random_allocation(steps, selected, dpa_event_gaussian(sigma, &err), &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    if (epochs > 1) e = dpa_event_self_composed(e, epochs, &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    return e;
}

static void directions(dpa_accountant *a, double eps, dpa_bound dir[2])
{
    dpa_error err = { 0 };
    int exact;
    ck_assert_msg(dpa_accountant_delta_directions(a, eps, 0, dir, &exact, &err) == DPA_OK, "%s", err.message);
    ck_assert_int_eq(exact, 1);
    for (int w = 0; w < 2; w++) ck_assert(dir[w].flags & DPA_PAIR_LOWER);
}

/* tests/ref/allocation_decomposition.py (sigma 1, T = 2): { eps, remove,
 * add } of the decomposition pair (quad; dblquad agrees to 3e-7 or
 * better), and the exact allocation's { remove, add }. */
static const double two_ref[][5] = {
    { 0.0, 0.363507043253, 0.363507043253, 0.297762225194, 0.297762225194 },
    { 0.5, 0.225964323852, 0.207355322966, 0.149177523136, 0.142686965824 },
    { 1.0, 0.124253510759, 0.0931309694877, 0.0592065010859, 0.0501976623695 },
    { 2.0, 0.0263139584232, 0.0073506255327, 0.00474577763325, 0.00205592452966 },
};

START_TEST(two_steps_contain_quadrature)
{
    dpa_accountant *a = accountant_with("pld", allocation_event(2, 1, 1.0, 1));
    for (size_t i = 0; i < sizeof two_ref / sizeof two_ref[0]; i++) {
        dpa_bound dir[2];
        directions(a, two_ref[i][0], dir);
        for (int w = 0; w < 2; w++) {
            double truth = two_ref[i][1 + w], exact_allocation = two_ref[i][3 + w];
            if (two_ref[i][0] == 2.0 && w == 0) {
                /* here rdp's bound (0.01653), valid for the mechanism, is
                 * below the pair's delta, and narrows the bracket */
                ck_assert_msg(dir[w].upper < truth && dir[w].upper >= exact_allocation, "eps 2: %.12g", dir[w].upper);
                continue;
            }
            ck_assert_msg(dir[w].lower <= truth && truth <= dir[w].upper, "eps %g world %d: [%.12g, %.12g] against %.12g",
                          two_ref[i][0], w, dir[w].lower, dir[w].upper, truth);
            /* the query's accuracy is the larger world's (1e-3 in eps) */
            if (truth >= two_ref[i][2 - w])
                ck_assert_msg(dir[w].upper - dir[w].lower <= 2e-3 * truth, "eps %g world %d: width %g", two_ref[i][0],
                              w, dir[w].upper - dir[w].lower);
            /* the decomposition dominates the mechanism: even its lower end */
            ck_assert_msg(dir[w].lower >= exact_allocation, "eps %g world %d: %.12g below the allocation's %.12g",
                          two_ref[i][0], w, dir[w].lower, exact_allocation);
        }
    }
    dpa_accountant_free(a);
}
END_TEST

/* tests/ref/allocation_decomposition.py --epochs: five epochs of the pair
 * at T = 2, sigma = 1, by a numpy lattice composition (step 2e-3, losses
 * rounded up and down): { world, eps, lower, upper }. */
static const double five_ref[][4] = {
    { 0, 1.0, 0.5573695572, 0.5589874322 }, { 0, 2.0, 0.395477395, 0.3970518612 },
    { 0, 3.0, 0.2507033335, 0.2519961956 }, { 1, 1.0, 0.5433346256, 0.5451305256 },
    { 1, 2.0, 0.3624994207, 0.3642557326 }, { 1, 3.0, 0.2041515165, 0.2055201717 },
};

START_TEST(five_epochs_meet_lattice_reference)
{
    dpa_accountant *a = accountant_with("pld", allocation_event(2, 1, 1.0, 5));
    for (size_t i = 0; i < sizeof five_ref / sizeof five_ref[0]; i++) {
        dpa_bound dir[2];
        directions(a, five_ref[i][1], dir);
        const dpa_bound *b = &dir[(int)five_ref[i][0]];
        ck_assert_msg(b->lower <= five_ref[i][3] && five_ref[i][2] <= b->upper,
                      "world %g eps %g: [%.10g, %.10g] against the lattice's [%.10g, %.10g]", five_ref[i][0],
                      five_ref[i][1], b->lower, b->upper, five_ref[i][2], five_ref[i][3]);
    }
    dpa_accountant_free(a);
}
END_TEST

/* The decomposition's formulas on the public API's Poisson composition
 * (header comment): remove, delta_M(log(1 - lambda + lambda e^eps)) /
 * lambda; add, (lambda + (1 - lambda) e^eps)/lambda times delta_M' at
 * eps - log(lambda + (1 - lambda) e^eps).  Both brackets hold the truth,
 * so they must meet; each is narrow. */
START_TEST(many_steps_match_poisson_transform)
{
    const uint64_t T = 235;
    const double sigma = 1.1;
    dpa_accountant *a = accountant_with("pld", allocation_event(T, 1, sigma, 1));
    dpa_error err = { 0 };
    dpa_event *poisson = dpa_event_self_composed(
        dpa_event_poisson_sampled(1.0 / (double)T, dpa_event_gaussian(sigma, &err), &err), T, &err);
    ck_assert_msg(poisson != NULL, "%s", err.message);
    dpa_accountant *p = accountant_with("pld", poisson);
    const long double lambda = 1.0L - powl(1.0L - 1.0L / (long double)T, (long double)T);
    const double eps_list[] = { 0.0, 0.3, 0.6, 1.2 };
    for (size_t i = 0; i < sizeof eps_list / sizeof eps_list[0]; i++) {
        double eps = eps_list[i];
        dpa_bound dir[2], m[2];
        directions(a, eps, dir);
        long double ae = expl((long double)eps);
        double ep[2] = { (double)logl(1.0L - lambda + lambda * ae), (double)(eps - logl(lambda + (1.0L - lambda) * ae)) };
        long double factor[2] = { 1.0L / lambda, (lambda + (1.0L - lambda) * ae) / lambda };
        for (int w = 0; w < 2; w++) {
            int exact;
            ck_assert_int_eq(dpa_accountant_delta_directions(p, ep[w], 0, m, &exact, &err), DPA_OK);
            double lo = (double)(factor[w] * m[w].lower), up = (double)(factor[w] * m[w].upper);
            ck_assert_msg(dir[w].lower <= up && lo <= dir[w].upper,
                          "eps %g world %d: allocation [%.12g, %.12g], Poisson transformed [%.12g, %.12g]", eps, w,
                          dir[w].lower, dir[w].upper, lo, up);
            /* the queries' default accuracy is 1e-3 in eps, of the larger
             * world; far in the add world's tail the nested grids' FFT
             * rounding (about 1e-10 an epoch) sets a floor instead: 1.5e-10
             * where the truth is 5e-11 at eps 0.6 */
            if (eps <= 0.3 && w == 0)
                ck_assert_msg(dir[w].upper - dir[w].lower <= 2e-3 * dir[w].upper, "eps %g world %d: width %g", eps, w,
                              dir[w].upper - dir[w].lower);
            else ck_assert_msg(dir[w].upper <= fmax(3.0 * up, 2e-10), "eps %g world %d: upper %g", eps, w, dir[w].upper);
        }
    }
    dpa_accountant_free(p);
    dpa_accountant_free(a);
}
END_TEST

static double epsilon_of(const char *method, dpa_event *e, double delta, dpa_bound *b)
{
    dpa_accountant *a = accountant_with(method, e);
    dpa_error err = { 0 };
    ck_assert_msg(dpa_accountant_epsilon(a, delta, b, &err) == DPA_OK, "%s: %s", method, err.message);
    dpa_accountant_free(a);
    return b->upper;
}

/* K of T is K rounds of one of floor(T/K) (the reduction of
 * accountants/rdp/rdp.c), and one of one step is the Gaussian. */
START_TEST(selected_reduces)
{
    dpa_error err = { 0 };
    dpa_bound x, y;
    /* (where the decomposition is below rdp's bound, which narrows pld's
     * bracket when it is lower) */
    epsilon_of("pld", allocation_event(470, 2, 1.1, 1), 1e-5, &x);
    epsilon_of("pld", allocation_event(235, 1, 1.1, 2), 1e-5, &y);
    ck_assert_msg(x.upper == y.upper && x.lower == y.lower, "2 of 470: [%.12g, %.12g]; 1 of 235 twice: [%.12g, %.12g]",
                  x.lower, x.upper, y.lower, y.upper);
    epsilon_of("pld", allocation_event(707, 3, 1.1, 1), 1e-5, &x);
    epsilon_of("pld", allocation_event(235, 1, 1.1, 3), 1e-5, &y);
    ck_assert_msg(x.upper == y.upper && x.lower == y.lower, "3 of 707 against 1 of 235 three times");
    /* every step: the Gaussian, sqrt(3) times the noise's worth; the
     * gaussian accountant's closed form (Balle & Wang) */
    epsilon_of("pld", allocation_event(3, 3, 1.0, 1), 1e-6, &x);
    epsilon_of("gaussian", dpa_event_gaussian(1.0 / sqrt(3.0), &err), 1e-6, &y);
    ck_assert_msg(x.lower <= y.upper && y.lower <= x.upper && x.upper - x.lower <= 2e-3 * x.upper,
                  "3 of 3: [%.12g, %.12g], the Gaussian [%.12g, %.12g]", x.lower, x.upper, y.lower, y.upper);
}
END_TEST

/* The README's MNIST run as balls-in-bins (60000 records, batches of 256:
 * 235 an epoch, sigma 1.1, 60 epochs): the decomposition lies below rdp's
 * certified bound and above Chua et al.'s Monte-Carlo estimate of the
 * mechanism (the mc accountant, an estimate: only a sanity check), and
 * below 60 times one epoch's (basic composition). */
START_TEST(mnist_balls_in_bins)
{
    dpa_bound pld, rdp, one;
    double e = epsilon_of("pld", allocation_event(235, 1, 1.1, 60), 1e-5, &pld);
    epsilon_of("rdp", allocation_event(235, 1, 1.1, 60), 1e-5, &rdp);
    epsilon_of("pld", allocation_event(235, 1, 1.1, 1), 1e-5 / 60.0, &one);
    ck_assert_msg(e < rdp.upper && e > 2.263 && e < 60.0 * one.upper, "pld %.6g, rdp %.6g, one epoch %.6g", e, rdp.upper,
                  one.upper);
    ck_assert_msg(pld.upper - pld.lower <= 2e-3 * pld.upper, "width [%.9g, %.9g]", pld.lower, pld.upper);
    ck_assert(pld.flags & DPA_PAIR_LOWER);
    /* at delta = 1e-10 the epochs read an epoch's profile down to about
     * 1e-12, below the nested grids' floor at tilt 1 (about 1e-10): the
     * steep upper grid resolves it (without it, rdp's 27.7 bounded the
     * bracket from above and [5.76, 27.66] was all that could be said) */
    epsilon_of("pld", allocation_event(235, 1, 1.1, 60), 1e-10, &pld);
    ck_assert_msg(pld.upper - pld.lower <= 2e-3 * pld.upper, "delta 1e-10: [%.9g, %.9g]", pld.lower, pld.upper);
}
END_TEST

START_TEST(refusals)
{
    dpa_error err = { 0 };
    dpa_options opt;
    dpa_options_init(&opt);
    opt.relation = DPA_REPLACE_ONE;
    dpa_accountant *a = dpa_accountant_new("pld", &opt, &err);
    ck_assert_ptr_nonnull(a);
    dpa_event *e = allocation_event(10, 1, 1.0, 1);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    ck_assert_msg(strstr(err.message, "add/remove") != NULL, "%s", err.message);
    dpa_accountant_free(a);
    dpa_event_free(e);
    a = dpa_accountant_new("pld", NULL, &err);
    e = dpa_event_random_allocation(10, 1, dpa_event_laplace(1.0, &err), &err);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    ck_assert_msg(strstr(err.message, "laplace") != NULL, "%s", err.message);
    dpa_event_free(e);
    /* a noise so small that the nested composition cannot be built: one
     * clear error, nothing composed */
    e = allocation_event(100, 1, 0.01, 1);
    int st = dpa_accountant_compose(a, e, &err);
    if (st != DPA_OK) ck_assert_msg(strstr(err.message, "rdp") != NULL, "%s", err.message);
    else {
        dpa_bound b;
        ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, &err), DPA_OK);
        ck_assert(b.upper > 1.0);
    }
    dpa_event_free(e);
    dpa_accountant_free(a);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("allocation_pld");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, two_steps_contain_quadrature);
    tcase_add_test(tc, five_epochs_meet_lattice_reference);
    tcase_add_test(tc, many_steps_match_poisson_transform);
    tcase_add_test(tc, selected_reduces);
    tcase_add_test(tc, mnist_balls_in_bins);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(suite()); }
