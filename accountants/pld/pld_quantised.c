/*
 * pld_quantised.c - the quantised lower bound (see pld_quantised.h and
 * docs/pld-design.md, "Issue 20, third step").
 *
 * Remove direction: P = (1-q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2).
 * Each step's output x is reduced to the cell of a partition
 *   B_0 = (-inf, t_0],  B_j = (t_{j-1}, t_j] (j = 1..J),  B_{J+1} = (t_J, inf):
 * post-processing, so the cell pair's delta is at most the mechanism's at
 * every eps, and so is its T-fold composition's.  For any sub-probability
 * masses A_j <= P(B_j) and B_j' >= Q(B_j) the pair (A, B') has a delta at
 * most that (delta = sum over sequences of [prod A - e^eps prod B']_+ only
 * grows with A and falls with B'), and with l_j = log(A_j / B_j') it is
 *   delta(eps) = sum over sequences of prod A * (1 - e^{eps - sum l})_+.
 * Group the sequences by the number k of steps outside the bulk B_0:
 *   delta(eps) = sum_k C(T,k) A_0^{T-k} E^{*k}-weighted (1 - e^{eps - T l_0 - S})_+,
 * E = sum_{j>=1} A_j [point mass at d_j = l_j - l_0].  Lowering every d_j to
 * the lattice h N (and T l_0 below), dropping every k above kmax, and
 * folding every lattice index >= N onto index mod N (a smaller loss) only
 * lower it further, since (1 - e^{eps - x})_+ grows with x.  What remains is
 * computed by one transform: the spectrum of D = E / |E| through the
 * polynomial sum_k W_k z^k, W_k = C(T,k) A_0^{T-k} |E|^k (Horner), with
 * the rounding bounded below.
 *
 * The bulk's own merged loss l_0 is exact (no lattice), so the lattice's
 * rounding is paid once per event (about T |E| of them), not once per
 * step as a lattice construction pays it: that is what makes long runs at
 * rates like q = 1e-6 tractable.
 */
#include "pld_quantised.h"
#include "dpacct.h"
#include "numerics.h"

#include <float.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

#define U (DBL_EPSILON / 2.0)
#define QUANTISED_MAX_FFT ((size_t)1 << 20)
#define QUANTISED_BINS ((size_t)1 << 17)   /* cells above the bulk, at most */
#define QUANTISED_MAX_EVENTS 100.0          /* T q above this: not tried (too many events) */

/* A computed log-tail's absolute error: dpa_log_ndtr is within 45 ulps of
 * its magnitude relative (tests/test_numerics.c asserts 1e-14, measures
 * 6e-16); this allows 128. */
static double log_err(double x)
{
    return 128.0 * U * (2.0 + fabs(x));
}

/* log P(X > t) and log Q(X > t) with bounds on their absolute errors. */
typedef struct {
    double lp, lq, ep, eq;
} tails;

static tails tails_at(double q, double s, double t)
{
    tails r = { -INFINITY, -INFINITY, 0.0, 0.0 };
    if (t == INFINITY) return r;
    double l0 = dpa_log_ndtr(-t / s), l1 = dpa_log_ndtr(-(t - 1.0) / s);
    double a = log1p(-q) + l0, b = log(q) + l1;
    r.lq = l0;
    r.eq = log_err(l0);
    r.lp = dpa_log_add_exp(a, b);
    /* the larger of the two terms' errors, and the sum's rounding */
    r.ep = fmax(log_err(l0) + log_err(a), log_err(l1) + log_err(b)) + log_err(r.lp);
    return r;
}

/* log of the mass between two edges (tails a at the lower, b at the
 * upper) and a bound on its error: f = la + log(1 - e^{lb - la}) moves by
 * at most (ea + eb) / (1 - e^{lb - la}) when la, lb move by ea, eb. */
static double cell_log_mass(double la, double ea, double lb, double eb, double *err)
{
    if (lb == -INFINITY) {
        *err = ea;
        return la;
    }
    double gap = lb - la;
    if (!(gap < 0.0)) {
        *err = INFINITY;
        return -INFINITY;
    }
    double f = la + dpa_log1mexp(gap);
    *err = (ea + eb) / -expm1(gap) + log_err(f);
    return f;
}

typedef struct {
    const double *w;   /* W_0..W_kmax */
    int kmax;
} horner_ctx;

static void horner(double c[2], void *vctx)
{
    const horner_ctx *h = vctx;
    double zr = c[0], zi = c[1], ar = h->w[h->kmax], ai = 0.0;
    for (int k = h->kmax - 1; k >= 0; k--) {
        double t = ar * zr - ai * zi + h->w[k];
        ai = ar * zi + ai * zr;
        ar = t;
    }
    c[0] = ar;
    c[1] = ai;
}

