/*
 * synthetic.c - synthetic ReLU regression (the experiment of Ding et al.,
 * "Revisiting Differentially Private ReLU Regression", NeurIPS 2024):
 *     x = sqrt(lambda) .* zeta,  zeta_j i.i.d. Rademacher or N(0, 1),
 *     lambda_j = j^-decay (poly) or e^-(decay j) (exp), j = 1..d,
 * so that H = E[x x^T] = diag(lambda); w* uniform on the sphere of radius
 * wstar_norm (a standard Gaussian vector normalised: its direction is
 * uniform by rotation invariance); y = max(0, x^T w*) + noise * N(0, 1).
 *
 * The random stream (gsl_rng mt19937 seeded with spec->seed) is consumed
 * in a fixed order: the d coordinates of w* first, then per example its d
 * zetas and one label-noise draw.  The noise draw is taken also when
 * noise = 0, so that x and w* do not depend on the noise level.
 */
#include <config.h>

#include "dpt_internal.h"

#include <gsl/gsl_randist.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void dpt_synthetic_defaults(dpt_synthetic_spec *spec)
{
    if (!spec) return;
    memset(spec, 0, sizeof *spec);
    spec->n = 500;
    spec->d = 1024;
    spec->spectrum = DPT_SPECTRUM_POLY;
    spec->decay = 2.0;
    spec->zeta = DPT_ZETA_RADEMACHER;
    spec->noise = 0.1;
    spec->wstar_norm = 1.0;
    spec->seed = 1;
}

/* ---- parsing ------------------------------------------------------------------- */

/* Checks a complete spec; `who` prefixes the messages. */
static int check_spec(const dpt_synthetic_spec *s, const char *who, dpa_error *err)
{
    if (s->n == 0) return dpt_fail(err, DPA_EINVAL, "%s: n must be at least 1", who);
    if (s->d == 0) return dpt_fail(err, DPA_EINVAL, "%s: d must be at least 1", who);
    if (s->spectrum != DPT_SPECTRUM_POLY && s->spectrum != DPT_SPECTRUM_EXP)
        return dpt_fail(err, DPA_EINVAL, "%s: spectrum must be poly or exp", who);
    if (!(s->decay > 0.0 && isfinite(s->decay)))
        return dpt_fail(err, DPA_EINVAL, "%s: decay must be finite and > 0, got %g", who, s->decay);
    if (s->zeta != DPT_ZETA_RADEMACHER && s->zeta != DPT_ZETA_GAUSSIAN)
        return dpt_fail(err, DPA_EINVAL, "%s: zeta must be rademacher or gaussian", who);
    if (!(s->noise >= 0.0 && isfinite(s->noise)))
        return dpt_fail(err, DPA_EINVAL, "%s: noise must be finite and >= 0, got %g", who, s->noise);
    if (!(s->wstar_norm > 0.0 && isfinite(s->wstar_norm)))
        return dpt_fail(err, DPA_EINVAL, "%s: wstar must be finite and > 0, got %g", who,
                        s->wstar_norm);
    return dpt_check_data_size(s->n, s->d, s->max_bytes, who, err);
}

int dpt_synthetic_check(const dpt_synthetic_spec *spec, dpa_error *err)
{
    if (!spec) return dpt_fail(err, DPA_EINVAL, "synthetic: NULL spec");
    return check_spec(spec, "synthetic", err);
}

enum { KEY_N, KEY_D, KEY_SPECTRUM, KEY_DECAY, KEY_ZETA, KEY_NOISE, KEY_WSTAR, KEY_SEED, NKEYS };
static const char *const key_names[NKEYS] = { "n", "d", "spectrum", "decay",
                                              "zeta", "noise", "wstar", "seed" };

/* One "key=value" item (trimmed, NUL-terminated, '=' at eq) into s. */
static int parse_item(char *item, dpt_synthetic_spec *s, int *seen, dpa_error *err)
{
    char shown[64];
    char *eq = strchr(item, '=');
    if (!eq)
        return dpt_fail(err, DPA_EINVAL, "synthetic: '%s' is not key=value", dpt_escape(item, 0, shown, sizeof shown));
    *eq = '\0';
    char *key = item, *val = eq + 1;
    size_t kl = strlen(key);
    while (kl > 0 && (key[kl - 1] == ' ' || key[kl - 1] == '\t')) key[--kl] = '\0';
    while (*val == ' ' || *val == '\t') val++;
    int k = 0;
    while (k < NKEYS && strcmp(key, key_names[k]) != 0) k++;
    if (k == NKEYS)
        return dpt_fail(err, DPA_EINVAL,
                        "synthetic: unknown key '%s' (keys: n, d, spectrum, decay, zeta, "
                        "noise, wstar, seed)", dpt_escape(key, 0, shown, sizeof shown));
    if (seen[k])
        return dpt_fail(err, DPA_EINVAL, "synthetic: key '%s' given twice", key);
    seen[k] = 1;
    int ok = 0;
    switch (k) {
    case KEY_N: ok = dpt_parse_size(val, &s->n) && s->n > 0; break;
    case KEY_D: ok = dpt_parse_size(val, &s->d) && s->d > 0; break;
    case KEY_SPECTRUM:
        if (strcmp(val, "poly") == 0) { s->spectrum = DPT_SPECTRUM_POLY; ok = 1; }
        else if (strcmp(val, "exp") == 0) { s->spectrum = DPT_SPECTRUM_EXP; ok = 1; }
        break;
    case KEY_DECAY: ok = dpt_parse_number(val, &s->decay) == 1 && s->decay > 0.0; break;
    case KEY_ZETA:
        if (strcmp(val, "rademacher") == 0) { s->zeta = DPT_ZETA_RADEMACHER; ok = 1; }
        else if (strcmp(val, "gaussian") == 0) { s->zeta = DPT_ZETA_GAUSSIAN; ok = 1; }
        break;
    case KEY_NOISE: ok = dpt_parse_number(val, &s->noise) == 1 && s->noise >= 0.0; break;
    case KEY_WSTAR: ok = dpt_parse_number(val, &s->wstar_norm) == 1 && s->wstar_norm > 0.0; break;
    case KEY_SEED: ok = dpt_parse_ulong(val, &s->seed); break;
    default: break;
    }
    if (!ok) {
        static const char *const expected[NKEYS] = {
            "an integer >= 1", "an integer >= 1", "poly or exp", "a finite number > 0",
            "rademacher or gaussian", "a finite number >= 0", "a finite number > 0",
            "a nonnegative integer"
        };
        return dpt_fail(err, DPA_EINVAL, "synthetic: bad value '%s' for key '%s' (expected %s)",
                        dpt_escape(val, 0, shown, sizeof shown), key, expected[k]);
    }
    return DPA_OK;
}

