/*
 * event.c - the event tree: what happened to the data.
 *
 * Events are immutable once built.  Parameters live in two small arrays;
 * the table below says which slot holds what, and dpa_event_describe()
 * prints them by name.
 */
#include "internal.h"
#include "numerics.h"

#include <inttypes.h>
#include <stdarg.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parameter names per kind: numeric slots then integer slots (NULL = unused). */
static const struct {
    const char *name;
    const char *param[DPA_EVENT_MAX_PARAMS];
    const char *count[DPA_EVENT_MAX_COUNTS];
} kind_info[] = {
    [DPA_EVENT_GAUSSIAN] = { "gaussian", { "sigma" }, { 0 } },
    [DPA_EVENT_LAPLACE] = { "laplace", { "scale" }, { 0 } },
    [DPA_EVENT_RANDOMIZED_RESPONSE] = { "randomized_response", { "eps" }, { "k" } },
    [DPA_EVENT_DISCRETE_GAUSSIAN] = { "discrete_gaussian", { "sigma" }, { "sensitivity" } },
    [DPA_EVENT_DISCRETE_LAPLACE] = { "discrete_laplace", { "scale" }, { "sensitivity" } },
    [DPA_EVENT_EXPONENTIAL] = { "exponential", { "eps" }, { 0 } },
    [DPA_EVENT_EPSILON_DELTA] = { "epsilon_delta", { "eps", "delta" }, { 0 } },
    [DPA_EVENT_ZCDP] = { "zcdp", { "rho", "xi" }, { 0 } },
    [DPA_EVENT_GDP] = { "gdp", { "mu" }, { 0 } },
    [DPA_EVENT_TREE_AGGREGATION] = { "tree_aggregation", { "sigma" }, { "steps", "restart_every" } },
    [DPA_EVENT_NOISY_CGD] = { "noisy_cgd", { "m", "M", "eta", "sensitivity", "sigma" },
                              { "batches", "epochs" } },
    [DPA_EVENT_SHUFFLED] = { "shuffled", { "eps0", "delta0" }, { "n", "rr_class" } },
    [DPA_EVENT_POISSON_SAMPLED] = { "poisson", { "q" }, { 0 } },
    [DPA_EVENT_SAMPLED_WITHOUT_REPLACEMENT] = { "without_replacement", { 0 }, { "n", "m" } },
    [DPA_EVENT_SAMPLED_WITH_REPLACEMENT] = { "with_replacement", { 0 }, { "n", "m" } },
    [DPA_EVENT_SELF_COMPOSED] = { "self_composed", { 0 }, { "count" } },
    [DPA_EVENT_COMPOSED] = { "composed", { 0 }, { 0 } },
    [DPA_EVENT_REPEATED_SELECTED] = { "repeated_selected", { "param1", "param2" },
                                      { "distribution" } },
    [DPA_EVENT_TRUNCATED_LAPLACE] = { "truncated_laplace", { "eps", "delta" }, { 0 } },
    [DPA_EVENT_GSM_FROBENIUS] = { "gsm_frobenius", { "M" }, { "k" } },
    [DPA_EVENT_GSM_SPECTRAL] = { "gsm_spectral", { "eta" }, { "k", "n" } },
    [DPA_EVENT_PERMUTE_AND_FLIP] = { "permute_and_flip", { "eps" }, { 0 } },
    [DPA_EVENT_SHUFFLED_BATCHES] = { "shuffled_batches", { 0 }, { "n", "m" } },
    [DPA_EVENT_TRUNCATED_POISSON] = { "truncated_poisson", { "q" }, { "n", "max_batch" } },
    [DPA_EVENT_RANDOM_ALLOCATION] = { "random_allocation", { 0 }, { "steps", "selected" } },
    /* and its list: sensitivities, probabilities (event_text.c, event_json.c) */
    [DPA_EVENT_MIXTURE_OF_GAUSSIANS] = { "mixture_of_gaussians", { "sigma" }, { 0 } },
};

static dpa_event *event_new(dpa_event_kind kind, dpa_error *err)
{
    dpa_event *e = calloc(1, sizeof *e);
    if (!e) {
        dpa_fail(err, DPA_ENOMEM, "out of memory allocating a %s event", kind_info[kind].name);
        return NULL;
    }
    e->kind = kind;
    for (int i = 0; i < DPA_EVENT_MAX_PARAMS; i++) e->param[i] = NAN;
    e->repetitions = 1.0;
    return e;
}

/* A wrapper's depth is one more than its deepest child's; refusing one
 * deeper than DPA_MAX_EVENT_DEPTH is what keeps every recursive walk of an
 * event (here and in the accountants) within a bounded stack. */
static int check_depth(dpa_event_kind kind, size_t child_depth, dpa_error *err)
{
    if (child_depth >= DPA_MAX_EVENT_DEPTH)
        return dpa_fail(err, DPA_EINVAL,
                        "%s: the inner event is already nested %zu levels deep; at most %d levels of wrappers "
                        "are allowed (DPA_MAX_EVENT_DEPTH): use a count (self_composed) or a list (composed) instead",
                        kind_info[kind].name, child_depth, DPA_MAX_EVENT_DEPTH);
    return DPA_OK;
}

