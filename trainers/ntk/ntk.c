/*
 * ntk.c - private NTK regression (Gu, Liang, Sha, Shi & Song,
 * "Differential Privacy Mechanisms in Neural Tangent Kernel Regression",
 * WACV 2025, as reconstructed in ../shared/notes/ntk-sparse-seeds-002-004.md,
 * section 1).
 *
 * The kernel is the discrete quadratic NTK of note 1.1 (Def. 3.5),
 *   K(x, z) = (1/m) sum_r <w_r,x><w_r,z><x,z> = <x,z> x^T Wbar z,
 * computed by the note's [D] closed form K(A, B) = (A B^T) o (A Wbar B^T)
 * (o the Hadamard product), O(m d^2 + n d^2 + n^2 d) instead of O(n^2 m d).
 *
 * Training follows Alg. 2 as reconstructed in note 1.7:
 *   K_lambda = K(X, X) + lambda I;
 *   Ktilde   = GSM(K_lambda, k)           (Alg. 1, note 1.4)  (eps_gsm, delta_gsm)-DP
 *   alpha~   = Ktilde^+ Y                 (post-processing; Moore-Penrose when k < n)
 *   Xtilde   = X + TLap(sqrt(d) beta)^{n x d}   (Lemma G.2, note 1.6)  (eps_f, delta_f)-DP
 *   f~(x)    = K(x, Xtilde)^T alpha~      (post-processing)
 * and basic composition (Lemma 3.4).  The sensitivity of K_lambda is the
 * note's deterministic [D] bound (1.5, points 1-2):
 *   S_H = sqrt(8 (n + 1)) ||Wbar||_op B^3 beta,   M = S_H / lambda,
 * which needs no failure probability over the weights (note 1.11 item 7).
 * The GSM's privacy is the exact RDP of the frobenius worst case (note
 * 1.10 item 1) from libdpacct, which also gives the largest k.
 */
#include <config.h>

#include "dpt_internal.h"

#include <float.h>
#include <gsl/gsl_cblas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct dpt_ntk_model {
    size_t d_in;        /* features of the raw rows */
    size_t p;           /* features after the projection (d_in without one) */
    size_t n, classes;
    double row_norm;
    double *proj;       /* p x d_in, or NULL */
    double *wbar;       /* p x p */
    double *xt;         /* n x p: Xtilde (X itself when the features are not noised) */
    double *alpha;      /* n x C */
};

/* Rows of query data processed at once when scoring (bounds the scratch to
 * QUERY_BLOCK x n kernel values). */
#define QUERY_BLOCK 256

/* Independent streams for the projection, the GSM and the feature noise,
 * derived from the one seed by splitmix64 (the neurons use the seed itself,
 * so dpt_ntk_neurons(m, d, s, seed) reproduces a model's neurons). */
static unsigned long sub_seed(unsigned long seed, uint64_t tag)
{
    uint64_t z = (uint64_t)seed + tag * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (unsigned long)(z ^ (z >> 31));
}

void dpt_ntk_defaults(dpt_ntk_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->width = 256;
    opt->weight_std = 1.0;
    opt->ridge = 1.0;
    opt->row_norm = 1.0;
    opt->project = 0;
    opt->beta = 1e-5;   /* small enough for k >= n at eps 2 with n = 1000 (docs/repro/ntk-sparse-report.md) */
    opt->private_ = 1;
    opt->epsilon_gsm = 1.0;
    opt->delta_gsm = 5e-6;
    opt->epsilon_features = 1.0;
    opt->delta_features = 5e-6;
    opt->samples = 0;
    opt->features_noise_off = 0;
    opt->seed = 1;
}

/* ---- pieces ---------------------------------------------------------------- */

int dpt_ntk_neurons(size_t m, size_t d, double weight_std, unsigned long seed, double *w, dpa_error *err)
{
    if (!w) return dpt_fail(err, DPA_EINVAL, "ntk neurons: w is NULL");
    if (m == 0) return dpt_fail(err, DPA_EINVAL, "ntk width: must be >= 1");
    if (d == 0) return dpt_fail(err, DPA_EINVAL, "ntk neurons: d must be >= 1");
    if (m > SIZE_MAX / sizeof(double) / d) return dpt_fail(err, DPA_EINVAL, "ntk width: m d overflows");
    if (!(weight_std > 0.0) || !isfinite(weight_std))
        return dpt_fail(err, DPA_EINVAL, "ntk weight_std: expected a finite number > 0, got %g", weight_std);
    gsl_rng *r = dpt_rng_new(seed, err);
    if (!r) return DPA_ENOMEM;
    /* w_r ~ N(0, sigma_w^2 I_d) i.i.d. (note 1.1, Def. 3.5): public, data-independent */
    for (size_t i = 0; i < m * d; i++) w[i] = gsl_ran_gaussian_ziggurat(r, weight_std);
    gsl_rng_free(r);
    return DPA_OK;
}

