/*
 * test_property.c - a standing adversarial property test (issue 17, item 5).
 *
 * Random AND extreme mechanisms (noise multipliers from 1e-300 to 1e300,
 * sampling rates from 1e-12 to exactly 1, composition counts from 1 to
 * 2^63, Renyi orders up to 1e300, deltas down to 1e-300) are handed to
 * every registered accountant that supports them, under both neighbouring
 * relations, and every answer is checked against the project's first rule:
 * an accountant never reports an epsilon or a delta below the true one.
 *
 *  (a) a query returns DPA_OK, or a negative status with a non-empty
 *      message (DPA_EACCURACY may carry a bracket, which is then checked
 *      like an OK answer);
 *  (b) no NaN in lower/estimate/upper, lower <= estimate <= upper,
 *      eps upper >= 0, delta lower and upper in [0, 1], and upper >= an
 *      independent LOWER reference for the true value computed here;
 *  (c) never eps upper = 0 or delta upper = 0 where the reference proves
 *      the true value positive;
 *  (d) calibration (dpa_calibrate, dpa_calibrate_search) never accepts a
 *      noise multiplier whose reference eps exceeds the target, on Gaussian
 *      and Poisson-subsampled families and extreme intervals such as
 *      [1e-12, 2e-12];
 *  (e) the rdp curve has no NaN and is never below the exact Gaussian RDP
 *      alpha mu^2 / 2 of the Gaussian (q = 1) parts.
 * Where the mechanism is exactly known (a Gaussian composition, one
 * Laplace, one randomized response, one add/remove Poisson-subsampled
 * Gaussian) an upper reference is computed as well and the accountant's
 * `lower` must not exceed it.
 *
 * The references are written here, from the papers, in long double with
 * rigorous error margins (every rounding and every argument error is
 * bounded and pushed to the safe side; see "references" below); they
 * call no library code.  REF_SLACK (1e-9 relative) is added on top, for
 * anything the margins missed.  A self-check compares them with the MPFR
 * references of tests/mpfr_ref.c.
 *
 * Besides the leaves the references know (Gaussian, Poisson-subsampled
 * Gaussian, Laplace, randomized response, tree aggregation, GDP, zCDP),
 * shuffled and repeated_selected events are drawn now and then so that the
 * shuffle and tuning accountants are exercised too (sanity checks only).
 * The pinned cases are the bugs that motivated the test, and pld asked for
 * huge counts (2^53 .. 2^63).
 *
 * The draws are deterministic: case i uses gsl_rng mt19937 seeded with
 * PROP_SEED + i, so a failing case is reproduced by its number.  The
 * number of cases is DPA_PROPERTY_CASES (default 1200; pld gets one in
 * PLD_STRIDE); DPA_PROPERTY_VERBOSE=1 prints every failure and the time
 * each accountant took (timing is reported only, never asserted).
 *
 * Failures are collected rather than stopping at the first: each test
 * prints, for every kind of failure, its count and the smallest reproducer
 * (shortest event description), then fails with the first kind's message.
 */
#include "dpacct.h"
#include "mpfr_ref.h"
#include "testutil.h"

#include <check.h>
#include <float.h>
#include <gsl/gsl_rng.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROP_SEED 20250117UL
#define DEFAULT_CASES 1200u
#define PLD_STRIDE 64u       /* pld (FFT) is the slow accountant: every 64th case, */
#define PLD_MAX_COUNT 64u    /* its counts clamped to 64, one eps and one delta query, one relation */
#define REF_SLACK 1e-9       /* relative, on top of the references' own margins */
#define MAXC 8               /* non-Gaussian components kept per mechanism */

typedef long double ld;

/* ===================================================================== */
/* references                                                             */
/* ===================================================================== */
/*
 * All of them are bounds on log delta(eps), the hockey-stick divergence
 * sup_S P(S) - e^eps Q(S) of a dominating pair, as an interval [lo, hi]
 * of long doubles.  `lo` is what the accountant's upper must reach; `hi`
 * (exact mechanisms only) what its lower must not exceed.
 *
 * Error accounting.  U = LDBL_EPSILON.  Each library function of <math.h>
 * on long double (erfcl, expl, logl, log1pl, expm1l) is assumed accurate to
 * a few ulps; every formula adds a margin of at least 64 U relative to the
 * magnitudes involved.  Arguments that carry a rounding error (v known to
 * lie in [v - dv, v + dv]) are handled by monotonicity: the three functions
 * used (log Phibar, log of the Mills ratio R, log h) are all decreasing,
 * so the lower bound is taken at v + dv and the upper at v - dv.
 */
#define U ((ld)LDBL_EPSILON)
static const ld LN2 = 0.693147180559945309417232121458176568L;
static const ld LOG_SQRT_2PI = 0.918938533204672741780329736405617640L;
static const ld SQRT1_2 = 0.707106781186547524400844362104849039L;

typedef struct {
    ld lo, hi;
} lrange;

static ld softplus(ld x) /* log(1 + e^x) */
{
    return x > 0 ? x + log1pl(expl(-x)) : log1pl(expl(x));
}

static ld log_expm1(ld x) /* log(e^x - 1), x > 0 */
{
    return x > 1 ? x + log1pl(-expl(-x)) : logl(expm1l(x));
}

/* Bounds on log(e^a - e^b) for exact a, b: lower (-inf when b >= a) and upper. */
static ld log_sub_lo(ld a, ld b)
{
    if (isnan(a) || isnan(b) || !(b < a)) return -INFINITY;
    if (b == -INFINITY) return a;
    ld d = -expm1l(b - a);
    return a + logl(d) - 8 * U * (1 + fabsl(a) + fabsl(logl(d)) + 1 / d);
}

static ld log_sub_hi(ld a, ld b)
{
    if (isnan(a) || isnan(b)) return 0;
    if (!(b < a)) return a; /* inconsistent bounds: do not claim anything smaller than A */
    if (b == -INFINITY) return a;
    ld d = -expm1l(b - a);
    return a + logl(d) + 8 * U * (1 + fabsl(a) + fabsl(logl(d)) + 1 / d);
}

/* The Mills ratio R(v) = Phibar(v)/phi(v) for v >= 12 from Laplace's
 * asymptotic series R(v) = sum_k (-1)^k (2k-1)!! / v^(2k+1).  From
 * R(v) = int_0^inf e^{-vt} e^{-t^2/2} dt and the alternating Taylor
 * remainder of e^{-s}, R lies between any two consecutive partial sums
 * (Abramowitz & Stegun 7.1.24; Gordon 1941), whatever the number of terms.
 * h(v) = 1 - v R(v) = sum_{k>=1} (-1)^{k+1} (2k-1)!! / v^(2k), likewise. */
static void mills_series(ld v, ld *rlo, ld *rhi, ld *hlo, ld *hhi)
{
    ld inv2 = 1 / (v * v);
    ld term = 1 / v, s = term, sprev = s;
    ld hterm = inv2, h = hterm, hprev = h;
    for (int k = 1; k <= 60; k++) {
        term *= -(2 * k - 1) * inv2;
        sprev = s;
        s += term;
        hterm *= -(2 * k + 1) * inv2;
        hprev = h;
        h += hterm;
        if (fabsl(term) < 1e-30L * s && fabsl(hterm) < 1e-30L * h) break;
    }
    *rlo = fminl(s, sprev) * (1 - 64 * U);
    *rhi = fmaxl(s, sprev) * (1 + 64 * U);
    *hlo = fminl(h, hprev) * (1 - 64 * U);
    *hhi = fmaxl(h, hprev) * (1 + 64 * U);
}

/* log Phibar(v), v exact.  v < 12: erfc(v/sqrt 2)/2 (no underflow: erfc
 * of at most 8.5 is above 1e-33); the product v/sqrt2 carries a relative
 * 2U whose effect, |d log erfc/dy| <= 2|y| + 2, is within the v^2 term. */
static lrange lphibar_b(ld v)
{
    lrange r;
    if (v < 12) {
        ld e = erfcl(v * SQRT1_2);
        ld l = logl(e) - LN2;
        ld m = 64 * U * (1 + fabsl(l) + (v > 0 ? v * v : 0)); /* v < 0: |d log Phibar/dv| <= 2 phi(v) */
        r.lo = l - m;
        r.hi = fminl(l + m, 0);
    } else {
        ld rlo, rhi, hlo, hhi;
        mills_series(v, &rlo, &rhi, &hlo, &hhi);
        ld lp = -v * v / 2 - LOG_SQRT_2PI, m = 64 * U * (1 + v * v);
        r.lo = lp + logl(rlo) - m;
        r.hi = lp + logl(rhi) + m;
    }
    return r;
}

/* log R(v), v exact. */
static lrange logr_b(ld v)
{
    lrange r;
    if (v < 12) {
        ld e = erfcl(v * SQRT1_2);
        ld l = logl(e) - LN2 + v * v / 2 + LOG_SQRT_2PI;
        ld m = 64 * U * (1 + fabsl(logl(e)) + v * v);
        r.lo = l - m;
        r.hi = l + m;
    } else {
        ld rlo, rhi, hlo, hhi;
        mills_series(v, &rlo, &rhi, &hlo, &hhi);
        r.lo = logl(rlo) - 8 * U;
        r.hi = logl(rhi) + 8 * U;
    }
    return r;
}

/* log h(v), h(v) = 1 - v R(v) > 0, v exact.  h is decreasing on the
 * whole line: h' = v - (1 + v^2) R < 0 by Gordon's R(v) > v/(1 + v^2). */
static lrange logh_b(ld v)
{
    lrange r;
    if (v < 12) {
        lrange lr = logr_b(v);
        if (v >= 0) {
            ld hl = 1 - v * expl(lr.hi) - 8 * U, hh = 1 - v * expl(lr.lo) + 8 * U;
            r.lo = hl > 0 ? logl(hl) - 8 * U * (1 + 1 / hl) : -INFINITY;
            r.hi = logl(hh) + 8 * U * (1 + 1 / hh);
        } else {
            ld lv = logl(-v);
            r.lo = softplus(lv + lr.lo) - 8 * U * (1 + fabsl(lv + lr.lo));
            r.hi = softplus(lv + lr.hi) + 8 * U * (1 + fabsl(lv + lr.hi));
        }
    } else {
        ld rlo, rhi, hlo, hhi;
        mills_series(v, &rlo, &rhi, &hlo, &hhi);
        r.lo = logl(hlo) - 8 * U;
        r.hi = logl(hhi) + 8 * U;
    }
    return r;
}

/* f decreasing; the true argument lies in [v - dv, v + dv]. */
static lrange dec_at(lrange (*f)(ld), ld v, ld dv)
{
    dv += 4 * U * fabsl(v);
    lrange a = f(v + dv), b = f(v - dv);
    return (lrange){ a.lo, b.hi };
}

/*
 * The Gaussian mechanism: N(mu, 1) against N(0, 1), i.e. noise multiplier
 * 1/mu, or mu-GDP.  Balle & Wang 2018 (Thm 8) / Dong, Roth & Su 2022
 * (Cor. 2.13):
 *   delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
 *              = Phibar(z0) - e^eps Phibar(z0 + mu),  z0 = eps/mu - mu/2.
 * Form 1 evaluates that difference in logs (good when the two terms are
 * far apart: large mu).  Form 2 (good for small mu, where they cancel):
 * since e^eps phi(z0 + mu) = phi(z0),
 *   delta = phi(z0) [R(z0) - R(z0 + mu)] = phi(z0) int_{z0}^{z0+mu} h(u) du
 * (R' = uR - 1 = -h), and h decreasing gives
 *   mu h(z0 + mu) <= int <= mu h(z0).
 * The true delta lies in both brackets; the tighter side of each is kept.
 * mu and eps are exact here; gauss_range() handles their uncertainty.
 * Valid for any real eps (negative eps occurs in the add pair below).
 */
