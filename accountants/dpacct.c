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
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#endif

#include "dpacct.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { EXIT_OK = 0, EXIT_LIBRARY = 1, EXIT_USAGE = 2 };

/* Room for any one-line event description the CLI builds (three levels). */
#define DESCRIPTION_SIZE 1024
/* Room for one formatted double ("%.17g" of a negative denormal is 24). */
#define NUMBER_SIZE 40

/* ---- error reporting ------------------------------------------------------ */

/* Print "dpacct: MESSAGE" as exactly one line: control characters coming
 * from user input (a value containing a newline) are replaced so that the
 * one-line promise holds whatever was typed. */
static void print_error_line(const char *message)
{
    char line[512];
    snprintf(line, sizeof line, "%s", message);
    for (char *p = line; *p; p++)
        if (iscntrl((unsigned char)*p)) *p = '?';
    fprintf(stderr, "dpacct: %s\n", line);
}

/* A usage error: one line, exit status 2. */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    print_error_line(message);
    return EXIT_USAGE;
}

/* A failure reported by the library: its own sentence, exit status 1. */
static int library_error(const dpa_error *err)
{
    print_error_line(err->message[0] ? err->message : dpa_strerror(err->status));
    return EXIT_LIBRARY;
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

/* ---- printing numbers ----------------------------------------------------- */

/* The decimal unit in the last of 10 significant digits of x. */
static double last_digit_unit(double x)
{
    char buf[NUMBER_SIZE];
    snprintf(buf, sizeof buf, "%.9e", x);
    const char *e = strchr(buf, 'e');
    return e ? pow(10.0, atoi(e + 1) - 9) : 0.0;
}

/* Format x with 10 significant digits, rounded towards +inf (direction > 0)
 * or -inf (direction < 0) instead of to nearest: a certified upper bound
 * must not be printed below its value, nor a lower bound above it.  When
 * the nearest 10-digit decimal lies on the wrong side, the next decimal in
 * that direction is on the right side (x is within half a unit of the
 * first); the full round-trip precision is the fallback for the edge cases
 * (denormals) where that step is lost. */
static void format_directed(double x, int direction, char *buf, size_t size)
{
    if (isnan(x)) { snprintf(buf, size, "nan"); return; }
    if (isinf(x)) { snprintf(buf, size, x > 0 ? "inf" : "-inf"); return; }
    double y = x;
    for (int attempt = 0; attempt < 4; attempt++) {
        snprintf(buf, size, "%.10g", y);
        double back = strtod(buf, NULL);
        if (direction == 0 || (direction > 0 ? back >= x : back <= x)) return;
        y = back + (direction > 0 ? 1.0 : -1.0) * last_digit_unit(back);
    }
    snprintf(buf, size, "%.17g", x);
}

static const char *fmt_upper(double x, char *buf)
{
    format_directed(x, 1, buf, NUMBER_SIZE);
    return buf;
}

static const char *fmt_lower(double x, char *buf)
{
    format_directed(x, -1, buf, NUMBER_SIZE);
    return buf;
}

static const char *fmt_plain(double x, char *buf)
{
    format_directed(x, 0, buf, NUMBER_SIZE);
    return buf;
}

/* ---- JSON and CSV helpers ------------------------------------------------- */

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", out);
        else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
        else fputc(*p, out);
    }
    fputc('"', out);
}

/* A JSON value for a formatted number: JSON has no infinity and no NaN, so
 * infinity is the string "inf" (which float() in most languages accepts)
 * and NaN (no value) is null. */
static void json_number(FILE *out, const char *formatted)
{
    if (strcmp(formatted, "nan") == 0) fputs("null", out);
    else if (strcmp(formatted, "inf") == 0 || strcmp(formatted, "-inf") == 0)
        json_string(out, formatted);
    else fputs(formatted, out);
}

/* One CSV field, quoted as RFC 4180 requires when it holds a separator,
 * a quote or a line break. */
