/*
 * dptrain_main.c - the dptrain command: load or generate data, ask
 * libdpacct (through libdptrain) for the noise that meets a target
 * (eps, delta), train, and report what was spent.
 *
 * Exit status: 0 success, 1 library failure, 2 bad usage or bad input.
 * Errors are one line on stderr; the report goes to stdout only at the end,
 * so nothing is written half-done.
 */
#include <config.h>

#include "dptrain.h"
#include "dptrain_cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct { const char *name; dpt_algorithm alg; const char *about; } algorithms[] = {
    { "glmtron", DPT_GLMTRON, "GLMtron (non-private reference)" },
    { "dp-glmtron", DPT_DP_GLMTRON, "DP-GLMtron (Ding et al. NeurIPS 2024, Alg 1; public threshold: Ding et al. UAI 2025, Alg 1)" },
    { "dp-taglmtron", DPT_DP_TAGLMTRON, "DP-TAGLMtron (Ding et al. NeurIPS 2024, Alg 3, tree aggregation)" },
    { "dp-mbglmtron", DPT_DP_MBGLMTRON, "DP-MBGLMtron (Ding et al. UAI 2025, Alg 3, noisy-doubling threshold)" },
    { "mbglmtron", DPT_MBGLMTRON, "mini-batch GLMtron (DP-MBGLMtron without noise)" },
    { "relu-sgd", DPT_SGD, "SGD on the ReLU regression loss (non-private reference)" },
    { "dp-relu-sgd", DPT_DP_SGD, "DP-SGD for ReLU regression (Poisson sampling by default, the papers' baseline)" },
    { "dp-ftrl", DPT_DP_FTRL, "DP-FTRL (Kairouz et al. ICML 2021, tree aggregation; no sampling) on the ReLU regression gradient" },
};
#define NUM_ALGORITHMS (sizeof algorithms / sizeof algorithms[0])


