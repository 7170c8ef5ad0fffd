/*
 * pld_grid.c - privacy loss distributions on a grid: discretisation,
 * exponential tilting and composition by FFT, every rounding charged
 * against the side being bounded (the validity rules are in pld_grid.h).
 */
#include "pld_grid.h"
#include "dpacct.h"
#include "numerics.h"

#include <fftw3.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define U DBL_EPSILON

int pld_grid_alloc(pld_grid *g, double h, int64_t first, size_t n)
{
    *g = (pld_grid){ .h = h, .first = first, .n = n };
    g->mass = calloc(n ? n : 1, sizeof *g->mass);
    return g->mass ? DPA_OK : DPA_ENOMEM;
}

void pld_grid_free(pld_grid *g)
{
    free(g->mass);
    g->mass = NULL;
    g->n = 0;
}

int pld_grid_copy(const pld_grid *a, pld_grid *out)
{
    if (pld_grid_alloc(out, a->h, a->first, a->n)) return DPA_ENOMEM;
    double *mass = out->mass;
    *out = *a;
    out->mass = mass;
    memcpy(out->mass, a->mass, a->n * sizeof *a->mass);
    return DPA_OK;
}

static double loss_at(const pld_grid *g, size_t i)
{
    return (double)(g->first + (int64_t)i) * g->h;
}

/* Relative error of the positive recurrences below over n steps (each step
 * a few roundings of positive terms, errors carried forward undamped). */
static double recurrence_relerr(size_t n)
{
    return (16.0 + 6.0 * (double)n) * U;
}

/* Untilted lattice profile at the nodes, delta(l_j) - inf_mass, by the
 * positive recurrence of pld_profile_table (no cancellation). */
static void untilted_node_profile(const pld_grid *g, double *node)
{
    double a = -expm1(-g->h), b = exp(-g->h), tail = 0.0, d = 0.0;
    for (size_t j = g->n; j-- > 0;) {
        node[j] = d;
        tail += g->mass[j];
        d = a * tail + b * d;
    }
}

/* Kahan-Neumaier total of the finite masses. */
static double finite_total(const pld_grid *g)
{
    dpa_sum s = { 0 };
    for (size_t i = 0; i < g->n; i++) dpa_sum_add(&s, g->mass[i]);
    return dpa_sum_value(&s);
}

int pld_grid_connect_dots(pld_grid *g, pld_log_delta_fn log_delta, void *ctx, double h,
                          int64_t k0, int64_t k1)
{
    return pld_grid_connect_dots_excess(g, log_delta, NULL, ctx, h, k0, k1);
}

int pld_grid_connect_dots_excess(pld_grid *g, pld_log_delta_fn log_delta, pld_log_delta_fn log_excess, void *ctx,
                                 double h, int64_t k0, int64_t k1)
{
    if (!(h > 0.0) || k1 <= k0) return DPA_EINVAL;
    size_t n = (size_t)(k1 - k0 + 1);
    double *v = malloc(n * sizeof *v), *r = malloc(n * sizeof *r);
    if (!v || !r || pld_grid_alloc(g, h, k0, n)) {
        free(v);
        free(r);
        pld_grid_free(g);
        return DPA_ENOMEM;
    }
    int st = DPA_OK;
    for (size_t i = 0; i < n && !st; i++) {
        double l = (double)(k0 + (int64_t)i) * h;
        v[i] = exp(log_delta(l, ctx));
        if (isnan(v[i])) st = DPA_EACCURACY;
        /* The interpolation is read off r = pi - (1 - alpha), which has the
         * same slope jumps (the line has none).  Left of 0 pi comes close
         * to the line, and v - (1 - alpha) there cancels: the jumps of v's
         * slopes are rounding of size u v / h per node, masses of 1e-11 where
         * the true ones are 1e-40 (an add world at h = 6.5e-7), spread over
         * the whole left tail.  log_excess, where given, provides r
         * directly (raised by its error bound, as v is). */
        double lx = log_excess && l < 0.0 ? log_excess(l, ctx) : NAN;
        r[i] = isnan(lx) ? NAN : exp(lx);
    }
    if (st) {
        free(v);
        free(r);
        pld_grid_free(g);
        return st;
    }
    /* Slopes of the interpolation in alpha = e^eps, the first chord from
     * (0, 1), the last 0 (flat after the last node); the mass at node k is
     * alpha_k times the jump of the slope.  An interval whose two nodes
     * have r carries the slope x of r, pi's being x - 1; the jumps are
     * taken between like slopes (x - x' exactly, the -1's cancelling in
     * the algebra, not in rounding) and across the one change of kind as
     * (x + 1) - x'. */
    const double step = expm1(h);                /* alpha_{k+1} - alpha_k = alpha_k (e^h - 1) */
    double alpha0 = exp((double)k0 * h);
    int prev_left = !isnan(r[0]);
    double prev = prev_left ? r[0] / alpha0 : (v[0] - 1.0) / alpha0;
    for (size_t i = 0; i < n; i++) {
        double alpha = exp((double)(k0 + (int64_t)i) * h);
        int left = i + 1 < n && !isnan(r[i]) && !isnan(r[i + 1]);
        double next = i + 1 >= n ? 0.0
                      : left     ? (r[i + 1] - r[i]) / (alpha * step)
                                 : (v[i + 1] - v[i]) / (alpha * step);
        double jump = left == prev_left ? next - prev : left ? next - (prev + 1.0) : (next + 1.0) - prev;
        g->mass[i] = fmax(0.0, alpha * jump);
        prev = next;
        prev_left = left;
    }
    free(r);
    g->inf_mass = v[n - 1];
    /* The masses carry rounding (second differences of v).  Check the
     * lattice profile at every node against v: computed by a positive
     * recurrence, it is within a relative kappa of exact, so the grid is
     * valid once (inf + D_j)(1 - kappa) >= v_j at every node (the profile is
     * linear in alpha between nodes, so it then lies above every chord,
     * hence above the mechanism's profile) and its total mass is >= 1.
     * Both are met by scaling every mass up by one factor f, i.e. adding
     * mass in proportion: the shortfalls are relative (~kappa), and a local
     * lift at node j+1 would have to be s / (1 - e^-h), which raises the
     * profile to the left by 1/h times the shortfall (measured: total mass
     * 1 + 2e-8 per step at h = 6e-5, 1.0019 after 1e5 steps). */
    double *node = malloc(n * sizeof *node);
    if (!node) { free(v); pld_grid_free(g); return DPA_ENOMEM; }
    untilted_node_profile(g, node);
    const double kappa = recurrence_relerr(n);
    double f = 1.0;
    for (size_t j = 0; j < n; j++) {
        double have = (g->inf_mass + node[j]) * (1.0 - kappa);
        if (have < v[j]) f = fmax(f, have > 0.0 ? v[j] / have : INFINITY);
    }
    double total = (g->inf_mass + finite_total(g)) * (1.0 - 2.0 * kappa);
    if (total < 1.0) f = fmax(f, 1.0 / total);
    free(node);
    if (!isfinite(f)) { free(v); pld_grid_free(g); return DPA_EACCURACY; }
    if (f > 1.0) {
        f *= 1.0 + 4.0 * U;
        for (size_t i = 0; i < n; i++) g->mass[i] *= f;
        g->inf_mass *= f;
    }
    g->finite = finite_total(g) * (1.0 + kappa);
    free(v);
    return DPA_OK;
}

/* A lower grid must have its profile on or below `target` at every node
 * and total mass <= 1; the masses computed from the hull meet that up to
 * rounding, which a uniform scaling by f < 1 removes (removing mass keeps a
 * lower grid valid). */
static int scale_lower_to_targets(pld_grid *g, const double *target)
{
    size_t n = g->n;
    double *node = malloc(n * sizeof *node);
    if (!node) return DPA_ENOMEM;
    untilted_node_profile(g, node);
    const double kappa = recurrence_relerr(n);
    double f = 1.0;
    int st = DPA_OK;
    for (size_t j = 0; j < n; j++) {
        double have = (g->inf_mass + node[j]) * (1.0 + kappa);
        if (have <= target[j]) continue;
        if (!(target[j] > 0.0)) { st = DPA_EACCURACY; break; }
        f = fmin(f, target[j] / have);
    }
    double total = (g->inf_mass + finite_total(g)) * (1.0 + 2.0 * kappa);
    if (total > 1.0) f = fmin(f, 1.0 / total);
    if (f < 1.0) {
        f *= 1.0 - 4.0 * U;
        for (size_t i = 0; i < n; i++) g->mass[i] *= f;
        g->inf_mass *= f;
    }
    g->finite = finite_total(g) * (1.0 - kappa);
    free(node);
    return st;
}

