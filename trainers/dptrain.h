/*
 * dptrain.h - libdptrain: data, models and DP training algorithms, clients
 * of libdpacct through its public header only.  Public names dpt_; status
 * codes and errors are libdpacct's (DPA_OK, DPA_EINVAL, ..., dpa_error).
 * Nothing here prints or exits.
 */
#ifndef DPTRAIN_H
#define DPTRAIN_H

#include <dpacct.h>

#include <stddef.h>
#include <stdint.h>

/* As in dpacct.h: the library is compiled with -fvisibility=hidden, and the
 * names declared from here on are the only ones libdptrain.so exports
 * (tests/cli/test-abi.sh).  After the #includes, which keep their own. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- messages ---------------------------------------------------------------- */

/* dpa_escape of libdpacct (dpacct.h), under this library's prefix: `text`
 * made fit to be echoed in a one-line message; DPT_ESCAPE_TAIL is
 * DPA_ESCAPE_TAIL. */
enum { DPT_ESCAPE_TAIL = DPA_ESCAPE_TAIL };
const char *dpt_escape(const char *text, unsigned flags, char *buf, size_t size);

/* ---- randomness ------------------------------------------------------------
 *
 * Every draw that protects privacy (the noise, Poisson batch selection, the
 * secret shuffles, the threshold mechanisms' noise) comes from a dpt_rng
 * that the caller passes in: ChaCha20 (libsodium's crypto_stream_chacha20),
 * keyed either
 *   - from the operating system (dpt_rng_new_secure: libsodium's
 *     randombytes_buf, i.e. getrandom(2)): the private default; or
 *   - from a seed (dpt_rng_new_seeded: the key is BLAKE2b-256 of the seed):
 *     every draw is reproducible, and the run is NOT private (anyone who
 *     knows the seed can regenerate the noise); the trainers then say so in
 *     their accounting line ("not private: reproducible noise (--seed)").
 * A dpt_rng is used by one thread at a time.  Randomness that protects no
 * one (the test split, w0, the convex model's gates, the NTK's neurons, a
 * public projection) stays a seeded gsl_rng. */
typedef struct dpt_rng dpt_rng;

int dpt_rng_new_secure(dpt_rng **out, dpa_error *err);
int dpt_rng_new_seeded(uint64_t seed, dpt_rng **out, dpa_error *err);
void dpt_rng_free(dpt_rng *r);
/* 1 when the generator was seeded (reproducible: not private), 0 when
 * keyed from the operating system. */
int dpt_rng_is_seeded(const dpt_rng *r);
/* The words every accounting line appends for a seeded generator ("" for a
 * secure one). */
const char *dpt_rng_privacy_note(const dpt_rng *r);

uint64_t dpt_rng_u64(dpt_rng *r);                 /* 64 uniform bits */
double dpt_rng_uniform(dpt_rng *r);               /* uniform on [0, 1), multiples of 2^-53 */
uint64_t dpt_rng_below(dpt_rng *r, uint64_t n);   /* uniform on {0, ..., n - 1} (n >= 1), no bias */
/* 1 with probability exactly q (q a double in [0, 1]: the uniform's bits
 * are compared with q's binary expansion until they differ). */
int dpt_rng_bernoulli(dpt_rng *r, double q);
/* A uniformly random permutation of a[0..n-1] (Fisher-Yates with
 * dpt_rng_below). */
void dpt_rng_shuffle(dpt_rng *r, size_t *a, size_t n);
/* An index k in {0, ..., K - 1} with P[k] = 2^-k / (2 - 2^(1 - K)) (the
 * truncated geometric of the bias-reduced sparse DP-SGD); K >= 1. */
unsigned dpt_rng_truncated_geometric(dpt_rng *r, unsigned K);
/* A view of r as a gsl_rng (for continuous draws whose mechanism is not
 * additive noise: the GSM's Wishart), valid until dpt_rng_free(r); NULL
 * with err set when it cannot be allocated.  A gsl_rng * (void * here so
 * that this header needs no GSL header); free with gsl_rng_free. */
void *dpt_rng_gsl(dpt_rng *r, dpa_error *err);

/* ---- batch samplers (trainers/sampling.c) -------------------------------------
 *
 * How a DP-SGD run draws its batches of expected (or exact) size b out of n
 * records, and the libdpacct event its privacy is accounted by; every draw
 * from the run's dpt_rng.
 *   DPT_SAMPLING_POISSON        each record with probability b/n, T = ceil(E n/b)
 *                               steps: poisson(b/n, gaussian), T times;
 *   DPT_SAMPLING_SHUFFLE        each epoch a fresh permutation cut into floor(n/b)
 *                               batches of exactly b (the rest sit the epoch out):
 *                               shuffled_batches(n, b, gaussian), E times;
 *   DPT_SAMPLING_BALLS_IN_BINS  each epoch every record in one of ceil(n/b)
 *                               batches, uniformly and independently:
 *                               random_allocation(ceil(n/b), 1, gaussian), E times;
 *   DPT_SAMPLING_TRUNCATED      Poisson, a batch above B cut to a uniformly
 *                               random B of its records:
 *                               truncated_poisson(b/n, n, B, gaussian), T times;
 *   DPT_SAMPLING_ALLOCATION     each epoch every record in K of the t = ceil(K n/b)
 *                               batches, a uniformly random K-subset, independently
 *                               (Feldman & Shenfeld 2025; expected batch K n/t):
 *                               random_allocation(t, K, gaussian), E times
 *                               (balls-in-bins is K = 1).
 * `param` below is the sampling's parameter: B, the largest batch, for
 * truncated sampling (1 <= B <= n); K, the batches each record is used in
 * an epoch, for allocation (K >= 1, K n <= 2^53; K <= t always holds, K = t
 * when b = n); 0 for the others.  (Its former name, max_batch, was
 * truncated's; the values and the ABI are unchanged.) */
typedef enum {
    DPT_SAMPLING_POISSON = 0,
    DPT_SAMPLING_SHUFFLE = 1,
    DPT_SAMPLING_BALLS_IN_BINS = 2,
    DPT_SAMPLING_TRUNCATED = 3,
    DPT_SAMPLING_ALLOCATION = 4
} dpt_sampling;

/* "poisson", "shuffle", "balls-in-bins", "truncated", "allocation"; NULL for
 * another value. */
const char *dpt_sampling_name(dpt_sampling kind);
/* DPA_EINVAL naming what is wrong: b in [1, n]; param as above. */
int dpt_sampling_check(dpt_sampling kind, size_t n, size_t b, size_t param, dpa_error *err);
/* The steps of E epochs (at most 2^53, and 2^53 records' worth). */
int dpt_sampling_steps_param(dpt_sampling kind, size_t n, size_t b, size_t param, uint64_t epochs, uint64_t *steps,
                             dpa_error *err);
/* The same without the parameter (truncated's does not change the steps):
 * DPA_EINVAL for allocation, whose steps depend on K. */
int dpt_sampling_steps(dpt_sampling kind, size_t n, size_t b, uint64_t epochs, uint64_t *steps, dpa_error *err);
/* The event of E epochs with Gaussian noise of that multiplier (noise std
 * over the sensitivity under the accountant's relation); NULL and err set
 * on failure. */
dpa_event *dpt_sampling_event(dpt_sampling kind, size_t n, size_t b, size_t param, uint64_t epochs,
                              double multiplier, dpa_error *err);
/* The accountant a trainer uses for it by default: "batches" for shuffle
 * (the bracket of accountants/batches.c), else "pld" (for balls-in-bins
 * and allocation Feldman & Shenfeld's decomposition, narrowed by rdp's
 * bound). */
const char *dpt_sampling_accountant(dpt_sampling kind);

typedef struct dpt_sampler dpt_sampler;
/* A sampler drawing from rng (kept, not owned).  Free with dpt_sampler_free. */
int dpt_sampler_new(dpt_sampling kind, size_t n, size_t b, size_t param, dpt_rng *rng, dpt_sampler **out,
                    dpa_error *err);
/* The next batch: its rows (distinct, each < n) in rows[0 .. *count), rows
 * having room for n.  DPA_EINVAL for NULL arguments. */