static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) { fputs(s, out); return; }
    fputc('"', out);
    for (const char *p = s; *p; p++) {
        if (*p == '"') fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

/* A CSV field for a formatted number: no value is an empty field. */
static const char *csv_number(const char *formatted)
{
    return strcmp(formatted, "nan") == 0 ? "" : formatted;
}

/* ---- the command line ----------------------------------------------------- */

typedef enum { FORMAT_TABLE, FORMAT_JSON, FORMAT_CSV } out_format;
typedef enum { SOLVE_SIGMA, SOLVE_STEPS } solve_target;

enum option_id {
    OPT_SIGMA, OPT_RATE, OPT_BATCH, OPT_DATASET, OPT_STEPS, OPT_EPOCHS, OPT_RELATION,
    OPT_DELTA, OPT_EPSILON, OPT_ACCOUNTANT, OPT_SOLVE, OPT_ORDERS, OPT_FORMAT, OPT_HELP,
    OPT_COUNT
};
#define OPT_BIT(id) (1u << (id))
/* getopt_long values of the long options: above every character, so they
 * never collide with a short option. */
#define OPT_VAL_BASE 256

static const struct option_info {
    const char *name;
    const char *metavar; /* NULL: takes no value */
    const char *help;
} option_table[OPT_COUNT] = {
    [OPT_SIGMA] = { "sigma", "X", "noise multiplier (noise std / sensitivity), X > 0" },
    [OPT_RATE] = { "sampling-rate", "Q", "Poisson sampling rate, 0 < Q <= 1 (default 1: no sampling)" },
    [OPT_BATCH] = { "batch-size", "B", "expected batch size; with --dataset-size, Q = B/N" },
    [OPT_DATASET] = { "dataset-size", "N", "number of examples, N >= B (with --batch-size)" },
    [OPT_STEPS] = { "steps", "T", "number of steps (compositions), T >= 1 (default 1)" },
    [OPT_EPOCHS] = { "epochs", "E", "passes over the data instead of --steps: T = ceil(E/Q)" },
    [OPT_RELATION] = { "relation", "REL", "neighbouring datasets: add-remove (default) or replace-one" },
    [OPT_DELTA] = { "delta", "D", "delta, 0 < D < 1" },
    [OPT_EPSILON] = { "epsilon", "EPS", "epsilon, EPS >= 0" },
    [OPT_ACCOUNTANT] = { "accountant", "NAME", "accounting method (default: the first that supports the mechanism)" },
    [OPT_SOLVE] = { "solve", "WHAT", "what to solve for: sigma (default) or steps" },
    [OPT_ORDERS] = { "orders", "LIST", "rdp: comma-separated Renyi orders > 1 (default: 94 from 1.25 to 1024)" },
    [OPT_FORMAT] = { "format", "FMT", "output format: table (default), json or csv" },
    [OPT_HELP] = { "help", NULL, "print this help and exit" },
};

#define MECHANISM_OPTIONS                                                                  \
    (OPT_BIT(OPT_SIGMA) | OPT_BIT(OPT_RATE) | OPT_BIT(OPT_BATCH) | OPT_BIT(OPT_DATASET) | \
     OPT_BIT(OPT_STEPS) | OPT_BIT(OPT_EPOCHS) | OPT_BIT(OPT_RELATION))
#define COMMON_OPTIONS (MECHANISM_OPTIONS | OPT_BIT(OPT_ORDERS) | OPT_BIT(OPT_FORMAT) | OPT_BIT(OPT_HELP))
/* at most this many Renyi orders on the command line */
#define MAX_ORDERS 1024

/* What was asked for, as parsed; `seen` records which flags were given. */
typedef struct cli {
    unsigned seen;
    double sigma, rate, epochs, delta, epsilon;
    uint64_t batch, dataset, steps;
    dpa_relation relation;
    const char *accountant; /* NULL: choose one */
    out_format format;
    solve_target solve;
    double orders[MAX_ORDERS]; /* --orders, used by the rdp accountant */
    size_t num_orders;
} cli;

/* The mechanism once the sampling and step flags are resolved. */
typedef struct mechanism {
    double sigma;
    double q;       /* 1: no sampling */
    uint64_t steps; /* 1: no composition */
} mechanism;

static int given(const cli *c, enum option_id id)
{
    return (c->seen & OPT_BIT(id)) != 0;
}

static const char *relation_name(dpa_relation r)
{
    return r == DPA_REPLACE_ONE ? "replace-one" : "add-remove";
}

/* Quote a value for an error message, cut short so the line stays readable. */
static const char *quoted(const char *text, char *buf, size_t size)
{
    size_t n = strlen(text);
    if (n + 3 <= size) snprintf(buf, size, "'%s'", text);
    else snprintf(buf, size, "'%.*s...'", (int)(size - 6), text);
    return buf;
}

typedef enum { REAL_POSITIVE, REAL_NONNEGATIVE, REAL_OPEN_UNIT, REAL_RATE } real_domain;

static int in_domain(double x, real_domain domain)
{
    switch (domain) {
    case REAL_POSITIVE: return x > 0.0;
    case REAL_NONNEGATIVE: return x >= 0.0;
    case REAL_OPEN_UNIT: return x > 0.0 && x < 1.0;
    case REAL_RATE: return x > 0.0 && x <= 1.0;
    }
    return 0;
}

static const char *const real_expected[] = {
    [REAL_POSITIVE] = "a positive number",
    [REAL_NONNEGATIVE] = "a finite number >= 0",
    [REAL_OPEN_UNIT] = "a number strictly between 0 and 1",
    [REAL_RATE] = "a number in (0, 1]",
};

/* A finite real in `domain`.  strtod alone would accept leading blanks,
 * "nan", "inf" and a prefix of "1.5x"; each of those is refused here. */
static int parse_real(enum option_id id, const char *text, real_domain domain, double *out)
{
    char *end = NULL, q[80];
    double x = NAN;
    if (text[0] != '\0' && !isspace((unsigned char)text[0])) x = strtod(text, &end);
    if (!end || end == text || *end != '\0' || !isfinite(x) || !in_domain(x, domain))
        return usage_error("--%s: expected %s, got %s", option_table[id].name,
                           real_expected[domain], quoted(text, q, sizeof q));
    *out = x;
    return EXIT_OK;
}

/* A positive integer that fits in 64 bits.  strtoull would accept a sign
 * (wrapping "-1" to 2^64-1) and leading blanks: digits only are allowed. */
static int parse_count(enum option_id id, const char *text, uint64_t *out)
{
    char *end = NULL, q[80];
    unsigned long long v = 0;
    if (isdigit((unsigned char)text[0])) {
        errno = 0;
        v = strtoull(text, &end, 10);
        if (*end == '\0' && errno == ERANGE)
            return usage_error("--%s: expected a positive integer below 2^64, got %s",
                               option_table[id].name, quoted(text, q, sizeof q));
    }
    if (!end || *end != '\0' || v == 0 || v > UINT64_MAX)
        return usage_error("--%s: expected a positive integer, got %s", option_table[id].name,
                           quoted(text, q, sizeof q));
    *out = (uint64_t)v;
    return EXIT_OK;
}

/* A comma-separated list of Renyi orders, each finite and > 1. */
static int parse_orders(cli *c, const char *text)
{
    char item[80], q[80];
    const char *p = text;
    c->num_orders = 0;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        double x = NAN;
        char *end = NULL;
        if (len > 0 && len < sizeof item) {
            memcpy(item, p, len);
            item[len] = '\0';
            if (!isspace((unsigned char)item[0])) x = strtod(item, &end);
        }
        if (!end || *end != '\0' || !isfinite(x) || !(x > 1.0))
            return usage_error("--orders: expected a comma-separated list of numbers > 1, got %s",
                               quoted(text, q, sizeof q));
        if (c->num_orders == MAX_ORDERS)
            return usage_error("--orders: at most %d orders", MAX_ORDERS);
        c->orders[c->num_orders++] = x;
        if (!comma) return EXIT_OK;
        p = comma + 1;
    }
}

/* The index of `text` in the NULL-terminated `choices`, or -1 after
 * reporting the error. */
static int parse_choice(enum option_id id, const char *text, const char *const *choices)
{
    char list[256] = "", q[80];
    size_t used = 0;
    for (int i = 0; choices[i]; i++) {
        if (strcmp(text, choices[i]) == 0) return i;
        int n = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", choices[i]);
        if (n > 0 && (size_t)n < sizeof list - used) used += (size_t)n;
    }
    usage_error("--%s: expected one of %s, got %s", option_table[id].name, list,
                quoted(text, q, sizeof q));
    return -1;
}

