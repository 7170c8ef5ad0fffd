/*
 * rdp_curves.c - Renyi DP of single mechanisms at one order.
 *
 * Everything is evaluated in log space and arranged so that only positive
 * quantities are added: where a textbook formula subtracts (A - 1 for a
 * moment A close to 1, a ratio close to 1), it is rewritten first.  The
 * result is padded by RDP_PAD (relative) to cover the remaining rounding.
 */
#include "rdp_curves.h"
#include "numerics.h"

#include <float.h>
#include <math.h>

/* Relative pad for rounding in the closed forms below: their terms carry
 * errors of a few ulps of lgamma(alpha + 1) <= 6e3, i.e. ~1e-12. */
#define RDP_PAD 1e-11

/* The largest integer order whose binomial sum (alpha terms) is evaluated
 * term by term: a few milliseconds.  Beyond it a subsampled curve is
 * bounded by the unsampled Gaussian's, valid at every order and close to
 * the subsampled value there. */
#define RDP_MAX_EXACT_ORDER 65536.0

static double pad_up(double eps)
{
    return eps > 0.0 ? eps * (1.0 + RDP_PAD) + DBL_TRUE_MIN : eps;
}

/* log(e^x - 1) for x > 0 without overflow or cancellation. */
static double log_expm1(double x)
{
    return x > 30.0 ? x + log1p(-exp(-x)) : log(expm1(x));
}

/* log of the binomial coefficient C(alpha, k) for real alpha >= k >= 0.
 * lgamma_r, not lgamma: lgamma writes the global signgam, a data race
 * between accountants in different threads (the sign is + here anyway). */
static double log_binomial(double alpha, double k)
{
    int sign;
    return lgamma_r(alpha + 1.0, &sign) - lgamma_r(k + 1.0, &sign) - lgamma_r(alpha - k + 1.0, &sign);
}

/* eps(alpha) = log(1 + e^{log_excess}) / (alpha - 1), where e^{log_excess}
 * is A - 1 for the Renyi moment A. */
static double eps_from_excess(double log_excess, double alpha)
{
    double eps = dpa_log_add_exp(0.0, log_excess) / (alpha - 1.0);
    /* A - 1 > 0 (log_excess > -inf) is a positive eps, even below the
     * double range */
    return log_excess > -INFINITY ? dpa_positive_up(eps) : eps;
}

double rdp_gaussian(double sigma, double alpha)
{
    /* alpha / (2 sigma^2) without forming sigma^2 (which overflows for sigma
     * = 1e200 and underflows for 1e-200); positive for finite sigma */
    double eps = alpha / 2.0 / sigma / sigma;
    return pad_up(isfinite(sigma) ? dpa_positive_up(eps) : eps);
}

/* (alpha - 1) eps(alpha) = log E[(mu/mu0)^alpha] is convex in alpha (a
 * cumulant generating function), so the chord between the neighbouring
 * integers bounds a fractional order; it is 0 at alpha = 1. */
double rdp_chord(double alpha, double f_lo, double f_hi)
{
    double t = alpha - floor(alpha);
    return ((1.0 - t) * f_lo + t * f_hi) / (alpha - 1.0);
}

/* ---- Poisson-subsampled Gaussian ---------------------------------------- */

/* Integer alpha (Mironov, Talwar & Zhang 2019, Sec. 3.3): with mu0 = N(0, s^2),
 * mu = (1 - q) mu0 + q N(1, s^2),
 *   A = E_mu0[(mu/mu0)^alpha] = sum_k C(alpha,k) (1-q)^{alpha-k} q^k e^{(k^2-k)/(2 s^2)}.
 * The weights sum to one, so A - 1 = sum_{k>=2} C(alpha,k) (1-q)^{alpha-k} q^k
 * expm1((k^2-k)/(2 s^2)): a sum of positive terms, exact in doubles even when
 * A - 1 is 1e-20 (tiny q, huge sigma), where log(A) itself would be lost. */
