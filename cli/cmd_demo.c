/* wgprof demo: a transformer decode step as a wgprof graph, checked against the CPU; with
 * --baseline, profiled and compared with an earlier report (cmd_diff.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"

static const uint64_t HOST_BYTES_LIMIT = 4ull << 30;

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
        .iterations = iterations,
        .unavailable_reason = profiled ? NULL : wgprof_graph_profiling_note(graph),
    };
}

static int write_reports(const cli_demo_options *o, wgprof_device *dev, wgprof_graph *graph, uint32_t iterations,
                         const diff_profile *baseline)
{
    wgprof_report_desc desc = report_desc(dev, graph, iterations);
    int rc = CLI_OK;
    desc.shader_checks = o->shader_checks_given ? wgprof_shader_checks_str(o->model.shader_checks) : NULL;
    if (wgprof_graph_settings(graph).profiling == WGPROF_PROFILING_ON && !o->quiet) {
        putchar('\n');
        static const char *const no_files[WGPROF_FORMAT_COUNT] = {0};
        rc = cli_write_reports(&desc, no_files, stdout);
    }
    int file_rc = cli_write_reports(&desc, o->files, NULL);
    rc = rc != CLI_OK ? rc : file_rc;
    if (baseline) {
        int compared = cli_baseline_compare_report("demo", baseline, &desc, stdout);
        rc = rc != CLI_OK ? rc : compared;
    }
    return rc;
}

/* ---- running ----------------------------------------------------------------------------- */

/* A step that did not finish in time: the completed measured ones are reported, and the GPU
 * objects are left as they are (the device may still be busy): the process exits without
 * waiting. */
static int report_timeout(const cli_demo_options *o, wgprof_device *dev, wgprof_graph *graph, const cli_iterations *r,
                          const diff_profile *baseline)
{
    cli_error_timed_out("demo", r, o->timeout_s);
    if (r->measured > 0) {
        cli_error("wgprof demo: reporting the %ld measured iteration%s that completed; the logits are not checked",
                  r->measured, r->measured == 1 ? "" : "s");
        write_reports(o, dev, graph, (uint32_t)r->measured, baseline);
    }
    return CLI_TIMEOUT;
}

static int run_on_device(const cli_demo_options *o, wgprof_device *dev, const diff_profile *baseline)
{
    demo_model *model = NULL;
    wgprof_graph *graph = NULL;
    const char *what = "allocating the model";
    wgprof_status s = demo_model_create(&o->model, &model);
    if (s == WGPROF_OK) {
        what = "creating the graph";
        /* A comparison needs timings: --baseline turns profiling on. */
        wgprof_graph_desc graph_desc = {.profiling = baseline ? WGPROF_PROFILING_ON : WGPROF_PROFILING_DEFAULT};
        s = wgprof_graph_create(dev, &graph_desc, &graph);
        /* So does a report file: asking for one is asking for timings, whatever the
         * environment says (WEBGPU_TIMESTAMP_QUERY decides only where nothing was asked). */
        bool reports = false;
        for (int f = 0; f < WGPROF_FORMAT_COUNT; f++) {
            reports = reports || o->files[f];
        }
        if (s == WGPROF_OK && reports && wgprof_graph_settings(graph).profiling != WGPROF_PROFILING_ON) {
            wgprof_graph_destroy(graph);
            graph = NULL;
            graph_desc.profiling = WGPROF_PROFILING_ON;
            s = wgprof_graph_create(dev, &graph_desc, &graph);
            if (s == WGPROF_OK && wgprof_graph_settings(graph).profiling == WGPROF_PROFILING_ON) {
                fprintf(stderr, "wgprof demo: profiling on for the report files asked for\n");
            }
        }
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
        cli_iterations r = cli_execute_iterations("demo", graph, o->warmup, o->iterations);
        s = r.status;
        if (s == WGPROF_ERR_TIMEOUT) {
            return report_timeout(o, dev, graph, &r, baseline);
        }
        if (s == WGPROF_OK && r.measured > 0) {
            /* Host and GPU together, each step waited for: what a program running the step
             * would see, profiled or not (and under wgprof record). */
            printf("steps: %ld in %.3f ms, %.1f us a step (wall clock)\n", r.measured, r.measured_s * 1e3,
                   r.measured_s * 1e6 / (double)r.measured);
        }
    }
    int rc = CLI_OK;
    if (s == WGPROF_ERR_UNSUPPORTED) {
        cli_error("wgprof demo: --shader-checks %s: %s compiles every shader with its own runtime checks; only "
                  "wgpu-native can drop them (--webgpu wgpu-native)",
                  wgprof_shader_checks_str(o->model.shader_checks), wgprof_device_describe(dev)->implementation);
        rc = CLI_USAGE;
    } else if (s != WGPROF_OK) {
        rc = cli_fail(what, s);
        if (rc == CLI_TIMEOUT) {
            return rc; /* the device may be busy: its objects are left alone */
        }
    } else {
        /* The reports are written even when the check fails: the timings are still real. */
        rc = compare_with_cpu(model, dev, &o->model);
        if (rc == CLI_TIMEOUT) {
            return rc; /* the device may be busy: its objects are left alone */
        }
        int report_rc = write_reports(o, dev, graph, o->iterations, baseline);
        rc = rc != CLI_OK ? rc : report_rc;
    }
    wgprof_graph_destroy(graph);
    demo_model_destroy(model);
    return rc;
}

