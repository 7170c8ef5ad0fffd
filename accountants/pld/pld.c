/*
 * pld.c - the privacy loss distribution accountant: every mechanism is
 * turned into dominating pairs (pld_profiles.c), discretised twice on a
 * uniform loss grid -- connect-the-dots above (Doroshenko, Ghazi, Kamath,
 * Kumar & Manurangsi 2022) and the drift-free construction of
 * ../shared/notes/pld-bounds.md below -- and composed by FFT
 * (pld_grid.c).  The two composed grids bracket the true delta(eps), and
 * inverting each brackets eps(delta).
 *
 * Composition is lazy: compose() records the mechanisms, a query builds the
 * grids for its own target.  The tilt theta (per world) is the Chernoff
 * optimum of the composed lattice for the query, so that the FFT's rounding
 * is small relative to the delta asked for; the grid step h starts from the
 * spread of the composition and is refined until the bracket is within
 * eps_error (dpa_options.tolerance, default 1e-3) relative to eps, or a
 * limit is reached (the transform size, the work budget, the FFT's
 * rounding): then the best bracket found is the answer, flagged
 * DPA_WIDTH_NOT_MET (DPA_EACCURACY under dpa_options.require_width).  The
 * grid steps tried do not depend on eps_error, only where they stop
 * (run_query_grids).
 *
 * Worlds: under add/remove the adjacent datasets differ by one record that
 * is in the first ("remove") or in the second ("add"); every step of a run
 * is in the same world, so each world is composed separately and the larger
 * delta is reported (Zhu, Dong & Wang 2022, Sec. 5).
 */
#include "internal.h"
#include "numerics.h"
#include "pld_allocation.h"
#include "pld_grid.h"
#include "pld_quantised.h"
#include "pld_profiles.h"
#include "shuffle/shuffle_clones.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORLDS 2
#define DEFAULT_EPS_ERROR 1e-3
#define MAX_FFT ((size_t)1 << 21)      /* 2M points: about 65 MB of work arrays */
#define TAIL_CUT 1e-12                 /* relative tilted mass trimmed per composition */
#define FULL_TAIL_Z 14.0               /* single steps discretised to Phibar(14) ~ 1e-44 */
#define FALLBACKS 2
/* The refinement (run_query_grids) tries the same grid steps for a query
 * whatever its eps_error, which decides only where it stops: a first step
 * as starting_step gives for REFERENCE_EPS_ERROR, searched for one whose
 * grids can be built (the calibration pass), then the rungs of a ladder
 * RUNG_RATIO apart (each about halves the width: both discretisation
 * errors shrink like h^2).  The single steps' tails are cut as for
 * TAIL_EPS_ERROR (tail_cut_z), whatever the query asks, so that a rung's
 * grids are the same for every eps_error. */
#define REFERENCE_EPS_ERROR 1e-1
#define TAIL_EPS_ERROR 1e-6
#define RUNG_RATIO 0.70710678118654752  /* 2^-1/2 */
#define MAX_RUNGS 40                    /* h_c / 2^20 at most */
#define CALIBRATION_TRIES 16
/* The work a query may spend, in transformed points (n log2 n per
 * convolution, pld_fft_cache_work): a count, not a clock, so that the
 * answer does not depend on the machine or its load (about 1e8 units a
 * second on one core of the development machine).  A rung is tried only
 * when its work predicted from the calibration pass's (the grids grow as
 * 1/h) is at most PASS_BUDGET, so that the rungs a query walks cost at
 * most WORK_BUDGET together (a geometric series of ratio RUNG_RATIO), and
 * where the walk stops is the same for every eps_error. */
#define WORK_BUDGET 1e9
#define PASS_BUDGET ((1.0 - RUNG_RATIO) * WORK_BUDGET)
/* A step the lower construction refuses costs no transform but the
 * profile evaluated at every node of the single steps, twice (the
 * attempt, all_steps_discretise): about NODE_WORK units per node.  The
 * calibration pass stops refining refused steps after CALIBRATION_BUDGET
 * units of them (about a tenth of a second: a composition whose grids
 * cannot be built at any step, such as a Gaussian whose every loss is
 * beyond e^709, is answered by the closed forms alone, and a calibration
 * may ask it many times), and starts no try after WORK_BUDGET units of
 * transforms. */
#define NODE_WORK 30.0
#define MIN_STEP 1e-12                  /* no grid step below (finest_step) */
#define CALIBRATION_BUDGET (0.01 * WORK_BUDGET)


typedef struct {
    pld_profile pair[WORLDS];
    uint64_t times;
} pld_component;

typedef struct {
    double h, theta[WORLDS];
    int worlds;                         /* worlds composed: 1 when they are the same */
    pld_grid grid[WORLDS][2];           /* [world][PLD_UPPER / PLD_LOWER] */
    pld_profile_table table[WORLDS][2];
    int upper_only;                     /* no lower grids (empty): the lower construction refused */
} pld_result;

typedef struct {
    pld_component *comp;
    size_t n, cap;
    int have_result;
    pld_result result;
    double last_h;
    pld_fft_cache *fft;                 /* FFTW plans per size, reused by every query */
    /* 2 when some component's worlds differ; else 1: every pair is
     * symmetric (or the relation is replace-one) and one world is composed */
    int worlds;
    int pair_lower;                     /* some pair is a dominating pair the
                                         * mechanism need not attain */
    double tail_z;                      /* the query's cut of the normal tails
                                         * of the single steps (tail_cut_z) */
    int upper_only;                     /* passes build the upper grids only
                                         * (run_query_grids' last resort) */
    /* Second opinions (see with_fallbacks): the same events composed by
     * accountants with closed forms, NULL once one refused an event. */
    dpa_accountant *fallback[FALLBACKS];
    /* the components of the mixture pairs, copied from their events
     * (which the caller may free once composed) */
    double **lists;
    size_t n_lists, cap_lists;
    /* the T-fold Poisson compositions the random allocation pairs read
     * their profiles from (pld_allocation.c), one per world and (sigma, T) */
    pld_nested **nested;
    size_t n_nested, cap_nested;
} pld_state;

static const char *const fallback_names[FALLBACKS] = { "gaussian", "rdp" };

static int pld_init(void *state, const dpa_options *opt, dpa_error *err)
{
    pld_state *s = state;
    s->worlds = 1;
    s->tail_z = FULL_TAIL_Z;
    s->fft = pld_fft_cache_new();
    if (!s->fft) return dpa_fail(err, DPA_ENOMEM, "pld: out of memory");
    dpa_options fo;
    dpa_options_init(&fo);
    fo.relation = opt->relation;
    for (int i = 0; i < FALLBACKS; i++) s->fallback[i] = dpa_accountant_new(fallback_names[i], &fo, NULL);
    return DPA_OK;
}

static void result_free(pld_result *r)
{
    for (int w = 0; w < WORLDS; w++)
        for (int s = 0; s < 2; s++) {
            pld_profile_table_free(&r->table[w][s]);
            pld_grid_free(&r->grid[w][s]);
        }
}

static void forget_result(pld_state *s)
{
    if (s->have_result) result_free(&s->result);
    s->have_result = 0;
}

/* Frees the copied lists from the keep-th on. */
static void drop_lists(pld_state *s, size_t keep)
{
    while (s->n_lists > keep) free(s->lists[--s->n_lists]);
}

/* The pairs' borrowed list (a mixture's) replaced by a copy the state owns. */
static int own_list(pld_state *s, pld_profile pair[WORLDS], dpa_error *err)
{
    if (!pair[0].mix) return DPA_OK;
    if (s->n_lists == s->cap_lists) {
        size_t cap = s->cap_lists ? 2 * s->cap_lists : 4;
        double **grown = realloc(s->lists, cap * sizeof *grown);
        if (!grown) return dpa_fail(err, DPA_ENOMEM, "pld: out of memory");
        s->lists = grown;
        s->cap_lists = cap;
    }
    double *copy = malloc(2 * pair[0].mix_n * sizeof *copy);
    if (!copy) return dpa_fail(err, DPA_ENOMEM, "pld: out of memory");
    memcpy(copy, pair[0].mix, 2 * pair[0].mix_n * sizeof *copy);
    s->lists[s->n_lists++] = copy;
    for (int w = 0; w < WORLDS; w++) pair[w].mix = copy;
    return DPA_OK;
}

/* Frees the nested compositions from the keep-th on. */
static void drop_nested(pld_state *s, size_t keep)
{
    while (s->n_nested > keep) {
        pld_nested *n = s->nested[--s->n_nested];
        pld_nested_free(n);
        free(n);
    }
}

static int own_nested(pld_state *s, pld_profile pair[WORLDS], dpa_error *err);

static void pld_destroy(void *state)
{
    pld_state *s = state;
    forget_result(s);
    free(s->comp);
    drop_lists(s, 0);
    free(s->lists);
    drop_nested(s, 0);
    free(s->nested);
    pld_fft_cache_free(s->fft);
    for (int i = 0; i < FALLBACKS; i++) dpa_accountant_free(s->fallback[i]);
}

/* ---- events ------------------------------------------------------------------ */

typedef struct {
    const dpa_options *opt;
    pld_state *s;      /* NULL: only check */
    size_t added;
} visit_ctx;