static ld gauss_lo(ld mu, ld eps)
{
    ld a = eps / mu, z0 = a - mu / 2, z1 = z0 + mu;
    ld dz = 8 * U * (fabsl(a) + mu + fabsl(z0) + fabsl(z1));
    lrange A = dec_at(lphibar_b, z0, dz), B = dec_at(lphibar_b, z1, dz);
    ld lb = eps + B.hi;
    lb += 8 * U * (fabsl(eps) + fabsl(B.hi));
    ld lo1 = log_sub_lo(A.lo, lb);
    ld az = fabsl(z0) + dz;
    ld lphi = -az * az / 2 - LOG_SQRT_2PI - 8 * U * (1 + az * az);
    lrange H = dec_at(logh_b, z1, dz);
    ld lmu = logl(mu);
    ld lo2 = lmu + lphi + H.lo - 8 * U * (1 + fabsl(lmu));
    ld lo = fmaxl(lo1, lo2);
    return isnan(lo) ? -INFINITY : fminl(lo, 0);
}

static ld gauss_hi(ld mu, ld eps)
{
    ld a = eps / mu, z0 = a - mu / 2, z1 = z0 + mu;
    ld dz = 8 * U * (fabsl(a) + mu + fabsl(z0) + fabsl(z1));
    lrange A = dec_at(lphibar_b, z0, dz), B = dec_at(lphibar_b, z1, dz);
    ld lb = eps + B.lo;
    lb -= 8 * U * (fabsl(eps) + fabsl(B.lo));
    ld hi1 = log_sub_hi(A.hi, lb);
    ld az = fmaxl(fabsl(z0) - dz, 0);
    ld lphi = -az * az / 2 - LOG_SQRT_2PI + 8 * U * (1 + az * az);
    lrange H = dec_at(logh_b, z0, dz);
    ld lmu = logl(mu);
    ld hi2 = lmu + lphi + H.hi + 8 * U * (1 + fabsl(lmu));
    ld hi = fminl(hi1, hi2);
    return isnan(hi) ? 0 : fminl(hi, 0);
}

/* mu known within relative mu_rel, eps within [e_lo, e_hi]: delta grows
 * with mu and falls with eps. */
static lrange gauss_range(ld mu, ld mu_rel, ld e_lo, ld e_hi, int want_hi)
{
    lrange r;
    r.lo = gauss_lo(mu * (1 - mu_rel - 2 * U), e_hi);
    r.hi = want_hi ? gauss_hi(mu * (1 + mu_rel + 2 * U), e_lo) : 0;
    return r;
}

/*
 * Poisson-subsampled Gaussian, add/remove, one step (a lower bound for T
 * steps: the T-step output contains the first step's, post-processing).
 * Shift m = mu_p (= 1/sigma), P_remove = (1-q) N(0,1) + q N(m,1) against
 * Q = N(0,1), and the add pair (Q, P_remove); the mechanism's delta is the
 * larger of the two (Zhu, Dong & Wang 2022, Sec. 5).  With S = {x > c}:
 *   P(S) - e^eps Q(S) = q [Phibar(c - m) - e^eps' Phibar(c)],
 *   eps' = log(1 + (e^eps - 1)/q),
 * so delta_remove(eps) = q delta_G(m; eps') (the loss is increasing, the
 * threshold sets are optimal).  The add pair with S = {x < c}:
 *   Phi(c) - e^eps [(1-q) Phi(c) + q Phi(c - m)] = F [Phi(c) - e^eps'' Phi(c - m)],
 *   F = 1 - e^eps (1 - q),  eps'' = eps + log q - log F,
 * and x -> m - x maps it to the Gaussian pair: delta_add = F delta_G(m; eps'')
 * when F > 0, and 0 otherwise.
 */
static lrange poisson_remove(ld mu_p, ld mu_rel, ld q, ld eps, int want_hi)
{
    ld lq = logl(q), e1, de;
    if (eps <= 1) e1 = log1pl(expm1l(eps) / q);
    else e1 = eps - lq + log1pl(-(1 - q) * expl(-eps));
    de = 16 * U * (fabsl(e1) + fabsl(lq) + fabsl(eps) + 1);
    lrange g = gauss_range(mu_p, mu_rel, e1 - de, e1 + de, want_hi);
    g.lo += lq - 4 * U * fabsl(lq);
    g.hi += lq + 4 * U * fabsl(lq);
    return g;
}

static lrange poisson_add(ld mu_p, ld mu_rel, ld q, ld eps, int want_hi)
{
    lrange r = { -INFINITY, -INFINITY };
    ld l1q = log1pl(-q), x = eps + l1q;
    ld dx = 8 * U * (fabsl(eps) + fabsl(l1q));
    if (!(x - dx < 0)) return r; /* F <= 0: the add pair has delta 0 */
    ld lq = logl(q);
    ld lf_hi = logl(-expm1l(x - dx)) + 8 * U;
    ld lf_lo = x + dx < 0 ? logl(-expm1l(x + dx)) - 8 * U : -INFINITY;
    ld e_lo = eps + lq - lf_hi, e_hi = eps + lq - lf_lo;
    ld re = 8 * U * (fabsl(eps) + fabsl(lq) + fabsl(lf_hi) + 1);
    if (isfinite(lf_lo)) {
        re += 8 * U * fabsl(lf_lo);
        lrange g = gauss_range(mu_p, mu_rel, e_lo - re, e_hi + re, want_hi);
        r.lo = lf_lo + g.lo;
        r.hi = lf_hi + g.hi;
    } else if (want_hi) {
        r.hi = lf_hi + gauss_range(mu_p, mu_rel, e_lo - re, e_lo - re, 1).hi;
    }
    return r;
}

/*
 * Poisson-subsampled Gaussian under replace-one, one step.  A record of
 * norm Delta/2 = 1 replaced by its opposite (the multiplier is sigma /
 * Delta, so the noise is s = 2 sigma in units of Delta/2):
 *   P = (1-q) N(0, s^2) + q N(1, s^2),  Q = (1-q) N(0, s^2) + q N(-1, s^2)
 * (the pair of Lebeda, Regehr, Kamath & Steinke 2024; any pair of
 * datasets that can occur gives a lower bound).  For ANY threshold c,
 *   delta >= P(x > c) - e^eps Q(x > c)
 *         = q Phibar((c-1)/s) - (1-q)(e^eps - 1) Phibar(c/s) - e^eps q Phibar((c+1)/s);
 * c is the crossing p(c) = e^eps q(c) found by bisection (the likelihood
 * ratio is increasing), but the bound holds for whatever c it returns.
 * Lower bound only.
 */
static ld lae(ld a, ld b) /* log(e^a + e^b) */
{
    if (a < b) { ld t = a; a = b; b = t; }
    if (b == -INFINITY) return a;
    return a + log1pl(expl(b - a));
}

static ld replace_loglr(ld x, ld s2, ld lq, ld l1q)
{
    return lae(l1q, lq + (2 * x - 1) / (2 * s2)) - lae(l1q, lq - (2 * x + 1) / (2 * s2));
}

static ld poisson_replace_lo(ld sigma, ld q, ld eps)
{
    ld s = 2 * sigma, s2 = s * s, lq = logl(q), l1q = log1pl(-q);
    ld lo = 0, hi = 1 + s2 * (fabsl(eps) + fabsl(lq) + fabsl(l1q) + 2);
    for (int i = 0; i < 64 && !(replace_loglr(hi, s2, lq, l1q) >= eps); i++) hi *= 16;
    if (!(replace_loglr(hi, s2, lq, l1q) >= eps)) return -INFINITY;
    for (int i = 0; i < 90; i++) {
        ld mid = lo + (hi - lo) / 2;
        if (mid == lo || mid == hi) break;
        if (replace_loglr(mid, s2, lq, l1q) < eps) lo = mid;
        else hi = mid;
    }
    ld c = lo + (hi - lo) / 2;
    ld dv1 = 4 * U * (fabsl(c) + 1) / s, dv0 = 4 * U * fabsl(c) / s;
    lrange p1 = dec_at(lphibar_b, (c - 1) / s, dv1);
    lrange p0 = dec_at(lphibar_b, c / s, dv0);
    lrange p2 = dec_at(lphibar_b, (c + 1) / s, dv1);
    ld t1 = lq + p1.lo - 8 * U * (fabsl(lq) + fabsl(p1.lo));
    ld t2 = eps > 0 ? l1q + log_expm1(eps) + p0.hi : -INFINITY;
    ld t3 = eps + lq + p2.hi;
    t2 += 8 * U * (1 + fabsl(t2));
    t3 += 8 * U * (1 + fabsl(eps) + fabsl(lq) + fabsl(p2.hi));
    ld b = lae(t2, t3);
    b += 8 * U * (1 + fabsl(b));
    ld r = log_sub_lo(t1, b);
    return isnan(r) ? -INFINITY : fminl(r, 0);
}

/*
 * Laplace with noise multiplier b (scale b, sensitivity 1), one step:
 * Lap(0, b) against Lap(1, b).  The loss is eps0 = 1/b for x <= 0,
 * (1 - 2x)/b on [0, 1] and -eps0 beyond, so S = {x < c}, c = (1 - b eps)/2:
 *   delta = 1 - e^{-c/b}/2 - e^eps e^{(c-1)/b}/2 = 1 - e^{(eps - eps0)/2}
 * for eps < eps0, and 0 beyond (the profile quoted for the Laplace
 * mechanism, e.g. Balle, Barthe & Gaboardi 2018; derived here).  Same
 * under both relations (the multiplier is per the relation's sensitivity).
 */
static lrange laplace_range(ld b, ld eps)
{
    lrange r = { -INFINITY, -INFINITY };
    ld e0 = 1 / b, x = (eps - e0) / 2, dx = 8 * U * (fabsl(eps) + e0 + fabsl(x));
    if (x + dx < 0) {
        ld l = logl(-expm1l(x + dx));
        r.lo = l - 8 * U * (1 + fabsl(l));
    }
    if (x - dx < 0) {
        ld l = logl(-expm1l(x - dx));
        r.hi = fminl(l + 8 * U * (1 + fabsl(l)), 0);
    }
    return r;
}

/*
 * k-ary randomized response (truthful w.p. e^e/(e^e + k - 1)), one step:
 * the only output with a positive loss is the true value, with loss e, so
 *   delta = (e^e - e^eps)/(e^e + k - 1) = -expm1(eps - e) / (1 + (k-1) e^{-e})
 * for eps < e, 0 beyond.
 */
static lrange rr_range(ld e, ld k, ld eps)
{
    lrange r = { -INFINITY, -INFINITY };
    ld x = eps - e, dx = 8 * U * (fabsl(eps) + e);
    ld den = log1pl((k - 1) * expl(-e));
    if (x + dx < 0) {
        ld l = logl(-expm1l(x + dx)) - den;
        r.lo = l - 8 * U * (1 + fabsl(l) + den);
    }
    if (x - dx < 0) {
        ld l = logl(-expm1l(x - dx)) - den;
        r.hi = fminl(l + 8 * U * (1 + fabsl(l) + den), 0);
    }
    return r;
}

