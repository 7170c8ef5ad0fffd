/*
 * pld_mechanisms.c - exact privacy profiles of the leaf pairs beyond the
 * Gaussian ones: Laplace, truncated Laplace, k-ary randomized response,
 * discrete Laplace, discrete Gaussian, the (eps, delta) black box, the
 * replace-one Poisson-subsampled Gaussian, and the shuffle clones pair.
 * The lower layer of the PLD profiles: it sees only the types of
 * pld_pair.h and calls nothing in pld_profiles.c.  The dispatcher there
 * calls it; the Gaussian pairs, and the composite pairs that recurse
 * through the dispatcher (Poisson sampling of a leaf, sampling without
 * replacement), are there too.
 *
 * Notation: delta(eps) = H_{e^eps}(P || Q) = sup_S P(S) - e^eps Q(S)
 *   = P(L > eps) - e^eps Q(L > eps)                                  (1)
 * with L = log dP/dQ (L = +inf where Q = 0), and its right derivative
 *   d delta / d eps = -e^eps Q(L > eps).                              (2)
 * Every leaf pair here is symmetric: a bijection T of the outcomes has
 * P o T = Q and Q o T = P, so L o T = -L and
 *   delta(eps) = 1 - e^eps + e^eps delta(-eps)   (eps < 0),            (3)
 * a sum of non-negative terms (the complement of S in (1), Balle et al.
 * 2018 / Zhu, Dong & Wang 2022, Lemma 19), and
 *   P(L < t) = Q(L > -t),   Q(L < t) = P(L > -t).                    (4)
 * Discrete profiles are sums over atoms of p_i (1 - e^{eps - l_i}) for
 * l_i > eps: non-negative terms, so no cancellation.
 */
#include "pld_mechanisms.h"
#include "shuffle/shuffle_clones.h"
#include "numerics.h"

#include <float.h>
#include <math.h>

#define ULP DBL_EPSILON
#define LOG_SQRT_2PI 0.91893853320467274178

/* log(1 - e^x) for x <= 0 (log(0) = -inf at x = 0). */
static double log1mexp(double x) { return x >= 0.0 ? -INFINITY : dpa_log1mexp(x); }

/* log(1 - q + q e^l), the loss of the remove-world mixture at inner loss l. */
static double log_mix(double q, double l)
{
    return dpa_log_add_exp(log1p(-q), log(q) + l);
}

/* log(e^x - 1) for x > 0, also where e^x overflows. */
static double log_expm1(double x) { return x > 40.0 ? x + log1p(-exp(-x)) : log(expm1(x)); }

/* (3) for a symmetric pair, given log delta(-eps) for eps < 0 (also used
 * by the composite pairs of pld_profiles.c). */
double pld_reflect_log_delta(double eps, double log_delta_neg)
{
    if (eps == -INFINITY) return 0.0;
    return dpa_log_add_exp(log1mexp(eps), eps + log_delta_neg);
}

/* ---- atoms ---------------------------------------------------------------- */

typedef struct { double loss, log_p, log_q; } atom;

/* log sum_{l_i > eps} p_i (1 - e^{eps - l_i}); the atom at +inf counts at
 * every eps, +inf included, so that delta(+inf) is the P-mass at +inf (the
 * limit of delta, which the lower discretisation asks for). */
static double atoms_log_delta(const atom *a, int n, double eps)
{
    double acc = -INFINITY;
    for (int i = 0; i < n; i++)
        if (a[i].loss > eps || a[i].loss == INFINITY)
            acc = dpa_log_add_exp(acc, a[i].log_p + (a[i].loss == INFINITY ? 0.0 : log1mexp(eps - a[i].loss)));
    return acc;
}

static double atoms_log_q(const atom *a, int n, double eps)
{
    double acc = -INFINITY;
    for (int i = 0; i < n; i++)
        if (a[i].loss > eps) acc = dpa_log_add_exp(acc, a[i].log_q);
    return acc;
}

