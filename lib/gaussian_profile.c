/*
 * gaussian_profile.c - delta(eps), eps(delta) and calibration of mu-GDP,
 * which is the exact privacy profile of the Gaussian mechanism with noise
 * multiplier sigma = 1/mu.
 *
 *   delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
 *
 * (Balle & Wang 2018, Theorem 8; Dong, Roth & Su 2022, Corollary 2.13).
 */
#include "gaussian_profile.h"
#include "internal.h"
#include "numerics.h"

#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <math.h>

#define LOG_SQRT_2PI 0.91893853320467274178

/* log Phi(b - v) - log Phi(b) for v >= 0.  For b < -2 it is written with
 * Mills ratios, b v - v^2/2 + log R(|b| + v) - log R(|b|), which stays
 * accurate however large |b| is. */
static double log_tail_ratio(double b, double v)
{
    if (b < -2.0) return b * v - 0.5 * v * v + dpa_log_mills(v - b) - dpa_log_mills(-b);
    return dpa_log_ndtr(b - v) - dpa_log_ndtr(b);
}

/* Integrand of J below, with v = s / scale so that it decays on a scale of
 * order one whatever b is. */
struct tail_ctx { double mu, b, scale; };

static double tail_integrand(double s, void *p)
{
    const struct tail_ctx *c = p;
    double v = s / c->scale;
    return exp(c->mu * v + log_tail_ratio(c->b, v));
}

/* The two terms of delta cancel when r = e^eps Phi(b) / Phi(a) is close to
 * 1 (small mu, or eps far out).  There we use d delta / d eps = -e^eps Phi(b):
 *   delta(eps) = int_eps^inf e^t Phi(-t/mu - mu/2) dt
 *              = mu e^eps Phi(b) J,   J = int_0^inf e^{mu v} Phi(b - v) / Phi(b) dv,
 * a positive integrand: no cancellation.  Phi(b - v) / Phi(b) decays like
 * e^{-|b| v}, so v is rescaled by max(1, |b|).  Returns NaN if QAGIU fails. */
static double log_delta_by_quadrature(double mu, double b, double log_eb)
{
    struct tail_ctx c = { mu, b, fmax(1.0, -b) };
    gsl_function fn = { tail_integrand, &c };
    double j, abserr;
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(128);
    if (!w) return NAN;
    dpa_gsl_quiet();
    int st = gsl_integration_qagiu(&fn, 0.0, 0.0, 1e-13, 128, w, &j, &abserr);
    gsl_integration_workspace_free(w);
    if (st != GSL_SUCCESS || !(j > 0.0)) return NAN;
    return log(mu) + log_eb + log(j / c.scale);
}

/* Beyond r = 0.99 the subtraction would amplify the relative error of the
 * logs by more than 100; below it, it is cheap and accurate. */
#define CANCELLATION_LIMIT (-0.01005033585350145) /* log(0.99) */

double dpa_gdp_log_delta(double mu, double epsilon)
{
    if (isnan(mu) || isnan(epsilon) || mu < 0.0 || epsilon < 0.0) return NAN;
    if (mu == 0.0 || epsilon == INFINITY) return -INFINITY;
    if (mu == INFINITY) return 0.0;
    double a = -epsilon / mu + 0.5 * mu;
    double b = -epsilon / mu - 0.5 * mu;
    double log_phi_a = dpa_log_ndtr(a);
    if (log_phi_a == -INFINITY) return -INFINITY;
    /* log(e^eps Phi(b)).  With phi(b) e^eps = phi(a) exactly, for b < -2 it
     * is log phi(a) + log R(-b): eps and b^2/2, which may both be huge,
     * never meet. */
    double log_eb = b < -2.0 ? -0.5 * a * a - LOG_SQRT_2PI + dpa_log_mills(-b)
                             : epsilon + dpa_log_ndtr(b);
    /* log r; once a < -2 too it is the ratio of Mills ratios R(-b)/R(-a),
     * free of the a^2/2 terms whose rounding 1/(1 - r) would amplify. */
    double log_r = a < -2.0 ? dpa_log_mills(-b) - dpa_log_mills(-a) : log_eb - log_phi_a;
    if (log_r < CANCELLATION_LIMIT) return log_phi_a + dpa_log1mexp(log_r);
    return log_delta_by_quadrature(mu, b, log_eb);
}

