/*
 * test_allocation.c - random allocation (Feldman & Shenfeld 2025,
 * arXiv:2502.08202): the event's checks, the rdp accountant's bound
 * against an MPFR enumeration of the multinomial sum written here, against
 * mpmath values of tests/ref/allocation_rdp.py, and against closed forms
 * (the Gaussian, its composition, the add direction's bound); every other
 * accountant refuses the event.
 */
#include "mpfr_ref.h"
#include "dpacct.h"
#include "rdp/rdp_allocation.h"
#include "testutil.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREC 256

/* ---- the MPFR reference: every composition of alpha into T parts ---------- */

/* acc += prod_i e^{a_i(a_i-1)/(2 s^2)} / a_i! over the compositions
 * (a_1..a_T) of `left` into `parts` parts, times `w` (the product so far). */
static void sum_compositions(unsigned left, unsigned parts, const mpfr_t w, const mpfr_t inv2s2, mpfr_t acc)
{
    mpfr_t x, f;
    mpfr_inits2(PREC, x, f, (mpfr_ptr)0);
    for (unsigned a = parts == 1 ? left : 0; a <= left; a++) {
        mpfr_mul_ui(x, inv2s2, (unsigned long)a * (a - (a > 0)), MPFR_RNDN);   /* a(a-1)/(2 s^2) */
        mpfr_exp(x, x, MPFR_RNDN);
        mpfr_fac_ui(f, a, MPFR_RNDN);
        mpfr_div(x, x, f, MPFR_RNDN);
        mpfr_mul(x, x, w, MPFR_RNDN);
        if (parts == 1) mpfr_add(acc, acc, x, MPFR_RNDN);
        else sum_compositions(left - a, parts - 1, x, inv2s2, acc);
    }
    mpfr_clears(x, f, (mpfr_ptr)0);
}

/* D_alpha(P || Q) = log(alpha! T^-alpha sum ...)/(alpha - 1) at 256 bits,
 * rounded up to a double (above the truth). */
static double mpfr_remove_rdp(unsigned T, double sigma, unsigned alpha)
{
    mpfr_t acc, one, inv2s2, t;
    mpfr_inits2(PREC, acc, one, inv2s2, t, (mpfr_ptr)0);
    mpfr_set_ui(acc, 0, MPFR_RNDN);
    mpfr_set_ui(one, 1, MPFR_RNDN);
    mpfr_set_d(inv2s2, sigma, MPFR_RNDN);
    mpfr_sqr(inv2s2, inv2s2, MPFR_RNDN);
    mpfr_mul_ui(inv2s2, inv2s2, 2, MPFR_RNDN);
    mpfr_ui_div(inv2s2, 1, inv2s2, MPFR_RNDN);
    sum_compositions(alpha, T, one, inv2s2, acc);
    mpfr_fac_ui(t, alpha, MPFR_RNDN);
    mpfr_mul(acc, acc, t, MPFR_RNDN);
    mpfr_ui_pow_ui(t, T, alpha, MPFR_RNDN);
    mpfr_div(acc, acc, t, MPFR_RNDN);
    mpfr_log(acc, acc, MPFR_RNDN);
    mpfr_div_ui(acc, acc, alpha - 1, MPFR_RNDN);
    double v = mpfr_get_d(acc, MPFR_RNDU);
    mpfr_clears(acc, one, inv2s2, t, (mpfr_ptr)0);
    return v;
}

/* The library's remove direction at alpha, its moments computed up to N. */
static double library_remove(double T, double sigma, size_t N, double alpha)
{
    double *m = malloc((N + 1) * sizeof *m);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(rdp_allocation_log_moments(T, sigma, N, m), 0);
    double v = rdp_allocation_remove(m, N, alpha);
    free(m);
    return v;
}

