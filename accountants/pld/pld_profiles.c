/*
 * pld_profiles.c - the upper layer of the PLD profiles: the map from leaf
 * events to their dominating pairs (pld_profile_of_event), the dispatch on
 * the pair, the exact privacy profiles of the Gaussian mechanism and of
 * both directions of the Poisson-subsampled Gaussian (add/remove), and the
 * composite pairs, whose profiles recurse through the dispatcher: Poisson
 * sampling (add/remove) of any of the symmetric leaves, and sampling
 * without replacement (replace-one) of a Gaussian or of such a leaf.
 *
 * With w(x) = (2x - 1)/(2 s^2) the likelihood ratio of N(1, s^2) to
 * N(0, s^2) is e^{w(x)}, monotone in x, so each profile is an expression in
 * the normal CDF at the x where the loss crosses eps (see
 * docs/pld-design.md).  Where the two terms of delta nearly cancel, their
 * ratio is taken from Mills ratios, where the Gaussian factors cancel
 * exactly (as in lib/gaussian_profile.c).
 *
 * The leaf pairs (Laplace, truncated Laplace, randomized response,
 * discrete Laplace and Gaussian, the (eps, delta) black box, the
 * replace-one subsampled Gaussian, the shuffle clones) are in the lower
 * layer, pld_mechanisms.c, called through pld_mechanisms.h; it never calls
 * back into this file.  The types are in pld_pair.h.
 */
#include "pld_profiles.h"
#include "pld_mechanisms.h"
#include "pld_mixture.h"
#include "pld_allocation.h"
#include "shuffle/shuffle_clones.h"
#include "gaussian_profile.h"
#include "internal.h"
#include "numerics.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* log(A - B) from log A, log B and, when both normal tails are past 2, the
 * log ratio B/A computed from Mills ratios instead. */
static double log_difference(double log_a, double log_b, double log_ratio_mills, int use_mills)
{
    double log_r = use_mills ? log_ratio_mills : log_b - log_a;
    if (!(log_r < 0.0)) return -INFINITY;   /* rounding at delta ~ 0 */
    return log_a + dpa_log1mexp(log_r);
}

/* Remove direction: P = (1-q) N(0,s^2) + q N(1,s^2), Q = N(0,s^2).
 * L > eps iff x > x_eps = s^2 log((e^eps - 1 + q)/q) + 1/2 (every x when
 * e^eps <= 1 - q); delta = q Phibar((x-1)/s) - (e^eps - 1 + q) Phibar(x/s). */
static double remove_log_delta(const pld_profile *p, double eps, double *log_ratio)
{
    double s = p->sigma, q = p->q;
    double excess = expm1(eps) + q;           /* e^eps - 1 + q */
    *log_ratio = -INFINITY;
    if (!(excess > 0.0)) return log(-expm1(eps));
    double x = s * s * (log(excess) - log(q)) + 0.5;
    double a = (x - 1.0) / s, b = x / s;
    double log_a = log(q) + dpa_log_ndtr(-a), log_b = log(excess) + dpa_log_ndtr(-b);
    int mills = a > 2.0;
    double lr_mills = mills ? dpa_log_mills(b) - dpa_log_mills(a) : 0.0;
    *log_ratio = mills ? lr_mills : log_b - log_a;
    return log_difference(log_a, log_b, lr_mills, mills);
}

/* Add direction: P = N(0,s^2), Q the mixture.  L <= -log(1-q); L > eps iff
 * x < x' = s^2 log((e^-eps - 1 + q)/q) + 1/2, and
 * delta = e^eps [(e^-eps - 1 + q) Phi(x'/s) - q Phi((x'-1)/s)]. */
static double add_log_delta(const pld_profile *p, double eps, double *log_ratio)
{
    double s = p->sigma, q = p->q;
    double excess = expm1(-eps) + q;          /* e^-eps - 1 + q */
    *log_ratio = -INFINITY;
    if (!(excess > 0.0)) return -INFINITY;
    double x = s * s * (log(excess) - log(q)) + 0.5;
    double c = x / s, d = (x - 1.0) / s;
    double log_a = log(excess) + dpa_log_ndtr(c), log_b = log(q) + dpa_log_ndtr(d);
    int mills = c < -2.0;
    double lr_mills = mills ? dpa_log_mills(-d) - dpa_log_mills(-c) : 0.0;
    *log_ratio = mills ? lr_mills : log_b - log_a;
    return eps + log_difference(log_a, log_b, lr_mills, mills);
}

static double gaussian_log_delta(const pld_profile *p, double eps)
{
    double ignored;
    return dpa_gaussian_pair_log_delta_relerr(1.0 / p->sigma, eps, &ignored);
}

/* ---- composite pairs -------------------------------------------------------------
 *
 * Poisson sampling of a symmetric leaf and sampling without replacement:
 * their profiles are the inner pair's (any pair the dispatcher knows) at a
 * shifted eps, so they recurse through pld_profile_log_delta and its
 * siblings.  (1)-(4) are the identities at the top of pld_mechanisms.c:
 * (1) delta(eps) = P(L > eps) - e^eps Q(L > eps), (2) its right derivative
 * -e^eps Q(L > eps), and for a symmetric pair (3) delta(eps) = 1 - e^eps +
 * e^eps delta(-eps) (eps < 0) and (4) P(L < t) = Q(L > -t),
 * Q(L < t) = P(L > -t). */

/* log(1 - e^x) for x <= 0 (log(0) = -inf at x = 0); as in pld_mechanisms.c. */
static double log1mexp(double x) { return x >= 0.0 ? -INFINITY : dpa_log1mexp(x); }

/* -- Poisson sampling of a symmetric leaf (add/remove) -- */

/* Remove world (P', Q') = (q P + (1-q) Q, Q): for any S,
 *   P'(S) - e^eps Q'(S) = q [P(S) - e^{eps'} Q(S)],  e^{eps'} = (e^eps - 1 + q)/q,
 * so delta'(eps) = q delta(eps') when e^eps > 1 - q and 1 - e^eps otherwise
 * (Balle, Barthe & Gaboardi 2018, Thm 8 / Zhu, Dong & Wang 2022, Prop. 30);
 * L' = log(1 - q + q e^L) is increasing in L, so Q'(L' > eps) = Q(L > eps').
 *
 * Add world (P'', Q'') = (Q, q P + (1-q) Q), alpha = e^eps:
 *   Q(S) - alpha q P(S) - alpha (1-q) Q(S) = c Q(S) - alpha q P(S),
 *   c = 1 - alpha (1-q),
 * so H_alpha(Q || Q'') = c H_{1/beta}(Q || P) with beta = c / (alpha q)
 * (0 when c <= 0).  (The form alpha q H_beta(Q || P) is not this: it
 * weights Q by alpha q and P by c.)  For a symmetric inner pair
 * H_{1/beta}(Q || P) = H_{1/beta}(P || Q), so
 *   delta''(eps) = e^eps (e^{-eps} - 1 + q) delta(-eps_b),
 *   eps_b = log((e^{-eps} - 1 + q)/q),
 * a product: no cancellation.  (Equivalently, by the complement identity
 * H_g(Q || P) = 1 - g + g H_{1/g}(P || Q), delta'' = 1 - alpha + alpha q
 * H_beta(P || Q), which cancels for alpha > 1 and is not used.)  For
 * eps < 0 we use delta''(eps) = 1 - e^eps + e^eps delta'(-eps), since
 * (Q'', P'') is the remove-world pair.  L'' = -log(1 - q + q e^L) > eps iff
 * L < eps_b, so by (4) and (1)
 *   Q''(L'' > eps) = q Q(L > -eps_b) + (1-q) [delta(-eps_b) + e^{-eps_b} Q(L > -eps_b)]. */

