/*
 * rdp.c - Renyi differential privacy (Mironov 2017) on a grid of orders,
 * and over the real orders between them.
 *
 * The state is eps(alpha) for each order of the grid; composition adds
 * curves (Mironov 2017, Prop. 1).  A whole event is turned into one curve
 * before anything is added, so a refused or failed event leaves the state
 * as it was.  Conversions to (eps, delta) take the best order of the grid,
 * by the classic bound eps(alpha) + log(1/delta)/(alpha - 1) (Mironov 2017,
 * Prop. 3) or the improved one of Canonne, Kamath & Steinke 2020 (Prop. 12),
 * equivalently Balle et al. 2020 (Thm 21):
 *   eps(alpha) + log((alpha - 1)/alpha) - (log delta + log alpha)/(alpha - 1).
 *
 * With the default grid (no orders given) the accountant also keeps the
 * distinct mechanisms composed (copies, with their counts), so that a
 * query can evaluate the curve at any real order: after the grid minimum
 * it searches the orders between the best grid order's neighbours (see
 * "the search over real orders" below).  Every value it evaluates is a
 * certified upper bound, so the minimum over the grid and the searched
 * orders is one too, and never above the grid's.  Orders given by the
 * caller are used alone, as given.
 */
#include "internal.h"
#include "numerics.h"
#include "rdp_curves.h"
#include "rdp_allocation.h"
#include "shuffle/shuffle_clones.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A distinct mechanism composed, as dpa_event_visit_leaves hands it (a node
 * that is not a composition), and how many times (rounded up). */
typedef struct {
    dpa_event *event;    /* owned copy */
    double times;
    int grid_dependent;  /* holds a repeated_selected node, whose curve at one
                          * order takes minima over the other orders */
} rdp_component;

typedef struct {
    size_t n;
    double *orders; /* ascending */
    dpa_sum *eps;   /* accumulated eps(alpha); +inf allowed */
    /* the search over real orders (default grid only): the distinct
     * mechanisms composed; `search` is cleared for good when the list is
     * given up (see record_component) */
    int search;
    rdp_component *comp;
    size_t n_comp, cap_comp;
} rdp_state;

/* The default grid: fractional orders near 1 (1.25 .. 10 by 0.25) for large
 * eps and moderate delta, integers 11 .. 64, and 128 .. 1024 for tiny delta
 * or tiny eps. */
static size_t default_orders(double *out)
{
    size_t n = 0;
    for (int i = 5; i <= 40; i++) out[n++] = 0.25 * i;
    for (int a = 11; a <= 64; a++) out[n++] = a;
    for (int a = 128; a <= 1024; a *= 2) out[n++] = a;
    return n;
}
#define DEFAULT_ORDER_COUNT 94
#define RDP_SHUFFLE_MAX_USERS 1e5   /* clones_rdp: one pass over every clone count at 10001 nodes */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int rdp_init(void *state, const dpa_options *opt, dpa_error *err)
{
    rdp_state *s = state;
    size_t n = opt->num_orders ? opt->num_orders : DEFAULT_ORDER_COUNT;
    s->orders = malloc(n * sizeof *s->orders);
    s->eps = calloc(n, sizeof *s->eps);
    if (!s->orders || !s->eps) {
        free(s->orders);
        free(s->eps);
        return dpa_fail(err, DPA_ENOMEM, "rdp: out of memory for %zu orders", n);
    }
    if (opt->num_orders) memcpy(s->orders, opt->orders, n * sizeof *s->orders);
    else default_orders(s->orders);
    qsort(s->orders, n, sizeof *s->orders, compare_doubles);
    s->n = n;
    /* the caller's orders are used alone, as given */
    s->search = opt->num_orders == 0;
    return DPA_OK;
}

static void forget_components(rdp_state *s)
{
    for (size_t i = 0; i < s->n_comp; i++) dpa_event_free(s->comp[i].event);
    free(s->comp);
    s->comp = NULL;
    s->n_comp = s->cap_comp = 0;
}

static void rdp_destroy(void *state)
{
    rdp_state *s = state;
    free(s->orders);
    free(s->eps);
    forget_components(s);
}

/* ---- the curve of an event ---------------------------------------------- */

/* 1/sigma^2 of the Gaussian noise a sampling wrapper holds; `how` says how
 * the wrapper samples ("subsampled", "randomly allocated"). */
static int inverse_variance(const dpa_event *e, const char *how, double *inv_var, dpa_error *err)
{
    const dpa_event *bad = NULL;
    int st = dpa_event_inverse_variance(e, inv_var, &bad);
    if (st == DPA_EUNSUPPORTED)
        return dpa_fail(err, st, "rdp: a %s %s is not supported (only Gaussian noise)", how,
                        dpa_event_kind_name(dpa_event_get_kind(bad)));
    return st ? dpa_fail(err, st, "rdp: invalid event") : DPA_OK;
}

static int curve(const rdp_state *s, const dpa_options *opt, const dpa_event *e, double *out,
                 dpa_error *err);

/* Papernot & Steinke 2022: run the inner mechanism K times, K random, and
 * release the best run.  Poisson(mean mu), Theorem 6:
 *   eps'(l) = eps(l) + mu delta_hat + log(mu)/(l - 1),  delta_hat = delta(eps_hat)
 *   of the inner curve at eps_hat = log(1 + 1/(l - 1));
 * truncated negative binomial (eta, gamma), Theorem 2:
 *   eps'(l) = eps(l) + (1 + eta) min_j [(1 - 1/l_j) eps(l_j) + log(1/gamma)/l_j]
 *             + log(E[K])/(l - 1),
 * then monotonicity in the order (eps' at l is at most eps' at any larger l). */
static double curve_log_delta(const rdp_state *s, const double *eps, double epsilon);

