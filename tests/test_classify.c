/*
 * test_classify.c - DP-SGD and NoisyCGD on the classification models
 * (trainers/classify/classify.c, classify_privacy.c) of Koskela (arXiv 2024):
 * NoisyCGD's eps is the GDP bound of Bok, Su & Altschuler (ICML 2024; the
 * formula and the GDP profile written here, independently) and the
 * reference values of the notes on Koskela's paper; DP-SGD's eps against
 * the note's (its own PLD); a step that breaks the bound's precondition is refused
 * with the valid range; matching eps through lambda lands on the note's
 * eta lambda; without noise and with q = 1 DP-SGD is full-batch gradient
 * descent; NoisyCGD's batch count and its refusal of the ReLU network.
 * The noise and the sampling are measured from the trainers' output in
 * test_privacy_fact.c.
 */
#include "dptrain.h"
#include "test_rng_util.h"
#include "testutil.h"

#include <check.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* mu of Bok, Su & Altschuler's Thm 4.5 for NoisyCGD with c = 1 - x (the
 * notes on Koskela, 2.3(a)): (2/sigma) sqrt(1 + c^(2k-2) (1 - c^2)/(1 - c^k)^2
 * (1 - c^(k(E-1)))/(1 + c^(k(E-1)))), in long double. */
static long double bok_mu(long double sigma, long double x, long double k, long double E)
{
    long double c = 1.0L - x;
    long double ck = powl(c, k), ckE = powl(c, k * (E - 1.0L));
    long double br = 1.0L + powl(c, 2.0L * k - 2.0L) * (1.0L - c * c) / ((1.0L - ck) * (1.0L - ck)) * (1.0L - ckE) /
                               (1.0L + ckE);
    return 2.0L / sigma * sqrtl(br);
}

/* eps of mu-GDP at delta (Dong, Roth & Su; the note's Lemma 2.5):
 * delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), bisection. */
static long double gdp_eps(long double mu, long double delta)
{
    long double lo = 0.0L, hi = 100.0L;
    for (int i = 0; i < 200; i++) {
        long double e = 0.5L * (lo + hi);
        long double d = 0.5L * erfcl((e / mu - mu / 2.0L) / sqrtl(2.0L)) -
                        expl(e) * 0.5L * erfcl((e / mu + mu / 2.0L) / sqrtl(2.0L));
        if (d > delta) lo = e;
        else hi = e;
    }
    return hi;
}

static dpt_cls_options ncgd_options(double sigma, double eta_lambda, uint64_t epochs)
{
    dpt_cls_options o;
    dpt_cls_defaults(&o);
    o.algorithm = DPT_CLS_NOISY_CGD;
    o.batch_size = 1000;
    o.epochs = epochs;
    o.noise_multiplier = sigma;
    o.learning_rate = 1e-3;
    o.eta_lambda = eta_lambda;
    o.delta = 1e-5;
    return o;
}

/* Koskela's (arXiv 2024) Figure 1 NoisyCGD curves at 400 epochs (n = 60000, b = 1000,
 * sigma = 15): eps against the formula here and the note's table 2.6
 * (1.336, 1.196, 0.953 for eta lambda 5.4e-5, 1e-4, 2e-4; +-0.002). */
START_TEST(ncgd_epsilon_is_the_bound)
{
    const double el[3] = { 5.4e-5, 1e-4, 2e-4 }, note[3] = { 1.336, 1.196, 0.953 };
    for (int i = 0; i < 3; i++) {
        dpt_cls_options o = ncgd_options(15.0, el[i], 400);
        dpt_cls_result r;
        dpa_error err = { 0 };
        ck_assert_msg(dpt_cls_account(60000, 1.0, &o, &r, &err) == DPA_OK, "%s", err.message);
        long double mu = bok_mu(15.0L, (long double)el[i], 60.0L, 400.0L);
        double eps = (double)gdp_eps(mu, 1e-5L);
        printf("ncgd: eta lambda %g: mu %.8f (formula %.8Lf), eps %.6f (formula %.6f, note %.3f)\n", el[i], r.mu, mu,
               r.epsilon, eps, note[i]);
        ck_assert_double_le(fabs(r.mu - (double)mu), 1e-9 * (double)mu);
        ck_assert_double_ge(r.epsilon, eps * (1.0 - 1e-9));
        ck_assert_double_le(r.epsilon, eps * (1.0 + 1e-6));
        ck_assert_double_le(fabs(r.epsilon - note[i]), 0.002);
        ck_assert_double_eq_tol(r.l2, el[i] / 1e-3, 1e-15);
    }
}
END_TEST

/* DP-SGD at Koskela's setting (q = 1/60, sigma = 15 and 5, replace-one)
 * against the note's exact Lemma 2.6 values (2.6: 0.050 at one epoch,
 * 1.317 and 4.543 at 400), within the note's +-0.002 plus pld's bracket. */