void dpt_ntk_feature(const double *w, size_t m, size_t d, const double *x, double *phi)
{
    /* phi(x) = (1/sqrt m) [<w_1,x> x; ...; <w_m,x> x] (note 1.1; Lemma C.1's Gram form) */
    double s = 1.0 / sqrt((double)m);
    for (size_t r = 0; r < m; r++) {
        const double *wr = w + r * d;
        double dot = 0.0;
        for (size_t j = 0; j < d; j++) dot += wr[j] * x[j];
        for (size_t j = 0; j < d; j++) phi[r * d + j] = s * dot * x[j];
    }
}

/* Wbar = (1/m) W^T W (d x d, both triangles filled). */
static void wbar_of(const double *w, size_t m, size_t d, double *wbar)
{
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)d, (int)m, 1.0 / (double)m, w, (int)d, 0.0, wbar,
                (int)d);
    for (size_t i = 0; i < d; i++)
        for (size_t j = 0; j < i; j++) wbar[i * d + j] = wbar[j * d + i];
}

/* K(a, b) = (a b^T) o (a Wbar b^T) (note 1.1 [D] closed form); aw is n1 x d
 * scratch. */
static void kernel_with_wbar(const double *wbar, size_t d, const double *a, size_t n1, const double *b, size_t n2,
                             double *k, double *aw, double *gram)
{
    cblas_dsymm(CblasRowMajor, CblasRight, CblasUpper, (int)n1, (int)d, 1.0, wbar, (int)d, a, (int)d, 0.0, aw,
                (int)d);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n1, (int)n2, (int)d, 1.0, aw, (int)d, b, (int)d, 0.0,
                k, (int)n2);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n1, (int)n2, (int)d, 1.0, a, (int)d, b, (int)d, 0.0,
                gram, (int)n2);
    for (size_t i = 0; i < n1 * n2; i++) k[i] *= gram[i];
}

/* The sizes cblas takes as int. */
static int fits_int(size_t v)
{
    return v <= (size_t)INT_MAX;
}

int dpt_ntk_kernel(const double *w, size_t m, size_t d, const double *a, size_t n1, const double *b, size_t n2,
                   double *k, dpa_error *err)
{
    if (!w || !a || !b || !k) return dpt_fail(err, DPA_EINVAL, "ntk kernel: a NULL argument");
    if (!m || !d || !n1 || !n2) return dpt_fail(err, DPA_EINVAL, "ntk kernel: m, d, n1 and n2 must be >= 1");
    if (!fits_int(m) || !fits_int(d) || !fits_int(n1) || !fits_int(n2) || n1 > SIZE_MAX / sizeof(double) / n2 ||
        n1 > SIZE_MAX / sizeof(double) / d || d > SIZE_MAX / sizeof(double) / d)
        return dpt_fail(err, DPA_EINVAL, "ntk kernel: sizes too large");
    double *wbar = malloc(d * d * sizeof *wbar), *aw = malloc(n1 * d * sizeof *aw),
           *gram = malloc(n1 * n2 * sizeof *gram);
    int st = DPA_OK;
    if (!wbar || !aw || !gram) {
        st = dpt_fail(err, DPA_ENOMEM, "ntk kernel: out of memory");
    } else {
        wbar_of(w, m, d, wbar);
        kernel_with_wbar(wbar, d, a, n1, b, n2, k, aw, gram);
    }
    free(wbar);
    free(aw);
    free(gram);
    return st;
}

/* ---- samplers -------------------------------------------------------------- */

/* Lower Cholesky factor of sigma (n x n) into l (row-major, upper triangle
 * zeroed); DPA_EINVAL when sigma is not (numerically) positive definite. */
static int cholesky_lower(const double *sigma, size_t n, double *l, dpa_error *err)
{
    memcpy(l, sigma, n * n * sizeof *l);
    gsl_matrix_view v = gsl_matrix_view_array(l, n, n);
    dpt_gsl_quiet();
    if (gsl_linalg_cholesky_decomp1(&v.matrix) != GSL_SUCCESS)
        return dpt_fail(err, DPA_EINVAL, "the GSM's sigma is not positive definite (Cholesky failed)");
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) l[i * n + j] = 0.0;
    return DPA_OK;
}