/* A wrapper around one child; takes ownership of `inner` in every case. */
static dpa_event *wrapper_new(dpa_event_kind kind, dpa_event *inner, dpa_error *err)
{
    if (!inner) {
        if (!err || err->status == DPA_OK)
            dpa_fail(err, DPA_EINVAL, "%s: inner event is NULL", kind_info[kind].name);
        return NULL;
    }
    if (check_depth(kind, inner->depth, err)) {
        dpa_event_free(inner);
        return NULL;
    }
    dpa_event *e = event_new(kind, err);
    dpa_event **kids = e ? malloc(sizeof *kids) : NULL;
    if (!kids) {
        if (e) dpa_fail(err, DPA_ENOMEM, "out of memory");
        free(e);
        dpa_event_free(inner);
        return NULL;
    }
    kids[0] = inner;
    e->children = kids;
    e->num_children = 1;
    e->depth = inner->depth + 1;
    e->repetitions = inner->repetitions;
    return e;
}

static int positive_finite(double x) { return x > 0.0 && isfinite(x); }

#define REQUIRE(cond, ...) do { if (!(cond)) { dpa_fail(err, DPA_EINVAL, __VA_ARGS__); return NULL; } } while (0)

dpa_event *dpa_event_gaussian(double noise_multiplier, dpa_error *err)
{
    REQUIRE(positive_finite(noise_multiplier),
            "gaussian: noise multiplier must be positive and finite, got %g", noise_multiplier);
    dpa_event *e = event_new(DPA_EVENT_GAUSSIAN, err);
    if (e) e->param[0] = noise_multiplier;
    return e;
}

dpa_event *dpa_event_laplace(double noise_multiplier, dpa_error *err)
{
    REQUIRE(positive_finite(noise_multiplier),
            "laplace: noise multiplier must be positive and finite, got %g", noise_multiplier);
    dpa_event *e = event_new(DPA_EVENT_LAPLACE, err);
    if (e) e->param[0] = noise_multiplier;
    return e;
}

dpa_event *dpa_event_randomized_response(double epsilon, uint32_t k, dpa_error *err)
{
    REQUIRE(positive_finite(epsilon), "randomized_response: epsilon must be positive and finite, got %g", epsilon);
    REQUIRE(k >= 2, "randomized_response: k must be at least 2, got %" PRIu32, k);
    dpa_event *e = event_new(DPA_EVENT_RANDOMIZED_RESPONSE, err);
    if (e) { e->param[0] = epsilon; e->count[0] = k; }
    return e;
}

dpa_event *dpa_event_discrete_gaussian(double sigma, uint64_t sensitivity, dpa_error *err)
{
    REQUIRE(positive_finite(sigma), "discrete_gaussian: sigma must be positive and finite, got %g", sigma);
    REQUIRE(sensitivity >= 1, "discrete_gaussian: sensitivity must be a positive integer");
    dpa_event *e = event_new(DPA_EVENT_DISCRETE_GAUSSIAN, err);
    if (e) { e->param[0] = sigma; e->count[0] = sensitivity; }
    return e;
}

dpa_event *dpa_event_discrete_laplace(double scale, uint64_t sensitivity, dpa_error *err)
{
    REQUIRE(positive_finite(scale), "discrete_laplace: scale must be positive and finite, got %g", scale);
    REQUIRE(sensitivity >= 1, "discrete_laplace: sensitivity must be a positive integer");
    dpa_event *e = event_new(DPA_EVENT_DISCRETE_LAPLACE, err);
    if (e) { e->param[0] = scale; e->count[0] = sensitivity; }
    return e;
}

dpa_event *dpa_event_exponential(double epsilon, dpa_error *err)
{
    REQUIRE(positive_finite(epsilon), "exponential: epsilon must be positive and finite, got %g", epsilon);
    dpa_event *e = event_new(DPA_EVENT_EXPONENTIAL, err);
    if (e) e->param[0] = epsilon;
    return e;
}

dpa_event *dpa_event_permute_and_flip(double epsilon, dpa_error *err)
{
    REQUIRE(positive_finite(epsilon), "permute_and_flip: epsilon must be positive and finite, got %g", epsilon);
    dpa_event *e = event_new(DPA_EVENT_PERMUTE_AND_FLIP, err);
    if (e) e->param[0] = epsilon;
    return e;
}

/* The probabilities' sum, compensated, and whether each lies in (0, 1]
 * (else *bad is the first that does not); the sensitivities' first that is
 * not finite and >= 0 in *bad_c (n when all are). */
static double mixture_check(const double *c, const double *p, size_t n, size_t *bad_c, size_t *bad_p)
{
    dpa_sum sum = { 0 };
    *bad_c = *bad_p = n;
    for (size_t i = n; i-- > 0;) {
        if (!(c[i] >= 0.0 && isfinite(c[i]))) *bad_c = i;
        if (!(p[i] > 0.0 && p[i] <= 1.0)) *bad_p = i;
        else dpa_sum_add(&sum, p[i]);
    }
    return dpa_sum_value(&sum);
}

