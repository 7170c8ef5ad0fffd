/* mpfr_ref.c - MPFR reference evaluations for the tests. */
#include "mpfr_ref.h"

#include <math.h>
#include <mpfr.h>
#include <stdlib.h>

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

/* ---- NoisyCGD ------------------------------------------------------------------ */

double ref_noisy_cgd_mu(double s_over_sigma, double x, unsigned long k, unsigned long E)
{
    mpfr_t c, ck, ckE, a, b, t;
    mpfr_inits2(256, c, ck, ckE, a, b, t, (mpfr_ptr)0);
    mpfr_set_d(c, x, MPFR_RNDN);
    mpfr_ui_sub(c, 1, c, MPFR_RNDN);                 /* c = 1 - x, exact */
    mpfr_pow_ui(ck, c, k, MPFR_RNDN);
    mpfr_pow_ui(ckE, ck, E - 1, MPFR_RNDN);          /* c^{k(E-1)} */
    mpfr_pow_ui(a, c, 2 * k - 2, MPFR_RNDN);         /* c^{2k-2} */
    mpfr_sqr(t, c, MPFR_RNDN);
    mpfr_ui_sub(t, 1, t, MPFR_RNDN);
    mpfr_mul(a, a, t, MPFR_RNDN);                    /* c^{2k-2} (1 - c^2) */
    mpfr_ui_sub(t, 1, ck, MPFR_RNDN);
    mpfr_sqr(t, t, MPFR_RNDN);
    mpfr_div(a, a, t, MPFR_RNDN);                    /* / (1 - c^k)^2 */
    mpfr_ui_sub(t, 1, ckE, MPFR_RNDN);
    mpfr_add_ui(b, ckE, 1, MPFR_RNDN);
    mpfr_div(t, t, b, MPFR_RNDN);
    mpfr_mul(a, a, t, MPFR_RNDN);
    mpfr_add_ui(a, a, 1, MPFR_RNDN);
    mpfr_sqrt(a, a, MPFR_RNDN);
    mpfr_mul_d(a, a, s_over_sigma, MPFR_RNDN);
    double out = mpfr_get_d(a, MPFR_RNDN);
    mpfr_clears(c, ck, ckE, a, b, t, (mpfr_ptr)0);
    return out;
}

/* ---- shuffling ------------------------------------------------------------------- */

double ref_shuffle_delta(double eps0, unsigned long n, double eps)
{
    return ref_clones_delta(eps0, n, 0, eps);
}

/* The clone probability of the class at 256 bits: 2/(e^eps0 + 1) (class 1)
 * or e^-eps0 (class 0). */
static void clone_probability(mpfr_t p, double eps0, int cls)
{
    mpfr_t t;
    mpfr_init2(t, 256);
    mpfr_set_d(t, eps0, MPFR_RNDN);
    if (cls == 1) {
        mpfr_exp(t, t, MPFR_RNDN);
        mpfr_add_ui(t, t, 1, MPFR_RNDN);
        mpfr_ui_div(p, 2, t, MPFR_RNDN);
    } else {
        mpfr_neg(t, t, MPFR_RNDN);
        mpfr_exp(p, t, MPFR_RNDN);
    }
    mpfr_clear(t);
}

/* a = e^eps0 / (e^eps0 + 1) = 1/(1 + e^-eps0): the pair's mixing weight. */
static void clones_mixing(mpfr_t al, double eps0)
{
    mpfr_set_d(al, -eps0, MPFR_RNDN);
    mpfr_exp(al, al, MPFR_RNDN);
    mpfr_add_ui(al, al, 1, MPFR_RNDN);
    mpfr_ui_div(al, 1, al, MPFR_RNDN);
}

