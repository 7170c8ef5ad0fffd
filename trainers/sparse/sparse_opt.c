/*
 * sparse_opt.c - DP optimisation with sparse gradients (Ghazi, Guzman,
 * Kamath, Kumar & Manurangsi, NeurIPS 2024; the note
 * ../shared/notes/ntk-sparse-seeds-002-004.md, sections 2.4-2.6):
 *
 *   dpt_sparse_erm   output perturbation of the l2-regularised logistic ERM
 *                    minimiser, then Euclidean projection onto the l1 ball
 *                    of radius L sqrt(s) / lambda (note 2.4), or the dense
 *                    baseline without the projection;
 *   dpt_sparse_sgd   the bias-reduced (multilevel Monte Carlo, Blanchet &
 *                    Glynn 2015) DP-SGD of note 2.5, its per-step privacy
 *                    cost random through the level N, run under a GDP
 *                    privacy filter (Smith & Thakurta 2022; Whitehouse,
 *                    Ramdas, Rogers & Wu 2023) until the first step the
 *                    filter refuses; or plain noisy minibatch SGD (the dense
 *                    baseline) under the same filter.
 *
 * The loss is logistic on labels +-1, f(w; x, y) = ln(1 + e^-(y x.w)): its
 * gradient -y sigma(-y x.w) x is a multiple of x, so it is as sparse as the
 * row (||grad f||_0 <= s, note 2.1, 004:L20) and ||grad f||_2 <= ||x||_2 <=
 * L; its second derivative in the margin is at most 1/4, so f is H-smooth
 * with H = L^2 / 4.
 *
 * All the work is done on a compressed-row copy of the data (the rows are
 * s-sparse), so a pass costs O(n s), not O(n d).
 */
#include <config.h>

#include "dpt_internal.h"

#include <gsl/gsl_cblas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_vector.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the rows in compressed form -------------------------------------------- */

typedef struct {
    size_t n, d;
    size_t *start;       /* n + 1 offsets into col / val */
    size_t *col;
    double *val;
    const double *y;
    size_t s;            /* the sparsity bound used */
    double L;            /* the norm bound used: max(given L, largest row norm) */
} csr;

static void csr_free(csr *c)
{
    free(c->start);
    free(c->col);
    free(c->val);
    memset(c, 0, sizeof *c);
}

/* Checks every row (finite, label +-1, at most `s` nonzeros when s > 0,
 * norm at most `L` when L > 0: a row above is refused by name, since the
 * bounds are the sensitivities) and builds the compressed copy.  s = 0 or
 * L = 0: the largest over the rows (the caller then treats the data's own
 * bound as public, as documented in dptrain.h).  A row of norm within
 * rounding (1e-12 relative) of L is accepted and the bound used is raised to
 * that row's norm, so the guarantee holds for the data as stored. */
static int csr_build(const dpt_dataset *ds, size_t s, double L, const char *who, csr *out, dpa_error *err)
{
    memset(out, 0, sizeof *out);
    if (!ds || !ds->x || !ds->y || ds->n == 0 || ds->d == 0)
        return dpt_fail(err, DPA_EINVAL, "dptrain: %s: the training data are empty", who);
    size_t n = ds->n, d = ds->d, nnz = 0, smax = 0;
    /* CBLAS takes the dimension as an int */
    if (d > INT_MAX) return dpt_fail(err, DPA_EINVAL, "dptrain: %s: %zu features exceed %d", who, d, INT_MAX);
    double lmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double *x = ds->x + i * d;
        size_t k = 0;
        double ss = 0.0;
        for (size_t j = 0; j < d; j++) {
            if (!isfinite(x[j]))
                return dpt_fail(err, DPA_EINVAL, "dptrain: %s: row %zu: feature %zu is not a finite number", who, i + 1,
                                j + 1);
            if (x[j] != 0.0) {
                k++;
                ss += x[j] * x[j];
            }
        }
        if (ds->y[i] != 1.0 && ds->y[i] != -1.0)
            return dpt_fail(err, DPA_EINVAL, "dptrain: %s: row %zu: the label %g is not +1 or -1", who, i + 1, ds->y[i]);
        if (s > 0 && k > s)
            return dpt_fail(err, DPA_EINVAL,
                            "dptrain: %s: row %zu has %zu nonzero features, more than the sparsity s = %zu", who, i + 1,
                            k, s);
        double nrm = sqrt(ss);
        if (L > 0.0 && nrm > L * (1.0 + 1e-12))
            return dpt_fail(err, DPA_EINVAL, "dptrain: %s: row %zu has norm %.10g, above the bound L = %.10g", who,
                            i + 1, nrm, L);
        if (k > smax) smax = k;
        if (nrm > lmax) lmax = nrm;
        nnz += k;
    }
    if (!(lmax > 0.0))
        return dpt_fail(err, DPA_EINVAL, "dptrain: %s: every row of the training data is zero", who);
    out->start = malloc((n + 1) * sizeof *out->start);
    out->col = malloc((nnz ? nnz : 1) * sizeof *out->col);
    out->val = malloc((nnz ? nnz : 1) * sizeof *out->val);
    if (!out->start || !out->col || !out->val) {
        csr_free(out);
        return dpt_fail(err, DPA_ENOMEM, "dptrain: %s: out of memory", who);
    }
    size_t p = 0;
    for (size_t i = 0; i < n; i++) {
        out->start[i] = p;
        const double *x = ds->x + i * d;
        for (size_t j = 0; j < d; j++)
            if (x[j] != 0.0) {
                out->col[p] = j;
                out->val[p++] = x[j];
            }
    }
    out->start[n] = p;
    out->n = n;
    out->d = d;
    out->y = ds->y;
    out->s = s > 0 ? s : (smax > 0 ? smax : 1);
    out->L = L > 0.0 ? fmax(L, lmax) : lmax;
    return DPA_OK;
}

static double csr_dot(const csr *c, size_t i, const double *w)
{
    double m = 0.0;
    for (size_t p = c->start[i]; p < c->start[i + 1]; p++) m += c->val[p] * w[c->col[p]];
    return m;
}

static void csr_axpy(const csr *c, size_t i, double a, double *g)
{
    for (size_t p = c->start[i]; p < c->start[i + 1]; p++) g[c->col[p]] += a * c->val[p];
}

/* ---- the logistic loss in the margin m = y x.w --------------------------------- */

