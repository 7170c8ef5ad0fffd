/*
 * dptrain_sparse_opt.c - `dptrain sparse-erm` and `dptrain sparse-sgd`:
 * DP logistic regression with sparse gradients (Ghazi et al., NeurIPS 2024;
 * the note ../shared/notes/ntk-sparse-seeds-002-004.md, 2.4 and 2.5):
 *   sparse-erm  output perturbation of the regularised minimiser, then
 *               projection onto the l1 ball (or the dense baseline);
 *   sparse-sgd  bias-reduced DP-SGD under a GDP privacy filter (or plain
 *               noisy minibatch SGD, the dense baseline).
 * The report gives the training objective at the release and at the
 * non-private regularised minimiser (their difference is the excess
 * empirical risk), the test loss and accuracy, the noise and the eps spent.
 *
 * Exit status: 0 success, 1 library failure, 2 bad usage or bad input.
 */
#include <config.h>

#include "dptrain_cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SP_MAX_CANDIDATES 64

typedef struct {
    int sgd;
    const char *cmd, *data, *input_format, *target, *synthetic;
    double test_fraction, lambda, epsilon, delta, norm, sensitivity_l1, learning_rate, noise, radius;
    uint64_t sparsity, max_steps, batch_size, max_bytes;
    unsigned long seed;
    int seed_given;
    int have_lambda, classical, dense, non_private, json, quiet;
    const char *only;          /* an option that belongs to the other subcommand */
    double select[SP_MAX_CANDIDATES];   /* --select-lambda */
    size_t nselect;
    double random_stop, score_fraction; /* 0: not given */
} sp_args;

