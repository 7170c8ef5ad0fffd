/*
 * pld_grid.c - privacy loss distributions on a grid: discretisation and
 * composition by FFT, every rounding charged against the side being bounded.
 */
#include "pld_grid.h"
#include "dpacct.h"
#include "numerics.h"

#include <fftw3.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int pld_grid_alloc(pld_grid *g, double h, int64_t first, size_t n)
{
    g->h = h;
    g->first = first;
    g->n = n;
    g->inf_mass = 0.0;
    g->pad = 0.0;
    g->mass = calloc(n ? n : 1, sizeof *g->mass);
    return g->mass ? DPA_OK : DPA_ENOMEM;
}

void pld_grid_free(pld_grid *g)
{
    free(g->mass);
    g->mass = NULL;
    g->n = 0;
}

static double loss_at(const pld_grid *g, size_t i)
{
    return (double)(g->first + (int64_t)i) * g->h;
}

double pld_grid_delta(const pld_grid *g, double epsilon)
{
    dpa_sum s = { 0 };
    for (size_t i = g->n; i-- > 0;) {
        double l = loss_at(g, i);
        if (l <= epsilon) break;                 /* masses are in increasing loss */
        dpa_sum_add(&s, g->mass[i] * -expm1(epsilon - l));
    }
    dpa_sum_add(&s, g->inf_mass);
    return dpa_sum_value(&s);
}

double pld_grid_delta_bound(const pld_grid *g, double epsilon, pld_side side)
{
    double d = pld_grid_delta(g, epsilon);
    return side == PLD_UPPER ? fmin(1.0, d + g->pad) : fmax(0.0, d - g->pad);
}

/* The lattice profile at every grid loss in O(n), from suffix sums:
 * delta(l_j) = inf + sum_{i>j} m_i - e^{l_j} sum_{i>j} m_i e^{-l_i}. */
static void profile_at_nodes(const pld_grid *g, double *out)
{
    double s1 = 0.0, s2 = 0.0;
    for (size_t j = g->n; j-- > 0;) {
        double l = loss_at(g, j);
        out[j] = g->inf_mass + s1 - exp(l) * s2;
        s1 += g->mass[j];
        s2 += g->mass[j] * exp(-l);
    }
}

int pld_grid_connect_dots(pld_grid *g, pld_log_delta_fn log_delta, void *ctx, double h,
                          int64_t k0, int64_t k1)
{
    if (!(h > 0.0) || k1 <= k0) return DPA_EINVAL;
    size_t n = (size_t)(k1 - k0 + 1);
    double *v = malloc(n * sizeof *v);
    if (!v || pld_grid_alloc(g, h, k0, n)) { free(v); pld_grid_free(g); return DPA_ENOMEM; }
    for (size_t i = 0; i < n; i++) {
        v[i] = exp(log_delta((double)(k0 + (int64_t)i) * h, ctx));
        if (isnan(v[i])) { free(v); pld_grid_free(g); return DPA_EACCURACY; }
    }
    /* slopes of the interpolation in alpha = e^eps; the first chord starts at (0, 1) */
    const double step = expm1(h);                /* alpha_{k+1} - alpha_k = alpha_k (e^h - 1) */
    double prev = (v[0] - 1.0) / exp((double)k0 * h);
    for (size_t i = 0; i < n; i++) {
        double alpha = exp((double)(k0 + (int64_t)i) * h);
        double next = i + 1 < n ? (v[i + 1] - v[i]) / (alpha * step) : 0.0;
        g->mass[i] = fmax(0.0, alpha * (next - prev));
        prev = next;
    }
    g->inf_mass = v[n - 1];
    /* Rounding moved the masses a little: where the lattice profile fell below
     * the exact values at the nodes, lift it by the largest shortfall (the
     * profile is linear in alpha between nodes, so that lifts it everywhere). */
    double *check = malloc(n * sizeof *check);
    if (!check) { free(v); pld_grid_free(g); return DPA_ENOMEM; }
    profile_at_nodes(g, check);
    double shortfall = 0.0;
    for (size_t i = 0; i < n; i++) shortfall = fmax(shortfall, v[i] - check[i]);
    g->inf_mass = (g->inf_mass + shortfall) * (1.0 + 8.0 * DBL_EPSILON);
    free(check);
    free(v);
    return DPA_OK;
}

