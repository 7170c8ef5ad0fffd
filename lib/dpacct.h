/*
 * dpacct.h - public interface of libdpacct, the differential-privacy accountant.
 *
 * Conventions (see docs/api.md; every function: docs/api-reference.md):
 *  - Every fallible function takes an optional `dpa_error *err` as its last
 *    argument.  Functions that produce an object return it (NULL on failure);
 *    all others return an int status: DPA_OK (0) or a negative DPA_E* code.
 *    On failure `err`, when not NULL, receives the status and a sentence that
 *    names the offending argument.
 *  - Event wrappers take ownership of the events passed to them, also when
 *    they fail, so constructors nest:
 *        dpa_error err = {0};
 *        dpa_event *e = dpa_event_self_composed(
 *            dpa_event_poisson_sampled(q, dpa_event_gaussian(sigma, &err), &err),
 *            steps, &err);
 *        if (!e) fprintf(stderr, "%s\n", err.message);
 *    A wrapper given a NULL child returns NULL and keeps the child's error.
 *  - A NULL pointer where an object or an output is required is DPA_EINVAL
 *    (NULL for constructors) with a message naming the argument; it never
 *    crashes.  Functions that return a value rather than a status say what
 *    they return for NULL (a sentinel such as NaN, 0, "" or NULL); those
 *    that return void do nothing with NULL.  `err` itself may always be NULL.
 *  - "noise multiplier" is always sigma / sensitivity, the sensitivity being
 *    measured under the accountant's neighbouring relation.
 *  - The library keeps no global mutable state, never prints and never exits.
 */
#ifndef DPACCT_H
#define DPACCT_H

#include <stddef.h>
#include <stdint.h>

/* Everything declared from here on is the exported API: the library is
 * compiled with -fvisibility=hidden, so the names declared here are the only
 * ones libdpacct.so exports (tests/cli/test-abi.sh checks that).  Pushed
 * after the system headers, whose declarations keep their own visibility. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes ------------------------------------------------------ */
enum {
    DPA_OK = 0,
    DPA_EINVAL = -1,       /* an argument is out of its domain */
    DPA_ENOMEM = -2,       /* memory exhausted */
    DPA_EUNSUPPORTED = -3, /* the accountant cannot account for this event */
    DPA_EACCURACY = -4,    /* requested accuracy not reachable within limits (a pld
                            * or shuffle query only under
                            * dpa_options.require_width; by default they answer
                            * with DPA_WIDTH_NOT_MET) */
    DPA_ENOTFOUND = -5,    /* unknown accountant name */
    DPA_ENOBRACKET = -6,   /* a search interval does not contain a solution */
    DPA_EINTERNAL = -7,    /* a result failed its consistency check (NaN, lower > upper):
                            * a bug; the bound returned is the widest valid one */
    DPA_EIO = -8           /* a file could not be read or written (event files, ledgers) */
};

#define DPA_ERROR_MESSAGE_SIZE 256
typedef struct dpa_error {
    int status;
    char message[DPA_ERROR_MESSAGE_SIZE];
} dpa_error;

/* A sentence describing a status code (static storage). */
const char *dpa_strerror(int status);

/* `text` (user input: an argument, a path, a field of a file, a name)
 * made fit to be echoed in a one-line message, into buf (size bytes,
 * NUL-terminated; returns buf): a backslash is doubled, \n \r \t are
 * written so, any other control byte, DEL, a byte that is not part of valid
 * UTF-8, and the C1 controls, line/paragraph separators and bidirectional
 * overrides are written \xNN (each byte), so the result is one printable
 * line.  When it does not fit, it is cut at a character boundary and "..."
 * marks the cut: at the end, or with DPA_ESCAPE_TAIL at the start (the end
 * of a path is the informative part).  NULL text reads "(null)". */
enum { DPA_ESCAPE_TAIL = 1 };
const char *dpa_escape(const char *text, unsigned flags, char *buf, size_t size);

/* Version of the library, "MAJOR.MINOR.PATCH". */
const char *dpa_version(void);

/* ---- bounds ------------------------------------------------------------ */
enum {
    DPA_APPROXIMATE = 1u << 0,   /* an approximation, not a guarantee */
    DPA_EXACT = 1u << 1,         /* lower and upper differ by rounding only */
    DPA_NO_LOWER = 1u << 2,      /* the method has no lower bound; lower = 0 */
    DPA_UNBOUNDED = 1u << 3,     /* no finite epsilon: upper = +inf */
    DPA_CONV_CLASSIC = 1u << 4,  /* zCDP/RDP: eps = rho + 2 sqrt(rho log 1/delta) */
    DPA_CONV_CKS = 1u << 5,      /* zCDP/RDP: Canonne-Kamath-Steinke 2020 conversion */
    DPA_ORDER_AT_EDGE = 1u << 6, /* RDP: optimal order at the edge of the orders
                                  * searched (the caller's list, or the default
                                  * search's range 1.001 .. 65536) */
    DPA_PAIR_LOWER = 1u << 7,    /* `lower` bounds the eps of the dominating pair (or
                                  * GDP bound) used -- sampling without replacement,
                                  * noisy_cgd -- the mechanism itself may have a
                                  * smaller eps */
    DPA_CONV_TV = 1u << 8,       /* RDP: total variation bound from the KL divergence
                                  * (Bretagnolle-Huber): delta <= sqrt(1 - e^-eps(alpha)),
                                  * eps = 0 when that is at most delta */
    DPA_WIDTH_NOT_MET = 1u << 9, /* the bracket is certified but wider than the
                                  * accuracy asked (dpa_options.tolerance): the
                                  * best the accountant reached within its limits
                                  * (pld); the query still returns DPA_OK unless
                                  * dpa_options.require_width is set */
    DPA_SYMMETRISED = 1u << 10   /* trade-off curve from the privacy profile: the
                                  * upper bound holds in each direction, the lower
                                  * bounds the curve symmetrised over the two
                                  * (the mechanism's own for a symmetric pair) */
};

/* The answer to a privacy query.  The true value lies in [lower, upper];
 * `upper` is the number to report.  `estimate` is the best point value.
 * `order` is the Renyi order used by a conversion, 0 when none was used. */