/* log((e^{+-eps} - 1 + q)/q) given expm1 = e^{+-eps} - 1; *err gets a bound
 * on its absolute rounding error; NaN when the excess is not positive. */
static double shifted(double em1, double q, double *err)
{
    double excess = em1 + q;
    if (!(excess > 0.0)) { *err = 0.0; return NAN; }
    double y = em1 / q;
    double v = fabs(y) < 0.5 ? log1p(y) : log(excess) - log(q);
    *err = 4.0 * DBL_EPSILON * ((q + fabs(em1)) / excess + fabs(v));
    return v;
}

static pld_profile inner_of(const pld_profile *p)
{
    pld_profile c = *p;
    c.pair = p->inner;
    return c;
}

static double sampled_remove_log_delta(const pld_profile *p, double eps)
{
    pld_profile in = inner_of(p);
    double err, e_in = shifted(expm1(eps), p->q, &err);
    if (isnan(e_in)) return log1mexp(eps);
    return log(p->q) + pld_profile_log_delta(e_in, &in);
}

static double sampled_add_log_delta(const pld_profile *p, double eps)
{
    if (eps == -INFINITY) return 0.0;
    if (eps < 0.0) {
        pld_profile r = *p;
        r.pair = PLD_SAMPLED_REMOVE;
        return pld_reflect_log_delta(eps, sampled_remove_log_delta(&r, -eps));
    }
    pld_profile in = inner_of(p);
    double em1 = expm1(-eps), err, e_b = shifted(em1, p->q, &err);
    if (isnan(e_b)) return -INFINITY;
    return eps + log(em1 + p->q) + pld_profile_log_delta(-e_b, &in);
}

static double sampled_remove_log_q(const pld_profile *p, double eps)
{
    pld_profile in = inner_of(p);
    double em1 = expm1(eps), excess = em1 + p->q, err;
    if (excess < 0.0) return 0.0;
    if (excess == 0.0) return pld_profile_log_q_survival(-INFINITY, &in);
    return pld_profile_log_q_survival(shifted(em1, p->q, &err), &in);
}

static double sampled_add_log_q(const pld_profile *p, double eps)
{
    pld_profile in = inner_of(p);
    double q = p->q, e_b, err;
    if (eps == -INFINITY) e_b = INFINITY;
    else if (isnan(e_b = shifted(expm1(-eps), q, &err))) return -INFINITY;
    double lq = pld_profile_log_q_survival(-e_b, &in);
    double p_above = dpa_log_add_exp(pld_profile_log_delta(-e_b, &in), e_b == INFINITY ? -INFINITY : -e_b + lq);
    return fmin(0.0, dpa_log_add_exp(log(q) + lq, log1p(-q) + p_above));
}

/* -- sampling without replacement (replace-one) --
 *
 * m records out of n, uniformly without replacement, q = m/n, under
 * replace-one neighbours; (P, Q) dominates the inner mechanism under
 * replace-one.  Balle, Barthe & Gaboardi 2018 (Thm 10, advanced joint
 * convexity) bound the profile of the sampled mechanism for alpha = e^eps
 * >= 1 by
 *   delta_R(alpha) = H_alpha(q P + (1-q) Q || Q)   (the "remove" pair),
 * for either order of the two datasets, since replace-one is symmetric.
 * For alpha < 1 the identity H_alpha(A || B) = 1 - alpha + alpha
 * H_{1/alpha}(B || A) turns the bound for the reversed order into
 *   1 - alpha + alpha delta_R(1/alpha) = H_alpha(Q || q P + (1-q) Q) = delta_A(alpha),
 * the "add" pair's profile.  So F(alpha) = max(delta_R, delta_A) lies above
 * the sampled mechanism's profile at every alpha >= 0.  F is convex,
 * decreasing and F(0) = 1 (both are), hence the profile of a pair (the
 * stop-loss transform of its likelihood ratio, ../shared/notes/
 * pld-bounds.md fact 3), which dominates every step (fact 2) and so any
 * composition.  In tradeoff functions this is Dong, Roth & Su 2022,
 * Thm 9: C_q(f) = min(f_q, f_q^{-1})** has conjugate max(f_q*, (f_q^{-1})*),
 * i.e. profile max(delta_R, delta_A); Zhu, Dong & Wang 2022 use the same
 * pair.  F is symmetric (F(alpha) = 1 - alpha + alpha F(1/alpha)), so both
 * worlds are this one pair.
 *
 * Where delta_R > delta_A, F is delta_R near alpha and -F' its Q-survival;
 * the same for delta_A; at a tie (always at alpha = 1, where both are the
 * total variation q TV(P, Q)) F has a kink, an atom of its pair, and the
 * strict survival -F'_+ is the smaller of the two.  Any value between the
 * one-sided survivals serves the lower discretisation's chord bounds, so a
 * branch chosen wrongly within rounding of a crossing costs nothing beyond
 * the rounding.  The bracket the accountant returns is around the eps of
 * this dominating pair: delta_R alone is attained (records 0 and 1 for an
 * additive-noise inner mechanism), so the truth for the worst pair of
 * datasets lies between the remove pair's composition and this one's. */

static void wor_parts(const pld_profile *p, pld_profile part[2])
{
    part[0] = part[1] = *p;
    int gaussian = p->inner == PLD_GAUSSIAN;   /* the specialised forms */
    part[0].pair = gaussian ? PLD_POISSON_REMOVE : PLD_SAMPLED_REMOVE;
    part[1].pair = gaussian ? PLD_POISSON_ADD : PLD_SAMPLED_ADD;
}

static double wor_log_delta(const pld_profile *p, double eps)
{
    pld_profile part[2];
    wor_parts(p, part);
    return fmax(pld_profile_log_delta(eps, &part[0]), pld_profile_log_delta(eps, &part[1]));
}

static double wor_log_q(const pld_profile *p, double eps)
{
    pld_profile part[2];
    wor_parts(p, part);
    double lr = pld_profile_log_delta(eps, &part[0]), la = pld_profile_log_delta(eps, &part[1]);
    double qr = pld_profile_log_q_survival(eps, &part[0]), qa = pld_profile_log_q_survival(eps, &part[1]);
    return lr > la ? qr : la > lr ? qa : fmin(qr, qa);
}

/* -- truncated Poisson sampling of a Gaussian (add/remove) --
 *
 * lib/truncated_poisson.c derives the pair: in each world the mixture, with
 * the same weights w_0 = 1 - p and w_1 = p in both worlds, of that world's
 * Poisson-subsampled Gaussian pairs at (sigma, q) and at (sigma/2, q2) --
 * the disjoint union of the two, which reveals the part.  Its PLD is the
 * weighted sum of theirs: delta = w_0 delta_0 + w_1 delta_1, Q(L > eps) =
 * w_0 Q_0 + w_1 Q_1, and for eps < 0 the excess over 1 - e^eps (the weights
 * sum to 1) is w_0 x_0 + w_1 x_1.  Its losses are its parts', so its range
 * is the union of theirs and it has no atoms.  A part of weight 0 (p = 1 at
 * q = 1) is left out; a part at rate 1 is the Gaussian. */

static void truncated_parts(const pld_profile *p, pld_profile part[2], double log_w[2])
{
    const pld_pair kind = p->pair == PLD_TRUNCATED_REMOVE ? PLD_POISSON_REMOVE : PLD_POISSON_ADD;
    const double sigma[2] = { p->sigma, 0.5 * p->sigma }, rate[2] = { p->q, p->q2 };
    for (int i = 0; i < 2; i++)
        part[i] = (pld_profile){ .pair = rate[i] < 1.0 ? kind : PLD_GAUSSIAN, .sigma = sigma[i],
                                 .q = fmin(rate[i], 1.0) };
    log_w[0] = p->log_full;
    log_w[1] = p->log_trunc;
}

