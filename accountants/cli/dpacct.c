/*
 * dpacct.c - the dpacct command: the epsilon or delta of a (Poisson
 * subsampled, self-composed) Gaussian mechanism as in DP-SGD, the noise
 * multiplier or number of steps that meets a target, and all accountants
 * side by side.
 *
 * A client of libdpacct through the public header only, so it exercises
 * the same interface as any other program.  Exit status: 0 on success, 1
 * when the library fails or cannot account for the mechanism, 2 on bad
 * usage.  Every error is exactly one line on stderr that names the
 * offending argument, so scripts can both test the status and show the
 * reason.
 *
 * This file holds the subcommands, running accountants for them, and main;
 * the options, their help and parsing are in cli_args.c, printing numbers
 * in cli_format.c, running an accountant and printing its results in
 * cli_report.c.
 */

#include "cli_args.h"
#include "cli_statement.h"
#include "cli_plot.h"
#include "cli_report.h"
#include "dpacct.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for any one-line event description the CLI builds (three levels). */
#define DESCRIPTION_SIZE 1024

/* ---- error reporting ------------------------------------------------------ */

/* A failure reported by the library: its own sentence, exit status 1. */
static int library_error(const dpa_error *err)
{
    cli_library_error(err);
    return CLI_EXIT_LIBRARY;
}

/* A NaN reached the output (cli_format_value refused it): an internal error,
 * never a printed value. */
static int nan_output(void)
{
    cli_error("%s", CLI_NAN_OUTPUT_MESSAGE);
    return CLI_EXIT_LIBRARY;
}

/* A JSON document that could not be built or written (no memory). */
static int json_failed(void)
{
    cli_error("out of memory while writing the JSON output");
    return CLI_EXIT_LIBRARY;
}

/* The exit status after print_results failed with `r`: -1 a NaN, -2 the
 * JSON document (its message printed). */
static int report_failed(int r)
{
    return r == -2 ? CLI_EXIT_LIBRARY : nan_output();
}


/* Fill a public error struct for failures detected in the CLI itself
 * (the library's own helper is private). */