int dpt_sampler_next(dpt_sampler *s, size_t *rows, size_t *count);
void dpt_sampler_free(dpt_sampler *s);

/* Additive noise that does not leak through floating point.  The textbook
 * samplers compute v + Z in floating point, and the set of doubles that
 * sum can reach depends on v: Mironov (CCS 2012) recovers v from the low
 * bits of a Laplace release, and the same holds for Gaussians.  These return
 * instead round_g(v + Z) for an exact draw Z of the continuous
 * distribution: the multiple of the grid step g = 2^(floor(log2 s) - 20)
 * (s = sigma or b) nearest to the real v + Z, converted to the nearest
 * double.  That is a deterministic function of the exact mechanism's output,
 * so every accountant's certificate for the continuous mechanism holds
 * unchanged (post-processing), and no quantity other than s decides the
 * grid.  The rounding is decided by inversion of a uniform U with lazily
 * drawn bits: in double with a certified margin where that suffices, and
 * otherwise with MPFR's correctly rounded erfc / exp evaluated with directed
 * rounding until U's bits separate it from the boundary.
 * Preconditions (callers check them once): v finite; s (and A) finite and in
 * [DPT_NOISE_MIN_SCALE, DPT_NOISE_MAX_SCALE]; otherwise NAN. */
#define DPT_NOISE_MIN_SCALE 1e-250
#define DPT_NOISE_MAX_SCALE 1e250
double dpt_noise_gaussian(dpt_rng *r, double v, double sigma);
double dpt_noise_laplace(dpt_rng *r, double v, double b);
/* Laplace of scale b conditioned on [-A, A] (A > 0). */
double dpt_noise_truncated_laplace(dpt_rng *r, double v, double b, double A);
/* DPA_OK, or DPA_EINVAL naming `who` when s is not a valid noise scale. */
int dpt_noise_check_scale(double s, const char *who, dpa_error *err);

/* For tests and benchmarks, not for trainers: one draw of `law` (A is used
 * by the truncated Laplace only) exactly as the samplers above make it,
 * with the path that decided it reported, and on request the double path
 * skipped (the MPFR path alone then decides, with the same result) or U's
 * first 64-bit words (most significant first) taken from `prefix` before
 * r's.  The words used, prefix first and then r's in order, determine the
 * draw: a test can recompute U's interval from them. */
enum { DPT_NOISE_GAUSSIAN = 0, DPT_NOISE_LAPLACE = 1, DPT_NOISE_TRUNCATED_LAPLACE = 2 };
typedef struct dpt_noise_probe {
    int force_slow;             /* in: 1 = decide with MPFR only */
    const uint64_t *prefix;     /* in: U's first words (NULL: all from r) */
    size_t nprefix;             /* in: how many */
    int slow;                   /* out: 1 when the MPFR path decided */
    size_t words;               /* out: the 64-bit words of U used (prefix included) */
} dpt_noise_probe;
double dpt_noise_probe_draw(dpt_rng *r, int law, double v, double s, double A, dpt_noise_probe *probe);

/* ---- data ------------------------------------------------------------------ */

/* The loaders and generators refuse (DPA_EINVAL, with the sizes and the
 * limit in the message) data whose dense feature matrix, n x d doubles,
 * would take more than a limit of bytes: 2 GiB unless raised (a max_bytes
 * of 0 means this default).  Checked before the allocation, and while a
 * file is read, so that no file, however small, makes them allocate more
 * (a 14-byte libsvm line "1 100000000:1" asks for 10^8 features). */
#define DPT_MAX_DATA_BYTES_DEFAULT (UINT64_C(2) << 30)

/* n examples of d features, row-major (x[i * d + j]), and a target each. */
typedef struct dpt_dataset {
    size_t n, d;
    double *x;
    double *y;
} dpt_dataset;

/* Zeroed x and y of the given size; DPA_ENOMEM, DPA_EINVAL (n or d zero, or
 * n * d overflowing). */
int dpt_dataset_alloc(dpt_dataset *ds, size_t n, size_t d, dpa_error *err);
/* Frees and zeroes; safe on a zeroed struct. */
void dpt_dataset_free(dpt_dataset *ds);

/* CSV with a header line; `target` names the target column (its header
 * name, or its 1-based number as a decimal string; NULL: the last column).
 * Every other column is a feature.  Errors name the file and the line:
 * "FILE:LINE: expected 9 fields, got 8", "FILE:LINE: field 3 ('abc') is not
 * a number", an empty file, an unknown target.  DPA_EINVAL for bad content,
 * DPA_EIO-like failures to open as DPA_EINVAL with the system's reason. */
int dpt_load_csv(const char *path, const char *target, dpt_dataset *out, dpa_error *err);

/* libsvm/svmlight: "label index:value ..." with 1-based increasing
 * indices; d = the largest index seen (or `d` when nonzero, and then an
 * index above it is an error).  Errors name the file and line. */
int dpt_load_libsvm(const char *path, size_t d, dpt_dataset *out, dpa_error *err);

/* An IDX image file and its IDX label file (MNIST / Fashion-MNIST), each
 * plain or gzip-compressed (read through zlib): x = pixel / 255 flattened
 * (d = rows * cols), y = the label (0..9).  Checks the magic numbers
 * (0x00000803 images, 0x00000801 labels), the dimensions, that the counts
 * agree, and that the files are not truncated. */
int dpt_load_idx(const char *images, const char *labels, dpt_dataset *out, dpa_error *err);

/* Any of the three, with a limit: the loaders above are dpt_load with
 * max_bytes 0 (DPT_MAX_DATA_BYTES_DEFAULT). */
typedef struct dpt_load_options {
    const char *format;        /* "csv" (NULL: "idx" when labels is given, else "csv"), "libsvm" or "idx" */
    const char *labels;        /* idx: the labels file */
    const char *target;        /* csv: the target column (NULL: the last) */
    size_t d;                  /* libsvm: the dimension (0: the largest index) */
    uint64_t max_bytes;        /* the limit on n x d doubles (0: DPT_MAX_DATA_BYTES_DEFAULT) */
} dpt_load_options;
int dpt_load(const char *path, const dpt_load_options *opt, dpt_dataset *out, dpa_error *err);

/* Seeded split: a uniformly random permutation (gsl_rng mt19937 seeded with
 * `seed`), the first round(test_fraction * n) examples to `test`, the rest to
 * `train`; test_fraction in [0, 1), and both parts non-empty unless the
 * fraction is 0 (then `test` is zeroed). */
int dpt_split(const dpt_dataset *all, double test_fraction, unsigned long seed, dpt_dataset *train,
              dpt_dataset *test, dpa_error *err);

/* Standardisation fitted on `train` (mean 0, standard deviation 1 per
 * feature, population std; a constant feature is only centred) and applied
 * to `test` too when it is not NULL.  The means and deviations are
 * statistics of the training data that no accountant covers: a private
 * trainer's guarantee does not extend to them (dptrain names this). */
void dpt_standardize(dpt_dataset *train, dpt_dataset *test);

/* Each row of x scaled onto the l2 ball of radius `bound` when it lies
 * outside (x min(1, bound/|x|)): a map of each record alone, with no
 * statistic of the others, so it costs no privacy and the trainers' bounds
 * on the features hold for every dataset.  Returns the rows scaled (0 for
 * a non-positive bound).  The data-independent alternative to
 * dpt_standardize. */
size_t dpt_clip_rows(dpt_dataset *ds, double bound);

/* Target scaling as in the experiments of Ding et al. (UAI 2025): divide every y by the
 * largest |y| over both sets (test may be NULL); returns that scale (1 when
 * every y is 0). */
double dpt_scale_target(dpt_dataset *train, dpt_dataset *test);

/* Synthetic ReLU regression as in the experiment of Ding et al. (NeurIPS 2024):
 * x = sqrt(lambda) (elementwise) zeta, zeta i.i.d. Rademacher or standard
 * normal, lambda_i = i^-decay (DPT_SPECTRUM_POLY) or e^-(decay i)
 * (DPT_SPECTRUM_EXP), i = 1..d, so H = E[x x^T] = diag(lambda);
 * w* uniform on the sphere of radius wstar_norm; y = ReLU(x^T w*) + noise
 * N(0, noise^2). */
