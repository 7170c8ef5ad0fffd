/*
 * dpt_glm_internal.h - private to glm.c and glm_privacy.c: option checks,
 * the noise (calibrated through libdpacct) and shared quantities.
 */
#ifndef DPT_GLM_INTERNAL_H
#define DPT_GLM_INTERNAL_H

#include "dpt_internal.h"
/* DPA_EINVAL naming the bad option. */
int glm_check(const dpt_dataset *train, const dpt_glm_options *opt, dpa_error *err);
/* The noise multiplier (calibrated or given), the certified eps, the
 * paper's f, the accounting described. */
int glm_noise(const dpt_dataset *train, const dpt_glm_options *opt, dpt_glm_result *out, dpa_error *err);
/* sqrt(2 alpha tr H) C2 log^{2a} N (P0 Alg 1 line 5). */
double glm_x_norm(const dpt_glm_options *opt, const dpt_dataset *train);
/* L = ceil(log2(Upsilon / Delta)) of the noisy doubling (P3 Alg 2), >= 1. */
unsigned glm_threshold_rounds(const dpt_glm_options *opt);
/* DP-SGD's steps: ceil(epochs / q), q = b / N. */
uint64_t glm_sgd_steps(const dpt_glm_options *opt, size_t n);

#endif
