/*
 * filter.c - privacy filters: fully adaptive composition with a random
 * stopping time, as the bias-reduced DP-SGD of Ghazi, Guzman, Kamath, Kumar
 * & Manurangsi, "Differentially Private Optimization with Sparse Gradients"
 * (NeurIPS 2024) needs (../shared/notes/ntk-sparse-seeds-002-004.md, 2.5
 * item 5).  Before each
 * step the caller asks whether the step's cost, which may depend on
 * everything released so far, still fits; admitted steps are charged.
 *
 * - basic: sum eps_t <= eps and sum delta_t <= delta gives (eps, delta)-DP
 *   (Rogers, Roth, Ullman & Vadhan 2016: basic composition holds for fully
 *   adaptive privacy parameters);
 * - zcdp: sum rho_t <= rho gives rho-zCDP (Feldman & Zrnic 2021's Renyi
 *   filter at every order alpha, each rho_t alpha-RDP at order alpha);
 * - gdp: sum mu_t^2 <= mu^2 gives mu-GDP (Smith & Thakurta 2022, fully
 *   adaptive composition of Gaussian DP).
 *
 * The running sums are long doubles rounded upward (and mu^2 of the budget
 * downward), so the true sum of the admitted costs never exceeds the
 * budget; where the arithmetic is exact (e.g. dyadic costs) a step that
 * lands exactly on the budget is admitted, and the filter stops exactly
 * when the next step would exceed it.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>

struct dpa_filter {
    dpa_filter_kind kind;
    double budget, budget_delta;
    long double spent, spent_delta;   /* sums (mu^2 for gdp), rounded up */
    uint64_t admitted, refused;
};

/* sum + x rounded up: Knuth's TwoSum gives the exact error of the long
 * double addition, and the sum moves up one ulp only when it fell short. */
static long double add_up(long double sum, long double x)
{
    long double s = sum + x, bv = s - sum, av = s - bv;
    long double e = (sum - av) + (x - bv);
    return e > 0.0L ? nextafterl(s, INFINITY) : s;
}

/* x * x rounded up (down when `down`): the fused multiply-add gives the
 * exact residual of the long double product. */
static long double square_rounded(double x, int down)
{
    long double p = (long double)x * x, e = fmal(x, x, -p);
    if (!down && e > 0.0L) return nextafterl(p, INFINITY);
    if (down && e < 0.0L) return nextafterl(p, -INFINITY);
    return p;
}

/* A long double sum as a double no smaller than it. */
static double double_up(long double v)
{
    double d = (double)v;
    return (long double)d < v ? nextafter(d, INFINITY) : d;
}

dpa_filter *dpa_filter_new(dpa_filter_kind kind, double budget, double budget_delta, dpa_error *err)
{
    if ((unsigned)kind > (unsigned)DPA_FILTER_GDP) {
        dpa_fail(err, DPA_EINVAL, "filter: unknown kind %d", (int)kind);
        return NULL;
    }
    if (!(budget > 0.0 && isfinite(budget))) {
        dpa_fail(err, DPA_EINVAL, "filter: the budget must be positive and finite, got %g", budget);
        return NULL;
    }
    if (kind == DPA_FILTER_BASIC && !(budget_delta >= 0.0 && budget_delta < 1.0)) {
        dpa_fail(err, DPA_EINVAL, "filter: the basic filter's delta budget must lie in [0, 1), got %g", budget_delta);
        return NULL;
    }
    if (kind != DPA_FILTER_BASIC && budget_delta != 0.0) {
        dpa_fail(err, DPA_EINVAL, "filter: only the basic filter has a delta budget (got %g)", budget_delta);
        return NULL;
    }
    dpa_filter *f = calloc(1, sizeof *f);
    if (!f) {
        dpa_fail(err, DPA_ENOMEM, "filter: out of memory");
        return NULL;
    }
    f->kind = kind;
    f->budget = budget;
    f->budget_delta = budget_delta;
    return f;
}

