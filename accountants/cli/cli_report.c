/*
 * cli_report.c - running one accountant on one mechanism for the dpacct
 * command, and printing the results as a table, JSON or CSV.
 */
#include "cli_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *reported_name(const query_spec *qs)
{
    return qs->kind == QUERY_EPSILON ? "epsilon" : "delta";
}

const char *given_name(const query_spec *qs)
{
    return qs->kind == QUERY_EPSILON ? "delta" : "epsilon";
}

const char *relation_name(dpa_relation r)
{
    return r == DPA_REPLACE_ONE ? "replace-one" : "add-remove";
}

const char *noise_unit(dpa_relation r)
{
    return r == DPA_REPLACE_ONE ? "noise std / 2C (C the per-example bound: a replaced example moves a sum by up "
                                  "to 2C; --noise-multiplier Z is sigma = Z/2)"
                                : "noise std / C (C the per-example bound, such as the clipping norm)";
}

static void keep_reason(result *r, const dpa_error *err, int status)
{
    snprintf(r->reason, sizeof r->reason, "%s",
             err->message[0] ? err->message : dpa_strerror(status));
}

/* Run `method` on `e`: check support, then time composing and querying. */
void run_accountant(const char *method, const dpa_options *opt, const dpa_event *e,
                           const query_spec *qs, result *r)
{
    memset(r, 0, sizeof *r);
    r->method = method;
    r->tolerance = opt && opt->tolerance > 0.0 ? opt->tolerance : CLI_DEFAULT_EPS_ERROR;
    dpa_error err = { 0 };
    dpa_accountant *a = dpa_accountant_new(method, opt, &err);
    if (!a) {
        r->supported = 1;
        r->failed = 1;
        keep_reason(r, &err, err.status);
        return;
    }
    int st = dpa_accountant_supports(a, e, &err);
    if (st != DPA_OK) {
        keep_reason(r, &err, st);
        dpa_accountant_free(a);
        return;
    }
    r->supported = 1;
    double start = cli_now_ms();
    if (qs->failure_delta > 0.0) st = dpa_accountant_add_failure(a, qs->failure_delta, "--failure-delta", &err);
    if (st == DPA_OK) st = dpa_accountant_compose(a, e, &err);
    if (st == DPA_OK)
        st = qs->kind == QUERY_EPSILON ? dpa_accountant_epsilon(a, qs->at, &r->bound, &err)
                                       : dpa_accountant_delta(a, qs->at, &r->bound, &err);
    r->time_ms = cli_now_ms() - start;
    if (st == DPA_EACCURACY && (r->bound.flags & DPA_WIDTH_NOT_MET)) {
        /* --require-width: a failure, but the bracket is valid and shown */
        r->width_failed = 1;
        keep_reason(r, &err, st);
    } else if (st != DPA_OK) {
        r->failed = 1;
        keep_reason(r, &err, st);
    }
    dpa_accountant_free(a);
}

/* x with two significant digits, the exponent without padding: 1.6e-2,
 * 1e-3, 0.5 stays 5e-1. */
static void short_number(double x, char *buf, size_t size)
{
    char m[32];
    int e = 0;
    snprintf(m, sizeof m, "%.1e", x);
    char *p = strchr(m, 'e');
    if (p) {
        e = atoi(p + 1);
        *p = '\0';
    }
    size_t n = strlen(m);
    if (n >= 2 && strcmp(m + n - 2, ".0") == 0) m[n - 2] = '\0';
    snprintf(buf, size, "%se%d", m, e);
}

const char *width_note(const dpa_bound *b, double tolerance, char *buf, size_t size)
{
    char w[32], t[32];
    buf[0] = '\0';
    if (!(b->flags & DPA_WIDTH_NOT_MET)) return buf;
    short_number(tolerance, t, sizeof t);
    if (!isfinite(b->upper)) snprintf(buf, size, "no finite upper bound found, %s asked", t);
    else {
        short_number(b->upper > 0.0 ? (b->upper - b->lower) / b->upper : 0.0, w, sizeof w);
        snprintf(buf, size, "width %s of upper, %s asked", w, t);
    }
    return buf;
}

int has_value(const result *r)
{
    return r->supported && !r->failed;   /* a width_failed row keeps its bracket */
}

int is_approximate(const result *r)
{
    return has_value(r) && (r->bound.flags & DPA_APPROXIMATE);
}

