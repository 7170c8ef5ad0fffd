/*
 * sampling.c - how the DP-SGD trainers draw their batches, and the event
 * each way is accounted by.  One module, so that the sampler a run uses and
 * the event its privacy is accounted with cannot drift apart, and so that
 * the tests can check each sampler against what its event assumes.
 *
 *   poisson        each record independently with probability q = b/n;
 *                  T = ceil(E n / b) steps: poisson(q, gaussian), T times.
 *   shuffle        each epoch a fresh secret permutation cut into
 *                  floor(n/b) batches of exactly b (the n mod b left over
 *                  sit the epoch out): shuffled_batches(n, b, gaussian),
 *                  E times (a bracket: the Gaussian once an epoch above,
 *                  Chua et al.'s lower bound below; accountants/batches.c).
 *   balls-in-bins  each epoch every record in one of t = ceil(n/b) batches
 *                  chosen uniformly and independently (Chua et al., ICML
 *                  2025; Feldman & Shenfeld's random allocation with k = 1):
 *                  random_allocation(t, 1, gaussian), E times.
 *   truncated      Poisson at q = b/n, a batch of more than B records cut
 *                  to a uniformly random B of them (dp_accounting's
 *                  truncated Poisson, 2025): truncated_poisson(q, n, B,
 *                  gaussian), T times.
 * Every draw comes from the run's dpt_rng (secure unless seeded).
 */
#include <config.h>

#include "dpt_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dpt_sampler {
    dpt_sampling kind;
    size_t n, b, max_batch;
    dpt_rng *rng;
    size_t per_epoch;     /* shuffle and balls-in-bins: batches an epoch */
    size_t next;          /* the next batch of the epoch (per_epoch: a new epoch) */
    size_t *order;        /* shuffle: the permutation; balls-in-bins: rows by batch */
    size_t *start;        /* balls-in-bins: batch j is order[start[j] .. start[j+1]) */
    size_t *bin;          /* balls-in-bins: each record's batch */
    size_t *fill;         /* balls-in-bins: the counting sort's cursors */
};

const char *dpt_sampling_name(dpt_sampling kind)
{
    switch (kind) {
    case DPT_SAMPLING_POISSON: return "poisson";
    case DPT_SAMPLING_SHUFFLE: return "shuffle";
    case DPT_SAMPLING_BALLS_IN_BINS: return "balls-in-bins";
    case DPT_SAMPLING_TRUNCATED: return "truncated";
    }
    return NULL;
}

static size_t batches_per_epoch(dpt_sampling kind, size_t n, size_t b)
{
    return kind == DPT_SAMPLING_SHUFFLE ? n / b : (n + b - 1) / b;   /* balls-in-bins: ceil */
}

int dpt_sampling_check(dpt_sampling kind, size_t n, size_t b, size_t max_batch, dpa_error *err)
{
    if (!dpt_sampling_name(kind)) return dpt_fail(err, DPA_EINVAL, "dptrain: unknown sampling %d", (int)kind);
    if (n < 1) return dpt_fail(err, DPA_EINVAL, "dptrain: no training examples");
    if (b < 1 || b > n) return dpt_fail(err, DPA_EINVAL, "dptrain: the batch size must lie in [1, %zu], got %zu", n, b);
    if (kind == DPT_SAMPLING_TRUNCATED && (max_batch < 1 || max_batch > n))
        return dpt_fail(err, DPA_EINVAL, "dptrain: truncated sampling needs a maximum batch size in [1, %zu], got %zu",
                        n, max_batch);
    if (kind != DPT_SAMPLING_TRUNCATED && max_batch != 0)
        return dpt_fail(err, DPA_EINVAL, "dptrain: a maximum batch size is for truncated sampling only (sampling %s)",
                        dpt_sampling_name(kind));
    return DPA_OK;
}

int dpt_sampling_steps(dpt_sampling kind, size_t n, size_t b, uint64_t epochs, uint64_t *steps, dpa_error *err)
{
    int st = dpt_sampling_check(kind, n, b, kind == DPT_SAMPLING_TRUNCATED ? n : 0, err);
    if (st) return st;
    if (epochs < 1) return dpt_fail(err, DPA_EINVAL, "dptrain: epochs must be at least 1");
    if (epochs > (UINT64_C(1) << 53) / n)
        return dpt_fail(err, DPA_EINVAL, "dptrain: %llu epochs of %zu examples exceed 2^53 steps",
                        (unsigned long long)epochs, n);
    if (kind == DPT_SAMPLING_SHUFFLE || kind == DPT_SAMPLING_BALLS_IN_BINS)
        *steps = epochs * (uint64_t)batches_per_epoch(kind, n, b);
    else   /* E n / b is exact in a double below 2^53; ceil of a quotient within an ulp of an integer */
        *steps = (uint64_t)ceil((double)epochs * (double)n / (double)b - 1e-9);
    return DPA_OK;
}

