/*
 * noise.c - additive noise rounded to a grid (see dptrain.h).
 * PLACEHOLDER: inversion in double only; to be replaced by the exact
 * sampler with the MPFR slow path.
 */
#include <config.h>

#include "dpt_internal.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

int dpt_noise_check_scale(double s, const char *who, dpa_error *err)
{
    if (!(s >= DPT_NOISE_MIN_SCALE && s <= DPT_NOISE_MAX_SCALE))
        return dpt_fail(err, DPA_EINVAL, "%s: the noise scale %.17g is outside [%g, %g]", who, s,
                        DPT_NOISE_MIN_SCALE, DPT_NOISE_MAX_SCALE);
    return DPA_OK;
}

static double grid_step(double s)
{
    int e;
    frexp(s, &e);
    return ldexp(1.0, e - 1 - 20);
}

static double open_uniform(dpt_rng *r)
{
    return ((double)(dpt_rng_u64(r) >> 11) + 0.5) * 0x1p-53;
}

static int bad(double v, double s)
{
    return !isfinite(v) || !(s >= DPT_NOISE_MIN_SCALE && s <= DPT_NOISE_MAX_SCALE);
}

double dpt_noise_gaussian(dpt_rng *r, double v, double sigma)
{
    if (bad(v, sigma)) return NAN;
    double g = grid_step(sigma);
    double z = sigma * gsl_cdf_ugaussian_Pinv(open_uniform(r));
    return g * nearbyint((v + z) / g);
}

double dpt_noise_laplace(dpt_rng *r, double v, double b)
{
    if (bad(v, b)) return NAN;
    double g = grid_step(b);
    double u = open_uniform(r) - 0.5;
    double z = u < 0 ? b * log1p(2.0 * u) : -b * log1p(-2.0 * u);
    return g * nearbyint((v + z) / g);
}

double dpt_noise_truncated_laplace(dpt_rng *r, double v, double b, double A)
{
    if (bad(v, b) || !(A > 0.0 && A <= DPT_NOISE_MAX_SCALE)) return NAN;
    double g = grid_step(b);
    double z;
    do {
        double u = open_uniform(r) - 0.5;
        z = u < 0 ? b * log1p(2.0 * u) : -b * log1p(-2.0 * u);
    } while (fabs(z) > A);
    return g * nearbyint((v + z) / g);
}
