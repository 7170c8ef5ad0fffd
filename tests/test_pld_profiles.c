/*
 * test_pld_profiles.c - the single-step profiles of every pair the PLD
 * accountant uses, against MPFR evaluations of the hockey-stick divergence
 * straight from the pairs' definitions (tests/mpfr_ref.c: sums of
 * (P - e^eps Q)_+ over enumerated outcomes, or the integral of
 * (p - e^eps q)_+ with the boundary found by bisection on the densities),
 * at 256 bits.  Also: Q(L > eps) (strict at atoms), delta >= 1 - e^eps,
 * monotonicity, the stated error bounds, q = 1 sampling = the inner pair,
 * the loss ranges, and the statuses of unsupported and invalid events.
 */
#include "mpfr_ref.h"
#include "dpacct.h"
#include "internal.h"
#include "pld/pld_grid.h"
#include "pld/pld_profiles.h"
#include "testutil.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest relative errors seen, per test, printed for the record. */
typedef struct { double delta, q; } maxerr;

/* |x/ref - 1| from logs; 0 when both are -inf. */
static double log_rel(double lx, double lref)
{
    if (lx == lref) return 0.0;
    return fabs(expm1(lx - lref));
}

/* The eps grid: -6 .. 8 in steps that hit no atom by accident, plus extras. */
static size_t eps_grid(double *eps, size_t cap, const double *extra, size_t n_extra)
{
    size_t n = 0;
    for (double e = -6.0; e <= 8.0 && n < cap; e += 0.0731) eps[n++] = e;
    for (size_t i = 0; i < n_extra && n < cap; i++) eps[n++] = extra[i];
    return n;
}

/* Relative tolerance where the profile is well conditioned (the stated
 * bound is below it); elsewhere the stated bound is the test. */
#define TOL 1e-10
/* below this delta the reference itself is not the point (and the
 * double exponent range ends); tests stop there */
#define LOG_DELTA_FLOOR (-600.0)

/* Poisson-sampled pairs have an extreme loss at +-log(1 - q); within a few
 * ulps of it the excess e^{-+eps} - (1 - q) is lost to rounding, and delta,
 * below 1e-15 there (pld_profiles.h), may come back as 0. */
static double extreme_loss = NAN;

static void check_pair(const char *what, pld_profile *p, const ref_pair *r, const double *eps,
                       size_t n, maxerr *m)
{
    double prev_ld = INFINITY;
    double sorted_prev_eps = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double e = eps[i];
        double ld = pld_profile_log_delta(e, p), ref = ref_pair_log_delta(r, e);
        double lq = pld_profile_log_q_survival(e, p), refq = ref_pair_log_q_survival(r, e);
        if (ld == -INFINITY && ref < log(1e-15) && fabs(e - extreme_loss) <= 1e-14 * fabs(extreme_loss)) {
            /* the documented exception at the extreme loss */
        } else if (ref < LOG_DELTA_FLOOR) {
            ck_assert_msg(ld < LOG_DELTA_FLOOR + 1.0, "%s eps %.17g: log delta %.17g, reference %.17g",
                          what, e, ld, ref);
        } else {
            double rel = log_rel(ld, ref), bound = pld_profile_delta_relerr(p, e);
            ck_assert_msg(isfinite(bound) && bound > 0.0, "%s eps %g: relerr %g", what, e, bound);
            /* the reference lies within value (1 +- relerr) */
            ck_assert_msg(rel <= bound, "%s eps %.17g: delta %.17g vs %.17g (rel %.3g) outside its bound %.3g",
                          what, e, exp(ld), exp(ref), rel, bound);
            if (bound <= TOL)
                ck_assert_msg(rel <= TOL, "%s eps %.17g: rel %.3g", what, e, rel);
            if (rel > m->delta) m->delta = rel;
        }
        if (lq == -INFINITY && fabs(e - extreme_loss) <= 1e-14 * fabs(extreme_loss)) {
            /* an atom of Q may sit at the extreme loss, whose position is
             * known to rounding only: either side of it is right */
        } else if (refq < LOG_DELTA_FLOOR) {
            ck_assert_msg(lq < LOG_DELTA_FLOOR + 1.0, "%s eps %.17g: log Q(L > eps) %.17g, reference %.17g",
                          what, e, lq, refq);
        } else {
            double rq = log_rel(lq, refq);
            ck_assert_msg(rq <= TOL, "%s eps %.17g: Q(L > eps) %.17g vs %.17g (rel %.3g)", what, e, exp(lq),
                          exp(refq), rq);
            if (rq > m->q) m->q = rq;
        }
        /* delta >= max(0, 1 - e^eps) */
        if (e < 0.0)
            ck_assert_msg(exp(ld) >= -expm1(e) * (1.0 - 1e-14), "%s eps %g: delta %.17g below 1 - e^eps", what, e,
                          exp(ld));
        ck_assert_msg(!(ld > 1e-15), "%s eps %g: delta %.17g above 1", what, e, exp(ld));
        /* non-increasing along the (increasing) grid part */
        if (e > sorted_prev_eps) {
            if (prev_ld == -INFINITY)
                ck_assert_msg(ld == -INFINITY, "%s: delta leaves 0 at eps %g", what, e);
            else
                ck_assert_msg(!(ld > prev_ld + 1e-13 * fabs(prev_ld) + 1e-15), "%s: delta increases at eps %g",
                              what, e);
            prev_ld = ld;
            sorted_prev_eps = e;
        }
    }
}

/* The loss range: outside it P and Q hold (next to) nothing, apart from an
 * (eps, delta) pair's P-atom at +inf, which is in delta at every eps. */
static void check_range(const char *what, pld_profile *p, const ref_pair *r, double inf_mass)
{
    double lo, hi;
    pld_profile_loss_range(p, &lo, &hi);
    ck_assert_msg(isfinite(lo) && isfinite(hi) && lo <= hi, "%s: range [%g, %g]", what, lo, hi);
    /* atoms sit at the ends of the range: look just beyond them, where
     * rounding of the (irrational) end losses cannot matter */
    double eta = 1e-9 * (1.0 + fabs(lo));
    hi += 1e-9 * (1.0 + fabs(hi));
    /* Q(L > hi) and P(L > hi) - inf_mass: delta(hi) = P(L > hi) - e^hi Q(L > hi) */
    double lq_hi = ref_pair_log_q_survival(r, hi), ld_hi = ref_pair_log_delta(r, hi);
    ck_assert_msg(lq_hi < log(1e-40), "%s: Q(L > %g) = %g", what, hi, exp(lq_hi));
    double p_above = exp(ld_hi) + exp(hi + lq_hi) - inf_mass;
    ck_assert_msg(p_above < 1e-15 * (1.0 + inf_mass), "%s: P(L > %g) beyond the +inf atom = %g", what, hi, p_above);
    /* Q(L < lo) = 1 - Q(L > lo - eta), and P the same way */
    double lq_lo = ref_pair_log_q_survival(r, lo - eta), ld_lo = ref_pair_log_delta(r, lo - eta);
    double q_atoms_at_minus_inf = 0.0;
    if (p->pair == PLD_EPSILON_DELTA) q_atoms_at_minus_inf = p->delta;
    if (p->pair == PLD_SAMPLED_ADD && p->inner == PLD_EPSILON_DELTA) q_atoms_at_minus_inf = p->q * p->delta;
    ck_assert_msg(-expm1(lq_lo) - q_atoms_at_minus_inf < 1e-15, "%s: Q(L < %g) = %g", what, lo, -expm1(lq_lo));
    double p_below = 1.0 - (exp(ld_lo) + exp(lo - eta + lq_lo));
    ck_assert_msg(p_below < 1e-15, "%s: P(L < %g) = %g", what, lo, p_below);
}

