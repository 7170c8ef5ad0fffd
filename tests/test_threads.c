/*
 * test_threads.c - every registered accountant used from several threads at
 * once (DESIGN.md: "every object is reentrant so separate accountants can
 * run in separate threads"), and the same calibrations run concurrently.
 *
 * Each thread creates its own accountants, composes the same events and
 * asks the same queries as a single-threaded run made before, and the
 * answers must be bitwise equal to that run's (nothing may depend on
 * shared state or on timing).  The workload goes through the paths that
 * once shared hidden global state: rdp's sampling without replacement
 * (log-gamma, which wrote signgam), the shuffle accountant's clones pair
 * (lgammal), pld's FFTW plans (the planner is not thread-safe), GSL's
 * error handler.  Built with --enable-tsan, ThreadSanitizer reports any
 * data race among them; in a normal build it checks determinism only.
 *
 * Check's assertions are not thread-safe, so the threads only record
 * results; the main thread compares them.
 */
#include "dpacct.h"
#include "testutil.h"

#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4

/* ---- the events ------------------------------------------------------------ */

typedef dpa_event *(*event_builder)(void);

static dpa_event *ev_gaussians(void)
{
    return dpa_event_self_composed(dpa_event_gaussian(1.5, NULL), 20, NULL);
}

static dpa_event *ev_poisson(void)
{
    return dpa_event_self_composed(dpa_event_poisson_sampled(0.01, dpa_event_gaussian(1.1, NULL), NULL), 200, NULL);
}

/* rdp: Wang, Balle & Kasiviswanathan's bound, binomial coefficients from
 * log-gammas */
static dpa_event *ev_without_replacement(void)
{
    return dpa_event_self_composed(
        dpa_event_sampled_without_replacement(10000, 100, dpa_event_gaussian(1.1, NULL), NULL), 50, NULL);
}

static dpa_event *ev_laplace(void)
{
    return dpa_event_self_composed(dpa_event_laplace(2.0, NULL), 10, NULL);
}

static dpa_event *ev_randomized_response(void)
{
    return dpa_event_self_composed(dpa_event_randomized_response(1.0, 2, NULL), 5, NULL);
}

/* the clones pair (the binomial walks start from lgammal) */
static dpa_event *ev_shuffled(void)
{
    return dpa_event_shuffled(1.0, 500, NULL);
}

static dpa_event *ev_shuffled_rr(void)
{
    return dpa_event_shuffled_local(1.0, 0.0, 500, DPA_LOCAL_RR_CLASS, NULL);
}

/* several rounds: pld's clones node table */
static dpa_event *ev_shuffled_rounds(void)
{
    return dpa_event_self_composed(dpa_event_shuffled(1.0, 200, NULL), 2, NULL);
}

static dpa_event *ev_tuning_poisson(void)
{
    return dpa_event_repeated_selected(
        dpa_event_self_composed(dpa_event_poisson_sampled(0.01, dpa_event_gaussian(1.1, NULL), NULL), 20, NULL),
        DPA_REPEAT_POISSON, 5.0, 0.0, NULL);
}

static dpa_event *ev_tuning_geometric(void)
{
    return dpa_event_repeated_selected(dpa_event_laplace(2.0, NULL), DPA_REPEAT_GEOMETRIC, 0.1, 0.0, NULL);
}

/* shuffled fixed-size batches: the batches accountant's lower grid */
static dpa_event *ev_shuffled_batches(void)
{
    return dpa_event_self_composed(dpa_event_shuffled_batches(10000, 100, dpa_event_gaussian(1.0, NULL), NULL), 5,
                                   NULL);
}

/* balls-in-bins: rdp's bound and mc's estimate (its generator per query) */
static dpa_event *ev_balls_in_bins(void)
{
    return dpa_event_self_composed(dpa_event_random_allocation(20, 1, dpa_event_gaussian(1.0, NULL), NULL), 3,
                                   NULL);
}

static dpa_event *ev_zcdp_gdp(void)
{
    dpa_event *parts[2] = { dpa_event_zcdp(0.05, 0.0, NULL), dpa_event_gdp(0.5, NULL) };
    return dpa_event_composed(parts, 2, NULL);
}

static const struct {
    const char *name;
    event_builder build;
    dpa_relation relation;
} events[] = {
    { "gaussians", ev_gaussians, DPA_ADD_REMOVE },
    { "poisson", ev_poisson, DPA_ADD_REMOVE },
    { "without_replacement", ev_without_replacement, DPA_REPLACE_ONE },
    { "laplace", ev_laplace, DPA_ADD_REMOVE },
    { "randomized_response", ev_randomized_response, DPA_ADD_REMOVE },
    { "shuffled", ev_shuffled, DPA_REPLACE_ONE },
    { "shuffled_rr", ev_shuffled_rr, DPA_REPLACE_ONE },
    { "shuffled_rounds", ev_shuffled_rounds, DPA_REPLACE_ONE },
    { "tuning_poisson", ev_tuning_poisson, DPA_ADD_REMOVE },
    { "tuning_geometric", ev_tuning_geometric, DPA_ADD_REMOVE },
    { "zcdp_gdp", ev_zcdp_gdp, DPA_ADD_REMOVE },
    { "shuffled_batches", ev_shuffled_batches, DPA_ADD_REMOVE },
    { "balls_in_bins", ev_balls_in_bins, DPA_ADD_REMOVE },
};
#define NUM_EVENTS (sizeof events / sizeof events[0])

