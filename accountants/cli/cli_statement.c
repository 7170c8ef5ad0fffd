/*
 * cli_statement.c - `dpacct statement`: the paragraph a practitioner puts
 * in a paper about a DP-SGD run (as TF Privacy's
 * compute_dp_sgd_privacy_statement does): the run as the accounting sees
 * it, what the accounting assumes of the sampling, the example-level
 * epsilon under both neighbouring relations from the tightest certified
 * method with its bracket and RDP's beside it, and the user-level epsilon
 * by group privacy when users contribute several examples.
 *
 * The numbers are those `dpacct compare` prints for the same flags (the
 * same accountants, options and rounding: upper bounds rounded up).  JSON
 * is written with jansson through the toolkit (cli_json_print), its numbers
 * as the text prints them.
 */
#include "cli_statement.h"

#include <float.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The run under one relation: sigma is the noise std over that relation's
 * sensitivity (C or 2C), the same noise either way. */
static dpa_event *run_event(const mechanism *m, double sigma, dpa_error *err)
{
    mechanism r = *m;
    r.sigma = sigma;
    return mechanism_event(&r, err);
}

static void relation_options(const cli *c, dpa_relation rel, dpa_options *opt)
{
    dpa_options_init(opt);
    opt->relation = rel;
    opt->tolerance = c->eps_error > 0.0 ? c->eps_error : 0.0;
}

/* The example-level guarantee under one relation: the method's bracket
 * and rdp's upper bound (absent where rdp does not apply). */
typedef struct {
    int defined;          /* add-remove is not, for fixed-size batches */
    result best, rdp;
} example_level;

static void account(const cli *c, const mechanism *m, dpa_relation rel, double sigma, const char *method,
                    double delta, example_level *out)
{
    memset(out, 0, sizeof *out);
    out->defined = !(m->batch && rel == DPA_ADD_REMOVE);
    if (!out->defined) return;
    dpa_options opt;
    relation_options(c, rel, &opt);
    dpa_error err = { 0 };
    dpa_event *e = run_event(m, sigma, &err);
    query_spec qs = { QUERY_EPSILON, delta, 0.0 };
    if (!e) {
        out->best.method = method;
        snprintf(out->best.reason, sizeof out->best.reason, "%s", err.message);
        return;
    }
    run_accountant(method, &opt, e, &qs, &out->best);
    run_accountant("rdp", &opt, e, &qs, &out->rdp);
    dpa_event_free(e);
}

/* User-level by group privacy (Vadhan, "The Complexity of Differential
 * Privacy", 2017, Lemma 2.2), as dpa_accountant_group_epsilon searches it. */
typedef struct {
    int found;
    double epsilon, example_epsilon, example_delta;
    uint64_t k;
    char reason[DPA_ERROR_MESSAGE_SIZE]; /* when the search failed */
} user_level;

static void group_privacy(const cli *c, const mechanism *m, dpa_relation rel, double sigma, const char *method,
                          uint64_t k, user_level *out)
{
    memset(out, 0, sizeof *out);
    out->k = k;
    dpa_options opt;
    relation_options(c, rel, &opt);
    dpa_error err = { 0 };
    dpa_bound b;
    dpa_event *e = run_event(m, sigma, &err);
    dpa_accountant *a = e ? dpa_accountant_new(method, &opt, &err) : NULL;
    int st = a ? dpa_accountant_compose(a, e, &err) : err.status;
    if (!st) st = dpa_accountant_group_epsilon(a, k, c->delta, &b, &out->example_epsilon, &out->example_delta, &err);
    dpa_accountant_free(a);
    dpa_event_free(e);
    if (st) snprintf(out->reason, sizeof out->reason, "%s", err.message);
    out->found = !st && isfinite(b.upper);
    out->epsilon = st ? INFINITY : b.upper;
    if (out->found) {
        /* k times the record-level epsilon as printed (rounded up), so that
         * the reader's check "epsilon = k eps" holds on the printed digits */
        char shown[CLI_NUMBER_SIZE];
        if (cli_format_value(out->example_epsilon, CLI_ROLE_UPPER, CLI_STYLE_TEXT, shown) == 0)
            out->epsilon = fmax(out->epsilon, (double)k * strtod(shown, NULL) * (1.0 + 4.0 * DBL_EPSILON));
    }
}

/* The tightest certified method: the one asked, else pld where it applies. */
static const char *best_method(const cli *c, const mechanism *m, double sigma)
{
    if (c->accountant) return c->accountant;
    dpa_error err = { 0 };
    dpa_options opt;
    relation_options(c, m->batch ? DPA_REPLACE_ONE : DPA_ADD_REMOVE, &opt);
    dpa_event *e = run_event(m, sigma, &err);
    dpa_accountant *a = e ? dpa_accountant_new("pld", &opt, &err) : NULL;
    int ok = a && dpa_accountant_supports(a, e, &err) == DPA_OK;
    dpa_accountant_free(a);
    dpa_event_free(e);
    return ok ? "pld" : "rdp";
}

