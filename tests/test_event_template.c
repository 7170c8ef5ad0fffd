/*
 * test_event_template.c - events with one parameter left open ("?") for
 * calibration (dpa_event_template_*), and events as text under a locale
 * whose decimal point is a comma.
 *
 * References: the events the constructors build (a filled template must
 * be the same tree, bit for bit); closed forms for the calibrations
 * (T Gaussian releases of noise sigma are one of noise sigma / sqrt(T), so
 * the largest T within the epsilon of mu = 1 is sigma^2 exactly).
 */
#include <config.h>

#define _POSIX_C_SOURCE 200809L
#include "dpacct.h"
#include "testutil.h"

#include <check.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* epsilon of the mu = 1 Gaussian at delta = 1e-5: scipy's brentq on the
 * closed form of Balle & Wang (ICML 2018), as in tests/cli/test-cli.sh */
#define EPS_MU1 4.3771780956812246

static dpa_event_template *template_ok(const char *text)
{
    dpa_error err = { 0 };
    dpa_event_template *t = dpa_event_template_new(text, strlen(text), &err);
    ck_assert_msg(t != NULL, "%s: %s", text, err.message);
    return t;
}


/* A template filled with a value is the event the constructors build with
 * it; the hole says which parameter it is and which way to search. */
START_TEST(templates_fill_their_hole)
{
    dpa_error err = { 0 };
    dpa_event_hole h;
    /* text: a noise scale */
    dpa_event_template *t = template_ok("self_composed(count=100, laplace(scale=?))");
    ck_assert_int_eq(dpa_event_template_hole(t, &h, &err), DPA_OK);
    ck_assert_int_eq(h.kind, DPA_EVENT_LAPLACE);
    ck_assert_str_eq(h.name, "scale");
    ck_assert_int_eq(h.is_count, 0);
    ck_assert_int_eq(h.direction, DPA_SEARCH_SMALLEST);
    ck_assert(h.limit_lo > 0.0 && h.limit_lo <= h.start && h.start <= h.limit_hi);
    dpa_event *got = dpa_event_template_family(2.5, t, &err);
    ck_assert_msg(got != NULL, "%s", err.message);
    dpa_event *want = dpa_event_self_composed(dpa_event_laplace(2.5, &err), 100, &err);
    assert_same_event(got, want);
    dpa_event_free(got);
    dpa_event_free(want);
    ck_assert_ptr_null(dpa_event_template_family(-1.0, t, &err));   /* the constructor refuses it */
    ck_assert_int_eq(err.status, DPA_EINVAL);
    dpa_event_template_free(t);

    /* JSON: a sampling rate, the "?" a string */
    const char *json = "{\"kind\": \"poisson\", \"q\": \"?\", \"event\": {\"kind\": \"gaussian\", \"sigma\": 1.25}}";
    t = template_ok(json);
    ck_assert_int_eq(dpa_event_template_hole(t, &h, &err), DPA_OK);
    ck_assert_int_eq(h.kind, DPA_EVENT_POISSON_SAMPLED);
    ck_assert_str_eq(h.name, "q");
    ck_assert_int_eq(h.direction, DPA_SEARCH_LARGEST);
    ck_assert(h.limit_hi == 1.0);
    got = dpa_event_template_family(0.25, t, &err);
    want = dpa_event_poisson_sampled(0.25, dpa_event_gaussian(1.25, &err), &err);
    assert_same_event(got, want);
    dpa_event_free(got);
    dpa_event_free(want);
    dpa_event_template_free(t);

    /* a count: whole numbers only; a batch size: at most the dataset */
    t = template_ok("self_composed(count=?, gaussian(sigma=2))");
    ck_assert_int_eq(dpa_event_template_hole(t, &h, &err), DPA_OK);
    ck_assert_int_eq(h.is_count, 1);
    ck_assert_int_eq(h.direction, DPA_SEARCH_LARGEST);
    ck_assert_ptr_null(dpa_event_template_family(3.5, t, &err));
    ck_assert_msg(strstr(err.message, "whole number") != NULL, "%s", err.message);
    got = dpa_event_template_family(7.0, t, &err);
    ck_assert_uint_eq(dpa_event_count(got, 0), 7);
    dpa_event_free(got);
    dpa_event_template_free(t);
    t = template_ok("without_replacement(n=640, m=?, gaussian(sigma=1))");
    ck_assert_int_eq(dpa_event_template_hole(t, &h, &err), DPA_OK);
    ck_assert(h.limit_hi == 640.0);
    dpa_calibration c;
    ck_assert_int_eq(dpa_event_template_calibration(t, &c, &err), DPA_OK);
    ck_assert(c.integer && c.limit_hi == 640.0 && c.direction == DPA_SEARCH_LARGEST);
    ck_assert(c.lo >= c.limit_lo && c.hi <= c.limit_hi && c.lo < c.hi);
    dpa_event_template_free(t);
}
END_TEST

