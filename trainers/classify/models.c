/*
 * models.c - the classification models of Koskela, "Approximating
 * Two-Layer ReLU Networks for Hidden State Analysis in Differential
 * Privacy" (arXiv 2024): multinomial logistic regression, the gated-ReLU
 * convex model and the one-hidden-layer ReLU network, each with the softmax
 * cross-entropy, its per-example clipped gradient sum and the smoothness
 * bound NoisyCGD's hidden-state accounting needs.
 *
 * References are to ../shared/notes/noisycgd-seed-001.md ("the note"):
 * A1 (the random gates), A2 (the convex model's loss), A3-A4 (per-example
 * clipping of the whole flattened gradient), 5 item 5 (the corrected
 * smoothness) and its last paragraph (closed-form per-example norms).
 *
 * Every gradient here is a sum of outer products, so a block of examples is
 * handled by a few matrix products (CBLAS through GSL's interface) and each
 * example's gradient norm by a closed form; no per-example gradient is ever
 * materialised.  Batches are cut into blocks of BLOCK examples so that the
 * workspace does not grow with the batch.
 */
#include <config.h>

#include "dpt_internal.h"

#include <gsl/gsl_cblas.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Examples per matrix product: large enough for BLAS to run at speed,
 * small enough that the workspace (BLOCK x max(d, K, P, W) doubles a
 * buffer, BLOCK x P K for the convex model's products) stays a few
 * megabytes for image-sized inputs.  The convex model's products (784 x
 * 640 at Fashion-MNIST's d and P = 64, up to P = 256) ran no faster per row
 * with blocks of 256, 512 or 1024 rows (tests/bench, OpenBLAS). */
enum { BLOCK = 128 };

struct dpt_model {
    dpt_model_spec spec;
    size_t d, K;
    size_t hidden;       /* P (convex), W (ReLU), 0 (softmax) */
    size_t size;         /* parameters */
    double *params;
    double *gates;       /* convex: u_1..u_P, P x d row-major */
};

/* ---- construction ------------------------------------------------------------ */

/* a * b + c into *out; 0 when it overflows size_t. */
static int size_muladd(size_t a, size_t b, size_t c, size_t *out)
{
    if (b && a > (SIZE_MAX - c) / b) return 0;
    *out = a * b + c;
    return 1;
}

/* The parameter count of the spec's layout (dptrain.h); 0 when it
 * overflows, or when the doubles would not be addressable. */
static size_t param_count(const dpt_model_spec *spec, size_t d)
{
    size_t K = spec->classes, n = 0, t;
    switch (spec->kind) {
    case DPT_MODEL_SOFTMAX:        /* W (K x d), b (K) */
        if (!size_muladd(K, d, K, &n)) return 0;
        break;
    case DPT_MODEL_CONVEX:         /* v (P x d x K) */
        if (!size_muladd(spec->hyperplanes, d, 0, &t) || !size_muladd(t, K, 0, &n)) return 0;
        break;
    case DPT_MODEL_RELU:           /* U (W x d), b1 (W), A (K x W), b2 (K) */
        if (!size_muladd(spec->width, d + 1, 0, &t) || !size_muladd(K, spec->width + 1, t, &n)) return 0;
        break;
    }
    return n <= SIZE_MAX / sizeof(double) ? n : 0;
}

/* P (convex), W (ReLU) or 0 (softmax). */
static size_t hidden_units(const dpt_model_spec *spec)
{
    return spec->kind == DPT_MODEL_CONVEX ? spec->hyperplanes : spec->kind == DPT_MODEL_RELU ? spec->width : 0;
}

/* The spec's fields for its kind; CBLAS takes int dimensions, so every
 * dimension must fit one. */
static int check_spec(const dpt_model_spec *spec, size_t d, dpa_error *err)
{
    if (spec->kind != DPT_MODEL_SOFTMAX && spec->kind != DPT_MODEL_CONVEX && spec->kind != DPT_MODEL_RELU)
        return dpt_fail(err, DPA_EINVAL, "model: unknown kind %d", (int)spec->kind);
    if (d < 1) return dpt_fail(err, DPA_EINVAL, "model: the input dimension d must be at least 1");
    if (spec->classes < 2)
        return dpt_fail(err, DPA_EINVAL, "model: classes must be at least 2, got %zu", spec->classes);
    if (spec->kind == DPT_MODEL_CONVEX && spec->hyperplanes < 1)
        return dpt_fail(err, DPA_EINVAL, "model: hyperplanes must be at least 1 for the convex model");
    if (spec->kind == DPT_MODEL_RELU && spec->width < 1)
        return dpt_fail(err, DPA_EINVAL, "model: width must be at least 1 for the ReLU network");
    size_t hidden = hidden_units(spec);
    if (d > INT_MAX || spec->classes > INT_MAX || hidden > INT_MAX)
        return dpt_fail(err, DPA_EINVAL, "model: a dimension exceeds %d (d = %zu, classes = %zu, hidden = %zu)",
                        INT_MAX, d, spec->classes, hidden);
    size_t count = param_count(spec, d);
    if (!count)
        return dpt_fail(err, DPA_EINVAL, "model: the parameter count overflows (d = %zu, classes = %zu, hidden = %zu)",
                        d, spec->classes, hidden);
    /* the trainers hand the whole parameter vector to CBLAS (int lengths) */
    if (count > INT_MAX)
        return dpt_fail(err, DPA_EINVAL, "model: %zu parameters exceed %d (d = %zu, classes = %zu, hidden = %zu)",
                        count, INT_MAX, d, spec->classes, hidden);
    return DPA_OK;
}

/* The data-independent random parts, drawn from mt19937(seed): the convex
 * model's gates u_i ~ N(0, I_d) (the note A1 item 1), the ReLU network's
 * He-style U ~ N(0, 2/d) and A ~ N(0, 1/W).  Softmax and convex weights
 * start at 0, as the authors' code does. */
static int draw_random_parts(dpt_model *m, dpa_error *err)
{
    if (m->spec.kind == DPT_MODEL_SOFTMAX) return DPA_OK;
    gsl_rng *r = dpt_rng_new(m->spec.seed, err);
    if (!r) return DPA_ENOMEM;
    size_t d = m->d, H = m->hidden;
    if (m->spec.kind == DPT_MODEL_CONVEX) {
        for (size_t k = 0; k < H * d; k++) m->gates[k] = gsl_ran_gaussian(r, 1.0);
    } else {
        double *U = m->params, *A = m->params + H * d + H;
        for (size_t k = 0; k < H * d; k++) U[k] = gsl_ran_gaussian(r, sqrt(2.0 / (double)d));
        for (size_t k = 0; k < m->K * H; k++) A[k] = gsl_ran_gaussian(r, sqrt(1.0 / (double)H));
    }
    gsl_rng_free(r);
    return DPA_OK;
}

int dpt_model_new(const dpt_model_spec *spec, size_t d, dpt_model **out, dpa_error *err)
{
    if (!out) return dpt_fail(err, DPA_EINVAL, "model: NULL output");
    *out = NULL;
    if (!spec) return dpt_fail(err, DPA_EINVAL, "model: NULL spec");
    int status = check_spec(spec, d, err);
    if (status != DPA_OK) return status;
    dpt_model *m = calloc(1, sizeof *m);
    if (!m) return dpt_fail(err, DPA_ENOMEM, "model: cannot allocate the model");
    m->spec = *spec;
    m->d = d;
    m->K = spec->classes;
    m->hidden = hidden_units(spec);
    m->size = param_count(spec, d);
    m->params = calloc(m->size, sizeof *m->params);
    /* P d <= P d K, which fitted */
    if (spec->kind == DPT_MODEL_CONVEX) m->gates = malloc(m->hidden * d * sizeof *m->gates);
    if (!m->params || (spec->kind == DPT_MODEL_CONVEX && !m->gates)) {
        size_t size = m->size;
        dpt_model_free(m);
        return dpt_fail(err, DPA_ENOMEM, "model: cannot allocate %zu parameters", size);
    }
    status = draw_random_parts(m, err);
    if (status != DPA_OK) {
        dpt_model_free(m);
        return status;
    }
    *out = m;
    return DPA_OK;
}

void dpt_model_free(dpt_model *m)
{
    if (!m) return;
    free(m->params);
    free(m->gates);
    free(m);
}

size_t dpt_model_size(const dpt_model *m) { return m ? m->size : 0; }

double *dpt_model_params(dpt_model *m) { return m ? m->params : NULL; }

const dpt_model_spec *dpt_model_get_spec(const dpt_model *m) { return m ? &m->spec : NULL; }

/* ---- workspace ------------------------------------------------------------------ */

/* Per call, not per model, so that one model can be used from several
 * threads at once. */
typedef struct {
    double *x;      /* BLOCK x d: the batch's examples, gathered */
    double *z;      /* BLOCK x K: logits, then the residuals p - e_y, then clipped */
    double *h;      /* BLOCK x hidden: the convex gates a_i(x) / the ReLU activations h */
    double *t;      /* BLOCK x max(K, W) / BLOCK x P K (convex): the products X V_i of every
                     * gate side by side, then the gated residuals / the ReLU layer's g */
    double *c;      /* BLOCK: the norms, then the clip factors */
    double *ones;   /* BLOCK: for the bias gradients, sums of rows as a product */
    double *vt;     /* convex, for the logits: d x P K, column (i, c) = V_i[:, c] */
    double *gv;     /* convex, for the gradient: d x P K, the sum of the blocks' X^T R~ */
    int gv_set;     /* whether a block has written gv yet */
} work;

/* What a workspace is for: the convex model's d x P K copies are made only
 * where they are used. */
typedef enum { WORK_GATES, WORK_LOGITS, WORK_GRADIENT } work_use;

static void work_free(work *w)
{
    free(w->x);
    free(w->vt);
    free(w->gv);
}

/* The convex parameters, P blocks V_i of d x K (dptrain.h's layout), as
 * the one d x P K matrix [V_1 ... V_P], so that X times it gives every
 * gate's product in one matrix multiplication: P products of K = 10
 * columns each run BLAS far below its speed, one of P K columns does not. */
static void convex_side_by_side(const dpt_model *m, double *vt)
{
    size_t d = m->d, K = m->K, PK = m->hidden * m->K;
    for (size_t i = 0; i < m->hidden; i++)
        for (size_t j = 0; j < d; j++) memcpy(vt + j * PK + i * K, m->params + (i * d + j) * K, K * sizeof *vt);
}

static int work_alloc(const dpt_model *m, work *w, work_use use, dpa_error *err)
{
    memset(w, 0, sizeof *w);
    int convex = m->spec.kind == DPT_MODEL_CONVEX;
    /* P K <= the parameter count, which fits an int (check_spec) */
    size_t wide = convex && use != WORK_GATES ? m->hidden * m->K : m->K > m->hidden ? m->K : m->hidden;
    /* each dimension is at most INT_MAX (check_spec), so this cannot overflow
     * a 64-bit size_t; the check is for 32-bit ones */
    size_t per_row = m->d + m->K + m->hidden + wide + 2;
    if (per_row > SIZE_MAX / BLOCK / sizeof(double))
        return dpt_fail(err, DPA_ENOMEM, "model: the workspace of %d x %zu doubles is too large", BLOCK, per_row);
    double *mem = malloc((size_t)BLOCK * per_row * sizeof *mem);
    if (!mem)
        return dpt_fail(err, DPA_ENOMEM, "model: cannot allocate a workspace of %d x %zu doubles", BLOCK, per_row);
    w->x = mem;
    w->z = w->x + (size_t)BLOCK * m->d;
    w->h = w->z + (size_t)BLOCK * m->K;
    w->t = w->h + (size_t)BLOCK * m->hidden;
    w->c = w->t + (size_t)BLOCK * wide;
    w->ones = w->c + BLOCK;
    for (int r = 0; r < BLOCK; r++) w->ones[r] = 1.0;
    if (!convex || use == WORK_GATES) return DPA_OK;
    /* d P K = the parameter count: no overflow (check_spec) */
    w->vt = malloc(m->size * sizeof *w->vt);
    /* not calloc: the first block writes gv (gv_set), and a product reading
     * calloc's fresh zero pages before writing them costs each page a
     * copy-on-write fault and a TLB flush of every thread's CPU */
    if (use == WORK_GRADIENT) w->gv = malloc(m->size * sizeof *w->gv);
    if (!w->vt || (use == WORK_GRADIENT && !w->gv)) {
        work_free(w);
        return dpt_fail(err, DPA_ENOMEM, "model: cannot allocate a workspace of %zu doubles for the convex model",
                        m->size);
    }
    convex_side_by_side(m, w->vt);
    return DPA_OK;
}

/* ---- forward ------------------------------------------------------------------- */

/* Every row of the n x cols matrix M set to v. */
static void fill_rows(double *M, int n, const double *v, int cols)
{
    for (int r = 0; r < n; r++) memcpy(M + (size_t)r * (size_t)cols, v, (size_t)cols * sizeof *v);
}

/* G (n x P) = a_i(x) for the n rows of X: one product X U^T, then the
 * indicator with >= (the note A1 item 2 and 5 item 11). */
static void convex_gates(const dpt_model *m, const double *X, int n, double *G)
{
    int d = (int)m->d, P = (int)m->hidden;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, P, d, 1.0, X, d, m->gates, d, 0.0, G, P);
    for (size_t k = 0; k < (size_t)n * (size_t)P; k++) G[k] = G[k] >= 0.0 ? 1.0 : 0.0;
}