typedef struct dpa_bound {
    double lower;
    double estimate;
    double upper;
    double order;
    unsigned flags;
} dpa_bound;

/* Describe the flags of a bound in words, e.g. "approximate (not a
 * guarantee)"; writes at most `size` bytes, returns the number needed.
 * buf may be NULL (nothing is written, as for size 0). */
size_t dpa_bound_describe(unsigned flags, char *buf, size_t size);

/* ---- events ------------------------------------------------------------ */
typedef struct dpa_event dpa_event;

typedef enum dpa_event_kind {
    DPA_EVENT_GAUSSIAN,
    DPA_EVENT_LAPLACE,
    DPA_EVENT_RANDOMIZED_RESPONSE,
    DPA_EVENT_DISCRETE_GAUSSIAN,
    DPA_EVENT_DISCRETE_LAPLACE,
    DPA_EVENT_EXPONENTIAL,
    DPA_EVENT_EPSILON_DELTA,
    DPA_EVENT_ZCDP,
    DPA_EVENT_GDP,
    DPA_EVENT_TREE_AGGREGATION,
    DPA_EVENT_NOISY_CGD,
    DPA_EVENT_SHUFFLED,
    DPA_EVENT_POISSON_SAMPLED,
    DPA_EVENT_SAMPLED_WITHOUT_REPLACEMENT,
    DPA_EVENT_SAMPLED_WITH_REPLACEMENT,
    DPA_EVENT_SELF_COMPOSED,
    DPA_EVENT_COMPOSED,
    DPA_EVENT_REPEATED_SELECTED,
    DPA_EVENT_TRUNCATED_LAPLACE,
    DPA_EVENT_GSM_FROBENIUS,
    DPA_EVENT_GSM_SPECTRAL,
    DPA_EVENT_PERMUTE_AND_FLIP,
    DPA_EVENT_SHUFFLED_BATCHES,
    DPA_EVENT_TRUNCATED_POISSON,
    DPA_EVENT_RANDOM_ALLOCATION,
    DPA_EVENT_MIXTURE_OF_GAUSSIANS,
    DPA_EVENT_INVALID = -1 /* not a kind: dpa_event_get_kind(NULL) */
} dpa_event_kind;

/* The deepest nesting of wrappers an event may have: a leaf has depth 0 and
 * a wrapper one more than its deepest child.  A wrapper that would exceed it
 * is refused (DPA_EINVAL, and it frees its children as always), so every
 * walk over an event -- describe, copy, free and the accountants' own,
 * which recurse once per level -- stays far inside a default 8 MB stack
 * (measured at this depth: under 384 KB for the deepest, rdp's, and under
 * 1 MB with ASan; tests/test_api.c runs them all on a 2 MB thread).  Width
 * is not limited: a composed event may hold millions of children.  Real
 * events nest a handful of levels. */
#define DPA_MAX_EVENT_DEPTH 1000

/* Leaves. */
dpa_event *dpa_event_gaussian(double noise_multiplier, dpa_error *err);
/* Truncated Laplace (Geng, Ding, Guo & Kumar 2020) calibrated to (epsilon,
 * delta) for a scalar query of sensitivity 1: density proportional to
 * e^(-epsilon |z|) on [-A, A], A = dpa_truncated_laplace_bound(1, epsilon,
 * delta).  Its privacy loss is +inf with probability exactly delta, so
 * only pld accounts it (exactly, with that mass at +inf); rdp, zcdp and gdp
 * refuse it (its Renyi divergence is infinite at every order). */
dpa_event *dpa_event_truncated_laplace(double epsilon, double delta, dpa_error *err);
/* The Gaussian Sampling Mechanism (Gu, Liang, Sha, Shi & Song, WACV 2025,
 * Alg. 1, after Alabi, Kothari, Tankala, Venkat & Zhang 2023):
 * k samples g_i ~ N(0, Sigma(D)), released as (1/k) sum g_i g_i^T.  Its
 * RDP, for the eigenvalues mu_j of Sigma^-1/2 Sigma' Sigma^-1/2, is
 * k sum_j c_a(mu_j), c_a(mu) = [a ln mu - ln(a mu + 1 - a)] / (2 (a - 1)).
 * Worst cases over neighbours, accounted by rdp only:
 *   frobenius  ||Sigma^-1/2 Sigma' Sigma^-1/2 - I||_F <= M (both ways),
 *              M in (0, 1): k c_a(1 - M), finite for a < 1/M;
 *   spectral   (1 - eta) Sigma <= Sigma' <= (1 + eta) Sigma for n x n
 *              matrices, eta in (0, 1): k n max(c_a(1 - eta), c_a(1 + eta)). */
dpa_event *dpa_event_gsm_frobenius(uint64_t k, double M, dpa_error *err);
dpa_event *dpa_event_gsm_spectral(uint64_t k, uint64_t n, double eta, dpa_error *err);
dpa_event *dpa_event_laplace(double noise_multiplier, dpa_error *err);
/* k-ary randomized response answering truthfully w.p. e^eps/(e^eps+k-1). */
dpa_event *dpa_event_randomized_response(double epsilon, uint32_t k, dpa_error *err);
dpa_event *dpa_event_discrete_gaussian(double sigma, uint64_t sensitivity, dpa_error *err);
dpa_event *dpa_event_discrete_laplace(double scale, uint64_t sensitivity, dpa_error *err);
/* Exponential mechanism with privacy parameter epsilon (bounded range eps). */
dpa_event *dpa_event_exponential(double epsilon, dpa_error *err);
/* Permute-and-flip (McKenna & Sheldon, NeurIPS 2020) with privacy parameter
 * epsilon: eps-DP (their Thm 1), accounted as pure eps-DP (unlike the
 * exponential mechanism it is not known to be eps-bounded range). */
