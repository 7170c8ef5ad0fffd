/*
 * event_json.c - events as JSON, read and written with jansson (Debian's
 * libjansson: maintained, strict RFC 8259 parsing with line and column in
 * its errors, and it escapes what it writes, so nothing here formats JSON
 * by hand).
 *
 * An event is an object: "kind" names it (the names of the text syntax,
 * lib/event_text.c), each parameter is a member by its name, a wrapper's
 * inner event is "event" and a composition's list is "events":
 *
 *   {"kind": "self_composed", "count": 900,
 *    "event": {"kind": "poisson", "q": 0.004,
 *              "event": {"kind": "gaussian", "sigma": 1.1}}}
 *
 * Parameters are JSON numbers, except the words (repeated_selected's
 * "distribution", shuffled's "randomizer"), which are strings, and
 * mixture_of_gaussians' "sensitivities" and "probabilities", arrays of
 * numbers; a count
 * above 2^63 - 1 (jansson's integers are 64-bit signed) is written as a
 * string of digits.  A document is one event, an array of events (their
 * composition), or several events one after the other -- a ledger, one
 * event per line, appended to as a run goes (dpa_event_ledger_append),
 * whose events compose.  Numbers are written with the fewest digits that
 * read back exactly (the most any number of the event needs).
 */
#include "event_syntax.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ------------------------------------------------------------- */

/* The significant digits x needs to read back. */
static int digits_of(double x)
{
    char num[40];
    dpa_format_double(x, num, sizeof num);
    int d = 0;
    for (const char *c = num; *c && *c != 'e'; c++) d += *c >= '0' && *c <= '9';
    /* leading zeros of 0.00123 are not significant, but counting them
     * only asks for more digits than needed, which read back the same */
    return d;
}

/* The most significant digits any parameter of e needs to read back. */
static int digits_needed(const dpa_event *e)
{
    int most = 1;
    for (unsigned i = 0; i < DPA_EVENT_MAX_PARAMS; i++) {
        if (!event_param_name(e->kind, e->count[0], i)) continue;
        int d = digits_of(e->param[i]);
        if (d > most) most = d;
    }
    for (size_t i = 0; i < 2 * e->list_len; i++) {
        int d = digits_of(e->list[i]);
        if (d > most) most = d;
    }
    for (size_t i = 0; i < e->num_children; i++) {
        int d = digits_needed(e->children[i]);
        if (d > most) most = d;
    }
    return most > 17 ? 17 : most;
}

static int set(json_t *obj, const char *key, json_t *value)
{
    return value ? json_object_set_new(obj, key, value) : -1;
}

/* A JSON array of the n numbers. */
static json_t *json_list(const double *x, size_t n)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < n; i++)
        if (json_array_append_new(list, json_real(x[i]))) {
            json_decref(list);
            return NULL;
        }
    return list;
}

