/*
 * shuffle_clones.c - the clones pair of amplification by shuffling,
 * evaluated exactly (to tracked long-double error bounds).
 *
 * The pair (Feldman, McMillan & Talwar 2021, "Hiding among the clones",
 * Thm 3.2 and Sec. 4).  With a = e^eps0 / (e^eps0 + 1), C ~ Bin(n - 1, p)
 * the number of other users that act as clones and, given C = c,
 *   P_c = a Bin(c, 1/2) + (1 - a) (Bin(c, 1/2) + 1),
 *   Q_c = (1 - a) Bin(c, 1/2) + a (Bin(c, 1/2) + 1),
 * the shuffled output is a post-processing of (C, K) under P or Q, so
 *   delta(eps) <= sum_c Pr(C = c) H_{e^eps}(P_c || Q_c).
 * Q_c is P_c reflected (k -> c + 1 - k), so both directions agree.
 *
 * Why it holds, and what p is.  Let R_0, R_1 be the differing user's two
 * output distributions and R_i another user's.  (i) Because R_0 and R_1
 * are eps0-indistinguishable, R_0 = a U + (1 - a) V and
 * R_1 = (1 - a) U + a V for the distributions U = (a R_0 - (1 - a) R_1) /
 * (2a - 1) and V likewise (both >= 0 exactly because R_0 >= e^-eps0 R_1
 * and R_1 >= e^-eps0 R_0).  (ii) If every R_i >= p (U + V) / 2 pointwise,
 * R_i = p (U + V)/2 + (1 - p) LO_i, so with probability p user i outputs
 * a U or a V sample with probability 1/2 each; given who is a clone, the
 * multiset of outputs is a post-processing of (number of U samples,
 * number of V samples), which is (K + D, C - K + 1 - D) with K ~ Bin(C, 1/2)
 * and D ~ Bern(a) under R_0 (Bern(1 - a) under R_1): the pair above.
 *   - Any eps0-DP randomizer: U + V = R_0 + R_1 and
 *     R_i >= e^-eps0 max(R_0, R_1) >= e^-eps0 (R_0 + R_1)/2: p = e^-eps0
 *     (FMT21).
 *   - The class with R_i(y) >= (R_x'(y) + R_x''(y)) / (e^eps0 + 1) for all
 *     inputs i, x', x'' and outputs y (k-ary randomized response is in it,
 *     with equality at y = x' != i): p = 2 / (e^eps0 + 1) > e^-eps0.
 *     This is the decomposition of the "stronger clones" analysis of
 *     Feldman, McMillan & Talwar 2023 (SODA); their erratum restricts its
 *     general statement to such randomizers, so the class is the caller's
 *     declaration (DPA_LOCAL_RR_CLASS), never assumed.
 *   - (eps0, delta0)-DP randomizers: Feldman, McMillan & Talwar 2021,
 *     Thm 3.8: the shuffled outputs of n sequentially adaptive
 *     (eps0, delta0)-DP randomizers are
 *       (eps, delta + (e^eps + 1)(1 + e^-eps0 / 2) n delta0)-DP
 *     where (eps, delta) is the guarantee of n eps0-DP randomizers (their
 *     Thm 3.1).  The additive term is the price, in delta at eps, of
 *     replacing the randomizers by eps0-DP ones within a total variation
 *     distance (a distance M costs (e^eps + 1) M); what follows the
 *     replacement is the eps0-DP analysis, so the pair above (p = e^-eps0,
 *     computed exactly) takes the place of Thm 3.1's closed form:
 *       delta(eps) <= delta_p(eps) + (e^eps + 1)(1 + e^-eps0 / 2) n delta0,
 *     the term rounded up (clones_hybrid_delta).  An unpublished sharper
 *     term, (1 + e^eps)(n - 1) e^-eps0 delta0 on a pair that flagged the
 *     differing user with probability delta0, was used here before; it was
 *     removed, its proof being neither written out in docs/ nor checked
 *     against an exact computation of the shuffled pair.
 *
 * One H_c in closed form: P_c / Q_c decreases in k, and P_c(k) > e^eps Q_c(k)
 * iff k < beta (c + 1), beta = (e^eps0 - e^eps) / ((e^eps0 - 1)(e^eps + 1)),
 * so with F the CDF of Bin(c, 1/2), b its pmf and kappa the largest such k,
 *   H_c = A b(kappa) - (e^eps - 1) F(kappa - 1),  A = (1 - e^{eps - eps0}) / (1 + e^-eps0),
 *   Q_c(L > eps) = (1 - a) b(kappa) + F(kappa - 1).
 * Each sum over c is computed by walking c in long double (see walk_sum),
 * over a window of +-14 standard deviations of C, the tails bounded by
 * Chernoff.  What limits n is the log-gamma start of the walks (relative
 * error ~ n log n ulps of long double): up to 1e9.
 */