dpa_event *dpt_sampling_event(dpt_sampling kind, size_t n, size_t b, size_t max_batch, uint64_t epochs,
                              double multiplier, dpa_error *err)
{
    uint64_t steps;
    if (dpt_sampling_check(kind, n, b, max_batch, err) || dpt_sampling_steps(kind, n, b, epochs, &steps, err))
        return NULL;
    double q = (double)b / (double)n;
    dpa_event *e = dpa_event_gaussian(multiplier, err);
    switch (kind) {
    case DPT_SAMPLING_POISSON:
        if (q < 1.0) e = dpa_event_poisson_sampled(q, e, err);
        return dpa_event_self_composed(e, steps, err);
    case DPT_SAMPLING_SHUFFLE:
        e = dpa_event_shuffled_batches(n, b, e, err);
        return epochs > 1 ? dpa_event_self_composed(e, epochs, err) : e;
    case DPT_SAMPLING_TRUNCATED:
        /* n counts the larger dataset's records: a neighbour may add one */
        e = dpa_event_truncated_poisson(q, (uint64_t)n + 1, max_batch, e, err);
        return dpa_event_self_composed(e, steps, err);
    case DPT_SAMPLING_BALLS_IN_BINS:
        e = dpa_event_random_allocation((uint64_t)batches_per_epoch(kind, n, b), 1, e, err);
        return epochs > 1 ? dpa_event_self_composed(e, epochs, err) : e;
    }
    dpa_event_free(e);
    dpt_fail(err, DPA_EINVAL, "dptrain: unknown sampling %d", (int)kind);
    return NULL;
}

void dpt_sampling_describe(dpt_sampling kind, size_t n, size_t b, size_t max_batch, uint64_t epochs,
                           double multiplier, char *buf, size_t size)
{
    uint64_t steps = 0;
    dpt_sampling_steps(kind, n, b, epochs, &steps, NULL);
    switch (kind) {
    case DPT_SAMPLING_SHUFFLE:
        snprintf(buf, size, "shuffled batches of exactly %zu (%zu an epoch, %zu records left out each), the Gaussian "
                 "(multiplier %.6g) once an epoch over %" PRIu64 " epochs: no amplification counted", b, n / b, n % b,
                 multiplier, epochs);
        return;
    case DPT_SAMPLING_BALLS_IN_BINS:
        snprintf(buf, size, "balls-in-bins batches (%zu an epoch, each record in one), random allocation "
                 "(Feldman & Shenfeld 2025) of the Gaussian (multiplier %.6g) over %" PRIu64 " epochs",
                 batches_per_epoch(kind, n, b), multiplier, epochs);
        return;
    case DPT_SAMPLING_TRUNCATED:
        snprintf(buf, size, "truncated Poisson sampling (q = %.6g, at most %zu) of the Gaussian (multiplier %.6g) "
                 "composed over %" PRIu64 " steps", (double)b / (double)n, max_batch, multiplier, steps);
        return;
    default:
        snprintf(buf, size, "Poisson-sampled Gaussian (q = %.6g, multiplier %.6g) composed over %" PRIu64 " steps",
                 (double)b / (double)n, multiplier, steps);
    }
}

const char *dpt_sampling_accountant(dpt_sampling kind)
{
    switch (kind) {
    case DPT_SAMPLING_SHUFFLE: return "batches";        /* the bracket; its upper is every accountant's */
    case DPT_SAMPLING_BALLS_IN_BINS: return "rdp";      /* Feldman & Shenfeld's RDP bounds */
    default: return "pld";
    }
}

void dpt_sampler_free(dpt_sampler *s)
{
    if (!s) return;
    free(s->order);
    free(s->start);
    free(s->bin);
    free(s->fill);
    free(s);
}

