/*
 * dptrain_cls.c - `dptrain sgd` and `dptrain ncgd`: DP-SGD and NoisyCGD on
 * the classification models of Koskela (arXiv 2024): softmax regression,
 * the gated-ReLU convex model, a one-hidden-layer ReLU network; with the
 * noise from libdpacct, and a report of the test accuracy and the
 * certified eps.
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

typedef struct {
    const char *data, *labels, *input_format, *target, *test_data, *test_labels;
    double test_fraction, feature_scale, validation_fraction;
    int standardize, json, progress, per_epoch, delta_auto, have_epsilon, have_delta, seed_given;
    double clip_rows;
    size_t classes;
    uint64_t max_bytes, max_batch, selected;   /* --max-batch, --selected (0: not given) */
    dpt_model_spec model;
    dpt_cls_options opt;
} cls_args;

static void cls_help(void)
{
    printf("Usage: dptrain sgd|ncgd --data FILE [--labels FILE] (--epsilon E | --noise-multiplier S) --delta D\n"
           "                        [OPTIONS]\n\n"
           "Classification with the models of Koskela, \"Approximating Two-Layer ReLU Networks\n"
           "for Hidden State Analysis in Differential Privacy\" (arXiv 2024), the noise from\n"
           "libdpacct:\n"
           "  sgd    DP-SGD: batches by --sampling (Poisson at q = B/n by default), per-example\n"
           "         clipping at C, noise sigma C on the sum divided by B; every step released\n"
           "         (the sampling's event composed: pld by default)\n"
           "  ncgd   NoisyCGD: floor(n/B) fixed batches in a fixed order, L2 regularisation lambda,\n"
           "         constant step, only the final model released (the hidden-state GDP bound of\n"
           "         Bok, Su & Altschuler, ICML 2024, Thm 4.5); the step must be below\n"
           "         2/(beta + lambda), beta the smoothness bound of one example's loss given by\n"
           "         --smoothness, which every row is scaled to meet\n"
           "\nData:\n"
           "  --data FILE            IDX images (with --labels; Fashion-MNIST from Debian's\n"
           "                         dataset-fashion-mnist), CSV (--target names the class column)\n"
           "                         or libsvm (--input-format); labels are classes 0..K-1\n"
           "  --labels FILE          IDX labels\n"
           "  --input-format FMT     idx (default with --labels), csv or libsvm\n"
           "  --target COL           CSV class column (default the last)\n"
           "  --test-data FILE --test-labels FILE   a separate test set (else --test-fraction)\n"
           "  --test-fraction X      held-out share when there is no test set (default 0.2)\n"
           "  --validation-fraction X   hold this share of the training rows out of training as a\n"
           "                         validation set (0 < X < 1), its accuracy reported for choosing\n"
           "                         hyperparameters; released without noise, so NOT covered by the\n"
           "                         guarantee (the report says so)\n"
           "  --feature-scale S      divide the features by S (default 1; IDX pixels are read as value/255)\n"
           "  --clip-rows R          scale each feature vector onto the l2 ball of radius R (a map of\n"
           "                         each record alone: no privacy cost)\n"
           "  --standardize          mean 0, std 1 from the training data: these statistics are NOT\n"
           "                         covered by the guarantee (the report says so); default off\n"
           "  --classes K            number of classes (at most 1000000; default: the largest label + 1,\n"
           "                         a statistic of the data that the report names as NOT covered)\n"
           "  --max-data-size SIZE   refuse data whose n x d doubles exceed SIZE bytes (K, M, G, T:\n"
           "                         powers of 1024; default 2G, at most 1024T), checked before allocating\n"
           "\nModel:\n"
           "  --model M              softmax (sgd's default), convex (ncgd's default) or relu\n"
           "  --hyperplanes P        gates of the convex model (default 64; at most 1000000)\n"
           "  --width W              hidden units of the ReLU network (default 200; at most 1000000)\n"
           "                         (and the model's parameters at most 2^31 - 1)\n"
           "  --model-seed S         gates and initial weights (default: --seed)\n"
           "\nPrivacy:\n"
           "  --epsilon E            target epsilon: calibrates sigma (or, with --match-epsilon, lambda)\n"
           "  --delta D|auto         target delta in (0, 1); auto = 1/n^1.1\n"
           "  --noise-multiplier S   sigma: the noise std is sigma C on the sum of clipped gradients\n"
           "  --relation R           sgd: replace-one (default) or add-remove\n"
           "  --accountant NAME      sgd's accountant (default: pld; batches for shuffle)\n"
           "  --sampling KIND        sgd's batches: poisson (default: each record with probability\n"
           "                         B/n), shuffle (each epoch shuffled afresh and cut into batches of\n"
           "                         exactly B: accounted with no amplification, Chua et al.'s lower\n"
           "                         bound beside it), balls-in-bins (each epoch each record in one of\n"
           "                         ceil(n/B) batches at random: Feldman & Shenfeld 2025's random\n"
           "                         allocation), truncated (Poisson with at most --max-batch) or\n"
           "                         allocation (each epoch each record in --selected K of ceil(K n/B)\n"
           "                         batches, a uniformly random K-subset; add-remove)\n"
           "  --max-batch M          truncated sampling: a batch above M cut to M at random\n"
           "  --selected K           allocation: the batches each record is in an epoch (1 to 1000000;\n"
           "                         accounted as K rounds of one of floor(t/K) steps)\n"
           "  --no-noise             train without noise (not private)\n"
           "\nTraining:\n"
           "  --epochs E             passes (default 1; at most 1000000, and epochs x training\n"
           "                         examples at most 1e10)\n"
           "  --batch-size B         expected (sgd) or exact (ncgd) batch (default 1000; at most the\n"
           "                         training examples)\n"
           "  --learning-rate ETA    step size (default 0.1)\n"
           "  --schedule S           sgd: constant (default), step (--decay, --decay-epochs) or cosine\n"
           "  --decay F --decay-epochs N   the step schedule (defaults 0.5, 10)\n"
           "  --clip C               per-example L2 clip (default 1)\n"
           "  --l2 LAMBDA            L2 regularisation (ncgd needs lambda > 0)\n"
           "  --eta-lambda X         lambda = X / eta (Koskela arXiv 2024 fixes the product)\n"
           "  --match-epsilon        ncgd: the smallest lambda whose eps meets --epsilon at the given\n"
           "                         --noise-multiplier (as Koskela arXiv 2024 matches DP-SGD's eps)\n"
           "  --smoothness BETA      ncgd: the bound beta on one example's smoothness; each row is scaled\n"
           "                         (alone, no privacy cost) so that its loss meets it; required for a\n"
           "                         private run (without noise: the data's own largest value)\n"
           "  --seed S               reproducible run: the split, the model and every privacy draw\n"
           "                         (batches, noise) from S; the run is then NOT private and says so.\n"
           "                         Without it the privacy draws come from the system's secure\n"
           "                         generator (the split and the model use seed 1)\n"
           "\nOutput:\n"
           "  --per-epoch            the eps and test accuracy after every epoch (each a separate release)\n"
           "  --format FMT           table (default) or json\n"
           "  --progress             progress bar on stderr even when it is not a terminal\n"
           "\nExit status: 0 success, 1 library failure, 2 bad usage or bad input.\n");
}

