/*
 * cli_statement.h - `dpacct statement`: the privacy statement of a DP-SGD
 * run, in words (or JSON), with the numbers `dpacct compare` prints.
 */
#ifndef DPACCT_CLI_STATEMENT_H
#define DPACCT_CLI_STATEMENT_H

#include "cli_args.h"
#include "cli_report.h"

/* Prints the statement; 0, or -1 when out of memory or a value is NaN
 * (nothing printed). */
int cmd_statement(const cli *c, const mechanism *m);

#endif
