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

/* Integrand of J below, in a frame where it starts at 1. */
struct tail_ctx { double mu, b, log_phi_b; };

static double tail_integrand(double v, void *p)
{
    const struct tail_ctx *c = p;
    return exp(c->mu * v + dpa_log_ndtr(c->b - v) - c->log_phi_b);
}

/* The two terms of delta cancel when r = e^eps Phi(b) / Phi(a) is close to
 * 1 (small mu).  There we use d delta / d eps = -e^eps Phi(b), i.e.
 *   delta(eps) = int_eps^inf e^t Phi(-t/mu - mu/2) dt
 *              = mu e^eps Phi(b) J,   J = int_0^inf e^{mu v} Phi(b - v) / Phi(b) dv,
 * a positive integrand: no cancellation.  Returns NaN if QAGIU fails. */
static double log_delta_by_quadrature(double mu, double epsilon, double b, double log_phi_b)
{
    struct tail_ctx c = { mu, b, log_phi_b };
    gsl_function fn = { tail_integrand, &c };
    double j, abserr;
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(128);
    if (!w) return NAN;
    dpa_gsl_quiet();
    int st = gsl_integration_qagiu(&fn, 0.0, 0.0, 1e-13, 128, w, &j, &abserr);
    gsl_integration_workspace_free(w);
    if (st != GSL_SUCCESS || !(j > 0.0)) return NAN;
    return log(mu) + epsilon + log_phi_b + log(j);
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
    double log_phi_a = dpa_log_ndtr(a), log_phi_b = dpa_log_ndtr(b);
    if (log_phi_a == -INFINITY) return -INFINITY;
    /* log r = eps + log Phi(b) - log Phi(a).  Once a < -2 the Gaussian
     * factors cancel exactly (phi(b) e^eps = phi(a)), leaving the Mills
     * ratios R(-b) / R(-a), so the large a^2/2 terms and their rounding,
     * which 1/(1 - r) would amplify, drop out. */
    double log_r = a < -2.0 ? dpa_log_mills(-b) - dpa_log_mills(-a)
                            : epsilon + log_phi_b - log_phi_a;
    if (log_r < CANCELLATION_LIMIT) return log_phi_a + dpa_log1mexp(log_r);
    return log_delta_by_quadrature(mu, epsilon, b, log_phi_b);
}

double dpa_gdp_delta_relerr(double mu, double epsilon)
{
    double ratio = mu > 0.0 ? epsilon / mu : 0.0;
    return 1e-11 + 1e-14 * (1.0 + ratio) * (1.0 + ratio);
}

static int check_mu(double mu, dpa_error *err)
{
    if (!(mu >= 0.0 && isfinite(mu)))
        return dpa_fail(err, DPA_EINVAL, "mu must be finite and >= 0, got %g", mu);
    return DPA_OK;
}

/* One ulp-scale pad for the inputs' own rounding (mu comes from sums). */
#define INPUT_PAD (8.0 * DBL_EPSILON)

int dpa_gdp_delta(double mu, double epsilon, dpa_bound *out, dpa_error *err)
{
    int st = check_mu(mu, err);
    if (!st) st = dpa_check_epsilon(epsilon, err);
    if (st) return st;
    double ld = dpa_gdp_log_delta(mu, epsilon);
    double ld_hi = dpa_gdp_log_delta(mu * (1.0 + INPUT_PAD), epsilon);
    double ld_lo = dpa_gdp_log_delta(mu * (1.0 - INPUT_PAD), epsilon);
    if (isnan(ld) || isnan(ld_hi) || isnan(ld_lo))
        return dpa_fail(err, DPA_EACCURACY, "gdp: delta(eps=%g) for mu=%g could not be evaluated", epsilon, mu);
    out->estimate = exp(ld);
    double eta = dpa_gdp_delta_relerr(mu, epsilon);
    out->upper = fmin(1.0, exp(ld_hi) * (1.0 + eta));
    out->lower = exp(ld_lo) * (1.0 - eta);
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
    int st = check_mu(mu, err);
    if (!st) st = dpa_check_delta(delta, err);
    if (st) return st;
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
