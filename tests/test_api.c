/*
 * test_api.c - the robustness of the public API (issue 17, item 4): every
 * function of dpacct.h given NULL for each pointer argument returns
 * DPA_EINVAL with a message naming the argument (or its documented
 * sentinel), nesting is bounded by DPA_MAX_EVENT_DEPTH and every walk is
 * safe at that depth, the rdp grid is bounded by DPA_MAX_ORDERS (any
 * finite order > 1 answers soundly) and counts never overflow.
 */
#include <config.h>

#include "dpacct.h"
#include "internal.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* `call` (which passes &err) fails with DPA_EINVAL, both as its status and
 * in err, whose message contains `word` (the argument's name). */
#define EXPECT_EINVAL(call, word)                                                                    \
    do {                                                                                             \
        dpa_error err = { 0 };                                                                       \
        int st_ = (call);                                                                            \
        ck_assert_msg(st_ == DPA_EINVAL, "%s: status %d, expected DPA_EINVAL", #call, st_);          \
        ck_assert_int_eq(err.status, DPA_EINVAL);                                                    \
        ck_assert_msg(strstr(err.message, word) != NULL, "%s: message '%s' does not name '%s'", #call, \
                      err.message, word);                                                            \
    } while (0)

/* The same for a constructor: NULL and DPA_EINVAL in err. */
#define EXPECT_NULL(call, word)                                                                      \
    do {                                                                                             \
        dpa_error err = { 0 };                                                                       \
        const void *p_ = (call);                                                                     \
        ck_assert_msg(p_ == NULL, "%s returned an object", #call);                                   \
        ck_assert_int_eq(err.status, DPA_EINVAL);                                                    \
        ck_assert_msg(strstr(err.message, word) != NULL, "%s: message '%s' does not name '%s'", #call, \
                      err.message, word);                                                            \
    } while (0)

static dpa_event *gaussian(double sigma)
{
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_gaussian(sigma, &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    return e;
}

static dpa_accountant *accountant(const char *method)
{
    dpa_error err = { 0 };
    dpa_accountant *a = dpa_accountant_new(method, NULL, &err);
    ck_assert_msg(a != NULL, "%s", err.message);
    return a;
}

static dpa_event *by_sigma(double sigma, void *ctx, dpa_error *err)
{
    (void)ctx;
    return dpa_event_gaussian(sigma, err);
}

/* ---- NULL arguments ------------------------------------------------------ */

START_TEST(null_status_functions)
{
    dpa_bound b;
    double x;
    uint64_t k;
    EXPECT_EINVAL(dpa_gdp_delta(1.0, 1.0, NULL, &err), "out");
    EXPECT_EINVAL(dpa_gdp_epsilon(1.0, 1e-5, NULL, &err), "out");
    EXPECT_EINVAL(dpa_gdp_mu(1.0, 1e-5, NULL, &err), "out");
    EXPECT_EINVAL(dpa_gaussian_sigma(1.0, 1e-5, NULL, &err), "out");
    EXPECT_EINVAL(dpa_truncated_laplace_bound(1.0, 1.0, 1e-5, NULL, &err), "output");
    EXPECT_EINVAL(dpa_gsm_rdp(2.0, 1, (const double[]){ 1.1 }, 1, NULL, &err), "output");
    EXPECT_EINVAL(dpa_gsm_rdp(2.0, 1, NULL, 3, &x, &err), "mu");
    EXPECT_EINVAL(dpa_gsm_max_samples(0.1, 0, 1.0, 1e-5, NULL, NULL, &err), "output");
    dpa_noisy_cgd_params p = { 1.0, 2.0, 0.5, 1.0, 1.0, 10, 5 };
    EXPECT_EINVAL(dpa_noisy_cgd_mu(NULL, &x, &err), "(p)");
    EXPECT_EINVAL(dpa_noisy_cgd_mu(&p, NULL, &err), "(mu)");
    EXPECT_EINVAL(dpa_shuffled_gaussian_epsilon(1.0, 100, 1e-5, NULL, &err), "output");
    EXPECT_EINVAL(dpa_shuffle_closed_form(0.5, 100000, 1e-5, NULL, &err), "output");

    /* the closed forms still work, and err may be NULL */
    ck_assert_int_eq(dpa_gdp_delta(1.0, 1.0, &b, NULL), DPA_OK);
    ck_assert_int_eq(dpa_gdp_delta(1.0, 1.0, NULL, NULL), DPA_EINVAL);
    ck_assert_int_eq(dpa_gaussian_sigma(1.0, 1e-5, NULL, NULL), DPA_EINVAL);
    ck_assert_int_eq(dpa_gsm_max_samples(0.1, 0, 5.0, 1e-5, NULL, &k, NULL), DPA_OK);
    ck_assert_uint_gt(k, 0);
}
END_TEST

START_TEST(null_events)
{
    EXPECT_NULL(dpa_event_noisy_cgd(NULL, &err), "parameters");
    /* wrappers: a NULL child is an error (kept if the child set one) */
    EXPECT_NULL(dpa_event_poisson_sampled(0.1, NULL, &err), "inner");
    EXPECT_NULL(dpa_event_sampled_without_replacement(10, 2, NULL, &err), "inner");
    EXPECT_NULL(dpa_event_sampled_with_replacement(10, 2, NULL, &err), "inner");
    EXPECT_NULL(dpa_event_random_allocation(10, 1, NULL, &err), "inner");
    EXPECT_NULL(dpa_event_self_composed(NULL, 3, &err), "inner");
    EXPECT_NULL(dpa_event_repeated_selected(NULL, DPA_REPEAT_POISSON, 2.0, 0.0, &err), "inner");
    EXPECT_NULL(dpa_event_composed(NULL, 3, &err), "events");
    EXPECT_NULL(dpa_event_composed(NULL, 0, &err), "events");
    EXPECT_NULL(dpa_event_mixture_of_gaussians(1.0, NULL, (const double[]){ 1.0 }, 1, &err), "sensitivities");
    EXPECT_NULL(dpa_event_mixture_of_gaussians(1.0, (const double[]){ 1.0 }, NULL, 1, &err), "probabilities");
    EXPECT_NULL(dpa_event_copy(NULL, &err), "NULL");
    ck_assert_ptr_null(dpa_event_composed(NULL, 3, NULL));
    ck_assert_ptr_null(dpa_event_copy(NULL, NULL));
    dpa_event_free(NULL);

    /* read access: the documented sentinels */
    ck_assert_int_eq(dpa_event_get_kind(NULL), DPA_EVENT_INVALID);
    ck_assert_str_eq(dpa_event_kind_name(dpa_event_get_kind(NULL)), "unknown");
    ck_assert_str_eq(dpa_event_kind_name((dpa_event_kind)12345), "unknown");
    ck_assert(isnan(dpa_event_param(NULL, 0)));
    ck_assert_uint_eq(dpa_event_count(NULL, 0), 0);
    ck_assert_uint_eq(dpa_event_num_children(NULL), 0);
    ck_assert_uint_eq(dpa_event_num_components(NULL), 0);
    ck_assert(isnan(dpa_event_component_sensitivity(NULL, 0)));
    ck_assert(isnan(dpa_event_component_probability(NULL, 0)));
    ck_assert_ptr_null(dpa_event_child(NULL, 0));
    ck_assert_uint_eq(dpa_event_depth(NULL), 0);
    char buf[64] = "junk";
    ck_assert_uint_eq(dpa_event_describe(NULL, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    ck_assert_uint_eq(dpa_event_describe(NULL, NULL, 0), 0);

    /* a real event: out-of-range indices, a NULL buffer */
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_poisson_sampled(0.5, gaussian(2.0), &err);
    ck_assert_ptr_nonnull(e);
    ck_assert(isnan(dpa_event_param(e, 99)));
    ck_assert_uint_eq(dpa_event_count(e, 99), 0);
    ck_assert_ptr_null(dpa_event_child(e, 1));
    ck_assert_uint_eq(dpa_event_depth(e), 1);
    ck_assert_uint_eq(dpa_event_depth(dpa_event_child(e, 0)), 0);
    size_t need = dpa_event_describe(e, NULL, 0);
    ck_assert_uint_gt(need, 0);
    ck_assert_uint_eq(dpa_event_describe(e, NULL, 100), need);   /* NULL buf with a size: nothing written */
    ck_assert_uint_eq(dpa_event_describe(e, buf, sizeof buf), need);
    ck_assert_str_eq(buf, "poisson(q=0.5, gaussian(sigma=2))");
    dpa_event_free(e);

    ck_assert_uint_eq(dpa_bound_describe(DPA_EXACT, NULL, 100), strlen("exact"));
    ck_assert_uint_eq(dpa_bound_describe(DPA_EXACT, NULL, 0), strlen("exact"));
    ck_assert_ptr_nonnull(dpa_strerror(DPA_EINVAL));
    ck_assert_ptr_nonnull(dpa_version());
}
END_TEST

START_TEST(null_accountants)
{
    dpa_options_init(NULL);
    ck_assert_ptr_null(dpa_accountant_summary(NULL));
    ck_assert_ptr_nonnull(dpa_accountant_names());
    EXPECT_NULL(dpa_accountant_new(NULL, NULL, &err), "method");
    dpa_options opt;
    dpa_options_init(&opt);
    opt.num_orders = 3;
    EXPECT_NULL(dpa_accountant_new("rdp", &opt, &err), "orders");
    ck_assert_ptr_null(dpa_accountant_name(NULL));

    dpa_accountant *a = accountant("rdp");
    ck_assert_str_eq(dpa_accountant_name(a), "rdp");
    dpa_event *e = gaussian(1.0);
    dpa_bound b;
    double v, o[4], ev[4];
    size_t n;
    EXPECT_EINVAL(dpa_accountant_supports(NULL, e, &err), "accountant");
    EXPECT_EINVAL(dpa_accountant_supports(a, NULL, &err), "event");
    EXPECT_EINVAL(dpa_accountant_compose(NULL, e, &err), "accountant");
    EXPECT_EINVAL(dpa_accountant_compose(a, NULL, &err), "event");
    EXPECT_EINVAL(dpa_accountant_epsilon(NULL, 1e-5, &b, &err), "accountant");
    EXPECT_EINVAL(dpa_accountant_epsilon(a, 1e-5, NULL, &err), "out");
    EXPECT_EINVAL(dpa_accountant_delta(NULL, 1.0, &b, &err), "accountant");
    EXPECT_EINVAL(dpa_accountant_delta(a, 1.0, NULL, &err), "out");
    EXPECT_EINVAL(dpa_accountant_state(NULL, &v, NULL, &err), "accountant");
    EXPECT_EINVAL(dpa_accountant_state(a, NULL, NULL, &err), "value");
    EXPECT_EINVAL(dpa_accountant_rdp_curve(NULL, o, ev, 4, &n, &err), "accountant");
    EXPECT_EINVAL(dpa_accountant_rdp_curve(a, NULL, ev, 4, &n, &err), "orders");
    EXPECT_EINVAL(dpa_accountant_rdp_curve(a, o, NULL, 4, &n, &err), "eps");
    EXPECT_EINVAL(dpa_accountant_rdp_curve(a, o, ev, 4, NULL, &err), "(n)");
    EXPECT_EINVAL(dpa_accountant_pld(NULL, 0, 1, &(dpa_pld_view){ 0 }, &err), "accountant");
    EXPECT_EINVAL(dpa_accountant_add_failure(NULL, 1e-9, "x", &err), "accountant");
    ck_assert_uint_eq(dpa_accountant_num_failures(NULL), 0);
    ck_assert_int_eq(dpa_accountant_failure(NULL, 0, &v, NULL), DPA_EINVAL);
    ck_assert_int_eq(dpa_accountant_failure(a, 0, &v, NULL), DPA_EINVAL);   /* none yet */

    /* the valid forms with optional NULLs */
    dpa_error xerr = { 0 };
    ck_assert_int_eq(dpa_accountant_compose(a, e, NULL), DPA_OK);
    ck_assert_int_eq(dpa_accountant_state(a, &v, NULL, &xerr), DPA_OK);
    ck_assert_int_eq(dpa_accountant_rdp_curve(a, NULL, NULL, 0, &n, &xerr), DPA_OK);
    ck_assert_uint_eq(n, 94);
    ck_assert_int_eq(dpa_accountant_add_failure(a, 1e-9, NULL, &xerr), DPA_OK);
    ck_assert_int_eq(dpa_accountant_failure(a, 0, NULL, NULL), DPA_OK);
    EXPECT_EINVAL(dpa_accountant_pld(a, 0, 1, NULL, &err), "out");
    dpa_accountant_free(a);
    dpa_accountant_free(NULL);

    a = accountant("pld");
    ck_assert_int_eq(dpa_accountant_compose(a, e, &xerr), DPA_OK);
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, &xerr), DPA_OK);
    dpa_pld_view view;
    EXPECT_EINVAL(dpa_accountant_pld(a, 0, 2, &view, &err), "upper");
    EXPECT_EINVAL(dpa_accountant_pld(a, 2, 1, &view, &err), "world");
    ck_assert_int_eq(dpa_accountant_pld(a, 0, 1, &view, &xerr), DPA_OK);
    dpa_accountant_free(a);
    dpa_event_free(e);
}
END_TEST

START_TEST(null_filters_and_calibration)
{
    dpa_error xerr = { 0 };
    dpa_filter *f = dpa_filter_new(DPA_FILTER_ZCDP, 1.0, 0.0, &xerr);
    ck_assert_ptr_nonnull(f);
    int admitted;
    dpa_bound b;
    EXPECT_EINVAL(dpa_filter_try(NULL, 0.1, 0.0, &admitted, &err), "filter");
    EXPECT_EINVAL(dpa_filter_try(f, 0.1, 0.0, NULL, &err), "admitted");
    EXPECT_EINVAL(dpa_filter_epsilon(NULL, 1e-5, &b, &err), "filter");
    EXPECT_EINVAL(dpa_filter_epsilon(f, 1e-5, NULL, &err), "out");
    ck_assert_int_eq(dpa_filter_spent(NULL, NULL, NULL, NULL), DPA_EINVAL);
    ck_assert_int_eq(dpa_filter_spent(f, NULL, NULL, NULL), DPA_OK);
    dpa_filter_free(f);
    dpa_filter_free(NULL);

    dpa_calibration_init(NULL, DPA_SEARCH_SMALLEST);
    dpa_calibration c;
    dpa_calibration_init(&c, DPA_SEARCH_SMALLEST);
    double sigma;
    uint64_t steps;
    EXPECT_EINVAL(dpa_calibrate_search(NULL, NULL, by_sigma, NULL, 1.0, 1e-5, &c, &err), "method");
    EXPECT_EINVAL(dpa_calibrate_search("gaussian", NULL, NULL, NULL, 1.0, 1e-5, &c, &err), "family");
    EXPECT_EINVAL(dpa_calibrate_search("gaussian", NULL, by_sigma, NULL, 1.0, 1e-5, NULL, &err), "spec");
    c.direction = (dpa_search)7;
    EXPECT_EINVAL(dpa_calibrate_search("gaussian", NULL, by_sigma, NULL, 1.0, 1e-5, &c, &err), "direction");
    EXPECT_EINVAL(dpa_calibrate(NULL, NULL, by_sigma, NULL, 1.0, 1e-5, 0.5, 2.0, &sigma, &err), "method");
    EXPECT_EINVAL(dpa_calibrate("gaussian", NULL, by_sigma, NULL, 1.0, 1e-5, 0.5, 2.0, NULL, &err), "param_out");
    EXPECT_EINVAL(dpa_calibrate("gaussian", NULL, NULL, NULL, 1.0, 1e-5, 0.5, 2.0, &sigma, &err), "family");
    EXPECT_EINVAL(dpa_calibrate_steps("gaussian", NULL, by_sigma, NULL, 1.0, 1e-5, NULL, &err), "steps_out");
    EXPECT_EINVAL(dpa_calibrate_steps(NULL, NULL, by_sigma, NULL, 1.0, 1e-5, &steps, &err), "method");
    ck_assert_int_eq(dpa_calibrate("gaussian", NULL, by_sigma, NULL, 1.0, 1e-5, 0.5, 8.0, &sigma, NULL), DPA_OK);
}
END_TEST

/* ---- composed lists ------------------------------------------------------- */

START_TEST(composed_lists)
{
    /* an event listed twice would be freed twice: refused, each freed once
     * (ASan checks both) */
    dpa_event *g = gaussian(1.0), *h = gaussian(2.0);
    dpa_event *twice[4] = { g, h, g, h };
    EXPECT_NULL(dpa_event_composed(twice, 4, &err), "twice");
    dpa_event *g2 = gaussian(1.0);
    dpa_event *pair[2] = { g2, g2 };
    EXPECT_NULL(dpa_event_composed(pair, 2, &err), "twice");
    /* a NULL member frees the others */
    dpa_event *holes[3] = { gaussian(1.0), NULL, gaussian(1.0) };
    EXPECT_NULL(dpa_event_composed(holes, 3, &err), "NULL");
    /* n so large that no such array exists: refused before reading it */
    dpa_event *one[1] = { NULL };
    EXPECT_NULL(dpa_event_composed(one, SIZE_MAX, &err), "n =");
    EXPECT_NULL(dpa_event_composed(one, SIZE_MAX / 4, &err), "n =");

    /* wide lists are fine: depth 1 */
    const size_t wide = 300000;
    dpa_event **many = malloc(wide * sizeof *many);
    ck_assert_ptr_nonnull(many);
    for (size_t i = 0; i < wide; i++) many[i] = gaussian(1000.0);
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_composed(many, wide, &err);
    free(many);
    ck_assert_msg(e != NULL, "%s", err.message);
    ck_assert_uint_eq(dpa_event_num_children(e), wide);
    ck_assert_uint_eq(dpa_event_depth(e), 1);
    dpa_accountant *a = accountant("gaussian");
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_OK);
    double sigma;
    ck_assert_int_eq(dpa_accountant_state(a, &sigma, NULL, &err), DPA_OK);
    ck_assert_double_lt(fabs(sigma - 1000.0 / sqrt((double)wide)), 1e-9 * sigma);
    dpa_accountant_free(a);
    dpa_event *c = dpa_event_copy(e, &err);
    ck_assert_ptr_nonnull(c);
    dpa_event_free(c);
    dpa_event_free(e);
}
END_TEST

/* ---- nesting depth -------------------------------------------------------- */

/* 200,000 nested self-compositions: the wrapper past DPA_MAX_EVENT_DEPTH is
 * refused (and frees what it was given); the rest keep that error. */
START_TEST(deep_nesting_is_refused)
{
    dpa_error err = { 0 };
    dpa_event *e = gaussian(1.0);
    long refused_at = -1;
    for (long i = 1; i <= 200000; i++) {
        e = dpa_event_self_composed(e, 1, &err);
        if (!e && refused_at < 0) {
            refused_at = i;
            ck_assert_int_eq(err.status, DPA_EINVAL);
            ck_assert_ptr_nonnull(strstr(err.message, "DPA_MAX_EVENT_DEPTH"));
        }
        if (e) ck_assert_uint_eq(dpa_event_depth(e), (size_t)i);
    }
    if (e) {   /* without the limit: the walks that used to overflow the stack */
        char buf[16];
        dpa_event_describe(e, buf, sizeof buf);
        dpa_event_free(dpa_event_copy(e, &err));
        dpa_event_free(e);
    }
    ck_assert_ptr_null(e);
    ck_assert_int_eq(refused_at, DPA_MAX_EVENT_DEPTH + 1);
    ck_assert_int_eq(err.status, DPA_EINVAL);

    /* every wrapper kind, and composed, refuse a child at the limit */
    for (int kind = 0; kind < 7; kind++) {
        dpa_error werr = { 0 };
        dpa_event *d = gaussian(1.0);
        for (int i = 0; i < DPA_MAX_EVENT_DEPTH; i++) d = dpa_event_self_composed(d, 1, &werr);
        ck_assert_uint_eq(dpa_event_depth(d), DPA_MAX_EVENT_DEPTH);
        dpa_event *w = NULL;
        switch (kind) {
        case 0: w = dpa_event_poisson_sampled(0.5, d, &werr); break;
        case 1: w = dpa_event_sampled_without_replacement(10, 2, d, &werr); break;
        case 2: w = dpa_event_sampled_with_replacement(10, 2, d, &werr); break;
        case 3: w = dpa_event_repeated_selected(d, DPA_REPEAT_POISSON, 2.0, 0.0, &werr); break;
        case 4: w = dpa_event_self_composed(d, 2, &werr); break;
        case 5: w = dpa_event_random_allocation(10, 1, d, &werr); break;
        default: {
            dpa_event *list[2] = { gaussian(1.0), d };
            w = dpa_event_composed(list, 2, &werr);
        }
        }
        ck_assert_msg(w == NULL, "wrapper %d accepted depth %d", kind, DPA_MAX_EVENT_DEPTH + 1);
        ck_assert_int_eq(werr.status, DPA_EINVAL);
        ck_assert_ptr_nonnull(strstr(werr.message, "DPA_MAX_EVENT_DEPTH"));
    }
}
END_TEST

/* An event exactly DPA_MAX_EVENT_DEPTH deep, mixing every recursive path:
 * self_composed (mostly count 1, so the total stays small) and composed
 * lists (the rdp accountant allocates a curve per level there; a few hold
 * a second leaf), around a Poisson-sampled Gaussian or a plain one. */
static dpa_event *deepest(int sampled)
{
    dpa_error err = { 0 };
    dpa_event *e = sampled ? dpa_event_poisson_sampled(0.01, gaussian(1.0), &err) : gaussian(1.0);
    while (e && dpa_event_depth(e) < DPA_MAX_EVENT_DEPTH) {
        if (dpa_event_depth(e) % 250 == 0) {
            dpa_event *list[2] = { e, gaussian(10.0) };
            e = dpa_event_composed(list, 2, &err);
        } else if (dpa_event_depth(e) % 3 == 0) {
            e = dpa_event_composed(&e, 1, &err);
        } else {
            e = dpa_event_self_composed(e, dpa_event_depth(e) % 100 == 1 ? 2 : 1, &err);
        }
    }
    ck_assert_msg(e != NULL, "%s", err.message);
    ck_assert_uint_eq(dpa_event_depth(e), DPA_MAX_EVENT_DEPTH);
    return e;
}

static void walk_deepest(void)
{
    dpa_error err = { 0 };
    for (int sampled = 0; sampled <= 1; sampled++) {
        dpa_event *e = deepest(sampled);
        size_t need = dpa_event_describe(e, NULL, 0);
        char *text = malloc(need + 1);
        ck_assert_ptr_nonnull(text);
        ck_assert_uint_eq(dpa_event_describe(e, text, need + 1), need);
        ck_assert_uint_eq(strlen(text), need);
        ck_assert_ptr_nonnull(strstr(text, sampled ? "poisson(q=0.01, gaussian(sigma=1))" : "gaussian(sigma=1)"));
        dpa_event *c = dpa_event_copy(e, &err);
        ck_assert_ptr_nonnull(c);
        ck_assert_uint_eq(dpa_event_depth(c), DPA_MAX_EVENT_DEPTH);
        char *again = malloc(need + 1);
        ck_assert_ptr_nonnull(again);
        dpa_event_describe(c, again, need + 1);
        ck_assert_str_eq(text, again);
        free(text);
        free(again);
        dpa_event_free(c);
        /* every accountant walks it: composes and answers, or refuses */
        int answered = 0;
        for (const char *const *name = dpa_accountant_names(); *name; name++) {
            dpa_accountant *a = accountant(*name);
            dpa_error aerr = { 0 };
            int st = dpa_accountant_compose(a, e, &aerr);
            ck_assert_msg(st == DPA_OK || st == DPA_EUNSUPPORTED, "%s: %s", *name, aerr.message);
            if (st == DPA_OK) {
                dpa_bound b;
                st = dpa_accountant_epsilon(a, 1e-5, &b, &aerr);
                ck_assert_msg(st == DPA_OK || st == DPA_EACCURACY, "%s: %s", *name, aerr.message);
                ck_assert(b.upper > 0.0);
                answered++;
            }
            dpa_accountant_free(a);
        }
        /* gaussian (plain only), rdp, pld, zcdp (plain only), gdp */
        ck_assert_int_ge(answered, sampled ? 3 : 5);
        dpa_event_free(e);
    }
}

START_TEST(deepest_event_walks)
{
    walk_deepest();
}
END_TEST

static void *walk_thread(void *arg)
{
    (void)arg;
    walk_deepest();
    return NULL;
}

/* The same walks on a 2 MB thread stack, a quarter of the default: the
 * margin DPA_MAX_EVENT_DEPTH leaves, also under ASan.  (Measured at depth
 * 1000: rdp's walk, the deepest, needs under 384 KB optimised and under
 * 1 MB with ASan; describe under 256 KB, the others under 128 KB.) */
START_TEST(deepest_event_walks_on_a_small_stack)
{
    pthread_attr_t attr;
    pthread_t t;
    ck_assert_int_eq(pthread_attr_init(&attr), 0);
    ck_assert_int_eq(pthread_attr_setstacksize(&attr, (size_t)2 << 20), 0);
    ck_assert_int_eq(pthread_create(&t, &attr, walk_thread, NULL), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    pthread_attr_destroy(&attr);
}
END_TEST

/* ---- the rdp grid --------------------------------------------------------- */

START_TEST(orders_are_bounded)
{
    size_t n = DPA_MAX_ORDERS + 1;
    double *orders = malloc(n * sizeof *orders);
    ck_assert_ptr_nonnull(orders);
    for (size_t i = 0; i < n; i++) orders[i] = 1.5 + 0.01 * (double)i;
    dpa_options opt;
    dpa_options_init(&opt);
    opt.orders = orders;
    opt.num_orders = n;
    EXPECT_NULL(dpa_accountant_new("rdp", &opt, &err), "orders");
    /* 1e6 orders, the reported case */
    opt.num_orders = 1000000;
    EXPECT_NULL(dpa_accountant_new("rdp", &opt, &err), "orders");
    /* the limit itself is accepted and answers (a Gaussian costs O(1) per order) */
    opt.num_orders = DPA_MAX_ORDERS;
    dpa_error xerr = { 0 };
    dpa_accountant *a = dpa_accountant_new("rdp", &opt, &xerr);
    ck_assert_msg(a != NULL, "%s", xerr.message);
    dpa_event *e = gaussian(2.0);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &xerr), DPA_OK);
    dpa_bound b;
    ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, &xerr), DPA_OK);
    ck_assert(isfinite(b.upper) && b.upper > 0.0);
    size_t len;
    ck_assert_int_eq(dpa_accountant_rdp_curve(a, NULL, NULL, 0, &len, &xerr), DPA_OK);
    ck_assert_uint_eq(len, DPA_MAX_ORDERS);
    dpa_accountant_free(a);
    dpa_event_free(e);

    /* order values: any finite order > 1 */
    const double bad[] = { 1.0, NAN, INFINITY, -3.0 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double grid[2] = { 2.0, bad[i] };
        opt.orders = grid;
        opt.num_orders = 2;
        EXPECT_NULL(dpa_accountant_new("rdp", &opt, &err), "orders");
    }
    /* 3e9 and 2^31 used to give eps 0 (an int conversion overflowed in the
     * Poisson sum): now each answers at least the eps of one step of the
     * remove pair, 8.98145674624 (q = 0.5, sigma = 0.5, delta = 1e-5;
     * closed form evaluated with mpmath, see tests/cli/test-cli.sh), and a
     * huge order costs no more than order 65536 */
    const double huge[] = { 2147483648.0, 3e9, 1e20, 1e300 };
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        double grid[1] = { huge[i] };
        opt.orders = grid;
        opt.num_orders = 1;
        a = dpa_accountant_new("rdp", &opt, &xerr);
        ck_assert_msg(a != NULL, "%s", xerr.message);
        e = dpa_event_self_composed(dpa_event_poisson_sampled(0.5, dpa_event_gaussian(0.5, &xerr), &xerr), 1000, &xerr);
        ck_assert_int_eq(dpa_accountant_compose(a, e, &xerr), DPA_OK);
        ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, &xerr), DPA_OK);
        ck_assert_msg(b.upper >= 8.98145674624, "order %g: eps %g", huge[i], b.upper);
        dpa_accountant_free(a);
        dpa_event_free(e);
    }
    free(orders);
}
END_TEST