/* k-ary randomized response (Warner 1965; Kairouz, Oh & Viswanath 2016):
 * with D = e^eps + k - 1, input a gives output a w.p. e^eps / D and every
 * other output w.p. 1 / D.  Any two inputs a != b give the same pair up to
 * relabelling: outcome a (loss eps, masses e^eps/D, 1/D), outcome b (loss
 * -eps, 1/D, e^eps/D), k - 2 others (loss 0, 1/D each).  Symmetric. */
static int rr_atoms(const pld_profile *p, atom a[3])
{
    double e = p->eps, k = (double)p->k;
    double log_d = e + log1p((k - 1.0) * exp(-e));      /* log D */
    a[0] = (atom){ e, e - log_d, -log_d };
    a[1] = (atom){ -e, -log_d, e - log_d };
    if (p->k <= 2) return 2;
    a[2] = (atom){ 0.0, log(k - 2.0) - log_d, log(k - 2.0) - log_d };
    return 3;
}

/* The (eps, delta) black box: every (eps, delta)-DP pair is a
 * post-processing of the four-point pair (Kairouz, Oh & Viswanath 2015,
 * Thm 2.1; Murtagh & Vadhan 2016, Lemma 3.2)
 *   P = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0),
 *   Q = (0, (1-delta)/(1+e^eps), (1-delta) e^eps/(1+e^eps), delta),
 * with losses +inf, eps, -eps, -inf.  By (1):
 *   delta(e') = delta                                       e' >= eps,
 *             = delta + (1-delta)(e^eps - e^e')/(1+e^eps)   -eps <= e' < eps,
 *             = 1 - (1-delta) e^e'                          e' < -eps. */
static int epsdelta_atoms(const pld_profile *p, atom a[4])
{
    double e = p->eps, l1d = log1p(-p->delta), lz = log1p(exp(-e)); /* log(1+e^eps) - eps */
    a[0] = (atom){ INFINITY, log(p->delta), -INFINITY };
    a[1] = (atom){ e, l1d - lz, l1d - e - lz };
    a[2] = (atom){ -e, l1d - e - lz, l1d - lz };
    a[3] = (atom){ -INFINITY, -INFINITY, log(p->delta) };
    return 4;
}

/* ---- Laplace ---------------------------------------------------------------- */

/* P = Lap(1, b), Q = Lap(0, b): L(x) = (|x| - |x - 1|)/b, -e0 for x <= 0,
 * (2x - 1)/b on [0, 1], e0 for x >= 1 (e0 = 1/b), with atoms P = e^{-e0}/2,
 * Q = 1/2 at -e0 and P = 1/2, Q = e^{-e0}/2 at e0.  For |eps| < e0, L > eps
 * iff x > x0 = (b eps + 1)/2 and (1) gives
 *   delta = 1 - e^{(x0-1)/b}/2 - e^eps e^{-x0/b}/2 = 1 - e^{(eps - e0)/2}
 * (Koskela, Jalko, Prediger & Honkela 2021, Sec. 6; dp_accounting's
 * LaplacePrivacyLoss), 1 - e^eps below -e0 and 0 from e0 on. */
static double laplace_log_delta(double b, double eps)
{
    double e0 = 1.0 / b;
    if (eps >= e0) return -INFINITY;
    if (eps < -e0) return log1mexp(eps);
    return log1mexp(0.5 * (eps - e0));
}

/* Q(L > eps) = Q(X > x0) = e^{-x0/b}/2 = e^{-(eps + e0)/2}/2 on [-e0, e0). */
static double laplace_log_q(double b, double eps)
{
    double e0 = 1.0 / b;
    if (eps >= e0) return -INFINITY;
    if (eps < -e0) return 0.0;
    return -M_LN2 - 0.5 * (eps + e0);
}

/* ---- truncated Laplace ---------------------------------------------------------- */

