/*
 * cli_args.h - the command line of the dpacct command: the subcommands and
 * options it accepts, their help texts, and reading argv into a checked
 * request (the flags as given and the mechanism they describe).  Bad usage
 * is reported here, as one line on stderr and exit status 2.
 */
#ifndef DPACCT_CLI_ARGS_H
#define DPACCT_CLI_ARGS_H

#include "cli_report.h" /* cli_format */
#include "dpacct.h"

#include <stddef.h>
#include <stdint.h>

/* what calibrate solves for (in the order of --solve's choices) */
typedef enum {
    SOLVE_SIGMA, SOLVE_STEPS, SOLVE_STRONG_CONVEXITY, SOLVE_EPOCHS, SOLVE_BATCH_SIZE, SOLVE_SAMPLING_RATE
} solve_target;

enum option_id {
    OPT_SIGMA, OPT_RATE, OPT_BATCH, OPT_DATASET, OPT_STEPS, OPT_EPOCHS, OPT_RELATION,
    OPT_SAMPLING, OPT_DELTA, OPT_EPSILON, OPT_ACCOUNTANT, OPT_SOLVE, OPT_ORDERS, OPT_FORMAT, OPT_EPS_ERROR,
    OPT_EPS_MIN, OPT_EPS_MAX, OPT_POINTS, OPT_MECHANISM, OPT_BATCHES, OPT_STEP_SIZE,
    OPT_STRONG_CONVEXITY, OPT_SMOOTHNESS, OPT_EPSILON0, OPT_USERS, OPT_RANDOMIZER, OPT_DELTA0, OPT_TUNING_RUNS,
    OPT_FAILURE_DELTA, OPT_TOLERANCE, OPT_SIGMA_MIN, OPT_SIGMA_MAX, OPT_REQUIRE_WIDTH, OPT_EVENT, OPT_PRINT_EVENT,
    OPT_NOISE_MULTIPLIER, OPT_MAX_EXAMPLES, OPT_PLOT, OPT_FPR, OPT_SELECTED, OPT_HELP, OPT_COUNT
};

/* calibrate --solve sigma searches [--sigma-min, --sigma-max]: these by default */
#define DEFAULT_SIGMA_MIN 1e-6
#define DEFAULT_SIGMA_MAX 1e9
/* calibrate's relative tolerance (--tolerance) by default, and its smallest */
#define DEFAULT_TOLERANCE 1e-4
#define SMALLEST_TOLERANCE 1e-12

/* at most this many Renyi orders on the command line */
#define MAX_ORDERS 1024
/* tradeoff: at most this many false-positive rates (--fpr) */
#define MAX_FPRS 1024

/* What was asked for, as parsed; `seen` records which flags were given. */
typedef struct cli {
    uint64_t seen;
    double sigma, rate, epochs, delta, epsilon;
    double noise_multiplier; /* --noise-multiplier: noise std / C; sets sigma for the relation */
    double eps_error;        /* --eps-error: dpa_options.tolerance (pld) */
    int require_width;       /* --require-width: dpa_options.require_width */
    double eps_min, eps_max; /* profile: the range of epsilon */
    uint64_t batch, dataset, steps, points;
    uint64_t max_examples;   /* statement --max-examples-per-user (0: not given) */
    int sweep;               /* --epochs A:B[:S]: one row per epoch count */
    double epochs_from, epochs_by; /* the range's start and step (its end is `epochs`) */
    const char *plot;        /* --plot FILE: the figure (profile, sweeps) */
    dpa_relation relation;
    int without_replacement; /* --sampling without-replacement */
    int shuffled_batches;    /* --sampling shuffle */
    int balls_in_bins;       /* --sampling balls-in-bins or allocation */
    int allocation;          /* --sampling allocation */
    uint64_t selected;       /* --selected K (allocation) */
    int noisy_cgd;           /* --mechanism noisy-cgd */
    int shuffled;            /* --mechanism shuffled */
    const char *event_text;  /* --mechanism given as an event (dpa_event_parse), else NULL */
    const char *event_file;  /* --event: a JSON event file or ledger, else NULL */
    int templates;           /* calibrate: the event is a template, one parameter
                              * left open ("?": dpa_event_template_new) */
    int print_event;         /* --print-event: print the mechanism's JSON and stop */
    double epsilon0;         /* shuffled: --epsilon0 */
    double delta0;           /* shuffled: --delta0 */
    int rr_class;            /* shuffled: --randomizer rr */
    double tuning_runs;      /* --tuning-runs: Poisson mean of the tuning runs */
    double failure_delta;    /* --failure-delta: an additive delta (0: none) */
    double tolerance;        /* calibrate --tolerance: relative width of the final bracket */
    double sigma_min, sigma_max; /* calibrate --solve sigma: the range searched */
    uint64_t users;          /* shuffled: --users */
    uint64_t batches;        /* noisy-cgd: --batches */
    double step_size, strong_convexity, smoothness; /* noisy-cgd */
    const char *accountant; /* NULL: choose one */
    cli_format format;
    solve_target solve;
    double orders[MAX_ORDERS]; /* --orders, used by the rdp accountant */
    size_t num_orders;
    double fprs[MAX_FPRS];     /* tradeoff --fpr: the false-positive rates */
    size_t num_fprs;
} cli;

