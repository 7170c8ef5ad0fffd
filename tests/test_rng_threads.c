/*
 * test_rng_threads.c - the trainers' generator and noise samplers from
 * several threads at once (run under ThreadSanitizer by .ci/run): secure
 * generators made concurrently (libsodium is initialised once), each
 * thread's seeded stream and its noise draws, on both the double path and
 * the MPFR path, bitwise those of the same work done in one thread.
 */
#include <config.h>

#include "dptrain.h"
#include "testutil.h"

#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 4, DRAWS = 200, SLOW = 20 };

typedef struct {
    uint64_t seed;
    double out[DRAWS + 3 * SLOW];
    uint64_t secure_word;
    int ok;
} job;

static void work(job *j)
{
    dpa_error err = { 0 };
    dpt_rng *s = NULL, *r = NULL;
    j->ok = dpt_rng_new_secure(&s, &err) == DPA_OK && dpt_rng_new_seeded(j->seed, &r, &err) == DPA_OK;
    if (!j->ok) {
        dpt_rng_free(s);
        return;
    }
    j->secure_word = dpt_rng_u64(s);
    for (int i = 0; i < DRAWS; i++) j->out[i] = dpt_noise_gaussian(r, 0.25 * i, 1.5);
    /* the MPFR path, forced, for each law */
    for (int i = 0; i < SLOW; i++)
        for (int law = 0; law < 3; law++) {
            dpt_noise_probe p = { .force_slow = 1 };
            j->out[DRAWS + 3 * i + law] = dpt_noise_probe_draw(r, law, 0.1 * i, 0.7, 2.0, &p);
            if (!p.slow) j->ok = 0;
        }
    dpt_rng_free(s);
    dpt_rng_free(r);
}

static void *run(void *arg)
{
    work(arg);
    return NULL;
}

START_TEST(concurrent_draws_equal_sequential)
{
    job par[THREADS], seq[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        memset(&par[i], 0, sizeof par[i]);
        par[i].seed = 100 + (uint64_t)i;
        seq[i] = par[i];
    }
    for (int i = 0; i < THREADS; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, run, &par[i]), 0);
    for (int i = 0; i < THREADS; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < THREADS; i++) work(&seq[i]);
    for (int i = 0; i < THREADS; i++) {
        ck_assert(par[i].ok && seq[i].ok);
        ck_assert_msg(memcmp(par[i].out, seq[i].out, sizeof par[i].out) == 0, "thread %d: draws differ", i);
        for (int k = 0; k < DRAWS + 3 * SLOW; k++) ck_assert(par[i].out[k] == par[i].out[k]);   /* no NaN */
    }
    /* the secure generators are keyed independently (a collision of 64
     * random bits has probability 2^-64 per pair) */
    for (int i = 0; i < THREADS; i++)
        for (int k = i + 1; k < THREADS; k++) ck_assert(par[i].secure_word != par[k].secure_word);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rng_threads");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, concurrent_draws_equal_sequential);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
