/*
 * pld_allocation.c - one epoch of random allocation with Gaussian noise in
 * the PLD accountant: T steps, each record used in one of them chosen
 * uniformly (balls-in-bins batches; Feldman & Shenfeld, "Privacy
 * amplification by random allocation", 2025, arXiv:2502.08202), add/remove
 * neighbours.
 *
 * The pair.  Poisson sampling at q = 1/T over the T steps gives, in the 1-d
 * worst case, M = E_S N(1_S, s^2 I) (S the random set of steps using the
 * record) against Q = N(0, s^2 I): the T-fold composition of the Poisson
 * pair, which the accountant already composes.  With lambda = P(S != {}) =
 * 1 - (1 - 1/T)^T,
 *   M = (1 - lambda) Q + lambda P1,   P1 = M conditioned on S != {}.
 * Feldman & Shenfeld's decomposition bound states that random allocation
 * (one uniform step) is dominated by the pair (P1, Q) in the remove world
 * and by (Q, P1) in the add world; their code computes exactly these two
 * profiles from the Poisson PLD (the "decomposition" method).  We compose
 * those pairs over the epochs; where the decomposition is loose the
 * accountant's bound is too, and the pair is marked as one the mechanism
 * need not attain (the pld lower bound is the pair's, DPA_PAIR_LOWER).
 *
 * The profiles.  Write alpha = e^eps.  Remove world, from P1 = (M - (1 -
 * lambda) Q) / lambda (Balle, Barthe & Gaboardi 2018, "advanced joint
 * convexity", as an identity):
 *   delta_P1(eps) = E_Q[(P1/Q - alpha)_+] = delta_M(eps') / lambda,
 *   e^eps' = 1 - lambda + lambda alpha.                                   (R)
 * Add world: E_P1[(Q/P1 - alpha)_+] = (1/lambda) E_Q[(lambda - alpha (M/Q -
 * (1 - lambda)))_+], and factoring lambda + alpha (1 - lambda) out,
 *   delta_A(eps) = ((lambda + alpha (1 - lambda)) / lambda) delta_M'(eps'),
 *   eps' = eps - log(lambda + (1 - lambda) alpha),                        (A)
 * delta_M' the profile of (Q, M), the add world's T-fold composition.
 * Feldman & Shenfeld state the same two formulas.
 *
 * Bounds.  delta_M and delta_M' are bracketed by the nested grids (pld.c:
 * the Poisson pair's upper and lower lattices composed T times, tilted;
 * the upper once more at a steeper tilt, the smaller upper value kept):
 * the upper grid's profile (FFT pad included) lies above the composition's
 * and the lower grid's below, at every eps', so (R) and (A) evaluated on
 * them bracket delta_P1 and delta_A at every eps, lambda rounded against
 * each side and eps' taken at the end of its rounding interval that
 * raises (upper) or lowers (lower) the value (the profiles decrease in
 * eps').
 *
 * The lower discretisation (pld_grid_lower_dots) also needs, for its chord
 * errors, the slope jumps of the function it discretises between nodes.
 * On a lattice measure with P-masses m_j at losses l_j, (R) is
 *   F(alpha) = (1/lambda) sum_j m_j (1 - (1 - lambda + lambda alpha) e^{-l_j})_+,
 * convex and piecewise linear in alpha, with a kink where
 * 1 - lambda + lambda alpha = e^{l_j}, i.e. where eps' = l_j, of slope jump
 * m_j e^{-l_j}: the lattice's Q-mass.  So the jumps in (a, b) total the
 * lattice's Q-mass at losses in (a', b'), a' and b' the images: the lower
 * lattice's Q-survival at eps'(eps) is the pair's.  (A) on a lattice
 * (P-masses m_j of (Q, M), so m_j e^{-l_j} are M-masses) is
 *   F(alpha) = (1/lambda) sum_j m_j (lambda - alpha c_j)_+,  c_j = e^{-l_j} - (1 - lambda),
 * convex (terms with c_j <= 0 are linear), with kinks at alpha = lambda /
 * c_j, i.e. again where eps' = l_j, of jump m_j c_j / lambda <= m_j e^{-l_j}
 * / lambda: the M-survival over lambda bounds the jumps.  The stored masses
 * differ from the exact lattice's by the FFT's rounding, of l1 norm at most
 * pad in the tilted frame; its Q-masses (M-masses) at losses above a' total
 * at most pad e^{log_scale - (theta + 1) a'}, which can raise a chord error
 * over [a, b] by (b - a)/4 times that (over lambda in the add world): the
 * nodes are lowered by it (pld_allocation_node_values), as pld_grid.c's
 * coarsening does for the same reason.
 */