static double log_excess_integer(double q, double sigma, double alpha)
{
    /* Above RDP_MAX_EXACT_ORDER the sum is not evaluated term by term (it has
     * alpha terms): +inf says "unknown", and the caller's minimum with the
     * unsampled Gaussian's alpha / (2 sigma^2), valid at every order, is
     * what is used there. */
    if (!(alpha <= RDP_MAX_EXACT_ORDER)) return INFINITY;
    const double log_q = log(q), log_1mq = log1p(-q), inv2s2 = 0.5 / sigma / sigma;
    /* streaming log-sum-exp: the sum is kept as e^top * scaled */
    double top = -INFINITY, scaled = 0.0, log_c = log(alpha);   /* log C(alpha, 1) */
    /* Rounding is tracked, not guessed: err_c bounds the error that the
     * running log C(alpha, k) has accumulated (it grows with alpha), err_max
     * that of the largest term's logarithm; both are added to the result,
     * an absolute error in log(A - 1) and so a relative one in A - 1. */
    double err_c = DBL_EPSILON * fabs(log_c), err_max = 0.0;
    for (double k = 2.0; k <= alpha; k += 1.0) {
        double lr = log((alpha - k + 1.0) / k);
        log_c += lr;                                              /* log C(alpha, k) */
        err_c += DBL_EPSILON * (fabs(log_c) + 2.0 * fabs(lr) + 2.0);
        double x = k * (k - 1.0) * inv2s2;
        double a = (alpha - k) * log_1mq, b = k * log_q, c = log_expm1(x);
        double t = log_c + a + b + c;
        if (t == INFINITY) return INFINITY;   /* 1/sigma^2 overflows: no finite bound at this order */
        err_max = fmax(err_max, err_c + 4.0 * DBL_EPSILON * (fabs(log_c) + fabs(a) + fabs(b) + fabs(c) + x + 1.0));
        if (t > top) {
            scaled = scaled * exp(top - t) + 1.0;
            top = t;
        } else {
            scaled += exp(t - top);
        }
    }
    /* the streaming sum: one rounding and one exp per term */
    return top + log(scaled) + err_max + 4.0 * DBL_EPSILON * (alpha + fabs(top));
}

/* log(g(x)) with g(x) = (1+x)^alpha - 1 - alpha x >= 0 for x > -1, alpha > 1. */
static double log_g(double x, double alpha)
{
    double lp = log1p(x), y = alpha * lp;
    if (fabs(y) < 0.5 && fabs(x) < 0.5) {
        /* g = alpha (log1p(x) - x) + (e^y - 1 - y): two series, no cancellation
         * of leading terms beyond the factor (alpha - 1) / alpha. */
        double l;
        if (fabs(x) > 0.1) {
            l = lp - x;                          /* loses at most one digit here */
        } else {
            double power = x;                    /* log1p(x) - x = sum_{k>=2} (-1)^{k+1} x^k / k */
            l = 0.0;
            for (int k = 2; k < 40; k++) {
                power *= x;
                double term = (k % 2 ? power : -power) / k;
                l += term;
                if (fabs(term) < 1e-20 * fabs(l)) break;
            }
        }
        double e = 0.0, p = y;
        for (int k = 2; k < 40; k++) {            /* e^y - 1 - y = sum_{k>=2} y^k / k! */
            p *= y / k;
            e += p;
            if (fabs(p) < 1e-20 * fabs(e)) break;
        }
        return log(alpha * l + e);
    }
    if (y > 1.0) return y + log1p(-(1.0 + alpha * x) * exp(-y));
    return log(expm1(y) - alpha * x);
}

/* Fractional alpha: quadrature of the defining integral, again for A - 1.
 * In u = z / sigma, with x(u) = q expm1((2 sigma u - 1) / (2 sigma^2)):
 *   A - 1 = int phi(u) [(1 + x)^alpha - 1 - alpha x] du,
 * since E[x] = 0; the bracket is >= 0 by convexity, so the integrand is
 * positive.  It is scaled by e^{-shift}, its log near its possible peaks. */
struct sgm_ctx { double q, sigma, alpha, shift; };

static double sgm_log_integrand(double u, const struct sgm_ctx *c)
{
    const double w = (2.0 * c->sigma * u - 1.0) / (2.0 * c->sigma * c->sigma);
    double log_g_x;
    if (w > 30.0) {
        /* far right: x = q expm1(w) may overflow; work with its logarithm.
         * g = e^y (1 - (1 + alpha x) e^{-y}), y = alpha log(1 + x). */
        double lx = log(c->q) + w + log1p(-exp(-w));
        double y = c->alpha * dpa_log_add_exp(0.0, lx);
        double lr = dpa_log_add_exp(0.0, log(c->alpha) + lx) - y;
        log_g_x = y + dpa_log1mexp(lr);
    } else {
        double x = c->q * expm1(w);
        if (x == 0.0) return -INFINITY;
        log_g_x = log_g(x, c->alpha);
    }
    return -0.5 * u * u - 0.5 * log(2.0 * M_PI) + log_g_x;
}

/* The trapezoidal rule converges geometrically for an integrand analytic
 * in a strip |Im u| < d: its error is about e^{-2 pi d / h} (Trefethen &
 * Weideman 2014, Thm 5.1).  Here d = pi sigma (the branch points of
 * (1 + x)^alpha, where 1 - q + q e^w = 0) and the Gaussian factor needs
 * e^{-2 pi^2 / h^2} small, so h = min(0.56 sigma, 0.75) puts both near
 * 1e-15.  Beyond 13 standard units from the two peaks the integrand is
 * below e^{-84} of its maximum.  The rule is run at h and h/2 and their
 * difference, a bound on the error of the coarser one, is added. */
