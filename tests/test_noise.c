/*
 * test_noise.c - the secure generator's draws (trainers/rng.c) and the
 * floating-point-safe noise samplers (trainers/noise.c).
 *
 * References, each independent of the code under test:
 *   - the generator's draws against their exact laws (chi-square, exact
 *     binomial tails), the Bernoulli also bit for bit against a mirror that
 *     compares U's words with q in MPFR;
 *   - the samplers' output law, that of round_g(v + Z), in closed form in
 *     long double (erfcl, expl), by the Dvoretzky-Kiefer-Wolfowitz bound
 *     (Massart's constant: P(sup |F_n - F| > e) <= 2 exp(-2 n e^2) for any
 *     n, and conservative for a discrete F);
 *   - single draws exactly: from the words of U a draw used (a twin
 *     generator with the same seed replays them), F(a_k) <= U < F(a_{k+1})
 *     checked with F written here directly in MPFR at high precision (no
 *     tails, no directed rounding: not the sampler's formulas);
 *   - GSL's normal quantile, on whose accuracy the double path's margin
 *     rests, against Newton's method on MPFR's erfc.
 * Every statistical check fails with probability at most ALPHA = 1e-8 for
 * a correct implementation, and there are fewer than 100 of them: below
 * 1e-6 for the suite.  The generators are seeded, so the suite is
 * deterministic.
 */
#include "dptrain.h"
#include "testutil.h"

#include <check.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

#define ALPHA 1e-8

/* An assertion for loops: Check's ck_assert records every passing check
 * (a write to its pipe), millions of system calls here. */
#define REQUIRE(expr, ...) do { if (!(expr)) ck_abort_msg(__VA_ARGS__); } while (0)

static dpt_rng *seeded(uint64_t seed)
{
    dpa_error err = { 0 };
    dpt_rng *r = NULL;
    ck_assert_msg(dpt_rng_new_seeded(seed, &r, &err) == DPA_OK, "%s", err.message);
    return r;
}

/* Pearson's statistic of counts against probabilities p (summing to 1),
 * below the chi-square quantile of level ALPHA (bins - 1 degrees of freedom). */
static void assert_chisq(const char *what, const unsigned long *count, const double *p, int bins, unsigned long n)
{
    double stat = 0.0;
    for (int i = 0; i < bins; i++) {
        double e = p[i] * (double)n;
        ck_assert_msg(e >= 5.0, "%s: bin %d expects %.3g (< 5)", what, i, e);
        stat += ((double)count[i] - e) * ((double)count[i] - e) / e;
    }
    double crit = gsl_cdf_chisq_Qinv(ALPHA, bins - 1);
    ck_assert_msg(stat <= crit, "%s: chi-square %.4g above %.4g (%d bins, n %lu)", what, stat, crit, bins, n);
}

/* x successes in n of probability p: both exact tails of Bin(n, p) above ALPHA / 2. */
static void assert_binomial(const char *what, unsigned long x, unsigned long n, double p)
{
    double lower = gsl_cdf_binomial_P((unsigned)x, p, (unsigned)n);
    double upper = x == 0 ? 1.0 : gsl_cdf_binomial_Q((unsigned)(x - 1), p, (unsigned)n);
    ck_assert_msg(lower > ALPHA / 2 && upper > ALPHA / 2,
                  "%s: %lu of %lu at p = %.6g (P[X <= x] = %.3g, P[X >= x] = %.3g)", what, x, n, p, lower, upper);
}

/* ---- the generator ------------------------------------------------------------ */

START_TEST(below_is_uniform)
{
    const uint64_t ns[] = { 3, 7, 1000 };
    for (int c = 0; c < 3; c++) {
        uint64_t n = ns[c];
        unsigned long draws = n < 100 ? 300000UL : 1000000UL;
        unsigned long *count = calloc(n, sizeof *count);
        double *p = malloc(n * sizeof *p);
        dpt_rng *r = seeded(11 + (uint64_t)c);
        for (unsigned long i = 0; i < draws; i++) {
            uint64_t x = dpt_rng_below(r, n);
            REQUIRE(x < n, "dpt_rng_below(%llu) gave %llu", (unsigned long long)n, (unsigned long long)x);
            count[x]++;
        }
        for (uint64_t i = 0; i < n; i++) p[i] = 1.0 / (double)n;
        char what[64];
        snprintf(what, sizeof what, "dpt_rng_below(%llu)", (unsigned long long)n);
        assert_chisq(what, count, p, (int)n, draws);
        dpt_rng_free(r);
        free(count);
        free(p);
    }
}
END_TEST

START_TEST(below_edges)
{
    dpt_rng *r = seeded(12);
    for (int i = 0; i < 100; i++) {
        REQUIRE(dpt_rng_below(r, 0) == 0 && dpt_rng_below(r, 1) == 0, "dpt_rng_below(0 or 1) is not 0");
        REQUIRE(dpt_rng_below(r, UINT64_MAX) < UINT64_MAX, "dpt_rng_below(2^64 - 1) out of range");
        REQUIRE(dpt_rng_below(r, UINT64_C(1) << 63) < UINT64_C(1) << 63, "dpt_rng_below(2^63) out of range");
    }
    /* n = 2^63 + 1 refuses 2^63 - 1 of the 2^64 words: without the
     * rejection, [0, 2^63 - 1) would be twice as likely as the rest, and
     * P[x < 2^62] 2/3 instead of 2^62 / n (1/2 to 1e-19) */
    const uint64_t ns[] = { (UINT64_C(1) << 63) + 1, UINT64_C(3) << 62 };
    const double below_quarter[] = { 0.5, 1.0 / 3.0 };
    for (int c = 0; c < 2; c++) {
        unsigned long hits = 0, draws = 200000;
        for (unsigned long i = 0; i < draws; i++) {
            uint64_t x = dpt_rng_below(r, ns[c]);
            REQUIRE(x < ns[c], "dpt_rng_below(%llu) gave %llu", (unsigned long long)ns[c], (unsigned long long)x);
            hits += x < (UINT64_C(1) << 62);
        }
        assert_binomial("dpt_rng_below(large n) < 2^62", hits, draws, below_quarter[c]);
    }
    dpt_rng_free(r);
}
END_TEST