/* Z = X W^T + b. */
static void softmax_forward(const dpt_model *m, const double *X, int n, double *Z)
{
    int d = (int)m->d, K = (int)m->K;
    fill_rows(Z, n, m->params + m->K * m->d, K);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, K, d, 1.0, X, d, m->params, d, 1.0, Z, K);
}

/* Z = sum_i diag(a_i) X V_i: T = X [V_1 ... V_P] (n x P K, w->vt) in one
 * product, then each row's sum of its active gates' K columns.  An
 * inactive gate's columns are skipped, not multiplied by 0, so that they
 * add nothing even when not finite. */
static void convex_forward(const dpt_model *m, const double *X, int n, double *Z, work *w)
{
    int d = (int)m->d, PK = (int)(m->hidden * m->K);
    size_t K = m->K, P = m->hidden;
    convex_gates(m, X, n, w->h);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, PK, d, 1.0, X, d, w->vt, PK, 0.0, w->t, PK);
    for (size_t r = 0; r < (size_t)n; r++) {
        double *z = Z + r * K;
        const double *t = w->t + r * P * K, *a = w->h + r * P;
        memset(z, 0, K * sizeof *z);
        for (size_t i = 0; i < P; i++)
            if (a[i] != 0.0)
                for (size_t c = 0; c < K; c++) z[c] += t[i * K + c];
    }
}