dpa_event *dpa_event_permute_and_flip(double epsilon, dpa_error *err);
/* The mixture of Gaussians (Choquette-Choo, Ganesh, Steinke & Thakurta,
 * "Privacy amplification for matrix mechanisms", ICLR 2024): on one
 * dataset the output is N(0, sigma^2), on its neighbour the mixture
 * sum_i probabilities[i] N(sensitivities[i], sigma^2), n components
 * (1 <= n <= DPA_MAX_MIXTURE_COMPONENTS).  A sensitivity may be 0 (the
 * record not used); Poisson sampling of a Gaussian is {0: 1 - q, 1: q}.
 * sigma > 0 finite, each sensitivity finite and >= 0, each probability in
 * (0, 1], and they sum to 1 within 1e-9 (accountants divide by their sum).
 * The arrays are copied.  Accounted by pld (both directions) and rdp
 * (see docs/api.md); the other accountants refuse it, but for a mixture
 * whose components all have one sensitivity c > 0: the Gaussian of noise
 * multiplier sigma/c for every Gaussian-capable accountant. */
#define DPA_MAX_MIXTURE_COMPONENTS 1024
dpa_event *dpa_event_mixture_of_gaussians(double sigma, const double *sensitivities, const double *probabilities,
                                          size_t n, dpa_error *err);
/* A black box known only to be (epsilon, delta)-DP. */
dpa_event *dpa_event_epsilon_delta(double epsilon, double delta, dpa_error *err);
/* (xi, rho)-approximate zCDP: D_alpha <= xi + rho * alpha for all alpha > 1. */
dpa_event *dpa_event_zcdp(double rho, double xi, dpa_error *err);
dpa_event *dpa_event_gdp(double mu, dpa_error *err);
/* Tree aggregation (DP-FTRL, Kairouz et al. 2021) over `steps` leaves,
 * restarted every `restart_every` steps (0 = a single tree), each record in
 * one leaf per tree.  noise_multiplier = node noise std / the sensitivity of
 * one leaf under the accountant's relation: for leaf vectors of norm <= G
 * that is G under add/remove but 2G under replace-one (a replaced record
 * moves its leaf by up to 2G), so the same node noise is half the
 * multiplier under replace-one.  A Gaussian with 1/sigma^2 = trees
 * (floor(log2 r) + 1) / f^2 for every Gaussian-capable accountant. */
dpa_event *dpa_event_tree_aggregation(double noise_multiplier, uint64_t steps,
                                      uint64_t restart_every, dpa_error *err);
/* Final iterate of noisy cyclic GD (hidden state): strongly convex (m),
 * smooth (M) loss, step size eta in (0, 2/M), the data split into
 * `batches` fixed batches visited cyclically for `epochs` passes, Gaussian
 * noise of standard deviation sigma added to each batch gradient, whose
 * sensitivity is `sensitivity` (L/b for the mean of b gradients of
 * per-example sensitivity L, under the accountant's relation).  Only the
 * final iterate is released: mu-GDP by Bok, Su & Altschuler, "Shifted
 * Interpolation for Differential Privacy" (ICML 2024), Thm 4.5 (the
 * numbering of arXiv:2403.00278)
 * (dpa_noisy_cgd_mu), which every Gaussian-capable accountant uses. */
typedef struct dpa_noisy_cgd_params {
    double strong_convexity; /* m > 0 */
    double smoothness;       /* M >= m */
    double step_size;        /* eta in (0, 2/M) */
    double sensitivity;      /* per-example gradient sensitivity */
    double sigma;            /* noise standard deviation */
    uint64_t batches;        /* batches per epoch */
    uint64_t epochs;
} dpa_noisy_cgd_params;
dpa_event *dpa_event_noisy_cgd(const dpa_noisy_cgd_params *p, dpa_error *err);
/* The mu of that bound: mu = (sensitivity/sigma) sqrt(1 + c^{2k-2} (1 - c^2)
 * / (1 - c^k)^2 (1 - c^{k(E-1)}) / (1 + c^{k(E-1)})), c = max(|1 - eta m|,
 * |1 - eta M|), k batches, E epochs; rounded up. */
int dpa_noisy_cgd_mu(const dpa_noisy_cgd_params *p, double *mu, dpa_error *err);
/* n users each applying an eps0-local randomizer, outputs shuffled
 * (replace-one: one user's data replaced); the "shuffle" accountant, and
 * the pld accountant for several rounds.  The same as
 * dpa_event_shuffled_local(epsilon0, 0, n, DPA_LOCAL_ANY). */
dpa_event *dpa_event_shuffled(double epsilon0, uint64_t n, dpa_error *err);
/* The class of the local randomizer, which decides how many other users
 * can hide the differing one (see accountants/shuffle/shuffle_clones.c):
 * DPA_LOCAL_ANY: any (eps0, delta0)-DP randomizer (Feldman, McMillan &
 *   Talwar 2021, FOCS; delta0 > 0 by their Thm 3.8, which adds
 *   (e^eps + 1)(1 + e^-eps0 / 2) n delta0 to delta);
 * DPA_LOCAL_RR_CLASS: randomizers with R(x)(y) >= (R(x')(y) + R(x'')(y)) /
 *   (e^eps0 + 1) for all inputs x, x', x'' and outputs y, e.g. k-ary
 *   randomized response (the "stronger clones" of Feldman, McMillan &
 *   Talwar 2023, whose erratum restricts it to such randomizers); pure
 *   (delta0 = 0) only.  The caller declares the class. */
typedef enum { DPA_LOCAL_ANY = 0, DPA_LOCAL_RR_CLASS = 1 } dpa_local_class;
dpa_event *dpa_event_shuffled_local(double epsilon0, double delta0, uint64_t n, dpa_local_class randomizer,
                                    dpa_error *err);
/* A Gaussian local randomizer per record, outputs shuffled (DP-GLMtron's
 * step: each of n records passes through one Gaussian step with noise
 * multiplier f, i.e. (eps0, delta0(eps0)) the profile of mu = 1/f): the
 * clones bound for (eps0, delta0)-local randomizers at the split eps0 that
 * minimises eps (searched; every split is valid), and the plain bound
 * without amplification (mu = 1/f GDP); `epsilon` is the smaller and
 * `amplified` says which.  Replace-one. */