static void sp_help(int sgd)
{
    if (!sgd)
        printf("Usage: dptrain sparse-erm (--synthetic SPEC | --data FILE) [OPTIONS]\n\n"
               "Logistic regression (labels +-1) by output perturbation with l1 projection (Ghazi et\n"
               "al., NeurIPS 2024): w = argmin (1/n) sum ln(1 + e^-(y x.w)) + (lambda/2) ||w||^2, solved to a\n"
               "gradient norm <= 1e-10; plus Gaussian noise (delta > 0; l2 sensitivity 2L/(lambda n),\n"
               "analytic calibration) or Laplace noise (delta = 0; l1 sensitivity given or\n"
               "2 sqrt(2s) L (H/lambda + 1)/(lambda n), H = L^2/4); then the Euclidean projection onto\n"
               "the l1 ball of radius L sqrt(s)/lambda (--dense: none).\n");
    else
        printf("Usage: dptrain sparse-sgd (--synthetic SPEC | --data FILE) [OPTIONS]\n\n"
               "Logistic regression (labels +-1) by the bias-reduced DP-SGD of Ghazi et al.\n"
               "(NeurIPS 2024): per step a level N (P[N = k] prop. to 2^-k), a batch B of 2^(N+1)\n"
               "rows, its halves O,\n"
               "E and one row i; the four gradient means each get N(0, sigma0^2) per coordinate\n"
               "(--noise) and are projected onto the l1 ball of radius L sqrt(s); G = (G_B - (G_O +\n"
               "G_E)/2)/p_N + G_i.  A step costs mu_t^2 = mu_{2^(N+1)}^2 + mu_{2^N}^2 + mu_1^2,\n"
               "mu_b = 2L/(b sigma0); a GDP privacy filter at (eps, delta) stops the run at the first\n"
               "step it refuses (or at --max-steps).  The release is the average of the iterates after\n"
               "each admitted step.  --dense: noisy minibatch SGD (--batch-size) under the same filter.\n");
    printf("\nData:\n"
           "  --synthetic SPEC       s-sparse rows with logistic labels: n=10000,d=1000,s=10,norm=1,\n"
           "                         zipf=1,values=onehot|gaussian,wstar_support=10,wstar_norm=4,seed=1\n"
           "  --data FILE            libsvm or CSV (--input-format); labels +-1 or 0/1 (0 read as -1)\n"
           "  --input-format FMT     libsvm or csv (default csv)\n"
           "  --target COL           CSV label column (default the last)\n"
           "  --test-fraction X      held-out share, 0 <= X < 1 (default 0.2)\n"
           "  --max-data-size SIZE   refuse data whose n x d doubles exceed SIZE bytes (K, M, G, T:\n"
           "                         powers of 1024; default 2G, at most 1024T), checked before allocating\n"
           "\nPrivacy:\n"
           "  --epsilon E            target epsilon (default 1)\n"
           "  --delta D              target delta (default 1e-5)%s\n"
           "  --sparsity S           s: rows with more nonzeros are refused (default: the generator's s;\n"
           "                         required with --data unless --non-private; at most 1e9)\n"
           "  --norm L               L: rows of larger norm are refused (default: the generator's norm;\n"
           "                         required with --data unless --non-private)\n"
           "  --non-private          no noise (the reference)\n"
           "  --dense                the dense baseline (%s)\n",
           sgd ? "; > 0 (GDP filter)" : "; 0: Laplace", sgd ? "noisy minibatch SGD" : "no projection");
    if (!sgd)
        printf("  --sensitivity-l1 D    Laplace's l1 sensitivity (default 2 sqrt(2s) L (H/lambda + 1)/(lambda n))\n"
               "  --classical            the classical Gaussian sigma = Delta sqrt(2 ln(1.25/delta))/eps\n"
               "                         (the papers' formula; eps < 1 only)\n"
               "\nTraining:\n"
               "  --lambda X             regularisation > 0 (default 0.01)\n"
               "\nPrivate choice of lambda (Liu & Talwar, \"Private Selection from Private Candidates\",\n"
               "STOC 2019, Thm 3.1; needs --delta 0):\n"
               "  --random-stop GAMMA    repeat rounds, stopping after each with probability GAMMA in (0, 1]\n"
               "                         (1/GAMMA rounds on average); a round draws a lambda uniformly, releases\n"
               "                         w at eps_round (1 - F) and scores it: the mean training logistic loss +\n"
               "                         Laplace, sensitivity ln(1 + e^(L ||w||_2))/n, at eps_round F; the round\n"
               "                         of lowest noisy score is released.  eps_round = epsilon/3: the whole is\n"
               "                         3 eps_round = --epsilon pure DP.  The number of rounds (and the run's\n"
               "                         time) is outside that guarantee\n"
               "  --select-lambda LIST   the candidates, comma-separated, each > 0 (at most %d; default the\n"
               "                         one --lambda)\n"
               "  --score-fraction F     the score's share F of each round's epsilon, in (0, 1) (default 0.1:\n"
               "                         the score is one number, w has d coordinates; the release's noise\n"
               "                         grows by only 1/(1 - F) = 1.11)\n", SP_MAX_CANDIDATES);
    else
        printf("\nTraining:\n"
               "  --noise SIGMA0         per-coordinate noise std on each batch mean (default 100)\n"
               "  --learning-rate ETA    step size (default 0.1)\n"
               "  --lambda X             l2 regularisation >= 0 (default 0; the reference minimiser then\n"
               "                         uses 1e-6)\n"
               "  --radius R             project the iterates onto the l2 ball of radius R (default none)\n"
               "  --max-steps T          cap on the steps (default 100000; at most 1e8)\n"
               "  --batch-size B         the dense baseline's batch (default 64; at most the training examples)\n");
    printf("  --seed S               reproducible run: the split and every privacy draw (noise; sparse-sgd's\n"
           "                         batches and levels) from S; the run is then NOT private and says so.\n"
           "                         Without it the privacy draws come from the system's secure generator\n"
           "                         (the split uses seed 1)\n"
           "\nOutput:\n"
           "  --json                 JSON on stdout\n"
           "  --quiet                no progress bar (shown on stderr when it is a terminal)\n"
           "  --help, --version\n"
           "\nExit status: 0 success, 1 library failure, 2 bad usage or bad input.\n");
}

