/*
 * event_template.c - an event with one parameter left open ("?"), and how
 * calibration searches that parameter.
 *
 * The template keeps its text; each value searched is read into an event
 * by the text or JSON reader (lib/event_text.c, lib/event_json.c) with the
 * value in the hole, so the event is built by the public constructors and
 * checked exactly as any other.  Reading costs microseconds; an accountant
 * run costs milliseconds or more, so nothing is gained by keeping a tree.
 *
 * Only a parameter in which epsilon is monotone may be left open, so that
 * the search's answer is the extreme one: it grows with a count (more
 * releases), a sampling rate (Balle, Barthe & Gaboardi, NeurIPS 2018:
 * amplification weakens as q grows) and a privacy parameter of a component
 * (eps, eps0, mu, rho: a weaker component, by post-processing of the
 * stronger one's definition), and falls with a noise scale.  Whether the
 * value found meets the target is not taken on trust: dpa_calibrate_search
 * evaluates the value it returns.
 */
#include "internal.h"
#include "event_syntax.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dpa_event_template {
    char *text;
    size_t length;
    int is_json;
    dpa_event_hole hole;
};

/* The parameters that may be left open: direction, default range and the
 * value a template is first read with. */
static const struct {
    dpa_event_kind kind;
    const char *name;
    dpa_search direction;
    double lo, hi, start;
} searchable[] = {
    /* noise scales: the range of calibrate --solve sigma */
    { DPA_EVENT_GAUSSIAN, "sigma", DPA_SEARCH_SMALLEST, 1e-6, 1e9, 1.0 },
    { DPA_EVENT_LAPLACE, "scale", DPA_SEARCH_SMALLEST, 1e-6, 1e9, 1.0 },
    { DPA_EVENT_DISCRETE_GAUSSIAN, "sigma", DPA_SEARCH_SMALLEST, 1e-6, 1e9, 1.0 },
    { DPA_EVENT_DISCRETE_LAPLACE, "scale", DPA_SEARCH_SMALLEST, 1e-6, 1e9, 1.0 },
    { DPA_EVENT_TREE_AGGREGATION, "sigma", DPA_SEARCH_SMALLEST, 1e-6, 1e9, 1.0 },
    { DPA_EVENT_NOISY_CGD, "sigma", DPA_SEARCH_SMALLEST, 1e-6, 1e9, 1.0 },
    { DPA_EVENT_MIXTURE_OF_GAUSSIANS, "sigma", DPA_SEARCH_SMALLEST, 1e-6, 1e9, 1.0 },
    /* counts: two releases, so that composition is part of the event's shape */
    { DPA_EVENT_SELF_COMPOSED, "count", DPA_SEARCH_LARGEST, 1.0, 1e15, 2.0 },
    { DPA_EVENT_TREE_AGGREGATION, "steps", DPA_SEARCH_LARGEST, 1.0, 1e15, 2.0 },
    { DPA_EVENT_NOISY_CGD, "epochs", DPA_SEARCH_LARGEST, 1.0, 1e9, 2.0 },
    { DPA_EVENT_SAMPLED_WITHOUT_REPLACEMENT, "m", DPA_SEARCH_LARGEST, 1.0, 1e15, 1.0 }, /* at most n: event_build */
    { DPA_EVENT_SAMPLED_WITH_REPLACEMENT, "m", DPA_SEARCH_LARGEST, 1.0, 1e15, 1.0 },
    { DPA_EVENT_DISCRETE_GAUSSIAN, "sensitivity", DPA_SEARCH_LARGEST, 1.0, 1e9, 1.0 },
    { DPA_EVENT_DISCRETE_LAPLACE, "sensitivity", DPA_SEARCH_LARGEST, 1.0, 1e9, 1.0 },
    /* a sampling rate below 1, so that sampling is part of the shape */
    { DPA_EVENT_POISSON_SAMPLED, "q", DPA_SEARCH_LARGEST, 1e-9, 1.0, 0.5 },
    /* privacy parameters of a component */
    { DPA_EVENT_RANDOMIZED_RESPONSE, "eps", DPA_SEARCH_LARGEST, 1e-9, 50.0, 1.0 },
    { DPA_EVENT_EXPONENTIAL, "eps", DPA_SEARCH_LARGEST, 1e-9, 50.0, 1.0 },
    { DPA_EVENT_PERMUTE_AND_FLIP, "eps", DPA_SEARCH_LARGEST, 1e-9, 50.0, 1.0 },
    { DPA_EVENT_EPSILON_DELTA, "eps", DPA_SEARCH_LARGEST, 1e-9, 50.0, 1.0 },
    { DPA_EVENT_TRUNCATED_LAPLACE, "eps", DPA_SEARCH_LARGEST, 1e-9, 50.0, 1.0 },
    { DPA_EVENT_SHUFFLED, "eps0", DPA_SEARCH_LARGEST, 1e-9, 50.0, 1.0 },
    { DPA_EVENT_GDP, "mu", DPA_SEARCH_LARGEST, 1e-9, 1e3, 1.0 },
    { DPA_EVENT_ZCDP, "rho", DPA_SEARCH_LARGEST, 1e-12, 1e6, 1.0 },
    { DPA_EVENT_REPEATED_SELECTED, "mean", DPA_SEARCH_LARGEST, 1.0, 1e6, 1.0 },
    /* Not random_allocation's steps or selected: more steps per epoch
     * spread a record's use thinner (more amplification, so the search
     * would go the other way), but no monotonicity in either is proven for
     * the mechanism, and rdp's bound (K rounds of one of floor(T/K)
     * steps) jumps where floor(T/K) does. */
};