static int parse_value(cli *c, enum option_id id, const char *arg)
{
    static const char *const relations[] = { "add-remove", "replace-one", NULL };
    static const char *const formats[] = { "table", "json", "csv", NULL };
    static const char *const solves[] = { "sigma", "steps", NULL };
    int choice;
    switch (id) {
    case OPT_SIGMA: return parse_real(id, arg, REAL_POSITIVE, &c->sigma);
    case OPT_RATE: return parse_real(id, arg, REAL_RATE, &c->rate);
    case OPT_EPOCHS: return parse_real(id, arg, REAL_POSITIVE, &c->epochs);
    case OPT_DELTA: return parse_real(id, arg, REAL_OPEN_UNIT, &c->delta);
    case OPT_EPSILON: return parse_real(id, arg, REAL_NONNEGATIVE, &c->epsilon);
    case OPT_BATCH: return parse_count(id, arg, &c->batch);
    case OPT_DATASET: return parse_count(id, arg, &c->dataset);
    case OPT_STEPS: return parse_count(id, arg, &c->steps);
    case OPT_RELATION:
        if ((choice = parse_choice(id, arg, relations)) < 0) return EXIT_USAGE;
        c->relation = choice == 1 ? DPA_REPLACE_ONE : DPA_ADD_REMOVE;
        return EXIT_OK;
    case OPT_FORMAT:
        if ((choice = parse_choice(id, arg, formats)) < 0) return EXIT_USAGE;
        c->format = (out_format)choice;
        return EXIT_OK;
    case OPT_SOLVE:
        if ((choice = parse_choice(id, arg, solves)) < 0) return EXIT_USAGE;
        c->solve = (solve_target)choice;
        return EXIT_OK;
    case OPT_ACCOUNTANT:
        /* checked against the registry, so a typo is a usage error (2) and
         * not a library failure found later */
        if ((choice = parse_choice(id, arg, dpa_accountant_names())) < 0) return EXIT_USAGE;
        c->accountant = dpa_accountant_names()[choice];
        return EXIT_OK;
    case OPT_ORDERS: return parse_orders(c, arg);
    case OPT_HELP:
    case OPT_COUNT:
        break;
    }
    return EXIT_OK;
}

/* ---- subcommands: descriptions -------------------------------------------- */

typedef struct command_info command_info;
typedef int (*command_fn)(const cli *c, const mechanism *m);

struct command_info {
    const char *name;
    const char *summary;  /* one line for `dpacct --help` */
    const char *synopsis; /* after "dpacct NAME" */
    const char *about;    /* the paragraph of `dpacct NAME --help` */
    unsigned options;     /* the flags it accepts */
    const char *delta_help, *epsilon_help; /* what --delta / --epsilon mean here */
    command_fn run;
};

/* ---- building events and running accountants ------------------------------ */

/* gaussian(sigma), Poisson-sampled when q < 1, self-composed when steps > 1.
 * The wrappers own their child also when they fail, so a NULL propagates
 * with the first error and nothing leaks. */
static dpa_event *build_event(double sigma, double q, uint64_t steps, dpa_error *err)
{
    dpa_event *e = dpa_event_gaussian(sigma, err);
    if (q < 1.0) e = dpa_event_poisson_sampled(q, e, err);
    if (steps > 1) e = dpa_event_self_composed(e, steps, err);
    return e;
}

static void make_options(const cli *c, dpa_options *opt)
{
    dpa_options_init(opt);
    opt->relation = c->relation;
    opt->orders = c->num_orders ? c->orders : NULL;
    opt->num_orders = c->num_orders;
}

/* The first accountant, in registry order, that supports `e`.  Registry
 * order doubles as the order of preference: the exact analytic Gaussian
 * comes first, so it is chosen whenever the mechanism is unsampled, and
 * gdp (approximate when sampled) only when nothing before it applies. */
