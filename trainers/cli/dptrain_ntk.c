/*
 * dptrain_ntk.c - `dptrain ntk`: private NTK regression (Gu, Liang, Sha,
 * Shi & Song, WACV 2025; Alg. 2 as reconstructed in ../shared/notes/ntk-sparse-seeds-002-004.md 1.7) on IDX,
 * CSV or libsvm data, with class-balanced seeded subsets as in the paper's
 * experiment (note 1.9: "N images for training and N for testing for each
 * class"), and a report of the privacy parameters (k, k_max, the paper's
 * threshold, M, S_H, ||Wbar||, A) and the accuracies.
 *
 * Exit status: 0 success, 1 library failure, 2 bad usage or bad input
 * (including the library's DPA_EINVAL, e.g. a budget no k >= 1 meets).
 */
#include <config.h>

#include "dptrain_cli.h"

#include <getopt.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *data, *labels, *input_format, *target, *test_data, *test_labels;
    double test_fraction;
    uint64_t train_per_class, test_per_class;
    double epsilon, delta;
    int have_epsilon, have_delta, have_eps_gsm, have_delta_gsm, have_eps_f, have_delta_f;
    int json, quiet, seed_given;
    uint64_t max_bytes;
    dpt_ntk_options opt;
} ntk_args;

static void ntk_help(void)
{
    printf("Usage: dptrain ntk --data FILE [--labels FILE] [OPTIONS]\n\n"
           "Private NTK regression (Gu, Liang, Sha, Shi & Song, \"Differential Privacy Mechanisms\n"
           "in Neural Tangent Kernel Regression\", WACV 2025): kernel ridge regression with the\n"
           "quadratic NTK K(x,z) = (1/m) sum_r <w_r,x><w_r,z><x,z> of m\n"
           "public Gaussian neurons, one-hot labels, prediction argmax_c K(x,X)^T alpha.\n"
           "Private version: alpha~ = Ktilde^+ Y with Ktilde the Gaussian Sampling Mechanism's\n"
           "(1/k) sum g_i g_i^T, g_i ~ N(0, K + lambda I), and the training rows released with\n"
           "truncated Laplace noise; k is the largest the exact RDP of the GSM allows.\n"
           "Neighbouring data sets: one row (after the projection and the scaling to norm B)\n"
           "moves by at most beta in l2; the labels are public.\n"
           "\nData:\n"
           "  --data FILE              IDX images (with --labels; e.g. Fashion-MNIST from Debian's\n"
           "                           dataset-fashion-mnist, pixels read as value/255), CSV\n"
           "                           (--target names the class column) or libsvm\n"
           "  --labels FILE            IDX labels\n"
           "  --input-format FMT       idx (default with --labels), csv or libsvm\n"
           "  --target COL             CSV class column (default the last)\n"
           "  --test-data FILE --test-labels FILE   a separate test set (else --test-fraction)\n"
           "  --test-fraction X        held-out share without a test set (default 0.2)\n"
           "  --train-per-class N      a seeded class-balanced subset: N training rows per class\n"
           "  --test-per-class N       the same for the test set\n"
           "                           (labels are classes 0..C-1, C >= 2; N at most 1e9)\n"
           "  --max-data-size SIZE     refuse data whose n x d doubles exceed SIZE bytes (K, M, G, T:\n"
           "                           powers of 1024; default 2G, at most 1024T), checked before allocating\n"
           "\nModel:\n"
           "  --width M                neurons m (default 256; at most 1000000)\n"
           "  --weight-std S           std of the neuron weights (default 1)\n"
           "  --ridge LAMBDA           ridge lambda > 0 (default 1)\n"
           "  --row-norm B             every row scaled to norm B (default 1)\n"
           "  --project P              a public seeded Gaussian projection to P dimensions before\n"
           "                           the scaling (default: none; at most 1000000)\n"
           "\nPrivacy:\n"
           "  --beta BETA              adjacency radius, 0 < beta <= 2B (default 1e-5)\n"
           "  --epsilon E              total epsilon, split evenly between the GSM and the\n"
           "                           features (default 2)\n"
           "  --delta D                total delta in (0, 1), split evenly (default 1e-5)\n"
           "  --epsilon-gsm E --delta-gsm D             the GSM's share (override the split)\n"
           "  --epsilon-features E --delta-features D   the feature noise's share\n"
           "                           (delta-features at most 0.5)\n"
           "  --samples K              GSM samples k (default: the largest admissible, k_max; at most 2^53)\n"
           "  --non-private            the exact (non-private) kernel ridge regression\n"
           "  --no-feature-noise       ablation: the GSM only, rows released as they are\n"
           "                           (NOT private)\n"
           "  --seed S                 reproducible run: the split, subsets, neurons, projection and every\n"
           "                           privacy draw (GSM, feature noise) from S; the run is then NOT\n"
           "                           private and says so. Without it the noise comes from the system's\n"
           "                           secure generator (the rest uses seed 1)\n"
           "\nOutput:\n"
           "  --json                   a JSON object instead of the table\n"
           "  --quiet                  no progress bar on stderr\n"
           "  --help, --version\n"
           "\nExit status: 0 success, 1 library failure, 2 bad usage or bad input.\n");
}