/* Beyond this many points (tiny sigma with a large order) the caller
 * bounds the order by interpolation between integers instead. */
#define MAX_TRAPEZOID_POINTS 200000

static double log_excess_fractional(double q, double sigma, double alpha)
{
    struct sgm_ctx c = { q, sigma, alpha, 0.0 };
    const double right = fmax(alpha / sigma, 0.5 / sigma);
    const double lo = -13.0, hi = right + 13.0;
    c.shift = fmax(sgm_log_integrand(alpha / sigma, &c), sgm_log_integrand(0.5 / sigma + 1.0, &c));
    c.shift = fmax(c.shift, sgm_log_integrand(0.0, &c));
    if (!isfinite(c.shift)) return NAN;
    double h = fmin(0.56 * sigma, 0.75);
    /* compared as a double: for tiny sigma the count overflows any integer */
    double points = ceil((hi - lo) / h);
    if (!(points <= MAX_TRAPEZOID_POINTS)) return NAN;     /* the caller interpolates instead */
    long n = (long)points;
    h = (hi - lo) / n;
    double coarse = 0.0, fine = 0.0;
    for (long i = 0; i <= 2 * n; i++) {
        double f = exp(sgm_log_integrand(lo + 0.5 * h * i, &c) - c.shift);
        if (i == 0 || i == 2 * n) f *= 0.5;
        fine += f;
        if (i % 2 == 0) coarse += f;
    }
    coarse *= h;
    fine *= 0.5 * h;
    double total = fine + fabs(fine - coarse);
    if (!(total > 0.0)) return NAN;
    return c.shift + log(total);
}

static double poisson_integer(double q, double sigma, double alpha)
{
    return eps_from_excess(log_excess_integer(q, sigma, alpha), alpha);
}

double rdp_poisson_gaussian(double q, double sigma, double alpha)
{
    if (q >= 1.0) return rdp_gaussian(sigma, alpha);
    double eps;
    if (alpha == floor(alpha)) {
        eps = poisson_integer(q, sigma, alpha);
    } else {
        double le = log_excess_fractional(q, sigma, alpha);
        if (!isnan(le)) {
            eps = eps_from_excess(le, alpha);
        } else {
            double lo = floor(alpha), hi = ceil(alpha);
            double f_lo = lo < 2.0 ? 0.0 : (lo - 1.0) * poisson_integer(q, sigma, lo);
            eps = rdp_chord(alpha, f_lo, (hi - 1.0) * poisson_integer(q, sigma, hi));
        }
    }
    /* subsampling never hurts: the unsampled Gaussian bounds it too */
    return fmin(pad_up(eps), rdp_gaussian(sigma, alpha));
}

/* ---- sampling without replacement ---------------------------------------- */

/* Wang, Balle & Kasiviswanathan 2019, Theorem 9, for a Gaussian base
 * mechanism (eps(j) = j / (2 sigma^2), eps(inf) = inf), integer alpha >= 2:
 *   A - 1 <= gamma^2 C(alpha,2) min{4 (e^{eps(2)} - 1), 2 e^{eps(2)}}
 *           + sum_{j=3}^alpha 2 gamma^j C(alpha,j) e^{(j-1) eps(j)}. */
static double swor_integer(double gamma, double sigma, double n)
{
    if (!(n <= RDP_MAX_EXACT_ORDER)) return INFINITY;   /* as in log_excess_integer */
    const double e2 = 1.0 / sigma / sigma, log_gamma = log(gamma);
    double acc = 2.0 * log_gamma + log_binomial(n, 2.0) +
                 fmin(log(4.0) + log_expm1(e2), M_LN2 + e2);
    for (double j = 3.0; j <= n; j += 1.0) {
        double t = M_LN2 + j * log_gamma + log_binomial(n, j) +
                   (j - 1.0) * j * 0.5 / sigma / sigma;
        acc = dpa_log_add_exp(acc, t);
    }
    return eps_from_excess(acc, n);
}

double rdp_sampled_without_replacement_gaussian(double gamma, double sigma, double alpha)
{
    if (gamma >= 1.0) return rdp_gaussian(sigma, alpha);
    double lo = floor(alpha), hi = ceil(alpha), eps;
    if (lo == hi) {
        eps = swor_integer(gamma, sigma, alpha);
    } else {
        double f_lo = lo < 2.0 ? 0.0 : (lo - 1.0) * swor_integer(gamma, sigma, lo);
        eps = rdp_chord(alpha, f_lo, (hi - 1.0) * swor_integer(gamma, sigma, hi));
    }
    return fmin(pad_up(eps), rdp_gaussian(sigma, alpha));
}