/* H = ReLU(X U^T + b1) into w->h, Z = H A^T + b2.  H > 0 exactly where the
 * pre-activation is, so H is also the backward pass's mask. */
static void relu_forward(const dpt_model *m, const double *X, int n, double *Z, work *w)
{
    int d = (int)m->d, K = (int)m->K, W = (int)m->hidden;
    const double *U = m->params, *b1 = U + m->hidden * m->d, *A = b1 + m->hidden, *b2 = A + m->K * m->hidden;
    fill_rows(w->h, n, b1, W);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, W, d, 1.0, X, d, U, d, 1.0, w->h, W);
    for (size_t k = 0; k < (size_t)n * (size_t)W; k++) w->h[k] = w->h[k] > 0.0 ? w->h[k] : 0.0;
    fill_rows(Z, n, b2, K);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, K, W, 1.0, w->h, W, A, W, 1.0, Z, K);
}

/* The logits Z (n x K) of the n <= BLOCK rows of X. */
static void forward(const dpt_model *m, const double *X, int n, double *Z, work *w)
{
    switch (m->spec.kind) {
    case DPT_MODEL_SOFTMAX: softmax_forward(m, X, n, Z); break;
    case DPT_MODEL_CONVEX: convex_forward(m, X, n, Z, w); break;
    case DPT_MODEL_RELU: relu_forward(m, X, n, Z, w); break;
    }
}