/* The composed lattice measure and what delta needs of it. */
typedef struct {
    size_t n;
    double h, c;        /* loss of index t: c + t h (c <= T l_0) */
    double *s0, *s1;    /* suffix sums: s0[t] = sum_{u >= t} m_u, s1[t] = sum_{u >= t} m_u e^{-u h} */
    double shrink;      /* divide the sums by this (the relative rounding of W and D) */
    double l2_err;      /* bound on the l2 norm of the masses' error */
    double sum_err;     /* bound on each suffix sum's rounding beyond 2u of its value */
} composed;

/* A lower bound on delta(eps) from the composed measure: the terms of
 * indices t0 <= t < t1 whose losses exceed eps (t0 may be one off either
 * way: a term at a loss <= eps is <= 0, one left out is >= 0), the others
 * dropped (each is >= 0 exactly).  The transform's error enters through
 * Cauchy-Schwarz, ||e||_2 sqrt(t1 - t0) (the weights lie in [0, 1]), so a
 * window much shorter than the lattice keeps it small where the masses
 * that matter lie: windows of 2^10, 2^11, ... points, the best taken. */
static double composed_delta(const composed *m, double eps)
{
    double x = (eps - m->c) / m->h;
    if (!(x < (double)m->n)) return 0.0;
    size_t t0 = x >= 0.0 ? (size_t)x + 1 : 0;
    if (t0 >= m->n) return 0.0;
    double e = exp(eps - m->c), best = -INFINITY;
    for (size_t span = 1024;; span *= 2) {
        size_t t1 = m->n - t0 > span ? t0 + span : m->n;
        double a0 = m->s0[t0], b0 = m->s0[t1], a1 = m->s1[t0], b1 = m->s1[t1];
        double v = (a0 - b0) - e * (a1 - b1);
        /* the s1 sums' errors are relative to terms m_u e^{-u h}, u >= t0,
         * which e raises by at most e^{eps - c - t0 h} <= e^h */
        double err = m->l2_err * sqrt((double)(t1 - t0)) + 4.0 * m->sum_err * (1.0 + exp(eps - m->c - (double)t0 * m->h)) +
                     8.0 * U * (fabs(a0) + fabs(b0) + e * (fabs(a1) + fabs(b1)));
        best = fmax(best, (v > 0.0 ? v / m->shrink : v) - err);
        if (t1 == m->n) break;
    }
    return best;
}

