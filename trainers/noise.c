/*
 * noise.c - additive noise that does not leak through floating point (see
 * dptrain.h, "randomness").
 *
 * What is returned.  For Z of a continuous law (Gaussian N(0, sigma^2),
 * Laplace of density e^(-|z|/b) / (2b), or that Laplace conditioned on
 * [-A, A]) the samplers return the double nearest to k g, where
 * g = 2^(floor(log2 s) - 20) (s = sigma or b) and k is the integer with
 * v + Z in [(k - 1/2) g, (k + 1/2) g) for an EXACT draw Z.  That is a fixed
 * function of v + Z, the output of the exact continuous mechanism, so every
 * privacy guarantee of that mechanism holds for it unchanged
 * (post-processing).  The textbook v + z computed in floating point is no
 * such function: which doubles it can reach depends on v, and Mironov
 * ("On significance of the least significant bits for differential
 * privacy", CCS 2012) recovers v from the low bits of such releases.
 *
 * How k is found: inversion.  U is uniform on (0, 1), its binary digits
 * drawn 64 at a time and only as needed, and Z = F^-1(U) (F the CDF of Z),
 * so k is the integer with F(a_k) <= U < F(a_{k+1}), a_k = (k - 1/2) g - v.
 * Writing v = (c + f) g with c an integer and |f| <= 1/2 (exact: g is a
 * power of two) and k = c + j, a_k = (j - 1/2 - f) g: only f enters, so the
 * size of v costs no precision anywhere below (|v| >= 2^52 g makes v itself
 * a multiple of g: f = 0).
 *
 * 1. The double path.  The first 53 bits of U put it in [u0, u0 + 2^-53];
 *    F^-1 of both ends in double, widened by the margin below, give bounds
 *    on T = f + Z/g; when both round to the same integer, that is j.
 * 2. The MPFR path, rigorous, for the rest: a search over j (from the
 *    double quantile's guess, galloping then bisecting) whose every step
 *    decides "Z < a_j", i.e. "U < F(a_j)", with an enclosure of F(a_j) by
 *    MPFR's correctly rounded erfc / exp / expm1 under directed rounding,
 *    compared with U's known interval [u, u + 2^-n).  When the two overlap,
 *    64 more bits of U are drawn and the precision is raised by 64.  Each
 *    law is symmetric, so F is evaluated through its small tail
 *    T(y) = P(Z <= -y s): F(a) = T(-a/s) for a <= 0 and 1 - F(a) = T(a/s)
 *    for a > 0, compared with 1 - U; no cancellation near either end.
 *
 * The margin of the double path, in grid steps: 2^-44 |Z/g| + 2^-32.  It
 * has to dominate the error of the double quantile, which is within
 * 2^-47 (32 ulps) of the truth, relatively: GSL's gsl_cdf_ugaussian_Pinv
 * is Wichura's AS 241 (PPND16), "accurate to about 1 part in 10^16",
 * evaluated as rational functions of degree 7 (a few ulps more;
 * tests/test_noise.c measures it against MPFR at multiples of 2^-53 in
 * [2^-53, 1/2]: below 2^-50, and fails above 2^-47); the Laplace quantiles
 * are one log of an exact argument, the truncated one's one log or log1p
 * of an argument whose error reaches y within a factor of 2 (see
 * tail_inv), with glibc's exp, expm1, log and log1p within 1 to 2 ulps
 * (the glibc manual, "Errors in Math Functions"), and the product by s/g
 * exact.  The two roundings of f + Z/g -/+ margin add at most
 * 2^-52 (1 + |Z/g|).  2^-44 relative is 8 times that sum, and about 80
 * times the largest error measured; the absolute 2^-32 covers an
 * underflowed f (|v| < 2^-1022 g) and quantiles near 0.  What the margin
 * costs: a draw goes to MPFR when its widened interval meets a boundary
 * (j +- 1/2), about 2^-43 E|Z|/g ~ 1e-7 of the draws, plus the tails where
 * 2^-53 of U is wider than a grid step (|Z| > 6.4 sigma, or 22 b, rarer
 * still): about 1e-7 in all, and the same for every v, since only f
 * enters (tests/test_noise.c and `make bench` measure it).
 *
 * Termination.  The search ends with probability 1, in practice after one
 * round: each further round of a comparison has probability about 2^-64
 * (U within the enclosure's width of F(a_j)).  U's bits are capped at NOISE_MAX_BITS (2^16); at the cap, which
 * has probability about 2^-65000, a comparison is decided by U's lower end
 * against the enclosure's lower end (so still a valid draw for all
 * practical purposes, no longer certified).  j is kept in [-2^53, 2^53]
 * (|Z| < 2^33 s): beyond that lies probability below e^-(2^32), which the
 * cap makes unreachable anyway.
 *
 * Output.  k g is exact in double for |k| < 2^53, and otherwise (|v| >= 2^52 g)
 * v + j g rounded once is the double nearest to k g; with valid arguments
 * it cannot overflow (|j g| <= 2^863 is below half an ulp of DBL_MAX), NAN
 * all the same if it did.
 */
