/*
 * tuning.c - private hyperparameter tuning by its privacy profile: the
 * bound stated as Thm 5.1 of Koskela, "Approximating Two-Layer ReLU
 * Networks for Hidden State Analysis in Differential Privacy" (arXiv
 * 2024).  The paper states it without proof, as the privacy-profile
 * analysis of Koskela, Redberg & Wang ("Privacy Profiles for Private
 * Selection", ICML 2024) of the random-repetition tuning of Papernot &
 * Steinke ("Hyperparameter Tuning with Renyi Differential Privacy", ICLR
 * 2022), specialised to a Poisson number of runs; the worked notes
 * (../shared/notes/noisycgd-seed-001.md 2.5) derive it independently.
 * (Bok, Su & Altschuler 2024, cited here before, is the source of the
 * NoisyCGD bound, not of this one.)  Runs the base mechanism K ~ Poisson(m)
 * times and releases the best run; for all eps > 0 and eps1 >= 0
 *
 *   H_{e^eps}(A || A') <= m delta(eps_hat),
 *   eps_hat = eps - m (e^eps1 - 1) - m delta(eps1),
 *
 * with delta the base mechanism's profile.  As printed it is best at
 * eps1 = 0 (the derivative of e^eps1 + delta(eps1) is e^eps1 (1 - Q(L > eps1))
 * >= 0; the notes' Finding 1), so
 *
 *   delta_tuned(eps) <= m delta(eps - m TV),   TV = delta(0),
 *   eps_tuned(delta) <= eps_base(delta / m) + m TV.
 *
 * Valid, but loose: m TV is of order m for a base run with a large eps
 * (the notes: base eps 1.33 at m = 20 gives 4.32, where Koskela reports
 * 2.88); the rdp accountant's Papernot-Steinke bound is usually tighter.
 *
 * Liu & Talwar's random stopping ("Private Selection from Private
 * Candidates", STOC 2019, Thm 3.1: run a pure eps-DP
 * mechanism until a coin of probability gamma stops it, release the best
 * run) is 3 eps-DP whatever gamma: for a repeated_selected event with the
 * geometric distribution this accountant reports 3 eps_base with eps_base
 * the base's eps at delta = 0 (its pure-DP eps), and refuses a base that is
 * not pure DP (rdp's Papernot-Steinke bound covers those: the geometric is
 * the truncated negative binomial with eta = 1).
 *
 * The base profile comes from a sub-accountant, the first of gaussian,
 * pld and rdp that supports the base mechanism, and its certified upper
 * bounds are used throughout; this accountant gives no lower bound.
 */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

typedef struct {
    dpa_accountant *base;   /* the base mechanism, composed once */
    double mean;            /* m, the Poisson mean of the number of runs */
    int geometric;          /* Liu-Talwar random stopping */
    double gamma;           /* its stopping probability */
    double pure_eps;        /* geometric: the base's eps at delta = 0 */
} tuning_state;

static const char *const base_methods[] = { "gaussian", "pld", "rdp" };

/* The tuning event: repeated_selected(Poisson(m), inner), alone. */
/* *param: the Poisson mean, or Liu-Talwar's stopping probability */
static int tuning_event(const dpa_event *e, const dpa_event **inner, double *param, int *geometric, dpa_error *err)
{
    while (dpa_event_get_kind(e) == DPA_EVENT_SELF_COMPOSED && dpa_event_count(e, 0) == 1)
        e = dpa_event_child(e, 0);
    if (dpa_event_get_kind(e) != DPA_EVENT_REPEATED_SELECTED)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "tuning: only a repeated_selected event (private tuning) is supported, not %s",
                        dpa_event_kind_name(dpa_event_get_kind(e)));
    *geometric = dpa_event_count(e, 0) == DPA_REPEAT_GEOMETRIC;
    if (dpa_event_count(e, 0) != DPA_REPEAT_POISSON && !*geometric)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "tuning: the profile bound is for a Poisson number of runs; use rdp for the truncated "
                        "negative binomial");
    *inner = dpa_event_child(e, 0);
    *param = dpa_event_param(e, 0);
    if (*geometric) return DPA_OK;   /* gamma in (0, 1], checked by the constructor */
    if (!(*param > 0.0 && isfinite(*param)))
        return dpa_fail(err, DPA_EINVAL, "tuning: the Poisson mean must be positive and finite, got %g", *param);
    return DPA_OK;
}