double ref_clones_delta(double eps0, unsigned long n, int cls, double eps)
{
    mpfr_t p, q1, al, ee, w, b0, b1, row_prev, pk, qk, acc, t, ratio;
    mpfr_inits2(256, p, q1, al, ee, w, b0, b1, row_prev, pk, qk, acc, t, ratio, (mpfr_ptr)0);
    clone_probability(p, eps0, cls);
    mpfr_ui_sub(q1, 1, p, MPFR_RNDN);                 /* 1 - p */
    clones_mixing(al, eps0);
    mpfr_set_d(ee, eps, MPFR_RNDN);
    mpfr_exp(ee, ee, MPFR_RNDN);
    mpfr_set_ui(acc, 0, MPFR_RNDN);
    mpfr_pow_ui(w, q1, n - 1, MPFR_RNDN);             /* Pr(C = 0) */
    mpfr_div(ratio, p, q1, MPFR_RNDN);
    /* binomial row of Bin(c, 1/2), grown one c at a time */
    mpfr_t *row = malloc((n + 1) * sizeof *row);
    for (unsigned long i = 0; i <= n; i++) {
        mpfr_init2(row[i], 256);
        mpfr_set_ui(row[i], 0, MPFR_RNDN);
    }
    mpfr_set_ui(row[0], 1, MPFR_RNDN);
    for (unsigned long c = 0; c < n; c++) {
        if (c > 0) {                                   /* row_c from row_{c-1}: Pascal, halved */
            for (unsigned long k = c; k >= 1; k--) {
                mpfr_add(row[k], row[k], row[k - 1], MPFR_RNDN);
                mpfr_div_ui(row[k], row[k], 2, MPFR_RNDN);
            }
            mpfr_div_ui(row[0], row[0], 2, MPFR_RNDN);
        }
        mpfr_set_ui(t, 0, MPFR_RNDN);                  /* sum_k (P - e^eps Q)_+ */
        for (unsigned long k = 0; k <= c + 1; k++) {
            if (k <= c) mpfr_set(b0, row[k], MPFR_RNDN); else mpfr_set_ui(b0, 0, MPFR_RNDN);
            if (k >= 1) mpfr_set(b1, row[k - 1], MPFR_RNDN); else mpfr_set_ui(b1, 0, MPFR_RNDN);
            mpfr_ui_sub(row_prev, 1, al, MPFR_RNDN);   /* 1 - alpha */
            mpfr_mul(pk, al, b0, MPFR_RNDN);
            mpfr_fma(pk, row_prev, b1, pk, MPFR_RNDN); /* alpha b(k) + (1-alpha) b(k-1) */
            mpfr_mul(qk, row_prev, b0, MPFR_RNDN);
            mpfr_fma(qk, al, b1, qk, MPFR_RNDN);       /* (1-alpha) b(k) + alpha b(k-1) */
            mpfr_mul(qk, qk, ee, MPFR_RNDN);
            mpfr_sub(pk, pk, qk, MPFR_RNDN);
            if (mpfr_sgn(pk) > 0) mpfr_add(t, t, pk, MPFR_RNDN);
        }
        mpfr_fma(acc, w, t, acc, MPFR_RNDN);
        /* Pr(C = c + 1) = Pr(C = c) (n - 1 - c)/(c + 1) p/(1 - p) */
        mpfr_mul_ui(w, w, n - 1 - c, MPFR_RNDN);
        mpfr_div_ui(w, w, c + 1, MPFR_RNDN);
        mpfr_mul(w, w, ratio, MPFR_RNDN);
    }
    double out = mpfr_get_d(acc, MPFR_RNDN);
    for (unsigned long i = 0; i <= n; i++) mpfr_clear(row[i]);
    free(row);
    mpfr_clears(p, q1, al, ee, w, b0, b1, row_prev, pk, qk, acc, t, ratio, (mpfr_ptr)0);
    return out;
}

/* sum over c of Bin(n-1, p)(c) H_c, H_c = sum_{k <= c+1} (P_c(k) - e^eps Q_c(k))_+
 * with P_c(k) = a b(k) + (1-a) b(k-1), Q_c(k) = (1-a) b(k) + a b(k-1): the
 * positive terms are those with k <= kappa, so the sum runs from k = 0 up
 * and stops at the first non-positive term. */
double ref_shuffle_delta_window(double eps0, unsigned long n, double eps)
{
    mpfr_t p, q, al, oma, ee, w, lw, b, bprev, term, qq, h, acc, t;
    mpfr_inits2(200, p, q, al, oma, ee, w, lw, b, bprev, term, qq, h, acc, t, (mpfr_ptr)0);
    mpfr_set_d(p, -eps0, MPFR_RNDN);
    mpfr_exp(p, p, MPFR_RNDN);
    mpfr_ui_sub(q, 1, p, MPFR_RNDN);
    mpfr_add_ui(al, p, 1, MPFR_RNDN);
    mpfr_ui_div(al, 1, al, MPFR_RNDN);               /* alpha = 1/(1 + e^-eps0) */
    mpfr_ui_sub(oma, 1, al, MPFR_RNDN);
    mpfr_set_d(ee, eps, MPFR_RNDN);
    mpfr_exp(ee, ee, MPFR_RNDN);
    mpfr_set_ui(acc, 0, MPFR_RNDN);
    unsigned long N = n - 1;
    double pd = exp(-eps0), sd = sqrt((double)N * pd * (1.0 - pd));
    double clo = floor((double)N * pd - 16.0 * sd), chi = ceil((double)N * pd + 16.0 * sd);
    unsigned long lo = clo < 0 ? 0 : (unsigned long)clo, hi = chi > (double)N ? N : (unsigned long)chi;
    for (unsigned long c = lo; c <= hi; c++) {
        /* w = Bin(N, p)(c) from lngamma */
        mpfr_set_ui(lw, N + 1, MPFR_RNDN);
        mpfr_lngamma(lw, lw, MPFR_RNDN);
        mpfr_set_ui(t, c + 1, MPFR_RNDN);
        mpfr_lngamma(t, t, MPFR_RNDN);
        mpfr_sub(lw, lw, t, MPFR_RNDN);
        mpfr_set_ui(t, N - c + 1, MPFR_RNDN);
        mpfr_lngamma(t, t, MPFR_RNDN);
        mpfr_sub(lw, lw, t, MPFR_RNDN);
        mpfr_log(t, p, MPFR_RNDN);
        mpfr_mul_ui(t, t, c, MPFR_RNDN);
        mpfr_add(lw, lw, t, MPFR_RNDN);
        mpfr_log(t, q, MPFR_RNDN);
        mpfr_mul_ui(t, t, N - c, MPFR_RNDN);
        mpfr_add(lw, lw, t, MPFR_RNDN);
        mpfr_exp(w, lw, MPFR_RNDN);
        /* H_c, k from 0 up with b(k) by the ratio */
        mpfr_set_ui(h, 0, MPFR_RNDN);
        mpfr_set_ui(b, 1, MPFR_RNDN);
        mpfr_div_2ui(b, b, c, MPFR_RNDN);             /* b(0) = 2^-c */
        mpfr_set_ui(bprev, 0, MPFR_RNDN);
        for (unsigned long k = 0; k <= c + 1; k++) {
            mpfr_mul(term, al, b, MPFR_RNDN);
            mpfr_fma(term, oma, bprev, term, MPFR_RNDN);   /* P_c(k) */
            mpfr_mul(qq, oma, b, MPFR_RNDN);
            mpfr_fma(qq, al, bprev, qq, MPFR_RNDN);        /* Q_c(k) */
            mpfr_mul(qq, qq, ee, MPFR_RNDN);
            mpfr_sub(term, term, qq, MPFR_RNDN);
            if (mpfr_sgn(term) <= 0) break;
            mpfr_add(h, h, term, MPFR_RNDN);
            mpfr_set(bprev, b, MPFR_RNDN);                 /* b(k+1) = b(k) (c - k)/(k + 1) */
            if (k < c) {
                mpfr_mul_ui(b, b, c - k, MPFR_RNDN);
                mpfr_div_ui(b, b, k + 1, MPFR_RNDN);
            } else {
                mpfr_set_ui(b, 0, MPFR_RNDN);
            }
        }
        mpfr_fma(acc, w, h, acc, MPFR_RNDN);
    }
    double out = mpfr_get_d(acc, MPFR_RNDN);
    mpfr_clears(p, q, al, oma, ee, w, lw, b, bprev, term, qq, h, acc, t, (mpfr_ptr)0);
    return out;
}

