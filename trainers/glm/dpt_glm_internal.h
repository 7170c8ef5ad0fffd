/*
 * dpt_glm_internal.h - private to glm.c and glm_privacy.c: option checks,
 * the noise (calibrated through libdpacct) and shared quantities.
 */
#ifndef DPT_GLM_INTERNAL_H
#define DPT_GLM_INTERNAL_H

#include "dpt_internal.h"
/* 1: the run adds noise and claims a guarantee. */
DPT_HIDDEN int glm_is_private(const dpt_glm_options *opt);
/* DPA_EINVAL naming the bad option. */
DPT_HIDDEN int glm_check(const dpt_dataset *train, const dpt_glm_options *opt, dpa_error *err);
/* The noise multiplier (calibrated or given), the certified eps, the
 * paper's f, the accounting described. */
DPT_HIDDEN int glm_noise(const dpt_dataset *train, const dpt_glm_options *opt, dpt_glm_result *out, dpa_error *err);
/* sqrt(2 alpha tr H) C2 log^{2a} N (Ding et al. NeurIPS 2024, Alg 1 line 5). */
DPT_HIDDEN double glm_x_norm(const dpt_glm_options *opt, const dpt_dataset *train);
/* L = ceil(log2(Upsilon / Delta)) of the noisy doubling (Ding et al. UAI 2025, Alg 2), >= 1. */
DPT_HIDDEN unsigned glm_threshold_rounds(const dpt_glm_options *opt);
/* DP-SGD's steps: ceil(epochs / q), q = b / N. */
DPT_HIDDEN uint64_t glm_sgd_steps(const dpt_glm_options *opt, size_t n);

/* The histogram threshold's parameters valid for m estimating records. */
DPT_HIDDEN int glm_histogram_check(const dpt_histogram_params *p, size_t m, dpa_error *err);
/* Doubles of scratch the threshold needs for m estimating records. */
DPT_HIDDEN size_t glm_histogram_work(const dpt_histogram_params *p, size_t m);
/* Ding et al. NeurIPS 2024, Alg 2 on est (checked): Laplace noise from rng, none when NULL. */
DPT_HIDDEN double glm_histogram_threshold(const dpt_dataset *est, const double *w, const dpt_histogram_params *p,
                                          dpt_rng *rng, double *work);
/* The histogram threshold's budget for N training examples: eps1 (given or
 * calibrated), delta1, K, the thresholds' composed eps, the paper's eps1; fills
 * those fields of out and p.  Needs opt->epsilon or opt->threshold_epsilon. */
DPT_HIDDEN int glm_histogram_budget(const dpt_glm_options *opt, size_t n, dpt_histogram_params *p, dpt_glm_result *out,
                                    dpa_error *err);

#endif