#include "internal.h"
#include "numerics.h"
#include "pld_allocation.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#define U DBL_EPSILON
#define NEGLIGIBLE 1e-40   /* mass left outside the loss range */

void pld_allocation_lambda(uint64_t steps, double *lo, double *hi)
{
    if (steps <= 1) {
        *lo = *hi = 1.0;
        return;
    }
    /* log1p, the product and expm1 each within an ulp or two of a value of
     * order one: a few ulps in all, padded by far more */
    double lambda = -expm1((double)steps * log1p(-1.0 / (double)steps));
    *lo = lambda * (1.0 - 1e-14);
    *hi = fmin(1.0, lambda * (1.0 + 1e-14));
}

/* eps' of (R): log(1 - lambda + lambda e^eps). */
static double remove_map(double lambda, double eps)
{
    if (eps == -INFINITY) return log1p(-lambda);
    if (eps > 30.0) return eps + log(lambda + (1.0 - lambda) * exp(-eps));
    return log1p(lambda * expm1(eps));
}

/* eps' of (A): eps - log(lambda + (1 - lambda) e^eps). */
static double add_map(double lambda, double eps)
{
    if (eps >= 0.0) return -log1p(lambda * expm1(-eps));   /* +inf: -log(1 - lambda) */
    return eps - log1p((1.0 - lambda) * expm1(eps));
}

static double eps_map(const pld_nested *n, double lambda, double eps)
{
    return n->add ? add_map(lambda, eps) : remove_map(lambda, eps);
}

/* The interval of eps' over lambda in its bracket, widened by the maps'
 * rounding (a few ulps of the magnitudes involved). */
static void eps_range(const pld_nested *n, double eps, double *e_min, double *e_max)
{
    double a = eps_map(n, n->lambda_lo, eps), b = eps_map(n, n->lambda_hi, eps);
    double lo = fmin(a, b), hi = fmax(a, b);
    double margin = 8.0 * U * (1.0 + fabs(isfinite(eps) ? eps : 0.0) + fabs(isfinite(hi) ? hi : 0.0));
    *e_min = lo - margin;
    *e_max = hi + margin;
}

