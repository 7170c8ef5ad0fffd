/* testutil.h - small helpers shared by the Check suites. */
#ifndef DPACCT_TESTS_TESTUTIL_H
#define DPACCT_TESTS_TESTUTIL_H

#include "dpacct.h"

#include <check.h>

/* Run a suite, print Check's summary, return the process exit status. */
int run_suite(Suite *s);

/* A fresh accountant (default options) with `e` composed into it; frees
 * `e`.  Fails the running test on any error. */
dpa_accountant *accountant_with(const char *method, dpa_event *e);
/* The same with options (NULL: the defaults). */
dpa_accountant *accountant_with_options(const char *method, const dpa_options *opt, dpa_event *e);

/* The same event tree, every parameter bit for bit (NaN as NaN), through
 * the public accessors; fails the running test otherwise. */
void assert_same_event(const dpa_event *a, const dpa_event *b);

/* Whether long double arithmetic is narrower than its format claims, as
 * under valgrind, which emulates x87 long doubles with 64-bit doubles
 * (measured at run time through volatiles): the precision is that of a
 * double (1 + 2^-60 rounds to 1), or the exponent range is (2^1000 squared
 * overflows).  Tests whose digits or range assume the format's use these to
 * widen or skip those checks, saying so; certified brackets must still
 * contain the truth. */
int long_double_precision_reduced(void);
int long_double_range_reduced(void);

/* 1 when DPACCT_TEST_QUICK is set to a nonzero value (`make valgrind` sets
 * it): suites whose cost is in their MPFR references check a sample of
 * their grids, still touching every accountant path. */
int test_quick(void);

/* sigma = 1e300 composed 2.5e18 times under `method` (gdp, zcdp): one
 * step's mu^2 = 1e-600 underflows and is rounded up, an upper bound only;
 * delta(0)'s lower bound must stay at or below the truth mu phi(0) and its
 * upper at or above it (tests/test_gaussian.c, tests/test_zcdp.c). */
void check_underflowed_lower(const char *method);

#endif
