/*
 * test_allocation.c - random allocation (Feldman & Shenfeld 2025,
 * arXiv:2502.08202): the event's checks, the rdp accountant's bound
 * against an MPFR enumeration of the multinomial sum written here, against
 * mpmath values of tests/ref/allocation_rdp.py, and against closed forms
 * (the Gaussian, its composition, the add direction's bound); K of T
 * steps (1 < K < T) against an MPFR enumeration of every tuple of K-subsets
 * (remove direction) and Gauss-Hermite values of
 * tests/ref/allocation_subsets.py (add direction); every other accountant
 * refuses the event.
 */
#include "mpfr_ref.h"
#include "dpacct.h"
#include "rdp/rdp_allocation.h"
#include "testutil.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREC 256

/* ---- the MPFR reference: every composition of alpha into T parts ---------- */

/* acc += prod_i e^{a_i(a_i-1)/(2 s^2)} / a_i! over the compositions
 * (a_1..a_T) of `left` into `parts` parts, times `w` (the product so far). */
static void sum_compositions(unsigned left, unsigned parts, const mpfr_t w, const mpfr_t inv2s2, mpfr_t acc)
{
    mpfr_t x, f;
    mpfr_inits2(PREC, x, f, (mpfr_ptr)0);
    for (unsigned a = parts == 1 ? left : 0; a <= left; a++) {
        mpfr_mul_ui(x, inv2s2, (unsigned long)a * (a - (a > 0)), MPFR_RNDN);   /* a(a-1)/(2 s^2) */
        mpfr_exp(x, x, MPFR_RNDN);
        mpfr_fac_ui(f, a, MPFR_RNDN);
        mpfr_div(x, x, f, MPFR_RNDN);
        mpfr_mul(x, x, w, MPFR_RNDN);
        if (parts == 1) mpfr_add(acc, acc, x, MPFR_RNDN);
        else sum_compositions(left - a, parts - 1, x, inv2s2, acc);
    }
    mpfr_clears(x, f, (mpfr_ptr)0);
}

/* log(sum / denominator)/(alpha - 1), the Renyi divergence of a moment
 * given as a quotient, rounded up to a double (above the truth); sum is
 * overwritten. */
static double rdp_of_moment(mpfr_t sum, const mpfr_t denominator, unsigned alpha)
{
    mpfr_div(sum, sum, denominator, MPFR_RNDN);
    mpfr_log(sum, sum, MPFR_RNDN);
    mpfr_div_ui(sum, sum, alpha - 1, MPFR_RNDN);
    return mpfr_get_d(sum, MPFR_RNDU);
}

/* D_alpha(P || Q) = log(alpha! T^-alpha sum ...)/(alpha - 1) at 256 bits,
 * rounded up to a double (above the truth). */
static double mpfr_remove_rdp(unsigned T, double sigma, unsigned alpha)
{
    mpfr_t acc, one, inv2s2, t;
    mpfr_inits2(PREC, acc, one, inv2s2, t, (mpfr_ptr)0);
    mpfr_set_ui(acc, 0, MPFR_RNDN);
    mpfr_set_ui(one, 1, MPFR_RNDN);
    mpfr_set_d(inv2s2, sigma, MPFR_RNDN);
    mpfr_sqr(inv2s2, inv2s2, MPFR_RNDN);
    mpfr_mul_ui(inv2s2, inv2s2, 2, MPFR_RNDN);
    mpfr_ui_div(inv2s2, 1, inv2s2, MPFR_RNDN);
    sum_compositions(alpha, T, one, inv2s2, acc);
    mpfr_fac_ui(t, alpha, MPFR_RNDN);
    mpfr_mul(acc, acc, t, MPFR_RNDN);
    mpfr_ui_pow_ui(t, T, alpha, MPFR_RNDN);
    double v = rdp_of_moment(acc, t, alpha);
    mpfr_clears(acc, one, inv2s2, t, (mpfr_ptr)0);
    return v;
}

/* The library's remove direction at alpha, its moments computed up to N. */
static double library_remove(double T, double sigma, size_t N, double alpha)
{
    double *m = malloc((N + 1) * sizeof *m);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(rdp_allocation_log_moments(T, sigma, N, m), 0);
    double v = rdp_allocation_remove(m, N, alpha);
    free(m);
    return v;
}

/* The remove direction against the enumeration, for both of the library's
 * routes: moments up to alpha alone (Miller's recurrence while alpha <=
 * T + 1) and up to 8 (binary powering when T + 1 < 8).  Never below it,
 * and within 1e-11 relative (the pads of rdp_allocation.c, some 1e-13, and
 * the chord's 8 eps). */
START_TEST(remove_direction_matches_mpfr_enumeration)
{
    const unsigned steps[] = { 2, 3, 5 };
    const double sigmas[] = { 0.7, 2.0 };
    double worst = 0.0;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 2; j++)
            for (unsigned alpha = 2; alpha <= 8; alpha++) {
                const double ref = mpfr_remove_rdp(steps[i], sigmas[j], alpha);
                for (size_t N = alpha; N <= 8; N += 8 - alpha + (alpha == 8)) {
                    const double lib = library_remove(steps[i], sigmas[j], N, alpha);
                    ck_assert_msg(lib >= ref, "T=%u sigma=%g alpha=%u N=%zu: %.17g below the exact %.17g", steps[i],
                                  sigmas[j], alpha, N, lib, ref);
                    ck_assert_msg(lib <= ref * (1.0 + 1e-11), "T=%u sigma=%g alpha=%u N=%zu: %.17g, exact %.17g",
                                  steps[i], sigmas[j], alpha, N, lib, ref);
                    worst = fmax(worst, lib / ref - 1.0);
                }
            }
    printf("allocation: remove direction vs MPFR enumeration: largest excess %.2e relative\n", worst);
}
END_TEST