static int parse_cls_args(int argc, char **argv, cls_args *a)
{
    enum {
        O_DATA, O_LABELS, O_INFMT, O_TARGET, O_TDATA, O_TLABELS, O_TESTFR, O_SCALE, O_STD, O_CLASSES, O_MODEL,
        O_P, O_W, O_MSEED, O_EPS, O_DELTA, O_NM, O_REL, O_ACC, O_NONOISE, O_EPOCHS, O_BATCH, O_LR, O_SCHED, O_DECAY,
        O_DEPOCHS, O_CLIP, O_L2, O_ETAL, O_MATCH, O_SMOOTH, O_SEED, O_PEREPOCH, O_FORMAT, O_PROGRESS, O_MAXDATA,
        O_CLIPROWS, O_SAMPLING, O_MAXBATCH, O_SELECTED, O_VALFR, O_COUNT
    };
    /* the values are parsed below; the help text is written out in full above */
    static const cli_option options[O_COUNT] = {
        [O_DATA] = { "data", "X", NULL }, [O_LABELS] = { "labels", "X", NULL },
        [O_INFMT] = { "input-format", "X", NULL }, [O_TARGET] = { "target", "X", NULL },
        [O_TDATA] = { "test-data", "X", NULL }, [O_TLABELS] = { "test-labels", "X", NULL },
        [O_TESTFR] = { "test-fraction", "X", NULL }, [O_SCALE] = { "feature-scale", "X", NULL },
        [O_STD] = { "standardize", NULL, NULL }, [O_CLASSES] = { "classes", "X", NULL },
        [O_MODEL] = { "model", "X", NULL }, [O_P] = { "hyperplanes", "X", NULL }, [O_W] = { "width", "X", NULL },
        [O_MSEED] = { "model-seed", "X", NULL }, [O_EPS] = { "epsilon", "X", NULL },
        [O_DELTA] = { "delta", "X", NULL }, [O_NM] = { "noise-multiplier", "X", NULL },
        [O_REL] = { "relation", "X", NULL }, [O_ACC] = { "accountant", "X", NULL },
        [O_NONOISE] = { "no-noise", NULL, NULL }, [O_EPOCHS] = { "epochs", "X", NULL },
        [O_BATCH] = { "batch-size", "X", NULL }, [O_LR] = { "learning-rate", "X", NULL },
        [O_SCHED] = { "schedule", "X", NULL }, [O_DECAY] = { "decay", "X", NULL },
        [O_DEPOCHS] = { "decay-epochs", "X", NULL }, [O_CLIP] = { "clip", "X", NULL }, [O_L2] = { "l2", "X", NULL },
        [O_ETAL] = { "eta-lambda", "X", NULL }, [O_MATCH] = { "match-epsilon", NULL, NULL },
        [O_SMOOTH] = { "smoothness", "X", NULL }, [O_SEED] = { "seed", "X", NULL },
        [O_PEREPOCH] = { "per-epoch", NULL, NULL }, [O_FORMAT] = { "format", "X", NULL },
        [O_PROGRESS] = { "progress", NULL, NULL }, [O_MAXDATA] = { "max-data-size", "X", NULL },
        [O_CLIPROWS] = { "clip-rows", "X", NULL }, [O_SAMPLING] = { "sampling", "X", NULL },
        [O_MAXBATCH] = { "max-batch", "X", NULL }, [O_SELECTED] = { "selected", "X", NULL },
        [O_VALFR] = { "validation-fraction", "X", NULL },
    };
    char command[64];
    snprintf(command, sizeof command, "dptrain %s", argv[0]);  /* argv[0]: the subcommand */
    cli_parser p;
    cli_parser_init(&p, options, O_COUNT, command, 0);
    const char *value;
    int c, st = 0, have_mseed = 0;
    uint64_t u;
    while ((c = cli_next_option(&p, argc, argv, &value)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_ERROR: return CLI_EXIT_USAGE;
        case CLI_OPT_HELP: cls_help(); return -1;
        case O_DATA: a->data = value; break;
        case O_LABELS: a->labels = value; break;
        case O_INFMT: st = parse_input_format(value, &a->input_format); break;
        case O_TARGET: a->target = value; break;
        case O_TDATA: a->test_data = value; break;
        case O_TLABELS: a->test_labels = value; break;
        case O_TESTFR: st = cli_parse_real("test-fraction", value, 0.0, 0, 1.0, 1, &a->test_fraction); break;
        case O_VALFR:
            st = cli_parse_real("validation-fraction", value, 0.0, 1, 1.0, 1, &a->validation_fraction);
            break;
        case O_SCALE: st = cli_parse_real("feature-scale", value, 0.0, 1, INFINITY, 1, &a->feature_scale); break;
        case O_STD: a->standardize = 1; break;
        case O_CLASSES: st = cli_parse_count("classes", value, 2, CLI_MAX_UNITS, &u); a->classes = (size_t)u; break;
        case O_MODEL:
            if (strcmp(value, "softmax") == 0) a->model.kind = DPT_MODEL_SOFTMAX;
            else if (strcmp(value, "convex") == 0) a->model.kind = DPT_MODEL_CONVEX;
            else if (strcmp(value, "relu") == 0) a->model.kind = DPT_MODEL_RELU;
            else return cli_bad_value("model", "softmax, convex or relu", value);
            break;
        case O_P: st = cli_parse_count("hyperplanes", value, 1, CLI_MAX_UNITS, &u); a->model.hyperplanes = (size_t)u; break;
        case O_W: st = cli_parse_count("width", value, 1, CLI_MAX_UNITS, &u); a->model.width = (size_t)u; break;
        case O_MSEED: st = parse_seed("model-seed", value, &a->model.seed); have_mseed = 1; break;
        case O_EPS: st = cli_parse_real("epsilon", value, 0.0, 1, INFINITY, 1, &a->opt.epsilon); a->have_epsilon = 1; break;
        case O_DELTA:
            a->have_delta = 1;
            if (strcmp(value, "auto") == 0) a->delta_auto = 1;
            else st = cli_parse_real("delta", value, 0.0, 1, 1.0, 1, &a->opt.delta);
            break;
        case O_NM: st = cli_parse_real("noise-multiplier", value, 0.0, 1, INFINITY, 1, &a->opt.noise_multiplier); break;
        case O_REL:
            if (strcmp(value, "replace-one") == 0) a->opt.relation = DPA_REPLACE_ONE;
            else if (strcmp(value, "add-remove") == 0) a->opt.relation = DPA_ADD_REMOVE;
            else return cli_bad_value("relation", "replace-one or add-remove", value);
            break;
        case O_ACC: st = parse_accountant(value, &a->opt.accountant); break;
        case O_SAMPLING: st = parse_sampling(value, &a->opt.sampling); break;
        case O_MAXBATCH: st = cli_parse_count("max-batch", value, 1, CLI_MAX_ROWS, &a->max_batch); break;
        case O_SELECTED: st = cli_parse_count("selected", value, 1, CLI_MAX_UNITS, &a->selected); break;
        case O_NONOISE: a->opt.noise_off = 1; break;
        case O_EPOCHS: st = cli_parse_count("epochs", value, 1, CLI_MAX_EPOCHS, &a->opt.epochs); break;
        case O_BATCH: st = cli_parse_count("batch-size", value, 1, CLI_MAX_ROWS, &u); a->opt.batch_size = (size_t)u; break;
        case O_LR: st = cli_parse_real("learning-rate", value, 0.0, 1, INFINITY, 1, &a->opt.learning_rate); break;
        case O_SCHED:
            if (strcmp(value, "constant") == 0) a->opt.schedule = DPT_SCHEDULE_CONSTANT;
            else if (strcmp(value, "step") == 0) a->opt.schedule = DPT_SCHEDULE_STEP;
            else if (strcmp(value, "cosine") == 0) a->opt.schedule = DPT_SCHEDULE_COSINE;
            else return cli_bad_value("schedule", "constant, step or cosine", value);
            break;
        case O_DECAY: st = cli_parse_real("decay", value, 0.0, 1, 1.0, 0, &a->opt.decay); break;
        case O_DEPOCHS: st = cli_parse_real("decay-epochs", value, 0.0, 1, INFINITY, 1, &a->opt.decay_epochs); break;
        case O_CLIP: st = cli_parse_real("clip", value, 0.0, 1, INFINITY, 1, &a->opt.clip); break;
        case O_L2: st = cli_parse_real("l2", value, 0.0, 0, INFINITY, 1, &a->opt.l2); break;
        case O_ETAL: st = cli_parse_real("eta-lambda", value, 0.0, 1, 1.0, 1, &a->opt.eta_lambda); break;
        case O_MATCH: a->opt.match_epsilon = 1; break;
        case O_SMOOTH: st = cli_parse_real("smoothness", value, 0.0, 1, INFINITY, 1, &a->opt.smoothness); break;
        case O_SEED: st = parse_seed("seed", value, &a->opt.seed); a->seed_given = 1; break;
        case O_CLIPROWS: st = cli_parse_real("clip-rows", value, 0.0, 1, INFINITY, 1, &a->clip_rows); break;
        case O_MAXDATA: st = parse_data_size(value, &a->max_bytes); break;
        case O_PEREPOCH: a->per_epoch = 1; break;
        case O_FORMAT: st = parse_report_format(value, &a->json); break;
        case O_PROGRESS: a->progress = 1; break;
        }
        if (st) return st;
    }
    if (!have_mseed) a->model.seed = a->opt.seed;
    return sampling_param(a->opt.sampling, a->max_batch, a->selected, &a->opt.max_batch);
}