static int parse_ntk_args(int argc, char **argv, ntk_args *a)
{
    enum {
        O_DATA, O_LABELS, O_INFMT, O_TARGET, O_TDATA, O_TLABELS, O_TESTFR, O_TRAINPC, O_TESTPC, O_WIDTH,
        O_WSTD, O_RIDGE, O_ROWNORM, O_PROJECT, O_BETA, O_EPS, O_DELTA, O_EPSG, O_DELTAG, O_EPSF, O_DELTAF, O_SAMPLES,
        O_NONPRIV, O_NOFEAT, O_SEED, O_JSON, O_QUIET, O_VERSION, O_MAXDATA, O_COUNT
    };
    /* the values are parsed below; the help text is written out in full above */
    static const cli_option options[O_COUNT] = {
        [O_DATA] = { "data", "X", NULL }, [O_LABELS] = { "labels", "X", NULL },
        [O_INFMT] = { "input-format", "X", NULL }, [O_TARGET] = { "target", "X", NULL },
        [O_TDATA] = { "test-data", "X", NULL }, [O_TLABELS] = { "test-labels", "X", NULL },
        [O_TESTFR] = { "test-fraction", "X", NULL }, [O_TRAINPC] = { "train-per-class", "X", NULL },
        [O_TESTPC] = { "test-per-class", "X", NULL }, [O_WIDTH] = { "width", "X", NULL },
        [O_WSTD] = { "weight-std", "X", NULL }, [O_RIDGE] = { "ridge", "X", NULL },
        [O_ROWNORM] = { "row-norm", "X", NULL }, [O_PROJECT] = { "project", "X", NULL },
        [O_BETA] = { "beta", "X", NULL }, [O_EPS] = { "epsilon", "X", NULL }, [O_DELTA] = { "delta", "X", NULL },
        [O_EPSG] = { "epsilon-gsm", "X", NULL }, [O_DELTAG] = { "delta-gsm", "X", NULL },
        [O_EPSF] = { "epsilon-features", "X", NULL }, [O_DELTAF] = { "delta-features", "X", NULL },
        [O_SAMPLES] = { "samples", "X", NULL }, [O_NONPRIV] = { "non-private", NULL, NULL },
        [O_NOFEAT] = { "no-feature-noise", NULL, NULL }, [O_SEED] = { "seed", "X", NULL },
        [O_JSON] = { "json", NULL, NULL }, [O_QUIET] = { "quiet", NULL, NULL },
        [O_VERSION] = { "version", NULL, NULL }, [O_MAXDATA] = { "max-data-size", "X", NULL },
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
        case CLI_OPT_HELP: ntk_help(); return -1;
        case O_VERSION: print_version(); return -1;
        case O_DATA: a->data = value; break;
        case O_LABELS: a->labels = value; break;
        case O_INFMT: st = parse_input_format(value, &a->input_format); break;
        case O_TARGET: a->target = value; break;
        case O_TDATA: a->test_data = value; break;
        case O_TLABELS: a->test_labels = value; break;
        case O_TESTFR: st = cli_parse_real("test-fraction", value, 0.0, 1, 1.0, 1, &a->test_fraction); break;
        case O_TRAINPC: st = cli_parse_count("train-per-class", value, 1, CLI_MAX_ROWS, &a->train_per_class); break;
        case O_TESTPC: st = cli_parse_count("test-per-class", value, 1, CLI_MAX_ROWS, &a->test_per_class); break;
        case O_WIDTH:
            st = cli_parse_count("width", value, 1, CLI_MAX_UNITS, &u);
            a->opt.width = (size_t)u;
            break;
        case O_WSTD: st = cli_parse_real("weight-std", value, 0.0, 1, INFINITY, 1, &a->opt.weight_std); break;
        case O_RIDGE: st = cli_parse_real("ridge", value, 0.0, 1, INFINITY, 1, &a->opt.ridge); break;
        case O_ROWNORM: st = cli_parse_real("row-norm", value, 0.0, 1, INFINITY, 1, &a->opt.row_norm); break;
        case O_PROJECT:
            st = cli_parse_count("project", value, 1, CLI_MAX_UNITS, &u);
            a->opt.project = (size_t)u;
            break;
        case O_BETA: st = cli_parse_real("beta", value, 0.0, 1, INFINITY, 1, &a->opt.beta); break;
        case O_EPS: st = cli_parse_real("epsilon", value, 0.0, 1, INFINITY, 1, &a->epsilon); a->have_epsilon = 1; break;
        case O_DELTA: st = cli_parse_real("delta", value, 0.0, 1, 1.0, 1, &a->delta); a->have_delta = 1; break;
        case O_EPSG:
            st = cli_parse_real("epsilon-gsm", value, 0.0, 1, INFINITY, 1, &a->opt.epsilon_gsm);
            a->have_eps_gsm = 1;
            break;
        case O_DELTAG:
            st = cli_parse_real("delta-gsm", value, 0.0, 1, 1.0, 1, &a->opt.delta_gsm);
            a->have_delta_gsm = 1;
            break;
        case O_EPSF:
            st = cli_parse_real("epsilon-features", value, 0.0, 1, INFINITY, 1, &a->opt.epsilon_features);
            a->have_eps_f = 1;
            break;
        case O_DELTAF:
            st = cli_parse_real("delta-features", value, 0.0, 1, 0.5, 0, &a->opt.delta_features);
            a->have_delta_f = 1;
            break;
        case O_SAMPLES:
            st = cli_parse_count("samples", value, 1, UINT64_C(1) << 53, &a->opt.samples);
            break;
        case O_NONPRIV: a->opt.private_ = 0; break;
        case O_NOFEAT: a->opt.features_noise_off = 1; break;
        case O_SEED: st = parse_seed("seed", value, &a->opt.seed); a->seed_given = 1; break;
        case O_MAXDATA: st = parse_data_size(value, &a->max_bytes); break;
        case O_JSON: a->json = 1; break;
        case O_QUIET: a->quiet = 1; break;
        }
        if (st) return st;
    }
    /* --epsilon and --delta are totals split evenly between the two
     * mechanisms (basic composition, note 1.7); an explicit share wins. */
    if (a->have_epsilon) {
        if (!a->have_eps_gsm) a->opt.epsilon_gsm = a->epsilon / 2.0;
        if (!a->have_eps_f) a->opt.epsilon_features = a->epsilon / 2.0;
    }
    if (a->have_delta) {
        if (!a->have_delta_gsm) a->opt.delta_gsm = a->delta / 2.0;
        if (!a->have_delta_f) a->opt.delta_features = a->delta / 2.0;
    }
    if (a->opt.beta > 2.0 * a->opt.row_norm)
        return cli_usage_error("--beta: %g is above 2B = %g (rows of norm B are never further apart)", a->opt.beta,
                           2.0 * a->opt.row_norm);
    return 0;
}

