/*
 * dptrain_cli.h - what the dptrain subcommands (dptrain_main.c: the
 * GLMtron family; dptrain_cls.c: DP-SGD and NoisyCGD on classification
 * models) share.  Part of the dptrain program, not of libdptrain.
 */
#ifndef DPTRAIN_CLI_H
#define DPTRAIN_CLI_H

#include "cli_toolkit.h"
#include "dptrain.h"

#include <stdint.h>

/* Upper limits of the count options, refused above with a usage error and
 * listed in the --help texts and docs/dptrain.1.  They are far above any
 * run the papers' experiments or a sensible study make, and are there to
 * stop runaway work and the overflow of the products the counts enter:
 * - epochs: 10^6 (the experiments use 1 to a few hundred); and, since an
 *   epoch's work grows with the data, epochs x training examples (the
 *   gradient evaluations, a GLMtron step or a per-example gradient each)
 *   at most 10^10: Fashion-MNIST for 100 epochs is 6 10^6, and 10^10 steps
 *   of d = 1000 features take hours;
 * - sparse-sgd's --max-steps: 10^8 (each step costs O(d); the default is 10^5);
 * - rows (batch sizes, estimating records, per-class counts): 10^9, more
 *   than the rows of any data within the default data limit (2 GiB holds
 *   2.7 10^8 rows of one feature), and the trainers refuse a batch larger
 *   than the data anyway;
 * - model sizes (classes, hyperplanes, widths, projections): 10^6 each (the
 *   model's parameter count must in addition fit an int, see models.c);
 * - sparse-mean's --sparsity and --measurements: 10^9 (compared with d);
 * - --repeats: 10^6;
 * - --selected (allocation: the batches each record is in an epoch): 10^6,
 *   and the gradient evaluations check_work counts include them.
 * All fit in 32 bits, so the casts to size_t are exact everywhere. */
#define CLI_MAX_EPOCHS UINT64_C(1000000)
#define CLI_MAX_WORK UINT64_C(10000000000)
#define CLI_MAX_STEPS UINT64_C(100000000)
#define CLI_MAX_ROWS UINT64_C(1000000000)
#define CLI_MAX_UNITS UINT64_C(1000000)
#define CLI_MAX_FEATURES UINT64_C(1000000000)
#define CLI_MAX_REPEATS UINT64_C(1000000)
/* --max-data-size: at most 1 PiB (a limit, not a promise of memory). */
#define CLI_MAX_DATA_SIZE (UINT64_C(1) << 50)

/* A seed: a whole number that fits an unsigned long. */
int parse_seed(const char *name, const char *text, unsigned long *out);
/* --max-data-size: bytes, or a number with K, M, G or T (powers of 1024),
 * 1 byte to CLI_MAX_DATA_SIZE. */
int parse_data_size(const char *text, uint64_t *out);
/* epochs x n x uses (the gradient evaluations; uses: the batches each
 * record is in an epoch, 1 but for allocation's --selected) within
 * CLI_MAX_WORK, else a usage error naming --epochs. */
int check_work(uint64_t epochs, size_t n, uint64_t uses);
/* --format: table or json (the reports have no CSV); *json set. */
int parse_report_format(const char *text, int *json);
/* A name of libdpacct's accountants into *out, else a usage error. */
int parse_accountant(const char *text, const char **out);
/* --sampling: poisson, shuffle, balls-in-bins, truncated or allocation
 * (dpt_sampling). */
int parse_sampling(const char *text, dpt_sampling *out);
/* The sampling's parameter from --max-batch and --selected (0: not given),
 * each only with its sampling (truncated, allocation), allocation needing
 * --selected; else a usage error naming the option. */
int sampling_param(dpt_sampling sampling, uint64_t max_batch, uint64_t selected, size_t *param);
/* csv, libsvm or idx into *out, else a usage error. */
int parse_input_format(const char *text, const char **out);
/* Load `path` as `format` (csv, libsvm or idx; NULL: idx when `labels` is
 * given, else csv), with the IDX labels file or the CSV target column,
 * refusing data above max_bytes (0: the library's default). */
int load_file(const char *path, const char *labels, const char *format, const char *target, uint64_t max_bytes,
              dpt_dataset *out, dpa_error *err);
/* The training and test sets: `data` (and `test_data`, whose features must
 * match, when given) by load_file, else a seeded split of `data` at
 * test_fraction.  DPA_EINVAL (err set) for a mismatch or bad content. */
