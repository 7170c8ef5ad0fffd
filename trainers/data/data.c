/*
 * data.c - datasets: allocation, the seeded train/test split, feature
 * standardisation and target scaling.
 */
#include <config.h>

#include "dpt_internal.h"

#include <gsl/gsl_randist.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int dpt_dataset_alloc(dpt_dataset *ds, size_t n, size_t d, dpa_error *err)
{
    if (!ds) return dpt_fail(err, DPA_EINVAL, "dataset: NULL output");
    memset(ds, 0, sizeof *ds);
    if (n == 0 || d == 0)
        return dpt_fail(err, DPA_EINVAL, "dataset: n and d must be positive, got n = %zu, d = %zu",
                        n, d);
    /* n * d doubles must be addressable: check n * d * sizeof(double). */
    if (n > SIZE_MAX / d || n * d > SIZE_MAX / sizeof(double))
        return dpt_fail(err, DPA_EINVAL, "dataset: n * d overflows (n = %zu, d = %zu)", n, d);
    double *x = calloc(n * d, sizeof *x);
    double *y = calloc(n, sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return dpt_fail(err, DPA_ENOMEM, "dataset: cannot allocate %zu x %zu doubles", n, d);
    }
    ds->n = n;
    ds->d = d;
    ds->x = x;
    ds->y = y;
    return DPA_OK;
}

int dpt_load(const char *path, const dpt_load_options *opt, dpt_dataset *out, dpa_error *err)
{
    if (!opt) return dpt_fail(err, DPA_EINVAL, "load: NULL options");
    const char *fmt = opt->format ? opt->format : opt->labels ? "idx" : "csv";
    if (strcmp(fmt, "idx") == 0) return dpt_load_idx_max(path, opt->labels, opt->max_bytes, out, err);
    if (strcmp(fmt, "libsvm") == 0) return dpt_load_libsvm_max(path, opt->d, opt->max_bytes, out, err);
    if (strcmp(fmt, "csv") == 0) return dpt_load_csv_max(path, opt->target, opt->max_bytes, out, err);
    if (out) memset(out, 0, sizeof *out);
    char shown[48];
    return dpt_fail(err, DPA_EINVAL, "load: unknown format '%s' (csv, libsvm or idx)",
                    dpt_escape(fmt, 0, shown, sizeof shown));
}

void dpt_dataset_free(dpt_dataset *ds)
{
    if (!ds) return;
    free(ds->x);
    free(ds->y);
    memset(ds, 0, sizeof *ds);
}

/* ---- split ------------------------------------------------------------------- */

static void copy_rows(const dpt_dataset *from, const size_t *rows, size_t count, dpt_dataset *to)
{
    size_t d = from->d;
    for (size_t i = 0; i < count; i++) {
        memcpy(to->x + i * d, from->x + rows[i] * d, d * sizeof *to->x);
        to->y[i] = from->y[rows[i]];
    }
}

int dpt_split(const dpt_dataset *all, double test_fraction, unsigned long seed, dpt_dataset *train,
              dpt_dataset *test, dpa_error *err)
{
    if (!train || !test) return dpt_fail(err, DPA_EINVAL, "split: NULL output dataset");
    memset(train, 0, sizeof *train);
    memset(test, 0, sizeof *test);
    if (!all || all->n == 0 || all->d == 0 || !all->x || !all->y)
        return dpt_fail(err, DPA_EINVAL, "split: the dataset is empty");
    if (!(test_fraction >= 0.0 && test_fraction < 1.0))
        return dpt_fail(err, DPA_EINVAL, "split: test_fraction must lie in [0, 1), got %g",
                        test_fraction);
    size_t n = all->n;
    /* round(test_fraction * n), halves away from zero; the product is < n. */
    size_t n_test = (size_t)floor(test_fraction * (double)n + 0.5);
    if (n_test > n) n_test = n;
    if (test_fraction > 0.0 && (n_test == 0 || n_test == n))
        return dpt_fail(err, DPA_EINVAL,
                        "split: test_fraction %g of %zu examples leaves %s set empty",
                        test_fraction, n, n_test == 0 ? "the test" : "the training");
    size_t n_train = n - n_test;

    /* n indices fit: n * d doubles did, d >= 1; and each part is no larger
     * than `all` */
    size_t *perm = malloc(n * sizeof *perm);
    if (!perm) return dpt_fail(err, DPA_ENOMEM, "split: cannot allocate %zu indices", n);
    for (size_t i = 0; i < n; i++) perm[i] = i;
    gsl_rng *r = dpt_rng_new(seed, err);
    if (!r) {
        free(perm);
        return DPA_ENOMEM;
    }
    /* Fisher-Yates through GSL: every permutation equally likely. */
    gsl_ran_shuffle(r, perm, n, sizeof *perm);
    gsl_rng_free(r);

    int status = dpt_dataset_alloc(train, n_train, all->d, err);
    if (status == DPA_OK && n_test) status = dpt_dataset_alloc(test, n_test, all->d, err);
    if (status != DPA_OK) {
        dpt_dataset_free(train);
        dpt_dataset_free(test);
        free(perm);
        return status;
    }
    if (n_test) copy_rows(all, perm, n_test, test);
    copy_rows(all, perm + n_test, n_train, train);
    free(perm);
    return DPA_OK;
}