START_TEST(bernoulli_rates)
{
    dpt_rng *r = seeded(13);
    const double qs[] = { 0.3, 1e-3 };
    const unsigned long draws[] = { 1000000, 3000000 };
    for (int c = 0; c < 2; c++) {
        unsigned long ones = 0;
        for (unsigned long i = 0; i < draws[c]; i++) ones += (unsigned long)dpt_rng_bernoulli(r, qs[c]);
        assert_binomial("dpt_rng_bernoulli", ones, draws[c], qs[c]);
    }
    /* 2^-70: never observable (1e6 draws see a one with probability 1e-15)
     * and never a crash; the smallest double likewise */
    unsigned long ones = 0;
    for (int i = 0; i < 1000000; i++) ones += (unsigned long)dpt_rng_bernoulli(r, 0x1p-70);
    for (int i = 0; i < 1000; i++) ones += (unsigned long)dpt_rng_bernoulli(r, DBL_TRUE_MIN);
    ck_assert_uint_eq(ones, 0);
    for (int i = 0; i < 1000; i++) {
        REQUIRE(dpt_rng_bernoulli(r, 0.0) == 0 && dpt_rng_bernoulli(r, -1.0) == 0 && dpt_rng_bernoulli(r, NAN) == 0,
                "a Bernoulli of q <= 0 gave 1");
        REQUIRE(dpt_rng_bernoulli(r, 1.0) == 1 && dpt_rng_bernoulli(r, 2.0) == 1 && dpt_rng_bernoulli(r, INFINITY) == 1,
                "a Bernoulli of q >= 1 gave 0");
    }
    dpt_rng_free(r);
}
END_TEST

/* Bit for bit: 1 exactly when U < q, U's words read from a twin generator
 * until U's interval lies on one side of q (compared in MPFR), so the twin
 * also stays in step with the generator under test. */
START_TEST(bernoulli_exact)
{
    const double qs[] = { 0.3, 1e-3, 1.0 / 3.0, 0.5, 1.0 - 0x1p-53, 0x1p-70, 0x1.fffffffffffffp-2, 1e-300 };
    mpfr_t u, hi, tmp;
    mpfr_inits2(64, u, hi, tmp, (mpfr_ptr)0);
    for (size_t c = 0; c < sizeof qs / sizeof qs[0]; c++) {
        dpt_rng *a = seeded(14 + c), *b = seeded(14 + c);
        for (int i = 0; i < 20000; i++) {
            int x = dpt_rng_bernoulli(a, qs[c]), y = -1;
            mpfr_set_prec(u, 64);
            mpfr_set_zero(u, 1);
            for (mpfr_prec_t n = 64; y < 0; n += 64) {
                mpfr_prec_round(u, n, MPFR_RNDN);
                mpfr_set_prec(tmp, 64);
                mpfr_set_uj_2exp(tmp, dpt_rng_u64(b), -n, MPFR_RNDN);
                mpfr_add(u, u, tmp, MPFR_RNDN);
                mpfr_set_prec(hi, n);
                mpfr_set_ui_2exp(hi, 1, -n, MPFR_RNDN);
                mpfr_add(hi, hi, u, MPFR_RNDN);
                if (mpfr_cmp_d(hi, qs[c]) <= 0) y = 1;
                else if (mpfr_cmp_d(u, qs[c]) >= 0) y = 0;
            }
            REQUIRE(x == y, "q = %a, draw %d: %d, U says %d", qs[c], i, x, y);
        }
        ck_assert_msg(dpt_rng_u64(a) == dpt_rng_u64(b), "q = %a: the twin streams drifted", qs[c]);
        dpt_rng_free(a);
        dpt_rng_free(b);
    }
    mpfr_clears(u, hi, tmp, (mpfr_ptr)0);
}
END_TEST

START_TEST(shuffle_is_uniform)
{
    dpt_rng *r = seeded(15);
    unsigned long count[24] = { 0 }, draws = 240000;
    double p[24];
    for (unsigned long i = 0; i < draws; i++) {
        size_t a[4] = { 0, 1, 2, 3 };
        dpt_rng_shuffle(r, a, 4);
        /* the permutation's Lehmer code */
        int code = 0, seen[4] = { 0 };
        for (int k = 0; k < 4; k++) {
            REQUIRE(a[k] < 4 && !seen[a[k]], "dpt_rng_shuffle: not a permutation");
            seen[a[k]] = 1;
            int smaller = 0;
            for (int m = k + 1; m < 4; m++) smaller += a[m] < a[k];
            code = code * (4 - k) + smaller;
        }
        count[code]++;
    }
    for (int k = 0; k < 24; k++) p[k] = 1.0 / 24.0;
    assert_chisq("dpt_rng_shuffle(4)", count, p, 24, draws);
    size_t one = 7;
    dpt_rng_shuffle(r, &one, 1);
    dpt_rng_shuffle(r, NULL, 0);
    ck_assert_uint_eq(one, 7);
    dpt_rng_free(r);
}
END_TEST

START_TEST(truncated_geometric_law)
{
    dpt_rng *r = seeded(16);
    for (int i = 0; i < 100; i++)
        REQUIRE(dpt_rng_truncated_geometric(r, 0) == 0 && dpt_rng_truncated_geometric(r, 1) == 0,
                "dpt_rng_truncated_geometric(K <= 1) is not 0");
    /* P[k] = 2^-k / (2 - 2^(1-K)); for K = 64 the bins from 14 on pooled */
    const unsigned Ks[] = { 5, 64 };
    for (int c = 0; c < 2; c++) {
        unsigned K = Ks[c], bins = K < 15 ? K : 15;
        unsigned long count[15] = { 0 }, draws = 400000;
        double p[15] = { 0 };
        double norm = 2.0 - ldexp(1.0, 1 - (int)K);
        for (unsigned k = 0; k < K; k++) p[k < bins - 1 ? k : bins - 1] += ldexp(1.0, -(int)k) / norm;
        for (unsigned long i = 0; i < draws; i++) {
            unsigned k = dpt_rng_truncated_geometric(r, K);
            REQUIRE(k < K, "dpt_rng_truncated_geometric(%u) gave %u", K, k);
            count[k < bins - 1 ? k : bins - 1]++;
        }
        assert_chisq("dpt_rng_truncated_geometric", count, p, (int)bins, draws);
    }
    dpt_rng_free(r);
}
END_TEST

