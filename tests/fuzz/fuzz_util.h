/*
 * fuzz_util.h - helpers shared by the libFuzzer targets in tests/fuzz/:
 * the loaders read files by path, so a fuzz input is written to a
 * per-process temporary file first.
 */
#ifndef DPACCT_FUZZ_UTIL_H
#define DPACCT_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* A file (in memory where the system allows, else a temporary file
 * removed at exit; made on first use) named by `slot`
 * (0 or 1), holding exactly size bytes of data; returns its path, or
 * aborts when the file cannot be written (a harness failure, not a
 * finding). */
const char *fuzz_file(int slot, const uint8_t *data, size_t size);

/* When the input starts with a line "KEY:VALUE\n" (KEY given with its
 * colon), copies VALUE (NUL-terminated, at most size - 1 bytes) into buf,
 * advances *data and *size past the line and returns 1; else 0. */
int fuzz_take_option(const char *key, const uint8_t **data, size_t *size, char *buf, size_t buf_size);

/* Read every byte of [p, p + n): a wrong size reaches ASan here. */
double fuzz_touch(const double *p, size_t n);

#endif