void dpt_model_logits(const dpt_model *m, const double *x, size_t n, double *logits)
{
    if (!m || !x || !logits || n == 0) return;
    work w;
    if (work_alloc(m, &w, WORK_LOGITS, NULL) != DPA_OK) {
        /* no status to return: NaN logits cannot be mistaken for results */
        for (size_t k = 0; k < n * m->K; k++) logits[k] = NAN;
        return;
    }
    for (size_t r0 = 0; r0 < n; r0 += BLOCK) {
        int nb = (int)(n - r0 < BLOCK ? n - r0 : BLOCK);
        forward(m, x + r0 * m->d, nb, logits + r0 * m->K, &w);
    }
    work_free(&w);
}

/* ---- the loss ------------------------------------------------------------------ */

/* Turns the logits z (K) into the residual p - e_y and returns the
 * cross-entropy logsumexp(z) - z_y; *argmax gets the first largest logit.
 * With z* the largest logit and s = sum over the others of e^(z_c - z*),
 * logsumexp = z* + log1p(s): nothing overflows, and a confident prediction
 * keeps its tiny loss to full relative precision.  p_y - 1 is taken as
 * -(sum of the other p_c), which does not cancel when p_y is near 1. */
static double softmax_residual(double *z, size_t K, size_t y, size_t *argmax)
{
    size_t top = 0;
    for (size_t c = 1; c < K; c++)
        if (z[c] > z[top]) top = c;
    double zmax = z[top], s = 0.0;
    for (size_t c = 0; c < K; c++)
        if (c != top) s += exp(z[c] - zmax);
    double loss = (zmax - z[y]) + log1p(s), others = 0.0;
    for (size_t c = 0; c < K; c++) {
        z[c] = c == top ? 1.0 / (1.0 + s) : exp(z[c] - zmax) / (1.0 + s);
        if (c != y) others += z[c];
    }
    z[y] = -others;
    *argmax = top;
    return loss;
}

