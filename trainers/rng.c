/*
 * rng.c - the generator behind every draw that protects privacy: ChaCha20
 * (libsodium), keyed from the operating system or, for reproducible and
 * therefore non-private runs, from a seed (see dptrain.h).
 *
 * Why libsodium: it is maintained, packaged by Debian (libsodium-dev), its
 * randombytes_buf reads getrandom(2) and its ChaCha20 is a reviewed
 * implementation; the project writes no cipher of its own.  Why a stream
 * cipher rather than randombytes_buf for every draw: the same code then
 * serves the secure and the seeded generator (only the key differs), and a
 * buffered stream is about a hundred times cheaper than a system call per
 * draw.
 */
#include <config.h>

#include "dpt_internal.h"

#include <gsl/gsl_rng.h>
#include <sodium.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RNG_BUFFER = 4096 };

struct dpt_rng {
    unsigned char key[crypto_stream_chacha20_KEYBYTES];
    uint64_t block;                 /* the nonce of the next refill: each refill is its own stream */
    unsigned char buf[RNG_BUFFER];
    size_t used;                    /* bytes of buf consumed */
    int seeded;
};

static pthread_once_t sodium_once = PTHREAD_ONCE_INIT;
static int sodium_status;

static void sodium_start(void)
{
    sodium_status = sodium_init() < 0 ? -1 : 0;
}

static int rng_alloc(dpt_rng **out, dpa_error *err)
{
    *out = NULL;
    pthread_once(&sodium_once, sodium_start);
    if (sodium_status < 0) return dpt_fail(err, DPA_EINTERNAL, "libsodium could not be initialised");
    dpt_rng *r = calloc(1, sizeof *r);
    if (!r) return dpt_fail(err, DPA_ENOMEM, "cannot allocate the random number generator");
    r->used = RNG_BUFFER;           /* empty: the first draw refills */
    *out = r;
    return DPA_OK;
}

int dpt_rng_new_secure(dpt_rng **out, dpa_error *err)
{
    if (!out) return dpt_fail(err, DPA_EINVAL, "dpt_rng_new_secure: out is NULL");
    int st = rng_alloc(out, err);
    if (st) return st;
    randombytes_buf((*out)->key, sizeof (*out)->key);
    return DPA_OK;
}

int dpt_rng_new_seeded(uint64_t seed, dpt_rng **out, dpa_error *err)
{
    if (!out) return dpt_fail(err, DPA_EINVAL, "dpt_rng_new_seeded: out is NULL");
    int st = rng_alloc(out, err);
    if (st) return st;
    /* The key is a hash of a label and the seed (little-endian), so that
     * nearby seeds give unrelated streams. */
    unsigned char msg[32] = "dpacct seeded ChaCha20 stream";
    for (int k = 0; k < 8; k++) msg[24 + k] = (unsigned char)(seed >> (8 * k));
    crypto_generichash((*out)->key, sizeof (*out)->key, msg, sizeof msg, NULL, 0);
    (*out)->seeded = 1;
    return DPA_OK;
}

void dpt_rng_free(dpt_rng *r)
{
    if (!r) return;
    sodium_memzero(r, sizeof *r);
    free(r);
}

int dpt_rng_is_seeded(const dpt_rng *r)
{
    return r ? r->seeded : 0;
}

const char *dpt_rng_privacy_note(const dpt_rng *r)
{
    return r && r->seeded ? "not private: reproducible noise (--seed)" : "";
}

static void refill(dpt_rng *r)
{
    unsigned char nonce[crypto_stream_chacha20_NONCEBYTES];
    for (size_t k = 0; k < sizeof nonce; k++) nonce[k] = (unsigned char)(r->block >> (8 * k));
    r->block++;
    crypto_stream_chacha20(r->buf, sizeof r->buf, nonce, r->key);
    r->used = 0;
}

uint64_t dpt_rng_u64(dpt_rng *r)
{
    if (r->used + 8 > RNG_BUFFER) refill(r);
    uint64_t x = 0;
    for (int k = 0; k < 8; k++) x |= (uint64_t)r->buf[r->used + (size_t)k] << (8 * k);
    r->used += 8;
    return x;
}

double dpt_rng_uniform(dpt_rng *r)
{
    return (double)(dpt_rng_u64(r) >> 11) * 0x1p-53;
}

