/* wgprof demo: a transformer decode step as a wgprof graph, checked against the CPU. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo_kernels.h"
#include "demo_model.h"

static const char demo_usage[] =
    "usage: wgprof demo [options]\n"
    "\n"
    "Runs one decode step (one token) of a small llama-style transformer as a wgprof graph of\n"
    "WGSL kernels: embedding; per layer rmsnorm, q/k/v projections, rope, KV-cache update,\n"
    "attention, output projection, rmsnorm, SiLU-gated MLP; final rmsnorm and logits. Checks\n"
    "the logits against a CPU reference and prints their argmax and a checksum, which is the\n"
    "same with profiling on or off. With WEBGPU_TIMESTAMP_QUERY=1 it also prints per-dispatch\n"
    "and per-kernel GPU timings.\n"
    "\n"
    "  --layers N       decoder layers (default 2)\n"
    "  --dim N          model width (default 256)\n"
    "  --heads N        attention heads; dim / heads must be even (default 4)\n"
    "  --ffn N          hidden width of the MLP (default 512)\n"
    "  --vocab N        vocabulary size (default 1024)\n"
    "  --max-seq N      KV cache positions (default 64)\n"
    "  --pos N          position decoded, below --max-seq (default 16)\n"
    "  --iterations N   times the step is executed (default 3)\n"
    "  --fused-sdpa     attention as one sdpa_kv_cache kernel instead of three\n"
    "  --json FILE      write the JSON report to FILE (without profiling it says why)\n"
    "  --tsv FILE       write the per-dispatch TSV report to FILE\n"
    "  --trace FILE     write a Chrome trace to FILE (Perfetto, chrome://tracing)\n"
    "  --html FILE      write a self-contained HTML report to FILE: timeline, chart, tables\n"
    "  --quiet          print no timing table\n"
    "  --help           print this help\n";

/* Bounds that keep every size product within 64 bits; the device limits come on top. */
enum { MAX_LAYERS = 1024, MAX_WIDTH = 1 << 24, MAX_ITERATIONS = 1000000 };
static const uint64_t HOST_BYTES_LIMIT = 4ull << 30;

typedef struct demo_options {
    demo_config model;
    uint32_t iterations;
    const char *files[WGPROF_FORMAT_HTML + 1]; /* by format; NULL: not asked for */
    bool quiet;
} demo_options;

enum { PARSE_RUN = -1 }; /* parse_args: go on; any other value is the exit code */

static bool parse_u32(const char *flag, const char *text, uint32_t min, uint32_t max, uint32_t *out)
{
    char *end = NULL;
    errno = 0;
    /* strtoull accepts signs and spaces; a count is digits only. */
    unsigned long long v = text[0] >= '0' && text[0] <= '9' ? strtoull(text, &end, 10) : 0;
    if (!end || *end || errno == ERANGE || v < min || v > max) {
        fprintf(stderr, "wgprof demo: %s '%s': expected a whole number from %u to %u\n", flag, text, min, max);
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* The report a file option asks for, or -1 for any other argument. */
static int file_format(const char *arg)
{
    static const struct {
        const char *flag;
        wgprof_format format;
    } file_flags[] = {{"--json", WGPROF_FORMAT_JSON},
                      {"--tsv", WGPROF_FORMAT_TSV},
                      {"--trace", WGPROF_FORMAT_TRACE},
                      {"--html", WGPROF_FORMAT_HTML}};
    for (size_t f = 0; f < sizeof file_flags / sizeof file_flags[0]; f++) {
        if (strcmp(arg, file_flags[f].flag) == 0) {
            return (int)file_flags[f].format;
        }
    }
    return -1;
}

static int parse_args(int argc, char **argv, demo_options *o)
{
    const struct {
        const char *name;
        uint32_t *value;
        uint32_t min, max;
    } numeric[] = {
        {"--layers", &o->model.layers, 1, MAX_LAYERS},   {"--dim", &o->model.dim, 1, MAX_WIDTH},
        {"--heads", &o->model.heads, 1, MAX_WIDTH},      {"--ffn", &o->model.ffn, 1, MAX_WIDTH},
        {"--vocab", &o->model.vocab, 1, MAX_WIDTH},      {"--max-seq", &o->model.max_seq, 1, MAX_WIDTH},
        {"--pos", &o->model.pos, 0, MAX_WIDTH - 1},      {"--iterations", &o->iterations, 1, MAX_ITERATIONS},
    };
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(demo_usage, stdout);
            return CLI_OK;
        }
        if (strcmp(arg, "--fused-sdpa") == 0) {
            o->model.fused_sdpa = true;
            continue;
        }
        if (strcmp(arg, "--quiet") == 0) {
            o->quiet = true;
            continue;
        }
        int format = file_format(arg);
        bool takes_path = format >= 0;
        size_t n = 0;
        while (n < sizeof numeric / sizeof numeric[0] && strcmp(arg, numeric[n].name) != 0) {
            n++;
        }
        bool takes_number = n < sizeof numeric / sizeof numeric[0];
        if (!takes_path && !takes_number) {
            fprintf(stderr, "wgprof demo: unknown option '%s'\n\n%s", arg, demo_usage);
            return CLI_USAGE;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "wgprof demo: %s needs a value\n", arg);
            return CLI_USAGE;
        }
        const char *value = argv[++i];
        if (takes_number) {
            if (!parse_u32(arg, value, numeric[n].min, numeric[n].max, numeric[n].value)) {
                return CLI_USAGE;
            }
        } else if (!value[0]) {
            fprintf(stderr, "wgprof demo: %s needs a file name\n", arg);
            return CLI_USAGE;
        } else {
            o->files[format] = value;
        }
    }
    return PARSE_RUN;
}