int dpt_sampler_new(dpt_sampling kind, size_t n, size_t b, size_t max_batch, dpt_rng *rng, dpt_sampler **out,
                    dpa_error *err)
{
    *out = NULL;
    int st = dpt_sampling_check(kind, n, b, max_batch, err);
    if (st) return st;
    if (!rng) return dpt_fail(err, DPA_EINVAL, "dptrain: the sampler needs a generator");
    dpt_sampler *s = calloc(1, sizeof *s);
    if (!s) return dpt_fail(err, DPA_ENOMEM, "dptrain: out of memory");
    *s = (dpt_sampler){ .kind = kind, .n = n, .b = b, .max_batch = max_batch, .rng = rng };
    s->per_epoch = batches_per_epoch(kind, n, b);
    s->next = s->per_epoch;
    if (kind == DPT_SAMPLING_SHUFFLE || kind == DPT_SAMPLING_BALLS_IN_BINS) {
        s->order = malloc(n * sizeof *s->order);
        if (!s->order) st = DPA_ENOMEM;
        if (!st && kind == DPT_SAMPLING_SHUFFLE)
            for (size_t i = 0; i < n; i++) s->order[i] = i;
    }
    if (!st && kind == DPT_SAMPLING_BALLS_IN_BINS) {
        s->start = malloc((s->per_epoch + 1) * sizeof *s->start);
        s->bin = malloc(n * sizeof *s->bin);
        s->fill = malloc(s->per_epoch * sizeof *s->fill);
        if (!s->start || !s->bin || !s->fill) st = DPA_ENOMEM;
    }
    if (st) {
        dpt_sampler_free(s);
        return dpt_fail(err, DPA_ENOMEM, "dptrain: out of memory");
    }
    *out = s;
    return DPA_OK;
}

/* Balls-in-bins: each record's batch, then the rows sorted by batch
 * (counting sort, rows in index order within a batch: the order inside a
 * batch does not change its sum). */
static void throw_balls(dpt_sampler *s)
{
    size_t t = s->per_epoch;
    memset(s->start, 0, (t + 1) * sizeof *s->start);
    for (size_t i = 0; i < s->n; i++) {
        s->bin[i] = (size_t)dpt_rng_below(s->rng, (uint64_t)t);
        s->start[s->bin[i] + 1]++;
    }
    for (size_t j = 0; j < t; j++) s->start[j + 1] += s->start[j];
    memcpy(s->fill, s->start, t * sizeof *s->fill);
    for (size_t i = 0; i < s->n; i++) s->order[s->fill[s->bin[i]]++] = i;
}

/* Poisson at q = b/n; truncated: a batch above max_batch cut to a
 * uniformly random max_batch of its rows (a partial Fisher-Yates). */
static void poisson_batch(dpt_sampler *s, size_t *rows, size_t *count)
{
    double q = (double)s->b / (double)s->n;
    size_t c = 0;
    for (size_t i = 0; i < s->n; i++)
        if (dpt_rng_bernoulli(s->rng, q)) rows[c++] = i;
    if (s->kind == DPT_SAMPLING_TRUNCATED && c > s->max_batch) {
        for (size_t i = 0; i < s->max_batch; i++) {
            size_t j = i + (size_t)dpt_rng_below(s->rng, (uint64_t)(c - i));
            size_t tmp = rows[i];
            rows[i] = rows[j];
            rows[j] = tmp;
        }
        c = s->max_batch;
    }
    *count = c;
}

int dpt_sampler_next(dpt_sampler *s, size_t *rows, size_t *count)
{
    if (!s || !rows || !count) return DPA_EINVAL;
    switch (s->kind) {
    case DPT_SAMPLING_POISSON:
    case DPT_SAMPLING_TRUNCATED:
        poisson_batch(s, rows, count);
        return DPA_OK;
    case DPT_SAMPLING_SHUFFLE:
        if (s->next == s->per_epoch) {
            dpt_rng_shuffle(s->rng, s->order, s->n);
            s->next = 0;
        }
        memcpy(rows, s->order + s->next * s->b, s->b * sizeof *rows);
        *count = s->b;
        s->next++;
        return DPA_OK;
    case DPT_SAMPLING_BALLS_IN_BINS: {
        if (s->next == s->per_epoch) {
            throw_balls(s);
            s->next = 0;
        }
        size_t from = s->start[s->next], to = s->start[s->next + 1];
        memcpy(rows, s->order + from, (to - from) * sizeof *rows);
        *count = to - from;
        s->next++;
        return DPA_OK;
    }
    }
    return DPA_EINVAL;
}
