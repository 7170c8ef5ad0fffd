/*
 * dptrain_cli.c - what the dptrain subcommands share: one-line usage
 * errors (exit status 2), number parsing, the library's error line, the
 * progress bar and the version.
 */
#include <config.h>

#include "dptrain_cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("dptrain: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_USAGE;
}

int bad_value(const char *name, const char *expected, const char *text)
{
    char shown[SHOWN_SIZE];
    return usage_error("--%s: expected %s, got '%s'", name, expected, dpt_escape(text, 0, shown, sizeof shown));
}

int parse_double(const char *name, const char *text, double lo, int lo_open, double hi, int hi_open, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v) || (lo_open ? !(v > lo) : !(v >= lo)) ||
        (hi_open ? !(v < hi) : !(v <= hi))) {
        char expected[96];
        snprintf(expected, sizeof expected, "a number in %c%g, %g%c", lo_open ? '(' : '[', lo, hi, hi_open ? ')' : ']');
        return bad_value(name, expected, text);
    }
    *out = v;
    return 0;
}

/* The whole of `text` as decimal digits: 1 and *out, 0 when it is not
 * digits only, -1 when it is but does not fit 64 bits. */
static int whole_number(const char *text, uint64_t *out)
{
    size_t k = 0;
    while (text[k] >= '0' && text[k] <= '9') k++;
    if (k == 0 || text[k]) return 0;
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno == ERANGE || v > UINT64_MAX) return -1;
    *out = (uint64_t)v;
    return 1;
}

int parse_count(const char *name, const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
    uint64_t v = 0;
    int ok = whole_number(text, &v);
    char shown[SHOWN_SIZE];
    if (ok != 0 && (ok < 0 || v > hi))
        return usage_error("--%s: at most %llu, got '%s'", name, (unsigned long long)hi,
                           dpt_escape(text, 0, shown, sizeof shown));
    if (ok == 0 || v < lo) {
        char expected[64];
        snprintf(expected, sizeof expected, "a whole number >= %llu", (unsigned long long)lo);
        return bad_value(name, expected, text);
    }
    *out = v;
    return 0;
}

int parse_seed(const char *name, const char *text, unsigned long *out)
{
    uint64_t v;
    int st = parse_count(name, text, 0, ULONG_MAX, &v);
    if (!st) *out = (unsigned long)v;
    return st;
}

int parse_data_size(const char *text, uint64_t *out)
{
    static const char units[] = "KMGT";
    uint64_t v = 0;
    size_t k = 0;
    int huge = 0;
    for (; text[k] >= '0' && text[k] <= '9'; k++) {
        if (v > (UINT64_MAX - 9) / 10) huge = 1;
        else v = 10 * v + (uint64_t)(text[k] - '0');
    }
    int shift = 0;          /* the suffix: one letter, either case */
    if (k && text[k] && !text[k + 1]) {
        const char *u = strchr(units, toupper((unsigned char)text[k]));
        if (u) shift = 10 * (int)(u - units + 1);
    }
    if (!k || (text[k] && !shift) || (!huge && v == 0))
        return bad_value("max-data-size", "a size of at least 1 byte, in bytes or with K, M, G or T (powers of 1024), "
                         "e.g. 8G", text);
    if (huge || v > CLI_MAX_DATA_SIZE >> shift) {
        char shown[SHOWN_SIZE];
        return usage_error("--max-data-size: at most %lluT, got '%s'", (unsigned long long)(CLI_MAX_DATA_SIZE >> 40),
                           dpt_escape(text, 0, shown, sizeof shown));
    }
    *out = v << shift;
    return 0;
}

int check_work(uint64_t epochs, size_t n)
{
    if (n && epochs > CLI_MAX_WORK / n)
        return usage_error("--epochs: %llu epochs of %zu training examples are %.3g gradient evaluations, above the "
                           "limit of %.0e", (unsigned long long)epochs, n, (double)epochs * (double)n,
                           (double)CLI_MAX_WORK);
    return 0;
}

