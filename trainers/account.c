/*
 * account.c - the questions every trainer asks libdpacct: the certified
 * upper eps at delta of an event, under a method and options, and the
 * Gaussian noise multiplier for a target (eps, delta).
 */
#include <config.h>

#include "dpt_internal.h"

#include <math.h>

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

int dpt_gaussian_multiplier(double eps, double delta, int classical, double *mult, dpa_error *err)
{
    if (classical) {
        if (!(eps < 1.0))
            return dpt_fail(err, DPA_EINVAL,
                            "the classical Gaussian formula is a guarantee only for epsilon < 1 (Dwork-Roth Thm A.1), "
                            "got epsilon = %g; use the analytic calibration", eps);
        *mult = sqrt(2.0 * log(1.25 / delta)) / eps;
        return DPA_OK;
    }
    dpa_bound b;
    int st = dpa_gaussian_sigma(eps, delta, &b, err);
    if (st != DPA_OK) return st;
    if (!(b.upper > 0.0 && isfinite(b.upper)))
        return dpt_fail(err, DPA_EACCURACY, "the analytic Gaussian calibration gave %g", b.upper);
    *mult = b.upper;
    return DPA_OK;
}
