/*
 * cli_args.c - the command line of the dpacct command: the option table and
 * the subcommand descriptions, the help built from them, and parsing argv
 * into a checked request.  Every value is validated here, so a mistake is
 * a usage error (exit status 2) named after its flag, never a library
 * failure found later.
 */

#include "cli_args.h"
#include "cli_plot.h"
#include "cli_toolkit.h"
#include "dpacct.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the options ---------------------------------------------------------- */

#define OPT_BIT(id) (UINT64_C(1) << (id))

/* The options of every subcommand (which accepts which: command_info). */
static const cli_option option_table[OPT_COUNT] = {
    [OPT_SIGMA] = { "sigma", "X", "noise multiplier: noise std / the sensitivity under --relation (C under "
                                  "add-remove, 2C under replace-one, C the per-example bound such as the clipping "
                                  "norm), X > 0" },
    [OPT_NOISE_MULTIPLIER] = { "noise-multiplier", "Z", "instead of --sigma, the noise as trainers add it (Opacus, TF "
                                                        "Privacy): noise std / C; sigma = Z under add-remove, Z/2 "
                                                        "under replace-one" },
    [OPT_RATE] = { "sampling-rate", "Q", "Poisson sampling rate, 0 < Q <= 1 (default 1: no sampling)" },
    [OPT_BATCH] = { "batch-size", "B", "expected batch size; with --dataset-size, Q = B/N" },
    [OPT_DATASET] = { "dataset-size", "N", "number of examples, N >= B (with --batch-size)" },
    [OPT_STEPS] = { "steps", "T", "number of steps (compositions), T >= 1, e.g. 10000 or 1e4 (default 1)" },
    [OPT_EPOCHS] = { "epochs", "E", "passes over the data instead of --steps: T = ceil(E/Q) (noisy-cgd: whole epochs)" },
    [OPT_RELATION] = { "relation", "REL", "neighbouring datasets: add-remove (default) or replace-one" },
    [OPT_SAMPLING] = { "sampling", "KIND", "poisson (default), without-replacement (batches of exactly B of N; "
                                           "replace-one only), shuffle (each epoch shuffled and cut into batches "
                                           "of exactly B; --epochs), balls-in-bins (each epoch each record in one "
                                           "of ceil(N/B) batches at random; --epochs) or allocation (each epoch each "
                                           "record in --selected K of ceil(K N/B) batches at random; --epochs)" },
    [OPT_SELECTED] = { "selected", "K", "--sampling allocation: the batches each record is used in an epoch, K >= 1" },
    [OPT_DELTA] = { "delta", "D", "delta, 0 < D < 1" },
    [OPT_EPSILON] = { "epsilon", "EPS", "epsilon, EPS >= 0" },
    [OPT_ACCOUNTANT] = { "accountant", "NAME", "accounting method (default: the first that supports the mechanism)" },
    [OPT_SOLVE] = { "solve", "WHAT", "what to solve for: sigma (default), steps, epochs, batch-size (with "
                                     "--dataset-size), sampling-rate, or strong-convexity (noisy-cgd)" },
    [OPT_ORDERS] = { "orders", "LIST", "rdp: comma-separated Renyi orders > 1, used alone (default: 94 from 1.25 "
                                       "to 1024, then the best real order near the best of them)" },
    [OPT_FORMAT] = { "format", "FMT", "output format: table (default), json or csv" },
    [OPT_EPS_ERROR] = { "eps-error", "X", "pld: largest bracket width relative to the answer, 0 < X < 1 (default 1e-3); "
                                          "a bracket that cannot be made that narrow is printed flagged (width not met)" },
    [OPT_REQUIRE_WIDTH] = { "require-width", NULL, "pld: a bracket wider than --eps-error is an error (exit 1, the "
                                                   "reason on stderr), still printed" },
    [OPT_EPS_MIN] = { "eps-min", "A", "the smallest epsilon of the profile, A >= 0 (default 0)" },
    [OPT_EPS_MAX] = { "eps-max", "B", "the largest epsilon of the profile, B > A (default 10)" },
    [OPT_POINTS] = { "points", "N", "number of epsilons, evenly spaced, 2 <= N <= 100000 (default 21)" },
    [OPT_MECHANISM] = { "mechanism", "KIND", "gaussian (default: Gaussian noise per step, as in DP-SGD), noisy-cgd "
                                             "(final iterate of noisy cyclic GD, hidden state), shuffled (eps0-local "
                                             "randomizers of n users, shuffled), or any mechanism written as an event, "
                                             "e.g. 'compose(self_composed(count=900, poisson(q=0.004, "
                                             "gaussian(sigma=1.1))), laplace(scale=10))' (the syntax: dpacct(1), "
                                             "EVENTS AS TEXT)" },
    [OPT_EVENT] = { "event", "FILE", "the mechanism from a JSON event file, or a ledger (one event per line, "
                                     "composed); the format: dpacct(1), EVENTS AS JSON" },
    [OPT_MAX_EXAMPLES] = { "max-examples-per-user", "K", "statement: each user contributes at most K examples: "
                                                         "user-level epsilon by group privacy, K >= 1" },
    [OPT_PLOT] = { "plot", "FILE", "profile, tradeoff, and epsilon or delta over an --epochs range: also draw the "
                                   "bracket into FILE (.png, .svg or .pdf) with gnuplot" },
    [OPT_FPR] = { "fpr", "LIST", "tradeoff: comma-separated false-positive rates in (0, 1] (default 1e-5,1e-4,1e-3,"
                                 "0.01,0.1,0.5)" },
    [OPT_PRINT_EVENT] = { "print-event", NULL, "print the mechanism as a JSON event (for --event) and stop" },
    [OPT_EPSILON0] = { "epsilon0", "E0", "shuffled: each user's local randomizer is E0-DP, E0 > 0" },
    [OPT_USERS] = { "users", "N", "shuffled: number of users, 1 <= N <= 1e9" },
    [OPT_RANDOMIZER] = { "randomizer", "CLASS", "shuffled: any (default: any E0-DP randomizer) or rr (randomized "
                                                "response and its class: stronger clones, Feldman, McMillan & Talwar, SODA 2023)" },
    [OPT_DELTA0] = { "delta0", "D0", "shuffled: the randomizers are (E0, D0)-DP, 0 <= D0 < 1 (default 0; class any)" },
    [OPT_TUNING_RUNS] = { "tuning-runs", "M", "private tuning: the whole run repeated Poisson(M) times, the best "
                                              "released (Papernot & Steinke, ICLR 2022), M > 0 (rdp: M >= 1)" },
    [OPT_FAILURE_DELTA] = { "failure-delta", "DF", "an additive delta for a failure event outside the mechanism (a "
                                                   "random matrix without RIP, say): added to the delta reported, "
                                                   "taken off the delta an epsilon is reported at, 0 < DF < 1" },
    [OPT_BATCHES] = { "batches", "K", "noisy-cgd: fixed batches visited cyclically per epoch, K >= 1" },
    [OPT_STEP_SIZE] = { "step-size", "ETA", "noisy-cgd: step size, 0 < ETA < 2/SMOOTHNESS" },
    [OPT_STRONG_CONVEXITY] = { "strong-convexity", "LAM", "noisy-cgd: strong convexity of the loss, LAM > 0" },
    [OPT_SMOOTHNESS] = { "smoothness", "BETA", "noisy-cgd: smoothness of the loss, BETA >= LAM (default LAM)" },
    [OPT_TOLERANCE] = { "tolerance", "X", "calibrate: relative width of the final bracket of sigma, sampling-rate or "
                                          "strong-convexity, 1e-12 <= X <= 0.1 (default 1e-4)" },
    [OPT_SIGMA_MIN] = { "sigma-min", "A", "calibrate --solve sigma: the smallest noise searched, A > 0 (default 1e-6)" },
    [OPT_SIGMA_MAX] = { "sigma-max", "B", "calibrate --solve sigma: the largest noise searched, B > A (default 1e9)" },
    [OPT_HELP] = { "help", NULL, "print this help and exit" },
};

#define MECHANISM_OPTIONS                                                                  \
    (OPT_BIT(OPT_SIGMA) | OPT_BIT(OPT_NOISE_MULTIPLIER) | OPT_BIT(OPT_RATE) | OPT_BIT(OPT_BATCH) | OPT_BIT(OPT_DATASET) | \
     OPT_BIT(OPT_STEPS) | OPT_BIT(OPT_EPOCHS) | OPT_BIT(OPT_RELATION) | OPT_BIT(OPT_SAMPLING) |    \
     OPT_BIT(OPT_MECHANISM) | OPT_BIT(OPT_BATCHES) | OPT_BIT(OPT_STEP_SIZE) |                      \
     OPT_BIT(OPT_STRONG_CONVEXITY) | OPT_BIT(OPT_SMOOTHNESS) | OPT_BIT(OPT_EPSILON0) | OPT_BIT(OPT_USERS) |   \
     OPT_BIT(OPT_RANDOMIZER) | OPT_BIT(OPT_DELTA0) | OPT_BIT(OPT_TUNING_RUNS) | OPT_BIT(OPT_EVENT) |           \
     OPT_BIT(OPT_SELECTED))
