/*
 * cli_toolkit.h - the command-line toolkit that the dpacct and dptrain
 * commands share (libdpcli, a convenience library: never installed, never
 * part of libdpacct's or libdptrain's ABI).  It includes only the public
 * dpacct.h.
 *
 *   messages   one line on stderr, "PROGRAM: ...", user input escaped;
 *              usage errors return exit status 2
 *   parsing    reals in an interval, counts in a range, choices, lists,
 *              --format, each error naming its option
 *   options    option tables (name, metavar, help) read with getopt_long
 *              one option at a time, with the errors worded once
 *   output     bounds rounded against the user (upper up, lower down) in
 *              text, CSV and JSON; CSV fields escaped; JSON documents
 *              built with jansson, numbers printed as formatted
 *   progress   the progress bar on stderr, and a monotonic clock
 */
#ifndef DPACCT_CLI_TOOLKIT_H
#define DPACCT_CLI_TOOLKIT_H

#include "dpacct.h"

#include <getopt.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The exit statuses both commands use. */
enum { CLI_EXIT_OK = 0, CLI_EXIT_LIBRARY = 1, CLI_EXIT_USAGE = 2 };

/* ---- messages ---------------------------------------------------------------- */

/* The program name that starts every message ("dpacct", "dptrain"); set
 * once at the start of main. */
void cli_set_program(const char *name);
const char *cli_program(void);

/* "PROGRAM: " and the message on stderr, as exactly one line: a control
 * byte that reaches it (from text the caller did not escape) is shown as
 * '?'.  Long messages are cut. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli_error, then CLI_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The library's message for a failure (without a leading "PROGRAM: " that
 * some messages carry, escaped if it holds a control byte), or a sentence
 * naming the status when the failure left none: never an empty line. */
void cli_library_error(const dpa_error *err);
/* The same about an option's value: "PROGRAM: OPTION: " and the message,
 * without its own `prefix` (e.g. "synthetic: ") when it starts with it. */
void cli_option_error(const char *option, const char *prefix, const dpa_error *err);

/* Room for user input echoed in a message (cut with "..."). */
enum { CLI_SHOWN_SIZE = 64 };
/* `text` escaped for a message (dpa_escape) into buf. */
const char *cli_shown(const char *text, char *buf, size_t size);
/* "--NAME: expected EXPECTED, got 'TEXT'"; returns CLI_EXIT_USAGE. */
int cli_bad_value(const char *name, const char *expected, const char *text);

/* ---- parsing values ------------------------------------------------------------
 * Each returns 0 with *out set, or prints one usage line naming --name and
 * returns CLI_EXIT_USAGE.  The whole text must be the value: leading
 * blanks, a trailing "x", "nan" and "inf" are refused. */

/* A finite real in the interval from lo to hi, each end open or closed
 * ("expected a number in (0, 1]"). */
int cli_parse_real(const char *name, const char *text, double lo, int lo_open, double hi, int hi_open, double *out);
/* A whole number in [lo, hi], decimal digits only (no sign). */
int cli_parse_count(const char *name, const char *text, uint64_t lo, uint64_t hi, uint64_t *out);
/* The index of `text` in the NULL-terminated `choices`. */
int cli_parse_choice(const char *name, const char *text, const char *const *choices, int *out);
/* A comma-separated list of at most `max` reals, each in the interval;
 * *n receives their count. */
int cli_parse_real_list(const char *name, const char *text, double lo, int lo_open, double hi, int hi_open,
                        double *out, size_t max, size_t *n);

/* --format: table, json, and csv when allow_csv. */
typedef enum { CLI_FORMAT_TABLE, CLI_FORMAT_JSON, CLI_FORMAT_CSV } cli_format;
int cli_parse_format(const char *text, int allow_csv, cli_format *out);

/* ---- option tables -------------------------------------------------------------- */

/* One long option.  A table is indexed by the command's own option ids
 * (designated initialisers); a slot with a NULL name is unused.  -h and
 * --help are always accepted and need no entry. */
typedef struct cli_option {
    const char *name;    /* without the leading "--" */
    const char *metavar; /* the value's name in the help; NULL: takes no value */
    const char *help;    /* one line for generated help; NULL: the command writes its help itself */
} cli_option;

enum { CLI_MAX_OPTIONS = 96 };

/* A pass over argv[1..] (argv[0] is the command or subcommand name). */
typedef struct cli_parser {
    const cli_option *table;
    size_t n;
    const char *command;       /* for "see 'COMMAND --help'", e.g. "dpacct epsilon" */
    int refuse_repeats;        /* an option given twice is a usage error (else the last wins) */
    unsigned char seen[CLI_MAX_OPTIONS];
    struct option longs[CLI_MAX_OPTIONS + 2];
    int started, done;
} cli_parser;

/* What cli_next_option returns besides an option's id. */
enum { CLI_OPT_END = -1, CLI_OPT_ERROR = -2, CLI_OPT_HELP = -3 };