/* ---- hockey-stick references for the PLD pairs ------------------------------ */

#include <stdlib.h>

#define RPREC 256

enum { REF_ATOMS, REF_LAPLACE, REF_REPLACE };

struct ref_pair {
    int kind;
    /* atoms */
    long n;
    mpfr_t *loss, *p, *q;
    /* continuous: parameter, Lebeda's q, and a Poisson-sampling wrapper
     * (world 0: none, 1: remove, 2: add) with rate wq */
    double b, lq, wq;
    int world;
};

/* out = q a + (1 - q) b, with 1 - q formed in MPFR (exact) */
static void mix(mpfr_t out, const mpfr_t a, const mpfr_t b, double q)
{
    mpfr_t w, t;
    mpfr_inits2(RPREC, w, t, (mpfr_ptr)0);
    mpfr_set_d(w, q, MPFR_RNDN);
    mpfr_ui_sub(w, 1, w, MPFR_RNDN);
    mpfr_mul(t, b, w, MPFR_RNDN);
    mpfr_mul_d(out, a, q, MPFR_RNDN);
    mpfr_add(out, out, t, MPFR_RNDN);
    mpfr_clears(w, t, (mpfr_ptr)0);
}

static ref_pair *atoms_new(long n)
{
    ref_pair *r = calloc(1, sizeof *r);
    r->kind = REF_ATOMS;
    r->n = n;
    r->loss = malloc(n * sizeof *r->loss);
    r->p = malloc(n * sizeof *r->p);
    r->q = malloc(n * sizeof *r->q);
    for (long i = 0; i < n; i++) {
        mpfr_init2(r->loss[i], RPREC);
        mpfr_init2(r->p[i], RPREC);
        mpfr_init2(r->q[i], RPREC);
    }
    return r;
}

void ref_pair_free(ref_pair *r)
{
    if (!r) return;
    if (r->kind == REF_ATOMS) {
        for (long i = 0; i < r->n; i++) mpfr_clears(r->loss[i], r->p[i], r->q[i], (mpfr_ptr)0);
        free(r->loss);
        free(r->p);
        free(r->q);
    }
    free(r);
}

/* loss = log p - log q, +-inf where one of them is 0 */
static void set_loss(mpfr_t loss, const mpfr_t p, const mpfr_t q)
{
    if (mpfr_zero_p(q)) { mpfr_set_inf(loss, 1); return; }
    if (mpfr_zero_p(p)) { mpfr_set_inf(loss, -1); return; }
    mpfr_t t;
    mpfr_init2(t, RPREC);
    mpfr_div(t, p, q, MPFR_RNDN);
    mpfr_log(loss, t, MPFR_RNDN);
    mpfr_clear(t);
}

/* Divide the masses by their sums (the normalisers, summed over the window). */
static void normalise(ref_pair *r)
{
    mpfr_t sp, sq;
    mpfr_inits2(RPREC, sp, sq, (mpfr_ptr)0);
    mpfr_set_ui(sp, 0, MPFR_RNDN);
    mpfr_set_ui(sq, 0, MPFR_RNDN);
    for (long i = 0; i < r->n; i++) {
        mpfr_add(sp, sp, r->p[i], MPFR_RNDN);
        mpfr_add(sq, sq, r->q[i], MPFR_RNDN);
    }
    for (long i = 0; i < r->n; i++) {
        mpfr_div(r->p[i], r->p[i], sp, MPFR_RNDN);
        mpfr_div(r->q[i], r->q[i], sq, MPFR_RNDN);
    }
    mpfr_clears(sp, sq, (mpfr_ptr)0);
}

/* k outputs; input 0 against input 1, each reporting the truth w.p. e^eps/(e^eps+k-1). */
ref_pair *ref_pair_rr(double eps, unsigned k)
{
    ref_pair *r = atoms_new(k);
    mpfr_t e;
    mpfr_init2(e, RPREC);
    mpfr_set_d(e, eps, MPFR_RNDN);
    mpfr_exp(e, e, MPFR_RNDN);
    for (unsigned j = 0; j < k; j++) {
        if (j == 0) mpfr_set(r->p[j], e, MPFR_RNDN); else mpfr_set_ui(r->p[j], 1, MPFR_RNDN);
        if (j == 1) mpfr_set(r->q[j], e, MPFR_RNDN); else mpfr_set_ui(r->q[j], 1, MPFR_RNDN);
        /* exact losses, so that eps at an atom is compared exactly */
        if (j == 0) mpfr_set_d(r->loss[j], eps, MPFR_RNDN);
        else if (j == 1) mpfr_set_d(r->loss[j], -eps, MPFR_RNDN);
        else mpfr_set_ui(r->loss[j], 0, MPFR_RNDN);
    }
    normalise(r);
    mpfr_clear(e);
    return r;
}