static int visit_leaf(const dpa_event *leaf, double times, void *vctx, dpa_error *err)
{
    visit_ctx *c = vctx;
    pld_profile pair[WORLDS];
    int st = pld_profile_of_event(leaf, c->opt->relation, pair, err);
    if (st) return st;
    /* K of T steps: K rounds of one of floor(T/K) (pld_profiles.c) */
    if (dpa_event_get_kind(leaf) == DPA_EVENT_RANDOM_ALLOCATION) times *= (double)dpa_event_count(leaf, 1);
    if (!(times >= 1.0) || times > 9.2e18)
        return dpa_fail(err, DPA_EINVAL, "pld: a mechanism composed %g times is beyond the counts supported", times);
    if (!c->s) return DPA_OK;
    pld_state *s = c->s;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        pld_component *p = realloc(s->comp, cap * sizeof *p);
        if (!p) return dpa_fail(err, DPA_ENOMEM, "pld: out of memory");
        s->comp = p;
        s->cap = cap;
    }
    st = own_list(s, pair, err);
    if (!st) st = own_nested(s, pair, err);
    if (st) return st;
    s->comp[s->n].pair[0] = pair[0];
    s->comp[s->n].pair[1] = pair[1];
    if (!pld_profile_equal(&pair[0], &pair[1])) s->worlds = 2;
    /* sampling without replacement: the least pair that dominates every
     * step, but a fixed pair of datasets need not attain it (pld_profiles.c) */
    if (pair[0].pair == PLD_WITHOUT_REPLACEMENT || pair[0].pair == PLD_SHUFFLE_CLONES ||
        pair[0].pair == PLD_TRUNCATED_REMOVE || /* an upper bound by joint convexity */
        pair[0].pair == PLD_ALLOCATION_REMOVE)  /* Feldman & Shenfeld's decomposition */
        s->pair_lower = 1;
    s->comp[s->n].times = (uint64_t)times;
    s->n++;
    c->added++;
    return DPA_OK;
}

static int pld_supports(const void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    (void)state;
    visit_ctx c = { opt, NULL, 0 };
    return dpa_event_visit_leaves(e, visit_leaf, &c, err);
}

static int pld_compose(void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    pld_state *s = state;
    size_t before = s->n, lists = s->n_lists, nested = s->n_nested;
    int worlds = s->worlds, pair_lower = s->pair_lower;
    visit_ctx c = { opt, s, 0 };
    int st = dpa_event_visit_leaves(e, visit_leaf, &c, err);
    if (st) {                  /* atomic: a failed event leaves the state unchanged */
        s->n = before;
        drop_lists(s, lists);
        drop_nested(s, nested);
        s->worlds = worlds;
        s->pair_lower = pair_lower;
    }
    else if (c.added) forget_result(s);
    if (!st)
        for (int i = 0; i < FALLBACKS; i++)
            if (s->fallback[i] && dpa_accountant_compose(s->fallback[i], e, NULL) != DPA_OK) {
                dpa_accountant_free(s->fallback[i]);   /* it cannot speak for the whole composition */
                s->fallback[i] = NULL;
            }
    return st;
}

/* ---- discretisation ------------------------------------------------------------ */

/* The exact profile raised (sign +1, upper) or lowered (-1, lower) by its
 * error bound. */
static double padded_log_delta(const pld_profile *p, double eps, double sign)
{
    pld_profile copy = *p;
    return pld_profile_log_delta(eps, &copy) + log1p(sign * pld_profile_delta_relerr(&copy, eps));
}

static double upper_log_delta(double eps, void *p) { return padded_log_delta(p, eps, 1.0); }
static double lower_log_delta(double eps, void *p) { return padded_log_delta(p, eps, -1.0); }

/* The nodes k0..k1 covering a pair's loss range at step h; DPA_EACCURACY
 * when they would not fit in half the transform limit. */
static int node_range(const pld_profile *p, double z, double h, int64_t *k0, int64_t *k1)
{
    double lo, hi;
    pld_profile_loss_range_z(p, z, &lo, &hi);
    double a = floor(lo / h) - 1.0, b = ceil(hi / h) + 1.0;
    if (b < a + 2.0) b = a + 2.0;
    if (b - a > (double)(MAX_FFT / 2)) return DPA_EACCURACY;  /* h too fine for this mechanism */
    *k0 = (int64_t)a;
    *k1 = (int64_t)b;
    return DPA_OK;
}

static int discretise_tabulated(const pld_profile *p, double z, double h, int sides, pld_grid out[2]);
static int discretise(const pld_profile *p, double z, double h, pld_side side, pld_grid *g)
{
    if (p->pair == PLD_SHUFFLE_CLONES || p->pair == PLD_ALLOCATION_REMOVE || p->pair == PLD_ALLOCATION_ADD) {
        /* its node values come from one pass over its atoms, or from the
         * nested grids with what the lower side needs at this step */
        pld_grid one[2];
        int st = discretise_tabulated(p, z, h, side == PLD_UPPER ? 1 : 2, one);
        if (!st) *g = one[side];
        return st;
    }
    int64_t k0, k1;
    int st = node_range(p, z, h, &k0, &k1);
    if (st) return st;
    pld_profile copy = *p;
    return side == PLD_UPPER
               ? pld_grid_connect_dots(g, upper_log_delta, &copy, h, k0, k1)
               : pld_grid_lower_dots(g, lower_log_delta, pld_profile_log_q_survival, &copy, h, k0, k1,
                                     pld_profile_atom_spacing(p) != 0.0);
}

/* The profile and its error bound at the nodes k0..k1, evaluated once and
 * read by both discretisations (each error bound evaluates the profile
 * again, so this saves three evaluations in four). */
typedef struct {
    pld_profile p;
    double h;
    int64_t k0;
    size_t n;
    double *ld, *re;
    double *lx, *rx;        /* log of delta - (1 - e^l) and its relative error at the nodes l < 0 (NaN: not given) */
    double *lq_gt, *lq_ge;  /* log Q(L > l), log Q(L >= l) at the nodes, when tabulated (shuffle clones) */
} node_values;

static double tabulated(const node_values *t, double eps, double sign)
{
    double x = eps / t->h - (double)t->k0, i = nearbyint(x);
    if (fabs(x - i) < 1e-6 && i >= 0.0 && i < (double)t->n) {
        size_t j = (size_t)i;
        return t->ld[j] + log1p(sign * t->re[j]);
    }
    return padded_log_delta(&t->p, eps, sign);
}

static double tabulated_upper(double eps, void *t) { return tabulated(t, eps, 1.0); }
static double tabulated_excess_upper(double eps, void *tv)
{
    const node_values *t = tv;
    double x = eps / t->h - (double)t->k0, i = nearbyint(x);
    if (t->lx && fabs(x - i) < 1e-6 && i >= 0.0 && i < (double)t->n) {
        size_t j = (size_t)i;
        return t->lx[j] + log1p(t->rx[j]);
    }
    return NAN;
}
static double tabulated_lower(double eps, void *t) { return tabulated(t, eps, -1.0); }
static double tabulated_q_survival(double eps, void *tv)
{
    const node_values *t = tv;
    if (t->lq_gt) {
        /* at a node, or just below one (Q(L > prev(l)) = Q(L >= l)) */
        double x = eps / t->h - (double)t->k0, i = nearbyint(x);
        if (fabs(x - i) < 1e-6 && i >= 0.0 && i < (double)t->n) {
            size_t j = (size_t)i;
            return eps < (double)(t->k0 + (int64_t)j) * t->h ? t->lq_ge[j] : t->lq_gt[j];
        }
    }
    pld_profile copy = t->p;
    return pld_profile_log_q_survival(eps, &copy);
}

/* The clones pair's node values from its binned atoms (one pass over the
 * atoms instead of a walk over the clone count per node). */
static int clones_node_values(node_values *t)
{
    size_t n = t->n;
    double *buf = malloc(4 * n * sizeof *buf);
    t->lq_gt = malloc(n * sizeof *t->lq_gt);
    t->lq_ge = malloc(n * sizeof *t->lq_ge);
    int st = buf && t->lq_gt && t->lq_ge ? DPA_OK : DPA_ENOMEM;
    if (!st) {
        clones_pair cp = clones_pair_make(t->p.eps, 0.0, t->p.k, t->p.randomizer);
        st = clones_node_table(&cp, t->h, t->k0, n, buf, buf + n, buf + 2 * n, buf + 3 * n);
    }
    for (size_t i = 0; !st && i < n; i++) {
        double lo = buf[i], up = buf[n + i], mid = 0.5 * (lo + up);
        t->ld[i] = log(mid);
        t->re[i] = mid > 0.0 ? fmin(1.0, (up - lo) / (2.0 * mid) * (1.0 + 1e-9) + 4.0 * DBL_EPSILON) : 1e-13;
        t->lq_gt[i] = log(buf[2 * n + i]);
        t->lq_ge[i] = log(buf[3 * n + i]);
    }
    free(buf);
    return st;
}

/* Both discretisations of one pair at step h: out[PLD_UPPER], out[PLD_LOWER]. */
static int discretise_both(const pld_profile *p, double z, double h, pld_grid out[2])
{
    return discretise_tabulated(p, z, h, 3, out);
}

/* The discretisations of `sides` (bit 1 upper, bit 2 lower) from the
 * profile tabulated at the nodes. */
static int discretise_tabulated(const pld_profile *p, double z, double h, int sides, pld_grid out[2])
{
    int64_t k0, k1;
    int st = node_range(p, z, h, &k0, &k1);
    if (st) return st;
    node_values t = { *p, h, k0, (size_t)(k1 - k0 + 1), NULL, NULL, NULL, NULL, NULL, NULL };
    t.ld = malloc(t.n * sizeof *t.ld);
    t.re = malloc(t.n * sizeof *t.re);
    st = t.ld && t.re ? DPA_OK : DPA_ENOMEM;
    if (!st && p->pair == PLD_SHUFFLE_CLONES) st = clones_node_values(&t);
    if (!st && (p->pair == PLD_ALLOCATION_REMOVE || p->pair == PLD_ALLOCATION_ADD)) {
        t.lq_gt = malloc(t.n * sizeof *t.lq_gt);
        t.lq_ge = malloc(t.n * sizeof *t.lq_ge);
        st = t.lq_gt && t.lq_ge ? pld_allocation_node_values(p, h, k0, t.n, t.ld, t.re, t.lq_gt, t.lq_ge) : DPA_ENOMEM;
    }
    if (!st && !t.lq_gt && k0 < 0 && pld_profile_has_excess(p)) {
        t.lx = malloc(t.n * sizeof *t.lx);
        t.rx = malloc(t.n * sizeof *t.rx);
        if (!t.lx || !t.rx) st = DPA_ENOMEM;
    }
    for (size_t i = 0; !st && !t.lq_gt && i < t.n; i++) {
        double eps = (double)(t.k0 + (int64_t)i) * h;
        if (t.lx) t.lx[i] = t.rx[i] = NAN;
        if (t.lx && eps < 0.0 && !isnan(t.lx[i] = pld_profile_log_excess_relerr(eps, &t.p, &t.rx[i]))) {
            /* delta = (1 - e^eps) + excess: positive terms, relative error
             * at most the excess's share of its bound plus a few ulps */
            double line = -expm1(eps), ex = exp(t.lx[i]), d = line + ex;
            t.ld[i] = log(d);
            t.re[i] = (t.rx[i] * ex) / d + 8.0 * DBL_EPSILON;
            continue;
        }
        t.ld[i] = pld_profile_log_delta_relerr(eps, &t.p, &t.re[i]);
    }
    if (!st && (sides & 1))
        st = pld_grid_connect_dots_excess(&out[PLD_UPPER], tabulated_upper, t.lx ? tabulated_excess_upper : NULL, &t,
                                          h, t.k0, k1);
    if (!st && (sides & 2)) {
        st = pld_grid_lower_dots(&out[PLD_LOWER], tabulated_lower, tabulated_q_survival, &t, h, t.k0, k1,
                                 pld_profile_atom_spacing(p) != 0.0);
        if (st && (sides & 1)) pld_grid_free(&out[PLD_UPPER]);
    }
    free(t.ld);
    free(t.re);
    free(t.lx);
    free(t.rx);
    free(t.lq_gt);
    free(t.lq_ge);
    return st;
}

