/*
 * cli_format.h - printing numbers for the dpacct command: an upper bound is
 * never printed below its value nor a lower bound above it.
 */
#ifndef DPACCT_CLI_FORMAT_H
#define DPACCT_CLI_FORMAT_H

#include "dpacct.h"

#include <stdio.h>

/* Room for one formatted double ("%.17g" of a negative denormal is 24). */
#define NUMBER_SIZE 40

/* 10 significant digits, rounded to nearest, for a value that is not a
 * bound (an argument echoed back); "inf", "nan". */
const char *fmt_plain(double x, char *buf);

/* The one rule for every value the dpacct command prints from a bound (text
 * tables, CSV and JSON alike): upper bounds rounded up, lower bounds down,
 * +inf as "inf" (in JSON the string "inf": JSON has no infinity), a value
 * the method does not have (a lower bound it lacks, an order it did not use)
 * as "-" / an empty field / null.  A NaN is never printed: format_value and
 * format_bound return -1 for it, and the caller reports an internal error
 * (exit status 1). */
typedef enum { STYLE_TEXT, STYLE_CSV, STYLE_JSON } value_style;
typedef enum { ROLE_UPPER, ROLE_LOWER, ROLE_PLAIN } value_role;
int format_value(double x, value_role role, value_style style, char *buf);
const char *format_absent(value_style style);
typedef struct bound_text {
    char upper[NUMBER_SIZE], lower[NUMBER_SIZE], estimate[NUMBER_SIZE], order[NUMBER_SIZE];
} bound_text;
int format_bound(const dpa_bound *b, value_style style, bound_text *out);
/* The line for a NaN that reached the output. */
#define NAN_OUTPUT_MESSAGE "internal error: a bound with no value (NaN) reached the output; please report this bug"

/* JSON: a quoted, escaped string. */
void json_string(FILE *out, const char *s);
/* CSV: a field quoted per RFC 4180 when needed. */
void csv_field(FILE *out, const char *s);

/* "add-remove" or "replace-one". */
const char *relation_name(dpa_relation r);

#endif
