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

#ifdef __cplusplus
extern "C" {
#endif

/* ---- data ------------------------------------------------------------------ */

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

/* Seeded split: a uniformly random permutation (gsl_rng mt19937 seeded with
 * `seed`), the first round(test_fraction * n) examples to `test`, the rest to
 * `train`; test_fraction in [0, 1), and both parts non-empty unless the
 * fraction is 0 (then `test` is zeroed). */
int dpt_split(const dpt_dataset *all, double test_fraction, unsigned long seed, dpt_dataset *train,
              dpt_dataset *test, dpa_error *err);

/* Standardisation fitted on `train` (mean 0, standard deviation 1 per
 * feature, population std; a constant feature is only centred) and applied
 * to `test` too when it is not NULL. */
void dpt_standardize(dpt_dataset *train, dpt_dataset *test);

/* Target scaling as in seed 003's experiments: divide every y by the
 * largest |y| over both sets (test may be NULL); returns that scale (1 when
 * every y is 0). */
double dpt_scale_target(dpt_dataset *train, dpt_dataset *test);

/* Synthetic ReLU regression as in seed 000's experiment:
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
} dpt_synthetic_spec;
/* Defaults: n 500, d 1024, poly, decay 2, Rademacher, noise 0.1, |w*| 1, seed 1. */
void dpt_synthetic_defaults(dpt_synthetic_spec *spec);
/* "n=500,d=1024,spectrum=poly,decay=2,zeta=rademacher,noise=0.1,wstar=1,seed=1",
 * any subset in any order over the defaults; errors name the bad key or value. */
int dpt_synthetic_parse(const char *text, dpt_synthetic_spec *spec, dpa_error *err);
/* The data and, when wstar is not NULL, w* itself (d doubles). */
int dpt_synthetic(const dpt_synthetic_spec *spec, dpt_dataset *out, double *wstar, dpa_error *err);

/* ---- the GLMtron family and DP-SGD for ReLU regression (seeds 000, 003) ---- */

/* The algorithms (../shared/notes/glmtron-seeds-000-003.md):
 * DPT_GLMTRON       non-private GLMtron (Kakade et al. 2011), one step per example;
 * DPT_DP_GLMTRON    seed 000 Alg 1 / seed 003 Alg 1: a secret shuffle, one noisy
 *                   clipped GLMtron step per example, noise std 2 f gamma_t;
 * DPT_DP_TAGLMTRON  seed 000 Alg 3: GLMtron steps as DP-FTRL, the prefix sums by
 *                   tree aggregation (Alg 4 with the leaf fix), node noise f Gamma;
 * DPT_DP_MBGLMTRON  seed 003 Alg 3: disjoint batches of m estimating and b gradient
 *                   records, the clip from a noisy-doubling DP-Threshold (Alg 2) on
 *                   the estimating slice, noise std 2 f s_t / b on the mean;
 * DPT_MBGLMTRON     the same without noise (its non-private counterpart);
 * DPT_SGD           non-private SGD on the ReLU regression loss (with the
 *                   ReLU-derivative indicator), Poisson batches;
 * DPT_DP_SGD        DP-SGD (Abadi et al. 2016): Poisson sampling at q = b/N,
 *                   per-example clipping at C, noise sigma C on the sum, divided by b. */
typedef enum {
    DPT_GLMTRON, DPT_DP_GLMTRON, DPT_DP_TAGLMTRON, DPT_DP_MBGLMTRON, DPT_MBGLMTRON, DPT_SGD, DPT_DP_SGD
} dpt_algorithm;

/* Where the clip of the GLMtron family comes from. */
typedef enum {
    DPT_CLIP_FIXED = 0,      /* gamma_t = clip, every step (no threshold) */
    DPT_CLIP_PUBLIC = 1,     /* DP-Threshold (seed 003 Alg 2) on public estimating data: free */
    DPT_CLIP_PRIVATE = 2,    /* DP-MBGLMtron: on each batch's private estimating slice, noisy counts */
    DPT_CLIP_HISTOGRAM = 3   /* DP-GLMtron / DP-TAGLMtron: seed 000 Alg 2 (Laplace stability
                              * histograms) on private estimating data disjoint from the training data */
} dpt_clip_rule;

/* Seed 000's DP-Threshold (P0 Alg 2, reconstructed in the glmtron note,
 * 2.1 and 2.5 items 1-2).  For each of d1 = (x.w - y)^2, d2 = y^2 and
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
 * with Laplace noise drawn from mt19937(seed) when `noisy`, the plain
 * plurality bins otherwise.  DPA_EINVAL naming a bad parameter. */
int dpt_histogram_threshold(const dpt_dataset *est, const double *w, const dpt_histogram_params *p, int noisy,
                            unsigned long seed, double *s, dpa_error *err);

typedef struct dpt_glm_options {
    dpt_algorithm algorithm;
    double learning_rate;        /* eta > 0 (default 1e-2) */
    uint64_t epochs;             /* passes over the data (default 1) */
    size_t batch_size;           /* MB: gradient records b per batch; DP-SGD: expected batch (default 32) */
    size_t estimate_size;        /* MB: estimating records m per batch (0: max(1, b/10) with the private
                                  * threshold, none otherwise) */
    /* privacy: a target (epsilon, delta) to calibrate f, or f itself */
    double epsilon, delta;       /* target; delta in (0, 1) */
    double noise_multiplier;     /* > 0: use this f and report the eps it costs */
    int noise_off;               /* 1: no noise at all (tests; the run is not private) */
    int shuffle_amplification;   /* DP-GLMtron, one epoch: count the secret shuffle (default 1) */
    const char *accountant;      /* for DP-SGD (default "pld"); the GLMtron family is Gaussian: "gaussian" */
    /* the clip (GLMtron family): gamma_t = x_norm * s_t, x_norm = sqrt(2 alpha tr H) C2 log^{2a} N
     * (seed 000 Alg 1 line 5), s_t from the rule */
    dpt_clip_rule clip_rule;
    double clip;                 /* DPT_CLIP_FIXED: gamma; DP-SGD: C (default 1) */
    double alpha, trace_h, c2, a;   /* defaults: alpha 1, tr H = d, C2 1, a 0 */
    double upsilon, grid_delta;  /* DP-Threshold's domain Upsilon and granularity Delta (defaults 10, 1e-3) */
    const dpt_dataset *public_data; /* DPT_CLIP_PUBLIC: the estimating data */
    /* DPT_CLIP_HISTOGRAM: the private estimating records (disjoint from the
     * training data: a record is in one part, so it pays the larger of the
     * two parts' costs), the per-histogram eps1 (0: the largest for which
     * the 3 N E histograms composed meet the target eps at delta, with
     * delta1 = delta / (6 N E)), K = ceil(c1 ln(N / delta1) / eps1) (c1
     * unspecified in P0: default 4; the cut-off 2 ln(1/delta1)/(eps1 K) is
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
    unsigned long seed;
    /* called about every 1% of the steps (and at the end) when not NULL */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
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
     * histogram; their composed eps at delta; P0's eps1 = eps / sqrt(8 N E
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

#ifdef __cplusplus
}
#endif

#endif
