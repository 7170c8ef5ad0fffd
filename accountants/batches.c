/*
 * batches.c - shuffled fixed-size batches: the honest bracket.
 *
 * DP-SGD code usually shuffles the data each epoch and cuts it into batches
 * of a fixed size, then reports the eps of Poisson sampling.  No tight
 * certified bound is known for shuffling.  What is known:
 *
 *   upper: every record is in exactly one step of an epoch, so an epoch is
 *   one Gaussian step with the record in it, whichever step that is:
 *   mu^2 = sum 1/sigma^2 over the epochs (Chua et al., "How private are
 *   DP-SGD implementations?", ICML 2024: shuffling is no less private than
 *   any fixed order).  Exact for that Gaussian (Balle & Wang 2018).
 *
 *   lower: Chua et al.'s instance (ICML 2024; multi-epoch, NeurIPS 2024,
 *   "Scalable DP-SGD: shuffling vs. Poisson subsampling").  One-dimensional
 *   gradients, every other record -1, the differing one 1 against 0 (the
 *   record zeroed out: batches of a fixed size need datasets of one size,
 *   so add/remove is read as zeroing out, Chua et al.'s relation) or 1
 *   against -1 (replace-one).  The differing record is in a uniformly random
 *   one of the T = floor(n/m) batches, or, with probability rho =
 *   (n mod m)/n, in none (it sat the epoch out).  Centred at the others'
 *   sums, an epoch's outputs are, in units of the noise's sensitivity,
 *     P = (1 - rho) MoG(a) + rho N(0, s^2 I),  Q = (1 - rho) MoG(b) + rho N(0, s^2 I),
 *   MoG(c) = (1/T) sum_t N(c e_t, s^2 I_T), with (a, b) = (2, 1) zeroing out
 *   and (1, 0) replace-one.  Any statistic of the outputs post-processes
 *   this pair, so its hockey-stick divergence lies below the mechanism's.
 *   The statistic is M = max_t x_t, sliced: the laws of M have
 *     F_c(x) = Phi((x - c)/s) Phi(x/s)^(T-1)   for MoG(c),
 *   each slice a pair of masses (p_j, q_j) at loss log(p_j/q_j).  Epochs
 *   reshuffle independently, so E epochs compose the sliced pair E times
 *   (on a loss lattice, losses rounded down: a lower PLD grid, pld_grid.h).
 *
 * The rounding goes against the lower bound throughout: each slice's
 * p_j is shaved and q_j raised by a bound on their floating-point error
 * (slice_masses), losses are rounded down to the lattice, and the grid's
 * lower profile carries the FFT's error (pld_grid.h).  So the bracket
 * [lower, upper] holds for the shuffled mechanism itself.
 *
 * Supported: shuffled_batches events and self-compositions of them (epochs
 * of one kind); a composition of different ones is refused.
 */
#include "gaussian_profile.h"
#include "internal.h"
#include "numerics.h"
#include "pld/pld_grid.h"

#include <float.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

#define U DBL_EPSILON
#define MAX_FFT ((size_t)1 << 21)   /* as pld.c: about 65 MB of work arrays */
#define TAIL_CUT 1e-12              /* relative tilted mass dropped per composition */
#define LOSS_DRIFT 0.01             /* the lattice's rounding, summed over the epochs */
#define TAIL_MASS 1e-30             /* slices start and end where P holds this */
#define MAX_SLICES 1e5              /* of the largest coordinate's range */
#define LOWER_SIGMA_MIN 0.05        /* the noise multipliers with a lower bound */
#define LOWER_SIGMA_MAX 1e4

typedef struct {
    dpa_sum inv_var;      /* of everything composed: the upper bound's mu^2 */
    int have;             /* an epoch kind was composed */
    double sigma;         /* the inner Gaussian's noise multiplier */
    uint64_t n, m;        /* records, batch size */
    double epochs;        /* how many (a product of counts, exact below 2^53) */
    double a, b;          /* the lower instance's means (relation) */
    /* the lower grid, built at the first query after a composition */
    int built;
    pld_grid grid;
    pld_profile_table table;
} batches_state;

/* The one shuffled_batches epoch under e and the number of times it runs;
 * DPA_EUNSUPPORTED for anything else. */
static int epoch_of(const dpa_event *e, const dpa_event **epoch, double *times, dpa_error *err)
{
    e = dpa_event_strip_counts(e, times);
    if (dpa_event_get_kind(e) != DPA_EVENT_SHUFFLED_BATCHES)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "batches: only shuffled_batches events (and self_composed counts of them) are supported, "
                        "not %s", dpa_event_kind_name(dpa_event_get_kind(e)));
    if (!(*times < 9007199254740992.0))
        return dpa_fail(err, DPA_EUNSUPPORTED, "batches: %g epochs is more than the lower bound composes", *times);
    *epoch = e;
    return DPA_OK;
}

