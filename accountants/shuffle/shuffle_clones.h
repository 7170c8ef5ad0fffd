/*
 * shuffle_clones.h - the "clones" pair of distributions that dominates n
 * shuffled local randomizers (Feldman, McMillan & Talwar 2021, Sec. 4),
 * with the clone probability of the randomizer class: its hockey-stick
 * divergence and survival function, bracketed, at any real eps.  Used by
 * the shuffle accountant (one round) and the pld accountant (rounds
 * composed).  See shuffle_clones.c for the reduction and its proof.
 */
#ifndef DPACCT_SHUFFLE_CLONES_H
#define DPACCT_SHUFFLE_CLONES_H

#include "dpacct.h"

#include <stdint.h>

/* The largest n handled (the log-gamma start of the walks loses ~1e-8 there). */
#define CLONES_MAX_USERS 1e9

typedef struct {
    double eps0;              /* the pair mixes by a = e^eps0 / (e^eps0 + 1) */
    uint64_t n;               /* users; C ~ Bin(n - 1, p) other users are clones */
    long double log_p, log_q; /* log p and log(1 - p), p the clone probability */
    double delta0;            /* the randomizers' delta0: not in the pair, charged by
                               * clones_hybrid_delta (FMT21 Thm 3.8) */
    /* the windows summed exactly, in standard deviations of the clone count
     * C and of Bin(c, 1/2) (the rest is bounded by Chernoff / Hoeffding);
     * clones_pair_make sets 14 and 10, wider for high Renyi orders */
    double c_window_sd, k_window_sd;
} clones_pair;

/* The pair of n shuffled (eps0, delta0)-local randomizers of the class:
 * DPA_LOCAL_ANY: p = e^-eps0 (the pair of eps0-DP randomizers), delta0
 *   kept for clones_hybrid_delta;
 * DPA_LOCAL_RR_CLASS: p = 2 / (e^eps0 + 1), delta0 must be 0.
 * The caller has checked the parameters (dpa_event_shuffled_local). */
clones_pair clones_pair_make(double eps0, double delta0, uint64_t n, int randomizer_class);

/* delta(eps) = H_{e^eps}(P || Q) of the pair, bracketed: lower <= delta <= upper. */
void clones_delta(const clones_pair *cp, double eps, double *lower, double *upper);
/* Q(L > eps), L = log(P/Q) the privacy loss, bracketed. */
void clones_q_survival(const clones_pair *cp, double eps, double *lower, double *upper);
/* A loss t >= 0 with P(L > t) + P(L < -t) below about `mass`; the pair is
 * symmetric, so [-t, t] is its range. */
double clones_loss_range(const clones_pair *cp, double mass);

/* The pair on the loss nodes l_j = (k0 + j) h, j < m, from its atoms
 * binned on the grid (O(atoms + m), where evaluating delta node by node
 * costs a walk over C per node): delta(l_j) bracketed, and upper bounds on
 * Q(L > l_j) and Q(L >= l_j).  An atom within rounding of a node may be
 * placed on either side of it.  DPA_ENOMEM on allocation failure. */
int clones_node_table(const clones_pair *cp, double h, int64_t k0, size_t m, double *delta_lo,
                      double *delta_up, double *q_gt, double *q_ge);

/* D_alpha(P || Q) of the pair (delta0 = 0) at each order alpha > 1, an
 * upper bound: the losses rounded up to a grid of 10001 nodes across the
 * pair's range (within about the grid step, range / 5000, of the exact
 * divergence).  DPA_ENOMEM on allocation failure. */
int clones_rdp(const clones_pair *cp, const double *orders, size_t n_orders, double *out);

/* The additive term for delta0 > 0 of Feldman, McMillan & Talwar 2021,
 * Thm 3.8 (FOCS; "Hiding among the clones"): (e^eps + 1)(1 + e^-eps0 / 2)
 * n delta0, the cost in delta at eps of replacing the n (eps0, delta0)
 * randomizers by eps0-DP ones; rounded up.  0 when delta0 = 0. */
double clones_hybrid_delta(const clones_pair *cp, double eps);

#endif