double dpa_gdp_delta_relerr(double mu, double epsilon)
{
    if (!(mu > 0.0)) return 1e-11;
    /* a = -eps/mu + mu/2 is rounded by up to ulp(eps/mu + mu/2).  In the
     * Mills regime (a < -2) log delta moves by about |a| + 2 times that;
     * for a >= -2, by at most 4 (the slope of log Phi there) times the
     * 1/(1 - r) <= 100 amplification of the direct formula. */
    double scale = epsilon / mu + 0.5 * mu;
    double a = -epsilon / mu + 0.5 * mu;
    return 1e-11 + 8.0 * DBL_EPSILON * scale * (a < -2.0 ? 2.0 - a : 400.0);
}

/* mu = +inf is allowed: the mu of a noise multiplier so small that 1/sigma^2
 * overflows, whose two outputs are told apart with certainty (delta(eps) =
 * 1 for every eps, no finite eps at any delta < 1). */
void dpa_gdp_drop_uncertain_lower(double mu2, dpa_bound *out)
{
    if (!(mu2 < DBL_MIN)) return;
    out->lower = 0.0;
    out->flags = (out->flags & ~(unsigned)DPA_EXACT) | DPA_NO_LOWER;
}

static int check_mu(double mu, dpa_error *err)
{
    if (!(mu >= 0.0))
        return dpa_fail(err, DPA_EINVAL, "mu must be >= 0, got %g", mu);
    return DPA_OK;
}

/* One ulp-scale pad for the inputs' own rounding (mu comes from sums). */
#define INPUT_PAD (8.0 * DBL_EPSILON)

int dpa_gdp_delta(double mu, double epsilon, dpa_bound *out, dpa_error *err)
{
    if (!out) return dpa_fail(err, DPA_EINVAL, "gdp_delta: the output (out) is NULL");
    int st = check_mu(mu, err);
    if (!st) st = dpa_check_epsilon(epsilon, err);
    if (st) return st;
    if (mu == INFINITY) {
        out->lower = out->estimate = out->upper = 1.0;
        out->order = 0.0;
        out->flags = DPA_EXACT;
        return DPA_OK;
    }
    double ld = dpa_gdp_log_delta(mu, epsilon);
    double ld_hi = dpa_gdp_log_delta(mu * (1.0 + INPUT_PAD), epsilon);
    double ld_lo = dpa_gdp_log_delta(mu * (1.0 - INPUT_PAD), epsilon);
    if (isnan(ld) || isnan(ld_hi) || isnan(ld_lo))
        return dpa_fail(err, DPA_EACCURACY, "gdp: delta(eps=%g) for mu=%g could not be evaluated", epsilon, mu);
    out->estimate = exp(ld);
    double eta = dpa_gdp_delta_relerr(mu, epsilon);
    /* delta > 0 for every mu > 0: an upper bound that underflowed to 0 would be a lie */
    double up = exp(ld_hi) * (1.0 + eta), lo = exp(ld_lo) * (1.0 - eta);
    /* Below DBL_MIN a double keeps fewer bits: exp's rounding and the
     * product's (half an ulp each) are relative errors up to 1e-5 there,
     * which eta does not cover (delta = 6.06e-319 came out 1.4e-324 below
     * MPFR): two ulps outwards */
    if (up < DBL_MIN) up = nextafter(nextafter(up, INFINITY), INFINITY);
    if (lo < DBL_MIN) lo = nextafter(nextafter(lo, 0.0), 0.0);
    out->upper = fmin(1.0, fmax(up, mu > 0.0 ? DBL_TRUE_MIN : 0.0));
    out->lower = fmax(0.0, lo);
    out->order = 0.0;
    out->flags = DPA_EXACT;
    return DPA_OK;
}

