/* testutil.c - small helpers shared by the Check suites. */
#include "testutil.h"
#include "dpacct.h"

#include <check.h>
#include <stdint.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

int test_quick(void)
{
    const char *v = getenv("DPACCT_TEST_QUICK");
    return v && *v && strcmp(v, "0") != 0;
}

int long_double_precision_reduced(void)
{
    volatile long double one = 1.0L, tiny = 0x1p-60L, sum;
    sum = one + tiny;
    return sum == one;
}

int long_double_range_reduced(void)
{
    /* exact in a long double of the x87 range; under valgrind the square
     * overflows (to inf or to LDBL_MAX, which valgrind's conversion makes
     * of it) */
    volatile long double big = 0x1p1000L, square;
    square = big * big;
    return !(square / big == big);
}

int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

dpa_accountant *accountant_with(const char *method, dpa_event *e)
{
    return accountant_with_options(method, NULL, e);
}

dpa_accountant *accountant_with_options(const char *method, const dpa_options *opt, dpa_event *e)
{
    dpa_error err = { 0 };
    ck_assert_msg(e != NULL, "event construction failed");
    dpa_accountant *a = dpa_accountant_new(method, opt, &err);
    ck_assert_msg(a != NULL, "%s", err.message);
    ck_assert_msg(dpa_accountant_compose(a, e, &err) == DPA_OK, "%s", err.message);
    dpa_event_free(e);
    return a;
}

void check_underflowed_lower(const char *method)
{
    dpa_error err = { 0 };
    dpa_options opt;
    dpa_options_init(&opt);
    dpa_accountant *a = dpa_accountant_new(method, &opt, &err);
    dpa_event *e = dpa_event_self_composed(dpa_event_gaussian(1e300, &err), UINT64_C(2518612171786225152), &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_OK);
    dpa_bound b;
    ck_assert_int_eq(dpa_accountant_delta(a, 0.0, &b, &err), DPA_OK);
    double mu = sqrt(2518612171786225152.0) / 1e300, truth = mu / sqrt(2.0 * M_PI);   /* erf(mu / (2 sqrt 2)) */
    ck_assert_msg(b.lower <= truth * (1.0 + 1e-12), "%s: lower %g above the truth %g", method, b.lower, truth);
    ck_assert_double_ge(b.upper, truth);
    dpa_event_free(e);
    dpa_accountant_free(a);
}

void assert_same_event(const dpa_event *a, const dpa_event *b)
{
    ck_assert_int_eq(dpa_event_get_kind(a), dpa_event_get_kind(b));
    for (unsigned i = 0; i < 5; i++) {
        double x = dpa_event_param(a, i), y = dpa_event_param(b, i);
        ck_assert_msg((isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof x) == 0, "%s param %u: %.17g vs %.17g",
                      dpa_event_kind_name(dpa_event_get_kind(a)), i, x, y);
    }
    for (unsigned i = 0; i < 2; i++) ck_assert_uint_eq(dpa_event_count(a, i), dpa_event_count(b, i));
    ck_assert_uint_eq(dpa_event_num_components(a), dpa_event_num_components(b));
    for (size_t i = 0; i < dpa_event_num_components(a); i++) {
        double c[2] = { dpa_event_component_sensitivity(a, i), dpa_event_component_probability(a, i) };
        double d[2] = { dpa_event_component_sensitivity(b, i), dpa_event_component_probability(b, i) };
        ck_assert_msg(memcmp(c, d, sizeof c) == 0, "component %zu: (%.17g, %.17g) vs (%.17g, %.17g)", i, c[0], c[1],
                      d[0], d[1]);
    }
    ck_assert_uint_eq(dpa_event_num_children(a), dpa_event_num_children(b));
    for (size_t i = 0; i < dpa_event_num_children(a); i++)
        assert_same_event(dpa_event_child(a, i), dpa_event_child(b, i));
}