/* The per-epoch curve: epoch, eps and the test accuracy, kept for the report. */
typedef struct {
    const dpt_dataset *test;
    size_t count;
    double *eps, *accuracy;      /* one per epoch */
} curve;

static void on_epoch(void *ctx, const dpt_model *m, uint64_t epoch, double eps)
{
    curve *cv = ctx;
    double loss;
    dpt_model_evaluate(m, cv->test, &loss, &cv->accuracy[epoch - 1]);
    cv->eps[epoch - 1] = eps;
    cv->count = (size_t)epoch;
}

static void scale_features(dpt_dataset *ds, double s)
{
    if (s == 1.0 || !ds->x) return;
    for (size_t i = 0; i < ds->n * ds->d; i++) ds->x[i] /= s;
}

static int print_report(const cls_args *a, const char *cmd, const dpt_dataset *train, const dpt_dataset *test,
                         const dpt_dataset *val, const dpt_model *model, const dpt_cls_result *res, const curve *cv,
                         double secs, cli_data_use *use)
{
    char ue[CLI_NUMBER_SIZE], ud[CLI_NUMBER_SIZE]; /* upper_text of epsilon and delta */
    double test_loss, test_acc, train_loss, train_acc, val_loss = NAN, val_acc = NAN;
    dpt_model_evaluate(model, test, &test_loss, &test_acc);
    dpt_model_evaluate(model, train, &train_loss, &train_acc);
    if (val->n) dpt_model_evaluate(model, val, &val_loss, &val_acc);
    static const char *names[] = { "softmax", "convex", "relu" };
    const char *mname = names[a->model.kind];
    int priv = isfinite(res->epsilon);
    int seeded = dpt_rng_is_seeded(a->opt.rng);
    data_use_common(use, train->n, test != train ? test->n : 0, priv, seeded, NULL,
                    test != train ? "loss and accuracy" : "loss and accuracy (also reported as the test metrics: "
                                                         "there is no test set)");
    char accounting[640];
    data_use_accounting(use, res->accounting, accounting, sizeof accounting);
    if (a->json) {
        json_t *doc = json_object();
        int bad = json_put(doc, "algorithm", cli_json_text(cmd));
        bad |= json_put(doc, "model", cli_json_text(mname));
        bad |= json_put(doc, "parameters", json_integer((json_int_t)dpt_model_size(model)));
        bad |= json_put(doc, "train_examples", json_integer((json_int_t)train->n));
        bad |= json_put(doc, "test_examples", json_integer((json_int_t)test->n));
        bad |= json_put(doc, "features", json_integer((json_int_t)train->d));
        bad |= json_put(doc, "classes", json_integer((json_int_t)a->model.classes));
        bad |= json_put(doc, "steps", json_integer((json_int_t)res->steps));
        bad |= json_put(doc, "test_accuracy", json_num(test_acc, 'f', 6));
        bad |= json_put(doc, "test_loss", json_num(test_loss, 'g', 8));
        bad |= json_put(doc, "train_accuracy", json_num(train_acc, 'f', 6));
        if (val->n) {
            bad |= json_put(doc, "validation_examples", json_integer((json_int_t)val->n));
            bad |= json_put(doc, "validation_accuracy", json_num(val_acc, 'f', 6));
        }
        bad |= json_put(doc, "epsilon", priv ? json_upper(res->epsilon) : json_null());
        bad |= json_put(doc, "delta", priv ? json_upper(a->opt.delta) : json_null());
        bad |= json_put(doc, "noise_multiplier", json_num(res->noise_multiplier, 'g', 10));
        bad |= json_put(doc, "l2", json_num(res->l2, 'g', 10));
        if (res->mu > 0.0) {
            bad |= json_put(doc, "mu", json_num(res->mu, 'g', 10));
            bad |= json_put(doc, "smoothness", json_num(res->smoothness, 'g', 10));
        }
        if (cv->count) {
            json_t *epochs = json_array();
            for (size_t e = 0; e < cv->count; e++)
                bad |= json_array_append_new(epochs, json_pack("{s:I, s:o, s:o}", "epoch", (json_int_t)(e + 1),
                                                               "epsilon", json_upper(cv->eps[e]), "test_accuracy",
                                                               json_num(cv->accuracy[e], 'f', 6)));
            bad |= json_put(doc, "per_epoch", epochs);
        }
        bad |= json_put(doc, "data_use", data_use_json(use));
        bad |= json_put(doc, "private", json_boolean(priv && !seeded && !use->uncovered));
        bad |= json_put(doc, "accounting", cli_json_text(accounting));
        bad |= json_put(doc, "seconds", json_num(secs, 'f', 4));
        return json_report(doc, bad) ? CLI_EXIT_LIBRARY : 0;
    }
    printf("algorithm          %s (%s model, %zu parameters)\n", cmd, mname, dpt_model_size(model));
    printf("examples           %zu train, %zu test, %zu features, %zu classes\n", train->n, test->n, train->d,
           a->model.classes);
    printf("steps              %llu\n", (unsigned long long)res->steps);
    printf("test accuracy      %.4f   (loss %.5g)\n", test_acc, test_loss);
    printf("train accuracy     %.4f\n", train_acc);
    if (val->n) printf("validation acc.    %.4f   (on the %zu rows held out of training)\n", val_acc, val->n);
    if (priv)
        printf("epsilon (upper)    %s   at delta %s, certified\n", upper_text(res->epsilon, 0, ue),
               upper_text(a->opt.delta, 0, ud));
    else printf("epsilon            not private\n");
    if (res->noise_multiplier > 0.0) printf("noise multiplier   %.6g\n", res->noise_multiplier);
    if (res->l2 > 0.0) printf("lambda             %.6g   (eta lambda %.3g)\n", res->l2, res->l2 * a->opt.learning_rate);
    if (res->mu > 0.0) printf("mu (GDP)           %.6g   (beta + lambda %.6g)\n", res->mu, res->smoothness);
    if (res->unused) printf("unused examples    %zu   (not in any of the fixed batches)\n", res->unused);
    for (size_t e = 0; e < cv->count; e++)
        printf("epoch %-5zu        eps %.5g, test accuracy %.4f\n", e + 1, cv->eps[e], cv->accuracy[e]);
    printf("accounting         %s\n", accounting);
    data_use_print_table(use);
    printf("time               %.3f s\n", secs);
    return 0;
}