dpa_event *dpa_event_mixture_of_gaussians(double sigma, const double *sensitivities, const double *probabilities,
                                          size_t n, dpa_error *err)
{
    REQUIRE(sensitivities && probabilities, "mixture_of_gaussians: %s is NULL",
            sensitivities ? "probabilities" : "sensitivities");
    REQUIRE(n >= 1, "mixture_of_gaussians: needs at least one component (n is 0)");
    REQUIRE(n <= DPA_MAX_MIXTURE_COMPONENTS, "mixture_of_gaussians: %zu components, more than %d "
            "(DPA_MAX_MIXTURE_COMPONENTS)", n, DPA_MAX_MIXTURE_COMPONENTS);
    REQUIRE(positive_finite(sigma), "mixture_of_gaussians: sigma must be positive and finite, got %g", sigma);
    size_t bad_c, bad_p;
    double sum = mixture_check(sensitivities, probabilities, n, &bad_c, &bad_p);
    REQUIRE(bad_c == n, "mixture_of_gaussians: sensitivities[%zu] must be finite and >= 0, got %g", bad_c,
            bad_c < n ? sensitivities[bad_c] : 0.0);
    REQUIRE(bad_p == n, "mixture_of_gaussians: probabilities[%zu] must lie in (0, 1], got %g", bad_p,
            bad_p < n ? probabilities[bad_p] : 0.0);
    REQUIRE(fabs(sum - 1.0) <= 1e-9, "mixture_of_gaussians: the probabilities must sum to 1 (within 1e-9), "
            "they sum to %.17g", sum);
    dpa_event *e = event_new(DPA_EVENT_MIXTURE_OF_GAUSSIANS, err);
    double *list = e ? malloc(2 * n * sizeof *list) : NULL;
    if (!list) {
        if (e) dpa_fail(err, DPA_ENOMEM, "mixture_of_gaussians: out of memory for %zu components", n);
        free(e);
        return NULL;
    }
    memcpy(list, sensitivities, n * sizeof *list);
    memcpy(list + n, probabilities, n * sizeof *list);
    e->param[0] = sigma;
    e->list = list;
    e->list_len = n;
    return e;
}

dpa_event *dpa_event_epsilon_delta(double epsilon, double delta, dpa_error *err)
{
    REQUIRE(epsilon >= 0.0 && isfinite(epsilon), "epsilon_delta: epsilon must be finite and >= 0, got %g", epsilon);
    REQUIRE(delta >= 0.0 && delta < 1.0, "epsilon_delta: delta must lie in [0, 1), got %g", delta);
    dpa_event *e = event_new(DPA_EVENT_EPSILON_DELTA, err);
    if (e) { e->param[0] = epsilon; e->param[1] = delta; }
    return e;
}

dpa_event *dpa_event_truncated_laplace(double epsilon, double delta, dpa_error *err)
{
    REQUIRE(positive_finite(epsilon), "truncated_laplace: epsilon must be positive and finite, got %g", epsilon);
    REQUIRE(delta > 0.0 && delta <= 0.5, "truncated_laplace: delta must lie in (0, 1/2], got %g", delta);
    dpa_event *e = event_new(DPA_EVENT_TRUNCATED_LAPLACE, err);
    if (e) { e->param[0] = epsilon; e->param[1] = delta; }
    return e;
}

dpa_event *dpa_event_gsm_frobenius(uint64_t k, double M, dpa_error *err)
{
    REQUIRE(k >= 1, "gsm_frobenius: k (samples) must be at least 1");
    REQUIRE(M > 0.0 && M < 1.0,
            "gsm_frobenius: M must lie in (0, 1) (at M >= 1 an eigenvalue may reach 0 and no order is finite), "
            "got %g", M);
    dpa_event *e = event_new(DPA_EVENT_GSM_FROBENIUS, err);
    if (e) { e->param[0] = M; e->count[0] = k; }
    return e;
}

dpa_event *dpa_event_gsm_spectral(uint64_t k, uint64_t n, double eta, dpa_error *err)
{
    REQUIRE(k >= 1, "gsm_spectral: k (samples) must be at least 1");
    REQUIRE(n >= 1, "gsm_spectral: n (the matrix dimension) must be at least 1");
    REQUIRE(eta > 0.0 && eta < 1.0, "gsm_spectral: eta must lie in (0, 1), got %g", eta);
    dpa_event *e = event_new(DPA_EVENT_GSM_SPECTRAL, err);
    if (e) { e->param[0] = eta; e->count[0] = k; e->count[1] = n; }
    return e;
}

dpa_event *dpa_event_zcdp(double rho, double xi, dpa_error *err)
{
    REQUIRE(rho >= 0.0 && isfinite(rho), "zcdp: rho must be finite and >= 0, got %g", rho);
    REQUIRE(xi >= 0.0 && isfinite(xi), "zcdp: xi must be finite and >= 0, got %g", xi);
    dpa_event *e = event_new(DPA_EVENT_ZCDP, err);
    if (e) { e->param[0] = rho; e->param[1] = xi; }
    return e;
}

dpa_event *dpa_event_gdp(double mu, dpa_error *err)
{
    REQUIRE(mu >= 0.0 && isfinite(mu), "gdp: mu must be finite and >= 0, got %g", mu);
    dpa_event *e = event_new(DPA_EVENT_GDP, err);
    if (e) e->param[0] = mu;
    return e;
}