START_TEST(seeds_and_keys)
{
    dpt_rng *a = seeded(42), *b = seeded(42), *c = seeded(43);
    for (int i = 0; i < 1000; i++) REQUIRE(dpt_rng_u64(a) == dpt_rng_u64(b), "same seed, word %d differs", i);
    for (int i = 0; i < 100; i++) {
        double x = dpt_noise_gaussian(a, 0.3, 1.0), y = dpt_noise_gaussian(b, 0.3, 1.0);
        REQUIRE(x == y, "same seed, noise draw %d differs", i);
        double u = dpt_rng_uniform(a);
        REQUIRE(u == dpt_rng_uniform(b), "same seed, uniform %d differs", i);
        REQUIRE(u >= 0.0 && u < 1.0 && ldexp(u, 53) == nearbyint(ldexp(u, 53)), "dpt_rng_uniform gave %a", u);
    }
    /* another seed, compared from the start: no word in common */
    dpt_rng *d = seeded(42);
    int same = 0;
    for (int i = 0; i < 4; i++) same += dpt_rng_u64(c) == dpt_rng_u64(d);
    ck_assert_int_eq(same, 0);
    dpt_rng_free(d);
    ck_assert_int_eq(dpt_rng_is_seeded(a), 1);
    ck_assert_ptr_nonnull(strstr(dpt_rng_privacy_note(a), "not private"));
    dpa_error err = { 0 };
    dpt_rng *s1 = NULL, *s2 = NULL;
    ck_assert_int_eq(dpt_rng_new_secure(&s1, &err), DPA_OK);
    ck_assert_int_eq(dpt_rng_new_secure(&s2, &err), DPA_OK);
    same = 0;
    for (int i = 0; i < 4; i++) same += dpt_rng_u64(s1) == dpt_rng_u64(s2);
    ck_assert_int_eq(same, 0);
    ck_assert_int_eq(dpt_rng_is_seeded(s1), 0);
    ck_assert_str_eq(dpt_rng_privacy_note(s1), "");
    dpt_rng_free(a);
    dpt_rng_free(b);
    dpt_rng_free(c);
    dpt_rng_free(s1);
    dpt_rng_free(s2);
}
END_TEST

/* ---- the noise samplers: references ------------------------------------------ */

/* g = 2^(floor(log2 s) - 20) */
static double grid(double s)
{
    return ldexp(1.0, (int)floor(log2(s)) - 20);
}

/* P(Z <= x) in long double. */
static long double cdf_ld(int law, double s, double A, long double x)
{
    switch (law) {
    case DPT_NOISE_GAUSSIAN:
        return 0.5L * erfcl(-x / ((long double)s * sqrtl(2.0L)));
    case DPT_NOISE_LAPLACE:
        return x < 0 ? 0.5L * expl(x / s) : 1.0L - 0.5L * expl(-x / s);
    default: {
        if (x <= -(long double)A) return 0.0L;
        if (x >= (long double)A) return 1.0L;
        long double ga = 0.5L * expl(-(long double)A / s);           /* G(-A) */
        long double gx = x < 0 ? 0.5L * expl(x / s) : 1.0L - 0.5L * expl(-x / s);
        return (gx - ga) / -expm1l(-(long double)A / s);
    }
    }
}

/* P(Z <= a) in MPFR at the precision of out, directly from the definitions. */
static void cdf_mpfr(mpfr_t out, int law, double s, double A, const mpfr_t a)
{
    mpfr_prec_t p = mpfr_get_prec(out);
    mpfr_t x, t;
    mpfr_inits2(p, x, t, (mpfr_ptr)0);
    mpfr_div_d(x, a, s, MPFR_RNDN);                 /* a / s */
    switch (law) {
    case DPT_NOISE_GAUSSIAN:                        /* erfc(-x / sqrt 2) / 2 */
        mpfr_sqrt_ui(t, 2, MPFR_RNDN);
        mpfr_div(t, x, t, MPFR_RNDN);
        mpfr_neg(t, t, MPFR_RNDN);
        mpfr_erfc(out, t, MPFR_RNDN);
        mpfr_div_2ui(out, out, 1, MPFR_RNDN);
        break;
    case DPT_NOISE_LAPLACE:
        if (mpfr_sgn(x) < 0) {
            mpfr_exp(out, x, MPFR_RNDN);
            mpfr_div_2ui(out, out, 1, MPFR_RNDN);
        } else {
            mpfr_neg(t, x, MPFR_RNDN);
            mpfr_exp(t, t, MPFR_RNDN);
            mpfr_div_2ui(t, t, 1, MPFR_RNDN);
            mpfr_ui_sub(out, 1, t, MPFR_RNDN);
        }
        break;
    default: {
        /* (G(x) - G(-A)) / (G(A) - G(-A)), 0 and 1 outside [-A, A] */
        mpfr_t ga, gA;
        mpfr_inits2(p, ga, gA, (mpfr_ptr)0);
        mpfr_set_d(t, A, MPFR_RNDN);
        mpfr_div_d(t, t, s, MPFR_RNDN);             /* alpha */
        mpfr_neg(ga, t, MPFR_RNDN);
        mpfr_exp(ga, ga, MPFR_RNDN);
        mpfr_div_2ui(ga, ga, 1, MPFR_RNDN);         /* G(-A) */
        mpfr_ui_sub(gA, 1, ga, MPFR_RNDN);          /* G(A) */
        if (mpfr_cmp(x, t) >= 0) {
            mpfr_set_ui(out, 1, MPFR_RNDN);
        } else if (mpfr_cmpabs(x, t) >= 0) {
            mpfr_set_zero(out, 1);
        } else {
            if (mpfr_sgn(x) < 0) {
                mpfr_exp(out, x, MPFR_RNDN);
                mpfr_div_2ui(out, out, 1, MPFR_RNDN);
            } else {
                mpfr_neg(out, x, MPFR_RNDN);
                mpfr_exp(out, out, MPFR_RNDN);
                mpfr_div_2ui(out, out, 1, MPFR_RNDN);
                mpfr_ui_sub(out, 1, out, MPFR_RNDN);
            }
            mpfr_sub(out, out, ga, MPFR_RNDN);
            mpfr_sub(gA, gA, ga, MPFR_RNDN);
            mpfr_div(out, out, gA, MPFR_RNDN);
        }
        mpfr_clears(ga, gA, (mpfr_ptr)0);
        break;
    }
    }
    mpfr_clears(x, t, (mpfr_ptr)0);
}

