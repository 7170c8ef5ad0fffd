/*
 * pld_mixture.c - the privacy profiles of the mixture of Gaussians
 * (Choquette-Choo, Ganesh, Steinke & Thakurta, "Privacy amplification for
 * matrix mechanisms", ICLR 2024): P = sum_i p_i N(c_i, s^2) against
 * Q = N(0, s^2) (the remove world, PLD_MIXTURE_REMOVE) and the reverse
 * (PLD_MIXTURE_ADD), every c_i >= 0.
 *
 * In units of s (u = x/s, m_i = c_i/s, w_i = p_i / sum_j p_j) the loss of
 * the remove world is
 *   L(u) = log sum_i w_i e^{l_i(u)},   l_i(u) = m_i u - m_i^2/2,
 * nondecreasing in u (strictly when some m_i > 0), from log w_0 (the mass
 * at m = 0; -inf without one) to +inf.  With u* the root of L(u) = eps,
 *   delta_R(eps) = sum_i w_i Phibar(u* - m_i) - e^eps Phibar(u*),
 * two terms that cancel.  Written per component, with e^eps = sum_i w_i
 * e^{l_i(u*)},
 *   delta_R(eps) = sum_i w_i [Phibar(u* - m_i) - e^{l_i(u*)} Phibar(u*)]
 *               = sum_i w_i delta_G(l_i(u*); m_i),                      (M)
 * delta_G(l; m) the profile of the Gaussian pair N(m, 1) against N(0, 1)
 * at l (its loss at u is l_i(u)): a sum of non-negative terms, each from
 * the Gaussian profile's accurate evaluation, no cancellation left.  And
 * at ANY u, (M) is exactly delta_R at eps' = L(u), so a root bracket
 * u_lo <= u* <= u_hi (L(u_lo) <= eps <= L(u_hi)) brackets delta_R(eps)
 * between (M) at u_hi and (M) at u_lo, delta_R being decreasing.
 *
 * The add world (P' = Q, Q' = the mixture) has loss -L(u) > eps iff
 * u < u*, u* the root of L(u) = -eps, and
 *   delta_A(eps) = Phi(u*) - e^eps sum_i w_i Phi(u* - m_i)
 *               = sum_i v_i(u*) delta_G(-l_i(u*); m_i),                  (A)
 * v_i(u) = w_i e^{l_i(u)} / e^{L(u)} (summing to 1), using
 * e^{-eps} = e^{L(u*)} and delta_G(-l; m) = Phi(u) - e^{-l} Phi(u - m) (the
 * Gaussian pair is symmetric); again exactly delta_A at eps' = -L(u) for
 * any u.  delta_A = 0 for eps >= -log w_0, the largest loss.
 *
 * The error bound (pld_profile_delta_relerr's meaning: a relative bound
 * on the value returned) adds
 *  - the bracket: (M) or (A) at the two ends of the root's bracket, the
 *    value returned their mean, half their spread relative to it;
 *  - the terms' own bounds (the Gaussian profile's relerr, the largest,
 *    as all terms are positive) and the sum's rounding;
 *  - the rounding of the losses: L(u) and each l_i carry a few ulps of the
 *    magnitudes of their terms (kappa), and m_i = c_i/s one ulp of m_i,
 *    which moves every loss by at most ulp m_i (|u| + m_i).  A loss off
 *    by at most kappa everywhere moves delta at eps by at most e^kappa
 *    delta(eps - kappa) - delta(eps) ~ kappa (1 + S) delta, S = e^eps
 *    Q(L > eps) / delta the sensitivity of log delta to eps (its
 *    derivative, pld_mechanisms.c (2)); twice that is taken.
 * Where these are large (a bracket that did not close, delta far below
 * its terms' rounding) the bound says so: it is never clipped.
 */
#include "pld_mixture.h"
#include "gaussian_profile.h"
#include "numerics.h"

#include <float.h>
#include <math.h>

#define ULP DBL_EPSILON

/* The mixture in units of s. */
typedef struct {
    const double *c, *p;
    size_t n;
    double s;
    double log_norm;   /* log sum_i p_i */
    double log_w0;     /* log of the weight at m = 0 (-inf: none) */
    double m_max;      /* the largest m_i */
    double lw_max;     /* log weight of a component with m_max */
} mixture;

static mixture mixture_of(const pld_profile *p)
{
    mixture m = { p->mix, p->mix + p->mix_n, p->mix_n, p->sigma, log(p->q), -INFINITY, 0.0, -INFINITY };
    dpa_sum w0 = { 0 };
    for (size_t i = 0; i < m.n; i++) {
        double mi = m.c[i] / m.s;
        if (m.c[i] == 0.0) dpa_sum_add(&w0, m.p[i]);
        if (mi > m.m_max || (mi == m.m_max && log(m.p[i]) - m.log_norm > m.lw_max)) {
            m.m_max = mi;
            m.lw_max = log(m.p[i]) - m.log_norm;
        }
    }
    double s0 = dpa_sum_value(&w0);
    if (s0 > 0.0) m.log_w0 = log(s0) - m.log_norm;
    return m;
}