/* ---- printing results ----------------------------------------------------- */

/* The words of each flag, one flag at a time, so that JSON gets an array
 * without splitting a sentence on its commas.  Returns the count. */
#define MAX_FLAG_WORDS 32
static size_t flag_words(unsigned flags, char words[][96])
{
    size_t n = 0;
    for (unsigned bit = 0; bit < 32 && n < MAX_FLAG_WORDS; bit++) {
        if (!(flags & (1u << bit))) continue;
        if (dpa_bound_describe(1u << bit, words[n], 96) > 0) n++;
    }
    return n;
}

static void join_flags(unsigned flags, const char *sep, char *buf, size_t size)
{
    char words[MAX_FLAG_WORDS][96];
    size_t n = flag_words(flags, words), used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        int k = snprintf(buf + used, size - used, "%s%s", i ? sep : "", words[i]);
        if (k < 0 || (size_t)k >= size - used) break;
        used += (size_t)k;
    }
}

/* A row's bound through the one rule (cli_format_bound); a row without a value
 * (unsupported, failed) prints as absent.  -1 when a NaN reached it. */
static int row_text(const result *r, cli_style style, cli_bound_text *t)
{
    if (has_value(r)) return cli_format_bound(&r->bound, style, t);
    const char *absent = cli_format_absent(style);
    snprintf(t->upper, CLI_NUMBER_SIZE, "%s", absent);
    snprintf(t->lower, CLI_NUMBER_SIZE, "%s", absent);
    snprintf(t->estimate, CLI_NUMBER_SIZE, "%s", absent);
    snprintf(t->order, CLI_NUMBER_SIZE, "%s", absent);
    return 0;
}

/* One row of compare's "results" (or the only one), NULL when a node
 * failed to build (no memory). */
static json_t *json_result(const result *r, const query_spec *qs, const cli_bound_text *t)
{
    char words[MAX_FLAG_WORDS][96], key_upper[64], key_lower[64];
    const char *q = reported_name(qs);
    snprintf(key_upper, sizeof key_upper, "%s_upper", q);
    snprintf(key_lower, sizeof key_lower, "%s_lower", q);
    json_t *flags = json_array();
    size_t n = has_value(r) ? flag_words(r->bound.flags, words) : 0;
    for (size_t i = 0; flags && i < n; i++)
        if (json_array_append_new(flags, cli_json_text(words[i]))) {
            json_decref(flags);
            flags = NULL;
        }
    json_t *time_ms = r->supported ? cli_json_value(r->time_ms, CLI_ROLE_PLAIN) : NULL;
    if (!time_ms) time_ms = json_null();
    return json_pack("{s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o}", "method", cli_json_text(r->method),
                     "supported", r->supported, "reason", r->reason[0] ? cli_json_text(r->reason) : json_null(),
                     key_upper, cli_json_number(t->upper), key_lower, cli_json_number(t->lower), "estimate",
                     cli_json_number(t->estimate), "order", cli_json_number(t->order), "flags", flags,
                     "approximate", is_approximate(r), "time_ms", time_ms);
}

static int print_json(FILE *out, const char *mech, dpa_relation relation, const query_spec *qs,
                      const result *rows, size_t n)
{
    char num[CLI_NUMBER_SIZE];
    cli_bound_text t;
    for (size_t i = 0; i < n; i++)
        if (row_text(&rows[i], CLI_STYLE_JSON, &t)) return -1;   /* before anything is printed */
    if (cli_format_value(qs->at, CLI_ROLE_PLAIN, CLI_STYLE_JSON, num)) return -1;
    json_t *results = json_array();
    for (size_t i = 0; results && i < n; i++) {
        row_text(&rows[i], CLI_STYLE_JSON, &t);
        if (json_array_append_new(results, json_result(&rows[i], qs, &t))) {
            json_decref(results);
            results = NULL;
        }
    }
    json_t *doc = json_pack("{s:o, s:o, s:o, s:o, s:o}", "mechanism", cli_json_text(mech), "relation",
                            cli_json_text(relation_name(relation)), "sigma_is", cli_json_text(noise_unit(relation)),
                            given_name(qs), cli_json_number(num), "results", results);
    if (cli_json_print(out, doc)) {
        cli_error("out of memory while writing the JSON output");
        return -2;
    }
    return 0;
}