/* The remove direction against the enumeration, for both of the library's
 * routes: moments up to alpha alone (Miller's recurrence while alpha <=
 * T + 1) and up to 8 (binary powering when T + 1 < 8).  Never below it,
 * and within 1e-11 relative (the pads of rdp_allocation.c, some 1e-13, and
 * the chord's 8 eps). */
START_TEST(remove_direction_matches_mpfr_enumeration)
{
    const unsigned steps[] = { 2, 3, 5 };
    const double sigmas[] = { 0.7, 2.0 };
    double worst = 0.0;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 2; j++)
            for (unsigned alpha = 2; alpha <= 8; alpha++) {
                const double ref = mpfr_remove_rdp(steps[i], sigmas[j], alpha);
                for (size_t N = alpha; N <= 8; N += 8 - alpha + (alpha == 8)) {
                    const double lib = library_remove(steps[i], sigmas[j], N, alpha);
                    ck_assert_msg(lib >= ref, "T=%u sigma=%g alpha=%u N=%zu: %.17g below the exact %.17g", steps[i],
                                  sigmas[j], alpha, N, lib, ref);
                    ck_assert_msg(lib <= ref * (1.0 + 1e-11), "T=%u sigma=%g alpha=%u N=%zu: %.17g, exact %.17g",
                                  steps[i], sigmas[j], alpha, N, lib, ref);
                    worst = fmax(worst, lib / ref - 1.0);
                }
            }
    printf("allocation: remove direction vs MPFR enumeration: largest excess %.2e relative\n", worst);
}
END_TEST

/* The library's remove direction at large T (Miller's recurrence with
 * moments up to alpha; binary powering for T = 1000 with moments up to
 * 2048) against tests/ref/allocation_rdp.py, which sums over the
 * partitions of alpha at 50 digits (values to 20).  Never below (the next
 * double up from the reference is above the truth), within 1e-9 relative:
 * for tiny log M the pads, a few ulps of terms of magnitude log T, weigh
 * some 3e-10 of it. */
static const struct { double T, sigma, alpha, rdp; } partition_refs[] = {
    { 10000, 1.0, 2, 0.00017181342207454793099 },
    { 10000, 1.0, 3, 0.00025774548357511306252 },
    { 10000, 1.0, 8, 0.00068766072065417458041 },
    { 10000, 1.0, 16, 0.0013764186286564364611 },
    { 10000, 1.0, 32, 6.7896596283791342076 },
    { 10000, 0.5, 2, 0.005345502314345255287 },
    { 10000, 0.5, 3, 0.0087752303494674105284 },
    { 10000, 0.5, 8, 6.7896596359252088745 },
    { 10000, 0.5, 16, 22.789659628023817264 },
    { 10000, 0.5, 32, 54.789659628023817264 },
    { 1000, 2.0, 2, 0.00028398508910493745971 },
    { 1000, 2.0, 3, 0.00042598906868205519828 },
    { 1000, 2.0, 8, 0.0011361236278243622915 },
    { 1000, 2.0, 16, 0.0022727383164038937893 },
    { 1000, 2.0, 32, 0.0045474571397390330655 },
    { 10, 0.5, 12, 21.697414907005954317 },
    { 10, 0.5, 16, 29.697414907005954316 },
    { 10, 0.5, 24, 45.697414907005954316 },
    { 10, 2.0, 12, 0.17337206672573856251 },
    { 10, 2.0, 16, 0.23741214342240162918 },
    { 10, 2.0, 24, 0.73089329061558397951 },
};