int pld_grid_lower_dots(pld_grid *g, pld_log_delta_fn log_delta, pld_log_delta_fn log_q_survival,
                        void *ctx, double h, int64_t k0, int64_t k1, int atoms)
{
    if (!(h > 0.0) || k1 <= k0 + 1) return DPA_EINVAL;
    size_t n = (size_t)(k1 - k0 + 1);
    /* calloc: every entry is written below before it is read, but GCC's
     * maybe-uninitialized analysis cannot see that under -fsanitize */
    double *alpha = calloc(n, sizeof *alpha), *w = calloc(n, sizeof *w);
    double *chord_err = calloc(n, sizeof *chord_err), *target = calloc(n, sizeof *target);
    size_t *hull = malloc(n * sizeof *hull);
    size_t start = 0, end = 0; /* hull nodes: after a merged left tail, before a dropped right one */
    int st = (alpha && w && chord_err && target && hull) ? DPA_OK : DPA_ENOMEM;
    double ls_next = log_q_survival((double)k0 * h, ctx);
    for (size_t i = 0; !st && i < n; i++) {
        double l = (double)(k0 + (int64_t)i) * h;
        alpha[i] = exp(l);
        w[i] = exp(log_delta(l, ctx));
        if (i + 1 < n) {
            /* each survival value serves two neighbouring intervals */
            double ls = ls_next, l1 = (double)(k0 + (int64_t)i + 1) * h;
            ls_next = log_q_survival(l1, ctx);
            /* The chord over [alpha_i, alpha_i+1] exceeds pi by at most
             * (alpha_i+1 - alpha_i)/4 times the Q-mass in the interval (the
             * gap is linear in the measure, and a point mass m at x adds
             * m (x - a)(b - x)/(b - a) <= m (b - a)/4).  A mass on a node
             * adds nothing: with `atoms`, the mass at the right node is left
             * out by taking the survival just below it, Q(L > prev(l1)) =
             * Q(L >= l1) for atoms at doubles (no double lies between), so
             * that atoms on nodes -- a step dividing their spacing by a
             * power of two puts them there exactly -- make no chord error
             * and the lower grid does not drift like rounding down. */
            double right = atoms ? log_q_survival(nextafter(l1, -INFINITY), ctx) : ls_next;
            double q_mass = ls == -INFINITY ? 0.0 : exp(ls) * -expm1(fmin(0.0, right - ls));
            /* over-estimating the chord error only lowers the bound further */
            chord_err[i] = alpha[i] * expm1(h) * q_mass / 4.0 * (1.0 + 1e-6);
        }
        if (isnan(w[i]) || (i + 1 < n && isnan(chord_err[i]))) st = DPA_EACCURACY;
    }
    if (!st) {
        /* No pair has a profile below 1 - alpha.  Where the lowered values
         * fall below that line (the far left, where the chord errors exceed
         * pi - (1 - alpha)), the left tail is merged instead: the profile
         * is 1 - alpha up to the first node `start` after the last such
         * node, pinned there at 1 - alpha_start, and every later node lies
         * on or above the line, so the hull's slopes stay >= -1.  Far left
         * delta(eps) = 1 - e^eps to within rounding, and a node "above" the
         * line by less than that is noise (its slopes would be garbage):
         * such nodes are merged too, which is always allowed. */
        for (size_t i = 0; i + 1 < n; i++) {
            w[i] -= i == 0 ? chord_err[0] : fmax(chord_err[i - 1], chord_err[i]);
            if (w[i] < 1.0 - alpha[i] + 16.0 * U) start = i + 1;
        }
        w[n - 1] -= chord_err[n - 2];
        /* Every profile is non-increasing, but the lowering can make a node
         * lower than the next: just below a mass at +inf that follows a
         * continuous part (truncated Laplace) the chord errors of the last
         * interval exceed the flat tail's value.  Lowering a node further
         * keeps the grid below the profile, so take the running minimum;
         * the hull's last slope is then <= 0 and meets the flat tail. */
        for (size_t i = 1; i < n; i++) w[i] = fmin(w[i], w[i - 1]);
        /* Mirror image on the right: from the first node lowered below 0 on
         * the nodes are dropped and the profile ends at 0 at the node before
         * it.  When none is, the last value stays as the mass at +inf. */
        end = n - 1;
        for (size_t i = start + 1; i < n; i++)
            if (w[i] < 0.0) { end = i - 1; break; }
        if (end <= start || !(alpha[start] < 1.0)) st = DPA_EACCURACY; /* grid far too coarse */
        else {
            w[start] = 1.0 - alpha[start];
            if (end < n - 1) w[end] = 0.0;
            else {
                /* the profile stays at its last value: no more than the
                 * mechanism's mass at +inf */
                double at_inf = exp(log_delta(INFINITY, ctx));
                w[end] = fmax(0.0, fmin(w[end], isnan(at_inf) ? 0.0 : at_inf));
            }
        }
        for (size_t i = 0; i < n; i++)
            target[i] = i < start ? 1.0 - alpha[i] : i > end ? 0.0 : w[i];
    }
    size_t m = 0;
    if (!st) {
        /* greatest convex minorant (lower hull, monotone chain) */
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
    }
    if (!st) {
        /* masses from the slope jumps at the hull's vertices: slope -1 before
         * the first (the line 1 - alpha), 0 after the last (whose value, 0 or
         * the last node's, is the mass at +inf) */
        double prev = -1.0;
        for (size_t v = 0; !st && v < m; v++) {
            size_t i = hull[v];
            double next = v + 1 < m ? (w[hull[v + 1]] - w[i]) / (alpha[hull[v + 1]] - alpha[i]) : 0.0;
            /* a hull has increasing slopes; a visible decrease is not rounding */
            if (next - prev < -1e-9 * (fabs(next) + fabs(prev))) st = DPA_EACCURACY;
            g->mass[i] = fmax(0.0, alpha[i] * (next - prev));
            prev = next;
        }
        g->inf_mass = fmax(0.0, w[end]);
        if (!st) st = scale_lower_to_targets(g, target);
        if (st) pld_grid_free(g);
    }
    free(alpha);
    free(w);
    free(chord_err);
    free(target);
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
    g->finite = finite_total(g) * (1.0 - recurrence_relerr(n));
    return DPA_OK;
}

double pld_grid_log_mgf(const pld_grid *g, double theta)
{
    /* log sum_i mass_i e^{(theta - g->theta) l_i} + log_scale, max-shifted */
    double d = theta - g->theta, top = -INFINITY;
    for (size_t i = 0; i < g->n; i++)
        if (g->mass[i] > 0.0) top = fmax(top, log(g->mass[i]) + d * loss_at(g, i));
    if (top == -INFINITY) return -INFINITY;
    dpa_sum s = { 0 };
    for (size_t i = 0; i < g->n; i++)
        if (g->mass[i] > 0.0) dpa_sum_add(&s, exp(log(g->mass[i]) + d * loss_at(g, i) - top));
    return top + log(dpa_sum_value(&s)) + g->log_scale;
}

int pld_grid_tilt(pld_grid *g, double theta, pld_side side)
{
    if (!(theta >= 0.0) || g->theta != 0.0 || g->pad != 0.0 || g->log_scale != 0.0)
        return DPA_EINVAL;
    if (theta == 0.0) return DPA_OK;
    double top = -INFINITY;
    for (size_t i = 0; i < g->n; i++)
        if (g->mass[i] > 0.0) top = fmax(top, log(g->mass[i]) + theta * loss_at(g, i));
    if (top == -INFINITY) { g->theta = theta; return DPA_OK; }
    /* Each tilted mass is mass * exp(theta l - top), the exponent carrying
     * about (|theta l| + |top|) ulps: round the result towards `side`.  An
     * upper grid must not lose mass that underflows: it is moved up to the
     * next node that holds a normal number (moving mass up is allowed). */
    double carried = 0.0;   /* untilted mass moved up, not yet placed */
    for (size_t i = 0; i < g->n; i++) {
        double l = loss_at(g, i), x = theta * l - top;
        double rel = (4.0 + 2.0 * (fabs(theta * l) + fabs(top))) * U;
        double m = g->mass[i] + carried;
        double t = m * exp(x);
        if (side == PLD_UPPER) {
            if (m > 0.0 && !(t >= DBL_MIN)) { carried = m; g->mass[i] = 0.0; continue; }
            carried = 0.0;
            g->mass[i] = t * (1.0 + rel);
        } else {
            g->mass[i] = t >= DBL_MIN ? t * (1.0 - rel) : 0.0;
        }
    }
    if (carried > 0.0) g->inf_mass += carried;   /* nowhere above: +inf */
    g->theta = theta;
    g->log_scale = top;
    return DPA_OK;
}

/* ---- FFT plans and work arrays, created once per size --------------------- */

