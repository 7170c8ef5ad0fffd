/*
 * test_truncated.c - truncated Poisson sampling (Poisson sampling with a
 * maximum batch size; dp_accounting 2025, arXiv 2508.15089): the mixture
 * of lib/truncated_poisson.c, pld's pairs (PLD_TRUNCATED_*) and rdp's
 * mixed moments, against tests/ref/truncated_poisson.py (mpmath at 40
 * digits, from the definitions: the binomial sums for p and q', numerical
 * integration of the hockey-stick divergence of each part), against the
 * Poisson event where it never truncates, composed over 1000 steps, and
 * the refusals.
 */
#include "dpacct.h"
#include "internal.h"
#include "pld/pld_profiles.h"
#include "testutil.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* tests/ref/truncated_poisson.py: p = P(Bin(n - 1, q) >= B) and
 * q' = q E[B/(K + 1) | K >= B], K ~ Bin(n - 1, q), by direct sums. */
static const struct {
    uint64_t n, B;
    double q, sigma, p, q2;
} mix_ref[] = {
    { 1000, 12, 0.01, 1.0, 0.30150797566769564483, 0.0082580262481264454328 },
    { 1000, 15, 0.01, 1.0, 0.08189419350971662684, 0.0087681281858403257526 },
    { 1000, 30, 0.01, 1.0, 2.0174489712522119131e-7, 0.0095466036979654661374 },
    { 100, 10, 1.0, 2.0, 1.0, 0.1 },
};

/* The same script: one step's delta at eps in each world, (1 - p) delta_1
 * + p delta_2 with each part's divergence integrated numerically (the add
 * world's losses are at most -log(1 - rate): 0 above). */
static const struct {
    int c;   /* the row of mix_ref */
    double eps, remove, add;
} delta_ref[] = {
    { 0, 0.005, 0.0033436205293781944058, 0.0011912918498350212153 },
    { 0, 0.5, 0.00015061749989286592933, 0.0 },
    { 0, 1.0, 0.000055038646415641634507, 0.0 },
    { 0, 2.0, 0.000010277806865671488951, 0.0 },
    { 1, 0.005, 0.0028555638511828043223, 0.0010518592364478083455 },
    { 1, 0.5, 0.000046067282561810323502, 0.0 },
    { 1, 1.0, 0.000016986175142609997763, 0.0 },
    { 1, 2.0, 3.226384509010645426e-6, 0.0 },
    { 2, 1.0, 2.7820889402650182542e-9, 0.0 },
    { 3, 0.05, 0.026143662958947260169, 0.010572581353831128249 },
    { 3, 0.5, 0.0020325369203403576533, 0.0 },
    { 3, 1.0, 0.00020712148602139211376, 0.0 },
};