static void print_help(void)
{
    printf("Usage: dptrain ALGORITHM (--data FILE | --synthetic SPEC) --epsilon E --delta D|auto [OPTIONS]\n"
           "       dptrain --help | --version\n\n"
           "Train ReLU regression with differential privacy: the noise multiplier is\n"
           "calibrated by libdpacct's exact accounting for how the algorithm uses each\n"
           "record (replace-one neighbours), and the report gives the certified epsilon\n"
           "spent next to the noise the paper's closed-form theorem would have used.\n\nAlgorithms:\n");
    for (size_t i = 0; i < NUM_ALGORITHMS; i++) printf("  %-13s %s\n", algorithms[i].name, algorithms[i].about);
    printf("\nClassification (Koskela, arXiv 2024; 'dptrain sgd --help' for their options):\n"
           "  sgd           DP-SGD on softmax regression, the gated-ReLU convex model or a ReLU network\n"
           "  ncgd          NoisyCGD on a convex model, final iterate only (hidden-state accounting)\n"
           "\n"
           "NTK regression (Gu et al., WACV 2025) and sparse gradients (Ghazi et al., NeurIPS 2024)\n"
           "('dptrain ntk --help' and so on for their options):\n"
           "  ntk           private NTK regression (Gaussian Sampling Mechanism, truncated Laplace)\n"
           "  sparse-mean   DP mean of s-sparse vectors (l1 projection, compressed sensing, dense)\n"
           "  sparse-erm    output perturbation with l1 projection (sparse logistic regression)\n"
           "  sparse-sgd    bias-reduced DP-SGD under a GDP privacy filter\n");
    printf("\nData:\n"
           "  --data FILE            CSV (header line; --target names the column, default the last),\n"
           "                         libsvm (--input-format libsvm) or IDX images (--input-format idx,\n"
           "                         with --labels FILE; y = label / 9)\n"
           "  --input-format FMT     csv (default), libsvm or idx\n"
           "  --target COL           CSV target column: its name or 1-based number\n"
           "  --labels FILE          IDX labels file (plain or .gz)\n"
           "  --synthetic SPEC       n=500,d=1024,spectrum=poly|exp,decay=2,zeta=rademacher|gaussian,\n"
           "                         noise=0.1,wstar=1,seed=1 (any subset)\n"
           "  --max-data-size SIZE   refuse data whose n x d doubles exceed SIZE bytes (K, M, G, T:\n"
           "                         powers of 1024; default 2G, at most 1024T), checked before allocating\n"
           "  --test-fraction X      held-out share, 0 <= X < 1 (default 0.2)\n"
           "  --clip-rows R          scale each feature vector onto the l2 ball of radius R (a map of\n"
           "                         each record alone: no privacy cost)\n"
           "  --standardize          mean 0, std 1 per feature from the training rows: these statistics\n"
           "                         are NOT covered by the guarantee (the report says so); default off\n"
           "  --scale-target         divide y by the largest |y| (as in Ding et al. UAI 2025's experiments; that maximum is\n"
           "                         NOT covered by the guarantee)\n"
           "\nPrivacy:\n"
           "  --epsilon E            target epsilon, E > 0\n"
           "  --delta D|auto         target delta in (0, 1); auto = 1/N^1.1 (N training examples)\n"
           "  --noise-multiplier F   use this f instead of calibrating, and report its epsilon\n"
           "  --accountant NAME      DP-SGD's accountant (default: pld; batches for shuffle)\n"
           "  --sampling KIND        relu-sgd and dp-relu-sgd batches: poisson (default: each record\n"
           "                         with probability B/N), shuffle (each epoch shuffled afresh, cut into\n"
           "                         batches of exactly B: accounted with no amplification, Chua et al.'s\n"
           "                         lower bound beside it), balls-in-bins (each epoch each record in one\n"
           "                         of ceil(N/B) batches at random: Feldman & Shenfeld 2025's random\n"
           "                         allocation), truncated (Poisson with at most --max-batch) or\n"
           "                         allocation (each epoch each record in --selected K of ceil(K N/B)\n"
           "                         batches, a uniformly random K-subset); dp-relu-sgd (replace-one)\n"
           "                         refuses balls-in-bins, truncated and allocation (add-remove)\n"
           "  --max-batch M          truncated sampling: a batch above M cut to M at random\n"
           "  --selected K           allocation: the batches each record is in an epoch (1 to 1000000)\n"
           "  --no-shuffle-amplification   DP-GLMtron: do not count the secret shuffle\n"
           "\nTraining:\n"
           "  --epochs E             passes over the data (default 1; at most 1000000, and epochs x\n"
           "                         training examples at most 1e10)\n"
           "  --learning-rate ETA    step size (default 1e-2)\n"
           "  --batch-size B         DP-MBGLMtron and DP-FTRL gradient records per batch; DP-SGD expected\n"
           "                         batch (default 32; at most the training examples)\n"
           "  --estimate-size M      DP-MBGLMtron: estimating records per batch (default B/10 with --threshold\n"
           "                         private); --threshold histogram: the private estimating records, split\n"
           "                         off the training data (required)\n"
           "  --threshold RULE       fixed (default; --clip), public (Ding et al. UAI 2025, Alg 2, on\n"
           "                         --public-data, or on the rows --public-fraction declares public),\n"
           "                         private (DP-MBGLMtron: on each batch's estimating slice)\n"
           "                         or histogram (DP-GLMtron, DP-TAGLMtron: Ding et al. NeurIPS 2024,\n"
           "                         Alg 2, Laplace stability histograms on --estimate-size private\n"
           "                         records; they need M >= K, see below)\n"
           "  --threshold-epsilon E1 the histogram's eps1 per histogram (default: the largest for which the\n"
           "                         3 N E histograms meet --epsilon at --delta under pld, delta1 = delta/(6NE))\n"
           "  --histogram-c1 C       K = ceil(C ln(N/delta1)/eps1) groups (default 4; Ding et al.\n"
           "                         NeurIPS 2024 leave C1 open)\n"
           "  --label-noise S --tail-b B   Alg 2 line 9: s3 = sqrt(2 (r3 + S^2 log^{2a}(1/B)))\n"
           "                         (defaults 0 and 1/e)\n"
           "  --clip C               the fixed clip gamma (GLMtron family) or DP-SGD's and DP-FTRL's C\n"
           "                         (default 1)\n"
           "  --public-data FILE     --threshold public: data declared public (same --input-format; with\n"
           "                         --public-labels FILE for idx)\n"
           "  --public-fraction X    --threshold public: instead, declare this share of the user's own\n"
           "                         training rows public (removed from training; the report says that\n"
           "                         they are NOT covered by the guarantee)\n"
           "  --alpha A --trace-h T --c2 C --a A   the clip's constants: gamma_t = sqrt(2 A T) C log^{2a} N s_t\n"
           "                         (defaults 1, d, 1, 0)\n"
           "  --upsilon U --grid-delta D   the threshold's domain and granularity (defaults 10, 1e-3)\n"
           "  --paper-c3 C           DP-GLMtron's closed form f = C log(N/delta)/(eps sqrt N) (default 1)\n"
           "  --init-scale S         start from w_0 ~ N(0, S^2/d I) (default 0: w_0 = 0, as the papers;\n"
           "                         the ReLU loss's gradient vanishes there, so (DP-)SGD and DP-FTRL need\n"
           "                         S > 0)\n"
           "  --seed S               reproducible run: the split, w_0 and every privacy draw (noise,\n"
           "                         shuffles, batches) from S; the run is then NOT private (anyone who\n"
           "                         knows S can regenerate the noise) and says so. Without it the\n"
           "                         privacy draws come from the system's secure generator (the split\n"
           "                         and w_0 use seed 1)\n"
           "\nCounts are whole numbers; --batch-size and --estimate-size at most 1e9.\n"
           "\nOutput:\n"
           "  --format FMT           table (default) or json\n"
           "  --progress             progress bar on stderr even when it is not a terminal\n"
           "  -h, --help             this help\n"
           "\nExit status: 0 success, 1 library failure, 2 bad usage or bad input.\n");
}