/* P = TLap centred at 1, Q = TLap centred at 0, both with density
 * (E / 2Z) e^{-E |x - c|} on [c - A, c + A], Z = 1 - e^{-EA} (Geng et al.
 * 2020; A >= 1 as delta <= 1/2).  With y = x - 1 the loss L = log p/q is
 *   +inf  for y in (A - 1, A]   (Q = 0 there): P-mass
 *         ds = (e^E - 1) / (2 (e^{EA} - 1)), the strip of the calibration;
 *   E     for y in [0, A - 1]:   P-mass mp = (1 - e^{-E(A-1)}) / 2Z, Q-mass e^{-E} mp;
 *   E (2y + 1) for y in (-1, 0): P-density (E/2Z) e^{E y};
 *   -E    for y in [-A, -1]:     P-mass e^{-E} mp, Q-mass mp;
 *   -inf  on Q's own strip, Q-mass ds.
 * Integrating (1 - e^{eps - L})_+ over P gives, for -E <= eps < E,
 *   delta(eps) = ds + mp (1 - e^{eps - E}) + (1 - e^{(eps - E)/2})^2 / 2Z,
 * for eps < -E
 *   delta(eps) = ds + mp (1 - e^{eps - E}) + (1 - e^{-E})(1 - e^{eps}) / 2Z
 *                + e^{-E} mp (1 - e^{eps + E}),
 * and ds for eps >= E (the mass at +inf); every term is positive.  Its
 * monotonicity in the shift (so that this pair, at the full sensitivity,
 * dominates a query that moves less) is checked in tests/test_mechanisms.c. */
typedef struct { double E, log_ds, mp, inv2z; } tlap_terms;

static tlap_terms tlap_of(const pld_profile *p)
{
    double E = p->eps, A = p->sigma, z = -expm1(-E * A);
    tlap_terms t = { E, log_expm1(E) - M_LN2 - log_expm1(E * A), -expm1(-E * (A - 1.0)) / (2.0 * z),
                     0.5 / z };
    return t;
}

static double tlap_log_delta(const pld_profile *p, double eps)
{
    tlap_terms t = tlap_of(p);
    if (eps >= t.E) return t.log_ds;
    double ds = exp(t.log_ds), rest;
    if (eps >= -t.E) {
        double h = -expm1(0.5 * (eps - t.E));
        rest = t.mp * -expm1(eps - t.E) + h * h * t.inv2z;
    } else {
        rest = t.mp * -expm1(eps - t.E) + -expm1(-t.E) * -expm1(eps) * t.inv2z +
               exp(-t.E) * t.mp * -expm1(eps + t.E);
    }
    return log(ds + rest);
}

/* Q(L > eps): e^{-E} mp + (Q-mass of y in (x1 - 1, 0), x1 = (eps/E + 1)/2)
 * = e^{-E} mp + e^{-(eps + E)/2} (1 - e^{-(E - eps)/2}) / 2Z on [-E, E);
 * everything but Q's strip, 1 - ds, below -E; 0 from E on. */
static double tlap_log_q(const pld_profile *p, double eps)
{
    tlap_terms t = tlap_of(p);
    if (eps >= t.E) return -INFINITY;
    if (eps < -t.E) return log1mexp(t.log_ds);
    return log(exp(-t.E) * t.mp + exp(-0.5 * (eps + t.E)) * -expm1(-0.5 * (t.E - eps)) * t.inv2z);
}

/* ---- discrete Laplace --------------------------------------------------------- */

/* P(x) = c r^{|x - k|}, Q(x) = c r^{|x|} on Z, r = e^{-1/t}, c = (1-r)/(1+r)
 * (the discrete Laplace of scale t; Ghosh, Roughgarden & Sundararajan 2012).
 * L(x) = -k/t for x <= 0 (masses P = r^k/(1+r), Q = 1/(1+r)), (2x - k)/t for
 * 0 < x < k, k/t for x >= k (P = 1/(1+r), Q = r^k/(1+r)).  With m the first
 * middle point whose loss exceeds eps and n = k - m middle points above it,
 * the geometric sums give, for eps >= 0,
 *   (1+r) delta = (1 - e^{eps - k/t}) + (1 - r^n) r (1 - e^{eps - (m-1)/t}),
 *   (1+r) Q(L > eps) = [k/t > eps] r^k + r^m (1 - r^n) + [-k/t > eps],
 * each a product of factors computed without cancellation (the middle sum
 * is a sum of positive terms p_x - e^eps q_x, so its factor is positive). */
