/*
 * noisy_cgd.c - the hidden-state (final iterate) privacy of noisy cyclic
 * gradient descent: mu-GDP by Bok, Su & Altschuler, "Shifted Interpolation
 * for Differential Privacy" (ICML 2024; Thm 4.5 in the numbering of
 * arXiv:2403.00278, which Koskela cites), as restated in Koskela,
 * "Approximating Two-Layer ReLU Networks for Hidden State Analysis in
 * Differential Privacy" (arXiv 2024), Thm 2.8
 * (../shared/notes/noisycgd-seed-001.md 2.3):
 *
 *   mu = (s / sigma) sqrt(1 + c^{2k-2} (1 - c^2) / (1 - c^k)^2
 *                             (1 - c^{k(E-1)}) / (1 + c^{k(E-1)})),
 *   c = max(|1 - eta m|, |1 - eta M|),
 *
 * for m-strongly convex, M-smooth losses, step eta in (0, 2/M) (so c < 1),
 * k batches visited cyclically for E epochs, s the sensitivity of the batch
 * gradient the noise N(0, sigma^2 I) is added to (L/b for the mean of b
 * gradients of per-example sensitivity L; the note's s/sigma = 2/sigma for
 * clipping C under replace-one with sigma_Z = sigma C / b).
 *
 * With x = 1 - c (formed without cancellation from eta m and eta M) the
 * bracket is 1 + c^{2k-2} x (2 - x) / expm1(k log1p(-x))^2 tanh(u/2),
 * u = -k (E - 1) log1p(-x): every factor without cancellation, and the c -> 1
 * limit 1 + (E - 1)/k taken where k E x is below 1e-12 (mu decreases in x,
 * so the limit is the larger, safe value).
 */
#include "internal.h"

#include <math.h>

/* 1 - |1 - y| for y = eta times a curvature in (0, 2) */
static double one_minus_contraction(double y)
{
    return y <= 1.0 ? y : 2.0 - y;
}

int dpa_noisy_cgd_mu(const dpa_noisy_cgd_params *p, double *mu, dpa_error *err)
{
    if (!p) return dpa_fail(err, DPA_EINVAL, "noisy_cgd: the parameters (p) are NULL");
    if (!mu) return dpa_fail(err, DPA_EINVAL, "noisy_cgd: the output (mu) is NULL");
    double m = p->strong_convexity, M = p->smoothness, eta = p->step_size;
    if (!(m > 0.0 && isfinite(m)))
        return dpa_fail(err, DPA_EINVAL, "noisy_cgd: strong convexity m must be positive, got %g", m);
    if (!(isfinite(M) && M >= m))
        return dpa_fail(err, DPA_EINVAL, "noisy_cgd: smoothness M must be finite and >= m, got %g", M);
    if (!(eta > 0.0 && eta < 2.0 / M))
        return dpa_fail(err, DPA_EINVAL,
                        "noisy_cgd: step size must lie in (0, 2/M) = (0, %g) so that the map contracts, got %g",
                        2.0 / M, eta);
    if (!(p->sensitivity > 0.0 && isfinite(p->sensitivity)))
        return dpa_fail(err, DPA_EINVAL, "noisy_cgd: sensitivity must be positive, got %g", p->sensitivity);
    if (!(p->sigma > 0.0 && isfinite(p->sigma)))
        return dpa_fail(err, DPA_EINVAL, "noisy_cgd: sigma must be positive, got %g", p->sigma);
    if (p->batches < 1 || p->epochs < 1)
        return dpa_fail(err, DPA_EINVAL, "noisy_cgd: batches and epochs must be at least 1");
    double k = (double)p->batches, E = (double)p->epochs;
    double x = fmin(one_minus_contraction(eta * m), one_minus_contraction(eta * M));
    double bracket;
    if (p->epochs == 1) {
        bracket = 1.0;                       /* later steps are post-processing */
    } else if (!(k * E * x >= 1e-12)) {
        bracket = 1.0 + (E - 1.0) / k;       /* the c -> 1 limit, an upper bound */
    } else {
        double log_c = log1p(-x);            /* -inf when c = 0 */
        double c_pow = p->batches == 1 ? 1.0 : exp((2.0 * k - 2.0) * log_c);
        double one_minus_ck = -expm1(k * log_c);
        double u = -k * (E - 1.0) * log_c;
        bracket = 1.0 + c_pow * x * (2.0 - x) / (one_minus_ck * one_minus_ck) * tanh(0.5 * u);
    }
    /* a few ulps per operation, rounded against the user */
    *mu = p->sensitivity / p->sigma * sqrt(bracket) * (1.0 + 1e-13);
    if (!isfinite(*mu))
        return dpa_fail(err, DPA_EINVAL, "noisy_cgd: mu overflows (sensitivity %g / sigma %g)", p->sensitivity,
                        p->sigma);
    return DPA_OK;
}

int dpa_event_noisy_cgd_mu(const dpa_event *e, double *mu)
{
    dpa_noisy_cgd_params p = { e->param[0], e->param[1], e->param[2], e->param[3], e->param[4],
                               e->count[0], e->count[1] };
    return dpa_noisy_cgd_mu(&p, mu, NULL);
}
