/* mpfr_ref.c - MPFR reference evaluations for the tests. */
#include "mpfr_ref.h"

#include <math.h>
#include <mpfr.h>

#define PREC 512

/* Phi(x) = erfc(-x / sqrt 2) / 2, into r. */
static void ndtr(mpfr_t r, const mpfr_t x)
{
    mpfr_t s;
    mpfr_init2(s, PREC);
    mpfr_sqrt_ui(s, 2, MPFR_RNDN);
    mpfr_div(r, x, s, MPFR_RNDN);
    mpfr_neg(r, r, MPFR_RNDN);
    mpfr_erfc(r, r, MPFR_RNDN);
    mpfr_div_ui(r, r, 2, MPFR_RNDN);
    mpfr_clear(s);
}

/* log Phi(x) for x <= -1e4, where erfc underflows MPFR's exponent range,
 * by the asymptotic series -x^2/2 - log(-x) - log sqrt(2 pi)
 * + log(1 - 1/x^2 + 3/x^4 - 15/x^6); the omitted term is below 105/x^8. */
static double log_ndtr_asymptotic(double x)
{
    mpfr_t v, t, u;
    mpfr_inits2(PREC, v, t, u, (mpfr_ptr)0);
    mpfr_set_d(v, x, MPFR_RNDN);
    mpfr_sqr(t, v, MPFR_RNDN);            /* x^2 */
    mpfr_ui_div(u, 1, t, MPFR_RNDN);      /* 1/x^2 */
    mpfr_set_si(v, -15, MPFR_RNDN);       /* Horner: 1 - u + 3u^2 - 15u^3 */
    mpfr_mul(v, v, u, MPFR_RNDN);
    mpfr_add_ui(v, v, 3, MPFR_RNDN);
    mpfr_mul(v, v, u, MPFR_RNDN);
    mpfr_sub_ui(v, v, 1, MPFR_RNDN);
    mpfr_mul(v, v, u, MPFR_RNDN);
    mpfr_add_ui(v, v, 1, MPFR_RNDN);
    mpfr_log(v, v, MPFR_RNDN);
    mpfr_div_si(t, t, -2, MPFR_RNDN);
    mpfr_add(v, v, t, MPFR_RNDN);
    mpfr_set_d(t, -x, MPFR_RNDN);
    mpfr_log(t, t, MPFR_RNDN);
    mpfr_sub(v, v, t, MPFR_RNDN);
    mpfr_const_pi(t, MPFR_RNDN);
    mpfr_mul_ui(t, t, 2, MPFR_RNDN);
    mpfr_log(t, t, MPFR_RNDN);
    mpfr_div_ui(t, t, 2, MPFR_RNDN);
    mpfr_sub(v, v, t, MPFR_RNDN);
    double r = mpfr_get_d(v, MPFR_RNDN);
    mpfr_clears(v, t, u, (mpfr_ptr)0);
    return r;
}

double ref_log_ndtr(double x)
{
    if (x <= -1e4) return log_ndtr_asymptotic(x);
    mpfr_t v;
    mpfr_init2(v, PREC);
    /* for x > 0, log Phi(x) = log1p(-Phi(-x)): 1 - Phi(-x) would round to 1 */
    mpfr_set_d(v, -fabs(x), MPFR_RNDN);
    ndtr(v, v);
    if (x > 0.0) {
        mpfr_neg(v, v, MPFR_RNDN);
        mpfr_log1p(v, v, MPFR_RNDN);
    } else {
        mpfr_log(v, v, MPFR_RNDN);
    }
    double r = mpfr_get_d(v, MPFR_RNDN);
    mpfr_clear(v);
    return r;
}

double ref_log1mexp(double x)
{
    mpfr_t v;
    mpfr_init2(v, PREC);
    mpfr_set_d(v, x, MPFR_RNDN);
    if (x > -1.0) {                /* 1 - e^x = -expm1(x), exact for tiny x */
        mpfr_expm1(v, v, MPFR_RNDN);
        mpfr_neg(v, v, MPFR_RNDN);
        mpfr_log(v, v, MPFR_RNDN);
    } else {                       /* log1p(-e^x): 1 - e^x would round to 1 */
        mpfr_exp(v, v, MPFR_RNDN);
        mpfr_neg(v, v, MPFR_RNDN);
        mpfr_log1p(v, v, MPFR_RNDN);
    }
    double r = mpfr_get_d(v, MPFR_RNDN);
    mpfr_clear(v);
    return r;
}