/* ---- a mechanism as the references see it ---------------------------- */
enum { C_POISSON, C_LAPLACE, C_RR };
typedef struct {
    int type;
    ld a, b; /* poisson: mu_p (= sqrt(k)/sigma), q; laplace: b; rr: e, k */
    double sigma; /* poisson: the inner noise multiplier (for messages) */
    ld mult;      /* how many times it is composed (set by ref_add_comp) */
} ref_comp;

typedef struct {
    ld mu2;            /* sum of mu^2 over the Gaussian-family (q = 1) parts: a lower bound */
    unsigned mu_terms; /* for its rounding error */
    int has_gauss;
    int inexact;       /* tree, zcdp, counts, several parts: no upper reference */
    int nc;
    ref_comp c[MAXC];
} ref_mech;

static void ref_add_gauss(ref_mech *m, ld mu2, int exact)
{
    m->mu2 += mu2;
    m->mu_terms++;
    m->has_gauss = 1;
    if (!exact) m->inexact = 1;
}

static void ref_add_comp(ref_mech *m, ref_comp c, ld mult)
{
    if (mult != 1) m->inexact = 1;
    if (m->nc >= MAXC) { m->inexact = 1; return; } /* dropping a part keeps a lower bound */
    c.mult = mult;
    m->c[m->nc++] = c;
}

static int ref_exact(const ref_mech *m, dpa_relation rel)
{
    if (m->inexact) return 0;
    if (m->nc == 0) return m->has_gauss;
    return m->nc == 1 && !m->has_gauss && (m->c[0].type != C_POISSON || rel == DPA_ADD_REMOVE);
}

static ld ref_mu_rel(const ref_mech *m)
{
    return (8 * (ld)m->mu_terms + 16) * U;
}

/* A lower bound on the RDP at orders alpha >= 2 of one Poisson-subsampled
 * Gaussian step (add/remove): D_alpha is nondecreasing in alpha (van Erven
 * & Harremoes 2014, Thm 3), and for P = (1-q) N(0,1) + q N(m,1), Q = N(0,1)
 *   D_2(P || Q) = log E_Q[(P/Q)^2] = log(1 + q^2 (e^{m^2} - 1))
 * (Mironov, Talwar & Zhang 2019 compute the same pair). */
static ld poisson_d2_lo(ld mu_p, ld q)
{
    ld m2 = mu_p * mu_p * (1 - 32 * U);
    ld x = 2 * logl(q) + log_expm1(m2);
    x -= 64 * U * (1 + fabsl(x) + m2);
    ld r = softplus(x) * (1 - 8 * U);
    return isnan(r) ? 0 : r;
}

/* Bounds on log delta(eps) of the whole mechanism: the lower bound is the
 * largest over its parts (a composition is at least as non-private as any
 * part: post-processing), the upper one only for exact mechanisms. */
static lrange ref_log_delta(const ref_mech *m, dpa_relation rel, double eps_d)
{
    ld eps = eps_d;
    int exact = ref_exact(m, rel);
    lrange r = { -INFINITY, exact ? -INFINITY : 0 };
    if (m->has_gauss && m->mu2 > 0) {
        lrange g = gauss_range(sqrtl(m->mu2), ref_mu_rel(m) / 2 + 2 * U, eps, eps, exact);
        r.lo = fmaxl(r.lo, g.lo);
        if (exact) r.hi = g.hi;
    }
    for (int i = 0; i < m->nc; i++) {
        const ref_comp *c = &m->c[i];
        lrange g = { -INFINITY, 0 };
        switch (c->type) {
        case C_POISSON:
            if (rel == DPA_ADD_REMOVE) {
                lrange a = poisson_remove(c->a, 8 * U, c->b, eps, exact);
                lrange b = poisson_add(c->a, 8 * U, c->b, eps, exact);
                g.lo = fmaxl(a.lo, b.lo);
                g.hi = fmaxl(a.hi, b.hi);
            } else {
                g.lo = poisson_replace_lo(1 / c->a, c->b, eps);
            }
            break;
        case C_LAPLACE: g = laplace_range(c->a, eps); break;
        case C_RR: g = rr_range(c->a, c->b, eps); break;
        }
        if (isnan(g.lo)) g.lo = -INFINITY;
        r.lo = fmaxl(r.lo, g.lo);
        if (exact) r.hi = isnan(g.hi) ? 0 : g.hi;
    }
    if (r.hi > 0) r.hi = 0;
    return r;
}

static double bits_to_double(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static uint64_t double_to_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* A lower reference for eps(delta): the largest double eps' >= 0 with
 * lo(eps') > log delta, i.e. delta(eps') > delta certified, so that the
 * true eps(delta) > eps' (0 when even eps' = 0 is not certified; +inf when
 * eps' = DBL_MAX is: no finite eps is (eps, delta)-DP).  Bisection on the
 * bit patterns of the non-negative doubles, which are ordered like them. */
static double ref_eps_lower(const ref_mech *m, dpa_relation rel, double delta)
{
    ld ld_delta = logl((ld)delta);
    ld_delta += 4 * U * (1 + fabsl(ld_delta)); /* above log delta whatever logl's rounding */
    if (!(ref_log_delta(m, rel, 0.0).lo > ld_delta)) return 0.0;
    if (ref_log_delta(m, rel, DBL_MAX).lo > ld_delta) return INFINITY;
    uint64_t lo = 0, hi = double_to_bits(DBL_MAX);
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (ref_log_delta(m, rel, bits_to_double(mid)).lo > ld_delta) lo = mid;
        else hi = mid;
    }
    return bits_to_double(lo);
}

/* For exact mechanisms, an upper reference: the smallest double eps' with
 * hi(eps') < log delta (delta(eps') < delta certified): eps(delta) <= eps'. */
static double ref_eps_upper(const ref_mech *m, dpa_relation rel, double delta)
{
    ld ld_delta = logl((ld)delta);
    ld_delta -= 4 * U * (1 + fabsl(ld_delta));
    if (ref_log_delta(m, rel, 0.0).hi < ld_delta) return 0.0;
    if (!(ref_log_delta(m, rel, DBL_MAX).hi < ld_delta)) return INFINITY;
    uint64_t lo = 0, hi = double_to_bits(DBL_MAX);
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (ref_log_delta(m, rel, bits_to_double(mid)).hi < ld_delta) hi = mid;
        else lo = mid;
    }
    return bits_to_double(hi);
}

static int ref_describe(const ref_mech *m, char *buf, size_t size)
{
    int n = snprintf(buf, size, "ref[");
    if (m->has_gauss) n += snprintf(buf + n, size > (size_t)n ? size - n : 0, "gauss mu=%.6Lg", sqrtl(m->mu2));
    for (int i = 0; i < m->nc; i++) {
        const ref_comp *c = &m->c[i];
        size_t rem = size > (size_t)n ? size - n : 0;
        const char *sep = (i || m->has_gauss) ? "; " : "";
        if (c->type == C_POISSON)
            n += snprintf(buf + n, rem, "%s1 step poisson(q=%.6Lg, mu=%.6Lg)", sep, c->b, c->a);
        else if (c->type == C_LAPLACE)
            n += snprintf(buf + n, rem, "%s1 step laplace(b=%.6Lg)", sep, c->a);
        else
            n += snprintf(buf + n, rem, "%s1 step rr(eps=%.6Lg, k=%.0Lf)", sep, c->a, c->b);
    }
    n += snprintf(buf + n, size > (size_t)n ? size - n : 0, "%s]", m->inexact ? "" : " exact");
    return n;
}

/* ===================================================================== */
/* failure bookkeeping                                                    */
/* ===================================================================== */
enum fkind {
    F_STATUS,      /* positive status, or negative without a message */
    F_EVENT,       /* an event constructor failed without a message */
    F_NAN,         /* NaN in a bound */
    F_ORDER,       /* lower > upper */
    F_ESTIMATE,    /* estimate outside [lower, upper] */
    F_RANGE,       /* eps upper < 0, delta outside [0, 1] */
    F_EPS_ZERO,    /* eps upper == 0 while the reference proves eps > 0 */
    F_EPS_NOT_INF, /* finite eps while no finite eps is (eps, delta)-DP */
    F_EPS_BELOW,   /* 0 < eps upper < reference */
    F_DELTA_ZERO,  /* delta upper == 0 while the reference proves delta >= DBL_TRUE_MIN */
    F_DELTA_ZERO_TINY, /* delta upper == 0, true delta in (0, DBL_TRUE_MIN): should round up */
    F_DELTA_BELOW, /* 0 < delta upper < reference */
    F_LOWER_ABOVE, /* lower above the exact value (exact mechanisms) */
    F_RDP_CURVE,   /* NaN or negative value in the rdp curve */
    F_RDP_BELOW,   /* rdp curve below alpha mu^2 / 2 */
    F_RDP_BELOW_TINY, /* rdp curve 0 where the reference is in (0, DBL_TRUE_MIN) */
    F_CAL_ACCEPTS, /* calibration accepted a value whose reference eps exceeds the target */
    F_CAL_SELF,    /* calibration's own record inconsistent (eps at value > target, value outside limits) */
    F_NKINDS
};
static const char *const fkind_name[F_NKINDS] = {
    "status without message", "event constructor without message", "NaN in bound", "lower > upper",
    "estimate outside [lower, upper]", "out of range", "eps upper = 0 below reference",
    "finite eps where none exists", "eps upper below reference", "delta upper = 0 below reference",
    "delta upper = 0, true delta positive below the double range (round up to 4.9e-324)",
    "delta upper below reference", "lower above exact value", "rdp curve NaN/negative",
    "rdp curve below reference RDP", "rdp curve 0, true RDP positive below the double range",
    "calibration accepts a failing value", "calibration record inconsistent",
};

typedef struct {
    unsigned count;
    size_t size; /* length of the event description: the smallest reproducer is kept */
    char msg[2048];
} fslot;

static fslot slots[F_NKINDS][3]; /* [kind][eps query, delta query, other] */
static unsigned total_failures;
static int opt_verbose;

static void fail_reset(void)
{
    memset(slots, 0, sizeof slots);
    total_failures = 0;
}

static void record(enum fkind kind, int qtype, size_t size, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fslot *s = &slots[kind][qtype];
    total_failures++;
    if (s->count++ == 0 || size < s->size) {
        s->size = size;
        snprintf(s->msg, sizeof s->msg, "%s", buf);
    }
    if (opt_verbose) fprintf(stderr, "FAIL [%s] %s\n", fkind_name[kind], buf);
}

static const char *const qname[3] = { "eps", "delta", "other" };

/* Print the deduplicated summary and fail the test if anything failed. */
static void fail_report(const char *what)
{
    const char *first = NULL;
    int fk = 0, fq = 0;
    fprintf(stderr, "[property] %s: %u failure(s)\n", what, total_failures);
    for (int k = 0; k < F_NKINDS; k++)
        for (int q = 0; q < 3; q++) {
            fslot *s = &slots[k][q];
            if (!s->count) continue;
            fprintf(stderr, "  [%s, %s query] x%u; smallest: %s\n", fkind_name[k], qname[q], s->count, s->msg);
            if (!first) { first = s->msg; fk = k; fq = q; }
        }
    ck_assert_msg(total_failures == 0, "%s: %u failure(s); first kind [%s, %s query]: %s", what, total_failures,
                  fkind_name[fk], qname[fq], first ? first : "");
}