/* The constraints between flags; each message names the flags and values at fault. */
static bool config_valid(const demo_config *c)
{
    if (c->dim % c->heads != 0) {
        fprintf(stderr, "wgprof demo: --dim %u is not divisible by --heads %u\n", c->dim, c->heads);
        return false;
    }
    if ((c->dim / c->heads) % 2 != 0) {
        fprintf(stderr, "wgprof demo: --dim %u / --heads %u gives head_dim %u, which is odd; rope rotates pairs\n",
                c->dim, c->heads, c->dim / c->heads);
        return false;
    }
    if (c->pos >= c->max_seq) {
        fprintf(stderr, "wgprof demo: --pos %u must be less than --max-seq %u\n", c->pos, c->max_seq);
        return false;
    }
    if (c->fused_sdpa && c->max_seq > DEMO_FUSED_MAX_SEQ) {
        fprintf(stderr, "wgprof demo: --max-seq %u with --fused-sdpa: the fused kernel holds at most %d positions\n",
                c->max_seq, DEMO_FUSED_MAX_SEQ);
        return false;
    }
    uint64_t bytes = demo_host_bytes(c);
    if (bytes > HOST_BYTES_LIMIT) {
        fprintf(stderr,
                "wgprof demo: the weights and KV cache would take %llu MiB, more than the demo's %llu MiB; "
                "lower --layers, --dim, --ffn, --vocab or --max-seq\n",
                (unsigned long long)(bytes >> 20), (unsigned long long)(HOST_BYTES_LIMIT >> 20));
        return false;
    }
    return true;
}

static int check_device_limits(wgprof_device *dev, const demo_config *c)
{
    WGPULimits limits = {0};
    if (wgpuDeviceGetLimits(wgprof_device_webgpu(dev), &limits) != WGPUStatus_Success) {
        fprintf(stderr, "wgprof demo: the device reported no limits\n");
        return CLI_FAILED;
    }
    char why[256];
    if (!demo_fits_device(c, &limits, why, sizeof why)) {
        fprintf(stderr, "wgprof demo: the model does not fit %s: %s\n", wgprof_device_describe(dev)->adapter, why);
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* ---- checking the logits ----------------------------------------------------------------- */

typedef struct logits_check {
    uint32_t argmax;
    double max_abs_err;
    double tolerance;
    uint64_t checksum;
    bool ok;
} logits_check;

/* FNV-1a over the bytes: equal exactly when the logits are bit-identical. */
static uint64_t fnv1a64(const void *data, size_t size)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < size; i++) {
        h = (h ^ p[i]) * 0x100000001b3ull;
    }
    return h;
}

/* The tolerance is relative to the logits' scale: the GPU sums rmsnorm and softmax in another
 * order and may fuse multiply-adds, which moves results by a few ulps per operation, while any
 * wrong kernel moves them by the order of the values themselves. */
static logits_check check_logits(const float *gpu, const float *cpu, uint32_t n)
{
    logits_check r = {.checksum = fnv1a64(gpu, n * sizeof(float))};
    double max_ref = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double err = isfinite(gpu[i]) ? fabs((double)gpu[i] - (double)cpu[i]) : INFINITY;
        r.max_abs_err = fmax(r.max_abs_err, err);
        max_ref = fmax(max_ref, fabs((double)cpu[i]));
        if (gpu[i] > gpu[r.argmax]) {
            r.argmax = i;
        }
    }
    r.tolerance = 1e-3 * fmax(1.0, max_ref);
    r.ok = r.max_abs_err <= r.tolerance;
    return r;
}

static int compare_with_cpu(demo_model *model, wgprof_device *dev, const demo_config *c)
{
    float *gpu = malloc(c->vocab * sizeof(float));
    float *cpu = malloc(c->vocab * sizeof(float));
    wgprof_status s = gpu && cpu ? WGPROF_OK : WGPROF_ERR_OUT_OF_MEMORY;
    const char *what = "allocating the logits";
    if (s == WGPROF_OK) {
        what = "reading the logits back";
        s = demo_model_read_logits(model, dev, gpu);
    }
    if (s == WGPROF_OK) {
        what = "computing the CPU reference";
        s = demo_reference_decode(model, cpu);
    }
    int rc = CLI_OK;
    if (s != WGPROF_OK) {
        rc = cli_fail(what, s);
    } else {
        logits_check r = check_logits(gpu, cpu, c->vocab);
        printf("result: argmax token %u, max abs error vs CPU %.3g (%s)\n", r.argmax, r.max_abs_err,
               r.ok ? "ok" : "FAILED");
        printf("checksum: %016llx\n", (unsigned long long)r.checksum);
        if (!r.ok) {
            fprintf(stderr, "wgprof demo: the GPU logits differ from the CPU reference by %.3g, more than %.3g\n",
                    r.max_abs_err, r.tolerance);
            rc = CLI_FAILED;
        }
    }
    free(gpu);
    free(cpu);
    return rc;
}