typedef enum { DPT_SPECTRUM_POLY = 0, DPT_SPECTRUM_EXP = 1 } dpt_spectrum;
typedef enum { DPT_ZETA_RADEMACHER = 0, DPT_ZETA_GAUSSIAN = 1 } dpt_zeta;
typedef struct dpt_synthetic_spec {
    size_t n, d;
    dpt_spectrum spectrum;
    double decay;        /* r > 0 (poly) or rate > 0 (exp) */
    dpt_zeta zeta;
    double noise;        /* label noise standard deviation, >= 0 */
    double wstar_norm;   /* > 0 */
    unsigned long seed;
    uint64_t max_bytes;  /* the limit on n x d doubles (0: DPT_MAX_DATA_BYTES_DEFAULT; not a key of the text form) */
} dpt_synthetic_spec;
/* Defaults: n 500, d 1024, poly, decay 2, Rademacher, noise 0.1, |w*| 1, seed 1. */
void dpt_synthetic_defaults(dpt_synthetic_spec *spec);
/* "n=500,d=1024,spectrum=poly,decay=2,zeta=rademacher,noise=0.1,wstar=1,seed=1",
 * any subset in any order over the defaults; errors name the bad key or value. */
int dpt_synthetic_parse(const char *text, dpt_synthetic_spec *spec, dpa_error *err);
/* Checks a spec as dpt_synthetic does (the values, and n x d doubles
 * within the limit), so that a caller can size w* before generating. */
int dpt_synthetic_check(const dpt_synthetic_spec *spec, dpa_error *err);
/* The data and, when wstar is not NULL, w* itself (d doubles). */
int dpt_synthetic(const dpt_synthetic_spec *spec, dpt_dataset *out, double *wstar, dpa_error *err);

/* ---- the GLMtron family and DP-SGD for ReLU regression ----------------------
 *
 * Ding, Lei, Zhu, Wang, Wang & Xu, "Revisiting Differentially Private ReLU
 * Regression" (NeurIPS 2024) and Ding, Lei, Wang, Zheng, Wang & Xu, "Nearly
 * Optimal Differentially Private ReLU Regression" (UAI 2025). */

/* The algorithms:
 * DPT_GLMTRON       non-private GLMtron (Kakade et al. 2011), one step per example;
 * DPT_DP_GLMTRON    NeurIPS 2024 Alg 1 / UAI 2025 Alg 1: a secret shuffle, one noisy
 *                   clipped GLMtron step per example, noise std 2 f gamma_t;
 * DPT_DP_TAGLMTRON  NeurIPS 2024 Alg 3: GLMtron steps as DP-FTRL, the prefix sums by
 *                   tree aggregation (Alg 4 with the leaf fix), node noise f Gamma;
 * DPT_DP_MBGLMTRON  UAI 2025 Alg 3: disjoint batches of m estimating and b gradient
 *                   records, the clip from a noisy-doubling DP-Threshold (Alg 2) on
 *                   the estimating slice, noise std 2 f s_t / b on the mean;
 * DPT_MBGLMTRON     the same without noise (its non-private counterpart);
 * DPT_SGD           non-private SGD on the ReLU regression loss (with the
 *                   ReLU-derivative indicator), batches by opt->sampling;
 * DPT_DP_SGD        DP-SGD (Abadi et al. 2016): batches by opt->sampling
 *                   (default Poisson at q = b/N; dpt_sampling), per-example
 *                   clipping at C, noise sigma C on the sum, divided by b;
 * DPT_DP_FTRL       DP-FTRL (Kairouz, McMahan, Song, Thakkar, Thakurta & Xu,
 *                   ICML 2021, Alg 1 without momentum): each epoch a shuffle cut
 *                   into floor(N/b) batches of b; the leaves are the batches'
 *                   sums of per-example gradients r 1[x.w > 0] x clipped at C,
 *                   their prefix sums released by tree aggregation (one tree
 *                   per epoch, restarted from the epoch's start), node noise
 *                   N(0, (f C)^2 I); w_{t+1} = w_start - (eta / b) (noisy
 *                   prefix sum); the average of w_1 .. w_T.  Needs a random
 *                   start (init_scale > 0), as DP-SGD does. */
typedef enum {
    DPT_GLMTRON, DPT_DP_GLMTRON, DPT_DP_TAGLMTRON, DPT_DP_MBGLMTRON, DPT_MBGLMTRON, DPT_SGD, DPT_DP_SGD, DPT_DP_FTRL
} dpt_algorithm;

/* Where the clip of the GLMtron family comes from. */
typedef enum {
    DPT_CLIP_FIXED = 0,      /* gamma_t = clip, every step (no threshold) */
    DPT_CLIP_PUBLIC = 1,     /* DP-Threshold (UAI 2025 Alg 2) on public estimating data: free */
    DPT_CLIP_PRIVATE = 2,    /* DP-MBGLMtron: on each batch's private estimating slice, noisy counts */
    DPT_CLIP_HISTOGRAM = 3   /* DP-GLMtron / DP-TAGLMtron: NeurIPS 2024 Alg 2 (Laplace stability
                              * histograms) on private estimating data disjoint from the training data */
} dpt_clip_rule;

/* The DP-Threshold of Ding et al. (NeurIPS 2024, Alg 2; its printed form is
 * garbled, so this is a reconstruction, with the stability histogram's cut
 * and the replace-one sensitivity made explicit).  For each of d1 = (x.w - y)^2, d2 = y^2 and
 * d3 = (x.w)^2 over the m estimating records: the means of K groups of
 * floor(m / K) records, a histogram of them on the bins {0}, (0, lo),
 * [lo 2^k, lo 2^(k+1)) up to [lo 2^(L-1), inf) with L = ceil(log2(hi / lo))
 * (the last bin's right end is lo 2^L), normalised by K; with noise, Karwa
 * and Vadhan's stability histogram: Lap(2 / (eps1 K)) on each non-empty bin
 * and values below 2 ln(1/delta1) / (eps1 K) + 1/K set to 0, which is
 * (eps1, delta1)-DP under replace-one; the right end r_p of the largest bin
 * (the top bin's when none survives); s = max_p sqrt(2 (r_p + [p = 3]
 * noise_floor)) (Alg 2 line 9). */
typedef struct dpt_histogram_params {
    double epsilon1, delta1;     /* per histogram: eps1 > 0, delta1 in (0, 1) */
    size_t groups;               /* K >= 1, at most m */
    double lo, hi;               /* bin scale: 0 < lo < hi */
    double noise_floor;          /* sigma^2 log^{2a}(1/b) >= 0 (0 without label noise) */
} dpt_histogram_params;

/* The threshold s for model w (length est->d) on the estimating data:
 * with Laplace noise drawn from rng when it is not NULL, the plain
 * plurality bins otherwise.  DPA_EINVAL naming a bad parameter. */
int dpt_histogram_threshold(const dpt_dataset *est, const double *w, const dpt_histogram_params *p, dpt_rng *rng,
                            double *s, dpa_error *err);