int dpt_gsm_sample(const double *sigma, size_t n, uint64_t k, dpt_rng *rng, double *out, dpa_error *err)
{
    if (!sigma || !out || !rng) return dpt_fail(err, DPA_EINVAL, "gsm sample: a NULL argument");
    if (n == 0) return dpt_fail(err, DPA_EINVAL, "gsm sample: n must be >= 1");
    if (k == 0) return dpt_fail(err, DPA_EINVAL, "samples: k must be >= 1");
    if (k > (UINT64_C(1) << 53))
        return dpt_fail(err, DPA_EINVAL, "samples: k = %llu is above 2^53 (not exact in a double)",
                        (unsigned long long)k);
    if (!fits_int(n) || n > SIZE_MAX / sizeof(double) / n) return dpt_fail(err, DPA_EINVAL, "gsm sample: n too large");
    for (size_t i = 0; i < n * n; i++)
        if (!isfinite(sigma[i])) return dpt_fail(err, DPA_EINVAL, "gsm sample: sigma has a non-finite entry");
    int bartlett = k >= (uint64_t)n;
    size_t cols = bartlett ? n : (size_t)k;          /* k < n here, so this fits */
    double *l = malloc(n * n * sizeof *l), *g = malloc(n * cols * sizeof *g);
    gsl_rng *r = NULL;
    int st = DPA_OK;
    if (!l || !g) {
        st = dpt_fail(err, DPA_ENOMEM, "gsm sample: out of memory");
        goto done;
    }
    if ((st = cholesky_lower(sigma, n, l, err))) goto done;
    /* The Wishart is not additive noise, so the grid-rounded samplers do
     * not apply: continuous floating-point draws from the secure stream
     * (dptrain.h names this exception). */
    if (!(r = dpt_rng_gsl(rng, err))) {
        st = err && err->status ? err->status : DPA_ENOMEM;
        goto done;
    }
    if (bartlett) {
        /* Bartlett's decomposition: with Sigma = L L^T, k Sigmahat ~
         * Wishart_n(k, Sigma) (note 1.4) has the law of L A A^T L^T for A
         * lower triangular, A_ii = sqrt(chi2(k - i + 1)) (i = 1..n), A_ij ~
         * N(0, 1) below the diagonal, all independent.  The cost is n^3
         * whatever k.  gsl_ran_chisq(nu) is 2 Gamma(nu/2), Marsaglia-Tsang's
         * method for nu/2 >= 1, which stays accurate for nu up to 2^53: its
         * d (1 + c x)^3 with c = 1/sqrt(9 d) resolves fluctuations of
         * relative size 1/sqrt(d) >= 1.5e-8 to about 1e-8 of themselves
         * (tests/test_ntk.c checks the mean and variance at nu = 2^50). */
        for (size_t i = 0; i < n; i++) {
            double *row = g + i * n;
            for (size_t j = 0; j < i; j++) row[j] = gsl_ran_gaussian_ziggurat(r, 1.0);
            row[i] = sqrt(gsl_ran_chisq(r, (double)(k - (uint64_t)i)));   /* k - (i+1) + 1 */
            for (size_t j = i + 1; j < n; j++) row[j] = 0.0;
        }
        /* g <- L A (both lower triangular) */
        cblas_dtrmm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)n, (int)n, 1.0, l, (int)n,
                    g, (int)n);
    } else {
        /* k < n: the k samples explicitly, g_i = L z_i (Alg. 1 step 2); the
         * output has rank k, so it is singular (note 1.4). */
        for (size_t i = 0; i < n * cols; i++) g[i] = gsl_ran_gaussian_ziggurat(r, 1.0);
        cblas_dtrmm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, (int)n, (int)cols, 1.0, l,
                    (int)n, g, (int)cols);
    }
    /* Sigmahat = (1/k) G G^T (Alg. 1 step 3) */
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasNoTrans, (int)n, (int)cols, 1.0 / (double)k, g, (int)cols, 0.0, out,
                (int)n);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++) out[i * n + j] = out[j * n + i];
done:
    if (r) gsl_rng_free(r);
    free(l);
    free(g);
    return st;
}

/* ---- training -------------------------------------------------------------- */