int load_train_test(const char *data, const char *labels, const char *test_data, const char *test_labels,
                    const char *format, const char *target, uint64_t max_bytes, double test_fraction,
                    unsigned long seed, dpt_dataset *train, dpt_dataset *test, dpa_error *err)
{
    if (!test_data) {
        dpt_dataset all = { 0 };
        int st = load_file(data, labels, format, target, max_bytes, &all, err);
        if (!st) st = dpt_split(&all, test_fraction, seed, train, test, err);
        dpt_dataset_free(&all);
        return st;
    }
    int st = load_file(data, labels, format, target, max_bytes, train, err);
    if (!st) st = load_file(test_data, test_labels, format, target, max_bytes, test, err);
    if (!st && test->d != train->d) {
        err->status = DPA_EINVAL;
        snprintf(err->message, sizeof err->message, "the test data has %zu features, the training data %zu", test->d,
                 train->d);
        st = DPA_EINVAL;
    }
    return st;
}

/* The message without a leading "dptrain: " (the trainers' messages carry
 * it), or a sentence when a failure left none: never an empty line.  The
 * messages escape what they echo; one that still holds a control byte
 * (from a library that does not) is escaped whole, so it stays one line. */
static const char *message_of(const dpa_error *err, char *buf, size_t size)
{
    const char *m = err ? err->message : "";
    if (strncmp(m, "dptrain: ", 9) == 0) m += 9;
    if (!*m) {
        int status = err && err->status ? err->status : DPA_ENOMEM;
        snprintf(buf, size, "failed without a message (status %d: %s)", status, dpa_strerror(status));
        return buf;
    }
    for (const unsigned char *p = (const unsigned char *)m; *p; p++)
        if (*p < 0x20 || *p == 0x7F) return dpt_escape(m, 0, buf, size);
    return m;
}

void print_error(const dpa_error *err)
{
    char buf[4 * DPA_ERROR_MESSAGE_SIZE];
    fprintf(stderr, "dptrain: %s\n", message_of(err, buf, sizeof buf));
}

void print_option_error(const char *option, const char *prefix, const dpa_error *err)
{
    char buf[4 * DPA_ERROR_MESSAGE_SIZE];
    const char *m = message_of(err, buf, sizeof buf);
    size_t len = prefix ? strlen(prefix) : 0;
    if (len && strncmp(m, prefix, len) == 0) m += len;
    fprintf(stderr, "dptrain: %s: %s\n", option, m);
}

void progress_bar(void *ctx, uint64_t done, uint64_t total)
{
    const struct timespec *start = ctx;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double el = (double)(now.tv_sec - start->tv_sec) + 1e-9 * (double)(now.tv_nsec - start->tv_nsec);
    int width = 30, fill = total ? (int)((double)width * (double)done / (double)total) : width;
    fprintf(stderr, "\r[%.*s%*s] %llu/%llu steps  %.1f s", fill, "##############################", width - fill, "",
            (unsigned long long)done, (unsigned long long)total, el);
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}

#ifdef HAVE_OPENBLAS
char *openblas_get_config(void);   /* OpenBLAS's own description of its build */
#endif

/* The version and the CBLAS linked (configure chose it: OpenBLAS when
 * installed, else GSL's reference one). */
void print_version(void)
{
    printf("dptrain %s (libdpacct %s)\n", PACKAGE_VERSION, dpa_version());
#ifdef HAVE_OPENBLAS
    printf("CBLAS: %s, through GSL's CBLAS interface (%s)\n", DPA_CBLAS_NAME, openblas_get_config());
#else
    printf("CBLAS: %s\n", DPA_CBLAS_NAME);
#endif
}


