/* error.c - status codes and error messages. */
#include <config.h>

#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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
    case DPA_EIO: return "a file could not be read or written";
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
        { DPA_ORDER_AT_EDGE, "optimal order at the edge of the orders searched" },
        { DPA_PAIR_LOWER, "lower bound of the dominating pair" },
        { DPA_CONV_TV, "total variation (Bretagnolle-Huber) conversion" },
        { DPA_WIDTH_NOT_MET, "width not met: the bracket is wider than the tolerance asked" },
        { DPA_SYMMETRISED, "symmetrised over the two directions (upper: each direction)" },
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

/* ---- echoing user input (dpa_escape) ---------------------------------- */

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

const char *dpa_escape(const char *text, unsigned flags, char *buf, size_t size)
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
        if (flags & DPA_ESCAPE_TAIL) {
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
