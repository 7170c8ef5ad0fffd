/*
 * rdp_allocation.h - Renyi DP of one epoch of random allocation with
 * Gaussian noise: T steps, each record used in exactly one of them, chosen
 * uniformly at random (Feldman & Shenfeld, "Privacy amplification by
 * random allocation", 2025, arXiv:2502.08202), add/remove neighbours.
 *
 * Every value returned is an upper bound, its own rounding included, as in
 * rdp_curves.h; +inf means no finite bound is known at that order.
 */
#ifndef DPACCT_RDP_ALLOCATION_H
#define DPACCT_RDP_ALLOCATION_H

#include <stddef.h>

/* The largest order at which the remove direction is evaluated: its
 * moments up to N cost O(N^2) logarithms and exponentials (at N = 2048
 * some 0.05 s for T = 1e4, 0.2 s for T = 100, where binary powering
 * runs).  Above it an epoch is bounded by the unamplified Gaussian's
 * alpha / (2 sigma^2) only, valid at every order. */
#define RDP_ALLOCATION_MAX_ORDER 2048

/* out[n] >= log E_Q[(P/Q)^n] for n = 0..N, the log Renyi moments of the
 * remove direction (P: the epoch with the record, Q: without it), T the
 * steps (>= 1; T = 1 is the Gaussian), sigma the noise multiplier, 1 <= N <=
 * RDP_ALLOCATION_MAX_ORDER.  out[0] = out[1] = 0 (exact).  0 on success,
 * -1 when out of memory. */
int rdp_allocation_log_moments(double steps, double sigma, size_t N, double *out);

/* eps(alpha) of the remove direction, D_alpha(P || Q), from those moments
 * (integer orders directly, the others by convexity); +inf when alpha > N. */
double rdp_allocation_remove(const double *log_moments, size_t N, double alpha);

/* eps(alpha) of the add direction, D_alpha(Q || P): the bound
 * 1/(2 sigma^2) + (alpha - 1)/(2 T sigma^2), at every alpha > 1. */
double rdp_allocation_add(double steps, double sigma, double alpha);

/* eps(alpha) of one epoch: the larger of the two directions, each capped by
 * the Gaussian's alpha / (2 sigma^2). */
double rdp_allocation(double steps, double sigma, const double *log_moments, size_t N, double alpha);

#endif
