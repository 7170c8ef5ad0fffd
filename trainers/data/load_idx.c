/*
 * load_idx.c - IDX files (the MNIST / Fashion-MNIST format of LeCun et al.):
 * a 4-byte big-endian magic number 0x000008NN (unsigned bytes, NN
 * dimensions), NN big-endian 32-bit sizes, then the data.  Images are
 * 0x00000803 (count, rows, cols), labels 0x00000801 (count).  Both files are
 * read through zlib, which reads gzip-compressed and plain files alike.
 *
 * Besides the magic numbers, the sizes and truncation, the loader rejects
 * data after the declared end of a file (a sign that the header does not
 * describe the file) and labels above 9: the format carries class labels
 * 0..9 for these datasets, and a larger byte means a wrong or corrupted
 * file.
 */
#include <config.h>

#include "dpt_internal.h"

#include <zlib.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Two paths may appear in one message (the count mismatch). */
#define PATH_KEEP 90
#define CHUNK 65536u

#define IDX_IMAGES_MAGIC 0x00000803u
#define IDX_LABELS_MAGIC 0x00000801u

typedef struct idx_file {
    gzFile f;
    const char *path;
    char name[PATH_KEEP + 1]; /* path shortened, for messages */
} idx_file;

/* zlib's error text for the file, or NULL when it reports none; without
 * the "PATH: " that zlib puts in front (the messages name the file). */
static const char *zlib_reason(const idx_file *file, int *errnum)
{
    *errnum = Z_OK;
    const char *why = gzerror(file->f, errnum);
    if (*errnum == Z_OK || !why) return NULL;
    if (*errnum == Z_ERRNO) return dpt_strerror(errno);
    size_t len = strlen(file->path);
    if (strncmp(why, file->path, len) == 0 && why[len] == ':') {
        why += len + 1;
        while (*why == ' ') why++;
    }
    return why;
}

static int idx_open(idx_file *file, const char *path, dpa_error *err)
{
    file->path = path;
    dpt_short_path(path, PATH_KEEP, file->name, sizeof file->name);
    errno = 0;
    file->f = gzopen(path, "rb");
    if (!file->f)
        return dpt_fail(err, errno ? DPA_EINVAL : DPA_ENOMEM, "%s: cannot open: %s", file->name,
                        errno ? dpt_strerror(errno) : "out of memory");
    gzbuffer(file->f, 1u << 17);
    return DPA_OK;
}

/* Reads up to len bytes; *got receives how many were read.  A status when
 * zlib reports an error (a corrupted compressed stream, a read error). */
static int idx_read(idx_file *file, unsigned char *buf, size_t len, size_t *got, dpa_error *err)
{
    *got = 0;
    while (*got < len) {
        size_t want = len - *got;
        if (want > (size_t)INT_MAX) want = (size_t)INT_MAX;
        int r = gzread(file->f, buf + *got, (unsigned)want);
        if (r < 0) {
            int errnum;
            const char *why = zlib_reason(file, &errnum);
            return dpt_fail(err, errnum == Z_MEM_ERROR ? DPA_ENOMEM : DPA_EINVAL,
                            "%s: read error: %s", file->name, why ? why : "unknown zlib error");
        }
        if (r == 0) break;
        *got += (size_t)r;
    }
    return DPA_OK;
}

/* Reads exactly len bytes of `what`, or fails saying the file is truncated. */
static int idx_read_exact(idx_file *file, unsigned char *buf, size_t len, const char *what,
                          dpa_error *err)
{
    size_t got;
    int status = idx_read(file, buf, len, &got, err);
    if (status != DPA_OK) return status;
    if (got < len) {
        int errnum;
        const char *why = zlib_reason(file, &errnum);
        return dpt_fail(err, DPA_EINVAL, "%s: truncated: %s ended after %zu of %zu bytes%s%s",
                        file->name, what, got, len, why ? "; zlib: " : "", why ? why : "");
    }
    return DPA_OK;
}