/* The library's remove direction at large T (Miller's recurrence with
 * moments up to alpha; binary powering for T = 1000 with moments up to
 * 2048) against tests/ref/allocation_rdp.py, which sums over the
 * partitions of alpha at 50 digits (values to 20).  Never below (the next
 * double up from the reference is above the truth), within 1e-9 relative:
 * for tiny log M the pads, a few ulps of terms of magnitude log T, weigh
 * some 3e-10 of it. */
static const struct { double T, sigma, alpha, rdp; } partition_refs[] = {
    { 10000, 1.0, 2, 0.00017181342207454793099 },
    { 10000, 1.0, 3, 0.00025774548357511306252 },
    { 10000, 1.0, 8, 0.00068766072065417458041 },
    { 10000, 1.0, 16, 0.0013764186286564364611 },
    { 10000, 1.0, 32, 6.7896596283791342076 },
    { 10000, 0.5, 2, 0.005345502314345255287 },
    { 10000, 0.5, 3, 0.0087752303494674105284 },
    { 10000, 0.5, 8, 6.7896596359252088745 },
    { 10000, 0.5, 16, 22.789659628023817264 },
    { 10000, 0.5, 32, 54.789659628023817264 },
    { 1000, 2.0, 2, 0.00028398508910493745971 },
    { 1000, 2.0, 3, 0.00042598906868205519828 },
    { 1000, 2.0, 8, 0.0011361236278243622915 },
    { 1000, 2.0, 16, 0.0022727383164038937893 },
    { 1000, 2.0, 32, 0.0045474571397390330655 },
    { 10, 0.5, 12, 21.697414907005954317 },
    { 10, 0.5, 16, 29.697414907005954316 },
    { 10, 0.5, 24, 45.697414907005954316 },
    { 10, 2.0, 12, 0.17337206672573856251 },
    { 10, 2.0, 16, 0.23741214342240162918 },
    { 10, 2.0, 24, 0.73089329061558397951 },
};

START_TEST(large_steps_match_mpmath_partitions)
{
    double worst = 0.0;
    for (size_t i = 0; i < sizeof partition_refs / sizeof partition_refs[0]; i++) {
        const double T = partition_refs[i].T, s = partition_refs[i].sigma, a = partition_refs[i].alpha;
        const double ref = partition_refs[i].rdp;
        const size_t Ns[] = { (size_t)a, T < 2047 ? 2048 : 1024 };
        for (size_t j = 0; j < 2; j++) {
            const double lib = library_remove(T, s, Ns[j], a);
            ck_assert_msg(lib >= nextafter(ref, INFINITY), "T=%g sigma=%g alpha=%g N=%zu: %.17g below %.17g", T, s, a,
                          Ns[j], lib, ref);
            ck_assert_msg(lib <= ref * (1.0 + 1e-9), "T=%g sigma=%g alpha=%g N=%zu: %.17g, reference %.17g", T, s, a,
                          Ns[j], lib, ref);
            worst = fmax(worst, lib / ref - 1.0);
        }
    }
    printf("allocation: remove direction vs mpmath partitions: largest excess %.2e relative\n", worst);
}
END_TEST

/* Fractional orders: the chord of (alpha - 1) D_alpha between the integer
 * orders (convexity).  It must lie above D_alpha itself, here from a 2-d
 * quadrature in mpmath (T = 2, tests/ref/allocation_rdp.py; at alpha = 3
 * it reproduces the enumeration to 20 digits), and be the chord of the
 * MPFR values at the neighbouring integers (D_2 itself below 2). */
static const struct { double sigma, alpha, rdp; } quadrature_refs[] = {
    { 0.7, 1.5, 1.0575631439525143111 },
    { 0.7, 2.5, 1.9168206379525178143 },
    { 0.7, 5.5, 4.9192250725810268061 },
    { 2.0, 1.5, 0.099380711663165120432 },
};

START_TEST(fractional_orders_are_chords_above_the_divergence)
{
    for (size_t i = 0; i < sizeof quadrature_refs / sizeof quadrature_refs[0]; i++) {
        const double s = quadrature_refs[i].sigma, a = quadrature_refs[i].alpha, lo = floor(a), t = a - lo;
        const double f_lo = lo < 2.0 ? 0.0 : (lo - 1.0) * mpfr_remove_rdp(2, s, (unsigned)lo);
        const double chord = ((1.0 - t) * f_lo + t * lo * mpfr_remove_rdp(2, s, (unsigned)lo + 1)) / (a - 1.0);
        const double lib = library_remove(2.0, s, 8, a);
        ck_assert_msg(lib >= quadrature_refs[i].rdp, "sigma=%g alpha=%g: %.17g below D_alpha = %.17g", s, a, lib,
                      quadrature_refs[i].rdp);
        ck_assert_msg(lib >= chord * (1.0 - 1e-15) && lib <= chord * (1.0 + 1e-11),
                      "sigma=%g alpha=%g: %.17g, the chord of the exact values %.17g", s, a, lib, chord);
    }
}
END_TEST

