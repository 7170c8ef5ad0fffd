/*
 * dptrain_sparse.c - `dptrain sparse-mean`: DP mean estimation of s-sparse
 * vectors (Ghazi et al., NeurIPS 2024; ../shared/notes/
 * ntk-sparse-seeds-002-004.md 2.2-2.3):
 * the projection mechanism ME-1, the compressed-sensing mechanism ME-2 and
 * the dense Gaussian/Laplace baseline, on synthetic data or a file, with
 * R independent noise draws and the l2 error against the true empirical
 * mean next to the note's predicted rates (2.2).
 *
 * Exit status: 0 success, 1 library failure, 2 bad usage or bad input
 * (including the library's DPA_EINVAL, e.g. a row with too many nonzeros).
 */
#include <config.h>

#include "dptrain_cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { M_PROJ = 1, M_COMP = 2, M_DENSE = 4 };
#define SM_MAX_CANDIDATES 64

typedef struct {
    const char *synthetic, *data, *input_format, *target;
    unsigned methods;
    int have_s, have_L, json, quiet, seed_given;
    uint64_t repeats, max_bytes;
    dpt_mean_options opt;
    double radii[SM_MAX_CANDIDATES];   /* --select-radius */
    int have_fraction;
} sm_args;

static void sm_help(void)
{
    printf("Usage: dptrain sparse-mean (--synthetic SPEC | --data FILE) [OPTIONS]\n\n"
           "Differentially private mean of s-sparse vectors (Ghazi, Guzman, Kamath, Kumar &\n"
           "Manurangsi, \"Differentially Private Optimization with Sparse Gradients\", NeurIPS\n"
           "2024): every row z must have ||z||_0 <= s and ||z||_2 <= L (rows that do not are\n"
           "refused, by number);\n"
           "neighbouring data sets differ in one row (replace-one).\n"
           "  projection  ME-1: zbar + Laplace (delta = 0, l1 sensitivity 2L sqrt(s)/n) or\n"
           "              Gaussian (l2 sensitivity 2L/n) noise, projected onto the l1 ball\n"
           "              of radius L sqrt(s) (Nikolov, Talwar & Zhang 2013)\n"
           "  compressed  ME-2 (delta > 0): b = A zbar + N(0, sigma^2 I_m), A m x d with\n"
           "              N(0, 1/m) entries, zhat = argmin ||z||_1 s.t. A z = b (GLPK);\n"
           "              sensitivity 2L/n x min(||A||_op, sqrt(2s) max_j ||a_j||)\n"
           "  dense       the Gaussian or Laplace mechanism alone\n"
           "\nData:\n"
           "  --synthetic SPEC         s-sparse rows, \"n=10000,d=1000,s=10,norm=1,zipf=1,\n"
           "                           values=onehot|gaussian,seed=1\" (keys as listed; defaults\n"
           "                           shown)\n"
           "  --data FILE              rows from a file (the target column is ignored)\n"
           "  --input-format FMT       csv (default) or libsvm (the natural sparse format)\n"
           "  --target COL             the CSV column to ignore (default the last)\n"
           "  --max-data-size SIZE     refuse data whose n x d doubles exceed SIZE bytes (K, M, G, T:\n"
           "                           powers of 1024; default 2G, at most 1024T), checked before allocating\n"
           "\nMechanism:\n"
           "  --method M               projection (default), compressed, dense, or all (the\n"
           "                           three on the same data; compressed skipped at delta 0)\n"
           "  --sparsity S             s (default: the synthetic spec's; required with --data; at most d)\n"
           "  --norm L                 L (default: the synthetic spec's; required with --data)\n"
           "  --epsilon E              epsilon > 0 (default 1)\n"
           "  --delta D                delta in [0, 1) (default 1e-5; 0: Laplace noise)\n"
           "  --classical              Gaussian sigma = Delta sqrt(2 ln(1.25/delta))/eps (needs\n"
           "                           eps < 1) instead of the analytic calibration\n"
           "  --measurements M         ME-2's m (default ceil(4 s ln(d/s)) in [2s, d]; at most d)\n"
           "  --rip                    ME-2's sensitivity from RIP(2s, 1/2) (factor 3/2) with\n"
           "                           its failure probability (Baraniuk et al. 2008, Thm 5.2)\n"
           "                           as a delta term; refused when that bound is >= delta,\n"
           "                           which is the case at practical sizes\n"
           "  --seed S                 reproducible run: ME-2's matrix and the noise from S (draw r\n"
           "                           from S + r); the run is then NOT private and says so. Without\n"
           "                           it the noise comes from the system's secure generator (the\n"
           "                           matrix, which is public, from seed 1)\n"
           "  --repeats R              R independent draws: the mean and\n"
           "                           standard error of ||zhat - zbar||_2 (default 1; at most 1000000)\n"
           "\nPrivate choice of ME-1's radius (Liu & Talwar, \"Private Selection from Private Candidates\",\n"
           "STOC 2019, Thm 3.1; --method projection and --delta 0 only):\n"
           "  --random-stop GAMMA      repeat rounds, stopping after each with probability GAMMA in (0, 1]\n"
           "                           (1/GAMMA rounds on average); a round draws a radius r uniformly,\n"
           "                           releases zhat (Laplace at eps_round (1 - F), projected onto the l1\n"
           "                           ball of radius r) and scores it: ||zhat||^2 - 2 <zhat, zbar> + Laplace,\n"
           "                           sensitivity 4 ||zhat||_2 L/n, at eps_round F; the round of lowest\n"
           "                           noisy score is released.  eps_round = epsilon/3: each draw is\n"
           "                           3 eps_round = --epsilon pure DP.  The number of rounds (and the time)\n"
           "                           is outside that guarantee\n"
           "  --select-radius LIST     the candidate radii, comma-separated, each > 0 (at most %d; default\n"
           "                           the one radius L sqrt(s))\n"
           "  --score-fraction F       the score's share F of each round's epsilon, in (0, 1) (default 0.1)\n"
           "\nOutput:\n"
           "  --json                   a JSON object instead of the table\n"
           "  --quiet                  no progress bar on stderr\n"
           "  --help, --version\n"
           "\nExit status: 0 success, 1 library failure, 2 bad usage or bad input.\n", SM_MAX_CANDIDATES);
}