dpa_event *dpa_event_tree_aggregation(double noise_multiplier, uint64_t steps,
                                      uint64_t restart_every, dpa_error *err)
{
    REQUIRE(positive_finite(noise_multiplier),
            "tree_aggregation: noise multiplier must be positive and finite, got %g", noise_multiplier);
    REQUIRE(steps >= 1, "tree_aggregation: steps must be at least 1");
    dpa_event *e = event_new(DPA_EVENT_TREE_AGGREGATION, err);
    if (e) { e->param[0] = noise_multiplier; e->count[0] = steps; e->count[1] = restart_every; }
    return e;
}

dpa_event *dpa_event_noisy_cgd(const dpa_noisy_cgd_params *p, dpa_error *err)
{
    REQUIRE(p != NULL, "noisy_cgd: parameters are NULL");
    REQUIRE(positive_finite(p->strong_convexity), "noisy_cgd: strong convexity m must be positive, got %g", p->strong_convexity);
    REQUIRE(isfinite(p->smoothness) && p->smoothness >= p->strong_convexity,
            "noisy_cgd: smoothness M must be finite and >= m, got %g", p->smoothness);
    REQUIRE(positive_finite(p->step_size) && p->step_size < 2.0 / p->smoothness,
            "noisy_cgd: step size must lie in (0, 2/M), got %g", p->step_size);
    REQUIRE(positive_finite(p->sensitivity), "noisy_cgd: sensitivity must be positive, got %g", p->sensitivity);
    REQUIRE(positive_finite(p->sigma), "noisy_cgd: sigma must be positive, got %g", p->sigma);
    REQUIRE(p->batches >= 1, "noisy_cgd: batches must be at least 1");
    REQUIRE(p->epochs >= 1, "noisy_cgd: epochs must be at least 1");
    dpa_event *e = event_new(DPA_EVENT_NOISY_CGD, err);
    if (e) {
        e->param[0] = p->strong_convexity; e->param[1] = p->smoothness;
        e->param[2] = p->step_size; e->param[3] = p->sensitivity; e->param[4] = p->sigma;
        e->count[0] = p->batches; e->count[1] = p->epochs;
    }
    return e;
}

dpa_event *dpa_event_shuffled_local(double epsilon0, double delta0, uint64_t n, dpa_local_class randomizer,
                                    dpa_error *err)
{
    REQUIRE(positive_finite(epsilon0), "shuffled: eps0 must be positive and finite, got %g", epsilon0);
    REQUIRE(delta0 >= 0.0 && delta0 < 1.0, "shuffled: delta0 must lie in [0, 1), got %g", delta0);
    REQUIRE(n >= 1, "shuffled: n must be at least 1");
    REQUIRE(randomizer == DPA_LOCAL_ANY || randomizer == DPA_LOCAL_RR_CLASS,
            "shuffled: unknown randomizer class %d", (int)randomizer);
    REQUIRE(randomizer == DPA_LOCAL_ANY || delta0 == 0.0,
            "shuffled: the randomized-response class is for pure (delta0 = 0) randomizers, got delta0 = %g",
            delta0);
    dpa_event *e = event_new(DPA_EVENT_SHUFFLED, err);
    if (e) { e->param[0] = epsilon0; e->param[1] = delta0; e->count[0] = n; e->count[1] = (uint64_t)randomizer; }
    return e;
}

dpa_event *dpa_event_shuffled(double epsilon0, uint64_t n, dpa_error *err)
{
    return dpa_event_shuffled_local(epsilon0, 0.0, n, DPA_LOCAL_ANY, err);
}

/* Wrapper checks must free `inner` when they refuse. */
#define REQUIRE_OWN(cond, ...) do { if (!(cond)) { dpa_event_free(inner); dpa_fail(err, DPA_EINVAL, __VA_ARGS__); return NULL; } } while (0)

dpa_event *dpa_event_poisson_sampled(double q, dpa_event *inner, dpa_error *err)
{
    if (inner) REQUIRE_OWN(q > 0.0 && q <= 1.0, "poisson: sampling rate q must lie in (0, 1], got %g", q);
    dpa_event *e = wrapper_new(DPA_EVENT_POISSON_SAMPLED, inner, err);
    if (e) e->param[0] = q;
    return e;
}

static dpa_event *sampled_fixed(dpa_event_kind kind, uint64_t n, uint64_t m, dpa_event *inner,
                                dpa_error *err)
{
    if (inner) {
        REQUIRE_OWN(n >= 1, "%s: dataset size n must be at least 1", kind_info[kind].name);
        REQUIRE_OWN(m >= 1 && (m <= n || kind == DPA_EVENT_SAMPLED_WITH_REPLACEMENT),
                    "%s: sample size m must lie in [1, n], got %" PRIu64 " with n = %" PRIu64,
                    kind_info[kind].name, m, n);
    }
    dpa_event *e = wrapper_new(kind, inner, err);
    if (e) { e->count[0] = n; e->count[1] = m; }
    return e;
}

dpa_event *dpa_event_sampled_without_replacement(uint64_t n, uint64_t m, dpa_event *inner,
                                                 dpa_error *err)
{
    return sampled_fixed(DPA_EVENT_SAMPLED_WITHOUT_REPLACEMENT, n, m, inner, err);
}

dpa_event *dpa_event_sampled_with_replacement(uint64_t n, uint64_t m, dpa_event *inner,
                                              dpa_error *err)
{
    return sampled_fixed(DPA_EVENT_SAMPLED_WITH_REPLACEMENT, n, m, inner, err);
}