typedef struct dpa_shuffled_gaussian {
    double epsilon;          /* min(shuffled_epsilon, plain_epsilon): certified */
    int amplified;           /* 1 when shuffling gave it */
    double plain_epsilon;    /* mu = 1/f Gaussian DP at delta */
    double shuffled_epsilon; /* the clones bound at the best split; +inf when no split reaches delta */
    double epsilon0, delta0; /* that split (NaN when none) */
} dpa_shuffled_gaussian;
int dpa_shuffled_gaussian_epsilon(double noise_multiplier, uint64_t n, double delta, dpa_shuffled_gaussian *out,
                                  dpa_error *err);
/* The closed form of Feldman, McMillan & Talwar 2021 (Thm 3.1) for that
 * event: the eps at delta, DPA_EINVAL outside its validity condition
 * eps0 <= log(n / (16 log(4/delta))), which the error message states. */
int dpa_shuffle_closed_form(double epsilon0, uint64_t n, double delta, double *epsilon, dpa_error *err);

/* Wrappers (own `inner`, also on failure). */
dpa_event *dpa_event_poisson_sampled(double q, dpa_event *inner, dpa_error *err);
dpa_event *dpa_event_sampled_without_replacement(uint64_t n, uint64_t m,
                                                 dpa_event *inner, dpa_error *err);
dpa_event *dpa_event_sampled_with_replacement(uint64_t n, uint64_t m,
                                              dpa_event *inner, dpa_error *err);
/* One epoch of shuffled fixed-size batches: the n records are shuffled
 * afresh and cut into floor(n/m) batches of exactly m (the n mod m left
 * over sit the epoch out), one step per batch, each step `inner` (Gaussian
 * noise: a gaussian event, or anything with one inverse variance).  Every
 * record is in one step, so the epoch is accounted as `inner` once: a bound
 * that holds whatever the order, which the shuffled mechanism need not
 * attain (lower bounds flagged DPA_PAIR_LOWER); the "batches" accountant
 * puts the lower bound of Chua et al. (ICML 2024, NeurIPS 2024) beside it.
 * E epochs: self_composed(count = E, ...).  1 <= m <= n. */
dpa_event *dpa_event_shuffled_batches(uint64_t n, uint64_t m, dpa_event *inner, dpa_error *err);
/* Truncated Poisson sampling (Poisson sampling with a maximum batch size,
 * as in dp_accounting's TruncatedSubsampledGaussianDpEvent, 2025; arXiv
 * 2508.15089): each of the n records is sampled independently with
 * probability q, and when more than max_batch are sampled a uniformly
 * random max_batch of them are kept.  Add/remove neighbours; n counts the
 * records of the larger dataset.  0 < q <= 1, 1 <= max_batch <= n
 * (max_batch = n: never truncated, which is Poisson sampling); DPA_EINVAL
 * naming the argument otherwise.  Accounted by pld and rdp, for Gaussian
 * noise only (docs/api.md, "Truncated Poisson sampling"). */
dpa_event *dpa_event_truncated_poisson(double q, uint64_t n, uint64_t max_batch, dpa_event *inner,
                                       dpa_error *err);
/* count >= 1.  Counts of nested self-compositions multiply (in floating
 * point, rounded up: they may exceed 2^64); an event whose leaves would be
 * repeated more than DPA_MAX_REPETITIONS times in all is refused
 * (DPA_EINVAL), so no accountant meets an infinite count. */
#define DPA_MAX_REPETITIONS 1e300
dpa_event *dpa_event_self_composed(dpa_event *inner, uint64_t count, dpa_error *err);
/* Takes ownership of the n events (and frees them if it fails).  events
 * must not be NULL, n must be >= 1, and no event may appear twice in the
 * list (compose it with self_composed instead): DPA_EINVAL otherwise. */
dpa_event *dpa_event_composed(dpa_event *const *events, size_t n, dpa_error *err);
/* Private tuning (Papernot & Steinke, ICLR 2022): run `inner` a random number of
 * times and release the best.  distribution: DPA_REPEAT_POISSON (parameter
 * = mean), DPA_REPEAT_TRUNCATED_NEGATIVE_BINOMIAL (eta, gamma), or
 * DPA_REPEAT_GEOMETRIC (gamma, the stopping probability of each round):
 * Liu & Talwar's (STOC 2019, Thm 3.1) random stopping, 3 eps-DP for a pure
 * eps-DP inner mechanism, whatever gamma (the tuning accountant). */
enum { DPA_REPEAT_POISSON = 0, DPA_REPEAT_TRUNCATED_NEGATIVE_BINOMIAL = 1, DPA_REPEAT_GEOMETRIC = 2 };
dpa_event *dpa_event_repeated_selected(dpa_event *inner, int distribution,
                                       double param1, double param2, dpa_error *err);
/* Random allocation (Feldman & Shenfeld, "Privacy amplification by random
 * allocation", 2025, arXiv:2502.08202; the "balls-in-bins" sampling of
 * Chua et al., ICML 2025): one epoch of `steps` steps, each running
 * `inner`, in which each record is used in exactly `selected` of the
 * steps, chosen uniformly at random.  1 <= selected <= steps; E epochs
 * are dpa_event_self_composed(allocation, E).  Bounded by rdp and pld
 * (the mc accountant estimates selected = 1, flagged approximate):
 * selected = steps is the steps-fold composition of inner; other values
 * of selected with a Gaussian inner event under add/remove neighbours are
 * a certified bound (selected = 1 directly, 1 < selected < steps by the
 * reduction to `selected` rounds of one of floor(steps/selected) steps;
 * docs/api.md); the other accountants refuse it (DPA_EUNSUPPORTED). */
dpa_event *dpa_event_random_allocation(uint64_t steps, uint64_t selected, dpa_event *inner, dpa_error *err);

/* Frees e and all its children; NULL is a no-op. */
void dpa_event_free(dpa_event *e);
/* A deep copy; NULL (DPA_EINVAL) for a NULL e. */
dpa_event *dpa_event_copy(const dpa_event *e, dpa_error *err);

/* Read access, for accountants and tools.  A NULL e is not an error here:
 * it reads as DPA_EVENT_INVALID, NaN, 0 or NULL as stated. */
dpa_event_kind dpa_event_get_kind(const dpa_event *e);   /* DPA_EVENT_INVALID for NULL */
/* Numeric parameter i of a leaf or wrapper (see the table in event.c),
 * NaN if the event has no such parameter or e is NULL. */