static dpa_event *truncated(double q, uint64_t n, uint64_t B, double sigma)
{
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_truncated_poisson(q, n, B, dpa_event_gaussian(sigma, &err), &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    return e;
}

static dpa_event *composed(dpa_event *step, uint64_t count)
{
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_self_composed(step, count, &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    return e;
}

/* p and 1 - p within their stated relative error (itself small), q' rounded
 * up by little; max_batch = n is exactly p = 0. */
START_TEST(mixture_weights)
{
    dpa_error err = { 0 };
    for (size_t i = 0; i < sizeof mix_ref / sizeof mix_ref[0]; i++) {
        dpa_truncated_mixture m;
        ck_assert_int_eq(dpa_truncated_poisson_mixture(mix_ref[i].q, mix_ref[i].n, mix_ref[i].B, &m, &err), DPA_OK);
        double p = exp(m.log_trunc), full = exp(m.log_full), tol = m.weight_relerr + 4.0 * DBL_EPSILON;
        ck_assert_msg(m.weight_relerr < 1e-11, "case %zu: relerr %g", i, m.weight_relerr);
        ck_assert_msg(fabs(p - mix_ref[i].p) <= tol * mix_ref[i].p, "case %zu: p %.17g vs %.17g", i, p,
                      mix_ref[i].p);
        double ref_full = 1.0 - mix_ref[i].p;
        ck_assert_msg(fabs(full - ref_full) <= tol * ref_full + 4.0 * DBL_EPSILON * mix_ref[i].p,
                      "case %zu: 1 - p %.17g vs %.17g", i, full, ref_full);
        ck_assert_msg(m.q2 >= mix_ref[i].q2 && m.q2 <= mix_ref[i].q2 * (1.0 + 1e-10), "case %zu: q' %.17g vs %.17g",
                      i, m.q2, mix_ref[i].q2);
        printf("mixture n %llu q %g B %llu: p %.17g (ref %.17g, relerr bound %.2g), q' %.17g (ref %.17g)\n",
               (unsigned long long)mix_ref[i].n, mix_ref[i].q, (unsigned long long)mix_ref[i].B, p, mix_ref[i].p,
               m.weight_relerr, m.q2, mix_ref[i].q2);
    }
    dpa_truncated_mixture m;
    ck_assert_int_eq(dpa_truncated_poisson_mixture(0.01, 1000, 1000, &m, &err), DPA_OK);
    ck_assert(m.log_trunc == -INFINITY && m.log_full == 0.0);
}
END_TEST

/* Each world's single-step profile against the reference: never below it
 * by more than the stated error bound, and above it by no more than q''s
 * rounding up moves it. */
START_TEST(profile_matches_reference)
{
    dpa_error err = { 0 };
    for (size_t i = 0; i < sizeof delta_ref / sizeof delta_ref[0]; i++) {
        int c = delta_ref[i].c;
        dpa_event *e = truncated(mix_ref[c].q, mix_ref[c].n, mix_ref[c].B, mix_ref[c].sigma);
        pld_profile pairs[2];
        ck_assert_int_eq(pld_profile_of_event(e, DPA_ADD_REMOVE, pairs, &err), DPA_OK);
        ck_assert_int_eq(pairs[0].pair, PLD_TRUNCATED_REMOVE);
        ck_assert_int_eq(pairs[1].pair, PLD_TRUNCATED_ADD);
        const double ref[2] = { delta_ref[i].remove, delta_ref[i].add };
        for (int w = 0; w < 2; w++) {
            double re, d = exp(pld_profile_log_delta_relerr(delta_ref[i].eps, &pairs[w], &re));
            ck_assert_msg(re >= 0.0 && re < 1e-9, "case %zu world %d: relerr %g", i, w, re);
            if (ref[w] == 0.0) {
                ck_assert_msg(d == 0.0, "case %zu world %d: delta %.17g where the reference is 0", i, w, d);
                continue;
            }
            ck_assert_msg(d * (1.0 + re) >= ref[w] && d <= ref[w] * (1.0 + 1e-9),
                          "case %zu world %d at eps %g: %.17g (relerr %.3g) vs %.17g", i, w, delta_ref[i].eps, d,
                          re, ref[w]);
            /* Q(L > eps) is the weighted sum too: the slope -e^eps Q of delta */
            double h = 1e-6, slope = (exp(pld_profile_log_delta(delta_ref[i].eps + h, &pairs[w])) -
                                      exp(pld_profile_log_delta(delta_ref[i].eps - h, &pairs[w]))) / (2.0 * h);
            double q = exp(delta_ref[i].eps + pld_profile_log_q_survival(delta_ref[i].eps, &pairs[w]));
            ck_assert_msg(fabs(-slope - q) <= 1e-4 * q + 1e-12, "case %zu world %d: -slope %.9g vs e^eps Q %.9g",
                          i, w, -slope, q);
        }
        dpa_event_free(e);
    }
}
END_TEST

/* One step through the pld accountant: its delta bracket holds the larger
 * of the two worlds' reference values. */
START_TEST(one_step_bracket_holds_reference)
{
    dpa_error err = { 0 };
    for (size_t i = 0; i < sizeof delta_ref / sizeof delta_ref[0]; i++) {
        int c = delta_ref[i].c;
        dpa_accountant *a =
            accountant_with("pld", truncated(mix_ref[c].q, mix_ref[c].n, mix_ref[c].B, mix_ref[c].sigma));
        dpa_bound b;
        ck_assert_int_eq(dpa_accountant_delta(a, delta_ref[i].eps, &b, &err), DPA_OK);
        double ref = fmax(delta_ref[i].remove, delta_ref[i].add);
        ck_assert_msg(b.lower <= ref && ref <= b.upper, "case %zu eps %g: [%.12g, %.12g] vs %.12g", i,
                      delta_ref[i].eps, b.lower, b.upper, ref);
        ck_assert(b.flags & DPA_PAIR_LOWER);   /* joint convexity: an upper bound's pair */
        dpa_accountant_free(a);
    }
}
END_TEST

/* max_batch = n never truncates: the bracket of Poisson sampling itself,
 * bit for bit, with pld and rdp, one step and 1000. */
START_TEST(max_batch_n_is_poisson)
{
    dpa_error err = { 0 };
    static const char *const methods[] = { "pld", "rdp" };
    for (size_t m = 0; m < 2; m++)
        for (int steps = 1; steps <= 1000; steps *= 1000) {
            dpa_accountant *t = accountant_with(methods[m], composed(truncated(0.01, 1000, 1000, 1.0), steps));
            dpa_accountant *p = accountant_with(
                methods[m], composed(dpa_event_poisson_sampled(0.01, dpa_event_gaussian(1.0, &err), &err), steps));
            dpa_bound bt, bp;
            ck_assert_int_eq(dpa_accountant_epsilon(t, 1e-5, &bt, &err), DPA_OK);
            ck_assert_int_eq(dpa_accountant_epsilon(p, 1e-5, &bp, &err), DPA_OK);
            ck_assert_msg(bt.lower == bp.lower && bt.upper == bp.upper && bt.flags == bp.flags,
                          "%s, %d steps: [%.17g, %.17g] vs Poisson [%.17g, %.17g]", methods[m], steps, bt.lower,
                          bt.upper, bp.lower, bp.upper);
            dpa_accountant_free(t);
            dpa_accountant_free(p);
        }
}
END_TEST

/* 1000 steps, n = 1000, q = 0.01, sigma = 1, delta = 1e-5.  Measured pld
 * brackets (eps):
 *   B = 1000 (Poisson)  [1.8272, 1.8287]
 *   B = 30 (p = 2e-7)   [1.8282, 1.8286]
 *   B = 20              [3.8175, 3.8189]
 *   B = 15              [6.0211, 6.0233]
 *   B = 12              [7.8548, 7.8588]
 *   B = 10              [8.8773, 8.8846]
 * eps grows as B falls (disjoint brackets from B = 20 down; at B = 30 they
 * overlap Poisson's); each lies between the Poisson value and the bound
 * without amplification, 1000 Gaussian steps of multiplier sigma/2 (a
 * displaced record moves the sum by up to 2), 2268.77; and rdp's upper
 * bound of the same mixture is at least pld's lower. */
START_TEST(composition_grows_as_max_batch_falls)
{
    dpa_error err = { 0 };
    static const uint64_t B[] = { 1000, 30, 20, 15, 12, 10 };
    dpa_bound poisson, prev, plain;
    dpa_accountant *g = accountant_with("gaussian", composed(dpa_event_gaussian(0.5, &err), 1000));
    ck_assert_int_eq(dpa_accountant_epsilon(g, 1e-5, &plain, &err), DPA_OK);
    dpa_accountant_free(g);
    for (size_t i = 0; i < sizeof B / sizeof B[0]; i++) {
        dpa_accountant *a = accountant_with("pld", composed(truncated(0.01, 1000, B[i], 1.0), 1000));
        dpa_accountant *r = accountant_with("rdp", composed(truncated(0.01, 1000, B[i], 1.0), 1000));
        dpa_bound b, br;
        ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, &err), DPA_OK);
        ck_assert_int_eq(dpa_accountant_epsilon(r, 1e-5, &br, &err), DPA_OK);
        printf("T = 1000, B = %llu: pld [%.6f, %.6f], rdp %.6f\n", (unsigned long long)B[i], b.lower, b.upper,
               br.upper);
        ck_assert_msg(br.upper >= b.lower, "B %llu: rdp %.9g below pld's lower %.9g", (unsigned long long)B[i],
                      br.upper, b.lower);
        ck_assert_msg(b.upper <= plain.upper, "B %llu: %.9g above the unamplified %.9g", (unsigned long long)B[i],
                      b.upper, plain.upper);
        if (i == 0) poisson = b;
        else {
            ck_assert_msg(b.lower >= poisson.lower && b.upper >= poisson.lower, "B %llu below Poisson",
                          (unsigned long long)B[i]);
            /* grows: consistent with the previous bracket, and past it from B = 20 down */
            ck_assert_msg(b.upper >= prev.lower, "B %llu: [%.9g, %.9g] below B %llu's [%.9g, %.9g]",
                          (unsigned long long)B[i], b.lower, b.upper, (unsigned long long)B[i - 1], prev.lower,
                          prev.upper);
            if (B[i] <= 20)
                ck_assert_msg(b.lower > prev.upper, "B %llu: [%.9g, %.9g] not above B %llu's [%.9g, %.9g]",
                              (unsigned long long)B[i], b.lower, b.upper, (unsigned long long)B[i - 1], prev.lower,
                              prev.upper);
        }
        prev = b;
        dpa_accountant_free(a);
        dpa_accountant_free(r);
    }
}
END_TEST