/* A relative error bound of d = sum_i e^{t_i} (log d = ld) given the
 * relative error bounds r_i of the parts' values and w of the weights: the
 * true sum lies in [d lo, d hi], lo = sum_i share_i / ((1 + w)(1 + r_i)),
 * hi = sum_i share_i / ((1 - w)(1 - r_i)), so |d - true| <= true
 * max(1 - lo, hi - 1) / lo, where a part's share is what weighs its error;
 * and at most (1 + w)(1 + max r_i) - 1 (a sum of positive terms), which
 * holds also where some r_i >= 1; plus a few ulps of |ld| for the sum's
 * rounding. */
static double mixture_relerr(const double t[2], const double r[2], double w, double ld)
{
    if (!isfinite(ld)) return 1e-13;           /* delta = 0 exactly: nothing to pad */
    double lo = 0.0, hi = 0.0, r_max = 0.0;
    for (int i = 0; i < 2; i++) {
        double share = exp(t[i] - ld);
        if (!(share > 0.0)) continue;
        r_max = fmax(r_max, r[i]);
        lo += share / ((1.0 + w) * (1.0 + r[i]));
        hi += r[i] < 1.0 && w < 1.0 ? share / ((1.0 - w) * (1.0 - r[i])) : INFINITY;
    }
    double shared = lo > 0.0 ? fmax(1.0 - lo, hi - 1.0) / lo : INFINITY;
    return fmin(shared, (1.0 + w) * (1.0 + r_max) - 1.0) + 8.0 * DBL_EPSILON * (1.0 + fabs(ld));
}

enum { MIX_DELTA, MIX_Q_SURVIVAL, MIX_EXCESS };

/* log of the weighted sum of the parts' log delta, log Q(L > eps) or log
 * excess (`what`), and, when relerr is not NULL, its relative error bound
 * (none for the survival, which only the lower grids' chord bounds use). */
static double truncated_mix(const pld_profile *p, double eps, int what, double *relerr)
{
    pld_profile part[2];
    double log_w[2], t[2] = { -INFINITY, -INFINITY }, r[2] = { 0.0, 0.0 };
    truncated_parts(p, part, log_w);
    for (int i = 0; i < 2; i++) {
        if (log_w[i] == -INFINITY) continue;
        double v = what == MIX_DELTA ? pld_profile_log_delta_relerr(eps, &part[i], &r[i])
                   : what == MIX_EXCESS ? pld_profile_log_excess_relerr(eps, &part[i], &r[i])
                                        : pld_profile_log_q_survival(eps, &part[i]);
        if (isnan(v)) {
            if (relerr) *relerr = NAN;
            return NAN;
        }
        t[i] = log_w[i] + v;
    }
    double ld = dpa_log_add_exp(t[0], t[1]);
    if (relerr) *relerr = mixture_relerr(t, r, p->weight_relerr, ld);
    return ld;
}

/* The dispatcher's entries for the composite pairs (NaN at eps = NaN, as
 * for the leaves). */
static double composite_log_delta(const pld_profile *p, double eps)
{
    if (isnan(eps)) return NAN;
    switch (p->pair) {
    case PLD_SAMPLED_REMOVE: return sampled_remove_log_delta(p, eps);
    case PLD_SAMPLED_ADD: return sampled_add_log_delta(p, eps);
    case PLD_WITHOUT_REPLACEMENT: return wor_log_delta(p, eps);
    default: return NAN;
    }
}

static double composite_log_q(const pld_profile *p, double eps)
{
    if (isnan(eps)) return NAN;
    switch (p->pair) {
    case PLD_SAMPLED_REMOVE: return sampled_remove_log_q(p, eps);
    case PLD_SAMPLED_ADD: return sampled_add_log_q(p, eps);
    case PLD_WITHOUT_REPLACEMENT: return wor_log_q(p, eps);
    default: return NAN;
    }
}

/* |d log delta / d eps| = e^eps Q(L > eps) / delta(eps), by (2): how much an
 * absolute error in eps (or in a loss it is compared with) moves log delta. */
static double sensitivity(const pld_profile *p, double eps)
{
    double ld = pld_profile_log_delta(eps, (void *)p);
    if (!isfinite(ld)) return 0.0;
    double v = exp(eps + pld_profile_log_q_survival(eps, (void *)p) - ld);
    return isfinite(v) ? v : DBL_MAX;
}

/* pld_profile_delta_relerr of a composite pair: the inner pair's bound at
 * the shifted eps plus the shift's rounding, moved by the inner profile's
 * sensitivity. */
static double composite_delta_relerr(const pld_profile *p, double eps)
{
    if (p->pair == PLD_WITHOUT_REPLACEMENT) {
        /* |max(a', b') - max(a, b)| <= max(|a' - a|, |b' - b|) */
        pld_profile part[2];
        wor_parts(p, part);
        return fmax(pld_profile_delta_relerr(&part[0], eps), pld_profile_delta_relerr(&part[1], eps));
    }
    double ld = pld_profile_log_delta(eps, (void *)p);
    if (!isfinite(ld)) return 1e-13;           /* delta = 0 (or 1) exactly */
    double base = 1e-13 + 32.0 * DBL_EPSILON * (1.0 + fabs(ld));
    switch (p->pair) {
    case PLD_SAMPLED_REMOVE: {
        pld_profile in = inner_of(p);
        double err, e_in = shifted(expm1(eps), p->q, &err);
        if (isnan(e_in)) return base;
        /* beyond the double range of e^eps only the inner mass at +inf is left */
        if (!isfinite(e_in)) return base + pld_profile_delta_relerr(&in, e_in);
        return base + pld_profile_delta_relerr(&in, e_in) + sensitivity(&in, e_in) * err;
    }
    case PLD_SAMPLED_ADD: {
        if (eps < 0.0) {
            pld_profile r = *p;
            r.pair = PLD_SAMPLED_REMOVE;
            /* the reflected term's share of delta(eps) carries its error */
            double share = exp(eps + sampled_remove_log_delta(&r, -eps) - ld);
            return base + (share < 1.0 ? share : 1.0) * composite_delta_relerr(&r, -eps);
        }
        pld_profile in = inner_of(p);
        double err, e_b = shifted(expm1(-eps), p->q, &err);
        if (isnan(e_b)) return 1e-13;
        return base + pld_profile_delta_relerr(&in, -e_b) + (1.0 + sensitivity(&in, -e_b)) * err;
    }
    default: return NAN;
    }
}

double pld_profile_log_delta(double epsilon, void *profile)
{
    const pld_profile *p = profile;
    double ignored;
    switch (p->pair) {
    case PLD_GAUSSIAN: return gaussian_log_delta(p, epsilon);
    case PLD_POISSON_REMOVE: return remove_log_delta(p, epsilon, &ignored);
    case PLD_POISSON_ADD:
        /* e^-eps overflows below -700: there delta = 1 - e^eps + e^eps
         * delta_remove(-eps) (the reversed pair is the remove world) */
        if (epsilon < -700.0) {
            pld_profile r = *p;
            r.pair = PLD_POISSON_REMOVE;
            return epsilon == -INFINITY ? 0.0
                                        : dpa_log_add_exp(log1p(-exp(epsilon)), epsilon + remove_log_delta(&r, -epsilon, &ignored));
        }
        return add_log_delta(p, epsilon, &ignored);
    case PLD_SAMPLED_REMOVE:
    case PLD_SAMPLED_ADD:
    case PLD_WITHOUT_REPLACEMENT: return composite_log_delta(p, epsilon);
    case PLD_TRUNCATED_REMOVE:
    case PLD_TRUNCATED_ADD: return truncated_mix(p, epsilon, MIX_DELTA, NULL);
    case PLD_MIXTURE_REMOVE:
    case PLD_MIXTURE_ADD: return pld_mixture_log_delta(p, epsilon);
    case PLD_ALLOCATION_REMOVE:
    case PLD_ALLOCATION_ADD: return pld_allocation_log_delta_relerr(p, epsilon, &ignored);
    default: return pld_mech_log_delta(p, epsilon);
    }
}