static const char *default_accountant(const dpa_event *e, const dpa_options *opt, dpa_error *err)
{
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

/* What a result reports: epsilon at a given delta, or delta at a given epsilon. */
typedef enum { QUERY_EPSILON, QUERY_DELTA } query_kind;
typedef struct query_spec {
    query_kind kind;
    double at; /* the delta (or epsilon) it is reported at */
} query_spec;

static const char *reported_name(const query_spec *qs)
{
    return qs->kind == QUERY_EPSILON ? "epsilon" : "delta";
}

static const char *given_name(const query_spec *qs)
{
    return qs->kind == QUERY_EPSILON ? "delta" : "epsilon";
}

/* One accountant's answer for one mechanism. */
typedef struct result {
    const char *method;
    int supported;                       /* supports() accepted the mechanism */
    int failed;                          /* supported, but compose or query failed */
    char reason[DPA_ERROR_MESSAGE_SIZE]; /* why unsupported, or why it failed */
    dpa_bound bound;
    double time_ms;
} result;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void keep_reason(result *r, const dpa_error *err, int status)
{
    snprintf(r->reason, sizeof r->reason, "%s",
             err->message[0] ? err->message : dpa_strerror(status));
}

/* Run `method` on `e`: check support, then time composing and querying. */
static void run_accountant(const char *method, const dpa_options *opt, const dpa_event *e,
                           const query_spec *qs, result *r)
{
    memset(r, 0, sizeof *r);
    r->method = method;
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
    double start = now_ms();
    st = dpa_accountant_compose(a, e, &err);
    if (st == DPA_OK)
        st = qs->kind == QUERY_EPSILON ? dpa_accountant_epsilon(a, qs->at, &r->bound, &err)
                                       : dpa_accountant_delta(a, qs->at, &r->bound, &err);
    r->time_ms = now_ms() - start;
    if (st != DPA_OK) {
        r->failed = 1;
        keep_reason(r, &err, st);
    }
    dpa_accountant_free(a);
}

static int has_value(const result *r)
{
    return r->supported && !r->failed;
}

static int is_approximate(const result *r)
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

/* The lower bound as text, "-" when the method has none. */
static const char *lower_text(const result *r, char *buf)
{
    if (!has_value(r) || (r->bound.flags & DPA_NO_LOWER)) return "-";
    return fmt_lower(r->bound.lower, buf);
}

static void print_json_result(FILE *out, const result *r, const query_spec *qs)
{
    char num[NUMBER_SIZE], words[MAX_FLAG_WORDS][96];
    const char *q = reported_name(qs);
    int ok = has_value(r);
    fputs("    {\"method\": ", out);
    json_string(out, r->method);
    fprintf(out, ", \"supported\": %s, \"reason\": ", r->supported ? "true" : "false");
    if (r->reason[0]) json_string(out, r->reason);
    else fputs("null", out);
    fprintf(out, ", \"%s_upper\": ", q);
    json_number(out, ok ? fmt_upper(r->bound.upper, num) : "nan");
    fprintf(out, ", \"%s_lower\": ", q);
    json_number(out, ok && !(r->bound.flags & DPA_NO_LOWER) ? fmt_lower(r->bound.lower, num) : "nan");
    fputs(", \"estimate\": ", out);
    json_number(out, ok ? fmt_plain(r->bound.estimate, num) : "nan");
    fputs(", \"order\": ", out);
    json_number(out, ok && r->bound.order != 0.0 ? fmt_plain(r->bound.order, num) : "nan");
    fputs(", \"flags\": [", out);
    size_t n = ok ? flag_words(r->bound.flags, words) : 0;
    for (size_t i = 0; i < n; i++) {
        if (i) fputs(", ", out);
        json_string(out, words[i]);
    }
    fprintf(out, "], \"approximate\": %s, \"time_ms\": ", is_approximate(r) ? "true" : "false");
    json_number(out, r->supported ? fmt_plain(r->time_ms, num) : "nan");
    fputs("}", out);
}

static void print_json(FILE *out, const char *mech, dpa_relation relation, const query_spec *qs,
                       const result *rows, size_t n)
{
    char num[NUMBER_SIZE];
    fputs("{\n  \"mechanism\": ", out);
    json_string(out, mech);
    fputs(",\n  \"relation\": ", out);
    json_string(out, relation_name(relation));
    fprintf(out, ",\n  \"%s\": %s,\n  \"results\": [\n", given_name(qs), fmt_plain(qs->at, num));
    for (size_t i = 0; i < n; i++) {
        print_json_result(out, &rows[i], qs);
        fputs(i + 1 < n ? ",\n" : "\n", out);
    }
    fputs("  ]\n}\n", out);
}

static void print_csv(FILE *out, const query_spec *qs, const result *rows, size_t n)
{
    const char *q = reported_name(qs);
    char at[NUMBER_SIZE], up[NUMBER_SIZE], lo[NUMBER_SIZE], est[NUMBER_SIZE], ord[NUMBER_SIZE],
        ms[NUMBER_SIZE], flags[512];
    fprintf(out, "method,supported,reason,%s,%s_upper,%s_lower,estimate,order,flags,approximate,time_ms\n",
            given_name(qs), q, q);
    fmt_plain(qs->at, at);
    for (size_t i = 0; i < n; i++) {
        const result *r = &rows[i];
        int ok = has_value(r);
        csv_field(out, r->method);
        fprintf(out, ",%s,", r->supported ? "true" : "false");
        csv_field(out, r->reason);
        fprintf(out, ",%s,%s,%s,%s,%s,", at, ok ? fmt_upper(r->bound.upper, up) : "",
                ok && !(r->bound.flags & DPA_NO_LOWER) ? fmt_lower(r->bound.lower, lo) : "",
                ok ? fmt_plain(r->bound.estimate, est) : "",
                ok && r->bound.order != 0.0 ? csv_number(fmt_plain(r->bound.order, ord)) : "");
        join_flags(ok ? r->bound.flags : 0, "; ", flags, sizeof flags);
        csv_field(out, flags);
        fprintf(out, ",%s,%s\n", is_approximate(r) ? "true" : "false",
                r->supported ? fmt_plain(r->time_ms, ms) : "");
    }
}

static const char approximate_note[] =
    "note: approximate values are estimates, not privacy guarantees; "
    "report the upper bound of a method that is not approximate";

/* One result as "key value" lines: the shape of `epsilon` and `delta`. */
static void print_single_table(FILE *out, const char *mech, dpa_relation relation,
                               const query_spec *qs, const result *r)
{
    char num[NUMBER_SIZE], flags[512];
    fprintf(out, "%-10s %s\n", "mechanism", mech);
    fprintf(out, "%-10s %s\n", "relation", relation_name(relation));
    fprintf(out, "%-10s %s\n", given_name(qs), fmt_plain(qs->at, num));
    fprintf(out, "%-10s %s\n", "method", r->method);
    fprintf(out, "%-10s %s\n", "upper", fmt_upper(r->bound.upper, num));
    fprintf(out, "%-10s %s\n", "lower", lower_text(r, num));
    fprintf(out, "%-10s %s\n", "estimate", fmt_plain(r->bound.estimate, num));
    join_flags(r->bound.flags, ", ", flags, sizeof flags);
    fprintf(out, "%-10s %s\n", "flags", flags[0] ? flags : "-");
    if (r->bound.order != 0.0) fprintf(out, "%-10s %s\n", "order", fmt_plain(r->bound.order, num));
    if (is_approximate(r)) fprintf(out, "%s\n", approximate_note);
}

/* The cells of one comparison row. */
#define COMPARE_COLUMNS 5
static void compare_cells(const result *r, char cells[COMPARE_COLUMNS][DPA_ERROR_MESSAGE_SIZE + 16])
{
    char num[NUMBER_SIZE];
    const size_t size = DPA_ERROR_MESSAGE_SIZE + 16;
    snprintf(cells[0], size, "%s", r->method);
    snprintf(cells[1], size, "%s", has_value(r) ? fmt_upper(r->bound.upper, num) : "-");
    snprintf(cells[2], size, "%s", lower_text(r, num));
    if (r->supported) snprintf(cells[3], size, "%.3f", r->time_ms);
    else snprintf(cells[3], size, "-");
    if (!r->supported) snprintf(cells[4], size, "unsupported: %s", r->reason);
    else if (r->failed) snprintf(cells[4], size, "error: %s", r->reason);
    else {
        join_flags(r->bound.flags, ", ", cells[4], size);
        if (!cells[4][0]) snprintf(cells[4], size, "-");
    }
}

/* The comparison as an aligned table; the notes column comes last because
 * its reasons are long sentences that would push the numbers apart. */
static void print_compare_table(FILE *out, const char *mech, dpa_relation relation,
                                const query_spec *qs, const result *rows, size_t n)
{
    char cells[COMPARE_COLUMNS][DPA_ERROR_MESSAGE_SIZE + 16], num[NUMBER_SIZE];
    char head[COMPARE_COLUMNS][32];
    int width[COMPARE_COLUMNS];
    snprintf(head[0], sizeof head[0], "method");
    snprintf(head[1], sizeof head[1], "%s upper", reported_name(qs));
    snprintf(head[2], sizeof head[2], "%s lower", reported_name(qs));
    snprintf(head[3], sizeof head[3], "time (ms)");
    snprintf(head[4], sizeof head[4], "notes");
    for (int j = 0; j < COMPARE_COLUMNS; j++) width[j] = (int)strlen(head[j]);
    for (size_t i = 0; i < n; i++) {
        compare_cells(&rows[i], cells);
        for (int j = 0; j < COMPARE_COLUMNS - 1; j++)
            if ((int)strlen(cells[j]) > width[j]) width[j] = (int)strlen(cells[j]);
    }
    fprintf(out, "mechanism: %s, %s neighbours, %s = %s\n", mech, relation_name(relation),
            given_name(qs), fmt_plain(qs->at, num));
    fprintf(out, "%-*s  %*s  %*s  %*s  %s\n", width[0], head[0], width[1], head[1], width[2],
            head[2], width[3], head[3], head[4]);
    int approximate = 0;
    for (size_t i = 0; i < n; i++) {
        compare_cells(&rows[i], cells);
        fprintf(out, "%-*s  %*s  %*s  %*s  %s\n", width[0], cells[0], width[1], cells[1],
                width[2], cells[2], width[3], cells[3], cells[4]);
        approximate |= is_approximate(&rows[i]);
    }
    fprintf(out, "upper is the certified bound to report; lower shows how tight it is.\n");
    if (approximate) fprintf(out, "%s\n", approximate_note);
}

static void print_results(const cli *c, const char *mech, const query_spec *qs,
                          const result *rows, size_t n, int single)
{
    switch (c->format) {
    case FORMAT_JSON: print_json(stdout, mech, c->relation, qs, rows, n); break;
    case FORMAT_CSV: print_csv(stdout, qs, rows, n); break;
    case FORMAT_TABLE:
        if (single) print_single_table(stdout, mech, c->relation, qs, rows);
        else print_compare_table(stdout, mech, c->relation, qs, rows, n);
        break;
    }
}

/* ---- subcommands: epsilon, delta, compare --------------------------------- */

/* epsilon and delta: one accountant, the named one or the default. */
static int run_single(const cli *c, const mechanism *m, const query_spec *qs)
{
    dpa_error err = { 0 };
    dpa_options opt;
    make_options(c, &opt);
    dpa_event *e = build_event(m->sigma, m->q, m->steps, &err);
    if (!e) return library_error(&err);
    const char *method = c->accountant ? c->accountant : default_accountant(e, &opt, &err);
    if (!method) {
        dpa_event_free(e);
        return library_error(&err);
    }
    result r;
    run_accountant(method, &opt, e, qs, &r);
    char mech[DESCRIPTION_SIZE];
    dpa_event_describe(e, mech, sizeof mech);
    dpa_event_free(e);
    if (!has_value(&r)) {
        print_error_line(r.reason);
        return EXIT_LIBRARY;
    }
    print_results(c, mech, qs, &r, 1, 1);
    return EXIT_OK;
}

static int cmd_epsilon(const cli *c, const mechanism *m)
{
    query_spec qs = { QUERY_EPSILON, c->delta };
    return run_single(c, m, &qs);
}

static int cmd_delta(const cli *c, const mechanism *m)
{
    query_spec qs = { QUERY_DELTA, c->epsilon };
    return run_single(c, m, &qs);
}

/* Every registered accountant on the same mechanism.  One that fails does
 * not stop the others; the status is 1 afterwards so scripts notice. */
static int cmd_compare(const cli *c, const mechanism *m)
{
    query_spec qs = given(c, OPT_EPSILON) ? (query_spec){ QUERY_DELTA, c->epsilon }
                                          : (query_spec){ QUERY_EPSILON, c->delta };
    dpa_error err = { 0 };
    dpa_options opt;
    make_options(c, &opt);
    const char *const *names = dpa_accountant_names();
    size_t n = 0;
    while (names[n]) n++;
    result *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows) {
        set_error(&err, DPA_ENOMEM, "out of memory");
        return library_error(&err);
    }
    dpa_event *e = build_event(m->sigma, m->q, m->steps, &err);
    if (!e) {
        free(rows);
        return library_error(&err);
    }
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        run_accountant(names[i], &opt, e, &qs, &rows[i]);
        failed |= rows[i].failed;
    }
    char mech[DESCRIPTION_SIZE];
    dpa_event_describe(e, mech, sizeof mech);
    dpa_event_free(e);
    print_results(c, mech, &qs, rows, n, 0);
    free(rows);
    return failed ? EXIT_LIBRARY : EXIT_OK;
}

