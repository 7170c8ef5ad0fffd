/*
 * test_sampling.c - the DP-SGD trainers' batch samplers (trainers/sampling.c)
 * do what the events they are accounted by assume:
 *   poisson        each record in each batch with probability q = b/n,
 *                  independently (inclusion frequency, batch-size mean and
 *                  variance of Binomial(n, q));
 *   shuffle        every batch exactly b distinct records, no record twice
 *                  in an epoch, the n mod b left over sitting out with
 *                  frequency (n mod b)/n, and a record's batch uniform;
 *   balls-in-bins  every record in exactly one batch an epoch, its batch
 *                  uniform over the ceil(n/b), the batch sizes those of
 *                  Binomial(n, 1/t) (mean and variance);
 *   allocation     every record in exactly K distinct batches of the
 *                  t = ceil(K n/b) an epoch; a given record in a given
 *                  batch at rate K/t, in two given batches at rate
 *                  K(K-1)/(t(t-1)) (the uniform K-subset: a per-block or
 *                  with-replacement draw breaks this), the batch sizes
 *                  those of Binomial(n, K/t) (mean n K/t exactly), and a
 *                  fresh subset each epoch (the same as the last epoch's
 *                  at rate 1/C(t, K));
 *   truncated      never more than B, and a record included with
 *                  probability q E[min(1, B/(K+1))], K ~ Binomial(n-1, q)
 *                  (computed here from the binomial terms): the rate the
 *                  truncated-Poisson accounting derives.
 * Frequencies are compared with 5-sigma binomial (or chi-square) bounds on
 * a seeded generator (the tests are reproducible; seeded runs are not
 * private, which the trainers say).  And each sampling's event, text and
 * steps.
 */
#include "dpacct.h"
#include "dptrain.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static dpt_rng *seeded(uint64_t seed)
{
    dpt_rng *r;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_rng_new_seeded(seed, &r, &err), DPA_OK);
    return r;
}

static dpt_sampler *sampler_of(dpt_sampling kind, size_t n, size_t b, size_t max_batch, dpt_rng *r)
{
    dpt_sampler *s;
    dpa_error err = { 0 };
    ck_assert_msg(dpt_sampler_new(kind, n, b, max_batch, r, &s, &err) == DPA_OK, "%s", err.message);
    return s;
}

/* |observed - expected| within z standard deviations of a binomial count */
static void assert_binomial(const char *what, double count, double trials, double p, double z)
{
    double sd = sqrt(trials * p * (1.0 - p));
    ck_assert_msg(fabs(count - trials * p) <= z * sd + 1e-9, "%s: %g of %g, expected %g (sd %g)", what, count, trials,
                  trials * p, sd);
}

START_TEST(poisson_includes_each_record_with_q)
{
    size_t n = 40, b = 6, rows[40], count;
    dpt_rng *r = seeded(1);
    dpt_sampler *s = sampler_of(DPT_SAMPLING_POISSON, n, b, 0, r);
    double q = 6.0 / 40.0, hits0 = 0.0, sum = 0.0, sum2 = 0.0;
    int steps = 20000;
    for (int t = 0; t < steps; t++) {
        ck_assert_int_eq(dpt_sampler_next(s, rows, &count), DPA_OK);
        for (size_t k = 0; k < count; k++) hits0 += rows[k] == 0;
        sum += (double)count;
        sum2 += (double)count * (double)count;
    }
    assert_binomial("record 0 included", hits0, steps, q, 5.0);
    double mean = sum / steps, var = sum2 / steps - mean * mean;
    ck_assert_msg(fabs(mean - n * q) < 5.0 * sqrt(n * q * (1 - q) / steps), "mean batch %g", mean);
    ck_assert_msg(fabs(var / (n * q * (1 - q)) - 1.0) < 0.05, "batch variance %g, binomial %g", var, n * q * (1 - q));
    dpt_sampler_free(s);
    dpt_rng_free(r);
}
END_TEST

START_TEST(shuffle_batches_are_exact_and_uniform)
{
    size_t n = 43, b = 5, T = 8, rows[43], count;   /* 43 mod 5 = 3 sit out each epoch */
    dpt_rng *r = seeded(2);
    dpt_sampler *s = sampler_of(DPT_SAMPLING_SHUFFLE, n, b, 0, r);
    int epochs = 20000;
    double out0 = 0.0, in_batch[8] = { 0 };
    for (int e = 0; e < epochs; e++) {
        int seen[43] = { 0 };
        for (size_t j = 0; j < T; j++) {
            ck_assert_int_eq(dpt_sampler_next(s, rows, &count), DPA_OK);
            ck_assert_uint_eq(count, b);
            for (size_t k = 0; k < count; k++) {
                ck_assert(rows[k] < n);
                ck_assert_msg(!seen[rows[k]], "record %zu twice in an epoch", rows[k]);
                seen[rows[k]] = 1;
                if (rows[k] == 0) in_batch[j] += 1.0;
            }
        }
        out0 += !seen[0];
    }
    assert_binomial("record 0 sits out", out0, epochs, 3.0 / 43.0, 5.0);
    for (size_t j = 0; j < T; j++) assert_binomial("record 0's batch", in_batch[j], epochs, 5.0 / 43.0, 5.0);
    dpt_sampler_free(s);
    dpt_rng_free(r);
}
END_TEST