/* integers x in [-w, k + w], P(x) ~ e^{-|x-k|/t}, Q(x) ~ e^{-|x|/t};
 * w = 200 t + 2 leaves out e^{-200} of each */
ref_pair *ref_pair_dlap(double t, unsigned k)
{
    long w = (long)ceil(200.0 * t) + 2, n = 2 * w + k + 1;
    ref_pair *r = atoms_new(n);
    for (long i = 0; i < n; i++) {
        long x = i - w;
        mpfr_set_si(r->p[i], -labs(x - (long)k), MPFR_RNDN);
        mpfr_div_d(r->p[i], r->p[i], t, MPFR_RNDN);
        mpfr_exp(r->p[i], r->p[i], MPFR_RNDN);
        mpfr_set_si(r->q[i], -labs(x), MPFR_RNDN);
        mpfr_div_d(r->q[i], r->q[i], t, MPFR_RNDN);
        mpfr_exp(r->q[i], r->q[i], MPFR_RNDN);
        mpfr_set_si(r->loss[i], labs(x) - labs(x - (long)k), MPFR_RNDN);
        mpfr_div_d(r->loss[i], r->loss[i], t, MPFR_RNDN);
    }
    normalise(r);
    return r;
}

/* integers x in [-w, k + w], P(x) ~ e^{-(x-k)^2/(2 s^2)}, Q(x) ~ e^{-x^2/(2 s^2)};
 * w = 45 s + 2 leaves out e^{-1000} of each */
ref_pair *ref_pair_dgauss(double s, unsigned k)
{
    long w = (long)ceil(45.0 * s) + 2, n = 2 * w + k + 1;
    ref_pair *r = atoms_new(n);
    mpfr_t v;
    mpfr_init2(v, RPREC);
    mpfr_set_d(v, s, MPFR_RNDN);
    mpfr_sqr(v, v, MPFR_RNDN);
    mpfr_mul_ui(v, v, 2, MPFR_RNDN);                 /* 2 s^2 */
    for (long i = 0; i < n; i++) {
        long x = i - w;
        mpfr_set_si(r->p[i], (x - (long)k) * (x - (long)k), MPFR_RNDN);
        mpfr_div(r->p[i], r->p[i], v, MPFR_RNDN);
        mpfr_neg(r->p[i], r->p[i], MPFR_RNDN);
        mpfr_exp(r->p[i], r->p[i], MPFR_RNDN);
        mpfr_set_si(r->q[i], x * x, MPFR_RNDN);
        mpfr_div(r->q[i], r->q[i], v, MPFR_RNDN);
        mpfr_neg(r->q[i], r->q[i], MPFR_RNDN);
        mpfr_exp(r->q[i], r->q[i], MPFR_RNDN);
        mpfr_set_si(r->loss[i], x * x - (x - (long)k) * (x - (long)k), MPFR_RNDN);
        mpfr_div(r->loss[i], r->loss[i], v, MPFR_RNDN);
    }
    normalise(r);
    mpfr_clear(v);
    return r;
}

/* Kairouz-Oh-Viswanath: P = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0), Q reversed. */
ref_pair *ref_pair_epsdelta(double eps, double delta)
{
    ref_pair *r = atoms_new(4);
    mpfr_t e, d1;
    mpfr_inits2(RPREC, e, d1, (mpfr_ptr)0);
    mpfr_set_d(e, eps, MPFR_RNDN);
    mpfr_exp(e, e, MPFR_RNDN);
    mpfr_set_d(d1, delta, MPFR_RNDN);
    mpfr_ui_sub(d1, 1, d1, MPFR_RNDN);               /* 1 - delta */
    mpfr_set_d(r->p[0], delta, MPFR_RNDN);
    mpfr_set_ui(r->q[0], 0, MPFR_RNDN);
    mpfr_set_ui(r->p[3], 0, MPFR_RNDN);
    mpfr_set_d(r->q[3], delta, MPFR_RNDN);
    mpfr_add_ui(r->p[1], e, 1, MPFR_RNDN);            /* 1 + e^eps */
    mpfr_div(r->q[1], d1, r->p[1], MPFR_RNDN);        /* (1-delta)/(1+e^eps) */
    mpfr_mul(r->p[1], r->q[1], e, MPFR_RNDN);
    mpfr_set(r->p[2], r->q[1], MPFR_RNDN);
    mpfr_set(r->q[2], r->p[1], MPFR_RNDN);
    mpfr_set_inf(r->loss[0], 1);
    mpfr_set_d(r->loss[1], eps, MPFR_RNDN);
    mpfr_set_d(r->loss[2], -eps, MPFR_RNDN);
    mpfr_set_inf(r->loss[3], -1);
    mpfr_clears(e, d1, (mpfr_ptr)0);
    return r;
}

ref_pair *ref_pair_laplace(double b)
{
    ref_pair *r = calloc(1, sizeof *r);
    r->kind = REF_LAPLACE;
    r->b = b;
    return r;
}

ref_pair *ref_pair_replace_gaussian(double s, double q)
{
    ref_pair *r = calloc(1, sizeof *r);
    r->kind = REF_REPLACE;
    r->b = s;
    r->lq = q;
    return r;
}