static int parse_sp_args(int argc, char **argv, sp_args *a)
{
    enum {
        O_SYN, O_DATA, O_INFMT, O_TARGET, O_TESTFR, O_LAMBDA, O_EPS, O_DELTA, O_SPARSITY, O_NORM, O_SENS, O_CLASSICAL,
        O_DENSE, O_NONPRIV, O_LR, O_NOISE, O_RADIUS, O_STEPS, O_BATCH, O_SEED, O_JSON, O_QUIET, O_VERSION, O_MAXDATA,
        O_RSTOP, O_SELECT, O_SFRAC, O_COUNT
    };
    /* the values are parsed below; the help text is written out in full above */
    static const cli_option options[O_COUNT] = {
        [O_SYN] = { "synthetic", "X", NULL }, [O_DATA] = { "data", "X", NULL },
        [O_INFMT] = { "input-format", "X", NULL }, [O_TARGET] = { "target", "X", NULL },
        [O_TESTFR] = { "test-fraction", "X", NULL }, [O_LAMBDA] = { "lambda", "X", NULL },
        [O_EPS] = { "epsilon", "X", NULL }, [O_DELTA] = { "delta", "X", NULL },
        [O_SPARSITY] = { "sparsity", "X", NULL }, [O_NORM] = { "norm", "X", NULL },
        [O_SENS] = { "sensitivity-l1", "X", NULL }, [O_CLASSICAL] = { "classical", NULL, NULL },
        [O_DENSE] = { "dense", NULL, NULL }, [O_NONPRIV] = { "non-private", NULL, NULL },
        [O_LR] = { "learning-rate", "X", NULL }, [O_NOISE] = { "noise", "X", NULL },
        [O_RADIUS] = { "radius", "X", NULL }, [O_STEPS] = { "max-steps", "X", NULL },
        [O_BATCH] = { "batch-size", "X", NULL }, [O_SEED] = { "seed", "X", NULL }, [O_JSON] = { "json", NULL, NULL },
        [O_QUIET] = { "quiet", NULL, NULL }, [O_VERSION] = { "version", NULL, NULL },
        [O_MAXDATA] = { "max-data-size", "X", NULL }, [O_RSTOP] = { "random-stop", "X", NULL },
        [O_SELECT] = { "select-lambda", "X", NULL }, [O_SFRAC] = { "score-fraction", "X", NULL },
    };
    char command[64];
    snprintf(command, sizeof command, "dptrain %s", argv[0]);  /* argv[0]: the subcommand */
    cli_parser p;
    cli_parser_init(&p, options, O_COUNT, command, 0);
    const char *value;
    int c, st = 0;
    while ((c = cli_next_option(&p, argc, argv, &value)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_ERROR: return CLI_EXIT_USAGE;
        case CLI_OPT_HELP: sp_help(a->sgd); return -1;
        case O_VERSION: print_version(); return -1;
        case O_SYN: a->synthetic = value; break;
        case O_DATA: a->data = value; break;
        case O_INFMT:
            if (strcmp(value, "csv") && strcmp(value, "libsvm")) return cli_bad_value("input-format", "libsvm or csv", value);
            a->input_format = value;
            break;
        case O_TARGET: a->target = value; break;
        case O_TESTFR: st = cli_parse_real("test-fraction", value, 0.0, 0, 1.0, 1, &a->test_fraction); break;
        case O_LAMBDA:
            st = a->sgd ? cli_parse_real("lambda", value, 0.0, 0, INFINITY, 1, &a->lambda)
                        : cli_parse_real("lambda", value, 0.0, 1, INFINITY, 1, &a->lambda);
            a->have_lambda = 1;
            break;
        case O_EPS: st = cli_parse_real("epsilon", value, 0.0, 1, INFINITY, 1, &a->epsilon); break;
        case O_DELTA:
            st = a->sgd ? cli_parse_real("delta", value, 0.0, 1, 1.0, 1, &a->delta)
                        : cli_parse_real("delta", value, 0.0, 0, 1.0, 1, &a->delta);
            break;
        case O_SPARSITY: st = cli_parse_count("sparsity", value, 1, CLI_MAX_FEATURES, &a->sparsity); break;
        case O_NORM: st = cli_parse_real("norm", value, 0.0, 1, INFINITY, 1, &a->norm); break;
        case O_SENS: st = cli_parse_real("sensitivity-l1", value, 0.0, 1, INFINITY, 1, &a->sensitivity_l1);
            if (a->sgd) a->only = "--sensitivity-l1";
            break;
        case O_CLASSICAL: a->classical = 1; if (a->sgd) a->only = "--classical"; break;
        case O_DENSE: a->dense = 1; break;
        case O_NONPRIV: a->non_private = 1; break;
        case O_LR: st = cli_parse_real("learning-rate", value, 0.0, 1, INFINITY, 1, &a->learning_rate);
            if (!a->sgd) a->only = "--learning-rate";
            break;
        case O_NOISE: st = cli_parse_real("noise", value, 0.0, 1, INFINITY, 1, &a->noise);
            if (!a->sgd) a->only = "--noise";
            break;
        case O_RADIUS: st = cli_parse_real("radius", value, 0.0, 0, INFINITY, 1, &a->radius);
            if (!a->sgd) a->only = "--radius";
            break;
        case O_STEPS:
            st = cli_parse_count("max-steps", value, 1, CLI_MAX_STEPS, &a->max_steps);
            if (!a->sgd) a->only = "--max-steps";
            break;
        case O_BATCH:
            st = cli_parse_count("batch-size", value, 1, CLI_MAX_ROWS, &a->batch_size);
            if (!a->sgd) a->only = "--batch-size";
            break;
        case O_SEED: st = parse_seed("seed", value, &a->seed); a->seed_given = 1; break;
        case O_MAXDATA: st = parse_data_size(value, &a->max_bytes); break;
        case O_JSON: a->json = 1; break;
        case O_QUIET: a->quiet = 1; break;
        case O_RSTOP:
            if (a->sgd)
                return cli_usage_error("--random-stop: Liu & Talwar's 3 eps (STOC 2019, Thm 3.1) is for pure eps-DP "
                                       "rounds; sparse-sgd's GDP filter is (eps, delta > 0)-DP");
            st = cli_parse_real("random-stop", value, 0.0, 1, 1.0, 0, &a->random_stop);
            break;
        case O_SELECT:
            st = cli_parse_real_list("select-lambda", value, 0.0, 1, INFINITY, 1, a->select, SP_MAX_CANDIDATES,
                                     &a->nselect);
            if (a->sgd) a->only = "--select-lambda";
            break;
        case O_SFRAC:
            st = cli_parse_real("score-fraction", value, 0.0, 1, 1.0, 1, &a->score_fraction);
            if (a->sgd) a->only = "--score-fraction";
            break;
        }
        if (st) return st;
    }
    if (a->only) return cli_usage_error("%s: not an option of %s (see 'dptrain %s --help')", a->only, a->cmd, a->cmd);
    if (!a->data == !a->synthetic) return cli_usage_error("give exactly one of --data and --synthetic");
    if (a->synthetic && (a->input_format || a->target))
        return cli_usage_error("--input-format and --target apply to --data only");
    if (a->classical && a->delta == 0.0) return cli_usage_error("--classical: needs --delta > 0 (delta 0 is Laplace)");
    if (a->classical && a->epsilon >= 1.0)
        return cli_usage_error("--classical: the classical Gaussian is only a guarantee for epsilon < 1, got %g", a->epsilon);
    if (a->sensitivity_l1 > 0.0 && a->delta > 0.0)
        return cli_usage_error("--sensitivity-l1: the Laplace mechanism's; needs --delta 0");
    if (!(a->random_stop > 0.0)) {
        if (a->nselect) return cli_usage_error("--select-lambda: needs --random-stop GAMMA (the private selection)");
        if (a->score_fraction > 0.0) return cli_usage_error("--score-fraction: needs --random-stop GAMMA");
        return 0;
    }
    if (a->delta > 0.0 && !a->non_private)
        return cli_usage_error("--random-stop: Liu & Talwar's 3 eps (STOC 2019, Thm 3.1) is for pure eps-DP rounds: "
                               "needs --delta 0 (Laplace), got %g", a->delta);
    if (a->sensitivity_l1 > 0.0)
        return cli_usage_error("--sensitivity-l1: holds for one lambda; --random-stop computes each candidate's own");
    if (a->nselect && a->have_lambda) return cli_usage_error("--select-lambda: give it or --lambda, not both");
    return 0;
}