START_TEST(balls_in_bins_one_uniform_batch_each)
{
    size_t n = 30, b = 7, t = 5, rows[30], count;   /* ceil(30/7) = 5 batches */
    dpt_rng *r = seeded(3);
    dpt_sampler *s = sampler_of(DPT_SAMPLING_BALLS_IN_BINS, n, b, 0, r);
    int epochs = 20000;
    double in_batch[5] = { 0 }, sum = 0.0, sum2 = 0.0;
    for (int e = 0; e < epochs; e++) {
        int seen[30] = { 0 };
        for (size_t j = 0; j < t; j++) {
            ck_assert_int_eq(dpt_sampler_next(s, rows, &count), DPA_OK);
            for (size_t k = 0; k < count; k++) {
                ck_assert_msg(!seen[rows[k]], "record %zu twice in an epoch", rows[k]);
                seen[rows[k]] = 1;
                if (rows[k] == 0) in_batch[j] += 1.0;
            }
            sum += (double)count;
            sum2 += (double)count * (double)count;
        }
        for (size_t i = 0; i < n; i++) ck_assert_msg(seen[i], "record %zu in no batch", i);
    }
    for (size_t j = 0; j < t; j++) assert_binomial("record 0's batch", in_batch[j], epochs, 1.0 / 5.0, 5.0);
    double m = (double)epochs * (double)t, mean = sum / m, var = sum2 / m - mean * mean;
    double p = 1.0 / 5.0, bin_var = n * p * (1 - p);
    ck_assert_msg(fabs(mean - n * p) < 1e-9, "mean batch %g", mean);   /* every record, every epoch */
    ck_assert_msg(fabs(var / bin_var - 1.0) < 0.05, "batch variance %g, Binomial(n, 1/t) %g", var, bin_var);
    dpt_sampler_free(s);
    dpt_rng_free(r);
}
END_TEST

/* n records, batches of b, K of t = ceil(K n / b) an epoch, over 20000
 * epochs, for records 0, 17 and n - 1: each of its batches at K/t, each
 * pair of batches at K(K-1)/(t(t-1)), the whole subset repeated from the
 * epoch before at 1/C(t, K); every record in exactly K distinct batches. */
enum { ALLOC_MAX_N = 30, ALLOC_MAX_T = 8 };

static void check_allocation(size_t n, size_t b, size_t K, uint64_t seed)
{
    const size_t T = (K * n + b - 1) / b;
    size_t rows[ALLOC_MAX_N], count;
    ck_assert(n <= ALLOC_MAX_N && T <= ALLOC_MAX_T);
    dpt_rng *r = seeded(seed);
    dpt_sampler *s = sampler_of(DPT_SAMPLING_ALLOCATION, n, b, K, r);
    const int epochs = 20000;
    const size_t watched[] = { 0, 17, n - 1 };
    double in_batch[3][ALLOC_MAX_T] = { { 0 } }, pairs[3][ALLOC_MAX_T][ALLOC_MAX_T] = { { { 0 } } };
    double repeats[3] = { 0 }, sum = 0.0, sum2 = 0.0, subsets = 1.0;
    unsigned last[3] = { 0 };
    for (size_t k = 0; k < K; k++) subsets = subsets * (double)(T - k) / (double)(k + 1);   /* C(t, K) */
    for (int e = 0; e < epochs; e++) {
        size_t uses[ALLOC_MAX_N] = { 0 };
        unsigned mask[3] = { 0 };
        for (size_t j = 0; j < T; j++) {
            int seen[ALLOC_MAX_N] = { 0 };
            ck_assert_int_eq(dpt_sampler_next(s, rows, &count), DPA_OK);
            for (size_t k = 0; k < count; k++) {
                ck_assert(rows[k] < n);
                ck_assert_msg(!seen[rows[k]], "record %zu twice in a batch", rows[k]);
                seen[rows[k]] = 1;
                uses[rows[k]]++;
                for (size_t w = 0; w < 3; w++)
                    if (rows[k] == watched[w]) mask[w] |= 1u << j;
            }
            sum += (double)count;
            sum2 += (double)count * (double)count;
        }
        for (size_t i = 0; i < n; i++) ck_assert_msg(uses[i] == K, "record %zu in %zu batches of an epoch", i, uses[i]);
        for (size_t w = 0; w < 3; w++) {
            for (size_t j = 0; j < T; j++) {
                in_batch[w][j] += (double)(mask[w] >> j & 1);
                for (size_t l = j + 1; l < T; l++) pairs[w][j][l] += (double)((mask[w] >> j & 1) && (mask[w] >> l & 1));
            }
            if (e > 0) repeats[w] += mask[w] == last[w];
            last[w] = mask[w];
        }
    }
    const double p = (double)K / (double)T, p2 = p * (double)(K - 1) / (double)(T - 1);
    for (size_t w = 0; w < 3; w++) {
        for (size_t j = 0; j < T; j++) {
            assert_binomial("a record's batch", in_batch[w][j], epochs, p, 5.0);
            for (size_t l = j + 1; l < T; l++) assert_binomial("a record's two batches", pairs[w][j][l], epochs, p2, 5.0);
        }
        assert_binomial("a record's subset repeated from the last epoch", repeats[w], epochs - 1, 1.0 / subsets, 5.0);
    }
    double m = (double)epochs * (double)T, mean = sum / m, var = sum2 / m - mean * mean;
    ck_assert_msg(fabs(mean - (double)n * p) < 1e-9, "mean batch %g, n K/t = %g", mean, (double)n * p);   /* K uses each */
    ck_assert_msg(fabs(var / ((double)n * p * (1 - p)) - 1.0) < 0.05, "batch variance %g, Binomial(n, K/t) %g", var,
                  (double)n * p * (1 - p));
    dpt_sampler_free(s);
    dpt_rng_free(r);
}