static void of_event(dpa_event *e, dpa_relation rel, pld_profile pairs[2])
{
    dpa_error err = { 0 };
    ck_assert_msg(e != NULL, "event construction failed");
    int st = pld_profile_of_event(e, rel, pairs, &err);
    ck_assert_msg(st == DPA_OK, "pld_profile_of_event: %s", err.message);
    dpa_event_free(e);
}

static void report(const char *what, const maxerr *m)
{
    printf("pld_profiles: %-40s max rel. error vs MPFR: delta %.2e, Q(L > eps) %.2e\n", what, m->delta, m->q);
}

/* ---- leaves ---------------------------------------------------------------- */

START_TEST(laplace)
{
    const double bs[] = { 0.3, 1.0, 3.0 };
    const double extra[] = { 1.0, -1.0, 0.0, 1e-12, -1e-12, 0.3333, 3.3, -3.3 };
    double eps[400];
    size_t n = eps_grid(eps, 400, extra, 8);
    maxerr m = { 0, 0 };
    for (int i = 0; i < 3; i++) {
        pld_profile pr[2];
        of_event(dpa_event_laplace(bs[i], NULL), DPA_ADD_REMOVE, pr);
        ck_assert_int_eq(pr[0].pair, PLD_LAPLACE);
        ref_pair *r = ref_pair_laplace(bs[i]);
        char what[64];
        snprintf(what, sizeof what, "laplace b=%g", bs[i]);
        check_pair(what, &pr[0], r, eps, n, &m);
        check_pair(what, &pr[1], r, eps, n, &m);
        check_range(what, &pr[0], r, 0.0);
        ref_pair_free(r);
    }
    report("laplace", &m);
}
END_TEST

START_TEST(randomized_response)
{
    const struct { double eps; unsigned k; } cs[] = { { 0.5, 2 }, { 1.0, 3 }, { 2.5, 10 }, { 0.01, 7 } };
    double eps[400];
    maxerr m = { 0, 0 };
    for (int i = 0; i < 4; i++) {
        /* atoms at eps, 0, -eps: Q(L > eps) steps there, strictly */
        const double extra[] = { cs[i].eps, -cs[i].eps, 0.0, nextafter(cs[i].eps, 0.0),
                                 nextafter(-cs[i].eps, -1.0), 1e-300 };
        size_t n = eps_grid(eps, 400, extra, 6);
        pld_profile pr[2];
        of_event(dpa_event_randomized_response(cs[i].eps, cs[i].k, NULL), DPA_REPLACE_ONE, pr);
        ref_pair *r = ref_pair_rr(cs[i].eps, cs[i].k);
        char what[64];
        snprintf(what, sizeof what, "rr eps=%g k=%u", cs[i].eps, cs[i].k);
        check_pair(what, &pr[0], r, eps, n, &m);
        check_range(what, &pr[0], r, 0.0);
        /* strictness at the atom: nothing lies above the largest loss */
        ck_assert(pld_profile_log_q_survival(cs[i].eps, &pr[0]) == -INFINITY);
        ck_assert(pld_profile_log_delta(cs[i].eps, &pr[0]) == -INFINITY);
        ck_assert(pld_profile_log_q_survival(nextafter(cs[i].eps, 0.0), &pr[0]) > -INFINITY);
        ref_pair_free(r);
    }
    report("randomized response", &m);
}
END_TEST

START_TEST(discrete_laplace)
{
    const struct { double t; unsigned k; } cs[] = { { 1.0, 1 }, { 1.0, 4 }, { 0.7, 3 }, { 2.0, 5 }, { 0.25, 2 } };
    const double extra[] = { 1.0, 2.0, -2.0, 4.0, -4.0, 0.0, 3.0, 8.0, -8.0 };
    double eps[400];
    size_t n = eps_grid(eps, 400, extra, 9);
    maxerr m = { 0, 0 };
    for (int i = 0; i < 5; i++) {
        pld_profile pr[2];
        of_event(dpa_event_discrete_laplace(cs[i].t, cs[i].k, NULL), DPA_ADD_REMOVE, pr);
        ref_pair *r = ref_pair_dlap(cs[i].t, cs[i].k);
        char what[64];
        snprintf(what, sizeof what, "discrete laplace t=%g k=%u", cs[i].t, cs[i].k);
        check_pair(what, &pr[0], r, eps, n, &m);
        check_range(what, &pr[0], r, 0.0);
        ref_pair_free(r);
    }
    report("discrete laplace", &m);
}
END_TEST

START_TEST(discrete_gaussian)
{
    const struct { double s; unsigned k; } cs[] = { { 1.0, 1 }, { 0.6, 1 }, { 0.3, 2 }, { 3.0, 2 }, { 12.0, 5 }, { 2.0, 9 } };
    const double extra[] = { 0.5, -0.5, 1.5, -1.5, 2.5, 0.0 };  /* atoms of s = 1, k = 1 */
    double eps[400];
    size_t n = eps_grid(eps, 400, extra, 6);
    maxerr m = { 0, 0 };
    for (int i = 0; i < 6; i++) {
        pld_profile pr[2];
        of_event(dpa_event_discrete_gaussian(cs[i].s, cs[i].k, NULL), DPA_ADD_REMOVE, pr);
        ref_pair *r = ref_pair_dgauss(cs[i].s, cs[i].k);
        char what[64];
        snprintf(what, sizeof what, "discrete gaussian s=%g k=%u", cs[i].s, cs[i].k);
        check_pair(what, &pr[0], r, eps, n, &m);
        check_range(what, &pr[0], r, 0.0);
        ref_pair_free(r);
    }
    report("discrete gaussian", &m);
}
END_TEST