double pld_profile_log_q_survival(double epsilon, void *profile)
{
    const pld_profile *p = profile;
    double s = p->sigma, q = p->q;
    switch (p->pair) {
    case PLD_GAUSSIAN: {
        double mu = 1.0 / s;
        return dpa_log_ndtr((-0.5 * mu * mu - epsilon) / mu);  /* L ~ N(-mu^2/2, mu^2) under Q */
    }
    case PLD_POISSON_REMOVE: {
        double excess = expm1(epsilon) + q;
        if (!(excess > 0.0)) return 0.0;
        double x = s * s * (log(excess) - log(q)) + 0.5;
        return dpa_log_ndtr(-x / s);
    }
    case PLD_POISSON_ADD: {
        double excess = expm1(-epsilon) + q;
        if (!(excess > 0.0)) return -INFINITY;
        double x = s * s * (log(excess) - log(q)) + 0.5;
        return fmin(0.0, dpa_log_add_exp(log1p(-q) + dpa_log_ndtr(x / s), log(q) + dpa_log_ndtr((x - 1.0) / s)));
    }
    case PLD_SAMPLED_REMOVE:
    case PLD_SAMPLED_ADD:
    case PLD_WITHOUT_REPLACEMENT: return composite_log_q(p, epsilon);
    case PLD_TRUNCATED_REMOVE:
    case PLD_TRUNCATED_ADD: return truncated_mix(p, epsilon, MIX_Q_SURVIVAL, NULL);
    case PLD_MIXTURE_REMOVE:
    case PLD_MIXTURE_ADD: return pld_mixture_log_q_survival(p, epsilon);
    case PLD_ALLOCATION_REMOVE:
    case PLD_ALLOCATION_ADD: return pld_allocation_log_q_survival(p, epsilon);
    default: return pld_mech_log_q_survival(p, epsilon);
    }
}

/* log(1 - q + q e^w) without overflow. */
static double log_mixture_ratio(double q, double w)
{
    return dpa_log_add_exp(log1p(-q), log(q) + w);
}

void pld_profile_loss_range(const pld_profile *p, double *lo, double *hi)
{
    pld_profile_loss_range_z(p, 14.0, lo, hi);  /* Phibar(14) ~ 1e-44 */
}

void pld_profile_loss_range_z(const pld_profile *p, double z, double *lo, double *hi)
{
    double s = p->sigma, q = p->q;
    switch (p->pair) {
    case PLD_GAUSSIAN: {
        double mu = 1.0 / s;
        *lo = 0.5 * mu * mu - z * mu;
        *hi = 0.5 * mu * mu + z * mu;
        return;
    }
    case PLD_POISSON_REMOVE:
        *lo = log1p(-q);                                   /* the smallest loss */
        *hi = log_mixture_ratio(q, (2.0 * (1.0 + z * s) - 1.0) / (2.0 * s * s));
        return;
    case PLD_POISSON_ADD:
        *lo = -log_mixture_ratio(q, (2.0 * z * s - 1.0) / (2.0 * s * s));
        *hi = -log1p(-q);                                  /* the largest loss */
        return;
    case PLD_SAMPLED_REMOVE:
    case PLD_SAMPLED_ADD: {
        pld_profile in = inner_of(p);
        double l0, l1;
        pld_profile_loss_range_z(&in, z, &l0, &l1);
        double a = log_mixture_ratio(p->q, l0), b = log_mixture_ratio(p->q, l1);
        /* Q's atom where P = 0 (an (eps, delta) pair) sits at loss log(1-q) */
        if (p->inner == PLD_EPSILON_DELTA && p->delta > 0.0) a = log1p(-p->q);
        if (p->pair == PLD_SAMPLED_REMOVE) { *lo = a; *hi = b; }
        else { *lo = -b; *hi = -a; }
        return;
    }
    case PLD_WITHOUT_REPLACEMENT: {
        /* the pair's losses above 0 are the remove pair's, below 0 the
         * add pair's; the union of both ranges holds them */
        pld_profile part[2];
        double l0, l1;
        wor_parts(p, part);
        pld_profile_loss_range_z(&part[0], z, lo, hi);
        pld_profile_loss_range_z(&part[1], z, &l0, &l1);
        *lo = fmin(*lo, l0);
        *hi = fmax(*hi, l1);
        return;
    }
    case PLD_TRUNCATED_REMOVE:
    case PLD_TRUNCATED_ADD: {
        pld_profile part[2];
        double log_w[2], l0, l1;
        truncated_parts(p, part, log_w);
        *lo = INFINITY;
        *hi = -INFINITY;
        for (int i = 0; i < 2; i++) {
            if (log_w[i] == -INFINITY) continue;
            pld_profile_loss_range_z(&part[i], z, &l0, &l1);
            *lo = fmin(*lo, l0);
            *hi = fmax(*hi, l1);
        }
        return;
    }
    case PLD_MIXTURE_REMOVE:
    case PLD_MIXTURE_ADD: pld_mixture_loss_range(p, z, lo, hi); return;
    case PLD_ALLOCATION_REMOVE:
    case PLD_ALLOCATION_ADD: pld_allocation_loss_range(p, lo, hi); return;   /* the nested grids' */
    default: pld_mech_loss_range(p, z, lo, hi); return;
    }
}

/* The relative error bound of a Poisson pair's delta from its log and the
 * log ratio of its two terms (remove_log_delta, add_log_delta). */
static double poisson_relerr(const pld_profile *p, double epsilon, double ld, double log_ratio)
{
    if (!isfinite(ld)) return 1e-13;          /* delta = 0 exactly: nothing to pad */
    /* the logs carry a few ulps of their magnitude, amplified by 1/(1 - r) */
    double amplification = log_ratio == -INFINITY ? 1.0 : 1.0 / -expm1(log_ratio);
    return 1e-13 + 16.0 * DBL_EPSILON * (1.0 + fabs(ld) + fabs(epsilon) * p->sigma * p->sigma) * amplification;
}

double pld_profile_delta_relerr(const pld_profile *p, double epsilon)
{
    if (!isfinite(epsilon)) return 1e-13;    /* delta is exactly 1 (eps = -inf), or the mass at +inf */
    if (p->pair == PLD_GAUSSIAN) {
        double relerr;
        dpa_gaussian_pair_log_delta_relerr(1.0 / p->sigma, epsilon, &relerr);
        return relerr;
    }
    if (p->pair == PLD_SAMPLED_REMOVE || p->pair == PLD_SAMPLED_ADD || p->pair == PLD_WITHOUT_REPLACEMENT)
        return composite_delta_relerr(p, epsilon);
    if (p->pair == PLD_TRUNCATED_REMOVE || p->pair == PLD_TRUNCATED_ADD) {
        double relerr;
        truncated_mix(p, epsilon, MIX_DELTA, &relerr);
        return relerr;
    }
    if (p->pair == PLD_MIXTURE_REMOVE || p->pair == PLD_MIXTURE_ADD) {
        double relerr;
        pld_mixture_log_delta_relerr(p, epsilon, &relerr);
        return relerr;
    }
    if (p->pair == PLD_ALLOCATION_REMOVE || p->pair == PLD_ALLOCATION_ADD) {
        double relerr;
        pld_allocation_log_delta_relerr(p, epsilon, &relerr);
        return relerr;
    }
    if (p->pair != PLD_POISSON_REMOVE && p->pair != PLD_POISSON_ADD)
        return pld_mech_delta_relerr(p, epsilon);
    double log_ratio;
    double ld = p->pair == PLD_POISSON_REMOVE ? remove_log_delta(p, epsilon, &log_ratio)
                                              : add_log_delta(p, epsilon, &log_ratio);
    return poisson_relerr(p, epsilon, ld, log_ratio);
}