static double dlap_loss(double t, double k, double x) { return (2.0 * x - k) / t; }

/* The smallest integer m in [1, k] with m == k or loss(m) > eps. */
static double dlap_first(double t, double k, double eps)
{
    double m = floor(0.5 * (t * eps + k)) + 1.0;
    if (!(m >= 1.0)) m = 1.0;     /* also for eps = -inf */
    if (m > k) m = k;
    while (m > 1.0 && dlap_loss(t, k, m - 1.0) > eps) m -= 1.0;
    while (m < k && !(dlap_loss(t, k, m) > eps)) m += 1.0;
    return m;
}

static double dlap_log_delta_pos(double t, double k, double eps)
{
    if (eps >= k / t) return -INFINITY;
    double log1r = log1p(exp(-1.0 / t));
    double top = log1mexp(eps - k / t);
    double m = dlap_first(t, k, eps), n = k - m;
    double mid = -INFINITY;
    if (n > 0.0) {
        double f = eps - (m - 1.0) / t;
        if (f < 0.0) mid = log1mexp(-n / t) - 1.0 / t + log1mexp(f);
    }
    return dpa_log_add_exp(top, mid) - log1r;
}

static double dlap_log_delta(double t, double k, double eps)
{
    if (eps < 0.0) return pld_reflect_log_delta(eps, dlap_log_delta_pos(t, k, -eps));
    return dlap_log_delta_pos(t, k, eps);
}

static double dlap_log_q(double t, double k, double eps)
{
    double log1r = log1p(exp(-1.0 / t));
    double acc = -INFINITY;
    if (k / t > eps) acc = -k / t;
    double m = dlap_first(t, k, eps), n = k - m;
    if (n > 0.0) acc = dpa_log_add_exp(acc, -m / t + log1mexp(-n / t));
    if (-k / t > eps) acc = dpa_log_add_exp(acc, 0.0);
    return acc - log1r;
}

/* ---- discrete Gaussian -------------------------------------------------------- */

/* P = N_Z(k, s^2), Q = N_Z(0, s^2), N_Z(mu, s^2)(x) = e^{-(x-mu)^2/(2 s^2)} / Z
 * on the integers (Canonne, Kamath & Steinke 2020, Def. 1; for integer mu
 * the normaliser Z = sum_x e^{-x^2/(2 s^2)} is the same for both, so it
 * cancels in L(x) = k (2x - k)/(2 s^2) but not in the masses).  L increases
 * in x, so (1) is the sum over x > x* = s^2 eps/k + k/2 of
 * P(x) (1 - e^{eps - L(x)}) (CKS 2020, Thm 7 with the sum kept as a sum of
 * positive terms). */
static double dg_loss(double s, double k, double x) { return k * (2.0 * x - k) / (2.0 * s * s); }

/* log Z.  For s >= 1 by Poisson summation (the Jacobi theta transformation)
 *   Z = sqrt(2 pi) s (1 + 2 sum_{j>=1} e^{-2 pi^2 s^2 j^2}),
 * keeping j = 1: the rest is below 2.1 e^{-8 pi^2 s^2} < 1e-34 relative.
 * For s < 1 directly, 1 + 2 sum_{x=1}^{40} e^{-x^2/(2 s^2)}: the omitted
 * terms are below e^{-840} relative. */
double pld_discrete_gaussian_log_norm(double s)
{
    if (s >= 1.0) return LOG_SQRT_2PI + log(s) + log1p(2.0 * exp(-2.0 * M_PI * M_PI * s * s));
    double acc = 0.0;
    for (int x = 40; x >= 1; x--) acc += exp(-(double)x * x / (2.0 * s * s));
    return log1p(2.0 * acc);
}

/* log sum_{x >= m} e^{-(x-c)^2/(2 s^2)} w(x), with w(x) = 1 - e^{eps - L(x)}
 * when weighted (then L(m) > eps), else w = 1.  The terms past the peak
 * decrease with ratios e^{-(2(x-c)+1)/(2 s^2)} that themselves decrease
 * (log-concavity), so once x >= c the rest is at most the next term over
 * (1 - its ratio); the loop stops when that is below 2^-64 of the sum.
 * m and c are integers within DG_FAR s + k of 0 (s <= 1e5, k <= 1e6,
 * checked by pld_profile_of_event), so the products are exact in double. */