static int check_options(const dpt_ntk_options *o, dpa_error *err)
{
    if (!o) return dpt_fail(err, DPA_EINVAL, "ntk: options are NULL");
    if (o->width == 0 || !fits_int(o->width)) return dpt_fail(err, DPA_EINVAL, "width: must be in 1..%d", INT_MAX);
    if (!(o->weight_std > 0.0) || !isfinite(o->weight_std))
        return dpt_fail(err, DPA_EINVAL, "weight-std: expected a finite number > 0, got %g", o->weight_std);
    if (!(o->ridge > 0.0) || !isfinite(o->ridge))
        return dpt_fail(err, DPA_EINVAL, "ridge: expected a finite lambda > 0, got %g", o->ridge);
    if (!(o->row_norm > 0.0) || !isfinite(o->row_norm))
        return dpt_fail(err, DPA_EINVAL, "row-norm: expected a finite B > 0, got %g", o->row_norm);
    if (!fits_int(o->project)) return dpt_fail(err, DPA_EINVAL, "project: must be at most %d", INT_MAX);
    if (!(o->beta > 0.0) || !isfinite(o->beta))
        return dpt_fail(err, DPA_EINVAL, "beta: expected a finite number > 0, got %g", o->beta);
    if (o->beta > 2.0 * o->row_norm)
        return dpt_fail(err, DPA_EINVAL, "beta: %g is above 2B = %g (rows of norm B are never further apart)",
                        o->beta, 2.0 * o->row_norm);
    if (!(o->epsilon_gsm > 0.0) || !isfinite(o->epsilon_gsm))
        return dpt_fail(err, DPA_EINVAL, "epsilon-gsm: expected a finite number > 0, got %g", o->epsilon_gsm);
    if (!(o->delta_gsm > 0.0 && o->delta_gsm < 1.0))
        return dpt_fail(err, DPA_EINVAL, "delta-gsm: expected a number in (0, 1), got %g", o->delta_gsm);
    if (!(o->epsilon_features > 0.0) || !isfinite(o->epsilon_features))
        return dpt_fail(err, DPA_EINVAL, "epsilon-features: expected a finite number > 0, got %g",
                        o->epsilon_features);
    if (!(o->delta_features > 0.0 && o->delta_features <= 0.5))
        return dpt_fail(err, DPA_EINVAL, "delta-features: expected a number in (0, 0.5], got %g", o->delta_features);
    if (o->samples > (UINT64_C(1) << 53))
        return dpt_fail(err, DPA_EINVAL, "samples: k = %llu is above 2^53", (unsigned long long)o->samples);
    return DPA_OK;
}

/* C = the largest label + 1 after checking every label is an integer >= 0
 * (and C >= 2). */
static int check_labels(const dpt_dataset *t, size_t *classes, dpa_error *err)
{
    double top = -1.0;
    for (size_t i = 0; i < t->n; i++) {
        double y = t->y[i];
        if (!(y >= 0.0) || y != floor(y) || y > 1e6)
            return dpt_fail(err, DPA_EINVAL, "labels: row %zu has label %g, expected an integer class 0..C-1", i + 1,
                            y);
        if (y > top) top = y;
    }
    if (top < 1.0) return dpt_fail(err, DPA_EINVAL, "labels: need at least two classes (labels 0..C-1, C >= 2)");
    *classes = (size_t)top + 1;
    return DPA_OK;
}

/* rows (n x d_in) -> out (n x p): the projection (if any), then every row
 * scaled to norm B (zero rows stay zero). */
static void preprocess(const dpt_ntk_model *m, const double *x, size_t n, double *out)
{
    size_t p = m->p;
    if (m->proj)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)p, (int)m->d_in, 1.0, x, (int)m->d_in,
                    m->proj, (int)m->d_in, 0.0, out, (int)p);
    else
        memcpy(out, x, n * p * sizeof *out);
    for (size_t i = 0; i < n; i++) {
        double *row = out + i * p;
        double nr = cblas_dnrm2((int)p, row, 1);
        if (nr > 0.0) cblas_dscal((int)p, m->row_norm / nr, row, 1);
    }
}

/* The largest eigenvalue of the symmetric d x d matrix a (copied). */
static int max_eigenvalue(const double *a, size_t d, double *out, dpa_error *err)
{
    double *c = malloc(d * d * sizeof *c);
    gsl_vector *ev = gsl_vector_alloc(d);
    gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc(d);
    int st = DPA_OK;
    if (!c || !ev || !ws) {
        st = dpt_fail(err, DPA_ENOMEM, "ntk: out of memory (eigenvalues of Wbar)");
    } else {
        memcpy(c, a, d * d * sizeof *c);
        gsl_matrix_view v = gsl_matrix_view_array(c, d, d);
        if (gsl_eigen_symm(&v.matrix, ev, ws) != GSL_SUCCESS) {
            st = dpt_fail(err, DPA_EACCURACY, "ntk: the eigenvalues of Wbar did not converge");
        } else {
            *out = gsl_vector_max(ev);
        }
    }
    free(c);
    if (ev) gsl_vector_free(ev);
    if (ws) gsl_eigen_symm_free(ws);
    return st;
}

/* alpha = K+ Y by the eigendecomposition K = V diag(e) V^T: eigenvalues
 * below n max(e) 1e-12 (including the negative ones rounding leaves in a
 * PSD matrix) are treated as zero, the Moore-Penrose inverse of note 1.7
 * step 4 (002:L439) for the rank-min(k, n) Ktilde.  k is overwritten. */
