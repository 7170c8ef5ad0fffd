/*
 * pld_grid.h - privacy loss distributions on a uniform loss grid, the
 * state of the pld accountant (see docs/pld-design.md).
 *
 * A grid is a positive measure on the losses l_i = (first + i) h plus a
 * mass at +inf (the P-masses of a lattice pair).  Its profile
 *   delta(eps) = inf_mass + sum_i m_i (1 - e^{eps - l_i})_+
 * is a positive linear functional of the masses.  Composition is the
 * convolution of the measures, and for any measures A, B
 *   delta_{A*B}(eps) = A(+inf) |B| + sum_l A(l) delta_B(eps - l),
 * symmetric in A and B, increasing in delta_B and in |B| (the total mass,
 * +inf included).  Hence (docs/pld-design.md, "validity"):
 *   an UPPER grid is valid for a mechanism when its profile lies on or above
 *   the mechanism's at every real eps and its total mass is >= 1;
 *   a LOWER grid when its profile lies on or below and its total is <= 1;
 * and compositions of valid grids are valid for the composed mechanism.
 * Adding mass (upper) or removing it (lower) keeps a grid valid, and so
 * does moving mass to a larger loss (upper) or a smaller one (lower).
 *
 * The masses are stored exponentially tilted and scaled,
 *   mass[i] = m_i e^{theta l_i - log_scale},  theta >= 0,
 * which convolve to the tilted composition.  The FFT's rounding error is
 * absolute in this frame (`pad` bounds its l1 norm), so its effect on
 * delta(eps) is at most e^{log_scale - theta eps} pad: relative to the
 * Chernoff bound e^{K(theta) - theta eps} rather than to the total mass,
 * which keeps small deltas resolved (../shared/notes/pld-bounds.md).
 * `pad2` bounds the l2 norm of the same error vector.  delta(eps) weighs
 * the tilted masses by w(l) = e^{-theta (l - eps)} (1 - e^{eps - l}) for
 * l > eps, so by Cauchy-Schwarz the error moves it by at most
 * e^{log_scale - theta eps} pad2 ||w||_2, and ||w||_2 over the lattice
 * is O(1 / sqrt(theta^3 h)): much less than the l1 bound where the FFT's
 * rounding is spread over many points (docs/pld-design.md, "The l2 pad").
 */
#ifndef DPACCT_PLD_GRID_H
#define DPACCT_PLD_GRID_H

#include <stddef.h>
#include <stdint.h>

/* Which side a grid bounds: rounding and truncation go against it. */
typedef enum { PLD_UPPER, PLD_LOWER } pld_side;

typedef struct pld_grid {
    double h;
    int64_t first;    /* loss index of mass[0] */
    size_t n;
    double *mass;     /* m_i e^{theta l_i - log_scale} at loss (first + i) h */
    double theta;     /* tilt, >= 0 */
    double log_scale;
    double inf_mass;  /* untilted mass at loss +inf */
    double finite;    /* untilted mass of the finite losses, bounded towards
                       * the grid's side (upper: from above; lower: below) */
    double pad;       /* bound on the l1 distance between `mass` and the exact
                       * composition, in the same tilted, scaled frame */
    double pad2;      /* bound on the l2 distance between the same (on the
                       * whole lattice: entries trimmed off count too) */
} pld_grid;

/* Profile queries are O(1) after pld_grid_prepare (suffix sums). */
typedef struct pld_profile_table {
    const pld_grid *g;
    double *tail;     /* sum_{i > j} m_i, scaled by e^{theta l_j - log_scale} */
    double *node;     /* delta(l_j) - inf_mass, scaled the same way */
} pld_profile_table;

/* An upper bound on the l2 norm, over the lattice nodes l = k h > eps (any
 * eps), of the weight w(l) = e^{-theta (l - eps)} (1 - e^{eps - l}) with
 * which a tilted mass enters delta(eps); +inf for theta <= 0. */
