/*
 * dptrain_cli.c - what the dptrain subcommands share: one-line usage
 * errors (exit status 2), number parsing, the library's error line, the
 * progress bar and the version.
 */
#include <config.h>

#include "dptrain_cli.h"

#include <errno.h>
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

int parse_double(const char *name, const char *text, double lo, int lo_open, double hi, int hi_open, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v) || (lo_open ? !(v > lo) : !(v >= lo)) ||
        (hi_open ? !(v < hi) : !(v <= hi)))
        return usage_error("--%s: expected a number in %c%g, %g%c, got '%s'", name, lo_open ? '(' : '[', lo, hi,
                           hi_open ? ')' : ']', text);
    *out = v;
    return 0;
}

int parse_count(const char *name, const char *text, uint64_t lo, uint64_t *out)
{
    char *end;
    errno = 0;
    if (text[0] == '-' || text[0] == '+' || text[0] == ' ') return usage_error("--%s: expected a whole number, got '%s'", name, text);
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || *end || errno || v < lo)
        return usage_error("--%s: expected a whole number >= %llu, got '%s'", name, (unsigned long long)lo, text);
    *out = v;
    return 0;
}

/* One line on stderr: "dptrain: " and the library's message, whose own
 * "dptrain: " prefix (the trainers' messages carry it) is not repeated. */
int load_train_test(const char *data, const char *labels, const char *test_data, const char *test_labels,
                    const char *format, const char *target, double test_fraction, unsigned long seed,
                    dpt_dataset *train, dpt_dataset *test, dpa_error *err)
{
    if (!test_data) {
        dpt_dataset all = { 0 };
        int st = load_file(data, labels, format, target, &all, err);
        if (!st) st = dpt_split(&all, test_fraction, seed, train, test, err);
        dpt_dataset_free(&all);
        return st;
    }
    int st = load_file(data, labels, format, target, train, err);
    if (!st) st = load_file(test_data, test_labels, format, target, test, err);
    if (!st && test->d != train->d) {
        err->status = DPA_EINVAL;
        snprintf(err->message, sizeof err->message, "the test data has %zu features, the training data %zu", test->d,
                 train->d);
        st = DPA_EINVAL;
    }
    return st;
}

void print_error(const dpa_error *err)
{
    const char *m = err->message;
    if (strncmp(m, "dptrain: ", 9) == 0) m += 9;
    fprintf(stderr, "dptrain: %s\n", m);
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


int parse_input_format(const char *text, const char **out)
{
    if (strcmp(text, "csv") && strcmp(text, "libsvm") && strcmp(text, "idx"))
        return usage_error("--input-format: expected csv, libsvm or idx, got '%s'", text);
    *out = text;
    return 0;
}

int load_file(const char *path, const char *labels, const char *format, const char *target, dpt_dataset *out,
              dpa_error *err)
{
    const char *fmt = format ? format : labels ? "idx" : "csv";
    if (strcmp(fmt, "idx") == 0) return dpt_load_idx(path, labels, out, err);
    if (strcmp(fmt, "libsvm") == 0) return dpt_load_libsvm(path, 0, out, err);
    return dpt_load_csv(path, target, out, err);
}