static int repeated_selected(const rdp_state *s, const dpa_options *opt, const dpa_event *e,
                             double *out, dpa_error *err)
{
    /* Theorem 6 with a mean below 1 is below the truth: best-of-K binary randomized
     * response (P[1] = 0.3 vs 0.1) at mean 0.5 has Renyi divergence
     * 0.1755 at order 2 where eps(2) + mu delta_hat + log mu gives -0.275
     * (eps(2) = 0.368, delta_hat = 0.1), and at orders near 1 log(mu)/(l - 1)
     * sends any bound below 0 (found by tests/test_property.c: a
     * composition's curve under its Gaussian part).  Means >= 1 held in
     * every such case tried (test_rdp.c checks some against the exact
     * divergence). */
    if (dpa_event_count(e, 0) == DPA_REPEAT_POISSON && !(dpa_event_param(e, 0) >= 1.0))
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "rdp: repeated selection with a Poisson mean number of runs below 1 (%g) has no RDP bound "
                        "here (Papernot & Steinke's Theorem 6 is below the true divergence there); the tuning "
                        "accountant bounds it", dpa_event_param(e, 0));
    double *inner = out ? malloc(s->n * sizeof *inner) : NULL;
    if (out && !inner) return dpa_fail(err, DPA_ENOMEM, "rdp: out of memory");
    int st = curve(s, opt, dpa_event_child(e, 0), inner, err);
    if (st || !out) { free(inner); return st; }
    int dist = (int)dpa_event_count(e, 0);
    double p1 = dpa_event_param(e, 0), p2 = dpa_event_param(e, 1);
    if (dist == DPA_REPEAT_POISSON) {
        for (size_t i = 0; i < s->n; i++) {
            double l = s->orders[i];
            double delta_hat = exp(curve_log_delta(s, inner, log1p(1.0 / (l - 1.0))));
            out[i] = inner[i] + p1 * delta_hat + log(p1) / (l - 1.0);
        }
    } else {
        /* DPA_REPEAT_GEOMETRIC(gamma) is the truncated negative binomial
         * with eta = 1 (P[K = k] = gamma (1 - gamma)^(k-1)); gamma = 1 is
         * a single run */
        double eta = dist == DPA_REPEAT_GEOMETRIC ? 1.0 : p1, gamma = dist == DPA_REPEAT_GEOMETRIC ? p1 : p2;
        if (gamma == 1.0) {
            memcpy(out, inner, s->n * sizeof *out);
            free(inner);
            return DPA_OK;
        }
        double mean = eta == 0.0 ? (1.0 / gamma - 1.0) / log(1.0 / gamma)
                                 : eta * (1.0 - gamma) / (gamma * (1.0 - pow(gamma, eta)));
        double c = INFINITY;
        for (size_t j = 0; j < s->n; j++) {
            double l = s->orders[j];
            c = fmin(c, (1.0 - 1.0 / l) * inner[j] + log(1.0 / gamma) / l);
        }
        c *= 1.0 + eta;
        for (size_t i = 0; i < s->n; i++)
            out[i] = inner[i] + c + log(mean) / (s->orders[i] - 1.0);
        for (size_t i = s->n - 1; i-- > 0;) out[i] = fmin(out[i], out[i + 1]);
    }
    free(inner);
    return DPA_OK;
}

/* Truncated Poisson sampling of a Gaussian (lib/truncated_poisson.c): in
 * each world the mixture, weights 1 - p and p the same in both, of the
 * Poisson-subsampled Gaussians at (sigma, q) and at (sigma/2, q2).  The
 * moment E_Q[(P/Q)^alpha] is jointly convex in (P, Q) for alpha > 1 (the
 * perspective of x^alpha), so the mixture's is at most the weighted sum of
 * the parts', M_i = e^{(alpha - 1) eps_i(alpha)}, each part's curve
 * bounding both orders of its pair as for Poisson sampling:
 *   eps(alpha) <= log((1 - p) M_1 + p M_2) / (alpha - 1),
 * with the weights raised by their relative error (the sum only grows) and
 * the result by a few ulps of the logs it divides. */
static double mixture_order(double log_w0, double eps0, double log_w1, double eps1, double alpha)
{
    const double a = alpha - 1.0;
    double t0 = log_w0 == -INFINITY ? -INFINITY : log_w0 + a * eps0;
    double t1 = log_w1 == -INFINITY ? -INFINITY : log_w1 + a * eps1;
    double v = dpa_log_add_exp(t0, t1) / a;
    if (!isfinite(v)) return v;
    double size = fmax(isfinite(t0) ? fabs(t0) : 0.0, isfinite(t1) ? fabs(t1) : 0.0);   /* a weight 0 adds nothing */
    return fmax(0.0, v) + 8.0 * DBL_EPSILON * (fabs(v) + (1.0 + size) / a);
}

static int truncated_poisson(const rdp_state *s, const dpa_options *opt, const dpa_event *e, double *out,
                             dpa_error *err)
{
    double inv_var, q = dpa_event_param(e, 0);
    if (opt->relation != DPA_ADD_REMOVE)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "rdp: truncated_poisson is analysed for add/remove neighbours only (n counts the records of "
                        "the larger dataset)");
    int st = inverse_variance(dpa_event_child(e, 0), "truncated-Poisson-subsampled", &inv_var, err);
    dpa_truncated_mixture m;
    if (!st) st = dpa_truncated_poisson_mixture(q, dpa_event_count(e, 0), dpa_event_count(e, 1), &m, err);
    if (st || !out) return st;
    const double sigma = 1.0 / sqrt(inv_var);
    if (m.log_trunc == -INFINITY) {   /* max_batch = n: Poisson sampling */
        for (size_t i = 0; i < s->n; i++) out[i] = rdp_poisson_gaussian(q, sigma, s->orders[i]);
        return DPA_OK;
    }
    const double pad = log1p(m.weight_relerr);
    for (size_t i = 0; i < s->n; i++) {
        double alpha = s->orders[i];
        out[i] = mixture_order(m.log_full + pad, rdp_poisson_gaussian(q, sigma, alpha), m.log_trunc + pad,
                               rdp_poisson_gaussian(m.q2, 0.5 * sigma, alpha), alpha);
    }
    return DPA_OK;
}

/* Fill out[i] = eps(orders[i]) for one leaf given by a per-order function. */
#define FILL(expr) do { if (out) for (size_t i = 0; i < s->n; i++) { double alpha = s->orders[i]; out[i] = (expr); } } while (0)

/* `inner` composed `count` times: its curve times count, rounded up (the
 * product of a count and a curve value is within an ulp, and nested
 * self-compositions would otherwise round down once per level). */
static int repeated(const rdp_state *s, const dpa_options *opt, const dpa_event *inner, uint64_t count, double *out,
                    dpa_error *err)
{
    int st = curve(s, opt, inner, out, err);
    if (!st && out)
        for (size_t i = 0; i < s->n; i++) out[i] *= (double)count * (1.0 + 2.0 * DBL_EPSILON);
    return st;
}