/* ---- counts --------------------------------------------------------------- */

static int record_times(const dpa_event *leaf, double times, void *ctx, dpa_error *err)
{
    (void)leaf; (void)err;
    *(double *)ctx = times;
    return DPA_OK;
}

START_TEST(counts_never_overflow)
{
    /* nested counts multiply in floating point, rounded up: 2^53 + 1 is not
     * a double, and the total must not be rounded down to 2^53 */
    dpa_error err = { 0 };
    const uint64_t odd = (UINT64_C(1) << 53) + 1;
    dpa_event *e = dpa_event_self_composed(gaussian(1.0), odd, &err);
    double times = 0.0;
    ck_assert_int_eq(dpa_event_visit_leaves(e, record_times, &times, &err), DPA_OK);
    ck_assert_double_gt(times, 9007199254740992.0);   /* 2^53 would be one step short */
    ck_assert_double_eq(times, nextafter(9007199254740992.0, INFINITY));
    dpa_event_free(e);
    e = dpa_event_self_composed(dpa_event_self_composed(gaussian(1.0), 3, &err), odd, &err);
    ck_assert_int_eq(dpa_event_visit_leaves(e, record_times, &times, &err), DPA_OK);
    ck_assert_double_gt(times, 3.0 * 9007199254740992.0);
    dpa_event_free(e);

    /* UINT64_MAX nested 16 times (about 1.3e308 repetitions) is refused
     * before any accountant multiplies it out; 2^40 * 2^40 is fine */
    e = gaussian(1.0);
    int refused = 0;
    for (int i = 0; i < 16 && e; i++) {
        e = dpa_event_self_composed(e, UINT64_MAX, &err);
        if (!e) refused = i + 1;
    }
    ck_assert_ptr_null(e);
    ck_assert_int_eq(refused, 16);   /* 2^(64*15) = 2^960 < 1e300 < 2^1024 */
    ck_assert_int_eq(err.status, DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "count"));
    ck_assert_ptr_nonnull(strstr(err.message, "DPA_MAX_REPETITIONS"));

    /* an epoch of random allocation runs its inner event `steps` times:
     * counted with the rest */
    e = gaussian(1.0);
    for (int i = 0; i < 15; i++) e = dpa_event_self_composed(e, UINT64_MAX, &err);
    ck_assert_ptr_nonnull(e);
    err = (dpa_error){ 0 };
    ck_assert_ptr_null(dpa_event_random_allocation(UINT64_MAX, 1, e, &err));
    ck_assert_int_eq(err.status, DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "random_allocation: steps"));
    ck_assert_ptr_nonnull(strstr(err.message, "DPA_MAX_REPETITIONS"));

    /* a huge finite total: accountants answer "no finite bound" or refuse,
     * never wrap to a small count and never return NaN */
    err = (dpa_error){ 0 };
    e = gaussian(1.0);
    for (int i = 0; i < 15; i++) e = dpa_event_self_composed(e, UINT64_MAX, &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    for (const char *const *name = dpa_accountant_names(); *name; name++) {
        dpa_accountant *a = accountant(*name);
        dpa_error aerr = { 0 };
        int st = dpa_accountant_compose(a, e, &aerr);
        if (st == DPA_OK) {
            dpa_bound b;
            st = dpa_accountant_epsilon(a, 1e-5, &b, &aerr);
            ck_assert_msg(st != DPA_OK || b.upper >= 1e100, "%s: eps %g for 2^960 Gaussians", *name, b.upper);
            ck_assert_msg(st == DPA_OK || st == DPA_EINVAL || st == DPA_EACCURACY, "%s: %d %s", *name, st,
                          aerr.message);
        } else {
            ck_assert_msg(st == DPA_EINVAL || st == DPA_EUNSUPPORTED, "%s: %d %s", *name, st, aerr.message);
            ck_assert(aerr.message[0] != '\0');
        }
        dpa_accountant_free(a);
    }
    dpa_event_free(e);

    /* a zero-cost leaf repeated 2^960 times is still zero, not NaN */
    e = dpa_event_gdp(0.0, &err);
    for (int i = 0; i < 15; i++) e = dpa_event_self_composed(e, UINT64_MAX, &err);
    ck_assert_ptr_nonnull(e);
    const char *zero_cost[] = { "gdp", "zcdp", "rdp" };
    for (size_t i = 0; i < 3; i++) {
        dpa_accountant *a = accountant(zero_cost[i]);
        dpa_error aerr = { 0 };
        ck_assert_msg(dpa_accountant_compose(a, e, &aerr) == DPA_OK, "%s: %s", zero_cost[i], aerr.message);
        dpa_bound b;
        int st = dpa_accountant_epsilon(a, 1e-5, &b, &aerr);
        ck_assert_msg(st == DPA_OK, "%s: %s", zero_cost[i], aerr.message);
        ck_assert_msg(b.upper >= 0.0 && b.upper < 1e-300, "%s: eps %g for a zero-cost mechanism", zero_cost[i],
                      b.upper);
        dpa_accountant_free(a);
    }
    dpa_event_free(e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("null");
    tcase_add_test(tc, null_status_functions);
    tcase_add_test(tc, null_events);
    tcase_add_test(tc, null_accountants);
    tcase_add_test(tc, null_filters_and_calibration);
    suite_add_tcase(s, tc);
    TCase *limits = tcase_create("limits");
    tcase_set_timeout(limits, 120);
    tcase_add_test(limits, composed_lists);
    tcase_add_test(limits, deep_nesting_is_refused);
    tcase_add_test(limits, deepest_event_walks);
    tcase_add_test(limits, deepest_event_walks_on_a_small_stack);
    tcase_add_test(limits, orders_are_bounded);
    tcase_add_test(limits, counts_never_overflow);
    suite_add_tcase(s, limits);
    return run_suite(s);
}