/* log((lambda + (1 - lambda) e^eps) / lambda) = log1p(r e^eps), r = (1 - lambda)/lambda. */
static double add_log_factor(double lambda, double eps)
{
    double r = (1.0 - lambda) / lambda;
    if (!(r > 0.0)) return 0.0;
    double x = log(r) + eps;
    return x > 30.0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

/* The bracket [*lo, *up] of the allocation pair's delta at eps. */
static void delta_bracket(const pld_nested *n, double eps, double *lo, double *up)
{
    if (eps == INFINITY) {   /* neither pair has a mass at loss +inf */
        *lo = *up = 0.0;
        return;
    }
    double e_min, e_max;
    eps_range(n, eps, &e_min, &e_max);
    double u = pld_profile_table_delta(&n->table[PLD_UPPER], e_min, PLD_UPPER);
    if (n->n_steep) u = fmin(u, pld_profile_table_delta(&n->steep_table, e_min, PLD_UPPER));
    double l = pld_profile_table_delta(&n->table[PLD_LOWER], e_max, PLD_LOWER);
    if (!n->add) {
        u = u / n->lambda_lo * (1.0 + 4.0 * U);
        l = l / n->lambda_hi * (1.0 - 4.0 * U);
    } else {
        double fu = add_log_factor(n->lambda_lo, eps), fl = add_log_factor(n->lambda_hi, eps);
        u = u > 0.0 ? exp(log(u) + fu + 8.0 * U * (1.0 + fabs(fu))) : 0.0;
        l = l > 0.0 ? exp(log(l) + fl - 8.0 * U * (1.0 + fabs(fl))) * (1.0 - 4.0 * U) : 0.0;
    }
    /* q = 1/T and lambda reach here rounded: the composition and (R), (A)
     * move by a few ulps relative, covered by far more */
    u *= 1.0 + 1e-12;
    l *= 1.0 - 1e-12;
    /* a profile never exceeds 1, nor (at eps < 0) falls below 1 - e^eps:
     * clamping to what every pair satisfies keeps the bracket valid */
    *up = fmin(1.0, u);
    *lo = fmin(*up, fmax(l, eps < 0.0 ? -expm1(eps) * (1.0 - 4.0 * U) : 0.0));
}

/* log of the middle of [lo, up] and the relative error reaching both ends. */
static double middle(double lo, double up, double *relerr)
{
    if (!(up > 0.0)) {
        *relerr = 1e-13;
        return -INFINITY;
    }
    if (!(lo > 0.0)) lo = 0.0;
    double mid = 0.5 * (lo + up);
    *relerr = fmin(1.0, (up - mid) / mid * (1.0 + 1e-9) + 4.0 * U);
    return log(mid);
}

double pld_allocation_log_delta_relerr(const pld_profile *p, double epsilon, double *relerr)
{
    if (!p->nested || isnan(epsilon)) {
        *relerr = NAN;
        return NAN;
    }
    double lo, up;
    delta_bracket(p->nested, epsilon, &lo, &up);
    return middle(lo, up, relerr);
}

static double loss_of(const pld_grid *g, size_t i) { return (double)(g->first + (int64_t)i) * g->h; }

/* The first node of the lower lattice with loss > x (strict) or >= x. */
static size_t first_above(const pld_grid *g, double x, int strict)
{
    double f = floor(x / g->h - (double)g->first);
    size_t i = !(f >= 0.0) ? 0 : f >= (double)g->n ? g->n : (size_t)f;
    while (i > 0 && (strict ? loss_of(g, i - 1) > x : loss_of(g, i - 1) >= x)) i--;
    while (i < g->n && (strict ? loss_of(g, i) <= x : loss_of(g, i) < x)) i++;
    return i;
}

/* log of the slope bound at eps (see the header comment): the lower
 * lattice's second-distribution mass above eps' (over lambda in the add
 * world). */
static double log_survival(const pld_nested *n, double eps, int strict)
{
    if (eps == INFINITY) return -INFINITY;
    double lambda = 0.5 * (n->lambda_lo + n->lambda_hi);
    size_t i = first_above(&n->grid[PLD_LOWER], eps_map(n, lambda, eps), strict);
    double s = n->qsuf[i];
    if (!(s > 0.0)) return -INFINITY;
    return n->add ? fmin(0.0, log(s) - log(n->lambda_lo)) : fmin(0.0, log(s));
}

double pld_allocation_log_q_survival(const pld_profile *p, double epsilon)
{
    if (!p->nested || isnan(epsilon)) return NAN;
    return log_survival(p->nested, epsilon, 1);
}

void pld_allocation_loss_range(const pld_profile *p, double *lo, double *hi)
{
    if (!p->nested) {
        *lo = -1.0;
        *hi = 1.0;
        return;
    }
    *lo = p->nested->lo;
    *hi = p->nested->hi;
}

int pld_allocation_node_values(const pld_profile *p, double h, int64_t k0, size_t n, double *ld, double *re,
                               double *lq_gt, double *lq_ge)
{
    const pld_nested *nn = p->nested;
    if (!nn || !(h > 0.0)) return DPA_EINVAL;
    const pld_grid *g = &nn->grid[PLD_LOWER];
    /* log of what the FFT's rounding can add to the chord error of the
     * interval starting at a (header comment), without the a-terms */
    double base = g->pad > 0.0 ? log(g->pad) + g->log_scale + log(expm1(h) / 4.0) + log1p(1e-6) : -INFINITY;
    if (nn->add) base -= log(nn->lambda_lo);
    double prev_extra = 0.0;
    for (size_t i = 0; i < n; i++) {
        double eps = (double)(k0 + (int64_t)i) * h, lo, up;
        delta_bracket(nn, eps, &lo, &up);
        /* the rounding's share of this node's right interval [eps, eps + h] */
        double e_min, e_max;
        eps_range(nn, eps, &e_min, &e_max);
        double extra = base == -INFINITY ? 0.0 : exp(base + eps - (g->theta + 1.0) * e_min);
        if (!isfinite(extra)) extra = INFINITY;
        lo -= fmax(extra, prev_extra);   /* a node closes its left interval and opens its right one */
        prev_extra = extra;
        ld[i] = middle(lo, up, &re[i]);
        lq_gt[i] = log_survival(nn, eps, 1);
        lq_ge[i] = log_survival(nn, eps, 0);
    }
    return DPA_OK;
}

/* The allocation pair's loss as a function of the nested lattice's loss
 * l: remove, log((e^l - (1 - lambda))/lambda); add (l a loss of (Q, M)),
 * -log((e^-l - (1 - lambda))/lambda).  NaN where the argument is <= 0. */
static double pair_loss(const pld_nested *n, double lambda, double l)
{
    double x = n->add ? expm1(-l) + lambda : expm1(l) + lambda;
    if (!(x > 0.0)) return NAN;
    return n->add ? log(lambda) - log(x) : log(x) - log(lambda);
}

/* The untilted mass of node i. */
static double plain_mass(const pld_grid *g, size_t i)
{
    double m = g->mass[i];
    return m > 0.0 ? exp(log(m) + g->log_scale - g->theta * loss_of(g, i)) : 0.0;
}

int pld_nested_finish(pld_nested *n)
{
    n->qsuf = NULL;
    int st = DPA_OK;
    for (int side = 0; side < 2 && !st; side++) st = pld_profile_table_init(&n->table[side], &n->grid[side]);
    if (!st && n->n_steep) st = pld_profile_table_init(&n->steep_table, &n->steep);
    if (st) return st;
    const pld_grid *g = &n->grid[PLD_LOWER];
    n->qsuf = malloc((g->n + 1) * sizeof *n->qsuf);
    if (!n->qsuf) return DPA_ENOMEM;
    /* second-distribution mass of node j: m_j e^{-l_j}, clamped at 1 (the
     * exact lattice's total at most 1; pld_grid_coarsen), summed upwards
     * with the sums rounded up */
    double acc = 0.0;
    n->qsuf[g->n] = 0.0;
    for (size_t j = g->n; j-- > 0;) {
        double m = g->mass[j];
        double q = m > 0.0 ? exp(fmin(0.0, log(m) + g->log_scale - (g->theta + 1.0) * loss_of(g, j))) : 0.0;
        acc += q * (1.0 + 4.0 * U);
        n->qsuf[j] = acc * (1.0 + (double)(g->n - j) * U);
    }
    /* The loss range: the pair's losses of the nodes that hold more than
     * NEGLIGIBLE of the pair's first distribution (P1 in the remove world,
     * whose mass at l is m e^{-l} (e^l - (1 - lambda))/lambda; Q in the add
     * world, the lattice's own masses), from either grid, widened by a
     * node. */
    double lambda = 0.5 * (n->lambda_lo + n->lambda_hi), lo = INFINITY, hi = -INFINITY;
    for (int side = 0; side < 2 + n->n_steep; side++) {
        const pld_grid *s = side < 2 ? &n->grid[side] : &n->steep;
        double below = 0.0;
        for (size_t j = 0; j < s->n; j++) {
            double l = loss_of(s, j), m = plain_mass(s, j);
            if (!n->add) m *= fmax(0.0, -expm1(-l) + lambda * exp(-l)) / lambda;
            below += m;
            if (below > NEGLIGIBLE) {
                double x = pair_loss(n, lambda, l);
                if (!isnan(x)) lo = fmin(lo, x - s->h);
                break;
            }
        }
        double above = 0.0;
        for (size_t j = s->n; j-- > 0;) {
            double l = loss_of(s, j), m = plain_mass(s, j);
            if (!n->add) m *= fmax(0.0, -expm1(-l) + lambda * exp(-l)) / lambda;
            above += m;
            double x = pair_loss(n, lambda, l);
            if (above > NEGLIGIBLE && !isnan(x)) {
                hi = fmax(hi, x + s->h);
                break;
            }
        }
    }
    if (!(lo < hi) || !isfinite(lo) || !isfinite(hi)) return DPA_EACCURACY;
    n->lo = lo;
    n->hi = hi;
    return DPA_OK;
}

void pld_nested_free(pld_nested *n)
{
    if (!n) return;
    for (int side = 0; side < 2; side++) {
        pld_profile_table_free(&n->table[side]);
        pld_grid_free(&n->grid[side]);
    }
    pld_profile_table_free(&n->steep_table);
    pld_grid_free(&n->steep);
    free(n->qsuf);
    n->qsuf = NULL;
}
