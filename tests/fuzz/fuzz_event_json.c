/*
 * fuzz_event_json.c - libFuzzer target for dpa_event_from_json
 * (lib/event_json.c): the input bytes are the JSON document (with its
 * length: no terminator needed, embedded NULs included).
 *
 * Checked, with abort() on a violation so that libFuzzer reports it:
 *  - a refusal is NULL with DPA_EINVAL or DPA_ENOMEM and a non-empty,
 *    terminated message; an EINVAL one says where ("event JSON, line L,
 *    column C" or "event JSON, at $...");
 *  - an accepted event round-trips exactly: its JSON (indented and on one
 *    line) reads back to an event whose JSON is the same string, and its
 *    text (dpa_event_describe) parses to an event with the same text.
 * Everything is freed, so leak detection covers the failure paths.
 */
#include "dpacct.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_JSON (64 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_refusal(const dpa_error *err)
{
    if (err->status != DPA_EINVAL && err->status != DPA_ENOMEM) abort();
    if (!memchr(err->message, '\0', sizeof err->message) || err->message[0] == '\0') abort();
    if (err->status == DPA_EINVAL && strncmp(err->message, "event JSON", 10) != 0) abort();
}

/* e's JSON read back must write the same JSON. */
static void json_round_trip(const dpa_event *e, int indent)
{
    dpa_error err = { 0 };
    char *first = dpa_event_to_json(e, indent, &err);
    if (!first) {
        if (err.status != DPA_ENOMEM) abort();
        return;
    }
    dpa_event *back = dpa_event_from_json(first, strlen(first), &err);
    if (!back && err.status != DPA_ENOMEM) abort();   /* its own JSON is refused */
    char *second = back ? dpa_event_to_json(back, indent, &err) : NULL;
    if (second && strcmp(first, second) != 0) abort();
    free(second);
    dpa_event_free(back);
    free(first);
}

static void text_round_trip(const dpa_event *e)
{
    size_t n = dpa_event_describe(e, NULL, 0);
    char *first = malloc(n + 1), *second = NULL;
    if (!first) return;
    dpa_event_describe(e, first, n + 1);
    dpa_error err = { 0 };
    dpa_event *back = dpa_event_parse(first, &err);
    if (!back && err.status != DPA_ENOMEM) abort();
    if (back) {
        size_t m = dpa_event_describe(back, NULL, 0);
        second = malloc(m + 1);
        if (second) {
            dpa_event_describe(back, second, m + 1);
            if (strcmp(first, second) != 0) abort();
        }
    }
    free(second);
    dpa_event_free(back);
    free(first);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_JSON) size = MAX_JSON;
    /* exactly the input, so that ASan sees a read past its end */
    char *json = malloc(size ? size : 1);
    if (!json) return 0;
    memcpy(json, data, size);
    dpa_error err = { 0 };
    dpa_event *e = dpa_event_from_json(json, size, &err);
    free(json);
    if (!e) {
        check_refusal(&err);
        return 0;
    }
    if (err.status != DPA_OK) abort();
    json_round_trip(e, 0);
    json_round_trip(e, 2);
    text_round_trip(e);
    dpa_event_free(e);
    return 0;
}