/* ---- reports ----------------------------------------------------------------------------- */

static wgprof_report_desc report_desc(wgprof_device *dev, wgprof_graph *graph, uint32_t iterations)
{
    bool profiled = wgprof_graph_settings(graph).profiling == WGPROF_PROFILING_ON;
    return (wgprof_report_desc){
        .device = wgprof_device_describe(dev),
        .pool = profiled ? wgprof_graph_pool(graph) : NULL,
        .strategy = profiled ? wgprof_strategy_str(wgprof_graph_settings(graph).strategy) : NULL,
        .iterations = iterations,
        .unavailable_reason = profiled ? NULL : wgprof_graph_profiling_note(graph),
    };
}

static int write_reports(const demo_options *o, wgprof_device *dev, wgprof_graph *graph)
{
    wgprof_report_desc desc = report_desc(dev, graph, o->iterations);
    int rc = CLI_OK;
    if (wgprof_graph_settings(graph).profiling == WGPROF_PROFILING_ON && !o->quiet) {
        putchar('\n');
        wgprof_status s = wgprof_report_write(&desc, WGPROF_FORMAT_TABLE, stdout);
        if (s != WGPROF_OK) {
            rc = cli_fail("printing the report", s);
        }
    }
    int file_rc = cli_write_reports(&desc, o->files, NULL);
    return rc != CLI_OK ? rc : file_rc;
}

/* ---- running ----------------------------------------------------------------------------- */

static wgprof_status execute_steps(wgprof_graph *graph, uint32_t iterations)
{
    wgprof_status s = WGPROF_OK;
    for (uint32_t i = 0; i < iterations && s == WGPROF_OK; i++) {
        s = wgprof_graph_execute(graph);
    }
    return s;
}

static int run_on_device(const demo_options *o, wgprof_device *dev)
{
    demo_model *model = NULL;
    wgprof_graph *graph = NULL;
    const char *what = "allocating the model";
    wgprof_status s = demo_model_create(&o->model, &model);
    if (s == WGPROF_OK) {
        what = "creating the graph";
        s = wgprof_graph_create(dev, NULL, &graph);
    }
    if (s == WGPROF_OK) {
        what = "building the decode step";
        s = demo_model_build(model, dev, graph);
    }
    if (s == WGPROF_OK) {
        if (wgprof_graph_settings(graph).profiling != WGPROF_PROFILING_ON) {
            fprintf(stderr, "wgprof demo: %s\n", wgprof_graph_profiling_note(graph));
        }
        what = "running the decode step";
        demo_model_set_step(model, dev);
        s = execute_steps(graph, o->iterations);
    }
    int rc = CLI_OK;
    if (s != WGPROF_OK) {
        rc = cli_fail(what, s);
    } else {
        /* The reports are written even when the check fails: the timings are still real. */
        rc = compare_with_cpu(model, dev, &o->model);
        int report_rc = write_reports(o, dev, graph);
        rc = rc != CLI_OK ? rc : report_rc;
    }
    wgprof_graph_destroy(graph);
    demo_model_destroy(model);
    return rc;
}

int cmd_demo(int argc, char **argv)
{
    demo_options o = {
        .model = {.layers = 2, .dim = 256, .heads = 4, .ffn = 512, .vocab = 1024, .max_seq = 64, .pos = 16},
        .iterations = 3,
    };
    int rc = parse_args(argc, argv, &o);
    if (rc != PARSE_RUN) {
        return rc;
    }
    if (!config_valid(&o.model)) {
        return CLI_USAGE;
    }
    const demo_config *c = &o.model;
    printf("demo: layers=%u dim=%u heads=%u ffn=%u vocab=%u max_seq=%u pos=%u token=%u attention=%s "
           "iterations=%u\n",
           c->layers, c->dim, c->heads, c->ffn, c->vocab, c->max_seq, c->pos, demo_token(c),
           c->fused_sdpa ? "fused" : "separate", o.iterations);
    fflush(stdout);
    wgprof_device *dev = NULL;
    wgprof_status s = wgprof_device_create(NULL, &dev);
    if (s != WGPROF_OK) {
        return cli_fail("creating the WebGPU device", s);
    }
    rc = check_device_limits(dev, c);
    if (rc == CLI_OK) {
        rc = run_on_device(&o, dev);
    }
    wgprof_device_destroy(dev);
    return rc;
}