int pld_grid_lower_dots(pld_grid *g, pld_log_delta_fn log_delta, pld_log_delta_fn log_q_survival,
                        void *ctx, double h, int64_t k0, int64_t k1)
{
    if (!(h > 0.0) || k1 <= k0 + 1) return DPA_EINVAL;
    size_t n = (size_t)(k1 - k0 + 1);
    /* calloc: every entry is written below before it is read, but GCC's
     * maybe-uninitialized analysis cannot see that under -fsanitize */
    double *alpha = calloc(n, sizeof *alpha), *w = calloc(n, sizeof *w);
    double *chord_err = calloc(n, sizeof *chord_err);
    size_t *hull = malloc(n * sizeof *hull);
    size_t start = 0, end = 0; /* the nodes of the hull: after a merged left tail, before a dropped right one */
    int st = (alpha && w && chord_err && hull) ? DPA_OK : DPA_ENOMEM;
    for (size_t i = 0; !st && i < n; i++) {
        double l = (double)(k0 + (int64_t)i) * h;
        alpha[i] = exp(l);
        /* the exact value, shaved by its own rounding */
        w[i] = exp(log_delta(l, ctx)) * (1.0 - 1e-12);
        if (i + 1 < n) {
            double ls = log_q_survival(l, ctx), ls_next = log_q_survival(l + h, ctx);
            double q_mass = ls == -INFINITY ? 0.0 : exp(ls) * -expm1(ls_next - ls);
            /* over-estimating the chord error only lowers the bound further */
            chord_err[i] = alpha[i] * expm1(h) * q_mass / 4.0 * (1.0 + 1e-6);
        }
        if (isnan(w[i]) || (i + 1 < n && isnan(chord_err[i]))) st = DPA_EACCURACY;
    }
    if (!st) {
        /* No pair has a profile below 1 - alpha.  Where the lowered values
         * fall below that line (the far left, where the chord errors exceed
         * pi - (1 - alpha)), the left tail is merged instead: the profile
         * is taken as 1 - alpha up to the first node `start` after the last
         * such node, pinned there at 1 - alpha_start (below w_start, so the
         * chords after it stay below pi), and every later node lies on or
         * above the line, so the hull's slopes stay >= -1. */
        for (size_t i = 1; i + 1 < n; i++) {
            w[i] -= fmax(chord_err[i - 1], chord_err[i]);
            if (w[i] < 1.0 - alpha[i]) start = i + 1;
        }
        /* Mirror image on the right, where pi ~ 0: the nodes from the first
         * one lowered below 0 on are dropped (the right tail dropped), and the
         * profile ends at 0 at the node before it. */
        end = n - 1;
        for (size_t i = start + 1; i + 1 < n; i++)
            if (w[i] < 0.0) { end = i - 1; break; }
        if (end <= start) st = DPA_EACCURACY;   /* nothing usable: grid far too coarse */
        else {
            w[start] = 1.0 - alpha[start];
            w[end] = 0.0;
        }
    }
    if (!st) {
        /* greatest convex minorant (lower hull, monotone chain) */
        size_t m = 0;
        for (size_t i = start; i <= end; i++) {
            while (m >= 2) {
                size_t a = hull[m - 2], b = hull[m - 1];
                double cross = (alpha[b] - alpha[a]) * (w[i] - w[a]) - (w[b] - w[a]) * (alpha[i] - alpha[a]);
                if (cross <= 0.0) m--;   /* b lies on or above the chord from a to i */
                else break;
            }
            hull[m++] = i;
        }
        st = pld_grid_alloc(g, h, k0, n);
        /* masses from the slope jumps at the hull's vertices: slope -1 before
         * the first (the line 1 - alpha), 0 after the last */
        double prev = -1.0;
        for (size_t v = 0; !st && v < m; v++) {
            size_t i = hull[v];
            double next = v + 1 < m ? (w[hull[v + 1]] - w[i]) / (alpha[hull[v + 1]] - alpha[i]) : 0.0;
            /* a hull has increasing slopes; a visible decrease is not rounding */
            if (next - prev < -1e-9 * (fabs(next) + fabs(prev))) st = DPA_EACCURACY;
            g->mass[i] = fmax(0.0, alpha[i] * (next - prev));
            prev = next;
        }
        if (st) pld_grid_free(g);
    }
    free(alpha);
    free(w);
    free(chord_err);
    free(hull);
    return st;
}

