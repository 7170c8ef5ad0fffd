/*
 * glm_histogram.c - the DP-Threshold of Ding et al., "Revisiting
 * Differentially Private ReLU Regression" (NeurIPS 2024), Alg 2: the scale
 * s_t of DP-GLMtron's and DP-TAGLMtron's clip gamma_t = x_norm s_t,
 * estimated from private estimating records by three Karwa-Vadhan
 * stability histograms.
 *
 * The printed algorithm is garbled; this follows the glmtron note's
 * reconstruction (2.1, Alg 2) with its corrections (2.5 items 1-2):
 * - every non-empty bin gets Lap(2/(eps1 K)) and noisy values below
 *   t = 2 ln(1/delta1)/(eps1 K) + 1/K are set to 0 (the OCR's test is not a
 *   stability histogram);
 * - under replace-one a record moves one group mean, so one unit 1/K leaves
 *   a bin and one enters another: bins present in both datasets change by
 *   an L1 distance 2/K (eps1 with the Laplace scale above); a bin that
 *   exists in one dataset only holds 1/K there and survives the cut with
 *   probability P[Lap(b) >= b ln(1/delta1)] = delta1/2, twice at most:
 *   (eps1, delta1)-DP per histogram, three histograms per call (they use
 *   the same records), which glm_privacy.c charges.
 * The bins need a scale, which the paper leaves implicit (its bins are all powers
 * of two): the threshold's domain flags lo = Delta and hi = Upsilon.  The
 * choice of bin and the fall-back to the top bin only affect the utility,
 * never the privacy.
 */
#include <config.h>

#include "dpt_glm_internal.h"

#include <gsl/gsl_cblas.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* L = ceil(log2(hi / lo)) >= 1 geometric bins after {0} and (0, lo). */
static size_t geometric_bins(const dpt_histogram_params *p)
{
    double L = ceil(log2(p->hi / p->lo));
    return L < 1.0 ? 1 : (size_t)L;
}

static size_t bin_of(double v, const dpt_histogram_params *p, size_t L)
{
    if (v == 0.0) return 0;
    if (v < p->lo) return 1;
    double k = floor(log2(v / p->lo));
    if (!(k < (double)(L - 1))) return L + 1;     /* the top bin [lo 2^(L-1), inf), NaN included */
    /* log2 may round across a power of two: put v where the bounds say */
    size_t b = 2 + (size_t)k;
    if (v < ldexp(p->lo, (int)k)) b--;
    else if (v >= ldexp(p->lo, (int)k + 1)) b++;
    return b;
}

static double right_end(size_t bin, const dpt_histogram_params *p)
{
    if (bin == 0) return 0.0;
    return ldexp(p->lo, (int)bin - 1);            /* (0, lo): lo; [lo 2^(k-2), lo 2^(k-1)): lo 2^(k-1) */
}

int glm_histogram_check(const dpt_histogram_params *p, size_t m, dpa_error *err)
{
    if (!p) return dpt_fail(err, DPA_EINVAL, "dptrain: histogram parameters are NULL");
    if (!(p->epsilon1 > 0.0 && isfinite(p->epsilon1)))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the histogram threshold's eps1 must be positive, got %g", p->epsilon1);
    if (!(p->delta1 > 0.0 && p->delta1 < 1.0))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the histogram threshold's delta1 must lie in (0, 1), got %g", p->delta1);
    if (!(p->lo > 0.0 && p->hi > p->lo && isfinite(p->hi) && p->hi / p->lo < 0x1p60))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the histogram bins need 0 < lo < hi (hi/lo < 2^60), got %g, %g",
                        p->lo, p->hi);
    if (!(p->noise_floor >= 0.0 && isfinite(p->noise_floor)))
        return dpt_fail(err, DPA_EINVAL, "dptrain: the label-noise term must be finite and >= 0, got %g", p->noise_floor);
    if (p->groups < 1 || p->groups > m)
        return dpt_fail(err, DPA_EINVAL, "dptrain: the histogram threshold needs 1 <= K <= m estimating records, got K = %zu, "
                        "m = %zu", p->groups, m);
    if (dpt_noise_check_scale(2.0 / (p->epsilon1 * (double)p->groups), "dptrain: the histogram's Laplace scale "
                              "2/(eps1 K)", err))
        return DPA_EINVAL;
    return DPA_OK;
}

/* One histogram of the K group means of v (m values): the right end of the
 * bin chosen.  `count` has L + 2 entries. */
static double one_histogram(const double *v, size_t m, const dpt_histogram_params *p, dpt_rng *rng, size_t *count)
{
    size_t L = geometric_bins(p), K = p->groups, g = m / K, bins = L + 2;
    memset(count, 0, bins * sizeof *count);
    for (size_t j = 0; j < K; j++) {
        double s = 0.0;
        for (size_t i = j * g; i < (j + 1) * g; i++) s += v[i];
        count[bin_of(s / (double)g, p, L)]++;
    }
    double scale = 2.0 / (p->epsilon1 * (double)K);
    double cut = scale * log(1.0 / p->delta1) + 1.0 / (double)K;
    double best = 0.0;
    size_t chosen = bins - 1;                     /* nothing survives: the top bin */
    for (size_t b = 0; b < bins; b++) {
        if (!count[b]) continue;                  /* empty bins stay 0 */
        double h = (double)count[b] / (double)K;
        if (rng) {
            h = dpt_noise_laplace(rng, h, dpt_scale_up(scale));
            if (h < cut) continue;
        }
        if (h > best) {
            best = h;
            chosen = b;
        }
    }
    return right_end(chosen, p);
}

double glm_histogram_threshold(const dpt_dataset *est, const double *w, const dpt_histogram_params *p, dpt_rng *rng,
                               double *work)
{
    size_t m = est->n, d = est->d;
    double *z = work, *v = work + m;
    size_t *count = (size_t *)(void *)(work + 2 * m);
    cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)m, (int)d, 1.0, est->x, (int)d, w, 1, 0.0, z, 1);
    double s = 0.0;
    for (int part = 1; part <= 3; part++) {
        for (size_t i = 0; i < m; i++) {
            double r = part == 1 ? z[i] - est->y[i] : part == 2 ? est->y[i] : z[i];
            v[i] = r * r;
        }
        double right = one_histogram(v, m, p, rng, count);
        if (part == 3) right += p->noise_floor;
        double sp = sqrt(2.0 * right);
        if (sp > s) s = sp;
    }
    return s;
}

size_t glm_histogram_work(const dpt_histogram_params *p, size_t m)
{
    size_t bins = geometric_bins(p) + 2;
    return 2 * m + (bins * sizeof(size_t) + sizeof(double) - 1) / sizeof(double);
}

int dpt_histogram_threshold(const dpt_dataset *est, const double *w, const dpt_histogram_params *p, dpt_rng *rng,
                            double *s, dpa_error *err)
{
    if (!est || !w || !s || !est->x || !est->y || est->d < 1)
        return dpt_fail(err, DPA_EINVAL, "dptrain: histogram threshold: data, model or output is NULL");
    int st = glm_histogram_check(p, est->n, err);
    if (st) return st;
    double *work = malloc(glm_histogram_work(p, est->n) * sizeof *work);
    if (!work) return dpt_fail(err, DPA_ENOMEM, "dptrain: out of memory");
    *s = glm_histogram_threshold(est, w, p, rng, work);
    free(work);
    return DPA_OK;
}
