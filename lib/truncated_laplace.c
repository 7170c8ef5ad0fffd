/*
 * truncated_laplace.c - the calibration of the truncated Laplace mechanism
 * (Geng, Ding, Guo & Kumar 2020, Def. 2 and Thm 1; Lemma 3.2 and Lemma G.2
 * of Gu, Liang, Sha, Shi & Song, "Differential Privacy Mechanisms in Neural
 * Tangent Kernel Regression", WACV 2025;
 * ../shared/notes/ntk-sparse-seeds-002-004.md 1.2):
 *
 *   density proportional to e^(-eps |z| / Delta) on [-A, A],
 *   A = (Delta / eps) ln(1 + (e^eps - 1) / (2 delta)).
 *
 * For a query of sensitivity Delta the two output densities differ by at
 * most e^eps where both are positive, and the strip [A - Delta, A] that
 * one of them misses has mass (e^eps - 1) / (2 (e^(eps A/Delta) - 1)),
 * which equals delta at this A (note 1.2, [D]).  A larger A only shrinks the
 * strip's mass, so A is rounded up.  The strip lies inside the support
 * (A >= Delta) exactly when delta <= 1/2.
 *
 * Its privacy loss distribution (the accountants' business) is in
 * accountants/pld/pld_mechanisms.c.
 */
#include "internal.h"

#include <float.h>
#include <math.h>

int dpa_truncated_laplace_bound(double sensitivity, double epsilon, double delta, double *bound, dpa_error *err)
{
    if (!bound) return dpa_fail(err, DPA_EINVAL, "truncated_laplace: output pointer is NULL");
    *bound = NAN;
    if (!(sensitivity > 0.0 && isfinite(sensitivity)))
        return dpa_fail(err, DPA_EINVAL, "truncated_laplace: sensitivity must be positive and finite, got %g",
                        sensitivity);
    if (!(epsilon > 0.0 && isfinite(epsilon)))
        return dpa_fail(err, DPA_EINVAL, "truncated_laplace: epsilon must be positive and finite, got %g", epsilon);
    if (!(delta > 0.0 && delta <= 0.5))
        return dpa_fail(err, DPA_EINVAL,
                        "truncated_laplace: delta must lie in (0, 1/2] (above 1/2 the missed strip would be "
                        "wider than the support), got %g",
                        delta);
    /* ln(1 + x) with x = expm1(eps) / (2 delta); for a large eps work in
     * logs: ln(1 + x) = ln x + log1p(1/x), ln x = eps + log(-expm1(-eps)) - ln(2 delta) */
    double log_term;
    if (epsilon < 700.0) {
        log_term = log1p(expm1(epsilon) / (2.0 * delta));
    } else {
        double log_x = epsilon + log(-expm1(-epsilon)) - log(2.0 * delta);
        log_term = log_x + log1p(exp(-log_x));
    }
    double a = sensitivity / epsilon * log_term;
    /* a handful of roundings, each within an ulp: 8 ulps up covers them */
    a *= 1.0 + 8.0 * DBL_EPSILON;
    if (!isfinite(a))
        return dpa_fail(err, DPA_EINVAL, "truncated_laplace: the bound overflows (sensitivity %g, epsilon %g)",
                        sensitivity, epsilon);
    *bound = a;
    return DPA_OK;
}
