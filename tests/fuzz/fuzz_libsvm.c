/*
 * fuzz_libsvm.c - libFuzzer target for dpt_load_libsvm
 * (trainers/data/load_libsvm.c).  The input is the file; a first line "d:N" is
 * taken off and passed as the dimension (else 0: the largest index).
 */
#include "dptrain.h"
#include "fuzz_util.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dim[32];
    size_t d = 0;
    if (fuzz_take_option("d:", &data, &size, dim, sizeof dim)) d = (size_t)strtoull(dim, NULL, 10);
    const char *path = fuzz_file(0, data, size);
    dpt_dataset ds;
    dpa_error err = { 0 };
    int st = dpt_load_libsvm(path, d, &ds, &err);
    if (st == DPA_OK) {
        if (ds.n == 0 || ds.d == 0 || !ds.x || !ds.y || (d && ds.d != d)) abort();
        fuzz_touch(ds.x, ds.n * ds.d);
        fuzz_touch(ds.y, ds.n);
    } else if (st > 0 || err.message[0] == '\0') {
        abort();
    }
    dpt_dataset_free(&ds);
    return 0;
}