double pld_profile_log_delta_relerr(double epsilon, const pld_profile *p, double *relerr)
{
    pld_profile copy = *p;
    /* the Poisson pairs' bound needs the ratio of delta's two terms, which
     * their log delta computes anyway: one evaluation instead of two (the
     * profile at the nodes dominated heterogeneous compositions) */
    if (p->pair == PLD_SHUFFLE_CLONES) return pld_mech_clones_log_delta(p, epsilon, relerr);
    if (isfinite(epsilon) && (p->pair == PLD_TRUNCATED_REMOVE || p->pair == PLD_TRUNCATED_ADD))
        return truncated_mix(p, epsilon, MIX_DELTA, relerr);
    if (p->pair == PLD_MIXTURE_REMOVE || p->pair == PLD_MIXTURE_ADD) return pld_mixture_log_delta_relerr(p, epsilon, relerr);
    if (p->pair == PLD_ALLOCATION_REMOVE || p->pair == PLD_ALLOCATION_ADD)
        return pld_allocation_log_delta_relerr(p, epsilon, relerr);
    if (isfinite(epsilon) &&
        (p->pair == PLD_POISSON_REMOVE || (p->pair == PLD_POISSON_ADD && !(epsilon < -700.0)))) {
        double log_ratio;
        double ld = p->pair == PLD_POISSON_REMOVE ? remove_log_delta(p, epsilon, &log_ratio)
                                                  : add_log_delta(p, epsilon, &log_ratio);
        *relerr = poisson_relerr(p, epsilon, ld, log_ratio);
        return ld;
    }
    *relerr = pld_profile_delta_relerr(p, epsilon);
    return pld_profile_log_delta(epsilon, &copy);
}

int pld_profile_has_excess(const pld_profile *p)
{
    return p->pair == PLD_GAUSSIAN || p->pair == PLD_POISSON_ADD || p->pair == PLD_POISSON_REMOVE ||
           p->pair == PLD_TRUNCATED_REMOVE || p->pair == PLD_TRUNCATED_ADD || p->pair == PLD_MIXTURE_REMOVE ||
           p->pair == PLD_MIXTURE_ADD;
}

double pld_profile_log_excess_relerr(double epsilon, const pld_profile *p, double *relerr)
{
    /* delta(eps) - (1 - e^eps) = e^eps delta_rev(-eps) for eps < 0, delta_rev
     * the profile of the reversed pair ((3) above): the remove and add
     * worlds of a Poisson-sampled Gaussian reverse each other, the Gaussian
     * is symmetric.  exp(eps + ld) adds a rounding of |eps + ld| ulps. */
    *relerr = NAN;
    if (!(epsilon < 0.0) || !isfinite(epsilon)) return NAN;
    double log_ratio, ld;
    switch (p->pair) {
    case PLD_MIXTURE_REMOVE:
    case PLD_MIXTURE_ADD: return pld_mixture_log_excess_relerr(p, epsilon, relerr);
    case PLD_GAUSSIAN:
        ld = dpa_gdp_log_delta(1.0 / p->sigma, -epsilon);
        *relerr = pld_profile_delta_relerr(p, -epsilon);
        break;
    case PLD_POISSON_ADD:
        ld = remove_log_delta(p, -epsilon, &log_ratio);
        *relerr = poisson_relerr(p, -epsilon, ld, log_ratio);
        break;
    case PLD_POISSON_REMOVE:
        ld = add_log_delta(p, -epsilon, &log_ratio);
        *relerr = poisson_relerr(p, -epsilon, ld, log_ratio);
        break;
    case PLD_TRUNCATED_REMOVE:
    case PLD_TRUNCATED_ADD: return truncated_mix(p, epsilon, MIX_EXCESS, relerr);   /* the parts' own, weighted */
    default:
        return NAN;
    }
    if (isnan(ld)) return NAN;
    if (ld == -INFINITY) return -INFINITY;    /* no excess: delta is the line itself */
    *relerr += 4.0 * DBL_EPSILON * (1.0 + fabs(epsilon + ld));
    return epsilon + ld;
}

int pld_profile_equal(const pld_profile *a, const pld_profile *b)
{
    return a->pair == b->pair && a->sigma == b->sigma && a->q == b->q && a->inner == b->inner &&
           a->eps == b->eps && a->delta == b->delta && a->k == b->k && a->log_norm == b->log_norm &&
           a->randomizer == b->randomizer && a->log_full == b->log_full && a->log_trunc == b->log_trunc &&
           a->weight_relerr == b->weight_relerr && a->q2 == b->q2 && a->mix_n == b->mix_n &&
           (a->mix == b->mix || a->mix_n == 0 || !memcmp(a->mix, b->mix, 2 * a->mix_n * sizeof *a->mix)) &&
           a->nested == b->nested;
}

double pld_profile_atom_spacing(const pld_profile *p)
{
    switch (p->pair) {
    case PLD_GAUSSIAN:
    case PLD_POISSON_REMOVE:
    case PLD_POISSON_ADD:
    case PLD_REPLACE_GAUSSIAN:
    case PLD_TRUNCATED_REMOVE:
    case PLD_TRUNCATED_ADD: return 0.0;
    case PLD_MIXTURE_REMOVE:
    case PLD_MIXTURE_ADD:
    case PLD_ALLOCATION_REMOVE:
    case PLD_ALLOCATION_ADD: return 0.0;
    case PLD_LAPLACE: return 1.0 / p->sigma;                  /* +-1/b */
    case PLD_RANDOMIZED_RESPONSE:
    case PLD_TRUNCATED_LAPLACE:                               /* +-eps and a continuous part */
    case PLD_EPSILON_DELTA: return p->eps;                    /* +-eps (and 0) */
    case PLD_DISCRETE_LAPLACE: return 1.0 / p->sigma;         /* (2x - k)/t */
    case PLD_DISCRETE_GAUSSIAN: return (double)p->k / (2.0 * p->sigma * p->sigma); /* k(2x - k)/(2 s^2) */
    case PLD_SHUFFLE_CLONES: return p->k == 1 ? p->eps : NAN; /* one user: randomized response's +-eps0;
                                                                 * else log ratios of binomial mixtures */
    case PLD_SAMPLED_REMOVE:
    case PLD_SAMPLED_ADD:
    case PLD_WITHOUT_REPLACEMENT: {
        /* log(1 - q + q e^{a j}) is on no lattice; without atoms inside
         * there are none outside (the kink of the max is at loss 0) */
        pld_profile in = inner_of(p);
        return pld_profile_atom_spacing(&in) == 0.0 ? 0.0 : NAN;
    }
    default: return NAN;
    }
}

pld_profile pld_profile_discrete_gaussian(double sigma, uint64_t sensitivity)
{
    pld_profile p = { .pair = PLD_DISCRETE_GAUSSIAN, .sigma = sigma, .q = 1.0 };
    p.k = sensitivity;
    p.log_norm = pld_discrete_gaussian_log_norm(sigma);
    return p;
}

static int positive_finite(double x) { return x > 0.0 && isfinite(x); }

/* Limits of the exact discrete sums: losses (2x - k)/t are compared in
 * double (exact numerators below 2^52), and the discrete Gaussian's tail
 * sums take about k/2 + 15 sigma terms per evaluation. */