static void set_error(dpa_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_error(dpa_error *err, int status, const char *fmt, ...)
{
    if (!err) return;
    va_list ap;
    err->status = status;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

/* ---- building events and running accountants ------------------------------ */

static void make_options(const cli *c, dpa_options *opt)
{
    dpa_options_init(opt);
    opt->relation = c->relation;
    opt->orders = c->num_orders ? c->orders : NULL;
    opt->num_orders = c->num_orders;
    opt->tolerance = given(c, OPT_EPS_ERROR) ? c->eps_error : 0.0;
    opt->require_width = c->require_width;
}

/* --require-width and a bracket wider than asked: the bracket has been
 * printed; the reason is the one line on stderr, exit status 1. */
static int width_error(const char *reason)
{
    cli_error("%s", reason);
    return CLI_EXIT_LIBRARY;
}

/* The first accountant, in registry order, that supports `e` (pld first
 * for random allocation).  Registry order doubles as the order of
 * preference: the exact analytic Gaussian comes first, so it is chosen
 * whenever the mechanism is unsampled, and gdp (approximate when sampled)
 * only when nothing before it applies. */
/* Whether e holds a random_allocation event (at any depth). */
static int has_allocation(const dpa_event *e)
{
    if (dpa_event_get_kind(e) == DPA_EVENT_RANDOM_ALLOCATION) return 1;
    for (size_t i = 0; i < dpa_event_num_children(e); i++)
        if (has_allocation(dpa_event_child(e, i))) return 1;
    return 0;
}

static const char *default_accountant(const dpa_event *e, const dpa_options *opt, dpa_error *err)
{
    /* random allocation: pld before rdp, whose bound narrows pld's bracket
     * (Feldman & Shenfeld's decomposition; MNIST balls-in-bins 3.95 against
     * rdp's 26.7), where pld supports the whole event */
    if (has_allocation(e)) {
        dpa_error ignored = { 0 };
        dpa_accountant *a = dpa_accountant_new("pld", opt, err);
        if (!a) return NULL;
        int st = dpa_accountant_supports(a, e, &ignored);
        dpa_accountant_free(a);
        if (st == DPA_OK) return "pld";
    }
    for (const char *const *name = dpa_accountant_names(); *name; name++) {
        dpa_error ignored = { 0 };
        dpa_accountant *a = dpa_accountant_new(*name, opt, err);
        if (!a) return NULL;
        int st = dpa_accountant_supports(a, e, &ignored);
        dpa_accountant_free(a);
        if (st == DPA_OK) return *name;
    }
    char what[DESCRIPTION_SIZE];
    dpa_event_describe(e, what, sizeof what);
    set_error(err, DPA_EUNSUPPORTED, "no accountant supports %s", what);
    return NULL;
}

/* ---- subcommands: epsilon, delta, compare --------------------------------- */

/* The options, the mechanism's event and the accountant to run on it (the
 * named one or the default); NULL with err set when either fails. */
static dpa_event *event_and_method(const cli *c, const mechanism *m, dpa_options *opt,
                                   const char **method, dpa_error *err)
{
    make_options(c, opt);
    dpa_event *e = mechanism_event(m, err);
    if (!e) return NULL;
    /* a shuffled mechanism: the shuffle accountant for one round, pld for
     * several (their refusals say why) */
    *method = c->accountant                ? c->accountant
              : m->shuffled && m->steps > 1 ? "pld"
              : m->shuffled                 ? "shuffle"
                                            : default_accountant(e, opt, err);
    if (*method) return e;
    dpa_event_free(e);
    return NULL;
}

/* The mechanism's description, with the failure term when one is given. */
static void describe_mechanism(const cli *c, const dpa_event *e, char *mech, size_t size)
{
    size_t used = dpa_event_describe(e, mech, size);
    if (c->failure_delta > 0.0 && used < size)
        snprintf(mech + used, size - used, " + failure delta %.6g", c->failure_delta);
}

/* epsilon and delta: one accountant, the named one or the default. */
static int run_single(const cli *c, const mechanism *m, const query_spec *qs)
{
    dpa_error err = { 0 };
    dpa_options opt;
    const char *method;
    dpa_event *e = event_and_method(c, m, &opt, &method, &err);
    if (!e) return library_error(&err);
    result r;
    run_accountant(method, &opt, e, qs, &r);
    char mech[DESCRIPTION_SIZE];
    describe_mechanism(c, e, mech, sizeof mech);
    dpa_event_free(e);
    if (!has_value(&r)) {
        cli_error("%s", r.reason);
        return CLI_EXIT_LIBRARY;
    }
    int pr = print_results(c->format, c->relation, mech, qs, &r, 1, 1);
    if (pr) return report_failed(pr);
    if (r.width_failed) return width_error(r.reason);
    return CLI_EXIT_OK;
}

/* --epochs A:B[:S]: the query after each epoch count of the range, one
 * row each, by one accountant (the first point's, or --accountant), and
 * with --plot the figure.  Each point is its own composition: the work
 * shared between points is FFTW's plans (kept for the process). */
static int run_sweep(const cli *c, const mechanism *m, const query_spec *qs)
{
    size_t n = (size_t)floor((c->epochs - c->epochs_from) / c->epochs_by * (1.0 + 1e-12)) + 1;
    double *x = calloc(n, sizeof *x), *lo = calloc(n, sizeof *lo), *up = calloc(n, sizeof *up);
    uint64_t *steps = calloc(n, sizeof *steps);
    result *rows = calloc(n, sizeof *rows);
    dpa_error err = { 0 };
    int st = CLI_EXIT_OK;
    const char *method = NULL, *width_reason = NULL;
    json_t *rows_json = NULL, *doc = NULL; /* --format json: the document, printed when complete or failing */
    if (!x || !lo || !up || !steps || !rows) {
        set_error(&err, DPA_ENOMEM, "out of memory");
        st = library_error(&err);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        mechanism mm = *m;
        x[i] = c->epochs_from + (double)i * c->epochs_by;
        if (m->noisy_cgd) mm.steps = (uint64_t)x[i];
        else if (epochs_steps(x[i], m->q, &mm.steps)) {
            set_error(&err, DPA_EINVAL, "--epochs: %g epochs at sampling rate %g is 2^64 steps or more", x[i], m->q);
            st = library_error(&err);
            goto done;
        }
        steps[i] = mm.steps;
        dpa_options opt;
        const char *chosen;
        dpa_event *e = event_and_method(c, &mm, &opt, &chosen, &err);
        if (!e) {
            st = library_error(&err);
            goto done;
        }
        if (!method) method = chosen;
        run_accountant(method, &opt, e, qs, &rows[i]);
        dpa_event_free(e);
        if (!has_value(&rows[i])) {
            cli_error("%s", rows[i].reason);
            st = CLI_EXIT_LIBRARY;
            goto done;
        }
        if (rows[i].width_failed && !width_reason) width_reason = rows[i].reason;
        up[i] = rows[i].bound.upper;
        lo[i] = rows[i].bound.flags & DPA_NO_LOWER ? 0.0 : rows[i].bound.lower;
    }
    const char *q = reported_name(qs);
    char at[CLI_NUMBER_SIZE];
    cli_format_value(qs->at, CLI_ROLE_PLAIN, CLI_STYLE_TEXT, at);
    if (c->format == CLI_FORMAT_JSON) {
        char at_json[CLI_NUMBER_SIZE];
        cli_format_value(qs->at, CLI_ROLE_PLAIN, CLI_STYLE_JSON, at_json);
        rows_json = json_array();
        doc = json_pack("{s:o, s:o, s:o, s:o}", "relation", cli_json_text(relation_name(c->relation)), "method",
                        cli_json_text(method), given_name(qs), cli_json_number(at_json), "sweep", rows_json);
        if (!doc) {
            st = json_failed();
            goto done;
        }
    } else if (c->format == CLI_FORMAT_CSV) {
        printf("epochs,steps,%s_upper,%s_lower,flags\n", q, q);
    } else {
        printf("relation: %s, method %s, %s = %s\n%-10s %-12s %-16s %-16s %s\n", relation_name(c->relation), method,
               given_name(qs), at, "epochs", "steps", "upper", "lower", "notes");
    }
    for (size_t i = 0; i < n; i++) {
        char e[CLI_NUMBER_SIZE], notes[384];
        cli_bound_text t;
        if (cli_format_value(x[i], CLI_ROLE_PLAIN, cli_style_of(c->format), e) ||
            cli_format_bound(&rows[i].bound, cli_style_of(c->format), &t)) {
            if (doc) cli_json_print(stdout, doc);
            doc = NULL;
            st = nan_output();
            goto done;
        }
        if (!dpa_bound_describe(rows[i].bound.flags, notes, sizeof notes)) snprintf(notes, sizeof notes, "-");
        if (c->format == CLI_FORMAT_JSON) {
            char key_upper[64], key_lower[64];
            snprintf(key_upper, sizeof key_upper, "%s_upper", q);
            snprintf(key_lower, sizeof key_lower, "%s_lower", q);
            if (json_array_append_new(rows_json, json_pack("{s:o, s:I, s:o, s:o, s:o}", "epochs", cli_json_number(e),
                                                           "steps", (json_int_t)steps[i], key_upper,
                                                           cli_json_number(t.upper), key_lower,
                                                           cli_json_number(t.lower), "notes", cli_json_text(notes)))) {
                st = json_failed();
                goto done;
            }
        } else if (c->format == CLI_FORMAT_CSV) {
            printf("%s,%" PRIu64 ",%s,%s,", e, steps[i], t.upper, t.lower);
            cli_csv_field(stdout, notes);
            printf("\n");
        } else {
            printf("%-10s %-12" PRIu64 " %-16s %-16s %s\n", e, steps[i], t.upper, t.lower, notes);
        }
    }
    if (doc) {
        int bad = cli_json_print(stdout, doc);
        doc = NULL;
        if (bad) {
            st = json_failed();
            goto done;
        }
    }
    if (c->plot) {
        char why[512], title[256];
        snprintf(title, sizeof title, "%s at %s = %s (%s, %s)", q, given_name(qs), at, method,
                 relation_name(c->relation));
        cli_plot_spec p = { c->plot, title, "epochs", q, x, lo, up, n, qs->kind == QUERY_DELTA };
        if (cli_plot(&p, why, sizeof why)) {
            cli_error("--plot: %s", why);
            st = CLI_EXIT_LIBRARY;
            goto done;
        }
    }
    if (width_reason) st = width_error(width_reason);
done:
    json_decref(doc);
    free(x);
    free(lo);
    free(up);
    free(steps);
    free(rows);
    return st;
}

static int cmd_epsilon(const cli *c, const mechanism *m)
{
    query_spec qs = { QUERY_EPSILON, c->delta, c->failure_delta };
    return c->sweep ? run_sweep(c, m, &qs) : run_single(c, m, &qs);
}

static int cmd_delta(const cli *c, const mechanism *m)
{
    query_spec qs = { QUERY_DELTA, c->epsilon, c->failure_delta };
    return c->sweep ? run_sweep(c, m, &qs) : run_single(c, m, &qs);
}

/* Reference rows for a shuffled mechanism's epsilon query, composed
 * basically over R rounds (at delta/R each) when R > 1: the one-round
 * numerical bound (R > 1 only; one round is the shuffle accountant's own
 * row), FMT21's closed form where its condition holds (pure randomizers),
 * and the local guarantee without shuffling.  Returns how many it wrote
 * (at most 3). */
/* --sampling shuffle: the value often reported for such a run, pld's
 * bound for Poisson sampling at q = B/N over ceil(E N / B) steps, flagged
 * approximate: it is not a guarantee for shuffled batches. */
static size_t poisson_as_if_row(const mechanism *m, const dpa_options *opt, const query_spec *qs, result *row)
{
    mechanism poisson = *m;
    poisson.shuffled_batches = poisson.balls_in_bins = 0;
    poisson.batch = poisson.dataset = 0;
    poisson.q = (double)m->batch / (double)m->dataset;
    row->method = "poisson (as if)";
    /* as many expected uses of a record: K an epoch for allocation */
    double uses = (double)m->steps * (m->balls_in_bins ? (double)m->selected : 1.0);
    if (epochs_steps(uses, poisson.q, &poisson.steps)) {
        snprintf(row->reason, sizeof row->reason, "more than 2^64 steps");
        return 1;
    }
    dpa_error err = { 0 };
    dpa_event *e = mechanism_event(&poisson, &err);
    if (e) run_accountant("pld", opt, e, qs, row);
    else snprintf(row->reason, sizeof row->reason, "%s", err.message);
    dpa_event_free(e);
    row->method = "poisson (as if)";
    if (has_value(row)) row->bound.flags |= DPA_APPROXIMATE;
    return 1;
}

static size_t shuffle_reference_rows(const mechanism *m, const query_spec *qs, result *rows)
{
    if (qs->kind != QUERY_EPSILON) return 0;
    double R = (double)m->steps, per_delta = qs->at / R;
    size_t n = 0;
    if (m->steps > 1) {
        /* the one-round clones bound, R times */
        result *one = &rows[n++];
        mechanism single = *m;
        single.steps = 1;
        dpa_error err = { 0 };
        dpa_event *e = mechanism_event(&single, &err);
        dpa_options opt;
        dpa_options_init(&opt);
        opt.relation = DPA_REPLACE_ONE;
        query_spec q1 = { QUERY_EPSILON, per_delta, 0.0 };
        if (e) run_accountant("shuffle", &opt, e, &q1, one);
        dpa_event_free(e);
        one->method = "shuffle x R";
        one->time_ms = 0.0;
        if (has_value(one))
            one->bound = (dpa_bound){ 0.0, R * one->bound.upper, R * one->bound.upper, 0.0, DPA_NO_LOWER };
    }
    if (m->delta0 == 0.0) {
        result *cf = &rows[n++];
        cf->method = m->steps > 1 ? "closed form x R" : "closed form";
        cf->supported = 1;
        double eps;
        dpa_error cerr = { 0 };
        if (dpa_shuffle_closed_form(m->epsilon0, m->users, per_delta, &eps, &cerr) == DPA_OK)
            cf->bound = (dpa_bound){ 0.0, R * eps, R * eps, 0.0, DPA_NO_LOWER };
        else {
            cf->supported = 0;
            snprintf(cf->reason, sizeof cf->reason, "%s", cerr.message);
        }
    }
    /* each user's data passes R (eps0, delta0) randomizers: (R eps0, R delta0) */
    result *local = &rows[n++];
    local->method = m->steps > 1 ? "local x R" : "local";
    local->supported = 1;
    if (R * m->delta0 <= qs->at)
        local->bound = (dpa_bound){ 0.0, R * m->epsilon0, R * m->epsilon0, 0.0, DPA_NO_LOWER };
    else {
        local->supported = 0;
        snprintf(local->reason, sizeof local->reason, "the local guarantee has delta R delta0 = %g above delta",
                 R * m->delta0);
    }
    return n;
}

/* The named accountants on the same mechanism.  One that fails does not
 * stop the others; the status is 1 afterwards so scripts notice. */
static int compare_methods(const cli *c, const mechanism *m, const char *const *names, size_t n)
{
    query_spec qs = given(c, OPT_EPSILON) ? (query_spec){ QUERY_DELTA, c->epsilon, c->failure_delta }
                                          : (query_spec){ QUERY_EPSILON, c->delta, c->failure_delta };
    dpa_error err = { 0 };
    dpa_options opt;
    make_options(c, &opt);
    /* one more row for noisy-cgd (the same noise without the hidden
     * state), up to three for shuffled (shuffle_reference_rows) */
    result *rows = calloc(n + 3, sizeof *rows);
    if (!rows) {
        set_error(&err, DPA_ENOMEM, "out of memory");
        return library_error(&err);
    }
    dpa_event *e = mechanism_event(m, &err);
    if (!e) {
        free(rows);
        return library_error(&err);
    }
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        run_accountant(names[i], &opt, e, &qs, &rows[i]);
        failed |= rows[i].failed;
    }
    size_t n_rows = n;
    if (m->shuffled) n_rows += shuffle_reference_rows(m, &qs, rows + n_rows);
    if (m->shuffled_batches || m->balls_in_bins) n_rows += poisson_as_if_row(m, &opt, &qs, rows + n_rows);
    if (m->noisy_cgd) {
        /* The same data use if every iterate were released: each example is
         * in one batch per epoch, a Gaussian step of multiplier sigma, so E
         * of them compose (exactly, by the analytic Gaussian). */
        dpa_event *plain = dpa_event_self_composed(dpa_event_gaussian(m->sigma, &err), m->steps, &err);
        if (m->tuning_runs > 0.0) plain = dpa_event_repeated_selected(plain, DPA_REPEAT_POISSON, m->tuning_runs, 0.0, &err);
        if (!plain) {
            dpa_event_free(e);
            free(rows);
            return library_error(&err);
        }
        run_accountant("gaussian", &opt, plain, &qs, &rows[n]);
        rows[n].method = "composition";
        failed |= rows[n].failed;
        dpa_event_free(plain);
        n_rows++;
    }
    char mech[DESCRIPTION_SIZE];
    describe_mechanism(c, e, mech, sizeof mech);
    dpa_event_free(e);
    int pr = print_results(c->format, c->relation, mech, &qs, rows, n_rows, 0);
    if (pr) {
        free(rows);
        return report_failed(pr);
    }
    if (m->noisy_cgd && c->format == CLI_FORMAT_TABLE)
        printf("composition: the same noisy steps with every iterate released (%" PRIu64
               " Gaussian steps per example).\n", m->steps);
    if (m->shuffled_batches && c->format == CLI_FORMAT_TABLE)
        printf("batches: the shuffled run lies between Chua et al.'s lower bound (ICML 2024, NeurIPS 2024; each "
               "epoch shuffled afresh)\n  and the Gaussian once an epoch (no amplification: holds for any order).\n");
    if (m->balls_in_bins && c->format == CLI_FORMAT_TABLE)
        printf("balls-in-bins: the batches of Chua et al. (ICML 2025), random allocation (Feldman & Shenfeld "
               "2025);\n  pld: their decomposition into Poisson sampling conditioned on use; rdp: their direct "
               "bound; mc: an estimate.\n");
    if ((m->shuffled_batches || m->balls_in_bins) && c->format == CLI_FORMAT_TABLE)
        printf("poisson (as if): the same run accounted as Poisson sampling at q = B/N, as is often reported; "
               "not a bound for %s.\n", m->shuffled_batches ? "shuffled batches"
                                        : m->selected > 1  ? "allocation batches"
                                                           : "balls-in-bins batches");
    if (m->shuffled && c->format == CLI_FORMAT_TABLE && qs.kind == QUERY_EPSILON)
        printf("closed form: Feldman, McMillan & Talwar 2021, Thm 3.1; local: eps0, the guarantee without "
               "shuffling%s.\n", m->steps > 1 ? "; x R: basic composition of R rounds at delta/R each" : "");
    int st = failed ? CLI_EXIT_LIBRARY : CLI_EXIT_OK;
    for (size_t i = 0; i < n_rows; i++)
        if (rows[i].width_failed) {
            st = width_error(rows[i].reason);   /* the first: one line */
            break;
        }
    free(rows);
    return st;
}

/* dpacct shuffle: one round, the shuffle accountant's exact clones bound;
 * R rounds, the pld accountant's composition through the pair and, for
 * comparison, the one-round bound composed basically; with the reference
 * rows either way.  A Gaussian local randomizer (--sigma) has its own. */
static int cmd_shuffle_gaussian(const cli *c, const mechanism *m);
static int cmd_shuffle(const cli *c, const mechanism *m)
{
    if (m->gaussian_local) return cmd_shuffle_gaussian(c, m);
    if (m->steps <= 1) {
        static const char *const only[] = { "shuffle" };
        return compare_methods(c, m, only, 1);
    }
    static const char *const composed[] = { "pld" };
    return compare_methods(c, m, composed, 1);
}

static int cmd_shuffle_gaussian(const cli *c, const mechanism *m)
{
    dpa_error err = { 0 };
    dpa_shuffled_gaussian g;
    double start = cli_now_ms();
    if (dpa_shuffled_gaussian_epsilon(m->sigma, m->users, c->delta, &g, &err) != DPA_OK) return library_error(&err);
    double ms = cli_now_ms() - start;
    query_spec qs = { QUERY_EPSILON, c->delta, 0.0 };
    result rows[2];
    memset(rows, 0, sizeof rows);
    static char shuffled_name[96];
    if (isfinite(g.shuffled_epsilon))
        snprintf(shuffled_name, sizeof shuffled_name, "shuffled (eps0 %.4g, delta0 %.3g)", g.epsilon0, g.delta0);
    else
        snprintf(shuffled_name, sizeof shuffled_name, "shuffled");
    rows[0].method = shuffled_name;
    rows[0].supported = 1;
    rows[0].time_ms = ms;
    if (isfinite(g.shuffled_epsilon))
        rows[0].bound = (dpa_bound){ 0.0, g.shuffled_epsilon, g.shuffled_epsilon, 0.0, DPA_NO_LOWER };
    else {
        rows[0].supported = 0;
        snprintf(rows[0].reason, sizeof rows[0].reason,
                 "no split (eps0, delta0) of the Gaussian's profile reaches delta %g with %" PRIu64 " users", c->delta,
                 m->users);
    }
    rows[1].method = "plain (mu = 1/sigma)";
    rows[1].supported = 1;
    rows[1].bound = (dpa_bound){ 0.0, g.plain_epsilon, g.plain_epsilon, 0.0, DPA_NO_LOWER };
    char mech[DESCRIPTION_SIZE];
    snprintf(mech, sizeof mech, "shuffled gaussian(sigma=%g, n=%" PRIu64 ")", m->sigma, m->users);
    int pr = print_results(c->format, c->relation, mech, &qs, rows, 2, 0);
    if (pr) return report_failed(pr);
    if (c->format == CLI_FORMAT_TABLE)
        printf("used: %s (epsilon %.6g), the smaller certified bound.\n",
               g.amplified ? "shuffled" : "plain", g.epsilon);
    return CLI_EXIT_OK;
}

/* Every registered accountant on the same mechanism. */
static int cmd_compare(const cli *c, const mechanism *m)
{
    const char *const *names = dpa_accountant_names();
    size_t n = 0;
    while (names[n]) n++;
    return compare_methods(c, m, names, n);
}

/* ---- subcommand: calibrate ------------------------------------------------ */

/* The fixed part of the mechanism while one parameter is searched. */
typedef struct family_ctx {
    mechanism fixed;
    solve_target solve;
    uint64_t dataset;        /* --solve batch-size: N */
    int without_replacement; /* --solve batch-size: batches of exactly B */
} family_ctx;

/* Whether what is solved for is an integer (steps, epochs, batch size). */
static int solves_integer(solve_target solve)
{
    return solve == SOLVE_STEPS || solve == SOLVE_EPOCHS || solve == SOLVE_BATCH_SIZE;
}

/* The mechanism with the searched parameter set to `param`; -1 (err set)
 * when the value is out of its range. */
static int mechanism_at(const family_ctx *f, double param, mechanism *m, dpa_error *err)
{
    *m = f->fixed;
    if (solves_integer(f->solve) && !(param >= 1.0 && param < 18446744073709551616.0 && param == floor(param))) {
        set_error(err, DPA_EINVAL, "calibrate: %s %g out of range", solve_name(f->solve), param);
        return -1;
    }
    switch (f->solve) {
    case SOLVE_SIGMA: m->sigma = param; break;
    case SOLVE_STRONG_CONVEXITY:
        m->strong_convexity = param;
        if (m->smoothness_follows) m->smoothness = param;
        break;
    case SOLVE_STEPS: m->steps = (uint64_t)param; break;
    case SOLVE_EPOCHS:
        if (epochs_steps(param, m->q, &m->steps)) {
            set_error(err, DPA_EINVAL, "calibrate: %g epochs at sampling rate %g is 2^64 steps or more", param, m->q);
            return -1;
        }
        break;
    case SOLVE_BATCH_SIZE:
        if (param > (double)f->dataset) {
            set_error(err, DPA_EINVAL, "calibrate: batch size %g exceeds the dataset size %" PRIu64, param, f->dataset);
            return -1;
        }
        m->q = param / (double)f->dataset;
        if (f->without_replacement) m->batch = (uint64_t)param, m->dataset = f->dataset;
        break;
    case SOLVE_SAMPLING_RATE: m->q = param; break;
    }
    return 0;
}

/* The event family searched by dpa_calibrate_search: the value solved for
 * (an integral double for the integer ones) replaces the fixed one. */
static dpa_event *mechanism_family(double param, void *ctx, dpa_error *err)
{
    mechanism m;
    if (mechanism_at(ctx, param, &m, err)) return NULL;
    return mechanism_event(&m, err);
}

/* The search for each --solve: direction, range, start and tolerance.
 * Noise: the smallest in [--sigma-min, --sigma-max] (1e-6 to 1e9 by
 * default); steps: the largest in [1, 1e15]; epochs: the largest whose
 * steps are at most 1e15; batch size: the largest in [1, N]; sampling
 * rate: the largest in [1e-9, 1]; strong convexity: below. */
static void calibration_for(const cli *c, const mechanism *m, dpa_calibration *cal)
{
    const solve_target solve = c->solve;
    dpa_calibration_init(cal, solve == SOLVE_SIGMA || solve == SOLVE_STRONG_CONVEXITY ? DPA_SEARCH_SMALLEST
                                                                                         : DPA_SEARCH_LARGEST);
    cal->integer = solves_integer(solve);
    cal->rel_tol = c->tolerance;
    cal->name = solve_name(solve);
    switch (solve) {
    case SOLVE_SIGMA:
        cal->limit_lo = c->sigma_min;
        cal->limit_hi = c->sigma_max;
        cal->lo = fmin(fmax(0.1, c->sigma_min), c->sigma_max);
        cal->hi = fmax(fmin(10.0, c->sigma_max), c->sigma_min);
        if (!(cal->lo < cal->hi)) cal->lo = c->sigma_min, cal->hi = c->sigma_max;
        break;
    case SOLVE_STRONG_CONVEXITY: {
        /* eps decreases in lambda while c = max(|1 - eta lambda|, |1 - eta beta|)
         * does: up to eta lambda = 1, and up to beta (lambda <= beta) when the
         * smoothness is given; the smallest lambda meeting the target. */
        double top = 1.0 / m->step_size;
        if (!m->smoothness_follows) top = fmin(top, m->smoothness);
        cal->limit_hi = top;
        cal->limit_lo = top * 1e-15;
        cal->hi = top;
        cal->lo = top * 1e-6;
        break;
    }
    case SOLVE_STEPS:
        cal->lo = cal->limit_lo = 1.0;
        cal->hi = 1000.0;
        cal->limit_hi = 1e15;
        break;
    case SOLVE_EPOCHS:
        cal->lo = cal->limit_lo = 1.0;
        cal->limit_hi = fmax(2.0, floor(1e15 * m->q));
        cal->hi = fmin(100.0, cal->limit_hi);
        break;
    case SOLVE_BATCH_SIZE:
        cal->lo = cal->limit_lo = 1.0;
        cal->hi = cal->limit_hi = (double)c->dataset;
        break;
    case SOLVE_SAMPLING_RATE:
        cal->limit_lo = 1e-9;
        cal->lo = 1e-3;
        cal->hi = cal->limit_hi = 1.0;
        break;
    }
}

/* What calibrate solved for, as it is printed. */
typedef struct solved {
    const char *name;    /* JSON and CSV "solve": the --solve target or the template's parameter */
    const char *label;   /* the table's row */
    const char *unit;    /* an integer's unit in "tolerance 1 step" ("" for none) */
    const char *event;   /* a template's: the event whose parameter it is (NULL for flags) */
    int integer;
    /* flags only: the Gaussian mechanism's steps and sampling rate at the
     * value found (has_steps 0: absent), and which of them is printed on a
     * line of its own */
    int has_steps, show_steps, show_rate;
    uint64_t steps;
    double rate;
    cli_role rate_role;
} solved;

/* What each --solve is, as printed. */
static solved solved_flags(const cli *c, const family_ctx *f, const dpa_calibration *cal)
{
    static const char *const labels[] = { "noise multiplier", "steps", "strong convexity", "epochs", "batch size",
                                          "sampling rate" };
    const solve_target solve = c->solve;
    solved s = { solve_name(solve), labels[solve],
                 solve == SOLVE_STEPS ? "step" : solve == SOLVE_EPOCHS ? "epoch" : solve == SOLVE_BATCH_SIZE ? "example" : "",
                 NULL, solves_integer(solve), 0, solve == SOLVE_EPOCHS, solve == SOLVE_BATCH_SIZE, 0, NAN,
                 solve == SOLVE_SAMPLING_RATE ? CLI_ROLE_LOWER : CLI_ROLE_PLAIN };
    /* the steps and sampling rate of the mechanism at the value found (a
     * Gaussian mechanism's; noisy-cgd has epochs and fixed batches) */
    mechanism at;
    dpa_error ignored = { 0 };
    if (!f->fixed.noisy_cgd && mechanism_at(f, cal->value, &at, &ignored) == 0) {
        s.has_steps = 1;
        s.steps = at.steps;
        s.rate = at.q;
    }
    return s;
}

/* Print the calibration; -1 (nothing printed) when a value is NaN, -2 (after
 * a message) when the JSON document could not be built. */
static int print_calibration(const cli *c, const solved *sv, const char *method, const char *mech,
                             const dpa_calibration *cal, int converged)
{
    const int integer = sv->integer, smallest = cal->direction == DPA_SEARCH_SMALLEST;
    const cli_style style = cli_style_of(c->format);
    char value[CLI_NUMBER_SIZE], fails[CLI_NUMBER_SIZE], eps_v[CLI_NUMBER_SIZE], eps_f[CLI_NUMBER_SIZE],
        tol[CLI_NUMBER_SIZE], target[CLI_NUMBER_SIZE], delta[CLI_NUMBER_SIZE], steps[CLI_NUMBER_SIZE],
        rate[CLI_NUMBER_SIZE], range_lo[CLI_NUMBER_SIZE], range_hi[CLI_NUMBER_SIZE];
    /* Through the one rule (cli_format_value), rounded so that the printed
     * value still meets the target and the printed failing value still
     * fails: the noise up and its failing value down (epsilon decreases in
     * it), a sampling rate down and its failing value up.  No failing value
     * (the whole range meets) is absent. */
    const cli_role value_role = smallest ? CLI_ROLE_UPPER : CLI_ROLE_LOWER;
    const cli_role fails_role = smallest ? CLI_ROLE_LOWER : CLI_ROLE_UPPER;
    int bad = 0;
    if (integer) snprintf(value, sizeof value, "%" PRIu64, (uint64_t)cal->value);
    else bad |= cli_format_value(cal->value, value_role, style, value);
    if (isnan(cal->fails)) {
        snprintf(fails, sizeof fails, "%s", cli_format_absent(style));
        snprintf(eps_f, sizeof eps_f, "%s", cli_format_absent(style));
    } else {
        if (integer) snprintf(fails, sizeof fails, "%" PRIu64, (uint64_t)cal->fails);
        else bad |= cli_format_value(cal->fails, fails_role, style, fails);
        bad |= cli_format_value(cal->epsilon_at_fails, CLI_ROLE_UPPER, style, eps_f);
    }
    bad |= cli_format_value(cal->epsilon_at_value, CLI_ROLE_UPPER, style, eps_v);
    bad |= cli_format_value(integer ? 1.0 : cal->rel_tol, CLI_ROLE_PLAIN, style, tol);
    bad |= cli_format_value(c->epsilon, CLI_ROLE_PLAIN, style, target);
    bad |= cli_format_value(c->delta, CLI_ROLE_PLAIN, style, delta);
    if (integer) {
        snprintf(range_lo, sizeof range_lo, "%.0f", cal->limit_lo);
        snprintf(range_hi, sizeof range_hi, "%.0f", cal->limit_hi);
    } else {
        bad |= cli_format_value(cal->limit_lo, CLI_ROLE_PLAIN, style, range_lo);
        bad |= cli_format_value(cal->limit_hi, CLI_ROLE_PLAIN, style, range_hi);
    }
    if (sv->has_steps) {
        snprintf(steps, sizeof steps, "%" PRIu64, sv->steps);
        bad |= cli_format_value(sv->rate, sv->rate_role, style, rate);
    } else {
        snprintf(steps, sizeof steps, "%s", cli_format_absent(style));
        snprintf(rate, sizeof rate, "%s", cli_format_absent(style));
    }
    if (bad) return -1;
    const char *what = sv->name, *guide = cal->guide ? cal->guide : "";
    const char *tol_kind = integer ? "absolute" : "relative";

    if (c->format == CLI_FORMAT_JSON) {
        json_t *doc = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:[o, o], s:b, "
                                "s:I, s:o, s:I, s:o, s:o}",
                                "mechanism", cli_json_text(mech), "relation", cli_json_text(relation_name(c->relation)),
                                "method", cli_json_text(method), "solve", cli_json_text(what), "solve_event",
                                sv->event ? cli_json_text(sv->event) : json_null(), "target_epsilon",
                                cli_json_number(target), "delta", cli_json_number(delta), "value",
                                cli_json_number(value), "fails", cli_json_number(fails), "epsilon_at_value",
                                cli_json_number(eps_v), "epsilon_at_fails", cli_json_number(eps_f), "steps",
                                cli_json_number(steps), "sampling_rate", cli_json_number(rate), "range",
                                cli_json_number(range_lo), cli_json_number(range_hi), "converged", converged,
                                "evaluations", (json_int_t)cal->evaluations, "guide",
                                cal->guide ? cli_json_text(guide) : json_null(), "guide_evaluations",
                                (json_int_t)cal->guide_evaluations, "tolerance", cli_json_number(tol),
                                "tolerance_type", cli_json_text(tol_kind));
        if (cli_json_print(stdout, doc)) {
            json_failed();
            return -2;
        }
    } else if (c->format == CLI_FORMAT_CSV) {
        printf("method,solve,relation,target_epsilon,delta,value,fails,epsilon_at_value,"
               "epsilon_at_fails,evaluations,tolerance,tolerance_type,steps,sampling_rate,range_min,range_max,"
               "converged,guide,guide_evaluations\n");
        cli_csv_field(stdout, method);
        printf(",%s,%s,%s,%s,%s,%s,%s,%s,%u,%s,%s,%s,%s,%s,%s,%s,", what, relation_name(c->relation), target,
               delta, value, fails, eps_v, eps_f, cal->evaluations, tol, tol_kind, steps, rate, range_lo, range_hi,
               converged ? "true" : "false");
        cli_csv_field(stdout, guide);
        printf(",%u\n", cal->guide_evaluations);
    } else {
        const char *unit = sv->unit;
        printf("%-17s %s\n", "mechanism", mech);
        printf("%-17s %s\n", "relation", relation_name(c->relation));
        printf("%-17s %s\n", "sigma is", noise_unit(c->relation));
        printf("%-17s %s\n", "method", method);
        printf("%-17s epsilon %s at delta %s\n", "target", target, delta);
        printf("%-17s %s (%s)\n", sv->label, value,
               smallest ? "the smallest found that meets the target" : "the largest found that meets the target");
        if (sv->show_steps) printf("%-17s %s (ceil(epochs / sampling rate))\n", "steps", steps);
        if (sv->show_rate)
            printf("%-17s %s (batch size / dataset size %" PRIu64 ")\n", "sampling rate", rate, c->dataset);
        if (isnan(cal->fails)) printf("%-17s none (every value searched meets the target)\n", "fails at");
        else printf("%-17s %s (epsilon %s)\n", "fails at", fails, eps_f);
        printf("%-17s %s (certified upper bound)\n", "epsilon at value", eps_v);
        printf("%-17s [%s, %s]\n", "range searched", range_lo, range_hi);
        if (cal->guide && cal->guide_evaluations)
            printf("%-17s %u (and %u of %s for the start)\n", "evaluations", cal->evaluations, cal->guide_evaluations,
                   guide);
        else printf("%-17s %u\n", "evaluations", cal->evaluations);
        if (integer) printf("%-17s 1%s%s\n", "tolerance", *unit ? " " : "", unit);
        else printf("%-17s %s (relative width of the final bracket)\n", "tolerance", tol);
        if (!converged)
            printf("%-17s the tolerance was not reached within %u evaluations: the bracket above is the best "
                   "found\n", "note", cal->evaluations);
    }
    return 0;
}

