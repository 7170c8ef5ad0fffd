/*
 * fuzz_csv.c - libFuzzer target for dpt_load_csv (trainers/data/load_csv.c).
 * The input is the file; a first line "target:NAME" is taken off and passed
 * as the target column (else NULL: the last column).
 */
#include "dptrain.h"
#include "fuzz_util.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char target[64];
    int have_target = fuzz_take_option("target:", &data, &size, target, sizeof target);
    const char *path = fuzz_file(0, data, size);
    dpt_dataset ds;
    dpa_error err = { 0 };
    int st = dpt_load_csv(path, have_target ? target : NULL, &ds, &err);
    if (st == DPA_OK) {
        /* a dataset holds n >= 1 examples of d >= 1 features */
        if (ds.n == 0 || ds.d == 0 || !ds.x || !ds.y) abort();
        fuzz_touch(ds.x, ds.n * ds.d);
        fuzz_touch(ds.y, ds.n);
    } else if (st > 0 || err.message[0] == '\0') {
        abort(); /* a failure is a negative status with a message */
    }
    dpt_dataset_free(&ds);
    return 0;
}
