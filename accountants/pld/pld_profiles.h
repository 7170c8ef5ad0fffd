/*
 * pld_profiles.h - exact single-step privacy profiles for the PLD grids
 * (issue 4): log delta(eps) at any real eps, log Q(L > eps), and the loss
 * range outside which the profile is negligible, for every leaf event with
 * a known dominating pair.  The upper layer: pld_profiles.c maps events to
 * pairs, dispatches on the pair, and holds the Gaussian pairs and the
 * composite ones (Poisson sampling of a leaf, sampling without
 * replacement), which recurse through the dispatcher; the leaf pairs are
 * below it in pld_mechanisms.c, which never calls up.  The pld_pair and
 * pld_profile types are in pld_pair.h.
 */
#ifndef DPACCT_PLD_PROFILES_H
#define DPACCT_PLD_PROFILES_H

#include "dpacct.h"
#include "pld_pair.h"

#include <stdint.h>

/* The dominating pairs of one leaf event (anything but a composed or
 * self-composed node) under `relation`: pairs[0] for the "remove" world
 * (the differing record is in the first dataset) and pairs[1] for the "add"
 * world, composed separately by the accountant, which reports the larger
 * delta.  A symmetric mechanism, or the replace-one relation, gives the same
 * pair twice.  DPA_EUNSUPPORTED, with the reason in err, for events whose
 * privacy loss distribution is not known here; DPA_EINVAL for parameters
 * out of their domain. */
int pld_profile_of_event(const dpa_event *leaf, dpa_relation relation, pld_profile pairs[2],
                         dpa_error *err);

/* Where the pair's atoms (losses of positive mass, +-inf aside) lie: 0
 * when it has none other than at loss 0, a > 0 when every atom is at a
 * multiple of a (a grid whose step divides a puts them on nodes, where the
 * discretisations are exact), NaN when they lie on no lattice. */
double pld_profile_atom_spacing(const pld_profile *p);

/* Whether two profiles describe the same pair (field by field: padding
 * bytes are not compared). */
int pld_profile_equal(const pld_profile *a, const pld_profile *b);

/* A discrete Gaussian profile with its normalising constant filled in. */
pld_profile pld_profile_discrete_gaussian(double sigma, uint64_t sensitivity);

/* log delta(eps) = log H_{e^eps}(P || Q), any real eps; -inf where delta = 0. */
double pld_profile_log_delta(double epsilon, void *profile);
/* log Q(L > eps) (strictly greater: atoms at eps are not counted).  An
 * atom at an irrational loss (e.g. at -log(1 - q) in the add world of a
 * Poisson-sampled (eps, delta) pair) is placed to within rounding: at an
 * eps within a few ulps of it, either side may be taken. */
double pld_profile_log_q_survival(double epsilon, void *profile);
/* Losses [lo, hi] outside which P and Q hold less than about 1e-40 (the
 * P-mass at loss +inf of an (eps, delta) pair is not in any finite range;
 * it is in delta(eps) for every eps). */
void pld_profile_loss_range(const pld_profile *p, double *lo, double *hi);
/* The same for the normal tails cut at z standard deviations instead of 14
 * (pld_profile_loss_range): outside, P holds at most about 2 Phibar(z). */
void pld_profile_loss_range_z(const pld_profile *p, double z, double *lo, double *hi);
/* log delta(eps) and its relative error bound (*relerr) at once: the same
 * values as pld_profile_log_delta and pld_profile_delta_relerr, cheaper. */
double pld_profile_log_delta_relerr(double epsilon, const pld_profile *p, double *relerr);
/* Relative error bound of exp(pld_profile_log_delta) at eps.  One
 * exception, absolute: for the generic Poisson-sampled pairs
 * (PLD_SAMPLED_*), within a few ulps of the extreme loss +-log(1 - q)
 * the excess e^{+-eps} - (1 - q) is lost to rounding and delta, which is
 * below 1e-15 there, may be returned as 0. */
double pld_profile_delta_relerr(const pld_profile *p, double epsilon);
/* For eps < 0: log(delta(eps) - (1 - e^eps)), the profile's excess over the
 * line it approaches on the left, computed without the cancellation of
 * delta - (1 - e^eps) (as eps + log delta_rev(-eps), the reversed pair's
 * profile), and its relative error bound in *relerr.  NaN (and *relerr
 * NaN) where the pair does not provide it or eps >= 0. */
double pld_profile_log_excess_relerr(double epsilon, const pld_profile *p, double *relerr);
/* Whether pld_profile_log_excess_relerr provides the pair's excess. */
int pld_profile_has_excess(const pld_profile *p);

#endif