/* f(eps) = log delta(eps) + side * log(1 + eta(eps)) - log delta_target,
 * decreasing in eps; side = +1 for a certified upper eps, -1 for a lower. */
struct eps_ctx { double mu, side, log_target; };

static double eps_gap(double eps, void *p)
{
    const struct eps_ctx *c = p;
    double pad = c->side * log1p(dpa_gdp_delta_relerr(c->mu, eps));
    return dpa_gdp_log_delta(c->mu, eps) + pad - c->log_target;
}

/* The smallest eps with log delta(eps) + pad <= log delta_target; the
 * bracket's side where the inequality holds is returned in *eps_ok, the
 * other side in *eps_fail. */
static int solve_eps(double mu, double side, double log_target, double *eps_ok,
                     double *eps_fail, dpa_error *err)
{
    struct eps_ctx c = { mu, side, log_target };
    if (eps_gap(0.0, &c) <= 0.0) { *eps_ok = *eps_fail = 0.0; return DPA_OK; }
    /* delta(eps) <= Phi(a) <= exp(-a^2/2) once a < 0, so this hi satisfies the
     * target; doubled until verified, in case of rounding. */
    double hi = mu * mu / 2.0 + mu * sqrt(2.0 * (1.0 - log_target));
    hi = fmax(hi, 1e-12);
    for (int i = 0; eps_gap(hi, &c) > 0.0; i++) {
        if (i > 60 || !isfinite(hi))
            return dpa_fail(err, DPA_EACCURACY, "gdp: no finite eps found for mu=%g", mu);
        hi *= 2.0;
    }
    dpa_root r;
    int st = dpa_find_root(eps_gap, &c, 0.0, hi, 0.0, 4.0 * DBL_EPSILON, 400, &r);
    if (st) return dpa_fail(err, st, "gdp: eps(delta) root search failed for mu=%g", mu);
    *eps_ok = r.at_hi_side;
    *eps_fail = r.at_lo_side;
    return DPA_OK;
}

int dpa_gdp_epsilon(double mu, double delta, dpa_bound *out, dpa_error *err)
{
    if (!out) return dpa_fail(err, DPA_EINVAL, "gdp_epsilon: the output (out) is NULL");
    int st = check_mu(mu, err);
    if (!st) st = dpa_check_delta(delta, err);
    if (st) return st;
    if (!isfinite(0.5 * mu * mu)) {
        /* eps >= mu^2/2 - mu sqrt(2 log(1/delta)) exceeds the largest double */
        out->lower = DBL_MAX;
        out->estimate = out->upper = INFINITY;
        out->order = 0.0;
        out->flags = DPA_UNBOUNDED;
        return DPA_OK;
    }
    double lt = log(delta), ok, fail, lower, upper;
    /* upper: even if our delta were too small by the error bound, it meets delta */
    st = solve_eps(mu * (1.0 + INPUT_PAD), 1.0, lt, &upper, &fail, err);
    if (!st) st = solve_eps(mu * (1.0 - INPUT_PAD), -1.0, lt, &ok, &lower, err);
    if (!st) st = solve_eps(mu, 0.0, lt, &ok, &fail, err);
    if (st) return st;
    out->lower = lower;
    out->upper = upper;
    out->estimate = 0.5 * (ok + fail);
    out->order = 0.0;
    out->flags = DPA_EXACT;
    return DPA_OK;
}

/* g(log mu) = log delta(eps; mu) + side * log(1 + eta) - log delta_target:
 * increasing in mu. */
struct mu_ctx { double eps, side, log_target; };

static double mu_gap(double log_mu, void *p)
{
    const struct mu_ctx *c = p;
    double mu = exp(log_mu);
    double pad = c->side * log1p(dpa_gdp_delta_relerr(mu, c->eps));
    return dpa_gdp_log_delta(mu, c->eps) + pad - c->log_target;
}

