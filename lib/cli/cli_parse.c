/*
 * cli_parse.c - the toolkit's messages, value parsing and option tables
 * (cli_toolkit.h).  Every mistake on a command line is one line on stderr
 * that names the option, and exit status 2, in both commands alike.
 */
#include <config.h>

#include "cli_toolkit.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages ---------------------------------------------------------------- */

static const char *program = "dpacct";

void cli_set_program(const char *name)
{
    program = name;
}

const char *cli_program(void)
{
    return program;
}

static void error_line(const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    /* the one-line promise holds whatever reached the message */
    for (char *p = line; *p; p++)
        if (iscntrl((unsigned char)*p)) *p = '?';
    fprintf(stderr, "%s: %s\n", program, line);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_line(fmt, ap);
    va_end(ap);
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_line(fmt, ap);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

/* The message without a leading "PROGRAM: " (the trainers' messages carry
 * it), or a sentence when a failure left none: never an empty line.  A
 * message holding a control byte (from a library that does not escape what
 * it echoes) is escaped whole. */
static const char *message_of(const dpa_error *err, char *buf, size_t size)
{
    const char *m = err ? err->message : "";
    size_t plen = strlen(program);
    if (strncmp(m, program, plen) == 0 && strncmp(m + plen, ": ", 2) == 0) m += plen + 2;
    if (!*m) {
        int status = err && err->status ? err->status : DPA_ENOMEM;
        snprintf(buf, size, "failed without a message (status %d: %s)", status, dpa_strerror(status));
        return buf;
    }
    for (const unsigned char *p = (const unsigned char *)m; *p; p++)
        if (*p < 0x20 || *p == 0x7F) return dpa_escape(m, 0, buf, size);
    return m;
}

void cli_library_error(const dpa_error *err)
{
    char buf[4 * DPA_ERROR_MESSAGE_SIZE];
    cli_error("%s", message_of(err, buf, sizeof buf));
}

void cli_option_error(const char *option, const char *prefix, const dpa_error *err)
{
    char buf[4 * DPA_ERROR_MESSAGE_SIZE];
    const char *m = message_of(err, buf, sizeof buf);
    size_t len = prefix ? strlen(prefix) : 0;
    if (len && strncmp(m, prefix, len) == 0) m += len;
    cli_error("%s: %s", option, m);
}

const char *cli_shown(const char *text, char *buf, size_t size)
{
    return dpa_escape(text, 0, buf, size);
}

int cli_bad_value(const char *name, const char *expected, const char *text)
{
    char shown[CLI_SHOWN_SIZE];
    return cli_usage_error("--%s: expected %s, got '%s'", name, expected, cli_shown(text, shown, sizeof shown));
}

/* ---- values -------------------------------------------------------------------- */

static int in_interval(double x, double lo, int lo_open, double hi, int hi_open)
{
    return (lo_open ? x > lo : x >= lo) && (hi_open ? x < hi : x <= hi);
}

/* "a number in (0, 1]"; an infinite end reads "inf". */
static void interval_text(double lo, int lo_open, double hi, int hi_open, char *buf, size_t size)
{
    snprintf(buf, size, "a number in %c%g, %g%c", lo_open ? '(' : '[', lo, hi, hi_open ? ')' : ']');
}

/* The whole of `text` as a finite double: strtod alone would accept leading
 * blanks, "nan", "inf" and the prefix of "1.5x". */
static int whole_real(const char *text, double *out)
{
    if (!text[0] || isspace((unsigned char)text[0])) return 0;
    char *end = NULL;
    double x = strtod(text, &end);
    if (end == text || *end || !isfinite(x)) return 0;
    *out = x;
    return 1;
}

int cli_parse_real(const char *name, const char *text, double lo, int lo_open, double hi, int hi_open, double *out)
{
    double x;
    if (!whole_real(text, &x) || !in_interval(x, lo, lo_open, hi, hi_open)) {
        char expected[96];
        interval_text(lo, lo_open, hi, hi_open, expected, sizeof expected);
        return cli_bad_value(name, expected, text);
    }
    *out = x;
    return 0;
}

/* A whole number written in decimal, optionally with a fraction and an
 * exponent as long as the value is a whole number ("10000", "1e4",
 * "2.5e6"; not "1.5" or "1e-2"): 1 with *out, 0 when it is not one, -1
 * when it exceeds UINT64_MAX.  Exact: no floating point, and no strtoull
 * (which would accept a sign, wrapping "-1" to 2^64 - 1, and blanks). */
static int whole_number(const char *text, uint64_t *out)
{
    char digits[64];
    size_t nd = 0, k = 0;
    long frac = 0, exp10 = 0;
    int seen = 0;
    for (; text[k] >= '0' && text[k] <= '9'; k++, seen = 1)
        if (nd < sizeof digits) digits[nd++] = text[k]; else return -1;
    if (text[k] == '.') {
        for (k++; text[k] >= '0' && text[k] <= '9'; k++, seen = 1, frac++)
            if (nd < sizeof digits) digits[nd++] = text[k]; else return -1;
    }
    if (!seen) return 0;
    if (text[k] == 'e' || text[k] == 'E') {
        k++;
        size_t start = k;
        for (; text[k] >= '0' && text[k] <= '9'; k++)
            if ((exp10 = exp10 * 10 + (text[k] - '0')) > 40) return -1;
        if (k == start) return 0;
    }
    if (text[k]) return 0;
    long scale = exp10 - frac;
    /* drop trailing zeros that a negative scale divides away */
    while (scale < 0 && nd > 0 && digits[nd - 1] == '0') { nd--; scale++; }
    if (scale < 0) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < nd; i++) {
        uint64_t d = (uint64_t)(digits[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    for (long i = 0; i < scale && v != 0; i++) {
        if (v > UINT64_MAX / 10) return -1;
        v *= 10;
    }
    *out = v;
    return 1;
}

int cli_parse_count(const char *name, const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
    uint64_t v = 0;
    int ok = whole_number(text, &v);
    char shown[CLI_SHOWN_SIZE];
    if (ok != 0 && (ok < 0 || v > hi))
        return cli_usage_error("--%s: at most %llu, got '%s'", name, (unsigned long long)hi,
                               cli_shown(text, shown, sizeof shown));
    if (ok == 0 || v < lo) {
        char expected[64];
        snprintf(expected, sizeof expected, "a whole number >= %llu", (unsigned long long)lo);
        return cli_bad_value(name, expected, text);
    }
    *out = v;
    return 0;
}

int cli_parse_choice(const char *name, const char *text, const char *const *choices, int *out)
{
    char list[512] = "one of "; /* "one of a, b or c" */
    size_t used = strlen(list);
    for (int i = 0; choices[i]; i++) {
        if (strcmp(text, choices[i]) == 0) {
            *out = i;
            return 0;
        }
        const char *sep = i == 0 ? "" : choices[i + 1] ? ", " : " or ";
        int k = snprintf(list + used, sizeof list - used, "%s%s", sep, choices[i]);
        if (k > 0 && (size_t)k < sizeof list - used) used += (size_t)k;
    }
    return cli_bad_value(name, list, text);
}

int cli_parse_real_list(const char *name, const char *text, double lo, int lo_open, double hi, int hi_open,
                        double *out, size_t max, size_t *n)
{
    char item[80];
    const char *p = text;
    *n = 0;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        double x = NAN;
        int ok = 0;
        if (len < sizeof item) {
            memcpy(item, p, len);
            item[len] = '\0';
            ok = whole_real(item, &x) && in_interval(x, lo, lo_open, hi, hi_open);
        }
        if (!ok) {
            char one[96], expected[160];
            interval_text(lo, lo_open, hi, hi_open, one, sizeof one);
            snprintf(expected, sizeof expected, "a comma-separated list, each %s", one);
            return cli_bad_value(name, expected, text);
        }
        if (*n == max) return cli_usage_error("--%s: at most %zu values", name, max);
        out[(*n)++] = x;
        if (!comma) return 0;
        p = comma + 1;
    }
}

int cli_parse_format(const char *text, int allow_csv, cli_format *out)
{
    static const char *const with_csv[] = { "table", "json", "csv", NULL };
    static const char *const without_csv[] = { "table", "json", NULL };
    int choice;
    int st = cli_parse_choice("format", text, allow_csv ? with_csv : without_csv, &choice);
    if (!st) *out = (cli_format)choice;
    return st;
}

/* ---- option tables --------------------------------------------------------------- */

/* getopt_long's value of option `id`: above every character, so that no
 * long option is taken for a short one. */
#define OPTION_VALUE(id) (256 + (id))
#define HELP_VALUE 'h'

void cli_parser_init(cli_parser *p, const cli_option *table, size_t n, const char *command, int refuse_repeats)
{
    memset(p, 0, sizeof *p);
    p->table = table;
    p->n = n < CLI_MAX_OPTIONS ? n : CLI_MAX_OPTIONS;
    p->command = command;
    p->refuse_repeats = refuse_repeats;
    size_t k = 0;
    for (size_t id = 0; id < p->n; id++) {
        if (!table[id].name) continue;
        p->longs[k].name = table[id].name;
        p->longs[k].has_arg = table[id].metavar ? required_argument : no_argument;
        p->longs[k].flag = NULL;
        p->longs[k].val = OPTION_VALUE((int)id);
        k++;
    }
    p->longs[k].name = "help";
    p->longs[k].has_arg = no_argument;
    p->longs[k].val = HELP_VALUE;
    /* the terminating entry is zero from the memset */
}

int cli_option_seen(const cli_parser *p, int id)
{
    return id >= 0 && (size_t)id < p->n && p->seen[id];
}

/* The name of option `val` as getopt reports it in optopt. */
static const char *option_name(const cli_parser *p, int val)
{
    if (val == HELP_VALUE) return "help";
    if (val >= OPTION_VALUE(0) && val < OPTION_VALUE((int)p->n)) return p->table[val - OPTION_VALUE(0)].name;
    return NULL;
}

/* getopt_long returned '?': an unknown or ambiguous option, or a value
 * given to a flag that takes none.  With opterr = 0 the message is ours. */
static int bad_option(const cli_parser *p, int argc, char **argv)
{
    char shown[CLI_SHOWN_SIZE];
    const char *known = option_name(p, optopt);
    if (known) {
        cli_usage_error("--%s: takes no value", known);
        return CLI_OPT_ERROR;
    }
    /* getopt has stepped past the offending word */
    const char *word = optind >= 1 && optind - 1 < argc ? argv[optind - 1] : "";
    char name[CLI_SHOWN_SIZE];
    if (optopt > 0 && optopt < 256 && strncmp(word, "--", 2) != 0) snprintf(name, sizeof name, "-%c", optopt);
    else snprintf(name, sizeof name, "%.*s", (int)strcspn(word, "="), word);
    cli_usage_error("unknown option %s (see '%s --help')", cli_shown(name, shown, sizeof shown), p->command);
    return CLI_OPT_ERROR;
}

int cli_next_option(cli_parser *p, int argc, char **argv, const char **value)
{
    *value = NULL;
    if (p->done) return CLI_OPT_END;
    if (!p->started) {
        /* 0, not 1: also resets getopt's place inside a group of short
         * options left by an earlier pass (glibc, musl, BSD) */
        optind = 0;
        p->started = 1;
    }
    opterr = 0; /* getopt's own messages would break the one-line rule */
    /* "+": stop at the first word that is not an option; ":": a missing
     * value is reported as ':' */
    int ch = getopt_long(argc, argv, "+:h", p->longs, NULL);
    if (ch == -1) {
        p->done = 1;
        if (optind < argc) {
            char shown[CLI_SHOWN_SIZE];
            cli_usage_error("unexpected argument '%s' (see '%s --help')", cli_shown(argv[optind], shown, sizeof shown),
                            p->command);
            return CLI_OPT_ERROR;
        }
        return CLI_OPT_END;
    }
    if (ch == '?') return p->done = 1, bad_option(p, argc, argv);
    if (ch == ':') {
        const char *known = option_name(p, optopt);
        p->done = 1;
        if (known) cli_usage_error("--%s: needs a value", known);
        else cli_usage_error("-%c: needs a value", optopt);
        return CLI_OPT_ERROR;
    }
    if (ch == HELP_VALUE) return CLI_OPT_HELP;
    int id = ch - OPTION_VALUE(0);
    if (p->seen[id] && p->refuse_repeats) {
        p->done = 1;
        cli_usage_error("--%s: given more than once", p->table[id].name);
        return CLI_OPT_ERROR;
    }
    p->seen[id] = 1;
    *value = optarg;
    return id;
}

void cli_print_option(FILE *out, const cli_option *o, const char *help_override)
{
    char left[48];
    if (o->metavar) snprintf(left, sizeof left, "--%s %s", o->name, o->metavar);
    else snprintf(left, sizeof left, "--%s", o->name);
    fprintf(out, "  %-22s %s\n", left, help_override ? help_override : o->help ? o->help : "");
}