/* ln(1 + e^-m) without overflow. */
static double logistic_loss(double m)
{
    return m >= 0.0 ? log1p(exp(-m)) : -m + log1p(exp(m));
}

/* d/dm ln(1 + e^-m) = -1 / (1 + e^m) = -sigma(-m). */
static double logistic_slope(double m)
{
    if (m >= 0.0) {
        double e = exp(-m);
        return -e / (1.0 + e);
    }
    return -1.0 / (1.0 + exp(m));
}

/* d^2/dm^2 = sigma(m) sigma(-m) <= 1/4. */
static double logistic_curvature(double m)
{
    double e = exp(-fabs(m));
    return e / ((1.0 + e) * (1.0 + e));
}

double dpt_logistic_objective(const dpt_dataset *data, const double *w, double lambda)
{
    if (!data || !data->x || !data->y || !w || data->n == 0 || !(lambda >= 0.0)) return NAN;
    size_t n = data->n, d = data->d;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double *x = data->x + i * d;
        double m = 0.0;
        for (size_t j = 0; j < d; j++)
            if (x[j] != 0.0) m += x[j] * w[j];
        sum += logistic_loss(data->y[i] * m);
    }
    double r = 0.0;
    if (lambda > 0.0)
        for (size_t j = 0; j < d; j++) r += w[j] * w[j];
    return sum / (double)n + 0.5 * lambda * r;
}

static double csr_objective(const csr *c, const double *w, double lambda)
{
    double sum = 0.0, r = 0.0;
    for (size_t i = 0; i < c->n; i++) sum += logistic_loss(c->y[i] * csr_dot(c, i, w));
    for (size_t j = 0; j < c->d; j++) r += w[j] * w[j];
    return sum / (double)c->n + 0.5 * lambda * r;
}

/* grad = (1/n) sum grad f(w; z_i) + lambda w; margins m[i] kept for the
 * Hessian; returns ||grad||_2. */
static double csr_gradient(const csr *c, const double *w, double lambda, double *m, double *grad)
{
    for (size_t j = 0; j < c->d; j++) grad[j] = lambda * w[j];
    double inv = 1.0 / (double)c->n;
    for (size_t i = 0; i < c->n; i++) {
        m[i] = c->y[i] * csr_dot(c, i, w);
        csr_axpy(c, i, inv * logistic_slope(m[i]) * c->y[i], grad);
    }
    return cblas_dnrm2((int)c->d, grad, 1);
}

/* ---- the regularised ERM minimiser -------------------------------------------- */

#define DPT_ERM_TOLERANCE 1e-10   /* ||grad|| at the returned minimiser */
#define DPT_NEWTON_MAX_D 2000     /* Newton with a dense Cholesky up to this d */

/* Newton's method on F(w) = (1/n) sum f + (lambda/2) ||w||^2 from w = 0:
 * the Hessian lambda I + (1/n) sum f''(m_i) x_i x_i^T (built from the sparse
 * rows in O(n s^2)) is positive definite, factored by Cholesky (d^3 / 3
 * flops); Armijo backtracking keeps the iteration globally convergent
 * (Boyd & Vandenberghe 2004, 9.5), and once the squared Newton decrement is
 * below 1e-12 the full step is taken (the quadratically convergent phase, where F
 * differences are below rounding and a line search could only stall). */
static int erm_newton(const csr *c, double lambda, double *w, double *gnorm, dpa_error *err)
{
    size_t n = c->n, d = c->d;
    gsl_matrix *Hm = gsl_matrix_alloc(d, d);
    gsl_vector *g = gsl_vector_alloc(d), *p = gsl_vector_alloc(d);
    double *m = malloc(n * sizeof *m), *trial = malloc(d * sizeof *trial);
    int st = DPA_OK;
    if (!Hm || !g || !p || !m || !trial) {
        st = dpt_fail(err, DPA_ENOMEM, "dptrain: sparse-erm: out of memory (the %zu x %zu Hessian)", d, d);
        goto done;
    }
    memset(w, 0, d * sizeof *w);
    double F = csr_objective(c, w, lambda);
    for (int it = 0;; it++) {
        *gnorm = csr_gradient(c, w, lambda, m, g->data);
        if (*gnorm <= DPT_ERM_TOLERANCE) break;
        if (it == 100) {
            st = dpt_fail(err, DPA_EACCURACY, "dptrain: sparse-erm: Newton's method stopped at gradient norm %.3g "
                          "after 100 iterations (target %g)", *gnorm, DPT_ERM_TOLERANCE);
            goto done;
        }
        gsl_matrix_set_identity(Hm);
        gsl_matrix_scale(Hm, lambda);
        double *H = Hm->data, inv = 1.0 / (double)n;
        for (size_t i = 0; i < n; i++) {
            double a = inv * logistic_curvature(m[i]);
            for (size_t u = c->start[i]; u < c->start[i + 1]; u++) {
                double au = a * c->val[u];
                size_t r = c->col[u];
                for (size_t v = c->start[i]; v < c->start[i + 1]; v++) H[r * d + c->col[v]] += au * c->val[v];
            }
        }
        if (gsl_linalg_cholesky_decomp1(Hm) || gsl_linalg_cholesky_solve(Hm, g, p)) {
            st = dpt_fail(err, DPA_EACCURACY, "dptrain: sparse-erm: the Hessian's Cholesky factorisation failed");
            goto done;
        }
        double dec = 0.0;      /* Newton decrement^2 = g . H^-1 g */
        for (size_t j = 0; j < d; j++) dec += g->data[j] * p->data[j];
        /* Armijo with a slack of a few ulps of F: below that, differences of
         * F are rounding, not descent. */
        double t = 1.0, Ft = F, slack = 8.0 * DBL_EPSILON * fabs(F);
        for (int ls = 0; ls < 60; ls++) {
            for (size_t j = 0; j < d; j++) trial[j] = w[j] - t * p->data[j];
            Ft = csr_objective(c, trial, lambda);
            if (dec < 1e-12 || Ft <= F - 1e-4 * t * dec + slack) break;
            t *= 0.5;
        }
        memcpy(w, trial, d * sizeof *w);
        F = Ft;
    }
done:
    gsl_matrix_free(Hm);
    gsl_vector_free(g);
    gsl_vector_free(p);
    free(m);
    free(trial);
    return st;
}