/* ---- through the rdp accountant ------------------------------------------- */

/* rdp's curve of `e` (freed) on the given orders, under `relation`. */
static void curve_of(dpa_event *e, dpa_relation relation, const double *orders, size_t n, double *out)
{
    dpa_options opt;
    dpa_options_init(&opt);
    opt.orders = orders;
    opt.num_orders = n;
    opt.relation = relation;
    dpa_accountant *a = accountant_with_options("rdp", &opt, e);
    double o[64];
    size_t got;
    ck_assert_uint_le(n, 64);
    ck_assert_int_eq(dpa_accountant_rdp_curve(a, o, out, n, &got, NULL), DPA_OK);
    ck_assert_uint_eq(got, n);
    dpa_accountant_free(a);
}

static dpa_event *allocation(uint64_t steps, uint64_t selected, double sigma)
{
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_random_allocation(steps, selected, dpa_event_gaussian(sigma, &err), &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    return e;
}

static const double some_orders[] = { 1.5, 2.0, 3.25, 8.0, 64.0, 1024.0, 2047.5, 4000.0 };
#define N_SOME (sizeof some_orders / sizeof some_orders[0])

/* One step per epoch: the record is in it; the Gaussian's alpha/(2 s^2),
 * the curve of self_composed(count=1, gaussian(sigma)) bit for bit. */
START_TEST(one_step_is_the_gaussian)
{
    dpa_error err = { 0 };
    const double sigmas[] = { 0.5, 1.0, 3.0 };
    for (size_t j = 0; j < 3; j++) {
        double v[N_SOME], g[N_SOME];
        curve_of(allocation(1, 1, sigmas[j]), DPA_ADD_REMOVE, some_orders, N_SOME, v);
        curve_of(dpa_event_self_composed(dpa_event_gaussian(sigmas[j], &err), 1, &err), DPA_ADD_REMOVE, some_orders,
                 N_SOME, g);
        for (size_t i = 0; i < N_SOME; i++) {
            const double a = some_orders[i], exact = a / (2.0 * sigmas[j] * sigmas[j]);
            ck_assert_msg(v[i] == g[i], "sigma=%g alpha=%g: %.17g, the Gaussian's curve %.17g", sigmas[j], a, v[i],
                          g[i]);
            ck_assert_msg(v[i] >= exact && v[i] <= exact * (1.0 + 1e-10), "sigma=%g alpha=%g: %.17g, exact %.17g",
                          sigmas[j], a, v[i], exact);
        }
    }
}
END_TEST

/* selected = steps: every step holds the record, the steps-fold
 * composition T alpha/(2 s^2), under either relation; and of any inner
 * event (Laplace: T times Mironov's Prop. 6, here the library's own
 * laplace curve composed). */
START_TEST(every_step_is_the_composition)
{
    dpa_error err = { 0 };
    const dpa_relation relations[] = { DPA_ADD_REMOVE, DPA_REPLACE_ONE };
    for (size_t r = 0; r < 2; r++) {
        double v[N_SOME];
        curve_of(allocation(50, 50, 2.0), relations[r], some_orders, N_SOME, v);
        for (size_t i = 0; i < N_SOME; i++) {
            const double exact = 50.0 * some_orders[i] / 8.0;
            ck_assert_msg(v[i] >= exact && v[i] <= exact * (1.0 + 1e-10), "relation %d alpha=%g: %.17g, exact %.17g",
                          (int)relations[r], some_orders[i], v[i], exact);
        }
    }
    double lap[N_SOME], comp[N_SOME];
    curve_of(dpa_event_random_allocation(7, 7, dpa_event_laplace(2.0, &err), &err), DPA_ADD_REMOVE, some_orders,
             N_SOME, lap);
    curve_of(dpa_event_self_composed(dpa_event_laplace(2.0, &err), 7, &err), DPA_ADD_REMOVE, some_orders, N_SOME,
             comp);
    for (size_t i = 0; i < N_SOME; i++) ck_assert_double_eq(lap[i], comp[i]);
}
END_TEST

/* One step per record, through the accountant: the larger of the two
 * directions, each capped by the Gaussian's alpha/(2 s^2).  Checked
 * against closed forms written here: the curve is at most the Gaussian's,
 * at least the add direction's 1/(2 s^2) + (alpha - 1)/(2 T s^2) (where
 * that is below the Gaussian's), and at least the exact remove direction
 * (MPFR, small T and integer orders). */
START_TEST(epoch_between_its_directions_and_the_gaussian)
{
    const uint64_t steps[] = { 2, 5, 10, 1000, 10000 };
    const double sigmas[] = { 0.5, 0.7, 1.0, 2.0 };
    const double orders[] = { 1.25, 1.5, 2.0, 2.5, 3.0, 5.0, 8.0, 16.0, 64.0, 1024.0, 3000.0 };
    const size_t n = sizeof orders / sizeof orders[0];
    for (size_t i = 0; i < 5; i++)
        for (size_t j = 0; j < 4; j++) {
            const double T = (double)steps[i], s = sigmas[j];
            double v[16];
            curve_of(allocation(steps[i], 1, s), DPA_ADD_REMOVE, orders, n, v);
            for (size_t k = 0; k < n; k++) {
                const double a = orders[k], gauss = a / (2.0 * s * s);
                const double add = 1.0 / (2.0 * s * s) + (a - 1.0) / (2.0 * T * s * s);
                ck_assert_msg(v[k] <= gauss * (1.0 + 1e-10), "T=%g sigma=%g alpha=%g: %.17g above the Gaussian %.17g",
                              T, s, a, v[k], gauss);
                ck_assert_msg(v[k] >= fmin(add, gauss) * (1.0 - 1e-15), "T=%g sigma=%g alpha=%g: %.17g below the add "
                              "direction's bound %.17g", T, s, a, v[k], add);
                if (T <= 5.0 && a == floor(a) && a <= 8.0) {
                    const double remove = mpfr_remove_rdp((unsigned)T, s, (unsigned)a);
                    ck_assert_msg(v[k] >= fmin(remove, gauss), "T=%g sigma=%g alpha=%g: %.17g below the remove "
                                  "direction %.17g", T, s, a, v[k], remove);
                }
            }
        }
}
END_TEST

/* Many steps: the remove direction of an epoch is close to T steps of the
 * Poisson-subsampled Gaussian at q = 1/T (Feldman & Shenfeld: random
 * allocation is bounded by Poisson sampling at rate (1 + o(1))/T), from the
 * library's poisson event.  A sanity check, not an identity: observed
 * ratios 0.99991 (alpha = 2) to 0.99750 (alpha = 16) at T = 1e4,
 * sigma = 1. */
START_TEST(many_steps_near_poisson_sampling)
{
    dpa_error err = { 0 };
    const double orders[] = { 2, 3, 4, 8, 12, 16 };
    double poisson[6];
    curve_of(dpa_event_self_composed(dpa_event_poisson_sampled(1e-4, dpa_event_gaussian(1.0, &err), &err), 10000,
                                     &err),
             DPA_ADD_REMOVE, orders, 6, poisson);
    for (size_t i = 0; i < 6; i++) {
        const double ratio = library_remove(1e4, 1.0, 16, orders[i]) / poisson[i];
        printf("allocation: T = 1e4, sigma = 1, alpha = %g: remove direction / Poisson(1/T) = %.5f\n", orders[i],
               ratio);
        ck_assert_msg(ratio > 0.99 && ratio <= 1.0, "alpha=%g: ratio %.6f", orders[i], ratio);
    }
}
END_TEST

/* E epochs are self_composed(E, allocation): E times one epoch's curve
 * (the existing path, rounded up by a few ulps). */
START_TEST(epochs_compose)
{
    const double orders[] = { 1.5, 2.0, 7.5, 32.0, 256.0 };
    double one[5], ten[5];
    dpa_error err = { 0 };
    curve_of(allocation(1000, 1, 0.8), DPA_ADD_REMOVE, orders, 5, one);
    curve_of(dpa_event_self_composed(allocation(1000, 1, 0.8), 10, &err), DPA_ADD_REMOVE, orders, 5, ten);
    for (size_t i = 0; i < 5; i++) {
        ck_assert_double_ge(ten[i], 10.0 * one[i]);
        ck_assert_double_le(ten[i], 10.0 * one[i] * (1.0 + 1e-14));
    }
}
END_TEST

/* ---- K of T steps (1 < K < T): exact values by enumeration ----------------- *
 *
 * The remove direction.  With the record, the epoch's T outputs (the
 * others' sums removed) are P = C(T,K)^-1 sum_S N(1_S, s^2 I_T), S over the
 * K-subsets of [T]; without it Q = N(0, s^2 I_T).  So
 *   P/Q(x) = C(T,K)^-1 sum_S exp((<x, 1_S> - K/2)/s^2),
 * and for an integer alpha, expanding the power,
 *   E_Q[(P/Q)^alpha] = C(T,K)^-alpha sum_{S_1..S_alpha} e^{-alpha K/(2 s^2)} E_Q[e^{<x, v>/s^2}],
 * v = sum_a 1_{S_a}.  Under Q, <x, v> ~ N(0, s^2 |v|^2), so the expectation is
 * e^{|v|^2/(2 s^2)}, and |v|^2 = sum_a |S_a| + 2 sum_{a<b} |S_a n S_b| =
 * alpha K + 2 sum_{a<b} |S_a n S_b|: the alpha K cancels and
 *   E_Q[(P/Q)^alpha] = C(T,K)^-alpha sum_{S_1..S_alpha} exp((1/s^2) sum_{a<b} |S_a n S_b|).
 * (K = 1: |S_a n S_b| = [i_a = i_b], and grouping the tuples by how many
 * a_i of the alpha land on step i gives the multinomial sum above; checked
 * below against mpfr_remove_rdp.  T = 4, K = 2, alpha = 2, s = 1: each S_1
 * meets itself (|.| = 2), four others in one step and one in none:
 * (e^2 + 4e + 1)/6 = 3.2104.)
 * The exponent is a whole number j <= K alpha(alpha-1)/2 times 1/s^2, so the
 * sum is sum_j N_j e^{j/s^2} with N_j the number of alpha-tuples whose
 * pairwise intersections add up to j.  Since sum_{a<b} |S_a n S_b| =
 * sum_i C(v_i, 2), N_j is counted column by column: the alpha x T 0/1
 * matrices with rows the indicators of the S_a (row sums K), weighted by
 * y^{C(column sum, 2)}, built one column at a time with the rows' sums so
 * far as the state (at most (K+1)^alpha of them).  Exact integers
 * (C(T,K)^alpha < 2^64 here), then the sum and its logarithm in MPFR. */

#define SUB_MAX_ALPHA 6
#define SUB_MAX_J 64

static uint64_t binomial_u64(unsigned n, unsigned k)
{
    uint64_t c = 1;
    for (unsigned i = 1; i <= k; i++) c = c * (n - k + i) / i;   /* exact at every step */
    return c;
}

/* counts[j] = N_j for j = 0..K alpha(alpha-1)/2. */
static void subset_intersection_counts(unsigned T, unsigned K, unsigned alpha, uint64_t *counts)
{
    const unsigned jmax = K * alpha * (alpha - 1) / 2;
    size_t states = 1;
    for (unsigned a = 0; a < alpha; a++) states *= K + 1;
    ck_assert_uint_le(jmax, SUB_MAX_J - 1);
    uint64_t *cur = calloc(states * SUB_MAX_J, sizeof *cur), *nxt = calloc(states * SUB_MAX_J, sizeof *nxt);
    ck_assert(cur && nxt);
    cur[0] = 1;   /* no column yet: every row sum 0, j = 0 */
    for (unsigned col = 0; col < T; col++) {
        memset(nxt, 0, states * SUB_MAX_J * sizeof *nxt);
        for (size_t st = 0; st < states; st++)
            for (unsigned j = 0; j <= jmax; j++) {
                const uint64_t c = cur[st * SUB_MAX_J + j];
                if (!c) continue;
                for (unsigned U = 0; U < (1u << alpha); U++) {   /* the rows with a 1 in this column */
                    size_t to = st, place = 1;
                    unsigned ones = 0, ok = 1;
                    for (unsigned a = 0; a < alpha; a++, place *= K + 1)
                        if (U >> a & 1) {
                            if ((st / place) % (K + 1) == K) { ok = 0; break; }
                            to += place;
                            ones++;
                        }
                    if (ok) nxt[to * SUB_MAX_J + j + ones * (ones - 1) / 2] += c;
                }
            }
        uint64_t *t = cur;
        cur = nxt;
        nxt = t;
    }
    for (unsigned j = 0; j <= jmax; j++) counts[j] = cur[(states - 1) * SUB_MAX_J + j];   /* every row sum K */
    free(cur);
    free(nxt);
}

/* The same counts by listing every alpha-tuple of subsets (bit masks):
 * small cases only, to check the column-by-column count. */
static void subset_intersection_counts_brute(unsigned T, unsigned K, unsigned alpha, uint64_t *counts)
{
    unsigned sets[64], ns = 0, idx[SUB_MAX_ALPHA] = { 0 };
    for (unsigned m = 0; m < (1u << T); m++)
        if ((unsigned)__builtin_popcount(m) == K) sets[ns++] = m;
    memset(counts, 0, SUB_MAX_J * sizeof *counts);
    for (;;) {
        unsigned j = 0;
        for (unsigned a = 0; a < alpha; a++)
            for (unsigned b = a + 1; b < alpha; b++) j += (unsigned)__builtin_popcount(sets[idx[a]] & sets[idx[b]]);
        counts[j]++;
        unsigned a = 0;
        while (a < alpha && ++idx[a] == ns) idx[a++] = 0;
        if (a == alpha) break;
    }
}

/* D_alpha(P || Q) of K of T steps from its counts N_j, at 256 bits,
 * rounded up to a double (above the truth). */
static double mpfr_subsets_rdp_of(unsigned T, unsigned K, const uint64_t *counts, double sigma, unsigned alpha)
{
    const unsigned jmax = K * alpha * (alpha - 1) / 2;
    mpfr_t acc, inv_s2, term, c;
    mpfr_inits2(PREC, acc, inv_s2, term, c, (mpfr_ptr)0);
    mpfr_set_d(inv_s2, sigma, MPFR_RNDN);
    mpfr_sqr(inv_s2, inv_s2, MPFR_RNDN);
    mpfr_ui_div(inv_s2, 1, inv_s2, MPFR_RNDN);
    mpfr_set_ui(acc, 0, MPFR_RNDN);
    for (unsigned j = 0; j <= jmax; j++) {
        if (!counts[j]) continue;
        mpfr_mul_ui(term, inv_s2, j, MPFR_RNDN);
        mpfr_exp(term, term, MPFR_RNDN);
        mpfr_set_uj(c, counts[j], MPFR_RNDN);
        mpfr_mul(term, term, c, MPFR_RNDN);
        mpfr_add(acc, acc, term, MPFR_RNDN);
    }
    mpfr_set_uj(c, binomial_u64(T, K), MPFR_RNDN);
    mpfr_pow_ui(c, c, alpha, MPFR_RNDN);
    double v = rdp_of_moment(acc, c, alpha);
    mpfr_clears(acc, inv_s2, term, c, (mpfr_ptr)0);
    return v;
}

static double mpfr_subsets_remove_rdp(unsigned T, unsigned K, double sigma, unsigned alpha)
{
    uint64_t counts[SUB_MAX_J];
    subset_intersection_counts(T, K, alpha, counts);
    return mpfr_subsets_rdp_of(T, K, counts, sigma, alpha);
}

/* The enumeration against itself and the K = 1 reference: the column count
 * equals the listing of every tuple, its counts add up to C(T,K)^alpha, and
 * at K = 1 the value is the multinomial sum's (mpfr_remove_rdp). */
START_TEST(subset_enumeration_is_right)
{
    static const unsigned cases[][3] = { { 4, 2, 2 }, { 4, 2, 3 }, { 4, 2, 4 }, { 5, 2, 3 }, { 5, 3, 3 }, { 6, 3, 3 },
                                         { 4, 1, 4 } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const unsigned T = cases[i][0], K = cases[i][1], alpha = cases[i][2];
        uint64_t dp[SUB_MAX_J], brute[SUB_MAX_J];
        subset_intersection_counts(T, K, alpha, dp);
        subset_intersection_counts_brute(T, K, alpha, brute);
        for (unsigned j = 0; j <= K * alpha * (alpha - 1) / 2; j++)
            ck_assert_msg(dp[j] == brute[j], "T=%u K=%u alpha=%u: N_%u = %llu, listed %llu", T, K, alpha, j,
                          (unsigned long long)dp[j], (unsigned long long)brute[j]);
    }
    static const unsigned sizes[][2] = { { 4, 2 }, { 5, 2 }, { 6, 3 }, { 7, 3 }, { 7, 2 }, { 8, 3 }, { 9, 3 } };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (unsigned alpha = 2; alpha <= SUB_MAX_ALPHA; alpha++) {
            uint64_t n[SUB_MAX_J], total = 0, want = 1;
            subset_intersection_counts(sizes[i][0], sizes[i][1], alpha, n);
            for (unsigned j = 0; j <= sizes[i][1] * alpha * (alpha - 1) / 2; j++) total += n[j];
            for (unsigned a = 0; a < alpha; a++) want *= binomial_u64(sizes[i][0], sizes[i][1]);
            ck_assert_uint_eq(total, want);
        }
    const double sigmas[] = { 0.7, 2.0 };
    for (unsigned T = 3; T <= 5; T += 2)
        for (size_t j = 0; j < 2; j++)
            for (unsigned alpha = 2; alpha <= 6; alpha++) {
                const double a = mpfr_subsets_remove_rdp(T, 1, sigmas[j], alpha), b = mpfr_remove_rdp(T, sigmas[j], alpha);
                ck_assert_msg(fabs(a - b) <= 1e-15 * b, "T=%u sigma=%g alpha=%u: %.17g, multinomial %.17g", T,
                              sigmas[j], alpha, a, b);
            }
    /* the worked case of the comment: (e^2 + 4e + 1)/6 at T = 4, K = 2, alpha = 2, sigma = 1 */
    const double e = exp(1.0), worked = log((e * e + 4.0 * e + 1.0) / 6.0);
    ck_assert_msg(fabs(mpfr_subsets_remove_rdp(4, 2, 1.0, 2) - worked) <= 1e-15 * worked, "%.17g, (e^2+4e+1)/6: %.17g",
                  mpfr_subsets_remove_rdp(4, 2, 1.0, 2), worked);
}
END_TEST

/* The add direction, D_alpha(Q || P), has no such sum: tensor Gauss-Hermite
 * values of tests/ref/allocation_subsets.py (double precision, stable to
 * 1e-12 between 32 and 40 nodes a coordinate; the same rule reproduces the
 * enumeration above for the remove direction to 1e-12). */
static const struct { unsigned T, K; double sigma; unsigned alpha; double rdp; } subset_add_refs[] = {
    { 4, 2, 1.0, 2, 1.1068195567533057 }, { 4, 2, 1.0, 3, 1.6430780685584385 }, { 4, 2, 1.0, 4, 2.1723577006756027 },
    { 4, 2, 2.0, 2, 0.25901061986824714 }, { 4, 2, 2.0, 3, 0.3879403498239274 }, { 4, 2, 2.0, 4, 0.5165526456740449 },
    { 5, 2, 1.0, 2, 0.9198387867990916 }, { 5, 2, 1.0, 3, 1.3614036880299 }, { 5, 2, 1.0, 4, 1.795337395318233 },
    { 5, 2, 2.0, 2, 0.209889828529117 }, { 5, 2, 2.0, 3, 0.31424828261298055 }, { 5, 2, 2.0, 4, 0.418279289642647 },
};

/* The add direction's value at (T, K, sigma, alpha), or -1 where there is none. */
static double subset_add_ref(unsigned T, unsigned K, double sigma, unsigned alpha)
{
    for (size_t i = 0; i < sizeof subset_add_refs / sizeof subset_add_refs[0]; i++)
        if (subset_add_refs[i].T == T && subset_add_refs[i].K == K && subset_add_refs[i].sigma == sigma &&
            subset_add_refs[i].alpha == alpha)
            return subset_add_refs[i].rdp;
    return -1.0;
}

/* K of T steps through the rdp accountant, at orders 2..6:
 * - never below the exact remove direction (the enumeration, rounded up)
 *   nor, where there is a value, the add direction (quadrature, with a
 *   1e-9 margin for its rounding);
 * - the reduction's value, K times one of m = floor(T/K) steps: K times
 *   the larger of the exact remove direction of one of m (the multinomial
 *   sum, mpfr_remove_rdp) and the add direction's bound 1/(2 s^2) +
 *   (alpha - 1)/(2 m s^2), each capped by the Gaussian's alpha/(2 s^2)
 *   (closed forms written here), to 1e-10;
 * - its remove part not far above the truth: K D_alpha(one of m) is at
 *   most 1.25 T/(K m) times the exact value (T/(K m) for the steps the
 *   floor leaves out; the rest is what revealing the blocks costs, up to
 *   1.21 times here, 1 to first order in 1/s^2 when K divides T).
 * T = 5, K = 3 has m = 1: the K-fold Gaussian. */
START_TEST(selected_of_steps_bounds_the_exact_divergence)
{
    static const unsigned sizes[][2] = { { 4, 2 }, { 5, 2 }, { 6, 3 }, { 7, 3 }, { 7, 2 }, { 8, 3 }, { 9, 3 }, { 5, 3 } };
    const double sigmas[] = { 0.5, 1.0, 2.0 }, orders[] = { 2, 3, 4, 5, 6 };
    double worst_lib = 0.0, worst_reduction = 0.0, worst_add = 0.0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const unsigned T = sizes[i][0], K = sizes[i][1], m = T / K;
        uint64_t counts[SUB_MAX_ALPHA + 1][SUB_MAX_J];
        for (unsigned alpha = 2; alpha <= SUB_MAX_ALPHA; alpha++)
            if (!test_quick() || alpha <= 3) subset_intersection_counts(T, K, alpha, counts[alpha]);
        for (size_t j = 0; j < 3; j++) {
            const double s = sigmas[j];
            double v[5];
            curve_of(allocation(T, K, s), DPA_ADD_REMOVE, orders, 5, v);
            for (unsigned alpha = 2; alpha <= SUB_MAX_ALPHA; alpha++) {
                if (test_quick() && alpha > 3) continue;
                const double lib = v[alpha - 2], exact = mpfr_subsets_rdp_of(T, K, counts[alpha], s, alpha);
                ck_assert_msg(lib >= exact, "T=%u K=%u sigma=%g alpha=%u: %.17g below the exact remove direction %.17g",
                              T, K, s, alpha, lib, exact);
                const double add = subset_add_ref(T, K, s, alpha);
                if (add >= 0.0) {
                    ck_assert_msg(lib >= add * (1.0 + 1e-9), "T=%u K=%u sigma=%g alpha=%u: %.17g below the add "
                                  "direction %.17g", T, K, s, alpha, lib, add);
                    worst_add = fmax(worst_add, lib / add);
                }
                const double g = alpha / (2.0 * s * s), one = mpfr_remove_rdp(m, s, alpha);
                const double bound = 1.0 / (2.0 * s * s) + (alpha - 1.0) / (2.0 * m * s * s);
                const double want = K * fmax(fmin(one, g), fmin(bound, g));
                ck_assert_msg(lib >= want * (1.0 - 1e-15) && lib <= want * (1.0 + 1e-10),
                              "T=%u K=%u sigma=%g alpha=%u: %.17g, K times one of %u steps: %.17g", T, K, s, alpha, lib,
                              m, want);
                const double ratio = K * one / exact;
                ck_assert_msg(ratio <= 1.25 * T / (K * m), "T=%u K=%u sigma=%g alpha=%u: K D(one of %u) = %.17g is "
                              "%.4f times the exact %.17g", T, K, s, alpha, m, K * one, ratio, exact);
                worst_lib = fmax(worst_lib, lib / exact);
                worst_reduction = fmax(worst_reduction, ratio);
            }
        }
    }
    printf("allocation: K of T steps: rdp / exact remove direction at most %.4f; the reduction's remove part / exact "
           "at most %.4f; rdp / add direction (quadrature) at most %.4f\n", worst_lib, worst_reduction, worst_add);
}
END_TEST