ref_pair *ref_pair_sampled(const ref_pair *in, double q, int add_world)
{
    if (in->kind != REF_ATOMS) {
        ref_pair *r = calloc(1, sizeof *r);
        *r = *in;
        r->world = add_world ? 2 : 1;
        r->wq = q;
        return r;
    }
    ref_pair *r = atoms_new(in->n);
    mpfr_t m;
    mpfr_init2(m, RPREC);
    for (long i = 0; i < in->n; i++) {
        mix(m, in->p[i], in->q[i], q);
        if (add_world) {
            mpfr_set(r->p[i], in->q[i], MPFR_RNDN);
            mpfr_set(r->q[i], m, MPFR_RNDN);
        } else {
            mpfr_set(r->p[i], m, MPFR_RNDN);
            mpfr_set(r->q[i], in->q[i], MPFR_RNDN);
        }
        set_loss(r->loss[i], r->p[i], r->q[i]);
    }
    mpfr_clear(m);
    return r;
}

/* ---- continuous pairs: densities and upper tails at x ---- */

/* Laplace(mu, b) density and P(X > x) */
static void lap_pdf(mpfr_t r, const mpfr_t x, double mu, double b)
{
    mpfr_sub_d(r, x, mu, MPFR_RNDN);
    mpfr_abs(r, r, MPFR_RNDN);
    mpfr_div_d(r, r, -b, MPFR_RNDN);
    mpfr_exp(r, r, MPFR_RNDN);
    mpfr_div_d(r, r, 2.0 * b, MPFR_RNDN);
}

static void lap_sf(mpfr_t r, const mpfr_t x, double mu, double b)
{
    mpfr_sub_d(r, x, mu, MPFR_RNDN);
    int right = mpfr_sgn(r) >= 0;
    mpfr_abs(r, r, MPFR_RNDN);
    mpfr_div_d(r, r, -b, MPFR_RNDN);
    mpfr_exp(r, r, MPFR_RNDN);
    mpfr_div_ui(r, r, 2, MPFR_RNDN);
    if (!right) mpfr_ui_sub(r, 1, r, MPFR_RNDN);
}

static void norm_pdf(mpfr_t r, const mpfr_t x, double mu, double s)
{
    mpfr_t t;
    mpfr_init2(t, RPREC);
    mpfr_sub_d(r, x, mu, MPFR_RNDN);
    mpfr_div_d(r, r, s, MPFR_RNDN);
    mpfr_sqr(r, r, MPFR_RNDN);
    mpfr_div_si(r, r, -2, MPFR_RNDN);
    mpfr_exp(r, r, MPFR_RNDN);
    mpfr_const_pi(t, MPFR_RNDN);
    mpfr_mul_ui(t, t, 2, MPFR_RNDN);
    mpfr_sqrt(t, t, MPFR_RNDN);
    mpfr_mul_d(t, t, s, MPFR_RNDN);
    mpfr_div(r, r, t, MPFR_RNDN);
    mpfr_clear(t);
}

static void norm_sf(mpfr_t r, const mpfr_t x, double mu, double s)
{
    mpfr_t t;
    mpfr_init2(t, RPREC);
    mpfr_sub_d(r, x, mu, MPFR_RNDN);
    mpfr_div_d(r, r, s, MPFR_RNDN);
    mpfr_sqrt_ui(t, 2, MPFR_RNDN);
    mpfr_div(r, r, t, MPFR_RNDN);
    mpfr_erfc(r, r, MPFR_RNDN);
    mpfr_div_ui(r, r, 2, MPFR_RNDN);
    mpfr_clear(t);
}

/* which = 0: P, 1: Q of the base pair; tail = 0: density, 1: P(X > x) */
static void base_eval(const ref_pair *r, int which, int tail, mpfr_t out, const mpfr_t x)
{
    if (r->kind == REF_LAPLACE) {
        if (tail) lap_sf(out, x, which ? 0.0 : 1.0, r->b); else lap_pdf(out, x, which ? 0.0 : 1.0, r->b);
        return;
    }
    mpfr_t a;
    mpfr_init2(a, RPREC);
    double shift = which ? -1.0 : 1.0;
    mpfr_t z;
    mpfr_init2(z, RPREC);
    if (tail) { norm_sf(z, x, 0.0, r->b); norm_sf(a, x, shift, r->b); }
    else { norm_pdf(z, x, 0.0, r->b); norm_pdf(a, x, shift, r->b); }
    mix(out, a, z, r->lq);
    mpfr_clears(a, z, (mpfr_ptr)0);
}

/* which = 0: P, 1: Q of the (possibly Poisson-sampled) pair */
static void pair_eval(const ref_pair *r, int which, int tail, mpfr_t out, const mpfr_t x)
{
    if (r->world == 0) { base_eval(r, which, tail, out, x); return; }
    /* remove: (q P + (1-q) Q, Q); add: (Q, q P + (1-q) Q) */
    int mixture = (r->world == 1) == (which == 0);
    if (!mixture) { base_eval(r, 1, tail, out, x); return; }
    mpfr_t a, b;
    mpfr_inits2(RPREC, a, b, (mpfr_ptr)0);
    base_eval(r, 0, tail, a, x);
    base_eval(r, 1, tail, b, x);
    mix(out, a, b, r->wq);
    mpfr_clears(a, b, (mpfr_ptr)0);
}

/* sign of p(x) - e^eps q(x); for the plain Laplace pair by comparing its
 * loss (|x| - |x-1|)/b with eps, exact on the flat parts, where the
 * densities' rounding would decide a tie */