/* ---- validation ----------------------------------------------------------------- */

static int check_label(const dpt_model *m, double y, size_t row, dpa_error *err)
{
    if (!(y >= 0.0 && y < (double)m->K && y == floor(y)))
        return dpt_fail(err, DPA_EINVAL, "model: row %zu has label %g, not a class in 0..%zu", row, y, m->K - 1);
    return DPA_OK;
}

static int check_data(const dpt_model *m, const dpt_dataset *data, dpa_error *err)
{
    if (!data || !data->x || !data->y || data->n == 0) return dpt_fail(err, DPA_EINVAL, "model: the dataset is empty");
    if (data->d != m->d)
        return dpt_fail(err, DPA_EINVAL, "model: the data have d = %zu features, the model takes %zu", data->d, m->d);
    return DPA_OK;
}

int dpt_model_check_labels(const dpt_model *m, const dpt_dataset *data, dpa_error *err)
{
    if (!m) return dpt_fail(err, DPA_EINVAL, "model: NULL model");
    int st = check_data(m, data, err);
    for (size_t i = 0; !st && i < data->n; i++) st = check_label(m, data->y[i], i + 1, err);
    return st;
}

/* Everything the gradient sum reads, checked before grad is touched, so
 * that a refused batch leaves it as it was. */
static int check_batch(const dpt_model *m, const dpt_dataset *data, const size_t *rows, size_t b, double clip,
                       const double *grad, dpa_error *err)
{
    if (!m) return dpt_fail(err, DPA_EINVAL, "model: NULL model");
    int status = check_data(m, data, err);
    if (status != DPA_OK) return status;
    if (!grad || (b && !rows)) return dpt_fail(err, DPA_EINVAL, "model: NULL %s", grad ? "rows" : "gradient");
    if (!(clip > 0.0)) return dpt_fail(err, DPA_EINVAL, "model: the clip must be positive, got %g", clip);
    for (size_t k = 0; k < b; k++) {
        if (rows[k] >= data->n)
            return dpt_fail(err, DPA_EINVAL, "model: rows[%zu] = %zu is not one of the %zu examples", k, rows[k],
                            data->n);
        status = check_label(m, data->y[rows[k]], rows[k], err);
        if (status != DPA_OK) return status;
    }
    return DPA_OK;
}

/* ---- per-example norms and the clipped sum ----------------------------------- */

/* The unclipped gradient norms of the n examples into w->c, from the
 * residuals R = w->z; the ReLU network's hidden-layer g into w->t.
 * Softmax and convex: the gradient is phi(x) (p - e_y)^T, so the norm is
 * |phi(x)| |p - e_y|, |phi|^2 = |x|^2 + 1 or s(x) |x|^2 (the note's last
 * paragraph).  ReLU: dA = delta h^T, db2 = delta, dU = g x^T, db1 = g with
 * g = (A^T delta) .* 1[h > 0], so norm^2 = |delta|^2 (|h|^2 + 1) +
 * |g|^2 (|x|^2 + 1).  dnrm2 and hypot keep large inputs from overflowing. */