static int parse_sm_args(int argc, char **argv, sm_args *a)
{
    enum {
        O_SYN, O_DATA, O_INFMT, O_TARGET, O_METHOD, O_S, O_L, O_EPS, O_DELTA, O_CLASSICAL, O_M, O_RIP, O_SEED,
        O_REPEATS, O_JSON, O_QUIET, O_VERSION, O_MAXDATA, O_RSTOP, O_SELECT, O_SFRAC, O_COUNT
    };
    /* the values are parsed below; the help text is written out in full above */
    static const cli_option options[O_COUNT] = {
        [O_SYN] = { "synthetic", "X", NULL }, [O_DATA] = { "data", "X", NULL },
        [O_INFMT] = { "input-format", "X", NULL }, [O_TARGET] = { "target", "X", NULL },
        [O_METHOD] = { "method", "X", NULL }, [O_S] = { "sparsity", "X", NULL }, [O_L] = { "norm", "X", NULL },
        [O_EPS] = { "epsilon", "X", NULL }, [O_DELTA] = { "delta", "X", NULL },
        [O_CLASSICAL] = { "classical", NULL, NULL }, [O_M] = { "measurements", "X", NULL },
        [O_RIP] = { "rip", NULL, NULL }, [O_SEED] = { "seed", "X", NULL }, [O_REPEATS] = { "repeats", "X", NULL },
        [O_JSON] = { "json", NULL, NULL }, [O_QUIET] = { "quiet", NULL, NULL },
        [O_VERSION] = { "version", NULL, NULL }, [O_MAXDATA] = { "max-data-size", "X", NULL },
        [O_RSTOP] = { "random-stop", "X", NULL }, [O_SELECT] = { "select-radius", "X", NULL },
        [O_SFRAC] = { "score-fraction", "X", NULL },
    };
    char command[64];
    snprintf(command, sizeof command, "dptrain %s", argv[0]);  /* argv[0]: the subcommand */
    cli_parser p;
    cli_parser_init(&p, options, O_COUNT, command, 0);
    const char *value;
    int c, st = 0;
    uint64_t u;
    while ((c = cli_next_option(&p, argc, argv, &value)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_ERROR: return CLI_EXIT_USAGE;
        case CLI_OPT_HELP: sm_help(); return -1;
        case O_VERSION: print_version(); return -1;
        case O_SYN: a->synthetic = value; break;
        case O_DATA: a->data = value; break;
        case O_INFMT:
            if (strcmp(value, "csv") != 0 && strcmp(value, "libsvm") != 0)
                return cli_bad_value("input-format", "csv or libsvm", value);
            a->input_format = value;
            break;
        case O_TARGET: a->target = value; break;
        case O_METHOD:
            if (strcmp(value, "projection") == 0) a->methods = M_PROJ;
            else if (strcmp(value, "compressed") == 0) a->methods = M_COMP;
            else if (strcmp(value, "dense") == 0) a->methods = M_DENSE;
            else if (strcmp(value, "all") == 0) a->methods = M_PROJ | M_COMP | M_DENSE;
            else return cli_bad_value("method", "projection, compressed, dense or all", value);
            break;
        case O_S:
            st = cli_parse_count("sparsity", value, 1, CLI_MAX_FEATURES, &u);
            a->opt.sparsity = (size_t)u;
            a->have_s = 1;
            break;
        case O_L: st = cli_parse_real("norm", value, 0.0, 1, INFINITY, 1, &a->opt.norm); a->have_L = 1; break;
        case O_EPS: st = cli_parse_real("epsilon", value, 0.0, 1, INFINITY, 1, &a->opt.epsilon); break;
        case O_DELTA: st = cli_parse_real("delta", value, 0.0, 0, 1.0, 1, &a->opt.delta); break;
        case O_CLASSICAL: a->opt.classical = 1; break;
        case O_M:
            st = cli_parse_count("measurements", value, 1, CLI_MAX_FEATURES, &u);
            a->opt.measurements = (size_t)u;
            break;
        case O_RIP: a->opt.rip_sensitivity = 1; break;
        case O_SEED: st = parse_seed("seed", value, &a->opt.seed); a->seed_given = 1; break;
        case O_REPEATS: st = cli_parse_count("repeats", value, 1, CLI_MAX_REPEATS, &a->repeats); break;
        case O_MAXDATA: st = parse_data_size(value, &a->max_bytes); break;
        case O_JSON: a->json = 1; break;
        case O_QUIET: a->quiet = 1; break;
        case O_RSTOP: st = cli_parse_real("random-stop", value, 0.0, 1, 1.0, 0, &a->opt.random_stop); break;
        case O_SELECT:
            st = cli_parse_real_list("select-radius", value, 0.0, 1, INFINITY, 1, a->radii, SM_MAX_CANDIDATES,
                                     &a->opt.select_count);
            a->opt.select_radii = a->radii;
            break;
        case O_SFRAC:
            st = cli_parse_real("score-fraction", value, 0.0, 1, 1.0, 1, &a->opt.score_fraction);
            a->have_fraction = 1;
            break;
        }
        if (st) return st;
    }
    if (!a->synthetic == !a->data)
        return cli_usage_error("give exactly one of --synthetic SPEC and --data FILE (see 'dptrain sparse-mean --help')");
    if (a->data && (!a->have_s || !a->have_L))
        return cli_usage_error("--data needs --sparsity and --norm (bounds taken from the data would not be private)");
    if (a->opt.classical && !(a->opt.epsilon < 1.0))
        return cli_usage_error("--classical: the classical Gaussian formula is a guarantee only for epsilon < 1 "
                           "(Dwork-Roth Thm A.1), got epsilon = %g", a->opt.epsilon);
    if (a->opt.classical && a->opt.delta == 0.0)
        return cli_usage_error("--classical: a Gaussian formula, needs delta > 0");
    if (a->methods == M_COMP && a->opt.delta == 0.0)
        return cli_usage_error("--method compressed: ME-2 needs delta > 0");
    if (!(a->opt.random_stop > 0.0)) {
        if (a->opt.select_count) return cli_usage_error("--select-radius: needs --random-stop GAMMA (the private selection)");
        if (a->have_fraction) return cli_usage_error("--score-fraction: needs --random-stop GAMMA");
        return 0;
    }
    if (a->opt.delta > 0.0)
        return cli_usage_error("--random-stop: Liu & Talwar's 3 eps (STOC 2019, Thm 3.1) is for pure eps-DP rounds: "
                               "needs --delta 0 (Laplace), got %g", a->opt.delta);
    if (a->methods != M_PROJ)
        return cli_usage_error("--random-stop: chooses ME-1's projection radius: needs --method projection (the "
                               "dense baseline has no radius, ME-2 needs delta > 0)");
    return 0;
}