typedef struct dpt_glm_options {
    dpt_algorithm algorithm;
    double learning_rate;        /* eta > 0 (default 1e-2) */
    uint64_t epochs;             /* passes over the data (default 1) */
    size_t batch_size;           /* MB, DP-FTRL: gradient records b per batch; DP-SGD: expected batch (default 32) */
    size_t estimate_size;        /* MB: estimating records m per batch (0: max(1, b/10) with the private
                                  * threshold, none otherwise) */
    /* privacy: a target (epsilon, delta) to calibrate f, or f itself */
    double epsilon, delta;       /* target; delta in (0, 1) */
    double noise_multiplier;     /* > 0: use this f and report the eps it costs */
    int noise_off;               /* 1: no noise at all (tests; the run is not private) */
    int shuffle_amplification;   /* DP-GLMtron, one epoch: count the secret shuffle (default 1) */
    const char *accountant;      /* for DP-SGD (default: dpt_sampling_accountant); the GLMtron family is
                                  * Gaussian: "gaussian" */
    dpt_sampling sampling;       /* SGD and DP-SGD's batches (default Poisson); the others: Poisson (unused) */
    union {                      /* the sampling's parameter (dpt_sampling), one field: */
        size_t max_batch;        /* DPT_SAMPLING_TRUNCATED: the largest batch */
        size_t selected;         /* DPT_SAMPLING_ALLOCATION: K, the batches each record is in an epoch */
    };                           /* 0 otherwise */
    /* the clip (GLMtron family): gamma_t = x_norm * s_t, x_norm = sqrt(2 alpha tr H) C2 log^{2a} N
     * (NeurIPS 2024 Alg 1 line 5), s_t from the rule */
    dpt_clip_rule clip_rule;
    double clip;                 /* DPT_CLIP_FIXED: gamma; DP-SGD, DP-FTRL: C (default 1) */
    double alpha, trace_h, c2, a;   /* defaults: alpha 1, tr H = d, C2 1, a 0 */
    double upsilon, grid_delta;  /* DP-Threshold's domain Upsilon and granularity Delta (defaults 10, 1e-3) */
    const dpt_dataset *public_data; /* DPT_CLIP_PUBLIC: the estimating data */
    /* DPT_CLIP_HISTOGRAM: the private estimating records (disjoint from the
     * training data: a record is in one part, so it pays the larger of the
     * two parts' costs), the per-histogram eps1 (0: the largest for which
     * the 3 N E histograms composed meet the target eps at delta, with
     * delta1 = delta / (6 N E)), K = ceil(c1 ln(N / delta1) / eps1) (c1
     * unspecified in the paper: default 4; the cut-off 2 ln(1/delta1)/(eps1 K) is
     * about 2/C1, so C1 <= 2 zeroes even a bin holding every group), and the label-noise term of
     * line 9, sigma^2 log^{2a}(1/b) (sigma default 0, b default 1/e). */
    const dpt_dataset *estimating_data;
    double threshold_epsilon;
    double histogram_c1;
    double label_noise, tail_b;
    double paper_c3;             /* DP-GLMtron's closed form f = c3 log(N/delta)/(eps sqrt N) (default 1) */
    /* w_0 ~ N(0, init_scale^2 / d I), drawn from the seed before training
     * (data-independent: no privacy cost); 0 (default) starts at w_0 = 0 as
     * the papers do, where the ReLU loss's gradient, and so DP-SGD, is stuck */
    double init_scale;
    unsigned long seed;          /* w_0 (default 1); and the privacy draws of a non-private run without rng */
    /* The privacy draws (noise, shuffles, Poisson batches, the thresholds'
     * noise): required for a private run (NULL is refused); the accounting
     * line says "not private" when it is seeded.  Not owned. */
    dpt_rng *rng;
    /* called about every 1% of the steps (and at the end) when not NULL */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    /* Called with each clip that a threshold rule sets (not DPT_CLIP_FIXED):
     * per step for DP-GLMtron and DP-TAGLMtron, per batch for DP-MBGLMtron
     * (step counts from 0).  The clip is computed from the thresholds' noisy
     * outputs only, so it is covered by the run's guarantee; the tests use
     * it to measure the thresholds' noise.  May be NULL. */
    void (*on_clip)(void *ctx, uint64_t step, double clip);
    void *on_clip_ctx;
} dpt_glm_options;

void dpt_glm_defaults(dpt_glm_options *opt);

typedef struct dpt_glm_result {
    double *w;                   /* d: the averaged iterate (owned; dpt_glm_result_free) */
    size_t d;
    uint64_t steps;              /* updates made */
    double noise_multiplier;     /* f used (0 with noise_off) */
    double epsilon;              /* certified upper eps at delta for the events recorded (inf: not private) */
    double paper_noise_multiplier; /* the f of the paper's closed-form theorem for the same (eps, delta) */
    int amplified;               /* DP-GLMtron: the shuffling bound gave eps */
    char accounting[320];        /* what was accounted, in words */
    /* measured noise, for tests: sum of squared injected noise / (coordinates * std^2) */
    double noise_ratio;
    /* DPT_CLIP_HISTOGRAM: the thresholds' part (eps1, delta1, K per
     * histogram; their composed eps at delta; the paper's eps1 = eps / sqrt(8 N E
     * ln(2/delta))), and the training part's eps; `epsilon` is the larger. */
    double threshold_epsilon1, threshold_delta1, threshold_spent, paper_threshold_epsilon1;
    size_t threshold_groups;
    double training_epsilon;
} dpt_glm_result;

void dpt_glm_result_free(dpt_glm_result *r);

/* Calibrate (or take) the noise, train, account.  DPA_EINVAL for bad options
 * (naming the option), DPA_ENOMEM, or the accountant's status. */
int dpt_glm_train(const dpt_dataset *train, const dpt_glm_options *opt, dpt_glm_result *out, dpa_error *err);

/* 1/2 mean (ReLU(x.w) - y)^2 over the data. */
double dpt_relu_loss(const dpt_dataset *data, const double *w);

/* ---- classification models ---------------------------------------------------
 *
 * Koskela, "Approximating Two-Layer ReLU Networks for Hidden State Analysis
 * in Differential Privacy" (arXiv:2407.04884, 2024).
 *
 * Labels are class indices 0..K-1 stored as doubles in dataset->y (a
 * non-integer or out-of-range label is refused).  The loss is the softmax
 * cross-entropy of the K logits.  The parameters are one flat vector:
 * DPT_MODEL_SOFTMAX   logits = W x + b; W (K x d, row-major) then b (K);
 *                     K (d + 1) parameters;
 * DPT_MODEL_CONVEX    Koskela's gated-ReLU convex model (eq. 3.6 with
 *                     cross-entropy): P gates u_i ~ N(0, I_d) drawn from the
 *                     seed (data-independent), a_i(x) = 1[u_i.x >= 0],
 *                     logit_c = sum_i a_i(x) x.v_{i,c}; v laid out as
 *                     ((i d + j) K + c); P d K parameters, no bias;
 * DPT_MODEL_RELU      one hidden layer of width W: h = ReLU(U x + b1),
 *                     logits = A h + b2; U (W x d), b1 (W), A (K x W), b2 (K).
 * Initial parameters: softmax and convex 0 (the authors' code); ReLU U ~
 * N(0, 2/d), A ~ N(0, 1/W), biases 0, from the seed. */
typedef enum { DPT_MODEL_SOFTMAX = 0, DPT_MODEL_CONVEX = 1, DPT_MODEL_RELU = 2 } dpt_model_kind;

typedef struct dpt_model_spec {
    dpt_model_kind kind;
    size_t classes;          /* K >= 2 */
    size_t hyperplanes;      /* P >= 1 (convex) */
    size_t width;            /* W >= 1 (ReLU) */
    unsigned long seed;      /* gates and initial weights */
} dpt_model_spec;

typedef struct dpt_model dpt_model;

/* A model for inputs of dimension d; DPA_EINVAL naming the bad field,
 * DPA_ENOMEM. */
int dpt_model_new(const dpt_model_spec *spec, size_t d, dpt_model **out, dpa_error *err);
void dpt_model_free(dpt_model *m);
size_t dpt_model_size(const dpt_model *m);          /* parameters */
double *dpt_model_params(dpt_model *m);             /* the flat vector (owned by m) */
const dpt_model_spec *dpt_model_get_spec(const dpt_model *m);

/* logits (n x K, row-major) of the n rows of x (n x d). */
void dpt_model_logits(const dpt_model *m, const double *x, size_t n, double *logits);

/* The b examples rows[0..b-1] of data: each example's cross-entropy
 * gradient clipped to L2 norm at most `clip` (the whole flattened gradient;
 * INFINITY: no clipping), summed into grad (dpt_model_size entries, added
 * to what is there).  The per-example norms come from closed forms (the
 * softmax and convex gradients are outer products, phi(x) (p - e_y)^T; the
 * ReLU network's two layers are outer products too), so no per-example
 * gradient is materialised.  norms (b entries, may be NULL) receives the
 * unclipped norms.  Returns the summed cross-entropy, or NAN with err set
 * (a bad label, DPA_ENOMEM). */