static int print_csv(FILE *out, const query_spec *qs, const result *rows, size_t n)
{
    const char *q = reported_name(qs);
    char at[CLI_NUMBER_SIZE], ms[CLI_NUMBER_SIZE], flags[512];
    cli_bound_text t;
    for (size_t i = 0; i < n; i++)
        if (row_text(&rows[i], CLI_STYLE_CSV, &t)) return -1;
    if (cli_format_value(qs->at, CLI_ROLE_PLAIN, CLI_STYLE_CSV, at)) return -1;
    fprintf(out, "method,supported,reason,%s,%s_upper,%s_lower,estimate,order,flags,approximate,time_ms\n",
            given_name(qs), q, q);
    for (size_t i = 0; i < n; i++) {
        const result *r = &rows[i];
        int ok = has_value(r);
        row_text(r, CLI_STYLE_CSV, &t);
        cli_csv_field(out, r->method);
        fprintf(out, ",%s,", r->supported ? "true" : "false");
        cli_csv_field(out, r->reason);
        fprintf(out, ",%s,%s,%s,%s,%s,", at, t.upper, t.lower, t.estimate, t.order);
        join_flags(ok ? r->bound.flags : 0, "; ", flags, sizeof flags);
        cli_csv_field(out, flags);
        if (!r->supported || cli_format_value(r->time_ms, CLI_ROLE_PLAIN, CLI_STYLE_CSV, ms)) ms[0] = '\0';
        fprintf(out, ",%s,%s\n", is_approximate(r) ? "true" : "false", ms);
    }
    return 0;
}

/* The table's note on a bracket wider than asked: by how much, and that
 * upper is still the number to report. */
static void print_width_note(FILE *out, const result *r, int single)
{
    char note[128];
    if (!has_value(r) || !width_note(&r->bound, r->tolerance, note, sizeof note)[0]) return;
    if (single) fprintf(out, "note: width not met (%s): the best certified bracket within the limits; upper is "
                        "still the bound to report\n", note);
    else fprintf(out, "note: %s: width not met (%s): the best certified bracket within the limits\n", r->method,
                 note);
}

static const char approximate_note[] =
    "note: approximate values are estimates, not privacy guarantees; "
    "report the upper bound of a method that is not approximate";

/* One result as "key value" lines: the shape of `epsilon` and `delta`. */
static int print_single_table(FILE *out, const char *mech, dpa_relation relation,
                              const query_spec *qs, const result *r)
{
    char num[CLI_NUMBER_SIZE], flags[512];
    cli_bound_text t;
    if (row_text(r, CLI_STYLE_TEXT, &t) || cli_format_value(qs->at, CLI_ROLE_PLAIN, CLI_STYLE_TEXT, num)) return -1;
    fprintf(out, "%-10s %s\n", "mechanism", mech);
    fprintf(out, "%-10s %s\n", "relation", relation_name(relation));
    fprintf(out, "%-10s %s\n", "sigma is", noise_unit(relation));
    fprintf(out, "%-10s %s\n", given_name(qs), num);
    fprintf(out, "%-10s %s\n", "method", r->method);
    fprintf(out, "%-10s %s\n", "upper", t.upper);
    fprintf(out, "%-10s %s\n", "lower", t.lower);
    fprintf(out, "%-10s %s\n", "estimate", t.estimate);
    join_flags(r->bound.flags, ", ", flags, sizeof flags);
    fprintf(out, "%-10s %s\n", "flags", flags[0] ? flags : "-");
    if (r->bound.order != 0.0) fprintf(out, "%-10s %s\n", "order", t.order);
    if (is_approximate(r)) fprintf(out, "%s\n", approximate_note);
    print_width_note(out, r, 1);
    return 0;
}

/* The cells of one comparison row. */
#define COMPARE_COLUMNS 5
static void compare_cells(const result *r, char cells[COMPARE_COLUMNS][DPA_ERROR_MESSAGE_SIZE + 16])
{
    const size_t size = DPA_ERROR_MESSAGE_SIZE + 16;
    cli_bound_text t;
    row_text(r, CLI_STYLE_TEXT, &t);   /* checked for NaN by the caller */
    snprintf(cells[0], size, "%s", r->method);
    snprintf(cells[1], size, "%s", t.upper);
    snprintf(cells[2], size, "%s", t.lower);
    if (r->supported) snprintf(cells[3], size, "%.3f", r->time_ms);
    else snprintf(cells[3], size, "-");
    if (!r->supported) snprintf(cells[4], size, "unsupported: %s", r->reason);
    else if (r->failed) snprintf(cells[4], size, "error: %s", r->reason);
    else {
        join_flags(r->bound.flags, ", ", cells[4], size);
        if (!cells[4][0]) snprintf(cells[4], size, "-");
    }
}