static double dg_log_tail(double s, double k, double c, double m, int weighted, double eps)
{
    double xr = fmax(m, c);
    double g_ref = -(xr - c) * (xr - c) / (2.0 * s * s);
    dpa_sum sum = { 0 };
    for (double x = m;; x += 1.0) {
        double d = -(x - xr) * (x + xr - 2.0 * c) / (2.0 * s * s);
        double w = weighted ? -expm1(eps - dg_loss(s, k, x)) : 1.0;
        dpa_sum_add(&sum, exp(d) * w);
        if (x >= c) {
            double dn = -(x + 1.0 - xr) * (x + 1.0 + xr - 2.0 * c) / (2.0 * s * s);
            double one_minus_ratio = -expm1(-(2.0 * (x + 1.0 - c) + 1.0) / (2.0 * s * s));
            double total = dpa_sum_value(&sum);
            if (exp(dn) <= 0x1p-64 * total * one_minus_ratio) break;
        }
    }
    return g_ref + log(dpa_sum_value(&sum));
}

/* The smallest integer x with L(x) > eps. */
static double dg_first(double s, double k, double eps)
{
    double m = floor(s * s * eps / k + 0.5 * k) + 1.0;
    while (dg_loss(s, k, m - 1.0) > eps) m -= 1.0;
    while (!(dg_loss(s, k, m) > eps)) m += 1.0;
    return m;
}

/* Beyond this many standard deviations from the centre a tail of N_Z is
 * below e^{-DG_FAR^2/2} = e^{-5e4}: zero for every purpose, and the sums
 * are not attempted (they would start at integers beyond 2^52 for huge
 * eps). */
#define DG_FAR 316.0

static double dg_log_delta(const pld_profile *p, double eps)
{
    double s = p->sigma, k = (double)p->k;
    if (eps < 0.0) return pld_reflect_log_delta(eps, dg_log_delta(p, -eps));
    if (s * s * eps / k + 0.5 * k - k > DG_FAR * s) return -INFINITY;   /* also eps = inf */
    return dg_log_tail(s, k, k, dg_first(s, k, eps), 1, eps) - p->log_norm;
}

/* Q(L > eps) = Q(X >= m); for m <= 0 as 1 - Q(X >= 1 - m) (Q is symmetric
 * about 0), where the subtracted tail is below 1/2. */
static double dg_log_q(const pld_profile *p, double eps)
{
    double s = p->sigma, k = (double)p->k;
    double xs = s * s * eps / k + 0.5 * k;     /* the crossing, also +-inf */
    if (xs > DG_FAR * s) return -INFINITY;
    if (xs < -DG_FAR * s) return 0.0;
    double m = dg_first(s, k, eps);
    if (m >= 1.0) return dg_log_tail(s, k, 0.0, m, 0, 0.0) - p->log_norm;
    return log1mexp(dg_log_tail(s, k, 0.0, 1.0 - m, 0, 0.0) - p->log_norm);
}

/* ---- replace-one Poisson-subsampled Gaussian ------------------------------------ */

/* Lebeda, Regehr, Kamath & Steinke 2024, "Avoiding pitfalls for privacy
 * accounting of subsampled mechanisms under composition" (notes 2.4): for
 * Poisson rate q under substitution one step is dominated by
 *   P = (1-q) N(0,s^2) + q N(1,s^2),  Q = (1-q) N(0,s^2) + q N(-1,s^2).
 * With a = q e^{-1/(2 s^2)} and y = e^{x/s^2},
 *   e^{L(x)} = (1 - q + a y) / (1 - q + a / y),
 * increasing in x, and L(-x) = -L(x) (symmetric pair).  e^L = e^eps is the
 * quadratic a y^2 - (1-q)(e^eps - 1) y - a e^eps = 0, whose positive root is
 *   y = (B + sqrt(B^2 + C^2)) / (2a),  B = (1-q)(e^eps - 1), C = 2 a e^{eps/2}
 * (a closed form; no root finder needed), evaluated in logs for eps >= 0
 * and mirrored for eps < 0. */