/* For d > DPT_NEWTON_MAX_D: Nesterov's accelerated gradient for a
 * lambda-strongly convex, (H + lambda)-smooth function (Nesterov 2004,
 * (2.2.19)): step 1/(H + lambda), constant momentum (sqrt(kappa) - 1) /
 * (sqrt(kappa) + 1), kappa = (H + lambda) / lambda; the error contracts by
 * (1 - 1/sqrt(kappa)) per iteration, so the cap of 40 sqrt(kappa) ln(1e14)
 * iterations (at least 1000) leaves a wide margin. */
static int erm_accelerated(const csr *c, double lambda, double *w, double *gnorm, dpa_error *err)
{
    size_t n = c->n, d = c->d;
    double H = c->L * c->L / 4.0, kappa = (H + lambda) / lambda, q = sqrt(kappa);
    double beta = (q - 1.0) / (q + 1.0), eta = 1.0 / (H + lambda);
    double cap = fmax(1000.0, 40.0 * q * log(1e14));
    double *m = malloc(n * sizeof *m), *g = malloc(d * sizeof *g), *v = malloc(d * sizeof *v),
           *prev = malloc(d * sizeof *prev);
    int st = DPA_OK;
    if (!m || !g || !v || !prev) {
        st = dpt_fail(err, DPA_ENOMEM, "dptrain: sparse-erm: out of memory");
        goto done;
    }
    memset(w, 0, d * sizeof *w);
    memset(v, 0, d * sizeof *v);
    for (double it = 0.0;; it += 1.0) {
        *gnorm = csr_gradient(c, w, lambda, m, g);
        if (*gnorm <= DPT_ERM_TOLERANCE) break;
        if (it >= cap) {
            st = dpt_fail(err, DPA_EACCURACY, "dptrain: sparse-erm: accelerated gradient stopped at gradient norm %.3g "
                          "after %.0f iterations (target %g)", *gnorm, it, DPT_ERM_TOLERANCE);
            goto done;
        }
        /* v is the extrapolated point; gradient there, then the new w. */
        csr_gradient(c, v, lambda, m, g);
        memcpy(prev, w, d * sizeof *w);
        for (size_t j = 0; j < d; j++) w[j] = v[j] - eta * g[j];
        for (size_t j = 0; j < d; j++) v[j] = w[j] + beta * (w[j] - prev[j]);
    }
done:
    free(m);
    free(g);
    free(v);
    free(prev);
    return st;
}

/* ---- output perturbation (note 2.4) ------------------------------------------ */

void dpt_sparse_erm_defaults(dpt_sparse_erm_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->lambda = 1e-2;
    opt->epsilon = 1.0;
    opt->delta = 1e-5;
    opt->project = 1;
    opt->seed = 1;
    opt->score_fraction = 0.1;
}

static int erm_check(const dpt_sparse_erm_options *opt, dpa_error *err)
{
    if (!(opt->lambda > 0.0) || !isfinite(opt->lambda))
        return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-erm: lambda must be a finite number > 0, got %g", opt->lambda);
    if (!(opt->norm >= 0.0) || !isfinite(opt->norm))
        return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-erm: the norm bound L must be finite and > 0 (0: from the "
                        "data), got %g", opt->norm);
    if (!(opt->sensitivity_l1 >= 0.0) || !isfinite(opt->sensitivity_l1))
        return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-erm: the l1 sensitivity must be finite and > 0 (0: the "
                        "bound 2 sqrt(2s) L (H/lambda + 1)/(lambda n)), got %g", opt->sensitivity_l1);
    if (!opt->noise_off) {
        if (!opt->rng)
            return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-erm: a private run needs a generator in the options' rng "
                            "(dpt_rng_new_secure)");
        if (opt->sparsity == 0 || opt->norm == 0.0)
            return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-erm: a private run needs the bounds s and L given "
                            "(sparsity %zu, norm %g): taken from the private rows they would be outside the guarantee",
                            opt->sparsity, opt->norm);
        if (!(opt->epsilon > 0.0) || !isfinite(opt->epsilon))
            return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-erm: epsilon must be a finite number > 0, got %g",
                            opt->epsilon);
        if (!(opt->delta >= 0.0 && opt->delta < 1.0))
            return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-erm: delta must lie in [0, 1), got %g", opt->delta);
        if (opt->classical && opt->delta == 0.0)
            return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-erm: the classical Gaussian needs delta > 0 (delta = 0 "
                            "is the Laplace mechanism)");
        if (opt->classical && opt->epsilon >= 1.0)
            return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-erm: the classical Gaussian sigma = Delta sqrt(2 "
                            "ln(1.25/delta)) / eps is only a guarantee for eps < 1 (Dwork & Roth, Thm A.1); got eps %g",
                            opt->epsilon);
    }
    if (opt->random_stop != 0.0) {
        if (opt->sensitivity_l1 > 0.0)
            return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-erm: a given l1 sensitivity holds for one lambda; random "
                            "stopping computes each candidate's own (leave it 0)");
        return dpt_lt_check("dptrain: sparse-erm", "lambda", opt->select_lambdas, opt->select_count, opt->random_stop,
                            opt->score_fraction, !opt->noise_off, opt->delta, err);
    }
    if (opt->select_count)
        return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-erm: %zu lambda candidates but no random stopping (give "
                        "random_stop, the stopping probability)", opt->select_count);
    return DPA_OK;
}

static int erm_solve(const csr *c, double lambda, double *wopt, double *gnorm, dpa_error *err)
{
    return c->d <= DPT_NEWTON_MAX_D ? erm_newton(c, lambda, wopt, gnorm, err)
                                    : erm_accelerated(c, lambda, wopt, gnorm, err);
}

/* The release at `lambda` with budget `eps` (Laplace when opt->delta = 0,
 * else Gaussian at (eps, delta)) from the minimiser wopt, into w (may be
 * wopt), with noise from rng (unused when opt->noise_off): out's
 * noise_scale, sensitivity, epsilon and delta set, the mechanism in words
 * in `what`; report: call opt->progress. */
