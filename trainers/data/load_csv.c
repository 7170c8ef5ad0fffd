/*
 * load_csv.c - numeric CSV files with a header line.
 *
 * The format read: lines separated by LF or CRLF; the first non-blank line
 * is the header, whose fields name the columns; every other non-blank line
 * is an example with as many comma-separated fields as the header.  Blank
 * lines are skipped (they cannot be a row: a row has at least two fields).
 * Fields may be surrounded by spaces or tabs and by one pair of double
 * quotes, but quoted commas are not supported: the files are numeric.  A
 * field must be a finite decimal number in its entirety (strtod's syntax;
 * "nan", "inf", "" and "1.5x" are rejected).  Numbers are read with strtod,
 * so the C locale's decimal point is assumed.
 */
#include <config.h>

#include "dpt_internal.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of the path kept in messages (see dpt_short_path). */
#define PATH_KEEP 120

typedef struct csv_state {
    const char *path; /* shortened, for messages */
    FILE *f;
    char *line;
    size_t line_cap;
    size_t line_no;   /* physical line number of `line`, 1-based */
    uint64_t max_bytes; /* the limit on the n x d doubles (0: the default) */
} csv_state;

/* Reads the next non-blank line into st->line, without its line ending.
 * Returns 1 for a line, 0 at the end of the file, a status on error. */
static int next_line(csv_state *st, dpa_error *err)
{
    for (;;) {
        errno = 0;
        ssize_t len = getline(&st->line, &st->line_cap, st->f);
        if (len < 0) {
            if (ferror(st->f))
                return dpt_fail(err, DPA_EINVAL, "%s:%zu: read error: %s", st->path,
                                st->line_no + 1, dpt_strerror(errno ? errno : EIO));
            if (errno == ENOMEM)
                return dpt_fail(err, DPA_ENOMEM, "%s:%zu: out of memory reading the line",
                                st->path, st->line_no + 1);
            return 0;
        }
        st->line_no++;
        if ((size_t)len != strlen(st->line))
            return dpt_fail(err, DPA_EINVAL, "%s:%zu: the line contains a NUL byte (not a text file?)",
                            st->path, st->line_no);
        while (len > 0 && (st->line[len - 1] == '\n' || st->line[len - 1] == '\r'))
            st->line[--len] = '\0';
        if (st->line_no == 1 && (unsigned char)st->line[0] == 0xEF &&
            (unsigned char)st->line[1] == 0xBB && (unsigned char)st->line[2] == 0xBF) {
            /* a UTF-8 byte order mark */
            memmove(st->line, st->line + 3, (size_t)len - 2);
            len -= 3;
        }
        size_t k = 0;
        while (st->line[k] == ' ' || st->line[k] == '\t') k++;
        if (st->line[k] != '\0') return 1;
    }
}

static size_t count_fields(const char *line)
{
    size_t count = 1;
    for (; *line; line++)
        if (*line == ',') count++;
    return count;
}

/* Splits `line` in place at the commas into `count` trimmed, unquoted
 * fields (count = count_fields(line)). */
static void split_fields(char *line, char **fields, size_t count)
{
    char *p = line;
    for (size_t i = 0; i < count; i++) {
        char *start = p;
        while (*p && *p != ',') p++;
        if (*p) *p++ = '\0';
        while (*start == ' ' || *start == '\t') start++;
        size_t len = strlen(start);
        while (len > 0 && (start[len - 1] == ' ' || start[len - 1] == '\t')) start[--len] = '\0';
        if (len >= 2 && start[0] == '"' && start[len - 1] == '"') {
            start[len - 1] = '\0';
            start++;
        }
        fields[i] = start;
    }
}


/* The 0-based index of the target column among `count` header fields. */
static int find_target(const csv_state *st, char **names, size_t count, const char *target,
                       size_t *col, dpa_error *err)
{
    char buf[48];
    if (!target) {
        *col = count - 1;
        return DPA_OK;
    }
    /* A header name first; a decimal number only when no column has that
     * name, so that a column literally named "2" is still found by name. */
    size_t found = count;
    for (size_t j = 0; j < count; j++) {
        if (strcmp(names[j], target) != 0) continue;
        if (found != count)
            return dpt_fail(err, DPA_EINVAL,
                            "%s:%zu: the target column name '%s' appears more than once; "
                            "give its number instead", st->path, st->line_no,
                            dpt_escape(target, 0, buf, sizeof buf));
        found = j;
    }
    if (found != count) {
        *col = found;
        return DPA_OK;
    }
    size_t k = 0;
    while (target[k] >= '0' && target[k] <= '9') k++;
    if (k > 0 && target[k] == '\0') {
        errno = 0;
        unsigned long long v = strtoull(target, NULL, 10);
        if (errno == 0 && v >= 1 && v <= count) {
            *col = (size_t)v - 1;
            return DPA_OK;
        }
        return dpt_fail(err, DPA_EINVAL, "%s:%zu: target column %s is out of range 1..%zu",
                        st->path, st->line_no, dpt_escape(target, 0, buf, sizeof buf), count);
    }
    return dpt_fail(err, DPA_EINVAL,
                    "%s:%zu: unknown target: no column named '%s' in the header of %zu columns",
                    st->path, st->line_no, dpt_escape(target, 0, buf, sizeof buf), count);
}

