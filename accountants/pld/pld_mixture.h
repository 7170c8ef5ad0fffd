/*
 * pld_mixture.h - the profiles of the mixture-of-Gaussians pairs
 * (PLD_MIXTURE_REMOVE, PLD_MIXTURE_ADD; pld_mixture.c), called by the
 * dispatcher of pld_profiles.c.  They evaluate the Gaussian pair's profile
 * per component (lib/gaussian_profile.h) and call nothing in pld_profiles.c.
 */
#ifndef DPACCT_PLD_MIXTURE_H
#define DPACCT_PLD_MIXTURE_H

#include "dpacct.h"
#include "pld_pair.h"

/* log delta(eps) and its relative error bound (pld_profile_delta_relerr's
 * meaning). */
double pld_mixture_log_delta_relerr(const pld_profile *p, double epsilon, double *relerr);
double pld_mixture_log_delta(const pld_profile *p, double epsilon);
/* log Q(L > eps), rounded up. */
double pld_mixture_log_q_survival(const pld_profile *p, double epsilon);
/* The losses of u in [-z, m_max + z] (units of sigma). */
void pld_mixture_loss_range(const pld_profile *p, double z, double *lo, double *hi);
/* log(delta(eps) - (1 - e^eps)) for eps < 0 and its bound (NaN elsewhere). */
double pld_mixture_log_excess_relerr(const pld_profile *p, double epsilon, double *relerr);

#endif