int load_train_test(const char *data, const char *labels, const char *test_data, const char *test_labels,
                    const char *format, const char *target, uint64_t max_bytes, double test_fraction,
                    unsigned long seed, dpt_dataset *train, dpt_dataset *test, dpa_error *err);
/* The generator of a run's privacy draws: seeded from --seed when the
 * option was given (reproducible, so the run is labelled not private),
 * else keyed from the operating system.  Prints the error and returns
 * CLI_EXIT_LIBRARY when it cannot be made. */
int cli_privacy_rng(int seed_given, unsigned long seed, dpt_rng **out);

/* What a run did with the user's data, for the report: one entry per part
 * of the data or statistic touched, with the guarantee that covers it (or
 * that none does).  Entries are copied; at most CLI_DATA_USES. */
enum { CLI_DATA_USES = 12, CLI_DATA_USE_SIZE = 200 };
typedef struct {
    char item[CLI_DATA_USES][CLI_DATA_USE_SIZE];
    size_t n;
    int uncovered;               /* some entry is outside the guarantee */
} cli_data_use;
/* How a use stands against the guarantee of the released model. */
typedef enum {
    USE_COVERED,       /* it shapes the model, and the accounting covers it */
    USE_UNCOVERED,     /* it shapes the model outside the accounting: the accounting line says so */
    USE_EVALUATION     /* a number reported beside the model (a loss, an accuracy), not private */
} cli_use_kind;
void data_use_add(cli_data_use *u, cli_use_kind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The uses every trainer shares: the training rows (`what` of them: NULL
 * for the rows themselves, or e.g. "their features") under the run's
 * guarantee, said to be void when `seeded` (--seed: reproducible noise) and
 * absent when not `priv`; the held-out test rows (when test_n > 0) and the
 * training-set metrics named in `train_metrics` (NULL: none) as evaluation. */
void data_use_common(cli_data_use *u, size_t train_n, size_t test_n, int priv, int seeded, const char *what,
                     const char *train_metrics);
/* The "data use" lines of the table report (one per entry). */
void data_use_print_table(const cli_data_use *u);
/* The "data_use" array of the JSON report; NULL without memory. */
json_t *data_use_json(const cli_data_use *u);
/* The uses the loader makes: libsvm input takes the number of features
 * from the largest index in the file (a statistic of the data, named NOT
 * COVERED); csv and idx take it from the file's header. */
void data_use_loader(cli_data_use *u, const char *format);
/* The accounting text with the run's caveats appended: "; not covered by
 * the guarantee: see data use" when an entry is uncovered. */
const char *data_use_accounting(const cli_data_use *u, const char *accounting, char *buf, size_t size);
/* A certified upper value of a report (an epsilon spent, the delta it holds
 * at) through the toolkit's rule: 10 significant digits rounded up, never
 * to nearest; json: the JSON spelling (null for NaN, "inf").  buf holds
 * CLI_NUMBER_SIZE bytes. */
const char *upper_text(double x, int json, char *buf);
/* ---- the JSON reports: a jansson tree printed by cli_json_print (docs/json.md) */
/* upper_text's JSON node: rounded up, null for NaN, "inf". */
json_t *json_upper(double x);
/* A statistic as printf's "%.*g" (conv 'g') or "%.*f" (conv 'f') with
 * `digits` writes it (trailing zeros of "%.*f" dropped: the same number);
 * null when not finite. */
json_t *json_num(double x, char conv, int digits);
/* Add `value` under `key` to the report `doc`: 0, or -1 (value or doc NULL,
 * or no memory) after which the caller frees doc and reports no output. */
int json_put(json_t *doc, const char *key, json_t *value);
/* Print the report built in doc (NULL when bad) and free it: 0, or 1 after
 * a message on stderr. */
int json_report(json_t *doc, int bad);
/* dptrain's version, libdpacct's and the CBLAS linked. */
void print_version(void);
/* dptrain sgd|ncgd ARGS: argv[0] is the subcommand. */
int cls_command(int argc, char **argv);
/* dptrain ntk ARGS (dptrain_ntk.c). */
int ntk_command(int argc, char **argv);
/* dptrain sparse-mean ARGS (dptrain_sparse.c). */
int sparse_mean_command(int argc, char **argv);
/* dptrain sparse-erm|sparse-sgd ARGS (dptrain_sparse_opt.c): argv[0] is the subcommand. */
int sparse_opt_command(int argc, char **argv);

#endif
