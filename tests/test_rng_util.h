/*
 * test_rng_util.h - seeded generators for the trainers' tests: a private
 * run needs a dpt_rng, and a test wants it reproducible.  Each call makes a
 * new generator from its seed; they are freed at exit.
 */
#ifndef TEST_RNG_UTIL_H
#define TEST_RNG_UTIL_H

#include "dptrain.h"

#include <check.h>
#include <stdlib.h>

enum { TEST_RNG_MAX = 4096 };
static dpt_rng *test_rngs[TEST_RNG_MAX];
static size_t test_rng_count;

static void test_rng_free_all(void)
{
    for (size_t i = 0; i < test_rng_count; i++) dpt_rng_free(test_rngs[i]);
    test_rng_count = 0;
}

static dpt_rng *test_rng(uint64_t seed)
{
    dpt_rng *r = NULL;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_rng_new_seeded(seed, &r, &err), DPA_OK);
    if (test_rng_count == 0) atexit(test_rng_free_all);
    /* a test that needs more generators than this should reuse one */
    ck_assert_msg(test_rng_count < TEST_RNG_MAX, "test_rng: more than %d generators", TEST_RNG_MAX);
    test_rngs[test_rng_count++] = r;
    return r;
}

#endif