static json_t *to_json(const dpa_event *e)
{
    json_t *obj = json_object();
    if (!obj) return NULL;
    int bad = set(obj, "kind", json_string(dpa_event_kind_name(e->kind)));
    if (e->kind == DPA_EVENT_REPEATED_SELECTED)
        bad |= set(obj, "distribution", json_string(event_distribution_name(e->count[0])));
    for (unsigned i = 0; i < DPA_EVENT_MAX_PARAMS && !bad; i++) {
        const char *name = event_param_name(e->kind, e->count[0], i);
        if (name) bad |= set(obj, name, json_real(e->param[i]));
    }
    if (e->list_len && !bad) {
        bad |= set(obj, EVENT_LIST_SENSITIVITIES, json_list(e->list, e->list_len));
        bad |= set(obj, EVENT_LIST_PROBABILITIES, json_list(e->list + e->list_len, e->list_len));
    }
    for (unsigned i = 0; i < DPA_EVENT_MAX_COUNTS && !bad; i++) {
        const char *name = dpa_event_slot_name(e->kind, 1, i);
        if (!name || e->kind == DPA_EVENT_REPEATED_SELECTED) continue;
        if (e->kind == DPA_EVENT_SHUFFLED && i == 1) {
            bad |= set(obj, "randomizer", json_string(event_randomizer_name(e->count[1])));
        } else if (e->count[i] <= (uint64_t)INT64_MAX) {
            bad |= set(obj, name, json_integer((json_int_t)e->count[i]));
        } else {
            char digits[24];
            snprintf(digits, sizeof digits, "%" PRIu64, e->count[i]);
            bad |= set(obj, name, json_string(digits));
        }
    }
    if (e->kind == DPA_EVENT_COMPOSED && !bad) {
        json_t *list = json_array();
        bad |= set(obj, "events", list);
        for (size_t i = 0; i < e->num_children && !bad; i++) {
            json_t *child = to_json(e->children[i]);
            bad |= !child || json_array_append_new(list, child);
        }
    } else if (e->num_children == 1 && !bad) {
        bad |= set(obj, "event", to_json(e->children[0]));
    }
    if (bad) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

char *dpa_event_to_json(const dpa_event *e, int indent, dpa_error *err)
{
    if (!e) {
        dpa_fail(err, DPA_EINVAL, "to_json: the event is NULL");
        return NULL;
    }
    if (indent < 0 || indent > 31) {
        dpa_fail(err, DPA_EINVAL, "to_json: indent must lie in [0, 31], got %d", indent);
        return NULL;
    }
    json_t *doc = to_json(e);
    char *text = doc ? json_dumps(doc, JSON_PRESERVE_ORDER | JSON_INDENT(indent) | (indent ? 0 : JSON_COMPACT) |
                                           JSON_REAL_PRECISION(digits_needed(e)))
                     : NULL;
    json_decref(doc);
    if (!text) dpa_fail(err, DPA_ENOMEM, "to_json: out of memory");
    return text;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct {
    char *buf;           /* the path of the object being read: $.events[2].event */
    size_t len, cap;
    dpa_error *err;
    event_fill *fill;    /* a template's, else NULL */
} reader;

/* Append to the path (cut short with "..." when it would not fit). */
static size_t push(reader *r, const char *fmt, size_t index)
{
    size_t old = r->len;
    int n = snprintf(r->buf + r->len, r->cap - r->len, fmt, index);
    if (n < 0 || (size_t)n >= r->cap - r->len) {
        snprintf(r->buf + r->cap - 4, 4, "...");
        r->len = r->cap - 1;
    } else
        r->len += (size_t)n;
    return old;
}

static void pop(reader *r, size_t old)
{
    r->len = old;
    r->buf[old] = '\0';
}

static dpa_event *from_json(reader *r, json_t *v, size_t depth);

/* The events of a JSON array, composed (one alone is itself). */
static dpa_event *from_list(reader *r, json_t *list, size_t depth)
{
    parser p = { NULL, 0, r->err, r->buf, r->fill, DPA_EVENT_INVALID };
    size_t n = json_array_size(list);
    if (n == 0) {
        event_fail_at(&p, 0, "an empty list of events");
        return NULL;
    }
    dpa_event **kids = calloc(n, sizeof *kids);
    if (!kids) {
        dpa_fail(r->err, DPA_ENOMEM, "event JSON: out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        size_t old = push(r, "[%zu]", i);
        kids[i] = from_json(r, json_array_get(list, i), depth + 1);
        pop(r, old);
        if (!kids[i]) {
            for (size_t j = 0; j < i; j++) dpa_event_free(kids[j]);
            free(kids);
            return NULL;
        }
    }
    if (n == 1) {
        dpa_event *e = kids[0];
        free(kids);
        return e;
    }
    return event_build(&p, DPA_EVENT_COMPOSED, 0, NULL, 0, kids, n);
}

/* A JSON array of numbers into a->list (one to
 * DPA_MAX_MIXTURE_COMPONENTS of them). */
static int list_argument(parser *p, argument *a, json_t *value, const char *kname)
{
    size_t n = json_array_size(value);
    a->is_list = 1;
    if (n == 0) return event_fail_at(p, 0, "%s: %s is an empty list (it needs one value or more)", kname, a->name);
    if (n > DPA_MAX_MIXTURE_COMPONENTS)
        return event_fail_at(p, 0, "%s: %s has %zu values, more than %d (DPA_MAX_MIXTURE_COMPONENTS)", kname,
                             a->name, n, DPA_MAX_MIXTURE_COMPONENTS);
    a->list = malloc(n * sizeof *a->list);
    if (!a->list) return dpa_fail(p->err, DPA_ENOMEM, "event JSON: out of memory");
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_array_get(value, i);
        if (!json_is_number(x)) return event_fail_at(p, 0, "%s: %s[%zu] needs a number", kname, a->name, i);
        a->list[a->list_len++] = json_number_value(x);
    }
    return DPA_OK;
}

static dpa_event *from_json(reader *r, json_t *v, size_t depth)
{
    parser p = { NULL, 0, r->err, r->buf, r->fill, DPA_EVENT_INVALID };
    if (depth > DPA_MAX_EVENT_DEPTH) {
        event_fail_at(&p, 0, "nested more than %d levels deep (DPA_MAX_EVENT_DEPTH)", DPA_MAX_EVENT_DEPTH);
        return NULL;
    }
    if (json_is_array(v)) return from_list(r, v, depth);
    if (!json_is_object(v)) {
        event_fail_at(&p, 0, "expected an event (an object with a \"kind\"), found a %s",
                      json_is_string(v) ? "string" : json_is_number(v) ? "number" : json_is_null(v) ? "null" : "boolean");
        return NULL;
    }
    json_t *k = json_object_get(v, "kind");
    if (!json_is_string(k)) {
        event_fail_at(&p, 0, "an event needs \"kind\", a string such as \"gaussian\"");
        return NULL;
    }
    const char *kname = json_string_value(k);
    size_t klen = json_string_length(k);
    dpa_event_kind kind = dpa_event_kind_from_name(kname, klen);
    if (kind == DPA_EVENT_INVALID || strlen(kname) != klen) {
        const char *near = dpa_event_kind_nearest(kname, strlen(kname));
        if (near) event_fail_at(&p, 0, "unknown event \"%.40s\" (did you mean \"%s\"?)", kname, near);
        else event_fail_at(&p, 0, "unknown event \"%.40s\" (the kinds are listed in dpacct(1), EVENTS AS JSON)", kname);
        return NULL;
    }
    /* on the heap: a thousand levels of kilobytes would not fit a thread's stack */
    argument *args = malloc(MAX_ARGUMENTS * sizeof *args);
    size_t nargs = 0, nkids = 0;
    dpa_event **kids = NULL;
    if (!args) {
        dpa_fail(r->err, DPA_ENOMEM, "event JSON: out of memory");
        return NULL;
    }
    const char *key;
    json_t *value;
    json_object_foreach(v, key, value) {
        if (!strcmp(key, "kind")) continue;
        if (!strcmp(key, "event") || !strcmp(key, "events")) {
            int list = key[5] == 's';
            if (kids || (list && !json_is_array(value)) || (!list && !json_is_object(value))) {
                event_fail_at(&p, 0, "%s: %s", key,
                              kids ? "an event has \"event\" or \"events\", not both"
                              : list ? "expected a list of events" : "expected an event (an object)");
                goto fail;
            }
            size_t n = list ? json_array_size(value) : 1;
            kids = calloc(n ? n : 1, sizeof *kids);
            if (!kids) {
                dpa_fail(r->err, DPA_ENOMEM, "event JSON: out of memory");
                goto fail;
            }
            for (size_t i = 0; i < n; i++) {
                size_t old = list ? push(r, ".events[%zu]", i) : push(r, ".event", 0);
                kids[nkids] = from_json(r, list ? json_array_get(value, i) : value, depth + 1);
                pop(r, old);
                if (!kids[nkids]) goto fail;
                nkids++;
            }
            continue;
        }
        if (nargs == MAX_ARGUMENTS) {
            event_fail_at(&p, 0, "%s: more than %d parameters", dpa_event_kind_name(kind), MAX_ARGUMENTS);
            goto fail;
        }
        argument *a = &args[nargs++];
        *a = (argument){ .name = key, .name_len = strlen(key) };
        if (json_is_real(value)) {
            a->is_number = 1;
            a->number = json_real_value(value);
        } else if (json_is_integer(value)) {
            /* as digits, so that a count keeps every one of them */
            snprintf(a->digits, sizeof a->digits, "%" JSON_INTEGER_FORMAT, json_integer_value(value));
            a->value = a->digits;
            a->value_len = strlen(a->value);
        } else if (json_is_string(value)) {
            a->is_string = 1;
            a->value = json_string_value(value);
            a->value_len = json_string_length(value);
        } else if (json_is_array(value)) {
            if (list_argument(&p, a, value, dpa_event_kind_name(kind))) goto fail;
        } else {
            event_fail_at(&p, 0, "%s: %s needs a number%s", dpa_event_kind_name(kind), key,
                          kind == DPA_EVENT_REPEATED_SELECTED || kind == DPA_EVENT_SHUFFLED ? " or a word" : "");
            goto fail;
        }
    }
    {
        dpa_event *e = event_build(&p, kind, 0, args, nargs, kids, nkids);
        event_arguments_free(args, nargs);
        return e;
    }
fail:
    for (size_t i = 0; i < nkids; i++) dpa_event_free(kids[i]);
    free(kids);
    event_arguments_free(args, nargs);
    return NULL;
}

dpa_event *dpa_event_from_json(const char *json, size_t length, dpa_error *err)
{
    return event_read_json(json, length, NULL, err);
}

dpa_event *event_read_json(const char *json, size_t length, event_fill *fill, dpa_error *err)
{
    if (!json) {
        dpa_fail(err, DPA_EINVAL, "event JSON is NULL");
        return NULL;
    }
    /* every value of the document, one after the other */
    size_t n = 0, cap = 0, at = 0;
    json_t **values = NULL;
    dpa_event *e = NULL;
    for (;;) {
        while (at < length && strchr(" \t\r\n", json[at]) && json[at]) at++;
        if (at == length) break;
        json_error_t je;
        json_t *v = json_loadb(json + at, length - at, JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY | JSON_REJECT_DUPLICATES,
                               &je);
        if (!v) {
            /* jansson counts lines and columns from where this value began */
            size_t line = 1, col = 1;
            for (size_t i = 0; i < at; i++) {
                if (json[i] == '\n') { line++; col = 1; }
                else col++;
            }
            if (je.line > 1) { line += (size_t)je.line - 1; col = (size_t)(je.column > 0 ? je.column : 0); }
            else col += (size_t)(je.column > 0 ? je.column - 1 : 0);
            dpa_fail(err, DPA_EINVAL, "event JSON, line %zu, column %zu: %s", line, col, je.text);
            goto done;
        }
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 8;
            json_t **grown = realloc(values, ncap * sizeof *grown);
            if (!grown) {
                json_decref(v);
                dpa_fail(err, DPA_ENOMEM, "event JSON: out of memory");
                goto done;
            }
            values = grown;
            cap = ncap;
        }
        values[n++] = v;
        at += (size_t)je.position;
    }
    if (n == 0) {
        dpa_fail(err, DPA_EINVAL, "event JSON: no event (the document is empty)");
        goto done;
    }
    {
        char path[4096] = "$";
        reader r = { path, 1, sizeof path, err, fill };
        if (n == 1) e = from_json(&r, values[0], 0);
        else {
            /* a ledger: the events composed, named by their place */
            json_t *list = json_array();
            for (size_t i = 0; list && i < n; i++)
                if (json_array_append(list, values[i])) { json_decref(list); list = NULL; }
            if (!list) dpa_fail(err, DPA_ENOMEM, "event JSON: out of memory");
            else {
                snprintf(path, sizeof path, "$ledger");
                r.len = strlen(path);
                e = from_list(&r, list, 0);
                json_decref(list);
            }
        }
    }
done:
    for (size_t i = 0; i < n; i++) json_decref(values[i]);
    free(values);
    return e;
}

int dpa_event_ledger_append(const char *path, const dpa_event *e, dpa_error *err)
{
    if (!path) return dpa_fail(err, DPA_EINVAL, "ledger: the path is NULL");
    char *line = dpa_event_to_json(e, 0, err);
    if (!line) return err ? err->status : DPA_EINVAL;
    FILE *f = fopen(path, "a");
    if (!f) {
        int saved = errno;
        free(line);
        return dpa_fail(err, DPA_EIO, "ledger %s: %s", path, strerror(saved));
    }
    int bad = fputs(line, f) < 0 || fputc('\n', f) == EOF;
    bad |= fclose(f) != 0;
    free(line);
    return bad ? dpa_fail(err, DPA_EIO, "ledger %s: could not append the event", path) : DPA_OK;
}

char *event_read_file(const char *path, size_t *length, dpa_error *err)
{
    if (!path) {
        dpa_fail(err, DPA_EINVAL, "event file: the path is NULL");
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        dpa_fail(err, DPA_EIO, "event file %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;   /* room for the NUL */
        char *grown = cap < ((size_t)1 << 30) ? realloc(buf, 2 * cap) : NULL;
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        dpa_fail(err, buf ? DPA_EIO : DPA_ENOMEM, "event file %s: %s", path,
                 bad ? "could not be read" : "larger than 1 GB or out of memory");
        return NULL;
    }
    buf[n] = '\0';
    *length = n;
    return buf;
}

dpa_event *dpa_event_load_json(const char *path, dpa_error *err)
{
    size_t n;
    char *buf = event_read_file(path, &n, err);
    if (!buf) return NULL;
    dpa_event *e = dpa_event_from_json(buf, n, err);
    free(buf);
    return e;
}