/* The search both kinds of calibration share: the accountant asked, or
 * the default for the family's member at probe_at (default_accountant:
 * pld for random allocation); rdp's closed
 * forms place the start of a costlier accountant's search.  DPA_OK with
 * the mechanism at the value found described into mech, also when the
 * runs ran out with a value that meets the target (*converged 0: the best
 * bracket, flagged); else the error. */
static int search_family(const cli *c, const dpa_options *opt, dpa_event_family family, void *ctx, double probe_at,
                         dpa_calibration *cal, const char **method, int *converged, char mech[DESCRIPTION_SIZE],
                         dpa_error *err)
{
    *method = c->accountant;
    if (!*method) {
        dpa_event *probe = family(probe_at, ctx, err);
        if (!probe) return err->status;
        *method = default_accountant(probe, opt, err);
        dpa_event_free(probe);
        if (!*method) return err->status;
    }
    if (strcmp(*method, "rdp") != 0) cal->guide = "rdp";
    int st = dpa_calibrate_search(*method, opt, family, ctx, c->epsilon, c->delta, cal, err);
    *converged = st == DPA_OK;
    if (st != DPA_OK && !(st == DPA_EACCURACY && isfinite(cal->value))) return st;
    dpa_event *found = family(cal->value, ctx, err);
    if (!found) return err->status ? err->status : DPA_EINVAL;
    dpa_event_describe(found, mech, DESCRIPTION_SIZE);
    dpa_event_free(found);
    return DPA_OK;
}