/* The order up to which an allocated epoch's moments are computed: the
 * largest of the grid's at most RDP_ALLOCATION_MAX_ORDER, rounded up (the
 * orders above it get the unamplified Gaussian, which needs none). */
static size_t moments_order(const rdp_state *s)
{
    for (size_t i = s->n; i-- > 0;)
        if (s->orders[i] <= RDP_ALLOCATION_MAX_ORDER) return (size_t)ceil(s->orders[i]);
    return 1;
}

/* One epoch of random allocation (Feldman & Shenfeld, "Privacy
 * amplification by random allocation", 2025, arXiv:2502.08202): each
 * record in `selected` = K of the `steps` = T steps, a uniformly random
 * K-subset.  K = T is the T-fold composition of the inner event (any
 * relation, any inner event).  K = 1 is rdp_allocation.c's pair (a
 * Gaussian inner event, add/remove).
 *
 * 1 < K < T: the K-fold composition of one of m = floor(T/K) steps, both
 * directions (the reduction Feldman & Shenfeld's own code makes: floor(T/K)
 * steps, K times as many rounds).  Why it is an upper bound:
 * - A uniform K-subset of [T] can be drawn by cutting a uniformly random
 *   permutation of [T] into K blocks of m consecutive entries (the T - K m
 *   left over are never chosen) and taking one uniform step from each
 *   block.  The set drawn has K elements and its law is invariant under
 *   every permutation of [T] (composing the random permutation with a fixed
 *   one leaves it uniform), and the permutations act transitively on the
 *   K-subsets: it is the uniform K-subset, the event's sampling.
 * - Reveal the partition into blocks: public randomness independent of
 *   the data.  The real output is the marginal of (partition, outputs), so
 *   by data processing its Renyi divergence is at most the joint one; the
 *   joint pair is a mixture over the partition with the same weights in
 *   both worlds, so by joint convexity of exp((alpha - 1) D_alpha) its
 *   divergence is at most the worst partition's, and all partitions are
 *   equivalent (relabelling the steps).
 * - Given the partition, the record is in one uniform step of each of K
 *   disjoint blocks of m steps, independently, and the left-over steps do
 *   not see it: the pair is the product of K independent pairs of one of m
 *   steps (and of identical factors), whose Renyi divergence is K times
 *   that of one, in either direction (additivity over products).
 * With m = T/K exactly the bound loses nothing to first order in 1/sigma^2
 * (E[|S_1 n S_2|] = K^2/T either way); otherwise it costs about T/(K m).
 * m = 1 (K > T/2) is the K-fold composition of the Gaussian. */
static int random_allocation(const rdp_state *s, const dpa_options *opt, const dpa_event *e, double *out,
                             dpa_error *err)
{
    const uint64_t steps = dpa_event_count(e, 0), selected = dpa_event_count(e, 1);
    if (selected == steps) return repeated(s, opt, dpa_event_child(e, 0), steps, out, err);
    double inv_var;
    int st = inverse_variance(dpa_event_child(e, 0), "randomly allocated", &inv_var, err);
    if (st) return st;
    const double sigma = 1.0 / sqrt(inv_var);
    if (opt->relation != DPA_ADD_REMOVE)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "rdp: random allocation of %llu of %llu steps is accounted for add/remove neighbours only",
                        (unsigned long long)selected, (unsigned long long)steps);
    if (!out) return DPA_OK;
    /* one of m steps, K times (K = 1: m = T) */
    const double m = (double)(steps / selected), K = (double)selected;
    const size_t N = moments_order(s);
    double *moments = malloc((N + 1) * sizeof *moments);
    if (!moments || rdp_allocation_log_moments(m, sigma, N, moments)) {
        free(moments);
        return dpa_fail(err, DPA_ENOMEM, "rdp: out of memory");
    }
    /* K times one, rounded up as repeated() does (K = 1: exact) */
    const double up = selected == 1 ? 1.0 : K * (1.0 + 2.0 * DBL_EPSILON);
    FILL(up * rdp_allocation(m, sigma, moments, N, alpha));
    free(moments);
    return DPA_OK;
}

/* The mixture of Gaussians (rdp_curves.c): its components in units of
 * sigma, equal sensitivities merged, weights divided by their sum. */
static int mixture_of_gaussians(const rdp_state *s, const dpa_options *opt, const dpa_event *e, double *out,
                                dpa_error *err)
{
    if (opt->relation != DPA_ADD_REMOVE)
        return dpa_fail(err, DPA_EUNSUPPORTED, "rdp: mixture_of_gaussians is a pair for add/remove neighbours; it has "
                                               "no replace-one bound here");
    size_t n = dpa_event_num_components(e), k = 0;
    double sigma = dpa_event_param(e, 0), total = 0.0;
    double *m = malloc(2 * (n ? n : 1) * sizeof *m), *lw = m ? m + n : NULL;
    if (!m) return dpa_fail(err, DPA_ENOMEM, "rdp: out of memory");
    for (size_t i = 0; i < n; i++) total += dpa_event_component_probability(e, i);
    for (size_t i = 0; i < n; i++) {
        double mi = dpa_event_component_sensitivity(e, i) / sigma, w = dpa_event_component_probability(e, i);
        size_t j = 0;
        while (j < k && m[j] != mi) j++;
        if (j == k) { m[k] = mi; lw[k++] = 0.0; }
        lw[j] += w / total;
    }
    /* one sensitivity c: the Gaussian of multiplier sigma/c; {0, c}: the
     * Poisson-sampled one (whose add direction is below its remove one,
     * Mironov, Talwar & Zhang 2019, Thm 5, so its remove moment is the
     * bound); more: the joint-convexity bound of both directions */
    int zero = m[0] == 0.0 ? 0 : k == 2 && m[1] == 0.0 ? 1 : -1;
    if (k == 1 && m[0] == 0.0) FILL(0.0 * alpha);   /* P = Q */
    else if (k == 1) FILL(rdp_gaussian(1.0 / m[0], alpha));
    else if (k == 2 && zero >= 0) FILL(rdp_poisson_gaussian(lw[1 - zero], 1.0 / m[1 - zero], alpha));
    else {
        for (size_t j = 0; j < k; j++) lw[j] = log(lw[j]);
        FILL(rdp_mixture_of_gaussians(m, lw, k, alpha));
    }
    free(m);
    return DPA_OK;
}


