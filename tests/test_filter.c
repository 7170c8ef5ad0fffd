/*
 * test_filter.c - privacy filters (lib/filter.c): each stops exactly when
 * the next step would exceed its budget (dyadic costs, so the sums are
 * exact), never admits past it with inexact costs, charges nothing for a
 * refused or invalid step, and states its guarantee: the GDP profile at
 * mu = 0.5 and the zCDP conversion at rho = 0.5 against mpmath values.
 */
#include "dpacct.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int try_step(dpa_filter *f, double cost, double cost_delta)
{
    int admitted = -1;
    dpa_error err = { 0 };
    ck_assert_msg(dpa_filter_try(f, cost, cost_delta, &admitted, &err) == DPA_OK, "%s", err.message);
    return admitted;
}

/* eps 1 in steps of 0.25: four admitted, the fifth refused, and a smaller
 * step that still fits is admitted afterwards; the delta budget binds on
 * its own. */
START_TEST(basic_stops_exactly)
{
    dpa_error err = { 0 };
    dpa_filter *f = dpa_filter_new(DPA_FILTER_BASIC, 1.0, 1e-5, &err);
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 3; i++) ck_assert_int_eq(try_step(f, 0.25, 0x1p-20), 1);
    ck_assert_int_eq(try_step(f, 0.5, 0.0), 0);      /* 0.75 + 0.5 > 1 */
    ck_assert_int_eq(try_step(f, 0.25, 0.0), 1);     /* exactly 1 */
    ck_assert_int_eq(try_step(f, 0x1p-30, 0.0), 0);
    ck_assert_int_eq(try_step(f, 0.0, 0.0), 1);      /* free steps always fit */
    double spent, spent_delta;
    uint64_t n;
    ck_assert_int_eq(dpa_filter_spent(f, &spent, &spent_delta, &n), DPA_OK);
    ck_assert(spent == 1.0 && spent_delta == 3 * 0x1p-20 && n == 5);
    dpa_filter_free(f);
    /* the delta budget: 2^-20 three times fits in 3 * 2^-20, a fourth does not */
    f = dpa_filter_new(DPA_FILTER_BASIC, 10.0, 3 * 0x1p-20, &err);
    for (int i = 0; i < 3; i++) ck_assert_int_eq(try_step(f, 0.0, 0x1p-20), 1);
    ck_assert_int_eq(try_step(f, 0.0, 0x1p-20), 0);
    dpa_bound b;
    ck_assert_int_eq(dpa_filter_epsilon(f, 3 * 0x1p-20, &b, &err), DPA_OK);
    ck_assert(b.upper == 10.0);
    ck_assert_int_eq(dpa_filter_epsilon(f, 1e-9, &b, &err), DPA_EINVAL);
    dpa_filter_free(f);
}
END_TEST

/* mu = 0.5 in steps of mu_t = 0.25 (mu_t^2 = 1/16): four fit exactly; the
 * guarantee is 0.5-GDP, whose eps at 1e-5 is 1.993091404415119631 (mpmath,
 * 40 digits, from delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)). */
START_TEST(gdp_stops_exactly)
{
    dpa_error err = { 0 };
    dpa_filter *f = dpa_filter_new(DPA_FILTER_GDP, 0.5, 0.0, &err);
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 4; i++) ck_assert_int_eq(try_step(f, 0.25, 0.0), 1);
    ck_assert_int_eq(try_step(f, 0x1p-26, 0.0), 0);
    double spent;
    ck_assert_int_eq(dpa_filter_spent(f, &spent, NULL, NULL), DPA_OK);
    ck_assert(spent == 0.5);
    dpa_bound b;
    ck_assert_int_eq(dpa_filter_epsilon(f, 1e-5, &b, &err), DPA_OK);
    printf("gdp filter: eps %.12f (mpmath 1.993091404415)\n", b.upper);
    ck_assert_double_ge(b.upper, 1.993091404415119 * (1.0 - 1e-12));
    ck_assert_double_le(b.upper, 1.993091404415119 * (1.0 + 1e-9));
    dpa_filter_free(f);
}
END_TEST