/* A seeded class-balanced subset of `ds`: `per` rows of every class 0..C-1
 * (C = the largest label + 1), in a random order; a usage error when a label
 * is not a class or a class has fewer rows. */
static int balanced_subset(dpt_dataset *ds, uint64_t per, unsigned long seed, const char *what)
{
    size_t n = ds->n, d = ds->d, C = 0;
    for (size_t i = 0; i < n; i++) {
        double y = ds->y[i];
        if (!(y >= 0.0) || y != floor(y) || y > 1e6)
            return cli_usage_error("%s: row %zu has label %g, expected a class 0..C-1", what, i + 1, y);
        if ((size_t)y + 1 > C) C = (size_t)y + 1;
    }
    if (per > n) return cli_usage_error("--%s-per-class: %llu is above the %zu rows of the data", what,
                                    (unsigned long long)per, n);
    size_t *order = malloc(n * sizeof *order), *count = calloc(C, sizeof *count);
    dpa_error err = { 0 };
    gsl_rng *r = NULL;
    dpt_dataset sub = { 0 };
    int rc = 0;
    if (!order || !count) {
        fprintf(stderr, "dptrain: out of memory\n");
        rc = CLI_EXIT_LIBRARY;
        goto done;
    }
    if (!(r = gsl_rng_alloc(gsl_rng_mt19937))) {
        fprintf(stderr, "dptrain: out of memory\n");
        rc = CLI_EXIT_LIBRARY;
        goto done;
    }
    gsl_rng_set(r, seed);
    for (size_t i = 0; i < n; i++) order[i] = i;
    gsl_ran_shuffle(r, order, n, sizeof *order);
    for (size_t i = 0; i < n; i++) count[(size_t)ds->y[i]]++;
    for (size_t c = 0; c < C; c++)
        if (count[c] < per) {
            rc = cli_usage_error("--%s-per-class: class %zu has only %zu rows, %llu asked", what, c, count[c],
                             (unsigned long long)per);
            goto done;
        }
    /* C per <= n rows (every class has per of them), so no overflow */
    if (dpt_dataset_alloc(&sub, C * per, d, &err)) {
        cli_library_error(&err);
        rc = CLI_EXIT_LIBRARY;
        goto done;
    }
    memset(count, 0, C * sizeof *count);
    size_t k = 0;
    for (size_t t = 0; t < n; t++) {
        size_t i = order[t], c = (size_t)ds->y[i];
        if (count[c] == per) continue;
        count[c]++;
        memcpy(sub.x + k * d, ds->x + i * d, d * sizeof *sub.x);
        sub.y[k++] = ds->y[i];
    }
    dpt_dataset_free(ds);
    *ds = sub;
done:
    if (r) gsl_rng_free(r);
    free(order);
    free(count);
    return rc;
}