static void example_norms(const dpt_model *m, int n, work *w)
{
    int d = (int)m->d, K = (int)m->K, H = (int)m->hidden;
    if (m->spec.kind == DPT_MODEL_RELU) {
        const double *A = m->params + m->hidden * m->d + m->hidden;
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, H, K, 1.0, w->z, K, A, H, 0.0, w->t, H);
        for (size_t k = 0; k < (size_t)n * (size_t)H; k++)
            if (!(w->h[k] > 0.0)) w->t[k] = 0.0;
    }
    for (int r = 0; r < n; r++) {
        double xn = cblas_dnrm2(d, w->x + (size_t)r * m->d, 1), rn = cblas_dnrm2(K, w->z + (size_t)r * m->K, 1);
        const double *h = w->h + (size_t)r * m->hidden;
        switch (m->spec.kind) {
        case DPT_MODEL_SOFTMAX: w->c[r] = rn * hypot(xn, 1.0); break;
        case DPT_MODEL_CONVEX: w->c[r] = rn * xn * sqrt(cblas_dasum(H, h, 1)); break;
        case DPT_MODEL_RELU:
            w->c[r] = hypot(rn * hypot(cblas_dnrm2(H, h, 1), 1.0),
                            cblas_dnrm2(H, w->t + (size_t)r * m->hidden, 1) * hypot(xn, 1.0));
            break;
        }
    }
}

/* The clip factors min(1, clip / norm) in place of the norms (norm 0 or a
 * clip of INFINITY: 1), applied to each example's residual (and g). */
static void clip_rows(const dpt_model *m, int n, double clip, work *w)
{
    for (int r = 0; r < n; r++) {
        double f = w->c[r] > clip ? clip / w->c[r] : 1.0;
        w->c[r] = f;
        if (f == 1.0) continue;
        cblas_dscal((int)m->K, f, w->z + (size_t)r * m->K, 1);
        if (m->spec.kind == DPT_MODEL_RELU) cblas_dscal((int)m->hidden, f, w->t + (size_t)r * m->hidden, 1);
    }
}

/* grad += the sum of the n clipped gradients: with the residuals R already
 * scaled by their clip factors, each block of the gradient is one product
 * (a bias's is R^T 1).  The convex model's goes to w->gv, added into grad
 * by convex_add_gradient once the batch is done. */
static void accumulate(const dpt_model *m, int n, work *w, double *grad)
{
    int d = (int)m->d, K = (int)m->K, H = (int)m->hidden;
    switch (m->spec.kind) {
    case DPT_MODEL_SOFTMAX:      /* dW = R^T X, db = R^T 1 */
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, K, d, n, 1.0, w->z, K, w->x, d, 1.0, grad, d);
        cblas_dgemv(CblasRowMajor, CblasTrans, n, K, 1.0, w->z, K, w->ones, 1, 1.0, grad + m->K * m->d, 1);
        break;
    case DPT_MODEL_CONVEX: {     /* [dV_1 ... dV_P] = X^T R~, R~ = [diag(a_1) R ... diag(a_P) R] */
        int PK = H * K;
        for (size_t r = 0; r < (size_t)n; r++) {
            const double *a = w->h + r * m->hidden, *z = w->z + r * m->K;
            double *t = w->t + r * m->hidden * m->K;
            for (size_t i = 0; i < m->hidden; i++)
                for (size_t c = 0; c < m->K; c++) t[i * m->K + c] = a[i] * z[c];
        }
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, d, PK, n, 1.0, w->x, d, w->t, PK, w->gv_set ? 1.0 : 0.0,
                    w->gv, PK);
        w->gv_set = 1;
        break;
    }
    case DPT_MODEL_RELU: {       /* dU = G^T X, db1 = G^T 1, dA = R^T H, db2 = R^T 1 */
        double *gU = grad, *gb1 = gU + m->hidden * m->d, *gA = gb1 + m->hidden, *gb2 = gA + m->K * m->hidden;
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, H, d, n, 1.0, w->t, H, w->x, d, 1.0, gU, d);
        cblas_dgemv(CblasRowMajor, CblasTrans, n, H, 1.0, w->t, H, w->ones, 1, 1.0, gb1, 1);
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, K, H, n, 1.0, w->z, K, w->h, H, 1.0, gA, H);
        cblas_dgemv(CblasRowMajor, CblasTrans, n, K, 1.0, w->z, K, w->ones, 1, 1.0, gb2, 1);
        break;
    }
    }
}

