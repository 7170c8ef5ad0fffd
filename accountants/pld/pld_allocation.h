/*
 * pld_allocation.h - the privacy profiles of one epoch of random allocation
 * (each record in one of T steps chosen uniformly; Feldman & Shenfeld,
 * "Privacy amplification by random allocation", 2025) with Gaussian noise,
 * read from the T-fold composition of the Poisson-sampled Gaussian at
 * q = 1/T, which pld.c builds (the nested grids) and pld_allocation.c
 * transforms.  See pld_allocation.c for the pair and the proofs.
 */
#ifndef DPACCT_PLD_ALLOCATION_H
#define DPACCT_PLD_ALLOCATION_H

#include "pld_grid.h"
#include "pld_pair.h"

#include <stddef.h>
#include <stdint.h>

/* The most steps an epoch the accountant composes (pld_profiles.c). */
#define ALLOCATION_MAX_STEPS ((uint64_t)100000000)

/* One world's T-fold Poisson composition at q = 1/T, both sides. */
typedef struct pld_nested {
    int add;                       /* 0: (M, Q), the remove world; 1: (Q, M), the add world */
    uint64_t steps;                /* T */
    double sigma;
    double lambda_lo, lambda_hi;   /* lambda = 1 - (1 - 1/T)^T, bracketed */
    pld_grid grid[2];              /* [PLD_UPPER], [PLD_LOWER], tilted */
    pld_profile_table table[2];
    /* the upper side once more at a steeper tilt (its FFT rounding small
     * far in the right tail, where the first's is a floor): the upper
     * bound is the smaller of the two; n_steep = 0 or 1 */
    int n_steep;
    pld_grid steep;
    pld_profile_table steep_table;
    double *qsuf;                  /* the lower grid's second-distribution masses (Q in the
                                    * remove world, M in the add world), summed from node i
                                    * up, rounded up; grid[PLD_LOWER].n + 1 entries */
    double lo, hi;                 /* the allocation pair's loss range */
} pld_nested;

/* lambda = 1 - (1 - 1/T)^T, the probability that Poisson sampling at 1/T
 * uses the record at least once in T steps, in [*lo, *hi]. */
void pld_allocation_lambda(uint64_t steps, double *lo, double *hi);

/* Completes a pld_nested whose add, steps, grids (and steep grid, if
 * n_steep) are set: the profile
 * tables, qsuf and the loss range.  DPA_ENOMEM or DPA_EACCURACY (the grids
 * hold no usable mass); on failure the caller frees it. */
int pld_nested_finish(pld_nested *n);
void pld_nested_free(pld_nested *n);

/* The pairs' profile functions (pld_profiles.c dispatches to them):
 * log delta(eps) at the middle of the nested grids' bracket and the
 * relative error that reaches both of its ends; log Q(L > eps) of the
 * lower lattice's transform (the lower discretisation's chord errors, see
 * pld_allocation_node_values); the loss range. */
double pld_allocation_log_delta_relerr(const pld_profile *p, double epsilon, double *relerr);
double pld_allocation_log_q_survival(const pld_profile *p, double epsilon);
void pld_allocation_loss_range(const pld_profile *p, double *lo, double *hi);

/* The profile at the nodes (k0 + i) h, i < n, for pld.c's tabulated
 * discretisation: log delta and relative error as above, but with the lower
 * end lowered further by what the lower lattice's FFT rounding can add to
 * the chord errors at step h, and log Q(L > l), log Q(L >= l) of the lower
 * lattice's transform at the nodes. */
int pld_allocation_node_values(const pld_profile *p, double h, int64_t k0, size_t n, double *ld, double *re,
                               double *lq_gt, double *lq_ge);

#endif
