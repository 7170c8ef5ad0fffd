/*
 * gaussian_profile.h - the privacy profile of the Gaussian mechanism,
 * equivalently of mu-GDP (mu = 1 / noise multiplier), shared by the
 * gaussian and gdp accountants.
 */
#ifndef DPACCT_GAUSSIAN_PROFILE_H
#define DPACCT_GAUSSIAN_PROFILE_H

/* Relative error bound of exp(dpa_gdp_log_delta(mu, eps)).  Certified
 * brackets are widened by it.  The constant part is 250 times the largest
 * error measured against MPFR over mu in [1e-3, 50], delta in [1e-30, 0.5]
 * (4e-14, tests/test_gaussian.c); the second part covers the rounding of
 * a = -eps/mu + mu/2, whose effect grows like (eps/mu)^2 ulp. */
double dpa_gdp_delta_relerr(double mu, double epsilon);

/* log delta(eps) of mu-GDP (see gaussian_profile.c); -inf when delta = 0. */
double dpa_gdp_log_delta(double mu, double epsilon);

/* The same at any real eps (below 0 by the pair's symmetry, delta(eps) =
 * 1 - e^eps + e^eps delta(-eps)), with its relative error bound in *relerr
 * (1e-13 at an infinite eps, where delta is 0 or 1 exactly). */
double dpa_gaussian_pair_log_delta_relerr(double mu, double epsilon, double *relerr);

/* mu^2 below the normal double range came from terms rounded up to keep
 * them positive (dpa_positive_up): an upper bound on the true mu^2, but not
 * a lower one, so a lower bound computed from it is not certified.  Drops
 * out's lower bound (0, DPA_NO_LOWER, no longer exact) in that case. */
#include "dpacct.h"
void dpa_gdp_drop_uncertain_lower(double mu2, dpa_bound *out);

#endif