static int batches_supports(const void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    (void)state; (void)opt;
    const dpa_event *epoch;
    double times;
    return epoch_of(e, &epoch, &times, err);
}

static double epoch_sigma(const dpa_event *epoch)
{
    double inv_var;
    const dpa_event *bad;
    if (dpa_event_inverse_variance(dpa_event_child(epoch, 0), &inv_var, &bad)) return NAN;
    return 1.0 / sqrt(inv_var);
}

static void drop_grid(batches_state *s)
{
    if (!s->built) return;
    pld_profile_table_free(&s->table);
    pld_grid_free(&s->grid);
    s->built = 0;
}

static int batches_compose(void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    batches_state *s = state;
    const dpa_event *epoch;
    double times;
    int st = epoch_of(e, &epoch, &times, err);
    if (st) return st;
    double sigma = epoch_sigma(epoch);
    uint64_t n = dpa_event_count(epoch, 0), m = dpa_event_count(epoch, 1);
    if (!(sigma >= 0.0) || !isfinite(sigma))   /* 0: 1/sigma^2 overflowed; the upper bound is then inf */
        return dpa_fail(err, DPA_EINVAL, "batches: the epoch's noise multiplier is %g", sigma);
    if (s->have && (sigma != s->sigma || n != s->n || m != s->m))
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "batches: epochs of different kinds (sigma, n or m) are not composed here; "
                        "each accountant holds one kind");
    if (!(s->epochs + times < 9007199254740992.0))
        return dpa_fail(err, DPA_EUNSUPPORTED, "batches: more epochs than the lower bound composes");
    double inv_var;
    const dpa_event *bad;
    if (dpa_event_inverse_variance(e, &inv_var, &bad)) return dpa_fail(err, DPA_EINVAL, "batches: invalid event");
    dpa_sum_add(&s->inv_var, inv_var);
    s->have = 1;
    s->sigma = sigma;
    s->n = n;
    s->m = m;
    s->epochs += times;
    s->a = opt->relation == DPA_REPLACE_ONE ? 1.0 : 2.0;
    s->b = s->a - 1.0;
    drop_grid(s);
    return DPA_OK;
}

/* ---- the sliced pair ------------------------------------------------------ */

typedef struct {
    double s, rho, log_rho, log_keep;  /* keep = 1 - rho */
    double others;                     /* T - 1 */
} max_law;

/* log F_c(x) of the mixture (1 - rho) [Phi((x-c)/s) Phi(x/s)^(T-1)] + rho Phi(x/s)^T,
 * and in *scale a bound on the magnitudes summed into it (for its error). */
static double log_cdf(const max_law *L, double c, double x, double *scale)
{
    double lz = dpa_log_ndtr(x / L->s), lc = dpa_log_ndtr((x - c) / L->s);
    double mix = L->rho > 0.0 ? dpa_log_add_exp(L->log_keep + lc, L->log_rho + lz) : lc;
    /* both terms are <= 0 (no cancellation); the mixture's log is within a
     * few ulps of its larger term, which may be far from 0 when mix is not */
    *scale = L->others * fabs(lz) + fabs(mix) + fabs(lc) + (L->rho > 0.0 ? -L->log_keep + fabs(lz) : 0.0);
    return L->others * lz + mix;
}

/* The masses of (x0, x1] under the two laws, the first rounded down and the
 * second up by a bound on their error: each log F carries at most 8 ulps of
 * *scale (log_ndtr's few ulps times the power T - 1, the mixture, the
 * product), and F1 - F0 = F1 (1 - e^{lF0 - lF1}) amplifies an error in
 * the logs by 1 / (1 - e^{lF0 - lF1}).  Returns 0 when the slice's masses
 * are not resolved (it is then left out: dropping P-mass keeps a lower
 * bound valid). */