static double now_seconds(void) /* reporting only: no result depends on it */
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    unsigned cases, supported, queries, ok, eaccuracy, errors, approximate;
    unsigned ref_checks, exact_checks, inf_checks; /* upper vs a positive lower reference; lower vs an exact upper one; eps = inf required */
    double seconds, worst_seconds;
    char worst[2048];
} acct_stats;

static acct_stats stats;

static void stats_report(const char *what)
{
    fprintf(stderr,
            "[property] %s: %u cases, %u supported (accountant, relation) pairs, %u queries (%u ok, %u EACCURACY, "
            "%u other errors, %u approximate); %u checks against a positive lower reference, %u of them eps = inf, "
            "%u against an exact upper one; %.2f s in the accountant, slowest call %.3f s: %s\n",
            what, stats.cases, stats.supported, stats.queries, stats.ok, stats.eaccuracy, stats.errors,
            stats.approximate, stats.ref_checks, stats.inf_checks, stats.exact_checks, stats.seconds,
            stats.worst_seconds, stats.worst);
}

/* ===================================================================== */
/* checking one accountant on one event                                  */
/* ===================================================================== */
typedef struct {
    const char *acct;
    dpa_relation rel;
    unsigned case_id;
    const char *desc;  /* dpa_event_describe */
    const char *extra; /* options, e.g. the rdp orders */
    const ref_mech *ref;
} qctx;

static const char *rel_name(dpa_relation r)
{
    return r == DPA_REPLACE_ONE ? "replace-one" : "add/remove";
}

#define SENTINEL (-7.0e77)
#define CTXFMT "case %u, %s, %s%s, event %s: "
#define CTXARGS(c) (c)->case_id, (c)->acct, rel_name((c)->rel), (c)->extra, (c)->desc

static int check_status(const qctx *c, int qtype, const char *call, int st, const dpa_error *err)
{
    if (st == DPA_OK) return 1;
    if (st > 0 || err->message[0] == '\0') {
        record(F_STATUS, qtype, strlen(c->desc), CTXFMT "%s returned status %d with message \"%s\"", CTXARGS(c), call, st,
               err->message);
        return 0;
    }
    return 0;
}

/* Check a bound returned by an eps (is_eps) or delta query at `arg`. */
static void check_bound(const qctx *c, int is_eps, double arg, int st, const dpa_bound *b, const dpa_error *err,
                        double seconds)
{
    const int qt = is_eps ? 0 : 1;
    const size_t size = strlen(c->desc);
    char call[96];
    snprintf(call, sizeof call, "%s(%s=%.17g)", is_eps ? "epsilon" : "delta", is_eps ? "delta" : "eps", arg);
    stats.queries++;
    stats.seconds += seconds;
    if (seconds > stats.worst_seconds) {
        stats.worst_seconds = seconds;
        snprintf(stats.worst, sizeof stats.worst, CTXFMT "%s -> status %d", CTXARGS(c), call, st);
    }
    if (opt_verbose && c->case_id >= 900000)
        fprintf(stderr, "PINNED " CTXFMT "%s -> status %d [%.6g, %.6g, %.6g] flags 0x%x %.3f s\n", CTXARGS(c), call, st,
                b->lower, b->estimate, b->upper, b->flags, seconds);
    if (opt_verbose && seconds > 0.25)
        fprintf(stderr, "SLOW %.3f s: " CTXFMT "%s -> status %d\n", seconds, CTXARGS(c), call, st);
    if (st == DPA_OK) stats.ok++;
    else if (st == DPA_EACCURACY) stats.eaccuracy++;
    else stats.errors++;

    if (st != DPA_OK) {
        check_status(c, qt, call, st, err);
        if (st != DPA_EACCURACY) return;
        /* EACCURACY: with a bracket, the bracket must be valid */
        if (b->lower == SENTINEL && b->estimate == SENTINEL && b->upper == SENTINEL) return;
    }
    char got[512];
    snprintf(got, sizeof got, "%s -> status %d, bound [%.17g, %.17g, %.17g] flags 0x%x", call, st, b->lower,
             b->estimate, b->upper, b->flags);
    if (isnan(b->lower) || isnan(b->estimate) || isnan(b->upper)) {
        record(F_NAN, qt, size, CTXFMT "%s", CTXARGS(c), got);
        return;
    }
    if (b->lower > b->upper) record(F_ORDER, qt, size, CTXFMT "%s", CTXARGS(c), got);
    else if (b->estimate < b->lower || b->estimate > b->upper) record(F_ESTIMATE, qt, size, CTXFMT "%s", CTXARGS(c), got);
    if (is_eps ? b->upper < 0 : (b->lower < 0 || b->lower > 1 || b->upper < 0 || b->upper > 1))
        record(F_RANGE, qt, size, CTXFMT "%s", CTXARGS(c), got);
    if (b->flags & DPA_APPROXIMATE) { /* not a guarantee: no reference applies */
        stats.approximate++;
        return;
    }
    char rd[300];
    ref_describe(c->ref, rd, sizeof rd);
    const int exact = ref_exact(c->ref, c->rel) && !(b->flags & DPA_PAIR_LOWER);
    if (is_eps) {
        double ref = ref_eps_lower(c->ref, c->rel, arg);
        stats.ref_checks += ref > 0;
        stats.inf_checks += isinf(ref);
        if (isinf(ref) && !isinf(b->upper))
            record(F_EPS_NOT_INF, qt, size, CTXFMT "%s; %s: delta(eps) > delta at eps = DBL_MAX, so eps = +inf",
                   CTXARGS(c), got, rd);
        else if (ref > 0 && b->upper == 0)
            record(F_EPS_ZERO, qt, size, CTXFMT "%s; %s: eps >= %.17g", CTXARGS(c), got, rd, ref);
        else if (ref > 0 && isfinite(ref) && b->upper < ref * (1 - REF_SLACK))
            record(F_EPS_BELOW, qt, size, CTXFMT "%s; %s: eps >= %.17g", CTXARGS(c), got, rd, ref);
        if (exact && b->lower > 0) {
            double up = ref_eps_upper(c->ref, c->rel, arg);
            stats.exact_checks++;
            if (b->lower > up * (1 + REF_SLACK))
                record(F_LOWER_ABOVE, qt, size, CTXFMT "%s; %s: eps <= %.17g", CTXARGS(c), got, rd, up);
        }
    } else {
        lrange r = ref_log_delta(c->ref, c->rel, arg);
        stats.ref_checks += r.lo > -INFINITY;
        stats.exact_checks += exact && b->lower > 0;
        if (r.lo > -INFINITY) {
            if (b->upper == 0)
                record(r.lo < logl((ld)DBL_TRUE_MIN) ? F_DELTA_ZERO_TINY : F_DELTA_ZERO, qt, size, CTXFMT "%s; %s: log delta >= %.12Lg (delta >= %.6Lg)", CTXARGS(c), got,
                       rd, r.lo, expl(r.lo));
            else if (b->upper > 0 && logl((ld)b->upper) < r.lo + log1pl(-REF_SLACK))
                record(F_DELTA_BELOW, qt, size, CTXFMT "%s; %s: log delta >= %.12Lg (delta >= %.6Lg)", CTXARGS(c), got,
                       rd, r.lo, expl(r.lo));
        }
        if (exact && b->lower > 0 && logl((ld)b->lower) > r.hi + log1pl(REF_SLACK))
            record(F_LOWER_ABOVE, qt, size, CTXFMT "%s; %s: log delta <= %.12Lg (delta <= %.6Lg)", CTXARGS(c), got, rd,
                   r.hi, expl(r.hi));
    }
}

/* (e): the rdp curve against the Gaussian parts' exact RDP alpha mu^2/2
 * (Mironov 2017, Prop. 7; RDP adds under composition and is >= 0). */
static void check_rdp_curve(const qctx *c, const dpa_accountant *a)
{
    enum { CAP = 256 };
    double orders[CAP], eps[CAP];
    size_t n = 0;
    dpa_error err = { 0 };
    int st = dpa_accountant_rdp_curve(a, orders, eps, CAP, &n, &err);
    if (st) { check_status(c, 2, "rdp_curve", st, &err); return; }
    ld mu2 = c->ref->has_gauss ? c->ref->mu2 * (1 - ref_mu_rel(c->ref) - 4 * U) : 0;
    ld d2 = 0; /* the Poisson parts' D_2, a lower bound at orders >= 2 */
    for (int i = 0; i < c->ref->nc; i++)
        if (c->ref->c[i].type == C_POISSON && c->rel == DPA_ADD_REMOVE)
            d2 += c->ref->c[i].mult * poisson_d2_lo(c->ref->c[i].a, c->ref->c[i].b) * (1 - 4 * U);
    int bad = 0, below = 0; /* one record per curve and kind: the first offending order */
    for (size_t i = 0; i < n && i < CAP; i++) {
        if (isnan(orders[i]) || isnan(eps[i]) || eps[i] < 0) {
            if (!bad++)
                record(F_RDP_CURVE, 2, strlen(c->desc), CTXFMT "rdp curve at order %.17g is %.17g", CTXARGS(c),
                       orders[i], eps[i]);
            continue;
        }
        ld ref = (ld)orders[i] * mu2 / 2 + (orders[i] >= 2 ? d2 : 0);
        if ((ref > DBL_MAX ? !isinf(eps[i]) : (ld)eps[i] < ref * (1 - REF_SLACK)) && !below++)
            record(eps[i] == 0 && ref < DBL_TRUE_MIN ? F_RDP_BELOW_TINY : F_RDP_BELOW, 2, strlen(c->desc),
                   CTXFMT "rdp curve at order %.17g is %.17g, below alpha mu^2/2 + sum T D_2(subsampled) = %.17Lg (mu^2 = "
                   "%.6Lg, sum T D_2 = %.6Lg)",
                   CTXARGS(c), orders[i], eps[i], ref, mu2, d2);
    }
}

typedef struct {
    dpa_event *ev;
    char desc[1024];
    ref_mech ref;
    double deltas[3], epss[3]; /* up to 3 (pinned cases); random cases use 2 */
    int ndelta, neps;
    double orders[16];
    size_t norders;
    double tolerance;
    char extra[400];
} prop_case;