static int erm_release(const csr *c, const dpt_sparse_erm_options *opt, dpt_rng *rng, double lambda, double eps,
                       const double *wopt, double *w, dpt_sparse_erm_result *out, char *what, size_t what_size,
                       int report, dpa_error *err)
{
    /* The sensitivities of w_lambda(S) under replace-one (note 2.4):
     * ||w_S - w_S'||_2 <= 2L / (lambda n) by lambda-strong convexity, and
     * ||.||_1 <= 2 sqrt(2s) L (H/lambda + 1) / (lambda n) from the
     * stationarity identity w = -(1/(lambda n)) sum grad f. */
    /* The solver returns w with ||grad|| <= DPT_ERM_TOLERANCE, hence within
     * DPT_ERM_TOLERANCE / lambda of w_lambda(S) (lambda-strong convexity):
     * the released w of two neighbours differ by at most the exact
     * minimisers' bound plus twice that (l2; sqrt(d) times it in l1), with a
     * relative 1e-6 for the rounding of the computed gradient norm. */
    size_t n = c->n, d = c->d, s = c->s;
    double L = c->L, H = L * L / 4.0;
    int st = DPA_OK;
    double slack2 = 2.0 * DPT_ERM_TOLERANCE * (1.0 + 1e-6) / lambda;
    double l2sens = 2.0 * L / (lambda * (double)n) + slack2;
    double l1sens = opt->sensitivity_l1 > 0.0
                        ? opt->sensitivity_l1
                        : 2.0 * sqrt(2.0 * (double)s) * L * (H / lambda + 1.0) / (lambda * (double)n) +
                              sqrt((double)d) * slack2;
    double radius = L * sqrt((double)s) / lambda;     /* ||w_lambda(S)||_1 <= L sqrt(s) / lambda */
    /* a sensitivity that underflows would calibrate no noise at all, one
     * that overflows no finite noise: refuse both rather than release w */
    if (!opt->noise_off && !(l2sens >= DBL_MIN && l1sens >= DBL_MIN && isfinite(l1sens) && isfinite(radius)))
        return dpt_fail(err, DPA_EINVAL,
                        "dptrain: sparse-erm: lambda = %g with n = %zu, L = %g puts the sensitivity 2L/(lambda n) = %g "
                        "out of the floating-point range",
                        lambda, n, L, l2sens);
    int gaussian = opt->delta > 0.0;
    if (opt->noise_off) {
        out->noise_scale = 0.0;
        out->sensitivity = gaussian ? l2sens : l1sens;
        out->epsilon = INFINITY;
        out->delta = 0.0;
        snprintf(what, what_size, "not private (no noise)");
    } else if (gaussian) {
        double mult;
        if ((st = dpt_gaussian_multiplier(eps, opt->delta, opt->classical, &mult, err))) return st;
        out->sensitivity = l2sens;
        out->noise_scale = mult * l2sens;
        /* The guarantee actually met: the Gaussian with multiplier `mult` is
         * (1/mult)-GDP.  Two certified bounds on its eps at delta: the
         * target (mult is the certified upper sigma for it, or the classical
         * formula's, a theorem for eps < 1) and the eps computed at 1/mult, whose
         * own rounding pad can put it a few ulps above the target (it did,
         * 1.0000000000000022 for a target of 1, after a change of 2e-16 in
         * mu's bracket): the smaller. */
        dpa_bound e;
        if ((st = dpa_gdp_epsilon(1.0 / mult, opt->delta, &e, err))) return st;
        out->epsilon = fmin(e.upper, eps);
        out->delta = opt->delta;
        snprintf(what, what_size, "%s Gaussian, sigma = %.6g x l2 sensitivity 2L/(lambda n) = %.6g",
                 opt->classical ? "classical" : "analytic (Balle & Wang 2018)", mult, l2sens);
    } else {
        out->sensitivity = l1sens;
        out->noise_scale = l1sens / eps;
        out->epsilon = eps;
        out->delta = 0.0;
        snprintf(what, what_size, "Laplace, b = Delta_1 / eps, l1 sensitivity %s = %.6g",
                 opt->sensitivity_l1 > 0.0 ? "(given)" : "2 sqrt(2s) L (H/lambda + 1)/(lambda n)", l1sens);
    }
    if (w != wopt) memcpy(w, wopt, d * sizeof *w);
    if (!opt->noise_off) {
        double scale = dpt_scale_up(out->noise_scale);
        if ((st = dpt_noise_check_scale(scale, "dptrain: sparse-erm: the noise scale", err))) return st;
        for (size_t j = 0; j < d; j++)
            w[j] = gaussian ? dpt_noise_gaussian(rng, w[j], scale) : dpt_noise_laplace(rng, w[j], scale);
    }
    if (report) opt->progress(opt->progress_ctx, 2, 3);
    /* Post-processing (note 2.4 step 3, 004:L73): the Euclidean projection
     * onto B_1(0, L sqrt(s) / lambda), which contains w_lambda(S). */
    if (opt->project) dpt_project_l1_ball(w, d, radius, w);
    if (report) opt->progress(opt->progress_ctx, 3, 3);
    return DPA_OK;
}

double dpt_logistic_score_sensitivity(const double *w, size_t d, double L, size_t s, size_t n)
{
    /* The score is g(S) = (1/n) sum_i f(w; x_i, y_i) at a fixed w (the
     * round's release; the score's noise may depend on it: adaptive
     * composition).  |y x.w| <= ||x||_2 ||w||_2 <= L ||w||_2 = B, and f is
     * decreasing in the margin, so each loss lies in [ln(1 + e^-B), ln(1 +
     * e^B)] within [0, M], M = ln(1 + e^B); replacing one row moves the mean
     * by at most M / n (the regulariser does not see the data, and is not
     * in the score).  With the l1 projection ||w||_2 <= ||w||_1 <= L sqrt(s)
     * / lambda, so B <= L^2 sqrt(s) / lambda whatever the noise; the dense
     * baseline has no such a priori bound, but the bound at the released w
     * is as valid (and finite).
     * Floating point, u = DBL_EPSILON: ||w||_2 is computed within (d + 2) u
     * (rounded up below); each margin (a sum of <= s products) within (s +
     * 1) u B, and f has slope <= 1, so each computed loss is within (s + 1)
     * u B + 4 u M of the exact; the sum of n terms in [0, M] within (n + 1)
     * u n M; so the computed mean is within e = (s + 5) u B + (n + 6) u M of
     * the exact, and two neighbours' computed scores differ by at most M / n
     * + 2 e.  Taken with a factor 2 on e and M rounded up. */
    if (!w || n == 0) return NAN;
    const double u = DBL_EPSILON;
    double nrm = 0.0;
    for (size_t j = 0; j < d; j++) nrm += w[j] * w[j];
    double B = L * sqrt(nrm) * (1.0 + (double)(d + 4) * u);
    double M = (B + log1p(exp(-B))) * (1.0 + 8.0 * u);      /* ln(1 + e^B), B >= 0 */
    double e = (double)(s + 5) * u * B + (double)(n + 6) * u * M;
    return (M / (double)n + 4.0 * e) * (1.0 + 4.0 * u);
}

