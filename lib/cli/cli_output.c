/*
 * cli_output.c - the toolkit's output (cli_toolkit.h): bounds printed
 * against the user, JSON strings and CSV fields escaped, the progress bar
 * and the clock of the reported times.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#endif
#include <config.h>

#include "cli_toolkit.h"

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

/* ---- JSON and CSV ------------------------------------------------------------------ */

/* The escaped form of one byte of a JSON string body (RFC 8259, 7): at most
 * 6 bytes, not terminated; its length. */
static size_t json_char(unsigned char c, char *out)
{
    if (c == '"' || c == '\\') {
        out[0] = '\\';
        out[1] = (char)c;
        return 2;
    }
    if (c == '\n') {
        memcpy(out, "\\n", 2);
        return 2;
    }
    if (c < 0x20) return (size_t)snprintf(out, 7, "\\u%04x", c);
    out[0] = (char)c;
    return 1;
}

void cli_json_string(FILE *out, const char *s)
{
    char one[7];
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) fwrite(one, 1, json_char(*p, one), out);
    fputc('"', out);
}

const char *cli_json_escape(const char *s, char *buf, size_t size)
{
    char one[7];
    size_t k = 0;
    if (!size) return buf;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        size_t len = json_char(*p, one);
        if (k + len >= size) break;
        memcpy(buf + k, one, len);
        k += len;
    }
    buf[k] = '\0';
    return buf;
}

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