static int add_pure_eps(const dpa_event *leaf, double times, void *ctx, dpa_error *err)
{
    (void)err;
    *(double *)ctx += times * dpa_event_pure_epsilon(leaf);
    return DPA_OK;
}

/* The base's pure-DP eps (basic composition of its leaves, rounded up),
 * which Liu-Talwar needs finite. */
static int pure_epsilon(const dpa_event *inner, double *eps, dpa_error *err)
{
    double sum = 0.0;
    int st = dpa_event_visit_leaves(inner, add_pure_eps, &sum, err);
    if (st) return st;
    if (!isfinite(sum))
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "tuning: Liu-Talwar's random stopping (3 eps) needs a pure eps-DP base mechanism (Laplace, "
                        "randomized response, exponential, (eps, 0)); for others use rdp, where the geometric "
                        "number of runs is the truncated negative binomial with eta = 1");
    *eps = sum * (1.0 + 8.0 * DBL_EPSILON);
    return DPA_OK;
}

/* The first base accountant that supports `inner` (NULL and err set if none). */
static dpa_accountant *base_for(const dpa_event *inner, const dpa_options *opt, dpa_error *err)
{
    char reasons[DPA_ERROR_MESSAGE_SIZE] = "";
    for (size_t i = 0; i < sizeof base_methods / sizeof base_methods[0]; i++) {
        dpa_error e = { 0 };
        dpa_accountant *a = dpa_accountant_new(base_methods[i], opt, &e);
        if (!a) { if (err) *err = e; return NULL; }
        if (dpa_accountant_supports(a, inner, &e) == DPA_OK) return a;
        if (i == sizeof base_methods / sizeof base_methods[0] - 1) snprintf(reasons, sizeof reasons, "%s", e.message);
        dpa_accountant_free(a);
    }
    dpa_fail(err, DPA_EUNSUPPORTED, "tuning: no accountant for the base mechanism (%s)", reasons);
    return NULL;
}

static int tuning_supports(const void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    const tuning_state *s = state;
    const dpa_event *inner;
    double mean, eps;
    int geometric;
    int st = tuning_event(e, &inner, &mean, &geometric, err);
    if (st) return st;
    if (s->base)
        return dpa_fail(err, DPA_EUNSUPPORTED,
                        "tuning: one tuned mechanism per accountant (its bound is not a privacy profile that composes)");
    dpa_accountant *a = base_for(inner, opt, err);
    if (!a) return err ? err->status : DPA_EUNSUPPORTED;
    if (geometric) st = pure_epsilon(inner, &eps, err);
    dpa_accountant_free(a);
    return st;
}

static int tuning_compose(void *state, const dpa_options *opt, const dpa_event *e, dpa_error *err)
{
    tuning_state *s = state;
    const dpa_event *inner;
    double param;
    int st = tuning_event(e, &inner, &param, &s->geometric, err);
    if (st) return st;
    dpa_accountant *a = base_for(inner, opt, err);
    if (!a) return err ? err->status : DPA_EUNSUPPORTED;
    st = dpa_accountant_compose(a, inner, err);
    if (!st && s->geometric) st = pure_epsilon(inner, &s->pure_eps, err);
    if (st) { dpa_accountant_free(a); return st; }
    if (s->geometric) s->gamma = param;
    else s->mean = param;
    s->base = a;
    return DPA_OK;
}

static void tuning_destroy(void *state)
{
    dpa_accountant_free(((tuning_state *)state)->base);
}

/* An upper bound of the base's delta at eps, or its failure (a base that
 * misses its accuracy still gives a valid upper bound: pld's DPA_OK flagged
 * DPA_WIDTH_NOT_MET, or its DPA_EACCURACY under require_width).  The
 * flag is not passed on: this accountant's answer has no lower bound
 * (DPA_NO_LOWER), so there is no width to meet. */