/* ---- private selection of lambda by random stopping (Liu & Talwar) ---------- */

typedef struct {
    const csr *c;
    const dpt_sparse_erm_options *opt;
    const double *cand;
    size_t count;
    dpt_rng *noise;             /* NULL: no noise */
    dpt_lt_budget_t b;
    double *wopt;               /* count x d minimisers, solved when first drawn */
    double *gnorm;              /* their solver gradients (NaN: not solved yet) */
    double *cur, *best;         /* the round's release, the best so far */
    dpt_sparse_erm_result rcur, rbest;
} erm_sel;

static int erm_round(void *ctx, size_t j, double *score, dpa_error *err)
{
    erm_sel *s = ctx;
    const csr *c = s->c;
    double lambda = s->cand[j], *wj = s->wopt + j * c->d;
    int st;
    if (isnan(s->gnorm[j]) && (st = erm_solve(c, lambda, wj, &s->gnorm[j], err))) return st;
    memset(&s->rcur, 0, sizeof s->rcur);
    st = erm_release(c, s->opt, s->noise, lambda, s->b.main, wj, s->cur, &s->rcur, s->rcur.accounting,
                     sizeof s->rcur.accounting, 0, err);
    if (st) return st;
    s->rcur.lambda = lambda;
    s->rcur.solver_gradient = s->gnorm[j];
    s->rcur.score_sensitivity = dpt_logistic_score_sensitivity(s->cur, c->d, c->L, c->s, c->n);
    return dpt_lt_noisy("dptrain: sparse-erm: the score's Laplace scale", s->noise, csr_objective(c, s->cur, 0.0),
                        s->rcur.score_sensitivity, s->b.score, score, err);
}

static void erm_keep(void *ctx)
{
    erm_sel *s = ctx;
    s->rbest = s->rcur;
}

static int erm_select(const csr *c, const dpt_sparse_erm_options *opt, double *w, dpt_sparse_erm_result *out,
                      dpa_error *err)
{
    size_t d = c->d;
    erm_sel s = { .c = c, .opt = opt, .cand = opt->select_count ? opt->select_lambdas : &opt->lambda,
                  .count = opt->select_count ? opt->select_count : 1 };
    dpt_rng *rng = NULL, *owned = NULL;
    int st = dpt_run_rng(opt->rng, !opt->noise_off, opt->seed, "dptrain: sparse-erm", &rng, &owned, err);
    if (st) return st;
    if (opt->noise_off) s.b = (dpt_lt_budget_t){ 0.0, 0.0, 0.0, INFINITY };
    else if ((st = dpt_lt_budget("dptrain: sparse-erm", opt->epsilon, opt->score_fraction, opt->random_stop, &s.b,
                                 err)))
        goto done;
    s.noise = opt->noise_off ? NULL : rng;
    if (s.count > SIZE_MAX / sizeof(double) / d) {
        st = dpt_fail(err, DPA_ENOMEM, "dptrain: sparse-erm: %zu candidates x %zu features do not fit in memory",
                      s.count, d);
        goto done;
    }
    s.wopt = malloc(s.count * d * sizeof *s.wopt);
    s.gnorm = malloc(s.count * sizeof *s.gnorm);
    s.cur = malloc(d * sizeof *s.cur);
    s.best = malloc(d * sizeof *s.best);
    if (!s.wopt || !s.gnorm || !s.cur || !s.best) {
        st = dpt_fail(err, DPA_ENOMEM, "dptrain: sparse-erm: out of memory (%zu candidates x %zu features)", s.count,
                      d);
        goto done;
    }
    for (size_t k = 0; k < s.count; k++) s.gnorm[k] = NAN;
    dpt_lt_outcome o;
    if ((st = dpt_lt_run(rng, s.count, opt->random_stop, erm_round, erm_keep, &s, &s.cur, &s.best, &o, err)))
        goto done;
    double lambda = s.cand[o.best];
    memcpy(w, s.best, d * sizeof *w);
    *out = s.rbest;
    out->objective_private = csr_objective(c, w, lambda);
    out->objective_optimal = csr_objective(c, s.wopt + o.best * d, lambda);
    out->rounds = o.rounds;
    out->score = o.score;
    out->round_epsilon = s.b.round;
    out->score_epsilon = s.b.score;
    out->epsilon = s.b.total;
    out->delta = 0.0;
    if (opt->noise_off)
        snprintf(out->accounting, sizeof out->accounting,
                 "not private (no noise); random stopping (gamma %g) over %zu lambda candidates, %s", opt->random_stop,
                 s.count, opt->project ? "l1 projection" : "dense");
    else {
        snprintf(out->accounting, sizeof out->accounting,
                 "Liu & Talwar random stopping (STOC 2019, Thm 3.1), gamma %g, %zu lambdas: 3 x (%.4g release + %.4g "
                 "score) = %.6g pure DP (tuning accountant), replace-one; release Laplace b = %.4g%s; score Laplace, "
                 "sensitivity %.4g",
                 opt->random_stop, s.count, s.b.main, s.b.score, s.b.total, out->noise_scale,
                 opt->project ? ", l1 projection" : ", dense", out->score_sensitivity);
        dpt_accounting_note(out->accounting, sizeof out->accounting, dpt_rng_privacy_note(opt->rng));
    }
done:
    free(s.wopt);
    free(s.gnorm);
    free(s.cur);
    free(s.best);
    dpt_rng_free(owned);
    return st;
}