/* Run one accountant (both relations) on a case. */
/* rels: 1 add/remove, 2 replace-one, 3 both */
static void run_accountant(const char *name, const prop_case *pc, unsigned case_id, unsigned rels)
{
    for (int r = 0; r < 2; r++) {
        if (!(rels & (1u << r))) continue;
        dpa_relation rel = r ? DPA_REPLACE_ONE : DPA_ADD_REMOVE;
        dpa_options opt;
        dpa_options_init(&opt);
        opt.relation = rel;
        const char *extra = "";
        if (!strcmp(name, "rdp") && pc->norders) {
            opt.orders = pc->orders;
            opt.num_orders = pc->norders;
            extra = pc->extra;
        }
        char tol[64] = "";
        if (!strcmp(name, "pld") && pc->tolerance > 0) {
            opt.tolerance = pc->tolerance;
            snprintf(tol, sizeof tol, ", tolerance %g", pc->tolerance);
            extra = tol;
        }
        qctx c = { name, rel, case_id, pc->desc, extra, &pc->ref };
        dpa_error err = { 0 };
        dpa_accountant *a = dpa_accountant_new(name, &opt, &err);
        if (!a) {
            check_status(&c, 2, "accountant_new", err.status ? err.status : DPA_EINVAL, &err);
            continue;
        }
        int st = dpa_accountant_supports(a, pc->ev, &err);
        if (st) {
            check_status(&c, 2, "supports", st, &err);
            dpa_accountant_free(a);
            continue;
        }
        stats.supported++;
        double t0 = now_seconds();
        st = dpa_accountant_compose(a, pc->ev, &err);
        double dt = now_seconds() - t0;
        stats.seconds += dt;
        if (dt > stats.worst_seconds) {
            stats.worst_seconds = dt;
            snprintf(stats.worst, sizeof stats.worst, CTXFMT "compose -> status %d", CTXARGS(&c), st);
        }
        if (opt_verbose && dt > 0.25)
            fprintf(stderr, "SLOW %.3f s: " CTXFMT "compose -> status %d\n", dt, CTXARGS(&c), st);
        if (st) {
            check_status(&c, 2, "compose", st, &err);
            dpa_accountant_free(a);
            continue;
        }
        if (!strcmp(name, "rdp")) check_rdp_curve(&c, a);
        for (int i = 0; i < pc->ndelta; i++) {
            dpa_bound b = { SENTINEL, SENTINEL, SENTINEL, 0, 0 };
            dpa_error e2 = { 0 };
            t0 = now_seconds();
            st = dpa_accountant_epsilon(a, pc->deltas[i], &b, &e2);
            check_bound(&c, 1, pc->deltas[i], st, &b, &e2, now_seconds() - t0);
        }
        for (int i = 0; i < pc->neps; i++) {
            dpa_bound b = { SENTINEL, SENTINEL, SENTINEL, 0, 0 };
            dpa_error e2 = { 0 };
            t0 = now_seconds();
            st = dpa_accountant_delta(a, pc->epss[i], &b, &e2);
            check_bound(&c, 0, pc->epss[i], st, &b, &e2, now_seconds() - t0);
        }
        dpa_accountant_free(a);
    }
}

/* ===================================================================== */
/* random and extreme mechanisms                                          */
/* ===================================================================== */
static double u01(gsl_rng *r)
{
    return gsl_rng_uniform(r);
}

static unsigned pick(gsl_rng *r, unsigned n)
{
    return (unsigned)gsl_rng_uniform_int(r, n);
}

static double log_uniform(gsl_rng *r, double lo, double hi)
{
    double v = exp(log(lo) + u01(r) * (log(hi) - log(lo)));
    return fmin(fmax(v, lo), hi);
}

static double draw_sigma(gsl_rng *r)
{
    static const double edge[] = { 1e-300, 1e300, 1e-160, 1e-12, 1e12, 1.0, 0.5 };
    double u = u01(r);
    if (u < 0.12) return edge[pick(r, sizeof edge / sizeof edge[0])];
    if (u < 0.50) return log_uniform(r, 1e-300, 1e300);
    return log_uniform(r, 0.2, 30.0);
}

static double draw_q(gsl_rng *r)
{
    double u = u01(r);
    if (u < 0.15) return 1.0;
    if (u < 0.22) return 1e-12;
    if (u < 0.55) return log_uniform(r, 1e-12, 1.0);
    return log_uniform(r, 1e-3, 1.0);
}

/* pld's cases keep the same draws with every count clamped to count_cap
 * (its FFT composition is what makes it slow; the pinned cases ask it for
 * the huge counts). */
static uint64_t count_cap = UINT64_MAX;

static uint64_t draw_count_raw(gsl_rng *r)
{
    static const uint64_t edge[] = { 1, UINT64_C(1) << 31, UINT64_C(1) << 32, UINT64_C(1) << 53, UINT64_C(1) << 63 };
    double u = u01(r);
    if (u < 0.15) return edge[pick(r, 5)];
    if (u < 0.45) {
        double v = floor(exp(u01(r) * 63.0 * M_LN2));
        return v >= 9223372036854775808.0 ? UINT64_C(1) << 63 : (uint64_t)fmax(v, 1.0);
    }
    return (uint64_t)fmax(1.0, floor(log_uniform(r, 1.0, 1000.0)));
}

static uint64_t draw_count(gsl_rng *r)
{
    uint64_t t = draw_count_raw(r);
    return t > count_cap ? count_cap : t;
}

static double draw_delta(gsl_rng *r)
{
    static const double edge[] = { 1e-300, 0.5, 1e-5, 1e-10 };
    double u = u01(r);
    if (u < 0.15) return edge[pick(r, 4)];
    if (u < 0.45) return log_uniform(r, 1e-300, 0.5);
    return log_uniform(r, 1e-12, 1e-2);
}

static double draw_eps(gsl_rng *r)
{
    static const double edge[] = { 1e3, 1e-12, 1.0, 10.0 };
    double u = u01(r);
    if (u < 0.10) return 0.0;
    if (u < 0.18) return edge[pick(r, 4)];
    if (u < 0.60) return log_uniform(r, 1e-6, 1e3);
    return 20.0 * u01(r);
}

static size_t draw_orders(gsl_rng *r, double *o)
{
    static const double special[] = { 2147483648.0, 9999999999.0, 1e20, 1e300, 1.5, 2.0, 32.0, 256.0, 65536.0, 1.000001 };
    size_t n = 1 + pick(r, 12);
    size_t k = 0;
    while (k < n) {
        /* Orders between 1e4 and 2^31 are left out of the random draws:
         * rdp's Poisson-subsampled Gaussian takes time linear in the order
         * there (about 0.2 us per unit: 4 minutes at 1.5e9), which would
         * blow the test's budget.  Reported, not tested here. */
        double u = u01(r);
        double v = u < 0.5 ? special[pick(r, sizeof special / sizeof special[0])]
                   : u < 0.75 ? 1.0 + log_uniform(r, 1e-9, 1e4) : log_uniform(r, 2147483648.0, 1e300);
        int dup = 0;
        for (size_t j = 0; j < k; j++) dup |= o[j] == v;
        if (!dup) o[k++] = v;
    }
    return n;
}

typedef struct {
    gsl_rng *r;
    ref_mech *m;
    dpa_error err;
} gen;

static dpa_event *gen_leaf(gen *g, ld mult);

/* Leaves for the shuffle and tuning accountants.  Sanity checks only
 * (status, NaN, order, range), except one user, where shuffling is the
 * identity and binary randomized response with eps0 is an eps0-local
 * randomizer the event allows. */
static dpa_event *gen_other_leaf(gen *g, ld mult, int which)
{
    gsl_rng *r = g->r;
    if (which == 0) {
        double e0 = u01(r) < 0.1 ? (u01(r) < 0.5 ? 1e3 : 1e-12) : log_uniform(r, 1e-3, 20.0);
        uint64_t n = u01(r) < 0.2 ? 1 : (u01(r) < 0.5 ? draw_count(r) : (uint64_t)floor(log_uniform(r, 1.0, 1e6)));
        g->m->inexact = 1;
        if (n == 1) ref_add_comp(g->m, (ref_comp){ C_RR, e0, 2, 0, 0 }, mult);
        return dpa_event_shuffled(e0, n, &g->err);
    }
    /* repeated_selected: K may be 0 (Poisson), and selecting the best run
     * is not obviously as revealing as one run: no reference; the inner
     * event's references go to a scratch mechanism */
    ref_mech scratch = { 0 }, *keep = g->m;
    g->m = &scratch;
    dpa_event *in = gen_leaf(g, 1);
    g->m = keep;
    g->m->inexact = 1;
    switch (pick(r, 3)) {
    case 0: return dpa_event_repeated_selected(in, DPA_REPEAT_POISSON, log_uniform(r, 1e-3, 1e4), 0.0, &g->err);
    case 1:
        return dpa_event_repeated_selected(in, DPA_REPEAT_GEOMETRIC, u01(r) < 0.2 ? 1.0 : log_uniform(r, 1e-9, 1.0),
                                           0.0, &g->err);
    default:
        return dpa_event_repeated_selected(in, DPA_REPEAT_TRUNCATED_NEGATIVE_BINOMIAL, log_uniform(r, 1e-3, 10.0) - 0.5,
                                           log_uniform(r, 1e-9, 0.999), &g->err);
    }
}

static dpa_event *gen_leaf(gen *g, ld mult)
{
    gsl_rng *r = g->r;
    switch (pick(r, 12)) {
    case 10: return gen_other_leaf(g, mult, 0);
    case 11: return gen_other_leaf(g, mult, 1);
    case 0:
    case 1: { /* gaussian */
        double s = draw_sigma(r);
        ref_add_gauss(g->m, mult / ((ld)s * s), 1);
        return dpa_event_gaussian(s, &g->err);
    }
    case 2:
    case 3: { /* poisson(q, gaussian / k gaussians / gdp) */
        double q = draw_q(r), s = draw_sigma(r);
        double u = u01(r);
        dpa_event *in;
        ld inv_var;
        if (u < 0.75) {
            in = dpa_event_gaussian(s, &g->err);
            inv_var = 1 / ((ld)s * s);
        } else if (u < 0.9) {
            uint64_t k = 2 + pick(r, 7);
            in = dpa_event_self_composed(dpa_event_gaussian(s, &g->err), k, &g->err);
            inv_var = (ld)k / ((ld)s * s);
        } else {
            in = dpa_event_gdp(1.0 / s, &g->err);
            ld mu = (ld)(1.0 / s);
            inv_var = mu * mu;
        }
        if (q == 1.0) ref_add_gauss(g->m, mult * inv_var, 1);
        else ref_add_comp(g->m, (ref_comp){ C_POISSON, sqrtl(inv_var), q, s, 0 }, mult);
        return dpa_event_poisson_sampled(q, in, &g->err);
    }
    case 4: { /* laplace */
        double b = draw_sigma(r);
        ref_add_comp(g->m, (ref_comp){ C_LAPLACE, b, 0, 0, 0 }, mult);
        return dpa_event_laplace(b, &g->err);
    }
    case 5: { /* randomized response */
        static const uint32_t ks[] = { 2, 2, 3, 10, 1000, 4294967295u };
        double e = u01(r) < 0.1 ? (u01(r) < 0.5 ? 1e3 : 1e-12) : log_uniform(r, 1e-6, 1e3);
        uint32_t k = ks[pick(r, 6)];
        ref_add_comp(g->m, (ref_comp){ C_RR, e, k, 0, 0 }, mult);
        return dpa_event_randomized_response(e, k, &g->err);
    }
    case 6: { /* tree aggregation: per tree a leaf lies in floor(log2 r) + 1
               * complete dyadic intervals (Kairouz et al. 2021): a lower
               * bound on the nodes one record moves, counting the last,
               * possibly partial, tree by its own size. */
        double f = draw_sigma(r);
        uint64_t steps = draw_count(r), restart = 0;
        if (u01(r) < 0.6) restart = (uint64_t)fmax(1.0, floor(log_uniform(r, 1.0, (double)steps)));
        uint64_t rr = (restart == 0 || restart > steps) ? steps : restart;
        uint64_t full = steps / rr, rem = steps % rr;
        int d = 0, drem = 0;
        for (uint64_t v = rr; v; v >>= 1) d++;
        for (uint64_t v = rem; v; v >>= 1) drem++;
        ld nodes = (ld)full * d + drem;
        ref_add_gauss(g->m, mult * nodes / ((ld)f * f), 0);
        return dpa_event_tree_aggregation(f, steps, restart, &g->err);
    }
    case 7: { /* gdp */
        double mu = 1.0 / draw_sigma(r);
        ref_add_gauss(g->m, mult * (ld)mu * mu, 1);
        return dpa_event_gdp(mu, &g->err);
    }
    case 8: { /* zcdp: the Gaussian with mu^2 = 2 rho is rho-zCDP, so the
               * worst mechanism the event allows is no better */
        double rho = u01(r) < 0.1 ? (u01(r) < 0.5 ? 1e300 : 1e-300) : log_uniform(r, 1e-300, 1e300);
        if (u01(r) < 0.5) rho = log_uniform(r, 1e-4, 1e2);
        double xi = u01(r) < 0.7 ? 0.0 : log_uniform(r, 1e-12, 10.0);
        ref_add_gauss(g->m, mult * 2 * (ld)rho, 0);
        return dpa_event_zcdp(rho, xi, &g->err);
    }
    default: { /* self-composed gaussian */
        double s = draw_sigma(r);
        uint64_t t = draw_count(r);
        ref_add_gauss(g->m, mult * (ld)t / ((ld)s * s), 1);
        return dpa_event_self_composed(dpa_event_gaussian(s, &g->err), t, &g->err);
    }
    }
}