static int excess_sign(const ref_pair *r, const mpfr_t x, const mpfr_t ee, double eps)
{
    mpfr_t a, b;
    if (r->kind == REF_LAPLACE && r->world == 0) {
        mpfr_inits2(RPREC, a, b, (mpfr_ptr)0);
        mpfr_abs(a, x, MPFR_RNDN);
        mpfr_sub_ui(b, x, 1, MPFR_RNDN);
        mpfr_abs(b, b, MPFR_RNDN);
        mpfr_sub(a, a, b, MPFR_RNDN);
        mpfr_div_d(a, a, r->b, MPFR_RNDN);
        int c = mpfr_cmp_d(a, eps);
        mpfr_clears(a, b, (mpfr_ptr)0);
        return c;
    }
    mpfr_inits2(RPREC, a, b, (mpfr_ptr)0);
    pair_eval(r, 0, 0, a, x);
    pair_eval(r, 1, 0, b, x);
    mpfr_mul(b, b, ee, MPFR_RNDN);
    int c = mpfr_cmp(a, b);
    mpfr_clears(a, b, (mpfr_ptr)0);
    return c;
}

/* delta and Q(L > eps) of a continuous pair, into d and qs */
static void continuous_eval(const ref_pair *r, double eps, mpfr_t d, mpfr_t qs)
{
    /* the likelihood ratio increases in x except in the add world */
    int increasing = r->world != 2;
    mpfr_t ee, lo, hi, mid, a;
    mpfr_inits2(RPREC, ee, lo, hi, mid, a, (mpfr_ptr)0);
    mpfr_set_d(ee, eps, MPFR_RNDN);
    mpfr_exp(ee, ee, MPFR_RNDN);
    /* the boundary lies within |x| <= s^2 |eps| + 2 for the replace-one
     * pair (L(x) >= x/s^2 - ... ), and in [-400, 400] for the Laplace ones */
    double w = r->kind == REF_REPLACE ? 400.0 + r->b * r->b * (fabs(eps) + 4.0) : 400.0;
    mpfr_set_d(lo, -w, MPFR_RNDN);
    mpfr_set_d(hi, w, MPFR_RNDN);
    int s_lo = excess_sign(r, lo, ee, eps) > 0, s_hi = excess_sign(r, hi, ee, eps) > 0;
    if (s_lo == s_hi) {
        /* no boundary inside: (p > e^eps q) everywhere (delta = 1 - e^eps,
         * Q(L > eps) = 1) or nowhere (0, 0); the tails beyond +-400 are
         * flat (Laplace) or negligible */
        if (s_lo) {
            mpfr_ui_sub(d, 1, ee, MPFR_RNDN);
            mpfr_set_ui(qs, 1, MPFR_RNDN);
        } else {
            mpfr_set_ui(d, 0, MPFR_RNDN);
            mpfr_set_ui(qs, 0, MPFR_RNDN);
        }
    } else {
        for (int i = 0; i < 340; i++) {
            mpfr_add(mid, lo, hi, MPFR_RNDN);
            mpfr_div_ui(mid, mid, 2, MPFR_RNDN);
            if ((excess_sign(r, mid, ee, eps) > 0) == s_lo) mpfr_set(lo, mid, MPFR_RNDN);
            else mpfr_set(hi, mid, MPFR_RNDN);
        }
        pair_eval(r, 0, 1, d, lo);        /* P(X > t) */
        pair_eval(r, 1, 1, qs, lo);       /* Q(X > t) */
        if (!increasing) {                /* the set is x < t */
            mpfr_ui_sub(d, 1, d, MPFR_RNDN);
            mpfr_ui_sub(qs, 1, qs, MPFR_RNDN);
        }
        mpfr_mul(a, qs, ee, MPFR_RNDN);
        mpfr_sub(d, d, a, MPFR_RNDN);
    }
    mpfr_clears(ee, lo, hi, mid, a, (mpfr_ptr)0);
}

static void atoms_eval(const ref_pair *r, double eps, mpfr_t d, mpfr_t qs)
{
    mpfr_t ee, a;
    mpfr_inits2(RPREC, ee, a, (mpfr_ptr)0);
    mpfr_set_d(ee, eps, MPFR_RNDN);
    mpfr_exp(ee, ee, MPFR_RNDN);
    mpfr_set_ui(d, 0, MPFR_RNDN);
    mpfr_set_ui(qs, 0, MPFR_RNDN);
    for (long i = 0; i < r->n; i++) {
        if (!(mpfr_cmp_d(r->loss[i], eps) > 0)) continue;   /* strictly L > eps */
        mpfr_mul(a, r->q[i], ee, MPFR_RNDN);
        mpfr_sub(a, r->p[i], a, MPFR_RNDN);
        mpfr_add(d, d, a, MPFR_RNDN);
        mpfr_add(qs, qs, r->q[i], MPFR_RNDN);
    }
    mpfr_clears(ee, a, (mpfr_ptr)0);
}

static double ref_pair_eval(const ref_pair *r, double eps, int want_q)
{
    mpfr_t d, qs;
    mpfr_inits2(RPREC, d, qs, (mpfr_ptr)0);
    if (r->kind == REF_ATOMS) atoms_eval(r, eps, d, qs); else continuous_eval(r, eps, d, qs);
    mpfr_ptr v = want_q ? qs : d;
    double out;
    if (mpfr_sgn(v) <= 0) out = -INFINITY;
    else { mpfr_log(v, v, MPFR_RNDN); out = mpfr_get_d(v, MPFR_RNDN); }
    mpfr_clears(d, qs, (mpfr_ptr)0);
    return out;
}