#include <config.h>

#include "dpt_internal.h"

#include <gsl/gsl_cdf.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <mpfr.h>

#define MARGIN_REL 0x1p-44
#define MARGIN_ABS 0x1p-32
#define NOISE_MAX_BITS 65536
#define J_MAX (INT64_C(1) << 53)

int dpt_noise_check_scale(double s, const char *who, dpa_error *err)
{
    if (!(s >= DPT_NOISE_MIN_SCALE && s <= DPT_NOISE_MAX_SCALE))
        return dpt_fail(err, DPA_EINVAL, "%s: the noise scale %.17g is outside [%g, %g]", who, s,
                        DPT_NOISE_MIN_SCALE, DPT_NOISE_MAX_SCALE);
    return DPA_OK;
}

typedef struct {
    int law;            /* DPT_NOISE_GAUSSIAN, ... */
    double v, s, A;
    long eg;            /* g = 2^eg */
    double g, sg;       /* g, and s / g (exact, in [2^20, 2^21)) */
    int on_grid;        /* |v| >= 2^52 g: v is a multiple of g, f = 0 */
    double c, f;        /* otherwise v = (c + f) g, c an integer (|c| <= 2^52), |f| <= 1/2 */
    double E, D;        /* truncated Laplace: e^-alpha and 1 - e^-alpha, alpha = A / b */
} noise_law;

/* Where U's 64-bit words come from: a probe's prefix, then the generator. */
typedef struct {
    dpt_rng *r;
    const uint64_t *prefix;
    size_t nprefix, used;
} word_source;

static inline uint64_t next_word(word_source *w)
{
    uint64_t x = w->used < w->nprefix ? w->prefix[w->used] : dpt_rng_u64(w->r);
    w->used++;
    return x;
}

static int law_setup(noise_law *L, int law, double v, double s, double A)
{
    if (!isfinite(v) || !(s >= DPT_NOISE_MIN_SCALE && s <= DPT_NOISE_MAX_SCALE)) return -1;
    if (law == DPT_NOISE_TRUNCATED_LAPLACE && !(A >= DPT_NOISE_MIN_SCALE && A <= DPT_NOISE_MAX_SCALE)) return -1;
    if (law != DPT_NOISE_GAUSSIAN && law != DPT_NOISE_LAPLACE && law != DPT_NOISE_TRUNCATED_LAPLACE) return -1;
    int e;
    frexp(s, &e);                       /* s = m 2^e, m in [1/2, 1): floor(log2 s) = e - 1 */
    L->law = law;
    L->v = v;
    L->s = s;
    L->A = A;
    L->eg = e - 21;
    L->g = ldexp(1.0, e - 21);
    L->sg = ldexp(s, 21 - e);
    L->on_grid = fabs(v) >= ldexp(1.0, e - 21 + 52);
    L->c = L->f = 0.0;
    if (!L->on_grid) {
        double vg = ldexp(v, 21 - e);   /* exact unless below 2^-1022 (then f's error is < 2^-1074) */
        L->c = nearbyint(vg);
        L->f = vg - L->c;
    }
    L->E = L->D = 0.0;
    if (law == DPT_NOISE_TRUNCATED_LAPLACE) {
        /* One of them by exp or expm1, the other as 1 minus it where that
         * is at least 1/2 (relative error 2^-53).  alpha may round to 0 or
         * +inf: E or D is then exact to far below the margin. */
        double alpha = A / s;
        if (alpha < 0.6931471805599453) {
            L->D = -expm1(-alpha);
            L->E = 1.0 - L->D;
        } else {
            L->E = alpha < 740.0 ? exp(-alpha) : 0.0;
            L->D = 1.0 - L->E;
        }
    }
    return 0;
}