START_TEST(epsilon_delta)
{
    const struct { double eps, delta; } cs[] = { { 1.0, 1e-5 }, { 0.3, 0.01 }, { 0.0, 1e-3 }, { 2.0, 0.0 }, { 5.0, 0.2 } };
    double eps[400];
    maxerr m = { 0, 0 };
    for (int i = 0; i < 5; i++) {
        const double extra[] = { cs[i].eps, -cs[i].eps, nextafter(cs[i].eps, 10.0), 50.0, -50.0 };
        size_t n = eps_grid(eps, 400, extra, 5);
        pld_profile pr[2];
        of_event(dpa_event_epsilon_delta(cs[i].eps, cs[i].delta, NULL), DPA_ADD_REMOVE, pr);
        ref_pair *r = ref_pair_epsdelta(cs[i].eps, cs[i].delta);
        char what[64];
        snprintf(what, sizeof what, "eps-delta (%g, %g)", cs[i].eps, cs[i].delta);
        check_pair(what, &pr[0], r, eps, n, &m);
        check_range(what, &pr[0], r, cs[i].delta);
        /* the mass at +inf: delta(eps') = delta from eps on */
        if (cs[i].delta > 0.0)
            ck_assert(rel_err(exp(pld_profile_log_delta(cs[i].eps + 3.0, &pr[0])), cs[i].delta) < 1e-14);
        ref_pair_free(r);
    }
    report("(eps, delta)", &m);
}
END_TEST

/* ---- replace-one Poisson-subsampled Gaussian ------------------------------- */

START_TEST(replace_one_subsampled_gaussian)
{
    const struct { double nm, q; } cs[] = { { 0.8, 0.01 }, { 2.0, 0.1 }, { 0.5, 0.5 }, { 1.0, 0.999 }, { 5.0, 0.004 } };
    const double extra[] = { 0.0, 1e-9, -1e-9, 12.0, 20.0, -20.0 };
    double eps[400];
    size_t n = eps_grid(eps, 400, extra, 6);
    maxerr m = { 0, 0 };
    for (int i = 0; i < 5; i++) {
        pld_profile pr[2];
        of_event(dpa_event_poisson_sampled(cs[i].q, dpa_event_gaussian(cs[i].nm, NULL), NULL), DPA_REPLACE_ONE, pr);
        ck_assert_int_eq(pr[0].pair, PLD_REPLACE_GAUSSIAN);
        /* Lebeda et al.'s pair in units of the record norm Delta/2: s = 2 nm */
        ref_pair *r = ref_pair_replace_gaussian(2.0 * cs[i].nm, cs[i].q);
        char what[64];
        snprintf(what, sizeof what, "replace-one sgm nm=%g q=%g", cs[i].nm, cs[i].q);
        check_pair(what, &pr[0], r, eps, n, &m);
        check_range(what, &pr[0], r, 0.0);
        ref_pair_free(r);
    }
    report("replace-one subsampled gaussian", &m);
}
END_TEST

/* q = 1: the Lebeda pair is the Gaussian with the event's noise multiplier. */
START_TEST(replace_one_at_q_one_is_the_gaussian)
{
    for (double nm = 0.5; nm < 4.0; nm *= 1.7) {
        pld_profile lebeda = { .pair = PLD_REPLACE_GAUSSIAN, .sigma = 2.0 * nm, .q = 1.0 };
        pld_profile gauss = { .pair = PLD_GAUSSIAN, .sigma = nm, .q = 1.0 };
        for (double e = -5.0; e < 8.0; e += 0.173) {
            double a = pld_profile_log_delta(e, &lebeda), b = pld_profile_log_delta(e, &gauss);
            if (b < LOG_DELTA_FLOOR) continue;
            ck_assert_msg(log_rel(a, b) < 1e-10, "nm %g eps %g: %.17g vs %.17g", nm, e, exp(a), exp(b));
            ck_assert_msg(log_rel(pld_profile_log_q_survival(e, &lebeda), pld_profile_log_q_survival(e, &gauss)) < 1e-10,
                          "nm %g eps %g: Q survival", nm, e);
        }
    }
}
END_TEST

/* ---- Poisson sampling (add/remove) of the other leaves -------------------- */

static void check_sampled(const char *name, dpa_event *(*make)(void), ref_pair *inner_ref, maxerr *m)
{
    const double qs[] = { 0.01, 0.3, 0.75 };
    const double extra[] = { 0.0, 1e-10, -1e-10, -log1p(-0.3), log1p(-0.3), 15.0, -15.0 };
    double eps[400];
    size_t n = eps_grid(eps, 400, extra, 7);
    for (int i = 0; i < 3; i++) {
        pld_profile pr[2];
        of_event(dpa_event_poisson_sampled(qs[i], make(), NULL), DPA_ADD_REMOVE, pr);
        ck_assert_int_eq(pr[0].pair, PLD_SAMPLED_REMOVE);
        ck_assert_int_eq(pr[1].pair, PLD_SAMPLED_ADD);
        for (int w = 0; w < 2; w++) {
            ref_pair *r = ref_pair_sampled(inner_ref, qs[i], w);
            extreme_loss = w ? -log1p(-qs[i]) : log1p(-qs[i]);
            char what[96];
            snprintf(what, sizeof what, "poisson(%g) %s, %s world", qs[i], name, w ? "add" : "remove");
            check_pair(what, &pr[w], r, eps, n, m);
            check_range(what, &pr[w], r, w == 0 && pr[0].inner == PLD_EPSILON_DELTA ? qs[i] * pr[0].delta : 0.0);
            ref_pair_free(r);
            extreme_loss = NAN;
        }
    }
}

static dpa_event *make_laplace(void) { return dpa_event_laplace(0.8, NULL); }
static dpa_event *make_rr(void) { return dpa_event_randomized_response(1.5, 4, NULL); }
static dpa_event *make_dlap(void) { return dpa_event_discrete_laplace(1.0, 3, NULL); }
static dpa_event *make_dg(void) { return dpa_event_discrete_gaussian(1.5, 2, NULL); }
static dpa_event *make_ed(void) { return dpa_event_epsilon_delta(1.0, 1e-4, NULL); }

/* The symmetric leaves other than the Gaussian, each with its MPFR pair. */
typedef void (*leaf_check)(const char *name, dpa_event *(*make)(void), ref_pair *ref, maxerr *m);
static void for_each_leaf(leaf_check check, maxerr *m)
{
    const struct { const char *name; dpa_event *(*make)(void); ref_pair *ref; } leaves[] = {
        { "laplace(0.8)", make_laplace, ref_pair_laplace(0.8) },
        { "rr(1.5, 4)", make_rr, ref_pair_rr(1.5, 4) },
        { "dlap(1, 3)", make_dlap, ref_pair_dlap(1.0, 3) },
        { "dgauss(1.5, 2)", make_dg, ref_pair_dgauss(1.5, 2) },
        { "eps-delta(1, 1e-4)", make_ed, ref_pair_epsdelta(1.0, 1e-4) },
    };
    for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++) {
        check(leaves[i].name, leaves[i].make, leaves[i].ref, m);
        ref_pair_free(leaves[i].ref);
    }
}