double ref_pair_log_delta(const ref_pair *r, double eps) { return ref_pair_eval(r, eps, 0); }
double ref_pair_log_q_survival(const ref_pair *r, double eps) { return ref_pair_eval(r, eps, 1); }

/* The atoms (P-mass, Q-mass) of the clones pair, C ~ Bin(n - 1, p), at
 * `prec` bits, allocated and initialised here; returns their number (the
 * sum over c of c + 2). */
static size_t clones_atoms(double eps0, unsigned long n, int cls, mpfr_t **P, mpfr_t **Q, mpfr_prec_t prec)
{
    size_t m = 0;
    for (unsigned long c = 0; c < n; c++) m += c + 2;
    *P = malloc(m * sizeof **P);
    *Q = malloc(m * sizeof **Q);
    mpfr_t p, q1, al, oma, w, b, bprev, t;
    mpfr_inits2(prec, p, q1, al, oma, w, b, bprev, t, (mpfr_ptr)0);
    clone_probability(p, eps0, cls);
    mpfr_ui_sub(q1, 1, p, MPFR_RNDN);
    clones_mixing(al, eps0);
    mpfr_ui_sub(oma, 1, al, MPFR_RNDN);
    mpfr_pow_ui(w, q1, n - 1, MPFR_RNDN);             /* Pr(C = 0) */
    size_t i = 0;
    for (unsigned long c = 0; c < n; c++) {
        mpfr_set_ui(b, 1, MPFR_RNDN);
        mpfr_div_2ui(b, b, c, MPFR_RNDN);             /* b(0) = 2^-c */
        mpfr_set_ui(bprev, 0, MPFR_RNDN);
        for (unsigned long k = 0; k <= c + 1; k++, i++) {
            mpfr_init2((*P)[i], prec);
            mpfr_init2((*Q)[i], prec);
            mpfr_mul((*P)[i], al, b, MPFR_RNDN);
            mpfr_fma((*P)[i], oma, bprev, (*P)[i], MPFR_RNDN);
            mpfr_mul((*P)[i], (*P)[i], w, MPFR_RNDN);
            mpfr_mul((*Q)[i], oma, b, MPFR_RNDN);
            mpfr_fma((*Q)[i], al, bprev, (*Q)[i], MPFR_RNDN);
            mpfr_mul((*Q)[i], (*Q)[i], w, MPFR_RNDN);
            mpfr_set(bprev, b, MPFR_RNDN);
            if (k < c) {
                mpfr_mul_ui(b, b, c - k, MPFR_RNDN);
                mpfr_div_ui(b, b, k + 1, MPFR_RNDN);
            } else {
                mpfr_set_ui(b, 0, MPFR_RNDN);
            }
        }
        /* Pr(C = c + 1) = Pr(C = c) (n - 1 - c)/(c + 1) p/(1 - p) */
        mpfr_mul_ui(w, w, n - 1 - c, MPFR_RNDN);
        mpfr_div_ui(w, w, c + 1, MPFR_RNDN);
        mpfr_mul(w, w, p, MPFR_RNDN);
        mpfr_div(w, w, q1, MPFR_RNDN);
    }
    mpfr_clears(p, q1, al, oma, w, b, bprev, t, (mpfr_ptr)0);
    return m;
}

double ref_clones_composed_delta(double eps0, unsigned long n, int cls, int T, double eps)
{
    const mpfr_prec_t prec = 160;
    mpfr_t *P, *Q;
    size_t m = clones_atoms(eps0, n, cls, &P, &Q, prec);
    /* the (T-1)-fold product atoms, then the last factor summed directly */
    size_t cm = 1;
    mpfr_t *CP = malloc(sizeof *CP), *CQ = malloc(sizeof *CQ);
    mpfr_init2(CP[0], prec);
    mpfr_init2(CQ[0], prec);
    mpfr_set_ui(CP[0], 1, MPFR_RNDN);
    mpfr_set_ui(CQ[0], 1, MPFR_RNDN);
    for (int r = 1; r < T; r++) {
        mpfr_t *NP = malloc(cm * m * sizeof *NP), *NQ = malloc(cm * m * sizeof *NQ);
        for (size_t i = 0; i < cm; i++)
            for (size_t j = 0; j < m; j++) {
                mpfr_init2(NP[i * m + j], prec);
                mpfr_init2(NQ[i * m + j], prec);
                mpfr_mul(NP[i * m + j], CP[i], P[j], MPFR_RNDN);
                mpfr_mul(NQ[i * m + j], CQ[i], Q[j], MPFR_RNDN);
            }
        for (size_t i = 0; i < cm; i++) { mpfr_clear(CP[i]); mpfr_clear(CQ[i]); }
        free(CP);
        free(CQ);
        CP = NP;
        CQ = NQ;
        cm *= m;
    }
    mpfr_t ee, acc, t, u;
    mpfr_inits2(prec, ee, acc, t, u, (mpfr_ptr)0);
    mpfr_set_d(ee, eps, MPFR_RNDN);
    mpfr_exp(ee, ee, MPFR_RNDN);
    mpfr_set_ui(acc, 0, MPFR_RNDN);
    for (size_t i = 0; i < cm; i++)
        for (size_t j = 0; j < m; j++) {
            mpfr_mul(t, CP[i], P[j], MPFR_RNDN);
            mpfr_mul(u, CQ[i], Q[j], MPFR_RNDN);
            mpfr_mul(u, u, ee, MPFR_RNDN);
            mpfr_sub(t, t, u, MPFR_RNDN);
            if (mpfr_sgn(t) > 0) mpfr_add(acc, acc, t, MPFR_RNDN);
        }
    double out = mpfr_get_d(acc, MPFR_RNDN);
    for (size_t i = 0; i < cm; i++) { mpfr_clear(CP[i]); mpfr_clear(CQ[i]); }
    for (size_t j = 0; j < m; j++) { mpfr_clear(P[j]); mpfr_clear(Q[j]); }
    free(CP); free(CQ); free(P); free(Q);
    mpfr_clears(ee, acc, t, u, (mpfr_ptr)0);
    return out;
}