dpa_event *dpa_event_shuffled_batches(uint64_t n, uint64_t m, dpa_event *inner, dpa_error *err)
{
    if (inner) {
        double inv_var;
        const dpa_event *bad = NULL;
        int gaussian = dpa_event_inverse_variance(inner, &inv_var, &bad) == DPA_OK;
        /* the name is a static string: still valid once inner is freed */
        const char *what = gaussian ? "" : dpa_event_kind_name(dpa_event_get_kind(bad ? bad : inner));
        /* the bounds (the Gaussian once an epoch; Chua et al.'s lower bound)
         * are for Gaussian sums */
        REQUIRE_OWN(gaussian, "shuffled_batches: the inner event must be Gaussian noise (gaussian, gdp or a "
                              "composition of them), got %s", what);
    }
    return sampled_fixed(DPA_EVENT_SHUFFLED_BATCHES, n, m, inner, err);
}

dpa_event *dpa_event_truncated_poisson(double q, uint64_t n, uint64_t max_batch, dpa_event *inner,
                                       dpa_error *err)
{
    if (inner) {
        REQUIRE_OWN(q > 0.0 && q <= 1.0, "truncated_poisson: sampling rate q must lie in (0, 1], got %g", q);
        REQUIRE_OWN(n >= 1, "truncated_poisson: dataset size n must be at least 1");
        REQUIRE_OWN(max_batch >= 1, "truncated_poisson: max_batch must be at least 1");
        REQUIRE_OWN(max_batch <= n,
                    "truncated_poisson: max_batch must be at most the dataset size n, got %" PRIu64
                    " with n = %" PRIu64 " (max_batch = n never truncates)",
                    max_batch, n);
    }
    dpa_event *e = wrapper_new(DPA_EVENT_TRUNCATED_POISSON, inner, err);
    if (e) { e->param[0] = q; e->count[0] = n; e->count[1] = max_batch; }
    return e;
}

/* times * count rounded up: a total number of steps rounded down would
 * under-count the privacy loss (counts above 2^53 are not all doubles). */
static double times_count(double times, uint64_t count)
{
    double c = (double)count;
    if (c < 18446744073709551616.0 && (uint64_t)c < count) c = nextafter(c, INFINITY);
    double p = times * c;
    if (isfinite(p) && fma(times, c, -p) > 0.0) p = nextafter(p, INFINITY);
    return p;
}

/* A wrapper that runs `inner` `count` times (self_composed's count,
 * random_allocation's steps): the product with the counts nested inside is
 * at most DPA_MAX_REPETITIONS (frees inner and says so otherwise). */
static int repeat_within_limit(dpa_event_kind kind, const char *what, dpa_event *inner, uint64_t count,
                               dpa_error *err)
{
    double nested = inner->repetitions, total = times_count(nested, count);
    if (total <= DPA_MAX_REPETITIONS) return DPA_OK;
    dpa_event_free(inner);
    return dpa_fail(err, DPA_EINVAL,
                    "%s: %s %" PRIu64 " times the counts nested inside (%g) repeats a mechanism %g times, more "
                    "than DPA_MAX_REPETITIONS (%g)",
                    kind_info[kind].name, what, count, nested, total, DPA_MAX_REPETITIONS);
}

/* A wrapper repeating `inner` `count` times; takes ownership of inner. */
static dpa_event *repeating_new(dpa_event_kind kind, uint64_t count, dpa_event *inner, dpa_error *err)
{
    dpa_event *e = wrapper_new(kind, inner, err);
    if (e) e->repetitions = times_count(e->children[0]->repetitions, count);
    return e;
}

dpa_event *dpa_event_self_composed(dpa_event *inner, uint64_t count, dpa_error *err)
{
    if (inner) {
        REQUIRE_OWN(count >= 1, "self_composed: count must be at least 1");
        if (repeat_within_limit(DPA_EVENT_SELF_COMPOSED, "count", inner, count, err)) return NULL;
    }
    dpa_event *e = repeating_new(DPA_EVENT_SELF_COMPOSED, count, inner, err);
    if (e) e->count[0] = count;
    return e;
}

/* Each step runs inner, so an epoch repeats it `steps` times (what
 * DPA_MAX_REPETITIONS counts), whichever steps hold a given record. */
dpa_event *dpa_event_random_allocation(uint64_t steps, uint64_t selected, dpa_event *inner, dpa_error *err)
{
    if (inner) {
        REQUIRE_OWN(steps >= 1, "random_allocation: steps (per epoch) must be at least 1");
        REQUIRE_OWN(selected >= 1, "random_allocation: selected (the steps each record is used in) must be at "
                                   "least 1");
        REQUIRE_OWN(selected <= steps,
                    "random_allocation: selected (the steps each record is used in) must be at most steps, got "
                    "selected = %" PRIu64 " with steps = %" PRIu64, selected, steps);
        if (repeat_within_limit(DPA_EVENT_RANDOM_ALLOCATION, "steps", inner, steps, err)) return NULL;
    }
    dpa_event *e = repeating_new(DPA_EVENT_RANDOM_ALLOCATION, steps, inner, err);
    if (e) { e->count[0] = steps; e->count[1] = selected; }
    return e;
}