/* One draw checked exactly: out = k g with F((k - 1/2) g - v) <= U and
 * U + (U's interval) <= F((k + 1/2) g - v), U's interval [u, u + 2^-64n)
 * from the n words the draw used.  F at 64n + 512 bits; slack 2^-(64n + 64)
 * for its rounding (a wrong k misses by about a grid step's probability). */
static void assert_exact_draw(int law, double v, double s, double A, double out, const uint64_t *w, size_t n,
                              const char *what)
{
    double g = grid(s), kd = out / g;
    REQUIRE(isfinite(out) && kd == nearbyint(kd) && fabs(kd) < 0x1p53, "%s: %.17g is not a multiple of g = %a",
                  what, out, g);
    mpfr_prec_t p = 64 * (mpfr_prec_t)n + 512;
    mpfr_t u, uh, a, F, slack, tmp;
    mpfr_inits2(p, u, uh, a, F, slack, tmp, (mpfr_ptr)0);
    mpfr_set_zero(u, 1);
    for (size_t i = 0; i < n; i++) {
        mpfr_set_uj_2exp(tmp, w[i], -64 * (mpfr_exp_t)(i + 1), MPFR_RNDN);
        mpfr_add(u, u, tmp, MPFR_RNDN);
    }
    mpfr_set_ui_2exp(tmp, 1, -64 * (mpfr_exp_t)n, MPFR_RNDN);
    mpfr_add(uh, u, tmp, MPFR_RNDN);
    mpfr_set_ui_2exp(slack, 1, -64 * (mpfr_exp_t)n - 64, MPFR_RNDN);
    for (int side = -1; side <= 1; side += 2) {
        mpfr_set_d(a, kd, MPFR_RNDN);
        mpfr_add_d(a, a, 0.5 * side, MPFR_RNDN);
        mpfr_mul_d(a, a, g, MPFR_RNDN);
        mpfr_sub_d(a, a, v, MPFR_RNDN);             /* (k +- 1/2) g - v */
        cdf_mpfr(F, law, s, A, a);
        if (side < 0) {
            mpfr_sub(tmp, F, u, MPFR_RNDN);         /* F(a_k) - U's lower end: <= 0 */
            REQUIRE(mpfr_cmp(tmp, slack) <= 0, "%s: out %.17g (k = %.0f): F(a_k) = %.17g above U = %.17g", what,
                          out, kd, mpfr_get_d(F, MPFR_RNDN), mpfr_get_d(u, MPFR_RNDN));
        } else {
            mpfr_sub(tmp, uh, F, MPFR_RNDN);        /* U's upper end - F(a_{k+1}): <= 0 */
            REQUIRE(mpfr_cmp(tmp, slack) <= 0, "%s: out %.17g (k = %.0f): F(a_k+1) = %.17g below U = %.17g",
                          what, out, kd, mpfr_get_d(F, MPFR_RNDN), mpfr_get_d(uh, MPFR_RNDN));
        }
    }
    mpfr_clears(u, uh, a, F, slack, tmp, (mpfr_ptr)0);
}

static const char *law_name(int law)
{
    return law == DPT_NOISE_GAUSSIAN ? "gaussian" : law == DPT_NOISE_LAPLACE ? "laplace" : "truncated laplace";
}

/* n draws of a law through the public samplers (or forced through MPFR). */
static double *sample(dpt_rng *r, int law, double v, double s, double A, size_t n, int force_slow)
{
    double *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) {
        if (force_slow) {
            dpt_noise_probe pr = { .force_slow = 1 };
            x[i] = dpt_noise_probe_draw(r, law, v, s, A, &pr);
        } else if (law == DPT_NOISE_GAUSSIAN) {
            x[i] = dpt_noise_gaussian(r, v, s);
        } else if (law == DPT_NOISE_LAPLACE) {
            x[i] = dpt_noise_laplace(r, v, s);
        } else {
            x[i] = dpt_noise_truncated_laplace(r, v, s, A);
        }
    }
    return x;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The outputs are multiples k g, and their law is P(K <= k) = F((k + 1/2) g - v):
 * Kolmogorov's distance to it below the DKW bound at ALPHA; the truncated
 * law also stays in [v - A - g, v + A + g]. */
static void assert_law(const double *out, size_t n, int law, double v, double s, double A, const char *what)
{
    double g = grid(s);
    double *k = malloc(n * sizeof *k);
    for (size_t i = 0; i < n; i++) {
        k[i] = out[i] / g;
        REQUIRE(isfinite(out[i]) && k[i] == nearbyint(k[i]), "%s: %.17g is not a multiple of g = %a", what,
                      out[i], g);
        if (law == DPT_NOISE_TRUNCATED_LAPLACE)
            REQUIRE(fabsl((long double)out[i] - v) <= (long double)A + g, "%s: %.17g is more than A + g from v",
                          what, out[i]);
    }
    qsort(k, n, sizeof *k, cmp_double);
    double dist = 0.0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && k[j] == k[i]; j++) {}
        long double fk = cdf_ld(law, s, A, ((long double)k[i] + 0.5L) * g - v);      /* P(K <= k) */
        long double fk1 = cdf_ld(law, s, A, ((long double)k[i] - 0.5L) * g - v);     /* P(K < k) */
        dist = fmax(dist, fabs((double)((long double)j / n - fk)));
        dist = fmax(dist, fabs((double)((long double)i / n - fk1)));
    }
    double bound = sqrt(log(2.0 / ALPHA) / (2.0 * (double)n));
    ck_assert_msg(dist <= bound, "%s: Kolmogorov distance %.4g above %.4g (n %zu)", what, dist, bound, n);
    free(k);
}

/* ---- the noise samplers: tests ------------------------------------------------ */

static const double case_v[] = { 0.0, 0.3, 12345.678, -1e5 };      /* in units of s */
static const double case_s[] = { 1.0, 1e-7, 3e8 };