/* The data: generated (logistic labels always on), or read with labels
 * +-1 or 0/1 (0 read as -1); anything else is refused with its row. */
static int sp_load(sp_args *a, dpt_dataset *all, size_t *gen_s, double *gen_norm, dpa_error *err)
{
    if (a->synthetic) {
        dpt_sparse_spec spec;
        dpt_sparse_defaults(&spec);
        int st = dpt_sparse_parse(a->synthetic, &spec, err);
        if (st) return st;
        spec.logistic = 1;
        spec.max_bytes = a->max_bytes;
        *gen_s = spec.s;
        *gen_norm = spec.norm;
        return dpt_sparse_generate(&spec, all, NULL, err);
    }
    int st = load_file(a->data, NULL, a->input_format ? a->input_format : "csv", a->target, a->max_bytes, all, err);
    if (st) return st;
    for (size_t i = 0; i < all->n; i++) {
        double y = all->y[i];
        if (y == 0.0) all->y[i] = -1.0;
        else if (y != 1.0 && y != -1.0) {
            err->status = DPA_EINVAL;
            char shown[128];
            snprintf(err->message, sizeof err->message, "%s: example %zu: the label %g is not +-1 or 0/1",
                     dpt_escape(a->data, DPT_ESCAPE_TAIL, shown, sizeof shown), i + 1, y);
            return DPA_EINVAL;
        }
    }
    return 0;
}