double dpa_event_param(const dpa_event *e, unsigned i);
/* Integer parameter i (counts, sizes); 0 if none or e is NULL. */
uint64_t dpa_event_count(const dpa_event *e, unsigned i);
/* The components of a mixture_of_gaussians event: their number (0 for any
 * other event or NULL), and component i's sensitivity and probability (NaN
 * when i >= that number). */
size_t dpa_event_num_components(const dpa_event *e);
double dpa_event_component_sensitivity(const dpa_event *e, size_t i);
double dpa_event_component_probability(const dpa_event *e, size_t i);
/* 0 for a leaf or a NULL e. */
size_t dpa_event_num_children(const dpa_event *e);
/* Child i, NULL if i is out of range or e is NULL. */
const dpa_event *dpa_event_child(const dpa_event *e, size_t i);
/* The wrapper nesting depth (see DPA_MAX_EVENT_DEPTH): 0 for a leaf or NULL. */
size_t dpa_event_depth(const dpa_event *e);
/* "unknown" for a value that is not a kind. */
const char *dpa_event_kind_name(dpa_event_kind kind);
/* Write the event as text, such as "self_composed(count=14063,
 * poisson(q=0.004, gaussian(sigma=1.1)))", which dpa_event_parse reads
 * back to the same event (every number with the fewest digits that read
 * back exactly); returns the length needed.  A NULL e writes "" and returns
 * 0; buf may be NULL (nothing is written). */
size_t dpa_event_describe(const dpa_event *e, char *buf, size_t size);
/* The event written as text (the syntax dpa_event_describe prints; see
 * docs/api.md, "Events as text"): kind(name=value, ..., child, ...), with
 * "compose" accepted for "composed", words for repeated_selected's
 * distribution (poisson, geometric, truncated_negative_binomial) and
 * shuffled's randomizer (any, rr), and defaults for the optional zcdp xi,
 * shuffled delta0 and randomizer and tree_aggregation restart_every.  The
 * event is built by the constructors above, which check it.  NULL and
 * DPA_EINVAL with the position (1-based) and the problem in err on any
 * mistake; DPA_ENOMEM when out of memory. */
dpa_event *dpa_event_parse(const char *text, dpa_error *err);
/* Events as JSON (see docs/api.md, "Events as JSON"): an object with
 * "kind", each parameter by its name, a wrapper's inner event as "event"
 * and a composition's as "events"; the same names as the text.  Written
 * with jansson: a NUL-terminated string to release with free(), indented
 * by `indent` spaces (0: one line), numbers with the digits that read back
 * exactly; NULL and err on failure. */
char *dpa_event_to_json(const dpa_event *e, int indent, dpa_error *err);
/* The event of a JSON document of `length` bytes: one event, an array of
 * events (composed) or several events one after the other (a ledger:
 * composed).  NULL and DPA_EINVAL naming the line and column (a syntax
 * error) or the path of the object ("$.events[1].event") on any mistake. */
dpa_event *dpa_event_from_json(const char *json, size_t length, dpa_error *err);
/* The event of a JSON file (as dpa_event_from_json; at most 1 GB);
 * DPA_EIO when it cannot be read. */
dpa_event *dpa_event_load_json(const char *path, dpa_error *err);
/* Append e to the ledger file `path` as one line of JSON (creating the
 * file): a run appends one event per phase, and dpa_event_load_json of the
 * ledger is their composition.  DPA_EIO when the file cannot be written. */
int dpa_event_ledger_append(const char *path, const dpa_event *e, dpa_error *err);

/* ---- options ----------------------------------------------------------- */
typedef enum dpa_relation {
    DPA_ADD_REMOVE = 0, /* default, as in Opacus and dp_accounting */
    DPA_REPLACE_ONE = 1 /* substitution of one record */
} dpa_relation;

typedef struct dpa_options {
    dpa_relation relation;
    /* Accountant-specific knobs; 0 / NULL means "the accountant's default". */
    double tolerance;     /* relative accuracy target for eps queries */
    const double *orders; /* rdp: Renyi orders, finite and > 1, copied at creation,
                           * used alone; NULL: a default grid of 94 and a search
                           * over the real orders around its best (docs/api.md) */
    size_t num_orders;    /* at most DPA_MAX_ORDERS */
    /* What a query that cannot reach `tolerance` within the accountant's
     * limits returns.  0 (the default): DPA_OK with the best certified
     * bracket it found, flagged DPA_WIDTH_NOT_MET -- it always answers.
     * Nonzero: DPA_EACCURACY, the same bracket still filled in `out` and
     * the width reached in the message.  Either way `upper` is valid. */
    int require_width;
} dpa_options;

/* The most orders an rdp grid may have, checked by dpa_accountant_new
 * (DPA_EINVAL naming `orders`).  The rdp accountant evaluates every order
 * for every event composed: with 10000 orders a Poisson-sampled Gaussian
 * (sigma 1) takes about 2 s per compose (4.5 s on the integers 2..10001)
 * where the default grid of 94 takes milliseconds, and 1e6 orders took
 * minutes.  Any finite order > 1 is valid: the subsampled sums are exact up
 * to order 65536 and bounded by the unsampled Gaussian's alpha/(2 sigma^2)
 * above (accountants/rdp/rdp_curves.c), so a large order costs no more. */
#define DPA_MAX_ORDERS 10000

/* Fill `opt` with the defaults; NULL is a no-op. */
void dpa_options_init(dpa_options *opt);

/* ---- accountants ------------------------------------------------------- */
typedef struct dpa_accountant dpa_accountant;

/* Names of the registered accountants, NULL-terminated (static storage). */
const char *const *dpa_accountant_names(void);
/* One-line description of an accountant, NULL if the name is unknown or NULL. */
const char *dpa_accountant_summary(const char *method);

/* opt may be NULL for the defaults.  A NULL method is DPA_EINVAL, an
 * unknown one DPA_ENOTFOUND. */
dpa_accountant *dpa_accountant_new(const char *method, const dpa_options *opt,
                                   dpa_error *err);