static int slice_masses(const max_law *L, double a, double b, double x0, double x1, double *p, double *q)
{
    double sp0, sp1, sq0, sq1;
    double lp0 = x0 == -INFINITY ? -INFINITY : log_cdf(L, a, x0, &sp0);
    double lq0 = x0 == -INFINITY ? -INFINITY : log_cdf(L, b, x0, &sq0);
    double lp1 = x1 == INFINITY ? 0.0 : log_cdf(L, a, x1, &sp1);
    double lq1 = x1 == INFINITY ? 0.0 : log_cdf(L, b, x1, &sq1);
    if (x0 == -INFINITY) sp0 = sq0 = 0.0;
    if (x1 == INFINITY) sp1 = sq1 = 0.0;
    double ep = 8.0 * U * (sp0 + sp1), eq = 8.0 * U * (sq0 + sq1);
    double gp = -expm1(lp0 - lp1), gq = -expm1(lq0 - lq1);  /* the slice over F at x1 */
    if (!(gp > 0.0) || !(gq > 0.0)) return 0;
    double rp = ep / gp + 4.0 * U, rq = eq / gq + 4.0 * U;  /* relative errors */
    if (!(rp < 0.25) || !(rq < 0.25)) return 0;
    *p = exp(lp1) * gp * (1.0 - 2.0 * rp);
    *q = exp(lq1) * gq * (1.0 + 2.0 * rq);
    return *p > 0.0 && *q > 0.0;
}

/* x with P(M <= x) about TAIL_MASS (low) or P(M > x) about TAIL_MASS (high):
 * where the slices start and end (the two tails are slices too). */
static double slice_end(const max_law *L, double a, int high)
{
    double T = L->others + 1.0;
    if (!high) return L->s * gsl_cdf_ugaussian_Pinv(exp(log(TAIL_MASS) / T));
    return a + L->s * gsl_cdf_ugaussian_Qinv(TAIL_MASS / T);
}

/* One epoch's sliced pair on the lattice of step h, losses rounded down. */
static int epoch_grid(const batches_state *s, double h, pld_grid *g)
{
    uint64_t T = s->n / s->m;
    max_law L = { .s = s->sigma, .rho = (double)(s->n % s->m) / (double)s->n, .others = (double)(T - 1) };
    L.log_rho = log(L.rho);
    L.log_keep = log1p(-L.rho);
    double lo = slice_end(&L, s->a, 0), hi = slice_end(&L, s->a, 1);
    /* slices about h wide in loss (the loss grows like (a - b) x / s^2),
     * at most MAX_SLICES of them: coarser slices are a coarser
     * post-processing, still a lower bound */
    double gap = fmax(h * s->sigma * s->sigma / (s->a - s->b), (hi - lo) / MAX_SLICES);
    if (!(gap > 0.0) || !isfinite(gap)) return DPA_EACCURACY;
    size_t slices = (size_t)ceil((hi - lo) / gap) + 2;
    double *loss = malloc(slices * sizeof *loss), *mass = malloc(slices * sizeof *mass);
    if (!loss || !mass) { free(loss); free(mass); return DPA_ENOMEM; }
    size_t k = 0;
    double lmin = INFINITY, lmax = -INFINITY;
    for (size_t j = 0; j < slices; j++) {
        double x0 = j == 0 ? -INFINITY : lo + (double)(j - 1) * gap;
        double x1 = j + 1 == slices ? INFINITY : lo + (double)j * gap;
        double p, q;
        if (!slice_masses(&L, s->a, s->b, x0, x1, &p, &q)) continue;
        loss[k] = log(p) - log(q);
        mass[k] = p;
        lmin = fmin(lmin, loss[k]);
        lmax = fmax(lmax, loss[k]);
        k++;
    }
    int st = DPA_EACCURACY;
    if (k) {
        /* floor, with a margin for the rounding of log p - log q and of l/h */
        int64_t first = (int64_t)floor(lmin / h) - 1, last = (int64_t)floor(lmax / h) + 1;
        /* a wider lattice could not be composed within MAX_FFT: a coarser h */
        st = last - first >= (int64_t)MAX_FFT ? DPA_EACCURACY : pld_grid_alloc(g, h, first, (size_t)(last - first + 1));
        if (!st) {
            dpa_sum total = { 0 };
            for (size_t i = 0; i < k; i++) {
                double l = loss[i] - 8.0 * U * (fabs(loss[i]) + 1.0);
                int64_t node = (int64_t)floor(l / h);
                if ((double)node * h > l) node--;   /* l/h rounded up past an integer */
                g->mass[node - first] += mass[i];
                dpa_sum_add(&total, mass[i]);
            }
            /* the sums into a node round either way: shave them */
            for (size_t i = 0; i < g->n; i++) g->mass[i] *= 1.0 - 4.0 * (double)k * U;
            g->finite = dpa_sum_value(&total) * (1.0 - 4.0 * (double)k * U);
        }
    }
    free(loss);
    free(mass);
    return st;
}