/* The RDP curve of `e` on the grid, into out (NULL: only check support). */
static int curve(const rdp_state *s, const dpa_options *opt, const dpa_event *e, double *out,
                 dpa_error *err)
{
    dpa_event_kind kind = dpa_event_get_kind(e);
    double p0 = dpa_event_param(e, 0), p1 = dpa_event_param(e, 1);
    int st = DPA_OK;
    switch (kind) {
    case DPA_EVENT_COMPOSED: {
        double *part = out ? malloc(s->n * sizeof *part) : NULL;
        if (out && !part) return dpa_fail(err, DPA_ENOMEM, "rdp: out of memory");
        if (out) memset(out, 0, s->n * sizeof *out);
        for (size_t c = 0; c < dpa_event_num_children(e) && !st; c++) {
            st = curve(s, opt, dpa_event_child(e, c), part, err);
            if (!st && out) for (size_t i = 0; i < s->n; i++) out[i] += part[i];
        }
        free(part);
        return st;
    }
    case DPA_EVENT_SELF_COMPOSED: return repeated(s, opt, dpa_event_child(e, 0), dpa_event_count(e, 0), out, err);
    case DPA_EVENT_GAUSSIAN: FILL(rdp_gaussian(p0, alpha)); return DPA_OK;
    case DPA_EVENT_POISSON_SAMPLED: {
        double inv_var;
        if (opt->relation != DPA_ADD_REMOVE)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "rdp: Poisson sampling is accounted for add/remove neighbours only");
        if ((st = inverse_variance(dpa_event_child(e, 0), "subsampled", &inv_var, err))) return st;
        FILL(rdp_poisson_gaussian(p0, 1.0 / sqrt(inv_var), alpha));
        return DPA_OK;
    }
    case DPA_EVENT_TRUNCATED_POISSON: return truncated_poisson(s, opt, e, out, err);
    case DPA_EVENT_SAMPLED_WITHOUT_REPLACEMENT: {
        double inv_var;
        if (opt->relation != DPA_REPLACE_ONE)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "rdp: sampling without replacement is accounted for replace-one neighbours only");
        if ((st = inverse_variance(dpa_event_child(e, 0), "subsampled", &inv_var, err))) return st;
        double gamma = (double)dpa_event_count(e, 1) / (double)dpa_event_count(e, 0);
        FILL(rdp_sampled_without_replacement_gaussian(gamma, 1.0 / sqrt(inv_var), alpha));
        return DPA_OK;
    }
    case DPA_EVENT_RANDOM_ALLOCATION: return random_allocation(s, opt, e, out, err);
    case DPA_EVENT_LAPLACE: FILL(rdp_laplace(p0, alpha)); return DPA_OK;
    case DPA_EVENT_RANDOMIZED_RESPONSE:
        FILL(rdp_randomized_response(p0, (double)dpa_event_count(e, 0), alpha));
        return DPA_OK;
    case DPA_EVENT_PERMUTE_AND_FLIP:  /* eps-DP (McKenna & Sheldon 2020, Thm 1) */
        FILL(rdp_pure_dp(p0, alpha));
        return DPA_OK;
    case DPA_EVENT_DISCRETE_LAPLACE:  /* pure eps-DP with eps = sensitivity / scale */
        FILL(rdp_pure_dp((double)dpa_event_count(e, 0) / p0, alpha));
        return DPA_OK;
    case DPA_EVENT_EPSILON_DELTA:
        if (p1 != 0.0)
            return dpa_fail(err, DPA_EUNSUPPORTED, "rdp: an (eps, delta) event with delta > 0 has no RDP guarantee");
        FILL(rdp_pure_dp(p0, alpha));
        return DPA_OK;
    case DPA_EVENT_EXPONENTIAL:
        /* eps-bounded range: eps^2/8-zCDP (Cesar & Rogers 2021, Lemma 3.2), and eps-DP */
        FILL(fmin(alpha * p0 * p0 / 8.0 * (1.0 + 1e-15), rdp_pure_dp(p0, alpha)));
        return DPA_OK;
    case DPA_EVENT_DISCRETE_GAUSSIAN: {
        /* Delta^2/(2 sigma^2)-zCDP (Canonne, Kamath & Steinke 2020, Thm 4) */
        double d = (double)dpa_event_count(e, 0) / p0;
        FILL(rdp_gaussian(1.0 / d, alpha));
        return DPA_OK;
    }
    case DPA_EVENT_ZCDP: FILL((p1 + alpha * p0) * (1.0 + 1e-15)); return DPA_OK;
    case DPA_EVENT_GDP: FILL(rdp_gaussian(1.0 / p0, alpha)); return DPA_OK;
    case DPA_EVENT_NOISY_CGD:           /* mu-GDP (Bok, Su & Altschuler 2024, Thm 4.5) */
    case DPA_EVENT_SHUFFLED_BATCHES:    /* the inner Gaussian once an epoch (lib/event.c) */
    case DPA_EVENT_TREE_AGGREGATION: {  /* Gaussian nodes (Kairouz et al. 2021; lib/event.c) */
        double inv_var;
        if ((st = inverse_variance(e, "Gaussian-noise", &inv_var, err))) return st;
        FILL(rdp_gaussian(1.0 / sqrt(inv_var), alpha));
        return DPA_OK;
    }
    case DPA_EVENT_REPEATED_SELECTED:
        return repeated_selected(s, opt, e, out, err);
    case DPA_EVENT_MIXTURE_OF_GAUSSIANS:
        return mixture_of_gaussians(s, opt, e, out, err);
    case DPA_EVENT_GSM_FROBENIUS: {     /* Gu et al. WACV 2025's GSM, lib/gsm.c */
        double k = (double)dpa_event_count(e, 0);
        FILL(k * dpa_gsm_order_frobenius(alpha, p0) * (1.0 + 2.0 * DBL_EPSILON));
        return DPA_OK;
    }
    case DPA_EVENT_GSM_SPECTRAL: {
        double k = (double)dpa_event_count(e, 0), n = (double)dpa_event_count(e, 1);
        FILL(k * dpa_gsm_order_spectral(alpha, n, p0) * (1.0 + 2.0 * DBL_EPSILON));
        return DPA_OK;
    }
    case DPA_EVENT_TRUNCATED_LAPLACE:
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "rdp: truncated Laplace has infinite Renyi divergence at every order (its two output "
                        "distributions have different supports); use pld, which accounts it exactly");
    case DPA_EVENT_SHUFFLED: {
        /* the clones pair of shuffle_clones.c, whose divergence dominates
         * the shuffled outputs' (post-processing); and the local eps0-DP */
        uint64_t users = dpa_event_count(e, 0);
        if (opt->relation != DPA_REPLACE_ONE)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "rdp: shuffled events: amplification by shuffling is stated for replace-one neighbours; "
                            "use the replace-one relation");
        if (p1 > 0.0)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "rdp: shuffled (eps0, delta0) randomizers with delta0 > 0 have no RDP bound here; use the "
                            "shuffle accountant");
        if ((double)users > RDP_SHUFFLE_MAX_USERS)
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "rdp: shuffled events with more than 1e5 users (%llu) are not supported (the divergence "
                            "sums over every clone count); use pld", (unsigned long long)users);
        /* the clones pair holds e^eps0: past the doubles' range its
         * divergences overflowed into 0 (eps0 = 1000, one user: eps 0
         * where it is 1000) */
        if (!(p0 <= 700.0))
            return dpa_fail(err, DPA_EUNSUPPORTED,
                            "rdp: shuffled randomizers with eps0 = %g > 700 are not supported (e^eps0 is beyond the "
                            "doubles); the shuffle accountant answers one round",
                            p0);
        if (!out) return DPA_OK;
        clones_pair cp = clones_pair_make(p0, 0.0, users, (int)dpa_event_count(e, 1));
        if (clones_rdp(&cp, s->orders, s->n, out)) return dpa_fail(err, DPA_ENOMEM, "rdp: out of memory");
        for (size_t i = 0; i < s->n; i++) out[i] = fmin(out[i], rdp_pure_dp(p0, s->orders[i]));
        return DPA_OK;
    }
    default:
        return dpa_fail(err, DPA_EUNSUPPORTED, "rdp: %s events are not supported",
                        dpa_event_kind_name(kind));
    }
}