dpa_event *dpa_event_repeated_selected(dpa_event *inner, int distribution, double param1,
                                       double param2, dpa_error *err)
{
    if (inner) {
        if (distribution == DPA_REPEAT_POISSON) {
            REQUIRE_OWN(positive_finite(param1), "repeated_selected: Poisson mean must be positive, got %g", param1);
        } else if (distribution == DPA_REPEAT_GEOMETRIC) {
            REQUIRE_OWN(param1 > 0.0 && param1 <= 1.0,
                        "repeated_selected: the stopping probability gamma must lie in (0, 1], got %g", param1);
        } else if (distribution == DPA_REPEAT_TRUNCATED_NEGATIVE_BINOMIAL) {
            REQUIRE_OWN(param1 > -1.0 && isfinite(param1), "repeated_selected: eta must be > -1, got %g", param1);
            REQUIRE_OWN(param2 > 0.0 && param2 < 1.0, "repeated_selected: gamma must lie in (0, 1), got %g", param2);
        } else {
            REQUIRE_OWN(0, "repeated_selected: unknown distribution %d", distribution);
        }
    }
    dpa_event *e = wrapper_new(DPA_EVENT_REPEATED_SELECTED, inner, err);
    if (e) { e->param[0] = param1; e->param[1] = param2; e->count[0] = (uint64_t)distribution; }
    return e;
}

double dpa_event_pure_epsilon(const dpa_event *e)
{
    double p0 = e->param[0];
    switch (e->kind) {
    case DPA_EVENT_LAPLACE: return 1.0 / p0;
    case DPA_EVENT_RANDOMIZED_RESPONSE:
    case DPA_EVENT_EXPONENTIAL:
    case DPA_EVENT_PERMUTE_AND_FLIP: return p0;
    case DPA_EVENT_DISCRETE_LAPLACE: return (double)e->count[0] / p0;
    case DPA_EVENT_EPSILON_DELTA: return e->param[1] == 0.0 ? p0 : INFINITY;
    default: return INFINITY;
    }
}

static int compare_pointers(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(dpa_event *const *)a, y = (uintptr_t)*(dpa_event *const *)b;
    return (x > y) - (x < y);
}

/* The list sorted by address (a copy), so that an event listed twice --
 * which would be freed twice -- is found in O(n log n) however wide the
 * list; NULL when n < 2 or out of memory. */
static dpa_event **sorted_copy(dpa_event *const *events, size_t n)
{
    dpa_event **sorted = n > 1 ? malloc(n * sizeof *sorted) : NULL;
    if (sorted) {
        memcpy(sorted, events, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, compare_pointers);
    }
    return sorted;
}

