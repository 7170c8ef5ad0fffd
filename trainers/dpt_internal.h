/*
 * dpt_internal.h - private helpers shared by the libdptrain sources.
 * Never installed.  libdptrain is a client of libdpacct through <dpacct.h>
 * only, so it keeps its own copy of the error helper instead of using
 * libdpacct's private one.
 */
#ifndef DPT_INTERNAL_H
#define DPT_INTERNAL_H

#include "dptrain.h"

#include <gsl/gsl_rng.h>

#if defined(__GNUC__)
#define DPT_HIDDEN __attribute__((visibility("hidden")))
#define DPT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define DPT_HIDDEN
#define DPT_PRINTF(f, a)
#endif

/* Set err (when not NULL) to `status` and a printf-style message; returns
 * `status`, so that `return dpt_fail(err, DPA_EINVAL, "...")` reads well. */
DPT_HIDDEN int dpt_fail(dpa_error *err, int status, const char *fmt, ...) DPT_PRINTF(3, 4);

/* `path` for an error message: escaped (dpt_escape), and since the
 * messages are at most DPA_ERROR_MESSAGE_SIZE bytes and the line number and
 * reason after the file name must survive, a long path keeps only its last
 * `keep` bytes behind "...".  Writes into buf (size bytes) and returns buf. */
DPT_HIDDEN const char *dpt_short_path(const char *path, size_t keep, char *buf, size_t size);

/* A byte count for a message: "512 bytes", "1.5 KiB", "763 MiB", "2 GiB". */
DPT_HIDDEN const char *dpt_bytes_text(double bytes, char *buf, size_t size);

/* max_bytes, or DPT_MAX_DATA_BYTES_DEFAULT when it is 0. */
DPT_HIDDEN uint64_t dpt_data_limit(uint64_t max_bytes);

/* Whether n x d doubles can be allocated as a dataset under the limit
 * max_bytes (0: the default): DPA_OK, or DPA_EINVAL with a message that
 * starts with `who` and gives n, d, the bytes and the limit (n * d
 * overflowing the addressable size is said so).  The arithmetic is exact
 * (checked before any product). */
DPT_HIDDEN int dpt_check_data_size(size_t n, size_t d, uint64_t max_bytes, const char *who, dpa_error *err);

/* dpt_dataset_alloc after dpt_check_data_size. */
DPT_HIDDEN int dpt_dataset_alloc_max(dpt_dataset *ds, size_t n, size_t d, uint64_t max_bytes, const char *who,
                                     dpa_error *err);

/* The loaders with a limit on the data (dpt_load_options.max_bytes). */
DPT_HIDDEN int dpt_load_csv_max(const char *path, const char *target, uint64_t max_bytes, dpt_dataset *out,
                                dpa_error *err);
DPT_HIDDEN int dpt_load_libsvm_max(const char *path, size_t d, uint64_t max_bytes, dpt_dataset *out, dpa_error *err);
DPT_HIDDEN int dpt_load_idx_max(const char *images, const char *labels, uint64_t max_bytes, dpt_dataset *out,
                                dpa_error *err);

/* The sampling's event in words, for a trainer's accounting line
 * (trainers/sampling.c): the batches, the Gaussian's multiplier, the steps
 * or epochs. */
DPT_HIDDEN void dpt_sampling_describe(dpt_sampling kind, size_t n, size_t b, size_t param, uint64_t epochs,
                                      double multiplier, char *buf, size_t size);

/* Turn GSL's aborting error handler off, once per process (GSL's handler is
 * a global: setting it from several threads at once would be a data race). */
DPT_HIDDEN void dpt_gsl_quiet(void);

/* strerror(errnum), thread-safe (strerror is not required to be: glibc's
 * is "MT-Unsafe race:strerror"): the text lives in a thread-local buffer
 * valid until the thread's next call. */
DPT_HIDDEN const char *dpt_strerror(int errnum);

/* A gsl_rng of type mt19937 seeded with `seed`, with GSL's aborting error
 * handler turned off first (as libdpacct does): NULL and DPA_ENOMEM in err
 * when it cannot be allocated.  Free with gsl_rng_free.  Only for draws that
 * protect no one (w0, gates, neurons, public projections, synthetic data,
 * the test split); every privacy draw comes from a dpt_rng. */
DPT_HIDDEN gsl_rng *dpt_rng_new(unsigned long seed, dpa_error *err);

/* The generator of a run's privacy draws: `given` when not NULL; else, for a
 * run that is not private (`private_run` 0), a new generator seeded with
 * `seed` (*owned receives it: free it with dpt_rng_free); a private run
 * without a generator is refused (DPA_EINVAL naming `who`), because the
 * library does not choose between secure and reproducible noise for its
 * caller. */
