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

/* 10 significant digits, rounded up / down / to nearest; "inf", "nan". */
const char *fmt_upper(double x, char *buf);
const char *fmt_lower(double x, char *buf);
const char *fmt_plain(double x, char *buf);

/* JSON: a quoted, escaped string; a formatted number (inf as "inf", nan as null). */
void json_string(FILE *out, const char *s);
void json_number(FILE *out, const char *formatted);
/* CSV: a field quoted per RFC 4180 when needed; a formatted number (nan: empty). */
void csv_field(FILE *out, const char *s);
const char *csv_number(const char *formatted);

/* "add-remove" or "replace-one". */
const char *relation_name(dpa_relation r);

#endif