/* The y >= 0 with T(y) = P(Z <= -y s) = t, for t in (0, 1/2], in double. */
static inline double tail_inv(const noise_law *L, double t)
{
    switch (L->law) {
    case DPT_NOISE_GAUSSIAN:
        return -gsl_cdf_ugaussian_Pinv(t);
    case DPT_NOISE_LAPLACE:
        return -log(2.0 * t);
    default: {
        /* T(y) = (e^-y - E) / (2 D), so e^-y = w + (1 - w) E = 1 - (1 - w) D
         * with w = 2t (1 - w exact for the double path's t).  log1p while
         * its argument is above -1/2 (condition number <= 1.44); below, the
         * log of the sum of two positive terms, whose error in y is within
         * a factor 2 of D's or E's relative error. */
        double w = 2.0 * t, om = 1.0 - w, x = om * L->D;
        return x <= 0.5 ? -log1p(-x) : -log(w + om * L->E);
    }
    }
}

/* The double path: 1 and *j when the first 53 bits of U decide. */
static inline int fast_path(const noise_law *L, uint64_t w0, int64_t *j)
{
    uint64_t m = w0 >> 11;              /* U in [m 2^-53, (m + 1) 2^-53] */
    if (m == 0 || m == (UINT64_C(1) << 53) - 1) return 0;     /* a quantile would be infinite */
    double ulo = (double)m * 0x1p-53, uhi = (double)(m + 1) * 0x1p-53, zlo, zhi;   /* Z / g at U's ends */
    if (m < (UINT64_C(1) << 52)) {
        zlo = -L->sg * tail_inv(L, ulo);
        zhi = -L->sg * tail_inv(L, uhi);
    } else {
        zlo = L->sg * tail_inv(L, 1.0 - ulo);        /* 1 - u exact (Sterbenz) */
        zhi = L->sg * tail_inv(L, 1.0 - uhi);
    }
    double lo = L->f + zlo - (MARGIN_REL * fabs(zlo) + MARGIN_ABS);
    double hi = L->f + zhi + (MARGIN_REL * fabs(zhi) + MARGIN_ABS);
    double jl = nearbyint(lo), jh = nearbyint(hi);
    if (!(jl == jh && lo - jl > -0.5 && hi - jh < 0.5)) return 0;   /* NaN and infinities fail here */
    *j = (int64_t)jl;
    return 1;
}

/* ---- the MPFR path ---------------------------------------------------------- */

typedef struct {
    const noise_law *L;
    word_source *src;
    mpfr_prec_t n;                          /* U in [ulo, ulo + 2^-n) */
    mpfr_t ulo, uhi, omlo, omhi;            /* ulo, ulo + 2^-n, 1 - uhi, 1 - ulo: exact */
    mpfr_t f;                               /* v / g - c, exact */
    mpfr_t a, yl, yh, al, ah, t1, t2, tlo, thi;
} slow_state;

static void interval_ends(slow_state *S)
{
    mpfr_set_prec(S->uhi, S->n);
    mpfr_set_ui_2exp(S->uhi, 1, -S->n, MPFR_RNDN);
    mpfr_add(S->uhi, S->uhi, S->ulo, MPFR_RNDN);    /* a multiple of 2^-n in (0, 1]: exact */
    mpfr_set_prec(S->omlo, S->n);
    mpfr_ui_sub(S->omlo, 1, S->uhi, MPFR_RNDN);
    mpfr_set_prec(S->omhi, S->n);
    mpfr_ui_sub(S->omhi, 1, S->ulo, MPFR_RNDN);
}

static void add_word(slow_state *S)
{
    uint64_t w = next_word(S->src);
    S->n += 64;
    mpfr_prec_round(S->ulo, S->n, MPFR_RNDN);       /* more bits: exact */
    mpfr_set_prec(S->t1, 64);
    mpfr_set_uj_2exp(S->t1, w, -S->n, MPFR_RNDN);
    mpfr_add(S->ulo, S->ulo, S->t1, MPFR_RNDN);     /* exact */
    interval_ends(S);
}

