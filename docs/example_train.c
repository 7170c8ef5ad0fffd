/* example_train.c - DP-GLMtron on synthetic ReLU regression with libdptrain:
 * the noise calibrated to eps = 1 at delta = 1e-5 and drawn from a secure
 * generator (keyed by the operating system), the certified eps and the loss
 * on held-out data printed.
 * Build: cc -std=c11 example_train.c $(pkg-config --cflags --libs dptrain) */
#include <dptrain.h>
#include <stdio.h>

int main(void)
{
    dpa_error err = { 0 };
    dpt_synthetic_spec spec;
    dpt_glm_options opt;
    dpt_dataset all = { 0 }, train = { 0 }, test = { 0 };
    dpt_glm_result res = { 0 };
    dpt_rng *rng = NULL;
    int status = 1;

    dpt_synthetic_defaults(&spec); /* y = ReLU(x.w*) + N(0, 0.1^2), |w*| = 1 */
    spec.n = 2000;
    spec.d = 64;
    dpt_glm_defaults(&opt);        /* DP-GLMtron, one epoch, eps 1, delta 1e-5 */
    if (dpt_synthetic(&spec, &all, NULL, &err) || dpt_split(&all, 0.2, 1, &train, &test, &err) ||
        dpt_rng_new_secure(&rng, &err))
        goto out;
    opt.rng = rng;                 /* every privacy draw (noise, the secret shuffle) */
    if (dpt_glm_train(&train, &opt, &res, &err))
        goto out;
    /* eps in full: rounding to nearest could print less than the certified bound */
    printf("DP-GLMtron on %zu examples: eps <= %.17g at delta = %.17g (noise multiplier %.4g)\n", train.n,
           res.epsilon, opt.delta, res.noise_multiplier);
    printf("test loss %.4g\n", dpt_relu_loss(&test, res.w));
    status = 0;
out:
    if (status)
        fprintf(stderr, "example_train: %s\n", err.message);
    dpt_glm_result_free(&res);
    dpt_rng_free(rng);
    dpt_dataset_free(&all);
    dpt_dataset_free(&train);
    dpt_dataset_free(&test);
    return status;
}
