/* numerics.c - log-space arithmetic, the normal CDF in the tails, root finding. */
#include "numerics.h"
#include "dpacct.h"

#include <float.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <pthread.h>

double dpa_log_add_exp(double a, double b)
{
    if (isnan(a) || isnan(b)) return NAN;
    double hi = a > b ? a : b, lo = a > b ? b : a;
    if (hi == -INFINITY) return -INFINITY;
    if (hi == INFINITY) return INFINITY;
    return hi + log1p(exp(lo - hi));
}

double dpa_log_sum_exp(const double *x, size_t n)
{
    double hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i])) return NAN;
        if (x[i] > hi) hi = x[i];
    }
    if (hi == -INFINITY || hi == INFINITY) return hi;
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += exp(x[i] - hi);
    return hi + log(s);
}

double dpa_log1mexp(double x)
{
    if (!(x <= 0.0)) return NAN;
    /* Maechler's switch at -log 2 keeps both branches free of cancellation. */
    return x > -M_LN2 ? log(-expm1(x)) : log1p(-exp(x));
}

double dpa_log_sub_exp(double a, double b)
{
    if (isnan(a) || isnan(b) || b > a) return NAN;
    if (b == -INFINITY) return a;
    if (a == b) return -INFINITY;
    return a + dpa_log1mexp(b - a);
}

/* The double nearest 1/sqrt(2) and its error, so that x/sqrt(2) can be
 * formed to twice double precision: sqrt(0.5) = M_SQRT1_2 + SQRT1_2_LO. */
#define SQRT1_2_LO (-4.8336466567264567e-17)

/* Phi(x) for -20 <= x <= 0 from erfc, as a value and the first-order
 * correction of its logarithm.  The argument y = -x/sqrt(2) cannot be
 * represented exactly; its rounding error dy would cost a relative error
 * 2 y dy ~ x^2 ulp in erfc, so it is corrected with
 * d/dy log erfc(y) = -(2/sqrt(pi)) exp(-y^2) / erfc(y). */
static double ndtr_mid(double x, double *log_correction)
{
    double y = -x * M_SQRT1_2;
    double dy = fma(-x, M_SQRT1_2, -y) + (-x) * SQRT1_2_LO;
    double ec = erfc(y);
    *log_correction = -M_2_SQRTPI * exp(-y * y) / ec * dy;
    return 0.5 * ec;
}

/* log of the Mills ratio R(x) = (1 - Phi(x)) / phi(x) for x >= 2.
 *
 * Below x = 5 from erfc: R(x) = sqrt(pi/2) erfc(y) e^{y^2}, y = x/sqrt(2),
 * with y's rounding corrected as in ndtr_mid and x^2 split exactly.  The
 * continued fraction needs 32-150 divisions there (one dependent chain:
 * it was the largest single cost of the PLD's single steps); this route
 * loses the rounding of log erfc(y) (|log erfc| < 15) against R's own
 * magnitude (|log R| > 0.7): measured against MPFR, 7e-16 relative
 * (tests/test_numerics.c asserts 1e-14), and the analytic Gaussian's delta
 * went from 4.0e-14 to 4.7e-14 relative (tests/test_gaussian.c).  Up to
 * x = 10 it would save a little more but cost that delta a factor 8.
 *
 * From x = 5 by Laplace's continued fraction R(x) = 1/(x+ 1/(x+ 2/(x+
 * 3/(x+ ...)))), evaluated backwards, deep enough that deeper does not
 * change the double (measured: 25 terms at 4.9, 10 at 12; the depth rule
 * keeps >= 25% more). */
double dpa_log_mills(double x)
{
    if (!(x >= 2.0)) return NAN;
    if (x == INFINITY) return -INFINITY;
    if (x < 5.0) {
        double corr, p = ndtr_mid(-x, &corr);   /* Phibar(x) = Phi(-x) */
        double hi = x * x, lo = fma(x, x, -hi);
        return (log(p) + 0.5 * hi) + (0.5 * lo + corr + 0.5 * log(2.0 * M_PI));
    }
    int depth = 10 + (int)(560.0 / (x * x));
    double t = x;
    for (int k = depth; k >= 1; k--) t = x + k / t;
    return -log(t);
}

/* exp(-x^2/2) with x^2 split exactly (fma) into hi + lo, so that the
 * rounding of x^2, worth x^2 ulp after exponentiation, is not lost. */
static double exp_half_square(double x)
{
    double hi = x * x, lo = fma(x, x, -hi);
    return exp(-0.5 * hi) * (1.0 - 0.5 * lo);
}

/* Phi(x) for x <= 0 to a few ulps relative (subnormal below x = -37.5). */
static double ndtr_lower(double x)
{
    if (x < -40.0) return 0.0; /* below the smallest subnormal */
    if (x >= -20.0) {
        double corr, p = ndtr_mid(x, &corr);
        return p * (1.0 + corr);
    }
    return exp_half_square(x) / sqrt(2.0 * M_PI) * exp(dpa_log_mills(-x));
}