/* tlo <= T(y) <= thi for every y in [yl, yh] (0 <= yl <= yh). */
static void tail_enclosure(slow_state *S)
{
    const noise_law *L = S->L;
    switch (L->law) {
    case DPT_NOISE_GAUSSIAN:            /* T(y) = erfc(y / sqrt 2) / 2, erfc decreasing */
        mpfr_sqrt_ui(S->t1, 2, MPFR_RNDU);
        mpfr_div(S->t1, S->yl, S->t1, MPFR_RNDD);
        mpfr_erfc(S->thi, S->t1, MPFR_RNDU);
        mpfr_sqrt_ui(S->t1, 2, MPFR_RNDD);
        mpfr_div(S->t1, S->yh, S->t1, MPFR_RNDU);
        mpfr_erfc(S->tlo, S->t1, MPFR_RNDD);
        break;
    case DPT_NOISE_LAPLACE:             /* T(y) = e^-y / 2 */
        mpfr_neg(S->t1, S->yl, MPFR_RNDN);
        mpfr_exp(S->thi, S->t1, MPFR_RNDU);
        mpfr_neg(S->t1, S->yh, MPFR_RNDN);
        mpfr_exp(S->tlo, S->t1, MPFR_RNDD);
        break;
    default:
        /* T(y) = e^-y (1 - e^-(alpha - y)) / (2 (1 - e^-alpha)) for y <= alpha,
         * 0 beyond; each factor bounded on its own side, with alpha = A / b
         * in [al, ah].  -expm1(-d) rounded one way is 1 - e^-d rounded the
         * other. */
        mpfr_set_d(S->t1, L->A, MPFR_RNDN);
        mpfr_div_d(S->al, S->t1, L->s, MPFR_RNDD);
        mpfr_div_d(S->ah, S->t1, L->s, MPFR_RNDU);
        /* upper bound: y = yl, alpha = ah in the numerator, al in the denominator */
        mpfr_sub(S->t1, S->ah, S->yl, MPFR_RNDU);
        if (mpfr_sgn(S->t1) <= 0) {
            mpfr_set_zero(S->thi, 1);
        } else {
            mpfr_neg(S->t1, S->t1, MPFR_RNDN);
            mpfr_expm1(S->t1, S->t1, MPFR_RNDD);
            mpfr_neg(S->t1, S->t1, MPFR_RNDN);          /* >= 1 - e^-(ah - yl) */
            mpfr_neg(S->t2, S->yl, MPFR_RNDN);
            mpfr_exp(S->t2, S->t2, MPFR_RNDU);
            mpfr_mul(S->thi, S->t1, S->t2, MPFR_RNDU);
            mpfr_neg(S->t1, S->al, MPFR_RNDN);
            mpfr_expm1(S->t1, S->t1, MPFR_RNDU);
            mpfr_neg(S->t1, S->t1, MPFR_RNDN);          /* <= 1 - e^-al, > 0 */
            mpfr_div(S->thi, S->thi, S->t1, MPFR_RNDU);
        }
        /* lower bound: y = yh, alpha = al in the numerator, ah in the denominator */
        mpfr_sub(S->t1, S->al, S->yh, MPFR_RNDD);
        if (mpfr_sgn(S->t1) <= 0) {
            mpfr_set_zero(S->tlo, 1);
        } else {
            mpfr_neg(S->t1, S->t1, MPFR_RNDN);
            mpfr_expm1(S->t1, S->t1, MPFR_RNDU);
            mpfr_neg(S->t1, S->t1, MPFR_RNDN);          /* <= 1 - e^-(al - yh) */
            mpfr_neg(S->t2, S->yh, MPFR_RNDN);
            mpfr_exp(S->t2, S->t2, MPFR_RNDD);
            mpfr_mul(S->tlo, S->t1, S->t2, MPFR_RNDD);
            mpfr_neg(S->t1, S->ah, MPFR_RNDN);
            mpfr_expm1(S->t1, S->t1, MPFR_RNDD);
            mpfr_neg(S->t1, S->t1, MPFR_RNDN);          /* >= 1 - e^-ah */
            mpfr_div(S->tlo, S->tlo, S->t1, MPFR_RNDD);
        }
        break;
    }
    mpfr_div_2ui(S->tlo, S->tlo, 1, MPFR_RNDN);
    mpfr_div_2ui(S->thi, S->thi, 1, MPFR_RNDN);
}

/* Whether Z < a_j (U < F(a_j)): 1 or 0 when decided at the current bits of
 * U, -1 when not; at the cap (last) always decided, by the lower ends. */