typedef struct {
    const char *name;
    dpt_mean_method method;
    dpt_mean_result res;
    double mean, se, predicted, secs;
    int have_pred;
    uint64_t rounds;                    /* random stopping: over the draws */
    uint64_t chosen[SM_MAX_CANDIDATES]; /* how often each candidate was released */
} sm_row;

static double l2err(const double *a, const double *b, size_t d)
{
    double s = 0.0;
    for (size_t j = 0; j < d; j++) s += (a[j] - b[j]) * (a[j] - b[j]);
    return sqrt(s);
}

/* The note's predicted l2 errors (2.2; up to the constants written there);
 * the dense Laplace one is E||Lap(b)^d|| ~ sqrt(2d) b; ME-2's is lost with
 * the poster's Table 1 (note 2.7). */
static int predicted(const sm_args *a, dpt_mean_method m, size_t n, size_t d, double *out)
{
    double L = a->opt.norm, s = (double)a->opt.sparsity, ne = (double)n * a->opt.epsilon, dl = a->opt.delta;
    if (m == DPT_MEAN_PROJECTION) {
        *out = dl == 0.0 ? 2.0 * L * sqrt(s * (1.0 + log((double)d)) / ne)
                         : 2.0 * sqrt(2.0) * L * pow(s * log(1.25 / dl) * log(2.0 * (double)d), 0.25) / sqrt(ne);
        return 1;
    }
    if (m == DPT_MEAN_DENSE) {
        *out = dl == 0.0 ? sqrt(2.0 * (double)d) * 2.0 * L * sqrt(s) / ne
                         : 2.0 * L * sqrt(2.0 * (double)d * log(1.25 / dl)) / ne;
        return 1;
    }
    return 0;
}

