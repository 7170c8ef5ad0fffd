/*
 * pld_mechanisms.h - the lower layer of the PLD profiles: the profiles of
 * the leaf pairs other than the Gaussian ones (Laplace, truncated Laplace,
 * randomized response, (eps, delta), discrete Laplace and Gaussian,
 * replace-one Poisson-subsampled Gaussian, shuffle clones;
 * pld_mechanisms.c).  Private to pld_profiles.c, whose dispatcher calls
 * these for those pairs (they return NaN for any other pair); nothing
 * here calls back into pld_profiles.c or includes pld_profiles.h.
 */
#ifndef DPACCT_PLD_MECHANISMS_H
#define DPACCT_PLD_MECHANISMS_H

#include "pld_pair.h"

double pld_mech_log_delta(const pld_profile *p, double epsilon);
double pld_mech_log_q_survival(const pld_profile *p, double epsilon);
void pld_mech_loss_range(const pld_profile *p, double z, double *lo, double *hi);
double pld_mech_delta_relerr(const pld_profile *p, double epsilon);

/* log delta(eps) of the shuffle clones pair and its relative error bound,
 * from one bracketed evaluation (shuffle_clones.c). */
double pld_mech_clones_log_delta(const pld_profile *p, double epsilon, double *relerr);

/* log sum_{x in Z} e^{-x^2 / (2 sigma^2)}. */
double pld_discrete_gaussian_log_norm(double sigma);

/* log delta(eps) for eps < 0 of a symmetric pair, from log delta(-eps):
 * log(1 - e^eps + e^eps delta(-eps)) (pld_mechanisms.c, identity (3)). */
double pld_reflect_log_delta(double eps, double log_delta_neg);

#endif