#include "shuffle_clones.h"
#include "internal.h"
#include "numerics.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define WINDOW_SD 14.0
/* Bin(c, 1/2) outside [k_lo, k_hi] = c/2 -+ (k_window_sd sd + 1) holds at
 * most 2 exp(-2 t^2 / c) = 2 e^{-k_window_sd^2 / 2} (Hoeffding, t = sd z). */
#define KWINDOW_SD 10.0

typedef long double ld;

/* The unit of the long double error terms below, measured at run time.
 * LDBL_EPSILON (2^-63 on x86-64) describes the format, not necessarily the
 * arithmetic: valgrind emulates x87 long doubles with 64-bit doubles, and
 * the x87 precision control may be set to 53 bits (the default on some
 * systems, or by an application), so results can carry double rounding
 * errors (2^-52) while LDBL_EPSILON claims 2^-63.  Every error bound here
 * is a multiple of ULD, so measuring it (the smallest power of two u with
 * 1 + u != 1 in long double arithmetic, through volatiles so that nothing
 * is folded at compile time) keeps the brackets certified there, only
 * wider.  The libm long double functions (lgammal, expl, logl, ...) run on
 * the same arithmetic, and their few-ulp errors scale with it. */
static ld uld_measured = LDBL_EPSILON;
static atomic_int uld_ready;          /* set (release) once uld_measured is */
static pthread_once_t uld_once = PTHREAD_ONCE_INIT;

static void uld_measure(void)
{
    volatile ld one = 1.0L, u = 1.0L, half, sum;
    for (;;) {
        half = u * 0.5L;
        sum = one + half;
        if (sum == one) break;
        u = half;
    }
    uld_measured = u > LDBL_EPSILON ? u : LDBL_EPSILON;
    atomic_store_explicit(&uld_ready, 1, memory_order_release);
}

/* One acquire load once measured: the walks use it in their inner loops. */
static inline ld unit_roundoff(void)
{
    if (!atomic_load_explicit(&uld_ready, memory_order_acquire)) pthread_once(&uld_once, uld_measure);
    return uld_measured;
}

#define ULD (unit_roundoff())

clones_pair clones_pair_make(double eps0, double delta0, uint64_t n, int randomizer_class)
{
    clones_pair cp = { .eps0 = eps0, .n = n, .delta0 = 0.0, .c_window_sd = WINDOW_SD, .k_window_sd = KWINDOW_SD };
    ld e0 = (ld)eps0;
    if (randomizer_class == DPA_LOCAL_RR_CLASS) {
        /* p = 2 / (e^eps0 + 1) = 2 e^-eps0 / (1 + e^-eps0), 1 - p = (1 - e^-eps0) / (1 + e^-eps0) */
        ld l1 = log1pl(expl(-e0));
        cp.log_p = logl(2.0L) - e0 - l1;
        cp.log_q = logl(-expm1l(-e0)) - l1;
    } else {
        /* p = e^-eps0; delta0 is charged by clones_hybrid_delta only (FMT21 Thm 3.8) */
        cp.delta0 = delta0;
        cp.log_p = -e0;
        cp.log_q = logl(-expm1l(-e0));
    }
    return cp;
}

/* log Bin(N, p)(k) from log-gammas, with a bound on its absolute error:
 * a few ulps of each term's magnitude (glibc's lgammal is good to a few
 * ulps; the terms reach N log N, which is what limits N). */
static ld log_binom(uint64_t N, uint64_t k, ld log_p, ld log_q, ld *abs_err)
{
    /* lgammal_r: lgammal writes the global signgam (a data race between
     * threads); every argument here is >= 1, so the sign is + */
    int sign;
    ld t[5] = { lgammal_r((ld)N + 1.0L, &sign), -lgammal_r((ld)k + 1.0L, &sign),
                -lgammal_r((ld)(N - k) + 1.0L, &sign),
                k ? (ld)k * log_p : 0.0L, N - k ? (ld)(N - k) * log_q : 0.0L };
    ld v = 0.0L, mag = 0.0L;
    for (int i = 0; i < 5; i++) { v += t[i]; mag += fabsl(t[i]); }
    *abs_err = 16.0L * ULD * (mag + 1.0L);
    return v;
}

/* Chernoff-Hoeffding: P(Bin(N, p) <= a) or P(Bin(N, p) >= a), by the side
 * of a against N p, <= exp(-N D(a/N || p)). */
static double binom_tail_bound(uint64_t N, double a, ld log_p, ld log_q)
{
    ld x = (ld)a / (ld)N;
    ld d = (x > 0.0L ? x * (logl(x) - log_p) : 0.0L) + (x < 1.0L ? (1.0L - x) * (log1pl(-x) - log_q) : 0.0L);
    return (double)fminl(1.0L, expl(-(ld)N * d) * (1.0L + 64.0L * ULD));
}

/* The window [lo, hi] of C ~ Bin(n - 1, p), the Chernoff bounds on the
 * mass below and above it, and the start of the weight walk. */
