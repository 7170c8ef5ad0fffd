/*
 * load_libsvm.c - libsvm / svmlight files: one example a line,
 *     label index:value index:value ...   # optional comment
 * with 1-based, strictly increasing indices; absent features are 0.
 * Blank lines and comment lines are skipped; a "qid:N" token (svmlight's
 * query id) is ignored.  Labels and values must be finite numbers.
 */
#include <config.h>

#include "dpt_internal.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_KEEP 120

typedef struct entries {
    size_t *index; /* 0-based feature index */
    double *value;
    size_t len, cap;
} entries;

static int entries_push(entries *e, size_t index, double value)
{
    if (e->len == e->cap) {
        size_t ncap = e->cap ? 2 * e->cap : 256;
        if (ncap > SIZE_MAX / sizeof(double)) return DPA_ENOMEM;
        size_t *ni = realloc(e->index, ncap * sizeof *ni);
        if (!ni) return DPA_ENOMEM;
        e->index = ni;
        double *nv = realloc(e->value, ncap * sizeof *nv);
        if (!nv) return DPA_ENOMEM;
        e->value = nv;
        e->cap = ncap;
    }
    e->index[e->len] = index;
    e->value[e->len] = value;
    e->len++;
    return DPA_OK;
}

typedef struct rows {
    double *label;
    size_t *end; /* entries of row i: [end[i-1], end[i]) */
    size_t len, cap;
} rows;

static int rows_push(rows *r, double label, size_t end)
{
    if (r->len == r->cap) {
        size_t ncap = r->cap ? 2 * r->cap : 64;
        if (ncap > SIZE_MAX / sizeof(double)) return DPA_ENOMEM;
        double *nl = realloc(r->label, ncap * sizeof *nl);
        if (!nl) return DPA_ENOMEM;
        r->label = nl;
        size_t *ne = realloc(r->end, ncap * sizeof *ne);
        if (!ne) return DPA_ENOMEM;
        r->end = ne;
        r->cap = ncap;
    }
    r->label[r->len] = label;
    r->end[r->len] = end;
    r->len++;
    return DPA_OK;
}


/* The largest index so far (the inferred dimension) and its line. */
typedef struct widest {
    size_t index, line;
} widest;

/* The dense matrix of the nrows rows read so far and this one, `width`
 * wide, against the limit: the check runs as the file is read, so that a
 * line with a huge index is refused before anything of its size is
 * allocated, and names that line and the largest index (with its own line
 * when that is another). */
static int within_limit(const char *path, size_t line_no, size_t nrows, size_t width, const widest *w,
                        uint64_t max_bytes, dpa_error *err)
{
    uint64_t limit = dpt_data_limit(max_bytes);
    if (width <= limit / sizeof(double) / (nrows + 1)) return DPA_OK;    /* the common case: no message built */
    char who[PATH_KEEP + 96];
    if (w && w->line == line_no)
        snprintf(who, sizeof who, "%s:%zu: feature index %zu", path, line_no, w->index);
    else if (w)
        snprintf(who, sizeof who, "%s:%zu (feature index %zu on line %zu)", path, line_no, w->index, w->line);
    else
        snprintf(who, sizeof who, "%s:%zu", path, line_no);
    return dpt_check_data_size(nrows + 1, width, max_bytes, who, err);
}