/* The mechanism once the sampling and step flags are resolved. */
typedef struct mechanism {
    const char *event_text;  /* an event as text: the whole mechanism (the rest unused) */
    const char *event_file;  /* or a JSON event file (dpa_event_load_json) */
    double sigma;
    double q;       /* 1: no sampling */
    uint64_t steps; /* 1: no composition */
    /* sampling without replacement: batches of `batch` out of `dataset`
     * (q = batch/dataset); 0: Poisson sampling at rate q */
    uint64_t batch, dataset;
    /* --sampling shuffle: each epoch shuffled and cut into batches of
     * exactly `batch` of `dataset` (steps = the epochs); 0: not */
    int shuffled_batches;
    /* --sampling balls-in-bins (selected 1) or allocation: each epoch
     * every record in `selected` of ceil(selected dataset/batch) steps, a
     * uniformly random set (steps = the epochs) */
    int balls_in_bins;
    uint64_t selected;
    /* --mechanism noisy-cgd: the final iterate of noisy cyclic GD, sigma the
     * noise multiplier of its batch gradients (epochs in `steps`) */
    int noisy_cgd;
    uint64_t batches;
    double step_size, strong_convexity, smoothness;
    int smoothness_follows;  /* no --smoothness: smoothness = strong convexity */
    /* --mechanism shuffled: n users' eps0-local randomizers, shuffled */
    int shuffled;
    double epsilon0, delta0;
    int rr_class;         /* the randomized-response class (DPA_LOCAL_RR_CLASS) */
    uint64_t users;
    /* dpacct shuffle --sigma: a Gaussian local randomizer of that noise
     * multiplier per user (dpa_shuffled_gaussian_epsilon) */
    int gaussian_local;
    /* > 0: the whole run repeated Poisson(tuning_runs) times, the best kept */
    double tuning_runs;
} mechanism;

/* The subcommands; CMD_NONE: nothing to run (help or the version was printed). */
typedef enum {
    CMD_NONE, CMD_EPSILON, CMD_DELTA, CMD_CALIBRATE, CMD_COMPARE, CMD_RDP_CURVE, CMD_PROFILE, CMD_SHUFFLE,
    CMD_STATEMENT, CMD_TRADEOFF
} command_id;

/* steps = ceil(E / q), taking a quotient within 8 ulps of an integer as
 * that integer (E and q are decimal inputs); -1 when it is 2^64 or more. */
int epochs_steps(double epochs, double q, uint64_t *steps);

/* --solve's name for it ("sigma", "batch-size", ...). */
const char *solve_name(solve_target solve);

/* The mechanism's event: the one given (--mechanism text, --event), or
 * gaussian(sigma) sampled when q < 1 (without replacement when it has a
 * batch size, else Poisson), self-composed when steps > 1; the shuffled
 * rounds; the final iterate of noisy cyclic GD over `steps` epochs; with
 * --tuning-runs, repeated a Poisson number of times.  The wrappers own
 * their child also when they fail, so a NULL propagates with the first
 * error and nothing leaks. */
dpa_event *mechanism_event(const mechanism *m, dpa_error *err);

/* Whether the flag `id` was given. */
int given(const cli *c, enum option_id id);

/* Read argv: --help and --version are answered here (*cmd = CMD_NONE);
 * otherwise *cmd is the subcommand, *c its flags and *m the mechanism, all
 * checked.  Returns CLI_EXIT_OK, or CLI_EXIT_USAGE after its one-line message. */
int parse_command_line(int argc, char **argv, command_id *cmd, cli *c, mechanism *m);

#endif
