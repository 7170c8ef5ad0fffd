/*
 * cli_report.h - one accountant's answer for one mechanism, as the dpacct
 * command runs and prints it.
 */
#ifndef DPACCT_CLI_REPORT_H
#define DPACCT_CLI_REPORT_H

#include "cli_toolkit.h"
#include "dpacct.h"

#include <stddef.h>

/* What a result reports: epsilon at a given delta, or delta at a given epsilon. */
typedef enum { QUERY_EPSILON, QUERY_DELTA } query_kind;
typedef struct query_spec {
    query_kind kind;
    double at; /* the delta (or epsilon) it is reported at */
    double failure_delta; /* an additive failure term (dpa_accountant_add_failure); 0: none */
} query_spec;

/* One accountant's answer for one mechanism. */
typedef struct result {
    const char *method;
    int supported;                       /* supports() accepted the mechanism */
    int failed;                          /* supported, but compose or query failed */
    char reason[DPA_ERROR_MESSAGE_SIZE]; /* why unsupported, or why it failed */
    dpa_bound bound;
    double time_ms;
    double tolerance;                    /* the width asked (--eps-error, or pld's default) */
    /* --require-width and the width was not met (DPA_EACCURACY): the bound
     * is still a valid bracket and is printed (has_value), but the command
     * fails with `reason` */
    int width_failed;
} result;

/* pld's default width (dpa_options.tolerance 0), for the notes. */
#define CLI_DEFAULT_EPS_ERROR 1e-3

/* "add-remove" or "replace-one". */
const char *relation_name(dpa_relation r);
/* What a noise multiplier (--sigma) is measured against under r, in words. */
const char *noise_unit(dpa_relation r);

/* "epsilon" / "delta": what the query reports, and what it is given. */
const char *reported_name(const query_spec *qs);
const char *given_name(const query_spec *qs);

/* Run `method` on `e`: check support, then time composing and querying. */
void run_accountant(const char *method, const dpa_options *opt, const dpa_event *e,
                    const query_spec *qs, result *r);
int has_value(const result *r);
int is_approximate(const result *r);
/* "width 1.6e-2 of upper, 1e-3 asked" for a bound flagged DPA_WIDTH_NOT_MET
 * (tolerance: the width asked); "" otherwise.  Returns buf. */
const char *width_note(const dpa_bound *b, double tolerance, char *buf, size_t size);

/* Print n results (single: one accountant's bound; else the compare table).
 * Returns -1, having printed nothing, when a bound holds a NaN (the caller
 * reports CLI_NAN_OUTPUT_MESSAGE and exits 1); -2, having printed a
 * message and no output, when the JSON document could not be built. */
int print_results(cli_format format, dpa_relation relation, const char *mech,
                  const query_spec *qs, const result *rows, size_t n, int single);

#endif