double pld_grid_weight_l2(double theta, double h);

int pld_grid_alloc(pld_grid *g, double h, int64_t first, size_t n);
void pld_grid_free(pld_grid *g);
int pld_grid_copy(const pld_grid *a, pld_grid *out);

/* Connect-the-dots (Doroshenko et al. 2022) through the profile values
 * exp(log_delta(k h)), k = k0..k1, which the caller has already raised by
 * their error bound: the chords lie above the convex profile, so the lattice
 * dominates the mechanism.  The rounding of the masses is checked a
 * posteriori at every node (see pld_grid.c), so the grid is valid. */
typedef double (*pld_log_delta_fn)(double epsilon, void *ctx);
int pld_grid_connect_dots(pld_grid *g, pld_log_delta_fn log_delta, void *ctx, double h,
                          int64_t k0, int64_t k1);

/* The same, with log_excess(eps) (NULL, or NaN at a node: not given) the
 * log of delta(eps) - (1 - e^eps) at nodes eps < 0, raised like the values:
 * the masses are read from it there, free of the cancellation that makes
 * the left tail's masses rounding noise. */
int pld_grid_connect_dots_excess(pld_grid *g, pld_log_delta_fn log_delta, pld_log_delta_fn log_excess, void *ctx,
                                 double h, int64_t k0, int64_t k1);

/* The drift-free lower discretisation (../shared/notes/pld-bounds.md):
 * node values (already lowered by their error bound) lowered further by the
 * largest chord error of the neighbouring intervals,
 *   e_k = (alpha_{k+1} - alpha_k) Q(l_k < L < l_{k+1}) / 4,
 * the left tail merged where that crosses 1 - alpha, the right tail dropped
 * where it crosses 0, then the greatest convex minorant; checked a
 * posteriori at the nodes.  log_q_survival gives log Q(L > eps).  With
 * `atoms` nonzero the intervals are open, Q(l_k < L < l_k+1) from the
 * survival one double below l_k+1, at the price of a second evaluation per
 * node: then atoms exactly on nodes (at doubles equal to the nodes' losses)
 * make no chord error; with `atoms` zero they are half-open, (l_k, l_k+1],
 * which is right (if looser) for any pair.  When no node is lowered below 0
 * the profile ends at min(last node value, exp(log_delta(+inf))), which must
 * then be the mechanism's mass at +inf (NaN or -inf there means none). */
int pld_grid_lower_dots(pld_grid *g, pld_log_delta_fn log_delta, pld_log_delta_fn log_q_survival,
                        void *ctx, double h, int64_t k0, int64_t k1, int atoms);

/* Round losses down: mass P(l_k < L <= l_{k+1}) at l_k from the P-survival
 * log P(L > eps); the tails outside [k0 h, k1 h) are dropped.  A lower bound
 * that drifts by about h/2 per composition (kept as a reference). */
int pld_grid_round_down(pld_grid *g, pld_log_delta_fn log_survival, void *ctx, double h,
                        int64_t k0, int64_t k1);

/* log sum_i m_i e^{theta l_i}: the log moment generating function of the
 * finite part (for choosing the tilt); -inf for an empty measure. */
double pld_grid_log_mgf(const pld_grid *g, double theta);

/* Tilt an untilted grid (theta = 0, pad = 0) in place, rounding each mass
 * towards `side` so that the grid stays valid. */
int pld_grid_tilt(pld_grid *g, double theta, pld_side side);

/* Trim both tails whose tilted mass is at most tail_cut times the total,
 * against `side` (upper: charged to the pad; lower: dropped). */
void pld_grid_trim(pld_grid *g, pld_side side, double tail_cut);

/* FFTW plans, made once per transform size (a power of two) and reused,
 * with the work arrays of the largest transform done so far, kept until
 * pld_fft_cache_free: for transforms of up to N points, 32 N bytes of
 * arrays and under 32 N of plans (about 64 MiB each at N = 2^21).  Results
 * are bit-identical with and without a cache.  A cache serves one thread at
 * a time; different caches may be used concurrently. */