static int pinv_solve(double *k, size_t n, const double *y, size_t c, double *alpha, size_t *rank, dpa_error *err)
{
    gsl_vector *ev = gsl_vector_alloc(n);
    gsl_matrix *v = gsl_matrix_alloc(n, n);
    gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(n);
    double *t = malloc(n * c * sizeof *t);
    int st = DPA_OK;
    if (!ev || !v || !ws || !t) {
        st = dpt_fail(err, DPA_ENOMEM, "ntk: out of memory (pseudo-inverse)");
        goto done;
    }
    gsl_matrix_view kv = gsl_matrix_view_array(k, n, n);
    if (gsl_eigen_symmv(&kv.matrix, ev, v, ws) != GSL_SUCCESS) {
        st = dpt_fail(err, DPA_EACCURACY, "ntk: the eigendecomposition of Ktilde did not converge");
        goto done;
    }
    double top = gsl_vector_max(ev), tol = (double)n * fmax(top, 0.0) * 1e-12;
    /* t = V^T Y, scaled by 1/e_j (0 for the null space), then alpha = V t */
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)c, (int)n, 1.0, v->data, (int)v->tda, y, (int)c,
                0.0, t, (int)c);
    size_t r = 0;
    for (size_t j = 0; j < n; j++) {
        double e = gsl_vector_get(ev, j), s = e > tol ? 1.0 / e : 0.0;
        r += e > tol;
        for (size_t q = 0; q < c; q++) t[j * c + q] *= s;
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)c, (int)n, 1.0, v->data, (int)v->tda, t, (int)c,
                0.0, alpha, (int)c);
    *rank = r;
done:
    if (ev) gsl_vector_free(ev);
    if (v) gsl_matrix_free(v);
    if (ws) gsl_eigen_symmv_free(ws);
    free(t);
    return st;
}

/* alpha = K_lambda^-1 Y by Cholesky (the non-private baseline, Def. 3.8);
 * k is overwritten. */
static int cholesky_solve(double *k, size_t n, const double *y, size_t c, double *alpha, dpa_error *err)
{
    gsl_matrix_view kv = gsl_matrix_view_array(k, n, n);
    dpt_gsl_quiet();
    if (gsl_linalg_cholesky_decomp1(&kv.matrix) != GSL_SUCCESS)
        return dpt_fail(err, DPA_EACCURACY, "ntk: K_lambda is not numerically positive definite (raise the ridge)");
    memcpy(alpha, y, n * c * sizeof *alpha);
    gsl_matrix_view av = gsl_matrix_view_array(alpha, n, c);
    if (gsl_linalg_cholesky_svx_mat(&kv.matrix, &av.matrix) != GSL_SUCCESS)
        return dpt_fail(err, DPA_EACCURACY, "ntk: the Cholesky solve failed");
    return DPA_OK;
}

static void progress(const dpt_ntk_options *o, uint64_t done, uint64_t total)
{
    if (o->progress) o->progress(o->progress_ctx, done, total);
}

/* The privacy parameters (note 1.9, 1.10) into res from its M: k_max, the
 * paper's threshold, k, the GSM's eps, the TLap bound, the totals. */
static int account(const dpt_ntk_options *o, size_t n, size_t p, double wnorm, dpt_ntk_result *res, dpa_error *err)
{
    double B = o->row_norm, M = res->sensitivity_m;
    /* Gu et al.'s Eq. (1) as reconstructed in note 1.9 [R-lo]: k < eps^2 / (8 ln(1/delta) M^2) */
    res->samples_paper = o->epsilon_gsm * o->epsilon_gsm / (8.0 * log(1.0 / o->delta_gsm) * M * M);
    uint64_t kmax = 0;
    if (M < 1.0) {
        /* frobenius worst case, exact RDP (note 1.10 item 1), the largest k */
        int st = dpa_gsm_max_samples(M, 0, o->epsilon_gsm, o->delta_gsm, NULL, &kmax, err);
        if (st) return st;
    }
    res->samples_max = kmax;
    if (kmax == 0)
        return dpt_fail(err, DPA_EINVAL,
                        "no GSM sample count k >= 1 is (%g, %g)-DP at M = S_H/lambda = %.4g (n = %zu, ||Wbar|| = "
                        "%.4g, B = %g, beta = %g, lambda = %g): lower beta or raise the ridge",
                        o->epsilon_gsm, o->delta_gsm, M, n, wnorm, B, o->beta, o->ridge);
    if (o->samples > kmax)
        return dpt_fail(err, DPA_EINVAL, "samples: k = %llu is above the largest admissible k = %llu at M = %.4g",
                        (unsigned long long)o->samples, (unsigned long long)kmax, M);
    res->samples = o->samples ? o->samples : kmax;
    int st = dpt_event_epsilon("rdp", NULL, dpa_event_gsm_frobenius(res->samples, M, err), o->delta_gsm,
                               &res->epsilon_gsm, err);
    if (st) return st;
    /* Lemma G.1 (note 1.6, the l1 reading): the l1 sensitivity of a row in
     * R^p is sqrt(p) beta; Lemma G.2's bound A_TL. */
    st = dpa_truncated_laplace_bound(sqrt((double)p) * o->beta, o->epsilon_features, o->delta_features,
                                     &res->tlap_bound, err);
    if (st) return st;
    /* a scale that underflows would draw no noise at all */
    if (!o->features_noise_off && !(sqrt((double)p) * o->beta / o->epsilon_features >= DBL_MIN))
        return dpt_fail(err, DPA_EINVAL, "beta: %g makes the feature noise's scale sqrt(d) beta / eps underflow",
                        o->beta);
    if (o->features_noise_off) {
        res->epsilon = INFINITY;
        res->delta = 0.0;
    } else {
        /* Lemma 3.4, basic composition (note 1.7) */
        res->epsilon = res->epsilon_gsm + o->epsilon_features;
        res->delta = o->delta_gsm + o->delta_features;
    }
    return DPA_OK;
}