static int decide(slow_state *S, int64_t j, int last)
{
    /* The precision: 64 bits beyond what U's interval resolves relative
     * to the smaller of U and 1 - U (only the ends of a tail are hard to
     * tell apart, relatively); it grows with n. */
    mpfr_srcptr side = mpfr_cmp_d(S->uhi, 0.5) <= 0 ? S->ulo : S->omlo;
    mpfr_prec_t p = S->n + 64 + (mpfr_zero_p(side) ? -S->n : mpfr_get_exp(side));
    if (p < 128) p = 128;
    mpfr_ptr vars[] = { S->a, S->yl, S->yh, S->al, S->ah, S->t1, S->t2, S->tlo, S->thi };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) mpfr_set_prec(vars[i], p);
    /* a_j / g = j - 1/2 - f, enclosed in [yl, yh] (exact when p suffices) */
    mpfr_set_sj(S->a, j, MPFR_RNDN);
    mpfr_sub_d(S->a, S->a, 0.5, MPFR_RNDN);         /* exact: |j| <= 2^53 < 2^(p - 2) */
    mpfr_sub(S->yl, S->a, S->f, MPFR_RNDD);
    mpfr_sub(S->yh, S->a, S->f, MPFR_RNDU);
    int upper;                          /* a_j > 0: compare 1 - U with T(a_j / s) */
    if (mpfr_sgn(S->yl) >= 0) {
        upper = 1;
    } else if (mpfr_sgn(S->yh) <= 0) {  /* a_j <= 0: compare U with T(-a_j / s) */
        upper = 0;
        mpfr_neg(S->yl, S->yl, MPFR_RNDN);
        mpfr_neg(S->yh, S->yh, MPFR_RNDN);
        mpfr_swap(S->yl, S->yh);
    } else {
        return last ? mpfr_sgn(S->a) > 0 : -1;    /* sign unknown: cannot happen once p covers f */
    }
    /* y = |a_j| / s = |a_j / g| g / s */
    mpfr_mul_2si(S->yl, S->yl, S->L->eg, MPFR_RNDN);
    mpfr_div_d(S->yl, S->yl, S->L->s, MPFR_RNDD);
    mpfr_mul_2si(S->yh, S->yh, S->L->eg, MPFR_RNDN);
    mpfr_div_d(S->yh, S->yh, S->L->s, MPFR_RNDU);
    tail_enclosure(S);
    if (!upper) {                       /* F(a_j) = T in [tlo, thi]; U in [ulo, uhi) */
        if (mpfr_cmp(S->uhi, S->tlo) <= 0) return 1;
        if (mpfr_cmp(S->ulo, S->thi) >= 0) return 0;
        return last ? mpfr_cmp(S->ulo, S->tlo) < 0 : -1;
    }
    /* 1 - F(a_j) = T; 1 - U in (omlo, omhi]; Z < a_j iff 1 - U > T */
    if (mpfr_cmp(S->omlo, S->thi) >= 0) return 1;
    if (mpfr_cmp(S->omhi, S->tlo) <= 0) return 0;
    return last ? mpfr_cmp(S->omhi, S->tlo) > 0 : -1;
}

static int below(slow_state *S, int64_t j)
{
    for (;;) {
        int d = decide(S, j, S->n >= NOISE_MAX_BITS);
        if (d >= 0) return d;
        add_word(S);
    }
}

/* A first j from the double quantile of U's interval, drawn first to a
 * relative width of 2^-50 on its smaller side (more bits of U than the
 * comparisons may need, which changes nothing: U is the same number). */
static int64_t first_guess(slow_state *S)
{
    int lower = mpfr_cmp_d(S->uhi, 0.5) <= 0;       /* U's interval never straddles 1/2 */
    for (;;) {
        mpfr_srcptr side = lower ? S->ulo : S->omlo;        /* the lower end of U or of 1 - U */
        if (S->n >= NOISE_MAX_BITS || (!mpfr_zero_p(side) && S->n >= 51 - mpfr_get_exp(side))) break;
        add_word(S);
    }
    mpfr_set_prec(S->t1, S->n + 1);
    if (lower) mpfr_set(S->t1, S->ulo, MPFR_RNDN);
    else mpfr_set(S->t1, S->omlo, MPFR_RNDN);
    mpfr_set_prec(S->t2, 64);
    mpfr_set_ui_2exp(S->t2, 1, -(S->n + 1), MPFR_RNDN);
    mpfr_add(S->t1, S->t1, S->t2, MPFR_RNDN);       /* the midpoint, exact */
    double t = mpfr_get_d(S->t1, MPFR_RNDN);
    if (!(t >= DBL_MIN)) t = DBL_MIN;               /* a guess only: the search corrects it */
    if (t > 0.5) t = 0.5;
    double y = tail_inv(S->L, t) * S->L->sg;
    double j = nearbyint(S->L->f + (lower ? -y : y));
    if (!(j > (double)-J_MAX)) return -J_MAX;
    if (!(j < (double)J_MAX)) return J_MAX;
    return (int64_t)j;
}