double dpt_model_clipped_grad_sum(const dpt_model *m, const dpt_dataset *data, const size_t *rows, size_t b, double clip,
                                  double *grad, double *norms, dpa_error *err);

/* DPA_OK when every label of data is a class 0..K-1 of m (and the widths
 * agree), else DPA_EINVAL naming the first bad row: the trainers check the
 * whole set first, so that a bad label is refused whichever rows a batch
 * happens to draw. */
int dpt_model_check_labels(const dpt_model *m, const dpt_dataset *data, dpa_error *err);

/* Mean cross-entropy and accuracy (share of argmax = label) over data. */
void dpt_model_evaluate(const dpt_model *m, const dpt_dataset *data, double *loss, double *accuracy);

/* An upper bound on the smoothness of one example's cross-entropy in the
 * parameters, max over the data: the Hessian is (diag(p) - p p^T) (x)
 * phi phi^T and |diag(p) - p p^T| <= 1/2, so beta = 1/2 max |phi(x)|^2 with
 * |phi(x)|^2 = |x|^2 + 1 (softmax, the bias) or s(x) |x|^2 (convex, s(x)
 * the active gates: Koskela's Lemma 3.2 corrected, which takes the
 * Hessian as block-diagonal; it is not).
 * NAN for the ReLU network (not convex). */
double dpt_model_smoothness(const dpt_model *m, const dpt_dataset *data);
/* Each row of data scaled (towards 0) just enough that its loss is
 * beta-smooth by the bound above: |x|^2 + 1 <= 2 beta (softmax), s(x)
 * |x|^2 <= 2 beta (convex; the gates do not change under the scaling).  A
 * map of each record alone, so it costs no privacy, and afterwards
 * dpt_model_smoothness(m, data) <= beta for every dataset: this is how a
 * private NoisyCGD run gets its beta without reading it off the data.
 * DPA_EINVAL for the ReLU network or beta <= 1/2 (softmax) or <= 0. */
int dpt_model_bound_smoothness(const dpt_model *m, dpt_dataset *data, double beta, dpa_error *err);

/* ---- DP-SGD and NoisyCGD for the classification models (Koskela 2024) ----
 *
 * DPT_CLS_DP_SGD    batches drawn by opt->sampling (default Poisson at
 *                   q = b/n; see dpt_sampling), per-example clipping at C,
 *                   noise N(0, (sigma C)^2 I) on the sum, divided by the
 *                   (expected) batch b; every iterate released: the
 *                   sampling's event (Poisson: the Poisson-sampled Gaussian
 *                   composed over T = ceil(E n / b) steps, pld by default),
 *                   add/remove or replace-one.
 * DPT_CLS_NOISY_CGD noisy cyclic GD: k = floor(n/b) fixed disjoint batches in
 *                   a fixed order (the n - k b left over are never used),
 *                   theta <- theta - eta (mean clipped gradient + lambda
 *                   theta + N(0, (sigma C/b)^2 I)), the regulariser unclipped
 *                   and noise-free, a constant step, only the final iterate
 *                   released: mu-GDP by Bok, Su & Altschuler (ICML 2024), Thm 4.5
 *                   (dpa_event_noisy_cgd) with sensitivity 2C/b (replace-one),
 *                   strong convexity lambda and smoothness beta + lambda.
 *                   The step must satisfy eta < 2 / (beta + lambda). */
typedef enum { DPT_CLS_DP_SGD = 0, DPT_CLS_NOISY_CGD = 1 } dpt_cls_algorithm;

/* DP-SGD's learning-rate schedules (NoisyCGD's bound needs a constant step). */
typedef enum { DPT_SCHEDULE_CONSTANT = 0, DPT_SCHEDULE_STEP = 1, DPT_SCHEDULE_COSINE = 2 } dpt_schedule;

typedef struct dpt_cls_options {
    dpt_cls_algorithm algorithm;
    double learning_rate;        /* eta > 0 (default 0.1) */
    dpt_schedule schedule;       /* step: times `decay` every `decay_epochs` epochs; cosine: to 0 at the end */
    double decay, decay_epochs;  /* defaults 0.5, 10 */
    uint64_t epochs;             /* E >= 1 (default 1) */
    size_t batch_size;           /* b (default 1000): expected (DP-SGD) or exact (NoisyCGD) */
    double clip;                 /* C > 0 (default 1) */
    double noise_multiplier;     /* sigma > 0; 0: calibrated to (epsilon, delta) */
    double epsilon, delta;       /* target (defaults 1, 1e-5) */
    int noise_off;               /* 1: no noise (tests; not private) */
    dpa_relation relation;       /* DP-SGD: DPA_REPLACE_ONE (default) or DPA_ADD_REMOVE; NoisyCGD: replace-one */
    const char *accountant;      /* DP-SGD (default: dpt_sampling_accountant of the sampling) */
    dpt_sampling sampling;       /* DP-SGD's batches (default Poisson); NoisyCGD: Poisson (= its fixed batches) */
    union {                      /* the sampling's parameter (dpt_sampling), one field: */
        size_t max_batch;        /* DPT_SAMPLING_TRUNCATED: the largest batch B */
        size_t selected;         /* DPT_SAMPLING_ALLOCATION: K, the batches each record is in an epoch */
    };                           /* 0 otherwise */
    double l2;                   /* lambda >= 0; NoisyCGD needs lambda > 0 */
    double eta_lambda;           /* > 0: lambda = eta_lambda / eta (the paper fixes the product) */
    int match_epsilon;           /* NoisyCGD: the smallest lambda whose eps meets `epsilon` (as the paper) */
    double smoothness;           /* beta of one example's loss: required for a private NoisyCGD run, whose
                                  * rows must meet it (dpt_model_bound_smoothness); 0: dpt_model_smoothness
                                  * on the data, only without noise */
    unsigned long seed;          /* the privacy draws of a noise-off run without rng (default 1) */
    /* Poisson sampling and noise: required unless noise_off (NULL is
     * refused); a seeded one makes the accounting say "not private". */
    dpt_rng *rng;
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    /* after each epoch e (1..E), with the certified eps of releasing the
     * model at that point (each point a separate release, not one run's
     * guarantee); NULL: not computed */
    void (*epoch_done)(void *ctx, const dpt_model *m, uint64_t epoch, double epsilon);
    void *epoch_ctx;
} dpt_cls_options;

void dpt_cls_defaults(dpt_cls_options *opt);

typedef struct dpt_cls_result {
    uint64_t steps;
    double noise_multiplier;     /* sigma used (0 with noise_off) */
    double epsilon;              /* certified upper eps at delta (inf: not private) */
    double mu;                   /* NoisyCGD: the GDP mu */
    double l2;                   /* lambda used */
    double smoothness;           /* NoisyCGD: beta + lambda used in the bound */
    size_t unused;               /* NoisyCGD: examples in no batch */
    char accounting[320];
    double noise_ratio;          /* injected noise energy / its expectation (tests) */
} dpt_cls_result;

/* Calibrate (or take) the noise, check the step, train `model` in place,
 * account.  DPA_EINVAL naming the bad option (an invalid step says which
 * steps are valid), DPA_ENOMEM, or the accountant's status. */
int dpt_cls_train(const dpt_dataset *train, dpt_model *model, const dpt_cls_options *opt, dpt_cls_result *out,
                   dpa_error *err);

/* The accounting of a run with these options on n examples, without
 * training: sigma (calibrated unless given), lambda (matched with
 * match_epsilon), mu, the certified eps and the accounting in words, in
 * out (steps and noise_ratio 0); beta is the smoothness of one example's
 * loss (NoisyCGD only). */
int dpt_cls_account(size_t n, double beta, const dpt_cls_options *opt, dpt_cls_result *out, dpa_error *err);