/* ---- the mechanisms kept for the search over real orders ----------------- */

/* The most distinct mechanisms kept.  A query evaluates each of them at
 * every order it tries (about 15 to 30 orders), a fraction of what
 * composing them cost on the 94 orders of the grid; past this many the
 * list is given up and the accountant answers on the grid alone. */
#define RDP_MAX_COMPONENTS 1024

/* Structural equality: the same kind, parameters (bitwise: the unused ones
 * are all the same NaN), counts and children. */
static int same_event(const dpa_event *a, const dpa_event *b)
{
    if (a->kind != b->kind || a->num_children != b->num_children ||
        memcmp(a->param, b->param, sizeof a->param) || memcmp(a->count, b->count, sizeof a->count))
        return 0;
    for (size_t i = 0; i < a->num_children; i++)
        if (!same_event(a->children[i], b->children[i])) return 0;
    return 1;
}

static int contains_kind(const dpa_event *e, dpa_event_kind kind)
{
    if (e->kind == kind) return 1;
    for (size_t i = 0; i < e->num_children; i++)
        if (contains_kind(e->children[i], kind)) return 1;
    return 0;
}

/* times + more, rounded up (both are whole counts, exact below 2^53). */
static double add_counts_up(double times, double more)
{
    double t = times + more;
    return t > 9007199254740992.0 ? nextafter(t, INFINITY) : t;
}

static int keep_component(const dpa_event *leaf, double times, void *ctx, dpa_error *err)
{
    (void)err;
    rdp_state *s = ctx;
    /* Shuffled events: clones_rdp makes one pass over every clone count per
     * call, whatever the number of orders (seconds at 1e5 users), so one
     * call per order tried would multiply a query's cost by the number of
     * orders tried.  Such a composition is answered on the grid. */
    if (contains_kind(leaf, DPA_EVENT_SHUFFLED)) return DPA_EUNSUPPORTED;
    for (size_t i = 0; i < s->n_comp; i++)
        if (same_event(s->comp[i].event, leaf)) {
            s->comp[i].times = add_counts_up(s->comp[i].times, times);
            return DPA_OK;
        }
    if (s->n_comp == RDP_MAX_COMPONENTS) return DPA_EUNSUPPORTED;
    if (s->n_comp == s->cap_comp) {
        size_t cap = s->cap_comp ? 2 * s->cap_comp : 4;
        rdp_component *p = realloc(s->comp, cap * sizeof *p);
        if (!p) return DPA_ENOMEM;
        s->comp = p;
        s->cap_comp = cap;
    }
    dpa_event *copy = dpa_event_copy(leaf, NULL);
    if (!copy) return DPA_ENOMEM;
    s->comp[s->n_comp++] = (rdp_component){ copy, times, contains_kind(leaf, DPA_EVENT_REPEATED_SELECTED) };
    return DPA_OK;
}

/* Called once the event is in the grid: it cannot fail.  When the event
 * cannot be kept (no memory, too many distinct mechanisms, shuffled events)
 * the list is given up and the search with it: the grid stays exact. */
static void record_components(rdp_state *s, const dpa_event *e)
{
    if (dpa_event_visit_leaves(e, keep_component, s, NULL) != DPA_OK) {
        forget_components(s);
        s->search = 0;
    }
}

static int rdp_supports(const void *state, const dpa_options *opt, const dpa_event *e,
                        dpa_error *err)
{
    return curve(state, opt, e, NULL, err);
}

static int rdp_compose(void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    rdp_state *s = state;
    double *c = malloc(s->n * sizeof *c);
    if (!c) return dpa_fail(err, DPA_ENOMEM, "rdp: out of memory");
    int st = curve(s, opt, e, c, err);
    for (size_t i = 0; !st && i < s->n; i++)
        if (isnan(c[i]) || c[i] < 0.0)
            st = dpa_fail(err, DPA_EACCURACY, "rdp: eps at order %g could not be evaluated to the required accuracy",
                          s->orders[i]);
    for (size_t i = 0; !st && i < s->n; i++) dpa_sum_add(&s->eps[i], c[i]);
    free(c);
    if (!st && s->search) record_components(s, e);
    return st;
}

/* ---- conversions ---------------------------------------------------------- */

/* eps(alpha) with its rounding, never below the accumulated value. */
static double accumulated(const rdp_state *s, size_t i)
{
    double v = dpa_sum_value(&s->eps[i]);
    return isfinite(v) ? v * (1.0 + 4.0 * DBL_EPSILON) : v;
}