int dpt_sparse_erm(const dpt_dataset *train, const dpt_sparse_erm_options *opt, double *w, dpt_sparse_erm_result *out,
                   dpa_error *err)
{
    if (!opt || !w || !out) return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-erm: options, w or result is NULL");
    memset(out, 0, sizeof *out);
    int st = erm_check(opt, err);
    if (st) return st;
    csr c;
    if ((st = csr_build(train, opt->sparsity, opt->norm, "sparse-erm", &c, err))) return st;
    if (opt->random_stop != 0.0) {
        st = erm_select(&c, opt, w, out, err);
        csr_free(&c);
        return st;
    }
    size_t n = c.n, d = c.d, s = c.s;
    double L = c.L, lambda = opt->lambda;
    int report = opt->progress != NULL;
    double *wopt = malloc(d * sizeof *wopt);
    if (!wopt) {
        st = dpt_fail(err, DPA_ENOMEM, "dptrain: sparse-erm: out of memory");
        goto done;
    }
    if (report) opt->progress(opt->progress_ctx, 0, 3);
    if ((st = erm_solve(&c, lambda, wopt, &out->solver_gradient, err))) goto done;
    if (report) opt->progress(opt->progress_ctx, 1, 3);
    out->objective_optimal = csr_objective(&c, wopt, lambda);
    char what[160];
    if ((st = erm_release(&c, opt, opt->rng, lambda, opt->epsilon, wopt, w, out, what, sizeof what, report, err)))
        goto done;
    out->lambda = lambda;
    out->objective_private = csr_objective(&c, w, lambda);
    snprintf(out->accounting, sizeof out->accounting,
             "output perturbation (Ghazi et al.), replace-one; %s; %s; n = %zu, s = %zu, L = %.6g, H = L^2/4", what,
             opt->project ? "then projection onto the l1 ball of radius L sqrt(s)/lambda" : "dense (no projection)", n, s,
             L);
    if (!opt->noise_off) dpt_accounting_note(out->accounting, sizeof out->accounting, dpt_rng_privacy_note(opt->rng));
done:
    free(wopt);
    csr_free(&c);
    return st;
}

/* ---- bias-reduced DP-SGD (note 2.5) ------------------------------------------ */

void dpt_sparse_sgd_defaults(dpt_sparse_sgd_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->learning_rate = 0.1;
    opt->epsilon = 1.0;
    opt->delta = 1e-5;
    opt->noise = 100.0;
    opt->max_steps = 100000;
    opt->batch_size = 64;
    opt->seed = 1;
}

typedef struct {
    const csr *c;
    const dpt_sparse_sgd_options *opt;
    dpt_rng *rng;             /* the privacy draws: subsets, levels, indices, noise */
    dpt_rng *owned;           /* rng when this oracle made it (a noise-off run without one) */
    unsigned levels;          /* K = log2(n'), N in {0..K-1} */
    double *p;                /* p_k */
    size_t *perm;             /* a permutation of [n], partially reshuffled per draw */
    double *gO, *gE, *gB, *gi;
} oracle;

static void oracle_free(oracle *o)
{
    free(o->p);
    free(o->perm);
    free(o->gO);
    free(o->gE);
    free(o->gB);
    free(o->gi);
    dpt_rng_free(o->owned);
}

static int oracle_init(oracle *o, const csr *c, const dpt_sparse_sgd_options *opt, dpa_error *err)
{
    memset(o, 0, sizeof *o);
    o->c = c;
    o->opt = opt;
    size_t n = c->n, d = c->d;
    unsigned K = 0;
    while (K + 1 < 64 && ((size_t)1 << (K + 1)) <= n) K++;
    o->levels = K;
    o->p = malloc((K + 1) * sizeof *o->p);
    o->perm = malloc(n * sizeof *o->perm);
    o->gO = malloc(d * sizeof *o->gO);
    o->gE = malloc(d * sizeof *o->gE);
    o->gB = malloc(d * sizeof *o->gB);
    o->gi = malloc(d * sizeof *o->gi);
    if (!o->p || !o->perm || !o->gO || !o->gE || !o->gB || !o->gi) {
        oracle_free(o);
        return dpt_fail(err, DPA_ENOMEM, "dptrain: sparse-sgd: out of memory");
    }
    int st = dpt_run_rng(opt->rng, !opt->noise_off, opt->seed, "dptrain: sparse-sgd", &o->rng, &o->owned, err);
    if (st) {
        oracle_free(o);
        return st;
    }
    for (size_t i = 0; i < n; i++) o->perm[i] = i;
    /* p_k = 2^-k / sum_{j<K} 2^-j (note 2.5 step 1; 004:L88 with N starting
     * at 0, as the telescoping needs, note 2.8 item 7). */
    double z = 0.0;
    for (unsigned k = 0; k < K; k++) z += ldexp(1.0, -(int)k);
    for (unsigned k = 0; k < K; k++) o->p[k] = ldexp(1.0, -(int)k) / z;
    return DPA_OK;
}

/* A uniform subset of [n] of size m, in uniformly random order, as
 * perm[0..m-1]: a partial Fisher-Yates shuffle, which yields a uniform
 * ordered sample from any starting permutation. */
static void sample_without_replacement(oracle *o, size_t m)
{
    size_t n = o->c->n;
    for (size_t j = 0; j < m; j++) {
        size_t k = j + (size_t)dpt_rng_below(o->rng, (uint64_t)(n - j));
        size_t t = o->perm[j];
        o->perm[j] = o->perm[k];
        o->perm[k] = t;
    }
}

static unsigned sample_level(oracle *o)
{
    /* P[N = k] = p_k exactly */
    return dpt_rng_truncated_geometric(o->rng, o->levels ? o->levels : 1);
}

/* mu of the Gaussian mechanism on a mean over b rows with per-coordinate
 * noise std sigma0: l2 sensitivity 2L/b under replace-one, so mu = 2L/(b
 * sigma0) (Dong, Roth & Su 2022, Thm 2.7). */
static double mean_mu(double L, double b, double sigma0)
{
    return 2.0 * L / (b * sigma0);
}

/* The step's cost at level N for the worst-case record: in B, in one of O
 * and E, and drawn as i: mu_t^2 = mu_{2^(N+1)}^2 + mu_{2^N}^2 + mu_1^2
 * (composition of GDP, Dong, Roth & Su Cor. 3.3). */
static double level_mu(double L, unsigned N, double sigma0)
{
    double a = mean_mu(L, ldexp(1.0, (int)N + 1), sigma0), b = mean_mu(L, ldexp(1.0, (int)N), sigma0),
           c = mean_mu(L, 1.0, sigma0);
    return sqrt(a * a + b * b + c * c);
}

/* The noisy projected mean (ME-1, note 2.2 with the noise std sigma0 given):
 * g + N(0, sigma0^2 I), then onto B_1(0, L sqrt(s)); nothing when the noise
 * is off (then ||g||_1 <= L sqrt(s) already and the projection is the
 * identity). */
