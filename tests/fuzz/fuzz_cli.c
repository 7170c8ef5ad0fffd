/*
 * fuzz_cli.c - libFuzzer target for the dpacct command line parser
 * (parse_command_line, accountants/cli/cli_args.c): the input, split on NUL
 * bytes and newlines, is argv[1..]; parsing only, no query is run.
 */
#include "cli/cli_args.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* --help and --version print to stdout; usage errors go to stderr
     * (run with -close_fd_mask=2 to silence them). */
    if (!freopen("/dev/null", "w", stdout)) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* one allocation of exactly the input (plus a terminator), so that
     * ASan sees any read past an argument's end */
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "dpacct";
    char *p = text, *end = text + size;
    while (argc <= MAX_ARGS) {
        argv[argc++] = p;
        while (p < end && *p != '\0' && *p != '\n') p++;
        if (p >= end) break;
        *p++ = '\0';
    }
    argv[argc] = NULL;

    static cli c;
    static mechanism m;
    command_id cmd;
    int st = parse_command_line(argc, argv, &cmd, &c, &m);
    if (st != CLI_EXIT_OK && st != CLI_EXIT_USAGE) abort();
    if (st == CLI_EXIT_OK && cmd != CMD_NONE) {
        /* an accepted mechanism is one the library can be asked about */
        if (!(m.q > 0.0 && m.q <= 1.0) || m.steps == 0) abort();
    }
    free(text);
    return 0;
}