/* grad += w->gv, the convex gradient [dV_1 ... dV_P] (d x P K), in
 * dptrain.h's layout of P blocks of d x K. */
static void convex_add_gradient(const dpt_model *m, const work *w, double *grad)
{
    size_t d = m->d, K = m->K, PK = m->hidden * m->K;
    for (size_t i = 0; i < m->hidden; i++)
        for (size_t j = 0; j < d; j++) {
            double *g = grad + (i * d + j) * K;
            const double *s = w->gv + j * PK + i * K;
            for (size_t c = 0; c < K; c++) g[c] += s[c];
        }
}

/* One block of the batch: rows[0..n-1] gathered, forward, residuals,
 * norms, clipping, accumulation; returns the block's summed loss. */
static double block_grad(const dpt_model *m, const dpt_dataset *data, const size_t *rows, int n, double clip,
                         double *grad, double *norms, work *w)
{
    for (int r = 0; r < n; r++) memcpy(w->x + (size_t)r * m->d, data->x + rows[r] * m->d, m->d * sizeof *w->x);
    forward(m, w->x, n, w->z, w);
    double loss = 0.0;
    size_t top;
    for (int r = 0; r < n; r++) loss += softmax_residual(w->z + (size_t)r * m->K, m->K, (size_t)data->y[rows[r]], &top);
    example_norms(m, n, w);
    if (norms) memcpy(norms, w->c, (size_t)n * sizeof *norms);
    clip_rows(m, n, clip, w);
    accumulate(m, n, w, grad);
    return loss;
}

double dpt_model_clipped_grad_sum(const dpt_model *m, const dpt_dataset *data, const size_t *rows, size_t b, double clip,
                                  double *grad, double *norms, dpa_error *err)
{
    work w;
    if (check_batch(m, data, rows, b, clip, grad, err) != DPA_OK || work_alloc(m, &w, WORK_GRADIENT, err) != DPA_OK)
        return NAN;
    double loss = 0.0;
    for (size_t r0 = 0; r0 < b; r0 += BLOCK) {
        int nb = (int)(b - r0 < BLOCK ? b - r0 : BLOCK);
        loss += block_grad(m, data, rows + r0, nb, clip, grad, norms ? norms + r0 : NULL, &w);
    }
    if (w.gv_set) convex_add_gradient(m, &w, grad);
    work_free(&w);
    return loss;
}

/* ---- evaluation and smoothness ------------------------------------------------ */

/* The summed cross-entropy and count of correct argmaxes over the data. */
static int evaluate_sums(const dpt_model *m, const dpt_dataset *data, double *loss, double *hits)
{
    work w;
    if (!m || check_data(m, data, NULL) != DPA_OK) return DPA_EINVAL;
    for (size_t k = 0; k < data->n; k++)
        if (check_label(m, data->y[k], k, NULL) != DPA_OK) return DPA_EINVAL;
    if (work_alloc(m, &w, WORK_LOGITS, NULL) != DPA_OK) return DPA_ENOMEM;
    *loss = *hits = 0.0;
    for (size_t r0 = 0; r0 < data->n; r0 += BLOCK) {
        int nb = (int)(data->n - r0 < BLOCK ? data->n - r0 : BLOCK);
        forward(m, data->x + r0 * m->d, nb, w.z, &w);
        for (int r = 0; r < nb; r++) {
            size_t y = (size_t)data->y[r0 + (size_t)r], top;
            *loss += softmax_residual(w.z + (size_t)r * m->K, m->K, y, &top);
            *hits += top == y;
        }
    }
    work_free(&w);
    return DPA_OK;
}