/* The method's name (static storage); NULL for a NULL a. */
const char *dpa_accountant_name(const dpa_accountant *a);
/* DPA_OK if the accountant can compose `e`; otherwise DPA_EUNSUPPORTED (or
 * DPA_EINVAL) with the reason in err.  Does not change the accountant. */
int dpa_accountant_supports(const dpa_accountant *a, const dpa_event *e, dpa_error *err);
/* Compose `e` into the accountant's state.  On failure the state is unchanged. */
int dpa_accountant_compose(dpa_accountant *a, const dpa_event *e, dpa_error *err);
/* Smallest epsilon for which the composed mechanism is (eps, delta)-DP, delta in (0, 1).
 * Both queries always fill `out` with a valid bracket when they return DPA_OK
 * or DPA_EACCURACY; one wider than the tolerance asked is flagged
 * DPA_WIDTH_NOT_MET (see dpa_options.require_width). */
int dpa_accountant_epsilon(dpa_accountant *a, double delta, dpa_bound *out, dpa_error *err);
/* Smallest delta for which the composed mechanism is (eps, delta)-DP, eps >= 0. */
int dpa_accountant_delta(dpa_accountant *a, double epsilon, dpa_bound *out, dpa_error *err);
/* The trade-off curve (Dong, Roth & Su, JRSS-B 2022): the best test of
 * "the record was used" against "it was not", at false-positive rate `fpr`
 * in (0, 1], has a true-positive rate in [out->lower, out->upper]
 * (lib/tradeoff.c): the least over eps of e^eps fpr + delta(eps), delta of
 * the pair with the record against without it, and 1 - e^-eps (1 - fpr -
 * delta'(eps)), delta' of the reverse pair.  pld keeps both directions'
 * pairs (and the Gaussian is one pair): the exact curve is bracketed.  An
 * accountant that keeps only the larger delta of the two (rdp, zcdp, ...)
 * gives an upper bound that still holds and a lower bound of the curve
 * symmetrised over the two directions, flagged DPA_SYMMETRISED.  At least
 * fpr.  DPA_PAIR_LOWER, DPA_APPROXIMATE when the profile's bounds are so;
 * DPA_WIDTH_NOT_MET when the bracket is wider than 1e-9 after 600 delta
 * queries (it is valid all the same); DPA_APPROXIMATE when the profile is
 * an approximation. */
int dpa_accountant_tradeoff(dpa_accountant *a, double fpr, dpa_bound *out, dpa_error *err);
/* Group privacy: epsilon at `delta` for neighbours that differ in k
 * records (a user contributing up to k examples), from the record-level
 * guarantee by Vadhan ("The Complexity of Differential Privacy", 2017,
 * Lemma 2.2): (eps, d)-DP gives (k eps, k e^((k-1) eps) d) for groups of k.
 * The record-level d is searched (down from delta / k by factors of e, then
 * by bisection in log d) for the smallest k eps(d) with k e^((k-1) eps(d)) d
 * <= delta e^-1e-7 (the slack keeps the pair valid when it is printed
 * rounded up to 10 digits), eps(d) the accountant's certified upper bound;
 * at most 221
 * epsilon queries.  out: upper = k eps(d) rounded up, DPA_NO_LOWER (and
 * the record-level bound's DPA_APPROXIMATE); +inf with DPA_UNBOUNDED when
 * no d in the search gives a finite one.  example_epsilon and
 * example_delta (may be NULL) receive the record-level (eps, d) used (NaN
 * when none).  k = 1 is dpa_accountant_epsilon; k = 0 is DPA_EINVAL. */
int dpa_accountant_group_epsilon(dpa_accountant *a, uint64_t k, double delta, dpa_bound *out,
                                 double *example_epsilon, double *example_delta, dpa_error *err);
/* A scalar summary of the native state: sigma_eff (gaussian), mu (gdp),
 * rho (zcdp).  `what` receives its name (static storage) when not NULL. */
int dpa_accountant_state(const dpa_accountant *a, double *value, const char **what,
                         dpa_error *err);
/* The RDP curve of an accountant that keeps one (rdp): copies up to `cap`
 * orders and eps(order) values (ascending orders; eps may be +inf) and sets
 * *n to the curve's length.  DPA_EUNSUPPORTED for other accountants.  The
 * arrays may be NULL when cap is 0 (to ask for the length). */
int dpa_accountant_rdp_curve(const dpa_accountant *a, double *orders, double *eps, size_t cap,
                             size_t *n, dpa_error *err);
/* The composed privacy loss distribution behind the last query of a pld
 * accountant, for inspection: `world` 0 is the remove world (the record in
 * the first dataset), 1 the add world; `upper` selects the upper (1) or the
 * lower (0) grid.  P-mass at loss (first + i) h is
 *   mass[i] e^{log_scale - theta (first + i) h}
 * (the masses are stored exponentially tilted), inf_mass the P-mass at +inf
 * and pad a bound on the l1 rounding error of `mass`, whose effect on
 * delta(eps) is at most e^{log_scale - theta eps} pad; pad2 bounds its l2
 * norm, whose effect is at most e^{log_scale - theta eps} pad2 W with
 * W^2 = 1 / (2 h theta (2 theta + 1)(theta + 1)) + 1/(1 + theta)^2 for
 * theta > 0 (docs/pld-design.md, "The l2 pad").  The view borrows
 * the accountant's memory and is valid until its next compose or query.
 * DPA_EUNSUPPORTED for other accountants, DPA_EINVAL before any query. */
typedef struct dpa_pld_view {
    double h;
    int64_t first;
    size_t n;
    const double *mass;
    double theta, log_scale;
    double inf_mass;
    double pad;
    double pad2;
} dpa_pld_view;
int dpa_accountant_pld(const dpa_accountant *a, int world, int upper, dpa_pld_view *out,
                       dpa_error *err);
/* NULL is a no-op. */
void dpa_accountant_free(dpa_accountant *a);

/* ---- closed forms ------------------------------------------------------ */
/* delta(eps) of mu-GDP, equivalently of the Gaussian mechanism with noise
 * multiplier 1/mu (Dong, Roth & Su 2022, Cor. 2.13; Balle & Wang 2018, Thm 8). */