/* calibrate an event template (--mechanism or --event with one "?"): the
 * library says which way and where to search the open parameter. */
static int cmd_calibrate_template(const cli *c, const mechanism *m)
{
    dpa_error err = { 0 };
    dpa_event_template *t = m->event_text ? dpa_event_template_new(m->event_text, strlen(m->event_text), &err)
                                          : dpa_event_template_load(m->event_file, &err);
    if (!t) return library_error(&err);
    dpa_event_hole hole;
    dpa_calibration cal;
    dpa_options opt;
    make_options(c, &opt);
    int st = dpa_event_template_hole(t, &hole, &err);
    if (!st) st = dpa_event_template_calibration(t, &cal, &err);
    if (st) {
        dpa_event_template_free(t);
        return library_error(&err);
    }
    if (hole.is_count && given(c, OPT_TOLERANCE)) {
        dpa_event_template_free(t);
        return cli_usage_error("--tolerance: %s's %s is a whole number, found exactly (the tolerance is for a "
                               "real parameter)", dpa_event_kind_name(hole.kind), hole.name);
    }
    cal.rel_tol = c->tolerance;
    const char *method;
    int converged;
    char mech[DESCRIPTION_SIZE];
    /* the template at its start value decides the accountant */
    st = search_family(c, &opt, dpa_event_template_family, t, hole.start, &cal, &method, &converged, mech, &err);
    dpa_event_template_free(t);
    if (st) return library_error(&err);
    /* the parameter by its name: the mechanism line shows where it is */
    const solved sv = { hole.name, hole.name, "", dpa_event_kind_name(hole.kind), hole.is_count, 0, 0, 0, 0, NAN,
                        CLI_ROLE_PLAIN };
    int pr = print_calibration(c, &sv, method, mech, &cal, converged);
    return pr ? report_failed(pr) : CLI_EXIT_OK;
}