/* The untilted single-step grids of every component at step h. */
typedef struct {
    size_t n;
    pld_grid (*g)[WORLDS][2];
} step_grids;

static void step_grids_free(step_grids *sg)
{
    for (size_t c = 0; c < sg->n; c++)
        for (int w = 0; w < WORLDS; w++)
            for (int s = 0; s < 2; s++) pld_grid_free(&sg->g[c][w][s]);
    free(sg->g);
    sg->g = NULL;
}

static int step_grids_build(const pld_state *s, double h, int sides, step_grids *sg)
{
    sg->n = 0;
    sg->g = calloc(s->n, sizeof *sg->g);
    if (!sg->g) return DPA_ENOMEM;
    int st = DPA_OK;
    for (size_t c = 0; c < s->n && !st; c++) {
        for (int w = 0; w < s->worlds && !st; w++)
            for (int side = 0; side < sides && !st; side++) {
                st = discretise(&s->comp[c].pair[w], FULL_TAIL_Z, h, (pld_side)side, &sg->g[c][w][side]);
                if (st) {
                    /* free what this component has so far */
                    for (int w2 = 0; w2 <= w; w2++)
                        for (int s2 = 0; s2 < 2; s2++)
                            if (w2 < w || s2 < side) pld_grid_free(&sg->g[c][w2][s2]);
                }
            }
        if (!st) sg->n = c + 1;
    }
    if (st) step_grids_free(sg);
    return st;
}

/* K(theta) = sum_c times_c log E[e^{theta L_c}] of the upper lattices of a
 * world (finite part): the Chernoff exponent of the composition. */
static double log_mgf(const pld_state *s, const step_grids *sg, int w, double theta)
{
    double k = 0.0;
    for (size_t c = 0; c < s->n; c++)
        k += (double)s->comp[c].times * pld_grid_log_mgf(&sg->g[c][w][PLD_UPPER], theta);
    return k;
}

/* The target of a query: eps for a delta (want_eps) or delta for an eps. */
typedef struct {
    int want_eps;
    double value;
} query;

/* The Chernoff objective at theta: for a delta target the eps at which
 * e^{K - theta eps} = delta, (K - log delta) / theta; for an eps target
 * log of the bound, K - theta eps. */
static double chernoff(const pld_state *s, const step_grids *sg, int w, const query *q, double theta)
{
    double k = log_mgf(s, sg, w, theta);
    return q->want_eps ? (k - log(q->value)) / theta : k - theta * q->value;
}

/* The tilt of a world: minimise the Chernoff objective over log theta by
 * golden-section search (it is quasi-convex); the tilted composition then
 * has its mean near the eps that matters. */
static double choose_theta(const pld_state *s, const step_grids *sg, int w, const query *q)
{
    /* Tilts up to 200, or up to 600 over the widest single-step loss range
     * where that is larger (a small sampling rate: narrow steps whose
     * optimum is in the thousands), so that one step's tilted masses span
     * at most e^600 and stay within the doubles. */
    double range = 0.0;
    for (size_t c = 0; c < s->n; c++) {
        double lo, hi;
        pld_profile_loss_range(&s->comp[c].pair[w], &lo, &hi);
        range = fmax(range, hi - lo);
    }
    double top = range > 0.0 && isfinite(range) ? fmin(1e5, fmax(200.0, 600.0 / range)) : 200.0;
    double a = log(1e-3), b = log(top);
    const double r = 0.6180339887498949;
    double x1 = b - r * (b - a), x2 = a + r * (b - a);
    double f1 = chernoff(s, sg, w, q, exp(x1)), f2 = chernoff(s, sg, w, q, exp(x2));
    for (int it = 0; it < 40; it++) {
        if (!(f1 > f2)) { b = x2; x2 = x1; f2 = f1; x1 = b - r * (b - a); f1 = chernoff(s, sg, w, q, exp(x1)); }
        else { a = x1; x1 = x2; f1 = f2; x2 = a + r * (b - a); f2 = chernoff(s, sg, w, q, exp(x2)); }
    }
    double theta = exp(0.5 * (a + b));
    /* an eps query far below the bulk (Chernoff useless) wants no tilt */
    if (!q->want_eps && !(chernoff(s, sg, w, q, theta) < 0.0)) theta = 0.0;
    return theta <= exp(log(1e-3) + 1e-9) ? 0.0 : theta;
}

static int merge_tree(pld_grid *parts, size_t m, pld_side side, pld_fft_cache *fft, pld_grid *out);

/* Two levels (docs/pld-design.md, "Two levels"): T steps as T2 blocks of
 * T1 = 4^(s+1) steps, each block composed on the lattice of step h, then
 * moved to step 2^s h (pld_grid_coarsen) and the blocks composed there.
 * Rounding a block onto the coarse lattice spreads it like one step's
 * discretisation at the coarse step (a mean-preserving spread whose
 * variance is about (2^s h)^2 / 6 per block, against h^2 / 6 per step), so
 * the T / T1 blocks add T (2^s h)^2 / (6 T1) = T h^2 / 24: a quarter of
 * what the fine lattice adds.  The transforms then cover the composition's
 * width at the coarse step and one block's at the fine step, where one
 * lattice needs the composition's width at the fine step: the points fall
 * by about the factor 2^s, chosen near T^(1/4) / sqrt 2, which balances
 * the two (the block's width grows like sqrt(T1) = 2^(s+1)).  0: one level
 * (fewer than 4 blocks). */
static int two_level_shift(uint64_t times, double theta)
{
    /* Measured (one core, eps queries at eps_error 1e-3): q = 0.01, sigma =
     * 0.8, T = 1e6 / 1e7: 210 -> 92 ms and 1258 -> 135 ms with narrower
     * brackets; q = 1e-4, sigma = 0.8, T = 1e6, delta = 1e-8: width 1.8e-3
     * (not met) -> 1.0e-3 (met); neutral for T <= 1e5 (q 1e-3 .. 0.1).  Worse
     * where the FFT's rounding limits the width (a steep tilt, theta in the
     * hundreds: q = 2e-6, sigma = 1.2, T = 5e6, delta = 1e-9 went from 2.9e-3
     * to 1.2e-2): the block's pad, carried through the second power, is not
     * smoothed as much as one power's rounding.  Hence the gate. */
    if (times < ((uint64_t)1 << 19) || !(theta < 64.0)) return 0;
    double s = nearbyint(log2(pow((double)times, 0.25) / sqrt(2.0)));
    if (!(s >= 1.0)) return 0;
    if (s > 20.0) s = 20.0;
    uint64_t t1 = (uint64_t)1 << (2 * (int)s + 2);
    return times / t1 >= 4 ? (int)s : 0;
}

/* The count-fold composition of a tilted single-step grid, by one level or
 * two (two_level_shift), towards `side`.  With two levels the T steps are
 * T2 blocks, `rest` = T mod T2 of them of T1 + 1 steps and the others of
 * T1 = floor(T / T2) (a remainder block of fewer steps would be too narrow
 * for the coarse lattice: the lower construction refuses it, as it refuses
 * one step at a step much wider than its loss spread). */
static int compose_steps(const pld_grid *one, uint64_t times, pld_side side, pld_fft_cache *fft,
                         pld_grid *out)
{
    int shift = two_level_shift(times, one->theta);
    if (!shift) return pld_grid_self_compose(one, times, side, TAIL_CUT, MAX_FFT, fft, out);
    uint64_t t2 = times >> (2 * shift + 2), t1 = times / t2, rest = times % t2;
    pld_grid block, big, coarse[2], parts[2];
    int have = 0;
    int st = pld_grid_self_compose(one, t1, side, TAIL_CUT, MAX_FFT, fft, &block);
    if (st) return st;
    if (rest) {
        st = pld_grid_compose(&block, one, side, TAIL_CUT, MAX_FFT, fft, &big);
        if (!st) {
            st = pld_grid_coarsen(&big, side, shift, &coarse[1]);
            pld_grid_free(&big);
        }
    }
    if (!st) {
        st = pld_grid_coarsen(&block, side, shift, &coarse[0]);
        if (st && rest) pld_grid_free(&coarse[1]);
    }
    pld_grid_free(&block);
    if (st) return st;
    /* t2 - rest blocks of t1 steps, rest blocks of t1 + 1 */
    for (int i = 0; i < 2; i++) {
        uint64_t count = i ? rest : t2 - rest;
        if (!st && count) {
            pld_grid_trim(&coarse[i], side, TAIL_CUT / (double)t2);
            st = pld_grid_self_compose(&coarse[i], count, side, TAIL_CUT, MAX_FFT, fft, &parts[have]);
            if (!st) have++;
        }
    }
    pld_grid_free(&coarse[0]);
    if (rest) pld_grid_free(&coarse[1]);
    if (st) {
        for (int i = 0; i < have; i++) pld_grid_free(&parts[i]);
        return st;
    }
    return merge_tree(parts, (size_t)have, side, fft, out);
}

