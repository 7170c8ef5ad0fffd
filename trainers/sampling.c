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
 *   allocation     each epoch every record in K of the t = ceil(K n / b)
 *                  batches, a uniformly random K-subset, independently
 *                  (Feldman & Shenfeld, "Privacy amplification by random
 *                  allocation", 2025; expected batch K n / t, about b):
 *                  random_allocation(t, K, gaussian), E times.  Balls-in-bins
 *                  is K = 1, drawn by the same code.
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
    size_t n, b, param;   /* param: truncated's largest batch, allocation's K */
    dpt_rng *rng;
    size_t per_epoch;     /* shuffle, balls-in-bins and allocation: batches an epoch */
    size_t next;          /* the next batch of the epoch (per_epoch: a new epoch) */
    size_t uses;          /* balls-in-bins (1) and allocation (K): the batches of a record an epoch */
    size_t *order;        /* shuffle: the permutation; allocation: rows by batch (n uses) */
    size_t *start;        /* allocation: batch j is order[start[j] .. start[j+1]) */
    size_t *chosen;       /* allocation: record i's batches, chosen[i uses .. (i+1) uses) */
    size_t *fill;         /* allocation: the counting sort's cursors */
    unsigned char *taken; /* allocation: the batches already chosen for the current record */
};

const char *dpt_sampling_name(dpt_sampling kind)
{
    switch (kind) {
    case DPT_SAMPLING_POISSON: return "poisson";
    case DPT_SAMPLING_SHUFFLE: return "shuffle";
    case DPT_SAMPLING_BALLS_IN_BINS: return "balls-in-bins";
    case DPT_SAMPLING_TRUNCATED: return "truncated";
    case DPT_SAMPLING_ALLOCATION: return "allocation";
    }
    return NULL;
}

/* The batches of a record an epoch: K for allocation, 1 for balls-in-bins
 * (its K = 1), 0 for the samplings without epochs of batches drawn so. */
static size_t uses_per_epoch(dpt_sampling kind, size_t param)
{
    return kind == DPT_SAMPLING_ALLOCATION ? param : kind == DPT_SAMPLING_BALLS_IN_BINS ? 1 : 0;
}

static int epoch_based(dpt_sampling kind)
{
    return kind == DPT_SAMPLING_SHUFFLE || kind == DPT_SAMPLING_BALLS_IN_BINS || kind == DPT_SAMPLING_ALLOCATION;
}

/* shuffle: floor(n/b); balls-in-bins and allocation: ceil(K n / b) (K n
 * <= 2^53 by dpt_sampling_check, exact in a uint64_t). */
static size_t batches_per_epoch(dpt_sampling kind, size_t n, size_t b, size_t param)
{
    if (kind == DPT_SAMPLING_SHUFFLE) return n / b;
    const uint64_t uses = (uint64_t)uses_per_epoch(kind, param) * n;
    return (size_t)((uses + b - 1) / b);
}

int dpt_sampling_check(dpt_sampling kind, size_t n, size_t b, size_t param, dpa_error *err)
{
    if (!dpt_sampling_name(kind)) return dpt_fail(err, DPA_EINVAL, "dptrain: unknown sampling %d", (int)kind);
    if (n < 1) return dpt_fail(err, DPA_EINVAL, "dptrain: no training examples");
    if (b < 1 || b > n) return dpt_fail(err, DPA_EINVAL, "dptrain: the batch size must lie in [1, %zu], got %zu", n, b);
    switch (kind) {
    case DPT_SAMPLING_TRUNCATED:
        if (param < 1 || param > n)
            return dpt_fail(err, DPA_EINVAL, "dptrain: truncated sampling needs a maximum batch size in [1, %zu], got "
                            "%zu", n, param);
        return DPA_OK;
    case DPT_SAMPLING_ALLOCATION:
        /* K <= t = ceil(K n / b) holds for every K since b <= n (K = t
         * when b = n: every record in every batch); the bound keeps the
         * K n uses of an epoch countable, and storable */
        if (param < 1)
            return dpt_fail(err, DPA_EINVAL, "dptrain: allocation sampling needs selected (K, the batches each record "
                            "is used in an epoch; --selected) of at least 1, got %zu", param);
        if ((uint64_t)param > (UINT64_C(1) << 53) / n || param > SIZE_MAX / sizeof(size_t) / n)
            return dpt_fail(err, DPA_EINVAL, "dptrain: allocation sampling: selected (--selected) = %zu uses of each of "
                            "%zu records an epoch are too many", param, n);
        return DPA_OK;
    default:
        if (param != 0)
            return dpt_fail(err, DPA_EINVAL, "dptrain: a maximum batch size (truncated sampling) or selected steps "
                            "(allocation) is not for sampling %s, got %zu", dpt_sampling_name(kind), param);
        return DPA_OK;
    }
}