START_TEST(noise_law_matches)
{
    int law = _i / 12, vi = (_i / 3) % 4, si = _i % 3;
    double s = case_s[si], v = case_v[vi] * s, A = 2.0 * s;
    size_t n = 100000;
    dpt_rng *r = seeded(100 + (uint64_t)_i);
    double *out = sample(r, law, v, s, A, n, 0);
    char what[128];
    snprintf(what, sizeof what, "%s, v = %g s, s = %g", law_name(law), case_v[vi], s);
    assert_law(out, n, law, v, s, A, what);
    free(out);
    dpt_rng_free(r);
}
END_TEST

/* The truncated Laplace with A far below, near and above b. */
START_TEST(truncated_laplace_bounds)
{
    const double As[] = { 1e-3, 0.5, 30.0 };
    for (int c = 0; c < 3; c++) {
        double s = 1.0, v = 0.3, A = As[c];
        dpt_rng *r = seeded(150 + (uint64_t)c);
        double *out = sample(r, DPT_NOISE_TRUNCATED_LAPLACE, v, s, A, 100000, 0);
        char what[64];
        snprintf(what, sizeof what, "truncated laplace, A = %g b", A);
        assert_law(out, 100000, DPT_NOISE_TRUNCATED_LAPLACE, v, s, A, what);
        free(out);
        dpt_rng_free(r);
    }
}
END_TEST

/* The MPFR path alone gives the same law. */
START_TEST(slow_path_law_matches)
{
    int law = _i;
    double s = 1.0, v = 0.3, A = 2.0;
    size_t n = test_quick() ? 3000 : 15000;
    dpt_rng *r = seeded(200 + (uint64_t)_i);
    double *out = sample(r, law, v, s, A, n, 1);
    char what[64];
    snprintf(what, sizeof what, "%s, MPFR path only", law_name(law));
    assert_law(out, n, law, v, s, A, what);
    free(out);
    dpt_rng_free(r);
}
END_TEST

/* Both paths decide the same k from the same U: the first draw of a fresh
 * generator, once through the double path (where it decides) and once
 * through MPFR only. */
START_TEST(paths_agree)
{
    const double vs[] = { 0.3, 0.5 * 0x1p-20 + 3 * 0x1p-20, -1e5 };     /* the second: v a half grid step */
    int trials = test_quick() ? 40 : 200;
    for (int law = 0; law < 3; law++)
        for (int c = 0; c < 3; c++)
            for (int i = 0; i < trials; i++) {
                dpt_rng *a = seeded(1000 + (uint64_t)i), *b = seeded(1000 + (uint64_t)i);
                dpt_noise_probe pa = { 0 }, pb = { .force_slow = 1 };
                double x = dpt_noise_probe_draw(a, law, vs[c], 1.0, 1.5, &pa);
                double y = dpt_noise_probe_draw(b, law, vs[c], 1.0, 1.5, &pb);
                REQUIRE(x == y, "%s, v = %g, seed %d: double path %.17g, MPFR %.17g", law_name(law), vs[c], 1000 + i,
                              x, y);
                REQUIRE(pb.slow == 1, "a forced draw did not take the MPFR path");
                dpt_rng_free(a);
                dpt_rng_free(b);
            }
}
END_TEST

/* Draws checked one by one against the exact inversion (see
 * assert_exact_draw): the words of U replayed by a twin generator. */
struct exact_case { int law; double v, s, A; int force_slow; };
static const struct exact_case exact_cases[] = {
    { DPT_NOISE_GAUSSIAN, 0.3, 1.0, 0, 0 },
    { DPT_NOISE_GAUSSIAN, 0.3, 1.0, 0, 1 },
    { DPT_NOISE_GAUSSIAN, 3.5 * 0x1p-20, 1.0, 0, 1 },               /* a boundary at Z = 0 */
    { DPT_NOISE_LAPLACE, 12345.678e-7, 1e-7, 0, 0 },
    { DPT_NOISE_LAPLACE, 12345.678e-7, 1e-7, 0, 1 },
    { DPT_NOISE_TRUNCATED_LAPLACE, -1e5 * 3e8, 3e8, 6e8, 0 },
    { DPT_NOISE_TRUNCATED_LAPLACE, -1e5 * 3e8, 3e8, 6e8, 1 },
    { DPT_NOISE_TRUNCATED_LAPLACE, 0.3, 1.0, 0.5, 1 },
    { DPT_NOISE_TRUNCATED_LAPLACE, 0.3, 1.0, 30.0, 1 },
};

static void check_exact_draws(const struct exact_case *c, const uint64_t *prefix, size_t nprefix, int draws,
                              uint64_t seed, const char *what)
{
    dpt_rng *a = seeded(seed), *b = seeded(seed);
    uint64_t w[1100];
    for (int i = 0; i < draws; i++) {
        dpt_noise_probe pr = { .force_slow = c->force_slow, .prefix = prefix, .nprefix = nprefix };
        double out = dpt_noise_probe_draw(a, c->law, c->v, c->s, c->A, &pr);
        REQUIRE(pr.words >= 1 && pr.words <= 1100, "%s: %zu words", what, pr.words);
        for (size_t k = 0; k < pr.words; k++) w[k] = k < nprefix ? prefix[k] : dpt_rng_u64(b);
        REQUIRE(pr.slow || !c->force_slow, "%s: a forced draw did not take the MPFR path", what);
        assert_exact_draw(c->law, c->v, c->s, c->A, out, w, pr.words, what);
    }
    ck_assert_msg(dpt_rng_u64(a) == dpt_rng_u64(b), "%s: the twin streams drifted", what);
    dpt_rng_free(a);
    dpt_rng_free(b);
}

START_TEST(draws_are_exact)
{
    const struct exact_case *c = &exact_cases[_i];
    char what[128];
    snprintf(what, sizeof what, "%s, v = %g, s = %g, A = %g, %s", law_name(c->law), c->v, c->s, c->A,
             c->force_slow ? "MPFR path" : "either path");
    check_exact_draws(c, NULL, 0, c->force_slow ? (test_quick() ? 60 : 300) : (test_quick() ? 300 : 2000),
                      300 + (uint64_t)_i, what);
}
END_TEST

/* U's first words chosen: the far tails (U below 2^-256 or 2^-1280, above
 * 1 - 2^-256), either side of 1/2 with the grid's boundary at Z = 0, and
 * the truncated Laplace's ends; each draw checked exactly. */