static double replace_crossing(double s, double q, double eps)
{
    if (eps < 0.0) return -replace_crossing(s, q, -eps);
    double log_a = log(q) - 1.0 / (2.0 * s * s);
    double lb = log1p(-q) + log_expm1(eps);             /* -inf at eps = 0 or q = 1 */
    double lc = M_LN2 + log_a + 0.5 * eps;
    double m = fmax(lb, lc);
    double eb = exp(lb - m), ec = exp(lc - m);
    double u = m + log(eb + sqrt(eb * eb + ec * ec)) - M_LN2 - log_a;
    return s * s * u;
}

/* delta(eps >= 0) = P(X > x) - e^eps Q(X > x) = T1 - T2 - T3 with
 *   T1 = q Phibar((x-1)/s), T2 = (1-q)(e^eps - 1) Phibar(x/s),
 *   T3 = q e^eps Phibar((x+1)/s);
 * the ratio (T2 + T3)/T1 is taken from Mills ratios once (x-1)/s > 2, where
 * the Gaussian factors cancel exactly ((b^2 - a^2)/2 = (2x-1)/(2 s^2),
 * (c^2 - a^2)/2 = 2x/s^2). */
static double replace_log_delta_pos(double s, double q, double eps, double *log_ratio, double *xo)
{
    double x = replace_crossing(s, q, eps);
    *xo = x;
    double a = (x - 1.0) / s, b = x / s, c = (x + 1.0) / s;
    double lk2 = log1p(-q) + log_expm1(eps) - log(q);   /* log((1-q)(e^eps-1)/q) */
    double log_t1 = log(q) + dpa_log_ndtr(-a);
    double lr2, lr3;
    if (a > 2.0) {
        double la = dpa_log_mills(a);
        lr2 = lk2 + dpa_log_mills(b) - la - (2.0 * x - 1.0) / (2.0 * s * s);
        lr3 = eps + dpa_log_mills(c) - la - 2.0 * x / (s * s);
    } else {
        lr2 = lk2 + dpa_log_ndtr(-b) - dpa_log_ndtr(-a);
        lr3 = eps + dpa_log_ndtr(-c) - dpa_log_ndtr(-a);
    }
    double lr = dpa_log_add_exp(lr2, lr3);
    *log_ratio = lr;
    if (!(lr < 0.0)) return -INFINITY;
    return log_t1 + dpa_log1mexp(lr);
}

static double replace_log_delta(const pld_profile *p, double eps)
{
    double lr, x;
    if (eps == INFINITY) return -INFINITY;
    if (eps < 0.0) return pld_reflect_log_delta(eps, replace_log_delta_pos(p->sigma, p->q, -eps, &lr, &x));
    return replace_log_delta_pos(p->sigma, p->q, eps, &lr, &x);
}

static double replace_log_q(const pld_profile *p, double eps)
{
    double s = p->sigma, q = p->q;
    if (eps == -INFINITY) return 0.0;
    if (eps == INFINITY) return -INFINITY;
    double x = replace_crossing(s, q, eps);
    return dpa_log_add_exp(log1p(-q) + dpa_log_ndtr(-x / s), log(q) + dpa_log_ndtr(-(x + 1.0) / s));
}

/* ---- the shuffle clones pair ------------------------------------------------------ */

static clones_pair clones_of(const pld_profile *p)
{
    return clones_pair_make(p->eps, 0.0, p->k, p->randomizer);
}

/* log of the bracket's midpoint, and the bracket's half-width relative to it */
double pld_mech_clones_log_delta(const pld_profile *p, double eps, double *relerr)
{
    clones_pair cp = clones_of(p);
    double lo, up;
    clones_delta(&cp, eps, &lo, &up);
    double mid = 0.5 * (lo + up);
    *relerr = mid > 0.0 ? fmin(1.0, (up - lo) / (2.0 * mid) * (1.0 + 1e-9) + 4.0 * ULP) : 1e-13;
    return log(mid);
}