double dpa_log_ndtr(double x)
{
    if (isnan(x)) return NAN;
    if (x > 0.0) return log1p(-ndtr_lower(-x));  /* log(1 - Phi(-x)) */
    if (x >= -20.0) {
        double corr, p = ndtr_mid(x, &corr);
        return log(p) + corr;
    }
    /* Phi(x) = phi(x) R(-x); x*x/2 is exact to one rounding, far below
     * one ulp of the result's magnitude. */
    return -0.5 * x * x - 0.5 * log(2.0 * M_PI) + dpa_log_mills(-x);
}

double dpa_log_ndtr_upper(double x)
{
    return dpa_log_ndtr(-x);
}

static int same_sign(double a, double b)
{
    return (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0);
}

int dpa_find_root(dpa_scalar_fn f, void *ctx, double lo, double hi, double abs_tol,
                  double rel_tol, unsigned max_iter, dpa_root *root)
{
    double a = lo, b = hi, fa = f(a, ctx), fb = f(b, ctx);
    unsigned evals = 2;
    root->evaluations = evals;
    if (isnan(fa) || isnan(fb)) return DPA_EACCURACY;
    if (same_sign(fa, fb)) return DPA_ENOBRACKET;
    const int lo_positive = fa > 0.0 || (fa == 0.0 && fb < 0.0);

    double c = a, fc = fa, d = b - a, e = d;
    for (;;) {
        if (same_sign(fb, fc)) { c = a; fc = fa; d = e = b - a; }
        if (fabs(fc) < fabs(fb)) { a = b; b = c; c = a; fa = fb; fb = fc; fc = fa; }
        double tol = 2.0 * DBL_EPSILON * fabs(b) + 0.5 * (abs_tol + rel_tol * fabs(b));
        double m = 0.5 * (c - b);
        if (fabs(m) <= tol || fb == 0.0) break;
        if (evals >= max_iter) { root->evaluations = evals; return DPA_EACCURACY; }
        if (fabs(e) < tol || fabs(fa) <= fabs(fb)) {
            d = e = m;                                   /* bisection */
        } else {
            double s = fb / fa, p, q;
            if (a == c) {                                /* secant */
                p = 2.0 * m * s; q = 1.0 - s;
            } else {                                     /* inverse quadratic */
                double qq = fa / fc, r = fb / fc;
                p = s * (2.0 * m * qq * (qq - r) - (b - a) * (r - 1.0));
                q = (qq - 1.0) * (r - 1.0) * (s - 1.0);
            }
            if (p > 0.0) q = -q; else p = -p;
            if (2.0 * p < 3.0 * m * q - fabs(tol * q) && p < fabs(0.5 * e * q)) {
                e = d; d = p / q;
            } else {
                d = e = m;
            }
        }
        a = b; fa = fb;
        b += fabs(d) > tol ? d : (m > 0.0 ? tol : -tol);
        fb = f(b, ctx);
        evals++;
        if (isnan(fb)) { root->evaluations = evals; return DPA_EACCURACY; }
    }
    /* The root lies between b and c (c == b when fb == 0). */
    if (fb == 0.0) c = b, fc = fb;
    int b_positive = fb > 0.0 || (fb == 0.0 && !lo_positive);
    if (b_positive == lo_positive) {
        root->at_lo_side = b; root->f_lo_side = fb;
        root->at_hi_side = c; root->f_hi_side = fc;
    } else {
        root->at_lo_side = c; root->f_lo_side = fc;
        root->at_hi_side = b; root->f_hi_side = fb;
    }
    if (fb == 0.0) { root->at_lo_side = root->at_hi_side = b; root->f_lo_side = root->f_hi_side = 0.0; }
    root->evaluations = evals;
    return DPA_OK;
}

/* gsl_set_error_handler_off writes GSL's global handler: done once, so that
 * accountants running in several threads do not race on it. */
static pthread_once_t gsl_quiet_once = PTHREAD_ONCE_INIT;

static void gsl_quiet_now(void)
{
    gsl_set_error_handler_off();
}

void dpa_gsl_quiet(void)
{
    pthread_once(&gsl_quiet_once, gsl_quiet_now);
}

void dpa_sum_add(dpa_sum *s, double x)
{
    double t = s->sum + x;
    if (!isfinite(t)) {
        /* An infinite (or NaN) total has no rounding error to track, and the
         * compensation below would turn inf - inf into NaN, which a caller's
         * fmax(0, .) could then turn into a bound of 0. */
        s->sum = t;
        s->compensation = 0.0;
        return;
    }
    if (fabs(s->sum) >= fabs(x)) s->compensation += (s->sum - t) + x;
    else s->compensation += (x - t) + s->sum;
    s->sum = t;
}

double dpa_sum_value(const dpa_sum *s)
{
    return s->sum + s->compensation;
}

double dpa_positive_up(double x)
{
    /* below DBL_MIN the last rounding (at most half of DBL_TRUE_MIN) is not
     * relative any more: one DBL_TRUE_MIN more covers it, and makes an
     * underflow to 0 the smallest positive double */
    return x >= 0.0 && x < DBL_MIN ? x + DBL_TRUE_MIN : x;
}

double dpa_exp_upper(double log_x)
{
    if (log_x == -INFINITY) return 0.0;
    return fmin(1.0, fmax(exp(log_x), nextafter(0.0, 1.0)));
}