int event_hole_describe(dpa_event_kind kind, const char *name, int is_count, dpa_event_hole *hole, char *why,
                        size_t why_size)
{
    for (size_t i = 0; i < sizeof searchable / sizeof searchable[0]; i++)
        if (searchable[i].kind == kind && !strcmp(searchable[i].name, name)) {
            *hole = (dpa_event_hole){ kind, searchable[i].name, is_count, searchable[i].direction, searchable[i].lo,
                                      searchable[i].hi, searchable[i].start };
            return DPA_OK;
        }
    snprintf(why, why_size, "%s's %s cannot be left open: epsilon is not known to be monotone in it (a noise "
                            "scale, a count, a sampling rate or a privacy parameter can be)",
             dpa_event_kind_name(kind), name);
    return DPA_EINVAL;
}

/* The event of t's text with value v in the hole (fill->probing: the
 * hole's start), the fill telling where the hole was. */
static dpa_event *read_filled(const char *text, size_t length, int is_json, event_fill *fill, dpa_error *err)
{
    return is_json ? event_read_json(text, length, fill, err) : event_read_text(text, fill, err);
}

dpa_event_template *dpa_event_template_new(const char *text, size_t length, dpa_error *err)
{
    if (!text) {
        dpa_fail(err, DPA_EINVAL, "event template is NULL");
        return NULL;
    }
    const char *nul = memchr(text, '\0', length);
    size_t n = nul ? (size_t)(nul - text) : length, at = 0;
    while (at < n && strchr(" \t\r\n", text[at])) at++;
    const int is_json = at < n && (text[at] == '{' || text[at] == '[');
    dpa_event_template *t = calloc(1, sizeof *t);
    char *copy = malloc(n + 1);
    if (!t || !copy) {
        free(t);
        free(copy);
        dpa_fail(err, DPA_ENOMEM, "event template: out of memory");
        return NULL;
    }
    memcpy(copy, text, n);
    copy[n] = '\0';
    *t = (dpa_event_template){ copy, n, is_json, { 0 } };
    /* read once with the start value: the template's mistakes are found now */
    event_fill fill = { .probing = 1 };
    dpa_event *e = read_filled(t->text, t->length, is_json, &fill, err);
    if (e && fill.found == 0) {
        dpa_fail(err, DPA_EINVAL, "event template: no parameter is left open (write '?' for the value to search "
                                  "for, as in laplace(scale=?))");
        dpa_event_free(e);
        e = NULL;
    }
    if (!e) {
        dpa_event_template_free(t);
        return NULL;
    }
    dpa_event_free(e);
    t->hole = fill.hole;
    return t;
}

dpa_event_template *dpa_event_template_load(const char *path, dpa_error *err)
{
    size_t n;
    char *text = event_read_file(path, &n, err);
    if (!text) return NULL;
    if (strlen(text) != n) {
        free(text);
        dpa_fail(err, DPA_EINVAL, "event file %s: a NUL byte in the text", path);
        return NULL;
    }
    dpa_event_template *t = dpa_event_template_new(text, n, err);
    free(text);
    return t;
}

void dpa_event_template_free(dpa_event_template *t)
{
    if (!t) return;
    free(t->text);
    free(t);
}

int dpa_event_template_hole(const dpa_event_template *t, dpa_event_hole *hole, dpa_error *err)
{
    if (!t || !hole) return dpa_fail(err, DPA_EINVAL, "template_hole: %s is NULL", t ? "hole" : "the template");
    *hole = t->hole;
    return DPA_OK;
}

dpa_event *dpa_event_template_family(double value, void *template_, dpa_error *err)
{
    const dpa_event_template *t = template_;
    if (!t) {
        dpa_fail(err, DPA_EINVAL, "template_family: the template is NULL");
        return NULL;
    }
    event_fill fill = { .value = value };
    return read_filled(t->text, t->length, t->is_json, &fill, err);
}

int dpa_event_template_calibration(const dpa_event_template *t, dpa_calibration *c, dpa_error *err)
{
    if (!t || !c) return dpa_fail(err, DPA_EINVAL, "template_calibration: %s is NULL", t ? "c" : "the template");
    const dpa_event_hole *h = &t->hole;
    dpa_calibration_init(c, h->direction);
    c->integer = h->is_count;
    c->limit_lo = h->limit_lo;
    c->limit_hi = h->limit_hi;
    c->name = h->name;
    /* a start around the hole's start value, inside the range */
    c->lo = fmax(h->limit_lo, h->start / (h->is_count ? 2.0 : 10.0));
    c->hi = fmin(h->limit_hi, h->is_count ? fmax(1000.0, h->start) : h->start * 10.0);
    if (!(c->lo < c->hi)) c->lo = h->limit_lo, c->hi = h->limit_hi;
    return DPA_OK;
}