/* The curve at any order alpha > 1 from the mechanisms kept: each one's
 * curve at alpha (the functions of rdp_curves.c, upper bounds at every real
 * order) times its count, summed, and rounded up as the grid is (the
 * product by a count as in self_composed, the compensated sum as in
 * accumulated).  +inf when a mechanism has no finite bound at alpha or
 * could not be evaluated to its accuracy there: no bound at that order. */
static double curve_at(const rdp_state *s, const dpa_options *opt, double alpha)
{
    dpa_sum sum = { 0 };
    double at = alpha;
    rdp_state one = { .n = 1, .orders = &at };
    for (size_t j = 0; j < s->n_comp; j++) {
        const rdp_component *c = &s->comp[j];
        double v = NAN;
        if (!c->grid_dependent) {
            if (curve(&one, opt, c->event, &v, NULL)) v = NAN;
        } else {
            /* Papernot & Steinke's bounds at one order take minima over
             * other orders (repeated_selected): the grid's and alpha's */
            rdp_state both = { .n = s->n + 1 };
            both.orders = malloc(both.n * sizeof *both.orders);
            double *out = malloc(both.n * sizeof *out);
            if (both.orders && out) {
                size_t k = 0;
                while (k < s->n && s->orders[k] < alpha) { both.orders[k] = s->orders[k]; k++; }
                both.orders[k] = alpha;
                memcpy(both.orders + k + 1, s->orders + k, (s->n - k) * sizeof *both.orders);
                if (!curve(&both, opt, c->event, out, NULL)) v = out[k];
            }
            free(both.orders);
            free(out);
        }
        if (isnan(v) || v < 0.0) return INFINITY;
        dpa_sum_add(&sum, v * c->times * (1.0 + 2.0 * DBL_EPSILON));
    }
    double v = dpa_sum_value(&sum);
    return isfinite(v) ? v * (1.0 + 4.0 * DBL_EPSILON) : v;
}

/* What a query minimises over the orders: the conversion of eps(alpha), to
 * eps at a delta or to log delta at an eps. */
typedef struct {
    const rdp_state *s;
    const dpa_options *opt;
    int epsilon_query;  /* 1: eps at delta; 0: log delta at eps */
    double target;      /* log delta, or eps */
} rdp_query;

/* One order's answer: `upper` (certified: the conversion plus a bound on
 * its own rounding, a few ulps of the magnitude of each of its terms) is
 * what is minimised; `estimate` is the conversion as computed. */
typedef struct {
    double alpha, upper, estimate;
    int cks;
} rdp_point;

static rdp_point convert(const rdp_query *q, double alpha, double eps_alpha)
{
    rdp_point p = { alpha, INFINITY, INFINITY, 0 };
    if (!isfinite(eps_alpha)) return p;
    const double am1 = alpha - 1.0, l = log1p(-1.0 / alpha), la = log(alpha);
    double classic, improved, size_classic, size_improved;
    if (q->epsilon_query) {
        /* Mironov 2017, Prop. 3: eps(alpha) + log(1/delta)/(alpha - 1);
         * CKS 2020, Prop. 12: eps(alpha) + log(1 - 1/alpha) - (log delta + log alpha)/(alpha - 1) */
        const double log_delta = q->target;
        classic = eps_alpha - log_delta / am1;
        improved = eps_alpha + l - (log_delta + la) / am1;
        size_classic = eps_alpha + fabs(log_delta) / am1;
        size_improved = eps_alpha + fabs(l) + (fabs(log_delta) + fabs(la)) / am1;
    } else {
        /* the same solved for log delta: (alpha - 1)(eps(alpha) - eps), and
         * CKS adds alpha log(1 - 1/alpha) - log(alpha - 1) */
        classic = am1 * (eps_alpha - q->target);
        improved = classic + alpha * l - log(am1);
        size_classic = 1.0 + fabs(classic) + am1 * (eps_alpha + q->target);
        size_improved = size_classic + fabs(alpha * l) + fabs(log(am1));
    }
    p.cks = improved < classic;
    p.estimate = p.cks ? improved : classic;
    p.upper = p.estimate + 16.0 * DBL_EPSILON * (p.cks ? size_improved : size_classic);
    return p;
}

/* log delta at eps from a curve, minimised over the grid: convert's
 * certified conversion (the classic bound or CKS's, with its rounding). */
static double curve_log_delta(const rdp_state *s, const double *eps, double epsilon)
{
    rdp_query q = { s, NULL, 0, epsilon };
    double best = 0.0;
    for (size_t i = 0; i < s->n; i++)
        if (isfinite(eps[i])) best = fmin(best, convert(&q, s->orders[i], eps[i]).upper);
    return best;
}

/* ---- the search over real orders ---------------------------------------------
 *
 * Both conversions are quasiconvex in alpha for an exact curve.  With
 * K(alpha) = (alpha - 1) eps(alpha) = log E[(P/Q)^alpha], convex in alpha
 * (Hoelder's inequality: a cumulant generating function) and 0 at
 * alpha = 1, the sublevel set {alpha: eps-conversion <= c} is
 * {K(alpha) + log(1/delta) - (alpha - 1) c <= 0} for the classic one, an
 * interval, and CKS adds (alpha - 1) log(alpha - 1) - alpha log alpha, convex
 * too (second derivative 1/(alpha - 1) - 1/alpha > 0); log delta(alpha) is
 * convex outright.  So the minimum over the reals lies between the
 * neighbours of the best grid order, and a derivative-free search on that
 * bracket (Brent's, below) finds it.  The curve used is an upper bound,
 * not exactly convex (rounding, quadrature pads): the search may then
 * settle a little off the true optimum, never on a value that is not
 * certified, and the grid minimum stays the fallback.
 *
 * The search runs in t = log(alpha - 1), where the grid's spacing is
 * roughly even, and stops when its bracket is RDP_SEARCH_TOL wide: the
 * order found is then within RDP_SEARCH_TOL (alpha - 1)/alpha < 1e-4
 * relative of the optimum.  A fixed tolerance and at most
 * RDP_SEARCH_MAX_STEPS evaluations: deterministic, no clock.  It takes 5
 * to 10 evaluations inside the grid, some 25 at its low end.
 *
 * The range searched is [RDP_SEARCH_MIN_ORDER, RDP_SEARCH_MAX_ORDER].
 * Below it the fractional quadrature of the subsampled Gaussian loses
 * digits to the cancellation in (1 + x)^alpha - 1 - alpha x (a factor
 * about 2 alpha/(alpha - 1): 2e3 ulps at 1.001, well inside rdp_curves.c's
 * pad of 1e-11, which 1.00001 would exceed; checked against MPFR in
 * tests/test_rdp.c), and an optimum there means eps in the hundreds.  Above
 * it the subsampled curves are bounded by the unsampled Gaussian's
 * (RDP_MAX_EXACT_ORDER in rdp_curves.c), no better than the order itself.
 * Past the grid's largest order the search doubles the order while the
 * conversion decreases.  An optimum at either end of the range is reported
 * with DPA_ORDER_AT_EDGE. */