START_TEST(sgd_epsilon_matches_the_note)
{
    const struct { double sigma; uint64_t epochs; double eps; } cases[] = {
        { 15.0, 1, 0.050 }, { 15.0, 400, 1.317 }, { 5.0, 400, 4.543 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dpt_cls_options o;
        dpt_cls_defaults(&o);
        o.batch_size = 1000;
        o.epochs = cases[i].epochs;
        o.noise_multiplier = cases[i].sigma;
        dpt_cls_result r;
        dpa_error err = { 0 };
        ck_assert_msg(dpt_cls_account(60000, 0.0, &o, &r, &err) == DPA_OK, "%s", err.message);
        printf("dp-sgd: sigma %g, %llu epochs: eps %.5f (note %.3f)\n", cases[i].sigma,
               (unsigned long long)cases[i].epochs, r.epsilon, cases[i].eps);
        ck_assert_double_le(fabs(r.epsilon - cases[i].eps), 0.002 + 2e-3 * cases[i].eps);
    }
}
END_TEST

/* eta >= 2 / (beta + lambda) is refused, naming the largest valid step;
 * NoisyCGD needs lambda > 0 and replace-one. */
START_TEST(invalid_step_is_refused)
{
    dpt_cls_options o = ncgd_options(15.0, 0.0, 10);
    o.l2 = 0.1;
    dpt_cls_result r;
    dpa_error err = { 0 };
    o.learning_rate = 2.0 / (100.0 + 0.1) * 1.001;
    ck_assert_int_eq(dpt_cls_account(60000, 100.0, &o, &r, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "use a step below 0.0199"));
    o.learning_rate = 2.0 / (100.0 + 0.1) * 0.999;
    ck_assert_int_eq(dpt_cls_account(60000, 100.0, &o, &r, &err), DPA_OK);
    o.l2 = 0.0;
    ck_assert_int_eq(dpt_cls_account(60000, 100.0, &o, &r, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "lambda > 0"));
    o.l2 = 0.1;
    o.relation = DPA_ADD_REMOVE;
    ck_assert_int_eq(dpt_cls_account(60000, 100.0, &o, &r, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "replace-one"));
}
END_TEST

/* Matching DP-SGD's eps through lambda, as Koskela does: at sigma = 15,
 * E = 400, k = 60 the note finds eta lambda = 5.61e-5 for eps 1.33 (2.6);
 * the match meets the target and sits within 1% of it. */
START_TEST(match_epsilon_finds_the_notes_eta_lambda)
{
    dpt_cls_options o = ncgd_options(15.0, 0.0, 400);
    o.match_epsilon = 1;
    o.epsilon = 1.33;
    dpt_cls_result r;
    dpa_error err = { 0 };
    ck_assert_msg(dpt_cls_account(60000, 1.0, &o, &r, &err) == DPA_OK, "%s", err.message);
    double el = r.l2 * o.learning_rate;
    printf("ncgd: matched eta lambda %.5g (note 5.61e-5), eps %.6f\n", el, r.epsilon);
    ck_assert_double_le(r.epsilon, 1.33);
    ck_assert_double_le(fabs(el - 5.61e-5), 0.01 * 5.61e-5);
    /* out of reach: too little noise for any valid lambda */
    o = ncgd_options(0.5, 0.0, 400);
    o.match_epsilon = 1;
    o.epsilon = 0.1;
    ck_assert_int_eq(dpt_cls_account(60000, 1.0, &o, &r, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "cannot meet"));
}
END_TEST

/* The calibrated sigma meets the target and 1% less noise does not. */
START_TEST(calibrated_sigma_is_tight)
{
    dpt_cls_options o;
    dpt_cls_defaults(&o);
    o.batch_size = 100;
    o.epochs = 5;
    o.epsilon = 2.0;
    dpt_cls_result r, s;
    dpa_error err = { 0 };
    ck_assert_msg(dpt_cls_account(5000, 0.0, &o, &r, &err) == DPA_OK, "%s", err.message);
    ck_assert_double_le(r.epsilon, 2.0);
    o.noise_multiplier = 0.99 * r.noise_multiplier;
    ck_assert_int_eq(dpt_cls_account(5000, 0.0, &o, &s, &err), DPA_OK);
    printf("dp-sgd: calibrated sigma %.6f gives eps %.6f; 0.99 sigma gives %.6f\n", r.noise_multiplier, r.epsilon,
           s.epsilon);
    ck_assert_double_gt(s.epsilon, 2.0);
}
END_TEST

/* n examples with d features and labels 0..K-1 from a seeded generator:
 * class means +-1 on feature (label mod d), unit noise. */
static dpt_dataset blobs(size_t n, size_t d, size_t K, unsigned long seed)
{
    dpt_dataset ds = { n, d, malloc(n * d * sizeof(double)), malloc(n * sizeof(double)) };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    for (size_t i = 0; i < n; i++) {
        size_t y = i % K;
        ds.y[i] = (double)y;
        for (size_t j = 0; j < d; j++) ds.x[i * d + j] = gsl_ran_gaussian(r, 1.0) + (j == y % d ? 2.0 : 0.0);
    }
    gsl_rng_free(r);
    return ds;
}

/* With sigma = 0 (noise off), no clipping and q = 1, DP-SGD is full-batch
 * gradient descent with weight decay: theta <- theta - eta (g / n + lambda
 * theta), g the summed gradient, written here as a plain loop. */
START_TEST(sgd_without_noise_is_gradient_descent)
{
    dpt_dataset D = blobs(90, 4, 3, 2);
    const dpt_model_kind kinds[3] = { DPT_MODEL_SOFTMAX, DPT_MODEL_CONVEX, DPT_MODEL_RELU };
    for (int k = 0; k < 3; k++) {
        dpt_model_spec spec = { kinds[k], 3, 5, 6, 7 };
        dpt_model *a, *b;
        dpa_error err = { 0 };
        ck_assert_int_eq(dpt_model_new(&spec, D.d, &a, &err), DPA_OK);
        ck_assert_int_eq(dpt_model_new(&spec, D.d, &b, &err), DPA_OK);
        dpt_cls_options o;
        dpt_cls_defaults(&o);
        o.noise_off = 1;
        o.clip = INFINITY;
        o.batch_size = D.n;
        o.epochs = 4;
        o.learning_rate = 0.3;
        o.l2 = 0.01;
        dpt_cls_result r;
        if (!o.rng) o.rng = test_rng(o.seed);
        ck_assert_msg(dpt_cls_train(&D, a, &o, &r, &err) == DPA_OK, "%s", err.message);
        ck_assert_uint_eq(r.steps, 4);
        size_t P = dpt_model_size(b), rows[90];
        for (size_t i = 0; i < D.n; i++) rows[i] = i;
        double *th = dpt_model_params(b), *g = malloc(P * sizeof *g);
        for (int t = 0; t < 4; t++) {
            memset(g, 0, P * sizeof *g);
            dpt_model_clipped_grad_sum(b, &D, rows, D.n, INFINITY, g, NULL, &err);
            for (size_t j = 0; j < P; j++) th[j] -= 0.3 * (g[j] / (double)D.n + 0.01 * th[j]);
        }
        const double *ta = dpt_model_params(a);
        double worst = 0.0;
        for (size_t j = 0; j < P; j++) worst = fmax(worst, fabs(ta[j] - th[j]) / fmax(1e-300, fabs(th[j]) + 1e-12));
        printf("gd: model %d, largest relative difference %.3g\n", k, worst);
        ck_assert_double_le(worst, 1e-10);
        free(g);
        dpt_model_free(a);
        dpt_model_free(b);
    }
    free(D.x);
    free(D.y);
}
END_TEST

/* A private NoisyCGD run (beta given, rows scaled to it) runs floor(n/b)
 * batches per epoch and reports the left-over examples; the ReLU network
 * is refused.  (The noise it draws is measured from its output in
 * test_privacy_fact.c.) */
START_TEST(ncgd_counts_batches_and_refuses_relu)
{
    dpt_dataset D = blobs(205, 40, 10, 3);
    dpt_model_spec spec = { DPT_MODEL_SOFTMAX, 10, 1, 1, 1 };
    dpt_model *m;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_model_new(&spec, D.d, &m, &err), DPA_OK);
    dpt_cls_options o = ncgd_options(3.0, 1e-3, 3);
    o.batch_size = 50;
    o.learning_rate = 0.01;
    o.smoothness = 20.0;     /* a private run's beta is given; the rows are scaled to meet it */
    ck_assert_int_eq(dpt_model_bound_smoothness(m, &D, o.smoothness, &err), DPA_OK);
    ck_assert_double_le(dpt_model_smoothness(m, &D), o.smoothness);
    dpt_cls_result r;
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_msg(dpt_cls_train(&D, m, &o, &r, &err) == DPA_OK, "%s", err.message);
    printf("NoisyCGD: %llu steps, %zu unused\n", (unsigned long long)r.steps, r.unused);
    ck_assert_uint_eq(r.steps, 12);
    ck_assert_uint_eq(r.unused, 5);
    /* the ReLU network is not convex: NoisyCGD refuses it */
    dpt_model *relu;
    dpt_model_spec rs = { DPT_MODEL_RELU, 10, 1, 4, 1 };
    ck_assert_int_eq(dpt_model_new(&rs, D.d, &relu, &err), DPA_OK);
    if (!o.rng) o.rng = test_rng(o.seed);
    ck_assert_int_eq(dpt_cls_train(&D, relu, &o, &r, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "not convex"));
    dpt_model_free(relu);
    dpt_model_free(m);
    free(D.x);
    free(D.y);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("classify");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, ncgd_epsilon_is_the_bound);
    tcase_add_test(tc, sgd_epsilon_matches_the_note);
    tcase_add_test(tc, invalid_step_is_refused);
    tcase_add_test(tc, match_epsilon_finds_the_notes_eta_lambda);
    tcase_add_test(tc, calibrated_sigma_is_tight);
    tcase_add_test(tc, sgd_without_noise_is_gradient_descent);
    tcase_add_test(tc, ncgd_counts_batches_and_refuses_relu);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