/* FFTW's planner is not thread-safe, only the execute functions are (FFTW
 * manual, 5.4 "Thread safety"): plans are created and destroyed, and FFTW's
 * allocator called, under this lock; transforms run outside it. */
static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;

#define FFT_SIZES 31      /* n = 2^0 .. 2^30: FFTW takes int sizes */

/* A real array and its half spectrum (n / 2 + 1 points), from fftw_alloc_*:
 * every such array has the alignment the plans were made for, which the
 * new-array execute functions require (FFTW manual, 4.6). */
typedef struct {
    size_t n;             /* room for transforms of up to n points */
    double *re;
    fftw_complex *spec;
} fft_work;

/* Plans by log2 n, made on first use and kept for the life of the process,
 * shared by every cache (under planner_lock): re-planning a size costs
 * about as much as executing it (FFTW_ESTIMATE still builds the
 * trigonometric tables, measured ~16 n bytes for the pair at n = 2^21, so
 * the plans of every size up to N hold under 32 N bytes), and a
 * calibration creates an accountant per candidate (it re-planned every size
 * for each: a fifth of a query's instructions).  Plans are made out of
 * place on fftw_alloc'd arrays, and every work array is fftw_alloc'd, so
 * the new-array execute functions may apply them to any cache's arrays
 * (FFTW manual, 4.6), from any thread (5.4). */
static fftw_plan shared_r2c[FFT_SIZES], shared_c2r[FFT_SIZES];

/* Each cache's work arrays: work[0] holds the
 * first operand (and the result), work[1] the second one of a convolution
 * of two different grids; each is grown to the largest n asked for and kept
 * (16 n + 16 bytes each: 64 MiB for both at 2^21 points, what the largest
 * transform allocated per call before). */
struct pld_fft_cache {
    fft_work work[2];
    double transformed;   /* sum of n log2 n over the convolutions prepared */
};

double pld_fft_cache_work(const pld_fft_cache *c)
{
    return c ? c->transformed : 0.0;
}

pld_fft_cache *pld_fft_cache_new(void)
{
    return calloc(1, sizeof(pld_fft_cache));
}

/* Free the arrays, leaving an empty cache (the plans are shared). */
static void fft_cache_clear(pld_fft_cache *c)
{
    pthread_mutex_lock(&planner_lock);
    for (int i = 0; i < 2; i++) {
        fftw_free(c->work[i].re);
        fftw_free(c->work[i].spec);
    }
    pthread_mutex_unlock(&planner_lock);
    *c = (pld_fft_cache){ 0 };
}

void pld_fft_cache_free(pld_fft_cache *c)
{
    if (!c) return;
    fft_cache_clear(c);
    free(c);
}

/* Room for n points in w (under planner_lock). */
static int fft_work_reserve(fft_work *w, size_t n)
{
    if (w->n >= n) return DPA_OK;
    fftw_free(w->re);
    fftw_free(w->spec);
    w->re = fftw_alloc_real(n);
    w->spec = fftw_alloc_complex(n / 2 + 1);
    w->n = w->re && w->spec ? n : 0;
    return w->n ? DPA_OK : DPA_ENOMEM;
}

/* The r2c and c2r plans for n points (a power of two) and work arrays for
 * `operands` (1 or 2) transforms of that size.  A plan is made once per
 * size, with FFTW_ESTIMATE (which leaves the arrays alone), on work[0] --
 * out of place, as it is executed -- and then applied to any work array
 * by fftw_execute_dft_r2c / fftw_execute_dft_c2r. */
static int fft_prepare(pld_fft_cache *c, size_t n, int operands, fftw_plan *r2c, fftw_plan *c2r)
{
    int k = 0;
    while (k < FFT_SIZES && ((size_t)1 << k) < n) k++;
    if (k == FFT_SIZES || ((size_t)1 << k) != n) return DPA_EACCURACY;
    c->transformed += (double)n * (double)(k > 0 ? k : 1);
    pthread_mutex_lock(&planner_lock);
    int st = DPA_OK;
    for (int i = 0; i < operands && !st; i++) st = fft_work_reserve(&c->work[i], n);
    if (!st && !shared_r2c[k])
        shared_r2c[k] = fftw_plan_dft_r2c_1d((int)n, c->work[0].re, c->work[0].spec, FFTW_ESTIMATE);
    if (!st && !shared_c2r[k])
        shared_c2r[k] = fftw_plan_dft_c2r_1d((int)n, c->work[0].spec, c->work[0].re, FFTW_ESTIMATE);
    *r2c = shared_r2c[k];
    *c2r = shared_c2r[k];
    pthread_mutex_unlock(&planner_lock);
    if (!st && !(*r2c && *c2r)) st = DPA_ENOMEM;
    return st;
}

int pld_fft_filter(pld_fft_cache *c, size_t n, size_t max_fft, const double *in, size_t in_n, pld_spectrum_fn fn,
                   void *ctx, double *out)
{
    if (n > max_fft || in_n > n) return DPA_EINVAL;
    fftw_plan r2c, c2r;
    int st = fft_prepare(c, n, 1, &r2c, &c2r);
    if (st) return st;
    double *x = c->work[0].re;
    fftw_complex *fx = c->work[0].spec;
    memset(x, 0, n * sizeof *x);
    memcpy(x, in, in_n * sizeof *x);
    fftw_execute_dft_r2c(r2c, x, fx);
    for (size_t k = 0; k < n / 2 + 1; k++) fn(fx[k], ctx);
    fftw_execute_dft_c2r(c2r, fx, x);
    memcpy(out, x, n * sizeof *out);
    return DPA_OK;
}

/* ---- composition ---------------------------------------------------------- */

static double norm1(const pld_grid *g)
{
    dpa_sum s = { 0 };
    for (size_t i = 0; i < g->n; i++) dpa_sum_add(&s, g->mass[i]);
    return dpa_sum_value(&s);
}

static double norm2(const pld_grid *g)
{
    double s = 0.0;
    for (size_t i = 0; i < g->n; i++) s += g->mass[i] * g->mass[i];
    return sqrt(s) * (1.0 + (double)g->n * U);
}

/* Scale the masses by a power of two (exact) so that the largest is in
 * [1/2, 1), keeping log_scale and pad consistent. */
static void normalise(pld_grid *g)
{
    double top = 0.0;
    for (size_t i = 0; i < g->n; i++) top = fmax(top, g->mass[i]);
    if (!(top > 0.0)) return;
    int e;
    frexp(top, &e);
    for (size_t i = 0; i < g->n; i++) g->mass[i] = ldexp(g->mass[i], -e);
    g->pad = ldexp(g->pad, -e);
    g->pad2 = ldexp(g->pad2, -e);
    g->log_scale += e * M_LN2;
}

/* Trim the tails whose tilted mass is at most `budget` each.  Both are
 * dropped.  A lower grid may lose mass.  An upper grid charges the dropped
 * tilted mass to its pad: the pad bounds any l1 perturbation of the tilted
 * masses, and its effect on delta at eps, e^{log_scale - theta eps} pad, is
 * relative to the Chernoff bound of the final composition -- unlike moving
 * the right tail to +inf, an absolute charge that would swamp small deltas,
 * or moving the far left up, which multiplies its tilted weight by
 * e^{theta (l_lo - l_j)}. */
static void trim(pld_grid *g, pld_side side, double budget)
{
    size_t lo = 0, hi = g->n;
    double left = 0.0, right = 0.0, squares = 0.0;
    while (lo + 1 < hi && left + g->mass[lo] <= budget) {
        squares += g->mass[lo] * g->mass[lo];
        left += g->mass[lo++];
    }
    while (hi - 1 > lo && right + g->mass[hi - 1] <= budget) {
        squares += g->mass[hi - 1] * g->mass[hi - 1];
        right += g->mass[--hi];
    }
    /* A lower grid keeps `finite`: it only serves the mass at +inf of a
     * composition, ia fb + ib fa + ia ib, which stays below the true
     * da + db - da db whenever ia <= da, ib <= db and f + i <= 1 for each
     * grid -- the dropped masses are still finite losses of the mechanism,
     * and the pairs through +inf are disjoint from the pairs the arrays
     * keep.  Subtracting them lost most of the mass at +inf when a steep
     * tilt (a query at or beyond the largest finite loss) trims a heavy
     * atom at the top (truncated Laplace). */
    if (side == PLD_UPPER) {
        g->pad += (left + right) * (1.0 + 4.0 * U);
        /* the dropped entries are the error vector's entries there: their
         * l2 norm, with the rounding of the sum of squares (n terms) */
        g->pad2 += sqrt(squares * (1.0 + (double)(lo + g->n - hi + 2) * U)) * (1.0 + 2.0 * U);
    }
    if (lo > 0) memmove(g->mass, g->mass + lo, (hi - lo) * sizeof *g->mass);
    g->first += (int64_t)lo;
    g->n = hi - lo;
}