/* K = 2 of t = ceil(60/10) = 6 (K divides t: a draw of one batch per block
 * of t/K would have the right rate per batch, and no two batches of a
 * block), and K = 3 of t = ceil(90/12) = 8 (K does not divide t). */
START_TEST(allocation_uniform_k_subsets)
{
    check_allocation(30, 10, 2, 6);
    check_allocation(30, 12, 3, 5);
}
END_TEST

/* P(a record is in the batch) = q E[min(1, B/(K+1))], K ~ Bin(n-1, q) */
static double truncated_rate(size_t n, double q, size_t B)
{
    double total = 0.0;
    for (size_t k = 0; k < n; k++) {
        double logp = lgamma((double)n) - lgamma((double)k + 1.0) - lgamma((double)(n - k)) + (double)k * log(q) +
                      (double)(n - 1 - k) * log1p(-q);
        total += exp(logp) * fmin(1.0, (double)B / ((double)k + 1.0));
    }
    return q * total;
}

START_TEST(truncated_caps_and_keeps_the_rate)
{
    size_t n = 40, b = 10, B = 9, rows[40], count;
    double q = 0.25, rate = truncated_rate(n, q, B);
    ck_assert(rate < q - 0.02);   /* the cap binds often here */
    dpt_rng *r = seeded(4);
    dpt_sampler *s = sampler_of(DPT_SAMPLING_TRUNCATED, n, b, B, r);
    int steps = 40000;
    double hits = 0.0;
    for (int t = 0; t < steps; t++) {
        ck_assert_int_eq(dpt_sampler_next(s, rows, &count), DPA_OK);
        ck_assert_uint_le(count, B);
        for (size_t k = 0; k < count; k++) hits += rows[k] == 7;
    }
    assert_binomial("record 7 kept", hits, steps, rate, 5.0);
    dpt_sampler_free(s);
    dpt_rng_free(r);
}
END_TEST

static void assert_event_text(dpt_sampling kind, size_t n, size_t b, size_t max_batch, uint64_t epochs,
                              const char *expected)
{
    dpa_error err = { 0 };
    dpa_event *e = dpt_sampling_event(kind, n, b, max_batch, epochs, 1.5, &err);
    ck_assert_msg(e != NULL, "%s", err.message);
    char text[256];
    ck_assert_uint_lt(dpa_event_describe(e, text, sizeof text), sizeof text);
    ck_assert_msg(strcmp(text, expected) == 0, "%s: %s, expected %s", dpt_sampling_name(kind), text, expected);
    dpa_event_free(e);
}

