/*
 * event_text.c - events written as text and read back.
 *
 * The syntax is the one dpa_event_describe prints:
 *
 *   event    := kind '(' [ item { ',' item } ] ')'
 *   item     := name '=' value | event
 *   value    := number | symbol | '[' number { ',' number } ']'
 *
 * with the kinds and parameter names of lib/event.c's table, children after
 * (or among) the named parameters, white space anywhere between tokens, and
 * "compose" accepted for "composed".  Two parameters are words rather than
 * numbers: repeated_selected's distribution (poisson, with `mean`;
 * geometric, with `gamma`; truncated_negative_binomial, with `eta` and
 * `gamma`) and shuffled's randomizer (any or rr).  Optional parameters:
 * zcdp's xi, shuffled's delta0 and randomizer, tree_aggregation's
 * restart_every (0: one tree).  Counts are whole numbers (1e6 is accepted
 * where it is one exactly).  Lists of numbers are mixture_of_gaussians'
 * sensitivities and probabilities, of one to DPA_MAX_MIXTURE_COMPONENTS
 * values each.
 *
 * Numbers are printed with the fewest significant digits that read back
 * to the same double (at most 17), so that text round-trips exactly: an
 * event parsed from its description has every parameter bit for bit.
 * Events are built by the public constructors, so text is checked exactly
 * as the C API checks it; an error names the position (1-based, in
 * characters) and the problem.
 */
#include "internal.h"
#include "event_syntax.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ------------------------------------------------------------- */

/* snprintf into buf+*used, tracking the length needed even when truncated. */
static void append(char *buf, size_t size, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*used < size ? buf + *used : NULL, *used < size ? size - *used : 0, fmt, ap);
    va_end(ap);
    if (n > 0) *used += (size_t)n;
}

size_t dpa_format_double(double x, char *buf, size_t size)
{
    char tmp[40];
    int n = 0, digits = 1;
    void *caller = dpa_use_c_locale(); /* '.' whatever the program's locale */
    for (; digits <= 17; digits++) {
        n = snprintf(tmp, sizeof tmp, "%.*g", digits, x);
        if (!isfinite(x) || strtod(tmp, NULL) == x) break;
    }
    /* %g writes 10 as 1e+01 at one digit: below 1e15 give it the digits
     * of the integer part instead (the same value, read back the same) */
    double ax = fabs(x);
    if (isfinite(x) && ax >= 1.0 && ax < 1e15) {
        int whole = (int)floor(log10(ax)) + 1;
        if (whole > digits) n = snprintf(tmp, sizeof tmp, "%.*g", whole, x);
    }
    dpa_restore_locale(caller);
    if (size) snprintf(buf, size, "%s", tmp);
    return n > 0 ? (size_t)n : 0;
}

static const char *const distribution_names[] = {
    [DPA_REPEAT_POISSON] = "poisson",
    [DPA_REPEAT_TRUNCATED_NEGATIVE_BINOMIAL] = "truncated_negative_binomial",
    [DPA_REPEAT_GEOMETRIC] = "geometric",
};
static const char *const randomizer_names[] = { [DPA_LOCAL_ANY] = "any", [DPA_LOCAL_RR_CLASS] = "rr" };

const char *event_distribution_name(uint64_t d) { return d < 3 ? distribution_names[d] : NULL; }
const char *event_randomizer_name(uint64_t r) { return r < 2 ? randomizer_names[r] : NULL; }

/* The name of numeric slot i of e (NULL: unused), which for
 * repeated_selected depends on the distribution. */
const char *event_param_name(dpa_event_kind kind, uint64_t distribution, unsigned i)
{
    if (kind == DPA_EVENT_REPEATED_SELECTED) {
        switch (distribution) {
        case DPA_REPEAT_POISSON: return i == 0 ? "mean" : NULL;
        case DPA_REPEAT_GEOMETRIC: return i == 0 ? "gamma" : NULL;
        default: return i == 0 ? "eta" : i == 1 ? "gamma" : NULL;
        }
    }
    return dpa_event_slot_name(kind, 0, i);
}

/* ", name=[x, y, ...]" (a list follows a leaf's numeric parameter). */
static void describe_list(const char *name, const double *x, size_t n, char *buf, size_t size, size_t *used)
{
    append(buf, size, used, ", %s=[", name);
    for (size_t i = 0; i < n; i++) {
        char num[40];
        dpa_format_double(x[i], num, sizeof num);
        append(buf, size, used, "%s%s", i ? ", " : "", num);
    }
    append(buf, size, used, "]");
}

