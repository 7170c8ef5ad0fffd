/*
 * test_mixture.c - the mixture-of-Gaussians event (Choquette-Choo, Ganesh,
 * Steinke & Thakurta, ICLR 2024) in pld and rdp, against independent
 * references:
 *  - one step of both worlds against mpmath quadrature of
 *    max(0, p - e^eps q) at 50 digits (tests/ref/mixture_gaussians.py),
 *    and far tails (delta below 1e-180) against its two-term formula at
 *    80 digits;
 *  - twenty steps against the same script's lattice composition by FFT
 *    (rounded up and down: a bracket of its own);
 *  - {0: 1 - q, c: q} against the Poisson-sampled Gaussian (the same
 *    brackets; and the generic pair against the Poisson pair's closed form);
 *  - one component against the Gaussian's closed form;
 *  - rdp against the joint-convexity bound, and above the remove
 *    direction's moment (a brute-force sum over ordered tuples);
 *  - the refusals of bad input and of the accountants without a bound.
 */
#include "dpacct.h"
#include "internal.h"
#include "pld/pld_profiles.h"
#include "testutil.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIGMA 1.3
static const double C3[3] = { 0.0, 1.0, 2.5 }, P3[3] = { 0.6, 0.3, 0.1 };

static dpa_event *mixture3(void)
{
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_mixture_of_gaussians(SIGMA, C3, P3, 3, &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    return e;
}

/* tests/ref/mixture_gaussians.py, part 1: { world, eps, delta } */
static const double one_step_ref[][3] = {
    { 0, -0.5, 0.39346934222061818 },
    { 0, 0, 0.15117310491262471 },
    { 0, 0.5, 0.066264920227895855 },
    { 0, 1, 0.032712290222869139 },
    { 0, 2, 0.0088166430865584392 },
    { 0, 4, 0.0005107988746046324 },
    { 0, 8, 1.6356720023745147e-7 },
    { 1, -0.5, 0.43366104606899729 },
    { 1, 0, 0.15117310491262474 },
    { 1, 0.3, 0.016781402423882223 },
    { 1, 0.5, 3.1873930891057447e-9 },
    { 1, 0.51, 7.0072715266117923e-20 },
    { 1, 1, 0.0 },
};

/* The profile with its bound contains each reference value, and the bound
 * is small (the reference has 17 digits). */
START_TEST(one_step_profile_matches_quadrature)
{
    dpa_error err = { 0 };
    dpa_event *e = mixture3();
    pld_profile pairs[2];
    ck_assert_int_eq(pld_profile_of_event(e, DPA_ADD_REMOVE, pairs, &err), DPA_OK);
    ck_assert_int_eq(pairs[0].pair, PLD_MIXTURE_REMOVE);
    ck_assert_int_eq(pairs[1].pair, PLD_MIXTURE_ADD);
    for (size_t i = 0; i < sizeof one_step_ref / sizeof one_step_ref[0]; i++) {
        int w = (int)one_step_ref[i][0];
        double eps = one_step_ref[i][1], ref = one_step_ref[i][2], re;
        double ld = pld_profile_log_delta_relerr(eps, &pairs[w], &re);
        double d = exp(ld);
        ck_assert_msg(d * (1.0 - re) <= ref * (1.0 + 1e-15) && ref <= d * (1.0 + re) * (1.0 + 1e-15),
                      "world %d eps %g: %.17g (relerr %g) against %.17g", w, eps, d, re, ref);
        /* near the add world's largest loss (0.51) delta is 1e-20 and the
         * losses' rounding weighs more */
        ck_assert_msg(re < (ref > 1e-12 ? 1e-9 : 1e-6), "world %d eps %g: relerr %g", w, eps, re);
        /* the same through the separate entry points */
        pld_profile copy = pairs[w];
        ck_assert(pld_profile_log_delta(eps, &copy) == ld);
        ck_assert(pld_profile_delta_relerr(&copy, eps) == re);
    }
    dpa_event_free(e);
}
END_TEST

/* tests/ref/mixture_gaussians.py, part 3: far tails, beyond the doubles
 * (log delta), { sigma, world, eps, log delta } of the mixtures
 * sigma 5 {0: 0.5, 1: 0.3, 2: 0.2} and sigma 1 {0.5: 0.2, 1: 0.5, 2: 0.3}
 * (no component at 0). */
static const double far_ref[][4] = {
    { 5, 0, 10, -425.24724994493141 },
    { 5, 0, 40, -5402.403592393983 },
    { 1, 1, 20, -676.08573934610739 },
    { 1, 1, 40, -2938.8009851159914 },
};

START_TEST(far_tails_within_their_bound)
{
    const double c5[3] = { 0.0, 1.0, 2.0 }, p5[3] = { 0.5, 0.3, 0.2 };
    const double c1[3] = { 0.5, 1.0, 2.0 }, p1[3] = { 0.2, 0.5, 0.3 };
    for (size_t i = 0; i < sizeof far_ref / sizeof far_ref[0]; i++) {
        dpa_error err = { 0 };
        int five = far_ref[i][0] == 5.0, w = (int)far_ref[i][1];
        dpa_event *e = dpa_event_mixture_of_gaussians(far_ref[i][0], five ? c5 : c1, five ? p5 : p1, 3, &err);
        pld_profile pairs[2];
        ck_assert_int_eq(pld_profile_of_event(e, DPA_ADD_REMOVE, pairs, &err), DPA_OK);
        double re, ld = pld_profile_log_delta_relerr(far_ref[i][2], &pairs[w], &re);
        /* |delta/ref - 1| <= relerr, in logs (a few ulps of |ld| for the comparison) */
        double off = fabs(ld - far_ref[i][3]), slack = 8.0 * DBL_EPSILON * fabs(ld);
        ck_assert_msg(off <= -log1p(-fmin(re, 0.5)) + slack, "case %zu: log delta %.17g against %.17g (relerr %g)",
                      i, ld, far_ref[i][3], re);
        ck_assert_msg(re < 1e-9, "case %zu: relerr %g", i, re);
        dpa_event_free(e);
    }
}
END_TEST

/* The accountant's single-step brackets, each direction's and the larger. */
START_TEST(one_step_accountant_contains_quadrature)
{
    dpa_accountant *a = accountant_with("pld", mixture3());
    const double eps_list[] = { 0.0, 0.5 };
    const double remove[] = { 0.15117310491262471, 0.066264920227895855 };
    const double add[] = { 0.15117310491262474, 3.1873930891057447e-9 };
    for (int i = 0; i < 2; i++) {
        dpa_error err = { 0 };
        dpa_bound b, dir[2];
        int exact;
        ck_assert_int_eq(dpa_accountant_delta(a, eps_list[i], &b, &err), DPA_OK);
        double truth = fmax(remove[i], add[i]);
        ck_assert_msg(b.lower <= truth && truth <= b.upper, "eps %g: [%.17g, %.17g] against %.17g", eps_list[i],
                      b.lower, b.upper, truth);
        ck_assert_msg(b.upper - b.lower <= 1e-3 * truth, "eps %g: width %g", eps_list[i], b.upper - b.lower);
        ck_assert_int_eq(dpa_accountant_delta_directions(a, eps_list[i], 0, dir, &exact, &err), DPA_OK);
        ck_assert_int_eq(exact, 1);
        ck_assert_msg(dir[0].lower <= remove[i] && remove[i] <= dir[0].upper, "remove eps %g: [%.17g, %.17g]",
                      eps_list[i], dir[0].lower, dir[0].upper);
        ck_assert_msg(dir[1].lower <= add[i] && add[i] <= dir[1].upper, "add eps %g: [%.17g, %.17g]", eps_list[i],
                      dir[1].lower, dir[1].upper);
    }
    dpa_accountant_free(a);
}
END_TEST

/* tests/ref/mixture_gaussians.py, part 2: { world, eps, lower, upper } of
 * twenty steps, the script's lattice bracket (step 5e-5). */
static const double twenty_ref[][4] = {
    { 0, 1, 5.2769466211e-01, 5.2783984397e-01 },
    { 0, 2, 3.8796381627e-01, 3.8809552129e-01 },
    { 0, 4, 1.7483613153e-01, 1.7491557967e-01 },
    { 1, 1, 4.5790022986e-01, 4.5813183988e-01 },
    { 1, 2, 2.3344430763e-01, 2.3364730953e-01 },
    { 1, 4, 1.1697419648e-02, 1.1724887198e-02 },
};

/* Two certified brackets of the same value must meet; and the library's
 * estimate lies within the script's bracket widened by 1e-3 (the stated
 * tolerance: the library's default relative accuracy is finer). */
START_TEST(twenty_steps_match_lattice_composition)
{
    dpa_accountant *a = accountant_with("pld", dpa_event_self_composed(mixture3(), 20, NULL));
    for (size_t i = 0; i < sizeof twenty_ref / sizeof twenty_ref[0]; i++) {
        int w = (int)twenty_ref[i][0];
        double eps = twenty_ref[i][1], lo = twenty_ref[i][2], up = twenty_ref[i][3];
        dpa_error err = { 0 };
        dpa_bound b, dir[2];
        int exact;
        ck_assert_int_eq(dpa_accountant_delta(a, eps, &b, &err), DPA_OK);
        ck_assert_int_eq(dpa_accountant_delta_directions(a, eps, 0, dir, &exact, &err), DPA_OK);
        const dpa_bound *d = &dir[w];
        ck_assert_msg(d->upper >= lo && d->lower <= up, "world %d eps %g: [%.10g, %.10g] misses [%.10g, %.10g]", w,
                      eps, d->lower, d->upper, lo, up);
        ck_assert_msg(fabs(d->estimate - 0.5 * (lo + up)) <= 0.5 * (up - lo) + 1e-3 * up,
                      "world %d eps %g: estimate %.10g, reference [%.10g, %.10g]", w, eps, d->estimate, lo, up);
        ck_assert(b.upper >= d->upper * (1.0 - 1e-12));
    }
    dpa_accountant_free(a);
}
END_TEST

static void same_bound(const dpa_bound *x, const dpa_bound *y, const char *what)
{
    ck_assert_msg(x->lower == y->lower && x->upper == y->upper && x->estimate == y->estimate,
                  "%s: [%.17g, %.17g] against [%.17g, %.17g]", what, x->lower, x->upper, y->lower, y->upper);
}

/* {0: 1 - q, 1: q} is the Poisson-sampled Gaussian: the very same bracket
 * (scaled: {0, 2} with sigma 1.6 is sigma 0.8). */
START_TEST(poisson_special_case_is_poisson)
{
    dpa_error err = { 0 };
    const double c[2] = { 0.0, 2.0 }, p[2] = { 0.99, 0.01 };
    dpa_accountant *mix = accountant_with(
        "pld", dpa_event_self_composed(dpa_event_mixture_of_gaussians(1.6, c, p, 2, &err), 100, &err));
    dpa_accountant *poi = accountant_with(
        "pld", dpa_event_self_composed(dpa_event_poisson_sampled(0.01, dpa_event_gaussian(0.8, &err), &err), 100, &err));
    dpa_bound x, y;
    ck_assert_int_eq(dpa_accountant_epsilon(mix, 1e-5, &x, &err), DPA_OK);
    ck_assert_int_eq(dpa_accountant_epsilon(poi, 1e-5, &y, &err), DPA_OK);
    same_bound(&x, &y, "epsilon at 1e-5");
    ck_assert_int_eq(dpa_accountant_delta(mix, 1.0, &x, &err), DPA_OK);
    ck_assert_int_eq(dpa_accountant_delta(poi, 1.0, &y, &err), DPA_OK);
    same_bound(&x, &y, "delta at 1");
    dpa_accountant_free(mix);
    dpa_accountant_free(poi);
}
END_TEST

/* The generic mixture pair (not the shortcut) against the Poisson pairs'
 * closed forms: both values within the sum of their bounds. */
START_TEST(generic_pair_agrees_with_poisson_pair)
{
    const double list[4] = { 0.0, 2.0, 0.99, 0.01 };
    for (int w = 0; w < 2; w++) {
        pld_profile mix = { .pair = w ? PLD_MIXTURE_ADD : PLD_MIXTURE_REMOVE, .sigma = 1.6, .q = 1.0, .mix = list,
                            .mix_n = 2 };
        pld_profile poi = { .pair = w ? PLD_POISSON_ADD : PLD_POISSON_REMOVE, .sigma = 0.8, .q = 0.01 };
        for (double eps = -3.0; eps <= 12.0; eps += 0.173) {
            double rm, rp, lm = pld_profile_log_delta_relerr(eps, &mix, &rm);
            double lp = pld_profile_log_delta_relerr(eps, &poi, &rp);
            if (lp == -INFINITY) {
                ck_assert_msg(lm == -INFINITY, "world %d eps %g: %g against 0", w, eps, exp(lm));
                continue;
            }
            ck_assert_msg(fabs(expm1(lm - lp)) <= rm + rp + 1e-15, "world %d eps %g: %.17g against %.17g (%g + %g)",
                          w, eps, exp(lm), exp(lp), rm, rp);
            ck_assert_msg(rm < 1e-6, "world %d eps %g: relerr %g", w, eps, rm);
            double qm = pld_profile_log_q_survival(eps, &mix), qp = pld_profile_log_q_survival(eps, &poi);
            ck_assert_msg(qm >= qp - 1e-9 * (1.0 + fabs(qp)) && qm <= qp + 1e-9 * (1.0 + fabs(qp)),
                          "world %d eps %g: log Q(L > eps) %.17g against %.17g", w, eps, qm, qp);
        }
        double lo, hi;
        pld_profile_loss_range(&mix, &lo, &hi);
        ck_assert(w ? hi == -log(0.99) : lo == log(0.99));
        ck_assert(isfinite(w ? lo : hi));
    }
}
END_TEST

/* One component of sensitivity c: the Gaussian with multiplier sigma/c. */
START_TEST(one_component_is_gaussian)
{
    dpa_error err = { 0 };
    const double c = 2.0, p = 1.0, sigma = 3.0, mu = c / sigma;
    dpa_accountant *a = accountant_with("pld", dpa_event_mixture_of_gaussians(sigma, &c, &p, 1, &err));
    dpa_accountant *g = accountant_with("pld", dpa_event_gaussian(1.5, &err));
    for (double eps = 0.0; eps <= 3.0; eps += 0.5) {
        dpa_bound x, y;
        ck_assert_int_eq(dpa_accountant_delta(a, eps, &x, &err), DPA_OK);
        ck_assert_int_eq(dpa_accountant_delta(g, eps, &y, &err), DPA_OK);
        same_bound(&x, &y, "delta");
        /* Balle & Wang 2018: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) */
        double truth = 0.5 * erfc((eps / mu - mu / 2) / M_SQRT2) - exp(eps) * 0.5 * erfc((eps / mu + mu / 2) / M_SQRT2);
        ck_assert_msg(x.lower <= truth * (1.0 + 1e-12) && truth <= x.upper * (1.0 + 1e-12),
                      "eps %g: [%.17g, %.17g] against %.17g", eps, x.lower, x.upper, truth);
    }
    dpa_accountant_free(a);
    dpa_accountant_free(g);
}
END_TEST

/* E_Q[(P/Q)^a] by brute force over the n^a ordered tuples of components:
 * prod w_i exp(sum_{j < k} m_ij m_ik) (Gaussian moment generating function). */
static double brute_moment(const double *m, const double *w, size_t n, unsigned a)
{
    size_t tuples = 1;
    for (unsigned j = 0; j < a; j++) tuples *= n;
    long double sum = 0.0L;
    for (size_t t = 0; t < tuples; t++) {
        size_t idx[8], r = t;
        long double weight = 1.0L, cross = 0.0L;
        for (unsigned j = 0; j < a; j++) { idx[j] = r % n; r /= n; weight *= w[idx[j]]; }
        for (unsigned j = 0; j < a; j++)
            for (unsigned k = j + 1; k < a; k++) cross += (long double)m[idx[j]] * m[idx[k]];
        sum += weight * expl(cross);
    }
    return (double)logl(sum);
}

/* rdp at orders 1.5, 2, 3, 5: the joint-convexity bound of both
 * directions, log(sum_i p_i e^{a(a-1) m_i^2/2})/(a-1), rounded up by a
 * little only; and never below the remove direction's exact moment (brute
 * force over ordered tuples; the convexity puts it below the bound). */
START_TEST(rdp_is_the_convexity_bound)
{
    const double orders[] = { 1.5, 2.0, 3.0, 5.0 };
    dpa_options opt;
    dpa_options_init(&opt);
    opt.orders = orders;
    opt.num_orders = 4;
    dpa_accountant *a = accountant_with_options("rdp", &opt, mixture3());
    double o[4], eps[4];
    size_t n;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpa_accountant_rdp_curve(a, o, eps, 4, &n, &err), DPA_OK);
    ck_assert_uint_eq(n, 4);
    double m[3], w[3];
    for (int i = 0; i < 3; i++) { m[i] = C3[i] / SIGMA; w[i] = P3[i]; }
    for (size_t i = 0; i < 4; i++) {
        double al = o[i], bound = 0.0;
        for (int j = 0; j < 3; j++) bound += w[j] * exp(al * (al - 1.0) * m[j] * m[j] / 2.0);
        bound = log(bound) / (al - 1.0);
        ck_assert_msg(eps[i] >= bound && eps[i] <= bound * (1.0 + 1e-12), "order %g: %.17g against %.17g", al,
                      eps[i], bound);
        if (al == floor(al)) {
            double remove = brute_moment(m, w, 3, (unsigned)al) / (al - 1.0);
            ck_assert_msg(eps[i] >= remove, "order %g: %.17g below the remove moment %.17g", al, eps[i], remove);
        }
    }
    dpa_accountant_free(a);
}
END_TEST