static void data_bounds(const dpt_dataset *ds, size_t *s, double *L)
{
    size_t smax = 0;
    double lmax = 0.0;
    for (size_t i = 0; i < ds->n; i++) {
        size_t k = 0;
        double ss = 0.0;
        for (size_t j = 0; j < ds->d; j++) {
            double v = ds->x[i * ds->d + j];
            if (v != 0.0) {
                k++;
                ss += v * v;
            }
        }
        if (k > smax) smax = k;
        if (sqrt(ss) > lmax) lmax = sqrt(ss);
    }
    *s = smax ? smax : 1;
    *L = lmax;
}

static double accuracy(const dpt_dataset *ds, const double *w)
{
    size_t right = 0;
    for (size_t i = 0; i < ds->n; i++) {
        double m = 0.0;
        for (size_t j = 0; j < ds->d; j++) m += ds->x[i * ds->d + j] * w[j];
        if ((m >= 0.0 ? 1.0 : -1.0) == ds->y[i]) right++;
    }
    return ds->n ? (double)right / (double)ds->n : NAN;
}

typedef struct {
    const char *method, *mechanism;
    size_t s;
    double L, lambda, ref_lambda, noise, sensitivity, epsilon, delta, mu_spent, solver_gradient;
    double obj_private, obj_optimal, test_loss, test_accuracy, secs;
    uint64_t steps;
    int have_steps;
    const char *accounting;
    const dpt_sparse_erm_result *sel;   /* random stopping's result, else NULL */
} sp_report;