/* One component of one world, both sides, at step h and tilt theta,
 * composed with itself `times` times.  Trimming the single step first keeps
 * the first transforms small: most of its loss range holds negligible mass. */
static int component_grids(const pld_component *c, int w, double z, double h, double theta, int upper_only,
                           pld_fft_cache *fft, pld_grid out[2])
{
    pld_grid one[2];
    memset(one, 0, sizeof one);
    int st = upper_only ? discretise_tabulated(&c->pair[w], z, h, 1, one) : discretise_both(&c->pair[w], z, h, one);
    if (st) return st;
    int done = 0;
    for (int side = 0; side < (upper_only ? 1 : 2) && !st; side++) {
        st = pld_grid_tilt(&one[side], theta, (pld_side)side);
        if (!st) {
            pld_grid_trim(&one[side], (pld_side)side, TAIL_CUT / (double)c->times);
            st = compose_steps(&one[side], c->times, (pld_side)side, fft, &out[side]);
        }
        if (!st) done = side + 1;
    }
    if (st) for (int side = 0; side < done; side++) pld_grid_free(&out[side]);
    pld_grid_free(&one[0]);
    pld_grid_free(&one[1]);
    return st;
}

/* Merge m grids of one side pairwise, as a balanced tree, so that each
 * convolution joins grids of similar size (a sequential fold would
 * convolve the growing total with every small component).  Frees them. */
static int merge_tree(pld_grid *parts, size_t m, pld_side side, pld_fft_cache *fft, pld_grid *out)
{
    int st = DPA_OK;
    while (m > 1) {
        size_t k = 0;
        for (size_t i = 0; i + 1 < m; i += 2) {
            pld_grid joined;
            st = pld_grid_compose(&parts[i], &parts[i + 1], side, TAIL_CUT, MAX_FFT, fft, &joined);
            if (st) {
                for (size_t j = 0; j < k; j++) pld_grid_free(&parts[j]);
                for (size_t j = i; j < m; j++) pld_grid_free(&parts[j]);
                return st;
            }
            pld_grid_free(&parts[i]);
            pld_grid_free(&parts[i + 1]);
            parts[k++] = joined;
        }
        if (m % 2) parts[k++] = parts[m - 1];
        m = k;
    }
    *out = parts[0];
    return DPA_OK;
}

/* Compose every component of one world, both sides. */
static int compose_world(const pld_state *s, int w, double h, double theta, pld_grid out[2])
{
    pld_grid *parts = calloc(2 * s->n, sizeof *parts);   /* [side * n + c] */
    if (!parts) return DPA_ENOMEM;
    size_t m = 0;
    int st = DPA_OK;
    for (size_t c = 0; c < s->n && !st; c++) {
        pld_grid both[2];
        st = component_grids(&s->comp[c], w, s->tail_z, h, theta, s->upper_only, s->fft, both);
        if (!st) {
            parts[m] = both[PLD_UPPER];
            parts[s->n + m] = both[PLD_LOWER];
            m++;
        }
    }
    if (st) {
        for (size_t i = 0; i < m; i++) {
            pld_grid_free(&parts[i]);
            pld_grid_free(&parts[s->n + i]);
        }
    } else {
        st = merge_tree(parts, m, PLD_UPPER, s->fft, &out[PLD_UPPER]);
        if (st) for (size_t i = 0; i < m; i++) pld_grid_free(&parts[s->n + i]);
        else if (s->upper_only) memset(&out[PLD_LOWER], 0, sizeof out[PLD_LOWER]);
        else {
            st = merge_tree(parts + s->n, m, PLD_LOWER, s->fft, &out[PLD_LOWER]);
            if (st) pld_grid_free(&out[PLD_UPPER]);
        }
    }
    free(parts);
    return st;
}

/* ---- random allocation: the nested compositions ----------------------------------- */

/* The nested grids (pld_allocation.c), built once: their bracket is the
 * allocation pair's profile at every step the query's refinement tries.
 * - Step 1e-4 (or s/64 where finer, s = sqrt(T q^2 (e^{1/sigma^2} - 1)) at
 *   q = 1/T, the spread of the composition's loss near zero), finer again
 *   (by 4, NESTED_TRIES times) while one step's losses, of order q, are too
 *   fine for it: the lower construction refuses, or merges the step into a
 *   few nodes.  At 1e-4 the T-fold composition's bracket is well inside the
 *   1e-3 the queries ask by default (tests/test_allocation_pld.c).
 * - Tilt 1 for both sides, whose FFT rounding is small relative to the
 *   profile where it is not tiny; the upper side again at tilt 8, whose
 *   rounding shrinks like e^{-8 eps'} into the right tail, where tilt 1's is
 *   a floor (T = 235, sigma = 1.1: about 1e-10 an epoch at tilt 1, 1e-12 in
 *   the add world and none visible above 1e-17 in the remove world at 8;
 *   tilt 8 alone widens the left part: T = 2 at eps 0 by half).  The lower
 *   side keeps tilt 1 (one lattice must give both its values and its
 *   masses).  Tilts scaled to 1/s instead (steeper for long epochs) fail:
 *   one step's lognormal tail then dominates the tilted measure (T = 235:
 *   1/s = 11.7 trims the bulk away). */
#define NESTED_STEP 1e-4
#define NESTED_TRIES 4                  /* down to 1e-4 / 4^3 */
#define NESTED_THETA 1.0
#define NESTED_STEEP_THETA 8.0

static double nested_spread(double sigma, uint64_t steps)
{
    double v = expm1(1.0 / (sigma * sigma)) / (double)steps;
    return isfinite(v) && v > 0.0 ? sqrt(v) : INFINITY;
}

static int build_nested(pld_state *s, double sigma, uint64_t steps, int add, pld_nested **out)
{
    pld_nested *n = calloc(1, sizeof *n);
    if (!n) return DPA_ENOMEM;
    n->add = add;
    n->steps = steps;
    n->sigma = sigma;
    pld_allocation_lambda(steps, &n->lambda_lo, &n->lambda_hi);
    const double q = 1.0 / (double)steps;
    pld_component c = { { { .pair = PLD_POISSON_REMOVE, .sigma = sigma, .q = q },
                          { .pair = PLD_POISSON_ADD, .sigma = sigma, .q = q } },
                        steps };
    const double spread = nested_spread(sigma, steps);
    /* A small q (many steps an epoch) makes one step's losses of order q,
     * which a coarse step cannot discretise from below: finer steps then,
     * until one builds or the transform limit refuses them. */
    int st = DPA_EACCURACY;
    double h = isfinite(spread) ? fmin(NESTED_STEP, spread / 64.0) : NESTED_STEP;
    for (int i = 0; i < NESTED_TRIES && st == DPA_EACCURACY; i++, h *= 0.25) {
        st = component_grids(&c, add, FULL_TAIL_Z, h, NESTED_THETA, 0, s->fft, n->grid);
        /* a lower lattice merged into a few nodes says nothing: finer */
        if (!st && 4 * n->grid[PLD_LOWER].n < n->grid[PLD_UPPER].n) {
            pld_grid_free(&n->grid[PLD_UPPER]);
            pld_grid_free(&n->grid[PLD_LOWER]);
            st = DPA_EACCURACY;
        }
    }
    if (!st) {
        pld_grid steep[2];
        /* a steep tilt may not build (losses beyond the doubles' reach at
         * e^{8 l}): then the first pair of grids serves alone */
        if (!component_grids(&c, add, FULL_TAIL_Z, n->grid[PLD_UPPER].h, NESTED_STEEP_THETA, 1, s->fft, steep)) {
            n->steep = steep[PLD_UPPER];
            n->n_steep = 1;
        }
        st = pld_nested_finish(n);
    }
    if (st) {
        pld_nested_free(n);
        free(n);
        return st;
    }
    *out = n;
    return DPA_OK;
}

/* Points a random allocation pair at its nested composition, built once
 * per world, sigma and T. */
static int own_nested(pld_state *s, pld_profile pair[WORLDS], dpa_error *err)
{
    if (pair[0].pair != PLD_ALLOCATION_REMOVE) return DPA_OK;
    for (int w = 0; w < WORLDS; w++) {
        const pld_nested *found = NULL;
        for (size_t i = 0; i < s->n_nested && !found; i++) {
            const pld_nested *n = s->nested[i];
            if (n->add == w && n->steps == pair[w].k && n->sigma == pair[w].sigma) found = n;
        }
        if (!found) {
            if (s->n_nested == s->cap_nested) {
                size_t cap = s->cap_nested ? 2 * s->cap_nested : 4;
                pld_nested **grown = realloc(s->nested, cap * sizeof *grown);
                if (!grown) return dpa_fail(err, DPA_ENOMEM, "pld: out of memory");
                s->nested = grown;
                s->cap_nested = cap;
            }
            pld_nested *n;
            int st = build_nested(s, pair[w].sigma, pair[w].k, w, &n);
            if (st == DPA_ENOMEM) return dpa_fail(err, st, "pld: out of memory");
            if (st)
                return dpa_fail(err, st,
                                "pld: random_allocation: the %llu-fold Poisson composition (sigma %g, q = 1/%llu) its "
                                "decomposition reads could not be built (one step's losses, of order q, or a noise "
                                "this small, need a finer lattice than the transform's limit allows); use rdp",
                                (unsigned long long)pair[w].k, pair[w].sigma, (unsigned long long)pair[w].k);
            s->nested[s->n_nested++] = n;
            found = n;
        }
        pair[w].nested = found;
    }
    return DPA_OK;
}

static int build_result(const pld_state *s, double h, const double theta[WORLDS], pld_result *r)
{
    memset(r, 0, sizeof *r);
    r->h = h;
    r->worlds = s->worlds;
    r->upper_only = s->upper_only;
    int st = DPA_OK;
    for (int w = 0; w < s->worlds && !st; w++) {
        r->theta[w] = theta[w];
        st = compose_world(s, w, h, theta[w], r->grid[w]);
        for (int side = 0; side < (r->upper_only ? 1 : 2) && !st; side++)
            st = pld_profile_table_init(&r->table[w][side], &r->grid[w][side]);
    }
    if (st) result_free(r);
    return st;
}

