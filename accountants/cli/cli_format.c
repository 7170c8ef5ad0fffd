/*
 * cli_format.c - how the dpacct command prints numbers: bounds rounded
 * against the user, and the JSON / CSV spellings of values.
 */
#include "cli_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- printing numbers ----------------------------------------------------- */

/* The decimal unit in the last of 10 significant digits of x. */
static double last_digit_unit(double x)
{
    char buf[NUMBER_SIZE];
    snprintf(buf, sizeof buf, "%.9e", x);
    const char *e = strchr(buf, 'e');
    return e ? pow(10.0, atoi(e + 1) - 9) : 0.0;
}

/* Format x with 10 significant digits, rounded towards +inf (direction > 0)
 * or -inf (direction < 0) instead of to nearest: a certified upper bound
 * must not be printed below its value, nor a lower bound above it.  When
 * the nearest 10-digit decimal lies on the wrong side, the next decimal in
 * that direction is on the right side (x is within half a unit of the
 * first); the full round-trip precision is the fallback for the edge cases
 * (denormals) where that step is lost. */
static void format_directed(double x, int direction, char *buf, size_t size)
{
    if (isnan(x)) { snprintf(buf, size, "nan"); return; }
    if (isinf(x)) { snprintf(buf, size, x > 0 ? "inf" : "-inf"); return; }
    double y = x;
    for (int attempt = 0; attempt < 4; attempt++) {
        snprintf(buf, size, "%.10g", y);
        double back = strtod(buf, NULL);
        if (direction == 0 || (direction > 0 ? back >= x : back <= x)) return;
        y = back + (direction > 0 ? 1.0 : -1.0) * last_digit_unit(back);
    }
    snprintf(buf, size, "%.17g", x);
}

const char *fmt_plain(double x, char *buf)
{
    format_directed(x, 0, buf, NUMBER_SIZE);
    return buf;
}

/* ---- the one rule for printed bounds ---------------------------------------- */

const char *format_absent(value_style style)
{
    return style == STYLE_TEXT ? "-" : style == STYLE_CSV ? "" : "null";
}

int format_value(double x, value_role role, value_style style, char *buf)
{
    if (isnan(x)) {
        snprintf(buf, NUMBER_SIZE, "%s", format_absent(style));
        return -1;
    }
    char num[NUMBER_SIZE - 2];   /* room for JSON's quotes */
    format_directed(x, role == ROLE_UPPER ? 1 : role == ROLE_LOWER ? -1 : 0, num, sizeof num);
    if (style == STYLE_JSON && isinf(x)) snprintf(buf, NUMBER_SIZE, "\"%s\"", num);
    else snprintf(buf, NUMBER_SIZE, "%s", num);
    return 0;
}

int format_bound(const dpa_bound *b, value_style style, bound_text *out)
{
    int bad = format_value(b->upper, ROLE_UPPER, style, out->upper);
    bad |= format_value(b->estimate, ROLE_PLAIN, style, out->estimate);
    if (b->flags & DPA_NO_LOWER) snprintf(out->lower, NUMBER_SIZE, "%s", format_absent(style));
    else bad |= format_value(b->lower, ROLE_LOWER, style, out->lower);
    if (b->order == 0.0) snprintf(out->order, NUMBER_SIZE, "%s", format_absent(style));
    else bad |= format_value(b->order, ROLE_PLAIN, style, out->order);
    return bad ? -1 : 0;
}

/* ---- JSON and CSV helpers ------------------------------------------------- */

void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", out);
        else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
        else fputc(*p, out);
    }
    fputc('"', out);
}

/* One CSV field, quoted as RFC 4180 requires when it holds a separator,
 * a quote or a line break. */
void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) { fputs(s, out); return; }
    fputc('"', out);
    for (const char *p = s; *p; p++) {
        if (*p == '"') fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

const char *relation_name(dpa_relation r)
{
    return r == DPA_REPLACE_ONE ? "replace-one" : "add-remove";
}
