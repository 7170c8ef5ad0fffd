/* error.c - libdptrain's error helpers (see dpt_internal.h). */
#include <config.h>

#include "dpt_internal.h"

#include <gsl/gsl_errno.h>

#include <errno.h>
#include <stdint.h>
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

/* One implementation of the escaping, in libdpacct (dpa_escape): the two
 * libraries and both commands echo user input the same way. */
const char *dpt_escape(const char *text, unsigned flags, char *buf, size_t size)
{
    return dpa_escape(text, flags, buf, size);
}

const char *dpt_short_path(const char *path, size_t keep, char *buf, size_t size)
{
    if (!size) return buf;
    return dpt_escape(path, DPT_ESCAPE_TAIL, buf, keep + 1 < size ? keep + 1 : size);
}

const char *dpt_bytes_text(double bytes, char *buf, size_t size)
{
    static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB" };
    int u = 0;
    while (bytes >= 1024.0 && u < 8) {
        bytes /= 1024.0;
        u++;
    }
    snprintf(buf, size, u ? "%.3g %s" : "%.0f %s", bytes, unit[u]);
    return buf;
}

uint64_t dpt_data_limit(uint64_t max_bytes)
{
    return max_bytes ? max_bytes : DPT_MAX_DATA_BYTES_DEFAULT;
}

int dpt_check_data_size(size_t n, size_t d, uint64_t max_bytes, const char *who, dpa_error *err)
{
    /* n d sizeof(double) as a double for the message: exact enough to show */
    double bytes = (double)n * (double)d * (double)sizeof(double);
    if (d && n > SIZE_MAX / d / sizeof(double))
        return dpt_fail(err, DPA_EINVAL, "%s: n*d = %zu*%zu = %.4g doubles exceeds the addressable size", who, n, d,
                        (double)n * (double)d);
    uint64_t limit = dpt_data_limit(max_bytes);
    if ((uint64_t)(n * d) > limit / sizeof(double)) {
        char have[32], lim[32];
        return dpt_fail(err, DPA_EINVAL, "%s: %zu x %zu doubles (%s) exceed the %s data limit (raise it with "
                        "--max-data-size)", who, n, d, dpt_bytes_text(bytes, have, sizeof have),
                        dpt_bytes_text((double)limit, lim, sizeof lim));
    }
    return DPA_OK;
}

int dpt_dataset_alloc_max(dpt_dataset *ds, size_t n, size_t d, uint64_t max_bytes, const char *who, dpa_error *err)
{
    if (ds) memset(ds, 0, sizeof *ds);
    int st = dpt_check_data_size(n, d, max_bytes, who, err);
    return st ? st : dpt_dataset_alloc(ds, n, d, err);
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
    char *p = copy, shown[64];
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        while (*p == ' ' || *p == '\t') p++;
        size_t len = strlen(p);
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t')) p[--len] = '\0';
        if (len == 0)
            status = dpt_fail(err, DPA_EINVAL, "%s: empty item in '%s'", who, dpt_escape(text, 0, shown, sizeof shown));
        else
            status = item(p, ctx, err);
        if (status != DPA_OK || !comma) break;
        p = comma + 1;
    }
    free(copy);
    return status;
}