/* ---- private NTK regression (trainers/ntk/ntk.c) ---------------------------------
 *
 * Gu, Liang, Sha, Shi & Song, "Differential Privacy Mechanisms in Neural
 * Tangent Kernel Regression" (WACV 2025).
 *
 * Quadratic-activation NTK with m public Gaussian neurons w_r ~ N(0,
 * sigma_w^2 I_d) drawn from the seed: K(x, z) = (1/m) sum_r <w_r,x><w_r,z><x,z> = <x,z> x^T Wbar z,
 * Wbar = (1/m) sum_r w_r w_r^T.  Every row is first (optionally projected,
 * see `project`, then) scaled to norm B (a per-record map, so free of
 * privacy cost; a zero row stays zero); beta is measured between these
 * processed rows.
 * Training: K_lambda = K(X, X) + lambda I, alpha = K_lambda^-1 Y (Y one-hot,
 * C classes), prediction argmax_c K(x, X)^T alpha.
 * Private (Gu et al.'s Alg. 2, reconstructed: its box is missing from the
 * text the implementation had), under the
 * beta-close relation (one row moves by at most beta in l2; labels public):
 *   1. Ktilde = GSM(K_lambda, k) = (1/k) sum_i g_i g_i^T, g_i ~ N(0, K_lambda),
 *      (epsilon_gsm, delta_gsm)-DP by dpa_event_gsm_frobenius(k, M) with the
 *      deterministic M = S_H / lambda, S_H = sqrt(8 (n + 1)) ||Wbar||_op B^3
 *      beta (a deterministic bound: no failure probability);
 *      k = dpa_gsm_max_samples(M, 0, eps_gsm, delta_gsm) unless given;
 *   2. alpha~ = Ktilde^+ Y (pseudo-inverse: Ktilde has rank min(k, n));
 *   3. Xtilde = X + Z, Z_ij i.i.d. truncated Laplace with l1 sensitivity
 *      sqrt(d) beta, bound A = dpa_truncated_laplace_bound(
 *      sqrt(d) beta, eps_features, delta_features): (eps_features,
 *      delta_features)-DP;
 *   4. prediction argmax_c K(x, Xtilde)^T alpha~; in all (eps_gsm +
 *      eps_features, delta_gsm + delta_features)-DP by basic composition. */
typedef struct dpt_ntk_options {
    size_t width;              /* m >= 1 (default 256) */
    double weight_std;         /* sigma_w > 0 (default 1) */
    double ridge;              /* lambda > 0 (default 1) */
    double row_norm;           /* B > 0 (default 1) */
    size_t project;            /* p >= 1: a public seeded Gaussian random projection of the rows to p
                                * dimensions (entries N(0, 1/p)) before the row scaling, so the model,
                                * the feature noise and beta live in R^p; 0: none (default) */
    double beta;               /* adjacency radius, 0 < beta <= 2B (default 1e-5) */
    int private_;              /* 0: the non-private baseline (default 1) */
    double epsilon_gsm, delta_gsm;           /* defaults 1, 5e-6 */
    double epsilon_features, delta_features; /* defaults 1, 5e-6 */
    uint64_t samples;          /* k >= 1; 0: the largest admissible (default) */
    int features_noise_off;    /* 1: skip step 3 (tests, ablation; then not private) */
    unsigned long seed;        /* the neurons and the projection (public; default 1) */
    dpt_rng *rng;              /* the GSM's and the features' noise: required for a private run */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
} dpt_ntk_options;

void dpt_ntk_defaults(dpt_ntk_options *opt);

typedef struct dpt_ntk_result {
    size_t n, classes;
    double wbar_norm;          /* ||Wbar||_op (rounded up) */
    double sensitivity_h;      /* S_H */
    double sensitivity_m;      /* M = S_H / lambda */
    uint64_t samples;          /* k used */
    uint64_t samples_max;      /* largest admissible k by exact RDP (0 if none) */
    double samples_paper;      /* Gu et al.'s threshold eps^2 / (8 ln(1/delta) M^2) (Eq. (1), reconstructed) */
    double epsilon_gsm;        /* the GSM's certified eps (rdp accountant) at delta_gsm, <= epsilon_gsm asked */
    double tlap_bound;         /* A of the feature noise */
    double epsilon, delta;     /* total, by basic composition (inf, 0 when not private) */
    double train_accuracy;     /* of the released predictor on the training rows */
    double alpha_norm;         /* ||alpha~||_F of the released coefficients (a property of the model) */
    char accounting[400];
} dpt_ntk_result;

typedef struct dpt_ntk_model dpt_ntk_model;

/* Train on `train` (y = class labels 0..C-1, integers, C >= 2); DPA_EINVAL
 * naming the bad option or label (also when no k >= 1 is admissible, with
 * the M and the budget), DPA_ENOMEM. */
int dpt_ntk_train(const dpt_dataset *train, const dpt_ntk_options *opt, dpt_ntk_model **model, dpt_ntk_result *out,
                  dpa_error *err);
/* Class scores (n x C) and the accuracy on `data` (labels as in training;
 * a label >= C counts as wrong). */
int dpt_ntk_scores(const dpt_ntk_model *m, const double *x, size_t n, double *scores, dpa_error *err);
double dpt_ntk_accuracy(const dpt_ntk_model *m, const dpt_dataset *data);
void dpt_ntk_free(dpt_ntk_model *m);

/* Pieces, public for the tests: the neurons (m x d, row-major) of a seed;
 * the feature map phi(x) = (1/sqrt m)[<w_1,x> x; ...; <w_m,x> x] (m d values);
 * the kernel K (n1 x n2) between rows of a (n1 x d) and b (n2 x d) by the
 * closed form <x,z> x^T Wbar z (no row scaling). */
int dpt_ntk_neurons(size_t m, size_t d, double weight_std, unsigned long seed, double *w, dpa_error *err);
void dpt_ntk_feature(const double *w, size_t m, size_t d, const double *x, double *phi);
int dpt_ntk_kernel(const double *w, size_t m, size_t d, const double *a, size_t n1, const double *b, size_t n2,
                   double *k, dpa_error *err);
/* A draw of (1/k) sum_i g_i g_i^T, g_i ~ N(0, sigma) (sigma n x n, positive
 * definite): Bartlett's decomposition of the Wishart when k >= n (cost n^3
 * whatever k), k explicit samples otherwise; into out (n x n).  The draws
 * are continuous floating-point ones from rng (dpt_rng_gsl): the Wishart
 * is not additive noise, so the grid rounding of dpt_noise_* does not
 * cover it. */
int dpt_gsm_sample(const double *sigma, size_t n, uint64_t k, dpt_rng *rng, double *out, dpa_error *err);

/* ---- sparse-gradient DP (trainers/sparse/sparse.c, sparse_opt.c) --------------------
 *
 * Ghazi, Guzman, Kamath, Kumar & Manurangsi, "Differentially Private
 * Optimization with Sparse Gradients" (NeurIPS 2024).
 *
 * Euclidean projection onto the l1 ball {x : ||x||_1 <= radius} (Duchi,
 * Shalev-Shwartz, Singer & Chandra 2008, by sorting); out may equal v. */
void dpt_project_l1_ball(const double *v, size_t d, double radius, double *out);

/* Synthetic s-sparse data: n rows in R^d, each with exactly s nonzero
 * coordinates drawn without replacement with probability proportional to
 * (j + 1)^-zipf (zipf 0: uniform), values
 *   DPT_SPARSE_ONE_HOT  L / sqrt(s) each (bag of features),
 *   DPT_SPARSE_GAUSSIAN N(0, 1) then scaled to l2 norm L;
 * y: for logistic data, +-1 with P(y = 1) = 1 / (1 + e^-(x.w*)), w* with
 * `wstar_support` nonzero N(0, 1) coordinates scaled to norm wstar_norm;
 * 0 otherwise.  wstar (d values) may be NULL. */
typedef enum { DPT_SPARSE_ONE_HOT = 0, DPT_SPARSE_GAUSSIAN = 1 } dpt_sparse_values;
typedef struct dpt_sparse_spec {
    size_t n, d, s;            /* defaults 10000, 1000, 10 */
    double norm;               /* L (default 1) */
    double zipf;               /* default 1 */
    dpt_sparse_values values;  /* default one-hot */
    int logistic;              /* 1: labels from a logistic model (default 0) */
    size_t wstar_support;      /* default 10 */
    double wstar_norm;         /* default 4 */
    unsigned long seed;        /* default 1 */
    uint64_t max_bytes;        /* the limit on n x d doubles (0: DPT_MAX_DATA_BYTES_DEFAULT; not a key) */
} dpt_sparse_spec;
void dpt_sparse_defaults(dpt_sparse_spec *spec);
/* "n=5000,d=2000,s=5,norm=1,zipf=1.1,values=gaussian,seed=3" over the defaults */
int dpt_sparse_parse(const char *text, dpt_sparse_spec *spec, dpa_error *err);
int dpt_sparse_generate(const dpt_sparse_spec *spec, dpt_dataset *out, double *wstar, dpa_error *err);