typedef struct pld_fft_cache pld_fft_cache;
pld_fft_cache *pld_fft_cache_new(void);     /* NULL when out of memory */
void pld_fft_cache_free(pld_fft_cache *c);  /* NULL is a no-op */
/* The work done through the cache so far: the sum of n log2 n over the
 * convolutions it prepared, a count proportional to their time on any
 * machine (pld.c's work budget is kept in it). */
double pld_fft_cache_work(const pld_fft_cache *c);

/* out[0..n) = c2r(fn(r2c(in zero-padded to n))), FFTW's unnormalised
 * transforms of n points (a power of two, at most max_fft), fn applied
 * to each of the n/2 + 1 coefficients (re, im) in place: a spectral
 * filter through the cache's plans and arrays (pld_quantised.c). */
typedef void (*pld_spectrum_fn)(double coefficient[2], void *ctx);
int pld_fft_filter(pld_fft_cache *c, size_t n, size_t max_fft, const double *in, size_t in_n, pld_spectrum_fn fn,
                   void *ctx, double *out);

/* out = a composed with b (convolution by FFTW, same h and theta), the
 * FFT's rounding bounded in `pad`, tails whose tilted mass is below
 * tail_cut times the total trimmed against `side` (upper: moved up or to
 * +inf; lower: dropped).  out must not alias a or b.  DPA_EACCURACY when the
 * transform would exceed max_fft points.  cache: plans and work arrays to
 * reuse (NULL: made for this call and freed). */
int pld_grid_compose(const pld_grid *a, const pld_grid *b, pld_side side, double tail_cut,
                     size_t max_fft, pld_fft_cache *cache, pld_grid *out);

/* out = count-fold composition of a, by one transform raised to the power
 * count or else by repeated squaring; cache as for pld_grid_compose. */
int pld_grid_self_compose(const pld_grid *a, uint64_t count, pld_side side, double tail_cut,
                          size_t max_fft, pld_fft_cache *cache, pld_grid *out);

/* out = a grid on the lattice of step fine->h 2^shift (shift >= 1), tilted
 * as `fine` is, valid towards `side` wherever `fine` is: connect-the-dots
 * as a linear map of the masses, fine's pad carried through it (upper), or
 * the drift-free lower construction through fine's lower profile bound at
 * the coarse nodes (lower), which are nodes of fine's lattice.  Composing the
 * coarse grid of a T1-fold composition T2 times costs transforms of the
 * composition's width at the coarse step, where one grid for all T1 T2
 * steps needs the fine step throughout (docs/pld-design.md, "Two levels"). */
int pld_grid_coarsen(const pld_grid *fine, pld_side side, int shift, pld_grid *out);

/* delta(eps) of the stored masses, and the same widened by the rounding
 * pad towards `side` and kept within [0, 1]. */
double pld_grid_delta(const pld_grid *g, double epsilon);
double pld_grid_delta_bound(const pld_grid *g, double epsilon, pld_side side);

/* Suffix sums for O(1) profile queries and the inversion eps(delta). */
int pld_profile_table_init(pld_profile_table *t, const pld_grid *g);
void pld_profile_table_free(pld_profile_table *t);
/* delta(eps) bound towards `side` (pad included), as pld_grid_delta_bound. */
double pld_profile_table_delta(const pld_profile_table *t, double epsilon, pld_side side);
/* Upper: the smallest eps >= 0 at which the upper bound is <= delta (+inf
 * when +inf mass and pad keep it above).  Lower: an eps' below the true eps
 * (delta_low(eps') > delta), searched downwards from `hint`, an upper bound
 * on the true eps (the upper grid's answer; +inf: the last node). */
double pld_profile_table_epsilon(const pld_profile_table *t, double delta, pld_side side, double hint);

#endif