int dpt_sampling_steps_param(dpt_sampling kind, size_t n, size_t b, size_t param, uint64_t epochs, uint64_t *steps,
                             dpa_error *err)
{
    int st = dpt_sampling_check(kind, n, b, param, err);
    if (st) return st;
    if (epochs < 1) return dpt_fail(err, DPA_EINVAL, "dptrain: epochs must be at least 1");
    if (epochs > (UINT64_C(1) << 53) / n)
        return dpt_fail(err, DPA_EINVAL, "dptrain: %llu epochs of %zu examples exceed 2^53 steps",
                        (unsigned long long)epochs, n);
    if (epoch_based(kind)) {
        /* t <= n but for allocation with K > b */
        const uint64_t t = (uint64_t)batches_per_epoch(kind, n, b, param);
        if (epochs > (UINT64_C(1) << 53) / t)
            return dpt_fail(err, DPA_EINVAL, "dptrain: %llu epochs of %llu batches exceed 2^53 steps",
                            (unsigned long long)epochs, (unsigned long long)t);
        *steps = epochs * t;
    } else   /* E n / b is exact in a double below 2^53; ceil of a quotient within an ulp of an integer */
        *steps = (uint64_t)ceil((double)epochs * (double)n / (double)b - 1e-9);
    return DPA_OK;
}

int dpt_sampling_steps(dpt_sampling kind, size_t n, size_t b, uint64_t epochs, uint64_t *steps, dpa_error *err)
{
    /* truncated: the cap does not change the steps; allocation's steps
     * depend on its K, which this older form lacks: refused (param 0) */
    return dpt_sampling_steps_param(kind, n, b, kind == DPT_SAMPLING_TRUNCATED ? n : 0, epochs, steps, err);
}

dpa_event *dpt_sampling_event(dpt_sampling kind, size_t n, size_t b, size_t param, uint64_t epochs,
                              double multiplier, dpa_error *err)
{
    uint64_t steps;
    if (dpt_sampling_steps_param(kind, n, b, param, epochs, &steps, err)) return NULL;
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
        e = dpa_event_truncated_poisson(q, (uint64_t)n + 1, param, e, err);
        return dpa_event_self_composed(e, steps, err);
    case DPT_SAMPLING_BALLS_IN_BINS:
    case DPT_SAMPLING_ALLOCATION:
        e = dpa_event_random_allocation((uint64_t)batches_per_epoch(kind, n, b, param),
                                        (uint64_t)uses_per_epoch(kind, param), e, err);
        return epochs > 1 ? dpa_event_self_composed(e, epochs, err) : e;
    }
    dpa_event_free(e);
    dpt_fail(err, DPA_EINVAL, "dptrain: unknown sampling %d", (int)kind);
    return NULL;
}

void dpt_sampling_describe(dpt_sampling kind, size_t n, size_t b, size_t param, uint64_t epochs,
                           double multiplier, char *buf, size_t size)
{
    uint64_t steps = 0;
    dpt_sampling_steps_param(kind, n, b, param, epochs, &steps, NULL);
    switch (kind) {
    case DPT_SAMPLING_SHUFFLE:
        snprintf(buf, size, "shuffled batches of exactly %zu (%zu an epoch, %zu records left out each), the Gaussian "
                 "(multiplier %.6g) once an epoch over %" PRIu64 " epochs: no amplification counted", b, n / b, n % b,
                 multiplier, epochs);
        return;
    case DPT_SAMPLING_BALLS_IN_BINS:
        snprintf(buf, size, "balls-in-bins batches (%zu an epoch, each record in one), random allocation "
                 "(Feldman & Shenfeld 2025) of the Gaussian (multiplier %.6g) over %" PRIu64 " epochs",
                 batches_per_epoch(kind, n, b, param), multiplier, epochs);
        return;
    case DPT_SAMPLING_ALLOCATION:
        snprintf(buf, size, "allocation batches (%zu an epoch, each record in a uniformly random %zu of them), "
                 "random allocation (Feldman & Shenfeld 2025) of the Gaussian (multiplier %.6g) over %" PRIu64
                 " epochs", batches_per_epoch(kind, n, b, param), param, multiplier, epochs);
        return;
    case DPT_SAMPLING_TRUNCATED:
        snprintf(buf, size, "truncated Poisson sampling (q = %.6g, at most %zu) of the Gaussian (multiplier %.6g) "
                 "composed over %" PRIu64 " steps", (double)b / (double)n, param, multiplier, steps);
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
    default: return "pld";   /* balls-in-bins and allocation too: Feldman & Shenfeld's decomposition,
                              * narrowed by their RDP bound (MNIST, K = 2: 5.89 against rdp's 52.3) */
    }
}