START_TEST(tails_are_exact)
{
    static uint64_t zeros[20], ones[4], half_above[3], half_below[3];
    for (int i = 0; i < 4; i++) ones[i] = UINT64_MAX;
    half_above[0] = UINT64_C(1) << 63;
    half_below[0] = (UINT64_C(1) << 63) - 1;
    half_below[1] = half_below[2] = UINT64_MAX;
    struct { const uint64_t *prefix; size_t n; } pre[] = {
        { zeros, 4 }, { zeros, 20 }, { ones, 4 }, { half_above, 3 }, { half_below, 3 },
    };
    const struct exact_case cases[] = {
        { DPT_NOISE_GAUSSIAN, 3.5 * 0x1p-20, 1.0, 0, 0 },
        { DPT_NOISE_LAPLACE, 3.5 * 0x1p-20, 1.0, 0, 0 },
        { DPT_NOISE_TRUNCATED_LAPLACE, 3.5 * 0x1p-20, 1.0, 30.0, 0 },
        { DPT_NOISE_TRUNCATED_LAPLACE, 0.3, 1.0, 0.5, 0 },
        { DPT_NOISE_GAUSSIAN, -1e5 * 3e8, 3e8, 0, 0 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t p = 0; p < sizeof pre / sizeof pre[0]; p++) {
            char what[128];
            snprintf(what, sizeof what, "%s, v = %g, A = %g, prefix %zu", law_name(cases[c].law), cases[c].v, cases[c].A,
                     p);
            check_exact_draws(&cases[c], pre[p].prefix, pre[p].n, 3, 400 + c * 10 + p, what);
        }
    /* the draws land where the inversion says: U < 2^-256 puts Z below
     * -18.6 sigma (and U >= 2^-400, as the fifth word is not 0, above -28) */
    dpt_rng *r = seeded(450);
    dpt_noise_probe pr = { .prefix = zeros, .nprefix = 4 };
    double z = dpt_noise_probe_draw(r, DPT_NOISE_GAUSSIAN, 0.0, 1.0, 0, &pr);
    ck_assert_msg(z < -18.6 && z > -28.0 && pr.slow, "U < 2^-256: z = %g", z);
    pr = (dpt_noise_probe){ .prefix = ones, .nprefix = 4 };
    z = dpt_noise_probe_draw(r, DPT_NOISE_LAPLACE, 0.0, 1.0, 0, &pr);
    ck_assert_msg(z > 176.0 && pr.slow, "U > 1 - 2^-256: laplace z = %g", z);
    pr = (dpt_noise_probe){ .prefix = zeros, .nprefix = 20 };
    z = dpt_noise_probe_draw(r, DPT_NOISE_TRUNCATED_LAPLACE, 0.0, 1.0, 30.0, &pr);
    ck_assert_msg(z >= -30.0 - 0x1p-20 && z < -29.99, "U < 2^-1280: truncated z = %.17g", z);
    dpt_rng_free(r);
}
END_TEST

/* How often the MPFR path decides: about 1e-7 of the draws (the margin's
 * share of a grid step, and the far tails), whatever v. */
START_TEST(slow_path_is_rare)
{
    const double vs[] = { 0.3, 0x1p20 + 0.37, 1e12 };
    unsigned long draws = test_quick() ? 200000 : 2000000;
    for (int law = 0; law < 3; law++)
        for (int c = 0; c < 3; c++) {
            dpt_rng *r = seeded(500 + (uint64_t)(law * 3 + c));
            unsigned long slow = 0;
            for (unsigned long i = 0; i < draws; i++) {
                dpt_noise_probe pr = { 0 };
                double x = dpt_noise_probe_draw(r, law, vs[c], 1.0, 2.0, &pr);
                REQUIRE(isfinite(x), "%s: %g", law_name(law), x);
                slow += (unsigned long)pr.slow;
            }
            printf("slow path: %s, v = %g s: %lu of %lu draws (%.2g)\n", law_name(law), vs[c], slow, draws,
                   (double)slow / (double)draws);
            ck_assert_msg((double)slow <= 1e-5 * (double)draws, "%s, v = %g: %lu slow draws of %lu", law_name(law),
                          vs[c], slow, draws);
            dpt_rng_free(r);
        }
}
END_TEST

START_TEST(bad_arguments)
{
    dpt_rng *r = seeded(600);
    const double bad_s[] = { 0.0, -1.0, NAN, INFINITY, 1e-300, 1e300, DPT_NOISE_MIN_SCALE / 2, DPT_NOISE_MAX_SCALE * 2 };
    for (size_t i = 0; i < sizeof bad_s / sizeof bad_s[0]; i++) {
        ck_assert(isnan(dpt_noise_gaussian(r, 0.0, bad_s[i])));
        ck_assert(isnan(dpt_noise_laplace(r, 0.0, bad_s[i])));
        ck_assert(isnan(dpt_noise_truncated_laplace(r, 0.0, bad_s[i], 1.0)));
        ck_assert(isnan(dpt_noise_truncated_laplace(r, 0.0, 1.0, bad_s[i])));
    }
    const double bad_v[] = { NAN, INFINITY, -INFINITY };
    for (size_t i = 0; i < 3; i++) {
        ck_assert(isnan(dpt_noise_gaussian(r, bad_v[i], 1.0)));
        ck_assert(isnan(dpt_noise_laplace(r, bad_v[i], 1.0)));
        ck_assert(isnan(dpt_noise_truncated_laplace(r, bad_v[i], 1.0, 1.0)));
    }
    ck_assert(isnan(dpt_noise_gaussian(NULL, 0.0, 1.0)));
    dpt_noise_probe pr = { 0 };
    ck_assert(isnan(dpt_noise_probe_draw(r, 7, 0.0, 1.0, 1.0, &pr)));
    ck_assert(isfinite(dpt_noise_gaussian(r, 0.0, DPT_NOISE_MIN_SCALE)));
    ck_assert(isfinite(dpt_noise_gaussian(r, 0.0, DPT_NOISE_MAX_SCALE)));
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_noise_check_scale(1.0, "sigma", &err), DPA_OK);
    ck_assert_int_eq(dpt_noise_check_scale(DPT_NOISE_MIN_SCALE, "sigma", &err), DPA_OK);
    ck_assert_int_eq(dpt_noise_check_scale(0.0, "--noise-scale", &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "--noise-scale"));
    ck_assert_int_eq(dpt_noise_check_scale(NAN, "b", &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "b: "));
    ck_assert_int_eq(dpt_noise_check_scale(1e300, "A", NULL), DPA_EINVAL);
    dpt_rng_free(r);
}
END_TEST