int dpa_gdp_delta(double mu, double epsilon, dpa_bound *out, dpa_error *err);
int dpa_gdp_epsilon(double mu, double delta, dpa_bound *out, dpa_error *err);
/* The mu for which mu-GDP is exactly (eps, delta)-DP; `out` brackets it. */
int dpa_gdp_mu(double epsilon, double delta, dpa_bound *out, dpa_error *err);
/* Analytic Gaussian calibration (Balle & Wang 2018): the smallest noise
 * multiplier with delta(eps) <= delta; out->upper is the safe value. */
int dpa_gaussian_sigma(double epsilon, double delta, dpa_bound *out, dpa_error *err);

/* Truncated Laplace's bound (Geng et al. 2020): A = (sensitivity/epsilon)
 * ln(1 + (e^epsilon - 1)/(2 delta)), rounded up; the noise with density
 * proportional to e^(-epsilon |z| / sensitivity) on [-A, A] makes a query of
 * that sensitivity (epsilon, delta)-DP.  delta in (0, 1/2]. */
int dpa_truncated_laplace_bound(double sensitivity, double epsilon, double delta, double *bound, dpa_error *err);

/* The Gaussian Sampling Mechanism's exact RDP at order alpha > 1 for one
 * pair: k sum_j c_alpha(mu_j) over the n eigenvalues mu_j > 0 of
 * Sigma^-1/2 Sigma' Sigma^-1/2 (D_alpha(N(0, Sigma)^k || N(0, Sigma')^k)),
 * rounded up; +inf when some alpha mu_j + 1 - alpha <= 0. */
int dpa_gsm_rdp(double alpha, uint64_t k, const double *mu, size_t n, double *rdp, dpa_error *err);
/* The largest k whose GSM event (frobenius when n == 0, else spectral over
 * n x n matrices) is (epsilon, delta)-DP under the rdp accountant (opt may
 * be NULL); *k = 0 when even one sample is not.  k is searched up to 2^53. */
int dpa_gsm_max_samples(double M_or_eta, uint64_t n, double epsilon, double delta, const dpa_options *opt,
                        uint64_t *k, dpa_error *err);

/* ---- failure events ---------------------------------------------------- */
/* An additive delta for an event outside the mechanisms (random features
 * that fail to concentrate, a random matrix without the restricted isometry
 * the sensitivity assumed): each adds `delta` to every delta the accountant
 * reports, and eps(delta) is answered at delta minus their sum (DPA_EINVAL
 * when that leaves nothing).  `what` (copied, at most 63 bytes kept) names
 * it in reports.  Up to DPA_MAX_FAILURES per accountant. */
#define DPA_MAX_FAILURES 16
int dpa_accountant_add_failure(dpa_accountant *a, double delta, const char *what, dpa_error *err);
/* The number of failure terms (0 for a NULL a), and term i's delta and
 * name (DPA_EINVAL for a NULL a or i out of range; either output may be NULL). */
size_t dpa_accountant_num_failures(const dpa_accountant *a);
int dpa_accountant_failure(const dpa_accountant *a, size_t i, double *delta, const char **what);

/* ---- privacy filters (fully adaptive composition) ---------------------- */
/* Before each step, "may I run a step of this cost?", the cost chosen after
 * seeing everything released so far; an admitted step is charged, and the
 * caller stops (at a random time) when a step is refused.  lib/filter.c.
 * DPA_FILTER_BASIC  sum eps_t <= eps, sum delta_t <= delta: (eps, delta)-DP
 *                   (Rogers, Roth, Ullman & Vadhan 2016);
 * DPA_FILTER_ZCDP   sum rho_t <= rho: rho-zCDP, each step rho_t-zCDP (and so
 *                   RDP at every order; Feldman & Zrnic 2021);
 * DPA_FILTER_GDP    sum mu_t^2 <= mu^2: mu-GDP (Smith & Thakurta 2022).
 * The sums are rounded upward: the admitted costs never exceed the budget. */
typedef enum { DPA_FILTER_BASIC = 0, DPA_FILTER_ZCDP = 1, DPA_FILTER_GDP = 2 } dpa_filter_kind;
typedef struct dpa_filter dpa_filter;

/* budget: eps (basic), rho (zcdp) or mu (gdp), > 0; budget_delta: the basic
 * filter's delta in [0, 1), 0 for the others. */
dpa_filter *dpa_filter_new(dpa_filter_kind kind, double budget, double budget_delta, dpa_error *err);
/* NULL is a no-op. */
void dpa_filter_free(dpa_filter *f);
/* *admitted = 1 (and the step charged) when it fits, else 0; cost is eps_t,
 * rho_t or mu_t (>= 0), cost_delta the basic filter's delta_t (0 otherwise).
 * DPA_EINVAL for a bad cost (nothing charged). */
int dpa_filter_try(dpa_filter *f, double cost, double cost_delta, int *admitted, dpa_error *err);
/* Spent so far, rounded up: sum eps_t / sum rho_t / sqrt(sum mu_t^2), the
 * basic filter's sum delta_t, and the steps admitted (any may be NULL);
 * DPA_EINVAL for a NULL f. */
int dpa_filter_spent(const dpa_filter *f, double *spent, double *spent_delta, uint64_t *admitted);
/* The guarantee of the whole run as eps at delta: the basic budget (delta at
 * least its delta budget), the zCDP conversion of rho, or the GDP profile. */
int dpa_filter_epsilon(const dpa_filter *f, double delta, dpa_bound *out, dpa_error *err);

/* ---- calibration ------------------------------------------------------- */
/* Builds the event for parameter value `param` (noise multiplier, steps,
 * sampling rate); returns NULL with err set on failure. */
typedef dpa_event *(*dpa_event_family)(double param, void *ctx, dpa_error *err);

typedef enum dpa_search {
    DPA_SEARCH_SMALLEST = 0, /* epsilon decreases in param (noise): smallest that meets target */
    DPA_SEARCH_LARGEST = 1   /* epsilon increases in param (steps, rate): largest that meets */
} dpa_search;

