/*
 * dptrain_cli.h - what the dptrain subcommands (dptrain_main.c: the
 * GLMtron family; dptrain_cls.c: DP-SGD and NoisyCGD on classification
 * models) share.  Part of the dptrain program, not of libdptrain.
 */
#ifndef DPTRAIN_CLI_H
#define DPTRAIN_CLI_H

#include "dptrain.h"

#include <stdint.h>

enum { EXIT_LIB = 1, EXIT_USAGE = 2 };

/* "dptrain: " and the message on stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The whole of `text` as a number in the interval (open or closed ends),
 * else a usage error naming --name. */
int parse_double(const char *name, const char *text, double lo, int lo_open, double hi, int hi_open, double *out);
/* A whole number >= lo, else a usage error naming --name. */
int parse_count(const char *name, const char *text, uint64_t lo, uint64_t *out);
/* csv, libsvm or idx into *out, else a usage error. */
int parse_input_format(const char *text, const char **out);
/* Load `path` as `format` (csv, libsvm or idx; NULL: idx when `labels` is
 * given, else csv), with the IDX labels file or the CSV target column. */
int load_file(const char *path, const char *labels, const char *format, const char *target, dpt_dataset *out,
              dpa_error *err);
/* The training and test sets: `data` (and `test_data`, whose features must
 * match, when given) by load_file, else a seeded split of `data` at
 * test_fraction.  DPA_EINVAL (err set) for a mismatch or bad content. */
int load_train_test(const char *data, const char *labels, const char *test_data, const char *test_labels,
                    const char *format, const char *target, double test_fraction, unsigned long seed,
                    dpt_dataset *train, dpt_dataset *test, dpa_error *err);
/* One line on stderr for a library error. */
void print_error(const dpa_error *err);
/* The progress callback: ctx is a struct timespec of the start. */
void progress_bar(void *ctx, uint64_t done, uint64_t total);
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