uint64_t dpt_rng_below(dpt_rng *r, uint64_t n)
{
    if (n <= 1) return 0;
    /* Rejection of the top partial copy of [0, n): 2^64 mod n values are
     * refused, so that every residue has the same number of preimages. */
    uint64_t reject_below = (0 - n) % n;    /* 2^64 mod n */
    for (;;) {
        uint64_t x = dpt_rng_u64(r);
        if (x >= reject_below) return x % n;
    }
}

int dpt_rng_bernoulli(dpt_rng *r, double q)
{
    if (!(q > 0.0)) return 0;
    if (q >= 1.0) return 1;
    /* U < q, U = 0.b1 b2 ... drawn 64 bits at a time: q 2^64 is exact in
     * double, its integer part the next 64 bits of q's expansion, and the
     * remainder is exact too (q has 53 significant bits), so the loop ends
     * once the expansion does (at most 17 rounds for q >= DBL_TRUE_MIN). */
    double rest = q;
    while (rest > 0.0) {
        double scaled = rest * 0x1p64;
        double whole = floor(scaled);
        uint64_t digits = whole >= 0x1p64 ? UINT64_MAX : (uint64_t)whole;
        uint64_t u = dpt_rng_u64(r);
        if (u < digits) return 1;
        if (u > digits) return 0;
        rest = scaled - whole;
    }
    return 0;
}

void dpt_rng_shuffle(dpt_rng *r, size_t *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)dpt_rng_below(r, (uint64_t)i);
        size_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

unsigned dpt_rng_truncated_geometric(dpt_rng *r, unsigned K)
{
    /* P[k] proportional to 2^-k on {0..K-1}: the number of leading 1 bits
     * of a fair coin sequence (P[k] = 2^-(k+1) untruncated), restarted when
     * it reaches K; the restart conditions on {k < K} without changing the
     * ratios. */
    if (K <= 1) return 0;
    for (;;) {
        unsigned k = 0;
        for (;;) {
            uint64_t u = dpt_rng_u64(r);
            unsigned ones = u == UINT64_MAX ? 64u : (unsigned)__builtin_ctzll(~u);
            k += ones;
            if (k >= K || ones < 64) break;
        }
        if (k < K) return k;
    }
}

/* ---- a gsl_rng view: GSL calls get (a 32-bit word) and get_double ---------- */

typedef struct {
    dpt_rng *owner;
} gsl_view;

static void view_set(void *state, unsigned long seed)
{
    (void)state;
    (void)seed;     /* the stream is the owner's: a seed here would be a second, public key */
}

static unsigned long view_get(void *state)
{
    return (unsigned long)(dpt_rng_u64(((gsl_view *)state)->owner) >> 32);
}

static double view_get_double(void *state)
{
    return dpt_rng_uniform(((gsl_view *)state)->owner);
}

static const gsl_rng_type view_type = {
    "dpt_chacha20", 0xffffffffUL, 0, sizeof(gsl_view), view_set, view_get, view_get_double
};

void *dpt_rng_gsl(dpt_rng *r, dpa_error *err)
{
    if (!r) {
        dpt_fail(err, DPA_EINVAL, "dpt_rng_gsl: the generator is NULL");
        return NULL;
    }
    dpt_gsl_quiet();
    gsl_rng *g = gsl_rng_alloc(&view_type);
    if (!g) {
        dpt_fail(err, DPA_ENOMEM, "cannot allocate the random number generator");
        return NULL;
    }
    ((gsl_view *)g->state)->owner = r;
    return g;
}

/* ---- helpers of the trainers (dpt_internal.h) ---------------------------- */

int dpt_run_rng(dpt_rng *given, int private_run, unsigned long seed, const char *who, dpt_rng **use, dpt_rng **owned,
                dpa_error *err)
{
    *use = given;
    *owned = NULL;
    if (given) return DPA_OK;
    if (private_run)
        return dpt_fail(err, DPA_EINVAL, "%s: a private run needs a generator in the options' rng "
                        "(dpt_rng_new_secure; dpt_rng_new_seeded only for reproducible, non-private runs)", who);
    int st = dpt_rng_new_seeded((uint64_t)seed, owned, err);
    if (!st) *use = *owned;
    return st;
}

void dpt_accounting_note(char *buf, size_t size, const char *note)
{
    if (!note || !*note || !size) return;
    size_t len = strlen(buf);
    if (len + 1 >= size) return;
    snprintf(buf + len, size - len, "%s%s", len ? "; " : "", note);
}
