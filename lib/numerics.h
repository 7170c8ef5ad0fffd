/*
 * numerics.h - numerical building blocks shared by every accountant.
 * Each is tested against MPFR in tests/test_numerics.c.
 */
#ifndef DPACCT_NUMERICS_H
#define DPACCT_NUMERICS_H

#include <stddef.h>

/* log(e^a + e^b) without overflow; -inf arguments are allowed. */
double dpa_log_add_exp(double a, double b);
/* log(sum_i e^{x_i}); -inf for n == 0. */
double dpa_log_sum_exp(const double *x, size_t n);
/* log(1 - e^x) for x <= 0, accurate for x near 0 and for x -> -inf
 * (Maechler 2012, "Accurately computing log(1 - exp(-|a|))"). NaN for x > 0. */
double dpa_log1mexp(double x);
/* log(e^a - e^b) for a >= b; -inf when a == b; NaN when a < b. */
double dpa_log_sub_exp(double a, double b);
/* log Phi(x), Phi the standard normal CDF, accurate to a few ulps in
 * relative terms for all x (and absolutely for x > 0, where it is -Phi(-x)). */
double dpa_log_ndtr(double x);
/* log R(x) of the Mills ratio R(x) = (1 - Phi(x)) / phi(x), for x >= 2
 * (NaN below); log Phi(-x) = log R(x) - x^2/2 - log sqrt(2 pi). */
double dpa_log_mills(double x);
/* log(1 - Phi(x)) = log Phi(-x). */
double dpa_log_ndtr_upper(double x);

/* A bracketing root finder (Brent 1973, "Algorithms for minimization
 * without derivatives", ch. 4).  f(lo) and f(hi) must have opposite signs
 * (a zero at either end is accepted).  On success the bracket is returned
 * as two points on the same sides as lo and hi: f(root->at_lo_side) has the
 * sign of f(lo), f(root->at_hi_side) the sign of f(hi) (or is zero), and
 * |at_hi_side - at_lo_side| <= abs_tol + rel_tol * |x| + 4 ulp.
 * Returns DPA_ENOBRACKET when the signs agree, DPA_EACCURACY when f gives
 * NaN or max_iter is exhausted; it never returns a point it has not
 * verified. */
typedef double (*dpa_scalar_fn)(double x, void *ctx);
typedef struct dpa_root {
    double at_lo_side, at_hi_side;  /* final bracket */
    double f_lo_side, f_hi_side;    /* f at those points */
    unsigned evaluations;
} dpa_root;
int dpa_find_root(dpa_scalar_fn f, void *ctx, double lo, double hi, double abs_tol,
                  double rel_tol, unsigned max_iter, dpa_root *root);

/* A compensated (Neumaier) running sum: adding many terms keeps the total
 * exact to a few ulps, which the certified brackets' input pads assume. */
typedef struct dpa_sum { double sum, compensation; } dpa_sum;
void dpa_sum_add(dpa_sum *s, double x);
double dpa_sum_value(const dpa_sum *s);

/* Turn off GSL's aborting error handler (once per process, thread-safe;
 * called by every entry point that uses GSL routines able to raise an
 * error). */
void dpa_gsl_quiet(void);

/* exp(log_x) for an upper bound: never 0 when log_x is finite (a positive
 * value below the double range is reported as the smallest positive double,
 * not as 0, which would lie below it), and at most 1. */
double dpa_exp_upper(double log_x);

/* An upper bound on a quantity known to be positive (1/sigma^2 of finite
 * noise, mu^2 of a mu > 0, eps^2/2 of an eps > 0) computed with one final
 * rounding: x itself in the normal range; below it x + DBL_TRUE_MIN, so
 * that the last (absolute) rounding is covered and an underflow to 0,
 * which would claim exact privacy, becomes the smallest positive double.
 * NaN and inf pass through. */
double dpa_positive_up(double x);

#endif