int parse_accountant(const char *text, const char **out)
{
    if (!dpa_accountant_summary(text)) {
        char names[160] = "";
        size_t len = 0;
        for (const char *const *n = dpa_accountant_names(); n && *n && len < sizeof names; n++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", *n);
        char expected[200];
        snprintf(expected, sizeof expected, "one of %s", names);
        return bad_value("accountant", expected, text);
    }
    *out = text;
    return 0;
}

int parse_input_format(const char *text, const char **out)
{
    if (strcmp(text, "csv") && strcmp(text, "libsvm") && strcmp(text, "idx"))
        return bad_value("input-format", "csv, libsvm or idx", text);
    *out = text;
    return 0;
}

int load_file(const char *path, const char *labels, const char *format, const char *target, uint64_t max_bytes,
              dpt_dataset *out, dpa_error *err)
{
    dpt_load_options o = { .format = format, .labels = labels, .target = target, .max_bytes = max_bytes };
    return dpt_load(path, &o, out, err);
}

int cli_privacy_rng(int seed_given, unsigned long seed, dpt_rng **out)
{
    dpa_error err = { 0 };
    int st = seed_given ? dpt_rng_new_seeded((uint64_t)seed, out, &err) : dpt_rng_new_secure(out, &err);
    if (st) {
        print_error(&err);
        return EXIT_LIB;
    }
    return 0;
}

void data_use_add(cli_data_use *u, cli_use_kind kind, const char *fmt, ...)
{
    if (kind == USE_UNCOVERED) u->uncovered = 1;
    if (u->n >= CLI_DATA_USES) return;
    static const char *const tag[] = { "", "NOT COVERED by the guarantee: ", "evaluation, not private: " };
    size_t len = (size_t)snprintf(u->item[u->n], CLI_DATA_USE_SIZE, "%s", tag[kind]);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->item[u->n] + len, CLI_DATA_USE_SIZE - len, fmt, ap);
    va_end(ap);
    u->n++;
}

void data_use_common(cli_data_use *u, size_t train_n, size_t test_n, int priv, int seeded, const char *what,
                     const char *train_metrics)
{
    const char *guarantee = !priv ? "without privacy (not a private run)"
                            : seeded ? "under the accounting above, which needs secret noise: with --seed it is "
                                       "reproducible, so this run is NOT private"
                                     : "under the guarantee above";
    if (priv && what)
        data_use_add(u, USE_COVERED, "the %zu training rows, %s %s", train_n, what, guarantee);
    else
        data_use_add(u, USE_COVERED, "the %zu training rows, %s", train_n, guarantee);
    if (test_n) data_use_add(u, USE_EVALUATION, "the %zu held-out test rows, for the test metrics", test_n);
    if (train_metrics) data_use_add(u, USE_EVALUATION, "the training rows' %s", train_metrics);
}

void data_use_print_table(const cli_data_use *u)
{
    for (size_t i = 0; i < u->n; i++) printf("%-19s%s\n", i ? "" : "data use", u->item[i]);
}

const char *json_escape(const char *s, char *buf, size_t size)
{
    size_t k = 0;
    if (!size) return buf;
    for (; *s && k + 7 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            buf[k++] = '\\';
            buf[k++] = (char)c;
        } else if (c < 0x20) {
            k += (size_t)snprintf(buf + k, size - k, "\\u%04x", c);
        } else {
            buf[k++] = (char)c;
        }
    }
    buf[k] = '\0';
    return buf;
}

void data_use_print_json(const cli_data_use *u)
{
    char esc[2 * CLI_DATA_USE_SIZE + 8];
    printf("  \"data_use\": [");
    for (size_t i = 0; i < u->n; i++) printf("%s\"%s\"", i ? ", " : "", json_escape(u->item[i], esc, sizeof esc));
    printf("],\n");
}

const char *data_use_accounting(const cli_data_use *u, const char *accounting, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s", accounting,
             u->uncovered ? "; not covered by the guarantee: the data uses marked NOT COVERED" : "");
    return buf;
}

void data_use_loader(cli_data_use *u, const char *format)
{
    if (format && strcmp(format, "libsvm") == 0)
        data_use_add(u, USE_UNCOVERED, "the number of features, from the largest feature index in the libsvm file");
}