static void privatise(oracle *o, double *g)
{
    const dpt_sparse_sgd_options *opt = o->opt;
    if (opt->noise_off) return;
    size_t d = o->c->d;
    double s = dpt_scale_up(opt->noise);
    for (size_t j = 0; j < d; j++) g[j] = dpt_noise_gaussian(o->rng, g[j], s);
    dpt_project_l1_ball(g, d, o->c->L * sqrt((double)o->c->s), g);
}

/* One draw of G(w) of note 2.5 step 4 at the level N already drawn:
 * G = (G_B - (G_O + G_E)/2) / p_N + G_i, each G a noisy projected mean. */
static void oracle_draw(oracle *o, unsigned N, const double *w, double *G)
{
    const csr *c = o->c;
    size_t d = c->d, half = (size_t)1 << N, b = 2 * half;
    sample_without_replacement(o, b);      /* O = perm[0..half), E = perm[half..b) */
    size_t i = (size_t)dpt_rng_below(o->rng, (uint64_t)c->n);
    memset(o->gO, 0, d * sizeof *o->gO);
    memset(o->gE, 0, d * sizeof *o->gE);
    memset(o->gi, 0, d * sizeof *o->gi);
    for (size_t j = 0; j < b; j++) {
        size_t r = o->perm[j];
        double a = logistic_slope(c->y[r] * csr_dot(c, r, w)) * c->y[r] / (double)half;
        csr_axpy(c, r, a, j < half ? o->gO : o->gE);
    }
    csr_axpy(c, i, logistic_slope(c->y[i] * csr_dot(c, i, w)) * c->y[i], o->gi);
    /* The mean over B is the average of the means over its two halves. */
    for (size_t j = 0; j < d; j++) o->gB[j] = 0.5 * (o->gO[j] + o->gE[j]);
    privatise(o, o->gB);
    privatise(o, o->gO);
    privatise(o, o->gE);
    privatise(o, o->gi);
    double inv = 1.0 / o->p[N];
    for (size_t j = 0; j < d; j++) G[j] = inv * (o->gB[j] - 0.5 * (o->gO[j] + o->gE[j])) + o->gi[j];
}

/* The dense baseline's gradient: the mean over a uniform batch of b rows
 * (without replacement) plus N(0, sigma0^2 I), no projection. */
static void dense_draw(oracle *o, const double *w, double *G)
{
    const csr *c = o->c;
    size_t d = c->d, b = o->opt->batch_size;
    sample_without_replacement(o, b);
    memset(G, 0, d * sizeof *G);
    for (size_t j = 0; j < b; j++) {
        size_t r = o->perm[j];
        csr_axpy(c, r, logistic_slope(c->y[r] * csr_dot(c, r, w)) * c->y[r] / (double)b, G);
    }
    if (!o->opt->noise_off) {
        double s = dpt_scale_up(o->opt->noise);
        for (size_t j = 0; j < d; j++) G[j] = dpt_noise_gaussian(o->rng, G[j], s);
    }
}

static int sgd_check(const dpt_dataset *train, const dpt_sparse_sgd_options *opt, csr *c, dpa_error *err)
{
    int st;
    if (!(opt->learning_rate > 0.0) || !isfinite(opt->learning_rate))
        return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: the learning rate must be finite and > 0, got %g",
                        opt->learning_rate);
    if (!(opt->lambda >= 0.0) || !isfinite(opt->lambda))
        return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: lambda must be finite and >= 0, got %g", opt->lambda);
    if (!(opt->radius >= 0.0) || !isfinite(opt->radius))
        return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: the radius must be finite and >= 0, got %g", opt->radius);
    if (!(opt->norm >= 0.0) || !isfinite(opt->norm))
        return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: the norm bound L must be finite and > 0 (0: from the "
                        "data), got %g", opt->norm);
    /* the step count and its progress total are exact in a double */
    if (opt->max_steps == 0 || opt->max_steps > (UINT64_C(1) << 53))
        return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: max_steps must lie in [1, 2^53], got %" PRIu64,
                        opt->max_steps);
    if (!opt->noise_off) {
        if (!(opt->epsilon > 0.0) || !isfinite(opt->epsilon))
            return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: epsilon must be a finite number > 0, got %g",
                            opt->epsilon);
        if (!(opt->delta > 0.0 && opt->delta < 1.0))
            return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: delta must lie in (0, 1) (the GDP filter), got %g",
                            opt->delta);
        if (!(opt->noise > 0.0) || !isfinite(opt->noise))
            return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: the noise std must be finite and > 0, got %g",
                            opt->noise);
        if ((st = dpt_noise_check_scale(opt->noise, "dptrain: sparse-sgd: the noise std", err))) return st;
        if (!opt->rng)
            return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: a private run needs a generator in the options' rng "
                            "(dpt_rng_new_secure)");
        if (opt->norm == 0.0 || (!opt->dense && opt->sparsity == 0))
            return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: a private run needs the bounds %s given "
                            "(sparsity %zu, norm %g): taken from the private rows they would be outside the guarantee",
                            opt->dense ? "L" : "s and L", opt->sparsity, opt->norm);
    }
    st = csr_build(train, opt->sparsity, opt->norm, "sparse-sgd", c, err);
    if (st) return st;
    if (opt->dense && (opt->batch_size == 0 || opt->batch_size > c->n)) {
        st = dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: the batch size must lie in 1..n = %zu, got %zu", c->n,
                      opt->batch_size);
    } else if (!opt->dense && c->n < 2) {
        st = dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: the bias-reduced estimator needs n >= 2 rows");
    }
    if (st) csr_free(c);
    return st;
}

int dpt_sparse_sgd_oracle_mean(const dpt_dataset *train, const dpt_sparse_sgd_options *opt, const double *w,
                               uint64_t draws, double *mean, double *sd, dpa_error *err)
{
    if (!opt || !w || !mean || !sd || draws < 2)
        return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: oracle: NULL argument or fewer than 2 draws");
    csr c;
    int st = sgd_check(train, opt, &c, err);
    if (st) return st;
    oracle o;
    double *G = malloc(c.d * sizeof *G), *m2 = calloc(c.d, sizeof *m2);
    if (!G || !m2) {
        st = dpt_fail(err, DPA_ENOMEM, "dptrain: sparse-sgd: out of memory");
    } else if (!(st = oracle_init(&o, &c, opt, err))) {
        memset(mean, 0, c.d * sizeof *mean);
        for (uint64_t t = 0; t < draws; t++) {   /* Welford's running mean and squared deviations */
            if (opt->dense) dense_draw(&o, w, G);
            else oracle_draw(&o, sample_level(&o), w, G);
            for (size_t j = 0; j < c.d; j++) {
                double dlt = G[j] - mean[j];
                mean[j] += dlt / (double)(t + 1);
                m2[j] += dlt * (G[j] - mean[j]);
            }
        }
        for (size_t j = 0; j < c.d; j++) sd[j] = sqrt(m2[j] / (double)(draws - 1));
        oracle_free(&o);
    }
    free(G);
    free(m2);
    csr_free(&c);
    return st;
}

