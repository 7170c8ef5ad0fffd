/*
 * select.c - private selection of a hyperparameter by Liu & Talwar's random
 * stopping (Liu & Talwar, "Private Selection from Private Candidates",
 * STOC 2019, Thm 3.1), shared by the sparse trainers (sparse-erm's lambda,
 * sparse-mean's projection radius).
 *
 * Each round draws a candidate uniformly at random, runs the eps_main-DP
 * mechanism with it and scores the release with a Laplace-noised score
 * (eps_score-DP given the release: adaptive composition, Dwork & Roth 2014,
 * Thm 3.16), so a round is eps_round = eps_main + eps_score pure DP, a
 * uniform mixture of such mechanisms being one too.  After each round a
 * coin of probability gamma stops the run; the round with the best (lowest)
 * noisy score is released.  Thm 3.1: the whole is 3 eps_round-DP for every
 * gamma in (0, 1].  The accounting is the library's: the round is the event
 * composed(laplace(1/eps_main), laplace(1/eps_score)) inside
 * repeated_selected(GEOMETRIC, gamma), and the tuning accountant's certified
 * eps is what is reported.
 *
 * What the theorem covers: the best round only.  The NUMBER of rounds is
 * not part of its output, and published with the release it can cost far
 * more than 3 eps_round (given T = t rounds the release is a best-of-t,
 * whose loss can reach t eps_round: e.g. a score that is randomized
 * response, whose "every round scored 0" event has likelihood ratio
 * e^(t eps_round)).  The trainers return the count for tests and
 * reproducible runs; the CLI withholds it from private runs.
 *
 * No cap on the rounds: Thm 3.1's proof is for the untruncated geometric,
 * and stopping at a cap would change the distribution of the count (and
 * add a delta).  The count is data-independent, E[T] = 1/gamma, and
 * P[T > k/gamma] <= e^-k.
 */
#include <config.h>

#include "dpt_internal.h"

#include <float.h>
#include <math.h>

int dpt_lt_check(const char *who, const char *name, const double *cand, size_t count, double gamma, double fraction,
                 int pure, double delta, dpa_error *err)
{
    if (!(gamma > 0.0 && gamma <= 1.0))
        return dpt_fail(err, DPA_EINVAL, "%s: random stopping: the stopping probability gamma must lie in (0, 1], "
                        "got %g", who, gamma);
    if (!(fraction > 0.0 && fraction < 1.0))
        return dpt_fail(err, DPA_EINVAL, "%s: random stopping: the score's share of each round's epsilon must lie in "
                        "(0, 1), got %g", who, fraction);
    if (count && !cand) return dpt_fail(err, DPA_EINVAL, "%s: random stopping: %zu %s candidates but no list", who,
                                        count, name);
    for (size_t k = 0; k < count; k++)
        if (!(cand[k] > 0.0) || !isfinite(cand[k]))
            return dpt_fail(err, DPA_EINVAL, "%s: random stopping: the %s candidate %zu must be finite and > 0, got %g",
                            who, name, k + 1, cand[k]);
    if (pure && delta != 0.0)
        return dpt_fail(err, DPA_EINVAL, "%s: random stopping is Liu & Talwar's 3 eps for pure eps-DP rounds (STOC "
                        "2019, Thm 3.1); delta = %g makes each round Gaussian: use delta = 0 (Laplace)", who, delta);
    return DPA_OK;
}

int dpt_lt_budget(const char *who, double epsilon, double fraction, double gamma, dpt_lt_budget_t *b, dpa_error *err)
{
    b->round = epsilon / 3.0;
    b->score = fraction * b->round;
    b->main = b->round - b->score;
    b->total = INFINITY;
    if (!(b->main > 0.0 && b->score > 0.0 && isfinite(b->round)))
        return dpt_fail(err, DPA_EINVAL, "%s: random stopping: epsilon %g splits into %g for the mechanism and %g for "
                        "the score: both must be finite and > 0", who, epsilon, b->main, b->score);
    dpa_event *part[2] = { dpa_event_laplace(1.0 / b->main, err), NULL };
    if (part[0]) part[1] = dpa_event_laplace(1.0 / b->score, err);
    if (!part[1]) {
        dpa_event_free(part[0]);
        return err && err->status ? err->status : DPA_ENOMEM;
    }
    dpa_event *round = dpa_event_composed(part, 2, err);
    dpa_event *e = round ? dpa_event_repeated_selected(round, DPA_REPEAT_GEOMETRIC, gamma, 0.0, err) : NULL;
    if (!e) return err && err->status ? err->status : DPA_ENOMEM;
    dpa_accountant *a = dpa_accountant_new("tuning", NULL, err);
    int st = a ? dpa_accountant_compose(a, e, err) : (err && err->status ? err->status : DPA_ENOMEM);
    dpa_bound eb, db;
    /* Liu-Talwar's bound does not depend on delta: asked at the smallest
     * normal delta, then confirmed pure (delta 0 at that eps) */
    if (!st) st = dpa_accountant_epsilon(a, DBL_MIN, &eb, err);
    if (!st) st = dpa_accountant_delta(a, eb.upper, &db, err);
    if (!st && !(db.upper == 0.0 && isfinite(eb.upper)))
        st = dpt_fail(err, DPA_EACCURACY, "%s: random stopping: the tuning accountant gives eps %g with delta %g, not "
                      "a pure guarantee", who, eb.upper, db.upper);
    if (!st) b->total = eb.upper;
    dpa_accountant_free(a);
    dpa_event_free(e);
    return st;
}

int dpt_lt_noisy(const char *who, dpt_rng *rng, double score, double sensitivity, double eps_score, double *noisy,
                 dpa_error *err)
{
    *noisy = score;
    if (!rng) return DPA_OK;
    double b = dpt_scale_up(sensitivity / eps_score);
    int st = dpt_noise_check_scale(b, who, err);
    if (!st) *noisy = dpt_noise_laplace(rng, score, b);
    return st;
}

int dpt_lt_run(dpt_rng *rng, size_t count, double gamma, int (*round)(void *ctx, size_t candidate, double *score,
                                                                     dpa_error *err),
               void (*keep)(void *ctx), void *ctx, double **cur, double **best, dpt_lt_outcome *out, dpa_error *err)
{
    out->rounds = 0;
    out->best = 0;
    out->score = INFINITY;
    do {
        size_t j = (size_t)dpt_rng_below(rng, (uint64_t)count);
        double q;
        int st = round(ctx, j, &q, err);
        if (st) return st;
        /* the lowest noisy score; the first of equal ones */
        if (out->rounds == 0 || q < out->score) {
            out->score = q;
            out->best = j;
            double *t = *best;
            *best = *cur;
            *cur = t;
            if (keep) keep(ctx);
        }
        out->rounds++;
    } while (!dpt_rng_bernoulli(rng, gamma));
    return DPA_OK;
}
