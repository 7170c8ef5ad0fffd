/*
 * test_event_text.c - events as text (dpa_event_describe, dpa_event_parse)
 * and as JSON (dpa_event_to_json, dpa_event_from_json, ledgers).  Every kind round-trips bit for bit; hand-written text
 * gives the events the constructors give; every mistake is refused with
 * its position.
 */
#include <config.h>

#include "dpacct.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static dpa_event *parse_ok(const char *text)
{
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_parse(text, &err);
    ck_assert_msg(e != NULL, "%s: %s", text, err.message);
    return e;
}


static char *text_of(const dpa_event *e)
{
    size_t n = dpa_event_describe(e, NULL, 0);
    char *buf = malloc(n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(dpa_event_describe(e, buf, n + 1), n);
    return buf;
}


/* The JSON of every event of every_kind_round_trips reads back bit for bit,
 * and writes back the same text. */
static void json_round_trip(const dpa_event *e)
{
    dpa_error err = { 0 };
    char *json = dpa_event_to_json(e, 2, &err);
    ck_assert_msg(json != NULL, "%s", err.message);
    dpa_event *back = dpa_event_from_json(json, strlen(json), &err);
    ck_assert_msg(back != NULL, "%s: %s", json, err.message);
    assert_same_event(e, back);
    char *again = dpa_event_to_json(back, 2, &err);
    ck_assert_str_eq(json, again);
    free(again);
    again = dpa_event_to_json(back, 0, &err);    /* one line: a ledger's */
    ck_assert_ptr_null(strchr(again, '\n'));
    dpa_event_free(back);
    back = dpa_event_from_json(again, strlen(again), &err);
    ck_assert_ptr_nonnull(back);
    assert_same_event(e, back);
    dpa_event_free(back);
    free(again);
    free(json);
}

static dpa_event *json_ok(const char *json)
{
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_from_json(json, strlen(json), &err);
    ck_assert_msg(e != NULL, "%s: %s", json, err.message);
    return e;
}

START_TEST(hand_written_json)
{
    dpa_error err = { 0 };
    dpa_event *e = json_ok("{\"kind\": \"self_composed\", \"count\": 900,\n"
                           " \"event\": {\"kind\": \"poisson\", \"q\": 0.004,\n"
                           "           \"event\": {\"kind\": \"gaussian\", \"sigma\": 1.1}}}");
    dpa_event *want =
        dpa_event_self_composed(dpa_event_poisson_sampled(0.004, dpa_event_gaussian(1.1, &err), &err), 900, &err);
    assert_same_event(e, want);
    /* written with the digits that read back, not 1.1000000000000001 */
    char *json = dpa_event_to_json(want, 0, &err);
    ck_assert_str_eq(json, "{\"kind\":\"self_composed\",\"count\":900,\"event\":{\"kind\":\"poisson\",\"q\":0.004,"
                           "\"event\":{\"kind\":\"gaussian\",\"sigma\":1.1}}}");
    free(json);
    dpa_event_free(e);
    dpa_event_free(want);

    /* an array, and a ledger (one event per line), are compositions; a
     * count above 2^63 - 1 as a string, a count written 1e6 */
    dpa_event *parts[2] = { dpa_event_gaussian(2.0, &err), dpa_event_laplace(10.0, &err) };
    want = dpa_event_composed(parts, 2, &err);
    const char *same[] = {
        "[{\"kind\": \"gaussian\", \"sigma\": 2}, {\"kind\": \"laplace\", \"scale\": 10}]",
        "{\"kind\": \"gaussian\", \"sigma\": 2}\n{\"kind\": \"laplace\", \"scale\": 10}\n",
        "{\"kind\": \"compose\", \"events\": [{\"kind\": \"gaussian\", \"sigma\": 2.0}, {\"scale\": 1e1, \"kind\": "
        "\"laplace\"}]}",
    };
    for (size_t i = 0; i < 3; i++) {
        e = json_ok(same[i]);
        assert_same_event(e, want);
        dpa_event_free(e);
    }
    dpa_event_free(want);
    e = json_ok("{\"kind\": \"self_composed\", \"count\": \"18446744073709551615\", \"event\": {\"kind\": \"gdp\", "
                "\"mu\": 0}}");
    ck_assert_uint_eq(dpa_event_count(e, 0), UINT64_MAX);
    dpa_event_free(e);
    e = json_ok("{\"kind\": \"self_composed\", \"count\": 1e6, \"event\": {\"kind\": \"gdp\", \"mu\": 1}}");
    ck_assert_uint_eq(dpa_event_count(e, 0), 1000000);
    dpa_event_free(e);
    e = json_ok("{\"kind\": \"repeated_selected\", \"distribution\": \"geometric\", \"gamma\": 0.5, \"event\": "
                "{\"kind\": \"shuffled\", \"eps0\": 1, \"n\": 10, \"randomizer\": \"rr\"}}");
    ck_assert_uint_eq(dpa_event_count(e, 0), DPA_REPEAT_GEOMETRIC);
    ck_assert_uint_eq(dpa_event_count(dpa_event_child(e, 0), 1), DPA_LOCAL_RR_CLASS);
    dpa_event_free(e);
}
END_TEST

START_TEST(json_mistakes_say_where)
{
    static const struct { const char *json, *says; } bad[] = {
        { "", "no event" },
        { "{\"kind\": \"gaussian\",\n \"sigma\": }", "line 2, column 11" },
        { "{\"kind\": \"gaussian\", \"sigma\": 1, \"sigma\": 2}", "duplicate" },
        { "{\"sigma\": 1}", "at $: an event needs \"kind\"" },
        { "{\"kind\": \"gauss\", \"sigma\": 1}", "unknown event \"gauss\" (the kinds are listed" },
        { "{\"kind\": \"poison\", \"q\": 0.1}", "unknown event \"poison\" (did you mean \"poisson\"?)" },
        { "{\"kind\": \"gaussian\", \"sigma\": \"1\"}", "sigma needs a number, got a string" },
        { "{\"kind\": \"gaussian\", \"sigma\": true}", "sigma needs a number" },
        { "{\"kind\": \"gaussian\", \"s\": 1}", "gaussian has no parameter 's'" },
        { "{\"kind\": \"gaussian\", \"sigma\": 1e999}", "overflow" },
        { "[]", "an empty list of events" },
        { "3", "expected an event (an object with a \"kind\"), found a number" },
        { "{\"kind\": \"composed\", \"events\": [{\"kind\": \"gaussian\", \"sigma\": 1}, {\"kind\": \"poisson\", "
          "\"q\": 2, \"event\": {\"kind\": \"gaussian\", \"sigma\": 1}}]}",
          "at $.events[1]: poisson: sampling rate q must lie in (0, 1]" },
        { "{\"kind\": \"poisson\", \"q\": 0.5, \"event\": {\"kind\": \"gaussian\", \"sigma\": -1}}",
          "at $.event: gaussian: noise multiplier must be positive" },
        { "{\"kind\": \"poisson\", \"q\": 0.5, \"event\": {\"kind\": \"gaussian\", \"sigma\": 1}, \"events\": []}",
          "not both" },
        { "{\"kind\": \"self_composed\", \"count\": -3, \"event\": {\"kind\": \"gdp\", \"mu\": 1}}", "whole number" },
        { "{\"kind\": \"self_composed\", \"count\": \"18446744073709551616\", \"event\": {\"kind\": \"gdp\", \"mu\": 1}}",
          "more than 2^64 - 1" },
        { "{\"kind\": \"repeated_selected\", \"distribution\": 1, \"mean\": 2, \"event\": {\"kind\": \"gdp\", \"mu\": 1}}",
          "distribution is poisson" },
        { "{\"kind\": \"gdp\", \"mu\": 1}\n{\"kind\": \"gdp\", \"mu\": -1}", "at $ledger[1]: gdp: mu must be" },
        { "{\"kind\": \"gdp\", \"mu\": 1} x", "line 1, column 26" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dpa_error err = { 0 };
        dpa_event *e = dpa_event_from_json(bad[i].json, strlen(bad[i].json), &err);
        ck_assert_msg(e == NULL, "accepted: %s", bad[i].json);
        ck_assert_int_eq(err.status, DPA_EINVAL);
        ck_assert_msg(strstr(err.message, "event JSON") && strstr(err.message, bad[i].says), "%s -> %s (wanted %s)",
                      bad[i].json, err.message, bad[i].says);
    }
}
END_TEST

/* A run appends one event per phase; loading the ledger composes them. */
START_TEST(ledger_appends_and_composes)
{
    char path[] = "/tmp/dpacct-ledger-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    dpa_error err = { 0 };
    dpa_event *phase1 =
        dpa_event_self_composed(dpa_event_poisson_sampled(0.01, dpa_event_gaussian(1.0, &err), &err), 500, &err);
    dpa_event *phase2 =
        dpa_event_self_composed(dpa_event_poisson_sampled(0.02, dpa_event_gaussian(1.5, &err), &err), 250, &err);
    ck_assert_int_eq(dpa_event_ledger_append(path, phase1, &err), DPA_OK);
    ck_assert_int_eq(dpa_event_ledger_append(path, phase2, &err), DPA_OK);
    dpa_event *total = dpa_event_load_json(path, &err);
    ck_assert_msg(total != NULL, "%s", err.message);
    dpa_event *parts[2] = { phase1, phase2 };
    dpa_event *want = dpa_event_composed(parts, 2, &err);
    assert_same_event(total, want);
    dpa_event_free(total);
    dpa_event_free(want);
    unlink(path);
    ck_assert_ptr_null(dpa_event_load_json(path, &err));
    ck_assert_int_eq(err.status, DPA_EIO);
    ck_assert_int_eq(dpa_event_ledger_append("/nonexistent-dir/ledger", phase1 = dpa_event_gdp(1.0, &err), &err),
                     DPA_EIO);
    dpa_event_free(phase1);
}
END_TEST

/* Every kind, with numbers that need all 17 digits, the extremes of the
 * counts and each word-valued parameter. */
START_TEST(every_kind_round_trips)
{
    dpa_error err = { 0 };
    dpa_noisy_cgd_params cgd = { 0.1, 1.0 / 3.0, 1.9, 0.2, 4.0, 7, 3 };
    const double third = 1.0 / 3.0, tiny = 4.9406564584124654e-324, big = 1.7976931348623157e308;
    const double mix_c[3] = { 0.0, third, big }, mix_p[3] = { 0.1, 0.7, 0.2 };
    dpa_event *leaves[] = {
        dpa_event_gaussian(third, &err),
        dpa_event_gaussian(tiny, &err),
        dpa_event_laplace(big, &err),
        dpa_event_randomized_response(0.1, UINT32_MAX, &err),
        dpa_event_discrete_gaussian(2.5, UINT64_MAX, &err),
        dpa_event_discrete_laplace(0.7, 3, &err),
        dpa_event_exponential(1e-300, &err),
        dpa_event_permute_and_flip(third, &err),
        dpa_event_mixture_of_gaussians(third, mix_c, mix_p, 3, &err),
        dpa_event_mixture_of_gaussians(tiny, mix_c + 2, (const double[]){ 1.0 }, 1, &err),
        dpa_event_epsilon_delta(0.0, 0.0, &err),
        dpa_event_epsilon_delta(1.5, 1e-9, &err),
        dpa_event_zcdp(0.0, 0.0, &err),
        dpa_event_zcdp(0.3, 0.01, &err),
        dpa_event_gdp(0.0, &err),
        dpa_event_tree_aggregation(1.2, 1000, 0, &err),
        dpa_event_tree_aggregation(1.2, 1000, 64, &err),
        dpa_event_noisy_cgd(&cgd, &err),
        dpa_event_shuffled(2.0, 100000, &err),
        dpa_event_shuffled_local(1.0, 0.0, 5, DPA_LOCAL_RR_CLASS, &err),
        dpa_event_shuffled_local(1.0, 1e-8, 5, DPA_LOCAL_ANY, &err),
        dpa_event_truncated_laplace(1.0, 0.5, &err),
        dpa_event_gsm_frobenius(3, 0.25, &err),
        dpa_event_gsm_spectral(3, 10, 0.125, &err),
        dpa_event_poisson_sampled(0.004, dpa_event_gaussian(1.1, &err), &err),
        dpa_event_sampled_without_replacement(60000, 256, dpa_event_gaussian(1.0, &err), &err),
        dpa_event_sampled_with_replacement(10, 20, dpa_event_laplace(2.0, &err), &err),
        dpa_event_shuffled_batches(60000, 256, dpa_event_gaussian(1.1, &err), &err),
        dpa_event_truncated_poisson(third, UINT64_MAX, UINT64_MAX - 1, dpa_event_gaussian(1.1, &err), &err),
        dpa_event_self_composed(dpa_event_gaussian(1.0, &err), UINT64_MAX, &err),
        dpa_event_random_allocation(UINT64_MAX, UINT64_MAX, dpa_event_gaussian(third, &err), &err),
        dpa_event_random_allocation(10000, 1, dpa_event_laplace(2.0, &err), &err),
        dpa_event_repeated_selected(dpa_event_gaussian(3.0, &err), DPA_REPEAT_POISSON, 10.0, 0.0, &err),
        dpa_event_repeated_selected(dpa_event_gaussian(3.0, &err), DPA_REPEAT_GEOMETRIC, 0.1, 0.0, &err),
        dpa_event_repeated_selected(dpa_event_gaussian(3.0, &err), DPA_REPEAT_TRUNCATED_NEGATIVE_BINOMIAL, -0.5,
                                    0.999, &err),
    };
    size_t n = sizeof leaves / sizeof leaves[0];
    for (size_t i = 0; i < n; i++) ck_assert_msg(leaves[i] != NULL, "case %zu: %s", i, err.message);
    /* and all of them in one composition, nested under two wrappers */
    dpa_event **copies = malloc(n * sizeof *copies);
    ck_assert_ptr_nonnull(copies);
    for (size_t i = 0; i < n; i++) copies[i] = dpa_event_copy(leaves[i], &err);
    dpa_event *all = dpa_event_self_composed(dpa_event_composed(copies, n, &err), 3, &err);
    free(copies);
    ck_assert_ptr_nonnull(all);
    for (size_t i = 0; i <= n; i++) {
        const dpa_event *e = i < n ? leaves[i] : all;
        char *text = text_of(e);
        dpa_event *back = parse_ok(text);
        assert_same_event(e, back);
        char *again = text_of(back);
        ck_assert_str_eq(text, again);
        json_round_trip(e);
        free(text);
        free(again);
        dpa_event_free(back);
    }
    for (size_t i = 0; i < n; i++) dpa_event_free(leaves[i]);
    dpa_event_free(all);
}
END_TEST

/* Hand-written text against the constructors: names in any order, children
 * before or after them, spaces, "compose", counts written 1e6. */
START_TEST(hand_written_text)
{
    dpa_error err = { 0 };
    dpa_event *e = parse_ok(" compose( self_composed(count=900, poisson(q=0.004, gaussian(sigma=1.1))),\n"
                            "laplace(scale=10) ) ");
    dpa_event *parts[2] = {
        dpa_event_self_composed(dpa_event_poisson_sampled(0.004, dpa_event_gaussian(1.1, &err), &err), 900, &err),
        dpa_event_laplace(10.0, &err),
    };
    dpa_event *want = dpa_event_composed(parts, 2, &err);
    assert_same_event(e, want);
    dpa_event_free(e);
    dpa_event_free(want);

    e = parse_ok("self_composed(poisson(gaussian(sigma = 0.8), q = 0.01), count = 1e6)");
    want = dpa_event_self_composed(dpa_event_poisson_sampled(0.01, dpa_event_gaussian(0.8, &err), &err), 1000000, &err);
    assert_same_event(e, want);
    dpa_event_free(e);
    dpa_event_free(want);

    /* defaults: zcdp xi 0, shuffled delta0 0 and any randomizer, one tree */
    e = parse_ok("composed(zcdp(rho=0.5), shuffled(eps0=1, n=10), tree_aggregation(steps=8, sigma=2))");
    ck_assert_double_eq(dpa_event_param(dpa_event_child(e, 0), 1), 0.0);
    ck_assert_double_eq(dpa_event_param(dpa_event_child(e, 1), 1), 0.0);
    ck_assert_uint_eq(dpa_event_count(dpa_event_child(e, 1), 1), DPA_LOCAL_ANY);
    ck_assert_uint_eq(dpa_event_count(dpa_event_child(e, 2), 1), 0);
    dpa_event_free(e);

    e = parse_ok("repeated_selected(gaussian(sigma=3), distribution=truncated_negative_binomial, gamma=0.1, eta=1)");
    ck_assert_uint_eq(dpa_event_count(e, 0), DPA_REPEAT_TRUNCATED_NEGATIVE_BINOMIAL);
    ck_assert_double_eq(dpa_event_param(e, 0), 1.0);
    ck_assert_double_eq(dpa_event_param(e, 1), 0.1);
    dpa_event_free(e);
    e = parse_ok("shuffled(eps0=1, n=10, randomizer=rr)");
    ck_assert_uint_eq(dpa_event_count(e, 1), DPA_LOCAL_RR_CLASS);
    dpa_event_free(e);
}
END_TEST

/* Each mistake: NULL, DPA_EINVAL, the position and the problem. */
START_TEST(mistakes_name_their_position)
{
    static const struct { const char *text; size_t at; const char *says; } bad[] = {
        { "", 1, "expected an event" },
        { "   ", 4, "expected an event" },
        { "gauss(sigma=1)", 1, "unknown event 'gauss' (the events are listed in dpacct(1)" },
        { "gausian(sigma=1)", 1, "unknown event 'gausian' (did you mean gaussian?" },
        { "compose(Laplase(scale=1))", 9, "did you mean laplace?" },
        { "gaussian", 9, "expected '(' after gaussian" },
        { "gaussian(sigma=1", 17, "expected ',' or ')'" },
        { "gaussian(sigma=)", 16, "needs a value" },
        { "gaussian(sigma=abc)", 16, "'abc' is not a number" },
        { "gaussian(sigma=1e999)", 16, "too large" },
        { "gaussian(sigma=-1)", 1, "noise multiplier must be positive" },
        { "gaussian(sigma=1, sigma=2)", 19, "sigma is given twice" },
        { "gaussian(s=1)", 10, "gaussian has no parameter 's' (its parameters: sigma)" },
        { "gaussian()", 1, "gaussian needs sigma" },
        { "gaussian(sigma=1, gaussian(sigma=1))", 1, "gaussian takes no events, got 1" },
        { "poisson(q=0.5)", 1, "poisson takes one event, got 0" },
        { "composed()", 1, "composed takes one event or more, got 0" },
        { "self_composed(count=-1, gaussian(sigma=1))", 21, "whole number" },
        { "self_composed(count=1.5, gaussian(sigma=1))", 21, "whole number" },
        { "self_composed(count=18446744073709551616, gaussian(sigma=1))", 21, "more than 2^64 - 1" },
        { "self_composed(count=0, gaussian(sigma=1))", 1, "count must be at least 1" },
        { "poisson(q=2, gaussian(sigma=1))", 1, "sampling rate q must lie in (0, 1]" },
        { "poisson(q=0.5, gaussian(sigma=0))", 16, "noise multiplier must be positive" },
        { "gaussian(sigma=1) x", 19, "unexpected 'x' after the event" },
        { "gaussian(sigma=1\x01)", 17, "byte 1" },
        { "gaussian(sigma=1,)", 18, "expected a parameter (name=value) or an event" },
        { "randomized_response(eps=1, k=4294967296)", 1, "k is at most 2^32 - 1" },
        { "repeated_selected(distribution=binomial, mean=1, gaussian(sigma=1))", 32, "got 'binomial'" },
        { "repeated_selected(mean=1, gaussian(sigma=1))", 1, "needs distribution" },
        { "repeated_selected(distribution=poisson, gamma=1, gaussian(sigma=1))", 41, "no parameter 'gamma'" },
        { "shuffled(eps0=1, n=10, randomizer=clones)", 35, "randomizer is any or rr" },
        { "shuffled(eps0=1, delta0=0.1, n=10, randomizer=rr)", 1, "randomized-response class is for pure" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dpa_error err = { 0 };
        dpa_event *e = dpa_event_parse(bad[i].text, &err);
        ck_assert_msg(e == NULL, "accepted: %s", bad[i].text);
        ck_assert_int_eq(err.status, DPA_EINVAL);
        char where[64];
        snprintf(where, sizeof where, "position %zu: ", bad[i].at);
        ck_assert_msg(strstr(err.message, where) && strstr(err.message, bad[i].says), "%s -> %s (wanted %s%s)",
                      bad[i].text, err.message, where, bad[i].says);
    }
    dpa_error err = { 0 };
    ck_assert_ptr_null(dpa_event_parse(NULL, &err));
    ck_assert_int_eq(err.status, DPA_EINVAL);
}
END_TEST

/* Nesting: DPA_MAX_EVENT_DEPTH wrappers parse, one more is refused before
 * the parser recurses further (it cannot exhaust the stack). */
START_TEST(nesting_is_bounded)
{
    size_t deep = DPA_MAX_EVENT_DEPTH + 5;
    char *text = malloc(deep * 16 + 64);
    ck_assert_ptr_nonnull(text);
    for (size_t levels = DPA_MAX_EVENT_DEPTH; levels <= deep; levels += deep - DPA_MAX_EVENT_DEPTH) {
        size_t n = 0;
        for (size_t i = 0; i < levels; i++) n += (size_t)sprintf(text + n, "poisson(q=1, ");
        n += (size_t)sprintf(text + n, "gaussian(sigma=1)");
        for (size_t i = 0; i < levels; i++) text[n++] = ')';
        text[n] = '\0';
        dpa_error err = { 0 };
        dpa_event *e = dpa_event_parse(text, &err);
        if (levels == DPA_MAX_EVENT_DEPTH) {
            ck_assert_msg(e != NULL, "%s", err.message);
            ck_assert_uint_eq(dpa_event_depth(e), DPA_MAX_EVENT_DEPTH);
        } else {
            ck_assert_ptr_null(e);
            ck_assert_msg(strstr(err.message, "nested more than") != NULL, "%s", err.message);
        }
        dpa_event_free(e);
    }
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("event_text");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, every_kind_round_trips);
    tcase_add_test(tc, hand_written_text);
    tcase_add_test(tc, mistakes_name_their_position);
    tcase_add_test(tc, nesting_is_bounded);
    tcase_add_test(tc, hand_written_json);
    tcase_add_test(tc, json_mistakes_say_where);
    tcase_add_test(tc, ledger_appends_and_composes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