/* No status to return: a refused dataset gives NaN for both. */
void dpt_model_evaluate(const dpt_model *m, const dpt_dataset *data, double *loss, double *accuracy)
{
    double sum, hits;
    int ok = evaluate_sums(m, data, &sum, &hits) == DPA_OK;
    if (loss) *loss = ok ? sum / (double)data->n : NAN;
    if (accuracy) *accuracy = ok ? hits / (double)data->n : NAN;
}

/* 1/2 max over the data of |phi(x)|^2: the Hessian of one example's
 * cross-entropy is (diag(p) - p p^T) (x) phi phi^T, whose first factor has
 * norm <= 1/2.  For the convex model |phi|^2 = s(x) |x|^2, not the
 * block-diagonal bound of Koskela's Lemma 3.2 (the note 5 item 5). */
double dpt_model_smoothness(const dpt_model *m, const dpt_dataset *data)
{
    if (!m || m->spec.kind == DPT_MODEL_RELU || check_data(m, data, NULL) != DPA_OK) return NAN;
    work w;
    if (work_alloc(m, &w, WORK_GATES, NULL) != DPA_OK) return NAN;
    double best = 0.0;
    for (size_t r0 = 0; r0 < data->n; r0 += BLOCK) {
        int nb = (int)(data->n - r0 < BLOCK ? data->n - r0 : BLOCK);
        const double *X = data->x + r0 * m->d;
        if (m->spec.kind == DPT_MODEL_CONVEX) convex_gates(m, X, nb, w.h);
        for (int r = 0; r < nb; r++) {
            double xn = cblas_dnrm2((int)m->d, X + (size_t)r * m->d, 1);
            double phi2 = m->spec.kind == DPT_MODEL_SOFTMAX
                              ? xn * xn + 1.0
                              : cblas_dasum((int)m->hidden, w.h + (size_t)r * m->hidden, 1) * xn * xn;
            if (phi2 > best) best = phi2;
        }
    }
    work_free(&w);
    return 0.5 * best;
}

int dpt_model_bound_smoothness(const dpt_model *m, dpt_dataset *data, double beta, dpa_error *err)
{
    if (!m || !data) return dpt_fail(err, DPA_EINVAL, "dptrain: smoothness bound: model or data is NULL");
    if (m->spec.kind == DPT_MODEL_RELU)
        return dpt_fail(err, DPA_EINVAL, "dptrain: the ReLU network is not convex: no smoothness bound applies");
    int st = check_data(m, data, err);
    if (st) return st;
    double floor_phi2 = m->spec.kind == DPT_MODEL_SOFTMAX ? 1.0 : 0.0;   /* the bias's share of |phi|^2 */
    if (!(isfinite(beta) && 2.0 * beta > floor_phi2))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the smoothness bound beta must be finite and above %g for the %s "
                        "model, got %g", 0.5 * floor_phi2, m->spec.kind == DPT_MODEL_SOFTMAX ? "softmax" : "convex",
                        beta);
    work w;
    if ((st = work_alloc(m, &w, WORK_GATES, err))) return st;
    for (size_t r0 = 0; r0 < data->n; r0 += BLOCK) {
        int nb = (int)(data->n - r0 < BLOCK ? data->n - r0 : BLOCK);
        double *X = data->x + r0 * m->d;
        if (m->spec.kind == DPT_MODEL_CONVEX) convex_gates(m, X, nb, w.h);
        for (int r = 0; r < nb; r++) {
            double *x = X + (size_t)r * m->d;
            double xn = cblas_dnrm2((int)m->d, x, 1);
            /* |phi(x)|^2 = c |x|^2 + floor, c = 1 (softmax) or the active
             * gates s(x) (convex; unchanged by a positive scaling of x) */
            double c = m->spec.kind == DPT_MODEL_SOFTMAX ? 1.0 : cblas_dasum((int)m->hidden, w.h + (size_t)r * m->hidden, 1);
            double phi2 = c * xn * xn + floor_phi2;
            if (!(0.5 * phi2 > beta)) continue;
            /* scaled to just inside: c |s x|^2 = 2 beta - floor, less a
             * relative 2^-40 for the roundings of the norm and products */
            double scale = sqrt((2.0 * beta - floor_phi2) / (c * xn * xn)) * (1.0 - 0x1p-40);
            cblas_dscal((int)m->d, scale, x, 1);
        }
    }
    work_free(&w);
    return DPA_OK;
}
