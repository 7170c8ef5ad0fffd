/*
 * pld_grid.h - privacy loss distributions on a uniform loss grid, the
 * state of the pld accountant (issue 4; see docs/pld-design.md).
 *
 * A grid holds P-masses at the losses (first + i) h, i < n, and the P-mass
 * at loss +inf.  Its profile is
 *   delta(eps) = inf_mass + sum_i mass_i (1 - e^{eps - l_i})_+,
 * a positive linear functional of the masses, so adding mass or moving it to
 * a larger loss can only raise delta (valid for upper bounds) and removing
 * mass or moving it lower can only lower delta (valid for lower bounds),
 * after any number of compositions.
 */
#ifndef DPACCT_PLD_GRID_H
#define DPACCT_PLD_GRID_H

#include <stddef.h>
#include <stdint.h>

/* Which side a grid bounds: rounding and truncation go against it. */
typedef enum { PLD_UPPER, PLD_LOWER } pld_side;

typedef struct pld_grid {
    double h;
    int64_t first;   /* loss index of mass[0] */
    size_t n;
    double *mass;    /* P-mass at loss (first + i) h */
    double inf_mass; /* P-mass at loss +inf */
    double pad;      /* bound on the total variation between the stored masses
                      * and exact arithmetic: delta is widened by it */
} pld_grid;

int pld_grid_alloc(pld_grid *g, double h, int64_t first, size_t n);
void pld_grid_free(pld_grid *g);

/* delta(eps) of the stored masses (compensated sum), and the same widened
 * by the rounding pad towards `side`, within [0, 1]. */
double pld_grid_delta(const pld_grid *g, double epsilon);
double pld_grid_delta_bound(const pld_grid *g, double epsilon, pld_side side);

/* Connect-the-dots (Doroshenko et al. 2022) through (0, 1) and the exact
 * profile at the losses k h, k = k0..k1, given log delta(eps) for any real
 * eps: a lattice pair that dominates the mechanism (an upper bound). */
typedef double (*pld_log_delta_fn)(double epsilon, void *ctx);
int pld_grid_connect_dots(pld_grid *g, pld_log_delta_fn log_delta, void *ctx, double h,
                          int64_t k0, int64_t k1);

/* The drift-free lower discretisation (docs/pld-design.md, after
 * ../shared/notes/pld-bounds.md): node values delta(k h) lowered by the
 * largest chord error of the neighbouring intervals,
 *   e_k = (alpha_{k+1} - alpha_k) Q(l_k < L <= l_{k+1}) / 4,
 * the profile taken as 1 - alpha left of the last node where that lowering
 * crosses the line 1 - alpha (the left tail merged), 0 at k1 (the right tail
 * dropped), then
 * the greatest convex minorant: a lattice pair whose profile lies below the
 * mechanism's everywhere, i.e. a garbling of it (a lower bound after any
 * composition).  log_q_survival gives log Q(L > eps). */
int pld_grid_lower_dots(pld_grid *g, pld_log_delta_fn log_delta, pld_log_delta_fn log_q_survival,
                        void *ctx, double h, int64_t k0, int64_t k1);

/* Round losses down: mass P(l_k <= L < l_{k+1}) at l_k, given the P-survival
 * log P(L > eps); the tails outside [k0 h, k1 h) are dropped.  A lower bound. */
int pld_grid_round_down(pld_grid *g, pld_log_delta_fn log_survival, void *ctx, double h,
                        int64_t k0, int64_t k1);

/* out = a composed with b (convolution of the masses, inf masses combined),
 * with the FFT's rounding bounded and charged against `side`, then tails
 * whose mass is below `tail_cut` trimmed (upper: moved up / to +inf; lower:
 * dropped).  out must not alias a or b. */
int pld_grid_compose(const pld_grid *a, const pld_grid *b, pld_side side, double tail_cut,
                     pld_grid *out);

/* out = count-fold composition of a, by repeated squaring. */
int pld_grid_self_compose(const pld_grid *a, uint64_t count, pld_side side, double tail_cut,
                          pld_grid *out);

#endif
