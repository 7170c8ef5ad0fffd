/*
 * dpt_cls_internal.h - private to classify.c and classify_privacy.c: the
 * option checks and the accounting of DP-SGD and NoisyCGD on the
 * classification models.
 */
#ifndef DPT_CLS_INTERNAL_H
#define DPT_CLS_INTERNAL_H

#include "dpt_internal.h"

/* DPA_EINVAL naming the bad option, for n training examples. */
DPT_HIDDEN int cls_check(size_t n, const dpt_cls_options *opt, dpa_error *err);
/* DP-SGD's steps: ceil(E n / b). */
DPT_HIDDEN uint64_t cls_sgd_steps(const dpt_cls_options *opt, size_t n);
/* sigma (given or calibrated), lambda (given, from eta lambda, or matched),
 * the step checked, mu, the certified eps and the accounting in words;
 * beta is the smoothness of one example's loss (NoisyCGD). */
DPT_HIDDEN int cls_noise(size_t n, double beta, const dpt_cls_options *opt, dpt_cls_result *out, dpa_error *err);
/* The certified eps of releasing the model after `epoch` epochs of the run
 * `res` describes. */
DPT_HIDDEN int cls_epoch_epsilon(size_t n, double beta, const dpt_cls_options *opt, const dpt_cls_result *res,
                                 uint64_t epoch, double *eps, dpa_error *err);

#endif