/* Frees each distinct event of a refused list once. */
static void free_list(dpa_event *const *events, size_t n, dpa_event **sorted)
{
    dpa_event **own = sorted ? sorted : sorted_copy(events, n);
    if (!own) {                  /* n < 2, or no memory to sort: free as given */
        for (size_t i = 0; i < n; i++) dpa_event_free(events[i]);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (i == 0 || own[i] != own[i - 1]) dpa_event_free(own[i]);
    free(own);
}

dpa_event *dpa_event_composed(dpa_event *const *events, size_t n, dpa_error *err)
{
    if (!events) {
        dpa_fail(err, DPA_EINVAL, "composed: events (the list) is NULL");
        return NULL;
    }
    if (n > SIZE_MAX / sizeof(dpa_event *)) {
        /* no such array can exist, so there is nothing to free */
        dpa_fail(err, DPA_EINVAL, "composed: n = %zu events cannot be held in memory", n);
        return NULL;
    }
    int missing = 0;
    size_t depth = 0;
    for (size_t i = 0; i < n; i++) {
        missing |= events[i] == NULL;
        if (events[i] && events[i]->depth > depth) depth = events[i]->depth;
    }
    dpa_event **sorted = NULL;
    if (n == 0) {
        dpa_fail(err, DPA_EINVAL, "composed: needs at least one event (n is 0)");
    } else if (missing) {
        if (!err || err->status == DPA_OK)
            dpa_fail(err, DPA_EINVAL, "composed: an event in the list is NULL");
    } else if (check_depth(DPA_EVENT_COMPOSED, depth, err)) {
        /* refused, message set */
    } else if (n > 1 && !(sorted = sorted_copy(events, n))) {
        dpa_fail(err, DPA_ENOMEM, "composed: out of memory checking a list of %zu events", n);
    } else {
        size_t dup = n;
        for (size_t i = 1; sorted && i < n && dup == n; i++)
            if (sorted[i] == sorted[i - 1])
                for (size_t j = 0; j < n; j++)
                    if (events[j] == sorted[i]) { dup = j; break; }
        dpa_event *e = dup < n ? NULL : event_new(DPA_EVENT_COMPOSED, err);
        if (dup < n)
            dpa_fail(err, DPA_EINVAL,
                     "composed: event %zu appears twice in the list (an event has one owner; "
                     "use self_composed to repeat it)", dup);
        else if (e && (e->children = malloc(n * sizeof *e->children)) != NULL) {
            memcpy(e->children, events, n * sizeof *e->children);
            e->num_children = n;
            e->depth = depth + 1;
            for (size_t i = 0; i < n; i++) e->repetitions = fmax(e->repetitions, events[i]->repetitions);
            free(sorted);
            return e;
        } else if (e) {
            dpa_fail(err, DPA_ENOMEM, "composed: out of memory for a list of %zu events", n);
            free(e);
        }
    }
    free_list(events, n, sorted);
    return NULL;
}

void dpa_event_free(dpa_event *e)
{
    if (!e) return;
    for (size_t i = 0; i < e->num_children; i++) dpa_event_free(e->children[i]);
    free(e->children);
    free(e->list);
    free(e);
}

dpa_event *dpa_event_copy(const dpa_event *e, dpa_error *err)
{
    if (!e) { dpa_fail(err, DPA_EINVAL, "copy: event is NULL"); return NULL; }
    dpa_event *c = event_new(e->kind, err);
    if (!c) return NULL;
    memcpy(c->param, e->param, sizeof c->param);
    memcpy(c->count, e->count, sizeof c->count);
    c->depth = e->depth;
    c->repetitions = e->repetitions;
    if (e->list_len) {
        c->list = malloc(2 * e->list_len * sizeof *c->list);
        if (!c->list) { free(c); dpa_fail(err, DPA_ENOMEM, "out of memory"); return NULL; }
        memcpy(c->list, e->list, 2 * e->list_len * sizeof *c->list);
        c->list_len = e->list_len;
    }
    if (e->num_children) {
        c->children = calloc(e->num_children, sizeof *c->children);
        if (!c->children) { dpa_event_free(c); dpa_fail(err, DPA_ENOMEM, "out of memory"); return NULL; }
        c->num_children = e->num_children;
        for (size_t i = 0; i < e->num_children; i++) {
            c->children[i] = dpa_event_copy(e->children[i], err);
            if (!c->children[i]) { dpa_event_free(c); return NULL; }
        }
    }
    return c;
}

dpa_event_kind dpa_event_get_kind(const dpa_event *e) { return e ? e->kind : DPA_EVENT_INVALID; }

double dpa_event_param(const dpa_event *e, unsigned i)
{
    return e && i < DPA_EVENT_MAX_PARAMS ? e->param[i] : NAN;
}

uint64_t dpa_event_count(const dpa_event *e, unsigned i)
{
    return e && i < DPA_EVENT_MAX_COUNTS ? e->count[i] : 0;
}

size_t dpa_event_num_components(const dpa_event *e) { return e ? e->list_len : 0; }

double dpa_event_component_sensitivity(const dpa_event *e, size_t i)
{
    return e && i < e->list_len ? e->list[i] : NAN;
}

double dpa_event_component_probability(const dpa_event *e, size_t i)
{
    return e && i < e->list_len ? e->list[e->list_len + i] : NAN;
}

size_t dpa_event_num_children(const dpa_event *e) { return e ? e->num_children : 0; }

const dpa_event *dpa_event_child(const dpa_event *e, size_t i)
{
    return e && i < e->num_children ? e->children[i] : NULL;
}

size_t dpa_event_depth(const dpa_event *e) { return e ? e->depth : 0; }

const char *dpa_event_kind_name(dpa_event_kind kind)
{
    if ((unsigned)kind >= sizeof kind_info / sizeof kind_info[0]) return "unknown";
    return kind_info[kind].name;
}

const char *dpa_event_slot_name(dpa_event_kind kind, int is_count, unsigned i)
{
    if ((unsigned)kind >= sizeof kind_info / sizeof kind_info[0]) return NULL;
    if (is_count) return i < DPA_EVENT_MAX_COUNTS ? kind_info[kind].count[i] : NULL;
    return i < DPA_EVENT_MAX_PARAMS ? kind_info[kind].param[i] : NULL;
}

dpa_event_kind dpa_event_kind_from_name(const char *name, size_t len)
{
    if (len == 7 && !strncmp(name, "compose", 7)) return DPA_EVENT_COMPOSED;   /* the verb, as people write it */
    for (size_t k = 0; k < sizeof kind_info / sizeof kind_info[0]; k++)
        if (kind_info[k].name && strlen(kind_info[k].name) == len && !strncmp(kind_info[k].name, name, len))
            return (dpa_event_kind)k;
    return DPA_EVENT_INVALID;
}

/* Levenshtein distance of a[0..la) and b (case-insensitive), at most
 * 63 characters of each (longer names are nobody's typo of an event). */
static size_t edit_distance(const char *a, size_t la, const char *b)
{
    size_t lb = strlen(b);
    if (la > 63 || lb > 63) return (size_t)-1;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            size_t best = diag + !same;
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *dpa_event_kind_nearest(const char *name, size_t len)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t k = 0; k < sizeof kind_info / sizeof kind_info[0]; k++) {
        if (!kind_info[k].name) continue;
        size_t d = edit_distance(name, len, kind_info[k].name);
        if (d < best_d) {
            best_d = d;
            best = kind_info[k].name;
        }
    }
    /* a typo, not another word: at most a third of the name changed */
    return best && 3 * best_d <= strlen(best) ? best : NULL;
}