/* Two of ten steps an epoch is amplified: below the no-amplification bound
 * of 2 Gaussian steps an epoch, for the curve (closed form 2 E alpha/(2 s^2)
 * at every order) and for eps at delta = 1e-5 (the exact eps of the 2E
 * Gaussians, mu = sqrt(2E)/s, by bisection in MPFR: ref_gdp_epsilon). */
START_TEST(two_of_ten_below_no_amplification)
{
    dpa_error err = { 0 };
    const double sigmas[] = { 0.8, 1.0, 2.0, 4.0 };
    const uint64_t epochs[] = { 1, 10, 100 };
    for (size_t j = 0; j < 4; j++)
        for (size_t k = 0; k < 3; k++) {
            const double s = sigmas[j], E = (double)epochs[k];
            double v[N_SOME];
            curve_of(dpa_event_self_composed(allocation(10, 2, s), epochs[k], &err), DPA_ADD_REMOVE, some_orders,
                     N_SOME, v);
            for (size_t i = 0; i < N_SOME; i++) {
                const double none = 2.0 * E * some_orders[i] / (2.0 * s * s);
                ck_assert_msg(v[i] <= none * (1.0 + 1e-10), "sigma=%g E=%g alpha=%g: %.17g above %.17g", s, E,
                              some_orders[i], v[i], none);
            }
            dpa_accountant *a = accountant_with("rdp", dpa_event_self_composed(allocation(10, 2, s), epochs[k], &err));
            dpa_bound b;
            ck_assert_int_eq(dpa_accountant_epsilon(a, 1e-5, &b, &err), DPA_OK);
            const double gauss = ref_gdp_epsilon(sqrt(2.0 * E) / s, 1e-5);
            ck_assert_msg(b.upper < gauss, "sigma=%g E=%g: eps %.17g, the unamplified Gaussian's %.17g", s, E, b.upper,
                          gauss);
            printf("allocation: 2 of 10 steps, sigma = %g, %g epochs: eps(1e-5) = %.4f, unamplified %.4f\n", s, E,
                   b.upper, gauss);
            dpa_accountant_free(a);
        }
}
END_TEST

