/*
 * event_syntax.h - what the two ways of writing an event down share
 * (lib/event_text.c, the text syntax; lib/event_json.c, JSON): the names of
 * the parameters as written, and building an event from named values and
 * children through the public constructors, with errors that say where.
 */
#ifndef DPACCT_EVENT_SYNTAX_H
#define DPACCT_EVENT_SYNTAX_H

#include "internal.h"

/* A template being read (lib/event_template.c): what fills its "?" and
 * where the "?" was.  Without one, a "?" is refused. */
typedef struct {
    int probing;         /* fill with the hole's start value (the first reading) */
    double value;        /* else this */
    unsigned found;      /* the "?"s met */
    dpa_event_hole hole; /* the first one's */
} event_fill;

/* Where the reading is: text at an offset, or (path != NULL) the JSON
 * object at that path ("$.events[1].event"). */
typedef struct {
    const char *text;
    size_t at;          /* text: the next character */
    dpa_error *err;
    const char *path;   /* JSON: the object being read, for messages */
    event_fill *fill;   /* a template's, else NULL */
    dpa_event_kind kind; /* the event being built (event_build) */
} parser;

/* One named parameter as written: its text (the text syntax, or a JSON
 * string, is_string), or a JSON number already read (is_number). */
typedef struct {
    const char *name;
    size_t name_len, at;      /* where the name starts (text) */
    const char *value;
    size_t value_len, value_at;
    int is_number, is_string;
    double number;
    char digits[24];          /* JSON: an integer's digits (value points here) */
    int used;
    int is_list;              /* a list of numbers, [x, y, ...] (mixture_of_gaussians) */
    double *list;             /* its values (owned: event_arguments_free) */
    size_t list_len;
} argument;

#define MAX_ARGUMENTS 16

/* The names of mixture_of_gaussians' two lists, as written. */
#define EVENT_LIST_SENSITIVITIES "sensitivities"
#define EVENT_LIST_PROBABILITIES "probabilities"

/* Frees the lists the n arguments hold, then args itself. */
void event_arguments_free(argument *args, size_t n);

/* DPA_EINVAL with "event text, position N: ..." (at: 0-based offset) or
 * "event JSON, at PATH: ...". */
int event_fail_at(parser *p, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The event of `kind` from its named parameters and children (the kids
 * array and the events in it are taken, built or not); NULL with the
 * error set, the constructors' refusals prefixed with where the event is. */
dpa_event *event_build(parser *p, dpa_event_kind kind, size_t at, argument *args, size_t nargs, dpa_event **kids,
                       size_t nkids);

/* The written name of numeric slot i (NULL: unused; repeated_selected's
 * depend on its distribution), and the words of the two word-valued
 * parameters (NULL for a value that has none). */
const char *event_param_name(dpa_event_kind kind, uint64_t distribution, unsigned i);
const char *event_distribution_name(uint64_t distribution);
const char *event_randomizer_name(uint64_t randomizer);

/* The readers, with a template's fill (NULL: a "?" is an error); the
 * public dpa_event_parse and dpa_event_from_json pass NULL. */
dpa_event *event_read_text(const char *text, event_fill *fill, dpa_error *err);
dpa_event *event_read_json(const char *json, size_t length, event_fill *fill, dpa_error *err);
/* A file's bytes (at most 1 GB), NUL-terminated, to free(); *length
 * receives their number.  NULL with DPA_EIO (naming the file) or
 * DPA_ENOMEM. */
char *event_read_file(const char *path, size_t *length, dpa_error *err);

/* The hole `name` of an event of `kind` (is_count: a whole number) as
 * calibration searches it; DPA_EINVAL (err names why) when epsilon is
 * not known to be monotone in that parameter. */
int event_hole_describe(dpa_event_kind kind, const char *name, int is_count, dpa_event_hole *hole, char *why,
                        size_t why_size);

#endif