static dpa_event *gen_part(gen *g, ld mult)
{
    if (u01(g->r) < 0.5) {
        uint64_t t = draw_count(g->r);
        if (t > 1) g->m->inexact = 1; /* several copies of a non-Gaussian part: no exact reference */
        return dpa_event_self_composed(gen_leaf(g, mult * (ld)t), t, &g->err);
    }
    return gen_leaf(g, mult);
}

static dpa_event *gen_composed(gen *g, ld mult)
{
    size_t n = 2 + pick(g->r, 2);
    dpa_event *parts[3] = { NULL, NULL, NULL };
    int bad = 0;
    g->m->inexact = 1;
    for (size_t i = 0; i < n; i++) {
        parts[i] = gen_part(g, mult);
        bad |= parts[i] == NULL;
    }
    if (bad) {
        for (size_t i = 0; i < n; i++) dpa_event_free(parts[i]);
        return NULL;
    }
    return dpa_event_composed(parts, n, &g->err);
}

static dpa_event *gen_event(gen *g)
{
    gsl_rng *r = g->r;
    double u = u01(r);
    if (u < 0.35) { /* DP-SGD: self_composed(poisson(q, gaussian(s)), T) */
        double q = draw_q(r), s = draw_sigma(r);
        uint64_t t = draw_count(r);
        if (q == 1.0) ref_add_gauss(g->m, (ld)t / ((ld)s * s), 1);
        else ref_add_comp(g->m, (ref_comp){ C_POISSON, 1 / (ld)s, q, s, 0 }, (ld)t);
        return dpa_event_self_composed(dpa_event_poisson_sampled(q, dpa_event_gaussian(s, &g->err), &g->err), t,
                                       &g->err);
    }
    if (u < 0.75) return gen_part(g, 1);
    if (u < 0.92) return gen_composed(g, 1);
    /* self_composed(composed(...), T) */
    uint64_t t = draw_count(r);
    if (u01(r) < 0.5) t = 1 + pick(r, 100);
    if (t > count_cap) t = count_cap;
    return dpa_event_self_composed(gen_composed(g, (ld)t), t, &g->err);
}

/* Build case i; returns 0 (and counts nothing) if the event could not be
 * built, which must come with a message. */
static int make_case(unsigned i, prop_case *pc)
{
    memset(pc, 0, sizeof *pc);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, PROP_SEED + i);
    gen g = { r, &pc->ref, { 0 } };
    pc->ev = gen_event(&g);
    pc->ndelta = 2;
    pc->neps = 2;
    for (int k = 0; k < 2; k++) pc->deltas[k] = draw_delta(r);
    for (int k = 0; k < 2; k++) pc->epss[k] = draw_eps(r);
    if (u01(r) < 0.5) {
        pc->norders = draw_orders(r, pc->orders);
        int n = snprintf(pc->extra, sizeof pc->extra, ", orders {");
        for (size_t k = 0; k < pc->norders && n < (int)sizeof pc->extra; k++)
            n += snprintf(pc->extra + n, sizeof pc->extra - n, "%s%.17g", k ? ", " : "", pc->orders[k]);
        if (n < (int)sizeof pc->extra) snprintf(pc->extra + n, sizeof pc->extra - n, "}");
    }
    double u = u01(r);
    pc->tolerance = u < 0.7 ? 0.0 : (u < 0.85 ? 1e-1 : 1e-2);
    gsl_rng_free(r);
    if (!pc->ev) {
        if (g.err.message[0] == '\0')
            record(F_EVENT, 2, 0, "case %u: an event constructor returned NULL without a message (status %d)", i,
                   g.err.status);
        return 0;
    }
    dpa_event_describe(pc->ev, pc->desc, sizeof pc->desc);
    return 1;
}

static unsigned num_cases(void)
{
    const char *s = getenv("DPA_PROPERTY_CASES");
    if (s && *s) {
        long v = strtol(s, NULL, 10);
        if (v > 0) return (unsigned)v;
    }
    return DEFAULT_CASES;
}

static void setup(void)
{
    const char *v = getenv("DPA_PROPERTY_VERBOSE");
    opt_verbose = v && *v && strcmp(v, "0");
    fail_reset();
    memset(&stats, 0, sizeof stats);
}

/* stride: every stride-th case; cap: the largest count drawn; queries:
 * how many of the case's deltas and epsilons are asked; one_relation: one
 * relation per case instead of both. */
static void run_random(const char *name, unsigned stride, uint64_t cap, int queries, int one_relation)
{
    setup();
    count_cap = cap;
    unsigned n = num_cases();
    for (unsigned i = 0; i < n; i += stride) {
        prop_case pc;
        if (!make_case(i, &pc)) continue;
        if (pc.ndelta > queries) pc.ndelta = queries;
        if (pc.neps > queries) pc.neps = queries;
        stats.cases++;
        /* one_relation: add/remove and replace-one on alternate cases */
        run_accountant(name, &pc, i, one_relation ? 1u << ((i / stride) % 2) : 3u);
        dpa_event_free(pc.ev);
    }
    char what[64];
    snprintf(what, sizeof what, "random cases, %s", name);
    stats_report(what);
    fail_report(what);
}

START_TEST(random_gaussian) { run_random("gaussian", 1, UINT64_MAX, 2, 0); }
END_TEST
START_TEST(random_gdp) { run_random("gdp", 1, UINT64_MAX, 2, 0); }
END_TEST
START_TEST(random_zcdp) { run_random("zcdp", 1, UINT64_MAX, 2, 0); }
END_TEST
START_TEST(random_rdp) { run_random("rdp", 1, UINT64_MAX, 2, 0); }
END_TEST
START_TEST(random_tuning) { run_random("tuning", 1, UINT64_MAX, 2, 0); }
END_TEST
START_TEST(random_shuffle) { run_random("shuffle", 1, UINT64_MAX, 2, 0); }
END_TEST
START_TEST(random_pld) { run_random("pld", PLD_STRIDE, PLD_MAX_COUNT, 1, 1); }
END_TEST

/* The batches accountant (shuffled fixed-size batches, one kind of epoch):
 * random and extreme noise, batch sizes and epochs.  Its upper bound is
 * the Gaussian once an epoch, checked against the gaussian accountant on
 * that Gaussian (another module); its lower bound must be a number in
 * [0, upper], and delta's bracket must hold the delta at the upper eps. */
START_TEST(random_batches)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20261126);
    int cases = test_quick() ? 40 : 150;
    for (int i = 0; i < cases; i++) {
        double sigma = draw_sigma(r), delta = log_uniform(r, 1e-12, 0.5);
        uint64_t n = (uint64_t)floor(log_uniform(r, 1.0, 1e6));
        uint64_t m = 1 + (uint64_t)floor(u01(r) * (double)n);
        if (m > n) m = n;
        uint64_t epochs = u01(r) < 0.5 ? 1 : (uint64_t)floor(log_uniform(r, 1.0, 300.0));
        dpa_error err = { 0 };
        dpa_event *e = dpa_event_shuffled_batches(n, m, dpa_event_gaussian(sigma, &err), &err);
        if (epochs > 1) e = dpa_event_self_composed(e, epochs, &err);
        dpa_event *g = dpa_event_self_composed(dpa_event_gaussian(sigma, &err), epochs, &err);
        ck_assert_msg(e && g, "%s", err.message);
        dpa_accountant *a = accountant_with("batches", e), *ga = accountant_with("gaussian", g);
        dpa_bound b, gb;
        int st = dpa_accountant_epsilon(a, delta, &b, &err);
        ck_assert_msg(st == DPA_OK, "n %llu m %llu sigma %g E %llu delta %g: %s", (unsigned long long)n,
                      (unsigned long long)m, sigma, (unsigned long long)epochs, delta, err.message);
        ck_assert_int_eq(dpa_accountant_epsilon(ga, delta, &gb, &err), DPA_OK);
        ck_assert_msg(b.upper == gb.upper || (b.upper >= gb.upper && b.upper <= gb.upper * (1.0 + 1e-9)),
                      "sigma %g E %llu: upper %.17g, the Gaussian's %.17g", sigma, (unsigned long long)epochs,
                      b.upper, gb.upper);
        ck_assert_msg(b.lower >= 0.0 && b.lower <= b.upper, "sigma %g n %llu m %llu E %llu: [%g, %g]", sigma,
                      (unsigned long long)n, (unsigned long long)m, (unsigned long long)epochs, b.lower, b.upper);
        if (isfinite(b.upper)) {
            dpa_bound d;
            ck_assert_int_eq(dpa_accountant_delta(a, b.upper, &d, &err), DPA_OK);
            ck_assert_msg(d.lower >= 0.0 && d.lower <= d.upper && d.upper <= 1.0 && d.upper <= delta * (1.0 + 1e-9),
                          "sigma %g: delta at eps %g in [%g, %g], target %g", sigma, b.upper, d.lower, d.upper, delta);
        }
        dpa_accountant_free(a);
        dpa_accountant_free(ga);
    }
    gsl_rng_free(r);
}
END_TEST

/* The mc accountant (a Monte-Carlo estimate of balls-in-bins): random
 * noise, steps and epochs, kept small (the cost is epochs * steps * 4000
 * draws).  Its answers are estimates: status OK, no NaN, the interval
 * ordered around the estimate, a delta within [0, 1]. */