/* ---- queries -------------------------------------------------------------------- */

/* Whether every single step fits in the transform limit at step h. */
static int steps_fit(const pld_state *s, double h)
{
    for (size_t c = 0; c < s->n; c++)
        for (int w = 0; w < s->worlds; w++) {
            double lo, hi;
            pld_profile_loss_range_z(&s->comp[c].pair[w], s->tail_z, &lo, &hi);
            if ((hi - lo) / h + 4.0 > (double)(MAX_FFT / 2)) return 0;
        }
    return 1;
}

/* The lattice every component's atoms lie on: the largest spacing a of
 * which every pair's atom spacing is a whole multiple, 0 when no pair has
 * atoms (off loss 0), NaN when there is no common lattice. */
static double common_atom_spacing(const pld_state *s)
{
    double a = 0.0;
    for (size_t c = 0; c < s->n; c++)
        for (int w = 0; w < s->worlds; w++) {
            double sp = pld_profile_atom_spacing(&s->comp[c].pair[w]);
            if (sp == 0.0) continue;
            if (!(sp > 0.0) || !isfinite(sp)) return NAN;
            if (a == 0.0) { a = sp; continue; }
            double big = fmax(a, sp), small = fmin(a, sp), r = big / small;
            if (fabs(r - nearbyint(r)) > 1e-9 * r) return NAN;
            a = small;
        }
    return a;
}

/* The grid step for a pass: h itself, or the largest a / 2^m <= h when
 * the atoms lie on a lattice of spacing a, so that they sit on nodes -- where
 * connect-the-dots and the lower construction are exact, instead of the
 * lower one drifting by about h per step as rounding down does (randomized
 * response, (eps, delta), Laplace, discrete mechanisms).  A power of two,
 * because then node k h = (k a) 2^-m is the double nearest j a itself
 * (k = j 2^m), so an atom at the double a (or -a, 0) is exactly on a node.
 * Kept unsnapped when the snapped step would not fit. */
static int steps_fit(const pld_state *s, double h);
static double snap_step(const pld_state *s, double h)
{
    double a = common_atom_spacing(s);
    if (!(a > 0.0) || !(h > 0.0)) return h;
    int e;
    double r = frexp(a / h, &e);      /* a/h = r 2^e, r in [0.5, 1) */
    if (r == 0.5) e--;                /* a/h a power of two already */
    if (e < 0) e = 0;
    if (e > 60) return h;
    double snapped = ldexp(a, -e);
    return steps_fit(s, snapped) ? snapped : h;
}

/* Whether every single step discretises at h: after a failed build, yes
 * means the transform limit failed it (a finer step does not help), no
 * that the lower construction refused a coarse step (a finer one helps). */
static int all_steps_discretise(const pld_state *s, double h)
{
    for (size_t c = 0; c < s->n; c++)
        for (int w = 0; w < s->worlds; w++) {
            pld_grid g;
            int st = discretise(&s->comp[c].pair[w], s->tail_z, h, s->upper_only ? PLD_UPPER : PLD_LOWER, &g);
            if (st) return 0;
            pld_grid_free(&g);
        }
    return 1;
}

/* The bracket of a result for a query: eps(delta) or delta(eps), the larger
 * over the worlds on each side. */
static void bracket(const pld_result *r, const query *q, double *lower, double *upper)
{
    *lower = 0.0;
    *upper = 0.0;
    for (int w = 0; w < r->worlds; w++) {
        double up = q->want_eps ? pld_profile_table_epsilon(&r->table[w][PLD_UPPER], q->value, PLD_UPPER, 0.0)
                                : pld_profile_table_delta(&r->table[w][PLD_UPPER], q->value, PLD_UPPER);
        double lo = r->upper_only ? 0.0
                    : q->want_eps ? pld_profile_table_epsilon(&r->table[w][PLD_LOWER], q->value, PLD_LOWER, up)
                                  : pld_profile_table_delta(&r->table[w][PLD_LOWER], q->value, PLD_LOWER);
        *lower = fmax(*lower, lo);
        *upper = fmax(*upper, up);
    }
}

static int accurate_enough(double lower, double upper, double eps_error)
{
    if (upper == 0.0 || lower == upper) return 1;   /* also both +inf: certainly unbounded */
    if (isinf(upper)) return 0;                      /* inf - lower <= eps_error inf holds, but says nothing */
    return upper - lower <= eps_error * upper;
}

/* The tilt of every world on the lattices sg (a world not composed, the
 * same pair, takes world 0's). */
static void choose_thetas(const pld_state *s, const step_grids *sg, const query *q, double theta[WORLDS])
{
    theta[0] = choose_theta(s, sg, 0, q);
    for (int w = 1; w < WORLDS; w++) theta[w] = w < s->worlds ? choose_theta(s, sg, w, q) : theta[0];
}

/* The starting grid step: the composed loss has spread s_T = sqrt(sum
 * times Var L); connect-the-dots and its lower mirror each move eps by
 * about z h^2 sqrt(T) / (8 sqrt(Var)) (a mean-preserving spread adds at
 * most h^2/4 of variance per step), so a width of eps_error * eps asks for
 * h ~ sqrt(eps_error eps s_T / T) (the constant 0.5 measured on the
 * subsampled Gaussian; the refinement loop corrects a wrong guess).  Var and eps are estimated on a coarse
 * lattice at step h_coarse. */
static double starting_step(const pld_state *s, const step_grids *sg, const query *q, double eps_error,
                            double h_coarse, double theta[WORLDS])
{
    double var = 0.0, steps = 0.0;
    for (size_t c = 0; c < s->n; c++) {
        const pld_grid *g = &sg->g[c][0][PLD_UPPER];
        double m1 = 0.0, m2 = 0.0, tot = 0.0;
        for (size_t i = 0; i < g->n; i++) {
            double l = (double)(g->first + (int64_t)i) * g->h;
            tot += g->mass[i];
            m1 += g->mass[i] * l;
            m2 += g->mass[i] * l * l;
        }
        if (tot > 0.0) var += (double)s->comp[c].times * fmax(0.0, m2 / tot - (m1 / tot) * (m1 / tot));
        steps += (double)s->comp[c].times;
    }
    double eps = q->want_eps ? chernoff(s, sg, 0, q, 1.0) : q->value;
    choose_thetas(s, sg, q, theta);
    for (int w = 0; w < s->worlds; w++)
        if (q->want_eps && theta[w] > 0.0) eps = fmax(eps, chernoff(s, sg, w, q, theta[w]));
    if (!(eps > 0.0) || !isfinite(eps)) eps = 1.0;
    double h = 0.5 * sqrt(eps_error * eps * sqrt(var) / steps);
    if (!(h > 0.0) || !isfinite(h)) h = h_coarse;
    return fmin(fmax(h, h_coarse / 1000.0), h_coarse * 100.0);
}

/* The coarse step: a few hundred points across the widest single-step loss
 * range. */
static double coarse_step(const pld_state *s)
{
    double width = 0.0;
    for (size_t c = 0; c < s->n; c++)
        for (int w = 0; w < s->worlds; w++) {
            double lo, hi;
            pld_profile_loss_range(&s->comp[c].pair[w], &lo, &hi);
            width = fmax(width, hi - lo);
        }
    return width > 0.0 ? width / 400.0 : 1e-2;
}

/* How far out the single steps are discretised.  Outside the range cut at
 * z normal standard deviations each step holds about 2 Phibar(z) of P-mass,
 * which the grids move up (to the first node or to +inf, upper) or drop
 * (lower): valid at any z, and it moves delta by at most T 2 Phibar(z).  For
 * an eps query that is kept below 1e-3 of the accuracy asked for at its
 * delta, (1e-3 eps_error delta / T); a delta query, whose answer is not known
 * beforehand, keeps the full range.  Discretising the far tails at the fine
 * step dominated heterogeneous compositions. */
static double tail_cut_z(const pld_state *s, const query *q, double eps_error)
{
    if (!q->want_eps) return FULL_TAIL_Z;
    double steps = 0.0;
    for (size_t c = 0; c < s->n; c++) steps += (double)s->comp[c].times;
    double budget = 1e-3 * eps_error * q->value / fmax(steps, 1.0);
    if (!(budget > 0.0)) return FULL_TAIL_Z;
    /* Phibar(z) <= e^{-z^2/2} / (z sqrt(2 pi)) <= budget / 4 for z >= 1 */
    double z = sqrt(2.0 * log(4.0 / budget));
    return fmin(FULL_TAIL_Z, fmax(5.0, z));
}

/* The answer to a query from its bracket: estimate, flags.  [0, +inf] for
 * eps and [0, 1] for delta is the widest valid answer, which every path
 * that finds nothing better leaves in place. */
static void answer(pld_state *s, const query *q, double lower, double upper, dpa_bound *out)
{
    memset(out, 0, sizeof *out);
    out->lower = lower;
    out->upper = upper;
    out->estimate = isfinite(upper) ? 0.5 * (lower + upper) : lower;
    out->flags = q->want_eps && !isfinite(upper) ? (unsigned)DPA_UNBOUNDED : 0u;
    if (s->pair_lower) out->flags |= DPA_PAIR_LOWER;
}

/* What is known of a query's answer without the grids: the gaussian and
 * rdp accountants' answers to it, where they could compose every event --
 * an upper bound is an upper bound whoever certifies it, so the smaller
 * upper is kept (the closed form of a Gaussian composition, where the
 * grids cannot reach delta = 1e-300; RDP where no grid fits), and an exact
 * lower bound (the Gaussian's) is a lower bound -- and delta <= 1. */
typedef struct {
    double lower, upper;
    int pair_lower;     /* the grids' lower bounds are a dominating pair's (pld_state) */
} known_span;