START_TEST(events_and_steps)
{
    /* Poisson: ceil(E n / b) steps at q = b/n */
    assert_event_text(DPT_SAMPLING_POISSON, 1000, 10, 0, 3, "self_composed(count=300, poisson(q=0.01, gaussian(sigma=1.5)))");
    /* shuffle: one shuffled_batches epoch E times */
    assert_event_text(DPT_SAMPLING_SHUFFLE, 1003, 10, 0, 3,
                      "self_composed(count=3, shuffled_batches(n=1003, m=10, gaussian(sigma=1.5)))");
    /* truncated: Poisson's steps, n + 1 records in the larger dataset (a neighbour may add one) */
    assert_event_text(DPT_SAMPLING_TRUNCATED, 1000, 10, 12, 3,
                      "self_composed(count=300, truncated_poisson(q=0.01, n=1001, max_batch=12, gaussian(sigma=1.5)))");
    /* balls-in-bins: one random allocation of ceil(n/b) steps an epoch, E times */
    assert_event_text(DPT_SAMPLING_BALLS_IN_BINS, 1003, 10, 0, 3,
                      "self_composed(count=3, random_allocation(steps=101, selected=1, gaussian(sigma=1.5)))");
    /* allocation: ceil(K n / b) steps an epoch, each record in K of them, E times */
    assert_event_text(DPT_SAMPLING_ALLOCATION, 1003, 10, 2, 3,
                      "self_composed(count=3, random_allocation(steps=201, selected=2, gaussian(sigma=1.5)))");
    /* b = n: t = K, every record in every batch */
    assert_event_text(DPT_SAMPLING_ALLOCATION, 50, 50, 4, 1, "random_allocation(steps=4, selected=4, gaussian(sigma=1.5))");
    uint64_t steps;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_sampling_steps_param(DPT_SAMPLING_ALLOCATION, 1003, 10, 2, 3, &steps, &err), DPA_OK);
    ck_assert_uint_eq(steps, 603);    /* ceil(2006/10) an epoch */
    ck_assert_int_eq(dpt_sampling_steps(DPT_SAMPLING_ALLOCATION, 1003, 10, 3, &steps, &err), DPA_EINVAL);
    ck_assert(strstr(err.message, "selected") != NULL);
    ck_assert_int_eq(dpt_sampling_check(DPT_SAMPLING_ALLOCATION, 100, 10, 0, &err), DPA_EINVAL);
    ck_assert(strstr(err.message, "selected") != NULL);
    ck_assert_int_eq(dpt_sampling_check(DPT_SAMPLING_ALLOCATION, 100, 10, (size_t)1 << 50, &err), DPA_EINVAL);
    ck_assert(strstr(err.message, "selected") != NULL);
    ck_assert_int_eq(dpt_sampling_check(DPT_SAMPLING_BALLS_IN_BINS, 100, 10, 2, &err), DPA_EINVAL);
    ck_assert_str_eq(dpt_sampling_name(DPT_SAMPLING_ALLOCATION), "allocation");
    ck_assert_str_eq(dpt_sampling_accountant(DPT_SAMPLING_ALLOCATION), "pld");
    ck_assert_str_eq(dpt_sampling_accountant(DPT_SAMPLING_BALLS_IN_BINS), "pld");
    ck_assert_int_eq(dpt_sampling_steps(DPT_SAMPLING_SHUFFLE, 1003, 10, 3, &steps, &err), DPA_OK);
    ck_assert_uint_eq(steps, 300);    /* floor(1003/10) an epoch */
    ck_assert_int_eq(dpt_sampling_steps(DPT_SAMPLING_BALLS_IN_BINS, 1003, 10, 3, &steps, &err), DPA_OK);
    ck_assert_uint_eq(steps, 303);    /* ceil(1003/10) an epoch */
    ck_assert_int_eq(dpt_sampling_steps(DPT_SAMPLING_POISSON, 1003, 10, 3, &steps, &err), DPA_OK);
    ck_assert_uint_eq(steps, 301);    /* ceil(300.9) */
    /* bad input, one line naming it */
    ck_assert_int_eq(dpt_sampling_check(DPT_SAMPLING_TRUNCATED, 100, 10, 0, &err), DPA_EINVAL);
    ck_assert(strstr(err.message, "maximum batch") != NULL);
    ck_assert_int_eq(dpt_sampling_check(DPT_SAMPLING_SHUFFLE, 100, 10, 5, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_sampling_check(DPT_SAMPLING_POISSON, 100, 101, 0, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_sampling_check((dpt_sampling)9, 100, 10, 0, &err), DPA_EINVAL);
    dpt_sampler *s;
    ck_assert_int_eq(dpt_sampler_new(DPT_SAMPLING_SHUFFLE, 100, 10, 0, NULL, &s, &err), DPA_EINVAL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sampling");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, poisson_includes_each_record_with_q);
    tcase_add_test(tc, shuffle_batches_are_exact_and_uniform);
    tcase_add_test(tc, balls_in_bins_one_uniform_batch_each);
    tcase_add_test(tc, allocation_uniform_k_subsets);
    tcase_add_test(tc, truncated_caps_and_keeps_the_rate);
    tcase_add_test(tc, events_and_steps);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