/* DP mean of rows with ||z||_0 <= s, ||z||_2 <= L (rows violating either are
 * refused: the bound is the sensitivity), replace-one:
 *   DPT_MEAN_PROJECTION  ME-1 (Ghazi et al.'s projection mechanism): zbar + Lap(2 L sqrt(s) / (n eps))^d
 *                        when delta = 0, else Gaussian with l2 sensitivity
 *                        2L/n; then projection onto the l1 ball of radius L sqrt(s);
 *   DPT_MEAN_COMPRESSED  ME-2 (their compressed-sensing mechanism), delta > 0: A in R^{m x d}, i.i.d.
 *                        N(0, 1/m) from the seed, b = A zbar + N(0, sigma^2
 *                        I_m), zhat = argmin ||z||_1 s.t. A z = b (basis
 *                        pursuit as an LP, solved by GLPK's simplex);
 *                        sensitivity 2L/n times a bound on ||A v|| / ||v|| over
 *                        2s-sparse v: certified (default): min(||A||_op,
 *                        sqrt(2s) max_j ||a_j||), no failure probability; or
 *                        rip: 3/2, with the probability that A fails RIP(2s,
 *                        1/2) (Baraniuk et al. 2008, Thm 5.2) added as a
 *                        failure delta and the Gaussian calibrated at delta
 *                        minus it;
 *   DPT_MEAN_DENSE       the Gaussian (delta > 0) or Laplace (delta = 0,
 *                        l1 sensitivity 2 L sqrt(s) / n) mechanism alone.
 * Gaussian noise is analytic (dpa_gaussian_sigma) unless `classical`
 * (sigma = Delta sqrt(2 ln(1.25/delta)) / eps, the papers' formula; refused
 * for eps >= 1, where it is not a guarantee). */
typedef enum { DPT_MEAN_PROJECTION = 0, DPT_MEAN_COMPRESSED = 1, DPT_MEAN_DENSE = 2 } dpt_mean_method;
typedef struct dpt_mean_options {
    dpt_mean_method method;
    size_t sparsity;           /* s >= 1 */
    double norm;               /* L > 0 */
    double epsilon;            /* > 0 */
    double delta;              /* [0, 1) */
    int classical;
    size_t measurements;       /* m; 0: ceil(4 s ln(d / s)) (at least 2s, at most d) */
    int rip_sensitivity;       /* 1: the RIP route with its failure delta */
    unsigned long seed;        /* ME-2's matrix A (public; default 1) */
    dpt_rng *rng;              /* the noise: required */
    /* Private selection of ME-1's projection radius by Liu & Talwar's
     * random stopping (STOC 2019, Thm 3.1), on when random_stop = gamma in
     * (0, 1] (0: off, the default); DPT_MEAN_PROJECTION with delta = 0
     * only.  Each round draws a radius r uniformly from the candidates
     * (none: L sqrt(s) alone), releases zhat = the projection of zbar +
     * Lap(2 L sqrt(s) / (n eps_main))^d onto the l1 ball of radius r, and
     * scores it: f(zhat) = ||zhat||^2 - 2 <zhat, zbar> (= ||zhat - zbar||^2
     * - ||zbar||^2: ranking by f ranks by the error) plus Laplace noise of
     * scale Delta_f / eps_score, Delta_f = 2 ||zhat||_2 2L/n (<= 4 r L / n).
     * eps_round = epsilon / 3, eps_score = score_fraction eps_round,
     * eps_main the rest; after each round the run stops with probability
     * gamma; the round of lowest noisy score is released; the whole is
     * 3 eps_round = epsilon pure DP (the "tuning" accountant's certified
     * number in the result).  The rounds' count is not covered (see
     * dpt_mean_result.rounds).  Every draw comes from rng. */
    const double *select_radii; /* the candidates (each finite > 0), select_count of them */
    size_t select_count;
    double random_stop;        /* gamma in (0, 1]; 0: no selection */
    double score_fraction;     /* the score's share of a round's eps, in (0, 1) (default 0.1) */
} dpt_mean_options;
typedef struct dpt_mean_result {
    double noise_scale;        /* sigma (Gaussian) or b (Laplace) per coordinate */
    double sensitivity;        /* the l2 (Gaussian) or l1 (Laplace) sensitivity used */
    double failure_delta;      /* the RIP route's failure probability, else 0 */
    size_t measurements;
    double epsilon, delta;     /* the guarantee */
    char accounting[320];
    /* random stopping (0 otherwise): */
    double radius;             /* the released round's radius */
    uint64_t rounds;           /* the rounds run.  NOT covered by the guarantee (Thm 3.1 releases the best round
                                * only): keep it secret in a private run */
    double round_epsilon;      /* eps_round; epsilon = 3 eps_round (rounded up) */
    double score_epsilon;      /* eps_score */
    double score;              /* the released round's noisy f */
    double score_sensitivity;  /* its Delta_f */
} dpt_mean_result;
void dpt_mean_defaults(dpt_mean_options *opt);
/* The replace-one sensitivity of f(zhat) = ||zhat||^2 - 2 <zhat, zbar> for a
 * fixed zhat, zbar the mean of n rows with ||z||_2 <= L: 2 ||zhat||_2 2L/n
 * plus a bound on the floating-point error of the computed f, rounded up. */
double dpt_mean_score_sensitivity(const double *zhat, size_t d, double L, size_t n);
/* The estimate (d values) of the mean of the rows of data->x. */
int dpt_sparse_mean(const dpt_dataset *data, const dpt_mean_options *opt, double *estimate, dpt_mean_result *out,
                    dpa_error *err);
/* ln of the bound 2 (12 e d / (K/2))^K exp(-(5/384) m) on the probability
 * that an m x d matrix with i.i.d. N(0, 1/m) entries fails RIP of order K
 * with constant 1/2 (Baraniuk et al. 2008, Lemma 5.1 and Thm 5.2's union
 * bound; c0(1/4) = 5/384 for Gaussian entries); not capped at 0.  ME-2's
 * matrix is the first m*d draws of gsl_ran_gaussian(r, 1/sqrt(m)) (row-major)
 * of a gsl_rng mt19937 seeded with the seed; the noise comes after. */
double dpt_rip_failure_log(size_t m, size_t d, size_t K);
/* Basis pursuit: argmin ||z||_1 s.t. A z = b, A m x d row-major; DPA_EINVAL
 * when GLPK finds it infeasible, DPA_EACCURACY when it fails. */
int dpt_basis_pursuit(const double *A, size_t m, size_t d, const double *b, double *z, dpa_error *err);

/* Logistic regression on data with labels +-1: f(w; x, y) = ln(1 + e^-(y x.w)),
 * L = max ||x||_2, H = L^2/4.  (trainers/sparse/sparse_opt.c) */
/* Output perturbation with l1 projection (Ghazi et al.): w_lambda = argmin (1/n)
 * sum f + (lambda/2) ||w||^2 (solved to a gradient norm <= 1e-10), plus
 * Laplace (delta = 0; sigma = Delta_1 / eps, Delta_1 given or the bound
 * 2 sqrt(2s) L (H/lambda + 1) / (lambda n)) or Gaussian (l2 sensitivity
 * 2L/(lambda n), analytic unless classical); then projection onto the l1
 * ball of radius L sqrt(s) / lambda, or none (dense). */