START_TEST(large_steps_match_mpmath_partitions)
{
    double worst = 0.0;
    for (size_t i = 0; i < sizeof partition_refs / sizeof partition_refs[0]; i++) {
        const double T = partition_refs[i].T, s = partition_refs[i].sigma, a = partition_refs[i].alpha;
        const double ref = partition_refs[i].rdp;
        const size_t Ns[] = { (size_t)a, T < 2047 ? 2048 : 1024 };
        for (size_t j = 0; j < 2; j++) {
            const double lib = library_remove(T, s, Ns[j], a);
            ck_assert_msg(lib >= nextafter(ref, INFINITY), "T=%g sigma=%g alpha=%g N=%zu: %.17g below %.17g", T, s, a,
                          Ns[j], lib, ref);
            ck_assert_msg(lib <= ref * (1.0 + 1e-9), "T=%g sigma=%g alpha=%g N=%zu: %.17g, reference %.17g", T, s, a,
                          Ns[j], lib, ref);
            worst = fmax(worst, lib / ref - 1.0);
        }
    }
    printf("allocation: remove direction vs mpmath partitions: largest excess %.2e relative\n", worst);
}
END_TEST

/* Fractional orders: the chord of (alpha - 1) D_alpha between the integer
 * orders (convexity).  It must lie above D_alpha itself, here from a 2-d
 * quadrature in mpmath (T = 2, tests/ref/allocation_rdp.py; at alpha = 3
 * it reproduces the enumeration to 20 digits), and be the chord of the
 * MPFR values at the neighbouring integers (D_2 itself below 2). */
static const struct { double sigma, alpha, rdp; } quadrature_refs[] = {
    { 0.7, 1.5, 1.0575631439525143111 },
    { 0.7, 2.5, 1.9168206379525178143 },
    { 0.7, 5.5, 4.9192250725810268061 },
    { 2.0, 1.5, 0.099380711663165120432 },
};

START_TEST(fractional_orders_are_chords_above_the_divergence)
{
    for (size_t i = 0; i < sizeof quadrature_refs / sizeof quadrature_refs[0]; i++) {
        const double s = quadrature_refs[i].sigma, a = quadrature_refs[i].alpha, lo = floor(a), t = a - lo;
        const double f_lo = lo < 2.0 ? 0.0 : (lo - 1.0) * mpfr_remove_rdp(2, s, (unsigned)lo);
        const double chord = ((1.0 - t) * f_lo + t * lo * mpfr_remove_rdp(2, s, (unsigned)lo + 1)) / (a - 1.0);
        const double lib = library_remove(2.0, s, 8, a);
        ck_assert_msg(lib >= quadrature_refs[i].rdp, "sigma=%g alpha=%g: %.17g below D_alpha = %.17g", s, a, lib,
                      quadrature_refs[i].rdp);
        ck_assert_msg(lib >= chord * (1.0 - 1e-15) && lib <= chord * (1.0 + 1e-11),
                      "sigma=%g alpha=%g: %.17g, the chord of the exact values %.17g", s, a, lib, chord);
    }
}
END_TEST

/* ---- through the rdp accountant ------------------------------------------- */

/* rdp's curve of `e` (freed) on the given orders, under `relation`. */
static void curve_of(dpa_event *e, dpa_relation relation, const double *orders, size_t n, double *out)
{
    dpa_options opt;
    dpa_options_init(&opt);
    opt.orders = orders;
    opt.num_orders = n;
    opt.relation = relation;
    dpa_accountant *a = accountant_with_options("rdp", &opt, e);
    double o[64];
    size_t got;
    ck_assert_uint_le(n, 64);
    ck_assert_int_eq(dpa_accountant_rdp_curve(a, o, out, n, &got, NULL), DPA_OK);
    ck_assert_uint_eq(got, n);
    dpa_accountant_free(a);
}