static void describe(const dpa_event *e, char *buf, size_t size, size_t *used)
{
    const char *sep = "";
    append(buf, size, used, "%s(", dpa_event_kind_name(e->kind));
    if (e->kind == DPA_EVENT_REPEATED_SELECTED && e->count[0] < 3) {
        append(buf, size, used, "distribution=%s", distribution_names[e->count[0]]);
        sep = ", ";
    }
    for (unsigned i = 0; i < DPA_EVENT_MAX_PARAMS; i++) {
        const char *name = event_param_name(e->kind, e->count[0], i);
        if (!name) continue;
        char num[40];
        dpa_format_double(e->param[i], num, sizeof num);
        append(buf, size, used, "%s%s=%s", sep, name, num);
        sep = ", ";
    }
    if (e->list_len) {
        describe_list(EVENT_LIST_SENSITIVITIES, e->list, e->list_len, buf, size, used);
        describe_list(EVENT_LIST_PROBABILITIES, e->list + e->list_len, e->list_len, buf, size, used);
    }
    for (unsigned i = 0; i < DPA_EVENT_MAX_COUNTS; i++) {
        const char *name = dpa_event_slot_name(e->kind, 1, i);
        if (!name || e->kind == DPA_EVENT_REPEATED_SELECTED) continue;
        if (e->kind == DPA_EVENT_SHUFFLED && i == 1 && e->count[1] < 2)
            append(buf, size, used, "%srandomizer=%s", sep, randomizer_names[e->count[1]]);
        else
            append(buf, size, used, "%s%s=%" PRIu64, sep, name, e->count[i]);
        sep = ", ";
    }
    for (size_t i = 0; i < e->num_children; i++) {
        append(buf, size, used, "%s", sep);
        describe(e->children[i], buf, size, used);
        sep = ", ";
    }
    append(buf, size, used, ")");
}

size_t dpa_event_describe(const dpa_event *e, char *buf, size_t size)
{
    size_t used = 0;
    if (!buf) size = 0;
    if (size) buf[0] = '\0';
    if (e) describe(e, buf, size, &used);
    return used;
}

/* ---- reading ------------------------------------------------------------- */

/* A failure at 0-based offset `at` of the text, reported 1-based, or in
 * the JSON object at p->path. */
int event_fail_at(parser *p, size_t at, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (p->path) return dpa_fail(p->err, DPA_EINVAL, "event JSON, at %s: %s", p->path, what);
    return dpa_fail(p->err, DPA_EINVAL, "event text, position %zu: %s", at + 1, what);
}
#define fail_at event_fail_at

static void skip_space(parser *p)
{
    while (isspace((unsigned char)p->text[p->at])) p->at++;
}

/* The character at the cursor, for messages. */
static const char *shown(const parser *p, char buf[16])
{
    unsigned char c = (unsigned char)p->text[p->at];
    if (!c) return "the end of the text";
    if (isprint(c)) snprintf(buf, 16, "'%c'", c);
    else snprintf(buf, 16, "byte %u", c);
    return buf;
}

static size_t word_length(const char *s)
{
    size_t n = 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '_') n++;
    return n;
}

static int word_is(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && !strncmp(s, w, n);
}

static dpa_event *parse_event(parser *p, size_t depth);

/* The value of argument a as a double (all of its text). */
static int number_value(parser *p, const argument *a, double *x)
{
    if (a->is_number) {
        *x = a->number;
        return DPA_OK;
    }
    if (a->is_string || a->is_list)
        return fail_at(p, a->value_at, "%.*s needs a number, got a %s", (int)a->name_len, a->name,
                       a->is_list ? "list" : "string");
    char buf[64];
    if (a->value_len == 0 || a->value_len >= sizeof buf)
        return fail_at(p, a->value_at, "%.*s needs a number", (int)a->name_len, a->name);
    memcpy(buf, a->value, a->value_len);
    buf[a->value_len] = '\0';
    char *end;
    errno = 0;
    *x = strtod(buf, &end);
    if (*end || end == buf)
        return fail_at(p, a->value_at, "%.*s: '%s' is not a number", (int)a->name_len, a->name, buf);
    if (errno == ERANGE && isinf(*x))
        return fail_at(p, a->value_at, "%.*s: %s is too large for a double", (int)a->name_len, a->name, buf);
    return DPA_OK;
}