/* The candidates of the radius selection: given, or L sqrt(s) alone. */
static size_t candidates(const sm_args *a, double *one, const double **list)
{
    *one = a->opt.norm * sqrt((double)a->opt.sparsity);
    *list = a->opt.select_count ? a->radii : one;
    return a->opt.select_count ? a->opt.select_count : 1;
}

static json_t *selection_json(const sm_args *a, const sm_row *r)
{
    double one;
    const double *cand;
    size_t k = candidates(a, &one, &cand);
    json_t *sel = json_object(), *c = json_array(), *ch = json_array();
    int bad = json_put(sel, "method", cli_json_text("random stopping (Liu & Talwar, STOC 2019, Thm 3.1)"));
    bad |= json_put(sel, "random_stop", json_num(a->opt.random_stop, 'g', 10));
    for (size_t j = 0; j < k; j++) {
        bad |= json_array_append_new(c, json_num(cand[j], 'g', 10));
        bad |= json_array_append_new(ch, json_integer((json_int_t)r->chosen[j]));
    }
    bad |= json_put(sel, "candidates", c);
    bad |= json_put(sel, "chosen_counts", ch);
    bad |= json_put(sel, "chosen_radius", json_num(r->res.radius, 'g', 10));
    bad |= json_put(sel, "rounds", json_integer((json_int_t)r->rounds));
    bad |= json_put(sel, "rounds_mean", json_num((double)r->rounds / (double)a->repeats, 'g', 10));
    bad |= json_put(sel, "score_fraction", json_num(a->opt.score_fraction, 'g', 10));
    bad |= json_put(sel, "round_epsilon", json_upper(r->res.round_epsilon));
    bad |= json_put(sel, "score_epsilon", json_upper(r->res.score_epsilon));
    bad |= json_put(sel, "score", json_num(r->res.score, 'g', 10));
    bad |= json_put(sel, "score_sensitivity", json_num(r->res.score_sensitivity, 'g', 10));
    if (bad) {
        json_decref(sel);
        return NULL;
    }
    return sel;
}

