/* error.c - status codes and error messages. */
#include <config.h>

#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

const char *dpa_strerror(int status)
{
    switch (status) {
    case DPA_OK: return "success";
    case DPA_EINVAL: return "invalid argument";
    case DPA_ENOMEM: return "out of memory";
    case DPA_EUNSUPPORTED: return "the accountant does not support this event";
    case DPA_EACCURACY: return "the requested accuracy cannot be reached within the configured limits";
    case DPA_ENOTFOUND: return "no accountant of that name";
    case DPA_ENOBRACKET: return "the search interval does not contain a solution";
    case DPA_EINTERNAL: return "internal error: a result failed its consistency check";
    default: return "unknown status code";
    }
}

int dpa_fail(dpa_error *err, int status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->status = status;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return status;
}

int dpa_check_delta(double delta, dpa_error *err)
{
    if (!(delta > 0.0 && delta < 1.0))
        return dpa_fail(err, DPA_EINVAL, "delta must lie in (0, 1), got %g", delta);
    return DPA_OK;
}

int dpa_check_epsilon(double epsilon, dpa_error *err)
{
    if (!(epsilon >= 0.0 && isfinite(epsilon)))
        return dpa_fail(err, DPA_EINVAL, "epsilon must be finite and >= 0, got %g", epsilon);
    return DPA_OK;
}

const char *dpa_version(void)
{
    return PACKAGE_VERSION;
}

size_t dpa_bound_describe(unsigned flags, char *buf, size_t size)
{
    static const struct { unsigned flag; const char *words; } names[] = {
        { DPA_APPROXIMATE, "approximate (not a guarantee)" },
        { DPA_EXACT, "exact" },
        { DPA_NO_LOWER, "no lower bound" },
        { DPA_UNBOUNDED, "no finite bound" },
        { DPA_CONV_CLASSIC, "classic conversion" },
        { DPA_CONV_CKS, "Canonne-Kamath-Steinke conversion" },
        { DPA_ORDER_AT_EDGE, "optimal order at grid edge: extend the grid" },
        { DPA_PAIR_LOWER, "lower bound of the dominating pair" },
    };
    size_t used = 0;
    if (!buf) size = 0;
    if (size) buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(flags & names[i].flag)) continue;
        int n = snprintf(size > used ? buf + used : NULL, size > used ? size - used : 0,
                         "%s%s", used ? ", " : "", names[i].words);
        if (n > 0) used += (size_t)n;
    }
    return used;
}