static int print_report(const sp_args *a, const dpt_dataset *train, const dpt_dataset *test, const sp_report *r)
{
    char ue[CLI_NUMBER_SIZE], ud[CLI_NUMBER_SIZE]; /* upper_text of epsilon and delta */
    int priv = isfinite(r->epsilon);
    cli_data_use use = { 0 };
    if (a->data) data_use_loader(&use, a->input_format);
    data_use_common(&use, train->n, test != train ? test->n : 0, priv, a->seed_given, NULL,
                    test != train ? "objective, excess risk and the non-private minimiser they are compared with"
                                  : "objective, excess risk, non-private minimiser, and the test metrics (there is "
                                    "no test set)");
    if (r->sel && priv)
        data_use_add(&use, USE_EVALUATION, "the number of rounds (and the run's time, which grows with it): not "
                     "covered by Liu & Talwar's 3 eps, which releases the best round only");
    if (a->json) {
        json_t *doc = json_object();
        int bad = json_put(doc, "algorithm", cli_json_text(a->cmd));
        bad |= json_put(doc, "method", cli_json_text(r->method));
        bad |= json_put(doc, "mechanism", cli_json_text(r->mechanism));
        bad |= json_put(doc, "train_examples", json_integer((json_int_t)train->n));
        bad |= json_put(doc, "test_examples", json_integer((json_int_t)test->n));
        bad |= json_put(doc, "features", json_integer((json_int_t)train->d));
        bad |= json_put(doc, "sparsity", json_integer((json_int_t)r->s));
        bad |= json_put(doc, "norm", json_num(r->L, 'g', 10));
        bad |= json_put(doc, "lambda", json_num(r->lambda, 'g', 10));
        bad |= json_put(doc, "noise", json_num(r->noise, 'g', 10));
        bad |= json_put(doc, "sensitivity", json_num(r->sensitivity, 'g', 10));
        bad |= json_put(doc, "epsilon", json_upper(priv ? r->epsilon : NAN));
        bad |= json_put(doc, "delta", json_upper(priv ? r->delta : NAN));
        if (r->have_steps) {
            bad |= json_put(doc, "steps", json_integer((json_int_t)r->steps));
            bad |= json_put(doc, "mu_spent", json_num(r->mu_spent, 'g', 10));
            bad |= json_put(doc, "reference_lambda", json_num(r->ref_lambda, 'g', 10));
        } else {
            bad |= json_put(doc, "solver_gradient", json_num(r->solver_gradient, 'g', 10));
        }
        bad |= json_put(doc, "objective_private", json_num(r->obj_private, 'g', 10));
        bad |= json_put(doc, "objective_optimal", json_num(r->obj_optimal, 'g', 10));
        bad |= json_put(doc, "excess_risk", json_num(r->obj_private - r->obj_optimal, 'g', 10));
        bad |= json_put(doc, "test_loss", json_num(r->test_loss, 'g', 10));
        bad |= json_put(doc, "test_accuracy", json_num(r->test_accuracy, 'g', 10));
        if (r->sel) {
            const dpt_sparse_erm_result *e = r->sel;
            json_t *sel = json_object(), *cand = json_array();
            int sbad = json_put(sel, "method", cli_json_text("random stopping (Liu & Talwar, STOC 2019, Thm 3.1)"));
            sbad |= json_put(sel, "random_stop", json_num(a->random_stop, 'g', 10));
            for (size_t k = 0; k < (a->nselect ? a->nselect : 1); k++)
                sbad |= json_array_append_new(cand, json_num(a->nselect ? a->select[k] : a->lambda, 'g', 10));
            sbad |= json_put(sel, "candidates", cand);
            sbad |= json_put(sel, "chosen_lambda", json_num(e->lambda, 'g', 10));
            sbad |= json_put(sel, "rounds", json_integer((json_int_t)e->rounds));
            sbad |= json_put(sel, "score_fraction", json_num(a->score_fraction, 'g', 10));
            sbad |= json_put(sel, "round_epsilon", json_upper(priv ? e->round_epsilon : NAN));
            sbad |= json_put(sel, "score_epsilon", json_upper(priv ? e->score_epsilon : NAN));
            sbad |= json_put(sel, "score", json_num(e->score, 'g', 10));
            sbad |= json_put(sel, "score_sensitivity", json_num(e->score_sensitivity, 'g', 10));
            if (sbad) {
                json_decref(sel);
                sel = NULL;
            }
            bad |= json_put(doc, "selection", sel);
        }
        bad |= json_put(doc, "data_use", data_use_json(&use));
        bad |= json_put(doc, "private", json_boolean(priv && !a->seed_given));
        bad |= json_put(doc, "accounting", cli_json_text(r->accounting));
        bad |= json_put(doc, "seconds", json_num(r->secs, 'g', 10));
        return json_report(doc, bad) ? CLI_EXIT_LIBRARY : 0;
    }
    printf("algorithm          %s (%s)\n", a->cmd, r->method);
    printf("examples           %zu train, %zu test, %zu features\n", train->n, test->n, train->d);
    printf("sparsity, norm     s = %zu, L = %.6g\n", r->s, r->L);
    printf("lambda             %.6g\n", r->lambda);
    printf("noise              %.6g   (%s)\n", r->noise, r->mechanism);
    printf("sensitivity        %.6g\n", r->sensitivity);
    if (priv)
        printf("epsilon (upper)    %s   at delta %s, certified\n", upper_text(r->epsilon, 0, ue),
               upper_text(r->delta, 0, ud));
    else printf("epsilon            not private\n");
    if (r->sel) {
        const dpt_sparse_erm_result *e = r->sel;
        char ur[CLI_NUMBER_SIZE];
        printf("selection          random stopping (Liu & Talwar, STOC 2019, Thm 3.1), gamma %g, %zu candidate%s: "
               "lambda %.6g chosen\n", a->random_stop, a->nselect ? a->nselect : 1, a->nselect == 1 || !a->nselect ? "" : "s",
               e->lambda);
        printf("rounds             %llu%s\n", (unsigned long long)e->rounds,
               priv ? "   (outside the guarantee: see the data use)" : "");
        if (priv)
            printf("round epsilon      %s = %.6g release + %.6g score (F = %g); total 3 x %.6g\n",
                   upper_text(e->round_epsilon, 0, ur), e->round_epsilon - e->score_epsilon, e->score_epsilon,
                   a->score_fraction, e->round_epsilon);
        printf("score              %.6g (%smean training loss), sensitivity %.6g\n", e->score, priv ? "noisy " : "",
               e->score_sensitivity);
    }
    if (r->have_steps) {
        printf("steps              %llu\n", (unsigned long long)r->steps);
        if (priv) printf("mu spent (GDP)     %.6g\n", r->mu_spent);
    } else {
        printf("solver gradient    %.3g\n", r->solver_gradient);
    }
    printf("objective          %.8g at the release, %.8g at the minimiser%s\n", r->obj_private, r->obj_optimal,
           r->have_steps && r->ref_lambda != r->lambda ? " (reference lambda 1e-6)" : "");
    printf("excess risk        %.6g\n", r->obj_private - r->obj_optimal);
    printf("test loss          %.6g\n", r->test_loss);
    printf("test accuracy      %.4f\n", r->test_accuracy);
    printf("accounting         %s\n", r->accounting);
    data_use_print_table(&use);
    printf("time               %.3f s\n", r->secs);
    return 0;
}