static double log_w(const mixture *m, size_t i) { return log(m->p[i]) - m->log_norm; }
static double m_of(const mixture *m, size_t i) { return m->c[i] / m->s; }
static double l_of(double mi, double u) { return mi * (u - 0.5 * mi); }

/* L(u), two passes (the largest term first: no overflow). */
static double loss(const mixture *m, double u)
{
    double top = -INFINITY;
    for (size_t i = 0; i < m->n; i++) top = fmax(top, log_w(m, i) + l_of(m_of(m, i), u));
    if (!isfinite(top)) return top;
    double sum = 0.0;
    for (size_t i = 0; i < m->n; i++) sum += exp(log_w(m, i) + l_of(m_of(m, i), u) - top);
    return top + log(sum);
}

/* kappa at u: the rounding of L(u) and of each l_i, and of m_i = c_i/s. */
static double loss_rounding(const mixture *m, double u)
{
    double big = 0.0;
    for (size_t i = 0; i < m->n; i++) {
        double mi = m_of(m, i);
        big = fmax(big, fabs(log_w(m, i)) + mi * (fabs(u) + mi));
    }
    return 8.0 * ULP * (1.0 + (double)m->n + big);
}

typedef struct { const mixture *m; double target; } root_ctx;

static double loss_minus(double u, void *ctx)
{
    const root_ctx *r = ctx;
    return loss(r->m, u) - r->target;
}

/* A bracket [lo, hi] of the root of L(u) = target (log w0 < target <
 * +inf): L(lo) <= target <= L(hi) as computed.  Starts from where one
 * component alone puts it (L >= lw_max + l_max(u)) and walks out. */
static int root_bracket(const mixture *m, double target, double *lo, double *hi)
{
    root_ctx r = { m, target };
    double b = (target - m->lw_max) / m->m_max + 0.5 * m->m_max;
    double a = b - 1.0, step = 1.0;
    if (!isfinite(b)) return DPA_EACCURACY;
    for (int k = 0; k < 2100 && loss_minus(b, &r) < 0.0; k++) b += step, step *= 2.0;
    step = fmax(1.0, fabs(b - a));
    for (int k = 0; k < 2100 && loss_minus(a, &r) > 0.0; k++) a -= step, step *= 2.0;
    if (!(loss_minus(a, &r) <= 0.0 && loss_minus(b, &r) >= 0.0)) return DPA_EACCURACY;
    dpa_root root;
    if (dpa_find_root(loss_minus, &r, a, b, 0.0, 1e-15, 400, &root)) return DPA_EACCURACY;
    *lo = root.at_lo_side;
    *hi = root.at_hi_side;
    return DPA_OK;
}

/* (M) (add = 0) or (A) (add = 1) at u: log of the sum, and in *relerr the
 * largest of its terms' bounds plus the sum's rounding. */
static double per_component(const mixture *m, double u, int add, double *relerr)
{
    double top = -INFINITY, worst = 0.0, lu = add ? loss(m, u) : 0.0;
    double t[DPA_MAX_MIXTURE_COMPONENTS];
    for (size_t i = 0; i < m->n; i++) {
        double mi = m_of(m, i), li = l_of(mi, u), re;
        t[i] = -INFINITY;
        if (mi == 0.0) continue;   /* N(0) against N(0): nothing */
        double ld = dpa_gaussian_pair_log_delta_relerr(mi, add ? -li : li, &re);
        t[i] = log_w(m, i) + ld + (add ? li - lu : 0.0);
        if (t[i] > -INFINITY) worst = fmax(worst, re);
        top = fmax(top, t[i]);
    }
    *relerr = worst + 4.0 * ULP * (double)(m->n + 2) * (1.0 + fabs(lu));
    if (!isfinite(top)) return top;
    double sum = 0.0;
    for (size_t i = 0; i < m->n; i++) sum += exp(t[i] - top);
    return top + log(sum);
}

/* log Q(L > eps) given the root u of L(u) = +-eps: Phibar(u) in the
 * remove world, sum_i w_i Phi(u - m_i) in the add world. */
static double log_q_at(const mixture *m, double u, int add)
{
    double top = -INFINITY, t[DPA_MAX_MIXTURE_COMPONENTS];
    if (!add) return dpa_log_ndtr(-u);
    for (size_t i = 0; i < m->n; i++) {
        t[i] = log_w(m, i) + dpa_log_ndtr(u - m_of(m, i));
        top = fmax(top, t[i]);
    }
    if (!isfinite(top)) return top;
    double sum = 0.0;
    for (size_t i = 0; i < m->n; i++) sum += exp(t[i] - top);
    return fmin(0.0, top + log(sum));
}