typedef struct dpa_calibration {
    /* inputs */
    dpa_search direction;
    int integer;          /* search integers only (steps) */
    double lo, hi;        /* initial interval, used when there is no guess */
    double rel_tol;       /* relative width of the final bracket; 0 = 1e-9 */
    double limit_lo, limit_hi; /* the range searched: never left */
    double guess;         /* > 0: a value near the answer to start from, instead
                           * of the guide (0: none) */
    const char *guide;    /* a cheap accountant (e.g. "rdp") calibrated first for
                           * the starting point and slope; ignored when it
                           * fails or is the method itself (NULL: none) */
    const char *name;     /* the parameter's name in messages (NULL: "value") */
    unsigned max_evaluations; /* runs of the method allowed (the guide has as
                               * many of its own); 0 = 200 */
    /* outputs */
    double value;         /* meets the target: eps_upper(value) <= target */
    double fails;         /* the nearest value searched that does not meet it */
    double epsilon_at_value;
    double epsilon_at_fails;
    unsigned evaluations; /* accountant runs of the method */
    unsigned guide_evaluations; /* accountant runs of the guide */
} dpa_calibration;

/* Fill a calibration spec with defaults for the direction; NULL is a no-op.
 * (dpa_calibrate_search refuses a direction that is neither value.) */
void dpa_calibration_init(dpa_calibration *c, dpa_search direction);

/* General search: on success c->value meets the target (certified upper
 * epsilon <= target_epsilon at delta) and c->fails, within rel_tol (or 1
 * for integers) of it, does not; c->fails is NaN when the whole range
 * [limit_lo, limit_hi] meets the target (c->value is then its edge).
 * Epsilon must be monotone in the parameter.  The search starts from the
 * guide's answer, c->guess or [lo, hi]; when the start does not meet the
 * target it evaluates the far end of the range (limit_hi for
 * DPA_SEARCH_SMALLEST, limit_lo for DPA_SEARCH_LARGEST) next, and when that
 * fails too it returns DPA_ENOBRACKET at once, c->fails and
 * c->epsilon_at_fails that end and its epsilon (value NaN).  (When the end's
 * bound is not exact (the accountant's DPA_EACCURACY) or exceeds the
 * start's, the end says little, and the search walks towards it by factors
 * of 8 instead.)  Between a meeting and a failing value it interpolates
 * log epsilon in log param (secant, falling back to bisection).
 * DPA_EACCURACY when max_evaluations runs out before the bracket is
 * rel_tol wide; c->value and c->fails are then the best bracket found
 * (value NaN when nothing met the target). */
int dpa_calibrate_search(const char *method, const dpa_options *opt, dpa_event_family f,
                         void *ctx, double target_epsilon, double delta,
                         dpa_calibration *c, dpa_error *err);

/* The smallest noise multiplier in [lo, hi] (widened when needed) for which
 * the method's certified upper epsilon <= target at delta. */
int dpa_calibrate(const char *method, const dpa_options *opt, dpa_event_family f, void *ctx,
                  double target_epsilon, double delta, double lo, double hi,
                  double *param_out, dpa_error *err);

/* ---- event templates: one parameter left open, for calibration ---------- */
/* An event written as text or JSON with one parameter's value left open:
 * "?" in its place ("self_composed(count=100, laplace(scale=?))", or the
 * JSON string "?").  dpa_event_template_family builds the event with a
 * value there, so that dpa_calibrate_search can search for it. */
typedef struct dpa_event_template dpa_event_template;

/* Which parameter is open, and how calibration searches it. */
typedef struct dpa_event_hole {
    dpa_event_kind kind; /* the event whose parameter it is */
    const char *name;    /* the parameter's name as written (static storage) */
    int is_count;        /* a whole number (count, size) */
    dpa_search direction; /* DPA_SEARCH_SMALLEST: epsilon falls as it grows
                           * (a noise scale); DPA_SEARCH_LARGEST: it rises
                           * (a count, a sampling rate, a privacy parameter) */
    double limit_lo, limit_hi; /* the range searched by default, inside the
                                * values the event accepts */
    double start;        /* a value in that range (the template was checked with it) */
} dpa_event_hole;

/* Read a template: text as dpa_event_parse reads it, or JSON (as
 * dpa_event_from_json) when its first character other than white space is
 * '{' or '['; `length` bytes (text stops at a NUL).  The hole must be a
 * parameter in which epsilon is known to be monotone: a noise scale (sigma
 * or scale of gaussian, laplace, their discrete forms, tree_aggregation
 * and noisy_cgd), a count (self_composed's count, tree_aggregation's steps,
 * noisy_cgd's epochs, a batch size m, a discrete sensitivity), a sampling
 * rate q, or a privacy parameter (eps, eps0, mu, rho, repeated_selected's
 * poisson mean).  DPA_EINVAL naming the position when there is no "?", more
 * than one, or one elsewhere, and for any mistake the event has with the
 * hole's start value in it. */
dpa_event_template *dpa_event_template_new(const char *text, size_t length, dpa_error *err);
/* The template in a file (JSON or text; at most 1 GB); DPA_EIO when it
 * cannot be read. */
dpa_event_template *dpa_event_template_load(const char *path, dpa_error *err);
/* NULL is a no-op. */
void dpa_event_template_free(dpa_event_template *t);
/* The open parameter; DPA_EINVAL for a NULL t or hole. */
int dpa_event_template_hole(const dpa_event_template *t, dpa_event_hole *hole, dpa_error *err);
/* The event with `value` in the hole (a dpa_event_family: ctx is the
 * template); NULL and err when the event refuses the value (a count must be
 * whole, q in (0, 1], ...). */
dpa_event *dpa_event_template_family(double value, void *template_, dpa_error *err);
/* Fill c for searching the hole: dpa_calibration_init with the hole's
 * direction, is_count as integer, its range as limits and its name; the
 * caller may then narrow the range or set a tolerance.  DPA_EINVAL for a
 * NULL t or c. */
int dpa_event_template_calibration(const dpa_event_template *t, dpa_calibration *c, dpa_error *err);

/* The largest number of steps (family called with the count as a double)
 * for which the certified upper epsilon <= target at delta. */
int dpa_calibrate_steps(const char *method, const dpa_options *opt, dpa_event_family f,
                        void *ctx, double target_epsilon, double delta,
                        uint64_t *steps_out, dpa_error *err);

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif /* DPACCT_H */