static int idx_expect_end(idx_file *file, const char *what, dpa_error *err)
{
    unsigned char extra;
    size_t got;
    int status = idx_read(file, &extra, 1, &got, err);
    if (status != DPA_OK) return status;
    if (got)
        return dpt_fail(err, DPA_EINVAL, "%s: data after the declared %s (wrong header?)",
                        file->name, what);
    return DPA_OK;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Reads the magic number and the sizes of a header with `ndims` sizes. */
static int idx_header(idx_file *file, uint32_t magic, const char *kind, uint32_t *sizes,
                      unsigned ndims, dpa_error *err)
{
    unsigned char head[16];
    /* the magic number first: a wrong file is named as such, even when it
     * is shorter than the header expected */
    int status = idx_read_exact(file, head, 4, "the magic number", err);
    if (status != DPA_OK) return status;
    uint32_t got = be32(head);
    if (got != magic)
        return dpt_fail(err, DPA_EINVAL,
                        "%s: bad magic number 0x%08x, expected 0x%08x (IDX %s)", file->name,
                        (unsigned)got, (unsigned)magic, kind);
    status = idx_read_exact(file, head + 4, 4 * (size_t)ndims, "the header", err);
    if (status != DPA_OK) return status;
    for (unsigned k = 0; k < ndims; k++) {
        sizes[k] = be32(head + 4 + 4 * k);
        if (sizes[k] == 0)
            return dpt_fail(err, DPA_EINVAL, "%s: dimension %u of the header is 0", file->name,
                            k + 1);
    }
    return DPA_OK;
}

/* A plain (uncompressed) regular file shorter than its header declares
 * (`header` bytes and `data` more) is refused before anything of the
 * declared size is allocated; for a compressed file the read finds it. */
static int idx_check_length(idx_file *file, uint64_t header, uint64_t data, const char *what, dpa_error *err)
{
    struct stat sb;
    if (!gzdirect(file->f) || stat(file->path, &sb) != 0 || !S_ISREG(sb.st_mode)) return DPA_OK;
    uint64_t have = sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
    if (have >= header + data) return DPA_OK;
    return dpt_fail(err, DPA_EINVAL, "%s: truncated: the header declares %" PRIu64 " bytes of %s, the file holds %"
                    PRIu64, file->name, data, what, have > header ? have - header : 0);
}

static int load(idx_file *img, idx_file *lab, dpt_dataset *out, dpa_error *err, uint64_t max_bytes)
{
    uint32_t isz[3], lsz[1];
    int status = idx_header(img, IDX_IMAGES_MAGIC, "images: unsigned bytes, 3 dimensions", isz, 3,
                            err);
    if (status != DPA_OK) return status;
    status = idx_header(lab, IDX_LABELS_MAGIC, "labels: unsigned bytes, 1 dimension", lsz, 1, err);
    if (status != DPA_OK) return status;
    if (isz[0] != lsz[0])
        return dpt_fail(err, DPA_EINVAL, "count mismatch: %s holds %u images but %s holds %u labels",
                        img->name, (unsigned)isz[0], lab->name, (unsigned)lsz[0]);
    size_t n = isz[0];
    /* rows * cols < 2^64: no overflow in size_t on 64-bit; checked for 32-bit. */
    if ((size_t)isz[1] > SIZE_MAX / (size_t)isz[2])
        return dpt_fail(err, DPA_EINVAL, "%s: images of %u x %u pixels are too large", img->name,
                        (unsigned)isz[1], (unsigned)isz[2]);
    size_t d = (size_t)isz[1] * isz[2];
    char who[PATH_KEEP + 80];
    snprintf(who, sizeof who, "%s: %zu images of %u x %u pixels", img->name, n, (unsigned)isz[1], (unsigned)isz[2]);
    if ((status = dpt_check_data_size(n, d, max_bytes, who, err)) != DPA_OK) return status;
    /* n d doubles fit in size_t, so n d bytes do */
    if ((status = idx_check_length(img, 16, (uint64_t)n * d, "pixels", err)) != DPA_OK) return status;
    if ((status = idx_check_length(lab, 8, n, "labels", err)) != DPA_OK) return status;
    status = dpt_dataset_alloc(out, n, d, err);
    if (status != DPA_OK) return status;

    unsigned char *buf = malloc(CHUNK);
    if (!buf) {
        dpt_dataset_free(out);
        return dpt_fail(err, DPA_ENOMEM, "%s: out of memory", img->name);
    }
    /* The pixels, a chunk at a time (n * d may be tens of megabytes). */
    size_t total = n * d;
    for (size_t done = 0; done < total && status == DPA_OK;) {
        size_t len = total - done < CHUNK ? total - done : CHUNK;
        size_t got;
        status = idx_read(img, buf, len, &got, err);
        if (status == DPA_OK && got < len) {
            int errnum;
            const char *why = zlib_reason(img, &errnum);
            status = dpt_fail(err, DPA_EINVAL,
                              "%s: truncated: the pixels end after %zu of %zu bytes "
                              "(%zu whole images of %zu)%s%s",
                              img->name, done + got, total, (done + got) / d, n,
                              why ? "; zlib: " : "", why ? why : "");
        }
        if (status == DPA_OK) {
            for (size_t k = 0; k < len; k++) out->x[done + k] = (double)buf[k] / 255.0;
            done += len;
        }
    }
    if (status == DPA_OK) status = idx_expect_end(img, "images", err);
    for (size_t done = 0; done < n && status == DPA_OK;) {
        size_t len = n - done < CHUNK ? n - done : CHUNK;
        size_t got;
        status = idx_read(lab, buf, len, &got, err);
        if (status == DPA_OK && got < len) {
            int errnum;
            const char *why = zlib_reason(lab, &errnum);
            status = dpt_fail(err, DPA_EINVAL, "%s: truncated: the labels end after %zu of %zu%s%s",
                              lab->name, done + got, n, why ? "; zlib: " : "",
                              why ? why : "");
        }
        for (size_t k = 0; k < len && status == DPA_OK; k++) {
            if (buf[k] > 9)
                status = dpt_fail(err, DPA_EINVAL, "%s: label %u of example %zu is not in 0..9",
                                  lab->name, (unsigned)buf[k], done + k + 1);
            else
                out->y[done + k] = (double)buf[k];
        }
        done += len;
    }
    if (status == DPA_OK) status = idx_expect_end(lab, "labels", err);
    free(buf);
    if (status != DPA_OK) dpt_dataset_free(out);
    return status;
}

int dpt_load_idx_max(const char *images, const char *labels, uint64_t max_bytes, dpt_dataset *out, dpa_error *err)
{
    if (!out) return dpt_fail(err, DPA_EINVAL, "load_idx: NULL output dataset");
    memset(out, 0, sizeof *out);
    if (!images || !labels) return dpt_fail(err, DPA_EINVAL, "load_idx: NULL path");
    idx_file img, lab;
    int status = idx_open(&img, images, err);
    if (status != DPA_OK) return status;
    status = idx_open(&lab, labels, err);
    if (status != DPA_OK) {
        gzclose(img.f);
        return status;
    }
    status = load(&img, &lab, out, err, max_bytes);
    gzclose(img.f);
    gzclose(lab.f);
    return status;
}

int dpt_load_idx(const char *images, const char *labels, dpt_dataset *out, dpa_error *err)
{
    return dpt_load_idx_max(images, labels, 0, out, err);
}