typedef struct {
    uint64_t N, lo, hi;
    double tail_lo, tail_hi;
    ld w_lo, ratio;           /* Pr(C = lo); p / (1 - p) */
    double weight_relerr;     /* of every weight the walk produces */
} clones_window;

static clones_window window_of(const clones_pair *cp)
{
    clones_window W = { .N = cp->n - 1 };
    ld p = expl(cp->log_p), q = expl(cp->log_q);
    double mean = (double)W.N * (double)p, sd = sqrt((double)W.N * (double)p * (double)q);
    double lo = floor(mean - cp->c_window_sd * sd) - 1.0, hi = ceil(mean + cp->c_window_sd * sd) + 1.0;
    W.lo = lo < 0.0 ? 0 : (uint64_t)lo;
    W.hi = hi > (double)W.N ? W.N : (uint64_t)hi;
    ld lerr;
    W.w_lo = expl(log_binom(W.N, W.lo, cp->log_p, cp->log_q, &lerr));
    W.ratio = expl(cp->log_p - cp->log_q);
    /* w(c + 1) = w(c) (N - c)/(c + 1) ratio: a few roundings per step */
    W.weight_relerr = (double)(expm1l(lerr) + 8.0L * ULD * (ld)(W.hi - W.lo + 2)) + DBL_EPSILON;
    W.tail_lo = W.lo > 0 ? binom_tail_bound(W.N, (double)W.lo - 1.0, cp->log_p, cp->log_q) : 0.0;
    W.tail_hi = W.hi < W.N ? binom_tail_bound(W.N, (double)W.hi + 1.0, cp->log_p, cp->log_q) : 0.0;
    return W;
}

/* The start of a walk at (c, k): b = Bin(c, 1/2)(k) from log-gammas and
 * F = Bin(c, 1/2)(<= k) summed downwards, the rest of the sum bounded by the
 * geometric tail of the (decreasing) term ratios; with their errors. */
static void walk_start(uint64_t c, uint64_t k, ld *b, ld *relb, ld *F, ld *absF)
{
    ld lerr, lh = logl(0.5L);
    *b = expl(log_binom(c, k, lh, lh, &lerr));
    *relb = expm1l(lerr) + 4.0L * ULD;
    ld sum = *b, term = *b, rest = 0.0L;
    for (uint64_t j = k; j > 0; j--) {
        ld r = (ld)j / (ld)(c - j + 1);          /* b(j - 1) / b(j), decreasing with j */
        term *= r;
        sum += term;
        if (r < 1.0L && term * r / (1.0L - r) < 1e-30L * sum) {
            rest = term * r / (1.0L - r);
            break;
        }
    }
    *F = sum;
    *absF = rest + sum * (*relb + 4.0L * ULD * (ld)(k + 2));
}

/* sum_c Pr(C = c) T_c with T_c = alpha b_c(kappa) + gamma F_c(kappa - 1),
 * clamped to [0, 1], kappa = ceil(beta (c + 1)) - 1 in [0, c], beta in
 * (0, 1], bracketed.  Beyond the window T_c is bounded by the last value
 * when `monotone` (T_c does not increase with c) and by 1 otherwise; below
 * it by 1.
 *
 * kappa grows by 0 or 1 from c to c + 1 (beta <= 1), and Bin(c + 1, 1/2) is
 * Bin(c, 1/2) plus a fair coin:
 *   F_{c+1}(k) = F_c(k) - b_c(k)/2,  b_{c+1}(k) = b_c(k) (c + 1) / (2 (c + 1 - k)),
 * so one start (a log-gamma pmf and a downward sum for F) and O(1) long
 * double work per c give every T_c, with tracked error bounds. */