static int cmd_calibrate(const cli *c, const mechanism *m)
{
    if (m->event_text || m->event_file) return cmd_calibrate_template(c, m);
    dpa_error err = { 0 };
    dpa_options opt;
    make_options(c, &opt);
    family_ctx f = { *m, c->solve, c->dataset, c->without_replacement };
    dpa_calibration cal;
    calibration_for(c, m, &cal);
    /* a representative member of the family decides the accountant: two
     * steps (or epochs) so that the composition is part of its shape, a
     * sampling rate below 1 so that the sampling is */
    double probe_at = c->solve == SOLVE_STEPS || c->solve == SOLVE_EPOCHS ? 2.0
                      : c->solve == SOLVE_SAMPLING_RATE                   ? 0.5
                                                                          : 1.0;
    const char *method;
    int converged;
    char mech[DESCRIPTION_SIZE];
    if (search_family(c, &opt, mechanism_family, &f, probe_at, &cal, &method, &converged, mech, &err))
        return library_error(&err);
    const solved sv = solved_flags(c, &f, &cal);
    int pr = print_calibration(c, &sv, method, mech, &cal, converged);
    return pr ? report_failed(pr) : CLI_EXIT_OK;
}

/* The RDP curve eps(alpha) of the mechanism, one line per order.  The
 * values are upper bounds, printed rounded up. */