START_TEST(poisson_sampled_leaves)
{
    maxerr m = { 0, 0 };
    for_each_leaf(check_sampled, &m);
    report("poisson-sampled leaves (both worlds)", &m);
}
END_TEST

/* The generic sampling formulas at q = 1 give the inner pair back, in both
 * worlds (the add world through the symmetric inner pair); and
 * pld_profile_of_event maps q = 1 to the inner pair itself. */
START_TEST(sampling_with_q_one_is_the_inner_pair)
{
    dpa_event *(*makers[])(void) = { make_laplace, make_rr, make_dlap, make_dg, make_ed };
    for (int i = 0; i < 5; i++) {
        pld_profile in[2], s1[2];
        of_event(makers[i](), DPA_ADD_REMOVE, in);
        of_event(dpa_event_poisson_sampled(1.0, makers[i](), NULL), DPA_ADD_REMOVE, s1);
        ck_assert_int_eq(s1[0].pair, in[0].pair);
        ck_assert_int_eq(s1[1].pair, in[1].pair);
        for (int w = 0; w < 2; w++) {
            pld_profile g = in[0];
            g.inner = in[0].pair;
            g.pair = w ? PLD_SAMPLED_ADD : PLD_SAMPLED_REMOVE;
            g.q = 1.0;
            for (double e = -6.0; e < 8.0; e += 0.0917) {
                double a = pld_profile_log_delta(e, &g), b = pld_profile_log_delta(e, &in[0]);
                /* the rounding of e^{eps'} moves the inner profile by its
                 * slope: within the two stated bounds */
                double tol = pld_profile_delta_relerr(&g, e) + pld_profile_delta_relerr(&in[0], e);
                ck_assert_msg(tol < 1e-10, "kind %d world %d eps %g: bound %g", in[0].pair, w, e, tol);
                ck_assert_msg((a == -INFINITY && b == -INFINITY) || log_rel(a, b) <= tol,
                              "kind %d world %d eps %g: %.17g vs %.17g", in[0].pair, w, e, exp(a), exp(b));
                double qa = pld_profile_log_q_survival(e, &g), qb = pld_profile_log_q_survival(e, &in[0]);
                ck_assert_msg((qa == -INFINITY && qb == -INFINITY) || log_rel(qa, qb) < 1e-12,
                              "kind %d world %d eps %g: Q %.17g vs %.17g", in[0].pair, w, e, exp(qa), exp(qb));
            }
        }
    }
    /* the Gaussian family too, through the generic form */
    pld_profile g = { .pair = PLD_SAMPLED_ADD, .sigma = 1.3, .q = 1.0, .inner = PLD_GAUSSIAN };
    pld_profile gi = { .pair = PLD_GAUSSIAN, .sigma = 1.3, .q = 1.0 };
    for (double e = -6.0; e < 8.0; e += 0.0917) {
        double tol = pld_profile_delta_relerr(&g, e) + pld_profile_delta_relerr(&gi, e);
        ck_assert_msg(tol < 1e-10, "eps %g: bound %g", e, tol);
        ck_assert(log_rel(pld_profile_log_delta(e, &g), pld_profile_log_delta(e, &gi)) <= tol);
    }
}
END_TEST

/* The subsampled Gaussian keeps its specialised forms; the generic ones
 * agree with them (both against MPFR elsewhere; here a cross-check). */
START_TEST(subsampled_gaussian_keeps_its_pairs)
{
    pld_profile pr[2];
    of_event(dpa_event_poisson_sampled(0.02, dpa_event_gaussian(1.1, NULL), NULL), DPA_ADD_REMOVE, pr);
    ck_assert_int_eq(pr[0].pair, PLD_POISSON_REMOVE);
    ck_assert_int_eq(pr[1].pair, PLD_POISSON_ADD);
    ck_assert_double_eq(pr[0].sigma, 1.1);
    ck_assert_double_eq(pr[0].q, 0.02);
    of_event(dpa_event_gdp(0.5, NULL), DPA_ADD_REMOVE, pr);
    ck_assert_int_eq(pr[0].pair, PLD_GAUSSIAN);
    ck_assert_double_eq(pr[0].sigma, 2.0);
}
END_TEST


/* ---- sampling without replacement (replace-one) --------------------------- */

/* The pair's profile is max(delta_R, delta_A) of the remove and add pairs
 * of Poisson sampling at q = m/n (pld_profiles.c); the reference takes the
 * max of the two MPFR hockey-stick evaluations, and Q(L > eps) of the
 * branch that is larger there (either branch where they tie within 1e-12:
 * at eps = 0 they are equal, and the pair has an atom). */