/* ---- the calibrations ---------------------------------------------------------- */

static dpa_event *sampled_family(double sigma, void *ctx, dpa_error *err)
{
    (void)ctx;
    return dpa_event_self_composed(dpa_event_poisson_sampled(0.01, dpa_event_gaussian(sigma, err), err), 1000, err);
}

static dpa_event *short_sampled_family(double sigma, void *ctx, dpa_error *err)
{
    (void)ctx;
    return dpa_event_self_composed(dpa_event_poisson_sampled(0.02, dpa_event_gaussian(sigma, err), err), 50, err);
}

static dpa_event *gaussian_family(double sigma, void *ctx, dpa_error *err)
{
    (void)ctx;
    return dpa_event_self_composed(dpa_event_gaussian(sigma, err), 100, err);
}

static dpa_event *without_replacement_family(double sigma, void *ctx, dpa_error *err)
{
    (void)ctx;
    return dpa_event_self_composed(
        dpa_event_sampled_without_replacement(10000, 100, dpa_event_gaussian(sigma, err), err), 50, err);
}

static const struct {
    const char *method;
    dpa_event_family family;
    dpa_relation relation;
} calibrations[] = {
    { "gaussian", gaussian_family, DPA_ADD_REMOVE },
    { "zcdp", gaussian_family, DPA_ADD_REMOVE },
    { "rdp", sampled_family, DPA_ADD_REMOVE },
    { "rdp", without_replacement_family, DPA_REPLACE_ONE },
    { "pld", short_sampled_family, DPA_ADD_REMOVE },
};
#define NUM_CALIBRATIONS (sizeof calibrations / sizeof calibrations[0])

/* ---- the jobs and their results -------------------------------------------------- */

enum { JOB_QUERY, JOB_CALIBRATE, JOB_SHUFFLED_GAUSSIAN };

typedef struct {
    int kind;
    const char *method; /* JOB_QUERY: accountant name */
    size_t index;       /* into events[] or calibrations[] */
} job;

/* What a job produced; compared bit for bit. */
typedef struct {
    int status[3];
    dpa_bound eps, delta;
    double value;
    char message[DPA_ERROR_MESSAGE_SIZE];
} result;

static job jobs[64];
static size_t num_jobs;

static void run_job(const job *j, result *r)
{
    memset(r, 0, sizeof *r);
    dpa_error err = { 0 };
    dpa_options opt;
    dpa_options_init(&opt);
    opt.tolerance = 1e-2; /* coarser pld grids: the paths, not the digits, matter here */
    switch (j->kind) {
    case JOB_QUERY: {
        opt.relation = events[j->index].relation;
        dpa_accountant *a = dpa_accountant_new(j->method, &opt, &err);
        if (!a) {
            r->status[0] = err.status;
            break;
        }
        dpa_event *e = events[j->index].build();
        r->status[0] = e ? dpa_accountant_compose(a, e, &err) : DPA_EINVAL;
        dpa_event_free(e);
        if (r->status[0] == DPA_OK) {
            r->status[1] = dpa_accountant_epsilon(a, 1e-5, &r->eps, &err);
            r->status[2] = dpa_accountant_delta(a, 1.0, &r->delta, &err);
        }
        dpa_accountant_free(a);
        break;
    }
    case JOB_CALIBRATE:
        opt.relation = calibrations[j->index].relation;
        r->status[0] = dpa_calibrate(calibrations[j->index].method, &opt, calibrations[j->index].family, NULL, 1.0,
                                     1e-5, 0.5, 2.0, &r->value, &err);
        break;
    case JOB_SHUFFLED_GAUSSIAN: {
        dpa_shuffled_gaussian sg;
        r->status[0] = dpa_shuffled_gaussian_epsilon(3.0, 300, 1e-5, &sg, &err);
        r->value = sg.epsilon;
        r->eps.upper = sg.shuffled_epsilon;
        r->eps.lower = sg.epsilon0;
        r->eps.estimate = sg.delta0;
        break;
    }
    }
    memcpy(r->message, err.message, sizeof r->message);
}

/* Bitwise equality of the fields (not of the padding). */
static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static int same_bound(const dpa_bound *a, const dpa_bound *b)
{
    return same_double(a->lower, b->lower) && same_double(a->estimate, b->estimate) &&
           same_double(a->upper, b->upper) && same_double(a->order, b->order) && a->flags == b->flags;
}