static const char *method_words(const char *method)
{
    if (!strcmp(method, "pld"))
        return "privacy loss distributions composed by FFT with certified discretisation (Koskela, Jalko & "
               "Honkela, AISTATS 2020; Doroshenko, Ghazi, Kamath, Kumar & Manurangsi, PETS 2022)";
    if (!strcmp(method, "rdp"))
        return "Renyi DP (Mironov, CSF 2017) converted as by Canonne, Kamath & Steinke (NeurIPS 2020)";
    if (!strcmp(method, "gaussian")) return "the analytic Gaussian mechanism (Balle & Wang, ICML 2018), exact";
    return method;
}

/* "2.382049069 (certified upper bound by pld; the true value lies in
 * [2.380916865, 2.382049069]; RDP gives 2.596641916)" */
static void epsilon_words(const example_level *ex, char *buf, size_t size)
{
    char up[CLI_NUMBER_SIZE], lo[CLI_NUMBER_SIZE], rdp[CLI_NUMBER_SIZE];
    if (!ex->defined) {
        snprintf(buf, size, "not defined (fixed-size batches keep the dataset size: neighbours replace one "
                            "example)");
        return;
    }
    if (!has_value(&ex->best)) {
        snprintf(buf, size, "not available (%s)", ex->best.reason);
        return;
    }
    cli_format_value(ex->best.bound.upper, CLI_ROLE_UPPER, CLI_STYLE_TEXT, up);
    int lower = !(ex->best.bound.flags & DPA_NO_LOWER);
    if (lower) cli_format_value(ex->best.bound.lower, CLI_ROLE_LOWER, CLI_STYLE_TEXT, lo);
    if (has_value(&ex->rdp)) cli_format_value(ex->rdp.bound.upper, CLI_ROLE_UPPER, CLI_STYLE_TEXT, rdp);
    else snprintf(rdp, sizeof rdp, "no value");
    if (lower)
        snprintf(buf, size, "epsilon = %s (a certified upper bound by %s; the true epsilon lies in [%s, %s]; RDP "
                 "gives %s)", up, ex->best.method, lo, up, rdp);
    else snprintf(buf, size, "epsilon = %s (a certified upper bound by %s; RDP gives %s)", up, ex->best.method, rdp);
}