int pld_grid_round_down(pld_grid *g, pld_log_delta_fn log_survival, void *ctx, double h,
                        int64_t k0, int64_t k1)
{
    if (!(h > 0.0) || k1 <= k0) return DPA_EINVAL;
    size_t n = (size_t)(k1 - k0);
    if (pld_grid_alloc(g, h, k0, n)) return DPA_ENOMEM;
    double ls = log_survival((double)k0 * h, ctx);
    for (size_t i = 0; i < n; i++) {
        double ls_next = log_survival((double)(k0 + (int64_t)i + 1) * h, ctx);
        if (isnan(ls) || isnan(ls_next)) { pld_grid_free(g); return DPA_EACCURACY; }
        /* P(l_i < L <= l_{i+1}) = S(l_i) - S(l_{i+1}), shaved by 1e-9 of itself
         * so that the rounding of the survival function cannot inflate it */
        double m = ls == -INFINITY ? 0.0 : exp(ls) * -expm1(ls_next - ls);
        g->mass[i] = fmax(0.0, m * (1.0 - 1e-9));
        ls = ls_next;
    }
    return DPA_OK;
}

/* The sum of squares of the masses, for the FFT error bound. */
static double norm2(const pld_grid *g)
{
    double s = 0.0;
    for (size_t i = 0; i < g->n; i++) s += g->mass[i] * g->mass[i];
    return sqrt(s);
}

/* Drop or move the tails whose total is below cut. */
static void trim(pld_grid *g, pld_side side, double cut)
{
    size_t lo = 0, hi = g->n;
    double left = 0.0, right = 0.0;
    while (lo + 1 < hi && left + g->mass[lo] <= cut) left += g->mass[lo++];
    while (hi - 1 > lo && right + g->mass[hi - 1] <= cut) right += g->mass[--hi];
    if (side == PLD_UPPER) {
        g->mass[lo] += left;                    /* moved up: raises delta */
        g->inf_mass += right;                   /* moved to +inf */
    }
    if (lo > 0) memmove(g->mass, g->mass + lo, (hi - lo) * sizeof *g->mass);
    g->first += (int64_t)lo;
    g->n = hi - lo;
}