/* ---- pure-DP style mechanisms ------------------------------------------- */

double rdp_laplace(double b, double alpha)
{
    /* Mironov 2017, Prop. 6, with eps = 1/b:
     * eps(alpha) = eps + log(1 + (alpha-1) expm1((1-2 alpha) eps) / (2 alpha - 1)) / (alpha - 1);
     * the log1p argument lies in (-1/2, 0]. */
    double eps = 1.0 / b;
    double v = (alpha - 1.0) * expm1((1.0 - 2.0 * alpha) * eps) / (2.0 * alpha - 1.0);
    /* eps + log1p(v)/(alpha - 1) cancels for small eps (both terms are about
     * eps, their sum about alpha eps^2 / 2): its absolute error, a few ulps
     * of eps, is added.  Bun & Steinke 2016, Prop. 3.3 (eps-DP is
     * eps^2/2-zCDP, so D_alpha <= alpha eps^2 / 2) bounds it too, without
     * cancellation; both are valid, the smaller is used. */
    double exact = eps + log1p(v) / (alpha - 1.0) + 16.0 * DBL_EPSILON * eps;
    double zcdp = alpha / 2.0 * eps * eps;
    return pad_up(dpa_positive_up(fmin(exact, zcdp)));
}

double rdp_randomized_response(double epsilon, double k, double alpha)
{
    /* P = (e^eps, 1, 1, ...)/Z against its swap, Z = e^eps + k - 1:
     * 1 + D = (e^{alpha eps} + e^{(1-alpha) eps} + k - 2) / Z with
     * D = expm1(t) e^{-t} expm1(alpha eps) / Z, t = (alpha - 1) eps (all
     * factors positive: no cancellation for small eps). */
    double t = (alpha - 1.0) * epsilon;
    double log_z = dpa_log_add_exp(epsilon, log(k - 1.0));
    double log_d = log_expm1(t) - t + log_expm1(alpha * epsilon) - log_z;
    return pad_up(eps_from_excess(log_d, alpha));
}

double rdp_pure_dp(double epsilon, double alpha)
{
    return rdp_randomized_response(epsilon, 2.0, alpha);
}

/* ---- mixture of Gaussians ---------------------------------------------------
 *
 * P = sum_i w_i N(m_i, 1) against Q = N(0, 1) (units of sigma; m_i >= 0,
 * sum w_i = 1), either direction.  (a - 1) D_a is the log of
 * int P^a Q^{1-a}, jointly convex in (P, Q) for a > 1 (t^a s^{1-a} is a
 * perspective of a convex function), so for the mixture
 *   int P^a Q^{1-a} <= sum_i w_i int P_i^a Q^{1-a} = sum_i w_i e^{a (a-1) m_i^2 / 2},
 * and the same for int Q^a P^{1-a} (D_a of two Gaussians of one variance
 * is symmetric): both directions are at most
 *   log(sum_i w_i e^{a (a-1) m_i^2 / 2}) / (a - 1).
 * The remove direction's moment is known exactly at integer orders
 * (the multinomial expansion: sum over a_1 + ... + a_n = a of
 * (a; a_1..a_n) prod w_i^{a_i} e^{((sum a_i m_i)^2 - sum a_i m_i^2)/2},
 * Choquette-Choo et al., ICLR 2024), but by the same convexity it never
 * exceeds this bound, and the add direction has no tighter certified form
 * known here: the bound is what decides, so it alone is computed. */
double rdp_mixture_of_gaussians(const double *m, const double *lw, size_t n, double alpha)
{
    if (!(alpha > 1.0)) return NAN;
    double top = -INFINITY, sum = 0.0, mag = 0.0;
    for (size_t i = 0; i < n; i++) {
        double t = lw[i] + 0.5 * alpha * (alpha - 1.0) * m[i] * m[i];
        mag = fmax(mag, fabs(lw[i]) + fabs(t));
        top = fmax(top, t);
    }
    if (!isfinite(top)) return top;
    for (size_t i = 0; i < n; i++) sum += exp(lw[i] + 0.5 * alpha * (alpha - 1.0) * m[i] * m[i] - top);
    /* each exponent is off by a few ulps of its magnitude, the sum by an
     * ulp a term */
    double log_moment = top + log(sum) + 16.0 * DBL_EPSILON * (1.0 + mag + (double)n);
    return fmax(0.0, log_moment) / (alpha - 1.0) * (1.0 + 2.0 * DBL_EPSILON);
}