#define COMMON_OPTIONS (MECHANISM_OPTIONS | OPT_BIT(OPT_ORDERS) | OPT_BIT(OPT_FORMAT) | OPT_BIT(OPT_HELP))
/* the subcommands that run accountants take the pld accuracy; those that
 * print brackets can make a missed width an error */
#define ACCOUNTING_OPTIONS (COMMON_OPTIONS | OPT_BIT(OPT_EPS_ERROR))
#define BRACKET_OPTIONS (ACCOUNTING_OPTIONS | OPT_BIT(OPT_REQUIRE_WIDTH))

int given(const cli *c, enum option_id id)
{
    return (c->seen & OPT_BIT(id)) != 0;
}

/* The value domains of the options, as intervals for cli_parse_real. */
static int parse_positive(enum option_id id, const char *arg, double *out)
{
    return cli_parse_real(option_table[id].name, arg, 0.0, 1, INFINITY, 1, out);
}

static int parse_nonnegative(enum option_id id, const char *arg, double *out)
{
    return cli_parse_real(option_table[id].name, arg, 0.0, 0, INFINITY, 1, out);
}

static int parse_open_unit(enum option_id id, const char *arg, double *out)
{
    return cli_parse_real(option_table[id].name, arg, 0.0, 1, 1.0, 1, out);
}

static int parse_count(enum option_id id, const char *arg, uint64_t *out)
{
    return cli_parse_count(option_table[id].name, arg, 1, UINT64_MAX, out);
}

/* The index of `text` in the NULL-terminated `choices`, or -1 after
 * reporting the error. */
static int parse_choice(enum option_id id, const char *text, const char *const *choices)
{
    int choice;
    return cli_parse_choice(option_table[id].name, text, choices, &choice) ? -1 : choice;
}

static const char *const solve_names[] = { "sigma", "steps", "strong-convexity", "epochs", "batch-size",
                                           "sampling-rate", NULL };

const char *solve_name(solve_target solve)
{
    return (unsigned)solve < sizeof solve_names / sizeof solve_names[0] - 1 ? solve_names[solve] : "?";
}

/* --epochs A:B or A:B:S, a sweep: every S-th epoch count from A to B
 * (S = 1 by default), at most 10000 of them. */
static int parse_epoch_range(cli *c, const char *arg)
{
    double v[3] = { 0.0, 0.0, 1.0 };
    const char *p = arg;
    int n = 0;
    while (n < 3) {
        char *end;
        v[n] = strtod(p, &end);
        if (end == p || !(v[n] > 0.0) || !isfinite(v[n]))
            return cli_usage_error("--epochs: a range is A:B or A:B:S with positive numbers, got '%s'", arg);
        n++;
        if (*end == '\0') break;
        if (*end != ':' || n == 3)
            return cli_usage_error("--epochs: a range is A:B or A:B:S with positive numbers, got '%s'", arg);
        p = end + 1;
    }
    if (n < 2) return cli_usage_error("--epochs: a range is A:B or A:B:S, got '%s'", arg);
    if (!(v[0] <= v[1])) return cli_usage_error("--epochs: the range's start exceeds its end in '%s'", arg);
    if (n < 3) v[2] = 1.0;
    if ((v[1] - v[0]) / v[2] > 9999.0) return cli_usage_error("--epochs: at most 10000 points, got '%s'", arg);
    c->sweep = 1;
    c->epochs_from = v[0];
    c->epochs_by = v[2];
    c->epochs = v[1];
    return CLI_EXIT_OK;
}

/* An event given as --mechanism text or an --event file, read now so that
 * a mistake is a usage error: for calibrate a template (one '?'), else an
 * event. */
static int check_event(const cli *c, enum option_id id, const char *arg)
{
    dpa_error err = { 0 };
    const int file = id == OPT_EVENT;
    if (c->templates) {
        dpa_event_template *t = file ? dpa_event_template_load(arg, &err) : dpa_event_template_new(arg, strlen(arg), &err);
        dpa_event_template_free(t);
        if (!t) return cli_usage_error("--%s: %s", option_table[id].name, err.message);
    } else {
        dpa_event *e = file ? dpa_event_load_json(arg, &err) : dpa_event_parse(arg, &err);
        dpa_event_free(e);
        if (!e) return cli_usage_error("--%s: %s", option_table[id].name, err.message);
    }
    return CLI_EXIT_OK;
}

static int parse_value(cli *c, enum option_id id, const char *arg)
{
    static const char *const relations[] = { "add-remove", "replace-one", NULL };
    static const char *const samplings[] = { "poisson", "without-replacement", "shuffle", "balls-in-bins",
                                             "allocation", NULL };
    static const char *const mechanisms[] = { "gaussian", "noisy-cgd", "shuffled", NULL };
    static const char *const randomizers[] = { "any", "rr", NULL };
    int choice, st;
    switch (id) {
    case OPT_SIGMA: return parse_positive(id, arg, &c->sigma);
    case OPT_NOISE_MULTIPLIER: return parse_positive(id, arg, &c->noise_multiplier);
    case OPT_RATE: return cli_parse_real(option_table[id].name, arg, 0.0, 1, 1.0, 0, &c->rate);
    case OPT_EPOCHS:
        if (strchr(arg, ':')) return parse_epoch_range(c, arg);
        return parse_positive(id, arg, &c->epochs);
    case OPT_DELTA: return parse_open_unit(id, arg, &c->delta);
    case OPT_EPSILON: return parse_nonnegative(id, arg, &c->epsilon);
    case OPT_BATCH: return parse_count(id, arg, &c->batch);
    case OPT_DATASET: return parse_count(id, arg, &c->dataset);
    case OPT_STEPS: return parse_count(id, arg, &c->steps);
    case OPT_RELATION:
        if ((choice = parse_choice(id, arg, relations)) < 0) return CLI_EXIT_USAGE;
        c->relation = choice == 1 ? DPA_REPLACE_ONE : DPA_ADD_REMOVE;
        return CLI_EXIT_OK;
    case OPT_SAMPLING:
        if ((choice = parse_choice(id, arg, samplings)) < 0) return CLI_EXIT_USAGE;
        c->without_replacement = choice == 1;
        c->shuffled_batches = choice == 2;
        c->balls_in_bins = choice == 3 || choice == 4;   /* allocation: K of the batches, balls-in-bins K = 1 */
        c->allocation = choice == 4;
        return CLI_EXIT_OK;
    case OPT_SELECTED: return parse_count(id, arg, &c->selected);
    case OPT_MECHANISM:
        if (strchr(arg, '(')) {          /* an event as text: checked now, built when it is run */
            if ((st = check_event(c, id, arg))) return st;
            c->event_text = arg;
            return CLI_EXIT_OK;
        }
        if ((choice = parse_choice(id, arg, mechanisms)) < 0) return CLI_EXIT_USAGE;
        c->noisy_cgd = choice == 1;
        c->shuffled = choice == 2;
        return CLI_EXIT_OK;
    case OPT_EPSILON0: return parse_positive(id, arg, &c->epsilon0);
    case OPT_USERS: return parse_count(id, arg, &c->users);
    case OPT_RANDOMIZER:
        if ((choice = parse_choice(id, arg, randomizers)) < 0) return CLI_EXIT_USAGE;
        c->rr_class = choice == 1;
        return CLI_EXIT_OK;
    case OPT_DELTA0: return cli_parse_real(option_table[id].name, arg, 0.0, 0, 1.0, 1, &c->delta0);
    case OPT_TUNING_RUNS: return parse_positive(id, arg, &c->tuning_runs);
    case OPT_FAILURE_DELTA: return parse_open_unit(id, arg, &c->failure_delta);
    case OPT_BATCHES: return parse_count(id, arg, &c->batches);
    case OPT_STEP_SIZE: return parse_positive(id, arg, &c->step_size);
    case OPT_STRONG_CONVEXITY: return parse_positive(id, arg, &c->strong_convexity);
    case OPT_SMOOTHNESS: return parse_positive(id, arg, &c->smoothness);
    case OPT_FORMAT: return cli_parse_format(arg, 1, &c->format);
    case OPT_SOLVE:
        if ((choice = parse_choice(id, arg, solve_names)) < 0) return CLI_EXIT_USAGE;
        c->solve = (solve_target)choice;
        return CLI_EXIT_OK;
    case OPT_ACCOUNTANT:
        /* checked against the registry, so a typo is a usage error (2) and
         * not a library failure found later */
        if ((choice = parse_choice(id, arg, dpa_accountant_names())) < 0) return CLI_EXIT_USAGE;
        c->accountant = dpa_accountant_names()[choice];
        return CLI_EXIT_OK;
    case OPT_ORDERS:
        return cli_parse_real_list(option_table[id].name, arg, 1.0, 1, INFINITY, 1, c->orders, MAX_ORDERS, &c->num_orders);
    case OPT_EPS_ERROR: return parse_open_unit(id, arg, &c->eps_error);
    case OPT_TOLERANCE:
        return cli_parse_real(option_table[id].name, arg, SMALLEST_TOLERANCE, 0, 0.1, 0, &c->tolerance);
    case OPT_SIGMA_MIN: return parse_positive(id, arg, &c->sigma_min);
    case OPT_SIGMA_MAX: return parse_positive(id, arg, &c->sigma_max);
    case OPT_REQUIRE_WIDTH:
        c->require_width = 1;
        return CLI_EXIT_OK;
    case OPT_EVENT: {                    /* read now, so that a mistake in the file is a usage error */
        if ((st = check_event(c, id, arg))) return st;
        c->event_file = arg;
        return CLI_EXIT_OK;
    }
    case OPT_PRINT_EVENT:
        c->print_event = 1;
        return CLI_EXIT_OK;
    case OPT_MAX_EXAMPLES: return parse_count(id, arg, &c->max_examples);
    case OPT_PLOT:
        if (!cli_plot_extension_ok(arg))
            return cli_usage_error("--plot: the figure's name must end in .png, .svg or .pdf, got '%s'", arg);
        c->plot = arg;
        return CLI_EXIT_OK;
    case OPT_EPS_MIN: return parse_nonnegative(id, arg, &c->eps_min);
    case OPT_EPS_MAX: return parse_positive(id, arg, &c->eps_max);
    case OPT_POINTS: return parse_count(id, arg, &c->points);
    case OPT_FPR: return cli_parse_real_list(option_table[id].name, arg, 0.0, 1, 1.0, 0, c->fprs, MAX_FPRS, &c->num_fprs);
    case OPT_HELP:
    case OPT_COUNT:
        break;
    }
    return CLI_EXIT_OK;
}