static int cmd_rdp_curve(const cli *c, const mechanism *m)
{
    dpa_error err = { 0 };
    dpa_options opt;
    make_options(c, &opt);
    dpa_event *e = mechanism_event(m, &err);
    dpa_accountant *a = e ? dpa_accountant_new("rdp", &opt, &err) : NULL;
    size_t n = 0;
    int st = a ? dpa_accountant_compose(a, e, &err) : err.status;
    if (!st) st = dpa_accountant_rdp_curve(a, NULL, NULL, 0, &n, &err);
    double *orders = st ? NULL : malloc((n ? n : 1) * sizeof *orders);
    double *eps = st ? NULL : malloc((n ? n : 1) * sizeof *eps);
    if (!st && (!orders || !eps)) st = DPA_ENOMEM, set_error(&err, DPA_ENOMEM, "out of memory");
    if (!st) st = dpa_accountant_rdp_curve(a, orders, eps, n, &n, &err);
    char mech[DESCRIPTION_SIZE] = "";
    if (e) dpa_event_describe(e, mech, sizeof mech);
    dpa_accountant_free(a);
    dpa_event_free(e);
    if (st) {
        free(orders);
        free(eps);
        return library_error(&err);
    }
    char o[CLI_NUMBER_SIZE], v[CLI_NUMBER_SIZE];
    const cli_style style = cli_style_of(c->format);
    for (size_t i = 0; i < n; i++)
        if (cli_format_value(orders[i], CLI_ROLE_PLAIN, style, o) || cli_format_value(eps[i], CLI_ROLE_UPPER, style, v)) {
            free(orders);
            free(eps);
            return nan_output();
        }
    if (c->format == CLI_FORMAT_JSON) {
        json_t *curve = json_array();
        for (size_t i = 0; curve && i < n; i++) {
            cli_format_value(orders[i], CLI_ROLE_PLAIN, style, o);
            cli_format_value(eps[i], CLI_ROLE_UPPER, style, v);
            if (json_array_append_new(curve, json_pack("{s:o, s:o}", "order", cli_json_number(o), "epsilon",
                                                       cli_json_number(v)))) {
                json_decref(curve);
                curve = NULL;
            }
        }
        json_t *doc = json_pack("{s:o, s:o, s:o}", "mechanism", cli_json_text(mech), "relation",
                                cli_json_text(relation_name(c->relation)), "curve", curve);
        if (cli_json_print(stdout, doc)) {
            free(orders);
            free(eps);
            return json_failed();
        }
    } else if (c->format == CLI_FORMAT_CSV) {
        printf("order,epsilon\n");
        for (size_t i = 0; i < n; i++) {
            cli_format_value(orders[i], CLI_ROLE_PLAIN, style, o);
            cli_format_value(eps[i], CLI_ROLE_UPPER, style, v);
            printf("%s,%s\n", o, v);
        }
    } else {
        printf("mechanism: %s, %s neighbours\n%-10s  %s\n", mech, relation_name(c->relation), "order",
               "epsilon(order), upper bound");
        for (size_t i = 0; i < n; i++) {
            cli_format_value(orders[i], CLI_ROLE_PLAIN, style, o);
            cli_format_value(eps[i], CLI_ROLE_UPPER, style, v);
            printf("%-10s  %s\n", o, v);
        }
    }
    free(orders);
    free(eps);
    return CLI_EXIT_OK;
}