START_TEST(random_mc)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20260301);
    int cases = test_quick() ? 4 : 12;
    for (int i = 0; i < cases; i++) {
        double sigma = u01(r) < 0.2 ? (u01(r) < 0.5 ? 1e-3 : 1e3) : log_uniform(r, 0.2, 30.0);
        double delta = log_uniform(r, 1e-10, 0.5), eps = log_uniform(r, 1e-3, 20.0);
        uint64_t T = 1 + pick(r, 30), E = 1 + pick(r, 8);
        dpa_error err = { 0 };
        dpa_event *e = dpa_event_random_allocation(T, 1, dpa_event_gaussian(sigma, &err), &err);
        if (E > 1) e = dpa_event_self_composed(e, E, &err);
        dpa_accountant *a = accountant_with("mc", e);
        dpa_bound b, d;
        ck_assert_msg(dpa_accountant_epsilon(a, delta, &b, &err) == DPA_OK, "sigma %g T %llu E %llu: %s", sigma,
                      (unsigned long long)T, (unsigned long long)E, err.message);
        ck_assert_msg(dpa_accountant_delta(a, eps, &d, &err) == DPA_OK, "%s", err.message);
        ck_assert(!isnan(b.lower) && !isnan(b.estimate) && !isnan(b.upper) && !isnan(d.estimate));
        ck_assert_msg(b.lower >= 0.0 && b.lower <= b.estimate && b.estimate <= b.upper,
                      "sigma %g T %llu E %llu: eps [%g, %g, %g]", sigma, (unsigned long long)T,
                      (unsigned long long)E, b.lower, b.estimate, b.upper);
        ck_assert_msg(d.lower >= 0.0 && d.lower <= d.estimate && d.estimate <= d.upper && d.upper <= 1.0,
                      "sigma %g: delta [%g, %g, %g]", sigma, d.lower, d.estimate, d.upper);
        ck_assert((b.flags & DPA_APPROXIMATE) && (d.flags & DPA_APPROXIMATE));
        dpa_accountant_free(a);
    }
    gsl_rng_free(r);
}
END_TEST

/* Every registered accountant is covered by one of the tests above. */
START_TEST(every_accountant_is_covered)
{
    static const char *const covered[] = { "gaussian", "gdp", "zcdp", "rdp", "tuning", "shuffle", "pld", "batches", "mc" };
    for (const char *const *n = dpa_accountant_names(); *n; n++) {
        int found = 0;
        for (size_t i = 0; i < sizeof covered / sizeof covered[0]; i++) found |= !strcmp(*n, covered[i]);
        ck_assert_msg(found, "accountant \"%s\" is not exercised by test_property", *n);
    }
}
END_TEST

/* ===================================================================== */
/* pinned cases: the motivating bugs and the extreme counts               */
/* ===================================================================== */
typedef struct {
    const char *acct; /* NULL: every accountant */
    unsigned rels;    /* 1 add/remove, 2 replace-one, 3 both */
    double sigma, q;
    uint64_t count;
    double deltas[3];
    int ndelta;
    double epss[3];
    int neps;
    double orders[4];
    size_t norders;
} pinned;

static const pinned pins[] = {
    /* rdp: orders 2^31 / 9999999999 / 1e20 gave eps 0 */
    { "rdp", 1, 0.5, 0.5, 1000, { 1e-5 }, 1, { 1.0 }, 1, { 2147483648.0 }, 1 },
    { "rdp", 1, 0.5, 0.5, 1000, { 1e-5 }, 1, { 1.0 }, 1, { 9999999999.0 }, 1 },
    { "rdp", 1, 0.5, 0.5, 1000, { 1e-5 }, 1, { 1.0 }, 1, { 1.5, 2.0, 32.0, 9999999999.0 }, 4 },
    { "rdp", 1, 0.5, 0.5, 1000, { 1e-5 }, 1, { 1.0 }, 1, { 1e20 }, 1 },
    { "rdp", 3, 1.0, 1.0, 1, { 1e-5 }, 1, { 1.0 }, 1, { 1e300 }, 1 },
    /* zcdp: sigma 1e-160 gave eps 0 (rho overflows) */
    { NULL, 3, 1e-160, 1.0, 1, { 1e-5, 0.5 }, 2, { 0.0, 1.0 }, 2, { 0 }, 0 },
    { NULL, 3, 1e-300, 1.0, 1, { 1e-5 }, 1, { 1.0 }, 1, { 0 }, 0 },
    { NULL, 3, 1e300, 1.0, 1, { 1e-300 }, 1, { 0.0 }, 1, { 0 }, 0 },
    /* pld: delta upper 0 (with EACCURACY) at eps 0, 5, 10 */
    { NULL, 3, 1e-12, 0.01, 100, { 1e-5 }, 1, { 0.0, 5.0, 10.0 }, 3, { 0 }, 0 },
    /* pld: delta upper inf */
    { NULL, 3, 1.0, 1e-12, UINT64_C(1) << 32, { 1e-5 }, 1, { 0.0, 1.0, 10.0 }, 3, { 0 }, 0 },
    /* eps = inf at delta 1e-300 is allowed (the widest valid answer) */
    { NULL, 3, 1.0, 1.0, 1, { 1e-300, 1e-5 }, 2, { 0.0 }, 1, { 0 }, 0 },
    /* huge counts: a bracket, inf or an error, never a hang (pld's slow
     * ones once each: it spends up to its work budget on them) */
    { NULL, 3, 1.0, 1.0, UINT64_C(1) << 63, { 1e-5 }, 1, { 1.0 }, 1, { 0 }, 0 },
    { NULL, 3, 1e6, 1e-6, UINT64_C(1) << 63, { 1e-5 }, 1, { 1.0 }, 1, { 0 }, 0 },
    { NULL, 1, 1.0, 0.01, UINT64_C(1) << 53, { 1e-5 }, 1, { 0 }, 0, { 0 }, 0 },
    { NULL, 1, 1.0, 0.01, UINT64_C(1) << 62, { 1e-5 }, 1, { 0 }, 0, { 0 }, 0 },
    { NULL, 2, 1.0, 0.01, (UINT64_C(1) << 63) - 1, { 1e-5 }, 1, { 0 }, 0, { 0 }, 0 },
    { NULL, 3, 1e-12, 0.5, UINT64_C(1) << 31, { 1e-5 }, 1, { 1.0 }, 1, { 0 }, 0 },
};

START_TEST(pinned_cases)
{
    setup();
    for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++) {
        const pinned *p = &pins[i];
        prop_case pc;
        memset(&pc, 0, sizeof pc);
        dpa_error err = { 0 };
        dpa_event *e = dpa_event_gaussian(p->sigma, &err);
        if (p->q < 1.0) {
            e = dpa_event_poisson_sampled(p->q, e, &err);
            ref_add_comp(&pc.ref, (ref_comp){ C_POISSON, 1 / (ld)p->sigma, p->q, p->sigma, 0 }, (ld)p->count);
        } else {
            ref_add_gauss(&pc.ref, (ld)p->count / ((ld)p->sigma * p->sigma), 1);
        }
        if (p->count != 1) e = dpa_event_self_composed(e, p->count, &err);
        ck_assert_msg(e != NULL, "pinned case %zu: %s", i, err.message);
        pc.ev = e;
        dpa_event_describe(e, pc.desc, sizeof pc.desc);
        _Static_assert(sizeof pc.deltas == sizeof p->deltas && sizeof pc.epss == sizeof p->epss, "query arrays");
        memcpy(pc.deltas, p->deltas, sizeof pc.deltas);
        memcpy(pc.epss, p->epss, sizeof pc.epss);
        pc.ndelta = p->ndelta;
        pc.neps = p->neps;
        pc.norders = p->norders;
        memcpy(pc.orders, p->orders, sizeof p->orders);
        if (pc.norders) {
            int n = snprintf(pc.extra, sizeof pc.extra, ", orders {");
            for (size_t k = 0; k < pc.norders; k++)
                n += snprintf(pc.extra + n, sizeof pc.extra - n, "%s%.17g", k ? ", " : "", pc.orders[k]);
            snprintf(pc.extra + n, sizeof pc.extra - n, "}");
        }
        stats.cases++;
        for (const char *const *n = dpa_accountant_names(); *n; n++)
            if (!p->acct || !strcmp(p->acct, *n)) run_accountant(*n, &pc, 900000 + (unsigned)i, p->rels);
        dpa_event_free(e);
    }
    stats_report("pinned cases");
    fail_report("pinned cases (case ids 9000xx)");
}
END_TEST

/* ===================================================================== */
/* calibration                                                            */
/* ===================================================================== */
typedef struct {
    double q;
    uint64_t count;
} fam_ctx;

static dpa_event *family(double sigma, void *vctx, dpa_error *err)
{
    const fam_ctx *f = vctx;
    dpa_event *e = dpa_event_gaussian(sigma, err);
    if (f->q < 1.0) e = dpa_event_poisson_sampled(f->q, e, err);
    if (f->count != 1) e = dpa_event_self_composed(e, f->count, err);
    return e;
}

static void family_ref(const fam_ctx *f, double sigma, ref_mech *m)
{
    memset(m, 0, sizeof *m);
    if (f->q < 1.0) ref_add_comp(m, (ref_comp){ C_POISSON, 1 / (ld)sigma, f->q, sigma, 0 }, (ld)f->count);
    else ref_add_gauss(m, (ld)f->count / ((ld)sigma * sigma), 1);
}

/* One calibration: search (dpa_calibrate_search when c != NULL, else
 * dpa_calibrate on [lo, hi]) and check the value it returns. */
/* wide: search limits [lo 2^-64, hi 2^64] (the defaults are [1e-6, 1e9]);
 * wider ones let the x2 widening run for hundreds of evaluations */
static void check_calibration(const char *method, dpa_relation rel, const fam_ctx *f, double target, double delta,
                              double lo, double hi, double rel_tol, int simple, int wide, unsigned id)
{
    dpa_options opt;
    dpa_options_init(&opt);
    opt.relation = rel;
    dpa_error err = { 0 };
    double value = NAN, eps_at = NAN, lim_lo = 0, lim_hi = INFINITY;
    int st;
    char call[400];
    unsigned evals = 0;
    double t0 = now_seconds();
    if (simple) {
        st = dpa_calibrate(method, &opt, family, (void *)f, target, delta, lo, hi, &value, &err);
        snprintf(call, sizeof call, "dpa_calibrate(%s, %s, q=%.17g, T=%" PRIu64 ", eps=%.17g, delta=%.17g, [%.17g, %.17g])",
                 method, rel_name(rel), f->q, f->count, target, delta, lo, hi);
    } else {
        dpa_calibration c;
        dpa_calibration_init(&c, DPA_SEARCH_SMALLEST);
        c.lo = lo;
        c.hi = hi;
        c.rel_tol = rel_tol;
        if (wide) {
            c.limit_lo = fmax(ldexp(lo, -64), DBL_MIN);
            c.limit_hi = fmin(ldexp(hi, 64), DBL_MAX / 4);
        }
        st = dpa_calibrate_search(method, &opt, family, (void *)f, target, delta, &c, &err);
        value = c.value;
        evals = c.evaluations;
        eps_at = c.epsilon_at_value;
        lim_lo = c.limit_lo;
        lim_hi = c.limit_hi;
        snprintf(call, sizeof call,
                 "dpa_calibrate_search(%s, %s, q=%.17g, T=%" PRIu64 ", eps=%.17g, delta=%.17g, lo=%.17g, hi=%.17g, "
                 "rel_tol=%g, limits [%g, %g])",
                 method, rel_name(rel), f->q, f->count, target, delta, lo, hi, rel_tol, lim_lo, lim_hi);
    }
    stats.queries++;
    stats.cases++;
    double dt = now_seconds() - t0;
    stats.seconds += dt;
    if (dt > stats.worst_seconds) {
        stats.worst_seconds = dt;
        snprintf(stats.worst, sizeof stats.worst, "%s -> %d", call, st);
    }
    if (opt_verbose && dt > 0.25) fprintf(stderr, "SLOW %.3f s (%u evaluations): %s -> %d\n", dt, evals, call, st);
    if (st != DPA_OK) {
        if (st > 0 || err.message[0] == '\0')
            record(F_STATUS, 2, strlen(call), "calibration %u: %s returned %d with message \"%s\"", id, call, st,
                   err.message);
        else stats.errors++;
        if (opt_verbose) fprintf(stderr, "calibration %u: %s -> %d: %s\n", id, call, st, err.message);
        return;
    }
    stats.ok++;
    if (!(value > 0) || !isfinite(value) || (!simple && (value < lim_lo || value > lim_hi))) {
        record(F_CAL_SELF, 2, strlen(call), "calibration %u: %s succeeded with value %.17g (limits [%.17g, %.17g])", id,
               call, value, lim_lo, lim_hi);
        return;
    }
    if (!simple && !(eps_at <= target))
        record(F_CAL_SELF, 2, strlen(call), "calibration %u: %s succeeded with value %.17g but epsilon_at_value %.17g > target",
               id, call, value, eps_at);
    ref_mech m;
    family_ref(f, value, &m);
    double ref = ref_eps_lower(&m, rel, delta);
    if (ref > target * (1 + REF_SLACK)) {
        char rd[300];
        ref_describe(&m, rd, sizeof rd);
        record(F_CAL_ACCEPTS, 2, strlen(call),
               "calibration %u: %s succeeded with sigma = %.17g (epsilon_at_value %.17g), whose true eps at delta is "
               ">= %.17g > target (%s)",
               id, call, value, eps_at, ref, rd);
    }
}