DPT_HIDDEN int dpt_run_rng(dpt_rng *given, int private_run, unsigned long seed, const char *who, dpt_rng **use,
                           dpt_rng **owned, dpa_error *err);

/* Appends "; " and `note` to the accounting text buf (size bytes) when note
 * is not empty, cutting at the end if needed. */
DPT_HIDDEN void dpt_accounting_note(char *buf, size_t size, const char *note);

/* A noise standard deviation or scale computed in floating point (products
 * and quotients of the accounted quantities, a few roundings) raised by a
 * relative 2^-48, so that the noise drawn is never below the noise
 * accounted. */
static inline double dpt_scale_up(double s)
{
    return s * (1.0 + 0x1p-48);
}

/* The certified upper eps of event e (consumed, may be NULL: then err's
 * status, which its constructor set) at delta under `method`. */
DPT_HIDDEN int dpt_event_epsilon(const char *method, const dpa_options *opt, dpa_event *e, double delta, double *eps,
                                 dpa_error *err);

/* The Gaussian noise multiplier sigma / Delta_2 for (eps, delta): analytic
 * (Balle & Wang 2018, dpa_gaussian_sigma's safe end) or, with `classical`,
 * sqrt(2 ln(1.25/delta)) / eps (Dwork & Roth 2014, Thm A.1), refused for
 * eps >= 1 where it is no guarantee. */
DPT_HIDDEN int dpt_gaussian_multiplier(double eps, double delta, int classical, double *mult, dpa_error *err);

/* The whole of `s` as a number: 1 and *out when it is a finite number, 0
 * when it is not a number (empty, trailing characters), -1 for NaN or an
 * infinity (overflow included). */
DPT_HIDDEN int dpt_parse_number(const char *s, double *out);

/* The whole of `s` as a decimal count (digits only): 1 and *out, or 0 when
 * it is not one or does not fit; the generators' "key=value" specs. */
DPT_HIDDEN int dpt_parse_size(const char *s, size_t *out);
DPT_HIDDEN int dpt_parse_ulong(const char *s, unsigned long *out);

/* The comma-separated "key=value" items of a generator's spec, trimmed of
 * blanks, each handed to `item`; an empty item is an error naming `who`.
 * Stops at the first nonzero status.  NULL or "" is no items. */
DPT_HIDDEN int dpt_spec_items(const char *text, const char *who, int (*item)(char *item, void *ctx, dpa_error *err),
                              void *ctx, dpa_error *err);

/* ---- Liu & Talwar's random stopping (trainers/sparse/select.c) ---- */

/* The checks of a selection run, each a DPA_EINVAL naming `who` and the
 * argument: gamma in (0, 1], the score's share `fraction` in (0, 1), the
 * `count` candidates (called `name`) finite and > 0, and (pure != 0) delta
 * = 0. */
DPT_HIDDEN int dpt_lt_check(const char *who, const char *name, const double *cand, size_t count, double gamma,
                            double fraction, int pure, double delta, dpa_error *err);
/* The budget of a run with total epsilon: round = epsilon/3, score =
 * fraction round, main = round - score; total = the tuning accountant's
 * certified eps of repeated_selected(GEOMETRIC, gamma) of the round
 * composed(laplace(1/main), laplace(1/score)), confirmed pure. */
typedef struct {
    double round, main, score, total;
} dpt_lt_budget_t;
DPT_HIDDEN int dpt_lt_budget(const char *who, double epsilon, double fraction, double gamma, dpt_lt_budget_t *b,
                             dpa_error *err);
/* score + Laplace(sensitivity/eps_score, rounded up) in *noisy; rng NULL:
 * no noise (a run without noise). */
DPT_HIDDEN int dpt_lt_noisy(const char *who, dpt_rng *rng, double score, double sensitivity, double eps_score,
                            double *noisy, dpa_error *err);
/* The rounds: a candidate j uniform in [0, count) from rng, round(ctx, j,
 * &noisy score) writing its release into *cur; when that score is the
 * lowest so far (the first of equal ones) *cur and *best are swapped and
 * keep(ctx) (when not NULL) keeps the round's other results; then stop with
 * probability gamma (exactly, from rng).  out: the rounds run, the kept
 * round's candidate and score. */
typedef struct {
    uint64_t rounds;
    size_t best;
    double score;
} dpt_lt_outcome;
DPT_HIDDEN int dpt_lt_run(dpt_rng *rng, size_t count, double gamma,
                          int (*round)(void *ctx, size_t candidate, double *score, dpa_error *err),
                          void (*keep)(void *ctx), void *ctx, double **cur, double **best, dpt_lt_outcome *out,
                          dpa_error *err);

#endif