/* An accountant that cannot handle the mechanism: named under the table.
 * (A reference row that does not apply, such as the shuffled closed form
 * outside its condition, keeps its row: its reason is the point.) */
static int listed_below(const result *r)
{
    if (r->supported) return 0;
    for (const char *const *name = dpa_accountant_names(); *name; name++)
        if (!strcmp(*name, r->method)) return 1;
    return 0;
}

/* The comparison as an aligned table; the notes column comes last because
 * its reasons are long sentences that would push the numbers apart. */
static int print_compare_table(FILE *out, const char *mech, dpa_relation relation,
                               const query_spec *qs, const result *rows, size_t n)
{
    char cells[COMPARE_COLUMNS][DPA_ERROR_MESSAGE_SIZE + 16], num[CLI_NUMBER_SIZE];
    char head[COMPARE_COLUMNS][32];
    cli_bound_text t;
    for (size_t i = 0; i < n; i++)
        if (row_text(&rows[i], CLI_STYLE_TEXT, &t)) return -1;
    if (cli_format_value(qs->at, CLI_ROLE_PLAIN, CLI_STYLE_TEXT, num)) return -1;
    int width[COMPARE_COLUMNS];
    snprintf(head[0], sizeof head[0], "method");
    snprintf(head[1], sizeof head[1], "%s upper", reported_name(qs));
    snprintf(head[2], sizeof head[2], "%s lower", reported_name(qs));
    snprintf(head[3], sizeof head[3], "time (ms)");
    snprintf(head[4], sizeof head[4], "notes");
    for (int j = 0; j < COMPARE_COLUMNS; j++) width[j] = (int)strlen(head[j]);
    /* accountants that cannot handle the mechanism are named in one line
     * under the table (their reasons: --format json or csv), not as rows */
    for (size_t i = 0; i < n; i++) {
        if (listed_below(&rows[i])) continue;
        compare_cells(&rows[i], cells);
        for (int j = 0; j < COMPARE_COLUMNS - 1; j++)
            if ((int)strlen(cells[j]) > width[j]) width[j] = (int)strlen(cells[j]);
    }
    fprintf(out, "mechanism: %s, %s neighbours, %s = %s\n", mech, relation_name(relation),
            given_name(qs), num);
    fprintf(out, "sigma is %s\n", noise_unit(relation));
    fprintf(out, "%-*s  %*s  %*s  %*s  %s\n", width[0], head[0], width[1], head[1], width[2],
            head[2], width[3], head[3], head[4]);
    int approximate = 0;
    size_t unsupported = 0;
    for (size_t i = 0; i < n; i++) {
        if (listed_below(&rows[i])) {
            unsupported++;
            continue;
        }
        compare_cells(&rows[i], cells);
        fprintf(out, "%-*s  %*s  %*s  %*s  %s\n", width[0], cells[0], width[1], cells[1],
                width[2], cells[2], width[3], cells[3], cells[4]);
        approximate |= is_approximate(&rows[i]);
    }
    fprintf(out, "upper is the certified bound to report; lower shows how tight it is.\n");
    if (unsupported) {
        fprintf(out, "not for this mechanism:");
        for (size_t i = 0, k = 0; i < n; i++)
            if (listed_below(&rows[i])) fprintf(out, "%s %s", k++ ? "," : "", rows[i].method);
        fprintf(out, " (the reasons: --format json)\n");
    }
    if (approximate) fprintf(out, "%s\n", approximate_note);
    for (size_t i = 0; i < n; i++) print_width_note(out, &rows[i], 0);
    return 0;
}

int print_results(cli_format format, dpa_relation relation, const char *mech,
                  const query_spec *qs, const result *rows, size_t n, int single)
{
    switch (format) {
    case CLI_FORMAT_JSON: return print_json(stdout, mech, relation, qs, rows, n);
    case CLI_FORMAT_CSV: return print_csv(stdout, qs, rows, n);
    case CLI_FORMAT_TABLE:
        if (single) return print_single_table(stdout, mech, relation, qs, rows);
        return print_compare_table(stdout, mech, relation, qs, rows, n);
    }
    return 0;
}