void dpa_filter_free(dpa_filter *f)
{
    free(f);
}

int dpa_filter_try(dpa_filter *f, double cost, double cost_delta, int *admitted, dpa_error *err)
{
    if (!f) return dpa_fail(err, DPA_EINVAL, "filter_try: the filter (f) is NULL");
    if (!admitted) return dpa_fail(err, DPA_EINVAL, "filter_try: the output (admitted) is NULL");
    *admitted = 0;
    if (!(cost >= 0.0 && isfinite(cost)))
        return dpa_fail(err, DPA_EINVAL, "filter: a step's cost must be finite and >= 0, got %g", cost);
    if (f->kind == DPA_FILTER_BASIC ? !(cost_delta >= 0.0 && cost_delta < 1.0) : cost_delta != 0.0)
        return dpa_fail(err, DPA_EINVAL, "filter: a step's delta must lie in [0, 1) (basic filter) or be 0, got %g",
                        cost_delta);
    long double c = f->kind == DPA_FILTER_GDP ? square_rounded(cost, 0) : (long double)cost;
    long double budget = f->kind == DPA_FILTER_GDP ? square_rounded(f->budget, 1) : (long double)f->budget;
    long double spent = add_up(f->spent, c), spent_delta = add_up(f->spent_delta, cost_delta);
    if (spent > budget || (f->kind == DPA_FILTER_BASIC && spent_delta > (long double)f->budget_delta)) {
        f->refused++;
        return DPA_OK;
    }
    f->spent = spent;
    f->spent_delta = spent_delta;
    f->admitted++;
    *admitted = 1;
    return DPA_OK;
}

int dpa_filter_spent(const dpa_filter *f, double *spent, double *spent_delta, uint64_t *admitted)
{
    if (!f) return DPA_EINVAL;
    /* rounded up to double: never below what was charged (sqrtl is correctly
     * rounded, so one more ulp covers it for gdp) */
    long double s = f->kind == DPA_FILTER_GDP ? sqrtl(f->spent) : f->spent;
    if (f->kind == DPA_FILTER_GDP && s * s < f->spent) s = nextafterl(s, INFINITY);
    if (spent) *spent = double_up(s);
    if (spent_delta) *spent_delta = double_up(f->spent_delta);
    if (admitted) *admitted = f->admitted;
    return DPA_OK;
}

int dpa_filter_epsilon(const dpa_filter *f, double delta, dpa_bound *out, dpa_error *err)
{
    if (!f) return dpa_fail(err, DPA_EINVAL, "filter_epsilon: the filter (f) is NULL");
    if (!out) return dpa_fail(err, DPA_EINVAL, "filter_epsilon: the output (out) is NULL");
    if (f->kind == DPA_FILTER_BASIC) {
        if (!(delta >= f->budget_delta))
            return dpa_fail(err, DPA_EINVAL, "filter: the basic filter guarantees (%g, %g)-DP; delta %g is below its delta "
                            "budget", f->budget, f->budget_delta, delta);
        *out = (dpa_bound){ .upper = f->budget, .lower = 0.0, .estimate = f->budget, .flags = DPA_NO_LOWER };
        return DPA_OK;
    }
    if (!(delta > 0.0 && delta < 1.0)) return dpa_fail(err, DPA_EINVAL, "filter: delta must lie in (0, 1), got %g", delta);
    if (f->kind == DPA_FILTER_GDP) return dpa_gdp_epsilon(f->budget, delta, out, err);
    dpa_accountant *a = dpa_accountant_new("zcdp", NULL, err);
    dpa_event *e = a ? dpa_event_zcdp(f->budget, 0.0, err) : NULL;
    int st = e ? dpa_accountant_compose(a, e, err) : (err && err->status ? err->status : DPA_ENOMEM);
    if (!st) st = dpa_accountant_epsilon(a, delta, out, err);
    dpa_event_free(e);
    dpa_accountant_free(a);
    return st;
}