/* The lower grid of all the epochs: the epoch's grid composed E times, at
 * a lattice step that keeps the rounding drift (at most E h in loss) near
 * LOSS_DRIFT, coarsened while the transforms would be too large. */
static int build_lower(batches_state *s)
{
    if (s->built) return DPA_OK;
    /* outside these the lattice would need too many slices or nodes (tiny
     * sigma: losses of order 1/sigma^2) or the bound is ~0 (huge sigma):
     * no lower bound is computed */
    if (!(s->sigma >= LOWER_SIGMA_MIN && s->sigma <= LOWER_SIGMA_MAX)) return DPA_EACCURACY;
    double h = fmin(1e-3, LOSS_DRIFT / s->epochs);
    pld_fft_cache *fft = pld_fft_cache_new();
    if (!fft) return DPA_ENOMEM;
    int st = DPA_EACCURACY;
    for (int tries = 0; tries < 12 && st == DPA_EACCURACY; tries++, h *= 2.0) {
        pld_grid one;
        st = epoch_grid(s, h, &one);
        if (st == DPA_EACCURACY) continue;
        if (st) break;
        pld_grid_trim(&one, PLD_LOWER, TAIL_CUT / s->epochs);
        st = pld_grid_self_compose(&one, (uint64_t)s->epochs, PLD_LOWER, TAIL_CUT, MAX_FFT, fft, &s->grid);
        pld_grid_free(&one);
    }
    pld_fft_cache_free(fft);
    if (st) return st;
    st = pld_profile_table_init(&s->table, &s->grid);
    if (st) { pld_grid_free(&s->grid); return st; }
    s->built = 1;
    return DPA_OK;
}

/* ---- queries ---------------------------------------------------------------- */

/* the upper bound's mu: the Gaussian once an epoch (lib/event.c's
 * inverse variance, summed as the gaussian accountant sums it) */
static double upper_mu(const batches_state *s)
{
    return sqrt(dpa_sum_value(&s->inv_var));
}

static int no_lower(int st, dpa_bound *out, dpa_error *err)
{
    if (st == DPA_ENOMEM) return dpa_fail(err, st, "batches: out of memory building the lower bound");
    /* the upper bound stands; the lower one is not available here */
    out->lower = 0.0;
    out->flags |= DPA_NO_LOWER;
    return DPA_OK;
}

static int batches_epsilon(void *state, const dpa_options *opt, double delta, dpa_bound *out, dpa_error *err)
{
    (void)opt;
    batches_state *s = state;
    if (!s->have) return dpa_fail(err, DPA_EINVAL, "batches: nothing composed yet");
    int st = dpa_gdp_epsilon(upper_mu(s), delta, out, err);
    if (st) return st;
    out->flags &= ~(unsigned)DPA_EXACT;
    double upper = out->upper;
    if ((st = build_lower(s))) return no_lower(st, out, err);
    double lower = pld_profile_table_epsilon(&s->table, delta, PLD_LOWER, upper);
    out->lower = fmin(fmax(0.0, lower), upper);
    out->estimate = 0.5 * (out->lower + upper);
    return DPA_OK;
}

static int batches_delta(void *state, const dpa_options *opt, double epsilon, dpa_bound *out, dpa_error *err)
{
    (void)opt;
    batches_state *s = state;
    if (!s->have) return dpa_fail(err, DPA_EINVAL, "batches: nothing composed yet");
    int st = dpa_gdp_delta(upper_mu(s), epsilon, out, err);
    if (st) return st;
    out->flags &= ~(unsigned)DPA_EXACT;
    if ((st = build_lower(s))) return no_lower(st, out, err);
    double lower = pld_profile_table_delta(&s->table, epsilon, PLD_LOWER);
    out->lower = fmin(fmax(0.0, lower), out->upper);
    out->estimate = 0.5 * (out->lower + out->upper);
    return DPA_OK;
}

static void batches_destroy(void *state)
{
    drop_grid(state);
}

static double batches_state_value(const void *state, const char **what)
{
    const batches_state *s = state;
    *what = "epochs";
    return s->epochs;
}

const dpa_accountant_ops dpa_batches_accountant = {
    .name = "batches",
    .summary = "shuffled fixed-size batches: the Gaussian once an epoch (any order) above, "
               "Chua et al.'s lower bound (ICML 2024, NeurIPS 2024) below",
    .state_size = sizeof(batches_state),
    .destroy = batches_destroy,
    .supports = batches_supports,
    .compose = batches_compose,
    .epsilon = batches_epsilon,
    .delta = batches_delta,
    .state_value = batches_state_value,
    .mechanism_lower = 1,
};