/* rdp: the mixture's moment from the reference p and q' and the Poisson
 * events' own curves at (sigma, q) and (sigma/2, q'):
 *   eps(alpha) = log((1 - p) e^{(alpha-1) eps_1} + p e^{(alpha-1) eps_2}) / (alpha - 1),
 * which the truncated event's curve may exceed only by the roundings up of
 * q' and of the weights. */
START_TEST(rdp_mixes_moments)
{
    dpa_error err = { 0 };
    for (size_t c = 0; c < sizeof mix_ref / sizeof mix_ref[0]; c++) {
        double s = mix_ref[c].sigma, q = mix_ref[c].q, p = mix_ref[c].p;
        dpa_accountant *t = accountant_with("rdp", truncated(q, mix_ref[c].n, mix_ref[c].B, s));
        dpa_accountant *one = accountant_with("rdp", dpa_event_poisson_sampled(q, dpa_event_gaussian(s, &err), &err));
        dpa_accountant *two = accountant_with(
            "rdp", dpa_event_poisson_sampled(mix_ref[c].q2, dpa_event_gaussian(0.5 * s, &err), &err));
        double orders[128], et[128], e1[128], e2[128];
        size_t n = 0, n1 = 0, n2 = 0;
        ck_assert_int_eq(dpa_accountant_rdp_curve(t, orders, et, 128, &n, &err), DPA_OK);
        ck_assert_int_eq(dpa_accountant_rdp_curve(one, orders, e1, 128, &n1, &err), DPA_OK);
        ck_assert_int_eq(dpa_accountant_rdp_curve(two, orders, e2, 128, &n2, &err), DPA_OK);
        ck_assert_uint_gt(n, 10);
        ck_assert(n1 == n && n2 == n && n <= 128);
        for (size_t i = 0; i < n; i++) {
            double a = orders[i] - 1.0;
            double lm = p < 1.0 ? log((1.0 - p) * exp(a * e1[i] - a * e2[i]) + p) + a * e2[i] : a * e2[i];
            double want = lm / a;
            if (!isfinite(want)) continue;
            /* the weights' relative error (< 1e-11 here) pads log M, and so eps by 1e-11/(alpha - 1) */
            ck_assert_msg(et[i] >= want * (1.0 - 1e-12) && et[i] <= want * (1.0 + 1e-9) + 1e-11 / a,
                          "case %zu order %g: %.17g vs %.17g", c, orders[i], et[i], want);
        }
        dpa_accountant_free(t);
        dpa_accountant_free(one);
        dpa_accountant_free(two);
    }
}
END_TEST