typedef struct {
    const char *data, *input_format, *target, *labels, *synthetic;
    const char *public_data, *public_labels;
    double test_fraction, public_fraction, clip_rows;
    int standardize, scale_target, json, progress, seed_given;
    int delta_auto, have_epsilon, have_delta;
    uint64_t max_bytes, max_batch, selected;   /* --max-batch, --selected (0: not given) */
    dpt_glm_options opt;
} args;



static int parse_args(int argc, char **argv, args *a)
{
    enum {
        O_DATA, O_INFMT, O_TARGET, O_LABELS, O_SYNTH, O_TESTFR, O_NOSTD, O_SCALE, O_EPS, O_DELTA, O_NM,
        O_ACC, O_NOSHUF, O_EPOCHS, O_LR, O_BATCH, O_EST, O_THR, O_CLIP, O_PUBFR, O_ALPHA, O_TRH, O_C2, O_A,
        O_UPS, O_GDELTA, O_C3, O_SEED, O_FORMAT, O_PROGRESS, O_VERSION, O_THEPS, O_HC1, O_LNOISE, O_TAILB, O_INIT,
        O_MAXDATA, O_STD, O_CLIPROWS, O_PUBDATA, O_PUBLABELS, O_SAMPLING, O_MAXBATCH, O_SELECTED, O_COUNT
    };
    /* the values are parsed below; the help text is written out in full above */
    static const cli_option options[O_COUNT] = {
        [O_DATA] = { "data", "X", NULL }, [O_INFMT] = { "input-format", "X", NULL },
        [O_TARGET] = { "target", "X", NULL }, [O_LABELS] = { "labels", "X", NULL },
        [O_SYNTH] = { "synthetic", "X", NULL }, [O_TESTFR] = { "test-fraction", "X", NULL },
        [O_NOSTD] = { "no-standardize", NULL, NULL }, [O_SCALE] = { "scale-target", NULL, NULL },
        [O_EPS] = { "epsilon", "X", NULL }, [O_DELTA] = { "delta", "X", NULL },
        [O_NM] = { "noise-multiplier", "X", NULL }, [O_ACC] = { "accountant", "X", NULL },
        [O_NOSHUF] = { "no-shuffle-amplification", NULL, NULL }, [O_EPOCHS] = { "epochs", "X", NULL },
        [O_LR] = { "learning-rate", "X", NULL }, [O_BATCH] = { "batch-size", "X", NULL },
        [O_EST] = { "estimate-size", "X", NULL }, [O_THR] = { "threshold", "X", NULL },
        [O_CLIP] = { "clip", "X", NULL }, [O_PUBFR] = { "public-fraction", "X", NULL },
        [O_ALPHA] = { "alpha", "X", NULL }, [O_TRH] = { "trace-h", "X", NULL }, [O_C2] = { "c2", "X", NULL },
        [O_A] = { "a", "X", NULL }, [O_UPS] = { "upsilon", "X", NULL }, [O_GDELTA] = { "grid-delta", "X", NULL },
        [O_C3] = { "paper-c3", "X", NULL }, [O_SEED] = { "seed", "X", NULL }, [O_FORMAT] = { "format", "X", NULL },
        [O_PROGRESS] = { "progress", NULL, NULL }, [O_THEPS] = { "threshold-epsilon", "X", NULL },
        [O_HC1] = { "histogram-c1", "X", NULL }, [O_LNOISE] = { "label-noise", "X", NULL },
        [O_TAILB] = { "tail-b", "X", NULL }, [O_INIT] = { "init-scale", "X", NULL },
        [O_MAXDATA] = { "max-data-size", "X", NULL }, [O_STD] = { "standardize", NULL, NULL },
        [O_CLIPROWS] = { "clip-rows", "X", NULL }, [O_PUBDATA] = { "public-data", "X", NULL },
        [O_PUBLABELS] = { "public-labels", "X", NULL }, [O_VERSION] = { "version", NULL, NULL },
        [O_SAMPLING] = { "sampling", "X", NULL }, [O_MAXBATCH] = { "max-batch", "X", NULL },
        [O_SELECTED] = { "selected", "X", NULL },
    };
    const char *command = "dptrain";
    cli_parser p;
    cli_parser_init(&p, options, O_COUNT, command, 0);
    const char *value;
    int c, st = 0;
    uint64_t u;
    while ((c = cli_next_option(&p, argc, argv, &value)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_ERROR: return CLI_EXIT_USAGE;
        case CLI_OPT_HELP: print_help(); return -1;
        case O_VERSION: print_version(); return -1;
        case O_DATA: a->data = value; break;
        case O_INFMT: st = parse_input_format(value, &a->input_format); break;
        case O_TARGET: a->target = value; break;
        case O_LABELS: a->labels = value; break;
        case O_SYNTH: a->synthetic = value; break;
        case O_TESTFR: st = cli_parse_real("test-fraction", value, 0.0, 0, 1.0, 1, &a->test_fraction); break;
        case O_NOSTD: a->standardize = 0; break;
        case O_STD: a->standardize = 1; break;
        case O_CLIPROWS: st = cli_parse_real("clip-rows", value, 0.0, 1, INFINITY, 1, &a->clip_rows); break;
        case O_PUBDATA: a->public_data = value; break;
        case O_PUBLABELS: a->public_labels = value; break;
        case O_SCALE: a->scale_target = 1; break;
        case O_EPS: st = cli_parse_real("epsilon", value, 0.0, 1, INFINITY, 1, &a->opt.epsilon); a->have_epsilon = 1; break;
        case O_DELTA:
            a->have_delta = 1;
            if (strcmp(value, "auto") == 0) a->delta_auto = 1;
            else st = cli_parse_real("delta", value, 0.0, 1, 1.0, 1, &a->opt.delta);
            break;
        case O_NM: st = cli_parse_real("noise-multiplier", value, 0.0, 1, INFINITY, 1, &a->opt.noise_multiplier); break;
        case O_ACC: st = parse_accountant(value, &a->opt.accountant); break;
        case O_SAMPLING: st = parse_sampling(value, &a->opt.sampling); break;
        case O_MAXBATCH: st = cli_parse_count("max-batch", value, 1, CLI_MAX_ROWS, &a->max_batch); break;
        case O_SELECTED: st = cli_parse_count("selected", value, 1, CLI_MAX_UNITS, &a->selected); break;
        case O_NOSHUF: a->opt.shuffle_amplification = 0; break;
        case O_EPOCHS: st = cli_parse_count("epochs", value, 1, CLI_MAX_EPOCHS, &a->opt.epochs); break;
        case O_LR: st = cli_parse_real("learning-rate", value, 0.0, 1, INFINITY, 1, &a->opt.learning_rate); break;
        case O_BATCH: st = cli_parse_count("batch-size", value, 1, CLI_MAX_ROWS, &u); a->opt.batch_size = (size_t)u; break;
        case O_EST:
            st = cli_parse_count("estimate-size", value, 1, CLI_MAX_ROWS, &u);
            a->opt.estimate_size = (size_t)u;
            break;
        case O_THR:
            if (strcmp(value, "fixed") == 0) a->opt.clip_rule = DPT_CLIP_FIXED;
            else if (strcmp(value, "public") == 0) a->opt.clip_rule = DPT_CLIP_PUBLIC;
            else if (strcmp(value, "private") == 0) a->opt.clip_rule = DPT_CLIP_PRIVATE;
            else if (strcmp(value, "histogram") == 0) a->opt.clip_rule = DPT_CLIP_HISTOGRAM;
            else return cli_bad_value("threshold", "fixed, public, private or histogram", value);
            break;
        case O_CLIP: st = cli_parse_real("clip", value, 0.0, 1, INFINITY, 1, &a->opt.clip); break;
        case O_PUBFR: st = cli_parse_real("public-fraction", value, 0.0, 1, 1.0, 1, &a->public_fraction); break;
        case O_ALPHA: st = cli_parse_real("alpha", value, 0.0, 1, INFINITY, 1, &a->opt.alpha); break;
        case O_TRH: st = cli_parse_real("trace-h", value, 0.0, 1, INFINITY, 1, &a->opt.trace_h); break;
        case O_C2: st = cli_parse_real("c2", value, 0.0, 1, INFINITY, 1, &a->opt.c2); break;
        case O_A: st = cli_parse_real("a", value, 0.0, 0, INFINITY, 1, &a->opt.a); break;
        case O_UPS: st = cli_parse_real("upsilon", value, 0.0, 1, INFINITY, 1, &a->opt.upsilon); break;
        case O_GDELTA: st = cli_parse_real("grid-delta", value, 0.0, 1, INFINITY, 1, &a->opt.grid_delta); break;
        case O_C3: st = cli_parse_real("paper-c3", value, 0.0, 1, INFINITY, 1, &a->opt.paper_c3); break;
        case O_THEPS:
            st = cli_parse_real("threshold-epsilon", value, 0.0, 1, INFINITY, 1, &a->opt.threshold_epsilon);
            break;
        case O_HC1: st = cli_parse_real("histogram-c1", value, 0.0, 1, INFINITY, 1, &a->opt.histogram_c1); break;
        case O_LNOISE: st = cli_parse_real("label-noise", value, 0.0, 0, INFINITY, 1, &a->opt.label_noise); break;
        case O_TAILB: st = cli_parse_real("tail-b", value, 0.0, 1, 1.0, 1, &a->opt.tail_b); break;
        case O_INIT: st = cli_parse_real("init-scale", value, 0.0, 0, INFINITY, 1, &a->opt.init_scale); break;
        case O_SEED: st = parse_seed("seed", value, &a->opt.seed); a->seed_given = 1; break;
        case O_MAXDATA: st = parse_data_size(value, &a->max_bytes); break;
        case O_FORMAT: st = parse_report_format(value, &a->json); break;
        case O_PROGRESS: a->progress = 1; break;
        }
        if (st) return st;
    }
    return sampling_param(a->opt.sampling, a->max_batch, a->selected, &a->opt.max_batch);
}