/* ---- subcommand: calibrate ------------------------------------------------ */

/* The fixed part of the mechanism while one parameter is searched. */
typedef struct family_ctx {
    mechanism fixed;
    solve_target solve;
} family_ctx;

/* The event family searched by dpa_calibrate_search: the noise multiplier
 * or (an integral double) the number of steps replaces the fixed one. */
static dpa_event *mechanism_family(double param, void *ctx, dpa_error *err)
{
    const family_ctx *f = ctx;
    if (f->solve == SOLVE_SIGMA) return build_event(param, f->fixed.q, f->fixed.steps, err);
    if (!(param >= 1.0 && param < 18446744073709551616.0)) {
        set_error(err, DPA_EINVAL, "calibrate: step count %g out of range", param);
        return NULL;
    }
    return build_event(f->fixed.sigma, f->fixed.q, (uint64_t)param, err);
}

static void print_calibration(const cli *c, const char *method, const char *mech,
                              const dpa_calibration *cal)
{
    const int steps = c->solve == SOLVE_STEPS;
    char value[NUMBER_SIZE], fails[NUMBER_SIZE], eps_v[NUMBER_SIZE], eps_f[NUMBER_SIZE],
        tol[NUMBER_SIZE], target[NUMBER_SIZE], delta[NUMBER_SIZE];
    /* The printed noise is rounded up and the failing noise down: with
     * epsilon decreasing in the noise, the printed value still meets the
     * target and the printed failing value still fails. */
    if (steps) snprintf(value, sizeof value, "%" PRIu64, (uint64_t)cal->value);
    else fmt_upper(cal->value, value);
    if (isnan(cal->fails)) snprintf(fails, sizeof fails, "nan");
    else if (steps) snprintf(fails, sizeof fails, "%" PRIu64, (uint64_t)cal->fails);
    else fmt_lower(cal->fails, fails);
    fmt_upper(cal->epsilon_at_value, eps_v);
    fmt_upper(cal->epsilon_at_fails, eps_f);
    fmt_plain(steps ? 1.0 : cal->rel_tol, tol);
    fmt_plain(c->epsilon, target);
    fmt_plain(c->delta, delta);
    const char *what = steps ? "steps" : "sigma";
    const char *tol_kind = steps ? "absolute" : "relative";

    if (c->format == FORMAT_JSON) {
        fputs("{\n  \"mechanism\": ", stdout);
        json_string(stdout, mech);
        printf(",\n  \"relation\": \"%s\",\n  \"method\": ", relation_name(c->relation));
        json_string(stdout, method);
        printf(",\n  \"solve\": \"%s\",\n  \"target_epsilon\": %s,\n  \"delta\": %s,\n"
               "  \"value\": %s,\n  \"fails\": ", what, target, delta, value);
        json_number(stdout, fails);
        fputs(",\n  \"epsilon_at_value\": ", stdout);
        json_number(stdout, eps_v);
        fputs(",\n  \"epsilon_at_fails\": ", stdout);
        json_number(stdout, eps_f);
        printf(",\n  \"evaluations\": %u,\n  \"tolerance\": %s,\n  \"tolerance_type\": \"%s\"\n}\n",
               cal->evaluations, tol, tol_kind);
    } else if (c->format == FORMAT_CSV) {
        printf("method,solve,relation,target_epsilon,delta,value,fails,epsilon_at_value,"
               "epsilon_at_fails,evaluations,tolerance,tolerance_type\n");
        csv_field(stdout, method);
        printf(",%s,%s,%s,%s,%s,%s,%s,%s,%u,%s,%s\n", what, relation_name(c->relation), target,
               delta, value, csv_number(fails), eps_v, csv_number(eps_f), cal->evaluations, tol,
               tol_kind);
    } else {
        printf("%-17s %s\n", "mechanism", mech);
        printf("%-17s %s\n", "relation", relation_name(c->relation));
        printf("%-17s %s\n", "method", method);
        printf("%-17s epsilon %s at delta %s\n", "target", target, delta);
        printf("%-17s %s (%s)\n", steps ? "steps" : "noise multiplier", value,
               steps ? "the largest found that meets the target"
                     : "the smallest found that meets the target");
        if (isnan(cal->fails)) printf("%-17s none (every value searched meets the target)\n", "fails at");
        else printf("%-17s %s (epsilon %s)\n", "fails at", fails, eps_f);
        printf("%-17s %s (certified upper bound)\n", "epsilon at value", eps_v);
        printf("%-17s %u\n", "evaluations", cal->evaluations);
        if (steps) printf("%-17s 1 step\n", "tolerance");
        else printf("%-17s %s (relative width of the final bracket)\n", "tolerance", tol);
    }
}

