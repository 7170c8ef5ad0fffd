/*
 * cli_output.c - the toolkit's output (cli_toolkit.h): bounds printed
 * against the user, JSON documents (jansson trees, numbers as formatted),
 * CSV fields escaped, the progress bar and the clock of the reported
 * times.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#endif
#include <config.h>

#include "cli_toolkit.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- numbers --------------------------------------------------------------------- */

/* The decimal unit in the last of 10 significant digits of x. */
static double last_digit_unit(double x)
{
    char buf[CLI_NUMBER_SIZE];
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

const char *cli_format_plain(double x, char *buf)
{
    format_directed(x, 0, buf, CLI_NUMBER_SIZE);
    return buf;
}

const char *cli_format_absent(cli_style style)
{
    return style == CLI_STYLE_TEXT ? "-" : style == CLI_STYLE_CSV ? "" : "null";
}

cli_style cli_style_of(cli_format format)
{
    return format == CLI_FORMAT_JSON ? CLI_STYLE_JSON : format == CLI_FORMAT_CSV ? CLI_STYLE_CSV : CLI_STYLE_TEXT;
}

int cli_format_value(double x, cli_role role, cli_style style, char *buf)
{
    if (isnan(x)) {
        snprintf(buf, CLI_NUMBER_SIZE, "%s", cli_format_absent(style));
        return -1;
    }
    char num[CLI_NUMBER_SIZE - 2]; /* room for JSON's quotes */
    format_directed(x, role == CLI_ROLE_UPPER ? 1 : role == CLI_ROLE_LOWER ? -1 : 0, num, sizeof num);
    if (style == CLI_STYLE_JSON && isinf(x)) snprintf(buf, CLI_NUMBER_SIZE, "\"%s\"", num);
    else snprintf(buf, CLI_NUMBER_SIZE, "%s", num);
    return 0;
}

int cli_format_bound(const dpa_bound *b, cli_style style, cli_bound_text *out)
{
    int bad = cli_format_value(b->upper, CLI_ROLE_UPPER, style, out->upper);
    bad |= cli_format_value(b->estimate, CLI_ROLE_PLAIN, style, out->estimate);
    if (b->flags & DPA_NO_LOWER) snprintf(out->lower, CLI_NUMBER_SIZE, "%s", cli_format_absent(style));
    else bad |= cli_format_value(b->lower, CLI_ROLE_LOWER, style, out->lower);
    if (b->order == 0.0) snprintf(out->order, CLI_NUMBER_SIZE, "%s", cli_format_absent(style));
    else bad |= cli_format_value(b->order, CLI_ROLE_PLAIN, style, out->order);
    return bad ? -1 : 0;
}

/* ---- JSON documents ---------------------------------------------------------------- */

json_t *cli_json_number(const char *text)
{
    if (!text) return NULL;
    if (!strcmp(text, "null")) return json_null();
    if (!strcmp(text, "\"inf\"")) return json_string("inf");
    if (!strcmp(text, "\"-inf\"")) return json_string("-inf");
    char *end;
    /* a whole number (a count, "%" PRIu64 or "%.0f") stays an integer */
    size_t digits = strspn(text + (text[0] == '-'), "0123456789");
    if (digits && !text[(text[0] == '-') + digits] && strcmp(text, "-0")) {
        errno = 0;
        long long v = strtoll(text, &end, 10);
        if (!errno && !*end) return json_integer((json_int_t)v);
    }
    double x = strtod(text, &end);
    if (end == text || *end || !isfinite(x)) return NULL;
    /* the text reads back as x, and cli_json_real_text(x) is the text:
     * cli_format_value writes "%.10g", which any double nearest to it
     * gives back, or "%.17g" when "%.10g" of x does not read back as x */
    return json_real(x);
}

json_t *cli_json_value(double x, cli_role role)
{
    char buf[CLI_NUMBER_SIZE];
    if (cli_format_value(x, role, CLI_STYLE_JSON, buf)) return NULL;
    return cli_json_number(buf);
}

json_t *cli_json_text(const char *s)
{
    if (!s) return NULL;
    json_t *j = json_string(s);
    if (j) return j;
    /* not UTF-8 (or without memory): each invalid byte as \xNN */
    size_t size = 4 * strlen(s) + 8;
    char *buf = malloc(size);
    if (!buf) return NULL;
    j = json_string(dpa_escape(s, 0, buf, size));
    free(buf);
    return j;
}

const char *cli_json_real_text(double x, char *buf)
{
    snprintf(buf, CLI_NUMBER_SIZE, "%.10g", x);
    if (strtod(buf, NULL) != x) snprintf(buf, CLI_NUMBER_SIZE, "%.17g", x);
    return buf;
}

/* A real as jansson writes it: a number token with a '.' or an exponent
 * (an integer is written without either). */
static int is_real_token(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E') return 1;
    return 0;
}

int cli_json_print(FILE *out, json_t *doc)
{
    if (!doc) return -1;
    /* every real is dumped with 17 digits (it reads back as the same
     * double), then written as cli_json_real_text of that double */
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(doc);
    if (!text) return -1;
    size_t len = strlen(text), cap = len + len / 2 + 64, k = 0;
    char *res = malloc(cap);
    if (!res) {
        free(text);
        return -1;
    }
    int in_string = 0;
    for (size_t i = 0; i < len;) {
        char c = text[i];
        if (in_string) {
            if (c == '\\' && i + 1 < len) res[k++] = text[i++];
            else if (c == '"') in_string = 0;
            res[k++] = text[i++];
        } else if (c == '"') {
            in_string = 1;
            res[k++] = text[i++];
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t j = i;
            while (j < len && strchr("+-.0123456789eE", text[j])) j++;
            if (is_real_token(text + i, j - i)) {
                char num[CLI_NUMBER_SIZE];
                cli_json_real_text(strtod(text + i, NULL), num);
                size_t m = strlen(num);
                if (k + m + (len - j) + 2 > cap) {
                    cap = 2 * (k + m + (len - j)) + 64;
                    char *bigger = realloc(res, cap);
                    if (!bigger) {
                        free(res);
                        free(text);
                        return -1;
                    }
                    res = bigger;
                }
                memcpy(res + k, num, m);
                k += m;
            } else {
                memcpy(res + k, text + i, j - i);
                k += j - i;
            }
            i = j;
        } else {
            res[k++] = text[i++];
        }
    }
    res[k] = '\0';
    free(text);
    fputs(res, out);
    fputc('\n', out);
    free(res);
    return 0;
}

/* ---- CSV ------------------------------------------------------------------------- */

void cli_csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (const char *p = s; *p; p++) {
        if (*p == '"') fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

/* ---- progress and time ----------------------------------------------------------- */

double cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void cli_progress_start(cli_progress *p, const char *unit)
{
    p->start_ms = cli_now_ms();
    p->unit = unit;
}

void cli_progress_bar(void *ctx, uint64_t done, uint64_t total)
{
    const cli_progress *p = ctx;
    double seconds = (cli_now_ms() - p->start_ms) / 1e3;
    int width = 30, fill = total ? (int)((double)width * (double)done / (double)total) : width;
    if (fill > width) fill = width;
    fprintf(stderr, "\r[%.*s%*s] %llu/%llu %s  %.1f s", fill, "##############################", width - fill, "",
            (unsigned long long)done, (unsigned long long)total, p->unit, seconds);
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}
