/*
 * pld_mechanisms.h - private to pld_profiles.c: the profiles of the pairs
 * added after the Gaussian ones (pld_mechanisms.c).
 */
#ifndef DPACCT_PLD_MECHANISMS_H
#define DPACCT_PLD_MECHANISMS_H

#include "pld_profiles.h"

double pld_mech_log_delta(const pld_profile *p, double epsilon);
double pld_mech_log_q_survival(const pld_profile *p, double epsilon);
void pld_mech_loss_range(const pld_profile *p, double z, double *lo, double *hi);
double pld_mech_delta_relerr(const pld_profile *p, double epsilon);

/* log delta(eps) of the shuffle clones pair and its relative error bound,
 * from one bracketed evaluation (shuffle_clones.c). */
double pld_mech_clones_log_delta(const pld_profile *p, double epsilon, double *relerr);

/* log sum_{x in Z} e^{-x^2 / (2 sigma^2)}. */
double pld_discrete_gaussian_log_norm(double sigma);

#endif