int cls_command(int argc, char **argv)
{
    const char *cmd = argv[0];
    int ncgd = strcmp(cmd, "ncgd") == 0;
    cls_args a = { .test_fraction = 0.2 };
    dpt_cls_defaults(&a.opt);
    a.opt.algorithm = ncgd ? DPT_CLS_NOISY_CGD : DPT_CLS_DP_SGD;
    a.model.kind = ncgd ? DPT_MODEL_CONVEX : DPT_MODEL_SOFTMAX;
    a.model.hyperplanes = 64;
    a.model.width = 200;
    int st = parse_cls_args(argc, argv, &a);
    if (st < 0) return 0;
    if (st) return st;
    if (!a.data) return cli_usage_error("--data: required (see 'dptrain %s --help')", cmd);
    int idx = a.input_format ? strcmp(a.input_format, "idx") == 0 : a.labels != NULL;
    if (a.test_labels && !a.test_data) return cli_usage_error("--test-labels needs --test-data");
    if (idx && a.test_data && !a.test_labels) return cli_usage_error("--test-data: IDX images need --test-labels");
    if (!a.opt.noise_off) {
        if (!a.have_delta) return cli_usage_error("--delta: required (a number or auto)");
        if (!a.have_epsilon && !(a.opt.noise_multiplier > 0.0))
            return cli_usage_error("--epsilon: required (or --noise-multiplier)");
        if (a.opt.match_epsilon && (!a.have_epsilon || !(a.opt.noise_multiplier > 0.0)))
            return cli_usage_error("--match-epsilon: needs --epsilon and --noise-multiplier");
    }

    if (ncgd && !a.opt.noise_off && !(a.opt.smoothness > 0.0))
        return cli_usage_error("--smoothness: required for a private ncgd run (the bound on one example's smoothness; "
                           "each row is scaled to meet it; the data's own value would be a statistic of the "
                           "private rows outside the guarantee)");

    dpa_error err = { 0 };
    dpt_dataset train = { 0 }, test = { 0 }, val = { 0 }, rest = { 0 };
    dpt_model *model = NULL;
    dpt_rng *rng = NULL;
    cli_data_use use = { 0 };
    data_use_loader(&use, a.input_format);
    int rc = 0;
    if ((rc = cli_privacy_rng(a.seed_given, a.opt.seed, &rng))) return rc;
    a.opt.rng = rng;
    if ((st = load_train_test(a.data, a.labels, a.test_data, a.test_labels, a.input_format, a.target, a.max_bytes,
                              a.test_fraction, a.opt.seed, &train, &test, &err)))
        goto fail;
    if (a.validation_fraction > 0.0 && a.standardize) {
        rc = cli_usage_error("--validation-fraction: not with --standardize (one test set is standardised "
                             "with the training statistics; use --clip-rows or --feature-scale)");
        goto done;
    }
    if (a.validation_fraction > 0.0) {
        /* held out before anything is computed from the training rows, so
         * that the model never sees them */
        if ((st = dpt_split(&train, a.validation_fraction, a.opt.seed + 3, &rest, &val, &err))) goto fail;
        dpt_dataset_free(&train);
        train = rest;
        rest = (dpt_dataset){ 0 };
        if (val.n == 0 || train.n == 0) {
            rc = cli_usage_error("--validation-fraction %g leaves %zu training and %zu validation rows",
                                 a.validation_fraction, train.n, val.n);
            goto done;
        }
        data_use_add(&use, USE_UNCOVERED, "%zu training rows held out as a validation set (--validation-fraction "
                     "%g): not trained on, their accuracy released without noise", val.n, a.validation_fraction);
    }
    if ((rc = check_work(a.opt.epochs, train.n, a.selected ? a.selected : 1))) goto done;
    double scale = a.feature_scale > 0.0 ? a.feature_scale : 1.0;
    scale_features(&train, scale);
    scale_features(&test, scale);
    scale_features(&val, scale);
    if (a.clip_rows > 0.0) {
        dpt_clip_rows(&train, a.clip_rows);
        dpt_clip_rows(&test, a.clip_rows);
        if (val.n) dpt_clip_rows(&val, a.clip_rows);
    }
    if (a.standardize) {
        dpt_standardize(&train, test.n ? &test : NULL);
        data_use_add(&use, USE_UNCOVERED, "feature statistics computed from the training data (--standardize: "
                     "per-feature mean and standard deviation)");
    }
    double top = 0.0;   /* the classes seen in either set (a bad label is refused by the model) */
    for (size_t i = 0; i < train.n; i++) top = fmax(top, train.y[i]);
    for (size_t i = 0; i < test.n; i++) top = fmax(top, test.y[i]);
    /* a label beyond any class count allowed is no class (and would not fit
     * the conversion) */
    if (!a.classes && !(top < (double)CLI_MAX_UNITS)) {
        rc = cli_usage_error("the largest label %g is not a class 0..%llu (see --classes)", top,
                         (unsigned long long)CLI_MAX_UNITS - 1);
        goto done;
    }
    a.model.classes = a.classes ? a.classes : (size_t)top + 1;
    if (!a.classes)
        data_use_add(&use, USE_UNCOVERED, "the number of classes, %zu, from the largest label (--classes K fixes it)",
                     a.model.classes);
    if (a.model.classes < 2) a.model.classes = 2;
    if (a.delta_auto) a.opt.delta = pow((double)train.n, -1.1);
    if ((st = dpt_model_new(&a.model, train.d, &model, &err))) goto fail;
    if (ncgd && a.opt.smoothness > 0.0) {
        /* every row scaled (alone) to meet the smoothness bound, so the
         * bound holds whatever the data */
        if ((st = dpt_model_bound_smoothness(model, &train, a.opt.smoothness, &err))) goto fail;
        if (test.n && (st = dpt_model_bound_smoothness(model, &test, a.opt.smoothness, &err))) goto fail;
        if (val.n && (st = dpt_model_bound_smoothness(model, &val, a.opt.smoothness, &err))) goto fail;
    }
    double probe_loss, probe_acc;       /* the test labels are classes of the model */
    if (test.n) {
        dpt_model_evaluate(model, &test, &probe_loss, &probe_acc);
        if (isnan(probe_acc)) {
            rc = cli_usage_error("the test data has a label that is not a class 0..%zu", a.model.classes - 1);
            goto done;
        }
    }

    curve *cv = calloc(1, sizeof *cv);
    if (cv && a.per_epoch) {
        cv->eps = calloc(a.opt.epochs, sizeof *cv->eps);
        cv->accuracy = calloc(a.opt.epochs, sizeof *cv->accuracy);
    }
    if (!cv || (a.per_epoch && (!cv->eps || !cv->accuracy))) {
        if (cv) {
            free(cv->eps);
            free(cv->accuracy);
        }
        free(cv);
        fprintf(stderr, "dptrain: out of memory\n");
        rc = CLI_EXIT_LIBRARY;
        goto done;
    }
    cv->test = test.n ? &test : &train;   /* as the report: the training data when there is no test set */
    if (a.per_epoch) {
        a.opt.epoch_done = on_epoch;
        a.opt.epoch_ctx = cv;
    }
    cli_progress start;
    cli_progress_start(&start, "steps");
    double end_ms = 0.0;
    if (a.progress || isatty(STDERR_FILENO)) {
        a.opt.progress = cli_progress_bar;
        a.opt.progress_ctx = &start;
    }
    dpt_cls_result res;
    st = dpt_cls_train(&train, model, &a.opt, &res, &err);
    end_ms = cli_now_ms();
    if (!st) {
        double secs = (end_ms - start.start_ms) / 1e3;
        rc = print_report(&a, cmd, &train, test.n ? &test : &train, &val, model, &res, cv, secs, &use);
    }
    free(cv->eps);
    free(cv->accuracy);
    free(cv);
    if (st) goto fail;
    goto done;
fail:
    cli_library_error(&err);
    rc = st == DPA_ENOMEM ? CLI_EXIT_LIBRARY : st == DPA_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_LIBRARY;
done:
    dpt_rng_free(rng);
    dpt_model_free(model);
    dpt_dataset_free(&train);
    dpt_dataset_free(&test);
    dpt_dataset_free(&val);
    dpt_dataset_free(&rest);
    return rc;
}