void dpt_ntk_free(dpt_ntk_model *m)
{
    if (!m) return;
    free(m->proj);
    free(m->wbar);
    free(m->xt);
    free(m->alpha);
    free(m);
}

int dpt_ntk_train(const dpt_dataset *train, const dpt_ntk_options *opt, dpt_ntk_model **model, dpt_ntk_result *out,
                  dpa_error *err)
{
    if (model) *model = NULL;
    if (!train || !model || !out) return dpt_fail(err, DPA_EINVAL, "ntk: a NULL argument");
    int st = check_options(opt, err);
    if (st) return st;
    size_t n = train->n, d = train->d;
    if (!n || !d || !train->x || !train->y) return dpt_fail(err, DPA_EINVAL, "ntk: the training data is empty");
    if (opt->project > d)
        return dpt_fail(err, DPA_EINVAL, "project: %zu is above the %zu features of the data", opt->project, d);
    size_t p = opt->project ? opt->project : d, m = opt->width;
    if (!fits_int(n) || !fits_int(d) || n > SIZE_MAX / sizeof(double) / n || n > SIZE_MAX / sizeof(double) / d ||
        p > SIZE_MAX / sizeof(double) / p || m > SIZE_MAX / sizeof(double) / p)
        return dpt_fail(err, DPA_EINVAL, "ntk: the data is too large (n = %zu, d = %zu)", n, d);
    for (size_t i = 0; i < n * d; i++)
        if (!isfinite(train->x[i]))
            return dpt_fail(err, DPA_EINVAL, "ntk: row %zu of the training data has a non-finite feature", i / d + 1);
    size_t C = 0;
    if ((st = check_labels(train, &C, err))) return st;
    if (n * C > SIZE_MAX / sizeof(double)) return dpt_fail(err, DPA_EINVAL, "ntk: too many classes");

    memset(out, 0, sizeof *out);
    out->n = n;
    out->classes = C;
    out->epsilon = INFINITY;
    const uint64_t stages = 6;

    dpt_ntk_model *M = calloc(1, sizeof *M);
    double *w = malloc(m * p * sizeof *w), *k = malloc(n * n * sizeof *k), *aw = malloc(n * p * sizeof *aw),
           *gram = malloc(n * n * sizeof *gram), *y = calloc(n * C, sizeof *y);
    gsl_rng *r = NULL;
    dpt_rng *rng = NULL, *owned = NULL;
    if (!M || !w || !k || !aw || !gram || !y) {
        st = dpt_fail(err, DPA_ENOMEM, "ntk: out of memory (n = %zu)", n);
        goto fail;
    }
    if ((st = dpt_run_rng(opt->rng, opt->private_ && !opt->features_noise_off, sub_seed(opt->seed, 2), "ntk", &rng,
                          &owned, err)))
        goto fail;
    M->d_in = d;
    M->p = p;
    M->n = n;
    M->classes = C;
    M->row_norm = opt->row_norm;
    M->wbar = malloc(p * p * sizeof *M->wbar);
    M->xt = malloc(n * p * sizeof *M->xt);
    M->alpha = malloc(n * C * sizeof *M->alpha);
    if (!M->wbar || !M->xt || !M->alpha) {
        st = dpt_fail(err, DPA_ENOMEM, "ntk: out of memory (n = %zu)", n);
        goto fail;
    }
    if (opt->project) {
        /* A public, data-independent Gaussian projection (entries N(0, 1/p),
         * so E||P x||^2 = ||x||^2): a per-record map applied before the row
         * scaling; beta is measured after both (dptrain.h). */
        if (!(M->proj = malloc(p * d * sizeof *M->proj))) {
            st = dpt_fail(err, DPA_ENOMEM, "ntk: out of memory (projection)");
            goto fail;
        }
        if (!(r = dpt_rng_new(sub_seed(opt->seed, 1), err))) {
            st = DPA_ENOMEM;
            goto fail;
        }
        double s = 1.0 / sqrt((double)p);
        for (size_t i = 0; i < p * d; i++) M->proj[i] = gsl_ran_gaussian_ziggurat(r, s);
        gsl_rng_free(r);
        r = NULL;
    }
    preprocess(M, train->x, n, M->xt);          /* X, rows of norm B, in R^p */
    for (size_t i = 0; i < n; i++) y[i * C + (size_t)train->y[i]] = 1.0;   /* one-hot (note 1.1, multi-class) */

    /* the neurons and Wbar (note 1.1) */
    if ((st = dpt_ntk_neurons(m, p, opt->weight_std, opt->seed, w, err))) goto fail;
    wbar_of(w, m, p, M->wbar);
    double wnorm = 0.0;
    if ((st = max_eigenvalue(M->wbar, p, &wnorm, err))) goto fail;
    /* Rounded up: S_H must not be below its true value.  The symmetric QR
     * eigensolver is backward stable, so its largest eigenvalue is off by
     * O(p u ||Wbar||) (u = 2^-53), and forming Wbar by the syrk sums adds
     * O(m u) relative; for p, m <= 10^5 both are below 2e-11, so the relative
     * margin 1e-9 covers them with room to spare. */
    out->wbar_norm = wnorm * (1.0 + 1e-9) + DBL_MIN;
    /* note 1.5 [D] point 1: |dK_in| <= 2 ||Wbar|| B^3 beta off the diagonal
     * (2(n-1) entries), |dK_nn| <= 4 ||Wbar|| B^3 beta, so ||K - K'||_F <=
     * sqrt(2(n-1) 4 + 16) ||Wbar|| B^3 beta = sqrt(8(n+1)) ||Wbar|| B^3 beta;
     * point 2: M <= S_H / lambda_min(K_lambda) <= S_H / lambda. */
    out->sensitivity_h = sqrt(8.0 * ((double)n + 1.0)) * out->wbar_norm * pow(opt->row_norm, 3.0) * opt->beta;
    out->sensitivity_m = out->sensitivity_h / opt->ridge;
    /* The accounting needs only n, p and ||Wbar||: it runs (and refuses an
     * inadmissible budget) before any of the O(n^2 d + n^3) work, so that a
     * caller's progress display starts only when the run can succeed. */
    if (opt->private_ && (st = account(opt, n, p, out->wbar_norm, out, err))) goto fail;
    progress(opt, 1, stages);

    /* K_lambda = K(X, X) + lambda I, symmetrised (the two triangles differ
     * by rounding only) */
    kernel_with_wbar(M->wbar, p, M->xt, n, M->xt, n, k, aw, gram);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++) k[i * n + j] = k[j * n + i] = 0.5 * (k[i * n + j] + k[j * n + i]);
        k[i * n + i] += opt->ridge;
    }
    progress(opt, 2, stages);

    if (!opt->private_) {
        if ((st = cholesky_solve(k, n, y, C, M->alpha, err))) goto fail;
        progress(opt, 4, stages);
    } else {
        /* Ktilde = GSM(K_lambda, k), Alg. 1 (note 1.4) into gram */
        if ((st = dpt_gsm_sample(k, n, out->samples, rng, gram, err))) goto fail;
        progress(opt, 3, stages);
        /* alpha~ = Ktilde^+ Y (note 1.7 step 4) */
        size_t rank;
        if ((st = pinv_solve(gram, n, y, C, M->alpha, &rank, err))) goto fail;
        progress(opt, 4, stages);
        if (!opt->features_noise_off) {
            /* Xtilde = X + Z, Z_ij i.i.d. TLap(sqrt(p) beta, eps_f, delta_f):
             * scale b = Delta / eps, support [-A, A] (Lemma G.2, note 1.6) */
            double b = sqrt((double)p) * opt->beta / opt->epsilon_features;
            if ((st = dpt_noise_check_scale(b, "ntk: the feature noise's Laplace scale sqrt(d) beta / eps", err)) ||
                (st = dpt_noise_check_scale(out->tlap_bound, "ntk: the feature noise's bound A", err)))
                goto fail;
            for (size_t i = 0; i < n * p; i++) M->xt[i] = dpt_noise_truncated_laplace(rng, M->xt[i], b, out->tlap_bound);
        }
        int len = snprintf(out->accounting, sizeof out->accounting,
                           "GSM: k = %llu samples (k_max %llu) at M = %.4g, eps %.4g (rdp) at delta %.3g; features: "
                           "truncated Laplace A = %.4g, eps %.4g at delta %.3g; ",
                           (unsigned long long)out->samples, (unsigned long long)out->samples_max, out->sensitivity_m,
                           out->epsilon_gsm, opt->delta_gsm, out->tlap_bound, opt->epsilon_features,
                           opt->delta_features);
        if (len > 0 && (size_t)len < sizeof out->accounting)
            snprintf(out->accounting + len, sizeof out->accounting - (size_t)len, "%s",
                     opt->features_noise_off
                         ? "features NOT noised: not private"
                         : "basic composition; beta-close adjacency, labels public");
    }
    if (!opt->private_)
        snprintf(out->accounting, sizeof out->accounting, "not private (exact kernel ridge regression)");
    dpt_accounting_note(out->accounting, sizeof out->accounting, dpt_rng_privacy_note(rng));
    progress(opt, 5, stages);

    double acc = dpt_ntk_accuracy(M, train);
    if (isnan(acc)) {
        st = dpt_fail(err, DPA_ENOMEM, "ntk: out of memory (training accuracy)");
        goto fail;
    }
    out->train_accuracy = acc;
    out->alpha_norm = cblas_dnrm2((int)(n * C), M->alpha, 1);
    progress(opt, stages, stages);
    free(w);
    free(k);
    free(aw);
    free(gram);
    free(y);
    dpt_rng_free(owned);
    *model = M;
    return DPA_OK;