/* rho = 0.5 in steps of 0.125: four fit exactly.  Its eps at 1e-5 lies
 * between the best CKS conversion, inf over alpha of rho alpha + (ln(1/delta)
 * + (alpha - 1) ln(1 - 1/alpha) - ln alpha)/(alpha - 1) = 4.728386984943
 * (mpmath, alpha = 5.4318), and the classic rho + 2 sqrt(rho ln(1/delta)) =
 * 5.298525912188. */
START_TEST(zcdp_stops_exactly)
{
    dpa_error err = { 0 };
    dpa_filter *f = dpa_filter_new(DPA_FILTER_ZCDP, 0.5, 0.0, &err);
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 4; i++) ck_assert_int_eq(try_step(f, 0.125, 0.0), 1);
    ck_assert_int_eq(try_step(f, 1e-12, 0.0), 0);
    dpa_bound b;
    ck_assert_int_eq(dpa_filter_epsilon(f, 1e-5, &b, &err), DPA_OK);
    printf("zcdp filter: eps %.10f (CKS 4.728386985, classic 5.298525912)\n", b.upper);
    ck_assert_double_ge(b.upper, 4.728386984943 * (1.0 - 1e-9));
    ck_assert_double_le(b.upper, 5.298525912188);
    dpa_filter_free(f);
}
END_TEST

/* Inexact costs: the double 0.1 never sums to exactly 1; the admitted
 * costs, summed in long double here, never exceed the budget. */
START_TEST(inexact_costs_never_exceed)
{
    const dpa_filter_kind kinds[3] = { DPA_FILTER_BASIC, DPA_FILTER_ZCDP, DPA_FILTER_GDP };
    for (int k = 0; k < 3; k++) {
        dpa_error err = { 0 };
        dpa_filter *f = dpa_filter_new(kinds[k], 1.0, 0.0, &err);
        long double sum = 0.0L;
        int admitted = 0;
        for (int i = 0; i < 200; i++) {
            double c = k == 2 ? sqrt(0.01) : 0.1;
            if (try_step(f, c, 0.0)) {
                admitted++;
                sum += k == 2 ? (long double)c * c : (long double)c;
            }
        }
        printf("filter %d: %d steps of 0.1 (or mu 0.1) admitted, sum %.21Lg\n", k, admitted, sum);
        ck_assert(sum <= 1.0L);
        /* the double 0.1 is a little above 1/10: in exact rational
         * arithmetic (Python's fractions) 10 of them exceed 1 and 9 do not,
         * and 100 squares exceed 1 where 99 do not, so the filter must stop
         * at exactly 9 (99 for gdp) */
        ck_assert_int_eq(admitted, k == 2 ? 99 : 9);
        dpa_filter_free(f);
    }
}
END_TEST

START_TEST(bad_input)
{
    dpa_error err = { 0 };
    ck_assert_ptr_null(dpa_filter_new(DPA_FILTER_GDP, 0.0, 0.0, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "budget"));
    ck_assert_ptr_null(dpa_filter_new(DPA_FILTER_BASIC, 1.0, 1.0, &err));
    ck_assert_ptr_null(dpa_filter_new(DPA_FILTER_ZCDP, 1.0, 1e-5, &err));
    ck_assert_ptr_null(dpa_filter_new((dpa_filter_kind)9, 1.0, 0.0, &err));
    dpa_filter *f = dpa_filter_new(DPA_FILTER_ZCDP, 1.0, 0.0, &err);
    int admitted = 1;
    ck_assert_int_eq(dpa_filter_try(f, NAN, 0.0, &admitted, &err), DPA_EINVAL);
    ck_assert_int_eq(admitted, 0);
    ck_assert_int_eq(dpa_filter_try(f, -0.1, 0.0, &admitted, &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_filter_try(f, 0.1, 0.5, &admitted, &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_filter_try(NULL, 0.1, 0.0, &admitted, &err), DPA_EINVAL);
    uint64_t n = 9;
    ck_assert_int_eq(dpa_filter_spent(f, NULL, NULL, &n), DPA_OK);
    ck_assert_uint_eq(n, 0);                          /* nothing was charged */
    dpa_bound b;
    ck_assert_int_eq(dpa_filter_epsilon(f, 0.0, &b, &err), DPA_EINVAL);
    dpa_filter_free(f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("filter");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, basic_stops_exactly);
    tcase_add_test(tc, gdp_stops_exactly);
    tcase_add_test(tc, zcdp_stops_exactly);
    tcase_add_test(tc, inexact_costs_never_exceed);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