/* Parses one line (modified in place); appends its entries and its row. */
static int parse_line(char *line, const char *path, size_t line_no, size_t d, uint64_t max_bytes, entries *e,
                      rows *r, widest *dmax, dpa_error *err)
{
    char buf[48];
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char *save = NULL;
    char *tok = strtok_r(line, " \t\r\n\v\f", &save);
    if (!tok) return 0; /* blank or comment only */
    double label;
    int ok = dpt_parse_number(tok, &label);
    if (ok <= 0)
        return dpt_fail(err, DPA_EINVAL, "%s:%zu: bad label: '%s' is not a %snumber", path, line_no,
                        dpt_escape(tok, 0, buf, sizeof buf), ok < 0 ? "finite " : "");
    size_t prev = 0; /* 1-based; 0 before the first index */
    while ((tok = strtok_r(NULL, " \t\r\n\v\f", &save)) != NULL) {
        if (strncmp(tok, "qid:", 4) == 0) continue;
        char *colon = strchr(tok, ':');
        size_t k = 0;
        while (tok[k] >= '0' && tok[k] <= '9') k++;
        if (!colon || k == 0 || tok + k != colon)
            return dpt_fail(err, DPA_EINVAL,
                            "%s:%zu: malformed token '%s' (expected index:value)", path, line_no,
                            dpt_escape(tok, 0, buf, sizeof buf));
        *colon = '\0';
        errno = 0;
        unsigned long long idx = strtoull(tok, NULL, 10);
        *colon = ':';
        if (errno == ERANGE || idx > SIZE_MAX)
            return dpt_fail(err, DPA_EINVAL, "%s:%zu: index in '%s' is too large", path, line_no,
                            dpt_escape(tok, 0, buf, sizeof buf));
        if (idx == 0)
            return dpt_fail(err, DPA_EINVAL, "%s:%zu: index 0 in '%s': indices are 1-based", path,
                            line_no, dpt_escape(tok, 0, buf, sizeof buf));
        if (idx <= prev)
            return dpt_fail(err, DPA_EINVAL,
                            "%s:%zu: index %llu is not greater than the previous index %zu "
                            "(indices must increase)", path, line_no, idx, prev);
        if (d && idx > d)
            return dpt_fail(err, DPA_EINVAL, "%s:%zu: index %llu exceeds the dimension d = %zu",
                            path, line_no, idx, d);
        double v;
        ok = dpt_parse_number(colon + 1, &v);
        if (ok <= 0)
            return dpt_fail(err, DPA_EINVAL, "%s:%zu: malformed token '%s': the value is not a %snumber",
                            path, line_no, dpt_escape(tok, 0, buf, sizeof buf), ok < 0 ? "finite " : "");
        prev = (size_t)idx;
        if (prev > dmax->index) {
            widest next = { prev, line_no };
            int st = d ? DPA_OK : within_limit(path, line_no, r->len, prev, &next, max_bytes, err);
            if (st) return st;
            *dmax = next;
        }
        if (v != 0.0 && entries_push(e, prev - 1, v) != DPA_OK)
            return dpt_fail(err, DPA_ENOMEM, "%s:%zu: out of memory", path, line_no);
    }
    int st = d ? within_limit(path, line_no, r->len, d, NULL, max_bytes, err)
               : within_limit(path, line_no, r->len, dmax->index ? dmax->index : 1, dmax->index ? dmax : NULL,
                              max_bytes, err);
    if (st) return st;
    if (rows_push(r, label, e->len) != DPA_OK)
        return dpt_fail(err, DPA_ENOMEM, "%s:%zu: out of memory", path, line_no);
    return 0;
}

int dpt_load_libsvm_max(const char *path, size_t d, uint64_t max_bytes, dpt_dataset *out, dpa_error *err)
{
    char shortened[PATH_KEEP + 1];
    if (!out) return dpt_fail(err, DPA_EINVAL, "load_libsvm: NULL output dataset");
    memset(out, 0, sizeof *out);
    if (!path) return dpt_fail(err, DPA_EINVAL, "load_libsvm: NULL path");
    const char *name = dpt_short_path(path, PATH_KEEP, shortened, sizeof shortened);
    FILE *f = fopen(path, "r");
    if (!f) return dpt_fail(err, DPA_EINVAL, "%s: cannot open: %s", name, dpt_strerror(errno));

    entries e = { 0 };
    rows r = { 0 };
    char *line = NULL;
    size_t line_cap = 0, line_no = 0;
    widest dmax = { 0, 0 };
    int status = DPA_OK;
    for (;;) {
        errno = 0;
        ssize_t len = getline(&line, &line_cap, f);
        if (len < 0) {
            if (ferror(f))
                status = dpt_fail(err, DPA_EINVAL, "%s:%zu: read error: %s", name, line_no + 1,
                                  dpt_strerror(errno ? errno : EIO));
            else if (errno == ENOMEM)
                status = dpt_fail(err, DPA_ENOMEM, "%s:%zu: out of memory", name, line_no + 1);
            break;
        }
        line_no++;
        if ((size_t)len != strlen(line)) {
            status = dpt_fail(err, DPA_EINVAL, "%s:%zu: the line contains a NUL byte (not a text file?)",
                              name, line_no);
            break;
        }
        status = parse_line(line, name, line_no, d, max_bytes, &e, &r, &dmax, err);
        if (status != DPA_OK) break;
    }
    free(line);
    fclose(f);
    if (status == DPA_OK && r.len == 0)
        status = dpt_fail(err, DPA_EINVAL, "%s: no examples in the file", name);
    if (status == DPA_OK && !d && dmax.index == 0)
        status = dpt_fail(err, DPA_EINVAL,
                          "%s: no feature index anywhere in the file; give the dimension d", name);
    if (status == DPA_OK) {
        status = dpt_dataset_alloc_max(out, r.len, d ? d : dmax.index, max_bytes, name, err);
        if (status == DPA_OK) {
            size_t width = out->d;
            for (size_t i = 0, k = 0; i < r.len; i++) {
                out->y[i] = r.label[i];
                for (; k < r.end[i]; k++) out->x[i * width + e.index[k]] = e.value[k];
            }
        }
    }
    free(e.index);
    free(e.value);
    free(r.label);
    free(r.end);
    return status;
}

int dpt_load_libsvm(const char *path, size_t d, dpt_dataset *out, dpa_error *err)
{
    return dpt_load_libsvm_max(path, d, 0, out, err);
}