static double log_combine(double a, double b, int subtract)
{
    mpfr_t x, y;
    mpfr_inits2(PREC, x, y, (mpfr_ptr)0);
    mpfr_set_d(x, a, MPFR_RNDN);
    mpfr_set_d(y, b, MPFR_RNDN);
    mpfr_exp(x, x, MPFR_RNDN);
    mpfr_exp(y, y, MPFR_RNDN);
    if (subtract) mpfr_sub(x, x, y, MPFR_RNDN); else mpfr_add(x, x, y, MPFR_RNDN);
    mpfr_log(x, x, MPFR_RNDN);
    double r = mpfr_get_d(x, MPFR_RNDN);
    mpfr_clears(x, y, (mpfr_ptr)0);
    return r;
}

double ref_log_add_exp(double a, double b) { return log_combine(a, b, 0); }
double ref_log_sub_exp(double a, double b) { return log_combine(a, b, 1); }

/* delta(eps) for mu-GDP into r, with mu and eps given exactly. */
static void gdp_delta(mpfr_t r, const mpfr_t mu, const mpfr_t eps)
{
    mpfr_t a, b, h, e;
    mpfr_inits2(PREC, a, b, h, e, (mpfr_ptr)0);
    mpfr_div(a, eps, mu, MPFR_RNDN);      /* eps/mu */
    mpfr_div_ui(h, mu, 2, MPFR_RNDN);     /* mu/2 */
    mpfr_sub(b, h, a, MPFR_RNDN);         /* a' = -eps/mu + mu/2 */
    mpfr_add(a, a, h, MPFR_RNDN);
    mpfr_neg(a, a, MPFR_RNDN);            /* b' = -eps/mu - mu/2 */
    ndtr(b, b);
    ndtr(a, a);
    mpfr_exp(e, eps, MPFR_RNDN);
    mpfr_mul(a, a, e, MPFR_RNDN);
    mpfr_sub(r, b, a, MPFR_RNDN);
    mpfr_clears(a, b, h, e, (mpfr_ptr)0);
}

double ref_gdp_delta(double mu, double eps)
{
    mpfr_t m, e, r;
    mpfr_inits2(PREC, m, e, r, (mpfr_ptr)0);
    mpfr_set_d(m, mu, MPFR_RNDN);
    mpfr_set_d(e, eps, MPFR_RNDN);
    gdp_delta(r, m, e);
    double d = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clears(m, e, r, (mpfr_ptr)0);
    return d;
}

double ref_gdp_log_delta(double mu, double eps)
{
    mpfr_t m, e, r;
    mpfr_inits2(PREC, m, e, r, (mpfr_ptr)0);
    mpfr_set_d(m, mu, MPFR_RNDN);
    mpfr_set_d(e, eps, MPFR_RNDN);
    gdp_delta(r, m, e);
    mpfr_log(r, r, MPFR_RNDN);
    double d = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clears(m, e, r, (mpfr_ptr)0);
    return d;
}

double ref_gdp_epsilon(double mu, double delta)
{
    mpfr_t m, lo, hi, mid, d, target;
    mpfr_inits2(PREC, m, lo, hi, mid, d, target, (mpfr_ptr)0);
    mpfr_set_d(m, mu, MPFR_RNDN);
    mpfr_set_d(target, delta, MPFR_RNDN);
    mpfr_set_ui(lo, 0, MPFR_RNDN);
    gdp_delta(d, m, lo);
    double result = 0.0;
    if (mpfr_cmp(d, target) > 0) {
        mpfr_set_ui(hi, 1, MPFR_RNDN);
        for (gdp_delta(d, m, hi); mpfr_cmp(d, target) > 0; gdp_delta(d, m, hi))
            mpfr_mul_ui(hi, hi, 2, MPFR_RNDN);
        /* 64 halvings: hi <= 2 eps at the start, so the bracket ends below 2^-63 eps */
        for (int i = 0; i < 64; i++) {
            mpfr_add(mid, lo, hi, MPFR_RNDN);
            mpfr_div_ui(mid, mid, 2, MPFR_RNDN);
            gdp_delta(d, m, mid);
            if (mpfr_cmp(d, target) > 0) mpfr_set(lo, mid, MPFR_RNDN);
            else mpfr_set(hi, mid, MPFR_RNDN);
        }
        result = mpfr_get_d(hi, MPFR_RNDN);
    }
    mpfr_clears(m, lo, hi, mid, d, target, (mpfr_ptr)0);
    return result;
}

double rel_err(double x, double ref)
{
    if (x == ref) return 0.0;
    return fabs(x - ref) / fabs(ref);
}