static int print_report(const ntk_args *a, const dpt_dataset *train, const dpt_dataset *test, size_t p,
                         const dpt_ntk_result *res, double test_acc, double secs)
{
    char ue[CLI_NUMBER_SIZE], ud[CLI_NUMBER_SIZE]; /* upper_text of epsilon and delta */
    const dpt_ntk_options *o = &a->opt;
    int priv = o->private_ && isfinite(res->epsilon);
    int seeded = dpt_rng_is_seeded(o->rng);
    cli_data_use use = { 0 };
    data_use_loader(&use, a->input_format);
    data_use_common(&use, train->n, test != train ? test->n : 0, priv, seeded, "their features",
                    test != train ? "accuracy" : "accuracy (also reported as the test accuracy: there is no test set)");
    if (o->private_)
        data_use_add(&use, USE_COVERED, "the labels, and so the number of classes: public under the guarantee's "
                     "beta-close relation (it protects the features)");
    char accounting[640];
    data_use_accounting(&use, res->accounting, accounting, sizeof accounting);
    if (a->json) {
        json_t *doc = json_object();
        int bad = json_put(doc, "algorithm", cli_json_text("ntk"));
        bad |= json_put(doc, "private", json_boolean(priv && !seeded));
        bad |= json_put(doc, "n", json_integer((json_int_t)train->n));
        bad |= json_put(doc, "test_examples", json_integer((json_int_t)test->n));
        bad |= json_put(doc, "d", json_integer((json_int_t)p));
        bad |= json_put(doc, "features_in", json_integer((json_int_t)train->d));
        bad |= json_put(doc, "classes", json_integer((json_int_t)res->classes));
        bad |= json_put(doc, "width", json_integer((json_int_t)o->width));
        bad |= json_put(doc, "weight_std", json_num(o->weight_std, 'g', 10));
        bad |= json_put(doc, "ridge", json_num(o->ridge, 'g', 10));
        bad |= json_put(doc, "row_norm", json_num(o->row_norm, 'g', 10));
        bad |= json_put(doc, "beta", json_num(o->beta, 'g', 10));
        bad |= json_put(doc, "wbar_norm", json_num(res->wbar_norm, 'g', 10));
        bad |= json_put(doc, "S_H", json_num(res->sensitivity_h, 'g', 10));
        bad |= json_put(doc, "M", json_num(res->sensitivity_m, 'g', 10));
        if (o->private_) {
            bad |= json_put(doc, "k", json_integer((json_int_t)res->samples));
            bad |= json_put(doc, "k_max", json_integer((json_int_t)res->samples_max));
            bad |= json_put(doc, "k_paper", json_num(res->samples_paper, 'g', 10));
            bad |= json_put(doc, "tlap_bound", json_num(res->tlap_bound, 'g', 10));
            bad |= json_put(doc, "epsilon_gsm", json_num(res->epsilon_gsm, 'g', 10));
            bad |= json_put(doc, "delta_gsm", json_num(o->delta_gsm, 'g', 6));
            bad |= json_put(doc, "epsilon_features", json_num(o->epsilon_features, 'g', 10));
            bad |= json_put(doc, "delta_features", json_num(o->delta_features, 'g', 6));
            bad |= json_put(doc, "epsilon_target", json_num(o->epsilon_gsm + o->epsilon_features, 'g', 10));
        }
        bad |= json_put(doc, "epsilon", priv ? json_upper(res->epsilon) : json_null());
        bad |= json_put(doc, "delta", priv ? json_upper(res->delta) : json_null());
        bad |= json_put(doc, "train_accuracy", json_num(res->train_accuracy, 'f', 6));
        bad |= json_put(doc, "test_accuracy", json_num(test_acc, 'f', 6));
        bad |= json_put(doc, "alpha_norm", json_num(res->alpha_norm, 'g', 10));
        bad |= json_put(doc, "data_use", data_use_json(&use));
        bad |= json_put(doc, "accounting", cli_json_text(accounting));
        bad |= json_put(doc, "seconds", json_num(secs, 'f', 4));
        return json_report(doc, bad) ? CLI_EXIT_LIBRARY : 0;
    }
    printf("algorithm          ntk (quadratic NTK, width %zu, weight std %g, ridge %g)\n", o->width, o->weight_std,
           o->ridge);
    printf("examples           n = %zu train, %zu test, d = %zu features", train->n, test->n, p);
    if (p != train->d) printf(" (projected from %zu)", train->d);
    printf(", C = %zu classes\n", res->classes);
    printf("test accuracy      %.4f\n", test_acc);
    printf("train accuracy     %.4f\n", res->train_accuracy);
    if (priv)
        printf("epsilon            %s   at delta %s (total, basic composition)\n", upper_text(res->epsilon, 0, ue),
               upper_text(res->delta, 0, ud));
    else printf("epsilon            not private\n");
    printf("||Wbar||_op        %.6g\n", res->wbar_norm);
    printf("S_H                %.6g   (beta %g, B %g)\n", res->sensitivity_h, o->beta, o->row_norm);
    printf("M                  %.6g   (S_H / lambda)\n", res->sensitivity_m);
    if (o->private_) {
        printf("k (GSM samples)    %llu\n", (unsigned long long)res->samples);
        printf("k_max              %llu   (exact RDP of the GSM)\n", (unsigned long long)res->samples_max);
        printf("k paper            %.6g   (eps^2 / (8 ln(1/delta) M^2), Gu et al. WACV 2025, Eq. (1) as reconstructed)\n", res->samples_paper);
        printf("epsilon GSM        %.6g   at delta %.3g (rdp)\n", res->epsilon_gsm, o->delta_gsm);
        printf("epsilon features   %.6g   at delta %.3g (truncated Laplace, A = %.6g)\n", o->epsilon_features,
               o->delta_features, res->tlap_bound);
    }
    printf("accounting         %s\n", accounting);
    data_use_print_table(&use);
    printf("time               %.3f s\n", secs);
    return 0;
}