static void walk_sum(const clones_pair *cp, ld beta, ld alpha, ld gamma, int monotone, double *lower,
                     double *upper)
{
    clones_window W = window_of(cp);
    uint64_t c = W.lo;
    ld kc = ceill(beta * ((ld)c + 1.0L)) - 1.0L;
    uint64_t k = kc < 0.0L ? 0 : kc > (ld)c ? c : (uint64_t)kc;
    ld b, relb, F, absF;
    walk_start(c, k, &b, &relb, &F, &absF);
    ld start_rel = F > 0.0L ? absF / F : 0.0L;
    ld w = W.w_lo;
    dpa_sum up = { 0 }, dn = { 0 };
    double rw = W.weight_relerr;
    for (;;) {
        /* T_c and its error: F(k - 1) = F - b, exactly 0 at k = 0 (where
         * gamma may be huge: -(e^eps - 1)) */
        ld f1 = 0.0L, f1err = 0.0L;
        if (k > 0) {
            f1 = fmaxl(0.0L, F - b);
            f1err = absF + b * relb + ULD * F;
        }
        ld t1 = alpha * b, t2 = gamma * f1;
        ld t = t1 + t2;
        ld terr = fabsl(t1) * (relb + 8.0L * ULD) + fabsl(gamma) * f1err + 8.0L * ULD * (fabsl(t1) + fabsl(t2));
        double tu = (double)fminl(1.0L, t + terr) * (1.0 + 4.0 * DBL_EPSILON);
        double tl = (double)fmaxl(0.0L, t - terr) * (1.0 - 4.0 * DBL_EPSILON);
        double wd = (double)w;
        dpa_sum_add(&up, wd * (1.0 + rw) * tu);
        dpa_sum_add(&dn, wd * (1.0 - rw) * tl);
        if (c == W.hi) {
            dpa_sum_add(&up, W.tail_hi * (monotone ? tu : 1.0) + W.tail_lo);
            break;
        }
        /* step to c + 1 */
        if (c < W.N) w *= (ld)(W.N - c) / (ld)(c + 1) * W.ratio;
        ld nb = b * (ld)(c + 1) / (2.0L * (ld)(c + 1 - k));
        F -= 0.5L * b;
        absF += 0.5L * b * relb + 2.0L * ULD * (F + b);
        b = nb;
        relb += 4.0L * ULD;
        c++;
        kc = ceill(beta * ((ld)c + 1.0L)) - 1.0L;
        if (kc > (ld)k && k < c) {                /* kappa moved up by one */
            b = b * (ld)(c - k) / (ld)(k + 1);
            k++;
            F += b;
            relb += 4.0L * ULD;
            absF += b * relb + 2.0L * ULD * F;
        }
        /* F_c+1 = F_c - b/2 keeps the absolute error while F shrinks: when
         * its relative error has doubled (plus 1e-15), start afresh here */
        if (absF > (2.0L * start_rel + 1e-15L) * F) {
            walk_start(c, k, &b, &relb, &F, &absF);
            start_rel = F > 0.0L ? absF / F : 0.0L;
        }
    }
    *upper = fmin(1.0, dpa_sum_value(&up) * (1.0 + 1e-13));
    *lower = fmax(0.0, dpa_sum_value(&dn) * (1.0 - 1e-13));
}

/* beta(eps) for eps in (-eps0, eps0), formed divided by e^eps0. */
static ld beta_of(const clones_pair *cp, ld e)
{
    ld e0 = (ld)cp->eps0;
    return -expm1l(e - e0) / (-expm1l(-e0) * (expl(e) + 1.0L));
}

/* delta of the pair (P_p, Q_p) at eps >= 0. */
static void clean_delta(const clones_pair *cp, double eps, double *lower, double *upper)
{
    if (!(eps < cp->eps0)) { *lower = *upper = 0.0; return; }   /* the pair is eps0-DP */
    ld e0 = (ld)cp->eps0, e = (ld)eps;
    ld A = -expm1l(e - e0) / (1.0L + expl(-e0));
    walk_sum(cp, beta_of(cp, e), A, -expm1l(e), 1, lower, upper);
}

void clones_delta(const clones_pair *cp, double eps, double *lower, double *upper)
{
    double lo, up;
    if (eps >= 0.0) clean_delta(cp, eps, &lo, &up);
    else {
        /* delta(eps) = 1 - e^eps + e^eps delta(-eps): the pair is symmetric */
        clean_delta(cp, -eps, &lo, &up);
        double base = -expm1(eps), s = exp(eps);
        lo = (base + s * lo) * (1.0 - 4.0 * DBL_EPSILON);
        up = fmin(1.0, (base + s * up) * (1.0 + 4.0 * DBL_EPSILON));
    }
    *lower = fmax(0.0, lo * (1.0 - 4.0 * DBL_EPSILON));
    *upper = fmin(1.0, up * (1.0 + 4.0 * DBL_EPSILON));
}

void clones_q_survival(const clones_pair *cp, double eps, double *lower, double *upper)
{
    double lo, up;
    if (!(eps < cp->eps0)) lo = up = 0.0;               /* L <= eps0 */
    else if (eps < -cp->eps0) lo = up = 1.0;            /* L >= -eps0 */
    else {
        ld e0 = (ld)cp->eps0;
        ld beta = eps == -cp->eps0 ? 1.0L : beta_of(cp, (ld)eps);
        walk_sum(cp, beta, 1.0L / (1.0L + expl(e0)), 1.0L, 0, &lo, &up);
    }
    *lower = lo * (1.0 - 4.0 * DBL_EPSILON);
    *upper = fmin(1.0, up * (1.0 + 4.0 * DBL_EPSILON));
}

static double loss_range_search(const clones_pair *cp, double mass);

double clones_loss_range(const clones_pair *cp, double mass)
{
    /* the pld accountant asks for the same range many times per query (a
     * bisection of 80 walks each): one entry per thread remembers it */
    static _Thread_local struct { int have; double eps0, mass; uint64_t n; long double log_p; double t; } memo;
    if (memo.have && memo.eps0 == cp->eps0 && memo.n == cp->n && memo.log_p == cp->log_p && memo.mass == mass)
        return memo.t;
    double t = loss_range_search(cp, mass);
    memo.have = 1;
    memo.eps0 = cp->eps0;
    memo.n = cp->n;
    memo.log_p = cp->log_p;
    memo.mass = mass;
    memo.t = t;
    return t;
}

