/*
 * account.c - the one question every trainer asks libdpacct: the certified
 * upper eps at delta of an event, under a method and options.
 */
#include <config.h>

#include "dpt_internal.h"

int dpt_event_epsilon(const char *method, const dpa_options *opt, dpa_event *e, double delta, double *eps,
                      dpa_error *err)
{
    if (!e) return err && err->status ? err->status : DPA_EINVAL;
    dpa_accountant *a = dpa_accountant_new(method, opt, err);
    int st = a ? dpa_accountant_compose(a, e, err) : (err && err->status ? err->status : DPA_EINVAL);
    dpa_bound b;
    if (!st) st = dpa_accountant_epsilon(a, delta, &b, err);
    if (!st) *eps = b.upper;
    dpa_accountant_free(a);
    dpa_event_free(e);
    return st;
}