static int load_data(const args *a, dpt_dataset *all, double **wstar, dpa_error *err)
{
    if (a->synthetic) {
        dpt_synthetic_spec spec;
        dpt_synthetic_defaults(&spec);
        int st = dpt_synthetic_parse(a->synthetic, &spec, err);
        if (st) return st;
        spec.max_bytes = a->max_bytes;
        /* the sizes (and the limit) checked before w* is allocated */
        if ((st = dpt_synthetic_check(&spec, err))) return st;
        *wstar = calloc(spec.d, sizeof **wstar);
        if (!*wstar) {
            err->status = DPA_ENOMEM;
            snprintf(err->message, sizeof err->message, "synthetic: out of memory for w* (d = %zu)", spec.d);
            return DPA_ENOMEM;
        }
        return dpt_synthetic(&spec, all, *wstar, err);
    }
    const char *fmt = a->input_format ? a->input_format : "csv";
    int st = load_file(a->data, a->labels, fmt, a->target, a->max_bytes, all, err);
    if (!st && strcmp(fmt, "idx") == 0)   /* the regression target: the class as an ordinal in [0, 1] */
        for (size_t i = 0; i < all->n; i++) all->y[i] /= 9.0;
    return st;
}

int main(int argc, char **argv)
{
    cli_set_program("dptrain");
    if (argc < 2) return cli_usage_error("missing algorithm (see 'dptrain --help')");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_help();
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        print_version();
        return 0;
    }
    if (strcmp(argv[1], "sgd") == 0 || strcmp(argv[1], "ncgd") == 0) return cls_command(argc - 1, argv + 1);
    if (strcmp(argv[1], "ntk") == 0) return ntk_command(argc - 1, argv + 1);
    if (strcmp(argv[1], "sparse-mean") == 0) return sparse_mean_command(argc - 1, argv + 1);
    if (strcmp(argv[1], "sparse-erm") == 0 || strcmp(argv[1], "sparse-sgd") == 0)
        return sparse_opt_command(argc - 1, argv + 1);
    size_t which = NUM_ALGORITHMS;
    for (size_t i = 0; i < NUM_ALGORITHMS; i++)
        if (strcmp(argv[1], algorithms[i].name) == 0) which = i;
    if (which == NUM_ALGORITHMS) {
        char shown[CLI_SHOWN_SIZE];
        return cli_usage_error("unknown algorithm '%s' (see 'dptrain --help')", dpt_escape(argv[1], 0, shown, sizeof shown));
    }
    args a = { .test_fraction = 0.2 };
    dpt_glm_defaults(&a.opt);
    a.opt.algorithm = algorithms[which].alg;
    int st = parse_args(argc - 1, argv + 1, &a);
    if (st < 0) return 0;
    if (st) return st;
    if (!a.data == !a.synthetic) return cli_usage_error("give exactly one of --data and --synthetic");
    if (a.input_format && strcmp(a.input_format, "idx") == 0 && !a.labels)
        return cli_usage_error("--input-format idx: needs --labels");
    int private_alg = a.opt.algorithm == DPT_DP_GLMTRON || a.opt.algorithm == DPT_DP_TAGLMTRON ||
                      a.opt.algorithm == DPT_DP_MBGLMTRON || a.opt.algorithm == DPT_DP_SGD ||
                      a.opt.algorithm == DPT_DP_FTRL;
    if (private_alg && !a.have_delta) return cli_usage_error("--delta: required (a number or auto)");
    if (private_alg && !a.have_epsilon && !(a.opt.noise_multiplier > 0.0))
        return cli_usage_error("--epsilon: required (or --noise-multiplier)");

    if (a.opt.clip_rule == DPT_CLIP_PUBLIC && !a.public_data == !(a.public_fraction > 0.0))
        return cli_usage_error("--threshold public: give the public data with --public-data FILE, or declare a share of "
                           "the training rows public with --public-fraction X (one of them)");
    if (a.opt.clip_rule != DPT_CLIP_PUBLIC && (a.public_data || a.public_fraction > 0.0))
        return cli_usage_error("--public-data and --public-fraction: only with --threshold public");

    dpa_error err = { 0 };
    dpt_dataset all = { 0 }, train = { 0 }, test = { 0 }, pub = { 0 }, rest = { 0 }, est = { 0 };
    double *wstar = NULL;
    dpt_rng *rng = NULL;
    cli_data_use use = { 0 };
    if (!a.synthetic) data_use_loader(&use, a.input_format);
    if ((st = load_data(&a, &all, &wstar, &err))) {
        if (a.synthetic) cli_option_error("--synthetic", "synthetic: ", &err);
        else cli_library_error(&err);
        free(wstar);
        return st == DPA_ENOMEM ? CLI_EXIT_LIBRARY : CLI_EXIT_USAGE;
    }
    int rc = 0;
    if ((rc = cli_privacy_rng(a.seed_given, a.opt.seed, &rng))) goto done;
    a.opt.rng = rng;
    if ((st = dpt_split(&all, a.test_fraction, a.opt.seed, &train, &test, &err))) goto fail_usage;
    if ((rc = check_work(a.opt.epochs, train.n, a.selected ? a.selected : 1))) goto done;
    if (a.clip_rows > 0.0) {
        dpt_clip_rows(&train, a.clip_rows);
        if (test.n) dpt_clip_rows(&test, a.clip_rows);
    }
    if (a.standardize && !a.synthetic) {
        dpt_standardize(&train, test.n ? &test : NULL);
        data_use_add(&use, USE_UNCOVERED, "feature statistics computed from the training data (--standardize: "
                     "per-feature mean and standard deviation)");
    }
    if (a.scale_target) {
        dpt_scale_target(&train, test.n ? &test : NULL);
        data_use_add(&use, USE_UNCOVERED, "the largest |y| over the training and test rows (--scale-target)");
    }
    if (a.opt.clip_rule == DPT_CLIP_PUBLIC) {
        if (a.public_data) {
            const char *fmt = a.input_format ? a.input_format : "csv";
            if ((st = load_file(a.public_data, a.public_labels, fmt, a.target, a.max_bytes, &pub, &err)))
                goto fail_usage;
            if (strcmp(fmt, "idx") == 0)
                for (size_t i = 0; i < pub.n; i++) pub.y[i] /= 9.0;
            if (pub.d != train.d) {
                fprintf(stderr, "dptrain: --public-data: %zu features, the training data has %zu\n", pub.d, train.d);
                rc = CLI_EXIT_USAGE;
                goto done;
            }
            if (a.clip_rows > 0.0) dpt_clip_rows(&pub, a.clip_rows);
            char shown[64];
            data_use_add(&use, USE_COVERED, "%zu rows of %s, declared public by --public-data, for the threshold",
                         pub.n, dpt_escape(a.public_data, DPT_ESCAPE_TAIL, shown, sizeof shown));
        } else {
            /* the user's own rows declared public, no longer trained on */
            if ((st = dpt_split(&train, a.public_fraction, a.opt.seed + 1, &rest, &pub, &err))) goto fail_usage;
            dpt_dataset_free(&train);
            train = rest;
            rest = (dpt_dataset){ 0 };
            data_use_add(&use, USE_UNCOVERED, "%zu of the user's rows declared public by --public-fraction %g, for "
                         "the threshold", pub.n, a.public_fraction);
        }
        a.opt.public_data = &pub;
    }
    if (a.opt.clip_rule == DPT_CLIP_HISTOGRAM &&
        (a.opt.algorithm == DPT_DP_GLMTRON || a.opt.algorithm == DPT_DP_TAGLMTRON)) {
        /* the private estimating records: --estimate-size of the training
         * examples, no longer trained on (disjoint: parallel composition) */
        if (!a.opt.estimate_size || a.opt.estimate_size >= train.n) {
            fprintf(stderr, "dptrain: --threshold histogram: --estimate-size must be given and below the %zu training "
                            "examples\n", train.n);
            rc = CLI_EXIT_USAGE;
            goto done;
        }
        double share = (double)a.opt.estimate_size / (double)train.n;
        if ((st = dpt_split(&train, share, a.opt.seed + 2, &rest, &est, &err))) goto fail_usage;
        dpt_dataset_free(&train);
        train = rest;
        rest = (dpt_dataset){ 0 };
        a.opt.estimating_data = &est;
        a.opt.estimate_size = 0;
        data_use_add(&use, USE_COVERED, "%zu estimating rows for the stability-histogram thresholds, under the "
                     "guarantee (parallel composition with the training rows)", est.n);
    }
    if (a.delta_auto) a.opt.delta = pow((double)train.n, -1.1);
    cli_progress start;
    cli_progress_start(&start, "steps");
    if (a.progress || isatty(STDERR_FILENO)) {
        a.opt.progress = cli_progress_bar;
        a.opt.progress_ctx = &start;
    }
    dpt_glm_result res;
    st = dpt_glm_train(&train, &a.opt, &res, &err);
    if (st) {
        cli_library_error(&err);
        rc = st == DPA_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_LIBRARY;
        goto done;
    }
    double end_ms = cli_now_ms();
    double secs = (end_ms - start.start_ms) / 1e3;
    double train_loss = dpt_relu_loss(&train, res.w), test_loss = test.n ? dpt_relu_loss(&test, res.w) : NAN;
    double excess = NAN, train_excess = NAN;
    if (wstar && test.n) excess = test_loss - dpt_relu_loss(&test, wstar);
    if (wstar) train_excess = train_loss - dpt_relu_loss(&train, wstar);
    int priv = isfinite(res.epsilon);
    int private_run = priv && !dpt_rng_is_seeded(rng) && !use.uncovered;
    /* the uses every run has, after the ones above */
    data_use_common(&use, train.n, test.n, priv, dpt_rng_is_seeded(rng), NULL,
                    "loss and excess risk");
    char accounting[640];
    data_use_accounting(&use, res.accounting, accounting, sizeof accounting);
    char ue[CLI_NUMBER_SIZE], ud[CLI_NUMBER_SIZE]; /* upper_text of epsilon and delta */
    if (a.json) {
        json_t *doc = json_object();
        int bad = json_put(doc, "algorithm", cli_json_text(algorithms[which].name));
        bad |= json_put(doc, "train_examples", json_integer((json_int_t)train.n));
        bad |= json_put(doc, "test_examples", json_integer((json_int_t)test.n));
        bad |= json_put(doc, "features", json_integer((json_int_t)train.d));
        bad |= json_put(doc, "steps", json_integer((json_int_t)res.steps));
        bad |= json_put(doc, "train_loss", json_num(train_loss, 'g', 10));
        bad |= json_put(doc, "test_loss", test.n ? json_num(test_loss, 'g', 10) : json_null());
        bad |= json_put(doc, "excess_risk", json_num(excess, 'g', 10));
        bad |= json_put(doc, "train_excess_risk", json_num(train_excess, 'g', 10));
        bad |= json_put(doc, "epsilon", priv ? json_upper(res.epsilon) : json_null());
        bad |= json_put(doc, "delta", priv ? json_upper(a.opt.delta) : json_null());
        bad |= json_put(doc, "noise_multiplier", json_num(res.noise_multiplier, 'g', 10));
        bad |= json_put(doc, "paper_noise_multiplier", json_num(res.paper_noise_multiplier, 'g', 10));
        if (res.threshold_groups)
            bad |= json_put(doc, "threshold",
                            json_pack("{s:I, s:o, s:o, s:I, s:o, s:o, s:o}", "estimating_examples", (json_int_t)est.n,
                                      "epsilon1", json_num(res.threshold_epsilon1, 'g', 10), "delta1",
                                      json_num(res.threshold_delta1, 'g', 6), "groups",
                                      (json_int_t)res.threshold_groups, "epsilon", json_num(res.threshold_spent, 'g', 10),
                                      "paper_epsilon1", json_num(res.paper_threshold_epsilon1, 'g', 10),
                                      "training_epsilon", json_num(res.training_epsilon, 'g', 10)));
        bad |= json_put(doc, "data_use", data_use_json(&use));
        bad |= json_put(doc, "private", json_boolean(private_run));
        bad |= json_put(doc, "accounting", cli_json_text(accounting));
        bad |= json_put(doc, "seconds", json_num(secs, 'f', 4));
        if (json_report(doc, bad)) rc = CLI_EXIT_LIBRARY;
    } else {
        printf("algorithm          %s\n", algorithms[which].name);
        printf("examples           %zu train, %zu test, %zu features\n", train.n, test.n, train.d);
        printf("steps              %llu\n", (unsigned long long)res.steps);
        printf("train loss         %.6g\n", train_loss);
        if (test.n) printf("test loss          %.6g\n", test_loss);
        if (isfinite(excess)) printf("excess risk        %.6g   (test loss of w minus that of w*)\n", excess);
        if (isfinite(train_excess)) printf("train excess risk  %.6g\n", train_excess);
        if (priv)
            printf("epsilon (upper)    %s   at delta %s, certified\n", upper_text(res.epsilon, 0, ue),
                   upper_text(a.opt.delta, 0, ud));
        else printf("epsilon            not private\n");
        if (res.noise_multiplier > 0.0) printf("noise multiplier   %.6g\n", res.noise_multiplier);
        if (res.paper_noise_multiplier > 0.0)
            printf("paper's multiplier %.6g   (its closed-form theorem at the same target)\n", res.paper_noise_multiplier);
        if (res.threshold_groups) {
            printf("thresholds         %zu estimating records, K = %zu groups, eps1 = %.4g, delta1 = %.3g per histogram\n",
                   est.n, res.threshold_groups, res.threshold_epsilon1, res.threshold_delta1);
            printf("                   composed eps %.6g (training part %.6g)", res.threshold_spent, res.training_epsilon);
            if (res.paper_threshold_epsilon1 > 0.0) printf("; Ding et al. NeurIPS 2024's eps1 %.4g", res.paper_threshold_epsilon1);
            printf("\n");
        }
        printf("accounting         %s\n", accounting);
        data_use_print_table(&use);
        printf("time               %.3f s\n", secs);
    }
    dpt_glm_result_free(&res);
    goto done;
fail_usage:
    cli_library_error(&err);
    rc = CLI_EXIT_USAGE;
done:
    dpt_dataset_free(&all);
    dpt_dataset_free(&train);
    dpt_dataset_free(&test);
    dpt_dataset_free(&pub);
    dpt_dataset_free(&rest);
    dpt_dataset_free(&est);
    dpt_rng_free(rng);
    free(wstar);
    return rc;
}