static known_span with_fallbacks(pld_state *s, const query *q)
{
    known_span k = { 0.0, q->want_eps ? INFINITY : 1.0, s->pair_lower };
    for (int i = 0; i < FALLBACKS; i++) {
        dpa_bound fb;
        if (!s->fallback[i]) continue;
        int st = q->want_eps ? dpa_accountant_epsilon(s->fallback[i], q->value, &fb, NULL)
                             : dpa_accountant_delta(s->fallback[i], q->value, &fb, NULL);
        if (st || (fb.flags & DPA_APPROXIMATE)) continue;
        k.upper = fmin(k.upper, fb.upper);
        if (!(fb.flags & (DPA_NO_LOWER | DPA_PAIR_LOWER))) k.lower = fmax(k.lower, fb.lower);
    }
    return k;
}

#define SINGLE_STEP_MIN_SIGMA 0.05
#define SINGLE_STEP_MAX_EPS 512.0

/* One step (a single component composed once) needs no grid: its profile
 * is delta itself.  The pair's log delta with its relative error bound
 * (pld_profile_log_delta_relerr), raised (sign +1) or lowered (-1), minus
 * log target: decreasing in eps. */
typedef struct {
    const pld_profile *p;
    double log_target, sign;
} step_root;

static double step_excess(double eps, void *ctx)
{
    const step_root *r = ctx;
    double re, ld = pld_profile_log_delta_relerr(eps, r->p, &re);
    if (isnan(ld) || isnan(re)) return NAN;
    return ld + (r->sign > 0.0 ? log1p(re) : log1p(-fmin(re, 1.0))) - r->log_target;
}

/* eps(delta) of one world from its profile: where the raised (upper) or
 * lowered (lower) log delta crosses log delta, the side of the crossing
 * whose sign is verified (dpa_find_root).  DPA_EACCURACY when the profile
 * gives NaN. */
static int step_epsilon(const pld_profile *p, double delta, double sign, double *out)
{
    step_root r = { p, log(delta), sign };
    double f0 = step_excess(0.0, &r);
    if (isnan(f0)) return DPA_EACCURACY;
    if (!(f0 > 0.0)) {
        *out = 0.0;
        return DPA_OK;
    }
    double hi = 1.0, fh = step_excess(hi, &r);
    while (fh > 0.0 && hi < SINGLE_STEP_MAX_EPS) fh = step_excess(hi *= 2.0, &r);
    if (!(fh <= 0.0)) return DPA_EACCURACY;   /* beyond the range trusted (or NaN): the grids answer */
    dpa_root root;
    int st = dpa_find_root(step_excess, &r, 0.0, hi, 0.0, 1e-14, 300, &root);
    if (st) return DPA_EACCURACY;
    /* upper: f <= 0 there, delta(eps) <= target; lower: f > 0, delta above it */
    *out = sign > 0.0 ? root.at_hi_side : root.at_lo_side;
    return DPA_OK;
}

/* The exact bracket of a single step, the larger over the worlds: for a
 * Poisson-sampled Gaussian of noise in [SINGLE_STEP_MIN_SIGMA, 1e4] and
 * eps up to SINGLE_STEP_MAX_EPS, the ranges where its profile's error
 * bound was checked against references (tests/test_pld.c,
 * tests/test_property.c).  Elsewhere DPA_EACCURACY and the grids answer:
 * used everywhere, the profile's bound failed at extremes the grids
 * survive (a Gaussian of sigma 1e300: delta(0) 8.9e-163 for a true
 * 4e-301; a Poisson-sampled one of sigma 7e-68: eps 709.8 for a true
 * 1e134, e^eps overflowing past 709). */
/* Whether one step of pair p has its profile from the closed form here. */
static int single_step_exact(const pld_profile *p)
{
    return (p->pair == PLD_POISSON_REMOVE || p->pair == PLD_POISSON_ADD) && p->sigma >= SINGLE_STEP_MIN_SIGMA &&
           p->sigma <= 1e4;
}

/* One step's delta at eps from its pair's profile, with its error bound. */
static int single_step_delta(const pld_profile *p, double eps, double *lower, double *upper)
{
    if (!single_step_exact(p) || !(eps >= 0.0 && eps <= SINGLE_STEP_MAX_EPS)) return DPA_EACCURACY;
    double re, ld = pld_profile_log_delta_relerr(eps, p, &re);
    if (isnan(ld) || isnan(re)) return DPA_EACCURACY;
    double d = exp(ld);
    *lower = d * (1.0 - fmin(re, 1.0)) * (1.0 - DBL_EPSILON);
    *upper = fmin(1.0, d * (1.0 + re) * (1.0 + DBL_EPSILON));
    return DPA_OK;
}

static int single_step_span(const pld_state *s, const query *q, known_span *k)
{
    double lower = 0.0, upper = 0.0;
    for (int w = 0; w < s->worlds; w++) {
        const pld_profile *p = &s->comp[0].pair[w];
        if (!single_step_exact(p)) return DPA_EACCURACY;
        double l, u;
        if (q->want_eps) {
            if (step_epsilon(p, q->value, -1.0, &l) || step_epsilon(p, q->value, 1.0, &u)) return DPA_EACCURACY;
        } else if (single_step_delta(p, q->value, &l, &u))
            return DPA_EACCURACY;
        lower = fmax(lower, l);
        upper = fmax(upper, u);
    }
    k->lower = fmax(k->lower, lower);
    k->upper = fmin(k->upper, upper);
    return DPA_OK;
}

/* Whether some component's privacy loss is unbounded (a Gaussian tail):
 * then delta(eps) > 0 at every eps. */
static int gaussian_pair(pld_pair k)
{
    return k == PLD_GAUSSIAN || k == PLD_POISSON_REMOVE || k == PLD_POISSON_ADD || k == PLD_DISCRETE_GAUSSIAN ||
           k == PLD_REPLACE_GAUSSIAN || k == PLD_TRUNCATED_REMOVE || k == PLD_TRUNCATED_ADD ||
           k == PLD_MIXTURE_REMOVE || k == PLD_MIXTURE_ADD || k == PLD_ALLOCATION_REMOVE || k == PLD_ALLOCATION_ADD;
}

static int has_unbounded_loss(const pld_state *s)
{
    for (size_t c = 0; c < s->n; c++)
        for (int w = 0; w < s->worlds; w++) {
            const pld_profile *p = &s->comp[c].pair[w];
            int composite = p->pair == PLD_SAMPLED_REMOVE || p->pair == PLD_SAMPLED_ADD ||
                            p->pair == PLD_WITHOUT_REPLACEMENT;
            if (gaussian_pair(p->pair) || (composite && gaussian_pair(p->inner))) return 1;
        }
    return 0;
}

/* A grid bracket narrowed by what is known without the grids. */
static void narrow(const known_span *k, double *lower, double *upper)
{
    if (k->upper < *upper) *upper = k->upper;
    if (k->lower > *lower && k->lower <= *upper) *lower = k->lower;
    /* A lower bound of a dominating pair (DPA_PAIR_LOWER) may exceed another
     * accountant's upper bound for the mechanism itself (rdp's for random
     * allocation, below Feldman & Shenfeld's decomposition pair at large
     * eps): the pair's bound then says nothing the upper does not, and the
     * upper, below the pair's delta, is a lower bound of it too. */
    if (k->pair_lower && *lower > *upper) *lower = *upper;
}

static int met(const known_span *k, double lower, double upper, double eps_error)
{
    narrow(k, &lower, &upper);
    return accurate_enough(lower, upper, eps_error);
}

/* Every bracket a query's grids give is certified, so their intersection
 * is; two that do not meet would mean one is wrong, and then both are kept
 * (their hull), never the narrower guess. */
static void intersect(double *lower, double *upper, double l, double u)
{
    if (l > *upper || u < *lower) {
        *lower = fmin(*lower, l);
        *upper = fmax(*upper, u);
        return;
    }
    *lower = fmax(*lower, l);
    *upper = fmin(*upper, u);
}

/* The nodes of every single step's grids at step h: what a pass
 * discretises (both sides, each world) before any transform. */
static double step_nodes(const pld_state *s, double h)
{
    double n = 0.0;
    for (size_t c = 0; c < s->n; c++)
        for (int w = 0; w < s->worlds; w++) {
            double lo, hi;
            pld_profile_loss_range_z(&s->comp[c].pair[w], s->tail_z, &lo, &hi);
            n += 2.0 * ((hi - lo) / h + 4.0);
        }
    return n;
}

/* The finest grid step worth trying: nodes k h finer than 64 ulps of the
 * largest loss are not apart in doubles, and below MIN_STEP neither are
 * the e^{k h} of the lower construction (it refuses such steps, after
 * evaluating the profile at every node, in the subnormal range for the
 * tiniest losses: minutes). */
static double finest_step(const pld_state *s)
{
    double m = 0.0;
    for (size_t c = 0; c < s->n; c++)
        for (int w = 0; w < s->worlds; w++) {
            double lo, hi;
            pld_profile_loss_range_z(&s->comp[c].pair[w], s->tail_z, &lo, &hi);
            if (isfinite(lo)) m = fmax(m, fabs(lo));
            if (isfinite(hi)) m = fmax(m, fabs(hi));
        }
    return fmax(MIN_STEP, 64.0 * DBL_EPSILON * m);
}

/* One pass: the grids at step h (snapped, *h_used), their bracket in
 * [*l, *u], kept as the accountant's result when they are the finest of
 * this query (*kept: one is).  Returns PASS_BUILT, PASS_TOO_COARSE when
 * the lower construction refused the step (a finer one helps),
 * PASS_TOO_FINE when a transform would exceed MAX_FFT (a coarser one
 * helps), or DPA_ENOMEM. */
enum { PASS_BUILT = 0, PASS_TOO_COARSE = 1, PASS_TOO_FINE = 2 };
static int pass(pld_state *s, const query *q, double h, const double theta[WORLDS], int *kept, double *h_used,
                double *work, double *l, double *u)
{
    double hs = snap_step(s, h);
    *h_used = hs;
    *work = 0.0;
    if (!steps_fit(s, hs)) return PASS_TOO_FINE;
    pld_result r;
    double before = pld_fft_cache_work(s->fft);
    int st = build_result(s, hs, theta, &r);
    *work = pld_fft_cache_work(s->fft) - before;
    if (st == DPA_ENOMEM) return st;
    if (st) return all_steps_discretise(s, hs) ? PASS_TOO_FINE : PASS_TOO_COARSE;
    bracket(&r, q, l, u);
    if (*kept && !(hs < s->result.h)) {
        result_free(&r);
        return PASS_BUILT;
    }
    forget_result(s);
    s->result = r;
    s->have_result = 1;
    /* the tables point at the grids they summarise: re-point them at the
     * grids' new home */
    for (int w = 0; w < WORLDS; w++)
        for (int side = 0; side < 2; side++) s->result.table[w][side].g = &s->result.grid[w][side];
    s->last_h = hs;
    *kept = 1;
    return PASS_BUILT;
}

