/*
 * test_events.c - event construction, ownership, validation and the
 * generic accountant/registry layer.
 */
#include <config.h>

#include "dpacct.h"
#include "testutil.h"
#include "internal.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Each leaf constructor refuses NaN, infinities, zero or negative values,
 * says so with DPA_EINVAL and names the parameter. */
START_TEST(leaves_reject_bad_parameters)
{
    const double bad[] = { NAN, INFINITY, -INFINITY, -1.0, 0.0 };
    for (size_t i = 0; i < 5; i++) {
        double x = bad[i];
        dpa_error err = { 0 };
        struct { dpa_event *e; const char *name; } cases[] = {
            { dpa_event_gaussian(x, &err), "noise multiplier" },
            { dpa_event_laplace(x, &err), "noise multiplier" },
            { dpa_event_randomized_response(x, 2, &err), "epsilon" },
            { dpa_event_discrete_gaussian(x, 1, &err), "sigma" },
            { dpa_event_discrete_laplace(x, 1, &err), "scale" },
            { dpa_event_exponential(x, &err), "epsilon" },
            { dpa_event_tree_aggregation(x, 10, 0, &err), "noise multiplier" },
            { dpa_event_shuffled(x, 10, &err), "eps0" },
        };
        for (size_t j = 0; j < sizeof cases / sizeof cases[0]; j++) {
            ck_assert_msg(cases[j].e == NULL, "case %zu accepted %g", j, x);
            err.status = 0;
        }
        /* re-run one by one to check the messages */
        dpa_error e1 = { 0 };
        ck_assert_ptr_null(dpa_event_gaussian(x, &e1));
        ck_assert_int_eq(e1.status, DPA_EINVAL);
        ck_assert_ptr_nonnull(strstr(e1.message, "noise multiplier"));
        dpa_error e2 = { 0 };
        ck_assert_ptr_null(dpa_event_shuffled(x, 10, &e2));
        ck_assert_ptr_nonnull(strstr(e2.message, "eps0"));
    }
    dpa_error err = { 0 };
    ck_assert_ptr_null(dpa_event_randomized_response(1.0, 1, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "k must"));
    ck_assert_ptr_null(dpa_event_epsilon_delta(1.0, 1.0, &err));
    ck_assert_ptr_null(dpa_event_epsilon_delta(-1.0, 0.0, &err));
    ck_assert_ptr_null(dpa_event_zcdp(NAN, 0.0, &err));
    ck_assert_ptr_null(dpa_event_zcdp(1.0, -1.0, &err));
    ck_assert_ptr_null(dpa_event_gdp(-0.5, &err));
    ck_assert_ptr_null(dpa_event_discrete_gaussian(1.0, 0, &err));
    ck_assert_ptr_null(dpa_event_tree_aggregation(1.0, 0, 0, &err));
    ck_assert_ptr_null(dpa_event_shuffled(1.0, 0, &err));
    ck_assert_ptr_null(dpa_event_noisy_cgd(NULL, &err));
    dpa_noisy_cgd_params p = { 1.0, 2.0, 0.5, 1.0, 1.0, 10, 5 };
    dpa_event *ok = dpa_event_noisy_cgd(&p, &err);
    ck_assert_ptr_nonnull(ok);
    dpa_event_free(ok);
    p.step_size = 1.0; /* = 2/M: not contractive */
    ck_assert_ptr_null(dpa_event_noisy_cgd(&p, &err));
    ck_assert_ptr_nonnull(strstr(err.message, "step size"));
}
END_TEST

/* Wrappers own their child even when they refuse (ASan checks for leaks),
 * and a NULL child's error is kept, not overwritten. */