/* A message that is one line and says `what`. */
static void one_line(const dpa_error *err, int status, const char *what)
{
    ck_assert_int_eq(err->status, status);
    ck_assert_msg(strstr(err->message, what) != NULL, "'%s' does not say '%s'", err->message, what);
    ck_assert_msg(strchr(err->message, '\n') == NULL, "'%s' is not one line", err->message);
}

START_TEST(bad_input_is_refused)
{
    const double c[3] = { 0.0, 1.0, 2.0 }, p[3] = { 0.5, 0.3, 0.2 };
    const struct {
        double sigma;
        const double *c, *p;
        size_t n;
        const char *what;
    } bad[] = {
        { 1.0, c, p, 0, "at least one component" },
        { 1.0, NULL, p, 3, "sensitivities is NULL" },
        { 0.0, c, p, 3, "sigma must be positive" },
        { -1.0, c, p, 3, "sigma must be positive" },
        { NAN, c, p, 3, "sigma must be positive" },
        { 1.0, (const double[]){ 0.0, -1.0, 2.0 }, p, 3, "sensitivities[1] must be finite and >= 0" },
        { 1.0, (const double[]){ 0.0, INFINITY, 2.0 }, p, 3, "sensitivities[1] must be finite and >= 0" },
        { 1.0, c, (const double[]){ 0.5, 0.0, 0.5 }, 3, "probabilities[1] must lie in (0, 1]" },
        { 1.0, c, (const double[]){ 0.5, -0.3, 0.8 }, 3, "probabilities[1] must lie in (0, 1]" },
        { 1.0, c, (const double[]){ 0.5, 0.3, 0.3 }, 3, "they sum to 1.1" },
        { 1.0, c, p, DPA_MAX_MIXTURE_COMPONENTS + 1, "DPA_MAX_MIXTURE_COMPONENTS" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dpa_error err = { 0 };
        ck_assert_ptr_null(dpa_event_mixture_of_gaussians(bad[i].sigma, bad[i].c, bad[i].p, bad[i].n, &err));
        one_line(&err, DPA_EINVAL, bad[i].what);
    }
    const struct { const char *text, *what; } texts[] = {
        { "mixture_of_gaussians(sigma=1, sensitivities=[], probabilities=[1])", "position 46: mixture_of_gaussians: "
                                                                                "sensitivities is an empty list" },
        { "mixture_of_gaussians(sigma=1, sensitivities=[0, 1], probabilities=[1])", "sensitivities has 2 values but "
                                                                                    "probabilities has 1" },
        { "mixture_of_gaussians(sigma=1, sensitivities=[0, one], probabilities=[0.5, 0.5])",
          "position 49: mixture_of_gaussians: sensitivities[1]: 'one' is not a number" },
        { "mixture_of_gaussians(sigma=1, sensitivities=[0, 1, probabilities=[0.5, 0.5])",
          "the list sensitivities (from position 45) has no closing ']'" },
        { "mixture_of_gaussians(sigma=1, sensitivities=[0, 1], probabilities=[0.5, 0.5)",
          "expected ',' or ']' in the list" },
        { "mixture_of_gaussians(sigma=1, sensitivities=1, probabilities=[1])", "sensitivities needs a list" },
        { "mixture_of_gaussians(sigma=1, probabilities=[1])", "needs sensitivities" },
        { "mixture_of_gaussians(sigma=[1], sensitivities=[1], probabilities=[1])", "sigma needs a number, got a list" },
        { "gaussian(sigma=[1])", "sigma needs a number, got a list" },
        { "mixture_of_gaussians(sigma=1, sensitivities=[0, -1], probabilities=[0.5, 0.5])",
          "sensitivities[1] must be finite and >= 0" },
        { "{\"kind\": \"mixture_of_gaussians\", \"sigma\": 1, \"sensitivities\": [], \"probabilities\": [1]}",
          "sensitivities is an empty list" },
        { "{\"kind\": \"mixture_of_gaussians\", \"sigma\": 1, \"sensitivities\": [0, \"1\"], \"probabilities\": [0.5, "
          "0.5]}",
          "sensitivities[1] needs a number" },
        { "{\"kind\": \"mixture_of_gaussians\", \"sigma\": 1, \"sensitivities\": [0, 1], \"probabilities\": [1]}",
          "sensitivities has 2 values but probabilities has 1" },
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        dpa_error err = { 0 };
        const char *t = texts[i].text;
        dpa_event *e = t[0] == '{' ? dpa_event_from_json(t, strlen(t), &err) : dpa_event_parse(t, &err);
        ck_assert_msg(e == NULL, "accepted %s", t);
        one_line(&err, DPA_EINVAL, texts[i].what);
    }
    /* a list as long as allowed is read; one more is not */
    size_t n = DPA_MAX_MIXTURE_COMPONENTS + 1, len = 0, cap = 64 + 2 * 8 * n;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    for (int over = 0; over < 2; over++) {
        size_t k = DPA_MAX_MIXTURE_COMPONENTS + (size_t)over;
        len = (size_t)snprintf(text, cap, "mixture_of_gaussians(sigma=1, sensitivities=[");
        for (size_t i = 0; i < k; i++) len += (size_t)snprintf(text + len, cap - len, "%s1", i ? "," : "");
        len += (size_t)snprintf(text + len, cap - len, "], probabilities=[");
        for (size_t i = 0; i < k; i++) len += (size_t)snprintf(text + len, cap - len, "%s0.0009765625", i ? "," : "");
        snprintf(text + len, cap - len, "])");
        dpa_error err = { 0 };
        dpa_event *e = dpa_event_parse(text, &err);
        if (over) one_line(&err, DPA_EINVAL, "more than 1024 values");
        else ck_assert_msg(e != NULL && dpa_event_num_components(e) == k, "%s", err.message);
        dpa_event_free(e);
    }
    free(text);
}
END_TEST

/* The accountants without a bound for it refuse it, saying so; pld and rdp
 * refuse what they have no pair or bound for. */
START_TEST(accountants_refuse_what_they_cannot_bound)
{
    const char *methods[] = { "zcdp", "gdp", "gaussian", "batches", "shuffle", "tuning" };
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
        dpa_error err = { 0 };
        dpa_accountant *a = dpa_accountant_new(methods[i], NULL, &err);
        ck_assert_ptr_nonnull(a);
        dpa_event *e = mixture3();
        ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
        one_line(&err, DPA_EUNSUPPORTED, "mixture_of_gaussians");
        dpa_event_free(e);
        dpa_accountant_free(a);
    }
    dpa_options opt;
    dpa_options_init(&opt);
    opt.relation = DPA_REPLACE_ONE;
    const char *both[] = { "pld", "rdp" };
    for (int i = 0; i < 2; i++) {
        dpa_error err = { 0 };
        dpa_accountant *a = dpa_accountant_new(both[i], &opt, &err);
        dpa_event *e = mixture3();
        ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
        one_line(&err, DPA_EUNSUPPORTED, "add/remove");
        dpa_event_free(e);
        dpa_accountant_free(a);
    }
    dpa_error err = { 0 };
    dpa_accountant *a = dpa_accountant_new("pld", NULL, &err);
    dpa_event *e = dpa_event_poisson_sampled(0.1, mixture3(), &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    one_line(&err, DPA_EUNSUPPORTED, "sampling of mixture_of_gaussians");
    dpa_event_free(e);
    dpa_accountant_free(a);
}
END_TEST

/* The pld accountant keeps its own copy of the components: the event may
 * be freed once composed (valgrind and ASan see a use after free). */
START_TEST(accountant_outlives_the_event)
{
    dpa_error err = { 0 };
    dpa_accountant *a = dpa_accountant_new("pld", NULL, &err);
    dpa_event *e = mixture3();
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_OK);
    dpa_event_free(e);
    dpa_bound b;
    ck_assert_int_eq(dpa_accountant_delta(a, 1.0, &b, &err), DPA_OK);
    ck_assert_msg(b.lower <= 0.032712290222869139 && 0.032712290222869139 <= b.upper, "[%g, %g]", b.lower, b.upper);
    dpa_accountant_free(a);
}
END_TEST