static double loss_range_search(const clones_pair *cp, double mass)
{
    /* P(L > t) = delta(t) + e^t Q(L > t), and P(L < -t) = Q(L > t) <=
     * P(L > t) by symmetry; bisection on [0, eps0] */
    double a = 0.0, b = cp->eps0;
    for (int it = 0; it < 40; it++) {
        double t = 0.5 * (a + b), dl, du, sl, su;
        (void)du; (void)su;
        clones_delta(cp, t, &dl, &du);
        clones_q_survival(cp, t, &sl, &su);
        /* the lower ends: the upper ones carry the Chernoff bounds on the
         * clone count's tails (~1e-43), above the masses asked for; the
         * range decides accuracy only, never validity */
        if (dl + exp(t) * sl <= 0.5 * mass) b = t;
        else a = t;
    }
    return b;
}

double clones_hybrid_delta(const clones_pair *cp, double eps)
{
    /* FMT21 Thm 3.8: (e^eps + 1)(1 + e^-eps0 / 2) n delta0, rounded up (a
     * few roundings and libm's exp, each within an ulp or two) */
    if (cp->delta0 == 0.0) return 0.0;
    double M = (1.0 + 0.5 * exp(-cp->eps0)) * (double)cp->n * cp->delta0;
    return (1.0 + exp(eps)) * M * (1.0 + 16.0 * DBL_EPSILON);
}

/* ---- the pair's losses binned on a grid ------------------------------------------ */

/* Bin(c, 1/2) on a window [base, base + len) of k, carried from c to
 * c + 1 by Pascal's rule b_{c+1}(k) = (b_c(k) + b_c(k - 1)) / 2 (two
 * roundings; the walk up k from a log-gamma start divides at every step,
 * which dominated the table), restarted from log-gammas every 4096 steps
 * or when the window jumps.  In double for the usual windows, in long
 * double for wide ones, whose edges lie below the smallest double
 * (Bin(1950, 1/2) at 36 standard deviations is 1e-327). */
typedef struct {
    void *pmf, *tmp;   /* double or long double (wide) */
    int wide;
    size_t cap, len;
    uint64_t base, c;
    int have, since;
    double rel;       /* relative error bound of every entry */
} pmf_window;

static int pmf_window_reserve(pmf_window *pw, size_t len)
{
    if (len + 2 <= pw->cap) return DPA_OK;
    size_t cap = 2 * (len + 2), size = pw->wide ? sizeof(ld) : sizeof(double);
    void *a = realloc(pw->pmf, cap * size);
    if (!a) return DPA_ENOMEM;
    pw->pmf = a;
    void *b = realloc(pw->tmp, cap * size);
    if (!b) return DPA_ENOMEM;
    pw->tmp = b;
    pw->cap = cap;
    return DPA_OK;
}

/* One Pascal step or a fresh start, for element type T. */
#define PMF_MOVE(T)                                                                                        \
    do {                                                                                                   \
        T *row = pw->pmf;                                                                                  \
        if (pascal) {                                                                                      \
            uint64_t b0 = pw->base, last = b0 + pw->len - 1, oc = pw->c;                                   \
            T *old = pw->tmp; /* old[j + 1] = b_oc(b0 + j), j = -1 .. len: the ends by the ratio */        \
            old[0] = b0 > 0 ? row[0] * (T)b0 / (T)(oc - b0 + 1) : (T)0;                                    \
            for (size_t j = 0; j < pw->len; j++) old[j + 1] = row[j];                                      \
            old[pw->len + 1] = last < oc ? row[pw->len - 1] * (T)(oc - last) / (T)(last + 1) : (T)0;       \
            for (size_t i = 0; i < len; i++) {                                                             \
                uint64_t k = s0 + i; /* old index of k is k - b0 + 1, of k - 1 is k - b0 */                 \
                T bk = old[k - b0 + 1], bk1 = k >= 1 && k >= b0 ? old[k - b0] : (T)0;                      \
                row[i] = (T)0.5 * (bk + bk1);                                                              \
            }                                                                                              \
        } else {                                                                                           \
            ld lerr, lh = logl(0.5L);                                                                      \
            T b = (T)expl(log_binom(c, s0, lh, lh, &lerr));                                                \
            for (size_t i = 0; i < len; i++) {                                                             \
                uint64_t k = s0 + i;                                                                       \
                row[i] = b;                                                                                \
                b = k < c ? b * (T)(c - k) / (T)(k + 1) : (T)0;                                            \
            }                                                                                              \
            pw->rel = (double)(expm1l(lerr) + 4.0L * (ld)unit * (ld)(len + 2));                            \
        }                                                                                                  \
    } while (0)