static json_t *json_example(const example_level *ex)
{
    if (!ex->defined) return json_null();
    if (!has_value(&ex->best)) return json_pack("{s:o}", "error", cli_json_text(ex->best.reason));
    /* the numbers as the text prints them: upper rounded up, lower down */
    json_t *o = json_pack("{s:o, s:o}", "method", cli_json_text(ex->best.method), "epsilon_upper",
                          cli_json_value(ex->best.bound.upper, CLI_ROLE_UPPER));
    if (o && !(ex->best.bound.flags & DPA_NO_LOWER) &&
        json_object_set_new(o, "epsilon_lower", cli_json_value(ex->best.bound.lower, CLI_ROLE_LOWER))) {
        json_decref(o);
        return NULL;
    }
    if (o && json_object_set_new(o, "rdp_epsilon_upper",
                                 has_value(&ex->rdp) ? cli_json_value(ex->rdp.bound.upper, CLI_ROLE_UPPER)
                                                     : json_null())) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int cmd_statement(const cli *c, const mechanism *m)
{
    /* the noise as added: std / C, whatever relation --sigma was given under */
    const double z = c->relation == DPA_REPLACE_ONE ? 2.0 * m->sigma : m->sigma;
    const double sigma[2] = { z, 0.5 * z };                  /* add-remove, replace-one */
    const dpa_relation rel[2] = { DPA_ADD_REMOVE, DPA_REPLACE_ONE };
    const char *method = best_method(c, m, sigma[m->batch ? 1 : 0]);
    example_level ex[2];
    for (int r = 0; r < 2; r++) account(c, m, rel[r], sigma[r], method, c->delta, &ex[r]);
    user_level user = { 0 };
    int user_rel = m->batch ? 1 : 0;
    if (c->max_examples > 1) group_privacy(c, m, rel[user_rel], sigma[user_rel], method, c->max_examples, &user);

    char run[1024], sampling[512], words[2][1024], delta[CLI_NUMBER_SIZE], users[512] = "";
    cli_format_value(c->delta, CLI_ROLE_PLAIN, CLI_STYLE_TEXT, delta);
    double epochs = m->batch ? (double)m->steps * (double)m->batch / (double)m->dataset
                             : (double)m->steps * m->q;
    if (m->batch)
        snprintf(sampling, sizeof sampling,
                 "batches of exactly %" PRIu64 " of the %" PRIu64 " examples drawn uniformly without replacement "
                 "at every step, independently of the other steps (the accounting assumes this; shuffling the "
                 "data once per epoch and cutting it into batches is a different sampler, not covered)",
                 m->batch, m->dataset);
    else if (m->q < 1.0)
        snprintf(sampling, sizeof sampling,
                 "Poisson sampling: each example joins each batch independently with probability q = %.6g%s (the "
                 "accounting assumes this; fixed-size or shuffled batches are a different sampler, not covered)",
                 m->q, m->dataset ? "" : "");
    else snprintf(sampling, sizeof sampling, "full batches (every example at every step)");
    snprintf(run, sizeof run,
             "DP-SGD for %" PRIu64 " steps (%.4g epochs) with %s. Each step adds Gaussian noise of standard "
             "deviation %.6g C to the sum of the per-example gradients clipped to norm C (noise multiplier "
             "%.6g). Every intermediate model may be released: the guarantee covers all of them, the final "
             "model included.",
             m->steps, epochs, sampling, z, z);
    for (int r = 0; r < 2; r++) epsilon_words(&ex[r], words[r], sizeof words[r]);
    if (c->max_examples > 1) {
        char ue[CLI_NUMBER_SIZE], ee[CLI_NUMBER_SIZE], ed[CLI_NUMBER_SIZE];
        if (user.found) {
            cli_format_value(user.epsilon, CLI_ROLE_UPPER, CLI_STYLE_TEXT, ue);
            cli_format_value(user.example_epsilon, CLI_ROLE_UPPER, CLI_STYLE_TEXT, ee);
            /* the record-level pair rounded up, a weaker claim that still
             * meets the group condition (the search left room for it) */
            cli_format_value(user.example_delta, CLI_ROLE_UPPER, CLI_STYLE_TEXT, ed);
            snprintf(users, sizeof users,
                     "User-level DP (%s, each user contributing at most %" PRIu64 " examples): epsilon = %s at "
                     "delta = %s, by group privacy of the example-level guarantee ((eps, d) for one example gives "
                     "(k eps, k e^((k-1) eps) d) for k; Vadhan 2017, Lemma 2.2) at eps = %s, d = %s.",
                     relation_name(rel[user_rel]), user.k, ue, delta, ee, ed);
        } else if (user.reason[0])
            snprintf(users, sizeof users,
                     "User-level DP (each user contributing at most %" PRIu64 " examples): not available (%s).",
                     user.k, user.reason);
        else
            snprintf(users, sizeof users,
                     "User-level DP (each user contributing at most %" PRIu64 " examples): no finite epsilon at "
                     "delta = %s by group privacy.", user.k, delta);
    }
    if (c->format == CLI_FORMAT_JSON) {
        /* every number through cli_format_value, as in the text: bounds
         * rounded outward, the rest to 10 significant digits */
        json_t *doc = json_pack("{s:o, s:I, s:o, s:o, s:s, s:o, s:o, s:o}", "run", cli_json_text(run), "steps",
                                (json_int_t)m->steps, "epochs", cli_json_value(epochs, CLI_ROLE_PLAIN),
                                "noise_multiplier", cli_json_value(z, CLI_ROLE_PLAIN), "sampling",
                                m->batch ? "without-replacement" : m->q < 1.0 ? "poisson" : "none", "delta",
                                cli_json_value(c->delta, CLI_ROLE_PLAIN), "add-remove", json_example(&ex[0]),
                                "replace-one", json_example(&ex[1]));
        if (doc && c->max_examples > 1 &&
            json_object_set_new(doc, "user_level",
                                user.found ? json_pack("{s:I, s:o, s:o, s:o}", "max_examples_per_user",
                                                       (json_int_t)user.k, "epsilon_upper",
                                                       cli_json_value(user.epsilon, CLI_ROLE_UPPER),
                                                       "example_epsilon",
                                                       cli_json_value(user.example_epsilon, CLI_ROLE_UPPER),
                                                       "example_delta",
                                                       cli_json_value(user.example_delta, CLI_ROLE_UPPER))
                                           : json_null())) {
            json_decref(doc);
            doc = NULL;
        }
        return cli_json_print(stdout, doc);
    }
    printf("%s\n\n", run);
    printf("Example-level DP at delta = %s, add-or-remove-one neighbours: %s.\n", delta, words[0]);
    printf("Example-level DP at delta = %s, replace-one neighbours (sensitivity 2C): %s.\n", delta, words[1]);
    if (users[0]) printf("%s\n", users);
    printf("\nAccounting: %s, computed by dpacct %s.\n", method_words(method), dpa_version());
    return 0;
}