/* The bracket the grids would give without the FFT's rounding (pad 0):
 * not a certified one, only a measure of how much of the width the
 * discretisation makes (run_query_grids' ladder). */
static void bracket_unpadded(const pld_result *r, const query *q, double *lower, double *upper)
{
    pld_result copy = *r;
    for (int w = 0; w < WORLDS; w++)
        for (int side = 0; side < 2; side++) {
            copy.grid[w][side].pad = 0.0;
            copy.table[w][side].g = &copy.grid[w][side];
        }
    bracket(&copy, q, lower, upper);
}

static int run_query_grids(pld_state *s, const query *q, double eps_error, known_span *known,
                           double *lower, double *upper, char *why, size_t why_size);

/* A query always answers with the best certified bracket it found; one
 * wider than eps_error is flagged DPA_WIDTH_NOT_MET and is DPA_OK, unless
 * the caller asked for a hard failure (dpa_options.require_width):
 * DPA_EACCURACY with the same bracket in `out`. */
static int run_query(pld_state *s, const dpa_options *opt, const query *q, dpa_bound *out,
                     dpa_error *err)
{
    double eps_error = opt->tolerance > 0.0 ? opt->tolerance : DEFAULT_EPS_ERROR;
    if (s->n == 0) {                       /* nothing composed: eps = 0, delta = 0 */
        memset(out, 0, sizeof *out);
        out->flags = DPA_EXACT;
        return DPA_OK;
    }
    known_span known = with_fallbacks(s, q);
    /* one step: exact from its profile (the grids are still built, for
     * dpa_accountant_pld's view; they stop at once when this meets) */
    if (s->n == 1 && s->comp[0].times == 1) (void)single_step_span(s, q, &known);
    double lower = 0.0, upper = INFINITY;
    char why[160] = "";
    int st = run_query_grids(s, q, eps_error, &known, &lower, &upper, why, sizeof why);
    if (st) return dpa_fail(err, st, "pld: out of memory (%s)", why);
    narrow(&known, &lower, &upper);
    /* An upper delta of 0 where the losses are unbounded is a true delta
     * below the doubles (its logarithm past -DBL_MAX, or a pad's effect
     * underflowing): the smallest positive double, never 0 (a Gaussian of
     * sigma 1.5e160 composed with a Laplace, delta(3.4), gave 0 from the
     * upper grids alone) */
    if (!q->want_eps && upper == 0.0 && has_unbounded_loss(s)) upper = DBL_TRUE_MIN;
    answer(s, q, lower, upper, out);
    if (accurate_enough(lower, upper, eps_error)) return DPA_OK;
    out->flags |= DPA_WIDTH_NOT_MET;
    if (!opt->require_width) return DPA_OK;
    return dpa_fail(err, DPA_EACCURACY, "pld: bracket [%.6g, %.6g] (width %.2g of upper) is wider than eps_error %g "
                    "allows: %s", lower, upper, isfinite(upper) && upper > 0.0 ? (upper - lower) / upper : 1.0,
                    eps_error, why);
}

/* The rungs after a grid step h_a that built ([l_a, u_a], work_a), and
 * the walk over them (steps 2 and 3 of run_query_grids); [*lower,
 * *upper] holds the intersection so far.
 *
 * The anchor's width splits into the FFT's rounding (the certified bound
 * `pad`, which finer grids do not shrink: they hold more points) and the
 * rest, the discretisation, which shrinks like h^2, halving from rung to
 * rung.  Past the rung where the discretisation is predicted below an
 * eighth of the rounding, refining cannot narrow the bracket by more than
 * a ninth: the ladder ends there, or where the single steps no longer fit,
 * or where the predicted work passes PASS_BUDGET -- all three known from
 * the anchor, before any rung is built.  A query starts at the first rung
 * predicted to meet eps_error (rounding + disc r^2k <= eps_error, where
 * the h^2 model from a coarse anchor is on the safe side: the widths
 * measured were 2-3 times narrower; the last rung when the rounding alone
 * is too wide).
 *
 * Without that model (the anchor's lower bound is 0, or its upper +inf)
 * every query walks the rungs from the first, stopping where a rung gives
 * the model (it becomes the anchor) or when two rungs in a row narrow the
 * bracket by less than 30% (a floor finer grids do not remove): the same
 * rungs for every eps_error, until one is met. */
static int walk(pld_state *s, const query *q, double eps_error, const known_span *known, const double theta[WORLDS],
                double h_a, double hs_a, double work_a, double l_a, double u_a, int *kept,
                double *lower, double *upper, char *why, size_t why_size)
{
    for (;;) {
        double rho = u_a > 0.0 ? (u_a - l_a) / u_a : 0.0, disc = NAN, rounding = 0.0;
        if (rho > 0.0 && rho < 1.0) {
            double l_np, u_np;
            bracket_unpadded(&s->result, q, &l_np, &u_np);
            disc = (u_np - l_np) / u_a;
            if (!(disc > 0.0 && disc <= rho)) disc = rho;
            rounding = rho - disc;
        }
        double cost_a = work_a + NODE_WORK * step_nodes(s, hs_a), finest = finest_step(s);
        int k_last = 0;
        const char *end = "the last rung of the ladder";
        for (int k = 1; k <= MAX_RUNGS; k++) {
            double hs = snap_step(s, h_a * pow(RUNG_RATIO, k));
            if (!steps_fit(s, hs) || cost_a * (hs_a / hs) > PASS_BUDGET || hs < finest) {
                end = "the work budget or the transform limit";
                break;
            }
            k_last = k;
            if (rounding > 0.0 && disc * pow(RUNG_RATIO, 2.0 * k) <= 0.125 * rounding) {
                end = "the FFT's rounding";
                break;
            }
        }
        snprintf(why, why_size, "%s at grid step %g", end, snap_step(s, h_a * pow(RUNG_RATIO, k_last)));
        int k = 1;
        if (!isnan(disc)) {
            double room = eps_error - rounding;
            double k0 = room > 0.0 ? ceil(log(disc / room) / (2.0 * log(1.0 / RUNG_RATIO))) : k_last;
            k = !(k0 >= 1.0) ? 1 : k0 > (double)k_last ? k_last : (int)k0;
        }
        int dir = 1, built = 0, weak = 0, reanchor = 0;
        double last_hs = hs_a, prev_width = INFINITY;
        {
            double l = *lower, u = *upper;
            narrow(known, &l, &u);
            prev_width = u - l;
        }
        while (k >= 1 && k <= k_last) {
            double hs = snap_step(s, h_a * pow(RUNG_RATIO, k)), work, l, u;
            if (hs == last_hs || hs == hs_a) {       /* the same grids as a rung built */
                k += dir;
                continue;
            }
            int o = pass(s, q, h_a * pow(RUNG_RATIO, k), theta, kept, &hs, &work, &l, &u);
            if (o < 0) return snprintf(why, why_size, "grid step %g", hs), o;
            if (o == PASS_BUILT) {
                built = 1;
                last_hs = hs;
                intersect(lower, upper, l, u);
                if (met(known, *lower, *upper, eps_error) || dir < 0) return DPA_OK;
                if (isnan(disc)) {
                    double nl = *lower, nu = *upper;
                    narrow(known, &nl, &nu);
                    weak = !(nu - nl < 0.7 * prev_width) ? weak + 1 : 0;
                    prev_width = nu - nl;
                    if (weak >= 2) {
                        snprintf(why, why_size, "two grid steps in a row narrowed it by less than 30%% (at %g)", hs);
                        return DPA_OK;
                    }
                    if (u > 0.0 && (u - l) / u < 1.0 && (u - l) / u > 0.0) {
                        /* this rung gives the model: it anchors the rest */
                        h_a = h_a * pow(RUNG_RATIO, k);
                        hs_a = hs;
                        work_a = work;
                        l_a = l;
                        u_a = u;
                        reanchor = 1;
                        break;
                    }
                }
                k++;
            } else if (o == PASS_TOO_COARSE) k += dir;
            else if (dir > 0 && built) {
                snprintf(why, why_size, "a transform would exceed %zu points at grid step %g", MAX_FFT, hs);
                return DPA_OK;
            } else if (isnan(disc)) {
                return DPA_OK;                        /* the first rung after the anchor is too fine */
            } else {                                  /* step back to the finest rung that builds */
                if (dir > 0)
                    snprintf(why, why_size, "a transform would exceed %zu points at grid step %g", MAX_FFT, hs);
                dir = -1;
                k--;
            }
        }
        if (!reanchor) return DPA_OK;
    }
}

/* Whether the quantised lower bound (pld_quantised.c) covers the state:
 * one component, a Poisson-subsampled Gaussian under add/remove (its
 * remove world bounds the pair's delta from below). */
static int quantised_applies(const pld_state *s)
{
    return s->n == 1 && s->comp[0].pair[0].pair == PLD_POISSON_REMOVE;
}