static void check_without_replacement(const char *name, dpa_event *(*make)(void), ref_pair *inner_ref, maxerr *m)
{
    const uint64_t ms[] = { 10, 300, 750 };
    /* every third point of the usual grid: the MPFR references of the
     * continuous pairs cost a bisection each */
    const double extra[] = { 0.0, 1e-10, -1e-10, 15.0, -15.0 };
    double grid[400], eps[200];
    size_t n_grid = eps_grid(grid, 400, extra, 5), n = 0;
    for (size_t k = 0; k < n_grid; k++)
        if (k % 3 == 0 || grid[k] == 0.0 || fabs(grid[k]) == 1e-10 || fabs(grid[k]) == 15.0) eps[n++] = grid[k];
    for (int i = 0; i < 3; i++) {
        double q = (double)ms[i] / 1000.0;
        pld_profile pr[2];
        of_event(dpa_event_sampled_without_replacement(1000, ms[i], make(), NULL), DPA_REPLACE_ONE, pr);
        ck_assert_int_eq(pr[0].pair, PLD_WITHOUT_REPLACEMENT);
        ck_assert_int_eq(pr[1].pair, PLD_WITHOUT_REPLACEMENT);
        ck_assert_double_eq(pr[0].q, q);
        ref_pair *rr = ref_pair_sampled(inner_ref, q, 0), *ra = ref_pair_sampled(inner_ref, q, 1);
        for (size_t k = 0; k < n; k++) {
            double e = eps[k];
            double lr = ref_pair_log_delta(rr, e), la = ref_pair_log_delta(ra, e), ref = fmax(lr, la);
            double ld = pld_profile_log_delta(e, &pr[0]), bound = pld_profile_delta_relerr(&pr[0], e);
            if (ref < LOG_DELTA_FLOOR) {
                ck_assert_msg(ld < LOG_DELTA_FLOOR + 1.0, "%s m %llu eps %g: log delta %g vs %g", name,
                              (unsigned long long)ms[i], e, ld, ref);
                continue;
            }
            double rel = log_rel(ld, ref);
            ck_assert_msg(rel <= bound && (bound > TOL || rel <= TOL),
                          "%s m %llu eps %.17g: delta %.17g vs max %.17g (rel %.3g, bound %.3g)", name,
                          (unsigned long long)ms[i], e, exp(ld), exp(ref), rel, bound);
            if (rel > m->delta) m->delta = rel;
            double lq = pld_profile_log_q_survival(e, &pr[0]);
            double qr = ref_pair_log_q_survival(rr, e), qa = ref_pair_log_q_survival(ra, e);
            double tie = log_rel(lr, la);
            double want = lr > la ? qr : qa;
            double rq = log_rel(lq, want);
            if (tie < 1e-12) rq = fmin(rq, fmin(log_rel(lq, qr), log_rel(lq, qa)));
            if (want < LOG_DELTA_FLOOR && lq < LOG_DELTA_FLOOR + 1.0) rq = 0.0;
            ck_assert_msg(rq <= TOL, "%s m %llu eps %.17g: Q(L > eps) %.17g vs %.17g", name,
                          (unsigned long long)ms[i], e, exp(lq), exp(want));
            if (rq > m->q) m->q = rq;
        }
        /* the loss range holds both pairs' ranges */
        pld_profile part = pr[0];
        double lo, hi, l0, l1;
        pld_profile_loss_range(&pr[0], &lo, &hi);
        part.pair = part.inner == PLD_GAUSSIAN ? PLD_POISSON_REMOVE : PLD_SAMPLED_REMOVE;
        pld_profile_loss_range(&part, &l0, &l1);
        ck_assert(lo <= l0 && hi >= l1);
        part.pair = part.inner == PLD_GAUSSIAN ? PLD_POISSON_ADD : PLD_SAMPLED_ADD;
        pld_profile_loss_range(&part, &l0, &l1);
        ck_assert(lo <= l0 && hi >= l1);
        ref_pair_free(rr);
        ref_pair_free(ra);
    }
}

static dpa_event *make_gauss08(void) { return dpa_event_gaussian(0.8, NULL); }
static dpa_event *make_gauss3(void) { return dpa_event_gaussian(3.0, NULL); }

START_TEST(without_replacement)
{
    maxerr m = { 0, 0 };
    ref_pair *r;
    /* N(1, s^2) against N(0, s^2) is, through x -> 2x - 1, Lebeda's pair at
     * q = 1 with twice the scale */
    r = ref_pair_replace_gaussian(1.6, 1.0); check_without_replacement("gaussian(0.8)", make_gauss08, r, &m); ref_pair_free(r);
    r = ref_pair_replace_gaussian(6.0, 1.0); check_without_replacement("gaussian(3)", make_gauss3, r, &m); ref_pair_free(r);
    for_each_leaf(check_without_replacement, &m);
    report("sampled without replacement (replace-one)", &m);
    /* m = n is no sampling: the inner pair itself */
    pld_profile pr[2];
    of_event(dpa_event_sampled_without_replacement(50, 50, dpa_event_gaussian(1.3, NULL), NULL), DPA_REPLACE_ONE, pr);
    ck_assert_int_eq(pr[0].pair, PLD_GAUSSIAN);
    ck_assert_double_eq(pr[0].sigma, 1.3);
}
END_TEST

/* ---- a deterministic sweep over random parameters ----------------------- */