/* ---- subcommands: descriptions -------------------------------------------- */

typedef struct command_info {
    command_id id;
    const char *name;
    const char *summary;  /* one line for `dpacct --help` */
    const char *synopsis; /* after "dpacct NAME" */
    const char *about;    /* the paragraph of `dpacct NAME --help` */
    uint64_t options;     /* the flags it accepts */
    const char *delta_help, *epsilon_help; /* what --delta / --epsilon mean here */
} command_info;

static const command_info commands[] = {
    { CMD_EPSILON, "epsilon", "the epsilon of the mechanism at a given delta",
      "--sigma X --delta D [OPTIONS]",
      "Report the smallest epsilon for which the mechanism is (epsilon, delta)-DP,\n"
      "as computed by one accountant.",
      BRACKET_OPTIONS | OPT_BIT(OPT_DELTA) | OPT_BIT(OPT_ACCOUNTANT) | OPT_BIT(OPT_FAILURE_DELTA) |
          OPT_BIT(OPT_PRINT_EVENT) | OPT_BIT(OPT_PLOT),
      "the delta at which epsilon is reported, 0 < D < 1", NULL },
    { CMD_DELTA, "delta", "the delta of the mechanism at a given epsilon",
      "--sigma X --epsilon EPS [OPTIONS]",
      "Report the smallest delta for which the mechanism is (epsilon, delta)-DP,\n"
      "as computed by one accountant.",
      BRACKET_OPTIONS | OPT_BIT(OPT_EPSILON) | OPT_BIT(OPT_ACCOUNTANT) | OPT_BIT(OPT_FAILURE_DELTA) |
          OPT_BIT(OPT_PRINT_EVENT) | OPT_BIT(OPT_PLOT), NULL,
      "the epsilon at which delta is reported, EPS >= 0" },
    { CMD_CALIBRATE, "calibrate", "the noise (or steps, epochs, batch size, sampling rate) that meets a target",
      "--epsilon EPS --delta D [--solve sigma|steps|epochs|batch-size|sampling-rate] [OPTIONS]",
      "Search for the smallest noise multiplier (--solve sigma, the default) or,\n"
      "given --sigma, the largest number of steps (--solve steps), of whole epochs\n"
      "(--solve epochs: T = ceil(E/Q) steps), the largest batch size B of\n"
      "--dataset-size N (--solve batch-size: Q = B/N) or the largest sampling\n"
      "rate Q in (0, 1] (--solve sampling-rate) for which the accountant's\n"
      "certified upper epsilon is at most the target at delta.  Continuous values\n"
      "are found to a relative --tolerance (1e-4), integers exactly (the next one\n"
      "fails).  A target not met at the end of the range searched (--sigma-max;\n"
      "one step, epoch or example; Q = 1e-9) is an error, exit status 1.\n"
      "Approximate accountants cannot certify a target and are refused.\n"
      "\n"
      "Any other mechanism: write it as an event with the value to find as '?',\n"
      "  --mechanism 'self_composed(count=100, laplace(scale=?))'\n"
      "or as the JSON string \"?\" in an --event file.  The '?' may stand for a\n"
      "noise scale (searched smallest), a count, a batch size m, a sampling rate q\n"
      "or a privacy parameter (eps, eps0, mu, rho: searched largest).",
      ACCOUNTING_OPTIONS | OPT_BIT(OPT_DELTA) | OPT_BIT(OPT_EPSILON) | OPT_BIT(OPT_ACCOUNTANT) |
          OPT_BIT(OPT_SOLVE) | OPT_BIT(OPT_TOLERANCE) | OPT_BIT(OPT_SIGMA_MIN) | OPT_BIT(OPT_SIGMA_MAX),
      "the target delta, 0 < D < 1", "the target epsilon, EPS > 0" },
    { CMD_COMPARE, "compare", "every accountant side by side on one mechanism",
      "--sigma X (--delta D | --epsilon EPS) [OPTIONS]",
      "Run every registered accountant on the mechanism and print each bound,\n"
      "how tight it is and how long it took; accountants that cannot handle the\n"
      "mechanism are named in one line under the table (their reasons: --format\n"
      "json or csv).",
      BRACKET_OPTIONS | OPT_BIT(OPT_DELTA) | OPT_BIT(OPT_EPSILON) | OPT_BIT(OPT_FAILURE_DELTA) |
          OPT_BIT(OPT_PRINT_EVENT),
      "report epsilon at this delta, 0 < D < 1",
      "report delta at this epsilon instead, EPS >= 0" },
    { CMD_RDP_CURVE, "rdp-curve", "the Renyi DP curve eps(alpha) of the mechanism",
      "--sigma X [OPTIONS]",
      "Print the RDP of the mechanism at each Renyi order (the rdp accountant's\n"
      "native state): an upper bound on eps(alpha), before conversion to (eps, delta).",
      COMMON_OPTIONS | OPT_BIT(OPT_PRINT_EVENT), NULL, NULL },
    { CMD_SHUFFLE, "shuffle", "amplification by shuffling: numerical, closed form, composed, local",
      "(--epsilon0 E0 | --sigma F) --users N (--delta D | --epsilon EPS) [OPTIONS]",
      "For N users each applying an E0-DP local randomizer, outputs shuffled\n"
      "(replace-one: one user's data replaced), print the clones bound of\n"
      "Feldman, McMillan & Talwar (FOCS 2021) computed exactly, their closed form\n"
      "(Thm 3.1, where its condition holds) and the local guarantee E0.  With\n"
      "--steps R > 1 (R shuffled rounds, each user once per round) print the\n"
      "rounds composed through the clones pair (pld) next to basic composition\n"
      "of the one-round bounds.  --randomizer rr uses the stronger clones of\n"
      "randomized response's class; --delta0 D0 (E0, D0)-DP randomizers (their\n"
      "Thm 3.8: delta + (e^eps + 1)(1 + e^-E0/2) N D0).\n"
      "With --sigma F instead of --epsilon0 each user applies a Gaussian step\n"
      "of noise multiplier F (as in DP-GLMtron): print the shuffled bound at the\n"
      "best split (eps0, delta0) of the Gaussian's profile and the plain bound\n"
      "mu = 1/F, and say which is the smaller (one round, --delta queries).\n"
      "The rounds may be given as an event instead of the flags:\n"
      "--mechanism 'self_composed(count=R, shuffled(eps0=E0, n=N))' (or --event).",
      OPT_BIT(OPT_EPSILON0) | OPT_BIT(OPT_USERS) | OPT_BIT(OPT_DELTA) | OPT_BIT(OPT_EPSILON) | OPT_BIT(OPT_SIGMA) |
          OPT_BIT(OPT_STEPS) | OPT_BIT(OPT_RANDOMIZER) | OPT_BIT(OPT_DELTA0) | OPT_BIT(OPT_EPS_ERROR) |
          OPT_BIT(OPT_REQUIRE_WIDTH) | OPT_BIT(OPT_FORMAT) | OPT_BIT(OPT_MECHANISM) | OPT_BIT(OPT_EVENT) |
          OPT_BIT(OPT_HELP),
      "report epsilon at this delta, 0 < D < 1", "report delta at this epsilon instead, EPS >= 0" },
    { CMD_STATEMENT, "statement", "the privacy statement of a DP-SGD run, for a paper",
      "(--noise-multiplier Z | --sigma X) (--batch-size B --dataset-size N | --sampling-rate Q)\n"
      "       (--epochs E | --steps T) --delta D [--max-examples-per-user K] [OPTIONS]",
      "Print the paragraph that states the run's privacy: the run as the accounting\n"
      "sees it and what it assumes of the sampling; the example-level epsilon at\n"
      "delta under add-or-remove-one and under replace-one neighbours (the same\n"
      "noise: --noise-multiplier Z is noise std / C), each from the tightest\n"
      "certified method (pld where it applies) with its bracket and the RDP value\n"
      "beside it; with --max-examples-per-user K the user-level epsilon by group\n"
      "privacy.  The numbers are those 'dpacct compare' prints for the same flags.",
      OPT_BIT(OPT_SIGMA) | OPT_BIT(OPT_NOISE_MULTIPLIER) | OPT_BIT(OPT_RATE) | OPT_BIT(OPT_BATCH) |
          OPT_BIT(OPT_DATASET) | OPT_BIT(OPT_STEPS) | OPT_BIT(OPT_EPOCHS) | OPT_BIT(OPT_RELATION) |
          OPT_BIT(OPT_SAMPLING) | OPT_BIT(OPT_DELTA) | OPT_BIT(OPT_ACCOUNTANT) | OPT_BIT(OPT_EPS_ERROR) |
          OPT_BIT(OPT_MAX_EXAMPLES) | OPT_BIT(OPT_FORMAT) | OPT_BIT(OPT_HELP),
      "the delta of the statement, 0 < D < 1", NULL },
    { CMD_PROFILE, "profile", "the privacy profile delta(eps) on a range of epsilons",
      "--sigma X [--eps-min A] [--eps-max B] [--points N] [OPTIONS]",
      "Print delta(eps) of the mechanism, lower and upper bound, at N evenly spaced\n"
      "epsilons from A to B (for plotting), as computed by one accountant.  Where an\n"
      "accountant cannot reach its accuracy (pld: --eps-error) the row keeps its\n"
      "valid, wider bracket and says so (width not met; with --require-width the\n"
      "exit status is then 1); any other failure stops with an error.",
      BRACKET_OPTIONS | OPT_BIT(OPT_ACCOUNTANT) | OPT_BIT(OPT_EPS_MIN) | OPT_BIT(OPT_EPS_MAX) |
          OPT_BIT(OPT_POINTS) | OPT_BIT(OPT_PRINT_EVENT) | OPT_BIT(OPT_PLOT),
      NULL, NULL },
    { CMD_TRADEOFF, "tradeoff", "an attacker's true-positive rate at each false-positive rate",
      "--sigma X [--fpr LIST] [OPTIONS]",
      "Bound how well an attacker can tell whether one record was used: at each\n"
      "false-positive rate, the true-positive rate of the best test lies between\n"
      "the lower and upper bounds printed (the trade-off curve of Dong, Roth &\n"
      "Su, JRSS-B 2022), from the accountant's privacy profile: the least over\n"
      "eps of e^eps FPR + delta(eps) and 1 - e^-eps (1 - FPR - delta'(eps)),\n"
      "delta with the record against without it, delta' the reverse.  pld keeps\n"
      "both directions and gaussian is one pair: the exact curve.  Others keep\n"
      "the larger delta only: the upper still holds, the lower is of the curve\n"
      "symmetrised over the two directions (rows say so).  pld reads most\n"
      "points from the grids of a few queries (DP-SGD, T = 1e4: 0.2 s a rate).",
      BRACKET_OPTIONS | OPT_BIT(OPT_ACCOUNTANT) | OPT_BIT(OPT_FPR) | OPT_BIT(OPT_PRINT_EVENT) | OPT_BIT(OPT_PLOT),
      NULL, NULL },
};
#define NUM_COMMANDS (sizeof commands / sizeof commands[0])