/* sigma may be left open in a template: the smallest noise searched. */
START_TEST(sigma_is_a_template_hole)
{
    dpa_error err = { 0 };
    const char *t = "mixture_of_gaussians(sigma=?, sensitivities=[0, 1, 2.5], probabilities=[0.6, 0.3, 0.1])";
    dpa_event_template *tp = dpa_event_template_new(t, strlen(t), &err);
    ck_assert_msg(tp != NULL, "%s", err.message);
    dpa_event_hole h;
    ck_assert_int_eq(dpa_event_template_hole(tp, &h, &err), DPA_OK);
    ck_assert_str_eq(h.name, "sigma");
    ck_assert_int_eq(h.direction, DPA_SEARCH_SMALLEST);
    dpa_event_template_free(tp);
    t = "mixture_of_gaussians(sigma=1, sensitivities=[0, ?], probabilities=[0.5, 0.5])";
    ck_assert_ptr_null(dpa_event_template_new(t, strlen(t), &err));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mixture");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, one_step_profile_matches_quadrature);
    tcase_add_test(tc, far_tails_within_their_bound);
    tcase_add_test(tc, one_step_accountant_contains_quadrature);
    tcase_add_test(tc, twenty_steps_match_lattice_composition);
    tcase_add_test(tc, poisson_special_case_is_poisson);
    tcase_add_test(tc, generic_pair_agrees_with_poisson_pair);
    tcase_add_test(tc, one_component_is_gaussian);
    tcase_add_test(tc, rdp_is_the_convexity_bound);
    tcase_add_test(tc, bad_input_is_refused);
    tcase_add_test(tc, accountants_refuse_what_they_cannot_bound);
    tcase_add_test(tc, accountant_outlives_the_event);
    tcase_add_test(tc, sigma_is_a_template_hole);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