START_TEST(calibration)
{
    setup();
    static const char *const methods[] = { "gaussian", "rdp", "pld", "zcdp", "gdp" };
    /* the extreme intervals of the issue */
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
        fam_ctx g1 = { 1.0, 1 }, p1 = { 0.01, 100 };
        check_calibration(methods[k], DPA_ADD_REMOVE, &g1, 1.0, 1e-5, 1e-12, 2e-12, 0, 1, 0, 800000 + (unsigned)k);
        check_calibration(methods[k], DPA_ADD_REMOVE, &g1, 1.0, 1e-5, 1e-12, 2e-12, 0, 0, 1, 800010 + (unsigned)k);
        check_calibration(methods[k], DPA_ADD_REMOVE, &p1, 1.0, 1e-5, 1e-12, 2e-12, 0, 1, 0, 800020 + (unsigned)k);
        check_calibration(methods[k], DPA_ADD_REMOVE, &p1, 1.0, 1e-5, 1e-12, 2e-12, 1e-3, 0, 1, 800030 + (unsigned)k);
        /* (not pld: it answers [0, inf] for sigma >= ~1e7, so the search
         * runs its 64 doublings at 80 ms each to a clean ENOBRACKET) */
        if (strcmp(methods[k], "pld"))
            check_calibration(methods[k], DPA_ADD_REMOVE, &g1, 1.0, 1e-5, 1e12, 2e12, 0, 0, 1, 800040 + (unsigned)k);
        check_calibration(methods[k], DPA_REPLACE_ONE, &p1, 1.0, 1e-5, 1e-12, 2e-12, 1e-3, 0, 1, 800050 + (unsigned)k);
        check_calibration(methods[k], DPA_ADD_REMOVE, &g1, 1.0, 1e-5, 1e-12, 2e-12, 0, 0, 0, 800060 + (unsigned)k);
    }
    /* random: extreme intervals, targets and families */
    unsigned n = num_cases() / 40 + 4;
    for (unsigned i = 0; i < n; i++) {
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(r, PROP_SEED + 7777777UL + i);
        fam_ctx f = { draw_q(r), u01(r) < 0.5 ? 1 : (uint64_t)fmax(1.0, floor(log_uniform(r, 1.0, 1e4))) };
        double lo = draw_sigma(r), hi = lo * log_uniform(r, 1.0 + 1e-12, 1e6);
        if (!isfinite(hi)) hi = DBL_MAX;
        double target = u01(r) < 0.2 ? 1.0 : log_uniform(r, 1e-3, 1e3);
        double delta = draw_delta(r);
        dpa_relation rel = u01(r) < 0.8 ? DPA_ADD_REMOVE : DPA_REPLACE_ONE;
        const char *method = methods[pick(r, sizeof methods / sizeof methods[0])];
        int simple = u01(r) < 0.3, wide = u01(r) < 0.7;
        gsl_rng_free(r);
        /* pld runs a full accounting per evaluation: a looser bracket */
        double rel_tol = !strcmp(method, "pld") ? 1e-3 : 0.0;
        if (!strcmp(method, "pld") && (i % 3)) continue;
        check_calibration(method, rel, &f, target, delta, lo, hi, rel_tol, simple && strcmp(method, "pld"), wide, i);
    }
    stats_report("calibration");
    fail_report("calibration");
}
END_TEST

/* ===================================================================== */
/* the references against MPFR (tests/mpfr_ref.c)                        */
/* ===================================================================== */
/* lo <= ref <= hi within rel (exact when ref is infinite) */
static int brackets(ld lo, ld hi, double ref, double rel)
{
    if (isinf(ref)) return lo <= ref && hi >= ref;
    return lo <= ref + rel * fabs(ref) && hi >= ref - rel * fabs(ref);
}

START_TEST(references_against_mpfr)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, PROP_SEED);
    for (int i = 0; i < 60; i++) {
        double mu = log_uniform(r, 1e-3, 50.0), eps = i < 6 ? 0.0 : 60.0 * u01(r) * u01(r);
        double ref = ref_gdp_log_delta(mu, eps);
        ld lo = gauss_lo(mu, eps), hi = gauss_hi(mu, eps);
        ck_assert_msg(brackets(lo, hi, ref, 1e-12),
                      "gaussian mu=%.17g eps=%.17g: [%.17Lg, %.17Lg] misses MPFR log delta %.17g", mu, eps, lo, hi, ref);
        if (ref > -1e4)
            ck_assert_msg(lo >= ref - 1e-6 * (1 + fabs(ref)) && hi <= ref + 1e-6 * (1 + fabs(ref)),
                          "gaussian mu=%.17g eps=%.17g: [%.17Lg, %.17Lg] too loose around %.17g", mu, eps, lo, hi, ref);
        /* the remove pair is q times the Gaussian at eps' */
        double q = log_uniform(r, 1e-6, 1.0), e1 = (double)log1pl(expm1l(fminl(eps, 30)) / q);
        lrange pr = poisson_remove(mu, 8 * U, q, fminl(eps, 30), 1);
        double pref = log(q) + ref_gdp_log_delta(mu, e1);
        ck_assert_msg(brackets(pr.lo, pr.hi, pref, 1e-9),
                      "poisson remove mu=%.17g q=%.17g: [%.17Lg, %.17Lg] misses %.17g", mu, q, pr.lo, pr.hi, pref);
        /* replace-one pair against the MPFR hockey stick of the same pair */
        double sigma = log_uniform(r, 0.3, 10.0), e2 = 8.0 * u01(r);
        ref_pair *rp = ref_pair_replace_gaussian(2 * sigma, q);
        double rref = ref_pair_log_delta(rp, e2);
        ref_pair_free(rp);
        ld rlo = poisson_replace_lo(sigma, q, e2);
        /* (the MPFR pair reports -inf where the delta underflows its grid; the
         * true one is positive: the loss is unbounded) */
        ck_assert_msg(isinf(rref) || brackets(rlo, 0, rref, 1e-12), "replace sigma=%.17g q=%.17g eps=%.17g: %.17Lg above MPFR %.17g",
                      sigma, q, e2, rlo, rref);
        if (rref > -700)
            ck_assert_msg(rlo >= rref - 1e-6 * (1 + fabs(rref)), "replace sigma=%.17g q=%.17g eps=%.17g: %.17Lg far below %.17g",
                          sigma, q, e2, rlo, rref);
        /* Laplace and randomized response against the MPFR pairs */
        double b = log_uniform(r, 0.05, 20.0), e3 = 1.2 * u01(r) / b;
        ref_pair *lp = ref_pair_laplace(b);
        double lref = ref_pair_log_delta(lp, e3);
        ref_pair_free(lp);
        lrange lr = laplace_range(b, e3);
        ck_assert_msg(brackets(lr.lo, lr.hi, lref, 1e-12),
                      "laplace b=%.17g eps=%.17g: [%.17Lg, %.17Lg] vs MPFR %.17g", b, e3, lr.lo, lr.hi, lref);
        double er = log_uniform(r, 1e-3, 20.0), e4 = 1.2 * er * u01(r);
        unsigned k = 2 + pick(r, 9);
        ref_pair *rr = ref_pair_rr(er, k);
        double rrref = ref_pair_log_delta(rr, e4);
        ref_pair_free(rr);
        lrange rrr = rr_range(er, k, e4);
        ck_assert_msg(brackets(rrr.lo, rrr.hi, rrref, 1e-12),
                      "rr eps=%.17g k=%u at %.17g: [%.17Lg, %.17Lg] vs MPFR %.17g", er, k, e4, rrr.lo, rrr.hi, rrref);
    }
    gsl_rng_free(r);
    /* extremes: sigma 1e-300 is delta = 1 at every eps; sigma 1e300 tiny but positive */
    ck_assert(gauss_lo(1e300L, 1e3) > -1e-10);
    ck_assert(gauss_lo(1e-300L, 0) > -INFINITY && gauss_lo(1e-300L, 0) < -600);
    ck_assert(gauss_lo(1e-300L, 1e3) > -INFINITY);
}
END_TEST

static Suite *property_suite(void)
{
    Suite *s = suite_create("property");
    const double timeout = 900; /* generous: the sanitizer builds are several times slower */
    TCase *tc = tcase_create("references");
    tcase_add_test(tc, references_against_mpfr);
    tcase_add_test(tc, every_accountant_is_covered);
    tcase_set_timeout(tc, timeout);
    suite_add_tcase(s, tc);
    tc = tcase_create("pinned");
    tcase_add_test(tc, pinned_cases);
    tcase_set_timeout(tc, timeout);
    suite_add_tcase(s, tc);
    tc = tcase_create("random_gaussian");
    tcase_add_test(tc, random_gaussian);
    tcase_set_timeout(tc, timeout);
    suite_add_tcase(s, tc);
    tc = tcase_create("random_gdp");
    tcase_add_test(tc, random_gdp);
    tcase_set_timeout(tc, timeout);
    suite_add_tcase(s, tc);
    tc = tcase_create("random_zcdp");
    tcase_add_test(tc, random_zcdp);
    tcase_set_timeout(tc, timeout);
    suite_add_tcase(s, tc);
    tc = tcase_create("random_rdp");
    tcase_add_test(tc, random_rdp);
    tcase_set_timeout(tc, timeout);
    suite_add_tcase(s, tc);
    tc = tcase_create("random_tuning_shuffle");
    tcase_add_test(tc, random_tuning);
    tcase_add_test(tc, random_shuffle);
    tcase_add_test(tc, random_batches);
    tcase_add_test(tc, random_mc);
    tcase_set_timeout(tc, timeout);
    suite_add_tcase(s, tc);
    tc = tcase_create("random_pld");
    tcase_add_test(tc, random_pld);
    tcase_set_timeout(tc, timeout);
    suite_add_tcase(s, tc);
    tc = tcase_create("calibration");
    tcase_add_test(tc, calibration);
    tcase_set_timeout(tc, timeout);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(property_suite());
}