static int cmd_calibrate(const cli *c, const mechanism *m)
{
    dpa_error err = { 0 };
    dpa_options opt;
    make_options(c, &opt);
    family_ctx f = { *m, c->solve };
    dpa_calibration cal;
    if (c->solve == SOLVE_STEPS) {
        dpa_calibration_init(&cal, DPA_SEARCH_LARGEST);
        cal.integer = 1;
        cal.lo = 1.0;
        cal.hi = 1000.0;
        cal.limit_lo = 1.0;
        cal.limit_hi = 1e15;
    } else {
        dpa_calibration_init(&cal, DPA_SEARCH_SMALLEST);
        cal.lo = 0.1;
        cal.hi = 10.0; /* widened by the search when it misses */
    }
    const char *method = c->accountant;
    if (!method) {
        /* a representative member of the family decides the accountant:
         * two steps so that the composition is part of its shape */
        dpa_event *probe = mechanism_family(c->solve == SOLVE_STEPS ? 2.0 : 1.0, &f, &err);
        if (!probe) return library_error(&err);
        method = default_accountant(probe, &opt, &err);
        dpa_event_free(probe);
        if (!method) return library_error(&err);
    }
    int st = dpa_calibrate_search(method, &opt, mechanism_family, &f, c->epsilon, c->delta, &cal,
                                  &err);
    if (st != DPA_OK) return library_error(&err);
    dpa_event *found = mechanism_family(cal.value, &f, &err);
    if (!found) return library_error(&err);
    char mech[DESCRIPTION_SIZE];
    dpa_event_describe(found, mech, sizeof mech);
    dpa_event_free(found);
    print_calibration(c, method, mech, &cal);
    return EXIT_OK;
}

/* The RDP curve eps(alpha) of the mechanism, one line per order.  The
 * values are upper bounds, printed rounded up. */
static int cmd_rdp_curve(const cli *c, const mechanism *m)
{
    dpa_error err = { 0 };
    dpa_options opt;
    make_options(c, &opt);
    dpa_event *e = build_event(m->sigma, m->q, m->steps, &err);
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
    char o[NUMBER_SIZE], v[NUMBER_SIZE];
    if (c->format == FORMAT_JSON) {
        printf("{\n  \"mechanism\": ");
        json_string(stdout, mech);
        printf(",\n  \"relation\": \"%s\",\n  \"curve\": [", relation_name(c->relation));
        for (size_t i = 0; i < n; i++) {
            printf("%s\n    {\"order\": ", i ? "," : "");
            json_number(stdout, fmt_plain(orders[i], o));
            printf(", \"epsilon\": ");
            json_number(stdout, fmt_upper(eps[i], v));
            printf("}");
        }
        printf("\n  ]\n}\n");
    } else if (c->format == FORMAT_CSV) {
        printf("order,epsilon\n");
        for (size_t i = 0; i < n; i++)
            printf("%s,%s\n", csv_number(fmt_plain(orders[i], o)), csv_number(fmt_upper(eps[i], v)));
    } else {
        printf("mechanism: %s, %s neighbours\n%-10s  %s\n", mech, relation_name(c->relation), "order",
               "epsilon(order), upper bound");
        for (size_t i = 0; i < n; i++)
            printf("%-10s  %s\n", fmt_plain(orders[i], o), fmt_upper(eps[i], v));
    }
    free(orders);
    free(eps);
    return EXIT_OK;
}

/* ---- the subcommand table ------------------------------------------------- */

static const command_info commands[] = {
    { "epsilon", "the epsilon of the mechanism at a given delta",
      "--sigma X --delta D [OPTIONS]",
      "Report the smallest epsilon for which the mechanism is (epsilon, delta)-DP,\n"
      "as computed by one accountant.",
      COMMON_OPTIONS | OPT_BIT(OPT_DELTA) | OPT_BIT(OPT_ACCOUNTANT),
      "the delta at which epsilon is reported, 0 < D < 1", NULL, cmd_epsilon },
    { "delta", "the delta of the mechanism at a given epsilon",
      "--sigma X --epsilon EPS [OPTIONS]",
      "Report the smallest delta for which the mechanism is (epsilon, delta)-DP,\n"
      "as computed by one accountant.",
      COMMON_OPTIONS | OPT_BIT(OPT_EPSILON) | OPT_BIT(OPT_ACCOUNTANT), NULL,
      "the epsilon at which delta is reported, EPS >= 0", cmd_delta },
    { "calibrate", "the noise (or number of steps) that meets a target (epsilon, delta)",
      "--epsilon EPS --delta D [--solve sigma|steps] [OPTIONS]",
      "Search for the smallest noise multiplier (--solve sigma, the default) or,\n"
      "given --sigma, the largest number of steps (--solve steps) for which the\n"
      "accountant's certified upper epsilon is at most the target at delta.\n"
      "Approximate accountants cannot certify a target and are refused.",
      COMMON_OPTIONS | OPT_BIT(OPT_DELTA) | OPT_BIT(OPT_EPSILON) | OPT_BIT(OPT_ACCOUNTANT) |
          OPT_BIT(OPT_SOLVE),
      "the target delta, 0 < D < 1", "the target epsilon, EPS > 0", cmd_calibrate },
    { "compare", "every accountant side by side on one mechanism",
      "--sigma X (--delta D | --epsilon EPS) [OPTIONS]",
      "Run every registered accountant on the mechanism and print each bound,\n"
      "how tight it is and how long it took; accountants that cannot handle the\n"
      "mechanism are listed with the reason.",
      COMMON_OPTIONS | OPT_BIT(OPT_DELTA) | OPT_BIT(OPT_EPSILON),
      "report epsilon at this delta, 0 < D < 1",
      "report delta at this epsilon instead, EPS >= 0", cmd_compare },
    { "rdp-curve", "the Renyi DP curve eps(alpha) of the mechanism",
      "--sigma X [OPTIONS]",
      "Print the RDP of the mechanism at each Renyi order (the rdp accountant's\n"
      "native state): an upper bound on eps(alpha), before conversion to (eps, delta).",
      COMMON_OPTIONS, NULL, NULL, cmd_rdp_curve },
};
#define NUM_COMMANDS (sizeof commands / sizeof commands[0])