#define RDP_SEARCH_MIN_ORDER 1.001
#define RDP_SEARCH_MAX_ORDER 65536.0
#define RDP_SEARCH_TOL 1e-4
#define RDP_SEARCH_MAX_STEPS 80

static rdp_point evaluate(const rdp_query *q, double alpha)
{
    return convert(q, alpha, curve_at(q->s, q->opt, alpha));
}

/* Brent's minimisation (Brent 1973, "Algorithms for Minimization without
 * Derivatives", ch. 5, procedure localmin) on [t_lo, t_hi] in t, from the
 * interior point x, the best so far: parabolic steps through the three
 * best points where they fall inside the bracket and shrink it fast
 * enough, golden-section steps otherwise: it converges whatever the
 * function, and on a smooth one within a handful of evaluations.  Points
 * without a bound (+inf) only ever lead to golden-section steps (their
 * parabolas are NaN or infinite and fail the tests). */
static rdp_point brent(const rdp_query *q, double a, double b, rdp_point x)
{
    const double c = 0.38196601125010515;     /* (3 - sqrt 5)/2 */
    const double tol = 0.25 * RDP_SEARCH_TOL;  /* stops with b - a <= 4 tol */
    double tx = log(x.alpha - 1.0), tw = tx, tv = tx;
    double fx = x.upper, fw = fx, fv = fx, d = 0.0, e = 0.0;
    for (int step = 0; step < RDP_SEARCH_MAX_STEPS; step++) {
        double m = 0.5 * (a + b);
        if (fabs(tx - m) <= 2.0 * tol - 0.5 * (b - a)) break;
        double p = 0.0, r = 0.0, qq = 0.0;
        if (fabs(e) > tol) {
            r = (tx - tw) * (fx - fv);
            qq = (tx - tv) * (fx - fw);
            p = (tx - tv) * qq - (tx - tw) * r;
            qq = 2.0 * (qq - r);
            if (qq > 0.0) p = -p; else qq = -qq;
            r = e;
            e = d;
        }
        if (fabs(p) < fabs(0.5 * qq * r) && p > qq * (a - tx) && p < qq * (b - tx)) {
            d = p / qq;                          /* parabolic step */
            double tu = tx + d;
            if (tu - a < 2.0 * tol || b - tu < 2.0 * tol) d = tx < m ? tol : -tol;
        } else {
            e = tx < m ? b - tx : a - tx;        /* golden-section step */
            d = c * e;
        }
        double tu = tx + (fabs(d) >= tol ? d : d > 0.0 ? tol : -tol);
        rdp_point u = evaluate(q, 1.0 + exp(tu));
        double fu = u.upper;
        if (fu <= fx) {
            if (tu < tx) b = tx; else a = tx;
            tv = tw; fv = fw;
            tw = tx; fw = fx;
            tx = tu; fx = fu;
            x = u;
        } else {
            if (tu < tx) a = tu; else b = tu;
            if (fu <= fw || tw == tx) {
                tv = tw; fv = fw;
                tw = tu; fw = fu;
            } else if (fu <= fv || tv == tx || tv == tw) {
                tv = tu; fv = fu;
            }
        }
    }
    return x;
}

/* The best order over the reals, from the grid's best (index i, point
 * grid_best) and the curve at the smallest order searched (at_min).
 * *edge is set when the answer is at either end of the range searched. */
static rdp_point search_orders(const rdp_query *q, size_t i, rdp_point grid_best, rdp_point at_min, int *edge)
{
    const rdp_state *s = q->s;
    double lo, hi;
    rdp_point x = grid_best;
    *edge = 0;
    if (i + 1 == s->n) {
        /* past the largest grid order: double until the conversion grows */
        double below = s->orders[i - 1];
        for (;;) {
            if (2.0 * x.alpha > RDP_SEARCH_MAX_ORDER) { *edge = 1; return x; }
            rdp_point u = evaluate(q, 2.0 * x.alpha);
            if (!(u.upper < x.upper)) { hi = u.alpha; break; }
            below = x.alpha;
            x = u;
        }
        lo = below;
    } else {
        lo = i == 0 ? RDP_SEARCH_MIN_ORDER : s->orders[i - 1];
        hi = s->orders[i + 1];
    }
    x = brent(q, log(lo - 1.0), log(hi - 1.0), x);
    if (i == 0 && at_min.upper <= x.upper) { *edge = 1; return at_min; }
    return x;
}

/* Nothing private happened: every eps(alpha) is 0.  The conversions are
 * not tight there (they would report log(1/delta)/(alpha_max - 1)). */
static int curve_is_zero(const rdp_state *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (dpa_sum_value(&s->eps[i]) != 0.0) return 0;
    return 1;
}

static void exactly_zero(dpa_bound *out)
{
    out->lower = out->estimate = out->upper = 0.0;
    out->order = 0.0;
    out->flags = DPA_EXACT;
}

/* log of the total variation bound from eps(alpha) at one order:
 * TV <= sqrt(1 - e^-KL) (the Bretagnolle-Huber inequality, Bretagnolle &
 * Huber 1979; a short proof in Canonne 2022, arXiv:2202.07198) and
 * KL = D_1 <= D_alpha <= eps(alpha) (Renyi divergences do not decrease with
 * the order, van Erven & Harremoes 2014, Thm 3), rounded up: log and expm1
 * are within an ulp or two.  The hockey-stick divergence at eps >= 0 is at
 * most TV, so this is a delta for every eps, and eps = 0 is (0, delta)-DP
 * for a delta above it (as dp_accounting's compute_epsilon and
 * compute_delta use it).  dpa_log1mexp is within an ulp or two as well. */
