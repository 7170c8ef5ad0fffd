/*
 * mpfr_ref.h - reference values computed in MPFR at high precision,
 * independently of the library's double-precision code paths.
 */
#ifndef DPACCT_TESTS_MPFR_REF_H
#define DPACCT_TESTS_MPFR_REF_H

/* log Phi(x), Phi the standard normal CDF. */
double ref_log_ndtr(double x);
/* log of the Mills ratio (1 - Phi(x)) / phi(x). */
double ref_log_mills(double x);
/* log(1 - e^x), log(e^a + e^b), log(e^a - e^b). */
double ref_log1mexp(double x);
double ref_log_add_exp(double a, double b);
double ref_log_sub_exp(double a, double b);
/* delta(eps) of mu-GDP: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2),
 * evaluated at 512 bits so that the cancellation cannot reach the result. */
double ref_gdp_delta(double mu, double eps);
/* log delta(eps), for deltas below the double range. */
double ref_gdp_log_delta(double mu, double eps);
/* The eps with delta(eps) = delta, by bisection in MPFR (0 if delta(0) <= delta). */
double ref_gdp_epsilon(double mu, double delta);
/* Renyi DP eps(alpha) of the Poisson-subsampled Gaussian (rate q, noise
 * multiplier sigma, add/remove): log(E_mu0[(mu/mu0)^alpha]) / (alpha - 1) by
 * the trapezoidal rule in MPFR, whose error for this analytic integrand
 * falls like exp(-2 pi d / h) (d = pi sigma, the distance to the nearest
 * complex singularity); h is chosen for an error far below 1e-30. */
double ref_sgm_rdp(double q, double sigma, double alpha);
/* The other direction, log(E_mu0[(mu/mu0)^(1-alpha)]) / (alpha - 1) = D_alpha(mu0 || mu). */
double ref_sgm_rdp_reverse(double q, double sigma, double alpha);
/* Relative difference |x - ref| / |ref| (0 when both are 0). */
double rel_err(double x, double ref);

#endif