struct item_ctx { dpt_synthetic_spec *spec; int *seen; };

static int parse_item_cb(char *item, void *ctx, dpa_error *err)
{
    struct item_ctx *c = ctx;
    return parse_item(item, c->spec, c->seen, err);
}

int dpt_synthetic_parse(const char *text, dpt_synthetic_spec *spec, dpa_error *err)
{
    if (!spec) return dpt_fail(err, DPA_EINVAL, "synthetic: NULL spec");
    dpt_synthetic_spec s;
    dpt_synthetic_defaults(&s);
    int seen[NKEYS] = { 0 };
    struct item_ctx c = { &s, seen };
    int st = dpt_spec_items(text, "synthetic", parse_item_cb, &c, err);
    if (st != DPA_OK) return st;
    /* sizes that are no size at all are refused here; the limit, which the
     * caller may raise after parsing, is dpt_synthetic's */
    if ((st = dpt_check_data_size(s.n, s.d, UINT64_MAX, "synthetic", err)) != DPA_OK) return st;
    *spec = s;
    return DPA_OK;
}

/* ---- generation ---------------------------------------------------------------- */

int dpt_synthetic(const dpt_synthetic_spec *spec, dpt_dataset *out, double *wstar, dpa_error *err)
{
    if (!out) return dpt_fail(err, DPA_EINVAL, "synthetic: NULL output dataset");
    memset(out, 0, sizeof *out);
    if (!spec) return dpt_fail(err, DPA_EINVAL, "synthetic: NULL spec");
    int status = check_spec(spec, "synthetic", err);
    if (status != DPA_OK) return status;
    size_t n = spec->n, d = spec->d;
    status = dpt_dataset_alloc(out, n, d, err);
    if (status != DPA_OK) return status;
    double *sqrt_lambda = malloc(d * sizeof *sqrt_lambda);
    double *w = malloc(d * sizeof *w);
    gsl_rng *r = sqrt_lambda && w ? dpt_rng_new(spec->seed, err) : NULL;
    if (!r) {
        free(sqrt_lambda);
        free(w);
        dpt_dataset_free(out);
        return dpt_fail(err, DPA_ENOMEM, "synthetic: out of memory (d = %zu)", d);
    }
    for (size_t j = 0; j < d; j++) {
        double i = (double)(j + 1);
        double lambda = spec->spectrum == DPT_SPECTRUM_POLY ? pow(i, -spec->decay)
                                                            : exp(-spec->decay * i);
        sqrt_lambda[j] = sqrt(lambda);
    }
    /* w*: a Gaussian direction (redrawn in the practically impossible case of
     * a zero vector), scaled to wstar_norm. */
    double norm2;
    do {
        norm2 = 0.0;
        for (size_t j = 0; j < d; j++) {
            w[j] = gsl_ran_gaussian(r, 1.0);
            norm2 += w[j] * w[j];
        }
    } while (!(norm2 > 0.0));
    double factor = spec->wstar_norm / sqrt(norm2);
    for (size_t j = 0; j < d; j++) w[j] *= factor;

    for (size_t i = 0; i < n; i++) {
        double *row = out->x + i * d;
        /* A plain left-to-right dot product: with noise = 0, y is exactly
         * max(0, x^T w*) evaluated in that order. */
        double dot = 0.0;
        for (size_t j = 0; j < d; j++) {
            double z = spec->zeta == DPT_ZETA_RADEMACHER
                           ? (gsl_rng_uniform_int(r, 2) ? 1.0 : -1.0)
                           : gsl_ran_gaussian(r, 1.0);
            row[j] = sqrt_lambda[j] * z;
            dot += row[j] * w[j];
        }
        double g = gsl_ran_gaussian(r, 1.0);
        out->y[i] = (dot > 0.0 ? dot : 0.0) + spec->noise * g;
    }
    gsl_rng_free(r);
    if (wstar) memcpy(wstar, w, d * sizeof *w);
    free(w);
    free(sqrt_lambda);
    return DPA_OK;
}