static unsigned long long lcg_state = 88172645463325252ULL;
static double uniform(double a, double b)
{
    lcg_state ^= lcg_state << 13;
    lcg_state ^= lcg_state >> 7;
    lcg_state ^= lcg_state << 17;
    return a + (b - a) * (double)(lcg_state >> 11) * 0x1p-53;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static size_t random_eps(double *eps)
{
    for (int i = 0; i < 24; i++) eps[i] = uniform(-8.0, 12.0);
    qsort(eps, 24, sizeof *eps, cmp_double);
    return 24;
}

START_TEST(random_parameter_sweep)
{
    maxerr m = { 0, 0 };
    double eps[24];
    char what[128];
    for (int it = 0; it < 12; it++) {
        pld_profile pr[2], a;
        double q = exp(uniform(log(1e-4), 0.0));
        /* replace-one subsampled Gaussian */
        double nm = exp(uniform(log(0.2), log(20.0)));
        of_event(dpa_event_poisson_sampled(q, dpa_event_gaussian(nm, NULL), NULL), DPA_REPLACE_ONE, pr);
        ref_pair *r = ref_pair_replace_gaussian(2.0 * nm, q);
        snprintf(what, sizeof what, "replace-one sgm nm=%g q=%g", nm, q);
        check_pair(what, &pr[0], r, eps, random_eps(eps), &m);
        ref_pair_free(r);
        /* discrete Gaussian, and its add world under Poisson sampling */
        double s = exp(uniform(log(0.1), log(30.0)));
        unsigned k = 1 + (unsigned)uniform(0.0, 12.0);
        of_event(dpa_event_discrete_gaussian(s, k, NULL), DPA_ADD_REMOVE, pr);
        r = ref_pair_dgauss(s, k);
        snprintf(what, sizeof what, "discrete gaussian s=%g k=%u", s, k);
        check_pair(what, &pr[0], r, eps, random_eps(eps), &m);
        ref_pair *rs = ref_pair_sampled(r, q, 1);
        of_event(dpa_event_poisson_sampled(q, dpa_event_discrete_gaussian(s, k, NULL), NULL), DPA_ADD_REMOVE, pr);
        snprintf(what, sizeof what, "poisson(%g) discrete gaussian s=%g k=%u, add", q, s, k);
        extreme_loss = -log1p(-q);
        check_pair(what, &pr[1], rs, eps, random_eps(eps), &m);
        ref_pair_free(rs);
        ref_pair_free(r);
        /* discrete Laplace, remove world */
        double t = exp(uniform(log(0.1), log(8.0)));
        k = 1 + (unsigned)uniform(0.0, 30.0);
        of_event(dpa_event_poisson_sampled(q, dpa_event_discrete_laplace(t, k, NULL), NULL), DPA_ADD_REMOVE, pr);
        r = ref_pair_dlap(t, k);
        rs = ref_pair_sampled(r, q, 0);
        snprintf(what, sizeof what, "poisson(%g) discrete laplace t=%g k=%u, remove", q, t, k);
        extreme_loss = log1p(-q);
        check_pair(what, &pr[0], rs, eps, random_eps(eps), &m);
        ref_pair_free(rs);
        ref_pair_free(r);
        /* Laplace, both worlds */
        double b = exp(uniform(log(0.1), log(10.0)));
        of_event(dpa_event_poisson_sampled(q, dpa_event_laplace(b, NULL), NULL), DPA_ADD_REMOVE, pr);
        r = ref_pair_laplace(b);
        for (int w = 0; w < 2; w++) {
            rs = ref_pair_sampled(r, q, w);
            snprintf(what, sizeof what, "poisson(%g) laplace b=%g, world %d", q, b, w);
            extreme_loss = w ? -log1p(-q) : log1p(-q);
            check_pair(what, &pr[w], rs, eps, random_eps(eps), &m);
            ref_pair_free(rs);
        }
        ref_pair_free(r);
        /* (eps, delta), both worlds */
        double e0 = uniform(0.01, 6.0), d0 = exp(uniform(log(1e-9), log(0.3)));
        of_event(dpa_event_poisson_sampled(q, dpa_event_epsilon_delta(e0, d0, NULL), NULL), DPA_ADD_REMOVE, pr);
        r = ref_pair_epsdelta(e0, d0);
        for (int w = 0; w < 2; w++) {
            rs = ref_pair_sampled(r, q, w);
            snprintf(what, sizeof what, "poisson(%g) eps-delta (%g, %g), world %d", q, e0, d0, w);
            extreme_loss = w ? -log1p(-q) : log1p(-q);
            a = pr[w];
            check_pair(what, &a, rs, eps, random_eps(eps), &m);
            ref_pair_free(rs);
        }
        ref_pair_free(r);
        extreme_loss = NAN;
    }
    report("random parameter sweep", &m);
}
END_TEST


/* Far out and at infinity every pair answers sanely (and returns). */
START_TEST(extreme_epsilons)
{
    dpa_event *evs[] = {
        dpa_event_gaussian(1.0, NULL), dpa_event_laplace(1.0, NULL),
        dpa_event_randomized_response(1.0, 3, NULL), dpa_event_discrete_laplace(1.5, 2, NULL),
        dpa_event_discrete_gaussian(2.0, 1, NULL), dpa_event_discrete_gaussian(1e5, 3, NULL),
        dpa_event_epsilon_delta(1.0, 1e-4, NULL),
        dpa_event_poisson_sampled(0.1, dpa_event_gaussian(1.0, NULL), NULL),
        dpa_event_poisson_sampled(0.1, dpa_event_gaussian(1e4, NULL), NULL),
        dpa_event_poisson_sampled(0.1, dpa_event_laplace(0.5, NULL), NULL),
        dpa_event_poisson_sampled(0.1, dpa_event_epsilon_delta(1.0, 1e-4, NULL), NULL),
        dpa_event_poisson_sampled(0.1, dpa_event_discrete_gaussian(3.0, 2, NULL), NULL),
    };
    const double es[] = { -INFINITY, -1e300, -1e5, -800.0, 800.0, 1e5, 1e300, INFINITY };
    const size_t n_ev = sizeof evs / sizeof evs[0];
    for (size_t i = 0; i < n_ev; i++) {
        for (int rel = 0; rel < 2; rel++) {
            pld_profile pr[2];
            dpa_error err = { 0 };
            int st = pld_profile_of_event(evs[i], rel ? DPA_REPLACE_ONE : DPA_ADD_REMOVE, pr, &err);
            if (st == DPA_EUNSUPPORTED) continue;       /* Poisson of non-Gaussians under replace-one */
            ck_assert_msg(st == DPA_OK, "%s", err.message);
            for (int w = 0; w < 2; w++) {
                ck_assert_msg(fabs(pld_profile_log_delta(-INFINITY, &pr[w])) < 1e-15, "pair %d: delta(-inf)", pr[w].pair);
                ck_assert_msg(pld_profile_log_delta(INFINITY, &pr[w]) == -INFINITY ||
                              (pr[w].pair == PLD_EPSILON_DELTA && fabs(exp(pld_profile_log_delta(INFINITY, &pr[w])) - 1e-4) < 1e-18) ||
                              (pr[w].pair == PLD_SAMPLED_REMOVE && pr[w].inner == PLD_EPSILON_DELTA),
                              "pair %d: delta(+inf)", pr[w].pair);
                ck_assert_msg(pld_profile_log_q_survival(INFINITY, &pr[w]) == -INFINITY, "pair %d: Q(L > inf)", pr[w].pair);
                for (int j = 0; j < 8; j++) {
                    double ld = pld_profile_log_delta(es[j], &pr[w]), lq = pld_profile_log_q_survival(es[j], &pr[w]);
                    double re = pld_profile_delta_relerr(&pr[w], es[j]);
                    ck_assert_msg(!isnan(ld) && ld < 1e-15 && !isnan(lq) && lq < 1e-15,
                                  "pair %d eps %g: log delta %g, log Q %g", pr[w].pair, es[j], ld, lq);
                    ck_assert_msg(re > 0.0 && isfinite(re), "pair %d eps %g: relerr %g", pr[w].pair, es[j], re);
                    if (es[j] < -700.0)
                        ck_assert_msg(fabs(ld) < 1e-15, "pair %d eps %g: delta %g, not 1", pr[w].pair, es[j], exp(ld));
                }
            }
        }
        dpa_event_free(evs[i]);
    }
}
END_TEST


/* ---- the pairs through the grids the accountant builds -------------------- */

static double upper_log_delta(double eps, void *p)
{
    return pld_profile_log_delta(eps, p) + log1p(pld_profile_delta_relerr(p, eps));
}

static double lower_log_delta(double eps, void *p)
{
    return pld_profile_log_delta(eps, p) + log1p(-pld_profile_delta_relerr(p, eps));
}

/* One step: the connect-the-dots grid lies above the MPFR profile and the
 * drift-free lower grid below it, on the loss range the pair reports. */
START_TEST(grids_bracket_one_step)
{
    ref_pair *lap = ref_pair_laplace(0.7), *ed = ref_pair_epsdelta(1.0, 1e-4), *dg = ref_pair_dgauss(1.5, 2);
    struct { dpa_event *e; dpa_relation rel; ref_pair *r[2]; } cs[] = {
        { dpa_event_laplace(0.7, NULL), DPA_ADD_REMOVE, { ref_pair_laplace(0.7), NULL } },
        { dpa_event_randomized_response(1.2, 5, NULL), DPA_ADD_REMOVE, { ref_pair_rr(1.2, 5), NULL } },
        { dpa_event_discrete_laplace(1.3, 3, NULL), DPA_ADD_REMOVE, { ref_pair_dlap(1.3, 3), NULL } },
        { dpa_event_discrete_gaussian(1.5, 2, NULL), DPA_ADD_REMOVE, { ref_pair_dgauss(1.5, 2), NULL } },
        { dpa_event_epsilon_delta(1.0, 1e-4, NULL), DPA_ADD_REMOVE, { ref_pair_epsdelta(1.0, 1e-4), NULL } },
        { dpa_event_poisson_sampled(0.05, dpa_event_gaussian(0.9, NULL), NULL), DPA_REPLACE_ONE,
          { ref_pair_replace_gaussian(1.8, 0.05), NULL } },
        { dpa_event_poisson_sampled(0.2, dpa_event_laplace(0.7, NULL), NULL), DPA_ADD_REMOVE,
          { ref_pair_sampled(lap, 0.2, 0), ref_pair_sampled(lap, 0.2, 1) } },
        { dpa_event_poisson_sampled(0.2, dpa_event_epsilon_delta(1.0, 1e-4, NULL), NULL), DPA_ADD_REMOVE,
          { ref_pair_sampled(ed, 0.2, 0), ref_pair_sampled(ed, 0.2, 1) } },
        { dpa_event_poisson_sampled(0.2, dpa_event_discrete_gaussian(1.5, 2, NULL), NULL), DPA_ADD_REMOVE,
          { ref_pair_sampled(dg, 0.2, 0), ref_pair_sampled(dg, 0.2, 1) } },
    };
    const double h = 2e-3;
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        pld_profile pr[2];
        of_event(cs[c].e, cs[c].rel, pr);
        for (int w = 0; w < 2; w++) {
            const ref_pair *r = cs[c].r[w] ? cs[c].r[w] : cs[c].r[0];
            double lo, hi;
            pld_profile_loss_range(&pr[w], &lo, &hi);
            int64_t k0 = (int64_t)floor(lo / h) - 1, k1 = (int64_t)ceil(hi / h) + 1;
            pld_grid up, dn;
            ck_assert_int_eq(pld_grid_connect_dots(&up, upper_log_delta, &pr[w], h, k0, k1), DPA_OK);
            ck_assert_int_eq(pld_grid_lower_dots(&dn, lower_log_delta, pld_profile_log_q_survival, &pr[w], h, k0, k1,
                                                 pld_profile_atom_spacing(&pr[w]) != 0.0),
                             DPA_OK);
            for (double e = lo - 0.05; e <= hi + 0.05; e += (hi - lo + 0.1) / 97.0) {
                double ref = exp(ref_pair_log_delta(r, e));
                double du = pld_grid_delta_bound(&up, e, PLD_UPPER), dl = pld_grid_delta_bound(&dn, e, PLD_LOWER);
                /* slack: the grid's own double sums, a few ulps (seen: the
                 * lower grid 1 ulp above the truth at delta = 1 - e^eps) */
                ck_assert_msg(dl <= ref * (1.0 + 4.0 * DBL_EPSILON) && ref <= du * (1.0 + 4.0 * DBL_EPSILON),
                              "case %zu world %d eps %g: [%.17g, %.17g] misses %.17g", c, w, e, dl, du, ref);
            }
            pld_grid_free(&up);
            pld_grid_free(&dn);
        }
        ref_pair_free(cs[c].r[0]);
        ref_pair_free(cs[c].r[1]);
    }
    ref_pair_free(lap);
    ref_pair_free(ed);
    ref_pair_free(dg);
}
END_TEST