static dpa_event *allocation(uint64_t steps, uint64_t selected, double sigma)
{
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_random_allocation(steps, selected, dpa_event_gaussian(sigma, &err), &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    return e;
}

static const double some_orders[] = { 1.5, 2.0, 3.25, 8.0, 64.0, 1024.0, 2047.5, 4000.0 };
#define N_SOME (sizeof some_orders / sizeof some_orders[0])

/* One step per epoch: the record is in it; the Gaussian's alpha/(2 s^2),
 * the curve of self_composed(count=1, gaussian(sigma)) bit for bit. */
START_TEST(one_step_is_the_gaussian)
{
    dpa_error err = { 0 };
    const double sigmas[] = { 0.5, 1.0, 3.0 };
    for (size_t j = 0; j < 3; j++) {
        double v[N_SOME], g[N_SOME];
        curve_of(allocation(1, 1, sigmas[j]), DPA_ADD_REMOVE, some_orders, N_SOME, v);
        curve_of(dpa_event_self_composed(dpa_event_gaussian(sigmas[j], &err), 1, &err), DPA_ADD_REMOVE, some_orders,
                 N_SOME, g);
        for (size_t i = 0; i < N_SOME; i++) {
            const double a = some_orders[i], exact = a / (2.0 * sigmas[j] * sigmas[j]);
            ck_assert_msg(v[i] == g[i], "sigma=%g alpha=%g: %.17g, the Gaussian's curve %.17g", sigmas[j], a, v[i],
                          g[i]);
            ck_assert_msg(v[i] >= exact && v[i] <= exact * (1.0 + 1e-10), "sigma=%g alpha=%g: %.17g, exact %.17g",
                          sigmas[j], a, v[i], exact);
        }
    }
}
END_TEST

/* selected = steps: every step holds the record, the steps-fold
 * composition T alpha/(2 s^2), under either relation; and of any inner
 * event (Laplace: T times Mironov's Prop. 6, here the library's own
 * laplace curve composed). */
START_TEST(every_step_is_the_composition)
{
    dpa_error err = { 0 };
    const dpa_relation relations[] = { DPA_ADD_REMOVE, DPA_REPLACE_ONE };
    for (size_t r = 0; r < 2; r++) {
        double v[N_SOME];
        curve_of(allocation(50, 50, 2.0), relations[r], some_orders, N_SOME, v);
        for (size_t i = 0; i < N_SOME; i++) {
            const double exact = 50.0 * some_orders[i] / 8.0;
            ck_assert_msg(v[i] >= exact && v[i] <= exact * (1.0 + 1e-10), "relation %d alpha=%g: %.17g, exact %.17g",
                          (int)relations[r], some_orders[i], v[i], exact);
        }
    }
    double lap[N_SOME], comp[N_SOME];
    curve_of(dpa_event_random_allocation(7, 7, dpa_event_laplace(2.0, &err), &err), DPA_ADD_REMOVE, some_orders,
             N_SOME, lap);
    curve_of(dpa_event_self_composed(dpa_event_laplace(2.0, &err), 7, &err), DPA_ADD_REMOVE, some_orders, N_SOME,
             comp);
    for (size_t i = 0; i < N_SOME; i++) ck_assert_double_eq(lap[i], comp[i]);
}
END_TEST

/* One step per record, through the accountant: the larger of the two
 * directions, each capped by the Gaussian's alpha/(2 s^2).  Checked
 * against closed forms written here: the curve is at most the Gaussian's,
 * at least the add direction's 1/(2 s^2) + (alpha - 1)/(2 T s^2) (where
 * that is below the Gaussian's), and at least the exact remove direction
 * (MPFR, small T and integer orders). */
START_TEST(epoch_between_its_directions_and_the_gaussian)
{
    const uint64_t steps[] = { 2, 5, 10, 1000, 10000 };
    const double sigmas[] = { 0.5, 0.7, 1.0, 2.0 };
    const double orders[] = { 1.25, 1.5, 2.0, 2.5, 3.0, 5.0, 8.0, 16.0, 64.0, 1024.0, 3000.0 };
    const size_t n = sizeof orders / sizeof orders[0];
    for (size_t i = 0; i < 5; i++)
        for (size_t j = 0; j < 4; j++) {
            const double T = (double)steps[i], s = sigmas[j];
            double v[16];
            curve_of(allocation(steps[i], 1, s), DPA_ADD_REMOVE, orders, n, v);
            for (size_t k = 0; k < n; k++) {
                const double a = orders[k], gauss = a / (2.0 * s * s);
                const double add = 1.0 / (2.0 * s * s) + (a - 1.0) / (2.0 * T * s * s);
                ck_assert_msg(v[k] <= gauss * (1.0 + 1e-10), "T=%g sigma=%g alpha=%g: %.17g above the Gaussian %.17g",
                              T, s, a, v[k], gauss);
                ck_assert_msg(v[k] >= fmin(add, gauss) * (1.0 - 1e-15), "T=%g sigma=%g alpha=%g: %.17g below the add "
                              "direction's bound %.17g", T, s, a, v[k], add);
                if (T <= 5.0 && a == floor(a) && a <= 8.0) {
                    const double remove = mpfr_remove_rdp((unsigned)T, s, (unsigned)a);
                    ck_assert_msg(v[k] >= fmin(remove, gauss), "T=%g sigma=%g alpha=%g: %.17g below the remove "
                                  "direction %.17g", T, s, a, v[k], remove);
                }
            }
        }
}
END_TEST

/* Many steps: the remove direction of an epoch is close to T steps of the
 * Poisson-subsampled Gaussian at q = 1/T (Feldman & Shenfeld: random
 * allocation is bounded by Poisson sampling at rate (1 + o(1))/T), from the
 * library's poisson event.  A sanity check, not an identity: observed
 * ratios 0.99991 (alpha = 2) to 0.99750 (alpha = 16) at T = 1e4,
 * sigma = 1. */
START_TEST(many_steps_near_poisson_sampling)
{
    dpa_error err = { 0 };
    const double orders[] = { 2, 3, 4, 8, 12, 16 };
    double poisson[6];
    curve_of(dpa_event_self_composed(dpa_event_poisson_sampled(1e-4, dpa_event_gaussian(1.0, &err), &err), 10000,
                                     &err),
             DPA_ADD_REMOVE, orders, 6, poisson);
    for (size_t i = 0; i < 6; i++) {
        const double ratio = library_remove(1e4, 1.0, 16, orders[i]) / poisson[i];
        printf("allocation: T = 1e4, sigma = 1, alpha = %g: remove direction / Poisson(1/T) = %.5f\n", orders[i],
               ratio);
        ck_assert_msg(ratio > 0.99 && ratio <= 1.0, "alpha=%g: ratio %.6f", orders[i], ratio);
    }
}
END_TEST

/* E epochs are self_composed(E, allocation): E times one epoch's curve
 * (the existing path, rounded up by a few ulps). */
START_TEST(epochs_compose)
{
    const double orders[] = { 1.5, 2.0, 7.5, 32.0, 256.0 };
    double one[5], ten[5];
    dpa_error err = { 0 };
    curve_of(allocation(1000, 1, 0.8), DPA_ADD_REMOVE, orders, 5, one);
    curve_of(dpa_event_self_composed(allocation(1000, 1, 0.8), 10, &err), DPA_ADD_REMOVE, orders, 5, ten);
    for (size_t i = 0; i < 5; i++) {
        ck_assert_double_ge(ten[i], 10.0 * one[i]);
        ck_assert_double_le(ten[i], 10.0 * one[i] * (1.0 + 1e-14));
    }
}
END_TEST

/* ---- bad input -------------------------------------------------------------- */

#define EXPECT_REFUSED(call, status_, words)                                                          \
    do {                                                                                              \
        dpa_error e_ = { 0 };                                                                         \
        dpa_event *x_ = (call);                                                                       \
        ck_assert_ptr_null(x_);                                                                       \
        ck_assert_int_eq(e_.status, status_);                                                         \
        ck_assert_msg(strstr(e_.message, words) != NULL, "\"%s\" does not say \"%s\"", e_.message, words); \
    } while (0)

START_TEST(bad_arguments_are_named)
{
    EXPECT_REFUSED(dpa_event_random_allocation(0, 1, dpa_event_gaussian(1.0, NULL), &e_), DPA_EINVAL,
                   "random_allocation: steps");
    EXPECT_REFUSED(dpa_event_random_allocation(10, 0, dpa_event_gaussian(1.0, NULL), &e_), DPA_EINVAL,
                   "random_allocation: selected");
    EXPECT_REFUSED(dpa_event_random_allocation(10, 11, dpa_event_gaussian(1.0, NULL), &e_), DPA_EINVAL,
                   "selected = 11 with steps = 10");
    EXPECT_REFUSED(dpa_event_parse("random_allocation(steps=3, gaussian(sigma=1))", &e_), DPA_EINVAL, "selected");
    EXPECT_REFUSED(dpa_event_parse("random_allocation(steps=3, selected=1)", &e_), DPA_EINVAL, "one event");
}
END_TEST

/* What rdp refuses, and why; a refused event leaves nothing composed. */
static void rdp_refuses(const char *text, dpa_relation relation, const char *words)
{
    dpa_error err = { 0 };
    dpa_options opt;
    dpa_options_init(&opt);
    opt.relation = relation;
    dpa_event *e = dpa_event_parse(text, &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    dpa_accountant *a = dpa_accountant_new("rdp", &opt, &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    ck_assert_msg(strstr(err.message, words) != NULL, "%s: \"%s\" does not say \"%s\"", text, err.message, words);
    dpa_event_free(e);
    dpa_accountant_free(a);
}

START_TEST(rdp_refuses_what_it_cannot_bound)
{
    rdp_refuses("random_allocation(steps=10, selected=1, laplace(scale=1))", DPA_ADD_REMOVE,
                "randomly allocated laplace");
    rdp_refuses("random_allocation(steps=10, selected=2, gaussian(sigma=1))", DPA_ADD_REMOVE,
                "selected = 2 of 10 steps");
    rdp_refuses("random_allocation(steps=10, selected=1, gaussian(sigma=1))", DPA_REPLACE_ONE, "add/remove");
}
END_TEST

/* Every other accountant refuses the event (nothing may take it for
 * something else), naming it. */
START_TEST(other_accountants_refuse_it)
{
    const char *methods[] = { "gaussian", "shuffle", "zcdp", "gdp", "tuning" };   /* pld: tests/test_allocation_pld.c */
    const char *texts[] = { "random_allocation(steps=100, selected=1, gaussian(sigma=1))",
                            "random_allocation(steps=100, selected=100, gaussian(sigma=1))" };
    for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++)
        for (size_t t = 0; t < 2; t++) {
            dpa_error err = { 0 };
            dpa_event *e = dpa_event_parse(texts[t], &err);
            dpa_accountant *a = dpa_accountant_new(methods[m], NULL, &err);
            ck_assert_msg(a != NULL, "%s", err.message);
            ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
            ck_assert_msg(strstr(err.message, "random_allocation") || strstr(err.message, "random allocation"),
                          "%s: %s", methods[m], err.message);
            dpa_event_free(e);
            dpa_accountant_free(a);
        }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("allocation");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, remove_direction_matches_mpfr_enumeration);
    tcase_add_test(tc, large_steps_match_mpmath_partitions);
    tcase_add_test(tc, fractional_orders_are_chords_above_the_divergence);
    tcase_add_test(tc, one_step_is_the_gaussian);
    tcase_add_test(tc, every_step_is_the_composition);
    tcase_add_test(tc, epoch_between_its_directions_and_the_gaussian);
    tcase_add_test(tc, many_steps_near_poisson_sampling);
    tcase_add_test(tc, epochs_compose);
    tcase_add_test(tc, bad_arguments_are_named);
    tcase_add_test(tc, rdp_refuses_what_it_cannot_bound);
    tcase_add_test(tc, other_accountants_refuse_it);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