/* A curve of brackets, one row per x, one accountant composed once and
 * queried at each: the privacy profile (delta at each epsilon) or the
 * trade-off curve (TPR bounds at each false-positive rate).  Upper bounds
 * are printed rounded up, lower bounds rounded down; a row whose width was
 * not met keeps its valid bracket and says so, by how much (with
 * --require-width, DPA_EACCURACY: every row is still printed, then the
 * first such row's reason, exit 1). */
typedef struct curve {
    const char *key;                 /* JSON: the array of rows */
    const char *x_name, *lower_name, *upper_name; /* JSON and CSV */
    const char *x_label, *lower_label, *upper_label, *y_label, *what; /* the table and the figure */
    const double *x;                 /* the points (NULL: --eps-min .. --eps-max, --points) */
    size_t n;
    int (*query)(dpa_accountant *a, double x, dpa_bound *out, dpa_error *err);
    int log_y;                       /* the figure's y axis */
} curve;

static int run_curve(const cli *c, const mechanism *m, const curve *cv)
{
    dpa_error err = { 0 }, width_failed = { 0 };
    dpa_options opt;
    const char *method;
    dpa_event *e = event_and_method(c, m, &opt, &method, &err);
    if (!e) return library_error(&err);
    dpa_accountant *a = dpa_accountant_new(method, &opt, &err);
    int st = a ? dpa_accountant_compose(a, e, &err) : err.status ? err.status : DPA_EINVAL;
    char mech[DESCRIPTION_SIZE];
    dpa_event_describe(e, mech, sizeof mech);
    dpa_event_free(e);
    if (st) {
        dpa_accountant_free(a);
        return library_error(&err);
    }
    /* JSON: the rows so far are printed as one document also when a row
     * fails (as the text and CSV rows before it are) */
    json_t *rows_json = NULL, *doc = NULL;
    if (c->format == CLI_FORMAT_JSON) {
        rows_json = json_array();
        doc = json_pack("{s:o, s:o, s:o, s:o}", "mechanism", cli_json_text(mech), "relation",
                        cli_json_text(relation_name(c->relation)), "method", cli_json_text(method), cv->key,
                        rows_json);
        if (!doc) {
            dpa_accountant_free(a);
            return json_failed();
        }
    } else if (c->format == CLI_FORMAT_CSV) {
        printf("%s,%s,%s,flags\n", cv->x_name, cv->lower_name, cv->upper_name);
    } else {
        printf("mechanism: %s, %s neighbours, method %s\n%-14s %-16s %-16s %s\n", mech, relation_name(c->relation),
               method, cv->x_label, cv->lower_label, cv->upper_label, "notes");
    }
    const size_t n = cv->n;
    double *px = c->plot ? calloc(n, sizeof *px) : NULL, *plo = c->plot ? calloc(n, sizeof *plo) : NULL,
           *pup = c->plot ? calloc(n, sizeof *pup) : NULL;
    if (c->plot && (!px || !plo || !pup)) {
        free(px), free(plo), free(pup);
        dpa_accountant_free(a);
        json_decref(doc);
        set_error(&err, DPA_ENOMEM, "out of memory");
        return library_error(&err);
    }
    for (size_t i = 0; i < n; i++) {
        double x = cv->x ? cv->x[i] : c->eps_min + (c->eps_max - c->eps_min) * (double)i / (double)(n - 1);
        if (!cv->x && i + 1 == n) x = c->eps_max;
        /* query the x as it is printed, so that each row's bracket belongs
         * to the x shown (0.3, not 0.30000000000000004) */
        char shown[CLI_NUMBER_SIZE];
        x = strtod(cli_format_plain(x, shown), NULL);
        dpa_bound b;
        st = cv->query(a, x, &b, &err);
        if (st && !(st == DPA_EACCURACY && (b.flags & DPA_WIDTH_NOT_MET))) {
            if (doc) cli_json_print(stdout, doc);
            free(px), free(plo), free(pup);
            dpa_accountant_free(a);
            return library_error(&err);
        }
        if (st && !width_failed.status) width_failed = err;
        if (px) {
            px[i] = x;
            pup[i] = b.upper;
            plo[i] = b.lower;
        }
        char xs[CLI_NUMBER_SIZE], notes[384], note[128] = "";
        cli_bound_text t;
        size_t used = dpa_bound_describe(b.flags, notes, sizeof notes);
        if (cv->query == dpa_accountant_delta)
            width_note(&b, opt.tolerance > 0.0 ? opt.tolerance : CLI_DEFAULT_EPS_ERROR, note, sizeof note);
        if (note[0] && used < sizeof notes) snprintf(notes + used, sizeof notes - used, " (%s)", note);
        if (!notes[0]) snprintf(notes, sizeof notes, "-");
        if (cli_format_value(x, CLI_ROLE_PLAIN, cli_style_of(c->format), xs) ||
            cli_format_bound(&b, cli_style_of(c->format), &t)) {
            if (doc) cli_json_print(stdout, doc);
            free(px), free(plo), free(pup);
            dpa_accountant_free(a);
            return nan_output();
        }
        const char *lo = t.lower, *up = t.upper;
        if (c->format == CLI_FORMAT_JSON) {
            if (json_array_append_new(rows_json, json_pack("{s:o, s:o, s:o, s:o}", cv->x_name, cli_json_number(xs),
                                                           cv->lower_name, cli_json_number(lo), cv->upper_name,
                                                           cli_json_number(up), "notes", cli_json_text(notes)))) {
                json_decref(doc);
                free(px), free(plo), free(pup);
                dpa_accountant_free(a);
                return json_failed();
            }
        } else if (c->format == CLI_FORMAT_CSV) {
            printf("%s,%s,%s,", xs, lo, up);
            cli_csv_field(stdout, notes);
            printf("\n");
        } else {
            printf("%-14s %-16s %-16s %s\n", xs, lo, up, notes);
        }
    }
    if (doc && cli_json_print(stdout, doc)) {
        free(px), free(plo), free(pup);
        dpa_accountant_free(a);
        return json_failed();
    }
    dpa_accountant_free(a);
    if (px) {
        char why[512], title[DESCRIPTION_SIZE + 64];
        snprintf(title, sizeof title, "%s of %s (%s, %s)", cv->what, mech, method, relation_name(c->relation));
        cli_plot_spec p = { c->plot, title, cv->x_label, cv->y_label, px, plo, pup, n, cv->log_y };
        int bad = cli_plot(&p, why, sizeof why);
        free(px), free(plo), free(pup);
        if (bad) {
            cli_error("--plot: %s", why);
            return CLI_EXIT_LIBRARY;
        }
    }
    if (width_failed.status) return width_error(width_failed.message);
    return CLI_EXIT_OK;
}