/* ../shared/notes/noisycgd-seed-001.md 2.6, "Lemma 2.6 exact": DP-SGD on
 * MNIST (q = 1/60, T = 60 E, delta = 1e-5) under substitution, with noise
 * sigma in units of the clipping norm C: E = 1 / 100 / 400 give 0.050 /
 * 0.616 / 1.317 (sigma = 15) and 0.166 / 2.066 / 4.543 (sigma = 5), three
 * decimals, computed there independently.  The event's noise multiplier is
 * sigma / Delta with the replace-one sensitivity Delta = 2C, i.e. sigma/2.
 * The pld accountant's bracket must contain them. */
START_TEST(replace_one_reference_values)
{
    const struct { double sigma; int epochs; double reference; } cs[] = {
        { 15.0, 1, 0.050 }, { 15.0, 100, 0.616 }, { 15.0, 400, 1.317 },
        { 5.0, 1, 0.166 }, { 5.0, 100, 2.066 }, { 5.0, 400, 4.543 },
    };
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        dpa_error err = { 0 };
        dpa_options opt;
        dpa_options_init(&opt);
        opt.relation = DPA_REPLACE_ONE;
        /* the event's noise multiplier is against the replace-one
         * sensitivity: sigma / 2 for the notes' sigma (pld_pair.h) */
        dpa_accountant *a = accountant_with_options("pld", &opt, dpa_event_self_composed(
            dpa_event_poisson_sampled(1.0 / 60.0, dpa_event_gaussian(cs[c].sigma / 2.0, &err), &err),
            60 * (uint64_t)cs[c].epochs, &err));
        dpa_bound b;
        ck_assert_msg(dpa_accountant_epsilon(a, 1e-5, &b, &err) == DPA_OK, "%s", err.message);
        printf("pld_profiles: replace-one sigma %g, E %d: eps in [%.5f, %.5f], reference %.3f\n", cs[c].sigma,
               cs[c].epochs, b.lower, b.upper, cs[c].reference);
        ck_assert_msg(b.lower <= cs[c].reference + 5e-4 && b.upper >= cs[c].reference - 5e-4,
                      "[%.5f, %.5f] misses %.3f", b.lower, b.upper, cs[c].reference);
        ck_assert_double_le(b.upper - b.lower, 1e-3 * b.upper);
        dpa_accountant_free(a);
    }
}
END_TEST

/* ---- statuses ---------------------------------------------------------------- */

static void expect_status(dpa_event *e, dpa_relation rel, int status, const char *must_name)
{
    dpa_error err = { 0 };
    pld_profile pr[2];
    ck_assert_msg(e != NULL, "event construction failed");
    int st = pld_profile_of_event(e, rel, pr, &err);
    ck_assert_msg(st == status, "status %d (%s), expected %d", st, err.message, status);
    ck_assert_int_eq(err.status, status);
    ck_assert_msg(strlen(err.message) > 10, "no reason given");
    if (must_name) ck_assert_msg(strstr(err.message, must_name) != NULL, "'%s' does not name %s", err.message, must_name);
    dpa_event_free(e);
}