static int load(csv_state *st, const char *target, dpt_dataset *out, dpa_error *err)
{
    int status = next_line(st, err);
    if (status < 0) return status;
    if (status == 0 && st->line_no == 0)
        return dpt_fail(err, DPA_EINVAL, "%s:1: empty file, expected a header line", st->path);
    if (status == 0)
        return dpt_fail(err, DPA_EINVAL, "%s:%zu: no header line (only blank lines)", st->path,
                        st->line_no);
    size_t header_line = st->line_no;
    size_t cols = count_fields(st->line);
    if (cols < 2)
        return dpt_fail(err, DPA_EINVAL,
                        "%s:%zu: the header has 1 column; need at least 2 (features and a target)",
                        st->path, st->line_no);
    /* one row of d = cols - 1 doubles must fit the limit (and cols
     * pointers, fewer bytes than the line, are then addressable too) */
    char who[PATH_KEEP + 64];
    snprintf(who, sizeof who, "%s:%zu: the header's %zu columns", st->path, st->line_no, cols);
    status = dpt_check_data_size(1, cols - 1, st->max_bytes, who, err);
    if (status != DPA_OK) return status;
    char **fields = malloc(cols * sizeof *fields);
    if (!fields) return dpt_fail(err, DPA_ENOMEM, "%s: out of memory", st->path);
    split_fields(st->line, fields, cols);
    size_t tcol = 0;
    status = find_target(st, fields, cols, target, &tcol, err);
    if (status != DPA_OK) {
        free(fields);
        return status;
    }

    size_t d = cols - 1, n = 0, cap = 0;
    /* the most rows the limit allows (>= 1: checked above), and addressable */
    uint64_t rows_allowed = dpt_data_limit(st->max_bytes) / sizeof(double) / d;
    size_t max_rows = rows_allowed > SIZE_MAX / sizeof(double) / d ? SIZE_MAX / sizeof(double) / d
                                                                    : (size_t)rows_allowed;
    double *x = NULL, *y = NULL;
    char buf[48];
    while ((status = next_line(st, err)) == 1) {
        size_t got = count_fields(st->line);
        if (got != cols) {
            status = dpt_fail(err, DPA_EINVAL, "%s:%zu: expected %zu fields, got %zu", st->path,
                              st->line_no, cols, got);
            break;
        }
        if (n == cap) {
            if (n == max_rows) {
                snprintf(who, sizeof who, "%s:%zu", st->path, st->line_no);
                status = dpt_check_data_size(n + 1, d, st->max_bytes, who, err);
                break;
            }
            /* doubling, but never past the limit (max_rows * d doubles
             * fit in it, so in size_t) */
            size_t ncap = cap ? (cap > max_rows / 2 ? max_rows : 2 * cap) : (max_rows < 64 ? max_rows : 64);
            double *nx = realloc(x, ncap * d * sizeof *nx);
            if (nx) x = nx;
            double *ny = nx ? realloc(y, ncap * sizeof *ny) : NULL;
            if (ny) y = ny;
            if (!nx || !ny) {
                status = dpt_fail(err, DPA_ENOMEM, "%s:%zu: out of memory after %zu rows",
                                  st->path, st->line_no, n);
                break;
            }
            cap = ncap;
        }
        split_fields(st->line, fields, cols);
        double *row = x + n * d;
        for (size_t j = 0, k = 0; j < cols; j++) {
            double v;
            int ok = dpt_parse_number(fields[j], &v);
            if (ok <= 0) {
                status = dpt_fail(err, DPA_EINVAL, "%s:%zu: field %zu ('%s') is not a %snumber",
                                  st->path, st->line_no, j + 1, dpt_escape(fields[j], 0, buf, sizeof buf),
                                  ok < 0 ? "finite " : "");
                break;
            }
            if (j == tcol)
                y[n] = v;
            else
                row[k++] = v;
        }
        if (status < 0) break;
        n++;
    }
    free(fields);
    if (status == 0 && n == 0)
        status = dpt_fail(err, DPA_EINVAL, "%s:%zu: header only, no data rows", st->path,
                          header_line);
    if (status < 0) {
        free(x);
        free(y);
        return status;
    }
    /* Give back the unused capacity (a failure to shrink is harmless). */
    double *sx = realloc(x, n * d * sizeof *sx);
    double *sy = realloc(y, n * sizeof *sy);
    out->n = n;
    out->d = d;
    out->x = sx ? sx : x;
    out->y = sy ? sy : y;
    return DPA_OK;
}

int dpt_load_csv_max(const char *path, const char *target, uint64_t max_bytes, dpt_dataset *out, dpa_error *err)
{
    char shortened[PATH_KEEP + 1];
    if (!out) return dpt_fail(err, DPA_EINVAL, "load_csv: NULL output dataset");
    memset(out, 0, sizeof *out);
    if (!path) return dpt_fail(err, DPA_EINVAL, "load_csv: NULL path");
    csv_state st = { dpt_short_path(path, PATH_KEEP, shortened, sizeof shortened), NULL, NULL, 0, 0, max_bytes };
    st.f = fopen(path, "r");
    if (!st.f)
        return dpt_fail(err, DPA_EINVAL, "%s: cannot open: %s", st.path, dpt_strerror(errno));
    int status = load(&st, target, out, err);
    free(st.line);
    fclose(st.f);
    return status;
}

int dpt_load_csv(const char *path, const char *target, dpt_dataset *out, dpa_error *err)
{
    return dpt_load_csv_max(path, target, 0, out, err);
}