/* Prepare a pass over a table of n <= CLI_MAX_OPTIONS options. */
void cli_parser_init(cli_parser *p, const cli_option *table, size_t n, const char *command, int refuse_repeats);
/* The next option's id (its index in the table), its value in *value
 * (NULL for a flag); CLI_OPT_HELP for -h/--help; CLI_OPT_END when argv is
 * used up; CLI_OPT_ERROR after a usage line (an unknown option, a missing
 * or unexpected value, a repeat, a stray argument). */
int cli_next_option(cli_parser *p, int argc, char **argv, const char **value);
/* Whether option `id` has been seen in this pass. */
int cli_option_seen(const cli_parser *p, int id);
/* "  --name METAVAR          help" (help_override replaces the table's help). */
void cli_print_option(FILE *out, const cli_option *o, const char *help_override);

/* ---- output of bounds ---------------------------------------------------------- */

/* Room for one formatted number ("%.17g" of a negative denormal is 24). */
enum { CLI_NUMBER_SIZE = 40 };

typedef enum { CLI_STYLE_TEXT, CLI_STYLE_CSV, CLI_STYLE_JSON } cli_style;
typedef enum { CLI_ROLE_UPPER, CLI_ROLE_LOWER, CLI_ROLE_PLAIN } cli_role;

/* The one rule for every value the commands print from a bound: 10
 * significant digits, upper bounds rounded up and lower bounds down (never
 * to nearest), +inf as "inf" (in JSON the string "inf": JSON has no
 * infinity).  A NaN is never printed: cli_format_value writes the absent
 * spelling and returns -1, and the caller reports an internal error. */
int cli_format_value(double x, cli_role role, cli_style style, char *buf);
/* 10 significant digits, rounded to nearest: a value that is no bound. */
const char *cli_format_plain(double x, char *buf);
/* What stands for a value a method does not have: "-", an empty CSV field, null. */
const char *cli_format_absent(cli_style style);
/* The style that goes with an output format. */
cli_style cli_style_of(cli_format format);

/* A bound's four fields through the rule (lower absent with DPA_NO_LOWER,
 * order absent when 0); -1 when any is NaN. */
typedef struct cli_bound_text {
    char upper[CLI_NUMBER_SIZE], lower[CLI_NUMBER_SIZE], estimate[CLI_NUMBER_SIZE], order[CLI_NUMBER_SIZE];
} cli_bound_text;
int cli_format_bound(const dpa_bound *b, cli_style style, cli_bound_text *out);

/* The line for a NaN that reached the output. */
#define CLI_NAN_OUTPUT_MESSAGE \
    "internal error: a bound with no value (NaN) reached the output; please report this bug"

/* ---- JSON documents ----------------------------------------------------------------
 * Every JSON document the commands print is a jansson tree (docs/json.md)
 * printed by cli_json_print.  Numbers keep the decimal cli_format_value
 * wrote: cli_json_number turns that text into a node, and cli_json_print
 * writes every real back as that same decimal (jansson alone would write
 * 17 digits, or a precision shared by every real of the document, and
 * round to nearest, which could put an upper bound below its value). */

/* A node for text written by cli_format_value in CLI_STYLE_JSON (or by
 * cli_format_absent), or a whole number ("%" PRIu64): null, the string
 * "inf"/"-inf", an integer, or a real that cli_json_print writes back as
 * exactly `text`.  NULL on a text that is no
 * such number, or without memory. */
json_t *cli_json_number(const char *text);
/* cli_format_value(x, role, CLI_STYLE_JSON) as a node; NULL for a NaN. */
json_t *cli_json_value(double x, cli_role role);
/* A JSON string of `s`: jansson escapes it; a string that is not valid
 * UTF-8 is escaped first by dpa_escape (bytes as \xNN), so that no field
 * is lost.  NULL only without memory. */
json_t *cli_json_text(const char *s);
/* Print `doc` (indented by 2, keys in insertion order, a final newline)
 * and release it; -1 when doc is NULL (a node failed to build) or the
 * dump fails, with nothing printed. */
int cli_json_print(FILE *out, json_t *doc);
/* The decimal cli_json_print writes for a real of value x: the 10-digit
 * form when it reads back as x, else the 17-digit one (what
 * cli_format_value wrote when x came from cli_json_number). */
const char *cli_json_real_text(double x, char *buf);

/* A CSV field, quoted per RFC 4180 when it holds a separator, a quote or a
 * line break. */
void cli_csv_field(FILE *out, const char *s);

/* ---- progress and time ----------------------------------------------------------- */

/* Milliseconds on the monotonic clock (for the times reported, never for
 * a result). */
double cli_now_ms(void);
/* A progress bar on stderr: "[####    ] done/total steps  t s", a newline
 * when done == total.  ctx points to a cli_progress started by
 * cli_progress_start. */
typedef struct cli_progress {
    double start_ms;
    const char *unit;          /* "steps" */
} cli_progress;
void cli_progress_start(cli_progress *p, const char *unit);
void cli_progress_bar(void *ctx, uint64_t done, uint64_t total);

#endif