/* Each bad argument is refused by name; a child that is not Gaussian noise,
 * the replace-one relation, and every accountant without the analysis are
 * refused (DPA_EUNSUPPORTED): none treats it as plain Poisson sampling. */
START_TEST(bad_input)
{
    static const struct {
        double q;
        uint64_t n, B;
        const char *names;
    } bad[] = {
        { 0.0, 1000, 12, "sampling rate q" }, { 1.5, 1000, 12, "sampling rate q" },
        { NAN, 1000, 12, "sampling rate q" }, { 0.01, 0, 0, "dataset size n" },
        { 0.01, 1000, 0, "max_batch must be at least 1" },
        { 0.01, 1000, 1001, "max_batch must be at most the dataset size n" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dpa_error err = { 0 };
        dpa_event *e = dpa_event_truncated_poisson(bad[i].q, bad[i].n, bad[i].B, dpa_event_gaussian(1.0, &err), &err);
        ck_assert_ptr_null(e);   /* the child is freed (ASan) */
        ck_assert_int_eq(err.status, DPA_EINVAL);
        ck_assert_msg(strstr(err.message, bad[i].names) != NULL, "case %zu: %s", i, err.message);
    }
    dpa_error err = { 0 };
    ck_assert_ptr_null(dpa_event_truncated_poisson(0.1, 10, 5, NULL, &err));
    ck_assert_int_eq(err.status, DPA_EINVAL);

    /* a Laplace child: accepted as an event, refused by every accountant */
    static const char *const all[] = { "gaussian", "gdp", "zcdp", "rdp", "pld", "shuffle", "tuning" };
    dpa_event *lap = dpa_event_truncated_poisson(0.01, 1000, 12, dpa_event_laplace(1.0, &err), &err);
    dpa_event *gauss = truncated(0.01, 1000, 12, 1.0);
    ck_assert_ptr_nonnull(lap);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        dpa_accountant *a = dpa_accountant_new(all[i], NULL, &err);
        ck_assert_ptr_nonnull(a);
        err = (dpa_error){ 0 };
        ck_assert_int_eq(dpa_accountant_compose(a, lap, &err), DPA_EUNSUPPORTED);
        if (!strcmp(all[i], "pld"))
            ck_assert_msg(strstr(err.message, "Gaussian noise only") != NULL, "%s", err.message);
        if (!strcmp(all[i], "rdp"))
            ck_assert_msg(strstr(err.message, "only Gaussian noise") != NULL, "%s", err.message);
        /* with Gaussian noise only pld and rdp have the analysis */
        int st = dpa_accountant_compose(a, gauss, &err);
        if (!strcmp(all[i], "pld") || !strcmp(all[i], "rdp")) ck_assert_int_eq(st, DPA_OK);
        else ck_assert_msg(st == DPA_EUNSUPPORTED, "%s: %d (%s)", all[i], st, err.message);
        dpa_accountant_free(a);
    }
    dpa_options opt;
    dpa_options_init(&opt);
    opt.relation = DPA_REPLACE_ONE;
    for (int m = 0; m < 2; m++) {
        dpa_accountant *a = dpa_accountant_new(m ? "rdp" : "pld", &opt, &err);
        ck_assert_int_eq(dpa_accountant_compose(a, gauss, &err), DPA_EUNSUPPORTED);
        ck_assert_msg(strstr(err.message, "add/remove") != NULL, "%s", err.message);
        dpa_accountant_free(a);
    }
    dpa_event_free(lap);
    dpa_event_free(gauss);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("truncated");
    TCase *tc = tcase_create("truncated_poisson");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, mixture_weights);
    tcase_add_test(tc, profile_matches_reference);
    tcase_add_test(tc, one_step_bracket_holds_reference);
    tcase_add_test(tc, max_batch_n_is_poisson);
    tcase_add_test(tc, composition_grows_as_max_batch_falls);
    tcase_add_test(tc, rdp_mixes_moments);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
