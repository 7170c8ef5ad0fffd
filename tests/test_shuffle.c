/*
 * test_shuffle.c - amplification by shuffling (accountants/shuffle.c)
 * against an MPFR enumeration of the clones pair of Feldman, McMillan &
 * Talwar 2021 (every (c, k) term at 256 bits; for larger n every c of the
 * window, each H_c term by term at 200 bits), their closed form (Thm 3.1,
 * which must lie above), and monotonicity in n.
 */
#include "mpfr_ref.h"
#include "dpacct.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static dpa_accountant *shuffled(double eps0, uint64_t n, double eps_error)
{
    dpa_options opt;
    dpa_options_init(&opt);
    opt.relation = DPA_REPLACE_ONE;
    opt.tolerance = eps_error;
    dpa_error err = { 0 };
    return accountant_with_options("shuffle", &opt, dpa_event_shuffled(eps0, n, &err));
}

/* delta(eps) brackets the MPFR enumeration (small n: single-value buckets) */
START_TEST(delta_matches_mpfr)
{
    const struct { double eps0; unsigned long n; } cases[] = {
        { 1.0, 1 }, { 1.0, 2 }, { 0.5, 10 }, { 2.0, 100 }, { 1.0, 400 }, { 4.0, 300 },
    };
    double worst = 0.0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        dpa_accountant *a = shuffled(cases[c].eps0, cases[c].n, 0.0);
        const double fr[] = { 0.0, 0.01, 0.1, 0.3, 0.6, 0.95, 1.0, 1.5 };
        for (int i = 0; i < 8; i++) {
            double eps = fr[i] * cases[c].eps0, ref = ref_shuffle_delta(cases[c].eps0, cases[c].n, eps);
            dpa_error err = { 0 };
            dpa_bound b;
            ck_assert_msg(dpa_accountant_delta(a, eps, &b, &err) == DPA_OK, "%s", err.message);
            /* at eps = eps0 the pair's delta is 0, which the reference
             * misses by its own rounding (1e-77 of terms of order one) */
            ck_assert_msg(b.lower <= ref && ref <= b.upper + 1e-70, "eps0 %g n %lu eps %g: [%.17g, %.17g] misses %.17g",
                          cases[c].eps0, cases[c].n, eps, b.lower, b.upper, ref);
            if (ref > 0.0 && (b.upper - ref) / ref > worst) worst = (b.upper - ref) / ref;
            ck_assert(b.flags & DPA_PAIR_LOWER);
        }
        dpa_accountant_free(a);
    }
    printf("shuffle: delta vs MPFR, upper at most %.3g above (relative)\n", worst);
}
END_TEST

/* eps(delta): the MPFR delta at the bracket's ends is on the right sides */
START_TEST(epsilon_is_bracketed)
{
    const struct { double eps0; unsigned long n; double delta; } cases[] = {
        { 1.0, 100, 1e-3 }, { 3.0, 200, 1e-4 }, { 0.5, 50, 1e-6 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        dpa_accountant *a = shuffled(cases[c].eps0, cases[c].n, 0.0);
        dpa_error err = { 0 };
        dpa_bound b;
        ck_assert_int_eq(dpa_accountant_epsilon(a, cases[c].delta, &b, &err), DPA_OK);
        double at_upper = ref_shuffle_delta(cases[c].eps0, cases[c].n, b.upper);
        double at_lower = ref_shuffle_delta(cases[c].eps0, cases[c].n, b.lower);
        ck_assert_msg(at_upper <= cases[c].delta && at_lower >= cases[c].delta,
                      "case %zu: [%.10g, %.10g] gives delta %.6g and %.6g around %g", c, b.lower, b.upper, at_upper,
                      at_lower, cases[c].delta);
        ck_assert_double_le(b.upper - b.lower, 1e-3 * b.upper);
        dpa_accountant_free(a);
    }
}
END_TEST

/* The numerical bound lies below FMT's closed form (which is valid there),
 * and eps falls as users are added; the closed form is at or above the
 * statement's (e^eps0 - 1)/(e^eps0 + 1) form. */
START_TEST(below_closed_form_and_monotone)
{
    const double eps0s[] = { 0.5, 1.0, 3.0 };
    for (int i = 0; i < 3; i++) {
        double prev = INFINITY;
        for (uint64_t n = 1000; n <= 1000000; n *= 10) {
            dpa_accountant *a = shuffled(eps0s[i], n, 0.0);
            dpa_error err = { 0 };
            dpa_bound b;
            ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-6, &b, &err), DPA_OK);
            double cf;
            if (dpa_shuffle_closed_form(eps0s[i], n, 1e-6, &cf, &err) == DPA_OK) {
                ck_assert_msg(b.upper <= cf, "eps0 %g n %llu: numerical %.6g above closed form %.6g", eps0s[i],
                              (unsigned long long)n, b.upper, cf);
                double e0 = exp(eps0s[i]), a8 = 8.0 * sqrt(e0 * log(4e6) / (double)n) + 8.0 * e0 / (double)n;
                double stated = log1p((e0 - 1.0) / (e0 + 1.0) * a8);
                ck_assert_msg(cf >= stated, "eps0 %g n %llu: closed form %.10g below the stated %.10g", eps0s[i],
                              (unsigned long long)n, cf, stated);
            }
            ck_assert_msg(b.upper < prev, "eps0 %g n %llu: %.6g not below %.6g", eps0s[i], (unsigned long long)n,
                          b.upper, prev);
            prev = b.upper;
            dpa_accountant_free(a);
        }
    }
}
END_TEST