#define DLAP_MAX_SENSITIVITY 4503599627370496.0 /* 2^52 */
#define DG_MAX_SIGMA 1e5
#define DG_MAX_SENSITIVITY 1e6

/* The pair of a leaf other than the Gaussian family, for use on its own or
 * inside Poisson sampling.  NO_PAIR (err untouched) for kinds that have
 * none; DPA_EINVAL or DPA_EUNSUPPORTED (err set) for parameters out of the
 * domain or out of reach. */
#define NO_PAIR 1
static int leaf_pair(const dpa_event *e, pld_profile *out, dpa_error *err)
{
    double p0 = dpa_event_param(e, 0), p1 = dpa_event_param(e, 1);
    uint64_t c0 = dpa_event_count(e, 0);
    pld_profile p = { .pair = PLD_LAPLACE, .sigma = 0.0, .q = 1.0 };
    switch (dpa_event_get_kind(e)) {
    case DPA_EVENT_LAPLACE:
        if (!positive_finite(p0))
            return dpa_fail(err, DPA_EINVAL, "pld: laplace noise multiplier must be positive and finite, got %g", p0);
        p.sigma = p0;
        break;
    case DPA_EVENT_RANDOMIZED_RESPONSE:
        if (!positive_finite(p0))
            return dpa_fail(err, DPA_EINVAL, "pld: randomized_response epsilon must be positive and finite, got %g", p0);
        if (c0 < 2 || c0 > UINT32_MAX)
            return dpa_fail(err, DPA_EINVAL, "pld: randomized_response k must lie in [2, 2^32), got %llu",
                            (unsigned long long)c0);
        p.pair = PLD_RANDOMIZED_RESPONSE;
        p.eps = p0;
        p.k = c0;
        break;
    case DPA_EVENT_DISCRETE_LAPLACE:
        if (!positive_finite(p0))
            return dpa_fail(err, DPA_EINVAL, "pld: discrete_laplace scale must be positive and finite, got %g", p0);
        if (c0 < 1)
            return dpa_fail(err, DPA_EINVAL, "pld: discrete_laplace sensitivity must be a positive integer");
        if ((double)c0 > DLAP_MAX_SENSITIVITY)
            return dpa_fail(err, DPA_EUNSUPPORTED, "pld: discrete_laplace sensitivity above 2^52 is not supported; use rdp");
        p.pair = PLD_DISCRETE_LAPLACE;
        p.sigma = p0;
        p.k = c0;
        break;
    case DPA_EVENT_DISCRETE_GAUSSIAN:
        if (!positive_finite(p0))
            return dpa_fail(err, DPA_EINVAL, "pld: discrete_gaussian sigma must be positive and finite, got %g", p0);
        if (c0 < 1)
            return dpa_fail(err, DPA_EINVAL, "pld: discrete_gaussian sensitivity must be a positive integer");
        if (p0 > DG_MAX_SIGMA || (double)c0 > DG_MAX_SENSITIVITY)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "pld: discrete_gaussian with sigma above 1e5 or sensitivity above 1e6 is not "
                            "supported (its exact tail sums would be too long); use rdp");
        p = pld_profile_discrete_gaussian(p0, c0);
        break;
    case DPA_EVENT_PERMUTE_AND_FLIP:   /* eps-DP: the pair of pure eps-DP (McKenna & Sheldon 2020, Thm 1) */
        if (!positive_finite(p0))
            return dpa_fail(err, DPA_EINVAL, "pld: permute_and_flip epsilon must be positive and finite, got %g", p0);
        p.pair = PLD_EPSILON_DELTA;
        p.eps = p0;
        p.delta = 0.0;
        break;
    case DPA_EVENT_EPSILON_DELTA:
        if (!(p0 >= 0.0 && isfinite(p0)))
            return dpa_fail(err, DPA_EINVAL, "pld: epsilon_delta epsilon must be finite and >= 0, got %g", p0);
        if (!(p1 >= 0.0 && p1 < 1.0))
            return dpa_fail(err, DPA_EINVAL, "pld: epsilon_delta delta must lie in [0, 1), got %g", p1);
        p.pair = PLD_EPSILON_DELTA;
        p.eps = p0;
        p.delta = p1;
        break;
    case DPA_EVENT_TRUNCATED_LAPLACE: {
        /* checked by the event's constructor: eps > 0, delta in (0, 1/2] */
        double bound;
        int st = dpa_truncated_laplace_bound(1.0, p0, p1, &bound, err);
        if (st) return st;
        p.pair = PLD_TRUNCATED_LAPLACE;
        p.eps = p0;
        p.delta = p1;
        p.sigma = bound;
        break;
    }
    case DPA_EVENT_SHUFFLED:
        /* checked by the event's constructor: eps0 > 0, n >= 1, the class */
        if (p1 > 0.0)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "pld: shuffled (eps0, delta0) randomizers with delta0 > 0 are bounded by a pair plus "
                            "a total-variation term, not by a pair alone; use the shuffle accountant (one round)");
        if ((double)c0 > CLONES_MAX_USERS)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "pld: more than 1e9 shuffled users (%llu) is not supported", (unsigned long long)c0);
        /* the clones pair's node values hold e^eps0: past the doubles'
         * range they overflowed into a bracket [0, 0] (eps0 = 800, one
         * user, where eps is 800) */
        if (!(p0 <= 700.0))
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "pld: shuffled randomizers with eps0 = %g > 700 are not supported (e^eps0 is beyond the "
                            "doubles); the shuffle accountant answers one round",
                            p0);
        p.pair = PLD_SHUFFLE_CLONES;
        p.eps = p0;
        p.k = c0;
        p.randomizer = (int)dpa_event_count(e, 1);
        break;
    default:
        return NO_PAIR;
    }
    *out = p;
    return DPA_OK;
}

/* Why a kind has no pair here, and where to go instead. */
static int unsupported(const dpa_event *e, dpa_error *err)
{
    dpa_event_kind kind = dpa_event_get_kind(e);
    const char *name = dpa_event_kind_name(kind);
    switch (kind) {
    case DPA_EVENT_ZCDP:
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "pld: zcdp events have no privacy loss distribution (a zCDP bound is not a pair of "
                        "distributions); use the zcdp or rdp accountant");
    case DPA_EVENT_GSM_FROBENIUS:
    case DPA_EVENT_GSM_SPECTRAL:
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "pld: the Gaussian Sampling Mechanism's worst case is known as an RDP curve, not as a pair "
                        "of distributions; use rdp");
    case DPA_EVENT_EXPONENTIAL:
    case DPA_EVENT_REPEATED_SELECTED:
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "pld: %s events have no known privacy loss distribution here; use rdp, which supports them",
                        name);
    case DPA_EVENT_SAMPLED_WITH_REPLACEMENT:
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "pld: sampling with replacement has no known dominating pair; it is not supported by "
                        "pld (nor by rdp)");
    default:
        return dpa_fail(err, DPA_EUNSUPPORTED, "pld: %s events are not supported", name);
    }
}

/* Sampling of a leaf: Poisson at rate q (sampled = 1), or m out of n
 * without replacement, q = m/n (sampled = 2); q = 1 and sampled = 0 for a
 * bare leaf. */