/* ---- standardisation --------------------------------------------------------- */

/* Columns are processed in blocks so that the passes run along rows (cache
 * friendly for row-major data) without allocating: the function cannot
 * report a failure. */
#define STD_BLOCK 128

static void standardize_block(dpt_dataset *train, dpt_dataset *test, size_t j0, size_t m)
{
    double mean[STD_BLOCK], scale[STD_BLOCK], s1[STD_BLOCK], s2[STD_BLOCK];
    int constant[STD_BLOCK];
    size_t n = train->n, d = train->d;
    const double *first = train->x + j0;

    for (size_t k = 0; k < m; k++) {
        s1[k] = 0.0;
        constant[k] = 1;
    }
    for (size_t i = 0; i < n; i++) {
        const double *row = train->x + i * d + j0;
        for (size_t k = 0; k < m; k++) {
            s1[k] += row[k];
            if (row[k] != first[k]) constant[k] = 0;
        }
    }
    /* Corrected two-pass algorithm (Chan, Golub & LeVeque 1983): the second
     * pass sums the deviations too, to correct the mean's rounding error. */
    for (size_t k = 0; k < m; k++) {
        mean[k] = s1[k] / (double)n;
        s1[k] = s2[k] = 0.0;
    }
    for (size_t i = 0; i < n; i++) {
        const double *row = train->x + i * d + j0;
        for (size_t k = 0; k < m; k++) {
            double dev = row[k] - mean[k];
            s1[k] += dev;
            s2[k] += dev * dev;
        }
    }
    for (size_t k = 0; k < m; k++) {
        if (constant[k]) {
            /* An exactly constant feature: centred (to exact zeros, using
             * the value itself as the mean), not scaled. */
            mean[k] = first[k];
            scale[k] = 1.0;
            continue;
        }
        double var = (s2[k] - s1[k] * s1[k] / (double)n) / (double)n;
        mean[k] += s1[k] / (double)n;
        double sd = var > 0.0 ? sqrt(var) : 0.0;
        scale[k] = sd > 0.0 ? 1.0 / sd : 1.0;
    }
    for (int pass = 0; pass < 2; pass++) {
        dpt_dataset *ds = pass == 0 ? train : test;
        if (!ds) continue;
        for (size_t i = 0; i < ds->n; i++) {
            double *row = ds->x + i * d + j0;
            for (size_t k = 0; k < m; k++) row[k] = (row[k] - mean[k]) * scale[k];
        }
    }
}

void dpt_standardize(dpt_dataset *train, dpt_dataset *test)
{
    if (!train || !train->x || train->n == 0 || train->d == 0) return;
    /* The statistics are per feature: a test set of another width cannot be
     * transformed and is left as it is. */
    if (test && (test->d != train->d || !test->x || test->n == 0)) test = NULL;
    for (size_t j0 = 0; j0 < train->d; j0 += STD_BLOCK) {
        size_t m = train->d - j0 < STD_BLOCK ? train->d - j0 : STD_BLOCK;
        standardize_block(train, test, j0, m);
    }
}

/* ---- target scaling ---------------------------------------------------------- */

double dpt_scale_target(dpt_dataset *train, dpt_dataset *test)
{
    double scale = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        const dpt_dataset *ds = pass == 0 ? train : test;
        if (!ds || !ds->y) continue;
        for (size_t i = 0; i < ds->n; i++)
            if (fabs(ds->y[i]) > scale) scale = fabs(ds->y[i]);
    }
    if (!(scale > 0.0) || !isfinite(scale)) return 1.0;
    for (int pass = 0; pass < 2; pass++) {
        dpt_dataset *ds = pass == 0 ? train : test;
        if (!ds || !ds->y) continue;
        for (size_t i = 0; i < ds->n; i++) ds->y[i] /= scale;
    }
    return scale;
}

size_t dpt_clip_rows(dpt_dataset *ds, double bound)
{
    if (!ds || !ds->x || !(bound > 0.0)) return 0;
    size_t clipped = 0, d = ds->d;
    for (size_t i = 0; i < ds->n; i++) {
        double *row = ds->x + i * d, n2 = 0.0;
        for (size_t j = 0; j < d; j++) n2 += row[j] * row[j];
        double norm = sqrt(n2);
        if (!(norm > bound)) continue;
        /* scaled to just below the bound: the rounding of the quotient and
         * of the products may not leave a row above it */
        double s = bound / norm * (1.0 - 0x1p-50);
        for (size_t j = 0; j < d; j++) row[j] *= s;
        clipped++;
    }
    return clipped;
}