/* The value of argument a as a whole number in [0, 2^64). */
static int count_value(parser *p, const argument *a, uint64_t *n)
{
    if (a->is_number) {
        double x = a->number;
        if (!(x >= 0.0 && x < 18446744073709551616.0 && x == floor(x)))
            return fail_at(p, a->value_at, "%.*s must be a whole number >= 0, got %.17g", (int)a->name_len, a->name,
                           x);
        *n = (uint64_t)x;
        return DPA_OK;
    }
    const char *v = a->value;
    size_t len = a->value_len, digits = 0;
    while (digits < len && isdigit((unsigned char)v[digits])) digits++;
    if (digits == len && digits > 0) {
        char buf[32];
        if (len >= sizeof buf) return fail_at(p, a->value_at, "%.*s: the count is too large", (int)a->name_len, a->name);
        memcpy(buf, v, len);
        buf[len] = '\0';
        errno = 0;
        unsigned long long x = strtoull(buf, NULL, 10);
        if (errno == ERANGE)
            return fail_at(p, a->value_at, "%.*s: %s is more than 2^64 - 1", (int)a->name_len, a->name, buf);
        *n = (uint64_t)x;
        return DPA_OK;
    }
    double x;
    int st = number_value(p, a, &x);
    if (st) return st;
    if (!(x >= 0.0 && x < 18446744073709551616.0 && x == floor(x)))
        return fail_at(p, a->value_at, "%.*s must be a whole number >= 0, got %.*s", (int)a->name_len, a->name,
                       (int)a->value_len, a->value);
    *n = (uint64_t)x;
    return DPA_OK;
}

/* The argument named `name`, marked used; NULL when absent. */
static argument *find(argument *args, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (word_is(args[i].name, args[i].name_len, name)) {
            args[i].used = 1;
            return &args[i];
        }
    return NULL;
}

/* Fill the values from the named arguments (required ones must be present);
 * every argument must be wanted, or marked used by find() already (the
 * words: distribution, randomizer). */
typedef struct {
    const char *name;
    int is_count, optional;
    double *x;
    uint64_t *n;
} wanted;

/* A "?" where a value goes: a template's hole, filled with its value
 * (the hole's start while the template is first read); refused outside a
 * template, twice, or where calibration cannot search. */
static int fill_hole(parser *p, const argument *a, const wanted *w)
{
    event_fill *f = p->fill;
    if (!f)
        return fail_at(p, a->value_at, "%s is left open ('?'): only a template for calibration may leave one "
                                       "parameter open", w->name);
    if (f->found++)
        return fail_at(p, a->value_at, "%s: a second '?' (a template leaves one parameter open)", w->name);
    char why[160];
    if (event_hole_describe(p->kind, w->name, w->is_count, &f->hole, why, sizeof why))
        return fail_at(p, a->value_at, "%s", why);
    double v = f->probing ? f->hole.start : f->value;
    if (w->is_count) {
        if (!(v >= 0.0 && v < 18446744073709551616.0 && v == floor(v)))
            return fail_at(p, a->value_at, "%s must be a whole number >= 0, got %.17g", w->name, v);
        *w->n = (uint64_t)v;
    } else
        *w->x = v;
    return DPA_OK;
}

static int take(parser *p, size_t at, const char *kind, argument *args, size_t nargs, const wanted *w, size_t nw)
{
    for (size_t i = 0; i < nargs; i++) {
        int known = args[i].used;
        for (size_t j = 0; j < nw && !known; j++) known = word_is(args[i].name, args[i].name_len, w[j].name);
        if (!known) {
            char names[160] = "";
            size_t used = 0;
            for (size_t j = 0; j < nw; j++)
                append(names, sizeof names, &used, "%s%s", j ? ", " : "", w[j].name);
            return fail_at(p, args[i].at, "%s has no parameter '%.*s' (its parameters: %s)", kind,
                           (int)(args[i].name_len < 40 ? args[i].name_len : 40), args[i].name, nw ? names : "none");
        }
    }
    for (size_t i = 0; i < nw; i++) {
        argument *a = find(args, nargs, w[i].name);
        if (!a) {
            if (w[i].optional) continue;
            return fail_at(p, at, "%s needs %s", kind, w[i].name);
        }
        int st = a->value_len == 1 && a->value[0] == '?' ? fill_hole(p, a, &w[i])
                 : w[i].is_count                          ? count_value(p, a, w[i].n)
                                                          : number_value(p, a, w[i].x);
        if (st) return st;
    }
    return DPA_OK;
}