/* The j with Z in [a_j, a_{j+1}), from a guess: gallop to a bracket,
 * then bisect (invariant: Z >= a_lo, Z < a_hi). */
static int64_t search(slow_state *S, int64_t j0)
{
    int64_t lo, hi;
    if (below(S, j0)) {
        hi = j0;
        for (int64_t step = 1;; step *= 2) {
            lo = j0 - step < -J_MAX ? -J_MAX : j0 - step;
            if (!below(S, lo)) break;
            if (lo == -J_MAX) return -J_MAX;
            hi = lo;
        }
    } else {
        lo = j0;
        for (int64_t step = 1;; step *= 2) {
            hi = j0 + step > J_MAX ? J_MAX : j0 + step;
            if (below(S, hi)) break;
            if (hi == J_MAX) return J_MAX;
            lo = hi;
        }
    }
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (below(S, mid)) hi = mid;
        else lo = mid;
    }
    return lo;
}

static int64_t slow_path(const noise_law *L, word_source *src, uint64_t w0)
{
    slow_state S;
    S.L = L;
    S.src = src;
    S.n = 64;
    mpfr_inits2(64, S.ulo, S.uhi, S.omlo, S.omhi, S.f, S.a, S.yl, S.yh, S.al, S.ah, S.t1, S.t2, S.tlo, S.thi,
                (mpfr_ptr)0);
    mpfr_set_uj_2exp(S.ulo, w0, -64, MPFR_RNDN);
    interval_ends(&S);
    /* f = v 2^-eg - c: v's 53 bits shifted, less an integer, |f| <= 1/2: exact in 64 bits */
    mpfr_set_zero(S.f, 1);
    if (!L->on_grid) {
        mpfr_set_d(S.f, L->v, MPFR_RNDN);
        mpfr_mul_2si(S.f, S.f, -L->eg, MPFR_RNDN);
        mpfr_sub_d(S.f, S.f, L->c, MPFR_RNDN);
    }
    int64_t j = search(&S, first_guess(&S));
    mpfr_clears(S.ulo, S.uhi, S.omlo, S.omhi, S.f, S.a, S.yl, S.yh, S.al, S.ah, S.t1, S.t2, S.tlo, S.thi,
                (mpfr_ptr)0);
    /* MPFR keeps per-thread caches (constants, exp tables) that a thread
     * exiting without mpfr_free_cache leaks; the path is rare (about 1e-7
     * of the draws), so freeing this thread's caches each time costs
     * nothing and leaves a caller's threads nothing to clean up. */
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
    return j;
}

/* The double nearest to k g, k = c + j (or v + j g on the grid). */
static inline double finish(const noise_law *L, int64_t j)
{
    double out = L->on_grid ? L->v + (double)j * L->g : (double)((int64_t)L->c + j) * L->g;
    return isfinite(out) ? out : NAN;
}

static inline double draw(dpt_rng *r, int law, double v, double s, double A, dpt_noise_probe *probe)
{
    noise_law L;
    if (probe) {
        probe->slow = 0;
        probe->words = 0;
    }
    if (!r || law_setup(&L, law, v, s, A)) return NAN;
    word_source src = { r, probe ? probe->prefix : NULL, probe && probe->prefix ? probe->nprefix : 0, 0 };
    uint64_t w0 = next_word(&src);
    int64_t j;
    int slow = 0;
    if ((probe && probe->force_slow) || !fast_path(&L, w0, &j)) {
        j = slow_path(&L, &src, w0);
        slow = 1;
    }
    if (probe) {
        probe->slow = slow;
        probe->words = src.used;
    }
    return finish(&L, j);
}

double dpt_noise_gaussian(dpt_rng *r, double v, double sigma)
{
    return draw(r, DPT_NOISE_GAUSSIAN, v, sigma, 0.0, NULL);
}

double dpt_noise_laplace(dpt_rng *r, double v, double b)
{
    return draw(r, DPT_NOISE_LAPLACE, v, b, 0.0, NULL);
}

double dpt_noise_truncated_laplace(dpt_rng *r, double v, double b, double A)
{
    return draw(r, DPT_NOISE_TRUNCATED_LAPLACE, v, b, A, NULL);
}

double dpt_noise_probe_draw(dpt_rng *r, int law, double v, double s, double A, dpt_noise_probe *probe)
{
    return draw(r, law, v, s, A, probe);
}