static const command_info *find_command(const char *name)
{
    for (size_t i = 0; i < NUM_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

/* ---- help ----------------------------------------------------------------- */

static void print_main_help(void)
{
    printf("Usage: dpacct SUBCOMMAND [OPTIONS]\n"
           "       dpacct --help | --version\n\n"
           "Differential-privacy accounting for the Gaussian mechanism, Poisson-\n"
           "subsampled and composed over many steps as in DP-SGD.\n\nSubcommands:\n");
    for (size_t i = 0; i < NUM_COMMANDS; i++)
        printf("  %-10s  %s\n", commands[i].name, commands[i].summary);
    printf("\nAccountants:\n");
    for (const char *const *name = dpa_accountant_names(); *name; name++)
        printf("  %-10s  %s\n", *name, dpa_accountant_summary(*name));
    printf("\nEvery epsilon or delta is a bracket [lower, upper]: upper is the certified\n"
           "bound to report.  Values flagged approximate are not guarantees.\n"
           "Run 'dpacct SUBCOMMAND --help' for the options of a subcommand.\n"
           "Exit status: 0 success, 1 library error, unsupported mechanism or a calibration\n"
           "target out of reach, 2 bad usage.\n");
}

static void print_option_help(const command_info *cmd, enum option_id id)
{
    if (!(cmd->options & OPT_BIT(id))) return;
    char left[48];
    const cli_option *o = &option_table[id];
    if (id == OPT_HELP) snprintf(left, sizeof left, "-h, --help");
    else if (!o->metavar) snprintf(left, sizeof left, "--%s", o->name);
    else snprintf(left, sizeof left, "--%s %s", o->name, o->metavar);
    const char *help = o->help;
    if (id == OPT_DELTA && cmd->delta_help) help = cmd->delta_help;
    if (id == OPT_EPSILON && cmd->epsilon_help) help = cmd->epsilon_help;
    printf("  %-22s %s\n", left, help);
    if (id == OPT_ACCOUNTANT) {
        printf("  %-22s one of:", "");
        for (const char *const *name = dpa_accountant_names(); *name; name++)
            printf(" %s", *name);
        printf("\n");
    }
}

static void print_command_help(const command_info *cmd)
{
    printf("Usage: dpacct %s %s\n\n%s\n\n", cmd->name, cmd->synopsis, cmd->about);
    static const enum option_id mechanism_group[] = {
        OPT_SIGMA, OPT_NOISE_MULTIPLIER, OPT_RATE, OPT_BATCH, OPT_DATASET, OPT_STEPS, OPT_EPOCHS, OPT_RELATION,
        OPT_SAMPLING, OPT_SELECTED, OPT_MECHANISM, OPT_BATCHES, OPT_STEP_SIZE, OPT_STRONG_CONVEXITY, OPT_SMOOTHNESS, OPT_EPSILON0, OPT_USERS,
        OPT_RANDOMIZER, OPT_DELTA0, OPT_TUNING_RUNS, OPT_EVENT, OPT_PRINT_EVENT,
    };
    static const enum option_id query_group[] = {
        OPT_DELTA, OPT_EPSILON, OPT_ACCOUNTANT, OPT_SOLVE, OPT_TOLERANCE, OPT_SIGMA_MIN, OPT_SIGMA_MAX, OPT_ORDERS,
        OPT_EPS_ERROR, OPT_REQUIRE_WIDTH, OPT_EPS_MIN, OPT_EPS_MAX, OPT_POINTS, OPT_FPR, OPT_FAILURE_DELTA, OPT_PLOT,
    };
    printf("The mechanism is the Gaussian mechanism with noise multiplier --sigma,\n"
           "Poisson-sampled at rate Q when Q < 1 (or batches of B out of N without\n"
           "replacement), repeated for T steps; or, with --mechanism noisy-cgd, the\n"
           "final iterate of noisy cyclic gradient descent over fixed batches (Bok, Su\n"
           "& Altschuler, ICML 2024, Thm 4.5), --sigma the noise over the batch\n"
           "gradient's sensitivity; or, with --mechanism shuffled, --users eps0-local\n"
           "randomizers whose outputs are shuffled (Feldman, McMillan & Talwar, FOCS\n"
           "2021; replace-one).\n"
           "\nMechanism:\n");
    for (size_t i = 0; i < sizeof mechanism_group / sizeof mechanism_group[0]; i++)
        print_option_help(cmd, mechanism_group[i]);
    printf("\nQuery:\n");
    for (size_t i = 0; i < sizeof query_group / sizeof query_group[0]; i++) print_option_help(cmd, query_group[i]);
    printf("\nOutput:\n");
    print_option_help(cmd, OPT_FORMAT);
    print_option_help(cmd, OPT_HELP);
    if (cmd->id == CMD_CALIBRATE)
        printf("\nThe value solved for is not given: --sigma with --solve sigma, --steps\n"
               "and --epochs with --solve steps or epochs, --batch-size (but\n"
               "--dataset-size) with --solve batch-size, the sampling flags with --solve\n"
               "sampling-rate; these two take --steps, not --epochs.  The search compares\n"
               "each accountant's upper epsilon, the certified bound to report, with the\n"
               "target, so the value found is certified: its upper epsilon is at most the\n"
               "target.  It starts from rdp's answer when another accountant is used, and\n"
               "its limits are counts of accountant runs, never times.\n");
    else if (cmd->id == CMD_RDP_CURVE)
        printf("\nEach eps(order) printed is an upper bound (rounded up); the conversion\n"
               "to (epsilon, delta) is done by 'dpacct epsilon --accountant rdp'.\n");
    else
        printf("\nEach result is a bracket: upper is the certified bound to report;\n"
               "lower (\"-\" when the method has none) shows how tight it is; estimate is\n"
               "the best point value.  A result flagged approximate (not a guarantee) is\n"
               "an estimate only and must not be reported as a guarantee.  A result flagged\n"
               "width not met is a certified bracket wider than --eps-error asked (the\n"
               "best found within the limits): still exit status 0 unless --require-width.\n");
    printf("Exit status: 0 success, 1 library error, unsupported mechanism, a calibration\n"
           "target out of reach or (with --require-width) a width not met, 2 bad usage.\n");
}

/* ---- parsing and checking the command line -------------------------------- */

/* Parse the flags after the subcommand name.  argv[0] is that name.
 * Sets *help when --help was given: it wins over everything after it. */
static int parse_args(const command_info *cmd, int argc, char **argv, cli *c, int *help)
{
    char command[64];
    snprintf(command, sizeof command, "dpacct %s", cmd->name);
    cli_parser p;
    /* every option but --help, which the toolkit answers itself */
    cli_parser_init(&p, option_table, OPT_HELP, command, 1);
    const char *value;
    int id;
    while ((id = cli_next_option(&p, argc, argv, &value)) != CLI_OPT_END) {
        if (id == CLI_OPT_ERROR) return CLI_EXIT_USAGE;
        if (id == CLI_OPT_HELP) {
            *help = 1;
            return CLI_EXIT_OK;
        }
        if (!(cmd->options & OPT_BIT(id)))
            return cli_usage_error("--%s: not accepted by '%s' (see 'dpacct %s --help')", option_table[id].name,
                                   cmd->name, cmd->name);
        c->seen |= OPT_BIT(id);
        int st = parse_value(c, (enum option_id)id, value);
        if (st != CLI_EXIT_OK) return st;
    }
    return CLI_EXIT_OK;
}

/* The flag that gave sigma: --sigma, or --noise-multiplier (converted). */
static const char *sigma_flag(const cli *c)
{
    return option_table[given(c, OPT_NOISE_MULTIPLIER) ? OPT_NOISE_MULTIPLIER : OPT_SIGMA].name;
}

static int require(const command_info *cmd, const cli *c, enum option_id id)
{
    if (given(c, id)) return CLI_EXIT_OK;
    return cli_usage_error("--%s: required by '%s'", option_table[id].name, cmd->name);
}

static int conflict(const cli *c, enum option_id a, enum option_id b)
{
    if (!given(c, a) || !given(c, b)) return CLI_EXIT_OK;
    return cli_usage_error("--%s: cannot be combined with --%s", option_table[b].name,
                       option_table[a].name);
}

/* Combinations of flags: conflicts first (they are the likelier mistake),
 * then what each subcommand needs. */
/* --sigma, which every mechanism but the shuffled one and an event needs. */
static int require_noise(const command_info *cmd, const cli *c)
{
    return c->shuffled || c->event_text || c->event_file ? CLI_EXIT_OK : require(cmd, c, OPT_SIGMA);
}

/* --mechanism noisy-cgd: its own flags, none of the sampling ones; the
 * conditions of Bok, Su & Altschuler's theorem checked here so that they
 * are usage errors naming the flag. */
static int check_noisy_cgd(const command_info *cmd, const cli *c)
{
    static const enum option_id needed[] = { OPT_BATCHES, OPT_EPOCHS, OPT_STEP_SIZE };
    static const enum option_id refused[] = { OPT_RATE, OPT_BATCH, OPT_DATASET, OPT_STEPS, OPT_SAMPLING };
    static const enum option_id own[] = { OPT_BATCHES, OPT_STEP_SIZE, OPT_STRONG_CONVEXITY, OPT_SMOOTHNESS };
    int st;
    int solving = cmd->id == CMD_CALIBRATE && c->solve == SOLVE_STRONG_CONVEXITY;
    if (!c->noisy_cgd) {
        for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
            if (given(c, own[i]))
                return cli_usage_error("--%s: only with --mechanism noisy-cgd", option_table[own[i]].name);
        if (solving) return cli_usage_error("--solve: strong-convexity only with --mechanism noisy-cgd");
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (given(c, refused[i]))
            return cli_usage_error("--%s: not with --mechanism noisy-cgd (fixed batches, every example once per "
                               "epoch; give --batches and --epochs)", option_table[refused[i]].name);
    if (cmd->id == CMD_CALIBRATE && c->solve != SOLVE_SIGMA && c->solve != SOLVE_STRONG_CONVEXITY)
        return cli_usage_error("--solve: %s is not available for --mechanism noisy-cgd (solve sigma or "
                               "strong-convexity)", solve_name(c->solve));
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if ((st = require(cmd, c, needed[i]))) return st;
    if (c->epochs != floor(c->epochs) || !(c->epochs < 9.2e18))
        return cli_usage_error("--epochs: noisy-cgd runs a whole number of epochs below 2^63, got %g", c->epochs);
    if (solving) {
        if (given(c, OPT_STRONG_CONVEXITY))
            return cli_usage_error("--strong-convexity: cannot be combined with --solve strong-convexity (it is what "
                               "is solved for)");
        if (given(c, OPT_SMOOTHNESS) && !(c->step_size < 2.0 / c->smoothness))
            return cli_usage_error("--step-size: must be below 2/smoothness = %g for the iteration to contract, got %g",
                               2.0 / c->smoothness, c->step_size);
        return require(cmd, c, OPT_SIGMA);
    }
    if ((st = require(cmd, c, OPT_STRONG_CONVEXITY))) return st;
    double beta = given(c, OPT_SMOOTHNESS) ? c->smoothness : c->strong_convexity;
    if (beta < c->strong_convexity)
        return cli_usage_error("--smoothness: must be at least --strong-convexity (%g), got %g", c->strong_convexity,
                           beta);
    if (!(c->step_size < 2.0 / beta))
        return cli_usage_error("--step-size: must be below 2/smoothness = %g for the iteration to contract, got %g",
                           2.0 / beta, c->step_size);
    return CLI_EXIT_OK;
}

/* --sampling shuffle or balls-in-bins: batches of B of N each epoch, whole
 * epochs; what is searched can only be the noise (or the epochs). */
static int check_epoch_sampling(const command_info *cmd, const cli *c)
{
    const char *kind = c->shuffled_batches ? "shuffle" : c->allocation ? "allocation" : "balls-in-bins";
    if (c->event_text || c->event_file)
        return cli_usage_error("--sampling: %s describes the mechanism itself; with --mechanism or --event write it in "
                               "the event instead (%s)", kind, c->shuffled_batches
                                   ? "shuffled_batches(n=N, m=B, gaussian(sigma=S))"
                                   : "random_allocation(steps=T, selected=K, gaussian(sigma=S))");
    if (c->noisy_cgd || c->shuffled)
        return cli_usage_error("--sampling: %s is for Gaussian steps (DP-SGD), not for --mechanism %s", kind,
                               c->noisy_cgd ? "noisy-cgd" : "shuffled");
    if (!given(c, OPT_BATCH))
        return cli_usage_error("--sampling: %s requires --batch-size and --dataset-size", kind);
    if (given(c, OPT_STEPS))
        return cli_usage_error("--steps: with --sampling %s give --epochs (each epoch is one pass in batches)", kind);
    if (cmd->id == CMD_CALIBRATE && c->solve != SOLVE_SIGMA && c->solve != SOLVE_EPOCHS)
        return cli_usage_error("--solve: with --sampling %s only sigma or epochs can be solved for", kind);
    if (given(c, OPT_EPOCHS) && !(c->epochs == floor(c->epochs) && c->epochs < 9007199254740992.0))
        return cli_usage_error("--epochs: with --sampling %s a whole number of epochs, got %g", kind, c->epochs);
    if (c->balls_in_bins && c->relation != DPA_ADD_REMOVE)
        return cli_usage_error("--sampling: %s (random allocation) is accounted for add/remove neighbours only",
                               kind);
    if (c->allocation) {
        if (!given(c, OPT_SELECTED))
            return cli_usage_error("--sampling: allocation needs --selected K (the batches each record is used in an "
                                   "epoch)");
        /* K N <= 2^53: the steps of an epoch, ceil(K N/B), counted exactly */
        if (c->selected > (UINT64_C(1) << 53) / c->dataset)
            return cli_usage_error("--selected: %" PRIu64 " uses of each of %" PRIu64 " records an epoch are too many",
                                   c->selected, c->dataset);
    }
    return CLI_EXIT_OK;
}

/* --mechanism shuffled: --epsilon0 and --users, replace-one, --steps for
 * rounds, nothing else of the Gaussian mechanism's; the sigma search has
 * nothing to search.  'dpacct shuffle --sigma F': a Gaussian local
 * randomizer instead of --epsilon0 (one round, epsilon queries). */
static int check_shuffled(const command_info *cmd, const cli *c)
{
    static const enum option_id own[] = { OPT_EPSILON0, OPT_USERS, OPT_RANDOMIZER, OPT_DELTA0 };
    static const enum option_id refused[] = { OPT_RATE, OPT_BATCH, OPT_DATASET, OPT_EPOCHS, OPT_SAMPLING };
    int st;
    if (!c->shuffled) {
        for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
            if (given(c, own[i]))
                return cli_usage_error("--%s: only with --mechanism shuffled", option_table[own[i]].name);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (given(c, refused[i]))
            return cli_usage_error("--%s: not with --mechanism shuffled (give --epsilon0 and --users; --steps for "
                               "rounds)", option_table[refused[i]].name);
    if (cmd->id == CMD_CALIBRATE || cmd->id == CMD_RDP_CURVE)
        return cli_usage_error("--mechanism: shuffled is not available for '%s'", cmd->name);
    if (cmd->id == CMD_SHUFFLE && given(c, OPT_SIGMA)) {
        static const enum option_id not_gaussian[] = { OPT_EPSILON0, OPT_RANDOMIZER, OPT_DELTA0, OPT_EPSILON };
        for (size_t i = 0; i < sizeof not_gaussian / sizeof not_gaussian[0]; i++)
            if (given(c, not_gaussian[i]))
                return cli_usage_error("--%s: not with --sigma (a Gaussian local randomizer: its eps0 and delta0 are "
                                   "chosen, one round, epsilon at --delta)", option_table[not_gaussian[i]].name);
        if (given(c, OPT_STEPS) && c->steps > 1)
            return cli_usage_error("--steps: a Gaussian local randomizer (--sigma) is accounted for one round");
        return require(cmd, c, OPT_USERS);
    }
    if (given(c, OPT_SIGMA))
        return cli_usage_error("--%s: not with --mechanism shuffled (give --epsilon0 and --users)", sigma_flag(c));
    if ((st = require(cmd, c, OPT_EPSILON0)) || (st = require(cmd, c, OPT_USERS))) return st;
    if (c->rr_class && c->delta0 > 0.0)
        return cli_usage_error("--delta0: the randomized-response class (--randomizer rr) is for pure randomizers");
    if (c->relation != DPA_REPLACE_ONE)
        return cli_usage_error("--mechanism: shuffled requires --relation replace-one (n users, one's data replaced)");
    return CLI_EXIT_OK;
}

/* calibrate: the value solved for is not given, and what it needs is.
 * Checked before the mechanism's own combinations, whose messages would
 * otherwise ask for the flag being solved for. */
static int check_solve(const command_info *cmd, const cli *c)
{
    const char *what = solve_name(c->solve);
    const int integer = c->solve == SOLVE_STEPS || c->solve == SOLVE_EPOCHS || c->solve == SOLVE_BATCH_SIZE;
    if (given(c, OPT_TOLERANCE) && integer)
        return cli_usage_error("--tolerance: --solve %s finds an integer exactly (the tolerance is for sigma, "
                               "sampling-rate and strong-convexity)", what);
    if (c->solve != SOLVE_SIGMA) {
        if (given(c, OPT_SIGMA_MIN)) return cli_usage_error("--sigma-min: only with --solve sigma");
        if (given(c, OPT_SIGMA_MAX)) return cli_usage_error("--sigma-max: only with --solve sigma");
    } else if (!(c->sigma_min < c->sigma_max)) {
        return cli_usage_error("--sigma-max: must exceed --sigma-min (%g), got %g", c->sigma_min, c->sigma_max);
    }
    switch (c->solve) {
    case SOLVE_SIGMA:
        if (given(c, OPT_SIGMA))
            return cli_usage_error("--%s: cannot be combined with --solve sigma (it is what is solved for)",
                                   sigma_flag(c));
        return CLI_EXIT_OK;
    case SOLVE_STRONG_CONVEXITY:
        return CLI_EXIT_OK; /* checked with noisy-cgd */
    case SOLVE_STEPS:
    case SOLVE_EPOCHS:
        if (given(c, OPT_STEPS))
            return cli_usage_error("--steps: cannot be combined with --solve %s (%s)", what,
                                   c->solve == SOLVE_STEPS ? "it is what is solved for" : "the steps follow from the epochs");
        if (given(c, OPT_EPOCHS))
            return cli_usage_error("--epochs: cannot be combined with --solve %s (%s)", what,
                                   c->solve == SOLVE_EPOCHS ? "it is what is solved for" : "the steps are what is solved for");
        break;
    case SOLVE_BATCH_SIZE:
        if (given(c, OPT_BATCH))
            return cli_usage_error("--batch-size: cannot be combined with --solve batch-size (it is what is solved for)");
        if (given(c, OPT_RATE))
            return cli_usage_error("--sampling-rate: cannot be combined with --solve batch-size (Q = B/N follows from "
                                   "the batch size)");
        if (!given(c, OPT_DATASET)) return cli_usage_error("--dataset-size: required by --solve batch-size");
        if (c->dataset < 2)
            return cli_usage_error("--dataset-size: --solve batch-size needs at least 2 examples, got %" PRIu64,
                                   c->dataset);
        if (given(c, OPT_EPOCHS))
            return cli_usage_error("--epochs: cannot be combined with --solve batch-size (the number of steps would "
                                   "change with the batch size; give --steps)");
        break;
    case SOLVE_SAMPLING_RATE:
        if (given(c, OPT_RATE))
            return cli_usage_error("--sampling-rate: cannot be combined with --solve sampling-rate (it is what is "
                                   "solved for)");
        if (given(c, OPT_BATCH) || given(c, OPT_DATASET))
            return cli_usage_error("--%s: cannot be combined with --solve sampling-rate (use --solve batch-size for "
                                   "a batch size)", option_table[given(c, OPT_BATCH) ? OPT_BATCH : OPT_DATASET].name);
        if (c->without_replacement)
            return cli_usage_error("--sampling: without-replacement has no sampling rate to solve for (use --solve "
                                   "batch-size)");
        if (given(c, OPT_EPOCHS))
            return cli_usage_error("--epochs: cannot be combined with --solve sampling-rate (the number of steps "
                                   "would change with the rate; give --steps)");
        break;
    }
    return require_noise(cmd, c);
}

/* --mechanism with an event as text: it is the whole mechanism, so none
 * of the flags that build one; nothing to solve for in calibrate. */
static int check_event_text(const command_info *cmd, const cli *c)
{
    static const enum option_id builders[] = {
        OPT_SIGMA, OPT_RATE, OPT_BATCH, OPT_DATASET, OPT_STEPS, OPT_EPOCHS, OPT_SAMPLING, OPT_BATCHES,
        OPT_STEP_SIZE, OPT_STRONG_CONVEXITY, OPT_SMOOTHNESS, OPT_EPSILON0, OPT_USERS, OPT_RANDOMIZER, OPT_DELTA0,
    };
    for (size_t i = 0; i < sizeof builders / sizeof builders[0]; i++)
        if (given(c, builders[i]))
            return cli_usage_error("--%s: not with %s (it describes the whole mechanism)",
                                   builders[i] == OPT_SIGMA ? sigma_flag(c) : option_table[builders[i]].name,
                                   c->event_file ? "--event" : "an event as --mechanism");
    /* calibrate: the "?" says what is solved for, and the library where */
    static const enum option_id searches[] = { OPT_SOLVE, OPT_SIGMA_MIN, OPT_SIGMA_MAX };
    for (size_t i = 0; cmd->id == CMD_CALIBRATE && i < sizeof searches / sizeof searches[0]; i++)
        if (given(c, searches[i]))
            return cli_usage_error("--%s: not with %s (its '?' is what is solved for)", option_table[searches[i]].name,
                                   c->event_file ? "--event" : "an event as --mechanism");
    return CLI_EXIT_OK;
}

/* shuffle with an event: shuffled(...), or self_composed(count=R,
 * shuffled(...)) for R rounds, read into the flags that build it (its
 * outputs are the shuffle model's); any other event is refused. */
static int shuffle_from_event(const command_info *cmd, cli *c)
{
    int st = check_event_text(cmd, c);
    if (st) return st;
    const char *flag = c->event_file ? "--event" : "--mechanism";
    dpa_error err = { 0 };
    dpa_event *e = c->event_file ? dpa_event_load_json(c->event_file, &err) : dpa_event_parse(c->event_text, &err);
    if (!e) return cli_usage_error("%s: %s", flag, err.message);
    const dpa_event *round = e;
    uint64_t rounds = 1;
    if (dpa_event_get_kind(e) == DPA_EVENT_SELF_COMPOSED) {
        rounds = dpa_event_count(e, 0);
        round = dpa_event_child(e, 0);
    }
    if (dpa_event_get_kind(round) != DPA_EVENT_SHUFFLED) {
        dpa_event_free(e);
        return cli_usage_error("%s: 'shuffle' takes shuffled(...) or self_composed(count=R, shuffled(...)); for "
                               "another event use 'epsilon' or 'compare'", flag);
    }
    c->epsilon0 = dpa_event_param(round, 0);
    c->delta0 = dpa_event_param(round, 1);
    c->users = dpa_event_count(round, 0);
    c->rr_class = dpa_event_count(round, 1) == DPA_LOCAL_RR_CLASS;
    c->seen |= OPT_BIT(OPT_EPSILON0) | OPT_BIT(OPT_USERS) | OPT_BIT(OPT_DELTA0) | OPT_BIT(OPT_RANDOMIZER);
    if (rounds > 1) {
        c->steps = rounds;
        c->seen |= OPT_BIT(OPT_STEPS);
    }
    c->event_text = c->event_file = NULL;
    dpa_event_free(e);
    return CLI_EXIT_OK;
}

static int check_combinations(const command_info *cmd, const cli *c)
{
    int st;
    if (c->sweep && cmd->id != CMD_EPSILON && cmd->id != CMD_DELTA)
        return cli_usage_error("--epochs: a range A:B is for 'epsilon' and 'delta' (one row per epoch count)");
    if (c->sweep && (c->shuffled || c->event_text || c->event_file))
        return cli_usage_error("--epochs: a range needs the mechanism built from flags");
    if (c->sweep && c->noisy_cgd && (c->epochs_from != floor(c->epochs_from) || c->epochs_by != floor(c->epochs_by)))
        return cli_usage_error("--epochs: noisy-cgd runs whole epochs: the range's start and step must be whole");
    if (c->plot && !c->sweep && cmd->id != CMD_PROFILE && cmd->id != CMD_TRADEOFF)
        return cli_usage_error("--plot: for 'profile' and 'tradeoff', or with an --epochs range");
    if (c->event_file && given(c, OPT_MECHANISM))
        return cli_usage_error("--event: cannot be combined with --mechanism (both describe the mechanism)");
    /* an event is the whole mechanism: past its own checks, the query's */
    if ((c->event_text || c->event_file) && (st = check_event_text(cmd, c))) return st;
    if ((st = check_noisy_cgd(cmd, c)) || (st = check_shuffled(cmd, c))) return st;
    const int solving_batch = cmd->id == CMD_CALIBRATE && c->solve == SOLVE_BATCH_SIZE;
    if (cmd->id == CMD_CALIBRATE && !c->event_text && !c->event_file && (st = check_solve(cmd, c))) return st;
    if ((st = conflict(c, OPT_RATE, OPT_BATCH)) || (st = conflict(c, OPT_RATE, OPT_DATASET)) ||
        (st = conflict(c, OPT_STEPS, OPT_EPOCHS)))
        return st;
    if (given(c, OPT_BATCH) && !given(c, OPT_DATASET))
        return cli_usage_error("--batch-size: requires --dataset-size");
    if (given(c, OPT_DATASET) && !given(c, OPT_BATCH) && !solving_batch)
        return cli_usage_error("--dataset-size: requires --batch-size");
    if (given(c, OPT_BATCH) && c->batch > c->dataset)
        return cli_usage_error("--batch-size: %" PRIu64 " exceeds --dataset-size %" PRIu64, c->batch,
                           c->dataset);
    if (c->without_replacement) {
        /* a fixed batch size: neighbouring datasets have the same size */
        if (!given(c, OPT_BATCH) && !solving_batch)
            return cli_usage_error("--sampling: without-replacement requires --batch-size and --dataset-size");
        if (c->relation != DPA_REPLACE_ONE)
            return cli_usage_error("--sampling: without-replacement requires --relation replace-one (datasets of "
                               "a fixed size differ by a replaced record)");
    }
    if (given(c, OPT_SELECTED) && !c->allocation)
        return cli_usage_error("--selected: goes with --sampling allocation only");
    if ((c->shuffled_batches || c->balls_in_bins) && (st = check_epoch_sampling(cmd, c))) return st;
    if (c->print_event) return require_noise(cmd, c);   /* no query is run */
    if (cmd->id == CMD_STATEMENT) {
        if ((st = require_noise(cmd, c)) || (st = require(cmd, c, OPT_DELTA))) return st;
        if (!given(c, OPT_STEPS) && !given(c, OPT_EPOCHS))
            return cli_usage_error("--epochs: required by 'statement' (or --steps)");
        if (given(c, OPT_MAX_EXAMPLES) && c->max_examples < 1)
            return cli_usage_error("--max-examples-per-user: at least 1, got 0");
        if (c->format == CLI_FORMAT_CSV) return cli_usage_error("--format: csv is not available for 'statement'");
        return CLI_EXIT_OK;
    }
    if (cmd->id == CMD_EPSILON)
        return (st = require_noise(cmd, c)) ? st : require(cmd, c, OPT_DELTA);
    if (cmd->id == CMD_DELTA)
        return (st = require_noise(cmd, c)) ? st : require(cmd, c, OPT_EPSILON);
    if (cmd->id == CMD_RDP_CURVE) return require_noise(cmd, c);
    if (cmd->id == CMD_TRADEOFF) {
        if ((st = require_noise(cmd, c))) return st;
        if (given(c, OPT_FPR)) {   /* increasing, so that a figure's curve is one */
            for (size_t i = 1; i < c->num_fprs; i++)
                if (!(c->fprs[i] > c->fprs[i - 1]))
                    return cli_usage_error("--fpr: the rates must increase, got %g after %g", c->fprs[i],
                                           c->fprs[i - 1]);
        }
        return CLI_EXIT_OK;
    }
    if (cmd->id == CMD_PROFILE) {
        if ((st = require_noise(cmd, c))) return st;
        if (!(c->eps_max > c->eps_min))
            return cli_usage_error("--eps-max: must exceed --eps-min (%g), got %g", c->eps_min, c->eps_max);
        if (c->points < 2 || c->points > 100000)
            return cli_usage_error("--points: expected 2 to 100000 points, got %" PRIu64, c->points);
        return CLI_EXIT_OK;
    }
    if (cmd->id == CMD_COMPARE || cmd->id == CMD_SHUFFLE) {
        if ((st = require_noise(cmd, c)) || (st = conflict(c, OPT_DELTA, OPT_EPSILON)))
            return st;
        if (!given(c, OPT_DELTA) && !given(c, OPT_EPSILON))
            return cli_usage_error("--delta: required by 'compare' (or --epsilon to compare delta)");
        return CLI_EXIT_OK;
    }
    /* calibrate (the value solved for: check_solve) */
    if ((st = require(cmd, c, OPT_EPSILON)) || (st = require(cmd, c, OPT_DELTA))) return st;
    if (!(c->epsilon > 0.0))
        return cli_usage_error("--epsilon: the target of 'calibrate' must be positive, got 0");
    return CLI_EXIT_OK;
}

int epochs_steps(double epochs, double q, uint64_t *steps)
{
    /* E and q are decimal inputs, so a quotient that is an integer on paper
     * can come out a few ulps above it; that would add a whole step */
    double x = epochs / q, r = nearbyint(x);
    double n = fabs(x - r) <= 8.0 * 2.220446049250313e-16 * r ? r : ceil(x);
    if (!(n < 18446744073709551616.0)) return -1;
    *steps = n < 1.0 ? 1 : (uint64_t)n;
    return 0;
}

/* steps = ceil(E / q), or the usage error naming --epochs. */
static int epochs_to_steps(double epochs, double q, uint64_t *steps)
{
    if (epochs_steps(epochs, q, steps) == 0) return CLI_EXIT_OK;
    char num[CLI_NUMBER_SIZE];
    return cli_usage_error("--epochs: %s epochs at sampling rate %g is 2^64 steps or more",
                           cli_format_plain(epochs, num), q);
}

static int resolve_mechanism(const cli *c, mechanism *m)
{
    m->event_text = c->event_text;
    m->event_file = c->event_file;
    m->sigma = c->sigma;
    m->q = 1.0;
    m->batch = c->without_replacement ? c->batch : 0;
    m->dataset = c->without_replacement ? c->dataset : 0;
    m->noisy_cgd = c->noisy_cgd;
    m->tuning_runs = c->tuning_runs;
    m->shuffled = c->shuffled;
    m->epsilon0 = c->epsilon0;
    m->delta0 = c->delta0;
    m->rr_class = c->rr_class;
    m->users = c->users;
    if (c->shuffled) {
        m->gaussian_local = given(c, OPT_SIGMA);
        m->steps = given(c, OPT_STEPS) ? c->steps : 1;     /* rounds */
        return CLI_EXIT_OK;
    }
    if (c->noisy_cgd) {
        m->batches = c->batches;
        m->step_size = c->step_size;
        m->strong_convexity = c->strong_convexity;
        m->smoothness = given(c, OPT_SMOOTHNESS) ? c->smoothness : c->strong_convexity;
        m->smoothness_follows = !given(c, OPT_SMOOTHNESS);
        m->steps = (uint64_t)c->epochs;      /* whole epochs, checked */
        return CLI_EXIT_OK;
    }
    if (c->shuffled_batches || c->balls_in_bins) {
        m->shuffled_batches = c->shuffled_batches;
        m->balls_in_bins = c->balls_in_bins;
        m->selected = c->allocation ? c->selected : 1;
        m->batch = c->batch;
        m->dataset = c->dataset;
        m->steps = given(c, OPT_EPOCHS) ? (uint64_t)c->epochs : 1;   /* epochs, whole (checked) */
        return CLI_EXIT_OK;
    }
    if (given(c, OPT_RATE)) m->q = c->rate;
    else if (given(c, OPT_BATCH)) m->q = (double)c->batch / (double)c->dataset;
    m->steps = 1;
    if (given(c, OPT_STEPS)) m->steps = c->steps;
    else if (given(c, OPT_EPOCHS)) return epochs_to_steps(c->epochs, m->q, &m->steps);
    return CLI_EXIT_OK;
}

/* ---- the whole command line ------------------------------------------------ */

int parse_command_line(int argc, char **argv, command_id *cmd, cli *c, mechanism *m)
{
    *cmd = CMD_NONE;
    if (argc < 2) return cli_usage_error("missing subcommand (see 'dpacct --help')");
    const char *first = argv[1];
    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        print_main_help();
        return CLI_EXIT_OK;
    }
    if (strcmp(first, "--version") == 0) {
        printf("dpacct %s\n", dpa_version());
        return CLI_EXIT_OK;
    }
    char shown[CLI_SHOWN_SIZE];
    const command_info *info = find_command(first);
    if (!info) {
        if (first[0] == '-')
            return cli_usage_error("%s: expected a subcommand before options (see 'dpacct --help')",
                                   cli_shown(first, shown, sizeof shown));
        return cli_usage_error("unknown subcommand '%s' (see 'dpacct --help')", cli_shown(first, shown, sizeof shown));
    }

    *c = (cli){ .relation = DPA_ADD_REMOVE, .format = CLI_FORMAT_TABLE, .solve = SOLVE_SIGMA,
                .eps_min = 0.0, .eps_max = 10.0, .points = 21, .tolerance = DEFAULT_TOLERANCE,
                .sigma_min = DEFAULT_SIGMA_MIN, .sigma_max = DEFAULT_SIGMA_MAX };
    c->templates = info->id == CMD_CALIBRATE;
    int help = 0;
    int st = parse_args(info, argc - 1, argv + 1, c, &help);
    if (st != CLI_EXIT_OK) return st;
    if (help) {
        print_command_help(info);
        return CLI_EXIT_OK;
    }
    if (info->id == CMD_SHUFFLE) {       /* the shuffle model is replace-one by definition */
        c->shuffled = 1;
        c->relation = DPA_REPLACE_ONE;
        if (given(c, OPT_MECHANISM) && !c->event_text)
            return cli_usage_error("--mechanism: 'shuffle' takes an event, shuffled(...) or self_composed(count=R, "
                                   "shuffled(...)) (its own flags: --epsilon0, --users)");
        if ((c->event_text || c->event_file) && (st = shuffle_from_event(info, c))) return st;
    }
    /* --noise-multiplier Z is noise std / C: sigma is that over the
     * relation's sensitivity, C (add-remove) or 2C (replace-one); from here
     * on it is --sigma, named as given in messages (sigma_flag) */
    if (given(c, OPT_NOISE_MULTIPLIER)) {
        if (given(c, OPT_SIGMA)) return cli_usage_error("--noise-multiplier: cannot be combined with --sigma");
        c->sigma = c->relation == DPA_REPLACE_ONE ? 0.5 * c->noise_multiplier : c->noise_multiplier;
        c->seen |= OPT_BIT(OPT_SIGMA);
    }
    if ((st = check_combinations(info, c)) || (st = resolve_mechanism(c, m))) return st;
    *cmd = info->id;
    return CLI_EXIT_OK;
}

/* ---- the mechanism's event ------------------------------------------------ */

/* The event without --tuning-runs: the event given, or from the flags. */
static dpa_event *mechanism_event_untuned(const mechanism *m, dpa_error *err)
{
    if (m->event_text) return dpa_event_parse(m->event_text, err);
    if (m->event_file) return dpa_event_load_json(m->event_file, err);
    if (m->shuffled) {
        dpa_event *e = dpa_event_shuffled_local(m->epsilon0, m->delta0, m->users,
                                                m->rr_class ? DPA_LOCAL_RR_CLASS : DPA_LOCAL_ANY, err);
        if (m->steps > 1) e = dpa_event_self_composed(e, m->steps, err);   /* rounds */
        return e;
    }
    if (m->noisy_cgd) {
        /* noise multiplier sigma: noise std over the batch gradient's sensitivity */
        dpa_noisy_cgd_params p = { m->strong_convexity, m->smoothness, m->step_size, 1.0, m->sigma,
                                   m->batches, m->steps };
        return dpa_event_noisy_cgd(&p, err);
    }
    dpa_event *e = dpa_event_gaussian(m->sigma, err);
    if (m->shuffled_batches) e = dpa_event_shuffled_batches(m->dataset, m->batch, e, err);
    else if (m->balls_in_bins)   /* ceil(K N/B) steps an epoch, each record in K (balls-in-bins: 1) */
        e = dpa_event_random_allocation((m->selected * m->dataset + m->batch - 1) / m->batch, m->selected, e, err);
    else if (m->batch) e = dpa_event_sampled_without_replacement(m->dataset, m->batch, e, err);
    else if (m->q < 1.0) e = dpa_event_poisson_sampled(m->q, e, err);
    if (m->steps > 1) e = dpa_event_self_composed(e, m->steps, err);
    return e;
}

dpa_event *mechanism_event(const mechanism *m, dpa_error *err)
{
    dpa_event *e = mechanism_event_untuned(m, err);
    if (m->tuning_runs > 0.0) e = dpa_event_repeated_selected(e, DPA_REPEAT_POISSON, m->tuning_runs, 0.0, err);
    return e;
}