/* A symbolic value: its index in names[0..n), or -1. */
static int symbol_index(const argument *a, const char *const *names, int n)
{
    if (a->is_number) return -1;
    for (int i = 0; i < n; i++)
        if (names[i] && word_is(a->value, a->value_len, names[i])) return i;
    return -1;
}

/* Wrap a constructor's refusal with the position of the event. */
static dpa_event *built(parser *p, size_t at, dpa_event *e)
{
    if (!e && p->err && p->err->status == DPA_EINVAL && strncmp(p->err->message, "event ", 6)) {
        char inner[sizeof p->err->message];
        snprintf(inner, sizeof inner, "%s", p->err->message);
        fail_at(p, at, "%s", inner);
    }
    return e;
}

void event_arguments_free(argument *args, size_t n)
{
    for (size_t i = 0; args && i < n; i++) free(args[i].list);
    free(args);
}

/* Room for one more value in a's list. */
static int list_grow(parser *p, argument *a, size_t *cap)
{
    if (a->list_len < *cap) return DPA_OK;
    size_t ncap = *cap ? 2 * *cap : 8;
    double *grown = realloc(a->list, ncap * sizeof *grown);
    if (!grown) return dpa_fail(p->err, DPA_ENOMEM, "event text: out of memory");
    a->list = grown;
    *cap = ncap;
    return DPA_OK;
}

/* One number of a list at the cursor (len characters), appended. */
static int list_number(parser *p, argument *a, const char *kname, size_t len, size_t *cap)
{
    char buf[64], *end, seen[16];
    size_t at = p->at, after = at + len;
    const int name = (int)a->name_len;
    while (isspace((unsigned char)p->text[after])) after++;
    if (len > 0 && p->text[after] == '=')   /* the next parameter: the list was not closed */
        return fail_at(p, at, "%s: the list %.*s (from position %zu) has no closing ']'", kname, name, a->name,
                       a->value_at + 1);
    if (len == 0)
        return fail_at(p, at, "%s: %.*s[%zu] needs a number, found %s", kname, name, a->name, a->list_len,
                       shown(p, seen));
    if (a->list_len == DPA_MAX_MIXTURE_COMPONENTS)
        return fail_at(p, at, "%s: %.*s has more than %d values (DPA_MAX_MIXTURE_COMPONENTS)", kname, name, a->name,
                       DPA_MAX_MIXTURE_COMPONENTS);
    snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), p->text + at);
    errno = 0;
    double x = strtod(buf, &end);
    if (len >= sizeof buf || *end || end == buf)
        return fail_at(p, at, "%s: %.*s[%zu]: '%s' is not a number", kname, name, a->name, a->list_len, buf);
    if (errno == ERANGE && isinf(x))
        return fail_at(p, at, "%s: %.*s[%zu]: %s is too large for a double", kname, name, a->name, a->list_len, buf);
    int st = list_grow(p, a, cap);
    if (st) return st;
    a->list[a->list_len++] = x;
    p->at += len;
    return DPA_OK;
}

/* A list value [x, y, ...] at the cursor (on its '['), into a->list: one
 * to DPA_MAX_MIXTURE_COMPONENTS numbers and the closing ']'. */
static int parse_list(parser *p, argument *a, const char *kname)
{
    char seen[16];
    size_t cap = 0;
    const int name = (int)a->name_len;
    a->is_list = 1;
    p->at++;
    skip_space(p);
    if (p->text[p->at] == ']')
        return fail_at(p, p->at, "%s: %.*s is an empty list (it needs one value or more)", kname, name, a->name);
    for (;;) {
        skip_space(p);
        size_t len = 0;
        while (isalnum((unsigned char)p->text[p->at + len]) ||
               (p->text[p->at + len] && strchr("_.+-", p->text[p->at + len])))
            len++;
        int st = list_number(p, a, kname, len, &cap);
        if (st) return st;
        skip_space(p);
        if (p->text[p->at] == ',') { p->at++; continue; }
        if (p->text[p->at] == ']') break;
        return fail_at(p, p->at, "%s: %.*s: expected ',' or ']' in the list (from position %zu), found %s", kname,
                       name, a->name, a->value_at + 1, shown(p, seen));
    }
    p->at++;
    a->value_len = p->at - a->value_at;
    return DPA_OK;
}