double ref_log_mills(double x)
{
    mpfr_t v, t;
    mpfr_inits2(PREC, v, t, (mpfr_ptr)0);
    mpfr_set_d(v, -x, MPFR_RNDN);
    ndtr(v, v);
    mpfr_log(v, v, MPFR_RNDN);
    mpfr_set_d(t, x, MPFR_RNDN);
    mpfr_sqr(t, t, MPFR_RNDN);
    mpfr_div_ui(t, t, 2, MPFR_RNDN);
    mpfr_add(v, v, t, MPFR_RNDN);          /* + x^2/2 */
    mpfr_const_pi(t, MPFR_RNDN);
    mpfr_mul_ui(t, t, 2, MPFR_RNDN);
    mpfr_log(t, t, MPFR_RNDN);
    mpfr_div_ui(t, t, 2, MPFR_RNDN);
    mpfr_add(v, v, t, MPFR_RNDN);          /* + log sqrt(2 pi) */
    double r = mpfr_get_d(v, MPFR_RNDN);
    mpfr_clears(v, t, (mpfr_ptr)0);
    return r;
}

static double sgm_divergence(double q, double sigma, double alpha, double power);

double ref_sgm_rdp(double q, double sigma, double alpha)
{
    return sgm_divergence(q, sigma, alpha, alpha);
}

double ref_sgm_rdp_reverse(double q, double sigma, double alpha)
{
    return sgm_divergence(q, sigma, alpha, 1.0 - alpha);
}

/* log(E_mu0[(mu/mu0)^power]) / (alpha - 1) by the trapezoidal rule. */
static double sgm_divergence(double q, double sigma, double alpha, double power)
{
    const mpfr_prec_t prec = 192;
    /* step: trapezoid error exp(-2 pi^2 sigma / h) for the singularities,
     * exp(-2 pi^2 / h^2) for the Gaussian factor; both below 1e-40 */
    double h = fmin(0.2 * sigma, 0.45);
    double lo = -45.0, hi = alpha / sigma + 45.0;
    long n = (long)ceil((hi - lo) / h);
    h = (hi - lo) / n;
    mpfr_t u, x, t, acc, mq, one_mq, s2, al;
    mpfr_inits2(prec, u, x, t, acc, mq, one_mq, s2, al, (mpfr_ptr)0);
    mpfr_set_d(mq, q, MPFR_RNDN);
    mpfr_ui_sub(one_mq, 1, mq, MPFR_RNDN);
    mpfr_set_d(s2, sigma, MPFR_RNDN);
    mpfr_set_d(al, power, MPFR_RNDN);
    mpfr_set_ui(acc, 0, MPFR_RNDN);
    for (long i = 0; i <= n; i++) {
        mpfr_set_d(u, lo, MPFR_RNDN);
        mpfr_set_d(t, h, MPFR_RNDN);
        mpfr_mul_si(t, t, i, MPFR_RNDN);
        mpfr_add(u, u, t, MPFR_RNDN);              /* u = lo + i h */
        /* x = (2 sigma u - 1) / (2 sigma^2) */
        mpfr_mul(x, u, s2, MPFR_RNDN);
        mpfr_mul_ui(x, x, 2, MPFR_RNDN);
        mpfr_sub_ui(x, x, 1, MPFR_RNDN);
        mpfr_div(x, x, s2, MPFR_RNDN);
        mpfr_div(x, x, s2, MPFR_RNDN);
        mpfr_div_ui(x, x, 2, MPFR_RNDN);
        mpfr_exp(x, x, MPFR_RNDN);
        mpfr_mul(x, x, mq, MPFR_RNDN);
        mpfr_add(x, x, one_mq, MPFR_RNDN);         /* 1 - q + q e^(...) */
        mpfr_log(x, x, MPFR_RNDN);
        mpfr_mul(x, x, al, MPFR_RNDN);             /* power log(...) */
        mpfr_sqr(t, u, MPFR_RNDN);
        mpfr_div_ui(t, t, 2, MPFR_RNDN);
        mpfr_sub(x, x, t, MPFR_RNDN);              /* - u^2 / 2 */
        mpfr_exp(x, x, MPFR_RNDN);
        if (i == 0 || i == n) mpfr_div_ui(x, x, 2, MPFR_RNDN);
        mpfr_add(acc, acc, x, MPFR_RNDN);
    }
    mpfr_set_d(t, h, MPFR_RNDN);
    mpfr_mul(acc, acc, t, MPFR_RNDN);
    mpfr_const_pi(t, MPFR_RNDN);
    mpfr_mul_ui(t, t, 2, MPFR_RNDN);
    mpfr_sqrt(t, t, MPFR_RNDN);
    mpfr_div(acc, acc, t, MPFR_RNDN);              /* / sqrt(2 pi) */
    mpfr_log(acc, acc, MPFR_RNDN);
    mpfr_div_d(acc, acc, alpha - 1.0, MPFR_RNDN);
    double r = mpfr_get_d(acc, MPFR_RNDN);
    mpfr_clears(u, x, t, acc, mq, one_mq, s2, al, (mpfr_ptr)0);
    return r;
}