/* delta(eps), lower and upper, at --points epsilons from --eps-min to
 * --eps-max; a row whose bracket is wider than asked keeps it, flagged. */
static int cmd_profile(const cli *c, const mechanism *m)
{
    const curve cv = { "profile", "epsilon", "delta_lower", "delta_upper", "epsilon", "delta lower", "delta upper",
                       "delta", "privacy profile", NULL, (size_t)c->points, dpa_accountant_delta, 1 };
    return run_curve(c, m, &cv);
}

/* The attacker's TPR bounds at each --fpr (dpa_accountant_tradeoff). */
static int cmd_tradeoff(const cli *c, const mechanism *m)
{
    static const double default_fprs[] = { 1e-5, 1e-4, 1e-3, 0.01, 0.1, 0.5 };
    const int given_fprs = c->num_fprs > 0;
    const curve cv = { "tradeoff", "fpr", "tpr_lower", "tpr_upper", "FPR", "TPR lower", "TPR upper",
                       "true-positive rate", "trade-off curve", given_fprs ? c->fprs : default_fprs,
                       given_fprs ? c->num_fprs : sizeof default_fprs / sizeof default_fprs[0], dpa_accountant_tradeoff,
                       0 };
    return run_curve(c, m, &cv);
}

/* ---- running a subcommand -------------------------------------------------- */

static int run_command(command_id cmd, const cli *c, const mechanism *m)
{
    switch (cmd) {
    case CMD_EPSILON: return cmd_epsilon(c, m);
    case CMD_DELTA: return cmd_delta(c, m);
    case CMD_CALIBRATE: return cmd_calibrate(c, m);
    case CMD_COMPARE: return cmd_compare(c, m);
    case CMD_RDP_CURVE: return cmd_rdp_curve(c, m);
    case CMD_PROFILE: return cmd_profile(c, m);
    case CMD_TRADEOFF: return cmd_tradeoff(c, m);
    case CMD_SHUFFLE: return cmd_shuffle(c, m);
    case CMD_STATEMENT: return cmd_statement(c, m) ? nan_output() : CLI_EXIT_OK;
    case CMD_NONE: break;
    }
    return CLI_EXIT_OK;
}

/* ---- main ------------------------------------------------------------------ */

/* --print-event: the mechanism as a JSON event, for --event and ledgers. */
static int print_event(const mechanism *m)
{
    dpa_error err = { 0 };
    dpa_event *e = mechanism_event(m, &err);
    char *json = e ? dpa_event_to_json(e, 2, &err) : NULL;
    dpa_event_free(e);
    if (!json) return library_error(&err);
    puts(json);
    free(json);
    return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    command_id cmd;
    cli c;
    mechanism m;
    cli_set_program("dpacct");
    int st = parse_command_line(argc, argv, &cmd, &c, &m);
    if (st != CLI_EXIT_OK || cmd == CMD_NONE) return st;
    st = c.print_event ? print_event(&m) : run_command(cmd, &c, &m);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        dpa_error err = { 0 };
        set_error(&err, DPA_EINVAL, "error writing the output: %s", strerror(errno));
        return library_error(&err);
    }
    return st;
}