static void free_children(dpa_event **kids, size_t n)
{
    for (size_t i = 0; i < n; i++) dpa_event_free(kids[i]);
    free(kids);
}

/* After the kind's name and '(': the arguments and children up to ')'. */
static dpa_event *parse_body(parser *p, dpa_event_kind kind, size_t at, size_t depth)
{
    const char *kname = dpa_event_kind_name(kind);
    /* on the heap: a thousand levels of kilobytes would not fit a thread's stack */
    argument *args = malloc(MAX_ARGUMENTS * sizeof *args);
    size_t nargs = 0, nkids = 0, cap = 0;
    dpa_event **kids = NULL;
    char seen[16];
    if (!args) {
        dpa_fail(p->err, DPA_ENOMEM, "event text: out of memory");
        return NULL;
    }
    skip_space(p);
    if (p->text[p->at] == ')') p->at++;
    else
        for (;;) {
            skip_space(p);
            size_t item = p->at, n = word_length(p->text + p->at), after = p->at + n;
            while (isspace((unsigned char)p->text[after])) after++;
            if (n > 0 && p->text[after] == '=') {          /* name = value */
                if (nargs == MAX_ARGUMENTS) {
                    fail_at(p, item, "%s: more than %d parameters", kname, MAX_ARGUMENTS);
                    goto fail;
                }
                for (size_t i = 0; i < nargs; i++)
                    if (args[i].name_len == n && !strncmp(args[i].name, p->text + item, n)) {
                        fail_at(p, item, "%s: %.*s is given twice", kname, (int)n, p->text + item);
                        goto fail;
                    }
                argument *a = &args[nargs++];
                a->name = p->text + item;
                a->name_len = n;
                a->at = item;
                a->used = 0;
                a->is_number = a->is_string = a->is_list = 0;
                a->list = NULL;
                a->list_len = 0;
                p->at = after + 1;
                skip_space(p);
                a->value = p->text + p->at;
                a->value_at = p->at;
                if (a->value[0] == '[') {
                    if (parse_list(p, a, kname)) goto fail;
                    goto next;
                }
                size_t len = a->value[0] == '?';   /* a template's hole */
                if (!len)
                    while (isalnum((unsigned char)a->value[len]) || (a->value[len] && strchr("_.+-", a->value[len])))
                        len++;
                a->value_len = len;
                if (len == 0) {
                    fail_at(p, p->at, "%s: %.*s needs a value, found %s", kname, (int)n, a->name, shown(p, seen));
                    goto fail;
                }
                p->at += len;
            } else if (n > 0) {                            /* a child event */
                if (nkids == cap) {
                    size_t ncap = cap ? 2 * cap : 4;
                    dpa_event **grown = realloc(kids, ncap * sizeof *grown);
                    if (!grown) {
                        dpa_fail(p->err, DPA_ENOMEM, "event text: out of memory");
                        goto fail;
                    }
                    kids = grown;
                    cap = ncap;
                }
                dpa_event *child = parse_event(p, depth + 1);
                if (!child) goto fail;
                kids[nkids++] = child;
            } else {
                fail_at(p, p->at, "%s: expected a parameter (name=value) or an event, found %s", kname,
                        shown(p, seen));
                goto fail;
            }
        next:
            skip_space(p);
            if (p->text[p->at] == ',') { p->at++; continue; }
            if (p->text[p->at] == ')') { p->at++; break; }
            fail_at(p, p->at, "%s: expected ',' or ')', found %s", kname, shown(p, seen));
            goto fail;
        }

    dpa_event *e = event_build(p, kind, at, args, nargs, kids, nkids);
    event_arguments_free(args, nargs);
    return e;
fail:
    free_children(kids, nkids);
    event_arguments_free(args, nargs);
    return NULL;
}

/* mixture_of_gaussians' two lists: both given, both lists, as long as
 * each other. */
static int mixture_lists(parser *p, size_t at, const argument *sens, const argument *prob)
{
    const argument *both[2] = { sens, prob };
    const char *names[2] = { EVENT_LIST_SENSITIVITIES, EVENT_LIST_PROBABILITIES };
    for (int i = 0; i < 2; i++) {
        if (!both[i]) return fail_at(p, at, "mixture_of_gaussians needs %s, a list [x, y, ...]", names[i]);
        if (both[i]->is_list) continue;
        int len = both[i]->is_number ? 8 : (int)(both[i]->value_len < 40 ? both[i]->value_len : 40);
        return fail_at(p, both[i]->value_at, "mixture_of_gaussians: %s needs a list [x, y, ...], got %.*s",
                       names[i], len, both[i]->is_number ? "a number" : both[i]->value);
    }
    if (sens->list_len != prob->list_len)
        return fail_at(p, prob->value_at, "mixture_of_gaussians: %s has %zu values but %s has %zu (one of each a "
                       "component)", names[0], sens->list_len, names[1], prob->list_len);
    return DPA_OK;
}