void dpt_sampler_free(dpt_sampler *s)
{
    if (!s) return;
    free(s->order);
    free(s->start);
    free(s->chosen);
    free(s->fill);
    free(s->taken);
    free(s);
}

int dpt_sampler_new(dpt_sampling kind, size_t n, size_t b, size_t param, dpt_rng *rng, dpt_sampler **out,
                    dpa_error *err)
{
    *out = NULL;
    int st = dpt_sampling_check(kind, n, b, param, err);
    if (st) return st;
    if (!rng) return dpt_fail(err, DPA_EINVAL, "dptrain: the sampler needs a generator");
    dpt_sampler *s = calloc(1, sizeof *s);
    if (!s) return dpt_fail(err, DPA_ENOMEM, "dptrain: out of memory");
    *s = (dpt_sampler){ .kind = kind, .n = n, .b = b, .param = param, .rng = rng };
    s->per_epoch = epoch_based(kind) ? batches_per_epoch(kind, n, b, param) : 0;
    s->next = s->per_epoch;
    s->uses = uses_per_epoch(kind, param);
    if (kind == DPT_SAMPLING_SHUFFLE) {
        s->order = malloc(n * sizeof *s->order);
        if (!s->order) st = DPA_ENOMEM;
        else
            for (size_t i = 0; i < n; i++) s->order[i] = i;
    }
    if (s->uses) {   /* n uses <= 2^53 and fits size_t (dpt_sampling_check) */
        s->order = malloc(n * s->uses * sizeof *s->order);
        s->chosen = malloc(n * s->uses * sizeof *s->chosen);
        s->start = malloc((s->per_epoch + 1) * sizeof *s->start);
        s->fill = malloc(s->per_epoch * sizeof *s->fill);
        s->taken = calloc(s->per_epoch, 1);
        if (!s->order || !s->chosen || !s->start || !s->fill || !s->taken) st = DPA_ENOMEM;
    }
    if (st) {
        dpt_sampler_free(s);
        return dpt_fail(err, DPA_ENOMEM, "dptrain: out of memory");
    }
    *out = s;
    return DPA_OK;
}

/* Allocation (and balls-in-bins, K = 1): each record's K batches, a
 * uniformly random K-subset of the t by Floyd's algorithm (for j = t-K ..
 * t-1: r uniform on {0..j}, taken already? then j; each K-subset comes out
 * with probability 1/C(t, K): Bentley & Floyd, CACM 1987), then the rows
 * sorted by batch (counting sort, rows in index order within a batch: the
 * order inside a batch does not change its sum).  K = 1 is one draw below
 * t per record, as balls-in-bins always drew. */
static void allocate_epoch(dpt_sampler *s)
{
    const size_t t = s->per_epoch, K = s->uses;
    memset(s->start, 0, (t + 1) * sizeof *s->start);
    for (size_t i = 0; i < s->n; i++) {
        size_t *mine = s->chosen + i * K;
        for (size_t j = t - K, k = 0; j < t; j++, k++) {
            size_t r = (size_t)dpt_rng_below(s->rng, (uint64_t)j + 1);
            if (s->taken[r]) r = j;
            s->taken[r] = 1;
            mine[k] = r;
            s->start[r + 1]++;
        }
        for (size_t k = 0; k < K; k++) s->taken[mine[k]] = 0;
    }
    for (size_t j = 0; j < t; j++) s->start[j + 1] += s->start[j];
    memcpy(s->fill, s->start, t * sizeof *s->fill);
    for (size_t i = 0; i < s->n; i++)
        for (size_t k = 0; k < K; k++) s->order[s->fill[s->chosen[i * K + k]]++] = i;
}

/* Poisson at q = b/n; truncated: a batch above param (its largest batch)
 * cut to a uniformly random param of its rows (a partial Fisher-Yates). */
static void poisson_batch(dpt_sampler *s, size_t *rows, size_t *count)
{
    double q = (double)s->b / (double)s->n;
    size_t c = 0;
    for (size_t i = 0; i < s->n; i++)
        if (dpt_rng_bernoulli(s->rng, q)) rows[c++] = i;
    if (s->kind == DPT_SAMPLING_TRUNCATED && c > s->param) {
        for (size_t i = 0; i < s->param; i++) {
            size_t j = i + (size_t)dpt_rng_below(s->rng, (uint64_t)(c - i));
            size_t tmp = rows[i];
            rows[i] = rows[j];
            rows[j] = tmp;
        }
        c = s->param;
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
    case DPT_SAMPLING_BALLS_IN_BINS:
    case DPT_SAMPLING_ALLOCATION: {
        if (s->next == s->per_epoch) {
            allocate_epoch(s);
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