int pld_grid_compose(const pld_grid *a, const pld_grid *b, pld_side side, double tail_cut,
                     pld_grid *out)
{
    if (a->h != b->h) return DPA_EINVAL;
    size_t m = a->n + b->n - 1, n = 1;
    while (n < m) n <<= 1;
    double *x = fftw_alloc_real(n), *y = fftw_alloc_real(n);
    fftw_complex *fx = fftw_alloc_complex(n / 2 + 1), *fy = fftw_alloc_complex(n / 2 + 1);
    int st = (x && y && fx && fy) ? DPA_OK : DPA_ENOMEM;
    if (!st) st = pld_grid_alloc(out, a->h, a->first + b->first, m);
    if (!st) {
        memset(x, 0, n * sizeof *x);
        memset(y, 0, n * sizeof *y);
        memcpy(x, a->mass, a->n * sizeof *x);
        memcpy(y, b->mass, b->n * sizeof *y);
        fftw_plan px = fftw_plan_dft_r2c_1d((int)n, x, fx, FFTW_ESTIMATE);
        fftw_plan py = fftw_plan_dft_r2c_1d((int)n, y, fy, FFTW_ESTIMATE);
        fftw_plan back = fftw_plan_dft_c2r_1d((int)n, fx, x, FFTW_ESTIMATE);
        fftw_execute(px);
        fftw_execute(py);
        for (size_t k = 0; k < n / 2 + 1; k++) {
            double re = fx[k][0] * fy[k][0] - fx[k][1] * fy[k][1];
            double im = fx[k][0] * fy[k][1] + fx[k][1] * fy[k][0];
            fx[k][0] = re;
            fx[k][1] = im;
        }
        fftw_execute(back);
        fftw_destroy_plan(px);
        fftw_destroy_plan(py);
        fftw_destroy_plan(back);
        /* Each entry of an FFT convolution is off by at most about
         * eps_mach log2(n) |a|_2 |b|_2 (Higham, Accuracy and Stability,
         * Sec. 24.1; a factor 20 covers the constants), so the computed
         * masses are within m e in total variation of the exact convolution.
         * delta is a functional with weights in [0, 1], and composing with a
         * (sub)probability does not grow total variation, so the pads of
         * the factors and this one add up.  Negative entries are set to 0,
         * and what that changed is charged to the pad as well. */
        double e = 20.0 * DBL_EPSILON * log2((double)n) * norm2(a) * norm2(b);
        double clamped = 0.0;
        for (size_t i = 0; i < m; i++) {
            double c = x[i] / (double)n;
            if (c < 0.0) { clamped -= c; c = 0.0; }
            out->mass[i] = c;
        }
        out->pad = a->pad + b->pad + (double)m * e + clamped;
        double ia = a->inf_mass, ib = b->inf_mass;
        out->inf_mass = ia + ib - ia * ib;
        if (side == PLD_UPPER) out->inf_mass = fmin(1.0, out->inf_mass * (1.0 + 4.0 * DBL_EPSILON));
        else out->inf_mass *= 1.0 - 4.0 * DBL_EPSILON;
        trim(out, side, tail_cut);
    }
    fftw_free(x);
    fftw_free(y);
    fftw_free(fx);
    fftw_free(fy);
    return st;
}

static int copy_grid(const pld_grid *a, pld_grid *out)
{
    if (pld_grid_alloc(out, a->h, a->first, a->n)) return DPA_ENOMEM;
    memcpy(out->mass, a->mass, a->n * sizeof *a->mass);
    out->inf_mass = a->inf_mass;
    out->pad = a->pad;
    return DPA_OK;
}

int pld_grid_self_compose(const pld_grid *a, uint64_t count, pld_side side, double tail_cut,
                          pld_grid *out)
{
    if (count == 0) return DPA_EINVAL;
    pld_grid base, acc, tmp;
    int have_acc = 0, st = copy_grid(a, &base);
    while (!st && count) {
        if (count & 1) {
            if (have_acc) {
                st = pld_grid_compose(&acc, &base, side, tail_cut, &tmp);
                if (!st) { pld_grid_free(&acc); acc = tmp; }
            } else {
                st = copy_grid(&base, &acc);
                have_acc = !st;
            }
        }
        count >>= 1;
        if (!st && count) {
            st = pld_grid_compose(&base, &base, side, tail_cut, &tmp);
            if (!st) { pld_grid_free(&base); base = tmp; }
        }
    }
    pld_grid_free(&base);
    if (st) {
        if (have_acc) pld_grid_free(&acc);
        return st;
    }
    *out = acc;
    return DPA_OK;
}
