/* accountant.c - the generic accountant: registry lookup and dispatch. */
#include "internal.h"
#include "numerics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct dpa_accountant {
    const dpa_accountant_ops *ops;
    dpa_options opt;
    void *state;
    int hidden_state;   /* a noisy_cgd event was composed */
};

void dpa_options_init(dpa_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->relation = DPA_ADD_REMOVE;
}

const char *const *dpa_accountant_names(void)
{
    return dpa_registry_names;
}

static const dpa_accountant_ops *find_ops(const char *method)
{
    if (!method) return NULL;
    for (size_t i = 0; dpa_registry[i]; i++)
        if (strcmp(dpa_registry[i]->name, method) == 0) return dpa_registry[i];
    return NULL;
}

const char *dpa_accountant_summary(const char *method)
{
    const dpa_accountant_ops *ops = find_ops(method);
    return ops ? ops->summary : NULL;
}

static int check_options(const dpa_options *opt, dpa_error *err)
{
    if (opt->relation != DPA_ADD_REMOVE && opt->relation != DPA_REPLACE_ONE)
        return dpa_fail(err, DPA_EINVAL, "options: unknown neighbouring relation %d", (int)opt->relation);
    if (!(opt->tolerance >= 0.0 && opt->tolerance < 1.0))
        return dpa_fail(err, DPA_EINVAL, "options: tolerance must lie in [0, 1), got %g", opt->tolerance);
    if (opt->num_orders > 0 && !opt->orders)
        return dpa_fail(err, DPA_EINVAL, "options: num_orders is %zu but orders is NULL", opt->num_orders);
    for (size_t i = 0; i < opt->num_orders; i++)
        if (!(opt->orders[i] > 1.0 && isfinite(opt->orders[i])))
            return dpa_fail(err, DPA_EINVAL, "options: Renyi order %zu must be finite and > 1, got %g",
                            i, opt->orders[i]);
    return DPA_OK;
}

dpa_accountant *dpa_accountant_new(const char *method, const dpa_options *opt, dpa_error *err)
{
    const dpa_accountant_ops *ops = find_ops(method);
    if (!ops) {
        dpa_fail(err, DPA_ENOTFOUND, "no accountant named '%s'", method ? method : "(null)");
        return NULL;
    }
    dpa_options o;
    if (opt) o = *opt; else dpa_options_init(&o);
    if (check_options(&o, err)) return NULL;
    dpa_accountant *a = calloc(1, sizeof *a);
    void *state = a ? calloc(1, ops->state_size ? ops->state_size : 1) : NULL;
    if (!state) {
        free(a);
        dpa_fail(err, DPA_ENOMEM, "out of memory creating the %s accountant", method);
        return NULL;
    }
    a->ops = ops;
    a->opt = o;
    a->state = state;
    if (ops->init && ops->init(state, &o, err) != DPA_OK) {
        free(state);
        free(a);
        return NULL;
    }
    return a;
}

const char *dpa_accountant_name(const dpa_accountant *a)
{
    return a->ops->name;
}

int dpa_accountant_supports(const dpa_accountant *a, const dpa_event *e, dpa_error *err)
{
    if (!a || !e) return dpa_fail(err, DPA_EINVAL, "supports: accountant or event is NULL");
    return a->ops->supports(a->state, &a->opt, e, err);
}

int dpa_accountant_compose(dpa_accountant *a, const dpa_event *e, dpa_error *err)
{
    int st = dpa_accountant_supports(a, e, err);
    if (st) return st;
    st = a->ops->compose(a->state, &a->opt, e, err);
    if (!st && dpa_event_has_hidden_state(e)) a->hidden_state = 1;
    return st;
}

/* A noisy_cgd event is accounted by its mu-GDP bound, which the final
 * iterate need not attain: a lower bound is then one on the GDP bound's
 * eps, not on the mechanism's, and nothing is exact.  Said once, here, for
 * every accountant. */
static void mark_hidden_state(const dpa_accountant *a, dpa_bound *out)
{
    if (!a->hidden_state) return;
    out->flags &= ~(unsigned)DPA_EXACT;
    if (!(out->flags & DPA_NO_LOWER)) out->flags |= DPA_PAIR_LOWER;
}

/* A result must never be NaN and never be ordered wrongly. */
static int check_bound(const dpa_accountant *a, const dpa_bound *b, dpa_error *err)
{
    if (isnan(b->lower) || isnan(b->upper) || isnan(b->estimate) || b->lower > b->upper)
        return dpa_fail(err, DPA_EACCURACY, "%s: internal error: inconsistent bound [%g, %g]",
                        a->ops->name, b->lower, b->upper);
    return DPA_OK;
}

int dpa_accountant_epsilon(dpa_accountant *a, double delta, dpa_bound *out, dpa_error *err)
{
    if (!a || !out) return dpa_fail(err, DPA_EINVAL, "epsilon: accountant or output is NULL");
    int st = dpa_check_delta(delta, err);
    if (!st) st = a->ops->epsilon(a->state, &a->opt, delta, out, err);
    if (!st) st = check_bound(a, out, err);
    if (!st || st == DPA_EACCURACY) mark_hidden_state(a, out);
    return st;
}

int dpa_accountant_delta(dpa_accountant *a, double epsilon, dpa_bound *out, dpa_error *err)
{
    if (!a || !out) return dpa_fail(err, DPA_EINVAL, "delta: accountant or output is NULL");
    int st = dpa_check_epsilon(epsilon, err);
    if (!st) st = a->ops->delta(a->state, &a->opt, epsilon, out, err);
    if (!st) st = check_bound(a, out, err);
    if (!st || st == DPA_EACCURACY) mark_hidden_state(a, out);
    return st;
}

int dpa_accountant_state(const dpa_accountant *a, double *value, const char **what,
                         dpa_error *err)
{
    if (!a || !value) return dpa_fail(err, DPA_EINVAL, "state: accountant or output is NULL");
    const char *name = NULL;
    *value = a->ops->state_value(a->state, &name);
    if (what) *what = name;
    return DPA_OK;
}

int dpa_accountant_rdp_curve(const dpa_accountant *a, double *orders, double *eps, size_t cap,
                             size_t *n, dpa_error *err)
{
    if (!a || !n || (cap > 0 && (!orders || !eps)))
        return dpa_fail(err, DPA_EINVAL, "rdp_curve: accountant, outputs or arrays are NULL");
    if (!a->ops->rdp_curve)
        return dpa_fail(err, DPA_EUNSUPPORTED, "%s: this accountant keeps no RDP curve", a->ops->name);
    *n = a->ops->rdp_curve(a->state, orders, eps, cap);
    return DPA_OK;
}

int dpa_accountant_pld(const dpa_accountant *a, int world, int upper, dpa_pld_view *out,
                       dpa_error *err)
{
    if (!a || !out) return dpa_fail(err, DPA_EINVAL, "pld: accountant or output is NULL");
    if (world != 0 && world != 1)
        return dpa_fail(err, DPA_EINVAL, "pld: world must be 0 (remove) or 1 (add), got %d", world);
    if (!a->ops->pld_view)
        return dpa_fail(err, DPA_EUNSUPPORTED, "%s: this accountant keeps no privacy loss distribution",
                        a->ops->name);
    return a->ops->pld_view(a->state, world, upper, out, err);
}

void dpa_accountant_free(dpa_accountant *a)
{
    if (!a) return;
    if (a->ops->destroy) a->ops->destroy(a->state);
    free(a->state);
    free(a);
}