/* Mistakes: no "?", two, one where calibration cannot search, a "?"
 * outside a template; NULLs. */
START_TEST(template_mistakes)
{
    static const struct { const char *text; const char *says; } bad[] = {
        { "gaussian(sigma=1)", "no parameter is left open" },
        { "compose(gaussian(sigma=?), laplace(scale=?))", "position 42: scale: a second '?'" },
        { "epsilon_delta(eps=1, delta=?)", "position 28: epsilon_delta's delta cannot be left open" },
        { "without_replacement(n=?, m=10, gaussian(sigma=1))", "without_replacement's n cannot be left open" },
        { "gaussian(sigma=?", "expected ',' or ')'" },
        { "poisson(q=?, gaussian(sigma=0))", "noise multiplier must be positive" },
        { "{\"kind\": \"gaussian\", \"sigma\": \"??\"}", "needs a number, got a string" },
        { "{\"kind\": \"gaussian\", \"sigma\": 1}", "no parameter is left open" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dpa_error err = { 0 };
        dpa_event_template *t = dpa_event_template_new(bad[i].text, strlen(bad[i].text), &err);
        ck_assert_msg(t == NULL, "accepted: %s", bad[i].text);
        ck_assert_int_eq(err.status, DPA_EINVAL);
        ck_assert_msg(strstr(err.message, bad[i].says) != NULL, "%s -> %s (wanted %s)", bad[i].text, err.message,
                      bad[i].says);
    }
    /* a "?" is a template's only */
    dpa_error err = { 0 };
    ck_assert_ptr_null(dpa_event_parse("gaussian(sigma=?)", &err));
    ck_assert_msg(strstr(err.message, "position 16: sigma is left open") != NULL, "%s", err.message);
    const char *json = "{\"kind\": \"gaussian\", \"sigma\": \"?\"}";
    ck_assert_ptr_null(dpa_event_from_json(json, strlen(json), &err));
    ck_assert_msg(strstr(err.message, "at $: sigma is left open") != NULL, "%s", err.message);
    /* the length bounds the text */
    dpa_event_template *t = dpa_event_template_new("gaussian(sigma=?)xyz", 17, &err);
    ck_assert_msg(t != NULL, "%s", err.message);
    dpa_event_template_free(t);
    ck_assert_ptr_null(dpa_event_template_new(NULL, 4, &err));
    ck_assert_int_eq(err.status, DPA_EINVAL);
    ck_assert_ptr_null(dpa_event_template_family(1.0, NULL, &err));
    ck_assert_int_eq(err.status, DPA_EINVAL);
    dpa_event_hole h;
    ck_assert_int_eq(dpa_event_template_hole(NULL, &h, &err), DPA_EINVAL);
    ck_assert_int_eq(dpa_event_template_calibration(NULL, NULL, &err), DPA_EINVAL);
    ck_assert_ptr_null(dpa_event_template_load("/nonexistent/template.json", &err));
    ck_assert_int_eq(err.status, DPA_EIO);
    dpa_event_template_free(NULL);
}
END_TEST

/* Calibration through a template against closed forms: self_composed
 * (count=T, gaussian(sigma=3)) is mu = sqrt(T)/3, so the largest T within
 * EPS_MU1 (just above it) is 9; gdp(mu=?) within EPS_MU1 is mu = 1. */
START_TEST(templates_calibrate_to_closed_forms)
{
    dpa_error err = { 0 };
    dpa_calibration c;
    dpa_event_template *t = template_ok("self_composed(count=?, gaussian(sigma=3))");
    ck_assert_int_eq(dpa_event_template_calibration(t, &c, &err), DPA_OK);
    ck_assert_int_eq(dpa_calibrate_search("gaussian", NULL, dpa_event_template_family, t, EPS_MU1 * (1 + 1e-9), 1e-5,
                                          &c, &err),
                     DPA_OK);
    ck_assert_msg(c.value == 9.0 && c.fails == 10.0, "count %g, fails %g", c.value, c.fails);
    dpa_event_template_free(t);

    const char *json = "{\"kind\": \"gdp\", \"mu\": \"?\"}";
    t = template_ok(json);
    ck_assert_int_eq(dpa_event_template_calibration(t, &c, &err), DPA_OK);
    c.rel_tol = 1e-8;
    ck_assert_int_eq(dpa_calibrate_search("gdp", NULL, dpa_event_template_family, t, EPS_MU1, 1e-5, &c, &err),
                     DPA_OK);
    /* mu = 1 gives exactly EPS_MU1: the value meets it, so lies at or
     * below 1, within the tolerance and the bound's width */
    ck_assert_msg(c.value <= 1.0 + 1e-12 && c.value > 1.0 - 1e-7, "mu %.12g", c.value);
    dpa_event_template_free(t);
}
END_TEST

/* A program whose locale writes 1.5 as "1,5" (de_DE): event text still
 * reads and writes '.', and round-trips.  The locale is built with
 * localedef (Debian's locales package) into a directory of our own. */
START_TEST(text_ignores_the_locale)
{
    char dir[] = "/tmp/dpacct-locale-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char cmd[256];
    snprintf(cmd, sizeof cmd, "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", dir);
    int built = system(cmd);
    setenv("LOCPATH", dir, 1);
    ck_assert_msg(setlocale(LC_ALL, "de_DE.UTF-8") != NULL,
                  "no de_DE.UTF-8 locale (localedef said %d; is Debian's locales package installed?)", built);
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 1.5);
    ck_assert_str_eq(probe, "1,5");   /* the locale is in force */

    dpa_error err = { 0 };
    dpa_event *e = dpa_event_parse("poisson(q=0.004, gaussian(sigma=1.5))", &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    ck_assert(dpa_event_param(e, 0) == 0.004);
    ck_assert(dpa_event_param(dpa_event_child(e, 0), 0) == 1.5);
    char text[128];
    dpa_event_describe(e, text, sizeof text);
    ck_assert_str_eq(text, "poisson(q=0.004, gaussian(sigma=1.5))");
    char *json = dpa_event_to_json(e, 0, &err);
    ck_assert_ptr_nonnull(json);
    dpa_event *back = dpa_event_from_json(json, strlen(json), &err);
    ck_assert_msg(back != NULL, "%s: %s", json, err.message);
    assert_same_event(e, back);
    free(json);
    dpa_event_free(back);
    dpa_event_free(e);
    setlocale(LC_ALL, "C");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("event_template");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, templates_fill_their_hole);
    tcase_add_test(tc, template_mistakes);
    tcase_add_test(tc, templates_calibrate_to_closed_forms);
    tcase_add_test(tc, text_ignores_the_locale);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
