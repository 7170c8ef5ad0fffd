/*
 * internal.h - private declarations shared by lib/ and accountants/.
 * Never installed, never included by trainers/.
 */
#ifndef DPACCT_INTERNAL_H
#define DPACCT_INTERNAL_H

#include "dpacct.h"

#define DPA_EVENT_MAX_PARAMS 5
#define DPA_EVENT_MAX_COUNTS 2

struct dpa_event {
    dpa_event_kind kind;
    double param[DPA_EVENT_MAX_PARAMS];
    uint64_t count[DPA_EVENT_MAX_COUNTS];
    size_t num_children;
    dpa_event **children; /* owned */
    size_t depth;         /* 0 for a leaf, 1 + the deepest child's for a wrapper
                           * (<= DPA_MAX_EVENT_DEPTH: bounds every recursive walk) */
    double repetitions;   /* the largest product of self_composed counts (and
                           * random_allocation steps) on a path to a leaf,
                           * rounded up (<= DPA_MAX_REPETITIONS) */
    size_t list_len;      /* a leaf's list of components (mixture_of_gaussians): */
    double *list;         /* owned; list_len sensitivities, then list_len
                           * probabilities; NULL for every other kind */
};

/* The names of an event kind's slots as lib/event.c's table gives them:
 * numeric slot i (is_count 0) or count slot i (1); NULL when unused. */
const char *dpa_event_slot_name(dpa_event_kind kind, int is_count, unsigned i);
/* The kind named name[0..len) ("compose" too, for composed),
 * DPA_EVENT_INVALID when none is. */
dpa_event_kind dpa_event_kind_from_name(const char *name, size_t len);
/* The event kind whose name is nearest name[0..len) (a typo: at most a
 * third of its letters changed), or NULL. */
const char *dpa_event_kind_nearest(const char *name, size_t len);
/* x with the fewest significant digits (at most 17) that read back as x
 * with strtod, into buf (snprintf's conventions); returns the length. */
size_t dpa_format_double(double x, char *buf, size_t size);

/* Switch this thread to the "C" locale (lib/c_locale.c), so that strtod
 * and printf read and write numbers with '.'; returns the locale to give
 * back to dpa_restore_locale when done. */
void *dpa_use_c_locale(void);
void dpa_restore_locale(void *caller);