double ref_shuffled_rr_delta(double eps0, unsigned long n, unsigned long ones, double eps)
{
    /* Y = number of 1 reports: Bern(r) for the differing user (r = 1/(e^eps0+1)
     * with input 0, 1 - r with input 1), Bin(ones, 1 - r) + Bin(n - 1 - ones, r)
     * for the others; delta = sum_y (P(y) - e^eps Q(y))_+ */
    const mpfr_prec_t prec = 256;
    mpfr_t r, s, *dist, *nd, t, ee, acc, pk, qk;
    mpfr_inits2(prec, r, s, t, ee, acc, pk, qk, (mpfr_ptr)0);
    mpfr_set_d(r, eps0, MPFR_RNDN);
    mpfr_exp(r, r, MPFR_RNDN);
    mpfr_add_ui(r, r, 1, MPFR_RNDN);
    mpfr_ui_div(r, 1, r, MPFR_RNDN);
    mpfr_ui_sub(s, 1, r, MPFR_RNDN);
    dist = malloc((n + 1) * sizeof *dist);
    nd = malloc((n + 1) * sizeof *nd);
    for (unsigned long i = 0; i <= n; i++) {
        mpfr_init2(dist[i], prec);
        mpfr_init2(nd[i], prec);
        mpfr_set_ui(dist[i], i == 0, MPFR_RNDN);
    }
    /* the others, one Bernoulli at a time */
    for (unsigned long u = 0; u + 1 < n; u++) {
        mpfr_srcptr one = u < ones ? s : r;      /* P(report 1) */
        mpfr_ui_sub(t, 1, one, MPFR_RNDN);
        for (unsigned long y = 0; y <= u + 1; y++) {   /* dist[u + 1] is still 0 */
            mpfr_mul(nd[y], dist[y], t, MPFR_RNDN);
            if (y >= 1) mpfr_fma(nd[y], dist[y - 1], one, nd[y], MPFR_RNDN);
        }
        for (unsigned long y = 0; y <= u + 1; y++) mpfr_set(dist[y], nd[y], MPFR_RNDN);
    }
    mpfr_set_d(ee, eps, MPFR_RNDN);
    mpfr_exp(ee, ee, MPFR_RNDN);
    mpfr_set_ui(acc, 0, MPFR_RNDN);
    for (unsigned long y = 0; y <= n; y++) {
        /* P: the differing user reports 1 w.p. r; Q: w.p. s */
        mpfr_set_ui(pk, 0, MPFR_RNDN);
        mpfr_set_ui(qk, 0, MPFR_RNDN);
        if (y < n) { mpfr_fma(pk, dist[y], s, pk, MPFR_RNDN); mpfr_fma(qk, dist[y], r, qk, MPFR_RNDN); }
        if (y >= 1) { mpfr_fma(pk, dist[y - 1], r, pk, MPFR_RNDN); mpfr_fma(qk, dist[y - 1], s, qk, MPFR_RNDN); }
        mpfr_mul(qk, qk, ee, MPFR_RNDN);
        mpfr_sub(pk, pk, qk, MPFR_RNDN);
        if (mpfr_sgn(pk) > 0) mpfr_add(acc, acc, pk, MPFR_RNDN);
    }
    double out = mpfr_get_d(acc, MPFR_RNDN);
    for (unsigned long i = 0; i <= n; i++) { mpfr_clear(dist[i]); mpfr_clear(nd[i]); }
    free(dist);
    free(nd);
    mpfr_clears(r, s, t, ee, acc, pk, qk, (mpfr_ptr)0);
    return out;
}

double ref_clones_rdp(double eps0, unsigned long n, int cls, double alpha)
{
    const mpfr_prec_t prec = 160;
    mpfr_t *P, *Q;
    size_t m = clones_atoms(eps0, n, cls, &P, &Q, prec);
    mpfr_t acc, t, u, a, am1;
    mpfr_inits2(prec, acc, t, u, a, am1, (mpfr_ptr)0);
    mpfr_set_d(a, alpha, MPFR_RNDN);
    mpfr_set_d(am1, 1.0 - alpha, MPFR_RNDN);
    mpfr_set_ui(acc, 0, MPFR_RNDN);
    for (size_t j = 0; j < m; j++) {
        if (mpfr_zero_p(P[j])) continue;          /* P^alpha Q^(1-alpha) = 0 */
        mpfr_pow(t, P[j], a, MPFR_RNDN);
        mpfr_pow(u, Q[j], am1, MPFR_RNDN);
        mpfr_fma(acc, t, u, acc, MPFR_RNDN);
    }
    mpfr_log(acc, acc, MPFR_RNDN);
    mpfr_div_d(acc, acc, alpha - 1.0, MPFR_RNDN);
    double out = mpfr_get_d(acc, MPFR_RNDN);
    for (size_t j = 0; j < m; j++) { mpfr_clear(P[j]); mpfr_clear(Q[j]); }
    free(P);
    free(Q);
    mpfr_clears(acc, t, u, a, am1, (mpfr_ptr)0);
    return out;
}