typedef struct dpt_sparse_erm_options {
    double lambda;             /* > 0 (default 1e-2) */
    double epsilon, delta;     /* defaults 1, 1e-5 */
    size_t sparsity;           /* s: every row must have at most s nonzeros (0: the largest row count; only
                                * without noise: a private run needs it given) */
    double norm;               /* L: every row must have ||x|| <= L (0: the largest row norm; likewise) */
    double sensitivity_l1;     /* Delta_1; 0: 2 sqrt(2s) L (H/lambda + 1) / (lambda n) */
    int classical;
    int project;               /* 1 (default): l1 projection; 0: the dense baseline */
    int noise_off;             /* 1: non-private */
    unsigned long seed;        /* unused (kept for the layout); the noise comes from rng */
    dpt_rng *rng;              /* the noise: required unless noise_off */
    /* called after each stage (solve, noise, projection): done of 3 (not
     * called by a run with random stopping) */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    /* Private selection of lambda by Liu & Talwar's random stopping
     * ("Private Selection from Private Candidates", STOC 2019, Thm 3.1),
     * on when random_stop = gamma in (0, 1] (0: off, the default); pure
     * runs only (delta = 0: a Gaussian round is refused) and
     * sensitivity_l1 must be 0 (the bound depends on lambda).  Each round
     * draws a lambda uniformly from the candidates (none: `lambda` alone),
     * releases w as above at eps_main and scores it: the mean logistic
     * loss (1/n) sum ln(1 + e^-(y x.w)) (unregularised, comparable across
     * lambdas) plus Laplace noise of scale Delta_q / eps_score, Delta_q =
     * ln(1 + e^(L ||w||_2)) / n (each loss lies in [0, ln(1 + e^(L
     * ||w||_2))]; with the projection ||w||_2 <= ||w||_1 <= L sqrt(s) /
     * lambda); eps_round = epsilon / 3, eps_score = score_fraction
     * eps_round, eps_main the rest.  After each round the run stops with
     * probability gamma; the round of lowest noisy score is released, and
     * the whole is 3 eps_round = epsilon pure DP (the "tuning" accountant's
     * certified number in the result).  The rounds' count is not covered:
     * see dpt_sparse_erm_result.rounds.  Every draw (candidates, coins,
     * noise) comes from rng. */
    const double *select_lambdas;   /* the candidates (each finite > 0), select_count of them */
    size_t select_count;
    double random_stop;             /* gamma in (0, 1]; 0: no selection */
    double score_fraction;          /* the score's share of a round's eps, in (0, 1) (default 0.1) */
} dpt_sparse_erm_options;
typedef struct dpt_sparse_erm_result {
    double noise_scale, sensitivity;
    double solver_gradient;    /* ||grad|| at the computed minimiser */
    double objective_private;  /* regularised training objective at the release */
    double objective_optimal;  /* at the non-private minimiser */
    double epsilon, delta;
    char accounting[320];
    /* random stopping (0 otherwise, lambda the option's): */
    double lambda;             /* the released round's lambda */
    uint64_t rounds;           /* the rounds run.  NOT covered by the guarantee: Thm 3.1 releases the best round
                                * only, and the count published beside it can cost up to rounds x eps_round;
                                * keep it secret in a private run */
    double round_epsilon;      /* eps_round = eps_main + eps_score; epsilon = 3 eps_round (rounded up) */
    double score_epsilon;      /* eps_score */
    double score;              /* the released round's noisy score */
    double score_sensitivity;  /* its Delta_q */
} dpt_sparse_erm_result;
void dpt_sparse_erm_defaults(dpt_sparse_erm_options *opt);
int dpt_sparse_erm(const dpt_dataset *train, const dpt_sparse_erm_options *opt, double *w, dpt_sparse_erm_result *out,
                   dpa_error *err);
/* (1/n) sum ln(1 + e^-(y x.w)) + (lambda/2) ||w||^2 (lambda may be 0). */
double dpt_logistic_objective(const dpt_dataset *data, const double *w, double lambda);
/* The replace-one sensitivity of dpt_logistic_objective(data, w, 0) for a
 * fixed w over data sets of n rows with ||x||_2 <= L: ln(1 + e^(L ||w||_2))
 * / n plus a bound on the floating-point error of the computed mean (for
 * rows of at most s nonzeros), rounded up. */
double dpt_logistic_score_sensitivity(const double *w, size_t d, double L, size_t s, size_t n);

/* Bias-reduced DP-SGD (Ghazi et al.): at each step N ~ P[N = k] prop. to 2^-k,
 * k = 0..log2(n') - 1 (n' the largest power of 2 <= n), B a uniform subset
 * of [n] of size 2^(N+1) (without replacement), O, E its halves, i uniform
 * in [n]; each of the four gradient means (over B, O, E, {i}) gets
 * N(0, noise^2 I) -- `noise` is the absolute per-coordinate standard
 * deviation sigma0, the same for all four -- and is projected onto the l1
 * ball of radius L sqrt(s) (ME-1, post-processing); G = (G_B - (G_O +
 * G_E)/2) / p_N + G_i, w <- w - eta (G + lambda w) (projected onto the l2
 * ball of radius `radius` when > 0).  Each step's cost for the worst-case
 * record (in B, in one of O/E, and chosen as i) is mu_t^2 = mu_{2^(N+1)}^2 +
 * mu_{2^N}^2 + mu_1^2, mu_b = 2L / (b sigma0) (replace-one), random through
 * N; a GDP filter (dpa_filter, budget mu = dpa_gdp_mu(epsilon, delta).lower)
 * admits steps until the first it refuses: a random stopping time.  dense:
 * plain noisy minibatch SGD (batch b without replacement, N(0, sigma0^2 I)
 * on the mean, no projection, mu_t = 2L/(b sigma0)) under the same filter.
 * sparsity 0 / norm 0: the largest over the rows, only for a run without
 * noise (a private run needs them given: the data's own bounds are
 * statistics of the private data).  progress: total = the expected number of admitted
 * steps (capped at max_steps); the last call has done == total == steps. */
typedef struct dpt_sparse_sgd_options {
    double learning_rate;      /* default 0.1 */
    double epsilon, delta;     /* defaults 1, 1e-5; delta > 0 (GDP filter) */
    double noise;              /* sigma0: the per-coordinate std of the noise on each batch mean (default 100) */
    double lambda;             /* l2 regulariser >= 0 (default 0) */
    size_t sparsity;
    double norm;
    double radius;             /* default 0: none */
    uint64_t max_steps;        /* cap (default 100000) */
    int dense;                 /* 1: the dense baseline */
    size_t batch_size;         /* dense baseline's batch (default 64) */
    unsigned long seed;        /* the draws of a noise-off run without rng (default 1) */
    dpt_rng *rng;              /* subsets, levels, indices and noise: required unless noise_off */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    int noise_off;             /* 1: no noise, no filter, max_steps steps (not private; for tests) */
    /* Called for every step the filter is asked about (t from 1; the last
     * call of a private run is the refused one, admitted 0); level N (0 for
     * dense) and its mu_t.  May be NULL. */
    void (*on_step)(void *ctx, uint64_t t, unsigned level, double mu_t, int admitted);
    void *on_step_ctx;
} dpt_sparse_sgd_options;
typedef struct dpt_sparse_sgd_result {
    uint64_t steps;            /* admitted by the filter */
    double mu_spent;           /* sqrt(sum mu_t^2) */
    double epsilon, delta;     /* the filter's guarantee */
    char accounting[320];
} dpt_sparse_sgd_result;
void dpt_sparse_sgd_defaults(dpt_sparse_sgd_options *opt);
/* w (d values) in: the start; out: the average of the iterates w_1..w_T
 * after each admitted step (the start itself when none was admitted). */
int dpt_sparse_sgd(const dpt_dataset *train, const dpt_sparse_sgd_options *opt, double *w, dpt_sparse_sgd_result *out,
                   dpa_error *err);
/* A test hook: the mean and the per-coordinate sample standard deviation of
 * `draws` (>= 2) independent draws of the gradient oracle at w (the
 * debiased G of the bias-reduced DP-SGD, or the dense baseline's noisy minibatch mean; without the
 * regulariser), drawn from opt->seed; no privacy filter is involved. */
int dpt_sparse_sgd_oracle_mean(const dpt_dataset *train, const dpt_sparse_sgd_options *opt, const double *w,
                               uint64_t draws, double *mean, double *sd, dpa_error *err);

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif
