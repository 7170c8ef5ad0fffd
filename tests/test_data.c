/*
 * test_data.c - libdptrain's data layer: the CSV, libsvm and IDX loaders
 * (values and error messages, with the files written here), the seeded
 * split, standardisation, target scaling and the synthetic ReLU data; the
 * limit on the dense data and the escaping of echoed input in messages.
 * Expected values are written down by hand or computed from the defining
 * formulas, never taken from an earlier run of the code.
 */
#include <config.h>

#include "dptrain.h"
#include "testutil.h"

#include <check.h>
#include <zlib.h>

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One scratch directory for the whole run, made and removed by the parent
 * (an unchecked fixture); the forked tests write their files into it. */
static char scratch[256];

static void scratch_setup(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/dpt-test-data-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch)) {
        perror("mkdtemp");
        exit(1);
    }
}

static void scratch_teardown(void)
{
    DIR *dir = opendir(scratch);
    if (!dir) return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", scratch, e->d_name);
        unlink(path);
    }
    closedir(dir);
    rmdir(scratch);
}

/* The path of `name` in the scratch directory, in static storage that
 * stays valid for the next 63 calls (a test uses fewer). */
static const char *path_of(const char *name)
{
    static char buf[64][512];
    static unsigned next;
    char *p = buf[next++ % 64];
    snprintf(p, 512, "%s/%s", scratch, name);
    return p;
}

static const char *write_bytes(const char *name, const void *data, size_t len)
{
    const char *p = path_of(name);
    FILE *f = fopen(p, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", p);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    fclose(f);
    return p;
}

static const char *write_text(const char *name, const char *text)
{
    return write_bytes(name, text, strlen(text));
}

static const char *write_gz(const char *name, const void *data, size_t len)
{
    const char *p = path_of(name);
    gzFile f = gzopen(p, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", p);
    ck_assert_int_eq(gzwrite(f, data, (unsigned)len), (int)len);
    ck_assert_int_eq(gzclose(f), Z_OK);
    return p;
}

/* The message names the file, and contains each of the given fragments. */
#define ASSERT_MESSAGE(err, file, ...)                                                      \
    do {                                                                                    \
        const char *frags_[] = { __VA_ARGS__ };                                             \
        ck_assert_msg(strstr((err).message, (file)) != NULL, "'%s' does not name %s",       \
                      (err).message, (file));                                               \
        for (size_t k_ = 0; k_ < sizeof frags_ / sizeof frags_[0]; k_++)                    \
            ck_assert_msg(strstr((err).message, frags_[k_]) != NULL,                        \
                          "'%s' does not contain '%s'", (err).message, frags_[k_]);         \
    } while (0)

static void assert_zeroed(const dpt_dataset *ds)
{
    ck_assert_uint_eq(ds->n, 0);
    ck_assert_uint_eq(ds->d, 0);
    ck_assert_ptr_null(ds->x);
    ck_assert_ptr_null(ds->y);
}

/* ---- allocation ---------------------------------------------------------- */

START_TEST(alloc_and_free)
{
    dpt_dataset ds;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_dataset_alloc(&ds, 3, 4, &err), DPA_OK);
    ck_assert_uint_eq(ds.n, 3);
    ck_assert_uint_eq(ds.d, 4);
    for (size_t i = 0; i < 12; i++) ck_assert(ds.x[i] == 0.0);
    for (size_t i = 0; i < 3; i++) ck_assert(ds.y[i] == 0.0);
    dpt_dataset_free(&ds);
    assert_zeroed(&ds);
    dpt_dataset_free(&ds); /* safe on a zeroed struct */
    dpt_dataset_free(NULL);

    ck_assert_int_eq(dpt_dataset_alloc(&ds, 0, 4, &err), DPA_EINVAL);
    assert_zeroed(&ds);
    ck_assert_int_eq(dpt_dataset_alloc(&ds, 4, 0, &err), DPA_EINVAL);
    ck_assert_int_eq(dpt_dataset_alloc(&ds, SIZE_MAX / 2, 3, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "overflow"));
    ck_assert_int_eq(dpt_dataset_alloc(&ds, SIZE_MAX / 16, 4, NULL), DPA_EINVAL);
    assert_zeroed(&ds);
}
END_TEST

/* ---- CSV ------------------------------------------------------------------- */

START_TEST(csv_reads_values)
{
    const char *p = write_text("good.csv", "a,b,y,c\n"
                                           "1,2.5,3,-4\n"
                                           " 0.5 , -6 ,7e1,\"8\"\n"
                                           "\n"
                                           "0.25,1e-3,-0,100\n");
    dpt_dataset ds;
    dpa_error err = { 0 };

    /* default: the last column */
    ck_assert_int_eq(dpt_load_csv(p, NULL, &ds, &err), DPA_OK);
    ck_assert_uint_eq(ds.n, 3);
    ck_assert_uint_eq(ds.d, 3);
    const double x_last[] = { 1, 2.5, 3, 0.5, -6, 70, 0.25, 0.001, 0 };
    const double y_last[] = { -4, 8, 100 };
    for (size_t i = 0; i < 9; i++) ck_assert_double_eq(ds.x[i], x_last[i]);
    for (size_t i = 0; i < 3; i++) ck_assert_double_eq(ds.y[i], y_last[i]);
    dpt_dataset_free(&ds);

    /* by name */
    ck_assert_int_eq(dpt_load_csv(p, "y", &ds, &err), DPA_OK);
    const double x_y[] = { 1, 2.5, -4, 0.5, -6, 8, 0.25, 0.001, 100 };
    const double y_y[] = { 3, 70, 0 };
    ck_assert_uint_eq(ds.n, 3);
    ck_assert_uint_eq(ds.d, 3);
    for (size_t i = 0; i < 9; i++) ck_assert_double_eq(ds.x[i], x_y[i]);
    for (size_t i = 0; i < 3; i++) ck_assert_double_eq(ds.y[i], y_y[i]);
    dpt_dataset_free(&ds);

    /* by 1-based number: column 2 is b */
    ck_assert_int_eq(dpt_load_csv(p, "2", &ds, &err), DPA_OK);
    const double x_b[] = { 1, 3, -4, 0.5, 70, 8, 0.25, 0, 100 };
    const double y_b[] = { 2.5, -6, 0.001 };
    for (size_t i = 0; i < 9; i++) ck_assert_double_eq(ds.x[i], x_b[i]);
    for (size_t i = 0; i < 3; i++) ck_assert_double_eq(ds.y[i], y_b[i]);
    dpt_dataset_free(&ds);
    ck_assert_int_eq(dpt_load_csv(p, "1", &ds, &err), DPA_OK);
    ck_assert_double_eq(ds.y[0], 1);
    ck_assert_double_eq(ds.x[0], 2.5);
    dpt_dataset_free(&ds);

    /* CRLF line endings, no final newline */
    p = write_text("crlf.csv", "u,v\r\n1,2\r\n3,4");
    ck_assert_int_eq(dpt_load_csv(p, "u", &ds, &err), DPA_OK);
    ck_assert_uint_eq(ds.n, 2);
    ck_assert_uint_eq(ds.d, 1);
    ck_assert_double_eq(ds.x[0], 2);
    ck_assert_double_eq(ds.x[1], 4);
    ck_assert_double_eq(ds.y[0], 1);
    ck_assert_double_eq(ds.y[1], 3);
    dpt_dataset_free(&ds);
}
END_TEST

/* Loads `text` as CSV and expects DPA_EINVAL with the file name and the
 * fragments in the message, and a zeroed dataset. */
static void csv_rejects(const char *name, const char *text, const char *target, const char *frag1,
                        const char *frag2)
{
    const char *p = write_text(name, text);
    dpt_dataset ds;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_load_csv(p, target, &ds, &err), DPA_EINVAL);
    ck_assert_int_eq(err.status, DPA_EINVAL);
    ASSERT_MESSAGE(err, name, frag1, frag2);
    assert_zeroed(&ds);
}

START_TEST(csv_errors)
{
    csv_rejects("count.csv", "a,b,y\n1,2,3\n1,2\n4,5,6\n", NULL, "count.csv:3:",
                "expected 3 fields, got 2");
    csv_rejects("count2.csv", "a,b,y\n1,2,3,4\n", NULL, "count2.csv:2:", "expected 3 fields, got 4");
    csv_rejects("abc.csv", "a,b,y\n1,abc,3\n", NULL, "abc.csv:2:", "field 2 ('abc') is not a number");
    csv_rejects("nan.csv", "a,b,y\n1,2,3\n\n4,5,nan\n", NULL, "nan.csv:4:",
                "field 3 ('nan') is not a");
    csv_rejects("inf.csv", "a,b,y\n1,2,3\ninf,5,6\n", NULL, "inf.csv:3:", "field 1 ('inf') is not a");
    csv_rejects("minf.csv", "a,b,y\n-Infinity,5,6\n", NULL, "minf.csv:2:", "field 1 ('-Infinity')");
    csv_rejects("huge.csv", "a,b,y\n1e999,5,6\n", NULL, "huge.csv:2:", "field 1 ('1e999') is not a");
    csv_rejects("empty_field.csv", "a,b,y\n1,,3\n", NULL, "empty_field.csv:2:",
                "field 2 ('') is not a number");
    csv_rejects("garbage.csv", "a,b,y\n1,2,3\n1.5x,2,3\n", NULL, "garbage.csv:3:",
                "field 1 ('1.5x') is not a number");
    csv_rejects("space_in.csv", "a,b,y\n1,2 3,3\n", NULL, "space_in.csv:2:", "field 2 ('2 3')");
    csv_rejects("target.csv", "a,b,y\n1,2,3\n", "zz", "target.csv:1:", "'zz'");
    csv_rejects("target2.csv", "a,b,y\n1,2,3\n", "zz", "unknown target", "target2.csv");
    csv_rejects("target_num.csv", "a,b,y\n1,2,3\n", "4", "target_num.csv:1:", "out of range 1..3");
    csv_rejects("target_zero.csv", "a,b,y\n1,2,3\n", "0", "target_zero.csv:1:", "out of range");
    csv_rejects("dup.csv", "a,y,y\n1,2,3\n", "y", "dup.csv:1:", "more than once");
    csv_rejects("empty.csv", "", NULL, "empty.csv:1:", "empty file");
    csv_rejects("blank.csv", "\n  \n\n", NULL, "blank.csv:3:", "no header line");
    csv_rejects("header_only.csv", "a,b,y\n", NULL, "header_only.csv:1:", "no data rows");
    csv_rejects("header_only2.csv", "a,b,y\n\n\n", NULL, "header_only2.csv", "no data rows");
    csv_rejects("one_col.csv", "y\n1\n", NULL, "one_col.csv:1:", "at least 2");

    /* a missing file: the name and the system's reason */
    dpt_dataset ds;
    dpa_error err = { 0 };
    const char *p = path_of("no-such-file.csv");
    ck_assert_int_eq(dpt_load_csv(p, NULL, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, "no-such-file.csv", "cannot open", strerror(ENOENT));
    assert_zeroed(&ds);
    /* err may be NULL */
    ck_assert_int_eq(dpt_load_csv(p, NULL, &ds, NULL), DPA_EINVAL);
    ck_assert_int_eq(dpt_load_csv(NULL, NULL, &ds, &err), DPA_EINVAL);
}
END_TEST

/* ---- libsvm ---------------------------------------------------------------- */

START_TEST(libsvm_reads_values)
{
    const char *p = write_text("good.svm", "1 1:0.5 3:2\n"
                                           "-1 2:-1.5\n"
                                           "# a comment line\n"
                                           "\n"
                                           "0.25\n"
                                           "+2 qid:3 4:1   # trailing comment\n");
    dpt_dataset ds;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_load_libsvm(p, 0, &ds, &err), DPA_OK);
    ck_assert_uint_eq(ds.n, 4);
    ck_assert_uint_eq(ds.d, 4);
    const double x[] = { 0.5, 0, 2, 0, /**/ 0, -1.5, 0, 0, /**/ 0, 0, 0, 0, /**/ 0, 0, 0, 1 };
    const double y[] = { 1, -1, 0.25, 2 };
    for (size_t i = 0; i < 16; i++) ck_assert_double_eq(ds.x[i], x[i]);
    for (size_t i = 0; i < 4; i++) ck_assert_double_eq(ds.y[i], y[i]);
    dpt_dataset_free(&ds);

    /* a given d wider than the largest index */
    ck_assert_int_eq(dpt_load_libsvm(p, 6, &ds, &err), DPA_OK);
    ck_assert_uint_eq(ds.n, 4);
    ck_assert_uint_eq(ds.d, 6);
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 6; j++)
            ck_assert_double_eq(ds.x[i * 6 + j], j < 4 ? x[i * 4 + j] : 0.0);
    dpt_dataset_free(&ds);
    /* d equal to the largest index is fine */
    ck_assert_int_eq(dpt_load_libsvm(p, 4, &ds, &err), DPA_OK);
    dpt_dataset_free(&ds);
}
END_TEST

static void libsvm_rejects(const char *name, const char *text, size_t d, const char *frag1,
                           const char *frag2)
{
    const char *p = write_text(name, text);
    dpt_dataset ds;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_load_libsvm(p, d, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, name, frag1, frag2);
    assert_zeroed(&ds);
}

START_TEST(libsvm_errors)
{
    libsvm_rejects("order.svm", "1 1:1\n1 3:1 2:1\n", 0, "order.svm:2:",
                   "index 2 is not greater than the previous index 3");
    libsvm_rejects("repeat.svm", "1 1:1\n\n1 2:1 2:5\n", 0, "repeat.svm:3:",
                   "index 2 is not greater than the previous index 2");
    libsvm_rejects("zero.svm", "1 0:1\n", 0, "zero.svm:1:", "index 0");
    libsvm_rejects("above.svm", "1 1:1\n1 2:1 4:1\n", 3, "above.svm:2:", "index 4 exceeds");
    libsvm_rejects("token.svm", "1 1:1\n-1 abc\n", 0, "token.svm:2:", "malformed token 'abc'");
    libsvm_rejects("token2.svm", "1 3\n", 0, "token2.svm:1:", "malformed token '3'");
    libsvm_rejects("token3.svm", "1 :3\n", 0, "token3.svm:1:", "malformed token ':3'");
    libsvm_rejects("token4.svm", "1 2:x\n", 0, "token4.svm:1:", "malformed token '2:x'");
    libsvm_rejects("token5.svm", "1 2:1.5x\n", 0, "token5.svm:1:", "'2:1.5x'");
    libsvm_rejects("token6.svm", "1 -2:1\n", 0, "token6.svm:1:", "malformed token '-2:1'");
    libsvm_rejects("token7.svm", "1 2:nan\n", 0, "token7.svm:1:", "'2:nan'");
    libsvm_rejects("label.svm", "1 1:1\n# c\nx 1:2\n", 0, "label.svm:3:", "bad label");
    libsvm_rejects("label2.svm", "nan 1:2\n", 0, "label2.svm:1:", "bad label");
    libsvm_rejects("label3.svm", "1:2 3:4\n", 0, "label3.svm:1:", "bad label");
    libsvm_rejects("empty.svm", "", 0, "empty.svm", "no examples");
    libsvm_rejects("comments.svm", "# only\n\n", 5, "comments.svm", "no examples");
    libsvm_rejects("nofeat.svm", "1\n2\n", 0, "nofeat.svm", "no feature");
    dpt_dataset ds;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_load_libsvm(path_of("missing.svm"), 0, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, "missing.svm", strerror(ENOENT));
    /* labels only are fine when d is given */
    const char *p = write_text("labels_only.svm", "1\n2\n");
    ck_assert_int_eq(dpt_load_libsvm(p, 2, &ds, &err), DPA_OK);
    ck_assert_uint_eq(ds.n, 2);
    ck_assert_uint_eq(ds.d, 2);
    ck_assert_double_eq(ds.y[1], 2);
    dpt_dataset_free(&ds);
}
END_TEST

/* ---- IDX --------------------------------------------------------------------- */

/* 3 images of 2 x 2 pixels, labels 7, 0, 9. */
static const unsigned char pixels[12] = { 0, 255, 128, 1, 17, 34, 51, 68, 200, 100, 50, 25 };
static const unsigned char label_bytes[3] = { 7, 0, 9 };

static size_t images_file(unsigned char *buf, uint32_t magic, uint32_t n, uint32_t rows,
                          uint32_t cols, size_t npix)
{
    const uint32_t head[4] = { magic, n, rows, cols };
    for (int k = 0; k < 4; k++)
        for (int b = 0; b < 4; b++) buf[4 * k + b] = (unsigned char)(head[k] >> (24 - 8 * b));
    memcpy(buf + 16, pixels, npix);
    return 16 + npix;
}

static size_t labels_file(unsigned char *buf, uint32_t magic, uint32_t n, const unsigned char *lab,
                          size_t nlab)
{
    const uint32_t head[2] = { magic, n };
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < 4; b++) buf[4 * k + b] = (unsigned char)(head[k] >> (24 - 8 * b));
    memcpy(buf + 8, lab, nlab);
    return 8 + nlab;
}

static void assert_tiny_idx(const dpt_dataset *ds)
{
    ck_assert_uint_eq(ds->n, 3);
    ck_assert_uint_eq(ds->d, 4);
    for (size_t k = 0; k < 12; k++) ck_assert_double_eq(ds->x[k], pixels[k] / 255.0);
    ck_assert_double_eq(ds->x[0], 0.0);
    ck_assert_double_eq(ds->x[1], 1.0);
    for (size_t i = 0; i < 3; i++) ck_assert_double_eq(ds->y[i], label_bytes[i]);
}

START_TEST(idx_reads_plain_and_gzip)
{
    unsigned char img[64], lab[32];
    size_t ni = images_file(img, 0x00000803u, 3, 2, 2, 12);
    size_t nl = labels_file(lab, 0x00000801u, 3, label_bytes, 3);
    const char *pi = write_bytes("images.idx", img, ni);
    const char *pl = write_bytes("labels.idx", lab, nl);
    dpt_dataset ds;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_load_idx(pi, pl, &ds, &err), DPA_OK);
    assert_tiny_idx(&ds);
    dpt_dataset_free(&ds);

    const char *gi = write_gz("images.idx.gz", img, ni);
    const char *gl = write_gz("labels.idx.gz", lab, nl);
    /* the compressed file really is compressed (gzip magic 1f 8b) */
    FILE *f = fopen(gi, "rb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fgetc(f), 0x1f);
    ck_assert_int_eq(fgetc(f), 0x8b);
    fclose(f);
    ck_assert_int_eq(dpt_load_idx(gi, gl, &ds, &err), DPA_OK);
    assert_tiny_idx(&ds);
    dpt_dataset_free(&ds);
    /* mixed */
    ck_assert_int_eq(dpt_load_idx(pi, gl, &ds, &err), DPA_OK);
    assert_tiny_idx(&ds);
    dpt_dataset_free(&ds);
}
END_TEST

static void idx_rejects(const char *images, const char *labels, const char *name, const char *frag)
{
    dpt_dataset ds;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_load_idx(images, labels, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, name, frag);
    assert_zeroed(&ds);
}

START_TEST(idx_errors)
{
    unsigned char img[64], lab[32], buf[64];
    size_t ni = images_file(img, 0x00000803u, 3, 2, 2, 12);
    size_t nl = labels_file(lab, 0x00000801u, 3, label_bytes, 3);
    const char *pi = write_bytes("e-images.idx", img, ni);
    const char *pl = write_bytes("e-labels.idx", lab, nl);

    /* magic numbers: the files swapped, a 0x0802 file */
    idx_rejects(pl, pi, "e-labels.idx", "bad magic number 0x00000801, expected 0x00000803");
    idx_rejects(pi, pi, "e-images.idx", "bad magic number 0x00000803, expected 0x00000801");
    size_t len = images_file(buf, 0x00000802u, 3, 2, 2, 12);
    idx_rejects(write_bytes("magic.idx", buf, len), pl, "magic.idx", "bad magic number 0x00000802");

    /* count mismatch: 2 labels for 3 images */
    len = labels_file(buf, 0x00000801u, 2, label_bytes, 2);
    const char *p2 = write_bytes("two-labels.idx", buf, len);
    idx_rejects(pi, p2, "two-labels.idx", "count mismatch");
    idx_rejects(pi, p2, "e-images.idx", "3 images");

    /* truncated pixels, plain and compressed; truncated header; labels */
    idx_rejects(write_bytes("trunc.idx", img, ni - 1), pl, "trunc.idx", "truncated");
    idx_rejects(write_gz("trunc.idx.gz", img, ni - 5), pl, "trunc.idx.gz", "truncated");
    idx_rejects(write_bytes("head.idx", img, 10), pl, "head.idx", "truncated");
    idx_rejects(write_bytes("empty.idx", img, 0), pl, "empty.idx", "truncated");
    idx_rejects(pi, write_gz("trunc-l.idx.gz", lab, nl - 1), "trunc-l.idx.gz", "truncated");
    /* a compressed stream cut short */
    const char *gz = write_gz("whole.idx.gz", img, ni);
    FILE *f = fopen(gz, "rb");
    ck_assert_ptr_nonnull(f);
    unsigned char comp[256];
    size_t clen = fread(comp, 1, sizeof comp, f);
    fclose(f);
    ck_assert_uint_gt(clen, 20);
    idx_rejects(write_bytes("cut.idx.gz", comp, clen - 10), pl, "cut.idx.gz", "truncated");
    /* a corrupted CRC-32 in the gzip trailer: zlib's check fails */
    comp[clen - 8] ^= 0xff;
    idx_rejects(write_bytes("crc.idx.gz", comp, clen), pl, "crc.idx.gz", "incorrect data check");

    /* more data than the header declares */
    memcpy(buf, img, ni);
    buf[ni] = 3;
    idx_rejects(write_bytes("long.idx", buf, ni + 1), pl, "long.idx", "data after");
    /* a zero dimension */
    len = images_file(buf, 0x00000803u, 3, 0, 2, 12);
    idx_rejects(write_bytes("zero-dim.idx", buf, len), pl, "zero-dim.idx", "is 0");
    /* labels above 9 are rejected (the format's class labels are 0..9) */
    const unsigned char bad_lab[3] = { 1, 10, 2 };
    len = labels_file(buf, 0x00000801u, 3, bad_lab, 3);
    idx_rejects(pi, write_bytes("ten.idx", buf, len), "ten.idx", "label 10 of example 2");
    /* missing files */
    idx_rejects(path_of("nope-images.idx"), pl, "nope-images.idx", strerror(ENOENT));
    idx_rejects(pi, path_of("nope-labels.idx"), "nope-labels.idx", strerror(ENOENT));
}
END_TEST

/* Fashion-MNIST's test set, when the Debian package dataset-fashion-mnist
 * (or DPT_FASHION_MNIST_DIR) provides it: 10,000 images of 28 x 28 pixels,
 * 1,000 of each of the 10 classes (Xiao, Rasul & Vollgraf 2017). */
START_TEST(fashion_mnist_test_set)
{
    const char *dir = getenv("DPT_FASHION_MNIST_DIR");
    if (!dir || !*dir) dir = "/usr/share/datasets/fashion-mnist";
    char images[512], labels[512];
    snprintf(images, sizeof images, "%s/t10k-images-idx3-ubyte.gz", dir);
    snprintf(labels, sizeof labels, "%s/t10k-labels-idx1-ubyte.gz", dir);
    if (access(images, R_OK) != 0 || access(labels, R_OK) != 0) {
        printf("test_data: Fashion-MNIST not found in %s (apt-get install dataset-fashion-mnist);"
               " skipped\n", dir);
        return;
    }
    dpt_dataset ds;
    dpa_error err = { 0 };
    ck_assert_msg(dpt_load_idx(images, labels, &ds, &err) == DPA_OK, "%s", err.message);
    ck_assert_uint_eq(ds.n, 10000);
    ck_assert_uint_eq(ds.d, 784);
    /* (plain loops and one assertion each: Check records every passing
     * assertion, which is slow over millions of values) */
    size_t count[10] = { 0 }, bad = 0;
    for (size_t i = 0; i < ds.n; i++) {
        double y = ds.y[i];
        if (y >= 0 && y <= 9 && y == floor(y))
            count[(size_t)y]++;
        else
            bad++;
    }
    ck_assert_uint_eq(bad, 0);
    for (size_t c = 0; c < 10; c++) ck_assert_uint_eq(count[c], 1000);
    /* every x is some byte / 255, and both ends of [0, 1] occur */
    double lo = 1, hi = 0;
    for (size_t k = 0; k < ds.n * ds.d; k++) {
        if (ds.x[k] < lo) lo = ds.x[k];
        if (ds.x[k] > hi) hi = ds.x[k];
        if (ds.x[k] != floor(ds.x[k] * 255.0 + 0.5) / 255.0) bad++;
    }
    ck_assert_uint_eq(bad, 0);
    ck_assert_double_eq(lo, 0.0);
    ck_assert_double_eq(hi, 1.0);
    dpt_dataset_free(&ds);
}
END_TEST

/* ---- split ------------------------------------------------------------------- */

/* n rows: x = (i, -i), y = i: the target identifies the row. */
static void numbered(dpt_dataset *ds, size_t n)
{
    ck_assert_int_eq(dpt_dataset_alloc(ds, n, 2, NULL), DPA_OK);
    for (size_t i = 0; i < n; i++) {
        ds->x[2 * i] = (double)i;
        ds->x[2 * i + 1] = -(double)i;
        ds->y[i] = (double)i;
    }
}

/* Every row of `all` occurs exactly once in train and test together, with
 * its features. */
static void assert_partition(size_t n, const dpt_dataset *train, const dpt_dataset *test)
{
    ck_assert_uint_eq(train->n + test->n, n);
    int *seen = calloc(n, sizeof *seen);
    ck_assert_ptr_nonnull(seen);
    for (int part = 0; part < 2; part++) {
        const dpt_dataset *ds = part ? test : train;
        for (size_t i = 0; i < ds->n; i++) {
            double id = ds->y[i];
            ck_assert(id >= 0 && id < (double)n && id == floor(id));
            ck_assert_double_eq(ds->x[2 * i], id);
            ck_assert_double_eq(ds->x[2 * i + 1], -id);
            seen[(size_t)id]++;
        }
    }
    for (size_t i = 0; i < n; i++) ck_assert_int_eq(seen[i], 1);
    free(seen);
}

static int same_data(const dpt_dataset *a, const dpt_dataset *b)
{
    return a->n == b->n && a->d == b->d && memcmp(a->x, b->x, a->n * a->d * sizeof(double)) == 0 &&
           memcmp(a->y, b->y, a->n * sizeof(double)) == 0;
}

START_TEST(split_partitions_reproducibly)
{
    dpt_dataset all, tr1, te1, tr2, te2, tr3, te3;
    dpa_error err = { 0 };
    numbered(&all, 50);
    ck_assert_int_eq(dpt_split(&all, 0.2, 42, &tr1, &te1, &err), DPA_OK);
    ck_assert_uint_eq(te1.n, 10);
    ck_assert_uint_eq(tr1.n, 40);
    ck_assert_uint_eq(tr1.d, 2);
    assert_partition(50, &tr1, &te1);
    ck_assert_int_eq(dpt_split(&all, 0.2, 42, &tr2, &te2, &err), DPA_OK);
    ck_assert(same_data(&tr1, &tr2) && same_data(&te1, &te2));
    ck_assert_int_eq(dpt_split(&all, 0.2, 43, &tr3, &te3, &err), DPA_OK);
    assert_partition(50, &tr3, &te3);
    ck_assert(!same_data(&te1, &te3));
    /* the rows are shuffled, not taken in order */
    int in_order = 1;
    for (size_t i = 0; i < te1.n; i++) in_order &= te1.y[i] == (double)i;
    ck_assert(!in_order);
    dpt_dataset_free(&tr1);
    dpt_dataset_free(&te1);
    dpt_dataset_free(&tr2);
    dpt_dataset_free(&te2);
    dpt_dataset_free(&tr3);
    dpt_dataset_free(&te3);
    dpt_dataset_free(&all);
}
END_TEST

START_TEST(split_sizes_and_refusals)
{
    dpt_dataset all, tr, te;
    dpa_error err = { 0 };
    numbered(&all, 10);
    /* round(f * n): 2.5 -> 3 (halves up), 3.4 -> 3, 3.6 -> 4, 0.5 -> 1 */
    const double f[] = { 0.25, 0.34, 0.36, 0.05, 0.9 };
    const size_t expect[] = { 3, 3, 4, 1, 9 };
    for (size_t k = 0; k < 5; k++) {
        ck_assert_int_eq(dpt_split(&all, f[k], 7, &tr, &te, &err), DPA_OK);
        ck_assert_uint_eq(te.n, expect[k]);
        ck_assert_uint_eq(tr.n, 10 - expect[k]);
        assert_partition(10, &tr, &te);
        dpt_dataset_free(&tr);
        dpt_dataset_free(&te);
    }
    /* fraction 0: everything to train (permuted), test zeroed */
    ck_assert_int_eq(dpt_split(&all, 0.0, 7, &tr, &te, &err), DPA_OK);
    ck_assert_uint_eq(tr.n, 10);
    assert_zeroed(&te);
    assert_partition(10, &tr, &te);
    dpt_dataset_free(&tr);

    const double bad[] = { -0.1, 1.0, 1.5, NAN, INFINITY, -0.0 - 1e-300 };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_int_eq(dpt_split(&all, bad[k], 7, &tr, &te, &err), DPA_EINVAL);
        ck_assert_ptr_nonnull(strstr(err.message, "test_fraction"));
        assert_zeroed(&tr);
        assert_zeroed(&te);
    }
    /* a fraction that leaves one side empty */
    ck_assert_int_eq(dpt_split(&all, 0.01, 7, &tr, &te, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "test set empty"));
    ck_assert_int_eq(dpt_split(&all, 0.99, 7, &tr, &te, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "training set empty"));
    dpt_dataset empty = { 0 };
    ck_assert_int_eq(dpt_split(&empty, 0.5, 7, &tr, &te, &err), DPA_EINVAL);
    dpt_dataset_free(&all);
}
END_TEST

/* ---- standardisation ----------------------------------------------------------- */

START_TEST(standardize_by_hand)
{
    /* train: 4 rows; column 0 = 1,2,3,4 (mean 2.5, population variance
     * 1.25); column 1 constant 7; column 2 = 0.5, 1, 3.5, -15 (mean -2.5,
     * deviations 3, 3.5, 6, -12.5: variance (9 + 12.25 + 36 + 156.25) / 4
     * = 53.375).  test: one row (5, 9, 1). */
    const double xt[] = { 1, 7, 0.5, 2, 7, 1, 3, 7, 3.5, 4, 7, -15 };
    dpt_dataset train, test;
    ck_assert_int_eq(dpt_dataset_alloc(&train, 4, 3, NULL), DPA_OK);
    ck_assert_int_eq(dpt_dataset_alloc(&test, 1, 3, NULL), DPA_OK);
    memcpy(train.x, xt, sizeof xt);
    test.x[0] = 5;
    test.x[1] = 9;
    test.x[2] = 1;
    dpt_standardize(&train, &test);
    const double s0 = sqrt(1.25), s2 = sqrt(53.375);
    const double expect_train[] = { -1.5 / s0, 0, 3 / s2, -0.5 / s0, 0, 3.5 / s2,
                                    0.5 / s0,  0, 6 / s2, 1.5 / s0,  0, -12.5 / s2 };
    for (size_t k = 0; k < 12; k++) ck_assert_double_eq_tol(train.x[k], expect_train[k], 1e-14);
    for (size_t i = 0; i < 4; i++) ck_assert_double_eq(train.x[3 * i + 1], 0.0);
    ck_assert_double_eq_tol(test.x[0], 2.5 / s0, 1e-14);
    ck_assert_double_eq(test.x[1], 2.0); /* constant: centred only */
    ck_assert_double_eq_tol(test.x[2], 3.5 / s2, 1e-14);
    /* targets untouched */
    for (size_t i = 0; i < 4; i++) ck_assert_double_eq(train.y[i], 0.0);
    dpt_dataset_free(&train);
    dpt_dataset_free(&test);

    /* a constant feature whose mean does not round back to the value */
    ck_assert_int_eq(dpt_dataset_alloc(&train, 3, 1, NULL), DPA_OK);
    for (size_t i = 0; i < 3; i++) train.x[i] = 0.1;
    dpt_standardize(&train, NULL);
    for (size_t i = 0; i < 3; i++) ck_assert_double_eq(train.x[i], 0.0);
    dpt_dataset_free(&train);
    dpt_standardize(&train, NULL); /* an empty dataset: nothing to do */
}
END_TEST

START_TEST(standardize_moments)
{
    /* 300 columns (several blocks) of different location and scale */
    const size_t n = 997, d = 300;
    dpt_dataset train, test;
    ck_assert_int_eq(dpt_dataset_alloc(&train, n, d, NULL), DPA_OK);
    ck_assert_int_eq(dpt_dataset_alloc(&test, 5, d, NULL), DPA_OK);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) {
            double u = sin(0.37 * (double)(i * d + j)) + 0.25 * cos(1.3 * (double)i);
            train.x[i * d + j] = (j % 7 == 3) ? 4.0 : 1e3 * (double)(j % 5) + (1.0 + (double)j) * u;
        }
    for (size_t k = 0; k < 5 * d; k++) test.x[k] = (double)k;
    /* the statistics by hand (long double), for the test set */
    long double *mean = calloc(d, sizeof *mean), *var = calloc(d, sizeof *var);
    ck_assert(mean && var);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) mean[j] += train.x[i * d + j];
    for (size_t j = 0; j < d; j++) mean[j] /= (long double)n;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) {
            long double dev = train.x[i * d + j] - mean[j];
            var[j] += dev * dev;
        }
    dpt_standardize(&train, &test);
    for (size_t j = 0; j < d; j++) {
        double m = 0, v = 0;
        for (size_t i = 0; i < n; i++) m += train.x[i * d + j];
        m /= (double)n;
        for (size_t i = 0; i < n; i++) v += (train.x[i * d + j] - m) * (train.x[i * d + j] - m);
        v /= (double)n;
        ck_assert_msg(fabs(m) < 1e-12, "column %zu mean %g", j, m);
        if (j % 7 == 3) {
            for (size_t i = 0; i < n; i++) ck_assert_double_eq(train.x[i * d + j], 0.0);
            for (size_t i = 0; i < 5; i++)
                ck_assert_double_eq(test.x[i * d + j], (double)(i * d + j) - 4.0);
            continue;
        }
        ck_assert_msg(fabs(sqrt(v) - 1.0) < 1e-12, "column %zu std %.17g", j, sqrt(v));
        double sd = sqrt((double)(var[j] / (long double)n));
        for (size_t i = 0; i < 5; i++) {
            double expect = ((double)(i * d + j) - (double)mean[j]) / sd;
            ck_assert_double_eq_tol(test.x[i * d + j], expect, 1e-12 * fmax(1.0, fabs(expect)));
        }
    }
    free(mean);
    free(var);
    dpt_dataset_free(&train);
    dpt_dataset_free(&test);
}
END_TEST

/* ---- target scaling ------------------------------------------------------------ */

START_TEST(scale_target_by_hand)
{
    dpt_dataset train, test;
    ck_assert_int_eq(dpt_dataset_alloc(&train, 3, 1, NULL), DPA_OK);
    ck_assert_int_eq(dpt_dataset_alloc(&test, 2, 1, NULL), DPA_OK);
    const double ytr[] = { 1, -5, 2 }, yte[] = { 4, -3 };
    memcpy(train.y, ytr, sizeof ytr);
    memcpy(test.y, yte, sizeof yte);
    ck_assert_double_eq(dpt_scale_target(&train, &test), 5.0);
    ck_assert_double_eq(train.y[0], 0.2);
    ck_assert_double_eq(train.y[1], -1.0);
    ck_assert_double_eq(train.y[2], 0.4);
    ck_assert_double_eq(test.y[0], 0.8);
    ck_assert_double_eq(test.y[1], -0.6);
    /* the largest |y| in the test set */
    train.y[0] = 1;
    train.y[1] = 2;
    train.y[2] = -1;
    test.y[0] = -8;
    test.y[1] = 0;
    ck_assert_double_eq(dpt_scale_target(&train, &test), 8.0);
    ck_assert_double_eq(test.y[0], -1.0);
    ck_assert_double_eq(train.y[1], 0.25);
    /* test NULL */
    train.y[0] = 0.5;
    train.y[1] = -2.5;
    train.y[2] = 1.25;
    ck_assert_double_eq(dpt_scale_target(&train, NULL), 2.5);
    ck_assert_double_eq(train.y[0], 0.2);
    ck_assert_double_eq(train.y[1], -1.0);
    ck_assert_double_eq(train.y[2], 0.5);
    /* all zero: scale 1, nothing changes */
    memset(train.y, 0, 3 * sizeof(double));
    memset(test.y, 0, 2 * sizeof(double));
    ck_assert_double_eq(dpt_scale_target(&train, &test), 1.0);
    ck_assert_double_eq(train.y[1], 0.0);
    dpt_dataset_free(&train);
    dpt_dataset_free(&test);
}
END_TEST

/* ---- synthetic ----------------------------------------------------------------- */

static double lambda_of(const dpt_synthetic_spec *s, size_t j /* 1-based */)
{
    return s->spectrum == DPT_SPECTRUM_POLY ? pow((double)j, -s->decay) : exp(-s->decay * (double)j);
}

static void check_rademacher_relu(dpt_spectrum spectrum, double decay)
{
    dpt_synthetic_spec s;
    dpt_synthetic_defaults(&s);
    s.n = 200;
    s.d = 37;
    s.spectrum = spectrum;
    s.decay = decay;
    s.zeta = DPT_ZETA_RADEMACHER;
    s.noise = 0.0;
    s.wstar_norm = 2.5;
    s.seed = 11;
    dpt_dataset ds;
    dpa_error err = { 0 };
    double w[37];
    ck_assert_msg(dpt_synthetic(&s, &ds, w, &err) == DPA_OK, "%s", err.message);
    ck_assert_uint_eq(ds.n, 200);
    ck_assert_uint_eq(ds.d, 37);
    size_t positive = 0, bad_root = 0, bad_square = 0, bad_y = 0;
    for (size_t i = 0; i < ds.n; i++) {
        double dot = 0;
        for (size_t j = 0; j < ds.d; j++) {
            double x = ds.x[i * ds.d + j], lambda = lambda_of(&s, j + 1);
            /* x = +-sqrt(lambda): |x| is the correctly rounded root, and
             * x^2 is lambda up to the rounding of that root */
            if (fabs(x) != sqrt(lambda)) bad_root++;
            if (!(fabs(x * x - lambda) <= 4 * DBL_EPSILON * lambda)) bad_square++;
            if (x > 0) positive++;
            dot += x * w[j];
        }
        if (ds.y[i] != (dot > 0 ? dot : 0.0)) bad_y++;
    }
    ck_assert_uint_eq(bad_root, 0);
    ck_assert_uint_eq(bad_square, 0);
    ck_assert_uint_eq(bad_y, 0);
    /* the signs are balanced: 7400 fair coins, 5 standard deviations */
    ck_assert(fabs((double)positive - 3700.0) < 5 * sqrt(7400 * 0.25));
    double norm2 = 0;
    for (size_t j = 0; j < 37; j++) norm2 += w[j] * w[j];
    ck_assert_double_eq_tol(sqrt(norm2), 2.5, 1e-12);
    dpt_dataset_free(&ds);
}

START_TEST(synthetic_rademacher_exact)
{
    check_rademacher_relu(DPT_SPECTRUM_POLY, 2.0);
    check_rademacher_relu(DPT_SPECTRUM_POLY, 1.3);
    check_rademacher_relu(DPT_SPECTRUM_EXP, 0.25);
}
END_TEST

START_TEST(synthetic_reproducible_and_noisy)
{
    dpt_synthetic_spec s;
    dpt_synthetic_defaults(&s);
    s.n = 4000;
    s.d = 8;
    s.zeta = DPT_ZETA_GAUSSIAN;
    s.spectrum = DPT_SPECTRUM_POLY;
    s.decay = 1.0;
    s.noise = 0.0;
    s.seed = 5;
    dpt_dataset a, b, c, noisy;
    double wa[8], wb[8], wc[8], wn[8];
    ck_assert_int_eq(dpt_synthetic(&s, &a, wa, NULL), DPA_OK);
    ck_assert_int_eq(dpt_synthetic(&s, &b, wb, NULL), DPA_OK);
    ck_assert(same_data(&a, &b));
    ck_assert(memcmp(wa, wb, sizeof wa) == 0);
    s.seed = 6;
    ck_assert_int_eq(dpt_synthetic(&s, &c, wc, NULL), DPA_OK);
    ck_assert(memcmp(a.x, c.x, 8 * sizeof(double)) != 0);
    ck_assert(memcmp(wa, wc, sizeof wa) != 0);
    /* the same seed with label noise: the same x and w*, y = relu + noise */
    s.seed = 5;
    s.noise = 0.5;
    ck_assert_int_eq(dpt_synthetic(&s, &noisy, wn, NULL), DPA_OK);
    ck_assert(memcmp(a.x, noisy.x, 4000 * 8 * sizeof(double)) == 0);
    ck_assert(memcmp(wa, wn, sizeof wa) == 0);
    double sum = 0, sum2 = 0;
    for (size_t i = 0; i < 4000; i++) {
        double e = noisy.y[i] - a.y[i];
        sum += e;
        sum2 += e * e;
    }
    /* sample mean ~ N(0, 0.25/4000), sample variance 0.25 +- 0.25*sqrt(2/4000) */
    ck_assert(fabs(sum / 4000) < 5 * 0.5 / sqrt(4000));
    ck_assert(fabs(sum2 / 4000 - 0.25) < 5 * 0.25 * sqrt(2.0 / 4000));
    /* Gaussian zeta: E[x_j^2] = lambda_j = 1/j (5 standard errors of
     * sqrt(2/n) relative) and y = relu(x.w*) with noise 0 */
    for (size_t j = 0; j < 8; j++) {
        double m2 = 0;
        for (size_t i = 0; i < 4000; i++) m2 += a.x[i * 8 + j] * a.x[i * 8 + j];
        m2 /= 4000;
        double lambda = 1.0 / (double)(j + 1);
        ck_assert_msg(fabs(m2 / lambda - 1) < 5 * sqrt(2.0 / 4000), "E[x_%zu^2] = %g", j, m2);
    }
    for (size_t i = 0; i < 4000; i++) {
        double dot = 0;
        for (size_t j = 0; j < 8; j++) dot += a.x[i * 8 + j] * wa[j];
        ck_assert_double_eq(a.y[i], dot > 0 ? dot : 0.0);
    }
    /* without w* */
    dpt_dataset_free(&b);
    ck_assert_int_eq(dpt_synthetic(&s, &b, NULL, NULL), DPA_OK);
    ck_assert(same_data(&noisy, &b));
    dpt_dataset_free(&a);
    dpt_dataset_free(&b);
    dpt_dataset_free(&c);
    dpt_dataset_free(&noisy);

    /* bad specs */
    dpa_error err = { 0 };
    dpt_synthetic_defaults(&s);
    s.n = 0;
    ck_assert_int_eq(dpt_synthetic(&s, &a, NULL, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "n must"));
    assert_zeroed(&a);
    dpt_synthetic_defaults(&s);
    s.decay = -1;
    ck_assert_int_eq(dpt_synthetic(&s, &a, NULL, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "decay"));
    dpt_synthetic_defaults(&s);
    s.noise = NAN;
    ck_assert_int_eq(dpt_synthetic(&s, &a, NULL, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "noise"));
    dpt_synthetic_defaults(&s);
    s.wstar_norm = 0;
    ck_assert_int_eq(dpt_synthetic(&s, &a, NULL, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "wstar"));
}
END_TEST

START_TEST(synthetic_parse_keys)
{
    dpt_synthetic_spec s;
    dpa_error err = { 0 };
    /* the documented defaults */
    dpt_synthetic_defaults(&s);
    ck_assert_uint_eq(s.n, 500);
    ck_assert_uint_eq(s.d, 1024);
    ck_assert_int_eq(s.spectrum, DPT_SPECTRUM_POLY);
    ck_assert_double_eq(s.decay, 2.0);
    ck_assert_int_eq(s.zeta, DPT_ZETA_RADEMACHER);
    ck_assert_double_eq(s.noise, 0.1);
    ck_assert_double_eq(s.wstar_norm, 1.0);
    ck_assert_uint_eq(s.seed, 1);

    ck_assert_int_eq(dpt_synthetic_parse("seed=9,zeta=gaussian,wstar=3,noise=0,decay=0.5,"
                                         "spectrum=exp,d=12,n=34", &s, &err), DPA_OK);
    ck_assert_uint_eq(s.n, 34);
    ck_assert_uint_eq(s.d, 12);
    ck_assert_int_eq(s.spectrum, DPT_SPECTRUM_EXP);
    ck_assert_double_eq(s.decay, 0.5);
    ck_assert_int_eq(s.zeta, DPT_ZETA_GAUSSIAN);
    ck_assert_double_eq(s.noise, 0.0);
    ck_assert_double_eq(s.wstar_norm, 3.0);
    ck_assert_uint_eq(s.seed, 9);
    /* a subset over the defaults (not over the previous contents) */
    ck_assert_int_eq(dpt_synthetic_parse("d=3, noise = 0.25", &s, &err), DPA_OK);
    ck_assert_uint_eq(s.n, 500);
    ck_assert_uint_eq(s.d, 3);
    ck_assert_int_eq(s.spectrum, DPT_SPECTRUM_POLY);
    ck_assert_double_eq(s.decay, 2.0);
    ck_assert_int_eq(s.zeta, DPT_ZETA_RADEMACHER);
    ck_assert_double_eq(s.noise, 0.25);
    ck_assert_double_eq(s.wstar_norm, 1.0);
    ck_assert_uint_eq(s.seed, 1);
    ck_assert_int_eq(dpt_synthetic_parse("", &s, &err), DPA_OK);
    ck_assert_uint_eq(s.d, 1024);
    ck_assert_int_eq(dpt_synthetic_parse("n=500,d=1024,spectrum=poly,decay=2,zeta=rademacher,"
                                         "noise=0.1,wstar=1,seed=1", &s, &err), DPA_OK);

    /* refusals name the key or the value; the spec is left as it was */
    struct { const char *text, *frag1, *frag2; } bad[] = {
        { "foo=1", "foo", "unknown key" },
        { "n=5,colour=red", "colour", "unknown key" },
        { "n=abc", "'abc'", "'n'" },
        { "n=0", "'0'", "'n'" },
        { "n=-3", "'-3'", "'n'" },
        { "d=1.5", "'1.5'", "'d'" },
        { "spectrum=cubic", "'cubic'", "spectrum" },
        { "zeta=uniform", "'uniform'", "zeta" },
        { "decay=0", "'0'", "decay" },
        { "decay=inf", "'inf'", "decay" },
        { "noise=-1", "'-1'", "noise" },
        { "noise=nan", "'nan'", "noise" },
        { "wstar=0", "'0'", "wstar" },
        { "seed=x", "'x'", "seed" },
        { "seed=", "''", "seed" },
        { "n", "'n'", "key=value" },
        { "n=1,n=2", "'n'", "twice" },
        { "n=5,,d=3", "empty item", "n=5,,d=3" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        dpt_synthetic_defaults(&s);
        s.n = 77;
        err.message[0] = '\0';
        ck_assert_msg(dpt_synthetic_parse(bad[k].text, &s, &err) == DPA_EINVAL, "%s accepted",
                      bad[k].text);
        ck_assert_int_eq(err.status, DPA_EINVAL);
        ck_assert_msg(strstr(err.message, bad[k].frag1) && strstr(err.message, bad[k].frag2),
                      "'%s': message '%s'", bad[k].text, err.message);
        ck_assert_uint_eq(s.n, 77);
    }
    ck_assert_int_eq(dpt_synthetic_parse("n=0", &s, NULL), DPA_EINVAL);
}
END_TEST

/* ---- limits and escaped messages (issue 17) -------------------------------- */

/* A message is one printable line: no control byte anywhere. */
static void assert_one_line(const char *m)
{
    ck_assert_msg(m[0] != '\0', "an empty message");
    for (const unsigned char *p = (const unsigned char *)m; *p; p++)
        ck_assert_msg(*p >= 0x20 && *p != 0x7F, "control byte 0x%02x in '%s'", (unsigned)*p, m);
}

static void escaped_is(const char *text, unsigned flags, size_t size, const char *want)
{
    char buf[128];
    ck_assert_uint_le(size, sizeof buf);
    memset(buf, 'Z', sizeof buf);
    ck_assert_ptr_eq(dpt_escape(text, flags, buf, size), buf);
    ck_assert_msg(strcmp(buf, want) == 0, "escaped '%s', want '%s'", buf, want);
    ck_assert_uint_lt(strlen(buf), size);
}

START_TEST(escape_for_messages)
{
    /* the escapes, written out by hand */
    escaped_is("plain text", 0, 64, "plain text");
    escaped_is("a\nb\tc\rd\\e", 0, 64, "a\\nb\\tc\\rd\\\\e");
    escaped_is("\x01\x1b[31m\x7f", 0, 64, "\\x01\\x1b[31m\\x7f");
    escaped_is("caf\xc3\xa9 \xf0\x9f\x98\x80", 0, 64, "caf\xc3\xa9 \xf0\x9f\x98\x80");   /* valid UTF-8 kept */
    escaped_is("\xff", 0, 64, "\\xff");                          /* not UTF-8 */
    escaped_is("a\xc3", 0, 64, "a\\xc3");                        /* truncated sequence */
    escaped_is("\xc0\xaf", 0, 64, "\\xc0\\xaf");                 /* overlong '/' */
    escaped_is("\xed\xa0\x80", 0, 64, "\\xed\\xa0\\x80");        /* a surrogate */
    escaped_is("a\xc2\x85" "b", 0, 64, "a\\xc2\\x85b");          /* NEL, a C1 control */
    escaped_is("\xe2\x80\xa8", 0, 64, "\\xe2\\x80\\xa8");        /* LINE SEPARATOR */
    escaped_is("\xe2\x80\xae", 0, 64, "\\xe2\\x80\\xae");        /* RIGHT-TO-LEFT OVERRIDE */
    escaped_is(NULL, 0, 64, "(null)");
    /* cut with "...", at the end or (paths) at the start, never inside an escape
     * or a UTF-8 character */
    escaped_is("abcdefghij", 0, 8, "abcd...");
    escaped_is("abcdefghij", DPT_ESCAPE_TAIL, 8, "...ghij");
    escaped_is("abcdefg", 0, 8, "abcdefg");
    escaped_is("ab\ncd", 0, 7, "ab\\ncd");
    escaped_is("ab\ncd", 0, 6, "ab...");
    escaped_is("ab\ncd", DPT_ESCAPE_TAIL, 6, "...cd");
    escaped_is("\xc3\xa9\xc3\xa9\xc3\xa9", 0, 6, "\xc3\xa9...");
    escaped_is("abcdef", 0, 3, "ab");           /* no room for the mark */
    escaped_is("abcdef", 0, 1, "");
    /* every byte alone, and a long run of them: one printable line that fits */
    char text[256], buf[40];
    for (int c = 1; c < 256; c++) {
        text[0] = (char)c;
        text[1] = '\0';
        assert_one_line(dpt_escape(text, 0, buf, sizeof buf));
    }
    text[255] = '\0';
    for (int k = 0; k < 255; k++) text[k] = (char)(k + 1);
    for (unsigned flags = 0; flags < 2; flags++) {
        assert_one_line(dpt_escape(text, flags, buf, sizeof buf));
        ck_assert_uint_le(strlen(buf), sizeof buf - 1);
        ck_assert_ptr_nonnull(strstr(buf, "..."));
    }
}
END_TEST

/* The loaders echo what they read escaped, on one line. */
START_TEST(loaders_escape_echoes)
{
    dpt_dataset ds;
    dpa_error err = { 0 };
    const char *p = write_text("esc.svm", "1 1:1\n1 2:\x1b[31mred\n");
    ck_assert_int_eq(dpt_load_libsvm(p, 0, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, "esc.svm:2:", "'2:\\x1b[31mred'");
    assert_one_line(err.message);
    p = write_text("esc.csv", "a,b,y\n1,2,3\n1,\a,3\n");
    ck_assert_int_eq(dpt_load_csv(p, NULL, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, "esc.csv:3:", "field 2 ('\\x07')");
    assert_one_line(err.message);
    ck_assert_int_eq(dpt_load_csv(p, "y\nz", &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, "esc.csv:1:", "no column named 'y\\nz'");
    assert_one_line(err.message);
    /* a path with a newline, and a long token cut */
    p = write_text("new\nline.svm", "1 0:1\n");
    ck_assert_int_eq(dpt_load_libsvm(p, 0, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, "new\\nline.svm:1:", "index 0");
    assert_one_line(err.message);
    char line[300] = "1 ";
    memset(line + 2, 'x', 250);
    strcpy(line + 252, "\n");
    p = write_text("long.svm", line);
    ck_assert_int_eq(dpt_load_libsvm(p, 0, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, "long.svm:1:", "malformed token 'xxx", "...'");
    assert_one_line(err.message);
    /* the specs */
    dpt_synthetic_spec s;
    ck_assert_int_eq(dpt_synthetic_parse("n=1\n00", &s, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "'1\\n00'"));
    assert_one_line(err.message);
    ck_assert_int_eq(dpt_synthetic_parse("n=5,\x1b=1", &s, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "unknown key '\\x1b'"));
    assert_one_line(err.message);
    dpt_sparse_spec sp;
    ck_assert_int_eq(dpt_sparse_parse("s=\t\r", &sp, &err), DPA_EINVAL);
    assert_one_line(err.message);
}
END_TEST

/* libsvm: the inferred dimension times the rows is checked as each line is
 * read, so a huge index is refused at its line before any allocation of its
 * size (a 32-byte file asked for 4 x 10^8 doubles, 3.2 GB, before). */
START_TEST(libsvm_limit)
{
    dpt_dataset ds;
    dpa_error err = { 0 };
    const char *p = write_text("huge.svm", "1 1:1\n0 100000000:1\n1 2:1\n0 3:1\n");
    ck_assert_int_eq(dpt_load_libsvm(p, 0, &ds, &err), DPA_EINVAL);
    /* 2 x 10^8 doubles (1.49 GiB) pass the default 2 GiB, the third row not */
    ASSERT_MESSAGE(err, "huge.svm:3 (feature index 100000000 on line 2)", "3 x 100000000 doubles (2.24 GiB)",
                   "exceed the 2 GiB data limit", "--max-data-size");
    assert_one_line(err.message);
    assert_zeroed(&ds);

    /* the boundary, exactly: rows x 1000 features x 8 bytes */
    p = write_text("lim.svm", "1 1:1\n0 1000:1\n1 2:1\n");
    dpt_load_options o = { .format = "libsvm", .max_bytes = 16000 };
    ck_assert_int_eq(dpt_load(p, &o, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, "lim.svm:3 (feature index 1000 on line 2)", "3 x 1000 doubles", "15.6 KiB");
    assert_zeroed(&ds);
    o.max_bytes = 15999;
    ck_assert_int_eq(dpt_load(p, &o, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, "lim.svm:2: feature index 1000:", "2 x 1000 doubles");
    o.max_bytes = 24000;
    ck_assert_msg(dpt_load(p, &o, &ds, &err) == DPA_OK, "%s", err.message);
    ck_assert_uint_eq(ds.n, 3);
    ck_assert_uint_eq(ds.d, 1000);
    ck_assert_double_eq(ds.x[1 * 1000 + 999], 1.0);
    dpt_dataset_free(&ds);
    /* with the dimension given, the rows are checked against it */
    o.d = 1000;
    o.max_bytes = 15999;
    ck_assert_int_eq(dpt_load(p, &o, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, "lim.svm:2:", "2 x 1000 doubles");
}
END_TEST

/* CSV: the header's width and then the rows as they come. */
START_TEST(csv_limit)
{
    dpt_dataset ds;
    dpa_error err = { 0 };
    const char *p = write_text("lim.csv", "a,b,y\n1,2,3\n4,5,6\n7,8,9\n1,1,1\n2,2,2\n");
    dpt_load_options o = { .format = "csv", .max_bytes = 80 };     /* 5 rows of 2 features */
    ck_assert_msg(dpt_load(p, &o, &ds, &err) == DPA_OK, "%s", err.message);
    ck_assert_uint_eq(ds.n, 5);
    ck_assert_double_eq(ds.x[9], 2.0);
    dpt_dataset_free(&ds);
    o.max_bytes = 79;
    ck_assert_int_eq(dpt_load(p, &o, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, "lim.csv:6:", "5 x 2 doubles (80 bytes) exceed the 79 bytes data limit");
    assert_zeroed(&ds);
    o.max_bytes = 15;
    ck_assert_int_eq(dpt_load(p, &o, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, "lim.csv:1: the header's 3 columns", "1 x 2 doubles");
    assert_zeroed(&ds);
}
END_TEST

/* IDX: the header's sizes against the limit, and a plain file shorter than
 * its header says is refused before the declared data are allocated. */
START_TEST(idx_limit)
{
    unsigned char img[64], lab[32];
    size_t ni = images_file(img, 0x00000803u, 3, 2, 2, 12);
    size_t nl = labels_file(lab, 0x00000801u, 3, label_bytes, 3);
    const char *pi = write_bytes("l-images.idx", img, ni);
    const char *pl = write_bytes("l-labels.idx", lab, nl);
    dpt_dataset ds;
    dpa_error err = { 0 };
    dpt_load_options o = { .format = "idx", .labels = pl, .max_bytes = 96 };   /* 3 x 4 doubles */
    ck_assert_msg(dpt_load(pi, &o, &ds, &err) == DPA_OK, "%s", err.message);
    assert_tiny_idx(&ds);
    dpt_dataset_free(&ds);
    o.max_bytes = 95;
    ck_assert_int_eq(dpt_load(pi, &o, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, "l-images.idx", "3 images of 2 x 2 pixels", "3 x 4 doubles (96 bytes)");
    assert_zeroed(&ds);
    /* a 16-byte file declaring Fashion-MNIST's 60000 images of 28 x 28 */
    size_t nh = images_file(img, 0x00000803u, 60000, 28, 28, 0);
    size_t nlh = labels_file(lab, 0x00000801u, 60000, label_bytes, 0);
    o.labels = write_bytes("h-labels.idx", lab, nlh);
    o.max_bytes = 0;
    ck_assert_int_eq(dpt_load(write_bytes("h-images.idx", img, nh), &o, &ds, &err), DPA_EINVAL);
    ASSERT_MESSAGE(err, "h-images.idx", "truncated: the header declares 47040000 bytes of pixels, the file holds 0");
    assert_zeroed(&ds);
    /* an unknown format */
    o.format = "tsv";
    ck_assert_int_eq(dpt_load(pi, &o, &ds, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "'tsv'"));
}
END_TEST

/* The generators: sizes that are no size are refused when parsed, a size
 * above the limit when checked or generated (the limit can be raised in
 * between), at the byte. */
START_TEST(synthetic_limit)
{
    dpt_synthetic_spec s;
    dpa_error err = { 0 };
    ck_assert_int_eq(dpt_synthetic_parse("n=18446744073709551615,d=18446744073709551615", &s, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "synthetic: n*d = 18446744073709551615*18446744073709551615"));
    ck_assert_ptr_nonnull(strstr(err.message, "exceeds the addressable size"));
    ck_assert_int_eq(dpt_synthetic_parse("n=1000000,d=100000", &s, &err), DPA_OK);
    ck_assert_int_eq(dpt_synthetic_check(&s, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "1000000 x 100000 doubles (745 GiB) exceed the 2 GiB data limit"));
    dpt_dataset ds;
    double w[8];
    ck_assert_int_eq(dpt_synthetic(&s, &ds, NULL, &err), DPA_EINVAL);
    assert_zeroed(&ds);
    s.max_bytes = UINT64_C(1) << 40;
    ck_assert_int_eq(dpt_synthetic_check(&s, &err), DPA_OK);
    ck_assert_int_eq(dpt_synthetic_parse("n=4,d=8", &s, &err), DPA_OK);
    s.max_bytes = 255;
    ck_assert_int_eq(dpt_synthetic(&s, &ds, w, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "4 x 8 doubles (256 bytes)"));
    s.max_bytes = 256;
    ck_assert_msg(dpt_synthetic(&s, &ds, w, &err) == DPA_OK, "%s", err.message);
    ck_assert_uint_eq(ds.n * ds.d, 32);
    dpt_dataset_free(&ds);

    dpt_sparse_spec sp;
    ck_assert_int_eq(dpt_sparse_parse("n=4294967296,d=4294967296,s=1", &sp, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "exceeds the addressable size"));
    ck_assert_int_eq(dpt_sparse_parse("n=4,d=8,s=2", &sp, &err), DPA_OK);
    sp.max_bytes = 255;
    ck_assert_int_eq(dpt_sparse_generate(&sp, &ds, NULL, &err), DPA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "sparse synthetic: 4 x 8 doubles (256 bytes) exceed"));
    assert_zeroed(&ds);
    sp.max_bytes = 256;
    ck_assert_msg(dpt_sparse_generate(&sp, &ds, NULL, &err) == DPA_OK, "%s", err.message);
    dpt_dataset_free(&ds);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("data");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, scratch_setup, scratch_teardown);
    tcase_add_test(tc, alloc_and_free);
    tcase_add_test(tc, csv_reads_values);
    tcase_add_test(tc, csv_errors);
    tcase_add_test(tc, libsvm_reads_values);
    tcase_add_test(tc, libsvm_errors);
    tcase_add_test(tc, idx_reads_plain_and_gzip);
    tcase_add_test(tc, idx_errors);
    tcase_add_test(tc, fashion_mnist_test_set);
    tcase_add_test(tc, split_partitions_reproducibly);
    tcase_add_test(tc, split_sizes_and_refusals);
    tcase_add_test(tc, standardize_by_hand);
    tcase_add_test(tc, standardize_moments);
    tcase_add_test(tc, scale_target_by_hand);
    tcase_add_test(tc, synthetic_rademacher_exact);
    tcase_add_test(tc, synthetic_reproducible_and_noisy);
    tcase_add_test(tc, synthetic_parse_keys);
    tcase_add_test(tc, escape_for_messages);
    tcase_add_test(tc, loaders_escape_echoes);
    tcase_add_test(tc, libsvm_limit);
    tcase_add_test(tc, csv_limit);
    tcase_add_test(tc, idx_limit);
    tcase_add_test(tc, synthetic_limit);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