/* One partition: the bulk below t0 = s Qbar^{-1}(f), f = Q(X > t0). */
static int one_partition(double q, double s, uint64_t times, double f, pld_fft_cache *fft, composed *out)
{
    double T = (double)times;
    double t0 = s * gsl_cdf_ugaussian_Qinv(f);
    if (!isfinite(t0)) return DPA_EINVAL;
    /* the loss at x, log(1 - q + q e^{(2x - 1)/(2 s^2)}), and its inverse */
    double e0 = log1p(q * expm1((2.0 * t0 - 1.0) / (2.0 * s * s)));
    double xmax = 1.0 + 9.0 * s;   /* P beyond: below q Phibar(9), merged into the last cell */
    double emax = log1p(q * expm1((2.0 * xmax - 1.0) / (2.0 * s * s)));
    if (!(emax > e0) || !isfinite(emax)) return DPA_EINVAL;
    double h = fmax((emax - e0) / (double)QUANTISED_BINS, 1e-9);
    size_t cells = (size_t)ceil((emax - e0) / h) + 1;   /* B_1 .. B_cells, the last unbounded */

    tails bulk = tails_at(q, s, t0);
    /* A_0 <= P(B_0) = 1 - P(X > t0), B_0' >= Q(B_0) = 1 - Q(X > t0), as logs */
    double pt_up = exp(bulk.lp + bulk.ep) * (1.0 + 4.0 * U), qt_lo = exp(bulk.lq - bulk.eq) * (1.0 - 4.0 * U);
    if (!(pt_up < 1.0)) return DPA_EINVAL;
    double la0 = log1p(-pt_up), lb0 = log1p(-qt_lo);
    la0 -= 4.0 * U * fabs(la0);
    lb0 += 4.0 * U * fabs(lb0);
    double l0 = la0 - lb0;

    double *la = malloc(cells * sizeof *la), *ld = malloc(cells * sizeof *ld);
    int st = la && ld ? DPA_OK : DPA_ENOMEM;
    dpa_sum mass = { 0 };
    double top = -INFINITY;
    tails lo = bulk;
    for (size_t j = 0; !st && j < cells; j++) {
        double edge = j + 1 < cells ? e0 + (double)(j + 1) * h : INFINITY;
        double tj = edge == INFINITY ? INFINITY : s * s * log1p(expm1(edge) / q) + 0.5;
        tails hi = tails_at(q, s, tj);
        double ep, eq;
        double lp = cell_log_mass(lo.lp, lo.ep, hi.lp, hi.ep, &ep);
        double lq = cell_log_mass(lo.lq, lo.eq, hi.lq, hi.eq, &eq);
        lo = hi;
        la[j] = -INFINITY;
        if (!(ep < 0.1) || !(eq < 0.1) || lp == -INFINITY) continue;   /* too inaccurate: its P-mass dropped */
        la[j] = lp - ep;       /* A_j */
        double lb = lq + eq;   /* B_j' */
        /* d_j = (la_j - lb_j) - (la0 - lb0), lowered by its rounding */
        double d = (la[j] - lb) - l0;
        ld[j] = d - 4.0 * U * (fabs(la[j]) + fabs(lb) + fabs(l0) + fabs(d));
        if (!(ld[j] >= 0.0)) {
            la[j] = -INFINITY;   /* an event below the bulk's loss: dropped (no lattice below 0) */
            continue;
        }
        top = fmax(top, la[j]);
    }
    if (!st && top == -INFINITY) st = DPA_EINVAL;
    /* |E| = sum A_j, scaled by e^top */
    for (size_t j = 0; !st && j < cells; j++)
        if (la[j] > -INFINITY) dpa_sum_add(&mass, exp(la[j] - top));
    double scaled = st ? 0.0 : dpa_sum_value(&mass), log_e = top + log(scaled);
    double lambda = T * exp(log_e);
    /* each cell's lattice index, floor(d_j / h) lowered by the division's
     * rounding, once (kept in ld) */
    size_t maxidx = 0;
    for (size_t j = 0; !st && j < cells; j++)
        if (la[j] > -INFINITY) {
            double x = ld[j] / h * (1.0 - 2.0 * U);
            ld[j] = x < (double)QUANTISED_MAX_FFT ? floor(x) : (double)QUANTISED_MAX_FFT;
            if ((size_t)ld[j] > maxidx) maxidx = (size_t)ld[j];
        }
    size_t n = 2;
    while (n < 2 * (maxidx + 1) && n < QUANTISED_MAX_FFT) n <<= 1;
    double *d = st ? NULL : calloc(n, sizeof *d);
    if (!st && !d) st = DPA_ENOMEM;
    /* D_j = A_j / |E|: exp of a rounded difference, relative error at most
     * (|la_j - log_e| + 6) u (log_e's own error, 3u, included) */
    double d_err = 0.0;
    for (size_t j = 0; !st && j < cells; j++)
        if (la[j] > -INFINITY) {
            size_t i = (size_t)ld[j] < n - 1 ? (size_t)ld[j] : n - 1;   /* beyond the lattice: its last index (a smaller loss) */
            d[i] += exp(la[j] - log_e);
            d_err = fmax(d_err, (fabs(la[j] - log_e) + 6.0) * U);
        }
    free(la);
    free(ld);
    /* W_k = C(T, k) A_0^{T-k} |E|^k for k <= kmax */
    double kcap = ceil(lambda + 6.0 * sqrt(lambda) + 12.0);
    int kmax = (int)(kcap < T ? kcap : T);   /* no more events than steps */
    double *w = st ? NULL : malloc((size_t)(kmax + 1) * sizeof *w);
    if (!st && !w) st = DPA_ENOMEM;
    double log_c = 0.0, w_err = 0.0;
    for (int k = 0; !st && k <= kmax; k++) {
        if (k > 0) log_c += log((T - (double)(k - 1)) / (double)k);
        double lw = log_c + (T - (double)k) * la0 + (double)k * log_e;
        w[k] = exp(lw);
        /* each log's rounding, the sums', the products' and exp's */
        w_err = fmax(w_err, 4.0 * U * ((double)k * (2.0 + fabs(log_c)) + fabs((T - k) * la0) + fabs(k * log_e) + 2.0));
    }
    double *m = st ? NULL : malloc(n * sizeof *m);
    if (!st && !m) st = DPA_ENOMEM;
    if (!st) {
        horner_ctx hc = { w, kmax };
        st = pld_fft_filter(fft, n, QUANTISED_MAX_FFT, d, n, horner, &hc, m);
    }
    if (!st) {
        out->s0 = malloc((n + 1) * sizeof *out->s0);
        out->s1 = malloc((n + 1) * sizeof *out->s1);
        if (!out->s0 || !out->s1) st = DPA_ENOMEM;
    }
    if (!st) {
        /* the unnormalised inverse: m_t = out_t / n */
        double abs_total = 0.0, lw_sum = 0.0;
        for (int k = 0; k <= kmax; k++) lw_sum += (double)k * w[k];
        /* compensated suffix sums (Neumaier): each within 2u of its value
         * plus 2 n u^2 of the absolute sum */
        dpa_sum a0 = { 0 }, a1 = { 0 };
        out->s0[n] = out->s1[n] = 0.0;
        for (size_t t = n; t-- > 0;) {
            double mt = m[t] / (double)n;
            abs_total += fabs(mt);
            dpa_sum_add(&a0, mt);
            dpa_sum_add(&a1, mt * exp(-(double)t * h));
            out->s0[t] = dpa_sum_value(&a0);
            out->s1[t] = dpa_sum_value(&a1);
        }
        double gamma = 20.0 * U * log2((double)n);
        out->n = n;
        out->h = h;
        double c = T * l0;
        out->c = c - 4.0 * U * fabs(c);
        /* relative errors on positive terms: W_k's (w_err), D's entries
         * (d_err each, plus the additions of cells sharing an index, at
         * most `cells` of them) raised to at most kmax factors */
        out->shrink = exp(w_err + (double)(kmax + 1) * (d_err + (double)cells * U)) * (1.0 + 1e-12);
        /* forward transform gamma ||D||_2 sqrt(n) (||D||_2 <= 1), through
         * the polynomial (derivative <= sum k W_k), Horner's rounding
         * 4 (kmax+1) u per coefficient, the inverse gamma: divided by n
         * with the l2 norms of the unnormalised transforms */
        out->l2_err = (gamma * (2.0 + lw_sum) + 4.0 * (double)(kmax + 1) * U) * 1.01;
        /* m_t = out_t / n and the weights e^{-t h}: a few ulps each,
         * relative to |m_t|; the compensated sums' n u^2 term */
        out->sum_err = (4.0 * U + 4.0 * (double)n * U * U) * abs_total * 1.01;
    }
    free(d);
    free(w);
    free(m);
    return st;
}