fail:
    if (r) gsl_rng_free(r);
    dpt_rng_free(owned);
    free(w);
    free(k);
    free(aw);
    free(gram);
    free(y);
    dpt_ntk_free(M);
    return st;
}

/* ---- prediction ------------------------------------------------------------ */

int dpt_ntk_scores(const dpt_ntk_model *m, const double *x, size_t n, double *scores, dpa_error *err)
{
    if (!m || (!x && n) || (!scores && n)) return dpt_fail(err, DPA_EINVAL, "ntk scores: a NULL argument");
    if (!n) return DPA_OK;
    size_t bsz = n < QUERY_BLOCK ? n : QUERY_BLOCK, p = m->p, C = m->classes, N = m->n;
    double *q = malloc(bsz * p * sizeof *q), *aw = malloc(bsz * p * sizeof *aw), *kx = malloc(bsz * N * sizeof *kx),
           *gram = malloc(bsz * N * sizeof *gram);
    int st = DPA_OK;
    if (!q || !aw || !kx || !gram) {
        st = dpt_fail(err, DPA_ENOMEM, "ntk scores: out of memory");
        goto done;
    }
    for (size_t s = 0; s < n; s += bsz) {
        size_t b = n - s < bsz ? n - s : bsz;
        for (size_t i = 0; i < b * m->d_in; i++)
            if (!isfinite(x[s * m->d_in + i])) {
                st = dpt_fail(err, DPA_EINVAL, "ntk scores: row %zu has a non-finite feature", s + i / m->d_in + 1);
                goto done;
            }
        preprocess(m, x + s * m->d_in, b, q);
        /* f~(x) = K(x, Xtilde)^T alpha~ (note 1.7 step 6) */
        kernel_with_wbar(m->wbar, p, q, b, m->xt, N, kx, aw, gram);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)b, (int)C, (int)N, 1.0, kx, (int)N, m->alpha,
                    (int)C, 0.0, scores + s * C, (int)C);
    }
done:
    free(q);
    free(aw);
    free(kx);
    free(gram);
    return st;
}

double dpt_ntk_accuracy(const dpt_ntk_model *m, const dpt_dataset *data)
{
    if (!m || !data || data->d != m->d_in) return NAN;
    if (!data->n) return NAN;
    size_t C = m->classes;
    if (data->n > SIZE_MAX / sizeof(double) / C) return NAN;
    double *s = malloc(data->n * C * sizeof *s);
    if (!s) return NAN;
    if (dpt_ntk_scores(m, data->x, data->n, s, NULL)) {
        free(s);
        return NAN;
    }
    size_t right = 0;
    for (size_t i = 0; i < data->n; i++) {
        const double *row = s + i * C;
        size_t best = 0;
        for (size_t c = 1; c < C; c++)
            if (row[c] > row[best]) best = c;
        double y = data->y[i];
        if (y >= 0.0 && y == floor(y) && y < (double)C && (size_t)y == best) right++;
    }
    free(s);
    return (double)right / (double)data->n;
}