/* The largest mu with log delta(eps; mu) + pad <= log delta_target. */
static int solve_mu(double epsilon, double side, double log_target, double *mu_ok,
                    double *mu_fail, dpa_error *err)
{
    struct mu_ctx c = { epsilon, side, log_target };
    double lo = -1.0, hi = 1.0;
    for (int i = 0; mu_gap(lo, &c) > 0.0; i++) {
        if (i > 60) return dpa_fail(err, DPA_EACCURACY, "gdp: mu search underflowed");
        lo -= 4.0;
    }
    for (int i = 0; !(mu_gap(hi, &c) > 0.0); i++) {
        if (i > 60) return dpa_fail(err, DPA_EACCURACY, "gdp: mu search overflowed");
        hi += 4.0;
    }
    dpa_root r;
    int st = dpa_find_root(mu_gap, &c, lo, hi, 4.0 * DBL_EPSILON, 0.0, 400, &r);
    if (st) return dpa_fail(err, st, "gdp: mu(eps, delta) root search failed");
    *mu_ok = exp(r.at_lo_side);
    *mu_fail = exp(r.at_hi_side);
    return DPA_OK;
}

int dpa_gdp_mu(double epsilon, double delta, dpa_bound *out, dpa_error *err)
{
    if (!out) return dpa_fail(err, DPA_EINVAL, "gdp_mu: the output (out) is NULL");
    int st = dpa_check_epsilon(epsilon, err);
    if (!st) st = dpa_check_delta(delta, err);
    if (st) return st;
    double lt = log(delta), ok, fail, lower, upper;
    /* lower: a mu that certainly meets (eps, delta); upper: certainly does not */
    st = solve_mu(epsilon, 1.0, lt, &lower, &fail, err);
    if (!st) st = solve_mu(epsilon, -1.0, lt, &ok, &upper, err);
    if (!st) st = solve_mu(epsilon, 0.0, lt, &ok, &fail, err);
    if (st) return st;
    out->lower = lower * (1.0 - INPUT_PAD);
    out->upper = upper * (1.0 + INPUT_PAD);
    out->estimate = 0.5 * (ok + fail);
    out->order = 0.0;
    out->flags = DPA_EXACT;
    return DPA_OK;
}

int dpa_gaussian_sigma(double epsilon, double delta, dpa_bound *out, dpa_error *err)
{
    if (!out) return dpa_fail(err, DPA_EINVAL, "gaussian_sigma: the output (out) is NULL");
    dpa_bound mu;
    int st = dpa_gdp_mu(epsilon, delta, &mu, err);
    if (st) return st;
    /* sigma = 1/mu: the safe (upper) sigma comes from the certified lower mu */
    out->lower = 1.0 / mu.upper;
    out->estimate = 1.0 / mu.estimate;
    out->upper = 1.0 / mu.lower;
    out->order = 0.0;
    out->flags = DPA_EXACT;
    return DPA_OK;
}

/* delta at any eps: the pair is symmetric. */
static double pair_log_delta(double mu, double eps)
{
    if (eps >= 0.0) return dpa_gdp_log_delta(mu, eps);
    /* delta(eps) = 1 - e^eps + e^eps delta(-eps): the pair is symmetric */
    return log(-expm1(eps) + exp(eps + dpa_gdp_log_delta(mu, -eps)));
}

double dpa_gaussian_pair_log_delta_relerr(double mu, double epsilon, double *relerr)
{
    double ld = pair_log_delta(mu, epsilon);
    *relerr = 1e-13;
    if (!isfinite(epsilon) || ld == -INFINITY) return ld;   /* nothing to pad */
    double r = dpa_gdp_delta_relerr(mu, fabs(epsilon));
    if (epsilon >= 0.0) {
        *relerr = r;
        return ld;
    }
    /* only the second term's share of delta carries that error (this also
     * keeps it finite far out) */
    double share = exp(epsilon + dpa_gdp_log_delta(mu, -epsilon) - ld);
    *relerr = fmin(r, 1e-13 + 4.0 * DBL_EPSILON + (share > 0.0 ? fmin(share, 1.0) * r : 0.0));
    return ld;
}