/* The largest eps of the add world with delta > 0 (+inf without a
 * component at 0). */
static double add_max_loss(const mixture *m) { return -m->log_w0; }

/* log delta and its bound from the root's bracket (see the top). */
static double bracketed(const mixture *m, double eps, int add, double *relerr)
{
    double lo, hi, r_lo, r_hi;
    if (root_bracket(m, add ? -eps : eps, &lo, &hi)) {
        *relerr = 1.0;         /* delta in [0, 1] and no more is known: 1/2 +- 1/2 */
        return -M_LN2;
    }
    /* remove: the larger delta at lo (L(lo) <= eps); add: at hi */
    double big = per_component(m, add ? hi : lo, add, &r_hi);
    double small = per_component(m, add ? lo : hi, add, &r_lo);
    if (big == -INFINITY) {
        *relerr = 1e-13;
        return -INFINITY;
    }
    double mid = dpa_log_add_exp(big, small) - M_LN2;
    double spread = small == -INFINITY ? 1.0 : tanh(0.5 * (big - small));
    double u = add ? hi : lo;
    double sens = exp(eps + log_q_at(m, u, add) - mid);
    if (!isfinite(sens)) sens = DBL_MAX;
    double kappa = loss_rounding(m, lo) + loss_rounding(m, hi);
    /* the three factors compose: delta lies within mid (1 +- spread), each
     * end within its terms' bound, and the losses' rounding moves it by
     * 2 kappa (1 + S) at most */
    double r = fmax(r_lo, r_hi), k = 2.0 * kappa * (1.0 + sens);
    *relerr = 1e-13 + (1.0 + spread) * (1.0 + r) * (1.0 + k) - 1.0;
    return mid;
}

double pld_mixture_log_delta_relerr(const pld_profile *p, double eps, double *relerr)
{
    const int add = p->pair == PLD_MIXTURE_ADD;
    *relerr = 1e-13;
    if (isnan(eps)) return *relerr = NAN;
    if (eps == -INFINITY) return 0.0;
    if (eps == INFINITY) return -INFINITY;
    mixture m = mixture_of(p);
    if (!add && eps <= m.log_w0) return dpa_log1mexp(eps);  /* L > eps everywhere: 1 - e^eps (log w0 < 0) */
    if (add && eps >= add_max_loss(&m)) return -INFINITY;
    return bracketed(&m, eps, add, relerr);
}

double pld_mixture_log_q_survival(const pld_profile *p, double eps)
{
    const int add = p->pair == PLD_MIXTURE_ADD;
    if (isnan(eps)) return NAN;
    mixture m = mixture_of(p);
    if (eps == -INFINITY || (!add && eps < m.log_w0)) return 0.0;
    if (eps == INFINITY || (add && eps >= add_max_loss(&m))) return -INFINITY;
    double lo, hi;
    if (root_bracket(&m, add ? -eps : eps, &lo, &hi)) return 0.0;   /* the widest: used as an upper bound */
    /* the larger of the bracket's two ends (over-estimates only lower
     * the lower discretisation) */
    return log_q_at(&m, add ? hi : lo, add);
}

void pld_mixture_loss_range(const pld_profile *p, double z, double *lo, double *hi)
{
    mixture m = mixture_of(p);
    /* below u = -z and above u = m_max + z both P and Q hold at most
     * Phibar(z); the loss is monotone in u */
    double a = m.log_w0 > -INFINITY ? m.log_w0 : loss(&m, -z), b = loss(&m, m.m_max + z);
    if (p->pair == PLD_MIXTURE_REMOVE) { *lo = a; *hi = b; }
    else { *lo = -b; *hi = -a; }
}

double pld_mixture_log_excess_relerr(const pld_profile *p, double eps, double *relerr)
{
    /* delta(eps) - (1 - e^eps) = e^eps delta_rev(-eps) for eps < 0, the
     * reversed pair the other world (H_a(P||Q) = 1 - a + a H_{1/a}(Q||P)) */
    *relerr = NAN;
    if (!(eps < 0.0) || !isfinite(eps)) return NAN;
    pld_profile r = *p;
    r.pair = p->pair == PLD_MIXTURE_REMOVE ? PLD_MIXTURE_ADD : PLD_MIXTURE_REMOVE;
    double ld = pld_mixture_log_delta_relerr(&r, -eps, relerr);
    if (isnan(ld)) return NAN;
    if (ld == -INFINITY) return -INFINITY;
    *relerr += 4.0 * ULP * (1.0 + fabs(eps + ld));
    return eps + ld;
}

double pld_mixture_log_delta(const pld_profile *p, double eps)
{
    double ignored;
    return pld_mixture_log_delta_relerr(p, eps, &ignored);
}
