/*
 * fuzz_event.c - libFuzzer target for dpa_event_parse (lib/event_text.c):
 * the input (at most MAX_TEXT bytes, NUL-terminated; an embedded NUL ends
 * the text early, as it would for any caller) is the event text.
 *
 * Checked, with abort() on a violation so that libFuzzer reports it:
 *  - a refusal is NULL with DPA_EINVAL or DPA_ENOMEM and a non-empty,
 *    terminated message; an EINVAL one says where ("event text, position
 *    N: ...");
 *  - an accepted event round-trips exactly (the promise of dpacct.h and
 *    DESIGN.md): its description parses, and the second event's
 *    description is the same string; a deep copy describes the same too.
 *  - the same text as a template (dpa_event_template_new; '?' for one
 *    value): a refusal has a status and a message; an accepted one has a
 *    named hole whose start lies in its range, builds at its start, and at
 *    the ends of its range either builds or is refused with a message.
 * Everything is freed, so libFuzzer's leak detection sees any leak of the
 * parser's failure paths.
 */
#include "dpacct.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Texts longer than this say nothing new about the parser (the nesting
 * limit, DPA_MAX_EVENT_DEPTH, is reached well within it) and only slow the
 * fuzzer. */
#define MAX_TEXT (64 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_template(const char *text, size_t size)
{
    dpa_error err = { 0 };
    dpa_event_template *t = dpa_event_template_new(text, size, &err);
    if (!t) {
        if (err.status != DPA_EINVAL && err.status != DPA_ENOMEM && err.status != DPA_EIO) abort();
        if (!memchr(err.message, '\0', sizeof err.message) || err.message[0] == '\0') abort();
        return;
    }
    dpa_event_hole h;
    if (dpa_event_template_hole(t, &h, &err) != DPA_OK || !h.name) abort();
    if (!(h.limit_lo <= h.start && h.start <= h.limit_hi)) abort();
    const double at[3] = { h.start, h.limit_lo, h.limit_hi };
    for (int i = 0; i < 3; i++) {
        dpa_error e2 = { 0 };
        dpa_event *e = dpa_event_template_family(at[i], t, &e2);
        if (!e && (i == 0 ? e2.status != DPA_ENOMEM : e2.message[0] == '\0')) abort();
        dpa_event_free(e);
    }
    dpa_event_template_free(t);
}

static void check_refusal(const dpa_event *e, const dpa_error *err)
{
    if (e) abort();
    if (err->status != DPA_EINVAL && err->status != DPA_ENOMEM) abort();
    if (!memchr(err->message, '\0', sizeof err->message) || err->message[0] == '\0') abort();
    if (err->status == DPA_EINVAL && strncmp(err->message, "event text", 10) != 0 &&
        !strstr(err->message, "position"))
        abort();
}

/* The description of e in a buffer sized by a first call (the caller frees
 * it); NULL only when out of memory. */
static char *describe(const dpa_event *e)
{
    size_t n = dpa_event_describe(e, NULL, 0);
    if (n == 0) abort(); /* every event has a kind name */
    char *text = malloc(n + 1);
    if (!text) return NULL;
    /* the same length the second time, written in full and terminated */
    if (dpa_event_describe(e, text, n + 1) != n || strlen(text) != n) abort();
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_TEXT) size = MAX_TEXT;
    /* one allocation of exactly the input (plus a terminator), so that
     * ASan sees any read past the text's end */
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    check_template(text, size);
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_parse(text, &err);
    free(text);
    if (!e) {
        check_refusal(e, &err);
        return 0;
    }
    if (err.status != DPA_OK) abort(); /* a success leaves err alone */

    char *first = describe(e);
    dpa_error err2 = { 0 };
    dpa_event *back = first ? dpa_event_parse(first, &err2) : NULL;
    if (first && !back && err2.status != DPA_ENOMEM) abort(); /* its own description is refused */
    char *second = back ? describe(back) : NULL;
    if (first && second && strcmp(first, second) != 0) abort(); /* not an exact round trip */

    dpa_error err3 = { 0 };
    dpa_event *copy = dpa_event_copy(e, &err3);
    if (!copy && err3.status != DPA_ENOMEM) abort();
    char *third = copy ? describe(copy) : NULL;
    if (first && third && strcmp(first, third) != 0) abort(); /* the copy differs */

    free(first);
    free(second);
    free(third);
    dpa_event_free(copy);
    dpa_event_free(back);
    dpa_event_free(e);
    return 0;
}