static double log_tv_upper(double eps_alpha)
{
    if (!(eps_alpha < INFINITY)) return 0.0;
    double v = 0.5 * dpa_log1mexp(-eps_alpha);
    return fmin(0.0, v + 8.0 * DBL_EPSILON * (1.0 + fabs(v)));
}

/* The grid's best point, or with the search the best over the real orders
 * if better (at_min: the conversion at RDP_SEARCH_MIN_ORDER); the flags of
 * the answer in *flags. */
static rdp_point best_order(const rdp_query *q, rdp_point at_min, unsigned *flags)
{
    const rdp_state *s = q->s;
    rdp_point best = { 0.0, INFINITY, INFINITY, 0 };
    size_t best_i = 0;
    for (size_t i = 0; i < s->n; i++) {
        rdp_point p = convert(q, s->orders[i], accumulated(s, i));
        if (p.upper < best.upper) { best = p; best_i = i; }
    }
    int edge = s->n > 1 && (best_i == 0 || best_i == s->n - 1);
    if (s->search && best.upper < INFINITY) {
        rdp_point found = search_orders(q, best_i, best, at_min, &edge);
        if (found.upper < best.upper) best = found;
        else edge = 0;  /* the grid's best, inside the range searched */
    }
    *flags = DPA_NO_LOWER | (best.cks ? DPA_CONV_CKS : DPA_CONV_CLASSIC) | (edge ? DPA_ORDER_AT_EDGE : 0);
    return best;
}

/* The curve at the smallest order a query may use: the grid's first and,
 * with the search, RDP_SEARCH_MIN_ORDER (*at_low, +inf without the search);
 * the smaller of the two, for the total variation bound, in *eps_tv at the
 * order *alpha_tv. */
static void low_orders(const rdp_state *s, const dpa_options *opt, double *at_low, double *eps_tv,
                       double *alpha_tv)
{
    *at_low = s->search ? curve_at(s, opt, RDP_SEARCH_MIN_ORDER) : INFINITY;
    *eps_tv = accumulated(s, 0);
    *alpha_tv = s->orders[0];
    if (*at_low <= *eps_tv) { *eps_tv = *at_low; *alpha_tv = RDP_SEARCH_MIN_ORDER; }
}

static int rdp_epsilon(void *state, const dpa_options *opt, double delta, dpa_bound *out,
                       dpa_error *err)
{
    (void)err;
    const rdp_state *s = state;
    if (curve_is_zero(s)) { exactly_zero(out); return DPA_OK; }
    const double log_delta = log(delta);
    rdp_query q = { s, opt, 1, log_delta };
    double at_low, eps_tv, alpha_tv;
    low_orders(s, opt, &at_low, &eps_tv, &alpha_tv);
    out->lower = 0.0;
    /* eps = 0 when the total variation is at most delta */
    if (log_tv_upper(eps_tv) <= log_delta - 4.0 * DBL_EPSILON * fabs(log_delta)) {
        out->estimate = out->upper = 0.0;
        out->order = alpha_tv;
        out->flags = DPA_NO_LOWER | DPA_CONV_TV;
        return DPA_OK;
    }
    unsigned flags;
    rdp_point best = best_order(&q, convert(&q, RDP_SEARCH_MIN_ORDER, at_low), &flags);
    if (best.upper == INFINITY) {
        out->estimate = out->upper = INFINITY;
        out->order = 0.0;
        out->flags = DPA_UNBOUNDED | DPA_NO_LOWER;
        return DPA_OK;
    }
    /* the conversion may go below 0 at a huge order; "x < 0 ? 0 : x" would
     * keep a NaN for the dispatcher to refuse */
    out->estimate = best.estimate < 0.0 ? 0.0 : best.estimate;
    out->upper = best.upper < 0.0 ? 0.0 : best.upper;
    out->order = best.alpha;
    out->flags = flags;
    return DPA_OK;
}

static int rdp_delta(void *state, const dpa_options *opt, double epsilon, dpa_bound *out,
                     dpa_error *err)
{
    (void)err;
    const rdp_state *s = state;
    if (curve_is_zero(s)) { exactly_zero(out); return DPA_OK; }
    rdp_query q = { s, opt, 0, epsilon };
    double at_low, eps_tv, alpha_tv;
    low_orders(s, opt, &at_low, &eps_tv, &alpha_tv);
    unsigned flags;
    rdp_point best = best_order(&q, convert(&q, RDP_SEARCH_MIN_ORDER, at_low), &flags);
    double log_tv = log_tv_upper(eps_tv);
    out->lower = 0.0;
    if (log_tv < best.upper) {
        best = (rdp_point){ alpha_tv, log_tv, log_tv, 0 };
        flags = DPA_NO_LOWER | DPA_CONV_TV;
    }
    if (!(best.upper < 0.0)) {
        /* no order gives delta < 1 */
        out->estimate = out->upper = 1.0;
        out->order = 0.0;
        out->flags = flags & ~(unsigned)DPA_ORDER_AT_EDGE;
        return DPA_OK;
    }
    out->estimate = exp(best.estimate);
    out->upper = dpa_exp_upper(best.upper);
    out->order = best.alpha;
    out->flags = flags;
    return DPA_OK;
}

static double rdp_state_value(const void *state, const char **what)
{
    const rdp_state *s = state;
    *what = "eps(alpha_max)";
    return dpa_sum_value(&s->eps[s->n - 1]);
}

static size_t rdp_curve_copy(const void *state, double *orders, double *eps, size_t cap)
{
    const rdp_state *s = state;
    for (size_t i = 0; i < s->n && i < cap; i++) {
        orders[i] = s->orders[i];
        eps[i] = accumulated(s, i);
    }
    return s->n;
}

const dpa_accountant_ops dpa_rdp_accountant = {
    .name = "rdp",
    .summary = "Renyi DP (Mironov 2017) on a grid of orders and the best real order near it, "
               "Canonne-Kamath-Steinke conversion",
    .state_size = sizeof(rdp_state),
    .init = rdp_init,
    .destroy = rdp_destroy,
    .supports = rdp_supports,
    .compose = rdp_compose,
    .epsilon = rdp_epsilon,
    .delta = rdp_delta,
    .state_value = rdp_state_value,
    .rdp_curve = rdp_curve_copy,
};
