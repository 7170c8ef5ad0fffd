/* error.c - libdptrain's error helpers (see dpt_internal.h). */
#include <config.h>

#include "dpt_internal.h"

#include <gsl/gsl_errno.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

int dpt_fail(dpa_error *err, int status, const char *fmt, ...)
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

const char *dpt_short_path(const char *path, size_t keep, char *buf, size_t size)
{
    if (!size) return buf;
    if (!path) path = "(null)";
    size_t len = strlen(path);
    if (len <= keep || keep < 4)
        snprintf(buf, size, "%s", path);
    else
        snprintf(buf, size, "...%s", path + (len - (keep - 3)));
    return buf;
}

static pthread_once_t gsl_quiet_once = PTHREAD_ONCE_INIT;

static void gsl_quiet_now(void)
{
    gsl_set_error_handler_off();
}

void dpt_gsl_quiet(void)
{
    pthread_once(&gsl_quiet_once, gsl_quiet_now);
}

/* strerror_r is the XSI one (int) or, with _GNU_SOURCE, the GNU one (char *,
 * possibly not using buf): whichever this libc declares. */
static const char *xsi_result(int status, const char *buf)
{
    return status == 0 ? buf : "unknown error";
}

static const char *gnu_result(const char *text, const char *buf)
{
    (void)buf;
    return text;
}

const char *dpt_strerror(int errnum)
{
    static _Thread_local char buf[128];
    buf[0] = '\0';
    return _Generic(strerror_r(errnum, buf, sizeof buf), int: xsi_result, char *: gnu_result)(
        strerror_r(errnum, buf, sizeof buf), buf);
}

gsl_rng *dpt_rng_new(unsigned long seed, dpa_error *err)
{
    /* GSL's default handler aborts on a failed allocation; a library must
     * report it instead. */
    dpt_gsl_quiet();
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r) {
        dpt_fail(err, DPA_ENOMEM, "cannot allocate the random number generator");
        return NULL;
    }
    gsl_rng_set(r, seed);
    return r;
}

const char *dpt_shown(const char *field, char *buf, size_t size)
{
    if (strlen(field) <= 40)
        snprintf(buf, size, "%s", field);
    else
        snprintf(buf, size, "%.37s...", field);
    return buf;
}

int dpt_parse_number(const char *s, double *out)
{
    if (*s == '\0') return 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0') return 0;
    if (!isfinite(v)) return -1;
    *out = v;
    return 1;
}

int dpt_parse_size(const char *v, size_t *out)
{
    size_t k = 0;
    while (v[k] >= '0' && v[k] <= '9') k++;
    if (k == 0 || v[k] != '\0') return 0;
    errno = 0;
    unsigned long long x = strtoull(v, NULL, 10);
    if (errno == ERANGE || (unsigned long long)(size_t)x != x) return 0;
    *out = (size_t)x;
    return 1;
}

int dpt_parse_ulong(const char *v, unsigned long *out)
{
    size_t k = 0;
    while (v[k] >= '0' && v[k] <= '9') k++;
    if (k == 0 || v[k] != '\0') return 0;
    errno = 0;
    unsigned long x = strtoul(v, NULL, 10);
    if (errno == ERANGE) return 0;
    *out = x;
    return 1;
}

int dpt_spec_items(const char *text, const char *who, int (*item)(char *item, void *ctx, dpa_error *err), void *ctx,
                   dpa_error *err)
{
    if (!text || !*text) return DPA_OK;
    char *copy = strdup(text);
    if (!copy) return dpt_fail(err, DPA_ENOMEM, "%s: out of memory", who);
    int status = DPA_OK;
    char *p = copy;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        while (*p == ' ' || *p == '\t') p++;
        size_t len = strlen(p);
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t')) p[--len] = '\0';
        if (len == 0)
            status = dpt_fail(err, DPA_EINVAL, "%s: empty item in '%.80s'", who, text);
        else
            status = item(p, ctx, err);
        if (status != DPA_OK || !comma) break;
        p = comma + 1;
    }
    free(copy);
    return status;
}