START_TEST(wrappers_own_children_and_propagate_errors)
{
    dpa_error err = { 0 };
    ck_assert_ptr_null(dpa_event_poisson_sampled(1.5, dpa_event_gaussian(1.0, &err), &err));
    ck_assert_ptr_nonnull(strstr(err.message, "sampling rate"));
    ck_assert_ptr_null(dpa_event_poisson_sampled(0.0, dpa_event_gaussian(1.0, &err), &err));
    ck_assert_ptr_null(dpa_event_poisson_sampled(NAN, dpa_event_gaussian(1.0, &err), &err));
    ck_assert_ptr_null(dpa_event_self_composed(dpa_event_gaussian(1.0, &err), 0, &err));
    ck_assert_ptr_null(dpa_event_sampled_without_replacement(10, 11, dpa_event_gaussian(1.0, &err), &err));
    ck_assert_ptr_null(dpa_event_sampled_without_replacement(10, 0, dpa_event_gaussian(1.0, &err), &err));
    ck_assert_ptr_null(dpa_event_repeated_selected(dpa_event_gaussian(1.0, &err), 7, 1, 1, &err));
    ck_assert_ptr_null(dpa_event_repeated_selected(dpa_event_gaussian(1.0, &err), DPA_REPEAT_POISSON, -1, 0, &err));
    ck_assert_ptr_null(dpa_event_repeated_selected(dpa_event_gaussian(1.0, &err),
                                                   DPA_REPEAT_TRUNCATED_NEGATIVE_BINOMIAL, 1, 1.5, &err));

    /* the innermost error survives the nesting */
    dpa_error nested = { 0 };
    dpa_event *e = dpa_event_self_composed(
        dpa_event_poisson_sampled(0.1, dpa_event_gaussian(-2.0, &nested), &nested), 10, &nested);
    ck_assert_ptr_null(e);
    ck_assert_int_eq(nested.status, DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(nested.message, "gaussian"));

    /* a NULL child without an error set is itself an error */
    dpa_error fresh = { 0 };
    ck_assert_ptr_null(dpa_event_self_composed(NULL, 3, &fresh));
    ck_assert_int_eq(fresh.status, DPA_EINVAL);
    ck_assert_ptr_null(dpa_event_self_composed(NULL, 3, NULL));  /* err may be NULL */

    /* composed: frees every member when one is missing */
    dpa_event *parts[3] = { dpa_event_gaussian(1.0, &err), NULL, dpa_event_laplace(1.0, &err) };
    dpa_error ce = { 0 };
    ck_assert_ptr_null(dpa_event_composed(parts, 3, &ce));
    ck_assert_int_eq(ce.status, DPA_EINVAL);
    ck_assert_ptr_null(dpa_event_composed(parts, 0, &ce));
}
END_TEST

START_TEST(describe_copy_and_accessors)
{
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_self_composed(
        dpa_event_poisson_sampled(0.004, dpa_event_gaussian(1.1, &err), &err), 14063, &err);
    ck_assert_ptr_nonnull(e);
    char buf[256];
    size_t n = dpa_event_describe(e, buf, sizeof buf);
    ck_assert_str_eq(buf, "self_composed(count=14063, poisson(q=0.004, gaussian(sigma=1.1)))");
    ck_assert_uint_eq(n, strlen(buf));
    /* truncation reports the full length and stays terminated */
    char small[8];
    ck_assert_uint_eq(dpa_event_describe(e, small, sizeof small), n);
    ck_assert_uint_eq(strlen(small), 7);
    dpa_event *c = dpa_event_copy(e, &err);
    dpa_event_free(e);
    ck_assert_int_eq(dpa_event_get_kind(c), DPA_EVENT_SELF_COMPOSED);
    ck_assert_uint_eq(dpa_event_count(c, 0), 14063);
    ck_assert_uint_eq(dpa_event_num_children(c), 1);
    const dpa_event *p = dpa_event_child(c, 0);
    ck_assert_double_eq(dpa_event_param(p, 0), 0.004);
    ck_assert_ptr_null(dpa_event_child(c, 1));
    ck_assert(isnan(dpa_event_param(c, 0)));
    ck_assert(isnan(dpa_event_param(c, 99)));
    ck_assert_str_eq(dpa_event_kind_name(DPA_EVENT_SHUFFLED), "shuffled");
    ck_assert_str_eq(dpa_event_kind_name((dpa_event_kind)999), "unknown");
    dpa_event_free(c);
    dpa_event_free(NULL);
}
END_TEST

/* Every registered name creates an accountant with that name, and unknown
 * names and bad options are refused. */
