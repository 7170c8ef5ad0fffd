/*
 * dptrain_cli.c - what the dptrain subcommands share beyond the
 * command-line toolkit (lib/cli/cli_toolkit.h): the trainers' own values
 * (seeds, data sizes, the work limit, accountants, input formats), loading
 * the data, the privacy generator, the data-use list and the version.
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

int parse_seed(const char *name, const char *text, unsigned long *out)
{
    uint64_t v;
    int st = cli_parse_count(name, text, 0, ULONG_MAX, &v);
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
        return cli_bad_value("max-data-size", "a size of at least 1 byte, in bytes or with K, M, G or T (powers of 1024), "
                         "e.g. 8G", text);
    if (huge || v > CLI_MAX_DATA_SIZE >> shift) {
        char shown[CLI_SHOWN_SIZE];
        return cli_usage_error("--max-data-size: at most %lluT, got '%s'", (unsigned long long)(CLI_MAX_DATA_SIZE >> 40),
                               cli_shown(text, shown, sizeof shown));
    }
    *out = v << shift;
    return 0;
}

int check_work(uint64_t epochs, size_t n, uint64_t uses)
{
    if (n && uses && epochs > CLI_MAX_WORK / n / uses) {
        char each[64] = "";
        if (uses > 1) snprintf(each, sizeof each, ", each in %llu batches an epoch,", (unsigned long long)uses);
        return cli_usage_error("--epochs: %llu epochs of %zu training examples%s are %.3g gradient evaluations, above "
                               "the limit of %.0e", (unsigned long long)epochs, n, each,
                               (double)epochs * (double)n * (double)uses, (double)CLI_MAX_WORK);
    }
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


const char *upper_text(double x, int json, char *buf)
{
    cli_format_value(x, CLI_ROLE_UPPER, json ? CLI_STYLE_JSON : CLI_STYLE_TEXT, buf);
    return buf;
}

json_t *json_upper(double x)
{
    return isnan(x) ? json_null() : cli_json_value(x, CLI_ROLE_UPPER);
}

json_t *json_num(double x, char conv, int digits)
{
    char buf[CLI_NUMBER_SIZE + 320]; /* "%.6f" of a large double is long */
    if (!isfinite(x)) return json_null();
    if (conv == 'f') snprintf(buf, sizeof buf, "%.*f", digits, x);
    else snprintf(buf, sizeof buf, "%.*g", digits, x);
    json_t *j = cli_json_number(buf);
    /* a "%.*f" text of more than 17 digits is no longer cli_json_print's
     * spelling: the double it reads back as */
    return j ? j : json_real(strtod(buf, NULL));
}

int json_put(json_t *doc, const char *key, json_t *value)
{
    return json_object_set_new(doc, key, value) ? -1 : 0;
}

int json_report(json_t *doc, int bad)
{
    if (bad) {
        json_decref(doc);
        doc = NULL;
    }
    if (cli_json_print(stdout, doc)) {
        cli_error("out of memory while writing the JSON report");
        return 1;
    }
    return 0;
}

int parse_report_format(const char *text, int *json)
{
    cli_format format = CLI_FORMAT_TABLE;
    int st = cli_parse_format(text, 0, &format);
    if (!st) *json = format == CLI_FORMAT_JSON;
    return st;
}

int parse_accountant(const char *text, const char **out)
{
    int choice;
    int st = cli_parse_choice("accountant", text, dpa_accountant_names(), &choice);
    if (!st) *out = dpa_accountant_names()[choice];
    return st;
}

int parse_sampling(const char *text, dpt_sampling *out)
{
    static const char *const names[] = { "poisson", "shuffle", "balls-in-bins", "truncated", "allocation", NULL };
    int choice;
    int st = cli_parse_choice("sampling", text, names, &choice);
    if (!st) *out = (dpt_sampling)choice;   /* in dpt_sampling's order */
    return st;
}

int sampling_param(dpt_sampling sampling, uint64_t max_batch, uint64_t selected, size_t *param)
{
    /* one field of the options holds either (dpt_sampling's param), so
     * each is refused with the other sampling here, not read as the other */
    if (selected && sampling != DPT_SAMPLING_ALLOCATION)
        return cli_usage_error("--selected: the batches each record is used in an epoch are for --sampling allocation "
                               "only (sampling %s)", dpt_sampling_name(sampling));
    if (max_batch && sampling != DPT_SAMPLING_TRUNCATED)
        return cli_usage_error("--max-batch: a maximum batch size is for --sampling truncated only (sampling %s)",
                               dpt_sampling_name(sampling));
    if (sampling == DPT_SAMPLING_ALLOCATION && !selected)
        return cli_usage_error("--sampling allocation needs --selected K, the batches each record is used in an epoch");
    *param = (size_t)(sampling == DPT_SAMPLING_ALLOCATION ? selected : max_batch);
    return 0;
}

int parse_input_format(const char *text, const char **out)
{
    static const char *const formats[] = { "csv", "libsvm", "idx" };
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(text, formats[i]) == 0) {
            *out = formats[i];
            return 0;
        }
    return cli_bad_value("input-format", "csv, libsvm or idx", text);
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
        cli_library_error(&err);
        return CLI_EXIT_LIBRARY;
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

json_t *data_use_json(const cli_data_use *u)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < u->n; i++)
        if (json_array_append_new(a, cli_json_text(u->item[i]))) {
            json_decref(a);
            a = NULL;
        }
    return a;
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