static int sampling_of(const dpa_event *leaf, int *sampled, double *q, dpa_error *err)
{
    *sampled = 0;
    *q = 1.0;
    switch (dpa_event_get_kind(leaf)) {
    case DPA_EVENT_POISSON_SAMPLED:
        *sampled = 1;
        *q = dpa_event_param(leaf, 0);
        if (!(*q > 0.0 && *q <= 1.0))
            return dpa_fail(err, DPA_EINVAL, "pld: poisson sampling rate q must lie in (0, 1], got %g", *q);
        return DPA_OK;
    case DPA_EVENT_SAMPLED_WITHOUT_REPLACEMENT: {
        uint64_t n = dpa_event_count(leaf, 0), m = dpa_event_count(leaf, 1);
        if (!(m >= 1 && m <= n))
            return dpa_fail(err, DPA_EINVAL, "pld: sampling without replacement needs 1 <= m <= n, got m = %llu, n = %llu",
                            (unsigned long long)m, (unsigned long long)n);
        *sampled = 2;
        *q = (double)m / (double)n;
        return DPA_OK;
    }
    default: return DPA_OK;
    }
}

/* The pairs of a Poisson-sampled Gaussian under add/remove (the Gaussian's
 * at q = 1). */
static void poisson_gaussian_pairs(double sigma, double q, pld_profile pairs[2])
{
    if (q == 1.0) {
        pairs[0] = pairs[1] = (pld_profile){ .pair = PLD_GAUSSIAN, .sigma = sigma, .q = 1.0 };
        return;
    }
    pairs[0] = (pld_profile){ .pair = PLD_POISSON_REMOVE, .sigma = sigma, .q = q };
    pairs[1] = (pld_profile){ .pair = PLD_POISSON_ADD, .sigma = sigma, .q = q };
}

/* The noise multiplier of the Gaussian inside a sampling event `leaf`
 * (anything dpa_event_inverse_variance makes one Gaussian of); otherwise
 * DPA_EUNSUPPORTED naming the inner kind, after `prefix` (e.g.
 * "truncated_poisson of") and followed by `why`. */
static int inner_gaussian_sigma(const dpa_event *leaf, const char *prefix, const char *why, double *sigma,
                                dpa_error *err)
{
    double inv_var;
    const dpa_event *bad = NULL;
    int st = dpa_event_inverse_variance(dpa_event_child(leaf, 0), &inv_var, &bad);
    if (st == DPA_EUNSUPPORTED)
        return dpa_fail(err, st, "pld: %s %s events is not supported%s", prefix,
                        dpa_event_kind_name(dpa_event_get_kind(bad)), why);
    if (st) return dpa_fail(err, st, "pld: invalid event");
    if (!(inv_var > 0.0) || !isfinite(inv_var))
        return dpa_fail(err, DPA_EINVAL, "pld: Gaussian noise with 1/sigma^2 = %g has no finite bound", inv_var);
    *sigma = 1.0 / sqrt(inv_var);
    return DPA_OK;
}

/* Truncated Poisson sampling of a Gaussian (lib/truncated_poisson.c): the
 * PLD_TRUNCATED_* pairs; the Poisson pairs themselves where it never
 * truncates (max_batch = n). */
static int truncated_pairs(const dpa_event *leaf, dpa_relation relation, pld_profile pairs[2], dpa_error *err)
{
    if (relation != DPA_ADD_REMOVE)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "pld: truncated_poisson is analysed for add/remove neighbours (n counts the records of the "
                        "larger dataset); use the add/remove relation");
    double sigma, q = dpa_event_param(leaf, 0);
    int st = inner_gaussian_sigma(leaf, "truncated_poisson of",
                                  ": its analysis (a kept record displaces another, moving the sum by up to twice "
                                  "the sensitivity) is for Gaussian noise only",
                                  &sigma, err);
    if (st) return st;
    dpa_truncated_mixture m;
    st = dpa_truncated_poisson_mixture(q, dpa_event_count(leaf, 0), dpa_event_count(leaf, 1), &m, err);
    if (st) return st;
    if (m.log_trunc == -INFINITY) {
        poisson_gaussian_pairs(sigma, q, pairs);
        return DPA_OK;
    }
    pairs[0] = (pld_profile){ .pair = PLD_TRUNCATED_REMOVE, .sigma = sigma, .q = q, .log_full = m.log_full,
                              .log_trunc = m.log_trunc, .weight_relerr = m.weight_relerr, .q2 = m.q2 };
    pairs[1] = pairs[0];
    pairs[1].pair = PLD_TRUNCATED_ADD;
    return DPA_OK;
}

/* One epoch of random allocation of `selected` = K of T steps: the pair of
 * one of m = floor(T/K) steps (pld_allocation.c), which the accountant
 * composes K times (visit_leaf; the reduction is argued in
 * accountants/rdp/rdp.c); m = 1 is the Gaussian itself. */
static int allocation_pairs(const dpa_event *leaf, dpa_relation relation, pld_profile pairs[2], dpa_error *err)
{
    if (relation != DPA_ADD_REMOVE)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "pld: random_allocation is analysed for add/remove neighbours; use the add/remove relation");
    double sigma;
    int st = inner_gaussian_sigma(leaf, "random_allocation of", " (the decomposition is computed for Gaussian noise)",
                                  &sigma, err);
    if (st) return st;
    const uint64_t steps = dpa_event_count(leaf, 0), selected = dpa_event_count(leaf, 1);
    const uint64_t m = selected ? steps / selected : 0;
    if (m < 1) return dpa_fail(err, DPA_EINVAL, "pld: random_allocation with selected = %llu of %llu steps",
                               (unsigned long long)selected, (unsigned long long)steps);
    if (m == 1) {
        poisson_gaussian_pairs(sigma, 1.0, pairs);
        return DPA_OK;
    }
    if (m > ALLOCATION_MAX_STEPS)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "pld: random_allocation over %llu steps an epoch is beyond the %g this accountant composes "
                        "(the epoch is composed step by step); use rdp",
                        (unsigned long long)m, (double)ALLOCATION_MAX_STEPS);
    pairs[0] = (pld_profile){ .pair = PLD_ALLOCATION_REMOVE, .sigma = sigma, .q = 1.0 / (double)m, .k = m };
    pairs[1] = pairs[0];
    pairs[1].pair = PLD_ALLOCATION_ADD;
    return DPA_OK;
}

/* Whether the mixture's sensitivities take one value (*c1 = it) or two,
 * 0 and *c1 (*q = the weight of *c1, normalised): then it is the
 * Gaussian, or the Poisson-sampled Gaussian, with noise multiplier s/c1.
 * 0 when they take more values. */
static int mixture_reduces(const dpa_event *e, double *c1, double *q)
{
    size_t n = e->list_len;
    const double *c = e->list, *p = e->list + n;
    dpa_sum at_c1 = { 0 }, all = { 0 };
    *c1 = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (c[i] != 0.0 && *c1 != 0.0 && c[i] != *c1) return 0;
        if (c[i] != 0.0) { *c1 = c[i]; dpa_sum_add(&at_c1, p[i]); }
        dpa_sum_add(&all, p[i]);
    }
    *q = dpa_sum_value(&at_c1) / dpa_sum_value(&all);
    return 1;
}

/* The pairs of a mixture of Gaussians (add/remove only; not sampled):
 * sensitivities all 0 are no privacy loss (the (0, 0) pair), {0, c} the
 * Poisson-sampled Gaussian, exactly (the same specialised forms), anything
 * else the mixture pairs, which borrow the event's list.  (One sensitivity
 * c > 0 is the Gaussian, found before: dpa_event_inverse_variance.) */