START_TEST(unsupported_events)
{
    expect_status(dpa_event_zcdp(0.1, 0.0, NULL), DPA_ADD_REMOVE, DPA_EUNSUPPORTED, "zcdp");
    expect_status(dpa_event_shuffled(1.0, 1000, NULL), DPA_ADD_REMOVE, DPA_EUNSUPPORTED, "shuffled");
    expect_status(dpa_event_exponential(1.0, NULL), DPA_ADD_REMOVE, DPA_EUNSUPPORTED, "exponential");
    expect_status(dpa_event_sampled_with_replacement(100, 10, dpa_event_gaussian(1.0, NULL), NULL), DPA_ADD_REMOVE,
                  DPA_EUNSUPPORTED, "with replacement");
    expect_status(dpa_event_sampled_without_replacement(100, 10, dpa_event_gaussian(1.0, NULL), NULL),
                  DPA_ADD_REMOVE, DPA_EUNSUPPORTED, "replace-one");
    dpa_event *mixed[2] = { dpa_event_laplace(1.0, NULL), dpa_event_gaussian(1.0, NULL) };
    expect_status(dpa_event_sampled_without_replacement(100, 10, dpa_event_composed(mixed, 2, NULL), NULL),
                  DPA_REPLACE_ONE, DPA_EUNSUPPORTED, "without replacement");
    expect_status(dpa_event_sampled_without_replacement(100, 10, dpa_event_exponential(1.0, NULL), NULL),
                  DPA_REPLACE_ONE, DPA_EUNSUPPORTED, "exponential");
    expect_status(dpa_event_repeated_selected(dpa_event_gaussian(1.0, NULL), DPA_REPEAT_POISSON, 3.0, 0.0, NULL),
                  DPA_ADD_REMOVE, DPA_EUNSUPPORTED, "rdp");
    dpa_event *two[2] = { dpa_event_laplace(1.0, NULL), dpa_event_gaussian(1.0, NULL) };
    expect_status(dpa_event_poisson_sampled(0.1, dpa_event_composed(two, 2, NULL), NULL), DPA_ADD_REMOVE,
                  DPA_EUNSUPPORTED, "laplace");
    expect_status(dpa_event_poisson_sampled(0.1, dpa_event_zcdp(0.1, 0.0, NULL), NULL), DPA_ADD_REMOVE,
                  DPA_EUNSUPPORTED, "zcdp");
    expect_status(dpa_event_poisson_sampled(0.1, dpa_event_laplace(1.0, NULL), NULL), DPA_REPLACE_ONE,
                  DPA_EUNSUPPORTED, "replace-one");
    expect_status(dpa_event_discrete_gaussian(2e5, 1, NULL), DPA_ADD_REMOVE, DPA_EUNSUPPORTED, "sigma");
}
END_TEST

/* Events built by hand with parameters the constructors would refuse. */
static void expect_einval(dpa_event_kind kind, double p0, double p1, uint64_t c0, const char *name)
{
    struct dpa_event e = { 0 };
    e.kind = kind;
    for (int i = 0; i < DPA_EVENT_MAX_PARAMS; i++) e.param[i] = NAN;
    e.param[0] = p0;
    e.param[1] = p1;
    e.count[0] = c0;
    dpa_error err = { 0 };
    pld_profile pr[2];
    ck_assert_int_eq(pld_profile_of_event(&e, DPA_ADD_REMOVE, pr, &err), DPA_EINVAL);
    ck_assert_msg(strstr(err.message, name) != NULL, "'%s' does not name %s", err.message, name);
}

START_TEST(invalid_parameters)
{
    expect_einval(DPA_EVENT_LAPLACE, NAN, 0, 0, "laplace");
    expect_einval(DPA_EVENT_LAPLACE, -1.0, 0, 0, "laplace");
    expect_einval(DPA_EVENT_RANDOMIZED_RESPONSE, -0.5, 0, 3, "epsilon");
    expect_einval(DPA_EVENT_RANDOMIZED_RESPONSE, 1.0, 0, 1, " k ");
    expect_einval(DPA_EVENT_DISCRETE_LAPLACE, 0.0, 0, 1, "scale");
    expect_einval(DPA_EVENT_DISCRETE_LAPLACE, 1.0, 0, 0, "sensitivity");
    expect_einval(DPA_EVENT_DISCRETE_GAUSSIAN, INFINITY, 0, 1, "sigma");
    expect_einval(DPA_EVENT_DISCRETE_GAUSSIAN, 1.0, 0, 0, "sensitivity");
    expect_einval(DPA_EVENT_EPSILON_DELTA, NAN, 0.1, 0, "epsilon");
    expect_einval(DPA_EVENT_EPSILON_DELTA, 1.0, 1.0, 0, "delta");
    expect_einval(DPA_EVENT_EPSILON_DELTA, 1.0, NAN, 0, "delta");
    expect_einval(DPA_EVENT_GAUSSIAN, NAN, 0, 0, "sigma");
    /* a Poisson wrapper with a bad rate around a good leaf */
    dpa_event *leaf = dpa_event_laplace(1.0, NULL);
    struct dpa_event w = { 0 };
    w.kind = DPA_EVENT_POISSON_SAMPLED;
    w.num_children = 1;
    w.children = &leaf;
    const double bad_q[] = { 0.0, 1.5, NAN, -0.1 };
    for (int i = 0; i < 4; i++) {
        w.param[0] = bad_q[i];
        dpa_error err = { 0 };
        pld_profile pr[2];
        ck_assert_int_eq(pld_profile_of_event(&w, DPA_ADD_REMOVE, pr, &err), DPA_EINVAL);
        ck_assert_msg(strstr(err.message, "q") != NULL, "%s", err.message);
    }
    dpa_event_free(leaf);
    /* a composition is not a leaf */
    dpa_event *two[2] = { dpa_event_laplace(1.0, NULL), dpa_event_laplace(2.0, NULL) };
    dpa_event *c = dpa_event_composed(two, 2, NULL);
    dpa_error err = { 0 };
    pld_profile pr[2];
    ck_assert_int_eq(pld_profile_of_event(c, DPA_ADD_REMOVE, pr, &err), DPA_EINVAL);
    dpa_event_free(c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pld_profiles");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, laplace);
    tcase_add_test(tc, randomized_response);
    tcase_add_test(tc, discrete_laplace);
    tcase_add_test(tc, discrete_gaussian);
    tcase_add_test(tc, epsilon_delta);
    tcase_add_test(tc, replace_one_subsampled_gaussian);
    tcase_add_test(tc, replace_one_at_q_one_is_the_gaussian);
    tcase_add_test(tc, poisson_sampled_leaves);
    tcase_add_test(tc, sampling_with_q_one_is_the_inner_pair);
    tcase_add_test(tc, subsampled_gaussian_keeps_its_pairs);
    tcase_add_test(tc, without_replacement);
    tcase_add_test(tc, random_parameter_sweep);
    tcase_add_test(tc, extreme_epsilons);
    tcase_add_test(tc, grids_bracket_one_step);
    tcase_add_test(tc, replace_one_reference_values);
    tcase_add_test(tc, unsupported_events);
    tcase_add_test(tc, invalid_parameters);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