/* The extremes of the valid arguments: finite outputs on the grid. */
START_TEST(extreme_arguments)
{
    dpt_rng *r = seeded(700);
    for (int i = 0; i < 200; i++) {
        /* v far above s: the grid step is far below v's ulp, out = v */
        ck_assert(dpt_noise_gaussian(r, 1e300, DPT_NOISE_MIN_SCALE) == 1e300);
        ck_assert(dpt_noise_laplace(r, -DBL_MAX, 1.0) == -DBL_MAX);
        double x = dpt_noise_gaussian(r, DBL_MAX, DPT_NOISE_MAX_SCALE);
        ck_assert(isfinite(x));
        /* v far below s */
        double g = grid(DPT_NOISE_MAX_SCALE);
        x = dpt_noise_laplace(r, 1e-300, DPT_NOISE_MAX_SCALE);
        ck_assert(x / g == nearbyint(x / g) && fabs(x) < 1e4 * DPT_NOISE_MAX_SCALE);
        /* A / b above the double range (a Laplace) and below it (only v's rounding) */
        g = grid(DPT_NOISE_MIN_SCALE);
        x = dpt_noise_truncated_laplace(r, 0.0, DPT_NOISE_MIN_SCALE, DPT_NOISE_MAX_SCALE);
        ck_assert(x / g == nearbyint(x / g) && fabs(x) < 1e3 * DPT_NOISE_MIN_SCALE);
        g = grid(DPT_NOISE_MAX_SCALE);
        double v = 0.3 * DPT_NOISE_MAX_SCALE;
        x = dpt_noise_truncated_laplace(r, v, DPT_NOISE_MAX_SCALE, DPT_NOISE_MIN_SCALE);
        ck_assert(x == nearbyint(v / g) * g);
    }
    /* the first: a Laplace law */
    size_t n = 20000;
    double *out = malloc(n * sizeof *out);
    for (size_t i = 0; i < n; i++) out[i] = dpt_noise_truncated_laplace(r, 0.0, 1e-200, 1e200);
    assert_law(out, n, DPT_NOISE_LAPLACE, 0.0, 1e-200, 0, "truncated laplace, A / b = 1e400");
    free(out);
    dpt_rng_free(r);
}
END_TEST

/* The margin at work: U placed where the double quantile errs to the
 * other side of a cell boundary.  For U in [u, u + 2^-128) (u = m 2^-53,
 * U's first words m 2^11 and 0) the true T = f + Z/g and the double path's
 * f + z/g, z = sigma Pinv(u) as noise.c computes it, differ by GSL's
 * rounding error (up to a few ulps); v = f g is chosen so that a boundary
 * j + 1/2 lies between the two (2^-40 grid steps above the truth).  Without
 * its margin the double path would return the wrong cell; with it the draw
 * goes to MPFR, and is checked exactly.  (The search for such u mirrors
 * noise.c's double formula only to aim; the check is the inversion.  The
 * Laplace's log is correctly rounded in glibc, within half an ulp: too
 * close to place a boundary whose sum with f still rounds across.) */
START_TEST(margin_covers_quantile_error)
{
    double s = 1.0, g = grid(s), sg = s / g;
    mpfr_t t, z, b, c, d;
    mpfr_inits2(256, t, z, b, c, d, (mpfr_ptr)0);
    mpfr_const_pi(c, MPFR_RNDN);
    mpfr_mul_2ui(c, c, 1, MPFR_RNDN);
    mpfr_sqrt(c, c, MPFR_RNDN);                     /* sqrt(2 pi) */
    dpt_rng *r = seeded(850);
    for (int law = DPT_NOISE_GAUSSIAN; law <= DPT_NOISE_GAUSSIAN; law++) {
        int found = 0;
        for (int tries = 0; tries < 20000 && found < 20; tries++) {
            uint64_t m = 1 + dpt_rng_below(r, (UINT64_C(1) << 52) - 1);
            double u = (double)m * 0x1p-53;
            double zc = sg * gsl_cdf_ugaussian_Pinv(u);
            /* the true Z(u) / g at 256 bits: Newton from GSL's value */
            mpfr_set_d(z, gsl_cdf_ugaussian_Pinv(u), MPFR_RNDN);
            for (int it = 0; it < 3; it++) {
                mpfr_sqrt_ui(t, 2, MPFR_RNDN);
                mpfr_div(t, z, t, MPFR_RNDN);
                mpfr_neg(t, t, MPFR_RNDN);
                mpfr_erfc(b, t, MPFR_RNDN);
                mpfr_div_2ui(b, b, 1, MPFR_RNDN);
                mpfr_sub_d(b, b, u, MPFR_RNDN);
                mpfr_sqr(d, z, MPFR_RNDN);
                mpfr_div_2ui(d, d, 1, MPFR_RNDN);
                mpfr_neg(d, d, MPFR_RNDN);
                mpfr_exp(d, d, MPFR_RNDN);
                mpfr_div(d, d, c, MPFR_RNDN);
                mpfr_div(b, b, d, MPFR_RNDN);
                mpfr_sub(z, z, b, MPFR_RNDN);
            }
            mpfr_mul_d(z, z, sg, MPFR_RNDN);
            if (mpfr_cmp_d(z, zc) >= 0) continue;   /* the double errs upwards here only */
            /* b = the half-integer nearest to Z/g + 2^-40; f = b - Z/g - 2^-40, rounded down */
            mpfr_set_ui_2exp(t, 1, -40, MPFR_RNDN);
            mpfr_add(t, t, z, MPFR_RNDN);
            mpfr_sub_d(b, t, 0.5, MPFR_RNDN);
            mpfr_rint(b, b, MPFR_RNDN);
            mpfr_add_d(b, b, 0.5, MPFR_RNDN);
            mpfr_sub(d, b, t, MPFR_RNDN);
            double f = mpfr_get_d(d, MPFR_RNDD), bd = mpfr_get_d(b, MPFR_RNDN);
            if (!(fabs(f) <= 0.5) || !(f + zc > bd)) continue;     /* the double path's f + z, unwidened */
            found++;
            uint64_t prefix[2] = { m << 11, 0 };
            struct exact_case ec = { law, f * g, s, 0, 0 };
            dpt_noise_probe pr = { .prefix = prefix, .nprefix = 2 };
            dpt_rng *a = seeded(860 + (uint64_t)tries), *tw = seeded(860 + (uint64_t)tries);
            double out = dpt_noise_probe_draw(a, law, ec.v, s, 0, &pr);
            uint64_t w[64];
            REQUIRE(pr.words <= 64, "%zu words", pr.words);
            for (size_t k = 0; k < pr.words; k++) w[k] = k < 2 ? prefix[k] : dpt_rng_u64(tw);
            char what[96];
            snprintf(what, sizeof what, "%s, u = %a, v = %a: the double quantile errs across j + 1/2", law_name(law),
                     u, ec.v);
            assert_exact_draw(law, ec.v, s, 0, out, w, pr.words, what);
            REQUIRE(pr.slow, "%s: decided without MPFR", what);
            dpt_rng_free(a);
            dpt_rng_free(tw);
        }
        ck_assert_msg(found >= 10, "%s: only %d quantiles found that err upwards", law_name(law), found);
    }
    dpt_rng_free(r);
    mpfr_clears(t, z, b, c, d, (mpfr_ptr)0);
}
END_TEST