START_TEST(registry_and_options)
{
    const char *const *names = dpa_accountant_names();
    size_t count = 0;
    for (; names[count]; count++) {
        dpa_error err = { 0 };
        dpa_accountant *a = dpa_accountant_new(names[count], NULL, &err);
        ck_assert_ptr_nonnull(a);
        ck_assert_str_eq(dpa_accountant_name(a), names[count]);
        ck_assert_ptr_nonnull(dpa_accountant_summary(names[count]));
        dpa_accountant_free(a);
    }
    ck_assert_uint_ge(count, 3);
    /* the name list and the registry table are the same, in the same order */
    for (size_t i = 0; i <= count; i++) {
        if (i == count) { ck_assert_ptr_null(dpa_registry[i]); break; }
        ck_assert_ptr_nonnull(dpa_registry[i]);
        ck_assert_str_eq(dpa_registry[i]->name, names[i]);
    }
    dpa_error err = { 0 };
    ck_assert_ptr_null(dpa_accountant_new("nosuch", NULL, &err));
    ck_assert_int_eq(err.status, DPA_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "nosuch"));
    ck_assert_ptr_null(dpa_accountant_new(NULL, NULL, &err));
    ck_assert_ptr_null(dpa_accountant_summary("nosuch"));
    dpa_options opt;
    dpa_options_init(&opt);
    ck_assert_int_eq(opt.relation, DPA_ADD_REMOVE);
    opt.relation = (dpa_relation)5;
    ck_assert_ptr_null(dpa_accountant_new("gaussian", &opt, &err));
    ck_assert_int_eq(err.status, DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "relation"));
    dpa_options_init(&opt);
    opt.tolerance = NAN;
    ck_assert_ptr_null(dpa_accountant_new("gaussian", &opt, &err));
    dpa_accountant_free(NULL);
}
END_TEST

START_TEST(queries_validate_arguments)
{
    dpa_error err = { 0 };
    dpa_accountant *a = dpa_accountant_new("gaussian", NULL, &err);
    dpa_bound b;
    const double bad_delta[] = { 0.0, 1.0, -0.1, 2.0, NAN };
    for (size_t i = 0; i < 5; i++) {
        ck_assert_int_eq(dpa_accountant_epsilon(a, bad_delta[i], &b, &err), DPA_EINVAL);
        ck_assert_ptr_nonnull(strstr(err.message, "delta"));
    }
    const double bad_eps[] = { -1.0, NAN, INFINITY };
    for (size_t i = 0; i < 3; i++) ck_assert_int_eq(dpa_accountant_delta(a, bad_eps[i], &b, &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, NULL, &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_accountant_epsilon(NULL, 1e-5, &b, &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_accountant_compose(a, NULL, &err), DPA_EINVAL);
    dpa_accountant_free(a);
}
END_TEST

START_TEST(status_strings_and_flag_words)
{
    const int codes[] = { DPA_OK, DPA_EINVAL, DPA_ENOMEM, DPA_EUNSUPPORTED, DPA_EACCURACY,
                          DPA_ENOTFOUND, DPA_ENOBRACKET, DPA_EINTERNAL };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        ck_assert_ptr_nonnull(dpa_strerror(codes[i]));
        ck_assert_str_ne(dpa_strerror(codes[i]), "unknown status code");
    }
    ck_assert_str_eq(dpa_strerror(-999), "unknown status code");
    char buf[128];
    dpa_bound_describe(DPA_APPROXIMATE | DPA_NO_LOWER, buf, sizeof buf);
    ck_assert_str_eq(buf, "approximate (not a guarantee), no lower bound");
    ck_assert_uint_eq(dpa_bound_describe(0, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    ck_assert_str_eq(dpa_version(), PACKAGE_VERSION);
}
END_TEST

/* Self-composition counts multiply without overflow: 2^40 * 2^40 steps of
 * sigma = 2^40 is one Gaussian with sigma = 1. */
START_TEST(nested_counts_multiply)
{
    dpa_error err = { 0 };
    double big = 1099511627776.0; /* 2^40 */
    dpa_event *e = dpa_event_self_composed(
        dpa_event_self_composed(dpa_event_gaussian(big, &err), 1ull << 40, &err), 1ull << 40, &err);
    dpa_accountant *a = dpa_accountant_new("gaussian", NULL, &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_OK);
    double sigma;
    ck_assert_int_eq(dpa_accountant_state(a, &sigma, NULL, &err), DPA_OK);
    ck_assert_double_eq(sigma, 1.0);
    dpa_accountant_free(a);
    dpa_event_free(e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("events");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, leaves_reject_bad_parameters);
    tcase_add_test(tc, wrappers_own_children_and_propagate_errors);
    tcase_add_test(tc, describe_copy_and_accessors);
    tcase_add_test(tc, registry_and_options);
    tcase_add_test(tc, queries_validate_arguments);
    tcase_add_test(tc, status_strings_and_flag_words);
    tcase_add_test(tc, nested_counts_multiply);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