/* log Q(L > eps): the bracket's upper end (the lower discretisation uses it
 * for the chord errors, where over-estimates only lower the bound) */
static double clones_log_q(const pld_profile *p, double eps)
{
    clones_pair cp = clones_of(p);
    double lo, up;
    clones_q_survival(&cp, eps, &lo, &up);
    return log(up);
}

/* ---- dispatch ------------------------------------------------------------------- */

double pld_mech_log_delta(const pld_profile *p, double eps)
{
    if (isnan(eps)) return NAN;
    atom a[4];
    switch (p->pair) {
    case PLD_LAPLACE: return laplace_log_delta(p->sigma, eps);
    case PLD_TRUNCATED_LAPLACE: return tlap_log_delta(p, eps);
    case PLD_RANDOMIZED_RESPONSE: return atoms_log_delta(a, rr_atoms(p, a), eps);
    case PLD_EPSILON_DELTA: return atoms_log_delta(a, epsdelta_atoms(p, a), eps);
    case PLD_DISCRETE_LAPLACE: return dlap_log_delta(p->sigma, (double)p->k, eps);
    case PLD_DISCRETE_GAUSSIAN: return dg_log_delta(p, eps);
    case PLD_REPLACE_GAUSSIAN: return replace_log_delta(p, eps);
    case PLD_SHUFFLE_CLONES: {
        double ignored;
        return pld_mech_clones_log_delta(p, eps, &ignored);
    }
    default: return NAN;
    }
}

double pld_mech_log_q_survival(const pld_profile *p, double eps)
{
    if (isnan(eps)) return NAN;
    atom a[4];
    switch (p->pair) {
    case PLD_LAPLACE: return laplace_log_q(p->sigma, eps);
    case PLD_TRUNCATED_LAPLACE: return tlap_log_q(p, eps);
    case PLD_RANDOMIZED_RESPONSE: return atoms_log_q(a, rr_atoms(p, a), eps);
    case PLD_EPSILON_DELTA: return atoms_log_q(a, epsdelta_atoms(p, a), eps);
    case PLD_DISCRETE_LAPLACE: return dlap_log_q(p->sigma, (double)p->k, eps);
    case PLD_DISCRETE_GAUSSIAN: return dg_log_q(p, eps);
    case PLD_REPLACE_GAUSSIAN: return replace_log_q(p, eps);
    case PLD_SHUFFLE_CLONES: return clones_log_q(p, eps);
    default: return NAN;
    }
}

void pld_mech_loss_range(const pld_profile *p, double z, double *lo, double *hi)
{
    switch (p->pair) {
    case PLD_LAPLACE: *hi = 1.0 / p->sigma; *lo = -*hi; return;
    case PLD_RANDOMIZED_RESPONSE:
    case PLD_TRUNCATED_LAPLACE:
    case PLD_EPSILON_DELTA: *hi = p->eps; *lo = -p->eps; return;
    case PLD_DISCRETE_LAPLACE: *hi = (double)p->k / p->sigma; *lo = -*hi; return;
    case PLD_DISCRETE_GAUSSIAN: {
        /* x outside [-z s - 1, k + z s + 1] carries e^{-z^2/2}/Z-small mass
         * under both (Z >= 1; the tail sum is dominated geometrically) */
        double s = p->sigma, k = (double)p->k;
        *lo = dg_loss(s, k, floor(-z * s) - 1.0);
        *hi = dg_loss(s, k, ceil(k + z * s) + 1.0);
        return;
    }
    case PLD_REPLACE_GAUSSIAN: {
        double s = p->sigma, xh = 1.0 + z * s;
        *hi = log_mix(p->q, (2.0 * xh - 1.0) / (2.0 * s * s)) - log_mix(p->q, (-2.0 * xh - 1.0) / (2.0 * s * s));
        *lo = -*hi;
        return;
    }
    case PLD_SHUFFLE_CLONES: {
        /* the pair is symmetric; outside [-t, t] P holds about 2 Phibar(z) */
        clones_pair cp = clones_of(p);
        *hi = clones_loss_range(&cp, erfc(z / M_SQRT2));
        *lo = -*hi;
        return;
    }
    default: *lo = *hi = NAN; return;
    }
}