/* Set err (if not NULL) to status and a printf-style message; returns status. */
int dpa_fail(dpa_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Visit the leaves of a composition tree: composed and self-composed nodes
 * are expanded, every other node is handed to `visit` together with the
 * number of times it occurs (a double: counts multiply and may exceed 2^64;
 * the product is rounded up, never below the true count, and is at most
 * about DPA_MAX_REPETITIONS, so it is finite).
 * Stops at the first nonzero status and returns it. */
typedef int (*dpa_leaf_visitor)(const dpa_event *leaf, double times, void *ctx,
                                dpa_error *err);
int dpa_event_visit_leaves(const dpa_event *e, dpa_leaf_visitor visit, void *ctx,
                           dpa_error *err);

/* 1/sigma^2 of a Gaussian event, mu^2 of a GDP event (the same pair of
 * distributions with sigma = 1/mu), (c/sigma)^2 of a mixture of Gaussians
 * whose components all have one sensitivity c > 0, and of any composition of those
 * (inverse variances add; compensated sum).  DPA_EUNSUPPORTED for anything
 * else, with *offender set to the first such event (err is left to the
 * caller, who knows why it wanted Gaussian noise). */
int dpa_event_inverse_variance(const dpa_event *e, double *inv_var, const dpa_event **offender);
/* mu of a noisy_cgd event (lib/noisy_cgd.c): it is mu-GDP, a Gaussian with
 * noise multiplier 1/mu for every accountant. */
int dpa_event_noisy_cgd_mu(const dpa_event *e, double *mu);
/* The event under e's nested self_composed wrappers (e itself when there
 * are none), with *times the product of their counts: exact while it is
 * below 2^53 (a product of integers that is representable is computed
 * exactly), and at least 2^53 when the true product is. */
const dpa_event *dpa_event_strip_counts(const dpa_event *e, double *times);
/* Whether e contains an event accounted by a bound that the mechanism
 * need not attain: a noisy_cgd leaf (its GDP bound on the final iterate)
 * or shuffled batches (the Gaussian once an epoch, whatever the order).
 * Accountants' lower bounds are then flagged DPA_PAIR_LOWER (but for an
 * accountant whose ops say mechanism_lower). */
int dpa_event_bound_unattained(const dpa_event *e);

/* The pure-DP eps of a leaf (Laplace 1/b, randomized response, discrete
 * Laplace sensitivity/scale, exponential, (eps, 0)); +inf for any other
 * (Gaussian noise, a delta > 0, wrappers). */
double dpa_event_pure_epsilon(const dpa_event *leaf);

/* One sample's worst-case GSM RDP at order a (lib/gsm.c), rounded up, +inf
 * where infinite: the Frobenius bound M, and the spectral sandwich eta over
 * n eigenvalues. */
double dpa_gsm_order_frobenius(double a, double M);
double dpa_gsm_order_spectral(double a, double n, double eta);

/* One step of truncated Poisson sampling (lib/truncated_poisson.c, where
 * the analysis is): at most the mixture, with weights 1 - p and p, of the
 * Poisson-subsampled Gaussian pairs at (sigma, q) and at (sigma/2, q2),
 * p = P(Bin(n - 1, q) >= max_batch), q2 = (max_batch/n) P(Bin(n, q) >=
 * max_batch + 1) / p rounded up; each world's profile is the weighted sum
 * of that world's two.  The weights come in logs, with a bound on the
 * relative error of each; at max_batch = n, p = 0 exactly (log_trunc
 * -inf, log_full 0): Poisson sampling.  DPA_EINVAL outside 0 < q <= 1,
 * 1 <= max_batch <= n; DPA_EUNSUPPORTED for n > 2^53 or tails too long. */
typedef struct dpa_truncated_mixture {
    double log_full, log_trunc; /* log(1 - p), log p */
    double weight_relerr;       /* of e^log_full and of e^log_trunc */
    double q2;                  /* the truncated part's rate, rounded up (<= q) */
} dpa_truncated_mixture;
int dpa_truncated_poisson_mixture(double q, uint64_t n, uint64_t max_batch, dpa_truncated_mixture *out,
                                  dpa_error *err);

/* The accountant interface.  `state` is a block of state_size bytes owned
 * by the generic accountant; it is zeroed before init.  The generic layer
 * calls supports() before compose(), so compose() sees only supported events
 * and must not fail half-way. */
typedef struct dpa_accountant_ops {
    const char *name;
    const char *summary;
    size_t state_size;
    int (*init)(void *state, const dpa_options *opt, dpa_error *err);
    void (*destroy)(void *state); /* may be NULL */
    int (*supports)(const void *state, const dpa_options *opt, const dpa_event *e,
                    dpa_error *err);
    int (*compose)(void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err);
    int (*epsilon)(void *state, const dpa_options *opt, double delta, dpa_bound *out,
                   dpa_error *err);
    int (*delta)(void *state, const dpa_options *opt, double epsilon, dpa_bound *out,
                 dpa_error *err);
    /* the scalar summary of the native state and its name */
    double (*state_value)(const void *state, const char **what);
    /* optional: copy the RDP curve (see dpa_accountant_rdp_curve); returns its length */
    size_t (*rdp_curve)(const void *state, double *orders, double *eps, size_t cap);
    /* optional: the composed PLD of the last query (see dpa_accountant_pld) */
    int (*pld_view)(const void *state, int world, int upper, dpa_pld_view *out, dpa_error *err);
    /* optional: delta at epsilon of each direction's pair, out[0] the pair
     * with the record against without it (pld's remove world), out[1] the
     * reverse; called after a delta query at the same epsilon.  *same_pair
     * set instead when both directions are one pair (then the query's own
     * bracket is each's).  NULL: the accountant keeps no pairs, only the
     * larger delta of the two. */
    int (*delta_directions)(void *state, const dpa_options *opt, double epsilon, dpa_bound out[2],
                            int *same_pair, dpa_error *err);
    /* 1: the two directions are one pair (the Gaussian), so delta is each */
    int symmetric;
    /* 1: its lower bounds are the mechanism's own even for the events of
     * dpa_event_bound_unattained (the batches accountant's lower bound of
     * shuffled batches), so they are not flagged DPA_PAIR_LOWER */
    int mechanism_lower;
} dpa_accountant_ops;

/* delta at epsilon of each direction (out[0]: with the record against
 * without it; out[1]: the reverse), each bounded by the accountant's delta
 * (lib/accountant.c); *exact is 1 when these are each direction's own,
 * 0 when both are the larger delta (the accountant keeps no pairs, or
 * failure terms were added).  `cached`: answer from what the last query
 * built where the accountant keeps it (pld's grids: valid bounds at any
 * epsilon, tightest near the one they were built for), without a query. */
int dpa_accountant_delta_directions(dpa_accountant *a, double epsilon, int cached, dpa_bound out[2], int *exact,
                                    dpa_error *err);

/* The registry (accountants/registry.c): NULL-terminated, in the order the
 * CLI lists them. */
extern const dpa_accountant_ops *const dpa_registry[];
extern const char *const dpa_registry_names[]; /* the same, by name */

/* Argument checks shared by all public entry points. */
int dpa_check_delta(double delta, dpa_error *err);
int dpa_check_epsilon(double epsilon, dpa_error *err);

#endif