static const command_info *find_command(const char *name)
{
    for (size_t i = 0; i < NUM_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

/* ---- help ----------------------------------------------------------------- */

static void print_main_help(void)
{
    printf("Usage: dpacct SUBCOMMAND [OPTIONS]\n"
           "       dpacct --help | --version\n\n"
           "Differential-privacy accounting for the Gaussian mechanism, Poisson-\n"
           "subsampled and composed over many steps as in DP-SGD.\n\nSubcommands:\n");
    for (size_t i = 0; i < NUM_COMMANDS; i++)
        printf("  %-10s  %s\n", commands[i].name, commands[i].summary);
    printf("\nAccountants:\n");
    for (const char *const *name = dpa_accountant_names(); *name; name++)
        printf("  %-10s  %s\n", *name, dpa_accountant_summary(*name));
    printf("\nEvery epsilon or delta is a bracket [lower, upper]: upper is the certified\n"
           "bound to report.  Values flagged approximate are not guarantees.\n"
           "Run 'dpacct SUBCOMMAND --help' for the options of a subcommand.\n"
           "Exit status: 0 success, 1 library error or unsupported mechanism, 2 bad usage.\n");
}

static void print_option_help(const command_info *cmd, enum option_id id)
{
    if (!(cmd->options & OPT_BIT(id))) return;
    char left[48];
    const struct option_info *o = &option_table[id];
    if (id == OPT_HELP) snprintf(left, sizeof left, "-h, --help");
    else snprintf(left, sizeof left, "--%s %s", o->name, o->metavar);
    const char *help = o->help;
    if (id == OPT_DELTA && cmd->delta_help) help = cmd->delta_help;
    if (id == OPT_EPSILON && cmd->epsilon_help) help = cmd->epsilon_help;
    printf("  %-22s %s\n", left, help);
    if (id == OPT_ACCOUNTANT) {
        printf("  %-22s one of:", "");
        for (const char *const *name = dpa_accountant_names(); *name; name++)
            printf(" %s", *name);
        printf("\n");
    }
}

static void print_command_help(const command_info *cmd)
{
    printf("Usage: dpacct %s %s\n\n%s\n\n", cmd->name, cmd->synopsis, cmd->about);
    printf("The mechanism is the Gaussian mechanism with noise multiplier --sigma,\n"
           "Poisson-sampled at rate Q when Q < 1, repeated for T steps.\n\nMechanism:\n");
    for (int id = OPT_SIGMA; id <= OPT_RELATION; id++) print_option_help(cmd, (enum option_id)id);
    printf("\nQuery:\n");
    for (int id = OPT_DELTA; id <= OPT_ORDERS; id++) print_option_help(cmd, (enum option_id)id);
    printf("\nOutput:\n");
    print_option_help(cmd, OPT_FORMAT);
    print_option_help(cmd, OPT_HELP);
    if (cmd->run == cmd_calibrate)
        printf("\nWith --solve sigma, --sigma is not given; with --solve steps, --steps and\n"
               "--epochs are not given.  The search compares each accountant's upper\n"
               "epsilon, the certified bound to report, with the target, so the value\n"
               "found is certified: its upper epsilon is at most the target.\n");
    else if (cmd->run == cmd_rdp_curve)
        printf("\nEach eps(order) printed is an upper bound (rounded up); the conversion\n"
               "to (epsilon, delta) is done by 'dpacct epsilon --accountant rdp'.\n");
    else
        printf("\nEach result is a bracket: upper is the certified bound to report;\n"
               "lower (\"-\" when the method has none) shows how tight it is; estimate is\n"
               "the best point value.  A result flagged approximate (not a guarantee) is\n"
               "an estimate only and must not be reported as a guarantee.\n");
    printf("Exit status: 0 success, 1 library error or unsupported mechanism, 2 bad usage.\n");
}

/* ---- parsing and checking the command line -------------------------------- */

static void build_long_options(struct option *longopts)
{
    for (int id = 0; id < OPT_COUNT; id++) {
        longopts[id].name = option_table[id].name;
        longopts[id].has_arg = option_table[id].metavar ? required_argument : no_argument;
        longopts[id].flag = NULL;
        longopts[id].val = OPT_VAL_BASE + id;
    }
    memset(&longopts[OPT_COUNT], 0, sizeof longopts[OPT_COUNT]);
}

/* getopt_long returned '?': an unknown or ambiguous option, or a value given
 * to a flag that takes none.  With opterr = 0 the message is ours. */
static int bad_option(const command_info *cmd, char **argv, int argc)
{
    char name[80];
    if (optopt >= OPT_VAL_BASE && optopt < OPT_VAL_BASE + OPT_COUNT)
        return usage_error("--%s: takes no value", option_table[optopt - OPT_VAL_BASE].name);
    if (optopt > 0 && optopt < 256)
        return usage_error("-%c: unknown option (see 'dpacct %s --help')", optopt, cmd->name);
    /* an unknown long option: getopt has stepped past it */
    const char *token = optind >= 1 && optind - 1 < argc ? argv[optind - 1] : "";
    size_t len = strcspn(token, "=");
    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name - 1 ? len : sizeof name - 1), token);
    if (strncmp(name, "--", 2) != 0) return usage_error("unknown option (see 'dpacct %s --help')", cmd->name);
    return usage_error("%s: unknown or ambiguous option for '%s' (see 'dpacct %s --help')", name,
                       cmd->name, cmd->name);
}

/* Parse the flags after the subcommand name.  argv[0] is that name.
 * Sets *help when --help was given: it wins over everything after it. */