static int same_result(const result *a, const result *b)
{
    return memcmp(a->status, b->status, sizeof a->status) == 0 && same_bound(&a->eps, &b->eps) &&
           same_bound(&a->delta, &b->delta) && same_double(a->value, b->value) &&
           strcmp(a->message, b->message) == 0;
}

static void describe_job(const job *j, char *buf, size_t size)
{
    if (j->kind == JOB_QUERY)
        snprintf(buf, size, "%s on %s", j->method, events[j->index].name);
    else if (j->kind == JOB_CALIBRATE)
        snprintf(buf, size, "calibrate %s (family %zu)", calibrations[j->index].method, j->index);
    else
        snprintf(buf, size, "dpa_shuffled_gaussian_epsilon");
}

/* Every (accountant, event) pair the accountant supports, the calibrations,
 * and the shuffled Gaussian. */
static void collect_jobs(void)
{
    num_jobs = 0;
    for (const char *const *name = dpa_accountant_names(); *name; name++) {
        size_t supported = 0;
        for (size_t i = 0; i < NUM_EVENTS; i++) {
            dpa_options opt;
            dpa_options_init(&opt);
            opt.relation = events[i].relation;
            dpa_accountant *a = dpa_accountant_new(*name, &opt, NULL);
            ck_assert_msg(a != NULL, "cannot create accountant %s", *name);
            dpa_event *e = events[i].build();
            ck_assert_msg(e != NULL, "cannot build event %s", events[i].name);
            if (dpa_accountant_supports(a, e, NULL) == DPA_OK) {
                ck_assert(num_jobs < sizeof jobs / sizeof jobs[0]);
                jobs[num_jobs++] = (job){ JOB_QUERY, *name, i };
                supported++;
            }
            dpa_event_free(e);
            dpa_accountant_free(a);
        }
        /* a new accountant must get a workload: add an event it supports */
        ck_assert_msg(supported > 0, "no event in test_threads.c exercises the accountant '%s'", *name);
    }
    for (size_t i = 0; i < NUM_CALIBRATIONS; i++) jobs[num_jobs++] = (job){ JOB_CALIBRATE, NULL, i };
    jobs[num_jobs++] = (job){ JOB_SHUFFLED_GAUSSIAN, NULL, 0 };
}

typedef struct {
    size_t first; /* each thread starts elsewhere in the list */
    result *results;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    for (size_t k = 0; k < num_jobs; k++) {
        size_t i = (w->first + k) % num_jobs;
        run_job(&jobs[i], &w->results[i]);
    }
    return NULL;
}

START_TEST(concurrent_equals_sequential)
{
    collect_jobs();
    result *reference = calloc(num_jobs, sizeof *reference);
    result *got = calloc(THREADS * num_jobs, sizeof *got);
    ck_assert(reference && got);
    for (size_t i = 0; i < num_jobs; i++) {
        run_job(&jobs[i], &reference[i]);
        /* every job must do its work: a failure would hide the paths */
        char what[128];
        describe_job(&jobs[i], what, sizeof what);
        ck_assert_msg(reference[i].status[0] == DPA_OK && reference[i].status[1] == DPA_OK,
                      "%s: status %d/%d: %s", what, reference[i].status[0], reference[i].status[1],
                      reference[i].message);
    }
    printf("threads: %zu jobs (every accountant, calibrations), %d threads\n", num_jobs, THREADS);

    pthread_t tid[THREADS];
    worker w[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t] = (worker){ .first = (size_t)t * num_jobs / THREADS, .results = got + (size_t)t * num_jobs };
        ck_assert_int_eq(pthread_create(&tid[t], NULL, work, &w[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) ck_assert_int_eq(pthread_join(tid[t], NULL), 0);

    for (int t = 0; t < THREADS; t++)
        for (size_t i = 0; i < num_jobs; i++) {
            const result *r = &got[(size_t)t * num_jobs + i], *ref = &reference[i];
            char what[128];
            describe_job(&jobs[i], what, sizeof what);
            ck_assert_msg(same_result(r, ref),
                          "thread %d, %s: eps [%.17g, %.17g] delta [%.17g, %.17g] value %.17g status %d/%d/%d, "
                          "alone: eps [%.17g, %.17g] delta [%.17g, %.17g] value %.17g status %d/%d/%d",
                          t, what, r->eps.lower, r->eps.upper, r->delta.lower, r->delta.upper, r->value,
                          r->status[0], r->status[1], r->status[2], ref->eps.lower, ref->eps.upper,
                          ref->delta.lower, ref->delta.upper, ref->value, ref->status[0], ref->status[1],
                          ref->status[2]);
        }
    free(reference);
    free(got);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600); /* a few seconds; minutes under a sanitizer on a loaded machine */
    tcase_add_test(tc, concurrent_equals_sequential);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