int sparse_opt_command(int argc, char **argv)
{
    sp_args a = { .cmd = argv[0], .sgd = strcmp(argv[0], "sparse-sgd") == 0, .test_fraction = 0.2, .epsilon = 1.0,
                  .delta = 1e-5, .seed = 1 };
    dpt_sparse_erm_options eo;
    dpt_sparse_sgd_options so;
    dpt_sparse_erm_defaults(&eo);
    dpt_sparse_sgd_defaults(&so);
    a.lambda = a.sgd ? so.lambda : eo.lambda;
    a.learning_rate = so.learning_rate;
    a.noise = so.noise;
    a.max_steps = so.max_steps;
    a.batch_size = so.batch_size;
    int st = parse_sp_args(argc, argv, &a);
    if (st < 0) return 0;
    if (st) return st;

    dpa_error err = { 0 };
    dpt_dataset all = { 0 }, train = { 0 }, test = { 0 };
    double *w = NULL, *wref = NULL;
    dpt_rng *rng = NULL;
    int rc = 0;
    if ((rc = cli_privacy_rng(a.seed_given, a.seed, &rng))) return rc;
    size_t gen_s = 0;
    double gen_norm = 0.0;
    if ((st = sp_load(&a, &all, &gen_s, &gen_norm, &err))) {
        if (a.synthetic) {
            cli_option_error("--synthetic", "sparse synthetic: ", &err);
            rc = st == DPA_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_LIBRARY;
            goto done;
        }
        goto fail;
    }
    if ((st = dpt_split(&all, a.test_fraction, a.seed, &train, &test, &err))) goto fail;
    dpt_dataset_free(&all);
    if (a.dense && a.sgd && a.batch_size > train.n) {
        rc = cli_usage_error("--batch-size: %llu is more than the %zu training examples", (unsigned long long)a.batch_size,
                         train.n);
        goto done;
    }
    /* s and L: given, or the generator's (public by construction); bounds
     * read off private data would leak it, so --data needs both unless the
     * run is not private anyway. */
    if (a.data && !a.non_private && (!a.sparsity || !(a.norm > 0.0))) {
        rc = cli_usage_error("--data needs --sparsity and --norm (bounds read off the data would not be private)");
        goto done;
    }
    /* s and L: given, or the generator's, or (non-private runs) the data's. */
    size_t ds_s;
    double ds_L;
    data_bounds(&train, &ds_s, &ds_L);
    size_t s = a.sparsity ? (size_t)a.sparsity : gen_s ? gen_s : ds_s;
    double L = a.norm > 0.0 ? a.norm : gen_norm > 0.0 ? gen_norm : ds_L;
    if (!(L > 0.0)) {
        rc = cli_usage_error("every training example is zero");
        goto done;
    }
    w = calloc(train.d, sizeof *w);
    wref = calloc(train.d, sizeof *wref);
    if (!w || !wref) {
        fprintf(stderr, "dptrain: out of memory\n");
        rc = CLI_EXIT_LIBRARY;
        goto done;
    }
    cli_progress start;
    cli_progress_start(&start, "steps");
    double end_ms = 0.0;
    sp_report r = { .s = s, .L = L, .lambda = a.lambda };
    dpt_sparse_erm_result er;
    dpt_sparse_sgd_result sr;
    char accounting[400];
    if (!a.sgd) {
        eo.lambda = a.lambda;
        eo.epsilon = a.epsilon;
        eo.delta = a.delta;
        eo.sparsity = s;
        eo.norm = L;
        eo.sensitivity_l1 = a.sensitivity_l1;
        eo.classical = a.classical;
        eo.project = !a.dense;
        eo.noise_off = a.non_private;
        if (!a.quiet && isatty(STDERR_FILENO)) {   /* as sparse-sgd: never into a log file */
            eo.progress = cli_progress_bar;
            eo.progress_ctx = &start;
        }
        eo.seed = a.seed;
        eo.rng = rng;
        if (a.random_stop > 0.0) {
            eo.random_stop = a.random_stop;
            eo.select_lambdas = a.nselect ? a.select : NULL;
            eo.select_count = a.nselect;
            if (a.score_fraction > 0.0) eo.score_fraction = a.score_fraction;
            a.score_fraction = eo.score_fraction;
            eo.progress = NULL;       /* the rounds' count is unknown */
            r.sel = &er;
        }
        if ((st = dpt_sparse_erm(&train, &eo, w, &er, &err))) goto fail;
        r.lambda = er.lambda;
        r.method = a.dense ? "dense output perturbation" : "output perturbation with l1 projection";
        r.mechanism = a.non_private ? "none" : a.delta > 0.0 ? (a.classical ? "classical gaussian" : "gaussian")
                                                              : "laplace";
        r.noise = er.noise_scale;
        r.sensitivity = er.sensitivity;
        r.epsilon = er.epsilon;
        r.delta = er.delta;
        r.solver_gradient = er.solver_gradient;
        r.obj_private = er.objective_private;
        r.obj_optimal = er.objective_optimal;
        snprintf(accounting, sizeof accounting, "%s", er.accounting);
    } else {
        so.learning_rate = a.learning_rate;
        so.epsilon = a.epsilon;
        so.delta = a.delta;
        so.noise = a.noise;
        so.lambda = a.lambda;
        so.sparsity = s;
        so.norm = L;
        so.radius = a.radius;
        so.max_steps = a.max_steps;
        so.dense = a.dense;
        so.batch_size = (size_t)a.batch_size;
        so.seed = a.seed;
        so.rng = rng;
        so.noise_off = a.non_private;
        if (!a.quiet && isatty(STDERR_FILENO)) {   /* as the other subcommands: never into a log file */
            so.progress = cli_progress_bar;
            so.progress_ctx = &start;
        }
        if ((st = dpt_sparse_sgd(&train, &so, w, &sr, &err))) goto fail;
        /* The reference: the non-private regularised minimiser (lambda
         * 1e-6 when the SGD is unregularised, so that it exists), its
         * objective taken at the SGD's own lambda. */
        dpt_sparse_erm_options ro;
        dpt_sparse_erm_defaults(&ro);
        ro.lambda = a.lambda > 0.0 ? a.lambda : 1e-6;
        ro.sparsity = s;
        ro.norm = L;
        ro.noise_off = 1;
        ro.project = 0;
        if ((st = dpt_sparse_erm(&train, &ro, wref, &er, &err))) goto fail;
        r.method = a.dense ? "dense minibatch DP-SGD" : "bias-reduced DP-SGD";
        r.mechanism = a.non_private ? "none" : "gaussian";
        r.ref_lambda = ro.lambda;
        r.noise = a.non_private ? 0.0 : a.noise;
        r.sensitivity = 2.0 * L;
        r.epsilon = sr.epsilon;
        r.delta = sr.delta;
        r.steps = sr.steps;
        r.have_steps = 1;
        r.mu_spent = sr.mu_spent;
        r.obj_private = dpt_logistic_objective(&train, w, a.lambda);
        r.obj_optimal = dpt_logistic_objective(&train, wref, a.lambda);
        snprintf(accounting, sizeof accounting, "%s", sr.accounting);
    }
    r.accounting = accounting;
    const dpt_dataset *eval = test.n ? &test : &train;
    r.test_loss = dpt_logistic_objective(eval, w, 0.0);
    r.test_accuracy = accuracy(eval, w);
    end_ms = cli_now_ms();
    r.secs = (end_ms - start.start_ms) / 1e3;
    rc = print_report(&a, &train, eval, &r);
    goto done;
fail:
    cli_library_error(&err);
    rc = st == DPA_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_LIBRARY;
done:
    dpt_rng_free(rng);
    free(w);
    free(wref);
    dpt_dataset_free(&all);
    dpt_dataset_free(&train);
    dpt_dataset_free(&test);
    return rc;
}
