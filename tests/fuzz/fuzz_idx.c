/*
 * fuzz_idx.c - libFuzzer target for dpt_load_idx (trainers/data/load_idx.c).
 * The input holds both files: a 4-byte big-endian length L, then L bytes of
 * the image file (L cut to what is there), then the label file.  Either may
 * be plain or gzip-compressed (zlib reads both).
 */
#include "dptrain.h"
#include "fuzz_util.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    size_t len = (size_t)data[0] << 24 | (size_t)data[1] << 16 | (size_t)data[2] << 8 | data[3];
    data += 4;
    size -= 4;
    if (len > size) len = size;
    const char *images = fuzz_file(0, data, len);
    const char *labels = fuzz_file(1, data + len, size - len);
    dpt_dataset ds;
    dpa_error err = { 0 };
    int st = dpt_load_idx(images, labels, &ds, &err);
    if (st == DPA_OK) {
        if (ds.n == 0 || ds.d == 0 || !ds.x || !ds.y) abort();
        /* pixels / 255 in [0, 1], labels 0..9 */
        for (size_t i = 0; i < ds.n * ds.d; i++)
            if (!(ds.x[i] >= 0.0 && ds.x[i] <= 1.0)) abort();
        for (size_t i = 0; i < ds.n; i++)
            if (!(ds.y[i] >= 0.0 && ds.y[i] <= 9.0 && ds.y[i] == (double)(int)ds.y[i])) abort();
    } else if (st > 0 || err.message[0] == '\0') {
        abort();
    }
    dpt_dataset_free(&ds);
    return 0;
}