dpa_event *event_build(parser *p, dpa_event_kind kind, size_t at, argument *args, size_t nargs, dpa_event **kids,
                       size_t nkids)
{
    const char *kname = dpa_event_kind_name(kind);
    /* the children a kind takes */
    int wrapper = kind == DPA_EVENT_POISSON_SAMPLED || kind == DPA_EVENT_SAMPLED_WITHOUT_REPLACEMENT ||
                  kind == DPA_EVENT_SAMPLED_WITH_REPLACEMENT || kind == DPA_EVENT_SHUFFLED_BATCHES ||
                  kind == DPA_EVENT_SELF_COMPOSED || kind == DPA_EVENT_REPEATED_SELECTED ||
                  kind == DPA_EVENT_TRUNCATED_POISSON || kind == DPA_EVENT_RANDOM_ALLOCATION;
    if (kind == DPA_EVENT_COMPOSED ? nkids == 0 : wrapper ? nkids != 1 : nkids != 0) {
        fail_at(p, at, "%s takes %s, got %zu", kname,
                kind == DPA_EVENT_COMPOSED ? "one event or more" : wrapper ? "one event" : "no events", nkids);
        free_children(kids, nkids);
        return NULL;
    }
    double x[DPA_EVENT_MAX_PARAMS] = { 0 };
    uint64_t c[DPA_EVENT_MAX_COUNTS] = { 0 };
    dpa_error *err = p->err;
    const unsigned holes_before = p->fill ? p->fill->found : 0;
    p->kind = kind;
    dpa_event *e = NULL;
    int st = DPA_OK;
#define TAKE(...)                                                                     \
    do {                                                                              \
        const wanted w_[] = { __VA_ARGS__ };                                          \
        st = take(p, at, kname, args, nargs, w_, sizeof w_ / sizeof w_[0]);           \
    } while (0)
#define NUM(name, i) { name, 0, 0, &x[i], NULL }
#define OPTNUM(name, i) { name, 0, 1, &x[i], NULL }
#define CNT(name, i) { name, 1, 0, NULL, &c[i] }
#define OPTCNT(name, i) { name, 1, 1, NULL, &c[i] }
    switch (kind) {
    case DPA_EVENT_GAUSSIAN: TAKE(NUM("sigma", 0)); if (!st) e = dpa_event_gaussian(x[0], err); break;
    case DPA_EVENT_LAPLACE: TAKE(NUM("scale", 0)); if (!st) e = dpa_event_laplace(x[0], err); break;
    case DPA_EVENT_RANDOMIZED_RESPONSE:
        TAKE(NUM("eps", 0), CNT("k", 0));
        if (!st && c[0] > UINT32_MAX) st = fail_at(p, at, "randomized_response: k is at most 2^32 - 1");
        if (!st) e = dpa_event_randomized_response(x[0], (uint32_t)c[0], err);
        break;
    case DPA_EVENT_DISCRETE_GAUSSIAN:
        TAKE(NUM("sigma", 0), CNT("sensitivity", 0));
        if (!st) e = dpa_event_discrete_gaussian(x[0], c[0], err);
        break;
    case DPA_EVENT_DISCRETE_LAPLACE:
        TAKE(NUM("scale", 0), CNT("sensitivity", 0));
        if (!st) e = dpa_event_discrete_laplace(x[0], c[0], err);
        break;
    case DPA_EVENT_EXPONENTIAL: TAKE(NUM("eps", 0)); if (!st) e = dpa_event_exponential(x[0], err); break;
    case DPA_EVENT_PERMUTE_AND_FLIP:
        TAKE(NUM("eps", 0));
        if (!st) e = dpa_event_permute_and_flip(x[0], err);
        break;
    case DPA_EVENT_EPSILON_DELTA:
        TAKE(NUM("eps", 0), NUM("delta", 1));
        if (!st) e = dpa_event_epsilon_delta(x[0], x[1], err);
        break;
    case DPA_EVENT_ZCDP: TAKE(NUM("rho", 0), OPTNUM("xi", 1)); if (!st) e = dpa_event_zcdp(x[0], x[1], err); break;
    case DPA_EVENT_GDP: TAKE(NUM("mu", 0)); if (!st) e = dpa_event_gdp(x[0], err); break;
    case DPA_EVENT_TREE_AGGREGATION:
        TAKE(NUM("sigma", 0), CNT("steps", 0), OPTCNT("restart_every", 1));
        if (!st) e = dpa_event_tree_aggregation(x[0], c[0], c[1], err);
        break;
    case DPA_EVENT_NOISY_CGD:
        TAKE(NUM("m", 0), NUM("M", 1), NUM("eta", 2), NUM("sensitivity", 3), NUM("sigma", 4), CNT("batches", 0),
             CNT("epochs", 1));
        if (!st) {
            dpa_noisy_cgd_params q = { x[0], x[1], x[2], x[3], x[4], c[0], c[1] };
            e = dpa_event_noisy_cgd(&q, err);
        }
        break;
    case DPA_EVENT_SHUFFLED: {
        argument *r = find(args, nargs, "randomizer");
        int cls = DPA_LOCAL_ANY;
        if (r && (cls = symbol_index(r, randomizer_names, 2)) < 0) {
            st = fail_at(p, r->value_at, "shuffled: randomizer is any or rr, got '%.*s'", (int)r->value_len,
                         r->is_number ? "a number" : r->value);
            break;
        }
        TAKE(NUM("eps0", 0), OPTNUM("delta0", 1), CNT("n", 0));
        if (!st) e = dpa_event_shuffled_local(x[0], x[1], c[0], (dpa_local_class)cls, err);
        break;
    }
    case DPA_EVENT_TRUNCATED_LAPLACE:
        TAKE(NUM("eps", 0), NUM("delta", 1));
        if (!st) e = dpa_event_truncated_laplace(x[0], x[1], err);
        break;
    case DPA_EVENT_GSM_FROBENIUS:
        TAKE(NUM("M", 0), CNT("k", 0));
        if (!st) e = dpa_event_gsm_frobenius(c[0], x[0], err);
        break;
    case DPA_EVENT_GSM_SPECTRAL:
        TAKE(NUM("eta", 0), CNT("k", 0), CNT("n", 1));
        if (!st) e = dpa_event_gsm_spectral(c[0], c[1], x[0], err);
        break;
    case DPA_EVENT_POISSON_SAMPLED:
        TAKE(NUM("q", 0));
        if (!st) { e = dpa_event_poisson_sampled(x[0], kids[0], err); nkids = 0; }
        break;
    case DPA_EVENT_SAMPLED_WITHOUT_REPLACEMENT:
    case DPA_EVENT_SAMPLED_WITH_REPLACEMENT:
        TAKE(CNT("n", 0), CNT("m", 1));
        /* a batch size searched: at most the dataset */
        if (!st && p->fill && p->fill->found > holes_before && !strcmp(p->fill->hole.name, "m"))
            p->fill->hole.limit_hi = fmin(p->fill->hole.limit_hi, (double)c[0]);
        if (!st) {
            e = kind == DPA_EVENT_SAMPLED_WITH_REPLACEMENT ? dpa_event_sampled_with_replacement(c[0], c[1], kids[0], err)
                                                           : dpa_event_sampled_without_replacement(c[0], c[1], kids[0], err);
            nkids = 0;
        }
        break;
    case DPA_EVENT_SHUFFLED_BATCHES:
        TAKE(CNT("n", 0), CNT("m", 1));
        if (!st) { e = dpa_event_shuffled_batches(c[0], c[1], kids[0], err); nkids = 0; }
        break;
    case DPA_EVENT_TRUNCATED_POISSON:
        TAKE(NUM("q", 0), CNT("n", 0), CNT("max_batch", 1));
        if (!st) { e = dpa_event_truncated_poisson(x[0], c[0], c[1], kids[0], err); nkids = 0; }
        break;
    case DPA_EVENT_RANDOM_ALLOCATION:
        TAKE(CNT("steps", 0), CNT("selected", 1));
        if (!st) { e = dpa_event_random_allocation(c[0], c[1], kids[0], err); nkids = 0; }
        break;
    case DPA_EVENT_SELF_COMPOSED:
        TAKE(CNT("count", 0));
        if (!st) { e = dpa_event_self_composed(kids[0], c[0], err); nkids = 0; }
        break;
    case DPA_EVENT_COMPOSED:
        TAKE();
        if (!st) { e = dpa_event_composed(kids, nkids, err); nkids = 0; }
        break;
    case DPA_EVENT_REPEATED_SELECTED: {
        argument *d = find(args, nargs, "distribution");
        int dist = d ? symbol_index(d, distribution_names, 3) : -1;
        if (dist < 0) {
            st = d ? fail_at(p, d->value_at,
                             "repeated_selected: distribution is poisson, geometric or truncated_negative_binomial, "
                             "got '%.*s'", (int)d->value_len, d->value)
                   : fail_at(p, at, "repeated_selected needs distribution (poisson, geometric or "
                                    "truncated_negative_binomial)");
            break;
        }
        if (dist == DPA_REPEAT_POISSON) TAKE(NUM("mean", 0));
        else if (dist == DPA_REPEAT_GEOMETRIC) TAKE(NUM("gamma", 0));
        else TAKE(NUM("eta", 0), NUM("gamma", 1));
        if (!st) { e = dpa_event_repeated_selected(kids[0], dist, x[0], x[1], err); nkids = 0; }
        break;
    }
    case DPA_EVENT_MIXTURE_OF_GAUSSIANS: {
        argument *sens = find(args, nargs, EVENT_LIST_SENSITIVITIES), *prob = find(args, nargs, EVENT_LIST_PROBABILITIES);
        TAKE(NUM("sigma", 0));
        if (!st) st = mixture_lists(p, at, sens, prob);
        if (!st) e = dpa_event_mixture_of_gaussians(x[0], sens->list, prob->list, sens->list_len, err);
        break;
    }
    default: st = fail_at(p, at, "%s cannot be written as text", kname); break;
    }
#undef TAKE
#undef NUM
#undef OPTNUM
#undef CNT
#undef OPTCNT
    free_children(kids, nkids);   /* none when a constructor took them (it owns them, built or not) */
    (void)st;
    return built(p, at, e);
}