static int parse_args(const command_info *cmd, int argc, char **argv, cli *c, int *help)
{
    struct option longopts[OPT_COUNT + 1];
    build_long_options(longopts);
    opterr = 0; /* getopt's own messages would break the one-line rule */
    optind = 1;
    for (;;) {
        int ch = getopt_long(argc, argv, ":h", longopts, NULL);
        if (ch == -1) break;
        if (ch == '?') return bad_option(cmd, argv, argc);
        if (ch == ':') {
            if (optopt >= OPT_VAL_BASE && optopt < OPT_VAL_BASE + OPT_COUNT)
                return usage_error("--%s: missing value", option_table[optopt - OPT_VAL_BASE].name);
            return usage_error("-%c: missing value", optopt);
        }
        enum option_id id = ch == 'h' ? OPT_HELP : (enum option_id)(ch - OPT_VAL_BASE);
        if (id == OPT_HELP) {
            *help = 1;
            return EXIT_OK;
        }
        if (!(cmd->options & OPT_BIT(id)))
            return usage_error("--%s: not accepted by '%s' (see 'dpacct %s --help')",
                               option_table[id].name, cmd->name, cmd->name);
        if (c->seen & OPT_BIT(id))
            return usage_error("--%s: given more than once", option_table[id].name);
        c->seen |= OPT_BIT(id);
        int st = parse_value(c, id, optarg);
        if (st != EXIT_OK) return st;
    }
    if (optind < argc) {
        char q[80];
        return usage_error("unexpected argument %s after '%s'", quoted(argv[optind], q, sizeof q),
                           cmd->name);
    }
    return EXIT_OK;
}

static int require(const command_info *cmd, const cli *c, enum option_id id)
{
    if (given(c, id)) return EXIT_OK;
    return usage_error("--%s: required by '%s'", option_table[id].name, cmd->name);
}

static int conflict(const cli *c, enum option_id a, enum option_id b)
{
    if (!given(c, a) || !given(c, b)) return EXIT_OK;
    return usage_error("--%s: cannot be combined with --%s", option_table[b].name,
                       option_table[a].name);
}

/* Combinations of flags: conflicts first (they are the likelier mistake),
 * then what each subcommand needs. */
static int check_combinations(const command_info *cmd, const cli *c)
{
    int st;
    if ((st = conflict(c, OPT_RATE, OPT_BATCH)) || (st = conflict(c, OPT_RATE, OPT_DATASET)) ||
        (st = conflict(c, OPT_STEPS, OPT_EPOCHS)))
        return st;
    if (given(c, OPT_BATCH) && !given(c, OPT_DATASET))
        return usage_error("--batch-size: requires --dataset-size");
    if (given(c, OPT_DATASET) && !given(c, OPT_BATCH))
        return usage_error("--dataset-size: requires --batch-size");
    if (given(c, OPT_BATCH) && c->batch > c->dataset)
        return usage_error("--batch-size: %" PRIu64 " exceeds --dataset-size %" PRIu64, c->batch,
                           c->dataset);
    if (cmd->run == cmd_epsilon)
        return (st = require(cmd, c, OPT_SIGMA)) ? st : require(cmd, c, OPT_DELTA);
    if (cmd->run == cmd_delta)
        return (st = require(cmd, c, OPT_SIGMA)) ? st : require(cmd, c, OPT_EPSILON);
    if (cmd->run == cmd_rdp_curve) return require(cmd, c, OPT_SIGMA);
    if (cmd->run == cmd_compare) {
        if ((st = require(cmd, c, OPT_SIGMA)) || (st = conflict(c, OPT_DELTA, OPT_EPSILON)))
            return st;
        if (!given(c, OPT_DELTA) && !given(c, OPT_EPSILON))
            return usage_error("--delta: required by 'compare' (or --epsilon to compare delta)");
        return EXIT_OK;
    }
    /* calibrate */
    if ((st = require(cmd, c, OPT_EPSILON)) || (st = require(cmd, c, OPT_DELTA))) return st;
    if (!(c->epsilon > 0.0))
        return usage_error("--epsilon: the target of 'calibrate' must be positive, got 0");
    if (c->solve == SOLVE_SIGMA && given(c, OPT_SIGMA))
        return usage_error("--sigma: cannot be combined with --solve sigma (it is what is solved for)");
    if (c->solve == SOLVE_STEPS) {
        if (given(c, OPT_STEPS))
            return usage_error("--steps: cannot be combined with --solve steps (it is what is solved for)");
        if (given(c, OPT_EPOCHS))
            return usage_error("--epochs: cannot be combined with --solve steps (the steps are what is solved for)");
        return require(cmd, c, OPT_SIGMA);
    }
    return EXIT_OK;
}

/* steps = ceil(E / q).  E and q are decimal inputs, so a quotient that is
 * an integer on paper can come out a few ulps above it; that would add a
 * whole step, so values within 8 ulps of an integer are taken as it. */
static int epochs_to_steps(double epochs, double q, uint64_t *steps)
{
    double x = epochs / q, r = nearbyint(x);
    double n = fabs(x - r) <= 8.0 * 2.220446049250313e-16 * r ? r : ceil(x);
    if (!(n < 18446744073709551616.0)) {
        char num[NUMBER_SIZE];
        return usage_error("--epochs: %s epochs at sampling rate %g is 2^64 steps or more",
                           fmt_plain(epochs, num), q);
    }
    *steps = n < 1.0 ? 1 : (uint64_t)n;
    return EXIT_OK;
}

static int resolve_mechanism(const cli *c, mechanism *m)
{
    m->sigma = c->sigma;
    m->q = 1.0;
    if (given(c, OPT_RATE)) m->q = c->rate;
    else if (given(c, OPT_BATCH)) m->q = (double)c->batch / (double)c->dataset;
    m->steps = 1;
    if (given(c, OPT_STEPS)) m->steps = c->steps;
    else if (given(c, OPT_EPOCHS)) return epochs_to_steps(c->epochs, m->q, &m->steps);
    return EXIT_OK;
}

/* ---- main ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    if (argc < 2) return usage_error("missing subcommand (see 'dpacct --help')");
    const char *first = argv[1];
    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        print_main_help();
        return EXIT_OK;
    }
    if (strcmp(first, "--version") == 0) {
        printf("dpacct %s\n", dpa_version());
        return EXIT_OK;
    }
    char q[80];
    const command_info *cmd = find_command(first);
    if (!cmd) {
        if (first[0] == '-')
            return usage_error("%s: expected a subcommand before options (see 'dpacct --help')",
                               first);
        return usage_error("unknown subcommand %s (see 'dpacct --help')", quoted(first, q, sizeof q));
    }

    cli c = { .relation = DPA_ADD_REMOVE, .format = FORMAT_TABLE, .solve = SOLVE_SIGMA };
    int help = 0;
    int st = parse_args(cmd, argc - 1, argv + 1, &c, &help);
    if (st != EXIT_OK) return st;
    if (help) {
        print_command_help(cmd);
        return EXIT_OK;
    }
    mechanism m;
    if ((st = check_combinations(cmd, &c)) || (st = resolve_mechanism(&c, &m))) return st;
    st = cmd->run(&c, &m);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        dpa_error err = { 0 };
        set_error(&err, DPA_EINVAL, "error writing the output: %s", strerror(errno));
        return library_error(&err);
    }
    return st;
}