int ntk_command(int argc, char **argv)
{
    ntk_args a = { .test_fraction = 0.2 };
    dpt_ntk_defaults(&a.opt);
    int st = parse_ntk_args(argc, argv, &a);
    if (st < 0) return 0;
    if (st) return st;
    if (!a.data) return cli_usage_error("--data: required (see 'dptrain ntk --help')");
    int idx = a.input_format ? strcmp(a.input_format, "idx") == 0 : a.labels != NULL;
    if (idx && !a.labels) return cli_usage_error("--labels: IDX images need a labels file");
    if (a.test_labels && !a.test_data) return cli_usage_error("--test-labels needs --test-data");
    if (idx && a.test_data && !a.test_labels) return cli_usage_error("--test-data: IDX images need --test-labels");

    dpa_error err = { 0 };
    dpt_dataset train = { 0 }, test = { 0 };
    dpt_ntk_model *model = NULL;
    dpt_rng *rng = NULL;
    int rc = 0;
    if ((rc = cli_privacy_rng(a.seed_given, a.opt.seed, &rng))) return rc;
    a.opt.rng = rng;
    if ((st = load_train_test(a.data, a.labels, a.test_data, a.test_labels, a.input_format, a.target, a.max_bytes,
                              a.test_fraction, a.opt.seed, &train, &test, &err)))
        goto fail;
    if (a.train_per_class && (rc = balanced_subset(&train, a.train_per_class, a.opt.seed, "train"))) goto done;
    if (a.test_per_class && (rc = balanced_subset(&test, a.test_per_class, a.opt.seed + 1, "test"))) goto done;
    if (a.opt.project > train.d) {
        rc = cli_usage_error("--project: %zu is above the %zu features of the data", a.opt.project, train.d);
        goto done;
    }

    cli_progress start;
    cli_progress_start(&start, "steps");
    double end_ms = 0.0;
    if (!a.quiet) {
        a.opt.progress = cli_progress_bar;
        a.opt.progress_ctx = &start;
    }
    dpt_ntk_result res;
    if ((st = dpt_ntk_train(&train, &a.opt, &model, &res, &err))) goto fail;
    double test_acc = test.n ? dpt_ntk_accuracy(model, &test) : res.train_accuracy;
    end_ms = cli_now_ms();
    if (isnan(test_acc)) {
        fprintf(stderr, "dptrain: out of memory (test accuracy)\n");
        rc = CLI_EXIT_LIBRARY;
        goto done;
    }
    double secs = (end_ms - start.start_ms) / 1e3;
    rc = print_report(&a, &train, test.n ? &test : &train, a.opt.project ? a.opt.project : train.d, &res, test_acc, secs);
    goto done;
fail:
    cli_library_error(&err);
    rc = st == DPA_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_LIBRARY;
done:
    dpt_rng_free(rng);
    dpt_ntk_free(model);
    dpt_dataset_free(&train);
    dpt_dataset_free(&test);
    return rc;
}