int dpt_sparse_sgd(const dpt_dataset *train, const dpt_sparse_sgd_options *opt, double *w, dpt_sparse_sgd_result *out,
                   dpa_error *err)
{
    if (!opt || !w || !out) return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: options, w or result is NULL");
    memset(out, 0, sizeof *out);
    for (size_t j = 0; train && train->x && j < train->d; j++)
        if (!isfinite(w[j]))
            return dpt_fail(err, DPA_EINVAL, "dptrain: sparse-sgd: the starting point's coordinate %zu is not finite",
                            j + 1);
    csr c;
    int st = sgd_check(train, opt, &c, err);
    if (st) return st;
    size_t d = c.d;
    double L = c.L, sigma0 = opt->noise;
    oracle o;
    dpa_filter *filter = NULL;
    double *G = malloc(d * sizeof *G), *avg = calloc(d, sizeof *avg);
    int have_oracle = 0;
    if (!G || !avg) {
        st = dpt_fail(err, DPA_ENOMEM, "dptrain: sparse-sgd: out of memory");
        goto done;
    }
    if ((st = oracle_init(&o, &c, opt, err))) goto done;
    have_oracle = 1;
    double mu_budget = 0.0;
    uint64_t total = opt->max_steps;
    if (!opt->noise_off) {
        /* The GDP filter's budget: the largest mu whose mu-GDP is (eps,
         * delta)-DP (the safe end of the bracket). */
        dpa_bound b;
        if ((st = dpa_gdp_mu(opt->epsilon, opt->delta, &b, err))) goto done;
        mu_budget = b.lower;
        if (!(filter = dpa_filter_new(DPA_FILTER_GDP, mu_budget, 0.0, err))) {
            st = err && err->status ? err->status : DPA_ENOMEM;
            goto done;
        }
        /* The progress total: the expected number of admitted steps,
         * mu^2 / E[mu_t^2], capped at max_steps. */
        double e2;
        if (opt->dense) {
            double m = mean_mu(L, (double)opt->batch_size, sigma0);
            e2 = m * m;
        } else {
            e2 = 0.0;
            for (unsigned k = 0; k < o.levels; k++) {
                double m = level_mu(L, k, sigma0);
                e2 += o.p[k] * m * m;
            }
        }
        double est = floor(mu_budget * mu_budget / e2);
        if (est < (double)total) total = (uint64_t)est;
    }
    uint64_t steps = 0, next_report = 0;
    double eta = opt->learning_rate;
    while (steps < opt->max_steps) {
        unsigned N = opt->dense ? 0 : sample_level(&o);
        if (!opt->noise_off) {
            double mu_t = opt->dense ? mean_mu(L, (double)opt->batch_size, sigma0) : level_mu(L, N, sigma0);
            int admitted = 0;
            if ((st = dpa_filter_try(filter, mu_t, 0.0, &admitted, err))) goto done;
            if (opt->on_step) opt->on_step(opt->on_step_ctx, steps + 1, N, mu_t, admitted);
            if (!admitted) break;     /* the random stopping time */
        }
        if (opt->dense) dense_draw(&o, w, G);
        else oracle_draw(&o, N, w, G);
        /* w <- w - eta (G + lambda w): the regulariser's gradient is exact and
         * noise-free (it does not touch the data). */
        for (size_t j = 0; j < d; j++) w[j] -= eta * (G[j] + opt->lambda * w[j]);
        if (opt->radius > 0.0) {
            double r = cblas_dnrm2((int)d, w, 1);
            if (r > opt->radius) cblas_dscal((int)d, opt->radius / r, w, 1);
        }
        steps++;
        for (size_t j = 0; j < d; j++) avg[j] += (w[j] - avg[j]) / (double)steps;
        if (opt->progress && steps >= next_report && steps < total) {
            opt->progress(opt->progress_ctx, steps, total);
            next_report = steps + total / 100 + 1;
        }
    }
    if (opt->progress) opt->progress(opt->progress_ctx, steps, steps);
    /* The release: the average of w_1..w_T, the iterates after each admitted
     * step; with no step admitted, the (data-independent) start. */
    if (steps) memcpy(w, avg, d * sizeof *w);
    out->steps = steps;
    if (opt->noise_off) {
        out->mu_spent = 0.0;
        out->epsilon = INFINITY;
        out->delta = 0.0;
        snprintf(out->accounting, sizeof out->accounting, "not private (no noise), %llu steps",
                 (unsigned long long)steps);
    } else {
        dpa_bound e;
        dpa_filter_spent(filter, &out->mu_spent, NULL, NULL);
        if ((st = dpa_filter_epsilon(filter, opt->delta, &e, err))) goto done;
        /* the spent mu is at most mu_budget, the certified lower mu for the
         * target: the target bounds eps too (see sparse_erm's release) */
        out->epsilon = fmin(e.upper, opt->epsilon);
        out->delta = opt->delta;
        snprintf(out->accounting, sizeof out->accounting,
                 "GDP filter (Smith & Thakurta 2022), budget mu = %.6g; %s, per-step mu_t = %s, replace-one (l2 "
                 "sensitivity 2L/b of a mean over b rows), sigma0 = %.6g, L = %.6g, s = %zu",
                 mu_budget, opt->dense ? "dense minibatch SGD" : "bias-reduced SGD (Ghazi et al. NeurIPS 2024)",
                 opt->dense ? "2L/(b sigma0)" : "sqrt(mu_{2^(N+1)}^2 + mu_{2^N}^2 + mu_1^2)", sigma0, L, c.s);
        dpt_accounting_note(out->accounting, sizeof out->accounting, dpt_rng_privacy_note(opt->rng));
    }
done:
    if (have_oracle) oracle_free(&o);
    dpa_filter_free(filter);
    free(G);
    free(avg);
    csr_free(&c);
    return st;
}
