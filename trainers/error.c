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

/* The length of the valid, printable UTF-8 sequence at p (2 to 4 bytes),
 * or 0: a stray or truncated byte, an overlong form, a surrogate, a code
 * point above U+10FFFF, a C1 control (U+0080..U+009F, NEL among them), a
 * line or paragraph separator (U+2028, U+2029) or a bidirectional override
 * or isolate (U+202A..U+202E, U+2066..U+2069), which could break or reorder
 * the line a terminal shows. */
static size_t utf8_printable(const unsigned char *p)
{
    size_t len;
    uint32_t cp;
    if (p[0] >= 0xC2 && p[0] <= 0xDF) { len = 2; cp = p[0] & 0x1Fu; }
    else if (p[0] >= 0xE0 && p[0] <= 0xEF) { len = 3; cp = p[0] & 0x0Fu; }
    else if (p[0] >= 0xF0 && p[0] <= 0xF4) { len = 4; cp = p[0] & 0x07u; }
    else return 0;
    for (size_t k = 1; k < len; k++) {      /* a NUL fails here: no read past the end */
        if ((p[k] & 0xC0u) != 0x80u) return 0;
        cp = cp << 6 | (p[k] & 0x3Fu);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp <= 0x9F || cp == 0x2028 || cp == 0x2029 ||
        (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
        return 0;
    return len;
}

/* The escaped form of the character at p into out (at most 4 bytes, not
 * terminated): its length; *used receives the bytes of p it stands for. */
static size_t escape_char(const unsigned char *p, char *out, size_t *used)
{
    static const char hex[] = "0123456789abcdef";
    *used = 1;
    switch (*p) {
    case '\\': out[0] = '\\'; out[1] = '\\'; return 2;
    case '\n': out[0] = '\\'; out[1] = 'n'; return 2;
    case '\r': out[0] = '\\'; out[1] = 'r'; return 2;
    case '\t': out[0] = '\\'; out[1] = 't'; return 2;
    default: break;
    }
    if (*p >= 0x20 && *p < 0x7F) {
        out[0] = (char)*p;
        return 1;
    }
    size_t len = *p >= 0x80 ? utf8_printable(p) : 0;
    if (len) {
        memcpy(out, p, len);
        *used = len;
        return len;
    }
    out[0] = '\\';
    out[1] = 'x';
    out[2] = hex[*p >> 4];
    out[3] = hex[*p & 0xFu];
    return 4;
}

/* Appends the escaped characters of p to buf at *k while they fit in
 * `limit` bytes; returns where it stopped. */
static const unsigned char *escape_into(const unsigned char *p, char *buf, size_t *k, size_t limit)
{
    char one[4];
    size_t used;
    for (; *p; p += used) {
        size_t len = escape_char(p, one, &used);
        if (*k + len > limit) break;
        memcpy(buf + *k, one, len);
        *k += len;
    }
    return p;
}

const char *dpt_escape(const char *text, unsigned flags, char *buf, size_t size)
{
    if (!buf || !size) return buf;
    const unsigned char *p = (const unsigned char *)(text ? text : "(null)");
    char one[4];
    size_t used, total = 0, cap = size - 1, k = 0;
    for (const unsigned char *q = p; *q; q += used) total += escape_char(q, one, &used);
    if (total <= cap) {
        escape_into(p, buf, &k, cap);
    } else {
        size_t mark = cap >= 3 ? 3 : 0;    /* the "...", when there is room for it */
        if (flags & DPT_ESCAPE_TAIL) {
            /* whole characters dropped from the start until the rest fits */
            for (; *p && total > cap - mark; p += used) total -= escape_char(p, one, &used);
            memcpy(buf, "...", mark);
            k = mark;
            escape_into(p, buf, &k, cap);
        } else {
            escape_into(p, buf, &k, cap - mark);
            memcpy(buf + k, "...", mark);
            k += mark;
        }
    }
    buf[k] = '\0';
    return buf;
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