static int pmf_window_move(pmf_window *pw, uint64_t c, uint64_t s0, uint64_t e)
{
    size_t len = (size_t)(e - s0 + 1);
    if (pmf_window_reserve(pw, len)) return DPA_ENOMEM;
    int pascal = pw->have && c == pw->c + 1 && pw->since < 4096 && s0 + 1 >= pw->base &&
                 e <= pw->base + pw->len && pw->len >= 1;
    const double unit = pw->wide ? (double)ULD : DBL_EPSILON;
    if (pw->wide) PMF_MOVE(ld);
    else PMF_MOVE(double);
    if (pascal) {
        pw->rel += 4.0 * unit;
        pw->since++;
    } else {
        pw->since = 0;
        pw->have = 1;
    }
    pw->base = s0;
    pw->len = len;
    pw->c = c;
    return DPA_OK;
}
#undef PMF_MOVE

/* Entry i of the window. */
static ld pmf_at(const pmf_window *pw, size_t i)
{
    return pw->wide ? ((const ld *)pw->pmf)[i] : (ld)((const double *)pw->pmf)[i];
}

/* The first j with beta[j] <= x (m if none); beta is nonincreasing. */
static size_t first_node_at_most(const double *beta, size_t m, double x)
{
    size_t lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (beta[mid] <= x) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

int clones_node_table(const clones_pair *cp, double h, int64_t k0, size_t m, double *delta_lo,
                      double *delta_up, double *q_gt, double *q_ge)
{
    clones_window W = window_of(cp);
    /* per node: P(L > l_j), Q(L > l_j), Q(L >= l_j) summed over c, and the
     * node's beta (L(c, k) > l iff k < beta(l) (c + 1)) */
    double *pgt = calloc(m, sizeof *pgt), *qgt = calloc(m, sizeof *qgt), *qge = calloc(m, sizeof *qge);
    /* full[j]: P- and Q-mass of whole windows of atoms with L > l_j'' for every j'' <= j */
    double *pfull = calloc(m, sizeof *pfull), *qfull = calloc(m, sizeof *qfull);
    double *beta = malloc(m * sizeof *beta), *F = NULL;
    size_t F_cap = 0, count_c = 0;
    pmf_window pw = { .wide = cp->k_window_sd > 20.0 };
    ld covered = 0.0L;     /* P-mass of C and K summed in the windows, for a check */
    int st = pgt && qgt && qge && pfull && qfull && beta ? DPA_OK : DPA_ENOMEM;
    ld e0 = (ld)cp->eps0, a = 1.0L / (1.0L + expl(-e0)), oma = 1.0L / (1.0L + expl(e0));
    const double ad = (double)a, omad = (double)oma;
    for (size_t j = 0; !st && j < m; j++) {
        double l = (double)(k0 + (int64_t)j) * h;
        /* beta = 1 (every k but c + 1) at and below -eps0, 0 from eps0 on */
        beta[j] = !(l < cp->eps0) ? 0.0 : !(l > -cp->eps0) ? (l == -cp->eps0 ? 1.0 : 2.0)
                                                               : (double)beta_of(cp, (ld)l);
    }
    ld w = W.w_lo;
    ld outside = (ld)(W.tail_lo + W.tail_hi);   /* P-mass of unknown loss: at +inf for the upper bound */
    ld relerr = (ld)W.weight_relerr;            /* of every atom's mass, grown below */
    const ld kz = (ld)cp->k_window_sd;
    ld hoeff = 2.0L * expl(-0.5L * kz * kz);
    for (uint64_t c = W.lo; !st; c++) {
        /* the window atoms k in [k_lo, k_hi] of K ~ Bin(c, 1/2) (the pair's
         * k runs to c + 1); the others hold P-mass <= P(Bin <= k_lo - 1) +
         * P(Bin >= k_hi) <= 2 e^{-2 t^2 / c} (Hoeffding), counted in
         * `outside` for the upper bound and left out of the lower one */
        ld sd = 0.5L * sqrtl((ld)c);
        ld klo = floorl(0.5L * (ld)c - kz * sd) - 1.0L, khi = ceill(0.5L * (ld)c + kz * sd) + 1.0L;
        uint64_t k_lo = klo < 0.0L ? 0 : (uint64_t)klo, k_hi = khi > (ld)c ? c + 1 : (uint64_t)khi;
        if (k_lo > 0 || k_hi < c + 1) outside += w * hoeff;
        /* F[i] = w Bin(c, 1/2)(s <= K <= s + i) for s = k_lo - 1 (an atom k
         * has mass from b(k) and b(k - 1)) up to e = min(k_hi, c), walked
         * up in double (a few roundings per step) */
        uint64_t s0 = k_lo > 0 ? k_lo - 1 : 0, e = k_hi < c ? k_hi : c;
        size_t len = (size_t)(e - s0 + 1);
        if (len > F_cap) {
            double *nf = realloc(F, len * sizeof *F);
            if (!nf) { st = DPA_ENOMEM; break; }
            F = nf;
            F_cap = len;
        }
        st = pmf_window_move(&pw, c, s0, e);
        if (st) break;
        ld acc = 0.0L;
        double wd = (double)w;
        if (pw.wide)
            for (size_t i = 0; i < len; i++) {
                acc += pmf_at(&pw, i);
                F[i] = (double)(w * acc);
            }
        else {
            /* the usual window: in double (one rounding more per entry) */
            const double *row = pw.pmf;
            double dacc = 0.0;
            for (size_t i = 0; i < len; i++) {
                dacc += row[i];
                F[i] = wd * dacc;
            }
            acc = (ld)dacc;
        }
        ld rel_c = (ld)pw.rel + 4.0L * (ld)DBL_EPSILON * (ld)(len + 4);
        if (rel_c > relerr - (ld)W.weight_relerr) relerr = (ld)W.weight_relerr + rel_c;
        /* G(k) = w Bin(c, 1/2)(s0 <= K <= k) */
#define G(k) ((k) < (int64_t)s0 ? 0.0 : (k) >= (int64_t)e ? F[len - 1] : F[(size_t)((k) - (int64_t)s0)])
        const int64_t lo_k = (int64_t)k_lo, hi_k = (int64_t)k_hi;
        const double glo1 = G(lo_k - 1), glo2 = G(lo_k - 2);
        double cp1 = (double)(c + 1);
        /* beta decreases along the nodes, and so does kappa: the nodes
         * before j1 take the whole window (kappa >= k_hi: beta (c + 1) >
         * k_hi), those from j2 on none of it (beta (c + 1) <= k_lo) */
        size_t j1 = first_node_at_most(beta, m, (double)k_hi / cp1);
        size_t j2 = first_node_at_most(beta, m, (double)k_lo / cp1);
        if (j1 > 0) {
            double g1 = G(hi_k) - glo1, g0 = G(hi_k - 1) - glo2;
            pfull[j1 - 1] += ad * g1 + omad * g0;
            qfull[j1 - 1] += omad * g1 + ad * g0;
        }
        for (size_t j = j1; j < j2; j++) {
            /* the window atoms with L > l_j: k_lo <= k <= kappa' = min(kappa,
             * k_hi), kappa = ceil(beta (c + 1)) - 1; their P-mass is
             * a (G(kappa') - G(k_lo - 1)) + (1 - a) (G(kappa' - 1) - G(k_lo - 2)) */
            double bc = beta[j] * cp1;
            double ce = ceil(bc);
            int64_t kap = beta[j] > 1.0 ? (int64_t)c + 1 : (int64_t)ce - 1;
            int exact = ce == bc && beta[j] <= 1.0;   /* an atom exactly at l_j: k = kappa + 1 */
            for (int pass = 0; pass < 2; pass++) {
                int64_t kk = kap + pass;
                if (kk > hi_k) kk = hi_k;
                double g1 = 0.0, g0 = 0.0;
                if (kk >= lo_k) {
                    g1 = G(kk) - glo1;
                    g0 = G(kk - 1) - glo2;
                }
                if (pass == 0) {
                    pgt[j] += ad * g1 + omad * g0;
                    qgt[j] += omad * g1 + ad * g0;
                    if (!exact) { qge[j] += omad * g1 + ad * g0; break; }
                } else {
                    qge[j] += omad * g1 + ad * g0;
                }
            }
        }
#undef G
        count_c++;
        /* the mass this c accounts for: its window (F runs from k_lo - 1,
         * whose b is no atom's only term; the whole row counts) or, when
         * its weight underflows a double, all of it as unknown */
        if (wd > 0.0) covered += (ld)F[len - 1];
        else outside += w;
        if (c == W.hi) break;
        if (c < W.N) w *= (ld)(W.N - c) / (ld)(c + 1) * W.ratio;
    }
    if (st) {
        free(pgt); free(qgt); free(qge); free(pfull); free(qfull); free(beta); free(F);
        free(pw.pmf); free(pw.tmp);
        return st;
    }
    /* Everything is either summed or counted outside: a shortfall means a
     * weight or a pmf underflowed where the windows assumed it would not,
     * and the upper bounds would not be bounds. */
    if (!(covered * (1.0L + relerr + 1e-12L) + outside >= 1.0L - 1e-9L)) {
        free(pgt); free(qgt); free(qge); free(pfull); free(qfull); free(beta); free(F);
        free(pw.pmf); free(pw.tmp);
        return DPA_EACCURACY;
    }
    /* the whole windows, added to every node up to where they were recorded */
    double sfp = 0.0, sfq = 0.0;
    for (size_t j = m; j-- > 0;) {
        sfp += pfull[j];
        sfq += qfull[j];
        pgt[j] += sfp;
        qgt[j] += sfq;
        qge[j] += sfq;
    }
    /* each mass carries relative error relerr; the double sums of positive
     * terms over c (and the windows) a relative (count + 2) u each */
    ld round = 2.0L * (ld)DBL_EPSILON * (ld)(2 * count_c + 8);
    for (size_t j = 0; j < m; j++) {
        ld sp = pgt[j], sq = qgt[j];
        ld l = (ld)((double)(k0 + (int64_t)j) * h), el = expl(l);
        ld d = sp - el * sq, err = (relerr + round) * (sp + el * sq);
        ld up = d + err + outside, lo = d - err;
        delta_up[j] = (double)fminl(1.0L, up * (1.0L + 8.0L * ULD)) * (1.0 + 2.0 * DBL_EPSILON);
        delta_lo[j] = (double)fmaxl(0.0L, fmaxl(0.0L, lo) * (1.0L - 8.0L * ULD));
        q_gt[j] = (double)fminl(1.0L, sq * (1.0L + relerr + round) + outside);
        q_ge[j] = (double)fminl(1.0L, qge[j] * (1.0L + relerr + round) + outside);
    }
    free(pgt); free(qgt); free(qge); free(pfull); free(qfull); free(beta); free(F);
    free(pw.pmf); free(pw.tmp);
    return DPA_OK;
}

/* ---- Renyi divergence of the pair ----------------------------------------------- */

#define RDP_NODES 10001

int clones_rdp(const clones_pair *cp, const double *orders, size_t n_orders, double *out)
{
    /* Losses rounded up to the nodes l_j = (k0 + j) h (to eps0 above the
     * last, to l_0 below the first) only raise E_Q[e^{alpha L}], alpha > 1,
     * and by Abel summation the rounded expectation is
     *   e^{alpha l_0} + sum_j Q(L > l_j) (e^{alpha l_j+1} - e^{alpha l_j})
     *   + Q(L > l_last) (e^{alpha eps0} - e^{alpha l_last}),
     * increasing in every Q(L > l_j): the table's upper bounds give an
     * upper bound, within alpha h / (alpha - 1) ~ h of D_alpha. */
    /* Masses outside the summed windows are counted at loss eps0, where
     * e^{alpha eps0} multiplies them: widen the windows so that they stay
     * below 1e-30 at the largest order (up to 36 standard deviations, whose
     * pmf values are still doubles;
     * beyond, the orders' bounds are simply looser). */
    double amax = 1.0;
    for (size_t i = 0; i < n_orders; i++) amax = fmax(amax, orders[i]);
    clones_pair wide = *cp;
    double z = fmin(36.0, sqrt(2.0 * ((amax - 1.0) * cp->eps0 + 70.0)));   /* e^{-36^2/2}: a double */
    wide.c_window_sd = fmax(wide.c_window_sd, z);
    wide.k_window_sd = fmax(wide.k_window_sd, z);
    cp = &wide;
    /* the mass beyond the last node is counted at e^{alpha eps0} too */
    double t = clones_loss_range(cp, exp(-fmin(700.0, (amax - 1.0) * cp->eps0 + 70.0)));
    const size_t m = RDP_NODES;
    double h = 2.0 * t / (double)(m - 1);
    int64_t k0 = -(int64_t)(m - 1) / 2;
    double *buf = malloc(4 * m * sizeof *buf);
    if (!buf) return DPA_ENOMEM;
    int st = clones_node_table(cp, h, k0, m, buf, buf + m, buf + 2 * m, buf + 3 * m);
    const double *q_gt = buf + 2 * m;
    for (size_t i = 0; !st && i < n_orders; i++) {
        double alpha = orders[i];
        double l_first = (double)k0 * h, l_last = (double)(k0 + (int64_t)(m - 1)) * h;
        /* log-sum-exp of the terms, the largest first found */
        double top = alpha * l_first;
        for (size_t j = 0; j < m; j++) {
            double hi = j + 1 < m ? (double)(k0 + (int64_t)j + 1) * h : cp->eps0;
            if (q_gt[j] > 0.0) top = fmax(top, log(q_gt[j]) + alpha * hi);
        }
        double sum = exp(alpha * l_first - top);
        for (size_t j = 0; j < m; j++) {
            double lo = (double)(k0 + (int64_t)j) * h, hi = j + 1 < m ? lo + h : cp->eps0;
            if (j + 1 == m && !(hi > l_last)) continue;
            if (!(q_gt[j] > 0.0)) continue;
            sum += exp(log(q_gt[j]) + alpha * hi + log(-expm1(-alpha * (hi - lo))) - top);
        }
        double log_e = top + log(sum);
        /* rounding: a few ulps of each of m terms, and of the logs */
        log_e += 1e-12 * (1.0 + fabs(log_e)) + 4.0 * DBL_EPSILON * (double)m;
        double v = log_e / (alpha - 1.0);
        out[i] = v < 0.0 ? 0.0 : v;   /* NaN stays NaN: the caller refuses it */
    }
    free(buf);
    return st;
}