/* ---- bad input -------------------------------------------------------------- */

#define EXPECT_REFUSED(call, status_, words)                                                          \
    do {                                                                                              \
        dpa_error e_ = { 0 };                                                                         \
        dpa_event *x_ = (call);                                                                       \
        ck_assert_ptr_null(x_);                                                                       \
        ck_assert_int_eq(e_.status, status_);                                                         \
        ck_assert_msg(strstr(e_.message, words) != NULL, "\"%s\" does not say \"%s\"", e_.message, words); \
    } while (0)

START_TEST(bad_arguments_are_named)
{
    EXPECT_REFUSED(dpa_event_random_allocation(0, 1, dpa_event_gaussian(1.0, NULL), &e_), DPA_EINVAL,
                   "random_allocation: steps");
    EXPECT_REFUSED(dpa_event_random_allocation(10, 0, dpa_event_gaussian(1.0, NULL), &e_), DPA_EINVAL,
                   "random_allocation: selected");
    EXPECT_REFUSED(dpa_event_random_allocation(10, 11, dpa_event_gaussian(1.0, NULL), &e_), DPA_EINVAL,
                   "selected = 11 with steps = 10");
    EXPECT_REFUSED(dpa_event_parse("random_allocation(steps=3, gaussian(sigma=1))", &e_), DPA_EINVAL, "selected");
    EXPECT_REFUSED(dpa_event_parse("random_allocation(steps=3, selected=1)", &e_), DPA_EINVAL, "one event");
}
END_TEST