/* |d log delta / d eps| = e^eps Q(L > eps) / delta(eps), by (2): how much an
 * absolute error in eps (or in a loss it is compared with) moves log delta. */
static double sensitivity(const pld_profile *p, double eps)
{
    double ld = pld_mech_log_delta(p, eps);
    if (!isfinite(ld)) return 0.0;
    double v = exp(eps + pld_mech_log_q_survival(p, eps) - ld);
    return isfinite(v) ? v : DBL_MAX;
}

/* The largest finite loss magnitude whose rounding enters the comparison
 * with eps. */
static double loss_scale(const pld_profile *p)
{
    switch (p->pair) {
    case PLD_LAPLACE: return 1.0 / p->sigma;
    case PLD_RANDOMIZED_RESPONSE:
    case PLD_TRUNCATED_LAPLACE:
    case PLD_EPSILON_DELTA: return p->eps;
    case PLD_DISCRETE_LAPLACE: return (double)p->k / p->sigma;
    default: return 0.0;
    }
}

double pld_mech_delta_relerr(const pld_profile *p, double eps)
{
    if (p->pair == PLD_SHUFFLE_CLONES) {
        double relerr;
        pld_mech_clones_log_delta(p, eps, &relerr);
        return relerr;
    }
    double ld = pld_mech_log_delta(p, eps);
    if (!isfinite(ld)) return 1e-13;           /* delta = 0 (or 1) exactly */
    double base = 1e-13 + 32.0 * ULP * (1.0 + fabs(ld));
    switch (p->pair) {
    case PLD_LAPLACE:
    case PLD_TRUNCATED_LAPLACE:
    case PLD_RANDOMIZED_RESPONSE:
    case PLD_EPSILON_DELTA:
    case PLD_DISCRETE_LAPLACE:
    case PLD_DISCRETE_GAUSSIAN:
        /* sums of positive terms, each 1 - e^{eps - l} with eps - l off by
         * a few ulps of |eps| + |l| (amplified by (2)); the discrete
         * Gaussian's losses are about |eps| where they matter */
        return base + 16.0 * ULP * sensitivity(p, eps) * (1.0 + 2.0 * fabs(eps) + loss_scale(p));
    case PLD_REPLACE_GAUSSIAN: {
        double e = fabs(eps), lr, x, sg = p->sigma;
        double ldp = replace_log_delta_pos(sg, p->q, e, &lr, &x);
        if (!isfinite(ldp)) return 1e-13;
        double amp = lr == -INFINITY ? 1.0 : 1.0 / -expm1(lr);
        /* The log ratio r = (T2 + T3)/T1 carries a few ulps of the
         * magnitudes of its terms (eps, log((1-q)(e^eps-1)/q), the
         * quadratic terms ~ |x|/s^2, and without Mills ratios the logs of
         * the normal tails, up to c^2/2), amplified by 1/(1 - r); log T1
         * carries ulps of its own magnitude, not amplified.  Errors in x
         * cancel to first order (the crossing is stationary for
         * T1 - T2 - T3). */
        double a = (x - 1.0) / sg, c = (x + 1.0) / sg;
        double lk2 = log1p(-p->q) + log_expm1(e) - log(p->q);
        double mag = 1.0 + e + (isfinite(lk2) ? fabs(lk2) : 0.0) + 2.0 * fabs(x) / (sg * sg) +
                     (a > 2.0 ? 0.0 : 0.5 * (a * a + c * c));
        double rel_pos = 1e-13 + 32.0 * ULP * (1.0 + fabs(ldp)) + 32.0 * ULP * mag * amp;
        if (eps >= 0.0) return rel_pos;
        /* (3): the reflected term's share of delta(eps) carries its error */
        double share = exp(eps + ldp - ld);
        return base + (share < 1.0 ? share : 1.0) * rel_pos;
    }
    default: return NAN;
    }
}