static dpa_event *parse_event(parser *p, size_t depth)
{
    skip_space(p);
    size_t at = p->at, n = word_length(p->text + p->at);
    char seen[16];
    if (n == 0) {
        fail_at(p, at, "expected an event (a name such as gaussian), found %s", shown(p, seen));
        return NULL;
    }
    if (depth > DPA_MAX_EVENT_DEPTH) {
        fail_at(p, at, "nested more than %d levels deep (DPA_MAX_EVENT_DEPTH)", DPA_MAX_EVENT_DEPTH);
        return NULL;
    }
    dpa_event_kind kind = dpa_event_kind_from_name(p->text + at, n);
    if (kind == DPA_EVENT_INVALID) {
        /* the whole list of kinds no longer fits an error message: the
         * nearest name, and where the list is */
        const char *near = dpa_event_kind_nearest(p->text + at, n);
        if (near)
            fail_at(p, at, "unknown event '%.*s' (did you mean %s? the events are listed in dpacct(1), EVENTS AS TEXT)",
                    (int)(n < 40 ? n : 40), p->text + at, near);
        else
            fail_at(p, at, "unknown event '%.*s' (the events are listed in dpacct(1), EVENTS AS TEXT)",
                    (int)(n < 40 ? n : 40), p->text + at);
        return NULL;
    }
    p->at += n;
    skip_space(p);
    if (p->text[p->at] != '(') {
        fail_at(p, p->at, "expected '(' after %s, found %s", dpa_event_kind_name(kind), shown(p, seen));
        return NULL;
    }
    p->at++;
    return parse_body(p, kind, at, depth);
}

dpa_event *event_read_text(const char *text, event_fill *fill, dpa_error *err)
{
    if (!text) {
        dpa_fail(err, DPA_EINVAL, "event text is NULL");
        return NULL;
    }
    parser p = { text, 0, err, NULL, fill, DPA_EVENT_INVALID };
    void *caller = dpa_use_c_locale();   /* strtod reads '.' whatever the program's locale */
    dpa_event *e = parse_event(&p, 0);
    skip_space(&p);
    if (e && text[p.at]) {
        char seen[16];
        fail_at(&p, p.at, "unexpected %s after the event", shown(&p, seen));
        dpa_event_free(e);
        e = NULL;
    }
    dpa_restore_locale(caller);
    return e;
}

dpa_event *dpa_event_parse(const char *text, dpa_error *err)
{
    return event_read_text(text, NULL, err);
}
