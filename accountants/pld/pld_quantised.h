/*
 * pld_quantised.h - a certified lower bound for long runs of a
 * Poisson-subsampled Gaussian at small sampling rates, from a quantised
 * (post-processed) pair whose composition is a count of rare events
 * (docs/pld-design.md, "Issue 20, third step: the quantised lower bound").
 *
 * Where the sampling rate is tiny the lattice lower construction cannot
 * hold the bulk of a step's losses (within q of 0) and its tail (losses up
 * to tens) at once: it refuses every grid step (q = 1e-6, sigma = 0.3).
 * Post-processing each step's output by a partition of the line into a
 * bulk (below a threshold) and narrow bins above it gives a pair whose
 * delta lies below the mechanism's; its T-fold composition is a binomial
 * number of events above the bulk, each rounded down to a lattice, with
 * the bulk's merged loss exact: the rounding is paid per event, not per
 * step.
 */
#ifndef DPACCT_PLD_QUANTISED_H
#define DPACCT_PLD_QUANTISED_H

#include "pld_grid.h"

#include <stdint.h>

/* A certified lower bound, for the remove direction of `times`
 * compositions of the Poisson-subsampled Gaussian (rate q, noise sigma,
 * sensitivity 1): on eps(value) when want_eps (value a delta), on
 * delta(value) otherwise (value an eps).  *lower = 0 when the method gives
 * nothing here (T q > 100, or a delta below its rounding); DPA_ENOMEM or
 * DPA_EINVAL (bad arguments) otherwise DPA_OK. */
int pld_quantised_lower(double q, double sigma, uint64_t times, int want_eps, double value, pld_fft_cache *fft,
                        double *lower);

#endif
