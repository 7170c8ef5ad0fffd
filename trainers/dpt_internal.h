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

/* `path` shortened for an error message: the messages are at most
 * DPA_ERROR_MESSAGE_SIZE bytes, and the line number and reason after the
 * file name must survive, so a long path keeps only its last `keep` bytes
 * behind "...".  Writes into buf (size bytes) and returns buf. */
DPT_HIDDEN const char *dpt_short_path(const char *path, size_t keep, char *buf, size_t size);

/* Turn GSL's aborting error handler off, once per process (GSL's handler is
 * a global: setting it from several threads at once would be a data race). */
DPT_HIDDEN void dpt_gsl_quiet(void);

/* strerror(errnum), thread-safe (strerror is not required to be: glibc's
 * is "MT-Unsafe race:strerror"): the text lives in a thread-local buffer
 * valid until the thread's next call. */
DPT_HIDDEN const char *dpt_strerror(int errnum);

/* A gsl_rng of type mt19937 seeded with `seed`, with GSL's aborting error
 * handler turned off first (as libdpacct does): NULL and DPA_ENOMEM in err
 * when it cannot be allocated.  Free with gsl_rng_free. */
DPT_HIDDEN gsl_rng *dpt_rng_new(unsigned long seed, dpa_error *err);

/* The certified upper eps of event e (consumed, may be NULL: then err's
 * status, which its constructor set) at delta under `method`. */
DPT_HIDDEN int dpt_event_epsilon(const char *method, const dpa_options *opt, dpa_event *e, double delta, double *eps,
                                 dpa_error *err);

/* The Gaussian noise multiplier sigma / Delta_2 for (eps, delta): analytic
 * (Balle & Wang 2018, dpa_gaussian_sigma's safe end) or, with `classical`,
 * sqrt(2 ln(1.25/delta)) / eps (Dwork & Roth 2014, Thm A.1), refused for
 * eps >= 1 where it is no guarantee. */
DPT_HIDDEN int dpt_gaussian_multiplier(double eps, double delta, int classical, double *mult, dpa_error *err);

/* A field for a message: at most 40 bytes of it, "..." when cut. */
DPT_HIDDEN const char *dpt_shown(const char *field, char *buf, size_t size);

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

#endif