void pld_grid_trim(pld_grid *g, pld_side side, double tail_cut)
{
    trim(g, side, tail_cut * norm1(g));
}

/* The transform of g's masses, zero-padded to n points, into w->spec. */
static void forward_padded(fftw_plan r2c, const fft_work *w, const pld_grid *g, size_t n)
{
    memset(w->re, 0, n * sizeof *w->re);
    memcpy(w->re, g->mass, g->n * sizeof *w->re);
    fftw_execute_dft_r2c(r2c, w->re, w->spec);
}

int pld_grid_compose(const pld_grid *a, const pld_grid *b, pld_side side, double tail_cut,
                     size_t max_fft, pld_fft_cache *cache, pld_grid *out)
{
    if (a->h != b->h || a->theta != b->theta) return DPA_EINVAL;
    size_t m = a->n + b->n - 1, n = 1;
    while (n < m) n <<= 1;
    if (n > max_fft) return DPA_EACCURACY;
    pld_fft_cache local = { 0 }, *fc = cache ? cache : &local;   /* NULL: plans for this call */
    fftw_plan r2c, c2r;
    int st = fft_prepare(fc, n, a == b ? 1 : 2, &r2c, &c2r);
    if (!st) st = pld_grid_alloc(out, a->h, a->first + b->first, m);
    if (!st) {
        double *x = fc->work[0].re;
        fftw_complex *fx = fc->work[0].spec, *fy = fx;      /* squaring: one transform */
        forward_padded(r2c, &fc->work[0], a, n);
        if (a != b) {
            forward_padded(r2c, &fc->work[1], b, n);
            fy = fc->work[1].spec;
        }
        for (size_t k = 0; k < n / 2 + 1; k++) {
            double re = fx[k][0] * fy[k][0] - fx[k][1] * fy[k][1];
            double im = fx[k][0] * fy[k][1] + fx[k][1] * fy[k][0];
            fx[k][0] = re;
            fx[k][1] = im;
        }
        fftw_execute_dft_c2r(c2r, fx, x);                  /* destroys fx */
        /* Rounding of an FFT convolution (Higham, Accuracy and Stability of
         * Numerical Algorithms, 2nd ed., Thm 24.2: ||fl(Fx) - Fx||_2 <=
         * gamma ||Fx||_2 with gamma ~ log2(n) (mu + gamma_4 (sqrt 2 + mu));
         * 20 u log2(n) covers FFTW's algorithms with room to spare): the
         * transforms, the pointwise product (|Fb|_inf <= |b|_1) and the
         * inverse give
         *   ||c - a*b||_2 <= 2 (gamma + 4u) (|a|_2 |b|_1 + |a|_1 |b|_2),
         * hence ||c - a*b||_1 <= sqrt(m) times that.  Errors already in a and
         * b are carried by convolution, which grows l1 norms by at most the
         * other factor's l1 norm.  Negative entries are set to 0: the exact
         * convolution is non-negative, so that only reduces the error. */
        double na1 = norm1(a), nb1 = norm1(b);
        double gamma = 20.0 * U * log2((double)n);
        double e2 = 2.0 * (gamma + 4.0 * U) * (norm2(a) * nb1 + na1 * norm2(b));
        for (size_t i = 0; i < m; i++) {
            double c = x[i] / (double)n;
            out->mass[i] = c > 0.0 ? c : 0.0;
        }
        out->pad = (sqrt((double)m) * e2 + a->pad * nb1 + b->pad * (na1 + a->pad)) * (1.0 + 1e-6);
        /* The same in l2, by Young's inequality ||x * y||_2 <= ||x||_2 ||y||_1:
         * c - A*B = (c - a*b) + ea*b + A*eb with A = a - ea exact,
         * ||A||_1 <= |a|_1 + pad_a. */
        out->pad2 = (e2 + a->pad2 * nb1 + b->pad2 * (na1 + a->pad)) * (1.0 + 1e-6);
        out->theta = a->theta;
        out->log_scale = a->log_scale + b->log_scale;
        /* +inf absorbs every path through +inf: A(inf)|B| + B(inf)|A| - A(inf)B(inf)
         * = A(inf) fin_B + B(inf) fin_A + A(inf) B(inf); the finite parts are
         * bounded towards `side`, and a relative 1e-10 covers the FFT's
         * (tilted-frame) error in them. */
        double ia = a->inf_mass, ib = b->inf_mass;
        double inf = ia * b->finite + ib * a->finite + ia * ib;
        out->inf_mass = side == PLD_UPPER ? fmin(1.0, inf * (1.0 + 1e-10)) : inf * (1.0 - 1e-10);
        double fin = a->finite * b->finite;
        out->finite = side == PLD_UPPER ? fin * (1.0 + 4.0 * U) : fin * (1.0 - 4.0 * U);
        /* Entries below this step's own rounding bound carry no
         * information: trim up to that, or to tail_cut of the total. */
        double budget = fmax(tail_cut * norm1(out), sqrt((double)m) * e2);
        trim(out, side, budget);
        normalise(out);
    }
    if (!cache) fft_cache_clear(&local);
    return st;
}

/* ---- self-composition by one transform ------------------------------------ */

/* log sum_j b_j e^{lambda j} of a normalised step (index units), from the
 * log-masses lb (-inf for empty entries): max-shifted, terms below e^-700
 * of the largest counted as 1e-304, and rounded up (n
 * positive terms: relative error <= n U), so that the Chernoff bounds below
 * stay bounds. */
static double index_log_mgf(const double *lb, size_t n, double lambda)
{
    double top = -INFINITY;
    for (size_t j = 0; j < n; j++) top = fmax(top, lb[j] + lambda * (double)j);
    if (top == -INFINITY) return -INFINITY;
    /* terms below e^-700 are counted as 1e-304 each (>= e^-700), not
     * computed: as subnormal doubles they cost a hundred times a normal
     * operation */
    double s = 0.0;
    size_t small = 0;
    for (size_t j = 0; j < n; j++) {
        double x = lb[j] + lambda * (double)j - top;
        if (x > -700.0) s += exp(x);
        else if (x > -INFINITY) small++;
    }
    return top + log((s + (double)small * 1e-304) * (1.0 + (double)(n + 4) * U));
}

/* The Chernoff bound (T K(sign l) - log cut) / l on the offset of the
 * T-fold sum, at l = 2^(u - 6) / sd (u need not be whole). */
typedef struct {
    const double *lb;   /* log-masses of the step */
    size_t n;
    double t, cut, sd;
} window_problem;

static double window_bound(const window_problem *w, double sign, double u)
{
    double l = exp2(u - 6.0) / w->sd;
    return (w->t * index_log_mgf(w->lb, w->n, sign * l) - log(w->cut)) / l;
}

/* lambda = 2^(u - 6) / sd in index units.  The bound (T K(l) - log cut) / l
 * is quasi-convex in l > 0 (its sublevel sets {l : T K(l) - log cut <= r l}
 * are intervals, K being convex), hence in u: a ternary search over the
 * whole numbers u = 0..12 finds the best of them (about 7 bounds instead
 * of 13), and the minimum over the reals lies within one of it.  Returns
 * the smallest bound seen (any l gives a valid one); *at is its u and
 * *guess the minimum of the parabola through it and its neighbours (a
 * prediction of what refining would reach, not a bound). */
static double window_coarse(const window_problem *w, double sign, int *at, double *guess)
{
    double val[13];
    for (int i = 0; i < 13; i++) val[i] = NAN;
#define WINDOW_AT(i) (isnan(val[i]) ? (val[i] = window_bound(w, sign, (double)(i))) : val[i])
    int first = 0, last = 12;
    while (last - first > 2) {
        int m1 = first + (last - first) / 3, m2 = last - (last - first) / 3;
        if (!(WINDOW_AT(m1) > WINDOW_AT(m2))) last = m2;   /* the minimum lies in [first, m2] */
        else first = m1;
    }
    int ib = first;
    for (int i = first; i <= last; i++)
        if (WINDOW_AT(i) < WINDOW_AT(ib)) ib = i;
    double m = val[ib];
    *guess = m;
    if (ib > 0 && ib < 12) {
        double l = WINDOW_AT(ib - 1), r = WINDOW_AT(ib + 1), curve = l - 2.0 * m + r;
        if (curve > 0.0) *guess = m - (r - l) * (r - l) / (8.0 * curve);
    }
#undef WINDOW_AT
    double best = INFINITY;
    for (int i = 0; i < 13; i++)
        if (val[i] < best) best = val[i];
    *at = ib;
    return best;
}