static void composed_free(composed *m)
{
    free(m->s0);
    free(m->s1);
    m->s0 = m->s1 = NULL;
}

int pld_quantised_lower(double q, double sigma, uint64_t times, int want_eps, double value, pld_fft_cache *fft,
                        double *lower)
{
    *lower = 0.0;
    if (!(q > 0.0 && q < 1.0) || !(sigma > 0.0) || !isfinite(sigma) || times == 0 || !(value >= 0.0))
        return DPA_EINVAL;
    if ((double)times * q > QUANTISED_MAX_EVENTS) return DPA_OK;
    dpa_gsl_quiet();
    /* bulks holding all but f = beta / T of Q per step (at most 0.1):
     * more events resolve more of the loss, fewer keep the lattice's
     * rounding (one per event) and the transform small.  The optimum grows
     * with the expected number of sampled steps T q: measured beta ~ 3 for
     * q = 1e-6, sigma = 0.3, T = 1e6 (T q = 1), beyond 30 for q = 1e-5
     * (T q = 10).  Each gives a valid bound; the largest is kept. */
    const double betas[] = { 1.0, 3.0, 10.0 };
    double scale = fmin(fmax((double)times * q, 1.0), 10.0), done = NAN;
    for (size_t b = 0; b < sizeof betas / sizeof betas[0]; b++) {
        double f = fmin(scale * betas[b] / (double)times, 0.1);
        if (f == done) continue;
        done = f;
        composed m = { 0 };
        int st = one_partition(q, sigma, times, f, fft, &m);
        if (st == DPA_ENOMEM) {
            composed_free(&m);
            return st;
        }
        if (st) {
            composed_free(&m);
            continue;
        }
        if (!want_eps) {
            *lower = fmax(*lower, composed_delta(&m, value));
        } else if (composed_delta(&m, 0.0) > value) {
            /* the largest eps at which the bound still exceeds delta, by
             * bisection (it falls with eps); eps(delta) lies above it */
            double lo = 0.0, hi = m.c + (double)m.n * m.h + 1.0;
            for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
                double mid = 0.5 * (lo + hi);
                if (composed_delta(&m, mid) > value) lo = mid;
                else hi = mid;
            }
            *lower = fmax(*lower, lo);
        }
        composed_free(&m);
    }
    return DPA_OK;
}