static int visit(const dpa_event *e, double times, dpa_leaf_visitor fn, void *ctx,
                 dpa_error *err)
{
    switch (e->kind) {
    case DPA_EVENT_SELF_COMPOSED:
        return visit(e->children[0], times_count(times, e->count[0]), fn, ctx, err);
    case DPA_EVENT_COMPOSED:
        for (size_t i = 0; i < e->num_children; i++) {
            int st = visit(e->children[i], times, fn, ctx, err);
            if (st) return st;
        }
        return DPA_OK;
    default:
        return fn(e, times, ctx, err);
    }
}

int dpa_event_visit_leaves(const dpa_event *e, dpa_leaf_visitor fn, void *ctx, dpa_error *err)
{
    if (!e) return dpa_fail(err, DPA_EINVAL, "event is NULL");
    return visit(e, 1.0, fn, ctx, err);
}

static int add_inverse_variance(const dpa_event *e, double times, dpa_sum *sum,
                                const dpa_event **offender)
{
    switch (e->kind) {
    /* Each term is positive for finite noise (mu > 0): one that underflows
     * is rounded up to the smallest double (dpa_positive_up), never to 0,
     * which would make sigma = 1e300 exactly private; sigma * sigma is not
     * formed, so that it cannot overflow to inf first. */
    case DPA_EVENT_GAUSSIAN:
        dpa_sum_add(sum, dpa_positive_up(times / e->param[0] / e->param[0]));
        return DPA_OK;
    case DPA_EVENT_GDP:
        dpa_sum_add(sum, e->param[0] > 0.0 ? dpa_positive_up(times * e->param[0] * e->param[0]) : 0.0);
        return DPA_OK;
    case DPA_EVENT_TREE_AGGREGATION: {
        /* Kairouz et al. 2021 (DP-FTRL): the online tree over r leaves
         * releases the complete dyadic intervals inside [1, r]; a leaf lies
         * in one of each size 1, 2, 4, ..., 2^floor(log2 r), so one record
         * moves floor(log2 r) + 1 released nodes by up to one sensitivity
         * each: a Gaussian with 1/sigma^2 = (floor(log2 r) + 1) / f^2 per
         * tree.  With a restart every r steps there are ceil(T / r) trees,
         * each holding the record once (one pass per tree); a single tree
         * (restart_every = 0) holds it once. */
        uint64_t steps = e->count[0], r = e->count[1];
        if (r == 0 || r > steps) r = steps;
        double trees = ceil((double)steps / (double)r), path = 1.0;
        for (uint64_t v = r; v > 1; v >>= 1) path += 1.0;
        dpa_sum_add(sum, dpa_positive_up(times * trees * path / e->param[0] / e->param[0]));
        return DPA_OK;
    }
    case DPA_EVENT_NOISY_CGD: {               /* mu-GDP */
        double mu;
        if (dpa_event_noisy_cgd_mu(e, &mu)) { *offender = e; return DPA_EINVAL; }
        dpa_sum_add(sum, mu > 0.0 ? dpa_positive_up(times * mu * mu) : 0.0);
        return DPA_OK;
    }
    case DPA_EVENT_MIXTURE_OF_GAUSSIANS: {
        /* one sensitivity c > 0 for every component: the Gaussian of
         * multiplier sigma/c, whatever the probabilities */
        double c = e->list[0], m = c / e->param[0];
        for (size_t i = 1; i < e->list_len; i++)
            if (e->list[i] != c) c = 0.0;
        if (c == 0.0) { *offender = e; return DPA_EUNSUPPORTED; }
        dpa_sum_add(sum, dpa_positive_up(times * m * m));
        return DPA_OK;
    }
    case DPA_EVENT_SELF_COMPOSED:
        return add_inverse_variance(e->children[0], times_count(times, e->count[0]), sum, offender);
    case DPA_EVENT_SHUFFLED_BATCHES:
        /* each record is in exactly one of the epoch's steps: one step's
         * noise, whichever step it is (Chua et al., ICML 2024: shuffling is
         * no less private than a fixed order) */
        return add_inverse_variance(e->children[0], times, sum, offender);
    case DPA_EVENT_COMPOSED:
        for (size_t i = 0; i < e->num_children; i++) {
            int st = add_inverse_variance(e->children[i], times, sum, offender);
            if (st) return st;
        }
        return DPA_OK;
    default:
        *offender = e;
        return DPA_EUNSUPPORTED;
    }
}

int dpa_event_inverse_variance(const dpa_event *e, double *inv_var, const dpa_event **offender)
{
    dpa_sum sum = { 0 };
    const dpa_event *bad = NULL;
    int st = e ? add_inverse_variance(e, 1.0, &sum, &bad) : DPA_EINVAL;
    if (offender) *offender = bad;
    if (!st) *inv_var = dpa_sum_value(&sum);
    return st;
}

const dpa_event *dpa_event_strip_counts(const dpa_event *e, double *times)
{
    *times = 1.0;
    while (e && e->kind == DPA_EVENT_SELF_COMPOSED) {
        *times *= (double)e->count[0];
        e = e->children[0];
    }
    return e;
}

int dpa_event_bound_unattained(const dpa_event *e)
{
    if (!e) return 0;
    if (e->kind == DPA_EVENT_NOISY_CGD || e->kind == DPA_EVENT_SHUFFLED_BATCHES) return 1;
    for (size_t i = 0; i < e->num_children; i++)
        if (dpa_event_bound_unattained(e->children[i])) return 1;
    return 0;
}