static int base_delta(const tuning_state *s, double eps, double *upper, dpa_error *err)
{
    dpa_bound b;
    int st = dpa_accountant_delta(s->base, eps, &b, err);
    if (st && st != DPA_EACCURACY) return st;
    *upper = b.upper;
    return DPA_OK;
}

static int tuning_epsilon(void *state, const dpa_options *opt, double delta, dpa_bound *out, dpa_error *err)
{
    tuning_state *s = state;
    (void)opt;
    *out = (dpa_bound){ 0 };
    if (!s->base) { out->flags = DPA_EXACT; return DPA_OK; }
    if (s->geometric) {         /* Liu-Talwar: 3 eps_base, whatever delta */
        out->upper = out->estimate = 3.0 * s->pure_eps * (1.0 + 2.0 * DBL_EPSILON);
        out->flags = DPA_NO_LOWER;
        return DPA_OK;
    }
    double tv;
    int st = base_delta(s, 0.0, &tv, err);
    if (st) return st;
    /* m <= delta: m delta_base <= delta whatever eps, so eps = 0 */
    if (!(delta / s->mean < 1.0)) { out->flags = DPA_NO_LOWER; return DPA_OK; }
    dpa_bound b;
    st = dpa_accountant_epsilon(s->base, delta / s->mean, &b, err);
    if (st && st != DPA_EACCURACY) return st;   /* its upper is valid either way (base_delta) */
    out->upper = (b.upper + s->mean * tv) * (1.0 + 4.0 * DBL_EPSILON);
    out->estimate = out->upper;
    out->flags = DPA_NO_LOWER | (isfinite(out->upper) ? 0u : (unsigned)DPA_UNBOUNDED);
    return DPA_OK;
}

static int tuning_delta(void *state, const dpa_options *opt, double epsilon, dpa_bound *out, dpa_error *err)
{
    tuning_state *s = state;
    (void)opt;
    *out = (dpa_bound){ 0 };
    if (!s->base) { out->flags = DPA_EXACT; return DPA_OK; }
    if (s->geometric) {         /* 3 eps_base-DP: delta 0 from there on, no bound (1) below */
        out->upper = out->estimate = epsilon >= 3.0 * s->pure_eps * (1.0 + 2.0 * DBL_EPSILON) ? 0.0 : 1.0;
        out->flags = DPA_NO_LOWER;
        return DPA_OK;
    }
    double tv, d = 1.0;
    int st = base_delta(s, 0.0, &tv, err);
    if (st) return st;
    /* eps_hat rounded down: delta is decreasing */
    double eps_hat = (epsilon - s->mean * tv) * (1.0 - 4.0 * DBL_EPSILON) - 1e-300;
    if (eps_hat >= 0.0 && (st = base_delta(s, eps_hat, &d, err))) return st;
    out->upper = fmin(1.0, s->mean * d * (1.0 + 4.0 * DBL_EPSILON));
    out->estimate = out->upper;
    out->flags = DPA_NO_LOWER;
    return DPA_OK;
}

static double tuning_state_value(const void *state, const char **what)
{
    const tuning_state *s = state;
    if (s->geometric) {
        *what = "stopping probability of the runs (Liu-Talwar)";
        return s->gamma;
    }
    *what = "Poisson mean of the runs";
    return s->mean;
}

const dpa_accountant_ops dpa_tuning_accountant = {
    .name = "tuning",
    .summary = "private tuning by its privacy profile (Thm 5.1 of Koskela, arXiv 2024, after Koskela, Redberg & "
               "Wang, ICML 2024; as printed: loose, eps_base(delta/m) + m TV), or Liu & Talwar's random "
               "stopping (STOC 2019: 3 eps, pure-DP base)",
    .state_size = sizeof(tuning_state),
    .destroy = tuning_destroy,
    .supports = tuning_supports,
    .compose = tuning_compose,
    .epsilon = tuning_epsilon,
    .delta = tuning_delta,
    .state_value = tuning_state_value,
};
