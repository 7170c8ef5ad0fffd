/*
 * pld_pair.h - the lowest layer of the PLD profiles: the pld_pair enum (which
 * dominating pair (P, Q) a profile describes) and the pld_profile struct
 * (that pair's parameters), and nothing else.  Both pld_mechanisms.h (the
 * leaf pairs, the lower layer) and pld_profiles.h (the dispatcher, the
 * Gaussian pairs and the composite pairs, above it) include it, so that
 * neither needs the other's header for the types.
 */
#ifndef DPACCT_PLD_PAIR_H
#define DPACCT_PLD_PAIR_H

#include <stddef.h>
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
    PLD_TRUNCATED_LAPLACE, /* truncated Laplace shifted by the sensitivity 1 against centred:
                           * density e^{-eps|x - 1|} on [1 - A, 1 + A] against e^{-eps|x|}
                           * on [-A, A]; eps = eps, A = sigma (pld_mechanisms.c) */
    PLD_TRUNCATED_REMOVE, /* truncated Poisson sampling of a Gaussian (lib/truncated_poisson.c):
                           * the mixture, weights e^log_full and e^log_trunc, of the
                           * PLD_POISSON_REMOVE pairs at (sigma, q) and (sigma/2, q2) */
    PLD_TRUNCATED_ADD,    /* the same of the PLD_POISSON_ADD pairs */
    PLD_MIXTURE_REMOVE,   /* sum_i p_i N(c_i, s^2) against N(0, s^2) (pld_mixture.c): s = sigma,
                           * the components in mix (c_i >= 0), q = sum_i p_i (they are divided by it) */
    PLD_MIXTURE_ADD,      /* N(0, s^2) against that mixture */
    PLD_ALLOCATION_REMOVE, /* one epoch of random allocation, one of k = T steps (pld_allocation.c):
                           * (P1, Q), P1 the T-fold Poisson-sampled Gaussian (sigma, q = 1/T)
                           * conditioned on using the record; its profile from `nested` */
    PLD_ALLOCATION_ADD    /* (Q, P1) */
} pld_pair;

struct pld_nested;

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
    double log_full, log_trunc, weight_relerr, q2; /* PLD_TRUNCATED_*: dpa_truncated_mixture's */
    const double *mix;    /* PLD_MIXTURE_*: mix_n sensitivities then mix_n probabilities,
                           * borrowed (from the event; the pld accountant keeps a copy) */
    size_t mix_n;
    const struct pld_nested *nested; /* PLD_ALLOCATION_*: the T-fold Poisson composition the
                           * profile is read from, borrowed (the pld accountant builds and
                           * owns it); NULL until then */
} pld_profile;

#endif