/* The grids' bracket for a query in [*lower, *upper] ([0, +inf] when no
 * grid could be built); `why` says where the refinement stopped.  Only
 * DPA_ENOMEM is an error.
 *
 * The grid steps tried do not depend on eps_error, which only decides
 * where the walk stops, so that a looser eps_error never ends with a wider
 * bracket than a tighter one (docs/pld-design.md, "Refinement"):
 *  1. the calibration pass, from starting_step's step for
 *     REFERENCE_EPS_ERROR, halving it while the lower construction refuses
 *     the step, multiplying it by 4 while a transform would exceed the
 *     limit, and bisecting (geometrically) once both are known, until a
 *     step h_c builds -- the same search for every eps_error;
 *  2. the ladder h_c RUNG_RATIO^k, k = 1 .. k_last, k_last known from the
 *     calibration before any rung is built (walk);
 *  3. the walk over the rungs towards finer ones, intersecting every
 *     bracket built, until the (narrowed) intersection meets eps_error or
 *     the ladder ends, a rung is too fine for the transform (then every
 *     finer one is: the grids only grow) or the bracket stops narrowing.
 *     eps_error chooses only the first rung worth building, k0, never
 *     finer for a looser eps_error; when k0 is too fine the walk steps back
 *     to coarser rungs until one builds.
 * A looser eps_error therefore builds every rung a tighter one builds (and
 * the calibration pass): when it misses its width, its intersection lies
 * inside the tighter one's, and when a tighter one meets its width so does
 * it.  A query is answered from the previous query's grids when they meet
 * eps_error here too. */
static int run_query_grids(pld_state *s, const query *q, double eps_error, known_span *known,
                           double *lower, double *upper, char *why, size_t why_size)
{
    *lower = 0.0;
    *upper = INFINITY;
    s->upper_only = 0;
    s->tail_z = tail_cut_z(s, q, TAIL_EPS_ERROR);
    if (s->have_result) {
        double l, u;
        bracket(&s->result, q, &l, &u);
        if (met(known, l, u, eps_error)) {
            *lower = l;
            *upper = u;
            return DPA_OK;
        }
    }
    /* A coarse pass (upper lattices only) chooses the tilts for this query
     * and the first step. */
    double h0, theta[WORLDS];
    {
        double hc = coarse_step(s);
        step_grids sg;
        int st = step_grids_build(s, hc, 1, &sg);
        if (st == DPA_ENOMEM) return snprintf(why, why_size, "the coarse pass"), st;
        if (st) {
            snprintf(why, why_size, "the mechanisms cannot be discretised at the coarse step %g", hc);
            return DPA_OK;
        }
        h0 = starting_step(s, &sg, q, REFERENCE_EPS_ERROR, hc, theta);
        step_grids_free(&sg);
        /* A coarse lattice much wider than the first step spreads a narrow
         * single step (a small sampling rate: a loss of order q) over its
         * nodes, and the spread dominates K(theta): the tilt it picks is far
         * below the optimum (q = 2e-6: 95 instead of thousands).  Choose the
         * tilts again on the lattice at that step (the step itself stays
         * the one the coarse pass chose, independent of the tolerance). */
        if (h0 < 0.25 * hc && 400.0 * hc / h0 <= (double)(MAX_FFT / 16)) {
            st = step_grids_build(s, h0, 1, &sg);
            if (st == DPA_ENOMEM) return snprintf(why, why_size, "the tilts' pass"), st;
            if (!st) {
                choose_thetas(s, &sg, q, theta);
                step_grids_free(&sg);
            }
        }
    }
    /* 1. the calibration pass; when the lower construction refuses every
     * step it is run again building the upper grids only, with the
     * quantised pair's lower bound (pld_quantised.c) in `known` */
    int kept = 0, o = PASS_TOO_FINE;
    double h = h0, hs_c = 0.0, work_c = 0.0, l_c = 0.0, u_c = INFINITY;   /* the calibration pass's */
    for (;;) {
        double too_fine = 0.0, too_coarse = INFINITY, spent = 0.0, refused = 0.0;
        double resolution = finest_step(s);
        h = h0;
        o = PASS_TOO_FINE;
        /* At least 6 tries whatever the refusals cost: a composition of many
         * distinct steps pays for every one of them at each refusal (1000
         * sampled Gaussians: one refusal exceeds CALIBRATION_BUDGET), and
         * stopping at the first left only the closed forms' [0, 2.23] where a
         * finer step builds [1.608, 1.621].  Not where the quantised bound
         * takes over and is tight (few sampled steps, T q <= 10): there the
         * refusals (q = 1e-6, sigma = 0.3, T = 1e6: about 1.5 s of them)
         * only delay it; at T q = 100 (q = 1e-4, sigma = 0.5, T = 1e6) the
         * sixth try builds [3.8959, 3.8988] where the quantised bound
         * gives 3.505. */
        const int min_tries =
            quantised_applies(s) && (double)s->comp[0].times * s->comp[0].pair[0].q <= 10.0 ? 0 : 6;
        for (int t = 0; t < CALIBRATION_TRIES && spent <= WORK_BUDGET &&
                        (refused <= CALIBRATION_BUDGET || t < min_tries) && !(snap_step(s, h) < resolution);
             t++) {   /* every bound here the same for every eps_error */
            double work;
            o = pass(s, q, h, theta, &kept, &hs_c, &work, &l_c, &u_c);
            spent += work;
            if (o == PASS_TOO_COARSE) refused += NODE_WORK * step_nodes(s, hs_c);
            if (o < 0) return snprintf(why, why_size, "grid step %g", hs_c), o;
            if (o == PASS_BUILT) {
                work_c = work;
                break;
            }
            if (o == PASS_TOO_COARSE) too_coarse = fmin(too_coarse, h);
            else too_fine = fmax(too_fine, h);
            if (too_fine > 0.0 && too_coarse < INFINITY) {
                if (!(too_coarse > 1.02 * too_fine)) break;   /* no step between them builds */
                h = sqrt(too_coarse * too_fine);
            } else h = too_coarse < INFINITY ? 0.5 * h : 4.0 * h;
        }
        if (o == PASS_BUILT) break;
        if (!s->upper_only && too_coarse < INFINITY) {
            /* the upper grids alone still bound eps from above; the lower
             * end from the quantised pair where it applies, else 0 */
            if (quantised_applies(s)) {
                const pld_profile *p = &s->comp[0].pair[0];
                double ql;
                int st = pld_quantised_lower(p->q, p->sigma, s->comp[0].times, q->want_eps, q->value, s->fft, &ql);
                if (st == DPA_ENOMEM) return snprintf(why, why_size, "the quantised lower bound"), st;
                if (!st) known->lower = fmax(known->lower, ql);
            }
            s->upper_only = 1;
            continue;
        }
        snprintf(why, why_size, "no grid step builds (the lower construction refuses steps from %g, a transform "
                 "would exceed %zu points below %g)", too_coarse, MAX_FFT, too_fine);
        return DPA_OK;
    }
    *lower = l_c;
    *upper = u_c;
    if (met(known, *lower, *upper, eps_error)) return DPA_OK;
    return walk(s, q, eps_error, known, theta, h, hs_c, work_c, l_c, u_c, &kept, lower, upper, why, why_size);
}

static int pld_epsilon(void *state, const dpa_options *opt, double delta, dpa_bound *out, dpa_error *err)
{
    query q = { 1, delta };
    return run_query(state, opt, &q, out, err);
}

static int pld_delta(void *state, const dpa_options *opt, double epsilon, dpa_bound *out, dpa_error *err)
{
    query q = { 0, epsilon };
    return run_query(state, opt, &q, out, err);
}

/* Each world's delta at epsilon from the tables of the grids the last
 * query built (pld_delta at this epsilon comes first): the bracket()
 * above, one world at a time.  A world not composed is world 0's pair. */
static int pld_delta_directions(void *state, const dpa_options *opt, double epsilon, dpa_bound out[2],
                                int *same_pair, dpa_error *err)
{
    (void)opt;
    pld_state *s = state;
    /* one world composed: every component's two directions are one pair */
    *same_pair = s->n == 0 || s->worlds == 1;
    if (*same_pair) return DPA_OK;
    if (!s->have_result) return dpa_fail(err, DPA_EINVAL, "pld: no grids yet");
    for (int w = 0; w < 2; w++) {
        int ww = w < s->result.worlds ? w : 0;
        double up = pld_profile_table_delta(&s->result.table[ww][PLD_UPPER], epsilon, PLD_UPPER);
        double lo = s->result.upper_only ? 0.0 : pld_profile_table_delta(&s->result.table[ww][PLD_LOWER], epsilon, PLD_LOWER);
        /* one step: its pair's own profile, where the closed form has it */
        double sl, su;
        if (s->n == 1 && s->comp[0].times == 1 && ww < s->worlds &&
            single_step_delta(&s->comp[0].pair[ww], epsilon, &sl, &su) == DPA_OK) {
            lo = fmax(lo, sl);
            up = fmin(up, su);
        }
        out[w] = (dpa_bound){ lo, 0.5 * (lo + up), up, 0.0, s->pair_lower ? (unsigned)DPA_PAIR_LOWER : 0u };
    }
    return DPA_OK;
}

static double pld_state_value(const void *state, const char **what)
{
    const pld_state *s = state;
    *what = "grid step h of the last query";
    return s->last_h;
}

static int pld_view(const void *state, int world, int upper, dpa_pld_view *out, dpa_error *err)
{
    const pld_state *s = state;
    if (!s->have_result) return dpa_fail(err, DPA_EINVAL, "pld: no distribution yet: query eps or delta first");
    /* one world composed: the other is the same pair */
    if (world >= s->result.worlds) world = 0;
    if (!upper && s->result.upper_only)
        return dpa_fail(err, DPA_EINVAL, "pld: no lower grid (the lower construction refused every grid step; the "
                        "lower bound came from the quantised pair, or is 0)");
    const pld_grid *g = &s->result.grid[world][upper ? PLD_UPPER : PLD_LOWER];
    *out = (dpa_pld_view){ g->h, g->first, g->n, g->mass, g->theta, g->log_scale, g->inf_mass, g->pad, g->pad2 };
    return DPA_OK;
}

const dpa_accountant_ops dpa_pld_accountant = {
    .name = "pld",
    .summary = "privacy loss distributions composed by FFT, certified lower and upper bounds "
               "(connect-the-dots and its drift-free mirror)",
    .state_size = sizeof(pld_state),
    .init = pld_init,
    .destroy = pld_destroy,
    .supports = pld_supports,
    .compose = pld_compose,
    .epsilon = pld_epsilon,
    .delta = pld_delta,
    .state_value = pld_state_value,
    .pld_view = pld_view,
    .delta_directions = pld_delta_directions,
};