/* The premise of the double path's margin (2^-44 relative on the quantile):
 * GSL's normal quantile is within 2^-47 of the truth on [2^-53, 1/2],
 * measured at dyadic points (the double path evaluates it at multiples of
 * 2^-53) against Newton's method on MPFR's erfc at 256 bits. */
START_TEST(gsl_quantile_accuracy)
{
    dpt_rng *r = seeded(800);
    mpfr_t x, f, d, t, c;
    mpfr_inits2(256, x, f, d, t, c, (mpfr_ptr)0);
    mpfr_const_pi(c, MPFR_RNDN);
    mpfr_mul_2ui(c, c, 1, MPFR_RNDN);
    mpfr_sqrt(c, c, MPFR_RNDN);                     /* sqrt(2 pi) */
    double worst = 0.0, worst_t = 0.0;
    int points = test_quick() ? 2000 : 20000;
    for (int i = 0; i < points; i++) {
        /* half of them log-uniform over [2^-53, 1/2], half uniform */
        double tt = i % 2 ? ldexp(1.0 + dpt_rng_uniform(r), -1 - (int)dpt_rng_below(r, 52))
                          : 0.5 * dpt_rng_uniform(r);
        tt = ldexp(nearbyint(ldexp(tt, 53)), -53);
        if (tt <= 0.0 || tt >= 0.5) continue;
        double q = gsl_cdf_ugaussian_Pinv(tt);
        mpfr_set_d(x, q, MPFR_RNDN);
        for (int it = 0; it < 3; it++) {            /* x -= (Phi(x) - t) / phi(x): 1e-16, 1e-32, ... */
            mpfr_sqrt_ui(t, 2, MPFR_RNDN);
            mpfr_div(t, x, t, MPFR_RNDN);
            mpfr_neg(t, t, MPFR_RNDN);
            mpfr_erfc(f, t, MPFR_RNDN);
            mpfr_div_2ui(f, f, 1, MPFR_RNDN);
            mpfr_sub_d(f, f, tt, MPFR_RNDN);
            mpfr_sqr(d, x, MPFR_RNDN);
            mpfr_div_2ui(d, d, 1, MPFR_RNDN);
            mpfr_neg(d, d, MPFR_RNDN);
            mpfr_exp(d, d, MPFR_RNDN);
            mpfr_div(d, d, c, MPFR_RNDN);
            mpfr_div(f, f, d, MPFR_RNDN);
            mpfr_sub(x, x, f, MPFR_RNDN);
        }
        double truth = mpfr_get_d(x, MPFR_RNDN), err = fabs(q - truth) / fabs(truth);
        if (err > worst) {
            worst = err;
            worst_t = tt;
        }
    }
    printf("gsl_cdf_ugaussian_Pinv on [2^-53, 1/2]: largest relative error %.3g (2^%.1f) at %a\n", worst,
           log2(worst), worst_t);
    ck_assert_msg(worst < 0x1p-47, "relative error %.3g at %a: the double path's margin assumes < 2^-47", worst,
                  worst_t);
    mpfr_clears(x, f, d, t, c, (mpfr_ptr)0);
    dpt_rng_free(r);
}
END_TEST

int main(void)
{
    gsl_set_error_handler_off();
    Suite *s = suite_create("noise");
    TCase *rng = tcase_create("rng");
    tcase_set_timeout(rng, 300);
    tcase_add_test(rng, below_is_uniform);
    tcase_add_test(rng, below_edges);
    tcase_add_test(rng, bernoulli_rates);
    tcase_add_test(rng, bernoulli_exact);
    tcase_add_test(rng, shuffle_is_uniform);
    tcase_add_test(rng, truncated_geometric_law);
    tcase_add_test(rng, seeds_and_keys);
    suite_add_tcase(s, rng);
    TCase *noise = tcase_create("noise");
    tcase_set_timeout(noise, 600);
    tcase_add_loop_test(noise, noise_law_matches, 0, 36);
    tcase_add_test(noise, truncated_laplace_bounds);
    tcase_add_loop_test(noise, slow_path_law_matches, 0, 3);
    tcase_add_test(noise, paths_agree);
    tcase_add_loop_test(noise, draws_are_exact, 0, (int)(sizeof exact_cases / sizeof exact_cases[0]));
    tcase_add_test(noise, tails_are_exact);
    tcase_add_test(noise, margin_covers_quantile_error);
    tcase_add_test(noise, slow_path_is_rare);
    tcase_add_test(noise, bad_arguments);
    tcase_add_test(noise, extreme_arguments);
    tcase_add_test(noise, gsl_quantile_accuracy);
    suite_add_tcase(s, noise);
    return run_suite(s);
}