/* Large n, where the accountant walks the binomials in long double from a
 * log-gamma start: against the MPFR sum over the window of C (each H_c
 * summed term by term at 200 bits). */
START_TEST(large_n_matches_mpfr)
{
    const struct { double eps0; unsigned long n; double eps; } cases[] = {
        { 1.0, 5000, 0.05 }, { 1.0, 5000, 0.1 }, { 3.0, 20000, 0.2 }, { 0.5, 20000, 0.02 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        dpa_accountant *a = shuffled(cases[c].eps0, cases[c].n, 0.0);
        dpa_error err = { 0 };
        dpa_bound b;
        ck_assert_int_eq(dpa_accountant_delta(a, cases[c].eps, &b, &err), DPA_OK);
        double ref = ref_shuffle_delta_window(cases[c].eps0, cases[c].n, cases[c].eps);
        printf("shuffle: eps0 %g n %lu eps %g: [%.15g, %.15g], MPFR %.15g\n", cases[c].eps0, cases[c].n,
               cases[c].eps, b.lower, b.upper, ref);
        ck_assert_msg(b.lower <= ref && ref <= b.upper, "case %zu: [%.17g, %.17g] misses %.17g", c, b.lower, b.upper,
                      ref);
        ck_assert_double_le(b.upper - b.lower, 1e-8 * b.upper);
        dpa_accountant_free(a);
    }
    /* n = 1e8 runs (0.5 s on this machine) and stays below the closed form */
    dpa_accountant *a = shuffled(1.0, 100000000, 0.0);
    dpa_error err = { 0 };
    dpa_bound b;
    double cf;
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-8, &b, &err), DPA_OK);
    ck_assert_int_eq(dpa_shuffle_closed_form(1.0, 100000000, 1e-8, &cf, &err), DPA_OK);
    ck_assert(b.upper > 0.0 && b.upper < cf && b.upper - b.lower <= 1e-3 * b.upper);
    dpa_accountant_free(a);
}
END_TEST

/* A local eps0 far beyond the double range of e^eps0: no clones (p =
 * e^-eps0 = 0), so delta(eps) = 1 - e^{eps - eps0} (up to 1 + e^-eps0) and
 * eps(1e-6) = eps0 + log(1 - 1e-6). */
START_TEST(large_eps0)
{
    dpa_accountant *a = shuffled(800.0, 1000, 0.0);
    dpa_error err = { 0 };
    dpa_bound b;
    ck_assert_msg(dpa_accountant_epsilon(a, 1e-6, &b, &err) == DPA_OK, "%s", err.message);
    double exact = 800.0 + log1p(-1e-6);
    ck_assert_msg(b.lower <= exact && exact <= b.upper, "[%.12g, %.12g] vs %.12g", b.lower, b.upper, exact);
    dpa_accountant_free(a);
}
END_TEST

START_TEST(refusals)
{
    dpa_error err = { 0 };
    dpa_accountant *a = dpa_accountant_new("shuffle", NULL, &err);   /* add/remove */
    dpa_event *e = dpa_event_shuffled(1.0, 100, &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err.message, "replace-one"));
    dpa_accountant_free(a);
    dpa_event_free(e);
    dpa_options opt;
    dpa_options_init(&opt);
    opt.relation = DPA_REPLACE_ONE;
    a = dpa_accountant_new("shuffle", &opt, &err);
    e = dpa_event_shuffled(1.0, 2000000000, &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    dpa_event_free(e);
    e = dpa_event_self_composed(dpa_event_shuffled(1.0, 100, &err), 2, &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    dpa_event_free(e);
    e = dpa_event_gaussian(1.0, &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    dpa_event_free(e);
    dpa_accountant_free(a);
    double eps;
    ck_assert_int_eq(dpa_shuffle_closed_form(5.0, 1000, 1e-6, &eps, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "log(n / (16 log(4/delta)))"));
    ck_assert_int_eq(dpa_shuffle_closed_form(1.0, 1000, 0.0, &eps, &err), DPA_EINVAL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("shuffle");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, delta_matches_mpfr);
    tcase_add_test(tc, epsilon_is_bracketed);
    tcase_add_test(tc, below_closed_form_and_monotone);
    tcase_add_test(tc, large_n_matches_mpfr);
    tcase_add_test(tc, large_eps0);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