/* The demo, its options checked: the device, the model, the run, the reports. */
static int demo_on_device(const cli_demo_options *o, const diff_profile *baseline)
{
    int rc = CLI_OK;
    const demo_config *c = &o->model;
    printf("demo: layers=%u dim=%u heads=%u ffn=%u vocab=%u max_seq=%u pos=%u token=%u attention=%s "
           "warmup=%u iterations=%u shader_checks=%s\n",
           c->layers, c->dim, c->heads, c->ffn, c->vocab, c->max_seq, c->pos, demo_token(c),
           c->fused_sdpa ? "fused" : "separate", o->warmup, o->iterations, wgprof_shader_checks_str(c->shader_checks));
    fflush(stdout);
    out_set_wait(o->timeout_s);
    wgprof_device_desc device_desc = {.wait_timeout_s = o->timeout_s};
    wgprof_device *dev = NULL;
    wgprof_status s = wgprof_device_create(&device_desc, &dev);
    if (s != WGPROF_OK) {
        return cli_fail("creating the WebGPU device", s);
    }
    rc = check_device_limits(dev, c);
    if (rc == CLI_OK) {
        rc = run_on_device(o, dev, baseline);
    }
    if (rc == CLI_TIMEOUT) {
        return rc; /* the device may still be busy: left alone */
    }
    wgprof_device_destroy(dev);
    return rc;
}

int cmd_demo(int argc, char **argv)
{
    cli_demo_options o;
    char error[4096];
    switch (cli_parse_demo_args(argc, argv, &o, error, sizeof error)) {
    case CLI_PARSE_HELP:
        fputs(cli_demo_usage, stdout);
        return CLI_OK;
    case CLI_PARSE_ERROR:
        cli_error("wgprof demo: %s\n(wgprof demo --help lists the options)", error);
        return CLI_USAGE;
    case CLI_PARSE_OK:
        break;
    }
    if (!config_valid(&o.model)) {
        return CLI_USAGE;
    }
    /* The baseline is read before anything runs: one it cannot read ends the demo here. */
    diff_profile baseline_profile;
    out_input baseline_input = {0};
    if (o.baseline) {
        int loaded = cli_baseline_load("demo", o.baseline, &baseline_profile, &baseline_input);
        if (loaded != CLI_OK) {
            return loaded;
        }
    }
    bool protect = o.baseline && (baseline_input.dev || baseline_input.ino);
    int rc = cli_check_report_files("demo", o.files, protect ? &baseline_input : NULL, protect ? 1 : 0);
    if (rc == CLI_OK) {
        rc = demo_on_device(&o, o.baseline ? &baseline_profile : NULL);
    }
    if (o.baseline) {
        diff_profile_free(&baseline_profile);
    }
    return rc;
}