static int print_report(const sm_args *a, const dpt_dataset *ds, const sm_row *rows, size_t nrows, int skipped)
{
    const dpt_mean_options *o = &a->opt;
    cli_data_use use = { 0 };
    if (a->data) data_use_loader(&use, a->input_format);
    data_use_add(&use, USE_COVERED, "the %zu rows, in each draw of the estimate, %s", ds->n,
                 a->seed_given ? "under the accounting below, which needs secret noise: with --seed it is "
                                 "reproducible, so this run is NOT private"
                               : "under the guarantee below (each draw on its own)");
    data_use_add(&use, USE_EVALUATION, "the exact mean of the rows, for the l2 error of each draw");
    if (o->random_stop > 0.0)
        data_use_add(&use, USE_EVALUATION, "the number of rounds (and the time, which grows with it): not covered by "
                     "Liu & Talwar's 3 eps, which releases the best round only");
    if (a->json) {
        json_t *doc = json_object();
        int bad = json_put(doc, "command", cli_json_text("sparse-mean"));
        bad |= json_put(doc, "n", json_integer((json_int_t)ds->n));
        bad |= json_put(doc, "d", json_integer((json_int_t)ds->d));
        bad |= json_put(doc, "s", json_integer((json_int_t)o->sparsity));
        bad |= json_put(doc, "L", json_num(o->norm, 'g', 10));
        bad |= json_put(doc, "epsilon_target", json_num(o->epsilon, 'g', 10));
        bad |= json_put(doc, "delta_target", json_num(o->delta, 'g', 6));
        bad |= json_put(doc, "repeats", json_integer((json_int_t)a->repeats));
        bad |= json_put(doc, "seed", json_integer((json_int_t)o->seed));
        bad |= json_put(doc, "classical", json_boolean(o->classical));
        json_t *methods = json_array();
        for (size_t k = 0; k < nrows; k++) {
            const sm_row *r = &rows[k];
            json_t *row = json_object();
            int row_bad = json_put(row, "method", cli_json_text(r->name));
            row_bad |= json_put(row, "mechanism", cli_json_text(o->delta == 0.0 ? "laplace" : "gaussian"));
            row_bad |= json_put(row, "noise_scale", json_num(r->res.noise_scale, 'g', 10));
            row_bad |= json_put(row, "sensitivity", json_num(r->res.sensitivity, 'g', 10));
            row_bad |= json_put(row, "measurements", json_integer((json_int_t)r->res.measurements));
            row_bad |= json_put(row, "failure_delta", json_num(r->res.failure_delta, 'g', 10));
            row_bad |= json_put(row, "epsilon", json_upper(r->res.epsilon));
            row_bad |= json_put(row, "delta", json_upper(r->res.delta));
            row_bad |= json_put(row, "error", json_num(r->mean, 'g', 10));
            row_bad |= json_put(row, "error_se", json_num(a->repeats > 1 ? r->se : NAN, 'g', 10));
            row_bad |= json_put(row, "predicted_error", json_num(r->have_pred ? r->predicted : NAN, 'g', 10));
            row_bad |= json_put(row, "seconds", json_num(r->secs, 'g', 10));
            row_bad |= json_put(row, "accounting", cli_json_text(r->res.accounting));
            if (o->random_stop > 0.0) row_bad |= json_put(row, "selection", selection_json(a, r));
            if (row_bad) {
                json_decref(row);
                row = NULL;
            }
            bad |= json_array_append_new(methods, row);
        }
        bad |= json_put(doc, "methods", methods);
        if (skipped)
            bad |= json_put(doc, "skipped", json_pack("[s]", "compressed: ME-2 needs delta > 0"));
        bad |= json_put(doc, "data_use", data_use_json(&use));
        bad |= json_put(doc, "private", json_boolean(!a->seed_given));
        return json_report(doc, bad) ? CLI_EXIT_LIBRARY : 0;
    }
    printf("data               n = %zu, d = %zu, s = %zu, L = %g\n", ds->n, ds->d, o->sparsity, o->norm);
    printf("target             epsilon = %g, delta = %g (replace-one), %s\n", o->epsilon, o->delta,
           o->delta == 0.0 ? "Laplace noise" : o->classical ? "classical Gaussian" : "analytic Gaussian");
    if (a->seed_given)
        printf("repeats            %llu (seeds %lu..%llu)\n", (unsigned long long)a->repeats, o->seed,
               (unsigned long long)o->seed + a->repeats - 1);
    else
        printf("repeats            %llu (secure noise)\n", (unsigned long long)a->repeats);
    printf("\n%-11s %11s %11s %6s %9s %9s %11s %10s %11s %8s\n", "method", "noise", "sensitivity", "m", "epsilon",
           "delta", "l2 error", "+- se", "predicted", "time s");
    for (size_t k = 0; k < nrows; k++) {
        const sm_row *r = &rows[k];
        char m[24], se[24], pr[24];
        if (r->res.measurements) snprintf(m, sizeof m, "%zu", r->res.measurements);
        else snprintf(m, sizeof m, "-");
        if (a->repeats > 1) snprintf(se, sizeof se, "%.3g", r->se);
        else snprintf(se, sizeof se, "-");
        if (r->have_pred) snprintf(pr, sizeof pr, "%.4g", r->predicted);
        else snprintf(pr, sizeof pr, "-");
        printf("%-11s %11.4g %11.4g %6s %9.4g %9.3g %11.4g %10s %11s %8.3f\n", r->name, r->res.noise_scale,
               r->res.sensitivity, m, r->res.epsilon, r->res.delta, r->mean, se, pr, r->secs);
    }
    if (skipped) printf("compressed         not run: ME-2 needs delta > 0\n");
    if (o->random_stop > 0.0 && nrows == 1) {
        const sm_row *r = &rows[0];
        double one;
        const double *cand;
        size_t k = candidates(a, &one, &cand);
        char ur[CLI_NUMBER_SIZE];
        printf("\nselection          random stopping (Liu & Talwar, STOC 2019, Thm 3.1), gamma %g, %zu radi%s\n",
               o->random_stop, k, k == 1 ? "us" : "i");
        printf("chosen radius     ");
        for (size_t j = 0; j < k; j++) printf(" %.6g x %llu%s", cand[j], (unsigned long long)r->chosen[j], j + 1 < k ? "," : "");
        printf("   (of %llu draw%s)\n", (unsigned long long)a->repeats, a->repeats == 1 ? "" : "s");
        printf("rounds             %llu in all, %.4g a draw   (outside the guarantee: see the data use)\n",
               (unsigned long long)r->rounds, (double)r->rounds / (double)a->repeats);
        printf("round epsilon      %s = %.6g release + %.6g score (F = %g); total 3 x %.6g\n",
               upper_text(r->res.round_epsilon, 0, ur), r->res.round_epsilon - r->res.score_epsilon,
               r->res.score_epsilon, o->score_fraction, r->res.round_epsilon);
    }
    printf("\n");
    for (size_t k = 0; k < nrows; k++) printf("accounting         %s\n", rows[k].res.accounting);
    data_use_print_table(&use);
    printf("predicted          ME-1's error bounds: Laplace 2L sqrt(s(1+ln d)/(n eps)), Gaussian 2 sqrt2 L (s ln(1.25/delta)"
           " ln 2d)^(1/4)/sqrt(n eps),\n                   dense 2L sqrt(2d ln(1.25/delta))/(n eps) (Laplace:"
           " sqrt(2d) b); no rate is given here for ME-2\n");
    return 0;
}

