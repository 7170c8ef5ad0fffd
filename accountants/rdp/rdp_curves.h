/*
 * rdp_curves.h - Renyi DP of single mechanisms at one order alpha > 1.
 *
 * Each function returns eps(alpha) rounded against the user: the value
 * returned is at least the true Renyi divergence bound, its own rounding
 * and quadrature errors included.  +inf means no finite bound at that order.
 */
#ifndef DPACCT_RDP_CURVES_H
#define DPACCT_RDP_CURVES_H

#include <stddef.h>

/* Gaussian mechanism, noise multiplier sigma: alpha / (2 sigma^2). */
double rdp_gaussian(double sigma, double alpha);

/* Poisson-subsampled Gaussian, add/remove neighbours (Mironov, Talwar &
 * Zhang 2019).  Integer orders by the binomial expansion, fractional
 * orders by quadrature of the defining integral.  Returns NaN if the
 * quadrature fails to reach its tolerance. */
double rdp_poisson_gaussian(double q, double sigma, double alpha);

/* Gaussian on a sample of m out of n drawn without replacement, replace-one
 * neighbours (Wang, Balle & Kasiviswanathan 2019, Theorem 9), gamma = m/n;
 * fractional orders by interpolation between the neighbouring integers. */
double rdp_sampled_without_replacement_gaussian(double gamma, double sigma, double alpha);

/* A bound at a fractional order alpha from the neighbouring integer ones:
 * (alpha - 1) eps(alpha) is convex in alpha, so at most the chord between
 * f_lo = (lo - 1) eps(lo) and f_hi = (hi - 1) eps(hi), lo = floor(alpha),
 * hi = ceil(alpha) (f_lo = 0 at lo = 1); divided by alpha - 1.  Not padded. */
double rdp_chord(double alpha, double f_lo, double f_hi);

/* Laplace mechanism with noise multiplier b (Mironov 2017, Prop. 6). */
double rdp_laplace(double b, double alpha);

/* Any eps-DP mechanism (Steinke 2024: the binary randomized response is
 * the worst case): log((sinh(alpha eps) - sinh((alpha-1) eps)) / sinh eps) / (alpha-1). */
double rdp_pure_dp(double epsilon, double alpha);

/* k-ary randomized response with parameter eps (exact). */
double rdp_randomized_response(double epsilon, double k, double alpha);

/* Mixture of Gaussians (Choquette-Choo, Ganesh, Steinke & Thakurta, ICLR
 * 2024), add/remove: sum_i w_i N(m_i, 1) against N(0, 1), n components of
 * m_i >= 0 (sensitivity / sigma) and log weights lw_i (their weights
 * summing to 1), either direction, any real order: by joint convexity,
 * log(sum_i w_i e^{a(a-1) m_i^2/2})/(a-1) (rdp_curves.c: the remove
 * direction's exact moment never exceeds it; a loose bound). */
double rdp_mixture_of_gaussians(const double *m, const double *lw, size_t n, double alpha);

#endif