static int mixture_pairs(const dpa_event *e, dpa_relation relation, int sampled, pld_profile pairs[2],
                         dpa_error *err)
{
    if (sampled)
        return dpa_fail(err, DPA_EUNSUPPORTED, "pld: sampling of mixture_of_gaussians events is not supported "
                                               "(write the sampling into the mixture: a component of sensitivity 0)");
    if (relation != DPA_ADD_REMOVE)
        return dpa_fail(err, DPA_EUNSUPPORTED, "pld: mixture_of_gaussians is a pair for add/remove neighbours (the "
                                               "record present or absent); it has no replace-one pair here");
    double s = dpa_event_param(e, 0), c1, q;
    if (!positive_finite(s) || e->list_len == 0)
        return dpa_fail(err, DPA_EINVAL, "pld: mixture_of_gaussians needs sigma > 0 and one component or more");
    if (mixture_reduces(e, &c1, &q)) {
        double sigma = s / c1;
        if (c1 == 0.0 || q == 0.0) {
            pairs[0] = pairs[1] = (pld_profile){ .pair = PLD_EPSILON_DELTA, .q = 1.0 };  /* P = Q */
        } else if (!(sigma > 0.0 && isfinite(sigma))) {
            return dpa_fail(err, DPA_EUNSUPPORTED, "pld: mixture_of_gaussians with sigma / sensitivity = %g is "
                                                   "beyond the doubles", sigma);
        } else {   /* (one sensitivity c > 0 is a Gaussian: dpa_event_inverse_variance) */
            pairs[0] = (pld_profile){ .pair = PLD_POISSON_REMOVE, .sigma = sigma, .q = q };
            pairs[1] = (pld_profile){ .pair = PLD_POISSON_ADD, .sigma = sigma, .q = q };
        }
        return DPA_OK;
    }
    dpa_sum all = { 0 };
    double c_max = 0.0;
    for (size_t i = 0; i < e->list_len; i++) {
        dpa_sum_add(&all, e->list[e->list_len + i]);
        c_max = fmax(c_max, e->list[i]);
    }
    /* the losses (c/s) (u - c/(2s)) must stay far inside the doubles */
    if (!(c_max / s <= 1e100))
        return dpa_fail(err, DPA_EUNSUPPORTED, "pld: mixture_of_gaussians with sensitivity / sigma = %g above 1e100 "
                                               "is not supported", c_max / s);
    pairs[0] = (pld_profile){ .pair = PLD_MIXTURE_REMOVE, .sigma = s, .q = dpa_sum_value(&all), .mix = e->list,
                              .mix_n = e->list_len };
    pairs[1] = pairs[0];
    pairs[1].pair = PLD_MIXTURE_ADD;
    return DPA_OK;
}

int pld_profile_of_event(const dpa_event *leaf, dpa_relation relation, pld_profile pairs[2],
                         dpa_error *err)
{
    if (!leaf || !pairs) return dpa_fail(err, DPA_EINVAL, "pld: event or output is NULL");
    if (relation != DPA_ADD_REMOVE && relation != DPA_REPLACE_ONE)
        return dpa_fail(err, DPA_EINVAL, "pld: unknown neighbouring relation %d", (int)relation);
    if (dpa_event_get_kind(leaf) == DPA_EVENT_TRUNCATED_POISSON) return truncated_pairs(leaf, relation, pairs, err);
    if (dpa_event_get_kind(leaf) == DPA_EVENT_RANDOM_ALLOCATION) return allocation_pairs(leaf, relation, pairs, err);
    int sampled;
    double q;
    int st = sampling_of(leaf, &sampled, &q, err);
    if (st) return st;
    const int wor = sampled == 2;
    if (wor && relation != DPA_REPLACE_ONE)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "pld: sampling without replacement (a fixed batch size) is accounted for replace-one "
                        "neighbours only (the datasets have the same size); use the replace-one relation");
    const dpa_event *inner = sampled ? dpa_event_child(leaf, 0) : leaf;

    /* The Gaussian family (Gaussian, GDP, and compositions of them, which
     * are one Gaussian): the specialised forms. */
    double inv_var;
    const dpa_event *bad = NULL;
    st = dpa_event_inverse_variance(inner, &inv_var, &bad);
    if (st == DPA_OK) {
        if (!(inv_var > 0.0) || !isfinite(inv_var))
            return dpa_fail(err, DPA_EINVAL,
                            "pld: Gaussian noise with 1/sigma^2 = %g (a noise multiplier this small has no finite "
                            "bound; the gaussian and rdp accountants report eps = inf)", inv_var);
        double sigma = 1.0 / sqrt(inv_var);
        if (q == 1.0 || (!wor && relation == DPA_ADD_REMOVE)) {
            poisson_gaussian_pairs(sigma, q, pairs);
        } else if (wor) {
            pairs[0] = pairs[1] = (pld_profile){ .pair = PLD_WITHOUT_REPLACEMENT, .sigma = sigma, .q = q,
                                                 .inner = PLD_GAUSSIAN };
        } else {
            /* Under replace-one the noise multiplier is sigma / Delta with
             * Delta = ||x - x'|| the replace-one sensitivity; the records
             * themselves have norm <= Delta/2, and Lebeda et al.'s pair
             * shifts by +-Delta/2: in units of Delta/2 it is the pair
             * above with s = 2 sigma (at q = 1, N(1, 4 sigma^2) against
             * N(-1, 4 sigma^2) is the Gaussian with multiplier sigma). */
            pairs[0] = pairs[1] = (pld_profile){ .pair = PLD_REPLACE_GAUSSIAN, .sigma = 2.0 * sigma, .q = q };
        }
        return DPA_OK;
    }
    if (st != DPA_EUNSUPPORTED) return dpa_fail(err, st, "pld: invalid event");

    const char *sampling_name = wor ? "sampling without replacement" : "Poisson sampling";
    dpa_event_kind kind = dpa_event_get_kind(inner);
    if (kind == DPA_EVENT_MIXTURE_OF_GAUSSIANS) return mixture_pairs(inner, relation, sampled, pairs, err);
    if (kind == DPA_EVENT_COMPOSED || kind == DPA_EVENT_SELF_COMPOSED) {
        if (sampled)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "pld: %s of a composition that is not all Gaussian (here %s) has no "
                            "known privacy loss distribution",
                            sampling_name, dpa_event_kind_name(dpa_event_get_kind(bad)));
        return dpa_fail(err, DPA_EINVAL, "pld: pld_profile_of_event takes leaf events, not %s",
                        dpa_event_kind_name(kind));
    }
    pld_profile p;
    st = leaf_pair(inner, &p, err);
    if (st == NO_PAIR) {
        if (sampled)
            return dpa_fail(err, DPA_EUNSUPPORTED, "pld: %s of %s events has no known privacy loss distribution here",
                            sampling_name, dpa_event_kind_name(kind));
        return unsupported(inner, err);
    }
    if (st) return st;
    if (p.pair == PLD_TRUNCATED_LAPLACE && sampled)
        return dpa_fail(err, DPA_EUNSUPPORTED, "pld: %s of truncated Laplace events is not supported", sampling_name);
    if (p.pair == PLD_SHUFFLE_CLONES) {
        if (sampled)
            return dpa_fail(err, DPA_EUNSUPPORTED, "pld: %s of shuffled rounds is not supported", sampling_name);
        if (relation != DPA_REPLACE_ONE)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "pld: shuffled events: amplification by shuffling is stated for replace-one neighbours (n users, one's "
                            "data replaced); use the replace-one relation");
    }
    if (q == 1.0) {
        pairs[0] = pairs[1] = p;
        return DPA_OK;
    }
    p.inner = p.pair;
    p.q = q;
    if (wor) {
        p.pair = PLD_WITHOUT_REPLACEMENT;
        pairs[0] = pairs[1] = p;
        return DPA_OK;
    }
    if (relation != DPA_ADD_REMOVE)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "pld: Poisson sampling of %s events under replace-one is not supported (only of "
                        "Gaussians, by the pair of Lebeda et al. 2024); use add/remove neighbours, or sampling "
                        "without replacement",
                        dpa_event_kind_name(kind));
    pairs[0] = pairs[1] = p;
    pairs[0].pair = PLD_SAMPLED_REMOVE;
    pairs[1].pair = PLD_SAMPLED_ADD;
    return DPA_OK;
}