int sparse_mean_command(int argc, char **argv)
{
    sm_args a = { .methods = M_PROJ, .repeats = 1 };
    dpt_mean_defaults(&a.opt);
    int st = parse_sm_args(argc, argv, &a);
    if (st < 0) return 0;
    if (st) return st;

    dpa_error err = { 0 };
    dpt_dataset ds = { 0 };
    double *zbar = NULL, *est = NULL;
    dpt_rng *rng = NULL;
    int rc = 0;
    if (!a.seed_given) {
        if ((rc = cli_privacy_rng(0, 0, &rng))) return rc;
        a.opt.rng = rng;
    }
    uint64_t total = 0, done_steps = 0;
    if (a.synthetic) {
        dpt_sparse_spec spec;
        if ((st = dpt_sparse_parse(a.synthetic, &spec, &err))) goto fail_synthetic;
        if (!a.have_s) a.opt.sparsity = spec.s;
        if (!a.have_L) a.opt.norm = spec.norm;
        spec.max_bytes = a.max_bytes;
        if ((st = dpt_sparse_generate(&spec, &ds, NULL, &err))) goto fail_synthetic;
    } else {
        if ((st = load_file(a.data, NULL, a.input_format ? a.input_format : "csv", a.target, a.max_bytes, &ds, &err)))
            goto fail;
    }
    if (a.opt.sparsity > ds.d) {
        rc = cli_usage_error("--sparsity: s = %zu is above d = %zu", a.opt.sparsity, ds.d);
        goto done;
    }
    if (a.opt.measurements > ds.d && (a.methods & M_COMP)) {
        rc = cli_usage_error("--measurements: m = %zu is above d = %zu", a.opt.measurements, ds.d);
        goto done;
    }
    size_t n = ds.n, d = ds.d;
    zbar = calloc(d, sizeof *zbar);
    est = malloc(d * sizeof *est);
    if (!zbar || !est) {
        fprintf(stderr, "dptrain: out of memory (d = %zu)\n", d);
        rc = CLI_EXIT_LIBRARY;
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) zbar[j] += ds.x[i * d + j];
    for (size_t j = 0; j < d; j++) zbar[j] /= (double)n;

    sm_row rows[3];
    size_t nrows = 0;
    int skipped = 0;
    static const struct { unsigned bit; const char *name; dpt_mean_method m; } all[3] = {
        { M_PROJ, "projection", DPT_MEAN_PROJECTION },
        { M_COMP, "compressed", DPT_MEAN_COMPRESSED },
        { M_DENSE, "dense", DPT_MEAN_DENSE },
    };
    for (int k = 0; k < 3; k++) {
        if (!(a.methods & all[k].bit)) continue;
        if (all[k].m == DPT_MEAN_COMPRESSED && a.opt.delta == 0.0) {
            skipped = 1;
            continue;
        }
        memset(&rows[nrows], 0, sizeof rows[nrows]);
        rows[nrows].name = all[k].name;
        rows[nrows].method = all[k].m;
        /* the rates are for one release at eps, not for a selection's rounds at eps/3 */
        rows[nrows].have_pred = !(a.opt.random_stop > 0.0) && predicted(&a, all[k].m, n, d, &rows[nrows].predicted);
        nrows++;
    }
    total = a.repeats * nrows;
    cli_progress start;
    cli_progress_start(&start, "steps");
    for (size_t k = 0; k < nrows; k++) {
        sm_row *r = &rows[k];
        dpt_mean_options o = a.opt;
        o.method = r->method;
        double sum = 0.0, sum2 = 0.0;
        double t0 = cli_now_ms(), t1;
        for (uint64_t rep = 0; rep < a.repeats; rep++) {
            o.seed = a.opt.seed + (unsigned long)rep;
            dpt_rng *seeded = NULL;
            if (a.seed_given) {         /* draw `rep` reproducible on its own: seed S + rep */
                if ((rc = cli_privacy_rng(1, o.seed, &seeded))) goto done;
                o.rng = seeded;
            }
            st = dpt_sparse_mean(&ds, &o, est, &r->res, &err);
            dpt_rng_free(seeded);
            if (st) goto fail;
            if (o.random_stop > 0.0) {
                double one;
                const double *cand;
                size_t kc = candidates(&a, &one, &cand);
                r->rounds += r->res.rounds;
                for (size_t j = 0; j < kc; j++)
                    if (cand[j] == r->res.radius) {
                        r->chosen[j]++;
                        break;
                    }
            }
            double e = l2err(est, zbar, d);
            sum += e;
            sum2 += e * e;
            if (!a.quiet) cli_progress_bar(&start, ++done_steps, total);
        }
        t1 = cli_now_ms();
        double R = (double)a.repeats;
        r->mean = sum / R;
        r->se = a.repeats > 1 ? sqrt(fmax(sum2 - R * r->mean * r->mean, 0.0) / (R - 1.0) / R) : NAN;
        r->secs = ((t1 - t0) / 1e3) / R;
    }
    rc = print_report(&a, &ds, rows, nrows, skipped);
    goto done;
fail_synthetic:
    cli_option_error("--synthetic", "sparse synthetic: ", &err);
    rc = st == DPA_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_LIBRARY;
    goto done;
fail:
    if (done_steps && done_steps < total) fputc('\n', stderr); /* end the progress line */
    cli_library_error(&err);
    rc = st == DPA_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_LIBRARY;
done:
    dpt_rng_free(rng);
    free(zbar);
    free(est);
    dpt_dataset_free(&ds);
    return rc;
}