/* What rdp refuses, and why; a refused event leaves nothing composed. */
static void rdp_refuses(const char *text, dpa_relation relation, const char *words)
{
    dpa_error err = { 0 };
    dpa_options opt;
    dpa_options_init(&opt);
    opt.relation = relation;
    dpa_event *e = dpa_event_parse(text, &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    dpa_accountant *a = dpa_accountant_new("rdp", &opt, &err);
    ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
    ck_assert_msg(strstr(err.message, words) != NULL, "%s: \"%s\" does not say \"%s\"", text, err.message, words);
    dpa_event_free(e);
    dpa_accountant_free(a);
}

START_TEST(rdp_refuses_what_it_cannot_bound)
{
    rdp_refuses("random_allocation(steps=10, selected=1, laplace(scale=1))", DPA_ADD_REMOVE,
                "randomly allocated laplace");
    rdp_refuses("random_allocation(steps=10, selected=2, laplace(scale=1))", DPA_ADD_REMOVE,
                "randomly allocated laplace");
    rdp_refuses("random_allocation(steps=10, selected=1, gaussian(sigma=1))", DPA_REPLACE_ONE, "add/remove");
    rdp_refuses("random_allocation(steps=10, selected=2, gaussian(sigma=1))", DPA_REPLACE_ONE, "add/remove");
}
END_TEST

/* Every other accountant refuses the event (nothing may take it for
 * something else), naming it. */
START_TEST(other_accountants_refuse_it)
{
    const char *methods[] = { "gaussian", "shuffle", "zcdp", "gdp", "tuning" };   /* pld: tests/test_allocation_pld.c */
    const char *texts[] = { "random_allocation(steps=100, selected=1, gaussian(sigma=1))",
                            "random_allocation(steps=100, selected=100, gaussian(sigma=1))" };
    for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++)
        for (size_t t = 0; t < 2; t++) {
            dpa_error err = { 0 };
            dpa_event *e = dpa_event_parse(texts[t], &err);
            dpa_accountant *a = dpa_accountant_new(methods[m], NULL, &err);
            ck_assert_msg(a != NULL, "%s", err.message);
            ck_assert_int_eq(dpa_accountant_compose(a, e, &err), DPA_EUNSUPPORTED);
            ck_assert_msg(strstr(err.message, "random_allocation") || strstr(err.message, "random allocation"),
                          "%s: %s", methods[m], err.message);
            dpa_event_free(e);
            dpa_accountant_free(a);
        }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("allocation");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, remove_direction_matches_mpfr_enumeration);
    tcase_add_test(tc, large_steps_match_mpmath_partitions);
    tcase_add_test(tc, fractional_orders_are_chords_above_the_divergence);
    tcase_add_test(tc, one_step_is_the_gaussian);
    tcase_add_test(tc, every_step_is_the_composition);
    tcase_add_test(tc, epoch_between_its_directions_and_the_gaussian);
    tcase_add_test(tc, many_steps_near_poisson_sampling);
    tcase_add_test(tc, epochs_compose);
    tcase_add_test(tc, subset_enumeration_is_right);
    tcase_add_test(tc, selected_of_steps_bounds_the_exact_divergence);
    tcase_add_test(tc, two_of_ten_below_no_amplification);
    tcase_add_test(tc, bad_arguments_are_named);
    tcase_add_test(tc, rdp_refuses_what_it_cannot_bound);
    tcase_add_test(tc, other_accountants_refuse_it);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
