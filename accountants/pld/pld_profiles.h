/*
 * pld_profiles.h - exact single-step privacy profiles for the PLD grids
 * (issue 4): log delta(eps) at any real eps, log Q(L > eps), and the loss
 * range outside which the profile is negligible, for every leaf event with
 * a known dominating pair (see pld_profiles.c and pld_mechanisms.c).
 */
#ifndef DPACCT_PLD_PROFILES_H
#define DPACCT_PLD_PROFILES_H

#include "dpacct.h"

#include <stdint.h>

/* The pair (P, Q) a profile describes.  The first three keep their meaning
 * and their field use (pair, sigma, q) from the first version. */
typedef enum {
    PLD_GAUSSIAN,         /* N(1, s^2) against N(0, s^2); s = sigma */
    PLD_POISSON_REMOVE,   /* (1-q) N(0,s^2) + q N(1,s^2) against N(0, s^2) */
    PLD_POISSON_ADD,      /* N(0, s^2) against (1-q) N(0,s^2) + q N(1,s^2) */
    PLD_LAPLACE,          /* Lap(1, b) against Lap(0, b); b = sigma */
    PLD_RANDOMIZED_RESPONSE, /* k-ary RR, outputs for two different inputs; eps, k */
    PLD_DISCRETE_LAPLACE, /* P(x) ~ e^{-|x - k|/t} against e^{-|x|/t} on Z; t = sigma, k = sensitivity */
    PLD_DISCRETE_GAUSSIAN, /* N_Z(k, s^2) against N_Z(0, s^2); s = sigma, log_norm = log sum_x e^{-x^2/(2 s^2)} */
    PLD_EPSILON_DELTA,    /* the four-point pair of an (eps, delta) black box; eps, delta */
    PLD_REPLACE_GAUSSIAN, /* replace-one Poisson-subsampled Gaussian (Lebeda et al. 2024):
                           * (1-q) N(0,s^2) + q N(1,s^2) against (1-q) N(0,s^2) + q N(-1,s^2);
                           * s = sigma (twice the event's noise multiplier, see of_event) */
    PLD_SAMPLED_REMOVE,   /* (q P + (1-q) Q, Q), (P, Q) the pair `inner` with this struct's parameters */
    PLD_SAMPLED_ADD,      /* (Q, q P + (1-q) Q) */
    PLD_SHUFFLE_CLONES,   /* the clones pair of n shuffled eps0-local randomizers (shuffle_clones.c);
                           * eps = eps0, k = n, randomizer = the dpa_local_class */
    PLD_WITHOUT_REPLACEMENT, /* sampling of m records out of n without replacement,
                           * replace-one, q = m/n: the pair whose profile is
                           * max(delta of (q P + (1-q) Q, Q), delta of (Q, q P + (1-q) Q)),
                           * (P, Q) the pair `inner` (PLD_GAUSSIAN or a
                           * symmetric leaf) with this struct's parameters */
    PLD_TRUNCATED_LAPLACE /* truncated Laplace shifted by the sensitivity 1 against centred:
                           * density e^{-eps|x - 1|} on [1 - A, 1 + A] against e^{-eps|x|}
                           * on [-A, A]; eps = eps, A = sigma (pld_mechanisms.c) */
} pld_pair;

typedef struct pld_profile {
    pld_pair pair;
    double sigma, q;
    /* added for the other mechanisms; initialise with designated
     * initialisers ({ .pair = ..., .sigma = ..., .q = ... }): positional
     * three-field ones zero the rest too but trip
     * -Wmissing-field-initializers under -Wextra -Werror */
    pld_pair inner;       /* PLD_SAMPLED_*, PLD_WITHOUT_REPLACEMENT: the inner pair's kind (one of the
                           * symmetric leaves PLD_GAUSSIAN, PLD_LAPLACE, ...,
                           * PLD_EPSILON_DELTA); its parameters are the fields here */
    double eps, delta;    /* randomized response, (eps, delta) */
    uint64_t k;           /* randomized response: k; discrete mechanisms: sensitivity */
    double log_norm;      /* discrete Gaussian: set by pld_profile_of_event or
                           * pld_profile_discrete_gaussian */
    int randomizer;       /* shuffle clones: the dpa_local_class */
} pld_profile;

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

#endif
