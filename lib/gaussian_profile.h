/*
 * gaussian_profile.h - the privacy profile of the Gaussian mechanism,
 * equivalently of mu-GDP (mu = 1 / noise multiplier), shared by the
 * gaussian and gdp accountants.
 */
#ifndef DPACCT_GAUSSIAN_PROFILE_H
#define DPACCT_GAUSSIAN_PROFILE_H

/* Relative error bound of dpa_gdp_log_delta's delta, with a safety factor
 * of 100 over the largest error measured against MPFR in
 * tests/test_gaussian.c.  Certified brackets are widened by it. */
#define DPA_GDP_DELTA_RELERR 1e-11

/* log delta(eps) of mu-GDP (see gaussian_profile.c); -inf when delta = 0. */
double dpa_gdp_log_delta(double mu, double epsilon);

#endif