/* Golden-section steps on [at - 1, at + 1] (which holds the minimum over
 * the reals, by quasi-convexity), one new bound per step, until the bound
 * is at most `enough` or `steps` are spent; the smallest bound seen. */
static double window_refine(const window_problem *w, double sign, int at, double best, double enough, int steps)
{
    const double g = 0.3819660112501051;
    double a = at - 1.0, c = at + 1.0, x1 = a + g * (c - a), x2 = c - g * (c - a);
    double f1 = window_bound(w, sign, x1), f2 = window_bound(w, sign, x2);
    best = fmin(best, fmin(f1, f2));
    for (int it = 0; it < steps && !(best <= enough); it++) {
        if (f1 < f2) {
            c = x2;
            x2 = x1;
            f2 = f1;
            x1 = a + g * (c - a);
            f1 = window_bound(w, sign, x1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = c - g * (c - a);
            f2 = window_bound(w, sign, x2);
        }
        best = fmin(best, fmin(f1, f2));
    }
    return best;
}

/* The window of the T-fold sum J of indices drawn from b (normalised) that
 * holds all but `cut` of it on each side, by Chernoff bounds
 * P(J >= x) <= exp(T K(l) - l x), l > 0, and the mirror image: the
 * offsets [lo, hi] and the bounds on the mass outside each side.
 *
 * The bounds at whole u (factors of 2 in l) can be far from the best one
 * for the heavy right tails of tilted sampled Gaussians, whose bound rises
 * steeply on both sides of its optimum (q = 1e-3, sigma = 1, T = 1e4: 23%
 * wider than the optimum, and a transform of 2^19 points instead of 2^18).
 * Refining costs a pass over the step per golden-section step, so it is
 * done only where it is predicted to halve the transform with 1% to spare
 * (by the parabolas through the best whole u and its neighbours, which
 * predicted the refined bounds measured to 0.05-2% of the tail's span),
 * for at most four steps after the first two bounds (most of the gain
 * came in those). */
static void power_window(const double *b, size_t n, uint64_t count, double cut, double *lo,
                         double *hi, double *out_left, double *out_right)
{
    double mean = 0.0, var = 0.0, t = (double)count;
    for (size_t j = 0; j < n; j++) mean += b[j] * (double)j;
    for (size_t j = 0; j < n; j++) var += b[j] * ((double)j - mean) * ((double)j - mean);
    double sd = sqrt(fmax(var * t, 1.0));
    double best_hi = t * (double)(n - 1), best_lo = 0.0;
    double *lb = malloc(n * sizeof *lb);
    if (lb) {
        /* the logarithms once, not once per lambda */
        for (size_t j = 0; j < n; j++) lb[j] = b[j] > 0.0 ? log(b[j]) : -INFINITY;
        window_problem w = { lb, n, t, cut, sd };
        int at_hi, at_lo;
        double guess_hi, guess_lo;
        best_hi = fmin(best_hi, window_coarse(&w, 1.0, &at_hi, &guess_hi));      /* P(J >= r) <= cut */
        best_lo = fmax(best_lo, -window_coarse(&w, -1.0, &at_lo, &guess_lo));    /* P(J <= lft) <= cut */
        double width = best_hi - best_lo + 1.0, half = 1.0;
        while (2.0 * half < width) half *= 2.0;
        if (width > half && guess_hi + guess_lo + 1.0 <= 0.99 * half) {
            /* the right tail first (the heavy one), then the left if needed */
            best_hi = window_refine(&w, 1.0, at_hi, best_hi, best_lo + half - 1.0, 4);
            if (best_hi - best_lo + 1.0 > half)
                best_lo = -window_refine(&w, -1.0, at_lo, -best_lo, half - 1.0 - best_hi, 4);
        }
        free(lb);
    }
    /* without the logarithms (out of memory) the window is the whole support */
    *lo = fmax(0.0, floor(best_lo));
    *hi = fmin(t * (double)(n - 1), ceil(best_hi));
    *out_left = *lo > 0.0 ? cut : 0.0;
    *out_right = *hi < t * (double)(n - 1) ? cut : 0.0;
}

/* z^count by binary powering. */
static void complex_power(double *re, double *im, uint64_t count)
{
    double br = *re, bi = *im, rr = 1.0, ri = 0.0;
    while (count) {
        if (count & 1) {
            double t = rr * br - ri * bi;
            ri = rr * bi + ri * br;
            rr = t;
        }
        count >>= 1;
        if (count) {
            double t = br * br - bi * bi;
            bi = 2.0 * br * bi;
            br = t;
        }
    }
    *re = rr;
    *im = ri;
}

/* The powers of the transform (in place), and their rounding bounded a
 * posteriori from the computed coefficients: an l2 bound on the N output
 * entries.
 *
 * Each computed coefficient c^_k of the normalised step b differs from the
 * exact c_k by at most eta = gamma |b|_1: in a Cooley-Tukey transform every
 * intermediate value is a partial sum over a subset of the inputs (modulus
 * <= that subset's l1 norm), the nodes of one stage that feed output k
 * partition the inputs, and each node's rounding reaches k multiplied by
 * unit twiddles -- so each of the log2(N) stages adds at most a few u |b|_1
 * (the per-component form of the analysis behind Higham's Thm 24.2; gamma
 * is the same 20 u log2(N) with room for FFTW's radices).  With
 * a_k = |c^_k| + eta >= max(|c_k|, |c^_k|):
 *   |c^_k^T - c_k^T| <= T eta a_k^(T-1)            (mean value, |z^T|' = T z^(T-1))
 *   |pow(c^_k) - c^_k^T| <= ((1 + 3u)^T - 1) |c^_k|^T
 * (binary powering: the error factors of the squarings and products carry
 * exponents summing to at most T, each complex product within sqrt 2 gamma_2
 * = 2.83u, Higham (3.6)).  So E_k = a_k^(T-1) (T eta + ((1 + 3u)^T - 1) a_k), and the
 * inverse transform (1/N) F* of the powers P^ gives, by Parseval and
 * Higham's l2 bound for the inverse itself,
 *   ||x^ - x||_2 <= (gamma ||P^||_2 + ||E||_2) / sqrt(N),
 * ||E||_2 over all N coefficients (k and N - k alike).  Only the
 * coefficients near |c_k| = 1 contribute: the bound is about
 * T eta ||b^{*(T-1)}||_2, where the a priori T gamma ||b||_2 (the first form)
 * used the single step's l2 norm -- 10 to 100 times larger for a step much
 * narrower than its composition -- and (1 + eta)^T grew without bound in T.
 *
 * The input's own error e (||e||_1 <= pad, rho = pad / |b|_1 relative)
 * enters the same way: each coefficient of e is at most ||e||_1, so with
 * eta + rho in place of eta the bound covers the distance to the power of
 * the exact step, smoothed by the powers like the rounding (errs_with_input);
 * the telescoping bound t rho (1 + rho)^(t-1) (Young's inequality: no
 * smoothing) is the alternative, and power_compose takes the smaller.  The
 * difference matters where a coarsened block (pld_grid_coarsen) carries the
 * pad of its own transform into the next power. */
static void power_rounding(fftw_complex *spec, size_t N, uint64_t count, double eta, double rho,
                           double *errs_alone, double *errs_with_input, double *pow2)
{
    double t = (double)count;
    double rel = expm1(1.5 * U * t) * (1.0 + 1e-9);   /* (1 + 3u)^T - 1, u = U / 2 */
    /* Below `tiny` a^(T-1) < e^-700: the power is not computed but set to 0
     * -- squaring down through the subnormal range is slow -- and its error
     * |c^T| <= a^T < 1e-304 is counted with the term, itself counted as
     * 1e-300 times its factor instead of computed: most coefficients of a
     * long power. */
    double tiny = t > 1.0 ? exp(-700.0 / (t - 1.0)) : 0.0;
    long double alone = 0.0L, with = 0.0L, pows = 0.0L;
    for (size_t k = 0; k < N / 2 + 1; k++) {
        double re = spec[k][0], im = spec[k][1];
        double mag = sqrt(re * re + im * im) * (1.0 + 2.0 * U);
        long double w = (k == 0 || 2 * k == N) ? 1.0L : 2.0L;   /* k and N - k */
        for (int input = 0; input < 2; input++) {
            double e_k = input ? eta + rho : eta, a = mag + e_k;
            long double e;   /* long double: the tiny terms would be subnormal doubles (slow) */
            if (a < tiny) e = 1e-300L * ((long double)t * e_k + rel) + 1e-304L;
            else {
                double lg = log(a);
                /* a^(T-1) by exp((T - 1) log a), widened by the logarithm's rounding */
                long double pw = expl((long double)((t - 1.0) * lg + 2.0 * U * (t - 1.0) * fabs(lg) + 4.0 * U));
                e = pw * ((long double)t * e_k + (long double)rel * a);
            }
            if (input) with += w * e * e;
            else alone += w * e * e;
            if (rho == 0.0) {                        /* the same bound twice */
                with = alone;
                break;
            }
        }
        if (mag + eta < tiny) {
            spec[k][0] = spec[k][1] = 0.0;
            continue;
        }
        complex_power(&spec[k][0], &spec[k][1], count);
        pows += w * ((long double)spec[k][0] * spec[k][0] + (long double)spec[k][1] * spec[k][1]);
    }
    *errs_alone = (double)sqrtl(alone) * (1.0 + 1e-9);
    *errs_with_input = (double)sqrtl(with) * (1.0 + 1e-9);
    *pow2 = (double)sqrtl(pows) * (1.0 + 4.0 * U);
}

/* count-fold composition by one transform: normalise the step, raise its
 * transform to the power count, transform back on a window that Chernoff
 * bounds say holds all but tail_cut of the tilted composition on each side;
 * the mass outside aliases into the window and is charged to the pad, with
 * the rounding (power_rounding, from the computed coefficients).
 * DPA_EACCURACY when the window needs more than max_fft points or the pad's
 * effect (the smaller of the l1 pad and the l2 pad times ||w||_2,
 * pad_effect) would exceed 1e-3 of the total, so that the caller can square
 * instead. */
static int power_compose(const pld_grid *a, uint64_t count, pld_side side, double tail_cut,
                         size_t max_fft, pld_fft_cache *cache, pld_grid *out)
{
    double total = norm1(a);
    if (!(total > 0.0) || a->n == 0) return DPA_EACCURACY;
    size_t n = a->n;
    double *b = malloc(n * sizeof *b);
    if (!b) return DPA_ENOMEM;
    for (size_t j = 0; j < n; j++) b[j] = a->mass[j] / total;
    double lo, hi, out_left, out_right;
    power_window(b, n, count, tail_cut, &lo, &hi, &out_left, &out_right);
    double width = hi - lo + 1.0;
    size_t N = 1;
    while ((double)N < width && N <= max_fft) N <<= 1;
    if ((double)N < width || N > max_fft) { free(b); return DPA_EACCURACY; }
    double t = (double)count, b1 = 0.0;
    for (size_t j = 0; j < n; j++) b1 += b[j];
    b1 *= 1.0 + (double)n * U;
    double gamma = 20.0 * U * log2((double)(N > 2 ? N : 2)), rootn = sqrt((double)N);
    double eta = gamma * b1;                          /* per coefficient, see power_rounding */
    double rho = a->pad / total;                      /* the input's own error, relative */
    double rho2 = a->pad2 / total;
    fftw_plan r2c, c2r;
    int st = fft_prepare(cache, N, 1, &r2c, &c2r);
    if (st) { free(b); return st; }
    double *x = cache->work[0].re;
    fftw_complex *fx = cache->work[0].spec;
    memset(x, 0, N * sizeof *x);
    for (size_t j0 = 0; j0 < n; j0 += N) {             /* wrapped onto N points, without a division each */
        size_t m = n - j0 < N ? n - j0 : N;
        for (size_t j = 0; j < m; j++) x[j] += b[j0 + j];
    }
    free(b);
    fftw_execute_dft_r2c(r2c, x, fx);
    double errs, errs_input, pow2;
    power_rounding(fx, N, count, eta, rho, &errs, &errs_input, &pow2);   /* the powers, in place, and their bounds */
    double round2 = (gamma * pow2 + errs) / rootn * (1.0 + 4.0 * U);
    double round2_input = (gamma * pow2 + errs_input) / rootn * (1.0 + 4.0 * U);
    /* l1 <= sqrt(N) l2 over the N entries; the aliased and truncated tails
     * and the normalisation's rounding by their l1 norms (l2 <= l1); the
     * input's error through the telescoping sum
     * (b + e)^{*t} - b^{*t} = sum_k (b + e)^{*k} * e * b^{*(t-1-k)}, each
     * term's l1 (l2) norm <= ||e||_1 (||e||_2) (1 + rho)^{t-1} by Young's
     * inequality. */
    double carried = exp((t - 1.0) * log1p(rho));
    /* b_j = mass_j / total rounds each entry by half an ulp, and wrapping
     * n > N entries onto N adds one rounding per sum: l1 at most
     * U (1 + n / N) |b|_1 / 2 (it was charged 4 n U) */
    double prep = 2.0 * U * b1 * (1.0 + (double)n / (double)N);
    double pad = rootn * fmin(round2 + t * rho * carried / rootn, round2_input) + 2.0 * (out_left + out_right) +
                 prep;
    double pad2 = fmin(round2 + t * rho2 * carried, round2_input) + 2.0 * (out_left + out_right) + prep;
    /* the pad's effect on delta is bounded by the smaller of the two norms (pad_effect) */
    double effective = fmin(pad, pad2 * pld_grid_weight_l2(a->theta, a->h));
    if (!(effective <= 1e-3)) return DPA_EACCURACY;
    st = pld_grid_alloc(out, a->h, 0, (size_t)width);
    if (!st) {
        fftw_execute_dft_c2r(c2r, fx, x);                  /* destroys fx */
        /* entry i of the window is the index sum lo + i, found at (lo + i) mod N */
        size_t at = (size_t)fmod(lo, (double)N);
        const double inv = 1.0 / (double)N;                /* exact: N is a power of two */
        for (size_t i = 0; i < out->n; i++) {
            double c = x[at] * inv;
            out->mass[i] = c > 0.0 ? c : 0.0;
            if (++at == N) at = 0;
        }
        out->first = (int64_t)count * a->first + (int64_t)lo;
        out->theta = a->theta;
        out->log_scale = t * (a->log_scale + log(total));
        out->pad = pad * (1.0 + 1e-6);
        out->pad2 = pad2 * (1.0 + 1e-6);
        /* +inf: |A|^T - F^T with F the finite mass, = F^T expm1(T log1p(inf/F)) */
        double f = a->finite, ia = a->inf_mass;
        double fin = exp(t * log(f));
        double inf = ia > 0.0 ? fin * expm1(t * log1p(ia / f)) : 0.0;
        if (!(f > 0.0)) inf = ia > 0.0 ? exp(t * log(ia)) : 0.0;
        out->inf_mass = side == PLD_UPPER ? fmin(1.0, inf * (1.0 + 1e-10)) : inf * (1.0 - 1e-10);
        out->finite = side == PLD_UPPER ? fin * (1.0 + 1e-10) : fin * (1.0 - 1e-10);
        double budget = fmax(tail_cut * norm1(out), 0.0);
        trim(out, side, budget);
        normalise(out);
    }
    return st;
}

/* The count-fold composition with the transforms' plans and arrays from
 * cache (not NULL). */
static int self_compose(const pld_grid *a, uint64_t count, pld_side side, double tail_cut,
                        size_t max_fft, pld_fft_cache *cache, pld_grid *out)
{
    if (count > 1) {
        int st = power_compose(a, count, side, tail_cut, max_fft, cache, out);
        if (st != DPA_EACCURACY) return st;
    }
    pld_grid base, acc, tmp;
    int have_acc = 0, st = pld_grid_copy(a, &base);
    while (!st && count) {
        if (count & 1) {
            if (have_acc) {
                st = pld_grid_compose(&acc, &base, side, tail_cut, max_fft, cache, &tmp);
                if (!st) { pld_grid_free(&acc); acc = tmp; }
            } else {
                st = pld_grid_copy(&base, &acc);
                have_acc = !st;
            }
        }
        count >>= 1;
        if (!st && count) {
            st = pld_grid_compose(&base, &base, side, tail_cut, max_fft, cache, &tmp);
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

int pld_grid_self_compose(const pld_grid *a, uint64_t count, pld_side side, double tail_cut,
                          size_t max_fft, pld_fft_cache *cache, pld_grid *out)
{
    if (count == 0) return DPA_EINVAL;
    pld_fft_cache local = { 0 };                                 /* NULL: plans for this call */
    int st = self_compose(a, count, side, tail_cut, max_fft, cache ? cache : &local, out);
    if (!cache) fft_cache_clear(&local);
    return st;
}

/* ---- coarsening: a composed grid onto a coarser lattice -------------------- */

/* What the coarse discretisations read from a composed grid: its profile
 * bound towards the side (pad and rounding included), and for the lower
 * side the Q-survival of its masses and the pad's share of chord errors. */
typedef struct {
    const pld_profile_table *t;
    const double *qsuf;   /* qsuf[i] = sum_{j >= i} Q-mass of node j, each <= 1 */
    double extra;         /* (e^{h2} - 1)/4 pad e^{log_scale} (1 + 1e-6): times e^{-theta (l - h2)} */
    double h2;
} coarse_ctx;

static double coarse_lower(double eps, void *vc)
{
    const coarse_ctx *c = vc;
    const pld_grid *g = c->t->g;
    double v = pld_profile_table_delta(c->t, eps, PLD_LOWER);
    if (c->extra > 0.0 && isfinite(eps)) v -= c->extra * exp(-g->theta * (eps - c->h2));
    return v > 0.0 ? log(v) : -INFINITY;
}

static double coarse_q_survival(double eps, void *vc)
{
    const coarse_ctx *c = vc;
    const pld_grid *g = c->t->g;
    /* the first node with loss > eps */
    double x = floor(eps / g->h - (double)g->first);
    size_t i = !(x >= 0.0) ? 0 : x >= (double)g->n ? g->n : (size_t)x;
    while (i > 0 && loss_at(g, i - 1) > eps) i--;
    while (i < g->n && loss_at(g, i) <= eps) i++;
    return i < g->n && c->qsuf[i] > 0.0 ? log(c->qsuf[i]) : -INFINITY;
}

/* Connect-the-dots of a lattice measure onto the coarse nodes, as a linear
 * map of its (tilted) masses: a P-mass at l = a + d between coarse nodes a
 * and b = a + H (0 < d < H) is the atom of the likelihood ratio x = e^l,
 * whose Q-mass CTD splits between e^a and e^b in the proportions that keep
 * its mean (the chord over [e^a, e^b] of its profile), i.e. P-masses
 *   w_a = expm1(H - d) / expm1(H),   w_b = e^{H - d} expm1(d) / expm1(H),
 * w_a + w_b = 1; tilted, they are multiplied by e^{-theta d} and
 * e^{theta (H - d)}.  The image of the exact measure is a valid upper grid
 * (its profile interpolates the measure's at the nodes and is linear in
 * between, above the convex profile; the total is kept), so the computed
 * image carries the input's error through the map: its l1 norm at most
 * e^{theta H} times (each column sums to w_a e^{-theta d} + w_b e^{theta (H
 * - d)} <= e^{theta H}), its l2 norm at most sqrt(2^(s+1)) e^{theta H}
 * times (||M||_2 <= sqrt(||M||_1 ||M||_inf), a row gathers at most 2^(s+1)
 * columns), plus the map's own rounding (a product and a sum per term:
 * 4 ulps of the image's l1 norm). */
static int coarsen_upper(const pld_grid *fine, int shift, pld_grid *out)
{
    size_t r = (size_t)1 << shift;
    double H = ldexp(fine->h, shift), theta = fine->theta, eH = expm1(H);
    int64_t k0 = (int64_t)floor((double)fine->first / (double)r);
    int64_t last = fine->first + (int64_t)fine->n - 1;
    int64_t k1 = (int64_t)floor((double)last / (double)r) + 1;
    /* floor division in integers (the doubles above only seed it) */
    while (k0 * (int64_t)r > fine->first) k0--;
    while ((k0 + 1) * (int64_t)r <= fine->first) k0++;
    double *wa = malloc(r * sizeof *wa), *wb = malloc(r * sizeof *wb);
    int st = wa && wb ? pld_grid_alloc(out, H, k0, (size_t)(k1 - k0 + 1)) : DPA_ENOMEM;
    if (st) { free(wa); free(wb); return st; }
    for (size_t j = 0; j < r; j++) {
        double d = (double)j * fine->h;
        wa[j] = j ? expm1(H - d) / eH * exp(-theta * d) : 1.0;
        wb[j] = j ? exp(H - d) * expm1(d) / eH * exp(theta * (H - d)) : 0.0;
    }
    for (size_t i = 0; i < fine->n; i++) {
        int64_t idx = fine->first + (int64_t)i;
        int64_t k = idx >= 0 ? idx / (int64_t)r : -((-idx + (int64_t)r - 1) / (int64_t)r);
        size_t j = (size_t)(idx - k * (int64_t)r), at = (size_t)(k - k0);
        double m = fine->mass[i];
        out->mass[at] += m * wa[j];
        if (j) out->mass[at + 1] += m * wb[j];
    }
    free(wa);
    free(wb);
    double grow = exp(theta * H) * (1.0 + 8.0 * U);
    double image = norm1(out);
    out->theta = theta;
    out->log_scale = fine->log_scale;
    out->inf_mass = fine->inf_mass;
    out->finite = fine->finite * (1.0 + 8.0 * U);
    out->pad = (fine->pad * grow + 8.0 * U * image) * (1.0 + 1e-9);
    out->pad2 = (fine->pad2 * grow * sqrt(2.0 * (double)r) + 8.0 * U * image) * (1.0 + 1e-9);
    return DPA_OK;
}

int pld_grid_coarsen(const pld_grid *fine, pld_side side, int shift, pld_grid *out)
{
    if (shift < 1 || shift > 30 || fine->n == 0 || !(fine->theta >= 0.0)) return DPA_EINVAL;
    if (side == PLD_UPPER) return coarsen_upper(fine, shift, out);
    double h2 = ldexp(fine->h, shift);            /* exact: coarse nodes are fine nodes */
    pld_profile_table t;
    int st = pld_profile_table_init(&t, fine);
    if (st) return st;
    coarse_ctx c = { &t, NULL, 0.0, h2 };
    double lo = loss_at(fine, 0), hi = loss_at(fine, fine->n - 1);
    int64_t k0 = (int64_t)floor(lo / h2) - 1, k1 = (int64_t)ceil(hi / h2) + 1;
    double *qsuf = malloc((fine->n + 1) * sizeof *qsuf);
    if (!qsuf) { pld_profile_table_free(&t); return DPA_ENOMEM; }
    /* Q-mass of node j: m_j e^{-l_j} = mass_j e^{log_scale - (theta + 1) l_j}.
     * The exact lattice's Q-masses total at most 1 (each single-step lower
     * grid's first slope is >= -1, and composition multiplies the totals),
     * so each term is clamped at 1 -- rounding far out in a steep tilt can
     * be huge there -- and the sums are rounded up. */
    double acc = 0.0;
    qsuf[fine->n] = 0.0;
    for (size_t j = fine->n; j-- > 0;) {
        double m = fine->mass[j];
        double q = m > 0.0 ? exp(fmin(0.0, log(m) + fine->log_scale - (fine->theta + 1.0) * loss_at(fine, j))) : 0.0;
        acc += q * (1.0 + 4.0 * U);
        qsuf[j] = acc * (1.0 + (double)(fine->n - j) * U);
    }
    /* The computed masses differ from the exact ones by e (||e||_1 <= pad,
     * tilted and scaled); in an interval starting at a, e's Q-mass is at
     * most pad e^{log_scale - (theta + 1) a}, which raises the chord error
     * alpha_a (e^{h2} - 1) Qmass / 4 by at most (e^{h2} - 1)/4 pad
     * e^{log_scale - theta a}: every node is lowered by that for its left
     * interval (a = l - h2, the larger), beside the pad's own effect on
     * the node's value (pld_profile_table_delta). */
    c.qsuf = qsuf;
    c.extra = fine->pad > 0.0 ? expm1(h2) / 4.0 * fine->pad * exp(fine->log_scale) * (1.0 + 1e-6) : 0.0;
    if (!isfinite(c.extra)) st = DPA_EACCURACY;
    else st = pld_grid_lower_dots(out, coarse_lower, coarse_q_survival, &c, h2, k0, k1, 1);
    free(qsuf);
    pld_profile_table_free(&t);
    if (!st) {
        st = pld_grid_tilt(out, fine->theta, PLD_LOWER);
        if (st) pld_grid_free(out);
    }
    return st;
}

/* ---- profile queries ------------------------------------------------------ */

/* An upper bound on ||w||_2 over the lattice nodes l > eps, for the weight
 * w(l) = e^{-theta x} (1 - e^{-x}), x = l - eps > 0, with which
 * pld_grid_delta weighs a tilted mass at l.  f(x) = w^2 rises from 0 to
 * its maximum at e^{-x*} = theta / (1 + theta) and then falls, so over
 * the nodes x_0 + j h (any x_0 > 0)
 *   sum_j f(x_0 + j h) <= (1/h) int_0^inf f + max f,
 * with int_0^inf e^{-2 theta x} (1 - e^{-x})^2 dx
 *   = 1/(2 theta) - 2/(2 theta + 1) + 1/(2 theta + 2)
 *   = 1 / (2 theta (2 theta + 1)(theta + 1))
 * and max f <= 1/(1 + theta)^2.  +inf for theta = 0 (then only the l1
 * bound, with sup w <= 1, applies). */
double pld_grid_weight_l2(double theta, double h)
{
    if (!(theta > 0.0) || !(h > 0.0)) return INFINITY;
    double integral = 1.0 / (2.0 * theta * (2.0 * theta + 1.0) * (theta + 1.0));
    double top = 1.0 / ((1.0 + theta) * (1.0 + theta));
    return sqrt((integral / h + top) * (1.0 + 16.0 * U)) * (1.0 + 4.0 * U);
}

/* The effect of the pad on delta at eps: e^{log_scale - theta eps} times
 * the smaller of pad (sup w <= 1) and pad2 ||w||_2 (Cauchy-Schwarz). */
static double pad_effect(const pld_grid *g, double epsilon)
{
    if (isnan(g->pad)) return INFINITY;        /* an error bound lost (0 inf): the widest answer */
    double bound = fmin(g->pad, g->pad2 * pld_grid_weight_l2(g->theta, g->h));
    if (!(bound > 0.0)) return 0.0;
    return exp(g->log_scale - g->theta * epsilon + log(bound));
}

static double widen(const pld_grid *g, double inf, double finite, double epsilon, pld_side side)
{
    double kappa = recurrence_relerr(g->n);
    if (side == PLD_UPPER)
        return fmin(1.0, (inf + finite * (1.0 + kappa)) * (1.0 + 4.0 * U) + pad_effect(g, epsilon));
    return fmax(0.0, (inf + finite * (1.0 - kappa)) * (1.0 - 4.0 * U) - pad_effect(g, epsilon));
}

double pld_grid_delta(const pld_grid *g, double epsilon)
{
    /* delta = inf + e^{log_scale - theta eps} sum mass_i e^{-theta (l_i - eps)} (1 - e^{eps - l_i}) */
    dpa_sum s = { 0 };
    for (size_t i = g->n; i-- > 0;) {
        double l = loss_at(g, i);
        if (l <= epsilon) break;                 /* masses are in increasing loss */
        dpa_sum_add(&s, g->mass[i] * exp(-g->theta * (l - epsilon)) * -expm1(epsilon - l));
    }
    double sum = dpa_sum_value(&s);
    double finite = isnan(sum) ? NAN : sum > 0.0 ? exp(g->log_scale - g->theta * epsilon + log(sum)) : 0.0;
    return g->inf_mass + finite;
}

double pld_grid_delta_bound(const pld_grid *g, double epsilon, pld_side side)
{
    return widen(g, g->inf_mass, pld_grid_delta(g, epsilon) - g->inf_mass, epsilon, side);
}

int pld_profile_table_init(pld_profile_table *t, const pld_grid *g)
{
    t->g = g;
    t->tail = malloc((g->n ? g->n : 1) * sizeof *t->tail);
    t->node = malloc((g->n ? g->n : 1) * sizeof *t->node);
    if (!t->tail || !t->node) { pld_profile_table_free(t); return DPA_ENOMEM; }
    /* Scaled at node j by e^{theta l_j - log_scale}:
     *   tail_j = sum_{i>j} mass_i e^{-theta (l_i - l_j)}
     *          = e^{-theta h} (mass_{j+1} + tail_{j+1}),
     *   node_j = sum_{i>j} mass_i e^{-theta (l_i - l_j)} (1 - e^{l_j - l_i})
     *          = (1 - e^{-h}) tail_j + e^{-h} e^{-theta h} node_{j+1},
     * positive terms only. */
    double down = exp(-g->theta * g->h), a = -expm1(-g->h), b = exp(-g->h) * down;
    double tail = 0.0, node = 0.0;
    for (size_t j = g->n; j-- > 0;) {
        t->tail[j] = tail;
        t->node[j] = node;
        tail = down * (g->mass[j] + tail);
        node = a * tail + b * node;
    }
    return DPA_OK;
}

void pld_profile_table_free(pld_profile_table *t)
{
    free(t->tail);
    free(t->node);
    t->tail = t->node = NULL;
}

/* The finite part of delta(eps) (untilted), O(1): for eps in [l_{j-1}, l_j)
 * with t = eps - l_j < 0,
 *   sum_{i>=j} m_i (1 - e^{eps - l_i}) = (1 - e^t) S_j + e^t D_j,
 * S_j = sum_{i>=j} m_i, D_j = delta(l_j) - inf, both from the table. */
static double table_finite(const pld_profile_table *t, double epsilon)
{
    const pld_grid *g = t->g;
    if (g->n == 0) return 0.0;
    double pos = ceil(epsilon / g->h - (double)g->first);
    if (!(pos < (double)g->n)) return 0.0;      /* at or beyond the last node */
    size_t j = pos > 0.0 ? (size_t)pos : 0;
    double lj = loss_at(g, j);
    if (lj == epsilon) {                       /* at a node: its own mass does not count */
        if (j + 1 >= g->n) return 0.0;
        return exp(g->log_scale - g->theta * lj) * t->node[j];
    }
    double tt = epsilon - lj;                  /* < 0 */
    double s = g->mass[j] + t->tail[j];
    double v = -expm1(tt) * s + exp(tt) * t->node[j];
    /* NaN (sums that overflowed under an extreme tilt) is no zero: widen
     * turns it into the side's widest value (1 above, 0 below) */
    if (isnan(v)) return NAN;
    if (!(v > 0.0)) return 0.0;
    return exp(g->log_scale - g->theta * lj + log(v));
}

double pld_profile_table_delta(const pld_profile_table *t, double epsilon, pld_side side)
{
    return widen(t->g, t->g->inf_mass, table_finite(t, epsilon), epsilon, side);
}

/* Upper: the bound is decreasing in eps, so the smallest eps where it is
 * <= delta is found by a binary search over the nodes and bisection between
 * two.  Lower: delta_low - pad e^{-theta eps} need not be monotone (the pad
 * term grows without bound as eps falls when theta is large), but the true
 * eps exceeds every eps' with delta_low(eps') > delta (the true profile is
 * decreasing and above delta_low).  Such an eps' is searched downwards from
 * `hint` (an upper bound on the true eps) in doubling steps, then refined
 * by bisection, which keeps delta_low(lo) > delta. */
double pld_profile_table_epsilon(const pld_profile_table *t, double delta, pld_side side, double hint)
{
    const pld_grid *g = t->g;
    double last = g->n ? fmax(0.0, loss_at(g, g->n - 1)) : 0.0;
    if (side == PLD_LOWER) {
        if (pld_profile_table_delta(t, INFINITY, side) > delta) return INFINITY;
        double bad = isfinite(hint) ? fmax(0.0, hint) : last, good = -1.0;
        if (pld_profile_table_delta(t, bad, side) > delta) return bad;
        for (double step = fmax(g->h, 4.0 * U * bad); bad > 0.0; step *= 2.0) {
            double x = fmax(0.0, bad - step);
            if (pld_profile_table_delta(t, x, side) > delta) { good = x; break; }
            bad = x;
        }
        if (good < 0.0) return 0.0;
        for (int it = 0; it < 200 && bad - good > 4.0 * U * fmax(1.0, bad); it++) {
            double mid = 0.5 * (good + bad);
            if (pld_profile_table_delta(t, mid, side) > delta) good = mid;
            else bad = mid;
        }
        return good;
    }
    if (pld_profile_table_delta(t, 0.0, side) <= delta) return 0.0;
    double lo = 0.0, hi = last;
    if (pld_profile_table_delta(t, hi, side) > delta) {
        /* beyond the last node only +inf and the pad are left; the pad's
         * effect decays like e^{-theta eps} */
        if (!(g->theta > 0.0) || g->inf_mass * (1.0 + 4.0 * U) >= delta) return INFINITY;
        double step = fmax(1.0, 1.0 / g->theta);
        lo = hi;
        while (pld_profile_table_delta(t, hi, side) > delta) {
            lo = hi;
            hi += step;
            step *= 2.0;
            if (!isfinite(hi)) return INFINITY;
        }
    } else if (g->n) {
        double first_node = fmax(0.0, ceil(-(double)g->first));
        size_t a = (size_t)fmin(first_node, (double)(g->n - 1)), b = g->n - 1;
        if (pld_profile_table_delta(t, loss_at(g, a), side) <= delta) b = a;
        while (b > a + 1) {
            size_t mid = a + (b - a) / 2;
            if (pld_profile_table_delta(t, loss_at(g, mid), side) <= delta) b = mid;
            else a = mid;
        }
        hi = loss_at(g, b);
        lo = fmax(0.0, b > 0 ? loss_at(g, b - 1) : 0.0);
        if (lo >= hi) lo = 0.0;
    }
    for (int it = 0; it < 200 && hi - lo > 4.0 * U * fmax(1.0, hi); it++) {
        double mid = 0.5 * (lo + hi);
        if (pld_profile_table_delta(t, mid, side) <= delta) hi = mid;
        else lo = mid;
    }
    return hi;
}
